/* SPDX-License-Identifier: MIT */
/*
 * libregion regions: one API that hands out contiguous runs of units
 * ("regions") out of a fixed capacity, placed by a chosen policy (lowest
 * address first by default), with a choice of backend behind it.
 *
 * Usage:
 *	struct rg_region *r = rg_region_create("hbitmap", 1000000, 0);
 *	unsigned long start;
 *	if (!rg_region_alloc(r, 32, 8, &start))	// 32 units, start % 8 == 0
 *		rg_region_free(r, start, 32);
 *	rg_region_reserve(r, 4096, 100);		// a fixed placement
 *	struct rg_region_stats st;
 *	rg_region_get_stats(r, &st);			// free units, largest run
 *	rg_region_destroy(r);
 *	r = rg_region_create("hbitmap", 1 << 20,	// smallest run that fits
 *			     RG_REGION_POLICY(RG_REGION_BEST_FIT));
 *
 * Backends (by name or enum rg_region_backend):
 *	bitmap	a plain bitmap, 1 bit per unit; every allocation is a zero-area
 *		search from unit 0, as the kernel does: O(capacity).
 *	ida	the IDA: a region of N units is N single-ID allocations, placed
 *		by a first fit built from the IDA's range lookups (O(runs
 *		passed) lookups, then N single-ID allocations); meant for
 *		comparison. Capacity at most INT_MAX + 1.
 *	maple	a Maple Tree allocation tree: alloc_range / erase, one entry
 *		per region; O(log regions).
 *	hbitmap	libregion's own: a bitmap with a hierarchy of free-run
 *		summaries; first fit in O(log capacity), bitmap-like memory.
 *	extent	libregion's own: the free runs only, as extents in a balanced
 *		tree by address (and one by size for best fit), augmented
 *		per alignment class; alloc and free in O(log runs) whatever
 *		the region's length, failures in O(1) to O(log runs), memory
 *		per free run. Capacity at most INT32_MAX.
 *
 * Placement policy (chosen at creation with RG_REGION_POLICY(), fixed for
 * the instance's life; every backend that offers a policy gives the same
 * answers to the same calls):
 *	first	RG_REGION_FIRST_FIT, the default: the lowest start that fits.
 *	best	RG_REGION_BEST_FIT: the smallest free run that holds the
 *		request with its alignment, the lowest such run among equals,
 *		carved from its lowest aligned start. Exact: never fails while
 *		a fitting run exists.
 *	top	RG_REGION_TOP_DOWN: the highest start that fits.
 *	next	RG_REGION_NEXT_FIT: the lowest start that fits at or after the
 *		end of the previous next-fit allocation (rg_region_alloc() on
 *		a next-fit instance, or a next-fit request), else, wrapping
 *		once, the lowest start that fits at all. That end may be the
 *		capacity (then the search wraps at once); rg_region_resize()
 *		leaves it as it is, so after a grow next fit goes on there.
 * What each backend offers:
 *	bitmap	first, best, top, next (best and top scan the whole map)
 *	ida	first
 *	maple	first, top, next (top: the tree's reverse gap search)
 *	hbitmap	first, best, top, next (best: an index of free runs by size
 *		beside the bitmap, see rg_hbitmap_create_flags(); top: the
 *		summaries searched from the top, rg_hbitmap_alloc_rev())
 *	extent	first, best, top, next (best: the size-ordered tree, kept by
 *		instances created best fit)
 *
 * Units, not regions, are what the structure tracks: rg_region_free() frees
 * any range whose units are all allocated (by one or several rg_region_alloc
 * or rg_region_reserve calls, or part of one), and fails without change if
 * any unit in it is free. Nothing remembers region boundaries, so no memory
 * is spent on them; a free of the wrong size, or across two allocations,
 * succeeds and the units it should not have freed are handed out again.
 * An instance created with RG_REGION_CHECKED records where each
 * allocation starts (one bit per unit) and refuses, with -EINVAL and no
 * change, every free that is not exactly one allocation.
 *
 * Errors: every call returns 0 or a negative errno and leaves the instance
 * unchanged on error; rg_region_create() returns NULL with errno set.
 * Locking: the caller serialises calls on an instance, unless it was created
 * with RG_REGION_LOCKED or RG_REGION_CACHED.
 *
 * Per-thread caches (RG_REGION_CACHED), after the kernel's IOVA allocator's
 * per-CPU magazines of freed ranges: each thread that calls the instance
 * keeps, per size of 1 .. 32 units, a stack of up to 16 regions it freed,
 * and hands them out again without taking the instance's lock. A cached
 * region serves only a request it satisfies exactly: rg_region_alloc() of
 * the same size whose alignment its start meets (rg_region_alloc_request()
 * never uses the caches). Full stacks move 8 regions at a time to a depot
 * the threads share (64 per size), empty ones refill from it, under the
 * lock; beyond that, regions go back to the backend. A thread's cached
 * regions go back when it exits, all threads' when the instance is
 * destroyed. The trade: a cached region is not where the placement policy
 * would put the allocation (first fit, say) -- the instance gives up exact
 * placement for throughput across threads. What stays exact:
 *	- no unit is ever handed out twice: rg_region_free() of a region the
 *	  calling thread's cache handed out, whole, is checked against the
 *	  cache's own record of it; any other free (another thread's region,
 *	  part of one, several, a larger size) takes the lock and checks every
 *	  cache as well as the backend, so a double free still gets -ENOENT;
 *	- never a false -ENOSPC: an allocation that does not fit is retried
 *	  once after every cache and the depot gave their regions back;
 *	- the calls that look at the instance as a whole (rg_region_reserve(),
 *	  rg_region_test(), rg_region_get_stats(), rg_region_validate(),
 *	  rg_region_dump(), rg_region_next_run() and the walks,
 *	  rg_region_save(), rg_region_save_file(), rg_region_alloc_request(),
 *	  rg_region_resize()) first give every cached region back to the
 *	  backend, so they see cached regions as free, as they are.
 * Memory: about 17 KiB per instance for the depot and 5 KiB per thread that
 * calls it, not counted in rg_region_stats.bytes_held. A thread that
 * cannot allocate its cache makes its calls under the lock, uncached.
 */
#ifndef REGION_REGION_H
#define REGION_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "region/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backends; RG_REGION_NR_BACKENDS counts them. */
enum rg_region_backend {
	RG_REGION_BITMAP,
	RG_REGION_IDA,
	RG_REGION_MAPLE,
	RG_REGION_HBITMAP,
	RG_REGION_EXTENT,
	RG_REGION_NR_BACKENDS
};

/**
 * enum rg_region_policy - where rg_region_alloc() places a region.
 * @RG_REGION_FIRST_FIT: the lowest start that fits (the default).
 * @RG_REGION_BEST_FIT: the smallest free run that holds the request with its
 *                      alignment; the lowest start among runs of that length;
 *                      the run's lowest aligned start.
 * @RG_REGION_TOP_DOWN: the highest start that fits.
 * @RG_REGION_NEXT_FIT: the lowest start that fits at or after the end of the
 *                      previous next-fit allocation (unit 0 before the
 *                      first; kept across resizes), else the lowest start
 *                      that fits (one wrap).
 * @RG_REGION_NR_POLICIES: the number of policies.
 */
enum rg_region_policy {
	RG_REGION_FIRST_FIT = 0,
	RG_REGION_BEST_FIT,
	RG_REGION_TOP_DOWN,
	RG_REGION_NEXT_FIT,
	RG_REGION_NR_POLICIES
};

/* rg_region_create() flags. */
/* Every call takes the instance's own mutex. */
#define RG_REGION_LOCKED 0x1u
/*
 * Thread-safe as RG_REGION_LOCKED, with per-thread caches of freed regions
 * of 1 .. 32 units: see "Per-thread caches" below.
 */
#define RG_REGION_CACHED 0x2u
/*
 * Checked frees: the instance records where each allocation starts (one
 * bit per unit, capacity / 8 bytes) and rg_region_free() must name exactly
 * one allocation, or gets -EINVAL with nothing changed. See
 * rg_region_free().
 */
#define RG_REGION_CHECKED 0x4u
/* Bits 8..15 of the flags hold the placement policy; 0 is first fit. */
#define RG_REGION_POLICY_SHIFT 8
#define RG_REGION_POLICY_MASK (0xffu << RG_REGION_POLICY_SHIFT)
/**
 * RG_REGION_POLICY() - the creation flag bits that select a placement policy.
 * @p: an enum rg_region_policy.
 *
 * Or it into the flags of rg_region_create() or rg_region_create_backend();
 * without it an instance places first fit.
 *
 * Context: any; a constant expression.
 */
#define RG_REGION_POLICY(p) \
	(((unsigned int)(p) << RG_REGION_POLICY_SHIFT) & RG_REGION_POLICY_MASK)

struct rg_region;

/* Buckets of rg_region_stats.free_run_hist: one per power of two. */
#define RG_REGION_HIST_BUCKETS 64

/**
 * struct rg_region_stats - an instance's figures, from rg_region_get_stats().
 * @backend: the backend in use.
 * @capacity: units the instance manages (0 .. capacity - 1).
 * @free_units: units not allocated.
 * @largest_free_run: length of the longest run of free units.
 * @bytes_held: bytes the instance holds now: its own header plus the
 *              backend's memory, measured (slab statistics for node-based
 *              backends, array sizes for bitmaps), not estimated.
 * @bytes_held_peak: the largest @bytes_held seen since creation (sampled
 *                   after every call that can grow it, or kept by the
 *                   backend wherever its memory changes).
 * @free_runs: number of maximal runs of free units.
 * @free_run_hist: free runs by length: bucket k counts the runs of
 *                 2^k .. 2^(k+1) - 1 units (bucket 0: runs of 1 unit).
 * @fragmentation: 1 - @largest_free_run / @free_units: 0 when the free
 *                 units form one run (or none is free), towards 1 as they
 *                 split into many short runs.
 */
struct rg_region_stats {
	enum rg_region_backend backend;
	unsigned long capacity;
	unsigned long free_units;
	unsigned long largest_free_run;
	size_t bytes_held;
	size_t bytes_held_peak;
	unsigned long free_runs;
	unsigned long free_run_hist[RG_REGION_HIST_BUCKETS];
	double fragmentation;
};

/**
 * rg_region_backend_name() - the name of a backend.
 * @backend: a backend.
 *
 * Context: any thread.
 * Return: "bitmap", "ida", "maple", "hbitmap" or "extent"; NULL for an
 * unknown value.
 */
RG_API const char *rg_region_backend_name(enum rg_region_backend backend);

/**
 * rg_region_backend_lookup() - find a backend by name.
 * @name: "bitmap", "ida", "maple", "hbitmap" or "extent".
 * @backend: receives the backend.
 *
 * Context: any thread.
 * Return: 0; -EINVAL if no backend has that name (a bad argument, as an
 * unknown policy or flag is), or if @name or @backend is NULL.
 */
RG_API int rg_region_backend_lookup(const char *name,
				    enum rg_region_backend *backend);

/**
 * rg_region_backend_available() - tell whether a backend exists.
 * @backend: a backend.
 *
 * Every build has every backend; this tells a known value from an unknown
 * one.
 *
 * Context: any thread.
 * Return: true if @backend is one of enum rg_region_backend's backends.
 */
RG_API bool rg_region_backend_available(enum rg_region_backend backend);

/**
 * rg_region_policy_name() - the name of a placement policy.
 * @policy: a policy.
 *
 * Context: any thread.
 * Return: "first", "best", "top" or "next"; NULL for an unknown value.
 */
RG_API const char *rg_region_policy_name(enum rg_region_policy policy);

/**
 * rg_region_policy_lookup() - find a placement policy by name.
 * @name: "first", "best", "top" or "next".
 * @policy: receives the policy.
 *
 * Context: any thread.
 * Return: 0; -ENOENT if no policy has that name.
 */
RG_API int rg_region_policy_lookup(const char *name,
				   enum rg_region_policy *policy);

/**
 * rg_region_backend_has_policy() - tell whether a backend offers a policy.
 * @backend: a backend.
 * @policy: a policy.
 *
 * Context: any thread.
 * Return: true if rg_region_create_backend() accepts @policy for @backend;
 * false for unknown values.
 */
RG_API bool rg_region_backend_has_policy(enum rg_region_backend backend,
					 enum rg_region_policy policy);

/**
 * rg_region_create_backend() - create an instance.
 * @backend: which structure to use.
 * @capacity: number of units, at least 1. The ida backend accepts at most
 *            INT_MAX + 1; the maple backend at most ULONG_MAX; the
 *            extent backend at most INT32_MAX.
 * @flags: 0, or RG_REGION_LOCKED or RG_REGION_CACHED, RG_REGION_CHECKED,
 *         and/or RG_REGION_POLICY(policy) or-ed; without a policy the
 *         instance places first fit.
 *
 * With RG_REGION_CHECKED the instance also holds a bitmap of allocation
 * starts, one bit per unit (capacity / 8 bytes, rounded up to a word,
 * counted in rg_region_stats.bytes_held).
 *
 * Context: any thread; allocates.
 * Return: the instance, or NULL with errno EINVAL (capacity 0 or too large
 * for the backend, unknown flags, backend or policy), EOPNOTSUPP (the
 * backend does not offer the policy), ENOMEM, or with RG_REGION_CACHED
 * EAGAIN (no thread-specific key could be created).
 */
RG_API struct rg_region *
rg_region_create_backend(enum rg_region_backend backend, unsigned long capacity,
			 unsigned int flags);

/**
 * rg_region_create() - create an instance, backend chosen by name.
 * @backend: "bitmap", "ida", "maple", "hbitmap" or "extent".
 * @capacity: number of units, at least 1.
 * @flags: as rg_region_create_backend().
 *
 * Context: any thread; allocates.
 * Return: the instance, or NULL with errno EINVAL (no backend has that
 * name, or @backend is NULL) or as rg_region_create_backend().
 */
RG_API struct rg_region *rg_region_create(const char *backend,
					  unsigned long capacity,
					  unsigned int flags);

/**
 * rg_region_destroy() - free an instance and everything it holds.
 * @r: the instance, or NULL.
 *
 * With RG_REGION_CACHED, threads that used @r may live on: their caches
 * of it are dropped with it.
 *
 * Context: no other call on @r may run or follow.
 */
RG_API void rg_region_destroy(struct rg_region *r);

/**
 * rg_region_alloc() - allocate @n contiguous units where the policy says.
 * @r: the instance.
 * @n: number of units, 1 .. capacity.
 * @align: 0 or 1 for none, else a power of two that the start must be a
 *         multiple of.
 * @start: receives the first unit of the region on success.
 *
 * The start is the one the instance's placement policy names (enum
 * rg_region_policy; first fit by default: the lowest start that fits). The
 * result does not depend on the backend, and no policy fails while any
 * aligned run of @n free units exists.
 *
 * Context: caller serialises (or RG_REGION_LOCKED, or RG_REGION_CACHED:
 * a size of 1 .. 32 may then come from the calling thread's cache, not
 * where the policy places); may allocate.
 * Return: 0; -EINVAL if @n is 0 or above the capacity or @align is not 0 or
 * a power of two; -ENOSPC if no run of @n free units with that alignment
 * exists; -ENOMEM if the backend ran out of memory. On error nothing
 * changes and *@start is untouched.
 */
RG_API int rg_region_alloc(struct rg_region *r, unsigned long n,
			   unsigned long align, unsigned long *start);

/**
 * rg_region_free() - free units @start .. @start + @n - 1.
 * @r: the instance.
 * @start: first unit.
 * @n: number of units, at least 1.
 *
 * Without RG_REGION_CHECKED the units must all be allocated, and that is
 * all that is checked: they may come from one allocation, part of one, or
 * several adjacent ones, so a free of the wrong size, of the middle of a
 * region or across two allocations succeeds, and its units are handed out
 * again while their owners still use them.
 *
 * With RG_REGION_CHECKED the range must be exactly one allocation: @start
 * the first unit that rg_region_alloc(), rg_region_alloc_request() or
 * rg_region_reserve() returned or was given, @n its length. Anything else
 * (a wrong size, a part of a region, a range across two) is -EINVAL and
 * changes nothing; partial frees are not offered. A reservation is one
 * allocation like any other, and an instance from rg_region_load() has
 * one allocation per saved run (the saved format holds units, not region
 * boundaries). The check costs a bit test at each end and a scan of the
 * range's start bits (n / 64 words).
 *
 * Context: caller serialises (or RG_REGION_LOCKED or RG_REGION_CACHED);
 * the maple backend may allocate when it frees part of an entry, the
 * extent backend when the range touches no free unit (a new free run).
 * Return: 0; -EINVAL if @n is 0 or the range passes the capacity (or
 * overflows), or, on an RG_REGION_CHECKED instance, if @start is allocated
 * but the range is not exactly the allocation that starts there; -ENOENT
 * if any unit in it is free (not, or only partly, allocated; on a checked
 * instance: if unit @start is free); -ENOMEM if the backend ran out of
 * memory. On error nothing changes.
 */
RG_API int rg_region_free(struct rg_region *r, unsigned long start,
			  unsigned long n);

/**
 * rg_region_reserve() - allocate units @start .. @start + @n - 1 exactly.
 * @r: the instance.
 * @start: first unit.
 * @n: number of units, at least 1.
 *
 * For a fixed placement; the reserved units are freed with rg_region_free().
 *
 * Context: caller serialises (or RG_REGION_LOCKED, or RG_REGION_CACHED:
 * every thread's cached regions are first given back, so they count as
 * free; on the maple backend giving them back can allocate); may
 * allocate.
 * Return: 0; -EINVAL if @n is 0 or the range passes the capacity (or
 * overflows); -EBUSY if any unit in it is allocated; -ENOMEM if the backend
 * ran out of memory. On error nothing changes.
 */
RG_API int rg_region_reserve(struct rg_region *r, unsigned long start,
			     unsigned long n);

/**
 * rg_region_test() - tell whether a unit is allocated.
 * @r: the instance.
 * @unit: the unit.
 *
 * Context: caller serialises (or RG_REGION_LOCKED, or RG_REGION_CACHED:
 * every thread's cached regions are first given back, so they count as
 * free; on the maple backend giving them back can allocate); otherwise
 * never allocates.
 * Return: 1 if @unit is allocated, 0 if it is free, -EINVAL if @unit is not
 * below the capacity.
 */
RG_API int rg_region_test(struct rg_region *r, unsigned long unit);

/**
 * rg_region_get_stats() - read an instance's figures.
 * @r: the instance.
 * @st: receives them.
 *
 * The largest free run costs a scan of the structure on the bitmap, ida and
 * maple backends (O(capacity), O(runs) and O(regions)); hbitmap reads
 * it from its top summary, extent from its tree's root. The free runs and
 * their histogram walk every free run as rg_region_next_run() does:
 * O(runs) on hbitmap and ida, O(runs log runs) on extent.
 *
 * Context: caller serialises (or RG_REGION_LOCKED, or RG_REGION_CACHED:
 * every thread's cached regions are first given back, so they count as
 * free; on the maple backend giving them back can allocate); otherwise
 * never allocates.
 * Return: 0.
 */
RG_API int rg_region_get_stats(struct rg_region *r, struct rg_region_stats *st);

/**
 * rg_region_validate() - check an instance's invariants.
 * @r: the instance.
 * @reason: if not NULL, receives a static string naming the first problem.
 *
 * Checks the backend structure with its own validate call and that the
 * free-unit count agrees with it. O(capacity) or O(regions).
 *
 * Context: caller serialises (or RG_REGION_LOCKED, or RG_REGION_CACHED:
 * every thread's cached regions are first given back, so they count as
 * free; on the maple backend giving them back can allocate); otherwise
 * never allocates.
 * Return: 0 if valid; -EINVAL otherwise.
 */
RG_API int rg_region_validate(struct rg_region *r, const char **reason);

/**
 * rg_region_dump() - print an instance: backend, figures, allocated runs.
 * @r: the instance.
 * @f: where to print.
 *
 * Context: caller serialises (or RG_REGION_LOCKED, or RG_REGION_CACHED:
 * every thread's cached regions are first given back, so they count as
 * free; on the maple backend giving them back can allocate); otherwise
 * never allocates.
 */
RG_API void rg_region_dump(struct rg_region *r, FILE *f);

/*
 * Constrained allocation and resize.
 *
 * Usage:
 *	struct rg_region_request req = RG_REGION_REQUEST(256);
 *	req.align = 16;			// start % 16 == 0
 *	req.lo = 0x1000;		// the region lies in [lo, hi]
 *	req.hi = 0xfffff;
 *	req.boundary = 0x10000;		// and crosses no multiple of 65536
 *	req.policy = RG_REGION_TOP_DOWN;	// for this call only
 *	err = rg_region_alloc_request(r, &req, &start);
 *	err = rg_region_resize(r, 2 * capacity);	// grow, or shrink if free
 *
 * What each backend answers (others get -EOPNOTSUPP):
 *	bitmap	first, best, top, next: every free run of the window is
 *		visited (O(window / 64)), as its policies do.
 *	ida	first, next: the IDA's lowest-free-ID search inside the
 *		window; it has no search by size or from the top.
 *	maple	first, top, next: the tree's gap searches bounded to the
 *		window; best fit is not offered (the tree keeps the largest
 *		gap of a subtree, not the smallest that fits).
 *	hbitmap	first, best, top, next: the summaries searched inside the
 *		window only (O(log capacity) per free run skipped for its
 *		alignment or a boundary). Best fit visits the free runs of
 *		the window that can hold the request, O(log capacity) each,
 *		and does not use the instance's best-fit index.
 *	extent	first, best, top, next: one descent of the address tree for
 *		a window (its two edges), alignments up to 2048 exact in the
 *		tree's figures; a boundary or a larger alignment visits the
 *		window's extents long enough, checking each. Best fit uses
 *		the size tree for a plain request on a best-fit instance,
 *		else visits the window's extents long enough to hold it.
 * Every answer is exact: the same start a search of every unit would pick.
 */

/* rg_region_request.hi: the last unit of the instance, whatever it is. */
#define RG_REGION_END (~0UL)
/* rg_region_request.policy: the instance's own placement policy. */
#define RG_REGION_INSTANCE_POLICY (-1)

/**
 * struct rg_region_request - a constrained allocation, for
 * rg_region_alloc_request(). Start from RG_REGION_REQUEST(n).
 * @n: number of units, 1 .. capacity.
 * @align: 0 or 1 for none, else a power of two the start is a multiple of.
 * @lo: lowest unit the region may use; below the capacity.
 * @hi: highest unit the region may use (inclusive), at least @lo and below
 *      the capacity, or RG_REGION_END for the last unit.
 * @boundary: 0 for none, else a power of two, at least @n: the region does
 *            not cross a multiple of it (start / boundary equals
 *            (start + n - 1) / boundary), as DMA engines require.
 * @policy: an enum rg_region_policy for this call, or
 *          RG_REGION_INSTANCE_POLICY for the one the instance was created
 *          with. Among the starts s that meet every constraint above and
 *          have s .. s + n - 1 free: first, the lowest; top, the highest;
 *          best, the lowest such s in the shortest free run (measured
 *          whole, not cut at the window) that holds one, the lowest run
 *          among equals; next, the lowest at or after the end of the
 *          previous next-fit allocation (rg_region_alloc() or this call),
 *          else the lowest (one wrap).
 */
struct rg_region_request {
	unsigned long n;
	unsigned long align;
	unsigned long lo;
	unsigned long hi;
	unsigned long boundary;
	int policy;
};

/**
 * RG_REGION_REQUEST() - a request for @n_ units anywhere, instance policy.
 * @n_: the number of units.
 *
 * A struct rg_region_request compound literal with no alignment, the
 * whole capacity as its window, no boundary and RG_REGION_INSTANCE_POLICY;
 * set the fields to constrain it, then call rg_region_alloc_request().
 *
 * Context: any; an expression.
 */
#define RG_REGION_REQUEST(n_)                             \
	((struct rg_region_request){ .n = (n_),           \
				     .align = 0,          \
				     .lo = 0,             \
				     .hi = RG_REGION_END, \
				     .boundary = 0,       \
				     .policy = RG_REGION_INSTANCE_POLICY })

/**
 * rg_region_alloc_request() - allocate under a window, an alignment and a
 * boundary, placed by a policy.
 * @r: the instance.
 * @req: the request (struct rg_region_request); not changed.
 * @start: receives the first unit of the region on success.
 *
 * rg_region_alloc(r, n, align, &s) is this call with RG_REGION_REQUEST(n)
 * and .align = align, and gives the same start.
 *
 * Context: caller serialises (or RG_REGION_LOCKED, or RG_REGION_CACHED:
 * every thread's cached regions are first given back, so they count as
 * free; on the maple backend giving them back can allocate); may
 * allocate (ida, maple and extent nodes).
 * Return: 0; -EINVAL if @r, @req or @start is NULL, @req->n is 0 or above
 * the capacity, @req->align is not 0 or a power of two, @req->lo is not
 * below the capacity, @req->hi is below @req->lo or not below the capacity
 * (and not RG_REGION_END), @req->boundary is not 0 or a power of two of at
 * least @req->n, or @req->policy is neither a policy nor
 * RG_REGION_INSTANCE_POLICY; -EOPNOTSUPP if the backend does not answer
 * that policy (ida answers first and next fit, maple all but best fit,
 * bitmap and hbitmap all four); -ENOSPC if no start meets the request (also
 * when the window is shorter than @req->n, whatever lo + n would give);
 * -ENOMEM if the backend ran out of memory. On error nothing changes and
 * *@start is untouched.
 */
RG_API int rg_region_alloc_request(struct rg_region *r,
				   const struct rg_region_request *req,
				   unsigned long *start);

/**
 * rg_region_resize() - change the capacity.
 * @r: the instance.
 * @capacity: the new number of units, at least 1.
 *
 * Growing adds free units at the top; shrinking cuts units off the top and
 * needs every one of them free. Allocated units below both capacities stay
 * as they are, and the figures of rg_region_get_stats() follow. bitmap and
 * hbitmap build a new map (O(capacity / 64), allocates; hbitmap's best-fit
 * index is rebuilt by the next best-fit allocation); maple and ida change
 * nothing but the limit (a shrink checks the cut-off part: O(log regions),
 * one IDA lookup); extent changes its last free run or adds one
 * (O(log runs), may allocate a node).
 *
 * Next fit's cursor, the end of the previous next-fit allocation, stays
 * where it is: after a grow the next next-fit search starts there, also
 * when that allocation ended exactly at the old capacity (the new units
 * come first, not unit 0); while the cursor is at or past the capacity (a
 * shrink cut it off) a search wraps to unit 0 at once, and a later grow
 * past it brings it back into use.
 *
 * Context: caller serialises (or RG_REGION_LOCKED, or RG_REGION_CACHED:
 * every thread's cached regions are first given back, so they count as
 * free; on the maple backend giving them back can allocate); may
 * allocate.
 * Return: 0 (also when @capacity is the current one); -EINVAL if @r is NULL,
 * @capacity is 0 or above the backend's limit (that of
 * rg_region_create_backend()); -EBUSY if a unit at or past @capacity is
 * allocated; -ENOMEM if the new map could not be allocated. On error
 * nothing changes.
 */
RG_API int rg_region_resize(struct rg_region *r, unsigned long capacity);

/*
 * Walking, save and load.
 *
 * Usage:
 *	unsigned long s, n;
 *	int kind;
 *	rg_region_for_each_run(r, 0, RG_RUN_USED | RG_RUN_FREE, kind, s, n)
 *		printf("%s %lu+%lu\n", kind == RG_RUN_USED ? "used" : "free",
 *		       s, n);
 *
 *	size_t size = 0;
 *	rg_region_save(r, NULL, &size);		// -ENOSPC, size needed
 *	void *buf = malloc(size);
 *	rg_region_save(r, buf, &size);		// 0
 *	struct rg_region *copy = rg_region_load(buf, size, RG_REGION_MAPLE,
 *						RG_REGION_LOAD_SAVED_POLICY);
 *
 * The saved format (all integers little-endian; offsets in bytes):
 *	0	4	magic "RGRN"
 *	4	2	format version, 1
 *	6	1	placement policy of the saved instance
 *	7	1	0
 *	8	8	capacity in units
 *	16	8	N, the number of allocated runs
 *	24	16 N	the runs in address order: first unit (8), length (8);
 *			each run at least 1 unit, inside the capacity and
 *			followed by at least one free unit before the next
 *	24+16N	4	CRC-32C (Castagnoli) of bytes 0 .. 24 + 16 N - 1
 * A saved instance is RG_REGION_SAVE_SIZE(N) bytes. Units, not regions, are
 * saved (as the instance tracks them), so any backend's save gives the same
 * bytes for the same allocated units, and any backend loads them.
 */

/* rg_region_next_run() kinds. */
#define RG_RUN_USED 0x1u
#define RG_RUN_FREE 0x2u

/* Version of the saved format rg_region_save() writes. */
#define RG_REGION_SAVE_VERSION 1
/**
 * RG_REGION_SAVE_SIZE() - bytes of a saved instance with @nruns runs.
 * @nruns: the number of allocated runs.
 *
 * 28 + 16 * @nruns, as a size_t: the size rg_region_save() writes.
 *
 * Context: any; a constant expression for a constant @nruns.
 */
#define RG_REGION_SAVE_SIZE(nruns) (28 + 16 * (size_t)(nruns))
/* rg_region_load() flag: place by the policy stored in the saved bytes. */
#define RG_REGION_LOAD_SAVED_POLICY 0x80000000u

/**
 * rg_region_next_run() - find the next run of allocated or free units.
 * @r: the instance.
 * @from: the first unit to look at.
 * @kinds: RG_RUN_USED, RG_RUN_FREE or both or-ed.
 * @start: receives the lowest unit at or after @from in a wanted state.
 * @n: receives the length of its run from *@start: up to the next unit in
 *     the other state, or to the capacity.
 *
 * Runs are maximal: a run of allocated units may span several adjacent
 * allocations (units, not regions, are tracked). With both kinds the run
 * is the one holding @from. Calling again from *@start + *@n visits the
 * runs in address order; rg_region_for_each_run() does that. Cost: O(log
 * capacity) per run on hbitmap (its summaries skip the spans between runs;
 * on a best-fit instance the blocks changed since the last walk step are
 * first brought up to date, see rg_hbitmap_sync()),
 * O(log regions) per entry on maple, a word scan on bitmap, two IDA range
 * lookups on ida (each skips the chunks between runs), one tree descent
 * (O(log runs)) on extent.
 *
 * Context: caller serialises (or RG_REGION_LOCKED, or RG_REGION_CACHED:
 * every thread's cached regions are first given back, so they count as
 * free; on the maple backend giving them back can allocate); otherwise
 * never allocates.
 * Return: RG_RUN_USED or RG_RUN_FREE, the kind of the run found; -ENOENT
 * if no unit at or after @from is of a wanted kind (also when @from is at
 * or past the capacity); -EINVAL if @kinds is 0 or has unknown bits, or a
 * pointer is NULL. On error *@start and *@n are untouched.
 */
RG_API int rg_region_next_run(struct rg_region *r, unsigned long from,
			      unsigned int kinds, unsigned long *start,
			      unsigned long *n);

/**
 * rg_region_for_each_run() - visit the runs at and after @from in order.
 * @r: the instance.
 * @from: the first unit to look at.
 * @kinds: RG_RUN_USED, RG_RUN_FREE or both or-ed.
 * @kind: an int lvalue: RG_RUN_USED or RG_RUN_FREE, the current run's kind.
 * @start: an unsigned long lvalue: the current run's first unit.
 * @n: an unsigned long lvalue: the current run's length.
 *
 * Each step is one rg_region_next_run() from the end of the previous run.
 * The body must not change the instance. The loop ends when
 * rg_region_next_run() returns -ENOENT (or -EINVAL for bad @kinds: no run
 * is visited).
 *
 * Context: caller serialises (or RG_REGION_LOCKED: each step locks);
 * never allocates.
 */
#define rg_region_for_each_run(r, from, kinds, kind, start, n)         \
	for ((start) = (from), (n) = 0;                                \
	     ((kind) = rg_region_next_run((r), (start) + (n), (kinds), \
					  &(start), &(n))) > 0;)

/**
 * rg_region_save() - write an instance's allocated runs to a buffer.
 * @r: the instance.
 * @buf: where to write, or NULL to ask for the size.
 * @size: on entry the bytes available at @buf; on return the bytes the
 *        saved instance takes (written, or needed).
 *
 * Writes the format described above. Never allocates.
 *
 * Context: caller serialises (or RG_REGION_LOCKED, or RG_REGION_CACHED:
 * every thread's cached regions are first given back, so they count as
 * free; on the maple backend giving them back can allocate).
 * Return: 0; -ENOSPC if *@size is too small (or @buf is NULL): nothing is
 * written and *@size holds the size needed; -EINVAL if @r or @size is
 * NULL.
 */
RG_API int rg_region_save(struct rg_region *r, void *buf, size_t *size);

/**
 * rg_region_save_file() - write an instance's allocated runs to a stream.
 * @r: the instance.
 * @f: the stream, written at its current position.
 *
 * Writes the same bytes as rg_region_save(), as it walks the runs.
 *
 * Context: caller serialises (or RG_REGION_LOCKED, or RG_REGION_CACHED:
 * every thread's cached regions are first given back, so they count as
 * free; on the maple backend giving them back can allocate); otherwise
 * never allocates (the
 * stream may buffer).
 * Return: 0; -EIO if a write failed (the stream then holds part of the
 * record); -EINVAL if @r or @f is NULL.
 */
RG_API int rg_region_save_file(struct rg_region *r, FILE *f);

/**
 * rg_region_load() - create an instance from saved bytes.
 * @buf: the bytes rg_region_save() or rg_region_save_file() wrote.
 * @size: their number: exactly one saved instance.
 * @backend: the backend of the new instance (any, whichever saved it).
 * @flags: as rg_region_create_backend(), or with
 *         RG_REGION_LOAD_SAVED_POLICY in place of RG_REGION_POLICY(): the
 *         saved policy (giving both is EINVAL).
 *
 * Checks the whole input first: the size, magic, version and fields, the
 * checksum, then every run (in order, apart, inside the capacity); only
 * then creates the instance and reserves the runs. Nothing half-built is
 * ever returned. The next-fit cursor starts at unit 0.
 *
 * Context: any thread; allocates.
 * Return: the instance, or NULL with errno EINVAL (@buf NULL; truncated or
 * oversized input, bad magic, unknown version, a bad field or run,
 * unknown flags, or a capacity the backend does not take), EBADMSG (the
 * checksum does not match: corrupted), EOPNOTSUPP (backend missing, or it
 * does not offer the policy) or ENOMEM.
 */
RG_API struct rg_region *rg_region_load(const void *buf, size_t size,
					enum rg_region_backend backend,
					unsigned int flags);

/**
 * rg_region_load_file() - create an instance from a saved stream.
 * @f: the stream, read from its current position.
 * @backend: as rg_region_load().
 * @flags: as rg_region_load().
 *
 * Reads exactly one saved instance (what follows it stays unread on
 * success) into memory, growing the buffer as the bytes arrive (a header
 * that claims more runs than the stream holds costs no more than the
 * bytes there), then does what rg_region_load() does.
 *
 * Context: any thread; allocates.
 * Return: the instance, or NULL with errno as rg_region_load() (EINVAL
 * also when the stream ends early), or EIO if reading failed.
 */
RG_API struct rg_region *rg_region_load_file(FILE *f,
					     enum rg_region_backend backend,
					     unsigned int flags);

#ifdef __cplusplus
}
#endif
#endif /* REGION_REGION_H */
