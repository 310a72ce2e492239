/* SPDX-License-Identifier: MIT */
/*
 * libregion IDA: an ID allocator handing out the lowest free integer ID in a
 * range, with the Linux kernel's semantics, built on an allocating xarray
 * of 1024-ID chunks.
 *
 * Usage:
 *	RG_DEFINE_IDA(ida);			// or rg_ida_init(&ida)
 *	unsigned int id;
 *	int err = rg_ida_alloc(&ida, &id); // 0, -ENOSPC, -ENOMEM
 *	err = rg_ida_alloc_range(&ida, 100, 199, &id); // lowest in range
 *	err = rg_ida_free(&ida, id);		// -ENOENT if not allocated
 *	err = rg_ida_find_first_range(&ida, 100, 199, &id); // lowest taken
 *	err = rg_ida_find_free_range(&ida, 100, 199, &id); // lowest free
 *	rg_ida_destroy(&ida);			// frees everything
 *
 * IDs run from 0 to INT_MAX. Chunk n (IDs 1024n .. 1024n + 1023) is stored at
 * index n of the xarray as nothing (all free), as a value entry holding the
 * chunk's bits while only its lowest 63 IDs are in use (no memory at all), or
 * as a 128-byte bitmap from a process-wide slab cache. The xarray's free
 * mark stays on every chunk with a free ID; a chunk whose last ID is freed
 * is released. Dense use costs 128 bytes per 1024 IDs plus one xarray node
 * per 64 chunks.
 *
 * Every call takes the IDA's own lock (its xarray's mutex), so an IDA may
 * be shared by threads.
 */
#ifndef REGION_IDA_H
#define REGION_IDA_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "region/common.h"
#include "region/slab.h"
#include "region/xarray.h"

#ifdef __cplusplus
extern "C" {
#endif

/* IDs per chunk, and the largest ID. */
#define RG_IDA_BITMAP_BITS 1024U
#define RG_IDA_MAX ((unsigned int)INT_MAX)

/**
 * struct rg_ida - an IDA; treat every field as private.
 * @xa: the allocating xarray of chunks; its lock is the IDA's lock.
 * @free_lo: every ID below it is allocated (a search hint).
 * @nr_bitmaps: chunk bitmaps this IDA holds.
 * @hint: private: a walked xarray state (the advanced API) on the chunk
 *        where the last allocation landed; its xa is NULL when unset.
 * @hint_bm: private: the chunk bitmap at @hint (the IDA's own memory), or
 *           NULL while that chunk is a value entry.
 */
struct rg_ida {
	struct rg_xarray xa;
	unsigned int free_lo;
	size_t nr_bitmaps;
	struct rg_xa_state hint;
	void *hint_bm;
};

/* Static initialiser: struct rg_ida ida = RG_IDA_INIT; */
#define RG_IDA_INIT                                                            \
	{                                                                      \
		RG_XARRAY_INIT(RG_XA_FLAGS_ALLOC), 0, 0,                       \
			{ NULL, 0, 0, 0, 0, 0, RG_XAS_RESTART, NULL, 0 }, NULL \
	}
/**
 * RG_DEFINE_IDA() - define an empty IDA, statically initialised.
 * @name: the variable's name.
 *
 * The same as "struct rg_ida name = RG_IDA_INIT;" and as rg_ida_init() on
 * it: no memory is held until the first allocation. Give it back with
 * rg_ida_destroy().
 *
 * Context: any; a definition.
 */
#define RG_DEFINE_IDA(name) struct rg_ida name = RG_IDA_INIT

/**
 * rg_ida_init() - initialise an IDA in caller-owned memory.
 * @ida: the IDA.
 *
 * Context: no other thread may use @ida during the call.
 */
RG_API void rg_ida_init(struct rg_ida *ida);

/**
 * rg_ida_alloc_range() - allocate the lowest free ID in a range.
 * @ida: the IDA.
 * @min: lowest acceptable ID.
 * @max: highest acceptable ID; values above INT_MAX mean INT_MAX.
 * @id: receives the ID on success.
 *
 * Context: takes the IDA's lock; may allocate a chunk bitmap and xarray
 * nodes.
 * Return: 0 with *@id set; -ENOSPC if @min > INT_MAX, @min > @max, or every
 * ID in [@min, @max] is taken; -ENOMEM if memory ran out (nothing changes);
 * -EINVAL for a NULL @ida or @id.
 */
RG_API int rg_ida_alloc_range(struct rg_ida *ida, unsigned int min,
			      unsigned int max, unsigned int *id);

/**
 * rg_ida_alloc() - allocate the lowest free ID.
 * @ida: the IDA.
 * @id: receives the ID.
 *
 * Context: as rg_ida_alloc_range().
 * Return: as rg_ida_alloc_range() with the range [0, INT_MAX].
 */
static inline int rg_ida_alloc(struct rg_ida *ida, unsigned int *id)
{
	return rg_ida_alloc_range(ida, 0, RG_IDA_MAX, id);
}

/**
 * rg_ida_alloc_min() - allocate the lowest free ID at or above @min.
 * @ida: the IDA.
 * @min: lowest acceptable ID.
 * @id: receives the ID.
 *
 * Context: as rg_ida_alloc_range().
 * Return: as rg_ida_alloc_range() with the range [@min, INT_MAX].
 */
static inline int rg_ida_alloc_min(struct rg_ida *ida, unsigned int min,
				   unsigned int *id)
{
	return rg_ida_alloc_range(ida, min, RG_IDA_MAX, id);
}

/**
 * rg_ida_alloc_max() - allocate the lowest free ID at or below @max.
 * @ida: the IDA.
 * @max: highest acceptable ID.
 * @id: receives the ID.
 *
 * Context: as rg_ida_alloc_range().
 * Return: as rg_ida_alloc_range() with the range [0, @max].
 */
static inline int rg_ida_alloc_max(struct rg_ida *ida, unsigned int max,
				   unsigned int *id)
{
	return rg_ida_alloc_range(ida, 0, max, id);
}

/**
 * rg_ida_free() - free an allocated ID.
 * @ida: the IDA.
 * @id: the ID.
 *
 * A chunk left without IDs is released.
 *
 * Context: takes the IDA's lock; never allocates.
 * Return: 0; -ENOENT if @id is not allocated (including IDs above INT_MAX),
 * in which case nothing changes; -EINVAL for a NULL @ida.
 */
RG_API int rg_ida_free(struct rg_ida *ida, unsigned int id);

/**
 * rg_ida_exists() - tell whether an ID is allocated.
 * @ida: the IDA.
 * @id: the ID.
 *
 * Context: takes the IDA's lock; never allocates.
 * Return: true if @id is allocated.
 */
RG_API bool rg_ida_exists(struct rg_ida *ida, unsigned int id);

/**
 * rg_ida_find_first_range() - the lowest allocated ID in a range.
 * @ida: the IDA.
 * @min: lowest ID to consider.
 * @max: highest ID to consider; values above INT_MAX mean INT_MAX.
 * @id: receives the ID on success.
 *
 * A lookup: nothing is allocated or changed. Chunks without an ID are
 * skipped by the xarray's tree, so the cost is one walk to the first chunk
 * at or after @min plus a scan of at most one partly searched chunk, not
 * one step per free ID.
 *
 * Context: takes the IDA's lock; never allocates.
 * Return: 0 with *@id set; -ENOENT if no ID in [@min, @max] is allocated
 * (also when @min > @max or @min > INT_MAX); -EINVAL for a NULL @ida or
 * @id.
 */
RG_API int rg_ida_find_first_range(struct rg_ida *ida, unsigned int min,
				   unsigned int max, unsigned int *id);

/**
 * rg_ida_find_first() - the lowest allocated ID.
 * @ida: the IDA.
 * @id: receives the ID on success.
 *
 * Context: as rg_ida_find_first_range().
 * Return: as rg_ida_find_first_range() with the range [0, INT_MAX].
 */
static inline int rg_ida_find_first(struct rg_ida *ida, unsigned int *id)
{
	return rg_ida_find_first_range(ida, 0, RG_IDA_MAX, id);
}

/**
 * rg_ida_find_free_range() - the lowest free ID in a range, not taken.
 * @ida: the IDA.
 * @min: lowest ID to consider.
 * @max: highest ID to consider; values above INT_MAX mean INT_MAX.
 * @id: receives the ID on success.
 *
 * The ID rg_ida_alloc_range() would return, without allocating it: the
 * search skips full chunks by the xarray's free mark. The answer holds only
 * until the IDA next changes.
 *
 * Context: takes the IDA's lock; never allocates.
 * Return: 0 with *@id set; -ENOENT if every ID in [@min, @max] is allocated
 * (also when @min > @max or @min > INT_MAX); -EINVAL for a NULL @ida or
 * @id.
 */
RG_API int rg_ida_find_free_range(struct rg_ida *ida, unsigned int min,
				  unsigned int max, unsigned int *id);

/**
 * rg_ida_destroy() - free every ID and all memory.
 * @ida: the IDA; it stays initialised and empty.
 *
 * Context: takes the IDA's lock.
 */
RG_API void rg_ida_destroy(struct rg_ida *ida);

/**
 * rg_ida_is_empty() - tell whether no ID is allocated.
 * @ida: the IDA.
 *
 * Context: takes the IDA's lock.
 * Return: true if no ID is allocated.
 */
RG_API bool rg_ida_is_empty(struct rg_ida *ida);

/**
 * rg_ida_bytes() - memory the IDA holds.
 * @ida: the IDA.
 *
 * Context: takes the IDA's lock.
 * Return: its chunk bitmaps times 128, plus its xarray nodes times the node
 * size, plus sizeof(struct rg_ida).
 */
RG_API size_t rg_ida_bytes(struct rg_ida *ida);

/**
 * rg_ida_bitmap_count() - chunk bitmaps the IDA holds.
 * @ida: the IDA.
 *
 * Context: takes the IDA's lock.
 * Return: the count (chunks stored as value entries hold no bitmap).
 */
RG_API size_t rg_ida_bitmap_count(struct rg_ida *ida);

/**
 * rg_ida_bitmap_cache_stats() - counters of the process-wide bitmap cache.
 * @st: filled with the counters (all zero before the first bitmap exists).
 *
 * Context: any thread; exact when no other thread uses an IDA.
 * Return: 0, or -EINVAL for a NULL @st.
 */
RG_API int rg_ida_bitmap_cache_stats(struct rg_slab_stats *st);

/**
 * rg_ida_validate() - check every invariant of an IDA.
 * @ida: the IDA.
 * @reason: if not NULL, receives a static description of the first problem.
 *
 * Checks the xarray (see rg_xa_validate()), that no chunk is empty or past
 * INT_MAX, that the free mark is set exactly on chunks with a free ID, the
 * bitmap count, and the search hint.
 *
 * Context: takes the IDA's lock; O(chunks).
 * Return: 0 if valid, -EINVAL otherwise.
 */
RG_API int rg_ida_validate(struct rg_ida *ida, const char **reason);

/**
 * rg_ida_dump() - print the chunks, one line each.
 * @ida: the IDA.
 * @f: the stream.
 *
 * Context: takes the IDA's lock.
 */
RG_API void rg_ida_dump(struct rg_ida *ida, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* REGION_IDA_H */
