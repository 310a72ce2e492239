// SPDX-License-Identifier: MIT
/*
 * Threaded sbitmap tests, also run under ThreadSanitizer by `make test`.
 *
 * Every tag handed out is claimed in a shared ownership ledger with an
 * atomic exchange (a tag handed out twice is caught at once) and unclaimed
 * before it is cleared.
 *
 * - mixed: threads get, get_shallow, get_batch, clear and clear_batch on
 *   one queue, each holding a few tags; afterwards nothing is in use, the
 *   queue validates and every tag can be taken again (none stranded).
 * - waiters: more threads than tags, each taking one tag at a time with
 *   rg_sbitmap_queue_get_wait() (sleeping when none is free), at wake
 *   batches of 1 and 2; the test ends only if every waiter is woken (a
 *   lost wake-up hangs it until the test's timeout), and all waits are
 *   accounted for (ws_active back to 0).
 * - prepare/finish by hand through the kernel names, as the kernel's
 *   callers wait, beside threads freeing.
 *
 * Workers count failures (cmocka asserts are not thread-safe); the main
 * thread checks the counters after joining.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "region/linux/sbitmap.h"
#include "region/sbitmap.h"
#include "rg_test.h"

#define MAXTHREADS 24
#define HOLD 6
#define SPACE 256

static struct rg_sbitmap_queue q;
static unsigned char owner[SPACE];
static struct rg_test_ledger tags = { owner, SPACE, 0, 0, 0 };
static unsigned long errors, contended;
static int stop;
static uint64_t seed;
static unsigned long ops_per_thread;

static void *mixed_worker(void *arg)
{
	unsigned long t = (unsigned long)(uintptr_t)arg;
	int held[HOLD + 16], n = 0;
	struct rg_rand r;

	rg_rand_seed(&r, seed + t);
	for (unsigned long op = 0; op < ops_per_thread; op++) {
		unsigned int k = (unsigned int)rg_rand_below(&r, 100);

		if (k < 40 && n < HOLD) {
			int tag = k < 30 ? rg_sbitmap_queue_get(&q) :
					   rg_sbitmap_queue_get_shallow(&q, 5);

			if (tag == -EAGAIN)
				continue;
			if (tag < 0 || (unsigned int)tag >= q.sb.depth ||
			    (k >= 30 && (tag & 7) >= 5)) {
				rg_test_count(&errors);
				continue;
			}
			rg_test_claim(&tags, (unsigned long)tag);
			held[n++] = tag;
		} else if (k < 45 && n < HOLD) {
			unsigned int off;
			unsigned long mask;
			int got =
				rg_sbitmap_queue_get_batch(&q, 3, &off, &mask);

			if (got == -EAGAIN)
				continue;
			if (got < 1 || got > 3 ||
			    got != __builtin_popcountl(mask) || mask >> 3) {
				rg_test_count(&errors);
				continue;
			}
			for (unsigned int i = 0; i < 3; i++)
				if (mask & (1UL << i)) {
					rg_test_claim(&tags, off + i);
					held[n++] = (int)(off + i);
				}
		} else if (k < 90 && n) {
			unsigned int i = (unsigned int)rg_rand_below(&r, n);
			int tag = held[i];

			held[i] = held[--n];
			rg_test_unclaim(&tags, (unsigned long)tag);
			if (rg_sbitmap_queue_clear(&q, (unsigned int)tag))
				rg_test_count(&errors);
		} else if (n) {
			int off = (int)rg_rand_below(&r, 1000);

			for (int i = 0; i < n; i++) {
				rg_test_unclaim(&tags, (unsigned long)held[i]);
				held[i] += off;
			}
			if (rg_sbitmap_queue_clear_batch(&q, off, held, n))
				rg_test_count(&errors);
			n = 0;
		}
	}
	while (n) {
		int tag = held[--n];

		rg_test_unclaim(&tags, (unsigned long)tag);
		if (rg_sbitmap_queue_clear(&q, (unsigned int)tag))
			rg_test_count(&errors);
	}
	return NULL;
}

/* Reads only: weight and any_bit_set are snapshots, never out of range. */
static void *reader(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		if (rg_sbitmap_weight(&q.sb) > q.sb.depth)
			rg_test_count(&errors);
		(void)rg_sbitmap_any_bit_set(&q.sb);
	}
	return NULL;
}

/* Take every tag once: each new, all reachable; then give them back. */
static void check_all_reachable(void)
{
	unsigned char seen[SPACE] = { 0 };

	assert_int_equal(rg_sbitmap_weight(&q.sb), 0);
	for (unsigned int i = 0; i < q.sb.depth; i++) {
		int tag = rg_sbitmap_queue_get(&q);

		assert_true(tag >= 0 && (unsigned int)tag < q.sb.depth);
		assert_false(seen[tag]);
		seen[tag] = 1;
	}
	assert_int_equal(rg_sbitmap_queue_get(&q), -EAGAIN);
	for (unsigned int t = 0; t < q.sb.depth; t++)
		assert_int_equal(rg_sbitmap_queue_clear(&q, t), 0);
	RG_ASSERT_VALID(&q);
}

static void test_mixed(void **state)
{
	(void)state;
	assert_int_equal(rg_sbitmap_queue_init(&q, 40, 3, false), 0);
	ops_per_thread = RG_THOROUGH ? 40000 : 300000;
	rg_test_run_threads_seeded(&seed, 4, mixed_worker, reader, &stop);
	printf("# mixed: 4 threads x %lu ops, errors %lu\n", ops_per_thread,
	       errors);
	rg_test_ledger_check(&tags);
	assert_int_equal(errors, 0);
	RG_ASSERT_VALID(&q);
	check_all_reachable();
	rg_sbitmap_queue_destroy(&q);
}

/* One tag at a time, sleeping when none is free. */
static void *wait_worker(void *arg)
{
	unsigned long t = (unsigned long)(uintptr_t)arg;

	for (unsigned long i = 0; i < ops_per_thread; i++) {
		int tag = rg_sbitmap_queue_get(&q);

		if (tag == -EAGAIN) {
			/* None free: this thread will wait. */
			rg_test_count(&contended);
			tag = rg_sbitmap_queue_get_wait(&q);
		}

		if (tag < 0 || (unsigned int)tag >= q.sb.depth) {
			rg_test_count(&errors);
			continue;
		}
		rg_test_claim(&tags, (unsigned long)tag);
		if ((i + t) % 4 == 0)
			sched_yield();
		rg_test_unclaim(&tags, (unsigned long)tag);
		if (rg_sbitmap_queue_clear(&q, (unsigned int)tag))
			rg_test_count(&errors);
	}
	return NULL;
}

static void *idle(void *arg)
{
	(void)arg;
	return NULL;
}

/*
 * The checker of run_waiters(): the test starts with every tag held here,
 * so the first get of every worker finds none free; once one has counted
 * that (and so will wait), give them all back. Whatever the scheduler
 * does, the waiting path is taken.
 */
static void *releaser(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&contended, __ATOMIC_ACQUIRE))
		sched_yield();
	for (unsigned int t = 0; t < q.sb.depth; t++)
		if (rg_sbitmap_queue_clear(&q, t))
			rg_test_count(&errors);
	return NULL;
}

static void run_waiters(unsigned int depth, int shift, unsigned int batch,
			unsigned long threads)
{
	assert_int_equal(rg_sbitmap_queue_init(&q, depth, shift, false), 0);
	assert_int_equal(q.wake_batch, batch);
	ops_per_thread = RG_THOROUGH ? 3000 : 20000;
	contended = 0;
	for (unsigned int t = 0; t < depth; t++) /* releaser() frees them */
		assert_true(rg_sbitmap_queue_get(&q) >= 0);
	rg_test_run_threads(threads, wait_worker, releaser, &stop);
	printf("# waiters: depth %u, batch %u, %lu threads x %lu: errors "
	       "%lu, gets that had to wait %lu\n",
	       depth, batch, threads, ops_per_thread, errors, contended);
	assert_true(contended > 0); /* the waiting path was taken */
	rg_test_ledger_check(&tags);
	assert_int_equal(errors, 0);
	assert_int_equal(q.ws_active, 0);
	RG_ASSERT_VALID(&q);
	check_all_reachable();
	rg_sbitmap_queue_destroy(&q);
}

static void test_waiters(void **state)
{
	(void)state;
	run_waiters(4, -1, 1, 10);
	run_waiters(16, 2, 2, 20);
}

/* The kernel's waiting pattern by hand, through the kernel names. */
static void *kernel_waiter(void *arg)
{
	unsigned int widx = (unsigned int)(uintptr_t)arg, cpu;

	for (unsigned long i = 0; i < ops_per_thread; i++) {
		DEFINE_SBQ_WAIT(wait);
		struct sbq_wait_state *ws = sbq_wait_ptr(&q, &widx);
		int tag = sbitmap_queue_get(&q, &cpu);

		if (tag < 0) {
			for (;;) {
				sbitmap_prepare_to_wait(&q, ws, &wait,
							TASK_UNINTERRUPTIBLE);
				tag = sbitmap_queue_get(&q, &cpu);
				if (tag >= 0)
					break;
				rg_sbitmap_wait_sleep(&wait);
			}
			sbitmap_finish_wait(&q, ws, &wait);
		}
		rg_test_claim(&tags, (unsigned long)tag);
		rg_test_unclaim(&tags, (unsigned long)tag);
		sbitmap_queue_clear(&q, (unsigned int)tag, cpu);
	}
	return NULL;
}

static void test_kernel_pattern(void **state)
{
	(void)state;
	assert_int_equal(
		sbitmap_queue_init_node(&q, 8, -1, false, GFP_KERNEL, -1), 0);
	ops_per_thread = RG_THOROUGH ? 3000 : 20000;
	rg_test_run_threads(12, kernel_waiter, idle, &stop);
	rg_test_ledger_check(&tags);
	assert_int_equal(q.ws_active, 0);
	RG_ASSERT_VALID(&q);
	check_all_reachable();
	sbitmap_queue_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_waiters),
		cmocka_unit_test(test_kernel_pattern),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
