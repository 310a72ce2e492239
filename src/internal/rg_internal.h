/* SPDX-License-Identifier: MIT */
/*
 * Private helpers shared by every module: branch hints, container_of,
 * the fault-injection check and the heap allocation wrappers that honour it.
 * Nothing here is exported; internal symbols use the rgi_ prefix and hidden
 * visibility.
 */
#ifndef RG_INTERNAL_H
#define RG_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "region/common.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define RGI_HIDDEN __attribute__((visibility("hidden")))

/*
 * Force inlining on the hot paths of optimised builds only: at -O0 GCC
 * refuses always_inline on a function that reaches itself (hbitmap's scan
 * recurses once per level), so a debug build or a parent project's default
 * buildtype gets plain inline instead.
 */
#ifdef __OPTIMIZE__
#define RGI_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define RGI_ALWAYS_INLINE inline
#endif
#define RGI_NOINLINE __attribute__((noinline))

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr)-offsetof(type, member)))
#endif

#define RGI_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define RGI_MIN(a, b) ((a) < (b) ? (a) : (b))
#define RGI_MAX(a, b) ((a) > (b) ? (a) : (b))

/* Always-on check of a proven fact; aborts with location on failure. */
#define RGI_ASSERT(cond)                                            \
	do {                                                        \
		if (unlikely(!(cond)))                              \
			rgi_assert_fail(#cond, __FILE__, __LINE__); \
	} while (0)

/* Debug-build-only check (NDEBUG removes it). */
#ifdef NDEBUG
#define RGI_DEBUG_ASSERT(cond) ((void)0)
#else
#define RGI_DEBUG_ASSERT(cond) RGI_ASSERT(cond)
#endif

/*
 * The third tier: checks too slow for any normal build, such as validating
 * a whole structure after every mutation (O(size) each). They are compiled
 * in only by -Dexpensive_checks=true, a build for hunting a bug; otherwise
 * @cond is type-checked but never evaluated.
 */
#ifdef RGI_EXPENSIVE_CHECKS
#define RGI_EXPENSIVE_ASSERT(cond) RGI_ASSERT(cond)
#else
#define RGI_EXPENSIVE_ASSERT(cond)    \
	do {                          \
		if (0)                \
			(void)(cond); \
	} while (0)
#endif

RGI_HIDDEN __attribute__((noreturn)) void
rgi_assert_fail(const char *expr, const char *file, int line);

struct rgi_fault_state {
	unsigned long countdown; /* 0: disarmed */
	unsigned long attempts;
	bool fired;
};

extern __thread struct rgi_fault_state rgi_fault_tls
	__attribute__((tls_model("initial-exec"))) RGI_HIDDEN;

/*
 * rgi_fault() - count one allocation attempt; true if it must fail.
 * Call it exactly once at every point where the library obtains memory.
 */
static inline bool rgi_fault(void)
{
	struct rgi_fault_state *f = &rgi_fault_tls;

	f->attempts++;
	if (likely(f->countdown == 0))
		return false;
	if (--f->countdown)
		return false;
	f->fired = true;
	return true;
}

/* Heap wrappers: fail under fault injection like any other allocation. */
static inline void *rgi_malloc(size_t size)
{
	return rgi_fault() ? NULL : malloc(size);
}

static inline void *rgi_calloc(size_t n, size_t size)
{
	return rgi_fault() ? NULL : calloc(n, size);
}

static inline void rgi_free(void *p)
{
	free(p);
}

#endif /* RG_INTERNAL_H */
