/* SPDX-License-Identifier: MIT */
/*
 * Kernel names for slab caches (kmem_cache_*), over rg_slab_*.
 *
 * Usage:
 *	struct kmem_cache *c = kmem_cache_create("obj", 256, 0, 0, NULL);
 *	void *v[8];
 *	if (kmem_cache_alloc_bulk(c, GFP_KERNEL, 8, v) == 8)
 *		kmem_cache_free_bulk(c, 8, v);
 *	kmem_cache_destroy(c);
 *
 * Differences from the kernel: gfp flags are ignored except __GFP_ZERO;
 * kmem_cache_create() maps SLAB_POISON, SLAB_RED_ZONE and
 * SLAB_CONSISTENCY_CHECKS to libregion's debug flags, takes
 * SLAB_HWCACHE_ALIGN as a 64-byte alignment and ignores other flags;
 * kmem_cache_destroy() discards the leak count (use rg_slab_destroy() to
 * see it).
 */
#ifndef REGION_LINUX_SLAB_H
#define REGION_LINUX_SLAB_H

#include <string.h>

#include "region/linux/types.h"
#include "region/slab.h"

#ifdef __cplusplus
extern "C" {
#endif

#define kmem_cache rg_slab_cache
#define slab_sheaf rg_slab_sheaf

typedef unsigned int slab_flags_t;
#define SLAB_CONSISTENCY_CHECKS 0x00000100u
#define SLAB_RED_ZONE 0x00000400u
#define SLAB_POISON 0x00000800u
#define SLAB_HWCACHE_ALIGN 0x00002000u
#define SLAB_PANIC 0x00040000u
#define SLAB_ACCOUNT 0x04000000u

static inline struct rg_slab_cache *
kmem_cache_create(const char *name, unsigned int size, unsigned int align,
		  slab_flags_t flags, void (*ctor)(void *))
{
	unsigned int f = 0;

	if (flags & SLAB_POISON)
		f |= RG_SLAB_POISON;
	if (flags & SLAB_RED_ZONE)
		f |= RG_SLAB_RED_ZONE;
	if (flags & SLAB_CONSISTENCY_CHECKS)
		f |= RG_SLAB_CHECK;
	if ((flags & SLAB_HWCACHE_ALIGN) && align < 64)
		align = 64;
	return rg_slab_create(name, size, align, f, ctor);
}

static inline void kmem_cache_destroy(struct rg_slab_cache *c)
{
	(void)rg_slab_destroy(c);
}

static inline void *kmem_cache_alloc(struct rg_slab_cache *c, gfp_t gfp)
{
	void *p = rg_slab_alloc(c);

	if (p && (gfp & __GFP_ZERO))
		memset(p, 0, rg_slab_object_size(c));
	return p;
}

static inline void *kmem_cache_zalloc(struct rg_slab_cache *c, gfp_t gfp)
{
	return kmem_cache_alloc(c, gfp | __GFP_ZERO);
}

static inline void kmem_cache_free(struct rg_slab_cache *c, void *p)
{
	rg_slab_free(c, p);
}

static inline int kmem_cache_alloc_bulk(struct rg_slab_cache *c, gfp_t gfp,
					size_t size, void **p)
{
	size_t n = rg_slab_alloc_bulk(c, size, p);

	if (n && (gfp & __GFP_ZERO))
		for (size_t i = 0; i < n; i++)
			memset(p[i], 0, rg_slab_object_size(c));
	return (int)n;
}

static inline void kmem_cache_free_bulk(struct rg_slab_cache *c, size_t size,
					void **p)
{
	rg_slab_free_bulk(c, size, p);
}

static inline struct rg_slab_sheaf *
kmem_cache_prefill_sheaf(struct rg_slab_cache *c, gfp_t gfp, unsigned int size)
{
	(void)gfp;
	return rg_slab_prefill_sheaf(c, size);
}

static inline int kmem_cache_refill_sheaf(struct rg_slab_cache *c, gfp_t gfp,
					  struct rg_slab_sheaf **sheaf,
					  unsigned int size)
{
	(void)gfp;
	return rg_slab_refill_sheaf(c, sheaf, size);
}

static inline void *kmem_cache_alloc_from_sheaf(struct rg_slab_cache *c,
						gfp_t gfp,
						struct rg_slab_sheaf *sheaf)
{
	void *p = rg_slab_alloc_from_sheaf(c, sheaf);

	if (p && (gfp & __GFP_ZERO))
		memset(p, 0, rg_slab_object_size(c));
	return p;
}

static inline void kmem_cache_return_sheaf(struct rg_slab_cache *c, gfp_t gfp,
					   struct rg_slab_sheaf *sheaf)
{
	(void)gfp;
	rg_slab_return_sheaf(c, sheaf);
}

static inline unsigned int kmem_cache_sheaf_size(struct rg_slab_sheaf *sheaf)
{
	return rg_slab_sheaf_size(sheaf);
}

static inline int kmem_cache_shrink(struct rg_slab_cache *c)
{
	return rg_slab_shrink(c) < 0 ? -EINVAL : 0;
}

#ifdef __cplusplus
}
#endif
#endif /* REGION_LINUX_SLAB_H */
