/* SPDX-License-Identifier: MIT */
/*
 * The pieces of the kernel's radix-tree test harness
 * (tools/testing/radix-tree) that idr-test.c uses, written for libregion:
 * scripts/test-kernel.sh puts this folder on the include path of that one
 * program, so its #include "test.h" finds this file instead of the
 * kernel's. Everything else comes from ../kshim.h and <region/linux.h>.
 *
 * Counting: the program checks with assert(), BUG_ON() and (in the
 * lib/test_ida.c it includes) IDA_BUG_ON(). Here assert() and BUG_ON()
 * count a check each and report a failure with its place instead of
 * aborting; an IDA_BUG_ON() failure reaches assert(0) through the
 * program's own dump_stack() and is counted as a failure of the IDA check,
 * not as a check of its own. lib/test_ida.c keeps its tallies in the
 * static tests_run / tests_passed, declared here too (a repeated static
 * declaration without initialiser is the same object in C), so that at
 * exit one line "idr-test: P of N tests passed" covers every check. The
 * IDA tally is the kernel's plain counter, which its threaded sub-test
 * updates from 20 threads: the total may miss a few increments there,
 * never a failure (failures are counted atomically here).
 *
 * Out of memory: in the kernel's harness an allocation that must not wait
 * (GFP_NOWAIT) always fails; ida_check_nomem() and ida_check_conv_user()
 * rely on it to find where the IDA allocates. Here an IDA call with
 * GFP_NOWAIT runs with libregion's fault injection armed for its first
 * allocation (rg_fault_inject(1)), which it then disarms. The program's
 * IDR calls with GFP_NOWAIT all follow idr_preload(), under which the
 * harness lets them succeed, so they are left alone.
 */
#ifndef RG_KSHIM_RADIX_TREE_TEST_H
#define RG_KSHIM_RADIX_TREE_TEST_H

#include <assert.h>
#include <time.h>
#include "../kshim.h"

/* test_ida.c defines its own ida_dump() only inside the kernel. */
#undef __KERNEL__
#define __weak __attribute__((weak))
#define RADIX_TREE_MAP_SHIFT 6
#define RADIX_TREE_MAP_SIZE (1UL << RADIX_TREE_MAP_SHIFT)
#ifndef BITS_PER_XA_VALUE
#define BITS_PER_XA_VALUE (BITS_PER_LONG - 1)
#endif

struct ida;
void ida_dump(struct ida *ida);
void ida_dump(struct ida *ida)
{
	(void)ida;
}

/* lib/test_ida.c's tallies (see above). */
static unsigned int tests_run;
static unsigned int tests_passed;
static unsigned int rg_kt_checks;
static unsigned int rg_kt_failed;

static inline void rg_kt_check(bool ok, const char *what, const char *func,
			       int line)
{
	/* assert(0) is dump_stack() after a failed IDA_BUG_ON(). */
	if (strcmp(what, "0"))
		__atomic_add_fetch(&rg_kt_checks, 1, __ATOMIC_RELAXED);
	if (ok)
		return;
	__atomic_add_fetch(&rg_kt_failed, 1, __ATOMIC_RELAXED);
	printf("BUG at %s:%d (%s)\n", func, line, what);
}

#undef assert
#define assert(x) rg_kt_check(!!(x), #x, __func__, __LINE__)
#undef BUG_ON
#define BUG_ON(x) rg_kt_check(!(x), #x, __func__, __LINE__)

__attribute__((destructor)) static void rg_kt_report(void)
{
	unsigned int n = rg_kt_checks + tests_run;

	printf("idr-test: %u of %u tests passed\n", n - rg_kt_failed, n);
}

/* The harness's objects. */
struct item {
	unsigned long index;
	unsigned int order;
};

static inline struct item *item_create(unsigned long index, unsigned int order)
{
	struct item *item = malloc(sizeof(*item));

	if (!item)
		abort();
	item->index = index;
	item->order = order;
	return item;
}

/* Node counters and per-CPU preload caches: libregion's slab counts. */
int nr_allocated;

static inline void radix_tree_init(void)
{
}

static inline int radix_tree_cpu_dead(unsigned int cpu)
{
	(void)cpu;
	return 0;
}

#define rcu_register_thread() urcu_memb_register_thread()
#define rcu_unregister_thread() urcu_memb_unregister_thread()

/* GFP_NOWAIT fails the first allocation of an IDA call (see above). */
static inline void rg_kt_nowait(gfp_t gfp)
{
	if (gfp == GFP_NOWAIT)
		rg_fault_inject(1);
}

static inline int rg_kt_done(int ret)
{
	rg_fault_inject(0);
	return ret;
}

#define ida_alloc_range(ida, min, max, gfp) \
	(rg_kt_nowait(gfp), rg_kt_done(ida_alloc_range(ida, min, max, gfp)))
#define ida_alloc(ida, gfp) (rg_kt_nowait(gfp), rg_kt_done(ida_alloc(ida, gfp)))
#define ida_alloc_min(ida, min, gfp) \
	(rg_kt_nowait(gfp), rg_kt_done(ida_alloc_min(ida, min, gfp)))
#define ida_alloc_max(ida, max, gfp) \
	(rg_kt_nowait(gfp), rg_kt_done(ida_alloc_max(ida, max, gfp)))
#define ida_simple_get(ida, start, end, gfp) \
	(rg_kt_nowait(gfp), rg_kt_done(ida_simple_get(ida, start, end, gfp)))

#endif /* RG_KSHIM_RADIX_TREE_TEST_H */
