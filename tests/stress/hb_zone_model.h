/* SPDX-License-Identifier: MIT */
/*
 * A brute-force model of an hbitmap on which everything is reserved but a
 * few zones of HBZ_LEN units, for the tests that need capacities too large
 * for a model of every unit (stress_hb_best.c, stress_hb_quiet.c): the
 * zones' units as a bool array (true = allocated), the exact start each
 * placement policy names, and the list of live regions.
 *
 *	hbz_init(hb, cap, zones, nz);		// reserve all but the zones
 *	want = hbz_alloc(HBZ_BEST, n, align - 1);	// UINT64_MAX: none fits
 *	hbz_set(s, n, true);			// allocated in the model
 *	hbz_live_add(s, n);			// hbz_live[], hbz_nlive
 */
#ifndef HB_ZONE_MODEL_H
#define HB_ZONE_MODEL_H

#include "rg_test.h"

#include "region/hbitmap.h"

#define HBZ_MAX 12
#define HBZ_LEN 256
#define HBZ_MAXLIVE 4096

static unsigned hbz_n;
static const uint64_t *hbz_at;
static bool hbz_ref[HBZ_MAX][HBZ_LEN];
static struct {
	uint64_t s, n;
} hbz_live[HBZ_MAXLIVE];
static unsigned hbz_nlive;

enum hbz_pol { HBZ_BEST, HBZ_FIRST, HBZ_TOP };

/*
 * Start over with the @nz zones at @zones (ascending, HBZ_LEN units each,
 * none overlapping the next) all free in the model, and reserve every
 * unit of @hb (capacity @cap) outside them.
 */
static inline void hbz_init(struct rg_hbitmap *hb, uint64_t cap,
			    const uint64_t *zones, unsigned nz)
{
	uint64_t prev = 0;

	assert_true(nz <= HBZ_MAX);
	hbz_n = nz;
	hbz_at = zones;
	for (unsigned z = 0; z + 1 < nz; z++)
		assert_true(zones[z] + HBZ_LEN <= zones[z + 1]);
	memset(hbz_ref, 0, sizeof(hbz_ref));
	hbz_nlive = 0;
	for (unsigned z = 0; z <= nz; z++) {
		uint64_t end = z < nz ? zones[z] : cap;

		if (end > prev)
			assert_int_equal(
				rg_hbitmap_reserve(hb, prev, end - prev), 0);
		prev = z < nz ? zones[z] + HBZ_LEN : cap;
	}
}

/* Zone and offset of unit u, or false if u lies in no zone. */
static inline bool hbz_zone_of(uint64_t u, unsigned *z, unsigned *o)
{
	for (unsigned i = 0; i < hbz_n; i++)
		if (u >= hbz_at[i] && u < hbz_at[i] + HBZ_LEN) {
			*z = i;
			*o = (unsigned)(u - hbz_at[i]);
			return true;
		}
	return false;
}

/* Units [s, s + n), inside one zone and all !v, become v. */
static inline void hbz_set(uint64_t s, uint64_t n, bool v)
{
	unsigned z = 0, o = 0;

	assert_true(hbz_zone_of(s, &z, &o));
	assert_true(o + n <= HBZ_LEN);
	for (uint64_t i = 0; i < n; i++) {
		assert_true(hbz_ref[z][o + i] != v);
		hbz_ref[z][o + i] = v;
	}
}

/* The start policy @p names for n units at a multiple of mask + 1, or
 * UINT64_MAX: best fit (smallest run, lowest among equals, its lowest
 * aligned start), first fit or top-down (the highest aligned start). */
static inline uint64_t hbz_alloc(enum hbz_pol p, uint64_t n, uint64_t mask)
{
	uint64_t want = UINT64_MAX, blen = UINT64_MAX;

	for (unsigned z = 0; z < hbz_n; z++) {
		for (unsigned a = 0, e; a < HBZ_LEN; a = e + 1) {
			uint64_t s, t, as = hbz_at[z] + a, ae;

			for (e = a; e < HBZ_LEN && !hbz_ref[z][e]; e++)
				;
			if (e == a)
				continue;
			ae = hbz_at[z] + e;
			s = (as + mask) & ~mask;
			if (ae < n || s + n > ae)
				continue;
			t = (ae - n) & ~mask;
			if (p == HBZ_FIRST)
				return s;
			if (p == HBZ_TOP && t >= as)
				want = t;
			if (p == HBZ_BEST && e - a < blen) {
				want = s;
				blen = e - a;
			}
		}
	}
	return want;
}

/* A live region [s, s + n): the model's list of what may be freed. */
static inline void hbz_live_add(uint64_t s, uint64_t n)
{
	assert_true(hbz_nlive < HBZ_MAXLIVE);
	hbz_live[hbz_nlive].s = s;
	hbz_live[hbz_nlive++].n = n;
}

/* Live region j is gone (freed): the last one takes its place. */
static inline void hbz_live_del(unsigned j)
{
	hbz_live[j] = hbz_live[--hbz_nlive];
}

#endif /* HB_ZONE_MODEL_H */
