// SPDX-License-Identifier: MIT
/*
 * Maple Tree: the slow path of the tree lock (see maple_lock.h).
 *
 * Contention. A holder keeps the lock for well under a microsecond, so a
 * waiter first spins (100 pause rounds, retrying the compare-and-swap when
 * the word reads 0). Then it exchanges 2 into the word, which both takes
 * the lock if it was free and tells the holder to wake someone, and sleeps
 * in FUTEX_WAIT while the word stays 2. An unlock that finds 2 wakes one
 * waiter, which sets 2 again when it takes the lock, so no waiter is lost.
 */
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "maple_lock.h"

void rgi_mt_lock_slow(struct rg_maple_tree *mt)
{
	/* Spin briefly: holders keep the lock for well under a microsecond. */
	for (int i = 0; i < 100; i++) {
		int z = 0;

#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
		if (__atomic_load_n(&mt->lock, __ATOMIC_RELAXED) == 0 &&
		    __atomic_compare_exchange_n(&mt->lock, &z, 1, false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return;
	}
	while (__atomic_exchange_n(&mt->lock, 2, __ATOMIC_ACQUIRE) != 0)
		syscall(SYS_futex, &mt->lock, FUTEX_WAIT_PRIVATE, 2, NULL, NULL,
			0);
}

void rgi_mt_wake(struct rg_maple_tree *mt)
{
	syscall(SYS_futex, &mt->lock, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
