// SPDX-License-Identifier: MIT
/*
 * RG_REGION_CHECKED: checked frees on every backend and policy.
 *
 * A free that is not exactly one allocation (a wrong size, shorter or
 * longer; the middle, head or tail of a region; a range across two) gets
 * -EINVAL and leaves the instance as it was: every unit, the figures, and
 * the start record (the same frees are refused again, the right one
 * succeeds). A free at a free unit is -ENOENT, as without the flag.
 * Reservations, constrained requests, resize, save and load keep the
 * record: validate() checks it against the backend after every call.
 * Fault injection: creation and resize of a checked instance fail with
 * ENOMEM changing nothing. Without the flag the same frees succeed, which
 * is what the flag is for.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rg_test.h"

#include "region/region.h"

#define CAP 1000

static bool units0[CAP];

static void snapshot(struct rg_region *r, bool *units,
		     struct rg_region_stats *st)
{
	struct rg_region_stats s;

	assert_int_equal(rg_region_get_stats(r, &s), 0);
	for (unsigned long u = 0; u < s.capacity && u < CAP; u++)
		units[u] = rg_region_test(r, u) == 1;
	*st = s;
}

/* The instance is as snapshot() saw it. */
static void same(struct rg_region *r, const struct rg_region_stats *st0)
{
	struct rg_region_stats st;

	RG_ASSERT_VALID(r);
	assert_int_equal(rg_region_get_stats(r, &st), 0);
	assert_int_equal(st.capacity, st0->capacity);
	assert_int_equal(st.free_units, st0->free_units);
	assert_int_equal(st.largest_free_run, st0->largest_free_run);
	assert_int_equal(st.free_runs, st0->free_runs);
	for (unsigned long u = 0; u < st.capacity && u < CAP; u++)
		if ((rg_region_test(r, u) == 1) != units0[u])
			fail_msg("unit %lu changed by a refused free", u);
}

/* rg_region_free(r, s, n) is refused with @want and changes nothing. */
static void refused(struct rg_region *r, unsigned long s, unsigned long n,
		    int want)
{
	struct rg_region_stats st0;
	int err;

	snapshot(r, units0, &st0);
	err = rg_region_free(r, s, n);
	if (err != want)
		fail_msg("free(%lu, %lu) = %d, want %d", s, n, err, want);
	same(r, &st0);
}

static struct rg_region *create(const struct rg_test_target *tg,
				unsigned int flags)
{
	struct rg_region *r;

	assert_true(rg_region_backend_available(tg->b));
	r = rg_region_create_backend(tg->b, CAP,
				     flags | RG_REGION_POLICY(tg->p));
	assert_non_null(r);
	return r;
}

/* Allocations of 10, 20 and 30 units side by side at 100 (reserved). */
static void three(struct rg_region *r)
{
	assert_int_equal(rg_region_reserve(r, 100, 10), 0);
	assert_int_equal(rg_region_reserve(r, 110, 20), 0);
	assert_int_equal(rg_region_reserve(r, 130, 30), 0);
	RG_ASSERT_VALID(r);
}

static void test_bad_frees(void **state)
{
	const struct rg_test_target *tg = *state;

	for (unsigned int locked = 0; locked < 2; locked++) {
		struct rg_region *r =
			create(tg, RG_REGION_CHECKED |
					   (locked ? RG_REGION_LOCKED : 0));

		three(r);
		/* wrong sizes: shorter, longer into the next, longer into free */
		refused(r, 110, 19, -EINVAL);
		refused(r, 110, 21, -EINVAL);
		refused(r, 130, 31, -EINVAL);
		refused(r, 130, CAP - 130, -EINVAL);
		/* across two allocations, and across all three */
		refused(r, 110, 50, -EINVAL);
		refused(r, 100, 60, -EINVAL);
		refused(r, 105, 10, -EINVAL);
		/* the middle, the tail and the last unit of a region */
		refused(r, 115, 5, -EINVAL);
		refused(r, 120, 10, -EINVAL);
		refused(r, 129, 1, -EINVAL);
		/* a free unit at the start: nothing allocated there */
		refused(r, 160, 1, -ENOENT);
		refused(r, 99, 2, -ENOENT);
		/* out of range, as without the flag */
		refused(r, 110, 0, -EINVAL);
		refused(r, CAP, 1, -EINVAL);
		/* the right frees succeed; then the units are free */
		assert_int_equal(rg_region_free(r, 110, 20), 0);
		RG_ASSERT_VALID(r);
		refused(r, 110, 20, -ENOENT);
		refused(r, 100, 30, -EINVAL); /* 100 is allocated, 10 long */
		assert_int_equal(rg_region_free(r, 100, 10), 0);
		assert_int_equal(rg_region_free(r, 130, 30), 0);
		RG_ASSERT_VALID(r);
		rg_region_destroy(r);
	}
}

/* Without the flag, the same frees succeed: units are all that count. */
static void test_unchecked(void **state)
{
	const struct rg_test_target *tg = *state;
	struct rg_region *r = create(tg, 0);

	three(r);
	assert_int_equal(rg_region_free(r, 115, 5), 0); /* a middle */
	assert_int_equal(rg_region_free(r, 120, 20), 0); /* across two */
	assert_int_equal(rg_region_free(r, 100, 10), 0);
	assert_int_equal(rg_region_free(r, 110, 5), 0); /* the rest */
	assert_int_equal(rg_region_free(r, 140, 20), 0);
	RG_ASSERT_VALID(r);
	rg_region_destroy(r);
}

/* Allocations by every call; each is freed whole, and only whole. */
static void test_alloc_paths(void **state)
{
	const struct rg_test_target *tg = *state;
	struct rg_region *r = create(tg, RG_REGION_CHECKED);
	struct rg_region_request req = RG_REGION_REQUEST(7);
	unsigned long s[64], n[64], k = 0;
	int err;

	for (unsigned long i = 0; i < 40; i++) {
		n[k] = 1 + i % 9;
		if (i % 3 == 2) {
			req.n = n[k];
			err = rg_region_alloc_request(r, &req, &s[k]);
			if (err == -EOPNOTSUPP)
				err = rg_region_alloc(r, n[k], 0, &s[k]);
		} else {
			err = rg_region_alloc(r, n[k], i % 2 ? 4 : 0, &s[k]);
		}
		assert_int_equal(err, 0);
		RG_ASSERT_VALID(r);
		k++;
	}
	for (unsigned long i = 0; i < k; i++) {
		if (n[i] > 1) {
			refused(r, s[i], n[i] - 1, -EINVAL);
			refused(r, s[i] + 1, n[i] - 1, -EINVAL);
		}
		/* the next allocation may lie right after: across two */
		if (s[i] + n[i] < CAP && rg_region_test(r, s[i] + n[i]) == 1)
			refused(r, s[i], n[i] + 1, -EINVAL);
		assert_int_equal(rg_region_free(r, s[i], n[i]), 0);
		RG_ASSERT_VALID(r);
	}
	rg_region_destroy(r);
}

/* Resize keeps the record; bytes held count it. */
static void test_resize(void **state)
{
	const struct rg_test_target *tg = *state;
	struct rg_region *r = create(tg, RG_REGION_CHECKED), *plain;
	struct rg_region_stats st, st_plain;

	three(r);
	assert_int_equal(rg_region_resize(r, 4 * CAP), 0);
	RG_ASSERT_VALID(r);
	assert_int_equal(rg_region_reserve(r, 3000, 500), 0);
	refused(r, 3000, 499, -EINVAL);
	assert_int_equal(rg_region_free(r, 3000, 500), 0);
	assert_int_equal(rg_region_resize(r, 200), 0);
	RG_ASSERT_VALID(r);
	refused(r, 110, 21, -EINVAL);
	assert_int_equal(rg_region_resize(r, 159), -EBUSY);
	RG_ASSERT_VALID(r);
	assert_int_equal(rg_region_free(r, 110, 20), 0);
	/* the record: one bit per unit, counted in bytes held */
	plain = create(tg, 0);
	assert_int_equal(rg_region_resize(plain, 200), 0);
	assert_int_equal(rg_region_reserve(plain, 100, 10), 0);
	assert_int_equal(rg_region_reserve(plain, 130, 30), 0);
	assert_int_equal(rg_region_get_stats(r, &st), 0);
	assert_int_equal(rg_region_get_stats(plain, &st_plain), 0);
	if (tg->b != RG_REGION_MAPLE && tg->b != RG_REGION_IDA)
		assert_int_equal(st.bytes_held,
				 st_plain.bytes_held + ((200 + 63) / 64) * 8);
	rg_region_destroy(plain);
	rg_region_destroy(r);
}

/* Save and load: one allocation per saved run in a checked instance. */
static void test_save_load(void **state)
{
	const struct rg_test_target *tg = *state;
	struct rg_region *r = create(tg, RG_REGION_CHECKED), *c;
	size_t size = 0;
	void *buf;

	three(r);
	assert_int_equal(rg_region_reserve(r, 500, 5), 0);
	assert_int_equal(rg_region_save(r, NULL, &size), -ENOSPC);
	buf = malloc(size);
	assert_non_null(buf);
	assert_int_equal(rg_region_save(r, buf, &size), 0);
	RG_FOR_EACH_BACKEND(b) {
		if (!rg_region_backend_available(b))
			continue;
		c = rg_region_load(buf, size, b, RG_REGION_CHECKED);
		assert_non_null(c);
		RG_ASSERT_VALID(c);
		refused(c, 110, 20, -EINVAL); /* inside the run 100 .. 159 */
		refused(c, 500, 4, -EINVAL);
		assert_int_equal(rg_region_free(c, 500, 5), 0);
		assert_int_equal(rg_region_free(c, 100, 60), 0);
		RG_ASSERT_VALID(c);
		rg_region_destroy(c);
	}
	free(buf);
	rg_region_destroy(r);
}

/* The record's allocations fail like any other, changing nothing. */
static void test_faults(void **state)
{
	const struct rg_test_target *tg = *state;
	struct rg_region *r = NULL;
	struct rg_region_stats st0;
	unsigned long k, fired = 0;
	int err;

	RG_FAULT_LOOP(k, err,
		      RG_PTR_ERR(r = rg_region_create_backend(
					 tg->b, CAP,
					 RG_REGION_CHECKED |
						 RG_REGION_POLICY(tg->p))),
		      fired++);
	assert_int_equal(err, 0);
	assert_true(fired >= 2); /* the instance and its record */
	three(r);
	snapshot(r, units0, &st0);
	fired = 0;
	RG_FAULT_LOOP(k, err, rg_region_resize(r, 3 * CAP), {
		same(r, &st0);
		fired++;
	});
	assert_int_equal(err, 0);
	assert_true(fired >= 1);
	refused(r, 110, 21, -EINVAL);
	assert_int_equal(rg_region_free(r, 110, 20), 0);
	RG_ASSERT_VALID(r);
	rg_region_destroy(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_frees),
		cmocka_unit_test(test_unchecked),
		cmocka_unit_test(test_alloc_paths),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_faults),
	};

	return rg_test_run_matrix("region_checked", tests,
				  RGT_ARRAY_SIZE(tests), true);
}
