/* SPDX-License-Identifier: MIT */
/*
 * Maple Tree: the one write path (maple_write.c). Every store, erase and
 * allocation of either API ends here, with the tree lock held.
 */
#ifndef RG_MAPLE_WRITE_H
#define RG_MAPLE_WRITE_H

#include "maple_node.h"

/*
 * rgi_mt_write() - the one write path: classify, preallocate (unless
 * @sheafp already holds a preallocation), store, account.
 * @mt: the tree (lock held).
 * @first, @last: the range.
 * @entry: the entry (NULL erases).
 * @sheafp: a caller's preallocated sheaf or NULL; consumed.
 * @req: nodes that preallocation requested (when @sheafp is given).
 * @batchp: with @sheafp: the preallocated deferred-free batch (RCU mode),
 *          consumed; may point to NULL.
 * @old: if not NULL, set to the entry that held @first.
 * Return: 0 or -ENOMEM (tree unchanged).
 */
RGI_HIDDEN int rgi_mt_write(struct rg_maple_tree *mt, unsigned long first,
			    unsigned long last, void *entry,
			    struct rg_slab_sheaf **sheafp, unsigned int req,
			    void **batchp, void **old);

/*
 * rgi_mt_write_path() - store a non-NULL entry over [first, last], which
 * lies inside slot path->off[h] of the leaf at the end of @path (a path
 * just walked, e.g. by a gap search), without walking again.
 * Return: 0 or -ENOMEM (tree unchanged).
 */
RGI_HIDDEN int rgi_mt_write_path(struct rg_maple_tree *mt,
				 const struct mt_path *path, unsigned int h,
				 unsigned long first, unsigned long last,
				 void *entry);

/*
 * rgi_mt_erase() - remove the range holding @index (lock held).
 * @old: set to its entry (NULL if @index was empty or on failure).
 * @first, @last: set to the range that held @index (empty or not).
 * Return: 0 or -ENOMEM (tree unchanged).
 */
RGI_HIDDEN int rgi_mt_erase(struct rg_maple_tree *mt, unsigned long index,
			    void **old, unsigned long *first,
			    unsigned long *last);

/*
 * rgi_mt_prealloc_count() - classify a store and return the worst-case
 * nodes it needs; *@bcap: the deferred-free batch it needs (RCU mode: the
 * most nodes and subtrees it can retire; 0 when it retires none).
 */
RGI_HIDDEN unsigned int rgi_mt_prealloc_count(struct rg_maple_tree *mt,
					      unsigned long first,
					      unsigned long last, void *entry,
					      int *type, unsigned int *bcap);

/* Count a preallocation of @req nodes in the tree's stats (lock held). */
RGI_HIDDEN void rgi_mt_account_request(struct rg_maple_tree *mt,
				       unsigned int req);

#endif /* RG_MAPLE_WRITE_H */
