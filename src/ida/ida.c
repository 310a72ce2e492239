// SPDX-License-Identifier: MIT
/*
 * IDA: theory of operation.
 *
 * An IDA is an allocating xarray (RG_XA_FLAGS_ALLOC) of chunks: index n
 * covers IDs 1024n .. 1024n + 1023. A chunk is stored in one of three ways:
 *  - nothing: every ID of the chunk is free;
 *  - a value entry whose integer holds the chunk's bits, while only its
 *    lowest 63 IDs (the bits of a value entry) are in use: no memory;
 *  - a pointer to a 128-byte bitmap (struct ida_bitmap) from a process-wide
 *    slab cache, once an ID at or above 63 is needed. A chunk never goes
 *    back from a bitmap to a value entry (freeing never allocates or
 *    converts); a chunk whose last ID is freed is erased, bitmap and all.
 *
 * The xarray's free mark is the IDA's index of chunks with a free ID: every
 * empty slot and every value chunk has it (a value entry uses at most 63 of
 * 1024 IDs), and a bitmap chunk has it unless all 1024 bits are set. The
 * IDA sets and clears the mark itself (rg_xas_set_mark() and
 * rg_xas_clear_mark(): the advanced xarray API keeps the mark of a slot as
 * it is when an entry is stored there); the xarray's node bitmaps then let
 * a search skip full regions in one step per level. The IDA uses the
 * xarray only through <region/xarray.h>, its normal and advanced calls.
 *
 * Allocation: find the first chunk at or after min / 1024 with the free mark
 * (rg_xas_find_marked()), then the first zero bit at or after the start bit in
 * it; only the chunk of min itself can be free but not above the start bit, in
 * which case the search moves on to the next chunk. The hint free_lo (every ID
 * below it is allocated) lets the common sequential case start at the right
 * word instead of rescanning full ones: a search from min may start at
 * max(min, free_lo) because IDs in [min, free_lo) are all taken. It grows when
 * an allocation whose min is at most free_lo succeeds, and falls to any freed
 * ID below it.
 *
 * Lookups: rg_ida_find_free_range() is the allocation's search without the
 * take (from max(min, free_lo), by the free mark); rg_ida_find_first_range()
 * walks the present chunks with rg_xas_find(), and as no chunk is ever
 * empty, only the chunk of min itself can yield nothing (its IDs all below
 * min), so it looks at two chunks at most. Neither allocates or changes
 * anything, the hint included.
 *
 * Fast path: the IDA keeps a walked xarray state (struct rg_xa_state,
 * ida->hint) on the chunk where the last allocation from free_lo landed.
 * While free_lo stays in that chunk and the chunk is a bitmap with a zero
 * bit at or above it, an allocation is one rg_xas_reload(), one word scan
 * and one bit set, with no walk from the root; a free in that chunk skips
 * the walk too, and a free elsewhere moves the hint to its own chunk (a
 * bitmap that stays), where reuse will look. The hint is dropped whenever
 * the IDA changes the xarray's shape (a new chunk stored, a chunk erased,
 * destroy), since only then can a slot move or its node be freed; a value
 * entry turning into a bitmap is a store on the same walked slot.
 *
 * Memory: an allocation needs at most one bitmap (allocated first) and the
 * xarray nodes for a new chunk (allocated by the xarray in one bulk call
 * before it changes anything); if the second fails the first is given back,
 * so -ENOMEM leaves the IDA exactly as it was. Freeing, destroy, lookups
 * and validate never allocate.
 *
 * Locking: every call takes the xarray's mutex. Limits: IDs 0 .. INT_MAX.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>

#include "region/bitmap.h"
#include "region/ida.h"
#include "region/slab.h"
#include "region/xarray.h"
#include "rg_internal.h"

#define IDA_BITS RG_IDA_BITMAP_BITS
#define IDA_LONG_BITS ((unsigned int)RG_BITS_PER_LONG)
#define IDA_WORDS RG_BITS_TO_LONGS(IDA_BITS)
/* IDs a value entry holds: every bit of a long but the tag bit. */
#define IDA_VALUE_BITS (IDA_LONG_BITS - 1)
#define IDA_VALUE_MASK (~0UL >> 1)
#define IDA_MAX_CHUNK (RG_IDA_MAX / IDA_BITS)

struct ida_bitmap {
	unsigned long bits[IDA_WORDS];
};

/* ---- the bitmap cache ---- */

static struct rg_slab_cache *ida_cache;
static pthread_mutex_t ida_cache_lock = PTHREAD_MUTEX_INITIALIZER;

static struct rg_slab_cache *ida_bitmap_cache(void)
{
	struct rg_slab_cache *c = __atomic_load_n(&ida_cache, __ATOMIC_ACQUIRE);

	if (likely(c))
		return c;
	pthread_mutex_lock(&ida_cache_lock);
	c = ida_cache;
	if (!c) {
		c = rg_slab_create("rg_ida_bitmap", sizeof(struct ida_bitmap),
				   0, 0, NULL);
		if (c)
			__atomic_store_n(&ida_cache, c, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&ida_cache_lock);
	return c;
}

static struct ida_bitmap *ida_bitmap_alloc(struct rg_ida *ida)
{
	struct rg_slab_cache *c = ida_bitmap_cache();
	struct ida_bitmap *bm;

	if (!c)
		return NULL;
	bm = rg_slab_alloc(c);
	if (!bm)
		return NULL;
	memset(bm, 0, sizeof(*bm));
	ida->nr_bitmaps++;
	return bm;
}

static void ida_bitmap_free(struct rg_ida *ida, struct ida_bitmap *bm)
{
	ida->nr_bitmaps--;
	rg_slab_free(__atomic_load_n(&ida_cache, __ATOMIC_ACQUIRE), bm);
}

/* ---- bit helpers (the rest is <region/bitmap.h>) ---- */

/*
 * First zero bit at or after @bit, or IDA_BITS: inline, as the hinted
 * allocation path of every rg_ida_alloc() runs it.
 */
static inline unsigned int bm_next_zero(const struct ida_bitmap *bm,
					unsigned int bit)
{
	unsigned int w = bit / IDA_LONG_BITS;
	unsigned long z = ~bm->bits[w] & (~0UL << (bit % IDA_LONG_BITS));

	for (;;) {
		if (z)
			return w * IDA_LONG_BITS +
			       (unsigned int)__builtin_ctzl(z);
		if (++w == IDA_WORDS)
			return IDA_BITS;
		z = ~bm->bits[w];
	}
}

static bool bm_full(const struct ida_bitmap *bm)
{
	return rg_bitmap_range_is_set(bm->bits, 0, IDA_BITS);
}

static bool bm_empty(const struct ida_bitmap *bm)
{
	return rg_bitmap_range_is_clear(bm->bits, 0, IDA_BITS);
}

/*
 * Take the first free bit at or after @bit of the bitmap @bm of the chunk
 * @xas is on if its ID (@base + bit) is at most @max, and clear the chunk's
 * free mark when the bitmap fills. Returns the bit, or IDA_BITS for none.
 */
static inline unsigned int bm_take(struct ida_bitmap *bm, unsigned int bit,
				   unsigned long base, unsigned long max,
				   const struct rg_xa_state *xas)
{
	unsigned int pos = bm_next_zero(bm, bit);
	unsigned long *w;

	if (pos == IDA_BITS || base + pos > max)
		return IDA_BITS;
	w = &bm->bits[pos / IDA_LONG_BITS];
	*w |= 1UL << (pos % IDA_LONG_BITS);
	if (*w == ~0UL && bm_full(bm))
		rg_xas_clear_mark(xas, RG_XA_FREE_MARK);
	return pos;
}

/* ---- allocation ---- */

static inline void ida_hint_drop(struct rg_ida *ida)
{
	ida->hint.xa = NULL;
	ida->hint_bm = NULL;
}

static inline bool ida_hint_on(const struct rg_ida *ida, unsigned long chunk)
{
	return ida->hint.xa && ida->hint.xa_index == chunk;
}

/* Remember @xas, walked to a chunk that stays, holding @entry. */
static inline void ida_hint_set(struct rg_ida *ida,
				const struct rg_xa_state *xas, void *entry)
{
	ida->hint = *xas;
	ida->hint.xa_alloc = NULL;
	ida->hint_bm = rg_xa_is_value(entry) ? NULL : entry;
}

/* A new chunk at the index of @xas holding only @bit. */
static int ida_new_chunk(struct rg_ida *ida, struct rg_xa_state *xas,
			 unsigned int bit)
{
	struct ida_bitmap *bm = NULL;
	void *entry;

	if (bit < IDA_VALUE_BITS) {
		entry = rg_xa_mk_value(1UL << bit);
	} else {
		bm = ida_bitmap_alloc(ida);
		if (!bm)
			return -ENOMEM;
		rg_bitmap_set(bm->bits, bit);
		entry = bm;
	}
	/* The empty slot's free mark stays: the chunk has free IDs. */
	rg_xas_store(xas, entry);
	if (rg_xas_error(xas)) {
		if (bm)
			ida_bitmap_free(ida, bm);
		return -ENOMEM;
	}
	ida_hint_drop(ida);
	return 0;
}

/*
 * The IDA's lock is its xarray's pthread mutex (part of the ABI), whose
 * waiters sleep at once: under contention every call would then pay a
 * futex wait and wake, and two threads would get less done than one. So
 * ida_lock() first waits, spinning a little and only reading the mutex's
 * word (glibc's lock word; no write, so the holder's lines stay put),
 * while the mutex is held, then takes it with rg_xa_lock(): a holder keeps
 * it for a few hundred instructions, so the spin usually outlasts it.
 * Uncontended it costs one load.
 */
#ifdef __GLIBC__
#define IDA_LOCK_WORD(ida) (&(ida)->xa.lock.__data.__lock)
#endif

static RGI_NOINLINE void ida_lock_spin(struct rg_ida *ida)
{
#ifdef IDA_LOCK_WORD
	for (int i = 0; i < 128; i++) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
		if (!__atomic_load_n(IDA_LOCK_WORD(ida), __ATOMIC_RELAXED))
			return;
	}
#else
	(void)ida;
#endif
}

static inline void ida_lock(struct rg_ida *ida)
{
#ifdef IDA_LOCK_WORD
	if (unlikely(__atomic_load_n(IDA_LOCK_WORD(ida), __ATOMIC_RELAXED)))
		ida_lock_spin(ida);
#endif
	rg_xa_lock(&ida->xa);
}

/* Lowest free ID in [start, max] (both <= INT_MAX); lock held. */
static int ida_alloc_locked(struct rg_ida *ida, unsigned long start,
			    unsigned long max, unsigned int *id,
			    struct rg_xa_state *xas)
{
	for (;;) {
		unsigned long chunk = start / IDA_BITS, base, got;
		unsigned int bit = start % IDA_BITS, pos;
		struct ida_bitmap *bm;
		void *entry;

		if (start > max)
			return -ENOSPC;
		rg_xas_set(xas, chunk);
		entry = rg_xas_find_marked(xas, max / IDA_BITS,
					   RG_XA_FREE_MARK);
		if (xas->xa_index > max / IDA_BITS)
			return -ENOSPC;
		if (xas->xa_index != chunk)
			bit = 0;
		base = xas->xa_index * IDA_BITS;
		if (!entry) {
			got = base + bit;
			if (got > max)
				return -ENOSPC;
			if (ida_new_chunk(ida, xas, bit))
				return -ENOMEM;
			*id = (unsigned int)got;
			return 0;
		}
		if (rg_xa_is_value(entry)) {
			unsigned long v = rg_xa_to_value(entry), z;

			pos = bit;
			if (bit < IDA_VALUE_BITS) {
				z = ~v & IDA_VALUE_MASK & (~0UL << bit);
				pos = z ? (unsigned int)__builtin_ctzl(z) :
					  IDA_VALUE_BITS;
			}
			got = base + pos;
			if (got > max)
				return -ENOSPC;
			if (pos < IDA_VALUE_BITS) {
				rg_xas_store(xas,
					     rg_xa_mk_value(v | (1UL << pos)));
			} else {
				/* Outgrows a value entry: same slot. */
				bm = ida_bitmap_alloc(ida);
				if (!bm)
					return -ENOMEM;
				bm->bits[0] = v;
				rg_bitmap_set(bm->bits, pos);
				rg_xas_store(xas, bm);
			}
			*id = (unsigned int)got;
			return 0;
		}
		pos = bm_take(entry, bit, base, max, xas);
		if (pos == IDA_BITS) {
			/*
			 * Free IDs only below the start bit, or above max
			 * (then the next chunk is too: -ENOSPC above).
			 */
			start = base + IDA_BITS;
			continue;
		}
		*id = (unsigned int)(base + pos);
		return 0;
	}
}

int rg_ida_alloc_range(struct rg_ida *ida, unsigned int min, unsigned int max,
		       unsigned int *id)
{
	unsigned int got = 0;
	bool hinted;
	int err;

	if (!ida || !id)
		return -EINVAL;
	if (min > RG_IDA_MAX)
		return -ENOSPC;
	if (max > RG_IDA_MAX)
		max = RG_IDA_MAX;
	if (min > max)
		return -ENOSPC;
	ida_lock(ida);
	hinted = min <= ida->free_lo;
	if (hinted && ida->hint_bm &&
	    ida->hint.xa_index == ida->free_lo / IDA_BITS) {
		/* The common path: no walk, no xarray call. */
		unsigned long base = ida->hint.xa_index * IDA_BITS;
		unsigned int pos =
			bm_take(ida->hint_bm, ida->free_lo % IDA_BITS, base,
				max, &ida->hint);

		if (pos < IDA_BITS) {
			got = (unsigned int)(base + pos);
			ida->free_lo = got + 1;
			rg_xa_unlock(&ida->xa);
			*id = got;
			return 0;
		}
	}
	{
		RG_XA_STATE(xas, &ida->xa, 0);

		err = ida_alloc_locked(ida, hinted ? ida->free_lo : min, max,
				       &got, &xas);
		if (!err && hinted) {
			ida->free_lo = got + 1;
			ida_hint_set(ida, &xas, rg_xas_reload(&xas));
		}
	}
	rg_xa_unlock(&ida->xa);
	if (!err)
		*id = got;
	return err;
}

/* ---- free and queries ---- */

int rg_ida_free(struct rg_ida *ida, unsigned int id)
{
	unsigned long chunk = id / IDA_BITS;
	unsigned int bit = id % IDA_BITS, w = bit / IDA_LONG_BITS;
	unsigned long mask = 1UL << (bit % IDA_LONG_BITS);
	struct rg_xa_state *s;
	struct ida_bitmap *bm;
	void *entry;
	int err = 0;

	if (!ida)
		return -EINVAL;
	if (id > RG_IDA_MAX)
		return -ENOENT;
	RG_XA_STATE(xas, &ida->xa, chunk);
	ida_lock(ida);
	if (ida_hint_on(ida, chunk)) {
		s = &ida->hint;
		entry = ida->hint_bm ? ida->hint_bm : rg_xas_reload(s);
	} else {
		s = &xas;
		entry = rg_xas_load(s);
	}
	if (!entry) {
		err = -ENOENT;
	} else if (rg_xa_is_value(entry)) {
		unsigned long v = rg_xa_to_value(entry);

		if (bit >= IDA_VALUE_BITS || !(v & (1UL << bit))) {
			err = -ENOENT;
		} else if (!(v &= ~(1UL << bit))) {
			rg_xas_store(s, NULL);
			ida_hint_drop(ida);
		} else {
			rg_xas_store(s, rg_xa_mk_value(v));
		}
	} else {
		bool was_full;

		bm = entry;
		if (!(bm->bits[w] & mask)) {
			err = -ENOENT;
			goto out;
		}
		was_full = bm->bits[w] == ~0UL && bm_full(bm);
		bm->bits[w] &= ~mask;
		if (!bm->bits[w] && bm_empty(bm)) {
			rg_xas_store(s, NULL);
			ida_hint_drop(ida);
			ida_bitmap_free(ida, bm);
		} else {
			if (was_full)
				rg_xas_set_mark(s, RG_XA_FREE_MARK);
			/* Keep this chunk: frees in a row and reuse hit it. */
			if (s != &ida->hint)
				ida_hint_set(ida, s, bm);
		}
	}
	if (!err && id < ida->free_lo)
		ida->free_lo = id;
out:
	rg_xa_unlock(&ida->xa);
	return err;
}

bool rg_ida_exists(struct rg_ida *ida, unsigned int id)
{
	unsigned int bit = id % IDA_BITS;
	void *entry;
	bool r = false;

	if (unlikely(!ida) || id > RG_IDA_MAX)
		return false;
	RG_XA_STATE(xas, &ida->xa, id / IDA_BITS);
	rg_xa_lock(&ida->xa);
	entry = rg_xas_load(&xas);
	if (entry && rg_xa_is_value(entry))
		r = bit < IDA_VALUE_BITS &&
		    ((rg_xa_to_value(entry) >> bit) & 1);
	else if (entry)
		r = rg_bitmap_test(((struct ida_bitmap *)entry)->bits, bit);
	rg_xa_unlock(&ida->xa);
	return r;
}

/* ---- lookups by range ---- */

/* Lowest allocated ID in [min, max] (max <= INT_MAX); lock held. */
static int ida_find_used_locked(struct rg_ida *ida, unsigned long min,
				unsigned long max, unsigned int *id)
{
	unsigned long first = min / IDA_BITS, last = max / IDA_BITS, base;
	RG_XA_STATE(xas, &ida->xa, first);
	unsigned int bit, pos;
	void *entry;

	/* Chunks are never empty: past the first, the lowest bit is it. */
	for (entry = rg_xas_find(&xas, last); entry;
	     entry = rg_xas_find(&xas, last)) {
		bit = xas.xa_index == first ? (unsigned int)(min % IDA_BITS) :
					      0;
		base = xas.xa_index * IDA_BITS;
		if (rg_xa_is_value(entry)) {
			unsigned long v = rg_xa_to_value(entry);

			v = bit < IDA_VALUE_BITS ? v & (~0UL << bit) : 0;
			pos = v ? (unsigned int)__builtin_ctzl(v) : IDA_BITS;
		} else {
			struct ida_bitmap *bm = entry;

			pos = (unsigned int)rg_bitmap_find_next_bit(
				bm->bits, IDA_BITS, bit);
		}
		if (pos == IDA_BITS)
			continue; /* only the first chunk, below @min */
		if (base + pos > max)
			return -ENOENT;
		*id = (unsigned int)(base + pos);
		return 0;
	}
	return -ENOENT;
}

/* Lowest free ID in [min, max] (max <= INT_MAX); lock held. */
static int ida_find_free_locked(struct rg_ida *ida, unsigned long min,
				unsigned long max, unsigned int *id)
{
	unsigned long start = min, last = max / IDA_BITS, chunk, base;
	RG_XA_STATE(xas, &ida->xa, 0);
	unsigned int bit, pos;
	void *entry;

	while (start <= max) {
		chunk = start / IDA_BITS;
		bit = (unsigned int)(start % IDA_BITS);
		rg_xas_set(&xas, chunk);
		entry = rg_xas_find_marked(&xas, last, RG_XA_FREE_MARK);
		if (xas.xa_index > last)
			return -ENOENT;
		if (xas.xa_index != chunk)
			bit = 0;
		base = xas.xa_index * IDA_BITS;
		if (!entry ||
		    (rg_xa_is_value(entry) && bit >= IDA_VALUE_BITS)) {
			/* An empty chunk; a value holds no ID from 63 up. */
			pos = bit;
		} else if (rg_xa_is_value(entry)) {
			unsigned long z = ~rg_xa_to_value(entry) &
					  IDA_VALUE_MASK & (~0UL << bit);

			pos = z ? (unsigned int)__builtin_ctzl(z) :
				  IDA_VALUE_BITS;
		} else {
			pos = bm_next_zero(entry, bit);
		}
		if (pos < IDA_BITS) {
			if (base + pos > max)
				return -ENOENT;
			*id = (unsigned int)(base + pos);
			return 0;
		}
		/* Free IDs only below the start bit: the next chunk. */
		start = base + IDA_BITS;
	}
	return -ENOENT;
}

/* The two lookups: the lowest allocated (or free) ID in [min, max]. */
static int ida_find(struct rg_ida *ida, unsigned int min, unsigned int max,
		    unsigned int *id, bool free)
{
	int err;

	if (!ida || !id)
		return -EINVAL;
	if (min > RG_IDA_MAX || min > max)
		return -ENOENT;
	if (max > RG_IDA_MAX)
		max = RG_IDA_MAX;
	rg_xa_lock(&ida->xa);
	if (free) /* every ID below free_lo is taken */
		err = ida_find_free_locked(ida, RGI_MAX(min, ida->free_lo), max,
					   id);
	else
		err = ida_find_used_locked(ida, min, max, id);
	rg_xa_unlock(&ida->xa);
	return err;
}

int rg_ida_find_first_range(struct rg_ida *ida, unsigned int min,
			    unsigned int max, unsigned int *id)
{
	return ida_find(ida, min, max, id, false);
}

int rg_ida_find_free_range(struct rg_ida *ida, unsigned int min,
			   unsigned int max, unsigned int *id)
{
	return ida_find(ida, min, max, id, true);
}

void rg_ida_init(struct rg_ida *ida)
{
	if (unlikely(!ida))
		return;
	rg_xa_init_flags(&ida->xa, RG_XA_FLAGS_ALLOC);
	ida->free_lo = 0;
	ida->nr_bitmaps = 0;
	memset(&ida->hint, 0, sizeof(ida->hint));
	ida->hint_bm = NULL;
}

void rg_ida_destroy(struct rg_ida *ida)
{
	void *entry;

	if (unlikely(!ida))
		return;
	RG_XA_STATE(xas, &ida->xa, 0);
	rg_xa_lock(&ida->xa);
	rg_xas_for_each(&xas, entry, ULONG_MAX)
	{
		if (!rg_xa_is_value(entry))
			ida_bitmap_free(ida, entry);
		rg_xas_store(&xas, NULL);
	}
	ida_hint_drop(ida);
	ida->free_lo = 0;
	rg_xa_unlock(&ida->xa);
}

/* Lock held. */
static bool ida_empty(struct rg_ida *ida)
{
	RG_XA_STATE(xas, &ida->xa, 0);

	return rg_xas_find(&xas, ULONG_MAX) == NULL;
}

bool rg_ida_is_empty(struct rg_ida *ida)
{
	bool r;

	if (unlikely(!ida))
		return false;
	rg_xa_lock(&ida->xa);
	r = ida_empty(ida);
	rg_xa_unlock(&ida->xa);
	return r;
}

/* Lock held. */
static size_t ida_bytes(const struct rg_ida *ida)
{
	return ida->nr_bitmaps * sizeof(struct ida_bitmap) +
	       rg_xa_bytes_locked(&ida->xa) - sizeof(ida->xa) + sizeof(*ida);
}

size_t rg_ida_bytes(struct rg_ida *ida)
{
	size_t r;

	if (unlikely(!ida))
		return 0;
	rg_xa_lock(&ida->xa);
	r = ida_bytes(ida);
	rg_xa_unlock(&ida->xa);
	return r;
}

size_t rg_ida_bitmap_count(struct rg_ida *ida)
{
	size_t r;

	if (unlikely(!ida))
		return 0;
	rg_xa_lock(&ida->xa);
	r = ida->nr_bitmaps;
	rg_xa_unlock(&ida->xa);
	return r;
}

int rg_ida_bitmap_cache_stats(struct rg_slab_stats *st)
{
	struct rg_slab_cache *c;

	if (!st)
		return -EINVAL;
	c = __atomic_load_n(&ida_cache, __ATOMIC_ACQUIRE);
	if (!c) {
		memset(st, 0, sizeof(*st));
		return 0;
	}
	return rg_slab_get_stats(c, st);
}

/* ---- validate and dump ---- */

static const char *ida_check(struct rg_ida *ida)
{
	RG_XA_STATE(xas, &ida->xa, 0);
	unsigned long i = 0, lowest_free = ULONG_MAX;
	size_t bitmaps = 0;
	const char *why = NULL;
	void *entry;

	if (rg_xa_validate_locked(&ida->xa, RG_XA_VALIDATE_OWNER_FREE, &why))
		return why;
	if (ida->xa.flags != RG_XA_FLAGS_ALLOC)
		return "IDA xarray is not a plain allocating array";
	rg_xas_for_each(&xas, entry, ULONG_MAX)
	{
		bool free_mark = rg_xas_get_mark(&xas, RG_XA_FREE_MARK);
		unsigned long c = xas.xa_index;
		unsigned int first_zero;

		if (c > IDA_MAX_CHUNK)
			return "chunk beyond INT_MAX";
		if (lowest_free == ULONG_MAX && c != i)
			lowest_free = i * IDA_BITS;
		if (rg_xa_is_value(entry)) {
			unsigned long v = rg_xa_to_value(entry);

			if (!v)
				return "empty value chunk not released";
			if (!free_mark)
				return "value chunk without the free mark";
			first_zero = (unsigned int)__builtin_ctzl(~v);
		} else {
			struct ida_bitmap *bm = entry;

			if (rg_xa_is_internal(entry) || ((uintptr_t)entry & 7))
				return "chunk is not a bitmap pointer";
			bitmaps++;
			if (bm_empty(bm))
				return "empty bitmap chunk not released";
			if (free_mark == bm_full(bm))
				return "free mark disagrees with bitmap";
			first_zero = bm_next_zero(bm, 0);
		}
		if (lowest_free == ULONG_MAX && first_zero < IDA_BITS)
			lowest_free = c * IDA_BITS + first_zero;
		i = c + 1;
	}
	if (lowest_free == ULONG_MAX)
		lowest_free = i * IDA_BITS;
	if (bitmaps != ida->nr_bitmaps)
		return "bitmap count disagrees";
	if (ida->free_lo > lowest_free)
		return "hint above the lowest free ID";
	if (!ida->hint.xa && ida->hint_bm)
		return "cached bitmap without a cached slot";
	if (ida->hint.xa) {
		RG_XA_STATE(chk, &ida->xa, ida->hint.xa_index);
		void *e = rg_xas_load(&chk);

		if (ida->hint.xa != &ida->xa || !e ||
		    (ida->hint_bm && ida->hint_bm != e) ||
		    chk.xa_node != ida->hint.xa_node ||
		    chk.xa_offset != ida->hint.xa_offset || ida->hint.xa_alloc)
			return "cached slot is stale";
	}
	return NULL;
}

int rg_ida_validate(struct rg_ida *ida, const char **reason)
{
	const char *why = "NULL IDA";

	if (likely(ida)) {
		rg_xa_lock(&ida->xa);
		why = ida_check(ida);
		rg_xa_unlock(&ida->xa);
	}
	if (reason)
		*reason = why;
	return why ? -EINVAL : 0;
}

static void ida_dump_chunk(FILE *f, unsigned long index, void *entry)
{
	unsigned long base = index * IDA_BITS;

	if (rg_xa_is_value(entry)) {
		unsigned long v = rg_xa_to_value(entry);

		fprintf(f, "IDs %lu..%lu value %#lx (%d in use)\n", base,
			base + IDA_BITS - 1, v, __builtin_popcountl(v));
	} else {
		struct ida_bitmap *bm = entry;

		fprintf(f, "IDs %lu..%lu bitmap %p (%u in use)\n", base,
			base + IDA_BITS - 1, entry,
			(unsigned int)rg_bitmap_weight(bm->bits, IDA_BITS));
	}
}

void rg_ida_dump(struct rg_ida *ida, FILE *f)
{
	if (unlikely(!ida || !f))
		return;
	rg_xa_lock(&ida->xa);
	fprintf(f, "ida %p bitmaps %zu free_lo %u bytes %zu\n", (void *)ida,
		ida->nr_bitmaps, ida->free_lo, ida_bytes(ida));
	rg_xa_dump_locked(&ida->xa, f, ida_dump_chunk);
	rg_xa_unlock(&ida->xa);
}
