/* SPDX-License-Identifier: MIT */
/*
 * xarray: nodes, entries, walks, store and erase (xa_node.c); the walks
 * and the store and erase of one slot, inlined into their callers.
 */
#ifndef RG_XA_NODE_H
#define RG_XA_NODE_H

#if defined(__SANITIZE_THREAD__)
#define XA_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define XA_TSAN 1
#endif
#endif
/*
 * liburcu's read lock, inlined: its static functions are written to be
 * used so from code under any licence (their comments say so). Not under
 * TSan, which would instrument liburcu's own plain-word protocol: there
 * the library's functions are called.
 */
#ifndef XA_TSAN
#define _LGPL_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <urcu/urcu-memb.h>
#ifdef XA_TSAN
#include <urcu/static/urcu-memb.h> /* the registered flag */
#endif

#include "region/slab.h"
#include "region/xarray.h"
#include "rg_internal.h"

/* Filter for rgi_xa_seek(): free indices (slots with the free mark, empty
 * slots of interior nodes, and indices beyond the tree). */
#define XA_FILTER_FREE 16U

/* Reservation entry: reads as NULL, occupies the index. */
#define XA_ZERO RG_XA_ZERO_ENTRY
/* Filter bit for rgi_xa_seek(): also stop at reservations. */
#define XA_FILTER_RAW 32U

/*
 * struct rg_xa_node - one 64-slot node (opaque in <region/xarray.h>).
 * @shift: bits of index below this node's slots (0 for a leaf).
 * @offset: slot of this node in its parent.
 * @count: slots in use (the bits of @used), as the kernel's nodes count.
 * @nr_values: slots holding value entries, sibling slots of a multi-index
 *             value entry included (the kernel's count of them).
 * @parent: parent node, NULL for the top node.
 * @used: bit n set iff slots[n] is not NULL.
 * @marks: per mark, bit n set iff the entry in slot n (leaf) or some entry
 *         below slot n (interior) has the mark; for the free mark of an
 *         allocating array, iff slot n has a free index below it.
 * @slots: entries (leaf) or tagged child nodes (interior).
 */
struct rg_xa_node {
	unsigned char shift;
	unsigned char offset;
	unsigned char count;
	unsigned char nr_values;
	union {
		struct {
			struct rg_xa_node *parent;
			uint64_t used;
		};
		/* A node waiting for its grace period: lock-free readers
		 * read only @shift and @slots, so this takes the place of
		 * the two fields they never read. */
		struct rcu_head rcu;
	};
	uint64_t marks[RG_XA_MARK_MAX + 1];
	void *slots[RG_XA_CHUNK_SIZE];
};

/*
 * struct xa_cursor - where rgi_xa_seek() stopped.
 * @node: the leaf holding @slot, or NULL when @slot is the array's head or
 *        when no slot exists yet for @index.
 * @slot: the slot of @index, or NULL if storing there needs new nodes.
 * @index: the index found.
 */
struct xa_cursor {
	struct rg_xa_node *node;
	void **slot;
	unsigned long index;
};

static inline void xa_mutex_lock(struct rg_xarray *xa)
{
	pthread_mutex_lock(&xa->lock);
}

static inline void xa_mutex_unlock(struct rg_xarray *xa)
{
	pthread_mutex_unlock(&xa->lock);
}

/*
 * The read calls: take the lock unless this thread holds it through
 * rg_xa_lock() (as kernel code reads under xa_lock). True if taken.
 */
static inline bool xa_read_lock(struct rg_xarray *xa)
{
	unsigned long owner = __atomic_load_n(&xa->owner, __ATOMIC_RELAXED);

	if (owner && owner == (unsigned long)pthread_self())
		return false;
	pthread_mutex_lock(&xa->lock);
	return true;
}

static inline void xa_read_unlock(struct rg_xarray *xa, bool taken)
{
	if (taken)
		pthread_mutex_unlock(&xa->lock);
}

/* ---- lock-free readers (RCU) ---- */

/*
 * Words a lock-free reader loads: the head, node slots and the flags.
 * Writers (under the lock) store them with release, so a node or entry a
 * reader finds is complete; readers load them with acquire. A node's
 * shift never changes while it is reachable.
 */
static inline void *xa_slot_get(void *const *slot)
{
	return __atomic_load_n((void **)slot, __ATOMIC_ACQUIRE);
}

static inline void xa_slot_set(void **slot, void *e)
{
	__atomic_store_n(slot, e, __ATOMIC_RELEASE);
}

static inline void xa_flags_or(struct rg_xarray *xa, unsigned int f)
{
	__atomic_or_fetch(&xa->flags, f, __ATOMIC_RELEASE);
}

static inline void xa_flags_clear(struct rg_xarray *xa, unsigned int f)
{
	__atomic_and_fetch(&xa->flags, ~f, __ATOMIC_RELEASE);
}

/* Is this thread registered with liburcu (memb), so it may read lock-free? */
static inline bool xa_rcu_thread(void)
{
	return URCU_TLS(urcu_memb_reader).registered;
}

/*
 * ThreadSanitizer cannot see liburcu's grace periods (the library is not
 * instrumented): every lock-free read ends with a release on rgi_xa_gp_sync
 * and every deferred free starts with an acquire on it and on the node,
 * which the writer released before call_rcu().
 */
#ifdef XA_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
RGI_HIDDEN extern char rgi_xa_gp_sync;
#define xa_tsan_acquire(p) __tsan_acquire(p)
#define xa_tsan_release(p) __tsan_release(p)
#else
#define xa_tsan_acquire(p) ((void)(p))
#define xa_tsan_release(p) ((void)(p))
#endif

static inline void xa_rcu_read_done(void)
{
#ifdef XA_TSAN
	xa_tsan_release(&rgi_xa_gp_sync);
#endif
}

#define XA_BITS ((unsigned int)(sizeof(unsigned long) * CHAR_BIT))
#define XA_SLOT_MASK (RG_XA_CHUNK_SIZE - 1)
#define XA_NR_MARKS (RG_XA_MARK_MAX + 1)
#define XA_FREE_BIT (1u << RG_XA_FREE_MARK)
/* Head-direct entry + growth to the top + a full path below it. */
#define XA_MAX_NEW_NODES (2 * (XA_BITS / RG_XA_CHUNK_SHIFT + 1) + 1)

/* ---- the node cache ---- */

/*
 * With ASan, a node is poisoned from its free until the cache hands it out
 * again, so a reader that follows a freed node is caught.
 */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define XA_POISON(n) ASAN_POISON_MEMORY_REGION((n), sizeof(struct rg_xa_node))
#define XA_UNPOISON(n) \
	ASAN_UNPOISON_MEMORY_REGION((n), sizeof(struct rg_xa_node))
#else
#define XA_POISON(n) ((void)(n))
#define XA_UNPOISON(n) ((void)(n))
#endif

/* ---- entry helpers ---- */

static inline bool xa_is_internal(const void *e)
{
	return ((uintptr_t)e & 3) == 2;
}

static inline bool xa_is_node(const void *e)
{
	return xa_is_internal(e) && (uintptr_t)e > 4096;
}

/*
 * The internal entries no caller may store: those up to 4096, the array's
 * own (RG_XA_ZERO_ENTRY, RG_XA_RETRY_ENTRY and room for more). Above that
 * a pointer with the low bits 10 is stored like any other (in a leaf: the
 * head never holds one, where it would read as the top node).
 */
static inline bool xa_is_advanced(const void *e)
{
	return rg_xa_is_reserved_entry(e);
}

static inline struct rg_xa_node *xa_to_node(const void *e)
{
	return (struct rg_xa_node *)((uintptr_t)e - 2);
}

static inline void *xa_mk_node(const struct rg_xa_node *n)
{
	return (void *)((uintptr_t)n | 2);
}

/*
 * Sibling entries: the slots of a multi-index entry after its first one
 * (the canonical slot) hold an internal entry naming that slot.
 */
static inline void *xa_mk_sibling(unsigned int off)
{
	return rg_xa_mk_internal(off);
}

static inline bool xa_is_sibling(const void *e)
{
	return rg_xa_is_sibling(e);
}

static inline unsigned int xa_sibling_offset(const void *e)
{
	return (unsigned int)rg_xa_to_internal(e);
}

/* An entry rather than a child: any non-NULL slot of a leaf, or a
 * non-node slot of an interior node (a multi-index entry). */
static inline bool xa_slot_is_entry(unsigned int shift, const void *e)
{
	return e && (!shift || !xa_is_node(e));
}

/* Slots the entry in canonical slot @c of @node spans (1 + siblings). */
static inline unsigned int xa_span(const struct rg_xa_node *node,
				   unsigned int c)
{
	const void *sib = xa_mk_sibling(c);
	unsigned int n = 1;

	while (c + n < RG_XA_CHUNK_SIZE && node->slots[c + n] == sib)
		n++;
	return n;
}

/* Bits [off, off + n) of a slot mask. */
static inline uint64_t xa_range_mask(unsigned int off, unsigned int n)
{
	return (n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1)) << off;
}

/* Recount @node's slots in use and value slots (after a bulk change). */

static inline void *xa_zero_to_null(void *e)
{
	return e == XA_ZERO ? NULL : e;
}

static inline bool xa_track_free(const struct rg_xarray *xa)
{
	return xa->flags & RG_XA_FLAGS_ALLOC;
}

static inline uint64_t xa_bit(unsigned int n)
{
	return (uint64_t)1 << n;
}

/* Highest index a top node of this shift covers. */
static inline unsigned long xa_node_max(unsigned int shift)
{
	unsigned int span = shift + RG_XA_CHUNK_SHIFT;

	return span >= XA_BITS ? ULONG_MAX : (1UL << span) - 1;
}

/* @i with slot @b of a node of this shift chosen and lower bits cleared. */
static inline unsigned long xa_slot_base(unsigned long i, unsigned int shift,
					 unsigned int b)
{
	unsigned int span = shift + RG_XA_CHUNK_SHIFT;
	unsigned long hi = span >= XA_BITS ? 0 : (i >> span) << span;

	return hi | ((unsigned long)b << shift);
}

/* Slots of a node of this shift that lie inside the index space. */
static inline uint64_t xa_slots_mask(unsigned int shift)
{
	unsigned int span = shift + RG_XA_CHUNK_SHIFT;

	if (span <= XA_BITS)
		return ~(uint64_t)0;
	/* The top node of a full tree: only 2^(BITS - shift) slots. */
	return ((uint64_t)1 << (1u << (XA_BITS - shift))) - 1;
}

static inline unsigned int xa_offset(unsigned long i, unsigned int shift)
{
	return (unsigned int)(i >> shift) & XA_SLOT_MASK;
}

/* Smallest shift of a top node covering @index. */

static inline struct rg_xa_node *xa_root(const struct rg_xarray *xa)
{
	return xa_is_node(xa->head) ? xa_to_node(xa->head) : NULL;
}

/* @index lies beyond what top node @root covers (its shift is below 64). */
static inline bool xa_beyond(const struct rg_xa_node *root, unsigned long index)
{
	return (index >> root->shift) > XA_SLOT_MASK;
}

/*
 * The array may hold an entry of order > 0 (RG_XA_FLAGS_MULTI): without
 * one, interior slots hold only nodes and no slot holds a sibling, so a
 * walk takes any non-NULL interior slot for a child.
 */
static inline bool xa_may_hold_multi(const struct rg_xarray *xa)
{
	return xa->flags & RG_XA_FLAGS_MULTI;
}

/* ---- marks ---- */

/* Set or clear bit @off of mark @m in @node and fix the ancestors. */

/* Give mark @m of @node the bits @v and fix the ancestors. */

static inline uint64_t xa_filter_mask(const struct rg_xa_node *n,
				      unsigned int filter)
{
	if (filter == RG_XA_PRESENT)
		return n->used;
	if (filter == XA_FILTER_FREE)
		return n->marks[RG_XA_FREE_MARK];
	return n->marks[filter];
}

/* ---- node allocation ---- */

struct xa_prealloc {
	unsigned int n, used;
	void *nodes[XA_MAX_NEW_NODES];
};

RGI_HIDDEN RGI_NOINLINE void rgi_xa_rcu_enable(struct rg_xarray *xa);

RGI_HIDDEN struct rg_slab_cache *rgi_xa_node_cache(void);

RGI_HIDDEN void rgi_xa_node_put(struct rg_xa_node *n);

RGI_HIDDEN unsigned int rgi_xa_values_in(const struct rg_xa_node *node,
					 unsigned int off, unsigned int n);

RGI_HIDDEN void rgi_xa_node_recount(struct rg_xa_node *node);

RGI_HIDDEN unsigned int rgi_xa_shift_for(unsigned long index);

RGI_HIDDEN void rgi_xa_mark_update(struct rg_xa_node *node, unsigned int off,
				   unsigned int m, bool set);

RGI_HIDDEN void rgi_xa_mark_assign(struct rg_xa_node *node, unsigned int m,
				   uint64_t v);

RGI_HIDDEN int rgi_xa_prealloc(struct xa_prealloc *pre, unsigned int n,
			       struct rg_xa_state *xas);

RGI_HIDDEN struct rg_xa_node *rgi_xa_node_take(struct rg_xarray *xa,
					       struct xa_prealloc *pre,
					       unsigned int shift,
					       struct rg_xa_node *parent,
					       unsigned int offset);

RGI_HIDDEN struct rg_xa_node *
rgi_xa_node_init(struct rg_xarray *xa, struct rg_xa_node *n, unsigned int shift,
		 struct rg_xa_node *parent, unsigned int offset);

RGI_HIDDEN bool rgi_xa_seek(struct rg_xarray *xa, unsigned long start,
			    unsigned long max, unsigned int filter,
			    struct xa_cursor *c);

RGI_HIDDEN unsigned int rgi_xa_nodes_needed(struct rg_xarray *xa,
					    unsigned long index, bool leaf0);

RGI_HIDDEN struct rg_xa_node *rgi_xa_grow(struct rg_xarray *xa,
					  struct xa_prealloc *pre,
					  struct rg_xa_node *node,
					  unsigned int shift);

RGI_HIDDEN struct rg_xa_node *rgi_xa_head_to_leaf(struct rg_xarray *xa,
						  struct xa_prealloc *pre);

RGI_HIDDEN void **rgi_xa_create_slot(struct rg_xarray *xa, unsigned long index,
				     struct xa_prealloc *pre,
				     struct rg_xa_node **leaf, bool leaf0);

RGI_HIDDEN void rgi_xa_shrink(struct rg_xarray *xa, struct rg_xa_state *xas);

RGI_HIDDEN void rgi_xa_clear_slots(struct rg_xarray *xa,
				   struct rg_xa_node *node, unsigned int off,
				   unsigned int n);

RGI_HIDDEN void rgi_xa_prune(struct rg_xa_state *xas, struct rg_xa_node *node);

RGI_HIDDEN void rgi_xa_free_subtree(struct rg_xarray *xa,
				    struct rg_xa_node *node);

RGI_HIDDEN void rgi_xa_destroy_nolock(struct rg_xarray *xa);

RGI_HIDDEN size_t rgi_xa_node_bytes(const struct rg_xarray *xa);

/* ---- the state: positions ---- */

#define XAS_RESTART RG_XAS_RESTART
#define XAS_BOUNDS RG_XAS_BOUNDS

/* On a node (not the head, not a special position or an error). */
static inline bool xas_on_node(const struct rg_xa_state *xas)
{
	return xas->xa_node && !rg_xas_invalid(xas);
}

/* On the slot of its index in a leaf. */
static inline bool xas_on_leaf(const struct rg_xa_state *xas)
{
	return xas_on_node(xas) && xas->xa_node->shift == 0;
}

/*
 * xas_walk() below top node @node, which covers the state's index. @multi:
 * the array may hold multi-index entries; a constant in each call, so the
 * walk of an array without them never looks for one.
 */
static RGI_ALWAYS_INLINE void **xas_descend(struct rg_xa_state *xas,
					    struct rg_xa_node *node,
					    struct rg_xa_node **leaf,
					    bool multi, bool lockfree)
{
	unsigned long index = xas->xa_index;

	for (;;) {
		unsigned int s = node->shift, off = xa_offset(index, s);
		/* Under the lock nothing changes: plain loads. */
		void *e = lockfree ? xa_slot_get(&node->slots[off]) :
				     node->slots[off];

		if (!s) {
			/* A leaf slot, or a sibling naming the entry's. */
			if (multi && xa_is_sibling(e))
				off = xa_sibling_offset(e);
		} else if (!e) {
			/* A missing child. */
			xas->xa_node = node;
			xas->xa_offset = (unsigned char)off;
			return NULL;
		} else if (!multi || xa_is_node(e)) {
			node = xa_to_node(e);
			continue;
		} else if (xa_is_sibling(e)) {
			/* An interior multi-index entry, named by a sibling. */
			off = xa_sibling_offset(e);
		}
		xas->xa_node = node;
		xas->xa_offset = (unsigned char)off;
		*leaf = node;
		return &node->slots[off];
	}
}

/*
 * The slot of the state's index (it may hold NULL), or NULL if none exists
 * yet; walks from the top unless the state is on its leaf or the head.
 * Leaves the state where the walk stopped. @leaf: the node holding the
 * slot (a leaf, or an interior node for a multi-index entry), or NULL for
 * the head. An index inside a multi-index entry gives the entry's
 * canonical slot, and the state's offset names that slot.
 */
static RGI_ALWAYS_INLINE void **
xas_walk_any(struct rg_xa_state *xas, struct rg_xa_node **leaf, bool lockfree)
{
	struct rg_xarray *xa = xas->xa;
	unsigned long index = xas->xa_index;
	struct rg_xa_node *node;
	void *head;

	*leaf = NULL;
	if (xas_on_leaf(xas)) {
		RGI_DEBUG_ASSERT(
			xas->xa_offset == xa_offset(index, 0) ||
			xas->xa_offset + xa_span(xas->xa_node, xas->xa_offset) >
				xa_offset(index, 0));
		*leaf = xas->xa_node;
		return &xas->xa_node->slots[xas->xa_offset];
	}
	head = lockfree ? xa_slot_get(&xa->head) : xa->head;
	if (!xa_is_node(head)) {
		if (index) {
			xas->xa_node = XAS_BOUNDS;
			return NULL;
		}
		xas->xa_node = NULL;
		xas->xa_offset = 0;
		return &xa->head;
	}
	node = xa_to_node(head);
	if (xa_beyond(node, index)) {
		xas->xa_node = XAS_BOUNDS;
		return NULL;
	}
	/* A lock-free walk checks every slot: see xa_rcu_walk(). */
	if (lockfree)
		return xas_descend(xas, node, leaf, true, true);
	if (likely(!xa_may_hold_multi(xa)))
		return xas_descend(xas, node, leaf, false, false);
	return xas_descend(xas, node, leaf, true, false);
}

static RGI_ALWAYS_INLINE void **xas_walk(struct rg_xa_state *xas,
					 struct rg_xa_node **leaf)
{
	return xas_walk_any(xas, leaf, false);
}

/*
 * xa_rcu_walk()'s answer when it meets a sibling slot: the entry it names
 * is read from another slot, which a writer may meanwhile have erased and
 * filled with an entry of another index, so the caller loads under the
 * lock instead (only multi-index entries take that way). Internal 258 is
 * a reserved entry: rg_xa_store() refuses it.
 */
#define XA_RCU_LOCKED rg_xa_mk_internal(258)

/*
 * The entry at @index for a lock-free reader (under the RCU read lock):
 * what the slot holds, RG_XA_RETRY_ENTRY if the walk met a node a writer
 * took out (start again), XA_RCU_LOCKED at a sibling slot (load under the
 * lock), or NULL. Checks every slot for what it holds whatever the flags
 * say: a writer may be storing a multi-index entry.
 */
static RGI_ALWAYS_INLINE void *xa_rcu_walk(const struct rg_xarray *xa,
					   unsigned long index)
{
	void *e = xa_slot_get(&xa->head);
	const struct rg_xa_node *node;

	if (!xa_is_node(e))
		return index ? NULL : e;
	node = xa_to_node(e);
	if ((index >> node->shift) > XA_SLOT_MASK)
		return NULL;
	for (;;) {
		unsigned int s = node->shift;

		e = xa_slot_get(&node->slots[xa_offset(index, s)]);
		if (s && xa_is_node(e)) {
			node = xa_to_node(e);
			continue;
		}
		if (unlikely(xa_is_sibling(e)))
			return XA_RCU_LOCKED;
		return e;
	}
}

/* ---- store ---- */

/* Store non-NULL @entry at the state's index; raw old entry, or error. */
static RGI_ALWAYS_INLINE void *xas_store_entry(struct rg_xa_state *xas,
					       void *entry)
{
	struct rg_xarray *xa = xas->xa;
	unsigned long index = xas->xa_index;
	struct rg_xa_node *leaf;
	void **slot = xas_walk(xas, &leaf);
	bool leaf0 = false;
	void *prev;

	if (unlikely(xa_is_node(entry)) && slot) {
		/* An interior slot would read it as a node. */
		if (leaf && leaf->shift) {
			rg_xas_set_err(xas, -EINVAL);
			return NULL;
		}
		/* The head neither: give it a leaf. */
		leaf0 = !leaf;
	}
	if (!slot || leaf0) {
		struct xa_prealloc pre;
		unsigned int n = rgi_xa_nodes_needed(xa, index, leaf0);

		if (rgi_xa_prealloc(&pre, n, xas)) {
			xas->xa_need = n;
			rg_xas_set_err(xas, -ENOMEM);
			return NULL;
		}
		slot = rgi_xa_create_slot(xa, index, &pre, &leaf, leaf0);
		RGI_ASSERT(pre.used == pre.n);
		xas->xa_node = leaf;
		xas->xa_offset = (unsigned char)xa_offset(index, 0);
	}
	prev = *slot;
	xa_slot_set(slot, entry);
	if (!prev) {
		/* A new entry keeps the empty slot's marks. */
		if (leaf) {
			leaf->used |= xa_bit(xas->xa_offset);
			leaf->count++;
			leaf->nr_values += rg_xa_is_value(entry);
		} else {
			xa->head_marks = xa_track_free(xa) ? XA_FREE_BIT : 0;
		}
	} else if (leaf) {
		if (rg_xa_is_value(prev) != rg_xa_is_value(entry)) {
			/* A multi-index entry counts once per slot it spans. */
			if (xa_may_hold_multi(xa))
				rgi_xa_node_recount(leaf);
			else if (rg_xa_is_value(entry))
				leaf->nr_values++;
			else
				leaf->nr_values--;
		}
		/* An entry that looks like a node kept index 0 in a top leaf;
		 * one that does not goes back to the head. */
		if (unlikely(xa_is_node(prev)) && leaf->used == 1 &&
		    !leaf->parent && !xa_is_node(entry)) {
			rgi_xa_shrink(xa, xas);
			xas->xa_node = NULL;
			xas->xa_offset = 0;
		}
	}
	return prev;
}

/* ---- erase ---- */

/* Remove top nodes using only slot 0; a state on one goes out of bounds. */

/*
 * Erase the entry at the state's index (all of a multi-index entry);
 * returns it raw. The state stays on the deepest node that survives (or
 * the head), or goes out of bounds.
 */
static RGI_ALWAYS_INLINE void *xas_erase(struct rg_xa_state *xas)
{
	struct rg_xarray *xa = xas->xa;
	struct rg_xa_node *leaf;
	void **slot = xas_walk(xas, &leaf);
	unsigned int b;
	void *old;

	if (!slot || !*slot)
		return NULL;
	old = *slot;
	if (!leaf) {
		xa_slot_set(&xa->head, NULL);
		xa->head_marks = 0;
		return old;
	}
	b = xas->xa_offset;
	if (likely(!leaf->shift && (b == XA_SLOT_MASK ||
				    leaf->slots[b + 1] != xa_mk_sibling(b)))) {
		/* One slot of a leaf: the common case, done inline. */
		unsigned int m;

		xa_slot_set(slot, NULL);
		leaf->used &= ~xa_bit(b);
		leaf->count--;
		leaf->nr_values -= rg_xa_is_value(old);
		for (m = 0; m < XA_NR_MARKS; m++) {
			if (m == RG_XA_FREE_MARK && xa_track_free(xa))
				rgi_xa_mark_update(leaf, b, m, true);
			else if (leaf->marks[m] & xa_bit(b))
				rgi_xa_mark_update(leaf, b, m, false);
		}
		/* The leaf survives and the state stays on it; only a top
		 * node can have come to use slot 0 alone (shrink). */
		if (likely(leaf->used)) {
			if (unlikely(leaf->used == 1 && !leaf->parent))
				rgi_xa_shrink(xa, xas);
			return old;
		}
	} else {
		rgi_xa_clear_slots(xa, leaf, b, xa_span(leaf, b));
	}
	rgi_xa_prune(xas, leaf);
	return old;
}

/* ---- destroy ---- */

#endif /* RG_XA_NODE_H */
