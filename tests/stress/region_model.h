/* SPDX-License-Identifier: MIT */
/*
 * The lockstep model of the region stress tests (stress_region.c: first
 * fit; stress_policy.c: best fit, top-down, next fit): every backend that
 * offers a policy runs the same random alloc / free / reserve operations
 * (plus bad input, test and stats calls), and every result, starts
 * included, is compared with a brute-force reference over a bool array
 * that computes the exact start the policy names. Sanitizer builds
 * validate every backend after every operation; the whole state is
 * compared unit by unit every few operations.
 */
#ifndef RG_REGION_MODEL_H
#define RG_REGION_MODEL_H

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "rg_test.h"

#include "region/region.h"

#define NB RG_REGION_NR_BACKENDS
#define MAX_CAP 4096

static struct rg_rand rng;
static unsigned long cap, used;
static bool ref[MAX_CAP];
static unsigned long prefix[MAX_CAP + 1];
static struct rg_region *rs[NB];
static enum rg_region_policy pol;
static unsigned long cursor; /* next fit: end of the last allocation */
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

static bool ref_fits(unsigned long s, unsigned long n, unsigned long mask)
{
	return !(s & mask) && s + n <= cap && prefix[s + n] == prefix[s];
}

/* The start policy pol names for (n, mask), or ~0UL if nothing fits. */
static unsigned long ref_place(unsigned long n, unsigned long mask)
{
	unsigned long s, best = ~0UL, blen = ~0UL, a, e;

	prefix[0] = 0;
	for (unsigned long i = 0; i < cap; i++)
		prefix[i + 1] = prefix[i] + ref[i];
	switch (pol) {
	case RG_REGION_TOP_DOWN:
		for (s = cap - n + 1; s-- > 0;)
			if (ref_fits(s, n, mask))
				return s;
		return ~0UL;
	case RG_REGION_BEST_FIT:
		for (a = 0; a < cap; a = e) {
			if (ref[a]) {
				e = a + 1;
				continue;
			}
			for (e = a; e < cap && !ref[e]; e++)
				;
			for (s = a; s + n <= e; s++) {
				if (!(s & mask)) {
					if (e - a < blen) {
						best = s;
						blen = e - a;
					}
					break;
				}
			}
		}
		return best;
	case RG_REGION_NEXT_FIT:
		for (s = cursor; s + n <= cap; s++)
			if (ref_fits(s, n, mask))
				return s;
		/* fall through */
	default:
		for (s = 0; s + n <= cap; s++)
			if (ref_fits(s, n, mask))
				return s;
		return ~0UL;
	}
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
	unsigned long want = ref_place(n, align ? align - 1 : 0);
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
				 "%s fit %lu (capacity %lu)",
				 rname[b], n, align, s[b],
				 rg_region_policy_name(pol), want, cap);
	ref_fill(want, n, true);
	cursor = want + n < cap ? want + n : 0;
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

/* One policy: every backend offering it, @total operations. */
static void run_policy(enum rg_region_policy p, unsigned long max_cap,
		       unsigned long total)
{
	unsigned long ops = 0, rounds = 0;
	unsigned long check_every = RG_THOROUGH ? 16 : 64;

	pol = p;
	nr = 0;
	n_alloc_ok = n_alloc_fail = n_free_ok = n_free_bad = 0;
	n_res_ok = n_res_busy = 0;
	RG_FOR_EACH_BACKEND_WITH(b, p)
		rname[nr++] = rg_region_backend_name(b);
	assert_true(nr >= 1);
	while (ops < total) {
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
			rs[b] = rg_region_create(rname[b], cap,
						 RG_REGION_POLICY(p));
			assert_non_null(rs[b]);
		}
		memset(ref, 0, sizeof(ref));
		used = 0;
		cursor = 0;
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
	printf("# %s fit: %lu operations x %d backends in %lu rounds: alloc "
	       "%lu ok %lu full; free %lu ok %lu refused; reserve %lu ok %lu "
	       "busy\n",
	       rg_region_policy_name(p), ops, nr, rounds, n_alloc_ok,
	       n_alloc_fail, n_free_ok, n_free_bad, n_res_ok, n_res_busy);
	/* Every outcome must have been exercised. */
	assert_true(n_alloc_ok > 1000 && n_alloc_fail > 1000);
	assert_true(n_free_ok > 1000 && n_free_bad > 1000);
	assert_true(n_res_ok > 1000 && n_res_busy > 1000);
}

#endif /* RG_REGION_MODEL_H */
