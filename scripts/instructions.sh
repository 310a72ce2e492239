#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Instructions per operation of one backend and placement policy, counted
# by callgrind, so that a figure can be repeated exactly on a noisy machine:
#
#   scripts/instructions.sh [-C BUILDDIR] [-c CAPACITY] [-o OCCUPANCY]
#                           [-b BOUNDARY] [-k] WORKLOAD BACKEND POLICY
#                           [ARG...]
#
#   WORKLOAD  churn or aligned: instructions per free+alloc pair;
#             fill or big: instructions per allocation and per free;
#             mix, vram or extents: instructions per operation, an
#             allocation or a free, failed allocations included
#             (regionbench regions --workload)
#   BACKEND   bitmap, ida, maple or hbitmap; in a build with peers
#             (make bench-peers, -C build/peers) also offsetalloc or tlsf,
#             counted inside their adapters (POLICY is then ignored)
#   POLICY    first, best, top or next
#   BOUNDARY  churn, aligned: allocate through rg_region_alloc_request()
#             with this boundary (regionbench regions --boundary)
#   -k        instances created RG_REGION_CHECKED (regions --checked)
#   ARG...    more options of regionbench regions, e.g. --sizes SPEC
#             --aligns MIX --free-order oldest --alloc-share P for mix
#   defaults: BUILDDIR build/release, CAPACITY 1e6 (vram, extents: 2^21),
#             OCCUPANCY 90 (vram: running full, extents: 50; -o holds it)
#
#   scripts/instructions.sh [-C BUILDDIR] sbitmap|cached
#             one thread of regionbench threads --iterations: per
#             rg_sbitmap_queue_get() + rg_sbitmap_queue_clear() pair
#             (a queue of 128 tags), or per rg_region_alloc() +
#             rg_region_free() pair of 1..32 units on an RG_REGION_CACHED
#             hbitmap instance (--structures region_cached)
#
#   scripts/instructions.sh [-C BUILDDIR] [-c ENTRIES] xa_load lock|rcu
#
#   xa_load   instructions per rg_xa_load() of a random index of an array
#             of ENTRIES value entries (default 65536): lock, from a thread
#             not registered with liburcu (the load takes the lock); rcu,
#             from a registered one (lock-free)
#
# Collection is switched on only inside rg_region_alloc(),
# rg_region_alloc_request() and rg_region_free() (callees included), or a
# peer adapter's rbp_NAME_alloc() and rbp_NAME_free(), so the benchmark's
# own work is not counted. Churn: regionbench runs the same seeded churn twice, for N1 and
# N2 iterations; the fill and the first N1 iterations are identical in both
# runs, so (I(N2) - I(N1)) / (N2 - N1) is the cost of one steady-state
# iteration, one free and one allocation. Fill and big: one fill (until the
# first failure) and the frees of every region, counted once with only
# rg_region_alloc() collected and once with only rg_region_free(), each
# divided by the number of regions. Mix, vram and extents: as churn, with
# N1 and N2 operations.
set -eu
# The comment block above, from its third line, as the usage text.
usage() {
	sed -n '4,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
}
cd "$(dirname "$0")/.."
B=build/release
CAP=
OCC=
BND=
CHK=
N1=${RG_N1:-20000}
N2=${RG_N2:-120000}
while getopts "C:c:o:b:k" opt; do
	case $opt in
	C) B=$OPTARG ;;
	c) CAP=$OPTARG ;;
	o) OCC=$OPTARG ;;
	b) BND=$OPTARG ;;
	k) CHK=--checked ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
# One thread of a regionbench threads structure: which calls are counted,
# and what one iteration is.
threads_case() { # name -> structure, toggled calls, what one iteration is
	case $1 in
	sbitmap) echo "sbitmap rg_sbitmap_queue_get,rg_sbitmap_queue_clear" \
		"get+clear pair, a queue of 128 tags" ;;
	cached) echo "region_cached rg_region_alloc,rg_region_free" \
		"alloc+free pair of 1..32 units, an RG_REGION_CACHED hbitmap" ;;
	*) return 1 ;;
	esac
}
if [ $# -eq 1 ] && tc=$(threads_case "$1"); then
	command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind" >&2; exit 2; }
	[ -x "$B/bench/regionbench" ] || { echo "instructions.sh: build $B first (make build)" >&2; exit 2; }
	read -r st calls what <<<"$tc"
	toggles=()
	for f in ${calls//,/ }; do
		toggles+=(--toggle-collect="$f")
	done
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	th() { # iterations
		valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$1" \
			"${toggles[@]}" "$B/bench/regionbench" --runs 1 \
			--format csv threads --structures "$st" --threads 1 \
			--iterations "$1" >"$tmp/out.$1" 2>"$tmp/err.$1" ||
			{ cat "$tmp/err.$1" >&2; exit 1; }
		awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.$1"
	}
	# Multiples of 64: regionbench threads counts in batches of 64.
	N1=${RG_N1:-25600}
	N2=${RG_N2:-128000}
	i1=$(th "$N1")
	i2=$(th "$N2")
	awk -v a="$i1" -v b="$i2" -v n1="$N1" -v n2="$N2" -v w="$what" \
		-v st="$st" 'BEGIN {
		printf "%s, one thread: %.1f instructions per %s " \
		       "((%s - %s) / (%d - %d))\n",
		       st, (b - a) / (n2 - n1), w, b, a, n2, n1
	}'
	exit 0
fi
[ "${1:-}" = xa_load ] && [ $# -eq 2 ] && set -- "$1" "$2" -
if [ $# -lt 3 ]; then
	usage
	exit 2
fi
WL=$1 BACKEND=$2 POLICY=$3
shift 3
# The functions whose instructions count: libregion's calls or a peer's.
case $BACKEND in
offsetalloc | tlsf)
	F_ALLOC=rbp_${BACKEND}_alloc F_REQ=rbp_${BACKEND}_alloc
	F_FREE=rbp_${BACKEND}_free
	;;
*) F_ALLOC=rg_region_alloc F_REQ=rg_region_alloc_request F_FREE=rg_region_free ;;
esac
EXTRA=("$@")
case $WL in
vram | extents) CAP=${CAP:-2^21} ;;
*) CAP=${CAP:-1e6} ;;
esac
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
		--capacity "$CAP" ${CHK} "${ARGS[@]}" \
		${EXTRA[@]+"${EXTRA[@]}"} --budget 86400 \
		>"$tmp/out.$tag" 2>"$tmp/err.$tag" ||
		{ cat "$tmp/err.$tag" >&2; exit 1; }
	awk '/^(summary|totals):/ { print $2; exit }' "$tmp/cg.$tag"
}
case $WL in
churn | aligned)
	OCC=${OCC:-90}
	ARGS=(--occupancy "$OCC" ${BND:+--boundary "$BND"})
	ARGS+=(--iterations "$N1")
	i1=$(run n1 "$F_ALLOC" "$F_REQ" "$F_FREE")
	ARGS[${#ARGS[@]} - 1]=$N2
	i2=$(run n2 "$F_ALLOC" "$F_REQ" "$F_FREE")
	awk -v a="$i1" -v b="$i2" -v n1="$N1" -v n2="$N2" -v w="$WL" \
		-v be="$BACKEND" -v p="$POLICY" -v c="$CAP" -v o="$OCC" 'BEGIN {
		printf "%s %s %s fit, capacity %s, %s%%: %.0f instructions per " \
		       "free+alloc pair ((%s - %s) / (%d - %d))\n",
		       w, be, p, c, o, (b - a) / (n2 - n1), b, a, n2, n1
	}'
	;;
mix | vram | extents)
	ARGS=(${OCC:+--occupancy "$OCC"} --iterations "$N1")
	i1=$(run n1 "$F_ALLOC" "$F_FREE")
	ARGS[${#ARGS[@]} - 1]=$N2
	i2=$(run n2 "$F_ALLOC" "$F_FREE")
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
	ia=$(run alloc "$F_ALLOC")
	if=$(run free "$F_FREE")
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
