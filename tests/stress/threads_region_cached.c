// SPDX-License-Identifier: MIT
/*
 * Threaded tests of RG_REGION_CACHED, on every backend:
 *  - ledger: threads allocate (sizes in and above the cached ones, random
 *    alignments) and free whole regions, halves of them, and regions that
 *    other threads allocated (handed over through a queue), on one
 *    instance. An atomic shadow bit per unit proves no unit is handed out
 *    twice; at quiescent points (a barrier) the instance validates and its
 *    free count equals the capacity minus the units held; after all frees
 *    every unit is free.
 *  - enospc: threads churn (filling their caches), then allocate without
 *    freeing until the space is exhausted, recording each -ENOSPC. Free
 *    space only shrinks in that phase, so at the quiescent point after it
 *    the units no thread holds are a superset of those free at any
 *    failure: a failure whose size and alignment fit a free run of the
 *    shadow there was a false failure.
 *  - life: threads exit while the instance lives (their cached regions
 *    go back), and an instance is destroyed while threads that used it
 *    live on and use another one.
 *  - exact: one thread: double frees and frees of cached units are
 *    -ENOENT; statistics, test, reserve and save see cached units free; a
 *    region freed by another thread, whole or in part.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#include "rg_shadow.h"
#include "rg_test.h"
#include "region/region.h"

#define NTHREADS 3
#define CAPACITY 4096
#define HOLD 48
#if defined(__SANITIZE_THREAD__) || defined(RG_TEST_THOROUGH)
#define OPS 6000
#define ROUNDS 4
#else
#define OPS 60000
#define ROUNDS 20
#endif

static struct rg_region *region;
static _Atomic uint64_t shadow[CAPACITY / 64];
static atomic_long errors, allocs;
static struct rg_shadow sh = { NULL, shadow, &errors };
static pthread_barrier_t barrier, life_barrier;
_Static_assert(HOLD <= RG_SHADOW_HOLD_MAX, "HOLD too large");

/* Regions handed from one thread to another (still marked in the shadow). */
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long queue_s[256], queue_n[256];
static int queued;

static long held_units(struct rg_shadow_worker *w, int nw)
{
	long u = 0;

	for (int i = 0; i < nw; i++)
		for (int j = 0; j < w[i].held; j++)
			u += (long)w[i].n[j];
	pthread_mutex_lock(&queue_lock);
	for (int j = 0; j < queued; j++)
		u += (long)queue_n[j];
	pthread_mutex_unlock(&queue_lock);
	return u;
}

static struct rg_shadow_worker workers[NTHREADS];

/* Quiescent point: thread 0 checks the instance while the others wait. */
static void quiescent(struct rg_shadow_worker *w)
{
	struct rg_region_stats st;
	const char *why = NULL;

	pthread_barrier_wait(&barrier);
	if (w == &workers[0]) {
		if (rg_region_validate(region, &why)) {
			fprintf(stderr, "invalid: %s\n", why);
			atomic_fetch_add(&errors, 1);
		}
		rg_region_get_stats(region, &st);
		if ((long)st.free_units !=
		    CAPACITY - held_units(workers, NTHREADS)) {
			fprintf(stderr, "free %lu, held %ld\n", st.free_units,
				held_units(workers, NTHREADS));
			atomic_fetch_add(&errors, 1);
		}
	}
	pthread_barrier_wait(&barrier);
}

static void *ledger_worker(void *arg)
{
	struct rg_shadow_worker *w = arg;
	struct rg_rand r;

	rg_rand_seed(&r, w->seed);
	for (int op = 0; op < OPS; op++) {
		unsigned int kind = (unsigned int)rg_rand_below(&r, 8);

		if (op % (OPS / 4) == OPS / 4 - 1)
			quiescent(w);
		if (kind < 4 && w->held < HOLD) {
			unsigned long n = rg_rand_below(&r, 8) ?
						  1 + rg_rand_below(&r, 32) :
						  33 + rg_rand_below(&r, 32);
			unsigned long align = 1UL << rg_rand_below(&r, 4), s;
			int err = rg_region_alloc(region, n, align, &s);

			if (err == -ENOSPC)
				continue;
			if (err || s % align || s + n > CAPACITY) {
				atomic_fetch_add(&errors, 1);
				continue;
			}
			rg_shadow_hold(&sh, w, s, n);
			atomic_fetch_add(&allocs, 1);
		} else if (kind == 4 && w->held) {
			/* free the first half now; the rest stays held */
			int i = (int)rg_rand_below(&r, (uint64_t)w->held);
			unsigned long h = w->n[i] / 2;

			if (!h)
				continue;
			rg_shadow_mark(&sh, w->start[i], h, false);
			if (rg_region_free(region, w->start[i], h))
				atomic_fetch_add(&errors, 1);
			w->start[i] += h;
			w->n[i] -= h;
		} else if (kind == 5 && w->held) {
			/* hand a region over to whichever thread takes it */
			int i = (int)rg_rand_below(&r, (uint64_t)w->held);

			pthread_mutex_lock(&queue_lock);
			if (queued < 256) {
				queue_s[queued] = w->start[i];
				queue_n[queued++] = w->n[i];
				w->held--;
				w->start[i] = w->start[w->held];
				w->n[i] = w->n[w->held];
			}
			pthread_mutex_unlock(&queue_lock);
		} else if (kind == 6) {
			unsigned long s = 0, n = 0;

			pthread_mutex_lock(&queue_lock);
			if (queued) {
				s = queue_s[--queued];
				n = queue_n[queued];
			}
			pthread_mutex_unlock(&queue_lock);
			if (n) {
				rg_shadow_mark(&sh, s, n, false);
				if (rg_region_free(region, s, n))
					atomic_fetch_add(&errors, 1);
			}
		} else if (w->held) {
			rg_shadow_release(
				&sh, w,
				(int)rg_rand_below(&r, (uint64_t)w->held));
		}
	}
	rg_shadow_release_all(&sh, w);
	pthread_barrier_wait(&barrier);
	if (w == &workers[0]) { /* what is left in the queue */
		while (queued) {
			queued--;
			rg_shadow_mark(&sh, queue_s[queued], queue_n[queued],
				       false);
			if (rg_region_free(region, queue_s[queued],
					   queue_n[queued]))
				atomic_fetch_add(&errors, 1);
		}
	}
	return NULL;
}

static void check_all_free(void)
{
	struct rg_region_stats st;
	const char *why = NULL;

	assert_int_equal(rg_region_validate(region, &why), 0);
	assert_int_equal(rg_region_get_stats(region, &st), 0);
	assert_int_equal(st.free_units, CAPACITY);
	for (size_t i = 0; i < CAPACITY / 64; i++)
		assert_int_equal(atomic_load(&shadow[i]), 0);
}

static void run_workers(void *(*fn)(void *), uint64_t seed)
{
	for (int i = 0; i < NTHREADS; i++) {
		workers[i].seed = seed + (uint64_t)i;
		workers[i].held = 0;
		assert_int_equal(
			pthread_create(&workers[i].tid, NULL, fn, &workers[i]),
			0);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(workers[i].tid, NULL);
}

static void test_ledger(void **state)
{
	uint64_t seed = rg_test_seed();

	(void)state;
	for (int b = 0; rg_region_backend_available(b); b++) {
		region =
			rg_region_create_backend(b, CAPACITY, RG_REGION_CACHED);
		assert_non_null(region);
		sh.region = region;
		run_workers(ledger_worker, seed * 131 + (uint64_t)b * 17);
		if (atomic_load(&errors))
			fprintf(stderr, "%s: %ld errors\n",
				rg_region_backend_name(b),
				atomic_load(&errors));
		assert_int_equal(atomic_load(&errors), 0);
		/* A backend that always said -ENOSPC would pass the rest. */
		assert_true(atomic_exchange(&allocs, 0) > NTHREADS * OPS / 8);
		check_all_free();
		rg_region_destroy(region);
	}
}

/* ---- no false -ENOSPC ------------------------------------------------ */

#define FAILS 8
#define SMALL 1024 /* the capacity of these instances */
static unsigned long fail_n[NTHREADS][FAILS], fail_align[NTHREADS][FAILS];
static int nfails[NTHREADS];
static atomic_long false_failures, failures;

/* True if the shadow (units no thread holds) has an aligned run of n. */
static bool shadow_fits(unsigned long n, unsigned long align)
{
	for (unsigned long s = 0; s + n <= SMALL; s += align) {
		unsigned long u = 0;

		while (u < n && !(atomic_load(&shadow[(s + u) / 64]) &
				  (1ULL << ((s + u) % 64))))
			u++;
		if (u == n)
			return true;
	}
	return false;
}

static void *enospc_worker(void *arg)
{
	struct rg_shadow_worker *w = arg;
	int me = (int)(w - workers);
	struct rg_rand r;

	rg_rand_seed(&r, w->seed);
	for (int round = 0; round < ROUNDS; round++) {
		/* churn: the caches fill with freed regions of every size */
		for (int op = 0; op < 400; op++) {
			unsigned long n = 1 + rg_rand_below(&r, 40), s;

			if (w->held < HOLD / 2 && rg_rand_below(&r, 2) &&
			    !rg_region_alloc(region, n, 0, &s))
				rg_shadow_hold(&sh, w, s, n);
			else if (w->held)
				rg_shadow_release(
					&sh, w,
					(int)rg_rand_below(&r,
							   (uint64_t)w->held));
		}
		pthread_barrier_wait(&barrier);
		/* fill: allocate, never free, until FAILS failures */
		nfails[me] = 0;
		while (nfails[me] < FAILS && w->held < HOLD) {
			unsigned long n = 1 + rg_rand_below(&r, 40), s;
			unsigned long align = 1UL << rg_rand_below(&r, 3);
			int err = rg_region_alloc(region, n, align, &s);

			if (!err) {
				rg_shadow_hold(&sh, w, s, n);
			} else if (err == -ENOSPC) {
				fail_n[me][nfails[me]] = n;
				fail_align[me][nfails[me]++] = align;
			} else {
				atomic_fetch_add(&errors, 1);
			}
		}
		pthread_barrier_wait(&barrier);
		/* quiescent: every failure against the shadow */
		if (me == 0) {
			for (int t = 0; t < NTHREADS; t++)
				for (int i = 0; i < nfails[t]; i++) {
					atomic_fetch_add(&failures, 1);
					if (shadow_fits(fail_n[t][i],
							fail_align[t][i]))
						atomic_fetch_add(
							&false_failures, 1);
				}
		}
		pthread_barrier_wait(&barrier);
		rg_shadow_release_all(&sh, w);
	}
	return NULL;
}

static void test_enospc(void **state)
{
	uint64_t seed = rg_test_seed();

	(void)state;
	for (int b = 0; rg_region_backend_available(b); b++) {
		/* small enough that the held regions exhaust it */
		region = rg_region_create_backend(b, SMALL, RG_REGION_CACHED);
		assert_non_null(region);
		sh.region = region;
		run_workers(enospc_worker, seed * 7 + (uint64_t)b);
		printf("# %s: %ld -ENOSPC, %ld false\n",
		       rg_region_backend_name(b), atomic_load(&failures),
		       atomic_load(&false_failures));
		assert_int_equal(atomic_load(&errors), 0);
		assert_true(atomic_exchange(&failures, 0) > 0);
		assert_int_equal(atomic_load(&false_failures), 0);
		{
			struct rg_region_stats st;

			assert_int_equal(rg_region_validate(region, NULL), 0);
			assert_int_equal(rg_region_get_stats(region, &st), 0);
			assert_int_equal(st.free_units, SMALL);
		}
		rg_region_destroy(region);
	}
}

/* ---- thread exit, destroy before exit ------------------------------- */

static struct rg_region *second;

static void *life_worker(void *arg)
{
	struct rg_shadow_worker *w = arg;
	unsigned long s[8];

	/* leave regions in this thread's cache of region */
	for (int i = 0; i < 8; i++)
		if (rg_region_alloc(region, 1 + (unsigned long)i, 0, &s[i]))
			atomic_fetch_add(&errors, 1);
	for (int i = 0; i < 8; i++)
		if (rg_region_free(region, s[i], 1 + (unsigned long)i))
			atomic_fetch_add(&errors, 1);
	pthread_barrier_wait(&life_barrier); /* main destroys region, or not */
	pthread_barrier_wait(&life_barrier);
	if (second) {
		for (int i = 0; i < 8; i++)
			if (rg_region_alloc(second, 2, 0, &s[i]))
				atomic_fetch_add(&errors, 1);
		for (int i = 0; i < 8; i++)
			if (rg_region_free(second, s[i], 2))
				atomic_fetch_add(&errors, 1);
	}
	(void)w;
	return NULL;
}

static void test_life(void **state)
{
	struct rg_region_stats st;

	(void)state;
	for (int destroy = 0; destroy < 2; destroy++) {
		region =
			rg_region_create("hbitmap", CAPACITY, RG_REGION_CACHED);
		second = destroy ? rg_region_create("maple", CAPACITY,
						    RG_REGION_CACHED) :
				   NULL;
		assert_non_null(region);
		for (int i = 0; i < NTHREADS; i++)
			assert_int_equal(pthread_create(&workers[i].tid, NULL,
							life_worker,
							&workers[i]),
					 0);
		pthread_barrier_wait(&life_barrier);
		if (destroy) {
			/* the threads' caches of it are orphaned */
			rg_region_destroy(region);
			region = NULL;
		}
		pthread_barrier_wait(&life_barrier);
		for (int i = 0; i < NTHREADS; i++)
			pthread_join(workers[i].tid, NULL);
		assert_int_equal(atomic_load(&errors), 0);
		/* the exited threads' cached regions went back */
		if (region) {
			assert_int_equal(rg_region_get_stats(region, &st), 0);
			assert_int_equal(st.free_units, CAPACITY);
			rg_region_destroy(region);
		}
		if (second) {
			assert_int_equal(rg_region_get_stats(second, &st), 0);
			assert_int_equal(st.free_units, CAPACITY);
			rg_region_destroy(second);
			second = NULL;
		}
	}
}

/* ---- exact answers --------------------------------------------------- */

static unsigned long other_s, other_n;
static int other_ret;

static void *free_other(void *arg)
{
	(void)arg;
	other_ret = rg_region_free(region, other_s, other_n);
	return NULL;
}

static int free_elsewhere(unsigned long s, unsigned long n)
{
	pthread_t t;

	other_s = s;
	other_n = n;
	assert_int_equal(pthread_create(&t, NULL, free_other, NULL), 0);
	pthread_join(t, NULL);
	return other_ret;
}

static void test_exact(void **state)
{
	(void)state;
	for (int b = 0; rg_region_backend_available(b); b++) {
		struct rg_region *plain =
			rg_region_create_backend(b, CAPACITY, 0);
		struct rg_region_stats st;
		unsigned long s[10], t, u;
		size_t sz1 = 0, sz2 = 0;
		char buf1[64], buf2[64];

		region =
			rg_region_create_backend(b, CAPACITY, RG_REGION_CACHED);
		assert_non_null(region);
		for (int i = 0; i < 10; i++)
			assert_int_equal(rg_region_alloc(region, 4, 0, &s[i]),
					 0);
		for (int i = 0; i < 10; i++)
			assert_int_equal(rg_region_free(region, s[i], 4), 0);
		/* cached now: double frees, and frees of cached units */
		assert_int_equal(rg_region_free(region, s[3], 4), -ENOENT);
		assert_int_equal(rg_region_free(region, s[3] + 1, 2), -ENOENT);
		assert_int_equal(free_elsewhere(s[5], 4), -ENOENT);
		/* a cached region is handed out again, and only once */
		assert_int_equal(rg_region_alloc(region, 4, 0, &t), 0);
		assert_int_equal(rg_region_alloc(region, 4, 0, &u), 0);
		assert_true(t != u);
		assert_int_equal(rg_region_free(region, t, 4), 0);
		assert_int_equal(rg_region_free(region, t, 4), -ENOENT);
		/* another thread frees a region this one's cache lent */
		assert_int_equal(free_elsewhere(u, 4), 0);
		assert_int_equal(rg_region_free(region, u, 4), -ENOENT);
		/* part of a lent region, then the rest */
		assert_int_equal(rg_region_alloc(region, 4, 0, &t), 0);
		assert_int_equal(rg_region_free(region, t, 2), 0);
		assert_int_equal(rg_region_free(region, t, 4), -ENOENT);
		assert_int_equal(rg_region_free(region, t + 2, 2), 0);
		RG_ASSERT_VALID(region);
		/* the whole-instance calls see cached units as free */
		assert_int_equal(rg_region_alloc(region, 4, 0, &t), 0);
		assert_int_equal(rg_region_free(region, t, 4), 0);
		assert_int_equal(rg_region_test(region, t), 0);
		assert_int_equal(rg_region_get_stats(region, &st), 0);
		assert_int_equal(st.free_units, CAPACITY);
		assert_int_equal(st.largest_free_run, CAPACITY);
		assert_int_equal(rg_region_alloc(region, 4, 0, &t), 0);
		assert_int_equal(rg_region_free(region, t, 4), 0);
		assert_int_equal(rg_region_reserve(region, t, 4), 0);
		assert_int_equal(rg_region_free(region, t, 4), 0);
		assert_int_equal(rg_region_alloc(region, 4, 0, &t), 0);
		assert_int_equal(rg_region_free(region, t, 4), 0);
		assert_int_equal(rg_region_save(region, buf1, &sz1), -ENOSPC);
		sz1 = sizeof(buf1);
		sz2 = sizeof(buf2);
		assert_int_equal(rg_region_save(region, buf1, &sz1), 0);
		assert_int_equal(rg_region_save(plain, buf2, &sz2), 0);
		assert_int_equal(sz1, sz2);
		assert_memory_equal(buf1, buf2, sz1);
		/* the whole space, cached or not, in one allocation */
		assert_int_equal(rg_region_alloc(region, 4, 0, &t), 0);
		assert_int_equal(rg_region_free(region, t, 4), 0);
		assert_int_equal(rg_region_alloc(region, CAPACITY, 0, &t), 0);
		assert_int_equal(rg_region_free(region, 0, CAPACITY), 0);
		RG_ASSERT_VALID(region);
		rg_region_destroy(region);
		rg_region_destroy(plain);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_ledger),
		cmocka_unit_test(test_enospc),
		cmocka_unit_test(test_life),
	};
	int ret;

	pthread_barrier_init(&barrier, NULL, NTHREADS);
	pthread_barrier_init(&life_barrier, NULL, NTHREADS + 1);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	pthread_barrier_destroy(&life_barrier);
	pthread_barrier_destroy(&barrier);
	return ret;
}
