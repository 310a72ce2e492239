/* SPDX-License-Identifier: MIT */
/* Kernel names for the slab module; included by <region/linux.h>. */
#ifndef REGION_LINUX_SLAB_H
#define REGION_LINUX_SLAB_H

#endif
