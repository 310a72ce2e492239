// SPDX-License-Identifier: MIT
/*
 * Unit tests of rg_region_alloc_request() and rg_region_resize() on every
 * backend this build has: the bad-input matrix (each field wrong alone,
 * with its documented error and the instance unchanged), hand-made cases
 * whose answer is known (a boundary that moves a first fit, a window and
 * top-down, best fit measured on whole runs, next fit's cursor, the
 * instance's policy by default), which policies each backend answers, and
 * resize: grow, shrink over free units, -EBUSY over allocated ones, the
 * limits, the figures following.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "rg_test.h"

#include "region/region.h"

#define CAP 1024

static unsigned long free_units(struct rg_region *r)
{
	struct rg_region_stats st;

	assert_int_equal(rg_region_get_stats(r, &st), 0);
	return st.free_units;
}

static struct rg_region *make(enum rg_region_backend b, unsigned long cap,
			      enum rg_region_policy p)
{
	struct rg_region *r =
		rg_region_create_backend(b, cap, RG_REGION_POLICY(p));

	assert_non_null(r);
	return r;
}

/* A request that must fail with @err and change nothing. */
static void expect_err(struct rg_region *r, const struct rg_region_request *q,
		       int err)
{
	unsigned long s = 4242, f = free_units(r);

	assert_int_equal(rg_region_alloc_request(r, q, &s), err);
	assert_int_equal(s, 4242);
	assert_int_equal(free_units(r), f);
	RG_ASSERT_VALID(r);
}

static unsigned long expect_ok(struct rg_region *r,
			       const struct rg_region_request *q)
{
	unsigned long s = 4242;

	assert_int_equal(rg_region_alloc_request(r, q, &s), 0);
	RG_ASSERT_VALID(r);
	return s;
}

static void test_bad_input(void **state)
{
	enum rg_region_backend b = (enum rg_region_backend)(uintptr_t)*state;
	struct rg_region *r = make(b, CAP, RG_REGION_FIRST_FIT);
	struct rg_region_request q;
	unsigned long s;

	assert_int_equal(rg_region_reserve(r, 100, 50), 0);
	q = RG_REGION_REQUEST(8);
	assert_int_equal(rg_region_alloc_request(NULL, &q, &s), -EINVAL);
	assert_int_equal(rg_region_alloc_request(r, NULL, &s), -EINVAL);
	assert_int_equal(rg_region_alloc_request(r, &q, NULL), -EINVAL);
	q.n = 0; /* zero size */
	expect_err(r, &q, -EINVAL);
	q.n = CAP + 1; /* above the capacity */
	expect_err(r, &q, -EINVAL);
	q = RG_REGION_REQUEST(8);
	q.align = 3; /* not a power of two */
	expect_err(r, &q, -EINVAL);
	q = RG_REGION_REQUEST(8);
	q.lo = CAP; /* window outside the capacity */
	expect_err(r, &q, -EINVAL);
	q = RG_REGION_REQUEST(8);
	q.hi = CAP;
	expect_err(r, &q, -EINVAL);
	q.hi = RG_REGION_END - 1;
	expect_err(r, &q, -EINVAL);
	q = RG_REGION_REQUEST(8);
	q.lo = 500; /* lo > hi */
	q.hi = 499;
	expect_err(r, &q, -EINVAL);
	q = RG_REGION_REQUEST(8);
	q.boundary = 48; /* not a power of two */
	expect_err(r, &q, -EINVAL);
	q.boundary = 4; /* smaller than n */
	expect_err(r, &q, -EINVAL);
	q = RG_REGION_REQUEST(8);
	q.policy = RG_REGION_NR_POLICIES; /* no such policy */
	expect_err(r, &q, -EINVAL);
	q.policy = -2;
	expect_err(r, &q, -EINVAL);
	/* genuine no-fits: -ENOSPC */
	q = RG_REGION_REQUEST(8);
	q.lo = 1020; /* lo + n passes the window's end */
	expect_err(r, &q, -ENOSPC);
	q.lo = 100; /* a window wholly allocated */
	q.hi = 149;
	expect_err(r, &q, -ENOSPC);
	q = RG_REGION_REQUEST(CAP); /* more than is free */
	expect_err(r, &q, -ENOSPC);
	/* the edges that are fine */
	q = RG_REGION_REQUEST(8);
	q.boundary = 8;
	q.lo = CAP - 8;
	q.hi = CAP - 1;
	assert_int_equal(expect_ok(r, &q), CAP - 8);
	rg_region_destroy(r);
}

/* lo + n overflowing unsigned long: the maple backend's full range. */
static void test_overflow(void **state)
{
	struct rg_region *r =
		make(RG_REGION_MAPLE, ULONG_MAX, RG_REGION_FIRST_FIT);
	struct rg_region_request q = RG_REGION_REQUEST(16);

	(void)state;
	q.lo = ULONG_MAX - 4;
	expect_err(r, &q, -ENOSPC);
	q.lo = ULONG_MAX - 16; /* the last 16 units */
	assert_int_equal(expect_ok(r, &q), ULONG_MAX - 16);
	q.policy = RG_REGION_TOP_DOWN;
	q.lo = 0;
	q.align = 1UL << 40;
	assert_int_equal(expect_ok(r, &q), (ULONG_MAX - 16) & ~(q.align - 1));
	rg_region_destroy(r);
}

static bool answers(enum rg_region_backend b, enum rg_region_policy p)
{
	if (b == RG_REGION_IDA)
		return p == RG_REGION_FIRST_FIT || p == RG_REGION_NEXT_FIT;
	if (b == RG_REGION_MAPLE)
		return p != RG_REGION_BEST_FIT;
	return true;
}

static void test_policies(void **state)
{
	enum rg_region_backend b = (enum rg_region_backend)(uintptr_t)*state;
	struct rg_region *r = make(b, CAP, RG_REGION_FIRST_FIT);
	struct rg_region_request q = RG_REGION_REQUEST(4);

	for (int p = 0; p < RG_REGION_NR_POLICIES; p++) {
		q.policy = p;
		if (answers(b, (enum rg_region_policy)p))
			expect_ok(r, &q);
		else
			expect_err(r, &q, -EOPNOTSUPP);
	}
	rg_region_destroy(r);
}

static void test_placements(void **state)
{
	enum rg_region_backend b = (enum rg_region_backend)(uintptr_t)*state;
	struct rg_region *r = make(b, CAP, RG_REGION_FIRST_FIT);
	struct rg_region_request q = RG_REGION_REQUEST(8);
	unsigned long s;

	/* [0, 60) taken: the first fit at 60 crosses 64, so 64 */
	assert_int_equal(rg_region_reserve(r, 0, 60), 0);
	q.boundary = 64;
	assert_int_equal(expect_ok(r, &q), 64);
	assert_int_equal(rg_region_free(r, 64, 8), 0);
	q.boundary = 0;
	assert_int_equal(expect_ok(r, &q), 60);
	assert_int_equal(rg_region_free(r, 60, 8), 0);
	/* a window: the lowest inside it, aligned */
	q = RG_REGION_REQUEST(10);
	q.lo = 301;
	q.hi = 399;
	q.align = 4;
	assert_int_equal(expect_ok(r, &q), 304);
	/* the default policy is the instance's (first) */
	assert_int_equal(expect_ok(r, &q), 316);
	if (answers(b, RG_REGION_TOP_DOWN)) {
		q.policy = RG_REGION_TOP_DOWN;
		assert_int_equal(expect_ok(r, &q), 388);
		/* top-down under a boundary: [63, 66] would cross 64 */
		q = RG_REGION_REQUEST(4);
		q.policy = RG_REGION_TOP_DOWN;
		q.hi = 66;
		q.boundary = 8;
		assert_int_equal(expect_ok(r, &q), 60);
		assert_int_equal(rg_region_free(r, 60, 4), 0);
	}
	if (answers(b, RG_REGION_BEST_FIT)) {
		/*
		 * Free runs [500, 520) and [600, 612) inside a taken span;
		 * the window [505, 700] cuts the first to 15 units, but best
		 * fit measures whole runs: 612 - 600 = 12 < 20.
		 */
		assert_int_equal(rg_region_reserve(r, 480, 220), 0);
		assert_int_equal(rg_region_free(r, 500, 20), 0);
		assert_int_equal(rg_region_free(r, 600, 12), 0);
		q = RG_REGION_REQUEST(10);
		q.policy = RG_REGION_BEST_FIT;
		q.lo = 505;
		q.hi = 700;
		assert_int_equal(expect_ok(r, &q), 600);
		q.n = 3;
		assert_int_equal(expect_ok(r, &q),
				 505); /* [610, 612) is short */
	}
	/* next fit from the request: the cursor moves past each one */
	q = RG_REGION_REQUEST(2);
	q.policy = RG_REGION_NEXT_FIT;
	q.lo = 900;
	s = expect_ok(r, &q);
	assert_int_equal(s, 900);
	assert_int_equal(rg_region_free(r, 900, 2), 0);
	assert_int_equal(expect_ok(r, &q), 902); /* not 900 again */
	rg_region_destroy(r);
}

static void test_resize(void **state)
{
	enum rg_region_backend b = (enum rg_region_backend)(uintptr_t)*state;
	struct rg_region *r = make(b, CAP, RG_REGION_FIRST_FIT);
	struct rg_region_stats st;
	unsigned long s;

	assert_int_equal(rg_region_resize(NULL, CAP), -EINVAL);
	assert_int_equal(rg_region_resize(r, 0), -EINVAL);
	if (b == RG_REGION_IDA)
		assert_int_equal(
			rg_region_resize(r, (unsigned long)INT_MAX + 2),
			-EINVAL);
	if (b == RG_REGION_BITMAP || b == RG_REGION_HBITMAP)
		assert_int_equal(rg_region_resize(r, ULONG_MAX), -EINVAL);
	assert_int_equal(rg_region_reserve(r, 1000, 10), 0);
	assert_int_equal(rg_region_resize(r, CAP), 0); /* the same */
	assert_int_equal(rg_region_resize(r, 1005), -EBUSY);
	assert_int_equal(free_units(r), CAP - 10);
	RG_ASSERT_VALID(r);
	assert_int_equal(rg_region_resize(r, 3 * CAP), 0); /* grow */
	RG_ASSERT_VALID(r);
	assert_int_equal(rg_region_get_stats(r, &st), 0);
	assert_int_equal(st.capacity, 3 * CAP);
	assert_int_equal(st.free_units, 3 * CAP - 10);
	assert_int_equal(rg_region_test(r, 1005), 1);
	assert_int_equal(rg_region_test(r, 3 * CAP - 1), 0);
	assert_int_equal(rg_region_alloc(r, 2000, 0, &s), 0);
	assert_int_equal(s, 1010); /* the new units are free */
	assert_int_equal(rg_region_resize(r, 1010), -EBUSY);
	assert_int_equal(rg_region_free(r, 1010, 2000), 0);
	assert_int_equal(rg_region_resize(r, 1010), 0); /* shrink */
	RG_ASSERT_VALID(r);
	assert_int_equal(rg_region_get_stats(r, &st), 0);
	assert_int_equal(st.capacity, 1010);
	assert_int_equal(st.free_units, 1000);
	assert_int_equal(rg_region_test(r, 1010), -EINVAL);
	assert_int_equal(rg_region_alloc(r, 1001, 0, &s), -ENOSPC);
	assert_int_equal(rg_region_resize(r, 1000), -EBUSY);
	assert_int_equal(rg_region_free(r, 1000, 10), 0);
	assert_int_equal(rg_region_resize(r, 1), 0);
	assert_int_equal(free_units(r), 1);
	RG_ASSERT_VALID(r);
	rg_region_destroy(r);
}

/* A next-fit cursor that the shrink cuts off starts again at 0. */
static void test_resize_cursor(void **state)
{
	enum rg_region_backend b = (enum rg_region_backend)(uintptr_t)*state;
	struct rg_region *r;
	unsigned long s;

	if (!rg_region_backend_has_policy(b, RG_REGION_NEXT_FIT))
		skip();
	r = make(b, CAP, RG_REGION_NEXT_FIT);
	assert_int_equal(rg_region_alloc(r, 900, 0, &s), 0);
	assert_int_equal(rg_region_free(r, 0, 900), 0);
	assert_int_equal(rg_region_resize(r, 800), 0);
	assert_int_equal(rg_region_alloc(r, 10, 0, &s), 0);
	assert_int_equal(s, 0);
	rg_region_destroy(r);
}

int main(void)
{
	struct CMUnitTest tests[6 * RG_REGION_NR_BACKENDS + 1];
	size_t nt = 0;

	for (int b = 0; b < RG_REGION_NR_BACKENDS; b++) {
		void *st = (void *)(uintptr_t)b;

		if (!rg_region_backend_available((enum rg_region_backend)b))
			continue;
#define ADD(fn)                                             \
	tests[nt++] = (struct CMUnitTest){ .name = #fn,     \
					   .test_func = fn, \
					   .initial_state = st }
		ADD(test_bad_input);
		ADD(test_policies);
		ADD(test_placements);
		ADD(test_resize);
		ADD(test_resize_cursor);
#undef ADD
	}
	if (rg_region_backend_available(RG_REGION_MAPLE))
		tests[nt++] = (struct CMUnitTest){ .name = "test_overflow",
						   .test_func = test_overflow };
	return _cmocka_run_group_tests("region_constrained", tests, nt, NULL,
				       NULL);
}
