// SPDX-License-Identifier: MIT
/*
 * Threaded IDR test: several threads allocate (alloc, alloc_u32), look up,
 * replace and remove IDs of one IDR concurrently while another thread
 * validates it and walks it with rg_idr_get_next_ul(). Every pointer
 * stored names its own ID, so a walker that finds a pointer at another ID
 * catches a misplaced entry; every ID handed out is claimed in a shared
 * table with an atomic exchange, so an ID handed out twice is caught at
 * once. Workers record failures in counters (cmocka asserts are not
 * thread-safe) that the main thread checks after joining. Also run under
 * ThreadSanitizer by `make test`.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>

#include "region/idr.h"
#include "rg_test.h"

#define NTHREADS 4
#define HOLD 500
#define SPACE 65536 /* IDs stay below this: at most NTHREADS * HOLD live */

/* A pointer that names its ID and a generation (aligned, never NULL). */
#define PTR(id, gen) \
	((void *)(uintptr_t)(((uintptr_t)(id) << 12) | ((gen)&0xff) << 4 | 8))
#define PTR_ID(p) ((unsigned long)((uintptr_t)(p) >> 12))

static struct rg_idr idr = RG_IDR_INIT_BASE(1);
static unsigned char owner[SPACE];
static struct rg_test_ledger ids = { owner, SPACE, 0, 0, 0 };
static unsigned long errors, validate_failures, misplaced;
static int stop;
static uint64_t seed;
static unsigned long ops_per_thread;

struct held {
	unsigned long id;
	void *ptr;
};

static void *worker(void *arg)
{
	unsigned long t = (unsigned long)(uintptr_t)arg;
	struct held held[HOLD];
	unsigned int n = 0;
	struct rg_rand r;

	rg_rand_seed(&r, seed + t);
	for (unsigned long op = 0; op < ops_per_thread; op++) {
		unsigned int k = (unsigned int)rg_rand_below(&r, 100);
		unsigned int i = n ? (unsigned int)rg_rand_below(&r, n) : 0;
		void *old = NULL;

		if (k < 40 && n < HOLD) {
			uint32_t id = 0;
			int got;

			/* Allocate with NULL first, then publish the pointer. */
			if (k < 30) {
				got = rg_idr_alloc(&idr, NULL, 0, 0);
				if (got < 0) {
					rg_test_count(&errors);
					continue;
				}
				id = (uint32_t)got;
			} else if (rg_idr_alloc_u32(&idr, NULL, &id,
						    UINT_MAX)) {
				rg_test_count(&errors);
				continue;
			}
			rg_test_claim(&ids, id);
			held[n].id = id;
			held[n].ptr = PTR(id, op);
			if (rg_idr_replace(&idr, held[n].ptr, id, &old) || old)
				rg_test_count(&errors);
			n++;
		} else if (k < 60 && n) {
			if (rg_idr_find(&idr, held[i].id) != held[i].ptr)
				rg_test_count(&errors);
		} else if (k < 75 && n) {
			void *p = PTR(held[i].id, op);

			if (rg_idr_replace(&idr, p, held[i].id, &old) ||
			    old != held[i].ptr)
				rg_test_count(&errors);
			held[i].ptr = p;
		} else if (n) {
			struct held h = held[i];

			held[i] = held[--n];
			rg_test_unclaim(&ids, h.id);
			if (rg_idr_remove(&idr, h.id) != h.ptr)
				rg_test_count(&errors);
		}
	}
	while (n) {
		struct held h = held[--n];

		rg_test_unclaim(&ids, h.id);
		if (rg_idr_remove(&idr, h.id) != h.ptr)
			rg_test_count(&errors);
	}
	return NULL;
}

static void *checker(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		unsigned long id = 0;
		void *p;

		if (rg_idr_validate(&idr, NULL))
			rg_test_count(&validate_failures);
		while ((p = rg_idr_get_next_ul(&idr, &id))) {
			if (PTR_ID(p) != id)
				rg_test_count(&misplaced);
			id++;
		}
	}
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	ops_per_thread = RG_THOROUGH ? 40000 : 200000;
	rg_test_run_threads_seeded(&seed, NTHREADS, worker, checker, &stop);
	printf("# %d threads x %lu ops: errors %lu, misplaced %lu, "
	       "validate failures %lu\n",
	       NTHREADS, ops_per_thread, errors, misplaced, validate_failures);
	rg_test_ledger_check(&ids);
	assert_int_equal(errors, 0);
	assert_int_equal(misplaced, 0);
	assert_int_equal(validate_failures, 0);
	assert_true(rg_idr_is_empty(&idr));
	assert_int_equal(rg_idr_validate(&idr, NULL), 0);
	assert_int_equal(rg_idr_bytes(&idr), sizeof(idr));
	rg_idr_destroy(&idr);
	RG_ASSERT_CACHE_EMPTY(rg_xa_node_cache_stats);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
