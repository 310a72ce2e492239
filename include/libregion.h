/* SPDX-License-Identifier: MIT */
/*
 * libregion: region, ID and object allocators from the Linux kernel, in
 * userspace. This umbrella header includes every module's header; include
 * <region/linux.h> as well for the kernel's names.
 */
#ifndef LIBREGION_H
#define LIBREGION_H

#include "region/common.h"
#include "region/version.h"
#include "region/slab.h"
#include "region/xarray.h"
#include "region/ida.h"
#include "region/idr.h"
#include "region/bitmap.h"
#include "region/hbitmap.h"
#include "region/maple_tree.h"
#include "region/region.h"
#include "region/sbitmap.h"

#endif /* LIBREGION_H */
