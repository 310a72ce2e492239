/* SPDX-License-Identifier: MIT */
/*
 * The reference of the region walk tests: a bool array, true for a used
 * unit, and the run rg_region_next_run() must find in it.
 *
 * Usage:
 *	int want = rg_model_next_run(model, cap, from, kinds, &s, &n);
 */
#ifndef RG_RUN_MODEL_H
#define RG_RUN_MODEL_H

#include <stdbool.h>

#include "libregion.h"

/*
 * rg_model_next_run() - the run of @kinds at or after @from in the @cap
 * units of @m: its start in *@s, its length in *@n. Return: its kind
 * (RG_RUN_USED or RG_RUN_FREE), or 0 if there is none (*@s, *@n untouched).
 */
static inline int rg_model_next_run(const bool *m, unsigned long cap,
				    unsigned long from, unsigned int kinds,
				    unsigned long *s, unsigned long *n)
{
	unsigned long u = from;
	bool used;

	while (u < cap && !((m[u] ? RG_RUN_USED : RG_RUN_FREE) & kinds))
		u++;
	if (u >= cap)
		return 0;
	used = m[u];
	*s = u;
	while (u < cap && m[u] == used)
		u++;
	*n = u - *s;
	return used ? (int)RG_RUN_USED : (int)RG_RUN_FREE;
}

#endif /* RG_RUN_MODEL_H */
