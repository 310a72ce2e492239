/* SPDX-License-Identifier: MIT */
/*
 * Kernel names for the xarray (xa_*), over rg_xa_*; included by
 * <region/linux.h>.
 *
 * Usage:
 *	DEFINE_XARRAY(array);
 *	void *old = xa_store(&array, 5, ptr, GFP_KERNEL);
 *	if (xa_is_err(old))
 *		return xa_err(old);
 *	unsigned long index;
 *	void *entry;
 *	xa_for_each(&array, index, entry)
 *		use(index, entry);
 *	xa_destroy(&array);
 *
 * As in the kernel, xa_store() and xa_cmpxchg() return the old entry or an
 * error encoded with xa_mk_err-style internal entries (test with xa_is_err(),
 * decode with xa_err()); xa_alloc() and xa_insert() return 0 or a negative
 * errno. gfp arguments are accepted and ignored. The advanced API (XA_STATE,
 * xas_*, xa_lock() and its _irq/_bh forms, __xa_store() and the other
 * __xa_* calls) maps onto rg_xas_* and the rg_xa_*_locked calls; the lock
 * is the array's mutex; xa_load() and the other reading calls may run
 * under it, as the kernel's RCU readers may. As in the kernel, pointers
 * with the low bits 10 are refused only up to 4096 (-EINVAL), and
 * xa_set_mark() on an absent entry does nothing. Multi-index entries
 * (XA_STATE_ORDER(), xas_set_order(), xa_store_range(), xas_split()) are
 * those of a kernel built with CONFIG_XARRAY_MULTI; an entry with the low
 * bits 10 is stored at order 0 to 5 only. Differences: node update
 * callbacks (xas_set_update()) are not offered.
 */
#ifndef REGION_LINUX_XARRAY_H
#define REGION_LINUX_XARRAY_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "region/linux/types.h"
#include "region/xarray.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The array; @xa_lock, @xa_flags and @xa_head read the kernel's field
 * names over struct rg_xarray's own (the head is NULL, the entry at index
 * 0, or the top node with the low bits 10, as in the kernel). C11 has
 * anonymous structs, ISO C++ does not: in C++ the union is marked as the
 * extension GCC and Clang offer, so the same field names compile under
 * -pedantic in both languages.
 */
#ifdef __cplusplus
#define XA_ANON_EXT_ __extension__
#else
#define XA_ANON_EXT_
#endif
struct xarray {
	XA_ANON_EXT_ union {
		struct rg_xarray rg;
		struct {
			pthread_mutex_t xa_lock;
			unsigned int xa_flags;
			unsigned int xa_head_marks_;
			void *xa_head;
		};
	};
};
#undef XA_ANON_EXT_

typedef rg_xa_mark_t xa_mark_t;
#define XA_MARK_0 RG_XA_MARK_0
#define XA_MARK_1 RG_XA_MARK_1
#define XA_MARK_2 RG_XA_MARK_2
#define XA_MARK_MAX RG_XA_MARK_MAX
#define XA_PRESENT RG_XA_PRESENT
#define XA_FREE_MARK RG_XA_FREE_MARK

#define XA_FLAGS_ALLOC RG_XA_FLAGS_ALLOC
#define XA_FLAGS_ALLOC1 RG_XA_FLAGS_ALLOC1
#define XA_FLAGS_ALLOC_WRAPPED RG_XA_FLAGS_ALLOC_WRAPPED

#define XARRAY_INIT(name, flags)              \
	{                                     \
		{                             \
			RG_XARRAY_INIT(flags) \
		}                             \
	}
#define DEFINE_XARRAY_FLAGS(name, flags) \
	struct xarray name = XARRAY_INIT(name, flags)
#define DEFINE_XARRAY(name) DEFINE_XARRAY_FLAGS(name, 0)
#define DEFINE_XARRAY_ALLOC(name) DEFINE_XARRAY_FLAGS(name, XA_FLAGS_ALLOC)
#define DEFINE_XARRAY_ALLOC1(name) DEFINE_XARRAY_FLAGS(name, XA_FLAGS_ALLOC1)

/* ID ranges for xa_alloc(). */
struct xa_limit {
	uint32_t max;
	uint32_t min;
};
/*
 * The kernel's zero entry. Stored in a Maple Tree it holds its range (an
 * allocation tree sees no gap there) and reads as NULL through
 * mtree_load() and mt_find(); see RG_MT_ZERO_ENTRY. The xarray calls
 * (xa_store() and friends) refuse it with -EINVAL: use xa_reserve().
 */
#define XA_ZERO_ENTRY RG_XA_ZERO_ENTRY

static inline bool xa_is_zero(const void *entry)
{
	return entry == XA_ZERO_ENTRY;
}

#define XA_LIMIT(_min, _max) ((struct xa_limit){ .max = (_max), .min = (_min) })
#define xa_limit_32b XA_LIMIT(0, UINT_MAX)
#define xa_limit_31b XA_LIMIT(0, INT_MAX)
#define xa_limit_16b XA_LIMIT(0, USHRT_MAX)

/* Errors travel as internal entries: -errno shifted left two, low bits 10. */
static inline void *xa_mk_err_entry_(long err)
{
	return (void *)(uintptr_t)(((unsigned long)err << 2) | 2UL);
}

static inline bool xa_is_err(const void *entry)
{
	return rg_xa_is_internal(entry) &&
	       (uintptr_t)entry >= (uintptr_t)xa_mk_err_entry_(-4095);
}

static inline int xa_err(void *entry)
{
	return xa_is_err(entry) ? (int)((intptr_t)entry >> 2) : 0;
}

static inline void *xa_mk_value(unsigned long v)
{
	return rg_xa_mk_value(v);
}

static inline unsigned long xa_to_value(const void *entry)
{
	return rg_xa_to_value(entry);
}

static inline bool xa_is_value(const void *entry)
{
	return rg_xa_is_value(entry);
}

static inline void xa_init_flags(struct xarray *xa, unsigned int flags)
{
	rg_xa_init_flags(&xa->rg, flags);
}

static inline void xa_init(struct xarray *xa)
{
	rg_xa_init(&xa->rg);
}

static inline void *xa_load(struct xarray *xa, unsigned long index)
{
	return rg_xa_load(&xa->rg, index);
}

static inline void *xa_store_range(struct xarray *xa, unsigned long first,
				   unsigned long last, void *entry, gfp_t gfp)
{
	int err = rg_xa_store_range(&xa->rg, first, last, entry);

	(void)gfp;
	return err ? xa_mk_err_entry_(err) : NULL;
}

static inline int xa_get_order(struct xarray *xa, unsigned long index)
{
	return rg_xa_get_order(&xa->rg, index);
}

static inline bool xa_is_sibling(const void *entry)
{
	return rg_xa_is_sibling(entry);
}

static inline void *xa_store(struct xarray *xa, unsigned long index,
			     void *entry, gfp_t gfp)
{
	void *old = NULL;
	int err = rg_xa_store(&xa->rg, index, entry, &old);

	(void)gfp;
	return err ? xa_mk_err_entry_(err) : old;
}

static inline void *xa_erase(struct xarray *xa, unsigned long index)
{
	return rg_xa_erase(&xa->rg, index);
}

static inline void *xa_cmpxchg(struct xarray *xa, unsigned long index,
			       void *old, void *entry, gfp_t gfp)
{
	void *cur = NULL;
	int err = rg_xa_cmpxchg(&xa->rg, index, old, entry, &cur);

	(void)gfp;
	if (err && err != -EBUSY)
		return xa_mk_err_entry_(err);
	return cur;
}

static inline int xa_insert(struct xarray *xa, unsigned long index, void *entry,
			    gfp_t gfp)
{
	(void)gfp;
	return rg_xa_insert(&xa->rg, index, entry);
}

static inline int xa_reserve(struct xarray *xa, unsigned long index, gfp_t gfp)
{
	(void)gfp;
	return rg_xa_reserve(&xa->rg, index);
}

static inline void xa_release(struct xarray *xa, unsigned long index)
{
	rg_xa_release(&xa->rg, index);
}

static inline int xa_alloc(struct xarray *xa, uint32_t *id, void *entry,
			   struct xa_limit limit, gfp_t gfp)
{
	unsigned long got = 0;
	int err = rg_xa_alloc(&xa->rg, &got, entry, limit.min, limit.max);

	(void)gfp;
	if (!err)
		*id = (uint32_t)got;
	return err;
}

static inline int xa_alloc_cyclic(struct xarray *xa, uint32_t *id, void *entry,
				  struct xa_limit limit, uint32_t *next,
				  gfp_t gfp)
{
	(void)gfp;
	return rg_xa_alloc_cyclic(&xa->rg, id, entry, limit.min, limit.max,
				  next);
}

static inline void *xa_find(struct xarray *xa, unsigned long *indexp,
			    unsigned long max, xa_mark_t filter)
{
	return rg_xa_find(&xa->rg, indexp, max, filter);
}

static inline void *xa_find_after(struct xarray *xa, unsigned long *indexp,
				  unsigned long max, xa_mark_t filter)
{
	return rg_xa_find_after(&xa->rg, indexp, max, filter);
}

static inline void xa_set_mark(struct xarray *xa, unsigned long index,
			       xa_mark_t mark)
{
	(void)rg_xa_set_mark(&xa->rg, index, mark);
}

static inline void xa_clear_mark(struct xarray *xa, unsigned long index,
				 xa_mark_t mark)
{
	(void)rg_xa_clear_mark(&xa->rg, index, mark);
}

static inline bool xa_get_mark(struct xarray *xa, unsigned long index,
			       xa_mark_t mark)
{
	return rg_xa_get_mark(&xa->rg, index, mark);
}

static inline void xa_destroy(struct xarray *xa)
{
	rg_xa_destroy(&xa->rg);
}

static inline bool xa_empty(struct xarray *xa)
{
	return rg_xa_empty(&xa->rg);
}

#define xa_for_each_marked(xa, index, entry, filter)                \
	for ((index) = 0,                                           \
	    (entry) = xa_find((xa), &(index), ULONG_MAX, (filter)); \
	     (entry);                                               \
	     (entry) = xa_find_after((xa), &(index), ULONG_MAX, (filter)))
#define xa_for_each(xa, index, entry) \
	xa_for_each_marked(xa, index, entry, XA_PRESENT)

/* ---- internal entries ---- */

#define BITS_PER_XA_VALUE ((int)(sizeof(unsigned long) * 8) - 1)
#define XA_CHUNK_SHIFT RG_XA_CHUNK_SHIFT
#define XA_CHUNK_SIZE RG_XA_CHUNK_SIZE
#define XA_CHUNK_MASK (XA_CHUNK_SIZE - 1)
#define XA_RETRY_ENTRY RG_XA_RETRY_ENTRY

static inline void *xa_mk_internal(unsigned long v)
{
	return rg_xa_mk_internal(v);
}

static inline unsigned long xa_to_internal(const void *entry)
{
	return rg_xa_to_internal(entry);
}

static inline bool xa_is_internal(const void *entry)
{
	return rg_xa_is_internal(entry);
}

static inline bool xa_is_retry(const void *entry)
{
	return rg_xa_is_retry(entry);
}

/* ---- the lock ---- */

static inline void xa_lock(struct xarray *xa)
{
	rg_xa_lock(&xa->rg);
}

static inline void xa_unlock(struct xarray *xa)
{
	rg_xa_unlock(&xa->rg);
}

#define xa_lock_irq(xa) xa_lock(xa)
#define xa_unlock_irq(xa) xa_unlock(xa)
#define xa_lock_bh(xa) xa_lock(xa)
#define xa_unlock_bh(xa) xa_unlock(xa)
#define xa_lock_irqsave(xa, flags) ((void)(flags), xa_lock(xa))
#define xa_unlock_irqrestore(xa, flags) ((void)(flags), xa_unlock(xa))

/* ---- normal calls under the caller's lock ---- */

static inline void *__xa_store(struct xarray *xa, unsigned long index,
			       void *entry, gfp_t gfp)
{
	void *old = NULL;
	int err = rg_xa_store_locked(&xa->rg, index, entry, &old);

	(void)gfp;
	return err ? xa_mk_err_entry_(err) : old;
}

static inline void *__xa_erase(struct xarray *xa, unsigned long index)
{
	return rg_xa_erase_locked(&xa->rg, index);
}

static inline int __xa_insert(struct xarray *xa, unsigned long index,
			      void *entry, gfp_t gfp)
{
	(void)gfp;
	return rg_xa_insert_locked(&xa->rg, index, entry);
}

static inline void *__xa_cmpxchg(struct xarray *xa, unsigned long index,
				 void *old, void *entry, gfp_t gfp)
{
	void *cur = NULL;
	int err = rg_xa_cmpxchg_locked(&xa->rg, index, old, entry, &cur);

	(void)gfp;
	if (err && err != -EBUSY)
		return xa_mk_err_entry_(err);
	return cur;
}

static inline int __xa_alloc(struct xarray *xa, uint32_t *id, void *entry,
			     struct xa_limit limit, gfp_t gfp)
{
	unsigned long got = 0;
	int err =
		rg_xa_alloc_locked(&xa->rg, &got, entry, limit.min, limit.max);

	(void)gfp;
	if (!err)
		*id = (uint32_t)got;
	return err;
}

static inline int __xa_alloc_cyclic(struct xarray *xa, uint32_t *id,
				    void *entry, struct xa_limit limit,
				    uint32_t *next, gfp_t gfp)
{
	(void)gfp;
	return rg_xa_alloc_cyclic_locked(&xa->rg, id, entry, limit.min,
					 limit.max, next);
}

static inline void __xa_set_mark(struct xarray *xa, unsigned long index,
				 xa_mark_t mark)
{
	(void)rg_xa_set_mark_locked(&xa->rg, index, mark);
}

static inline void __xa_clear_mark(struct xarray *xa, unsigned long index,
				   xa_mark_t mark)
{
	(void)rg_xa_clear_mark_locked(&xa->rg, index, mark);
}

/* ---- the advanced API ---- */

struct xa_node;

/*
 * The kernel's xa_state, laid out as struct rg_xa_state (checked below);
 * the xas_* calls pass it on as one.
 */
struct xa_state {
	struct xarray *xa;
	unsigned long xa_index;
	unsigned char xa_shift;
	unsigned char xa_sibs;
	unsigned char xa_offset;
	unsigned char xa_pad;
	struct xa_node *xa_node;
	struct xa_node *xa_alloc;
	unsigned int xa_need;
};

#ifndef __cplusplus
_Static_assert(offsetof(struct xarray, xa_head) ==
		       offsetof(struct rg_xarray, head),
	       "struct xarray names struct rg_xarray's fields");
_Static_assert(offsetof(struct xarray, xa_flags) ==
		       offsetof(struct rg_xarray, flags),
	       "struct xarray names struct rg_xarray's fields");
_Static_assert(sizeof(struct xa_state) == sizeof(struct rg_xa_state),
	       "struct xa_state mirrors struct rg_xa_state");
_Static_assert(offsetof(struct xa_state, xa_node) ==
		       offsetof(struct rg_xa_state, xa_node),
	       "struct xa_state mirrors struct rg_xa_state");
_Static_assert(offsetof(struct xa_state, xa_need) ==
		       offsetof(struct rg_xa_state, xa_need),
	       "struct xa_state mirrors struct rg_xa_state");
#endif

#define XAS_RESTART ((struct xa_node *)RG_XAS_RESTART)
#define XAS_BOUNDS ((struct xa_node *)RG_XAS_BOUNDS)

/* A state of @order: @index rounded down to a multiple of 2^@order. */
#define XA_STATE_ORDER(name, array, index, order)       \
	struct xa_state name = RG_XA_STATE_ORDER_INIT_( \
		array, index, order, struct xa_node, XAS_RESTART)

/* Iterations between two reschedule points in a long kernel walk. */
#define XA_CHECK_SCHED 4096

#define XA_STATE(name, array, index)                               \
	struct xa_state name = { (array), (index),     0,    0, 0, \
				 0,	  XAS_RESTART, NULL, 0 }

static inline struct rg_xa_state *xas_rg_(const struct xa_state *xas)
{
	return (struct rg_xa_state *)(uintptr_t)xas;
}

#define xas_lock(xas) xa_lock((xas)->xa)
#define xas_unlock(xas) xa_unlock((xas)->xa)
#define xas_lock_irq(xas) xa_lock((xas)->xa)
#define xas_unlock_irq(xas) xa_unlock((xas)->xa)
#define xas_lock_bh(xas) xa_lock((xas)->xa)
#define xas_unlock_bh(xas) xa_unlock((xas)->xa)
#define xas_lock_irqsave(xas, flags) xa_lock_irqsave((xas)->xa, flags)
#define xas_unlock_irqrestore(xas, flags) xa_unlock_irqrestore((xas)->xa, flags)

static inline int xas_error(const struct xa_state *xas)
{
	return rg_xas_error(xas_rg_(xas));
}

static inline void xas_set_err(struct xa_state *xas, long err)
{
	rg_xas_set_err(xas_rg_(xas), err);
}

static inline bool xas_invalid(const struct xa_state *xas)
{
	return rg_xas_invalid(xas_rg_(xas));
}

static inline bool xas_valid(const struct xa_state *xas)
{
	return rg_xas_valid(xas_rg_(xas));
}

static inline void xas_reset(struct xa_state *xas)
{
	rg_xas_reset(xas_rg_(xas));
}

static inline void xas_set(struct xa_state *xas, unsigned long index)
{
	rg_xas_set(xas_rg_(xas), index);
}

static inline bool xas_retry(struct xa_state *xas, const void *entry)
{
	return rg_xas_retry(xas_rg_(xas), entry);
}

static inline void *xas_load(struct xa_state *xas)
{
	return rg_xas_load(xas_rg_(xas));
}

static inline void *xas_reload(struct xa_state *xas)
{
	return rg_xas_reload(xas_rg_(xas));
}

static inline void *xas_store(struct xa_state *xas, void *entry)
{
	return rg_xas_store(xas_rg_(xas), entry);
}

static inline bool xas_nomem(struct xa_state *xas, gfp_t gfp)
{
	(void)gfp;
	return rg_xas_nomem(xas_rg_(xas));
}

static inline void *xas_find(struct xa_state *xas, unsigned long max)
{
	return rg_xas_find(xas_rg_(xas), max);
}

static inline void *xas_next_entry(struct xa_state *xas, unsigned long max)
{
	return rg_xas_next_entry(xas_rg_(xas), max);
}

static inline void *xas_find_marked(struct xa_state *xas, unsigned long max,
				    xa_mark_t mark)
{
	return rg_xas_find_marked(xas_rg_(xas), max, mark);
}

static inline void *xas_next_marked(struct xa_state *xas, unsigned long max,
				    xa_mark_t mark)
{
	return rg_xas_find_marked(xas_rg_(xas), max, mark);
}

static inline void *xas_next(struct xa_state *xas)
{
	return rg_xas_next(xas_rg_(xas));
}

static inline void *xas_prev(struct xa_state *xas)
{
	return rg_xas_prev(xas_rg_(xas));
}

static inline void xas_pause(struct xa_state *xas)
{
	rg_xas_pause(xas_rg_(xas));
}

static inline bool xas_get_mark(const struct xa_state *xas, xa_mark_t mark)
{
	return rg_xas_get_mark(xas_rg_(xas), mark);
}

static inline void xas_set_mark(const struct xa_state *xas, xa_mark_t mark)
{
	rg_xas_set_mark(xas_rg_(xas), mark);
}

static inline void xas_clear_mark(const struct xa_state *xas, xa_mark_t mark)
{
	rg_xas_clear_mark(xas_rg_(xas), mark);
}

static inline void xas_init_marks(const struct xa_state *xas)
{
	rg_xas_init_marks(xas_rg_(xas));
}

static inline void xas_set_order(struct xa_state *xas, unsigned long index,
				 unsigned int order)
{
	rg_xas_set_order(xas_rg_(xas), index, order);
}

static inline int xas_get_order(struct xa_state *xas)
{
	return (int)rg_xas_get_order(xas_rg_(xas));
}

static inline void *xas_find_conflict(struct xa_state *xas)
{
	return rg_xas_find_conflict(xas_rg_(xas));
}

static inline void xas_create_range(struct xa_state *xas)
{
	rg_xas_create_range(xas_rg_(xas));
}

static inline void xas_split_alloc(struct xa_state *xas, void *entry,
				   unsigned int order, gfp_t gfp)
{
	(void)gfp;
	rg_xas_split_alloc(xas_rg_(xas), entry, order);
}

static inline void xas_split(struct xa_state *xas, void *entry,
			     unsigned int order)
{
	rg_xas_split(xas_rg_(xas), entry, order);
}

#define xas_for_each_conflict(xas, entry) \
	while (((entry) = xas_find_conflict(xas)))

#define xas_for_each(xas, entry, max)                   \
	for ((entry) = xas_find((xas), (max)); (entry); \
	     (entry) = xas_next_entry((xas), (max)))
#define xas_for_each_marked(xas, entry, max, mark)                     \
	for ((entry) = xas_find_marked((xas), (max), (mark)); (entry); \
	     (entry) = xas_next_marked((xas), (max), (mark)))

#ifdef __cplusplus
}
#endif
#endif /* REGION_LINUX_XARRAY_H */
