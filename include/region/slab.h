/* SPDX-License-Identifier: MIT */
/*
 * libregion slab caches: fixed-size object caches with per-thread sheaves,
 * all-or-nothing bulk calls and prefilled sheaves.
 *
 * Usage:
 *	struct rg_slab_cache *c = rg_slab_create("node", 256, 256, 0, NULL);
 *	void *p = rg_slab_alloc(c);			// NULL + errno on failure
 *	rg_slab_free(c, p);
 *
 *	void *v[16];
 *	if (rg_slab_alloc_bulk(c, 16, v) == 16)		// all or nothing
 *		rg_slab_free_bulk(c, 16, v);
 *
 *	struct rg_slab_sheaf *s = rg_slab_prefill_sheaf(c, 5);
 *	void *n = rg_slab_alloc_from_sheaf(c, s);	// cannot fail (5 times)
 *	rg_slab_return_sheaf(c, s);			// the rest goes back
 *
 *	size_t leaked = rg_slab_destroy(c);
 *
 * Every node of the xarray, the IDA and the Maple Tree comes from a slab
 * cache, so rg_slab_get_stats() is how those structures measure their memory.
 */
#ifndef REGION_SLAB_H
#define REGION_SLAB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "region/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rg_slab_cache;
struct rg_slab_sheaf;

/* Largest object size a cache accepts. */
#define RG_SLAB_MAX_OBJECT_SIZE (1UL << 20)
/* Largest alignment a cache accepts. */
#define RG_SLAB_MAX_ALIGN 4096UL

/* rg_slab_create() flags. */
/* Fill freed objects with RG_SLAB_POISON_FREE, check the fill on reuse. */
#define RG_SLAB_POISON 0x1u
/* Guard bytes before and after every object, checked on free. */
#define RG_SLAB_RED_ZONE 0x2u
/* Detect double frees and pointers not from the cache. */
#define RG_SLAB_CHECK 0x4u
/* All of the above: every alloc and free goes to the slabs, under the lock. */
#define RG_SLAB_DEBUG (RG_SLAB_POISON | RG_SLAB_RED_ZONE | RG_SLAB_CHECK)
/*
 * 2 MiB slabs advised for transparent huge pages: fewer TLB misses when a
 * large structure (a Maple Tree of 10^6 ranges) is walked at random, at the
 * price of 2 MiB of granularity per cache.
 */
#define RG_SLAB_HUGEPAGE 0x8u

#define RG_SLAB_POISON_FREE 0x6b
#define RG_SLAB_RED_ZONE_BYTE 0xbb

/**
 * struct rg_slab_stats - a cache's counters, read by rg_slab_get_stats().
 * @object_size: size requested at creation.
 * @object_stride: bytes each object takes in its slab (padding, red zones).
 * @slab_size: bytes of one slab (an aligned mmap chunk).
 * @objects_in_use: objects handed out and not yet freed.
 * @objects_cached: free objects held in sheaves (per-thread, shared pool or
 *                  prefilled sheaves), ready for the fast path.
 * @objects_free: free objects still in slabs.
 * @slabs: slabs currently mapped.
 * @bytes_held: bytes mapped for slabs (slabs * slab_size).
 * @bytes_live: bytes in live objects (objects_in_use * object_size).
 * @bytes_held_peak: high-water mark of @bytes_held.
 * @slab_allocs: slabs obtained from the operating system since creation.
 */
struct rg_slab_stats {
	size_t object_size;
	size_t object_stride;
	size_t slab_size;
	size_t objects_in_use;
	size_t objects_cached;
	size_t objects_free;
	size_t slabs;
	size_t bytes_held;
	size_t bytes_live;
	size_t bytes_held_peak;
	size_t slab_allocs;
};

/**
 * rg_slab_create() - create an object cache.
 * @name: name used in reports; copied.
 * @size: object size in bytes, 1 .. RG_SLAB_MAX_OBJECT_SIZE.
 * @align: object alignment, a power of two 1 .. RG_SLAB_MAX_ALIGN; 0 means
 *         the natural alignment of the size (up to 16).
 * @flags: 0 or a combination of RG_SLAB_POISON, RG_SLAB_RED_ZONE,
 *         RG_SLAB_CHECK (RG_SLAB_DEBUG for all) and RG_SLAB_HUGEPAGE.
 * @ctor: optional constructor, run once on every object when its slab is
 *        mapped; objects must be returned to the cache in constructed state.
 *        RG_SLAB_POISON is ignored for caches with a constructor.
 *
 * Context: any thread.
 * Return: the cache, or NULL with errno set: EINVAL for a NULL name, size 0,
 * a size above the limit, an alignment that is not a power of two or above
 * the limit, or unknown flags; ENOMEM if memory could not be obtained.
 * Without a thread key to be had the cache works without per-thread
 * sheaves (every call goes to the slabs under the lock).
 */
RG_API struct rg_slab_cache *rg_slab_create(const char *name, size_t size,
					    size_t align, unsigned int flags,
					    void (*ctor)(void *obj));

/**
 * rg_slab_destroy() - release a cache and all its memory.
 * @cache: the cache, or NULL (nothing happens).
 *
 * Every slab is unmapped, including objects still allocated: their number is
 * returned as a leak report. Per-thread sheaves of every thread are freed.
 *
 * Context: no other thread may use the cache during or after the call.
 * Return: the number of objects that were still allocated (0 if none).
 */
RG_API size_t rg_slab_destroy(struct rg_slab_cache *cache);

/**
 * rg_slab_alloc() - allocate one object.
 * @cache: the cache.
 *
 * Context: any thread; lock-free while the thread's sheaves hold objects.
 * Return: the object, or NULL with errno set: ENOMEM when no memory could be
 * obtained (or a fault was injected), EINVAL for a NULL cache.
 */
RG_API void *rg_slab_alloc(struct rg_slab_cache *cache);

/**
 * rg_slab_free() - free one object.
 * @cache: the cache the object came from.
 * @obj: the object; NULL is ignored.
 *
 * Any thread may free any object of the cache. In every cache, freeing
 * again the object this thread freed last (a double free in a row) is
 * reported through the report hook as "double free" and ignored. With
 * RG_SLAB_CHECK any double free or a pointer that is not an object of this
 * cache is reported through the report hook and the free is ignored.
 *
 * Context: any thread; lock-free while the thread's sheaves have room.
 */
RG_API void rg_slab_free(struct rg_slab_cache *cache, void *obj);

/**
 * rg_slab_alloc_bulk() - allocate @n objects, all or nothing.
 * @cache: the cache.
 * @n: number of objects.
 * @p: array of at least @n pointers, filled on success.
 *
 * Context: any thread.
 * Return: @n with p[0..n-1] filled, or 0 with nothing allocated and errno
 * set: ENOMEM when memory ran out, EINVAL for a NULL cache or array or
 * @n == 0.
 */
RG_API size_t rg_slab_alloc_bulk(struct rg_slab_cache *cache, size_t n,
				 void **p);

/**
 * rg_slab_free_bulk() - free @n objects.
 * @cache: the cache the objects came from.
 * @n: number of objects; 0 does nothing.
 * @p: the objects; NULL entries are skipped.
 *
 * The first object is checked as by rg_slab_free(): if it is the object
 * this thread freed last, it is reported and skipped. Duplicates inside @p
 * are caught only with RG_SLAB_CHECK.
 *
 * Context: any thread.
 */
RG_API void rg_slab_free_bulk(struct rg_slab_cache *cache, size_t n, void **p);

/**
 * rg_slab_prefill_sheaf() - get a sheaf holding at least @n objects.
 * @cache: the cache.
 * @n: objects wanted, 1 .. 65536.
 *
 * Objects are then taken with rg_slab_alloc_from_sheaf(), which cannot fail
 * while the sheaf holds objects; rg_slab_return_sheaf() gives back the rest.
 * A sheaf belongs to the caller and may move between threads.
 *
 * Context: any thread.
 * Return: the sheaf, or NULL with errno set: ENOMEM (nothing is taken),
 * EINVAL for a NULL cache, @n == 0 or @n too large.
 */
RG_API struct rg_slab_sheaf *rg_slab_prefill_sheaf(struct rg_slab_cache *cache,
						   unsigned int n);

/**
 * rg_slab_refill_sheaf() - top a prefilled sheaf up to at least @n objects.
 * @cache: the cache.
 * @sheaf: in: a sheaf from rg_slab_prefill_sheaf(); out: possibly a new,
 *         larger sheaf holding the same objects and more.
 * @n: objects wanted, 1 .. 65536.
 *
 * Context: any thread.
 * Return: 0, -EINVAL for a NULL @cache, @sheaf or *@sheaf, @n == 0 or @n
 * above 65536, -ENOMEM with the sheaf unchanged.
 */
RG_API int rg_slab_refill_sheaf(struct rg_slab_cache *cache,
				struct rg_slab_sheaf **sheaf, unsigned int n);

/**
 * rg_slab_alloc_from_sheaf() - take one object from a prefilled sheaf.
 * @cache: the cache the sheaf came from.
 * @sheaf: the sheaf.
 *
 * Context: the sheaf's owner.
 * Return: an object, or NULL if the sheaf is empty (the caller asked for
 * fewer objects than it takes) or @cache or @sheaf is NULL.
 */
RG_API void *rg_slab_alloc_from_sheaf(struct rg_slab_cache *cache,
				      struct rg_slab_sheaf *sheaf);

/**
 * rg_slab_sheaf_size() - number of objects a prefilled sheaf still holds.
 * @sheaf: the sheaf.
 *
 * Context: the sheaf's owner.
 * Return: the count; 0 for a NULL @sheaf.
 */
RG_API unsigned int rg_slab_sheaf_size(const struct rg_slab_sheaf *sheaf);

/**
 * rg_slab_return_sheaf() - give a prefilled sheaf and its objects back.
 * @cache: the cache the sheaf came from.
 * @sheaf: the sheaf; NULL is ignored.
 *
 * Context: any thread.
 */
RG_API void rg_slab_return_sheaf(struct rg_slab_cache *cache,
				 struct rg_slab_sheaf *sheaf);

/**
 * rg_slab_shrink() - return empty slabs to the operating system.
 * @cache: the cache.
 *
 * Free objects cached in the calling thread's sheaves and the shared pool go
 * back to their slabs first; sheaves of other live threads are left alone.
 *
 * Context: any thread.
 * Return: the number of slabs unmapped, or -EINVAL for a NULL cache.
 */
RG_API long rg_slab_shrink(struct rg_slab_cache *cache);

/**
 * rg_slab_get_stats() - read a cache's counters.
 * @cache: the cache.
 * @st: filled with the counters.
 *
 * Counters kept by other threads' fast paths are read without stopping them:
 * with concurrent use, the snapshot is approximate; when the cache is idle it
 * is exact.
 *
 * Context: any thread.
 * Return: 0, or -EINVAL for a NULL argument.
 */
RG_API int rg_slab_get_stats(struct rg_slab_cache *cache,
			     struct rg_slab_stats *st);

/**
 * rg_slab_object_size() - the object size of a cache.
 * @cache: the cache.
 *
 * Context: any thread.
 * Return: the size given to rg_slab_create(); 0 for a NULL @cache.
 */
RG_API size_t rg_slab_object_size(const struct rg_slab_cache *cache);

/**
 * rg_slab_name() - the name of a cache.
 * @cache: the cache.
 *
 * Context: any thread.
 * Return: the cache's name; NULL for a NULL @cache.
 */
RG_API const char *rg_slab_name(const struct rg_slab_cache *cache);

/**
 * rg_slab_validate() - check every invariant of a cache.
 * @cache: the cache.
 * @reason: if not NULL, set to a static description of the first violation.
 *
 * Checks slab lists, free counts, the sheaves in the shared pool and, with
 * debug flags, red zones and poison of free objects.
 *
 * Context: any thread; other threads must not use the cache meanwhile for
 * the per-thread sheaf checks to be exact.
 * Return: 0 if valid, -EINVAL (with @reason) otherwise.
 */
RG_API int rg_slab_validate(struct rg_slab_cache *cache, const char **reason);

/**
 * rg_slab_dump() - print a cache's geometry, counters, slabs and barn.
 * @cache: the cache.
 * @f: where to print.
 *
 * Context: any thread; takes the cache lock.
 */
RG_API void rg_slab_dump(struct rg_slab_cache *cache, FILE *f);

/**
 * typedef rg_slab_report_fn - receives heap corruption reports.
 * @cache: name of the cache.
 * @obj: the object concerned.
 * @what: what was detected ("double free", "pointer not from cache",
 *        "red zone overwritten", "poison overwritten").
 * @arg: the hook's argument.
 *
 * If the hook returns, the offending operation is ignored.
 */
typedef void (*rg_slab_report_fn)(const char *cache, const void *obj,
				  const char *what, void *arg);

/**
 * rg_slab_set_report_hook() - set where corruption reports go.
 * @fn: the hook, or NULL for the default, which prints one line naming the
 *      cache and the object to stderr and aborts.
 * @arg: passed to @fn.
 *
 * Context: any thread; applies to every cache.
 */
RG_API void rg_slab_set_report_hook(rg_slab_report_fn fn, void *arg);

#ifdef __cplusplus
}
#endif
#endif /* REGION_SLAB_H */
