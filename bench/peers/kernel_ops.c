// SPDX-License-Identifier: MIT
/*
 * One driver for the kernel's IDA, xarray and bitmap zero-area search and
 * libregion's (not part of the library; the tests build and run its
 * libregion side small, bench/meson.build). It is written against the
 * kernel's names only (ida_alloc, xa_store, ...,
 * bitmap_find_next_zero_area_off), so the same source compiles twice:
 *   - with -DRG_PEER_LIBREGION against <region/linux.h> and libregion.a;
 *   - inside tools/testing/radix-tree of Debian's linux-source, against the
 *     kernel's lib/idr.c and lib/xarray.c as that harness builds them
 *     (-DRG_PEER_IDA_XA), or against the kernel's lib/bitmap.c and
 *     lib/find_bit.c (-DRG_PEER_BITMAP).
 * bench/peers/kernel-maple.sh builds and alternates them; nothing of the
 * kernel is copied into libregion.
 *
 * Workloads (identical draws for one seed on both sides):
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
 * Output: CSV rows "structure,op,n,ns_per_op" per run.
 *
 * usage: kernel_ops [--n N] [--bits B] [--runs R] [--seed S]
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

static void row(const char *op, unsigned long n, double ns)
{
	printf("%s,%s,%lu,%.1f\n", PEER, op, n, ns);
}

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
	row("ida_alloc", n, (double)(t1 - t0) / (double)n);
	row("ida_free", n, (double)(t2 - t1) / (double)n);
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
	row("xa_store", n, (double)(t1 - t0) / (double)n);
	row("xa_load", n, (double)(t2 - t1) / (double)n);
	row("xa_erase", n, (double)(t3 - t2) / (double)n);
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
	row("zero_area_8", bits, sweep(map, bits, 8));
	row("zero_area_32", bits, sweep(map, bits, 32));
	free(map);
}
#endif

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "n", required_argument, NULL, 'n' },
		{ "bits", required_argument, NULL, 'b' },
		{ "runs", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long n = 1000000, bits = 327680, runs = 1;
	uint64_t seed = 1;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			n = strtoul(optarg, NULL, 0);
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
	if (!n || n > 1UL << 30 || bits < 64)
		die("bad --n or --bits", 0);
#if defined(RG_PEER_IDA_XA) && !defined(RG_PEER_LIBREGION)
	rcu_register_thread();
	radix_tree_init();
#endif
	for (unsigned long i = 0; i < runs; i++) {
#ifdef RG_PEER_IDA_XA
		run_ida(n);
		run_xa(n, seed);
#endif
#ifdef RG_PEER_BITMAP
		run_bitmap(bits, seed);
#endif
	}
#if defined(RG_PEER_IDA_XA) && !defined(RG_PEER_LIBREGION)
	rcu_barrier();
	rcu_unregister_thread();
#endif
	return 0;
}
