// SPDX-License-Identifier: MIT
/*
 * regionbench: theory of operation.
 *
 * One program, many named benchmarks. Each bench/<name>.c registers a
 * subcommand from a constructor (RB_COMMAND), so adding a benchmark touches
 * no other file. main() parses the common options (--format, --seed, --runs,
 * --quick, --plot), prints the seed, and hands the remaining arguments to
 * the subcommand. Results go through one table type that prints an aligned
 * table with a legend defining every column, CSV, or JSON of the form
 * {"benchmark": NAME, "params": {...}, "rows": [{...}, ...]}.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static struct rb_command *commands;

void rb_register(struct rb_command *cmd)
{
	struct rb_command **pp = &commands;

	/* Keep the list sorted by name for --list. */
	while (*pp && strcmp((*pp)->name, cmd->name) < 0)
		pp = &(*pp)->next;
	cmd->next = *pp;
	*pp = cmd;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double rb_median(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void rb_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- tables ---- */

#define RB_MAX_PARAMS 16
#define RB_MAX_NOTES 16

struct rb_table {
	const char *name;
	const struct rb_col *cols;
	int ncols;
	int nrows, cap;
	char **cells; /* nrows * ncols, NULL = missing */
	int nparams;
	char *pkey[RB_MAX_PARAMS], *pval[RB_MAX_PARAMS];
	int nnotes;
	char *notes[RB_MAX_NOTES];
};

static char *rb_vfmt(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0) {
		perror("regionbench");
		exit(2);
	}
	return s;
}

void *rb_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		perror("regionbench");
		exit(2);
	}
	return p;
}

struct rb_table *rb_table_new(const char *name, const struct rb_col *cols,
			      int ncols)
{
	struct rb_table *t = rb_xcalloc(1, sizeof(*t));

	t->name = name;
	t->cols = cols;
	t->ncols = ncols;
	return t;
}

void rb_table_param(struct rb_table *t, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (t->nparams == RB_MAX_PARAMS)
		return;
	va_start(ap, fmt);
	t->pkey[t->nparams] = strdup(key);
	t->pval[t->nparams++] = rb_vfmt(fmt, ap);
	va_end(ap);
}

void rb_table_note(struct rb_table *t, const char *fmt, ...)
{
	va_list ap;

	if (t->nnotes == RB_MAX_NOTES)
		return;
	va_start(ap, fmt);
	t->notes[t->nnotes++] = rb_vfmt(fmt, ap);
	va_end(ap);
}

void rb_row(struct rb_table *t)
{
	if (t->nrows == t->cap) {
		int cap = t->cap ? 2 * t->cap : 16;
		char **c = realloc(t->cells,
				   sizeof(char *) * (size_t)cap * t->ncols);

		if (!c) {
			perror("regionbench");
			exit(2);
		}
		memset(c + (size_t)t->cap * t->ncols, 0,
		       sizeof(char *) * (size_t)(cap - t->cap) * t->ncols);
		t->cells = c;
		t->cap = cap;
	}
	t->nrows++;
}

static int rb_col_index(struct rb_table *t, const char *key)
{
	for (int i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i].key, key))
			return i;
	fprintf(stderr, "regionbench: table %s has no column %s\n", t->name,
		key);
	exit(2);
}

static void rb_set(struct rb_table *t, const char *key, char *s)
{
	char **cell = &t->cells[(size_t)(t->nrows - 1) * t->ncols +
				rb_col_index(t, key)];

	free(*cell);
	*cell = s;
}

void rb_set_str(struct rb_table *t, const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rb_set(t, key, rb_vfmt(fmt, ap));
	va_end(ap);
}

void rb_set_int(struct rb_table *t, const char *key, long long v)
{
	char *s = NULL;

	if (asprintf(&s, "%lld", v) < 0)
		exit(2);
	rb_set(t, key, s);
}

void rb_set_num(struct rb_table *t, const char *key, double v)
{
	int d = t->cols[rb_col_index(t, key)].decimals;
	char *s = NULL;

	if (asprintf(&s, "%.*f", d, v) < 0)
		exit(2);
	rb_set(t, key, s);
}

static void rb_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void rb_print_json(struct rb_table *t, FILE *f)
{
	fprintf(f, "{\"benchmark\": ");
	rb_json_str(f, t->name);
	fprintf(f, ", \"params\": {");
	for (int i = 0; i < t->nparams; i++) {
		fprintf(f, "%s", i ? ", " : "");
		rb_json_str(f, t->pkey[i]);
		fprintf(f, ": ");
		rb_json_str(f, t->pval[i]);
	}
	fprintf(f, "}, \"rows\": [");
	for (int r = 0; r < t->nrows; r++) {
		int first = 1;

		fprintf(f, "%s\n  {", r ? "," : "");
		for (int c = 0; c < t->ncols; c++) {
			const char *v = t->cells[(size_t)r * t->ncols + c];

			if (!v)
				continue;
			fprintf(f, "%s", first ? "" : ", ");
			first = 0;
			rb_json_str(f, t->cols[c].key);
			fprintf(f, ": ");
			if (t->cols[c].kind == RB_STR)
				rb_json_str(f, v);
			else
				fprintf(f, "%s", v);
		}
		fprintf(f, "}");
	}
	fprintf(f, "\n]}\n");
}

static void rb_print_csv(struct rb_table *t, FILE *f)
{
	for (int c = 0; c < t->ncols; c++)
		fprintf(f, "%s%s", c ? "," : "", t->cols[c].key);
	fputc('\n', f);
	for (int r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			const char *v = t->cells[(size_t)r * t->ncols + c];

			fprintf(f, "%s%s", c ? "," : "", v ? v : "");
		}
		fputc('\n', f);
	}
}

static void rb_print_table(struct rb_table *t, FILE *f)
{
	int w[64];

	fprintf(f, "== %s", t->name);
	for (int i = 0; i < t->nparams; i++)
		fprintf(f, "%s%s=%s", i ? " " : "  (", t->pkey[i], t->pval[i]);
	fprintf(f, "%s\n", t->nparams ? ")" : "");
	for (int c = 0; c < t->ncols && c < 64; c++) {
		w[c] = (int)strlen(t->cols[c].header);
		for (int r = 0; r < t->nrows; r++) {
			const char *v = t->cells[(size_t)r * t->ncols + c];
			int l = v ? (int)strlen(v) : 1;

			w[c] = l > w[c] ? l : w[c];
		}
	}
	for (int c = 0; c < t->ncols; c++)
		fprintf(f, "%s%*s", c ? "  " : "", w[c], t->cols[c].header);
	fputc('\n', f);
	for (int r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols; c++) {
			const char *v = t->cells[(size_t)r * t->ncols + c];

			fprintf(f, "%s%*s", c ? "  " : "", w[c], v ? v : "-");
		}
		fputc('\n', f);
	}
	fprintf(f, "\nLegend:\n");
	for (int c = 0; c < t->ncols; c++)
		if (t->cols[c].legend)
			fprintf(f, "  %-*s %s\n", 18, t->cols[c].header,
				t->cols[c].legend);
	for (int i = 0; i < t->nnotes; i++)
		fprintf(f, "%s%s\n", i ? "" : "\n", t->notes[i]);
	fputc('\n', f);
}

void rb_table_print(struct rb_table *t, struct rb_ctx *ctx)
{
	switch (ctx->format) {
	case RB_JSON:
		rb_print_json(t, ctx->out);
		break;
	case RB_CSV:
		rb_print_csv(t, ctx->out);
		break;
	default:
		rb_print_table(t, ctx->out);
	}
	fflush(ctx->out);
}

void rb_table_free(struct rb_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < (size_t)t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	for (int i = 0; i < t->nparams; i++) {
		free(t->pkey[i]);
		free(t->pval[i]);
	}
	for (int i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	free(t);
}

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: regionbench [common options] COMMAND [options]\n"
		"       regionbench --list\n\n"
		"common options:\n"
		"  --format table|csv|json   output format (default table)\n"
		"  --seed N                  random seed (default 1; printed)\n"
		"  --runs N                  repetitions, median reported "
		"(default 5)\n"
		"  --quick                   small sizes (smoke test)\n"
		"  --plot PREFIX             write PNG/SVG charts where "
		"supported\n\ncommands:\n");
	for (struct rb_command *c = commands; c; c = c->next)
		fprintf(f, "  %-16s %s\n", c->name, c->help);
}

int main(int argc, char **argv)
{
	struct rb_ctx ctx = { .format = RB_TABLE,
			      .seed = 1,
			      .runs = 5,
			      .out = stdout,
			      .argv = argv };
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--list")) {
			for (struct rb_command *c = commands; c; c = c->next)
				printf("%s\n", c->name);
			return 0;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--quick")) {
			ctx.quick = true;
		} else if (!v) {
			fprintf(stderr, "regionbench: %s needs a value\n", a);
			return 2;
		} else if (!strcmp(a, "--format")) {
			if (!strcmp(v, "table"))
				ctx.format = RB_TABLE;
			else if (!strcmp(v, "csv"))
				ctx.format = RB_CSV;
			else if (!strcmp(v, "json"))
				ctx.format = RB_JSON;
			else {
				fprintf(stderr,
					"regionbench: unknown format %s\n", v);
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--seed")) {
			ctx.seed = strtoull(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "--runs")) {
			ctx.runs = atoi(v);
			if (ctx.runs < 1)
				ctx.runs = 1;
			i++;
		} else if (!strcmp(a, "--plot")) {
			ctx.plot = v;
			i++;
		} else {
			break; /* a subcommand option before the command */
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	for (struct rb_command *c = commands; c; c = c->next) {
		if (strcmp(c->name, argv[i]))
			continue;
		rb_note("regionbench %s: seed %" PRIu64 ", %d runs%s", c->name,
			ctx.seed, ctx.runs, ctx.quick ? ", quick" : "");
		optind = 1;
		return c->run(&ctx, argc - i, argv + i);
	}
	fprintf(stderr, "regionbench: unknown command %s\n", argv[i]);
	usage(stderr);
	return 2;
}
