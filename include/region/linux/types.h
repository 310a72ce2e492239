/* SPDX-License-Identifier: MIT */
/*
 * Kernel basics shared by every <region/linux/...> header: gfp_t and its
 * common values (accepted and ignored except __GFP_ZERO where documented),
 * and the errno values the kernel API returns.
 */
#ifndef REGION_LINUX_TYPES_H
#define REGION_LINUX_TYPES_H

#include <errno.h>
#include <limits.h>

typedef unsigned int gfp_t;

#define __GFP_ZERO 0x100u
#define GFP_KERNEL 0x1u
#define GFP_ATOMIC 0x2u
#define GFP_NOWAIT 0x4u
#define GFP_NOFS 0x8u
#define GFP_NOIO 0x10u

#endif /* REGION_LINUX_TYPES_H */
