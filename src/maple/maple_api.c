// SPDX-License-Identifier: MIT
/*
 * Maple Tree: every public call (rg_mtree_*, rg_mas_*) and the glue they
 * share (allocation = search + store, the rg_ma_state error states).
 *
 * What a call here does
 *   It checks its arguments (the NULL-pointer table in <region/common.h>
 *   and the documented -EINVAL cases), takes the tree lock for the normal
 *   API (or, for a lock-free read in RCU mode, liburcu's read lock), and
 *   calls one internal entry point. The work lives by concern:
 *
 *   maple_node.{h,c}   node layout and encoding, the node cache
 *   maple_lock.{h,c}   the tree lock (a futex mutex)
 *   maple_walk.{h,c}   walks, find, the rg_ma_state cursor and iteration
 *   maple_write.{h,c}  the one write path: classify, preallocate, rebuild
 *   maple_gap.{h,c}    gap upkeep (inline, for the write path) and search
 *   maple_rcu.{h,c}    RCU mode: reader accessors, grace periods, frees
 *   maple_check.{h,c}  validate and dump
 *
 * What allocates
 *   Only stores (through rgi_mt_write()) and rg_mas_preallocate() (which
 *   in RCU mode also reserves the store's deferred-free batch).
 */
#include "maple_check.h"
#include "maple_gap.h"
#include "maple_lock.h"
#include "maple_rcu.h"
#include "maple_walk.h"
#include "maple_write.h"

/* ---- normal API ---- */

int rg_mtree_init(struct rg_maple_tree *mt, unsigned int flags)
{
	if (!mt || (flags & ~RG_MT_FLAGS_MASK))
		return -EINVAL;
	memset(mt, 0, sizeof(*mt));
	mt->root = NULL;
	mt->flags = flags;
	return 0;
}

void rg_mtree_lock(struct rg_maple_tree *mt)
{
	if (unlikely(!mt))
		return;
	mt_lock(mt);
}

void rg_mtree_unlock(struct rg_maple_tree *mt)
{
	if (unlikely(!mt))
		return;
	mt_unlock(mt);
}

void rg_mtree_destroy(struct rg_maple_tree *mt)
{
	void *dead = NULL;

	if (!mt)
		return;
	mt_lock(mt);
	if (mt_root_is_node(mt->root)) {
		if (mt_in_rcu(mt)) {
			dead = rgi_mt_destroy_rcu(mt);
		} else {
			rgi_mt_free_subtree(mt, mt->root);
			mt_set_height(mt, 0);
		}
	}
	__atomic_store_n(&mt->root, NULL, __ATOMIC_RELEASE);
	mt_unlock(mt);
	/* never wait for a grace period holding the lock (see clear_rcu) */
	if (dead)
		rgi_mt_free_dead(dead);
}

/* ---- RCU mode ---- */

void rg_mtree_set_rcu(struct rg_maple_tree *mt)
{
	if (!mt)
		return;
	mt_lock(mt);
	__atomic_store_n(&mt->flags, mt->flags | RG_MT_FLAGS_USE_RCU,
			 __ATOMIC_RELEASE);
	mt_unlock(mt);
}

void rg_mtree_clear_rcu(struct rg_maple_tree *mt)
{
	if (!mt)
		return;
	mt_lock(mt);
	if (!mt_in_rcu(mt)) {
		mt_unlock(mt);
		return;
	}
	/*
	 * Lock-free readers that saw the flag may still be walking: until a
	 * grace period has passed, writers go on replacing nodes (the drain
	 * count) and the advanced API's readers keep the RCU walk. The wait
	 * is outside the lock: a reader in its read-side critical section
	 * may need the lock (a normal-API read once the flag is clear).
	 */
	__atomic_store_n(&mt->flags,
			 (mt->flags & ~RG_MT_FLAGS_USE_RCU) +
				 MT_FLAGS_RCU_DRAIN_ONE,
			 __ATOMIC_RELEASE);
	mt_unlock(mt);
	rgi_mt_synchronize();
	mt_lock(mt);
	__atomic_store_n(&mt->flags, mt->flags - MT_FLAGS_RCU_DRAIN_ONE,
			 __ATOMIC_RELEASE);
	mt_unlock(mt);
}

bool rg_mtree_in_rcu(const struct rg_maple_tree *mt)
{
	return mt && mt_rcu_readers(mt);
}

void *rg_mtree_load(struct rg_maple_tree *mt, unsigned long index)
{
	void *e;

	if (unlikely(!mt))
		return NULL;
	if (mt_rcu_enter(mt)) {
		e = mt_load_impl(mt, index, true);
		mt_rcu_exit();
	} else {
		mt_lock(mt);
		e = mt_load_impl(mt, index, false);
		mt_unlock(mt);
	}
	return rg_mt_is_zero(e) ? NULL : e;
}

static int mt_check_entry(void *entry)
{
	return rg_mt_is_reserved(entry) ? -EINVAL : 0;
}

int rg_mtree_store_range(struct rg_maple_tree *mt, unsigned long first,
			 unsigned long last, void *entry)
{
	int ret;

	if (!mt || first > last || mt_check_entry(entry))
		return -EINVAL;
	mt_lock(mt);
	ret = rgi_mt_write(mt, first, last, entry, NULL, 0, NULL, NULL);
	mt_unlock(mt);
	return ret;
}

int rg_mtree_store(struct rg_maple_tree *mt, unsigned long index, void *entry)
{
	return rg_mtree_store_range(mt, index, index, entry);
}

int rg_mtree_insert_range(struct rg_maple_tree *mt, unsigned long first,
			  unsigned long last, void *entry)
{
	struct mt_pos pos;
	int ret = 0;

	if (!mt || first > last || mt_check_entry(entry))
		return -EINVAL;
	mt_lock(mt);
	rgi_mt_walk(mt, first, &pos);
	if (pos.entry || pos.rmax < last)
		ret = -EEXIST;
	else if (entry)
		ret = rgi_mt_write(mt, first, last, entry, NULL, 0, NULL, NULL);
	mt_unlock(mt);
	return ret;
}

int rg_mtree_insert(struct rg_maple_tree *mt, unsigned long index, void *entry)
{
	return rg_mtree_insert_range(mt, index, index, entry);
}

int rg_mtree_erase_err(struct rg_maple_tree *mt, unsigned long index,
		       void **old)
{
	unsigned long first, last;
	void *e;
	int ret;

	if (old)
		*old = NULL;
	if (!mt)
		return -EINVAL;
	mt_lock(mt);
	ret = rgi_mt_erase(mt, index, &e, &first, &last);
	mt_unlock(mt);
	if (!ret && old)
		*old = e;
	return ret;
}

void *rg_mtree_erase(struct rg_maple_tree *mt, unsigned long index)
{
	void *old;

	rg_mtree_erase_err(mt, index, &old);
	return old;
}

/* Store @entry in the window a search just found, reusing its path. */
static int mt_store_found(struct rg_maple_tree *mt, const struct mt_gap *g,
			  unsigned long start, unsigned long size, void *entry)
{
	if (g->h)
		return rgi_mt_write_path(mt, &g->path, g->h, start,
					 start + size - 1, entry);
	return rgi_mt_write(mt, start, start + size - 1, entry, NULL, 0, NULL,
			    NULL);
}

static int mt_alloc(struct rg_maple_tree *mt, unsigned long *startp,
		    void *entry, unsigned long size, unsigned long min,
		    unsigned long max, unsigned long align, bool rev)
{
	struct mt_gap g;
	unsigned long start;
	int ret;

	if (!mt || !startp || !mt_is_alloc(mt) || !entry ||
	    mt_check_entry(entry))
		return -EINVAL;
	ret = mt_window_ok(min, max, size, align);
	if (ret)
		return ret;
	mt_lock(mt);
	ret = rgi_mt_empty_area_g(mt, &g, min, max, size, align, rev, &start);
	if (!ret)
		ret = mt_store_found(mt, &g, start, size, entry);
	mt_unlock(mt);
	if (!ret)
		*startp = start;
	return ret;
}

int rg_mtree_alloc_range(struct rg_maple_tree *mt, unsigned long *startp,
			 void *entry, unsigned long size, unsigned long min,
			 unsigned long max)
{
	return mt_alloc(mt, startp, entry, size, min, max, 1, false);
}

int rg_mtree_alloc_rrange(struct rg_maple_tree *mt, unsigned long *startp,
			  void *entry, unsigned long size, unsigned long min,
			  unsigned long max)
{
	return mt_alloc(mt, startp, entry, size, min, max, 1, true);
}

int rg_mtree_alloc_range_aligned(struct rg_maple_tree *mt,
				 unsigned long *startp, void *entry,
				 unsigned long size, unsigned long min,
				 unsigned long max, unsigned long align)
{
	return mt_alloc(mt, startp, entry, size, min, max, align, false);
}

int rg_mtree_alloc_rrange_aligned(struct rg_maple_tree *mt,
				  unsigned long *startp, void *entry,
				  unsigned long size, unsigned long min,
				  unsigned long max, unsigned long align)
{
	return mt_alloc(mt, startp, entry, size, min, max, align, true);
}

/* rg_mtree_alloc_cyclic() and rg_mas_alloc_cyclic() once the lock is held. */
static int mt_alloc_cyclic_locked(struct rg_maple_tree *mt,
				  unsigned long *startp, void *entry,
				  unsigned long range_lo,
				  unsigned long range_hi, unsigned long *next)
{
	struct mt_gap g;
	unsigned long from = *next, start;
	int ret, wrapped = 0;

	if (from < range_lo || from > range_hi)
		from = range_lo;
	ret = rgi_mt_empty_area_g(mt, &g, from, range_hi, 1, 1, false, &start);
	if (ret == -EBUSY && from > range_lo) {
		ret = rgi_mt_empty_area_g(mt, &g, range_lo, from - 1, 1, 1,
					  false, &start);
		wrapped = 1;
	}
	if (!ret)
		ret = mt_store_found(mt, &g, start, 1, entry);
	if (ret)
		return ret;
	/* the previous allocation took the range's last index: *next
	 * wrapped, and this one reports it, as the kernel's does */
	if (mt->flags & MT_FLAGS_ALLOC_WRAPPED) {
		__atomic_store_n(&mt->flags,
				 mt->flags & ~MT_FLAGS_ALLOC_WRAPPED,
				 __ATOMIC_RELAXED);
		wrapped = 1;
	}
	*startp = start;
	*next = start + 1;
	if (*next == 0)
		__atomic_store_n(&mt->flags, mt->flags | MT_FLAGS_ALLOC_WRAPPED,
				 __ATOMIC_RELAXED);
	return wrapped;
}

int rg_mtree_alloc_cyclic(struct rg_maple_tree *mt, unsigned long *startp,
			  void *entry, unsigned long range_lo,
			  unsigned long range_hi, unsigned long *next)
{
	int ret;

	if (!mt || !startp || !next || !mt_is_alloc(mt) || !entry ||
	    mt_check_entry(entry) || range_lo > range_hi)
		return -EINVAL;
	mt_lock(mt);
	ret = mt_alloc_cyclic_locked(mt, startp, entry, range_lo, range_hi,
				     next);
	mt_unlock(mt);
	return ret;
}

void *rg_mtree_find(struct rg_maple_tree *mt, unsigned long *index,
		    unsigned long max)
{
	void *e;

	if (!mt || !index)
		return NULL;
	if (mt_rcu_enter(mt)) {
		e = rgi_mt_find(mt, index, max, true);
		mt_rcu_exit();
		return e;
	}
	mt_lock(mt);
	e = rgi_mt_find(mt, index, max, false);
	mt_unlock(mt);
	return e;
}

void *rg_mtree_find_after(struct rg_maple_tree *mt, unsigned long *index,
			  unsigned long max)
{
	if (!index || *index == 0)
		return NULL;
	return rg_mtree_find(mt, index, max);
}

unsigned int rg_mtree_height(const struct rg_maple_tree *mt)
{
	if (unlikely(!mt))
		return 0;
	return __atomic_load_n(&mt->height, __ATOMIC_RELAXED);
}

bool rg_mtree_empty(const struct rg_maple_tree *mt)
{
	if (unlikely(!mt))
		return false;
	return __atomic_load_n(&mt->root, __ATOMIC_RELAXED) == NULL;
}

size_t rg_mtree_bytes(const struct rg_maple_tree *mt)
{
	if (unlikely(!mt))
		return 0;
	return (size_t)__atomic_load_n(&mt->nodes, __ATOMIC_RELAXED) *
		       RG_MT_NODE_SIZE +
	       sizeof(*mt);
}

int rg_mtree_get_stats(struct rg_maple_tree *mt, struct rg_mtree_stats *st)
{
	if (!mt || !st)
		return -EINVAL;
	mt_lock(mt);
	*st = mt->stats;
	st->nodes = mt->nodes;
	st->height = mt->height;
	mt_unlock(mt);
	return 0;
}

void rg_mtree_reset_stats(struct rg_maple_tree *mt)
{
	if (unlikely(!mt))
		return;
	mt_lock(mt);
	memset(&mt->stats, 0, sizeof(mt->stats));
	mt_unlock(mt);
}

void rg_mtree_set_vacancy(struct rg_maple_tree *mt, bool on)
{
	if (unlikely(!mt))
		return;
	mt_lock(mt);
	__atomic_store_n(&mt->flags,
			 on ? mt->flags & ~RG_MT_FLAGS_NO_VACANCY :
			      mt->flags | RG_MT_FLAGS_NO_VACANCY,
			 __ATOMIC_RELAXED);
	mt_unlock(mt);
}

int rg_mtree_node_stats(struct rg_slab_stats *st)
{
	if (!st)
		return -EINVAL;
	return rgi_mt_node_stats(st);
}

void rg_mtree_rcu_barrier(void)
{
	rgi_mt_rcu_barrier();
}

/* ---- self-checks ---- */

int rg_mtree_validate_locked(struct rg_maple_tree *mt, const char **reason)
{
	if (!mt) {
		if (reason)
			*reason = "NULL tree";
		return -EINVAL;
	}
	return rgi_mt_validate_locked(mt, reason);
}

int rg_mtree_validate(struct rg_maple_tree *mt, const char **reason)
{
	int ret;

	if (!mt)
		return rg_mtree_validate_locked(mt, reason);
	mt_lock(mt);
	ret = rgi_mt_validate_locked(mt, reason);
	mt_unlock(mt);
	return ret;
}

void rg_mtree_dump_locked(struct rg_maple_tree *mt, FILE *f)
{
	if (!mt || !f)
		return;
	rgi_mt_dump_locked(mt, f);
}

void rg_mtree_dump(struct rg_maple_tree *mt, FILE *f)
{
	if (!mt || !f)
		return;
	mt_lock(mt);
	rgi_mt_dump_locked(mt, f);
	mt_unlock(mt);
}

/* ---- advanced API: positioning and iteration ---- */

/* The NULL-argument check of the advanced API: a state on a tree. */
static inline bool mas_ok(const struct rg_ma_state *mas)
{
	return mas && mas->tree;
}

void *rg_mas_walk(struct rg_ma_state *mas)
{
	void *e;

	if (unlikely(!mas_ok(mas)))
		return NULL;
	e = rgi_mas_walk_to(mas, mas->index, mt_rcu_walks(mas->tree));
	mt_rcu_read_done();
	return e;
}

void *rg_mas_next(struct rg_ma_state *mas, unsigned long max)
{
	void *e;

	if (unlikely(!mas_ok(mas)))
		return NULL;
	e = rgi_mas_next(mas, max, false);
	mt_rcu_read_done();
	return e;
}

void *rg_mas_next_range(struct rg_ma_state *mas, unsigned long max)
{
	void *e;

	if (unlikely(!mas_ok(mas)))
		return NULL;
	e = rgi_mas_next(mas, max, true);
	mt_rcu_read_done();
	return e;
}

void *rg_mas_prev(struct rg_ma_state *mas, unsigned long min)
{
	void *e;

	if (unlikely(!mas_ok(mas)))
		return NULL;
	e = rgi_mas_prev(mas, min, false);
	mt_rcu_read_done();
	return e;
}

void *rg_mas_prev_range(struct rg_ma_state *mas, unsigned long min)
{
	void *e;

	if (unlikely(!mas_ok(mas)))
		return NULL;
	e = rgi_mas_prev(mas, min, true);
	mt_rcu_read_done();
	return e;
}

void *rg_mas_find(struct rg_ma_state *mas, unsigned long max)
{
	void *e;

	if (unlikely(!mas_ok(mas)))
		return NULL;
	e = rgi_mas_find(mas, max, false);
	mt_rcu_read_done();
	return e;
}

void *rg_mas_find_range(struct rg_ma_state *mas, unsigned long max)
{
	void *e;

	if (unlikely(!mas_ok(mas)))
		return NULL;
	e = rgi_mas_find(mas, max, true);
	mt_rcu_read_done();
	return e;
}

void *rg_mas_find_rev(struct rg_ma_state *mas, unsigned long min)
{
	void *e;

	if (unlikely(!mas_ok(mas)))
		return NULL;
	e = rgi_mas_find_rev(mas, min);
	mt_rcu_read_done();
	return e;
}

void rg_mas_pause(struct rg_ma_state *mas)
{
	if (unlikely(!mas))
		return;
	mas->status = RG_MAS_PAUSE;
	mas->node = NULL;
}

void rg_mas_reset(struct rg_ma_state *mas)
{
	if (unlikely(!mas))
		return;
	mas->status = RG_MAS_START;
	mas->node = NULL;
}

void rg_mas_set_range(struct rg_ma_state *mas, unsigned long first,
		      unsigned long last)
{
	if (unlikely(!mas))
		return;
	mas->index = first;
	mas->last = last;
	rg_mas_reset(mas);
}

void rg_mas_set(struct rg_ma_state *mas, unsigned long index)
{
	rg_mas_set_range(mas, index, index);
}

/* ---- advanced API: writes ---- */

/*
 * RCU mode: rg_mas_preallocate() also reserves the batch that will carry
 * the store's retired nodes to call_rcu(); it lives in reserved[0].
 */
static void **mas_batchp(struct rg_ma_state *mas)
{
	return (void **)(void *)&mas->reserved[0];
}

static void mas_drop_batch(struct rg_ma_state *mas)
{
	void **bp = mas_batchp(mas);

	if (*bp) {
		rgi_mt_batch_free(*bp);
		*bp = NULL;
	}
}

static int mas_check(struct rg_ma_state *mas, void *entry)
{
	if (mas->index > mas->last || mt_check_entry(entry))
		return -EINVAL;
	return 0;
}

static void mas_fail(struct rg_ma_state *mas, int err)
{
	mas->status = RG_MAS_ERROR;
	mas->error = (short)err;
	mas->node = NULL;
}

/* After a write: active on the range written, nothing cached. */
static void mas_written(struct rg_ma_state *mas)
{
	mas_uncache(mas);
	mas->status = RG_MAS_ACTIVE;
}

static int mas_do_store(struct rg_ma_state *mas, void *entry, void **old)
{
	int ret;

	if (unlikely(!mas_ok(mas)))
		return -EINVAL;
	ret = mas_check(mas, entry);
	if (ret) {
		mas_fail(mas, ret);
		return ret;
	}
	if (mas->sheaf || mas->alloc_req)
		ret = rgi_mt_write(mas->tree, mas->index, mas->last, entry,
				   &mas->sheaf, mas->alloc_req, mas_batchp(mas),
				   old);
	else
		ret = rgi_mt_write(mas->tree, mas->index, mas->last, entry,
				   NULL, 0, NULL, old);
	mas->alloc_req = 0;
	mas_drop_batch(mas);
	if (ret) {
		mas_fail(mas, ret);
		return ret;
	}
	mas_written(mas);
	return 0;
}

void *rg_mas_store(struct rg_ma_state *mas, void *entry)
{
	void *old = NULL;

	if (mas_do_store(mas, entry, &old))
		return NULL;
	return old;
}

int rg_mas_store_gfp(struct rg_ma_state *mas, void *entry, unsigned int gfp)
{
	(void)gfp;
	return mas_do_store(mas, entry, NULL);
}

void *rg_mas_erase(struct rg_ma_state *mas)
{
	unsigned long first, last;
	void *e;
	int ret;

	if (unlikely(!mas_ok(mas)))
		return NULL;
	ret = rgi_mt_erase(mas->tree, mas->index, &e, &first, &last);
	if (ret) {
		mas_fail(mas, ret);
		return NULL;
	}
	mas->index = first;
	mas->last = last;
	mas_written(mas);
	return e;
}

/* rg_mas_empty_area*(): on success the state is set to the window. */
static int mas_empty_area(struct rg_ma_state *mas, unsigned long min,
			  unsigned long max, unsigned long size,
			  unsigned long align, bool rev)
{
	unsigned long start;
	int ret;

	if (unlikely(!mas_ok(mas)))
		return -EINVAL;
	ret = mt_empty_area(mas->tree, min, max, size, align, rev, &start);
	if (ret)
		return ret;
	rg_mas_set_range(mas, start, start + size - 1);
	return 0;
}

int rg_mas_empty_area(struct rg_ma_state *mas, unsigned long min,
		      unsigned long max, unsigned long size)
{
	return mas_empty_area(mas, min, max, size, 1, false);
}

int rg_mas_empty_area_rev(struct rg_ma_state *mas, unsigned long min,
			  unsigned long max, unsigned long size)
{
	return mas_empty_area(mas, min, max, size, 1, true);
}

int rg_mas_empty_area_aligned(struct rg_ma_state *mas, unsigned long min,
			      unsigned long max, unsigned long size,
			      unsigned long align)
{
	return mas_empty_area(mas, min, max, size, align, false);
}

int rg_mas_empty_area_rev_aligned(struct rg_ma_state *mas, unsigned long min,
				  unsigned long max, unsigned long size,
				  unsigned long align)
{
	return mas_empty_area(mas, min, max, size, align, true);
}

int rg_mas_alloc_cyclic(struct rg_ma_state *mas, unsigned long *startp,
			void *entry, unsigned long range_lo,
			unsigned long range_hi, unsigned long *next)
{
	struct rg_maple_tree *mt = mas ? mas->tree : NULL;
	int ret;

	if (!mt || !startp || !next || !mt_is_alloc(mt) || !entry ||
	    mt_check_entry(entry) || range_lo > range_hi)
		ret = -EINVAL;
	else
		ret = mt_alloc_cyclic_locked(mt, startp, entry, range_lo,
					     range_hi, next);
	if (!mas)
		return ret;
	if (ret < 0) {
		mas_fail(mas, ret);
		return ret;
	}
	mas->index = mas->last = *startp;
	mas_written(mas);
	return ret;
}

int rg_mas_preallocate(struct rg_ma_state *mas, void *entry, unsigned int gfp)
{
	struct rg_slab_cache *c;
	unsigned int req, bcap = 0;
	int ret;

	(void)gfp;
	if (unlikely(!mas_ok(mas)))
		return -EINVAL;
	ret = mas_check(mas, entry);
	if (ret)
		return ret;
	rg_mas_destroy(mas);
	req = rgi_mt_prealloc_count(mas->tree, mas->index, mas->last, entry,
				    NULL, &bcap);
	if (bcap) {
		void *b = rgi_mt_batch_alloc(bcap);

		if (!b)
			return -ENOMEM;
		*mas_batchp(mas) = b;
	}
	if (req) {
		c = rgi_mt_cache();
		if (c)
			mas->sheaf = rg_slab_prefill_sheaf(c, req);
		if (!mas->sheaf) {
			mas_drop_batch(mas);
			return -ENOMEM;
		}
		rgi_mt_account_request(mas->tree, req);
	}
	mas->alloc_req = req;
	return 0;
}

void rg_mas_store_prealloc(struct rg_ma_state *mas, void *entry)
{
	int ret;

	if (unlikely(!mas_ok(mas)))
		return;
	ret = rgi_mt_write(mas->tree, mas->index, mas->last, entry, &mas->sheaf,
			   mas->alloc_req, mas_batchp(mas), NULL);
	RGI_ASSERT(ret == 0);
	mas->alloc_req = 0;
	mas_drop_batch(mas);
	mas_written(mas);
}

void rg_mas_destroy(struct rg_ma_state *mas)
{
	if (unlikely(!mas))
		return;
	if (mas->sheaf) {
		rg_slab_return_sheaf(rgi_mt_cache(), mas->sheaf);
		mas->sheaf = NULL;
	}
	mas->alloc_req = 0;
	mas_drop_batch(mas);
}
