// SPDX-License-Identifier: MIT
/*
 * Maple Tree: the one write path. Theory of operation.
 *
 * Invariants (checked by rg_mtree_validate())
 *   Pivots strictly increase inside the node's range; every non-root node
 *   holds at least 6 (16-slot) or 4 (10-slot) entries and a root internal
 *   node at least 2; all leaves are at the same depth (the tree's height);
 *   no two adjacent ranges are both NULL, across leaves too, so a free run
 *   is always one slot and gap searches are exact; a root leaf is never all
 *   NULL; stored gaps are exact. The root pointer holds NULL, the entry of
 *   index 0 alone (never one whose low bits read as a node), or a node.
 *
 * Steps of a write
 *   Every store, whatever API it comes from, goes through rgi_mt_write()
 *   (rgi_mt_erase() and rgi_mt_write_path() enter with a walk done):
 *   (1) walk to the leaf of `first`; a NULL store first grows its range over
 *   the NULL ranges next to it; a range that ends past the leaf also walks
 *   to `last` (a spanning store); (2) classify the store (exact fit, append,
 *   slot store, node store, split, rebalance, spanning, new root) and
 *   compute its worst-case node count; (3) prefill a slab sheaf with exactly
 *   that many nodes, the only point that can fail (-ENOMEM leaves the tree
 *   untouched); (4) store, taking nodes only from the sheaf; (5) give the
 *   sheaf back and count requested / used (stats.overuse counts stores that
 *   needed more: it must stay 0, and the tests check it after every store).
 *
 * The worst case
 *   Depth 1 is the root, the leaves are at depth h. v is the depth of the
 *   lowest internal node on the path with a free slot, s the depth of the
 *   lowest one with more than minimum + 1 entries (the root: more than 2);
 *   0 when there is none, or always with RG_MT_FLAGS_NO_VACANCY. Split:
 *   2(h - v) + 1; rebalance: 2(h - min(v, s)) + 1; spanning store:
 *   3(h - min(v, s)) + 1, where v and s are taken down to the deepest node
 *   A holding the whole range, and A counts as sufficient only if it keeps
 *   more than minimum + 1 entries after losing the children the range
 *   covers. The rebuild never needs more: a split builds 2 nodes per full
 *   level and 1 at the vacant one (or a new root); a rebalance merges (1
 *   node) until a level redistributes (2 + 1 above) or reaches a sufficient
 *   node; a spanning store builds at most 3 nodes per level below A, 2 at A,
 *   then behaves as a split or a rebalance above A.
 *
 * Stores inside one leaf
 *   Append, slot and node stores rewrite the leaf in place outside RCU mode
 *   and replace it by one new leaf in RCU mode (they change a pivot and a
 *   slot, two words a lock-free reader could see torn); an exact fit is one
 *   slot store, 0 nodes, in any mode.
 *
 * The rebuild
 *   One bottom-up pass over "runs": at each level the run is the nodes
 *   being replaced, from the left boundary path to the right one. Its new
 *   content is the kept part of the boundary nodes plus the nodes built one
 *   level below. If the run is one node and the content fits, that node is
 *   rewritten (in place, or in RCU mode by a new node published with one
 *   pointer store) and the write ends. Otherwise the content is cut into
 *   1..3 new nodes, after taking in one neighbour first if it is too small,
 *   and the run moves up. A run that covers a whole level ends as a new
 *   root (the tree shrinks); a root that overflows gets a new root above
 *   it. An overflow at the right edge of the tree (appends, as in an
 *   allocation fill) first fills the left sibling up, so appended data ends
 *   in full nodes.
 *
 * The leaf split shortcut
 *   The common leaf overflow outside RCU mode (the parent can take the
 *   result without changing further up) skips the runs: wr_split_leaf()
 *   refills the leaf and a sibling with room in place, or splits the leaf
 *   into itself and one new leaf, as the rebuild would except that it
 *   shares with siblings holding at most MT_PUSH_MAX entries (random-order
 *   trees ~12% smaller, ~15% slower to build; measured at 10^6 ranges).
 *
 * Freeing
 *   Nodes strictly between the two original boundary paths are dead with
 *   their subtrees; boundary nodes are retired once the new structure is
 *   linked (the two paths share nodes, which are retired once). Outside RCU
 *   mode they are freed at once; in RCU mode they go to one deferred batch
 *   (maple_rcu.c, which also gives the order a store ends in).
 *
 * What never allocates
 *   Loads, walks, iteration, gap searches, validate, dump, and every store
 *   classified exact fit, append, slot or node store outside RCU mode. In
 *   RCU mode a store that retires nodes also allocates its batch
 *   (rgi_malloc), and destroy one small batch (waiting for a grace period
 *   instead if that fails). Limits: height at most RG_MT_MAX_HEIGHT (far
 *   beyond any memory); 64-bit unsigned long.
 */
#include <stdatomic.h>

#include "maple_gap.h"
#include "maple_rcu.h"
#include "maple_walk.h"
#include "maple_write.h"

/* ---- the write path ---- */

/*
 * Capacity of one level's content while it is rebuilt (struct mt_big):
 * the kept slots of the two boundary nodes (at most 15 each) and what the
 * level below built (at most 3 nodes; at a leaf, the stored range and the
 * parts of the ranges it cuts), plus one neighbour node when that is below
 * a node's minimum, or at the right edge of the tree when both fit in two
 * nodes (at most 2 x 16 then); every add is asserted in debug builds.
 */
#define MT_BIG 48
/*
 * Nodes that join a boundary path through a neighbour taken in: at most
 * one neighbour per level, and one taken in at depth d adds at most d - 1
 * nodes, so a store notes at most RG_MT_MAX_HEIGHT (RG_MT_MAX_HEIGHT - 1)
 * / 2 of them (465); asserted on every add.
 */
#define MT_EXTRA 512
_Static_assert(MT_EXTRA >= RG_MT_MAX_HEIGHT * (RG_MT_MAX_HEIGHT - 1) / 2,
	       "MT_EXTRA holds a boundary path rebuilt at every level");
/* Nodes one store may build: 3 per level (spanning store) and a root. */
#define MT_BUILT (3 * MT_DEPTHS + 4)

/*
 * The content of one level while it is rebuilt. orig: for a child that
 * stays linked, its parent word without end (parent | slot << 4); 0 for
 * entries and new nodes. A child whose new place equals orig is not
 * written (outside RCU mode), so a rebuilt parent does not touch the cold
 * children that kept their slot.
 */
struct mt_big {
	unsigned long piv[MT_BIG];
	void *slot[MT_BIG];
	unsigned long gap[MT_BIG];
	uintptr_t orig[MT_BIG];
	unsigned int n;
	/* b[0..same) are slots 0..same-1 of same_node, as they are now. */
	unsigned int same;
	struct mt_node *same_node;
};

static void big_reset(struct mt_big *b, struct mt_node *same_node,
		      unsigned int same)
{
	b->n = 0;
	b->same_node = same_node;
	b->same = same;
}

struct mt_wr {
	struct rg_maple_tree *mt;
	unsigned long first, last;
	void *entry;
	void *old;
	unsigned int h;
	enum mt_type itype;
	bool alloc;
	bool spanning;
	bool erase; /* store NULL over the whole range holding first */
	bool noop; /* erase of an empty index: nothing to do */
	unsigned long rfirst, rlast; /* erase: the range removed */
	int type;
	unsigned int n_new; /* leaf entries after a non-spanning store */
	unsigned int a; /* spanning: deepest depth shared by both paths */
	struct mt_path lp, rp;
	/* original boundary paths (nodes and slots) */
	struct mt_node *lp0[MT_DEPTHS], *rp0[MT_DEPTHS];
	unsigned char lo0[MT_DEPTHS], ro0[MT_DEPTHS];
	/* nodes that joined a boundary path through a neighbour */
	struct mt_node *extra[MT_EXTRA];
	unsigned char extra_d[MT_EXTRA];
	unsigned int nextra;
	/* nodes */
	struct rg_slab_cache *cache;
	struct rg_slab_sheaf *sheaf;
	unsigned int used;
	/* RCU mode: retired nodes and subtrees, and the nodes built */
	bool rcu;
	struct mt_rcu_batch *batch;
	void *built[MT_BUILT]; /* encoded */
	unsigned int nbuilt;
};

static struct mt_node *wr_alloc(struct mt_wr *wr)
{
	void *p = NULL;

	if (wr->sheaf)
		p = rg_slab_alloc_from_sheaf(wr->cache, wr->sheaf);
	if (unlikely(!p)) {
		/* More than preallocated: a bug the stats report (overuse). */
		if (!wr->cache)
			wr->cache = rgi_mt_cache();
		RGI_ASSERT(wr->cache);
		p = rg_slab_alloc(wr->cache);
		RGI_ASSERT(p);
	}
	MT_UNPOISON(p);
	wr->used++;
	mt_nodes_add(wr->mt, 1);
	return p;
}

/* Publish @enode where @old was: in its parent's slot or as the root. */
static void wr_replace(struct mt_wr *wr, struct mt_node *old, void *enode)
{
	struct mt_node *p = mt_parent(old);
	struct mt_node *n = mt_to_node(enode);
	unsigned int s = mt_pslot(old);

	n->parent = (uintptr_t)p | ((uintptr_t)s << 4) | mt_end(n);
	if (p)
		__atomic_store_n(&mt_slots(p, wr->itype)[s], enode,
				 __ATOMIC_RELEASE);
	else
		__atomic_store_n(&wr->mt->root, enode, __ATOMIC_RELEASE);
}

/* Record an item for the deferred free (RCU mode). */
static void wr_defer(struct mt_wr *wr, uintptr_t item)
{
	struct mt_rcu_batch *b = wr->batch;

	RGI_ASSERT(b && b->n < b->cap);
	b->item[b->n++] = item;
}

/*
 * Mark a replaced node dead (after its replacement is linked) and free it:
 * at once outside RCU mode, after a grace period in RCU mode.
 */
static void wr_retire(struct mt_wr *wr, struct mt_node *n)
{
	if (!n || mt_dead(n))
		return;
	__atomic_store_n(&n->parent, (uintptr_t)n | mt_end(n),
			 __ATOMIC_RELEASE);
	if (wr->rcu) {
		wr_defer(wr, (uintptr_t)n);
		mt_nodes_add(wr->mt, -1);
		return;
	}
	mt_node_free(wr->mt, n);
}

/*
 * A subtree cut off whole. RCU mode: it is still linked (the rebuild runs
 * before the new nodes are), so only record it; wr_finish_rcu() marks it
 * dead once the new structure is in place.
 */
static void wr_kill_subtree(struct mt_wr *wr, void *enode)
{
	if (wr->rcu) {
		wr_defer(wr, (uintptr_t)enode | MT_ITEM_SUBTREE);
		return;
	}
	rgi_mt_free_subtree(wr->mt, enode);
}

/* Walk to the leaf of @index recording the whole path. */
static void wr_walk_path(struct mt_wr *wr, struct mt_path *p,
			 unsigned long index)
{
	void *e = wr->mt->root;
	unsigned long min = 0, max = ULONG_MAX;

	for (unsigned int d = 1;; d++) {
		struct mt_node *n = mt_to_node(e);
		enum mt_type t = mt_type_of(e);
		unsigned long *piv = mt_pivots(n, t);
		unsigned int np = mt_npivots(t);
		unsigned int off;

		mt_prefetch(n);
		off = mt_slot_of(piv, np, index);

		p->node[d] = n;
		p->off[d] = (unsigned char)off;
		p->min[d] = min;
		p->max[d] = max;
		if (t == MT_LEAF) {
			wr->h = d;
			return;
		}
		min = mt_slot_min(piv, off, min);
		max = mt_slot_max(piv, np, off, max);
		e = mt_slots(n, t)[off];
	}
}

static void big_add(struct mt_big *b, unsigned long piv, void *slot,
		    unsigned long gap)
{
	RGI_DEBUG_ASSERT(b->n < MT_BIG);
	b->piv[b->n] = piv;
	b->slot[b->n] = slot;
	b->gap[b->n] = gap;
	b->orig[b->n] = 0;
	b->n++;
}

/* Add child @i of internal node @from, which keeps its place for now. */
static void big_add_child(struct mt_big *b, struct mt_node *from,
			  enum mt_type t, unsigned int i, unsigned long piv)
{
	big_add(b, piv, mt_slots(from, t)[i],
		t == MT_ARANGE ? from->a.gap[i] : 0);
	b->orig[b->n - 1] = (uintptr_t)from | (uintptr_t)i << 4;
}

/*
 * Append the content of the leaf level to @b: left kept part, the new
 * range, right part. The caller resets @b (big_reset()).
 */
static void wr_leaf_content(struct mt_wr *wr, struct mt_big *b)
{
	unsigned int h = wr->h;
	struct mt_node *L = wr->lp.node[h], *R = wr->rp.node[h];
	unsigned int o1 = wr->lp.off[h], o2 = wr->rp.off[h];
	unsigned long r1min = mt_slot_min(L->r.pivot, o1, wr->lp.min[h]);
	unsigned long rmax = wr->rp.max[h];
	unsigned long r2max = mt_slot_max(R->r.pivot, MT_R_PIVOTS, o2, rmax);
	unsigned int rend = mt_end(R);

	for (unsigned int i = 0; i < o1; i++)
		big_add(b, L->r.pivot[i], L->r.slot[i], 0);
	if (wr->first > r1min)
		big_add(b, wr->first - 1, L->r.slot[o1], 0);
	big_add(b, wr->last, wr->entry, 0);
	if (wr->last < r2max)
		big_add(b, r2max, R->r.slot[o2], 0);
	for (unsigned int i = o2 + 1; i <= rend; i++)
		big_add(b, mt_slot_max(R->r.pivot, MT_R_PIVOTS, i, rmax),
			R->r.slot[i], 0);
}

/* Largest NULL run of leaf content b[lo..hi) starting at @min. */
static unsigned long big_leaf_gap(const struct mt_big *b, unsigned int lo,
				  unsigned int hi, unsigned long min)
{
	unsigned long g = 0, start = min;

	for (unsigned int i = lo; i < hi; i++) {
		if (!b->slot[i]) {
			unsigned long sz = b->piv[i] - start == ULONG_MAX ?
						   ULONG_MAX :
						   b->piv[i] - start + 1;

			if (sz > g)
				g = sz;
		}
		start = b->piv[i] + 1;
	}
	return g;
}

/*
 * Write content b[lo..hi) into node @n of type @t spanning [min, max] and
 * adopt its children. Keeps the parent address and slot. Returns the
 * node's largest gap (allocation trees) or 0.
 */
static unsigned long wr_fill(struct mt_wr *wr, struct mt_node *n,
			     enum mt_type t, const struct mt_big *b,
			     unsigned int lo, unsigned int hi,
			     unsigned long min, unsigned long max)
{
	unsigned int cnt = hi - lo, np = mt_npivots(t), ns = mt_nslots(t);
	unsigned long *piv = mt_pivots(n, t);
	void **sl = mt_slots(n, t);
	unsigned long g = 0;
	/* A node rewritten in place keeps its unchanged first slots. */
	unsigned int start =
		n == b->same_node && lo == 0 ? RGI_MIN(b->same, cnt) : 0;

	RGI_DEBUG_ASSERT(cnt >= 1 && cnt <= ns);
	RGI_DEBUG_ASSERT(b->piv[hi - 1] == max);
	for (unsigned int i = start; i < cnt; i++) {
		sl[i] = b->slot[lo + i];
		if (i < np)
			piv[i] = b->piv[lo + i];
	}
	for (unsigned int i = cnt; i < np; i++)
		piv[i] = max;
	for (unsigned int i = cnt; i < ns; i++)
		sl[i] = NULL;
	mt_set_end(n, cnt - 1);
	if (t == MT_LEAF) {
		if (wr->alloc)
			g = big_leaf_gap(b, lo, hi, min);
		return g;
	}
	if (t == MT_ARANGE) {
		for (unsigned int i = start; i < cnt; i++)
			n->a.gap[i] = b->gap[lo + i];
		for (unsigned int i = cnt; i < ns; i++)
			n->a.gap[i] = 0;
		memset(n->a.pad, 0, sizeof(n->a.pad));
		g = mt_gap_refresh(n, cnt - 1);
	}
	if (likely(!wr->rcu)) {
		for (unsigned int i = start; i < cnt; i++)
			if (b->orig[lo + i] !=
			    ((uintptr_t)n | (uintptr_t)i << 4))
				mt_set_parent(mt_to_node(sl[i]), n, i);
		return g;
	}
	/*
	 * RCU mode: a child still linked under its old parent is adopted
	 * only after the new nodes are (wr_finish_rcu()), so a reader
	 * climbing from it never reaches an unlinked node. Children built by
	 * this store (no parent yet) are adopted now: nobody can see them.
	 */
	for (unsigned int i = 0; i < cnt; i++) {
		struct mt_node *c = mt_to_node(sl[i]);

		if (!mt_parent(c))
			mt_set_parent(c, n, i);
	}
	return g;
}

/* Build a new node from b[lo..hi); its parent is set when it is linked. */
static void *wr_build(struct mt_wr *wr, enum mt_type t, const struct mt_big *b,
		      unsigned int lo, unsigned int hi, unsigned long min,
		      unsigned long max, unsigned long *gap)
{
	struct mt_node *n = wr_alloc(wr);
	void *enode = mt_mk_enode(n, t);

	n->parent = 0;
	*gap = wr_fill(wr, n, t, b, lo, hi, min, max);
	if (wr->rcu) {
		RGI_ASSERT(wr->nbuilt < MT_BUILT);
		wr->built[wr->nbuilt++] = enode;
	}
	return enode;
}

static void wr_note_extra(struct mt_wr *wr, struct mt_node *n, unsigned int d)
{
	RGI_ASSERT(wr->nextra < MT_EXTRA);
	wr->extra[wr->nextra] = n;
	wr->extra_d[wr->nextra] = (unsigned char)d;
	wr->nextra++;
}

/* Does the run at depth d cover its whole level? */
static bool wr_whole(struct mt_wr *wr, unsigned int d)
{
	for (unsigned int k = 1; k < d; k++)
		if (wr->lp.off[k] != 0 ||
		    wr->rp.off[k] != mt_end(wr->rp.node[k]))
			return false;
	return true;
}

/* Child at slot @off of path node at depth k - 1, into path depth k. */
static void path_descend(struct mt_wr *wr, struct mt_path *p, unsigned int k,
			 bool rightmost)
{
	struct mt_node *par = p->node[k - 1];
	unsigned int off = p->off[k - 1];
	unsigned long *piv = mt_pivots(par, wr->itype);
	unsigned int np = mt_npivots(wr->itype);
	struct mt_node *c = mt_to_node(mt_slots(par, wr->itype)[off]);

	p->node[k] = c;
	p->min[k] = mt_slot_min(piv, off, p->min[k - 1]);
	p->max[k] = mt_slot_max(piv, np, off, p->max[k - 1]);
	p->off[k] = (unsigned char)(rightmost ? mt_end(c) : 0);
	wr_note_extra(wr, c, k);
}

/*
 * The run at depth d is too small: take in the neighbouring node at the
 * same level (a sibling if there is one, else a cousin) and add its content
 * to @b. The run does not cover the whole level, so a neighbour exists.
 */
/* Entries of the left sibling of the run's left node at depth d. */
/* Entries of the left (-1) or right (1) sibling of the run at depth d. */
static unsigned int wr_sib_count(struct mt_wr *wr, unsigned int d, int dir)
{
	struct mt_path *p = dir < 0 ? &wr->lp : &wr->rp;
	void *sib =
		mt_slots(p->node[d - 1], wr->itype)[(int)p->off[d - 1] + dir];

	return mt_end(mt_to_node(sib)) + 1;
}

static void wr_take_neighbour(struct mt_wr *wr, struct mt_big *b,
			      unsigned int d, enum mt_type t, int want)
{
	struct mt_big tmp;
	struct mt_node *nb;
	unsigned long nmin, nmax;
	unsigned int k, end;
	bool left;

	if (want)
		left = want < 0;
	else if (wr->lp.off[d - 1] > 0)
		left = true;
	else if (wr->rp.off[d - 1] < mt_end(wr->rp.node[d - 1]))
		left = false;
	else {
		left = false;
		for (k = d - 1; k >= 1; k--)
			if (wr->lp.off[k] > 0) {
				left = true;
				break;
			}
	}
	if (left) {
		for (k = d - 1; wr->lp.off[k] == 0; k--)
			RGI_ASSERT(k > 1);
		wr->lp.off[k]--;
		for (unsigned int j = k + 1; j <= d; j++)
			path_descend(wr, &wr->lp, j, true);
		nb = wr->lp.node[d];
		nmin = wr->lp.min[d];
		nmax = wr->lp.max[d];
	} else {
		for (k = d - 1; wr->rp.off[k] == mt_end(wr->rp.node[k]); k--)
			RGI_ASSERT(k > 1);
		wr->rp.off[k]++;
		for (unsigned int j = k + 1; j <= d; j++)
			path_descend(wr, &wr->rp, j, false);
		nb = wr->rp.node[d];
		nmin = wr->rp.min[d];
		nmax = wr->rp.max[d];
	}
	(void)nmin;
	/* The neighbour's content. */
	end = mt_end(nb);
	big_reset(&tmp, NULL, 0);
	{
		unsigned long *piv = mt_pivots(nb, t);
		void **sl = mt_slots(nb, t);
		unsigned int np = mt_npivots(t);

		for (unsigned int i = 0; i <= end; i++) {
			unsigned long pv = mt_slot_max(piv, np, i, nmax);

			if (t == MT_LEAF)
				big_add(&tmp, pv, sl[i], 0);
			else
				big_add_child(&tmp, nb, t, i, pv);
		}
	}
	if (left) {
		RGI_DEBUG_ASSERT(tmp.n + b->n <= MT_BIG);
		memmove(b->piv + tmp.n, b->piv, b->n * sizeof(b->piv[0]));
		memmove(b->slot + tmp.n, b->slot, b->n * sizeof(b->slot[0]));
		memmove(b->gap + tmp.n, b->gap, b->n * sizeof(b->gap[0]));
		memmove(b->orig + tmp.n, b->orig, b->n * sizeof(b->orig[0]));
		memcpy(b->piv, tmp.piv, tmp.n * sizeof(b->piv[0]));
		memcpy(b->slot, tmp.slot, tmp.n * sizeof(b->slot[0]));
		memcpy(b->gap, tmp.gap, tmp.n * sizeof(b->gap[0]));
		memcpy(b->orig, tmp.orig, tmp.n * sizeof(b->orig[0]));
		b->n += tmp.n;
		b->same = 0;
	} else {
		for (unsigned int i = 0; i < tmp.n; i++) {
			big_add(b, tmp.piv[i], tmp.slot[i], tmp.gap[i]);
			b->orig[b->n - 1] = tmp.orig[i];
		}
	}
}

/* Free the subtrees strictly between the original boundaries at depth d. */
static void wr_kill_middles(struct mt_wr *wr, unsigned int d)
{
	struct mt_node *P = wr->lp0[d - 1], *Q = wr->rp0[d - 1];
	unsigned int pi = wr->lo0[d - 1], qi = wr->ro0[d - 1];
	void **ps = mt_slots(P, wr->itype), **qs = mt_slots(Q, wr->itype);

	if (P == Q) {
		for (unsigned int i = pi + 1; i < qi; i++)
			wr_kill_subtree(wr, ps[i]);
		return;
	}
	for (unsigned int i = pi + 1; i <= mt_end(P); i++)
		wr_kill_subtree(wr, ps[i]);
	for (unsigned int i = 0; i < qi; i++)
		wr_kill_subtree(wr, qs[i]);
}

/* Retire every boundary node deeper than @top (0: all of them). */
static void wr_retire_boundaries(struct mt_wr *wr, unsigned int top,
				 struct mt_node *keep)
{
	for (unsigned int d = wr->h; d > top; d--) {
		/* (a node freed outside RCU mode is not read again) */
		if (wr->lp0[d] != keep)
			wr_retire(wr, wr->lp0[d]);
		if (wr->rp0[d] != keep && wr->rp0[d] != wr->lp0[d])
			wr_retire(wr, wr->rp0[d]);
	}
	for (unsigned int i = 0; i < wr->nextra; i++)
		if (wr->extra_d[i] > top && wr->extra[i] != keep)
			wr_retire(wr, wr->extra[i]);
}

/* Sizes of k nodes for n entries; right-edge content is packed left. */
static unsigned int wr_sizes(unsigned int n, unsigned int cap,
			     unsigned int minc, bool right_edge,
			     unsigned int *sz)
{
	unsigned int k = (n + cap - 1) / cap;

	if (k == 1) {
		sz[0] = n;
	} else if (k == 2 && right_edge) {
		sz[0] = RGI_MIN(cap, n - minc);
		sz[1] = n - sz[0];
	} else {
		for (unsigned int i = 0; i < k; i++)
			sz[i] = n / k + (i < n % k);
	}
	return k;
}

/*
 * The rebuild (see the theory of operation). On entry lp and rp hold the
 * boundary paths to the leaves of first and last, and the leaf content
 * has not been computed yet.
 */
static void wr_rebuild(struct mt_wr *wr)
{
	struct rg_maple_tree *mt = wr->mt;
	struct mt_big bigs[2];
	struct mt_big *b = &bigs[0], *up = &bigs[1];
	unsigned int h = wr->h;
	void *nk[4];
	unsigned long nkmax[4], nkgap[4];
	uintptr_t nkorig[4];
	unsigned int nkn = 0;
	bool keep;

	for (unsigned int d = 1; d <= h; d++) {
		wr->lp0[d] = wr->lp.node[d];
		wr->rp0[d] = wr->rp.node[d];
		wr->lo0[d] = wr->lp.off[d];
		wr->ro0[d] = wr->rp.off[d];
	}
	wr->nextra = 0;
	big_reset(b, wr->lp.node[h], wr->lp.off[h]);
	wr_leaf_content(wr, b);

	for (unsigned int d = h;; d--) {
		enum mt_type t = d == h ? MT_LEAF : wr->itype;
		unsigned int cap = mt_nslots(t), minc = mt_minslots(t);
		struct mt_node *X = wr->lp.node[d], *Y = wr->rp.node[d];
		unsigned long lo = wr->lp.min[d], hi = wr->rp.max[d];
		bool whole = wr_whole(wr, d);
		unsigned int sz[4], k, at;

		if (d >= 2)
			wr_kill_middles(wr, d);

		if (whole && b->n <= cap) {
			/* The content is the new root; all above is dead. */
			for (unsigned int j = d - 1; j >= 2; j--)
				wr_kill_middles(wr, j);
			if (t == MT_LEAF && b->n == 1 && !b->slot[0]) {
				__atomic_store_n(&mt->root, NULL,
						 __ATOMIC_RELEASE);
				mt_set_height(mt, 0);
				wr_retire_boundaries(wr, 0, NULL);
			} else if (t != MT_LEAF && b->n == 1) {
				struct mt_node *c = mt_to_node(b->slot[0]);

				/*
				 * The root first: until then a reader that
				 * climbs to c must find its old parent.
				 */
				__atomic_store_n(&mt->root, b->slot[0],
						 __ATOMIC_RELEASE);
				__atomic_store_n(&c->parent,
						 (uintptr_t)mt_end(c),
						 __ATOMIC_RELEASE);
				mt_set_height(mt, h - d);
				wr_retire_boundaries(wr, 0, c);
			} else if (X == Y && d == 1 && !wr->rcu) {
				wr_fill(wr, X, t, b, 0, b->n, lo, hi);
				wr_retire_boundaries(wr, 1, NULL);
			} else {
				unsigned long g;
				void *r =
					wr_build(wr, t, b, 0, b->n, lo, hi, &g);

				__atomic_store_n(&mt->root, r,
						 __ATOMIC_RELEASE);
				mt_set_height(mt, h - d + 1);
				wr_retire_boundaries(wr, 0, NULL);
			}
			return;
		}
		if (X == Y && b->n <= cap && b->n >= minc) {
			/* The run is one node and the content fits. */
			unsigned long g;

			if (!wr->rcu) {
				g = wr_fill(wr, X, t, b, 0, b->n, lo, hi);
				wr_retire_boundaries(wr, d, NULL);
				if (wr->alloc)
					mt_gap_up(X, g);
			} else {
				void *r =
					wr_build(wr, t, b, 0, b->n, lo, hi, &g);

				wr_replace(wr, X, r);
				wr_retire_boundaries(wr, d, NULL);
				wr_retire(wr, X);
				if (wr->alloc)
					mt_gap_up(mt_to_node(r), g);
			}
			return;
		}
		if (b->n < minc) {
			RGI_ASSERT(d > 1);
			wr_take_neighbour(wr, b, d, t, 0);
			lo = wr->lp.min[d];
			hi = wr->rp.max[d];
		} else if (X == Y && b->n > cap && d > 1 && hi == ULONG_MAX &&
			   wr->lp.off[d - 1] > 0 &&
			   b->n + wr_sib_count(wr, d, -1) <= 2 * cap) {
			/*
			 * Overflow at the right edge of the tree (appends):
			 * fill the left sibling up instead of splitting (two
			 * nodes for two, the parent keeps its count), so
			 * appended data ends up in full nodes. Elsewhere this
			 * path splits (leaves outside RCU mode first try to
			 * share with a sibling in wr_split_leaf()).
			 */
			wr_take_neighbour(wr, b, d, t, -1);
			lo = wr->lp.min[d];
		}
		k = wr_sizes(b->n, cap, minc, hi == ULONG_MAX, sz);
		RGI_ASSERT(k <= 3);
		at = 0;
		nkn = 0;
		/*
		 * A plain split outside RCU mode keeps the node as its left
		 * part: one node fewer to take, fill cold and free, and the
		 * children of that part keep their parent word.
		 */
		keep = !wr->rcu && wr->lp.node[d] == wr->lp0[d] &&
		       wr->rp.node[d] == wr->lp0[d];
		for (unsigned int i = 0; i < k; i++) {
			unsigned long nmin = at ? b->piv[at - 1] + 1 : lo;

			nkmax[nkn] = b->piv[at + sz[i] - 1];
			nkorig[nkn] = 0;
			if (i == 0 && keep) {
				nkorig[nkn] = X->parent & ~(uintptr_t)0xf;
				nkgap[nkn] =
					wr_fill(wr, X, t, b, at, at + sz[i],
						nmin, nkmax[nkn]);
				nk[nkn] = mt_mk_enode(X, t);
				wr->lp0[d] = wr->rp0[d] = NULL;
			} else {
				nk[nkn] =
					wr_build(wr, t, b, at, at + sz[i], nmin,
						 nkmax[nkn], &nkgap[nkn]);
			}
			nkn++;
			at += sz[i];
		}
		if (d == 1) {
			/* The root overflowed: a new root above. */
			unsigned long g;
			void *r;

			big_reset(up, NULL, 0);
			for (unsigned int i = 0; i < nkn; i++) {
				big_add(up, nkmax[i], nk[i], nkgap[i]);
				up->orig[i] = nkorig[i];
			}
			r = wr_build(wr, wr->itype, up, 0, up->n, 0, ULONG_MAX,
				     &g);
			__atomic_store_n(&mt->root, r, __ATOMIC_RELEASE);
			mt_set_height(mt, h + 1);
			RGI_ASSERT(mt->height <= RG_MT_MAX_HEIGHT);
			wr_retire_boundaries(wr, 0, NULL);
			return;
		}
		/* Content of the level above. */
		{
			struct mt_node *P = wr->lp.node[d - 1];
			struct mt_node *Q = wr->rp.node[d - 1];
			unsigned int pi = wr->lp.off[d - 1];
			unsigned int qi = wr->rp.off[d - 1];
			enum mt_type it = wr->itype;
			unsigned long *pp = mt_pivots(P, it);
			unsigned long *qp = mt_pivots(Q, it);
			unsigned int np = mt_npivots(it);
			unsigned long qmax = wr->rp.max[d - 1];

			big_reset(up, P, pi);
			for (unsigned int i = 0; i < pi; i++)
				big_add_child(up, P, it, i, pp[i]);
			for (unsigned int i = 0; i < nkn; i++) {
				big_add(up, nkmax[i], nk[i], nkgap[i]);
				up->orig[up->n - 1] = nkorig[i];
			}
			for (unsigned int i = qi + 1; i <= mt_end(Q); i++)
				big_add_child(up, Q, it, i,
					      mt_slot_max(qp, np, i, qmax));
		}
		{
			struct mt_big *tmp = b;

			b = up;
			up = tmp;
		}
	}
}

/* ---- classification ---- */

static unsigned int hist_bucket(unsigned int n)
{
	unsigned int b = 0;

	while (n >= 2 && b < RG_MT_HIST_BUCKETS - 1) {
		n >>= 1;
		b++;
	}
	return b;
}

void rgi_mt_account_request(struct rg_maple_tree *mt, unsigned int req)
{
	if (!req)
		return;
	mt->stats.preallocs++;
	mt->stats.nodes_requested += req;
	mt->stats.hist[hist_bucket(req)]++;
	if (req > mt->stats.max_requested)
		mt->stats.max_requested = req;
}

/* Node count of path node n: end + 1. */
static unsigned int node_count(struct mt_node *n)
{
	return mt_end(n) + 1;
}

/*
 * Lowest vacant (v) and sufficient (s) depths on lp at depths 1..top; 0 when
 * none. @extra: entries the node at depth @top may lose beyond one.
 */
static void wr_heights(struct mt_wr *wr, unsigned int top, unsigned int extra,
		       unsigned int *v, unsigned int *s)
{
	unsigned int cap = mt_nslots(wr->itype), minc = mt_minslots(wr->itype);

	*v = 0;
	*s = 0;
	for (unsigned int k = 1; k <= top; k++) {
		unsigned int c = node_count(wr->lp.node[k]);
		unsigned int e = k == top ? extra : 0;

		if (c < cap)
			*v = k;
		if (k == 1 ? c - e > 2 : c - e > minc + 1)
			*s = k;
	}
}

/*
 * A leaf about to overflow: start loading its two siblings, which
 * wr_split_leaf() looks at, while the store is classified and its nodes
 * preallocated.
 */
static void wr_prefetch_siblings(const struct mt_wr *wr)
{
	unsigned int h = wr->h;
	struct mt_node *P;
	unsigned int pi;
	void **ps;

	if (h < 2 || wr->rcu)
		return;
	P = wr->lp.node[h - 1];
	pi = wr->lp.off[h - 1];
	ps = mt_slots(P, wr->itype);
	for (unsigned int off = 0; off < RG_MT_NODE_SIZE; off += 64) {
		if (pi > 0)
			__builtin_prefetch((char *)mt_to_node(ps[pi - 1]) + off,
					   1);
		if (pi < mt_end(P))
			__builtin_prefetch((char *)mt_to_node(ps[pi + 1]) + off,
					   1);
	}
}

/* Classify the store walked in @wr; return the nodes it may need. */
static unsigned int wr_classify(struct mt_wr *wr)
{
	unsigned int h = wr->h, v, s, m;
	bool novac = (wr->mt->flags & RG_MT_FLAGS_NO_VACANCY) != 0;
	bool rcu = mt_in_rcu(wr->mt);

	if (wr->spanning) {
		unsigned int a = wr->a;

		wr->type = RG_MT_STORE_SPANNING;
		if (novac)
			return 3 * h + 1;
		wr_heights(wr, a, wr->rp.off[a] - wr->lp.off[a], &v, &s);
		m = RGI_MIN(v, s);
		return 3 * (h - m) + 1;
	}
	{
		struct mt_node *L = wr->lp.node[h];
		unsigned int o1 = wr->lp.off[h], o2 = wr->rp.off[h];
		unsigned int end = mt_end(L);
		unsigned long r1min =
			mt_slot_min(L->r.pivot, o1, wr->lp.min[h]);
		unsigned long r2max =
			mt_slot_max(L->r.pivot, MT_R_PIVOTS, o2, wr->lp.max[h]);
		unsigned int n = o1 + (wr->first > r1min) + 1 +
				 (wr->last < r2max) + (end - o2);

		wr->n_new = n;
		/*
		 * A root leaf left with one NULL range is not an exact fit: it
		 * goes away (the rebuild empties the tree, taking no node).
		 */
		if (o1 == o2 && wr->first == r1min && wr->last == r2max &&
		    !(h == 1 && n == 1 && !wr->entry)) {
			wr->type = RG_MT_STORE_EXACT_FIT;
			return 0;
		}
		if (n > MT_R_SLOTS) {
			wr->type = RG_MT_STORE_SPLIT;
			wr_prefetch_siblings(wr);
			if (novac)
				return 2 * h + 1;
			wr_heights(wr, h - 1, 0, &v, &s);
			return 2 * (h - v) + 1;
		}
		if (n < MT_R_MIN && h > 1) {
			wr->type = RG_MT_STORE_REBALANCE;
			if (novac)
				return 2 * h + 1;
			wr_heights(wr, h - 1, 0, &v, &s);
			m = RGI_MIN(v, s);
			return 2 * (h - m) + 1;
		}
		if (o1 == end && n > end + 1)
			wr->type = RG_MT_STORE_APPEND;
		else if (n == end + 1 && o2 - o1 <= 1)
			wr->type = RG_MT_STORE_SLOT;
		else
			wr->type = RG_MT_STORE_NODE;
		return rcu ? 1 : 0;
	}
}

/*
 * Walk for a store of [first, last]: grow a NULL store over the NULL ranges
 * next to it, walk both boundary paths, classify.
 */
static unsigned int wr_prepare(struct mt_wr *wr)
{
	struct mt_node *L;
	unsigned long *piv;
	unsigned int h, o1;

	wr_walk_path(wr, &wr->lp, wr->first);
	h = wr->h;
	L = wr->lp.node[h];
	piv = L->r.pivot;
	o1 = wr->lp.off[h];
	wr->old = L->r.slot[o1];
	if (wr->erase) {
		/* Erase: the store covers the whole range at first. */
		if (!wr->old) {
			wr->noop = true;
			wr->type = RG_MT_STORE_EXACT_FIT;
			return 0;
		}
		wr->first = mt_slot_min(piv, o1, wr->lp.min[h]);
		wr->last = mt_slot_max(piv, MT_R_PIVOTS, o1, wr->lp.max[h]);
		wr->rfirst = wr->first;
		wr->rlast = wr->last;
	}
	if (!wr->entry) {
		/* Grow over the NULL ranges on both sides. */
		struct mt_pos pos;
		bool moved = false;

		if (wr->first > wr->lp.min[h]) {
			unsigned int o = o1;

			if (o1 > 0 &&
			    wr->first == mt_slot_min(piv, o1, wr->lp.min[h]))
				o = o1 - 1;

			if (!L->r.slot[o]) {
				wr->first = mt_slot_min(piv, o, wr->lp.min[h]);
				wr->lp.off[h] = (unsigned char)o;
			}
		} else if (wr->first > 0) {
			rgi_mt_walk(wr->mt, wr->first - 1, &pos);
			if (!pos.entry) {
				wr->first = pos.rmin;
				moved = true;
			}
		}
		if (wr->last < wr->lp.max[h]) {
			unsigned int o = mt_slot_of_r(piv, wr->last + 1);

			if (!L->r.slot[o])
				wr->last = mt_slot_max(piv, MT_R_PIVOTS, o,
						       wr->lp.max[h]);
		} else if (wr->last < ULONG_MAX) {
			rgi_mt_walk(wr->mt, wr->last + 1, &pos);
			if (!pos.entry)
				wr->last = pos.rmax;
		}
		if (moved)
			wr_walk_path(wr, &wr->lp, wr->first);
	}
	if (wr->last > wr->lp.max[h]) {
		wr->spanning = true;
		wr_walk_path(wr, &wr->rp, wr->last);
		for (unsigned int d = 1; d <= h; d++)
			if (wr->lp.node[d] == wr->rp.node[d])
				wr->a = d;
	} else {
		wr->spanning = false;
		wr->rp.off[h] = (unsigned char)mt_slot_of_r(
			wr->lp.node[h]->r.pivot, wr->last);
	}
	return wr_classify(wr);
}

/* A non-spanning store: the right path is the left one. */
static void wr_copy_path(struct mt_wr *wr)
{
	unsigned int h = wr->h;
	unsigned char roff = wr->rp.off[h];

	for (unsigned int d = 1; d <= h; d++) {
		wr->rp.node[d] = wr->lp.node[d];
		wr->rp.off[d] = wr->lp.off[d];
		wr->rp.min[d] = wr->lp.min[d];
		wr->rp.max[d] = wr->lp.max[d];
	}
	wr->rp.off[h] = roff;
}

/*
 * A store that keeps the leaf within its bounds, outside RCU mode: rewrite
 * the leaf in place from the first changed slot on.
 */
static void wr_leaf_inplace(struct mt_wr *wr)
{
	unsigned int h = wr->h;
	struct mt_node *L = wr->lp.node[h];
	unsigned long *piv = L->r.pivot;
	void **sl = L->r.slot;
	unsigned int o1 = wr->lp.off[h], o2 = wr->rp.off[h], end = mt_end(L);
	unsigned long lmin = wr->lp.min[h], lmax = wr->lp.max[h];
	bool lead = wr->first > mt_slot_min(piv, o1, lmin);
	unsigned long r2max = mt_slot_max(piv, MT_R_PIVOTS, o2, lmax);
	bool trail = wr->last < r2max;
	void *s1 = sl[o1], *s2 = sl[o2];
	/* Slots o2 + 1..end move by shift; the new range and its kept ends
	 * take o1..o1 + lead + trail. */
	unsigned int head = o1 + lead + 1 + trail;
	unsigned int n = head + end - o2, k = o1;
	int shift = (int)head - (int)(o2 + 1);

	RGI_DEBUG_ASSERT(n <= MT_R_SLOTS);
	if (shift > 0) {
		for (unsigned int i = end; i > o2; i--) {
			unsigned int j = i + (unsigned int)shift;

			sl[j] = sl[i];
			if (j < MT_R_PIVOTS)
				piv[j] = mt_slot_max(piv, MT_R_PIVOTS, i, lmax);
		}
	} else if (shift < 0) {
		for (unsigned int i = o2 + 1; i <= end; i++) {
			unsigned int j = i - (unsigned int)-shift;

			sl[j] = sl[i];
			if (j < MT_R_PIVOTS)
				piv[j] = mt_slot_max(piv, MT_R_PIVOTS, i, lmax);
		}
	}
	if (lead) {
		sl[k] = s1;
		piv[k++] = wr->first - 1;
	}
	sl[k] = wr->entry;
	if (k < MT_R_PIVOTS)
		piv[k] = wr->last;
	k++;
	if (trail) {
		sl[k] = s2;
		if (k < MT_R_PIVOTS)
			piv[k] = r2max;
	}
	for (unsigned int i = n; i <= end; i++) {
		sl[i] = NULL;
		if (i < MT_R_PIVOTS)
			piv[i] = lmax;
	}
	mt_set_end(L, n - 1);
	if (wr->alloc && h > 1)
		mt_gap_up(L, mt_leaf_gap(L, lmin, lmax));
}

/* Append leaf @n (spanning up to @max) to @b. */
static void big_add_leaf(struct mt_big *b, struct mt_node *n, unsigned long max)
{
	for (unsigned int i = 0; i <= mt_end(n); i++)
		big_add(b, mt_slot_max(n->r.pivot, MT_R_PIVOTS, i, max),
			n->r.slot[i], 0);
}

/*
 * A leaf that overflows, outside RCU mode, when its parent can take the
 * result without changing further up: the most common case by far. Done
 * in place, without wr_rebuild()'s general machinery:
 * - at the right edge of the tree, with a left sibling that can hold part
 *   of the content: both are refilled, packed left (as wr_rebuild() does);
 * - elsewhere, with a sibling holding at most MT_PUSH_MAX entries (left
 *   first): the leaf and that sibling share the content evenly. No node is
 *   taken and the parent only moves one pivot: trees built in random order
 *   end up ~15% smaller, and the sibling (one node) is cheaper to touch
 *   than the new leaf plus the moving siblings of a split;
 * - otherwise, if the parent has a free slot: the leaf keeps the left part
 *   (half, or packed left at the right edge), one new leaf takes the rest
 *   and goes in the parent right after it. The new leaf and the siblings
 *   that move one slot are prefetched for writing while the content is
 *   built.
 * Returns false (nothing done) in every other case.
 */
#define MT_PUSH_MAX 12

static bool wr_split_leaf(struct mt_wr *wr)
{
	unsigned int h = wr->h;
	struct mt_node *L = wr->lp.node[h], *P, *A, *B = NULL, *R = NULL;
	enum mt_type it = wr->itype;
	unsigned long lmin = wr->lp.min[h], lmax = wr->lp.max[h], pmax;
	unsigned long amin, bmax, mid, g0, g1, *pp;
	unsigned int pi, pend, np, n, sz0, j;
	bool edge = lmax == ULONG_MAX;
	void **ps;
	struct mt_big b;

	if (h < 2)
		return false;
	P = wr->lp.node[h - 1];
	pend = mt_end(P);
	pi = wr->lp.off[h - 1];
	pmax = wr->lp.max[h - 1];
	pp = mt_pivots(P, it);
	ps = mt_slots(P, it);
	np = mt_npivots(it);
	n = wr->n_new;

	/* The left sibling, the right one or a new leaf (j: A's slot). */
	A = pi > 0 ? mt_to_node(ps[pi - 1]) : NULL;
	if (A && (edge ? n + mt_end(A) + 1 <= 2 * MT_R_SLOTS :
			 mt_end(A) + 1 <= MT_PUSH_MAX)) {
		B = L;
		j = pi - 1;
	} else if (!edge && pi < pend &&
		   mt_end(mt_to_node(ps[pi + 1])) + 1 <= MT_PUSH_MAX) {
		A = L;
		B = mt_to_node(ps[pi + 1]);
		j = pi;
	} else if (pend + 1 < mt_nslots(it)) {
		A = L;
		j = pi;
		R = wr_alloc(wr);
		for (unsigned int off = 0; off < RG_MT_NODE_SIZE; off += 64)
			__builtin_prefetch((char *)R + off, 1);
		for (unsigned int i = pi + 1; i <= pend; i++)
			__builtin_prefetch(mt_to_node(ps[i]), 1);
	} else {
		return false;
	}
	amin = j ? pp[j - 1] + 1 : wr->lp.min[h - 1];
	bmax = R ? lmax : mt_slot_max(pp, np, j + 1, pmax);

	/* The content of A and B (or of the leaf alone), in order. */
	wr->rp.node[h] = L;
	wr->rp.max[h] = lmax;
	big_reset(&b, A, A == L ? wr->lp.off[h] : mt_end(A) + 1);
	if (A != L)
		big_add_leaf(&b, A, lmin - 1);
	wr_leaf_content(wr, &b);
	if (B && B != L)
		big_add_leaf(&b, B, bmax);
	RGI_DEBUG_ASSERT(b.n > MT_R_SLOTS && b.n <= 2 * MT_R_SLOTS);
	sz0 = edge ? RGI_MIN(MT_R_SLOTS, b.n - MT_R_MIN) : (b.n + 1) / 2;
	mid = b.piv[sz0 - 1];

	if (B) {
		/* Both refilled in place (A first: its prefix is in place);
		 * the parent keeps its count, only the pivot between moves. */
		g0 = wr_fill(wr, A, MT_LEAF, &b, 0, sz0, amin, mid);
		g1 = wr_fill(wr, B, MT_LEAF, &b, sz0, b.n, mid + 1, bmax);
		pp[j] = mid;
	} else {
		R->parent = 0;
		g1 = wr_fill(wr, R, MT_LEAF, &b, sz0, b.n, mid + 1, lmax);
		g0 = wr_fill(wr, L, MT_LEAF, &b, 0, sz0, lmin, mid);
		/* Open slot pi + 1 of the parent for the new leaf. */
		for (unsigned int i = pend; i > pi; i--) {
			ps[i + 1] = ps[i];
			if (i + 1 < np)
				pp[i + 1] = mt_slot_max(pp, np, i, pmax);
			if (it == MT_ARANGE)
				P->a.gap[i + 1] = P->a.gap[i];
			mt_set_parent(mt_to_node(ps[i]), P, i + 1);
		}
		ps[pi + 1] = mt_mk_enode(R, MT_LEAF);
		if (pi + 1 < np)
			pp[pi + 1] = lmax;
		pp[pi] = mid;
		pend++;
		mt_set_end(P, pend);
		mt_set_parent(R, P, pi + 1);
	}
	if (it == MT_ARANGE) {
		P->a.gap[j] = g0;
		P->a.gap[j + 1] = g1;
		mt_gap_up(P, mt_gap_refresh(P, pend));
	}
	return true;
}

/* The root is NULL or a lone entry: the store needs at most one node. */
static unsigned int wr_root_classify(struct mt_wr *wr)
{
	void *root = wr->mt->root;

	wr->old = wr->first == 0 ? root : NULL;
	if (!wr->entry) {
		wr->type = RG_MT_STORE_EXACT_FIT;
		return 0;
	}
	if (wr->first == 0 && wr->last == 0 && !mt_looks_internal(wr->entry)) {
		wr->type = RG_MT_STORE_EXACT_FIT;
		return 0;
	}
	wr->type = RG_MT_STORE_NEW_ROOT;
	return 1;
}

static void wr_root_store(struct mt_wr *wr)
{
	struct rg_maple_tree *mt = wr->mt;
	void *root = mt->root;
	struct mt_big b;
	unsigned long g;
	void *r;

	if (wr->type == RG_MT_STORE_EXACT_FIT) {
		if (!wr->entry) {
			if (root && wr->first == 0)
				__atomic_store_n(&mt->root, NULL,
						 __ATOMIC_RELEASE);
		} else {
			__atomic_store_n(&mt->root, wr->entry,
					 __ATOMIC_RELEASE);
		}
		return;
	}
	big_reset(&b, NULL, 0);
	if (wr->first > 0) {
		if (root) {
			big_add(&b, 0, root, 0);
			if (wr->first > 1)
				big_add(&b, wr->first - 1, NULL, 0);
		} else {
			big_add(&b, wr->first - 1, NULL, 0);
		}
	}
	big_add(&b, wr->last, wr->entry, 0);
	if (wr->last < ULONG_MAX)
		big_add(&b, ULONG_MAX, NULL, 0);
	r = wr_build(wr, MT_LEAF, &b, 0, b.n, 0, ULONG_MAX, &g);
	__atomic_store_n(&mt->root, r, __ATOMIC_RELEASE);
	mt_set_height(mt, 1);
}

static void wr_init(struct mt_wr *wr, struct rg_maple_tree *mt,
		    unsigned long first, unsigned long last, void *entry)
{
	wr->mt = mt;
	wr->first = first;
	wr->last = last;
	wr->entry = entry;
	wr->old = NULL;
	wr->h = 0;
	wr->itype = mt_itype(mt);
	wr->alloc = mt_is_alloc(mt);
	wr->spanning = false;
	wr->erase = false;
	wr->noop = false;
	wr->n_new = 0;
	wr->a = 0;
	wr->nextra = 0;
	wr->cache = NULL;
	wr->sheaf = NULL;
	wr->used = 0;
	wr->rcu = mt_in_rcu(mt);
	wr->batch = NULL;
	wr->nbuilt = 0;
}

static unsigned int wr_plan(struct mt_wr *wr)
{
	if (!mt_root_is_node(wr->mt->root))
		return wr_root_classify(wr);
	return wr_prepare(wr);
}

static void wr_execute(struct mt_wr *wr)
{
	if (!mt_root_is_node(wr->mt->root)) {
		wr_root_store(wr);
		return;
	}
	switch (wr->type) {
	case RG_MT_STORE_EXACT_FIT: {
		unsigned int h = wr->h;
		struct mt_node *L = wr->lp.node[h];
		unsigned int o = wr->lp.off[h];
		bool was_null = !L->r.slot[o];

		__atomic_store_n(&L->r.slot[o], wr->entry, __ATOMIC_RELEASE);
		if (wr->alloc && wr->h > 1 && was_null != !wr->entry)
			mt_gap_up(L,
				  mt_leaf_gap(L, wr->lp.min[h], wr->lp.max[h]));
		return;
	}
	case RG_MT_STORE_APPEND:
	case RG_MT_STORE_SLOT:
	case RG_MT_STORE_NODE:
		/* A root leaf left with one NULL range goes away instead. */
		if (!wr->rcu && !(wr->h == 1 && wr->n_new == 1 && !wr->entry)) {
			wr_leaf_inplace(wr);
			return;
		}
		break;
	case RG_MT_STORE_SPLIT:
		if (!wr->rcu && wr_split_leaf(wr))
			return;
		break;
	default:
		break;
	}
	if (!wr->spanning)
		wr_copy_path(wr);
	wr_rebuild(wr);
}

/*
 * Items a store classified in @wr may retire in RCU mode: the boundary
 * nodes of both paths (2 per level), nodes that joined a path through a
 * neighbour (at most d - 1 at level d: h(h - 1) / 2), the replaced node,
 * and for a spanning store the subtrees strictly between the paths (at most
 * two nodes' worth of slots per level). 0 when nothing is retired: outside
 * RCU mode, exact fits (one slot store) and stores into a root that is not
 * a node.
 */
static unsigned int wr_batch_cap(const struct mt_wr *wr)
{
	unsigned int h = wr->h;

	if (!wr->rcu || wr->noop || wr->type == RG_MT_STORE_EXACT_FIT ||
	    wr->type == RG_MT_STORE_NEW_ROOT || !h)
		return 0;
	return 2 * h + h * (h - 1) / 2 + 2 +
	       (wr->spanning ? 2 * MT_R_SLOTS * h : 0);
}

unsigned int rgi_mt_prealloc_count(struct rg_maple_tree *mt,
				   unsigned long first, unsigned long last,
				   void *entry, int *type, unsigned int *bcap)
{
	struct mt_wr wr;
	unsigned int req;

	wr_init(&wr, mt, first, last, entry);
	req = wr_plan(&wr);
	if (type)
		*type = wr.type;
	if (bcap)
		*bcap = wr_batch_cap(&wr);
	return req;
}

/*
 * RCU mode, after the store linked its new nodes and marked the replaced
 * ones dead: mark the subtrees it cut off, let the children that moved to
 * new parents point at them, and hand the batch to call_rcu(). The batch
 * is queued last, so a reader that saw any pointer to a retired node
 * (including an old parent word) is inside a read-side critical section
 * the grace period waits for.
 */
static __attribute__((noinline)) void wr_finish_rcu(struct mt_wr *wr)
{
	struct mt_rcu_batch *b = wr->batch;
	enum mt_type it = wr->itype;

	for (unsigned int i = 0; b && i < b->n; i++) {
		uintptr_t item = b->item[i];

		if (item & MT_ITEM_SUBTREE)
			mt_nodes_add(wr->mt,
				     -(long)rgi_mt_kill_mark((
					     void *)(item & ~MT_ITEM_SUBTREE)));
	}
	for (unsigned int k = 0; k < wr->nbuilt; k++) {
		struct mt_node *n = mt_to_node(wr->built[k]);
		void **sl;
		unsigned int end;

		if (mt_is_leaf(wr->built[k]) || mt_dead(n))
			continue;
		sl = mt_slots(n, it);
		end = mt_end(n);
		for (unsigned int i = 0; i <= end; i++) {
			struct mt_node *c = mt_to_node(sl[i]);
			uintptr_t want;

			want = (uintptr_t)n | ((uintptr_t)i << 4) | mt_end(c);
			if (c->parent != want)
				__atomic_store_n(&c->parent, want,
						 __ATOMIC_RELEASE);
		}
	}
	wr->batch = NULL;
	if (b)
		rgi_mt_batch_defer(b);
}

/* Preallocate (unless given), store, give the rest back, account. */
static int wr_commit(struct mt_wr *wr, unsigned int need,
		     struct rg_slab_sheaf **sheafp, unsigned int req,
		     void **batchp)
{
	struct rg_maple_tree *mt = wr->mt;
	unsigned int bcap = unlikely(wr->rcu) ? wr_batch_cap(wr) : 0;

	if (sheafp) {
		/* Preallocated by the caller (possibly nothing). */
		if (*sheafp) {
			wr->sheaf = *sheafp;
			wr->cache = rgi_mt_cache();
			*sheafp = NULL;
		}
		if (batchp && *batchp) {
			wr->batch = *batchp;
			*batchp = NULL;
		}
		if (bcap && (!wr->batch || wr->batch->cap < bcap)) {
			/* Preallocated for another store (a misuse): retry. */
			rgi_mt_batch_free(wr->batch);
			wr->batch = rgi_mt_batch_alloc(bcap);
			if (!wr->batch) {
				if (wr->sheaf)
					rg_slab_return_sheaf(wr->cache,
							     wr->sheaf);
				return -ENOMEM;
			}
		}
	} else {
		req = need;
		if (bcap) {
			wr->batch = rgi_mt_batch_alloc(bcap);
			if (!wr->batch)
				return -ENOMEM;
		}
		if (need) {
			wr->cache = rgi_mt_cache();
			if (wr->cache)
				wr->sheaf =
					rg_slab_prefill_sheaf(wr->cache, need);
			if (!wr->sheaf) {
				rgi_mt_batch_free(wr->batch);
				return -ENOMEM;
			}
			rgi_mt_account_request(mt, need);
		}
	}
	wr_execute(wr);
	if (unlikely(wr->rcu || wr->batch)) {
		if (wr->rcu)
			wr_finish_rcu(wr);
		else
			rgi_mt_batch_free(wr->batch);
	}
	if (wr->sheaf)
		rg_slab_return_sheaf(wr->cache, wr->sheaf);
	mt->stats.stores++;
	mt->stats.store_type[wr->type]++;
	mt->stats.nodes_used += wr->used;
	if (wr->used > req)
		mt->stats.overuse++;
	return 0;
}

int rgi_mt_write(struct rg_maple_tree *mt, unsigned long first,
		 unsigned long last, void *entry, struct rg_slab_sheaf **sheafp,
		 unsigned int req, void **batchp, void **old)
{
	struct mt_wr wr;
	unsigned int need;

	wr_init(&wr, mt, first, last, entry);
	need = wr_plan(&wr);
	if (old)
		*old = wr.old;
	return wr_commit(&wr, need, sheafp, req, batchp);
}

int rgi_mt_write_path(struct rg_maple_tree *mt, const struct mt_path *path,
		      unsigned int h, unsigned long first, unsigned long last,
		      void *entry)
{
	struct mt_wr wr;
	unsigned int need;

	wr_init(&wr, mt, first, last, entry);
	for (unsigned int d = 1; d <= h; d++) {
		wr.lp.node[d] = path->node[d];
		wr.lp.off[d] = path->off[d];
		wr.lp.min[d] = path->min[d];
		wr.lp.max[d] = path->max[d];
	}
	wr.h = h;
	wr.old = wr.lp.node[h]->r.slot[wr.lp.off[h]];
	RGI_DEBUG_ASSERT(entry && last <= wr.lp.max[h]);
	wr.rp.off[h] =
		(unsigned char)mt_slot_of_r(wr.lp.node[h]->r.pivot, last);
	need = wr_classify(&wr);
	return wr_commit(&wr, need, NULL, 0, NULL);
}

int rgi_mt_erase(struct rg_maple_tree *mt, unsigned long index, void **old,
		 unsigned long *first, unsigned long *last)
{
	struct mt_wr wr;
	unsigned int need;
	int ret;

	*old = NULL;
	if (!mt_root_is_node(mt->root)) {
		struct mt_pos pos;

		rgi_mt_walk(mt, index, &pos);
		*first = pos.rmin;
		*last = pos.rmax;
		if (!pos.entry)
			return 0;
		*old = pos.entry;
		__atomic_store_n(&mt->root, NULL, __ATOMIC_RELEASE);
		mt->stats.stores++;
		mt->stats.store_type[RG_MT_STORE_EXACT_FIT]++;
		return 0;
	}
	wr_init(&wr, mt, index, index, NULL);
	wr.erase = true;
	need = wr_prepare(&wr);
	if (wr.noop) {
		struct mt_node *L = wr.lp.node[wr.h];
		unsigned int o = wr.lp.off[wr.h];

		*first = mt_slot_min(L->r.pivot, o, wr.lp.min[wr.h]);
		*last = mt_slot_max(L->r.pivot, MT_R_PIVOTS, o,
				    wr.lp.max[wr.h]);
		return 0;
	}
	*first = wr.rfirst;
	*last = wr.rlast;
	*old = wr.old;
	ret = wr_commit(&wr, need, NULL, 0, NULL);
	if (ret)
		*old = NULL;
	return ret;
}
