/* SPDX-License-Identifier: MIT */
/*
 * Kernel names for the Maple Tree (mtree_*, mt_*, mas_*, MA_STATE,
 * DEFINE_MTREE, MT_FLAGS_*), over rg_mtree_* / rg_mas_*.
 *
 * Usage:
 *	DEFINE_MTREE(mt);
 *	mtree_store_range(&mt, 10, 19, ptr, GFP_KERNEL);
 *	p = mtree_load(&mt, 12);
 *	MA_STATE(mas, &mt, 0, 0);
 *	mtree_lock(&mt);
 *	mas_for_each(&mas, p, ULONG_MAX)
 *		use(p);
 *	mtree_unlock(&mt);
 *	mtree_destroy(&mt);
 *
 * Differences from the kernel: gfp flags are accepted and ignored; the lock
 * is a mutex; mt_validate() returns 0 or -EINVAL instead of printing;
 * mt_dump() prints to stderr and ignores its format argument (both run
 * under whatever the caller holds, as the kernel's);
 * mtree_alloc_range() and friends also reject a NULL entry with -EINVAL;
 * in RCU mode readers use liburcu's memb flavour (rcu_read_lock() from
 * <urcu.h>), every thread that uses the tree registers with it, and the
 * freeing of replaced nodes is awaited with rg_mtree_rcu_barrier().
 * The aligned gap searches (rg_mas_empty_area_aligned(),
 * rg_mtree_alloc_range_aligned() and their _rev / _rrange forms) are
 * libregion extensions with no kernel name: call them by their rg_ names.
 */
#ifndef REGION_LINUX_MAPLE_H
#define REGION_LINUX_MAPLE_H

#include "region/linux/types.h"
#include "region/linux/xarray.h"
#include "region/maple_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

#define maple_tree rg_maple_tree
#define ma_state rg_ma_state

#define MT_FLAGS_ALLOC_RANGE RG_MT_FLAGS_ALLOC_RANGE
#define MT_FLAGS_USE_RCU RG_MT_FLAGS_USE_RCU
#define MT_FLAGS_LOCK_EXTERN RG_MT_FLAGS_LOCK_EXTERN

/*
 * The kernel's 64-bit slot count of its densest node, for code that sizes
 * loops by it; libregion's 256-byte nodes hold 16 (10 in the internal
 * nodes of allocation trees).
 */
#define MAPLE_NODE_SLOTS 31

/*
 * The kernel's state names. libregion has no separate states for an empty
 * tree or a tree whose only entry sits in the root pointer: both are
 * ordinary positions, so ma_root reads as ma_active and ma_none as
 * ma_start (a state set to it walks again).
 */
#define ma_active RG_MAS_ACTIVE
#define ma_start RG_MAS_START
#define ma_root RG_MAS_ACTIVE
#define ma_none RG_MAS_START
#define ma_pause RG_MAS_PAUSE
#define ma_overflow RG_MAS_OVERFLOW
#define ma_underflow RG_MAS_UNDERFLOW
#define ma_error RG_MAS_ERROR

#define MTREE_INIT(name, flags) RG_MTREE_INIT(name, flags)
#define DEFINE_MTREE(name) RG_DEFINE_MTREE(name)
#define MA_STATE(name, mt, first, end) RG_MA_STATE(name, mt, first, end)

/* Value entries, unless <region/linux/xarray.h> already named them. */
#ifndef xa_mk_value
#define xa_mk_value(v) rg_mt_mk_value(v)
#endif
#ifndef xa_to_value
#define xa_to_value(entry) rg_mt_to_value(entry)
#endif
#ifndef xa_is_value
#define xa_is_value(entry) rg_mt_is_value(entry)
#endif

enum mt_dump_format { mt_dump_dec, mt_dump_hex };

static inline void mt_init_flags(struct rg_maple_tree *mt, unsigned int flags)
{
	(void)rg_mtree_init(mt, flags);
}

static inline void mt_init(struct rg_maple_tree *mt)
{
	(void)rg_mtree_init(mt, 0);
}

static inline void mtree_init(struct rg_maple_tree *mt, unsigned int flags)
{
	(void)rg_mtree_init(mt, flags);
}

static inline void mtree_destroy(struct rg_maple_tree *mt)
{
	rg_mtree_destroy(mt);
}

static inline void __mt_destroy(struct rg_maple_tree *mt)
{
	rg_mtree_destroy(mt);
}

static inline void mtree_lock(struct rg_maple_tree *mt)
{
	rg_mtree_lock(mt);
}

static inline void mtree_unlock(struct rg_maple_tree *mt)
{
	rg_mtree_unlock(mt);
}

/* RCU mode (see <region/maple_tree.h>: readers register with liburcu). */
static inline void mt_set_in_rcu(struct rg_maple_tree *mt)
{
	rg_mtree_set_rcu(mt);
}

static inline void mt_clear_in_rcu(struct rg_maple_tree *mt)
{
	rg_mtree_clear_rcu(mt);
}

static inline bool mt_in_rcu(const struct rg_maple_tree *mt)
{
	return rg_mtree_in_rcu(mt);
}

static inline void *mtree_load(struct rg_maple_tree *mt, unsigned long index)
{
	return rg_mtree_load(mt, index);
}

static inline int mtree_store_range(struct rg_maple_tree *mt,
				    unsigned long first, unsigned long last,
				    void *entry, gfp_t gfp)
{
	(void)gfp;
	return rg_mtree_store_range(mt, first, last, entry);
}

static inline int mtree_store(struct rg_maple_tree *mt, unsigned long index,
			      void *entry, gfp_t gfp)
{
	(void)gfp;
	return rg_mtree_store(mt, index, entry);
}

static inline int mtree_insert_range(struct rg_maple_tree *mt,
				     unsigned long first, unsigned long last,
				     void *entry, gfp_t gfp)
{
	(void)gfp;
	return rg_mtree_insert_range(mt, first, last, entry);
}

static inline int mtree_insert(struct rg_maple_tree *mt, unsigned long index,
			       void *entry, gfp_t gfp)
{
	(void)gfp;
	return rg_mtree_insert(mt, index, entry);
}

static inline void *mtree_erase(struct rg_maple_tree *mt, unsigned long index)
{
	return rg_mtree_erase(mt, index);
}

static inline int mtree_alloc_range(struct rg_maple_tree *mt,
				    unsigned long *startp, void *entry,
				    unsigned long size, unsigned long min,
				    unsigned long max, gfp_t gfp)
{
	(void)gfp;
	return rg_mtree_alloc_range(mt, startp, entry, size, min, max);
}

static inline int mtree_alloc_rrange(struct rg_maple_tree *mt,
				     unsigned long *startp, void *entry,
				     unsigned long size, unsigned long min,
				     unsigned long max, gfp_t gfp)
{
	(void)gfp;
	return rg_mtree_alloc_rrange(mt, startp, entry, size, min, max);
}

static inline int mtree_alloc_cyclic(struct rg_maple_tree *mt,
				     unsigned long *startp, void *entry,
				     unsigned long range_lo,
				     unsigned long range_hi,
				     unsigned long *next, gfp_t gfp)
{
	(void)gfp;
	return rg_mtree_alloc_cyclic(mt, startp, entry, range_lo, range_hi,
				     next);
}

static inline void *mt_find(struct rg_maple_tree *mt, unsigned long *index,
			    unsigned long max)
{
	return rg_mtree_find(mt, index, max);
}

static inline void *mt_find_after(struct rg_maple_tree *mt,
				  unsigned long *index, unsigned long max)
{
	return rg_mtree_find_after(mt, index, max);
}

#define mt_for_each(mt, entry, index, max) rg_mt_for_each(mt, entry, index, max)

static inline unsigned int mt_height(const struct rg_maple_tree *mt)
{
	return rg_mtree_height(mt);
}

static inline bool mtree_empty(const struct rg_maple_tree *mt)
{
	return rg_mtree_empty(mt);
}

/* As the kernel's: under whatever the caller holds, never the tree lock. */
static inline int mt_validate(struct rg_maple_tree *mt)
{
	return rg_mtree_validate_locked(mt, NULL);
}

static inline void mt_dump(struct rg_maple_tree *mt, enum mt_dump_format fmt)
{
	(void)fmt;
	rg_mtree_dump_locked(mt, stderr);
}

/* ---- advanced API ---- */

static inline void *mas_walk(struct rg_ma_state *mas)
{
	return rg_mas_walk(mas);
}

static inline void *mas_find(struct rg_ma_state *mas, unsigned long max)
{
	return rg_mas_find(mas, max);
}

static inline void *mas_find_range(struct rg_ma_state *mas, unsigned long max)
{
	return rg_mas_find_range(mas, max);
}

static inline void *mas_find_rev(struct rg_ma_state *mas, unsigned long min)
{
	return rg_mas_find_rev(mas, min);
}

static inline void *mas_next(struct rg_ma_state *mas, unsigned long max)
{
	return rg_mas_next(mas, max);
}

static inline void *mas_next_range(struct rg_ma_state *mas, unsigned long max)
{
	return rg_mas_next_range(mas, max);
}

static inline void *mas_prev(struct rg_ma_state *mas, unsigned long min)
{
	return rg_mas_prev(mas, min);
}

static inline void *mas_prev_range(struct rg_ma_state *mas, unsigned long min)
{
	return rg_mas_prev_range(mas, min);
}

#define mas_for_each(mas, entry, max) rg_mas_for_each(mas, entry, max)

static inline void *mas_store(struct rg_ma_state *mas, void *entry)
{
	return rg_mas_store(mas, entry);
}

static inline int mas_store_gfp(struct rg_ma_state *mas, void *entry, gfp_t gfp)
{
	return rg_mas_store_gfp(mas, entry, gfp);
}

static inline void *mas_erase(struct rg_ma_state *mas)
{
	return rg_mas_erase(mas);
}

static inline int mas_empty_area(struct rg_ma_state *mas, unsigned long min,
				 unsigned long max, unsigned long size)
{
	return rg_mas_empty_area(mas, min, max, size);
}

static inline int mas_empty_area_rev(struct rg_ma_state *mas, unsigned long min,
				     unsigned long max, unsigned long size)
{
	return rg_mas_empty_area_rev(mas, min, max, size);
}

/* The tree lock through a state, as the kernel's mas_lock(). */
static inline void mas_lock(struct rg_ma_state *mas)
{
	rg_mtree_lock(mas->tree);
}

static inline void mas_unlock(struct rg_ma_state *mas)
{
	rg_mtree_unlock(mas->tree);
}

static inline void mas_pause(struct rg_ma_state *mas)
{
	rg_mas_pause(mas);
}

static inline void mas_reset(struct rg_ma_state *mas)
{
	rg_mas_reset(mas);
}

static inline void mas_set(struct rg_ma_state *mas, unsigned long index)
{
	rg_mas_set(mas, index);
}

static inline void mas_set_range(struct rg_ma_state *mas, unsigned long first,
				 unsigned long last)
{
	rg_mas_set_range(mas, first, last);
}

static inline int mas_preallocate(struct rg_ma_state *mas, void *entry,
				  gfp_t gfp)
{
	return rg_mas_preallocate(mas, entry, gfp);
}

static inline void mas_store_prealloc(struct rg_ma_state *mas, void *entry)
{
	rg_mas_store_prealloc(mas, entry);
}

static inline bool mas_is_active(const struct rg_ma_state *mas)
{
	return mas->status == RG_MAS_ACTIVE;
}

static inline bool mas_is_err(const struct rg_ma_state *mas)
{
	return mas->status == RG_MAS_ERROR;
}

/*
 * A hint that @nr entries will be stored through @mas (a bulk build). Nodes
 * are allocated as the stores need them, so this only checks its argument.
 */
static inline int mas_expected_entries(struct rg_ma_state *mas,
				       unsigned long nr)
{
	(void)nr;
	return mas ? 0 : -EINVAL;
}

static inline int mas_alloc_cyclic(struct rg_ma_state *mas,
				   unsigned long *startp, void *entry,
				   unsigned long range_lo,
				   unsigned long range_hi, unsigned long *next,
				   gfp_t gfp)
{
	(void)gfp;
	return rg_mas_alloc_cyclic(mas, startp, entry, range_lo, range_hi,
				   next);
}

/* Records nothing: the caller's lock (MT_FLAGS_LOCK_EXTERN) is its own. */
static inline void mt_set_external_lock(struct rg_maple_tree *mt, void *lock)
{
	(void)mt;
	(void)lock;
}

static inline void mas_destroy(struct rg_ma_state *mas)
{
	rg_mas_destroy(mas);
}

#ifdef __cplusplus
}
#endif
#endif /* REGION_LINUX_MAPLE_H */
