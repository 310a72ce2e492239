/* SPDX-License-Identifier: MIT */
/*
 * Private to src/hbitmap: what hbitmap.c shares with the placement helpers
 * in hb_place.c (word scans: the reverse search) and hb_runs.c (the
 * best-fit index of free runs). Both only read the bitmap words
 * (1 = allocated; the padding bits past the capacity are set), which
 * hbitmap.c owns; it calls the index after every change of bits.
 */
#ifndef RGI_HB_INTERNAL_H
#define RGI_HB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rg_internal.h"

#define RGI_HB_NONE UINT64_MAX

/*
 * Highest s with (s & mask) == 0, lo <= s, s + n <= hi and units
 * [s, s + n) free, or RGI_HB_NONE. A scan of the words from hi down.
 */
uint64_t rgi_hb_find_rev(const uint64_t *w, uint64_t lo, uint64_t hi,
			 uint64_t n, uint64_t mask) RGI_HIDDEN;

/* Highest allocated unit below x, or RGI_HB_NONE. */
uint64_t rgi_hb_prev_set(const uint64_t *w, uint64_t x) RGI_HIDDEN;
/* Lowest allocated unit at or after x, or cap. */
uint64_t rgi_hb_next_set(const uint64_t *w, uint64_t cap,
			 uint64_t x) RGI_HIDDEN;

struct rgi_hb_runs;

/* An empty index for a bitmap of @cap units: NULL when out of memory. */
struct rgi_hb_runs *rgi_hb_runs_create(const uint64_t *w,
				       uint64_t cap) RGI_HIDDEN;
void rgi_hb_runs_destroy(struct rgi_hb_runs *ix) RGI_HIDDEN;
/*
 * Best fit for (n, mask) among the indexed runs: 0 and *start, -ENOSPC, or
 * -ENOMEM (the index had to be rebuilt and could not be). On success the
 * index already holds [*start, *start + n) as allocated: the caller sets
 * those bits next, before anything else reads or changes the bitmap.
 */
int rgi_hb_runs_alloc(struct rgi_hb_runs *ix, const uint64_t *w, uint64_t cap,
		      uint64_t n, uint64_t mask, uint64_t *start) RGI_HIDDEN;
/* Units [s, s + n) were free and have just been set in @w. */
void rgi_hb_runs_taken(struct rgi_hb_runs *ix, const uint64_t *w, uint64_t cap,
		       uint64_t s, uint64_t n) RGI_HIDDEN;
/* Units [s, s + n) were allocated and have just been cleared in @w. */
void rgi_hb_runs_freed(struct rgi_hb_runs *ix, const uint64_t *w, uint64_t cap,
		       uint64_t s, uint64_t n) RGI_HIDDEN;
/* The bitmap changed wholesale (resize): forget the runs, rebuild later. */
void rgi_hb_runs_reset(struct rgi_hb_runs *ix) RGI_HIDDEN;
/* Length of the longest free run (a scan of @w if the index is dropped). */
uint64_t rgi_hb_runs_largest(const struct rgi_hb_runs *ix, const uint64_t *w,
			     uint64_t cap) RGI_HIDDEN;
/* Bytes the index holds: its first member, read without a call. */
static inline size_t rgi_hb_runs_bytes(const struct rgi_hb_runs *ix)
{
	return *(const size_t *)(const void *)ix;
}
/*
 * The largest total the index has seen: its bytes plus the base last set
 * (the bytes hbitmap.c holds beside it), updated whenever either changes;
 * its second member, read without a call.
 */
static inline size_t rgi_hb_runs_peak(const struct rgi_hb_runs *ix)
{
	return ((const size_t *)(const void *)ix)[1];
}
/* hbitmap.c now holds @base bytes beside the index (create, resize). */
void rgi_hb_runs_set_base(struct rgi_hb_runs *ix, size_t base) RGI_HIDDEN;
/* Check the index against the bitmap: 0 or -EINVAL with *reason. */
int rgi_hb_runs_validate(const struct rgi_hb_runs *ix, const uint64_t *w,
			 uint64_t cap, const char **reason) RGI_HIDDEN;
void rgi_hb_runs_dump(const struct rgi_hb_runs *ix, FILE *f) RGI_HIDDEN;

#endif /* RGI_HB_INTERNAL_H */
