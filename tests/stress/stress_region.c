// SPDX-License-Identifier: MIT
/*
 * Randomized test of the region API: every backend this build has runs the
 * same sequence of more than 10^6 alloc / free / reserve operations (plus
 * bad input, test and stats calls) in lockstep, and every result, start
 * addresses included, is compared with a brute-force reference: a plain
 * bool array per unit, searched linearly for the lowest aligned fit. So
 * every first-fit backend gives identical answers. Frees cover whole
 * regions, parts of regions and runs spanning several regions; sizes and
 * alignments are random; each round has its own capacity and target
 * occupancy. Sanitizer builds validate every backend after every operation
 * and keep capacities small; the whole state is compared unit by unit
 * every few operations.
 */
#include "region_model.h"

static void test_lockstep(void **state)
{
	(void)state;
	rg_rand_seed(&rng, rg_test_seed());
	run_policy(RG_REGION_FIRST_FIT, RG_THOROUGH ? 256 : MAX_CAP, 1000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lockstep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
