/* SPDX-License-Identifier: MIT */
/*
 * Private layout of Maple Tree nodes and the helpers shared by the maple
 * source files (maple_tree.c: nodes, walks and the write path;
 * maple_api.c: normal and advanced API, searches, iteration;
 * maple_check.c: validate and dump). See maple_tree.c for the theory of
 * operation.
 */
#ifndef RG_MAPLE_INTERNAL_H
#define RG_MAPLE_INTERNAL_H

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "region/maple_tree.h"
#include "rg_internal.h"
#include "maple_lock.h"
#include "maple_node.h"

/* ---- RCU mode: lock-free reads ---- */

/*
 * Words a writer may change in a live node of an RCU-mode tree while
 * readers run: a slot (one entry, or a child replaced by a node with the
 * same range) and the parent word (adoption, the dead mark). Readers load
 * them with acquire; pivots and end are immutable while a node is live in
 * RCU mode (a change to either builds a new node), so they are read plainly.
 */
static inline void *mt_rcu_slot(void *const *slot)
{
	return __atomic_load_n((void **)slot, __ATOMIC_ACQUIRE);
}

static inline uintptr_t mt_rcu_pword(const struct mt_node *n)
{
	return __atomic_load_n(&n->parent, __ATOMIC_ACQUIRE);
}

/* Is @w, the parent word read from @n, the dead mark? */
static inline bool mt_pword_dead(uintptr_t w, const struct mt_node *n)
{
	return (struct mt_node *)(w & MT_PARENT_MASK) == n;
}

/* Do lock-free readers apply (the tree is in RCU mode)? */
static inline bool mt_rcu_readers(const struct rg_maple_tree *mt)
{
	return (__atomic_load_n(&mt->flags, __ATOMIC_ACQUIRE) &
		RG_MT_FLAGS_USE_RCU) != 0;
}

/*
 * ThreadSanitizer cannot see liburcu's grace periods (the library is not
 * instrumented), so the ordering they give is announced by hand: every
 * lock-free read ends with a release on rgi_mt_gp_sync, and whatever a
 * grace period protects (a deferred free, in-place writes after
 * rg_mtree_clear_rcu()) starts with an acquire on it. A batch handed to
 * call_rcu() is released by the writer and acquired by the callback.
 */
#if defined(__SANITIZE_THREAD__)
#define MT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MT_TSAN 1
#endif
#endif

RGI_HIDDEN extern char rgi_mt_gp_sync; /* an address to annotate on */

#ifdef MT_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
static inline void mt_tsan_acquire(void *p)
{
	__tsan_acquire(p);
}

static inline void mt_tsan_release(void *p)
{
	__tsan_release(p);
}
#else
static inline void mt_tsan_acquire(void *p)
{
	(void)p;
}

static inline void mt_tsan_release(void *p)
{
	(void)p;
}
#endif

/* End of a lock-free read call (see above). */
static inline void mt_rcu_read_done(void)
{
#ifdef MT_TSAN
	mt_tsan_release(&rgi_mt_gp_sync);
#endif
}

RGI_HIDDEN void rgi_mt_rcu_read_lock(void);
RGI_HIDDEN void rgi_mt_rcu_read_unlock(void);
RGI_HIDDEN void rgi_mt_synchronize(void);

/* ---- shared between the maple files ---- */

RGI_HIDDEN unsigned long rgi_mt_leaf_gap(struct mt_node *n, unsigned long min,
					 unsigned long max);

RGI_HIDDEN void rgi_mt_walk(struct rg_maple_tree *mt, unsigned long index,
			    struct mt_pos *pos);
/*
 * rgi_mt_walk_rcu() - rgi_mt_walk() for lock-free readers (RCU read lock
 * held): acquire loads of slots and the root, and a walk that ends in a
 * dead leaf starts again from the root.
 */
RGI_HIDDEN void rgi_mt_walk_rcu(struct rg_maple_tree *mt, unsigned long index,
				struct mt_pos *pos);

/*
 * rgi_mt_write() - the one write path: classify, preallocate (unless
 * @sheafp already holds a preallocation), store, account.
 * @mt: the tree (lock held).
 * @first, @last: the range.
 * @entry: the entry (NULL erases).
 * @sheafp: a caller's preallocated sheaf or NULL; consumed.
 * @req: nodes that preallocation requested (when @sheafp is given).
 * @batchp: with @sheafp: the preallocated deferred-free batch (RCU mode),
 *          consumed; may point to NULL.
 * @old: if not NULL, set to the first entry overwritten.
 * Return: 0 or -ENOMEM (tree unchanged).
 */
RGI_HIDDEN int rgi_mt_write(struct rg_maple_tree *mt, unsigned long first,
			    unsigned long last, void *entry,
			    struct rg_slab_sheaf **sheafp, unsigned int req,
			    void **batchp, void **old);

/*
 * rgi_mt_write_path() - store a non-NULL entry over [first, last], which
 * lies inside slot path->off[h] of the leaf at the end of @path (a path
 * just walked, e.g. by a gap search), without walking again.
 * Return: 0 or -ENOMEM (tree unchanged).
 */
RGI_HIDDEN int rgi_mt_write_path(struct rg_maple_tree *mt,
				 const struct mt_path *path, unsigned int h,
				 unsigned long first, unsigned long last,
				 void *entry);

/*
 * rgi_mt_erase() - remove the range holding @index (lock held).
 * @old: set to its entry (NULL if @index was empty or on failure).
 * @first, @last: set to the range that held @index (empty or not).
 * Return: 0 or -ENOMEM (tree unchanged).
 */
RGI_HIDDEN int rgi_mt_erase(struct rg_maple_tree *mt, unsigned long index,
			    void **old, unsigned long *first,
			    unsigned long *last);

/*
 * rgi_mt_prealloc_count() - classify a store and return the worst-case
 * nodes it needs; *@bcap: the deferred-free batch it needs (RCU mode: the
 * most nodes and subtrees it can retire; 0 when it retires none).
 */
RGI_HIDDEN unsigned int rgi_mt_prealloc_count(struct rg_maple_tree *mt,
					      unsigned long first,
					      unsigned long last, void *entry,
					      int *type, unsigned int *bcap);

/* rg_mtree_destroy() of an RCU-mode tree whose root is a node (lock held). */
RGI_HIDDEN void rgi_mt_destroy_rcu(struct rg_maple_tree *mt);

/* A deferred-free batch for @cap items (NULL: -ENOMEM), and its release. */
RGI_HIDDEN void *rgi_mt_batch_alloc(unsigned int cap);
RGI_HIDDEN void rgi_mt_batch_free(void *batch);

RGI_HIDDEN void rgi_mt_account_request(struct rg_maple_tree *mt,
				       unsigned int req);

#endif /* RG_MAPLE_INTERNAL_H */
