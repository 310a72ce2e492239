#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Build and run the whole suite: once with AddressSanitizer and
# UndefinedBehaviorSanitizer, once optimised (-O2), the threaded tests again
# under ThreadSanitizer, then the consumer test (tests/consumer/run.sh).
# Ends with one summary line, "make test: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
B=build
pass=0
fail=0
failed_steps=()

setup() { # dir args...
	local d=$1
	shift
	# Warnings are errors here (CI), not in a user's default build.
	set -- -Dwerror=true -Dtests=enabled "$@"
	if [ ! -f "$d/build.ninja" ]; then
		meson setup "$d" "$@" >"$d.setup.log" 2>&1 ||
			{ mkdir -p "$d"; cat "$d.setup.log"; return 1; }
	else
		meson configure "$d" "$@" >"$d.setup.log" 2>&1 ||
			{ cat "$d.setup.log"; return 1; }
	fi
}

# Seconds since the phase started, for its closing line and the summary.
phases=()
phase_start() { t0=$(date +%s); }
took() { echo "$(($(date +%s) - t0)) s"; }
phase_end() { phases+=("$1 $(took)"); }

# A phase whose build dir could not be set up counts as one failure.
setup_failed() { # name
	echo "=== $1: SETUP FAILED ($(took))"
	fail=$((fail + 1))
	failed_steps+=("$1 (setup)")
}

# Run "meson test" in a build dir and add its counts to the totals. Each
# test's line is printed as the test ends.
run_suite() { # name dir [meson test args...]
	local name=$1 dir=$2
	shift 2
	echo "  building $dir"
	if ! ninja -C "$dir" >"$dir/ninja.log" 2>&1; then
		tail -n 60 "$dir/ninja.log"
		echo "=== $name: BUILD FAILED ($(took))"
		fail=$((fail + 1))
		failed_steps+=("$name (build)")
		return
	fi
	echo "  built in $(took); testing"
	meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" 2>&1 |
		tee "$dir/test.out" |
		grep --line-buffered -E '^ *[0-9]+/[0-9]+ ' | sed -u 's/^/  /'
	local rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		# Show the logs of failures: from each failing test's line
		# (--print-errorlogs puts its log below it) to the next blank.
		awk '/^ *[0-9]+\/[0-9]+ .* (FAIL|TIMEOUT|ERROR) / { p = 1 }
			p { print } /^$/ { p = 0 }' "$dir/test.out" | tail -n 200
	fi
	local ok nok to
	ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$dir/test.out" | tail -n 1)
	nok=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$dir/test.out" | tail -n 1)
	to=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$dir/test.out" | tail -n 1)
	pass=$((pass + ${ok:-0}))
	fail=$((fail + ${nok:-0} + ${to:-0}))
	if [ "$rc" -ne 0 ]; then
		[ -z "$nok$to" ] && fail=$((fail + 1))
		failed_steps+=("$name")
	fi
	echo "=== $name: ${ok:-0} ok, ${nok:-0} failed, ${to:-0} timed out" \
		"($(took))"
}

mkdir -p $B
start=$(date +%s)
phase_start
echo "=== ASan+UBSan"
if setup $B/asan -Dbuildtype=debug -Doptimization=1 \
	-Db_sanitize=address,undefined -Db_lundef=false; then
	run_suite "ASan+UBSan" $B/asan
else
	setup_failed "ASan+UBSan"
fi
phase_end ASan+UBSan
phase_start
echo "=== optimised (-O2)"
if setup $B/release -Dbuildtype=debugoptimized -Db_ndebug=true; then
	run_suite "optimised (-O2)" $B/release
else
	setup_failed "optimised (-O2)"
fi
phase_end -O2
phase_start
echo "=== TSan (threaded tests)"
if setup $B/tsan -Dbuildtype=debugoptimized -Db_sanitize=thread \
	-Db_lundef=false; then
	run_suite "TSan (threaded tests)" $B/tsan --suite threaded
else
	setup_failed "TSan (threaded tests)"
fi
phase_end TSan

phase_start
echo "=== consumer test (install; CMake, pkg-config, static, subproject)"
if bash tests/consumer/run.sh; then
	pass=$((pass + 1))
	echo "=== consumer test: ok ($(took))"
else
	fail=$((fail + 1))
	failed_steps+=("consumer test")
	echo "=== consumer test: FAILED ($(took))"
fi
phase_end consumer

echo
p=$(printf '%s, ' "${phases[@]}")
echo "phases: ${p%, }; elapsed $(($(date +%s) - start)) s"
[ ${#failed_steps[@]} -gt 0 ] && echo "failed: ${failed_steps[*]}"
echo "make test: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ ${#failed_steps[@]} -eq 0 ]
