// SPDX-License-Identifier: MIT
/*
 * region backend "bitmap": theory of operation.
 *
 * One bit per unit in a zeroed array from rg_bitmap_zalloc(), allocated at
 * creation; nothing is allocated afterwards. An allocation is the kernel's
 * zero-area search from unit 0 (rg_bitmap_find_next_zero_area_off with the
 * alignment mask) followed by setting the bits, so its cost grows with the
 * allocated prefix it has to skip: O(capacity / 64) words per call, and a
 * fill of the whole map is quadratic, which is what the seed benchmark
 * shows. Free and reserve check the range a word at a time (all set / all
 * clear) before clearing or setting it, so bad input changes nothing.
 * Bytes held: the array, ceil(capacity / 64) words.
 *
 * Policies: next fit is the same search started at the cursor, then (once)
 * from unit 0. Best fit and top-down visit every free run in address order
 * (find the next zero bit, then the next set bit) and keep the smallest
 * run that holds an aligned fit (strictly smaller replaces, so the lowest
 * wins among equals) or the last run that does (its highest aligned start):
 * always O(capacity / 64 + runs), a reference more than a fast path.
 */
#include <errno.h>

#include "region/bitmap.h"
#include "region_internal.h"

static int bm_init(struct rg_region *r)
{
	r->priv = rg_bitmap_zalloc(r->capacity);
	return r->priv ? 0 : -ENOMEM;
}

static void bm_fini(struct rg_region *r)
{
	rg_bitmap_free(r->priv);
}

/*
 * Best fit (@top false) or top-down (@top true) by visiting every free run:
 * the start, or r->capacity if nothing fits.
 */
static unsigned long bm_scan_runs(struct rg_region *r, unsigned long n,
				  unsigned long mask, bool top)
{
	const unsigned long *map = r->priv;
	unsigned long cap = r->capacity, a = 0, b, s, best = cap, blen = ~0UL;

	while ((a = rg_bitmap_find_next_zero_bit(map, cap, a)) < cap) {
		b = rg_bitmap_find_next_bit(map, cap, a);
		if (b - a >= n) {
			if (top) {
				s = (b - n) & ~mask;
				if (s >= a)
					best = s;
			} else {
				s = rgi_align_up(a, mask);
				if (s >= a && s <= b - n && b - a < blen) {
					best = s;
					blen = b - a;
				}
			}
		}
		a = b;
	}
	return best;
}

static int bm_alloc(struct rg_region *r, unsigned long n, unsigned long mask,
		    unsigned long *start)
{
	unsigned long *map = r->priv, s, from = 0;

	switch (r->policy) {
	case RG_REGION_BEST_FIT:
		s = bm_scan_runs(r, n, mask, false);
		break;
	case RG_REGION_TOP_DOWN:
		s = bm_scan_runs(r, n, mask, true);
		break;
	case RG_REGION_NEXT_FIT:
		from = rgi_next_fit_from(r);
		/* fall through */
	default:
		s = rg_bitmap_find_next_zero_area_off(map, r->capacity, from, n,
						      mask, 0);
		if (s >= r->capacity && from)
			s = rg_bitmap_find_next_zero_area_off(map, r->capacity,
							      0, n, mask, 0);
		break;
	}
	if (s >= r->capacity)
		return -ENOSPC;
	rg_bitmap_set_range(map, s, n);
	*start = s;
	if (r->policy == RG_REGION_NEXT_FIT)
		rgi_next_fit_done(r, s, n);
	return 0;
}

/* Mask of bits start .. start + n - 1 if they share one word, else 0. */
static inline unsigned long one_word_mask(unsigned long start, unsigned long n)
{
	unsigned long off = start % RG_BITS_PER_LONG;

	if (off + n > RG_BITS_PER_LONG)
		return 0;
	return (~0UL >> (RG_BITS_PER_LONG - n)) << off;
}

static int bm_free(struct rg_region *r, unsigned long start, unsigned long n)
{
	unsigned long *map = r->priv, m = one_word_mask(start, n);

	if (m) { /* the common case: check and clear one word */
		unsigned long *w = &map[start / RG_BITS_PER_LONG];

		if ((*w & m) != m)
			return -ENOENT;
		*w &= ~m;
		return 0;
	}
	if (!rg_bitmap_range_is_set(map, start, n))
		return -ENOENT;
	rg_bitmap_clear_range(map, start, n);
	return 0;
}

static int bm_reserve(struct rg_region *r, unsigned long start, unsigned long n)
{
	unsigned long *map = r->priv;

	if (!rg_bitmap_range_is_clear(map, start, n))
		return -EBUSY;
	rg_bitmap_set_range(map, start, n);
	return 0;
}

static bool bm_test(struct rg_region *r, unsigned long unit)
{
	return rg_bitmap_test(r->priv, unit);
}

static unsigned long bm_largest_free(struct rg_region *r)
{
	const unsigned long *map = r->priv;
	unsigned long i = 0, e, best = 0, cap = r->capacity;

	while ((i = rg_bitmap_find_next_zero_bit(map, cap, i)) < cap) {
		e = rg_bitmap_find_next_bit(map, cap, i);
		if (e - i > best)
			best = e - i;
		i = e;
	}
	return best;
}

static size_t bm_bytes(struct rg_region *r)
{
	return RG_BITS_TO_LONGS(r->capacity) * sizeof(unsigned long);
}

static int bm_validate(struct rg_region *r, unsigned long *used,
		       const char **reason)
{
	int err = rg_bitmap_validate(r->priv, r->capacity, reason);

	*used = rg_bitmap_weight(r->priv, r->capacity);
	return err;
}

static void bm_dump(struct rg_region *r, FILE *f)
{
	rg_bitmap_dump(r->priv, r->capacity, f);
}

/*
 * Constrained requests: every free run that reaches into the window, in
 * address order. A run is [a, e): a is its start in the window, e its true
 * end (past the window if it goes on); best fit also needs the true start
 * of the first run, which may lie below the window. rgi_req_lowest() and
 * rgi_req_highest() place the request inside the run's part in the window.
 * O(window / 64 + runs), plus the two runs' extents outside it.
 */
static int bm_alloc_req(struct rg_region *r, const struct rgi_req *q,
			unsigned long *start)
{
	unsigned long *map = r->priv, cap = r->capacity, end = q->hi + 1;
	unsigned long a = q->lo, e, ta, s, best = cap, blen = ~0UL;

	while ((a = rg_bitmap_find_next_zero_bit(map, end, a)) < end) {
		e = rg_bitmap_find_next_bit(map, cap, a);
		if (q->policy == RG_REGION_TOP_DOWN) {
			if (rgi_req_highest(q, a, e, &s))
				best = s;
		} else if (rgi_req_lowest(q, a, e, &s)) {
			if (q->policy == RG_REGION_FIRST_FIT) {
				best = s;
				break;
			}
			ta = a;
			if (a == q->lo && a) {
				ta = rg_bitmap_find_last_bit(map, a);
				ta = ta == a ? 0 : ta + 1;
			}
			if (e - ta < blen) {
				best = s;
				blen = e - ta;
			}
		}
		a = e;
	}
	if (best >= cap)
		return -ENOSPC;
	rg_bitmap_set_range(map, best, q->n);
	*start = best;
	return 0;
}

/* A new array: the old bits below both capacities, the rest clear. */
static int bm_resize(struct rg_region *r, unsigned long cap)
{
	unsigned long *map = r->priv, *nm;

	if (cap < r->capacity &&
	    !rg_bitmap_range_is_clear(map, cap, r->capacity - cap))
		return -EBUSY;
	nm = rg_bitmap_zalloc(cap);
	if (!nm)
		return -ENOMEM;
	rg_bitmap_copy(nm, map, RGI_MIN(cap, r->capacity));
	rg_bitmap_free(map);
	r->priv = nm;
	return 0;
}

/* Walking: the next set (or clear) bit, then the next bit of the other. */
static int bm_next_run(struct rg_region *r, unsigned long from, bool used,
		       unsigned long *start, unsigned long *n)
{
	const unsigned long *map = r->priv;
	unsigned long cap = r->capacity, s, e;

	s = used ? rg_bitmap_find_next_bit(map, cap, from) :
		   rg_bitmap_find_next_zero_bit(map, cap, from);
	if (s >= cap)
		return -ENOENT;
	e = used ? rg_bitmap_find_next_zero_bit(map, cap, s) :
		   rg_bitmap_find_next_bit(map, cap, s);
	*start = s;
	*n = (e < cap ? e : cap) - s;
	return 0;
}

const struct rgi_region_ops rgi_region_bitmap_ops = {
	.max_capacity = ~0UL - RG_BITS_PER_LONG,
	.bytes_vary = false,
	.policies = RGI_POLICY_BIT(RG_REGION_FIRST_FIT) |
		    RGI_POLICY_BIT(RG_REGION_BEST_FIT) |
		    RGI_POLICY_BIT(RG_REGION_TOP_DOWN) |
		    RGI_POLICY_BIT(RG_REGION_NEXT_FIT),
	.init = bm_init,
	.fini = bm_fini,
	.alloc = bm_alloc,
	.free = bm_free,
	.reserve = bm_reserve,
	.test = bm_test,
	.largest_free = bm_largest_free,
	.bytes = bm_bytes,
	.validate = bm_validate,
	.dump = bm_dump,
	.req_policies = RGI_POLICY_BIT(RG_REGION_FIRST_FIT) |
			RGI_POLICY_BIT(RG_REGION_BEST_FIT) |
			RGI_POLICY_BIT(RG_REGION_TOP_DOWN),
	.alloc_req = bm_alloc_req,
	.resize = bm_resize,
	.next_run = bm_next_run,
};
