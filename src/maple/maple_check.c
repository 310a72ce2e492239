// SPDX-License-Identifier: MIT
/*
 * Maple Tree self-checks: validate and dump (rg_mtree_validate() and
 * rg_mtree_dump() in maple_api.c).
 *
 * Theory of operation. validate() walks the whole tree depth first, in
 * index order, carrying each node's range from its parent, and checks every
 * invariant listed in maple_write.c: node type against depth (leaves exactly
 * at the tree's height), the parent word (address, slot, end), pivots
 * strictly increasing inside the range with unused pivots equal to the
 * node's max, unused slots NULL, occupancy, child pointers, no reserved
 * entries, no two adjacent NULL ranges anywhere (the previous leaf's last
 * range is carried across leaves), stored gaps equal to the largest NULL
 * run recomputed from the leaves, the largest-gap slot, and the node count.
 * It never allocates; recursion depth is the tree height. dump() prints one
 * line per node, indented by depth, and every leaf range.
 */
#include <inttypes.h>

#include "maple_check.h"

struct mt_check {
	struct rg_maple_tree *mt;
	const char *why;
	unsigned long nodes;
	bool have_prev;
	bool prev_null;
};

static bool ck_fail(struct mt_check *c, const char *why)
{
	if (!c->why)
		c->why = why;
	return false;
}

/* Check the subtree of @e spanning [min, max]; its largest gap in *gap. */
static bool ck_node(struct mt_check *c, void *e, unsigned int depth,
		    unsigned long min, unsigned long max,
		    struct mt_node *parent, unsigned int pslot,
		    unsigned long *gap)
{
	struct rg_maple_tree *mt = c->mt;
	struct mt_node *n = mt_to_node(e);
	enum mt_type t = mt_type_of(e);
	unsigned int np, ns, end, cnt;
	unsigned long *piv, lo, g = 0;
	void **sl;

	if (!mt_root_is_node(e) || !n)
		return ck_fail(c, "child slot does not hold a node");
	if (((uintptr_t)e & 0xff & ~(uintptr_t)0x1a) != 0)
		return ck_fail(c, "bad bits in an encoded node");
	c->nodes++;
	if (depth == mt->height) {
		if (t != MT_LEAF)
			return ck_fail(c, "node at the tree height not a leaf");
	} else if (t != mt_itype(mt)) {
		return ck_fail(c, "internal node of the wrong type");
	}
	if (mt_dead(n))
		return ck_fail(c, "dead node reachable");
	if (mt_parent(n) != parent || (parent && mt_pslot(n) != pslot) ||
	    (!parent && mt_pslot(n) != 0))
		return ck_fail(c, "parent link or slot wrong");
	np = mt_npivots(t);
	ns = mt_nslots(t);
	end = mt_end(n);
	cnt = end + 1;
	if (end >= ns)
		return ck_fail(c, "end past the last slot");
	if (depth > 1 && cnt < mt_minslots(t))
		return ck_fail(c, "node below minimum occupancy");
	if (depth == 1 && t != MT_LEAF && cnt < 2)
		return ck_fail(c, "root internal node with one child");
	piv = mt_pivots(n, t);
	sl = mt_slots(n, t);
	lo = min;
	for (unsigned int i = 0; i < np; i++) {
		if (i < end) {
			if (piv[i] < lo || piv[i] >= max)
				return ck_fail(c,
					       "pivot out of order or range");
			lo = piv[i] + 1;
		} else if (piv[i] != max) {
			return ck_fail(c, "unused pivot not the node max");
		}
	}
	for (unsigned int i = cnt; i < ns; i++)
		if (sl[i])
			return ck_fail(c, "unused slot not NULL");
	lo = min;
	for (unsigned int i = 0; i <= end; i++) {
		unsigned long hi = mt_slot_max(piv, np, i, max);

		if (t == MT_LEAF) {
			void *x = sl[i];

			if (rg_mt_is_reserved(x))
				return ck_fail(c, "reserved entry stored");
			if (!x && c->have_prev && c->prev_null)
				return ck_fail(c, "two adjacent NULL ranges");
			c->have_prev = true;
			c->prev_null = !x;
			if (!x) {
				unsigned long sz = hi - lo == ULONG_MAX ?
							   ULONG_MAX :
							   hi - lo + 1;

				if (sz > g)
					g = sz;
			}
		} else {
			unsigned long cg;

			if (!ck_node(c, sl[i], depth + 1, lo, hi, n, i, &cg))
				return false;
			if (t == MT_ARANGE && n->a.gap[i] != cg)
				return ck_fail(c,
					       "stored gap is not the child's "
					       "largest free run");
			if (cg > g)
				g = cg;
		}
		lo = hi + 1;
	}
	if (t == MT_LEAF && depth == 1 && cnt == 1 && !sl[0])
		return ck_fail(c, "root leaf holds nothing");
	if (t == MT_ARANGE) {
		if (n->a.gslot > end || n->a.gap[n->a.gslot] != g)
			return ck_fail(c, "largest-gap slot wrong");
		for (unsigned int i = cnt; i < ns; i++)
			if (n->a.gap[i])
				return ck_fail(c, "unused gap not zero");
	}
	*gap = g;
	return true;
}

int rgi_mt_validate_locked(struct rg_maple_tree *mt, const char **reason)
{
	struct mt_check c = { mt, NULL, 0, false, false };
	unsigned long g;
	void *root = mt->root;

	if (!mt_root_is_node(root)) {
		if (mt->height != 0)
			c.why = "height not 0 without a root node";
		else if (mt->nodes != 0)
			c.why = "nodes counted without a root node";
		else if (root && rg_mt_is_reserved(root))
			c.why = "reserved entry in the root";
	} else if (mt->height < 1 || mt->height > RG_MT_MAX_HEIGHT) {
		c.why = "height out of range";
	} else if (ck_node(&c, root, 1, 0, ULONG_MAX, NULL, 0, &g)) {
		if (c.nodes != mt->nodes)
			c.why = "node count differs from the nodes reachable";
	}
	if (reason)
		*reason = c.why;
	return c.why ? -EINVAL : 0;
}

static void dump_node(struct rg_maple_tree *mt, FILE *f, void *e,
		      unsigned int depth, unsigned long min, unsigned long max)
{
	struct mt_node *n = mt_to_node(e);
	enum mt_type t = mt_type_of(e);
	unsigned long *piv = mt_pivots(n, t);
	void **sl = mt_slots(n, t);
	unsigned int np = mt_npivots(t), end = mt_end(n);
	static const char *const names[] = { "?", "leaf", "range", "arange" };
	unsigned long lo = min;

	fprintf(f, "%*s%s %p [%lu, %lu] end %u", (int)(depth - 1) * 2, "",
		names[t], (void *)n, min, max, end);
	if (t == MT_ARANGE)
		fprintf(f, " gap %lu (slot %u)", n->a.gap[n->a.gslot],
			n->a.gslot);
	fputc('\n', f);
	for (unsigned int i = 0; i <= end; i++) {
		unsigned long hi = mt_slot_max(piv, np, i, max);

		if (t == MT_LEAF)
			fprintf(f, "%*s[%lu, %lu] %p\n", (int)depth * 2, "", lo,
				hi, sl[i]);
		else
			dump_node(mt, f, sl[i], depth + 1, lo, hi);
		lo = hi + 1;
	}
}

void rgi_mt_dump_locked(struct rg_maple_tree *mt, FILE *f)
{
	fprintf(f, "maple tree %p: flags %#x height %u nodes %lu\n", (void *)mt,
		mt->flags, mt->height, mt->nodes);
	if (mt_root_is_node(mt->root))
		dump_node(mt, f, mt->root, 1, 0, ULONG_MAX);
	else
		fprintf(f, "  root entry %p\n", mt->root);
}
