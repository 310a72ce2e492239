// SPDX-License-Identifier: MIT
/*
 * Randomized lockstep test of constrained allocation and resize: for each
 * instance policy, every backend that offers it runs the same sequence of
 * rg_region_alloc_request() calls (random windows, alignments, boundaries
 * and per-call policies), plain allocations, frees, reservations, resizes
 * and bad requests, beside a brute-force reference over a bool array that
 * tries every start: the lowest, highest or best start meeting the request,
 * or next fit from the shared cursor. A backend that does not answer a
 * policy must say -EOPNOTSUPP and change nothing; every other one must
 * return the reference's start (or -ENOSPC, -EBUSY). Every backend is
 * validated after every mutation, and the whole state is compared unit by
 * unit every few operations. More than 10^6 backend operations in all in
 * optimised builds; sanitizer builds (RG_TEST_THOROUGH) run fewer.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "rg_test.h"

#include "region/region.h"

#define NB RG_REGION_NR_BACKENDS
#define MAX_CAP 1536
/* Wide runs: hbitmap's upper levels (a level-0 node covers 32768 units). */
#define WIDE_CAP 2200000
#define NONE (~0UL)

static struct rg_rand rng;
static unsigned long cap, cap_max, cursor;
static bool ref[WIDE_CAP];
static unsigned long prefix[WIDE_CAP + 1];
static struct rg_region *rs[NB];
static enum rg_region_backend rb[NB];
static int nr;
static enum rg_region_policy ipol; /* the instances' policy */
static unsigned long n_ops, n_req_ok, n_req_nospc, n_unsupported, n_resize;

/* Policies each backend answers in requests (next comes with first). */
static bool answers(enum rg_region_backend b, enum rg_region_policy p)
{
	switch (b) {
	case RG_REGION_IDA:
		return p == RG_REGION_FIRST_FIT || p == RG_REGION_NEXT_FIT;
	case RG_REGION_MAPLE:
		return p != RG_REGION_BEST_FIT;
	default:
		return true;
	}
}

static void validate_all(void)
{
	for (int b = 0; b < nr; b++)
		RG_ASSERT_VALIDF(rs[b], "%s", rg_region_backend_name(rb[b]));
}

static void compare_state(void)
{
	struct rg_region_stats st;
	unsigned long free_units = 0;

	for (unsigned long u = 0; u < cap; u++)
		free_units += !ref[u];
	for (int b = 0; b < nr; b++) {
		assert_int_equal(rg_region_get_stats(rs[b], &st), 0);
		assert_int_equal(st.capacity, cap);
		assert_int_equal(st.free_units, free_units);
		for (unsigned long u = 0; u < cap; u++)
			if (rg_region_test(rs[b], u) != (int)ref[u])
				fail_msg("%s: unit %lu of %lu differs",
					 rg_region_backend_name(rb[b]), u, cap);
		assert_int_equal(rg_region_test(rs[b], cap), -EINVAL);
	}
}

static void ref_prefix(void)
{
	prefix[0] = 0;
	for (unsigned long i = 0; i < cap; i++)
		prefix[i + 1] = prefix[i] + ref[i];
}

/* Does start s meet the request (all of it, by brute force)? */
static bool ref_ok(const struct rg_region_request *q, unsigned long lo,
		   unsigned long hi, unsigned long s)
{
	unsigned long n = q->n;

	if (s < lo || s + n - 1 > hi)
		return false;
	if (q->align > 1 && s % q->align)
		return false;
	if (q->boundary && s / q->boundary != (s + n - 1) / q->boundary)
		return false;
	return prefix[s + n] == prefix[s];
}

/* The start the request names, or NONE; moves no cursor. */
static unsigned long ref_place(const struct rg_region_request *q,
			       enum rg_region_policy p)
{
	unsigned long lo = q->lo, hi = q->hi == RG_REGION_END ? cap - 1 : q->hi;
	unsigned long s, best = NONE, blen = NONE, a, e;

	ref_prefix();
	if (q->n - 1 > hi - lo)
		return NONE;
	switch (p) {
	case RG_REGION_TOP_DOWN:
		for (s = hi - q->n + 2; s-- > lo;)
			if (ref_ok(q, lo, hi, s))
				return s;
		return NONE;
	case RG_REGION_BEST_FIT:
		for (s = lo; s + q->n - 1 <= hi; s++) {
			if (!ref_ok(q, lo, hi, s))
				continue;
			for (a = s; a > 0 && !ref[a - 1]; a--)
				;
			for (e = s; e < cap && !ref[e]; e++)
				;
			if (e - a < blen) {
				best = s;
				blen = e - a;
			}
			s = e; /* the lowest start of each run only */
		}
		return best;
	case RG_REGION_NEXT_FIT:
		for (s = cursor > lo ? cursor : lo; s + q->n - 1 <= hi; s++)
			if (ref_ok(q, lo, hi, s))
				return s;
		/* fall through */
	default:
		for (s = lo; s + q->n - 1 <= hi; s++)
			if (ref_ok(q, lo, hi, s))
				return s;
		return NONE;
	}
}

static void ref_set(unsigned long s, unsigned long n, bool v)
{
	for (unsigned long i = s; i < s + n; i++)
		ref[i] = v;
}

static unsigned long rand_n(void)
{
	switch (rg_rand_below(&rng, 10)) {
	case 0:
		return rg_rand_range(&rng, 1, cap / 4 + 1);
	case 1:
	case 2:
		return rg_rand_range(&rng, 17, 64);
	default:
		return rg_rand_range(&rng, 1, 16);
	}
}

static unsigned long rand_pow2(unsigned long lo_bits, unsigned long hi_bits)
{
	return 1UL << rg_rand_range(&rng, lo_bits, hi_bits);
}

static void rand_request(struct rg_region_request *q)
{
	unsigned long k;

	*q = RG_REGION_REQUEST(rand_n());
	if (q->n > cap)
		q->n = cap;
	k = rg_rand_below(&rng, 8);
	/* up to 2^13: past the extent backend's exact classes (2^11) */
	q->align = k < 3 ? 0 : k < 4 ? 1 : rand_pow2(1, k < 7 ? 4 : 13);
	if (rg_rand_below(&rng, 10) < 7) {
		q->lo = rg_rand_below(&rng, cap);
		q->hi = rg_rand_range(&rng, q->lo, cap - 1);
		if (rg_rand_below(&rng, 4) == 0)
			q->hi = RG_REGION_END;
		if (rg_rand_below(&rng, 3) == 0) {
			/* tight: the window cuts the runs around it */
			q->hi = q->lo + q->n - 1 +
				rg_rand_below(&rng, 2 * q->n + 2);
			if (q->hi >= cap)
				q->hi = cap - 1;
		}
	}
	if (rg_rand_below(&rng, 2)) {
		unsigned long b = 1;

		while (b < q->n)
			b <<= 1;
		q->boundary = b << rg_rand_below(&rng, 4);
	}
	k = rg_rand_below(&rng, 6);
	q->policy = k == 5 ? RG_REGION_INSTANCE_POLICY : (int)(k % 4);
}

static void op_request(void)
{
	struct rg_region_request q;
	enum rg_region_policy p;
	unsigned long want, s[NB];
	int ret;

	rand_request(&q);
	p = q.policy == RG_REGION_INSTANCE_POLICY ?
		    ipol :
		    (enum rg_region_policy)q.policy;
	for (int b = 0; b < nr; b++) {
		if (answers(rb[b], p))
			continue;
		/* a probe: the members that answer do not run it */
		for (b = 0; b < nr; b++) {
			if (answers(rb[b], p))
				continue;
			s[b] = 4242;
			ret = rg_region_alloc_request(rs[b], &q, &s[b]);
			if (ret != -EOPNOTSUPP)
				fail_msg("%s: policy %s: %d, want -EOPNOTSUPP",
					 rg_region_backend_name(rb[b]),
					 rg_region_policy_name(p), ret);
			assert_int_equal(s[b], 4242);
			n_unsupported++;
		}
		return;
	}
	want = ref_place(&q, p);
	for (int b = 0; b < nr; b++) {
		s[b] = 4242;
		ret = rg_region_alloc_request(rs[b], &q, &s[b]);
		if (want == NONE) {
			if (ret != -ENOSPC)
				fail_msg("%s: %s n %lu align %lu [%lu, %lu] "
					 "boundary %lu: %d at %lu, want "
					 "-ENOSPC",
					 rg_region_backend_name(rb[b]),
					 rg_region_policy_name(p), q.n, q.align,
					 q.lo, q.hi, q.boundary, ret, s[b]);
		} else if (ret || s[b] != want) {
			fail_msg("%s: %s n %lu align %lu [%lu, %lu] boundary "
				 "%lu cursor %lu: %d at %lu, want %lu",
				 rg_region_backend_name(rb[b]),
				 rg_region_policy_name(p), q.n, q.align, q.lo,
				 q.hi, q.boundary, cursor, ret, s[b], want);
		}
		if (ret)
			assert_int_equal(s[b], 4242);
		n_ops++;
	}
	if (want != NONE) {
		ref_set(want, q.n, true);
		if (p == RG_REGION_NEXT_FIT)
			cursor = want + q.n; /* may be cap: wraps */
		n_req_ok++;
	} else {
		n_req_nospc++;
	}
	validate_all();
}

/* A plain rg_region_alloc(): the same as a request of the defaults. */
static void op_alloc(void)
{
	struct rg_region_request q = RG_REGION_REQUEST(rand_n());
	unsigned long want, s[NB];
	int ret;

	if (q.n > cap)
		q.n = cap;
	q.align = rg_rand_below(&rng, 3) ? 0 : rand_pow2(1, 4);
	want = ref_place(&q, ipol);
	for (int b = 0; b < nr; b++) {
		ret = rg_region_alloc(rs[b], q.n, q.align, &s[b]);
		if (want == NONE)
			assert_int_equal(ret, -ENOSPC);
		else if (ret || s[b] != want)
			fail_msg("%s: alloc %lu/%lu: %d at %lu, want %lu",
				 rg_region_backend_name(rb[b]), q.n, q.align,
				 ret, s[b], want);
		n_ops++;
	}
	if (want != NONE) {
		ref_set(want, q.n, true);
		if (ipol == RG_REGION_NEXT_FIT)
			cursor = want + q.n; /* may be cap: wraps */
	}
	validate_all();
}

/* Free an allocated range (mostly), or a range with a free unit. */
static void op_free(void)
{
	unsigned long a = rg_rand_below(&rng, cap), n = 1;
	bool ok;
	int ret;

	while (a < cap && !ref[a])
		a++;
	if (a == cap)
		return;
	while (a + n < cap && ref[a + n] && n < 40)
		n++;
	n = rg_rand_range(&rng, 1, n);
	if (rg_rand_below(&rng, 20) == 0 && a + n < cap)
		n++; /* may take in a free unit */
	ok = true;
	for (unsigned long i = a; i < a + n; i++)
		ok &= ref[i];
	for (int b = 0; b < nr; b++) {
		ret = rg_region_free(rs[b], a, n);
		assert_int_equal(ret, ok ? 0 : -ENOENT);
		n_ops++;
	}
	if (ok)
		ref_set(a, n, false);
	validate_all();
}

static void op_reserve(void)
{
	unsigned long a = rg_rand_below(&rng, cap);
	unsigned long n = rg_rand_range(&rng, 1, cap - a < 8 ? cap - a : 8);
	bool ok = true;
	int ret;

	for (unsigned long i = a; i < a + n; i++)
		ok &= !ref[i];
	for (int b = 0; b < nr; b++) {
		ret = rg_region_reserve(rs[b], a, n);
		assert_int_equal(ret, ok ? 0 : -EBUSY);
		n_ops++;
	}
	if (ok)
		ref_set(a, n, true);
	validate_all();
}

static void op_resize(void)
{
	unsigned long nc, top = cap;
	bool ok = true;

	while (top > 0 && !ref[top - 1])
		top--; /* units from top on are free */
	switch (rg_rand_below(&rng, 3)) {
	case 0: /* grow */
		nc = rg_rand_range(&rng, cap, cap_max);
		break;
	case 1: /* shrink over free units */
		nc = rg_rand_range(&rng, top > 64 ? top : 64, cap);
		break;
	default:
		nc = rg_rand_range(&rng, 64, cap_max);
	}
	int ret;

	for (unsigned long i = nc; i < cap; i++)
		ok &= !ref[i];
	for (int b = 0; b < nr; b++) {
		ret = rg_region_resize(rs[b], nc);
		assert_int_equal(ret, ok ? 0 : -EBUSY);
		n_ops++;
	}
	if (ok) {
		for (unsigned long i = cap; i < nc; i++)
			ref[i] = false;
		cap = nc; /* the cursor stays: a search wraps past cap */
		n_resize++;
	}
	validate_all();
	compare_state();
}

/* Bad requests: -EINVAL from every backend, nothing changed. */
static void op_bad(void)
{
	struct rg_region_request q =
		RG_REGION_REQUEST(rg_rand_range(&rng, 2, 8));
	unsigned long s = 77;

	switch (rg_rand_below(&rng, 8)) {
	case 0:
		q.lo = cap + rg_rand_below(&rng, 10);
		break;
	case 1:
		q.hi = cap + rg_rand_below(&rng, 10);
		break;
	case 2:
		q.lo = rg_rand_range(&rng, 1, cap - 1);
		q.hi = q.lo - 1;
		break;
	case 3:
		q.boundary = q.n - 1; /* below n (1 when n is 2) */
		break;
	case 4:
		q.boundary = 24;
		break;
	case 5:
		q.align = 12;
		break;
	case 6:
		q.n = rg_rand_below(&rng, 2) ? 0 : cap + 1;
		break;
	default:
		q.policy = rg_rand_below(&rng, 2) ? RG_REGION_NR_POLICIES : -2;
		break;
	}
	for (int b = 0; b < nr; b++) {
		assert_int_equal(rg_region_alloc_request(rs[b], &q, &s),
				 -EINVAL);
		assert_int_equal(s, 77);
	}
}

/*
 * Reserve random runs of up to @len units in lockstep until about @pct %
 * of the units are taken (set-up: validated once at the end).
 */
static void fill(unsigned int pct, unsigned long len)
{
	unsigned long taken = 0, a, n, tries = 0;

	while (taken * 100 < cap * pct && tries++ < 20000) {
		a = rg_rand_below(&rng, cap);
		n = rg_rand_range(&rng, 1, len);
		if (n > cap - a)
			n = cap - a;
		for (unsigned long i = a; i < a + n && n; i++)
			if (ref[i])
				n = 0;
		if (!n)
			continue;
		for (int b = 0; b < nr; b++)
			assert_int_equal(rg_region_reserve(rs[b], a, n), 0);
		ref_set(a, n, true);
		taken += n;
	}
	validate_all();
	compare_state();
}

/*
 * One group: instance policy @p on the backends in @mask that offer it, a
 * capacity in [@cap_lo, @cap_hi], filled to @pct % at first.
 */
static void run_group(enum rg_region_policy p, unsigned int mask,
		      unsigned long ops, unsigned long cap_lo,
		      unsigned long cap_hi, unsigned int pct)
{
	ipol = p;
	nr = 0;
	cap_max = cap_hi;
	cap = rg_rand_range(&rng, cap_lo, cap_hi);
	cursor = 0;
	memset(ref, 0, sizeof(ref));
	for (int b = 0; b < NB; b++) {
		if (!(mask & (1u << b)) ||
		    !rg_region_backend_has_policy((enum rg_region_backend)b, p))
			continue;
		rb[nr] = (enum rg_region_backend)b;
		rs[nr] = rg_region_create_backend(rb[nr], cap,
						  RG_REGION_POLICY(p));
		assert_non_null(rs[nr]);
		nr++;
	}
	if (pct)
		fill(pct, cap / 64 + 2);
	for (unsigned long i = 0; i < ops; i++) {
		unsigned int k = (unsigned int)rg_rand_below(&rng, 100);

		if (k < 45)
			op_request();
		else if (k < 55)
			op_alloc();
		else if (k < 90)
			op_free();
		else if (k < 95)
			op_reserve();
		else if (k < 97)
			op_bad();
		else if (k < 98)
			op_resize();
		else if (cap <= MAX_CAP || rg_rand_below(&rng, 20) == 0)
			compare_state();
	}
	compare_state();
	for (int b = 0; b < nr; b++)
		rg_region_destroy(rs[b]);
}

static void test_lockstep(void **state)
{
	/* backend operations in all: about ops x backends per policy */
	unsigned long ops = RG_THOROUGH ? 6000 : 54000;
	/*
	 * Lockstep needs every member to run every request: a group runs
	 * the requests of policies all its members answer and probes the
	 * others for -EOPNOTSUPP, so each policy gets a group where all its
	 * backends run it: all four, the three with top-down, the two with
	 * best fit.
	 */
	const unsigned int all = (1u << NB) - 1;
	const unsigned int no_ida = all & ~(1u << RG_REGION_IDA);
	const unsigned int maps =
		(1u << RG_REGION_BITMAP) | (1u << RG_REGION_HBITMAP);

	(void)state;
	run_group(RG_REGION_FIRST_FIT, all, ops, 200, MAX_CAP, 0);
	run_group(RG_REGION_FIRST_FIT, no_ida, ops, 200, MAX_CAP, 50);
	run_group(RG_REGION_FIRST_FIT, maps, ops, 200, MAX_CAP, 0);
	run_group(RG_REGION_BEST_FIT, maps, ops, 200, MAX_CAP, 70);
	run_group(RG_REGION_TOP_DOWN, no_ida, ops, 200, MAX_CAP, 0);
	run_group(RG_REGION_TOP_DOWN, maps, ops, 200, MAX_CAP, 70);
	run_group(RG_REGION_NEXT_FIT, no_ida, ops, 200, MAX_CAP, 0);
	run_group(RG_REGION_NEXT_FIT, maps, ops, 200, MAX_CAP, 50);
	printf("# %lu backend operations: %lu requests placed, %lu no fit, "
	       "%lu answered -EOPNOTSUPP, %lu resizes\n",
	       n_ops, n_req_ok, n_req_nospc, n_unsupported, n_resize);
	if (!RG_THOROUGH)
		assert_true(n_ops >= 1000000);
}

/*
 * Wide instances (two and three hbitmap levels) filled with many runs, so
 * windows cut nodes at every level; maple beside hbitmap and bitmap.
 */
static void test_wide(void **state)
{
	unsigned long ops = RG_THOROUGH ? 150 : 1500;
	const unsigned int three = (1u << RG_REGION_BITMAP) |
				   (1u << RG_REGION_MAPLE) |
				   (1u << RG_REGION_HBITMAP);

	(void)state;
	for (int p = 0; p < RG_REGION_NR_POLICIES; p++) {
		run_group((enum rg_region_policy)p, three, ops, 40000, 300000,
			  85);
		if (!RG_THOROUGH)
			run_group((enum rg_region_policy)p, three, ops / 8,
				  2100000, WIDE_CAP, 90);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lockstep),
		cmocka_unit_test(test_wide),
	};

	rg_rand_seed(&rng, rg_test_seed());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
