// SPDX-License-Identifier: MIT
/*
 * Maple Tree: walks and iteration. Theory of operation.
 *
 * Walks
 *   A walk goes from the root to the leaf holding an index: in each node
 *   the slot is the number of pivots below the index (unused pivots hold
 *   the node's max), so no branch depends on the node's end. One walk
 *   serves both kinds of reader: @rcu is a constant in each caller, so the
 *   locked walk keeps plain loads; a lock-free walk that ends in a dead
 *   leaf starts again from the root.
 *
 * The cursor
 *   The advanced API keeps a cursor in the caller's rg_ma_state: in state
 *   RG_MAS_ACTIVE it remembers the leaf, slot and leaf range of the current
 *   range [index, last], so next and prev step inside the leaf in O(1) and
 *   climb through parent words to the next leaf otherwise; any other state
 *   makes the next call walk from the root. After a store or erase through
 *   a state it stands on the range written (no leaf cached), so iteration
 *   continues after it as in the kernel (the state machine is described
 *   further down, at "The iteration state machine").
 *
 * Iteration in RCU mode
 *   It steps and climbs like the locked one, with acquire loads; a dead
 *   node (the leaf or one climbed to), or a node without a parent on the
 *   way up (a transition), makes it walk again from the root at the first
 *   index not yet reported; a range found there that starts (going
 *   backwards: ends) beyond that point is reported from it, so ranges never
 *   repeat or go back.
 */
#include "maple_walk.h"

/*
 * One walk for both kinds of reader: @rcu is a constant in each caller, so
 * the locked walk keeps plain loads.
 */
static RGI_ALWAYS_INLINE void mt_walk_impl(struct rg_maple_tree *mt,
					   unsigned long index,
					   struct mt_pos *pos, bool rcu)
{
	void *e;
	unsigned long min, max;

retry:
	e = rcu ? mt_rcu_slot(&mt->root) : mt->root;
	min = 0;
	max = ULONG_MAX;
	pos->min = 0;
	pos->max = ULONG_MAX;
	if (!mt_root_is_node(e)) {
		pos->enode = NULL;
		if (e && index == 0) {
			pos->off = 0;
			pos->rmin = pos->rmax = 0;
			pos->entry = e;
		} else if (e) {
			pos->off = 1;
			pos->rmin = 1;
			pos->rmax = ULONG_MAX;
			pos->entry = NULL;
		} else {
			pos->off = 0;
			pos->rmin = 0;
			pos->rmax = ULONG_MAX;
			pos->entry = NULL;
		}
		return;
	}
	for (;;) {
		struct mt_node *n = mt_to_node(e);
		enum mt_type t = mt_type_of(e);
		unsigned long *piv = mt_pivots(n, t);
		unsigned int np = mt_npivots(t);
		unsigned int off;
		unsigned long cmin, cmax;

		mt_prefetch(n);
		off = mt_slot_of(piv, np, index);
		cmin = mt_slot_min(piv, off, min);
		cmax = mt_slot_max(piv, np, off, max);

		if (t == MT_LEAF) {
			pos->enode = e;
			pos->off = off;
			pos->min = min;
			pos->max = max;
			pos->rmin = cmin;
			pos->rmax = cmax;
			if (!rcu) {
				pos->entry = n->r.slot[off];
				return;
			}
			pos->entry = mt_rcu_slot(&n->r.slot[off]);
			/* A dead leaf: its writer is done; see the new tree. */
			if (unlikely(mt_pword_dead(mt_rcu_pword(n), n)))
				goto retry;
			return;
		}
		min = cmin;
		max = cmax;
		e = rcu ? mt_rcu_slot(&mt_slots(n, t)[off]) :
			  mt_slots(n, t)[off];
	}
}

void rgi_mt_walk(struct rg_maple_tree *mt, unsigned long index,
		 struct mt_pos *pos)
{
	mt_walk_impl(mt, index, pos, false);
}

void rgi_mt_walk_rcu(struct rg_maple_tree *mt, unsigned long index,
		     struct mt_pos *pos)
{
	mt_walk_impl(mt, index, pos, true);
}

/*
 * First entry whose range ends at or after index and starts <= max. No two
 * NULL ranges touch, so under the lock the range after a NULL one holds an
 * entry; a lock-free reader may see a NULL range again (the tree changed
 * between its walks) and walks on.
 */
void *rgi_mt_find(struct rg_maple_tree *mt, unsigned long *index,
		  unsigned long max, bool rcu)
{
	struct mt_pos pos;

	if (*index > max)
		return NULL;
	if (rcu)
		rgi_mt_walk_rcu(mt, *index, &pos);
	else
		rgi_mt_walk(mt, *index, &pos);
	while (!pos.entry || rg_mt_is_zero(pos.entry)) {
		if (pos.rmax == ULONG_MAX || pos.rmax + 1 > max)
			return NULL;
		if (rcu)
			rgi_mt_walk_rcu(mt, pos.rmax + 1, &pos);
		else
			rgi_mt_walk(mt, pos.rmax + 1, &pos);
	}
	*index = pos.rmax + 1;
	return pos.entry;
}

static void *mas_set_pos(struct rg_ma_state *mas, const struct mt_pos *pos)
{
	mas->node = pos->enode;
	mas->offset = (unsigned char)pos->off;
	if (pos->enode) {
		mas->min = pos->min;
		mas->max = pos->max;
	} else {
		/* No leaf: min and max hold the range itself. */
		mas->min = pos->rmin;
		mas->max = pos->rmax;
	}
	mas->index = pos->rmin;
	mas->last = pos->rmax;
	mas->status = RG_MAS_ACTIVE;
	return pos->entry;
}

void *rgi_mas_walk_to(struct rg_ma_state *mas, unsigned long index, bool rcu)
{
	struct mt_pos pos;

	if (rcu)
		rgi_mt_walk_rcu(mas->tree, index, &pos);
	else
		rgi_mt_walk(mas->tree, index, &pos);
	return mas_set_pos(mas, &pos);
}

/*
 * Stepping. An active state moves to the next (previous) range of its leaf,
 * or climbs to the first ancestor with a next (previous) child and goes
 * down its leftmost (rightmost) path. One implementation serves both kinds
 * of caller: @rcu is a constant in each instance, so the locked one keeps
 * plain loads. In RCU mode a lock-free reader reads slots and parent words
 * with acquire loads and falls back to a walk from the root whenever what
 * it stands on or climbs to is dead (or, climbing, looks like a root: a
 * transition it cannot trust). The walk may land in a range that starts
 * before the point the iteration reached (a store merged ranges
 * meanwhile): the state then reports only the part not yet covered (index
 * raised, or last lowered going backwards), so iteration never goes back or
 * repeats. Stepping uses the bounds of the slot itself, not the reported
 * index and last. With the lock held nothing is dead, and a walk is needed
 * only from a root entry (no leaf).
 */
static unsigned long mas_slot_first(const struct rg_ma_state *mas)
{
	if (!mas->node)
		return mas->min;
	return mt_slot_min(mt_to_node(mas->node)->r.pivot, mas->offset,
			   mas->min);
}

static unsigned long mas_slot_last(const struct rg_ma_state *mas)
{
	if (!mas->node)
		return mas->max;
	return mt_slot_max(mt_to_node(mas->node)->r.pivot, MT_R_PIVOTS,
			   mas->offset, mas->max);
}

static inline uintptr_t mt_pword(const struct mt_node *n, bool rcu)
{
	return rcu ? mt_rcu_pword(n) : n->parent;
}

static inline void *mt_slot_read(void *const *slot, bool rcu)
{
	return rcu ? mt_rcu_slot(slot) : *slot;
}

/*
 * A bound of the node whose parent word is @w: its max (@upper) or its min,
 * found by climbing while the node is its parent's last (first) child.
 * Returns false if a dead node is met (lock-free readers only).
 */
static inline bool mt_node_bound(struct rg_maple_tree *mt, uintptr_t w,
				 bool upper, bool rcu, unsigned long *bound)
{
	enum mt_type it = mt_itype(mt);

	for (;;) {
		struct mt_node *q = (struct mt_node *)(w & MT_PARENT_MASK);
		unsigned int s = (unsigned int)((w >> 4) & 0xf);
		uintptr_t qw;

		if (!q) {
			*bound = upper ? ULONG_MAX : 0;
			return true;
		}
		qw = mt_pword(q, rcu);
		if (rcu && mt_pword_dead(qw, q))
			return false;
		if (upper && s < mt_npivots(it)) {
			*bound = mt_pivots(q, it)[s];
			return true;
		}
		if (!upper && s) {
			*bound = mt_pivots(q, it)[s - 1] + 1;
			return true;
		}
		w = qw;
	}
}

/*
 * Climb from the node whose parent word is *@w to the first ancestor with
 * a next (@fwd) or previous child. Returns it, *@w its parent word and *@s
 * the slot of that child; NULL when a dead node or the root is met.
 */
static inline struct mt_node *mas_climb(uintptr_t *w, bool fwd, bool rcu,
					unsigned int *s)
{
	uintptr_t cw = *w;

	for (;;) {
		struct mt_node *p = (struct mt_node *)(cw & MT_PARENT_MASK);
		uintptr_t pw;
		unsigned int cs = (unsigned int)((cw >> 4) & 0xf);

		if (!p)
			return NULL;
		pw = mt_pword(p, rcu);
		if (rcu && mt_pword_dead(pw, p))
			return NULL;
		if (fwd ? cs < (pw & 0xf) : cs > 0) {
			*w = pw;
			*s = fwd ? cs + 1 : cs - 1;
			return p;
		}
		cw = pw;
	}
}

/*
 * Move an active state to the next (@fwd) or previous range and read its
 * entry; false at the end of the tree (at index 0).
 */
static RGI_ALWAYS_INLINE bool mas_step(struct rg_ma_state *mas, bool fwd,
				       bool rcu, void **ep)
{
	struct rg_maple_tree *mt = mas->tree;
	enum mt_type it = mt_itype(mt);
	unsigned long at, min, max;
	struct mt_node *n, *p;
	uintptr_t w;
	unsigned int s, end;
	void *e;

	/* the first index past the current slot, in the direction taken */
	if (fwd) {
		at = mas_slot_last(mas);
		if (at == ULONG_MAX)
			return false;
		at++;
	} else {
		at = mas_slot_first(mas);
		if (at == 0)
			return false;
		at--;
	}
	if (!mas->node)
		goto rewalk;
	n = mt_to_node(mas->node);
	w = mt_pword(n, rcu);
	if (rcu && mt_pword_dead(w, n))
		goto rewalk;
	if (fwd ? mas->offset < (w & 0xf) : mas->offset > 0) {
		if (fwd) {
			mas->offset++;
			mas->index = at;
			mas->last = mt_slot_max(n->r.pivot, MT_R_PIVOTS,
						mas->offset, mas->max);
		} else {
			mas->offset--;
			mas->last = at;
			mas->index =
				mt_slot_min(n->r.pivot, mas->offset, mas->min);
		}
		*ep = mt_slot_read(&n->r.slot[mas->offset], rcu);
		return true;
	}
	p = mas_climb(&w, fwd, rcu, &s);
	if (!p)
		goto rewalk;
	/* the bounds of child s of p: one is next to the leaf left */
	if (fwd) {
		min = mas->max + 1;
		if (s < mt_npivots(it))
			max = mt_pivots(p, it)[s];
		else if (!mt_node_bound(mt, w, true, rcu, &max))
			goto rewalk;
	} else {
		max = mas->min - 1;
		if (s > 0)
			min = mt_pivots(p, it)[s - 1] + 1;
		else if (!mt_node_bound(mt, w, false, rcu, &min))
			goto rewalk;
	}
	/* down its leftmost (rightmost) path */
	e = mt_slot_read(&mt_slots(p, it)[s], rcu);
	while (!mt_is_leaf(e)) {
		struct mt_node *c = mt_to_node(e);
		enum mt_type t = mt_type_of(e);

		if (fwd) {
			max = mt_pivots(c, t)[0];
			e = mt_slot_read(&mt_slots(c, t)[0], rcu);
		} else {
			end = (unsigned int)(mt_pword(c, rcu) & 0xf);
			min = mt_slot_min(mt_pivots(c, t), end, min);
			e = mt_slot_read(&mt_slots(c, t)[end], rcu);
		}
	}
	n = mt_to_node(e);
	end = fwd ? 0 : (unsigned int)(mt_pword(n, rcu) & 0xf);
	mas->node = e;
	mas->min = min;
	mas->max = max;
	mas->offset = (unsigned char)end;
	mas->index = fwd ? min : mt_slot_min(n->r.pivot, end, min);
	mas->last = fwd ? n->r.pivot[0] : max;
	*ep = mt_slot_read(&n->r.slot[end], rcu);
	return true;
rewalk:
	*ep = rgi_mas_walk_to(mas, at, rcu);
	if (fwd && mas->index < at)
		mas->index = at;
	if (!fwd && mas->last > at)
		mas->last = at;
	return true;
}

/*
 * The iteration state machine follows the kernel's (lib/maple_tree.c as of
 * 6.12), so that kernel-style loops behave the same here:
 *
 * - An active state stands on a range. A forward step first checks the
 *   range's own end: if it reaches @max the state overflows where it
 *   stands. Otherwise it moves to the next range; an entry is returned, an
 *   empty range is returned as NULL by the _range calls and stepped over by
 *   the others, unless it reaches @max: then the state overflows standing
 *   on that empty range (after the last entry, index..last is the empty
 *   tail up to ULONG_MAX). Backward steps mirror this with @min.
 * - After a store or erase the state is active on the range written, with
 *   no leaf cached (min and max hold the range), so that a loop continues
 *   after it.
 * - Overflow and underflow remember where the state stands: a step in the
 *   other direction reads the range at index first (its entry, if any, is
 *   the answer), and a step in the same direction with a wider limit goes
 *   on from there.
 * - rg_mas_find() never leaves the state in overflow (a later call with a
 *   larger limit continues from the last range examined); from a start it
 *   returns the entry at index if there is one. rg_mas_find_range() from
 *   a start returns the range at index, empty or not, but an empty one
 *   that starts below the limit and reaches it overflows where it stands;
 *   from an overflow, both go on past an empty range at index.
 */

/*
 * Walk again to @at to continue an iteration forward (backward): a lock-free
 * reader may land in a range that a concurrent store merged with ranges it
 * already reported, so only the part from @at on (up to @at) is reported.
 */
static RGI_ALWAYS_INLINE void *mas_rewalk(struct rg_ma_state *mas,
					  unsigned long at, bool fwd, bool rcu)
{
	void *e = rgi_mas_walk_to(mas, at, rcu);

	if (rcu && fwd && mas->index < at)
		mas->index = at;
	if (rcu && !fwd && mas->last > at)
		mas->last = at;
	return e;
}

/*
 * Step forward (@fwd) up to @limit, or backward down to it, from an active
 * state: the next entry, or with @any the next range.
 */
static RGI_ALWAYS_INLINE void *mas_slot_step(struct rg_ma_state *mas,
					     unsigned long limit, bool fwd,
					     bool any, bool rcu)
{
	unsigned char end = fwd ? RG_MAS_OVERFLOW : RG_MAS_UNDERFLOW;
	void *e = NULL;

	if (fwd ? mas_slot_last(mas) >= limit : mas_slot_first(mas) <= limit) {
		mas->status = end;
		return NULL;
	}
	for (;;) {
		/* cannot fail: the current range ends before the limit */
		mas_step(mas, fwd, rcu, &e);
		if (e || any)
			return e;
		if (fwd ? mas->last >= limit : mas->index <= limit) {
			mas->status = end;
			return NULL;
		}
	}
}

/*
 * A next (prev) whose state already reaches its limit: it overflows
 * (underflows) where it stands; a state that stood on no range yet (a
 * start, a pause, an error) stands on index..last from now on.
 */
static void *mas_at_limit(struct rg_ma_state *mas, unsigned char status)
{
	if (mas->status != RG_MAS_ACTIVE && mas->status != RG_MAS_OVERFLOW &&
	    mas->status != RG_MAS_UNDERFLOW)
		mas_uncache(mas);
	mas->status = status;
	return NULL;
}

/*
 * rg_mas_next() and rg_mas_next_range() (@fwd), rg_mas_prev() and
 * rg_mas_prev_range(): the next (previous) entry, or with @any range, up
 * to (down to) @limit.
 */
static RGI_ALWAYS_INLINE void *mas_dir_gen(struct rg_ma_state *mas,
					   unsigned long limit, bool fwd,
					   bool any, bool rcu)
{
	unsigned char end = fwd ? RG_MAS_OVERFLOW : RG_MAS_UNDERFLOW;
	void *e;

	if (fwd ? mas->last >= limit : mas->index <= limit)
		return mas_at_limit(mas, end);
	switch (mas->status) {
	case RG_MAS_ACTIVE:
		break;
	case RG_MAS_START:
		rgi_mas_walk_to(mas, mas->index, rcu);
		break;
	case RG_MAS_PAUSE:
		/* resume after last (before index): that range is the next */
		e = mas_rewalk(mas, fwd ? mas->last + 1 : mas->index - 1, fwd,
			       rcu);
		if (e || any)
			return e;
		if (fwd ? mas->last >= limit : mas->index <= limit) {
			mas->status = end;
			return NULL;
		}
		break;
	case RG_MAS_OVERFLOW:
	case RG_MAS_UNDERFLOW:
		if (mas->status == end) {
			/* stopped this way: a wider limit goes on from here */
			mas->status = RG_MAS_ACTIVE;
			break;
		}
		/* stopped the other way: the entry at index comes first */
		e = mas_rewalk(mas, mas->index, fwd, rcu);
		if (e)
			return e;
		break;
	default:
		return NULL;
	}
	return mas_slot_step(mas, limit, fwd, any, rcu);
}

/* rg_mas_find() (@any false) and rg_mas_find_range(). */
static RGI_ALWAYS_INLINE void *
mas_find_gen(struct rg_ma_state *mas, unsigned long max, bool any, bool rcu)
{
	void *e;

	switch (mas->status) {
	case RG_MAS_ACTIVE:
		if (mas->last >= max)
			return NULL;
		goto step;
	case RG_MAS_START:
		break;
	case RG_MAS_PAUSE:
		if (mas->last >= max)
			return NULL;
		mas->index = ++mas->last;
		goto rewalk;
	case RG_MAS_UNDERFLOW:
		if (mas->index >= max) {
			mas->status = RG_MAS_OVERFLOW;
			return NULL;
		}
		goto rewalk;
	case RG_MAS_OVERFLOW:
		if (mas->last >= max)
			return NULL;
		/* the entry at index, if any, else on past that range */
		e = mas_rewalk(mas, mas->index, true, rcu);
		if (e)
			return e;
		if (mas->index == max)
			return NULL;
		goto step;
	default:
		return NULL;
	}
	/* a start: the entry at index, if any */
	if (mas->index > max)
		return NULL;
	e = rgi_mas_walk_to(mas, mas->index, rcu);
	goto walked;
rewalk:
	e = mas_rewalk(mas, mas->index, true, rcu);
walked:
	if (e)
		return e;
	if (mas->index == max)
		return NULL;
	if (any) {
		/* An empty range that reaches @max: nothing follows it. */
		if (mas->last >= max)
			mas->status = RG_MAS_OVERFLOW;
		return NULL;
	}
step:
	e = mas_slot_step(mas, max, true, any, rcu);
	if (!any)
		mas->status = RG_MAS_ACTIVE;
	return e;
}

/* rg_mas_find_rev(). */
static RGI_ALWAYS_INLINE void *mas_find_rev_gen(struct rg_ma_state *mas,
						unsigned long min, bool rcu)
{
	void *e;

	switch (mas->status) {
	case RG_MAS_ACTIVE:
		goto active;
	case RG_MAS_START:
		break;
	case RG_MAS_PAUSE:
		if (mas->index <= min) {
			mas->status = RG_MAS_UNDERFLOW;
			return NULL;
		}
		mas->last = --mas->index;
		e = mas_rewalk(mas, mas->index, false, rcu);
		if (e)
			return e;
		goto active;
	case RG_MAS_OVERFLOW:
		if (mas->index <= min) {
			mas->status = RG_MAS_UNDERFLOW;
			return NULL;
		}
		mas->status = RG_MAS_ACTIVE;
		goto active;
	case RG_MAS_UNDERFLOW:
		if (mas->index <= min)
			return NULL;
		mas->status = RG_MAS_ACTIVE;
		goto active;
	default:
		return NULL;
	}
	/* a start: the entry at index, if any */
	if (mas->index < min)
		return NULL;
	e = rgi_mas_walk_to(mas, mas->index, rcu);
	if (e)
		return e;
active:
	if (mas->index < min)
		return NULL;
	return mas_slot_step(mas, min, false, false, rcu);
}

void *rgi_mas_next(struct rg_ma_state *mas, unsigned long max, bool any)
{
	if (mt_rcu_walks(mas->tree))
		return mas_dir_gen(mas, max, true, any, true);
	return mas_dir_gen(mas, max, true, any, false);
}

void *rgi_mas_prev(struct rg_ma_state *mas, unsigned long min, bool any)
{
	if (mt_rcu_walks(mas->tree))
		return mas_dir_gen(mas, min, false, any, true);
	return mas_dir_gen(mas, min, false, any, false);
}

void *rgi_mas_find(struct rg_ma_state *mas, unsigned long max, bool any)
{
	if (mt_rcu_walks(mas->tree))
		return mas_find_gen(mas, max, any, true);
	return mas_find_gen(mas, max, any, false);
}

void *rgi_mas_find_rev(struct rg_ma_state *mas, unsigned long min)
{
	if (mt_rcu_walks(mas->tree))
		return mas_find_rev_gen(mas, min, true);
	return mas_find_rev_gen(mas, min, false);
}
