#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Instructions per free+alloc pair of one backend and placement policy
# under churn, counted by callgrind, so that a figure can be repeated
# exactly on a noisy machine:
#
#   scripts/instructions.sh [-C BUILDDIR] [-c CAPACITY] [-o OCCUPANCY]
#                           WORKLOAD BACKEND POLICY
#
#   WORKLOAD  churn or aligned (regionbench regions --workload)
#   BACKEND   bitmap, maple or hbitmap
#   POLICY    first, best, top or next
#   defaults: BUILDDIR build/release, CAPACITY 1e6, OCCUPANCY 90
#
# regionbench runs the same seeded churn twice, for N1 and N2 iterations,
# under valgrind --tool=callgrind with collection switched on only inside
# rg_region_alloc() and rg_region_free() (callees included). The fill and
# the first N1 iterations are identical in both runs, so
# (I(N2) - I(N1)) / (N2 - N1) is the cost of one steady-state iteration,
# one free and one allocation, without the benchmark's own work.
set -eu
cd "$(dirname "$0")/.."
B=build/release
CAP=1e6
OCC=90
N1=${RG_N1:-20000}
N2=${RG_N2:-120000}
while getopts "C:c:o:" opt; do
	case $opt in
	C) B=$OPTARG ;;
	c) CAP=$OPTARG ;;
	o) OCC=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -ne 3 ]; then
	sed -n '4,22p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
WL=$1 BACKEND=$2 POLICY=$3
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind" >&2; exit 2; }
[ -x "$B/bench/regionbench" ] || { echo "instructions.sh: build $B first (make build)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() { # iterations -> collected instructions
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$1" \
		--toggle-collect=rg_region_alloc --toggle-collect=rg_region_free \
		"$B/bench/regionbench" --runs 1 --format csv regions \
		--workload "$WL" --backends "$BACKEND" --policy "$POLICY" \
		--capacity "$CAP" --occupancy "$OCC" --iterations "$1" \
		--budget 86400 >"$tmp/out.$1" 2>"$tmp/err.$1" ||
		{ cat "$tmp/err.$1" >&2; exit 1; }
	awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.$1"
}
i1=$(count "$N1")
i2=$(count "$N2")
awk -v a="$i1" -v b="$i2" -v n1="$N1" -v n2="$N2" -v w="$WL" \
	-v be="$BACKEND" -v p="$POLICY" -v c="$CAP" -v o="$OCC" 'BEGIN {
	printf "%s %s %s fit, capacity %s, %s%%: %.0f instructions per " \
	       "free+alloc pair ((%s - %s) / (%d - %d))\n",
	       w, be, p, c, o, (b - a) / (n2 - n1), b, a, n2, n1
}'
