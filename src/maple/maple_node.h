/* SPDX-License-Identifier: MIT */
/*
 * Maple Tree: the node layout and its encoding, shared by every maple file
 * as static inlines (the walks and the write path rely on them being
 * inlined), and the node cache (maple_node.c).
 *
 * Nodes
 *   A node is 256 bytes, 256-byte aligned. Leaves and ordinary internal
 *   nodes have 16 slots and 15 pivots; internal nodes of allocation trees
 *   have 10 slots, 9 pivots, 10 gaps and the slot of the largest gap.
 *   Pivot i is the last index of slot i; a node's own range comes from its
 *   parent, and its last used slot (end) ends at the node's max.
 *
 * Encoding
 *   An internal slot (and the root, when it holds a node) is the node's
 *   address | type << 3 | 2. The first word of a node is its parent's
 *   address | its slot in the parent << 4 | its end; the address is 0 at
 *   the root and the node's own address once it is dead.
 */
#ifndef RG_MAPLE_NODE_H
#define RG_MAPLE_NODE_H

#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "region/maple_tree.h"
#include "rg_internal.h"

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

/*
 * Internal tree flags: the number of rg_mtree_clear_rcu() calls waiting
 * for their grace period (bits 16..31). While it is not 0 writers still
 * write as in RCU mode (lock-free readers that saw the mode may be
 * walking) and the advanced API's readers take the RCU walk.
 */
#define MT_FLAGS_RCU_DRAIN_ONE 0x10000u
#define MT_FLAGS_RCU_DRAIN_MASK 0xffff0000u

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

/*
 * The flags word changes under the tree lock with atomic stores while
 * lock-free readers run, so every read of it is atomic too.
 */
static inline unsigned int mt_flags(const struct rg_maple_tree *mt)
{
	return __atomic_load_n(&mt->flags, __ATOMIC_RELAXED);
}

static inline bool mt_is_alloc(const struct rg_maple_tree *mt)
{
	return (mt_flags(mt) & RG_MT_FLAGS_ALLOC_RANGE) != 0;
}

/*
 * Do writers write as in RCU mode (replace nodes, defer frees)? Also while
 * an rg_mtree_clear_rcu() waits for its grace period.
 */
static inline bool mt_in_rcu(const struct rg_maple_tree *mt)
{
	return (mt_flags(mt) &
		(RG_MT_FLAGS_USE_RCU | MT_FLAGS_RCU_DRAIN_MASK)) != 0;
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

/* ---- the node cache (maple_node.c) ---- */

/* With ASan, a freed node is poisoned until the cache hands it out again. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define MT_POISON(n) ASAN_POISON_MEMORY_REGION((n), RG_MT_NODE_SIZE)
#define MT_UNPOISON(n) ASAN_UNPOISON_MEMORY_REGION((n), RG_MT_NODE_SIZE)
#else
#define MT_POISON(n) ((void)(n))
#define MT_UNPOISON(n) ((void)(n))
#endif

/* The cache, NULL until the first rgi_mt_cache(). */
RGI_HIDDEN extern struct rg_slab_cache *_Atomic rgi_mt_node_cache;

/* The node cache, created on first use (NULL if that fails). */
RGI_HIDDEN struct rg_slab_cache *rgi_mt_cache(void);
RGI_HIDDEN int rgi_mt_node_stats(struct rg_slab_stats *st);
/* Free the nodes of a subtree at once (not in RCU mode; lock held). */
RGI_HIDDEN void rgi_mt_free_subtree(struct rg_maple_tree *mt, void *enode);

static inline void mt_node_free(struct rg_maple_tree *mt, struct mt_node *n)
{
	MT_POISON(n);
	rg_slab_free(
		atomic_load_explicit(&rgi_mt_node_cache, memory_order_relaxed),
		n);
	mt_nodes_add(mt, -1);
}

#endif /* RG_MAPLE_NODE_H */
