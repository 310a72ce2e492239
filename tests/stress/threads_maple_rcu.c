// SPDX-License-Identifier: MIT
/*
 * The Maple Tree's RCU mode switched off under live readers.
 *
 * Two regression tests replay, with the threads ordered by semaphores, the
 * two faults of rg_mtree_clear_rcu() against a reader inside its read-side
 * critical section:
 *  - test_regress_clear_rcu_under_mas_find: a reader iterating with
 *    rg_mas_find() stands in a leaf that a writer then replaces (so it is
 *    dead), and another thread calls rg_mtree_clear_rcu(). The reader's
 *    next rg_mas_find() took the locked walk, which trusts every node, and
 *    followed the dead leaf's parent word (UBSan: member access within
 *    null pointer, SIGSEGV at -O2). A second store while the clear waits
 *    for its grace period must still replace nodes, not edit the reader's.
 *  - test_regress_load_in_section_during_clear_rcu: a reader calls
 *    rg_mtree_load() inside its section after the flag was cleared; it
 *    waited for the tree lock, which rg_mtree_clear_rcu() held while it
 *    waited for that very section: both waited forever. The test gives up
 *    after 10 seconds and fails.
 * test_rcu_mode_switch_iterate then runs lock-free readers iterating with
 * rg_mas_find() and reading with rg_mtree_load() inside their sections
 * while one thread stores and erases and another switches the mode on and
 * off. Entries are values encoding the range they were stored with, so a
 * reader checks that every range it is shown lies inside its entry's and
 * that iteration strictly increases. It stops after READS reads in all
 * (10^7, also under ASan, where that takes about a second and a half; 2 *
 * 10^6 under TSan, which makes each read about ten times dearer), and
 * prints how many it did.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <time.h>
#include <urcu/urcu-memb.h>

#include "region/maple_tree.h"
#include "rg_test.h"

#if defined(__SANITIZE_THREAD__)
#define READS 2000000UL
#else
#define READS 10000000UL
#endif

#define UBITS 14
#define U (1UL << UBITS)
#define NREADERS 2

static void *mk(unsigned long first, unsigned long last)
{
	return rg_mt_mk_value((first << UBITS) | last);
}

/* Does @e, found on [index, last], encode a range holding it? */
static bool entry_ok(void *e, unsigned long index, unsigned long last)
{
	unsigned long v, first, elast;

	if (!rg_mt_is_value(e))
		return false;
	v = rg_mt_to_value(e);
	first = v >> UBITS;
	elast = v & (U - 1);
	return first <= index && index <= last && last <= elast && elast < U;
}

static void sem_wait_ok(sem_t *s)
{
	while (sem_wait(s) != 0)
		assert_int_equal(errno, EINTR);
}

/* Wait up to @secs for @s; false on timeout. */
static bool sem_wait_secs(sem_t *s, int secs)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += secs;
	for (;;) {
		if (sem_timedwait(s, &ts) == 0)
			return true;
		if (errno == ETIMEDOUT)
			return false;
		assert_int_equal(errno, EINTR);
	}
}

/*
 * A thread that never came back: the others hold the read lock or the tree
 * lock for good, so the program cannot go on to its other tests.
 */
static void hung(const char *what)
{
	fprintf(stderr, "# FAILED: %s (waited 10 s)\n", what);
	_exit(1);
}

static void wait_rcu_cleared(struct rg_maple_tree *mt)
{
	while (rg_mtree_in_rcu(mt))
		sched_yield();
}

/* ---- the two scenarios ---- */

struct scen {
	struct rg_maple_tree mt;
	sem_t in_section, go, stepped, go2, done, cleared;
	atomic_ulong bad;
	unsigned long found;
};

/* Entries [10 i, 10 i + 4] for i < n: several leaves, height 2 or more. */
static void fill(struct rg_maple_tree *mt, unsigned long n)
{
	assert_int_equal(rg_mtree_init(mt, RG_MT_FLAGS_USE_RCU), 0);
	for (unsigned long i = 0; i < n; i++)
		assert_int_equal(rg_mtree_store_range(mt, 10 * i, 10 * i + 4,
						      mk(10 * i, 10 * i + 4)),
				 0);
	assert_true(rg_mtree_height(mt) >= 2);
}

static void *clearer(void *arg)
{
	struct scen *sc = arg;

	urcu_memb_register_thread();
	rg_mtree_clear_rcu(&sc->mt);
	urcu_memb_unregister_thread();
	sem_post(&sc->cleared);
	return NULL;
}

/* Iterate on from @mas to the end, checking every range. */
static void iterate_on(struct scen *sc, struct rg_ma_state *mas,
		       unsigned long *prev)
{
	void *e;

	while ((e = rg_mas_find(mas, ULONG_MAX)) != NULL) {
		if (!entry_ok(e, mas->index, mas->last) || mas->index <= *prev)
			atomic_fetch_add(&sc->bad, 1);
		*prev = mas->last;
		sc->found++;
	}
}

static void *mas_reader(void *arg)
{
	struct scen *sc = arg;
	RG_MA_STATE(mas, &sc->mt, 0, 0);
	unsigned long prev = 0;
	void *e;

	urcu_memb_register_thread();
	urcu_memb_read_lock();
	/* the first two entries: the state stands in the first leaf */
	for (int i = 0; i < 2; i++) {
		e = rg_mas_find(&mas, ULONG_MAX);
		if (!e || !entry_ok(e, mas.index, mas.last))
			atomic_fetch_add(&sc->bad, 1);
		prev = mas.last;
		sc->found++;
	}
	sem_post(&sc->in_section);
	sem_wait_ok(&sc->go);
	/* the leaf was replaced and the mode cleared under this section */
	for (int i = 0; i < 20; i++) {
		e = rg_mas_find(&mas, ULONG_MAX);
		if (!e || !entry_ok(e, mas.index, mas.last) ||
		    mas.index <= prev)
			atomic_fetch_add(&sc->bad, 1);
		prev = mas.last;
		sc->found++;
	}
	sem_post(&sc->stepped);
	sem_wait_ok(&sc->go2);
	/* a store ran while rg_mtree_clear_rcu() waited for this section */
	iterate_on(sc, &mas, &prev);
	urcu_memb_read_unlock();
	urcu_memb_unregister_thread();
	sem_post(&sc->done);
	return NULL;
}

static void scen_init(struct scen *sc)
{
	memset(sc, 0, sizeof(*sc));
	sem_init(&sc->in_section, 0, 0);
	sem_init(&sc->go, 0, 0);
	sem_init(&sc->stepped, 0, 0);
	sem_init(&sc->go2, 0, 0);
	sem_init(&sc->done, 0, 0);
	sem_init(&sc->cleared, 0, 0);
}

static void scen_fini(struct scen *sc)
{
	sem_destroy(&sc->in_section);
	sem_destroy(&sc->go);
	sem_destroy(&sc->stepped);
	sem_destroy(&sc->go2);
	sem_destroy(&sc->done);
	sem_destroy(&sc->cleared);
}

static void test_regress_clear_rcu_under_mas_find(void **state)
{
	static struct scen sc;
	pthread_t rd, cl;
	unsigned long n = 400;

	(void)state;
	scen_init(&sc);
	urcu_memb_register_thread();
	fill(&sc.mt, n);
	assert_int_equal(pthread_create(&rd, NULL, mas_reader, &sc), 0);
	sem_wait_ok(&sc.in_section);
	/* RCU mode: a new range in the reader's leaf replaces the leaf */
	assert_int_equal(rg_mtree_store_range(&sc.mt, 26, 27, mk(26, 27)), 0);
	assert_int_equal(pthread_create(&cl, NULL, clearer, &sc), 0);
	wait_rcu_cleared(&sc.mt);
	sem_post(&sc.go);
	if (!sem_wait_secs(&sc.stepped, 10))
		hung("the reader did not step after the mode was cleared");
	/* the clear waits for the reader; this store must not edit in place */
	assert_int_equal(rg_mtree_store_range(&sc.mt, 51, 53, mk(51, 53)), 0);
	assert_int_equal(rg_mtree_store_range(&sc.mt, 100, 1000, NULL), 0);
	sem_post(&sc.go2);
	if (!sem_wait_secs(&sc.done, 10))
		hung("the reader did not finish");
	pthread_join(rd, NULL);
	if (!sem_wait_secs(&sc.cleared, 10))
		hung("rg_mtree_clear_rcu() did not return");
	pthread_join(cl, NULL);
	assert_int_equal(atomic_load(&sc.bad), 0);
	/* the reader saw the tree of one moment or another: about n entries */
	assert_true(sc.found >= n - 92 && sc.found <= n + 2);
	assert_false(rg_mtree_in_rcu(&sc.mt));
	RG_ASSERT_VALID(&sc.mt);
	rg_mtree_destroy(&sc.mt);
	rg_mtree_rcu_barrier();
	urcu_memb_unregister_thread();
	scen_fini(&sc);
}

static void *load_reader(void *arg)
{
	struct scen *sc = arg;
	unsigned long idx = 12;
	void *e;

	urcu_memb_register_thread();
	urcu_memb_read_lock();
	sem_post(&sc->in_section);
	wait_rcu_cleared(&sc->mt);
	/* the documented pattern: the entry is used inside the section */
	e = rg_mtree_load(&sc->mt, 12);
	if (!entry_ok(e, 12, 12))
		atomic_fetch_add(&sc->bad, 1);
	e = rg_mtree_find(&sc->mt, &idx, ULONG_MAX);
	if (!entry_ok(e, 12, 12) || idx != 15)
		atomic_fetch_add(&sc->bad, 1);
	urcu_memb_read_unlock();
	urcu_memb_unregister_thread();
	sem_post(&sc->done);
	return NULL;
}

static void test_regress_load_in_section_during_clear_rcu(void **state)
{
	static struct scen sc;
	pthread_t rd, cl;

	(void)state;
	scen_init(&sc);
	urcu_memb_register_thread();
	fill(&sc.mt, 100);
	assert_int_equal(pthread_create(&rd, NULL, load_reader, &sc), 0);
	sem_wait_ok(&sc.in_section);
	assert_int_equal(pthread_create(&cl, NULL, clearer, &sc), 0);
	if (!sem_wait_secs(&sc.done, 10) || !sem_wait_secs(&sc.cleared, 10))
		hung("deadlock: rg_mtree_load() in a read-side section "
		     "against rg_mtree_clear_rcu()");
	pthread_join(rd, NULL);
	pthread_join(cl, NULL);
	assert_int_equal(atomic_load(&sc.bad), 0);
	RG_ASSERT_VALID(&sc.mt);
	rg_mtree_destroy(&sc.mt);
	urcu_memb_unregister_thread();
	scen_fini(&sc);
}

/* ---- the randomised mode switching ---- */

static struct rg_maple_tree tree;
static atomic_bool stop;
static atomic_ulong reads, bad, lockfree_iters, locked_iters, toggles;
static atomic_ulong writes;
static uint64_t seed;

static void count(unsigned long *n)
{
	if (++*n == 256) {
		atomic_fetch_add(&reads, *n);
		*n = 0;
	}
}

static void check(bool ok, const char *what, unsigned long i)
{
	if (!ok && atomic_fetch_add(&bad, 1) < 10)
		fprintf(stderr, "# bad %s at %lu\n", what, i);
}

/*
 * One iteration from a random start with rg_mas_find(), lock-free if the
 * tree is in RCU mode when the section is checked, else under the lock;
 * with a load and a pause (dropping the read lock) now and then.
 */
static void read_iter(struct rg_rand *r, unsigned long *n)
{
	unsigned long start = rg_rand_below(r, U), prev = 0, steps;
	bool first = true, paused = false, lockfree;
	RG_MA_STATE(mas, &tree, start, start);
	void *e;

	steps = 1 + rg_rand_below(r, 64);
	urcu_memb_read_lock();
	lockfree = rg_mtree_in_rcu(&tree);
	if (!lockfree)
		rg_mtree_lock(&tree);
	while (steps--) {
		e = rg_mas_find(&mas, U - 1);
		count(n);
		if (!e)
			break;
		check(entry_ok(e, mas.index, mas.last), "range", mas.index);
		/*
		 * After a pause (locks dropped) a store may have made a range
		 * that starts before where the iteration got to: only its end
		 * must lie beyond.
		 */
		check(first		  ? mas.last >= start :
		      paused && !lockfree ? mas.last > prev :
					    mas.index > prev,
		      "order", mas.index);
		first = paused = false;
		prev = mas.last;
		if (rg_rand_below(r, 8) == 0) {
			/* a normal-API read inside the section */
			unsigned long i = rg_rand_below(r, U);

			if (lockfree) {
				e = rg_mtree_load(&tree, i);
				count(n);
				check(!e || entry_ok(e, i, i), "load", i);
			}
		}
		if (rg_rand_below(r, 16) == 0) {
			rg_mas_pause(&mas);
			paused = true;
			if (!lockfree)
				rg_mtree_unlock(&tree);
			urcu_memb_read_unlock();
			urcu_memb_read_lock();
			lockfree = rg_mtree_in_rcu(&tree);
			if (!lockfree)
				rg_mtree_lock(&tree);
		}
	}
	if (!lockfree)
		rg_mtree_unlock(&tree);
	urcu_memb_read_unlock();
	atomic_fetch_add(lockfree ? &lockfree_iters : &locked_iters, 1);
}

static void *reader(void *arg)
{
	struct rg_rand r;
	unsigned long n = 0;

	rg_rand_seed(&r, seed ^ (uint64_t)(uintptr_t)arg);
	urcu_memb_register_thread();
	while (atomic_load_explicit(&reads, memory_order_relaxed) < READS) {
		if (rg_rand_below(&r, 4) == 0) {
			unsigned long i = rg_rand_below(&r, U);
			void *e;

			/* the entry-lifetime pattern, in either mode */
			urcu_memb_read_lock();
			e = rg_mtree_load(&tree, i);
			check(!e || entry_ok(e, i, i), "load", i);
			urcu_memb_read_unlock();
			count(&n);
		} else {
			read_iter(&r, &n);
		}
	}
	atomic_fetch_add(&reads, n);
	urcu_memb_unregister_thread();
	atomic_store(&stop, true);
	return NULL;
}

static void *toggler(void *arg)
{
	const struct timespec pause_ts = { 0, 20000 };

	(void)arg;
	urcu_memb_register_thread();
	while (!atomic_load(&stop)) {
		rg_mtree_clear_rcu(&tree);
		nanosleep(&pause_ts, NULL);
		rg_mtree_set_rcu(&tree);
		nanosleep(&pause_ts, NULL);
		atomic_fetch_add(&toggles, 1);
	}
	urcu_memb_unregister_thread();
	return NULL;
}

static void test_rcu_mode_switch_iterate(void **state)
{
	pthread_t rd[NREADERS], tg;
	struct rg_rand r;

	(void)state;
	seed = rg_test_seed();
	rg_rand_seed(&r, seed);
	urcu_memb_register_thread();
	assert_int_equal(rg_mtree_init(&tree, RG_MT_FLAGS_USE_RCU), 0);
	for (unsigned long i = 0; i + 8 < U; i += 16)
		assert_int_equal(
			rg_mtree_store_range(&tree, i, i + 7, mk(i, i + 7)), 0);
	for (uintptr_t k = 0; k < NREADERS; k++)
		assert_int_equal(
			pthread_create(&rd[k], NULL, reader, (void *)(k + 1)),
			0);
	assert_int_equal(pthread_create(&tg, NULL, toggler, NULL), 0);
	while (!atomic_load(&stop)) {
		unsigned long a = rg_rand_below(&r, U);
		unsigned long b = a + rg_rand_below(&r, 1 + (U - 1 - a) / 64);

		if (rg_rand_below(&r, 4) == 0)
			assert_int_equal(
				rg_mtree_store_range(&tree, a, b, NULL), 0);
		else
			assert_int_equal(
				rg_mtree_store_range(&tree, a, b, mk(a, b)), 0);
		atomic_fetch_add(&writes, 1);
		if (RG_THOROUGH && atomic_load(&writes) % 64 == 0)
			RG_ASSERT_VALID(&tree);
	}
	for (int k = 0; k < NREADERS; k++)
		pthread_join(rd[k], NULL);
	pthread_join(tg, NULL);
	printf("# %lu reads (%lu lock-free iterations, %lu under the lock), "
	       "%lu writes, %lu mode switches, %lu bad\n",
	       atomic_load(&reads), atomic_load(&lockfree_iters),
	       atomic_load(&locked_iters), atomic_load(&writes),
	       atomic_load(&toggles), atomic_load(&bad));
	assert_int_equal(atomic_load(&bad), 0);
	assert_true(atomic_load(&reads) >= READS);
	assert_true(atomic_load(&toggles) > 0);
	RG_ASSERT_VALID(&tree);
	rg_mtree_set_rcu(&tree);
	rg_mtree_destroy(&tree);
	rg_mtree_rcu_barrier();
	urcu_memb_unregister_thread();
}

int main(void)
{
	/* RG_TEST_FILTER=test_regress_* runs only the tests it matches */
	const char *filter = getenv("RG_TEST_FILTER");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regress_clear_rcu_under_mas_find),
		cmocka_unit_test(test_regress_load_in_section_during_clear_rcu),
		cmocka_unit_test(test_rcu_mode_switch_iterate),
	};

	if (filter)
		cmocka_set_test_filter(filter);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
