/* SPDX-License-Identifier: MIT */
/*
 * Kernel names for the IDR (idr_*), over rg_idr_*; included by
 * <region/linux.h>.
 *
 * Usage:
 *	DEFINE_IDR(objs);
 *	int id = idr_alloc(&objs, obj, 1, 0, GFP_KERNEL); // ID >= 1
 *	if (id < 0)
 *		return id;			// -ENOSPC, -ENOMEM, -EINVAL
 *	void *old = idr_replace(&objs, other, id);
 *	if (IS_ERR(old))
 *		return PTR_ERR(old);		// -ENOENT: id is free
 *	void *p;
 *	idr_for_each_entry(&objs, p, id)
 *		use(id, p);
 *	idr_remove(&objs, id);
 *	idr_destroy(&objs);
 *
 * Kernel return conventions: the idr_alloc* calls return the ID (or 0) or
 * a negative errno; idr_replace() returns the old pointer or
 * ERR_PTR(-ENOENT) (ERR_PTR(-EINVAL) for a refused pointer); gfp arguments
 * are accepted and ignored. idr_preload() and idr_preload_end() do
 * nothing: allocation never depends on the calling context, and, as in
 * the kernel, an allocation after idr_preload() may still fail with
 * -ENOMEM. ERR_PTR(), PTR_ERR() and IS_ERR() are defined here unless the
 * including code defined them first. Differences: every pointer is stored
 * as it is, whatever its top bits (tagged pointers round-trip) and
 * alignment, except the 1024 values the xarray reserves (two low bits 10
 * and at most 4096: 2, 6, ..., 4094), refused with -EINVAL, where the
 * kernel refuses every pointer whose two low bits are 10; calls that take
 * a const IDR in the kernel still take its lock.
 */
#ifndef REGION_LINUX_IDR_H
#define REGION_LINUX_IDR_H

#include <stdint.h>

#include "region/idr.h"
#include "region/linux/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef MAX_ERRNO
#define MAX_ERRNO 4095
#endif
#ifndef ERR_PTR
#define ERR_PTR(err) ((void *)(intptr_t)(long)(err))
#endif
#ifndef PTR_ERR
#define PTR_ERR(ptr) ((long)(intptr_t)(ptr))
#endif
#ifndef IS_ERR
#define IS_ERR(ptr) ((uintptr_t)(ptr) >= (uintptr_t)-MAX_ERRNO)
#endif

struct idr {
	struct rg_idr rg;
};

#define IDR_INIT_BASE(name, base)      \
	{                              \
		RG_IDR_INIT_BASE(base) \
	}
#define IDR_INIT(name) IDR_INIT_BASE(name, 0)
#define DEFINE_IDR(name) struct idr name = IDR_INIT(name)

/* The kernel's IDR is unlocked; its const calls still lock here. */
static inline struct rg_idr *idr_rg_(const struct idr *idr)
{
	return (struct rg_idr *)&idr->rg;
}

static inline void idr_init_base(struct idr *idr, int base)
{
	rg_idr_init_base(&idr->rg, (unsigned int)base);
}

static inline void idr_init(struct idr *idr)
{
	rg_idr_init(&idr->rg);
}

static inline int idr_alloc_u32(struct idr *idr, void *ptr, uint32_t *nextid,
				unsigned long max, gfp_t gfp)
{
	(void)gfp;
	return rg_idr_alloc_u32(&idr->rg, ptr, nextid, max);
}

static inline int idr_alloc(struct idr *idr, void *ptr, int start, int end,
			    gfp_t gfp)
{
	(void)gfp;
	return rg_idr_alloc(&idr->rg, ptr, start, end);
}

static inline int idr_alloc_cyclic(struct idr *idr, void *ptr, int start,
				   int end, gfp_t gfp)
{
	(void)gfp;
	return rg_idr_alloc_cyclic(&idr->rg, ptr, start, end);
}

static inline void *idr_find(const struct idr *idr, unsigned long id)
{
	return rg_idr_find(idr_rg_(idr), id);
}

static inline void *idr_remove(struct idr *idr, unsigned long id)
{
	return rg_idr_remove(&idr->rg, id);
}

static inline void *idr_replace(struct idr *idr, void *ptr, unsigned long id)
{
	void *old = NULL;
	int err = rg_idr_replace(&idr->rg, ptr, id, &old);

	return err ? ERR_PTR(err) : old;
}

static inline int idr_for_each(const struct idr *idr,
			       int (*fn)(int id, void *p, void *data),
			       void *data)
{
	return rg_idr_for_each(idr_rg_(idr), fn, data);
}

static inline void *idr_get_next_ul(struct idr *idr, unsigned long *nextid)
{
	return rg_idr_get_next_ul(&idr->rg, nextid);
}

static inline void *idr_get_next(struct idr *idr, int *nextid)
{
	return rg_idr_get_next(&idr->rg, nextid);
}

static inline bool idr_is_empty(const struct idr *idr)
{
	return rg_idr_is_empty(idr_rg_(idr));
}

static inline void idr_destroy(struct idr *idr)
{
	rg_idr_destroy(&idr->rg);
}

static inline unsigned int idr_get_cursor(const struct idr *idr)
{
	return rg_idr_get_cursor(idr_rg_(idr));
}

static inline void idr_set_cursor(struct idr *idr, unsigned int val)
{
	rg_idr_set_cursor(&idr->rg, val);
}

static inline void idr_preload(gfp_t gfp)
{
	(void)gfp;
}

static inline void idr_preload_end(void)
{
}

#define idr_for_each_entry(idr, entry, id) \
	rg_idr_for_each_entry(&(idr)->rg, entry, id)
#define idr_for_each_entry_continue(idr, entry, id) \
	rg_idr_for_each_entry_continue(&(idr)->rg, entry, id)
#define idr_for_each_entry_ul(idr, entry, tmp, id) \
	rg_idr_for_each_entry_ul(&(idr)->rg, entry, tmp, id)
#define idr_for_each_entry_continue_ul(idr, entry, tmp, id) \
	rg_idr_for_each_entry_continue_ul(&(idr)->rg, entry, tmp, id)

#ifdef __cplusplus
}
#endif
#endif /* REGION_LINUX_IDR_H */
