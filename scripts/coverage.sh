#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make coverage: build the whole suite with gcc --coverage in its own build
# dir, run every test, and print line and branch coverage of src/ only
# (tests, bench and examples are not counted), per file and in total.
# Usage: coverage.sh [BUILD_DIR]. Also writes BUILD_DIR/coverage.txt (the
# uncovered line numbers per file), BUILD_DIR/coverage-functions.md (the
# same by function, scripts/coverage_list.py), BUILD_DIR/coverage.md
# (doc/coverage.md from this run, scripts/coverage_doc.py) and
# BUILD_DIR/coverage.html.
set -u
cd "$(dirname "$0")/.."
d=${1:-build/coverage}

if [ ! -f "$d/build.ninja" ]; then
	mkdir -p "$(dirname "$d")"
	meson setup "$d" -Dbuildtype=debug -Db_coverage=true -Dwerror=true \
		-Dtests=enabled \
		>"$d.setup.log" 2>&1 || { cat "$d.setup.log"; exit 1; }
fi
ninja -C "$d" >"$d.ninja.log" 2>&1 || { tail -n 40 "$d.ninja.log"; exit 1; }
# Counters from an earlier run would add up: start from zero.
find "$d" -name '*.gcda' -delete
meson test -C "$d" --num-processes 2 >"$d.test.log" 2>&1
rc=$?
grep -E '^(Ok|Fail|Timeout):' "$d.test.log"
[ $rc -eq 0 ] || { echo "coverage: some tests failed, see $d.test.log"; exit 1; }

# From here on any failing step (gcovr, the listing) fails make coverage.
set -e -o pipefail
root=$(pwd)
# Every gcovr call names $d as its only search path: by default gcovr reads
# the counters of every build under the root, and another coverage build
# (of older sources) would be merged in, or stop it with an assertion.
gcovr -r "$root" --object-directory "$d" --filter "$root/src/" \
	"$d" \
	-o "$d/coverage.txt" --txt
gcovr -r "$root" --object-directory "$d" --filter "$root/src/" \
	"$d" \
	--html-details -o "$d/coverage.html" >/dev/null
gcovr -r "$root" --object-directory "$d" --filter "$root/src/" \
	"$d" \
	--branches -o "$d/coverage-branches.txt" --txt
cat "$d/coverage.txt"
# The totals (stdout) are kept for doc/coverage.md and the README.
gcovr -r "$root" --object-directory "$d" --filter "$root/src/" \
	"$d" \
	--print-summary -o "$d/coverage-summary.txt" |
	tee "$d/coverage-totals.txt"
# The uncovered lines by file and function, as doc/coverage.md lists them.
gcovr -r "$root" --object-directory "$d" --filter "$root/src/" \
	"$d" \
	--json -o "$d/coverage.json"
python3 scripts/coverage_list.py "$d/coverage.json" \
	>"$d/coverage-functions.md"
# doc/coverage.md as this run writes it (make coverage-doc installs it).
python3 scripts/coverage_doc.py "$d" >"$d/coverage.md"
echo "coverage: uncovered lines per file in $d/coverage.txt, per function" \
	"in $d/coverage-functions.md, sorted into doc/coverage.md's groups in" \
	"$d/coverage.md, branches in $d/coverage-branches.txt," \
	"annotated sources in $d/coverage.html"
