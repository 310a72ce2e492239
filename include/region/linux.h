/* SPDX-License-Identifier: MIT */
/*
 * Opt-in kernel names over libregion's own: kmem_cache_*, bitmap_*, xa_*,
 * ida_*, idr_*, mtree_* / mas_* / MA_STATE with the kernel's argument order
 * and return conventions, so code written against the kernel API builds
 * against libregion unchanged (as liburcu does for RCU). gfp_t arguments are
 * accepted and ignored except where a module's header says otherwise.
 *
 * Usage:
 *	#include <region/linux.h>
 *	struct kmem_cache *c = kmem_cache_create("x", 64, 0, 0, NULL);
 *
 * Each module's names live in <region/linux/MODULE.h>; the sbitmap_queue_*
 * tag allocator's in <region/linux/sbitmap.h>.
 */
#ifndef REGION_LINUX_H
#define REGION_LINUX_H

#include "region/linux/slab.h"
#include "region/linux/bitmap.h"
#include "region/linux/xarray.h"
#include "region/linux/ida.h"
#include "region/linux/idr.h"
#include "region/linux/maple.h"
#include "region/linux/sbitmap.h"

#endif /* REGION_LINUX_H */
