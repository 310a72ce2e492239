// SPDX-License-Identifier: MIT
/*
 * Unit tests of the region API, run against every backend this build has:
 * creation and its errors, lowest-first allocation with alignment, free and
 * reserve of exact, partial and adjacent ranges, every bad input (n = 0,
 * n > capacity, ranges past the capacity or overflowing, freeing what is not
 * or only partly allocated, reserving an occupied range) with its errno and
 * no change, stats, validate and dump.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "rg_test.h"

#include "region/region.h"

static struct rg_region *make(void **state, unsigned long cap)
{
	enum rg_region_backend b = ((const struct rg_test_target *)*state)->b;
	struct rg_region *r = rg_region_create_backend(b, cap, 0);

	assert_non_null(r);
	return r;
}

static unsigned long free_units(struct rg_region *r)
{
	struct rg_region_stats st;

	assert_int_equal(rg_region_get_stats(r, &st), 0);
	return st.free_units;
}

static unsigned long largest(struct rg_region *r)
{
	struct rg_region_stats st;

	assert_int_equal(rg_region_get_stats(r, &st), 0);
	return st.largest_free_run;
}

static void test_names(void **state)
{
	enum rg_region_policy pol;
	enum rg_region_backend b;

	(void)state;
	assert_string_equal(rg_region_backend_name(RG_REGION_BITMAP), "bitmap");
	assert_string_equal(rg_region_backend_name(RG_REGION_IDA), "ida");
	assert_string_equal(rg_region_backend_name(RG_REGION_MAPLE), "maple");
	assert_string_equal(rg_region_backend_name(RG_REGION_HBITMAP),
			    "hbitmap");
	assert_null(rg_region_backend_name(RG_REGION_NR_BACKENDS));
	assert_int_equal(rg_region_backend_lookup("bitmap", &b), 0);
	assert_int_equal(b, RG_REGION_BITMAP);
	assert_true(rg_region_backend_available(RG_REGION_BITMAP));
	assert_false(rg_region_backend_available(RG_REGION_NR_BACKENDS));
	assert_int_equal(rg_region_backend_lookup("nosuch", &b), -EINVAL);
	assert_int_equal(rg_region_backend_lookup(NULL, &b), -EINVAL);
	/* Every build has every backend. */
	RG_FOR_EACH_BACKEND(i) {
		assert_true(rg_region_backend_available(i));
		assert_int_equal(
			rg_region_backend_lookup(rg_region_backend_name(i), &b),
			0);
		assert_int_equal(b, i);
	}
	errno = 0;
	assert_null(rg_region_create("nosuch", 10, 0));
	assert_int_equal(errno, EINVAL);
	for (unsigned int p = 0; p < RG_REGION_NR_POLICIES; p++) {
		enum rg_region_policy q = RG_REGION_NR_POLICIES;

		assert_int_equal(
			rg_region_policy_lookup(
				rg_region_policy_name((enum rg_region_policy)p),
				&q),
			0);
		assert_int_equal(q, p);
	}
	assert_string_equal(rg_region_policy_name(RG_REGION_BEST_FIT), "best");
	assert_null(rg_region_policy_name(RG_REGION_NR_POLICIES));
	assert_int_equal(rg_region_policy_lookup("worst", &pol), -ENOENT);
	assert_int_equal(rg_region_policy_lookup(NULL, &pol), -EINVAL);
	assert_false(rg_region_backend_has_policy(RG_REGION_HBITMAP,
						  RG_REGION_NR_POLICIES));
	assert_false(rg_region_backend_has_policy(RG_REGION_NR_BACKENDS,
						  RG_REGION_FIRST_FIT));
	assert_false(rg_region_backend_has_policy(RG_REGION_IDA,
						  RG_REGION_BEST_FIT));
	assert_true(rg_region_backend_has_policy(RG_REGION_BITMAP,
						 RG_REGION_BEST_FIT));
	assert_true(rg_region_backend_has_policy(RG_REGION_HBITMAP,
						 RG_REGION_BEST_FIT));
	errno = 0;
	assert_null(rg_region_create_backend(RG_REGION_NR_BACKENDS, 10, 0));
	assert_int_equal(errno, EINVAL);
}

static void test_create(void **state)
{
	enum rg_region_backend b = ((const struct rg_test_target *)*state)->b;
	const char *name = rg_region_backend_name(b);
	struct rg_region_stats st;
	struct rg_region *r;

	errno = 0;
	assert_null(rg_region_create(name, 0, 0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(rg_region_create(name, 10, 0x80));
	assert_int_equal(errno, EINVAL);
	if (b == RG_REGION_IDA) {
		errno = 0;
		assert_null(
			rg_region_create(name, (unsigned long)INT_MAX + 2, 0));
		assert_int_equal(errno, EINVAL);
	}
	r = rg_region_create(name, 1000, RG_REGION_LOCKED);
	assert_non_null(r);
	assert_int_equal(rg_region_get_stats(r, &st), 0);
	assert_int_equal(st.backend, b);
	assert_int_equal(st.capacity, 1000);
	assert_int_equal(st.free_units, 1000);
	assert_int_equal(st.largest_free_run, 1000);
	assert_true(st.bytes_held > 0);
	assert_true(st.bytes_held_peak >= st.bytes_held);
	RG_ASSERT_VALID(r);
	rg_region_destroy(r);
	rg_region_destroy(NULL);
}

static void test_alloc_lowest_first(void **state)
{
	struct rg_region *r = make(state, 100);
	unsigned long s = 777;

	assert_int_equal(rg_region_alloc(r, 10, 0, &s), 0);
	assert_int_equal(s, 0);
	assert_int_equal(rg_region_alloc(r, 5, 1, &s), 0);
	assert_int_equal(s, 10);
	assert_int_equal(rg_region_alloc(r, 4, 8, &s), 0);
	assert_int_equal(s, 16);
	assert_int_equal(rg_region_alloc(r, 1, 0, &s), 0);
	assert_int_equal(s, 15);
	assert_int_equal(rg_region_alloc(r, 1, 4, &s), 0);
	assert_int_equal(s, 20);
	RG_ASSERT_VALID(r);
	/* free a hole and get it back first */
	assert_int_equal(rg_region_free(r, 10, 5), 0);
	assert_int_equal(rg_region_alloc(r, 6, 0, &s), 0);
	assert_int_equal(s, 21);
	assert_int_equal(rg_region_alloc(r, 5, 0, &s), 0);
	assert_int_equal(s, 10);
	assert_int_equal(free_units(r), 100 - 10 - 5 - 4 - 1 - 1 - 6);
	/* take everything else */
	assert_int_equal(rg_region_alloc(r, 73, 0, &s), 0);
	assert_int_equal(s, 27);
	assert_int_equal(free_units(r), 0);
	assert_int_equal(largest(r), 0);
	s = 777;
	assert_int_equal(rg_region_alloc(r, 1, 0, &s), -ENOSPC);
	assert_int_equal(s, 777);
	RG_ASSERT_VALID(r);
	rg_region_destroy(r);
}

/*
 * Free runs [10, 15), [20, 40), [50, 53), [60, 100): each policy's choice,
 * or -EOPNOTSUPP at creation for a policy the backend lacks; unknown
 * policies get -EINVAL.
 */
static void test_policies(void **state)
{
	enum rg_region_backend b = ((const struct rg_test_target *)*state)->b;
	/* start of alloc(3, 0), then alloc(4, 4), per policy */
	static const unsigned long want[RG_REGION_NR_POLICIES][2] = {
		[RG_REGION_FIRST_FIT] = { 10, 20 },
		[RG_REGION_BEST_FIT] = { 50, 20 },
		[RG_REGION_TOP_DOWN] = { 97, 92 },
		[RG_REGION_NEXT_FIT] = { 10, 20 },
	};
	unsigned long s = 777;
	struct rg_region *r;

	errno = 0;
	assert_null(rg_region_create_backend(
		b, 100, RG_REGION_POLICY(RG_REGION_NR_POLICIES)));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(rg_region_create_backend(b, 100, RG_REGION_POLICY(0xff)));
	assert_int_equal(errno, EINVAL);
	for (unsigned int p = 0; p < RG_REGION_NR_POLICIES; p++) {
		unsigned int fl = RG_REGION_POLICY(p);

		errno = 0;
		r = rg_region_create_backend(b, 100, fl);
		if (!rg_region_backend_has_policy(b,
						  (enum rg_region_policy)p)) {
			assert_null(r);
			assert_int_equal(errno, EOPNOTSUPP);
			continue;
		}
		assert_non_null(r);
		assert_int_equal(rg_region_reserve(r, 0, 100), 0);
		assert_int_equal(rg_region_free(r, 10, 5), 0);
		assert_int_equal(rg_region_free(r, 20, 20), 0);
		assert_int_equal(rg_region_free(r, 50, 3), 0);
		assert_int_equal(rg_region_free(r, 60, 40), 0);
		assert_int_equal(rg_region_alloc(r, 3, 0, &s), 0);
		assert_int_equal(s, want[p][0]);
		assert_int_equal(rg_region_alloc(r, 4, 4, &s), 0);
		assert_int_equal(s, want[p][1]);
		if (p == RG_REGION_NEXT_FIT) {
			/* from 24: [24, 40) then [60, 100), then wrap */
			assert_int_equal(rg_region_alloc(r, 16, 0, &s), 0);
			assert_int_equal(s, 24);
			assert_int_equal(rg_region_alloc(r, 40, 0, &s), 0);
			assert_int_equal(s, 60);
			assert_int_equal(rg_region_alloc(r, 2, 0, &s), 0);
			assert_int_equal(s, 13);
			assert_int_equal(rg_region_alloc(r, 3, 0, &s), 0);
			assert_int_equal(s, 50);
			s = 777;
			assert_int_equal(rg_region_alloc(r, 1, 0, &s), -ENOSPC);
			assert_int_equal(s, 777);
		}
		RG_ASSERT_VALID(r);
		rg_region_destroy(r);
	}
}

static void test_alloc_bad_input(void **state)
{
	struct rg_region *r = make(state, 64);
	unsigned long s = 777;

	assert_int_equal(rg_region_alloc(r, 0, 0, &s), -EINVAL);
	assert_int_equal(rg_region_alloc(r, 65, 0, &s), -EINVAL);
	assert_int_equal(rg_region_alloc(r, ~0UL, 0, &s), -EINVAL);
	assert_int_equal(rg_region_alloc(r, 1, 3, &s), -EINVAL);
	assert_int_equal(rg_region_alloc(r, 1, 12, &s), -EINVAL);
	assert_int_equal(rg_region_alloc(r, 1, ~0UL, &s), -EINVAL);
	assert_int_equal(s, 777);
	assert_int_equal(free_units(r), 64);
	/* alignment larger than the capacity: only start 0 qualifies */
	assert_int_equal(rg_region_alloc(r, 1, 1UL << 40, &s), 0);
	assert_int_equal(s, 0);
	assert_int_equal(rg_region_alloc(r, 1, 1UL << 40, &s), -ENOSPC);
	assert_int_equal(rg_region_alloc(r, 64, 0, &s), -ENOSPC);
	assert_int_equal(rg_region_alloc(r, 63, 0, &s), 0);
	assert_int_equal(s, 1);
	RG_ASSERT_VALID(r);
	rg_region_destroy(r);
}

static void test_alloc_alignment(void **state)
{
	struct rg_region *r = make(state, 256);
	unsigned long s;

	assert_int_equal(rg_region_reserve(r, 0, 3), 0);
	assert_int_equal(rg_region_alloc(r, 2, 2, &s), 0);
	assert_int_equal(s, 4);
	assert_int_equal(rg_region_alloc(r, 16, 16, &s), 0);
	assert_int_equal(s, 16);
	assert_int_equal(rg_region_alloc(r, 1, 2, &s), 0);
	assert_int_equal(s, 6);
	assert_int_equal(rg_region_alloc(r, 1, 0, &s), 0);
	assert_int_equal(s, 3);
	assert_int_equal(rg_region_alloc(r, 64, 64, &s), 0);
	assert_int_equal(s, 64);
	assert_int_equal(rg_region_alloc(r, 128, 128, &s), 0);
	assert_int_equal(s, 128);
	assert_int_equal(rg_region_alloc(r, 1, 64, &s), -ENOSPC);
	assert_int_equal(rg_region_alloc(r, 8, 8, &s), 0);
	assert_int_equal(s, 8);
	RG_ASSERT_VALID(r);
	rg_region_destroy(r);
}

static void test_free_ranges(void **state)
{
	struct rg_region *r = make(state, 100);
	unsigned long s;

	assert_int_equal(rg_region_alloc(r, 10, 0, &s), 0); /* 0..9 */
	assert_int_equal(rg_region_alloc(r, 10, 0, &s), 0); /* 10..19 */
	assert_int_equal(rg_region_reserve(r, 30, 10), 0); /* 30..39 */
	assert_int_equal(rg_region_test(r, 0), 1);
	assert_int_equal(rg_region_test(r, 19), 1);
	assert_int_equal(rg_region_test(r, 20), 0);
	assert_int_equal(rg_region_test(r, 39), 1);
	assert_int_equal(rg_region_test(r, 99), 0);
	assert_int_equal(rg_region_test(r, 100), -EINVAL);
	assert_int_equal(rg_region_test(r, ~0UL), -EINVAL);
	/* bad ranges */
	assert_int_equal(rg_region_free(r, 0, 0), -EINVAL);
	assert_int_equal(rg_region_free(r, 100, 1), -EINVAL);
	assert_int_equal(rg_region_free(r, 95, 6), -EINVAL);
	assert_int_equal(rg_region_free(r, 1, ~0UL), -EINVAL);
	assert_int_equal(rg_region_free(r, ~0UL, 2), -EINVAL);
	/* not allocated, partly allocated */
	assert_int_equal(rg_region_free(r, 50, 5), -ENOENT);
	assert_int_equal(rg_region_free(r, 15, 10), -ENOENT);
	assert_int_equal(rg_region_free(r, 25, 10), -ENOENT);
	assert_int_equal(rg_region_free(r, 29, 1), -ENOENT);
	assert_int_equal(rg_region_free(r, 0, 100), -ENOENT);
	assert_int_equal(free_units(r), 70);
	RG_ASSERT_VALID(r);
	/* two adjacent regions at once */
	assert_int_equal(rg_region_free(r, 5, 10), 0);
	assert_int_equal(free_units(r), 80);
	/* double free */
	assert_int_equal(rg_region_free(r, 5, 10), -ENOENT);
	assert_int_equal(rg_region_free(r, 5, 1), -ENOENT);
	/* the rest of each, and part of the reservation */
	assert_int_equal(rg_region_free(r, 0, 5), 0);
	assert_int_equal(rg_region_free(r, 15, 5), 0);
	assert_int_equal(rg_region_free(r, 33, 4), 0);
	assert_int_equal(free_units(r), 94);
	assert_int_equal(largest(r), 60);
	RG_ASSERT_VALID(r);
	assert_int_equal(rg_region_alloc(r, 4, 0, &s), 0);
	assert_int_equal(s, 0);
	assert_int_equal(rg_region_alloc(r, 27, 0, &s), 0);
	assert_int_equal(s, 40);
	assert_int_equal(rg_region_free(r, 40, 27), 0);
	assert_int_equal(rg_region_alloc(r, 26, 0, &s), 0);
	assert_int_equal(s, 4);
	assert_int_equal(rg_region_alloc(r, 4, 0, &s), 0);
	assert_int_equal(s, 33);
	assert_int_equal(rg_region_free(r, 0, 40), 0);
	assert_int_equal(free_units(r), 100);
	assert_int_equal(largest(r), 100);
	RG_ASSERT_VALID(r);
	rg_region_destroy(r);
}

static void test_reserve(void **state)
{
	struct rg_region *r = make(state, 1000);
	unsigned long s;

	assert_int_equal(rg_region_reserve(r, 0, 0), -EINVAL);
	assert_int_equal(rg_region_reserve(r, 1000, 1), -EINVAL);
	assert_int_equal(rg_region_reserve(r, 999, 2), -EINVAL);
	assert_int_equal(rg_region_reserve(r, 2, ~0UL), -EINVAL);
	assert_int_equal(rg_region_reserve(r, 500, 100), 0);
	assert_int_equal(rg_region_reserve(r, 599, 1), -EBUSY);
	assert_int_equal(rg_region_reserve(r, 450, 51), -EBUSY);
	assert_int_equal(rg_region_reserve(r, 0, 1000), -EBUSY);
	assert_int_equal(free_units(r), 900);
	assert_int_equal(largest(r), 500);
	assert_int_equal(rg_region_reserve(r, 999, 1), 0);
	assert_int_equal(rg_region_reserve(r, 0, 1), 0);
	assert_int_equal(largest(r), 499);
	assert_int_equal(rg_region_alloc(r, 500, 0, &s), -ENOSPC);
	assert_int_equal(rg_region_alloc(r, 499, 0, &s), 0);
	assert_int_equal(s, 1);
	assert_int_equal(rg_region_alloc(r, 399, 0, &s), 0);
	assert_int_equal(s, 600);
	assert_int_equal(free_units(r), 0);
	RG_ASSERT_VALID(r);
	assert_int_equal(rg_region_free(r, 0, 1000), 0);
	assert_int_equal(free_units(r), 1000);
	RG_ASSERT_VALID(r);
	rg_region_destroy(r);
}

static void test_capacity_one(void **state)
{
	struct rg_region *r = make(state, 1);
	unsigned long s = 5;

	assert_int_equal(rg_region_alloc(r, 2, 0, &s), -EINVAL);
	assert_int_equal(rg_region_alloc(r, 1, 0, &s), 0);
	assert_int_equal(s, 0);
	assert_int_equal(rg_region_alloc(r, 1, 0, &s), -ENOSPC);
	assert_int_equal(rg_region_reserve(r, 0, 1), -EBUSY);
	assert_int_equal(rg_region_free(r, 0, 1), 0);
	assert_int_equal(rg_region_free(r, 0, 1), -ENOENT);
	assert_int_equal(rg_region_reserve(r, 0, 1), 0);
	RG_ASSERT_VALID(r);
	rg_region_destroy(r);
}

static void test_word_edges(void **state)
{
	struct rg_region *r = make(state, 200);
	unsigned long s;

	/* regions that straddle 64-unit words */
	assert_int_equal(rg_region_reserve(r, 60, 10), 0);
	assert_int_equal(rg_region_alloc(r, 61, 0, &s), 0);
	assert_int_equal(s, 70);
	assert_int_equal(rg_region_alloc(r, 60, 0, &s), 0);
	assert_int_equal(s, 0);
	assert_int_equal(rg_region_alloc(r, 69, 0, &s), 0);
	assert_int_equal(s, 131);
	assert_int_equal(free_units(r), 0);
	assert_int_equal(rg_region_free(r, 63, 70), 0);
	assert_int_equal(largest(r), 70);
	assert_int_equal(rg_region_alloc(r, 64, 64, &s), 0);
	assert_int_equal(s, 64);
	RG_ASSERT_VALID(r);
	rg_region_destroy(r);
}

static void test_dump(void **state)
{
	enum rg_region_backend b = ((const struct rg_test_target *)*state)->b;
	struct rg_region *r = make(state, 100);
	char buf[4096];
	unsigned long s;
	FILE *f;

	assert_int_equal(rg_region_alloc(r, 7, 0, &s), 0);
	assert_int_equal(rg_region_reserve(r, 50, 3), 0);
	f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	rg_region_dump(r, f);
	fclose(f);
	assert_non_null(strstr(buf, rg_region_backend_name(b)));
	assert_non_null(strstr(buf, "capacity=100 free=90"));
	rg_region_destroy(r);
}

/* Every call with NULL for each pointer argument: the common.h policy. */
static void regress_region_null_arguments(void **state)
{
	enum rg_region_backend b = ((const struct rg_test_target *)*state)->b;
	struct rg_region *r = rg_region_create_backend(b, 1000, 0);
	struct rg_region_stats st, st2;
	enum rg_region_policy pol;
	const char *why = "x";
	unsigned long start;

	assert_non_null(r);
	assert_int_equal(rg_region_alloc(r, 10, 0, &start), 0);
	assert_int_equal(rg_region_get_stats(r, &st), 0);
	RG_EXPECT_NULL_RET(rg_region_backend_lookup(NULL, &b), -EINVAL);
	RG_EXPECT_NULL_RET(rg_region_backend_lookup("bitmap", NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_region_policy_lookup(NULL, &pol), -EINVAL);
	RG_EXPECT_NULL_RET(rg_region_policy_lookup("best", NULL), -EINVAL);
	RG_EXPECT_NULL_EINVAL(rg_region_create(NULL, 10, 0));
	RG_EXPECT_NULL_VOID(rg_region_destroy(NULL));
	RG_EXPECT_NULL_RET(rg_region_alloc(NULL, 10, 0, &start), -EINVAL);
	RG_EXPECT_NULL_RET(rg_region_alloc(r, 10, 0, NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_region_free(NULL, 0, 10), -EINVAL);
	RG_EXPECT_NULL_RET(rg_region_reserve(NULL, 100, 10), -EINVAL);
	RG_EXPECT_NULL_RET(rg_region_test(NULL, 0), -EINVAL);
	RG_EXPECT_NULL_RET(rg_region_get_stats(NULL, &st2), -EINVAL);
	RG_EXPECT_NULL_RET(rg_region_get_stats(r, NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_region_validate(NULL, &why), -EINVAL);
	RG_EXPECT_NULL_RET(rg_region_validate(NULL, NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_region_validate(r, NULL), 0);
	RG_EXPECT_NULL_VOID(rg_region_dump(NULL, stderr));
	RG_EXPECT_NULL_VOID(rg_region_dump(r, NULL));
	/* In this process too: nothing changed. */
	assert_int_equal(rg_region_alloc(r, 10, 0, NULL), -EINVAL);
	assert_int_equal(rg_region_get_stats(r, NULL), -EINVAL);
	assert_int_equal(rg_region_validate(NULL, &why), -EINVAL);
	assert_non_null(why);
	assert_int_equal(rg_region_get_stats(r, &st2), 0);
	assert_int_equal(st2.free_units, st.free_units);
	assert_int_equal(st2.largest_free_run, st.largest_free_run);
	assert_int_equal(rg_region_validate(r, NULL), 0);
	rg_region_destroy(r);
}

int main(void)
{
	const struct CMUnitTest once[] = {
		cmocka_unit_test(test_names),
	};
	const struct CMUnitTest per_backend[] = {
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_alloc_lowest_first),
		cmocka_unit_test(test_alloc_bad_input),
		cmocka_unit_test(test_policies),
		cmocka_unit_test(test_alloc_alignment),
		cmocka_unit_test(test_free_ranges),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_capacity_one),
		cmocka_unit_test(test_word_edges),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(regress_region_null_arguments),
	};

	return cmocka_run_group_tests(once, NULL, NULL) |
	       rg_test_run_matrix("region", per_backend,
				  RGT_ARRAY_SIZE(per_backend), false);
}
