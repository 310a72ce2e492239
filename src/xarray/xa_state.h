/* SPDX-License-Identifier: MIT */
/* xarray: the advanced state API (xa_state.c); the array lock held */
#ifndef RG_XA_STATE_H
#define RG_XA_STATE_H

#include "xa_multi.h"

/* rg_xas_load(), for the calls here: inlined. */
static RGI_ALWAYS_INLINE void *xas_load(struct rg_xa_state *xas)
{
	struct rg_xa_node *leaf;
	void **slot;

	if (rg_xas_error(xas))
		return NULL;
	xas->xa_node = XAS_RESTART;
	slot = xas_walk(xas, &leaf);
	return slot ? *slot : NULL;
}

/* rg_xas_store(), for the calls here. */
static inline void *xas_store(struct rg_xa_state *xas, void *entry)
{
	if (rg_xas_error(xas))
		return NULL;
	if (xa_is_advanced(entry) && entry != RG_XA_ZERO_ENTRY &&
	    entry != RG_XA_RETRY_ENTRY) {
		rg_xas_set_err(xas, -EINVAL);
		return NULL;
	}
	if (xas->xa_shift | xas->xa_sibs)
		return rgi_xas_store_multi(xas, entry);
	return entry ? xas_store_entry(xas, entry) : xas_erase(xas);
}

RGI_HIDDEN void rgi_xas_free_nodes(struct rg_xa_state *xas);

RGI_HIDDEN void rgi_xas_mark(const struct rg_xa_state *xas, rg_xa_mark_t mark,
			     bool set);

#endif /* RG_XA_STATE_H */
