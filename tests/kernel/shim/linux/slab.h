/* SPDX-License-Identifier: MIT */
/* Kernel header name for the test-program shim: see ../kshim.h. */
#include "../kshim.h"
