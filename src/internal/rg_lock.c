// SPDX-License-Identifier: MIT
/*
 * The library's lock (rg_lock.h): its contended halves.
 *
 * A waiter first spins: it reads the word (a read leaves the line shared,
 * so the holder's writes elsewhere are not disturbed) after a pause, and
 * tries the compare-and-swap only when the word reads 0. The pause makes
 * the releasing thread, which comes back within nanoseconds, the likely
 * next holder, so the protected data stays in its cache. After the spin
 * it exchanges 2 into the word, which takes the lock if it was free and
 * tells the holder to wake someone, and sleeps in FUTEX_WAIT while the
 * word stays 2. An unlock that finds 2 wakes one sleeper, which sets 2
 * again when it takes the lock, so no sleeper is forgotten.
 */
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rg_lock.h"

/* Pause rounds before sleeping: a few microseconds, longer than a holder. */
#define SPIN_ROUNDS 128

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

void rgi_lock_slow(struct rgi_lock *l)
{
	for (int i = 0; i < SPIN_ROUNDS; i++) {
		cpu_relax();
		if (__atomic_load_n(&l->word, __ATOMIC_RELAXED) == 0 &&
		    rgi_trylock(l))
			return;
	}
	while (__atomic_exchange_n(&l->word, 2, __ATOMIC_ACQUIRE) != 0)
		syscall(SYS_futex, &l->word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL,
			0);
}

void rgi_lock_wake(struct rgi_lock *l)
{
	syscall(SYS_futex, &l->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
