// SPDX-License-Identifier: MIT
/*
 * Next fit's cursor and rg_region_resize(), on every backend: through
 * rg_region_alloc() on an instance created with next fit (bitmap, maple,
 * hbitmap) and through rg_region_alloc_request() with a next-fit request
 * (every backend, ida included, as next fit is built on first fit there).
 * The policy: the lowest fit at or after the end of the previous next-fit
 * allocation, else, wrapping once, the lowest fit at all. Resizing leaves
 * the cursor where that allocation ended:
 *  - regress_next_fit_cursor_at_capacity_grow: the previous allocation
 *    ended exactly at the capacity, then the instance grows: the next
 *    allocation starts at the old capacity (it used to start at 0, the
 *    cursor having been stored wrapped);
 *  - a cursor at the capacity with no resize wraps to 0;
 *  - a shrink that cuts the cursor off makes the next search wrap to 0;
 *  - a shrink and a grow back with no allocation between keep the cursor;
 *  - a grow leaves a cursor below the old capacity as it is.
 */
#include <errno.h>
#include <string.h>

#include "rg_test.h"

#include "region/region.h"

#define CAP 1024UL

/* The two ways to allocate with next fit; @via_request picks. */
struct nf {
	struct rg_region *r;
	bool via_request;
};

static bool nf_open(struct nf *f, void **state, bool via_request)
{
	const struct rg_test_target *t = *state;
	enum rg_region_policy p =
		via_request ? RG_REGION_FIRST_FIT : RG_REGION_NEXT_FIT;

	if (!via_request && !rg_region_backend_has_policy(t->b, p))
		return false;
	f->via_request = via_request;
	f->r = rg_region_create_backend(t->b, CAP, RG_REGION_POLICY(p));
	assert_non_null(f->r);
	return true;
}

static unsigned long nf_alloc(struct nf *f, unsigned long n)
{
	struct rg_region_request q = RG_REGION_REQUEST(n);
	unsigned long s = 4242;

	q.policy = RG_REGION_NEXT_FIT;
	if (f->via_request)
		assert_int_equal(rg_region_alloc_request(f->r, &q, &s), 0);
	else
		assert_int_equal(rg_region_alloc(f->r, n, 0, &s), 0);
	RG_ASSERT_VALID(f->r);
	return s;
}

static void nf_resize(struct nf *f, unsigned long cap)
{
	assert_int_equal(rg_region_resize(f->r, cap), 0);
	RG_ASSERT_VALID(f->r);
}

static void nf_free(struct nf *f, unsigned long s, unsigned long n)
{
	assert_int_equal(rg_region_free(f->r, s, n), 0);
}

/*
 * The previous allocation ends exactly at the capacity; after a grow,
 * next fit starts at the old capacity, not at unit 0.
 */
static void regress_next_fit_cursor_at_capacity_grow(void **state)
{
	struct nf f;

	for (int via = 0; via < 2; via++) {
		if (!nf_open(&f, state, via))
			continue;
		assert_int_equal(nf_alloc(&f, CAP - 24), 0);
		assert_int_equal(nf_alloc(&f, 24), CAP - 24); /* ends at CAP */
		nf_free(&f, 0, CAP - 24); /* room at 0 that must not be used */
		nf_resize(&f, 2 * CAP);
		assert_int_equal(nf_alloc(&f, 10), CAP);
		assert_int_equal(nf_alloc(&f, 10), CAP + 10);
		rg_region_destroy(f.r);
	}
}

/* At the capacity with no resize: nothing at or after it, so wrap. */
static void test_cursor_at_top_wraps(void **state)
{
	struct nf f;

	for (int via = 0; via < 2; via++) {
		if (!nf_open(&f, state, via))
			continue;
		assert_int_equal(nf_alloc(&f, CAP - 24), 0);
		assert_int_equal(nf_alloc(&f, 24), CAP - 24);
		nf_free(&f, 100, 50);
		assert_int_equal(nf_alloc(&f, 10), 100);
		assert_int_equal(nf_alloc(&f, 10), 110);
		rg_region_destroy(f.r);
	}
}

/* A shrink below the cursor: the next search wraps to 0. */
static void test_cursor_cut_off_wraps(void **state)
{
	struct nf f;

	for (int via = 0; via < 2; via++) {
		if (!nf_open(&f, state, via))
			continue;
		assert_int_equal(nf_alloc(&f, 900), 0);
		nf_free(&f, 0, 900);
		nf_resize(&f, 800);
		assert_int_equal(nf_alloc(&f, 10), 0);
		assert_int_equal(nf_alloc(&f, 10), 10);
		rg_region_destroy(f.r);
	}
}

/* Shrink below the cursor and grow back, no allocation between. */
static void test_cursor_kept_across_shrink_and_grow(void **state)
{
	struct nf f;

	for (int via = 0; via < 2; via++) {
		if (!nf_open(&f, state, via))
			continue;
		assert_int_equal(nf_alloc(&f, 900), 0);
		nf_free(&f, 0, 900);
		nf_resize(&f, 800);
		nf_resize(&f, CAP);
		assert_int_equal(nf_alloc(&f, 10), 900);
		rg_region_destroy(f.r);
	}
}

/* A grow with the cursor below the old capacity changes nothing. */
static void test_grow_keeps_cursor(void **state)
{
	struct nf f;

	for (int via = 0; via < 2; via++) {
		if (!nf_open(&f, state, via))
			continue;
		assert_int_equal(nf_alloc(&f, 100), 0);
		nf_free(&f, 0, 100);
		nf_resize(&f, 4 * CAP);
		assert_int_equal(nf_alloc(&f, 10), 100);
		/* the rest up to the top, then a wrap to the room at 0 */
		assert_int_equal(nf_alloc(&f, 4 * CAP - 110), 110);
		assert_int_equal(nf_alloc(&f, 50), 0);
		rg_region_destroy(f.r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(regress_next_fit_cursor_at_capacity_grow),
		cmocka_unit_test(test_cursor_at_top_wraps),
		cmocka_unit_test(test_cursor_cut_off_wraps),
		cmocka_unit_test(test_cursor_kept_across_shrink_and_grow),
		cmocka_unit_test(test_grow_keeps_cursor),
	};

	return rg_test_run_matrix("region_next_fit", tests,
				  RGT_ARRAY_SIZE(tests), false);
}
