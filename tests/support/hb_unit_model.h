/* SPDX-License-Identifier: MIT */
/*
 * A brute-force model of an hbitmap for the tests that run one in lockstep
 * with it (test_hb_seq.c, test_hb_deferred.c, stress_hb_big.c,
 * stress_hbitmap.c): one byte per unit (1 = allocated), the free count,
 * and the start every placement of rg_hbitmap_alloc*() must return, found
 * by visiting the free runs.
 * It is only as fast as memchr(): meant for capacities of a few million
 * units at most (hb_zone_model.h models larger ones).
 *
 *	struct hbm_model md;
 *
 *	hbm_init(&md, cap, cap + 4096);		// room to grow without realloc
 *	if (hbm_first_fit(&md, n, align, &want))	// what alloc() returns
 *		hbm_set(&md, want, n, 1);		// allocated in the model
 *	hbm_find(&md, n, align, lo, hi, bnd, RG_HBITMAP_BEST, &want);
 *	if (hbm_next(&md, from, 0, &s, &len))	// the next free run
 *		...;
 *	assert_int_equal(rg_hbitmap_largest_free_run(hb), hbm_largest(&md));
 *	hbm_resize(&md, newcap);		// as rg_hbitmap_resize()
 *	hbm_fini(&md);
 */
#ifndef HB_UNIT_MODEL_H
#define HB_UNIT_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rg_test.h"

#include "region/hbitmap.h"

/*
 * The model: @unit[u] is 1 if unit u is allocated, 0 if not; there is room
 * for @maxcap units, and the bytes at or past @cap are 0. @used counts the
 * allocated units; every unit below @lowfree is allocated (@lowfree is the
 * lowest free unit, or @cap: first-fit searches start there). Change the
 * units only through hbm_set() and hbm_resize(), which keep both.
 */
struct hbm_model {
	uint8_t *unit;
	uint64_t cap, maxcap, used, lowfree;
};

/**
 * hbm_init() - start a model with every unit free.
 * @md: the model.
 * @cap: its capacity.
 * @maxcap: room to allocate, at least @cap: hbm_resize() up to it keeps
 *          @md->unit where it is.
 */
static inline void hbm_init(struct hbm_model *md, uint64_t cap, uint64_t maxcap)
{
	assert_true(cap <= maxcap);
	md->unit = calloc(maxcap, 1);
	assert_non_null(md->unit);
	md->cap = cap;
	md->maxcap = maxcap;
	md->used = 0;
	md->lowfree = 0;
}

/**
 * hbm_fini() - free the model's array.
 * @md: the model; all zero afterwards.
 */
static inline void hbm_fini(struct hbm_model *md)
{
	free(md->unit);
	memset(md, 0, sizeof(*md));
}

/**
 * hbm_next() - the run of units in a state at or after a unit, as
 * rg_hbitmap_next_run() reports it.
 * @md: the model.
 * @from: the first unit to look at.
 * @state: 1 for allocated units, 0 for free ones.
 * @start: receives the run's first unit.
 * @n: receives its length (it ends at a unit of the other state or at
 *     the capacity).
 *
 * Return: true if there is such a run, false if not (*@start and *@n are
 * then untouched).
 */
static inline bool hbm_next(const struct hbm_model *md, uint64_t from,
			    int state, uint64_t *start, uint64_t *n)
{
	const uint8_t *p, *q;

	if (from >= md->cap)
		return false;
	p = memchr(md->unit + from, state, md->cap - from);
	if (!p)
		return false;
	*start = (uint64_t)(p - md->unit);
	q = memchr(p, !state, md->cap - *start);
	*n = (q ? (uint64_t)(q - md->unit) : md->cap) - *start;
	return true;
}

/**
 * hbm_range_is() - whether every unit of a range is in a state.
 * @md: the model.
 * @s: the range's first unit.
 * @n: its length; [@s, @s + @n) lies below @md->maxcap.
 * @state: 1 for allocated, 0 for free.
 *
 * Return: true if none of [@s, @s + @n) is in the other state.
 */
static inline bool hbm_range_is(const struct hbm_model *md, uint64_t s,
				uint64_t n, int state)
{
	return !memchr(md->unit + s, !state, n);
}

/**
 * hbm_set() - allocate or free a range in the model.
 * @md: the model.
 * @s: the range's first unit.
 * @n: its length; [@s, @s + @n) lies below @md->cap and is all in the
 *     state other than @state (check it with hbm_range_is()).
 * @state: 1 to allocate, 0 to free.
 *
 * Keeps @md->used and @md->lowfree.
 */
static inline void hbm_set(struct hbm_model *md, uint64_t s, uint64_t n,
			   int state)
{
	memset(md->unit + s, state, n);
	if (state) {
		md->used += n;
		if (s <= md->lowfree && md->lowfree < s + n) {
			uint64_t a, len;

			md->lowfree =
				hbm_next(md, s + n, 0, &a, &len) ? a : md->cap;
		}
	} else {
		md->used -= n;
		if (s < md->lowfree)
			md->lowfree = s;
	}
}

/**
 * hbm_resize() - change the capacity, as rg_hbitmap_resize() does.
 * @md: the model.
 * @cap: the new capacity. Units cut off must be free (the hbitmap refuses
 *       with -EBUSY otherwise: check that with hbm_next() first). Up to
 *       @md->maxcap the array stays; past it, it is reallocated to @cap
 *       units (and @md->maxcap becomes @cap), so a pointer to it kept
 *       elsewhere goes stale.
 */
static inline void hbm_resize(struct hbm_model *md, uint64_t cap)
{
	if (cap < md->cap)
		assert_true(hbm_range_is(md, cap, md->cap - cap, 0));
	if (cap > md->maxcap) {
		uint8_t *p = realloc(md->unit, cap);

		assert_non_null(p);
		memset(p + md->maxcap, 0, cap - md->maxcap);
		md->unit = p;
		md->maxcap = cap;
	}
	md->cap = cap;
	if (md->lowfree > cap)
		md->lowfree = cap;
}

/**
 * hbm_round_up() - round up to a multiple of a power of two.
 * @x: the value.
 * @align: a power of two.
 *
 * Return: the lowest multiple of @align at or above @x.
 */
static inline uint64_t hbm_round_up(uint64_t x, uint64_t align)
{
	return (x + align - 1) & ~(align - 1);
}

/**
 * hbm_fit_low() - the lowest start of a run in a free range.
 * @a: the range's first unit.
 * @b: one past its last unit.
 * @n: the run's length, at least 1.
 * @align: the start's alignment, a power of two.
 * @bnd: 0, or a power of two of at least @n that the run must not cross
 *       (s / @bnd == (s + @n - 1) / @bnd).
 * @out: receives the start.
 *
 * Return: true if [s, s + @n) fits in [@a, @b) for some such s.
 */
static inline bool hbm_fit_low(uint64_t a, uint64_t b, uint64_t n,
			       uint64_t align, uint64_t bnd, uint64_t *out)
{
	for (uint64_t s = hbm_round_up(a, align); s < b && b - s >= n;) {
		if (!bnd || s / bnd == (s + n - 1) / bnd) {
			*out = s;
			return true;
		}
		s = hbm_round_up((s / bnd + 1) * bnd, align);
	}
	return false;
}

/**
 * hbm_fit_high() - the highest start of a run in a free range.
 * @a: the range's first unit.
 * @b: one past its last unit.
 * @n: the run's length, at least 1.
 * @align: the start's alignment, a power of two.
 * @bnd: 0, or a power of two of at least @n that the run must not cross.
 * @out: receives the start.
 *
 * Return: true if [s, s + @n) fits in [@a, @b) for some such s.
 */
static inline bool hbm_fit_high(uint64_t a, uint64_t b, uint64_t n,
				uint64_t align, uint64_t bnd, uint64_t *out)
{
	uint64_t s, k;

	if (b - a < n)
		return false;
	for (s = (b - n) & ~(align - 1); s >= a;) {
		if (!bnd || s / bnd == (s + n - 1) / bnd) {
			*out = s;
			return true;
		}
		k = (s + n - 1) / bnd * bnd; /* the boundary crossed */
		if (k < n)
			return false;
		s = (k - n) & ~(align - 1);
	}
	return false;
}

/**
 * hbm_last_used() - the highest allocated unit of a range.
 * @md: the model.
 * @s: the range's first unit.
 * @n: its length; [@s, @s + @n) lies below @md->maxcap.
 *
 * Reads eight units at a time from the top (little-endian: the last of
 * the eight is the most significant byte), else one at a time.
 *
 * Return: that unit, or UINT64_MAX if all of [@s, @s + @n) is free.
 */
static inline uint64_t hbm_last_used(const struct hbm_model *md, uint64_t s,
				     uint64_t n)
{
	uint64_t e = s + n;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (uint64_t w; e - s >= 8; e -= 8) {
		memcpy(&w, md->unit + e - 8, 8);
		if (w)
			return e - 1 - (uint64_t)(__builtin_clzll(w) >> 3);
	}
#endif
	while (e > s)
		if (md->unit[--e])
			return e;
	return UINT64_MAX;
}

/**
 * hbm_find() - the start rg_hbitmap_alloc_window() must return.
 * @md: the model.
 * @n: the run's length, at least 1.
 * @align: the start's alignment, a power of two.
 * @lo: the lowest unit the run may use.
 * @hi: the highest (inclusive); at or past the capacity: the last unit.
 * @bnd: 0, or a power of two of at least @n that the run must not cross.
 * @place: RG_HBITMAP_LOWEST, RG_HBITMAP_HIGHEST, or anything else for
 *         RG_HBITMAP_BEST: the lowest start in the shortest free run that
 *         holds one, the run measured whole (also below @lo and above
 *         @hi), the lowest such run among equals.
 * @out: receives the start.
 *
 * Visits every free run in the window; LOWEST without @bnd instead tries
 * each aligned start from @md->lowfree on, skipping past the highest
 * allocated unit of the n it needs (hbm_last_used()).
 * With @lo 0, @hi UINT64_MAX and @bnd 0 it is also what rg_hbitmap_alloc()
 * (LOWEST, see hbm_first_fit()), rg_hbitmap_alloc_rev() (HIGHEST) and
 * rg_hbitmap_alloc_range() (LOWEST, any window) return.
 *
 * Return: true if a run fits, false if not (*@out then untouched).
 */
static inline bool hbm_find(const struct hbm_model *md, uint64_t n,
			    uint64_t align, uint64_t lo, uint64_t hi,
			    uint64_t bnd, unsigned int place, uint64_t *out)
{
	uint64_t end = hi >= md->cap ? md->cap : hi + 1;
	uint64_t from = lo, a, len, s, best_len = UINT64_MAX;
	bool found = false;

	if (place == RG_HBITMAP_LOWEST && md->lowfree > from)
		from = md->lowfree;
	if (place == RG_HBITMAP_LOWEST && !bnd) {
		/* each aligned start, past the last allocated unit that
		 * blocks the one before */
		for (s = hbm_round_up(from, align); s < end && end - s >= n;) {
			uint64_t u = hbm_last_used(md, s, n);

			if (u == UINT64_MAX) {
				*out = s;
				return true;
			}
			s = hbm_round_up(u + 1, align);
		}
		return false;
	}
	while (from < end && hbm_next(md, from, 0, &a, &len) && a < end) {
		uint64_t b = a + len < end ? a + len : end;
		uint64_t whole = len, ca = a > lo ? a : lo;

		from = a + len;
		if (place == RG_HBITMAP_HIGHEST) {
			if (hbm_fit_high(ca, b, n, align, bnd, &s)) {
				*out = s;
				found = true;
			}
			continue;
		}
		if (!hbm_fit_low(ca, b, n, align, bnd, &s))
			continue;
		if (place == RG_HBITMAP_LOWEST) {
			*out = s;
			return true;
		}
		/* BEST: the run measured whole, also below the window */
		for (uint64_t u = a; u > 0 && !md->unit[u - 1]; u--)
			whole++;
		if (whole < best_len) {
			best_len = whole;
			*out = s;
			found = true;
		}
	}
	return found;
}

/**
 * hbm_first_fit() - the start rg_hbitmap_alloc() must return.
 * @md: the model.
 * @n: the run's length, at least 1.
 * @align: the start's alignment, a power of two.
 * @out: receives the lowest aligned start s with [s, s + @n) free.
 *
 * Return: true if a run fits, false if not (*@out then untouched).
 */
static inline bool hbm_first_fit(const struct hbm_model *md, uint64_t n,
				 uint64_t align, uint64_t *out)
{
	return hbm_find(md, n, align, 0, UINT64_MAX, 0, RG_HBITMAP_LOWEST, out);
}

/**
 * hbm_largest() - what rg_hbitmap_largest_free_run() must return.
 * @md: the model.
 *
 * Return: the length of the longest free run, 0 if every unit is taken.
 */
static inline uint64_t hbm_largest(const struct hbm_model *md)
{
	uint64_t from = 0, a, len, best = 0;

	while (hbm_next(md, from, 0, &a, &len)) {
		best = len > best ? len : best;
		from = a + len;
	}
	return best;
}

#endif /* HB_UNIT_MODEL_H */
