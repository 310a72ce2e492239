// SPDX-License-Identifier: MIT
/*
 * Maple Tree: RCU mode (RG_MT_FLAGS_USE_RCU), lock-free readers beside
 * writers that hold the tree lock. Theory of operation.
 *
 * What writers may change in a live node
 *   One word at a time: a slot (an exact-fit entry, or a child swapped for
 *   a new node with the same range, with a release store), a gap of an
 *   allocation node (readers never read gaps) and the parent word
 *   (adoption, the dead mark). Pivots and end of a live node never change:
 *   every other store builds new nodes, complete before one release store
 *   links the top one (a parent's slot or the root).
 *
 * The order a store ends in (maple_write.c)
 *   (1) link; (2) mark the replaced boundary nodes dead (parent word = own
 *   address); (3) mark the subtrees cut off whole dead, node by node;
 *   (4) point the children that moved under new parents at them (until
 *   then they keep their old, dead parent, so a reader climbing never
 *   reaches a node that is not linked yet); (5) hand the retired nodes and
 *   subtrees to call_rcu() in one batch. The batch is queued after (4), so
 *   a reader that saw any pointer to a retired node, stale parent words
 *   included, is in a read-side critical section the grace period waits
 *   for.
 *
 * Deferred frees (this file)
 *   A batch is allocated with the preallocation, its size bounded by the
 *   classification (2 boundary nodes per level, the neighbours taken in,
 *   the subtrees strictly between a spanning store's paths), so a
 *   preallocated store still cannot fail. Its callback returns the nodes
 *   with slab bulk frees and touches only nodes and the batch, never the
 *   tree header. rg_mtree_destroy() unlinks the root and retires the whole
 *   tree in one batch (or waits for a grace period if none can be had).
 *
 * Readers
 *   rg_mtree_load(), rg_mtree_find() and rg_mtree_find_after() take
 *   liburcu's (memb) read lock themselves after reading the flag, and read
 *   it again inside the critical section: rg_mtree_clear_rcu() waits for a
 *   grace period after clearing it, so no lock-free reader overlaps an
 *   in-place write. rg_mas_* readers run under the caller's read lock.
 *
 * Leaving RCU mode
 *   rg_mtree_clear_rcu() clears the flag and adds one to a drain count in
 *   the flags word, drops the lock, waits for a grace period, and takes one
 *   off. While the count is not 0 writers still write as in RCU mode, and
 *   the advanced API's readers take the RCU walk: a caller whose read-side
 *   section began in RCU mode may be in the middle of an iteration, on a
 *   node a writer replaced, and the grace period waits for that section.
 *   The normal API's readers ask for the flag alone inside their own
 *   section (one that begins later is not waited for) and otherwise take
 *   the lock, which nobody holds across a grace period, so a normal-API
 *   read inside a caller's read-side section cannot deadlock against
 *   rg_mtree_clear_rcu().
 *   Readers load the root, slots and parent words with acquire and read
 *   pivots plainly. A walk down needs no check on the way: a node, live or
 *   retired (frozen from its death), describes one moment of the tree, and
 *   a child is only swapped for a node with the same range; a dead leaf at
 *   the end sends the walk back to the root. Iteration is described with
 *   its stepping code.
 *
 * Sanitizers
 *   With ASan, freed nodes are poisoned until reused, so a read of a node
 *   after its free is caught. TSan cannot see liburcu's grace periods, so
 *   the ordering they give is annotated by hand (maple_rcu.h).
 */
#include <stdatomic.h>

#include "maple_rcu.h"

char rgi_mt_gp_sync;

void rgi_mt_rcu_read_lock(void)
{
	urcu_memb_read_lock();
}

void rgi_mt_rcu_read_unlock(void)
{
	urcu_memb_read_unlock();
}

void rgi_mt_synchronize(void)
{
	urcu_memb_synchronize_rcu();
	mt_tsan_acquire(&rgi_mt_gp_sync);
}

void *rgi_mt_batch_alloc(unsigned int cap)
{
	struct mt_rcu_batch *b =
		rgi_malloc(sizeof(*b) + (size_t)cap * sizeof(b->item[0]));

	if (b) {
		b->n = 0;
		b->cap = cap;
	}
	return b;
}

void rgi_mt_batch_free(void *batch)
{
	rgi_free(batch);
}

struct mt_bulk {
	struct rg_slab_cache *cache;
	unsigned int n;
	void *p[64];
};

static void bulk_add(struct mt_bulk *bk, struct mt_node *n)
{
	MT_POISON(n);
	bk->p[bk->n++] = n;
	if (bk->n == RGI_ARRAY_SIZE(bk->p)) {
		rg_slab_free_bulk(bk->cache, bk->n, bk->p);
		bk->n = 0;
	}
}

/* Free a dead subtree (its nodes keep their slots and end). */
static void bulk_add_subtree(struct mt_bulk *bk, void *enode)
{
	struct mt_node *n = mt_to_node(enode);

	if (!mt_is_leaf(enode)) {
		void **sl = mt_slots(n, mt_type_of(enode));
		unsigned int end = mt_end(n);

		for (unsigned int i = 0; i <= end; i++)
			bulk_add_subtree(bk, sl[i]);
	}
	bulk_add(bk, n);
}

static void mt_batch_release(struct mt_rcu_batch *b)
{
	struct mt_bulk bk;

	bk.cache =
		atomic_load_explicit(&rgi_mt_node_cache, memory_order_acquire);
	bk.n = 0;
	for (unsigned int i = 0; i < b->n; i++) {
		uintptr_t it = b->item[i];

		if (it & MT_ITEM_SUBTREE)
			bulk_add_subtree(&bk, (void *)(it & ~MT_ITEM_SUBTREE));
		else
			bulk_add(&bk, (struct mt_node *)it);
	}
	if (bk.n)
		rg_slab_free_bulk(bk.cache, bk.n, bk.p);
	rgi_free(b);
}

static void mt_batch_cb(struct rcu_head *head)
{
	struct mt_rcu_batch *b = container_of(head, struct mt_rcu_batch, head);

	mt_tsan_acquire(b);
	mt_tsan_acquire(&rgi_mt_gp_sync);
	mt_batch_release(b);
}

void rgi_mt_batch_defer(struct mt_rcu_batch *b)
{
	if (!b->n) {
		rgi_free(b);
		return;
	}
	mt_tsan_release(b);
	urcu_memb_call_rcu(&b->head, mt_batch_cb);
}

unsigned long rgi_mt_kill_mark(void *enode)
{
	struct mt_node *n = mt_to_node(enode);
	unsigned int end = mt_end(n);
	unsigned long cnt = 1;

	if (!mt_is_leaf(enode)) {
		void **sl = mt_slots(n, mt_type_of(enode));

		for (unsigned int i = 0; i <= end; i++)
			cnt += rgi_mt_kill_mark(sl[i]);
	}
	__atomic_store_n(&n->parent, (uintptr_t)n | end, __ATOMIC_RELEASE);
	return cnt;
}

/*
 * rg_mtree_destroy() in RCU mode: unlink everything, free it after a grace
 * period. If no batch can be had, return the root: the caller frees it with
 * rgi_mt_free_dead() once it has dropped the lock.
 */
void *rgi_mt_destroy_rcu(struct rg_maple_tree *mt)
{
	void *root = mt->root;
	struct mt_rcu_batch *b = rgi_mt_batch_alloc(1);

	__atomic_store_n(&mt->root, NULL, __ATOMIC_RELEASE);
	mt_set_height(mt, 0);
	mt_nodes_add(mt, -(long)rgi_mt_kill_mark(root));
	if (!b)
		return root;
	b->item[b->n++] = (uintptr_t)root | MT_ITEM_SUBTREE;
	rgi_mt_batch_defer(b);
	return NULL;
}

void rgi_mt_free_dead(void *root)
{
	struct mt_bulk bk;

	rgi_mt_synchronize();
	bk.cache =
		atomic_load_explicit(&rgi_mt_node_cache, memory_order_acquire);
	bk.n = 0;
	bulk_add_subtree(&bk, root);
	if (bk.n)
		rg_slab_free_bulk(bk.cache, bk.n, bk.p);
}

void rgi_mt_rcu_barrier(void)
{
#ifdef MT_TSAN
	/*
	 * liburcu's own bookkeeping (allocated here, freed by the call_rcu
	 * thread, ordered by code TSan cannot see) would read as a race.
	 */
	__tsan_ignore_thread_begin();
	urcu_memb_barrier();
	__tsan_ignore_thread_end();
#else
	urcu_memb_barrier();
#endif
}
