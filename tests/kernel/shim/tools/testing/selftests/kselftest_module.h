/* SPDX-License-Identifier: MIT */
/*
 * The kernel's self-test module helpers, as the kernel's lib/test_bitmap.c
 * uses them (it includes this path relative to the kernel's lib/): check
 * counters, and a loader that runs selftest() and prints the tally in the
 * "N of M tests passed" form scripts/test-kernel.sh reads.
 */
#ifndef RG_KSHIM_KSELFTEST_MODULE_H
#define RG_KSHIM_KSELFTEST_MODULE_H

#include "../../../kshim.h"

#define KSTM_MODULE_GLOBALS()                        \
	static unsigned int total_tests __initdata;  \
	static unsigned int failed_tests __initdata; \
	static unsigned int skipped_tests __initdata

#define KSTM_CHECK_ZERO(x)                                                   \
	do {                                                                 \
		total_tests++;                                               \
		if (x) {                                                     \
			pr_warn("TC failed at %s:%d\n", __func__, __LINE__); \
			failed_tests++;                                      \
		}                                                            \
	} while (0)

#define KSTM_MODULE_LOADERS(name)                                      \
	static int __init name##_init(void)                            \
	{                                                              \
		selftest();                                            \
		printf(#name ": %u of %u tests passed (%u skipped)\n", \
		       total_tests - failed_tests, total_tests,        \
		       skipped_tests);                                 \
		return failed_tests ? -EINVAL : 0;                     \
	}                                                              \
	module_init(name##_init)

#endif
