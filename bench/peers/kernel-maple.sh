#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The kernel's own Maple Tree next to libregion's, in one run on this
# machine: builds the kernel peer (bench/peers/kernel_maple.c, compiled
# against lib/maple_tree.c of Debian's linux-source-6.1 inside its
# tools/testing/radix-tree, with the kmem_cache of bench/peers/kmem_shim.c),
# then alternates runs of `regionbench maple` and the peer on the same
# workloads and seed, and prints the median of each and their ratio.
#
# usage: bench/peers/kernel-maple.sh [BUILD_DIR [RUNS [SEED]]]
#   BUILD_DIR  an optimised libregion build (default build/release)
#   RUNS       alternating runs of each (default 5)
# Needs linux-source-6.1 (scripts/deps.sh kernel-peer installs it).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$root/build/release}
runs=${2:-5}
seed=${3:-1}
tarball=/usr/src/linux-source-6.1.tar.xz
K=$root/build/kernel-peer
rt=$K/tools/testing/radix-tree

bash "$root/scripts/deps.sh" kernel-peer
[ -x "$B/bench/regionbench" ] || {
	echo "kernel-maple.sh: no $B/bench/regionbench (run make build)" >&2
	exit 1
}

if [ ! -d "$rt" ]; then
	echo "kernel-maple.sh: extracting the kernel's tools, lib and include"
	mkdir -p "$K"
	tar -xJf "$tarball" -C "$K" --strip-components=1 --wildcards \
		'linux-source-6.1/tools/*' 'linux-source-6.1/lib/*' \
		'linux-source-6.1/include/*' 'linux-source-6.1/arch/x86/include/*'
fi
peer=$rt/kernel_maple
if [ ! -x "$peer" ] || [ "$root/bench/peers/kernel_maple.c" -nt "$peer" ] ||
	[ "$root/bench/peers/kmem_shim.c" -nt "$peer" ]; then
	echo "kernel-maple.sh: building the peer (-O2, no debug checks)"
	cflags="-I. -I../../include -O2 -g -w -D_LGPL_SOURCE"
	objs="xarray.o radix-tree.o idr.o test.o find_bit.o bitmap.o slab.o"
	make -s -C "$rt" CFLAGS="$cflags" generated/map-shift.h \
		generated/bit-length.h $objs >/dev/null
	(cd "$rt" &&
		cc $cflags -I"$root/tests/support" \
			-c "$root/bench/peers/kernel_maple.c" -o kernel_maple.o &&
		cc -O2 -g -c "$root/bench/peers/kmem_shim.c" -o kmem_shim.o &&
		cc kernel_maple.o kmem_shim.o $objs -lpthread -lurcu \
			-o kernel_maple)
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "kernel-maple.sh: seed $seed, $runs alternating runs of each"
for ((r = 1; r <= runs; r++)); do
	"$B/bench/regionbench" --seed "$seed" --runs 1 --format csv maple --no-gtree |
		awk -F, '$1 == "maple" { print "maple," $2 "," $4 "," $6 }' >>"$out"
	"$peer" --seed "$seed" --runs 1 |
		awk -F, '{ print "kernel," $2 "," $4 "," $5 }' >>"$out"
done

awk -F, '
function median(key,   n, i, j, t, v) {
	n = cnt[key]
	for (i = 1; i <= n; i++) v[i] = val[key, i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
{
	key = $1 SUBSEP $2
	val[key, ++cnt[key]] = $3
	if ($4 != "") bytes[key] = $4
}
END {
	split("store load erase alloc_range alloc_erase", ops, " ")
	printf "%-12s %12s %12s %8s %14s %14s\n", "op", "libregion", "kernel",
		"ratio", "libregion B", "kernel B"
	for (i = 1; i <= 5; i++) {
		m = median("maple" SUBSEP ops[i]); k = median("kernel" SUBSEP ops[i])
		printf "%-12s %12.1f %12.1f %8.2f %14s %14s\n", ops[i], m, k,
			k ? m / k : 0, bytes["maple" SUBSEP ops[i]],
			bytes["kernel" SUBSEP ops[i]]
	}
	print "ns per operation, median of runs; ratio: libregion / kernel" \
		" (below 1: libregion faster); B: bytes of nodes when full" \
		" (store: 10^6 ranges; alloc_range: the region-allocation fill of" \
		" 10^6 units)"
}' "$out"
