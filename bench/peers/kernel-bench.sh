#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make bench-kernel [KERNEL=6.12|6.1] [FORMAT=table|csv|json]: the
# kernel's own Maple Tree, IDA, xarray and bitmap zero-area search next to
# libregion's, in one run on this machine. From Debian's
# linux-source-$KERNEL (6.12 by default, installed on demand by
# scripts/deps.sh) it extracts the kernel's tools, lib and include trees
# into build/kernel-peer/$KERNEL and compiles one driver,
# bench/peers/kernel_ops.c, inside the kernel's userspace test harness
# (tools/testing/radix-tree, with the plain kmem_cache of
# bench/peers/kmem_shim.c):
#   kernel_maple   with lib/maple_tree.c; its libregion side is
#                  `regionbench maple` (same generator, seed and
#                  workloads);
#   kernel_idxa    with lib/idr.c (the IDA) and lib/xarray.c as the
#                  harness builds them, with the kernel's XA_CHUNK_SHIFT of
#                  6 (the harness's default is 3, to stress the tree);
#   kernel_bitmap  with lib/bitmap.c and lib/find_bit.c
#                  (bench/peers/kbitmap_prelude.h);
# and the same driver against <region/linux.h> and libregion.a as the
# libregion side of the last two. Then it alternates runs of every pair on
# the same seed and prints the medians and their ratio: a table with its
# legend, or (FORMAT, --format) CSV or JSON with the table's columns.
# Progress goes to stderr. Nothing of the kernel is copied into this
# repository: it is compiled on your machine.
#
# usage: bench/peers/kernel-bench.sh [--format table|csv|json]
#                                    [BUILD_DIR [RUNS [SEED]]]
#   --format   the output (default $FORMAT, else table)
#   BUILD_DIR  an optimised libregion build (default build/release)
#   RUNS       alternating runs of each (default 5)
#   SEED       the generator's seed (default 1)
set -euo pipefail

format=${FORMAT:-table}
if [ "${1:-}" = --format ]; then
	format=${2:-}
	shift 2 || shift
fi
case $format in
table | csv | json) ;;
*)
	echo "kernel-bench.sh: --format table, csv or json, not '$format'" >&2
	exit 2
	;;
esac

root=$(cd "$(dirname "$0")/../.." && pwd)
B=${1:-$root/build/release}
runs=${2:-5}
seed=${3:-1}
ver=${KERNEL:-6.12}
tarball=/usr/src/linux-source-$ver.tar.xz
K=$root/build/kernel-peer/$ver
rt=$K/tools/testing/radix-tree
P=$root/bench/peers

[ -f "$tarball" ] || bash "$root/scripts/deps.sh" "kernel-source-$ver" >&2
[ -x "$B/bench/regionbench" ] && [ -f "$B/libregion.a" ] || {
	echo "kernel-bench.sh: no $B/bench/regionbench or $B/libregion.a" \
		"(run make build)" >&2
	exit 1
}

if [ ! -d "$rt" ]; then
	echo "kernel-bench.sh: extracting the kernel's tools, lib and include" >&2
	mkdir -p "$K"
	tar -xJf "$tarball" -C "$K" --strip-components=1 --wildcards \
		"linux-source-$ver/tools/*" "linux-source-$ver/lib/*" \
		"linux-source-$ver/include/*" \
		"linux-source-$ver/arch/x86/include/*"
fi

# A peer is rebuilt when it is missing or older than any of its sources.
stale() { # binary sources...
	local f
	[ -x "$1" ] || return 0
	for f in "${@:2}"; do [ "$f" -nt "$1" ] && return 0; done
	return 1
}

cflags="-I. -I../../include -O2 -g -w -D_LGPL_SOURCE"
if [ -d "$K/tools/testing/shared" ]; then # 6.12: the shared harness
	cflags="-I../shared -I../../../lib $cflags"
	objs="xarray-shared.o radix-tree.o idr.o test.o find_bit.o bitmap.o"
	objs+=" slab.o hweight.o vsprintf.o"
	gen="generated/autoconf.h"
else
	objs="xarray.o radix-tree.o idr.o test.o find_bit.o bitmap.o slab.o"
	gen=
fi
if stale "$rt/kernel_maple" "$P/kernel_ops.c" "$P/kmem_shim.c" ||
	stale "$rt/kernel_idxa" "$P/kernel_ops.c" "$P/kmem_shim.c"; then
	echo "kernel-bench.sh: building the $ver peers (-O2, no debug checks)" >&2
	make -s -C "$rt" SHIFT=6 CFLAGS="$cflags" generated/map-shift.h \
		generated/bit-length.h $gen $objs >/dev/null
	(cd "$rt" &&
		cc -O2 -g -c "$P/kmem_shim.c" -o kmem_shim.o &&
		cc $cflags -DRG_PEER_MAPLE -I"$root/tests/support" \
			-c "$P/kernel_ops.c" -o kernel_maple.o &&
		cc kernel_maple.o kmem_shim.o $objs -lpthread -lurcu \
			-o kernel_maple &&
		cc $cflags -DRG_PEER_IDA_XA -I"$root/tests/support" \
			-c "$P/kernel_ops.c" -o kernel_idxa.o &&
		cc kernel_idxa.o kmem_shim.o $objs -lpthread -lurcu \
			-o kernel_idxa)
fi
if stale "$rt/kernel_bitmap" "$P/kernel_ops.c" "$P/kbitmap_prelude.h"; then
	# Headers lib/bitmap.c includes that the tools tree lacks: empty.
	(cd "$rt" && mkdir -p rg-bitmap/linux rg-bitmap/asm &&
		for h in linux/device.h linux/minmax.h linux/swab.h \
			linux/mmzone.h linux/thread_info.h linux/uaccess.h \
			asm/page.h; do
			[ -e "../../include/$h" ] || [ -e "$h" ] ||
				[ -e "../shared/$h" ] || : >"rg-bitmap/$h"
		done &&
		for f in bitmap find_bit; do
			cc -Irg-bitmap $cflags -ffunction-sections \
				-include "$P/kbitmap_prelude.h" \
				-c "../../../lib/$f.c" -o "rg-bitmap/$f.o" ||
				exit 1
		done &&
		cc -O2 -g -DRG_PEER_BITMAP -I"$root/tests/support" \
			-c "$P/kernel_ops.c" -o rg-bitmap/kernel_bitmap.o &&
		cc -Wl,--gc-sections rg-bitmap/kernel_bitmap.o \
			rg-bitmap/bitmap.o rg-bitmap/find_bit.o -o kernel_bitmap)
fi
ours=$K/libregion_ops
if stale "$ours" "$P/kernel_ops.c" "$B/libregion.a"; then
	cc -std=gnu11 -O2 -g -DRG_PEER_LIBREGION -I"$root/include" \
		-I"$root/tests/support" "$P/kernel_ops.c" "$B/libregion.a" \
		-lurcu -lpthread -o "$ours"
fi

out=$(mktemp)
trap 'rm -f "$out" "$out.err"' EXIT
echo "kernel-bench.sh: linux-source-$ver, seed $seed, $runs alternating" \
	"runs of each" >&2
# Rows: side,structure,op,ns,bytes (the driver's rows without n)
for ((r = 1; r <= runs; r++)); do
	"$B/bench/regionbench" --seed "$seed" --runs 1 --format csv maple \
		--no-gtree 2>"$out.err" |
		awk -F, '$1 == "maple" { print "libregion,maple," $2 "," $4 "," $6 }' >>"$out" ||
		{ cat "$out.err" >&2; exit 1; }
	for peer in "$rt/kernel_maple" "$ours" "$rt/kernel_idxa" \
		"$rt/kernel_bitmap"; do
		"$peer" --seed "$seed" --runs 1 |
			awk -F, '{ print $1 "," $2 "," $3 "," $5 "," $6 }' >>"$out"
	done
done

awk -F, -v ver="$ver" -v runs="$runs" -v seed="$seed" -v fmt="$format" '
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
	key = $1 SUBSEP $2 SUBSEP $3
	val[key, ++cnt[key]] = $4
	if ($5 != "") bytes[key] = $5
}
END {
	n = split("maple store maple load maple erase maple alloc_range " \
		"maple alloc_erase ida ida_alloc ida ida_free xarray xa_store " \
		"xarray xa_load xarray xa_erase bitmap zero_area_8 " \
		"bitmap zero_area_32", f, " ")
	if (fmt == "csv")
		print "structure,op,libregion_ns,kernel_ns,ratio," \
			"libregion_bytes,kernel_bytes"
	else if (fmt == "json")
		printf "{\"benchmark\": \"bench-kernel\", \"params\": " \
			"{\"kernel\": \"%s\", \"runs\": \"%s\", " \
			"\"seed\": \"%s\"}, \"rows\": [\n", ver, runs, seed
	else {
		printf "== bench-kernel  (kernel=%s runs=%d seed=%s)\n", ver,
			runs, seed
		printf "%9s %12s %10s %10s %6s %12s %12s\n", "structure", "op",
			"libregion", "kernel", "ratio", "libregion B",
			"kernel B"
	}
	for (i = 1; i < n; i += 2) {
		s = f[i]; op = f[i + 1]
		m = median("libregion" SUBSEP s SUBSEP op)
		k = median("kernel" SUBSEP s SUBSEP op)
		lb = bytes["libregion" SUBSEP s SUBSEP op]
		kb = bytes["kernel" SUBSEP s SUBSEP op]
		name = op == "store" ? "store_range" : op
		if (fmt == "csv")
			printf "%s,%s,%.1f,%.1f,%.2f,%s,%s\n", s, name, m, k,
				k ? m / k : 0, lb, kb
		else if (fmt == "json")
			printf "  {\"structure\": \"%s\", \"op\": \"%s\", " \
				"\"libregion_ns\": %.1f, \"kernel_ns\": %.1f, " \
				"\"ratio\": %.2f, \"libregion_bytes\": %s, " \
				"\"kernel_bytes\": %s}%s\n", s, name, m, k,
				k ? m / k : 0, lb == "" ? "null" : lb,
				kb == "" ? "null" : kb, i + 2 < n ? "," : ""
		else
			printf "%9s %12s %10.1f %10.1f %6.2f %12s %12s\n", s,
				name, m, k, k ? m / k : 0, lb == "" ? "-" : lb,
				kb == "" ? "-" : kb
	}
	if (fmt == "json")
		print "]}"
	if (fmt != "table")
		exit
	print ""
	print "Legend:"
	print "  structure    maple: the Maple Tree; ida: the IDA; xarray: the" \
		" xarray; bitmap: the zero-area search"
	print "  op           maple (as regionbench maple): store_range of" \
		" 10^6 ranges [10k, 10k + r(8)] in random order, load at random" \
		" indices, erase in random order; alloc_range: the region-" \
		"allocation fill of 10^6 units (1..32 units until full), " \
		"alloc_erase: its erase in reverse"
	print "               ida_alloc: ida_alloc() of IDs 0..10^6-1 in a row;" \
		" ida_free: ida_free() of them in the same order"
	print "               xa_store: xa_store() of value entries at indices" \
		" 0..10^6-1 in random order; xa_load: at 10^6 random indices in" \
		" [0, 2 x 10^6); xa_erase: every index, in another random order"
	print "               zero_area_NR: bitmap_find_next_zero_area() of NR" \
		" bits, sweeping a 327,680-bit map of random words (each bit" \
		" set with p = 1/2) from 0 to the end of each area found until" \
		" a search fails"
	print "  libregion    ns per operation (zero_area: per search), median" \
		" of " runs " runs"
	print "  kernel       the same for linux-source-" ver "\x27s own code," \
		" built here in its userspace test harness"
	print "  ratio        libregion / kernel (below 1: libregion faster)"
	print "  libregion B  bytes of nodes when full (store_range: 10^6" \
		" ranges; alloc_range: the fill), counted by each allocator"
	print "  kernel B     the same for the kernel"
	print ""
	print "Runs alternate (libregion, kernel, ...) in fresh processes on" \
		" the same seed; both sides of ida, xarray and bitmap are one" \
		" driver (bench/peers/kernel_ops.c) built against the kernel\x27s" \
		" names and <region/linux.h>."
}' "$out"
