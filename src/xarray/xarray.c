// SPDX-License-Identifier: MIT
/*
 * xarray: theory of operation.
 *
 * Layout. A radix tree of 64-slot nodes (struct rg_xa_node, 560 bytes)
 * indexed by unsigned long, 6 bits of index per level. A node with shift s
 * holds in slot n the subtree (or, at shift 0, the entry) for the indices
 * whose bits [s, s + 6) equal n. The array's head is NULL (empty), the entry
 * at index 0 when it is the only index in use (no node at all; its marks
 * live in xa->head_marks), or the top node tagged with the low bits 10.
 *
 * Entries are pointers with the two low bits 00 and value entries with the
 * low bit 1. Anything with the low bits 10 is internal: tagged nodes and
 * XA_ZERO, the reservation entry that reads as NULL but occupies its
 * index. The public calls reject such entries with -EINVAL.
 *
 * Invariants (checked by rg_xa_validate()):
 *  - node->used has bit n set iff slots[n] != NULL; no node is empty;
 *  - children link back: parent, offset and shift = parent's shift - 6;
 *  - interior slots hold only nodes, leaf slots never hold nodes;
 *  - canonical height: the top node is not using only slot 0 (otherwise
 *    it would have been removed: shrink), and it covers every index in use;
 *  - marks: for each mark, a node's bit n is set iff the entry in slot n
 *    has it (leaf) or some entry below slot n has it (interior);
 *  - free tracking (RG_XA_FLAGS_ALLOC): mark 0 is the free mark, with
 *    inverted sense: bit n is set iff slot n has a free index below it. An
 *    empty slot is always free; a new node starts all free. In a plain
 *    allocating array an occupied leaf slot is never free; the IDA keeps the
 *    mark on chunks that still have a free ID (rgi_xa_set_free()).
 *  - xa->nr_nodes is the number of nodes reachable from the head.
 *
 * Stores compute the exact number of nodes they need (growth above the top
 * plus the missing path below it), take them from the slab cache in one
 * call, and only then change the tree: an allocation failure leaves the
 * array exactly as it was. Erase, mark changes, find and load never
 * allocate. Erase frees nodes that become empty and then shrinks the tree
 * while its top node uses only slot 0.
 *
 * Nodes come from one process-wide slab cache, created on first use under a
 * mutex (a failed creation is retried on the next call, so fault injection
 * cannot leave it broken for good). Each array counts its own nodes, which
 * is what rg_xa_bytes() reports.
 *
 * The advanced API. A struct rg_xa_state names an index and the node where
 * the last walk to it stopped (the head, RG_XAS_RESTART before a walk,
 * RG_XAS_BOUNDS outside the tree, or an encoded error). Every slot write,
 * the normal API's included, goes through rg_xas_store(): a store of a new
 * entry keeps the empty slot's marks (the free mark of an allocating array
 * included, which the normal calls then clear and the IDA manages), and an
 * erase gives the slot the marks of an empty one. A state on a leaf reads
 * and writes its slot without a walk; erase leaves the state on the
 * deepest node that survives, so an iteration that erases goes on.
 * A store that fails to get nodes records -ENOMEM and the node count it
 * needed; rg_xas_nomem() allocates that many into the state (xa_alloc, a
 * list through the nodes' parent fields), and the next store takes them
 * first.
 *
 * Locking: every normal call takes xa->lock; the rg_xas_* calls, the
 * *_locked calls and the static helpers here expect it held. Limits: indices are unsigned long; height is
 * at most 11 levels on 64-bit.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>

#include "region/slab.h"
#include "region/xarray.h"
#include "rg_internal.h"

/* Filter for xa_seek(): free indices (slots with the free mark, empty
 * slots of interior nodes, and indices beyond the tree). */
#define XA_FILTER_FREE 16U

/* Reservation entry: reads as NULL, occupies the index. */
#define XA_ZERO RG_XA_ZERO_ENTRY
/* Filter bit for xa_seek(): also stop at reservations. */
#define XA_FILTER_RAW 32U

/*
 * struct rg_xa_node - one 64-slot node (opaque in <region/xarray.h>).
 * @shift: bits of index below this node's slots (0 for a leaf).
 * @offset: slot of this node in its parent.
 * @parent: parent node, NULL for the top node.
 * @used: bit n set iff slots[n] is not NULL.
 * @marks: per mark, bit n set iff the entry in slot n (leaf) or some entry
 *         below slot n (interior) has the mark; for the free mark of an
 *         allocating array, iff slot n has a free index below it.
 * @slots: entries (leaf) or tagged child nodes (interior).
 */
struct rg_xa_node {
	unsigned char shift;
	unsigned char offset;
	struct rg_xa_node *parent;
	uint64_t used;
	uint64_t marks[RG_XA_MARK_MAX + 1];
	void *slots[RG_XA_CHUNK_SIZE];
};

/*
 * struct xa_cursor - where xa_seek() stopped.
 * @node: the leaf holding @slot, or NULL when @slot is the array's head or
 *        when no slot exists yet for @index.
 * @slot: the slot of @index, or NULL if storing there needs new nodes.
 * @index: the index found.
 */
struct xa_cursor {
	struct rg_xa_node *node;
	void **slot;
	unsigned long index;
};

static inline void xa_mutex_lock(struct rg_xarray *xa)
{
	pthread_mutex_lock(&xa->lock);
}

static inline void xa_mutex_unlock(struct rg_xarray *xa)
{
	pthread_mutex_unlock(&xa->lock);
}

/*
 * The read calls: take the lock unless this thread holds it through
 * rg_xa_lock() (as kernel code reads under xa_lock). True if taken.
 */
static inline bool xa_read_lock(struct rg_xarray *xa)
{
	unsigned long owner = __atomic_load_n(&xa->owner, __ATOMIC_RELAXED);

	if (owner && owner == (unsigned long)pthread_self())
		return false;
	pthread_mutex_lock(&xa->lock);
	return true;
}

static inline void xa_read_unlock(struct rg_xarray *xa, bool taken)
{
	if (taken)
		pthread_mutex_unlock(&xa->lock);
}

#define XA_BITS ((unsigned int)(sizeof(unsigned long) * CHAR_BIT))
#define XA_SLOT_MASK (RG_XA_CHUNK_SIZE - 1)
#define XA_NR_MARKS (RG_XA_MARK_MAX + 1)
#define XA_FREE_BIT (1u << RG_XA_FREE_MARK)
/* Head-direct entry + growth to the top + a full path below it. */
#define XA_MAX_NEW_NODES (2 * (XA_BITS / RG_XA_CHUNK_SHIFT + 1) + 1)

/* ---- the node cache ---- */

static struct rg_slab_cache *xa_cache;
static pthread_mutex_t xa_cache_lock = PTHREAD_MUTEX_INITIALIZER;

static struct rg_slab_cache *xa_node_cache(void)
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

/* ---- entry helpers ---- */

static inline bool xa_is_internal(const void *e)
{
	return ((uintptr_t)e & 3) == 2;
}

static inline bool xa_is_node(const void *e)
{
	return xa_is_internal(e) && (uintptr_t)e > 4096;
}

/*
 * The internal entries no caller may store: those up to 4096, the array's
 * own (RG_XA_ZERO_ENTRY, RG_XA_RETRY_ENTRY and room for more). Above that
 * a pointer with the low bits 10 is stored like any other (in a leaf: the
 * head never holds one, where it would read as the top node).
 */
static inline bool xa_is_advanced(const void *e)
{
	return rg_xa_is_reserved_entry(e);
}

static inline struct rg_xa_node *xa_to_node(const void *e)
{
	return (struct rg_xa_node *)((uintptr_t)e - 2);
}

static inline void *xa_mk_node(const struct rg_xa_node *n)
{
	return (void *)((uintptr_t)n | 2);
}

static inline void *xa_zero_to_null(void *e)
{
	return e == XA_ZERO ? NULL : e;
}

static inline bool xa_track_free(const struct rg_xarray *xa)
{
	return xa->flags & RG_XA_FLAGS_ALLOC;
}

static inline uint64_t xa_bit(unsigned int n)
{
	return (uint64_t)1 << n;
}

/* Highest index a top node of this shift covers. */
static inline unsigned long xa_node_max(unsigned int shift)
{
	unsigned int span = shift + RG_XA_CHUNK_SHIFT;

	return span >= XA_BITS ? ULONG_MAX : (1UL << span) - 1;
}

/* @i with slot @b of a node of this shift chosen and lower bits cleared. */
static inline unsigned long xa_slot_base(unsigned long i, unsigned int shift,
					 unsigned int b)
{
	unsigned int span = shift + RG_XA_CHUNK_SHIFT;
	unsigned long hi = span >= XA_BITS ? 0 : (i >> span) << span;

	return hi | ((unsigned long)b << shift);
}

/* Slots of a node of this shift that lie inside the index space. */
static inline uint64_t xa_slots_mask(unsigned int shift)
{
	unsigned int span = shift + RG_XA_CHUNK_SHIFT;

	if (span <= XA_BITS)
		return ~(uint64_t)0;
	/* The top node of a full tree: only 2^(BITS - shift) slots. */
	return ((uint64_t)1 << (1u << (XA_BITS - shift))) - 1;
}

static inline unsigned int xa_offset(unsigned long i, unsigned int shift)
{
	return (unsigned int)(i >> shift) & XA_SLOT_MASK;
}

/* Smallest shift of a top node covering @index. */
static unsigned int xa_shift_for(unsigned long index)
{
	unsigned int s = 0;

	while (s + RG_XA_CHUNK_SHIFT < XA_BITS &&
	       (index >> (s + RG_XA_CHUNK_SHIFT)))
		s += RG_XA_CHUNK_SHIFT;
	return s;
}

static inline struct rg_xa_node *xa_root(const struct rg_xarray *xa)
{
	return xa_is_node(xa->head) ? xa_to_node(xa->head) : NULL;
}

/* ---- marks ---- */

/* Set or clear bit @off of mark @m in @node and fix the ancestors. */
static void xa_mark_update(struct rg_xa_node *node, unsigned int off,
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

static inline uint64_t xa_filter_mask(const struct rg_xa_node *n,
				      unsigned int filter)
{
	if (filter == RG_XA_PRESENT)
		return n->used;
	if (filter == XA_FILTER_FREE)
		return n->marks[RG_XA_FREE_MARK];
	return n->marks[filter];
}

/* ---- node allocation ---- */

struct xa_prealloc {
	unsigned int n, used;
	void *nodes[XA_MAX_NEW_NODES];
};

/*
 * Gather @n nodes in @pre: first those a state's rg_xas_nomem() allocated
 * (@xas may be NULL), then one slab call for the rest. On failure the
 * state keeps its nodes and -ENOMEM is returned.
 */
static int xa_prealloc(struct xa_prealloc *pre, unsigned int n,
		       struct rg_xa_state *xas)
{
	struct rg_slab_cache *c = xa_node_cache();
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
	for (i = 0; xas && i < have; i++) {
		node = xas->xa_alloc;
		xas->xa_alloc = node->parent;
		pre->nodes[i] = node;
	}
	pre->n = n;
	return 0;
}

static struct rg_xa_node *
xa_node_take(struct rg_xarray *xa, struct xa_prealloc *pre, unsigned int shift,
	     struct rg_xa_node *parent, unsigned int offset)
{
	struct rg_xa_node *n;

	RGI_ASSERT(pre->used < pre->n);
	n = pre->nodes[pre->used++];
	memset(n, 0, sizeof(*n));
	n->shift = (unsigned char)shift;
	n->offset = (unsigned char)offset;
	n->parent = parent;
	if (xa_track_free(xa))
		n->marks[RG_XA_FREE_MARK] = xa_slots_mask(shift);
	xa->nr_nodes++;
	return n;
}

static void xa_node_free(struct rg_xarray *xa, struct rg_xa_node *n)
{
	xa->nr_nodes--;
	rg_slab_free(__atomic_load_n(&xa_cache, __ATOMIC_ACQUIRE), n);
}

/* ---- lookup and seek ---- */

static void **xa_slot(struct rg_xarray *xa, unsigned long index,
		      struct rg_xa_node **leaf)
{
	struct rg_xa_node *node = xa_root(xa);

	*leaf = NULL;
	if (!node)
		return index == 0 ? &xa->head : NULL;
	if (index > xa_node_max(node->shift))
		return NULL;
	for (;;) {
		unsigned int s = node->shift;
		unsigned int b = xa_offset(index, s);
		void *e;

		if (s == 0) {
			*leaf = node;
			return &node->slots[b];
		}
		e = node->slots[b];
		if (!e)
			return NULL;
		node = xa_to_node(e);
	}
}

/* The head is an entry or nothing: the index-0-only case of xa_seek. */
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

static bool xa_seek(struct rg_xarray *xa, unsigned long start,
		    unsigned long max, unsigned int filter, struct xa_cursor *c)
{
	struct rg_xa_node *root = xa_root(xa), *node = root;
	unsigned long i = start, top;
	bool raw = filter & XA_FILTER_RAW;

	filter &= ~XA_FILTER_RAW;
	c->node = NULL;
	c->slot = NULL;
	if (start > max)
		return false;
	if (!root)
		return xa_seek_head(xa, start, max, filter, raw, c);
	if (i > xa_node_max(root->shift))
		goto beyond;
	for (;;) {
		unsigned int s = node->shift, off = xa_offset(i, s);
		uint64_t mask =
			xa_filter_mask(node, filter) & (~(uint64_t)0 << off);
		struct rg_xa_node *child = NULL;

		while (mask) {
			unsigned int b = (unsigned int)__builtin_ctzll(mask);
			void *e = node->slots[b];

			mask &= mask - 1;
			if (b != off)
				i = xa_slot_base(i, s, b);
			if (i > max)
				return false;
			if (s == 0) {
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

/* ---- store ---- */

/* Exact number of nodes a store of a non-NULL entry at @index creates. */
static unsigned int xa_nodes_needed(struct rg_xarray *xa, unsigned long index,
				    bool leaf0)
{
	struct rg_xa_node *node = xa_root(xa);
	unsigned int s;

	if (!node) {
		if (index == 0)
			return leaf0 ? 1 : 0;
		s = xa_shift_for(index) / RG_XA_CHUNK_SHIFT;
		/* Head entry: a leaf for it, the levels up, a path down. */
		return xa->head ? 1 + 2 * s : s + 1;
	}
	if (index > xa_node_max(node->shift)) {
		s = xa_shift_for(index);
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

/*
 * Build the missing nodes for @index from @pre; cannot fail. @leaf0: index
 * 0 needs a leaf even in an array without nodes (the entry would read as a
 * node in the head).
 */
static void **xa_create_slot(struct rg_xarray *xa, unsigned long index,
			     struct xa_prealloc *pre, struct rg_xa_node **leaf,
			     bool leaf0)
{
	struct rg_xa_node *node = xa_root(xa);
	unsigned int m;

	*leaf = NULL;
	if (!node) {
		if (index == 0 && !leaf0)
			return &xa->head;
		if (xa->head) {
			/* Move the head entry into slot 0 of a new leaf. */
			node = xa_node_take(xa, pre, 0, NULL, 0);
			node->slots[0] = xa->head;
			node->used = 1;
			for (m = 0; m < XA_NR_MARKS; m++) {
				if (xa->head_marks & (1u << m))
					node->marks[m] |= 1;
				else
					node->marks[m] &= ~(uint64_t)1;
			}
			xa->head_marks = 0;
		} else {
			node = xa_node_take(xa, pre, xa_shift_for(index), NULL,
					    0);
		}
		xa->head = xa_mk_node(node);
	}
	while (index > xa_node_max(node->shift)) {
		struct rg_xa_node *top = xa_node_take(
			xa, pre, node->shift + RG_XA_CHUNK_SHIFT, NULL, 0);

		top->slots[0] = xa_mk_node(node);
		top->used = 1;
		for (m = 0; m < XA_NR_MARKS; m++) {
			if (node->marks[m])
				top->marks[m] |= 1;
			else
				top->marks[m] &= ~(uint64_t)1;
		}
		node->parent = top;
		node->offset = 0;
		xa->head = xa_mk_node(top);
		node = top;
	}
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
			struct rg_xa_node *child = xa_node_take(
				xa, pre, s - RG_XA_CHUNK_SHIFT, node, b);

			e = xa_mk_node(child);
			node->slots[b] = e;
			node->used |= xa_bit(b);
		}
		node = xa_to_node(e);
	}
}

/* ---- the state: positions ---- */

#define XAS_RESTART RG_XAS_RESTART
#define XAS_BOUNDS RG_XAS_BOUNDS

/* On a node (not the head, not a special position or an error). */
static inline bool xas_on_node(const struct rg_xa_state *xas)
{
	return xas->xa_node && !rg_xas_invalid(xas);
}

/* On the slot of its index in a leaf. */
static inline bool xas_on_leaf(const struct rg_xa_state *xas)
{
	return xas_on_node(xas) && xas->xa_node->shift == 0;
}

/*
 * The slot of the state's index (it may hold NULL), or NULL if none exists
 * yet; walks from the top unless the state is on its leaf or the head.
 * Leaves the state where the walk stopped. @leaf: the leaf, or NULL for
 * the head.
 */
static RGI_ALWAYS_INLINE void **xas_walk(struct rg_xa_state *xas,
					 struct rg_xa_node **leaf)
{
	struct rg_xarray *xa = xas->xa;
	unsigned long index = xas->xa_index;
	struct rg_xa_node *node;

	*leaf = NULL;
	if (xas_on_leaf(xas)) {
		RGI_DEBUG_ASSERT(xas->xa_offset == xa_offset(index, 0));
		*leaf = xas->xa_node;
		return &xas->xa_node->slots[xas->xa_offset];
	}
	node = xa_root(xa);
	if (!node) {
		if (index) {
			xas->xa_node = XAS_BOUNDS;
			return NULL;
		}
		xas->xa_node = NULL;
		xas->xa_offset = 0;
		return &xa->head;
	}
	if (index > xa_node_max(node->shift)) {
		xas->xa_node = XAS_BOUNDS;
		return NULL;
	}
	for (;;) {
		unsigned int off = xa_offset(index, node->shift);
		void *e = node->slots[off];

		if (!node->shift || !e) {
			xas->xa_node = node;
			xas->xa_offset = (unsigned char)off;
			if (node->shift)
				return NULL;
			*leaf = node;
			return &node->slots[off];
		}
		node = xa_to_node(e);
	}
}

/* ---- store ---- */

/* Store non-NULL @entry at the state's index; raw old entry, or error. */
static RGI_ALWAYS_INLINE void *xas_store_entry(struct rg_xa_state *xas,
					       void *entry)
{
	struct rg_xarray *xa = xas->xa;
	unsigned long index = xas->xa_index;
	struct rg_xa_node *leaf;
	void **slot = xas_walk(xas, &leaf);
	/* The head holds no entry that looks like a node: give it a leaf. */
	bool leaf0 = slot && !leaf && xa_is_node(entry);
	void *prev;

	if (!slot || leaf0) {
		struct xa_prealloc pre;
		unsigned int n = xa_nodes_needed(xa, index, leaf0);

		if (xa_prealloc(&pre, n, xas)) {
			xas->xa_need = n;
			rg_xas_set_err(xas, -ENOMEM);
			return NULL;
		}
		slot = xa_create_slot(xa, index, &pre, &leaf, leaf0);
		RGI_ASSERT(pre.used == pre.n);
		xas->xa_node = leaf;
		xas->xa_offset = (unsigned char)xa_offset(index, 0);
	}
	prev = *slot;
	*slot = entry;
	if (!prev) {
		/* A new entry keeps the empty slot's marks. */
		if (leaf)
			leaf->used |= xa_bit(xa_offset(index, 0));
		else
			xa->head_marks = xa_track_free(xa) ? XA_FREE_BIT : 0;
	}
	return prev;
}

/* ---- erase ---- */

/* Remove top nodes using only slot 0; a state on one goes out of bounds. */
static void xa_shrink(struct rg_xarray *xa, struct rg_xa_state *xas)
{
	struct rg_xa_node *node;

	while ((node = xa_root(xa)) && node->used == 1) {
		void *e = node->slots[0];

		/* An entry that looks like a node stays in its leaf. */
		if (!node->shift && xa_is_node(e))
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
		xa->head = e;
		if (xas->xa_node == node)
			xas->xa_node = XAS_BOUNDS;
		xa_node_free(xa, node);
	}
}

/*
 * Erase the entry at the state's index; returns it raw. The state stays on
 * the deepest node that survives (or the head), or goes out of bounds.
 */
static RGI_ALWAYS_INLINE void *xas_erase(struct rg_xa_state *xas)
{
	struct rg_xarray *xa = xas->xa;
	struct rg_xa_node *leaf, *node;
	void **slot = xas_walk(xas, &leaf);
	unsigned int b = xa_offset(xas->xa_index, 0), m;
	void *old;

	if (!slot || !*slot)
		return NULL;
	old = *slot;
	if (!leaf) {
		xa->head = NULL;
		xa->head_marks = 0;
		return old;
	}
	*slot = NULL;
	leaf->used &= ~xa_bit(b);
	for (m = 0; m < XA_NR_MARKS; m++) {
		if (m == RG_XA_FREE_MARK && xa_track_free(xa))
			xa_mark_update(leaf, b, m, true);
		else if (leaf->marks[m] & xa_bit(b))
			xa_mark_update(leaf, b, m, false);
	}
	/* Free nodes left empty; their parents' marks already agree. */
	node = leaf;
	while (!node->used) {
		struct rg_xa_node *p = node->parent;

		if (!p) {
			xa->head = NULL;
			xa->head_marks = 0;
			xa_node_free(xa, node);
			xas->xa_node = XAS_BOUNDS;
			return old;
		}
		p->slots[node->offset] = NULL;
		p->used &= ~xa_bit(node->offset);
		xa_node_free(xa, node);
		node = p;
	}
	xas->xa_node = node;
	xas->xa_offset = (unsigned char)xa_offset(xas->xa_index, node->shift);
	xa_shrink(xa, xas);
	return old;
}

/* ---- destroy ---- */

static void xa_free_subtree(struct rg_xarray *xa, struct rg_xa_node *node)
{
	if (node->shift) {
		uint64_t used = node->used;

		while (used) {
			unsigned int b = (unsigned int)__builtin_ctzll(used);

			used &= used - 1;
			xa_free_subtree(xa, xa_to_node(node->slots[b]));
		}
	}
	xa_node_free(xa, node);
}

static void xa_destroy_nolock(struct rg_xarray *xa)
{
	struct rg_xa_node *root = xa_root(xa);

	if (root)
		xa_free_subtree(xa, root);
	xa->head = NULL;
	xa->head_marks = 0;
}

static size_t xa_node_bytes(const struct rg_xarray *xa)
{
	return xa->nr_nodes * sizeof(struct rg_xa_node);
}

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
	uint64_t used = 0, want[XA_NR_MARKS] = { 0 }, all;
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
	if (!used)
		return xa_vfail(v, "empty node left in the tree");
	all = xa_slots_mask(shift);
	if (used & ~all)
		return xa_vfail(v, "slot beyond the index space in use");
	if (shift == 0) {
		for (; used; used &= used - 1) {
			void *e = node->slots[__builtin_ctzll(used)];

			if (xa_is_advanced(e) && e != RG_XA_ZERO_ENTRY &&
			    e != RG_XA_RETRY_ENTRY)
				return xa_vfail(v, "internal entry in a leaf");
		}
		for (m = 0; m < XA_NR_MARKS; m++)
			want[m] = node->marks[m] & node->used;
		if (track) {
			want[RG_XA_FREE_MARK] = ~node->used & all;
			if (v->owner_free)
				want[RG_XA_FREE_MARK] |=
					node->marks[RG_XA_FREE_MARK] &
					node->used;
		}
	} else {
		if (track)
			want[RG_XA_FREE_MARK] = ~used & all;
		for (; used; used &= used - 1) {
			unsigned int c = (unsigned int)__builtin_ctzll(used);
			void *e = node->slots[c];
			struct rg_xa_node *child;

			if (!xa_is_node(e))
				return xa_vfail(v, "entry in an interior node");
			child = xa_to_node(e);
			if (!xa_check_node(v, child, node, c,
					   shift - RG_XA_CHUNK_SHIFT))
				return false;
			for (m = 0; m < XA_NR_MARKS; m++)
				if (child->marks[m])
					want[m] |= xa_bit(c);
		}
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

	if (xa->flags & ~(RG_XA_FLAGS_ALLOC1 | RG_XA_FLAGS_ALLOC_WRAPPED))
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
	} else if (xa->head_marks) {
		v.why = "head marks with a node at the head";
	} else if (root->shift % RG_XA_CHUNK_SHIFT || root->shift >= XA_BITS) {
		v.why = "top node has a bad shift";
	} else if (root->used == 1 &&
		   !(root->shift == 0 && xa_is_node(root->slots[0]))) {
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

		if (!e)
			continue;
		if (node->shift) {
			xa_dump_node(f, xa_to_node(e), idx, depth + 1, fn);
			continue;
		}
		fprintf(f, "%*s[%lu] ", 2 * depth + 2, "", idx);
		fn(f, idx, e);
	}
}

static void xa_dump_nolock(struct rg_xarray *xa, FILE *f, rg_xa_dump_fn fn)
{
	struct rg_xa_node *root = xa_root(xa);

	if (!fn)
		fn = xa_dump_entry;
	fprintf(f, "xarray %p flags %#x nodes %zu bytes %zu\n", (void *)xa,
		xa->flags, xa->nr_nodes, xa_node_bytes(xa) + sizeof(*xa));
	if (!xa->head) {
		fprintf(f, "  empty\n");
	} else if (!root) {
		fprintf(f, "  head [0] marks %#x ", xa->head_marks);
		fn(f, 0, xa->head);
	} else {
		xa_dump_node(f, root, 0, 1, fn);
	}
}

/* ---- the advanced API ---- */

/* rg_xas_load(), for the calls here: inlined. */
static RGI_ALWAYS_INLINE void *xas_load(struct rg_xa_state *xas)
{
	struct rg_xa_node *leaf;
	void **slot;

	if (rg_xas_error(xas))
		return NULL;
	xas->xa_node = XAS_RESTART;
	slot = xas_walk(xas, &leaf);
	return slot ? *slot : NULL;
}

void *rg_xas_load(struct rg_xa_state *xas)
{
	return xas_load(xas);
}

void *rg_xas_reload(struct rg_xa_state *xas)
{
	struct rg_xa_node *node = xas->xa_node;

	if (xas_on_leaf(xas))
		return node->slots[xas->xa_offset];
	if (!node && !xa_root(xas->xa))
		return xas->xa->head;
	return rg_xas_load(xas);
}

/* rg_xas_store(), for the calls here. */
static inline void *xas_store(struct rg_xa_state *xas, void *entry)
{
	if (rg_xas_error(xas))
		return NULL;
	if (xa_is_advanced(entry) && entry != RG_XA_ZERO_ENTRY &&
	    entry != RG_XA_RETRY_ENTRY) {
		rg_xas_set_err(xas, -EINVAL);
		return NULL;
	}
	return entry ? xas_store_entry(xas, entry) : xas_erase(xas);
}

void *rg_xas_store(struct rg_xa_state *xas, void *entry)
{
	return xas_store(xas, entry);
}

/* Give back the nodes a state holds. */
static void xas_free_nodes(struct rg_xa_state *xas)
{
	while (xas->xa_alloc) {
		struct rg_xa_node *n = xas->xa_alloc;

		xas->xa_alloc = n->parent;
		rg_slab_free(__atomic_load_n(&xa_cache, __ATOMIC_ACQUIRE), n);
	}
}

bool rg_xas_nomem(struct rg_xa_state *xas)
{
	struct rg_slab_cache *c;
	struct rg_xa_node *n;
	unsigned int have = 0;

	if (rg_xas_error(xas) != -ENOMEM) {
		xas_free_nodes(xas);
		return false;
	}
	for (n = xas->xa_alloc; n; n = n->parent)
		have++;
	c = xa_node_cache();
	while (have < xas->xa_need) {
		n = c ? rg_slab_alloc(c) : NULL;
		if (!n) {
			xas_free_nodes(xas);
			return false;
		}
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

static void *xas_find_filter(struct rg_xa_state *xas, unsigned long max,
			     unsigned int filter)
{
	struct rg_xarray *xa = xas->xa;
	unsigned long start = xas->xa_index, end;
	struct xa_cursor c;

	if (rg_xas_error(xas) || xas->xa_node == XAS_BOUNDS)
		return NULL;
	if (xas->xa_node != XAS_RESTART) {
		if (start == ULONG_MAX) {
			xas->xa_node = XAS_BOUNDS;
			return NULL;
		}
		start++;
	}
	if (start <= max &&
	    xa_seek(xa, start, max, filter | XA_FILTER_RAW, &c)) {
		xas->xa_index = c.index;
		if (!c.slot) {
			/* A free index with no slot yet: a store walks. */
			xas->xa_node = XAS_RESTART;
			return NULL;
		}
		xas->xa_node = c.node;
		xas->xa_offset = (unsigned char)xa_offset(c.index, 0);
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

			if (i <= max) {
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
	if (node && node->shift) {
		/* Stopped above a missing child: skip its whole subtree. */
		unsigned long step = 1UL << node->shift;

		xas->xa_index = (xas->xa_index & ~(step - 1)) + step;
	} else {
		xas->xa_index++;
	}
	xas->xa_node = xas->xa_index ? XAS_RESTART : XAS_BOUNDS;
}

/* The state is on a present entry: a leaf slot in use, or the head. */
static bool xas_on_entry(const struct rg_xa_state *xas)
{
	if (xas_on_leaf(xas))
		return xas->xa_node->used & xa_bit(xas->xa_offset);
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

static void xas_mark(const struct rg_xa_state *xas, rg_xa_mark_t mark, bool set)
{
	if (mark > RG_XA_MARK_MAX || !xas_on_entry(xas))
		return;
	if (xas->xa_node)
		xa_mark_update(xas->xa_node, xas->xa_offset, mark, set);
	else if (set)
		xas->xa->head_marks |= 1u << mark;
	else
		xas->xa->head_marks &= ~(1u << mark);
}

void rg_xas_set_mark(const struct rg_xa_state *xas, rg_xa_mark_t mark)
{
	xas_mark(xas, mark, true);
}

void rg_xas_clear_mark(const struct rg_xa_state *xas, rg_xa_mark_t mark)
{
	xas_mark(xas, mark, false);
}

void rg_xas_init_marks(const struct rg_xa_state *xas)
{
	unsigned int m;

	for (m = 0; m <= RG_XA_MARK_MAX; m++)
		xas_mark(xas, m,
			 m == RG_XA_FREE_MARK && xa_track_free(xas->xa));
}

/* ---- normal calls under the caller's lock ---- */

/*
 * Store @entry (raw: XA_ZERO reserves; NULL erases) with the normal
 * API's marks: a new entry of an allocating array is not free.
 */
static int xa_store_raw(struct rg_xarray *xa, unsigned long index, void *entry,
			void **old)
{
	RG_XA_STATE(xas, xa, index);
	void *prev = xas_store(&xas, entry);

	if (rg_xas_error(&xas))
		return rg_xas_error(&xas);
	if (entry && !prev && xa_track_free(xa))
		xas_mark(&xas, RG_XA_FREE_MARK, false);
	if (old)
		*old = prev;
	return 0;
}

static inline int xa_store_locked(struct rg_xarray *xa, unsigned long index,
				  void *entry, void **old)
{
	void *prev = NULL;
	int err;

	if (unlikely(!xa) || xa_is_advanced(entry))
		return -EINVAL;
	if (!entry && xa_track_free(xa))
		entry = XA_ZERO;
	err = xa_store_raw(xa, index, entry, &prev);
	if (!err && old)
		*old = xa_zero_to_null(prev);
	return err;
}

int rg_xa_store_locked(struct rg_xarray *xa, unsigned long index, void *entry,
		       void **old)
{
	return xa_store_locked(xa, index, entry, old);
}

int rg_xa_insert_locked(struct rg_xarray *xa, unsigned long index, void *entry)
{
	RG_XA_STATE(xas, xa, index);

	if (unlikely(!xa) || xa_is_advanced(entry))
		return -EINVAL;
	if (xas_load(&xas))
		return -EBUSY;
	return xa_store_raw(xa, index, entry ? entry : XA_ZERO, NULL);
}

static inline void *xa_erase_locked(struct rg_xarray *xa, unsigned long index)
{
	RG_XA_STATE(xas, xa, index);

	if (unlikely(!xa))
		return NULL;
	return xa_zero_to_null(xas_erase(&xas));
}

void *rg_xa_erase_locked(struct rg_xarray *xa, unsigned long index)
{
	return xa_erase_locked(xa, index);
}

int rg_xa_cmpxchg_locked(struct rg_xarray *xa, unsigned long index, void *old,
			 void *entry, void **cur)
{
	RG_XA_STATE(xas, xa, index);
	void *curr, *eff;
	int err = 0;

	if (unlikely(!xa) || xa_is_advanced(entry))
		return -EINVAL;
	curr = xas_load(&xas);
	/* What the slot would hold: NULL reserves in an allocating array. */
	eff = entry ? entry : xa_track_free(xa) ? XA_ZERO : NULL;
	/* Raw: RG_XA_ZERO_ENTRY matches a reservation, as in the kernel. */
	if (curr != old)
		err = -EBUSY;
	else if (eff != curr)
		err = xa_store_raw(xa, index, eff, NULL);
	if (err != -ENOMEM && cur)
		*cur = xa_zero_to_null(curr);
	return err;
}

int rg_xa_alloc_locked(struct rg_xarray *xa, unsigned long *id, void *entry,
		       unsigned long min, unsigned long max)
{
	struct xa_cursor c;
	int err;

	if (!xa || !id || !xa_track_free(xa) || xa_is_advanced(entry))
		return -EINVAL;
	/* an empty range has no free index, as in the kernel */
	if (min > max)
		return -EBUSY;
	if ((xa->flags & RG_XA_FLAGS_ALLOC1) == RG_XA_FLAGS_ALLOC1 && !min) {
		if (max == 0)
			return -EBUSY;
		min = 1;
	}
	if (!xa_seek(xa, min, max, XA_FILTER_FREE, &c))
		return -EBUSY;
	err = xa_store_raw(xa, c.index, entry ? entry : XA_ZERO, NULL);
	if (!err)
		*id = c.index;
	return err;
}

int rg_xa_alloc_cyclic_locked(struct rg_xarray *xa, uint32_t *id, void *entry,
			      uint32_t min, uint32_t max, uint32_t *next)
{
	uint32_t lo;
	unsigned long got = 0;
	int ret;

	if (!xa || !id || !next)
		return -EINVAL;
	lo = *next > min ? *next : min;
	ret = rg_xa_alloc_locked(xa, &got, entry, lo, max);
	if (!ret && (xa->flags & RG_XA_FLAGS_ALLOC_WRAPPED)) {
		xa->flags &= ~RG_XA_FLAGS_ALLOC_WRAPPED;
		ret = 1;
	}
	if (ret == -EBUSY && lo > min) {
		/* [lo, max] is full: start again at min. */
		ret = rg_xa_alloc_locked(xa, &got, entry, min, max);
		if (!ret) {
			xa->flags &= ~RG_XA_FLAGS_ALLOC_WRAPPED;
			ret = 1;
		}
	}
	if (ret < 0)
		return ret;
	*id = (uint32_t)got;
	*next = (uint32_t)got + 1;
	if (!*next)
		xa->flags |= RG_XA_FLAGS_ALLOC_WRAPPED;
	return ret;
}

int rg_xa_alloc_cyclic(struct rg_xarray *xa, uint32_t *id, void *entry,
		       uint32_t min, uint32_t max, uint32_t *next)
{
	int err;

	if (!xa)
		return -EINVAL;
	xa_mutex_lock(xa);
	err = rg_xa_alloc_cyclic_locked(xa, id, entry, min, max, next);
	xa_mutex_unlock(xa);
	return err;
}

static bool xa_filter_ok(const struct rg_xarray *xa, rg_xa_mark_t filter)
{
	if (filter == RG_XA_PRESENT)
		return true;
	if (filter > RG_XA_MARK_MAX)
		return false;
	return !(xa_track_free(xa) && filter == RG_XA_FREE_MARK);
}

static int xa_mark_locked(struct rg_xarray *xa, unsigned long index,
			  rg_xa_mark_t mark, bool set)
{
	RG_XA_STATE(xas, xa, index);

	if (unlikely(!xa) || mark == RG_XA_PRESENT || !xa_filter_ok(xa, mark))
		return -EINVAL;
	if (!xas_load(&xas))
		return -ENOENT;
	xas_mark(&xas, mark, set);
	return 0;
}

int rg_xa_set_mark_locked(struct rg_xarray *xa, unsigned long index,
			  rg_xa_mark_t mark)
{
	return xa_mark_locked(xa, index, mark, true);
}

int rg_xa_clear_mark_locked(struct rg_xarray *xa, unsigned long index,
			    rg_xa_mark_t mark)
{
	return xa_mark_locked(xa, index, mark, false);
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

size_t rg_xa_bytes_locked(const struct rg_xarray *xa)
{
	return xa ? xa_node_bytes(xa) + sizeof(*xa) : 0;
}

/* ---- public calls ---- */

int rg_xa_init_flags(struct rg_xarray *xa, unsigned int flags)
{
	if (!xa || (flags & ~RG_XA_FLAGS_ALLOC1) ||
	    ((flags & RG_XA_FLAGS_ALLOC1) && !(flags & RG_XA_FLAGS_ALLOC)))
		return -EINVAL;
	pthread_mutex_init(&xa->lock, NULL);
	xa->flags = flags;
	xa->head_marks = 0;
	xa->head = NULL;
	xa->nr_nodes = 0;
	xa->owner = 0;
	return 0;
}

void rg_xa_init(struct rg_xarray *xa)
{
	rg_xa_init_flags(xa, 0);
}

void rg_xa_destroy(struct rg_xarray *xa)
{
	if (unlikely(!xa))
		return;
	xa_mutex_lock(xa);
	xa_destroy_nolock(xa);
	xa_mutex_unlock(xa);
}

void *rg_xa_load(struct rg_xarray *xa, unsigned long index)
{
	bool taken;
	RG_XA_STATE(xas, xa, index);
	void *e;

	if (unlikely(!xa))
		return NULL;
	taken = xa_read_lock(xa);
	e = xa_zero_to_null(xas_load(&xas));
	xa_read_unlock(xa, taken);
	return e;
}

int rg_xa_store(struct rg_xarray *xa, unsigned long index, void *entry,
		void **old)
{
	int err;

	if (unlikely(!xa))
		return -EINVAL;
	xa_mutex_lock(xa);
	err = xa_store_locked(xa, index, entry, old);
	xa_mutex_unlock(xa);
	return err;
}

int rg_xa_insert(struct rg_xarray *xa, unsigned long index, void *entry)
{
	int err;

	if (unlikely(!xa))
		return -EINVAL;
	xa_mutex_lock(xa);
	err = rg_xa_insert_locked(xa, index, entry);
	xa_mutex_unlock(xa);
	return err;
}

void *rg_xa_erase(struct rg_xarray *xa, unsigned long index)
{
	void *old;

	if (unlikely(!xa))
		return NULL;
	xa_mutex_lock(xa);
	old = xa_erase_locked(xa, index);
	xa_mutex_unlock(xa);
	return old;
}

int rg_xa_cmpxchg(struct rg_xarray *xa, unsigned long index, void *old,
		  void *entry, void **cur)
{
	int err;

	if (unlikely(!xa))
		return -EINVAL;
	xa_mutex_lock(xa);
	err = rg_xa_cmpxchg_locked(xa, index, old, entry, cur);
	xa_mutex_unlock(xa);
	return err;
}

int rg_xa_reserve(struct rg_xarray *xa, unsigned long index)
{
	RG_XA_STATE(xas, xa, index);
	int err = 0;

	if (unlikely(!xa))
		return -EINVAL;
	xa_mutex_lock(xa);
	if (!xas_load(&xas)) {
		xas_store(&xas, XA_ZERO);
		err = rg_xas_error(&xas);
		if (!err && xa_track_free(xa))
			rg_xas_clear_mark(&xas, RG_XA_FREE_MARK);
	}
	xa_mutex_unlock(xa);
	return err;
}

void rg_xa_release(struct rg_xarray *xa, unsigned long index)
{
	RG_XA_STATE(xas, xa, index);

	if (unlikely(!xa))
		return;
	xa_mutex_lock(xa);
	if (xas_load(&xas) == XA_ZERO)
		xas_store(&xas, NULL);
	xa_mutex_unlock(xa);
}

int rg_xa_alloc(struct rg_xarray *xa, unsigned long *id, void *entry,
		unsigned long min, unsigned long max)
{
	int err;

	if (!xa)
		return -EINVAL;
	xa_mutex_lock(xa);
	err = rg_xa_alloc_locked(xa, id, entry, min, max);
	xa_mutex_unlock(xa);
	return err;
}

void *rg_xa_find(struct rg_xarray *xa, unsigned long *index, unsigned long max,
		 rg_xa_mark_t filter)
{
	bool taken;
	struct xa_cursor c;
	void *e = NULL;

	if (unlikely(!xa || !index) || !xa_filter_ok(xa, filter))
		return NULL;
	taken = xa_read_lock(xa);
	if (xa_seek(xa, *index, max, filter, &c)) {
		e = *c.slot;
		*index = c.index;
	}
	xa_read_unlock(xa, taken);
	return e;
}

void *rg_xa_find_after(struct rg_xarray *xa, unsigned long *index,
		       unsigned long max, rg_xa_mark_t filter)
{
	unsigned long i;
	void *e;

	if (unlikely(!index) || *index == ULONG_MAX)
		return NULL;
	i = *index + 1;
	e = rg_xa_find(xa, &i, max, filter);
	if (e)
		*index = i;
	return e;
}

int rg_xa_set_mark(struct rg_xarray *xa, unsigned long index, rg_xa_mark_t mark)
{
	int err;

	if (unlikely(!xa))
		return -EINVAL;
	xa_mutex_lock(xa);
	err = rg_xa_set_mark_locked(xa, index, mark);
	xa_mutex_unlock(xa);
	return err;
}

int rg_xa_clear_mark(struct rg_xarray *xa, unsigned long index,
		     rg_xa_mark_t mark)
{
	int err;

	if (unlikely(!xa))
		return -EINVAL;
	xa_mutex_lock(xa);
	err = rg_xa_clear_mark_locked(xa, index, mark);
	xa_mutex_unlock(xa);
	return err;
}

bool rg_xa_get_mark(struct rg_xarray *xa, unsigned long index,
		    rg_xa_mark_t mark)
{
	bool taken;
	struct rg_xa_node *leaf;
	void **slot;
	bool r = false;

	if (unlikely(!xa) || mark == RG_XA_PRESENT || !xa_filter_ok(xa, mark))
		return false;
	taken = xa_read_lock(xa);
	slot = xa_slot(xa, index, &leaf);
	if (slot && *slot) {
		if (leaf)
			r = leaf->marks[mark] & xa_bit(xa_offset(index, 0));
		else
			r = xa->head_marks & (1u << mark);
	}
	xa_read_unlock(xa, taken);
	return r;
}

bool rg_xa_empty(struct rg_xarray *xa)
{
	bool taken;
	bool r;

	if (unlikely(!xa))
		return false;
	taken = xa_read_lock(xa);
	r = xa->head == NULL;
	xa_read_unlock(xa, taken);
	return r;
}

size_t rg_xa_bytes(struct rg_xarray *xa)
{
	bool taken;
	size_t r;

	if (unlikely(!xa))
		return 0;
	taken = xa_read_lock(xa);
	r = xa_node_bytes(xa) + sizeof(*xa);
	xa_read_unlock(xa, taken);
	return r;
}

size_t rg_xa_node_count(struct rg_xarray *xa)
{
	bool taken;
	size_t r;

	if (unlikely(!xa))
		return 0;
	taken = xa_read_lock(xa);
	r = xa->nr_nodes;
	xa_read_unlock(xa, taken);
	return r;
}

size_t rg_xa_node_size(void)
{
	return sizeof(struct rg_xa_node);
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
