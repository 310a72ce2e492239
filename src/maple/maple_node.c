// SPDX-License-Identifier: MIT
/*
 * Maple Tree: the node cache. Every tree takes its 256-byte nodes from one
 * process-wide slab cache, created on first use (double-checked under a
 * mutex, published with a release store) and never destroyed, so that
 * rg_mtree_node_stats() can report it and node memory is counted by the
 * slab layer, not estimated. The node layout is in maple_node.h.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "maple_node.h"

static pthread_mutex_t mt_cache_lock = PTHREAD_MUTEX_INITIALIZER;
struct rg_slab_cache *_Atomic rgi_mt_node_cache;

struct rg_slab_cache *rgi_mt_cache(void)
{
	struct rg_slab_cache *c =
		atomic_load_explicit(&rgi_mt_node_cache, memory_order_acquire);

	if (likely(c))
		return c;
	pthread_mutex_lock(&mt_cache_lock);
	c = atomic_load_explicit(&rgi_mt_node_cache, memory_order_relaxed);
	if (!c) {
		c = rg_slab_create("maple_node", RG_MT_NODE_SIZE,
				   RG_MT_NODE_SIZE, RG_SLAB_HUGEPAGE, NULL);
		if (c)
			atomic_store_explicit(&rgi_mt_node_cache, c,
					      memory_order_release);
	}
	pthread_mutex_unlock(&mt_cache_lock);
	return c;
}

/* Slab statistics of the node cache (all zero before its first use). */
int rgi_mt_node_stats(struct rg_slab_stats *st)
{
	struct rg_slab_cache *c =
		atomic_load_explicit(&rgi_mt_node_cache, memory_order_acquire);

	if (!c) {
		memset(st, 0, sizeof(*st));
		return 0;
	}
	return rg_slab_get_stats(c, st);
}

void rgi_mt_free_subtree(struct rg_maple_tree *mt, void *enode)
{
	struct mt_node *n = mt_to_node(enode);

	if (!mt_is_leaf(enode)) {
		void **sl = mt_slots(n, mt_type_of(enode));
		unsigned int end = mt_end(n);

		for (unsigned int i = 0; i <= end; i++)
			rgi_mt_free_subtree(mt, sl[i]);
	}
	mt_node_free(mt, n);
}
