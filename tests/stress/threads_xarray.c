// SPDX-License-Identifier: MIT
/*
 * Threaded xarray test: lock-free readers racing writers. Reader threads
 * registered with liburcu call rg_xa_load() (lock-free) at random indices
 * while a writer stores, erases, stores multi-index entries and now and
 * then destroys the whole array, so leaves and interior nodes are created,
 * shrunk away and freed all the time; one reader is not registered and
 * loads under the lock. Every entry stored names the range it was stored
 * for and a sequence number taken before the store, so a reader checks
 * that each entry it sees was stored at some point for that index (a
 * freed node read as garbage, a sibling or node entry returned, or a
 * misplaced entry all fail the check). The IDR's rg_idr_find() is raced
 * the same way against rg_idr_alloc() and rg_idr_remove().
 *
 * Under ASan a freed node is poisoned, so a reader that followed a node
 * freed before its grace period is reported; under TSan (make test runs
 * the threaded suite there too) every access a reader makes must be
 * ordered with the writer's. At the end no node may be left: after
 * rg_xa_rcu_barrier() the node cache holds no object.
 */
#include <errno.h>
#include <pthread.h>
#include <urcu/urcu-memb.h>

#include "region/idr.h"
#include "region/xarray.h"
#include "rg_test.h"

#define NREADERS 3
/* Indices: 6 bits in each of three levels, so every level is used. */
#define IDX(r) \
	((((r)&7) | (((r) >> 3 & 7) << 6) | (((r) >> 6 & 7) << 12)) & 0x3ffffUL)
#define MAX_ORDER 7

static struct rg_xarray xa = RG_XARRAY_INIT(0);
static struct rg_idr idr = RG_IDR_INIT;
static int stop;
static uint64_t seed;
static unsigned long loads_per_reader;
static unsigned long seq; /* taken before each store */
static unsigned long wrong, idr_wrong, registered_loads, writes;

/* An entry for [base, base + 2^order) with sequence number @s. */
static void *mk(unsigned long base, unsigned int order, unsigned long s)
{
	return rg_xa_mk_value((s << 24) | ((unsigned long)order << 19) | base);
}

/* Was @e stored at some point for index @i? */
static bool entry_ok(unsigned long i, void *e)
{
	unsigned long v, base, s;
	unsigned int order;

	if (!e)
		return true;
	if (!rg_xa_is_value(e))
		return false;
	v = rg_xa_to_value(e);
	base = v & 0x7ffff;
	order = (unsigned int)(v >> 19 & 31);
	s = v >> 24;
	return order <= MAX_ORDER && !(base & ((1UL << order) - 1)) &&
	       i >= base && i - base < (1UL << order) &&
	       s <= __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
}

/* The IDR's objects: ID k only ever holds &objs[k]. */
#define IDR_SPACE 2048
static long objs[IDR_SPACE];

static void *reader(void *arg)
{
	unsigned long t = (unsigned long)(uintptr_t)arg;
	bool reg = t != 0; /* reader 0 loads under the lock */
	struct rg_rand r;

	rg_rand_seed(&r, seed + 100 + t);
	if (reg)
		urcu_memb_register_thread();
	for (unsigned long n = 0; n < loads_per_reader; n++) {
		uint64_t x = rg_rand_next(&r);
		unsigned long i = IDX(x);
		void *e = rg_xa_load(&xa, i);

		if (!entry_ok(i, e))
			rg_test_count(&wrong);
		if ((x >> 40 & 7) == 0) {
			unsigned long k = (x >> 44) % IDR_SPACE;
			void *p = rg_idr_find(&idr, k);

			if (p && p != &objs[k])
				rg_test_count(&idr_wrong);
		}
	}
	if (reg) {
		__atomic_add_fetch(&registered_loads, loads_per_reader,
				   __ATOMIC_RELAXED);
		urcu_memb_unregister_thread();
	}
	return NULL;
}

/* The writer runs until the readers are done. */
static void *writer(void *arg)
{
	struct rg_rand r;
	unsigned long n = 0;

	(void)arg;
	rg_rand_seed(&r, seed);
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		uint64_t x = rg_rand_next(&r);
		unsigned long i = IDX(x), k = (x >> 40) % IDR_SPACE;
		unsigned int op = (unsigned int)(x >> 32 & 63);
		unsigned long s = __atomic_add_fetch(&seq, 1, __ATOMIC_RELEASE);

		/* A store inside a multi-index entry would take all of it
		 * (as in the kernel), so the entry there goes first: every
		 * entry then covers exactly the range it names. */
		if (op < 24) {
			rg_xa_erase(&xa, i);
			if (rg_xa_store(&xa, i, mk(i, 0, s), NULL))
				rg_test_count(&wrong);
		} else if (op < 48) {
			rg_xa_erase(&xa, i);
		} else if (op < 58) {
			unsigned int o =
				(unsigned int)(x >> 50) % (MAX_ORDER + 1);
			unsigned long b = i & ~((1UL << o) - 1);

			rg_xa_erase(&xa, b);
			if (rg_xa_store_order(&xa, b, o, mk(b, o, s), NULL))
				rg_test_count(&wrong);
		} else if (op < 62) {
			int id = rg_idr_alloc(&idr, &objs[k], (int)k,
					      (int)k + 1);

			if (id >= 0 && id != (int)k)
				rg_test_count(&idr_wrong);
			if (id < 0 && id != -ENOSPC)
				rg_test_count(&idr_wrong);
		} else if (op < 63) {
			void *p = rg_idr_remove(&idr, k);

			if (p && p != &objs[k])
				rg_test_count(&idr_wrong);
		} else {
			/* Everything goes, every node freed. */
			rg_xa_destroy(&xa);
		}
		if (RG_THOROUGH && !(++n % 256) && rg_xa_validate(&xa, NULL))
			rg_test_count(&wrong);
		writes++;
	}
	return NULL;
}

static void test_lockfree_readers(void **state)
{
	struct rg_slab_stats st;

	(void)state;
	loads_per_reader = RG_THOROUGH ? 1000000 : 4000000;
	rg_test_run_threads_seeded(&seed, NREADERS, reader, writer, &stop);
	printf("# %d readers x %lu loads (%lu lock-free), %lu writes: "
	       "wrong %lu, idr wrong %lu\n",
	       NREADERS, loads_per_reader, registered_loads, writes, wrong,
	       idr_wrong);
	assert_int_equal(wrong, 0);
	assert_int_equal(idr_wrong, 0);
	assert_true(writes > 0);
	/* The array went to RCU mode with its first lock-free load. */
	assert_int_equal(rg_xa_validate(&xa, NULL), 0);
	rg_xa_destroy(&xa);
	rg_idr_destroy(&idr);
	rg_xa_rcu_barrier();
	assert_int_equal(rg_xa_node_cache_stats(&st), 0);
	assert_int_equal(st.objects_in_use, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lockfree_readers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
