/* SPDX-License-Identifier: MIT */
/*
 * regionbench framework: subcommand registry, common options, timing,
 * medians, and one table type printed as an aligned table with a legend,
 * as CSV, or as JSON ({"benchmark", "params", "rows"}).
 *
 * A subcommand lives in its own bench/<name>.c and registers itself:
 *
 *	static int run_slab(struct rb_ctx *ctx, int argc, char **argv);
 *	RB_COMMAND(slab, "slab", "slab caches: bulk vs single calls",
 *		   run_slab);
 *
 * Its options are one table, parsed together with the common options by
 * rb_parse() (which also answers --help from the table):
 *
 *	unsigned long size = 256;
 *	struct rb_opt opts[] = {
 *		RB_OPT_UINT("size", &size, 1, 1 << 20, "BYTES", "object size"),
 *		RB_OPT_END,
 *	};
 *	rb_parse(ctx, opts, argc, argv);
 *	if (ctx->quick && !rb_given(opts, "objects"))
 *		...
 *
 * Then it builds an rb_table with rb_table_new(), adds rows and calls
 * rb_table_print().
 */
#ifndef RB_BENCH_H
#define RB_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

enum rb_format { RB_TABLE, RB_CSV, RB_JSON };

struct rb_command;

struct rb_ctx {
	enum rb_format format;
	uint64_t seed;
	int runs; /* repetitions; medians are taken over them */
	bool quick; /* smaller sizes: smoke runs in the test suite */
	const char *plot; /* --plot DIR (an existing folder) or NULL */
	FILE *out;
	char **argv; /* the whole command line, for a re-exec */
	const struct rb_command *cmd; /* the running subcommand */
	char **args; /* positional arguments left by rb_parse() */
	int nargs;
};

typedef int (*rb_run_fn)(struct rb_ctx *ctx, int argc, char **argv);

struct rb_command {
	const char *name;
	const char *help;
	rb_run_fn run;
	const char *args; /* positional arguments in --help, NULL: none */
	const char *more; /* text after the options in --help, or NULL */
	struct rb_command *next;
};

void rb_register(struct rb_command *cmd);

/* A subcommand with positional arguments and extra --help text. */
#define RB_COMMAND_ARGS(id, name, helptext, fn, argtext, moretext)          \
	static struct rb_command rb_cmd_##id = { name,	  helptext, fn,     \
						 argtext, moretext, NULL }; \
	__attribute__((constructor)) static void rb_register_##id(void)     \
	{                                                                   \
		rb_register(&rb_cmd_##id);                                  \
	}

#define RB_COMMAND(id, name, helptext, fn) \
	RB_COMMAND_ARGS(id, name, helptext, fn, NULL, NULL)

/* ---- options: one table per subcommand, one parser ---- */

enum rb_opt_kind {
	RB_K_FLAG, /* no value: *(bool *)dest = true */
	RB_K_UINT, /* *(unsigned long *)dest, an integer in min..max */
	RB_K_NUM, /* *(double *)dest, a number in min..max */
	RB_K_CHOICE, /* *(int *)dest = index of the value in choices */
	RB_K_CHOICES, /* comma list of choices: *(unsigned long *)dest has
		       * bit i set for choices[i] (at most 64 choices) */
	RB_K_STR, /* *(const char **)dest; lists: rb_parse_uint_list() */
};

struct rb_opt {
	const char *name; /* "runs" for --runs */
	enum rb_opt_kind kind;
	void *dest;
	const char *arg; /* value name in --help: "N", "LIST" */
	const char *help; /* one line */
	unsigned long min, max; /* RB_K_UINT and RB_K_NUM */
	const char *const *choices; /* RB_K_CHOICE: NULL-terminated */
	bool given; /* set by rb_parse() */
};

/*
 * Integers take decimal digits, or the forms 1e6 and 10^6; the whole
 * string must be one and lie in min..max, or rb_parse() exits 2 naming
 * the option and its range.
 */
#define RB_OPT_UINT(n, d, lo, hi, a, h)                                       \
	{                                                                     \
		.name = n, .kind = RB_K_UINT, .dest = d, .arg = a, .help = h, \
		.min = lo, .max = hi                                          \
	}
#define RB_OPT_NUM(n, d, lo, hi, a, h)                                       \
	{                                                                    \
		.name = n, .kind = RB_K_NUM, .dest = d, .arg = a, .help = h, \
		.min = lo, .max = hi                                         \
	}
#define RB_OPT_FLAG(n, d, h)                                       \
	{                                                          \
		.name = n, .kind = RB_K_FLAG, .dest = d, .help = h \
	}
#define RB_OPT_CHOICE(n, d, c, h)                                     \
	{                                                             \
		.name = n, .kind = RB_K_CHOICE, .dest = d, .help = h, \
		.choices = c                                          \
	}
#define RB_OPT_CHOICES(n, d, c, h)                                     \
	{                                                              \
		.name = n, .kind = RB_K_CHOICES, .dest = d, .help = h, \
		.choices = c                                           \
	}
#define RB_OPT_STR(n, d, a, h)                                              \
	{                                                                   \
		.name = n, .kind = RB_K_STR, .dest = d, .arg = a, .help = h \
	}
#define RB_OPT_END           \
	{                    \
		.name = NULL \
	}

/*
 * rb_parse() - parse a subcommand's arguments: its own options (@opts,
 * ended by RB_OPT_END), the common options (anywhere on the line), --x=y
 * and --x y forms, -h/--help (prints the subcommand's usage and exits 0),
 * "--" (the rest are positional) and positional arguments, which land in
 * ctx->args / ctx->nargs. argv[0] is the subcommand name. Bad input
 * prints one line naming the option or argument and exits 2.
 */
void rb_parse(struct rb_ctx *ctx, struct rb_opt *opts, int argc, char **argv);
/* Whether option @name of @opts was on the command line. */
bool rb_given(const struct rb_opt *opts, const char *name);
/* Parse a whole integer as options do ("123", "1e6", "10^6"). */
bool rb_parse_uint(const char *s, unsigned long *out);
/*
 * Parse a comma list of integers in @min..@max for option @name into
 * @out (at most @maxn); exits 2 naming the option on bad input.
 * Return: the number of values.
 */
int rb_parse_uint_list(const char *name, const char *s, unsigned long min,
		       unsigned long max, unsigned long *out, int maxn);
/* Print "regionbench: MESSAGE" to stderr and exit 2 (bad input). */
void rb_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* Monotonic clock in nanoseconds. */
static inline uint64_t rb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Time-stamp counter read, serialised the usual way (lfence; rdtsc). */
static inline uint64_t rb_cycles_begin(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc\n\tlfence"
			 : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
#else
	return rb_now_ns();
#endif
}

static inline uint64_t rb_cycles_end(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi, aux;

	__asm__ volatile("rdtscp\n\tlfence"
			 : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
	return ((uint64_t)hi << 32) | lo;
#else
	return rb_now_ns();
#endif
}

/* Median of n values (sorts v in place). */
double rb_median(double *v, int n);
/* calloc() that exits (status 2) when memory runs out; n 0 gives one. */
void *rb_xcalloc(size_t n, size_t size);

#define RGI_MIN_SZ(a, b) ((a) < (b) ? (a) : (b))

/* Keep the compiler from optimising a value away. */
#define rb_keep(x) __asm__ volatile("" ::"g"(x) : "memory")

/* ---- tables ---- */

enum rb_kind { RB_STR, RB_INT, RB_NUM };

struct rb_col {
	const char *key; /* JSON / CSV name */
	const char *header; /* table header */
	const char *legend; /* one line under the table; NULL: none */
	enum rb_kind kind;
	int decimals; /* for RB_NUM */
};

struct rb_table;

/*
 * rb_table_new() - a table for benchmark @name with @ncols columns.
 * The column array must outlive the table.
 */
struct rb_table *rb_table_new(const char *name, const struct rb_col *cols,
			      int ncols);
/* Add a "params" entry (printed above the table, in JSON "params"). */
void rb_table_param(struct rb_table *t, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Start a row; then set its cells by key (missing cells print as "-"). */
void rb_row(struct rb_table *t);
void rb_set_str(struct rb_table *t, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void rb_set_int(struct rb_table *t, const char *key, long long v);
void rb_set_num(struct rb_table *t, const char *key, double v);
/* Add a free-text note printed under the legend (table format only). */
void rb_table_note(struct rb_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print in ctx->format to ctx->out. */
void rb_table_print(struct rb_table *t, struct rb_ctx *ctx);
void rb_table_free(struct rb_table *t);

/* Print a message line to stderr (progress, skips): never into JSON. */
void rb_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- plots (--plot DIR) ---- */

/*
 * One chart of a table's rows, drawn by gnuplot into DIR/FILE.png and
 * DIR/FILE.svg (data in DIR/FILE.dat). Two shapes:
 * - lines (@x numeric): one line per value of @series (a comma list of
 *   column keys whose values name the line) and per @y column;
 * - bars (@x a text column, @bars true): one group of bars per value of
 *   @x; one bar per @series value (for @y[0]), or per @y column when
 *   @series is NULL.
 * Cells that are missing ("-") are left out; lines of the series named in
 * @dashed are drawn dashed (one that would hide another). Log axes get a tick
 * at every power of 10, labelled 10^k; the title names the seed, runs and date.
 */
struct rb_plot {
	const char *file; /* file name without extension */
	const char *title; /* "slab: cycles per object vs bulk size" */
	const char *x; /* column key of the x axis */
	const char *series; /* comma list of column keys, or NULL */
	const char *y[4]; /* column keys, NULL-terminated */
	const char *xlabel, *ylabel;
	const char *skip; /* comma list of @x values left out, or NULL */
	const char *dashed; /* lines: comma list of series drawn dashed */
	bool bars, logx, logy;
};

/* Draw @p from @t if --plot was given; a note says what was written. */
void rb_plot_table(struct rb_ctx *ctx, struct rb_table *t,
		   const struct rb_plot *p);
/*
 * rb_plot_path() - the path DIR/NAME for a --plot output file, where DIR
 * is ctx->plot; the string stays valid until the next call.
 */
const char *rb_plot_path(struct rb_ctx *ctx, const char *name);
/*
 * rb_plot_title() - a gnuplot title line for @what, naming the seed, the
 * runs and today's date, e.g. "regionbench regions: ... (seed 1, 5 runs,
 * 2026-12-01)"; the string stays valid until the next call.
 */
const char *rb_plot_title(struct rb_ctx *ctx, const char *what);

#endif /* RB_BENCH_H */
