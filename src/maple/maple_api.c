// SPDX-License-Identifier: MIT
/*
 * Maple Tree: the normal API (rg_mtree_*), the advanced API around a
 * caller-owned rg_ma_state (rg_mas_*), gap searches and iteration.
 *
 * Theory of operation. Every write goes to rgi_mt_write() (maple_tree.c),
 * which classifies the store, preallocates its worst case and cannot fail
 * after that. The normal API wraps each call in the tree's lock, a futex
 * mutex (0 free, 1 held, 2 held with waiters): one compare-and-swap to take
 * it, one exchange to release it, a short spin then FUTEX_WAIT when taken. The
 * advanced API leaves locking to the caller and keeps a cursor: in state
 * RG_MAS_ACTIVE the state remembers the leaf, slot and leaf range of the
 * current range [index, last], so next/prev step inside the leaf in O(1)
 * and climb through parent links to the next leaf otherwise; any other
 * state makes the next call walk from the root. After a store or erase
 * through a state it stands on the range written (RG_MAS_ACTIVE, no leaf
 * cached), so iteration continues after it as in the kernel (the state
 * machine is described above mas_next_slot()).
 *
 * Nothing here allocates except through rgi_mt_write() and
 * rg_mas_preallocate() (which, in RCU mode, also reserves the store's
 * deferred-free batch).
 */
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "maple_internal.h"

/* ---- normal API ---- */

int rg_mtree_init(struct rg_maple_tree *mt, unsigned int flags)
{
	if (!mt || (flags & ~RG_MT_FLAGS_MASK))
		return -EINVAL;
	memset(mt, 0, sizeof(*mt));
	mt->root = NULL;
	mt->flags = flags;
	return 0;
}

void rg_mtree_lock(struct rg_maple_tree *mt)
{
	if (unlikely(!mt))
		return;
	mt_lock(mt);
}

void rg_mtree_unlock(struct rg_maple_tree *mt)
{
	if (unlikely(!mt))
		return;
	mt_unlock(mt);
}

void rg_mtree_destroy(struct rg_maple_tree *mt)
{
	if (!mt)
		return;
	mt_lock(mt);
	if (mt_root_is_node(mt->root)) {
		if (mt_in_rcu(mt)) {
			rgi_mt_destroy_rcu(mt);
		} else {
			rgi_mt_free_subtree(mt, mt->root);
			mt_set_height(mt, 0);
		}
	}
	__atomic_store_n(&mt->root, NULL, __ATOMIC_RELEASE);
	mt_unlock(mt);
}

/* ---- RCU mode ---- */

void rg_mtree_set_rcu(struct rg_maple_tree *mt)
{
	if (!mt)
		return;
	mt_lock(mt);
	__atomic_store_n(&mt->flags, mt->flags | RG_MT_FLAGS_USE_RCU,
			 __ATOMIC_RELEASE);
	mt_unlock(mt);
}

void rg_mtree_clear_rcu(struct rg_maple_tree *mt)
{
	if (!mt)
		return;
	mt_lock(mt);
	if (mt_in_rcu(mt)) {
		__atomic_store_n(&mt->flags, mt->flags & ~RG_MT_FLAGS_USE_RCU,
				 __ATOMIC_RELEASE);
		/*
		 * Lock-free readers that saw the flag may still be walking:
		 * writers (this lock) edit nodes in place only after them.
		 */
		rgi_mt_synchronize();
	}
	mt_unlock(mt);
}

bool rg_mtree_in_rcu(const struct rg_maple_tree *mt)
{
	return mt && mt_rcu_readers(mt);
}

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

void *rg_mtree_load(struct rg_maple_tree *mt, unsigned long index)
{
	void *e;

	if (unlikely(!mt))
		return NULL;
	if (mt_rcu_enter(mt)) {
		e = mt_load_impl(mt, index, true);
		mt_rcu_exit();
	} else {
		mt_lock(mt);
		e = mt_load_impl(mt, index, false);
		mt_unlock(mt);
	}
	return rg_mt_is_zero(e) ? NULL : e;
}

static int mt_check_entry(void *entry)
{
	return rg_mt_is_reserved(entry) ? -EINVAL : 0;
}

int rg_mtree_store_range(struct rg_maple_tree *mt, unsigned long first,
			 unsigned long last, void *entry)
{
	int ret;

	if (!mt || first > last || mt_check_entry(entry))
		return -EINVAL;
	mt_lock(mt);
	ret = rgi_mt_write(mt, first, last, entry, NULL, 0, NULL, NULL);
	mt_unlock(mt);
	return ret;
}

int rg_mtree_store(struct rg_maple_tree *mt, unsigned long index, void *entry)
{
	return rg_mtree_store_range(mt, index, index, entry);
}

int rg_mtree_insert_range(struct rg_maple_tree *mt, unsigned long first,
			  unsigned long last, void *entry)
{
	struct mt_pos pos;
	int ret = 0;

	if (!mt || first > last || mt_check_entry(entry))
		return -EINVAL;
	mt_lock(mt);
	rgi_mt_walk(mt, first, &pos);
	if (pos.entry || pos.rmax < last)
		ret = -EEXIST;
	else if (entry)
		ret = rgi_mt_write(mt, first, last, entry, NULL, 0, NULL, NULL);
	mt_unlock(mt);
	return ret;
}

int rg_mtree_insert(struct rg_maple_tree *mt, unsigned long index, void *entry)
{
	return rg_mtree_insert_range(mt, index, index, entry);
}

int rg_mtree_erase_err(struct rg_maple_tree *mt, unsigned long index,
		       void **old)
{
	unsigned long first, last;
	void *e;
	int ret;

	if (old)
		*old = NULL;
	if (!mt)
		return -EINVAL;
	mt_lock(mt);
	ret = rgi_mt_erase(mt, index, &e, &first, &last);
	mt_unlock(mt);
	if (!ret && old)
		*old = e;
	return ret;
}

void *rg_mtree_erase(struct rg_maple_tree *mt, unsigned long index)
{
	void *old;

	rg_mtree_erase_err(mt, index, &old);
	return old;
}

/* Store @entry in the window a search just found, reusing its path. */
static int mt_store_found(struct rg_maple_tree *mt, const struct mt_gap *g,
			  unsigned long start, unsigned long size, void *entry)
{
	if (g->h)
		return rgi_mt_write_path(mt, &g->path, g->h, start,
					 start + size - 1, entry);
	return rgi_mt_write(mt, start, start + size - 1, entry, NULL, 0, NULL,
			    NULL);
}

static int mt_alloc(struct rg_maple_tree *mt, unsigned long *startp,
		    void *entry, unsigned long size, unsigned long min,
		    unsigned long max, bool rev)
{
	struct mt_gap g;
	unsigned long start;
	int ret;

	if (!mt || !startp || !mt_is_alloc(mt) || !entry ||
	    mt_check_entry(entry))
		return -EINVAL;
	ret = mt_window_ok(min, max, size);
	if (ret)
		return ret;
	mt_lock(mt);
	ret = rgi_mt_empty_area_g(mt, &g, min, max, size, rev, &start);
	if (!ret)
		ret = mt_store_found(mt, &g, start, size, entry);
	mt_unlock(mt);
	if (!ret)
		*startp = start;
	return ret;
}

int rg_mtree_alloc_range(struct rg_maple_tree *mt, unsigned long *startp,
			 void *entry, unsigned long size, unsigned long min,
			 unsigned long max)
{
	return mt_alloc(mt, startp, entry, size, min, max, false);
}

int rg_mtree_alloc_rrange(struct rg_maple_tree *mt, unsigned long *startp,
			  void *entry, unsigned long size, unsigned long min,
			  unsigned long max)
{
	return mt_alloc(mt, startp, entry, size, min, max, true);
}

/* rg_mtree_alloc_cyclic() and rg_mas_alloc_cyclic() once the lock is held. */
static int mt_alloc_cyclic_locked(struct rg_maple_tree *mt,
				  unsigned long *startp, void *entry,
				  unsigned long range_lo,
				  unsigned long range_hi, unsigned long *next)
{
	struct mt_gap g;
	unsigned long from = *next, start;
	int ret, wrapped = 0;

	if (from < range_lo || from > range_hi)
		from = range_lo;
	ret = rgi_mt_empty_area_g(mt, &g, from, range_hi, 1, false, &start);
	if (ret == -EBUSY && from > range_lo) {
		ret = rgi_mt_empty_area_g(mt, &g, range_lo, from - 1, 1, false,
					  &start);
		wrapped = 1;
	}
	if (!ret)
		ret = mt_store_found(mt, &g, start, 1, entry);
	if (ret)
		return ret;
	/* the previous allocation took the range's last index: *next
	 * wrapped, and this one reports it, as the kernel's does */
	if (mt->flags & MT_FLAGS_ALLOC_WRAPPED) {
		__atomic_store_n(&mt->flags,
				 mt->flags & ~MT_FLAGS_ALLOC_WRAPPED,
				 __ATOMIC_RELAXED);
		wrapped = 1;
	}
	*startp = start;
	*next = start + 1;
	if (*next == 0)
		__atomic_store_n(&mt->flags, mt->flags | MT_FLAGS_ALLOC_WRAPPED,
				 __ATOMIC_RELAXED);
	return wrapped;
}

int rg_mtree_alloc_cyclic(struct rg_maple_tree *mt, unsigned long *startp,
			  void *entry, unsigned long range_lo,
			  unsigned long range_hi, unsigned long *next)
{
	int ret;

	if (!mt || !startp || !next || !mt_is_alloc(mt) || !entry ||
	    mt_check_entry(entry) || range_lo > range_hi)
		return -EINVAL;
	mt_lock(mt);
	ret = mt_alloc_cyclic_locked(mt, startp, entry, range_lo, range_hi,
				     next);
	mt_unlock(mt);
	return ret;
}

/*
 * First entry whose range ends at or after index and starts <= max. No two
 * NULL ranges touch, so under the lock the range after a NULL one holds an
 * entry; a lock-free reader may see a NULL range again (the tree changed
 * between its walks) and walks on.
 */
static void *mt_find_impl(struct rg_maple_tree *mt, unsigned long *index,
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

void *rg_mtree_find(struct rg_maple_tree *mt, unsigned long *index,
		    unsigned long max)
{
	void *e;

	if (!mt || !index)
		return NULL;
	if (mt_rcu_enter(mt)) {
		e = mt_find_impl(mt, index, max, true);
		mt_rcu_exit();
		return e;
	}
	mt_lock(mt);
	e = mt_find_impl(mt, index, max, false);
	mt_unlock(mt);
	return e;
}

void *rg_mtree_find_after(struct rg_maple_tree *mt, unsigned long *index,
			  unsigned long max)
{
	if (!index || *index == 0)
		return NULL;
	return rg_mtree_find(mt, index, max);
}

unsigned int rg_mtree_height(const struct rg_maple_tree *mt)
{
	if (unlikely(!mt))
		return 0;
	return __atomic_load_n(&mt->height, __ATOMIC_RELAXED);
}

bool rg_mtree_empty(const struct rg_maple_tree *mt)
{
	if (unlikely(!mt))
		return false;
	return __atomic_load_n(&mt->root, __ATOMIC_RELAXED) == NULL;
}

size_t rg_mtree_bytes(const struct rg_maple_tree *mt)
{
	if (unlikely(!mt))
		return 0;
	return (size_t)__atomic_load_n(&mt->nodes, __ATOMIC_RELAXED) *
		       RG_MT_NODE_SIZE +
	       sizeof(*mt);
}

int rg_mtree_get_stats(struct rg_maple_tree *mt, struct rg_mtree_stats *st)
{
	if (!mt || !st)
		return -EINVAL;
	mt_lock(mt);
	*st = mt->stats;
	st->nodes = mt->nodes;
	st->height = mt->height;
	mt_unlock(mt);
	return 0;
}

void rg_mtree_reset_stats(struct rg_maple_tree *mt)
{
	if (unlikely(!mt))
		return;
	mt_lock(mt);
	memset(&mt->stats, 0, sizeof(mt->stats));
	mt_unlock(mt);
}

void rg_mtree_set_vacancy(struct rg_maple_tree *mt, bool on)
{
	if (unlikely(!mt))
		return;
	mt_lock(mt);
	__atomic_store_n(&mt->flags,
			 on ? mt->flags & ~RG_MT_FLAGS_NO_VACANCY :
			      mt->flags | RG_MT_FLAGS_NO_VACANCY,
			 __ATOMIC_RELAXED);
	mt_unlock(mt);
}

int rg_mtree_node_stats(struct rg_slab_stats *st)
{
	if (!st)
		return -EINVAL;
	return rgi_mt_node_stats(st);
}

void rg_mtree_rcu_barrier(void)
{
	rgi_mt_rcu_barrier();
}

/* ---- advanced API: positioning ---- */

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

/* The NULL-argument check of the advanced API: a state on a tree. */
static inline bool mas_ok(const struct rg_ma_state *mas)
{
	return mas && mas->tree;
}

static void *mas_walk_to(struct rg_ma_state *mas, unsigned long index, bool rcu)
{
	struct mt_pos pos;

	if (rcu)
		rgi_mt_walk_rcu(mas->tree, index, &pos);
	else
		rgi_mt_walk(mas->tree, index, &pos);
	return mas_set_pos(mas, &pos);
}

void *rg_mas_walk(struct rg_ma_state *mas)
{
	void *e;

	if (unlikely(!mas_ok(mas)))
		return NULL;
	e = mas_walk_to(mas, mas->index, mt_rcu_readers(mas->tree));
	mt_rcu_read_done();
	return e;
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

/* Move an active state to the next range and read its entry; false at the
 * end of the tree. */
static RGI_ALWAYS_INLINE bool mas_step_next(struct rg_ma_state *mas, void **ep,
					    bool rcu)
{
	struct rg_maple_tree *mt = mas->tree;
	enum mt_type it = mt_itype(mt);
	unsigned long from, min, max;
	struct mt_node *n, *p;
	uintptr_t w;
	unsigned int s;
	void *e;

	from = mas_slot_last(mas);
	if (from == ULONG_MAX)
		return false;
	from++;
	if (!mas->node)
		goto rewalk;
	n = mt_to_node(mas->node);
	w = mt_pword(n, rcu);
	if (rcu && mt_pword_dead(w, n))
		goto rewalk;
	if (mas->offset < (w & 0xf)) {
		mas->offset++;
		mas->index = from;
		mas->last = mt_slot_max(n->r.pivot, MT_R_PIVOTS, mas->offset,
					mas->max);
		*ep = mt_slot_read(&n->r.slot[mas->offset], rcu);
		return true;
	}
	p = mas_climb(&w, true, rcu, &s);
	if (!p)
		goto rewalk;
	if (s < mt_npivots(it))
		max = mt_pivots(p, it)[s];
	else if (!mt_node_bound(mt, w, true, rcu, &max))
		goto rewalk;
	min = mas->max + 1;
	e = mt_slot_read(&mt_slots(p, it)[s], rcu);
	while (!mt_is_leaf(e)) {
		struct mt_node *c = mt_to_node(e);
		enum mt_type t = mt_type_of(e);

		max = mt_pivots(c, t)[0];
		e = mt_slot_read(&mt_slots(c, t)[0], rcu);
	}
	n = mt_to_node(e);
	mas->node = e;
	mas->min = min;
	mas->max = max;
	mas->offset = 0;
	mas->index = min;
	mas->last = n->r.pivot[0];
	*ep = mt_slot_read(&n->r.slot[0], rcu);
	return true;
rewalk:
	*ep = mas_walk_to(mas, from, rcu);
	if (mas->index < from)
		mas->index = from;
	return true;
}

/* Move an active state to the previous range; false at index 0. */
static RGI_ALWAYS_INLINE bool mas_step_prev(struct rg_ma_state *mas, void **ep,
					    bool rcu)
{
	struct rg_maple_tree *mt = mas->tree;
	enum mt_type it = mt_itype(mt);
	unsigned long to, min, max;
	struct mt_node *n, *p;
	uintptr_t w;
	unsigned int s, end;
	void *e;

	to = mas_slot_first(mas);
	if (to == 0)
		return false;
	to--;
	if (!mas->node)
		goto rewalk;
	n = mt_to_node(mas->node);
	w = mt_pword(n, rcu);
	if (rcu && mt_pword_dead(w, n))
		goto rewalk;
	if (mas->offset > 0) {
		mas->offset--;
		mas->last = to;
		mas->index = mt_slot_min(n->r.pivot, mas->offset, mas->min);
		*ep = mt_slot_read(&n->r.slot[mas->offset], rcu);
		return true;
	}
	p = mas_climb(&w, false, rcu, &s);
	if (!p)
		goto rewalk;
	max = mas->min - 1;
	if (s > 0)
		min = mt_pivots(p, it)[s - 1] + 1;
	else if (!mt_node_bound(mt, w, false, rcu, &min))
		goto rewalk;
	e = mt_slot_read(&mt_slots(p, it)[s], rcu);
	while (!mt_is_leaf(e)) {
		struct mt_node *c = mt_to_node(e);
		enum mt_type t = mt_type_of(e);

		end = (unsigned int)(mt_pword(c, rcu) & 0xf);
		min = mt_slot_min(mt_pivots(c, t), end, min);
		e = mt_slot_read(&mt_slots(c, t)[end], rcu);
	}
	n = mt_to_node(e);
	end = (unsigned int)(mt_pword(n, rcu) & 0xf);
	mas->node = e;
	mas->min = min;
	mas->max = max;
	mas->offset = (unsigned char)end;
	mas->index = mt_slot_min(n->r.pivot, end, min);
	mas->last = max;
	*ep = mt_slot_read(&n->r.slot[end], rcu);
	return true;
rewalk:
	*ep = mas_walk_to(mas, to, rcu);
	if (mas->last > to)
		mas->last = to;
	return true;
}

static RGI_ALWAYS_INLINE bool mas_step(struct rg_ma_state *mas, bool fwd,
				       bool rcu, void **ep)
{
	return fwd ? mas_step_next(mas, ep, rcu) : mas_step_prev(mas, ep, rcu);
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
 *   returns the entry at index if there is one.
 */

/* No leaf cached: stepping walks again from the range index..last. */
static void mas_uncache(struct rg_ma_state *mas)
{
	mas->node = NULL;
	mas->min = mas->index;
	mas->max = mas->last;
}

/*
 * Walk again to @at to continue an iteration forward (backward): a lock-free
 * reader may land in a range that a concurrent store merged with ranges it
 * already reported, so only the part from @at on (up to @at) is reported.
 */
static RGI_ALWAYS_INLINE void *mas_rewalk_fwd(struct rg_ma_state *mas,
					      unsigned long at, bool rcu)
{
	void *e = mas_walk_to(mas, at, rcu);

	if (rcu && mas->index < at)
		mas->index = at;
	return e;
}

static RGI_ALWAYS_INLINE void *mas_rewalk_bwd(struct rg_ma_state *mas,
					      unsigned long at, bool rcu)
{
	void *e = mas_walk_to(mas, at, rcu);

	if (rcu && mas->last > at)
		mas->last = at;
	return e;
}

static RGI_ALWAYS_INLINE void *
mas_next_slot(struct rg_ma_state *mas, unsigned long max, bool any, bool rcu)
{
	void *e;

	if (mas_slot_last(mas) >= max) {
		mas->status = RG_MAS_OVERFLOW;
		return NULL;
	}
	for (;;) {
		/* cannot fail: the current range ends below max */
		mas_step(mas, true, rcu, &e);
		if (e || any)
			return e;
		if (mas->last >= max) {
			mas->status = RG_MAS_OVERFLOW;
			return NULL;
		}
	}
}

static RGI_ALWAYS_INLINE void *
mas_prev_slot(struct rg_ma_state *mas, unsigned long min, bool any, bool rcu)
{
	void *e = NULL;

	if (mas_slot_first(mas) <= min) {
		mas->status = RG_MAS_UNDERFLOW;
		return NULL;
	}
	for (;;) {
		/* cannot fail: the current range starts above min */
		mas_step(mas, false, rcu, &e);
		if (e || any)
			return e;
		if (mas->index <= min) {
			mas->status = RG_MAS_UNDERFLOW;
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

/* rg_mas_next() and rg_mas_next_range(). */
static RGI_ALWAYS_INLINE void *
mas_next_gen(struct rg_ma_state *mas, unsigned long max, bool any, bool rcu)
{
	void *e;

	if (mas->last >= max)
		return mas_at_limit(mas, RG_MAS_OVERFLOW);
	switch (mas->status) {
	case RG_MAS_ACTIVE:
		break;
	case RG_MAS_START:
		mas_walk_to(mas, mas->index, rcu);
		break;
	case RG_MAS_PAUSE:
		/* resume after last: the range there is the next one */
		e = mas_rewalk_fwd(mas, mas->last + 1, rcu);
		if (e || any)
			return e;
		if (mas->last >= max) {
			mas->status = RG_MAS_OVERFLOW;
			return NULL;
		}
		break;
	case RG_MAS_OVERFLOW:
		mas->status = RG_MAS_ACTIVE;
		break;
	case RG_MAS_UNDERFLOW:
		e = mas_rewalk_fwd(mas, mas->index, rcu);
		if (e)
			return e;
		break;
	default:
		return NULL;
	}
	return mas_next_slot(mas, max, any, rcu);
}

/* rg_mas_prev() and rg_mas_prev_range(). */
static RGI_ALWAYS_INLINE void *
mas_prev_gen(struct rg_ma_state *mas, unsigned long min, bool any, bool rcu)
{
	void *e;

	if (mas->index <= min)
		return mas_at_limit(mas, RG_MAS_UNDERFLOW);
	switch (mas->status) {
	case RG_MAS_ACTIVE:
		break;
	case RG_MAS_START:
		mas_walk_to(mas, mas->index, rcu);
		break;
	case RG_MAS_PAUSE:
		/* resume before index: the range there is the previous one */
		e = mas_rewalk_bwd(mas, mas->index - 1, rcu);
		if (e || any)
			return e;
		if (mas->index <= min) {
			mas->status = RG_MAS_UNDERFLOW;
			return NULL;
		}
		break;
	case RG_MAS_UNDERFLOW:
		mas->status = RG_MAS_ACTIVE;
		break;
	case RG_MAS_OVERFLOW:
		e = mas_rewalk_bwd(mas, mas->index, rcu);
		if (e)
			return e;
		break;
	default:
		return NULL;
	}
	return mas_prev_slot(mas, min, any, rcu);
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
		goto rewalk;
	default:
		return NULL;
	}
	/* a start: the entry at index, if any */
	if (mas->index > max)
		return NULL;
	e = mas_walk_to(mas, mas->index, rcu);
	goto walked;
rewalk:
	e = mas_rewalk_fwd(mas, mas->index, rcu);
walked:
	if (e || any)
		return e;
	if (mas->index == max)
		return NULL;
step:
	e = mas_next_slot(mas, max, any, rcu);
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
		e = mas_rewalk_bwd(mas, mas->index, rcu);
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
	e = mas_walk_to(mas, mas->index, rcu);
	if (e)
		return e;
active:
	if (mas->index < min)
		return NULL;
	return mas_prev_slot(mas, min, false, rcu);
}

static void *mas_next_impl(struct rg_ma_state *mas, unsigned long max, bool any)
{
	if (unlikely(!mas_ok(mas)))
		return NULL;
	if (mt_rcu_readers(mas->tree))
		return mas_next_gen(mas, max, any, true);
	return mas_next_gen(mas, max, any, false);
}

static void *mas_prev_impl(struct rg_ma_state *mas, unsigned long min, bool any)
{
	if (unlikely(!mas_ok(mas)))
		return NULL;
	if (mt_rcu_readers(mas->tree))
		return mas_prev_gen(mas, min, any, true);
	return mas_prev_gen(mas, min, any, false);
}

void *rg_mas_next(struct rg_ma_state *mas, unsigned long max)
{
	void *e = mas_next_impl(mas, max, false);

	mt_rcu_read_done();
	return e;
}

void *rg_mas_next_range(struct rg_ma_state *mas, unsigned long max)
{
	void *e = mas_next_impl(mas, max, true);

	mt_rcu_read_done();
	return e;
}

void *rg_mas_prev(struct rg_ma_state *mas, unsigned long min)
{
	void *e = mas_prev_impl(mas, min, false);

	mt_rcu_read_done();
	return e;
}

void *rg_mas_prev_range(struct rg_ma_state *mas, unsigned long min)
{
	void *e = mas_prev_impl(mas, min, true);

	mt_rcu_read_done();
	return e;
}

static void *mas_find_impl(struct rg_ma_state *mas, unsigned long max, bool any)
{
	if (unlikely(!mas_ok(mas)))
		return NULL;
	if (mt_rcu_readers(mas->tree))
		return mas_find_gen(mas, max, any, true);
	return mas_find_gen(mas, max, any, false);
}

void *rg_mas_find(struct rg_ma_state *mas, unsigned long max)
{
	void *e = mas_find_impl(mas, max, false);

	mt_rcu_read_done();
	return e;
}

void *rg_mas_find_range(struct rg_ma_state *mas, unsigned long max)
{
	void *e = mas_find_impl(mas, max, true);

	mt_rcu_read_done();
	return e;
}

void *rg_mas_find_rev(struct rg_ma_state *mas, unsigned long min)
{
	void *e;

	if (unlikely(!mas_ok(mas)))
		return NULL;
	if (mt_rcu_readers(mas->tree))
		e = mas_find_rev_gen(mas, min, true);
	else
		e = mas_find_rev_gen(mas, min, false);
	mt_rcu_read_done();
	return e;
}

void rg_mas_pause(struct rg_ma_state *mas)
{
	if (unlikely(!mas))
		return;
	mas->status = RG_MAS_PAUSE;
	mas->node = NULL;
}

void rg_mas_reset(struct rg_ma_state *mas)
{
	if (unlikely(!mas))
		return;
	mas->status = RG_MAS_START;
	mas->node = NULL;
}

void rg_mas_set_range(struct rg_ma_state *mas, unsigned long first,
		      unsigned long last)
{
	if (unlikely(!mas))
		return;
	mas->index = first;
	mas->last = last;
	rg_mas_reset(mas);
}

void rg_mas_set(struct rg_ma_state *mas, unsigned long index)
{
	rg_mas_set_range(mas, index, index);
}

/* ---- advanced API: writes ---- */

/*
 * RCU mode: rg_mas_preallocate() also reserves the batch that will carry
 * the store's retired nodes to call_rcu(); it lives in reserved[0].
 */
static void **mas_batchp(struct rg_ma_state *mas)
{
	return (void **)(void *)&mas->reserved[0];
}

static void mas_drop_batch(struct rg_ma_state *mas)
{
	void **bp = mas_batchp(mas);

	if (*bp) {
		rgi_mt_batch_free(*bp);
		*bp = NULL;
	}
}

static int mas_check(struct rg_ma_state *mas, void *entry)
{
	if (mas->index > mas->last || mt_check_entry(entry))
		return -EINVAL;
	return 0;
}

static void mas_fail(struct rg_ma_state *mas, int err)
{
	mas->status = RG_MAS_ERROR;
	mas->error = (short)err;
	mas->node = NULL;
}

/* After a write: active on the range written, nothing cached. */
static void mas_written(struct rg_ma_state *mas)
{
	mas_uncache(mas);
	mas->status = RG_MAS_ACTIVE;
}

static int mas_do_store(struct rg_ma_state *mas, void *entry, void **old)
{
	int ret;

	if (unlikely(!mas_ok(mas)))
		return -EINVAL;
	ret = mas_check(mas, entry);
	if (ret) {
		mas_fail(mas, ret);
		return ret;
	}
	if (mas->sheaf || mas->alloc_req)
		ret = rgi_mt_write(mas->tree, mas->index, mas->last, entry,
				   &mas->sheaf, mas->alloc_req, mas_batchp(mas),
				   old);
	else
		ret = rgi_mt_write(mas->tree, mas->index, mas->last, entry,
				   NULL, 0, NULL, old);
	mas->alloc_req = 0;
	mas_drop_batch(mas);
	if (ret) {
		mas_fail(mas, ret);
		return ret;
	}
	mas_written(mas);
	return 0;
}

void *rg_mas_store(struct rg_ma_state *mas, void *entry)
{
	void *old = NULL;

	if (mas_do_store(mas, entry, &old))
		return NULL;
	return old;
}

int rg_mas_store_gfp(struct rg_ma_state *mas, void *entry, unsigned int gfp)
{
	(void)gfp;
	return mas_do_store(mas, entry, NULL);
}

void *rg_mas_erase(struct rg_ma_state *mas)
{
	unsigned long first, last;
	void *e;
	int ret;

	if (unlikely(!mas_ok(mas)))
		return NULL;
	ret = rgi_mt_erase(mas->tree, mas->index, &e, &first, &last);
	if (ret) {
		mas_fail(mas, ret);
		return NULL;
	}
	mas->index = first;
	mas->last = last;
	mas_written(mas);
	return e;
}

int rg_mas_empty_area(struct rg_ma_state *mas, unsigned long min,
		      unsigned long max, unsigned long size)
{
	unsigned long start;
	int ret;

	if (unlikely(!mas_ok(mas)))
		return -EINVAL;
	ret = mt_empty_area(mas->tree, min, max, size, false, &start);
	if (ret)
		return ret;
	rg_mas_set_range(mas, start, start + size - 1);
	return 0;
}

int rg_mas_empty_area_rev(struct rg_ma_state *mas, unsigned long min,
			  unsigned long max, unsigned long size)
{
	unsigned long start;
	int ret;

	if (unlikely(!mas_ok(mas)))
		return -EINVAL;
	ret = mt_empty_area(mas->tree, min, max, size, true, &start);
	if (ret)
		return ret;
	rg_mas_set_range(mas, start, start + size - 1);
	return 0;
}

int rg_mas_alloc_cyclic(struct rg_ma_state *mas, unsigned long *startp,
			void *entry, unsigned long range_lo,
			unsigned long range_hi, unsigned long *next)
{
	struct rg_maple_tree *mt = mas ? mas->tree : NULL;
	int ret;

	if (!mt || !startp || !next || !mt_is_alloc(mt) || !entry ||
	    mt_check_entry(entry) || range_lo > range_hi)
		ret = -EINVAL;
	else
		ret = mt_alloc_cyclic_locked(mt, startp, entry, range_lo,
					     range_hi, next);
	if (!mas)
		return ret;
	if (ret < 0) {
		mas_fail(mas, ret);
		return ret;
	}
	mas->index = mas->last = *startp;
	mas_written(mas);
	return ret;
}

int rg_mas_preallocate(struct rg_ma_state *mas, void *entry, unsigned int gfp)
{
	struct rg_slab_cache *c;
	unsigned int req, bcap = 0;
	int ret;

	(void)gfp;
	if (unlikely(!mas_ok(mas)))
		return -EINVAL;
	ret = mas_check(mas, entry);
	if (ret)
		return ret;
	rg_mas_destroy(mas);
	req = rgi_mt_prealloc_count(mas->tree, mas->index, mas->last, entry,
				    NULL, &bcap);
	if (bcap) {
		void *b = rgi_mt_batch_alloc(bcap);

		if (!b)
			return -ENOMEM;
		*mas_batchp(mas) = b;
	}
	if (req) {
		c = rgi_mt_cache();
		if (c)
			mas->sheaf = rg_slab_prefill_sheaf(c, req);
		if (!mas->sheaf) {
			mas_drop_batch(mas);
			return -ENOMEM;
		}
		rgi_mt_account_request(mas->tree, req);
	}
	mas->alloc_req = req;
	return 0;
}

void rg_mas_store_prealloc(struct rg_ma_state *mas, void *entry)
{
	int ret;

	if (unlikely(!mas_ok(mas)))
		return;
	ret = rgi_mt_write(mas->tree, mas->index, mas->last, entry, &mas->sheaf,
			   mas->alloc_req, mas_batchp(mas), NULL);
	RGI_ASSERT(ret == 0);
	mas->alloc_req = 0;
	mas_drop_batch(mas);
	mas_written(mas);
}

void rg_mas_destroy(struct rg_ma_state *mas)
{
	if (unlikely(!mas))
		return;
	if (mas->sheaf) {
		rg_slab_return_sheaf(rgi_mt_cache(), mas->sheaf);
		mas->sheaf = NULL;
	}
	mas->alloc_req = 0;
	mas_drop_batch(mas);
}
