// SPDX-License-Identifier: MIT
/*
 * Threaded IDA test: several threads allocate (alloc, alloc_min,
 * alloc_range) and free IDs of one IDA concurrently while another validates
 * it. Every ID handed out is claimed in a shared table with an atomic
 * exchange, so an ID handed out twice is caught at once; a thread clears
 * its claim before freeing. The same is done with rg_xa_alloc on one
 * allocating xarray. Workers record failures in counters (cmocka asserts
 * are not thread-safe) that the main thread checks after joining. Also run
 * under ThreadSanitizer by `make test`.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>

#include "region/ida.h"
#include "region/xarray.h"
#include "rg_test.h"

#define NTHREADS 4
#define HOLD 600
#define SPACE 65536 /* IDs stay below this: at most NTHREADS * HOLD live */

static RG_DEFINE_IDA(ida);
static RG_DEFINE_XARRAY_ALLOC(xa);
static unsigned char owner[SPACE];
static unsigned char xowner[SPACE];
static struct rg_test_ledger ids = { owner, SPACE, 0, 0, 0 };
static struct rg_test_ledger xids = { xowner, SPACE, 0, 0, 0 };
static unsigned long errors, validate_failures;
static int stop;
static uint64_t seed;
static unsigned long ops_per_thread;

static void *worker(void *arg)
{
	unsigned long t = (unsigned long)(uintptr_t)arg;
	unsigned int held[HOLD], n = 0, id;
	unsigned long xheld[HOLD], xn = 0, xid;
	struct rg_rand r;

	rg_rand_seed(&r, seed + t);
	for (unsigned long op = 0; op < ops_per_thread; op++) {
		unsigned int k = (unsigned int)rg_rand_below(&r, 100);
		int err;

		if (k < 45 && n < HOLD) {
			unsigned int min = 0, max = INT_MAX;

			if (k < 10)
				min = (unsigned int)rg_rand_below(&r, 4096);
			else if (k < 15) {
				min = (unsigned int)rg_rand_below(&r, 4096);
				max = min + 2048;
			}
			err = rg_ida_alloc_range(&ida, min, max, &id);
			if (err == -ENOSPC && max != INT_MAX)
				continue;
			if (err || id < min || id > max) {
				rg_test_count(&errors);
				continue;
			}
			rg_test_claim(&ids, id);
			held[n++] = id;
		} else if (k < 90 && n) {
			unsigned int i = (unsigned int)rg_rand_below(&r, n);

			id = held[i];
			held[i] = held[--n];
			rg_test_unclaim(&ids, id);
			if (rg_ida_free(&ida, id))
				rg_test_count(&errors);
		} else if (k < 95 && xn < HOLD) {
			if (rg_xa_alloc(&xa, &xid, rg_xa_mk_value(t), 0,
					ULONG_MAX)) {
				rg_test_count(&errors);
				continue;
			}
			rg_test_claim(&xids, xid);
			xheld[xn++] = xid;
		} else if (xn) {
			unsigned int i = (unsigned int)rg_rand_below(&r, xn);

			xid = xheld[i];
			xheld[i] = xheld[--xn];
			rg_test_unclaim(&xids, xid);
			if (rg_xa_erase(&xa, xid) != rg_xa_mk_value(t))
				rg_test_count(&errors);
		}
	}
	while (n) {
		id = held[--n];
		rg_test_unclaim(&ids, id);
		if (rg_ida_free(&ida, id))
			rg_test_count(&errors);
	}
	while (xn) {
		xid = xheld[--xn];
		rg_test_unclaim(&xids, xid);
		if (rg_xa_erase(&xa, xid) != rg_xa_mk_value(t))
			rg_test_count(&errors);
	}
	return NULL;
}

static void *checker(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		if (rg_ida_validate(&ida, NULL) || rg_xa_validate(&xa, NULL))
			rg_test_count(&validate_failures);
		(void)rg_ida_bytes(&ida);
		(void)rg_ida_exists(&ida, 17);
	}
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	ops_per_thread = RG_THOROUGH ? 60000 : 400000;
	rg_test_run_threads_seeded(&seed, NTHREADS, worker, checker, &stop);
	printf("# %d threads x %lu ops: errors %lu, validate failures %lu\n",
	       NTHREADS, ops_per_thread, errors, validate_failures);
	rg_test_ledger_check(&ids);
	rg_test_ledger_check(&xids);
	assert_int_equal(errors, 0);
	assert_int_equal(validate_failures, 0);
	assert_true(rg_ida_is_empty(&ida));
	assert_true(rg_xa_empty(&xa));
	assert_int_equal(rg_ida_validate(&ida, NULL), 0);
	assert_int_equal(rg_ida_bytes(&ida), sizeof(ida));
	rg_ida_destroy(&ida);
	rg_xa_destroy(&xa);
	RG_ASSERT_CACHE_EMPTY(rg_ida_bitmap_cache_stats);
	RG_ASSERT_CACHE_EMPTY(rg_xa_node_cache_stats);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
