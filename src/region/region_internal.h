/* SPDX-License-Identifier: MIT */
/*
 * Private to src/region: the instance layout and the ops table every
 * backend adapter fills in. region.c checks arguments, counts free units,
 * takes the optional lock and samples the peak of bytes held; an adapter
 * only sees calls whose arguments are in range.
 */
#ifndef RGI_REGION_INTERNAL_H
#define RGI_REGION_INTERNAL_H

#include <pthread.h>
#include <stdio.h>

#include "region/region.h"
#include "rg_internal.h"
#include "rg_lock.h"

struct rg_region;

/*
 * A checked constrained request: n units, start & mask == 0, inside
 * [lo, hi], crossing no multiple of bmask + 1 (bmask 0: none; otherwise
 * bmask + 1 >= n), placed by policy (first, best or top).
 */
struct rgi_req {
	unsigned long n, mask, lo, hi, bmask;
	enum rg_region_policy policy;
};

struct rgi_region_ops {
	/* Largest capacity the backend accepts. */
	unsigned long max_capacity;
	/*
	 * True if bytes() can change after init (node-based backends): the
	 * front end then samples it after every successful mutation for the
	 * peak. False for backends whose memory is fixed at creation.
	 */
	bool bytes_vary;
	/* Policies offered: bit p set for enum rg_region_policy p. */
	unsigned int policies;
	/* Set up r->priv for r->capacity units (r->policy is set): 0 or
	 * -ENOMEM. */
	int (*init)(struct rg_region *r);
	void (*fini)(struct rg_region *r);
	/*
	 * The start r->policy names among those s with (s & mask) == 0 and
	 * s .. s + n - 1 free (next fit: from rgi_next_fit_from(), wrapping
	 * once, and on success moved by rgi_next_fit_done()): 0, -ENOSPC or
	 * -ENOMEM. 1 <= n <= capacity.
	 */
	int (*alloc)(struct rg_region *r, unsigned long n, unsigned long mask,
		     unsigned long *start);
	/* Range in bounds, n >= 1: 0, -ENOENT (a unit is free), -ENOMEM. */
	int (*free)(struct rg_region *r, unsigned long start, unsigned long n);
	/* Range in bounds, n >= 1: 0, -EBUSY (a unit is taken), -ENOMEM. */
	int (*reserve)(struct rg_region *r, unsigned long start,
		       unsigned long n);
	/* Unit below capacity: true if allocated. */
	bool (*test)(struct rg_region *r, unsigned long unit);
	unsigned long (*largest_free)(struct rg_region *r);
	/*
	 * Bytes the backend holds, not counting struct rg_region; O(1) when
	 * bytes_vary, as it is then sampled after every successful mutation.
	 */
	size_t (*bytes)(struct rg_region *r);
	/*
	 * NULL, or the largest bytes() since init, kept by a backend that
	 * tracks its own peak where its memory changes (then bytes_vary is
	 * false: the front end samples nothing per call).
	 */
	size_t (*bytes_peak)(struct rg_region *r);
	/* Check the structure; store the number of allocated units. */
	int (*validate)(struct rg_region *r, unsigned long *used,
			const char **reason);
	/* Print the allocated runs. */
	void (*dump)(struct rg_region *r, FILE *f);

	/* ---- constrained allocation and resize ---- */
	/* Policies alloc_req answers (first, best, top; next comes from
	 * first in region.c): bit p for enum rg_region_policy p. */
	unsigned int req_policies;
	/*
	 * The start q->policy (first, best or top, one of req_policies)
	 * names among those meeting @q, allocated: 0, -ENOSPC or -ENOMEM.
	 * region.c has checked @q (struct rgi_req) and the free count.
	 */
	int (*alloc_req)(struct rg_region *r, const struct rgi_req *q,
			 unsigned long *start);
	/*
	 * Set the capacity to @cap (1 .. max_capacity, not the current one;
	 * r->capacity is still the old one): 0, -EBUSY (shrink over an
	 * allocated unit) or -ENOMEM, nothing changed on error.
	 */
	int (*resize)(struct rg_region *r, unsigned long cap);
	/*
	 * Walking (region_walk.c). from < capacity: the lowest unit s >= from
	 * allocated (@used) or free (!@used) and the length of its run from
	 * s; 0, or -ENOENT if there is none. Never allocates; exact.
	 */
	int (*next_run)(struct rg_region *r, unsigned long from, bool used,
			unsigned long *start, unsigned long *n);
};

struct rg_region {
	const struct rgi_region_ops *ops;
	void *priv; /* the backend's state */
	/* ops->alloc, or the path for r->policy that the backend's init set */
	int (*alloc)(struct rg_region *r, unsigned long n, unsigned long mask,
		     unsigned long *start);
	/*
	 * The rest of rg_region_alloc() (rg_region_free()) past the front
	 * end's checks, done in one call that also stores *start and moves
	 * free_units on success: set by the backend's init (only for backends
	 * whose bytes do not vary), else the front end's generic path. The
	 * hot calls reach the backend through these by a tail call, with no
	 * frame of the front end's.
	 */
	int (*alloc_hot)(struct rg_region *r, unsigned long n,
			 unsigned long mask, unsigned long *start);
	int (*free_hot)(struct rg_region *r, unsigned long start,
			unsigned long n);
	/*
	 * RG_REGION_LOCKED only: rg_region_alloc() (rg_region_free()) past
	 * the front end's checks, the cache's fast path or the locked one,
	 * so the front end reaches either in one indirect jump.
	 */
	int (*alloc_lk)(struct rg_region *r, unsigned long n,
			unsigned long align, unsigned long *start);
	int (*free_lk)(struct rg_region *r, unsigned long start,
		       unsigned long n);
	enum rg_region_backend backend;
	unsigned int flags;
	enum rg_region_policy policy;
	bool bytes_vary; /* ops->bytes_vary, or set by the backend's init */
	unsigned long next; /* next fit: end of the last allocation, or 0 */
	unsigned long capacity;
	unsigned long free_units;
	size_t bytes_peak;
	struct rgi_lock lock; /* RG_REGION_LOCKED only */
	/* RG_REGION_CACHED (which sets RG_REGION_LOCKED in flags) only: */
	struct rgi_rcache *rc; /* the depot and the list of caches */
	unsigned long rc_id; /* unique among instances, never reused */
	/*
	 * RG_REGION_CHECKED only (else NULL): bit u set if an allocation
	 * starts at unit u. An allocation [s, e) runs from a set bit s to
	 * the first unit after it that is free or has its own bit.
	 */
	unsigned long *starts;
};

extern const struct rgi_region_ops rgi_region_bitmap_ops RGI_HIDDEN;
extern const struct rgi_region_ops rgi_region_ida_ops RGI_HIDDEN;
extern const struct rgi_region_ops rgi_region_maple_ops RGI_HIDDEN;
extern const struct rgi_region_ops rgi_region_hbitmap_ops RGI_HIDDEN;
extern const struct rgi_region_ops rgi_region_extent_ops RGI_HIDDEN;

#define RGI_POLICY_BIT(p) (1u << (p))

/* Smallest s >= x with (s & mask) == 0 (mask is 2^k - 1); may wrap to 0. */
static inline unsigned long rgi_align_up(unsigned long x, unsigned long mask)
{
	return (x + mask) & ~mask;
}

/*
 * Next fit placed [s, s + n): the cursor moves to its end, which may be the
 * capacity. It is kept as it is, not wrapped, so that after a resize the
 * next search still starts where the previous allocation ended.
 */
static inline void rgi_next_fit_done(struct rg_region *r, unsigned long s,
				     unsigned long n)
{
	r->next = s + n;
}

/*
 * Where a next-fit search starts: the cursor, or 0 while the cursor is at or
 * past the capacity (the previous allocation ended at the top, or a shrink
 * cut it off): nothing lies at or after it, so the search wraps at once.
 */
static inline unsigned long rgi_next_fit_from(const struct rg_region *r)
{
	return r->next < r->capacity ? r->next : 0;
}

/*
 * Constrained requests inside one free run [a, e) (e exclusive): the lowest
 * or highest start s meeting @q with [s, s + n) inside the run, into *s;
 * false if there is none. A start that crosses a boundary moves up to the
 * next boundary (lowest) or down so the region ends at it (highest); as
 * bmask + 1 >= n and alignments are powers of two, one move suffices.
 */
static inline bool rgi_req_lowest(const struct rgi_req *q, unsigned long a,
				  unsigned long e, unsigned long *s)
{
	unsigned long x;

	if (a < q->lo)
		a = q->lo;
	if (e > q->hi + 1)
		e = q->hi + 1;
	if (e <= a || e - a < q->n)
		return false;
	x = rgi_align_up(a, q->mask);
	if (x < a || x > e - q->n)
		return false;
	if (q->bmask && ((x ^ (x + q->n - 1)) & ~q->bmask)) {
		x = rgi_align_up((x | q->bmask) + 1, q->mask);
		if (x < a || x > e - q->n)
			return false;
	}
	*s = x;
	return true;
}

static inline bool rgi_req_highest(const struct rgi_req *q, unsigned long a,
				   unsigned long e, unsigned long *s)
{
	unsigned long x, b;

	if (a < q->lo)
		a = q->lo;
	if (e > q->hi + 1)
		e = q->hi + 1;
	if (e <= a || e - a < q->n)
		return false;
	x = (e - q->n) & ~q->mask;
	if (x < a)
		return false;
	if (q->bmask && ((x ^ (x + q->n - 1)) & ~q->bmask)) {
		b = (x + q->n - 1) & ~q->bmask;
		if (b < q->n)
			return false;
		x = (b - q->n) & ~q->mask;
		if (x < a)
			return false;
	}
	*s = x;
	return true;
}

/*
 * RG_REGION_CACHED (region_cache.c): sizes of 1 .. RGI_RCACHE_SIZES units
 * are cached. rgi_rcache_alloc() and rgi_rcache_free() are rg_region_alloc()
 * and rg_region_free() past their NULL and alignment checks, lock not held;
 * rgi_rcache_flush() gives every cached free region back to the backend
 * (0, or -ENOMEM if the backend could not take some back, which then stay
 * cached) and rgi_rcache_check() checks the caches (both with the lock
 * held).
 */
#define RGI_RCACHE_SIZES 32
int rgi_rcache_init(struct rg_region *r) RGI_HIDDEN;
void rgi_rcache_fini(struct rg_region *r) RGI_HIDDEN;
int rgi_rcache_alloc(struct rg_region *r, unsigned long n, unsigned long align,
		     unsigned long *start) RGI_HIDDEN;
int rgi_rcache_free(struct rg_region *r, unsigned long start,
		    unsigned long n) RGI_HIDDEN;
int rgi_rcache_flush(struct rg_region *r) RGI_HIDDEN;
const char *rgi_rcache_check(struct rg_region *r) RGI_HIDDEN;
/*
 * rg_region_alloc() and rg_region_free() past the front end's checks and
 * the lock (lock held if RG_REGION_LOCKED), for region.c and the caches:
 * the checks that depend on the capacity, then a tail call of the
 * backend's hot path (r->alloc_hot, r->free_hot, set at creation), which
 * moves the counters. Inline here so that the caches sit on the front end's
 * body without region.c and region_cache.c calling each other.
 */
static inline int rgi_region_alloc_body(struct rg_region *r, unsigned long n,
					unsigned long align,
					unsigned long *start)
{
	/*
	 * (in the body, under the lock: rg_region_resize() changes it) One
	 * test on the way: free_units <= capacity, so n > capacity is a
	 * case of n > free_units, and n - 1 wraps for n == 0.
	 */
	if (unlikely(n - 1 >= r->free_units))
		return !n || n > r->capacity ? -EINVAL : -ENOSPC;
	return r->alloc_hot(r, n, align ? align - 1 : 0, start);
}

static inline int rgi_region_free_body(struct rg_region *r, unsigned long start,
				       unsigned long n)
{
	/* (in the body, under the lock: rg_region_resize() changes it) */
	/* (n - 1 wraps for n == 0: one test for n >= 1 and the end) */
	if (unlikely(start >= r->capacity || n - 1 >= r->capacity - start))
		return -EINVAL;
	if (unlikely(n > r->capacity - r->free_units))
		/* checked: unit @start allocated, so a wrong size */
		return r->starts && r->ops->test(r, start) ? -EINVAL : -ENOENT;
	return r->free_hot(r, start, n);
}

/*
 * Walking, save and load (region_walk.c, region_save.c): the instance's
 * optional lock;
 * a cached instance's caches are flushed, so cached regions read as free.
 */
static inline void rgi_region_lock(struct rg_region *r)
{
	if (r->flags & RG_REGION_LOCKED) {
		rgi_lock(&r->lock);
		if (r->rc) /* (what the backend cannot take back stays) */
			(void)rgi_rcache_flush(r);
	}
}

static inline void rgi_region_unlock(struct rg_region *r)
{
	if (r->flags & RG_REGION_LOCKED)
		rgi_unlock(&r->lock);
}

/* Free runs, their histogram and the fragmentation ratio into @st. */
void rgi_region_free_run_stats(struct rg_region *r,
			       struct rg_region_stats *st) RGI_HIDDEN;

/*
 * rg_region_next_run() with the lock held and @from < capacity: the run
 * of a kind in @kinds at or after @from; RG_RUN_USED or RG_RUN_FREE, or
 * -ENOENT (region_walk.c; region_save.c walks the allocated runs).
 */
int rgi_region_next_run_locked(struct rg_region *r, unsigned long from,
			       unsigned int kinds, unsigned long *start,
			       unsigned long *n) RGI_HIDDEN;

#endif /* RGI_REGION_INTERNAL_H */
