// SPDX-License-Identifier: MIT
/*
 * regionbench ida: the cost of the IDA's common path.
 *
 * Allocate --ids IDs in a row with rg_ida_alloc() (each must return the
 * next integer: checked), then free them all, in allocation order in one
 * pass and in reverse order in another, on a fresh IDA each time. Each
 * figure is the whole loop's time divided by the number of IDs, the median
 * over --runs runs after one warm-up run. The memory column is what the IDA
 * holds when all IDs are allocated, counted from its live nodes and chunk
 * bitmaps (rg_ida_bytes(): bitmaps x 128 B + xarray nodes x node size +
 * the IDA header), not an estimate.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "region/ida.h"
#include "region/xarray.h"

enum { OP_ALLOC, OP_FREE, OP_FREE_REV, NR_OPS };

static const char *const op_names[NR_OPS] = { "alloc", "free", "free_reverse" };

static const struct rb_col cols[] = {
	{ "op", "op",
	  "alloc: rg_ida_alloc() of IDs 0..ids-1 in a row; free: rg_ida_free() "
	  "of them in the same order; free_reverse: from the highest down",
	  RB_STR, 0 },
	{ "ids", "ids", "IDs allocated (then freed) per run", RB_INT, 0 },
	{ "ns_per_id", "ns/ID",
	  "loop time / ids, median over runs (includes the IDA's lock)", RB_NUM,
	  1 },
	{ "total_ms", "total ms", "the whole loop, median over runs", RB_NUM,
	  2 },
	{ "peak_bytes", "peak bytes",
	  "bytes the IDA holds with all IDs allocated: bitmaps x 128 + xarray "
	  "nodes x node size + header (counted, not estimated)",
	  RB_INT, 0 },
	{ "bits_per_id", "bits/ID", "peak_bytes x 8 / ids", RB_NUM, 3 },
};

/* One run: fill, then free in the given order. Times in ns per pass. */
static int one_run(unsigned int ids, bool reverse, double *alloc_ns,
		   double *free_ns, size_t *peak)
{
	struct rg_ida ida;
	uint64_t t0, t1, t2, t3;
	unsigned int id;

	rg_ida_init(&ida);
	t0 = rb_now_ns();
	for (unsigned int i = 0; i < ids; i++) {
		if (rg_ida_alloc(&ida, &id) || id != i) {
			rb_note("ida: allocation %u returned %u", i, id);
			return -1;
		}
	}
	t1 = rb_now_ns();
	*peak = rg_ida_bytes(&ida); /* outside both timed loops */
	t2 = rb_now_ns();
	if (reverse) {
		for (unsigned int i = ids; i-- > 0;)
			if (rg_ida_free(&ida, i))
				return -1;
	} else {
		for (unsigned int i = 0; i < ids; i++)
			if (rg_ida_free(&ida, i))
				return -1;
	}
	t3 = rb_now_ns();
	if (!rg_ida_is_empty(&ida)) {
		rb_note("ida: not empty after freeing every ID");
		return -1;
	}
	rg_ida_destroy(&ida);
	*alloc_ns = (double)(t1 - t0);
	*free_ns = (double)(t3 - t2);
	return 0;
}

static int run_ida(struct rb_ctx *ctx, int argc, char **argv)
{
	unsigned long ids = 1000000;
	struct rb_opt opts[] = {
		RB_OPT_UINT("ids", &ids, 1, RG_IDA_MAX, "N",
			    "IDs to allocate (default 10^6; --quick: 20000)"),
		RB_OPT_END,
	};
	double *t[NR_OPS], dummy;
	size_t peak = 0;
	struct rb_table *tab;
	int runs;

	rb_parse(ctx, opts, argc, argv);
	runs = ctx->runs;
	if (ctx->quick && !rb_given(opts, "ids"))
		ids = 20000;
	for (int k = 0; k < NR_OPS; k++) {
		t[k] = calloc((size_t)runs, sizeof(double));
		if (!t[k])
			return 1;
	}
	/* Warm-up: creates the slab caches and faults their memory in. */
	if (one_run((unsigned int)ids, false, &dummy, &dummy, &peak))
		return 1;
	for (int r = 0; r < runs; r++) {
		double a2;

		if (one_run((unsigned int)ids, false, &t[OP_ALLOC][r],
			    &t[OP_FREE][r], &peak) ||
		    one_run((unsigned int)ids, true, &a2, &t[OP_FREE_REV][r],
			    &peak))
			return 1;
	}

	tab = rb_table_new("ida", cols, (int)(sizeof(cols) / sizeof(cols[0])));
	rb_table_param(tab, "ids", "%lu", ids);
	rb_table_param(tab, "runs", "%d", runs);
	rb_table_param(tab, "seed", "%llu", (unsigned long long)ctx->seed);
	rb_table_param(tab, "node_size", "%zu", rg_xa_node_size());
	for (int k = 0; k < NR_OPS; k++) {
		double med = rb_median(t[k], runs);

		rb_row(tab);
		rb_set_str(tab, "op", "%s", op_names[k]);
		rb_set_int(tab, "ids", (long long)ids);
		rb_set_num(tab, "ns_per_id", med / (double)ids);
		rb_set_num(tab, "total_ms", med / 1e6);
		rb_set_int(tab, "peak_bytes", (long long)peak);
		rb_set_num(tab, "bits_per_id", (double)peak * 8 / (double)ids);
		free(t[k]);
	}
	rb_table_note(tab, "The IDs are deterministic (0..ids-1); the seed is "
			   "printed for uniformity only.");
	rb_table_note(tab, "Dense IDA memory, as in the kernel: 128 B per "
			   "1024 IDs + one xarray node per 64 chunks, about "
			   "1.07 bits/ID.");
	rb_table_print(tab, ctx);
	rb_table_free(tab);
	return 0;
}

RB_COMMAND(ida, "ida",
	   "IDA: allocate N IDs in a row, free them; ns per ID, peak bytes",
	   run_ida);
