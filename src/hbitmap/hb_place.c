// SPDX-License-Identifier: MIT
/*
 * hbitmap placement helpers. Theory of operation.
 *
 * What is here
 *   Word scans over the bitmap (1 = allocated, padding past the capacity
 *   set) that the summaries do not serve: the previous and next allocated
 *   unit around a position, and the top-down search inside a window.
 *
 * Top-down search
 *   Walks the free runs from the top of the window down (previous clear
 *   bit, then previous set bit below it) and returns the highest aligned
 *   start in the first run that holds one: the highest overall, since
 *   every start in a lower run is lower. O(distance / 64) words: hbitmap.c
 *   uses it inside one block, and on best-fit instances (whose summaries
 *   may be stale) for the whole bitmap. Nothing allocates.
 */
#include "hb_internal.h"

uint64_t rgi_hb_prev_set(const uint64_t *w, uint64_t x)
{
	uint64_t i, v;

	if (!x)
		return RGI_HB_NONE;
	i = (x - 1) >> 6;
	v = w[i] & (~0ULL >> (63 - ((x - 1) & 63)));
	while (!v) {
		if (!i)
			return RGI_HB_NONE;
		v = w[--i];
	}
	return (i << 6) + 63 - (uint64_t)__builtin_clzll(v);
}

uint64_t rgi_hb_next_set(const uint64_t *w, uint64_t cap, uint64_t x)
{
	uint64_t i = x >> 6, last = (cap - 1) >> 6, v;

	if (x >= cap)
		return cap;
	v = w[i] & (~0ULL << (x & 63));
	while (!v) {
		if (++i > last)
			return cap;
		v = w[i];
	}
	x = (i << 6) + (uint64_t)__builtin_ctzll(v);
	return x < cap ? x : cap;
}

/* Highest free unit below x, or RGI_HB_NONE. */
static uint64_t prev_clear(const uint64_t *w, uint64_t x)
{
	uint64_t i, v;

	if (!x)
		return RGI_HB_NONE;
	i = (x - 1) >> 6;
	v = ~w[i] & (~0ULL >> (63 - ((x - 1) & 63)));
	while (!v) {
		if (!i)
			return RGI_HB_NONE;
		v = ~w[--i];
	}
	return (i << 6) + 63 - (uint64_t)__builtin_clzll(v);
}

uint64_t rgi_hb_find_rev(const uint64_t *w, uint64_t lo, uint64_t hi,
			 uint64_t n, uint64_t mask)
{
	uint64_t x = hi, last, first, s;

	for (;;) {
		last = prev_clear(w, x);
		if (last == RGI_HB_NONE || last < lo || last + 1 - lo < n)
			return RGI_HB_NONE;
		first = rgi_hb_prev_set(w, last);
		first = first == RGI_HB_NONE || first < lo ? lo : first + 1;
		s = (last + 1 - n) & ~mask;
		if (last + 1 - first >= n && s >= first)
			return s;
		x = first;
	}
}
