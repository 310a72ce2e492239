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
#include "rg_test.h"

#include "region/hbitmap.h"

#define CAP1 300007ULL
#define CAP2 (CAP1 + (1ULL << 24)) /* a fourth start-set level */
#define NZ 12
#define ZLEN 256
#define MAXLIVE 4096

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
static const uint64_t *zone_at;
static bool ref[NZ][ZLEN];
static struct {
	uint64_t s, n;
} live[MAXLIVE];
static unsigned nlive;

/* Zone and offset of unit u, or false if u lies in no zone. */
static bool zone_of(uint64_t u, unsigned *z, unsigned *o)
{
	for (unsigned i = 0; i < NZ; i++)
		if (u >= zone_at[i] && u < zone_at[i] + ZLEN) {
			*z = i;
			*o = (unsigned)(u - zone_at[i]);
			return true;
		}
	return false;
}

static void ref_set(uint64_t s, uint64_t n, bool v)
{
	unsigned z = 0, o = 0;

	assert_true(zone_of(s, &z, &o));
	assert_true(o + n <= ZLEN);
	for (uint64_t i = 0; i < n; i++) {
		assert_true(ref[z][o + i] != v);
		ref[z][o + i] = v;
	}
}

enum pol { BEST, FIRST, TOP };

/* The start the policy names, or UINT64_MAX. */
static uint64_t ref_alloc(enum pol p, uint64_t n, uint64_t mask)
{
	uint64_t want = UINT64_MAX, blen = UINT64_MAX;

	for (unsigned z = 0; z < NZ; z++) {
		for (unsigned a = 0, e; a < ZLEN; a = e + 1) {
			uint64_t s, t, as = zone_at[z] + a;

			for (e = a; e < ZLEN && !ref[z][e]; e++)
				;
			if (e == a)
				continue;
			s = (as + mask) & ~mask;
			t = (zone_at[z] + e - n) & ~mask;
			if (zone_at[z] + e < n || s + n > zone_at[z] + e)
				continue;
			if (p == FIRST && want == UINT64_MAX)
				want = s;
			if (p == TOP && t >= as)
				want = t;
			if (p == BEST && e - a < blen) {
				want = s;
				blen = e - a;
			}
		}
	}
	return want;
}

/* @ops operations at capacity @cap with zones @zones, checked as above. */
static void run_best(uint64_t cap, const uint64_t *zones, unsigned long ops,
		     unsigned long valid_every)
{
	struct rg_hbitmap *hb;
	unsigned long counts[6] = { 0 };
	uint64_t prev = 0;
	struct rg_rand r;

	CAP = cap;
	zone_at = zones;
	memset(ref, 0, sizeof(ref));
	nlive = 0;
	hb = rg_hbitmap_create_flags(CAP, RG_HBITMAP_BEST_FIT);
	assert_non_null(hb);
	rg_rand_seed(&r, rg_test_seed());
	/* everything outside the zones is allocated */
	for (unsigned z = 0; z <= NZ; z++) {
		uint64_t end = z < NZ ? zone_at[z] : CAP;

		if (end > prev)
			assert_int_equal(
				rg_hbitmap_reserve(hb, prev, end - prev), 0);
		prev = z < NZ ? zone_at[z] + ZLEN : CAP;
	}
	RG_ASSERT_VALID(hb);
	assert_int_equal(rg_hbitmap_free_units(hb), NZ * ZLEN);
	for (unsigned long i = 0; i < ops; i++) {
		unsigned k = (unsigned)rg_rand_below(&r, 100);
		uint64_t n = rg_rand_below(&r, 4) ? rg_rand_range(&r, 1, 20) :
						    rg_rand_range(&r, 1, 150);
		uint64_t align = 1ULL << rg_rand_below(&r, 7), s = 0, want;
		enum pol p = k < 50 ? BEST : k < 53 ? FIRST : TOP;
		int err;

		if (k < 56 && nlive < MAXLIVE) {
			want = ref_alloc(p, n, align - 1);
			err = p == BEST ?
				      rg_hbitmap_alloc_best(hb, n, align, &s) :
			      p == FIRST ?
				      rg_hbitmap_alloc(hb, n, align, &s) :
				      rg_hbitmap_alloc_rev(hb, n, align, &s);
			if (want == UINT64_MAX) {
				assert_int_equal(err, -ENOSPC);
				counts[1]++;
			} else {
				assert_int_equal(err, 0);
				assert_int_equal(s, want);
				ref_set(s, n, true);
				live[nlive].s = s;
				live[nlive++].n = n;
				counts[0]++;
			}
		} else if (k < 96 && nlive) {
			unsigned j = (unsigned)rg_rand_below(&r, nlive);

			assert_int_equal(
				rg_hbitmap_free(hb, live[j].s, live[j].n), 0);
			ref_set(live[j].s, live[j].n, false);
			live[j] = live[--nlive];
			counts[2]++;
		} else if (k < 98) {
			unsigned z = (unsigned)rg_rand_below(&r, NZ), o;
			bool fr = true;

			n = rg_rand_range(&r, 1, 40);
			o = (unsigned)rg_rand_below(&r, ZLEN - n + 1);
			for (unsigned u = o; u < o + n; u++)
				fr = fr && !ref[z][u];
			err = rg_hbitmap_reserve(hb, zone_at[z] + o, n);
			assert_int_equal(err, fr ? 0 : -EBUSY);
			if (!err) {
				ref_set(zone_at[z] + o, n, true);
				assert_true(nlive < MAXLIVE);
				live[nlive].s = zone_at[z] + o;
				live[nlive++].n = n;
				counts[3]++;
			}
		} else {
			/* a free unit, or a unit outside the zones */
			unsigned z = (unsigned)rg_rand_below(&r, NZ), o;

			o = (unsigned)rg_rand_below(&r, ZLEN);
			s = ref[z][o] ? zone_at[z] + ZLEN + 1 : zone_at[z] + o;
			if (s + 1 < CAP && !zone_of(s, &z, &o)) {
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
