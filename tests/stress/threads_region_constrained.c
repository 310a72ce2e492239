// SPDX-License-Identifier: MIT
/*
 * Threaded test of constrained requests and resize on RG_REGION_LOCKED
 * instances of every backend: worker threads allocate with random
 * windows, boundaries and alignments (rg_region_alloc_request()), check
 * every answer against its constraints, and free, while one thread
 * resizes the instance between two capacities. Requests lie below the
 * smaller one; single units above it are tested, reserved and freed
 * meanwhile, which must succeed or get -EINVAL by the capacity of the
 * moment (the checks run under the instance lock), and a shrink may only
 * fail with -EBUSY while such a unit is held. An atomic shadow bitmap proves no
 * unit is handed out twice. At the end everything is freed and the
 * instance validates with every unit free.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "rg_shadow.h"
#include "rg_test.h"
#include "region/region.h"

#define NTHREADS 2
#define LOW 4096
#define HIGH 8192
#define HOLD 32
#if defined(__SANITIZE_THREAD__) || defined(RG_TEST_THOROUGH)
#define OPS 4000
#else
#define OPS 40000
#endif

static struct rg_region *region;
static _Atomic uint64_t shadow[HIGH / 64];
static atomic_long errors, placed;
static atomic_bool stop;

_Static_assert(HOLD <= RG_SHADOW_HOLD_MAX, "HOLD too large");
static struct rg_shadow sh = { NULL, shadow, &errors };

static void *work(void *arg)
{
	struct rg_shadow_worker *w = arg;
	struct rg_rand r;

	rg_rand_seed(&r, w->seed);
	for (int op = 0; op < OPS; op++) {
		if (rg_rand_below(&r, 8) == 0) {
			/*
			 * Above the lower capacity: in range or -EINVAL as
			 * the resizer moves, never past the current capacity
			 * (the other worker may hold the unit for a moment:
			 * allocated, or -EBUSY).
			 */
			unsigned long u = LOW + rg_rand_below(&r, HIGH - LOW);
			int t = rg_region_test(region, u), err;

			if (t != 0 && t != 1 && t != -EINVAL)
				atomic_fetch_add(&errors, 1);
			err = rg_region_reserve(region, u, 1);
			if (err == 0)
				err = rg_region_free(region, u, 1);
			if (err && err != -EINVAL && err != -EBUSY)
				atomic_fetch_add(&errors, 1);
			continue;
		}
		if (w->held < HOLD && rg_rand_below(&r, 2)) {
			struct rg_region_request q =
				RG_REGION_REQUEST(1 + rg_rand_below(&r, 32));
			unsigned long s;
			int err;

			q.lo = rg_rand_below(&r, LOW / 2);
			q.hi = rg_rand_range(&r, q.lo, LOW - 1);
			if (rg_rand_below(&r, 2))
				q.boundary = 64;
			q.align = rg_rand_below(&r, 2) ? 0 : 4;
			err = rg_region_alloc_request(region, &q, &s);
			if (err == -ENOSPC)
				continue;
			if (err || s < q.lo || s + q.n - 1 > q.hi ||
			    (s & 3 && q.align) ||
			    (q.boundary && s / 64 != (s + q.n - 1) / 64)) {
				atomic_fetch_add(&errors, 1);
				continue;
			}
			rg_shadow_hold(&sh, w, s, q.n);
			atomic_fetch_add(&placed, 1);
		} else if (w->held) {
			int i = (int)rg_rand_below(&r, (uint64_t)w->held);

			rg_shadow_release(&sh, w, i);
		}
	}
	rg_shadow_release_all(&sh, w);
	return NULL;
}

/*
 * Between LOW and HIGH: a shrink fails only with -EBUSY, while a worker
 * holds a unit above LOW for a moment.
 */
static void *resizer(void *arg)
{
	unsigned long k = 0;
	int err;

	(void)arg;
	while (!atomic_load(&stop)) {
		err = rg_region_resize(region, k++ & 1 ? LOW : HIGH);
		if (err && err != -EBUSY)
			atomic_fetch_add(&errors, 1);
	}
	return NULL;
}

static void test_backend(void **state)
{
	enum rg_region_backend b = (enum rg_region_backend)(uintptr_t)*state;
	struct rg_shadow_worker w[NTHREADS];
	struct rg_region_stats st;
	pthread_t rt;
	const char *why = NULL;

	region = rg_region_create_backend(b, HIGH, RG_REGION_LOCKED);
	assert_non_null(region);
	sh.region = region;
	atomic_store(&errors, 0);
	atomic_store(&placed, 0);
	atomic_store(&stop, false);
	assert_int_equal(pthread_create(&rt, NULL, resizer, NULL), 0);
	for (int i = 0; i < NTHREADS; i++) {
		w[i].seed = 1000 + (uint64_t)i * 77 + (uint64_t)b;
		w[i].held = 0;
		assert_int_equal(pthread_create(&w[i].tid, NULL, work, &w[i]),
				 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_join(w[i].tid, NULL), 0);
	atomic_store(&stop, true);
	assert_int_equal(pthread_join(rt, NULL), 0);
	assert_int_equal(atomic_load(&errors), 0);
	assert_true(atomic_load(&placed) > 0);
	if (rg_region_validate(region, &why))
		fail_msg("validate: %s", why);
	assert_int_equal(rg_region_get_stats(region, &st), 0);
	assert_int_equal(st.free_units, st.capacity);
	rg_region_destroy(region);
}

int main(void)
{
	struct CMUnitTest tests[RG_REGION_NR_BACKENDS];
	size_t nt = 0;

	for (int b = 0; b < RG_REGION_NR_BACKENDS; b++) {
		if (!rg_region_backend_available((enum rg_region_backend)b))
			continue;
		tests[nt++] = (struct CMUnitTest){
			.name = rg_region_backend_name(
				(enum rg_region_backend)b),
			.test_func = test_backend,
			.initial_state = (void *)(uintptr_t)b,
		};
	}
	return _cmocka_run_group_tests("threads_region_constrained", tests, nt,
				       NULL, NULL);
}
