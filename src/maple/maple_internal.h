/* SPDX-License-Identifier: MIT */
/*
 * Private layout of Maple Tree nodes and the helpers shared by the maple
 * source files (maple_tree.c: nodes, walks and the write path;
 * maple_api.c: normal and advanced API, searches, iteration;
 * maple_check.c: validate and dump). See maple_tree.c for the theory of
 * operation.
 */
#ifndef RG_MAPLE_INTERNAL_H
#define RG_MAPLE_INTERNAL_H

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "region/maple_tree.h"
#include "rg_internal.h"
#include "maple_lock.h"

/* Node types, kept in bits 3..4 of an encoded node pointer. */
enum mt_type {
	MT_LEAF = 1, /* 16 slots, 15 pivots: entries */
	MT_RANGE = 2, /* 16 slots, 15 pivots: children */
	MT_ARANGE = 3, /* 10 slots, 9 pivots, 10 gaps: children */
};

#define MT_R_SLOTS 16
#define MT_R_PIVOTS 15
#define MT_A_SLOTS 10
#define MT_A_PIVOTS 9
#define MT_R_MIN 6 /* minimum entries of a non-root 16-slot node */
#define MT_A_MIN 4 /* minimum entries of a non-root 10-slot node */

/*
 * A node. parent: the parent node's address | slot in the parent << 4 |
 * end (index of the last used slot); address 0 for the root; the node's
 * own address when the node is dead (replaced, awaiting its free).
 * Unused pivots hold the node's max, so "number of pivots below index" is
 * the slot of index, without reading end.
 */
struct mt_node {
	uintptr_t parent;
	union {
		struct {
			unsigned long pivot[MT_R_PIVOTS];
			void *slot[MT_R_SLOTS];
		} r;
		struct {
			unsigned long pivot[MT_A_PIVOTS];
			void *slot[MT_A_SLOTS];
			unsigned long gap[MT_A_SLOTS];
			unsigned char gslot; /* slot of the largest gap */
			unsigned char pad[15];
		} a;
	};
};

_Static_assert(sizeof(struct mt_node) == 256, "maple node is 256 bytes");

#define MT_TAG 2UL
#define MT_PARENT_MASK (~(uintptr_t)0xff)

/*
 * Internal tree flag (outside RG_MT_FLAGS_MASK): a cyclic allocation took
 * the last index and its cursor wrapped to 0; the next one returns 1.
 */
#define MT_FLAGS_ALLOC_WRAPPED 0x100u

static inline void *mt_mk_enode(struct mt_node *n, enum mt_type t)
{
	return (void *)((uintptr_t)n | ((uintptr_t)t << 3) | MT_TAG);
}

static inline struct mt_node *mt_to_node(const void *enode)
{
	return (struct mt_node *)((uintptr_t)enode & MT_PARENT_MASK);
}

static inline enum mt_type mt_type_of(const void *enode)
{
	return (enum mt_type)(((uintptr_t)enode >> 3) & 3);
}

static inline bool mt_is_leaf(const void *enode)
{
	return mt_type_of(enode) == MT_LEAF;
}

/* The root holds a node (never a user entry that looks like one). */
static inline bool mt_root_is_node(const void *root)
{
	return ((uintptr_t)root & 3) == MT_TAG;
}

/* An entry that must not sit in the root pointer itself. */
static inline bool mt_looks_internal(const void *entry)
{
	return ((uintptr_t)entry & 3) == MT_TAG;
}

static inline unsigned int mt_end(const struct mt_node *n)
{
	return (unsigned int)(n->parent & 0xf);
}

static inline struct mt_node *mt_parent(const struct mt_node *n)
{
	return (struct mt_node *)(n->parent & MT_PARENT_MASK);
}

static inline unsigned int mt_pslot(const struct mt_node *n)
{
	return (unsigned int)((n->parent >> 4) & 0xf);
}

static inline bool mt_dead(const struct mt_node *n)
{
	return mt_parent(n) == n;
}

static inline void mt_set_parent(struct mt_node *n, struct mt_node *p,
				 unsigned int slot)
{
	n->parent = (uintptr_t)p | ((uintptr_t)slot << 4) | (n->parent & 0xf);
}

static inline void mt_set_end(struct mt_node *n, unsigned int end)
{
	n->parent = (n->parent & ~(uintptr_t)0xf) | end;
}

static inline unsigned int mt_npivots(enum mt_type t)
{
	return t == MT_ARANGE ? MT_A_PIVOTS : MT_R_PIVOTS;
}

static inline unsigned int mt_nslots(enum mt_type t)
{
	return t == MT_ARANGE ? MT_A_SLOTS : MT_R_SLOTS;
}

static inline unsigned int mt_minslots(enum mt_type t)
{
	return t == MT_ARANGE ? MT_A_MIN : MT_R_MIN;
}

static inline unsigned long *mt_pivots(struct mt_node *n, enum mt_type t)
{
	return t == MT_ARANGE ? n->a.pivot : n->r.pivot;
}

static inline void **mt_slots(struct mt_node *n, enum mt_type t)
{
	return t == MT_ARANGE ? n->a.slot : n->r.slot;
}

static inline bool mt_is_alloc(const struct rg_maple_tree *mt)
{
	return (mt->flags & RG_MT_FLAGS_ALLOC_RANGE) != 0;
}

static inline bool mt_in_rcu(const struct rg_maple_tree *mt)
{
	return (mt->flags & RG_MT_FLAGS_USE_RCU) != 0;
}

static inline enum mt_type mt_itype(const struct rg_maple_tree *mt)
{
	return mt_is_alloc(mt) ? MT_ARANGE : MT_RANGE;
}

/*
 * Slot of @index in a node: the number of pivots below it. Unused pivots
 * hold the node's max, so the count never passes end for an index inside
 * the node. Always inlined with a constant @npiv, so the loop unrolls.
 */
static RGI_ALWAYS_INLINE unsigned int
mt_slot_of_n(const unsigned long *piv, unsigned int npiv, unsigned long index)
{
	unsigned int off = 0;

#pragma GCC unroll 16
	for (unsigned int i = 0; i < npiv; i++)
		off += piv[i] < index;
	return off;
}

static inline unsigned int mt_slot_of_r(const unsigned long *piv,
					unsigned long index)
{
	return mt_slot_of_n(piv, MT_R_PIVOTS, index);
}

static inline unsigned int mt_slot_of(const unsigned long *piv,
				      unsigned int npiv, unsigned long index)
{
	return npiv == MT_A_PIVOTS ? mt_slot_of_n(piv, MT_A_PIVOTS, index) :
				     mt_slot_of_n(piv, MT_R_PIVOTS, index);
}

/* Start loading a whole node: its pivots and then its slots are needed. */
static inline void mt_prefetch(const struct mt_node *n)
{
	__builtin_prefetch((const char *)n + 64);
	__builtin_prefetch((const char *)n + 128);
	__builtin_prefetch((const char *)n + 192);
}

/* Last index of slot @off in a node whose range ends at @max. */
static inline unsigned long mt_slot_max(const unsigned long *piv,
					unsigned int npiv, unsigned int off,
					unsigned long max)
{
	return off < npiv ? piv[off] : max;
}

/* First index of slot @off in a node whose range starts at @min. */
static inline unsigned long mt_slot_min(const unsigned long *piv,
					unsigned int off, unsigned long min)
{
	return off ? piv[off - 1] + 1 : min;
}

/* ---- RCU mode: lock-free reads ---- */

/*
 * Words a writer may change in a live node of an RCU-mode tree while
 * readers run: a slot (one entry, or a child replaced by a node with the
 * same range) and the parent word (adoption, the dead mark). Readers load
 * them with acquire; pivots and end are immutable while a node is live in
 * RCU mode (a change to either builds a new node), so they are read plainly.
 */
static inline void *mt_rcu_slot(void *const *slot)
{
	return __atomic_load_n((void **)slot, __ATOMIC_ACQUIRE);
}

static inline uintptr_t mt_rcu_pword(const struct mt_node *n)
{
	return __atomic_load_n(&n->parent, __ATOMIC_ACQUIRE);
}

/* Is @w, the parent word read from @n, the dead mark? */
static inline bool mt_pword_dead(uintptr_t w, const struct mt_node *n)
{
	return (struct mt_node *)(w & MT_PARENT_MASK) == n;
}

/* Do lock-free readers apply (the tree is in RCU mode)? */
static inline bool mt_rcu_readers(const struct rg_maple_tree *mt)
{
	return (__atomic_load_n(&mt->flags, __ATOMIC_ACQUIRE) &
		RG_MT_FLAGS_USE_RCU) != 0;
}

/* Writers (lock held) count nodes; rg_mtree_bytes() reads without it. */
static inline void mt_nodes_add(struct rg_maple_tree *mt, long d)
{
	__atomic_store_n(&mt->nodes, mt->nodes + (unsigned long)d,
			 __ATOMIC_RELAXED);
}

static inline void mt_set_height(struct rg_maple_tree *mt, unsigned int h)
{
	__atomic_store_n(&mt->height, h, __ATOMIC_RELAXED);
}

/*
 * ThreadSanitizer cannot see liburcu's grace periods (the library is not
 * instrumented), so the ordering they give is announced by hand: every
 * lock-free read ends with a release on rgi_mt_gp_sync, and whatever a
 * grace period protects (a deferred free, in-place writes after
 * rg_mtree_clear_rcu()) starts with an acquire on it. A batch handed to
 * call_rcu() is released by the writer and acquired by the callback.
 */
#if defined(__SANITIZE_THREAD__)
#define MT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MT_TSAN 1
#endif
#endif

RGI_HIDDEN extern char rgi_mt_gp_sync; /* an address to annotate on */

#ifdef MT_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
static inline void mt_tsan_acquire(void *p)
{
	__tsan_acquire(p);
}

static inline void mt_tsan_release(void *p)
{
	__tsan_release(p);
}
#else
static inline void mt_tsan_acquire(void *p)
{
	(void)p;
}

static inline void mt_tsan_release(void *p)
{
	(void)p;
}
#endif

/* End of a lock-free read call (see above). */
static inline void mt_rcu_read_done(void)
{
#ifdef MT_TSAN
	mt_tsan_release(&rgi_mt_gp_sync);
#endif
}

RGI_HIDDEN void rgi_mt_rcu_read_lock(void);
RGI_HIDDEN void rgi_mt_rcu_read_unlock(void);
RGI_HIDDEN void rgi_mt_synchronize(void);

/* ---- shared between the maple files ---- */

RGI_HIDDEN struct rg_slab_cache *rgi_mt_cache(void);
RGI_HIDDEN void rgi_mt_free_subtree(struct rg_maple_tree *mt, void *enode);
RGI_HIDDEN unsigned long rgi_mt_leaf_gap(struct mt_node *n, unsigned long min,
					 unsigned long max);

#define MT_DEPTHS (RG_MT_MAX_HEIGHT + 2)

/* A root-to-node path; index by depth, 1 = root. */
struct mt_path {
	struct mt_node *node[MT_DEPTHS];
	unsigned char off[MT_DEPTHS]; /* slot taken in node[d] */
	unsigned long min[MT_DEPTHS], max[MT_DEPTHS];
};

/* Result of a read walk: the leaf and slot holding an index, or none. */
struct mt_pos {
	void *enode; /* the leaf, or NULL when the root is not a node */
	unsigned int off;
	unsigned long min, max; /* the leaf's range */
	unsigned long rmin, rmax; /* the range of the slot */
	void *entry;
};

RGI_HIDDEN void rgi_mt_walk(struct rg_maple_tree *mt, unsigned long index,
			    struct mt_pos *pos);
/*
 * rgi_mt_walk_rcu() - rgi_mt_walk() for lock-free readers (RCU read lock
 * held): acquire loads of slots and the root, and a walk that ends in a
 * dead leaf starts again from the root.
 */
RGI_HIDDEN void rgi_mt_walk_rcu(struct rg_maple_tree *mt, unsigned long index,
				struct mt_pos *pos);

/*
 * rgi_mt_write() - the one write path: classify, preallocate (unless
 * @sheafp already holds a preallocation), store, account.
 * @mt: the tree (lock held).
 * @first, @last: the range.
 * @entry: the entry (NULL erases).
 * @sheafp: a caller's preallocated sheaf or NULL; consumed.
 * @req: nodes that preallocation requested (when @sheafp is given).
 * @batchp: with @sheafp: the preallocated deferred-free batch (RCU mode),
 *          consumed; may point to NULL.
 * @old: if not NULL, set to the first entry overwritten.
 * Return: 0 or -ENOMEM (tree unchanged).
 */
RGI_HIDDEN int rgi_mt_write(struct rg_maple_tree *mt, unsigned long first,
			    unsigned long last, void *entry,
			    struct rg_slab_sheaf **sheafp, unsigned int req,
			    void **batchp, void **old);

/*
 * rgi_mt_write_path() - store a non-NULL entry over [first, last], which
 * lies inside slot path->off[h] of the leaf at the end of @path (a path
 * just walked, e.g. by a gap search), without walking again.
 * Return: 0 or -ENOMEM (tree unchanged).
 */
RGI_HIDDEN int rgi_mt_write_path(struct rg_maple_tree *mt,
				 const struct mt_path *path, unsigned int h,
				 unsigned long first, unsigned long last,
				 void *entry);

/*
 * rgi_mt_erase() - remove the range holding @index (lock held).
 * @old: set to its entry (NULL if @index was empty or on failure).
 * @first, @last: set to the range that held @index (empty or not).
 * Return: 0 or -ENOMEM (tree unchanged).
 */
RGI_HIDDEN int rgi_mt_erase(struct rg_maple_tree *mt, unsigned long index,
			    void **old, unsigned long *first,
			    unsigned long *last);

/*
 * rgi_mt_prealloc_count() - classify a store and return the worst-case
 * nodes it needs; *@bcap: the deferred-free batch it needs (RCU mode: the
 * most nodes and subtrees it can retire; 0 when it retires none).
 */
RGI_HIDDEN unsigned int rgi_mt_prealloc_count(struct rg_maple_tree *mt,
					      unsigned long first,
					      unsigned long last, void *entry,
					      int *type, unsigned int *bcap);

/* rg_mtree_destroy() of an RCU-mode tree whose root is a node (lock held). */
RGI_HIDDEN void rgi_mt_destroy_rcu(struct rg_maple_tree *mt);

/* A deferred-free batch for @cap items (NULL: -ENOMEM), and its release. */
RGI_HIDDEN void *rgi_mt_batch_alloc(unsigned int cap);
RGI_HIDDEN void rgi_mt_batch_free(void *batch);

RGI_HIDDEN void rgi_mt_account_request(struct rg_maple_tree *mt,
				       unsigned int req);

#endif /* RG_MAPLE_INTERNAL_H */
