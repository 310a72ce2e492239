#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make fuzz SECONDS=N: build every fuzz target of tests/fuzz/ with clang,
# libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer (build/fuzz),
# run each for N seconds (default 60) on its seed corpus and regression
# inputs, and print per target: executions, libFuzzer's cov: (edges hit)
# and ft: (features), the share of all instrumented edges of the binary,
# and the share of the edges of the target's own module(s) in src/,
# counted on a replay of the final corpus by a second build of the same
# targets without sanitizers (build/fuzz-cov): ASan and UBSan add a branch
# for every check, which only a bug can take, and would count a third of
# a module's edges as never reached. New
# inputs go to build/fuzz/corpus/<target>/ (never to the committed
# corpus); crashes to build/fuzz/findings/. Fails if any target finds
# anything (a mismatch, a sanitizer report, a leak, a timeout).
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
# With FUZZ_MERGE=1, inputs that reach new edges after a clean run are
# merged into the committed corpus (libFuzzer -merge=1, inputs up to 512
# bytes, edges only: -use_counters=0, as hit counts would add hundreds of
# inputs per run and slow make test's replay): the way tests/fuzz/corpus/
# is grown.
set -u
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] ||
	targets=(slab bitmap hbitmap xarray ida maple region sbitmap)
B=build/fuzz

bash scripts/deps.sh fuzz || exit 1

if [ ! -f $B/build.ninja ]; then
	mkdir -p build
	CC=clang meson setup $B -Dbuildtype=debugoptimized \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args='-fsanitize=fuzzer-no-link -fno-sanitize-recover=all' \
		>build/fuzz.setup.log 2>&1 ||
		{ cat build/fuzz.setup.log; exit 1; }
fi
# The same targets, instrumented for coverage only: the module edge counts.
C=build/fuzz-cov
if [ ! -f $C/build.ninja ]; then
	CC=clang meson setup $C -Dbuildtype=debugoptimized -Db_lundef=false \
		-Dc_args='-fsanitize=fuzzer-no-link' \
		>build/fuzz-cov.setup.log 2>&1 ||
		{ cat build/fuzz-cov.setup.log; exit 1; }
fi
exes=()
for t in "${targets[@]}"; do
	exes+=("tests/fuzz/fuzz-$t")
done
for d in $B $C; do
	nice -n 10 ninja -C $d "${exes[@]}" >$d/ninja-fuzz.log 2>&1 ||
		{ tail -n 40 $d/ninja-fuzz.log; exit 1; }
done

# Sum the edges of functions whose file is under one of the folders.
module_cov() { # log dirs...
	local log=$1
	shift
	awk -v dirs="$*" '
		BEGIN { n = split(dirs, d, " ") }
		/^(UN)?COVERED_FUNC:/ {
			split($5, e, "/")
			f = $NF
			for (i = 1; i <= n; i++)
				if (index(f, "/src/" d[i] "/")) {
					hit += e[1]; all += e[2]; break
				}
		}
		END { if (all) printf "%d/%d (%.1f%%)", hit, all, 100 * hit / all
		      else printf "-" }' "$log"
}

declare -A mods=(
	[slab]="slab" [bitmap]="bitmap" [hbitmap]="hbitmap"
	[xarray]="xarray" [ida]="ida" [maple]="maple" [region]="region"
	[sbitmap]="sbitmap"
)
fail=0
printf '%-8s %10s %7s %7s %18s %22s  %s\n' target execs cov ft \
	"cov/all edges" "module edges" result
for t in "${targets[@]}"; do
	exe=$B/tests/fuzz/fuzz-$t
	work=$B/corpus/$t
	mkdir -p "$work" $B/findings $B/logs
	seeds=(tests/fuzz/corpus/$t)
	[ -d tests/fuzz/regress/$t ] && seeds+=(tests/fuzz/regress/$t)
	log=$B/logs/$t.log
	nice -n 10 "$exe" -max_total_time="$secs" -print_final_stats=1 \
		-max_len=1024 -len_control=0 -timeout=20 -rss_limit_mb=2048 \
		-artifact_prefix=$B/findings/$t- "$work" "${seeds[@]}" \
		>"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	last=$(grep -E '^#[0-9]+' "$log" | grep -E 'cov: ' | tail -n 1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	pcs=$(sed -n 's/.*(\([0-9]*\) inline 8-bit counters).*/\1/p' \
		"$log" | head -n 1)
	if [ $rc -eq 0 ]; then
		result=ok
		# Replay the corpus without sanitizers, printing per-function
		# coverage.
		"$C/tests/fuzz/fuzz-$t" -runs=0 -print_coverage=1 "$work" \
			"${seeds[@]}" >"$log.cov" 2>&1
		mcov=$(module_cov "$log.cov" ${mods[$t]})
		if [ "${FUZZ_MERGE:-0}" = 1 ]; then
			"$exe" -merge=1 -use_counters=0 -max_len=512 \
				tests/fuzz/corpus/$t \
				"$work" >"$log.merge" 2>&1 || result="merge failed"
		fi
	else
		result="FINDING (rc $rc): see $log and $B/findings/$t-*"
		fail=1
		mcov=-
	fi
	pct=-
	[ -n "$pcs" ] && [ -n "$cov" ] &&
		pct=$(awk -v c="$cov" -v p="$pcs" \
			'BEGIN { printf "%d/%d (%.1f%%)", c, p, 100 * c / p }')
	printf '%-8s %10s %7s %7s %18s %22s  %s\n' "$t" "${execs:--}" \
		"${cov:--}" "${ft:--}" "$pct" "$mcov" "$result"
	if [ $rc -ne 0 ]; then
		grep -E '^fuzz |ERROR|SUMMARY' "$log" | head -n 5 | sed 's/^/    /'
	fi
done
echo "make fuzz: ${secs} s per target, $([ $fail -eq 0 ] && echo "no findings" || echo "FINDINGS")"
exit $fail
