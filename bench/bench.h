/* SPDX-License-Identifier: MIT */
/*
 * regionbench framework: subcommand registry, common options, timing,
 * medians, and one table type printed as an aligned table with a legend,
 * as CSV, or as JSON ({"benchmark", "params", "rows"}).
 *
 * A subcommand lives in its own bench/<name>.c and registers itself:
 *
 *	static int run_slab(struct rb_ctx *ctx, int argc, char **argv);
 *	RB_COMMAND(slab, "slab", "slab caches: bulk vs single (seed 003)",
 *		   run_slab);
 *
 * It parses its own extra options (getopt on argc/argv after the common
 * ones are removed), builds an rb_table with rb_table_new(), adds rows and
 * calls rb_table_print().
 */
#ifndef RB_BENCH_H
#define RB_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

enum rb_format { RB_TABLE, RB_CSV, RB_JSON };

struct rb_ctx {
	enum rb_format format;
	uint64_t seed;
	int runs;       /* repetitions; medians are taken over them */
	bool quick;     /* smaller sizes: smoke runs in the test suite */
	const char *plot; /* --plot PREFIX or NULL */
	FILE *out;
	char **argv; /* the whole command line, for a re-exec */
};

typedef int (*rb_run_fn)(struct rb_ctx *ctx, int argc, char **argv);

struct rb_command {
	const char *name;
	const char *help;
	rb_run_fn run;
	struct rb_command *next;
};

void rb_register(struct rb_command *cmd);

#define RB_COMMAND(id, name, helptext, fn)                                 \
	static struct rb_command rb_cmd_##id = { name, helptext, fn, NULL };  \
	__attribute__((constructor)) static void rb_register_##id(void)    \
	{                                                                  \
		rb_register(&rb_cmd_##id);                                 \
	}

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
	const char *key;    /* JSON / CSV name */
	const char *header; /* table header */
	const char *legend; /* one line under the table; NULL: none */
	enum rb_kind kind;
	int decimals;       /* for RB_NUM */
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

#endif /* RB_BENCH_H */
