// SPDX-License-Identifier: MIT
/*
 * region backend "ida": theory of operation.
 *
 * A region of N units is N single-ID allocations from an IDA, as in the
 * kernel's seed-000 benchmark. Everything else is built from two IDA
 * lookups that allocate nothing and skip whole chunks by the IDA's xarray:
 * rg_ida_find_first_range() (the lowest allocated ID in a range) and
 * rg_ida_find_free_range() (the lowest free one).
 *
 * Allocation keeps the region API's lowest-first contract: a candidate
 * start is moved up to the alignment (and past a boundary it would cross),
 * then to the lowest free ID at or above it, then past the lowest allocated
 * ID among its N units, until it stays put; then its N IDs are taken one by
 * one, each with a one-ID range. Each move costs one lookup and skips every
 * start at or below the ID it found, so a search costs O(runs passed), and
 * nothing is taken and given back on the way.
 *
 * Free and reserve check their range with one lookup first (a free ID, an
 * allocated ID), so bad input changes nothing; then they free, or take, the
 * IDs one by one. Freeing never allocates. When memory runs out half way
 * through an allocation or a reservation, the IDs taken so far are freed
 * again: the IDA then holds the same IDs as before (its chunks may be
 * stored differently, e.g. as a bitmap where a value entry was, which is
 * the IDA's own choice).
 *
 * Walking: a run is two lookups (its first unit, then the first unit of
 * the other kind after it), so rg_region_next_run(), largest_free, the
 * stats' free-run figures, validate's count of units in use and a shrink's
 * check cost O(runs), not O(units), even at the 2^31-unit limit.
 *
 * Policies: first fit only (the others get -EOPNOTSUPP at creation).
 *
 * Memory: the IDA's own count (chunk bitmaps x 128 B + xarray nodes from
 * slab statistics + the struct). Capacity is at most INT_MAX + 1, the IDA's
 * ID space.
 */
#include <errno.h>
#include <limits.h>

#include "region/ida.h"
#include "region_internal.h"

static int ida_init(struct rg_region *r)
{
	struct rg_ida *ida = rgi_malloc(sizeof(*ida));

	if (!ida)
		return -ENOMEM;
	rg_ida_init(ida);
	r->priv = ida;
	return 0;
}

static void ida_fini(struct rg_region *r)
{
	rg_ida_destroy(r->priv);
	rgi_free(r->priv);
}

/* Free IDs first .. first + n - 1 (all allocated by us). */
static void put_ids(struct rg_ida *ida, unsigned long first, unsigned long n)
{
	for (unsigned long k = 0; k < n; k++)
		rg_ida_free(ida, (unsigned int)(first + k));
}

/*
 * The lowest allocated (next_used) or free (next_free) unit in [a, b], or
 * b + 1 if there is none; a <= b < capacity <= INT_MAX + 1.
 */
static unsigned long next_used(struct rg_ida *ida, unsigned long a,
			       unsigned long b)
{
	unsigned int id;

	if (rg_ida_find_first_range(ida, (unsigned int)a, (unsigned int)b, &id))
		return b + 1;
	return id;
}

static unsigned long next_free(struct rg_ida *ida, unsigned long a,
			       unsigned long b)
{
	unsigned int id;

	if (rg_ida_find_free_range(ida, (unsigned int)a, (unsigned int)b, &id))
		return b + 1;
	return id;
}

/* Smallest s >= x with (s & mask) == 0 (mask is 2^k - 1); may overflow. */
static inline unsigned long align_up(unsigned long x, unsigned long mask)
{
	return (x + mask) & ~mask;
}

static bool crosses(const struct rgi_req *q, unsigned long s)
{
	return q->bmask && ((s ^ (s + q->n - 1)) & ~q->bmask);
}

/*
 * The constrained first fit (plain allocation is the request without a
 * window or boundary): a candidate is moved up to the alignment, past a
 * boundary it would cross, to the lowest free unit, and past the lowest
 * allocated unit inside its n units, until one stays put; then its IDs are
 * taken one by one (each a one-ID range, which cannot collide now).
 */
static int ida_alloc_req(struct rg_region *r, const struct rgi_req *q,
			 unsigned long *start)
{
	struct rg_ida *ida = r->priv;
	unsigned long hi = q->hi, n = q->n, pos = q->lo, s, k;
	unsigned int id;
	int err;

	for (;;) {
		pos = align_up(pos, q->mask);
		if (pos < q->lo || pos > hi || n - 1 > hi - pos)
			return -ENOSPC;
		if (crosses(q, pos)) {
			pos = (pos | q->bmask) + 1;
			continue;
		}
		s = next_free(ida, pos, hi);
		if (s != pos) {
			pos = s; /* past hi if none: -ENOSPC above */
			continue;
		}
		s = next_used(ida, pos, pos + n - 1);
		if (s <= pos + n - 1) {
			pos = s + 1; /* no fit starts at or below s */
			continue;
		}
		break;
	}
	for (k = 0; k < n; k++) {
		err = rg_ida_alloc_range(ida, (unsigned int)(pos + k),
					 (unsigned int)(pos + k), &id);
		if (err) { /* -ENOMEM: give back what was taken */
			put_ids(ida, pos, k);
			return err;
		}
	}
	*start = pos;
	return 0;
}

static int ida_alloc(struct rg_region *r, unsigned long n, unsigned long mask,
		     unsigned long *start)
{
	const struct rgi_req q = { .n = n,
				   .mask = mask,
				   .lo = 0,
				   .hi = r->capacity - 1,
				   .policy = RG_REGION_FIRST_FIT };

	return ida_alloc_req(r, &q, start);
}

static int ida_free(struct rg_region *r, unsigned long start, unsigned long n)
{
	struct rg_ida *ida = r->priv;
	unsigned long last = start + n - 1;

	if (next_free(ida, start, last) <= last)
		return -ENOENT;
	put_ids(ida, start, n);
	return 0;
}

static int ida_reserve(struct rg_region *r, unsigned long start,
		       unsigned long n)
{
	struct rg_ida *ida = r->priv;
	unsigned long k, last = start + n - 1;
	unsigned int id;
	int err = 0;

	if (next_used(ida, start, last) <= last)
		return -EBUSY;
	for (k = 0; k < n; k++) {
		unsigned int want = (unsigned int)(start + k);

		err = rg_ida_alloc_range(ida, want, want, &id);
		if (err)
			break;
	}
	if (!err)
		return 0;
	put_ids(ida, start, k);
	return err == -ENOSPC ? -EBUSY : err;
}

static bool ida_test(struct rg_region *r, unsigned long unit)
{
	return rg_ida_exists(r->priv, (unsigned int)unit);
}

/* Walking: two lookups per run, each skipping whole chunks. */
static int ida_next_run(struct rg_region *r, unsigned long from, bool used,
			unsigned long *start, unsigned long *n)
{
	struct rg_ida *ida = r->priv;
	unsigned long last = r->capacity - 1, s, e;

	s = used ? next_used(ida, from, last) : next_free(ida, from, last);
	if (s > last)
		return -ENOENT;
	if (s == last)
		e = last + 1;
	else if (used)
		e = next_free(ida, s + 1, last);
	else
		e = next_used(ida, s + 1, last);
	*start = s;
	*n = e - s;
	return 0;
}

static unsigned long ida_largest_free(struct rg_region *r)
{
	unsigned long from = 0, best = 0, s, n;

	while (from < r->capacity && !ida_next_run(r, from, false, &s, &n)) {
		best = n > best ? n : best;
		from = s + n;
	}
	return best;
}

static size_t ida_bytes(struct rg_region *r)
{
	return rg_ida_bytes(r->priv);
}

static int ida_validate(struct rg_region *r, unsigned long *used,
			const char **reason)
{
	int err = rg_ida_validate(r->priv, reason);
	unsigned long from = 0, total = 0, s, n;

	/* No ID at or past the capacity, and the units in use by runs. */
	if (!err && r->capacity <= RG_IDA_MAX &&
	    next_used(r->priv, r->capacity, RG_IDA_MAX) <= RG_IDA_MAX) {
		*reason = "ida: an ID at or past the capacity";
		err = -EINVAL;
	}
	while (from < r->capacity && !ida_next_run(r, from, true, &s, &n)) {
		total += n;
		from = s + n;
	}
	*used = total;
	return err;
}

static void ida_dump(struct rg_region *r, FILE *f)
{
	rg_ida_dump(r->priv, f);
}

/* Growing changes nothing; a shrink needs the cut-off IDs all free. */
static int ida_resize(struct rg_region *r, unsigned long cap)
{
	if (cap < r->capacity &&
	    next_used(r->priv, cap, r->capacity - 1) < r->capacity)
		return -EBUSY;
	return 0;
}

const struct rgi_region_ops rgi_region_ida_ops = {
	.max_capacity = (unsigned long)INT_MAX + 1,
	.bytes_vary = true,
	.policies = RGI_POLICY_BIT(RG_REGION_FIRST_FIT),
	.init = ida_init,
	.fini = ida_fini,
	.alloc = ida_alloc,
	.free = ida_free,
	.reserve = ida_reserve,
	.test = ida_test,
	.largest_free = ida_largest_free,
	.bytes = ida_bytes,
	.validate = ida_validate,
	.dump = ida_dump,
	.req_policies = RGI_POLICY_BIT(RG_REGION_FIRST_FIT),
	.alloc_req = ida_alloc_req,
	.resize = ida_resize,
	.next_run = ida_next_run,
};
