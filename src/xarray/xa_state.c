// SPDX-License-Identifier: MIT
/*
 * xarray: the advanced state API (rg_xas_*). Theory of operation.
 *
 * The state
 *   A struct rg_xa_state names an index and the node where
 *   the last walk to it stopped (the head, RG_XAS_RESTART before a walk,
 *   RG_XAS_BOUNDS outside the tree, or an encoded error). Every slot write,
 *   the normal API's included, goes through rg_xas_store(): a store of a new
 *   entry keeps the empty slot's marks (the free mark of an allocating array
 *   included, which the normal calls then clear and the IDA manages), and an
 *   erase gives the slot the marks of an empty one. A state on a leaf reads
 *   and writes its slot without a walk; erase leaves the state on the
 *   deepest node that survives, so an iteration that erases goes on.
 *   A store that fails to get nodes records -ENOMEM and the node count it
 *   needed; rg_xas_nomem() allocates that many into the state (xa_alloc, a
 *   list through the nodes' parent fields), and the next store takes them
 *   first.
 */
#include "xa_state.h"

/* Safe under the lock and, lock-free, under the RCU read lock. */
void *rg_xas_load(struct rg_xa_state *xas)
{
	struct rg_xa_node *leaf;
	void **slot, *e;

	if (rg_xas_error(xas))
		return NULL;
	xas->xa_node = XAS_RESTART;
	slot = xas_walk_any(xas, &leaf, true);
	e = slot ? xa_slot_get(slot) : NULL;
	/* A multi-index entry split into children meanwhile (lock-free). */
	if (leaf && leaf->shift && xa_is_node(e))
		return RG_XA_RETRY_ENTRY;
	return e;
}

/*
 * The slot the state is on, read again: on a leaf the slot itself (a node
 * a writer took out holds what it held, or RG_XA_RETRY_ENTRY in slot 0 of
 * a top node removed by a shrink); on the head, the head as it is now (a
 * node, internal, when the array grew); otherwise a walk.
 */
void *rg_xas_reload(struct rg_xa_state *xas)
{
	struct rg_xa_node *node = xas->xa_node;

	if (xas_on_leaf(xas))
		return xa_slot_get(&node->slots[xas->xa_offset]);
	if (!node)
		return xa_slot_get(&xas->xa->head);
	return rg_xas_load(xas);
}

void *rg_xas_store(struct rg_xa_state *xas, void *entry)
{
	return xas_store(xas, entry);
}

/* Give back the nodes a state holds. */
void rgi_xas_free_nodes(struct rg_xa_state *xas)
{
	while (xas->xa_alloc) {
		struct rg_xa_node *n = xas->xa_alloc;

		xas->xa_alloc = n->parent;
		rgi_xa_node_put(n);
	}
}

bool rg_xas_nomem(struct rg_xa_state *xas)
{
	struct rg_slab_cache *c;
	struct rg_xa_node *n;
	unsigned int have = 0;

	if (rg_xas_error(xas) != -ENOMEM) {
		rgi_xas_free_nodes(xas);
		return false;
	}
	for (n = xas->xa_alloc; n; n = n->parent)
		have++;
	c = rgi_xa_node_cache();
	while (have < xas->xa_need) {
		n = c ? rg_slab_alloc(c) : NULL;
		if (!n) {
			rgi_xas_free_nodes(xas);
			return false;
		}
		XA_UNPOISON(n);
		n->parent = xas->xa_alloc;
		xas->xa_alloc = n;
		have++;
	}
	xas->xa_node = XAS_RESTART;
	return true;
}

/* Index after the last one the tree covers, and whether there is one. */
static bool xa_end(const struct rg_xarray *xa, unsigned long *end)
{
	struct rg_xa_node *root = xa_root(xa);
	unsigned long top;

	if (!xa->head)
		return false;
	top = root ? xa_node_max(root->shift) : 0;
	if (top == ULONG_MAX)
		return false;
	*end = top + 1;
	return true;
}

/*
 * Last index of the entry a walked state is on: the end of a multi-index
 * entry, else the state's index.
 */
static unsigned long xas_entry_last(const struct rg_xa_state *xas)
{
	struct rg_xa_node *node = xas->xa_node;
	unsigned int off = xas->xa_offset, s;
	unsigned long size;

	if (!xa_may_hold_multi(xas->xa) || !xas_on_node(xas) ||
	    !xa_slot_is_entry(node->shift, node->slots[off]))
		return xas->xa_index;
	s = node->shift;
	size = (unsigned long)xa_span(node, off) << s;
	return xa_slot_base(xas->xa_index, s, off) + (size - 1);
}

static void *xas_find_filter(struct rg_xa_state *xas, unsigned long max,
			     unsigned int filter)
{
	struct rg_xarray *xa = xas->xa;
	unsigned long start = xas->xa_index, end;
	struct xa_cursor c;

	if (rg_xas_error(xas) || xas->xa_node == XAS_BOUNDS)
		return NULL;
	if (xas->xa_node != XAS_RESTART) {
		/* Past the entry the state is on, all of it. */
		start = xas_entry_last(xas);
		if (start == ULONG_MAX) {
			xas->xa_node = XAS_BOUNDS;
			return NULL;
		}
		start++;
	}
	if (start <= max &&
	    rgi_xa_seek(xa, start, max, filter | XA_FILTER_RAW, &c)) {
		xas->xa_index = c.index;
		if (!c.slot) {
			/* A free index with no slot yet: a store walks. */
			xas->xa_node = XAS_RESTART;
			return NULL;
		}
		xas->xa_node = c.node;
		xas->xa_offset =
			c.node ? (unsigned char)(c.slot - c.node->slots) : 0;
		return *c.slot;
	}
	xas->xa_node = XAS_BOUNDS;
	if (xa_end(xa, &end) && end <= max)
		xas->xa_index = RGI_MAX(start, end);
	else if (max < ULONG_MAX)
		xas->xa_index = RGI_MAX(start, max + 1);
	else
		xas->xa_index = start;
	return NULL;
}

void *rg_xas_find(struct rg_xa_state *xas, unsigned long max)
{
	return xas_find_filter(xas, max, RG_XA_PRESENT);
}

void *rg_xas_next_entry(struct rg_xa_state *xas, unsigned long max)
{
	struct rg_xa_node *node = xas->xa_node;
	unsigned int off = xas->xa_offset;

	/* The next entry in the same leaf, when there is one. */
	if (xas_on_leaf(xas) && off < XA_SLOT_MASK && xas->xa_index < max) {
		uint64_t m = node->used & (~(uint64_t)0 << (off + 1));

		if (m) {
			unsigned int b = (unsigned int)__builtin_ctzll(m);
			unsigned long i = xas->xa_index + (b - off);

			/* A sibling: the slow path skips the whole entry. */
			if (i <= max && !xa_is_sibling(node->slots[b])) {
				xas->xa_index = i;
				xas->xa_offset = (unsigned char)b;
				return node->slots[b];
			}
		}
	}
	return xas_find_filter(xas, max, RG_XA_PRESENT);
}

void *rg_xas_find_marked(struct rg_xa_state *xas, unsigned long max,
			 rg_xa_mark_t mark)
{
	if (mark > RG_XA_MARK_MAX)
		return NULL;
	/* As the kernel's: a start past the limit leaves the state alone. */
	if (xas->xa_node == XAS_RESTART && xas->xa_index > max)
		return NULL;
	if (mark == RG_XA_FREE_MARK && xa_track_free(xas->xa))
		return xas_find_filter(xas, max, XA_FILTER_FREE);
	return xas_find_filter(xas, max, mark);
}

void *rg_xas_next(struct rg_xa_state *xas)
{
	struct rg_xa_node *node = xas->xa_node;

	if (rg_xas_error(xas))
		return NULL;
	if (xas_on_leaf(xas) && xas->xa_offset < XA_SLOT_MASK) {
		xas->xa_index++;
		xas->xa_offset++;
		return node->slots[xas->xa_offset];
	}
	if (node != XAS_RESTART)
		xas->xa_index++;
	if (!node) {
		xas->xa_node = XAS_BOUNDS;
		return NULL;
	}
	return xas_load(xas);
}

void *rg_xas_prev(struct rg_xa_state *xas)
{
	struct rg_xa_node *node = xas->xa_node;

	if (rg_xas_error(xas))
		return NULL;
	if (xas_on_leaf(xas) && xas->xa_offset > 0) {
		xas->xa_index--;
		xas->xa_offset--;
		return node->slots[xas->xa_offset];
	}
	if (node != XAS_RESTART)
		xas->xa_index--;
	if (!node) {
		xas->xa_node = XAS_BOUNDS;
		return NULL;
	}
	return xas_load(xas);
}

void rg_xas_pause(struct rg_xa_state *xas)
{
	struct rg_xa_node *node = xas->xa_node;

	if (rg_xas_invalid(xas))
		return;
	if (node && node->shift &&
	    !xa_slot_is_entry(node->shift, node->slots[xas->xa_offset])) {
		/* Stopped above a missing child: skip its whole subtree. */
		unsigned long step = 1UL << node->shift;

		xas->xa_index = (xas->xa_index & ~(step - 1)) + step;
	} else {
		/* Past the entry, all of a multi-index one. */
		xas->xa_index = xas_entry_last(xas) + 1;
	}
	xas->xa_node = xas->xa_index ? XAS_RESTART : XAS_BOUNDS;
}

/* The state is on a present entry: a leaf slot in use, or the head. */
static bool xas_on_entry(const struct rg_xa_state *xas)
{
	if (xas_on_node(xas))
		return xa_slot_is_entry(xas->xa_node->shift,
					xas->xa_node->slots[xas->xa_offset]);
	return !xas->xa_node && xas->xa->head && !xa_root(xas->xa);
}

bool rg_xas_get_mark(const struct rg_xa_state *xas, rg_xa_mark_t mark)
{
	if (mark > RG_XA_MARK_MAX || rg_xas_invalid(xas))
		return false;
	if (!xas->xa_node)
		return xas->xa->head_marks & (1u << mark);
	return (xas->xa_node->marks[mark] >> xas->xa_offset) & 1;
}

void rgi_xas_mark(const struct rg_xa_state *xas, rg_xa_mark_t mark, bool set)
{
	if (mark > RG_XA_MARK_MAX || !xas_on_entry(xas))
		return;
	if (xas->xa_node)
		rgi_xa_mark_update(xas->xa_node, xas->xa_offset, mark, set);
	else if (set)
		xas->xa->head_marks |= 1u << mark;
	else
		xas->xa->head_marks &= ~(1u << mark);
}

void rg_xas_set_mark(const struct rg_xa_state *xas, rg_xa_mark_t mark)
{
	rgi_xas_mark(xas, mark, true);
}

void rg_xas_clear_mark(const struct rg_xa_state *xas, rg_xa_mark_t mark)
{
	rgi_xas_mark(xas, mark, false);
}

void rg_xas_init_marks(const struct rg_xa_state *xas)
{
	unsigned int m;

	for (m = 0; m <= RG_XA_MARK_MAX; m++)
		rgi_xas_mark(xas, m,
			     m == RG_XA_FREE_MARK && xa_track_free(xas->xa));
}

void rg_xas_set_order(struct rg_xa_state *xas, unsigned long index,
		      unsigned int order)
{
	if (order > XA_BITS) {
		xas->xa_index = index;
		rg_xas_set_err(xas, -EINVAL);
		return;
	}
	xas->xa_index = order < XA_BITS ? (index >> order) << order : 0;
	xas->xa_shift = (unsigned char)(order - order % RG_XA_CHUNK_SHIFT);
	xas->xa_sibs = (unsigned char)((1u << (order % RG_XA_CHUNK_SHIFT)) - 1);
	xas->xa_node = XAS_RESTART;
}

unsigned int rg_xas_get_order(const struct rg_xa_state *xas)
{
	struct rg_xa_node *node = xas->xa_node;

	if (!xas_on_node(xas) ||
	    !xa_slot_is_entry(node->shift, node->slots[xas->xa_offset]))
		return 0;
	return xa_entry_order(node, xas->xa_offset);
}

void *rg_xas_find_conflict(struct rg_xa_state *xas)
{
	struct rg_xarray *xa = xas->xa;
	unsigned long base = xas->xa_index, start = base, last;
	struct rg_xa_node *node = xas->xa_node;
	struct xa_cursor c;

	if (rg_xas_error(xas) || node == XAS_BOUNDS)
		return NULL;
	last = base +
	       ((((unsigned long)xas->xa_sibs + 1) << xas->xa_shift) - 1);
	if (node != XAS_RESTART) {
		/* Go on after the entry the last call returned. */
		unsigned long end = 0;

		if (node) {
			unsigned int off = xas->xa_offset, s = node->shift;

			end = rgi_xa_node_base(node) +
			      ((unsigned long)off << s) +
			      (((unsigned long)xa_span(node, off) << s) - 1);
		}
		if (end >= last)
			goto done;
		start = end + 1;
	}
	if (!rgi_xa_seek(xa, start, last, RG_XA_PRESENT | XA_FILTER_RAW, &c))
		goto done;
	xas->xa_node = c.node;
	xas->xa_offset = c.node ? (unsigned char)(c.slot - c.node->slots) : 0;
	return *c.slot;
done:
	xas->xa_node = XAS_RESTART;
	return NULL;
}

void rg_xas_create_range(struct rg_xa_state *xas)
{
	unsigned long base = xas->xa_index, last;

	if (rg_xas_error(xas))
		return;
	last = base +
	       ((((unsigned long)xas->xa_sibs + 1) << xas->xa_shift) - 1);
	if (!rgi_xas_reserve_nodes(xas,
				   rgi_xa_cover_count(xas->xa, base, last)))
		return;
	xas->xa_shift = 0;
	xas->xa_sibs = 0;
	xas->xa_node = XAS_RESTART;
}

void rg_xas_split_alloc(struct rg_xa_state *xas, void *entry,
			unsigned int order)
{
	(void)entry;
	if (rg_xas_error(xas))
		return;
	if (order > XA_BITS) {
		rg_xas_set_err(xas, -EINVAL);
		return;
	}
	if (!rgi_xas_reserve_nodes(xas,
				   rgi_xa_split_count(order, xas->xa_shift)))
		rgi_xas_free_nodes(xas);
}

void rg_xas_split(struct rg_xa_state *xas, void *entry, unsigned int order)
{
	unsigned int shift = xas->xa_shift, n = xas->xa_sibs + 1u, c, span, b;
	unsigned int m, mk = 0;
	struct rg_xa_node *node;
	unsigned long need;
	void **slot;

	if (rg_xas_error(xas))
		return;
	xas->xa_node = XAS_RESTART;
	slot = xas_walk(xas, &node);
	if (!slot || !*slot || !node ||
	    xa_entry_order(node, xas->xa_offset) != order) {
		rg_xas_set_err(xas, -EINVAL);
		return;
	}
	if (xa_is_advanced(entry) || !entry || (xa_is_node(entry) && shift) ||
	    (unsigned long)n << shift >=
		    (unsigned long)xa_span(node, xas->xa_offset)
			    << node->shift) {
		rg_xas_set_err(xas, -EINVAL);
		return;
	}
	need = rgi_xa_split_count(order, shift);
	if (rgi_xas_have(xas) < need) {
		xas->xa_need = need > UINT_MAX ? UINT_MAX : (unsigned int)need;
		rg_xas_set_err(xas, -ENOMEM);
		return;
	}
	c = xas->xa_offset;
	span = xa_span(node, c);
	for (m = 0; m < XA_NR_MARKS; m++)
		if (node->marks[m] & xa_bit(c))
			mk |= 1u << m;
	for (b = c; b < c + span; b++) {
		if (node->shift == shift) {
			unsigned int k = b - (b - c) % n;

			xa_slot_set(&node->slots[b],
				    b == k ? entry : xa_mk_sibling(k));
		} else {
			xa_slot_set(
				&node->slots[b],
				xa_mk_node(rgi_xa_split_build(
					xas, node->shift - RG_XA_CHUNK_SHIFT,
					node, b, entry, mk, shift, n)));
		}
	}
	rgi_xa_node_recount(node);
	/* The pieces (or the new children) carry the entry's marks; the
	 * bit at c was set for each of them, so no ancestor changes. */
	for (m = 0; m < XA_NR_MARKS; m++) {
		uint64_t r = 0;

		if (!(mk & (1u << m)))
			continue;
		for (b = c; b < c + span; b++)
			if (node->shift != shift || (b - c) % n == 0)
				r |= xa_bit(b);
		node->marks[m] |= r;
	}
	xas->xa_node = XAS_RESTART;
	/* A top node whose one entry became a child loses its level. */
	rgi_xa_shrink(xas->xa, xas);
}
