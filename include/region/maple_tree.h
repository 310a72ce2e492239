/* SPDX-License-Identifier: MIT */
/*
 * libregion Maple Tree: a B-tree mapping ranges [first, last] of unsigned
 * long to non-NULL entries (every index outside a stored range reads NULL),
 * with allocation trees that track the largest free run under every node,
 * and an exact node preallocation that makes a store unable to fail.
 *
 * Usage (normal API: every call takes the tree's lock and allocates itself):
 *	RG_DEFINE_MTREE(mt);				// or rg_mtree_init()
 *	rg_mtree_store_range(&mt, 10, 19, ptr);		// -EINVAL, -ENOMEM
 *	p = rg_mtree_load(&mt, 15);			// ptr
 *	rg_mtree_insert(&mt, 12, other);		// -EEXIST: occupied
 *	old = rg_mtree_erase(&mt, 11);			// removes 10..19
 *	unsigned long i = 0;
 *	rg_mt_for_each(&mt, p, i, ULONG_MAX)
 *		use(p);
 *	rg_mtree_destroy(&mt);
 *
 *	struct rg_maple_tree at;			// allocation tree
 *	rg_mtree_init(&at, RG_MT_FLAGS_ALLOC_RANGE);
 *	unsigned long start;
 *	rg_mtree_alloc_range(&at, &start, ptr, 16, 0, 1000);	// lowest fit
 *	rg_mtree_alloc_range_aligned(&at, &start, ptr, 16, 0, 1000, 8);
 *						// lowest fit at a multiple of 8
 *
 * Usage (advanced API: caller-owned state, caller holds the lock):
 *	RG_MA_STATE(mas, &mt, 0, 0);
 *	rg_mtree_lock(&mt);
 *	rg_mas_for_each(&mas, p, ULONG_MAX)		// mas.index..mas.last
 *		use(p);
 *	rg_mas_set_range(&mas, 100, 199);
 *	if (!rg_mas_preallocate(&mas, ptr, 0))		// exact worst case
 *		rg_mas_store_prealloc(&mas, ptr);	// cannot fail
 *	rg_mtree_unlock(&mt);
 *
 * Entries: any non-NULL pointer or value entry (rg_mt_mk_value()). Values
 * below 4096 whose two low bits are 10 are reserved for the tree itself;
 * every call that stores one returns -EINVAL, except RG_MT_ZERO_ENTRY (the
 * kernel's XA_ZERO_ENTRY), which occupies its range like any entry but
 * reads as NULL through the normal API. Storing NULL erases. Adjacent
 * ranges are never merged, except empty (NULL) ones.
 *
 * Nodes are 256 bytes, 256-byte aligned, from one process-wide slab cache
 * (rg_mtree_node_stats()); each tree counts its own nodes, so
 * rg_mtree_bytes() reports exactly what that tree holds. Every store goes
 * through the same path: classify the store, request the worst-case node
 * count for it (using the vacant and sufficient heights of the path unless
 * disabled), prefill a slab sheaf with that many nodes, store without any
 * further allocation, give the rest back. rg_mtree_get_stats() reports the
 * requests, their histogram and the nodes actually used.
 *
 * Locking: the normal API takes the tree's lock (a futex-based mutex: one
 * atomic operation to take, one to release when nobody waits). The
 * advanced API (rg_mas_*)
 * expects the caller to hold it (rg_mtree_lock()). Errors follow libregion's
 * convention: 0 or a negative errno; the library never prints, except
 * rg_mtree_dump().
 *
 * RCU mode (RG_MT_FLAGS_USE_RCU at init, or rg_mtree_set_rcu()): readers
 * take no tree lock, only liburcu's read lock, in the "memb" flavour that
 * libregion uses (<urcu/urcu-memb.h>; <urcu.h> selects the same flavour
 * by default, with rcu_read_lock() etc. as names of the calls below):
 *	urcu_memb_register_thread();		// every thread using it
 *	p = rg_mtree_load(&mt, 15);		// takes the read lock
 *	urcu_memb_read_lock();			// advanced API: caller
 *	RG_MA_STATE(mas, &mt, 0, 0);
 *	rg_mas_for_each(&mas, p, ULONG_MAX)	// no tree lock
 *		use(p);
 *	urcu_memb_read_unlock();
 *	rg_mtree_store_range(&mt, 5, 9, ptr);	// writers: tree lock as always
 *	rg_mtree_destroy(&mt);			// frees after a grace period
 *	rg_mtree_rcu_barrier();			// wait for the deferred frees
 *	urcu_memb_unregister_thread();
 * Rules: every thread that reads or writes an RCU-mode tree is registered
 * with urcu_memb_register_thread() (liburcu's rule for the read lock and
 * for call_rcu(), which writers use) and unregisters before it exits.
 * Linking: "pkg-config --cflags --libs libregion" and CMake's
 * libregion::libregion include liburcu (liburcu.pc, the memb flavour), so
 * a program calling these urcu_memb_*() functions needs nothing else.
 * rg_mtree_load(), rg_mtree_find() and rg_mtree_find_after() take
 * urcu_memb_read_lock() themselves; rg_mas_walk(), rg_mas_find*(),
 * rg_mas_next*() and rg_mas_prev*() run under the caller's
 * urcu_memb_read_lock() (or the tree lock). Keep the read lock across an
 * iteration, or rg_mas_pause() before dropping it. Writes, gap searches
 * (rg_mas_empty_area*()), validate and dump take the tree lock in every
 * mode. The library never holds the tree lock while it waits for a grace
 * period, so a normal-API call may wait for the lock inside a read-side
 * critical section; call rg_mtree_clear_rcu() and rg_mtree_rcu_barrier()
 * outside one. Switching the mode off under live readers is safe: a state
 * of the advanced API used in a read-side critical section that began in
 * RCU mode goes on walking as in RCU mode until rg_mtree_clear_rcu() has
 * waited for that section. A reader that does not know the mode asks
 * rg_mtree_in_rcu() inside its read-side critical section and, if false,
 * takes the tree lock for the advanced API.
 * What a reader sees: each index maps to its entry before or after any
 * concurrent store, never to a range no store made; iteration reports
 * strictly increasing, non-overlapping ranges (a range a concurrent store
 * extended backwards is reported from where the iteration had got to).
 * Writers never edit a live node in RCU mode except to replace one slot's
 * entry (an exact-fit store); appends, slot and node stores build one new
 * leaf (1 node preallocated, where the kernel edits some of them in place:
 * they change a pivot and a slot, two words). Replaced nodes are marked
 * dead, so a reader that reaches one walks again from the root, and are
 * freed in one call_rcu() batch per store. rg_mtree_destroy() defers its
 * frees the same way: the rg_maple_tree itself may be freed at once, but
 * only once no reader can still be using it.
 *
 * Publication in RCU mode: a reader can see an entry as soon as the store
 * that links it has run, which is before the storing call returns. Fill an
 * object completely before storing it (the link is a release store, so a
 * reader that finds the entry also sees what was written to it before).
 * rg_mtree_alloc_range(), rg_mtree_alloc_rrange() and rg_mtree_alloc_cyclic()
 * store the entry first and set *startp afterwards: a reader may find the
 * entry in its window before the caller knows the window's start, so an
 * object that records its own start is published unfinished. Either
 *	rg_mtree_alloc_range(&mt, &start, rg_mt_mk_value(0), n, lo, hi);
 *	obj->start = start;			// a placeholder holds the window
 *	rg_mtree_store_range(&mt, start, start + n - 1, obj);	// exact fit
 * (a reader that finds a value entry, rg_mt_is_value(), treats the window
 * as not ready yet), or find the window with rg_mas_empty_area() under
 * rg_mtree_lock(), fill the object, and store it with rg_mas_store_gfp()
 * before rg_mtree_unlock().
 *
 * Entry lifetime in RCU mode: the tree frees its own nodes after a grace
 * period, never the entries. The read lock rg_mtree_load() takes ends when
 * it returns, so a reader that uses the entry it loaded calls
 * urcu_memb_read_lock() around both the load and the use (read-side
 * sections nest) and drops the entry with the lock. An entry that a store
 * replaced or an erase removed may still be in use by such a reader, so
 * free or reuse it only after a grace period: call
 * urcu_memb_synchronize_rcu() after the erase and free it then, or queue
 * the free with urcu_memb_call_rcu() (the object embeds a struct rcu_head).
 * Before the program exits or unloads the code of those callbacks, call
 * rg_mtree_rcu_barrier(): it waits for every call_rcu() callback queued so
 * far, the tree's and the caller's.
 */
#ifndef REGION_MAPLE_TREE_H
#define REGION_MAPLE_TREE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "region/common.h"
#include "region/slab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- flags (rg_mtree_init()) ---- */

/* Track the largest free run under every node; required by alloc calls. */
#define RG_MT_FLAGS_ALLOC_RANGE 0x01u
/*
 * RCU mode: readers run without the tree lock (see "RCU mode" above);
 * writers replace nodes instead of editing live ones and free them after a
 * grace period. Also rg_mtree_set_rcu() / rg_mtree_clear_rcu().
 */
#define RG_MT_FLAGS_USE_RCU 0x02u
/*
 * Preallocate by height only (2h + 1 / 3h + 1 nodes), ignoring the vacant
 * and sufficient heights of the path, as before the 2024 Maple Tree vacancy
 * patches; for comparisons.
 */
#define RG_MT_FLAGS_NO_VACANCY 0x04u
/*
 * The caller serialises writers with a lock of its own (the kernel's
 * MT_FLAGS_LOCK_EXTERN) and uses the advanced API under it. Recorded only:
 * the normal API still takes the tree's own lock, which costs nothing
 * when nobody else holds it.
 */
#define RG_MT_FLAGS_LOCK_EXTERN 0x08u
/* All flags rg_mtree_init() accepts. */
#define RG_MT_FLAGS_MASK 0x0fu

/* Node geometry (64-bit). */
#define RG_MT_NODE_SIZE 256
#define RG_MT_SLOTS 16 /* leaves and ordinary internal nodes */
#define RG_MT_ALLOC_SLOTS 10 /* internal nodes of allocation trees */
/* Deepest tree the implementation builds. */
#define RG_MT_MAX_HEIGHT 31

/**
 * enum rg_mt_store_type - how a store changes the tree (its classification).
 * @RG_MT_STORE_EXACT_FIT: the range matches one existing range exactly.
 * @RG_MT_STORE_APPEND: new data goes after the last used slot of a leaf.
 * @RG_MT_STORE_SLOT: at most two slots change and the leaf keeps its count.
 * @RG_MT_STORE_NODE: the leaf is rewritten and still fits.
 * @RG_MT_STORE_SPLIT: the leaf overflows and splits.
 * @RG_MT_STORE_REBALANCE: the leaf underflows and is merged or refilled.
 * @RG_MT_STORE_SPANNING: the range crosses leaves.
 * @RG_MT_STORE_NEW_ROOT: a first node is created (empty tree or root entry).
 * @RG_MT_STORE_TYPES: number of types.
 */
enum rg_mt_store_type {
	RG_MT_STORE_EXACT_FIT,
	RG_MT_STORE_APPEND,
	RG_MT_STORE_SLOT,
	RG_MT_STORE_NODE,
	RG_MT_STORE_SPLIT,
	RG_MT_STORE_REBALANCE,
	RG_MT_STORE_SPANNING,
	RG_MT_STORE_NEW_ROOT,
	RG_MT_STORE_TYPES
};

/* Buckets of the preallocation histogram: 1, 2-3, 4-7, 8-15, 16-31, 32+. */
#define RG_MT_HIST_BUCKETS 6

/**
 * struct rg_mtree_stats - a tree's write statistics (rg_mtree_get_stats()).
 * @stores: stores performed (every write: store, insert, erase, alloc).
 * @store_type: stores per enum rg_mt_store_type.
 * @preallocs: preallocations that asked for at least one node.
 * @nodes_requested: nodes asked for by those preallocations.
 * @nodes_used: nodes the stores actually took.
 * @hist: preallocations by nodes requested: [0] 1, [1] 2-3, [2] 4-7,
 *        [3] 8-15, [4] 16-31, [5] 32 or more.
 * @max_requested: the largest single request.
 * @overuse: stores that used more nodes than they requested (a bug if not 0).
 * @nodes: nodes the tree holds now.
 * @height: the tree's height now (0: empty or a root entry).
 */
struct rg_mtree_stats {
	unsigned long stores;
	unsigned long store_type[RG_MT_STORE_TYPES];
	unsigned long preallocs;
	unsigned long nodes_requested;
	unsigned long nodes_used;
	unsigned long hist[RG_MT_HIST_BUCKETS];
	unsigned long max_requested;
	unsigned long overuse;
	unsigned long nodes;
	unsigned long height;
};

/**
 * struct rg_maple_tree - a Maple Tree. Fields are private; use the calls.
 * @lock: the tree lock (rg_mtree_lock()): 0 free, 1 held, 2 held with
 *        waiters.
 * @root: NULL, the entry at index 0 alone, or an encoded node.
 * @flags: RG_MT_FLAGS_*.
 * @height: levels of nodes (0 when @root is not a node).
 * @nodes: nodes held.
 * @stats: write statistics.
 */
struct rg_maple_tree {
	int lock;
	void *root;
	unsigned int flags;
	unsigned int height;
	unsigned long nodes;
	struct rg_mtree_stats stats;
};

#ifdef __cplusplus
#define RG_MT_ZERO_INIT_ \
	{                \
	}
#else
#define RG_MT_ZERO_INIT_ \
	{                \
		0        \
	}
#endif
/**
 * RG_MTREE_INIT() - static initialiser of an empty tree.
 * @name: the variable being initialised (unused; the kernel's form).
 * @fl: the tree's flags, as rg_mtree_init() takes them.
 *
 * "struct rg_maple_tree t = RG_MTREE_INIT(t, flags);" is rg_mtree_init(&t,
 * flags) at compile time.
 *
 * Context: any; an initialiser.
 */
#define RG_MTREE_INIT(name, fl)                       \
	{                                             \
		0, NULL, (fl), 0, 0, RG_MT_ZERO_INIT_ \
	}
/**
 * RG_DEFINE_MTREE() - define an empty ordinary tree (flags 0).
 * @name: the variable's name.
 *
 * Give it back with rg_mtree_destroy().
 *
 * Context: any; a definition.
 */
#define RG_DEFINE_MTREE(name) struct rg_maple_tree name = RG_MTREE_INIT(name, 0)

/* ---- entries ---- */

/**
 * rg_mt_mk_value() - make a value entry from an integer.
 * @v: 0 .. LONG_MAX.
 *
 * Context: any.
 * Return: an entry that is never NULL, never reserved, never a pointer.
 */
static inline void *rg_mt_mk_value(unsigned long v)
{
	return (void *)((v << 1) | 1UL);
}

/**
 * rg_mt_to_value() - the integer of a value entry.
 * @entry: made by rg_mt_mk_value().
 *
 * Context: any.
 * Return: the integer.
 */
static inline unsigned long rg_mt_to_value(const void *entry)
{
	return (unsigned long)entry >> 1;
}

/**
 * rg_mt_is_value() - tell whether an entry is a value entry.
 * @entry: an entry.
 *
 * Context: any.
 * Return: true for entries with the low bit set.
 */
static inline bool rg_mt_is_value(const void *entry)
{
	return ((unsigned long)entry & 1UL) != 0;
}

/*
 * The zero entry: holds a range (an allocation tree sees no gap there) while
 * rg_mtree_load(), rg_mtree_find() and rg_mtree_find_after() read it as
 * NULL; the advanced API (rg_mas_*) returns it as itself. The kernel's
 * XA_ZERO_ENTRY, with the same value, which its code stores to reserve
 * space.
 */
#define RG_MT_ZERO_ENTRY ((void *)1030UL)

/**
 * rg_mt_is_zero() - tell whether an entry is the zero entry.
 * @entry: an entry.
 *
 * Context: any.
 * Return: true for RG_MT_ZERO_ENTRY.
 */
static inline bool rg_mt_is_zero(const void *entry)
{
	return entry == RG_MT_ZERO_ENTRY;
}

/**
 * rg_mt_is_reserved() - tell whether an entry is reserved for the tree.
 * @entry: an entry.
 *
 * Context: any.
 * Return: true for values below 4096 whose two low bits are 10, other than
 * RG_MT_ZERO_ENTRY (which callers may store).
 */
static inline bool rg_mt_is_reserved(const void *entry)
{
	unsigned long v = (unsigned long)entry;

	return (v & 3UL) == 2UL && v < 4096UL && !rg_mt_is_zero(entry);
}

/* ---- normal API ---- */

/**
 * rg_mtree_init() - initialise an empty tree.
 * @mt: the tree.
 * @flags: 0 or RG_MT_FLAGS_ALLOC_RANGE, RG_MT_FLAGS_USE_RCU,
 *         RG_MT_FLAGS_NO_VACANCY.
 *
 * Context: @mt must not be in use.
 * Return: 0, or -EINVAL for a NULL tree or unknown flags.
 */
RG_API int rg_mtree_init(struct rg_maple_tree *mt, unsigned int flags);

/**
 * rg_mtree_destroy() - free every node; the tree is left empty and usable.
 * @mt: the tree.
 *
 * In RCU mode the nodes are unlinked at once and freed after a grace period
 * (rg_mtree_rcu_barrier() waits for that); lock-free readers still inside
 * the tree keep reading valid, if stale, nodes.
 *
 * Context: takes the tree lock; the caller owns the entries. In RCU mode
 * not inside a read-side critical section: if the small batch that carries
 * the nodes to call_rcu() cannot be allocated, it waits for a grace period
 * and frees them at once.
 */
RG_API void rg_mtree_destroy(struct rg_maple_tree *mt);

/**
 * rg_mtree_load() - read the entry at an index.
 * @mt: the tree.
 * @index: the index.
 *
 * Context: takes the tree lock; in RCU mode takes urcu_memb_read_lock()
 * instead (the thread must be registered with liburcu).
 * Return: the entry, or NULL if no range holds @index (or it holds
 * RG_MT_ZERO_ENTRY).
 */
RG_API void *rg_mtree_load(struct rg_maple_tree *mt, unsigned long index);

/**
 * rg_mtree_store_range() - store an entry over a range, overwriting.
 * @mt: the tree.
 * @first: first index.
 * @last: last index (inclusive).
 * @entry: the entry; NULL erases the range.
 *
 * Whatever overlapped [@first, @last] is cut back or removed.
 *
 * Context: takes the tree lock; allocates.
 * Return: 0, -EINVAL if @first > @last or @entry is reserved, -ENOMEM (the
 * tree is unchanged).
 */
RG_API int rg_mtree_store_range(struct rg_maple_tree *mt, unsigned long first,
				unsigned long last, void *entry);

/**
 * rg_mtree_store() - store an entry at one index.
 * @mt: the tree.
 * @index: the index.
 * @entry: the entry; NULL erases.
 *
 * Context: takes the tree lock; allocates.
 * Return: 0, -EINVAL for a reserved entry, -ENOMEM.
 */
RG_API int rg_mtree_store(struct rg_maple_tree *mt, unsigned long index,
			  void *entry);

/**
 * rg_mtree_insert_range() - store an entry over a range that is empty.
 * @mt: the tree.
 * @first: first index.
 * @last: last index (inclusive).
 * @entry: the entry; NULL is accepted and stores nothing.
 *
 * Context: takes the tree lock; allocates.
 * Return: 0, -EEXIST if any index in the range holds an entry (nothing
 * changes), -EINVAL if @first > @last or @entry is reserved, -ENOMEM.
 */
RG_API int rg_mtree_insert_range(struct rg_maple_tree *mt, unsigned long first,
				 unsigned long last, void *entry);

/**
 * rg_mtree_insert() - store an entry at an empty index.
 * @mt: the tree.
 * @index: the index.
 * @entry: the entry.
 *
 * Context: takes the tree lock; allocates.
 * Return: 0, -EEXIST, -EINVAL for a reserved entry, -ENOMEM.
 */
RG_API int rg_mtree_insert(struct rg_maple_tree *mt, unsigned long index,
			   void *entry);

/**
 * rg_mtree_erase() - remove the whole range that holds an index.
 * @mt: the tree.
 * @index: any index of the range.
 *
 * Erasing never needs more nodes than the tree can spare: a failure to
 * obtain them leaves the tree unchanged and returns NULL (see
 * rg_mtree_erase_err() to tell the cases apart).
 *
 * Context: takes the tree lock; may allocate.
 * Return: the entry that was removed, or NULL if @index was empty.
 */
RG_API void *rg_mtree_erase(struct rg_maple_tree *mt, unsigned long index);

/**
 * rg_mtree_erase_err() - remove the range holding an index, with a status.
 * @mt: the tree.
 * @index: any index of the range.
 * @old: if not NULL, set to the removed entry (NULL if none).
 *
 * Context: takes the tree lock; may allocate.
 * Return: 0, or -ENOMEM with the tree unchanged.
 */
RG_API int rg_mtree_erase_err(struct rg_maple_tree *mt, unsigned long index,
			      void **old);

/**
 * rg_mtree_alloc_range() - store an entry in the lowest free window.
 * @mt: an allocation tree (RG_MT_FLAGS_ALLOC_RANGE).
 * @startp: set to the window's first index on success.
 * @entry: the entry (not NULL).
 * @size: number of indices, at least 1.
 * @min: lowest index the window may use.
 * @max: highest index the window may use.
 *
 * In RCU mode @entry is visible to lock-free readers before *@startp is set
 * and the call returns: store a placeholder and replace it with the finished
 * object, or find the window with rg_mas_empty_area() and store the object
 * under the tree lock (see "Publication in RCU mode" in
 * <region/maple_tree.h>).
 *
 * Context: takes the tree lock; allocates.
 * Return: 0; -EBUSY if no run of @size free indices fits in [@min, @max];
 * -EINVAL if the tree is not an allocation tree, @entry is NULL or reserved,
 * @size is 0, @min > @max or the window is smaller than @size; -ENOMEM.
 */
RG_API int rg_mtree_alloc_range(struct rg_maple_tree *mt, unsigned long *startp,
				void *entry, unsigned long size,
				unsigned long min, unsigned long max);

/**
 * rg_mtree_alloc_rrange() - store an entry in the highest free window.
 * @mt: an allocation tree.
 * @startp: set to the window's first index on success.
 * @entry: the entry (not NULL).
 * @size: number of indices, at least 1.
 * @min: lowest index the window may use.
 * @max: highest index the window may use.
 *
 * In RCU mode @entry is visible to readers before *@startp is set, as for
 * rg_mtree_alloc_range().
 *
 * Context: takes the tree lock; allocates.
 * Return: as rg_mtree_alloc_range().
 */
RG_API int rg_mtree_alloc_rrange(struct rg_maple_tree *mt,
				 unsigned long *startp, void *entry,
				 unsigned long size, unsigned long min,
				 unsigned long max);

/**
 * rg_mtree_alloc_range_aligned() - store an entry in the lowest free
 * window that starts at a multiple of @align.
 * @mt: an allocation tree (RG_MT_FLAGS_ALLOC_RANGE).
 * @startp: set to the window's first index on success.
 * @entry: the entry (not NULL).
 * @size: number of indices, at least 1.
 * @min: lowest index the window may use.
 * @max: highest index the window may use.
 * @align: a power of two; the window's first index is a multiple of it
 *         (1: rg_mtree_alloc_range()).
 *
 * A libregion extension (the kernel has no aligned form). The window is the
 * lowest one that fits: no free run below it holds @size indices starting
 * at a multiple of @align inside [@min, @max]. The search skips subtrees
 * whose largest free run is shorter than @size, as rg_mtree_alloc_range()
 * does; runs long enough for @size but not for an aligned start are looked
 * at and passed over. In RCU mode @entry is visible to readers before
 * *@startp is set, as for rg_mtree_alloc_range().
 *
 * Context: takes the tree lock; allocates.
 * Return: 0; -EBUSY if no aligned window of @size free indices fits in
 * [@min, @max]; -EINVAL if the tree is not an allocation tree, @startp or
 * @entry is NULL, @entry is reserved, @size is 0, @min > @max, the window
 * is smaller than @size, or @align is 0 or not a power of two; -ENOMEM
 * with the tree unchanged.
 */
RG_API int rg_mtree_alloc_range_aligned(struct rg_maple_tree *mt,
					unsigned long *startp, void *entry,
					unsigned long size, unsigned long min,
					unsigned long max, unsigned long align);

/**
 * rg_mtree_alloc_rrange_aligned() - store an entry in the highest free
 * window that starts at a multiple of @align.
 * @mt: an allocation tree (RG_MT_FLAGS_ALLOC_RANGE).
 * @startp: set to the window's first index on success.
 * @entry: the entry (not NULL).
 * @size: number of indices, at least 1.
 * @min: lowest index the window may use.
 * @max: highest index the window may use.
 * @align: a power of two; the window's first index is a multiple of it
 *         (1: rg_mtree_alloc_rrange()).
 *
 * A libregion extension: the highest window that fits, with the search of
 * rg_mtree_alloc_range_aligned() run from the top.
 *
 * Context: takes the tree lock; allocates.
 * Return: as rg_mtree_alloc_range_aligned().
 */
RG_API int rg_mtree_alloc_rrange_aligned(struct rg_maple_tree *mt,
					 unsigned long *startp, void *entry,
					 unsigned long size, unsigned long min,
					 unsigned long max,
					 unsigned long align);

/**
 * rg_mtree_alloc_cyclic() - store an entry at one free index, cyclically.
 * @mt: an allocation tree.
 * @startp: set to the index used.
 * @entry: the entry (not NULL).
 * @range_lo: lowest index allowed.
 * @range_hi: highest index allowed.
 * @next: in: where the search starts (values outside the range start it at
 *        @range_lo); out: the index after the one used (0 after ULONG_MAX).
 *
 * The search runs from *@next to @range_hi, then wraps to @range_lo. In RCU
 * mode @entry is visible to readers before *@startp is set, as for
 * rg_mtree_alloc_range().
 *
 * Context: takes the tree lock; allocates.
 * Return: 0 if allocated without wrapping, 1 if the search wrapped (or,
 * as in the kernel, the previous cyclic allocation took ULONG_MAX, so that
 * *@next wrapped to 0), -EBUSY
 * if the range is full, -EINVAL for a tree that is not an allocation tree,
 * a NULL or reserved entry or @range_lo > @range_hi, -ENOMEM.
 */
RG_API int rg_mtree_alloc_cyclic(struct rg_maple_tree *mt,
				 unsigned long *startp, void *entry,
				 unsigned long range_lo, unsigned long range_hi,
				 unsigned long *next);

/**
 * rg_mtree_find() - find the first entry at or after an index.
 * @mt: the tree.
 * @index: in: where to start; out: the index after the found range (0 if
 *         that range ends at ULONG_MAX). Unchanged if nothing is found.
 * @max: the search stops at ranges starting above @max.
 *
 * Context: takes the tree lock; in RCU mode urcu_memb_read_lock() instead.
 * Return: the entry, or NULL if none (zero entries are skipped).
 */
RG_API void *rg_mtree_find(struct rg_maple_tree *mt, unsigned long *index,
			   unsigned long max);

/**
 * rg_mtree_find_after() - continue a rg_mtree_find() iteration.
 * @mt: the tree.
 * @index: as left by the previous call.
 * @max: as for rg_mtree_find().
 *
 * Context: takes the tree lock; in RCU mode urcu_memb_read_lock() instead.
 * Return: the next entry, or NULL if none (also when the previous range
 * ended at ULONG_MAX, i.e. *@index is 0).
 */
RG_API void *rg_mtree_find_after(struct rg_maple_tree *mt, unsigned long *index,
				 unsigned long max);

/**
 * rg_mt_for_each() - loop over the entries from @index up to @max.
 * @mt: the tree.
 * @entry: a pointer lvalue: the current entry.
 * @index: an unsigned long lvalue: the first index to look at, then an
 *         index inside the current entry's range.
 * @max: the last index to look at.
 *
 * Each step is one rg_mtree_find() or rg_mtree_find_after(), so the body
 * may store and erase. After the loop @entry is NULL.
 *
 * Context: each step takes the tree lock (see rg_mtree_find()).
 */
#define rg_mt_for_each(mt, entry, index, max)                         \
	for ((entry) = rg_mtree_find((mt), &(index), (max)); (entry); \
	     (entry) = rg_mtree_find_after((mt), &(index), (max)))

/**
 * rg_mtree_height() - levels of nodes in the tree.
 * @mt: the tree.
 *
 * Context: lock-free read of one field.
 * Return: 0 for an empty tree or a lone root entry, else 1 or more.
 */
RG_API unsigned int rg_mtree_height(const struct rg_maple_tree *mt);

/**
 * rg_mtree_empty() - tell whether the tree holds no entry.
 * @mt: the tree.
 *
 * Context: lock-free read of one field.
 * Return: true if every index reads NULL.
 */
RG_API bool rg_mtree_empty(const struct rg_maple_tree *mt);

/**
 * rg_mtree_bytes() - memory the tree holds: nodes x 256 + the tree itself.
 * @mt: the tree.
 *
 * Context: lock-free read.
 * Return: bytes, counted (never estimated).
 */
RG_API size_t rg_mtree_bytes(const struct rg_maple_tree *mt);

/**
 * rg_mtree_get_stats() - read the tree's write statistics.
 * @mt: the tree.
 * @st: filled in.
 *
 * Context: takes the tree lock.
 * Return: 0, or -EINVAL for NULL arguments.
 */
RG_API int rg_mtree_get_stats(struct rg_maple_tree *mt,
			      struct rg_mtree_stats *st);

/**
 * rg_mtree_reset_stats() - zero the counters of rg_mtree_get_stats().
 * @mt: the tree.
 *
 * @nodes and @height are not counters and are kept.
 *
 * Context: takes the tree lock.
 */
RG_API void rg_mtree_reset_stats(struct rg_maple_tree *mt);

/**
 * rg_mtree_set_vacancy() - switch vacancy tracking on or off.
 * @mt: the tree.
 * @on: true (the default): preallocate by vacant and sufficient height;
 *      false: by height only (sets RG_MT_FLAGS_NO_VACANCY).
 *
 * Context: takes the tree lock.
 */
RG_API void rg_mtree_set_vacancy(struct rg_maple_tree *mt, bool on);

/**
 * rg_mtree_set_rcu() - switch RCU mode on: readers may go lock-free.
 * @mt: the tree (NULL is ignored).
 *
 * Sets RG_MT_FLAGS_USE_RCU (kernel: mt_set_in_rcu()). From now on writers
 * replace nodes instead of editing them and free them after a grace period.
 *
 * Context: takes the tree lock.
 */
RG_API void rg_mtree_set_rcu(struct rg_maple_tree *mt);

/**
 * rg_mtree_clear_rcu() - switch RCU mode off: writers edit nodes in place.
 * @mt: the tree (NULL is ignored).
 *
 * Clears RG_MT_FLAGS_USE_RCU (kernel: mt_clear_in_rcu()) and waits for a
 * grace period, so no lock-free reader that started in RCU mode is still
 * walking when the next writer edits a node in place. Until the grace
 * period has passed, writers still replace nodes and readers of the
 * advanced API that began in RCU mode keep their lock-free walk, so a read
 * in progress stays correct whatever it was doing when the mode changed.
 * The wait does not hold the tree lock: writers, and normal-API readers
 * (which take the lock once the flag is clear), go on meanwhile. Afterwards
 * readers take the tree lock (the normal API does so by itself). Nodes
 * retired in RCU mode are still freed by their callbacks.
 *
 * Context: takes the tree lock twice, not across the wait; may sleep for a
 * grace period; the caller must not be in an RCU read-side critical
 * section.
 */
RG_API void rg_mtree_clear_rcu(struct rg_maple_tree *mt);

/**
 * rg_mtree_in_rcu() - tell whether the tree is in RCU mode.
 * @mt: the tree.
 *
 * Context: lock-free read of the flags.
 * Return: true if RG_MT_FLAGS_USE_RCU is set (false for NULL).
 */
RG_API bool rg_mtree_in_rcu(const struct rg_maple_tree *mt);

/**
 * rg_mtree_rcu_barrier() - wait until every deferred node free has run.
 *
 * Nodes that RCU-mode stores and destroys retired go back to the node
 * cache in call_rcu() callbacks; after this call they all have (for every
 * tree). It is liburcu's urcu_memb_barrier(), so every callback the caller
 * queued with urcu_memb_call_rcu() before the call has run as well (freeing
 * replaced entries, for one). Tests call it before comparing
 * rg_mtree_node_stats().
 *
 * ThreadSanitizer builds of libregion annotate the ordering liburcu's
 * grace periods give (liburcu itself is not instrumented), here and for
 * every deferred free, so no suppression is needed.
 *
 * Context: may sleep; not inside an RCU read-side critical section nor
 * from a call_rcu() callback (liburcu's rcu_barrier() rules).
 */
RG_API void rg_mtree_rcu_barrier(void);

/**
 * rg_mtree_lock() - take the tree's lock (for the advanced API).
 * @mt: the tree.
 *
 * Context: not recursive.
 */
RG_API void rg_mtree_lock(struct rg_maple_tree *mt);

/**
 * rg_mtree_unlock() - release the tree's lock.
 * @mt: the tree.
 *
 * Context: the caller holds the lock.
 */
RG_API void rg_mtree_unlock(struct rg_maple_tree *mt);

/**
 * rg_mtree_validate() - check every invariant of the tree.
 * @mt: the tree.
 * @reason: if not NULL, set to a static description of the first violation.
 *
 * Checks pivot order and bounds, unused pivots, node occupancy (at least 6
 * entries in 16-slot nodes and 4 in 10-slot nodes, except the root), no two
 * adjacent empty ranges, no reserved entries, every stored gap equal to the
 * true largest empty run below it, parent links and slots, that every leaf
 * is at the tree's height, and the node count.
 *
 * Context: takes the tree lock; O(n).
 * Return: 0, or -EINVAL with @reason set.
 */
RG_API int rg_mtree_validate(struct rg_maple_tree *mt, const char **reason);

/**
 * rg_mtree_dump() - print the tree, one node per line.
 * @mt: the tree.
 * @f: the stream.
 *
 * Context: takes the tree lock.
 */
RG_API void rg_mtree_dump(struct rg_maple_tree *mt, FILE *f);

/**
 * rg_mtree_validate_locked() - rg_mtree_validate() for a caller that
 * already keeps writers out.
 * @mt: the tree.
 * @reason: if not NULL, set to a static description of the first violation.
 *
 * The kernel's mt_validate() runs under whatever the caller holds (the tree
 * lock, or nothing while no other thread writes), and kernel code validates
 * in the middle of locked sections; mt_validate() in <region/linux.h> calls
 * this.
 *
 * Context: the caller holds the tree lock, or no other thread writes to
 * the tree; O(n).
 * Return: 0, or -EINVAL with @reason set (also for a NULL @mt).
 */
RG_API int rg_mtree_validate_locked(struct rg_maple_tree *mt,
				    const char **reason);

/**
 * rg_mtree_dump_locked() - rg_mtree_dump() for a caller that already keeps
 * writers out.
 * @mt: the tree.
 * @f: the stream.
 *
 * mt_dump() in <region/linux.h> calls this, as the kernel's runs under the
 * caller's lock. Does nothing if @mt or @f is NULL.
 *
 * Context: the caller holds the tree lock, or no other thread writes to
 * the tree.
 */
RG_API void rg_mtree_dump_locked(struct rg_maple_tree *mt, FILE *f);

/**
 * rg_mtree_node_stats() - statistics of the process-wide node cache.
 * @st: filled in (all zero if no node was ever allocated).
 *
 * Tests use objects_in_use to check that every node came back.
 *
 * Context: any thread.
 * Return: 0, or -EINVAL for NULL.
 */
RG_API int rg_mtree_node_stats(struct rg_slab_stats *st);

/* ---- advanced API ---- */

/**
 * enum rg_mas_status - where an rg_ma_state stands.
 * @RG_MAS_START: nothing cached; the next call walks from the root.
 * @RG_MAS_ACTIVE: positioned on the range index..last (after a walk, a step,
 *                 or a store or erase through the state: the range written).
 * @RG_MAS_PAUSE: paused (rg_mas_pause()); iteration resumes after last
 *                (forward) or before index (backward).
 * @RG_MAS_OVERFLOW: a forward step found nothing up to its limit. The state
 *                   stands where the step stopped: on the current range if
 *                   that already reached the limit, else on the empty range
 *                   that did (after the last entry: the empty tail up to
 *                   ULONG_MAX). A backward step from here starts with the
 *                   range at index.
 * @RG_MAS_UNDERFLOW: the same going backwards (before the first entry: the
 *                    empty range from 0).
 * @RG_MAS_ERROR: a store failed; @error holds the negative errno.
 *
 * The transitions are the kernel's (its ma_active, ma_start, ma_pause,
 * ma_overflow, ma_underflow and ma_error), so loops written against the
 * kernel's mas_find(), mas_next() and mas_prev() run the same here.
 */
enum rg_mas_status {
	RG_MAS_START = 0,
	RG_MAS_ACTIVE,
	RG_MAS_PAUSE,
	RG_MAS_OVERFLOW,
	RG_MAS_UNDERFLOW,
	RG_MAS_ERROR
};

/**
 * struct rg_ma_state - caller-owned cursor of the advanced API.
 * @tree: the tree.
 * @index: first index of the current range (or of the store).
 * @last: last index of the current range (or of the store).
 * @node: private: the leaf the cursor is on.
 * @min: private: first index of that leaf.
 * @max: private: last index of that leaf.
 * @sheaf: private: nodes preallocated by rg_mas_preallocate().
 * @alloc_req: private: nodes requested by that preallocation.
 * @offset: private: slot in @node.
 * @status: enum rg_mas_status.
 * @error: negative errno when @status is RG_MAS_ERROR.
 * @reserved: private.
 *
 * Declare with RG_MA_STATE(); move with rg_mas_set(), rg_mas_set_range(),
 * rg_mas_reset().
 */
struct rg_ma_state {
	struct rg_maple_tree *tree;
	unsigned long index;
	unsigned long last;
	void *node;
	unsigned long min;
	unsigned long max;
	struct rg_slab_sheaf *sheaf;
	unsigned int alloc_req;
	unsigned char offset;
	unsigned char status;
	short error;
	unsigned long reserved[2];
};

/**
 * RG_MA_STATE() - declare an advanced-API state on a tree.
 * @name: the struct rg_ma_state variable's name.
 * @mt: the tree.
 * @first: the first index of the range the state is set to.
 * @last: its last index.
 *
 * The state is not walked yet: the next rg_mas_* call starts at the root.
 *
 * Context: any; a definition (the calls on it need the tree lock).
 */
#define RG_MA_STATE(name, mt, first, last)                             \
	struct rg_ma_state name = { (mt), (first), (last), NULL, 0, 0, \
				    NULL, 0,	   0,	   0,	 0, { 0, 0 } }

/**
 * rg_mas_walk() - read the range that holds mas->index.
 * @mas: the state.
 *
 * Sets mas->index and mas->last to the range holding the index, empty or
 * not.
 *
 * Context: the tree lock, or in RCU mode urcu_memb_read_lock(), held.
 * Return: the entry, or NULL if the range is empty.
 */
RG_API void *rg_mas_walk(struct rg_ma_state *mas);

/**
 * rg_mas_find() - first entry at or after mas->index, then the next ones.
 * @mas: the state.
 * @max: ranges starting above @max are not returned.
 *
 * On the first call (or after rg_mas_set(), rg_mas_reset()) returns the
 * entry holding mas->index if any, else the next entry; later calls (and
 * the first one after a store or erase through the state, which leaves it
 * on the range written) return the entry after the current range, or NULL
 * at once if that range already reaches @max. mas->index and mas->last are
 * set to the range found. The state never overflows: a later call with a
 * larger @max continues from the last range examined.
 *
 * Context: the tree lock, or in RCU mode urcu_memb_read_lock(), held.
 * Return: the entry, or NULL (status RG_MAS_ACTIVE, on the range where the
 * search stopped).
 */
RG_API void *rg_mas_find(struct rg_ma_state *mas, unsigned long max);

/**
 * rg_mas_find_range() - as rg_mas_find(), but empty ranges count too.
 * @mas: the state.
 * @max: ranges starting above @max are not returned.
 *
 * On the first call (or after rg_mas_set(), rg_mas_reset()) returns the
 * range holding mas->index, empty or not; later calls return the range
 * after the current one. mas->index and mas->last are set to the range
 * found. As in the kernel, an empty range that starts below @max and
 * reaches it ends the iteration where it stands: NULL with status
 * RG_MAS_OVERFLOW; a call on a state whose range already reaches @max
 * returns NULL and leaves the state where it is, as rg_mas_find() does.
 * From RG_MAS_OVERFLOW a call with a larger @max returns the entry at
 * mas->index if there is one, else the range after that one.
 *
 * Context: the tree lock, or in RCU mode urcu_memb_read_lock(), held.
 * Return: the entry of the range (NULL for an empty range); at the end NULL
 * with status RG_MAS_OVERFLOW, as DESCRIPTION says.
 */
RG_API void *rg_mas_find_range(struct rg_ma_state *mas, unsigned long max);

/**
 * rg_mas_find_rev() - last entry at or before mas->index, then earlier ones.
 * @mas: the state.
 * @min: ranges ending below @min are not returned.
 *
 * On the first call returns the entry holding mas->index if any, else the
 * previous entry; later calls return the entry before the current range.
 *
 * Context: the tree lock, or in RCU mode urcu_memb_read_lock(), held.
 * Return: the entry, or NULL (status RG_MAS_UNDERFLOW; RG_MAS_ACTIVE if the
 * range reached first starts below @min).
 */
RG_API void *rg_mas_find_rev(struct rg_ma_state *mas, unsigned long min);

/**
 * rg_mas_next() - the entry after the current range.
 * @mas: the state (from RG_MAS_START: after the range holding mas->index).
 * @max: ranges starting above @max are not returned.
 *
 * Context: the tree lock, or in RCU mode urcu_memb_read_lock(), held.
 * Return: the entry, or NULL (status RG_MAS_OVERFLOW, standing as described
 * at enum rg_mas_status).
 */
RG_API void *rg_mas_next(struct rg_ma_state *mas, unsigned long max);

/**
 * rg_mas_next_range() - the range after the current one, empty or not.
 * @mas: the state.
 * @max: ranges starting above @max are not returned.
 *
 * Context: the tree lock, or in RCU mode urcu_memb_read_lock(), held.
 * Return: its entry (NULL if empty); at the end NULL with RG_MAS_OVERFLOW.
 */
RG_API void *rg_mas_next_range(struct rg_ma_state *mas, unsigned long max);

/**
 * rg_mas_prev() - the entry before the current range.
 * @mas: the state (from RG_MAS_START: before the range holding mas->index).
 * @min: ranges ending below @min are not returned.
 *
 * Context: the tree lock, or in RCU mode urcu_memb_read_lock(), held.
 * Return: the entry, or NULL (status RG_MAS_UNDERFLOW, standing as described
 * at enum rg_mas_status).
 */
RG_API void *rg_mas_prev(struct rg_ma_state *mas, unsigned long min);

/**
 * rg_mas_prev_range() - the range before the current one, empty or not.
 * @mas: the state.
 * @min: ranges ending below @min are not returned.
 *
 * Context: the tree lock, or in RCU mode urcu_memb_read_lock(), held.
 * Return: its entry (NULL if empty); at the end NULL with RG_MAS_UNDERFLOW.
 */
RG_API void *rg_mas_prev_range(struct rg_ma_state *mas, unsigned long min);

/**
 * rg_mas_for_each() - loop over the entries from the state's index to @max.
 * @mas: the state (struct rg_ma_state).
 * @entry: a pointer lvalue: the current entry.
 * @max: the last index to look at.
 *
 * Each step is one rg_mas_find(); the state then covers the entry's range.
 *
 * Context: the tree lock, or in RCU mode urcu_memb_read_lock(), held for
 * the whole loop.
 */
#define rg_mas_for_each(mas, entry, max) \
	while (((entry) = rg_mas_find((mas), (max))) != NULL)

/**
 * rg_mas_store() - store an entry over [mas->index, mas->last].
 * @mas: the state.
 * @entry: the entry; NULL erases.
 *
 * Uses nodes from rg_mas_preallocate() if any, else allocates. Afterwards
 * the state stands on the range written (RG_MAS_ACTIVE), so an iteration
 * that stores as it goes continues after that range.
 *
 * Context: the caller holds the tree lock.
 * Return: the entry that held mas->index before the store (NULL if that
 * index was empty, even when the store overwrote entries further on), as
 * the kernel's mas_store(); on failure NULL with status RG_MAS_ERROR and
 * mas->error -ENOMEM or -EINVAL.
 */
RG_API void *rg_mas_store(struct rg_ma_state *mas, void *entry);

/**
 * rg_mas_store_gfp() - store an entry over [mas->index, mas->last].
 * @mas: the state.
 * @entry: the entry; NULL erases.
 * @gfp: accepted and ignored.
 *
 * Context: the caller holds the tree lock.
 * Return: 0, -EINVAL (reserved entry or index > last), -ENOMEM (tree
 * unchanged).
 */
RG_API int rg_mas_store_gfp(struct rg_ma_state *mas, void *entry,
			    unsigned int gfp);

/**
 * rg_mas_erase() - remove the range holding mas->index.
 * @mas: the state; index and last are set to the removed range.
 *
 * Context: the caller holds the tree lock.
 * Return: the removed entry, or NULL (nothing there, or -ENOMEM: status
 * RG_MAS_ERROR).
 */
RG_API void *rg_mas_erase(struct rg_ma_state *mas);

/**
 * rg_mas_empty_area() - find the lowest free window.
 * @mas: the state; on success index and last are set to the window.
 * @min: lowest index of the window.
 * @max: highest index of the window.
 * @size: indices wanted, at least 1.
 *
 * Works on any tree; allocation trees skip full subtrees through their gaps.
 *
 * Context: the caller holds the tree lock.
 * Return: 0, -EBUSY if nothing fits, -EINVAL for size 0, @min > @max or a
 * window smaller than @size.
 */
RG_API int rg_mas_empty_area(struct rg_ma_state *mas, unsigned long min,
			     unsigned long max, unsigned long size);

/**
 * rg_mas_empty_area_rev() - find the highest free window.
 * @mas: the state; on success index and last are set to the window.
 * @min: lowest index of the window.
 * @max: highest index of the window.
 * @size: indices wanted, at least 1.
 *
 * Context: the caller holds the tree lock.
 * Return: as rg_mas_empty_area().
 */
RG_API int rg_mas_empty_area_rev(struct rg_ma_state *mas, unsigned long min,
				 unsigned long max, unsigned long size);

/**
 * rg_mas_empty_area_aligned() - find the lowest free window that starts at
 * a multiple of @align.
 * @mas: the state; on success index and last are set to the window.
 * @min: lowest index of the window.
 * @max: highest index of the window.
 * @size: indices wanted, at least 1.
 * @align: a power of two; mas->index will be a multiple of it (1:
 *         rg_mas_empty_area()).
 *
 * A libregion extension (the kernel has no aligned form). Works on any
 * tree; allocation trees skip subtrees whose largest free run is shorter
 * than @size. The state is unchanged on failure.
 *
 * Context: the caller holds the tree lock.
 * Return: 0, -EBUSY if no aligned window fits, -EINVAL for a NULL state,
 * size 0, @min > @max, a window smaller than @size, or @align 0 or not a
 * power of two.
 */
RG_API int rg_mas_empty_area_aligned(struct rg_ma_state *mas, unsigned long min,
				     unsigned long max, unsigned long size,
				     unsigned long align);

/**
 * rg_mas_empty_area_rev_aligned() - find the highest free window that
 * starts at a multiple of @align.
 * @mas: the state; on success index and last are set to the window.
 * @min: lowest index of the window.
 * @max: highest index of the window.
 * @size: indices wanted, at least 1.
 * @align: a power of two; mas->index will be a multiple of it (1:
 *         rg_mas_empty_area_rev()).
 *
 * Context: the caller holds the tree lock.
 * Return: as rg_mas_empty_area_aligned().
 */
RG_API int rg_mas_empty_area_rev_aligned(struct rg_ma_state *mas,
					 unsigned long min, unsigned long max,
					 unsigned long size,
					 unsigned long align);

/**
 * rg_mas_alloc_cyclic() - rg_mtree_alloc_cyclic() under the caller's lock.
 * @mas: the state; on success positioned on the unit allocated.
 * @startp: receives the index allocated.
 * @entry: the entry to store; not NULL, not reserved.
 * @range_lo: lowest index to allocate.
 * @range_hi: highest index to allocate.
 * @next: where the search starts (updated to the index after the one
 *        allocated); outside [@range_lo, @range_hi] it starts at @range_lo.
 *
 * The lowest free index at or after *@next, else (wrapping once) the
 * lowest one from @range_lo.
 *
 * Context: the caller holds the tree lock (or its external lock); may
 * allocate nodes.
 * Return: 0, or 1 if the search wrapped (or the previous cyclic allocation
 * took ULONG_MAX); -EBUSY if no index in the range is
 * free; -EINVAL if the tree is not an allocation tree, an argument is NULL,
 * @entry is NULL or reserved, or @range_lo > @range_hi; -ENOMEM. On error
 * the tree is unchanged and the state is in RG_MAS_ERROR.
 */
RG_API int rg_mas_alloc_cyclic(struct rg_ma_state *mas, unsigned long *startp,
			       void *entry, unsigned long range_lo,
			       unsigned long range_hi, unsigned long *next);

/**
 * rg_mas_pause() - let the caller drop the lock in the middle of iteration.
 * @mas: the state.
 *
 * Whatever the state stood in, the next call walks again: forward calls
 * resume after mas->last, backward ones before mas->index.
 *
 * Context: any.
 */
RG_API void rg_mas_pause(struct rg_ma_state *mas);

/**
 * rg_mas_reset() - forget the cached position; the next call walks again.
 * @mas: the state.
 *
 * Context: any.
 */
RG_API void rg_mas_reset(struct rg_ma_state *mas);

/**
 * rg_mas_set() - move the state to one index (and reset it).
 * @mas: the state.
 * @index: the index.
 *
 * Context: any.
 */
RG_API void rg_mas_set(struct rg_ma_state *mas, unsigned long index);

/**
 * rg_mas_set_range() - move the state to a range (and reset it).
 * @mas: the state.
 * @first: first index.
 * @last: last index.
 *
 * Context: any.
 */
RG_API void rg_mas_set_range(struct rg_ma_state *mas, unsigned long first,
			     unsigned long last);

/**
 * rg_mas_preallocate() - reserve the worst-case nodes for a store.
 * @mas: the state, set to the range the store will write.
 * @entry: the entry that will be stored (NULL matters: it merges ranges).
 * @gfp: accepted and ignored.
 *
 * Classifies the store and takes exactly its worst-case node count into a
 * prefilled slab sheaf held by @mas. The tree must not change before
 * rg_mas_store_prealloc() except through this state.
 *
 * Context: the caller holds the tree lock.
 * Return: 0, -EINVAL (reserved entry or index > last), -ENOMEM (nothing
 * reserved).
 */
RG_API int rg_mas_preallocate(struct rg_ma_state *mas, void *entry,
			      unsigned int gfp);

/**
 * rg_mas_store_prealloc() - store using only preallocated nodes.
 * @mas: the state after a successful rg_mas_preallocate() for @entry.
 * @entry: the entry.
 *
 * Unused nodes go back to the slab cache (as rg_mas_destroy()).
 *
 * Context: the caller holds the tree lock. Cannot fail.
 */
RG_API void rg_mas_store_prealloc(struct rg_ma_state *mas, void *entry);

/**
 * rg_mas_destroy() - give back nodes preallocated and not used.
 * @mas: the state.
 *
 * Context: any; no tree lock needed.
 */
RG_API void rg_mas_destroy(struct rg_ma_state *mas);

#ifdef __cplusplus
}
#endif
#endif /* REGION_MAPLE_TREE_H */
