/* SPDX-License-Identifier: MIT */
/* Kernel names for the ida module; included by <region/linux.h>. */
#ifndef REGION_LINUX_IDA_H
#define REGION_LINUX_IDA_H

#endif
