// SPDX-License-Identifier: MIT
/*
 * region backend "hbitmap": theory of operation.
 *
 * A thin adapter: the hbitmap module already has the region API's shape
 * (lowest aligned first fit, unit-based free and reserve with -ENOENT and
 * -EBUSY, nothing changed on error), so each call maps one to one. The
 * region front end has checked the arguments, so the adapter passes them
 * through; alignment arrives as a mask and goes back to a power of two.
 * Memory is allocated once at creation (the bitmap and its summaries) and
 * never after, so no call here can fail for memory; except with best fit,
 * whose index of free runs grows and whose allocation alone may return
 * -ENOMEM (rebuilding a dropped index). hbitmap keeps the peak of its
 * bytes itself where its memory changes (rg_hbitmap_bytes_peak()), so the
 * front end samples nothing per call. Capacity is at most
 * RG_HBITMAP_MAX_CAPACITY.
 *
 * Policies: first fit is rg_hbitmap_alloc() and best fit
 * rg_hbitmap_alloc_best(), each reached straight from the front end
 * (init sets r->alloc, and r->alloc_hot, which also moves the front
 * end's free count, so rg_region_alloc() reaches it by a tail call; and
 * r->free_hot for every policy; best fit needs an instance created with
 * RG_HBITMAP_BEST_FIT, and its two hot paths go straight to hbitmap's
 * advanced calls (hbitmap/hbitmap_adv.h), which skip the checks the front
 * end made and move its free count themselves, so each hot call is two
 * tail calls from the front end to the index); the other two go through
 * hb_alloc(): top-down is
 * rg_hbitmap_alloc_rev(), next fit rg_hbitmap_alloc_range() from the
 * cursor to the top, then (once) rg_hbitmap_alloc().
 */
#include <errno.h>
#include <limits.h>

#include "hbitmap/hbitmap_adv.h"
#include "region/hbitmap.h"
#include "region_internal.h"

/*
 * Where the front end's unsigned long is hbitmap's uint64_t (LP64 Linux),
 * the best-fit hot paths hand their pointers (*start, the free count)
 * straight to hbitmap's advanced calls.
 */
#if ULONG_MAX == UINT64_MAX
#define HB_LONG_IS_U64 1
_Static_assert(_Generic((uint64_t *)0, unsigned long * : 1, default : 0),
	       "uint64_t is unsigned long");
#else
#define HB_LONG_IS_U64 0
#endif

static void hb_fini(struct rg_region *r)
{
	rg_hbitmap_destroy(r->priv);
}

/* Top-down and next fit (first and best fit have their own paths). */
static RGI_NOINLINE int hb_alloc_policy(struct rg_region *r, unsigned long n,
					uint64_t align, uint64_t *s)
{
	int err = -ENOSPC;

	switch (r->policy) {
	case RG_REGION_FIRST_FIT: /* usually through hb_alloc_first() */
		return rg_hbitmap_alloc(r->priv, n, align, s);
	case RG_REGION_BEST_FIT:
		return rg_hbitmap_alloc_best(r->priv, n, align, s);
	case RG_REGION_TOP_DOWN:
		return rg_hbitmap_alloc_rev(r->priv, n, align, s);
	default: /* next fit */
		if (rgi_next_fit_from(r))
			err = rg_hbitmap_alloc_range(r->priv, n, align,
						     rgi_next_fit_from(r),
						     r->capacity - 1, s);
		if (err == -ENOSPC)
			err = rg_hbitmap_alloc(r->priv, n, align, s);
		if (!err)
			rgi_next_fit_done(r, (unsigned long)*s, n);
		return err;
	}
}

static int hb_alloc(struct rg_region *r, unsigned long n, unsigned long mask,
		    unsigned long *start)
{
	uint64_t s;
	int err = hb_alloc_policy(r, n, (uint64_t)mask + 1, &s);

	if (!err)
		*start = (unsigned long)s;
	return err;
}

/* First fit and best fit: the front end calls these directly (r->alloc). */
static int hb_alloc_first(struct rg_region *r, unsigned long n,
			  unsigned long mask, unsigned long *start)
{
	uint64_t s;
	int err = rg_hbitmap_alloc(r->priv, n, (uint64_t)mask + 1, &s);

	if (likely(!err))
		*start = (unsigned long)s;
	return err;
}

static int hb_alloc_best(struct rg_region *r, unsigned long n,
			 unsigned long mask, unsigned long *start)
{
	uint64_t s;
	int err = rg_hbitmap_alloc_best(r->priv, n, (uint64_t)mask + 1, &s);

	if (likely(!err))
		*start = (unsigned long)s;
	return err;
}

/*
 * The same two and free as the front end's hot paths (r->alloc_hot,
 * r->free_hot): they also keep its count of free units, so that the
 * front end reaches them by a tail call.
 */
static int hb_alloc_first_hot(struct rg_region *r, unsigned long n,
			      unsigned long mask, unsigned long *start)
{
	uint64_t s;
	int err = rg_hbitmap_alloc(r->priv, n, (uint64_t)mask + 1, &s);

	if (likely(!err)) {
		*start = (unsigned long)s;
		r->free_units -= n;
	}
	return err;
}

/*
 * Best fit: the front end has checked everything, so hbitmap's advanced
 * calls do the rest, the front end's free count included.
 */
static int hb_alloc_best_hot(struct rg_region *r, unsigned long n,
			     unsigned long mask, unsigned long *start)
{
#if HB_LONG_IS_U64
	return rgi_hbitmap_alloc_best_adv(r->priv, n, mask, start,
					  &r->free_units);
#else
	uint64_t s, sink;
	int err = rgi_hbitmap_alloc_best_adv(r->priv, n, mask, &s, &sink);

	if (likely(!err)) {
		*start = (unsigned long)s;
		r->free_units -= n;
	}
	return err;
#endif
}

static int hb_free_best_hot(struct rg_region *r, unsigned long start,
			    unsigned long n)
{
#if HB_LONG_IS_U64
	return rgi_hbitmap_free_best_adv(r->priv, start, n, &r->free_units);
#else
	uint64_t sink;
	int err = rgi_hbitmap_free_best_adv(r->priv, start, n, &sink);

	if (likely(!err))
		r->free_units += n;
	return err;
#endif
}

static int hb_free_hot(struct rg_region *r, unsigned long start,
		       unsigned long n)
{
	int err = rg_hbitmap_free(r->priv, start, n);

	if (likely(!err))
		r->free_units += n;
	return err;
}

static int hb_init(struct rg_region *r)
{
	bool best = r->policy == RG_REGION_BEST_FIT;

	r->priv = rg_hbitmap_create_flags(r->capacity,
					  best ? RG_HBITMAP_BEST_FIT : 0);
	if (r->policy == RG_REGION_FIRST_FIT) {
		r->alloc = hb_alloc_first;
		r->alloc_hot = hb_alloc_first_hot;
	} else if (best) {
		r->alloc = hb_alloc_best;
		r->alloc_hot = hb_alloc_best_hot;
	}
	r->free_hot = best ? hb_free_best_hot : hb_free_hot;
	return r->priv ? 0 : -errno;
}

static int hb_free(struct rg_region *r, unsigned long start, unsigned long n)
{
	return rg_hbitmap_free(r->priv, start, n);
}

static int hb_reserve(struct rg_region *r, unsigned long start, unsigned long n)
{
	return rg_hbitmap_reserve(r->priv, start, n);
}

static bool hb_test(struct rg_region *r, unsigned long unit)
{
	return rg_hbitmap_test(r->priv, unit) == 1;
}

static unsigned long hb_largest_free(struct rg_region *r)
{
	return (unsigned long)rg_hbitmap_largest_free_run(r->priv);
}

static size_t hb_bytes(struct rg_region *r)
{
	return rg_hbitmap_bytes(r->priv);
}

static size_t hb_bytes_peak(struct rg_region *r)
{
	return rg_hbitmap_bytes_peak(r->priv);
}

static int hb_validate(struct rg_region *r, unsigned long *used,
		       const char **reason)
{
	int err = rg_hbitmap_validate(r->priv, reason);

	*used = r->capacity - (unsigned long)rg_hbitmap_free_units(r->priv);
	return err;
}

static void hb_dump(struct rg_region *r, FILE *f)
{
	rg_hbitmap_dump(r->priv, f);
}

/*
 * Constrained requests: rg_hbitmap_alloc_window(), or the plain call when
 * the request is a plain one (the whole capacity, no boundary) of the
 * instance's own policy, so such a request costs what rg_region_alloc()
 * does (best fit then uses the index of free runs).
 */
static int hb_alloc_req(struct rg_region *r, const struct rgi_req *q,
			unsigned long *start)
{
	static const unsigned int place[RG_REGION_NR_POLICIES] = {
		[RG_REGION_FIRST_FIT] = RG_HBITMAP_LOWEST,
		[RG_REGION_BEST_FIT] = RG_HBITMAP_BEST,
		[RG_REGION_TOP_DOWN] = RG_HBITMAP_HIGHEST,
	};
	uint64_t s, align = (uint64_t)q->mask + 1;
	int err;

	if (!q->lo && q->hi == r->capacity - 1 && !q->bmask &&
	    q->policy == r->policy)
		return r->alloc(r, q->n, q->mask, start);
	err = rg_hbitmap_alloc_window(r->priv, q->n, align, q->lo, q->hi,
				      q->bmask ? (uint64_t)q->bmask + 1 : 0,
				      place[q->policy], &s);
	if (!err)
		*start = (unsigned long)s;
	return err;
}

static int hb_resize(struct rg_region *r, unsigned long cap)
{
	return rg_hbitmap_resize(r->priv, cap);
}

static int hb_next_run(struct rg_region *r, unsigned long from, bool used,
		       unsigned long *start, unsigned long *n)
{
	uint64_t s, len;
	int err;

	/* best fit: summaries made exact, so a run costs O(log capacity) */
	if (r->policy == RG_REGION_BEST_FIT)
		rg_hbitmap_sync(r->priv);
	err = rg_hbitmap_next_run(r->priv, from, used, &s, &len);

	if (!err) {
		*start = (unsigned long)s;
		*n = (unsigned long)len;
	}
	return err;
}

const struct rgi_region_ops rgi_region_hbitmap_ops = {
	.max_capacity = (unsigned long)RG_HBITMAP_MAX_CAPACITY,
	.bytes_vary = false,
	.policies = RGI_POLICY_BIT(RG_REGION_FIRST_FIT) |
		    RGI_POLICY_BIT(RG_REGION_BEST_FIT) |
		    RGI_POLICY_BIT(RG_REGION_TOP_DOWN) |
		    RGI_POLICY_BIT(RG_REGION_NEXT_FIT),
	.init = hb_init,
	.fini = hb_fini,
	.alloc = hb_alloc,
	.free = hb_free,
	.reserve = hb_reserve,
	.test = hb_test,
	.largest_free = hb_largest_free,
	.bytes = hb_bytes,
	.bytes_peak = hb_bytes_peak,
	.validate = hb_validate,
	.dump = hb_dump,
	.req_policies = RGI_POLICY_BIT(RG_REGION_FIRST_FIT) |
			RGI_POLICY_BIT(RG_REGION_BEST_FIT) |
			RGI_POLICY_BIT(RG_REGION_TOP_DOWN),
	.alloc_req = hb_alloc_req,
	.resize = hb_resize,
	.next_run = hb_next_run,
};
