/* SPDX-License-Identifier: MIT */
/*
 * The library's lock: one mutual-exclusion lock for state that threads
 * share, with one set of calls.
 *
 * Usage:
 *	struct rgi_lock lock;			// or = RGI_LOCK_INIT
 *	err = rgi_lock_init(&lock);		// 0 or an errno value
 *	rgi_lock(&lock); ... rgi_unlock(&lock);
 *	rgi_lock_fini(&lock);
 *
 * It is a pthread mutex (default attributes: not recursive, no error
 * checking), so ThreadSanitizer and Helgrind understand it. Never held
 * across a call that can block for long, never taken twice by one thread.
 *
 * Who uses what:
 *	slab	each cache's shared pool (barn, partial slabs, counters)
 *	region	each instance created with RG_REGION_LOCKED (or
 *		RG_REGION_CACHED), and each per-thread cache of the latter
 *	xarray	the array's lock is a pthread_mutex_t in the public struct
 *		rg_xarray (static RG_XARRAY_INIT), so it is part of the ABI and
 *		is taken directly; the node cache's creation uses a static
 *		mutex of its own
 *	maple	the tree lock is an int used as a futex word in the public
 *		struct rg_maple_tree (its lock and unlock live in the maple
 *		module); the node cache's creation uses a static mutex
 * A module with a new lock uses this one unless its lock's footprint is
 * part of a public struct.
 */
#ifndef RG_LOCK_H
#define RG_LOCK_H

#include <pthread.h>

struct rgi_lock {
	pthread_mutex_t m;
};

/* Static initialiser: static struct rgi_lock l = RGI_LOCK_INIT; */
#define RGI_LOCK_INIT                     \
	{                                 \
		PTHREAD_MUTEX_INITIALIZER \
	}

/* rgi_lock_init() - initialise @l; 0, or the errno value of the failure. */
static inline int rgi_lock_init(struct rgi_lock *l)
{
	return pthread_mutex_init(&l->m, NULL);
}

/* rgi_lock_fini() - release what rgi_lock_init() took; @l is not held. */
static inline void rgi_lock_fini(struct rgi_lock *l)
{
	pthread_mutex_destroy(&l->m);
}

static inline void rgi_lock(struct rgi_lock *l)
{
	pthread_mutex_lock(&l->m);
}

static inline void rgi_unlock(struct rgi_lock *l)
{
	pthread_mutex_unlock(&l->m);
}

#endif /* RG_LOCK_H */
