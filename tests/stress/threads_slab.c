// SPDX-License-Identifier: MIT
/*
 * Threaded randomized test of the slab layer: several threads allocate and
 * free (single, bulk, prefilled sheaf) with cross-thread frees through a
 * shared exchange, 10^7 operations in all (fewer under sanitizers). Every
 * object is checked for alignment, and an atomic tag in the object proves
 * it is never handed out twice: allocation swaps the tag to "taken" and
 * must find it was not taken; free swaps it back and must find it taken.
 * At the end the cache has no live object, validates, and leaks nothing.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "rg_test.h"
#include "region/slab.h"

#define NTHREADS 4
#define HOLD 512
#define OBJ 256
#define TAKEN 0x7a6b656e7461ULL
#define FREED 0x6672656564ULL
#define MIN_SZ(a, b) ((a) < (b) ? (a) : (b))

#if defined(__SANITIZE_THREAD__)
#define TOTAL_OPS 2000000L
#else
#define TOTAL_OPS 10000000L
#endif

static struct rg_slab_cache *cache;
static pthread_mutex_t xlock = PTHREAD_MUTEX_INITIALIZER;
static void *xchg_objs[4096];
static int xchg_n;
static atomic_long errors;

struct worker {
	pthread_t tid;
	uint64_t seed;
	void *held[HOLD];
	int n;
};

static void taken(void *obj)
{
	uint64_t old;

	if ((uintptr_t)obj % OBJ) {
		atomic_fetch_add(&errors, 1);
		return;
	}
	old = atomic_exchange((_Atomic uint64_t *)obj, TAKEN);
	if (old == TAKEN)
		atomic_fetch_add(&errors, 1); /* handed out twice */
}

static void freeing(void *obj)
{
	if (atomic_exchange((_Atomic uint64_t *)obj, FREED) != TAKEN)
		atomic_fetch_add(&errors, 1);
}

static void *run(void *arg)
{
	struct worker *w = arg;
	struct rg_rand r;
	void *tmp[64];

	rg_rand_seed(&r, w->seed);
	for (long op = 0; op < TOTAL_OPS / NTHREADS;) {
		unsigned int k = (unsigned int)rg_rand_below(&r, 100);
		size_t n = 1 + rg_rand_below(&r, 64);

		if (k < 30 && w->n < HOLD) {
			void *p = rg_slab_alloc(cache);

			if (!p) {
				atomic_fetch_add(&errors, 1);
				continue;
			}
			taken(p);
			w->held[w->n++] = p;
			op++;
		} else if (k < 45 && w->n + (int)n <= HOLD) {
			if (rg_slab_alloc_bulk(cache, n, w->held + w->n) != n) {
				atomic_fetch_add(&errors, 1);
				continue;
			}
			for (size_t i = 0; i < n; i++)
				taken(w->held[w->n + i]);
			w->n += (int)n;
			op++;
		} else if (k < 55 && w->n + 40 <= HOLD) {
			unsigned int want =
				1 + (unsigned int)rg_rand_below(&r, 40);
			unsigned int use =
				(unsigned int)rg_rand_below(&r, want + 1);
			struct rg_slab_sheaf *sh =
				rg_slab_prefill_sheaf(cache, want);

			if (!sh || rg_slab_sheaf_size(sh) < want) {
				atomic_fetch_add(&errors, 1);
				continue;
			}
			for (unsigned int i = 0; i < use; i++) {
				void *p = rg_slab_alloc_from_sheaf(cache, sh);

				taken(p);
				w->held[w->n++] = p;
			}
			rg_slab_return_sheaf(cache, sh);
			op++;
		} else if (k < 85 && w->n) {
			int i = (int)rg_rand_below(&r, (uint64_t)w->n);
			void *p = w->held[i];

			w->held[i] = w->held[--w->n];
			freeing(p);
			rg_slab_free(cache, p);
			op++;
		} else if (k < 95 && w->n) {
			n = MIN_SZ(n, (size_t)w->n);
			w->n -= (int)n;
			for (size_t i = 0; i < n; i++)
				freeing(w->held[w->n + i]);
			rg_slab_free_bulk(cache, n, w->held + w->n);
			op++;
		} else {
			/* Hand objects over, and free some handed by others. */
			size_t give = MIN_SZ((size_t)w->n, (size_t)32), got;

			pthread_mutex_lock(&xlock);
			if (xchg_n + (int)give > 4096)
				give = 0;
			w->n -= (int)give;
			memcpy(xchg_objs + xchg_n, w->held + w->n,
			       give * sizeof(void *));
			xchg_n += (int)give;
			got = MIN_SZ((size_t)xchg_n, (size_t)64);
			xchg_n -= (int)got;
			memcpy(tmp, xchg_objs + xchg_n, got * sizeof(void *));
			pthread_mutex_unlock(&xlock);
			for (size_t i = 0; i < got; i++)
				freeing(tmp[i]);
			rg_slab_free_bulk(cache, got, tmp);
			op++;
		}
	}
	for (int i = 0; i < w->n; i++)
		freeing(w->held[i]);
	rg_slab_free_bulk(cache, (size_t)w->n, w->held);
	w->n = 0;
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	static struct worker w[NTHREADS];
	uint64_t seed = rg_test_seed();
	struct rg_slab_stats st;
	const char *why = NULL;

	cache = rg_slab_create("threads", OBJ, OBJ, 0, NULL);
	assert_non_null(cache);
	for (int i = 0; i < NTHREADS; i++) {
		w[i].seed = seed + (uint64_t)i;
		assert_int_equal(pthread_create(&w[i].tid, NULL, run, &w[i]),
				 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(w[i].tid, NULL);
	for (int i = 0; i < xchg_n; i++)
		freeing(xchg_objs[i]);
	rg_slab_free_bulk(cache, (size_t)xchg_n, xchg_objs);
	xchg_n = 0;

	assert_int_equal(atomic_load(&errors), 0);
	assert_int_equal(rg_slab_validate(cache, &why), 0);
	rg_slab_get_stats(cache, &st);
	assert_int_equal(st.objects_in_use, 0);
	/* Exited threads flushed their sheaves: only the barn caches. */
	assert_true(rg_slab_shrink(cache) >= 0);
	rg_slab_get_stats(cache, &st);
	assert_int_equal(st.objects_cached, 0);
	assert_int_equal(st.slabs, 0);
	assert_int_equal(rg_slab_destroy(cache), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
