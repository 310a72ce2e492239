// SPDX-License-Identifier: MIT
/*
 * RG_REGION_CACHED: per-thread caches of small freed regions, as the
 * kernel's IOVA allocator keeps per-CPU magazines of freed ranges. Theory
 * of operation.
 *
 * Every thread that calls a cached instance gets its own cache of it
 * (struct rc_tc, found through a thread-local pointer). A cache holds, per
 * size of 1 .. RC_SIZES units, a stack of free regions of exactly that
 * size ("available" entries), and a table of the regions it handed out
 * ("lent" records: start and size). Every entry is allocated in the
 * backend: the units of an available entry are free to the user and
 * allocated to the cache; those of a lent record are the user's.
 *
 * rg_region_alloc(n <= RC_SIZES): the top available entry of size n whose
 * start meets the alignment (the stack is searched from the top) becomes a
 * lent record: no instance lock, no backend. rg_region_free(s, n) of a
 * region this thread's cache lent as (s, n) pushes it back on the stack.
 * Both take only the cache's own lock, which no other thread takes except
 * to flush or scan (below), so the lines they write stay in one core.
 *
 * Everything else takes the instance lock (then cache locks, in that
 * order): an empty stack is refilled with up to RC_MAG entries from the
 * instance's depot (per size, RC_DEPOT entries at most), else one region
 * is allocated in the backend; a full stack spills its RC_MAG oldest
 * entries to the depot, or to the backend when the depot is full. A free
 * that is not of a region the thread's own cache lent whole (another
 * thread's, part of one, a larger size, an uncached region) scans every
 * cache and the depot under the lock: if an available entry overlaps the
 * range it is -ENOENT (those units are free); lent records that overlap
 * are dropped (their units become plain allocated units, which the
 * backend frees); then the backend frees the range, except that a region
 * another cache lent whole goes on this thread's stack. So every free is
 * checked as exactly as without the cache: no unit is handed out twice,
 * double frees included. A lent record takes its table slot from the one
 * there, whose region becomes a plain allocation (the older one: likely
 * held longer).
 *
 * Never a false failure: an allocation the backend answers -ENOSPC is
 * retried once after every cache and the depot gave their available
 * entries back (rgi_rcache_flush()). The calls that read or change the
 * instance as a whole (reserve, test, statistics, validate, dump, walks,
 * save, constrained requests, resize) flush first, so they see cached
 * regions as free.
 *
 * Life cycle. The instance keeps a list of its caches (instance lock);
 * each thread a list of its own (only that thread changes it). The global
 * rc_global mutex orders registration, thread exit and destroy: a thread's
 * exit (pthread key destructor) gives each cache's available entries back
 * to its live instance and frees the caches; destroy marks the caches of
 * other threads orphaned (their owners free them at their next
 * registration or exit, as another thread's thread-local pointer may still
 * name them) and frees the calling thread's. A cache is matched to an
 * instance by a unique id, never by address, so an instance created where
 * a destroyed one was is not confused with it. A thread whose cache
 * cannot be allocated takes the lock for its calls, uncached.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "region_internal.h"

#define RC_SIZES RGI_RCACHE_SIZES
#define RC_STACK 16 /* slots of a stack: it keeps RC_FULL entries */
#define RC_FULL (RC_STACK - 1)
#define RC_MAG 8 /* entries moved to or from the depot at once */
#define RC_DEPOT 64 /* entries the depot keeps per size */
#define RC_LENT_SHIFT 7
#define RC_LENT (1u << RC_LENT_SHIFT) /* lent records, direct mapped */

struct rc_tc {
	unsigned long lock; /* tc_lock(): id when free, 0 when held */
	unsigned long id; /* the instance's rc_id; never changes */
	struct rg_region *r; /* NULL once orphaned (rc_global) */
	struct rc_tc *inext; /* the instance's list (instance lock) */
	struct rc_tc *tnext; /* the thread's list (that thread) */
	/*
	 * Per size n = k + 1: top[n] = k * RC_STACK + the count of available
	 * entries, the index in avail of the slot above the top, so that the
	 * fast paths find the top in one load and test for an empty stack
	 * (index % RC_STACK == 0) or a full one (index + 1) in one more.
	 * (top[0] is not used.)
	 */
	unsigned short top[RC_SIZES + 1];
	unsigned char lent_n[RC_LENT];
	unsigned long lent[RC_LENT]; /* start + 1, or 0 when empty */
	unsigned long avail[RC_SIZES * RC_STACK]; /* AVAIL(tc, k): size k + 1 */
};

#define AVAIL(tc, k) (&(tc)->avail[(k)*RC_STACK])

static inline unsigned int tc_cnt(const struct rc_tc *tc, unsigned long k)
{
	return tc->top[k + 1] - (unsigned int)k * RC_STACK;
}

static inline void tc_set_cnt(struct rc_tc *tc, unsigned long k, unsigned int c)
{
	tc->top[k + 1] = (unsigned short)(k * RC_STACK + c);
}

struct rgi_rcache {
	struct rc_tc *caches;
	unsigned int depot_cnt[RC_SIZES];
	unsigned long depot[RC_SIZES][RC_DEPOT];
};

static pthread_mutex_t rc_global = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t rc_once = PTHREAD_ONCE_INIT;
static pthread_key_t rc_key;
static bool rc_key_ok;
static unsigned long rc_next_id; /* rc_global */

/*
 * This thread's cache of the instance it called last, or rc_none (whose id,
 * 0, no instance has), so the fast paths test one id and no NULL.
 */
static struct rc_tc rc_none;
static __thread struct rc_tc *tc_last
	__attribute__((tls_model("initial-exec"))) = &rc_none;
static __thread struct rc_tc *tc_list
	__attribute__((tls_model("initial-exec")));

/*
 * A cache's lock: taken by its thread on every call, by others only to
 * flush or scan the cache (briefly, under the instance lock), so it is a
 * plain spinlock. Its word holds the cache's id when free and 0 when held,
 * so that the fast paths take it and check that the cache is the
 * instance's in one compare-exchange of @id, the instance's rc_id (rc_none,
 * whose word is 0, is never taken); a release store of the id drops it.
 */
static inline bool tc_trylock_id(struct rc_tc *tc, unsigned long id)
{
	return __atomic_compare_exchange_n(&tc->lock, &id, 0, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline bool tc_trylock(struct rc_tc *tc)
{
	return tc_trylock_id(tc, tc->id);
}

static void tc_lock(struct rc_tc *tc)
{
	for (unsigned int i = 0; !tc_trylock(tc); i++) {
		while (!__atomic_load_n(&tc->lock, __ATOMIC_RELAXED)) {
			if (++i % 128 == 0)
				sched_yield(); /* its holder may be preempted */
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
		}
	}
}

static inline void tc_unlock_id(struct rc_tc *tc, unsigned long id)
{
	__atomic_store_n(&tc->lock, id, __ATOMIC_RELEASE);
}

static inline void tc_unlock(struct rc_tc *tc)
{
	tc_unlock_id(tc, tc->id);
}

/* A multiplicative hash of the start's low 32 bits: one multiply. */
static inline unsigned int lent_slot(unsigned long s)
{
	return ((unsigned int)s * 0x9e3779b1u) >> (32 - RC_LENT_SHIFT);
}

static inline bool overlaps(unsigned long a, unsigned long m, unsigned long s,
			    unsigned long n)
{
	return a < s + n && s < a + m;
}

/*
 * Record (s, n) as lent by @tc (tc lock held). A record already in its slot
 * is dropped: that region, held longer, becomes a plain allocation.
 */
static inline void lend(struct rc_tc *tc, unsigned long s, unsigned long n)
{
	unsigned int i = lent_slot(s);

	tc->lent[i] = s + 1;
	tc->lent_n[i] = (unsigned char)n;
}

/*
 * Pop an available entry of size @n meeting @mask into *@s (tc lock held):
 * the top one, else the highest that is aligned, moved to the top.
 */
static inline bool take(struct rc_tc *tc, unsigned long n, unsigned long mask,
			unsigned long *s)
{
	unsigned int c = tc_cnt(tc, n - 1);
	unsigned long *st = AVAIL(tc, n - 1);

	if (unlikely(!c))
		return false;
	if (unlikely(st[c - 1] & mask)) {
		unsigned int i = c - 1;

		while (i-- > 0)
			if (!(st[i] & mask))
				break;
		if (i >= c)
			return false;
		unsigned long t = st[i];

		st[i] = st[c - 1];
		st[c - 1] = t;
	}
	*s = st[c - 1];
	tc_set_cnt(tc, n - 1, c - 1);
	return true;
}

/* ---- life cycle ------------------------------------------------------- */

/*
 * Give @tc's available entries back to the backend (instance lock held):
 * false if the backend could not take some (out of memory: maple), which
 * then stay.
 */
static bool tc_flush(struct rg_region *r, struct rc_tc *tc)
{
	bool all = true;

	for (unsigned int k = 0; k < RC_SIZES; k++) {
		unsigned int c = tc_cnt(tc, k), keep = 0;

		for (unsigned int i = 0; i < c; i++)
			if (rgi_region_free_body(r, AVAIL(tc, k)[i], k + 1))
				AVAIL(tc, k)[keep++] = AVAIL(tc, k)[i];
		tc_set_cnt(tc, k, keep);
		all &= !keep;
	}
	return all;
}

int rgi_rcache_flush(struct rg_region *r)
{
	struct rgi_rcache *rc = r->rc;
	bool all = true;

	for (struct rc_tc *tc = rc->caches; tc; tc = tc->inext) {
		tc_lock(tc);
		all &= tc_flush(r, tc);
		tc_unlock(tc);
	}
	for (unsigned int k = 0; k < RC_SIZES; k++) {
		unsigned int c = rc->depot_cnt[k], keep = 0;

		for (unsigned int i = 0; i < c; i++)
			if (rgi_region_free_body(r, rc->depot[k][i], k + 1))
				rc->depot[k][keep++] = rc->depot[k][i];
		rc->depot_cnt[k] = keep;
		all &= !keep;
	}
	return all ? 0 : -ENOMEM;
}

/* Unlink @tc from its live instance's list (instance lock held). */
static void tc_unlink(struct rc_tc *tc)
{
	struct rc_tc **p = &tc->r->rc->caches;

	while (*p != tc)
		p = &(*p)->inext;
	*p = tc->inext;
}

/* Free this thread's orphaned caches (rc_global held). */
static void reap_orphans(void)
{
	for (struct rc_tc **p = &tc_list; *p;) {
		struct rc_tc *tc = *p;

		if (tc->r) {
			p = &tc->tnext;
			continue;
		}
		*p = tc->tnext;
		if (tc_last == tc)
			tc_last = &rc_none;
		rgi_free(tc);
	}
}

/* pthread key destructor: the thread exits. */
static void thread_exit(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&rc_global);
	while (tc_list) {
		struct rc_tc *tc = tc_list;
		struct rg_region *r = tc->r;

		tc_list = tc->tnext;
		if (r) {
			rgi_lock(&r->lock);
			tc_lock(tc);
			tc_flush(r, tc);
			tc_unlock(tc);
			tc_unlink(tc);
			/* what a failed flush kept goes back to the depot */
			for (unsigned int k = 0; k < RC_SIZES; k++)
				for (unsigned int i = 0; i < tc_cnt(tc, k);
				     i++) {
					unsigned int *d = &r->rc->depot_cnt[k];

					if (*d < RC_DEPOT)
						r->rc->depot[k][(*d)++] =
							AVAIL(tc, k)[i];
				}
			rgi_unlock(&r->lock);
		}
		rgi_free(tc);
	}
	tc_last = &rc_none;
	pthread_mutex_unlock(&rc_global);
}

static void key_init(void)
{
	rc_key_ok = !pthread_key_create(&rc_key, thread_exit);
}

int rgi_rcache_init(struct rg_region *r)
{
	pthread_once(&rc_once, key_init);
	if (!rc_key_ok)
		return -EAGAIN;
	r->rc = rgi_calloc(1, sizeof(*r->rc));
	if (!r->rc)
		return -ENOMEM;
	pthread_mutex_lock(&rc_global);
	r->rc_id = ++rc_next_id;
	pthread_mutex_unlock(&rc_global);
	return 0;
}

void rgi_rcache_fini(struct rg_region *r)
{
	pthread_mutex_lock(&rc_global);
	for (struct rc_tc *tc = r->rc->caches; tc; tc = tc->inext)
		tc->r = NULL;
	reap_orphans();
	pthread_mutex_unlock(&rc_global);
	rgi_free(r->rc);
	r->rc = NULL;
}

/* This thread's cache of @r, created on first use; NULL if out of memory. */
static RGI_NOINLINE struct rc_tc *tc_lookup(struct rg_region *r)
{
	struct rc_tc *tc;

	for (tc = tc_list; tc; tc = tc->tnext)
		if (tc->id == r->rc_id)
			goto found;
	tc = rgi_calloc(1, sizeof(*tc));
	if (!tc)
		return NULL;
	tc->id = r->rc_id;
	tc->lock = tc->id; /* free */
	for (unsigned int k = 0; k < RC_SIZES; k++)
		tc_set_cnt(tc, k, 0);
	tc->r = r;
	if (pthread_setspecific(rc_key, &tc_list)) {
		rgi_free(tc);
		return NULL;
	}
	pthread_mutex_lock(&rc_global);
	reap_orphans();
	rgi_lock(&r->lock);
	tc->inext = r->rc->caches;
	r->rc->caches = tc;
	rgi_unlock(&r->lock);
	tc->tnext = tc_list;
	tc_list = tc;
	pthread_mutex_unlock(&rc_global);
found:
	tc_last = tc;
	return tc;
}

static inline struct rc_tc *tc_get(struct rg_region *r)
{
	struct rc_tc *tc = tc_last;

	if (likely(tc->id == r->rc_id))
		return tc;
	return tc_lookup(r);
}

/* ---- allocation --------------------------------------------------------- */

/* Instance lock held: the backend, and after a flush once more. */
static int alloc_backend_retry(struct rg_region *r, unsigned long n,
			       unsigned long align, unsigned long *start)
{
	int err = rgi_region_alloc_body(r, n, align, start), flushed;

	if (err == -ENOSPC) {
		/* (cached regions the backend could not take back: -ENOMEM) */
		flushed = rgi_rcache_flush(r);
		err = rgi_region_alloc_body(r, n, align, start);
		if (err == -ENOSPC)
			err = flushed ? flushed : err;
	}
	return err;
}

static RGI_NOINLINE int alloc_miss(struct rg_region *r, struct rc_tc *tc,
				   unsigned long n, unsigned long align,
				   unsigned long *start)
{
	struct rgi_rcache *rc = r->rc;
	unsigned long mask = align ? align - 1 : 0, s;
	unsigned int k = (unsigned int)n - 1;
	int err;

	rgi_lock(&r->lock);
	if (tc) {
		tc_lock(tc);
		if (rc->depot_cnt[k] && tc_cnt(tc, k) <= RC_FULL - RC_MAG) {
			unsigned int m = RGI_MIN(rc->depot_cnt[k], RC_MAG);

			rc->depot_cnt[k] -= m;
			memcpy(&AVAIL(tc, k)[tc_cnt(tc, k)],
			       &rc->depot[k][rc->depot_cnt[k]], m * sizeof(s));
			tc_set_cnt(tc, k, tc_cnt(tc, k) + m);
		}
		if (take(tc, n, mask, &s)) {
			lend(tc, s, n);
			tc_unlock(tc);
			rgi_unlock(&r->lock);
			*start = s;
			return 0;
		}
		tc_unlock(tc);
	}
	err = alloc_backend_retry(r, n, align, &s);
	if (!err && tc) {
		tc_lock(tc);
		lend(tc, s, n);
		tc_unlock(tc);
	}
	rgi_unlock(&r->lock);
	if (!err)
		*start = s;
	return err;
}

/* Everything but a hit of the fast path below. */
static RGI_NOINLINE int alloc_slow(struct rg_region *r, unsigned long n,
				   unsigned long align, unsigned long *start)
{
	struct rc_tc *tc;
	unsigned long s;
	int err;

	if (n - 1 >= RC_SIZES) {
		/* not a cached size (or 0): the backend, flushed on -ENOSPC */
		rgi_lock(&r->lock);
		err = alloc_backend_retry(r, n, align, start);
		rgi_unlock(&r->lock);
		return err;
	}
	tc = tc_get(r);
	if (tc) {
		tc_lock(tc);
		if (take(tc, n, align ? align - 1 : 0, &s)) {
			lend(tc, s, n);
			tc_unlock(tc);
			*start = s;
			return 0;
		}
		tc_unlock(tc);
	}
	return alloc_miss(r, tc, n, align, start);
}

/* A miss of the fast path, the lock of this thread's cache of @r held. */
static RGI_NOINLINE int alloc_slow_unlock(struct rg_region *r, unsigned long n,
					  unsigned long align,
					  unsigned long *start)
{
	tc_unlock(tc_last);
	return alloc_slow(r, n, align, start);
}

/*
 * The fast path, a leaf: the top entry of the stack, if its start meets the
 * alignment; anything else is alloc_slow()'s.
 */
int rgi_rcache_alloc(struct rg_region *r, unsigned long n, unsigned long align,
		     unsigned long *start)
{
	struct rc_tc *tc = tc_last;
	unsigned long s, t, id = r->rc_id;

	if (unlikely(n - 1 >= RC_SIZES || !tc_trylock_id(tc, id)))
		return alloc_slow(r, n, align, start);
	t = tc->top[n];
	if (unlikely(!(t % RC_STACK)))
		goto miss; /* empty */
	s = tc->avail[--t];
	if (unlikely(align > 1 && (s & (align - 1))))
		goto miss;
	tc->top[n] = (unsigned short)t;
	lend(tc, s, n);
	*start = s;
	tc_unlock_id(tc, id);
	return 0;
miss:
	return alloc_slow_unlock(r, n, align, start);
}

/* ---- free --------------------------------------------------------------- */

/*
 * Instance lock held; [s, s + n) inside the capacity. Drop the lent
 * records that overlap it; -ENOENT if a cached free region overlaps it.
 * *@whole: a record of exactly (s, n) was dropped.
 */
static int scan_free(struct rg_region *r, unsigned long s, unsigned long n,
		     bool *whole)
{
	struct rgi_rcache *rc = r->rc;

	*whole = false;
	for (unsigned int k = 0; k < RC_SIZES; k++)
		for (unsigned int i = 0; i < rc->depot_cnt[k]; i++)
			if (overlaps(rc->depot[k][i], k + 1, s, n))
				return -ENOENT;
	for (struct rc_tc *tc = rc->caches; tc; tc = tc->inext) {
		tc_lock(tc);
		for (unsigned int k = 0; k < RC_SIZES; k++)
			for (unsigned int i = 0; i < tc_cnt(tc, k); i++)
				if (overlaps(AVAIL(tc, k)[i], k + 1, s, n)) {
					tc_unlock(tc);
					return -ENOENT;
				}
		for (unsigned int i = 0; i < RC_LENT; i++) {
			unsigned long a = tc->lent[i] - 1;

			if (!tc->lent[i] || !overlaps(a, tc->lent_n[i], s, n))
				continue;
			if (a == s && tc->lent_n[i] == n)
				*whole = true;
			tc->lent[i] = 0;
		}
		tc_unlock(tc);
	}
	return 0;
}

/* Move the RC_MAG oldest entries of size k + 1 out of @tc (both locks). */
static void spill(struct rg_region *r, struct rc_tc *tc, unsigned int k)
{
	struct rgi_rcache *rc = r->rc;
	unsigned long *st = AVAIL(tc, k);

	if (rc->depot_cnt[k] <= RC_DEPOT - RC_MAG) {
		memcpy(&rc->depot[k][rc->depot_cnt[k]], st,
		       RC_MAG * sizeof(*st));
		rc->depot_cnt[k] += RC_MAG;
	} else {
		for (unsigned int i = 0; i < RC_MAG; i++)
			if (rgi_region_free_body(r, st[i], k + 1))
				return; /* (no memory: keep them all) */
	}
	memmove(st, st + RC_MAG, (tc_cnt(tc, k) - RC_MAG) * sizeof(*st));
	tc_set_cnt(tc, k, tc_cnt(tc, k) - RC_MAG);
}

/* Push (s, n) on @tc's stack, spilling if full (both locks held). */
static bool push(struct rg_region *r, struct rc_tc *tc, unsigned long s,
		 unsigned long n)
{
	unsigned int k = (unsigned int)n - 1;

	if (tc_cnt(tc, k) == RC_FULL)
		spill(r, tc, k);
	if (tc_cnt(tc, k) == RC_FULL)
		return false;
	tc->avail[tc->top[n]++] = s;
	return true;
}

static RGI_NOINLINE int free_slow(struct rg_region *r, struct rc_tc *tc,
				  unsigned long start, unsigned long n)
{
	bool whole = false;
	int err;

	rgi_lock(&r->lock);
	if (tc) {
		/* a full stack: the record may have gone meanwhile */
		unsigned int i = lent_slot(start);

		tc_lock(tc);
		if (n - 1 < RC_SIZES && tc->lent[i] == start + 1 &&
		    tc->lent_n[i] == n && push(r, tc, start, n)) {
			tc->lent[i] = 0;
			tc_unlock(tc);
			rgi_unlock(&r->lock);
			return 0;
		}
		tc_unlock(tc);
	}
	err = -EINVAL;
	if (start < r->capacity && n - 1 < r->capacity - start)
		err = scan_free(r, start, n, &whole);
	if (!err && whole && tc) {
		/* another cache lent it whole: it goes on this one's stack */
		tc_lock(tc);
		whole = push(r, tc, start, n);
		tc_unlock(tc);
		if (whole) {
			rgi_unlock(&r->lock);
			return 0;
		}
	}
	if (!err)
		err = rgi_region_free_body(r, start, n);
	rgi_unlock(&r->lock);
	return err;
}

static RGI_NOINLINE int free_slow_entry(struct rg_region *r,
					unsigned long start, unsigned long n)
{
	return free_slow(r, tc_get(r), start, n);
}

/* A miss of the fast path, the lock of this thread's cache of @r held. */
static RGI_NOINLINE int free_slow_unlock(struct rg_region *r,
					 unsigned long start, unsigned long n)
{
	struct rc_tc *tc = tc_last;

	tc_unlock(tc);
	return free_slow(r, tc, start, n);
}

/*
 * The fast path, a leaf: a region this thread's cache lent, freed whole,
 * onto a stack with room; anything else is free_slow()'s.
 */
int rgi_rcache_free(struct rg_region *r, unsigned long start, unsigned long n)
{
	struct rc_tc *tc = tc_last;
	unsigned long t, id = r->rc_id;
	unsigned int i;

	if (unlikely(!tc_trylock_id(tc, id)))
		return free_slow_entry(r, start, n);
	i = lent_slot(start);
	/* (a record's size is 1 .. RC_SIZES, so n is checked by the match) */
	if (likely(tc->lent[i] == start + 1 && tc->lent_n[i] == n)) {
		t = tc->top[n] + 1ul;
		if (likely(t % RC_STACK)) { /* not full */
			tc->lent[i] = 0;
			tc->avail[t - 1] = start;
			tc->top[n] = (unsigned short)t;
			tc_unlock_id(tc, id);
			return 0;
		}
	}
	return free_slow_unlock(r, start, n);
}

/* ---- checks ------------------------------------------------------------- */

/* Instance lock held: every entry's units allocated in the backend. */
const char *rgi_rcache_check(struct rg_region *r)
{
	struct rgi_rcache *rc = r->rc;
	const char *why = NULL;

	for (unsigned int k = 0; k < RC_SIZES && !why; k++)
		for (unsigned int i = 0; i < rc->depot_cnt[k] && !why; i++)
			for (unsigned long u = 0; u <= k && !why; u++)
				if (rc->depot[k][i] + u >= r->capacity ||
				    !r->ops->test(r, rc->depot[k][i] + u))
					why = "a cached region is free in the backend";
	for (struct rc_tc *tc = rc->caches; tc && !why; tc = tc->inext) {
		tc_lock(tc);
		for (unsigned int k = 0; k < RC_SIZES && !why; k++)
			for (unsigned int i = 0; i < tc_cnt(tc, k) && !why; i++)
				for (unsigned long u = 0; u <= k && !why; u++)
					if (AVAIL(tc, k)[i] + u >=
						    r->capacity ||
					    !r->ops->test(r,
							  AVAIL(tc, k)[i] + u))
						why = "a cached region is free in the backend";
		for (unsigned int i = 0; i < RC_LENT && !why; i++)
			for (unsigned long u = 0;
			     tc->lent[i] && !why && u < tc->lent_n[i]; u++)
				if (tc->lent[i] - 1 + u >= r->capacity ||
				    !r->ops->test(r, tc->lent[i] - 1 + u))
					why = "a lent region is free in the backend";
		tc_unlock(tc);
	}
	return why;
}
