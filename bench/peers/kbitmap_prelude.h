/* SPDX-License-Identifier: MIT */
/*
 * Force-included when bench/peers/kernel-bench.sh compiles the kernel's
 * own lib/bitmap.c and lib/find_bit.c against the kernel's userspace tools
 * headers (tools/include) for the bitmap peer of bench/peers/kernel_ops.c.
 *
 * The tools headers declare four of lib/bitmap.c's functions with other
 * argument types (int where the kernel has unsigned int): their
 * declarations are renamed out of the way so the kernel's definitions
 * compile; nothing the benchmark calls uses them. __ALIGN_MASK() is the
 * kernel's round-up-to-mask helper, missing from the tools headers.
 * Headers the tools tree lacks are empty files made by the script; the
 * peer is linked with --gc-sections, so functions that would need them
 * (and are never called) drop out, and a call the benchmark does make to
 * something missing fails the link.
 */
#define __bitmap_or rg_tools_decl___bitmap_or
#define __bitmap_weight rg_tools_decl___bitmap_weight
#define bitmap_zalloc rg_tools_decl_bitmap_zalloc
#define bitmap_free rg_tools_decl_bitmap_free
#include <linux/bitmap.h>
#undef __bitmap_or
#undef __bitmap_weight
#undef bitmap_zalloc
#undef bitmap_free

#ifndef __ALIGN_MASK
#define __ALIGN_MASK(x, mask) (((x) + (mask)) & ~(mask))
#endif
