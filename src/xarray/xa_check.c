// SPDX-License-Identifier: MIT
/*
 * xarray: validate and dump. Theory of operation.
 *
 * Invariants (checked by rg_xa_validate())
 *   - node->used has bit n set iff slots[n] != NULL; no node is empty;
 *     node->count is the number of such slots, node->nr_values the number
 *     holding value entries (sibling slots of a value entry included);
 *   - children link back: parent, offset and shift = parent's shift - 6;
 *   - interior slots hold nodes or entries, leaf slots never hold nodes;
 *   - a multi-index entry spans a power-of-two run of slots (at most 32)
 *     aligned to its length: the entry, then sibling entries naming its
 *     slot; sibling slots carry no marks;
 *   - canonical height: the top node is not using only slot 0 (otherwise
 *     it would have been removed: shrink) unless slot 0 holds a
 *     multi-index entry, and it covers every index in use;
 *   - marks: for each mark, a node's bit n is set iff the entry in slot n
 *     has it (leaf) or some entry below slot n has it (interior);
 *   - free tracking (RG_XA_FLAGS_ALLOC): mark 0 is the free mark, with
 *     inverted sense: bit n is set iff slot n has a free index below it. An
 *     empty slot is always free; a new node starts all free. In a plain
 *     allocating array an occupied leaf slot is never free; the IDA keeps the
 *     mark on chunks that still have a free ID (rgi_xa_set_free()).
 *   - xa->nr_nodes is the number of nodes reachable from the head;
 *   - RG_XA_FLAGS_MULTI is set whenever an entry of order > 0 (an entry in
 *     an interior slot, or one with siblings) is in the tree, and clear
 *     while the array has no node.
 */
#include "xa_node.h"

/* ---- validate and dump ---- */

struct xa_vstate {
	struct rg_xarray *xa;
	bool owner_free;
	size_t nodes;
	const char *why;
};

static bool xa_vfail(struct xa_vstate *v, const char *why)
{
	if (!v->why)
		v->why = why;
	return false;
}

static bool xa_check_node(struct xa_vstate *v, struct rg_xa_node *node,
			  struct rg_xa_node *parent, unsigned int offset,
			  unsigned int shift)
{
	bool track = xa_track_free(v->xa);
	uint64_t used = 0, want[XA_NR_MARKS] = { 0 }, all, ents = 0;
	unsigned int b, m;

	if (++v->nodes > v->xa->nr_nodes)
		return xa_vfail(v, "more nodes reachable than counted");
	if (node->parent != parent)
		return xa_vfail(v, "node has a wrong parent link");
	if (node->offset != offset)
		return xa_vfail(v, "node has a wrong offset");
	if (node->shift != shift)
		return xa_vfail(v, "node has a wrong shift");
	for (b = 0; b < RG_XA_CHUNK_SIZE; b++)
		if (node->slots[b])
			used |= xa_bit(b);
	if (used != node->used)
		return xa_vfail(v, "occupancy bitmap disagrees");
	if (node->count != __builtin_popcountll(used))
		return xa_vfail(v, "node's count of slots in use disagrees");
	if (node->nr_values != rgi_xa_values_in(node, 0, RG_XA_CHUNK_SIZE))
		return xa_vfail(v, "node's count of value entries disagrees");
	if (!used)
		return xa_vfail(v, "empty node left in the tree");
	all = xa_slots_mask(shift);
	if (used & ~all)
		return xa_vfail(v, "slot beyond the index space in use");
	for (; used; used &= used - 1) {
		unsigned int c = (unsigned int)__builtin_ctzll(used), span;
		void *e = node->slots[c];
		struct rg_xa_node *child;

		if (xa_is_sibling(e)) {
			unsigned int k = xa_sibling_offset(e);

			/* Checked with its canonical slot, which comes first. */
			if (k >= c || !(ents & xa_bit(k)) ||
			    c >= k + xa_span(node, k))
				return xa_vfail(v, "sibling entry without its "
						   "multi-index entry");
			continue;
		}
		if (!xa_slot_is_entry(shift, e)) {
			child = xa_to_node(e);
			if (!xa_check_node(v, child, node, c,
					   shift - RG_XA_CHUNK_SHIFT))
				return false;
			for (m = 0; m < XA_NR_MARKS; m++)
				if (child->marks[m])
					want[m] |= xa_bit(c);
			continue;
		}
		if (xa_is_advanced(e) && e != RG_XA_ZERO_ENTRY &&
		    e != RG_XA_RETRY_ENTRY)
			return xa_vfail(v, "internal entry in a slot");
		span = xa_span(node, c);
		if ((span & (span - 1)) || (c & (span - 1)) ||
		    span > RG_XA_CHUNK_SIZE / 2)
			return xa_vfail(v, "multi-index entry of a bad span");
		if ((shift || span > 1) && !xa_may_hold_multi(v->xa))
			return xa_vfail(v, "multi-index entry in an array "
					   "without the multi flag");
		ents |= xa_bit(c);
	}
	for (m = 0; m < XA_NR_MARKS; m++)
		want[m] |= node->marks[m] & ents;
	if (track) {
		want[RG_XA_FREE_MARK] &= ~ents;
		want[RG_XA_FREE_MARK] |= ~node->used & all;
		if (v->owner_free)
			want[RG_XA_FREE_MARK] |=
				node->marks[RG_XA_FREE_MARK] & ents;
	}
	for (m = 0; m < XA_NR_MARKS; m++) {
		if (node->marks[m] == want[m])
			continue;
		if (track && m == RG_XA_FREE_MARK)
			return xa_vfail(v, "free mark disagrees with the "
					   "slots below");
		return xa_vfail(v, "mark bit disagrees with the entries "
				   "below");
	}
	return true;
}

static int xa_validate_nolock(struct rg_xarray *xa, bool owner_free,
			      const char **reason)
{
	struct xa_vstate v = { xa, owner_free, 0, NULL };
	struct rg_xa_node *root = xa_root(xa);
	void *head = xa->head;

	if (xa->flags & ~(RG_XA_FLAGS_ALLOC1 | RG_XA_FLAGS_ALLOC_WRAPPED |
			  RG_XA_FLAGS_MULTI | RG_XA_FLAGS_RCU))
		v.why = "unknown flags";
	else if ((xa->flags & RG_XA_FLAGS_ALLOC_WRAPPED) && !xa_track_free(xa))
		v.why = "wrapped cursor in an array that does not allocate";
	else if (xa->head_marks & ~((1u << XA_NR_MARKS) - 1))
		v.why = "unknown head mark bits";
	else if (!root) {
		if (!head && xa->head_marks)
			v.why = "marks on an empty head";
		else if (xa_is_internal(head) && head != RG_XA_ZERO_ENTRY &&
			 head != RG_XA_RETRY_ENTRY)
			v.why = "internal entry in the head";
		else if (xa_track_free(xa) && !owner_free &&
			 (xa->head_marks & XA_FREE_BIT))
			v.why = "occupied head marked free";
		else if (xa->nr_nodes)
			v.why = "node count without nodes";
		else if (xa_may_hold_multi(xa))
			v.why = "multi flag without nodes";
	} else if (xa->head_marks) {
		v.why = "head marks with a node at the head";
	} else if (root->shift % RG_XA_CHUNK_SHIFT || root->shift >= XA_BITS) {
		v.why = "top node has a bad shift";
	} else if (root->used == 1 &&
		   (root->shift == 0) != xa_is_node(root->slots[0])) {
		v.why = "top node uses only slot 0 (not shrunk)";
	} else if (xa_check_node(&v, root, NULL, 0, root->shift) &&
		   v.nodes != xa->nr_nodes) {
		v.why = "fewer nodes reachable than counted";
	}
	if (reason)
		*reason = v.why;
	return v.why ? -EINVAL : 0;
}

static void xa_dump_entry(FILE *f, unsigned long index, void *e)
{
	if (e == XA_ZERO)
		fprintf(f, "reserved\n");
	else if (rg_xa_is_value(e))
		fprintf(f, "value %lu\n", rg_xa_to_value(e));
	else
		fprintf(f, "pointer %p\n", e);
	(void)index;
}

static void xa_dump_node(FILE *f, struct rg_xa_node *node, unsigned long base,
			 int depth, rg_xa_dump_fn fn)
{
	unsigned int b;

	fprintf(f,
		"%*snode %p shift %u offset %u base %lu used %016llx "
		"marks %016llx %016llx %016llx\n",
		2 * depth, "", (void *)node, node->shift, node->offset, base,
		(unsigned long long)node->used,
		(unsigned long long)node->marks[0],
		(unsigned long long)node->marks[1],
		(unsigned long long)node->marks[2]);
	for (b = 0; b < RG_XA_CHUNK_SIZE; b++) {
		void *e = node->slots[b];
		unsigned long idx = base + ((unsigned long)b << node->shift);

		if (!e || xa_is_sibling(e))
			continue;
		if (!xa_slot_is_entry(node->shift, e)) {
			xa_dump_node(f, xa_to_node(e), idx, depth + 1, fn);
			continue;
		}
		fprintf(f, "%*s[%lu] ", 2 * depth + 2, "", idx);
		if (node->shift || xa_span(node, b) > 1)
			fprintf(f, "order %u ",
				node->shift + (unsigned int)__builtin_ctz(
						      xa_span(node, b)));
		fn(f, idx, e);
	}
}

static void xa_dump_nolock(struct rg_xarray *xa, FILE *f, rg_xa_dump_fn fn)
{
	struct rg_xa_node *root = xa_root(xa);

	if (!fn)
		fn = xa_dump_entry;
	fprintf(f, "xarray %p flags %#x nodes %zu bytes %zu\n", (void *)xa,
		xa->flags, xa->nr_nodes, rgi_xa_node_bytes(xa) + sizeof(*xa));
	if (!xa->head) {
		fprintf(f, "  empty\n");
	} else if (!root) {
		fprintf(f, "  head [0] marks %#x ", xa->head_marks);
		fn(f, 0, xa->head);
	} else {
		xa_dump_node(f, root, 0, 1, fn);
	}
}

int rg_xa_validate_locked(struct rg_xarray *xa, unsigned int flags,
			  const char **reason)
{
	if (unlikely(!xa) || (flags & ~RG_XA_VALIDATE_OWNER_FREE)) {
		if (reason)
			*reason = xa ? "unknown validate flags" : "NULL array";
		return -EINVAL;
	}
	return xa_validate_nolock(xa, flags & RG_XA_VALIDATE_OWNER_FREE,
				  reason);
}

void rg_xa_dump_locked(struct rg_xarray *xa, FILE *f, rg_xa_dump_fn fn)
{
	if (unlikely(!xa || !f))
		return;
	xa_dump_nolock(xa, f, fn);
}

int rg_xa_validate(struct rg_xarray *xa, const char **reason)
{
	bool taken;
	int err;

	if (unlikely(!xa)) {
		if (reason)
			*reason = "NULL array";
		return -EINVAL;
	}
	taken = xa_read_lock(xa);
	err = xa_validate_nolock(xa, false, reason);
	xa_read_unlock(xa, taken);
	return err;
}

void rg_xa_dump(struct rg_xarray *xa, FILE *f)
{
	bool taken;
	if (unlikely(!xa || !f))
		return;
	taken = xa_read_lock(xa);
	xa_dump_nolock(xa, f, NULL);
	xa_read_unlock(xa, taken);
}
