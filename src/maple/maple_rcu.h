/* SPDX-License-Identifier: MIT */
/*
 * Maple Tree: RCU mode, the read side (inline accessors for lock-free
 * readers, the TSan annotations) and the deferred frees (maple_rcu.c).
 * The rules writers follow are in maple_rcu.c.
 */
#ifndef RG_MAPLE_RCU_H
#define RG_MAPLE_RCU_H

#include <urcu/urcu-memb.h>

#include "maple_node.h"

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

/*
 * May a lock-free reader start (the tree is in RCU mode)? The normal API's
 * readers ask inside their own read-side critical section.
 */
static inline bool mt_rcu_readers(const struct rg_maple_tree *mt)
{
	return (__atomic_load_n(&mt->flags, __ATOMIC_ACQUIRE) &
		RG_MT_FLAGS_USE_RCU) != 0;
}

/*
 * Does a read of the advanced API take the RCU walk? In RCU mode, and
 * while an rg_mtree_clear_rcu() waits for its grace period: the caller's
 * read-side critical section may have begun in RCU mode (writers still
 * replace nodes until then, so the RCU walk is sound). Under the tree
 * lock the RCU walk is sound in every mode.
 */
static inline bool mt_rcu_walks(const struct rg_maple_tree *mt)
{
	return (__atomic_load_n(&mt->flags, __ATOMIC_ACQUIRE) &
		(RG_MT_FLAGS_USE_RCU | MT_FLAGS_RCU_DRAIN_MASK)) != 0;
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
/* Wait for a grace period: every lock-free read that began has ended. */
RGI_HIDDEN void rgi_mt_synchronize(void);
/* rg_mtree_rcu_barrier(): wait for every deferred free queued so far. */
RGI_HIDDEN void rgi_mt_rcu_barrier(void);

/*
 * Enter a lock-free read: true with the RCU read lock held if the tree is
 * in RCU mode. The flag is read again inside the read-side critical
 * section: rg_mtree_clear_rcu() waits for every section that saw it set.
 */
static inline bool mt_rcu_enter(struct rg_maple_tree *mt)
{
	if (likely(!mt_rcu_readers(mt)))
		return false;
	rgi_mt_rcu_read_lock();
	if (likely(mt_rcu_readers(mt)))
		return true;
	rgi_mt_rcu_read_unlock();
	return false;
}

static inline void mt_rcu_exit(void)
{
	mt_rcu_read_done();
	rgi_mt_rcu_read_unlock();
}

/* ---- deferred frees ---- */

/*
 * What one write (or a destroy) retired: node addresses, and encoded
 * subtree roots | 1 (the whole subtree is dead). Freed by one call_rcu()
 * callback with bulk frees.
 */
struct mt_rcu_batch {
	struct rcu_head head;
	unsigned int n, cap;
	uintptr_t item[];
};

#define MT_ITEM_SUBTREE 1UL

/* A deferred-free batch for @cap items (NULL: -ENOMEM), and its release. */
RGI_HIDDEN void *rgi_mt_batch_alloc(unsigned int cap);
RGI_HIDDEN void rgi_mt_batch_free(void *batch);
/* Free what a batch holds after a grace period (now, if it is empty). */
RGI_HIDDEN void rgi_mt_batch_defer(struct mt_rcu_batch *b);
/* Mark every node of a retired subtree dead; return how many it holds. */
RGI_HIDDEN unsigned long rgi_mt_kill_mark(void *enode);
/*
 * rg_mtree_destroy() of an RCU-mode tree whose root is a node (lock held):
 * NULL once its frees are deferred, else the root to hand to
 * rgi_mt_free_dead() after dropping the lock.
 */
RGI_HIDDEN void *rgi_mt_destroy_rcu(struct rg_maple_tree *mt);
/* Wait for a grace period, then free a dead subtree (lock not held). */
RGI_HIDDEN void rgi_mt_free_dead(void *root);

#endif /* RG_MAPLE_RCU_H */
