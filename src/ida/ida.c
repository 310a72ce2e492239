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
 * IDA sets and clears the mark itself (rgi_xa_set_free()); the xarray's
 * node bitmaps then let a search skip full regions in one step per level.
 *
 * Allocation: find the first chunk at or after min / 1024 with the free mark
 * (rgi_xa_seek), then the first zero bit at or after the start bit in it;
 * only the chunk of min itself can be free but not above the start bit, in
 * which case the search moves on to the next chunk. The hint free_lo (every
 * ID below it is allocated) lets the common sequential case start at the
 * right word instead of rescanning full ones: a search from min may start at
 * max(min, free_lo) because IDs in [min, free_lo) are all taken. It grows
 * when an allocation whose min is at most free_lo succeeds, and falls to any
 * freed ID below it.
 *
 * Fast path: the IDA caches the xarray slot (and its leaf) of the chunk
 * where the last allocation from free_lo landed. While free_lo stays in
 * that chunk and the chunk is a bitmap with a zero bit at or above it, an
 * allocation is one word scan and one bit set, with no walk from the root;
 * a free in that chunk skips the walk too, and a free elsewhere moves the
 * cache to its own chunk (a bitmap that stays), where reuse will look. The cache is dropped whenever the
 * IDA changes the xarray's shape (a new chunk stored, a chunk erased,
 * destroy), since only then can a slot move or its node be freed; a value
 * entry turning into a bitmap replaces the slot's content in place.
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
#include "rg_internal.h"
#include "xarray/xa_internal.h"

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
 * Take the first free bit at or after @bit of chunk @chunk's bitmap if its
 * ID (@base + bit) is at most @max, and clear the chunk's free mark (in
 * @leaf) when the bitmap fills. Returns the bit, or IDA_BITS for none.
 */
static inline unsigned int bm_take(struct rg_ida *ida, struct ida_bitmap *bm,
				   unsigned int bit, unsigned long base,
				   unsigned long max, void *leaf,
				   unsigned long chunk)
{
	unsigned int pos = bm_next_zero(bm, bit);
	unsigned long *w;

	if (pos == IDA_BITS || base + pos > max)
		return IDA_BITS;
	w = &bm->bits[pos / IDA_LONG_BITS];
	*w |= 1UL << (pos % IDA_LONG_BITS);
	if (*w == ~0UL && bm_full(bm))
		rgi_xa_set_free(&ida->xa, leaf, chunk, false);
	return pos;
}

/* ---- allocation ---- */

static inline void ida_hint_drop(struct rg_ida *ida)
{
	ida->hint_slot = NULL;
	ida->hint_leaf = NULL;
}

/* Cache the slot of @chunk (which must exist). */
static void ida_hint_set(struct rg_ida *ida, unsigned long chunk)
{
	struct rg_xa_node *leaf;

	ida->hint_slot = rgi_xa_slot(&ida->xa, chunk, &leaf);
	ida->hint_leaf = leaf;
	ida->hint_chunk = chunk;
}

/* A new chunk at @chunk holding only @bit. */
static int ida_new_chunk(struct rg_ida *ida, unsigned long chunk,
			 unsigned int bit)
{
	struct ida_bitmap *bm = NULL;
	void *entry;
	int err;

	if (bit < IDA_VALUE_BITS) {
		entry = rg_xa_mk_value(1UL << bit);
	} else {
		bm = ida_bitmap_alloc(ida);
		if (!bm)
			return -ENOMEM;
		rg_bitmap_set(bm->bits, bit);
		entry = bm;
	}
	err = rgi_xa_store_locked(&ida->xa, chunk, entry, NULL, false);
	if (err && bm)
		ida_bitmap_free(ida, bm);
	if (!err)
		ida_hint_drop(ida);
	return err;
}

/* Lowest free ID in [start, max] (both <= INT_MAX); lock held. */
static int ida_alloc_locked(struct rg_ida *ida, unsigned long start,
			    unsigned long max, unsigned int *id)
{
	struct rgi_xa_cursor c;

	for (;;) {
		unsigned long chunk = start / IDA_BITS, base, got;
		unsigned int bit = start % IDA_BITS, pos;
		struct ida_bitmap *bm;
		void *entry;

		if (start > max || !rgi_xa_seek(&ida->xa, chunk, max / IDA_BITS,
						RGI_XA_FILTER_FREE, &c))
			return -ENOSPC;
		if (c.index != chunk)
			bit = 0;
		base = c.index * IDA_BITS;
		entry = c.slot ? *c.slot : NULL;
		if (!entry) {
			got = base + bit;
			if (got > max)
				return -ENOSPC;
			if (ida_new_chunk(ida, c.index, bit))
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
				*c.slot = rg_xa_mk_value(v | (1UL << pos));
			} else {
				/* Outgrows a value entry: convert in place. */
				bm = ida_bitmap_alloc(ida);
				if (!bm)
					return -ENOMEM;
				bm->bits[0] = v;
				rg_bitmap_set(bm->bits, pos);
				*c.slot = bm;
			}
			*id = (unsigned int)got;
			return 0;
		}
		pos = bm_take(ida, entry, bit, base, max, c.node, c.index);
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
	rgi_xa_lock(&ida->xa);
	hinted = min <= ida->free_lo;
	if (hinted && ida->hint_slot &&
	    ida->hint_chunk == ida->free_lo / IDA_BITS) {
		void *entry = *ida->hint_slot;

		if (!rg_xa_is_value(entry)) {
			/* The common path: no walk from the root. */
			unsigned long base = ida->hint_chunk * IDA_BITS;
			unsigned int pos = bm_take(
				ida, entry, ida->free_lo % IDA_BITS, base, max,
				ida->hint_leaf, ida->hint_chunk);

			if (pos < IDA_BITS) {
				got = (unsigned int)(base + pos);
				ida->free_lo = got + 1;
				rgi_xa_unlock(&ida->xa);
				*id = got;
				return 0;
			}
		}
	}
	err = ida_alloc_locked(ida, hinted ? ida->free_lo : min, max, &got);
	if (!err && hinted) {
		ida->free_lo = got + 1;
		if (!ida->hint_slot || ida->hint_chunk != got / IDA_BITS)
			ida_hint_set(ida, got / IDA_BITS);
	}
	rgi_xa_unlock(&ida->xa);
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
	struct rg_xa_node *leaf;
	struct ida_bitmap *bm;
	void **slot, *entry;
	int err = 0;

	if (!ida)
		return -EINVAL;
	if (id > RG_IDA_MAX)
		return -ENOENT;
	rgi_xa_lock(&ida->xa);
	if (ida->hint_slot && ida->hint_chunk == chunk) {
		slot = ida->hint_slot;
		leaf = ida->hint_leaf;
	} else {
		slot = rgi_xa_slot(&ida->xa, chunk, &leaf);
	}
	entry = slot ? *slot : NULL;
	if (!entry) {
		err = -ENOENT;
	} else if (rg_xa_is_value(entry)) {
		unsigned long v = rg_xa_to_value(entry);

		if (bit >= IDA_VALUE_BITS || !(v & (1UL << bit)))
			err = -ENOENT;
		else if (!(v &= ~(1UL << bit))) {
			rgi_xa_erase_locked(&ida->xa, chunk);
			ida_hint_drop(ida);
		} else
			*slot = rg_xa_mk_value(v);
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
			rgi_xa_erase_locked(&ida->xa, chunk);
			ida_hint_drop(ida);
			ida_bitmap_free(ida, bm);
		} else {
			if (was_full)
				rgi_xa_set_free(&ida->xa, leaf, chunk, true);
			/* Cache this chunk: frees in a row and reuse hit it. */
			ida->hint_slot = slot;
			ida->hint_leaf = leaf;
			ida->hint_chunk = chunk;
		}
	}
	if (!err && id < ida->free_lo)
		ida->free_lo = id;
out:
	rgi_xa_unlock(&ida->xa);
	return err;
}

bool rg_ida_exists(struct rg_ida *ida, unsigned int id)
{
	unsigned int bit = id % IDA_BITS;
	struct rg_xa_node *leaf;
	void **slot, *entry;
	bool r = false;

	if (unlikely(!ida) || id > RG_IDA_MAX)
		return false;
	rgi_xa_lock(&ida->xa);
	slot = rgi_xa_slot(&ida->xa, id / IDA_BITS, &leaf);
	entry = slot ? *slot : NULL;
	if (entry && rg_xa_is_value(entry))
		r = bit < IDA_VALUE_BITS &&
		    ((rg_xa_to_value(entry) >> bit) & 1);
	else if (entry)
		r = rg_bitmap_test(((struct ida_bitmap *)entry)->bits, bit);
	rgi_xa_unlock(&ida->xa);
	return r;
}

void rg_ida_init(struct rg_ida *ida)
{
	if (unlikely(!ida))
		return;
	rg_xa_init_flags(&ida->xa, RG_XA_FLAGS_ALLOC);
	ida->free_lo = 0;
	ida->nr_bitmaps = 0;
	ida_hint_drop(ida);
	ida->hint_chunk = 0;
}

void rg_ida_destroy(struct rg_ida *ida)
{
	struct rgi_xa_cursor c;
	unsigned long i = 0;

	if (unlikely(!ida))
		return;
	rgi_xa_lock(&ida->xa);
	while (rgi_xa_seek(&ida->xa, i, ULONG_MAX, RG_XA_PRESENT, &c)) {
		void *entry = *c.slot;

		if (!rg_xa_is_value(entry))
			ida_bitmap_free(ida, entry);
		i = c.index + 1;
	}
	rgi_xa_destroy_locked(&ida->xa);
	ida_hint_drop(ida);
	ida->free_lo = 0;
	rgi_xa_unlock(&ida->xa);
}

bool rg_ida_is_empty(struct rg_ida *ida)
{
	bool r;

	if (unlikely(!ida))
		return false;
	rgi_xa_lock(&ida->xa);
	r = ida->xa.head == NULL;
	rgi_xa_unlock(&ida->xa);
	return r;
}

size_t rg_ida_bytes(struct rg_ida *ida)
{
	size_t r;

	if (unlikely(!ida))
		return 0;
	rgi_xa_lock(&ida->xa);
	r = ida->nr_bitmaps * sizeof(struct ida_bitmap) +
	    rgi_xa_node_bytes(&ida->xa) + sizeof(*ida);
	rgi_xa_unlock(&ida->xa);
	return r;
}

size_t rg_ida_bitmap_count(struct rg_ida *ida)
{
	size_t r;

	if (unlikely(!ida))
		return 0;
	rgi_xa_lock(&ida->xa);
	r = ida->nr_bitmaps;
	rgi_xa_unlock(&ida->xa);
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

static bool ida_chunk_free_mark(struct rg_ida *ida, struct rgi_xa_cursor *c)
{
	if (!c->node)
		return ida->xa.head_marks & (1u << RG_XA_FREE_MARK);
	return (c->node->marks[RG_XA_FREE_MARK] >> (c->index % 64)) & 1;
}

static const char *ida_check(struct rg_ida *ida)
{
	struct rgi_xa_cursor c;
	unsigned long i = 0, lowest_free = ULONG_MAX;
	size_t bitmaps = 0;
	const char *why = NULL;

	if (rgi_xa_validate_locked(&ida->xa, true, &why))
		return why;
	if (ida->xa.flags != RG_XA_FLAGS_ALLOC)
		return "IDA xarray is not a plain allocating array";
	while (rgi_xa_seek(&ida->xa, i, ULONG_MAX, RG_XA_PRESENT, &c)) {
		void *entry = *c.slot;
		bool free_mark = ida_chunk_free_mark(ida, &c);
		unsigned int first_zero;

		if (c.index > IDA_MAX_CHUNK)
			return "chunk beyond INT_MAX";
		if (lowest_free == ULONG_MAX && c.index != i)
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

			if (rg_xa_is_reserved_entry(entry) ||
			    ((uintptr_t)entry & 7))
				return "chunk is not a bitmap pointer";
			bitmaps++;
			if (bm_empty(bm))
				return "empty bitmap chunk not released";
			if (free_mark == bm_full(bm))
				return "free mark disagrees with bitmap";
			first_zero = bm_next_zero(bm, 0);
		}
		if (lowest_free == ULONG_MAX && first_zero < IDA_BITS)
			lowest_free = c.index * IDA_BITS + first_zero;
		i = c.index + 1;
	}
	if (lowest_free == ULONG_MAX)
		lowest_free = i * IDA_BITS;
	if (bitmaps != ida->nr_bitmaps)
		return "bitmap count disagrees";
	if (ida->free_lo > lowest_free)
		return "hint above the lowest free ID";
	if (ida->hint_slot) {
		struct rg_xa_node *leaf;

		if (rgi_xa_slot(&ida->xa, ida->hint_chunk, &leaf) !=
			    ida->hint_slot ||
		    (void *)leaf != ida->hint_leaf || !*ida->hint_slot)
			return "cached slot is stale";
	} else if (ida->hint_leaf) {
		return "cached leaf without a slot";
	}
	return NULL;
}

int rg_ida_validate(struct rg_ida *ida, const char **reason)
{
	const char *why = "NULL IDA";

	if (likely(ida)) {
		rgi_xa_lock(&ida->xa);
		why = ida_check(ida);
		rgi_xa_unlock(&ida->xa);
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
	rgi_xa_lock(&ida->xa);
	fprintf(f, "ida %p bitmaps %zu free_lo %u bytes %zu\n", (void *)ida,
		ida->nr_bitmaps, ida->free_lo,
		ida->nr_bitmaps * sizeof(struct ida_bitmap) +
			rgi_xa_node_bytes(&ida->xa) + sizeof(*ida));
	rgi_xa_dump_locked(&ida->xa, f, ida_dump_chunk);
	rgi_xa_unlock(&ida->xa);
}
