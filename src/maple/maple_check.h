/* SPDX-License-Identifier: MIT */
/* Maple Tree: validate and dump (maple_check.c); the tree lock held. */
#ifndef RG_MAPLE_CHECK_H
#define RG_MAPLE_CHECK_H

#include <stdio.h>

#include "maple_node.h"

/* rg_mtree_validate_locked() on a tree (not NULL). */
RGI_HIDDEN int rgi_mt_validate_locked(struct rg_maple_tree *mt,
				      const char **reason);
/* rg_mtree_dump_locked() on a tree and a stream (neither NULL). */
RGI_HIDDEN void rgi_mt_dump_locked(struct rg_maple_tree *mt, FILE *f);

#endif /* RG_MAPLE_CHECK_H */
