/* SPDX-License-Identifier: MIT */
/*
 * Shared test helpers: cmocka includes, the seeded generator, the seed
 * (RG_SEED in the environment, printed), and operation counts that are
 * larger where the build validates after every operation.
 */
#ifndef RG_TEST_H
#define RG_TEST_H

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/wait.h>
#include <unistd.h>

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

/*
 * The NULL-argument policy (region/common.h): run @stmt in a child process,
 * which must neither crash nor abort and must find @ok true afterwards. One
 * child per call, so a failure names the call.
 */
#define RG_EXPECT_NULL_OK(stmt, ok)                                          \
	do {                                                                 \
		int st_;                                                     \
		pid_t pid_;                                                  \
                                                                             \
		fflush(NULL);                                                \
		pid_ = fork();                                               \
		assert_true(pid_ >= 0);                                      \
		if (pid_ == 0) {                                             \
			/* Crash for real, not into cmocka's handlers. */    \
			signal(SIGSEGV, SIG_DFL);                            \
			signal(SIGBUS, SIG_DFL);                             \
			signal(SIGILL, SIG_DFL);                             \
			signal(SIGFPE, SIG_DFL);                             \
			signal(SIGABRT, SIG_DFL);                            \
			stmt;                                                \
			_exit((ok) ? 0 : 3);                                 \
		}                                                            \
		assert_int_equal(waitpid(pid_, &st_, 0), pid_);              \
		if (WIFSIGNALED(st_))                                        \
			fail_msg("%s: %s", #stmt, strsignal(WTERMSIG(st_))); \
		if (WEXITSTATUS(st_) == 3)                                   \
			fail_msg("%s: wrong result", #stmt);                 \
		if (WEXITSTATUS(st_))                                        \
			fail_msg("%s: crashed (exit status %d)", #stmt,      \
				 WEXITSTATUS(st_));                          \
	} while (0)

/* A call whose result must equal @want. */
#define RG_EXPECT_NULL_RET(call, want) \
	RG_EXPECT_NULL_OK(bool ok_ = ((call) == (want)), ok_)

/* A call that must return NULL with errno EINVAL. */
#define RG_EXPECT_NULL_EINVAL(call) \
	RG_EXPECT_NULL_OK(errno = 0; bool ok_ = !(call) && errno == EINVAL, ok_)

/* A call that returns nothing: it must only return. */
#define RG_EXPECT_NULL_VOID(call) RG_EXPECT_NULL_OK(call, true)

#endif /* RG_TEST_H */
