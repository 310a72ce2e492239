/* SPDX-License-Identifier: MIT */
/* xarray: multi-index entries (xa_multi.c); the array lock held */
#ifndef RG_XA_MULTI_H
#define RG_XA_MULTI_H

#include "xa_node.h"

/* Order of the entry in canonical slot @c of @node. */
static inline unsigned int xa_entry_order(const struct rg_xa_node *node,
					  unsigned int c)
{
	return node->shift + (unsigned int)__builtin_ctz(xa_span(node, c));
}

/* Nodes on the path from a missing child of shift @from down to @to. */
static inline unsigned int xa_levels(unsigned int from, unsigned int to)
{
	return (from - to) / RG_XA_CHUNK_SHIFT + 1;
}

RGI_HIDDEN unsigned long rgi_xa_node_base(const struct rg_xa_node *node);

RGI_HIDDEN unsigned int rgi_xa_path(struct rg_xarray *xa, unsigned long base,
				    unsigned long last, unsigned int shift,
				    struct xa_prealloc *pre,
				    struct rg_xa_node **out);

RGI_HIDDEN void *rgi_xas_store_multi(struct rg_xa_state *xas, void *entry);

RGI_HIDDEN unsigned long rgi_xa_cover_count(const struct rg_xarray *xa,
					    unsigned long lo, unsigned long hi);

RGI_HIDDEN unsigned long rgi_xas_have(const struct rg_xa_state *xas);

RGI_HIDDEN bool rgi_xas_reserve_nodes(struct rg_xa_state *xas,
				      unsigned long need);

RGI_HIDDEN unsigned long rgi_xa_split_count(unsigned int order,
					    unsigned int shift);

RGI_HIDDEN struct rg_xa_node *
rgi_xa_split_build(struct rg_xa_state *xas, unsigned int shift,
		   struct rg_xa_node *parent, unsigned int offset, void *entry,
		   unsigned int mk, unsigned int to, unsigned int n);

#endif /* RG_XA_MULTI_H */
