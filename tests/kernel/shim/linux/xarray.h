/* SPDX-License-Identifier: MIT */
/*
 * Kernel header name for the test-program shim (see ../kshim.h), plus what
 * lib/test_xarray.c needs beyond <region/linux/xarray.h>: the kernel's
 * xa_head() and xa_to_node(), a list_head, and a stand-in struct xa_node
 * with the fields the program's sub-tests name. Its first four bytes are
 * those of libregion's nodes (shift, offset, and the counts of slots in
 * use and of value entries, which the multi-index sub-tests read); the
 * sub-tests that read further (parent, array, private_list, slots) are
 * disabled (tests/kernel/disabled.txt).
 */
#include "../kshim.h"

#ifndef RG_KSHIM_XARRAY_H
#define RG_KSHIM_XARRAY_H

#ifndef round_down
#define round_down(x, y) ((x) & ~((__typeof__(x))((y)-1)))
#endif

struct list_head {
	struct list_head *next, *prev;
};
#define LIST_HEAD_INIT(name)     \
	{                        \
		&(name), &(name) \
	}
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)
static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}
static inline void list_add(struct list_head *n, struct list_head *h)
{
	n->next = h->next;
	n->prev = h;
	h->next->prev = n;
	h->next = n;
}
static inline void list_del_init(struct list_head *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	e->next = e->prev = e;
}
#define list_first_entry_or_null(h, type, member) \
	(list_empty(h) ? NULL :                   \
			 (type *)((char *)(h)->next - offsetof(type, member)))

/* Stand-in: shift..nr_values as in libregion's node; disabled sub-tests
 * alone name the rest. */
struct xa_node {
	unsigned char shift, offset, count, nr_values;
	struct xa_node *parent;
	struct xarray *array;
	struct list_head private_list;
};
typedef void (*xa_update_node_t)(struct xa_node *node);

static inline void *xa_head(const struct xarray *xa)
{
	return xa->xa_head;
}
static inline struct xa_node *xa_to_node(const void *entry)
{
	return (struct xa_node *)((uintptr_t)entry - 2);
}
/*
 * Slot @offset of a leaf, read through libregion's own state (a state on a
 * leaf reloads its slot), never through the node's layout; a node freed
 * meanwhile stays readable while the caller is an RCU reader (xas_lock()
 * below). The sub-tests read leaves only; anything else aborts.
 */
static inline void *xa_entry_locked(const struct xarray *xa,
				    const struct xa_node *node,
				    unsigned int offset)
{
	RG_XA_STATE(xas, (struct rg_xarray *)&xa->rg, 0);

	if (!node || node->shift || offset >= RG_XA_CHUNK_SIZE) {
		printf("BUG_ON: xa_entry_locked() of a node that is not a leaf\n");
		abort();
	}
	xas.xa_node = (struct rg_xa_node *)node;
	xas.xa_offset = (unsigned char)offset;
	return rg_xas_reload(&xas);
}

/*
 * In the kernel a spinlock holder is an RCU reader (preemption is off), so
 * a node freed under xa_lock() stays readable until the unlock, which the
 * shrink sub-test relies on; xas_lock() gives the same here.
 */
#undef xas_lock
#undef xas_unlock
#define xas_lock(xas) (rcu_read_lock(), xa_lock((xas)->xa))
#define xas_unlock(xas) (xa_unlock((xas)->xa), rcu_read_unlock())
static inline void xa_delete_node(struct xa_node *node, xa_update_node_t fn)
{
	(void)node;
	(void)fn;
	printf("BUG_ON: xa_delete_node() is not offered (disabled sub-test ran)\n");
	abort();
}
/* Node update callbacks (the page cache's workingset) are not offered. */
#define xas_set_update(xas, fn) ((void)(xas), (void)(fn))

#endif /* RG_KSHIM_XARRAY_H */
