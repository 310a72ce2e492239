/* SPDX-License-Identifier: MIT */
/*
 * Maple Tree: gaps. The upkeep (static inlines the write path calls on
 * every store to an allocation tree) and the search (maple_gap.c).
 */
#ifndef RG_MAPLE_GAP_H
#define RG_MAPLE_GAP_H

#include "maple_node.h"

/* ---- upkeep ---- */

/* Largest run of NULL indices in a leaf spanning [min, max]. */
static inline unsigned long mt_leaf_gap(struct mt_node *n, unsigned long min,
					unsigned long max)
{
	unsigned int end = mt_end(n);
	unsigned long g = 0, lo = min;

	for (unsigned int i = 0; i <= end; i++) {
		unsigned long hi = i < MT_R_PIVOTS ? n->r.pivot[i] : max;

		if (i == end)
			hi = max;
		if (!n->r.slot[i]) {
			unsigned long sz =
				hi - lo == ULONG_MAX ? ULONG_MAX : hi - lo + 1;

			if (sz > g)
				g = sz;
		}
		lo = hi + 1;
	}
	return g;
}

/*
 * Point an allocation node's gslot at its largest gap over slots 0..end
 * (the first, on ties) and return that gap.
 */
static inline unsigned long mt_gap_refresh(struct mt_node *n, unsigned int end)
{
	unsigned int best = 0;

	for (unsigned int i = 1; i <= end; i++)
		if (n->a.gap[i] > n->a.gap[best])
			best = i;
	n->a.gslot = (unsigned char)best;
	return n->a.gap[best];
}

/* Update the gaps above @n after its largest gap became @g. */
static inline void mt_gap_up(struct mt_node *n, unsigned long g)
{
	struct mt_node *p;

	while ((p = mt_parent(n)) != NULL) {
		unsigned int s = mt_pslot(n);
		unsigned long oldmax = p->a.gap[p->a.gslot], newmax;

		if (p->a.gap[s] == g)
			return;
		p->a.gap[s] = g;
		if (g > oldmax) {
			p->a.gslot = (unsigned char)s;
			newmax = g;
		} else if (s == p->a.gslot) {
			newmax = mt_gap_refresh(p, mt_end(p));
		} else {
			return;
		}
		if (newmax == oldmax)
			return;
		n = p;
		g = newmax;
	}
}

/* ---- search ---- */

struct mt_gap {
	struct rg_maple_tree *mt;
	unsigned long lo, hi, size;
	unsigned long amask; /* alignment - 1: starts are multiples of it + 1 */
	bool alloc;
	unsigned long found;
	unsigned int h; /* depth of the leaf found */
	struct mt_path path; /* root to that leaf */
};

/* A search request: size >= 1 inside [min, max], a power-of-two alignment. */
static inline int mt_window_ok(unsigned long min, unsigned long max,
			       unsigned long size, unsigned long align)
{
	if (!size || min > max || !align || (align & (align - 1)))
		return -EINVAL;
	if (max - min != ULONG_MAX && max - min + 1 < size)
		return -EINVAL;
	return 0;
}

/*
 * rgi_mt_empty_area_g() - lowest (or, @rev, highest) start, a multiple of
 * @align, of a free window of @size indices inside [min, max]; lock held.
 * On success with a root node, g->h and g->path hold the path to the leaf
 * of the window.
 * Return: 0 and *@start, -EINVAL (bad window or alignment) or -EBUSY (no
 * fit).
 */
RGI_HIDDEN int rgi_mt_empty_area_g(struct rg_maple_tree *mt, struct mt_gap *g,
				   unsigned long min, unsigned long max,
				   unsigned long size, unsigned long align,
				   bool rev, unsigned long *start);

static inline int mt_empty_area(struct rg_maple_tree *mt, unsigned long min,
				unsigned long max, unsigned long size,
				unsigned long align, bool rev,
				unsigned long *start)
{
	struct mt_gap g;

	return rgi_mt_empty_area_g(mt, &g, min, max, size, align, rev, start);
}

#endif /* RG_MAPLE_GAP_H */
