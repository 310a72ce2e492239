// SPDX-License-Identifier: MIT
/*
 * regionbench region-walk: walking, fragmentation figures, save and load
 * of a churned region instance.
 *
 * For each backend (--backends; ida only when named: its first fit steps
 * through the free runs, so its churn takes minutes) that offers the
 * --policy (default first fit), one seeded
 * trace: fill a --capacity instance to --occupancy % with regions of 1 ..
 * 32 units, then --iterations times free a random live region and
 * allocate a random size (untimed). Every backend runs the same calls and
 * places by the same policy, so all end with the same units allocated:
 * checked by comparing their saved bytes, a mismatch fails the command.
 * Then, timed, each a median over --runs:
 *   walk: rg_region_for_each_run() over every run, allocated and free
 *   (the first one, the first call to walk the churned instance, is also
 *   reported alone: on a best-fit hbitmap instance it brings the
 *   summaries up to date first);
 *   stats: rg_region_get_stats() (one walk of the free runs);
 *   save: rg_region_save() into a buffer; load: rg_region_load() of it
 *   into the same backend; save+load: both, as MB/s of the saved bytes.
 * The free-run histogram of the churned instance follows the table (table
 * format), one bar per power-of-two bucket. --spread N replaces the churn
 * by one allocated unit every N units: runs far apart, where a walk that
 * scans words pays for the distance and one that skips by summaries
 * does not.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "region/region.h"
#include "rg_rand.h"

#define BAR_WIDTH 52

static const struct rb_col cols[] = {
	{ "backend", "backend", "region backend", RB_STR, 0 },
	{ "policy", "policy", "placement policy of the churn", RB_STR, 0 },
	{ "capacity", "capacity", "units the instance manages", RB_INT, 0 },
	{ "occupancy", "occupancy %", "units allocated during the churn, %",
	  RB_INT, 0 },
	{ "runs_walked", "runs", "allocated + free runs a whole walk visits",
	  RB_INT, 0 },
	{ "walk_ns_per_run", "walk ns/run",
	  "rg_region_for_each_run() over every run: time / runs, median",
	  RB_NUM, 1 },
	{ "first_walk_ns_per_run", "1st walk ns/run",
	  "the first such walk after the churn: time / runs", RB_NUM, 1 },
	{ "free_runs", "free runs", "free runs (rg_region_stats)", RB_INT, 0 },
	{ "stats_us", "stats us",
	  "rg_region_get_stats() with the free-run figures, median", RB_NUM,
	  1 },
	{ "saved_bytes", "saved bytes", "rg_region_save() size", RB_INT, 0 },
	{ "save_mb_s", "save MB/s", "saved bytes / rg_region_save() time",
	  RB_NUM, 1 },
	{ "load_mb_s", "load MB/s", "saved bytes / rg_region_load() time",
	  RB_NUM, 1 },
	{ "save_load_mb_s", "save+load MB/s",
	  "saved bytes / (save + load time)", RB_NUM, 1 },
	{ "fragmentation", "fragmentation", "1 - largest free run / free units",
	  RB_NUM, 4 },
};
#define NCOLS ((int)(sizeof(cols) / sizeof(cols[0])))

struct live {
	unsigned long *start, *n;
	size_t count;
};

static void churn(struct rg_region *r, unsigned long cap, unsigned int occ,
		  unsigned long iters, uint64_t seed, struct live *lv)
{
	unsigned long target = (unsigned long)((double)cap * occ / 100.0);
	unsigned long used = 0, s, n;
	struct rg_rand rng;

	rg_rand_seed(&rng, seed);
	lv->count = 0;
	while (used < target) {
		n = rg_rand_range(&rng, 1, 32);
		if (rg_region_alloc(r, n, 0, &s))
			break;
		lv->start[lv->count] = s;
		lv->n[lv->count++] = n;
		used += n;
	}
	for (unsigned long i = 0; i < iters && lv->count; i++) {
		size_t k = (size_t)rg_rand_below(&rng, lv->count);

		if (rg_region_free(r, lv->start[k], lv->n[k]))
			rb_die("region-walk: free failed");
		lv->start[k] = lv->start[lv->count - 1];
		lv->n[k] = lv->n[--lv->count];
		n = rg_rand_range(&rng, 1, 32);
		if (!rg_region_alloc(r, n, 0, &s)) {
			lv->start[lv->count] = s;
			lv->n[lv->count++] = n;
		}
	}
}

static void print_hist(FILE *f, const char *title, const unsigned long *hist)
{
	unsigned long max = 0;
	int last = 0;
	char label[48];

	for (int i = 0; i < RG_REGION_HIST_BUCKETS; i++) {
		max = hist[i] > max ? hist[i] : max;
		if (hist[i])
			last = i;
	}
	fprintf(f, "%s\n", title);
	for (int i = 0; i <= last; i++) {
		int w = max ? (int)((double)hist[i] * BAR_WIDTH / (double)max) :
			      0;

		if (i == 0)
			snprintf(label, sizeof(label), "[1]");
		else
			snprintf(label, sizeof(label), "[%lu, %lu)", 1UL << i,
				 2UL << i);
		fprintf(f, "%-16s%8lu |", label, hist[i]);
		for (int c = 0; c < BAR_WIDTH; c++)
			fputc(c < w ? '@' : ' ', f);
		fprintf(f, "|\n");
	}
	fputc('\n', f);
}

static double ns_since(uint64_t t0)
{
	return (double)(rb_now_ns() - t0);
}

static int run_region_walk(struct rb_ctx *ctx, int argc, char **argv)
{
	static const char *const bnames[] = { "bitmap",	 "ida",	   "maple",
					      "hbitmap", "extent", NULL };
	static const char *const pnames[] = { "first", "best", "top", "next",
					      NULL };
	unsigned long cap = 1000000, occ = 90, iters = 0, backends = 0;
	int policy = RG_REGION_FIRST_FIT;
	unsigned long spread = 0;
	struct rb_opt opts[] = {
		RB_OPT_CHOICES(
			"backends", &backends, bnames,
			"comma list (default bitmap,maple,hbitmap; ida's "
			"churn is slow, so only when asked)"),
		RB_OPT_UINT("capacity", &cap, 64, 1UL << 32, "N",
			    "units per instance (default 10^6; --quick: "
			    "10^5)"),
		RB_OPT_UINT("occupancy", &occ, 1, 99, "P",
			    "churn at P % allocated (default 90)"),
		RB_OPT_UINT("iterations", &iters, 0, 1UL << 32, "N",
			    "churn free + alloc iterations (default "
			    "capacity / 5)"),
		RB_OPT_UINT("spread", &spread, 2, 1UL << 32, "N",
			    "instead of the churn: one allocated unit every N "
			    "units (runs far apart)"),
		RB_OPT_CHOICE("policy", &policy, pnames,
			      "placement policy of the instances (default "
			      "first); backends without it are skipped"),
		RB_OPT_END,
	};
	unsigned char *ref = NULL, *buf;
	size_t ref_size = 0, size;
	struct rg_region_stats hist_st;
	struct rb_table *tab;
	struct live lv;
	bool have_hist = false;
	int runs, ret = 0;
	double *tw, *ts, *tsv, *tl;
	enum rg_region_policy pol;
	char title[128];

	rb_parse(ctx, opts, argc, argv);
	pol = (enum rg_region_policy)policy;
	runs = ctx->runs;
	if (ctx->quick && !rb_given(opts, "capacity"))
		cap = 100000;
	if (!rb_given(opts, "iterations"))
		iters = cap / 5;
	lv.start = rb_xcalloc(cap, sizeof(unsigned long));
	lv.n = rb_xcalloc(cap, sizeof(unsigned long));
	tw = rb_xcalloc((size_t)runs, sizeof(double));
	ts = rb_xcalloc((size_t)runs, sizeof(double));
	tsv = rb_xcalloc((size_t)runs, sizeof(double));
	tl = rb_xcalloc((size_t)runs, sizeof(double));
	tab = rb_table_new("region-walk", cols, NCOLS);
	rb_table_param(tab, "capacity", "%lu", cap);
	if (spread) {
		rb_table_param(tab, "spread", "%lu", spread);
	} else {
		rb_table_param(tab, "occupancy", "%lu", occ);
		rb_table_param(tab, "iterations", "%lu", iters);
	}
	rb_table_param(tab, "policy", "%s", rg_region_policy_name(pol));
	rb_table_param(tab, "runs", "%d", runs);
	rb_table_param(tab, "seed", "%llu", (unsigned long long)ctx->seed);

	for (int b = 0; b < RG_REGION_NR_BACKENDS && !ret; b++) {
		enum rg_region_backend be = (enum rg_region_backend)b;
		unsigned long walked = 0, s, n;
		struct rg_region_stats st;
		struct rg_region *r;
		int kind;

		if (rb_given(opts, "backends") ? !(backends >> b & 1) :
						 be == RG_REGION_IDA)
			continue;
		if (!rg_region_backend_available(be))
			rb_die("region-walk: backend %s is not in this build",
			       rg_region_backend_name(be));
		if (!rg_region_backend_has_policy(be, pol)) {
			rb_note("region-walk: %s has no %s fit, skipped",
				rg_region_backend_name(be),
				rg_region_policy_name(pol));
			continue;
		}
		r = rg_region_create_backend(be, cap, RG_REGION_POLICY(pol));
		if (!r)
			rb_die("region-walk: cannot create %s",
			       rg_region_backend_name(be));
		if (spread)
			for (unsigned long u = spread - 1; u < cap; u += spread)
				rg_region_reserve(r, u, 1);
		else
			churn(r, cap, (unsigned int)occ, iters, ctx->seed, &lv);
		buf = NULL;
		for (int k = 0; k < runs; k++) {
			uint64_t t0 = rb_now_ns();
			struct rg_region *l;

			walked = 0;
			rg_region_for_each_run(r, 0, RG_RUN_USED | RG_RUN_FREE,
					       kind, s, n) walked++;
			tw[k] = ns_since(t0);
			if (!buf) { /* nothing walked the instance before */
				size = 0;
				rg_region_save(r, NULL, &size);
				buf = rb_xcalloc(size, 1);
			}
			t0 = rb_now_ns();
			rg_region_get_stats(r, &st);
			ts[k] = ns_since(t0);
			t0 = rb_now_ns();
			if (rg_region_save(r, buf, &size))
				rb_die("region-walk: save failed");
			tsv[k] = ns_since(t0);
			t0 = rb_now_ns();
			l = rg_region_load(buf, size, be, 0);
			tl[k] = ns_since(t0);
			if (!l)
				rb_die("region-walk: load failed");
			rg_region_destroy(l);
		}
		if (!ref) {
			ref = buf;
			ref_size = size;
		} else {
			if (size != ref_size || memcmp(buf, ref, size)) {
				rb_note("region-walk: MISMATCH: %s saved "
					"other units than the first backend",
					rg_region_backend_name(be));
				ret = 1;
			}
			free(buf);
		}
		if (be == RG_REGION_HBITMAP || !have_hist) {
			hist_st = st;
			have_hist = true;
		}
		rb_row(tab);
		rb_set_str(tab, "backend", "%s", rg_region_backend_name(be));
		rb_set_str(tab, "policy", "%s", rg_region_policy_name(pol));
		rb_set_int(tab, "capacity", (long long)cap);
		rb_set_int(tab, "occupancy",
			   (long long)((cap - st.free_units) * 100 / cap));
		rb_set_int(tab, "runs_walked", (long long)walked);
		rb_set_num(tab, "walk_ns_per_run",
			   rb_median(tw, runs) / (double)walked);
		rb_set_num(tab, "first_walk_ns_per_run",
			   tw[0] / (double)walked);
		rb_set_int(tab, "free_runs", (long long)st.free_runs);
		rb_set_num(tab, "stats_us", rb_median(ts, runs) / 1e3);
		rb_set_int(tab, "saved_bytes", (long long)size);
		rb_set_num(tab, "save_mb_s",
			   (double)size * 1e3 / rb_median(tsv, runs));
		rb_set_num(tab, "load_mb_s",
			   (double)size * 1e3 / rb_median(tl, runs));
		for (int k = 0; k < runs; k++)
			tsv[k] += tl[k];
		rb_set_num(tab, "save_load_mb_s",
			   (double)size * 1e3 / rb_median(tsv, runs));
		rb_set_num(tab, "fragmentation", st.fragmentation);
		rg_region_destroy(r);
	}
	rb_table_note(
		tab, "Every backend ran the same churn with the same policy "
		     "and saved the same bytes (checked). ida runs only when "
		     "named (its first-fit churn is slow). MB/s are 10^6 bytes "
		     "per second.");
	rb_table_print(tab, ctx);
	if (ctx->format == RB_TABLE && have_hist) {
		if (spread)
			snprintf(title, sizeof(title),
				 "@free_run_len[%lu units, 1 in %lu used]:",
				 cap, spread);
		else
			snprintf(title, sizeof(title),
				 "@free_run_len[%lu units, %lu%% churn]:", cap,
				 occ);
		print_hist(ctx->out, title, hist_st.free_run_hist);
	}
	rb_table_free(tab);
	free(ref);
	free(lv.start);
	free(lv.n);
	free(tw);
	free(ts);
	free(tsv);
	free(tl);
	return ret;
}

RB_COMMAND(region_walk, "region-walk",
	   "regions: walk runs, free-run figures, save and load after a churn",
	   run_region_walk);
