/* SPDX-License-Identifier: MIT */
/* Kernel names for the maple module; included by <region/linux.h>. */
#ifndef REGION_LINUX_MAPLE_H
#define REGION_LINUX_MAPLE_H

#endif
