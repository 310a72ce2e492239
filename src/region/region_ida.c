// SPDX-License-Identifier: MIT
/*
 * region backend "ida": theory of operation.
 *
 * A region of N units is N single-ID allocations from an IDA, as in the
 * kernel's seed-000 benchmark. To keep the region API's lowest-first
 * contract even after frees, allocation is a first fit built only from IDA
 * calls: take the lowest free ID at or above the candidate start (rounded up
 * to the alignment), then take the next N - 1 IDs one by one, each with a
 * one-ID range, so each call either returns exactly the next ID or fails
 * with -ENOSPC because that ID is taken; in that case the IDs just taken are
 * freed and the search resumes past the taken one. Without frees (a fill)
 * no collision ever happens and the cost is exactly N single-ID
 * allocations; once frees fragment the IDs, a search can take and give
 * back many IDs, which is why regionbench leaves this backend out of churn.
 *
 * Free and reserve check every unit first (rg_ida_exists), so bad input
 * changes nothing; then they free, or take, the IDs one by one. Freeing
 * never allocates. When memory runs out half way through an allocation or
 * a reservation, the IDs taken so far are freed again: the IDA then holds
 * the same IDs as before (its chunks may be stored differently, e.g. as a
 * bitmap where a value entry was, which is the IDA's own choice).
 *
 * Policies: first fit only (the others get -EOPNOTSUPP at creation).
 *
 * Memory: the IDA's own count (chunk bitmaps x 128 B + xarray nodes from
 * slab statistics + the struct). Capacity is at most INT_MAX + 1, the IDA's
 * ID space. test, largest_free and validate probe IDs one by one: O(units).
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

/* Smallest s >= x with (s & mask) == 0 (mask is 2^k - 1); may overflow. */
static inline unsigned long align_up(unsigned long x, unsigned long mask)
{
	return (x + mask) & ~mask;
}

static int ida_alloc(struct rg_region *r, unsigned long n, unsigned long mask,
		     unsigned long *start)
{
	struct rg_ida *ida = r->priv;
	unsigned long max = r->capacity - 1, pos = 0, k;
	unsigned int id0, id;
	int err;

	for (;;) {
		pos = align_up(pos, mask);
		if (pos > max || n - 1 > max - pos)
			return -ENOSPC;
		err = rg_ida_alloc_range(ida, (unsigned int)pos,
					 (unsigned int)max, &id0);
		if (err)
			return err; /* -ENOSPC or -ENOMEM, nothing taken */
		if ((id0 & mask) || n - 1 > max - id0) {
			rg_ida_free(ida, id0);
			if (n - 1 > max - id0)
				return -ENOSPC;
			pos = id0; /* rounded up at the top of the loop */
			continue;
		}
		for (k = 1; k < n; k++) {
			err = rg_ida_alloc_range(ida, id0 + (unsigned int)k,
						 id0 + (unsigned int)k, &id);
			if (err)
				break;
		}
		if (k == n) {
			*start = id0;
			return 0;
		}
		put_ids(ida, id0, k);
		if (err != -ENOSPC)
			return err;
		/* ID id0 + k is taken: no fit can start at or below it. */
		pos = id0 + k + 1;
	}
}

static int ida_free(struct rg_region *r, unsigned long start, unsigned long n)
{
	struct rg_ida *ida = r->priv;

	for (unsigned long k = 0; k < n; k++)
		if (!rg_ida_exists(ida, (unsigned int)(start + k)))
			return -ENOENT;
	put_ids(ida, start, n);
	return 0;
}

static int ida_reserve(struct rg_region *r, unsigned long start,
		       unsigned long n)
{
	struct rg_ida *ida = r->priv;
	unsigned long k;
	unsigned int id;
	int err = 0;

	for (k = 0; k < n; k++)
		if (rg_ida_exists(ida, (unsigned int)(start + k)))
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

static unsigned long ida_largest_free(struct rg_region *r)
{
	unsigned long run = 0, best = 0;

	for (unsigned long u = 0; u < r->capacity; u++) {
		run = rg_ida_exists(r->priv, (unsigned int)u) ? 0 : run + 1;
		best = run > best ? run : best;
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
	unsigned long n = 0;

	for (unsigned long u = 0; u < r->capacity; u++)
		n += rg_ida_exists(r->priv, (unsigned int)u);
	*used = n;
	return err;
}

static void ida_dump(struct rg_region *r, FILE *f)
{
	rg_ida_dump(r->priv, f);
}

/*
 * Constrained first fit: ida_alloc()'s search inside [lo, hi], a candidate
 * that crosses a boundary moved up to the next one. A found ID that is
 * misaligned, crosses a boundary or leaves too little room is given back
 * and the search resumes from it.
 */
static bool crosses(const struct rgi_req *q, unsigned long s)
{
	return q->bmask && ((s ^ (s + q->n - 1)) & ~q->bmask);
}

static int ida_alloc_req(struct rg_region *r, const struct rgi_req *q,
			 unsigned long *start)
{
	struct rg_ida *ida = r->priv;
	unsigned long max = q->hi, n = q->n, pos = q->lo, k;
	unsigned int id0, id;
	int err;

	for (;;) {
		pos = align_up(pos, q->mask);
		if (pos < q->lo || pos > max || n - 1 > max - pos)
			return -ENOSPC;
		if (crosses(q, pos)) {
			pos = (pos | q->bmask) + 1;
			continue;
		}
		err = rg_ida_alloc_range(ida, (unsigned int)pos,
					 (unsigned int)max, &id0);
		if (err)
			return err;
		if ((id0 & q->mask) || n - 1 > max - id0 || crosses(q, id0)) {
			rg_ida_free(ida, id0);
			if (n - 1 > max - id0)
				return -ENOSPC;
			pos = id0;
			continue;
		}
		for (k = 1; k < n; k++) {
			err = rg_ida_alloc_range(ida, id0 + (unsigned int)k,
						 id0 + (unsigned int)k, &id);
			if (err)
				break;
		}
		if (k == n) {
			*start = id0;
			return 0;
		}
		put_ids(ida, id0, k);
		if (err != -ENOSPC)
			return err;
		pos = id0 + k + 1;
	}
}

/* Growing changes nothing; a shrink checks the cut-off IDs one by one. */
static int ida_resize(struct rg_region *r, unsigned long cap)
{
	for (unsigned long u = cap; u < r->capacity; u++)
		if (rg_ida_exists(r->priv, (unsigned int)u))
			return -EBUSY;
	return 0;
}

/* Walking: IDs probed one by one, as the other scans here. */
static int ida_next_run(struct rg_region *r, unsigned long from, bool used,
			unsigned long *start, unsigned long *n)
{
	unsigned long u = from, cap = r->capacity;

	while (u < cap && rg_ida_exists(r->priv, (unsigned int)u) != used)
		u++;
	if (u >= cap)
		return -ENOENT;
	*start = u;
	while (u < cap && rg_ida_exists(r->priv, (unsigned int)u) == used)
		u++;
	*n = u - *start;
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
