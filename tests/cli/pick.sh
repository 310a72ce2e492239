#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# regionbench pick: the verdict's form on a checked-in trace, a choice
# decided by failures (which repeat exactly; times are never asserted),
# one row per backend and policy, --help, bad input.
# Usage: pick.sh REGIONBENCH SMALL_TRACE
set -u
rb=$1 small=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checks=0
fail() {
	fails=$((fails + 1))
	echo "FAIL: $1"
	[ -f "$tmp/out" ] && sed 's/^/    /' "$tmp/out" | head -30
}
check() { # DESCRIPTION COMMAND...
	local what=$1
	shift
	checks=$((checks + 1))
	"$@" || fail "$what"
}
# The verdict's first line names one backend and one policy.
verdict_re='^Verdict: (bitmap|ida|maple|hbitmap|extent) (first|best|top|next) fit\.$'
# How the time step ended: one of these, always.
step_re='^  (Fastest: .* us of alloc \+ free \(median of [0-9]+ runs\)|Time: no measurable difference among [0-9]+ configurations)'

"$rb" --runs 3 pick "$small" >"$tmp/out" 2>/dev/null
check "pick exits 0 on $small" [ $? = 0 ]
check "verdict line" grep -qE "$verdict_re" <(head -1 "$tmp/out")
check "failures line" grep -qx '  Failures: 2 on every configuration ([0-9]*).' \
	<(sed -n 2p "$tmp/out")
check "time step" grep -qE "$step_re" "$tmp/out"
check "table after the verdict" grep -q '^== pick  (trace=' "$tmp/out"
check "rank 1 is picked" grep -qE '^ +1 +[a-z]+ +[a-z]+ +2 +0 .* picked$' "$tmp/out"

# One row per backend and policy it offers: the rows replay has.
"$rb" --runs 1 --format json pick "$small" >"$tmp/out" 2>/dev/null
grep -o '"backend": "[a-z]*", "policy": "[a-z]*"' "$tmp/out" | sort >"$tmp/pick"
"$rb" --runs 1 --format json replay --policy first,best,top,next "$small" \
	2>/dev/null | grep -o '"backend": "[a-z]*", "capacity": [0-9]*, "policy": "[a-z]*"' |
	sed 's/"capacity": [0-9]*, //' | sort >"$tmp/replay"
check "rows of pick = rows of replay on every policy" cmp -s "$tmp/pick" "$tmp/replay"
check "at least 8 rows" [ "$(wc -l <"$tmp/pick")" -ge 8 ]
check "JSON verdict" grep -qE '"verdict": "Verdict: [a-z]+ [a-z]+ fit\. ' "$tmp/out"

# Holes of 1, 3 and 2 units at 0, 2..4 and 6..7; then 1, 2 and 3 units:
# only best fit places all three (first fit and top-down fail the last).
cat >"$tmp/best.trace" <<'T'
capacity 8
reserve 0 1
reserve 1 1
reserve 2 3
reserve 5 1
reserve 6 2
free 0
free 2
free 4
alloc 1
alloc 2
alloc 3
T
"$rb" --runs 3 pick --backends hbitmap "$tmp/best.trace" >"$tmp/out" 2>/dev/null
check "best fit picked by failures" grep -qx 'Verdict: hbitmap best fit.' \
	<(head -1 "$tmp/out")
check "the failures and the margin" grep -qF \
	'Fewest failures: 0 failed allocations of 8, against 1 (1 more)' "$tmp/out"
check "decided by failures" grep -q 'pick=hbitmap best decided_by=failures' "$tmp/out"
check "the others: more failures" [ "$(grep -cE '^ +[0-9]+ .* more failures$' "$tmp/out")" = 3 ]
"$rb" --runs 3 --format json pick "$tmp/best.trace" >"$tmp/out" 2>/dev/null
check "every backend: a best-fit pick" grep -qE '"pick": "[a-z]+ best"' "$tmp/out"
# Best fit alone places all 8: one row per backend that offers it.
nbest=$(grep -c '"policy": "best"' "$tmp/out")
check "every backend: best fit offered twice or more" [ "$nbest" -ge 2 ]
check "every backend: only best fit with 0 failures" \
	[ "$(grep -c '"failures": 0,' "$tmp/out")" = "$nbest" ]
# Only first fit asked for: it has to take the failure.
"$rb" --runs 1 pick --policy first "$tmp/best.trace" >"$tmp/out" 2>/dev/null
check "first fit only" grep -qx '  Failures: 1 on every configuration ([0-9]*).' \
	<(sed -n 2p "$tmp/out")

# --help says how it decides; bad input exits 2 naming it.
"$rb" pick --help >"$tmp/out" 2>&1
check "--help" grep -q 'fewest failed allocations win' "$tmp/out"
check "--help noise" grep -q 'one is measurably faster than another when its middle' "$tmp/out"
"$rb" pick >"$tmp/out" 2>&1
check "no trace: exit 2" [ $? = 2 ]
check "no trace: message" grep -qF 'regionbench: pick: expected one trace FILE' "$tmp/out"
printf 'capacity 8\nalloc 9\n' >"$tmp/bad.trace"
"$rb" pick "$tmp/bad.trace" >"$tmp/out" 2>&1
check "bad trace: exit 2" [ $? = 2 ]
check "bad trace: FILE:LINE" grep -qF "$tmp/bad.trace:2: the size must be 1..capacity" "$tmp/out"

echo "pick: $checks checks, $fails failed"
[ "$fails" = 0 ]
