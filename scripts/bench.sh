#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The default benchmarks of `make bench`, sized to finish in under three
# minutes on a 2-core machine. Each prints its seed and parameters; run a
# subcommand by hand (build/release/bench/regionbench --help) for the full
# versions doc/benchmarks.md shows. The terminal gets one verdict line per
# benchmark (scripts/bench_summary.py); the full tables, with their
# legends and notes, go to BUILD_DIR/bench.txt, their JSON to
# BUILD_DIR/bench.json, and the charts (gnuplot, PNG and SVG) to the
# folder in $PLOTS (default BUILD_DIR/plots); without gnuplot the
# benchmarks run without charts.
set -eu
dir=${1:-build/release}
rb="$dir/bench/regionbench"
plots=${PLOTS:-$dir/plots}
full=$dir/bench.txt
json=$dir/bench.json
start=$(date +%s)
plot=()
if command -v gnuplot >/dev/null 2>&1; then
	mkdir -p "$plots"
	plot=(--plot "$plots")
else
	echo "make bench: gnuplot not found, no charts"
fi
: >"$full"
: >"$json"

# run ARGS...: one regionbench run, its output appended to the full file.
n=0
run() {
	n=$((n + 1))
	[ -t 1 ] && printf '\rmake bench: %d of 9: %s ...\033[K' "$n" "$*"
	echo "\$ regionbench $*" >>"$full"
	if ! "$rb" --json-to "$json" "$@" >>"$full" 2>&1; then
		[ -t 1 ] && printf '\n'
		tail -n 20 "$full"
		echo "make bench: regionbench $* failed (all output in $full)"
		exit 1
	fi
	echo >>"$full"
}

# Slab bulk vs single calls vs malloc, jemalloc, mimalloc (the 2015 SLUB
# bulk-free patches).
run "${plot[@]}" slab --objects 2000000
# IDs in a row, and the zero-area search (the kernel's 2026 speed-up).
run --runs 3 ida
run "${plot[@]}" --runs 3 bitmap
# Region fill at 10^6 .. 10 (the kernel's 2026 region-allocation
# benchmark), then a short churn run.
run "${plot[@]}" regions
run "${plot[@]}" --runs 3 regions --workload churn --iterations 100000 --budget 5
# Maple Tree against GLib's GTree at 3 x 10^5 ranges.
run "${plot[@]}" --runs 3 maple --entries 300000
# Preallocation histograms with and without vacancy tracking (the 2024
# Maple Tree vacancy patches).
run "${plot[@]}" --runs 1 maple-prealloc --ranges 10000,100000
# Walking, free-run histogram, save and load after a short churn at 10^6
# units.
run --runs 3 region-walk --iterations 50000
# Which backend and policy for a real program's mappings: Python 3.11's
# mmap trace (tests/data/python-threads.strace), converted and picked.
if python3 scripts/strace2trace.py tests/data/python-threads.strace \
	>"$dir/python-threads.trace" 2>>"$full"; then
	run pick "$dir/python-threads.trace"
fi
# Every structure with 1, 2 and 4 threads on one shared instance.
run "${plot[@]}" --runs 3 threads --threads 1,2,4 --seconds 0.3
[ -t 1 ] && printf '\r\033[K'

python3 scripts/bench_summary.py "$json"
echo "make bench: done in $(($(date +%s) - start)) s; full tables in $full"
if [ ${#plot[@]} -gt 0 ]; then
	echo "make bench: charts in $plots"
fi
