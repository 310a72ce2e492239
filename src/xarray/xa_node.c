// SPDX-License-Identifier: MIT
/*
 * xarray: nodes, walks, store and erase. Theory of operation.
 *
 * Layout
 *   A radix tree of 64-slot nodes (struct rg_xa_node, 560 bytes)
 *   indexed by unsigned long, 6 bits of index per level. A node with shift s
 *   holds in slot n the subtree (or, at shift 0, the entry) for the indices
 *   whose bits [s, s + 6) equal n; a slot of any node may instead hold a
 *   multi-index entry for all of those indices, or a sibling entry (see
 *   xa_multi.c). The array's head is NULL (empty), the entry
 *   at index 0 when it is the only index in use (no node at all; its marks
 *   live in xa->head_marks), or the top node tagged with the low bits 10.
 *
 * Entries
 *   Entries are pointers with the two low bits 00 and value entries with the
 *   low bit 1. Anything with the low bits 10 is internal: tagged nodes and
 *   XA_ZERO, the reservation entry that reads as NULL but occupies its
 *   index, and the sibling entries (internal 0..62). The public calls reject
 *   such entries with -EINVAL.
 *
 * Stores and erase
 *   Stores compute the exact number of nodes they need (growth above the top
 *   plus the missing path below it), take them from the slab cache in one
 *   call, and only then change the tree: an allocation failure leaves the
 *   array exactly as it was. Erase, mark changes, find and load never
 *   allocate. Erase frees nodes that become empty and then shrinks the tree
 *   while its top node uses only slot 0.
 *
 * The node cache
 *   Nodes come from one process-wide slab cache, created on first use under a
 *   mutex (a failed creation is retried on the next call, so fault injection
 *   cannot leave it broken for good). Each array counts its own nodes, which
 *   is what rg_xa_bytes() reports.
 *
 * Locking
 *   Every normal call takes xa->lock; the rg_xas_* calls, the *_locked
 *   calls and the helpers of these files expect it held. Limits: indices are
 *   unsigned long; height is at most 11 levels on 64-bit.
 *
 * Files
 *   xa_node.c (this file): nodes, walks, store and erase of one slot;
 *   xa_multi.c: multi-index entries; xa_state.c: the advanced state
 *   API (rg_xas_*); xarray.c: the normal API; xa_check.c: validate and
 *   dump. Each uses only the ones before it, through its private header
 *   (xa_node.h, xa_multi.h, xa_state.h).
 */
#include "xa_node.h"

#ifdef XA_TSAN
char rgi_xa_gp_sync;
#endif

/*
 * The first lock-free read of an array puts it in RCU mode, under the
 * lock: every writer after that frees nodes through RCU, and every one
 * before it has finished (its frees happened before our unlock).
 */
RGI_NOINLINE void rgi_xa_rcu_enable(struct rg_xarray *xa)
{
	bool taken = xa_read_lock(xa);

	xa_flags_or(xa, RG_XA_FLAGS_RCU);
	xa_read_unlock(xa, taken);
}

static struct rg_slab_cache *xa_cache;
static pthread_mutex_t xa_cache_lock = PTHREAD_MUTEX_INITIALIZER;
struct rg_slab_cache *rgi_xa_node_cache(void)
{
	struct rg_slab_cache *c = __atomic_load_n(&xa_cache, __ATOMIC_ACQUIRE);

	if (likely(c))
		return c;
	pthread_mutex_lock(&xa_cache_lock);
	c = xa_cache;
	if (!c) {
		c = rg_slab_create("rg_xa_node", sizeof(struct rg_xa_node), 0,
				   0, NULL);
		if (c)
			__atomic_store_n(&xa_cache, c, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&xa_cache_lock);
	return c;
}

/* Give a node back to the cache. */
void rgi_xa_node_put(struct rg_xa_node *n)
{
	XA_POISON(n);
	rg_slab_free(__atomic_load_n(&xa_cache, __ATOMIC_ACQUIRE), n);
}

/* Value entries in slots [off, off + n) of @node, siblings included. */
unsigned int rgi_xa_values_in(const struct rg_xa_node *node, unsigned int off,
			      unsigned int n)
{
	unsigned int b, nv = 0;

	for (b = off; b < off + n; b++) {
		const void *e = node->slots[b];

		if (xa_is_sibling(e))
			e = node->slots[xa_sibling_offset(e)];
		nv += rg_xa_is_value(e);
	}
	return nv;
}

void rgi_xa_node_recount(struct rg_xa_node *node)
{
	node->count = (unsigned char)__builtin_popcountll(node->used);
	node->nr_values =
		(unsigned char)rgi_xa_values_in(node, 0, RG_XA_CHUNK_SIZE);
}

unsigned int rgi_xa_shift_for(unsigned long index)
{
	unsigned int s = 0;

	while (s + RG_XA_CHUNK_SHIFT < XA_BITS &&
	       (index >> (s + RG_XA_CHUNK_SHIFT)))
		s += RG_XA_CHUNK_SHIFT;
	return s;
}

void rgi_xa_mark_update(struct rg_xa_node *node, unsigned int off,
			unsigned int m, bool set)
{
	while (node) {
		uint64_t before = node->marks[m];
		uint64_t after =
			set ? before | xa_bit(off) : before & ~xa_bit(off);

		if (before == after)
			return;
		node->marks[m] = after;
		if ((before != 0) == (after != 0))
			return;
		set = after != 0;
		off = node->offset;
		node = node->parent;
	}
}

void rgi_xa_mark_assign(struct rg_xa_node *node, unsigned int m, uint64_t v)
{
	uint64_t before = node->marks[m];

	node->marks[m] = v;
	if ((before != 0) != (v != 0) && node->parent)
		rgi_xa_mark_update(node->parent, node->offset, m, v != 0);
}

/*
 * Gather @n nodes in @pre: first those a state's rg_xas_nomem() allocated
 * (@xas may be NULL), then one slab call for the rest. On failure the
 * state keeps its nodes and -ENOMEM is returned.
 */
int rgi_xa_prealloc(struct xa_prealloc *pre, unsigned int n,
		    struct rg_xa_state *xas)
{
	struct rg_slab_cache *c = rgi_xa_node_cache();
	struct rg_xa_node *node;
	unsigned int have = 0, need, i;

	pre->n = 0;
	pre->used = 0;
	if (!c)
		return -ENOMEM;
	RGI_ASSERT(n <= XA_MAX_NEW_NODES);
	for (node = xas ? xas->xa_alloc : NULL; node && have < n;
	     node = node->parent)
		have++;
	need = n - have;
	if (need == 1) {
		pre->nodes[have] = rg_slab_alloc(c);
		if (!pre->nodes[have])
			return -ENOMEM;
	} else if (need &&
		   rg_slab_alloc_bulk(c, need, pre->nodes + have) != need) {
		return -ENOMEM;
	}
	for (i = have; i < n; i++)
		XA_UNPOISON(pre->nodes[i]);
	for (i = 0; xas && i < have; i++) {
		node = xas->xa_alloc;
		xas->xa_alloc = node->parent;
		pre->nodes[i] = node;
	}
	pre->n = n;
	return 0;
}

struct rg_xa_node *rgi_xa_node_take(struct rg_xarray *xa,
				    struct xa_prealloc *pre, unsigned int shift,
				    struct rg_xa_node *parent,
				    unsigned int offset)
{
	struct rg_xa_node *n;

	RGI_ASSERT(pre->used < pre->n);
	n = pre->nodes[pre->used++];
	return rgi_xa_node_init(xa, n, shift, parent, offset);
}

struct rg_xa_node *rgi_xa_node_init(struct rg_xarray *xa, struct rg_xa_node *n,
				    unsigned int shift,
				    struct rg_xa_node *parent,
				    unsigned int offset)
{
	memset(n, 0, sizeof(*n));
	n->shift = (unsigned char)shift;
	n->offset = (unsigned char)offset;
	n->parent = parent;
	if (xa_track_free(xa))
		n->marks[RG_XA_FREE_MARK] = xa_slots_mask(shift);
	xa->nr_nodes++;
	return n;
}

static void xa_node_rcu_free(struct rcu_head *head)
{
	struct rg_xa_node *n = container_of(head, struct rg_xa_node, rcu);

	xa_tsan_acquire(n);
#ifdef XA_TSAN
	xa_tsan_acquire(&rgi_xa_gp_sync);
#endif
	rgi_xa_node_put(n);
}

/*
 * Free @n, unlinked from the tree, once no lock-free reader can hold it:
 * after a grace period if the array is in RCU mode or this thread is
 * registered with liburcu (it may itself read under the RCU read lock),
 * at once otherwise. call_rcu() wants a registered thread: an unregistered
 * writer registers for the call. Never allocates, never waits.
 */
static void xa_node_release(struct rg_xarray *xa, struct rg_xa_node *n)
{
	bool reg = xa_rcu_thread();

	if (!reg && !(xa->flags & RG_XA_FLAGS_RCU)) {
		rgi_xa_node_put(n);
		return;
	}
	if (!reg)
		urcu_memb_register_thread();
	xa_tsan_release(n);
	urcu_memb_call_rcu(&n->rcu, xa_node_rcu_free);
	if (!reg)
		urcu_memb_unregister_thread();
}

/* Every multi-index entry lives in a node: the last node takes the flag. */
static void xa_node_free(struct rg_xarray *xa, struct rg_xa_node *n)
{
	if (!--xa->nr_nodes)
		xa_flags_clear(xa, RG_XA_FLAGS_MULTI);
	xa_node_release(xa, n);
}

/* ---- lookup and seek ---- */

/* The head is an entry or nothing: the index-0-only case of rgi_xa_seek. */
static bool xa_seek_head(struct rg_xarray *xa, unsigned long start,
			 unsigned long max, unsigned int filter, bool raw,
			 struct xa_cursor *c)
{
	void *head = xa->head;

	if (filter == XA_FILTER_FREE) {
		if (head && start == 0) {
			if (xa->head_marks & XA_FREE_BIT) {
				c->slot = &xa->head;
				c->index = 0;
				return true;
			}
			start = 1;
		}
		c->index = start;
		return start <= max;
	}
	if (!head || start != 0 || (head == XA_ZERO && !raw))
		return false;
	if (filter != RG_XA_PRESENT && !(xa->head_marks & (1u << filter)))
		return false;
	c->slot = &xa->head;
	c->index = 0;
	return true;
}

bool rgi_xa_seek(struct rg_xarray *xa, unsigned long start, unsigned long max,
		 unsigned int filter, struct xa_cursor *c)
{
	struct rg_xa_node *root = xa_root(xa), *node = root;
	unsigned long i = start, top;
	bool raw = filter & XA_FILTER_RAW, multi = xa_may_hold_multi(xa);

	filter &= ~XA_FILTER_RAW;
	c->node = NULL;
	c->slot = NULL;
	if (start > max)
		return false;
	if (!root)
		return xa_seek_head(xa, start, max, filter, raw, c);
	if (xa_beyond(root, i))
		goto beyond;
	for (;;) {
		unsigned int s = node->shift, off = xa_offset(i, s);
		uint64_t mask =
			xa_filter_mask(node, filter) & (~(uint64_t)0 << off);
		struct rg_xa_node *child = NULL;
		void *first = node->slots[off];

		if (unlikely(multi) && xa_is_sibling(first)) {
			/* @i lies inside a multi-index entry: found, at @i. */
			unsigned int c0 = xa_sibling_offset(first);
			void *e = node->slots[c0];

			mask &= ~xa_bit(off);
			if (i <= max &&
			    (xa_filter_mask(node, filter) & xa_bit(c0)) &&
			    (e != XA_ZERO || raw || filter == XA_FILTER_FREE)) {
				c->node = node;
				c->slot = &node->slots[c0];
				c->index = i;
				return true;
			}
		}
		while (mask) {
			unsigned int b = (unsigned int)__builtin_ctzll(mask);
			void *e = node->slots[b];

			mask &= mask - 1;
			if (b != off)
				i = xa_slot_base(i, s, b);
			if (i > max)
				return false;
			/* Without multi-index entries an interior slot in
			 * use holds a child. */
			if (e && (!s || (multi && !xa_is_node(e)))) {
				if (multi && xa_is_sibling(e))
					continue;
				if (e == XA_ZERO && !raw &&
				    filter != XA_FILTER_FREE)
					continue;
				c->node = node;
				c->slot = &node->slots[b];
				c->index = i;
				return true;
			}
			if (!e) {
				/* Only the free filter selects empty slots. */
				c->index = i;
				return true;
			}
			child = xa_to_node(e);
			break;
		}
		if (child) {
			node = child;
			continue;
		}
		/* Nothing from i on in this node: next slot of an ancestor. */
		for (;;) {
			struct rg_xa_node *p = node->parent;
			unsigned int o = node->offset;

			if (!p)
				goto beyond;
			node = p;
			if (o < XA_SLOT_MASK &&
			    (xa_slots_mask(p->shift) & xa_bit(o + 1))) {
				i = xa_slot_base(i, p->shift, o + 1);
				break;
			}
		}
	}
beyond:
	if (filter != XA_FILTER_FREE)
		return false;
	top = xa_node_max(root->shift);
	if (top == ULONG_MAX)
		return false;
	i = RGI_MAX(start, top + 1);
	if (i > max)
		return false;
	c->index = i;
	return true;
}

/* Exact number of nodes a store of a non-NULL entry at @index creates. */
unsigned int rgi_xa_nodes_needed(struct rg_xarray *xa, unsigned long index,
				 bool leaf0)
{
	struct rg_xa_node *node = xa_root(xa);
	unsigned int s;

	if (!node) {
		if (index == 0)
			return leaf0 ? 1 : 0;
		s = rgi_xa_shift_for(index) / RG_XA_CHUNK_SHIFT;
		/* Head entry: a leaf for it, the levels up, a path down. */
		return xa->head ? 1 + 2 * s : s + 1;
	}
	if (index > xa_node_max(node->shift)) {
		s = rgi_xa_shift_for(index);
		return (s - node->shift) / RG_XA_CHUNK_SHIFT +
		       s / RG_XA_CHUNK_SHIFT;
	}
	for (;;) {
		void *e;

		s = node->shift;
		if (s == 0)
			return 0;
		e = node->slots[xa_offset(index, s)];
		if (!e)
			return s / RG_XA_CHUNK_SHIFT;
		node = xa_to_node(e);
	}
}

/* Add top nodes from @pre until the top has @shift; returns the top. */
struct rg_xa_node *rgi_xa_grow(struct rg_xarray *xa, struct xa_prealloc *pre,
			       struct rg_xa_node *node, unsigned int shift)
{
	unsigned int m;

	while (node->shift < shift) {
		struct rg_xa_node *top = rgi_xa_node_take(
			xa, pre, node->shift + RG_XA_CHUNK_SHIFT, NULL, 0);

		xa_slot_set(&top->slots[0], xa_mk_node(node));
		top->used = 1;
		top->count = 1;
		for (m = 0; m < XA_NR_MARKS; m++) {
			if (node->marks[m])
				top->marks[m] |= 1;
			else
				top->marks[m] &= ~(uint64_t)1;
		}
		node->parent = top;
		node->offset = 0;
		xa_slot_set(&xa->head, xa_mk_node(top));
		node = top;
	}
	return node;
}

/* Move the head entry, with its marks, into slot 0 of a new leaf from @pre. */
struct rg_xa_node *rgi_xa_head_to_leaf(struct rg_xarray *xa,
				       struct xa_prealloc *pre)
{
	struct rg_xa_node *node = rgi_xa_node_take(xa, pre, 0, NULL, 0);
	unsigned int m;

	xa_slot_set(&node->slots[0], xa->head);
	node->used = 1;
	node->count = 1;
	node->nr_values = rg_xa_is_value(xa->head);
	for (m = 0; m < XA_NR_MARKS; m++) {
		if (xa->head_marks & (1u << m))
			node->marks[m] |= 1;
		else
			node->marks[m] &= ~(uint64_t)1;
	}
	xa->head_marks = 0;
	return node;
}

/*
 * Build the missing nodes for @index from @pre; cannot fail. @leaf0: index
 * 0 needs a leaf even in an array without nodes (the entry would read as a
 * node in the head).
 */
void **rgi_xa_create_slot(struct rg_xarray *xa, unsigned long index,
			  struct xa_prealloc *pre, struct rg_xa_node **leaf,
			  bool leaf0)
{
	struct rg_xa_node *node = xa_root(xa);

	*leaf = NULL;
	if (!node) {
		if (index == 0 && !leaf0)
			return &xa->head;
		if (xa->head) {
			node = rgi_xa_head_to_leaf(xa, pre);
		} else {
			node = rgi_xa_node_take(
				xa, pre, rgi_xa_shift_for(index), NULL, 0);
		}
		xa_slot_set(&xa->head, xa_mk_node(node));
	}
	node = rgi_xa_grow(xa, pre, node, rgi_xa_shift_for(index));
	for (;;) {
		unsigned int s = node->shift, b = xa_offset(index, s);
		void *e;

		if (s == 0) {
			*leaf = node;
			return &node->slots[b];
		}
		e = node->slots[b];
		if (!e) {
			/* An empty child: no marks, all free; parent agrees. */
			struct rg_xa_node *child = rgi_xa_node_take(
				xa, pre, s - RG_XA_CHUNK_SHIFT, node, b);

			e = xa_mk_node(child);
			xa_slot_set(&node->slots[b], e);
			node->used |= xa_bit(b);
			node->count++;
		}
		node = xa_to_node(e);
	}
}

void rgi_xa_shrink(struct rg_xarray *xa, struct rg_xa_state *xas)
{
	struct rg_xa_node *node;

	while ((node = xa_root(xa)) && node->used == 1) {
		void *e = node->slots[0];

		/* An entry that looks like a node stays in its leaf, and a
		 * multi-index entry in the node of its order. */
		if (node->shift ? !xa_is_node(e) : xa_is_node(e))
			break;
		if (node->shift) {
			struct rg_xa_node *child = xa_to_node(e);

			child->parent = NULL;
			child->offset = 0;
		} else {
			unsigned int m, hm = 0;

			for (m = 0; m < XA_NR_MARKS; m++)
				if (node->marks[m] & 1)
					hm |= 1u << m;
			xa->head_marks = hm;
		}
		xa_slot_set(&xa->head, e);
		/* A reader still on the old top restarts from the head. */
		xa_slot_set(&node->slots[0], RG_XA_RETRY_ENTRY);
		if (xas->xa_node == node)
			xas->xa_node = XAS_BOUNDS;
		xa_node_free(xa, node);
	}
}

/*
 * Empty slots [off, off + n) of @node: subtrees below them are freed, their
 * marks cleared (an allocating array's free mark set). The node may be left
 * empty: rgi_xa_prune() then removes it.
 */
void rgi_xa_clear_slots(struct rg_xarray *xa, struct rg_xa_node *node,
			unsigned int off, unsigned int n)
{
	uint64_t r = xa_range_mask(off, n);
	unsigned int b, m;

	node->nr_values -= (unsigned char)rgi_xa_values_in(node, off, n);
	for (b = off; b < off + n; b++) {
		void *e = node->slots[b];

		/* Unlinked before it is freed (RCU mode: a grace period
		 * from here on covers every reader that can reach it). */
		xa_slot_set(&node->slots[b], NULL);
		if (node->shift && xa_is_node(e))
			rgi_xa_free_subtree(xa, xa_to_node(e));
	}
	node->used &= ~r;
	node->count = (unsigned char)__builtin_popcountll(node->used);
	for (m = 0; m < XA_NR_MARKS; m++) {
		uint64_t v = node->marks[m];

		if (m == RG_XA_FREE_MARK && xa_track_free(xa))
			v |= r;
		else
			v &= ~r;
		if (v != node->marks[m])
			rgi_xa_mark_assign(node, m, v);
	}
}

/*
 * Free @node and its ancestors while they are empty (their parents' marks
 * already agree); the state goes to the deepest node that survives (or out
 * of bounds), then the tree shrinks.
 */
void rgi_xa_prune(struct rg_xa_state *xas, struct rg_xa_node *node)
{
	struct rg_xarray *xa = xas->xa;

	while (!node->used) {
		struct rg_xa_node *p = node->parent;

		if (!p) {
			xa_slot_set(&xa->head, NULL);
			xa->head_marks = 0;
			xa_node_free(xa, node);
			xas->xa_node = XAS_BOUNDS;
			return;
		}
		xa_slot_set(&p->slots[node->offset], NULL);
		p->used &= ~xa_bit(node->offset);
		p->count--;
		xa_node_free(xa, node);
		node = p;
	}
	xas->xa_node = node;
	xas->xa_offset = (unsigned char)xa_offset(xas->xa_index, node->shift);
	rgi_xa_shrink(xa, xas);
}

void rgi_xa_free_subtree(struct rg_xarray *xa, struct rg_xa_node *node)
{
	if (node->shift) {
		uint64_t used = node->used;

		while (used) {
			unsigned int b = (unsigned int)__builtin_ctzll(used);

			used &= used - 1;
			if (xa_is_node(node->slots[b]))
				rgi_xa_free_subtree(xa,
						    xa_to_node(node->slots[b]));
		}
	}
	xa_node_free(xa, node);
}

void rgi_xa_destroy_nolock(struct rg_xarray *xa)
{
	struct rg_xa_node *root = xa_root(xa);

	xa_slot_set(&xa->head, NULL);
	xa->head_marks = 0;
	if (root)
		rgi_xa_free_subtree(xa, root);
}

size_t rgi_xa_node_bytes(const struct rg_xarray *xa)
{
	return xa->nr_nodes * sizeof(struct rg_xa_node);
}

int rg_xa_node_cache_stats(struct rg_slab_stats *st)
{
	struct rg_slab_cache *c;

	if (!st)
		return -EINVAL;
	c = __atomic_load_n(&xa_cache, __ATOMIC_ACQUIRE);
	if (!c) {
		memset(st, 0, sizeof(*st));
		return 0;
	}
	return rg_slab_get_stats(c, st);
}
