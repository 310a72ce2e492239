// SPDX-License-Identifier: MIT
/*
 * rgsh: a scripted driver for libregion's structures, one command a line.
 *
 * Usage: rgsh [-q] [FILE...]   (no FILE, or "-": standard input)
 *
 * It drives one structure at a time by hand, and it is the form in which a
 * bug reproducer is written down: tests/regress/ holds one script per fixed
 * bug, and make test runs them.
 *
 * The script
 * ----------
 * Blank lines and everything after '#' are ignored. The first word of a
 * line is the command, the rest its arguments. A structure command starts
 * a new structure (the previous one is destroyed):
 *
 *	region BACKEND CAPACITY [POLICY] [locked]   bitmap|ida|maple|hbitmap|extent
 *	maple [alloc] [rcu]                          a Maple Tree (flags)
 *	xarray [alloc|alloc1]                        an xarray (flags)
 *	ida                                          an IDA
 *	bitmap NBITS                                 a bitmap
 *
 * Operations on the current structure:
 *
 *	region	alloc N [ALIGN] -> start; free START N; reserve START N;
 *		test UNIT -> 0|1
 *	maple	store FIRST LAST ENTRY; insert FIRST LAST ENTRY;
 *		erase INDEX -> entry; load INDEX -> entry;
 *		alloc SIZE MIN MAX ENTRY -> start
 *	xarray	store INDEX ENTRY; insert INDEX ENTRY; erase INDEX -> entry;
 *		load INDEX -> entry; cmpxchg INDEX OLD NEW -> errno entry;
 *		reserve INDEX; release INDEX; alloc MIN MAX ENTRY -> id;
 *		find INDEX MAX, find_after INDEX MAX -> index entry | NULL
 *		(the index in hexadecimal)
 *	ida	alloc|ida_alloc [MIN [MAX]] -> id; free|ida_free ID;
 *		test ID -> 0|1
 *	bitmap	alloc N [ALIGN] -> start (a free aligned run, now set);
 *		free START N; set START N; test BIT -> 0|1; weight -> count
 *	any	empty -> true|false; bytes -> bytes held; dump; validate
 *
 * Numbers are C literals (0x..., 010) or "max" (ULONG_MAX). An ENTRY is
 * NULL, vN (the value entry N, rg_xa_mk_value()) or rN (the raw pointer
 * bits N, for reserved values such as r2). Results print as such.
 *
 * Checking
 * --------
 *	expect RESULT   the previous operation's result must read RESULT
 *			(a number, an entry, true/false, or an errno name such
 *			as -ENOMEM; for cmpxchg "-EBUSY v5", errno then entry)
 *	fault N         the Nth allocation of the next operation fails
 *	validate        the structure's validate call must pass (on failure
 *			the structure is dumped)
 *
 * Exit status: 0 when every expect and validate held; 1 at the first that
 * did not; 2 for a script error (unknown command, bad argument).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libregion.h"

#define MAX_ARGS 8

enum kind { K_NONE, K_REGION, K_MAPLE, K_XARRAY, K_IDA, K_BITMAP };

static struct {
	enum kind kind;
	struct rg_region *region;
	struct rg_maple_tree mt;
	struct rg_xarray xa;
	struct rg_ida ida;
	unsigned long *map;
	unsigned long nbits;
} s;

static const char *file_name;
static unsigned long line_no;
static bool quiet;
static char result[160];

static void die(int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%lu: ", file_name, line_no);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static const char *errno_name(int err)
{
	static char buf[16];

	switch (err) {
	case -EINVAL:
		return "-EINVAL";
	case -ENOMEM:
		return "-ENOMEM";
	case -ENOSPC:
		return "-ENOSPC";
	case -EBUSY:
		return "-EBUSY";
	case -EEXIST:
		return "-EEXIST";
	case -ENOENT:
		return "-ENOENT";
	case -EOPNOTSUPP:
		return "-EOPNOTSUPP";
	case -ERANGE:
		return "-ERANGE";
	default:
		snprintf(buf, sizeof(buf), "%d", err);
		return buf;
	}
}

static unsigned long num(const char *a)
{
	char *end;
	unsigned long v;

	if (!a)
		die(2, "a number is missing");
	if (!strcmp(a, "max"))
		return ULONG_MAX;
	errno = 0;
	v = strtoul(a, &end, 0);
	if (errno || *end || a[0] == '-')
		die(2, "'%s' is not a number", a);
	return v;
}

static void *entry(const char *a)
{
	if (!a)
		die(2, "an entry is missing");
	if (!strcmp(a, "NULL"))
		return NULL;
	if (a[0] == 'v')
		return rg_xa_mk_value(num(a + 1));
	if (a[0] == 'r')
		return (void *)(uintptr_t)num(a + 1);
	die(2, "'%s' is not an entry (NULL, vN or rN)", a);
	return NULL;
}

static const char *entry_str(const void *e)
{
	static char buf[40];

	if (!e)
		return "NULL";
	if (rg_xa_is_value(e))
		snprintf(buf, sizeof(buf), "v%lu", rg_xa_to_value(e));
	else
		snprintf(buf, sizeof(buf), "r%#lx",
			 (unsigned long)(uintptr_t)e);
	return buf;
}

/* The result of a status call: 0, or its errno name. */
static void set_status(int err)
{
	snprintf(result, sizeof(result), "%s", err ? errno_name(err) : "0");
}

/* A number. */
static void set_value(unsigned long v)
{
	snprintf(result, sizeof(result), "%lu", v);
}

/*
 * The result of a call that returns a number through @out: read after the
 * call, since a function's arguments are all evaluated before it runs.
 */
static void set_number(int err, const unsigned long *out)
{
	if (err)
		set_status(err);
	else
		set_value(*out);
}

static void set_text(const char *t)
{
	snprintf(result, sizeof(result), "%s", t);
}

static void destroy(void)
{
	switch (s.kind) {
	case K_REGION:
		rg_region_destroy(s.region);
		break;
	case K_MAPLE:
		rg_mtree_destroy(&s.mt);
		break;
	case K_XARRAY:
		rg_xa_destroy(&s.xa);
		break;
	case K_IDA:
		rg_ida_destroy(&s.ida);
		break;
	case K_BITMAP:
		rg_bitmap_free(s.map);
		break;
	case K_NONE:
		break;
	}
	s.kind = K_NONE;
}

static bool has_word(char **av, int ac, const char *w)
{
	for (int i = 1; i < ac; i++)
		if (!strcmp(av[i], w))
			return true;
	return false;
}

static void create(char **av, int ac)
{
	const char *c = av[0];

	destroy();
	if (!strcmp(c, "region")) {
		enum rg_region_backend b;
		enum rg_region_policy p = RG_REGION_FIRST_FIT;
		unsigned int flags = 0;

		if (ac < 3)
			die(2, "region BACKEND CAPACITY [POLICY] [locked]");
		if (rg_region_backend_lookup(av[1], &b)) {
			char names[128] = "";

			for (int i = 0; i < RG_REGION_NR_BACKENDS; i++)
				snprintf(names + strlen(names),
					 sizeof(names) - strlen(names), "%s%s",
					 i ? ", " : "",
					 rg_region_backend_name(
						 (enum rg_region_backend)i));
			die(2, "'%s' is not a backend (%s)", av[1], names);
		}
		for (int i = 3; i < ac; i++) {
			if (!strcmp(av[i], "locked"))
				flags |= RG_REGION_LOCKED;
			else if (rg_region_policy_lookup(av[i], &p))
				die(2, "'%s' is not a policy", av[i]);
		}
		s.region = rg_region_create_backend(
			b, num(av[2]), flags | RG_REGION_POLICY(p));
		if (!s.region)
			die(2, "region: %s", strerror(errno));
		s.kind = K_REGION;
	} else if (!strcmp(c, "maple")) {
		unsigned int flags = 0;

		if (has_word(av, ac, "alloc"))
			flags |= RG_MT_FLAGS_ALLOC_RANGE;
		if (has_word(av, ac, "rcu"))
			flags |= RG_MT_FLAGS_USE_RCU;
		if (rg_mtree_init(&s.mt, flags))
			die(2, "maple: bad flags");
		s.kind = K_MAPLE;
	} else if (!strcmp(c, "xarray")) {
		unsigned int flags = 0;

		if (has_word(av, ac, "alloc"))
			flags = RG_XA_FLAGS_ALLOC;
		if (has_word(av, ac, "alloc1"))
			flags = RG_XA_FLAGS_ALLOC1;
		if (rg_xa_init_flags(&s.xa, flags))
			die(2, "xarray: bad flags");
		s.kind = K_XARRAY;
	} else if (!strcmp(c, "ida")) {
		rg_ida_init(&s.ida);
		s.kind = K_IDA;
	} else {
		s.nbits = num(ac > 1 ? av[1] : NULL);
		s.map = rg_bitmap_zalloc(s.nbits);
		if (!s.map)
			die(2, "bitmap: %s", strerror(errno));
		s.kind = K_BITMAP;
	}
	set_status(0);
}

static const char *arg(char **av, int ac, int i)
{
	return i < ac ? av[i] : NULL;
}

static bool op_region(char **av, int ac)
{
	const char *c = av[0];
	unsigned long start = 0;

	if (!strcmp(c, "alloc"))
		set_number(rg_region_alloc(s.region, num(arg(av, ac, 1)),
					   ac > 2 ? num(av[2]) : 0, &start),
			   &start);
	else if (!strcmp(c, "free"))
		set_status(rg_region_free(s.region, num(arg(av, ac, 1)),
					  num(arg(av, ac, 2))));
	else if (!strcmp(c, "reserve"))
		set_status(rg_region_reserve(s.region, num(arg(av, ac, 1)),
					     num(arg(av, ac, 2))));
	else if (!strcmp(c, "test")) {
		int t = rg_region_test(s.region, num(arg(av, ac, 1)));

		if (t < 0)
			set_status(t);
		else
			set_value((unsigned long)t);
	} else
		return false;
	return true;
}

static bool op_maple(char **av, int ac)
{
	const char *c = av[0];
	unsigned long start = 0;

	if (!strcmp(c, "store"))
		set_status(rg_mtree_store_range(&s.mt, num(arg(av, ac, 1)),
						num(arg(av, ac, 2)),
						entry(arg(av, ac, 3))));
	else if (!strcmp(c, "insert"))
		set_status(rg_mtree_insert_range(&s.mt, num(arg(av, ac, 1)),
						 num(arg(av, ac, 2)),
						 entry(arg(av, ac, 3))));
	else if (!strcmp(c, "erase"))
		set_text(entry_str(rg_mtree_erase(&s.mt, num(arg(av, ac, 1)))));
	else if (!strcmp(c, "load"))
		set_text(entry_str(rg_mtree_load(&s.mt, num(arg(av, ac, 1)))));
	else if (!strcmp(c, "alloc"))
		set_number(rg_mtree_alloc_range(
				   &s.mt, &start, entry(arg(av, ac, 4)),
				   num(arg(av, ac, 1)), num(arg(av, ac, 2)),
				   num(arg(av, ac, 3))),
			   &start);
	else
		return false;
	return true;
}

static bool op_xarray(char **av, int ac)
{
	const char *c = av[0];
	unsigned long id = 0;

	if (!strcmp(c, "store"))
		set_status(rg_xa_store(&s.xa, num(arg(av, ac, 1)),
				       entry(arg(av, ac, 2)), NULL));
	else if (!strcmp(c, "insert"))
		set_status(rg_xa_insert(&s.xa, num(arg(av, ac, 1)),
					entry(arg(av, ac, 2))));
	else if (!strcmp(c, "erase"))
		set_text(entry_str(rg_xa_erase(&s.xa, num(arg(av, ac, 1)))));
	else if (!strcmp(c, "load"))
		set_text(entry_str(rg_xa_load(&s.xa, num(arg(av, ac, 1)))));
	else if (!strcmp(c, "cmpxchg")) {
		void *cur = rg_xa_mk_value(0xdead);
		int err = rg_xa_cmpxchg(&s.xa, num(arg(av, ac, 1)),
					entry(arg(av, ac, 2)),
					entry(arg(av, ac, 3)), &cur);

		/* cur reads v57005 where the call left it unwritten. */
		snprintf(result, sizeof(result), "%s %s",
			 err ? errno_name(err) : "0", entry_str(cur));
	} else if (!strcmp(c, "reserve"))
		set_status(rg_xa_reserve(&s.xa, num(arg(av, ac, 1))));
	else if (!strcmp(c, "release")) {
		rg_xa_release(&s.xa, num(arg(av, ac, 1)));
		set_status(0);
	} else if (!strcmp(c, "alloc"))
		set_number(rg_xa_alloc(&s.xa, &id, entry(arg(av, ac, 3)),
				       num(arg(av, ac, 1)),
				       num(arg(av, ac, 2))),
			   &id);
	else if (!strcmp(c, "find") || !strcmp(c, "find_after")) {
		unsigned long index = num(arg(av, ac, 1));
		unsigned long max = num(arg(av, ac, 2));
		void *e = c[4] ? rg_xa_find_after(&s.xa, &index, max,
						  RG_XA_PRESENT) :
				 rg_xa_find(&s.xa, &index, max, RG_XA_PRESENT);

		if (e)
			snprintf(result, sizeof(result), "%#lx %s", index,
				 entry_str(e));
		else
			set_text("NULL");
	} else
		return false;
	return true;
}

static bool op_ida(char **av, int ac)
{
	const char *c = av[0];
	unsigned int id = 0;

	if (!strcmp(c, "alloc") || !strcmp(c, "ida_alloc")) {
		int err = rg_ida_alloc_range(
			&s.ida, ac > 1 ? (unsigned int)num(av[1]) : 0,
			ac > 2 ? (unsigned int)num(av[2]) : INT_MAX, &id);

		if (err)
			set_status(err);
		else
			set_value(id);
	} else if (!strcmp(c, "free") || !strcmp(c, "ida_free"))
		set_status(
			rg_ida_free(&s.ida, (unsigned int)num(arg(av, ac, 1))));
	else if (!strcmp(c, "test"))
		set_value(rg_ida_exists(&s.ida,
					(unsigned int)num(arg(av, ac, 1))));
	else
		return false;
	return true;
}

static bool op_bitmap(char **av, int ac)
{
	const char *c = av[0];

	if (!strcmp(c, "alloc")) {
		unsigned long n = num(arg(av, ac, 1));
		unsigned long align = ac > 2 ? num(av[2]) : 0;
		unsigned long i = rg_bitmap_find_next_zero_area(
			s.map, s.nbits, 0, n, align ? align - 1 : 0);

		if (i >= s.nbits) {
			set_status(-ENOSPC);
		} else {
			rg_bitmap_set_range(s.map, i, n);
			set_value(i);
		}
	} else if (!strcmp(c, "free") || !strcmp(c, "set")) {
		unsigned long a = num(arg(av, ac, 1)), n = num(arg(av, ac, 2));

		if (a > s.nbits || n > s.nbits - a)
			die(2, "%s: past the bitmap's %lu bits", c, s.nbits);
		if (c[0] == 'f')
			rg_bitmap_clear_range(s.map, a, n);
		else
			rg_bitmap_set_range(s.map, a, n);
		set_status(0);
	} else if (!strcmp(c, "test")) {
		unsigned long b = num(arg(av, ac, 1));

		if (b >= s.nbits)
			die(2, "test: past the bitmap's %lu bits", s.nbits);
		set_value(rg_bitmap_test(s.map, b));
	} else if (!strcmp(c, "weight")) {
		set_value(rg_bitmap_weight(s.map, s.nbits));
	} else {
		return false;
	}
	return true;
}

static void dump(void)
{
	switch (s.kind) {
	case K_REGION:
		rg_region_dump(s.region, stdout);
		break;
	case K_MAPLE:
		rg_mtree_dump(&s.mt, stdout);
		break;
	case K_XARRAY:
		rg_xa_dump(&s.xa, stdout);
		break;
	case K_IDA:
		rg_ida_dump(&s.ida, stdout);
		break;
	case K_BITMAP:
		rg_bitmap_dump(s.map, s.nbits, stdout);
		break;
	case K_NONE:
		break;
	}
}

static void validate(void)
{
	const char *why = NULL;
	int err = 0;

	switch (s.kind) {
	case K_REGION:
		err = rg_region_validate(s.region, &why);
		break;
	case K_MAPLE:
		err = rg_mtree_validate(&s.mt, &why);
		break;
	case K_XARRAY:
		err = rg_xa_validate(&s.xa, &why);
		break;
	case K_IDA:
		err = rg_ida_validate(&s.ida, &why);
		break;
	case K_BITMAP:
		err = rg_bitmap_validate(s.map, s.nbits, &why);
		break;
	case K_NONE:
		break;
	}
	if (err) {
		dump();
		die(1, "validate: %s", why ? why : "invalid");
	}
}

/* empty and bytes, for every structure. */
static bool op_any(char **av)
{
	const char *c = av[0];
	bool empty = false;
	size_t bytes = 0;

	if (strcmp(c, "empty") && strcmp(c, "bytes"))
		return false;
	switch (s.kind) {
	case K_REGION: {
		struct rg_region_stats st;

		rg_region_get_stats(s.region, &st);
		empty = st.free_units == st.capacity;
		bytes = st.bytes_held;
		break;
	}
	case K_MAPLE:
		empty = rg_mtree_empty(&s.mt);
		bytes = rg_mtree_bytes(&s.mt);
		break;
	case K_XARRAY:
		empty = rg_xa_empty(&s.xa);
		bytes = rg_xa_bytes(&s.xa);
		break;
	case K_IDA:
		empty = rg_ida_is_empty(&s.ida);
		bytes = rg_ida_bytes(&s.ida);
		break;
	case K_BITMAP:
		empty = rg_bitmap_weight(s.map, s.nbits) == 0;
		bytes = RG_BITS_TO_LONGS(s.nbits) * sizeof(long);
		break;
	case K_NONE:
		break;
	}
	if (c[0] == 'e')
		set_text(empty ? "true" : "false");
	else
		set_value(bytes);
	return true;
}

static void expect(char *line)
{
	char *want = line + strlen("expect");

	while (*want == ' ' || *want == '\t')
		want++;
	if (strcmp(result, want))
		die(1, "expected '%s', got '%s'", want, result);
}

static void run_line(char *line)
{
	static const char *const structures[] = { "region", "maple", "xarray",
						  "ida", "bitmap" };
	char *av[MAX_ARGS], *save = NULL, *w;
	char copy[512];
	int ac = 0;
	bool ok = false;

	line[strcspn(line, "#\n")] = '\0';
	for (size_t n = strlen(line);
	     n && (line[n - 1] == ' ' || line[n - 1] == '\t');)
		line[--n] = '\0';
	snprintf(copy, sizeof(copy), "%s", line);
	for (w = strtok_r(line, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		if (ac == MAX_ARGS)
			die(2, "too many arguments");
		av[ac++] = w;
	}
	if (!ac)
		return;
	if (!strcmp(av[0], "expect")) {
		expect(copy);
		return;
	}
	if (!strcmp(av[0], "fault")) {
		rg_fault_inject(num(arg(av, ac, 1)));
		return;
	}
	for (size_t i = 0; i < sizeof(structures) / sizeof(structures[0]); i++)
		if (!strcmp(av[0], structures[i])) {
			create(av, ac);
			ok = true;
		}
	if (!ok && s.kind == K_NONE)
		die(2, "'%s' before any structure", av[0]);
	if (!ok && !strcmp(av[0], "dump")) {
		dump();
		return;
	}
	if (!ok && !strcmp(av[0], "validate")) {
		validate();
		set_status(0);
		ok = true;
	}
	if (!ok)
		ok = op_any(av);
	if (!ok) {
		switch (s.kind) {
		case K_REGION:
			ok = op_region(av, ac);
			break;
		case K_MAPLE:
			ok = op_maple(av, ac);
			break;
		case K_XARRAY:
			ok = op_xarray(av, ac);
			break;
		case K_IDA:
			ok = op_ida(av, ac);
			break;
		case K_BITMAP:
			ok = op_bitmap(av, ac);
			break;
		case K_NONE:
			break;
		}
	}
	rg_fault_inject(0);
	if (!ok)
		die(2, "'%s' is not a command here", av[0]);
	if (!quiet)
		printf("%s -> %s\n", copy, result);
}

static void run_file(const char *name)
{
	FILE *f = strcmp(name, "-") ? fopen(name, "r") : stdin;
	char line[512];

	file_name = strcmp(name, "-") ? name : "<stdin>";
	line_no = 0;
	if (!f) {
		fprintf(stderr, "rgsh: %s: %s\n", name, strerror(errno));
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		line_no++;
		run_line(line);
	}
	if (f != stdin)
		fclose(f);
	destroy();
}

int main(int argc, char **argv)
{
	int i = 1;

	if (i < argc && !strcmp(argv[i], "-q")) {
		quiet = true;
		i++;
	}
	if (i < argc && argv[i][0] == '-' && argv[i][1]) {
		fprintf(stderr, "usage: rgsh [-q] [FILE...]\n");
		return 2;
	}
	if (i == argc)
		run_file("-");
	for (; i < argc; i++)
		run_file(argv[i]);
	return 0;
}
