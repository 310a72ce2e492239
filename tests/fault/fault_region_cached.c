// SPDX-License-Identifier: MIT
/*
 * Fault injection on RG_REGION_CACHED instances, every backend. The new
 * allocations are the instance's depot (at creation) and each thread's
 * cache (at its first call on an instance): creation fails with ENOMEM
 * and leaks nothing; a thread whose cache cannot be allocated makes the
 * call uncached, under the lock, and succeeds. Then a few hundred random
 * alloc / free / half-free / reserve calls, each with the nth allocation
 * failing for n = 1, 2, ... until the call runs without the failure
 * firing: a call that fails returns -ENOMEM and changes nothing (every
 * unit as in a model of the allocated units), a call that absorbs the
 * failure (a cache it could do without) did exactly its work, and the
 * instance validates after every call. Leaks are caught by the sanitizer
 * build.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "rg_test.h"

#include "region/region.h"

#define CAP 2048
#define HOLD 96

static struct rg_rand rng;
static bool model[CAP];

static void check_model(struct rg_region *r, const char *when)
{
	RG_ASSERT_VALIDF(r, "%s", when);
	for (unsigned long u = 0; u < CAP; u++)
		if ((rg_region_test(r, u) == 1) != model[u])
			fail_msg("unit %lu: instance %d, model %d (%s)", u,
				 rg_region_test(r, u), model[u], when);
}

static void mark(unsigned long s, unsigned long n, bool on)
{
	for (unsigned long u = s; u < s + n; u++)
		model[u] = on;
}

static void test_create(void **state)
{
	unsigned long n, fired = 0;
	struct rg_region *r;
	int err;

	(void)state;
	for (int b = 0; rg_region_backend_available(b); b++) {
		fired = 0;
		RG_FAULT_LOOP(n, err,
			      RG_PTR_ERR(r = rg_region_create_backend(
						 b, CAP, RG_REGION_CACHED)),
			      fired++);
		assert_int_equal(err, 0);
		assert_true(fired >= 2); /* the instance, its depot */
		rg_region_destroy(r);
	}
}

static struct rg_region *shared;
static int thread_err;

/* A thread's first calls on an instance, its cache failing to allocate. */
static void *first_calls(void *arg)
{
	unsigned long s, s2;

	(void)arg;
	rg_fault_inject(1);
	thread_err = rg_region_alloc(shared, 4, 0, &s);
	if (!rg_fault_fired())
		thread_err = -1000; /* the cache was not allocated first */
	rg_fault_inject(0);
	if (!thread_err)
		thread_err = rg_region_free(shared, s, 4);
	/* now with a cache */
	if (!thread_err)
		thread_err = rg_region_alloc(shared, 4, 0, &s2);
	if (!thread_err)
		thread_err = rg_region_free(shared, s2, 4);
	return NULL;
}

static void test_first_call(void **state)
{
	(void)state;
	for (int b = 0; rg_region_backend_available(b); b++) {
		struct rg_region_stats st;
		pthread_t t;

		shared = rg_region_create_backend(b, CAP, RG_REGION_CACHED);
		assert_non_null(shared);
		assert_int_equal(pthread_create(&t, NULL, first_calls, NULL),
				 0);
		pthread_join(t, NULL);
		assert_int_equal(thread_err, 0);
		RG_ASSERT_VALID(shared);
		assert_int_equal(rg_region_get_stats(shared, &st), 0);
		assert_int_equal(st.free_units, CAP);
		rg_region_destroy(shared);
	}
}

static void test_calls(void **state)
{
	unsigned long calls = RG_THOROUGH ? 300 : 1500;

	(void)state;
	for (int b = 0; rg_region_backend_available(b); b++) {
		struct rg_region *r =
			rg_region_create_backend(b, CAP, RG_REGION_CACHED);
		unsigned long hs[HOLD], hn[HOLD], injected = 0, k;
		int held = 0;

		assert_non_null(r);
		memset(model, 0, sizeof(model));
		for (unsigned long c = 0; c < calls; c++) {
			unsigned int kind =
				(unsigned int)rg_rand_below(&rng, 8);
			unsigned long n = rg_rand_below(&rng, 6) ?
						  rg_rand_range(&rng, 1, 32) :
						  rg_rand_range(&rng, 33, 200);
			unsigned long align = 1UL << rg_rand_below(&rng, 3);
			unsigned long s = 0, a;
			int i = held ? (int)rg_rand_below(&rng,
							  (uint64_t)held) :
				       0;
			int ret;

			if (kind < 4 && held < HOLD) {
				RG_FAULT_LOOP_ABSORB(
					k, ret,
					rg_region_alloc(r, n, align, &s), true,
					{
						check_model(r, "failed alloc");
						injected++;
					});
				if (!ret) {
					mark(s, n, true);
					hs[held] = s;
					hn[held++] = n;
				} else {
					assert_int_equal(ret, -ENOSPC);
				}
			} else if (kind < 6 && held) {
				RG_FAULT_LOOP_ABSORB(
					k, ret, rg_region_free(r, hs[i], hn[i]),
					true, {
						check_model(r, "failed free");
						injected++;
					});
				assert_int_equal(ret, 0);
				mark(hs[i], hn[i], false);
				hs[i] = hs[--held];
				hn[i] = hn[held];
			} else if (kind == 6 && held && hn[i] > 1) {
				a = hn[i] / 2;
				RG_FAULT_LOOP_ABSORB(
					k, ret, rg_region_free(r, hs[i], a),
					true, {
						check_model(r,
							    "failed half free");
						injected++;
					});
				assert_int_equal(ret, 0);
				mark(hs[i], a, false);
				hs[i] += a;
				hn[i] -= a;
			} else if (held < HOLD) {
				a = rg_rand_below(&rng, CAP - 40);
				n = rg_rand_range(&rng, 1, 40);
				RG_FAULT_LOOP_ABSORB(
					k, ret, rg_region_reserve(r, a, n),
					true, {
						check_model(r,
							    "failed reserve");
						injected++;
					});
				if (!ret) {
					mark(a, n, true);
					hs[held] = a;
					hn[held++] = n;
				} else {
					assert_int_equal(ret, -EBUSY);
				}
			}
			check_model(r, "after a call");
		}
		printf("# %s: %lu calls, %lu injected failures\n",
		       rg_region_backend_name(b), calls, injected);
		/* the backends that allocate after creation did fail */
		if (b == RG_REGION_MAPLE || b == RG_REGION_IDA)
			assert_true(injected > 0);
		while (held) {
			held--;
			assert_int_equal(rg_region_free(r, hs[held], hn[held]),
					 0);
		}
		rg_region_destroy(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_first_call),
		cmocka_unit_test(test_calls),
	};

	rg_rand_seed(&rng, rg_test_seed());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
