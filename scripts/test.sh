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

# Run "meson test" in a build dir and add its counts to the totals.
run_suite() { # name dir [meson test args...]
	local name=$1 dir=$2
	shift 2
	echo "=== $name"
	if ! ninja -C "$dir" >"$dir/ninja.log" 2>&1; then
		tail -n 60 "$dir/ninja.log"
		echo "=== $name: BUILD FAILED"
		fail=$((fail + 1))
		failed_steps+=("$name (build)")
		return
	fi
	meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" \
		>"$dir/test.out" 2>&1
	local rc=$?
	grep -E '^ *[0-9]+/[0-9]+ ' "$dir/test.out" | sed 's/^/  /'
	if [ $rc -ne 0 ]; then
		# Show the logs of failures.
		sed -n '/^==* [0-9]*\/[0-9]* =*/,$p' "$dir/test.out" | tail -n 200
	fi
	local ok nok
	ok=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$dir/test.out" | tail -n 1)
	nok=$(sed -n 's/^Fail: *\([0-9]*\).*/\1/p' "$dir/test.out" | tail -n 1)
	to=$(sed -n 's/^Timeout: *\([0-9]*\).*/\1/p' "$dir/test.out" | tail -n 1)
	pass=$((pass + ${ok:-0}))
	fail=$((fail + ${nok:-0} + ${to:-0}))
	if [ $rc -ne 0 ]; then
		[ -z "$nok$to" ] && fail=$((fail + 1))
		failed_steps+=("$name")
	fi
	echo "=== $name: ${ok:-0} ok, ${nok:-0} failed, ${to:-0} timed out"
}

mkdir -p $B
start=$(date +%s)
setup $B/asan -Dbuildtype=debug -Doptimization=1 \
	-Db_sanitize=address,undefined -Db_lundef=false &&
	run_suite "ASan+UBSan" $B/asan
setup $B/release -Dbuildtype=debugoptimized -Db_ndebug=true &&
	run_suite "optimised (-O2)" $B/release
setup $B/tsan -Dbuildtype=debugoptimized -Db_sanitize=thread \
	-Db_lundef=false &&
	run_suite "TSan (threaded tests)" $B/tsan --suite threaded

echo "=== consumer test (install; CMake, pkg-config, static, subproject)"
if bash tests/consumer/run.sh; then
	pass=$((pass + 1))
else
	fail=$((fail + 1))
	failed_steps+=("consumer test")
fi

echo
echo "elapsed $(( $(date +%s) - start )) s"
[ ${#failed_steps[@]} -gt 0 ] && echo "failed: ${failed_steps[*]}"
echo "make test: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ ${#failed_steps[@]} -eq 0 ]
