/* SPDX-License-Identifier: MIT */
/*
 * The tree lock of a Maple Tree: a futex mutex in rg_maple_tree.lock.
 *
 * States: 0 free, 1 held, 2 held with waiters (or possibly so). Taking it
 * is one compare-and-swap from 0 to 1 (inline); releasing it one exchange
 * to 0, and a wake only if the old value was 2. The slow path
 * (maple_lock.c) spins briefly, then sets 2 and sleeps in FUTEX_WAIT.
 */
#ifndef RG_MAPLE_LOCK_H
#define RG_MAPLE_LOCK_H

#include "region/maple_tree.h"
#include "rg_internal.h"

RGI_HIDDEN void rgi_mt_lock_slow(struct rg_maple_tree *mt);
RGI_HIDDEN void rgi_mt_wake(struct rg_maple_tree *mt);

static inline void mt_lock(struct rg_maple_tree *mt)
{
	int z = 0;

	if (likely(__atomic_compare_exchange_n(&mt->lock, &z, 1, false,
					       __ATOMIC_ACQUIRE,
					       __ATOMIC_RELAXED)))
		return;
	rgi_mt_lock_slow(mt);
}

static inline void mt_unlock(struct rg_maple_tree *mt)
{
	if (unlikely(__atomic_exchange_n(&mt->lock, 0, __ATOMIC_RELEASE) == 2))
		rgi_mt_wake(mt);
}

#endif /* RG_MAPLE_LOCK_H */
