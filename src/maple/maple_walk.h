/* SPDX-License-Identifier: MIT */
/*
 * Maple Tree: walks and iteration (maple_walk.c), and the load walk,
 * inlined into rg_mtree_load().
 */
#ifndef RG_MAPLE_WALK_H
#define RG_MAPLE_WALK_H

#include "maple_rcu.h"

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
 * rgi_mt_find() - rg_mtree_find() once locked (or in a read-side critical
 * section, @rcu): the first entry whose range ends at or after *@index and
 * starts at or before @max; *@index is set past it.
 */
RGI_HIDDEN void *rgi_mt_find(struct rg_maple_tree *mt, unsigned long *index,
			     unsigned long max, bool rcu);

/* The load walk: the entry at @index (plain loads, or RCU ones). */
static RGI_ALWAYS_INLINE void *mt_load_impl(struct rg_maple_tree *mt,
					    unsigned long index, bool rcu)
{
	void *e;
	struct mt_node *n;

retry:
	e = rcu ? mt_rcu_slot(&mt->root) : mt->root;
	if (!mt_root_is_node(e))
		return index == 0 ? e : NULL;
	for (;;) {
		enum mt_type t = mt_type_of(e);
		void **slot;

		n = mt_to_node(e);
		mt_prefetch(n);
		if (t == MT_ARANGE) {
			slot = &n->a.slot[mt_slot_of(n->a.pivot, MT_A_PIVOTS,
						     index)];
			e = rcu ? mt_rcu_slot(slot) : *slot;
			continue;
		}
		slot = &n->r.slot[mt_slot_of(n->r.pivot, MT_R_PIVOTS, index)];
		e = rcu ? mt_rcu_slot(slot) : *slot;
		if (t == MT_LEAF)
			break;
	}
	if (rcu && unlikely(mt_pword_dead(mt_rcu_pword(n), n)))
		goto retry;
	return e;
}

/* ---- the advanced API's cursor (the tree's lock or RCU read lock held) --- */

/* Walk @mas to @index, active on the range found; return its entry. */
RGI_HIDDEN void *rgi_mas_walk_to(struct rg_ma_state *mas, unsigned long index,
				 bool rcu);
/* rg_mas_next() (@any false) and rg_mas_next_range() on a valid state. */
RGI_HIDDEN void *rgi_mas_next(struct rg_ma_state *mas, unsigned long max,
			      bool any);
/* rg_mas_prev() (@any false) and rg_mas_prev_range() on a valid state. */
RGI_HIDDEN void *rgi_mas_prev(struct rg_ma_state *mas, unsigned long min,
			      bool any);
/* rg_mas_find() (@any false) and rg_mas_find_range() on a valid state. */
RGI_HIDDEN void *rgi_mas_find(struct rg_ma_state *mas, unsigned long max,
			      bool any);
/* rg_mas_find_rev() on a valid state. */
RGI_HIDDEN void *rgi_mas_find_rev(struct rg_ma_state *mas, unsigned long min);

/* No leaf cached: stepping walks again from the range index..last. */
static inline void mas_uncache(struct rg_ma_state *mas)
{
	mas->node = NULL;
	mas->min = mas->index;
	mas->max = mas->last;
}

#endif /* RG_MAPLE_WALK_H */
