/* SPDX-License-Identifier: MIT */
/*
 * libregion xarray: a radix tree of 64-slot nodes mapping unsigned long
 * indices to pointers or small integers, with three marks per entry and an
 * allocating mode that hands out the lowest free index.
 *
 * Usage:
 *	RG_DEFINE_XARRAY(xa);			// or rg_xa_init(&xa)
 *	void *old;
 *	if (rg_xa_store(&xa, 42, ptr, &old))	// -ENOMEM, -EINVAL
 *		...;
 *	p = rg_xa_load(&xa, 42);
 *	rg_xa_set_mark(&xa, 42, RG_XA_MARK_1);
 *	unsigned long i;
 *	rg_xa_for_each_marked(&xa, i, p, RG_XA_MARK_1)
 *		use(i, p);
 *	rg_xa_erase(&xa, 42);
 *	rg_xa_store(&xa, 7, rg_xa_mk_value(1234), NULL); // integer
 *	rg_xa_destroy(&xa);			// frees the nodes
 *
 *	RG_DEFINE_XARRAY_ALLOC(ids);		// allocating array
 *	unsigned long id;
 *	rg_xa_alloc(&ids, &id, ptr, 0, 1000);	// lowest free index
 *
 * Entries: a pointer aligned to 4 bytes, or a value entry made with
 * rg_xa_mk_value() (an integer 0 .. LONG_MAX shifted left one bit with the
 * low bit set). Entries whose two low bits are 10 are reserved for the
 * array's own use; every call that stores them returns -EINVAL. Storing NULL
 * erases, except in an allocating array, where it reserves the index (the
 * index reads as NULL but is not free until rg_xa_erase() or
 * rg_xa_release()).
 *
 * Every call takes the array's own mutex, so an array may be shared by
 * threads. Nodes come from one process-wide slab cache; each array counts
 * its own nodes, so rg_xa_bytes() reports what that array holds.
 */
#ifndef REGION_XARRAY_H
#define REGION_XARRAY_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "region/common.h"
#include "region/slab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Mark numbers; a mark is one bit per entry, searchable in the tree. */
typedef unsigned int rg_xa_mark_t;
#define RG_XA_MARK_0 0U
#define RG_XA_MARK_1 1U
#define RG_XA_MARK_2 2U
#define RG_XA_MARK_MAX RG_XA_MARK_2
/* In an allocating array mark 0 tracks free indices and is not for users. */
#define RG_XA_FREE_MARK RG_XA_MARK_0
/* Filter for rg_xa_find(): any present entry, marked or not. */
#define RG_XA_PRESENT 8U

/* rg_xa_init_flags() flags. */
/* Allocating array: rg_xa_alloc() hands out free indices (uses mark 0). */
#define RG_XA_FLAGS_ALLOC 0x1u
/* Allocating array whose allocations start at 1 (index 0 never handed out). */
#define RG_XA_FLAGS_ALLOC1 0x3u

/* Slots per node and bits of index consumed per level. */
#define RG_XA_CHUNK_SHIFT 6
#define RG_XA_CHUNK_SIZE (1UL << RG_XA_CHUNK_SHIFT)

/**
 * struct rg_xarray - an xarray; treat every field as private.
 * @lock: taken by every call.
 * @flags: RG_XA_FLAGS_* given at initialisation.
 * @head_marks: marks of the entry at index 0 while it is stored directly in
 *              @head (no node); bit n is mark n.
 * @head: NULL, the entry at index 0 when it is the only one, or the root
 *        node (tagged).
 * @nr_nodes: nodes this array holds.
 */
struct rg_xarray {
	pthread_mutex_t lock;
	unsigned int flags;
	unsigned int head_marks;
	void *head;
	size_t nr_nodes;
};

/* Static initialiser: struct rg_xarray xa = RG_XARRAY_INIT(flags); */
#define RG_XARRAY_INIT(flags)                                  \
	{                                                      \
		PTHREAD_MUTEX_INITIALIZER, (flags), 0, NULL, 0 \
	}
#define RG_DEFINE_XARRAY(name) struct rg_xarray name = RG_XARRAY_INIT(0)
#define RG_DEFINE_XARRAY_ALLOC(name) \
	struct rg_xarray name = RG_XARRAY_INIT(RG_XA_FLAGS_ALLOC)
#define RG_DEFINE_XARRAY_ALLOC1(name) \
	struct rg_xarray name = RG_XARRAY_INIT(RG_XA_FLAGS_ALLOC1)

/* Largest integer a value entry holds. */
#define RG_XA_VALUE_MAX ((unsigned long)LONG_MAX)

/**
 * rg_xa_mk_value() - make a value entry from an integer.
 * @v: the integer, 0 .. RG_XA_VALUE_MAX; higher bits are lost.
 *
 * Context: any.
 * Return: an entry that rg_xa_is_value() recognises and that is never a
 * valid pointer.
 */
static inline void *rg_xa_mk_value(unsigned long v)
{
	return (void *)((v << 1) | 1UL);
}

/**
 * rg_xa_to_value() - the integer held by a value entry.
 * @entry: a value entry.
 *
 * Context: any.
 * Return: the integer given to rg_xa_mk_value().
 */
static inline unsigned long rg_xa_to_value(const void *entry)
{
	return (unsigned long)(uintptr_t)entry >> 1;
}

/**
 * rg_xa_is_value() - tell whether an entry is a value entry.
 * @entry: an entry.
 *
 * Context: any.
 * Return: true for entries made by rg_xa_mk_value().
 */
static inline bool rg_xa_is_value(const void *entry)
{
	return ((uintptr_t)entry & 1) != 0;
}

/**
 * rg_xa_is_reserved_entry() - tell whether an entry may not be stored.
 * @entry: an entry.
 *
 * Context: any.
 * Return: true if the two low bits of @entry are 10; storing such an entry
 * fails with -EINVAL.
 */
static inline bool rg_xa_is_reserved_entry(const void *entry)
{
	return ((uintptr_t)entry & 3) == 2;
}

/**
 * rg_xa_init_flags() - initialise an array in caller-owned memory.
 * @xa: the array.
 * @flags: 0, RG_XA_FLAGS_ALLOC or RG_XA_FLAGS_ALLOC1.
 *
 * An initialised array holds no memory until an entry is stored at an index
 * other than 0.
 *
 * Context: no other thread may use @xa during the call.
 * Return: 0, or -EINVAL for a NULL array or unknown flags (@xa untouched).
 */
RG_API int rg_xa_init_flags(struct rg_xarray *xa, unsigned int flags);

/**
 * rg_xa_init() - initialise an ordinary (non-allocating) array.
 * @xa: the array.
 *
 * Context: no other thread may use @xa during the call.
 */
RG_API void rg_xa_init(struct rg_xarray *xa);

/**
 * rg_xa_destroy() - remove every entry and free every node.
 * @xa: the array.
 *
 * The entries themselves are the caller's; free them first if needed (for
 * instance with rg_xa_for_each()). The array stays initialised and empty.
 *
 * Context: takes the array's lock.
 */
RG_API void rg_xa_destroy(struct rg_xarray *xa);

/**
 * rg_xa_load() - the entry at an index.
 * @xa: the array.
 * @index: the index.
 *
 * Context: takes the array's lock; never allocates.
 * Return: the entry, or NULL if none (a reserved index also reads as NULL).
 */
RG_API void *rg_xa_load(struct rg_xarray *xa, unsigned long index);

/**
 * rg_xa_store() - store an entry, replacing whatever was at the index.
 * @xa: the array.
 * @index: the index.
 * @entry: the new entry; NULL erases (reserves in an allocating array).
 * @old: if not NULL, receives the previous entry (NULL if there was none).
 *
 * Marks of a replaced entry are kept; a new entry starts unmarked.
 *
 * Context: takes the array's lock; may allocate nodes.
 * Return: 0; -EINVAL if @entry is reserved (see rg_xa_is_reserved_entry());
 * -ENOMEM if a node could not be allocated. On error nothing changes and
 * @old is not written.
 */
RG_API int rg_xa_store(struct rg_xarray *xa, unsigned long index, void *entry,
		       void **old);

/**
 * rg_xa_insert() - store an entry only where there is none.
 * @xa: the array.
 * @index: the index.
 * @entry: the new entry; NULL reserves the index.
 *
 * Context: takes the array's lock; may allocate nodes.
 * Return: 0; -EBUSY if an entry (or a reservation) is already there;
 * -EINVAL for a reserved entry value; -ENOMEM. On error nothing changes.
 */
RG_API int rg_xa_insert(struct rg_xarray *xa, unsigned long index, void *entry);

/**
 * rg_xa_erase() - remove the entry at an index.
 * @xa: the array.
 * @index: the index.
 *
 * The entry's marks are cleared, empty nodes are freed, and the tree loses
 * height when its top node has only slot 0 in use. In an allocating array
 * the index becomes free.
 *
 * Context: takes the array's lock; never allocates, cannot fail.
 * Return: the entry that was there, or NULL.
 */
RG_API void *rg_xa_erase(struct rg_xarray *xa, unsigned long index);

/**
 * rg_xa_cmpxchg() - replace an entry if it is the one expected.
 * @xa: the array.
 * @index: the index.
 * @old: the expected entry (NULL: nothing there, not even a reservation).
 *       A reserved value (see rg_xa_is_reserved_entry()) is compared like
 *       any other and, as no index holds one, never matches.
 * @entry: the new entry; NULL erases (reserves in an allocating array).
 * @cur: if not NULL, receives the entry found at @index (reserved reads as
 *       NULL), whether or not the exchange happened.
 *
 * As the kernel's xa_cmpxchg(), only the new entry is checked: the old one
 * is only compared.
 *
 * Context: takes the array's lock; may allocate nodes.
 * Return: 0 if the entry was @old and is now @entry; -EBUSY if the entry
 * was something else, or @old is a reserved value (nothing changes, @cur
 * written); -EINVAL for a reserved @entry value (nothing changes, @cur not
 * written); -ENOMEM (nothing changes, @cur not written).
 */
RG_API int rg_xa_cmpxchg(struct rg_xarray *xa, unsigned long index, void *old,
			 void *entry, void **cur);

/**
 * rg_xa_reserve() - reserve an index so that a later store needs no memory.
 * @xa: the array.
 * @index: the index.
 *
 * A reserved index reads as NULL but is occupied: rg_xa_insert() and
 * rg_xa_alloc() skip it. If an entry is already there nothing happens.
 *
 * Context: takes the array's lock; may allocate nodes.
 * Return: 0, or -ENOMEM (nothing changes).
 */
RG_API int rg_xa_reserve(struct rg_xarray *xa, unsigned long index);

/**
 * rg_xa_release() - drop a reservation made by rg_xa_reserve().
 * @xa: the array.
 * @index: the index.
 *
 * If a real entry has been stored at @index since, nothing happens.
 *
 * Context: takes the array's lock; never allocates.
 */
RG_API void rg_xa_release(struct rg_xarray *xa, unsigned long index);

/**
 * rg_xa_alloc() - store an entry at the lowest free index in a range.
 * @xa: an allocating array (RG_XA_FLAGS_ALLOC or RG_XA_FLAGS_ALLOC1).
 * @id: receives the index on success.
 * @entry: the entry; NULL reserves the index.
 * @min: lowest acceptable index.
 * @max: highest acceptable index.
 *
 * Context: takes the array's lock; may allocate nodes.
 * Return: 0 with *@id set; -EBUSY if every index in [@min, @max] is taken
 * (also when @min > @max: the range is empty, as in the kernel); -EINVAL if
 * @xa or @id is NULL, @xa is not an allocating array or @entry is a
 * reserved value; -ENOMEM. On error nothing changes and *@id is not
 * written.
 */
RG_API int rg_xa_alloc(struct rg_xarray *xa, unsigned long *id, void *entry,
		       unsigned long min, unsigned long max);

/**
 * rg_xa_find() - the first entry at or after an index.
 * @xa: the array.
 * @index: in: where to start; out: the index of the entry found.
 * @max: the highest index to consider.
 * @filter: RG_XA_PRESENT for any entry, or a mark number for entries with
 *          that mark.
 *
 * Reserved indices are skipped. In an allocating array no entry carries
 * RG_XA_FREE_MARK, so filtering on it finds nothing.
 *
 * Context: takes the array's lock; never allocates.
 * Return: the entry, with *@index updated; NULL if none (also for an
 * unknown filter), with *@index unchanged.
 */
RG_API void *rg_xa_find(struct rg_xarray *xa, unsigned long *index,
			unsigned long max, rg_xa_mark_t filter);

/**
 * rg_xa_find_after() - the first entry after an index.
 * @xa: the array.
 * @index: in: the index to search after; out: the index of the entry found.
 * @max: the highest index to consider.
 * @filter: as for rg_xa_find().
 *
 * Context: takes the array's lock; never allocates.
 * Return: as for rg_xa_find(); NULL if *@index is ULONG_MAX.
 */
RG_API void *rg_xa_find_after(struct rg_xarray *xa, unsigned long *index,
			      unsigned long max, rg_xa_mark_t filter);

/**
 * rg_xa_set_mark() - set a mark on the entry at an index.
 * @xa: the array.
 * @index: the index.
 * @mark: RG_XA_MARK_0 .. RG_XA_MARK_2 (not mark 0 in an allocating array).
 *
 * Context: takes the array's lock; never allocates.
 * Return: 0; -EINVAL for a bad mark; -ENOENT if there is no entry at @index
 * (a reservation counts as an entry).
 */
RG_API int rg_xa_set_mark(struct rg_xarray *xa, unsigned long index,
			  rg_xa_mark_t mark);

/**
 * rg_xa_clear_mark() - clear a mark on the entry at an index.
 * @xa: the array.
 * @index: the index.
 * @mark: as for rg_xa_set_mark().
 *
 * Context: takes the array's lock; never allocates.
 * Return: 0; -EINVAL for a bad mark; -ENOENT if there is no entry at @index.
 */
RG_API int rg_xa_clear_mark(struct rg_xarray *xa, unsigned long index,
			    rg_xa_mark_t mark);

/**
 * rg_xa_get_mark() - tell whether the entry at an index has a mark.
 * @xa: the array.
 * @index: the index.
 * @mark: a mark number.
 *
 * Context: takes the array's lock.
 * Return: true if an entry is at @index and has @mark; false otherwise,
 * including for a bad mark and for RG_XA_FREE_MARK in an allocating array.
 */
RG_API bool rg_xa_get_mark(struct rg_xarray *xa, unsigned long index,
			   rg_xa_mark_t mark);

/**
 * rg_xa_empty() - tell whether the array holds no entry at all.
 * @xa: the array.
 *
 * Context: takes the array's lock.
 * Return: true if nothing (not even a reservation) is stored.
 */
RG_API bool rg_xa_empty(struct rg_xarray *xa);

/**
 * rg_xa_bytes() - memory the array holds.
 * @xa: the array.
 *
 * Context: takes the array's lock.
 * Return: its nodes times the node size, plus sizeof(struct rg_xarray).
 */
RG_API size_t rg_xa_bytes(struct rg_xarray *xa);

/**
 * rg_xa_node_count() - nodes the array holds.
 * @xa: the array.
 *
 * Context: takes the array's lock.
 * Return: the count.
 */
RG_API size_t rg_xa_node_count(struct rg_xarray *xa);

/**
 * rg_xa_node_size() - the size of one xarray node in bytes.
 *
 * Context: any.
 * Return: the size.
 */
RG_API size_t rg_xa_node_size(void);

/**
 * rg_xa_node_cache_stats() - counters of the process-wide node cache.
 * @st: filled with the counters (all zero before the first node exists).
 *
 * Tests use objects_in_use to prove that no node leaks.
 *
 * Context: any thread; exact when no other thread uses an xarray.
 * Return: 0, or -EINVAL for a NULL @st.
 */
RG_API int rg_xa_node_cache_stats(struct rg_slab_stats *st);

/**
 * rg_xa_validate() - check every invariant of an array.
 * @xa: the array.
 * @reason: if not NULL, receives a static description of the first problem.
 *
 * Checks parent links, slot offsets and shifts, occupancy bitmaps, that no
 * node is empty, that the top node does not have only slot 0 in use, that
 * every node's mark bit is set exactly when some entry below has the mark,
 * the free-index tracking of allocating arrays, and the node count.
 *
 * Context: takes the array's lock; O(nodes).
 * Return: 0 if valid, -EINVAL otherwise.
 */
RG_API int rg_xa_validate(struct rg_xarray *xa, const char **reason);

/**
 * rg_xa_dump() - print the tree, one line per node and entry.
 * @xa: the array.
 * @f: the stream.
 *
 * Context: takes the array's lock.
 */
RG_API void rg_xa_dump(struct rg_xarray *xa, FILE *f);

/* Iterate over present entries (or those with @filter) in index order. */
#define rg_xa_for_each_marked(xa, index, entry, filter)                \
	for ((index) = 0,                                              \
	    (entry) = rg_xa_find((xa), &(index), ULONG_MAX, (filter)); \
	     (entry);                                                  \
	     (entry) = rg_xa_find_after((xa), &(index), ULONG_MAX, (filter)))
#define rg_xa_for_each(xa, index, entry) \
	rg_xa_for_each_marked(xa, index, entry, RG_XA_PRESENT)

#ifdef __cplusplus
}
#endif
#endif /* REGION_XARRAY_H */
