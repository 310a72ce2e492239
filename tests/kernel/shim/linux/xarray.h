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
static inline void *xa_entry_locked(const struct xarray *xa,
				    const struct xa_node *node,
				    unsigned int offset)
{
	(void)xa;
	(void)node;
	(void)offset;
	printf("BUG_ON: xa_entry_locked() reads a node (disabled sub-test ran)\n");
	abort();
}
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
