// SPDX-License-Identifier: MIT
/*
 * Slab caches: theory of operation.
 *
 * A cache hands out objects of one size. Memory comes in *slabs*: chunks of
 * slab_size bytes (a power of two, 64 KiB or more) obtained with mmap and
 * aligned to their own size, so the slab of any object is its address with
 * the low bits cleared. A slab starts with a header:
 *
 *	struct rgi_slab | free[nobj] (u16 stack) | out bitmap | pad | objects
 *
 * The free stack holds the indices of objects resting in the slab; the
 * "out" bitmap has a bit set for every object that is not (handed to a user
 * or cached in a sheaf). Objects themselves are never written by the
 * allocator except for debug poison, so constructed state survives.
 * Each object occupies a stride: [left guard][object][right guard+pad];
 * guards exist only with RG_SLAB_RED_ZONE.
 *
 * Slabs sit on one of three lists under the cache lock: partial, full or
 * empty. Empty slabs stay mapped until rg_slab_shrink() or destroy.
 *
 * In front of the slabs, each thread that uses a cache has a *per-thread
 * cache state* (pcs) found through a pthread key of the cache, holding two
 * *sheaves*: arrays of object pointers, "main" and "spare". Allocation pops
 * from main, free pushes to main, with no lock and no atomic read-modify-
 * write. When main is empty (alloc) or full (free) it is swapped with the
 * spare if that helps; otherwise main is exchanged, under the cache lock,
 * with a sheaf from the *barn*: a bounded pool of full and empty sheaves
 * shared by all threads. Only when the barn cannot help do objects move
 * between sheaves and slabs. A thread that exits flushes its sheaves into
 * the barn and slabs (pthread key destructor).
 *
 * Prefilled sheaves (rg_slab_prefill_sheaf()): a prefill of at most one
 * sheaf's worth is served from the thread's main and spare sheaves, after
 * at most one locked refill of main, into an empty sheaf the pcs keeps for
 * prefills ("pre"); rg_slab_return_sheaf() gives what is left back like a
 * bulk free and keeps the sheaf as "pre" again. The Maple Tree prefills a
 * few nodes for every split, so this path takes no lock and no malloc.
 * Larger prefills take a full sheaf from the barn or fill a new one.
 *
 * Counting: objects out of slabs ("out") is exact under the lock. Objects
 * in use is the sum of per-thread alloc/free counters (written only by their
 * owner with relaxed atomic stores, so reading them from stats is race-free)
 * plus counters for paths without a pcs. Cached = out - in use.
 *
 * Debug caches (any RG_SLAB_* debug flag) use no sheaves: every alloc and
 * free goes to the slabs under the lock, where a double free (out bit clear)
 * and a foreign pointer (not inside a slab of this cache at an object
 * boundary) are detected and reported through the report hook.
 *
 * Caches with sheaves also refuse and report an object freed twice in a
 * row: every free call compares its first object with the top of the
 * thread's main sheaf, the object freed last (one load and compare per
 * call, as hardened kernels compare with the freelist head). An object
 * freed again after other frees, after an allocation took the top, or twice
 * inside one bulk array, is caught only with RG_SLAB_CHECK.
 *
 * Fault injection: every public allocating call counts one attempt at its
 * entry, and every new slab counts one more. A failure never leaves partial
 * results: bulk calls and prefill are all or nothing.
 *
 * Limits: object size up to 1 MiB, alignment up to 4096, at most 65535
 * objects per slab, sheaves of at most 65536 objects.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "rg_internal.h"
#include "rg_lock.h"
#include "region/slab.h"

#define SLAB_MAGIC 0x52474c4f42534c41ULL /* "RGLOBSLA" */
#define SLAB_MIN_SIZE (64UL << 10)
#define HUGE_SLAB_SIZE (2UL << 20)
#define SLAB_MIN_OBJECTS 8
#define SLAB_MAX_OBJECTS 65535
#define RED_ZONE 16
#define SHEAF_MAX 65536u
#define BARN_MAX_FULL 32
#define BARN_MAX_EMPTY 32

enum slab_list { LIST_PARTIAL, LIST_FULL, LIST_EMPTY, NR_LISTS };

struct rgi_slab {
	uint64_t magic;
	struct rg_slab_cache *cache;
	struct rgi_slab *next, *prev;
	unsigned int nfree; /* entries on the free stack */
	enum slab_list list;
	uint16_t free[]; /* nobj entries, then the out bitmap */
};

struct rg_slab_sheaf {
	unsigned int size;
	unsigned int capacity;
	struct rg_slab_sheaf *next;
	/*
	 * slot[0] is always NULL, the objects are slot[1 .. size]
	 * (sheaf_objs()): the top object, the one freed last, is slot[size],
	 * NULL in an empty sheaf, so the double-free check needs no test of
	 * the size.
	 */
	void *slot[];
};

/* Per-thread cache state. */
struct rgi_pcs {
	struct rg_slab_sheaf *main, *spare;
	struct rg_slab_sheaf *pre; /* empty, kept for the next prefill */
	_Atomic long allocs, frees; /* written by the owner only */
	struct rg_slab_cache *cache;
	struct rgi_pcs *next, *prev;
};

struct rg_slab_cache {
	struct rgi_lock lock;
	char *name;
	size_t size, align, stride, obj_off, slab_size, hdr_size;
	unsigned int nobj, flags, sheaf_cap;
	void (*ctor)(void *obj);
	pthread_key_t key;
	bool use_sheaves;
	uint64_t id; /* unique per creation, never 0 */

	/* Under lock. */
	struct rgi_slab *lists[NR_LISTS];
	size_t nslabs, peak_slabs, slab_allocs, out;
	struct rg_slab_sheaf *barn_full, *barn_empty;
	unsigned int nbarn_full, nbarn_empty;
	struct rgi_pcs *threads;
	long retired; /* net allocs of exited threads */

	/* Net allocs on paths without a pcs. */
	_Atomic long direct;
};

/* ---- report hook ---- */

static void default_report(const char *cache, const void *obj, const char *what,
			   void *arg)
{
	(void)arg;
	fprintf(stderr, "libregion: slab cache '%s': %s of object %p\n", cache,
		what, obj);
	abort();
}

static _Atomic(rg_slab_report_fn) report_fn = default_report;
static _Atomic(void *) report_arg;

void rg_slab_set_report_hook(rg_slab_report_fn fn, void *arg)
{
	atomic_store(&report_arg, arg);
	atomic_store(&report_fn, fn ? fn : default_report);
}

static void report(struct rg_slab_cache *c, const void *obj, const char *what)
{
	rg_slab_report_fn fn = atomic_load(&report_fn);

	fn(c->name, obj, what, atomic_load(&report_arg));
}

/* ---- counters ---- */

static inline void ctr_add(_Atomic long *ctr, long v)
{
	atomic_store_explicit(
		ctr, atomic_load_explicit(ctr, memory_order_relaxed) + v,
		memory_order_relaxed);
}

static inline long ctr_get(_Atomic long *ctr)
{
	return atomic_load_explicit(ctr, memory_order_relaxed);
}

/* ---- slab geometry ---- */

static inline uint64_t *slab_out_map(struct rg_slab_cache *c,
				     struct rgi_slab *s)
{
	size_t off =
		offsetof(struct rgi_slab, free) + sizeof(uint16_t) * c->nobj;

	off = (off + 7) & ~(size_t)7;
	return (uint64_t *)((char *)s + off);
}

static size_t header_size(size_t nobj, size_t align)
{
	size_t h = offsetof(struct rgi_slab, free) + sizeof(uint16_t) * nobj;

	h = (h + 7) & ~(size_t)7;
	h += 8 * ((nobj + 63) / 64);
	return (h + align - 1) & ~(align - 1);
}

static inline char *slab_obj(struct rg_slab_cache *c, struct rgi_slab *s,
			     unsigned int i)
{
	return (char *)s + c->hdr_size + (size_t)i * c->stride + c->obj_off;
}

static inline struct rgi_slab *obj_slab(struct rg_slab_cache *c,
					const void *obj)
{
	return (struct rgi_slab *)((uintptr_t)obj & ~(c->slab_size - 1));
}

static inline bool out_test(uint64_t *map, unsigned int i)
{
	return map[i / 64] >> (i % 64) & 1;
}

static inline void out_flip(uint64_t *map, unsigned int i)
{
	map[i / 64] ^= 1ULL << (i % 64);
}

/* ---- slab lists (under lock) ---- */

static void list_del(struct rg_slab_cache *c, struct rgi_slab *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		c->lists[s->list] = s->next;
	if (s->next)
		s->next->prev = s->prev;
}

static void list_add(struct rg_slab_cache *c, struct rgi_slab *s,
		     enum slab_list l)
{
	s->list = l;
	s->prev = NULL;
	s->next = c->lists[l];
	if (s->next)
		s->next->prev = s;
	c->lists[l] = s;
}

/* Objects out of slab @s. */
static inline unsigned int slab_inuse(const struct rg_slab_cache *c,
				      const struct rgi_slab *s)
{
	return c->nobj - s->nfree;
}

static enum slab_list list_for(struct rg_slab_cache *c, struct rgi_slab *s)
{
	if (slab_inuse(c, s) == 0)
		return LIST_EMPTY;
	return slab_inuse(c, s) == c->nobj ? LIST_FULL : LIST_PARTIAL;
}

static void relist(struct rg_slab_cache *c, struct rgi_slab *s)
{
	enum slab_list l = list_for(c, s);

	if (l != s->list) {
		list_del(c, s);
		list_add(c, s, l);
	}
}

/* ---- slabs from the operating system ---- */

static struct rgi_slab *slab_map(struct rg_slab_cache *c)
{
	size_t sz = c->slab_size;
	char *raw, *base;
	struct rgi_slab *s;

	if (rgi_fault())
		return NULL;
	raw = mmap(NULL, 2 * sz, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	base = (char *)(((uintptr_t)raw + sz - 1) & ~(sz - 1));
	if (base > raw)
		munmap(raw, (size_t)(base - raw));
	if (base + sz < raw + 2 * sz)
		munmap(base + sz, (size_t)(raw + 2 * sz - (base + sz)));
	if (c->flags & RG_SLAB_HUGEPAGE)
		madvise(base, sz, MADV_HUGEPAGE); /* advice: failure is fine */

	s = (struct rgi_slab *)base;
	s->magic = SLAB_MAGIC;
	s->cache = c;
	s->nfree = c->nobj;
	/* Pop order is ascending addresses: index 0 on top. */
	for (unsigned int i = 0; i < c->nobj; i++)
		s->free[i] = (uint16_t)(c->nobj - 1 - i);
	/* The out bitmap is zero: fresh anonymous memory. */
	for (unsigned int i = 0; i < c->nobj; i++) {
		char *o = slab_obj(c, s, i);

		if (c->flags & RG_SLAB_RED_ZONE) {
			memset(o - c->obj_off, RG_SLAB_RED_ZONE_BYTE,
			       c->obj_off);
			memset(o + c->size, RG_SLAB_RED_ZONE_BYTE,
			       c->stride - c->obj_off - c->size);
		}
		if (c->ctor)
			c->ctor(o);
		else if (c->flags & RG_SLAB_POISON)
			memset(o, RG_SLAB_POISON_FREE, c->size);
	}
	list_add(c, s, LIST_EMPTY);
	c->nslabs++;
	c->slab_allocs++;
	if (c->nslabs > c->peak_slabs)
		c->peak_slabs = c->nslabs;
	return s;
}

static void slab_unmap(struct rg_slab_cache *c, struct rgi_slab *s)
{
	list_del(c, s);
	s->magic = 0;
	munmap(s, c->slab_size);
	c->nslabs--;
}

/*
 * Take up to n objects out of the slabs (under lock), mapping new slabs as
 * needed. Returns how many were taken; fewer than n only when a new slab
 * could not be mapped.
 */
static size_t slabs_take(struct rg_slab_cache *c, size_t n, void **p)
{
	size_t got = 0;

	while (got < n) {
		struct rgi_slab *s = c->lists[LIST_PARTIAL];
		uint64_t *map;

		if (!s)
			s = c->lists[LIST_EMPTY];
		if (!s)
			s = slab_map(c);
		if (!s)
			break;
		map = slab_out_map(c, s);
		while (got < n && s->nfree) {
			unsigned int i = s->free[--s->nfree];

			out_flip(map, i);
			p[got++] = slab_obj(c, s, i);
		}
		relist(c, s);
	}
	c->out += got;
	return got;
}

/* Give one object back to its slab (under lock); no checks. */
static void slab_put(struct rg_slab_cache *c, void *obj)
{
	struct rgi_slab *s = obj_slab(c, obj);
	size_t off =
		(size_t)((char *)obj - (char *)s) - c->hdr_size - c->obj_off;
	unsigned int i = (unsigned int)(off / c->stride);

	out_flip(slab_out_map(c, s), i);
	s->free[s->nfree++] = (uint16_t)i;
	c->out--;
	relist(c, s);
}

static void slabs_put(struct rg_slab_cache *c, size_t n, void **p)
{
	for (size_t i = 0; i < n; i++)
		slab_put(c, p[i]);
}

/*
 * Debug: locate obj's slab and index, or report a foreign pointer.
 * Returns false (after reporting) when obj is not an object of c.
 */
static bool debug_locate(struct rg_slab_cache *c, const void *obj,
			 struct rgi_slab **sp, unsigned int *ip)
{
	struct rgi_slab *want = obj_slab(c, obj);

	for (int l = 0; l < NR_LISTS; l++) {
		for (struct rgi_slab *s = c->lists[l]; s; s = s->next) {
			size_t off;

			if (s != want)
				continue;
			off = (size_t)((const char *)obj - (const char *)s);
			if (off < c->hdr_size + c->obj_off)
				break;
			off -= c->hdr_size + c->obj_off;
			if (off % c->stride || off / c->stride >= c->nobj)
				break;
			*sp = s;
			*ip = (unsigned int)(off / c->stride);
			return true;
		}
	}
	report(c, obj, "pointer not from cache");
	return false;
}

static bool guards_intact(struct rg_slab_cache *c, const char *o)
{
	const char *l = o - c->obj_off, *r = o + c->size;
	size_t rn = c->stride - c->obj_off - c->size;

	for (size_t i = 0; i < c->obj_off; i++)
		if ((unsigned char)l[i] != RG_SLAB_RED_ZONE_BYTE)
			return false;
	for (size_t i = 0; i < rn; i++)
		if ((unsigned char)r[i] != RG_SLAB_RED_ZONE_BYTE)
			return false;
	return true;
}

static bool poison_intact(struct rg_slab_cache *c, const char *o)
{
	for (size_t i = 0; i < c->size; i++)
		if ((unsigned char)o[i] != RG_SLAB_POISON_FREE)
			return false;
	return true;
}

static bool poisons(struct rg_slab_cache *c)
{
	return (c->flags & RG_SLAB_POISON) && !c->ctor;
}

/* Debug alloc of n objects (under lock): take, check poison. */
static size_t debug_take(struct rg_slab_cache *c, size_t n, void **p)
{
	size_t got = slabs_take(c, n, p);

	for (size_t i = 0; i < got; i++)
		if (poisons(c) && !poison_intact(c, p[i]))
			report(c, p[i], "poison overwritten");
	return got;
}

/*
 * Debug free of one object (under lock): all checks, then put.
 * Returns false if the free was refused (and reported).
 */
static bool debug_put(struct rg_slab_cache *c, void *obj)
{
	struct rgi_slab *s;
	unsigned int i;

	if (!debug_locate(c, obj, &s, &i))
		return false;
	if (!out_test(slab_out_map(c, s), i)) {
		report(c, obj, "double free");
		return false;
	}
	if ((c->flags & RG_SLAB_RED_ZONE) && !guards_intact(c, obj)) {
		report(c, obj, "red zone overwritten");
		return false;
	}
	if (poisons(c))
		memset(obj, RG_SLAB_POISON_FREE, c->size);
	slab_put(c, obj);
	return true;
}

/* ---- sheaves ---- */

/* The objects of @sh: sheaf_objs(sh)[0 .. size - 1]. */
static inline void **sheaf_objs(struct rg_slab_sheaf *sh)
{
	return sh->slot + 1;
}

static struct rg_slab_sheaf *sheaf_new(unsigned int capacity)
{
	struct rg_slab_sheaf *sh =
		malloc(sizeof(*sh) + sizeof(void *) * (capacity + 1));

	if (sh) {
		sh->slot[0] = NULL;
		sh->size = 0;
		sh->capacity = capacity;
		sh->next = NULL;
	}
	return sh;
}

/* An empty standard sheaf from the barn or the heap (under lock). */
static struct rg_slab_sheaf *barn_get_empty(struct rg_slab_cache *c)
{
	struct rg_slab_sheaf *sh = c->barn_empty;

	if (sh) {
		c->barn_empty = sh->next;
		c->nbarn_empty--;
		return sh;
	}
	return sheaf_new(c->sheaf_cap);
}

/* Retire an empty sheaf (under lock). */
static void barn_put_empty(struct rg_slab_cache *c, struct rg_slab_sheaf *sh)
{
	if (sh->capacity != c->sheaf_cap || c->nbarn_empty >= BARN_MAX_EMPTY) {
		free(sh);
		return;
	}
	sh->size = 0;
	sh->next = c->barn_empty;
	c->barn_empty = sh;
	c->nbarn_empty++;
}

/* Free every empty sheaf of the barn (under lock). */
static void barn_drain_empty(struct rg_slab_cache *c)
{
	struct rg_slab_sheaf *sh;

	while ((sh = c->barn_empty)) {
		c->barn_empty = sh->next;
		c->nbarn_empty--;
		free(sh);
	}
}

static struct rg_slab_sheaf *barn_get_full(struct rg_slab_cache *c)
{
	struct rg_slab_sheaf *sh = c->barn_full;

	if (sh) {
		c->barn_full = sh->next;
		c->nbarn_full--;
	}
	return sh;
}

/*
 * Hand a sheaf's objects to the barn (whole, if it is a full standard
 * sheaf and there is room) or to the slabs; the sheaf is emptied or taken.
 * Returns the sheaf if the caller keeps it (now empty), NULL if the barn
 * took it.
 */
static struct rg_slab_sheaf *barn_put_objects(struct rg_slab_cache *c,
					      struct rg_slab_sheaf *sh)
{
	if (sh->size == c->sheaf_cap && sh->capacity == c->sheaf_cap &&
	    c->nbarn_full < BARN_MAX_FULL) {
		sh->next = c->barn_full;
		c->barn_full = sh;
		c->nbarn_full++;
		return NULL;
	}
	slabs_put(c, sh->size, sheaf_objs(sh));
	sh->size = 0;
	return sh;
}

/* ---- per-thread state ---- */

/*
 * The last cache this thread used and its state: one compare instead of a
 * pthread_getspecific() on the fast path. Cache ids are never reused, so a
 * destroyed cache can never match.
 */
struct rgi_tls_last {
	uint64_t id;
	struct rgi_pcs *pc;
};

static __thread struct rgi_tls_last tls_last
	__attribute__((tls_model("initial-exec")));
static _Atomic uint64_t next_cache_id = 1;

static void tls_forget(struct rgi_pcs *pc)
{
	if (tls_last.pc == pc) {
		tls_last.id = 0;
		tls_last.pc = NULL;
	}
}

static void pcs_flush_locked(struct rg_slab_cache *c, struct rgi_pcs *pc)
{
	struct rg_slab_sheaf *sh[2] = { pc->main, pc->spare };

	for (int i = 0; i < 2; i++) {
		if (!sh[i])
			continue;
		if (sh[i]->size)
			sh[i] = barn_put_objects(c, sh[i]);
		if (sh[i])
			barn_put_empty(c, sh[i]);
	}
	pc->main = pc->spare = NULL;
	if (pc->pre)
		barn_put_empty(c, pc->pre);
	pc->pre = NULL;
}

static void pcs_unlink(struct rg_slab_cache *c, struct rgi_pcs *pc)
{
	if (pc->prev)
		pc->prev->next = pc->next;
	else
		c->threads = pc->next;
	if (pc->next)
		pc->next->prev = pc->prev;
}

static void pcs_destructor(void *arg)
{
	struct rgi_pcs *pc = arg;
	struct rg_slab_cache *c = pc->cache;

	rgi_lock(&c->lock);
	pcs_flush_locked(c, pc);
	c->retired += ctr_get(&pc->allocs) - ctr_get(&pc->frees);
	pcs_unlink(c, pc);
	rgi_unlock(&c->lock);
	tls_forget(pc);
	free(pc);
}

static struct rgi_pcs *pcs_get_slow(struct rg_slab_cache *c);

/* The calling thread's state, created on first use; NULL: go direct. */
static inline struct rgi_pcs *pcs_get(struct rg_slab_cache *c)
{
	if (likely(tls_last.id == c->id))
		return tls_last.pc;
	return pcs_get_slow(c);
}

static struct rgi_pcs *pcs_get_slow(struct rg_slab_cache *c)
{
	struct rgi_pcs *pc;

	if (!c->use_sheaves)
		return NULL;
	pc = pthread_getspecific(c->key);
	if (likely(pc)) {
		tls_last.id = c->id;
		tls_last.pc = pc;
		return pc;
	}
	pc = calloc(1, sizeof(*pc));
	if (!pc)
		return NULL;
	pc->cache = c;
	rgi_lock(&c->lock);
	pc->main = barn_get_empty(c);
	pc->spare = barn_get_empty(c);
	if (!pc->main || !pc->spare || pthread_setspecific(c->key, pc) != 0) {
		if (pc->main)
			barn_put_empty(c, pc->main);
		if (pc->spare)
			barn_put_empty(c, pc->spare);
		rgi_unlock(&c->lock);
		free(pc);
		return NULL;
	}
	pc->next = c->threads;
	if (pc->next)
		pc->next->prev = pc;
	c->threads = pc;
	rgi_unlock(&c->lock);
	tls_last.id = c->id;
	tls_last.pc = pc;
	return pc;
}

/* ---- object movement cores (no fault point, no counters) ---- */

/* Copy n object pointers between non-overlapping arrays. */
static inline void copy_ptrs(void **restrict dst, void *const *restrict src,
			     size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = src[i];
}

/*
 * The object freed last into @sh (NULL if it is empty): the always-on
 * double-free check compares a freed object with it, as hardened kernels
 * compare with the freelist head.
 */
static inline const void *sheaf_top(const struct rg_slab_sheaf *sh)
{
	return sh->slot[sh->size];
}

static inline size_t sheaf_take(struct rg_slab_sheaf *sh, size_t n, void **p)
{
	size_t k = RGI_MIN(n, (size_t)sh->size);

	sh->size -= (unsigned int)k;
	copy_ptrs(p, sheaf_objs(sh) + sh->size, k);
	return k;
}

/*
 * take_objects() - n objects, all or nothing, from the thread's sheaves,
 * then the barn, then the slabs. Returns n or 0.
 */
static size_t take_objects(struct rg_slab_cache *c, struct rgi_pcs *pc,
			   size_t n, void **p)
{
	size_t got = 0, local = 0;
	struct rg_slab_sheaf *sh;

	if (pc) {
		got = sheaf_take(pc->main, n, p);
		if (got < n)
			got += sheaf_take(pc->spare, n - got, p + got);
		local = got;
		if (got == n)
			return n;
	}
	rgi_lock(&c->lock);
	if (!pc) {
		got = debug_take(c, n, p);
	} else {
		while (n - got >= c->sheaf_cap && (sh = barn_get_full(c))) {
			got += sheaf_take(sh, n - got, p + got);
			barn_put_empty(c, sh);
		}
		got += slabs_take(c, n - got, p + got);
	}
	if (got < n) {
		/* All or nothing: what came from the sheaves goes back. */
		slabs_put(c, got - local, p + local);
		if (pc) {
			size_t back =
				RGI_MIN(local, (size_t)pc->main->capacity);

			memcpy(sheaf_objs(pc->main), p, back * sizeof(void *));
			pc->main->size = (unsigned int)back;
			slabs_put(c, local - back, p + back);
		}
		rgi_unlock(&c->lock);
		return 0;
	}
	rgi_unlock(&c->lock);
	return n;
}

/*
 * give_objects() - put n objects back: into the thread's main sheaf while
 * it has room, exchanging full sheaves with the spare and the barn. NULL
 * entries are skipped. Returns how many objects were taken back (without
 * a pcs, debug checks may refuse some).
 */
#if defined(__GNUC__) && !defined(__clang__)
/*
 * GCC 12's -fanalyzer loses a sheaf once it is linked into the barn and
 * reports it leaked: every sheaf here ends in pc->main or the barn.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
#endif
static size_t give_objects(struct rg_slab_cache *c, struct rgi_pcs *pc,
			   size_t n, void **p)
{
	struct rg_slab_sheaf *e;
	size_t i = 0, count = 0;

	if (!pc) {
		rgi_lock(&c->lock);
		for (; i < n; i++)
			if (p[i])
				count += debug_put(c, p[i]);
		rgi_unlock(&c->lock);
		return count;
	}
	for (; i < n; i++)
		count += p[i] != NULL;
	i = 0;
	/* The first object must not be the one freed last (main's top). */
	while (i < n && !p[i])
		i++;
	if (i < n && p[i] == sheaf_top(pc->main)) {
		report(c, p[i], "double free");
		count--;
		i++;
	}
	for (;;) {
		struct rg_slab_sheaf *m = pc->main;

		for (; i < n && m->size < m->capacity; i++)
			if (p[i])
				sheaf_objs(m)[m->size++] = p[i];
		if (i == n)
			return count;
		/* main is full. */
		if (pc->spare->size == 0) {
			pc->main = pc->spare;
			pc->spare = m;
			continue;
		}
		/*
		 * Exchange it for an empty sheaf: the full one goes to the
		 * barn whole, or its objects to the slabs if the barn is full.
		 * Without an empty sheaf to be had, main is flushed in place.
		 */
		rgi_lock(&c->lock);
		e = barn_get_empty(c);
		if (!e) {
			slabs_put(c, m->size, sheaf_objs(m));
			m->size = 0;
			e = m;
		} else if ((m = barn_put_objects(c, m))) {
			barn_put_empty(c, e);
			e = m;
		}
		pc->main = e;
		rgi_unlock(&c->lock);
	}
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* ---- public API ---- */

struct rg_slab_cache *rg_slab_create(const char *name, size_t size,
				     size_t align, unsigned int flags,
				     void (*ctor)(void *obj))
{
	struct rg_slab_cache *c;
	size_t slab_size, hdr, nobj;

	if (!name || size == 0 || size > RG_SLAB_MAX_OBJECT_SIZE ||
	    align > RG_SLAB_MAX_ALIGN || (align & (align - 1)) ||
	    (flags & ~(unsigned int)(RG_SLAB_DEBUG | RG_SLAB_HUGEPAGE))) {
		errno = EINVAL;
		return NULL;
	}
	if (align == 0) {
		align = 1;
		while (align < size && align < 16)
			align <<= 1;
	}
	c = rgi_calloc(1, sizeof(*c));
	if (!c || !(c->name = strdup(name))) {
		rgi_free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->size = size;
	c->align = align;
	c->flags = flags;
	c->ctor = ctor;
	c->obj_off = 0;
	if (flags & RG_SLAB_RED_ZONE)
		c->obj_off = (RED_ZONE + align - 1) & ~(align - 1);
	c->stride =
		c->obj_off + size + ((flags & RG_SLAB_RED_ZONE) ? RED_ZONE : 0);
	c->stride = (c->stride + align - 1) & ~(align - 1);

	/* The smallest power-of-two slab that holds SLAB_MIN_OBJECTS. */
	slab_size = (flags & RG_SLAB_HUGEPAGE) ? HUGE_SLAB_SIZE : SLAB_MIN_SIZE;
	for (;; slab_size <<= 1) {
		nobj = slab_size / c->stride;
		if (nobj > SLAB_MAX_OBJECTS)
			nobj = SLAB_MAX_OBJECTS;
		while (nobj &&
		       header_size(nobj, align) + nobj * c->stride > slab_size)
			nobj--;
		if (nobj >= SLAB_MIN_OBJECTS)
			break;
	}
	hdr = header_size(nobj, align);
	c->slab_size = slab_size;
	c->hdr_size = hdr;
	c->nobj = (unsigned int)nobj;
	c->sheaf_cap = size < 256   ? 60 :
		       size <= 1024 ? 28 :
		       size <= 4096 ? 12 :
				      4;

	rgi_lock_init(&c->lock);
	c->use_sheaves = !(flags & RG_SLAB_DEBUG) &&
			 pthread_key_create(&c->key, pcs_destructor) == 0;
	c->id = atomic_fetch_add(&next_cache_id, 1);
	return c;
}

size_t rg_slab_destroy(struct rg_slab_cache *c)
{
	struct rg_slab_stats st;
	struct rg_slab_sheaf *sh;

	if (!c)
		return 0;
	rg_slab_get_stats(c, &st);
	if (c->use_sheaves) {
		struct rgi_pcs *pc = pthread_getspecific(c->key);

		/* Only this thread's key value can be cleared. */
		if (pc) {
			pthread_setspecific(c->key, NULL);
			tls_forget(pc);
		}
		pthread_key_delete(c->key);
	}
	while (c->threads) {
		struct rgi_pcs *pc = c->threads;

		c->threads = pc->next;
		free(pc->main);
		free(pc->spare);
		free(pc->pre);
		free(pc);
	}
	while ((sh = barn_get_full(c)))
		free(sh);
	barn_drain_empty(c);
	for (int l = 0; l < NR_LISTS; l++)
		while (c->lists[l])
			slab_unmap(c, c->lists[l]);
	rgi_lock_fini(&c->lock);
	free(c->name);
	free(c);
	return st.objects_in_use;
}

/*
 * Fill the thread's main sheaf under one lock: an empty main is exchanged
 * for a full sheaf from the barn, else topped up from the slabs (as far as
 * memory allows).
 */
static void pcs_refill_main(struct rg_slab_cache *c, struct rgi_pcs *pc)
{
	struct rg_slab_sheaf *m = pc->main, *full = NULL;

	rgi_lock(&c->lock);
	if (m->size == 0)
		full = barn_get_full(c);
	if (full) {
		barn_put_empty(c, m);
		pc->main = full;
	} else {
		m->size += (unsigned int)slabs_take(c, m->capacity - m->size,
						    sheaf_objs(m) + m->size);
	}
	rgi_unlock(&c->lock);
}

/* rg_slab_alloc() when the thread's main sheaf is empty or missing. */
static __attribute__((noinline)) void *alloc_slow(struct rg_slab_cache *c,
						  struct rgi_pcs *pc)
{
	void *obj;

	if (pc && pc->spare->size) {
		struct rg_slab_sheaf *t = pc->main;

		pc->main = pc->spare;
		pc->spare = t;
	} else if (pc) {
		pcs_refill_main(c, pc);
	}
	if (pc && pc->main->size) {
		obj = sheaf_objs(pc->main)[--pc->main->size];
		ctr_add(&pc->allocs, 1);
		return obj;
	}
	if (pc || take_objects(c, NULL, 1, &obj) != 1) {
		errno = ENOMEM;
		return NULL;
	}
	atomic_fetch_add_explicit(&c->direct, 1, memory_order_relaxed);
	return obj;
}

void *rg_slab_alloc(struct rg_slab_cache *c)
{
	struct rgi_pcs *pc;

	if (unlikely(!c)) {
		errno = EINVAL;
		return NULL;
	}
	if (unlikely(rgi_fault())) {
		errno = ENOMEM;
		return NULL;
	}
	pc = pcs_get(c);
	if (likely(pc && pc->main->size)) {
		ctr_add(&pc->allocs, 1);
		return sheaf_objs(pc->main)[--pc->main->size];
	}
	return alloc_slow(c, pc);
}

void rg_slab_free(struct rg_slab_cache *c, void *obj)
{
	struct rgi_pcs *pc;

	if (unlikely(!c || !obj))
		return;
	pc = pcs_get(c);
	if (likely(pc && pc->main->size < pc->main->capacity)) {
		struct rg_slab_sheaf *m = pc->main;

		if (unlikely(obj == sheaf_top(m))) {
			report(c, obj, "double free");
			return;
		}
		sheaf_objs(m)[m->size++] = obj;
		ctr_add(&pc->frees, 1);
		return;
	}
	rg_slab_free_bulk(c, 1, &obj);
}

size_t rg_slab_alloc_bulk(struct rg_slab_cache *c, size_t n, void **p)
{
	struct rgi_pcs *pc;

	if (unlikely(!c || !p || n == 0)) {
		errno = EINVAL;
		return 0;
	}
	if (unlikely(rgi_fault())) {
		errno = ENOMEM;
		return 0;
	}
	pc = pcs_get(c);
	if (likely(pc && pc->main->size >= n)) {
		struct rg_slab_sheaf *m = pc->main;

		m->size -= (unsigned int)n;
		copy_ptrs(p, sheaf_objs(m) + m->size, n);
		ctr_add(&pc->allocs, (long)n);
		return n;
	}
	if (take_objects(c, pc, n, p) != n) {
		errno = ENOMEM;
		return 0;
	}
	if (pc)
		ctr_add(&pc->allocs, (long)n);
	else
		atomic_fetch_add_explicit(&c->direct, (long)n,
					  memory_order_relaxed);
	return n;
}

void rg_slab_free_bulk(struct rg_slab_cache *c, size_t n, void **p)
{
	struct rgi_pcs *pc;
	long count;

	if (unlikely(!c || !p || n == 0))
		return;
	pc = pcs_get(c);
	if (likely(pc && pc->main->capacity - pc->main->size >= n)) {
		struct rg_slab_sheaf *m = pc->main;
		size_t nulls = 0;

		for (size_t i = 0; i < n; i++)
			nulls += p[i] == NULL;
		if (likely(!nulls && p[0] != sheaf_top(m))) {
			copy_ptrs(sheaf_objs(m) + m->size, p, n);
			m->size += (unsigned int)n;
			ctr_add(&pc->frees, (long)n);
			return;
		}
	}
	count = (long)give_objects(c, pc, n, p);
	if (pc)
		ctr_add(&pc->frees, count);
	else
		atomic_fetch_sub_explicit(&c->direct, count,
					  memory_order_relaxed);
}

struct rg_slab_sheaf *rg_slab_prefill_sheaf(struct rg_slab_cache *c,
					    unsigned int n)
{
	struct rg_slab_sheaf *sh = NULL;
	struct rgi_pcs *pc;

	if (!c || n == 0 || n > SHEAF_MAX) {
		errno = EINVAL;
		return NULL;
	}
	if (rgi_fault()) {
		errno = ENOMEM;
		return NULL;
	}
	pc = pcs_get(c);
	if (pc && n <= c->sheaf_cap) {
		/*
		 * Small prefills, such as the Maple Tree's few nodes per
		 * store: once the thread's sheaves hold n (after at most one
		 * locked refill of a whole sheaf), copy n pointers into the
		 * sheaf the thread keeps for them.
		 */
		if (pc->main->size + pc->spare->size < n)
			pcs_refill_main(c, pc);
		if (pc->main->size + pc->spare->size >= n) {
			sh = pc->pre ? pc->pre : sheaf_new(c->sheaf_cap);
			if (!sh) {
				errno = ENOMEM;
				return NULL;
			}
			pc->pre = NULL;
			sh->size = (unsigned int)take_objects(c, pc, n,
							      sheaf_objs(sh));
			return sh;
		}
		/* A full sheaf from the barn holds at least n: no copying. */
		rgi_lock(&c->lock);
		sh = barn_get_full(c);
		rgi_unlock(&c->lock);
		if (sh)
			return sh;
	}
	sh = sheaf_new(RGI_MAX(n, c->sheaf_cap));
	if (!sh || take_objects(c, pc, n, sheaf_objs(sh)) != n) {
		free(sh);
		errno = ENOMEM;
		return NULL;
	}
	sh->size = n;
	return sh;
}

int rg_slab_refill_sheaf(struct rg_slab_cache *c, struct rg_slab_sheaf **shp,
			 unsigned int n)
{
	struct rg_slab_sheaf *sh, *big = NULL;
	unsigned int need;

	if (!c || !shp || !*shp || n == 0 || n > SHEAF_MAX)
		return -EINVAL;
	sh = *shp;
	if (sh->size >= n)
		return 0;
	if (rgi_fault())
		return -ENOMEM;
	need = n - sh->size;
	if (n > sh->capacity) {
		big = sheaf_new(n);
		if (!big)
			return -ENOMEM;
	}
	if (take_objects(c, pcs_get(c), need,
			 (big ? sheaf_objs(big) : sheaf_objs(sh)) + sh->size) !=
	    need) {
		free(big);
		return -ENOMEM;
	}
	if (big) {
		memcpy(sheaf_objs(big), sheaf_objs(sh),
		       sh->size * sizeof(void *));
		big->size = sh->size;
		free(sh);
		*shp = sh = big;
	}
	sh->size = n;
	return 0;
}

void *rg_slab_alloc_from_sheaf(struct rg_slab_cache *c,
			       struct rg_slab_sheaf *sh)
{
	struct rgi_pcs *pc;

	if (!c || !sh || sh->size == 0)
		return NULL;
	/* Counted by the calling thread, like rg_slab_alloc(). */
	pc = pcs_get(c);
	if (likely(pc))
		ctr_add(&pc->allocs, 1);
	else
		atomic_fetch_add_explicit(&c->direct, 1, memory_order_relaxed);
	return sheaf_objs(sh)[--sh->size];
}

unsigned int rg_slab_sheaf_size(const struct rg_slab_sheaf *sh)
{
	return sh ? sh->size : 0;
}

void rg_slab_return_sheaf(struct rg_slab_cache *c, struct rg_slab_sheaf *sh)
{
	struct rgi_pcs *pc;

	if (!c || !sh)
		return;
	pc = pcs_get(c);
	if (pc && sh->size == c->sheaf_cap && sh->capacity == c->sheaf_cap) {
		/* A whole full sheaf goes to the barn without copying. */
		rgi_lock(&c->lock);
		sh = barn_put_objects(c, sh);
		rgi_unlock(&c->lock);
		if (!sh)
			return;
	}
	/* The rest goes through the thread's sheaves like a bulk free. */
	give_objects(c, pc, sh->size, sheaf_objs(sh));
	if (pc && !pc->pre && sh->capacity == c->sheaf_cap) {
		sh->size = 0;
		pc->pre = sh;
		return;
	}
	rgi_lock(&c->lock);
	barn_put_empty(c, sh);
	rgi_unlock(&c->lock);
}

long rg_slab_shrink(struct rg_slab_cache *c)
{
	struct rgi_pcs *pc;
	struct rg_slab_sheaf *sh;
	long n = 0;

	if (!c)
		return -EINVAL;
	pc = c->use_sheaves ? pthread_getspecific(c->key) : NULL;
	rgi_lock(&c->lock);
	if (pc) {
		slabs_put(c, pc->main->size, sheaf_objs(pc->main));
		slabs_put(c, pc->spare->size, sheaf_objs(pc->spare));
		pc->main->size = pc->spare->size = 0;
	}
	while ((sh = barn_get_full(c))) {
		slabs_put(c, sh->size, sheaf_objs(sh));
		free(sh);
	}
	barn_drain_empty(c);
	while (c->lists[LIST_EMPTY]) {
		slab_unmap(c, c->lists[LIST_EMPTY]);
		n++;
	}
	rgi_unlock(&c->lock);
	return n;
}

int rg_slab_get_stats(struct rg_slab_cache *c, struct rg_slab_stats *st)
{
	long in_use;

	if (!c || !st)
		return -EINVAL;
	rgi_lock(&c->lock);
	in_use = c->retired + ctr_get(&c->direct);
	for (struct rgi_pcs *pc = c->threads; pc; pc = pc->next)
		in_use += ctr_get(&pc->allocs) - ctr_get(&pc->frees);
	if (in_use < 0)
		in_use = 0; /* racing with other threads' counters */
	memset(st, 0, sizeof(*st));
	st->object_size = c->size;
	st->object_stride = c->stride;
	st->slab_size = c->slab_size;
	st->objects_in_use = (size_t)in_use;
	st->objects_cached =
		c->out > (size_t)in_use ? c->out - (size_t)in_use : 0;
	st->objects_free = c->nslabs * c->nobj - c->out;
	st->slabs = c->nslabs;
	st->bytes_held = c->nslabs * c->slab_size;
	st->bytes_live = (size_t)in_use * c->size;
	st->bytes_held_peak = c->peak_slabs * c->slab_size;
	st->slab_allocs = c->slab_allocs;
	rgi_unlock(&c->lock);
	return 0;
}

size_t rg_slab_object_size(const struct rg_slab_cache *c)
{
	return c ? c->size : 0;
}

const char *rg_slab_name(const struct rg_slab_cache *c)
{
	return c ? c->name : NULL;
}

static const char *validate_slab(struct rg_slab_cache *c, struct rgi_slab *s,
				 enum slab_list l)
{
	uint64_t *map = slab_out_map(c, s);
	unsigned int out = 0;

	if (s->magic != SLAB_MAGIC || s->cache != c)
		return "slab header corrupt";
	if ((uintptr_t)s & (c->slab_size - 1))
		return "slab misaligned";
	if (s->list != l || list_for(c, s) != l)
		return "slab on the wrong list";
	if (s->nfree > c->nobj)
		return "slab free count wrong";
	for (unsigned int i = 0; i < c->nobj; i++)
		out += out_test(map, i);
	if (out != slab_inuse(c, s))
		return "slab out bitmap disagrees with count";
	for (unsigned int k = 0; k < s->nfree; k++) {
		unsigned int i = s->free[k];

		if (i >= c->nobj || out_test(map, i))
			return "slab free stack corrupt";
		out_flip(map, i); /* mark to catch duplicates */
	}
	for (unsigned int k = 0; k < s->nfree; k++)
		out_flip(map, s->free[k]);
	for (unsigned int i = 0; i < c->nobj; i++) {
		char *o = slab_obj(c, s, i);

		if ((c->flags & RG_SLAB_RED_ZONE) && !guards_intact(c, o))
			return "red zone overwritten";
		if (poisons(c) && !out_test(map, i) && !poison_intact(c, o))
			return "poison overwritten";
	}
	return NULL;
}

static const char *validate_sheaf(struct rg_slab_cache *c,
				  struct rg_slab_sheaf *sh)
{
	if (sh->size > sh->capacity)
		return "sheaf overfull";
	for (unsigned int k = 0; k < sh->size; k++) {
		struct rgi_slab *s = obj_slab(c, sheaf_objs(sh)[k]);
		size_t off = (size_t)((char *)sheaf_objs(sh)[k] - (char *)s) -
			     c->hdr_size - c->obj_off;

		if (s->magic != SLAB_MAGIC || s->cache != c ||
		    off % c->stride ||
		    !out_test(slab_out_map(c, s),
			      (unsigned int)(off / c->stride)))
			return "sheaf holds an object not out of its slab";
	}
	return NULL;
}

int rg_slab_validate(struct rg_slab_cache *c, const char **reason)
{
	const char *why = NULL;
	size_t slabs = 0, out = 0;
	unsigned int nf = 0, ne = 0;

	if (!c) {
		why = "NULL cache";
		goto done;
	}
	rgi_lock(&c->lock);
	for (int l = 0; l < NR_LISTS && !why; l++) {
		for (struct rgi_slab *s = c->lists[l]; s && !why; s = s->next) {
			if (s->next && s->next->prev != s)
				why = "slab list links broken";
			else
				why = validate_slab(c, s, (enum slab_list)l);
			slabs++;
			out += slab_inuse(c, s);
		}
	}
	if (!why && (slabs != c->nslabs || out != c->out))
		why = "slab totals wrong";
	for (struct rg_slab_sheaf *sh = c->barn_full; sh && !why;
	     sh = sh->next, nf++)
		if (sh->size != sh->capacity)
			why = "barn sheaf not full";
		else
			why = validate_sheaf(c, sh);
	for (struct rg_slab_sheaf *sh = c->barn_empty; sh && !why;
	     sh = sh->next, ne++)
		if (sh->size)
			why = "barn sheaf not empty";
	if (!why && (nf != c->nbarn_full || ne != c->nbarn_empty))
		why = "barn counts wrong";
	for (struct rgi_pcs *pc = c->threads; pc && !why; pc = pc->next) {
		why = validate_sheaf(c, pc->main);
		if (!why)
			why = validate_sheaf(c, pc->spare);
	}
	rgi_unlock(&c->lock);
done:
	if (reason)
		*reason = why;
	return why ? -EINVAL : 0;
}

void rg_slab_dump(struct rg_slab_cache *c, FILE *f)
{
	static const char *const names[NR_LISTS] = { "partial", "full",
						     "empty" };
	struct rg_slab_stats st;

	if (!c || !f)
		return;
	rg_slab_get_stats(c, &st);
	fprintf(f,
		"slab cache '%s': size %zu align %zu stride %zu, %u objects "
		"per %zu-byte slab, sheaves of %u%s\n",
		c->name, c->size, c->align, c->stride, c->nobj, c->slab_size,
		c->sheaf_cap, c->use_sheaves ? "" : " (unused: debug)");
	fprintf(f,
		"  in use %zu, cached %zu, free in slabs %zu; %zu slabs, "
		"%zu bytes held (peak %zu)\n",
		st.objects_in_use, st.objects_cached, st.objects_free, st.slabs,
		st.bytes_held, st.bytes_held_peak);
	rgi_lock(&c->lock);
	for (int l = 0; l < NR_LISTS; l++)
		for (struct rgi_slab *s = c->lists[l]; s; s = s->next)
			fprintf(f, "  slab %p %-7s %u/%u out\n", (void *)s,
				names[l], slab_inuse(c, s), c->nobj);
	fprintf(f, "  barn: %u full, %u empty sheaves\n", c->nbarn_full,
		c->nbarn_empty);
	for (struct rgi_pcs *pc = c->threads; pc; pc = pc->next)
		fprintf(f, "  thread state %p: main %u/%u, spare %u/%u\n",
			(void *)pc, pc->main->size, pc->main->capacity,
			pc->spare->size, pc->spare->capacity);
	rgi_unlock(&c->lock);
}
