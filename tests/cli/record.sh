#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The trace recorder on a real program's strace log (tests/data/
# python-threads.strace, how it was recorded is in its header): the trace
# it writes must be what the log says, and must replay on every backend.
# Usage: record.sh PYTHON3 STRACE2TRACE REGIONBENCH LOG
set -eu
py=$1 rec=$2 rb=$3 log=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}

"$py" "$rec" "$log" >"$tmp/trace"
# 69 mappings or mapping pieces, 36 frees; the thread's arena: 32768 pages,
# trimmed by two partial munmaps to 29184, then to 16384 pages.
head -1 "$tmp/trace" | grep -qF "69 allocs, 36 frees, peak 36490 pages" ||
	fail "trace header: $(head -1 "$tmp/trace")"
grep -qx "capacity 72980" "$tmp/trace" || fail "capacity"
grep -A4 -x "alloc 32768" "$tmp/trace" | tr '\n' ' ' |
	grep -qE "^alloc 32768 free [0-9]+ alloc 29184 free [0-9]+ alloc 16384 " ||
	fail "partial munmap of the arena"
# Reading standard input gives the same trace.
"$py" "$rec" - <"$log" | cmp -s - "$tmp/trace" || fail "stdin differs"
# So does the log in strace's other line forms: "[pid N]" and -tt times.
sed -E 's/^([0-9]+) /[pid \1] 12:00:00.000001 /' "$log" | "$py" "$rec" - |
	cmp -s - "$tmp/trace" || fail "[pid N] and -tt forms differ"

"$rb" --runs 1 --format json replay "$tmp/trace" >"$tmp/out"
for b in bitmap ida maple hbitmap extent; do
	grep -qF "{\"workload\": \"replay\", \"backend\": \"$b\", \"capacity\": 72980" "$tmp/out" ||
		fail "no $b row: $(cat "$tmp/out")"
done
[ "$(grep -c '"regions": 69,.*"failures": 0, "false_failures": 0' "$tmp/out")" = 5 ] ||
	fail "replay rows: $(cat "$tmp/out")"
# pick on the recorded trace: a verdict, nothing fails anywhere.
"$rb" --runs 3 pick "$tmp/trace" >"$tmp/out" 2>/dev/null || fail "pick exit"
head -1 "$tmp/out" | grep -qE '^Verdict: [a-z]+ (first|best|top|next) fit\.$' ||
	fail "pick verdict: $(head -3 "$tmp/out")"
grep -qx '  Failures: 0 on every configuration ([0-9]*).' "$tmp/out" ||
	fail "pick failures: $(head -3 "$tmp/out")"
echo "record: the recorded trace replays on every backend"
