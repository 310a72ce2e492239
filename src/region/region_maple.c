// SPDX-License-Identifier: MIT
/*
 * region backend "maple": theory of operation.
 *
 * An allocation tree (RG_MT_FLAGS_ALLOC_RANGE) holds one entry per region:
 * the range [start, start + n - 1] maps to a constant value entry; every
 * free unit maps to NULL. Units at or past the capacity are never stored.
 *
 * alloc without alignment is the kernel benchmark's call exactly:
 * rg_mtree_alloc_range(size n, min 0, max capacity - 1), the lowest gap
 * that fits, found through the internal nodes' gap values. With alignment,
 * rg_mtree_alloc_range_aligned(): the same search, which takes the lowest
 * start at a multiple of the alignment in each free run it reaches.
 *
 * Top-down: rg_mtree_alloc_rrange_aligned() (alignment 1 when none), the
 * highest aligned fit. Next fit: the first-fit search with min at the
 * cursor, then once from 0. Best fit is not offered (-EOPNOTSUPP).
 *
 * free(start, n) under the tree lock: walk to start; when one entry covers
 * exactly [start, start + n - 1] (the usual case) it is erased in place by
 * storing NULL over the walked range. Otherwise every unit of the range
 * must be covered by entries (walked range by range), and NULL is stored
 * over the range, which cuts the entries at its ends. reserve is
 * rg_mtree_insert_range (-EEXIST means a unit is taken: -EBUSY).
 *
 * Nodes come from the maple module's slab cache; a store that cannot get
 * its nodes returns -ENOMEM and leaves the tree unchanged, which is the
 * region API's contract. Bytes held: rg_mtree_bytes() (live nodes x 256 +
 * the tree), a counted O(1) read.
 */
#include <errno.h>
#include <limits.h>

#include "region/maple_tree.h"
#include "region_internal.h"

#define REGION_ENTRY rg_mt_mk_value(1)

static int mp_init(struct rg_region *r)
{
	struct rg_maple_tree *mt = rgi_malloc(sizeof(*mt));
	int err;

	if (!mt)
		return -ENOMEM;
	err = rg_mtree_init(mt, RG_MT_FLAGS_ALLOC_RANGE);
	if (err) {
		rgi_free(mt);
		return err;
	}
	r->priv = mt;
	return 0;
}

static void mp_fini(struct rg_region *r)
{
	rg_mtree_destroy(r->priv);
	rgi_free(r->priv);
}

/* Lowest fit in [min, max], at a multiple of mask + 1. */
static int mp_alloc_first(struct rg_maple_tree *mt, unsigned long min,
			  unsigned long max, unsigned long n,
			  unsigned long mask, unsigned long *start)
{
	int err;

	if (n - 1 > max - min)
		return -ENOSPC;
	if (mask)
		err = rg_mtree_alloc_range_aligned(mt, start, REGION_ENTRY, n,
						   min, max, mask + 1);
	else
		err = rg_mtree_alloc_range(mt, start, REGION_ENTRY, n, min,
					   max);
	return err == -EBUSY ? -ENOSPC : err;
}

/* Highest fit in [0, max], at a multiple of mask + 1. */
static int mp_alloc_top(struct rg_maple_tree *mt, unsigned long max,
			unsigned long n, unsigned long mask,
			unsigned long *start)
{
	int err;

	if (n - 1 > max)
		return -ENOSPC;
	err = rg_mtree_alloc_rrange_aligned(mt, start, REGION_ENTRY, n, 0, max,
					    mask + 1);
	return err == -EBUSY ? -ENOSPC : err;
}

static int mp_alloc(struct rg_region *r, unsigned long n, unsigned long mask,
		    unsigned long *start)
{
	struct rg_maple_tree *mt = r->priv;
	unsigned long max = r->capacity - 1;
	int err;

	switch (r->policy) {
	case RG_REGION_TOP_DOWN:
		return mp_alloc_top(mt, max, n, mask, start);
	case RG_REGION_NEXT_FIT:
		err = -ENOSPC;
		if (rgi_next_fit_from(r))
			err = mp_alloc_first(mt, rgi_next_fit_from(r), max, n,
					     mask, start);
		if (err == -ENOSPC)
			err = mp_alloc_first(mt, 0, max, n, mask, start);
		if (!err)
			rgi_next_fit_done(r, *start, n);
		return err;
	default:
		return mp_alloc_first(mt, 0, max, n, mask, start);
	}
}

static int mp_free(struct rg_region *r, unsigned long start, unsigned long n)
{
	struct rg_maple_tree *mt = r->priv;
	unsigned long last = start + n - 1, pos;
	RG_MA_STATE(mas, mt, start, start);
	int err = 0;

	rg_mtree_lock(mt);
	if (!rg_mas_walk(&mas)) {
		err = -ENOENT;
		goto out;
	}
	if (mas.index != start || mas.last != last) {
		/* Every unit of [start, last] must be covered. */
		for (pos = mas.last; pos < last;) {
			rg_mas_set(&mas, pos + 1);
			if (!rg_mas_walk(&mas)) {
				err = -ENOENT;
				goto out;
			}
			pos = mas.last;
		}
		rg_mas_set_range(&mas, start, last);
	}
	err = rg_mas_store_gfp(&mas, NULL, 0);
out:
	rg_mtree_unlock(mt);
	return err;
}

static int mp_reserve(struct rg_region *r, unsigned long start, unsigned long n)
{
	int err = rg_mtree_insert_range(r->priv, start, start + n - 1,
					REGION_ENTRY);

	return err == -EEXIST ? -EBUSY : err;
}

static bool mp_test(struct rg_region *r, unsigned long unit)
{
	return rg_mtree_load(r->priv, unit) != NULL;
}

/*
 * Visit the entries in order: the largest gap between them (within the
 * capacity) and the number of units they cover.
 */
static void mp_scan(struct rg_region *r, unsigned long *largest,
		    unsigned long *used, bool *beyond)
{
	struct rg_maple_tree *mt = r->priv;
	unsigned long next = 0, best = 0, n = 0, cap = r->capacity;
	RG_MA_STATE(mas, mt, 0, 0);

	*beyond = false;
	rg_mtree_lock(mt);
	while (rg_mas_find(&mas, ULONG_MAX)) {
		if (mas.last >= cap) {
			*beyond = true;
			break;
		}
		if (mas.index - next > best)
			best = mas.index - next;
		n += mas.last - mas.index + 1;
		next = mas.last + 1;
	}
	rg_mtree_unlock(mt);
	if (cap - next > best)
		best = cap - next;
	*largest = best;
	*used = n;
}

static unsigned long mp_largest_free(struct rg_region *r)
{
	unsigned long largest, used;
	bool beyond;

	mp_scan(r, &largest, &used, &beyond);
	return largest;
}

static size_t mp_bytes(struct rg_region *r)
{
	return rg_mtree_bytes(r->priv);
}

static int mp_validate(struct rg_region *r, unsigned long *used,
		       const char **reason)
{
	unsigned long largest;
	bool beyond;
	int err = rg_mtree_validate(r->priv, reason);

	if (err)
		return err;
	mp_scan(r, &largest, used, &beyond);
	if (beyond) {
		*reason = "an entry lies past the capacity";
		return -EINVAL;
	}
	return 0;
}

static void mp_dump(struct rg_region *r, FILE *f)
{
	rg_mtree_dump(r->priv, f);
}

/*
 * Constrained requests, under the tree lock. First fit: the lowest gap of
 * n units in [lo, hi] (rg_mas_empty_area), a walk for its end, the lowest
 * start in it that meets the request (rgi_req_lowest), else the search
 * goes on past the gap. Top-down: the same from the top with
 * rg_mas_empty_area_rev and rgi_req_highest, going on below the gap.
 * Every gap skipped is one that holds n units but no start meeting the
 * request (misaligned, or cut by boundaries). One store at the end.
 */
static int mp_alloc_req(struct rg_region *r, const struct rgi_req *q,
			unsigned long *start)
{
	struct rg_maple_tree *mt = r->priv;
	unsigned long min = q->lo, max = q->hi, a, e, s = 0;
	bool top = q->policy == RG_REGION_TOP_DOWN, found = false;
	RG_MA_STATE(mas, mt, 0, 0);
	int err = 0;

	rg_mtree_lock(mt);
	while (!found) {
		if (max < min || q->n - 1 > max - min) {
			err = -ENOSPC;
			break;
		}
		rg_mas_reset(&mas);
		err = top ? rg_mas_empty_area_rev(&mas, min, max, q->n) :
			    rg_mas_empty_area(&mas, min, max, q->n);
		if (err) {
			err = err == -ENOMEM ? -ENOMEM : -ENOSPC;
			break;
		}
		rg_mas_set(&mas, top ? mas.last : mas.index);
		rg_mas_walk(&mas); /* the whole empty range */
		a = RGI_MAX(mas.index, min);
		e = RGI_MIN(mas.last, max);
		found = top ? rgi_req_highest(q, a, e + 1, &s) :
			      rgi_req_lowest(q, a, e + 1, &s);
		if (found)
			break;
		if (top) {
			if (a <= min)
				err = -ENOSPC;
			else
				max = a - 1;
		} else {
			if (e >= max)
				err = -ENOSPC;
			else
				min = e + 1;
		}
		if (err)
			break;
	}
	if (found) {
		rg_mas_set_range(&mas, s, s + q->n - 1);
		err = rg_mas_store_gfp(&mas, REGION_ENTRY, 0);
		if (!err)
			*start = s;
	}
	rg_mtree_unlock(mt);
	return err;
}

/* Growing changes nothing; a shrink needs no entry at or past @cap. */
static int mp_resize(struct rg_region *r, unsigned long cap)
{
	struct rg_maple_tree *mt = r->priv;
	RG_MA_STATE(mas, mt, cap, cap);
	void *entry;

	if (cap > r->capacity)
		return 0;
	rg_mtree_lock(mt);
	entry = rg_mas_find(&mas, ULONG_MAX);
	rg_mtree_unlock(mt);
	return entry ? -EBUSY : 0;
}

/*
 * Walking: rg_mas_find_range() steps through the ranges from the one
 * holding @from, entries and gaps alike; ranges in the unwanted state are
 * stepped over, then those in the wanted one (adjacent regions are
 * separate entries). Each step continues from the leaf it stands on.
 */
static int mp_next_run(struct rg_region *r, unsigned long from, bool used,
		       unsigned long *start, unsigned long *n)
{
	struct rg_maple_tree *mt = r->priv;
	unsigned long pos = from, cap = r->capacity, s = cap;
	RG_MA_STATE(mas, mt, from, from);
	void *entry;

	rg_mtree_lock(mt);
	entry = rg_mas_find_range(&mas, cap - 1);
	/* An empty range reaching the end overflows, standing on it. */
	while (mas.status == RG_MAS_ACTIVE || mas.status == RG_MAS_OVERFLOW) {
		bool taken = entry != NULL;

		if (taken == used && s == cap)
			s = pos;
		else if (taken != used && s != cap)
			break;
		if (mas.last >= cap - 1) {
			pos = cap;
			break;
		}
		pos = mas.last + 1;
		entry = rg_mas_find_range(&mas, cap - 1);
	}
	rg_mtree_unlock(mt);
	if (s >= cap)
		return -ENOENT;
	*start = s;
	*n = (pos < cap ? pos : cap) - s;
	return 0;
}

const struct rgi_region_ops rgi_region_maple_ops = {
	.max_capacity = ULONG_MAX,
	.bytes_vary = true,
	.policies = RGI_POLICY_BIT(RG_REGION_FIRST_FIT) |
		    RGI_POLICY_BIT(RG_REGION_TOP_DOWN) |
		    RGI_POLICY_BIT(RG_REGION_NEXT_FIT),
	.init = mp_init,
	.fini = mp_fini,
	.alloc = mp_alloc,
	.free = mp_free,
	.reserve = mp_reserve,
	.test = mp_test,
	.largest_free = mp_largest_free,
	.bytes = mp_bytes,
	.validate = mp_validate,
	.dump = mp_dump,
	.req_policies = RGI_POLICY_BIT(RG_REGION_FIRST_FIT) |
			RGI_POLICY_BIT(RG_REGION_TOP_DOWN),
	.alloc_req = mp_alloc_req,
	.resize = mp_resize,
	.next_run = mp_next_run,
};
