// SPDX-License-Identifier: MIT
/*
 * Maple Tree: gap searches (rg_mas_empty_area(), rg_mtree_alloc_range()
 * and the rest). Theory of operation.
 *
 * What is stored
 *   Internal nodes of allocation trees keep, per child, the largest run of
 *   NULL indices below it, and the slot of their own largest one. Every
 *   store keeps them exact (maple_gap.h: the leaf's gap, then up the path
 *   while the parent's figure changes). No two NULL ranges are adjacent, so
 *   a free run is always one slot.
 *
 * The search
 *   It descends from the root visiting, in order (reverse order for _rev),
 *   the children that intersect the window; in allocation trees a child
 *   whose stored gap is smaller than the request is skipped, so only the
 *   boundary paths of the window can fail after descending: O(height x
 *   fan-out). In a leaf the first NULL slot whose part inside the window
 *   fits is the answer. Ordinary trees are searched the same way without
 *   the pruning (O(n) in the worst case). The search records its path, so
 *   an allocation stores without walking again.
 *
 * Alignment
 *   An aligned request (a power of two; 1 for the kernel-compatible calls)
 *   takes, in a free slot, the lowest (highest) start that is a multiple of
 *   the alignment and still leaves room. Internal nodes prune with the size
 *   alone, which every fit needs, so the answer stays exact; a subtree whose
 *   largest run holds the size but no aligned start is descended and left,
 *   which costs more nodes than the plain search only when such runs exist.
 */
#include "maple_gap.h"

static bool gap_fits(unsigned long s, unsigned long e, unsigned long size)
{
	return s <= e && e - s >= size - 1;
}

/*
 * The lowest start in free run [s, e] (already cut to the window) that is
 * a multiple of the alignment and leaves room for the request.
 */
static RGI_ALWAYS_INLINE bool gap_fit_lo(const struct mt_gap *g,
					 unsigned long s, unsigned long e,
					 unsigned long *start)
{
	/* Unaligned fit first: most free runs fail it, and cheaply. */
	if (!gap_fits(s, e, g->size))
		return false;
	if (s & g->amask) {
		if ((s & ~g->amask) == ~g->amask)
			return false; /* no multiple of the alignment above s */
		s = (s | g->amask) + 1;
		if (!gap_fits(s, e, g->size))
			return false;
	}
	*start = s;
	return true;
}

/* The highest such start. */
static RGI_ALWAYS_INLINE bool gap_fit_hi(const struct mt_gap *g,
					 unsigned long s, unsigned long e,
					 unsigned long *start)
{
	unsigned long a;

	if (!gap_fits(s, e, g->size))
		return false;
	a = (e - (g->size - 1)) & ~g->amask;
	if (a < s)
		return false;
	*start = a;
	return true;
}

/*
 * Slots of a node that intersect the window: [*lo_off, *hi_off]. The node
 * spans [min, max] and intersects the window.
 */
static void gap_span(const struct mt_gap *g, const struct mt_node *n,
		     const unsigned long *piv, unsigned int np,
		     unsigned long min, unsigned long max, unsigned int *lo_off,
		     unsigned int *hi_off)
{
	/* An edge of the window outside the node needs no search. */
	*lo_off = g->lo <= min ? 0 : mt_slot_of(piv, np, g->lo);
	*hi_off = g->hi >= max ? mt_end(n) : mt_slot_of(piv, np, g->hi);
}

static bool gap_fwd(struct mt_gap *g, void *enode, unsigned long min,
		    unsigned long max, unsigned int depth)
{
	struct mt_node *n = mt_to_node(enode);
	enum mt_type t = mt_type_of(enode);
	unsigned long *piv = mt_pivots(n, t);
	void **sl = mt_slots(n, t);
	unsigned int np = mt_npivots(t), off, lim;

	g->path.node[depth] = n;
	g->path.min[depth] = min;
	g->path.max[depth] = max;
	gap_span(g, n, piv, np, min, max, &off, &lim);
	if (t == MT_LEAF) {
		for (unsigned int i = off; i <= lim; i++) {
			unsigned long s, e;

			if (sl[i])
				continue;
			s = RGI_MAX(mt_slot_min(piv, i, min), g->lo);
			e = RGI_MIN(mt_slot_max(piv, np, i, max), g->hi);
			if (gap_fit_lo(g, s, e, &g->found)) {
				g->path.off[depth] = (unsigned char)i;
				g->h = depth;
				return true;
			}
		}
		return false;
	}
	for (unsigned int i = off; i <= lim; i++) {
		if (t == MT_ARANGE && n->a.gap[i] < g->size)
			continue;
		g->path.off[depth] = (unsigned char)i;
		if (gap_fwd(g, sl[i], mt_slot_min(piv, i, min),
			    mt_slot_max(piv, np, i, max), depth + 1))
			return true;
	}
	return false;
}

static bool gap_rev(struct mt_gap *g, void *enode, unsigned long min,
		    unsigned long max, unsigned int depth)
{
	struct mt_node *n = mt_to_node(enode);
	enum mt_type t = mt_type_of(enode);
	unsigned long *piv = mt_pivots(n, t);
	void **sl = mt_slots(n, t);
	unsigned int np = mt_npivots(t), off, lim;

	g->path.node[depth] = n;
	g->path.min[depth] = min;
	g->path.max[depth] = max;
	gap_span(g, n, piv, np, min, max, &lim, &off);
	if (t == MT_LEAF) {
		for (unsigned int i = off + 1; i-- > lim;) {
			unsigned long s, e;

			if (sl[i])
				continue;
			s = RGI_MAX(mt_slot_min(piv, i, min), g->lo);
			e = RGI_MIN(mt_slot_max(piv, np, i, max), g->hi);
			if (gap_fit_hi(g, s, e, &g->found)) {
				g->path.off[depth] = (unsigned char)i;
				g->h = depth;
				return true;
			}
		}
		return false;
	}
	for (unsigned int i = off + 1; i-- > lim;) {
		if (t == MT_ARANGE && n->a.gap[i] < g->size)
			continue;
		g->path.off[depth] = (unsigned char)i;
		if (gap_rev(g, sl[i], mt_slot_min(piv, i, min),
			    mt_slot_max(piv, np, i, max), depth + 1))
			return true;
	}
	return false;
}

/*
 * Lowest (or highest) start of a free window; lock held. On success with a
 * root node, g->h and g->path hold the path to the leaf of the window.
 */
int rgi_mt_empty_area_g(struct rg_maple_tree *mt, struct mt_gap *g,
			unsigned long min, unsigned long max,
			unsigned long size, unsigned long align, bool rev,
			unsigned long *start)
{
	void *root = mt->root;
	int ret = mt_window_ok(min, max, size, align);

	g->mt = mt;
	g->lo = min;
	g->hi = max;
	g->size = size;
	g->amask = align - 1;
	g->alloc = mt_is_alloc(mt);
	g->found = 0;
	g->h = 0;
	if (ret)
		return ret;
	if (!mt_root_is_node(root)) {
		/* Free: everything, or everything but index 0. */
		unsigned long s = root ? RGI_MAX(min, 1UL) : min;

		if (root && max == 0)
			return -EBUSY;
		if (rev ? !gap_fit_hi(g, s, max, start) :
			  !gap_fit_lo(g, s, max, start))
			return -EBUSY;
		return 0;
	}
	if (rev ? gap_rev(g, root, 0, ULONG_MAX, 1) :
		  gap_fwd(g, root, 0, ULONG_MAX, 1)) {
		*start = g->found;
		return 0;
	}
	return -EBUSY;
}
