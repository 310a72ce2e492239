#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Instructions per operation of one backend and placement policy, counted
# by callgrind, so that a figure can be repeated exactly on a noisy machine:
#
#   scripts/instructions.sh [-C BUILDDIR] [-c CAPACITY] [-o OCCUPANCY]
#                           [-b BOUNDARY] WORKLOAD BACKEND POLICY [ARG...]
#
#   WORKLOAD  churn or aligned: instructions per free+alloc pair;
#             fill or big: instructions per allocation and per free;
#             mix, vram or extents: instructions per operation, an
#             allocation or a free, failed allocations included
#             (regionbench regions --workload)
#   BACKEND   bitmap, ida, maple or hbitmap
#   POLICY    first, best, top or next
#   BOUNDARY  churn, aligned: allocate through rg_region_alloc_request()
#             with this boundary (regionbench regions --boundary)
#   ARG...    more options of regionbench regions, e.g. --sizes SPEC
#             --aligns MIX --free-order oldest --alloc-share P for mix
#   defaults: BUILDDIR build/release, CAPACITY 1e6 (vram, extents: 2^21),
#             OCCUPANCY 90 (vram: running full, extents: 50; -o holds it)
#
# Collection is switched on only inside rg_region_alloc(),
# rg_region_alloc_request() and rg_region_free() (callees included), so the benchmark's own work is not
# counted. Churn: regionbench runs the same seeded churn twice, for N1 and
# N2 iterations; the fill and the first N1 iterations are identical in both
# runs, so (I(N2) - I(N1)) / (N2 - N1) is the cost of one steady-state
# iteration, one free and one allocation. Fill and big: one fill (until the
# first failure) and the frees of every region, counted once with only
# rg_region_alloc() collected and once with only rg_region_free(), each
# divided by the number of regions. Mix, vram and extents: as churn, with
# N1 and N2 operations.
set -eu
cd "$(dirname "$0")/.."
B=build/release
CAP=
OCC=
BND=
N1=${RG_N1:-20000}
N2=${RG_N2:-120000}
while getopts "C:c:o:b:" opt; do
	case $opt in
	C) B=$OPTARG ;;
	c) CAP=$OPTARG ;;
	o) OCC=$OPTARG ;;
	b) BND=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -lt 3 ]; then
	sed -n '4,33p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
WL=$1 BACKEND=$2 POLICY=$3
shift 3
EXTRA=("$@")
case $WL in
vram | extents) CAP=${CAP:-2^21} ;;
*) CAP=${CAP:-1e6} ;;
esac
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind" >&2; exit 2; }
[ -x "$B/bench/regionbench" ] || { echo "instructions.sh: build $B first (make build)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # tag toggle-functions... (regionbench arguments in $ARGS)
	local tag=$1
	shift
	local toggles=()
	for f in "$@"; do toggles+=("--toggle-collect=$f"); done
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$tag" \
		"${toggles[@]}" "$B/bench/regionbench" --runs 1 --format csv \
		regions --workload "$WL" --backends "$BACKEND" --policy "$POLICY" \
		--capacity "$CAP" "${ARGS[@]}" ${EXTRA[@]+"${EXTRA[@]}"} \
		--budget 86400 \
		>"$tmp/out.$tag" 2>"$tmp/err.$tag" ||
		{ cat "$tmp/err.$tag" >&2; exit 1; }
	awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.$tag"
}
case $WL in
churn | aligned)
	OCC=${OCC:-90}
	ARGS=(--occupancy "$OCC" ${BND:+--boundary "$BND"})
	ARGS+=(--iterations "$N1")
	i1=$(run n1 rg_region_alloc rg_region_alloc_request rg_region_free)
	ARGS[${#ARGS[@]} - 1]=$N2
	i2=$(run n2 rg_region_alloc rg_region_alloc_request rg_region_free)
	awk -v a="$i1" -v b="$i2" -v n1="$N1" -v n2="$N2" -v w="$WL" \
		-v be="$BACKEND" -v p="$POLICY" -v c="$CAP" -v o="$OCC" 'BEGIN {
		printf "%s %s %s fit, capacity %s, %s%%: %.0f instructions per " \
		       "free+alloc pair ((%s - %s) / (%d - %d))\n",
		       w, be, p, c, o, (b - a) / (n2 - n1), b, a, n2, n1
	}'
	;;
mix | vram | extents)
	ARGS=(${OCC:+--occupancy "$OCC"} --iterations "$N1")
	i1=$(run n1 rg_region_alloc rg_region_free)
	ARGS[${#ARGS[@]} - 1]=$N2
	i2=$(run n2 rg_region_alloc rg_region_free)
	fails=$(awk -F, 'NR == 2 { print $14 }' "$tmp/out.n2")
	awk -v a="$i1" -v b="$i2" -v n1="$N1" -v n2="$N2" -v w="$WL" \
		-v be="$BACKEND" -v p="$POLICY" -v c="$CAP" -v f="$fails" \
		-v o="${OCC:+$OCC%}" 'BEGIN {
		printf "%s %s %s fit, capacity %s%s: %.0f instructions per " \
		       "operation ((%s - %s) / (%d - %d)); %s failures in " \
		       "%d operations\n", w, be, p, c, o ? ", " o : "",
		       (b - a) / (n2 - n1), b, a, n2, n1, f, n2
	}'
	;;
fill | big)
	ARGS=()
	ia=$(run alloc rg_region_alloc)
	if=$(run free rg_region_free)
	regions=$(awk -F, 'NR == 2 { print $7 }' "$tmp/out.alloc")
	awk -v a="$ia" -v f="$if" -v r="$regions" -v w="$WL" \
		-v be="$BACKEND" -v p="$POLICY" -v c="$CAP" 'BEGIN {
		printf "%s %s %s fit, capacity %s: %d regions, %.0f " \
		       "instructions per allocation (%s / %d), %.0f per free " \
		       "(%s / %d)\n", w, be, p, c, r, a / r, a, r, f / r, f, r
	}'
	;;
*)
	echo "instructions.sh: workload $WL: churn, aligned, fill, big, mix," \
		"vram or extents" >&2
	exit 2
	;;
esac
