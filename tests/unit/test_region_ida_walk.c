// SPDX-License-Identifier: MIT
/*
 * The region API's ida backend, which answers walks, figures, checks and
 * first fit with the IDA's range lookups (O(runs), not O(units)):
 *  - lockstep against a bool-array model on an instance whose capacity is
 *    not a multiple of the IDA's 1024-ID chunk, through churn (short,
 *    long and aligned allocations, frees of parts of runs, reservations,
 *    bad frees and reservations, resizes): every allocation's start is the
 *    model's first fit, the instance validates after every mutation,
 *    rg_region_next_run() from random units (and around the change) gives
 *    the model's run for each kind, and every 16 steps a whole walk and
 *    rg_region_get_stats() (free units, largest free run, free runs, every
 *    histogram bucket, fragmentation) equal the model's;
 *  - a 2^31-unit instance (the backend's limit) with runs at both ends and
 *    around chunk edges: the whole walk, the figures and validate;
 *  - fault injection on every allocation of a first fit on a fragmented
 *    instance: -ENOMEM leaves the units as they were.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "rg_run_model.h"
#include "rg_test.h"

#include "region/region.h"

#define CAP_MAX (6 * 1024 + 300)

static bool model[CAP_MAX];
static unsigned long cap;

static struct rg_region *make(unsigned long c)
{
	struct rg_region *r = rg_region_create_backend(RG_REGION_IDA, c, 0);

	assert_non_null(r);
	return r;
}

static bool model_free(unsigned long s, unsigned long n)
{
	for (unsigned long u = s; u < s + n; u++)
		if (model[u])
			return false;
	return true;
}

/* The lowest aligned start of n free units, or cap. */
static unsigned long model_first_fit(unsigned long n, unsigned long align)
{
	for (unsigned long s = 0; s + n <= cap; s += align ? align : 1)
		if (model_free(s, n))
			return s;
	return cap;
}

static void model_set(unsigned long s, unsigned long n, bool v)
{
	for (unsigned long u = s; u < s + n; u++)
		model[u] = v;
}

static void check_from(struct rg_region *r, unsigned long from,
		       unsigned long step)
{
	static const unsigned int kinds[3] = { RG_RUN_USED, RG_RUN_FREE,
					       RG_RUN_USED | RG_RUN_FREE };

	for (int k = 0; k < 3; k++) {
		unsigned long s = 1, n = 1, ms = 0, mn = 0;
		int want =
			rg_model_next_run(model, cap, from, kinds[k], &ms, &mn);
		int got = rg_region_next_run(r, from, kinds[k], &s, &n);

		if (want ? got != want || s != ms || n != mn :
			   got != -ENOENT || s != 1 || n != 1)
			fail_msg("step %lu from %lu kinds %u: got %d %lu+%lu, "
				 "want %d %lu+%lu",
				 step, from, kinds[k], got, s, n, want, ms, mn);
	}
}

/* A whole walk and every figure of rg_region_get_stats(). */
static void check_all(struct rg_region *r, unsigned long step)
{
	unsigned long hist[RG_REGION_HIST_BUCKETS] = { 0 };
	unsigned long u = 0, s, n, ms, mn, runs = 0, nfree = 0, best = 0;
	struct rg_region_stats st;
	int kind;

	rg_region_for_each_run(r, 0, RG_RUN_USED | RG_RUN_FREE, kind, s, n)
	{
		if (rg_model_next_run(model, cap, u, RG_RUN_USED | RG_RUN_FREE,
				      &ms, &mn) != kind ||
		    s != ms || n != mn)
			fail_msg("step %lu: walk differs at %lu", step, u);
		u = s + n;
	}
	assert_int_equal(u, cap);
	for (u = 0; u < cap;) {
		if (model[u]) {
			u++;
			continue;
		}
		for (n = 0; u + n < cap && !model[u + n]; n++)
			;
		runs++;
		nfree += n;
		best = n > best ? n : best;
		hist[63 - __builtin_clzl(n)]++;
		u += n;
	}
	assert_int_equal(rg_region_get_stats(r, &st), 0);
	assert_int_equal(st.capacity, cap);
	assert_int_equal(st.free_units, nfree);
	assert_int_equal(st.largest_free_run, best);
	assert_int_equal(st.free_runs, runs);
	for (int k = 0; k < RG_REGION_HIST_BUCKETS; k++)
		if (st.free_run_hist[k] != hist[k])
			fail_msg("step %lu: bucket %d holds %lu, want %lu",
				 step, k, st.free_run_hist[k], hist[k]);
	if (fabs(st.fragmentation -
		 (nfree ? 1.0 - (double)best / (double)nfree : 0.0)) > 1e-12)
		fail_msg("step %lu: fragmentation %f", step, st.fragmentation);
}

static void test_lockstep(void **state)
{
	struct rg_rand rng;
	unsigned long steps = RG_THOROUGH ? 1500 : 4000, used = 0;
	unsigned long target = CAP_MAX / 2, n_alloc = 0, n_nospc = 0;
	struct rg_region *r;

	(void)state;
	rg_rand_seed(&rng, rg_test_seed());
	cap = CAP_MAX - 123;
	memset(model, 0, sizeof(model));
	r = make(cap);
	for (unsigned long i = 0; i < steps; i++) {
		unsigned long a, n, s = 0, align = 0, want;
		int op, err;

		if (i % 500 == 0)
			target = rg_rand_range(&rng, cap / 10, cap - cap / 20);
		n = rg_rand_below(&rng, 8) ? rg_rand_range(&rng, 1, 40) :
					     rg_rand_range(&rng, 100, 1500);
		if (n > cap)
			n = cap;
		if (!rg_rand_below(&rng, 4))
			align = 1UL << rg_rand_below(&rng, 11);
		op = (int)rg_rand_below(&rng, 24);
		op = op == 0	   ? 3 :
		     op == 1	   ? 4 :
		     used < target ? (op < 4 ? 2 : 0) :
				     1;
		a = rg_rand_below(&rng, cap - n + 1);
		if (op == 0) { /* allocate: the model's first fit */
			want = model_first_fit(n, align);
			err = rg_region_alloc(r, n, align, &s);
			if (want == cap) {
				assert_int_equal(err, -ENOSPC);
				n_nospc++;
			} else {
				assert_int_equal(err, 0);
				if (s != want)
					fail_msg(
						"step %lu: alloc %lu align %lu "
						"at %lu, want %lu",
						i, n, align, s, want);
				model_set(s, n, true);
				used += n;
				n_alloc++;
			}
			a = s;
		} else if (op == 1) { /* free part of an allocated run */
			while (a < cap && !model[a])
				a++;
			if (a == cap)
				continue;
			for (n = 1; a + n < cap && model[a + n] && n < 600; n++)
				;
			n = rg_rand_range(&rng, 1, n);
			assert_int_equal(rg_region_free(r, a, n), 0);
			model_set(a, n, false);
			used -= n;
		} else if (op == 2) { /* reserve: -EBUSY over a used unit */
			if (!rg_rand_below(&rng, 4))
				a = cap - n; /* runs that end at the top */
			err = rg_region_reserve(r, a, n);
			assert_int_equal(err, model_free(a, n) ? 0 : -EBUSY);
			if (!err) {
				model_set(a, n, true);
				used += n;
			}
		} else if (op == 3) { /* any range: -ENOENT over a free unit */
			bool all = true;

			for (unsigned long u = a; u < a + n; u++)
				all = all && model[u];
			err = rg_region_free(r, a, n);
			assert_int_equal(err, all ? 0 : -ENOENT);
			if (!err) {
				model_set(a, n, false);
				used -= n;
			}
		} else { /* resize: grow, or shrink over free units */
			unsigned long nc =
				rg_rand_range(&rng, CAP_MAX / 2, CAP_MAX);
			bool busy = nc < cap && !model_free(nc, cap - nc);

			err = rg_region_resize(r, nc);
			assert_int_equal(err, busy ? -EBUSY : 0);
			if (!err)
				cap = nc;
			a = nc < cap ? nc : cap - 1;
		}
		RG_ASSERT_VALIDF(r, "step %lu", i);
		if (a >= cap)
			a = cap - 1;
		check_from(r, a, i);
		check_from(r, a > 1100 ? a - 1100 : 0, i);
		check_from(r, rg_rand_below(&rng, cap), i);
		if (i % 16 == 15)
			check_all(r, i);
	}
	check_all(r, steps);
	printf("# %lu steps: %lu allocations, %lu -ENOSPC, capacity %lu\n",
	       steps, n_alloc, n_nospc, cap);
	rg_region_destroy(r);
}

/* The 2^31-unit limit: runs at both ends and around chunk edges. */
static void test_full_id_space(void **state)
{
	static const unsigned long runs[][2] = {
		{ 0, 5 },
		{ 1020, 8 },
		{ 70000, 1 },
		{ 1UL << 30, 3000 },
		{ (1UL << 31) - 1030, 7 },
		{ (1UL << 31) - 10, 10 },
	};
	const unsigned long top = 1UL << 31;
	unsigned long u = 0, s, n, k = 0, nfree = 0, best = 0, nruns = 0;
	struct rg_region_stats st;
	struct rg_region *r;
	int kind;

	(void)state;
	r = make(top);
	for (size_t i = 0; i < RGT_ARRAY_SIZE(runs); i++)
		assert_int_equal(rg_region_reserve(r, runs[i][0], runs[i][1]),
				 0);
	RG_ASSERT_VALID(r);
	/* the walk: each reserved run, and the free run before it */
	rg_region_for_each_run(r, 0, RG_RUN_USED | RG_RUN_FREE, kind, s, n)
	{
		assert_int_equal(s, u);
		if (kind == RG_RUN_USED) {
			assert_true(k < RGT_ARRAY_SIZE(runs));
			assert_int_equal(s, runs[k][0]);
			assert_int_equal(n, runs[k][1]);
			k++;
		} else {
			assert_true(k == RGT_ARRAY_SIZE(runs) ||
				    s + n == runs[k][0]);
			nfree += n;
			nruns++;
			best = n > best ? n : best;
		}
		u = s + n;
	}
	assert_int_equal(k, RGT_ARRAY_SIZE(runs));
	assert_int_equal(u, top);
	assert_int_equal(rg_region_get_stats(r, &st), 0);
	assert_int_equal(st.free_units, nfree);
	assert_int_equal(st.free_runs, nruns);
	assert_int_equal(st.free_runs, RGT_ARRAY_SIZE(runs) - 1); /* 0, top */
	assert_int_equal(st.largest_free_run, best);
	assert_int_equal(st.largest_free_run, (1UL << 30) - 4030);
	assert_int_equal(st.free_run_hist[29], 2);
	/* first fit lands after the first run; the top unit is taken */
	assert_int_equal(rg_region_alloc(r, 3, 0, &s), 0);
	assert_int_equal(s, 5);
	assert_int_equal(rg_region_next_run(r, top - 1, RG_RUN_FREE, &s, &n),
			 -ENOENT);
	assert_int_equal(rg_region_test(r, top - 1), 1);
	/* shrink: -EBUSY over the top run, fine once it is freed */
	assert_int_equal(rg_region_resize(r, top - 10), -EBUSY);
	assert_int_equal(rg_region_free(r, top - 10, 10), 0);
	assert_int_equal(rg_region_resize(r, top - 10), 0);
	RG_ASSERT_VALID(r);
	rg_region_destroy(r);
}

/* Every allocation of a first fit fails in turn: nothing changes. */
static void test_alloc_faults(void **state)
{
	struct rg_region *r;
	unsigned long s = 0, fails, k, n = 0;
	int err;

	(void)state;
	cap = 4 * 1024;
	memset(model, 0, sizeof(model));
	r = make(cap);
	/* runs of 30 every 100 units: a request of 200 passes many */
	for (k = 0; k + 30 <= 3000; k += 100) {
		assert_int_equal(rg_region_reserve(r, k + 50, 30), 0);
		model_set(k + 50, 30, true);
	}
	RG_FAULT_LOOP(fails, err, rg_region_alloc(r, 1100, 0, &s), {
		RG_ASSERT_VALID(r);
		check_from(r, 0, fails);
		check_all(r, fails);
		n++;
	});
	assert_int_equal(err, 0);
	assert_int_equal(s, model_first_fit(1100, 0));
	assert_true(n > 0);
	model_set(s, 1100, true);
	check_all(r, fails);
	rg_region_destroy(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lockstep),
		cmocka_unit_test(test_full_id_space),
		cmocka_unit_test(test_alloc_faults),
	};

	if (!rg_region_backend_available(RG_REGION_IDA))
		return 77;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
