// SPDX-License-Identifier: MIT
/*
 * Randomized region walking and save/load against a brute-force model, on
 * instances large enough for several hbitmap levels (70,000 units: three
 * level-0 nodes under a root), for every backend and every policy each
 * offers (hbitmap best fit exercises the word-scan path of stale
 * summaries). A churn holds occupancy near a random
 * target with small, long and aligned allocations, frees and reservations;
 * after every mutation the instance validates and rg_region_next_run() from
 * random units (around the last change, where the pending block lies, and
 * anywhere) matches the model; every 64 steps a full walk, the free-run
 * figures and a save / load round trip into a random backend match it.
 */
#include <errno.h>
#include <string.h>

#include "rg_run_model.h"
#include "rg_test.h"

#include "region/region.h"

#define CAP 70000UL

static struct rg_rand rng;
static bool model[CAP];

static void check_from(struct rg_region *r, unsigned long from)
{
	static const unsigned int kinds[3] = { RG_RUN_USED, RG_RUN_FREE,
					       RG_RUN_USED | RG_RUN_FREE };

	for (int k = 0; k < 3; k++) {
		unsigned long s = 0, n = 0, ms = 0, mn = 0;
		int want =
			rg_model_next_run(model, CAP, from, kinds[k], &ms, &mn);
		int got = rg_region_next_run(r, from, kinds[k], &s, &n);

		if (want ? got != want || s != ms || n != mn : got != -ENOENT)
			fail_msg("from %lu kinds %u: got %d %lu+%lu, want %d "
				 "%lu+%lu",
				 from, kinds[k], got, s, n, want, ms, mn);
	}
}

static void check_all(struct rg_region *r, enum rg_region_backend other)
{
	unsigned long s, n, u = 0, runs = 0, ms, mn, nfree = 0;
	struct rg_region_stats st;
	struct rg_region *l;
	unsigned char *buf;
	size_t size = 0;
	int kind;

	rg_region_for_each_run(r, 0, RG_RUN_USED | RG_RUN_FREE, kind, s, n)
	{
		if (rg_model_next_run(model, CAP, u, RG_RUN_USED | RG_RUN_FREE,
				      &ms, &mn) != kind ||
		    s != ms || n != mn)
			fail_msg("walk differs at %lu", u);
		if (kind == RG_RUN_FREE) {
			runs++;
			nfree += n;
		}
		u = s + n;
	}
	assert_int_equal(u, CAP);
	assert_int_equal(rg_region_get_stats(r, &st), 0);
	assert_int_equal(st.free_runs, runs);
	assert_int_equal(st.free_units, nfree);
	n = 0;
	for (int k = 0; k < RG_REGION_HIST_BUCKETS; k++)
		n += st.free_run_hist[k];
	assert_int_equal(n, runs);

	assert_int_equal(rg_region_save(r, NULL, &size), -ENOSPC);
	buf = malloc(size);
	assert_non_null(buf);
	assert_int_equal(rg_region_save(r, buf, &size), 0);
	l = rg_region_load(buf, size, other, 0);
	assert_non_null(l);
	for (u = 0; u < CAP; u++)
		if ((rg_region_test(l, u) == 1) != model[u])
			fail_msg("unit %lu differs after load into %s", u,
				 rg_region_backend_name(other));
	rg_region_destroy(l);
	free(buf);
}

static void run(enum rg_region_backend b, enum rg_region_policy p, int steps)
{
	static const enum rg_region_backend others[] = { RG_REGION_BITMAP,
							 RG_REGION_MAPLE,
							 RG_REGION_HBITMAP };
	struct rg_region *r =
		rg_region_create_backend(b, CAP, RG_REGION_POLICY(p));
	unsigned long used = 0, target = CAP / 2;

	assert_non_null(r);
	memset(model, 0, sizeof(model));
	for (int i = 0; i < steps; i++) {
		unsigned long a, n, s, align = 0;
		int op, err;

		if (i % 2000 == 0)
			target = rg_rand_range(&rng, CAP / 10, CAP - CAP / 50);
		n = rg_rand_below(&rng, 10) ? rg_rand_range(&rng, 1, 40) :
					      rg_rand_range(&rng, 100, 3000);
		if (!rg_rand_below(&rng, 5))
			align = 1UL << rg_rand_below(&rng, 7);
		op = used < target ? (rg_rand_below(&rng, 6) ? 0 : 2) : 1;
		a = rg_rand_below(&rng, CAP - n);
		if (op == 0) {
			err = rg_region_alloc(r, n, align, &s);
			a = s;
		} else if (op == 1) {
			while (a < CAP && !model[a])
				a++;
			if (a == CAP)
				continue;
			for (n = 1; a + n < CAP && model[a + n] && n < 500; n++)
				;
			n = rg_rand_range(&rng, 1, n);
			err = rg_region_free(r, a, n);
		} else {
			err = rg_region_reserve(r, a, n);
		}
		if (!err) {
			for (unsigned long u = a; u < a + n; u++)
				model[u] = op != 1;
			used = op != 1 ? used + n : used - n;
		}
		if (RG_THOROUGH || i % 16 == 0)
			RG_ASSERT_VALIDF(r, "step %d", i);
		check_from(r, a);
		check_from(r, a > 600 ? a - 600 : 0);
		check_from(r, rg_rand_below(&rng, CAP));
		if (i % 64 == 63)
			check_all(r, others[rg_rand_below(&rng, 3)]);
	}
	printf("# %s, %s fit: %d steps\n", rg_region_backend_name(b),
	       rg_region_policy_name(p), steps);
	rg_region_destroy(r);
}

static void test_stress(void **state)
{
	int steps = RG_THOROUGH ? 1500 : 6000;

	(void)state;
	for (unsigned int b = 0; b < RG_REGION_NR_BACKENDS; b++) {
		enum rg_region_backend be = (enum rg_region_backend)b;

		if (!rg_region_backend_available(be))
			continue;
		for (unsigned int p = 0; p < RG_REGION_NR_POLICIES; p++)
			if (rg_region_backend_has_policy(
				    be, (enum rg_region_policy)p))
				run(be, (enum rg_region_policy)p, steps);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stress),
	};

	rg_rand_seed(&rng, rg_test_seed());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
