/* SPDX-License-Identifier: MIT */
/*
 * hbitmap's advanced calls, for callers inside the library that have
 * checked the arguments themselves (the region backend, whose front end
 * checks n, the alignment and the range before any backend sees them).
 * They are the best-fit hot paths of rg_hbitmap_alloc_best() and
 * rg_hbitmap_free() without the checks, and they move the caller's own
 * count of free units with hbitmap's, so that the caller reaches them by
 * a tail call and keeps no frame. Not part of the public API.
 */
#ifndef RGI_HBITMAP_ADV_H
#define RGI_HBITMAP_ADV_H

#include <stdint.h>

#include "region/hbitmap.h"
#include "rg_internal.h"

/*
 * rg_hbitmap_alloc_best() for @hb created with RG_HBITMAP_BEST_FIT, with
 * 1 <= @n <= free units, @mask = align - 1 (align a power of two) and
 * @start and @also not NULL: 0 and *@start, with *@also lowered by
 * @n; or -ENOSPC or -ENOMEM as rg_hbitmap_alloc_best(), nothing changed.
 */
int rgi_hbitmap_alloc_best_adv(struct rg_hbitmap *hb, uint64_t n, uint64_t mask,
			       uint64_t *start, uint64_t *also) RGI_HIDDEN;

/*
 * rg_hbitmap_free() for @hb created with RG_HBITMAP_BEST_FIT and a range
 * [@start, @start + @n) inside the capacity, n >= 1, @also not NULL: 0,
 * with *@also raised by @n; or -ENOENT, nothing changed.
 */
int rgi_hbitmap_free_best_adv(struct rg_hbitmap *hb, uint64_t start, uint64_t n,
			      uint64_t *also) RGI_HIDDEN;

#endif /* RGI_HBITMAP_ADV_H */
