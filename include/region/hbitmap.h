/* SPDX-License-Identifier: MIT */
/*
 * libregion hbitmap: a contiguous-range allocator over the units
 * [0, capacity): one bit per unit plus a hierarchy of free-run summaries,
 * so that the lowest-address (first) fit of a run of N units is found in
 * logarithmic time while memory stays within about 11% of the plain bitmap
 * (capacity / 8 bytes).
 *
 * Usage:
 *	struct rg_hbitmap *hb = rg_hbitmap_create(1000000);
 *	uint64_t start;
 *
 *	if (!hb)
 *		return -errno;				// -EINVAL or -ENOMEM
 *	err = rg_hbitmap_alloc(hb, 16, 1, &start);	// lowest free run of 16
 *	err = rg_hbitmap_alloc(hb, 64, 64, &start);	// start % 64 == 0
 *	err = rg_hbitmap_alloc_range(hb, 8, 1, 4096, 8191, &start);
 *	err = rg_hbitmap_reserve(hb, 0, 100);		// fixed placement
 *	err = rg_hbitmap_free(hb, start, 16);		// -ENOENT if not taken
 *	err = rg_hbitmap_alloc_rev(hb, 8, 1, &start);	// highest fit
 *	bf = rg_hbitmap_create_flags(1000000, RG_HBITMAP_BEST_FIT);
 *	err = rg_hbitmap_alloc_best(bf, 16, 4, &start);	// smallest run
 *	printf("%llu free, largest run %llu, %zu bytes\n",
 *	       (unsigned long long)rg_hbitmap_free_units(hb),
 *	       (unsigned long long)rg_hbitmap_largest_free_run(hb),
 *	       rg_hbitmap_bytes(hb));
 *	rg_hbitmap_destroy(hb);
 *
 * Guarantees: an allocation never fails while a fitting free run exists,
 * and its result is exactly the lowest aligned start a linear search of the
 * bitmap would return. Allocation and free take O(log capacity) word
 * operations (aligned requests may take longer, see rg_hbitmap_alloc()).
 * Nothing allocates memory after rg_hbitmap_create() except
 * rg_hbitmap_resize() and, on best-fit instances, the index of free runs
 * (see rg_hbitmap_create_flags()). The structure is not thread-safe:
 * callers serialise every call on one bitmap (read-only calls may run
 * concurrently with each other).
 */
#ifndef REGION_HBITMAP_H
#define REGION_HBITMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "region/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest capacity rg_hbitmap_create() and rg_hbitmap_resize() accept. */
#define RG_HBITMAP_MAX_CAPACITY ((uint64_t)1 << 56)

struct rg_hbitmap;

/* rg_hbitmap_create_flags(): keep an index of free runs for best fit. */
#define RG_HBITMAP_BEST_FIT 0x1u

/**
 * rg_hbitmap_create() - create an allocator of @capacity units, all free.
 * @capacity: number of units, 1 .. RG_HBITMAP_MAX_CAPACITY.
 *
 * Memory is about capacity / 8 bytes for the bitmap plus 11% for the
 * summaries, allocated here and nowhere else (except resize).
 *
 * Context: any thread.
 * Return: the new allocator, or NULL with errno set to EINVAL (@capacity is
 * 0 or too large) or ENOMEM.
 */
RG_API struct rg_hbitmap *rg_hbitmap_create(uint64_t capacity);

/**
 * rg_hbitmap_create_flags() - rg_hbitmap_create() with options.
 * @capacity: number of units, 1 .. RG_HBITMAP_MAX_CAPACITY.
 * @flags: 0, or RG_HBITMAP_BEST_FIT: keep a size-segregated index of the
 *         free runs beside the bitmap, for rg_hbitmap_alloc_best().
 *
 * Free runs shorter than 64 units are indexed by one start set per length
 * (a bit per 64 units of capacity, plus summary levels: 1.01 bits per unit
 * in all, allocated here). Each longer run holds one 24-byte node in a
 * pool that doubles when fewer than two nodes are spare, plus a hash table
 * of 4-byte slots (four per pool node) that finds a long run by its start
 * or end. All of it is part of rg_hbitmap_bytes(). Every call on such an
 * instance updates the index (a few word operations for short runs,
 * O(log runs) for long ones; a reservation or an allocation that does not
 * start a long run also scans back to the run's start), and none fails for
 * it: when the pool cannot grow and a node is needed, the index is dropped
 * and the next rg_hbitmap_alloc_best() rebuilds it from the bitmap
 * (O(capacity / 64)), which is the only call that can then return -ENOMEM
 * (also when more than 2^29 long runs would need indexing).
 * rg_hbitmap_resize() drops it the same way, and the rebuild then
 * allocates start sets for the new capacity. Such an instance does not
 * keep the first-fit summaries current: best fit, top-down, free and
 * reserve change only the bits and the index, and rg_hbitmap_alloc() or
 * rg_hbitmap_alloc_range() rebuild the summaries first when they are
 * behind (O(capacity / 64)); the largest free run comes from the index.
 * Without the flag nothing of it exists.
 *
 * Context: any thread.
 * Return: the new allocator, or NULL with errno set to EINVAL (@capacity is
 * 0 or too large, or unknown @flags) or ENOMEM.
 */
RG_API struct rg_hbitmap *rg_hbitmap_create_flags(uint64_t capacity,
						  unsigned int flags);

/**
 * rg_hbitmap_destroy() - free an allocator and everything it holds.
 * @hb: allocator from rg_hbitmap_create(), or NULL (no-op).
 *
 * Context: any thread; no other call may use @hb concurrently.
 */
RG_API void rg_hbitmap_destroy(struct rg_hbitmap *hb);

/**
 * rg_hbitmap_alloc() - allocate the lowest aligned free run of @n units.
 * @hb: the allocator.
 * @n: number of units, 1 .. capacity.
 * @align: required alignment of the start, a power of two (1: none). The
 *         start is aligned in absolute unit numbers: start % align == 0.
 * @start: receives the first unit of the run on success.
 *
 * First fit: the result is the lowest start s with s % align == 0 and the
 * units [s, s + n) all free, the same as a linear search would find. With
 * @align == 1 the cost is O(log capacity). With @align > 1 a subtree whose
 * longest free run is long enough but misaligned is searched and left, so
 * heavily fragmented bitmaps can cost more; runs of n + align - 1 units or
 * more are always found without such detours.
 *
 * Context: caller serialises calls on @hb; never allocates memory.
 * Return: 0 on success; -EINVAL if @n is 0 or larger than the capacity or
 * @align is not a power of two; -ENOSPC if no aligned free run of @n units
 * exists (nothing changes).
 */
RG_API int rg_hbitmap_alloc(struct rg_hbitmap *hb, uint64_t n, uint64_t align,
			    uint64_t *start);

/**
 * rg_hbitmap_alloc_range() - rg_hbitmap_alloc() inside a window.
 * @hb: the allocator.
 * @n: number of units, 1 .. capacity.
 * @align: alignment of the start, a power of two (1: none).
 * @min: lowest unit the run may use.
 * @max: highest unit the run may use (inclusive); values at or past the
 *       capacity mean "up to the last unit".
 * @start: receives the first unit of the run on success.
 *
 * Finds the lowest aligned start s >= @min with s + n - 1 <= @max and the
 * units [s, s + n) free.
 *
 * Context: caller serialises calls on @hb; never allocates memory.
 * Return: 0 on success; -EINVAL if @n is 0 or larger than the capacity,
 * @align is not a power of two or @min > @max; -ENOSPC if no such run
 * exists (nothing changes).
 */
RG_API int rg_hbitmap_alloc_range(struct rg_hbitmap *hb, uint64_t n,
				  uint64_t align, uint64_t min, uint64_t max,
				  uint64_t *start);

/**
 * rg_hbitmap_alloc_rev() - allocate the highest aligned free run of @n units.
 * @hb: the allocator.
 * @n: number of units, 1 .. capacity.
 * @align: required alignment of the start, a power of two (1: none).
 * @start: receives the first unit of the run on success.
 *
 * Top-down first fit: the highest start s with s % align == 0 and the
 * units [s, s + n) free. The summaries are searched from the top, the
 * mirror of rg_hbitmap_alloc(): with @align == 1, O(64 log capacity) word
 * operations. On best-fit instances (RG_HBITMAP_BEST_FIT), whose summaries
 * may be stale, the bitmap's words are scanned from the top instead:
 * O(capacity / 64) in the worst case.
 *
 * Context: caller serialises calls on @hb; never allocates memory.
 * Return: 0 on success; -EINVAL if @n is 0 or larger than the capacity or
 * @align is not a power of two; -ENOSPC if no aligned free run of @n units
 * exists (nothing changes).
 */
RG_API int rg_hbitmap_alloc_rev(struct rg_hbitmap *hb, uint64_t n,
				uint64_t align, uint64_t *start);

/**
 * rg_hbitmap_alloc_best() - allocate from the smallest free run that fits.
 * @hb: an allocator created with RG_HBITMAP_BEST_FIT.
 * @n: number of units, 1 .. capacity.
 * @align: required alignment of the start, a power of two (1: none).
 * @start: receives the first unit of the run on success.
 *
 * Best fit, exact: among the free runs that hold an aligned start s with
 * [s, s + n) inside the run, the shortest; among equally short ones the
 * lowest; the result is that run's lowest aligned start. Never fails while
 * a fitting run exists. With @align == 1 it costs a few word operations
 * when the best run is shorter than 64 units, else O(log runs); with
 * alignment, runs of a length class that cannot hold the aligned request
 * are skipped one by one (runs of n + align - 1 units always fit).
 *
 * Context: caller serialises calls on @hb; allocates only to rebuild a
 * dropped index (see rg_hbitmap_create_flags()).
 * Return: 0 on success; -EINVAL if @n is 0 or larger than the capacity or
 * @align is not a power of two; -EOPNOTSUPP if @hb was created without
 * RG_HBITMAP_BEST_FIT; -ENOSPC if no aligned free run of @n units exists;
 * -ENOMEM if a dropped index could not be rebuilt. Nothing changes on
 * error.
 */
RG_API int rg_hbitmap_alloc_best(struct rg_hbitmap *hb, uint64_t n,
				 uint64_t align, uint64_t *start);

/* rg_hbitmap_alloc_window() placements. */
#define RG_HBITMAP_LOWEST 0u /* the lowest start that fits */
#define RG_HBITMAP_BEST 1u /* from the shortest free run that fits */
#define RG_HBITMAP_HIGHEST 2u /* the highest start that fits */

/**
 * rg_hbitmap_alloc_window() - allocate inside a window, crossing no
 * boundary, placed lowest, best or highest.
 * @hb: the allocator.
 * @n: number of units, 1 .. capacity.
 * @align: alignment of the start, a power of two (1: none).
 * @min: lowest unit the run may use.
 * @max: highest unit the run may use (inclusive); values at or past the
 *       capacity mean "up to the last unit".
 * @boundary: 0 for none, else a power of two of at least @n: the run
 *            crosses no multiple of it (s / boundary == (s + n - 1) /
 *            boundary).
 * @place: RG_HBITMAP_LOWEST, RG_HBITMAP_BEST or RG_HBITMAP_HIGHEST.
 * @start: receives the first unit of the run on success.
 *
 * Among the starts s with s % align == 0, @min <= s, s + n - 1 <= @max, no
 * boundary crossed and [s, s + n) free: the lowest (LOWEST, as
 * rg_hbitmap_alloc_range()), the highest (HIGHEST), or (BEST) the lowest
 * one in the shortest free run that holds one (the run measured whole, not
 * cut at the window; the lowest run among equals). The search stays inside
 * the window: the summaries are searched from @min (LOWEST, BEST) or from
 * @max down (HIGHEST), a fit that crosses a boundary restarts the search at
 * that boundary, and BEST takes one such search, and O(log capacity) to
 * measure the run, per free run in the window that holds a fit. On
 * best-fit instances (RG_HBITMAP_BEST_FIT) a BEST request over the whole
 * capacity (@min 0, @max at or past the last unit: alignment and boundary
 * only) is answered from the index of free runs instead, as
 * rg_hbitmap_alloc_best() does, visiting runs from the shortest up until
 * one holds an aligned fit that crosses no boundary; other requests first
 * bring the summaries up to date from the blocks changed since
 * (rg_hbitmap_sync()).
 *
 * Context: caller serialises calls on @hb; never allocates memory.
 * Return: 0 on success; -EINVAL if @n is 0 or larger than the capacity,
 * @align is not a power of two, @min > @max, @boundary is not 0 or a power
 * of two of at least @n, or @place is unknown; -ENOSPC if no such run
 * exists (nothing changes).
 */
RG_API int rg_hbitmap_alloc_window(struct rg_hbitmap *hb, uint64_t n,
				   uint64_t align, uint64_t min, uint64_t max,
				   uint64_t boundary, unsigned int place,
				   uint64_t *start);

/**
 * rg_hbitmap_free() - release the units [@start, @start + @n).
 * @hb: the allocator.
 * @start: first unit.
 * @n: number of units, at least 1.
 *
 * The units may come from any mix of allocations and reservations: the
 * allocator records units, not regions.
 *
 * Context: caller serialises calls on @hb; never allocates memory.
 * Return: 0 on success; -EINVAL if @n is 0 or the range overflows or passes
 * the capacity; -ENOENT if any unit in the range is free (double free or
 * never allocated): nothing changes.
 */
RG_API int rg_hbitmap_free(struct rg_hbitmap *hb, uint64_t start, uint64_t n);

/**
 * rg_hbitmap_reserve() - allocate the fixed units [@start, @start + @n).
 * @hb: the allocator.
 * @start: first unit.
 * @n: number of units, at least 1.
 *
 * Context: caller serialises calls on @hb; never allocates memory.
 * Return: 0 on success; -EINVAL if @n is 0 or the range overflows or passes
 * the capacity; -EBUSY if any unit in the range is already allocated:
 * nothing changes.
 */
RG_API int rg_hbitmap_reserve(struct rg_hbitmap *hb, uint64_t start,
			      uint64_t n);

/**
 * rg_hbitmap_resize() - grow or shrink the capacity.
 * @hb: the allocator.
 * @capacity: new capacity, 1 .. RG_HBITMAP_MAX_CAPACITY.
 *
 * Units below the smaller of the two capacities keep their state; new units
 * are free. Shrinking requires the units being cut off to be free. Takes
 * O(capacity / 64) time and allocates the new arrays before touching the
 * old ones.
 *
 * Context: caller serialises calls on @hb; allocates memory.
 * Return: 0 on success; -EINVAL if @capacity is 0 or too large; -EBUSY if
 * a unit at or past @capacity is allocated; -ENOMEM: in every error case
 * nothing changes.
 */
RG_API int rg_hbitmap_resize(struct rg_hbitmap *hb, uint64_t capacity);

/**
 * rg_hbitmap_test() - tell whether one unit is allocated.
 * @hb: the allocator.
 * @unit: the unit.
 *
 * Context: caller serialises against writers.
 * Return: 1 if allocated, 0 if free, -EINVAL if @unit >= capacity.
 */
RG_API int rg_hbitmap_test(const struct rg_hbitmap *hb, uint64_t unit);

/**
 * rg_hbitmap_capacity() - number of units managed.
 * @hb: the allocator.
 *
 * Context: caller serialises against writers.
 * Return: the capacity.
 */
RG_API uint64_t rg_hbitmap_capacity(const struct rg_hbitmap *hb);

/**
 * rg_hbitmap_free_units() - number of free units.
 * @hb: the allocator.
 *
 * Context: caller serialises against writers; O(1).
 * Return: the count of free units.
 */
RG_API uint64_t rg_hbitmap_free_units(const struct rg_hbitmap *hb);

/**
 * rg_hbitmap_largest_free_run() - length of the longest free run.
 * @hb: the allocator.
 *
 * An allocation of n units with align 1 succeeds iff n is at most this.
 *
 * Context: caller serialises against writers; O(log capacity).
 * Return: the longest run of consecutive free units (0 when full).
 */
RG_API uint64_t rg_hbitmap_largest_free_run(const struct rg_hbitmap *hb);

/**
 * rg_hbitmap_bytes() - bytes of memory the allocator holds.
 * @hb: the allocator.
 *
 * Counted from the sizes actually allocated: the handle, the bitmap and
 * every summary array.
 *
 * Context: caller serialises against writers.
 * Return: the byte count.
 */
RG_API size_t rg_hbitmap_bytes(const struct rg_hbitmap *hb);

/**
 * rg_hbitmap_bytes_peak() - the most bytes the allocator has held.
 * @hb: the allocator.
 *
 * The largest rg_hbitmap_bytes() since creation, kept exactly where
 * memory changes hands (creation, resize, growth of the best-fit index),
 * so no call pays for sampling it.
 *
 * Context: caller serialises against writers; O(1).
 * Return: the byte count (0 when @hb is NULL).
 */
RG_API size_t rg_hbitmap_bytes_peak(const struct rg_hbitmap *hb);

/**
 * rg_hbitmap_validate() - check every invariant.
 * @hb: the allocator.
 * @reason: if not NULL, receives a static string naming the first broken
 *          invariant (unchanged on success).
 *
 * Recomputes every summary from the level below and compares, checks the
 * child masks, the free-unit count, the padding bits past the capacity and
 * the cached state of the pending block; on best-fit instances also that
 * the index holds exactly the bitmap's free runs, each in its class, with
 * consistent start sets, trees, masks, hash table and node pool.
 * O(capacity / 64).
 *
 * Context: caller serialises against writers.
 * Return: 0 if consistent, -EINVAL otherwise.
 */
RG_API int rg_hbitmap_validate(const struct rg_hbitmap *hb,
			       const char **reason);

/**
 * rg_hbitmap_next_run() - find the next run of allocated or free units.
 * @hb: the allocator.
 * @from: the first unit to look at.
 * @allocated: nonzero for a run of allocated units, 0 for free ones.
 * @start: receives the lowest unit at or after @from in that state.
 * @n: receives the length of the run from *@start: up to the next unit in
 *     the other state, or to the capacity.
 *
 * Calling it again from *@start + *@n visits the runs in address order.
 * The summaries skip the spans between runs: a run costs O(log capacity)
 * mask operations and a few word scans, whatever the distance to it. On
 * best-fit instances (RG_HBITMAP_BEST_FIT) whose summaries are behind the
 * bits (after a best-fit or top-down allocation, a free or a reservation),
 * the words are scanned instead, O(distance / 64), as this call only
 * reads: call rg_hbitmap_sync() first to walk in O(runs)
 * (rg_region_next_run() does).
 *
 * Context: caller serialises against writers; never allocates memory.
 * Return: 0 on success; -ENOENT if no unit at or after @from is in that
 * state (also when @from is at or past the capacity); -EINVAL if a pointer
 * is NULL.
 */
RG_API int rg_hbitmap_next_run(const struct rg_hbitmap *hb, uint64_t from,
			       int allocated, uint64_t *start, uint64_t *n);

/**
 * rg_hbitmap_sync() - bring a best-fit instance's summaries up to date.
 * @hb: the allocator (NULL: nothing is done).
 *
 * Best-fit instances (RG_HBITMAP_BEST_FIT) let the summaries of first fit
 * fall behind the bits: best-fit allocations, top-down allocations,
 * frees and reservations only note the blocks of 512 units they change,
 * up to one note per 2,048 units of capacity (at least 64). This
 * recomputes the noted blocks and the nodes above them, O(changes * log
 * capacity), or every summary, O(capacity / 64), once there were more
 * changes than notes; then rg_hbitmap_next_run() costs O(log capacity)
 * per run again until the next such change. Calls that need the
 * summaries (first fit, a window) do the same by themselves. Nothing is
 * done on other instances or when nothing changed.
 *
 * Context: caller serialises calls on @hb; never allocates memory.
 */
RG_API void rg_hbitmap_sync(struct rg_hbitmap *hb);

/**
 * rg_hbitmap_dump() - print the structure for debugging.
 * @hb: the allocator.
 * @f: output stream.
 *
 * Prints the geometry, the top summaries and the first free runs.
 *
 * Context: caller serialises against writers.
 */
RG_API void rg_hbitmap_dump(const struct rg_hbitmap *hb, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* REGION_HBITMAP_H */
