// SPDX-License-Identifier: MIT
/*
 * regionbench threads: how each structure scales with threads.
 *
 * For each structure and each thread count of --threads (default 1,2,4),
 * that many threads work on ONE shared instance for --seconds: each does
 * its structure's operation (an alloc+free pair, or one load) in batches
 * of 64 until told to stop. Thread i is pinned to the i-th CPU the process
 * may run on, round robin, so with as many CPUs as threads each thread has
 * a core of its own. The figure is the sum over threads of operations per
 * second, the median over --runs runs; runs are interleaved (run 1 of
 * every structure and count, then run 2, ...) so that a change in the
 * machine's load falls on every row alike. The ratio column divides by the
 * same structure's figure with 1 thread (measured even when --threads
 * leaves 1 out): 2.0 at 2 threads is perfect scaling, below 1.0 a second
 * thread makes the structure slower.
 *
 * A structure is one entry of the structs[] table: a name, a legend line,
 * create / destroy of the shared instance, one batch of operations, and
 * region creation flags. --iterations N replaces the timed run by N
 * operations per thread, so that callgrind can count instructions per
 * operation as the difference of two runs (scripts/instructions.sh
 * sbitmap).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>

#include "bench.h"
#include "rg_rand.h"
#include "region/hbitmap.h"
#include "region/ida.h"
#include "region/idr.h"
#include "region/region.h"
#include "region/sbitmap.h"
#include "region/slab.h"
#include "region/xarray.h"

#define TH_BATCH 64
#define TH_MAX_THREADS 256
#define TH_MAX_RUNS 64

/* The parameters every structure's instance is built from. */
struct th_cfg {
	unsigned long entries; /* xarray / idr: entries loaded from */
	unsigned long units; /* region: capacity in units */
	unsigned long max_units; /* region: allocations of 1..max_units */
	unsigned long tags; /* sbitmap: depth */
	unsigned long iters; /* operations per thread; 0: run for secs */
	unsigned int flags; /* region: creation flags of the entry */
};

/*
 * struct th_struct - one row kind of the benchmark.
 * @name: the structure column and the --structures choice.
 * @legend: what one operation is.
 * @create: build the shared instance from @cfg; NULL on failure.
 * @destroy: free it (every thread has stopped).
 * @batch: TH_BATCH operations on @inst by one thread; 0, or -1 when an
 *         operation failed (the benchmark then stops with an error).
 * @flags: passed in th_cfg.flags (region creation flags).
 */
struct th_struct {
	const char *name;
	const char *legend;
	void *(*create)(const struct th_cfg *cfg);
	void (*destroy)(void *inst);
	int (*batch)(void *inst, const struct th_cfg *cfg, struct rg_rand *r);
	unsigned int flags;
};

/* ---- slab: rg_slab_alloc() + rg_slab_free() of 256-byte objects ---- */

static void *slab_create(const struct th_cfg *cfg)
{
	(void)cfg;
	return rg_slab_create("regionbench-threads", 256, 0, 0, NULL);
}

static void slab_destroy(void *inst)
{
	rg_slab_destroy(inst);
}

static int slab_batch(void *inst, const struct th_cfg *cfg, struct rg_rand *r)
{
	(void)cfg;
	(void)r;
	for (int i = 0; i < TH_BATCH; i++) {
		void *p = rg_slab_alloc(inst);

		if (!p)
			return -1;
		rb_keep(p);
		rg_slab_free(inst, p);
	}
	return 0;
}

/* ---- ida: rg_ida_alloc() + rg_ida_free() ---- */

static void *ida_create(const struct th_cfg *cfg)
{
	struct rg_ida *ida = rb_xcalloc(1, sizeof(*ida));

	(void)cfg;
	rg_ida_init(ida);
	return ida;
}

static void ida_destroy(void *inst)
{
	rg_ida_destroy(inst);
	free(inst);
}

static int ida_batch(void *inst, const struct th_cfg *cfg, struct rg_rand *r)
{
	unsigned int id;

	(void)cfg;
	(void)r;
	for (int i = 0; i < TH_BATCH; i++)
		if (rg_ida_alloc(inst, &id) || rg_ida_free(inst, id))
			return -1;
	return 0;
}

/* ---- idr lookup: rg_idr_find() of a random ID of --entries ---- */

static void idr_destroy(void *inst)
{
	rg_idr_destroy(inst);
	free(inst);
}

static void *idr_create(const struct th_cfg *cfg)
{
	struct rg_idr *idr = rb_xcalloc(1, sizeof(*idr));

	rg_idr_init(idr);
	for (unsigned long i = 0; i < cfg->entries; i++)
		if (rg_idr_alloc(idr, (void *)(uintptr_t)(8 * i + 8), 0, 0) !=
		    (int)i) {
			idr_destroy(idr);
			return NULL;
		}
	return idr;
}

static int idr_batch(void *inst, const struct th_cfg *cfg, struct rg_rand *r)
{
	for (int i = 0; i < TH_BATCH; i++) {
		unsigned long id = rg_rand_below(r, cfg->entries);

		if (rg_idr_find(inst, id) != (void *)(uintptr_t)(8 * id + 8))
			return -1;
	}
	return 0;
}

/* ---- xarray load: rg_xa_load() of a random index of --entries ---- */

static void xa_destroy(void *inst)
{
	rg_xa_destroy(inst);
	free(inst);
}

static void *xa_create(const struct th_cfg *cfg)
{
	struct rg_xarray *xa = rb_xcalloc(1, sizeof(*xa));

	rg_xa_init(xa);
	for (unsigned long i = 0; i < cfg->entries; i++)
		if (rg_xa_store(xa, i, rg_xa_mk_value(i), 0)) {
			xa_destroy(xa);
			return NULL;
		}
	return xa;
}

static int xa_batch(void *inst, const struct th_cfg *cfg, struct rg_rand *r)
{
	for (int i = 0; i < TH_BATCH; i++) {
		unsigned long k = rg_rand_below(r, cfg->entries);

		if (rg_xa_load(inst, k) != rg_xa_mk_value(k))
			return -1;
	}
	return 0;
}

/* ---- region: rg_region_alloc() + rg_region_free() on hbitmap ---- */

static void *region_create(const struct th_cfg *cfg)
{
	return rg_region_create_backend(RG_REGION_HBITMAP, cfg->units,
					cfg->flags);
}

static void region_destroy(void *inst)
{
	rg_region_destroy(inst);
}

static int region_batch(void *inst, const struct th_cfg *cfg, struct rg_rand *r)
{
	for (int i = 0; i < TH_BATCH; i++) {
		unsigned long n = 1 + rg_rand_below(r, cfg->max_units), start;

		if (rg_region_alloc(inst, n, 0, &start) ||
		    rg_region_free(inst, start, n))
			return -1;
	}
	return 0;
}

/* ---- sbitmap: rg_sbitmap_queue_get() + rg_sbitmap_queue_clear() ---- */

static void *sbq_create(const struct th_cfg *cfg)
{
	struct rg_sbitmap_queue *sbq = rb_xcalloc(1, sizeof(*sbq));
	int err =
		rg_sbitmap_queue_init(sbq, (unsigned int)cfg->tags, -1, false);

	if (err) {
		free(sbq);
		errno = -err;
		return NULL;
	}
	return sbq;
}

static void sbq_destroy(void *inst)
{
	rg_sbitmap_queue_destroy(inst);
	free(inst);
}

static int sbq_batch(void *inst, const struct th_cfg *cfg, struct rg_rand *r)
{
	(void)cfg;
	(void)r;
	for (int i = 0; i < TH_BATCH; i++) {
		int tag = rg_sbitmap_queue_get(inst);

		if (tag < 0 || rg_sbitmap_queue_clear(inst, (unsigned int)tag))
			return -1;
	}
	return 0;
}

/* One entry per row kind; a new structure is one more entry. */
static const struct th_struct structs[] = {
	{ "slab", "rg_slab_alloc() + rg_slab_free() of a 256-byte object",
	  slab_create, slab_destroy, slab_batch, 0 },
	{ "ida", "rg_ida_alloc() + rg_ida_free()", ida_create, ida_destroy,
	  ida_batch, 0 },
	{ "idr_lookup", "rg_idr_find() of a random one of --entries IDs",
	  idr_create, idr_destroy, idr_batch, 0 },
	{ "xarray_load",
	  "rg_xa_load() of a random one of --entries value entries", xa_create,
	  xa_destroy, xa_batch, 0 },
	{ "region_locked",
	  "rg_region_alloc() + rg_region_free() of 1..--max-units units on an "
	  "RG_REGION_LOCKED hbitmap instance of --units units",
	  region_create, region_destroy, region_batch, RG_REGION_LOCKED },
	{ "sbitmap",
	  "rg_sbitmap_queue_get() + rg_sbitmap_queue_clear() on a queue of "
	  "--tags tags",
	  sbq_create, sbq_destroy, sbq_batch, 0 },
};

#define NR_STRUCTS (int)(sizeof(structs) / sizeof(structs[0]))

/* ---- the threads of one run ---- */

struct th_run {
	const struct th_struct *s;
	const struct th_cfg *cfg;
	void *inst;
	atomic_int ready;
	atomic_bool go, stop, failed;
};

struct th_thread {
	pthread_t tid;
	struct th_run *run;
	int cpu; /* -1: not pinned */
	uint64_t seed;
	unsigned long ops;
	double secs; /* wall time of the thread's loop */
	double cpu_secs; /* CPU time the thread got in it */
};

/* What one run measured. */
struct th_result {
	double ops_per_sec; /* all threads, per wall second */
	double cpu_share; /* mean over threads of CPU time / wall time */
	double ops_per_cpu_sec; /* all threads, per second of own CPU time */
};

static double th_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *th_main(void *arg)
{
	struct th_thread *t = arg;
	struct th_run *run = t->run;
	struct rg_rand r;
	unsigned long ops = 0;
	uint64_t t0;
	double c0;

	if (t->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(t->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	rg_rand_seed(&r, t->seed);
	/* Readers that use RCU need registered threads; harmless elsewhere. */
	urcu_memb_register_thread();
	atomic_fetch_add(&run->ready, 1);
	while (!atomic_load_explicit(&run->go, memory_order_acquire))
		sched_yield();
	t0 = rb_now_ns();
	c0 = th_cpu_now();
	while (!atomic_load_explicit(&run->stop, memory_order_relaxed) &&
	       (!run->cfg->iters || ops < run->cfg->iters)) {
		if (run->s->batch(run->inst, run->cfg, &r)) {
			atomic_store(&run->failed, true);
			break;
		}
		ops += TH_BATCH;
	}
	t->secs = (double)(rb_now_ns() - t0) * 1e-9;
	t->cpu_secs = th_cpu_now() - c0;
	t->ops = ops;
	urcu_memb_unregister_thread();
	return NULL;
}

/* The CPUs this process may run on, in order; at least one entry. */
static int th_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

/* One run: @nthreads threads on one fresh instance. */
static struct th_result th_once(const struct th_struct *s,
				const struct th_cfg *cfg, unsigned int nthreads,
				double secs, uint64_t seed, const int *cpus,
				int ncpus)
{
	struct th_thread *t = rb_xcalloc(nthreads, sizeof(*t));
	struct th_run run = { .s = s, .cfg = cfg };
	struct timespec ts;
	struct th_result res = { 0, 0, 0 };

	run.inst = s->create(cfg);
	if (!run.inst) {
		rb_note("threads: %s: creating the instance failed: %s",
			s->name, strerror(errno));
		exit(1);
	}
	for (unsigned int i = 0; i < nthreads; i++) {
		t[i].run = &run;
		t[i].cpu = ncpus ? cpus[i % (unsigned int)ncpus] : -1;
		t[i].seed = seed + 1000003ULL * i;
		if (pthread_create(&t[i].tid, NULL, th_main, &t[i])) {
			rb_note("threads: pthread_create failed");
			exit(1);
		}
	}
	while ((unsigned int)atomic_load(&run.ready) < nthreads)
		sched_yield();
	atomic_store_explicit(&run.go, true, memory_order_release);
	if (!cfg->iters) {
		ts.tv_sec = (time_t)secs;
		ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
		atomic_store(&run.stop, true);
	}
	for (unsigned int i = 0; i < nthreads; i++) {
		pthread_join(t[i].tid, NULL);
		if (t[i].secs > 0) {
			res.ops_per_sec += (double)t[i].ops / t[i].secs;
			res.cpu_share += t[i].cpu_secs / t[i].secs / nthreads;
		}
		if (t[i].cpu_secs > 0)
			res.ops_per_cpu_sec += (double)t[i].ops / t[i].cpu_secs;
	}
	if (atomic_load(&run.failed)) {
		rb_note("threads: %s: an operation failed", s->name);
		exit(1);
	}
	s->destroy(run.inst);
	free(t);
	return res;
}

static const struct rb_col cols[] = {
	{ "structure", "structure",
	  "one shared instance; slab, ida, region_*, sbitmap: alloc+free "
	  "pairs; "
	  "idr_lookup, xarray_load: loads (one operation each)",
	  RB_STR, 0 },
	{ "threads", "threads", "threads, pinned round robin over the CPUs",
	  RB_INT, 0 },
	{ "ops_per_sec", "ops/s",
	  "operations per second, all threads together, median of runs", RB_NUM,
	  0 },
	{ "ops_per_sec_per_thread", "ops/s/thread", "ops_per_sec / threads",
	  RB_NUM, 0 },
	{ "vs_1_thread", "vs 1 thread",
	  "ops_per_sec over the same structure's with 1 thread (2.00 at 2 "
	  "threads: perfect scaling; below 1.00: slower than one thread)",
	  RB_NUM, 2 },
	{ "cpu_share", "cpu",
	  "CPU time the threads got over the wall time, mean over threads, "
	  "median of runs (1.00: each thread had a CPU to itself all along; "
	  "lower: the machine was busy and the ratios above understate "
	  "scaling)",
	  RB_NUM, 2 },
	{ "cpu_vs_1_thread", "vs 1, per CPU s",
	  "the same ratio from operations per second of each thread's own "
	  "CPU time: what the threads achieve while they run, which a busy "
	  "machine does not hide (contention still shows as CPU time)",
	  RB_NUM, 2 },
};

static const char *const *struct_names(void)
{
	static const char *names[NR_STRUCTS + 1];

	for (int i = 0; i < NR_STRUCTS; i++)
		names[i] = structs[i].name;
	return names;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return (x > y) - (x < y);
}

static int run_threads(struct rb_ctx *ctx, int argc, char **argv)
{
	const char *list = "1,2,4";
	unsigned long which = ~0UL;
	double secs = 1.0;
	unsigned long iters = 0;
	struct th_cfg cfg = { .entries = 65536,
			      .units = 1UL << 20,
			      .max_units = 32,
			      .tags = 128 };
	struct rb_opt opts[] = {
		RB_OPT_STR("threads", &list, "LIST",
			   "thread counts, a comma list in 1..256 (default "
			   "1,2,4)"),
		RB_OPT_NUM("seconds", &secs, 0, 3600, "S",
			   "seconds per run (default 1; --quick: 0.05)"),
		RB_OPT_CHOICES("structures", &which, struct_names(),
			       "comma list of structures (default: all)"),
		RB_OPT_UINT("entries", &cfg.entries, 1, 1UL << 26, "N",
			    "entries of idr_lookup and xarray_load (default "
			    "65536)"),
		RB_OPT_UINT("units", &cfg.units, 32, 1UL << 32, "U",
			    "capacity of region_* instances (default 2^20)"),
		RB_OPT_UINT("max-units", &cfg.max_units, 1, 1UL << 20, "N",
			    "region_*: allocations of 1..N units (default 32)"),
		RB_OPT_UINT("tags", &cfg.tags, 1, 1UL << 24, "N",
			    "sbitmap: depth of the queue (default 128)"),
		RB_OPT_UINT("iterations", &iters, 0, 1UL << 40, "N",
			    "each thread does N operations (rounded up to 64) "
			    "instead of running for --seconds; 0: timed "
			    "(callgrind counts use this)"),
		RB_OPT_END,
	};
	unsigned long counts[32];
	int ncounts, runs, cpus[CPU_SETSIZE], ncpus;
	static double res[NR_STRUCTS][32][TH_MAX_RUNS];
	static double share[NR_STRUCTS][32][TH_MAX_RUNS];
	static double percpu[NR_STRUCTS][32][TH_MAX_RUNS];
	struct rb_table *t;
	char shown[32 * 4];

	rb_parse(ctx, opts, argc, argv);
	cfg.iters = iters;
	if (ctx->quick && !rb_given(opts, "seconds"))
		secs = 0.05;
	if (cfg.max_units > cfg.units)
		rb_die("--max-units: %lu is above --units (%lu)", cfg.max_units,
		       cfg.units);
	ncounts = rb_parse_uint_list("threads", list, 1, TH_MAX_THREADS, counts,
				     31);
	qsort(counts, (size_t)ncounts, sizeof(counts[0]), cmp_ulong);
	if (counts[0] != 1) {
		/* The ratios are to one thread: measure it. */
		memmove(counts + 1, counts,
			sizeof(counts[0]) * (size_t)ncounts);
		counts[0] = 1;
		ncounts++;
	}
	runs = ctx->runs > TH_MAX_RUNS ? TH_MAX_RUNS : ctx->runs;
	ncpus = th_cpus(cpus, CPU_SETSIZE);

	urcu_memb_register_thread();
	for (int r = 0; r < runs; r++)
		for (int s = 0; s < NR_STRUCTS; s++) {
			struct th_cfg scfg = cfg;

			if (!(which & (1UL << s)))
				continue;
			scfg.flags = structs[s].flags;
			for (int c = 0; c < ncounts; c++) {
				struct th_result x =
					th_once(&structs[s], &scfg,
						(unsigned int)counts[c], secs,
						ctx->seed + (uint64_t)r * 7919,
						cpus, ncpus);

				res[s][c][r] = x.ops_per_sec;
				share[s][c][r] = x.cpu_share;
				percpu[s][c][r] = x.ops_per_cpu_sec;
			}
		}
	urcu_memb_unregister_thread();

	t = rb_table_new("threads", cols,
			 (int)(sizeof(cols) / sizeof(cols[0])));
	for (int c = 0, len = 0; c < ncounts; c++)
		len += snprintf(shown + len, sizeof(shown) - (size_t)len,
				"%s%lu", c ? "," : "", counts[c]);
	rb_table_param(t, "threads", "%s", shown);
	rb_table_param(t, "seconds", "%.3f", secs);
	rb_table_param(t, "entries", "%lu", cfg.entries);
	rb_table_param(t, "units", "%lu", cfg.units);
	rb_table_param(t, "max_units", "%lu", cfg.max_units);
	rb_table_param(t, "tags", "%lu", cfg.tags);
	if (iters)
		rb_table_param(t, "iterations", "%lu", iters);
	rb_table_param(t, "cpus", "%d", ncpus);
	rb_table_param(t, "runs", "%d", runs);
	rb_table_param(t, "seed", "%llu", (unsigned long long)ctx->seed);
	for (int s = 0; s < NR_STRUCTS; s++) {
		double base = 0, cbase = 0;

		if (!(which & (1UL << s)))
			continue;
		for (int c = 0; c < ncounts; c++) {
			double med = rb_median(res[s][c], runs);
			double cmed = rb_median(percpu[s][c], runs);

			if (c == 0) {
				base = med;
				cbase = cmed;
			}
			rb_row(t);
			rb_set_str(t, "structure", "%s", structs[s].name);
			rb_set_int(t, "threads", (long long)counts[c]);
			rb_set_num(t, "ops_per_sec", med);
			rb_set_num(t, "ops_per_sec_per_thread",
				   med / (double)counts[c]);
			rb_set_num(t, "vs_1_thread", base > 0 ? med / base : 0);
			rb_set_num(t, "cpu_share",
				   rb_median(share[s][c], runs));
			rb_set_num(t, "cpu_vs_1_thread",
				   cbase > 0 ? cmed / cbase : 0);
		}
	}
	for (int s = 0; s < NR_STRUCTS; s++)
		if (which & (1UL << s))
			rb_table_note(t, "%s: %s.", structs[s].name,
				      structs[s].legend);
	if (ncpus < (int)counts[ncounts - 1])
		rb_table_note(t,
			      "More threads than CPUs (%d): some threads "
			      "share a CPU.",
			      ncpus);
	rb_table_print(t, ctx);
	rb_plot_table(
		ctx, t,
		&(struct rb_plot){
			.file = "threads-scaling",
			.title =
				"threads: throughput relative to 1 thread, one "
				"shared instance",
			.x = "threads",
			.series = "structure",
			.y = { "vs_1_thread" },
			.xlabel = "threads (pinned)",
			.ylabel = "ops/s over ops/s with 1 thread",
		});
	rb_plot_table(ctx, t,
		      &(struct rb_plot){
			      .file = "threads-ops",
			      .title = "threads: operations per second, one "
				       "shared instance",
			      .x = "threads",
			      .series = "structure",
			      .y = { "ops_per_sec" },
			      .xlabel = "threads (pinned)",
			      .ylabel = "operations per second",
			      .logy = true,
		      });
	rb_table_free(t);
	return 0;
}

RB_COMMAND(threads, "threads",
	   "threads: ops/s of each structure with 1..N threads on one "
	   "instance",
	   run_threads);
