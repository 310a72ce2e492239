// SPDX-License-Identifier: MIT
/*
 * region walking and fragmentation figures: theory of operation.
 *
 * Walking. Every backend answers one question (ops->next_run): the lowest
 * unit at or after a position that is allocated (or free), and the length
 * of its run. rg_region_next_run() asks it once, for the wanted kind, or,
 * with both kinds, for the kind of the unit at @from. The runs are
 * maximal, so walking from 0 visits each exactly once in address order,
 * and the front end adds nothing: no allocation, and the backend's cost
 * per run (O(log capacity) on hbitmap, which skips by its summaries).
 *
 * Fragmentation figures. rg_region_get_stats() walks the free runs once:
 * their number, a histogram by the power of two below their length, and
 * the ratio 1 - largest run / free units.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "region_internal.h"

/* ---- walking -------------------------------------------------------- */

/* Lock held; from < capacity; kind RG_RUN_USED or RG_RUN_FREE. */
int rgi_region_next_run_locked(struct rg_region *r, unsigned long from,
			       unsigned int kinds, unsigned long *start,
			       unsigned long *n)
{
	bool used;

	if (kinds == (RG_RUN_USED | RG_RUN_FREE))
		used = r->ops->test(r, from);
	else
		used = kinds == RG_RUN_USED;
	if (r->ops->next_run(r, from, used, start, n))
		return -ENOENT;
	RGI_DEBUG_ASSERT(*start >= from && *n >= 1 &&
			 *n <= r->capacity - *start);
	return used ? (int)RG_RUN_USED : (int)RG_RUN_FREE;
}

int rg_region_next_run(struct rg_region *r, unsigned long from,
		       unsigned int kinds, unsigned long *start,
		       unsigned long *n)
{
	unsigned long s, len;
	int ret;

	if (!r || !start || !n || !kinds ||
	    (kinds & ~(RG_RUN_USED | RG_RUN_FREE)))
		return -EINVAL;
	if (from >= r->capacity)
		return -ENOENT;
	rgi_region_lock(r);
	ret = rgi_region_next_run_locked(r, from, kinds, &s, &len);
	rgi_region_unlock(r);
	if (ret > 0) {
		*start = s;
		*n = len;
	}
	return ret;
}

void rgi_region_free_run_stats(struct rg_region *r, struct rg_region_stats *st)
{
	unsigned long from = 0, s, n;

	st->free_runs = 0;
	memset(st->free_run_hist, 0, sizeof(st->free_run_hist));
	while (from < r->capacity &&
	       rgi_region_next_run_locked(r, from, RG_RUN_FREE, &s, &n) > 0) {
		st->free_runs++;
		st->free_run_hist[63 -
				  __builtin_clzll((unsigned long long)n)]++;
		from = s + n;
	}
	st->fragmentation = st->free_units ?
				    1.0 - (double)st->largest_free_run /
						    (double)st->free_units :
				    0.0;
}
