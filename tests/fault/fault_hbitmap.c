// SPDX-License-Identifier: MIT
/*
 * hbitmap fault injection: for n = 1, 2, ... the nth allocation attempt of
 * rg_hbitmap_create() and rg_hbitmap_resize() fails; the call must report
 * ENOMEM and leave the bitmap exactly as it was, until it succeeds without
 * the failure firing. Leaks are caught by the sanitizer build.
 */
#include <errno.h>

#include "rg_test.h"
#include "region/hbitmap.h"

static void check_valid(const struct rg_hbitmap *hb)
{
	const char *why = NULL;

	if (rg_hbitmap_validate(hb, &why)) {
		fprintf(stderr, "validate: %s\n", why);
		fail();
	}
}

static void test_create(void **state)
{
	static const uint64_t caps[] = { 1, 513, 100000, 3000000 };
	(void)state;
	for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
		unsigned long n, failures = 0;

		for (n = 1;; n++) {
			struct rg_hbitmap *hb;

			errno = 0;
			rg_fault_inject(n);
			hb = rg_hbitmap_create(caps[c]);
			if (hb && !rg_fault_fired()) {
				rg_fault_inject(0);
				check_valid(hb);
				assert_int_equal(rg_hbitmap_free_units(hb),
						 caps[c]);
				rg_hbitmap_destroy(hb);
				break;
			}
			rg_fault_inject(0);
			assert_null(hb);
			assert_int_equal(errno, ENOMEM);
			failures++;
			assert_true(n < 100);
		}
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

	for (n = 1;; n++) {
		uint64_t before = fingerprint(hb);
		int err;

		rg_fault_inject(n);
		err = rg_hbitmap_resize(hb, cap);
		if (err == 0 && !rg_fault_fired()) {
			rg_fault_inject(0);
			break;
		}
		rg_fault_inject(0);
		assert_int_equal(err, -ENOMEM);
		check_valid(hb);
		assert_int_equal(fingerprint(hb), before);
		failures++;
		assert_true(n < 100);
	}
	assert_true(failures >= 1);
	check_valid(hb);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_resize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
