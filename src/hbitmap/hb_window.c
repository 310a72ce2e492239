// SPDX-License-Identifier: MIT
/*
 * hbitmap: the cold requests. Theory of operation.
 *
 * What is here
 *   Top-down allocation (rg_hbitmap_alloc_rev()), constrained requests
 *   (rg_hbitmap_alloc_window(): a window, a boundary, a placement) and the
 *   run walk (rg_hbitmap_next_run()). They read the summaries that
 *   hbitmap.c keeps and change bits only through its rgi_hb_* calls
 *   (hb_internal.h); hbitmap.c calls nothing here.
 *
 * Stale summaries
 *   Each call first makes the summaries it reads exact: the pending block
 *   is flushed, and best-fit instances are synced (or, for top-down and
 *   the walk, scanned by words instead). doc/design.md has the table.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "hb_internal.h"
#include "rg_internal.h"
#include "region/hbitmap.h"

/*
 * Top-down search: the highest aligned fit lying wholly inside node @idx of
 * level @k, or HB_NONE. The children are visited from the last down while
 * the free run open at the bottom of the child above is carried: a child
 * not entirely free closes it with its suffix (that run is tried first, it
 * is the highest left), then its inner runs are searched if they could
 * hold n (a block by a word scan), then its prefix opens the next run. A
 * run found inside a child by the recursion is its highest, and any part
 * of it that reaches past the child was tried with the extended run, so
 * the first fit found is the highest. Summaries must be flushed.
 */
static uint64_t hb_rev_node(const struct rg_hbitmap *hb, unsigned k,
			    uint64_t idx, uint64_t n, uint64_t mask)
{
	const struct hb_node *nd = &hb->lv[k][idx];
	unsigned sh = hb_child_shift(k);
	uint64_t csz = 1ULL << sh, base = idx << (sh + HB_FAN_SHIFT);
	uint64_t open = 0, top, lo, t, r;

	for (int j = 63; j >= 0; j--) {
		uint64_t c = (idx << HB_FAN_SHIFT) + (uint64_t)j;
		uint64_t cs = base + (uint64_t)j * csz;
		struct hb_sum sm;

		if (!((nd->any >> j) & 1)) {
			/* allocated (or absent): close the open run */
			lo = cs + csz;
			if (open >= n) {
				t = (lo + open - n) & ~mask;
				if (t >= lo)
					return t;
			}
			open = 0;
			continue;
		}
		if ((nd->all >> j) & 1) {
			open += csz;
			continue;
		}
		sm = hb_child(hb, k, c);
		top = cs + csz + open;
		lo = cs + csz - sm.s;
		if (top - lo >= n) {
			t = (top - n) & ~mask;
			if (t >= lo)
				return t;
		}
		if (sm.inner >= n) {
			r = k ? hb_rev_node(hb, k - 1, c, n, mask) :
				rgi_hb_find_rev(hb->words, cs, cs + csz, n,
						mask);
			if (r != HB_NONE)
				return r;
		}
		open = sm.p;
	}
	if (open >= n) {
		t = (base + open - n) & ~mask;
		if (t >= base)
			return t;
	}
	return HB_NONE;
}

int rg_hbitmap_alloc_rev(struct rg_hbitmap *hb, uint64_t n, uint64_t align,
			 uint64_t *start)
{
	uint64_t a;

	if (unlikely(!hb || n == 0 || n > hb->capacity || hb_bad_align(align) ||
		     !start))
		return -EINVAL;
	if (hb->runs) {
		/* the summaries may be stale: a word scan from the top */
		a = rgi_hb_find_rev(hb->words, 0, hb->capacity, n, align - 1);
	} else {
		rgi_hb_flush(hb);
		a = hb_rev_node(hb, hb->nlevels - 1, 0, n, align - 1);
	}
	if (a == RGI_HB_NONE)
		return -ENOSPC;
	rgi_hb_take(hb, a, n, false);
	*start = a;
	return 0;
}

/* ---- constrained allocation: window, boundary, placement --------------- */

/*
 * rg_hbitmap_alloc_window() searches only inside its window [lo, hi) with
 * the summaries (flushed, and rebuilt first on best-fit instances, as for
 * rg_hbitmap_alloc_range()):
 *   lowest   hb_search() with the window (it skips children outside it);
 *            a fit that crosses a boundary moves the window's start to
 *            that boundary and searches again, as no start from the fit
 *            to the boundary can avoid crossing it.
 *   highest  hb_rev_window(), the top-down search of hb_rev_node() with
 *            the window: children wholly inside it are as there, the one
 *            or two children its ends cut are searched with the window
 *            (a word scan at the block level), their cut prefix and
 *            suffix joining the open run from the summaries. A fit that
 *            crosses a boundary moves the window's end down to it.
 *   best     the lowest fit of each free run in the window that holds one,
 *            run after run: each fit's run is measured whole with
 *            hb_next_set_fast() and hb_prev_set_fast() (the masks and
 *            summaries, O(log capacity)), the next search starts at the
 *            run's end; the shortest run wins, the lowest among equals, and
 *            a run of exactly n ends the search.
 * So each free run in the window costs at most one search, and runs
 * shorter than n are never visited.
 */

/* Lowest allocated unit at or after x (x < capacity), or the capacity. */
static uint64_t hb_next_set_fast(const struct rg_hbitmap *hb, uint64_t x)
{
	uint64_t b = x >> HB_BLOCK_SHIFT, i = x >> 6, c, m;
	uint64_t wend = (b + 1) * HB_BLOCK_WORDS, v;

	v = hb->words[i] & (~0ULL << (x & 63));
	for (;;) {
		if (v) {
			x = (i << 6) + (uint64_t)__builtin_ctzll(v);
			return x < hb->capacity ? x : hb->capacity;
		}
		if (++i >= wend)
			break;
		v = hb->words[i];
	}
	c = b; /* child c of the level-k node c >> 6 */
	for (unsigned k = 0; k < hb->nlevels; k++) {
		const struct hb_node *nd = &hb->lv[k][c >> HB_FAN_SHIFT];
		unsigned j = (unsigned)(c & 63);
		uint64_t nchild = k ? hb->lv_count[k - 1] : hb->nblocks;

		m = j == 63 ? 0 : ~nd->all & (~0ULL << (j + 1));
		if (m) {
			c = (c & ~63ULL) + (uint64_t)__builtin_ctzll(m);
			if (c >= nchild)
				return hb->capacity;
			x = (c << hb_child_shift(k)) + hb_child(hb, k, c).p;
			return x < hb->capacity ? x : hb->capacity;
		}
		c >>= HB_FAN_SHIFT;
	}
	return hb->capacity;
}

/* Highest allocated unit below x, or HB_NONE. */
static uint64_t hb_prev_set_fast(const struct rg_hbitmap *hb, uint64_t x)
{
	uint64_t b, i, c, m, wbeg, v;

	if (!x)
		return HB_NONE;
	b = (x - 1) >> HB_BLOCK_SHIFT;
	i = (x - 1) >> 6;
	wbeg = b * HB_BLOCK_WORDS;
	v = hb->words[i] & (~0ULL >> (63 - ((x - 1) & 63)));
	for (;;) {
		if (v)
			return (i << 6) + 63 - (uint64_t)__builtin_clzll(v);
		if (i == wbeg)
			break;
		v = hb->words[--i];
	}
	c = b;
	for (unsigned k = 0; k < hb->nlevels; k++) {
		const struct hb_node *nd = &hb->lv[k][c >> HB_FAN_SHIFT];
		unsigned j = (unsigned)(c & 63);

		m = ~nd->all & ((1ULL << j) - 1);
		if (m) {
			c = (c & ~63ULL) + 63 - (uint64_t)__builtin_clzll(m);
			return ((c + 1) << hb_child_shift(k)) - 1 -
			       hb_child(hb, k, c).s;
		}
		c >>= HB_FAN_SHIFT;
	}
	return HB_NONE;
}

/* Highest aligned fit in [top - len, top), or HB_NONE. */
static inline uint64_t hb_rev_fit(uint64_t top, uint64_t len, uint64_t n,
				  uint64_t mask)
{
	uint64_t t;

	if (len < n)
		return HB_NONE;
	t = (top - n) & ~mask;
	return t >= top - len ? t : HB_NONE;
}

/* hb_rev_node() inside the window [lo, hi), which meets node (k, idx). */
static uint64_t hb_rev_window(const struct rg_hbitmap *hb, unsigned k,
			      uint64_t idx, uint64_t n, uint64_t mask,
			      uint64_t lo, uint64_t hi)
{
	const struct hb_node *nd = &hb->lv[k][idx];
	unsigned sh = hb_child_shift(k);
	uint64_t csz = 1ULL << sh, base = idx << (sh + HB_FAN_SHIFT);
	uint64_t otop = 0, olen = 0, t;
	int jhi = hi - base >= (csz << HB_FAN_SHIFT) ?
			  63 :
			  (int)((hi - 1 - base) >> sh);
	int jlo = lo <= base ? 0 : (int)((lo - base) >> sh);

	for (int j = jhi; j >= jlo; j--) {
		uint64_t c = (idx << HB_FAN_SHIFT) + (uint64_t)j;
		uint64_t cs = base + (uint64_t)j * csz, ce = cs + csz;
		uint64_t clo = cs > lo ? cs : lo, chi = ce < hi ? ce : hi;
		struct hb_sum sm;

		if (!((nd->any >> j) & 1)) {
			if ((t = hb_rev_fit(otop, olen, n, mask)) != HB_NONE)
				return t;
			olen = 0;
			continue;
		}
		if ((nd->all >> j) & 1) {
			if (!olen)
				otop = chi;
			olen += chi - clo;
			continue;
		}
		sm = hb_child(hb, k, c);
		if (chi == ce) {
			/* the suffix, cut at lo, closes the open run */
			if (!olen)
				otop = ce;
			olen += sm.s < ce - clo ? sm.s : ce - clo;
			if ((t = hb_rev_fit(otop, olen, n, mask)) != HB_NONE)
				return t;
		}
		if (clo == cs && chi == ce) {
			if (sm.inner >= n) {
				t = k ? hb_rev_node(hb, k - 1, c, n, mask) :
					rgi_hb_find_rev(hb->words, cs, ce, n,
							mask);
				if (t != HB_NONE)
					return t;
			}
		} else {
			t = k ? hb_rev_window(hb, k - 1, c, n, mask, clo, chi) :
				rgi_hb_find_rev(hb->words, clo, chi, n, mask);
			if (t != HB_NONE)
				return t;
		}
		/* the prefix, cut at hi, opens the next run */
		olen = 0;
		if (clo == cs) {
			olen = sm.p < chi - cs ? sm.p : chi - cs;
			otop = cs + olen;
		}
	}
	return hb_rev_fit(otop, olen, n, mask);
}

static inline bool hb_crosses(uint64_t s, uint64_t n, uint64_t bmask)
{
	return bmask && ((s ^ (s + n - 1)) & ~bmask);
}

/* Lowest fit in [lo, hi) crossing no boundary, or HB_NONE. */
static uint64_t hb_win_lowest(const struct rg_hbitmap *hb, uint64_t n,
			      uint64_t align, uint64_t lo, uint64_t hi,
			      uint64_t bmask)
{
	uint64_t a;

	while (lo < hi && hi - lo >= n) {
		a = rgi_hb_search(hb, n, align, lo, hi);
		if (a == HB_NONE || !hb_crosses(a, n, bmask))
			return a;
		lo = (a | bmask) + 1;
	}
	return HB_NONE;
}

/* Highest fit in [lo, hi) crossing no boundary, or HB_NONE. */
static uint64_t hb_win_highest(const struct rg_hbitmap *hb, uint64_t n,
			       uint64_t align, uint64_t lo, uint64_t hi,
			       uint64_t bmask)
{
	uint64_t a;

	while (lo < hi && hi - lo >= n) {
		a = hb_rev_window(hb, hb->nlevels - 1, 0, n, align - 1, lo, hi);
		if (a == HB_NONE || !hb_crosses(a, n, bmask))
			return a;
		hi = (a + n - 1) & ~bmask;
	}
	return HB_NONE;
}

/* Best fit in [lo, hi) crossing no boundary, or HB_NONE. */
static uint64_t hb_win_best(const struct rg_hbitmap *hb, uint64_t n,
			    uint64_t align, uint64_t lo, uint64_t hi,
			    uint64_t bmask)
{
	uint64_t best = HB_NONE, blen = UINT64_MAX, a, ps, e;

	while (lo < hi && hi - lo >= n) {
		a = hb_win_lowest(hb, n, align, lo, hi, bmask);
		if (a == HB_NONE)
			break;
		ps = hb_prev_set_fast(hb, a);
		e = hb_next_set_fast(hb, a);
		if (e - (ps == HB_NONE ? 0 : ps + 1) < blen) {
			best = a;
			blen = e - (ps == HB_NONE ? 0 : ps + 1);
			if (blen == n)
				break;
		}
		lo = e;
	}
	return best;
}

int rg_hbitmap_alloc_window(struct rg_hbitmap *hb, uint64_t n, uint64_t align,
			    uint64_t min, uint64_t max, uint64_t boundary,
			    unsigned int place, uint64_t *start)
{
	uint64_t a, hi, bmask = boundary ? boundary - 1 : 0;

	if (unlikely(!hb || !start))
		return -EINVAL;
	if (n == 0 || n > hb->capacity || hb_bad_align(align) || min > max ||
	    (boundary && ((boundary & bmask) || boundary < n)) ||
	    place > RG_HBITMAP_HIGHEST)
		return -EINVAL;
	hi = max >= hb->capacity ? hb->capacity : max + 1;
	if (min >= hi || hi - min < n || n > hb->free_units)
		return -ENOSPC;
	if (hb->runs && place == RG_HBITMAP_BEST && !min &&
	    hi == hb->capacity) {
		/* no window: the best-fit index answers, as for alloc_best */
		int err;

		if (!hb->sum_stale)
			hb_go_stale(hb);
		err = rgi_hb_runs_alloc_bounded(hb, n, align - 1, bmask, start);
		if (err != -EAGAIN)
			return err;
	}
	if (hb->runs)
		rgi_hb_sync(hb);
	rgi_hb_flush(hb);
	if (place == RG_HBITMAP_LOWEST)
		a = hb_win_lowest(hb, n, align, min, hi, bmask);
	else if (place == RG_HBITMAP_HIGHEST)
		a = hb_win_highest(hb, n, align, min, hi, bmask);
	else
		a = hb_win_best(hb, n, align, min, hi, bmask);
	if (a == HB_NONE)
		return -ENOSPC;
	rgi_hb_take(hb, a, n, place != RG_HBITMAP_HIGHEST);
	*start = a;
	return 0;
}

/*
 * ---- Run walking -------------------------------------------------------
 *
 * rg_hbitmap_next_run() finds the lowest unit at or after a position whose
 * bit has the wanted value, then the lowest unit after it whose bit has the
 * other value. Each search scans the rest of the position's block by words
 * (at most 8), then climbs the levels: at each, the node's child masks name
 * the children that hold a wanted unit (any: a free unit; not all: an
 * allocated one), and the first such child past the climbing path is
 * descended, again by masks, down to one block whose words give the unit.
 * The pending block's summaries, and so its ancestors' mask bits, may be
 * stale: its path is always taken as a candidate and checked by its words,
 * which costs at most one extra descent per level. So a run costs
 * O(levels) mask operations and a few word scans, never a scan of the
 * units between runs. Best-fit instances whose summaries are behind the
 * bits (sum_stale) are scanned by words instead: this call only reads;
 * rg_hbitmap_sync() (called by the region walk before every step) makes
 * the summaries exact from the blocks that changed.
 */

/* Children of node (k, idx) that may hold a unit whose bit is @set. */
static uint64_t hb_walk_mask(const struct rg_hbitmap *hb, unsigned k,
			     uint64_t idx, bool set)
{
	const struct hb_node *nd = &hb->lv[k][idx];
	uint64_t nchild = k ? hb->lv_count[k - 1] : hb->nblocks;
	uint64_t first = idx << HB_FAN_SHIFT;
	uint64_t m = set ? ~nd->all : nd->any;

	if (nchild - first < 64)
		m &= (1ULL << (nchild - first)) - 1;
	if (hb->pend != HB_NONE && hb->pend >> (HB_FAN_SHIFT * (k + 1)) == idx)
		m |= 1ULL << ((hb->pend >> (HB_FAN_SHIFT * k)) & 63);
	if (hb->chain_s != HB_NONE) {
		/* the children holding part of the deferred run */
		unsigned sh = hb_child_shift(k);
		uint64_t c0 = hb->chain_s >> sh, c1 = (hb->chain_e - 1) >> sh;

		if (c0 <= first + 63 && c1 >= first)
			m |= hb_span_mask(
				c0 <= first ? 0 : (unsigned)(c0 - first),
				c1 >= first + 63 ? 63 : (unsigned)(c1 - first));
	}
	return m;
}

/*
 * Lowest unit whose bit is @set under children @i0 .. 63 of node (k, idx),
 * or HB_NONE.
 */
static uint64_t hb_walk_node(const struct rg_hbitmap *hb, unsigned k,
			     uint64_t idx, unsigned i0, bool set)
{
	uint64_t m =
		i0 < 64 ? hb_walk_mask(hb, k, idx, set) & (~0ULL << i0) : 0;

	while (m) {
		uint64_t c =
			(idx << HB_FAN_SHIFT) + (uint64_t)__builtin_ctzll(m);
		uint64_t u;

		m &= m - 1;
		if (k == 0) {
			uint64_t b0 = c << HB_BLOCK_SHIFT;

			u = rgi_hb_next_bit(hb->words, b0, b0 + HB_BLOCK_BITS,
					    set);
			if (u < b0 + HB_BLOCK_BITS)
				return u;
		} else {
			u = hb_walk_node(hb, k - 1, c, 0, set);
			if (u != HB_NONE)
				return u;
		}
	}
	return HB_NONE;
}

/* Lowest unit u >= x whose bit is @set (padding counts as set), or HB_NONE. */
static uint64_t hb_walk_find(const struct rg_hbitmap *hb, uint64_t x, bool set)
{
	uint64_t b = x >> HB_BLOCK_SHIFT, end = (b + 1) << HB_BLOCK_SHIFT, u;

	if (hb->sum_stale) {
		end = hb->nblocks << HB_BLOCK_SHIFT;
		u = rgi_hb_next_bit(hb->words, x, end, set);
		return u < end ? u : HB_NONE;
	}
	u = rgi_hb_next_bit(hb->words, x, end, set);
	if (u < end)
		return u;
	for (unsigned k = 0; k < hb->nlevels; k++) {
		u = hb_walk_node(hb, k, b >> HB_FAN_SHIFT,
				 (unsigned)(b & 63) + 1, set);
		if (u != HB_NONE)
			return u;
		b >>= HB_FAN_SHIFT;
	}
	return HB_NONE;
}

int rg_hbitmap_next_run(const struct rg_hbitmap *hb, uint64_t from,
			int allocated, uint64_t *start, uint64_t *n)
{
	bool set = allocated != 0;
	uint64_t s, e;

	if (!hb || !start || !n)
		return -EINVAL;
	if (from >= hb->capacity)
		return -ENOENT;
	s = hb_walk_find(hb, from, set);
	if (s == HB_NONE || s >= hb->capacity)
		return -ENOENT;
	e = hb_walk_find(hb, s, !set);
	if (e == HB_NONE || e > hb->capacity)
		e = hb->capacity;
	*start = s;
	*n = e - s;
	return 0;
}
