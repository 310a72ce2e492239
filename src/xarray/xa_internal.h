/* SPDX-License-Identifier: MIT */
/*
 * Private interface of the xarray for the IDA (src/ida): node layout, a
 * cursor naming one slot, and the unlocked operations the IDA composes under
 * the array's own lock. Nothing here is exported.
 */
#ifndef RG_XA_INTERNAL_H
#define RG_XA_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "region/xarray.h"
#include "rg_internal.h"

/* Filter for rgi_xa_seek(): free indices (slots with the free mark, empty
 * slots of interior nodes, and indices beyond the tree). */
#define RGI_XA_FILTER_FREE 16U

/* Reservation entry: reads as NULL, occupies the index. */
#define RGI_XA_ZERO RG_XA_ZERO_ENTRY
/* Filter bit for rgi_xa_seek(): also stop at reservations. */
#define RGI_XA_FILTER_RAW 32U

/*
 * struct rg_xa_node - one 64-slot node (opaque in <region/xarray.h>).
 * @shift: bits of index below this node's slots (0 for a leaf).
 * @offset: slot of this node in its parent.
 * @parent: parent node, NULL for the top node.
 * @used: bit n set iff slots[n] is not NULL.
 * @marks: per mark, bit n set iff the entry in slot n (leaf) or some entry
 *         below slot n (interior) has the mark; for the free mark of an
 *         allocating array, iff slot n has a free index below it.
 * @slots: entries (leaf) or tagged child nodes (interior).
 */
struct rg_xa_node {
	unsigned char shift;
	unsigned char offset;
	struct rg_xa_node *parent;
	uint64_t used;
	uint64_t marks[RG_XA_MARK_MAX + 1];
	void *slots[RG_XA_CHUNK_SIZE];
};

/*
 * struct rgi_xa_cursor - where rgi_xa_seek() stopped.
 * @node: the leaf holding @slot, or NULL when @slot is the array's head or
 *        when no slot exists yet for @index.
 * @slot: the slot of @index, or NULL if storing there needs new nodes.
 * @index: the index found.
 */
struct rgi_xa_cursor {
	struct rg_xa_node *node;
	void **slot;
	unsigned long index;
};

static inline void rgi_xa_lock(struct rg_xarray *xa)
{
	pthread_mutex_lock(&xa->lock);
}

static inline void rgi_xa_unlock(struct rg_xarray *xa)
{
	pthread_mutex_unlock(&xa->lock);
}

/* All of the following expect the array's lock to be held. */

/* First index in [start, max] passing @filter; false if none. */
RGI_HIDDEN bool rgi_xa_seek(struct rg_xarray *xa, unsigned long start,
			    unsigned long max, unsigned int filter,
			    struct rgi_xa_cursor *c);

/* The slot of @index if it exists (it may hold NULL), else NULL. */
RGI_HIDDEN void **rgi_xa_slot(struct rg_xarray *xa, unsigned long index,
			      struct rg_xa_node **leaf);

/*
 * Store non-NULL @entry at @index. When the slot was empty and @clear_free
 * is set, the free mark of the slot is cleared (allocating arrays); an IDA
 * passes false and manages the free mark itself. 0 or -ENOMEM (unchanged).
 */
RGI_HIDDEN int rgi_xa_store_locked(struct rg_xarray *xa, unsigned long index,
				   void *entry, void **old, bool clear_free);

/* Remove the entry at @index; returns it (raw, RGI_XA_ZERO included). */
RGI_HIDDEN void *rgi_xa_erase_locked(struct rg_xarray *xa, unsigned long index);

/* Set or clear the free mark of the slot at @index (which must exist). */
RGI_HIDDEN void rgi_xa_set_free(struct rg_xarray *xa, struct rg_xa_node *leaf,
				unsigned long index, bool free);

/* Free every node; the array becomes empty. */
RGI_HIDDEN void rgi_xa_destroy_locked(struct rg_xarray *xa);

/*
 * Check invariants. With @owner_free the owner decides the free mark of
 * occupied slots (an IDA); otherwise occupied slots must not be free.
 */
RGI_HIDDEN int rgi_xa_validate_locked(struct rg_xarray *xa, bool owner_free,
				      const char **reason);

typedef void (*rgi_xa_dump_fn)(FILE *f, unsigned long index, void *entry);
RGI_HIDDEN void rgi_xa_dump_locked(struct rg_xarray *xa, FILE *f,
				   rgi_xa_dump_fn fn);

/* Bytes of the nodes the array holds. */
RGI_HIDDEN size_t rgi_xa_node_bytes(const struct rg_xarray *xa);

#endif /* RG_XA_INTERNAL_H */
