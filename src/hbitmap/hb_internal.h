/* SPDX-License-Identifier: MIT */
/*
 * Private to src/hbitmap: what hbitmap.c shares with the placement helpers
 * in hb_place.c (word scans: the reverse search). They only read the
 * bitmap words (1 = allocated; the padding bits past the capacity are set),
 * which hbitmap.c owns.
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
 * Highest s with (s & mask) == 0, s + n <= cap and units [s, s + n) free,
 * or RGI_HB_NONE. A scan of the words from the top.
 */
uint64_t rgi_hb_find_rev(const uint64_t *w, uint64_t cap, uint64_t n,
			 uint64_t mask) RGI_HIDDEN;

/* Highest allocated unit below x, or RGI_HB_NONE. */
uint64_t rgi_hb_prev_set(const uint64_t *w, uint64_t x) RGI_HIDDEN;
/* Lowest allocated unit at or after x (the padding stops it at cap). */
uint64_t rgi_hb_next_set(const uint64_t *w, uint64_t x) RGI_HIDDEN;

#endif /* RGI_HB_INTERNAL_H */
