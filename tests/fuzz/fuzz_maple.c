// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the Maple Tree, normal and advanced API, against a sorted
 * array of ranges.
 *
 * Input: a flags byte (allocation tree, no vacancy, RCU mode), then operations:
 * store_range, insert_range, store, insert, erase, erase_err, the advanced
 * store (rg_mas_store(), rg_mas_store_gfp()), preallocated store, preallocation
 * given back unused, erase, alloc_range / alloc_rrange and their _aligned
 * forms, alloc_cyclic (normal and advanced), gap searches
 * (rg_mas_empty_area*(), aligned too), load, find, walk, chains of
 * rg_mas_find() / find_range() / prev_range() / next / prev / next_range with
 * pauses and resets, stores through an iterating state, reads under the RCU
 * read lock alone, NULL arguments. Indices favour a small window (so ranges
 * collide) and the edges of the index space (0, ULONG_MAX, powers of two).
 * Every result is compared with the model; after every operation the tree is
 * validated, rg_mtree_empty() is compared and, when the model is empty, the
 * tree must hold no node. Every 16 operations, after every fired fault and at
 * the end, the whole tree is iterated forwards and backwards and compared range
 * by range (the tree never merges non-empty ranges, so the ranges must match
 * exactly).
 */
#include <urcu/urcu-memb.h>

#include "fuzz.h"

#include "region/maple_tree.h"

#define MAX_RANGES 1024
#define STORE_ROOM 3 /* a store splits at most one range in two */

struct range {
	unsigned long first, last;
	void *entry;
};

static struct range rg[MAX_RANGES];
static unsigned int nr;
static bool alloc_tree;
/* The last cyclic allocation took ULONG_MAX: the next one reports 1. */
static bool cyc_wrapped;
static size_t empty_bytes;

/* ---- the model ---- */

/* Index of the first range with last >= @i (nr if none). */
static unsigned int model_pos(unsigned long i)
{
	unsigned int lo = 0, hi = nr;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (rg[mid].last < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void *model_load(unsigned long i)
{
	unsigned int p = model_pos(i);

	return p < nr && rg[p].first <= i ? rg[p].entry : NULL;
}

/* What the normal API reads: the zero entry reads as NULL. */
static bool is_zero(const void *e)
{
#ifdef RG_MT_ZERO_ENTRY
	return e == RG_MT_ZERO_ENTRY;
#else
	return e && false;
#endif
}

static void *model_read(unsigned long i)
{
	void *e = model_load(i);

	return is_zero(e) ? NULL : e;
}

static bool model_overlaps(unsigned long first, unsigned long last)
{
	unsigned int p = model_pos(first);

	return p < nr && rg[p].first <= last;
}

/* Overwrite [first, last] with @entry (NULL: erase it). */
static void model_store(unsigned long first, unsigned long last, void *entry)
{
	static struct range out[MAX_RANGES];
	unsigned int n = 0, i;

	for (i = 0; i < nr && rg[i].last < first; i++)
		out[n++] = rg[i];
	if (i < nr && rg[i].first < first) {
		out[n] = rg[i];
		out[n++].last = first - 1;
	}
	if (entry)
		out[n++] = (struct range){ first, last, entry };
	for (; i < nr && rg[i].last <= last; i++)
		;
	if (i < nr && rg[i].first <= last) {
		out[n] = rg[i];
		out[n++].first = last + 1;
		i++;
	}
	for (; i < nr; i++)
		out[n++] = rg[i];
	memcpy(rg, out, n * sizeof(*rg));
	nr = n;
}

/* The empty range holding @i: [*lo, *hi]. Requires model_load(i) NULL. */
static void model_gap(unsigned long i, unsigned long *lo, unsigned long *hi)
{
	unsigned int p = model_pos(i);

	*lo = p ? rg[p - 1].last + 1 : 0;
	*hi = p < nr ? rg[p].first - 1 : ~0UL;
}

/*
 * Lowest (or highest) start of @size free indices inside [min, max] that is
 * a multiple of @align (a power of two).
 */
static bool model_fit(unsigned long min, unsigned long max, unsigned long size,
		      unsigned long align, bool rev, unsigned long *start)
{
	unsigned long mask = align - 1;
	bool found = false;
	unsigned long lo = 0;

	for (unsigned int i = 0; i <= nr; i++) {
		unsigned long hi = i < nr ? rg[i].first : 0;
		bool has_hi = i < nr;
		unsigned long a, b, s; /* free [a, b] */

		if (i > 0 && rg[i - 1].last == ~0UL)
			break;
		if (has_hi && hi == lo) {
			lo = rg[i].last + 1;
			continue;
		}
		a = lo > min ? lo : min;
		b = has_hi ? hi - 1 : ~0UL;
		if (b > max)
			b = max;
		if (a <= b && b - a >= size - 1) {
			if (!rev) {
				s = (a + mask) & ~mask;
				if (s >= a && s <= b && b - s >= size - 1) {
					*start = s;
					return true;
				}
			} else {
				s = (b - (size - 1)) & ~mask;
				if (s >= a) {
					*start = s;
					found = true;
				}
			}
		}
		if (!has_hi)
			break;
		lo = rg[i].last + 1;
		if (rg[i].last == ~0UL)
			break;
	}
	return found;
}

/* ---- input decoding ---- */

static unsigned long pick_idx(struct fz *f)
{
	uint8_t k = fz_u8(f);

	if (k < 160)
		return fz_u8(f) + ((unsigned long)(k & 7) << 8);
	if (k < 192 && nr) {
		struct range *r = &rg[fz_below(f, nr)];

		switch (k & 3) {
		case 0:
			return r->first;
		case 1:
			return r->last;
		case 2:
			return r->first - 1;
		default:
			return r->last + 1;
		}
	}
	return fz_index(f);
}

static void pick_range(struct fz *f, unsigned long *first, unsigned long *last)
{
	uint8_t k = fz_u8(f);
	unsigned long len;

	*first = pick_idx(f);
	if (k < 128)
		len = k % 8;
	else if (k < 240)
		len = fz_u8(f) * (unsigned long)(k & 15);
	else if (k < 250)
		len = ~0UL;
	else
		len = pick_idx(f); /* an absolute end, maybe before first */
	if (k >= 250)
		*last = len;
	else
		*last = len > ~0UL - *first ? ~0UL : *first + len;
}

static void *pick_entry(struct fz *f)
{
	uint8_t k = fz_u8(f);

	if (k < 200)
		return (void *)(uintptr_t)(((uintptr_t)k + 1) << 4);
	if (k < 230)
		return rg_mt_mk_value(fz_u16(f));
#ifdef RG_MT_ZERO_ENTRY
	if (k >= 245 && k < 250)
		return RG_MT_ZERO_ENTRY; /* holds its range, loads as NULL */
#endif
	if (k < 250)
		return NULL;
	return (void *)(uintptr_t)((fz_u8(f) << 2 | 2) & 4095); /* reserved */
}

static bool reserved(void *e)
{
	return rg_mt_is_reserved(e);
}

/* ---- checks ---- */

static void check_valid(struct fz *f, struct rg_maple_tree *mt)
{
	const char *why = NULL;
	struct rg_mtree_stats st;

	if (rg_mtree_validate(mt, &why))
		FZ_FAIL(f, "validate: %s", why ? why : "?");
	FZ_EQ(f, rg_mtree_empty(mt), nr == 0, "empty");
	if (!nr)
		FZ_EQ(f, rg_mtree_bytes(mt), empty_bytes,
		      "bytes held by an empty tree");
	FZ_EQ(f, rg_mtree_get_stats(mt, &st), 0, "get_stats");
	FZ_EQ(f, st.overuse, 0, "stores that used more nodes than requested");
}

static void check_all(struct fz *f, struct rg_maple_tree *mt)
{
	RG_MA_STATE(mas, mt, 0, 0);
	unsigned int i = 0;
	void *e;

	rg_mtree_lock(mt);
	rg_mas_for_each(&mas, e, ~0UL)
	{
		FZ_CHECK(f, i < nr, "iteration: extra range [%lu, %lu]",
			 mas.index, mas.last);
		FZ_CHECK(
			f,
			mas.index == rg[i].first && mas.last == rg[i].last &&
				e == rg[i].entry,
			"iteration: range %u is [%lu, %lu] %p, want [%lu, %lu] %p",
			i, mas.index, mas.last, e, rg[i].first, rg[i].last,
			rg[i].entry);
		i++;
		if (mas.last == ~0UL)
			break;
	}
	FZ_EQ(f, i, nr, "ranges seen by forward iteration");
	rg_mas_set(&mas, ~0UL);
	while ((e = rg_mas_find_rev(&mas, 0))) {
		FZ_CHECK(f, i > 0, "reverse iteration: extra range [%lu, %lu]",
			 mas.index, mas.last);
		i--;
		FZ_CHECK(
			f,
			mas.index == rg[i].first && mas.last == rg[i].last &&
				e == rg[i].entry,
			"reverse iteration: range %u is [%lu, %lu], want [%lu, %lu]",
			i, mas.index, mas.last, rg[i].first, rg[i].last);
		if (mas.index == 0)
			break;
	}
	FZ_EQ(f, i, 0, "ranges missed by reverse iteration");
	rg_mtree_unlock(mt);
	for (i = 0; i < nr; i++) {
		FZ_CHECK(f,
			 rg_mtree_load(mt, rg[i].first) ==
				 model_read(rg[i].first),
			 "load(%lu)", rg[i].first);
		FZ_CHECK(f,
			 rg_mtree_load(mt, rg[i].last) ==
				 model_read(rg[i].last),
			 "load(%lu)", rg[i].last);
		if (rg[i].last != ~0UL)
			FZ_CHECK(f,
				 rg_mtree_load(mt, rg[i].last + 1) ==
					 model_read(rg[i].last + 1),
				 "load(%lu)", rg[i].last + 1);
	}
}

/* ---- operations ---- */

/* store_range, insert_range, mas_store_gfp, preallocate + store_prealloc. */
static void op_store(struct fz *f, struct rg_maple_tree *mt, unsigned int kind,
		     bool armed)
{
	unsigned long first, last;
	void *entry;
	bool overlap;
	int rc, exp;

	pick_range(f, &first, &last);
	entry = pick_entry(f);
	if (nr + STORE_ROOM > MAX_RANGES) {
		fz_op_end(f, armed);
		return;
	}
	overlap = first <= last && model_overlaps(first, last);
	switch (kind) {
	case 0:
		rc = rg_mtree_store_range(mt, first, last, entry);
		break;
	case 1:
		rc = rg_mtree_insert_range(mt, first, last, entry);
		break;
	case 2: {
		RG_MA_STATE(mas, mt, first, last);

		rg_mtree_lock(mt);
		rc = rg_mas_store_gfp(&mas, entry, 0);
		rg_mtree_unlock(mt);
		break;
	}
	default: {
		RG_MA_STATE(mas, mt, first, last);

		rg_mtree_lock(mt);
		rc = rg_mas_preallocate(&mas, entry, 0);
		if (!rc) {
			/* Storing from preallocated nodes cannot fail. */
			rg_fault_inject(0);
			rg_mas_store_prealloc(&mas, entry);
		}
		rg_mtree_unlock(mt);
		break;
	}
	}
	if (fz_op_failed(f, armed, rc == -ENOMEM)) {
		check_all(f, mt);
		return;
	}
	if (first > last || reserved(entry))
		exp = -EINVAL;
	else if (kind == 1 && overlap)
		exp = -EEXIST;
	else
		exp = 0;
	FZ_CHECK(f, rc == exp, "store kind %u [%lu, %lu] %p = %d, want %d",
		 kind, first, last, entry, rc, exp);
	if (!rc)
		model_store(first, last, entry);
}

/* erase, erase_err, mas_erase. */
static void op_erase(struct fz *f, struct rg_maple_tree *mt, unsigned int kind,
		     bool armed)
{
	unsigned long i = pick_idx(f);
	unsigned int p = model_pos(i);
	void *want = model_load(i), *old = (void *)1;
	unsigned long lo = 0, hi = 0;
	int rc = 0;

	switch (kind) {
	case 0:
		old = rg_mtree_erase(mt, i);
		break;
	case 1:
		rc = rg_mtree_erase_err(mt, i, &old);
		break;
	default: {
		RG_MA_STATE(mas, mt, i, i);

		rg_mtree_lock(mt);
		old = rg_mas_erase(&mas);
		rg_mtree_unlock(mt);
		if (mas.status == RG_MAS_ERROR)
			rc = mas.error;
		lo = mas.index;
		hi = mas.last;
		break;
	}
	}
	/* rg_mtree_erase() tells a failure only by NULL for an entry. */
	if (fz_op_failed(f, armed, kind == 0 ? want && !old : rc == -ENOMEM)) {
		check_all(f, mt);
		return;
	}
	FZ_EQ(f, rc, 0, "erase status");
	FZ_CHECK(f, old == want, "erase(%lu) returned %p, want %p", i, old,
		 want);
	if (want) {
		if (kind == 2)
			FZ_CHECK(f, lo == rg[p].first && hi == rg[p].last,
				 "mas_erase range [%lu, %lu], want [%lu, %lu]",
				 lo, hi, rg[p].first, rg[p].last);
		model_store(rg[p].first, rg[p].last, NULL);
	}
}

/* An alignment: mostly a power of two, sometimes 0 or not one. */
static unsigned long pick_align(struct fz *f)
{
	uint8_t k = fz_u8(f);

	if (k < 200)
		return 1UL << (k % 24);
	if (k < 240)
		return 1UL << (k % 64);
	return k < 248 ? 0 : fz_index(f);
}

/* alloc_range / alloc_rrange, or their _aligned forms. */
static void op_alloc(struct fz *f, struct rg_maple_tree *mt, bool rev,
		     bool aligned, bool armed)
{
	unsigned long min = pick_idx(f), max, size, start = 12345, want = 0;
	unsigned long align;
	uint8_t k = fz_u8(f);
	void *entry = pick_entry(f);
	bool fits;
	int rc, exp;

	max = k < 200 ? min + fz_u8(f) * (unsigned long)(k % 16) : pick_idx(f);
	if (max < min && k < 200)
		max = ~0UL;
	size = fz_u8(f) < 240 ? 1UL + fz_u8(f) % 16 : fz_index(f);
	align = aligned ? pick_align(f) : 1;
	if (nr + STORE_ROOM > MAX_RANGES) {
		fz_op_end(f, armed);
		return;
	}
	if (aligned && rev)
		rc = rg_mtree_alloc_rrange_aligned(mt, &start, entry, size, min,
						   max, align);
	else if (aligned)
		rc = rg_mtree_alloc_range_aligned(mt, &start, entry, size, min,
						  max, align);
	else if (rev)
		rc = rg_mtree_alloc_rrange(mt, &start, entry, size, min, max);
	else
		rc = rg_mtree_alloc_range(mt, &start, entry, size, min, max);
	if (fz_op_failed(f, armed, rc == -ENOMEM)) {
		check_all(f, mt);
		return;
	}
	if (!alloc_tree || !entry || reserved(entry) || !size || min > max ||
	    max - min < size - 1 || !align || (align & (align - 1))) {
		exp = -EINVAL;
	} else {
		fits = model_fit(min, max, size, align, rev, &want);
		exp = fits ? 0 : -EBUSY;
	}
	FZ_CHECK(f, rc == exp,
		 "alloc%s(size %lu, [%lu, %lu], align %lu) = %d, want %d",
		 rev ? "_rev" : "", size, min, max, align, rc, exp);
	FZ_CHECK(f, rc || start % align == 0, "alloc start %lu, align %lu",
		 start, align);
	if (rc)
		return;
	FZ_EQ(f, start, want, "alloc start");
	model_store(start, start + size - 1, entry);
}

/*
 * rg_mas_empty_area / _rev, or their _aligned forms: a search only; the
 * state is unchanged on failure.
 */
static void op_gap(struct fz *f, struct rg_maple_tree *mt, bool rev,
		   bool aligned)
{
	unsigned long min = pick_idx(f), max = pick_idx(f), want = 0;
	unsigned long size = fz_u8(f) < 240 ? 1UL + fz_u8(f) % 16 : fz_index(f);
	unsigned long align = aligned ? pick_align(f) : 1;
	RG_MA_STATE(mas, mt, 5, 6);
	int rc, exp;

	if (max < min && (min & 1)) {
		unsigned long t = min;

		min = max;
		max = t;
	}
	rg_mtree_lock(mt);
	if (aligned)
		rc = rev ? rg_mas_empty_area_rev_aligned(&mas, min, max, size,
							 align) :
			   rg_mas_empty_area_aligned(&mas, min, max, size,
						     align);
	else
		rc = rev ? rg_mas_empty_area_rev(&mas, min, max, size) :
			   rg_mas_empty_area(&mas, min, max, size);
	rg_mtree_unlock(mt);
	if (!size || min > max || max - min < size - 1 || !align ||
	    (align & (align - 1)))
		exp = -EINVAL;
	else
		exp = model_fit(min, max, size, align, rev, &want) ? 0 : -EBUSY;
	FZ_CHECK(f, rc == exp,
		 "empty_area%s(%lu, %lu, %lu, align %lu) = %d, want %d",
		 rev ? "_rev" : "", min, max, size, align, rc, exp);
	if (rc && aligned)
		FZ_CHECK(f, mas.index == 5 && mas.last == 6,
			 "state changed by a failed aligned search");
	if (!rc)
		FZ_CHECK(f, mas.index == want && mas.last == want + size - 1,
			 "empty_area%s window [%lu, %lu], want [%lu, %lu]",
			 rev ? "_rev" : "", mas.index, mas.last, want,
			 want + size - 1);
}

/*
 * Many stores or erases in one operation, so that inputs of a few hundred
 * bytes build trees of several levels and then empty them: splits,
 * rebalancing and spanning stores.
 */
static void op_bulk(struct fz *f, struct rg_maple_tree *mt, bool erase,
		    bool armed)
{
	unsigned long base = pick_idx(f), stride = 1 + fz_u8(f) % 8;
	unsigned long len = fz_u8(f) % stride, first, last;
	unsigned int count = 1 + fz_u8(f) % 128, p;
	int rc;

	fz_op_end(f, armed);
	for (unsigned int i = 0; i < count; i++) {
		if (erase) {
			if (!nr)
				break;
			p = model_pos(base);
			if (p == nr)
				p = 0;
			first = rg[p].first;
			FZ_CHECK(f, rg_mtree_erase(mt, first) == rg[p].entry,
				 "bulk erase(%lu)", first);
			model_store(first, rg[p].last, NULL);
			continue;
		}
		if (nr + STORE_ROOM > MAX_RANGES || base + i * stride < base)
			break;
		first = base + i * stride;
		last = first + len < first ? ~0UL : first + len;
		rc = rg_mtree_store_range(mt, first, last,
					  rg_mt_mk_value(first));
		FZ_EQ(f, rc, 0, "bulk store_range");
		model_store(first, last, rg_mt_mk_value(first));
	}
}

/* load, walk, find / find_after. */
static void op_read(struct fz *f, struct rg_maple_tree *mt, unsigned int kind)
{
	unsigned long i = pick_idx(f), max = pick_idx(f), idx, lo, hi;
	unsigned int p = model_pos(i);
	void *e, *want = model_load(i);

	switch (kind) {
	case 0:
		FZ_CHECK(f, rg_mtree_load(mt, i) == model_read(i), "load(%lu)",
			 i);
		break;
	case 1: {
		RG_MA_STATE(mas, mt, i, i);

		rg_mtree_lock(mt);
		e = rg_mas_walk(&mas);
		rg_mtree_unlock(mt);
		FZ_CHECK(f, e == want, "walk(%lu) = %p, want %p", i, e, want);
		if (want) {
			lo = rg[p].first;
			hi = rg[p].last;
		} else {
			model_gap(i, &lo, &hi);
		}
		FZ_CHECK(f, mas.index == lo && mas.last == hi,
			 "walk(%lu) range [%lu, %lu], want [%lu, %lu]", i,
			 mas.index, mas.last, lo, hi);
		break;
	}
	default:
		idx = i;
		if (kind == 3 && idx == 0) {
			e = rg_mtree_find_after(mt, &idx, max);
			FZ_CHECK(f, !e, "find_after from 0 = %p", e);
			break;
		}
		e = kind == 2 ? rg_mtree_find(mt, &idx, max) :
				rg_mtree_find_after(mt, &idx, max);
		/* An index above @max finds nothing, as in the kernel. */
		/* The zero entry is skipped. */
		while (p < nr && rg[p].first <= max && is_zero(rg[p].entry))
			p++;
		want = i <= max && p < nr && rg[p].first <= max ? rg[p].entry :
								  NULL;
		FZ_CHECK(f, e == want, "find(%lu, max %lu) = %p, want %p", i,
			 max, e, want);
		FZ_EQ(f, idx, want ? rg[p].last + 1 : i, "find: index after");
		break;
	}
}

/* The range the model holds @i in: an entry's, or the empty gap's. */
static void *model_range(unsigned long i, unsigned long *lo, unsigned long *hi)
{
	unsigned int p = model_pos(i);

	if (p < nr && rg[p].first <= i) {
		*lo = rg[p].first;
		*hi = rg[p].last;
		return rg[p].entry;
	}
	model_gap(i, lo, hi);
	return NULL;
}

/* rg_mas_next / prev / next_range / prev_range from one index. */
static void op_step(struct fz *f, struct rg_maple_tree *mt, unsigned int kind)
{
	unsigned long i = pick_idx(f), lim = pick_idx(f), lo, hi;
	unsigned int p = model_pos(i), steps = 1 + fz_u8(f) % 8;
	RG_MA_STATE(mas, mt, i, i);
	struct range *w;
	void *e;

	rg_mtree_lock(mt);
	model_range(i, &lo, &hi);
	for (unsigned int s = 0; s < steps; s++) {
		switch (kind) {
		case 0: /* next entry after the current range */
			e = rg_mas_next(&mas, lim);
			p = model_pos(hi == ~0UL ? hi : hi + 1);
			if (hi == ~0UL)
				p = nr;
			w = p < nr && rg[p].first <= lim ? &rg[p] : NULL;
			break;
		case 1: /* previous entry before the current range */
			e = rg_mas_prev(&mas, lim);
			p = lo ? model_pos(lo - 1) : nr;
			if (p < nr && rg[p].first > lo - 1)
				p = p ? p - 1 : nr;
			w = lo && p < nr && rg[p].last >= lim ? &rg[p] : NULL;
			break;
		default: /* the next range, empty or not */
			e = rg_mas_next_range(&mas, lim);
			if (hi == ~0UL || hi + 1 > lim) {
				w = NULL;
				break;
			}
			model_range(hi + 1, &lo, &hi);
			FZ_CHECK(f, e == model_load(lo),
				 "next_range: %p, want %p", e, model_load(lo));
			FZ_CHECK(f, mas.index == lo && mas.last == hi,
				 "next_range [%lu, %lu], want [%lu, %lu]",
				 mas.index, mas.last, lo, hi);
			continue;
		}
		if (kind == 2) {
			FZ_CHECK(f, !e && mas.status == RG_MAS_OVERFLOW,
				 "next_range past the limit: %p", e);
			break;
		}
		FZ_CHECK(f, e == (w ? w->entry : NULL),
			 "%s step %u from [%lu, %lu]: %p, want %p",
			 kind ? "prev" : "next", s, lo, hi, e,
			 w ? w->entry : NULL);
		if (!w)
			break;
		FZ_CHECK(f, mas.index == w->first && mas.last == w->last,
			 "%s range [%lu, %lu], want [%lu, %lu]",
			 kind ? "prev" : "next", mas.index, mas.last, w->first,
			 w->last);
		lo = w->first;
		hi = w->last;
		if (fz_u8(f) < 16)
			rg_mas_pause(&mas);
	}
	rg_mtree_unlock(mt);
}

/* rg_mtree_alloc_cyclic(): one index, searched from *next, wrapping. */
static void op_cyclic(struct fz *f, struct rg_maple_tree *mt, bool mas_api,
		      bool armed)
{
	unsigned long lo = pick_idx(f), hi = lo + fz_u8(f), next = pick_idx(f);
	unsigned long n0, start = 5, want, nx = next;
	void *entry = pick_entry(f);
	int rc, exp;

	if (nr + STORE_ROOM > MAX_RANGES) {
		fz_op_end(f, armed);
		return;
	}
	if (hi < lo)
		hi = ~0UL;
	if (mas_api) {
		RG_MA_STATE(mas, mt, 0, 0);

		rg_mtree_lock(mt);
		rc = rg_mas_alloc_cyclic(&mas, &start, entry, lo, hi, &nx);
		FZ_CHECK(f, rc < 0 || (mas.index == start && mas.last == start),
			 "mas_alloc_cyclic left the state on [%lu, %lu]",
			 mas.index, mas.last);
		rg_mtree_unlock(mt);
	} else {
		rc = rg_mtree_alloc_cyclic(mt, &start, entry, lo, hi, &nx);
	}
	if (fz_op_failed(f, armed, rc == -ENOMEM)) {
		check_all(f, mt);
		return;
	}
	n0 = next < lo || next > hi ? lo : next;
	if (!alloc_tree || !entry || reserved(entry))
		exp = -EINVAL;
	else if (model_fit(n0, hi, 1, 1, false, &want))
		exp = cyc_wrapped ? 1 : 0;
	else if (model_fit(lo, hi, 1, 1, false, &want))
		exp = n0 > lo ? 1 : 0;
	else
		exp = -EBUSY;
	FZ_CHECK(f, rc == exp,
		 "alloc_cyclic([%lu, %lu], next %lu) = %d, want %d", lo, hi,
		 next, rc, exp);
	if (rc < 0)
		return;
	FZ_EQ(f, start, want, "alloc_cyclic index");
	FZ_EQ(f, nx, want + 1, "alloc_cyclic next");
	cyc_wrapped = want == ~0UL;
	model_store(want, want, entry);
}

/*
 * rg_mtree_store(), rg_mtree_insert() (one index), rg_mas_store() (returns
 * the entry that held mas->index) and rg_mas_preallocate() given back unused
 * with rg_mas_destroy() (the tree must not change).
 */
static void op_store1(struct fz *f, struct rg_maple_tree *mt, unsigned int kind,
		      bool armed)
{
	unsigned long first, last;
	void *entry, *old = NULL, *want_old;
	int rc = 0, exp;

	pick_range(f, &first, &last);
	if (kind < 2)
		last = first;
	entry = pick_entry(f);
	if (nr + STORE_ROOM > MAX_RANGES) {
		fz_op_end(f, armed);
		return;
	}
	/* What the kernel's mas_store() returns: the entry at mas->index. */
	want_old = model_load(first);
	switch (kind) {
	case 0:
		rc = rg_mtree_store(mt, first, entry);
		break;
	case 1:
		rc = rg_mtree_insert(mt, first, entry);
		break;
	case 2: {
		RG_MA_STATE(mas, mt, first, last);

		rg_mtree_lock(mt);
		old = rg_mas_store(&mas, entry);
		if (mas.status == RG_MAS_ERROR)
			rc = mas.error;
		else
			FZ_CHECK(f,
				 mas.status == RG_MAS_ACTIVE &&
					 mas.index == first && mas.last == last,
				 "mas_store left status %d on [%lu, %lu]",
				 (int)mas.status, mas.index, mas.last);
		rg_mtree_unlock(mt);
		break;
	}
	default: {
		RG_MA_STATE(mas, mt, first, last);

		rg_mtree_lock(mt);
		rc = rg_mas_preallocate(&mas, entry, 0);
		rg_mas_destroy(&mas);
		rg_mtree_unlock(mt);
		if (fz_op_failed(f, armed, rc == -ENOMEM)) {
			check_all(f, mt);
			return;
		}
		exp = first > last || reserved(entry) ? -EINVAL : 0;
		FZ_EQ(f, rc, exp, "preallocate then destroy");
		return; /* nothing stored */
	}
	}
	if (fz_op_failed(f, armed, rc == -ENOMEM)) {
		check_all(f, mt);
		return;
	}
	if (first > last || reserved(entry))
		exp = -EINVAL;
	else if (kind == 1 && model_overlaps(first, last))
		exp = -EEXIST;
	else
		exp = 0;
	FZ_CHECK(f, rc == exp, "store1 kind %u [%lu, %lu] %p = %d, want %d",
		 kind, first, last, entry, rc, exp);
	if (rc)
		return;
	if (kind == 2)
		FZ_CHECK(f, old == want_old,
			 "mas_store [%lu, %lu] returned %p, want %p", first,
			 last, old, want_old);
	model_store(first, last, entry);
}

/*
 * Chains of rg_mas_find(), rg_mas_find_range() or rg_mas_prev_range()
 * from one index, with pauses and resets between the steps; and chains of
 * rg_mas_find() that overwrite or erase through the state what they find
 * (the state stays on the range written, the next find goes past it).
 */
static void op_iter(struct fz *f, struct rg_maple_tree *mt, unsigned int kind,
		    bool armed)
{
	unsigned long i = pick_idx(f), lim = pick_idx(f), lo, hi, t;
	unsigned int steps = 1 + fz_u8(f) % 12, p;
	bool start = true;
	void *e, *want;

	if (kind == 2 ? lim > i : lim < i) {
		t = lim;
		lim = i;
		i = t;
	}
	RG_MA_STATE(mas, mt, i, i);

	if (kind != 3)
		fz_op_end(f, armed);
	rg_mtree_lock(mt);
	model_range(i, &lo, &hi);
	for (unsigned int s = 0; s < steps; s++) {
		uint8_t k = fz_u8(f);

		switch (kind) {
		case 0:
		case 3: /* entries only */
			e = rg_mas_find(&mas, lim);
			if (start)
				p = model_pos(i);
			else if (hi >= lim || hi == ~0UL)
				p = nr;
			else
				p = model_pos(hi + 1);
			want = p < nr && rg[p].first <= lim ? rg[p].entry :
							      NULL;
			FZ_CHECK(f, e == want,
				 "mas_find step %u (max %lu) = %p, want %p", s,
				 lim, e, want);
			if (!want)
				goto out;
			FZ_CHECK(f,
				 mas.index == rg[p].first &&
					 mas.last == rg[p].last,
				 "mas_find range [%lu, %lu], want [%lu, %lu]",
				 mas.index, mas.last, rg[p].first, rg[p].last);
			lo = rg[p].first;
			hi = rg[p].last;
			break;
		case 1: /* every range, empty or not */
			e = rg_mas_find_range(&mas, lim);
			if (!start) {
				if (hi >= lim || hi == ~0UL) {
					/*
					 * At the end: RG_MAS_OVERFLOW, or (as
					 * rg_mas_find()) still on the range,
					 * active or paused.
					 */
					FZ_CHECK(
						f,
						!e && (mas.status ==
							       RG_MAS_OVERFLOW ||
						       (mas.index == lo &&
							mas.last == hi)),
						"mas_find_range past %lu from [%lu, %lu]: %p, status %d on [%lu, %lu]",
						lim, lo, hi, e, (int)mas.status,
						mas.index, mas.last);
					goto out;
				}
				model_range(hi + 1, &lo, &hi);
			}
			FZ_CHECK(f, e == model_load(lo),
				 "mas_find_range step %u = %p, want %p", s, e,
				 model_load(lo));
			FZ_CHECK(f, mas.index == lo && mas.last == hi,
				 "mas_find_range [%lu, %lu], want [%lu, %lu]",
				 mas.index, mas.last, lo, hi);
			break;
		default: /* every range before, empty or not */
			e = rg_mas_prev_range(&mas, lim);
			if (lo == 0 || lo - 1 < lim) {
				FZ_CHECK(
					f, !e && mas.status == RG_MAS_UNDERFLOW,
					"mas_prev_range below %lu: %p", lim, e);
				goto out;
			}
			model_range(lo - 1, &lo, &hi);
			FZ_CHECK(f, e == model_load(lo),
				 "mas_prev_range step %u = %p, want %p", s, e,
				 model_load(lo));
			FZ_CHECK(f, mas.index == lo && mas.last == hi,
				 "mas_prev_range [%lu, %lu], want [%lu, %lu]",
				 mas.index, mas.last, lo, hi);
			break;
		}
		start = false;
		if (kind == 3 && (k & 3) && nr + STORE_ROOM <= MAX_RANGES) {
			/* Overwrite (or erase) the range found, in place. */
			void *n = (k & 3) == 1 ? NULL : rg_mt_mk_value(k);
			void *old = rg_mas_store(&mas, n);

			if (mas.status == RG_MAS_ERROR) {
				FZ_CHECK(f, armed && rg_fault_fired(),
					 "mas_store in iteration: %d",
					 mas.error);
				goto out;
			}
			FZ_CHECK(f, old == model_load(lo),
				 "mas_store in iteration returned %p, want %p",
				 old, model_load(lo));
			model_store(lo, hi, n);
		} else if (k >= 0xf0) {
			rg_mas_pause(&mas);
		} else if (k >= 0xe8 && kind != 2) {
			/* A reset walks again from mas->index (= lo). */
			rg_mas_reset(&mas);
			if (kind == 0 || kind == 3) {
				start = true;
				i = lo;
			}
			if (kind == 1) {
				start = true;
				model_range(lo, &lo, &hi);
			}
		}
	}
out:
	rg_mtree_unlock(mt);
	if (kind == 3 && fz_op_end(f, armed))
		check_all(f, mt);
}

/*
 * Reads in RCU mode under urcu_memb_read_lock() only (no tree lock):
 * rg_mas_walk() and rg_mas_find(); the node-cache and tree statistics,
 * the locked validate and dump; and the calls given NULL, which must
 * answer as <region/common.h> says and change nothing.
 */
static void op_misc(struct fz *f, struct rg_maple_tree *mt)
{
	unsigned long i = pick_idx(f), lo, hi, idx = 0;
	struct rg_slab_stats ss;
	struct rg_mtree_stats st;
	const char *why = NULL;
	void *e, *want;

	if (rg_mtree_in_rcu(mt)) {
		RG_MA_STATE(mas, mt, i, i);

		urcu_memb_read_lock();
		e = rg_mas_walk(&mas);
		want = model_range(i, &lo, &hi);
		FZ_CHECK(f, e == want && mas.index == lo && mas.last == hi,
			 "rcu walk(%lu) = %p [%lu, %lu], want %p [%lu, %lu]", i,
			 e, mas.index, mas.last, want, lo, hi);
		rg_mas_set(&mas, i);
		e = rg_mas_find(&mas, ~0UL);
		urcu_memb_read_unlock();
		lo = model_pos(i);
		FZ_CHECK(f, e == (lo < nr ? rg[lo].entry : NULL),
			 "rcu find(%lu) = %p", i, e);
	}
	FZ_EQ(f, rg_mtree_node_stats(&ss), 0, "node_stats");
	rg_mtree_lock(mt);
	FZ_EQ(f, rg_mtree_validate_locked(mt, &why), 0, "validate_locked");
	rg_mtree_dump_locked(mt, fz_null());
	rg_mtree_unlock(mt);

	/* NULL where a pointer is required. */
	FZ_CHECK(f, !rg_mtree_load(NULL, i), "load(NULL)");
	FZ_EQ(f, rg_mtree_store_range(NULL, 0, 1, rg_mt_mk_value(1)), -EINVAL,
	      "store_range(NULL)");
	FZ_EQ(f, rg_mtree_insert(NULL, i, rg_mt_mk_value(1)), -EINVAL,
	      "insert(NULL)");
	FZ_CHECK(f, !rg_mtree_erase(NULL, i), "erase(NULL)");
	FZ_EQ(f, rg_mtree_validate(NULL, &why), -EINVAL, "validate(NULL)");
	FZ_EQ(f, rg_mtree_get_stats(NULL, &st), -EINVAL, "get_stats(NULL)");
	FZ_EQ(f, rg_mtree_get_stats(mt, NULL), -EINVAL, "get_stats(mt, NULL)");
	FZ_EQ(f, rg_mtree_node_stats(NULL), -EINVAL, "node_stats(NULL)");
	FZ_EQ(f, rg_mtree_bytes(NULL), 0, "bytes(NULL)");
	FZ_CHECK(f, !rg_mtree_empty(NULL), "empty(NULL)");
	FZ_CHECK(f, !rg_mtree_find(mt, NULL, ~0UL), "find(mt, NULL)");
	FZ_CHECK(f, !rg_mtree_find(NULL, &idx, ~0UL), "find(NULL)");
	FZ_EQ(f, rg_mtree_alloc_range(mt, NULL, rg_mt_mk_value(1), 1, 0, ~0UL),
	      -EINVAL, "alloc_range(startp NULL)");
	FZ_EQ(f,
	      rg_mtree_alloc_cyclic(mt, &idx, rg_mt_mk_value(1), 0, ~0UL, NULL),
	      -EINVAL, "alloc_cyclic(next NULL)");
	rg_mtree_dump(NULL, fz_null());
	rg_mtree_dump(mt, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool registered;
	struct rg_maple_tree mt;
	unsigned int flags;
	struct fz f;

	if (!registered) {
		urcu_memb_register_thread();
		registered = true;
	}
	fz_init(&f, "maple", data, size);
	flags = fz_u8(&f) & RG_MT_FLAGS_MASK;
	alloc_tree = flags & RG_MT_FLAGS_ALLOC_RANGE;
	cyc_wrapped = false;
	nr = 0;
	FZ_EQ(&f, rg_mtree_init(&mt, flags), 0, "init");
	empty_bytes = rg_mtree_bytes(&mt);
	while (fz_more(&f)) {
		bool armed;
		unsigned int v = fz_op_begin(&f, &armed);
		/*
		 * Opcodes 0-95 as before the advanced calls came, 96-119
		 * those, 120-127 (two each) the aligned allocations and gap
		 * searches.
		 */
		unsigned int op = v < 96  ? v % 24 :
				  v < 120 ? 24 + (v - 96) % 16 :
					    40 + (v - 120) % 4;

		switch (op) {
		case 24:
		case 25:
		case 26:
		case 27:
			op_store1(&f, &mt, op - 24, armed);
			break;
		case 37:
			op_store1(&f, &mt, 2, armed);
			break;
		case 28:
		case 29:
		case 30:
		case 31:
			op_iter(&f, &mt, op - 28, armed);
			break;
		case 35:
			op_iter(&f, &mt, 3, armed);
			break;
		case 38:
		case 39:
			op_iter(&f, &mt, op - 37, armed);
			break;
		case 32:
			fz_op_end(&f, armed);
			op_misc(&f, &mt);
			break;
		case 34:
			op_bulk(&f, &mt, false, armed);
			break;
		case 36:
			op_store(&f, &mt, 0, armed);
			break;
		case 0:
		case 1:
		case 2:
		case 3:
			op_store(&f, &mt, op % 4, armed);
			break;
		case 4:
		case 5:
		case 6:
			op_erase(&f, &mt, op - 4, armed);
			break;
		case 7:
		case 8:
			op_alloc(&f, &mt, op == 8, false, armed);
			break;
		case 40:
		case 41:
			op_alloc(&f, &mt, op == 41, true, armed);
			break;
		case 9:
		case 10:
			fz_op_end(&f, armed);
			op_gap(&f, &mt, op == 10, false);
			break;
		case 42:
		case 43:
			fz_op_end(&f, armed);
			op_gap(&f, &mt, op == 43, true);
			break;
		case 17:
		case 18:
			op_bulk(&f, &mt, op == 18, armed);
			break;
		case 19:
		case 20:
		case 21:
			fz_op_end(&f, armed);
			op_step(&f, &mt, op - 19);
			break;
		case 22:
		case 33:
			op_cyclic(&f, &mt, op == 33, armed);
			break;
		case 23:
			/* Vacancy tracking on or off; statistics reset. */
			fz_op_end(&f, armed);
			rg_mtree_set_vacancy(&mt, fz_u8(&f) & 1);
			rg_mtree_reset_stats(&mt);
			/* 0 levels when empty; a node once two ranges exist. */
			FZ_CHECK(&f,
				 nr ? nr == 1 || rg_mtree_height(&mt) > 0 :
				      rg_mtree_height(&mt) == 0,
				 "height %u with %u ranges",
				 rg_mtree_height(&mt), nr);
			break;
		case 16:
			fz_op_end(&f, armed);
			rg_mtree_dump(&mt, fz_null());
			break;
		case 15:
			/* Switch RCU mode on or off. */
			fz_op_end(&f, armed);
			if (rg_mtree_in_rcu(&mt))
				rg_mtree_clear_rcu(&mt);
			else
				rg_mtree_set_rcu(&mt);
			break;
		default:
			fz_op_end(&f, armed);
			op_read(&f, &mt, op - 11);
			break;
		}
		check_valid(&f, &mt);
		if (f.op % 16 == 0)
			check_all(&f, &mt);
	}
	check_all(&f, &mt);
	rg_mtree_destroy(&mt);
	FZ_EQ(&f, rg_mtree_bytes(&mt), empty_bytes, "bytes after destroy");
	if (flags & RG_MT_FLAGS_USE_RCU || rg_mtree_in_rcu(&mt))
		rg_mtree_rcu_barrier();
	return 0;
}
