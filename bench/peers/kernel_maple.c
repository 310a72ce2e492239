// SPDX-License-Identifier: MIT
/*
 * The kernel's own Maple Tree as a regionbench peer (not part of the
 * library or its build). bench/peers/kernel-bench.sh compiles this driver
 * inside tools/testing/radix-tree of Debian's linux-source (6.12 by
 * default, or 6.1), where the kernel's userspace test shim (malloc-backed
 * kmem_cache, pthread locks, liburcu) lets lib/maple_tree.c run in a
 * process; the driver includes that file at build time, so the kernel's
 * code is never copied into libregion.
 *
 * It runs the workloads of `regionbench maple` with the same generator and
 * seed, so both see identical ranges in identical order: store_range of
 * 10^6 ranges [10k, 10k + r(8)] in random order, loads at random indices,
 * erase in random order; and the seed-000 fill (alloc_range of 1..32 units
 * in [0, units - 1] until -EBUSY, then erase in reverse). Output: CSV rows
 * "structure,op,entries,ns_per_op,bytes" per run.
 *
 * usage: kernel_maple [--entries N] [--units U] [--runs R] [--seed S]
 */
#include "test.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <getopt.h>

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

#include "rg_rand.h"

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static volatile unsigned long sink;

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
	uint64_t t0, t1;
	unsigned long hits = 0;

	if (!first || !last || !perm || !probe || !ins || !del)
		exit(1);
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
			exit(2);
	}
	t1 = now_ns();
	printf("kernel,store,%lu,%.1f,%lu\n", n, (double)(t1 - t0) / n,
	       (unsigned long)nr_allocated * sizeof(struct maple_node));
	t0 = now_ns();
	for (unsigned long i = 0; i < n; i++)
		hits += mtree_load(&mt, probe[i]) != NULL;
	t1 = now_ns();
	sink = hits;
	printf("kernel,load,%lu,%.1f,\n", n, (double)(t1 - t0) / n);
	t0 = now_ns();
	for (unsigned long i = 0; i < n; i++)
		sink = (unsigned long)mtree_erase(&mt, del[i]);
	t1 = now_ns();
	printf("kernel,erase,%lu,%.1f,\n", n, (double)(t1 - t0) / n);
	mtree_destroy(&mt);
	free(first), free(last), free(perm), free(probe), free(ins), free(del);
}

/* Same draws as bench/maple.c run_fill(). */
static void run_fill(unsigned long units, uint64_t seed)
{
	unsigned long max_size = units / 10 < 32 ? units / 10 : 32;
	unsigned long *starts = calloc(units + 1, sizeof(long)), nr = 0, bytes;
	struct maple_tree mt;
	MA_STATE(mas, &mt, 0, 0);
	struct rg_rand r;
	uint64_t t0, t1;
	int before = nr_allocated;

	if (!max_size)
		max_size = 1;
	if (!starts)
		exit(1);
	rg_rand_seed(&r, seed);
	mt_init_flags(&mt, MT_FLAGS_ALLOC_RANGE);
	t0 = now_ns();
	for (;;) {
		unsigned long size = 1 + rg_rand_below(&r, max_size), at;

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
	bytes = (unsigned long)(nr_allocated - before) *
		sizeof(struct maple_node);
	printf("kernel,alloc_range,%lu,%.1f,%lu\n", units,
	       nr ? (double)(t1 - t0) / nr : 0, bytes);
	t0 = now_ns();
	for (unsigned long i = nr; i-- > 0;)
		sink = (unsigned long)mtree_erase(&mt, starts[i]);
	t1 = now_ns();
	printf("kernel,alloc_erase,%lu,%.1f,\n", units,
	       nr ? (double)(t1 - t0) / nr : 0);
	mtree_destroy(&mt);
	free(starts);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "entries", required_argument, NULL, 'n' },
		{ "units", required_argument, NULL, 'u' },
		{ "runs", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long n = 1000000, units = 1000000, runs = 1;
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
	maple_tree_init();
	rcu_register_thread();
	for (unsigned long i = 0; i < runs; i++) {
		run_ranges(n, seed);
		run_fill(units, seed);
	}
	rcu_barrier();
	return 0;
}
