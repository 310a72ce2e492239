// SPDX-License-Identifier: MIT
/*
 * Tests of the test support layer (tests/support/rg_test.h): every other
 * test relies on its checks failing when they should, so each is made to
 * fail here. RG_TEST_FAIL records a failure instead of ending the test.
 */
#include <stdio.h>

static unsigned int failures;
static char last[256];

#define RG_TEST_FAIL(...)                                  \
	do {                                               \
		failures++;                                \
		snprintf(last, sizeof(last), __VA_ARGS__); \
	} while (0)

#include "rg_test.h"

#define P(n) ((void *)(uintptr_t)(((uintptr_t)(n) << 3) | 0x1000))

static void reset(void)
{
	failures = 0;
	last[0] = '\0';
}

static void test_assert_valid(void **state)
{
	RG_DECLARE_BITMAP(map, 100);
	struct rg_region *r = rg_region_create("bitmap", 100, 0);

	(void)state;
	reset();
	memset(map, 0, sizeof(map));
	RG_ASSERT_BITMAP_VALID(map, 100);
	RG_ASSERT_VALID(r);
	assert_int_equal(failures, 0);
	/* A tail bit makes the map invalid. */
	map[1] |= 1UL << (100 % RG_BITS_PER_LONG);
	RG_ASSERT_BITMAP_VALID(map, 100);
	assert_int_equal(failures, 1);
	assert_non_null(strstr(last, "map invalid"));
	rg_region_destroy(r);
}

/* Store at @index, but report a fired failure as @as. */
static int store_as(struct rg_xarray *xa, unsigned long index, int as)
{
	int err = rg_xa_store(xa, index, P(index), NULL);

	if (err == -ENOMEM)
		return as;
	return err;
}

static void test_fault_loop(void **state)
{
	RG_DEFINE_XARRAY(xa);
	unsigned long n, checks = 0;
	int err;

	(void)state;
	reset();
	/* A call that fails cleanly: the loop runs until it succeeds. */
	RG_FAULT_LOOP(n, err, store_as(&xa, 1UL << 20, -ENOMEM), checks++);
	assert_int_equal(err, 0);
	assert_int_equal(failures, 0);
	assert_true(n > 1);
	assert_int_equal(checks, n - 1);
	/* A failure reported as another error is caught. */
	RG_FAULT_LOOP(n, err, store_as(&xa, 1UL << 40, -EINVAL), (void)0);
	assert_int_equal(err, 0);
	assert_true(failures >= 1);
	assert_non_null(strstr(last, "want -ENOMEM"));
	/* A failure the call swallowed is caught too. */
	reset();
	RG_FAULT_LOOP(n, err, store_as(&xa, 1UL << 50, 0), (void)0);
	assert_true(failures >= 1);
	/* ... unless the caller says the call may absorb it. */
	reset();
	RG_FAULT_LOOP_ABSORB(n, err, store_as(&xa, 1UL << 60, 0), true,
			     (void)0);
	assert_int_equal(failures, 0);
	assert_int_equal(n, 1);
	rg_xa_destroy(&xa);
}

/* The threaded tests' ledger counts what it must. */
static void test_ledger(void **state)
{
	unsigned char owner[8] = { 0 };
	struct rg_test_ledger l = { owner, 8, 0, 0, 0 };

	(void)state;
	rg_test_claim(&l, 3);
	rg_test_claim(&l, 3);
	rg_test_claim(&l, 8);
	rg_test_unclaim(&l, 5);
	assert_int_equal(l.twice, 1);
	assert_int_equal(l.out_of_space, 1);
	assert_int_equal(l.unowned, 1);
	assert_int_equal(owner[3], 1);
	rg_test_unclaim(&l, 3);
	assert_int_equal(owner[3], 0);
	assert_int_equal(l.unowned, 1);
}

static unsigned int matrix_runs[RG_REGION_NR_BACKENDS][RG_REGION_NR_POLICIES];

static void count_target(void **state)
{
	const struct rg_test_target *t = *state;

	matrix_runs[t->b][t->p]++;
}

/* The backend matrix runs a test once per backend, or per pair. */
static void test_matrix(void **state)
{
	(void)state;
	RG_FOR_EACH_BACKEND(b) {
		for (unsigned int p = 0; p < RG_REGION_NR_POLICIES; p++) {
			bool has = rg_region_backend_has_policy(
				b, (enum rg_region_policy)p);
			/* one run per backend (first fit), one per pair */
			unsigned int want = (p == RG_REGION_FIRST_FIT) + has;

			assert_int_equal(matrix_runs[b][p], want);
		}
	}
}

int main(void)
{
	const struct CMUnitTest per_target[] = {
		cmocka_unit_test(count_target),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_assert_valid),
		cmocka_unit_test(test_fault_loop),
		cmocka_unit_test(test_ledger),
		cmocka_unit_test(test_matrix),
	};
	int bad = rg_test_run_matrix("matrix", per_target, 1, false) |
		  rg_test_run_matrix("matrix_policies", per_target, 1, true);

	return bad | cmocka_run_group_tests(tests, NULL, NULL);
}
