// SPDX-License-Identifier: MIT
/*
 * Threaded test of the Maple Tree in RCU mode: lock-free readers against
 * one writer that churns store_range, NULL stores, erase, preallocated
 * stores, whole-tree clears and (allocation trees) gap searches.
 *
 * Every entry the writer stores is a value that encodes the store's
 * sequence number s and its range [first, last] inside [0, U). Before each
 * store the writer appends (s, entry or NULL) to the history of every index
 * the store changes, then publishes started = s, stores, publishes done =
 * s. A reader takes seq0 = done before a read and seq1 = started after it;
 * the value an index held at some moment of the read is then either its
 * state after store seq0 (the newest history record <= seq0) or one of the
 * records in (seq0, seq1]. Readers check:
 *  - load / walk / find: the entry is a value whose encoded range holds the
 *    index (and, for walk and iteration, the reported range too), and the
 *    entry (or NULL) was the index's content at some moment of the read;
 *  - iteration (rg_mtree_find, rg_mas_find / rg_mas_next, rg_mas_prev,
 *    with pauses that drop the read lock): ranges strictly increase (or
 *    decrease), never overlap, each entry was live at its first index
 *    during the iteration, and no index skipped over held one unchanged
 *    entry through the whole iteration.
 * A per-index history ring of the last K records bounds what can be
 * checked; reads whose window fell out of it count as unverified.
 *
 * The writer checks the tree against a per-index model and validates it
 * (after every store in sanitizer builds), and stats.overuse stays 0. At
 * the end the tree is destroyed and, after rg_mtree_rcu_barrier(), the node
 * cache holds exactly as many nodes in use as before: every node retired
 * through call_rcu() came back.
 *
 * A variant switches RCU mode off and on under normal-API readers (which
 * then take the tree lock), so writers alternate between in-place edits
 * and node replacement while readers run.
 *
 * Without the deferred frees this test fails: a reader that still walks a
 * replaced node touches freed memory (ASan: the maple code poisons freed
 * nodes) or memory already reused for another node (wrong entries).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <urcu/urcu-memb.h>

#include "region/maple_tree.h"
#include "rg_test.h"

#if defined(__SANITIZE_THREAD__) || defined(RG_TEST_THOROUGH)
#define SLOW 1
#define SECS_PLAIN 2.0
#define SECS_ALLOC 1.0
#define SECS_TOGGLE 1.0
#else
#define SLOW 0
#define SECS_PLAIN 8.0
#define SECS_ALLOC 4.0
#define SECS_TOGGLE 2.0
#endif

#define UBITS 14
#define U (1UL << UBITS) /* indices the writer uses: trees of height 4 */
#define K 32 /* history records kept per index */
#define NREADERS 2
#define MAXPRINT 10

struct hist {
	_Atomic uint64_t head;
	_Atomic uint64_t ring[K]; /* seq << 1 | non-NULL */
};

static struct rg_maple_tree tree;
static struct hist hist[U];
static _Atomic uint64_t started, done;
static atomic_bool stop;
static atomic_bool advanced_ok; /* readers may use rg_mas_* lock-free */
static atomic_ulong violations, unverified, reads, iter_steps;
static uint64_t seed;

/* ---- entries ---- */

static void *mk(uint64_t s, unsigned long first, unsigned long last)
{
	return rg_mt_mk_value((unsigned long)(s << (2 * UBITS)) |
			      (first << UBITS) | last);
}

/* Decode an entry: its store's sequence, its range; false if garbage. */
static bool dec(void *e, uint64_t *s, unsigned long *first, unsigned long *last)
{
	unsigned long v;

	if (!rg_mt_is_value(e))
		return false;
	v = rg_mt_to_value(e);
	*s = v >> (2 * UBITS);
	*first = (v >> UBITS) & (U - 1);
	*last = v & (U - 1);
	return *s != 0 && *first <= *last;
}

static void violation(const char *what, unsigned long index, void *e,
		      uint64_t seq0, uint64_t seq1)
{
	unsigned long n = atomic_fetch_add(&violations, 1);

	if (n < MAXPRINT)
		fprintf(stderr,
			"VIOLATION %s: index %lu entry %p window (%llu, %llu]"
			" (seed %llu)\n",
			what, index, e, (unsigned long long)seq0,
			(unsigned long long)seq1, (unsigned long long)seed);
}

/* ---- history ---- */

static void hist_push(unsigned long i, uint64_t s, bool nonnull)
{
	struct hist *h = &hist[i];
	uint64_t hd = atomic_load_explicit(&h->head, memory_order_relaxed);

	atomic_store_explicit(&h->ring[hd % K], s << 1 | nonnull,
			      memory_order_relaxed);
	atomic_store_explicit(&h->head, hd + 1, memory_order_release);
}

/*
 * Read index i's history, newest first, into rec[]; the count, or -1 if
 * the writer kept changing it. *lost: older records were overwritten.
 */
static int hist_read(unsigned long i, uint64_t *rec, bool *lost)
{
	struct hist *h = &hist[i];

	for (int t = 0; t < 8; t++) {
		uint64_t h1 =
			atomic_load_explicit(&h->head, memory_order_acquire);
		/* Never the oldest slot: the next push overwrites it. */
		int n = h1 < K - 1 ? (int)h1 : K - 1;

		for (int k = 0; k < n; k++)
			rec[k] = atomic_load_explicit(
				&h->ring[(h1 - 1 - (uint64_t)k) % K],
				memory_order_acquire);
		if (atomic_load_explicit(&h->head, memory_order_acquire) ==
		    h1) {
			*lost = h1 > (uint64_t)n;
			return n;
		}
	}
	return -1;
}

/*
 * Was @v (a store's sequence, 0 for NULL) index i's content at some moment
 * of (seq0, seq1]? 1 yes, 0 no, -1 cannot tell.
 */
static int valid_at(unsigned long i, uint64_t v, uint64_t seq0, uint64_t seq1)
{
	uint64_t rec[K];
	bool lost;
	int n;

	if (i >= U)
		return v == 0;
	n = hist_read(i, rec, &lost);
	if (n < 0)
		return -1;
	for (int k = 0; k < n; k++) {
		uint64_t s = rec[k] >> 1, val = rec[k] & 1 ? s : 0;

		if (s > seq1)
			continue;
		if (s > seq0) {
			if (val == v)
				return 1;
			continue;
		}
		return val == v; /* the state when the read began */
	}
	if (lost)
		return -1;
	return v == 0; /* never stored: NULL */
}

/*
 * Index i's content if it did not change during (seq0, seq1] (0: NULL);
 * -1 if it changed or cannot tell.
 */
static int64_t stable_at(unsigned long i, uint64_t seq0, uint64_t seq1)
{
	uint64_t rec[K];
	bool lost;
	int n;

	if (i >= U)
		return 0;
	n = hist_read(i, rec, &lost);
	if (n < 0)
		return -1;
	for (int k = 0; k < n; k++) {
		uint64_t s = rec[k] >> 1;

		if (s > seq1)
			continue;
		if (s > seq0)
			return -1;
		return rec[k] & 1 ? (int64_t)s : 0;
	}
	return lost ? -1 : 0;
}

static uint64_t load_done(void)
{
	return atomic_load_explicit(&done, memory_order_acquire);
}

static uint64_t load_started(void)
{
	return atomic_load_explicit(&started, memory_order_acquire);
}

/*
 * Check entry @e read at index i during (seq0, seq1]; [rs, rl] is the
 * range the tree reported for it (rs > rl: none).
 */
static void check_entry(unsigned long i, void *e, unsigned long rs,
			unsigned long rl, uint64_t seq0, uint64_t seq1)
{
	uint64_t s = 0;
	unsigned long f, l;
	int ok;

	atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
	if (e) {
		if (!dec(e, &s, &f, &l)) {
			violation("garbage entry", i, e, seq0, seq1);
			return;
		}
		if (i < f || i > l) {
			violation("entry read outside its range", i, e, seq0,
				  seq1);
			return;
		}
		if (rs <= rl && (rs < f || rl > l)) {
			violation("reported range beyond the stored one", i, e,
				  seq0, seq1);
			return;
		}
		if (s > seq1) {
			violation("entry from a store not yet begun", i, e,
				  seq0, seq1);
			return;
		}
	}
	ok = valid_at(i, s, seq0, seq1);
	if (ok < 0)
		atomic_fetch_add_explicit(&unverified, 1, memory_order_relaxed);
	else if (!ok)
		violation(e ? "entry not live during the read" :
			      "NULL where an entry stayed",
			  i, e, seq0, seq1);
}

/* Indices [a, b] were skipped by an iteration over (seq0, seq1]. */
static void check_skipped(unsigned long a, unsigned long b, uint64_t seq0,
			  uint64_t seq1)
{
	if (b >= U)
		b = U - 1;
	for (unsigned long j = a; j <= b && a <= b; j++) {
		int64_t st = stable_at(j, seq0, seq1);

		if (st > 0) {
			violation("iteration skipped a stable entry", j, NULL,
				  seq0, seq1);
			return;
		}
	}
}

/* ---- readers ---- */

static void read_load(struct rg_rand *r)
{
	unsigned long i = rg_rand_below(r, U + 16);
	uint64_t seq0 = load_done();
	void *e = rg_mtree_load(&tree, i);

	check_entry(i, e, 1, 0, seq0, load_started());
}

static void read_walk(struct rg_rand *r)
{
	unsigned long i = rg_rand_below(r, U + 16);
	RG_MA_STATE(mas, &tree, i, i);
	uint64_t seq0, seq1;
	void *e;

	urcu_memb_read_lock();
	seq0 = load_done();
	e = rg_mas_walk(&mas);
	seq1 = load_started();
	urcu_memb_read_unlock();
	if (mas.index > i || mas.last < i)
		violation("walk range misses the index", i, e, seq0, seq1);
	check_entry(i, e, e ? mas.index : 1, e ? mas.last : 0, seq0, seq1);
}

/* Normal-API iteration: rg_mtree_find / rg_mtree_find_after. */
static void read_find(struct rg_rand *r)
{
	unsigned long index = rg_rand_below(r, U), prev = index;
	unsigned long max = index + rg_rand_below(r, 600);
	uint64_t seq0 = load_done();
	void *e;
	int n = 0;

	for (e = rg_mtree_find(&tree, &index, max); e && n < 40;
	     e = rg_mtree_find_after(&tree, &index, max), n++) {
		uint64_t seq1 = load_started();
		unsigned long last = index - 1; /* the range found ends here */
		uint64_t s;
		unsigned long f, l;

		atomic_fetch_add_explicit(&iter_steps, 1, memory_order_relaxed);
		if (index == 0 || last < prev) {
			violation("find went backwards", last, e, seq0, seq1);
			return;
		}
		if (!dec(e, &s, &f, &l) || last < f || last > l) {
			violation("find: entry outside its range", last, e,
				  seq0, seq1);
			return;
		}
		check_entry(last, e, 1, 0, seq0, seq1);
		/* Indices [prev, f) were NULL or moved: nothing stable. */
		if (f > prev)
			check_skipped(prev, f - 1 < last ? f - 1 : last, seq0,
				      seq1);
		prev = index;
	}
}

/* Advanced-API iteration under the caller's read lock, forward. */
static void read_iter_fwd(struct rg_rand *r)
{
	unsigned long start = rg_rand_below(r, U), from = start;
	unsigned long max = start + 1 + rg_rand_below(r, 1500);
	RG_MA_STATE(mas, &tree, start, start);
	uint64_t seq0;
	void *e;
	int n = 0;

	urcu_memb_read_lock();
	seq0 = load_done();
	for (e = rg_mas_find(&mas, max); e; e = rg_mas_next(&mas, max)) {
		uint64_t seq1 = load_started();
		unsigned long at = mas.index < from ? from : mas.index;

		atomic_fetch_add_explicit(&iter_steps, 1, memory_order_relaxed);
		if (n && mas.index < from) {
			violation("iteration went back", mas.index, e, seq0,
				  seq1);
			break;
		}
		if (mas.last < mas.index || mas.last < at) {
			violation("iteration: empty range", mas.index, e, seq0,
				  seq1);
			break;
		}
		check_entry(at, e, mas.index, mas.last, seq0, seq1);
		if (mas.index > from)
			check_skipped(from, mas.index - 1, seq0, seq1);
		if (mas.last == ULONG_MAX)
			break;
		from = mas.last + 1;
		if (++n % 16 == 0 && rg_rand_below(r, 2)) {
			/* Drop the read lock in the middle: pause first. */
			rg_mas_pause(&mas);
			urcu_memb_read_unlock();
			urcu_memb_read_lock();
			seq0 = load_done();
		}
	}
	/* rg_mas_next() ends in overflow; rg_mas_find(), as the kernel's
	 * mas_find(), stays active */
	if (!e && mas.status != RG_MAS_OVERFLOW &&
	    (n || mas.status != RG_MAS_ACTIVE))
		violation("iteration ended without overflow", mas.index, NULL,
			  seq0, load_started());
	else if (!e && from <= max)
		check_skipped(from, max, seq0, load_started());
	urcu_memb_read_unlock();
}

/* Advanced-API iteration backwards: rg_mas_find_rev then rg_mas_prev. */
static void read_iter_rev(struct rg_rand *r)
{
	unsigned long start = rg_rand_below(r, U), to = start;
	unsigned long min = start > 1500 ? start - rg_rand_below(r, 1500) : 0;
	RG_MA_STATE(mas, &tree, start, start);
	uint64_t seq0;
	void *e;
	int n = 0;

	urcu_memb_read_lock();
	seq0 = load_done();
	for (e = rg_mas_find_rev(&mas, min); e; e = rg_mas_prev(&mas, min)) {
		uint64_t seq1 = load_started();
		unsigned long at = mas.last > to ? to : mas.last;

		atomic_fetch_add_explicit(&iter_steps, 1, memory_order_relaxed);
		if (n && mas.last > to) {
			violation("reverse iteration went forward", mas.last, e,
				  seq0, seq1);
			break;
		}
		if (mas.last < mas.index || mas.index > at) {
			violation("reverse iteration: empty range", mas.index,
				  e, seq0, seq1);
			break;
		}
		check_entry(at, e, mas.index, mas.last, seq0, seq1);
		if (mas.last < to)
			check_skipped(mas.last + 1, to, seq0, seq1);
		if (mas.index == 0 || mas.index <= min)
			break;
		to = mas.index - 1;
		n++;
	}
	/* rg_mas_prev() ends in underflow; rg_mas_find_rev() may stay
	 * active when the range it walked to starts below min */
	if (!e && mas.status != RG_MAS_UNDERFLOW &&
	    (n || mas.status != RG_MAS_ACTIVE))
		violation("reverse iteration ended without underflow",
			  mas.index, NULL, seq0, load_started());
	else if (!e && to >= min)
		check_skipped(min, to, seq0, load_started());
	urcu_memb_read_unlock();
}

static void *reader(void *arg)
{
	struct rg_rand r;

	rg_rand_seed(&r, seed ^ (uint64_t)(uintptr_t)arg);
	urcu_memb_register_thread();
	while (!atomic_load(&stop)) {
		unsigned int op = (unsigned int)rg_rand_below(&r, 10);

		if (!atomic_load(&advanced_ok) && op >= 5)
			op = op % 2 ? 0 : 4;
		switch (op) {
		case 0:
		case 1:
		case 2:
		case 3:
			read_load(&r);
			break;
		case 4:
			read_find(&r);
			break;
		case 5:
		case 6:
			read_walk(&r);
			break;
		case 7:
		case 8:
			read_iter_fwd(&r);
			break;
		default:
			read_iter_rev(&r);
			break;
		}
	}
	urcu_memb_unregister_thread();
	return NULL;
}

/* ---- the writer ---- */

static uint64_t model[U]; /* per index: the sequence stored, 0 NULL */
static unsigned long nstores;
static unsigned int max_height;

static void check_model(void)
{
	RG_MA_STATE(mas, &tree, 0, 0);
	unsigned long i = 0;
	void *e;

	RG_ASSERT_VALID(&tree);
	rg_mtree_lock(&tree);
	/* The first range found may overflow (empty up to U - 1 and more). */
	for (e = rg_mas_find_range(&mas, U - 1);
	     mas.status == RG_MAS_ACTIVE || mas.status == RG_MAS_OVERFLOW;
	     e = rg_mas_next_range(&mas, U - 1)) {
		uint64_t s = 0;
		unsigned long f, l;

		if (e)
			assert_true(dec(e, &s, &f, &l));
		assert_int_equal(mas.index, i);
		for (; i <= mas.last && i < U; i++)
			if (model[i] != s)
				fail_msg("tree differs from the model at %lu "
					 "(seed %llu)",
					 i, (unsigned long long)seed);
		if (mas.last >= U - 1)
			break;
	}
	rg_mtree_unlock(&tree);
	assert_int_equal(i, U);
}

/*
 * Store s will make [a, b] hold its entry (or NULL): record it in the
 * history of every index that changes, then open the store.
 */
static void begin(uint64_t s, unsigned long a, unsigned long b, bool null)
{
	uint64_t v = null ? 0 : s;

	for (unsigned long i = a; i <= b && i < U; i++) {
		if (model[i] == v)
			continue;
		hist_push(i, s, !null);
		model[i] = v;
	}
	atomic_store_explicit(&started, s, memory_order_release);
}

static void end(uint64_t s)
{
	atomic_store_explicit(&done, s, memory_order_release);
	nstores++;
	if (rg_mtree_height(&tree) > max_height)
		max_height = rg_mtree_height(&tree);
	if (SLOW || nstores % 4096 == 0) {
		RG_ASSERT_VALID(&tree);
		if (nstores % (SLOW ? 256 : 16384) == 0)
			check_model();
	}
}

static void w_store(uint64_t s, struct rg_rand *r, bool null)
{
	unsigned long len = rg_rand_below(r, 20) == 0 ? rg_rand_below(r, 300) :
							rg_rand_below(r, 12);
	unsigned long a = rg_rand_below(r, U), b = a + len;

	if (b >= U)
		b = U - 1;
	begin(s, a, b, null);
	if (null) {
		assert_int_equal(rg_mtree_store_range(&tree, a, b, NULL), 0);
	} else {
		assert_int_equal(rg_mtree_store_range(&tree, a, b, mk(s, a, b)),
				 0);
	}
	end(s);
}

/* Store through rg_mas_preallocate() + rg_mas_store_prealloc(). */
static void w_prealloc(uint64_t s, struct rg_rand *r)
{
	unsigned long a = rg_rand_below(r, U), b = a + rg_rand_below(r, 24);
	RG_MA_STATE(mas, &tree, 0, 0);

	if (b >= U)
		b = U - 1;
	rg_mas_set_range(&mas, a, b);
	rg_mtree_lock(&tree);
	assert_int_equal(rg_mas_preallocate(&mas, mk(s, a, b), 0), 0);
	begin(s, a, b, false);
	rg_mas_store_prealloc(&mas, mk(s, a, b));
	rg_mtree_unlock(&tree);
	end(s);
}

static void w_erase(uint64_t s, struct rg_rand *r)
{
	unsigned long i = rg_rand_below(r, U);
	RG_MA_STATE(mas, &tree, i, i);
	void *e, *old;

	rg_mtree_lock(&tree);
	e = rg_mas_walk(&mas);
	if (e) {
		unsigned long a = mas.index, b = mas.last;

		begin(s, a, b, true);
		rg_mas_set(&mas, i);
		old = rg_mas_erase(&mas);
		assert_ptr_equal(old, e);
		assert_int_equal(mas.index, a);
		assert_int_equal(mas.last, b);
	}
	rg_mtree_unlock(&tree);
	if (e)
		end(s);
}

/* Allocation trees: find a window with the gap search, store there. */
static void w_alloc(uint64_t s, struct rg_rand *r)
{
	unsigned long size = 1 + rg_rand_below(r, 16);
	RG_MA_STATE(mas, &tree, 0, 0);
	bool rev = rg_rand_below(r, 2);
	int ret;

	rg_mtree_lock(&tree);
	ret = rev ? rg_mas_empty_area_rev(&mas, 0, U - 1, size) :
		    rg_mas_empty_area(&mas, 0, U - 1, size);
	if (!ret) {
		unsigned long a = mas.index, b = mas.last;

		assert_int_equal(b - a + 1, size);
		begin(s, a, b, false);
		assert_int_equal(rg_mas_store_gfp(&mas, mk(s, a, b), 0), 0);
	}
	rg_mtree_unlock(&tree);
	if (!ret)
		end(s);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static unsigned long live_nodes(void)
{
	struct rg_slab_stats st;

	assert_int_equal(rg_mtree_node_stats(&st), 0);
	return st.objects_in_use;
}

/*
 * One run: NREADERS readers and this thread writing for @secs seconds.
 * @toggle: switch RCU mode off and on every few hundred stores (readers
 * then use only the normal API, which takes the lock when it must).
 */
static void run(unsigned int flags, double secs, bool toggle)
{
	pthread_t tid[NREADERS];
	struct rg_mtree_stats st;
	struct rg_rand r;
	unsigned long base, toggles = 0;
	uint64_t s = 0;
	double t_end;

	seed = rg_test_seed() ^ flags ^ (toggle ? 0x7060 : 0);
	rg_rand_seed(&r, seed);
	urcu_memb_register_thread();
	/* The node cache exists before counting. */
	assert_int_equal(rg_mtree_init(&tree, 0), 0);
	assert_int_equal(rg_mtree_store(&tree, 1, rg_mt_mk_value(1)), 0);
	rg_mtree_destroy(&tree);
	base = live_nodes();

	memset(hist, 0, sizeof(hist));
	memset(model, 0, sizeof(model));
	atomic_store(&started, 0);
	atomic_store(&done, 0);
	atomic_store(&stop, false);
	atomic_store(&advanced_ok, !toggle);
	atomic_store(&violations, 0);
	atomic_store(&unverified, 0);
	atomic_store(&reads, 0);
	atomic_store(&iter_steps, 0);
	nstores = 0;
	max_height = 0;
	assert_int_equal(rg_mtree_init(&tree, flags | RG_MT_FLAGS_USE_RCU), 0);
	assert_true(rg_mtree_in_rcu(&tree));

	for (uintptr_t k = 0; k < NREADERS; k++)
		assert_int_equal(
			pthread_create(&tid[k], NULL, reader, (void *)(k + 1)),
			0);
	t_end = now_s() + secs;
	while (now_s() < t_end) {
		for (int burst = 0; burst < 64; burst++) {
			unsigned int op = (unsigned int)rg_rand_below(&r, 100);

			s++;
			if (op < 35)
				w_store(s, &r, false);
			else if (op < 45)
				w_store(s, &r, true);
			else if (op < 70)
				w_erase(s, &r);
			else if (op < 80)
				w_prealloc(s, &r);
			else if (op < 95 && (flags & RG_MT_FLAGS_ALLOC_RANGE))
				w_alloc(s, &r);
			else if (op < 95)
				w_store(s, &r, false);
			else if (op == 99 && rg_rand_below(&r, 8) == 0) {
				/* Clear everything; maybe a root entry next. */
				begin(s, 0, U - 1, true);
				assert_int_equal(rg_mtree_store_range(
							 &tree, 0, U - 1, NULL),
						 0);
				end(s);
				if (rg_rand_below(&r, 2)) {
					s++;
					begin(s, 0, 0, false);
					assert_int_equal(
						rg_mtree_store(&tree, 0,
							       mk(s, 0, 0)),
						0);
					end(s);
				}
			} else {
				w_store(s, &r, false);
			}
			if (toggle && s % 500 == 0) {
				if (rg_mtree_in_rcu(&tree))
					rg_mtree_clear_rcu(&tree);
				else
					rg_mtree_set_rcu(&tree);
				toggles++;
			}
		}
	}
	atomic_store(&stop, true);
	for (int k = 0; k < NREADERS; k++)
		pthread_join(tid[k], NULL);

	check_model();
	rg_mtree_get_stats(&tree, &st);
	printf("# flags %#x toggle %d: %lu stores (height up to %u), %lu "
	       "reads, %lu iteration steps, %lu unverified, %lu mode "
	       "switches, %lu violations\n",
	       flags, toggle, nstores, max_height, atomic_load(&reads),
	       atomic_load(&iter_steps), atomic_load(&unverified), toggles,
	       atomic_load(&violations));
	assert_int_equal(st.overuse, 0);
	assert_int_equal(atomic_load(&violations), 0);
	assert_true(atomic_load(&reads) > 1000);
	/* Most reads must be checkable, or the test proves little. */
	assert_true(atomic_load(&unverified) * 10 < atomic_load(&reads));

	if (!rg_mtree_in_rcu(&tree))
		rg_mtree_set_rcu(&tree);
	rg_mtree_destroy(&tree);
	rg_mtree_rcu_barrier();
	assert_int_equal(live_nodes(), base);
	urcu_memb_unregister_thread();
}

static void test_rcu_readers(void **state)
{
	(void)state;
	run(0, SECS_PLAIN, false);
}

static void test_rcu_readers_alloc_tree(void **state)
{
	(void)state;
	run(RG_MT_FLAGS_ALLOC_RANGE, SECS_ALLOC, false);
}

static void test_rcu_mode_switch(void **state)
{
	(void)state;
	run(0, SECS_TOGGLE, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rcu_readers),
		cmocka_unit_test(test_rcu_readers_alloc_tree),
		cmocka_unit_test(test_rcu_mode_switch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
