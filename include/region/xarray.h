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
 * Entries: a pointer, or a value entry made with rg_xa_mk_value() (an
 * integer 0 .. LONG_MAX shifted left one bit with the low bit set). The
 * entries whose two low bits are 10 up to 4096 are reserved for the
 * array's own use (rg_xa_is_reserved_entry()); every call that stores them
 * returns -EINVAL. Above 4096 such pointers are stored like any other, as
 * in the kernel (a char pointer at any offset, for instance). Storing NULL
 * erases, except in an allocating array, where it reserves the index (the
 * index reads as NULL but is not free until rg_xa_erase() or
 * rg_xa_release()).
 *
 * Every call that changes the array takes the array's own mutex, so an
 * array may be shared by threads. rg_xa_load() reads without the mutex
 * (lock-free, under liburcu's RCU read lock, as the kernel's xa_load())
 * when the calling thread is registered with liburcu's memb flavour
 * (urcu_memb_register_thread()); from any other thread it takes the
 * mutex. See rg_xa_load() for what that changes in node freeing. Nodes
 * come from one process-wide slab cache; each array counts its own nodes,
 * so rg_xa_bytes() reports what that array holds.
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
/*
 * Set by rg_xa_alloc_cyclic() when its cursor wrapped past UINT32_MAX and
 * cleared by its next success; not accepted by rg_xa_init_flags().
 */
#define RG_XA_FLAGS_ALLOC_WRAPPED 0x4u
/*
 * Set by the first store of an entry of order > 0 and cleared when the
 * array's last node goes; while clear, walks skip the checks for
 * multi-index and sibling entries. Not accepted by rg_xa_init_flags().
 */
#define RG_XA_FLAGS_MULTI 0x8u
/*
 * RCU mode: nodes the array frees wait for a grace period, so lock-free
 * readers (rg_xa_load() from a registered thread, rg_xas_load() and
 * rg_xas_reload() under urcu_memb_read_lock()) never see freed memory.
 * Set by the first lock-free rg_xa_load() of the array; give it to
 * rg_xa_init_flags() when the advanced API reads lock-free from the start.
 */
#define RG_XA_FLAGS_RCU 0x10u

/* Slots per node and bits of index consumed per level. */
#define RG_XA_CHUNK_SHIFT 6
#define RG_XA_CHUNK_SIZE (1UL << RG_XA_CHUNK_SHIFT)

/**
 * struct rg_xarray - an xarray; treat every field as private.
 * @lock: taken by every call.
 * @flags: RG_XA_FLAGS_* given at initialisation, and the array's own
 *         RG_XA_FLAGS_ALLOC_WRAPPED and RG_XA_FLAGS_MULTI.
 * @head_marks: marks of the entry at index 0 while it is stored directly in
 *              @head (no node); bit n is mark n.
 * @head: NULL, the entry at index 0 when it is the only one, or the root
 *        node (tagged).
 * @nr_nodes: nodes this array holds.
 * @owner: the thread holding @lock through rg_xa_lock(), or 0: the read
 *         calls of that thread run under its lock instead of taking it.
 */
struct rg_xarray {
	pthread_mutex_t lock;
	unsigned int flags;
	unsigned int head_marks;
	void *head;
	size_t nr_nodes;
	unsigned long owner;
};

/**
 * RG_XARRAY_INIT() - static initialiser of an empty array.
 * @flags: the array's flags, as rg_xa_init_flags() takes them.
 *
 * "struct rg_xarray xa = RG_XARRAY_INIT(flags);" is rg_xa_init_flags(&xa,
 * flags) at compile time.
 *
 * Context: any; an initialiser.
 */
#define RG_XARRAY_INIT(flags)                                     \
	{                                                         \
		PTHREAD_MUTEX_INITIALIZER, (flags), 0, NULL, 0, 0 \
	}
/**
 * RG_DEFINE_XARRAY() - define an empty array (flags 0).
 * @name: the variable's name.
 *
 * Give it back with rg_xa_destroy().
 *
 * Context: any; a definition.
 */
#define RG_DEFINE_XARRAY(name) struct rg_xarray name = RG_XARRAY_INIT(0)
/**
 * RG_DEFINE_XARRAY_ALLOC() - define an empty allocating array, IDs from 0.
 * @name: the variable's name.
 *
 * Flags RG_XA_FLAGS_ALLOC: rg_xa_alloc() hands out free indices.
 *
 * Context: any; a definition.
 */
#define RG_DEFINE_XARRAY_ALLOC(name) \
	struct rg_xarray name = RG_XARRAY_INIT(RG_XA_FLAGS_ALLOC)
/**
 * RG_DEFINE_XARRAY_ALLOC1() - define an empty allocating array, IDs from 1.
 * @name: the variable's name.
 *
 * Flags RG_XA_FLAGS_ALLOC1: rg_xa_alloc() never hands out index 0.
 *
 * Context: any; a definition.
 */
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
 * The array keeps the internal entries (two low bits 10) up to 4096 for
 * itself; pointers with the low bits 10 above that are stored like any
 * other, as in the kernel.
 *
 * Context: any.
 * Return: true if the two low bits of @entry are 10 and it is at most
 * 4096; storing such an entry fails with -EINVAL.
 */
static inline bool rg_xa_is_reserved_entry(const void *entry)
{
	return ((uintptr_t)entry & 3) == 2 && (uintptr_t)entry <= 4096;
}

/**
 * rg_xa_mk_internal() - make an internal entry from a small integer.
 * @v: the integer; internal entries the array uses are below 4096 / 4.
 *
 * Internal entries have the two low bits 10. The array uses two of them
 * itself (RG_XA_RETRY_ENTRY, RG_XA_ZERO_ENTRY) and its nodes are tagged
 * the same way; the normal API refuses to store any internal entry.
 *
 * Context: any.
 * Return: the entry.
 */
static inline void *rg_xa_mk_internal(unsigned long v)
{
	return (void *)((v << 2) | 2UL);
}

/**
 * rg_xa_to_internal() - the integer held by an internal entry.
 * @entry: an internal entry.
 *
 * Context: any.
 * Return: the integer given to rg_xa_mk_internal().
 */
static inline unsigned long rg_xa_to_internal(const void *entry)
{
	return (unsigned long)(uintptr_t)entry >> 2;
}

/**
 * rg_xa_is_internal() - tell whether an entry is internal.
 * @entry: an entry.
 *
 * Context: any.
 * Return: true if the two low bits of @entry are 10.
 */
static inline bool rg_xa_is_internal(const void *entry)
{
	return ((uintptr_t)entry & 3) == 2;
}

/**
 * rg_xa_is_sibling() - tell whether an entry is a sibling entry.
 * @entry: an entry, as rg_xas_next() or rg_xas_prev() return them.
 *
 * A multi-index entry (rg_xa_store_order()) occupies one slot and names it
 * from the other slots it spans with sibling entries; the lookups return
 * the entry itself, only rg_xas_next() and rg_xas_prev() step onto them.
 *
 * Context: any.
 * Return: true if @entry is an internal entry below RG_XA_CHUNK_SIZE - 1.
 */
static inline bool rg_xa_is_sibling(const void *entry)
{
	return rg_xa_is_internal(entry) &&
	       rg_xa_to_internal(entry) < RG_XA_CHUNK_SIZE - 1;
}

/*
 * The retry entry: a reader under the advanced API that meets it restarts
 * its walk (rg_xas_retry()). The zero entry: what a reserved index holds;
 * rg_xas_load() and rg_xas_find() return it, the normal API reads it as
 * NULL.
 */
#define RG_XA_RETRY_ENTRY rg_xa_mk_internal(256)
#define RG_XA_ZERO_ENTRY rg_xa_mk_internal(257)

/**
 * rg_xa_is_retry() - tell whether an entry is RG_XA_RETRY_ENTRY.
 * @entry: an entry.
 *
 * Context: any.
 * Return: true for the retry entry.
 */
static inline bool rg_xa_is_retry(const void *entry)
{
	return entry == RG_XA_RETRY_ENTRY;
}

/**
 * rg_xa_is_zero() - tell whether an entry is RG_XA_ZERO_ENTRY.
 * @entry: an entry.
 *
 * Context: any.
 * Return: true for the zero entry (a reservation).
 */
static inline bool rg_xa_is_zero(const void *entry)
{
	return entry == RG_XA_ZERO_ENTRY;
}

/**
 * rg_xa_init_flags() - initialise an array in caller-owned memory.
 * @xa: the array.
 * @flags: 0, RG_XA_FLAGS_ALLOC or RG_XA_FLAGS_ALLOC1, optionally ORed with
 *         RG_XA_FLAGS_RCU (nodes freed after a grace period from the start).
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
 * From a thread registered with liburcu (urcu_memb_register_thread(), the
 * memb flavour), the load is lock-free: it takes urcu_memb_read_lock()
 * itself (nesting inside the caller's read-side section is fine), walks
 * the tree while writers change it and returns an entry the index held at
 * some moment during the call; loads from several threads then scale. The
 * first such load puts the array in RCU mode (RG_XA_FLAGS_RCU, once, under
 * the lock): from then on nodes are freed after a grace period, through
 * call_rcu(), so the node cache's objects_in_use counts them until
 * rg_xa_rcu_barrier(); rg_xa_bytes() counts only the nodes in the tree.
 * From a thread that is not registered, the load takes the array's lock
 * (unless the thread holds it through rg_xa_lock()). Either way the entry
 * itself is the caller's: to use it after the call while another thread
 * may erase and free it, hold urcu_memb_read_lock() across the load and
 * the use, and free entries after a grace period.
 *
 * Context: any thread; lock-free from a thread registered with liburcu,
 * otherwise takes the array's lock; never allocates.
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
 * Return: 0; -EINVAL if @entry is reserved (see rg_xa_is_reserved_entry()),
 * or has the low bits 10 and @index lies in a multi-index entry of order 6
 * or more (which would take it); -ENOMEM if a node could not be allocated.
 * On error nothing changes and @old is not written.
 */
RG_API int rg_xa_store(struct rg_xarray *xa, unsigned long index, void *entry,
		       void **old);

/**
 * rg_xa_store_order() - store a multi-index entry.
 * @xa: the array.
 * @index: the first index, a multiple of 2^@order.
 * @order: the entry covers the 2^@order indices from @index; 0 to
 *         BITS_PER_LONG (which covers every index).
 * @entry: the new entry; NULL erases (reserves in an allocating array).
 * @old: if not NULL, receives the previous entry: the first one found in
 *       the range (NULL if there was none).
 *
 * Every index of the range then loads @entry, and a mark set or cleared
 * at any of them applies to the whole entry. If the range lies inside a
 * larger multi-index entry, that entry takes @entry and keeps its range
 * (storing to any index of a multi-index entry stores to all of them).
 * Otherwise the entries in the range are replaced, and the new entry has
 * the union of their marks. Erasing any index of a multi-index entry
 * erases all of it.
 *
 * Context: takes the array's lock; may allocate nodes.
 * Return: 0; -EINVAL if @index is not a multiple of 2^@order, @order is
 * above BITS_PER_LONG, @entry is reserved (see rg_xa_is_reserved_entry()),
 * or @entry has the low bits 10 and @order is 6 or more or the range lies
 * in an entry of order 6 or more (such entries are stored in leaves only);
 * -ENOMEM if a node could not be allocated. On error nothing changes and
 * @old is not written.
 */
RG_API int rg_xa_store_order(struct rg_xarray *xa, unsigned long index,
			     unsigned int order, void *entry, void **old);

/**
 * rg_xa_store_range() - store one entry at every index of a range.
 * @xa: the array.
 * @first: the first index.
 * @last: the last index.
 * @entry: the entry; NULL erases the range.
 *
 * The range is cut into the fewest aligned power-of-two pieces, and each
 * becomes a multi-index entry of @entry (rg_xa_store_order()); entries
 * in the range are replaced. A multi-index entry that reaches outside the
 * range is replaced (or erased) whole, as rg_xa_store_order() documents.
 *
 * Context: takes the array's lock; may allocate nodes (all before the
 * first piece is stored).
 * Return: 0; -EINVAL if @first > @last, @entry is reserved, or @entry has
 * the low bits 10 and the range holds more than one index or lies in an
 * entry of order 6 or more; -ENOMEM if the nodes could not be allocated.
 * On error nothing changes.
 */
RG_API int rg_xa_store_range(struct rg_xarray *xa, unsigned long first,
			     unsigned long last, void *entry);

/**
 * rg_xa_get_order() - the order of the entry at an index.
 * @xa: the array.
 * @index: any index of the entry.
 *
 * Context: takes the array's lock (unless the caller holds it).
 * Return: the entry's order (0 for a single-index entry or no entry);
 * -EINVAL if @xa is NULL.
 */
RG_API int rg_xa_get_order(struct rg_xarray *xa, unsigned long index);

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
 * @old: the expected entry (NULL: nothing there, not even a reservation),
 *       compared with what the slot holds: RG_XA_ZERO_ENTRY matches a
 *       reservation, as in the kernel, and any other reserved value (see
 *       rg_xa_is_reserved_entry()) matches nothing, as no index holds one.
 * @entry: the new entry; NULL erases (reserves in an allocating array).
 * @cur: if not NULL, receives the entry found at @index (reserved reads as
 *       NULL), whether or not the exchange happened.
 *
 * As the kernel's xa_cmpxchg(), only the new entry is checked: the old one
 * is only compared.
 *
 * Context: takes the array's lock; may allocate nodes.
 * Return: 0 if the entry was @old and is now @entry; -EBUSY if the entry
 * was something else (nothing changes, @cur written); -EINVAL for a reserved
 * @entry value (nothing changes, @cur not written); -ENOMEM (nothing changes,
 * @cur not written).
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
 * rg_xa_alloc_cyclic() - store an entry at the next free index after a cursor.
 * @xa: an allocating array (RG_XA_FLAGS_ALLOC or RG_XA_FLAGS_ALLOC1).
 * @id: receives the index on success.
 * @entry: the entry; NULL reserves the index.
 * @min: lowest acceptable index.
 * @max: highest acceptable index.
 * @next: in: where the search starts (below @min means @min); out, on
 *        success: *@id + 1, which wraps to 0 after UINT32_MAX.
 *
 * As the kernel's xa_alloc_cyclic(): the lowest free index in
 * [max(@min, *@next), @max], else, when that part is full and starts above
 * @min, the lowest free index in [@min, @max]. IDs and the cursor are 32-bit
 * as in the kernel. When *@next wraps to 0 the array remembers it
 * (RG_XA_FLAGS_ALLOC_WRAPPED) and the next successful call returns 1.
 *
 * Context: takes the array's lock; may allocate nodes.
 * Return: 0 with *@id and *@next set; 1 if the allocation wrapped (it
 * started again at @min, or the previous one wrapped the cursor); -EBUSY if
 * every index in [@min, @max] is taken or @min > @max; -EINVAL if @xa,
 * @id or @next is NULL, @xa is not an allocating array or @entry is
 * internal; -ENOMEM (nothing changes; the search does not start again at
 * @min after it). On error *@id and *@next are not written.
 */
RG_API int rg_xa_alloc_cyclic(struct rg_xarray *xa, uint32_t *id, void *entry,
			      uint32_t min, uint32_t max, uint32_t *next);

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
 * rg_xa_rcu_barrier() - wait until every node freed through RCU is freed.
 *
 * Arrays in RCU mode (RG_XA_FLAGS_RCU) and threads registered with liburcu
 * free nodes after a grace period, through call_rcu(); this waits for all
 * of those queued so far (liburcu's urcu_memb_barrier()), after which the
 * node cache's objects_in_use counts only nodes in trees.
 *
 * Context: any thread, not inside an RCU read-side section; blocks.
 */
RG_API void rg_xa_rcu_barrier(void);

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

/**
 * rg_xa_for_each_marked() - loop over the entries with a mark, in order.
 * @xa: the array.
 * @index: an unsigned long lvalue: the current index.
 * @entry: a pointer lvalue: the current entry.
 * @filter: a mark (RG_XA_MARK_0 .. 2), or RG_XA_PRESENT for every entry.
 *
 * Each step is one rg_xa_find() or rg_xa_find_after(), so the body may
 * store and erase. After the loop @entry is NULL.
 *
 * Context: each step takes the array's lock (see rg_xa_find()).
 */
#define rg_xa_for_each_marked(xa, index, entry, filter)                \
	for ((index) = 0,                                              \
	    (entry) = rg_xa_find((xa), &(index), ULONG_MAX, (filter)); \
	     (entry);                                                  \
	     (entry) = rg_xa_find_after((xa), &(index), ULONG_MAX, (filter)))
/**
 * rg_xa_for_each() - loop over the present entries in index order.
 * @xa: the array.
 * @index: an unsigned long lvalue: the current index.
 * @entry: a pointer lvalue: the current entry.
 *
 * rg_xa_for_each_marked() with RG_XA_PRESENT.
 *
 * Context: each step takes the array's lock (see rg_xa_find()).
 */
#define rg_xa_for_each(xa, index, entry) \
	rg_xa_for_each_marked(xa, index, entry, RG_XA_PRESENT)

/*
 * ---- The advanced API ----
 *
 * A struct rg_xa_state names one index of one array and remembers where a
 * walk to it stopped, so that a sequence of calls (load, then store; find,
 * then mark) walks the tree once. The caller holds the array's lock
 * (rg_xa_lock()) across every rg_xas_* call on a state and keeps the state
 * on its stack; a state is valid only until the lock is dropped or the
 * array is changed through another state (then rg_xas_reset() it).
 *
 * Usage:
 *	RG_XA_STATE(xas, &xa, index);
 *	do {
 *		rg_xa_lock(&xa);
 *		old = rg_xas_store(&xas, entry);	// may fail: -ENOMEM
 *		rg_xa_unlock(&xa);
 *	} while (rg_xas_nomem(&xas));		// allocates, lock dropped
 *	err = rg_xas_error(&xas);
 *
 *	rg_xa_lock(&xa);
 *	rg_xas_for_each(&xas, entry, ULONG_MAX) {
 *		if (rg_xas_retry(&xas, entry))	// zero and retry entries
 *			continue;
 *		use(xas.xa_index, entry);
 *		if (need_break) {		// drop the lock in a loop
 *			rg_xas_pause(&xas);
 *			rg_xa_unlock(&xa);
 *			rg_xa_lock(&xa);
 *		}
 *	}
 *	rg_xa_unlock(&xa);
 *
 * Errors travel in the state: a call that fails records a negative errno
 * (rg_xas_error()) and every later call on the state does nothing until
 * rg_xas_set(), rg_xas_reset() or a successful rg_xas_nomem() clears it.
 */

/* Nodes of the tree; their layout is private to the xarray. */
struct rg_xa_node;

/* Positions of a state that is not on a node. */
/* Not walked yet: the next call walks from the top. */
#define RG_XAS_RESTART ((struct rg_xa_node *)3UL)
/* Walked, and the index lies outside the tree (or a search ran out). */
#define RG_XAS_BOUNDS ((struct rg_xa_node *)1UL)

/**
 * struct rg_xa_state - a position in an array (advanced API).
 * @xa: the array.
 * @xa_index: the index the state names.
 * @xa_shift: the state's order rounded down to a multiple of 6.
 * @xa_sibs: 2^(order % 6) - 1: slots a multi-index entry adds.
 * @xa_offset: the slot of @xa_index in @xa_node.
 * @xa_pad: reserved.
 * @xa_node: the node where the last walk stopped; NULL for the array's head
 *           (index 0 with no node), RG_XAS_RESTART, RG_XAS_BOUNDS, or an
 *           error (rg_xas_error()).
 * @xa_alloc: nodes allocated by rg_xas_nomem() for the next store.
 * @xa_need: nodes the last failed store needed.
 *
 * Read @xa_index freely; change the other fields only through the calls.
 */
struct rg_xa_state {
	struct rg_xarray *xa;
	unsigned long xa_index;
	unsigned char xa_shift;
	unsigned char xa_sibs;
	unsigned char xa_offset;
	unsigned char xa_pad;
	struct rg_xa_node *xa_node;
	struct rg_xa_node *xa_alloc;
	unsigned int xa_need;
};

/**
 * RG_XA_STATE() - declare an advanced-API state on an array.
 * @name: the struct rg_xa_state variable's name.
 * @array: the array.
 * @index: the index the state is set to.
 *
 * The state is not walked yet: the next rg_xas_* call starts at the root.
 *
 * Context: any; a definition (the calls on it need the array's lock).
 */
#define RG_XA_STATE(name, array, index)                                  \
	struct rg_xa_state name = { (array), (index),	     0,	   0, 0, \
				    0,	     RG_XAS_RESTART, NULL, 0 }

#define RG_XA_BITS_ ((unsigned int)(sizeof(unsigned long) * 8))
/**
 * RG_XA_STATE_ORDER() - declare a state for a multi-index entry.
 * @name: the struct rg_xa_state variable's name.
 * @array: the array.
 * @index: the index, rounded down to a multiple of 2^@order.
 * @order: the entry's order: it covers 2^@order indices.
 *
 * As rg_xas_set_order() on an RG_XA_STATE(); an order above the bits of
 * an unsigned long puts -EINVAL in the state.
 *
 * Context: any; a definition (the calls on it need the array's lock).
 */
#define RG_XA_STATE_ORDER(name, array, index, order)       \
	struct rg_xa_state name = RG_XA_STATE_ORDER_INIT_( \
		array, index, order, struct rg_xa_node, RG_XAS_RESTART)

/*
 * The initializer behind RG_XA_STATE_ORDER(), shared with the kernel-name
 * XA_STATE_ORDER() of <region/linux/xarray.h>, whose state mirrors this one
 * with its own node type (@node_t) and restart value. Kept out of
 * clang-format, which does not read a brace initializer in a macro.
 */
/* clang-format off */
#define RG_XA_STATE_ORDER_INIT_(array, index, order, node_t, restart)          \
	{                                                                      \
		(array),                                                       \
		(order) < RG_XA_BITS_ ?                                        \
			(unsigned long)(index) &                               \
				~((1UL << ((order) % RG_XA_BITS_)) - 1) :      \
			0UL,                                                   \
		(unsigned char)((order) - (order) % RG_XA_CHUNK_SHIFT),        \
		(unsigned char)((1u << ((order) % RG_XA_CHUNK_SHIFT)) - 1),    \
		0,                                                             \
		0,                                                             \
		(order) > RG_XA_BITS_ ?                                        \
			(node_t *)(uintptr_t)(((unsigned long)-EINVAL << 2) |  \
					      2UL) :                           \
			(restart),                                             \
		NULL,                                                          \
		0                                                              \
	}
/* clang-format on */

/**
 * rg_xa_lock() - take the array's lock.
 * @xa: the array.
 *
 * The lock every normal call that changes the array takes (and that
 * rg_xa_load() takes from a thread not registered with liburcu). Hold it
 * around rg_xas_* calls (rg_xas_load() and rg_xas_reload() may run under
 * the RCU read lock instead) and the *_locked calls. The normal calls
 * that only read (rg_xa_load(),
 * rg_xa_find(), rg_xa_find_after(), rg_xa_get_mark(), rg_xa_empty(),
 * rg_xa_validate(), rg_xa_dump(), the iterators) may be called with it
 * held, as the kernel's lock-free readers may; the normal calls that
 * change the array may not (they would wait for ever): use the *_locked
 * calls.
 *
 * Context: blocks while another thread holds it.
 */
static inline void rg_xa_lock(struct rg_xarray *xa)
{
	pthread_mutex_lock(&xa->lock);
	__atomic_store_n(&xa->owner, (unsigned long)pthread_self(),
			 __ATOMIC_RELAXED);
}

/**
 * rg_xa_unlock() - release the array's lock.
 * @xa: the array.
 *
 * Context: the caller holds the lock.
 */
static inline void rg_xa_unlock(struct rg_xarray *xa)
{
	__atomic_store_n(&xa->owner, 0UL, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&xa->lock);
}

/**
 * rg_xas_error() - the error recorded in a state.
 * @xas: the state.
 *
 * Context: any.
 * Return: 0, or the negative errno of the call that failed (-ENOMEM,
 * -EINVAL, or one given to rg_xas_set_err()).
 */
static inline int rg_xas_error(const struct rg_xa_state *xas)
{
	uintptr_t v = (uintptr_t)xas->xa_node;

	return (v & 3) == 2 ? (int)((intptr_t)v >> 2) : 0;
}

/**
 * rg_xas_set_err() - record an error in a state.
 * @xas: the state.
 * @err: a negative errno.
 *
 * Every later call on @xas does nothing (and finds nothing) until
 * rg_xas_set(), rg_xas_reset() or a successful rg_xas_nomem().
 *
 * Context: any.
 */
static inline void rg_xas_set_err(struct rg_xa_state *xas, long err)
{
	xas->xa_node = (struct rg_xa_node *)(((unsigned long)err << 2) | 2UL);
}

/**
 * rg_xas_invalid() - tell whether a state is not on a node or the head.
 * @xas: the state.
 *
 * Context: any.
 * Return: true for RG_XAS_RESTART, RG_XAS_BOUNDS and errors.
 */
static inline bool rg_xas_invalid(const struct rg_xa_state *xas)
{
	return ((uintptr_t)xas->xa_node & 3) != 0;
}

/**
 * rg_xas_valid() - tell whether a state is on a node or the head.
 * @xas: the state.
 *
 * Context: any.
 * Return: the opposite of rg_xas_invalid().
 */
static inline bool rg_xas_valid(const struct rg_xa_state *xas)
{
	return !rg_xas_invalid(xas);
}

/**
 * rg_xas_reset() - forget where a state's walk stopped.
 * @xas: the state.
 *
 * The index stays; the next call walks from the top. Clears an error.
 *
 * Context: any.
 */
static inline void rg_xas_reset(struct rg_xa_state *xas)
{
	xas->xa_node = RG_XAS_RESTART;
}

/**
 * rg_xas_set() - point a state at another index.
 * @xas: the state.
 * @index: the new index.
 *
 * Context: any.
 */
static inline void rg_xas_set(struct rg_xa_state *xas, unsigned long index)
{
	xas->xa_index = index;
	xas->xa_node = RG_XAS_RESTART;
}

/**
 * rg_xas_set_index() - point a state at another index (rg_xas_set()).
 * @xas: the state.
 * @index: the new index.
 *
 * The same as rg_xas_set(): a state never names an index its walk has not
 * reached.
 *
 * Context: any.
 */
static inline void rg_xas_set_index(struct rg_xa_state *xas,
				    unsigned long index)
{
	rg_xas_set(xas, index);
}

/**
 * rg_xas_retry() - skip an entry a walk must not hand on.
 * @xas: the state.
 * @entry: the entry a load, find or iteration returned.
 *
 * For RG_XA_RETRY_ENTRY the state is reset, so that the next call walks
 * again from the top; RG_XA_ZERO_ENTRY (a reservation) is simply skipped.
 *
 * Context: any.
 * Return: true if @entry is one of the two and the caller should continue
 * its loop; false for every other entry.
 */
static inline bool rg_xas_retry(struct rg_xa_state *xas, const void *entry)
{
	if (rg_xa_is_zero(entry))
		return true;
	if (!rg_xa_is_retry(entry))
		return false;
	rg_xas_reset(xas);
	return true;
}

/**
 * rg_xas_load() - walk to the state's index and return its entry.
 * @xas: the state.
 *
 * Under urcu_memb_read_lock() without the array's lock (the thread
 * registered with liburcu, the array in RCU mode: RG_XA_FLAGS_RCU) the
 * walk runs beside writers and may return RG_XA_RETRY_ENTRY, where a
 * writer took a node out: rg_xas_retry() resets the state and the caller
 * loads again, as with the kernel's xas_load().
 *
 * Context: the caller holds the array's lock, or urcu_memb_read_lock() as
 * the description says; never allocates.
 * Return: the entry, raw: RG_XA_ZERO_ENTRY for a reserved index,
 * RG_XA_RETRY_ENTRY (lock-free only, or if stored there), NULL for none
 * (also if the state holds an error).
 */
RG_API void *rg_xas_load(struct rg_xa_state *xas);

/**
 * rg_xas_reload() - read the entry at the state's position again.
 * @xas: the state, walked by an earlier call.
 *
 * Reads the slot the last walk stopped at without walking from the top; a
 * state that was not walked is walked. A state on the head reads the head
 * as it is now: a node entry (internal) if the array has grown a node
 * since. A state on a node that a writer has taken out reads that node,
 * which stays allocated while the caller's RCU read-side section lasts (in
 * RCU mode); a top node removed by a shrink holds RG_XA_RETRY_ENTRY in
 * slot 0. As the kernel's xas_reload(), callers compare the result with
 * what they loaded and walk again on a difference.
 *
 * Context: the caller holds the array's lock, or the RCU read lock (as for
 * rg_xas_load()); never allocates.
 * Return: the entry, raw (an internal entry as above), or NULL.
 */
RG_API void *rg_xas_reload(struct rg_xa_state *xas);

/**
 * rg_xas_store() - store an entry at the state's index.
 * @xas: the state.
 * @entry: the new entry; NULL erases. RG_XA_ZERO_ENTRY reserves the index
 *         and RG_XA_RETRY_ENTRY may be stored for readers to meet.
 *
 * The marks of a replaced entry stay; a new entry keeps the marks of the
 * empty slot (none, or in an allocating array the free mark: clear it
 * with rg_xas_clear_mark() when the owner wants that). Erasing sets the
 * slot's marks as rg_xas_init_marks() does and frees nodes left empty. A
 * store that needs nodes takes them from those rg_xas_nomem() allocated,
 * then from the node cache; if that fails, nothing changes and the state
 * records -ENOMEM (call rg_xas_nomem() and store again).
 *
 * Context: the caller holds the array's lock; may allocate nodes.
 * Return: the entry that was there (raw), or NULL; on error NULL with
 * rg_xas_error() set: -ENOMEM, or -EINVAL for an internal @entry other
 * than the two above, or for an entry with the low bits 10 that would sit
 * in an interior node (a state of order 6 or more, or an index inside such
 * an entry). A state already holding an error stores nothing.
 */
RG_API void *rg_xas_store(struct rg_xa_state *xas, void *entry);

/**
 * rg_xas_nomem() - allocate what a failed store needs, then retry.
 * @xas: the state.
 *
 * Call with the lock dropped, after rg_xas_store() (or any call that may
 * record -ENOMEM). If the state holds -ENOMEM, allocates the nodes the
 * store needed into the state, clears the error and resets the state. In
 * every other case frees the nodes the state still holds, so that a loop
 * "do { lock; store; unlock; } while (rg_xas_nomem(&xas));" leaks nothing.
 *
 * Context: the caller does not hold the lock (it may, the allocation does
 * not wait); allocates.
 * Return: true if nodes were allocated and the caller should retry; false
 * if there was no -ENOMEM, or the allocation failed (the state keeps
 * -ENOMEM and holds no nodes).
 */
RG_API bool rg_xas_nomem(struct rg_xa_state *xas);

/**
 * rg_xas_find() - the next present entry up to a limit.
 * @xas: the state.
 * @max: the highest index to consider.
 *
 * A state not yet walked (after RG_XA_STATE(), rg_xas_set(),
 * rg_xas_reset() or rg_xas_pause()) looks at its own index first; a walked
 * one moves past its index. On success the state is on the entry found.
 * When nothing is found the state becomes RG_XAS_BOUNDS; if the tree ends
 * before @max, xa_index is the first index after the tree (so a store
 * there appends), otherwise it is past @max.
 *
 * Context: the caller holds the array's lock; never allocates.
 * Return: the entry, raw (reservations included: see rg_xas_retry()), or
 * NULL if none (also on error).
 */
RG_API void *rg_xas_find(struct rg_xa_state *xas, unsigned long max);

/**
 * rg_xas_next_entry() - the next present entry after the state's one.
 * @xas: the state, walked.
 * @max: the highest index to consider.
 *
 * Context: the caller holds the array's lock; never allocates.
 * Return: as rg_xas_find().
 */
RG_API void *rg_xas_next_entry(struct rg_xa_state *xas, unsigned long max);

/**
 * rg_xas_find_marked() - the next entry with a mark up to a limit.
 * @xas: the state.
 * @max: the highest index to consider.
 * @mark: RG_XA_MARK_0 .. RG_XA_MARK_2.
 *
 * As rg_xas_find(), for entries with @mark, except that a state not yet
 * walked whose index is past @max is left as it is. In an allocating array
 * RG_XA_FREE_MARK finds free indices: an empty slot or an index after the
 * tree is found with NULL returned and xa_index set to it (a search that
 * finds nothing leaves xa_index past @max, or keeps it if @max is
 * ULONG_MAX and the state is RG_XAS_BOUNDS).
 *
 * Context: the caller holds the array's lock; never allocates.
 * Return: the entry, or NULL (none, a free index, a bad mark, an error).
 */
RG_API void *rg_xas_find_marked(struct rg_xa_state *xas, unsigned long max,
				rg_xa_mark_t mark);

/**
 * rg_xas_next() - move to the next index and return its entry.
 * @xas: the state.
 *
 * A walked state moves to xa_index + 1 (ULONG_MAX wraps to 0); a state
 * not yet walked loads its own index. From the head (index 0 without a
 * node) the state goes to RG_XAS_BOUNDS at index 1.
 *
 * Context: the caller holds the array's lock; never allocates.
 * Return: the entry there, raw, or NULL.
 */
RG_API void *rg_xas_next(struct rg_xa_state *xas);

/**
 * rg_xas_prev() - move to the previous index and return its entry.
 * @xas: the state.
 *
 * As rg_xas_next(), downwards: index 0 wraps to ULONG_MAX.
 *
 * Context: the caller holds the array's lock; never allocates.
 * Return: the entry there, raw, or NULL.
 */
RG_API void *rg_xas_prev(struct rg_xa_state *xas);

/**
 * rg_xas_pause() - prepare a walked state for a dropped lock.
 * @xas: the state.
 *
 * The state moves past its entry (past the rest of an empty subtree if the
 * walk stopped above a leaf) and forgets its node, so that after the lock
 * is taken again the next rg_xas_find() or iteration step continues with
 * the next entry, whatever changed meanwhile. A state past ULONG_MAX
 * becomes RG_XAS_BOUNDS. A state not on a node is left alone.
 *
 * Context: the caller holds the array's lock.
 */
RG_API void rg_xas_pause(struct rg_xa_state *xas);

/**
 * rg_xas_get_mark() - tell whether the state's entry has a mark.
 * @xas: the state, walked.
 * @mark: RG_XA_MARK_0 .. RG_XA_MARK_2.
 *
 * Context: the caller holds the array's lock.
 * Return: true if the slot at the state's position has @mark, whether or
 * not it holds an entry (in an allocating array a free slot carries
 * RG_XA_FREE_MARK, as in the kernel); false for an invalid state
 * (RG_XAS_RESTART, RG_XAS_BOUNDS or an error) and for a bad mark.
 */
RG_API bool rg_xas_get_mark(const struct rg_xa_state *xas, rg_xa_mark_t mark);

/**
 * rg_xas_set_mark() - set a mark on the state's entry.
 * @xas: the state, walked.
 * @mark: RG_XA_MARK_0 .. RG_XA_MARK_2 (RG_XA_FREE_MARK included: an
 *        allocating array's owner may mark its own entries free).
 *
 * Does nothing if the state is not on a present entry or @mark is bad.
 *
 * Context: the caller holds the array's lock; never allocates.
 */
RG_API void rg_xas_set_mark(const struct rg_xa_state *xas, rg_xa_mark_t mark);

/**
 * rg_xas_clear_mark() - clear a mark on the state's entry.
 * @xas: the state, walked.
 * @mark: as for rg_xas_set_mark().
 *
 * Context: the caller holds the array's lock; never allocates.
 */
RG_API void rg_xas_clear_mark(const struct rg_xa_state *xas, rg_xa_mark_t mark);

/**
 * rg_xas_init_marks() - give the state's entry the marks of a new slot.
 * @xas: the state, walked.
 *
 * Clears every mark; in an allocating array sets RG_XA_FREE_MARK.
 *
 * Context: the caller holds the array's lock; never allocates.
 */
RG_API void rg_xas_init_marks(const struct rg_xa_state *xas);

/**
 * rg_xas_set_order() - point a state at a range of indices.
 * @xas: the state.
 * @index: an index; rounded down to a multiple of 2^@order, as the
 *         kernel's xas_set_order() does.
 * @order: 0 to BITS_PER_LONG.
 *
 * rg_xas_store() on the state then stores a multi-index entry (see
 * rg_xa_store_order()); rg_xas_find_conflict() and rg_xas_create_range()
 * work on the range. Other calls act on the first index.
 *
 * Context: any.
 * Return: nothing; an @order above BITS_PER_LONG records -EINVAL in the
 * state (rg_xas_error()) and leaves @index unrounded.
 */
RG_API void rg_xas_set_order(struct rg_xa_state *xas, unsigned long index,
			     unsigned int order);

/**
 * rg_xas_get_order() - the order of the entry a state is on.
 * @xas: the state, walked (rg_xas_load(), a find, rg_xas_find_conflict()).
 *
 * Context: the caller holds the array's lock.
 * Return: the entry's order; 0 for a single-index entry, no entry, or a
 * state not on a node.
 */
RG_API unsigned int rg_xas_get_order(const struct rg_xa_state *xas);

/**
 * rg_xas_find_conflict() - the next entry a store of the state would replace.
 * @xas: the state, of any order, not walked yet (or on a result of this call).
 *
 * The first call returns the first entry that overlaps the state's range
 * (one that contains its first index, or starts inside it); each later
 * call the next one, each entry once; then NULL, and the state is reset so
 * that rg_xas_store() walks again. The state's index does not change.
 *
 * Context: the caller holds the array's lock; never allocates.
 * Return: the entry (raw: reservations included), or NULL when there is
 * none left or the state holds an error.
 */
RG_API void *rg_xas_find_conflict(struct rg_xa_state *xas);

/**
 * rg_xas_create_range() - prepare order-0 stores at every index of a range.
 * @xas: the state, of the range's order.
 *
 * Puts into the state the nodes that rg_xas_store() of a single-index
 * entry at each index of the range may need, then makes the state order 0
 * at the range's first index: a loop of rg_xas_store() and rg_xas_next()
 * over the range then never fails for memory. The tree does not change;
 * rg_xas_nomem() (or the next failed store's retry) gives back the nodes
 * the stores did not use.
 *
 * Context: the caller holds the array's lock; allocates.
 * Return: nothing; on failure the state records -ENOMEM and keeps the nodes
 * it got (rg_xas_nomem() allocates the rest and clears the error). A state
 * holding an error is left alone.
 */
RG_API void rg_xas_create_range(struct rg_xa_state *xas);

/**
 * rg_xas_split_alloc() - allocate the nodes to split a multi-index entry.
 * @xas: the state, of the order of the pieces.
 * @entry: the entry to be split (unused: the count depends on the orders).
 * @order: the order of the entry to be split.
 *
 * Context: the lock need not be held (the tree is not read); allocates.
 * Return: nothing; -EINVAL in the state for @order above BITS_PER_LONG,
 * -ENOMEM (and no nodes held) if the allocation failed.
 */
RG_API void rg_xas_split_alloc(struct rg_xa_state *xas, void *entry,
			       unsigned int order);

/**
 * rg_xas_split() - split a multi-index entry into entries of the state's order.
 * @xas: the state: its index lies in the entry, its order is below @order;
 *       holds the nodes rg_xas_split_alloc() allocated.
 * @entry: the entry each piece then holds.
 * @order: the order of the entry at the state's index.
 *
 * Every piece gets the marks of the split entry.
 *
 * Context: the caller holds the array's lock; takes nodes from the state
 * only.
 * Return: nothing; the state records -EINVAL if there is no entry of
 * @order at its index, its order is not below @order, or @entry is NULL,
 * reserved or has the low bits 10 where pieces sit in interior nodes;
 * -ENOMEM if it holds too few nodes (nothing changes then).
 */
RG_API void rg_xas_split(struct rg_xa_state *xas, void *entry,
			 unsigned int order);

/**
 * rg_xas_for_each() - loop with a state over the present entries to @max.
 * @xas: the state (struct rg_xa_state), set to the first index.
 * @entry: a pointer lvalue: the current entry, raw.
 * @max: the last index to look at.
 *
 * Each step is one rg_xas_find() or rg_xas_next_entry().
 *
 * Context: the caller holds the array's lock for the whole loop.
 */
#define rg_xas_for_each(xas, entry, max)                   \
	for ((entry) = rg_xas_find((xas), (max)); (entry); \
	     (entry) = rg_xas_next_entry((xas), (max)))
/**
 * rg_xas_for_each_marked() - loop with a state over marked entries to @max.
 * @xas: the state (struct rg_xa_state), set to the first index.
 * @entry: a pointer lvalue: the current entry.
 * @max: the last index to look at.
 * @mark: the mark, RG_XA_MARK_0 .. 2.
 *
 * Each step is one rg_xas_find_marked().
 *
 * Context: the caller holds the array's lock for the whole loop.
 */
#define rg_xas_for_each_marked(xas, entry, max, mark)                     \
	for ((entry) = rg_xas_find_marked((xas), (max), (mark)); (entry); \
	     (entry) = rg_xas_find_marked((xas), (max), (mark)))

/*
 * Normal calls for a caller that holds the lock (the kernel's __xa_*):
 * the same semantics and errors as the calls without _locked, which are
 * these between rg_xa_lock() and rg_xa_unlock(). They allocate with the
 * lock held (userspace allocation does not sleep on the lock's account).
 */

/**
 * rg_xa_store_locked() - rg_xa_store() under the caller's lock.
 * @xa: the array.
 * @index: the index.
 * @entry: the new entry; NULL erases (reserves in an allocating array).
 * @old: if not NULL, receives the previous entry.
 *
 * Context: the caller holds the array's lock; may allocate nodes.
 * Return: 0, -EINVAL or -ENOMEM as rg_xa_store().
 */
RG_API int rg_xa_store_locked(struct rg_xarray *xa, unsigned long index,
			      void *entry, void **old);

/**
 * rg_xa_insert_locked() - rg_xa_insert() under the caller's lock.
 * @xa: the array.
 * @index: the index.
 * @entry: the new entry; NULL reserves.
 *
 * Context: the caller holds the array's lock; may allocate nodes.
 * Return: 0, -EBUSY, -EINVAL or -ENOMEM as rg_xa_insert().
 */
RG_API int rg_xa_insert_locked(struct rg_xarray *xa, unsigned long index,
			       void *entry);

/**
 * rg_xa_erase_locked() - rg_xa_erase() under the caller's lock.
 * @xa: the array.
 * @index: the index.
 *
 * Context: the caller holds the array's lock; never allocates.
 * Return: the entry that was there, or NULL.
 */
RG_API void *rg_xa_erase_locked(struct rg_xarray *xa, unsigned long index);

/**
 * rg_xa_cmpxchg_locked() - rg_xa_cmpxchg() under the caller's lock.
 * @xa: the array.
 * @index: the index.
 * @old: the expected entry.
 * @entry: the new entry.
 * @cur: if not NULL, receives the entry found.
 *
 * Context: the caller holds the array's lock; may allocate nodes.
 * Return: 0, -EBUSY, -EINVAL or -ENOMEM as rg_xa_cmpxchg().
 */
RG_API int rg_xa_cmpxchg_locked(struct rg_xarray *xa, unsigned long index,
				void *old, void *entry, void **cur);

/**
 * rg_xa_alloc_locked() - rg_xa_alloc() under the caller's lock.
 * @xa: an allocating array.
 * @id: receives the index.
 * @entry: the entry; NULL reserves.
 * @min: lowest acceptable index.
 * @max: highest acceptable index.
 *
 * Context: the caller holds the array's lock; may allocate nodes.
 * Return: 0, -EBUSY, -EINVAL or -ENOMEM as rg_xa_alloc().
 */
RG_API int rg_xa_alloc_locked(struct rg_xarray *xa, unsigned long *id,
			      void *entry, unsigned long min,
			      unsigned long max);

/**
 * rg_xa_alloc_cyclic_locked() - rg_xa_alloc_cyclic() under the caller's lock.
 * @xa: an allocating array.
 * @id: receives the index.
 * @entry: the entry; NULL reserves.
 * @min: lowest acceptable index.
 * @max: highest acceptable index.
 * @next: the cursor, as for rg_xa_alloc_cyclic().
 *
 * Context: the caller holds the array's lock; may allocate nodes.
 * Return: 0, 1, -EBUSY, -EINVAL or -ENOMEM as rg_xa_alloc_cyclic().
 */
RG_API int rg_xa_alloc_cyclic_locked(struct rg_xarray *xa, uint32_t *id,
				     void *entry, uint32_t min, uint32_t max,
				     uint32_t *next);

/**
 * rg_xa_set_mark_locked() - rg_xa_set_mark() under the caller's lock.
 * @xa: the array.
 * @index: the index.
 * @mark: the mark.
 *
 * Context: the caller holds the array's lock; never allocates.
 * Return: 0, -EINVAL or -ENOENT as rg_xa_set_mark().
 */
RG_API int rg_xa_set_mark_locked(struct rg_xarray *xa, unsigned long index,
				 rg_xa_mark_t mark);

/**
 * rg_xa_clear_mark_locked() - rg_xa_clear_mark() under the caller's lock.
 * @xa: the array.
 * @index: the index.
 * @mark: the mark.
 *
 * Context: the caller holds the array's lock; never allocates.
 * Return: 0, -EINVAL or -ENOENT as rg_xa_clear_mark().
 */
RG_API int rg_xa_clear_mark_locked(struct rg_xarray *xa, unsigned long index,
				   rg_xa_mark_t mark);

/* rg_xa_validate_locked() flags. */
/* The owner of an allocating array decides the free mark of its entries. */
#define RG_XA_VALIDATE_OWNER_FREE 0x1u

/**
 * rg_xa_validate_locked() - rg_xa_validate() under the caller's lock.
 * @xa: the array.
 * @flags: 0 or RG_XA_VALIDATE_OWNER_FREE (the array's owner, such as the
 *         IDA, keeps RG_XA_FREE_MARK on present entries itself).
 * @reason: if not NULL, receives a static description of the problem.
 *
 * Context: the caller holds the array's lock; O(nodes).
 * Return: 0 if valid, -EINVAL otherwise (also for unknown @flags).
 */
RG_API int rg_xa_validate_locked(struct rg_xarray *xa, unsigned int flags,
				 const char **reason);

/* Prints one entry for rg_xa_dump_locked(): index, entry, newline. */
typedef void (*rg_xa_dump_fn)(FILE *f, unsigned long index, void *entry);

/**
 * rg_xa_dump_locked() - rg_xa_dump() under the caller's lock.
 * @xa: the array.
 * @f: the stream.
 * @fn: prints one entry, or NULL for the array's own format.
 *
 * Context: the caller holds the array's lock.
 */
RG_API void rg_xa_dump_locked(struct rg_xarray *xa, FILE *f, rg_xa_dump_fn fn);

/**
 * rg_xa_bytes_locked() - rg_xa_bytes() under the caller's lock.
 * @xa: the array.
 *
 * Context: the caller holds the array's lock.
 * Return: the array's nodes times the node size, plus its header.
 */
RG_API size_t rg_xa_bytes_locked(const struct rg_xarray *xa);

#ifdef __cplusplus
}
#endif
#endif /* REGION_XARRAY_H */
