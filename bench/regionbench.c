// SPDX-License-Identifier: MIT
/*
 * regionbench: theory of operation.
 *
 * One program, many named benchmarks. Each bench/<name>.c registers a
 * subcommand from a constructor (RB_COMMAND), so adding a benchmark touches
 * no other file. main() parses the common options that come before the
 * subcommand and hands the rest to it; the subcommand calls rb_parse() with
 * its own option table, which parses its options and the common ones (so
 * those work before or after the subcommand) and prints the seed. Every
 * option is one table entry: a name, a value kind (an integer with a range,
 * a number with a range, a choice, a string, a flag) and a help line; the
 * same entry drives parsing, the error message for a bad value, and
 * --help. Bad input prints one line naming the option and exits 2.
 *
 * Results go through one table type that prints an aligned table, CSV, or
 * JSON of the form {"benchmark": NAME, "params": {...}, "rows": [...]}. In
 * table form each column's legend line is printed once per run, under the
 * first table that has the column. main() ends a successful run with a
 * summary line on stderr (tables, runs, seed, seconds).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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

/*
 * One legend per run: a column's line is printed under the first table
 * that has it (same header, same text) and not repeated.
 */
#define RB_MAX_LEGEND 256
static const char *legend_seen[RB_MAX_LEGEND][2];
static int nlegend_seen, tables_printed;

static bool legend_new(const struct rb_col *c)
{
	for (int i = 0; i < nlegend_seen; i++)
		if (!strcmp(legend_seen[i][0], c->header) &&
		    !strcmp(legend_seen[i][1], c->legend))
			return false;
	if (nlegend_seen < RB_MAX_LEGEND) {
		legend_seen[nlegend_seen][0] = c->header;
		legend_seen[nlegend_seen++][1] = c->legend;
	}
	return true;
}

static void rb_print_legend(struct rb_table *t, FILE *f)
{
	bool any = false;

	for (int c = 0; c < t->ncols; c++) {
		if (!t->cols[c].legend || !legend_new(&t->cols[c]))
			continue;
		if (!any)
			fprintf(f, "\nLegend:\n");
		any = true;
		fprintf(f, "  %-*s %s\n", 18, t->cols[c].header,
			t->cols[c].legend);
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
	rb_print_legend(t, f);
	for (int i = 0; i < t->nnotes; i++)
		fprintf(f, "%s%s\n", i ? "" : "\n", t->notes[i]);
	fputc('\n', f);
}

static const char *c_json_to; /* --json-to FILE, a common option */

void rb_table_print(struct rb_table *t, struct rb_ctx *ctx)
{
	tables_printed++;
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
	if (c_json_to) {
		FILE *f = fopen(c_json_to, "a");

		if (!f)
			rb_die("--json-to: '%s': %s", c_json_to,
			       strerror(errno));
		rb_print_json(t, f);
		fputc('\n', f);
		fclose(f);
	}
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

/* ---- options ---- */

void rb_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("regionbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static const char *const format_names[] = { "table", "csv", "json", NULL };

/* The common options' values, copied into the context after each parse. */
static int c_format;
static unsigned long c_seed = 1, c_runs = 5;
static bool c_quick;
static const char *c_plot;

static struct rb_opt common_opts[] = {
	RB_OPT_CHOICE("format", &c_format, format_names,
		      "output format (default table)"),
	RB_OPT_UINT("seed", &c_seed, 0, ULONG_MAX, "N",
		    "random seed (default 1; printed)"),
	RB_OPT_UINT("runs", &c_runs, 1, 1000, "N",
		    "repetitions, the median is reported (default 5)"),
	RB_OPT_FLAG("quick", &c_quick,
		    "small default sizes (smoke test); explicit sizes win"),
	RB_OPT_STR("plot", &c_plot, "DIR",
		   "write gnuplot charts (PNG and SVG) into the existing "
		   "folder DIR"),
	RB_OPT_STR("json-to", &c_json_to, "FILE",
		   "also append every table to FILE as JSON documents, one "
		   "after another (make bench's summary reads them)"),
	RB_OPT_END,
};

/* Multiply with an overflow check. */
static bool mul_ok(unsigned long a, unsigned long b, unsigned long *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

/* Digits only, no sign, no space, no overflow. */
static bool parse_digits(const char *s, const char *end, unsigned long *out)
{
	unsigned long v = 0;

	if (s == end)
		return false;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9' || !mul_ok(v, 10, &v) ||
		    __builtin_add_overflow(v, (unsigned long)(*s - '0'), &v))
			return false;
	}
	*out = v;
	return true;
}

/* "123", "1e6" (123 * 10^6) or "10^6"; the whole string. */
bool rb_parse_uint(const char *s, unsigned long *out)
{
	const char *end = s + strlen(s), *e = strpbrk(s, "eE^");
	unsigned long base, exp, v = 1;

	if (!e)
		return parse_digits(s, end, out);
	if (!parse_digits(s, e, &base) || !parse_digits(e + 1, end, &exp))
		return false;
	if (*e == '^' && base <= 1) {
		v = exp ? base : 1; /* 0^k and 1^k without a loop */
	} else if (*e == '^') {
		for (unsigned long i = 0; i < exp; i++)
			if (!mul_ok(v, base, &v))
				return false;
	} else {
		v = base;
		for (unsigned long i = 0; i < exp && v; i++)
			if (!mul_ok(v, 10, &v))
				return false;
	}
	*out = v;
	return true;
}

static void bad_uint(const char *name, const char *v, unsigned long min,
		     unsigned long max)
{
	rb_die("--%s: '%s' is not an integer in %lu..%lu", name, v, min, max);
}

int rb_parse_uint_list(const char *name, const char *s, unsigned long min,
		       unsigned long max, unsigned long *out, int maxn)
{
	char *dup = strdup(s), *save = NULL;
	int n = 0;

	if (!dup)
		rb_die("out of memory");
	if (!*s || s[strlen(s) - 1] == ',' || strstr(s, ",,") || *s == ',')
		rb_die("--%s: '%s' is not a comma list of integers in "
		       "%lu..%lu",
		       name, s, min, max);
	for (char *t = strtok_r(dup, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		unsigned long v;

		if (!rb_parse_uint(t, &v) || v < min || v > max)
			bad_uint(name, t, min, max);
		if (n == maxn)
			rb_die("--%s: at most %d values", name, maxn);
		out[n++] = v;
	}
	free(dup);
	return n;
}

/* The index of @v (@len bytes) in @o's choices, or exit 2 listing them. */
static int choice_index(const struct rb_opt *o, const char *v, size_t len)
{
	char list[256] = "";

	for (int i = 0; o->choices[i]; i++) {
		if (strlen(o->choices[i]) == len &&
		    !strncmp(v, o->choices[i], len))
			return i;
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%s", i ? ", " : "", o->choices[i]);
	}
	rb_die("--%s: '%.*s' is not one of %s", o->name, (int)len, v, list);
}

static void set_value(struct rb_opt *o, const char *v)
{
	char *end;

	switch (o->kind) {
	case RB_K_UINT: {
		unsigned long x;

		if (!rb_parse_uint(v, &x) || x < o->min || x > o->max)
			bad_uint(o->name, v, o->min, o->max);
		*(unsigned long *)o->dest = x;
		break;
	}
	case RB_K_NUM: {
		double x;

		errno = 0;
		x = strtod(v, &end);
		if (!*v || *end || errno || !(x >= (double)o->min) ||
		    !(x <= (double)o->max))
			rb_die("--%s: '%s' is not a number in %lu..%lu",
			       o->name, v, o->min, o->max);
		*(double *)o->dest = x;
		break;
	}
	case RB_K_CHOICE:
		*(int *)o->dest = choice_index(o, v, strlen(v));
		break;
	case RB_K_CHOICES: {
		unsigned long mask = 0;

		for (const char *p = v;; p++) {
			size_t l = strcspn(p, ",");

			mask |= 1UL << choice_index(o, p, l);
			p += l;
			if (!*p)
				break;
		}
		*(unsigned long *)o->dest = mask;
		break;
	}
	case RB_K_STR:
		*(const char **)o->dest = v;
		break;
	case RB_K_FLAG:
		*(bool *)o->dest = true;
		break;
	}
}

static struct rb_opt *find_opt(struct rb_opt *opts, const char *name,
			       size_t len)
{
	for (; opts && opts->name; opts++)
		if (strlen(opts->name) == len &&
		    !strncmp(opts->name, name, len))
			return opts;
	return NULL;
}

bool rb_given(const struct rb_opt *opts, const char *name)
{
	for (; opts->name; opts++)
		if (!strcmp(opts->name, name))
			return opts->given;
	return false;
}

/* Copy the common options into @ctx and check --plot's folder. */
static void sync_common(struct rb_ctx *ctx)
{
	struct stat st;

	ctx->format = (enum rb_format)c_format;
	ctx->seed = c_seed;
	ctx->runs = (int)c_runs;
	ctx->quick = c_quick;
	ctx->plot = c_plot;
	if (c_plot && stat(c_plot, &st))
		rb_die("--plot: '%s': %s (the folder must exist)", c_plot,
		       strerror(errno));
	if (c_plot && !S_ISDIR(st.st_mode))
		rb_die("--plot: '%s' is not a folder", c_plot);
	if (c_plot && system("command -v gnuplot >/dev/null 2>&1"))
		rb_die("--plot: gnuplot is not installed");
}

/*
 * Parse one option at argv[*i] against @opts, then the common options.
 * Return: true if it was one (and *i moved past its value).
 */
static bool parse_option(struct rb_opt *opts, int argc, char **argv, int *i)
{
	const char *a = argv[*i] + 2, *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	struct rb_opt *o = find_opt(opts, a, len);

	if (!o)
		o = find_opt(common_opts, a, len);
	if (!o)
		return false;
	o->given = true;
	if (o->kind == RB_K_FLAG) {
		if (eq)
			rb_die("--%s takes no value", o->name);
		set_value(o, NULL);
		return true;
	}
	if (eq) {
		set_value(o, eq + 1);
		return true;
	}
	if (*i + 1 >= argc)
		rb_die("--%s needs a value (%s)", o->name,
		       o->arg ? o->arg : "");
	set_value(o, argv[++*i]);
	return true;
}

/* Print @a then @b as words wrapped at 79 columns, indented by 29. */
static void print_wrapped(FILE *f, const char *a, const char *b)
{
	char text[512], *save = NULL;
	int col = 29;
	bool first = true;

	snprintf(text, sizeof(text), "%s%s", a, b);
	for (char *w = strtok_r(text, " ", &save); w;
	     w = strtok_r(NULL, " ", &save)) {
		int l = (int)strlen(w);

		if (!first && col + 1 + l > 79) {
			fprintf(f, "\n%29s", "");
			col = 29;
			first = true;
		}
		col += fprintf(f, "%s%s", first ? "" : " ", w);
		first = false;
	}
	fputc('\n', f);
}

static void print_opts(FILE *f, const struct rb_opt *o)
{
	for (; o->name; o++) {
		char left[192], range[96] = "";

		if (o->kind == RB_K_CHOICE || o->kind == RB_K_CHOICES) {
			char list[128] = "";

			for (int i = 0; o->choices[i]; i++)
				snprintf(list + strlen(list),
					 sizeof(list) - strlen(list), "%s%s",
					 i ? o->kind == RB_K_CHOICE ? "|" :
								      "," :
					     "",
					 o->choices[i]);
			snprintf(left, sizeof(left), "--%s %s", o->name, list);
		} else {
			snprintf(left, sizeof(left), "--%s%s%s", o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		}
		if (o->kind == RB_K_UINT || o->kind == RB_K_NUM)
			snprintf(range, sizeof(range), " [%lu..%lu]", o->min,
				 o->max);
		if (strlen(left) > 26)
			fprintf(f, "  %s\n%29s", left, "");
		else
			fprintf(f, "  %-26s ", left);
		print_wrapped(f, o->help, range);
	}
}

static void command_usage(FILE *f, const struct rb_command *c,
			  const struct rb_opt *opts)
{
	fprintf(f, "usage: regionbench [common options] %s [options]%s%s\n",
		c->name, c->args ? " " : "", c->args ? c->args : "");
	fprintf(f, "%s: %s\n", c->name, c->help);
	if (opts && opts->name) {
		fprintf(f, "\noptions:\n");
		print_opts(f, opts);
	}
	fprintf(f, "\ncommon options (before or after %s; --x=y or --x y):\n",
		c->name);
	print_opts(f, common_opts);
	if (c->more)
		fprintf(f, "\n%s", c->more);
}

void rb_parse(struct rb_ctx *ctx, struct rb_opt *opts, int argc, char **argv)
{
	const struct rb_command *c = ctx->cmd;
	bool rest = false;

	ctx->args = rb_xcalloc((size_t)argc, sizeof(char *));
	ctx->nargs = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (rest || a[0] != '-' || !strcmp(a, "-")) {
			if (!c->args)
				rb_die("%s: unexpected argument '%s' (see "
				       "regionbench %s --help)",
				       c->name, a, c->name);
			ctx->args[ctx->nargs++] = argv[i];
		} else if (!strcmp(a, "--")) {
			rest = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			command_usage(stdout, c, opts);
			exit(0);
		} else if (!strcmp(a, "--version")) {
			printf("regionbench %s\n", RB_VERSION);
			exit(0);
		} else if (a[1] != '-' || !parse_option(opts, argc, argv, &i)) {
			rb_die("%s: unknown option '%s' (see regionbench %s "
			       "--help)",
			       c->name, a, c->name);
		}
	}
	sync_common(ctx);
	rb_note("regionbench %s: seed %" PRIu64 ", %d runs%s", c->name,
		ctx->seed, ctx->runs, ctx->quick ? ", quick" : "");
}

const char *rb_plot_path(struct rb_ctx *ctx, const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/%s", ctx->plot, name);
	return path;
}

const char *rb_plot_title(struct rb_ctx *ctx, const char *what)
{
	static char title[512];
	char date[32];
	time_t now = time(NULL);
	struct tm tm;

	strftime(date, sizeof(date), "%Y-%m-%d", gmtime_r(&now, &tm));
	snprintf(title, sizeof(title),
		 "regionbench %s (seed %" PRIu64 ", %d run%s, %s)", what,
		 ctx->seed, ctx->runs, ctx->runs == 1 ? "" : "s", date);
	return title;
}

/* The text of cell (@r, key @key), or NULL when missing. */
static const char *cell(struct rb_table *t, int r, const char *key)
{
	return t->cells[(size_t)r * t->ncols + rb_col_index(t, key)];
}

/* The label of row @r's series: the @series keys' values, space-joined. */
static void series_label(struct rb_table *t, int r, const char *series,
			 char *buf, size_t len)
{
	char keys[128], *save = NULL;

	buf[0] = 0;
	if (!series)
		return;
	snprintf(keys, sizeof(keys), "%s", series);
	for (char *k = strtok_r(keys, ",", &save); k;
	     k = strtok_r(NULL, ",", &save)) {
		const char *v = cell(t, r, k);

		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 buf[0] ? " " : "", v ? v : "-");
	}
}

/* Distinct values of fn(row) in order of appearance; returns the count. */
#define RB_PLOT_MAX 64
static int distinct(char (*vals)[64], int n, const char *v)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(vals[i], v))
			return n;
	if (n == RB_PLOT_MAX)
		return n;
	snprintf(vals[n], 64, "%s", v);
	return n + 1;
}

static int index_of(char (*vals)[64], int n, const char *v)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(vals[i], v))
			return i;
	return -1;
}

static const char *col_header(struct rb_table *t, const char *key)
{
	return t->cols[rb_col_index(t, key)].header;
}

/* Whether @v is one of the comma list @list (NULL: empty). */
static bool in_list(const char *list, const char *v)
{
	size_t l = strlen(v);

	for (const char *s = list; s && *s; s += strcspn(s, ",")) {
		s += *s == ',';
		if (!strncmp(s, v, l) && (s[l] == ',' || !s[l]))
			return true;
	}
	return false;
}

/* Whether row @r is in the chart: its x is present and not skipped. */
static bool plot_row(struct rb_table *t, int r, const struct rb_plot *p)
{
	const char *x = cell(t, r, p->x);

	return x && !in_list(p->skip, x);
}

/* Write the data file; returns the number of series (lines or bars). */
static int plot_data(struct rb_table *t, const struct rb_plot *p, FILE *f,
		     char (*ser)[64], char (*cat)[64], int *ncat)
{
	char lab[64];
	int nser = 0, ny = 0;

	while (p->y[ny])
		ny++;
	*ncat = 0;
	for (int r = 0; r < t->nrows; r++) {
		if (!plot_row(t, r, p))
			continue;
		series_label(t, r, p->series, lab, sizeof(lab));
		nser = distinct(ser, nser, lab);
		if (p->bars)
			*ncat = distinct(cat, *ncat, cell(t, r, p->x));
	}
	if (!p->bars) {
		/* One block per series: x y1 y2 ...; blocks split by 2 blank
		 * lines so gnuplot's "index" selects one. */
		for (int s = 0; s < nser; s++) {
			fprintf(f, "# %s\n", ser[s]);
			for (int r = 0; r < t->nrows; r++) {
				const char *x = cell(t, r, p->x);

				series_label(t, r, p->series, lab, sizeof(lab));
				if (!plot_row(t, r, p) || strcmp(lab, ser[s]))
					continue;
				fprintf(f, "%s", x);
				for (int j = 0; j < ny; j++) {
					const char *v = cell(t, r, p->y[j]);

					fprintf(f, " %s", v ? v : "?");
				}
				fputc('\n', f);
			}
			fprintf(f, "\n\n");
		}
		return nser * ny;
	}
	/* Bars: one row per category, one column per series (or y). */
	for (int c = 0; c < *ncat; c++) {
		char vals[RB_PLOT_MAX][32];
		int nv = p->series ? nser : ny;

		for (int i = 0; i < nv; i++)
			snprintf(vals[i], sizeof(vals[i]), "?");
		for (int r = 0; r < t->nrows; r++) {
			const char *x = cell(t, r, p->x), *v;

			if (!plot_row(t, r, p) || strcmp(x, cat[c]))
				continue;
			series_label(t, r, p->series, lab, sizeof(lab));
			for (int j = 0; j < (p->series ? 1 : ny); j++) {
				int i = p->series ? index_of(ser, nser, lab) :
						    j;

				v = cell(t, r, p->y[j]);
				if (i >= 0 && v)
					snprintf(vals[i], sizeof(vals[i]), "%s",
						 v);
			}
		}
		fprintf(f, "\"%s\"", cat[c]);
		for (int i = 0; i < nv; i++)
			fprintf(f, " %s", vals[i]);
		fputc('\n', f);
	}
	return p->series ? nser : ny;
}

static void plot_axes(FILE *g, const struct rb_plot *p)
{
	/* Labels are names such as alloc_range: no enhanced-text markup. */
	fprintf(g, "set grid\nset key outside right top noenhanced\n"
		   "set datafile missing '?'\n");
	if (!p->logx)
		fprintf(g, "set xtics noenhanced\n");
	if (p->logx)
		fprintf(g, "set logscale x 10\nset xtics 10\n"
			   "set format x '10^{%%L}'\n");
	if (p->logy)
		fprintf(g, "set logscale y 10\nset ytics 10\n"
			   "set format y '10^{%%L}'\n");
	else
		fprintf(g, "set yrange [0:*]\n");
	fprintf(g, "set xlabel '%s'\nset ylabel '%s'\n", p->xlabel, p->ylabel);
}

void rb_plot_table(struct rb_ctx *ctx, struct rb_table *t,
		   const struct rb_plot *p)
{
	static char ser[RB_PLOT_MAX][64], cat[RB_PLOT_MAX][64];
	char base[4096], title[600];
	int n, ncat, ny = 0;
	FILE *f, *g;

	if (!ctx->plot || !t->nrows)
		return;
	while (p->y[ny])
		ny++;
	snprintf(base, sizeof(base), "%s", rb_plot_path(ctx, p->file));
	snprintf(title, sizeof(title), "%s", rb_plot_title(ctx, p->title));
	{
		char path[4200];

		snprintf(path, sizeof(path), "%s.dat", base);
		f = fopen(path, "w");
		if (!f)
			rb_die("--plot: %s: %s", path, strerror(errno));
	}
	n = plot_data(t, p, f, ser, cat, &ncat);
	fclose(f);
	g = popen("gnuplot", "w");
	if (!g)
		rb_die("--plot: cannot run gnuplot: %s", strerror(errno));
	for (int term = 0; term < 2; term++) {
		fprintf(g, "set terminal %s\nset output '%s.%s'\n",
			term ? "svg size 1000,600 dynamic" :
			       "pngcairo size 1000,600",
			base, term ? "svg" : "png");
		fprintf(g, "set title '%s' noenhanced\n", title);
		plot_axes(g, p);
		if (p->bars)
			fprintf(g, "set style data histograms\n"
				   "set style histogram clustered gap 1\n"
				   "set style fill solid 0.8 border -1\n"
				   "set xtics rotate by -30\n");
		fprintf(g, "plot ");
		for (int i = 0; i < n; i++) {
			const char *sep = i ? ", " : "";

			if (p->bars)
				fprintf(g, "%s'%s.dat' using %d%s title '%s'",
					sep, base, i + 2, i ? "" : ":xtic(1)",
					p->series ? ser[i] :
						    col_header(t, p->y[i]));
			else
				fprintf(g,
					"%s'%s.dat' index %d using 1:%d with "
					"linespoints lc %d dt %d title '%s%s%s'",
					sep, base, i / ny, i % ny + 2,
					i / ny + 1,
					i % ny + 1 +
						(in_list(p->dashed,
							 ser[i / ny]) ?
							 ny :
							 0),
					ser[i / ny],
					ny > 1 && ser[i / ny][0] ? " " : "",
					ny > 1 ? col_header(t, p->y[i % ny]) :
						 "");
		}
		fprintf(g, "\nunset output\n");
	}
	if (pclose(g) != 0)
		rb_die("--plot: gnuplot failed on %s.dat", base);
	rb_note("regionbench %s: wrote %s.png and %s.svg", ctx->cmd->name, base,
		base);
}

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f, "usage: regionbench [common options] COMMAND [options]\n"
		   "       regionbench --list | --version | --help\n"
		   "       regionbench COMMAND --help\n\n"
		   "common options (before or after COMMAND; --x=y or "
		   "--x y):\n");
	print_opts(f, common_opts);
	fprintf(f, "\ncommands:\n");
	for (struct rb_command *c = commands; c; c = c->next)
		fprintf(f, "  %-16s %s\n", c->name, c->help);
	fprintf(f, "\nBad input (an unknown option or command, a value out of "
		   "range) prints one\nline naming it and exits with status "
		   "2; a failed check exits 1.\n");
}

int main(int argc, char **argv)
{
	struct rb_ctx ctx = { .format = RB_TABLE,
			      .seed = 1,
			      .runs = 5,
			      .out = stdout,
			      .argv = argv };
	uint64_t t0 = rb_now_ns();
	int i, ret;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--list")) {
			for (struct rb_command *c = commands; c; c = c->next)
				printf("%s\n", c->name);
			return 0;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			printf("regionbench %s\n", RB_VERSION);
			return 0;
		} else if (a[1] != '-' || !parse_option(NULL, argc, argv, &i)) {
			rb_die("unknown option '%s' (see regionbench --help)",
			       a);
		}
	}
	if (i >= argc) {
		usage(stderr);
		rb_die("no command given");
	}
	for (struct rb_command *c = commands; c; c = c->next) {
		if (strcmp(c->name, argv[i]))
			continue;
		ctx.cmd = c;
		ret = c->run(&ctx, argc - i, argv + i);
		if (!ret)
			rb_note("regionbench: %s: %d table%s, %d run%s each, "
				"seed %" PRIu64 ", %.1f s",
				c->name, tables_printed,
				tables_printed == 1 ? "" : "s", ctx.runs,
				ctx.runs == 1 ? "" : "s", ctx.seed,
				(double)(rb_now_ns() - t0) / 1e9);
		free(ctx.args);
		return ret;
	}
	rb_die("unknown command '%s' (regionbench --list shows them)", argv[i]);
}
