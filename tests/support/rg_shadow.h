/* SPDX-License-Identifier: MIT */
/*
 * The threaded region tests' shadow ledger: an atomic bit per unit proves
 * no unit is ever handed out twice. Allocation sets a region's bits and
 * must find them all clear; free clears them and must find them all set.
 * Workers only count conflicts (cmocka's asserts are not thread-safe); the
 * main thread checks the count after joining.
 *
 * Usage:
 *	static _Atomic uint64_t bits[CAPACITY / 64];
 *	static atomic_long errors;
 *	static struct rg_shadow sh = { NULL, bits, &errors };
 *	rg_shadow_hold(&sh, w, start, n);	// mark, remember in w
 *	rg_shadow_release(&sh, w, i);		// unmark, free, forget
 *	rg_shadow_release_all(&sh, w);
 */
#ifndef RG_SHADOW_H
#define RG_SHADOW_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "libregion.h"

/* The most regions one worker holds at a time. */
#define RG_SHADOW_HOLD_MAX 64

struct rg_shadow {
	struct rg_region *region; /* the shared instance */
	_Atomic uint64_t *bits; /* one bit per unit */
	atomic_long *errors; /* counts every conflict or failed free */
};

/* One worker thread and the regions it holds. */
struct rg_shadow_worker {
	pthread_t tid;
	uint64_t seed;
	unsigned long start[RG_SHADOW_HOLD_MAX], n[RG_SHADOW_HOLD_MAX];
	int held;
};

/* Set (on = true) or clear the shadow bits of a region; count conflicts. */
static inline void rg_shadow_mark(struct rg_shadow *sh, unsigned long start,
				  unsigned long n, bool on)
{
	for (unsigned long u = start; u < start + n; u++) {
		uint64_t bit = 1ULL << (u % 64), old;

		if (on)
			old = atomic_fetch_or(&sh->bits[u / 64], bit);
		else
			old = atomic_fetch_and(&sh->bits[u / 64], ~bit);
		if (!!(old & bit) == on)
			atomic_fetch_add(sh->errors, 1);
	}
}

/* Mark a region @w was just handed and remember it. */
static inline void rg_shadow_hold(struct rg_shadow *sh,
				  struct rg_shadow_worker *w,
				  unsigned long start, unsigned long n)
{
	rg_shadow_mark(sh, start, n, true);
	if (w->held >= RG_SHADOW_HOLD_MAX) {
		atomic_fetch_add(sh->errors, 1);
		return;
	}
	w->start[w->held] = start;
	w->n[w->held++] = n;
}

/* Clear the shadow of @w's region @i, free it and forget it. */
static inline void rg_shadow_release(struct rg_shadow *sh,
				     struct rg_shadow_worker *w, int i)
{
	/* Clear the shadow first: the units may be reused at once. */
	rg_shadow_mark(sh, w->start[i], w->n[i], false);
	if (rg_region_free(sh->region, w->start[i], w->n[i]))
		atomic_fetch_add(sh->errors, 1);
	w->held--;
	w->start[i] = w->start[w->held];
	w->n[i] = w->n[w->held];
}

/* Release every region @w holds. */
static inline void rg_shadow_release_all(struct rg_shadow *sh,
					 struct rg_shadow_worker *w)
{
	while (w->held)
		rg_shadow_release(sh, w, w->held - 1);
}

#endif /* RG_SHADOW_H */
