#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Instructions per operation of one backend and placement policy, counted
# by callgrind, so that a figure can be repeated exactly on a noisy machine:
#
#   scripts/instructions.sh [-C BUILDDIR] [-c CAPACITY] [-o OCCUPANCY]
#                           [-b BOUNDARY] WORKLOAD BACKEND POLICY
#
#   WORKLOAD  churn or aligned: instructions per free+alloc pair;
#             fill or big: instructions per allocation and per free
#             (regionbench regions --workload)
#   BACKEND   bitmap, ida, maple or hbitmap
#   POLICY    first, best, top or next
#   BOUNDARY  churn, aligned: allocate through rg_region_alloc_request()
#             with this boundary (regionbench regions --boundary)
#   defaults: BUILDDIR build/release, CAPACITY 1e6, OCCUPANCY 90
#
#   scripts/instructions.sh [-C BUILDDIR] sbitmap
#             instructions per rg_sbitmap_queue_get() +
#             rg_sbitmap_queue_clear() pair, one thread, a queue of 128
#             tags (regionbench threads --structures sbitmap --iterations)
#
#   scripts/instructions.sh [-C BUILDDIR] [-c ENTRIES] xa_load lock|rcu
#
#   xa_load   instructions per rg_xa_load() of a random index of an array
#             of ENTRIES value entries (default 65536): lock, from a thread
#             not registered with liburcu (the load takes the lock); rcu,
#             from a registered one (lock-free)
#
# Collection is switched on only inside rg_region_alloc(),
# rg_region_alloc_request() and rg_region_free() (callees included), so the benchmark's own work is not
# counted. Churn: regionbench runs the same seeded churn twice, for N1 and
# N2 iterations; the fill and the first N1 iterations are identical in both
# runs, so (I(N2) - I(N1)) / (N2 - N1) is the cost of one steady-state
# iteration, one free and one allocation. Fill and big: one fill (until the
# first failure) and the frees of every region, counted once with only
# rg_region_alloc() collected and once with only rg_region_free(), each
# divided by the number of regions.
set -eu
cd "$(dirname "$0")/.."
B=build/release
CAP=1e6
OCC=90
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
if [ $# -eq 1 ] && [ "$1" = sbitmap ]; then
	command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind" >&2; exit 2; }
	[ -x "$B/bench/regionbench" ] || { echo "instructions.sh: build $B first (make build)" >&2; exit 2; }
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	sb() { # iterations
		valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$1" \
			--toggle-collect=rg_sbitmap_queue_get \
			--toggle-collect=rg_sbitmap_queue_clear \
			"$B/bench/regionbench" --runs 1 --format csv threads \
			--structures sbitmap --threads 1 --tags 128 \
			--iterations "$1" >"$tmp/out.$1" 2>"$tmp/err.$1" ||
			{ cat "$tmp/err.$1" >&2; exit 1; }
		awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.$1"
	}
	# Multiples of 64: regionbench threads counts in batches of 64.
	N1=${RG_N1:-25600}
	N2=${RG_N2:-128000}
	i1=$(sb "$N1")
	i2=$(sb "$N2")
	awk -v a="$i1" -v b="$i2" -v n1="$N1" -v n2="$N2" 'BEGIN {
		printf "sbitmap, 128 tags, one thread: %.1f instructions per " \
		       "get+clear pair ((%s - %s) / (%d - %d))\n",
		       (b - a) / (n2 - n1), b, a, n2, n1
	}'
	exit 0
fi
[ "${1:-}" = xa_load ] && [ $# -eq 2 ] && set -- "$1" "$2" -
if [ $# -ne 3 ]; then
	sed -n '4,39p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
fi
WL=$1 BACKEND=$2 POLICY=$3
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind" >&2; exit 2; }
if [ "$WL" = xa_load ]; then
	# Two runs that differ only in the number of loads: the fill, the
	# destroy and the first load's one-time work cancel out.
	[ "$CAP" = 1e6 ] && CAP=65536
	x=$B/bench/xa_instr
	[ -x "$x" ] || { echo "instructions.sh: build $B first (make build)" >&2; exit 2; }
	case $BACKEND in lock) mode= ;; rcu) mode=rcu ;; *)
		echo "instructions.sh: xa_load lock|rcu" >&2; exit 2 ;; esac
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	for n in "$N1" "$N2"; do
		valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$n" \
			--toggle-collect=rg_xa_load "$x" "$CAP" "$n" $mode \
			>"$tmp/out.$n" 2>"$tmp/err.$n" ||
			{ cat "$tmp/err.$n" "$tmp/out.$n" >&2; exit 1; }
	done
	i1=$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.$N1")
	i2=$(awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.$N2")
	awk -v a="$i1" -v b="$i2" -v n1="$N1" -v n2="$N2" -v c="$CAP" \
		-v m="$BACKEND" 'BEGIN {
		printf "xa_load %s, %s entries: %.1f instructions per " \
		       "rg_xa_load() ((%s - %s) / (%d - %d))\n",
		       m, c, (b - a) / (n2 - n1), b, a, n2, n1
	}'
	exit 0
fi
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
		--capacity "$CAP" "${ARGS[@]}" --budget 86400 \
		>"$tmp/out.$tag" 2>"$tmp/err.$tag" ||
		{ cat "$tmp/err.$tag" >&2; exit 1; }
	awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.$tag"
}
case $WL in
churn | aligned)
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
	echo "instructions.sh: workload $WL: churn, aligned, fill or big" >&2
	exit 2
	;;
esac
