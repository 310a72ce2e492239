// SPDX-License-Identifier: MIT
/*
 * xarray: the normal API (rg_xa_*). Theory of operation.
 *
 * Locking
 *   Every normal call takes xa->lock; the rg_xas_* calls, the *_locked
 *   calls and the helpers of the other files expect it held. Limits: indices are
 *   unsigned long; height is at most 11 levels on 64-bit.
 *
 * Where the rest is
 *   The layout, the walks and the store of one slot: xa_node.c; the
 *   invariants: xa_check.c.
 */
#include "xa_state.h"

/* ---- normal calls under the caller's lock ---- */

/*
 * Store @entry (raw: XA_ZERO reserves; NULL erases) with the normal
 * API's marks: a new entry of an allocating array is not free.
 */
static int xa_store_raw(struct rg_xarray *xa, unsigned long index, void *entry,
			void **old)
{
	RG_XA_STATE(xas, xa, index);
	/* A fresh state of order 0 and an entry the callers checked: the
	 * slot's store or erase without rg_xas_store()'s checks. */
	void *prev = entry ? xas_store_entry(&xas, entry) : xas_erase(&xas);

	if (rg_xas_error(&xas))
		return rg_xas_error(&xas);
	if (entry && !prev && xa_track_free(xa))
		rgi_xas_mark(&xas, RG_XA_FREE_MARK, false);
	if (old)
		*old = prev;
	return 0;
}

static inline int xa_store_locked(struct rg_xarray *xa, unsigned long index,
				  void *entry, void **old)
{
	void *prev = NULL;
	int err;

	if (unlikely(!xa) || xa_is_advanced(entry))
		return -EINVAL;
	if (!entry && xa_track_free(xa))
		entry = XA_ZERO;
	err = xa_store_raw(xa, index, entry, &prev);
	if (!err && old)
		*old = xa_zero_to_null(prev);
	return err;
}

int rg_xa_store_locked(struct rg_xarray *xa, unsigned long index, void *entry,
		       void **old)
{
	return xa_store_locked(xa, index, entry, old);
}

int rg_xa_insert_locked(struct rg_xarray *xa, unsigned long index, void *entry)
{
	RG_XA_STATE(xas, xa, index);

	if (unlikely(!xa) || xa_is_advanced(entry))
		return -EINVAL;
	if (xas_load(&xas))
		return -EBUSY;
	return xa_store_raw(xa, index, entry ? entry : XA_ZERO, NULL);
}

static inline void *xa_erase_locked(struct rg_xarray *xa, unsigned long index)
{
	RG_XA_STATE(xas, xa, index);

	if (unlikely(!xa))
		return NULL;
	return xa_zero_to_null(xas_erase(&xas));
}

void *rg_xa_erase_locked(struct rg_xarray *xa, unsigned long index)
{
	return xa_erase_locked(xa, index);
}

int rg_xa_cmpxchg_locked(struct rg_xarray *xa, unsigned long index, void *old,
			 void *entry, void **cur)
{
	RG_XA_STATE(xas, xa, index);
	void *curr, *eff;
	int err = 0;

	if (unlikely(!xa) || xa_is_advanced(entry))
		return -EINVAL;
	curr = xas_load(&xas);
	/* What the slot would hold: NULL reserves in an allocating array. */
	eff = entry ? entry : xa_track_free(xa) ? XA_ZERO : NULL;
	/* Raw: RG_XA_ZERO_ENTRY matches a reservation, as in the kernel. */
	if (curr != old)
		err = -EBUSY;
	else if (eff != curr)
		err = xa_store_raw(xa, index, eff, NULL);
	if (err != -ENOMEM && cur)
		*cur = xa_zero_to_null(curr);
	return err;
}

int rg_xa_alloc_locked(struct rg_xarray *xa, unsigned long *id, void *entry,
		       unsigned long min, unsigned long max)
{
	struct xa_cursor c;
	int err;

	if (!xa || !id || !xa_track_free(xa) || xa_is_advanced(entry))
		return -EINVAL;
	/* an empty range has no free index, as in the kernel */
	if (min > max)
		return -EBUSY;
	if ((xa->flags & RG_XA_FLAGS_ALLOC1) == RG_XA_FLAGS_ALLOC1 && !min) {
		if (max == 0)
			return -EBUSY;
		min = 1;
	}
	if (!rgi_xa_seek(xa, min, max, XA_FILTER_FREE, &c))
		return -EBUSY;
	err = xa_store_raw(xa, c.index, entry ? entry : XA_ZERO, NULL);
	if (!err)
		*id = c.index;
	return err;
}

int rg_xa_alloc_cyclic_locked(struct rg_xarray *xa, uint32_t *id, void *entry,
			      uint32_t min, uint32_t max, uint32_t *next)
{
	uint32_t lo;
	unsigned long got = 0;
	int ret;

	if (!xa || !id || !next)
		return -EINVAL;
	lo = *next > min ? *next : min;
	ret = rg_xa_alloc_locked(xa, &got, entry, lo, max);
	if (!ret && (xa->flags & RG_XA_FLAGS_ALLOC_WRAPPED)) {
		xa_flags_clear(xa, RG_XA_FLAGS_ALLOC_WRAPPED);
		ret = 1;
	}
	if (ret == -EBUSY && lo > min) {
		/* [lo, max] is full: start again at min. */
		ret = rg_xa_alloc_locked(xa, &got, entry, min, max);
		if (!ret) {
			xa_flags_clear(xa, RG_XA_FLAGS_ALLOC_WRAPPED);
			ret = 1;
		}
	}
	if (ret < 0)
		return ret;
	*id = (uint32_t)got;
	*next = (uint32_t)got + 1;
	if (!*next)
		xa_flags_or(xa, RG_XA_FLAGS_ALLOC_WRAPPED);
	return ret;
}

int rg_xa_alloc_cyclic(struct rg_xarray *xa, uint32_t *id, void *entry,
		       uint32_t min, uint32_t max, uint32_t *next)
{
	int err;

	if (!xa)
		return -EINVAL;
	xa_mutex_lock(xa);
	err = rg_xa_alloc_cyclic_locked(xa, id, entry, min, max, next);
	xa_mutex_unlock(xa);
	return err;
}

static bool xa_filter_ok(const struct rg_xarray *xa, rg_xa_mark_t filter)
{
	if (filter == RG_XA_PRESENT)
		return true;
	if (filter > RG_XA_MARK_MAX)
		return false;
	return !(xa_track_free(xa) && filter == RG_XA_FREE_MARK);
}

static int xa_mark_locked(struct rg_xarray *xa, unsigned long index,
			  rg_xa_mark_t mark, bool set)
{
	RG_XA_STATE(xas, xa, index);

	if (unlikely(!xa) || mark == RG_XA_PRESENT || !xa_filter_ok(xa, mark))
		return -EINVAL;
	if (!xas_load(&xas))
		return -ENOENT;
	rgi_xas_mark(&xas, mark, set);
	return 0;
}

int rg_xa_set_mark_locked(struct rg_xarray *xa, unsigned long index,
			  rg_xa_mark_t mark)
{
	return xa_mark_locked(xa, index, mark, true);
}

int rg_xa_clear_mark_locked(struct rg_xarray *xa, unsigned long index,
			    rg_xa_mark_t mark)
{
	return xa_mark_locked(xa, index, mark, false);
}

size_t rg_xa_bytes_locked(const struct rg_xarray *xa)
{
	return xa ? rgi_xa_node_bytes(xa) + sizeof(*xa) : 0;
}

/* ---- public calls ---- */

int rg_xa_init_flags(struct rg_xarray *xa, unsigned int flags)
{
	if (!xa || (flags & ~(RG_XA_FLAGS_ALLOC1 | RG_XA_FLAGS_RCU)) ||
	    ((flags & RG_XA_FLAGS_ALLOC1) && !(flags & RG_XA_FLAGS_ALLOC)))
		return -EINVAL;
	pthread_mutex_init(&xa->lock, NULL);
	xa->flags = flags;
	xa->head_marks = 0;
	xa->head = NULL;
	xa->nr_nodes = 0;
	xa->owner = 0;
	return 0;
}

void rg_xa_init(struct rg_xarray *xa)
{
	rg_xa_init_flags(xa, 0);
}

void rg_xa_destroy(struct rg_xarray *xa)
{
	if (unlikely(!xa))
		return;
	xa_mutex_lock(xa);
	rgi_xa_destroy_nolock(xa);
	xa_mutex_unlock(xa);
}

void *rg_xa_load(struct rg_xarray *xa, unsigned long index)
{
	bool taken;
	RG_XA_STATE(xas, xa, index);
	void *e;

	if (unlikely(!xa))
		return NULL;
	if (xa_rcu_thread()) {
		if (unlikely(!(__atomic_load_n(&xa->flags, __ATOMIC_ACQUIRE) &
			       RG_XA_FLAGS_RCU)))
			rgi_xa_rcu_enable(xa);
		urcu_memb_read_lock();
		do
			e = xa_rcu_walk(xa, index);
		while (unlikely(e == RG_XA_RETRY_ENTRY));
		xa_rcu_read_done();
		urcu_memb_read_unlock();
		if (likely(e != XA_RCU_LOCKED))
			return xa_zero_to_null(e);
	}
	taken = xa_read_lock(xa);
	e = xa_zero_to_null(xas_load(&xas));
	xa_read_unlock(xa, taken);
	return e;
}

int rg_xa_store(struct rg_xarray *xa, unsigned long index, void *entry,
		void **old)
{
	int err;

	if (unlikely(!xa))
		return -EINVAL;
	xa_mutex_lock(xa);
	err = xa_store_locked(xa, index, entry, old);
	xa_mutex_unlock(xa);
	return err;
}

/* Store with order under the lock: the normal API's marks and checks. */
static int xa_store_order_locked(struct rg_xarray *xa, unsigned long index,
				 unsigned int order, void *entry, void **old)
{
	RG_XA_STATE(xas, xa, 0);
	void *prev;

	rg_xas_set_order(&xas, index, order);
	if (rg_xas_error(&xas) || xas.xa_index != index)
		return -EINVAL;
	if (!entry && xa_track_free(xa))
		entry = XA_ZERO;
	prev = xas_store(&xas, entry);
	if (rg_xas_error(&xas))
		return rg_xas_error(&xas);
	if (entry && xa_track_free(xa))
		rgi_xas_mark(&xas, RG_XA_FREE_MARK, false);
	if (old)
		*old = xa_zero_to_null(prev);
	return 0;
}

int rg_xa_store_order(struct rg_xarray *xa, unsigned long index,
		      unsigned int order, void *entry, void **old)
{
	int err;

	if (unlikely(!xa) || xa_is_advanced(entry))
		return -EINVAL;
	xa_mutex_lock(xa);
	err = xa_store_order_locked(xa, index, order, entry, old);
	xa_mutex_unlock(xa);
	return err;
}

/* Largest order of an aligned piece at @i that ends at or before @last. */
static unsigned int xa_range_order(unsigned long i, unsigned long last)
{
	unsigned int k = 0;

	while (k < XA_BITS && !(i & (1UL << k)) &&
	       (k + 1 == XA_BITS ? i == 0 && last == ULONG_MAX :
				   i + ((2UL << k) - 1) <= last &&
					   i + ((2UL << k) - 1) >= i))
		k++;
	return k;
}

int rg_xa_store_range(struct rg_xarray *xa, unsigned long first,
		      unsigned long last, void *entry)
{
	RG_XA_STATE(xas, xa, 0);
	unsigned long i, need = 0;
	int err = 0;

	if (unlikely(!xa) || xa_is_advanced(entry) || first > last ||
	    (xa_is_node(entry) && first != last))
		return -EINVAL;
	xa_mutex_lock(xa);
	/* Count the nodes of every piece on the tree as it is (an upper
	 * bound), take them all, then store: all or nothing. */
	for (i = first; entry;) {
		unsigned int k = xa_range_order(i, last);
		unsigned long end =
			k >= XA_BITS ? ULONG_MAX : i + ((1UL << k) - 1);
		struct rg_xa_node *unused;

		need += rgi_xa_path(xa, i, end, k - k % RG_XA_CHUNK_SHIFT, NULL,
				    &unused);
		if (end >= last)
			break;
		i = end + 1;
	}
	if (!rgi_xas_reserve_nodes(&xas, need)) {
		rgi_xas_free_nodes(&xas);
		err = -ENOMEM;
		goto out;
	}
	for (i = first;;) {
		unsigned int k = xa_range_order(i, last);
		unsigned long end =
			k >= XA_BITS ? ULONG_MAX : i + ((1UL << k) - 1);

		rg_xas_set_order(&xas, i, k);
		xas_store(&xas, entry);
		err = rg_xas_error(&xas);
		if (err) {
			/* Only a one-index range of an entry with the low
			 * bits 10 inside an entry of order 6 or more, which
			 * would take it: refused, nothing stored. */
			RGI_ASSERT(first == last && xa_is_node(entry));
			break;
		}
		if (entry && xa_track_free(xa))
			rgi_xas_mark(&xas, RG_XA_FREE_MARK, false);
		if (end >= last)
			break;
		i = end + 1;
	}
	rgi_xas_free_nodes(&xas);
out:
	xa_mutex_unlock(xa);
	return err;
}

int rg_xa_get_order(struct rg_xarray *xa, unsigned long index)
{
	RG_XA_STATE(xas, xa, index);
	struct rg_xa_node *leaf;
	bool taken;
	int order = 0;

	if (unlikely(!xa))
		return -EINVAL;
	taken = xa_read_lock(xa);
	if (xas_walk(&xas, &leaf) && leaf &&
	    xa_slot_is_entry(leaf->shift, leaf->slots[xas.xa_offset]))
		order = (int)xa_entry_order(leaf, xas.xa_offset);
	xa_read_unlock(xa, taken);
	return order;
}

int rg_xa_insert(struct rg_xarray *xa, unsigned long index, void *entry)
{
	int err;

	if (unlikely(!xa))
		return -EINVAL;
	xa_mutex_lock(xa);
	err = rg_xa_insert_locked(xa, index, entry);
	xa_mutex_unlock(xa);
	return err;
}

void *rg_xa_erase(struct rg_xarray *xa, unsigned long index)
{
	void *old;

	if (unlikely(!xa))
		return NULL;
	xa_mutex_lock(xa);
	old = xa_erase_locked(xa, index);
	xa_mutex_unlock(xa);
	return old;
}

int rg_xa_cmpxchg(struct rg_xarray *xa, unsigned long index, void *old,
		  void *entry, void **cur)
{
	int err;

	if (unlikely(!xa))
		return -EINVAL;
	xa_mutex_lock(xa);
	err = rg_xa_cmpxchg_locked(xa, index, old, entry, cur);
	xa_mutex_unlock(xa);
	return err;
}

int rg_xa_reserve(struct rg_xarray *xa, unsigned long index)
{
	RG_XA_STATE(xas, xa, index);
	int err = 0;

	if (unlikely(!xa))
		return -EINVAL;
	xa_mutex_lock(xa);
	if (!xas_load(&xas)) {
		xas_store(&xas, XA_ZERO);
		err = rg_xas_error(&xas);
		if (!err && xa_track_free(xa))
			rg_xas_clear_mark(&xas, RG_XA_FREE_MARK);
	}
	xa_mutex_unlock(xa);
	return err;
}

void rg_xa_release(struct rg_xarray *xa, unsigned long index)
{
	RG_XA_STATE(xas, xa, index);

	if (unlikely(!xa))
		return;
	xa_mutex_lock(xa);
	if (xas_load(&xas) == XA_ZERO)
		xas_store(&xas, NULL);
	xa_mutex_unlock(xa);
}

int rg_xa_alloc(struct rg_xarray *xa, unsigned long *id, void *entry,
		unsigned long min, unsigned long max)
{
	int err;

	if (!xa)
		return -EINVAL;
	xa_mutex_lock(xa);
	err = rg_xa_alloc_locked(xa, id, entry, min, max);
	xa_mutex_unlock(xa);
	return err;
}

void *rg_xa_find(struct rg_xarray *xa, unsigned long *index, unsigned long max,
		 rg_xa_mark_t filter)
{
	bool taken;
	struct xa_cursor c;
	void *e = NULL;

	if (unlikely(!xa || !index) || !xa_filter_ok(xa, filter))
		return NULL;
	taken = xa_read_lock(xa);
	if (rgi_xa_seek(xa, *index, max, filter, &c)) {
		e = *c.slot;
		*index = c.index;
	}
	xa_read_unlock(xa, taken);
	return e;
}

void *rg_xa_find_after(struct rg_xarray *xa, unsigned long *index,
		       unsigned long max, rg_xa_mark_t filter)
{
	unsigned long i;
	struct xa_cursor c;
	void *e = NULL;
	bool taken;

	if (unlikely(!xa || !index) || *index == ULONG_MAX ||
	    !xa_filter_ok(xa, filter))
		return NULL;
	i = *index + 1;
	taken = xa_read_lock(xa);
	while (rgi_xa_seek(xa, i, max, filter, &c)) {
		struct rg_xa_node *n = c.node;
		unsigned int off = n ? (unsigned int)(c.slot - n->slots) : 0;
		unsigned long first, size;

		first = n ? xa_slot_base(c.index, n->shift, off) : 0;
		if (first >= i) {
			e = *c.slot;
			*index = c.index;
			break;
		}
		/* A multi-index entry that began at or before *index: the
		 * caller has seen it; go on after its last index. */
		size = (unsigned long)xa_span(n, off) << n->shift;
		if (first + (size - 1) >= max)
			break;
		i = first + size;
	}
	xa_read_unlock(xa, taken);
	return e;
}

int rg_xa_set_mark(struct rg_xarray *xa, unsigned long index, rg_xa_mark_t mark)
{
	int err;

	if (unlikely(!xa))
		return -EINVAL;
	xa_mutex_lock(xa);
	err = rg_xa_set_mark_locked(xa, index, mark);
	xa_mutex_unlock(xa);
	return err;
}

int rg_xa_clear_mark(struct rg_xarray *xa, unsigned long index,
		     rg_xa_mark_t mark)
{
	int err;

	if (unlikely(!xa))
		return -EINVAL;
	xa_mutex_lock(xa);
	err = rg_xa_clear_mark_locked(xa, index, mark);
	xa_mutex_unlock(xa);
	return err;
}

bool rg_xa_get_mark(struct rg_xarray *xa, unsigned long index,
		    rg_xa_mark_t mark)
{
	bool taken;
	struct rg_xa_node *leaf;
	RG_XA_STATE(xas, xa, index);
	void **slot;
	bool r = false;

	if (unlikely(!xa) || mark == RG_XA_PRESENT || !xa_filter_ok(xa, mark))
		return false;
	taken = xa_read_lock(xa);
	slot = xas_walk(&xas, &leaf);
	if (slot && *slot) {
		if (leaf)
			r = leaf->marks[mark] & xa_bit(xas.xa_offset);
		else
			r = xa->head_marks & (1u << mark);
	}
	xa_read_unlock(xa, taken);
	return r;
}

bool rg_xa_empty(struct rg_xarray *xa)
{
	bool taken;
	bool r;

	if (unlikely(!xa))
		return false;
	taken = xa_read_lock(xa);
	r = xa->head == NULL;
	xa_read_unlock(xa, taken);
	return r;
}

size_t rg_xa_bytes(struct rg_xarray *xa)
{
	bool taken;
	size_t r;

	if (unlikely(!xa))
		return 0;
	taken = xa_read_lock(xa);
	r = rgi_xa_node_bytes(xa) + sizeof(*xa);
	xa_read_unlock(xa, taken);
	return r;
}

size_t rg_xa_node_count(struct rg_xarray *xa)
{
	bool taken;
	size_t r;

	if (unlikely(!xa))
		return 0;
	taken = xa_read_lock(xa);
	r = xa->nr_nodes;
	xa_read_unlock(xa, taken);
	return r;
}

size_t rg_xa_node_size(void)
{
	return sizeof(struct rg_xa_node);
}

void rg_xa_rcu_barrier(void)
{
#ifdef XA_TSAN
	/* liburcu's own bookkeeping, ordered by code TSan cannot see. */
	__tsan_ignore_thread_begin();
	urcu_memb_barrier();
	__tsan_ignore_thread_end();
#else
	urcu_memb_barrier();
#endif
}
