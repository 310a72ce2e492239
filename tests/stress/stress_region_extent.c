// SPDX-License-Identifier: MIT
/*
 * The extent backend in lockstep with the bitmap backend, whose searches
 * visit every free run (and which the other region tests hold to a
 * brute-force reference), at 2^16 units: wide enough that alignments past
 * extent's exact classes (2^11 .. 2^14) have several candidate starts,
 * windows cut its tree at both edges and regions span thousands of units.
 * For every instance policy: plain allocations (alignment up to 2^14),
 * constrained requests (windows, boundaries, per-call policies), frees of
 * live regions and of ranges with a free unit (-ENOENT), reservations and
 * resizes. The two must return the same errors and starts; extent is
 * validated after every operation, and the units, the largest free run
 * and the free-run count are compared every 500 operations.
 */
#include <errno.h>
#include <string.h>

#include "rg_test.h"

#include "region/region.h"

#define CAP (1UL << 16)
#define MAX_LIVE 256

static struct rg_rand rng;

struct live {
	unsigned long s, n;
};

static unsigned long rand_n(void)
{
	switch (rg_rand_below(&rng, 8)) {
	case 0:
		return rg_rand_range(&rng, 1000, 6000);
	case 1:
	case 2:
		return rg_rand_range(&rng, 64, 1000);
	default:
		return rg_rand_range(&rng, 1, 64);
	}
}

static unsigned long rand_align(void)
{
	unsigned long k = rg_rand_below(&rng, 8);

	return k < 3 ? 0 : 1UL << rg_rand_below(&rng, k < 6 ? 10 : 15);
}

static void same_state(struct rg_region *x, struct rg_region *ref,
		       unsigned long op)
{
	struct rg_region_stats a, b;
	unsigned long cap;

	assert_int_equal(rg_region_get_stats(x, &a), 0);
	assert_int_equal(rg_region_get_stats(ref, &b), 0);
	cap = b.capacity;
	if (a.capacity != cap || a.free_units != b.free_units ||
	    a.largest_free_run != b.largest_free_run ||
	    a.free_runs != b.free_runs)
		fail_msg("op %lu: stats differ: cap %lu/%lu free %lu/%lu "
			 "largest %lu/%lu runs %lu/%lu",
			 op, a.capacity, cap, a.free_units, b.free_units,
			 a.largest_free_run, b.largest_free_run, a.free_runs,
			 b.free_runs);
	for (unsigned long u = 0; u < cap; u++)
		if (rg_region_test(x, u) != rg_region_test(ref, u))
			fail_msg("op %lu: unit %lu differs", op, u);
}

static void run(enum rg_region_policy p, unsigned long ops)
{
	struct rg_region *x =
		rg_region_create("extent", CAP, RG_REGION_POLICY(p));
	struct rg_region *ref =
		rg_region_create("bitmap", CAP, RG_REGION_POLICY(p));
	struct live lv[MAX_LIVE];
	unsigned long nl = 0, cap = CAP;
	const char *why;

	assert_non_null(x);
	assert_non_null(ref);
	for (unsigned long op = 0; op < ops; op++) {
		unsigned long k = rg_rand_below(&rng, 20), s1 = 0, s2 = 0, n;
		int e1, e2;

		if (nl && (nl == MAX_LIVE || k < 7)) {
			unsigned long i = rg_rand_below(&rng, nl);
			struct live f = lv[i];

			e1 = rg_region_free(x, f.s, f.n);
			e2 = rg_region_free(ref, f.s, f.n);
			assert_int_equal(e1, 0);
			assert_int_equal(e2, 0);
			lv[i] = lv[--nl];
			if (rg_rand_below(&rng, 4) == 0) {
				/* freed again, or one unit more below */
				if (f.s && rg_rand_below(&rng, 2)) {
					f.s--;
					f.n++;
				}
				e1 = rg_region_free(x, f.s, f.n);
				e2 = rg_region_free(ref, f.s, f.n);
				assert_int_equal(e1, -ENOENT);
				assert_int_equal(e2, -ENOENT);
			}
		} else if (k < 14 || nl == 0) {
			struct rg_region_request q =
				RG_REGION_REQUEST(rand_n());

			q.align = rand_align();
			if (q.n > cap)
				q.n = cap;
			if (k >= 10) {
				q.lo = rg_rand_below(&rng, cap);
				q.hi = rg_rand_range(&rng, q.lo, cap - 1);
				if (rg_rand_below(&rng, 3) == 0) {
					unsigned long b = 1;

					while (b < q.n)
						b <<= 1;
					q.boundary = b
						     << rg_rand_below(&rng, 3);
				}
				/* -1: RG_REGION_INSTANCE_POLICY */
				q.policy = (int)rg_rand_below(&rng, 5) - 1;
				e1 = rg_region_alloc_request(x, &q, &s1);
				e2 = rg_region_alloc_request(ref, &q, &s2);
			} else {
				e1 = rg_region_alloc(x, q.n, q.align, &s1);
				e2 = rg_region_alloc(ref, q.n, q.align, &s2);
			}
			if (e1 != e2 || (!e1 && s1 != s2))
				fail_msg(
					"op %lu: %s: n %lu align %lu [%lu, %lu] "
					"boundary %lu policy %d: extent %d at "
					"%lu, bitmap %d at %lu",
					op, rg_region_policy_name(p), q.n,
					q.align, q.lo, q.hi, q.boundary,
					q.policy, e1, s1, e2, s2);
			if (!e1) {
				lv[nl].s = s1;
				lv[nl++].n = q.n;
			}
		} else if (k < 17) {
			s1 = rg_rand_below(&rng, cap);
			n = rg_rand_range(&rng, 1, 200);
			if (n > cap - s1)
				n = cap - s1;
			e1 = rg_region_reserve(x, s1, n);
			e2 = rg_region_reserve(ref, s1, n);
			assert_int_equal(e1, e2);
			if (!e1) {
				lv[nl].s = s1;
				lv[nl++].n = n;
			}
		} else {
			n = rg_rand_range(&rng, CAP / 2, 2 * CAP);
			e1 = rg_region_resize(x, n);
			e2 = rg_region_resize(ref, n);
			assert_int_equal(e1, e2);
			if (!e1)
				cap = n;
		}
		if (rg_region_validate(x, &why))
			fail_msg("op %lu: extent invalid: %s", op, why);
		if (op % 500 == 0)
			same_state(x, ref, op);
	}
	same_state(x, ref, ops);
	rg_region_destroy(x);
	rg_region_destroy(ref);
}

static void test_lockstep(void **state)
{
	unsigned long ops = RG_THOROUGH ? 6000 : 30000;

	(void)state;
	rg_rand_seed(&rng, rg_test_seed());
	for (int p = 0; p < RG_REGION_NR_POLICIES; p++) {
		run((enum rg_region_policy)p, ops);
		print_message("# extent, %s fit: %lu operations\n",
			      rg_region_policy_name((enum rg_region_policy)p),
			      ops);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lockstep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
