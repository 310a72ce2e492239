// SPDX-License-Identifier: MIT
/*
 * soak: every module at once, for minutes, from 2 x nproc threads.
 *
 * Theory of operation. The main thread creates one instance of everything:
 * a slab cache, an IDA, an allocating xarray, a Maple allocation tree, one
 * region per backend (created with RG_REGION_LOCKED), and an hbitmap and a
 * plain bitmap, each behind its own mutex (they are not thread-safe). Then
 * worker threads run random operations on all of them until the run ends.
 *
 * Ownership: every structure that hands out IDs or units has a shared array
 * with one owner byte per ID or unit. A worker that is handed an ID or a run
 * claims each byte with a compare-and-swap from 0 to its own number; a byte
 * that is already claimed is a unit handed out twice. Freeing swaps the
 * bytes back and checks they were the worker's. Slab objects carry their
 * owner's tag in their first words: an object handed out while another
 * worker's tag is still in it is an object handed out twice; a tag that
 * changed between alloc and free is a write by someone else. Each worker
 * keeps its own records of what it holds, and checks on the way that the
 * structure still agrees (load, exists, test).
 *
 * Checkpoints: every --check seconds the main thread stops the workers at
 * a safe point and compares totals: objects in use against the sum of the
 * workers' records, IDs and entries found by iteration against the owner
 * arrays, free units against capacity minus units held, and validates every
 * structure (the slab cache only here: it must be idle). Between
 * checkpoints workers validate the thread-safe structures now and then.
 *
 * Memory: the main thread samples the resident set (/proc/self/statm) every
 * second into the data file: seconds, RSS in KiB, phase. The level at the
 * end of the settling time (--settle, default 60 s) is the reference: every
 * later sample of the load phase must be within 5 % of it. At the end the
 * workers free all they hold and exit, the main thread shrinks the cache
 * and destroys everything, and the resident set must come back near the
 * level before the structures existed: within 10 % of the growth (at least
 * 1 MiB, for the exited threads' stacks and malloc arenas), plus what
 * the process-wide node caches of the xarray, the IDA and the Maple Tree
 * still hold (empty slabs of those caches stay mapped for reuse; their
 * statistics say how many bytes that is).
 *
 * Exit status 0 when no violation was seen; every violation prints one line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libregion.h>

#include "rg_rand.h"

#define ID_SPACE (1u << 18) /* IDA and xarray IDs, maple indices */
#define REGION_CAP (1ul << 16)
#define HB_CAP (1ul << 20)
#define BM_BITS (1ul << 16)
#define OBJ_SIZE 512

/* Per-worker caps on what it holds, per structure. */
#define MAX_OBJS 8192
#define MAX_IDS 2048
#define MAX_RUNS 512

enum {
	S_IDA,
	S_XA,
	S_MT,
	S_R0,
	S_HB = S_R0 + RG_REGION_NR_BACKENDS,
	S_BM,
	NR_S
};

#define SOAK_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
static const char *const sname[] = {
	"ida",	      "xarray",	      "maple",		"region-bitmap",
	"region-ida", "region-maple", "region-hbitmap", "region-extent",
	"hbitmap",    "bitmap"
};
static const unsigned long scap[] = {
	ID_SPACE,   ID_SPACE,	ID_SPACE,   REGION_CAP, REGION_CAP,
	REGION_CAP, REGION_CAP, REGION_CAP, HB_CAP,	BM_BITS,
};
_Static_assert(SOAK_ARRAY_SIZE(sname) == NR_S && SOAK_ARRAY_SIZE(scap) == NR_S,
	       "one name and capacity per structure");

struct run {
	unsigned long start, n;
};

struct worker {
	pthread_t tid;
	unsigned int id; /* 1 .. nthreads: the owner byte */
	struct rg_rand rng;
	void *objs[MAX_OBJS];
	size_t nobjs;
	uint64_t seq;
	struct run runs[NR_S][MAX_IDS]; /* MAX_IDS >= MAX_RUNS */
	size_t nruns[NR_S];
	unsigned long ops;
};

static struct {
	struct rg_slab_cache *cache;
	struct rg_ida ida;
	struct rg_xarray xa;
	struct rg_maple_tree mt;
	struct rg_region *r[RG_REGION_NR_BACKENDS];
	struct rg_hbitmap *hb;
	pthread_mutex_t hb_lock;
	unsigned long *bm;
	pthread_mutex_t bm_lock;
	_Atomic unsigned char *owner[NR_S];
} g;

static struct worker *workers;
static unsigned int nworkers;
static atomic_bool stop;
static atomic_uint pause_req;
static atomic_uint paused;
static atomic_ulong violations;
static atomic_ulong fails_nomem;

#define TAG_MAGIC 0x534f414b54414721ULL /* held object */
#define FREE_MAGIC 0x534f414b46524545ULL /* given back */

__attribute__((format(printf, 1, 2))) static void violation(const char *fmt,
							    ...)
{
	va_list ap;

	/* The first lines say what broke; thousands more say nothing. */
	if (atomic_fetch_add(&violations, 1) >= 20)
		return;
	va_start(ap, fmt);
	fputs("soak: VIOLATION: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long size = 0, res = 0;

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &res) != 2)
		res = -1;
	fclose(f);
	return res < 0 ? -1 : res * (sysconf(_SC_PAGESIZE) / 1024);
}

/* ---- ownership bytes ---- */

static void claim(struct worker *w, int s, unsigned long start, unsigned long n)
{
	for (unsigned long i = start; i < start + n; i++) {
		unsigned char exp = 0;

		if (i >= scap[s]) {
			violation("%s: unit %lu handed out past capacity %lu",
				  sname[s], i, scap[s]);
			return;
		}
		if (!atomic_compare_exchange_strong(&g.owner[s][i], &exp,
						    (unsigned char)w->id))
			violation("%s: unit %lu handed to worker %u while "
				  "worker %u holds it",
				  sname[s], i, w->id, exp);
	}
}

static void unclaim(struct worker *w, int s, unsigned long start,
		    unsigned long n)
{
	for (unsigned long i = start; i < start + n; i++) {
		unsigned char exp = (unsigned char)w->id;

		if (!atomic_compare_exchange_strong(&g.owner[s][i], &exp, 0))
			violation("%s: unit %lu of worker %u owned by %u",
				  sname[s], i, w->id, exp);
	}
}

static void add_run(struct worker *w, int s, unsigned long start,
		    unsigned long n)
{
	claim(w, s, start, n);
	w->runs[s][w->nruns[s]++] = (struct run){ start, n };
}

/* Remove and return a random run of structure @s (the caller checks nruns). */
static struct run take_run(struct worker *w, int s)
{
	size_t i = rg_rand_below(&w->rng, w->nruns[s]);
	struct run r = w->runs[s][i];

	w->runs[s][i] = w->runs[s][--w->nruns[s]];
	return r;
}

/* Grow while below half the cap, shrink above: a noisy steady state. */
static bool want_alloc(struct worker *w, size_t held, size_t cap)
{
	if (held == 0)
		return true;
	if (held >= cap)
		return false;
	return rg_rand_below(&w->rng, cap) >= held;
}

static void note_err(const char *what, const char *op, int err)
{
	if (err == -ENOMEM) {
		atomic_fetch_add(&fails_nomem, 1);
		return;
	}
	violation("%s: %s returned %d", what, op, err);
}

/* ---- slab ---- */

static void obj_take(struct worker *w, void *p)
{
	uint64_t *q = p;

	if (q[0] == TAG_MAGIC)
		violation("slab: object %p handed to worker %u while worker "
			  "%" PRIu64 " holds it",
			  p, w->id, q[1]);
	q[0] = TAG_MAGIC;
	q[1] = w->id;
	q[2] = ++w->seq;
	q[3] = (uint64_t)(uintptr_t)p;
	w->objs[w->nobjs++] = p;
}

static void *obj_give(struct worker *w, size_t i)
{
	uint64_t *q = w->objs[i];

	if (q[0] != TAG_MAGIC || q[1] != w->id ||
	    q[3] != (uint64_t)(uintptr_t)q)
		violation("slab: object %p of worker %u was overwritten",
			  (void *)q, w->id);
	q[0] = FREE_MAGIC;
	w->objs[i] = w->objs[--w->nobjs];
	return q;
}

static void op_slab(struct worker *w)
{
	unsigned int k = rg_rand_below(&w->rng, 8);
	void *v[32];

	if (want_alloc(w, w->nobjs, MAX_OBJS - 32)) {
		if (k < 5) {
			void *p = rg_slab_alloc(g.cache);

			if (!p)
				return note_err("slab", "alloc", -errno);
			obj_take(w, p);
		} else if (k < 7) {
			size_t n = 1 + rg_rand_below(&w->rng, 32);

			if (rg_slab_alloc_bulk(g.cache, n, v) != n)
				return note_err("slab", "alloc_bulk", -errno);
			for (size_t i = 0; i < n; i++)
				obj_take(w, v[i]);
		} else {
			unsigned int n = 1 + rg_rand_below(&w->rng, 24);
			struct rg_slab_sheaf *sh =
				rg_slab_prefill_sheaf(g.cache, n);
			unsigned int take;

			if (!sh)
				return note_err("slab", "prefill", -errno);
			if (rg_slab_sheaf_size(sh) < n)
				violation("slab: prefilled sheaf holds %u < %u",
					  rg_slab_sheaf_size(sh), n);
			take = rg_rand_below(&w->rng, n + 1);
			for (unsigned int i = 0; i < take; i++) {
				void *p = rg_slab_alloc_from_sheaf(g.cache, sh);

				if (!p) {
					violation("slab: sheaf ran dry");
					break;
				}
				obj_take(w, p);
			}
			rg_slab_return_sheaf(g.cache, sh);
		}
		return;
	}
	if (k < 5) {
		rg_slab_free(g.cache,
			     obj_give(w, rg_rand_below(&w->rng, w->nobjs)));
	} else {
		size_t n = 1 + rg_rand_below(&w->rng, 32);

		if (n > w->nobjs)
			n = w->nobjs;
		for (size_t i = 0; i < n; i++)
			v[i] = obj_give(w, rg_rand_below(&w->rng, w->nobjs));
		rg_slab_free_bulk(g.cache, n, v);
	}
}

/* ---- IDA, xarray, maple ---- */

static void *xa_entry(struct worker *w, unsigned long id)
{
	return rg_xa_mk_value(((unsigned long)w->id << 32) | id);
}

static void op_ida(struct worker *w)
{
	unsigned int id;
	int err;

	if (want_alloc(w, w->nruns[S_IDA], MAX_IDS)) {
		unsigned int min = rg_rand_below(&w->rng, 4) ?
					   0 :
					   rg_rand_below(&w->rng, ID_SPACE);

		err = rg_ida_alloc_range(&g.ida, min, ID_SPACE - 1, &id);
		if (err == -ENOSPC && min > 0)
			return;
		if (err)
			return note_err(sname[S_IDA], "alloc_range", err);
		if (id < min)
			violation("ida: id %u below min %u", id, min);
		add_run(w, S_IDA, id, 1);
		return;
	}
	struct run r = take_run(w, S_IDA);

	if (!rg_ida_exists(&g.ida, r.start))
		violation("ida: held id %lu does not exist", r.start);
	unclaim(w, S_IDA, r.start, 1);
	err = rg_ida_free(&g.ida, r.start);
	if (err)
		violation("ida: free of held id %lu returned %d", r.start, err);
}

static void op_xa(struct worker *w)
{
	unsigned long id;
	int err;

	if (want_alloc(w, w->nruns[S_XA], MAX_IDS)) {
		/* The entry names the worker; the index is only known after. */
		err = rg_xa_alloc(&g.xa, &id, rg_xa_mk_value(w->id), 0,
				  ID_SPACE - 1);
		if (err)
			return note_err(sname[S_XA], "alloc", err);
		add_run(w, S_XA, id, 1);
		if (rg_xa_store(&g.xa, id, xa_entry(w, id), NULL))
			return note_err(sname[S_XA], "store", -ENOMEM);
		if (rg_rand_below(&w->rng, 2) &&
		    rg_xa_set_mark(&g.xa, id, RG_XA_MARK_1))
			violation("xarray: set_mark on held %lu failed", id);
		return;
	}
	struct run r = take_run(w, S_XA);
	void *old;

	if (rg_xa_load(&g.xa, r.start) != xa_entry(w, r.start))
		violation("xarray: index %lu does not hold its entry", r.start);
	unclaim(w, S_XA, r.start, 1);
	old = rg_xa_erase(&g.xa, r.start);
	if (old != xa_entry(w, r.start))
		violation("xarray: erase %lu returned another entry", r.start);
}

static void op_mt(struct worker *w)
{
	unsigned long start;
	int err;

	if (want_alloc(w, w->nruns[S_MT], MAX_RUNS)) {
		unsigned long n = 1 + rg_rand_below(&w->rng, 16);

		err = rg_mtree_alloc_range(&g.mt, &start, rg_mt_mk_value(w->id),
					   n, 0, ID_SPACE - 1);
		if (err)
			return note_err(sname[S_MT], "alloc_range", err);
		add_run(w, S_MT, start, n);
		return;
	}
	struct run r = take_run(w, S_MT);
	void *e = rg_mt_mk_value(w->id);

	if (rg_mtree_load(&g.mt, r.start) != e ||
	    rg_mtree_load(&g.mt, r.start + r.n - 1) != e)
		violation("maple: range %lu+%lu does not hold its entry",
			  r.start, r.n);
	unclaim(w, S_MT, r.start, r.n);
	if (rg_mtree_erase(&g.mt, r.start + rg_rand_below(&w->rng, r.n)) != e)
		violation("maple: erase in %lu+%lu returned another entry",
			  r.start, r.n);
}

/* ---- regions, hbitmap, bitmap ---- */

static void op_region(struct worker *w, int b)
{
	int s = S_R0 + b;
	unsigned long start;
	int err;

	if (want_alloc(w, w->nruns[s], MAX_RUNS / 2)) {
		unsigned long n = 1 + rg_rand_below(&w->rng, 16);
		unsigned long align = 1ul << rg_rand_below(&w->rng, 4);

		if (rg_rand_below(&w->rng, 8) == 0) {
			start = rg_rand_below(&w->rng, REGION_CAP - n);
			err = rg_region_reserve(g.r[b], start, n);
			if (err == -EBUSY)
				return;
		} else {
			err = rg_region_alloc(g.r[b], n, align, &start);
			if (!err && start % align)
				violation("%s: start %lu not aligned to %lu",
					  sname[s], start, align);
		}
		if (err)
			return note_err(sname[s], "alloc/reserve", err);
		add_run(w, s, start, n);
		return;
	}
	struct run r = take_run(w, s);

	if (rg_region_test(g.r[b], r.start) != 1 ||
	    rg_region_test(g.r[b], r.start + r.n - 1) != 1)
		violation("%s: held run %lu+%lu reads free", sname[s], r.start,
			  r.n);
	unclaim(w, s, r.start, r.n);
	err = rg_region_free(g.r[b], r.start, r.n);
	if (err)
		violation("%s: free %lu+%lu returned %d", sname[s], r.start,
			  r.n, err);
}

static void op_hb(struct worker *w)
{
	uint64_t start;
	int err;

	if (want_alloc(w, w->nruns[S_HB], MAX_RUNS)) {
		uint64_t n = 1 + rg_rand_below(&w->rng, 64);
		uint64_t align = 1ull << rg_rand_below(&w->rng, 6);

		pthread_mutex_lock(&g.hb_lock);
		if (rg_rand_below(&w->rng, 8) == 0) {
			start = rg_rand_below(&w->rng, HB_CAP - n);
			err = rg_hbitmap_reserve(g.hb, start, n);
		} else {
			err = rg_hbitmap_alloc(g.hb, n, align, &start);
		}
		if (!err)
			add_run(w, S_HB, start, n);
		pthread_mutex_unlock(&g.hb_lock);
		if (err && err != -EBUSY)
			note_err(sname[S_HB], "alloc/reserve", err);
		return;
	}
	struct run r = take_run(w, S_HB);

	pthread_mutex_lock(&g.hb_lock);
	if (rg_hbitmap_test(g.hb, r.start) != 1)
		violation("hbitmap: held unit %lu reads free", r.start);
	unclaim(w, S_HB, r.start, r.n);
	err = rg_hbitmap_free(g.hb, r.start, r.n);
	pthread_mutex_unlock(&g.hb_lock);
	if (err)
		violation("hbitmap: free %lu+%lu returned %d", r.start, r.n,
			  err);
}

static void op_bm(struct worker *w)
{
	if (want_alloc(w, w->nruns[S_BM], MAX_RUNS / 4)) {
		unsigned long n = 1 + rg_rand_below(&w->rng, 32), pos;
		unsigned int order = rg_rand_below(&w->rng, 4);

		pthread_mutex_lock(&g.bm_lock);
		if (rg_rand_below(&w->rng, 2)) {
			pos = rg_bitmap_find_next_zero_area_off(g.bm, BM_BITS,
								0, n, 0, 0);
			if (pos < BM_BITS) {
				if (!rg_bitmap_range_is_clear(g.bm, pos, n))
					violation("bitmap: zero area %lu+%lu "
						  "is not clear",
						  pos, n);
				rg_bitmap_set_range(g.bm, pos, n);
				add_run(w, S_BM, pos, n);
			}
		} else if (!rg_bitmap_find_free_region(g.bm, BM_BITS, order,
						       &pos)) {
			add_run(w, S_BM, pos, 1ul << order);
		}
		pthread_mutex_unlock(&g.bm_lock);
		return;
	}
	struct run r = take_run(w, S_BM);

	pthread_mutex_lock(&g.bm_lock);
	if (!rg_bitmap_range_is_set(g.bm, r.start, r.n))
		violation("bitmap: held run %lu+%lu is not set", r.start, r.n);
	unclaim(w, S_BM, r.start, r.n);
	rg_bitmap_clear_range(g.bm, r.start, r.n);
	pthread_mutex_unlock(&g.bm_lock);
}

/* ---- validation ---- */

static void check_rc(const char *what, int err, const char *reason)
{
	if (err)
		violation("%s: validate failed: %s", what,
			  reason ? reason : "?");
}

/* Validate one of the structures that tolerate concurrent use. */
static void validate_one(unsigned int which)
{
	const char *why = NULL;

	switch (which % (4 + RG_REGION_NR_BACKENDS)) {
	case 0:
		check_rc("ida", rg_ida_validate(&g.ida, &why), why);
		break;
	case 1:
		check_rc("xarray", rg_xa_validate(&g.xa, &why), why);
		break;
	case 2:
		check_rc("maple", rg_mtree_validate(&g.mt, &why), why);
		break;
	case 3:
		pthread_mutex_lock(&g.hb_lock);
		check_rc("hbitmap", rg_hbitmap_validate(g.hb, &why), why);
		pthread_mutex_unlock(&g.hb_lock);
		pthread_mutex_lock(&g.bm_lock);
		check_rc("bitmap", rg_bitmap_validate(g.bm, BM_BITS, &why),
			 why);
		pthread_mutex_unlock(&g.bm_lock);
		break;
	default: {
		int b = which % (4 + RG_REGION_NR_BACKENDS) - 4;

		check_rc(sname[S_R0 + b], rg_region_validate(g.r[b], &why),
			 why);
	}
	}
}

static void worker_pause_point(void)
{
	if (!atomic_load(&pause_req))
		return;
	atomic_fetch_add(&paused, 1);
	while (atomic_load(&pause_req))
		usleep(1000);
	atomic_fetch_sub(&paused, 1);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	while (!atomic_load(&stop)) {
		unsigned int k = rg_rand_below(&w->rng, 16);

		worker_pause_point();
		if (k < 4)
			op_slab(w);
		else if (k < 6)
			op_ida(w);
		else if (k < 8)
			op_xa(w);
		else if (k < 10)
			op_mt(w);
		else if (k < 14)
			op_region(w, k - 10);
		else if (k == 14)
			op_hb(w);
		else
			op_bm(w);
		if (++w->ops % 20000 == 0)
			validate_one(w->ops / 20000 + w->id);
	}
	/* Give everything back through the structures' own calls. */
	while (w->nobjs)
		rg_slab_free(g.cache, obj_give(w, w->nobjs - 1));
	for (int s = 0; s < NR_S; s++) {
		while (w->nruns[s]) {
			struct run r = w->runs[s][--w->nruns[s]];

			unclaim(w, s, r.start, r.n);
			switch (s) {
			case S_IDA:
				rg_ida_free(&g.ida, r.start);
				break;
			case S_XA:
				rg_xa_erase(&g.xa, r.start);
				break;
			case S_MT:
				rg_mtree_erase(&g.mt, r.start);
				break;
			case S_HB:
				pthread_mutex_lock(&g.hb_lock);
				rg_hbitmap_free(g.hb, r.start, r.n);
				pthread_mutex_unlock(&g.hb_lock);
				break;
			case S_BM:
				pthread_mutex_lock(&g.bm_lock);
				rg_bitmap_clear_range(g.bm, r.start, r.n);
				pthread_mutex_unlock(&g.bm_lock);
				break;
			default:
				rg_region_free(g.r[s - S_R0], r.start, r.n);
			}
		}
	}
	return NULL;
}

/* ---- checkpoints (workers paused or gone) ---- */

static unsigned long owned(int s)
{
	unsigned long n = 0;

	for (unsigned long i = 0; i < scap[s]; i++)
		n += atomic_load_explicit(&g.owner[s][i],
					  memory_order_relaxed) != 0;
	return n;
}

static void checkpoint(const char *when)
{
	struct rg_slab_stats ss;
	struct rg_region_stats rs;
	const char *why = NULL;
	unsigned long i, n, held;
	size_t objs = 0;
	void *e;

	for (unsigned int t = 0; t < nworkers; t++)
		objs += workers[t].nobjs;
	check_rc("slab", rg_slab_validate(g.cache, &why), why);
	if (rg_slab_get_stats(g.cache, &ss) || ss.objects_in_use != objs)
		violation("slab (%s): %zu objects in use, workers hold %zu",
			  when, (size_t)ss.objects_in_use, objs);
	for (unsigned int v = 0; v < 4 + RG_REGION_NR_BACKENDS; v++)
		validate_one(v);

	held = owned(S_IDA);
	for (i = 0, n = 0; i < ID_SPACE; i++) {
		bool ex = rg_ida_exists(&g.ida, i);

		n += ex;
		if (ex != (atomic_load(&g.owner[S_IDA][i]) != 0))
			violation("ida (%s): id %lu exists=%d, owner %u", when,
				  i, ex, atomic_load(&g.owner[S_IDA][i]));
	}
	if (n != held)
		violation("ida (%s): %lu ids, %lu held", when, n, held);

	held = owned(S_XA);
	n = 0;
	rg_xa_for_each(&g.xa, i, e)
	{
		unsigned int o = i < ID_SPACE ? g.owner[S_XA][i] : 0;

		n++;
		if (!o || e != rg_xa_mk_value(((unsigned long)o << 32) | i))
			violation("xarray (%s): index %lu holds a stray entry",
				  when, i);
	}
	if (n != held)
		violation("xarray (%s): %lu entries, %lu held", when, n, held);

	held = owned(S_MT);
	n = 0;
	i = 0;
	rg_mt_for_each(&g.mt, e, i, ULONG_MAX) {
		/* i is the index after the range found. */
		if (i == 0 || i > ID_SPACE || !rg_mt_is_value(e) ||
		    rg_mt_to_value(e) != g.owner[S_MT][i - 1])
			violation("maple (%s): index %lu holds a stray entry",
				  when, i - 1);
		n++;
	}
	/* Entries are ranges; compare with the workers' run counts. */
	held = 0;
	for (unsigned int t = 0; t < nworkers; t++)
		held += workers[t].nruns[S_MT];
	if (n != held)
		violation("maple (%s): %lu ranges, %lu held", when, n, held);

	for (int b = 0; b < RG_REGION_NR_BACKENDS; b++) {
		held = owned(S_R0 + b);
		if (rg_region_get_stats(g.r[b], &rs) ||
		    rs.free_units != REGION_CAP - held)
			violation("%s (%s): %lu free units, %lu held",
				  sname[S_R0 + b], when, rs.free_units, held);
	}
	held = owned(S_HB);
	if (rg_hbitmap_free_units(g.hb) != HB_CAP - held)
		violation("hbitmap (%s): %" PRIu64 " free units, %lu held",
			  when, rg_hbitmap_free_units(g.hb), held);
	held = owned(S_BM);
	if (rg_bitmap_weight(g.bm, BM_BITS) != held)
		violation("bitmap (%s): weight %lu, %lu held", when,
			  rg_bitmap_weight(g.bm, BM_BITS), held);
}

static void pause_workers(void)
{
	atomic_store(&pause_req, 1);
	while (atomic_load(&paused) != nworkers)
		usleep(1000);
}

static void resume_workers(void)
{
	atomic_store(&pause_req, 0);
}

/* Bytes the process-wide node caches keep mapped. */
static size_t node_cache_bytes(void)
{
	struct rg_slab_stats st;
	size_t n = 0;

	if (!rg_xa_node_cache_stats(&st))
		n += st.bytes_held;
	if (!rg_ida_bitmap_cache_stats(&st))
		n += st.bytes_held;
	if (!rg_mtree_node_stats(&st))
		n += st.bytes_held;
	return n;
}

/* Make every page of fresh zeroed memory resident (memset would be elided). */
static void touch(void *p, size_t n)
{
	volatile unsigned char *c = p;

	for (size_t i = 0; i < n; i += 4096)
		c[i] = 0;
	if (n)
		c[n - 1] = 0;
}

static void usage(FILE *f)
{
	fputs("usage: soak [--seconds N | --minutes N] [--settle S] "
	      "[--check S]\n"
	      "            [--threads N] [--seed N] [--data FILE] "
	      "[--no-rss-check]\n",
	      f);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "minutes", required_argument, NULL, 'm' },
		{ "settle", required_argument, NULL, 'S' },
		{ "check", required_argument, NULL, 'c' },
		{ "threads", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 'r' },
		{ "data", required_argument, NULL, 'd' },
		{ "no-rss-check", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double seconds = 60, settle = 60, check_every = 30;
	unsigned long long seed = 1;
	const char *data = NULL;
	bool rss_check = true;
	long rss0, rss1 = 0, rss_peak = 0, rss_end, lo = 0, hi = 0;
	double t0, t, next_check, next_sample;
	unsigned long nsamples = 0, out_of_band = 0;
	FILE *df = NULL;
	int c;

	nworkers = 2 * (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seconds = atof(optarg);
			break;
		case 'm':
			seconds = atof(optarg) * 60;
			break;
		case 'S':
			settle = atof(optarg);
			break;
		case 'c':
			check_every = atof(optarg);
			break;
		case 't':
			nworkers = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			data = optarg;
			break;
		case 'n':
			rss_check = false;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || seconds <= 0 || check_every <= 0 ||
	    nworkers < 1 || nworkers > 250) {
		usage(stderr);
		return 2;
	}
	if (settle >= seconds)
		settle = seconds / 2;
	if (data && !(df = fopen(data, "w"))) {
		perror(data);
		return 2;
	}

	/* The harness's own memory first, touched, so the baseline has it. */
	workers = calloc(nworkers, sizeof(*workers));
	if (!workers)
		return 2;
	touch(workers, nworkers * sizeof(*workers));
	for (int s = 0; s < NR_S; s++) {
		g.owner[s] = calloc(scap[s], 1);
		if (!g.owner[s])
			return 2;
		touch((void *)g.owner[s], scap[s]);
	}
	t0 = now_s();
	rss0 = rss_kib();
	if (df)
		fprintf(df, "# seconds rss_kib phase\n%.1f %ld start\n", 0.0,
			rss0);

	g.cache = rg_slab_create("soak", OBJ_SIZE, 0, 0, NULL);
	rg_ida_init(&g.ida);
	rg_xa_init_flags(&g.xa, RG_XA_FLAGS_ALLOC);
	rg_mtree_init(&g.mt, RG_MT_FLAGS_ALLOC_RANGE);
	for (int b = 0; b < RG_REGION_NR_BACKENDS; b++)
		g.r[b] = rg_region_create_backend(b, REGION_CAP,
						  RG_REGION_LOCKED);
	g.hb = rg_hbitmap_create(HB_CAP);
	g.bm = rg_bitmap_zalloc(BM_BITS);
	pthread_mutex_init(&g.hb_lock, NULL);
	pthread_mutex_init(&g.bm_lock, NULL);
	if (!g.cache || !g.r[0] || !g.r[1] || !g.r[2] || !g.r[3] || !g.hb ||
	    !g.bm) {
		fprintf(stderr, "soak: cannot create the structures\n");
		return 2;
	}

	printf("soak: %u threads, %.0f s (settle %.0f s, checkpoint every "
	       "%.0f s), seed %llu\n",
	       nworkers, seconds, settle, check_every, seed);
	fflush(stdout);
	for (unsigned int i = 0; i < nworkers; i++) {
		workers[i].id = i + 1;
		rg_rand_seed(&workers[i].rng, seed * 1000003ULL + i);
		if (pthread_create(&workers[i].tid, NULL, worker_main,
				   &workers[i])) {
			fprintf(stderr, "soak: pthread_create failed\n");
			return 2;
		}
	}

	next_sample = t0 + 1;
	next_check = t0 + check_every;
	for (;;) {
		t = now_s();
		if (t >= t0 + seconds)
			break;
		if (t < next_sample) {
			usleep((useconds_t)((next_sample - t) * 1e6) + 1);
			continue;
		}
		next_sample += 1;
		long rss = rss_kib();

		nsamples++;
		if (rss > rss_peak)
			rss_peak = rss;
		if (!rss1 && t - t0 >= settle) {
			rss1 = rss;
			lo = rss1 - rss1 / 20;
			hi = rss1 + rss1 / 20;
		} else if (rss1 && (rss < lo || rss > hi)) {
			out_of_band++;
			if (rss_check)
				violation("rss %ld KiB at %.0f s is outside "
					  "%ld .. %ld KiB",
					  rss, t - t0, lo, hi);
		}
		if (df) {
			fprintf(df, "%.1f %ld load\n", t - t0, rss);
			fflush(df);
		}
		if (t >= next_check) {
			next_check += check_every;
			pause_workers();
			checkpoint("checkpoint");
			resume_workers();
		}
		/* The main thread validates too, while workers run. */
		validate_one((unsigned int)nsamples);
	}

	atomic_store(&stop, true);
	unsigned long ops = 0;

	for (unsigned int i = 0; i < nworkers; i++) {
		pthread_join(workers[i].tid, NULL);
		ops += workers[i].ops;
	}
	checkpoint("end");
	if (!rg_ida_is_empty(&g.ida) || !rg_xa_empty(&g.xa) ||
	    !rg_mtree_empty(&g.mt))
		violation("a structure is not empty after every free");

	long shrunk = rg_slab_shrink(g.cache);
	size_t leaked = rg_slab_destroy(g.cache);

	if (leaked)
		violation("slab: destroy reports %zu objects leaked", leaked);
	rg_ida_destroy(&g.ida);
	rg_xa_destroy(&g.xa);
	rg_mtree_destroy(&g.mt);
	rg_mtree_rcu_barrier();
	for (int b = 0; b < RG_REGION_NR_BACKENDS; b++)
		rg_region_destroy(g.r[b]);
	rg_hbitmap_destroy(g.hb);
	rg_bitmap_free(g.bm);
	sleep(1);
	rss_end = rss_kib();
	size_t kept = node_cache_bytes();

	if (df) {
		t = now_s() - t0;
		fprintf(df, "%.1f %ld destroyed\n", t, rss_end);
		fclose(df);
	}

	long growth = rss_peak - rss0;
	/*
	 * Near the start: within 10 % of the growth (at least 1 MiB: the
	 * stacks and malloc arenas of the exited workers stay cached by the C
	 * library), plus what the shared node caches keep mapped.
	 */
	long allowed = rss0 + (growth / 10 > 1024 ? growth / 10 : 1024) +
		       (long)(kept / 1024);

	if (rss_check && rss_end > allowed)
		violation("rss %ld KiB after destroy, more than %ld KiB",
			  rss_end, allowed);
	printf("soak: %lu operations, %lu -ENOMEM, %lu violations\n", ops,
	       atomic_load(&fails_nomem), atomic_load(&violations));
	printf("soak: rss KiB: start %ld, after settling %ld (band %ld .. %ld), "
	       "peak %ld, %lu of %lu samples outside the band, after destroy "
	       "%ld (allowed %ld; node caches keep %zu KiB; %ld slabs "
	       "shrunk)\n",
	       rss0, rss1, lo, hi, rss_peak, out_of_band, nsamples, rss_end,
	       allowed, kept / 1024, shrunk);
	for (int s = 0; s < NR_S; s++)
		free((void *)g.owner[s]);
	free(workers);
	printf("soak: %s\n", atomic_load(&violations) ? "FAILED" : "passed");
	return atomic_load(&violations) ? 1 : 0;
}
