/* SPDX-License-Identifier: MIT */
/*
 * The library's lock: one mutual-exclusion lock for state that threads
 * share, with one set of calls.
 *
 * Usage:
 *	struct rgi_lock lock;			// or = RGI_LOCK_INIT
 *	err = rgi_lock_init(&lock);		// 0
 *	rgi_lock(&lock); ... rgi_unlock(&lock);
 *	rgi_lock_fini(&lock);
 *
 * A futex word, as the Maple Tree's lock is: 0 free, 1 held, 2 held with
 * possible sleepers. Taking a free lock is one compare-and-swap and
 * releasing one exchange, inline; no call into libc. A waiter spins a
 * little (holders keep it for well under a microsecond) reading the word
 * only, so its spinning writes nothing the holder uses, then sleeps in
 * FUTEX_WAIT (rg_lock.c). Under contention the lock mostly stays with the
 * thread that just released it (a spinner retries only after a pause), so
 * the protected lines stay in one core's cache for runs of calls instead
 * of moving on every call: that keeps two threads' throughput at that of
 * one, where a lock that hands over on every call (or a mutex whose
 * waiters sleep at once) loses half of it. It is not fair; no caller
 * holds it for long. ThreadSanitizer sees the acquire and release of the
 * atomic operations. Never held across a call that can block for long,
 * never taken twice by one thread.
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

#include <stdbool.h>

#include "rg_internal.h"

struct rgi_lock {
	int word; /* 0 free, 1 held, 2 held and a thread may sleep on it */
};

/* Static initialiser: static struct rgi_lock l = RGI_LOCK_INIT; */
#define RGI_LOCK_INIT \
	{             \
		0     \
	}

/* The contended halves (rg_lock.c). */
void rgi_lock_slow(struct rgi_lock *l) RGI_HIDDEN;
void rgi_lock_wake(struct rgi_lock *l) RGI_HIDDEN;

/* rgi_lock_init() - initialise @l; 0 (it cannot fail). */
static inline int rgi_lock_init(struct rgi_lock *l)
{
	__atomic_store_n(&l->word, 0, __ATOMIC_RELAXED);
	return 0;
}

/* rgi_lock_fini() - release what rgi_lock_init() took; @l is not held. */
static inline void rgi_lock_fini(struct rgi_lock *l)
{
	(void)l;
}

/* rgi_trylock() - take @l if it is free; true if taken. */
static inline bool rgi_trylock(struct rgi_lock *l)
{
	int z = 0;

	return __atomic_compare_exchange_n(&l->word, &z, 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void rgi_lock(struct rgi_lock *l)
{
	if (unlikely(!rgi_trylock(l)))
		rgi_lock_slow(l);
}

static inline void rgi_unlock(struct rgi_lock *l)
{
	if (unlikely(__atomic_exchange_n(&l->word, 0, __ATOMIC_RELEASE) == 2))
		rgi_lock_wake(l);
}

#endif /* RG_LOCK_H */
