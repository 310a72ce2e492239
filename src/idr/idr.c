// SPDX-License-Identifier: MIT
/*
 * IDR: theory of operation.
 *
 * An IDR is an allocating xarray (RG_XA_FLAGS_ALLOC) used only through
 * <region/xarray.h>: index n holds ID base + n, and rg_xa_alloc() finds the
 * lowest free index in a range, so the IDR adds no search of its own. The
 * IDR's state beyond the xarray is the base (constant) and the cursor of
 * cyclic allocation.
 *
 * Stored words: the xarray refuses entries whose two low bits are 10 and
 * reads a reserved index as NULL, while an IDR must hold any pointer and
 * tell an ID holding NULL from a free one (rg_idr_replace() succeeds on the
 * first, fails on the second). So every pointer is stored as a word:
 *  - a pointer p other than NULL is stored rotated left by two bits, which
 *    moves its two top bits to the bottom; the pointers whose top bits are
 *    10 (non-canonical on 64-bit x86 and arm64) are refused, and every other
 *    pointer gives a word the xarray accepts;
 *  - NULL is stored as the rotated address of a private marker object, an
 *    address no caller can hold, so an ID holding NULL is an ordinary
 *    present entry of the xarray.
 * The xarray therefore never holds a reservation for an IDR, and "is this
 * ID allocated" is "does the xarray have an entry there". Lookups and the
 * iterators decode the word and skip the marker.
 *
 * Memory: only allocation allocates (the xarray's nodes, all or nothing);
 * an -ENOMEM leaves the IDR, cursor included, as it was. Remove, replace,
 * lookups, iteration and validate never allocate.
 *
 * Locking: each call is one or more xarray calls, each under the xarray's
 * mutex. rg_idr_replace() is a compare-and-exchange loop, so it is atomic
 * against other callers. The cursor is a plain field: cyclic allocations
 * are serialised by the caller, as the header says.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "region/idr.h"
#include "region/xarray.h"

#define WORD_BITS (sizeof(uintptr_t) * CHAR_BIT)

/*
 * The stored form of NULL is this object's address, rotated. It is
 * writable (though never written) so that no compiler or linker option
 * that merges identical constants can give it another object's address.
 */
static uint32_t idr_null_marker;

static uintptr_t rotl2(uintptr_t w)
{
	return (w << 2) | (w >> (WORD_BITS - 2));
}

static uintptr_t rotr2(uintptr_t w)
{
	return (w >> 2) | (w << (WORD_BITS - 2));
}

/* True if @ptr can be stored: its two top bits are not 10. */
static bool idr_ptr_ok(const void *ptr)
{
	return ((uintptr_t)ptr >> (WORD_BITS - 2)) != 2;
}

static void *idr_encode(void *ptr)
{
	uintptr_t p = ptr ? (uintptr_t)ptr : (uintptr_t)&idr_null_marker;

	return (void *)rotl2(p);
}

/* The pointer a stored word stands for; the word must not be NULL. */
static void *idr_decode(void *word)
{
	uintptr_t p = rotr2((uintptr_t)word);

	return p == (uintptr_t)&idr_null_marker ? NULL : (void *)p;
}

void rg_idr_init_base(struct rg_idr *idr, unsigned int base)
{
	if (!idr)
		return;
	rg_xa_init_flags(&idr->xa, RG_XA_FLAGS_ALLOC);
	idr->base = base;
	idr->next = 0;
}

void rg_idr_init(struct rg_idr *idr)
{
	rg_idr_init_base(idr, 0);
}

int rg_idr_alloc_u32(struct rg_idr *idr, void *ptr, uint32_t *nextid,
		     unsigned long max)
{
	unsigned long index = 0, lo;
	int err;

	if (!idr || !nextid || !idr_ptr_ok(ptr))
		return -EINVAL;
	if (max > UINT_MAX)
		max = UINT_MAX;
	lo = *nextid < idr->base ? idr->base : *nextid;
	if (lo > max)
		return -ENOSPC;
	err = rg_xa_alloc(&idr->xa, &index, idr_encode(ptr), lo - idr->base,
			  max - idr->base);
	if (err == -EBUSY)
		return -ENOSPC;
	if (err)
		return err;
	*nextid = (uint32_t)(index + idr->base);
	return 0;
}

/* The inclusive maximum of a half-open range [start, end). */
static unsigned int idr_range_max(int end)
{
	return end > 0 ? (unsigned int)end - 1 : (unsigned int)INT_MAX;
}

int rg_idr_alloc(struct rg_idr *idr, void *ptr, int start, int end)
{
	uint32_t id = (uint32_t)start;
	int err;

	if (!idr || start < 0)
		return -EINVAL;
	err = rg_idr_alloc_u32(idr, ptr, &id, idr_range_max(end));
	return err ? err : (int)id;
}

int rg_idr_alloc_cyclic(struct rg_idr *idr, void *ptr, int start, int end)
{
	unsigned int max = idr_range_max(end);
	uint32_t first, id;
	int err;

	if (!idr || start < 0)
		return -EINVAL;
	first = idr->next;
	if (first < (unsigned int)start || first > max)
		first = (uint32_t)start;
	id = first;
	err = rg_idr_alloc_u32(idr, ptr, &id, max);
	if (err == -ENOSPC && first > (unsigned int)start) {
		/* [first, max] is full: wrap around to the start. */
		id = (uint32_t)start;
		err = rg_idr_alloc_u32(idr, ptr, &id, max);
	}
	if (err)
		return err;
	idr->next = id + 1;
	return (int)id;
}

void *rg_idr_find(struct rg_idr *idr, unsigned long id)
{
	void *word;

	if (!idr || id < idr->base)
		return NULL;
	word = rg_xa_load(&idr->xa, id - idr->base);
	return word ? idr_decode(word) : NULL;
}

void *rg_idr_remove(struct rg_idr *idr, unsigned long id)
{
	void *word;

	if (!idr || id < idr->base)
		return NULL;
	word = rg_xa_erase(&idr->xa, id - idr->base);
	return word ? idr_decode(word) : NULL;
}

int rg_idr_replace(struct rg_idr *idr, void *ptr, unsigned long id, void **old)
{
	unsigned long index;
	void *word, *cur;
	int err;

	if (!idr || !idr_ptr_ok(ptr))
		return -EINVAL;
	if (id < idr->base)
		return -ENOENT;
	index = id - idr->base;
	cur = rg_xa_load(&idr->xa, index);
	word = idr_encode(ptr);
	for (;;) {
		void *seen = NULL;

		if (!cur)
			return -ENOENT;
		err = rg_xa_cmpxchg(&idr->xa, index, cur, word, &seen);
		if (!err && seen == cur)
			break;
		if (err && err != -EBUSY)
			return err;
		/* Another thread changed the ID: retry on what it left. */
		cur = seen;
	}
	if (old)
		*old = idr_decode(cur);
	return 0;
}

void *rg_idr_get_next_ul(struct rg_idr *idr, unsigned long *nextid)
{
	unsigned long index;
	void *word;

	if (!idr || !nextid)
		return NULL;
	index = *nextid < idr->base ? 0 : *nextid - idr->base;
	word = rg_xa_find(&idr->xa, &index, ULONG_MAX, RG_XA_PRESENT);
	while (word && !idr_decode(word))
		word = rg_xa_find_after(&idr->xa, &index, ULONG_MAX,
					RG_XA_PRESENT);
	if (!word)
		return NULL;
	*nextid = index + idr->base;
	return idr_decode(word);
}

void *rg_idr_get_next(struct rg_idr *idr, int *nextid)
{
	unsigned long id;
	void *ptr;

	if (!idr || !nextid || *nextid < 0)
		return NULL;
	id = (unsigned long)*nextid;
	ptr = rg_idr_get_next_ul(idr, &id);
	if (!ptr || id > INT_MAX)
		return NULL;
	*nextid = (int)id;
	return ptr;
}

int rg_idr_for_each(struct rg_idr *idr,
		    int (*fn)(int id, void *ptr, void *data), void *data)
{
	unsigned long id = 0;
	void *ptr;

	if (!idr || !fn)
		return -EINVAL;
	while ((ptr = rg_idr_get_next_ul(idr, &id)) && id <= INT_MAX) {
		int ret = fn((int)id, ptr, data);

		if (ret)
			return ret;
		id++;
	}
	return 0;
}

bool rg_idr_is_empty(struct rg_idr *idr)
{
	return idr ? rg_xa_empty(&idr->xa) : false;
}

void rg_idr_destroy(struct rg_idr *idr)
{
	if (idr)
		rg_xa_destroy(&idr->xa);
}

unsigned int rg_idr_get_cursor(struct rg_idr *idr)
{
	return idr ? idr->next : 0;
}

void rg_idr_set_cursor(struct rg_idr *idr, unsigned int val)
{
	if (idr)
		idr->next = val;
}

size_t rg_idr_bytes(struct rg_idr *idr)
{
	if (!idr)
		return 0;
	return rg_xa_bytes(&idr->xa) - sizeof(struct rg_xarray) +
	       sizeof(struct rg_idr);
}

int rg_idr_validate(struct rg_idr *idr, const char **reason)
{
	const char *why = NULL;
	unsigned long index;

	if (!idr) {
		why = "NULL idr";
		goto bad;
	}
	if (rg_xa_validate(&idr->xa, &why))
		goto bad;
	/* The first index whose ID would not fit in 32 bits. */
	index = (unsigned long)(UINT_MAX - idr->base) + 1;
	if (index && rg_xa_find(&idr->xa, &index, ULONG_MAX, RG_XA_PRESENT)) {
		why = "ID above UINT_MAX";
		goto bad;
	}
	return 0;
bad:
	if (reason)
		*reason = why;
	return -EINVAL;
}

void rg_idr_dump(struct rg_idr *idr, FILE *f)
{
	unsigned long index;
	void *word;

	if (!idr || !f)
		return;
	fprintf(f, "idr base %u cursor %u bytes %zu\n", idr->base, idr->next,
		rg_idr_bytes(idr));
	rg_xa_for_each(&idr->xa, index, word) fprintf(
		f, "  id %lu: %p\n", index + idr->base, idr_decode(word));
}
