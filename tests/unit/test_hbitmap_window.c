// SPDX-License-Identifier: MIT
/*
 * Unit tests of rg_hbitmap_alloc_window() called directly: every bad
 * argument with its documented error and nothing changed, and a short
 * randomized comparison with a brute-force search of every start on a
 * 3-level instance (2^22 units, so windows cut nodes at every level),
 * with and without the best-fit index, validated after every call. The
 * region-level tests (test_region_constrained, stress_region_constrained)
 * cover it through the region API as well.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "rg_test.h"

#include "region/hbitmap.h"

#define CAP (1ULL << 22)
#define NONE UINT64_MAX

static struct rg_rand rng;
static bool ref[CAP];

static void check_valid(struct rg_hbitmap *hb)
{
	const char *why = NULL;

	if (rg_hbitmap_validate(hb, &why))
		fail_msg("validate: %s", why);
}

static void test_bad_input(void **state)
{
	struct rg_hbitmap *hb = rg_hbitmap_create(1000);
	uint64_t s = 77;

	(void)state;
	assert_non_null(hb);
	assert_int_equal(rg_hbitmap_reserve(hb, 0, 10), 0);
#define BAD(n, al, mi, ma, b, p, err)                                         \
	do {                                                                  \
		assert_int_equal(                                             \
			rg_hbitmap_alloc_window(hb, n, al, mi, ma, b, p, &s), \
			err);                                                 \
		assert_int_equal(s, 77);                                      \
		assert_int_equal(rg_hbitmap_free_units(hb), 990);             \
	} while (0)
	BAD(0, 1, 0, 999, 0, RG_HBITMAP_LOWEST, -EINVAL); /* n 0 */
	BAD(1001, 1, 0, 999, 0, RG_HBITMAP_LOWEST, -EINVAL); /* n > cap */
	BAD(4, 3, 0, 999, 0, RG_HBITMAP_LOWEST, -EINVAL); /* align */
	BAD(4, 0, 0, 999, 0, RG_HBITMAP_LOWEST, -EINVAL); /* align 0 */
	BAD(4, 1, 500, 499, 0, RG_HBITMAP_LOWEST, -EINVAL); /* min > max */
	BAD(4, 1, 0, 999, 12, RG_HBITMAP_LOWEST, -EINVAL); /* boundary */
	BAD(8, 1, 0, 999, 4, RG_HBITMAP_LOWEST, -EINVAL); /* boundary < n */
	BAD(4, 1, 0, 999, 0, RG_HBITMAP_HIGHEST + 1, -EINVAL); /* place */
	BAD(4, 1, 1000, 2000, 0, RG_HBITMAP_LOWEST, -ENOSPC); /* past cap */
	BAD(4, 1, 997, 999, 0, RG_HBITMAP_LOWEST, -ENOSPC); /* short window */
	BAD(4, 1, 0, 9, 0, RG_HBITMAP_BEST, -ENOSPC); /* all taken */
	BAD(991, 1, 0, 999, 0, RG_HBITMAP_HIGHEST, -ENOSPC); /* > free */
#undef BAD
	assert_int_equal(rg_hbitmap_alloc_window(NULL, 1, 1, 0, 9, 0, 0, &s),
			 -EINVAL);
	assert_int_equal(rg_hbitmap_alloc_window(hb, 1, 1, 0, 9, 0, 0, NULL),
			 -EINVAL);
	/* max past the capacity means the last unit */
	assert_int_equal(rg_hbitmap_alloc_window(hb, 4, 1, 0, ~0ULL, 0,
						 RG_HBITMAP_HIGHEST, &s),
			 0);
	assert_int_equal(s, 996);
	check_valid(hb);
	rg_hbitmap_destroy(hb);
}

static bool fits(uint64_t s, uint64_t n, uint64_t align, uint64_t lo,
		 uint64_t hi, uint64_t b)
{
	if (s < lo || s + n - 1 > hi || s % align)
		return false;
	if (b && s / b != (s + n - 1) / b)
		return false;
	for (uint64_t u = s; u < s + n; u++)
		if (ref[u])
			return false;
	return true;
}

/* The reference answer; scans only the window (and runs' ends). */
static uint64_t ref_place(uint64_t n, uint64_t align, uint64_t lo, uint64_t hi,
			  uint64_t b, unsigned int place)
{
	uint64_t s, best = NONE, blen = NONE, a, e;

	if (place == RG_HBITMAP_HIGHEST) {
		for (s = hi - n + 2; s-- > lo;)
			if (fits(s, n, align, lo, hi, b))
				return s;
		return NONE;
	}
	for (s = lo; s + n - 1 <= hi; s++) {
		if (!fits(s, n, align, lo, hi, b))
			continue;
		if (place == RG_HBITMAP_LOWEST)
			return s;
		for (a = s; a > 0 && !ref[a - 1]; a--)
			;
		for (e = s; e < CAP && !ref[e]; e++)
			;
		if (e - a < blen) {
			best = s;
			blen = e - a;
		}
		s = e;
	}
	return best;
}

static void run(unsigned int flags, unsigned long calls)
{
	struct rg_hbitmap *hb = rg_hbitmap_create_flags(CAP, flags);
	uint64_t s;

	assert_non_null(hb);
	memset(ref, 0, sizeof(ref));
	/* many runs: reserve random pieces over a third of the units */
	for (int i = 0; i < 6000; i++) {
		uint64_t a = rg_rand_below(&rng, CAP - 2000);
		uint64_t n = rg_rand_range(&rng, 1, 1500);
		bool ok = true;

		for (uint64_t u = a; u < a + n && ok; u++)
			ok = !ref[u];
		if (!ok)
			continue;
		assert_int_equal(rg_hbitmap_reserve(hb, a, n), 0);
		memset(ref + a, 1, n);
	}
	for (unsigned long c = 0; c < calls; c++) {
		uint64_t n = rg_rand_range(&rng, 1, 300), align = 1, b = 0, lo,
			 hi, want;
		unsigned int place = (unsigned int)rg_rand_below(&rng, 3);
		int err;

		if (rg_rand_below(&rng, 2))
			align = 1ULL << rg_rand_below(&rng, 7);
		if (rg_rand_below(&rng, 2)) {
			b = 512;
			while (b < n)
				b <<= 1;
		}
		lo = rg_rand_below(&rng, CAP - 400);
		hi = lo + n - 1 + rg_rand_below(&rng, 40000);
		if (hi >= CAP)
			hi = CAP - 1;
		want = ref_place(n, align, lo, hi, b, place);
		err = rg_hbitmap_alloc_window(hb, n, align, lo, hi, b, place,
					      &s);
		if (want == NONE) {
			assert_int_equal(err, -ENOSPC);
		} else {
			if (err || s != want)
				fail_msg("place %u n %llu align %llu [%llu, "
					 "%llu] boundary %llu: %d at %llu, "
					 "want %llu",
					 place, (unsigned long long)n,
					 (unsigned long long)align,
					 (unsigned long long)lo,
					 (unsigned long long)hi,
					 (unsigned long long)b, err,
					 (unsigned long long)s,
					 (unsigned long long)want);
			memset(ref + s, 1, n);
		}
		if (rg_rand_below(&rng, 3) == 0) { /* free a random piece */
			uint64_t a = rg_rand_below(&rng, CAP - 64), k = 0;

			while (a + k < CAP && ref[a + k] && k < 64)
				k++;
			if (k) {
				assert_int_equal(rg_hbitmap_free(hb, a, k), 0);
				memset(ref + a, 0, k);
			}
		}
		if (c % 16 == 0 || RG_THOROUGH)
			check_valid(hb);
	}
	check_valid(hb);
	rg_hbitmap_destroy(hb);
}

static void test_random(void **state)
{
	(void)state;
	run(0, RG_THOROUGH ? 300 : 3000);
	run(RG_HBITMAP_BEST_FIT, RG_THOROUGH ? 300 : 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_random),
	};

	rg_rand_seed(&rng, rg_test_seed());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
