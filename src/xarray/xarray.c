// SPDX-License-Identifier: MIT
/*
 * xarray: theory of operation.
 *
 * Layout. A radix tree of 64-slot nodes (struct rg_xa_node, 560 bytes)
 * indexed by unsigned long, 6 bits of index per level. A node with shift s
 * holds in slot n the subtree (or, at shift 0, the entry) for the indices
 * whose bits [s, s + 6) equal n; a slot of any node may instead hold a
 * multi-index entry for all of those indices, or a sibling entry (see
 * "multi-index entries" below). The array's head is NULL (empty), the entry
 * at index 0 when it is the only index in use (no node at all; its marks
 * live in xa->head_marks), or the top node tagged with the low bits 10.
 *
 * Entries are pointers with the two low bits 00 and value entries with the
 * low bit 1. Anything with the low bits 10 is internal: tagged nodes and
 * XA_ZERO, the reservation entry that reads as NULL but occupies its
 * index, and the sibling entries (internal 0..62). The public calls reject
 * such entries with -EINVAL.
 *
 * Invariants (checked by rg_xa_validate()):
 *  - node->used has bit n set iff slots[n] != NULL; no node is empty;
 *    node->count is the number of such slots, node->nr_values the number
 *    holding value entries (sibling slots of a value entry included);
 *  - children link back: parent, offset and shift = parent's shift - 6;
 *  - interior slots hold nodes or entries, leaf slots never hold nodes;
 *  - a multi-index entry spans a power-of-two run of slots (at most 32)
 *    aligned to its length: the entry, then sibling entries naming its
 *    slot; sibling slots carry no marks;
 *  - canonical height: the top node is not using only slot 0 (otherwise
 *    it would have been removed: shrink) unless slot 0 holds a
 *    multi-index entry, and it covers every index in use;
 *  - marks: for each mark, a node's bit n is set iff the entry in slot n
 *    has it (leaf) or some entry below slot n has it (interior);
 *  - free tracking (RG_XA_FLAGS_ALLOC): mark 0 is the free mark, with
 *    inverted sense: bit n is set iff slot n has a free index below it. An
 *    empty slot is always free; a new node starts all free. In a plain
 *    allocating array an occupied leaf slot is never free; the IDA keeps the
 *    mark on chunks that still have a free ID (rgi_xa_set_free()).
 *  - xa->nr_nodes is the number of nodes reachable from the head;
 *  - RG_XA_FLAGS_MULTI is set whenever an entry of order > 0 (an entry in
 *    an interior slot, or one with siblings) is in the tree, and clear
 *    while the array has no node.
 *
 * The multi-index flag. The first store of an order > 0 sets it and the
 * array's last node takes it with it (erase to empty or to a head entry,
 * destroy). While it is clear every interior slot in use holds a child and
 * no slot a sibling, so the walks of load, store, erase and find skip
 * those checks: a plain array pays one flag test for multi-index entries. It is
 * not cleared when the last multi-index entry goes while nodes remain:
 * keeping a count would cost every store and erase that replaces or
 * splits one, and a stale flag is only the slower walk, never a wrong one.
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
 * Locking: every normal call takes xa->lock; the rg_xas_* calls, the *_locked
 * calls and the static helpers here expect it held. Limits: indices are
 * unsigned long; height is at most 11 levels on 64-bit.
 */
#if defined(__SANITIZE_THREAD__)
#define XA_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define XA_TSAN 1
#endif
#endif
/*
 * liburcu's read lock, inlined: its static functions are written to be
 * used so from code under any licence (their comments say so). Not under
 * TSan, which would instrument liburcu's own plain-word protocol: there
 * the library's functions are called.
 */
#ifndef XA_TSAN
#define _LGPL_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <urcu/urcu-memb.h>
#ifdef XA_TSAN
#include <urcu/static/urcu-memb.h> /* the registered flag */
#endif

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
 * @count: slots in use (the bits of @used), as the kernel's nodes count.
 * @nr_values: slots holding value entries, sibling slots of a multi-index
 *             value entry included (the kernel's count of them).
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
	unsigned char count;
	unsigned char nr_values;
	union {
		struct {
			struct rg_xa_node *parent;
			uint64_t used;
		};
		/* A node waiting for its grace period: lock-free readers
		 * read only @shift and @slots, so this takes the place of
		 * the two fields they never read. */
		struct rcu_head rcu;
	};
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

/* ---- lock-free readers (RCU) ---- */

/*
 * Words a lock-free reader loads: the head, node slots and the flags.
 * Writers (under the lock) store them with release, so a node or entry a
 * reader finds is complete; readers load them with acquire. A node's
 * shift never changes while it is reachable.
 */
static inline void *xa_slot_get(void *const *slot)
{
	return __atomic_load_n((void **)slot, __ATOMIC_ACQUIRE);
}

static inline void xa_slot_set(void **slot, void *e)
{
	__atomic_store_n(slot, e, __ATOMIC_RELEASE);
}

static inline void xa_flags_or(struct rg_xarray *xa, unsigned int f)
{
	__atomic_or_fetch(&xa->flags, f, __ATOMIC_RELEASE);
}

static inline void xa_flags_clear(struct rg_xarray *xa, unsigned int f)
{
	__atomic_and_fetch(&xa->flags, ~f, __ATOMIC_RELEASE);
}

/* Is this thread registered with liburcu (memb), so it may read lock-free? */
static inline bool xa_rcu_thread(void)
{
	return URCU_TLS(urcu_memb_reader).registered;
}

/*
 * ThreadSanitizer cannot see liburcu's grace periods (the library is not
 * instrumented): every lock-free read ends with a release on xa_gp_sync
 * and every deferred free starts with an acquire on it and on the node,
 * which the writer released before call_rcu().
 */
#ifdef XA_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
static char xa_gp_sync;
#define xa_tsan_acquire(p) __tsan_acquire(p)
#define xa_tsan_release(p) __tsan_release(p)
#else
#define xa_tsan_acquire(p) ((void)(p))
#define xa_tsan_release(p) ((void)(p))
#endif

static inline void xa_rcu_read_done(void)
{
#ifdef XA_TSAN
	xa_tsan_release(&xa_gp_sync);
#endif
}

/*
 * The first lock-free read of an array puts it in RCU mode, under the
 * lock: every writer after that frees nodes through RCU, and every one
 * before it has finished (its frees happened before our unlock).
 */
static RGI_NOINLINE void xa_rcu_enable(struct rg_xarray *xa)
{
	bool taken = xa_read_lock(xa);

	xa_flags_or(xa, RG_XA_FLAGS_RCU);
	xa_read_unlock(xa, taken);
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

/*
 * With ASan, a node is poisoned from its free until the cache hands it out
 * again, so a reader that follows a freed node is caught.
 */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define XA_POISON(n) ASAN_POISON_MEMORY_REGION((n), sizeof(struct rg_xa_node))
#define XA_UNPOISON(n) \
	ASAN_UNPOISON_MEMORY_REGION((n), sizeof(struct rg_xa_node))
#else
#define XA_POISON(n) ((void)(n))
#define XA_UNPOISON(n) ((void)(n))
#endif

/* Give a node back to the cache. */
static void xa_node_put(struct rg_xa_node *n)
{
	XA_POISON(n);
	rg_slab_free(__atomic_load_n(&xa_cache, __ATOMIC_ACQUIRE), n);
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

/*
 * Sibling entries: the slots of a multi-index entry after its first one
 * (the canonical slot) hold an internal entry naming that slot.
 */
static inline void *xa_mk_sibling(unsigned int off)
{
	return rg_xa_mk_internal(off);
}

static inline bool xa_is_sibling(const void *e)
{
	return rg_xa_is_sibling(e);
}

static inline unsigned int xa_sibling_offset(const void *e)
{
	return (unsigned int)rg_xa_to_internal(e);
}

/* An entry rather than a child: any non-NULL slot of a leaf, or a
 * non-node slot of an interior node (a multi-index entry). */
static inline bool xa_slot_is_entry(unsigned int shift, const void *e)
{
	return e && (!shift || !xa_is_node(e));
}

/* Slots the entry in canonical slot @c of @node spans (1 + siblings). */
static inline unsigned int xa_span(const struct rg_xa_node *node,
				   unsigned int c)
{
	const void *sib = xa_mk_sibling(c);
	unsigned int n = 1;

	while (c + n < RG_XA_CHUNK_SIZE && node->slots[c + n] == sib)
		n++;
	return n;
}

/* Bits [off, off + n) of a slot mask. */
static inline uint64_t xa_range_mask(unsigned int off, unsigned int n)
{
	return (n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1)) << off;
}

/* Value entries in slots [off, off + n) of @node, siblings included. */
static unsigned int xa_values_in(const struct rg_xa_node *node,
				 unsigned int off, unsigned int n)
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

/* Recount @node's slots in use and value slots (after a bulk change). */
static void xa_node_recount(struct rg_xa_node *node)
{
	node->count = (unsigned char)__builtin_popcountll(node->used);
	node->nr_values =
		(unsigned char)xa_values_in(node, 0, RG_XA_CHUNK_SIZE);
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

/* @index lies beyond what top node @root covers (its shift is below 64). */
static inline bool xa_beyond(const struct rg_xa_node *root, unsigned long index)
{
	return (index >> root->shift) > XA_SLOT_MASK;
}

/*
 * The array may hold an entry of order > 0 (RG_XA_FLAGS_MULTI): without
 * one, interior slots hold only nodes and no slot holds a sibling, so a
 * walk takes any non-NULL interior slot for a child.
 */
static inline bool xa_may_hold_multi(const struct rg_xarray *xa)
{
	return xa->flags & RG_XA_FLAGS_MULTI;
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

/* Give mark @m of @node the bits @v and fix the ancestors. */
static void xa_mark_assign(struct rg_xa_node *node, unsigned int m, uint64_t v)
{
	uint64_t before = node->marks[m];

	node->marks[m] = v;
	if ((before != 0) != (v != 0) && node->parent)
		xa_mark_update(node->parent, node->offset, m, v != 0);
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

static struct rg_xa_node *xa_node_init(struct rg_xarray *xa,
				       struct rg_xa_node *n, unsigned int shift,
				       struct rg_xa_node *parent,
				       unsigned int offset);

static struct rg_xa_node *
xa_node_take(struct rg_xarray *xa, struct xa_prealloc *pre, unsigned int shift,
	     struct rg_xa_node *parent, unsigned int offset)
{
	struct rg_xa_node *n;

	RGI_ASSERT(pre->used < pre->n);
	n = pre->nodes[pre->used++];
	return xa_node_init(xa, n, shift, parent, offset);
}

static struct rg_xa_node *xa_node_init(struct rg_xarray *xa,
				       struct rg_xa_node *n, unsigned int shift,
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
	xa_tsan_acquire(&xa_gp_sync);
#endif
	xa_node_put(n);
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
		xa_node_put(n);
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

/* Add top nodes from @pre until the top has @shift; returns the top. */
static struct rg_xa_node *xa_grow(struct rg_xarray *xa, struct xa_prealloc *pre,
				  struct rg_xa_node *node, unsigned int shift)
{
	unsigned int m;

	while (node->shift < shift) {
		struct rg_xa_node *top = xa_node_take(
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
static struct rg_xa_node *xa_head_to_leaf(struct rg_xarray *xa,
					  struct xa_prealloc *pre)
{
	struct rg_xa_node *node = xa_node_take(xa, pre, 0, NULL, 0);
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
static void **xa_create_slot(struct rg_xarray *xa, unsigned long index,
			     struct xa_prealloc *pre, struct rg_xa_node **leaf,
			     bool leaf0)
{
	struct rg_xa_node *node = xa_root(xa);

	*leaf = NULL;
	if (!node) {
		if (index == 0 && !leaf0)
			return &xa->head;
		if (xa->head) {
			node = xa_head_to_leaf(xa, pre);
		} else {
			node = xa_node_take(xa, pre, xa_shift_for(index), NULL,
					    0);
		}
		xa_slot_set(&xa->head, xa_mk_node(node));
	}
	node = xa_grow(xa, pre, node, xa_shift_for(index));
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
			xa_slot_set(&node->slots[b], e);
			node->used |= xa_bit(b);
			node->count++;
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
 * xas_walk() below top node @node, which covers the state's index. @multi:
 * the array may hold multi-index entries; a constant in each call, so the
 * walk of an array without them never looks for one.
 */
static RGI_ALWAYS_INLINE void **xas_descend(struct rg_xa_state *xas,
					    struct rg_xa_node *node,
					    struct rg_xa_node **leaf,
					    bool multi, bool lockfree)
{
	unsigned long index = xas->xa_index;

	for (;;) {
		unsigned int s = node->shift, off = xa_offset(index, s);
		/* Under the lock nothing changes: plain loads. */
		void *e = lockfree ? xa_slot_get(&node->slots[off]) :
				     node->slots[off];

		if (!s) {
			/* A leaf slot, or a sibling naming the entry's. */
			if (multi && xa_is_sibling(e))
				off = xa_sibling_offset(e);
		} else if (!e) {
			/* A missing child. */
			xas->xa_node = node;
			xas->xa_offset = (unsigned char)off;
			return NULL;
		} else if (!multi || xa_is_node(e)) {
			node = xa_to_node(e);
			continue;
		} else if (xa_is_sibling(e)) {
			/* An interior multi-index entry, named by a sibling. */
			off = xa_sibling_offset(e);
		}
		xas->xa_node = node;
		xas->xa_offset = (unsigned char)off;
		*leaf = node;
		return &node->slots[off];
	}
}

/*
 * The slot of the state's index (it may hold NULL), or NULL if none exists
 * yet; walks from the top unless the state is on its leaf or the head.
 * Leaves the state where the walk stopped. @leaf: the node holding the
 * slot (a leaf, or an interior node for a multi-index entry), or NULL for
 * the head. An index inside a multi-index entry gives the entry's
 * canonical slot, and the state's offset names that slot.
 */
static RGI_ALWAYS_INLINE void **
xas_walk_any(struct rg_xa_state *xas, struct rg_xa_node **leaf, bool lockfree)
{
	struct rg_xarray *xa = xas->xa;
	unsigned long index = xas->xa_index;
	struct rg_xa_node *node;
	void *head;

	*leaf = NULL;
	if (xas_on_leaf(xas)) {
		RGI_DEBUG_ASSERT(
			xas->xa_offset == xa_offset(index, 0) ||
			xas->xa_offset + xa_span(xas->xa_node, xas->xa_offset) >
				xa_offset(index, 0));
		*leaf = xas->xa_node;
		return &xas->xa_node->slots[xas->xa_offset];
	}
	head = lockfree ? xa_slot_get(&xa->head) : xa->head;
	if (!xa_is_node(head)) {
		if (index) {
			xas->xa_node = XAS_BOUNDS;
			return NULL;
		}
		xas->xa_node = NULL;
		xas->xa_offset = 0;
		return &xa->head;
	}
	node = xa_to_node(head);
	if (xa_beyond(node, index)) {
		xas->xa_node = XAS_BOUNDS;
		return NULL;
	}
	/* A lock-free walk checks every slot: see xa_rcu_walk(). */
	if (lockfree)
		return xas_descend(xas, node, leaf, true, true);
	if (likely(!xa_may_hold_multi(xa)))
		return xas_descend(xas, node, leaf, false, false);
	return xas_descend(xas, node, leaf, true, false);
}

static RGI_ALWAYS_INLINE void **xas_walk(struct rg_xa_state *xas,
					 struct rg_xa_node **leaf)
{
	return xas_walk_any(xas, leaf, false);
}

/*
 * The entry at @index for a lock-free reader (under the RCU read lock):
 * what the slot holds, RG_XA_RETRY_ENTRY if the walk met a node a writer
 * took out (start again), or NULL. Checks every slot for what it holds
 * whatever the flags say: a writer may be storing a multi-index entry.
 */
static RGI_ALWAYS_INLINE void *xa_rcu_walk(const struct rg_xarray *xa,
					   unsigned long index)
{
	void *e = xa_slot_get(&xa->head);
	const struct rg_xa_node *node;

	if (!xa_is_node(e))
		return index ? NULL : e;
	node = xa_to_node(e);
	if ((index >> node->shift) > XA_SLOT_MASK)
		return NULL;
	for (;;) {
		unsigned int s = node->shift;

		e = xa_slot_get(&node->slots[xa_offset(index, s)]);
		if (s && xa_is_node(e)) {
			node = xa_to_node(e);
			continue;
		}
		if (unlikely(xa_is_sibling(e))) {
			e = xa_slot_get(&node->slots[xa_sibling_offset(e)]);
			/* Split into a child meanwhile: walk again. */
			if (s && xa_is_node(e))
				return RG_XA_RETRY_ENTRY;
		}
		return e;
	}
}

/* ---- store ---- */

static void xa_shrink(struct rg_xarray *xa, struct rg_xa_state *xas);

/* Store non-NULL @entry at the state's index; raw old entry, or error. */
static RGI_ALWAYS_INLINE void *xas_store_entry(struct rg_xa_state *xas,
					       void *entry)
{
	struct rg_xarray *xa = xas->xa;
	unsigned long index = xas->xa_index;
	struct rg_xa_node *leaf;
	void **slot = xas_walk(xas, &leaf);
	bool leaf0 = false;
	void *prev;

	if (unlikely(xa_is_node(entry)) && slot) {
		/* An interior slot would read it as a node. */
		if (leaf && leaf->shift) {
			rg_xas_set_err(xas, -EINVAL);
			return NULL;
		}
		/* The head neither: give it a leaf. */
		leaf0 = !leaf;
	}
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
	xa_slot_set(slot, entry);
	if (!prev) {
		/* A new entry keeps the empty slot's marks. */
		if (leaf) {
			leaf->used |= xa_bit(xas->xa_offset);
			leaf->count++;
			leaf->nr_values += rg_xa_is_value(entry);
		} else {
			xa->head_marks = xa_track_free(xa) ? XA_FREE_BIT : 0;
		}
	} else if (leaf) {
		if (rg_xa_is_value(prev) != rg_xa_is_value(entry)) {
			/* A multi-index entry counts once per slot it spans. */
			if (xa_may_hold_multi(xa))
				xa_node_recount(leaf);
			else if (rg_xa_is_value(entry))
				leaf->nr_values++;
			else
				leaf->nr_values--;
		}
		/* An entry that looks like a node kept index 0 in a top leaf;
		 * one that does not goes back to the head. */
		if (unlikely(xa_is_node(prev)) && leaf->used == 1 &&
		    !leaf->parent && !xa_is_node(entry)) {
			xa_shrink(xa, xas);
			xas->xa_node = NULL;
			xas->xa_offset = 0;
		}
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

static void xa_free_subtree(struct rg_xarray *xa, struct rg_xa_node *node);

/*
 * Empty slots [off, off + n) of @node: subtrees below them are freed, their
 * marks cleared (an allocating array's free mark set). The node may be left
 * empty: xa_prune() then removes it.
 */
static void xa_clear_slots(struct rg_xarray *xa, struct rg_xa_node *node,
			   unsigned int off, unsigned int n)
{
	uint64_t r = xa_range_mask(off, n);
	unsigned int b, m;

	node->nr_values -= (unsigned char)xa_values_in(node, off, n);
	for (b = off; b < off + n; b++) {
		void *e = node->slots[b];

		/* Unlinked before it is freed (RCU mode: a grace period
		 * from here on covers every reader that can reach it). */
		xa_slot_set(&node->slots[b], NULL);
		if (node->shift && xa_is_node(e))
			xa_free_subtree(xa, xa_to_node(e));
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
			xa_mark_assign(node, m, v);
	}
}

/*
 * Free @node and its ancestors while they are empty (their parents' marks
 * already agree); the state goes to the deepest node that survives (or out
 * of bounds), then the tree shrinks.
 */
static void xa_prune(struct rg_xa_state *xas, struct rg_xa_node *node)
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
	xa_shrink(xa, xas);
}

/*
 * Erase the entry at the state's index (all of a multi-index entry);
 * returns it raw. The state stays on the deepest node that survives (or
 * the head), or goes out of bounds.
 */
static RGI_ALWAYS_INLINE void *xas_erase(struct rg_xa_state *xas)
{
	struct rg_xarray *xa = xas->xa;
	struct rg_xa_node *leaf;
	void **slot = xas_walk(xas, &leaf);
	unsigned int b;
	void *old;

	if (!slot || !*slot)
		return NULL;
	old = *slot;
	if (!leaf) {
		xa_slot_set(&xa->head, NULL);
		xa->head_marks = 0;
		return old;
	}
	b = xas->xa_offset;
	if (likely(!leaf->shift && (b == XA_SLOT_MASK ||
				    leaf->slots[b + 1] != xa_mk_sibling(b)))) {
		/* One slot of a leaf: the common case, done inline. */
		unsigned int m;

		xa_slot_set(slot, NULL);
		leaf->used &= ~xa_bit(b);
		leaf->count--;
		leaf->nr_values -= rg_xa_is_value(old);
		for (m = 0; m < XA_NR_MARKS; m++) {
			if (m == RG_XA_FREE_MARK && xa_track_free(xa))
				xa_mark_update(leaf, b, m, true);
			else if (leaf->marks[m] & xa_bit(b))
				xa_mark_update(leaf, b, m, false);
		}
		/* The leaf survives and the state stays on it; only a top
		 * node can have come to use slot 0 alone (shrink). */
		if (likely(leaf->used)) {
			if (unlikely(leaf->used == 1 && !leaf->parent))
				xa_shrink(xa, xas);
			return old;
		}
	} else {
		xa_clear_slots(xa, leaf, b, xa_span(leaf, b));
	}
	xa_prune(xas, leaf);
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
			if (xa_is_node(node->slots[b]))
				xa_free_subtree(xa, xa_to_node(node->slots[b]));
		}
	}
	xa_node_free(xa, node);
}

static void xa_destroy_nolock(struct rg_xarray *xa)
{
	struct rg_xa_node *root = xa_root(xa);

	xa_slot_set(&xa->head, NULL);
	xa->head_marks = 0;
	if (root)
		xa_free_subtree(xa, root);
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
	if (node->nr_values != xa_values_in(node, 0, RG_XA_CHUNK_SIZE))
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

/* ---- multi-index entries ---- */

/*
 * An entry of order k covers the 2^k indices [base, base + 2^k), base a
 * multiple of 2^k. It lives in the node of shift s = k - k % 6 on base's
 * path, in n = 2^(k % 6) slots: the first (canonical) holds the entry, the
 * others sibling entries naming it; marks sit on the canonical slot only.
 * A state of order k has xa_shift s and xa_sibs n - 1.
 *
 * Two such ranges are nested or disjoint, so a store of order k at base
 * either lands inside an entry that covers its whole range (a larger or
 * equal entry on the path: the store replaces that entry, which keeps its
 * range, as the kernel documents: "storing to any index stores to all of
 * them"), or covers every entry in its range, which it replaces (their
 * subtrees are freed) with the union of their marks.
 */

/* Order of the entry in canonical slot @c of @node. */
static inline unsigned int xa_entry_order(const struct rg_xa_node *node,
					  unsigned int c)
{
	return node->shift + (unsigned int)__builtin_ctz(xa_span(node, c));
}

/* Index of slot 0 of @node. */
static unsigned long xa_node_base(const struct rg_xa_node *node)
{
	unsigned long base = 0;

	for (; node->parent; node = node->parent)
		base |= (unsigned long)node->offset << node->parent->shift;
	return base;
}

/* Nodes on the path from a missing child of shift @from down to @to. */
static inline unsigned int xa_levels(unsigned int from, unsigned int to)
{
	return (from - to) / RG_XA_CHUNK_SHIFT + 1;
}

/*
 * The node where a store of an entry of shift @shift at @base (last index
 * @last) writes: the node of that shift on base's path, or a node above it
 * whose slot on the path holds an entry covering the range. With @pre
 * NULL, count the nodes missing on the way (*@out is set only when none
 * is); otherwise build them from @pre (exactly that many).
 */
static unsigned int xa_path(struct rg_xarray *xa, unsigned long base,
			    unsigned long last, unsigned int shift,
			    struct xa_prealloc *pre, struct rg_xa_node **out)
{
	struct rg_xa_node *node = xa_root(xa);
	unsigned int top = RGI_MAX(xa_shift_for(last), shift), cnt = 0, u;

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
			node = xa_head_to_leaf(xa, pre);
			xa_slot_set(&xa->head, xa_mk_node(node));
		} else if (!node) {
			node = xa_node_take(xa, pre, top, NULL, 0);
			xa_slot_set(&xa->head, xa_mk_node(node));
		}
		node = xa_grow(xa, pre, node, top);
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
			child = xa_node_take(xa, pre, s - RG_XA_CHUNK_SHIFT,
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
 * On @node (from xa_path()): does the store of @n slots at @base land in
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
	if (xa_path(xa, base, last, shift, NULL, &node)) {
		/* No node of the range's shift: the range holds the whole
		 * tree (it starts at 0 and reaches past the top) or, when a
		 * child on the path is missing, nothing. */
		if (base == 0 &&
		    root->shift < RGI_MAX(xa_shift_for(last), shift)) {
			old = xa_first_entry(root, 0, RG_XA_CHUNK_SIZE);
			xa_destroy_nolock(xa);
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
	xa_clear_slots(xa, node, c, n);
	xa_prune(xas, node);
	return old;
}

/*
 * rg_xas_store() of a multi-index state (or of any order when the range
 * reaches beyond order 0): the raw old entry, or NULL with an error.
 */
static void *xas_store_multi(struct rg_xa_state *xas, void *entry)
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
	need = xa_path(xa, base, last, shift, NULL, &node);
	if (need) {
		if (xa_prealloc(&pre, need, xas)) {
			xas->xa_need = need;
			rg_xas_set_err(xas, -ENOMEM);
			return NULL;
		}
		xa_path(xa, base, last, shift, &pre, &node);
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
			xa_node_recount(node);
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
			xa_free_subtree(xa, xa_to_node(e));
	}
	node->used |= r;
	xa_node_recount(node);
	for (m = 0; m < XA_NR_MARKS; m++) {
		uint64_t v = (node->marks[m] & ~r) | (uni[m] ? xa_bit(c) : 0);

		if (v != node->marks[m])
			xa_mark_assign(node, m, v);
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
static unsigned long xa_cover_count(const struct rg_xarray *xa,
				    unsigned long lo, unsigned long hi)
{
	struct rg_xa_node *root = xa_root(xa);
	unsigned int top = xa_shift_for(hi), u;
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
static unsigned long xas_have(const struct rg_xa_state *xas)
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
static bool xas_reserve_nodes(struct rg_xa_state *xas, unsigned long need)
{
	struct rg_slab_cache *c = xa_node_cache();
	unsigned long have = xas_have(xas);

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
static unsigned long xa_split_count(unsigned int order, unsigned int shift)
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
static struct rg_xa_node *
xa_split_build(struct rg_xa_state *xas, unsigned int shift,
	       struct rg_xa_node *parent, unsigned int offset, void *entry,
	       unsigned int mk, unsigned int to, unsigned int n)
{
	struct rg_xa_node *node = xas->xa_alloc;
	uint64_t canon = 0;
	unsigned int b, m;

	xas->xa_alloc = node->parent;
	xa_node_init(xas->xa, node, shift, parent, offset);
	for (b = 0; b < RG_XA_CHUNK_SIZE; b++) {
		if (shift == to) {
			unsigned int c = b - b % n;

			node->slots[b] = b == c ? entry : xa_mk_sibling(c);
			if (b == c)
				canon |= xa_bit(b);
		} else {
			node->slots[b] = xa_mk_node(
				xa_split_build(xas, shift - RG_XA_CHUNK_SHIFT,
					       node, b, entry, mk, to, n));
			canon |= xa_bit(b);
		}
	}
	node->used = ~(uint64_t)0;
	xa_node_recount(node);
	for (m = 0; m < XA_NR_MARKS; m++)
		node->marks[m] = (mk & (1u << m)) ? canon : 0;
	return node;
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
	if (xas->xa_shift | xas->xa_sibs)
		return xas_store_multi(xas, entry);
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
		xa_node_put(n);
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
	    xa_seek(xa, start, max, filter | XA_FILTER_RAW, &c)) {
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

			end = xa_node_base(node) + ((unsigned long)off << s) +
			      (((unsigned long)xa_span(node, off) << s) - 1);
		}
		if (end >= last)
			goto done;
		start = end + 1;
	}
	if (!xa_seek(xa, start, last, RG_XA_PRESENT | XA_FILTER_RAW, &c))
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
	if (!xas_reserve_nodes(xas, xa_cover_count(xas->xa, base, last)))
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
	if (!xas_reserve_nodes(xas, xa_split_count(order, xas->xa_shift)))
		xas_free_nodes(xas);
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
	need = xa_split_count(order, shift);
	if (xas_have(xas) < need) {
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
				xa_mk_node(xa_split_build(
					xas, node->shift - RG_XA_CHUNK_SHIFT,
					node, b, entry, mk, shift, n)));
		}
	}
	xa_node_recount(node);
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
	xa_shrink(xas->xa, xas);
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
	/* A fresh state of order 0 and an entry the callers checked: the
	 * slot's store or erase without rg_xas_store()'s checks. */
	void *prev = entry ? xas_store_entry(&xas, entry) : xas_erase(&xas);

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
		xa_flags_clear(xa, RG_XA_FLAGS_ALLOC_WRAPPED);
		ret = 1;
	}
	if (ret == -EBUSY && lo > min) {
		/* [lo, max] is full: start again at min. */
		ret = rg_xa_alloc_locked(xa, &got, entry, min, max);
		if (!ret) {
			xa_flags_clear(xa, RG_XA_FLAGS_ALLOC_WRAPPED);
			ret = 1;
		}
	}
	if (ret < 0)
		return ret;
	*id = (uint32_t)got;
	*next = (uint32_t)got + 1;
	if (!*next)
		xa_flags_or(xa, RG_XA_FLAGS_ALLOC_WRAPPED);
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
	if (!xa || (flags & ~(RG_XA_FLAGS_ALLOC1 | RG_XA_FLAGS_RCU)) ||
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
	if (xa_rcu_thread()) {
		if (unlikely(!(__atomic_load_n(&xa->flags, __ATOMIC_ACQUIRE) &
			       RG_XA_FLAGS_RCU)))
			xa_rcu_enable(xa);
		urcu_memb_read_lock();
		do
			e = xa_rcu_walk(xa, index);
		while (unlikely(e == RG_XA_RETRY_ENTRY));
		xa_rcu_read_done();
		urcu_memb_read_unlock();
		return xa_zero_to_null(e);
	}
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

/* Store with order under the lock: the normal API's marks and checks. */
static int xa_store_order_locked(struct rg_xarray *xa, unsigned long index,
				 unsigned int order, void *entry, void **old)
{
	RG_XA_STATE(xas, xa, 0);
	void *prev;

	rg_xas_set_order(&xas, index, order);
	if (rg_xas_error(&xas) || xas.xa_index != index)
		return -EINVAL;
	if (!entry && xa_track_free(xa))
		entry = XA_ZERO;
	prev = xas_store(&xas, entry);
	if (rg_xas_error(&xas))
		return rg_xas_error(&xas);
	if (entry && xa_track_free(xa))
		xas_mark(&xas, RG_XA_FREE_MARK, false);
	if (old)
		*old = xa_zero_to_null(prev);
	return 0;
}

int rg_xa_store_order(struct rg_xarray *xa, unsigned long index,
		      unsigned int order, void *entry, void **old)
{
	int err;

	if (unlikely(!xa) || xa_is_advanced(entry))
		return -EINVAL;
	xa_mutex_lock(xa);
	err = xa_store_order_locked(xa, index, order, entry, old);
	xa_mutex_unlock(xa);
	return err;
}

/* Largest order of an aligned piece at @i that ends at or before @last. */
static unsigned int xa_range_order(unsigned long i, unsigned long last)
{
	unsigned int k = 0;

	while (k < XA_BITS && !(i & (1UL << k)) &&
	       (k + 1 == XA_BITS ? i == 0 && last == ULONG_MAX :
				   i + ((2UL << k) - 1) <= last &&
					   i + ((2UL << k) - 1) >= i))
		k++;
	return k;
}

int rg_xa_store_range(struct rg_xarray *xa, unsigned long first,
		      unsigned long last, void *entry)
{
	RG_XA_STATE(xas, xa, 0);
	unsigned long i, need = 0;
	int err = 0;

	if (unlikely(!xa) || xa_is_advanced(entry) || first > last ||
	    (xa_is_node(entry) && first != last))
		return -EINVAL;
	xa_mutex_lock(xa);
	/* Count the nodes of every piece on the tree as it is (an upper
	 * bound), take them all, then store: all or nothing. */
	for (i = first; entry;) {
		unsigned int k = xa_range_order(i, last);
		unsigned long end =
			k >= XA_BITS ? ULONG_MAX : i + ((1UL << k) - 1);
		struct rg_xa_node *unused;

		need += xa_path(xa, i, end, k - k % RG_XA_CHUNK_SHIFT, NULL,
				&unused);
		if (end >= last)
			break;
		i = end + 1;
	}
	if (!xas_reserve_nodes(&xas, need)) {
		xas_free_nodes(&xas);
		err = -ENOMEM;
		goto out;
	}
	for (i = first;;) {
		unsigned int k = xa_range_order(i, last);
		unsigned long end =
			k >= XA_BITS ? ULONG_MAX : i + ((1UL << k) - 1);

		rg_xas_set_order(&xas, i, k);
		xas_store(&xas, entry);
		err = rg_xas_error(&xas);
		if (err) {
			/* Only a one-index range of an entry with the low
			 * bits 10 inside an entry of order 6 or more, which
			 * would take it: refused, nothing stored. */
			RGI_ASSERT(first == last && xa_is_node(entry));
			break;
		}
		if (entry && xa_track_free(xa))
			xas_mark(&xas, RG_XA_FREE_MARK, false);
		if (end >= last)
			break;
		i = end + 1;
	}
	xas_free_nodes(&xas);
out:
	xa_mutex_unlock(xa);
	return err;
}

int rg_xa_get_order(struct rg_xarray *xa, unsigned long index)
{
	RG_XA_STATE(xas, xa, index);
	struct rg_xa_node *leaf;
	bool taken;
	int order = 0;

	if (unlikely(!xa))
		return -EINVAL;
	taken = xa_read_lock(xa);
	if (xas_walk(&xas, &leaf) && leaf &&
	    xa_slot_is_entry(leaf->shift, leaf->slots[xas.xa_offset]))
		order = (int)xa_entry_order(leaf, xas.xa_offset);
	xa_read_unlock(xa, taken);
	return order;
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
	struct xa_cursor c;
	void *e = NULL;
	bool taken;

	if (unlikely(!xa || !index) || *index == ULONG_MAX ||
	    !xa_filter_ok(xa, filter))
		return NULL;
	i = *index + 1;
	taken = xa_read_lock(xa);
	while (xa_seek(xa, i, max, filter, &c)) {
		struct rg_xa_node *n = c.node;
		unsigned int off = n ? (unsigned int)(c.slot - n->slots) : 0;
		unsigned long first, size;

		first = n ? xa_slot_base(c.index, n->shift, off) : 0;
		if (first >= i) {
			e = *c.slot;
			*index = c.index;
			break;
		}
		/* A multi-index entry that began at or before *index: the
		 * caller has seen it; go on after its last index. */
		size = (unsigned long)xa_span(n, off) << n->shift;
		if (first + (size - 1) >= max)
			break;
		i = first + size;
	}
	xa_read_unlock(xa, taken);
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
	RG_XA_STATE(xas, xa, index);
	void **slot;
	bool r = false;

	if (unlikely(!xa) || mark == RG_XA_PRESENT || !xa_filter_ok(xa, mark))
		return false;
	taken = xa_read_lock(xa);
	slot = xas_walk(&xas, &leaf);
	if (slot && *slot) {
		if (leaf)
			r = leaf->marks[mark] & xa_bit(xas.xa_offset);
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

void rg_xa_rcu_barrier(void)
{
#ifdef XA_TSAN
	/* liburcu's own bookkeeping, ordered by code TSan cannot see. */
	__tsan_ignore_thread_begin();
	urcu_memb_barrier();
	__tsan_ignore_thread_end();
#else
	urcu_memb_barrier();
#endif
}
