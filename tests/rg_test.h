/* SPDX-License-Identifier: MIT */
/*
 * Shared test helpers: cmocka includes, the seeded generator, the seed
 * (RG_SEED in the environment, printed), and operation counts that are
 * larger where the build validates after every operation.
 */
#ifndef RG_TEST_H
#define RG_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "rg_rand.h"

/* RG_TEST_THOROUGH is defined in sanitizer builds. */
#ifdef RG_TEST_THOROUGH
#define RG_THOROUGH 1
#else
#define RG_THOROUGH 0
#endif

static inline uint64_t rg_test_seed(void)
{
	const char *s = getenv("RG_SEED");
	uint64_t seed = s ? strtoull(s, NULL, 0) : 20261130;

	printf("# seed %llu (set RG_SEED to repeat)\n",
	       (unsigned long long)seed);
	return seed;
}

#endif /* RG_TEST_H */
