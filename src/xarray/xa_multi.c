// SPDX-License-Identifier: MIT
/*
 * xarray: multi-index entries. Theory of operation.
 *
 * Multi-index entries
 *   An entry of order k covers the 2^k indices [base, base + 2^k), base a
 *   multiple of 2^k. It lives in the node of shift s = k - k % 6 on base's
 *   path, in n = 2^(k % 6) slots: the first (canonical) holds the entry, the
 *   others sibling entries naming it; marks sit on the canonical slot only.
 *   A state of order k has xa_shift s and xa_sibs n - 1.
 *
 *   Two such ranges are nested or disjoint, so a store of order k at base
 *   either lands inside an entry that covers its whole range (a larger or
 *   equal entry on the path: the store replaces that entry, which keeps its
 *   range, as the kernel documents: "storing to any index stores to all of
 *   them"), or covers every entry in its range, which it replaces (their
 *   subtrees are freed) with the union of their marks.
 *
 * The multi-index flag
 *   The first store of an order > 0 sets it and the array's last node
 *   takes it with it (erase to empty or to a head entry, destroy). While
 *   it is clear every interior slot in use holds a child and no slot a
 *   sibling, so the walks of load, store, erase and find skip those
 *   checks: a plain array pays one flag test for multi-index entries. It
 *   is not cleared when the last multi-index entry goes while nodes
 *   remain: keeping a count would cost every store and erase that
 *   replaces or splits one, and a stale flag is only the slower walk,
 *   never a wrong one.
 */
#include "xa_multi.h"

/* Index of slot 0 of @node. */
unsigned long rgi_xa_node_base(const struct rg_xa_node *node)
{
	unsigned long base = 0;

	for (; node->parent; node = node->parent)
		base |= (unsigned long)node->offset << node->parent->shift;
	return base;
}

/*
 * The node where a store of an entry of shift @shift at @base (last index
 * @last) writes: the node of that shift on base's path, or a node above it
 * whose slot on the path holds an entry covering the range. With @pre
 * NULL, count the nodes missing on the way (*@out is set only when none
 * is); otherwise build them from @pre (exactly that many).
 */
unsigned int rgi_xa_path(struct rg_xarray *xa, unsigned long base,
			 unsigned long last, unsigned int shift,
			 struct xa_prealloc *pre, struct rg_xa_node **out)
{
	struct rg_xa_node *node = xa_root(xa);
	unsigned int top = RGI_MAX(rgi_xa_shift_for(last), shift), cnt = 0, u;

	if (!pre) {
		int rs = node ? node->shift : xa->head ? 0 : -1;

		if (rs < 0)
			return xa_levels(top, shift);
		if (!node)
			cnt++; /* the head entry moves into a leaf */
		if ((unsigned int)rs < top) {
			cnt += (top - (unsigned int)rs) / RG_XA_CHUNK_SHIFT;
			for (u = top; u > (unsigned int)rs;
			     u -= RG_XA_CHUNK_SHIFT) {
				if (u == shift)
					return cnt;
				if (xa_offset(base, u))
					return cnt +
					       xa_levels(u - RG_XA_CHUNK_SHIFT,
							 shift);
			}
		}
		if (!node)
			return cnt;
	} else {
		if (!node && xa->head) {
			node = rgi_xa_head_to_leaf(xa, pre);
			xa_slot_set(&xa->head, xa_mk_node(node));
		} else if (!node) {
			node = rgi_xa_node_take(xa, pre, top, NULL, 0);
			xa_slot_set(&xa->head, xa_mk_node(node));
		}
		node = rgi_xa_grow(xa, pre, node, top);
	}
	for (;;) {
		unsigned int s = node->shift, b = xa_offset(base, s);
		void *e;

		if (s == shift)
			break;
		e = node->slots[b];
		if (e && !xa_is_node(e))
			break; /* a covering entry, or its sibling */
		if (!e) {
			struct rg_xa_node *child;

			if (!pre)
				return cnt +
				       xa_levels(s - RG_XA_CHUNK_SHIFT, shift);
			/* An empty child: no marks, all free; parent agrees. */
			child = rgi_xa_node_take(xa, pre, s - RG_XA_CHUNK_SHIFT,
						 node, b);
			e = xa_mk_node(child);
			xa_slot_set(&node->slots[b], e);
			node->used |= xa_bit(b);
			node->count++;
		}
		node = xa_to_node(e);
	}
	*out = node;
	return cnt;
}

/* First entry (raw) in slots [off, off + n) of @node, in index order. */
static void *xa_first_entry(const struct rg_xa_node *node, unsigned int off,
			    unsigned int n)
{
	unsigned int b;

	for (b = off; b < off + n; b++) {
		const struct rg_xa_node *p = node;
		void *e = node->slots[b];

		while (e && !xa_slot_is_entry(p->shift, e)) {
			p = xa_to_node(e);
			e = p->slots[__builtin_ctzll(p->used)];
		}
		if (e && !xa_is_sibling(e))
			return e;
	}
	return NULL;
}

/*
 * On @node (from rgi_xa_path()): does the store of @n slots at @base land in
 * an entry that covers it? Then *@c is that entry's canonical slot.
 */
static bool xa_covered(const struct rg_xa_node *node, unsigned long base,
		       unsigned int shift, unsigned int n, unsigned int *c)
{
	unsigned int off = xa_offset(base, node->shift);
	void *e = node->slots[off];

	if (xa_is_sibling(e)) {
		*c = xa_sibling_offset(e);
		return true;
	}
	*c = off;
	if (node->shift > shift)
		return true;
	return xa_slot_is_entry(node->shift, e) && xa_span(node, off) >= n;
}

/* Store NULL over the state's range: erase every entry in it. */
static void *xas_erase_multi(struct rg_xa_state *xas, unsigned long last)
{
	struct rg_xarray *xa = xas->xa;
	unsigned long base = xas->xa_index;
	unsigned int shift = xas->xa_shift, n = xas->xa_sibs + 1u, c;
	struct rg_xa_node *root = xa_root(xa), *node = NULL;
	void *old = NULL;

	if (!root) {
		/* Only index 0 can be in use: the head entry. */
		if (base == 0) {
			old = xa->head;
			xa_slot_set(&xa->head, NULL);
			xa->head_marks = 0;
		}
		xas->xa_node = XAS_BOUNDS;
		return old;
	}
	if (rgi_xa_path(xa, base, last, shift, NULL, &node)) {
		/* No node of the range's shift: the range holds the whole
		 * tree (it starts at 0 and reaches past the top) or, when a
		 * child on the path is missing, nothing. */
		if (base == 0 &&
		    root->shift < RGI_MAX(rgi_xa_shift_for(last), shift)) {
			old = xa_first_entry(root, 0, RG_XA_CHUNK_SIZE);
			rgi_xa_destroy_nolock(xa);
		}
		xas->xa_node = XAS_BOUNDS;
		return old;
	}
	if (xa_covered(node, base, shift, n, &c)) {
		old = node->slots[c];
		if (!old)
			return NULL;
		n = xa_span(node, c);
	} else {
		old = xa_first_entry(node, c, n);
	}
	rgi_xa_clear_slots(xa, node, c, n);
	rgi_xa_prune(xas, node);
	return old;
}

/*
 * rg_xas_store() of a multi-index state (or of any order when the range
 * reaches beyond order 0): the raw old entry, or NULL with an error.
 */
void *rgi_xas_store_multi(struct rg_xa_state *xas, void *entry)
{
	struct rg_xarray *xa = xas->xa;
	unsigned long base = xas->xa_index, last;
	unsigned int shift = xas->xa_shift, n = xas->xa_sibs + 1u, c, b, m;
	struct rg_xa_node *node = NULL;
	struct xa_prealloc pre;
	bool uni[XA_NR_MARKS];
	unsigned int need;
	uint64_t r;
	void *old;

	last = base + (((unsigned long)n << shift) - 1);
	if (!entry)
		return xas_erase_multi(xas, last);
	if (shift && xa_is_node(entry)) {
		/* An interior slot would read it as a node. */
		rg_xas_set_err(xas, -EINVAL);
		return NULL;
	}
	need = rgi_xa_path(xa, base, last, shift, NULL, &node);
	if (need) {
		if (rgi_xa_prealloc(&pre, need, xas)) {
			xas->xa_need = need;
			rg_xas_set_err(xas, -ENOMEM);
			return NULL;
		}
		rgi_xa_path(xa, base, last, shift, &pre, &node);
		RGI_ASSERT(pre.used == pre.n);
	}
	/* From here on walks look for multi-index entries. */
	xa_flags_or(xa, RG_XA_FLAGS_MULTI);
	xas->xa_node = node;
	if (xa_covered(node, base, shift, n, &c)) {
		if (node->shift && xa_is_node(entry)) {
			rg_xas_set_err(xas, -EINVAL);
			return NULL;
		}
		xas->xa_offset = (unsigned char)c;
		old = node->slots[c];
		xa_slot_set(&node->slots[c], entry);
		if (!old)
			node->used |= xa_bit(c);
		if (!old || rg_xa_is_value(old) != rg_xa_is_value(entry))
			rgi_xa_node_recount(node);
		return old;
	}
	/* Cover [c, c + n): the entries there go, their marks unite. */
	r = xa_range_mask(c, n);
	old = xa_first_entry(node, c, n);
	for (m = 0; m < XA_NR_MARKS; m++)
		uni[m] = node->marks[m] & r;
	for (b = c; b < c + n; b++) {
		void *e = node->slots[b];

		xa_slot_set(&node->slots[b], b == c ? entry : xa_mk_sibling(c));
		if (node->shift && xa_is_node(e))
			rgi_xa_free_subtree(xa, xa_to_node(e));
	}
	node->used |= r;
	rgi_xa_node_recount(node);
	for (m = 0; m < XA_NR_MARKS; m++) {
		uint64_t v = (node->marks[m] & ~r) | (uni[m] ? xa_bit(c) : 0);

		if (v != node->marks[m])
			rgi_xa_mark_assign(node, m, v);
	}
	xas->xa_offset = (unsigned char)c;
	return old;
}

/*
 * Nodes of shifts @to..@from (steps of 6) that cover [lo, hi] where no
 * node exists yet.
 */
static unsigned long xa_full_count(unsigned int from, unsigned int to,
				   unsigned long lo, unsigned long hi)
{
	unsigned long n = 0;
	unsigned int t;

	for (t = to; t <= from; t += RG_XA_CHUNK_SHIFT) {
		unsigned int span = t + RG_XA_CHUNK_SHIFT;

		n += span >= XA_BITS ? 1 : (hi >> span) - (lo >> span) + 1;
	}
	return n;
}

/* Leaves and nodes missing below @node for order-0 stores in [lo, hi]. */
static unsigned long xa_missing(const struct rg_xa_node *node, unsigned long lo,
				unsigned long hi)
{
	unsigned int s = node->shift, b;
	unsigned long n = 0;

	if (!s)
		return 0;
	for (b = xa_offset(lo, s); b <= xa_offset(hi, s); b++) {
		unsigned long sb = xa_slot_base(lo, s, b);
		unsigned long slo = RGI_MAX(lo, sb);
		unsigned long shi = RGI_MIN(hi, sb + ((1UL << s) - 1));
		void *e = node->slots[b];

		if (!e)
			n += xa_full_count(s - RG_XA_CHUNK_SHIFT, 0, slo, shi);
		else if (xa_is_node(e))
			n += xa_missing(xa_to_node(e), slo, shi);
		/* else an entry covers these: stores replace it */
	}
	return n;
}

/*
 * Upper bound of the nodes order-0 stores at every index of [lo, hi]
 * create (exact but for the head entry's leaf path).
 */
unsigned long rgi_xa_cover_count(const struct rg_xarray *xa, unsigned long lo,
				 unsigned long hi)
{
	struct rg_xa_node *root = xa_root(xa);
	unsigned int top = rgi_xa_shift_for(hi), u;
	unsigned long n = 0, rmax;

	if (!root) {
		if (hi == 0)
			return 0;
		n = xa_full_count(top, 0, lo, hi);
		if (xa->head)
			n += top / RG_XA_CHUNK_SHIFT + 1;
		return n;
	}
	for (u = top; u > root->shift; u -= RG_XA_CHUNK_SHIFT) {
		/* A new top node; its slots above 0 are empty. */
		unsigned long a = RGI_MAX(lo, 1UL << u),
			      z = RGI_MIN(hi, xa_node_max(u));

		n++;
		if (a <= z)
			n += xa_full_count(u - RG_XA_CHUNK_SHIFT, 0, a, z);
	}
	rmax = xa_node_max(root->shift);
	if (lo <= rmax)
		n += xa_missing(root, lo, RGI_MIN(hi, rmax));
	return n;
}

/* Nodes in the state's list. */
unsigned long rgi_xas_have(const struct rg_xa_state *xas)
{
	const struct rg_xa_node *n;
	unsigned long have = 0;

	for (n = xas->xa_alloc; n; n = n->parent)
		have++;
	return have;
}

/*
 * Make the state hold at least @need nodes. On failure it keeps those it
 * has, records -ENOMEM and the count (for rg_xas_nomem()): false.
 */
bool rgi_xas_reserve_nodes(struct rg_xa_state *xas, unsigned long need)
{
	struct rg_slab_cache *c = rgi_xa_node_cache();
	unsigned long have = rgi_xas_have(xas);

	if (need > UINT_MAX)
		goto nomem;
	while (have < need) {
		struct rg_xa_node *n = c ? rg_slab_alloc(c) : NULL;

		if (!n)
			goto nomem;
		XA_UNPOISON(n);
		n->parent = xas->xa_alloc;
		xas->xa_alloc = n;
		have++;
	}
	return true;
nomem:
	xas->xa_need = need > UINT_MAX ? UINT_MAX : (unsigned int)need;
	rg_xas_set_err(xas, -ENOMEM);
	return false;
}

/* Nodes xas_split() needs to split an entry of @order to @shift. */
unsigned long rgi_xa_split_count(unsigned int order, unsigned int shift)
{
	unsigned int from = order - order % RG_XA_CHUNK_SHIFT, t;
	unsigned long n = 0;

	for (t = shift; t < from; t += RG_XA_CHUNK_SHIFT) {
		if (order - t - RG_XA_CHUNK_SHIFT >= XA_BITS - 1)
			return ULONG_MAX;
		n += 1UL << (order - t - RG_XA_CHUNK_SHIFT);
	}
	return n;
}

/*
 * A full node of @shift below @parent's slot @offset whose indices all
 * hold @entry in pieces of @n slots at shift @to, with the marks @mk.
 */
struct rg_xa_node *
rgi_xa_split_build(struct rg_xa_state *xas, unsigned int shift,
		   struct rg_xa_node *parent, unsigned int offset, void *entry,
		   unsigned int mk, unsigned int to, unsigned int n)
{
	struct rg_xa_node *node = xas->xa_alloc;
	uint64_t canon = 0;
	unsigned int b, m;

	xas->xa_alloc = node->parent;
	rgi_xa_node_init(xas->xa, node, shift, parent, offset);
	for (b = 0; b < RG_XA_CHUNK_SIZE; b++) {
		if (shift == to) {
			unsigned int c = b - b % n;

			node->slots[b] = b == c ? entry : xa_mk_sibling(c);
			if (b == c)
				canon |= xa_bit(b);
		} else {
			node->slots[b] = xa_mk_node(rgi_xa_split_build(
				xas, shift - RG_XA_CHUNK_SHIFT, node, b, entry,
				mk, to, n));
			canon |= xa_bit(b);
		}
	}
	node->used = ~(uint64_t)0;
	rgi_xa_node_recount(node);
	for (m = 0; m < XA_NR_MARKS; m++)
		node->marks[m] = (mk & (1u << m)) ? canon : 0;
	return node;
}
