// SPDX-License-Identifier: MIT
/*
 * Fault injection on rg_region_alloc_request() and rg_region_resize(),
 * every backend this build has and every placement policy it offers. On
 * a populated instance, for each of a few hundred random requests (random
 * windows, alignments, boundaries and per-call policies) and resizes:
 * for k = 1, 2, ... the kth allocation attempt fails, until the call runs
 * without the failure firing. Each failed call must return -ENOMEM,
 * validate, and leave the instance exactly as it was: the same allocated
 * units, free count, capacity and bytes held. hbitmap's best-fit index
 * grows its pool after a call and never makes one fail: a failure there
 * may fire under a call that succeeds (the index is then dropped and
 * rebuilt later), which is checked to validate. Heap leaks are caught by
 * the sanitizer build.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "rg_test.h"

#include "region/region.h"

#define CAP 8192
#define MAX_CAP (2 * CAP)

static struct rg_rand rng;
static bool before[MAX_CAP];

struct target {
	enum rg_region_backend b;
	enum rg_region_policy p;
};

static void snapshot(struct rg_region *r, struct rg_region_stats *st)
{
	assert_int_equal(rg_region_get_stats(r, st), 0);
	for (unsigned long u = 0; u < st->capacity; u++)
		before[u] = rg_region_test(r, u) == 1;
}

static void check_unchanged(struct rg_region *r,
			    const struct rg_region_stats *st0,
			    enum rg_region_backend b)
{
	struct rg_region_stats st;
	const char *why = NULL;

	if (rg_region_validate(r, &why))
		fail_msg("validate after a failed call: %s", why);
	assert_int_equal(rg_region_get_stats(r, &st), 0);
	assert_int_equal(st.capacity, st0->capacity);
	assert_int_equal(st.free_units, st0->free_units);
	for (unsigned long u = 0; u < st.capacity; u++)
		if ((rg_region_test(r, u) == 1) != before[u])
			fail_msg("unit %lu changed by a failed call", u);
	/* the IDA may keep a chunk as a bitmap (see fault_region.c) */
	if (b == RG_REGION_IDA)
		assert_in_range(st.bytes_held, st0->bytes_held,
				st0->bytes_held + 128);
	else
		assert_int_equal(st.bytes_held, st0->bytes_held);
}

static bool answers(enum rg_region_backend b, int p)
{
	if (b == RG_REGION_IDA)
		return p == RG_REGION_FIRST_FIT || p == RG_REGION_NEXT_FIT;
	if (b == RG_REGION_MAPLE)
		return p != RG_REGION_BEST_FIT;
	return true;
}

static void rand_request(struct rg_region_request *q, unsigned long cap,
			 enum rg_region_backend b)
{
	unsigned long bnd = 1;

	*q = RG_REGION_REQUEST(rg_rand_below(&rng, 4) ?
				       rg_rand_range(&rng, 1, 30) :
				       rg_rand_range(&rng, 100, 1500));
	q->align = rg_rand_below(&rng, 3) ? 0 : 4;
	if (rg_rand_below(&rng, 2)) {
		q->lo = rg_rand_below(&rng, cap);
		q->hi = rg_rand_range(&rng, q->lo, cap - 1);
	}
	if (rg_rand_below(&rng, 2)) {
		while (bnd < q->n)
			bnd <<= 1;
		q->boundary = bnd << rg_rand_below(&rng, 3);
	}
	do
		q->policy =
			(int)rg_rand_below(&rng, RG_REGION_NR_POLICIES + 1) - 1;
	while (q->policy >= 0 && !answers(b, q->policy));
}

static void test_calls(void **state)
{
	const struct target *tg = *state;
	enum rg_region_backend b = tg->b;
	bool index = b == RG_REGION_HBITMAP && tg->p == RG_REGION_BEST_FIT;
	struct rg_region *r;
	struct rg_region_stats st0;
	struct rg_region_request q;
	unsigned long s, injected = 0, calls = RG_THOROUGH ? 200 : 600;
	int ret;

	r = rg_region_create_backend(b, CAP, RG_REGION_POLICY(tg->p));
	assert_non_null(r);
	/* many small regions; then every other 1024-unit block emptied */
	while (rg_region_alloc(r, rg_rand_range(&rng, 1, 20), 0, &s) == 0)
		;
	while (rg_region_alloc(r, 1, 0, &s) == 0)
		;
	for (unsigned long blk = 1; blk < CAP / 1024; blk += 2)
		assert_int_equal(rg_region_free(r, blk * 1024, 1024), 0);
	for (unsigned long c = 0; c < calls; c++) {
		bool resize = rg_rand_below(&rng, 8) == 0;
		unsigned long nc = 0, k;

		assert_int_equal(rg_region_get_stats(r, &st0), 0);
		if (resize)
			nc = rg_rand_range(&rng, CAP / 2, MAX_CAP);
		else
			rand_request(&q, st0.capacity, b);
		snapshot(r, &st0);
		/* An index the best fit can do without may absorb a fault. */
		RG_FAULT_LOOP_ABSORB(k, ret,
				     resize ?
					     rg_region_resize(r, nc) :
					     rg_region_alloc_request(r, &q, &s),
				     index, check_unchanged(r, &st0, b);
				     injected++);
		RG_ASSERT_VALID(r);
		assert_true(ret == 0 || ret == -ENOSPC || ret == -EBUSY);
		if (ret == 0 && !resize && rg_rand_below(&rng, 2))
			assert_int_equal(rg_region_free(r, s, q.n), 0);
	}
	printf("# %s, %s fit: %lu calls, %lu injected failures\n",
	       rg_region_backend_name(b), rg_region_policy_name(tg->p), calls,
	       injected);
	/* node-based backends allocate on requests; maps on every resize */
	assert_true(injected > 0);
	rg_region_destroy(r);
}

int main(void)
{
	static struct target tg[RG_REGION_NR_BACKENDS * RG_REGION_NR_POLICIES];
	struct CMUnitTest tests[RG_REGION_NR_BACKENDS * RG_REGION_NR_POLICIES];
	size_t nt = 0;

	rg_rand_seed(&rng, rg_test_seed());
	for (int b = 0; b < RG_REGION_NR_BACKENDS; b++)
		for (int p = 0; p < RG_REGION_NR_POLICIES; p++) {
			if (!rg_region_backend_has_policy(
				    (enum rg_region_backend)b,
				    (enum rg_region_policy)p))
				continue;
			tg[nt].b = (enum rg_region_backend)b;
			tg[nt].p = (enum rg_region_policy)p;
			tests[nt] = (struct CMUnitTest){
				.name = "test_calls",
				.test_func = test_calls,
				.initial_state = &tg[nt],
			};
			nt++;
		}
	return _cmocka_run_group_tests("fault_region_constrained", tests, nt,
				       NULL, NULL);
}
