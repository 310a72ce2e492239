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
 * Stored entries: the pointer itself. The IDR takes every entry the
 * xarray stores (the xarray refuses only its reserved entries, those whose
 * two low bits are 10 up to 4096, rg_xa_is_reserved_entry()), so any
 * pointer whatever its top bits (tagged pointers: a top byte of 0xb4 on
 * arm64 Android, HWASan tags) is stored as it is, and lookups return the
 * xarray's entry untouched. NULL is stored as the xarray's reservation
 * (RG_XA_ZERO_ENTRY, what rg_xa_alloc() and a NULL store make in an
 * allocating array): the ID is allocated, the normal xarray calls read it
 * as NULL and their searches skip it, and the advanced API (rg_xas_*) sees
 * it, which is how rg_idr_replace() tells an ID holding NULL from a free
 * one.
 *
 * Memory: only allocation allocates (the xarray's nodes, all or nothing);
 * an -ENOMEM leaves the IDR, cursor included, as it was. Remove, replace,
 * lookups, iteration and validate never allocate.
 *
 * Locking: each call is one xarray call under the xarray's mutex, or a walk and
 * store of the advanced API under it (rg_idr_replace()), so each is atomic
 * against other callers. The cursor is a plain field: cyclic allocations are
 * serialised by the caller, as the header says.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "region/idr.h"
#include "region/xarray.h"

/* True if @ptr can be stored: the xarray does not reserve it. */
static bool idr_ptr_ok(const void *ptr)
{
	return !rg_xa_is_reserved_entry(ptr);
}

/* The pointer an entry of the advanced API stands for (a reservation: NULL). */
static void *idr_ptr(void *entry)
{
	return rg_xa_is_zero(entry) ? NULL : entry;
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
	err = rg_xa_alloc(&idr->xa, &index, ptr, lo - idr->base,
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
	if (!idr || id < idr->base)
		return NULL;
	return rg_xa_load(&idr->xa, id - idr->base); /* a reservation: NULL */
}

void *rg_idr_remove(struct rg_idr *idr, unsigned long id)
{
	if (!idr || id < idr->base)
		return NULL;
	return rg_xa_erase(&idr->xa, id - idr->base); /* a reservation: NULL */
}

int rg_idr_replace(struct rg_idr *idr, void *ptr, unsigned long id, void **old)
{
	void *cur;

	if (!idr || !idr_ptr_ok(ptr))
		return -EINVAL;
	if (id < idr->base)
		return -ENOENT;
	RG_XA_STATE(xas, &idr->xa, id - idr->base);
	rg_xa_lock(&idr->xa);
	cur = rg_xas_load(&xas); /* a reservation is an ID holding NULL */
	if (!cur) {
		rg_xa_unlock(&idr->xa);
		return -ENOENT;
	}
	/* On the walked slot: no allocation, no failure; marks stay. */
	rg_xas_store(&xas, ptr ? ptr : RG_XA_ZERO_ENTRY);
	rg_xa_unlock(&idr->xa);
	if (old)
		*old = idr_ptr(cur);
	return 0;
}

void *rg_idr_get_next_ul(struct rg_idr *idr, unsigned long *nextid)
{
	unsigned long index;
	void *ptr;

	if (!idr || !nextid)
		return NULL;
	index = *nextid < idr->base ? 0 : *nextid - idr->base;
	/* IDs holding NULL are reservations, which the search skips. */
	ptr = rg_xa_find(&idr->xa, &index, ULONG_MAX, RG_XA_PRESENT);
	if (!ptr)
		return NULL;
	*nextid = index + idr->base;
	return ptr;
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
	if (index) {
		RG_XA_STATE(xas, &idr->xa, index);
		void *e;

		rg_xa_lock(&idr->xa);
		e = rg_xas_find(&xas, ULONG_MAX); /* reservations too */
		rg_xa_unlock(&idr->xa);
		if (e) {
			why = "ID above UINT_MAX";
			goto bad;
		}
	}
	return 0;
bad:
	if (reason)
		*reason = why;
	return -EINVAL;
}

void rg_idr_dump(struct rg_idr *idr, FILE *f)
{
	void *word;

	if (!idr || !f)
		return;
	fprintf(f, "idr base %u cursor %u bytes %zu\n", idr->base, idr->next,
		rg_idr_bytes(idr));
	RG_XA_STATE(xas, &idr->xa, 0);
	rg_xa_lock(&idr->xa);
	rg_xas_for_each(&xas, word, ULONG_MAX) /* IDs holding NULL too */
		fprintf(f, "  id %lu: %p\n", xas.xa_index + idr->base,
			idr_ptr(word));
	rg_xa_unlock(&idr->xa);
}
