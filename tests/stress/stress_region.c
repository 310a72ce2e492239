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
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "rg_test.h"

#include "region/region.h"

#define NB RG_REGION_NR_BACKENDS
#define TOTAL_OPS 1000000UL
#define MAX_CAP 4096

static struct rg_rand rng;
static unsigned long cap, used;
static bool ref[MAX_CAP];
static unsigned long prefix[MAX_CAP + 1];
static struct rg_region *rs[NB];
static const char *rname[NB];
static int nr;
static unsigned long n_alloc_ok, n_alloc_fail, n_free_ok, n_free_bad, n_res_ok,
	n_res_busy;

static void check_valid_all(void)
{
	for (int b = 0; b < nr; b++) {
		RG_ASSERT_VALIDF(rs[b], "%s", rname[b]);
	}
}

static void compare_state(void)
{
	for (int b = 0; b < nr; b++)
		for (unsigned long u = 0; u < cap; u++)
			if (rg_region_test(rs[b], u) != (int)ref[u])
				fail_msg("%s: unit %lu of %lu: test %d, "
					 "reference %d",
					 rname[b], u, cap,
					 rg_region_test(rs[b], u), ref[u]);
}

static void ref_fill(unsigned long s, unsigned long n, bool v)
{
	for (unsigned long i = s; i < s + n; i++)
		ref[i] = v;
	if (v)
		used += n;
	else
		used -= n;
}

static bool ref_all(unsigned long s, unsigned long n, bool v)
{
	for (unsigned long i = s; i < s + n; i++)
		if (ref[i] != v)
			return false;
	return true;
}

/* Lowest s with (s & mask) == 0 and s .. s + n - 1 free, or ~0UL. */
static unsigned long ref_first_fit(unsigned long n, unsigned long mask)
{
	prefix[0] = 0;
	for (unsigned long i = 0; i < cap; i++)
		prefix[i + 1] = prefix[i] + ref[i];
	for (unsigned long s = 0; s + n <= cap; s++)
		if (!(s & mask) && prefix[s + n] == prefix[s])
			return s;
	return ~0UL;
}

static unsigned long ref_largest(void)
{
	unsigned long run = 0, best = 0;

	for (unsigned long i = 0; i < cap; i++) {
		run = ref[i] ? 0 : run + 1;
		best = run > best ? run : best;
	}
	return best;
}

static void expect_all(const char *what, int rets[NB], int want)
{
	for (int b = 0; b < nr; b++)
		if (rets[b] != want)
			fail_msg("%s: %s returned %d, want %d (capacity %lu, "
				 "used %lu)",
				 rname[b], what, rets[b], want, cap, used);
}

static unsigned long rand_size(void)
{
	unsigned long max = cap;

	switch (rg_rand_below(&rng, 10)) {
	case 0:
		break;
	case 1:
	case 2:
		max = cap / 4 + 1;
		break;
	default:
		max = cap / 32 + 4;
	}
	return rg_rand_range(&rng, 1, max < cap ? max : cap);
}

static unsigned long rand_align(void)
{
	switch (rg_rand_below(&rng, 20)) {
	case 0:
		return 1UL << rg_rand_range(&rng, 10, 62);
	case 1:
		return 1;
	case 2:
	case 3:
	case 4:
	case 5:
	case 6:
	case 7:
	case 8:
		return 1UL << rg_rand_range(&rng, 1, 6);
	default:
		return 0;
	}
}

static void op_alloc(void)
{
	unsigned long n = rand_size(), align = rand_align();
	unsigned long want = ref_first_fit(n, align ? align - 1 : 0);
	unsigned long s[NB];
	int rets[NB];

	for (int b = 0; b < nr; b++) {
		s[b] = 12345;
		rets[b] = rg_region_alloc(rs[b], n, align, &s[b]);
	}
	if (want == ~0UL) {
		expect_all("alloc", rets, -ENOSPC);
		for (int b = 0; b < nr; b++)
			assert_int_equal(s[b], 12345);
		n_alloc_fail++;
		return;
	}
	expect_all("alloc", rets, 0);
	for (int b = 0; b < nr; b++)
		if (s[b] != want)
			fail_msg("%s: alloc(%lu, align %lu) at %lu, reference "
				 "first fit %lu (capacity %lu)",
				 rname[b], n, align, s[b], want, cap);
	ref_fill(want, n, true);
	n_alloc_ok++;
}

/* Free a random piece of the allocated run around a random used unit. */
static void op_free_good(void)
{
	unsigned long u, lo, hi, s, n;
	int rets[NB];

	if (!used)
		return;
	do
		u = rg_rand_below(&rng, cap);
	while (!ref[u]);
	lo = u;
	hi = u + 1;
	while (lo > 0 && ref[lo - 1])
		lo--;
	while (hi < cap && ref[hi])
		hi++;
	s = rg_rand_range(&rng, lo, u);
	n = rg_rand_range(&rng, u + 1, hi) - s;
	if (rg_rand_below(&rng, 3) == 0) { /* the whole run */
		s = lo;
		n = hi - lo;
	}
	for (int b = 0; b < nr; b++)
		rets[b] = rg_region_free(rs[b], s, n);
	expect_all("free", rets, 0);
	ref_fill(s, n, false);
	n_free_ok++;
}

/* Free or reserve a random range: succeeds only if the reference says so. */
static void op_random_range(bool reserve)
{
	unsigned long s = rg_rand_below(&rng, cap);
	unsigned long n = rg_rand_range(&rng, 1, cap - s);
	int rets[NB], want;

	if (rg_rand_below(&rng, 2))
		n = rg_rand_range(&rng, 1, n < 16 ? n : 16);
	if (reserve)
		want = ref_all(s, n, false) ? 0 : -EBUSY;
	else
		want = ref_all(s, n, true) ? 0 : -ENOENT;
	for (int b = 0; b < nr; b++)
		rets[b] = reserve ? rg_region_reserve(rs[b], s, n) :
				    rg_region_free(rs[b], s, n);
	expect_all(reserve ? "reserve" : "free", rets, want);
	if (!want)
		ref_fill(s, n, reserve);
	if (reserve)
		want ? n_res_busy++ : n_res_ok++;
	else if (want)
		n_free_bad++;
	else
		n_free_ok++;
}

static void op_bad_input(void)
{
	unsigned long s = 99, big = rg_rand_range(&rng, cap + 1, ~0UL);
	int rets[NB];

	for (int b = 0; b < nr; b++) {
		switch (rg_rand_below(&rng, 6)) {
		case 0:
			rets[b] = rg_region_alloc(rs[b], 0, 0, &s);
			break;
		case 1:
			rets[b] = rg_region_alloc(rs[b], big, 0, &s);
			break;
		case 2:
			rets[b] = rg_region_alloc(rs[b], 1,
						  3 + 2 * (big & 0xffff), &s);
			break;
		case 3:
			rets[b] = rg_region_free(rs[b], big - 1,
						 rg_rand_range(&rng, 1, 10));
			break;
		case 4:
			rets[b] = rg_region_reserve(
				rs[b], rg_rand_below(&rng, cap), ~0UL);
			break;
		default:
			rets[b] = rg_region_free(rs[b],
						 rg_rand_below(&rng, cap), 0);
		}
		assert_int_equal(s, 99);
	}
	expect_all("bad input", rets, -EINVAL);
	for (int b = 0; b < nr; b++)
		assert_int_equal(rg_region_test(rs[b], cap + (big & 7)),
				 -EINVAL);
}

static void op_query(void)
{
	unsigned long u = rg_rand_below(&rng, cap);
	struct rg_region_stats st;
	bool full = rg_rand_below(&rng, 8) == 0;
	unsigned long largest = full ? ref_largest() : 0;

	for (int b = 0; b < nr; b++) {
		assert_int_equal(rg_region_test(rs[b], u), ref[u]);
		if (!full)
			continue;
		assert_int_equal(rg_region_get_stats(rs[b], &st), 0);
		assert_int_equal(st.capacity, cap);
		assert_int_equal(st.free_units, cap - used);
		if (st.largest_free_run != largest)
			fail_msg("%s: largest free run %lu, reference %lu",
				 rname[b], st.largest_free_run, largest);
		assert_true(st.bytes_held_peak >= st.bytes_held);
	}
}

static void test_lockstep(void **state)
{
	unsigned long ops = 0, rounds = 0;
	unsigned long max_cap = RG_THOROUGH ? 256 : MAX_CAP;
	unsigned long check_every = RG_THOROUGH ? 16 : 64;

	(void)state;
	rg_rand_seed(&rng, rg_test_seed());
	for (unsigned int b = 0; b < NB; b++) {
		if (!rg_region_backend_available((enum rg_region_backend)b)) {
			printf("# backend %s is not in this build: skipped\n",
			       rg_region_backend_name(
				       (enum rg_region_backend)b));
			continue;
		}
		rname[nr++] = rg_region_backend_name((enum rg_region_backend)b);
	}
	while (ops < TOTAL_OPS) {
		unsigned long target = rg_rand_range(&rng, 20, 99);
		unsigned long round_ops = rg_rand_range(&rng, 200, 5000);

		switch (rg_rand_below(&rng, 4)) {
		case 0:
			cap = rg_rand_range(&rng, 1, 70);
			break;
		case 1:
			cap = rg_rand_range(&rng, 1, max_cap);
			break;
		default:
			cap = rg_rand_range(&rng, max_cap / 8, max_cap);
		}
		for (int b = 0; b < nr; b++) {
			rs[b] = rg_region_create(rname[b], cap, 0);
			assert_non_null(rs[b]);
		}
		memset(ref, 0, sizeof(ref));
		used = 0;
		for (unsigned long k = 0; k < round_ops; k++, ops++) {
			unsigned int r = (unsigned int)rg_rand_below(&rng, 100);
			bool below = used * 100 < target * cap;

			if (r < (below ? 50u : 20u))
				op_alloc();
			else if (r < 75)
				op_free_good();
			else if (r < 82)
				op_random_range(false);
			else if (r < 90)
				op_random_range(true);
			else if (r < 93)
				op_bad_input();
			else
				op_query();
			if (RG_THOROUGH)
				check_valid_all();
			if (k % check_every == 0)
				compare_state();
		}
		compare_state();
		check_valid_all();
		for (int b = 0; b < nr; b++)
			rg_region_destroy(rs[b]);
		rounds++;
	}
	printf("# %lu operations x %d backends in %lu rounds: alloc %lu ok "
	       "%lu full; free %lu ok %lu refused; reserve %lu ok %lu busy\n",
	       ops, nr, rounds, n_alloc_ok, n_alloc_fail, n_free_ok, n_free_bad,
	       n_res_ok, n_res_busy);
	/* Every outcome must have been exercised. */
	assert_true(n_alloc_ok > 1000 && n_alloc_fail > 1000);
	assert_true(n_free_ok > 1000 && n_free_bad > 1000);
	assert_true(n_res_ok > 1000 && n_res_busy > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lockstep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
