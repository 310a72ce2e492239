/* SPDX-License-Identifier: MIT */
/*
 * Kernel names for the IDA (ida_*), over rg_ida_*; included by
 * <region/linux.h>.
 *
 * Usage:
 *	DEFINE_IDA(ids);
 *	int id = ida_alloc(&ids, GFP_KERNEL); // ID, -ENOSPC, -ENOMEM
 *	if (id < 0)
 *		return id;
 *	ida_free(&ids, id);
 *	id = ida_simple_get(&ids, 1, 100, GFP_KERNEL); // in [1, 100)
 *	ida_simple_remove(&ids, id);
 *	ida_destroy(&ids);
 *
 * Kernel return conventions: the ida_alloc* calls return the ID or a
 * negative errno; gfp arguments are accepted and ignored. ida_free() of an
 * ID that is not allocated is a caller bug; the kernel warns, this header
 * ignores it silently (use rg_ida_free() to see -ENOENT).
 */
#ifndef REGION_LINUX_IDA_H
#define REGION_LINUX_IDA_H

#include "region/ida.h"
#include "region/linux/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IDA_BITMAP_BITS RG_IDA_BITMAP_BITS

struct ida {
	struct rg_ida rg;
};

#define IDA_INIT(name)      \
	{                   \
		RG_IDA_INIT \
	}
#define DEFINE_IDA(name) struct ida name = IDA_INIT(name)

static inline void ida_init(struct ida *ida)
{
	rg_ida_init(&ida->rg);
}

static inline int ida_alloc_range(struct ida *ida, unsigned int min,
				  unsigned int max, gfp_t gfp)
{
	unsigned int id = 0;
	int err = rg_ida_alloc_range(&ida->rg, min, max, &id);

	(void)gfp;
	return err ? err : (int)id;
}

static inline int ida_alloc(struct ida *ida, gfp_t gfp)
{
	return ida_alloc_range(ida, 0, ~0U, gfp);
}

static inline int ida_alloc_min(struct ida *ida, unsigned int min, gfp_t gfp)
{
	return ida_alloc_range(ida, min, ~0U, gfp);
}

static inline int ida_alloc_max(struct ida *ida, unsigned int max, gfp_t gfp)
{
	return ida_alloc_range(ida, 0, max, gfp);
}

static inline void ida_free(struct ida *ida, unsigned int id)
{
	(void)rg_ida_free(&ida->rg, id);
}

/*
 * The kernel's older names: ida_simple_get() allocates in [start, end), an
 * end of 0 meaning no limit; ida_simple_remove() is ida_free().
 */
static inline int ida_simple_get(struct ida *ida, unsigned int start,
				 unsigned int end, gfp_t gfp)
{
	return ida_alloc_range(ida, start, end ? end - 1 : ~0U, gfp);
}

static inline void ida_simple_remove(struct ida *ida, unsigned int id)
{
	ida_free(ida, id);
}

static inline void ida_destroy(struct ida *ida)
{
	rg_ida_destroy(&ida->rg);
}

static inline bool ida_is_empty(struct ida *ida)
{
	return rg_ida_is_empty(&ida->rg);
}

#ifdef __cplusplus
}
#endif
#endif /* REGION_LINUX_IDA_H */
