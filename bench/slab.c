// SPDX-License-Identifier: MIT
/*
 * regionbench slab: the seed-003 measurement (Brouer's slab bulk test).
 *
 * A cache of 256-byte objects; for each bulk size B, loop "allocate B
 * objects, then free them" until --objects objects have passed, once with
 * single calls ("fallback") and once with the bulk calls ("bulk"). The same
 * loop runs with glibc malloc/free and, when their Debian packages are
 * installed, jemalloc (mallocx/dallocx) and mimalloc (mi_malloc/mi_free),
 * loaded with dlopen so that they do not replace the process's malloc.
 * Cycles come from the time-stamp counter read with fences, ns from the
 * monotonic clock; each figure is per object (one alloc plus one free) and
 * the median over --runs runs, after a warm-up run.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "region/slab.h"

enum mode { M_FALLBACK, M_BULK, M_MALLOC, M_JEMALLOC, M_MIMALLOC, NR_MODES };

static const char *const mode_names[NR_MODES] = { "fallback", "bulk", "malloc",
						  "jemalloc", "mimalloc" };

struct peer {
	void *(*alloc)(size_t size);
	void (*free)(void *p);
};

static struct peer peers[NR_MODES];
static void *(*je_mallocx)(size_t size, int flags);
static void (*je_dallocx)(void *p, int flags);

static void *je_alloc(size_t size)
{
	return je_mallocx(size, 0);
}

static void je_free(void *p)
{
	je_dallocx(p, 0);
}

/*
 * Debian's jemalloc uses initial-exec TLS, which a dlopen() can only place
 * in glibc's small static TLS surplus. If that fails, run this command
 * again with a larger surplus (a glibc tunable read at startup).
 */
static void reexec_for_tls(struct rb_ctx *ctx)
{
	static const char tun[] = "glibc.rtld.optional_static_tls=65536";

	if (getenv("RB_REEXEC"))
		return;
	setenv("RB_REEXEC", "1", 1);
	setenv("GLIBC_TUNABLES", tun, 1);
	fflush(NULL);
	execv("/proc/self/exe", ctx->argv);
}

static void load_peers(struct rb_ctx *ctx)
{
	void *h;

	peers[M_MALLOC].alloc = malloc;
	peers[M_MALLOC].free = free;
	h = dlopen("libjemalloc.so.2", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		je_mallocx = (void *(*)(size_t, int))dlsym(h, "mallocx");
		je_dallocx = (void (*)(void *, int))dlsym(h, "dallocx");
		if (je_mallocx && je_dallocx) {
			peers[M_JEMALLOC].alloc = je_alloc;
			peers[M_JEMALLOC].free = je_free;
		}
	} else {
		const char *err = dlerror();

		if (strstr(err, "static TLS"))
			reexec_for_tls(ctx);
		rb_note("slab: jemalloc not loaded (%s)", err);
	}
	h = dlopen("libmimalloc.so.2", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		peers[M_MIMALLOC].alloc =
			(void *(*)(size_t))dlsym(h, "mi_malloc");
		peers[M_MIMALLOC].free = (void (*)(void *))dlsym(h, "mi_free");
		if (!peers[M_MIMALLOC].alloc || !peers[M_MIMALLOC].free)
			peers[M_MIMALLOC].alloc = NULL;
	} else {
		rb_note("slab: mimalloc not loaded (%s)", dlerror());
	}
}

static bool mode_available(enum mode m)
{
	return m == M_FALLBACK || m == M_BULK || peers[m].alloc;
}

/*
 * One timed loop; returns cycles per object and sets *ns per object.
 * Single calls are direct calls, peers are called through pointers (the
 * cost of one indirect call, about a nanosecond, is theirs to carry).
 */
static double run_loop(enum mode m, struct rg_slab_cache *c, size_t size,
		       size_t bulk, size_t objects, void **p, double *ns)
{
	size_t iters = objects / bulk;
	uint64_t t0, t1, c0, c1;

	if (iters == 0)
		iters = 1;
	t0 = rb_now_ns();
	c0 = rb_cycles_begin();
	switch (m) {
	case M_FALLBACK:
		for (size_t it = 0; it < iters; it++) {
			for (size_t i = 0; i < bulk; i++)
				p[i] = rg_slab_alloc(c);
			rb_keep(p[0]);
			for (size_t i = 0; i < bulk; i++)
				rg_slab_free(c, p[i]);
		}
		break;
	case M_BULK:
		for (size_t it = 0; it < iters; it++) {
			if (rg_slab_alloc_bulk(c, bulk, p) != bulk) {
				rb_note("slab: bulk allocation failed");
				exit(1);
			}
			rb_keep(p[0]);
			rg_slab_free_bulk(c, bulk, p);
		}
		break;
	case M_MALLOC:
		for (size_t it = 0; it < iters; it++) {
			for (size_t i = 0; i < bulk; i++)
				p[i] = malloc(size);
			rb_keep(p[0]);
			for (size_t i = 0; i < bulk; i++)
				free(p[i]);
		}
		break;
	default: {
		struct peer pr = peers[m];

		for (size_t it = 0; it < iters; it++) {
			for (size_t i = 0; i < bulk; i++)
				p[i] = pr.alloc(size);
			rb_keep(p[0]);
			for (size_t i = 0; i < bulk; i++)
				pr.free(p[i]);
		}
	}
	}
	c1 = rb_cycles_end();
	t1 = rb_now_ns();
	*ns = (double)(t1 - t0) / (double)(iters * bulk);
	return (double)(c1 - c0) / (double)(iters * bulk);
}

static const struct rb_col long_cols[] = {
	{ "mode", "mode",
	  "fallback: single alloc/free calls; bulk: "
	  "alloc_bulk/free_bulk; malloc, jemalloc, mimalloc: the same loop "
	  "with those allocators",
	  RB_STR, 0 },
	{ "bulk", "bulk", "objects allocated, then freed, per loop iteration",
	  RB_INT, 0 },
	{ "cycles_per_object", "cycles/obj",
	  "TSC cycles per object (one "
	  "alloc + one free), median of runs",
	  RB_NUM, 1 },
	{ "ns_per_object", "ns/obj", "nanoseconds per object, median of runs",
	  RB_NUM, 2 },
};

static const struct rb_col wide_cols[] = {
	{ "bulk", "bulk", "objects allocated, then freed, per loop iteration",
	  RB_INT, 0 },
	{ "fallback_cycles", "fallback cyc",
	  "single alloc/free calls: TSC "
	  "cycles per object (alloc + free)",
	  RB_NUM, 1 },
	{ "fallback_ns", "fallback ns", "the same in ns per object", RB_NUM,
	  2 },
	{ "bulk_cycles", "bulk cyc",
	  "alloc_bulk + free_bulk: cycles per "
	  "object",
	  RB_NUM, 1 },
	{ "bulk_ns", "bulk ns", "the same in ns per object", RB_NUM, 2 },
	{ "improvement", "improved", "1 - bulk/fallback cycles, percent",
	  RB_NUM, 0 },
	{ "malloc_cycles", "malloc cyc",
	  "glibc malloc+free of the same size, "
	  "cycles per object",
	  RB_NUM, 1 },
	{ "jemalloc_cycles", "jemalloc cyc",
	  "jemalloc mallocx+dallocx, "
	  "cycles per object (- if not installed)",
	  RB_NUM, 1 },
	{ "mimalloc_cycles", "mimalloc cyc",
	  "mimalloc mi_malloc+mi_free, "
	  "cycles per object (- if not installed)",
	  RB_NUM, 1 },
	{ "bulk_vs_malloc", "bulk/malloc", "bulk cycles / malloc cycles",
	  RB_NUM, 2 },
};

static const char *const wide_key[NR_MODES] = { "fallback_cycles",
						"bulk_cycles", "malloc_cycles",
						"jemalloc_cycles",
						"mimalloc_cycles" };

static int run_slab(struct rb_ctx *ctx, int argc, char **argv)
{
	static const size_t default_bulks[] = { 1,  2,	3,  4,	8,   16,  30,
						32, 34, 48, 64, 128, 158, 250 };
	unsigned long bulks[64], objects = 10000000, size = 256;
	const char *bulk_list = NULL;
	size_t nbulks = 0;
	struct rb_opt opts[] = {
		RB_OPT_UINT("objects", &objects, 1, 1UL << 40, "N",
			    "objects per bulk size and mode (default 10^7; "
			    "--quick: 20000)"),
		RB_OPT_STR("bulk", &bulk_list, "B,B,...",
			   "bulk sizes, each 1..1024 (default 1..250)"),
		RB_OPT_UINT("size", &size, 1, 1UL << 20, "BYTES",
			    "object size (default 256)"),
		RB_OPT_END,
	};
	struct rg_slab_cache *c;
	struct rb_table *lt, *wt;
	void **p;

	rb_parse(ctx, opts, argc, argv);
	if (bulk_list)
		nbulks = (size_t)rb_parse_uint_list("bulk", bulk_list, 1, 1024,
						    bulks, 64);
	if (!nbulks) {
		nbulks = sizeof(default_bulks) / sizeof(default_bulks[0]);
		for (size_t i = 0; i < nbulks; i++)
			bulks[i] = default_bulks[i];
	}
	if (ctx->quick && !rb_given(opts, "objects"))
		objects = 20000;
	load_peers(ctx);
	c = rg_slab_create("bench", size, size >= 256 ? 256 : 0, 0, NULL);
	if (!c)
		rb_die("slab: cannot create a cache of %lu-byte objects: %s",
		       size, strerror(errno));
	p = calloc(1024, sizeof(void *));
	if (!p)
		return 1;

	lt = rb_table_new("slab", long_cols, 4);
	wt = rb_table_new("slab", wide_cols, 10);
	for (int i = 0; i < 2; i++) {
		struct rb_table *t = i ? wt : lt;

		rb_table_param(t, "object_size", "%lu", size);
		rb_table_param(t, "objects", "%lu", objects);
		rb_table_param(t, "runs", "%d", ctx->runs);
		rb_table_param(t, "seed", "%llu",
			       (unsigned long long)ctx->seed);
	}
	for (size_t b = 0; b < nbulks; b++) {
		size_t bulk = bulks[b] ? RGI_MIN_SZ(bulks[b], 1024) : 1;
		double cyc[NR_MODES] = { 0 }, nsec[NR_MODES] = { 0 };

		rb_row(wt);
		rb_set_int(wt, "bulk", (long long)bulk);
		for (int m = 0; m < NR_MODES; m++) {
			double cv[64], nv[64], ns;
			int runs = RGI_MIN_SZ(ctx->runs, 64);

			if (!mode_available((enum mode)m))
				continue;
			/* Warm-up: caches, sheaves and the barn settle. */
			run_loop((enum mode)m, c, size, bulk, objects / 10 + 1,
				 p, &ns);
			for (int r = 0; r < runs; r++)
				cv[r] = run_loop((enum mode)m, c, size, bulk,
						 objects, p, &nv[r]);
			cyc[m] = rb_median(cv, runs);
			nsec[m] = rb_median(nv, runs);
			rb_row(lt);
			rb_set_str(lt, "mode", "%s", mode_names[m]);
			rb_set_int(lt, "bulk", (long long)bulk);
			rb_set_num(lt, "cycles_per_object", cyc[m]);
			rb_set_num(lt, "ns_per_object", nsec[m]);
			rb_set_num(wt, wide_key[m], cyc[m]);
		}
		rb_set_num(wt, "fallback_ns", nsec[M_FALLBACK]);
		rb_set_num(wt, "bulk_ns", nsec[M_BULK]);
		rb_set_num(wt, "improvement",
			   100.0 * (1 - cyc[M_BULK] / cyc[M_FALLBACK]));
		rb_set_num(wt, "bulk_vs_malloc", cyc[M_BULK] / cyc[M_MALLOC]);
	}
	rb_table_note(wt,
		      "Each loop allocates `bulk` objects then frees them, "
		      "until %lu objects have passed.",
		      objects);
	rb_table_note(wt, "The 2015 SLUB bulk-free patches (Haswell): fallback "
			  "44-47 cycles at bulk 1..16, bulk 17 at 8 and 16.");
	rb_table_print(ctx->format == RB_TABLE ? wt : lt, ctx);
	rb_plot_table(ctx, lt,
		      &(struct rb_plot){
			      .file = "slab-cycles",
			      .title = "slab: TSC cycles per object (alloc + "
				       "free) vs bulk size",
			      .x = "bulk",
			      .series = "mode",
			      .y = { "cycles_per_object" },
			      .xlabel = "objects per bulk call",
			      .ylabel = "cycles per object",
			      .logx = true,
			      .logy = true,
		      });
	rb_table_free(lt);
	rb_table_free(wt);
	free(p);
	if (rg_slab_destroy(c))
		rb_note("slab: objects leaked");
	return 0;
}

RB_COMMAND(slab, "slab", "slab caches: bulk vs single calls vs malloc",
	   run_slab);
