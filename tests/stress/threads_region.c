// SPDX-License-Identifier: MIT
/*
 * Threaded test of RG_REGION_LOCKED: several threads allocate and free
 * regions of random sizes and alignments on one shared instance of each
 * backend. An atomic shadow bitmap proves no unit is ever handed out twice:
 * allocation sets the region's bits and must find them all clear; free
 * clears them and must find them all set. At the end everything is freed,
 * the instance validates and reports every unit free.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "rg_shadow.h"
#include "rg_test.h"
#include "region/region.h"

#define NTHREADS 3
#define CAPACITY 4096
#define HOLD 64
#if defined(__SANITIZE_THREAD__) || defined(RG_TEST_THOROUGH)
#define OPS 20000
#else
#define OPS 200000
#endif

static struct rg_region *region;
static _Atomic uint64_t shadow[CAPACITY / 64];
static atomic_long errors, allocs; /* allocs: successful, this backend */

_Static_assert(HOLD <= RG_SHADOW_HOLD_MAX, "HOLD too large");
static struct rg_shadow sh = { NULL, shadow, &errors };

static void *run(void *arg)
{
	struct rg_shadow_worker *w = arg;
	struct rg_rand r;

	rg_rand_seed(&r, w->seed);
	for (int op = 0; op < OPS; op++) {
		if (w->held < HOLD && rg_rand_below(&r, 2)) {
			unsigned long n = 1 + rg_rand_below(&r, 32), s;
			unsigned long align = 1UL << rg_rand_below(&r, 4);
			int err = rg_region_alloc(region, n, align, &s);

			if (err == -ENOSPC)
				continue;
			if (err || s % align || s + n > CAPACITY) {
				atomic_fetch_add(&errors, 1);
				continue;
			}
			rg_shadow_hold(&sh, w, s, n);
			atomic_fetch_add(&allocs, 1);
		} else if (w->held) {
			int i = (int)rg_rand_below(&r, (uint64_t)w->held);

			rg_shadow_release(&sh, w, i);
		}
	}
	rg_shadow_release_all(&sh, w);
	return NULL;
}

static void test_locked(void **state)
{
	(void)state;
	static const char *const backends[] = { "bitmap", "ida", "maple",
						"hbitmap" };
	static struct rg_shadow_worker w[NTHREADS];
	uint64_t seed = rg_test_seed();

	for (size_t b = 0; b < sizeof(backends) / sizeof(backends[0]); b++) {
		struct rg_region_stats st;
		const char *why = NULL;

		region = rg_region_create(backends[b], CAPACITY,
					  RG_REGION_LOCKED);
		assert_non_null(region);
		sh.region = region;
		for (int i = 0; i < NTHREADS; i++) {
			w[i].seed = seed * 131 + b * 17 + (uint64_t)i;
			assert_int_equal(
				pthread_create(&w[i].tid, NULL, run, &w[i]), 0);
		}
		for (int i = 0; i < NTHREADS; i++)
			pthread_join(w[i].tid, NULL);
		if (atomic_load(&errors))
			fprintf(stderr, "%s: %ld errors\n", backends[b],
				atomic_load(&errors));
		assert_int_equal(atomic_load(&errors), 0);
		/* A backend that always said -ENOSPC would pass the rest. */
		assert_true(atomic_exchange(&allocs, 0) > NTHREADS * OPS / 4);
		assert_int_equal(rg_region_validate(region, &why), 0);
		assert_int_equal(rg_region_get_stats(region, &st), 0);
		assert_int_equal(st.free_units, CAPACITY);
		rg_region_destroy(region);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_locked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
