/* SPDX-License-Identifier: MIT */
/* Kernel names for the xarray module; included by <region/linux.h>. */
#ifndef REGION_LINUX_XARRAY_H
#define REGION_LINUX_XARRAY_H

#endif
