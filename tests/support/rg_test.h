/* SPDX-License-Identifier: MIT */
/*
 * The test support layer: the one header every test program includes.
 *
 * Usage:
 *	uint64_t seed = rg_test_seed();		// RG_SEED or the default, printed
 *	rg_rand_seed(&r, seed);			// the generator (rg_rand.h)
 *	RG_ASSERT_VALID(xa);			// validate, or dump, seed, fail
 *	RG_ASSERT_VALIDF(ida, "op %lu", op);	// the same with a context line
 *	RG_FAULT_LOOP(n, err, rg_xa_store(xa, 5, p, NULL), same(xa, &snap));
 *	RG_FOR_EACH_BACKEND(b) { ... }		// every region backend
 *	RG_FOR_EACH_BACKEND_WITH(b, policy) { ... }
 *	return rg_test_run_matrix("region", tests, n, false); // per backend
 *	rg_test_run_threads(4, worker, checker, &stop);	// threaded tests
 *	rg_test_run_threads_seeded(&seed, 4, worker, checker, &stop);
 *	RG_ASSERT_CACHE_EMPTY(rg_xa_node_cache_stats);	// nothing leaked
 *	rg_test_claim(&ledger, id);		// an ID handed out twice counts
 *
 * Also: RG_THOROUGH (1 in sanitizer builds, which validate after every
 * operation) and the NULL-argument checks RG_EXPECT_NULL_*.
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
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libregion.h"
#include "rg_rand.h"

#define RGT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* RG_TEST_THOROUGH is defined in sanitizer builds. */
#ifdef RG_TEST_THOROUGH
#define RG_THOROUGH 1
#else
#define RG_THOROUGH 0
#endif

/*
 * How the support layer fails a test: cmocka's fail_msg(). A test of the
 * layer itself (tests/unit/test_support.c) defines it before including
 * this header, to see the failures instead.
 */
#ifndef RG_TEST_FAIL
#define RG_TEST_FAIL(...) fail_msg(__VA_ARGS__)
#endif

/* The seed of this program's randomized runs; set by rg_test_seed(). */
static uint64_t rg_test_seed_value;
static bool rg_test_seed_set;

static inline uint64_t rg_test_seed(void)
{
	const char *s = getenv("RG_SEED");
	uint64_t seed = s ? strtoull(s, NULL, 0) : 20261130;

	printf("# seed %llu (set RG_SEED to repeat)\n",
	       (unsigned long long)seed);
	rg_test_seed_value = seed;
	rg_test_seed_set = true;
	return seed;
}

/* Print the seed (if any) to stderr: part of every failure report. */
static inline void rg_test_print_seed(void)
{
	if (rg_test_seed_set)
		fprintf(stderr, "# failed with RG_SEED=%llu\n",
			(unsigned long long)rg_test_seed_value);
}

/*
 * The validate and dump calls of each structure, chosen by the type of the
 * pointer. A bitmap has no type of its own: see RG_ASSERT_BITMAP_VALID().
 */
#define RG_TEST_VALIDATE(obj) \
	_Generic((obj),                                          \
		struct rg_xarray *: rg_xa_validate,              \
		struct rg_ida *: rg_ida_validate,                \
		struct rg_idr *: rg_idr_validate,                \
		struct rg_maple_tree *: rg_mtree_validate,       \
		struct rg_region *: rg_region_validate,          \
		struct rg_slab_cache *: rg_slab_validate,        \
		struct rg_hbitmap *: rg_hbitmap_validate,        \
		const struct rg_hbitmap *: rg_hbitmap_validate,  \
		struct rg_sbitmap_queue *: rg_sbitmap_queue_validate)
#define RG_TEST_DUMP(obj) \
	_Generic((obj),                                      \
		struct rg_xarray *: rg_xa_dump,              \
		struct rg_ida *: rg_ida_dump,                \
		struct rg_idr *: rg_idr_dump,                \
		struct rg_maple_tree *: rg_mtree_dump,       \
		struct rg_region *: rg_region_dump,          \
		struct rg_slab_cache *: rg_slab_dump,        \
		struct rg_hbitmap *: rg_hbitmap_dump,        \
		const struct rg_hbitmap *: rg_hbitmap_dump,  \
		struct rg_sbitmap_queue *: rg_sbitmap_queue_dump)

/*
 * RG_ASSERT_VALIDF() - fail the test unless @obj passes its validate call;
 * on failure dump @obj to stderr, print the seed and fail with the reason,
 * the expression and the context line given by @fmt.
 */
#define RG_ASSERT_VALIDF(obj, fmt, ...)                                     \
	do {                                                                \
		const char *rg_why_ = NULL;                                 \
                                                                            \
		if (RG_TEST_VALIDATE(obj)((obj), &rg_why_)) {               \
			RG_TEST_DUMP(obj)((obj), stderr);                   \
			rg_test_print_seed();                               \
			RG_TEST_FAIL("%s invalid: %s (" fmt ")", #obj,      \
				     rg_why_ ? rg_why_ : "?", __VA_ARGS__); \
		}                                                           \
	} while (0)

/* RG_ASSERT_VALID() - RG_ASSERT_VALIDF() without a context line. */
#define RG_ASSERT_VALID(obj) RG_ASSERT_VALIDF(obj, "%s", "no context")

/* RG_ASSERT_BITMAP_VALID() - the same for a bitmap of @nbits bits. */
#define RG_ASSERT_BITMAP_VALID(map, nbits)                          \
	do {                                                        \
		const char *rg_why_ = NULL;                         \
                                                                    \
		if (rg_bitmap_validate((map), (nbits), &rg_why_)) { \
			rg_bitmap_dump((map), (nbits), stderr);     \
			rg_test_print_seed();                       \
			RG_TEST_FAIL("%s invalid: %s", #map,        \
				     rg_why_ ? rg_why_ : "?");      \
		}                                                   \
	} while (0)

/* More injected failures than any call needs: the loop is stuck. */
#define RG_FAULT_MAX 100000UL

/*
 * RG_FAULT_LOOP() - the fault-injection loop, the one form of it.
 * @n: an unsigned long lvalue, the attempt number (1, 2, ...); after the
 *     loop it is one more than the number of failures seen.
 * @err: an int lvalue that receives @call's result each time.
 * @call: an int expression, 0 or a negative errno (run once per attempt).
 * @unchanged: statements that check the structure still equals the model.
 *
 * For n = 1, 2, ...: make the nth allocation fail and run @call. While the
 * failure fires, @call must return -ENOMEM and @unchanged runs; the loop
 * ends at the first attempt in which no failure fired, with that result in
 * @err (the caller checks it). Fault injection is disarmed afterwards.
 */
#define RG_FAULT_LOOP(n, err, call, unchanged) \
	RG_FAULT_LOOP_ABSORB(n, err, call, false, unchanged)

/*
 * RG_FAULT_LOOP_ABSORB() - RG_FAULT_LOOP() for a call that may absorb a
 * failure (an optional index it can do without): where @absorbed is true,
 * a fired failure with a result other than -ENOMEM ends the loop too.
 */
#define RG_FAULT_LOOP_ABSORB(n, err, call, absorbed, unchanged)                \
	for ((n) = 1;; (n)++) {                                                \
		bool rg_fired_;                                                \
                                                                               \
		rg_fault_inject(n);                                            \
		(err) = (call);                                                \
		rg_fired_ = rg_fault_fired();                                  \
		rg_fault_inject(0);                                            \
		if (!rg_fired_)                                                \
			break;                                                 \
		if ((err) != -ENOMEM && (absorbed))                            \
			break;                                                 \
		if ((err) != -ENOMEM) {                                        \
			rg_test_print_seed();                                  \
			RG_TEST_FAIL("%s, fault %lu: %d, want -ENOMEM", #call, \
				     (unsigned long)(n), (int)(err));          \
		}                                                              \
		unchanged;                                                     \
		if ((n) >= RG_FAULT_MAX)                                       \
			RG_TEST_FAIL("%s: still failing after %lu faults",     \
				     #call, (unsigned long)(n));               \
	}

/*
 * RG_PTR_ERR() - a constructor call as an RG_FAULT_LOOP() @call: 0 for a
 * pointer, -errno for NULL (errno cleared first).
 */
#define RG_PTR_ERR(expr) ((errno = 0, (expr)) ? 0 : -errno)

/*
 * RG_FOR_EACH_BACKEND() - run the statement after it once for each region
 * backend, with @b (declared here) naming it.
 */
#define RG_FOR_EACH_BACKEND(b)                                     \
	for (enum rg_region_backend b = (enum rg_region_backend)0; \
	     b < RG_REGION_NR_BACKENDS; b = (enum rg_region_backend)(b + 1))

/* RG_FOR_EACH_BACKEND_WITH() - the backends that offer policy @p. */
#define RG_FOR_EACH_BACKEND_WITH(b, p)                     \
	RG_FOR_EACH_BACKEND(b)                             \
		if (!rg_region_backend_has_policy(b, p)) { \
		} else

/* What one test of a backend matrix runs on (its cmocka state). */
struct rg_test_target {
	enum rg_region_backend b;
	enum rg_region_policy p;
};

#define RG_TEST_MATRIX_MAX 256

/*
 * rg_test_run_matrix() - run each of the @nt tests of @t once per region
 * backend (named "test/backend"), or with @per_policy once per backend and
 * policy it offers ("test/backend/policy"), as the cmocka group @group. A
 * test finds its struct rg_test_target in *state. Return: the number of
 * tests that failed.
 */
static inline int rg_test_run_matrix(const char *group,
				     const struct CMUnitTest *t, size_t nt,
				     bool per_policy)
{
	static struct rg_test_target
		tg[RG_REGION_NR_BACKENDS * RG_REGION_NR_POLICIES];
	static struct CMUnitTest tests[RG_TEST_MATRIX_MAX];
	static char names[RG_TEST_MATRIX_MAX][64];
	size_t n = 0, k = 0;

	RG_FOR_EACH_BACKEND(b) {
		for (unsigned int p = 0; p < RG_REGION_NR_POLICIES; p++) {
			enum rg_region_policy po = (enum rg_region_policy)p;

			if (per_policy ? !rg_region_backend_has_policy(b, po) :
					 p != RG_REGION_FIRST_FIT)
				continue;
			tg[k] = (struct rg_test_target){ b, po };
			for (size_t i = 0; i < nt; i++) {
				assert_true(n < RG_TEST_MATRIX_MAX);
				snprintf(names[n], sizeof(names[n]),
					 per_policy ? "%s/%s/%s" : "%s/%s",
					 t[i].name, rg_region_backend_name(b),
					 rg_region_policy_name(po));
				tests[n] = t[i];
				tests[n].name = names[n];
				tests[n].initial_state = &tg[k];
				n++;
			}
			k++;
		}
	}
	return _cmocka_run_group_tests(group, tests, n, NULL, NULL);
}

/*
 * The threaded tests' ownership ledger. A worker claims every ID it is
 * handed with an atomic exchange, so an ID handed out twice is caught at
 * once, and unclaims it before freeing it. Workers only count failures
 * (cmocka's asserts are not thread-safe); the main thread checks the
 * counts after joining, with rg_test_ledger_check().
 */
struct rg_test_ledger {
	unsigned char *owner; /* one byte per ID below @space */
	unsigned long space;
	unsigned long twice, unowned, out_of_space;
};

/* rg_test_count() - add one to a failure counter, from any thread. */
static inline void rg_test_count(unsigned long *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static inline void rg_test_claim(struct rg_test_ledger *l, unsigned long id)
{
	if (id >= l->space)
		rg_test_count(&l->out_of_space);
	else if (__atomic_exchange_n(&l->owner[id], 1, __ATOMIC_ACQ_REL))
		rg_test_count(&l->twice);
}

static inline void rg_test_unclaim(struct rg_test_ledger *l, unsigned long id)
{
	if (id < l->space &&
	    !__atomic_exchange_n(&l->owner[id], 0, __ATOMIC_ACQ_REL))
		rg_test_count(&l->unowned);
}

/* After the join: nothing handed out twice, or freed unowned, or held. */
static inline void rg_test_ledger_check(const struct rg_test_ledger *l)
{
	printf("# ledger: twice %lu, unowned %lu, out of space %lu\n", l->twice,
	       l->unowned, l->out_of_space);
	assert_int_equal(l->twice, 0);
	assert_int_equal(l->unowned, 0);
	assert_int_equal(l->out_of_space, 0);
	for (unsigned long i = 0; i < l->space; i++)
		if (l->owner[i])
			fail_msg("ID %lu still claimed", i);
}

/*
 * rg_test_run_threads() - the threaded tests' driver: run @worker in @n
 * threads (each given its index, 0 .. @n - 1, as the argument) beside one
 * @checker thread (given NULL) that runs until the workers have finished;
 * then set *@stop (read with __atomic_load_n(..., __ATOMIC_ACQUIRE)) and
 * join the checker.
 */
static inline void rg_test_run_threads(unsigned long n, void *(*worker)(void *),
				       void *(*checker)(void *), int *stop)
{
	pthread_t th[64], chk;

	assert_true(n <= 64);
	__atomic_store_n(stop, 0, __ATOMIC_RELEASE);
	assert_int_equal(pthread_create(&chk, NULL, checker, NULL), 0);
	for (unsigned long t = 0; t < n; t++)
		assert_int_equal(pthread_create(&th[t], NULL, worker,
						(void *)(uintptr_t)t),
				 0);
	for (unsigned long t = 0; t < n; t++)
		assert_int_equal(pthread_join(th[t], NULL), 0);
	__atomic_store_n(stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(chk, NULL), 0);
}

/*
 * rg_test_run_threads_seeded() - rg_test_run_threads() after setting
 * *@seed to this program's seed (rg_test_seed()), for the workers to read.
 */
static inline void rg_test_run_threads_seeded(uint64_t *seed, unsigned long n,
					      void *(*worker)(void *),
					      void *(*checker)(void *),
					      int *stop)
{
	*seed = rg_test_seed();
	rg_test_run_threads(n, worker, checker, stop);
}

/*
 * RG_ASSERT_CACHE_EMPTY() - fail unless the process-wide cache whose
 * counters @stats (a *_cache_stats() call) reads has no object in use.
 */
#define RG_ASSERT_CACHE_EMPTY(stats)                        \
	do {                                                \
		struct rg_slab_stats rg_st_;                \
                                                            \
		assert_int_equal((stats)(&rg_st_), 0);      \
		assert_int_equal(rg_st_.objects_in_use, 0); \
	} while (0)

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
