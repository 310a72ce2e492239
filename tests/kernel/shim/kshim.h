/* SPDX-License-Identifier: MIT */
/*
 * The thin kernel environment in which the kernel's own test programs
 * (lib/test_ida.c, lib/test_maple_tree.c, ...) build against libregion's
 * kernel names, <region/linux.h>, and never against the kernel's
 * implementation. scripts/test-kernel.sh force-includes this file; the
 * headers in shim/linux/ only include it.
 *
 * What it provides: printk and pr_* on stdout, module_init() as main(),
 * the annotations (__init, noinline, ...), WARN_ON, dump_stack() and the
 * few helpers the programs call. A program's own counters decide the
 * verdict: the runner reads the "N of M tests passed" line it prints.
 */
#ifndef RG_KSHIM_H
#define RG_KSHIM_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <urcu/urcu-memb.h>

#include <region/linux.h>

#define __KERNEL__ 1
#if __SIZEOF_LONG__ == 8
#define CONFIG_64BIT 1
#endif
#define __init
#define __exit
#define __initdata
#define __init_or_module
#ifndef noinline
#define noinline __attribute__((noinline))
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

#ifndef BITS_PER_LONG
#define BITS_PER_LONG (8 * (int)sizeof(long))
#endif

#define KERN_INFO ""
#define KERN_ERR ""
#define KERN_WARNING ""
#define KERN_CONT ""
#define printk(...) printf(__VA_ARGS__)
#define pr_info(...) printf(__VA_ARGS__)
#define pr_err(...) printf(__VA_ARGS__)
#define pr_warn(...) printf(__VA_ARGS__)
#define pr_cont(...) printf(__VA_ARGS__)
#define pr_debug(...) ((void)0)

static inline void dump_stack(void)
{
}

#define WARN_ON(x)                                                     \
	({                                                             \
		bool w_ = !!(x);                                       \
		if (w_)                                                \
			printf("WARN_ON: %s at %s:%d\n", #x, __FILE__, \
			       __LINE__);                              \
		w_;                                                    \
	})
#define WARN_ON_ONCE(x) WARN_ON(x)
#define BUG_ON(x)                                                     \
	do {                                                          \
		if (x) {                                              \
			printf("BUG_ON: %s at %s:%d\n", #x, __FILE__, \
			       __LINE__);                             \
			abort();                                      \
		}                                                     \
	} while (0)

static inline void cond_resched(void)
{
}

static inline void schedule(void)
{
}

#define __initconst
#define __used __attribute__((used))
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#define PAGE_SHIFT 12
#define PAGE_SIZE 4096UL
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define GENMASK_ULL(h, l) ((~0ULL << (l)) & (~0ULL >> (63 - (h))))
#if __SIZEOF_LONG__ == 8
#define BITMAP_FROM_U64(n) ((unsigned long)(n))
#else
#define BITMAP_FROM_U64(n) \
	((unsigned long)(n)), ((unsigned long)((u64)(n) >> 32))
#endif
#define kmalloc(size, gfp) malloc(size)
#define kzalloc(size, gfp) calloc(1, size)
#define kfree(p) free(p)
static inline int64_t ktime_get(void)
{
	return 0;
}
typedef int64_t ktime_t;
#define ktime_sub(a, b) ((a) - (b))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
/*
 * IS_ENABLED(CONFIG_X) for the options the programs test: an option not
 * listed here fails to compile, naming it. libregion's xarray has the
 * multi-index entries of a kernel built with CONFIG_XARRAY_MULTI.
 */
#define CONFIG_XARRAY_MULTI 1
#define RG_KSHIM_OPT_CONFIG_XARRAY_MULTI 1
#define RG_KSHIM_OPT_CONFIG_64BIT (__SIZEOF_LONG__ == 8)
#define IS_ENABLED(option) RG_KSHIM_OPT_##option
#define BIT(n) (1UL << (n))
#define GENMASK(h, l) ((~0UL << (l)) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define DIV_ROUND_UP(n, d) (((n) + (d)-1) / (d))
#define round_up(x, y) ((((x)-1) | ((__typeof__(x))((y)-1))) + 1)
/*
 * BUILD_BUG_ON() the kernel's way: a build error unless the optimiser
 * proves the condition false. The call to a function declared with the
 * error attribute stays only where the condition does not fold to 0, and
 * then the build stops at its line; the programs are built with
 * optimisation (-O1) for this.
 */
extern void rg_kshim_build_bug(void)
	__attribute__((error("BUILD_BUG_ON: condition not proven false")));
#define BUILD_BUG_ON(c)                       \
	do {                                  \
		if (c)                        \
			rg_kshim_build_bug(); \
	} while (0)
#define DUMP_PREFIX_OFFSET 1
#define print_hex_dump(...) ((void)0)

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* Counters: the programs' check tallies. */
typedef struct {
	int counter;
} atomic_t;
#define ATOMIC_INIT(i) \
	{              \
		(i)    \
	}
static inline void atomic_inc(atomic_t *v)
{
	__atomic_add_fetch(&v->counter, 1, __ATOMIC_RELAXED);
}
static inline int atomic_read(const atomic_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}
static inline void atomic_set(atomic_t *v, int i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

/* RCU: liburcu's memb flavour, as libregion's RCU mode uses. */
#define rcu_read_lock() urcu_memb_read_lock()
#define rcu_read_unlock() urcu_memb_read_unlock()
static inline void rcu_barrier(void)
{
	rg_mtree_rcu_barrier();
}

/* Reader-writer semaphores: the external locks of some tests. */
struct rw_semaphore {
	pthread_rwlock_t l;
};
#define SINGLE_DEPTH_NESTING 1
static inline void init_rwsem(struct rw_semaphore *s)
{
	pthread_rwlock_init(&s->l, NULL);
}
static inline void down_read(struct rw_semaphore *s)
{
	pthread_rwlock_rdlock(&s->l);
}
static inline void up_read(struct rw_semaphore *s)
{
	pthread_rwlock_unlock(&s->l);
}
static inline void down_write(struct rw_semaphore *s)
{
	pthread_rwlock_wrlock(&s->l);
}
static inline void down_write_nested(struct rw_semaphore *s, int subclass)
{
	(void)subclass;
	pthread_rwlock_wrlock(&s->l);
}
static inline void up_write(struct rw_semaphore *s)
{
	pthread_rwlock_unlock(&s->l);
}

/*
 * The kernel's node, named by helpers the Maple Tree test defines (and
 * disabled sub-tests call): a stand-in with the fields they read, never
 * one of libregion's nodes.
 */
struct maple_node {
	void *parent;
	void *slot[16];
};

/*
 * The Maple Tree test's debug build (CONFIG_DEBUG_MAPLE_TREE): its check
 * macro and counters, and the debug calls it makes. mt_validate() and
 * mt_dump() are libregion's (<region/linux/maple.h>).
 */
#define CONFIG_DEBUG_MAPLE_TREE 1
static atomic_t maple_tree_tests_run __attribute__((unused));
static atomic_t maple_tree_tests_passed __attribute__((unused));
#define MT_BUG_ON(tree, x)                                                     \
	do {                                                                   \
		atomic_inc(&maple_tree_tests_run);                             \
		if (x)                                                         \
			printf("BUG at %s:%d (%s)\n", __func__, __LINE__, #x); \
		else                                                           \
			atomic_inc(&maple_tree_tests_passed);                  \
	} while (0)
#define mt_cache_shrink() ((void)0)
#define mas_dump(mas)                                                \
	printf("mas %lu-%lu status %u\n", (mas)->index, (mas)->last, \
	       (unsigned int)(mas)->status)
#define mas_wr_dump(wr_mas) ((void)0)
/* 6.1's state markers, which it compares with mas->node; libregion keeps a
 * status instead, so the checks that use them are disabled (see
 * disabled.txt). */
#define MAS_START ((void *)1UL)
#define MAS_ROOT ((void *)5UL)
#define MAS_NONE ((void *)9UL)
#define MAS_PAUSE ((void *)17UL)
/* 6.1's "ran off the tree" test; 6.12 defines its own. */
static inline bool mas_is_none(const struct rg_ma_state *mas)
{
	return mas->status == RG_MAS_OVERFLOW ||
	       mas->status == RG_MAS_UNDERFLOW;
}

/* A debug-build assertion of the kernel's Maple Tree: reported, not counted. */
#define MAS_BUG_ON(mas, x)                                                \
	do {                                                              \
		if (x)                                                    \
			printf("MAS_BUG_ON: %s at %s:%d\n", #x, __FILE__, \
			       __LINE__);                                 \
	} while (0)

/* module_init(fn): the program's main() runs fn once, as an RCU reader. */
#define module_init(fn)                        \
	int main(void)                         \
	{                                      \
		urcu_memb_register_thread();   \
		(void)fn();                    \
		urcu_memb_unregister_thread(); \
		return 0;                      \
	}
#define module_exit(fn) \
	static void (*const rg_kshim_exit_)(void) __attribute__((unused)) = fn
#define MODULE_AUTHOR(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_LICENSE(x)

/*
 * Bitmap printing and parsing are not offered by libregion; the kernel's
 * bitmap test defines sub-tests that call them, disabled by rules in
 * tests/kernel/disabled.txt. These stubs only let those definitions
 * compile: a call aborts.
 */
#define RG_KSHIM_ABSENT(name)                                                 \
	static inline int name(const char *buf, ...)                          \
	{                                                                     \
		(void)buf;                                                    \
		printf("BUG_ON: %s is not offered (disabled sub-test ran)\n", \
		       #name);                                                \
		abort();                                                      \
	}
RG_KSHIM_ABSENT(bitmap_parse)
RG_KSHIM_ABSENT(bitmap_parselist)
RG_KSHIM_ABSENT(bitmap_parse_user)
RG_KSHIM_ABSENT(bitmap_parselist_user)
#define bitmap_print_to_pagebuf(list, buf, mask, n) \
	rg_kshim_print(buf, list, mask, n)
#define bitmap_print_list_to_buf(buf, mask, n, off, c) \
	rg_kshim_print(buf, 1, mask, n)
#define bitmap_print_bitmask_to_buf(buf, mask, n, off, c) \
	rg_kshim_print(buf, 0, mask, n)
static inline int rg_kshim_print(char *buf, int list, const void *mask, int n)
{
	(void)buf;
	(void)list;
	(void)mask;
	(void)n;
	printf("BUG_ON: bitmap printing is not offered (disabled sub-test ran)\n");
	abort();
}

/* Kernel code uses errno as a field name; nothing here needs libc's. */
#undef errno

#endif /* RG_KSHIM_H */
