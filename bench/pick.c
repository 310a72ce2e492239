// SPDX-License-Identifier: MIT
/*
 * regionbench pick TRACE: which backend and placement policy to use for a
 * workload. The trace (the format of regionbench replay) is replayed on
 * every backend with every policy it offers, the configurations taking
 * turns run after run, and a verdict in plain words says which one to
 * take: fewest failed allocations, then fastest, then least memory, with
 * the figures and the margin, or that there is no measurable difference.
 * The replay itself is bench/regions.c's (replay.h).
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "region/region.h"
#include "replay.h"

#define NB RG_REGION_NR_BACKENDS
#define NP RG_REGION_NR_POLICIES
#define NCONF (NB * NP)

/* Two medians closer than this share of the faster one are a tie. */
#define PICK_FLOOR 0.02

static const char pick_help[] =
	"TRACE is a region trace in the format of regionbench replay (see\n"
	"regionbench replay --help; '-' reads standard input). pick replays it "
	"on\n"
	"every backend with every placement policy the backend offers\n"
	"(rg_region_backend_has_policy()), --runs times each (default 5), "
	"the\n"
	"configurations taking turns so that a change of machine speed hits "
	"them\n"
	"alike, after one untimed warm-up round. It decides in three steps:\n"
	"  1. failures: the fewest failed allocations win (they repeat exactly)."
	"\n"
	"  2. time: among those, the lowest median of alloc + free time over "
	"the\n"
	"     runs, if it is measurably lower. Noise: each configuration's "
	"spread\n"
	"     is the middle half of its runs (sorted, from the first quartile "
	"to\n"
	"     the third); one is measurably faster than another when its "
	"middle\n"
	"     half lies wholly below the other's and the medians differ by "
	"more\n"
	"     than 2 %. Those not measurably slower than the fastest tie.\n"
	"  3. memory: among the tied, the fewest bytes held at the peak "
	"(exact).\n"
	"     Equal there too: no measurable difference; the first listed is "
	"named.\n"
	"The verdict names the choice, the step that decided, its figures and "
	"the\n"
	"margin over the next best, then the table lists every configuration "
	"in\n"
	"that order. With --runs below 3 the spread says little: run more.\n";

struct conf {
	enum rg_region_backend b;
	enum rg_region_policy p;
	struct rb_replay_run last;
	double *t; /* alloc + free ns of each run */
	int runs;
	double median, q1, q3, spread; /* ns; spread = q3 - q1 */
	const char *standing;
};

static const char *conf_name(const struct conf *c)
{
	static char buf[4][48];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s %s fit",
		 rg_region_backend_name(c->b), rg_region_policy_name(c->p));
	return buf[i];
}

/* Sorts c->t: the median and the middle half of the runs, [q1, q3]. */
static void summarise(struct conf *c)
{
	c->median = rb_median(c->t, c->runs);
	c->q1 = c->t[(c->runs - 1) / 4];
	c->q3 = c->t[c->runs - 1 - (c->runs - 1) / 4];
	c->spread = c->q3 - c->q1;
}

/*
 * Whether @a is measurably faster than @b: the middle half of a's runs
 * lies wholly below the middle half of b's, and b's median is more than
 * PICK_FLOOR above a's.
 */
static bool faster(const struct conf *a, const struct conf *b)
{
	return a->q3 < b->q1 && b->median > (1 + PICK_FLOOR) * a->median;
}

/* Fewest failures, then the lowest median time, then the fewest bytes. */
static int cmp_conf(const void *x, const void *y)
{
	const struct conf *a = x, *b = y;

	if (a->last.failures != b->last.failures)
		return a->last.failures < b->last.failures ? -1 : 1;
	if (a->median != b->median)
		return a->median < b->median ? -1 : 1;
	if (a->last.peak_bytes != b->last.peak_bytes)
		return a->last.peak_bytes < b->last.peak_bytes ? -1 : 1;
	return 0;
}

static int cmp_bytes(const void *x, const void *y)
{
	const struct conf *a = x, *b = y;

	if (a->last.peak_bytes != b->last.peak_bytes)
		return a->last.peak_bytes < b->last.peak_bytes ? -1 : 1;
	return a->median < b->median ? -1 : a->median > b->median;
}

static const struct rb_col cols[] = {
	{ "rank", "rank",
	  "order of the verdict: failures, then time, then memory", RB_INT, 0 },
	{ "backend", "backend", "region backend", RB_STR, 0 },
	{ "policy", "policy", "placement policy: first, best, top or next fit",
	  RB_STR, 0 },
	{ "failures", "failures",
	  "allocations (alloc and reserve lines) that "
	  "failed",
	  RB_INT, 0 },
	{ "false_failures", "false failures",
	  "failures although a fitting free run existed", RB_INT, 0 },
	{ "time_us", "time us",
	  "median over the runs of all timed alloc + free calls", RB_NUM, 1 },
	{ "spread_pct", "spread %",
	  "(third - first quartile of the runs) / median: this row's noise",
	  RB_NUM, 1 },
	{ "alloc_ns", "alloc ns/op", "median run's alloc time / allocations",
	  RB_NUM, 1 },
	{ "free_ns", "free ns/op", "median run's free time / frees", RB_NUM,
	  1 },
	{ "peak_bytes", "peak bytes", "bytes the instance held at its fullest",
	  RB_INT, 0 },
	{ "standing", "standing",
	  "picked; tie (within noise of the pick, more or equal memory); "
	  "slower; more failures",
	  RB_STR, 0 },
};
#define NCOLS ((int)(sizeof(cols) / sizeof(cols[0])))

static void say(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Append to the verdict in @buf. */
static void say(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

static int run_pick(struct rb_ctx *ctx, int argc, char **argv)
{
	const char *bnames[NB + 1] = { NULL }, *pnames[NP + 1] = { NULL };
	unsigned long backends = 0, policies = 0;
	double budget_s = 60, overhead;
	struct rb_opt opts[] = {
		RB_OPT_CHOICES("backends", &backends, bnames,
			       "comma list (default all in this build)"),
		RB_OPT_CHOICES(
			"policy", &policies, pnames,
			"comma list of placement policies (default all)"),
		RB_OPT_NUM("budget", &budget_s, 0, 86400, "S",
			   "seconds in all (default 60; --quick: 5): no new "
			   "round of runs starts after it"),
		RB_OPT_END,
	};
	static struct conf conf[NCONF];
	char verdict[2048] = "", *line;
	struct rtrace *tr;
	struct rb_table *t;
	int n = 0, rounds = 0, nfew, ntie;
	uint64_t begin;
	struct conf *best, *next;
	const char *decided;

	for (int b = 0; b < NB; b++)
		bnames[b] = rg_region_backend_name((enum rg_region_backend)b);
	for (int p = 0; p < NP; p++)
		pnames[p] = rg_region_policy_name((enum rg_region_policy)p);
	rb_parse(ctx, opts, argc, argv);
	if (ctx->nargs != 1)
		rb_die("pick: expected one trace FILE (or - for standard "
		       "input), got %d (see regionbench pick --help)",
		       ctx->nargs);
	if (!rb_given(opts, "budget") && ctx->quick)
		budget_s = 5;
	if (!rb_given(opts, "policy"))
		policies = ~0UL;
	tr = rb_trace_load(ctx->args[0]);
	for (int b = 0; b < NB; b++) {
		enum rg_region_backend eb = (enum rg_region_backend)b;

		if (rb_given(opts, "backends") ?
			    !(backends >> b & 1) :
			    !rg_region_backend_available(eb))
			continue;
		if (!rg_region_backend_available(eb))
			rb_die("--backends: '%s' is not in this build",
			       bnames[b]);
		if (eb == RG_REGION_IDA &&
		    rb_trace_capacity(tr) > (unsigned long)INT_MAX) {
			rb_note("pick: ida skipped: capacity above INT_MAX");
			continue;
		}
		for (int p = 0; p < NP; p++)
			if (policies >> p & 1 &&
			    rg_region_backend_has_policy(
				    eb, (enum rg_region_policy)p)) {
				conf[n].b = eb;
				conf[n].p = (enum rg_region_policy)p;
				conf[n].t = rb_xcalloc((size_t)ctx->runs,
						       sizeof(double));
				n++;
			}
	}
	if (!n)
		rb_die("pick: no backend offers the policies asked for");

	/* A warm-up round (first touches of memory), then the timed rounds:
	 * every configuration once per round, in turn. */
	overhead = rb_replay_timer_overhead();
	for (int i = 0; i < n; i++)
		rb_replay_once(tr, conf[i].b, conf[i].p, overhead,
			       &conf[i].last);
	begin = rb_now_ns();
	while (rounds < ctx->runs) {
		for (int i = 0; i < n; i++) {
			rb_replay_once(tr, conf[i].b, conf[i].p, overhead,
				       &conf[i].last);
			conf[i].t[rounds] =
				conf[i].last.alloc_ns + conf[i].last.free_ns;
			conf[i].runs++;
		}
		rounds++;
		if ((double)(rb_now_ns() - begin) > budget_s * 1e9)
			break;
	}
	for (int i = 0; i < n; i++)
		summarise(&conf[i]);
	qsort(conf, (size_t)n, sizeof(conf[0]), cmp_conf);

	/* Step 1: failures. */
	best = &conf[0];
	for (nfew = 1; nfew < n; nfew++)
		if (conf[nfew].last.failures != best->last.failures)
			break;
	/* Step 2: time, among the fewest failures. */
	ntie = 1;
	for (int i = 1; i < nfew; i++)
		if (!faster(best, &conf[i]))
			ntie = i + 1;
	/* Step 3: memory, among the tied (then the time order). */
	qsort(conf, (size_t)ntie, sizeof(conf[0]), cmp_bytes);
	best = &conf[0];

	say(verdict, sizeof(verdict), "Verdict: %s.\n", conf_name(best));
	if (nfew < n) {
		next = &conf[nfew];
		say(verdict, sizeof(verdict),
		    "  Fewest failures: %lu failed allocation%s of %lu, "
		    "against %lu (%lu more)\n  for the next best, %s; "
		    "%d of %d configurations fail that little.\n",
		    best->last.failures, best->last.failures == 1 ? "" : "s",
		    best->last.allocs, next->last.failures,
		    next->last.failures - best->last.failures, conf_name(next),
		    nfew, n);
	} else {
		say(verdict, sizeof(verdict),
		    "  Failures: %lu on every configuration (%d).\n",
		    best->last.failures, n);
	}
	if (nfew == 1) {
		decided = "failures";
	} else if (ntie == 1) {
		next = &conf[1];
		decided = "time";
		say(verdict, sizeof(verdict),
		    "  Fastest: %.1f us of alloc + free (median of %d runs), "
		    "against %.1f us\n  for %s, the next fastest: %.2fx "
		    "faster, beyond the noise\n  (middle halves of the runs "
		    "%.1f %% and %.1f %% wide).\n",
		    best->median / 1e3, rounds, next->median / 1e3,
		    conf_name(next), next->median / fmax(best->median, 1),
		    100 * best->spread / fmax(best->median, 1),
		    100 * next->spread / fmax(next->median, 1));
	} else {
		double lo = best->median, hi = best->median;

		for (int i = 0; i < ntie; i++) {
			lo = fmin(lo, conf[i].median);
			hi = fmax(hi, conf[i].median);
		}
		say(verdict, sizeof(verdict),
		    "  Time: no measurable difference among %d configurations "
		    "(%.1f .. %.1f us,\n  medians of %d runs: the middle "
		    "halves of their runs overlap, or differ by %.0f %% or "
		    "less).\n",
		    ntie, lo / 1e3, hi / 1e3, rounds, 100 * PICK_FLOOR);
		next = &conf[1];
		if (next->last.peak_bytes > best->last.peak_bytes) {
			decided = "memory";
			say(verdict, sizeof(verdict),
			    "  Least memory: %zu bytes at the peak against "
			    "%zu for %s (%.2fx).\n",
			    best->last.peak_bytes, next->last.peak_bytes,
			    conf_name(next),
			    (double)best->last.peak_bytes /
				    (double)next->last.peak_bytes);
		} else {
			int same = 1;

			decided = "none";
			while (same < ntie && conf[same].last.peak_bytes ==
						      best->last.peak_bytes)
				same++;
			say(verdict, sizeof(verdict),
			    "  Memory: %zu bytes at the peak for %d of them "
			    "too.\n  No measurable difference among those %d "
			    "(ranks 1..%d): any fits; the first is named.\n",
			    best->last.peak_bytes, same, same, same);
		}
	}

	t = rb_table_new("pick", cols, NCOLS);
	rb_table_param(t, "trace", "%s", ctx->args[0]);
	rb_table_param(t, "operations", "%lu", rb_trace_ops(tr));
	rb_table_param(t, "capacity", "%lu", rb_trace_capacity(tr));
	rb_table_param(t, "runs", "%d", rounds);
	rb_table_param(t, "pick", "%s %s", rg_region_backend_name(best->b),
		       rg_region_policy_name(best->p));
	rb_table_param(t, "decided_by", "%s", decided);
	for (int i = 0; i < n; i++) {
		struct conf *c = &conf[i];

		c->standing = i == 0	? "picked" :
			      i >= nfew ? "more failures" :
			      i < ntie	? "tie" :
					  "slower";
		rb_row(t);
		rb_set_int(t, "rank", i + 1);
		rb_set_str(t, "backend", "%s", rg_region_backend_name(c->b));
		rb_set_str(t, "policy", "%s", rg_region_policy_name(c->p));
		rb_set_int(t, "failures", (long long)c->last.failures);
		rb_set_int(t, "false_failures",
			   (long long)c->last.false_failures);
		rb_set_num(t, "time_us", c->median / 1e3);
		rb_set_num(t, "spread_pct",
			   100 * c->spread / fmax(c->median, 1));
		if (c->last.allocs)
			rb_set_num(t, "alloc_ns",
				   c->last.alloc_ns / (double)c->last.allocs);
		if (c->last.frees)
			rb_set_num(t, "free_ns",
				   c->last.free_ns / (double)c->last.frees);
		rb_set_int(t, "peak_bytes", (long long)c->last.peak_bytes);
		rb_set_str(t, "standing", "%s", c->standing);
	}
	if (rounds < ctx->runs)
		rb_table_note(t, "time budget reached after %d of %d runs",
			      rounds, ctx->runs);
	if (ctx->format == RB_TABLE) {
		fputs(verdict, ctx->out);
		fputc('\n', ctx->out);
	} else {
		/* One line: newlines and indents become one space. */
		char *w = verdict;

		for (line = verdict; *line; line++) {
			if (*line == '\n' || *line == ' ') {
				if (w > verdict && w[-1] != ' ')
					*w++ = ' ';
			} else {
				*w++ = *line;
			}
		}
		while (w > verdict && w[-1] == ' ')
			w--;
		*w = 0;
		rb_table_param(t, "verdict", "%s", verdict);
	}
	rb_table_print(t, ctx);
	rb_table_free(t);
	for (int i = 0; i < n; i++)
		free(conf[i].t);
	rb_trace_unload(tr);
	return 0;
}

RB_COMMAND_ARGS(pick, "pick",
		"replay a trace on every backend and policy, say which to use",
		run_pick, "TRACE", pick_help);
