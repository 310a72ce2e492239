// SPDX-License-Identifier: MIT
/*
 * hbitmap fault injection: for n = 1, 2, ... the nth allocation attempt of
 * rg_hbitmap_create(), rg_hbitmap_create_flags() and rg_hbitmap_resize()
 * fails; the call must report ENOMEM and leave the bitmap exactly as it
 * was, until it succeeds without the failure firing. On a best-fit
 * instance, a random churn runs with a failure armed before every call, so
 * that every growth of the index's pool and table fails at some point:
 * frees, reservations and first-fit allocations must never fail for it,
 * a best-fit allocation only with -ENOMEM and no change, every result must
 * be the exact best fit, and the instance must validate after every call.
 * Leaks are caught by the sanitizer build.
 */
#include <errno.h>
#include <string.h>

#include "rg_test.h"
#include "region/hbitmap.h"

static void test_create(void **state)
{
	static const uint64_t caps[] = { 1, 513, 100000, 3000000 };
	(void)state;
	for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
		unsigned long n, failures = 0;
		struct rg_hbitmap *hb;
		int err;

		RG_FAULT_LOOP(n, err,
			      RG_PTR_ERR(hb = rg_hbitmap_create(caps[c])),
			      failures++);
		assert_int_equal(err, 0);
		RG_ASSERT_VALID(hb);
		assert_int_equal(rg_hbitmap_free_units(hb), caps[c]);
		rg_hbitmap_destroy(hb);
		/* every allocation point was made to fail once */
		assert_true(failures >= 2);
	}
}

/* Snapshot of the observable state, to prove a failed call changed none. */
static uint64_t fingerprint(const struct rg_hbitmap *hb)
{
	uint64_t h = rg_hbitmap_capacity(hb) * 31 + rg_hbitmap_free_units(hb);

	for (uint64_t u = 0; u < rg_hbitmap_capacity(hb); u++)
		h = h * 1000003 + (uint64_t)rg_hbitmap_test(hb, u);
	return h * 7 + rg_hbitmap_largest_free_run(hb);
}

static void resize_loop(struct rg_hbitmap *hb, uint64_t cap)
{
	unsigned long n, failures = 0;

	uint64_t before = fingerprint(hb);
	int err;

	RG_FAULT_LOOP(n, err, rg_hbitmap_resize(hb, cap), {
		RG_ASSERT_VALID(hb);
		assert_int_equal(fingerprint(hb), before);
		failures++;
	});
	assert_int_equal(err, 0);
	assert_true(failures >= 1);
	RG_ASSERT_VALID(hb);
	assert_int_equal(rg_hbitmap_capacity(hb), cap);
}

static void test_resize(void **state)
{
	struct rg_hbitmap *hb = rg_hbitmap_create(5000);
	struct rg_rand r;
	uint64_t s;

	(void)state;
	assert_non_null(hb);
	rg_rand_seed(&r, rg_test_seed());
	for (int i = 0; i < 300; i++)
		(void)rg_hbitmap_alloc(hb, rg_rand_range(&r, 1, 20), 1, &s);
	for (int i = 0; i < 100; i++)
		(void)rg_hbitmap_free(hb, rg_rand_below(&r, 4000), 1);
	resize_loop(hb, 70000); /* grow */
	assert_int_equal(rg_hbitmap_alloc(hb, 60000, 1, &s), 0);
	assert_int_equal(rg_hbitmap_free(hb, s, 60000), 0);
	resize_loop(hb, 4500); /* shrink */
	assert_int_equal(rg_hbitmap_resize(hb, 100), -EBUSY);
	rg_hbitmap_destroy(hb);
}

static void test_create_best(void **state)
{
	unsigned long n, failures = 0;
	struct rg_hbitmap *hb;
	int err;

	(void)state;
	RG_FAULT_LOOP(n, err,
		      RG_PTR_ERR(hb = rg_hbitmap_create_flags(
					 100000, RG_HBITMAP_BEST_FIT)),
		      failures++);
	assert_int_equal(err, 0);
	RG_ASSERT_VALID(hb);
	rg_hbitmap_destroy(hb);
	/* handle, bitmap, index, its pool and its table */
	assert_true(failures >= 5);
}

/*
 * A resize drops the best-fit index; the next best fit rebuilds it for the
 * new capacity, allocating: every allocation there fails once.
 */
static void test_best_resize(void **state)
{
	struct rg_hbitmap *hb =
		rg_hbitmap_create_flags(5000, RG_HBITMAP_BEST_FIT);
	unsigned long n, failures = 0;
	uint64_t s, before;
	int err;

	(void)state;
	assert_non_null(hb);
	for (uint64_t u = 0; u < 5000; u += 100)
		assert_int_equal(rg_hbitmap_reserve(hb, u, 30), 0);
	assert_int_equal(rg_hbitmap_resize(hb, 70000), 0);
	before = fingerprint(hb);
	RG_FAULT_LOOP(n, err, rg_hbitmap_alloc_best(hb, 70, 1, &s),
		      assert_int_equal(fingerprint(hb), before);
		      RG_ASSERT_VALID(hb); failures++; assert_true(n < 100));
	assert_int_equal(err, 0);
	RG_ASSERT_VALID(hb);
	/* the best fit: the first gap between the stripes, 70 units */
	assert_int_equal(s, 30);
	assert_true(failures >= 1);
	rg_hbitmap_destroy(hb);
}

#define BCAP 8000
static bool used[BCAP];

/* Exact best fit over the mirror, or UINT64_MAX. */
static uint64_t ref_best(uint64_t n, uint64_t mask)
{
	uint64_t best = UINT64_MAX, blen = UINT64_MAX, a, e, s;

	for (a = 0; a < BCAP; a = e + 1) {
		for (e = a; e < BCAP && !used[e]; e++)
			;
		s = (a + mask) & ~mask;
		if (e > a && s + n <= e && e - a < blen) {
			best = s;
			blen = e - a;
		}
	}
	return best;
}

static void mirror(uint64_t s, uint64_t n, bool v)
{
	for (uint64_t i = s; i < s + n; i++)
		used[i] = v;
}

static bool mirror_is(uint64_t s, uint64_t n, bool v)
{
	for (uint64_t i = s; i < s + n; i++)
		if (used[i] != v)
			return false;
	return true;
}

static void test_best_churn(void **state)
{
	struct rg_hbitmap *hb =
		rg_hbitmap_create_flags(BCAP, RG_HBITMAP_BEST_FIT);
	unsigned long enomem = 0, armed_frees = 0, ok = 0;
	size_t bytes0;
	struct rg_rand r;

	(void)state;
	assert_non_null(hb);
	bytes0 = rg_hbitmap_bytes(hb);
	memset(used, 0, sizeof(used));
	rg_rand_seed(&r, rg_test_seed());
	/*
	 * Stripes: one unit in 66 reserved, failures armed. Only runs of 64
	 * units or more take index nodes, and these are more than its first
	 * pool holds: it must grow, and growing fails, so the index is
	 * dropped and the first best fit below must rebuild it.
	 */
	for (uint64_t u = 65; u < BCAP; u += 66) {
		rg_fault_inject(1);
		assert_int_equal(rg_hbitmap_reserve(hb, u, 1), 0);
		rg_fault_inject(0);
		mirror(u, 1, true);
		RG_ASSERT_VALID(hb);
	}
	{
		uint64_t before = fingerprint(hb), s;

		rg_fault_inject(1);
		assert_int_equal(rg_hbitmap_alloc_best(hb, 1, 1, &s), -ENOMEM);
		rg_fault_inject(0);
		assert_int_equal(fingerprint(hb), before);
		RG_ASSERT_VALID(hb);
		enomem++;
	}
	for (int i = 0; i < 40000; i++) {
		unsigned k = (unsigned)rg_rand_below(&r, 10);
		uint64_t n = rg_rand_range(&r, 1, 12), s = 0, want, before;
		uint64_t align = 1ull << rg_rand_below(&r, 3);
		int err;

		rg_fault_inject(rg_rand_range(&r, 1, 3));
		if (k < 4) {
			want = ref_best(n, align - 1);
			before = fingerprint(hb);
			err = rg_hbitmap_alloc_best(hb, n, align, &s);
			if (err == -ENOMEM) {
				assert_true(rg_fault_fired());
				assert_int_equal(fingerprint(hb), before);
				enomem++;
			} else if (want == UINT64_MAX) {
				assert_int_equal(err, -ENOSPC);
			} else {
				assert_int_equal(err, 0);
				assert_int_equal(s, want);
				mirror(s, n, true);
				ok++;
			}
		} else if (k < 8) {
			s = rg_rand_below(&r, BCAP - n);
			err = rg_hbitmap_free(hb, s, n);
			assert_int_equal(err,
					 mirror_is(s, n, true) ? 0 : -ENOENT);
			if (!err) {
				mirror(s, n, false);
				armed_frees++;
			}
		} else if (k < 9) {
			s = rg_rand_below(&r, BCAP - n);
			err = rg_hbitmap_reserve(hb, s, n);
			assert_int_equal(err,
					 mirror_is(s, n, false) ? 0 : -EBUSY);
			if (!err)
				mirror(s, n, true);
		} else {
			err = rg_hbitmap_alloc(hb, n, align, &s);
			if (!err) {
				assert_true(mirror_is(s, n, false));
				mirror(s, n, true);
			} else {
				assert_int_equal(err, -ENOSPC);
			}
		}
		rg_fault_inject(0);
		RG_ASSERT_VALID(hb);
	}
	printf("# best fit under faults: %lu allocations, %lu -ENOMEM, %lu "
	       "frees, %zu -> %zu bytes\n",
	       ok, enomem, armed_frees, bytes0, rg_hbitmap_bytes(hb));
	assert_true(enomem > 0 && ok > 1000 && armed_frees > 1000);
	rg_hbitmap_destroy(hb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_create_best),
		cmocka_unit_test(test_best_churn),
		cmocka_unit_test(test_best_resize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
