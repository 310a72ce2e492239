// SPDX-License-Identifier: MIT
/*
 * One driver for the kernel's Maple Tree, IDA, xarray and bitmap zero-area
 * search and libregion's (not part of the library; the tests build and run
 * its libregion side small, bench/meson.build). It is written against the
 * kernel's names only (mtree_store_range, ida_alloc, xa_store, ...,
 * bitmap_find_next_zero_area_off), so the same source compiles several
 * ways:
 *   - with -DRG_PEER_LIBREGION against <region/linux.h> and libregion.a
 *     (the IDA, xarray and bitmap workloads; the libregion side of the
 *     Maple Tree workloads is `regionbench maple`, same draws);
 *   - inside tools/testing/radix-tree of Debian's linux-source, where the
 *     kernel's userspace test shim (kmem_cache, pthread locks, liburcu)
 *     runs its code in a process: against the kernel's lib/maple_tree.c,
 *     which the driver includes at build time (-DRG_PEER_MAPLE), against
 *     lib/idr.c and lib/xarray.c as that harness builds them
 *     (-DRG_PEER_IDA_XA), or against lib/bitmap.c and lib/find_bit.c
 *     (-DRG_PEER_BITMAP).
 * bench/peers/kernel-bench.sh builds and alternates them; nothing of the
 * kernel is copied into libregion.
 *
 * Workloads (identical draws for one seed on both sides):
 *   store / load / erase (the Maple Tree, as `regionbench maple`):
 *     mtree_store_range() of n ranges [10k, 10k + r(8)] in a seeded random
 *     order, mtree_load() at n seeded random indices in [0, 10n),
 *     mtree_erase() of every range in another random order;
 *   alloc_range / alloc_erase: the seed-000 fill of an allocation tree of
 *     --units units: mas_empty_area() of 1..32 units (at most units / 10)
 *     in [0, units - 1] and a store there, until the search fails, then
 *     mtree_erase() of every region in reverse;
 *   ida_alloc / ida_free: ida_alloc() of IDs 0..n-1 in a row on an empty
 *     IDA (each checked), then ida_free() of them in the same order;
 *   xa_store / xa_load / xa_erase: xa_store() of value entries at the
 *     indices 0..n-1 in a seeded random order, xa_load() at n seeded
 *     random indices in [0, 2n) (about half of them hit), xa_erase() of
 *     every index in another random order;
 *   zero_area_NR: bitmap_find_next_zero_area_off(map, bits, start, NR,
 *     0, 0) on a map of random words (each bit set with probability 1/2),
 *     sweeping from 0 to the end of each area found until a search fails;
 *     for NR = 8 the sweep finds many areas, for NR = 32 almost never one,
 *     so it is one failing scan of the whole map. ns per search call.
 * Output: CSV rows "side,structure,op,n,ns_per_op,bytes" per run; bytes
 * (the nodes a full tree holds) only for store and alloc_range.
 *
 * usage: kernel_ops [--n N] [--units U] [--bits B] [--runs R] [--seed S]
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef RG_PEER_LIBREGION
#include <region/linux.h>
#define RG_PEER_IDA_XA 1
#define RG_PEER_BITMAP 1
#define PEER "libregion"
#else
#define PEER "kernel"
#ifdef RG_PEER_MAPLE
/* The harness's headers, then the kernel's Maple Tree itself. */
#include "test.h"
#define module_init(x)
#define module_exit(x)
#define MODULE_AUTHOR(x)
#define MODULE_LICENSE(x)
#define dump_stack() assert(0)
/* The 6.1 tools headers lack this one, the 6.12 harness test.h __init. */
#ifndef __init
#define __init
#endif
#ifndef fallthrough
#define fallthrough __attribute__((__fallthrough__))
#endif
#include "../../../lib/maple_tree.c"
#endif
#ifdef RG_PEER_IDA_XA
#include <linux/idr.h>
#include <linux/xarray.h>
#include <urcu.h>
void radix_tree_init(void);
#endif
#ifdef RG_PEER_BITMAP
/* The kernel's lib/bitmap.c, as include/linux/bitmap.h declares it. */
unsigned long bitmap_find_next_zero_area_off(
	unsigned long *map, unsigned long size, unsigned long start,
	unsigned int nr, unsigned long align_mask, unsigned long align_offset);
#endif
#endif

#include "rg_rand.h"

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static volatile unsigned long sink;

static void die(const char *what, unsigned long i)
{
	fprintf(stderr, "kernel_ops (%s): %s at %lu\n", PEER, what, i);
	exit(2);
}

/* One CSV row; @bytes 0: none. */
static void row(const char *structure, const char *op, unsigned long n,
		double ns, unsigned long bytes)
{
	printf("%s,%s,%s,%lu,%.1f,", PEER, structure, op, n, ns);
	if (bytes)
		printf("%lu", bytes);
	putchar('\n');
}

#ifdef RG_PEER_MAPLE
/* Bytes of the kernel's maple nodes live now (bench/peers/kmem_shim.c). */
static unsigned long maple_bytes(void)
{
	return (unsigned long)nr_allocated * sizeof(struct maple_node);
}

/* Same draws in the same order as bench/maple.c make_workload(). */
static void run_ranges(unsigned long n, uint64_t seed)
{
	unsigned long *first = calloc(n, sizeof(long)),
		      *last = calloc(n, sizeof(long));
	unsigned long *perm = calloc(n, sizeof(long)),
		      *probe = calloc(n, sizeof(long));
	unsigned long *ins = calloc(n, sizeof(long)),
		      *del = calloc(n, sizeof(long));
	struct maple_tree mt;
	struct rg_rand r;
	uint64_t t0, t1, t2, t3;
	unsigned long hits = 0, bytes;

	if (!first || !last || !perm || !probe || !ins || !del)
		die("out of memory", n);
	rg_rand_seed(&r, seed);
	for (unsigned long k = 0; k < n; k++) {
		first[k] = 10 * k;
		last[k] = 10 * k + rg_rand_below(&r, 8);
		perm[k] = k;
		probe[k] = rg_rand_below(&r, 10 * n);
	}
	rg_rand_shuffle(&r, perm, n);
	memcpy(ins, perm, n * sizeof(long));
	rg_rand_shuffle(&r, perm, n);
	for (unsigned long k = 0; k < n; k++)
		del[k] = first[perm[k]];

	mt_init_flags(&mt, 0);
	t0 = now_ns();
	for (unsigned long i = 0; i < n; i++) {
		unsigned long k = ins[i];

		if (mtree_store_range(&mt, first[k], last[k], xa_mk_value(k),
				      GFP_KERNEL))
			die("mtree_store_range", first[k]);
	}
	t1 = now_ns();
	bytes = maple_bytes();
	for (unsigned long i = 0; i < n; i++)
		hits += mtree_load(&mt, probe[i]) != NULL;
	t2 = now_ns();
	sink = hits;
	for (unsigned long i = 0; i < n; i++)
		sink = (unsigned long)mtree_erase(&mt, del[i]);
	t3 = now_ns();
	mtree_destroy(&mt);
	row("maple", "store", n, (double)(t1 - t0) / (double)n, bytes);
	row("maple", "load", n, (double)(t2 - t1) / (double)n, 0);
	row("maple", "erase", n, (double)(t3 - t2) / (double)n, 0);
	free(first), free(last), free(perm), free(probe), free(ins), free(del);
}

/* Same draws as bench/maple.c run_fill(). */
static void run_fill(unsigned long units, uint64_t seed)
{
	unsigned long max_size = units / 10 < 32 ? units / 10 : 32;
	unsigned long *starts = calloc(units + 1, sizeof(long)), nr = 0;
	unsigned long before = maple_bytes(), bytes;
	struct maple_tree mt;
	MA_STATE(mas, &mt, 0, 0);
	struct rg_rand r;
	uint64_t t0, t1, t2;

	if (!max_size)
		max_size = 1;
	if (!starts)
		die("out of memory", units);
	rg_rand_seed(&r, seed);
	mt_init_flags(&mt, MT_FLAGS_ALLOC_RANGE);
	t0 = now_ns();
	for (;;) {
		unsigned long size = 1 + rg_rand_below(&r, max_size), at = 0;
		int ret;

		/*
		 * 6.1's mtree_alloc_range() is broken while the root is a leaf
		 * (mas_fill_gap() climbs above the root); later kernels build
		 * it from mas_empty_area() and a store, as 6.1's own mmap code
		 * does. So does this driver: same search, same store.
		 */
		mtree_lock(&mt);
		mas_set(&mas, 0);
		ret = mas_empty_area(&mas, 0, units - 1, size);
		if (!ret) {
			at = mas.index;
			mas.last = at + size - 1;
			ret = mas_store_gfp(&mas, xa_mk_value(nr), GFP_KERNEL);
		}
		mtree_unlock(&mt);
		if (ret)
			break;
		starts[nr++] = at;
	}
	t1 = now_ns();
	bytes = maple_bytes() - before;
	for (unsigned long i = nr; i-- > 0;)
		sink = (unsigned long)mtree_erase(&mt, starts[i]);
	t2 = now_ns();
	mtree_destroy(&mt);
	row("maple", "alloc_range", units, nr ? (double)(t1 - t0) / nr : 0,
	    bytes);
	row("maple", "alloc_erase", units, nr ? (double)(t2 - t1) / nr : 0, 0);
	free(starts);
}
#endif

#ifdef RG_PEER_IDA_XA
static void run_ida(unsigned long n)
{
	DEFINE_IDA(ida);
	uint64_t t0, t1, t2;

	t0 = now_ns();
	for (unsigned long i = 0; i < n; i++)
		if (ida_alloc(&ida, GFP_KERNEL) != (int)i)
			die("ida_alloc", i);
	t1 = now_ns();
	for (unsigned long i = 0; i < n; i++)
		ida_free(&ida, (unsigned int)i);
	t2 = now_ns();
	if (!ida_is_empty(&ida))
		die("ida not empty", n);
	ida_destroy(&ida);
	row("ida", "ida_alloc", n, (double)(t1 - t0) / (double)n, 0);
	row("ida", "ida_free", n, (double)(t2 - t1) / (double)n, 0);
}

static void run_xa(unsigned long n, uint64_t seed)
{
	unsigned long *ins = calloc(n, sizeof(long)),
		      *del = calloc(n, sizeof(long)),
		      *probe = calloc(n, sizeof(long)), hits = 0;
	DEFINE_XARRAY(xa);
	struct rg_rand r;
	uint64_t t0, t1, t2, t3;

	if (!ins || !del || !probe)
		die("out of memory", n);
	rg_rand_seed(&r, seed);
	for (unsigned long k = 0; k < n; k++) {
		ins[k] = del[k] = k;
		probe[k] = rg_rand_below(&r, 2 * n);
	}
	rg_rand_shuffle(&r, ins, n);
	rg_rand_shuffle(&r, del, n);

	t0 = now_ns();
	for (unsigned long i = 0; i < n; i++)
		if (xa_is_err(xa_store(&xa, ins[i], xa_mk_value(ins[i]),
				       GFP_KERNEL)))
			die("xa_store", ins[i]);
	t1 = now_ns();
	for (unsigned long i = 0; i < n; i++)
		hits += xa_load(&xa, probe[i]) != NULL;
	t2 = now_ns();
	for (unsigned long i = 0; i < n; i++)
		if (xa_erase(&xa, del[i]) != xa_mk_value(del[i]))
			die("xa_erase", del[i]);
	t3 = now_ns();
	sink = hits;
	if (!xa_empty(&xa))
		die("xarray not empty", n);
	xa_destroy(&xa);
	row("xarray", "xa_store", n, (double)(t1 - t0) / (double)n, 0);
	row("xarray", "xa_load", n, (double)(t2 - t1) / (double)n, 0);
	row("xarray", "xa_erase", n, (double)(t3 - t2) / (double)n, 0);
	free(ins), free(del), free(probe);
}
#endif

#ifdef RG_PEER_BITMAP
/* Sweeps of the whole map for @nr, repeated to last 20 ms: ns per call. */
static double sweep(unsigned long *map, unsigned long bits, unsigned int nr)
{
	unsigned long calls = 0, found = 0;
	uint64_t t0 = now_ns(), t;

	do {
		unsigned long at = 0;

		for (;;) {
			calls++;
			at = bitmap_find_next_zero_area_off(map, bits, at, nr,
							    0, 0);
			if (at >= bits)
				break;
			found++;
			at += nr;
		}
		t = now_ns() - t0;
	} while (t < 20000000);
	sink = found;
	return (double)t / (double)calls;
}

static void run_bitmap(unsigned long bits, uint64_t seed)
{
	unsigned long words = (bits + 63) / 64;
	unsigned long *map = calloc(words, sizeof(long));
	struct rg_rand r;

	if (!map || sizeof(long) != 8)
		die("bitmap setup", bits);
	rg_rand_seed(&r, seed);
	for (unsigned long w = 0; w < words; w++)
		map[w] = (unsigned long)rg_rand_next(&r);
	if (bits % 64)
		map[words - 1] &= (1UL << (bits % 64)) - 1;
	row("bitmap", "zero_area_8", bits, sweep(map, bits, 8), 0);
	row("bitmap", "zero_area_32", bits, sweep(map, bits, 32), 0);
	free(map);
}
#endif

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "n", required_argument, NULL, 'n' },
		{ "units", required_argument, NULL, 'u' },
		{ "bits", required_argument, NULL, 'b' },
		{ "runs", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long n = 1000000, units = 1000000, bits = 327680, runs = 1;
	uint64_t seed = 1;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			n = strtoul(optarg, NULL, 0);
			break;
		case 'u':
			units = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			bits = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			runs = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		default:
			return 2;
		}
	}
	if (!n || n > 1UL << 30 || !units || units > 1UL << 30 || bits < 64)
		die("bad --n, --units or --bits", 0);
#ifdef RG_PEER_MAPLE
	maple_tree_init();
#endif
#if defined(RG_PEER_MAPLE) || \
	(defined(RG_PEER_IDA_XA) && !defined(RG_PEER_LIBREGION))
	rcu_register_thread();
#endif
#if defined(RG_PEER_IDA_XA) && !defined(RG_PEER_LIBREGION)
	radix_tree_init();
#endif
	for (unsigned long i = 0; i < runs; i++) {
#ifdef RG_PEER_MAPLE
		run_ranges(n, seed);
		run_fill(units, seed);
#endif
#ifdef RG_PEER_IDA_XA
		run_ida(n);
		run_xa(n, seed);
#endif
#ifdef RG_PEER_BITMAP
		run_bitmap(bits, seed);
#endif
	}
#if defined(RG_PEER_MAPLE) || \
	(defined(RG_PEER_IDA_XA) && !defined(RG_PEER_LIBREGION))
	rcu_barrier();
	rcu_unregister_thread();
#endif
	return 0;
}
