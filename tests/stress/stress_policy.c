// SPDX-License-Identifier: MIT
/*
 * Randomized test of the placement policies: for best fit, top-down and
 * next fit, every backend that offers the policy runs the same sequence of
 * alloc / free / reserve operations (plus bad input, test and stats calls)
 * in lockstep with a brute-force reference over a bool array that computes
 * the exact start the policy names: the smallest free run holding the
 * aligned request (lowest among equals, its lowest aligned start), the
 * highest aligned start that fits, or the lowest fit at or after the end
 * of the previous allocation, wrapping once. More than 10^6 operations in
 * all; sanitizer builds validate every backend after every operation and
 * keep capacities small; the whole state is compared unit by unit every
 * few operations. First fit is stress_region's.
 */
#include "region_model.h"

/*
 * Large capacities (several summary levels), no model: every backend that
 * offers the policy in lockstep, bitmap's plain scan among them, so every
 * start must agree; churn with frees of whole regions and of runs that
 * span several, reaching whole allocated and whole free blocks.
 */
static void run_large(enum rg_region_policy p)
{
	struct rg_region *lr[NB];
	const char *ln[NB];
	unsigned long lcap = rg_rand_range(&rng, 100000, 400000), s[NB];
	unsigned long live[512][2], nlive = 0, ops = RG_THOROUGH ? 6000 : 30000;
	int nl = 0, rets[NB];

	RG_FOR_EACH_BACKEND_WITH(b, p) {
		if (b == RG_REGION_IDA)
			continue;
		ln[nl] = rg_region_backend_name(b);
		lr[nl] = rg_region_create(ln[nl], lcap, RG_REGION_POLICY(p));
		assert_non_null(lr[nl]);
		nl++;
	}
	for (unsigned long k = 0; k < ops; k++) {
		bool big = rg_rand_below(&rng, 50) == 0;
		unsigned long n = big ? rg_rand_range(&rng, 500, 5000) :
					rg_rand_range(&rng, 1, 40);
		unsigned long align = rg_rand_below(&rng, 4) ?
					      0 :
					      1UL << rg_rand_below(&rng, 8);

		if (nlive && (nlive == 512 || rg_rand_below(&rng, 2))) {
			unsigned long i = rg_rand_below(&rng, nlive);

			for (int b = 0; b < nl; b++)
				assert_int_equal(rg_region_free(lr[b],
								live[i][0],
								live[i][1]),
						 0);
			live[i][0] = live[--nlive][0];
			live[i][1] = live[nlive][1];
			continue;
		}
		for (int b = 0; b < nl; b++)
			rets[b] = rg_region_alloc(lr[b], n, align, &s[b]);
		for (int b = 1; b < nl; b++)
			if (rets[b] != rets[0] || (!rets[0] && s[b] != s[0]))
				fail_msg("%s fit, capacity %lu: %s alloc(%lu, "
					 "%lu) = %d at %lu, %s: %d at %lu",
					 rg_region_policy_name(p), lcap, ln[b],
					 n, align, rets[b], s[b], ln[0],
					 rets[0], s[0]);
		if (!rets[0]) {
			live[nlive][0] = s[0];
			live[nlive++][1] = n;
		}
		if (k % 512 == 0)
			for (int b = 0; b < nl; b++)
				RG_ASSERT_VALIDF(lr[b], "%s", ln[b]);
	}
	for (int b = 0; b < nl; b++)
		rg_region_destroy(lr[b]);
	printf("# %s fit at capacity %lu: %lu operations x %d backends "
	       "agree\n",
	       rg_region_policy_name(p), lcap, ops, nl);
}

static void test_policies(void **state)
{
	unsigned long max_cap = RG_THOROUGH ? 256 : MAX_CAP;

	(void)state;
	rg_rand_seed(&rng, rg_test_seed());
	run_policy(RG_REGION_BEST_FIT, max_cap, 350000);
	run_policy(RG_REGION_TOP_DOWN, max_cap, 350000);
	run_policy(RG_REGION_NEXT_FIT, max_cap, 350000);
	for (int i = 0; i < 2; i++) {
		run_large(RG_REGION_BEST_FIT);
		run_large(RG_REGION_TOP_DOWN);
		run_large(RG_REGION_NEXT_FIT);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
