// SPDX-License-Identifier: MIT
/*
 * regionbench bitmap: the zero-area search with the 2026 skip (resume past
 * the blocked window's last set bit) against the plain search (resume after
 * its first set bit), in the same run, on the same randomly half-filled map.
 *
 * The map has 327,680 bits (the kernel's BITMAP_LEN, 4096 * 8 * 10), filled
 * with random words from the seeded generator, so each bit is set with
 * probability 1/2, like the kernel's get_random_bytes() fill. For each run
 * length nr in 8, 32, 128, 1024, 4096 and each search, two figures:
 *   - one search from bit 0 (a first-fit allocation): ns per search;
 *   - a sweep: search from 0, then again from the end of each run found,
 *     until a search fails, i.e. every fitting run in the map is visited
 *     once: ms per sweep. On a random half-full map a run of 32 or more
 *     free bits almost never exists, so for nr >= 32 a sweep is one search
 *     that scans the whole map and fails. This is the kernel's own
 *     measurement (lib/find_bit_benchmark.c style, "test1"): 23.1 ms ->
 *     2.91 ms for nr = 32.
 * Each figure is the median over --runs runs; each run repeats the timed
 * operation enough times to last a few milliseconds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "region/bitmap.h"
#include "rg_rand.h"

typedef unsigned long (*search_fn)(const unsigned long *, unsigned long,
				   unsigned long, unsigned long, unsigned long,
				   unsigned long);

static const struct {
	const char *name;
	search_fn fn;
} searches[] = {
	{ "skip_last", rg_bitmap_find_next_zero_area_off },
	{ "resume_first", rg_bitmap_find_next_zero_area_naive },
};

static const struct rb_col cols[] = {
	{ "nr", "nr", "length of the free run searched for (bits)", RB_INT, 0 },
	{ "search", "search",
	  "skip_last: resume past a blocked window's last set bit (the "
	  "kernel's 2026 zero-area search change); "
	  "resume_first: resume after its first set bit (before)",
	  RB_STR, 0 },
	{ "ns_per_search", "ns/search",
	  "median ns for one search from bit 0 (first fit)", RB_NUM, 1 },
	{ "first_fit", "first fit",
	  "index that search returned (-1: no run of nr free bits)", RB_INT,
	  0 },
	{ "sweep_ms", "sweep ms",
	  "median ms to visit every run: search from 0, then from the end of "
	  "each run found, until a search fails",
	  RB_NUM, 3 },
	{ "runs_found", "runs found", "runs the sweep found", RB_INT, 0 },
	{ "speedup", "speedup",
	  "resume_first time / skip_last time (per search; sweep in brackets)",
	  RB_STR, 0 },
};

/* Visit every fitting run once; return how many were found. */
static unsigned long sweep(search_fn fn, const unsigned long *map,
			   unsigned long bits, unsigned long nr)
{
	unsigned long start = 0, n = 0, at;

	while ((at = fn(map, bits, start, nr, 0, 0)) < bits) {
		n++;
		start = at + nr;
	}
	return n;
}

/* ns per call of one search from 0, repeated to last about @target_ns. */
static double time_search(search_fn fn, const unsigned long *map,
			  unsigned long bits, unsigned long nr,
			  uint64_t target_ns)
{
	unsigned long reps = 1, i;
	uint64_t t0, t;

	for (;;) {
		t0 = rb_now_ns();
		for (i = 0; i < reps; i++)
			rb_keep(fn(map, bits, 0, nr, 0, 0));
		t = rb_now_ns() - t0;
		if (t >= target_ns || reps >= (1UL << 24))
			return (double)t / (double)reps;
		reps *= t ? (target_ns / t + 1 < 16 ? target_ns / t + 1 : 16) :
			    16;
	}
}

static double time_sweep(search_fn fn, const unsigned long *map,
			 unsigned long bits, unsigned long nr,
			 uint64_t target_ns, unsigned long *found)
{
	unsigned long reps = 0;
	uint64_t t0 = rb_now_ns(), t;

	do {
		*found = sweep(fn, map, bits, nr);
		reps++;
		t = rb_now_ns() - t0;
	} while (t < target_ns);
	return (double)t / (double)reps;
}

static int run_bitmap(struct rb_ctx *ctx, int argc, char **argv)
{
	static const unsigned long nrs[] = { 8, 32, 128, 1024, 4096 };
	enum { NNR = sizeof(nrs) / sizeof(nrs[0]), NS = 2 };
	unsigned long bits = 327680, *map, words, first[NNR][NS],
		      found[NNR][NS];
	struct rb_opt opts[] = {
		RB_OPT_UINT("bits", &bits, 64, 1UL << 32, "N",
			    "map size in bits (default 327680)"),
		RB_OPT_END,
	};
	double ns[NNR][NS], ms[NNR][NS], *v;
	uint64_t target;
	struct rb_table *t;
	struct rg_rand r;

	rb_parse(ctx, opts, argc, argv);
	target = ctx->quick ? 1000000 : 10000000;
	map = rg_bitmap_zalloc(bits);
	v = calloc((size_t)ctx->runs, sizeof(*v));
	if (!map || !v) {
		perror("regionbench bitmap");
		return 2;
	}
	/* Each bit set with probability 1/2, tail bits clear. */
	rg_rand_seed(&r, ctx->seed);
	words = RG_BITS_TO_LONGS(bits);
	for (unsigned long w = 0; w < words; w++)
		map[w] = (unsigned long)rg_rand_next(&r);
	rg_bitmap_clear_range(map, bits, words * RG_BITS_PER_LONG - bits);

	for (int k = 0; k < NNR; k++) {
		for (int s = 0; s < NS; s++) {
			first[k][s] =
				searches[s].fn(map, bits, 0, nrs[k], 0, 0);
			for (int run = 0; run < ctx->runs; run++)
				v[run] = time_search(searches[s].fn, map, bits,
						     nrs[k], target);
			ns[k][s] = rb_median(v, ctx->runs);
			for (int run = 0; run < ctx->runs; run++)
				v[run] = time_sweep(searches[s].fn, map, bits,
						    nrs[k], target,
						    &found[k][s]) /
					 1e6;
			ms[k][s] = rb_median(v, ctx->runs);
		}
		if (first[k][0] != first[k][1] || found[k][0] != found[k][1]) {
			fprintf(stderr,
				"regionbench bitmap: MISMATCH at nr %lu: "
				"skip_last %lu / %lu runs, resume_first %lu / "
				"%lu runs\n",
				nrs[k], first[k][0], found[k][0], first[k][1],
				found[k][1]);
			return 1;
		}
	}

	t = rb_table_new("bitmap", cols, sizeof(cols) / sizeof(cols[0]));
	rb_table_param(t, "seed", "%" PRIu64, ctx->seed);
	rb_table_param(t, "bits", "%lu", bits);
	rb_table_param(t, "fill", "random words (each bit set with p = 1/2)");
	rb_table_param(t, "weight", "%lu", rg_bitmap_weight(map, bits));
	rb_table_param(t, "runs", "%d", ctx->runs);
	for (int k = 0; k < NNR; k++) {
		for (int s = 0; s < NS; s++) {
			rb_row(t);
			rb_set_int(t, "nr", (long long)nrs[k]);
			rb_set_str(t, "search", "%s", searches[s].name);
			rb_set_num(t, "ns_per_search", ns[k][s]);
			rb_set_int(t, "first_fit",
				   first[k][s] < bits ? (long long)first[k][s] :
							-1);
			rb_set_num(t, "sweep_ms", ms[k][s]);
			rb_set_int(t, "runs_found", (long long)found[k][s]);
			if (s == 0)
				rb_set_str(t, "speedup", "%.1fx (%.1fx)",
					   ns[k][1] / ns[k][0],
					   ms[k][1] / ms[k][0]);
		}
	}
	/* The kernel's fact: nr = 32, whole random map. */
	rb_table_param(t, "kernel_run32_sweep_ms",
		       "23.1 -> 2.91 (7.9x; the kernel's 2026 patch)");
	rb_table_param(t, "run32_sweep_ms", "%.3f -> %.3f (%.1fx)", ms[1][1],
		       ms[1][0], ms[1][1] / ms[1][0]);
	rb_table_note(t,
		      "The kernel's measurement repeated: a run-of-32 sweep of "
		      "a random "
		      "%lu-bit map took %.3f ms with resume_first and %.3f ms "
		      "with skip_last here (%.1fx);",
		      bits, ms[1][1], ms[1][0], ms[1][1] / ms[1][0]);
	rb_table_note(t, "the kernel's 2026 patch measured 23.1 ms -> 2.91 ms "
			 "(7.9x) for the same sweep on a 327,680-bit map.");
	rb_table_note(t, "Our skip_last also never rescans the known-clear "
			 "tail of a blocked window, which pays off for long "
			 "runs (see the speedup column).");
	rb_table_print(t, ctx);
	rb_plot_table(ctx, t,
		      &(struct rb_plot){
			      .file = "bitmap-search",
			      .title = "bitmap: ns per zero-area search vs run "
				       "length",
			      .x = "nr",
			      .series = "search",
			      .y = { "ns_per_search" },
			      .xlabel = "free run searched for (bits)",
			      .ylabel = "ns per search",
			      .logx = true,
			      .logy = true,
		      });
	rb_table_free(t);
	rg_bitmap_free(map);
	free(v);
	return 0;
}

RB_COMMAND(bitmap, "bitmap",
	   "zero-area search: skip past last set bit vs resume after first",
	   run_bitmap);
