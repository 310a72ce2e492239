// SPDX-License-Identifier: MIT
/*
 * hbitmap best fit at capacities large enough for every level of the
 * best-fit index: its start sets have three levels at 300,007 units (the
 * fixed depth of every capacity up to 2^24 units) and four at 17,077,223.
 * Everything is reserved but a dozen zones of 256 units, spread over the
 * capacity so that zones straddle the index's word and level boundaries and
 * the last one ends at the (unaligned) capacity. In lockstep with a
 * brute-force reference over the zones: best-fit, first-fit and top-down
 * allocations (exact starts), frees of live regions, bad frees and
 * reservations; validate after every operation (sanitizer builds) or every
 * 16th.
 */
#include "hb_zone_model.h"

#define CAP1 300007ULL
#define CAP2 (CAP1 + (1ULL << 24)) /* a fourth start-set level */
#define NZ 12
#define ZLEN HBZ_LEN

static const uint64_t zones1[NZ] = {
	0,	4096 - 100,   8192,	    65536 - 64, 100000, 150001,
	200000, 262144 - 128, 262144 + 300, 280000,	290000, CAP1 - ZLEN,
};
static const uint64_t zones2[NZ] = {
	0,
	4096 - 100,
	262144 + 300,
	(1ULL << 23) + 5,
	(1ULL << 24) - 4096 - 64,
	(1ULL << 24) - 128,
	(1ULL << 24) + 300,
	(1ULL << 24) + 262144 - 100,
	(1ULL << 24) + 270000,
	(1ULL << 24) + 280000,
	(1ULL << 24) + 290000,
	CAP2 - ZLEN,
};
static uint64_t CAP;

/* @ops operations at capacity @cap with zones @zones, checked as above. */
static void run_best(uint64_t cap, const uint64_t *zones, unsigned long ops,
		     unsigned long valid_every)
{
	struct rg_hbitmap *hb;
	unsigned long counts[6] = { 0 };
	struct rg_rand r;

	CAP = cap;
	hb = rg_hbitmap_create_flags(CAP, RG_HBITMAP_BEST_FIT);
	assert_non_null(hb);
	rg_rand_seed(&r, rg_test_seed());
	/* everything outside the zones is allocated */
	hbz_init(hb, CAP, zones, NZ);
	RG_ASSERT_VALID(hb);
	assert_int_equal(rg_hbitmap_free_units(hb), NZ * ZLEN);
	for (unsigned long i = 0; i < ops; i++) {
		unsigned k = (unsigned)rg_rand_below(&r, 100);
		uint64_t n = rg_rand_below(&r, 4) ? rg_rand_range(&r, 1, 20) :
						    rg_rand_range(&r, 1, 150);
		uint64_t align = 1ULL << rg_rand_below(&r, 7), s = 0, want;
		enum hbz_pol p = k < 50 ? HBZ_BEST :
				 k < 53 ? HBZ_FIRST :
					  HBZ_TOP;
		int err;

		if (k < 56 && hbz_nlive < HBZ_MAXLIVE) {
			want = hbz_alloc(p, n, align - 1);
			err = p == HBZ_BEST ?
				      rg_hbitmap_alloc_best(hb, n, align, &s) :
			      p == HBZ_FIRST ?
				      rg_hbitmap_alloc(hb, n, align, &s) :
				      rg_hbitmap_alloc_rev(hb, n, align, &s);
			if (want == UINT64_MAX) {
				assert_int_equal(err, -ENOSPC);
				counts[1]++;
			} else {
				assert_int_equal(err, 0);
				assert_int_equal(s, want);
				hbz_set(s, n, true);
				hbz_live_add(s, n);
				counts[0]++;
			}
		} else if (k < 96 && hbz_nlive) {
			unsigned j = (unsigned)rg_rand_below(&r, hbz_nlive);

			assert_int_equal(rg_hbitmap_free(hb, hbz_live[j].s,
							 hbz_live[j].n),
					 0);
			hbz_set(hbz_live[j].s, hbz_live[j].n, false);
			hbz_live_del(j);
			counts[2]++;
		} else if (k < 98) {
			unsigned z = (unsigned)rg_rand_below(&r, NZ), o;
			bool fr = true;

			n = rg_rand_range(&r, 1, 40);
			o = (unsigned)rg_rand_below(&r, ZLEN - n + 1);
			for (unsigned u = o; u < o + n; u++)
				fr = fr && !hbz_ref[z][u];
			err = rg_hbitmap_reserve(hb, hbz_at[z] + o, n);
			assert_int_equal(err, fr ? 0 : -EBUSY);
			if (!err) {
				hbz_set(hbz_at[z] + o, n, true);
				hbz_live_add(hbz_at[z] + o, n);
				counts[3]++;
			}
		} else {
			/* a free unit, or a unit outside the zones */
			unsigned z = (unsigned)rg_rand_below(&r, NZ), o;

			o = (unsigned)rg_rand_below(&r, ZLEN);
			s = hbz_ref[z][o] ? hbz_at[z] + ZLEN + 1 :
					    hbz_at[z] + o;
			if (s + 1 < CAP && !hbz_zone_of(s, &z, &o)) {
				assert_int_equal(rg_hbitmap_free(hb, s, 1), 0);
				assert_int_equal(rg_hbitmap_reserve(hb, s, 1),
						 0);
			} else if (s < CAP) {
				assert_int_equal(rg_hbitmap_free(hb, s, 1),
						 -ENOENT);
			}
			counts[4]++;
		}
		if (!(i % valid_every))
			RG_ASSERT_VALID(hb);
	}
	RG_ASSERT_VALID(hb);
	printf("# %lu allocations, %lu -ENOSPC, %lu frees, %lu reservations, "
	       "%lu odd frees\n",
	       counts[0], counts[1], counts[2], counts[3], counts[4]);
	assert_true(counts[0] > ops / 20 && counts[1] > ops / 200 &&
		    counts[2] > ops / 20);
	rg_hbitmap_destroy(hb);
}

static void test_best_large(void **state)
{
	(void)state;
	run_best(CAP1, zones1, RG_THOROUGH ? 20000 : 60000,
		 RG_THOROUGH ? 1 : 16);
}

/* Past 2^24 units the start sets grow a level: the general climb. */
static void test_best_deep(void **state)
{
	(void)state;
	run_best(CAP2, zones2, RG_THOROUGH ? 3000 : 20000,
		 RG_THOROUGH ? 4 : 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_best_large),
		cmocka_unit_test(test_best_deep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
