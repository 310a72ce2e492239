/* SPDX-License-Identifier: MIT */
/* Kernel names for the bitmap module; included by <region/linux.h>. */
#ifndef REGION_LINUX_BITMAP_H
#define REGION_LINUX_BITMAP_H

#endif
