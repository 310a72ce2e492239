// SPDX-License-Identifier: MIT
/*
 * regionbench maple: the Maple Tree as a range map, side by side with
 * GLib's GTree (a balanced binary tree keyed by range start), and as an
 * allocator in a seed-000-like fill.
 *
 * Range map: --entries N ranges (default 10^6), range k covering
 * [10k, 10k + len - 1] with len in 1..8, so a NULL range separates every
 * two (the tree holds 2N ranges); with --adjacent, [10k, 10k + 9] (the
 * ranges tile the index space, N ranges in the tree). Each run
 * builds the tree by storing the ranges in a random order (store), looks up
 * N random indices in [0, 10N) (load: ~45% hit a range), walks every entry
 * in order (iterate: ns per step), then erases every range in another
 * random order (erase). GTree does the same: insert keyed by start; a load
 * is g_tree_upper_bound(index) then one step back and a check of the
 * range's end; iterate uses g_tree_node_first / g_tree_node_next; erase is
 * g_tree_remove. Figures are ns per operation, medians over --runs runs.
 * --no-gtree skips GTree (each run then has the phases of the kernel peer,
 * bench/peers/kernel_ops.c: GTree's heap churn slows the fill after it).
 *
 * Allocation fill (seed 000): an allocation tree of 10^6 units is filled
 * with alloc_range(size, 0, units - 1), sizes uniform in 1..32 from the
 * seeded generator, until the first failure; then every region is erased
 * in reverse order. Reported per region, with the bytes the tree holds at
 * its fullest (counted nodes x 256 + header).
 *
 * --threads N (a separate mode): lock-free readers against one writer.
 * The tree holds --entries ranges (default 10^5 here) laid out as above,
 * filled outside RCU mode in both modes (a tree filled in RCU mode is
 * spread over more memory: each store leaves its old leaf to a grace
 * period, so new leaves come from elsewhere in the slabs);
 * N - 1 reader threads load random indices in [0, 10 x entries) while one
 * writer thread churns: it picks a random range and erases it if present,
 * stores it again (store_range) if not. Mode "rcu": the tree is in RCU
 * mode, readers take only liburcu's read lock (inside rg_mtree_load());
 * mode "locked": the same tree without RCU mode, every load takes the
 * tree lock the writer takes for every store. Each run lasts --duration
 * seconds (default 2) per mode, the modes alternate, and the figures are
 * medians over --runs: reads per second per reader (mean over readers)
 * and writes per second. When there are at least as many CPUs as threads,
 * the writer is pinned to CPU 0 and reader i to CPU i, so readers and the
 * writer really run at the same time (on a loaded 2-CPU machine unpinned
 * threads often share one CPU, and locked readers then never wait).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>

#include "bench.h"
#include "region/maple_tree.h"
#include "rg_rand.h"

#ifdef HAVE_GLIB
#include <glib.h>
#endif

struct range {
	unsigned long start, last;
	void *entry;
};

enum op { OP_STORE, OP_LOAD, OP_ITERATE, OP_ERASE, NR_OPS };

static const char *const op_names[NR_OPS] = { "store", "load", "iterate",
					      "erase" };

/*
 * The ranges in insertion order (ins) and the starts in erase order (del)
 * are laid out sequentially, so the timed loops read their input without
 * cache misses of their own.
 */
struct workload {
	unsigned long n;
	struct range *ranges;
	struct range *ins;
	unsigned long *del, *probe;
};

static int make_workload(struct workload *w, unsigned long n, uint64_t seed,
			 bool adjacent)
{
	struct rg_rand r;

	rg_rand_seed(&r, seed);
	w->n = n;
	unsigned long *perm = calloc(n, sizeof(*perm));

	w->ranges = calloc(n, sizeof(*w->ranges));
	w->ins = calloc(n, sizeof(*w->ins));
	w->del = calloc(n, sizeof(*w->del));
	w->probe = calloc(n, sizeof(*w->probe));
	if (!w->ranges || !w->ins || !w->del || !w->probe || !perm)
		return -1;
	for (unsigned long k = 0; k < n; k++) {
		w->ranges[k].start = 10 * k;
		w->ranges[k].last =
			10 * k + (adjacent ? 9 : rg_rand_below(&r, 8));
		w->ranges[k].entry = rg_mt_mk_value(k);
		perm[k] = k;
		w->probe[k] = rg_rand_below(&r, 10 * n);
	}
	rg_rand_shuffle(&r, perm, n);
	for (unsigned long k = 0; k < n; k++)
		w->ins[k] = w->ranges[perm[k]];
	rg_rand_shuffle(&r, perm, n);
	for (unsigned long k = 0; k < n; k++)
		w->del[k] = w->ranges[perm[k]].start;
	free(perm);
	return 0;
}

static void free_workload(struct workload *w)
{
	free(w->ranges);
	free(w->ins);
	free(w->del);
	free(w->probe);
}

/* One run on the Maple Tree: ns per op for each op; bytes when full. */
static void run_maple(const struct workload *w, double *ns, size_t *bytes)
{
	struct rg_maple_tree mt;
	unsigned long n = w->n, hits = 0, steps = 0;
	uint64_t t0, t1;

	rg_mtree_init(&mt, 0);
	t0 = rb_now_ns();
	for (unsigned long i = 0; i < n; i++) {
		const struct range *r = &w->ins[i];

		if (rg_mtree_store_range(&mt, r->start, r->last, r->entry)) {
			rb_note("maple: store failed");
			exit(1);
		}
	}
	t1 = rb_now_ns();
	ns[OP_STORE] = (double)(t1 - t0) / (double)n;
	*bytes = rg_mtree_bytes(&mt);

	t0 = rb_now_ns();
	for (unsigned long i = 0; i < n; i++)
		hits += rg_mtree_load(&mt, w->probe[i]) != NULL;
	t1 = rb_now_ns();
	rb_keep(hits);
	ns[OP_LOAD] = (double)(t1 - t0) / (double)n;

	{
		RG_MA_STATE(mas, &mt, 0, 0);
		void *e;

		t0 = rb_now_ns();
		rg_mtree_lock(&mt);
		rg_mas_for_each(&mas, e, ULONG_MAX) steps++;
		rg_mtree_unlock(&mt);
		t1 = rb_now_ns();
	}
	if (steps != n)
		rb_note("maple: iteration saw %lu of %lu entries", steps, n);
	ns[OP_ITERATE] = (double)(t1 - t0) / (double)n;

	t0 = rb_now_ns();
	for (unsigned long i = 0; i < n; i++)
		rb_keep(rg_mtree_erase(&mt, w->del[i]));
	t1 = rb_now_ns();
	ns[OP_ERASE] = (double)(t1 - t0) / (double)n;
	if (!rg_mtree_empty(&mt))
		rb_note("maple: tree not empty after erasing everything");
	rg_mtree_destroy(&mt);
}

#ifdef HAVE_GLIB
static gint cmp_ulong(gconstpointer a, gconstpointer b, gpointer data)
{
	unsigned long x = (unsigned long)(uintptr_t)a;
	unsigned long y = (unsigned long)(uintptr_t)b;

	(void)data;
	return (x > y) - (x < y);
}

static void *gtree_load(GTree *t, unsigned long index)
{
	GTreeNode *nd = g_tree_upper_bound(t, (gconstpointer)(uintptr_t)index);
	const struct range *r;

	nd = nd ? g_tree_node_previous(nd) : g_tree_node_last(t);
	if (!nd)
		return NULL;
	r = g_tree_node_value(nd);
	return r->last >= index ? r->entry : NULL;
}

static void run_gtree(const struct workload *w, double *ns)
{
	GTree *t = g_tree_new_full(cmp_ulong, NULL, NULL, NULL);
	unsigned long n = w->n, hits = 0, steps = 0;
	uint64_t t0, t1;

	t0 = rb_now_ns();
	for (unsigned long i = 0; i < n; i++) {
		struct range *r = &w->ins[i];

		g_tree_insert(t, (gpointer)(uintptr_t)r->start, r);
	}
	t1 = rb_now_ns();
	ns[OP_STORE] = (double)(t1 - t0) / (double)n;

	t0 = rb_now_ns();
	for (unsigned long i = 0; i < n; i++)
		hits += gtree_load(t, w->probe[i]) != NULL;
	t1 = rb_now_ns();
	rb_keep(hits);
	ns[OP_LOAD] = (double)(t1 - t0) / (double)n;

	t0 = rb_now_ns();
	for (GTreeNode *nd = g_tree_node_first(t); nd;
	     nd = g_tree_node_next(nd)) {
		rb_keep(g_tree_node_value(nd));
		steps++;
	}
	t1 = rb_now_ns();
	if (steps != n)
		rb_note("gtree: iteration saw %lu of %lu entries", steps, n);
	ns[OP_ITERATE] = (double)(t1 - t0) / (double)n;

	t0 = rb_now_ns();
	for (unsigned long i = 0; i < n; i++)
		g_tree_remove(t, (gconstpointer)(uintptr_t)w->del[i]);
	t1 = rb_now_ns();
	ns[OP_ERASE] = (double)(t1 - t0) / (double)n;
	g_tree_destroy(t);
}
#endif

/* Seed-000-like fill of an allocation tree; ns per alloc and per erase. */
static void run_fill(unsigned long units, uint64_t seed, double *ns_alloc,
		     double *ns_erase, unsigned long *regions, size_t *bytes)
{
	struct rg_maple_tree mt;
	struct rg_rand r;
	unsigned long max_size = units / 10 < 32 ? units / 10 : 32;
	unsigned long cap = units + 1, nr = 0, *starts;
	uint64_t t0, t1;

	if (!max_size)
		max_size = 1;
	starts = malloc(cap * sizeof(*starts));
	if (!starts)
		exit(1);
	rg_rand_seed(&r, seed);
	rg_mtree_init(&mt, RG_MT_FLAGS_ALLOC_RANGE);
	t0 = rb_now_ns();
	for (;;) {
		unsigned long size = 1 + rg_rand_below(&r, max_size), at;

		if (rg_mtree_alloc_range(&mt, &at, rg_mt_mk_value(nr), size, 0,
					 units - 1))
			break;
		starts[nr++] = at;
	}
	t1 = rb_now_ns();
	*ns_alloc = nr ? (double)(t1 - t0) / (double)nr : 0;
	*bytes = rg_mtree_bytes(&mt);
	t0 = rb_now_ns();
	for (unsigned long i = nr; i-- > 0;)
		rb_keep(rg_mtree_erase(&mt, starts[i]));
	t1 = rb_now_ns();
	*ns_erase = nr ? (double)(t1 - t0) / (double)nr : 0;
	*regions = nr;
	rg_mtree_destroy(&mt);
	free(starts);
}

/* ---- --threads: lock-free readers against one writer ---- */

struct th_run {
	struct rg_maple_tree mt;
	unsigned long n; /* ranges */
	uint64_t seed;
	atomic_int ready;
	atomic_bool go, stop;
};

struct th_thread {
	pthread_t tid;
	struct th_run *run;
	unsigned int id;
	int cpu; /* -1: not pinned */
	unsigned long ops;
	double secs;
};

static void th_pin(const struct th_thread *t)
{
	cpu_set_t set;

	if (t->cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static double th_now(void)
{
	return (double)rb_now_ns() * 1e-9;
}

static void th_wait_go(struct th_run *run)
{
	atomic_fetch_add(&run->ready, 1);
	while (!atomic_load_explicit(&run->go, memory_order_acquire))
		;
}

static void *th_reader(void *arg)
{
	struct th_thread *t = arg;
	struct th_run *run = t->run;
	struct rg_rand r;
	unsigned long reads = 0, hits = 0, span = 10 * run->n;
	double t0;

	rg_rand_seed(&r, run->seed + 1000 + t->id);
	th_pin(t);
	urcu_memb_register_thread();
	th_wait_go(run);
	t0 = th_now();
	while (!atomic_load_explicit(&run->stop, memory_order_relaxed)) {
		for (int i = 0; i < 64; i++)
			hits += rg_mtree_load(&run->mt,
					      rg_rand_below(&r, span)) != NULL;
		reads += 64;
	}
	t->secs = th_now() - t0;
	t->ops = reads;
	rb_keep(hits);
	urcu_memb_unregister_thread();
	return NULL;
}

static void *th_writer(void *arg)
{
	struct th_thread *t = arg;
	struct th_run *run = t->run;
	unsigned long n = run->n, writes = 0;
	unsigned char *present = calloc(n, 1);
	struct rg_rand r;
	double t0;

	if (!present)
		exit(1);
	memset(present, 1, n);
	rg_rand_seed(&r, run->seed + 7);
	th_pin(t);
	urcu_memb_register_thread();
	th_wait_go(run);
	t0 = th_now();
	while (!atomic_load_explicit(&run->stop, memory_order_relaxed)) {
		unsigned long k = rg_rand_below(&r, n);

		if (present[k]) {
			rb_keep(rg_mtree_erase(&run->mt, 10 * k));
		} else if (rg_mtree_store_range(&run->mt, 10 * k,
						10 * k + rg_rand_below(&r, 8),
						rg_mt_mk_value(k))) {
			rb_note("maple --threads: store failed");
			exit(1);
		}
		present[k] ^= 1;
		writes++;
	}
	t->secs = th_now() - t0;
	t->ops = writes;
	urcu_memb_unregister_thread();
	free(present);
	return NULL;
}

/*
 * One run of one mode: reads per second per reader (mean over readers)
 * and writes per second.
 */
static void th_once(unsigned long n, unsigned int readers, bool rcu,
		    double secs, uint64_t seed, bool pin, double *rps,
		    double *wps)
{
	struct th_run *run = calloc(1, sizeof(*run));
	struct th_thread *t = calloc(readers + 1, sizeof(*t));
	struct timespec ts;
	double sum = 0;

	if (!run || !t)
		exit(1);
	run->n = n;
	run->seed = seed;
	/* The same tree for both modes: filled outside RCU mode. */
	rg_mtree_init(&run->mt, 0);
	for (unsigned long k = 0; k < n; k++)
		if (rg_mtree_store_range(&run->mt, 10 * k, 10 * k + (k % 8),
					 rg_mt_mk_value(k))) {
			rb_note("maple --threads: fill failed");
			exit(1);
		}
	if (rcu)
		rg_mtree_set_rcu(&run->mt);
	for (unsigned int i = 0; i <= readers; i++) {
		t[i].run = run;
		t[i].id = i;
		/* writer on CPU 0, reader i on CPU i + 1 */
		t[i].cpu = !pin ? -1 : i == readers ? 0 : (int)i + 1;
		if (pthread_create(&t[i].tid, NULL,
				   i == readers ? th_writer : th_reader,
				   &t[i])) {
			rb_note("maple --threads: pthread_create failed");
			exit(1);
		}
	}
	while ((unsigned int)atomic_load(&run->ready) < readers + 1)
		sched_yield();
	atomic_store_explicit(&run->go, true, memory_order_release);
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
	atomic_store(&run->stop, true);
	for (unsigned int i = 0; i <= readers; i++)
		pthread_join(t[i].tid, NULL);
	for (unsigned int i = 0; i < readers; i++)
		sum += (double)t[i].ops / t[i].secs;
	*rps = sum / readers;
	*wps = (double)t[readers].ops / t[readers].secs;
	rg_mtree_destroy(&run->mt);
	rg_mtree_rcu_barrier();
	free(t);
	free(run);
}

static const struct rb_col th_cols[] = {
	{ "mode", "mode",
	  "rcu: tree in RCU mode, loads take no tree lock; locked: every "
	  "load takes the tree lock",
	  RB_STR, 0 },
	{ "readers", "readers", "reader threads (plus one writer)", RB_INT, 0 },
	{ "reads_per_sec_per_reader", "reads/s/reader",
	  "random loads per second per reader thread, median of runs", RB_NUM,
	  0 },
	{ "writes_per_sec", "writes/s",
	  "erase or store_range per second by the writer, median of runs",
	  RB_NUM, 0 },
	{ "reads_vs_locked", "reads vs locked",
	  "reads per second per reader over the locked mode's", RB_NUM, 2 },
};

static int run_threads(struct rb_ctx *ctx, unsigned long n,
		       unsigned int threads, double secs)
{
	int runs = ctx->runs < 1 ? 1 : ctx->runs > 64 ? 64 : ctx->runs;
	unsigned int readers = threads - 1;
	double rr[64], rw[64], lr[64], lw[64], mr, ml;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	bool pin = ncpu >= (long)threads;
	struct rb_table *t;

	urcu_memb_register_thread();
	for (int r = 0; r < runs; r++) {
		uint64_t seed = ctx->seed + (uint64_t)r;

		th_once(n, readers, true, secs, seed, pin, &rr[r], &rw[r]);
		th_once(n, readers, false, secs, seed, pin, &lr[r], &lw[r]);
	}
	urcu_memb_unregister_thread();
	mr = rb_median(rr, runs);
	ml = rb_median(lr, runs);
	t = rb_table_new("maple --threads", th_cols, 5);
	rb_table_param(t, "entries", "%lu", n);
	rb_table_param(t, "threads", "%u", threads);
	rb_table_param(t, "duration_s", "%.2f", secs);
	rb_table_param(t, "cpus", "%ld", ncpu);
	rb_table_param(t, "pinned", "%s", pin ? "yes" : "no");
	rb_table_param(t, "runs", "%d", runs);
	rb_table_param(t, "seed", "%llu", (unsigned long long)ctx->seed);
	rb_row(t);
	rb_set_str(t, "mode", "rcu");
	rb_set_int(t, "readers", readers);
	rb_set_num(t, "reads_per_sec_per_reader", mr);
	rb_set_num(t, "writes_per_sec", rb_median(rw, runs));
	rb_set_num(t, "reads_vs_locked", ml > 0 ? mr / ml : 0);
	rb_row(t);
	rb_set_str(t, "mode", "locked");
	rb_set_int(t, "readers", readers);
	rb_set_num(t, "reads_per_sec_per_reader", ml);
	rb_set_num(t, "writes_per_sec", rb_median(lw, runs));
	rb_table_note(t, "rcu readers take only liburcu's read lock; locked "
			 "readers take the tree lock the writer takes.");
	rb_table_note(t, "Writes in RCU mode replace nodes and free them "
			 "through call_rcu(); locked-mode writes edit leaves "
			 "in place.");
	rb_table_print(t, ctx);
	rb_plot_table(
		ctx, t,
		&(struct rb_plot){
			.file = "maple-threads",
			.title = "maple --threads: operations per second, "
				 "RCU vs locked readers",
			.x = "mode",
			.y = { "reads_per_sec_per_reader", "writes_per_sec" },
			.xlabel = "reader mode",
			.ylabel = "operations per second",
			.bars = true,
		});
	rb_table_free(t);
	return 0;
}

static const struct rb_col cols[] = {
	{ "structure", "structure",
	  "maple: libregion's Maple Tree; gtree: GLib GTree keyed by range "
	  "start",
	  RB_STR, 0 },
	{ "op", "op",
	  "store: build by store_range in random order; load: lookup at a "
	  "random index; iterate: one step of a full in-order walk; erase: "
	  "remove a range, random order; alloc_range / alloc_erase: the fill of "
	  "the kernel's 2026 region-allocation benchmark on an allocation "
	  "tree and its reverse-order erase",
	  RB_STR, 0 },
	{ "entries", "entries",
	  "ranges in the map (fill: units of the allocation tree)", RB_INT, 0 },
	{ "ns_per_op", "ns/op", "nanoseconds per operation, median of runs",
	  RB_NUM, 1 },
	{ "vs_gtree", "vs gtree",
	  "maple ns / gtree ns for the same operation (below 1: maple "
	  "faster)",
	  RB_NUM, 2 },
	{ "bytes", "bytes",
	  "bytes the Maple Tree holds when full (counted nodes x 256 + "
	  "header)",
	  RB_INT, 0 },
	{ "regions", "regions", "regions placed by the fill", RB_INT, 0 },
};

static int run_maple_cmd(struct rb_ctx *ctx, int argc, char **argv)
{
	unsigned long threads = 0;
	double secs = 2.0;
	unsigned long n = 1000000, units = 1000000, regions = 0;
	bool have_gtree = false, adjacent = false, no_gtree = false;
	struct rb_opt opts[] = {
		RB_OPT_UINT("entries", &n, 1, 100000000, "N",
			    "ranges in the map (default 10^6; --threads: "
			    "10^5; --quick: 2000)"),
		RB_OPT_UINT("units", &units, 10, 1UL << 40, "U",
			    "units of the allocation-tree fill (default 10^6; "
			    "--quick: 10^4)"),
		RB_OPT_FLAG("adjacent", &adjacent,
			    "ranges back to back instead of separated by gaps"),
		RB_OPT_FLAG("no-gtree", &no_gtree,
			    "skip GLib's GTree (the phases of the kernel-peer "
			    "driver only)"),
		RB_OPT_UINT("threads", &threads, 2, 256, "N",
			    "RCU readers vs locked readers: 1 writer and N-1 "
			    "readers"),
		RB_OPT_NUM("duration", &secs, 0, 3600, "S",
			   "--threads: seconds per mode and run (default 2; "
			   "--quick: 0.1)"),
		RB_OPT_END,
	};
	int runs;
	double mv[NR_OPS][64], gv[NR_OPS][64], av[64], ev[64];
	double m[NR_OPS], g[NR_OPS] = { 0 };
	struct workload w;
	struct rb_table *t;
	size_t bytes = 0, fill_bytes = 0;

	rb_parse(ctx, opts, argc, argv);
	runs = ctx->runs > 64 ? 64 : ctx->runs;
	if (!(secs > 0))
		rb_die("--duration: '%g' is not a number in 0..3600 above 0",
		       secs);
	if (threads) {
		if (!rb_given(opts, "entries"))
			n = ctx->quick ? 2000 : 100000;
		if (ctx->quick && !rb_given(opts, "duration"))
			secs = 0.1;
		return run_threads(ctx, n, (unsigned int)threads, secs);
	}
	if (ctx->quick && !rb_given(opts, "entries"))
		n = 2000;
	if (ctx->quick && !rb_given(opts, "units"))
		units = 10000;
	if (make_workload(&w, n, ctx->seed, adjacent))
		return 1;
#ifdef HAVE_GLIB
	have_gtree = !no_gtree;
#endif
	for (int r = 0; r < runs; r++) {
		double ns[NR_OPS];

		run_maple(&w, ns, &bytes);
		for (int i = 0; i < NR_OPS; i++)
			mv[i][r] = ns[i];
#ifdef HAVE_GLIB
		if (have_gtree) {
			run_gtree(&w, ns);
			for (int i = 0; i < NR_OPS; i++)
				gv[i][r] = ns[i];
		}
#else
		(void)gv;
#endif
		run_fill(units, ctx->seed, &av[r], &ev[r], &regions,
			 &fill_bytes);
	}
	for (int i = 0; i < NR_OPS; i++) {
		m[i] = rb_median(mv[i], runs);
		if (have_gtree)
			g[i] = rb_median(gv[i], runs);
	}

	t = rb_table_new("maple", cols, 7);
	rb_table_param(t, "entries", "%lu", n);
	rb_table_param(t, "units", "%lu", units);
	rb_table_param(t, "layout", "%s", adjacent ? "adjacent" : "holes");
	rb_table_param(t, "runs", "%d", runs);
	rb_table_param(t, "seed", "%llu", (unsigned long long)ctx->seed);
	for (int i = 0; i < NR_OPS; i++) {
		rb_row(t);
		rb_set_str(t, "structure", "maple");
		rb_set_str(t, "op", "%s", op_names[i]);
		rb_set_int(t, "entries", (long long)n);
		rb_set_num(t, "ns_per_op", m[i]);
		if (have_gtree)
			rb_set_num(t, "vs_gtree", m[i] / g[i]);
		if (i == OP_STORE)
			rb_set_int(t, "bytes", (long long)bytes);
	}
	if (have_gtree) {
		for (int i = 0; i < NR_OPS; i++) {
			rb_row(t);
			rb_set_str(t, "structure", "gtree");
			rb_set_str(t, "op", "%s", op_names[i]);
			rb_set_int(t, "entries", (long long)n);
			rb_set_num(t, "ns_per_op", g[i]);
		}
	} else if (!no_gtree) {
		rb_table_note(t,
			      "GLib not found at build time: no GTree rows.");
	}
	rb_row(t);
	rb_set_str(t, "structure", "maple");
	rb_set_str(t, "op", "alloc_range");
	rb_set_int(t, "entries", (long long)units);
	rb_set_num(t, "ns_per_op", rb_median(av, runs));
	rb_set_int(t, "bytes", (long long)fill_bytes);
	rb_set_int(t, "regions", (long long)regions);
	rb_row(t);
	rb_set_str(t, "structure", "maple");
	rb_set_str(t, "op", "alloc_erase");
	rb_set_int(t, "entries", (long long)units);
	rb_set_num(t, "ns_per_op", rb_median(ev, runs));
	rb_set_int(t, "regions", (long long)regions);
	rb_table_note(t, "The kernel's own Maple Tree on the same workloads, "
			 "side by side: make bench-kernel.");
	rb_table_print(t, ctx);
	rb_plot_table(ctx, t,
		      &(struct rb_plot){
			      .file = "maple-ops",
			      .title = "maple: ns per operation, Maple Tree vs "
				       "GTree",
			      .x = "op",
			      .series = "structure",
			      .y = { "ns_per_op" },
			      .xlabel = "operation",
			      .ylabel = "ns per operation",
			      .bars = true,
		      });
	rb_table_free(t);
	free_workload(&w);
	return 0;
}

RB_COMMAND(maple, "maple",
	   "Maple Tree: load/store/erase/iterate vs GLib GTree, and the "
	   "region-allocation fill",
	   run_maple_cmd);
