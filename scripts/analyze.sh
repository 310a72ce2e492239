#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make analyze: static analysis of src/, clean or failing.
#   1. gcc -fanalyzer: the library compiled in its own build dir with
#      -fanalyzer; werror makes every analyzer warning fail the build.
#   2. cppcheck (warning, style, performance, portability) with the
#      checked-in .cppcheck-suppressions, each entry with its reason.
# Usage: analyze.sh [BUILD_DIR]. Exit status 0 when both are clean.
set -u
cd "$(dirname "$0")/.."
d=${1:-build/analyze}
fail=0

echo "=== gcc -fanalyzer (src/)"
if [ ! -f "$d/build.ninja" ]; then
	mkdir -p "$(dirname "$d")"
	meson setup "$d" -Dbuildtype=debug -Dc_args=-fanalyzer -Dwerror=true \
		>"$d.setup.log" 2>&1 || { cat "$d.setup.log"; exit 1; }
fi
if ninja -C "$d" libregion.a >"$d.ninja.log" 2>&1; then
	n=$(grep -c 'warning:' "$d.ninja.log")
	echo "gcc -fanalyzer: clean ($n warnings)"
else
	grep -E 'error:|warning:' -A12 "$d.ninja.log" | head -n 200
	echo "gcc -fanalyzer: FINDINGS"
	fail=1
fi

echo "=== cppcheck $(cppcheck --version | sed 's/^Cppcheck //') (src/)"
if cppcheck --enable=warning,style,performance,portability --std=c11 \
	--inline-suppr --suppressions-list=.cppcheck-suppressions \
	--error-exitcode=1 -q -j2 -D__GNUC__ \
	-I include -I src/internal -I src src/; then
	echo "cppcheck: clean"
else
	echo "cppcheck: FINDINGS"
	fail=1
fi
exit $fail
