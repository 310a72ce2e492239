// SPDX-License-Identifier: MIT
/*
 * regionbench maple-prealloc: the seed-002 measurement (node preallocation
 * with and without vacancy tracking), see benchmarks.md section 2.
 *
 * Theory of operation.
 *
 * A VMA-like workload runs on a Maple allocation tree
 * (RG_MT_FLAGS_ALLOC_RANGE) over an address space of units. Mappings live
 * in [0, map_max] with map_max = 128 x the target number of live ranges;
 * a heap (the topmost range, brk) starts above it after a guard gap and
 * moves inside its own window. The benchmark keeps a flat array of the
 * live mappings (first, last) so that picking a random one is O(1), and
 * checks the tree against it (erase must return an entry; at the end of a
 * run the tree holds exactly the array's ranges plus the heap, and
 * rg_mtree_validate() passes).
 *
 * Operations:
 *   map     a random size in 1..64 units; half of the maps take the lowest
 *           fitting gap (alloc_range from 0), a quarter the lowest gap at or
 *           above a random hint (alloc_range from the hint, then from 0), a
 *           quarter are fixed maps right after a random live range
 *           (insert_range, -EEXIST falls back to alloc_range from there).
 *   unmap   erase a random live range.
 *   protect overwrite a random middle part [a, b] of a random range of at
 *           least 3 units (store_range) so that it splits in three; up to 8
 *           picks, then the operation is skipped.
 *   brk     grow the heap by 1..16 units (store_range of the whole heap
 *           over its new extent) or shrink it by 1..16 (store_range of NULL
 *           over its tail), half and half, never below 1 unit.
 *
 * Build phase: maps until the target number of live ranges is reached.
 * Mix phase (--ops operations): 10% protect, 10% brk, 80% map-or-unmap
 * (map while below the target, else unmap), so the live count stays within
 * a few ranges of the target; since protect adds two ranges, the mix
 * settles near 30% map / 50% unmap (the exact counts are printed).
 *
 * Both modes run the SAME operation sequence: the sequence is regenerated
 * from the same seed, and every random draw depends only on the seed and
 * on the tree's contents (lowest-fit results), which vacancy tracking does
 * not change. A hash of every operation and its result is compared between
 * the modes and between runs; a mismatch is reported loudly.
 *
 * Counts come from rg_mtree_get_stats(): read after the build phase, reset,
 * read again after the mix; the two are added for the default --phase all
 * (the kernel's trace counted everything). Counts are deterministic; times
 * (ns per operation of each phase) are medians of --runs runs.
 *
 * Limits: ranges up to 10^7; the array of live ranges costs 16 bytes per
 * range. Nothing here runs under the tree lock except the final iteration.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "region/maple_tree.h"
#include "rg_rand.h"

#define MAX_SIZES 16
#define MAX_RUNS 64
#define MAP_MAX_UNITS 64 /* map sizes: 1..64 units */
#define BRK_STEP 16 /* heap grows and shrinks by 1..16 units */
#define HEAP_GUARD 4096 /* empty units between the maps and the heap */
#define HEAP_WINDOW (1UL << 20)
#define BAR_WIDTH 52 /* as bpftrace */
#define NBUCKETS RG_MT_HIST_BUCKETS

enum mode { M_HEIGHT, M_VACANCY, NR_MODES };
static const char *const mode_names[NR_MODES] = { "height", "vacancy" };

enum phase { P_ALL, P_BUILD, P_MIX };
static const char *const phase_names[] = { "all", "build", "mix", NULL };

enum op {
	OP_MAP_LOW,
	OP_MAP_HINT,
	OP_MAP_FIXED,
	OP_UNMAP,
	OP_PROTECT,
	OP_GROW,
	OP_SHRINK,
	OP_SKIP,
	NR_OPS
};
static const char *const op_names[NR_OPS] = { "map-low",    "map-hint",
					      "map-fixed",  "unmap",
					      "protect",    "brk-grow",
					      "brk-shrink", "skipped" };

static const char *const bucket_json[NBUCKETS] = { "1",	   "2-3",   "4-7",
						   "8-15", "16-31", "32+" };
static const char *const bucket_bar[NBUCKETS] = { "[1]",      "[2, 4)",
						  "[4, 8)",   "[8, 16)",
						  "[16, 32)", "[32, ...)" };

static const char *const st_keys[RG_MT_STORE_TYPES] = {
	"st_exact_fit", "st_append",	"st_slot",     "st_node",
	"st_split",	"st_rebalance", "st_spanning", "st_new_root"
};
static const char *const st_headers[RG_MT_STORE_TYPES] = {
	"exact", "append", "slot",     "node",
	"split", "rebal",  "spanning", "new root"
};

struct range {
	unsigned long first, last;
};

/* The workload's state: one tree, its mirror and the random stream. */
struct vm {
	struct rg_maple_tree mt;
	struct rg_rand rnd;
	struct range *r;
	size_t nr, cap, target;
	unsigned long map_max;
	unsigned long heap_first, heap_last, heap_max;
	unsigned long next_id;
	uint64_t hash;
	unsigned long ops[NR_OPS];
	unsigned long fallbacks;
	enum op last_op;
	const char *error;
};

/* What the stores of one kind of operation asked for (--by-op). */
struct opstat {
	unsigned long n, preallocs, requested, used, b8, st[RG_MT_STORE_TYPES];
};

/* What one (size, mode, run) produced. */
struct result {
	struct rg_mtree_stats build, mix, all;
	unsigned long ops[NR_OPS], fallbacks;
	struct opstat by_op[2][NR_OPS]; /* [0] build, [1] mix */
	uint64_t hash;
	double build_ns, mix_ns; /* per operation */
	unsigned long build_ops, mix_ops;
	unsigned long height, nodes;
	size_t final_ranges;
};

static void *rb_xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		rb_note("maple-prealloc: out of memory");
		exit(2);
	}
	return p;
}

static void mix_hash(struct vm *vm, unsigned long a, unsigned long b,
		     unsigned long c)
{
	uint64_t h = vm->hash;

	h = (h ^ a) * 0x100000001b3ULL;
	h = (h ^ b) * 0x100000001b3ULL;
	h = (h ^ c) * 0x100000001b3ULL;
	vm->hash = h;
}

static void push_range(struct vm *vm, unsigned long first, unsigned long last)
{
	if (vm->nr == vm->cap) {
		vm->cap = vm->cap ? 2 * vm->cap : 1024;
		vm->r = rb_xrealloc(vm->r, vm->cap * sizeof(*vm->r));
	}
	vm->r[vm->nr].first = first;
	vm->r[vm->nr].last = last;
	vm->nr++;
}

static void count_op(struct vm *vm, enum op op)
{
	vm->ops[op]++;
	vm->last_op = op;
}

static int fail(struct vm *vm, const char *what)
{
	if (!vm->error)
		vm->error = what;
	return -1;
}

static void *new_entry(struct vm *vm)
{
	return rg_mt_mk_value(++vm->next_id);
}

/* alloc_range in [min, map_max]; -EBUSY falls back to the lowest fit. */
static int alloc_from(struct vm *vm, unsigned long size, unsigned long min,
		      void *entry, unsigned long *start)
{
	int ret = rg_mtree_alloc_range(&vm->mt, start, entry, size, min,
				       vm->map_max);

	if (ret == -EBUSY && min) {
		vm->fallbacks++;
		ret = rg_mtree_alloc_range(&vm->mt, start, entry, size, 0,
					   vm->map_max);
	}
	if (ret == -EBUSY)
		return fail(vm, "address space full (alloc_range -EBUSY)");
	if (ret)
		return fail(vm, "alloc_range failed");
	return 0;
}

static int op_map(struct vm *vm)
{
	unsigned long size = rg_rand_range(&vm->rnd, 1, MAP_MAX_UNITS);
	unsigned long kind = rg_rand_below(&vm->rnd, 4);
	void *entry = new_entry(vm);
	unsigned long start = 0, min;
	enum op op;
	int ret;

	if (kind == 3 && vm->nr) {
		struct range *p = &vm->r[rg_rand_below(&vm->rnd, vm->nr)];

		op = OP_MAP_FIXED;
		start = p->last + 1;
		if (start + size - 1 <= vm->map_max) {
			ret = rg_mtree_insert_range(&vm->mt, start,
						    start + size - 1, entry);
			if (ret && ret != -EEXIST)
				return fail(vm, "insert_range failed");
		} else {
			ret = -EEXIST;
			start = 0;
		}
		if (ret) {
			vm->fallbacks++;
			if (alloc_from(vm, size, start, entry, &start))
				return -1;
		}
	} else if (kind == 2) {
		op = OP_MAP_HINT;
		min = rg_rand_below(&vm->rnd, vm->map_max - size + 2);
		if (alloc_from(vm, size, min, entry, &start))
			return -1;
	} else {
		op = OP_MAP_LOW;
		if (alloc_from(vm, size, 0, entry, &start))
			return -1;
	}
	push_range(vm, start, start + size - 1);
	count_op(vm, op);
	mix_hash(vm, op, start, size);
	return 0;
}

static int op_unmap(struct vm *vm)
{
	size_t i = rg_rand_below(&vm->rnd, vm->nr);
	struct range p = vm->r[i];

	if (!rg_mtree_erase(&vm->mt, p.first))
		return fail(vm, "erase found no entry where one was mapped");
	vm->r[i] = vm->r[--vm->nr];
	count_op(vm, OP_UNMAP);
	mix_hash(vm, OP_UNMAP, p.first, p.last);
	return 0;
}

static int op_protect(struct vm *vm)
{
	unsigned long a, b, len = 0;
	struct range p = { 0, 0 };
	size_t i = 0;

	for (int tries = 0; tries < 8 && vm->nr; tries++) {
		i = rg_rand_below(&vm->rnd, vm->nr);
		p = vm->r[i];
		len = p.last - p.first + 1;
		if (len >= 3)
			break;
	}
	if (len < 3) {
		count_op(vm, OP_SKIP);
		mix_hash(vm, OP_SKIP, 0, 0);
		return 0;
	}
	a = p.first + 1 + rg_rand_below(&vm->rnd, len - 2);
	b = a + rg_rand_below(&vm->rnd, p.last - a);
	if (rg_mtree_store_range(&vm->mt, a, b, new_entry(vm)))
		return fail(vm, "store_range (protect) failed");
	vm->r[i].last = a - 1;
	push_range(vm, a, b);
	push_range(vm, b + 1, p.last);
	count_op(vm, OP_PROTECT);
	mix_hash(vm, OP_PROTECT, a, b);
	return 0;
}

static int op_brk(struct vm *vm)
{
	bool grow = rg_rand_below(&vm->rnd, 2);
	unsigned long d = rg_rand_range(&vm->rnd, 1, BRK_STEP);
	unsigned long size = vm->heap_last - vm->heap_first + 1;

	if (grow && vm->heap_last + d > vm->heap_max)
		grow = false;
	if (!grow && size <= d)
		grow = true;
	if (grow) {
		if (rg_mtree_store_range(&vm->mt, vm->heap_first,
					 vm->heap_last + d, rg_mt_mk_value(0)))
			return fail(vm, "store_range (brk grow) failed");
		vm->heap_last += d;
		count_op(vm, OP_GROW);
	} else {
		if (rg_mtree_store_range(&vm->mt, vm->heap_last - d + 1,
					 vm->heap_last, NULL))
			return fail(vm, "store_range (brk shrink) failed");
		vm->heap_last -= d;
		count_op(vm, OP_SHRINK);
	}
	mix_hash(vm, grow ? OP_GROW : OP_SHRINK, vm->heap_last, d);
	return 0;
}

static int op_mix(struct vm *vm)
{
	unsigned long p = rg_rand_below(&vm->rnd, 100);

	if (p < 10)
		return op_protect(vm);
	if (p < 20)
		return op_brk(vm);
	if (vm->nr < vm->target)
		return op_map(vm);
	return op_unmap(vm);
}

static int check(struct vm *vm)
{
	const char *reason = NULL;

	if (rg_mtree_validate(&vm->mt, &reason)) {
		rb_note("maple-prealloc: rg_mtree_validate: %s",
			reason ? reason : "?");
		return fail(vm, "the tree does not validate");
	}
	return 0;
}

/* Count the tree's entries: the live ranges plus the heap. */
static int check_contents(struct vm *vm)
{
	RG_MA_STATE(mas, &vm->mt, 0, 0);
	size_t n = 0;
	void *e;

	rg_mtree_lock(&vm->mt);
	rg_mas_for_each(&mas, e, ULONG_MAX) n++;
	rg_mtree_unlock(&vm->mt);
	if (n != vm->nr + 1) {
		rb_note("maple-prealloc: tree holds %zu ranges, expected %zu",
			n, vm->nr + 1);
		return fail(vm, "tree contents differ from the workload");
	}
	return check(vm);
}

static void add_stats(struct rg_mtree_stats *d, const struct rg_mtree_stats *a,
		      const struct rg_mtree_stats *b)
{
	d->stores = a->stores + b->stores;
	for (int i = 0; i < RG_MT_STORE_TYPES; i++)
		d->store_type[i] = a->store_type[i] + b->store_type[i];
	d->preallocs = a->preallocs + b->preallocs;
	d->nodes_requested = a->nodes_requested + b->nodes_requested;
	d->nodes_used = a->nodes_used + b->nodes_used;
	for (int i = 0; i < NBUCKETS; i++)
		d->hist[i] = a->hist[i] + b->hist[i];
	d->max_requested = a->max_requested > b->max_requested ?
				   a->max_requested :
				   b->max_requested;
	d->overuse = a->overuse + b->overuse;
	d->nodes = b->nodes;
	d->height = b->height;
}

/*
 * One operation; with @by_op, what its stores asked for is added to
 * @acc[kind] (two rg_mtree_get_stats() calls around it).
 */
static int step(struct vm *vm, struct opstat *acc, int (*fn)(struct vm *),
		bool by_op)
{
	struct rg_mtree_stats a, b;
	struct opstat *o;
	int ret;

	if (!by_op)
		return fn(vm);
	rg_mtree_get_stats(&vm->mt, &a);
	ret = fn(vm);
	rg_mtree_get_stats(&vm->mt, &b);
	o = &acc[vm->last_op];
	o->n++;
	o->preallocs += b.preallocs - a.preallocs;
	o->requested += b.nodes_requested - a.nodes_requested;
	o->used += b.nodes_used - a.nodes_used;
	o->b8 += b.hist[3] - a.hist[3];
	for (int i = 0; i < RG_MT_STORE_TYPES; i++)
		o->st[i] += b.store_type[i] - a.store_type[i];
	return ret;
}

/* One build + mix on a fresh tree; 0 or -1 (message printed). */
static int run_one(struct result *res, enum mode m, size_t target,
		   unsigned long nops, uint64_t seed, bool validate, bool by_op)
{
	unsigned int flags = RG_MT_FLAGS_ALLOC_RANGE;
	struct vm *vm = calloc(1, sizeof(*vm));
	uint64_t t0, t1;
	int ret = -1;

	if (!vm)
		return -1;
	if (m == M_HEIGHT)
		flags |= RG_MT_FLAGS_NO_VACANCY;
	if (rg_mtree_init(&vm->mt, flags)) {
		free(vm);
		rb_note("maple-prealloc: rg_mtree_init failed");
		return -1;
	}
	memset(res, 0, sizeof(*res));
	rg_rand_seed(&vm->rnd, seed ^ (0x9e3779b97f4a7c15ULL * target));
	vm->target = target;
	vm->map_max = 128UL * (target > 512 ? target : 512) - 1;
	vm->heap_first = vm->map_max + 1 + HEAP_GUARD;
	vm->heap_last = vm->heap_first + BRK_STEP - 1;
	vm->heap_max = vm->heap_first + HEAP_WINDOW - 1;
	vm->hash = 0xcbf29ce484222325ULL;

	t0 = rb_now_ns();
	if (rg_mtree_store_range(&vm->mt, vm->heap_first, vm->heap_last,
				 rg_mt_mk_value(0))) {
		fail(vm, "store_range (heap) failed");
		goto out;
	}
	while (vm->nr < target) {
		if (step(vm, res->by_op[0], op_map, by_op) ||
		    (validate && check(vm)))
			goto out;
	}
	t1 = rb_now_ns();
	res->build_ops = target + 1;
	res->build_ns = (double)(t1 - t0) / (double)res->build_ops;
	rg_mtree_get_stats(&vm->mt, &res->build);
	rg_mtree_reset_stats(&vm->mt);
	memset(vm->ops, 0, sizeof(vm->ops));
	vm->fallbacks = 0;

	t0 = rb_now_ns();
	for (unsigned long i = 0; i < nops; i++) {
		if (step(vm, res->by_op[1], op_mix, by_op) ||
		    (validate && check(vm)))
			goto out;
	}
	t1 = rb_now_ns();
	res->mix_ops = nops;
	res->mix_ns = nops ? (double)(t1 - t0) / (double)nops : 0;
	rg_mtree_get_stats(&vm->mt, &res->mix);
	add_stats(&res->all, &res->build, &res->mix);
	memcpy(res->ops, vm->ops, sizeof(vm->ops));
	res->fallbacks = vm->fallbacks;
	res->hash = vm->hash;
	res->height = res->mix.height;
	res->nodes = res->mix.nodes;
	res->final_ranges = vm->nr;
	ret = check_contents(vm);
out:
	if (vm->error)
		rb_note("maple-prealloc: %s mode, %zu ranges: %s",
			mode_names[m], target, vm->error);
	rg_mtree_destroy(&vm->mt);
	free(vm->r);
	free(vm);
	return ret;
}

/* Counts that must not differ between runs (and, but nodes, modes). */
static bool same_counts(const struct result *a, const struct result *b)
{
	return a->hash == b->hash && a->final_ranges == b->final_ranges &&
	       !memcmp(&a->all, &b->all, sizeof(a->all)) &&
	       !memcmp(a->ops, b->ops, sizeof(a->ops));
}

/* ---- output ---- */

/* One histogram as bpftrace prints it: label, count, bar of 52 columns. */
static void print_bars(FILE *f, const char *title, const unsigned long *hist)
{
	unsigned long max = 0;
	int last = NBUCKETS - 2; /* 16-31 */

	for (int i = 0; i < NBUCKETS; i++)
		max = hist[i] > max ? hist[i] : max;
	if (hist[NBUCKETS - 1])
		last = NBUCKETS - 1;
	fprintf(f, "%s\n", title);
	for (int i = 0; i <= last; i++) {
		int n = max ? (int)((double)hist[i] * BAR_WIDTH / max) : 0;

		fprintf(f, "%-16s%8lu |", bucket_bar[i], hist[i]);
		for (int c = 0; c < BAR_WIDTH; c++)
			fputc(c < n ? '@' : ' ', f);
		fprintf(f, "|\n");
	}
	fputc('\n', f);
}

static const struct rb_col long_cols[] = {
	{ "mode", "mode",
	  "height: preallocate by height only "
	  "(RG_MT_FLAGS_NO_VACANCY); vacancy: by vacant/sufficient height",
	  RB_STR, 0 },
	{ "live_ranges", "live ranges", "target number of live ranges", RB_INT,
	  0 },
	{ "bucket", "bucket",
	  "nodes requested per preallocation (1, 2-3, 4-7, 8-15, 16-31, "
	  "32+), total, or by-op (--by-op: one kind of operation)",
	  RB_STR, 0 },
	{ "op", "op", "by-op rows: the kind of operation", RB_STR, 0 },
	{ "op_count", "op count", "by-op rows: operations of that kind", RB_INT,
	  0 },
	{ "b8_15", "[8,16)", "by-op rows: preallocations of 8..15 nodes",
	  RB_INT, 0 },
	{ "requests", "requests", "preallocations in the bucket", RB_INT, 0 },
	{ "preallocations", "preallocs",
	  "total: preallocations that asked "
	  "for at least one node",
	  RB_INT, 0 },
	{ "nodes_requested", "requested", "total: nodes requested", RB_INT, 0 },
	{ "nodes_used", "used", "total: nodes the stores took", RB_INT, 0 },
	{ "waste", "waste", "total: requested - used", RB_INT, 0 },
	{ "overuse", "overuse",
	  "total: stores that used more than requested "
	  "(must be 0)",
	  RB_INT, 0 },
	{ "max_requested", "max req", "total: largest single request", RB_INT,
	  0 },
	{ "stores", "stores", "total: stores (every write)", RB_INT, 0 },
	{ "st_exact_fit", "exact", "stores classified exact fit", RB_INT, 0 },
	{ "st_append", "append", "append stores", RB_INT, 0 },
	{ "st_slot", "slot", "slot stores", RB_INT, 0 },
	{ "st_node", "node", "node stores", RB_INT, 0 },
	{ "st_split", "split", "split stores", RB_INT, 0 },
	{ "st_rebalance", "rebal", "rebalance stores", RB_INT, 0 },
	{ "st_spanning", "spanning", "spanning stores", RB_INT, 0 },
	{ "st_new_root", "new root", "new-root stores", RB_INT, 0 },
	{ "height", "height", "tree height at the end", RB_INT, 0 },
	{ "nodes", "nodes", "nodes the tree holds at the end", RB_INT, 0 },
	{ "build_ns_per_op", "build ns/op",
	  "build phase: ns per operation, "
	  "median of runs",
	  RB_NUM, 1 },
	{ "mix_ns_per_op", "mix ns/op",
	  "mix phase: ns per operation, median "
	  "of runs",
	  RB_NUM, 1 },
};
#define NLONG ((int)(sizeof(long_cols) / sizeof(long_cols[0])))

static const struct rb_col sum_cols[] = {
	{ "live_ranges", "live ranges", "target number of live ranges", RB_INT,
	  0 },
	{ "mode", "mode",
	  "height: worst case by height only "
	  "(RG_MT_FLAGS_NO_VACANCY); vacancy: vacant/sufficient height",
	  RB_STR, 0 },
	{ "preallocations", "preallocs", "preallocations asking for >= 1 node",
	  RB_INT, 0 },
	{ "nodes_requested", "requested", "nodes requested in total", RB_INT,
	  0 },
	{ "nodes_used", "used", "nodes the stores actually took", RB_INT, 0 },
	{ "waste", "waste", "requested - used (given back unused)", RB_INT, 0 },
	{ "waste_pct", "waste %", "waste / requested", RB_NUM, 1 },
	{ "overuse", "overuse",
	  "stores that took more than they requested "
	  "(must be 0)",
	  RB_INT, 0 },
	{ "b8_15", "[8,16)", "preallocations asking for 8..15 nodes", RB_INT,
	  0 },
	{ "max_requested", "max req", "largest single request", RB_INT, 0 },
	{ "height", "height", "tree height at the end", RB_INT, 0 },
	{ "nodes", "nodes", "nodes the tree holds at the end", RB_INT, 0 },
	{ "build_ns_per_op", "build ns/op",
	  "build phase, ns per operation "
	  "(median of runs)",
	  RB_NUM, 1 },
	{ "mix_ns_per_op", "mix ns/op",
	  "mix phase, ns per operation (median "
	  "of runs)",
	  RB_NUM, 1 },
};
#define NSUM ((int)(sizeof(sum_cols) / sizeof(sum_cols[0])))

static const struct rb_col cmp_cols[] = {
	{ "live_ranges", "live ranges", "target number of live ranges", RB_INT,
	  0 },
	{ "requested_cut", "requested -%",
	  "1 - vacancy/height nodes "
	  "requested, percent",
	  RB_NUM, 1 },
	{ "b8_15_ratio", "[8,16) v/h %",
	  "vacancy [8,16) count / height "
	  "[8,16) count, percent",
	  RB_NUM, 1 },
	{ "b8_31_ratio", "[8,32) v/h %",
	  "the same for 8..31 nodes (vacancy moves spanning stores, 3h + 1 "
	  "by height, from [16,32) down into [8,16))",
	  RB_NUM, 1 },
	{ "prealloc_cut", "preallocs -%", "1 - vacancy/height preallocations",
	  RB_NUM, 1 },
	{ "waste_cut", "waste -%", "1 - vacancy/height waste", RB_NUM, 1 },
	{ "mix_time_ratio", "mix time v/h",
	  "vacancy / height mix ns per "
	  "operation",
	  RB_NUM, 3 },
	{ "targets", "check",
	  "at 10^5 live ranges only: met if nodes requested fall by at "
	  "least 30% and [8,16) keeps at most 10% of its count",
	  RB_STR, 0 },
};
#define NCMP ((int)(sizeof(cmp_cols) / sizeof(cmp_cols[0])))

static const struct rb_col op_cols[] = {
	{ "live_ranges", "live ranges", "target number of live ranges", RB_INT,
	  0 },
	{ "mode", "mode", NULL, RB_STR, 0 },
	{ "op", "op",
	  "kind of operation (map-fixed and map-hint include "
	  "their fallbacks)",
	  RB_STR, 0 },
	{ "op_count", "ops", "operations of that kind", RB_INT, 0 },
	{ "preallocations", "preallocs", "preallocations of >= 1 node", RB_INT,
	  0 },
	{ "nodes_requested", "requested", "nodes requested", RB_INT, 0 },
	{ "nodes_used", "used", "nodes used", RB_INT, 0 },
	{ "b8_15", "[8,16)", "preallocations of 8..15 nodes", RB_INT, 0 },
	{ "st_node", "node", "stores by type", RB_INT, 0 },
	{ "st_split", "split", NULL, RB_INT, 0 },
	{ "st_rebalance", "rebal", NULL, RB_INT, 0 },
	{ "st_spanning", "spanning", NULL, RB_INT, 0 },
};
#define NOPC ((int)(sizeof(op_cols) / sizeof(op_cols[0])))

static struct rb_col st_cols[3 + RG_MT_STORE_TYPES];

static void add_opstat(struct opstat *d, const struct opstat *a)
{
	d->n += a->n;
	d->preallocs += a->preallocs;
	d->requested += a->requested;
	d->used += a->used;
	d->b8 += a->b8;
	for (int i = 0; i < RG_MT_STORE_TYPES; i++)
		d->st[i] += a->st[i];
}

/* Rows of the by-op breakdown, in @t (by-op table or JSON rows). */
static void by_op_rows(struct rb_table *t, bool json, size_t target,
		       enum mode m, const struct result *r, enum phase ph)
{
	for (int k = 0; k < NR_OPS; k++) {
		struct opstat o = { 0 };

		if (ph != P_MIX)
			add_opstat(&o, &r->by_op[0][k]);
		if (ph != P_BUILD)
			add_opstat(&o, &r->by_op[1][k]);
		if (!o.n)
			continue;
		rb_row(t);
		rb_set_int(t, "live_ranges", (long long)target);
		rb_set_str(t, "mode", "%s", mode_names[m]);
		if (json)
			rb_set_str(t, "bucket", "by-op");
		rb_set_str(t, "op", "%s", op_names[k]);
		rb_set_int(t, "op_count", (long long)o.n);
		rb_set_int(t, "preallocations", (long long)o.preallocs);
		rb_set_int(t, "nodes_requested", (long long)o.requested);
		rb_set_int(t, "nodes_used", (long long)o.used);
		rb_set_int(t, "b8_15", (long long)o.b8);
		rb_set_int(t, "st_node", (long long)o.st[RG_MT_STORE_NODE]);
		rb_set_int(t, "st_split", (long long)o.st[RG_MT_STORE_SPLIT]);
		rb_set_int(t, "st_rebalance",
			   (long long)o.st[RG_MT_STORE_REBALANCE]);
		rb_set_int(t, "st_spanning",
			   (long long)o.st[RG_MT_STORE_SPANNING]);
	}
}

static double pct_cut(double v, double h)
{
	return h > 0 ? 100.0 * (1.0 - v / h) : 0;
}

static void set_stats_row(struct rb_table *t, const struct rg_mtree_stats *s)
{
	rb_set_int(t, "preallocations", (long long)s->preallocs);
	rb_set_int(t, "nodes_requested", (long long)s->nodes_requested);
	rb_set_int(t, "nodes_used", (long long)s->nodes_used);
	rb_set_int(t, "waste",
		   (long long)s->nodes_requested - (long long)s->nodes_used);
	rb_set_int(t, "overuse", (long long)s->overuse);
	rb_set_int(t, "max_requested", (long long)s->max_requested);
}

struct opts {
	size_t sizes[MAX_SIZES];
	int nsizes, runs;
	long long ops; /* -1: default */
	enum phase phase;
	bool validate, by_op;
};

struct tables {
	struct rb_table *lt; /* long: JSON and CSV */
	struct rb_table *sum; /* totals per size and mode */
	struct rb_table *cmp; /* vacancy vs height per size */
	struct rb_table *stt; /* store types */
	struct rb_table *opt; /* --by-op */
};

static void parse_opts(struct opts *o, struct rb_ctx *ctx, int argc,
		       char **argv)
{
	unsigned long sizes[MAX_SIZES], ops = 0;
	const char *ranges = NULL;
	int phase = 0;
	struct rb_opt opts[] = {
		RB_OPT_STR("ranges", &ranges, "N,N,...",
			   "live ranges, each 1..10^7 (default "
			   "10000,100000,1000000; --quick: 1000)"),
		RB_OPT_UINT("ops", &ops, 0, 1UL << 40, "N",
			    "operations after the build (default 200000; "
			    "--quick: 2000)"),
		RB_OPT_CHOICE("phase", &phase, phase_names,
			      "which stores the histograms count (default "
			      "all)"),
		RB_OPT_FLAG("by-op", &o->by_op,
			    "also break the requests down by operation"),
		RB_OPT_FLAG("validate", &o->validate,
			    "rg_mtree_validate() after every operation (slow)"),
		RB_OPT_END,
	};

	memset(o, 0, sizeof(*o));
	rb_parse(ctx, opts, argc, argv);
	o->ops = rb_given(opts, "ops") ? (long long)ops : -1;
	o->phase = (enum phase)phase;
	o->runs = RGI_MIN_SZ(ctx->runs, MAX_RUNS);
	if (ranges) {
		o->nsizes = rb_parse_uint_list("ranges", ranges, 1, 10000000,
					       sizes, MAX_SIZES);
		for (int i = 0; i < o->nsizes; i++)
			o->sizes[i] = sizes[i];
	}
	if (!o->nsizes) {
		if (ctx->quick) {
			o->sizes[o->nsizes++] = 1000;
		} else {
			o->sizes[o->nsizes++] = 10000;
			o->sizes[o->nsizes++] = 100000;
			o->sizes[o->nsizes++] = 1000000;
		}
	}
}

static void make_tables(struct tables *t, const struct opts *o,
			struct rb_ctx *ctx)
{
	struct rb_table *all[5];

	st_cols[0] =
		(struct rb_col){ "live_ranges", "live ranges",
				 "target number of live ranges", RB_INT, 0 };
	st_cols[1] = (struct rb_col){ "mode", "mode", NULL, RB_STR, 0 };
	for (int i = 0; i < RG_MT_STORE_TYPES; i++)
		st_cols[2 + i] = (struct rb_col){ st_keys[i], st_headers[i],
						  NULL, RB_INT, 0 };
	st_cols[2 + RG_MT_STORE_TYPES] =
		(struct rb_col){ "stores", "stores", "every write", RB_INT, 0 };
	st_cols[2].legend = "stores by classification (rg_mtree_stats."
			    "store_type): exact fit, append, slot, node, "
			    "split, rebalance, spanning, new root";

	t->lt = rb_table_new("maple-prealloc", long_cols, NLONG);
	t->sum = rb_table_new("maple-prealloc", sum_cols, NSUM);
	t->cmp = rb_table_new("maple-prealloc: vacancy vs height", cmp_cols,
			      NCMP);
	t->stt = rb_table_new("maple-prealloc: store types", st_cols,
			      3 + RG_MT_STORE_TYPES);
	t->opt = rb_table_new("maple-prealloc: by operation", op_cols, NOPC);
	all[0] = t->lt;
	all[1] = t->sum;
	all[2] = t->cmp;
	all[3] = t->stt;
	all[4] = t->opt;
	for (int i = 0; i < 5; i++) {
		rb_table_param(all[i], "phase", "%s", phase_names[o->phase]);
		rb_table_param(all[i], "runs", "%d", o->runs);
		rb_table_param(all[i], "seed", "%llu",
			       (unsigned long long)ctx->seed);
	}
	if (o->ops >= 0)
		rb_table_param(t->lt, "ops", "%lld", o->ops);
	else
		rb_table_param(t->lt, "ops", "%s",
			       ctx->quick ? "2000" : "200000");
}

/* The rows of one size and mode in the long, summary and type tables. */
static void mode_rows(struct tables *t, const struct opts *o, size_t target,
		      enum mode m, const struct result *r,
		      const struct rg_mtree_stats *s, double bns, double mns)
{
	double waste_pct = 0;

	for (int b = 0; b < NBUCKETS; b++) {
		if (b == NBUCKETS - 1 && !s->hist[b])
			continue;
		rb_row(t->lt);
		rb_set_str(t->lt, "mode", "%s", mode_names[m]);
		rb_set_int(t->lt, "live_ranges", (long long)target);
		rb_set_str(t->lt, "bucket", "%s", bucket_json[b]);
		rb_set_int(t->lt, "requests", (long long)s->hist[b]);
	}
	rb_row(t->lt);
	rb_set_str(t->lt, "mode", "%s", mode_names[m]);
	rb_set_int(t->lt, "live_ranges", (long long)target);
	rb_set_str(t->lt, "bucket", "total");
	set_stats_row(t->lt, s);
	rb_set_int(t->lt, "stores", (long long)s->stores);
	for (int i = 0; i < RG_MT_STORE_TYPES; i++)
		rb_set_int(t->lt, st_keys[i], (long long)s->store_type[i]);
	rb_set_int(t->lt, "height", (long long)r->height);
	rb_set_int(t->lt, "nodes", (long long)r->nodes);
	rb_set_num(t->lt, "build_ns_per_op", bns);
	rb_set_num(t->lt, "mix_ns_per_op", mns);
	if (o->by_op) {
		by_op_rows(t->lt, true, target, m, r, o->phase);
		by_op_rows(t->opt, false, target, m, r, o->phase);
	}

	if (s->nodes_requested)
		waste_pct = 100.0 *
			    (double)(s->nodes_requested - s->nodes_used) /
			    (double)s->nodes_requested;
	rb_row(t->sum);
	rb_set_int(t->sum, "live_ranges", (long long)target);
	rb_set_str(t->sum, "mode", "%s", mode_names[m]);
	set_stats_row(t->sum, s);
	rb_set_num(t->sum, "waste_pct", waste_pct);
	rb_set_int(t->sum, "b8_15", (long long)s->hist[3]);
	rb_set_int(t->sum, "height", (long long)r->height);
	rb_set_int(t->sum, "nodes", (long long)r->nodes);
	rb_set_num(t->sum, "build_ns_per_op", bns);
	rb_set_num(t->sum, "mix_ns_per_op", mns);

	rb_row(t->stt);
	rb_set_int(t->stt, "live_ranges", (long long)target);
	rb_set_str(t->stt, "mode", "%s", mode_names[m]);
	for (int i = 0; i < RG_MT_STORE_TYPES; i++)
		rb_set_int(t->stt, st_keys[i], (long long)s->store_type[i]);
	rb_set_int(t->stt, "stores", (long long)s->stores);

	if (s->overuse) {
		rb_note("maple-prealloc: *** WARNING *** %s mode at %zu "
			"ranges: %lu stores used MORE nodes than they "
			"preallocated (a bug in the maple implementation)",
			mode_names[m], target, s->overuse);
		rb_table_note(t->sum,
			      "*** WARNING: %s mode at %zu ranges: "
			      "%lu stores overused their "
			      "preallocation ***",
			      mode_names[m], target, s->overuse);
	}
}

static void compare_row(struct tables *t, size_t target,
			const struct rg_mtree_stats *h,
			const struct rg_mtree_stats *v, const double *mns)
{
	double req =
		pct_cut((double)v->nodes_requested, (double)h->nodes_requested);
	double b8 = h->hist[3] ?
			    100.0 * (double)v->hist[3] / (double)h->hist[3] :
			    0;

	rb_row(t->cmp);
	rb_set_int(t->cmp, "live_ranges", (long long)target);
	rb_set_num(t->cmp, "requested_cut", req);
	if (h->hist[3])
		rb_set_num(t->cmp, "b8_15_ratio", b8);
	if (h->hist[3] + h->hist[4])
		rb_set_num(t->cmp, "b8_31_ratio",
			   100.0 * (double)(v->hist[3] + v->hist[4]) /
				   (double)(h->hist[3] + h->hist[4]));
	rb_set_num(t->cmp, "prealloc_cut",
		   pct_cut((double)v->preallocs, (double)h->preallocs));
	rb_set_num(t->cmp, "waste_cut",
		   pct_cut((double)(v->nodes_requested - v->nodes_used),
			   (double)(h->nodes_requested - h->nodes_used)));
	if (mns[M_HEIGHT] > 0)
		rb_set_num(t->cmp, "mix_time_ratio",
			   mns[M_VACANCY] / mns[M_HEIGHT]);
	if (target == 100000)
		rb_set_str(t->cmp, "targets", "%s",
			   req >= 30 && h->hist[3] && b8 <= 10 ? "met" :
								 "MISSED");
}

/* A note with the operation mix measured at one size. */
static void mix_note(struct tables *t, size_t target, const struct result *x)
{
	unsigned long tot = 0;
	char buf[512];
	int len = 0;

	for (int i = 0; i < NR_OPS; i++)
		tot += x->ops[i];
	for (int i = 0; i < NR_OPS && len < (int)sizeof(buf); i++)
		len += snprintf(buf + len, sizeof(buf) - (size_t)len,
				"%s%s %.1f%%", i ? ", " : "", op_names[i],
				tot ? 100.0 * (double)x->ops[i] / (double)tot :
				      0);
	rb_table_note(t->sum,
		      "Mix measured at %zu ranges (%lu ops): %s; %lu "
		      "fallbacks.",
		      target, tot, buf, x->fallbacks);
}

/* Both modes at one size, --runs times; 0, or -1 if a run failed. */
static int run_size(struct tables *t, const struct opts *o, struct rb_ctx *ctx,
		    size_t target, int si, bool *bad)
{
	unsigned long nops = o->ops >= 0 ? (unsigned long)o->ops :
			     ctx->quick	 ? 2000 :
					   200000;
	struct result *res = calloc((size_t)NR_MODES * o->runs, sizeof(*res));
	const struct rg_mtree_stats *st[NR_MODES];
	double bns[NR_MODES], mns[NR_MODES];
	char title[160];

	if (!res)
		return -1;
	for (int r = 0; r < o->runs; r++)
		for (int m = 0; m < NR_MODES; m++)
			if (run_one(&res[m * o->runs + r], (enum mode)m, target,
				    nops, ctx->seed, o->validate, o->by_op)) {
				free(res);
				return -1;
			}
	for (int m = 0; m < NR_MODES; m++) {
		const struct result *r0 = &res[m * o->runs];
		double bv[MAX_RUNS], mv[MAX_RUNS];

		for (int r = 0; r < o->runs; r++) {
			bv[r] = r0[r].build_ns;
			mv[r] = r0[r].mix_ns;
			if (!same_counts(&r0[r], r0)) {
				rb_note("maple-prealloc: WARNING: run %d of "
					"%s at %zu ranges counted differently "
					"from run 0",
					r, mode_names[m], target);
				*bad = true;
			}
		}
		bns[m] = rb_median(bv, o->runs);
		mns[m] = rb_median(mv, o->runs);
		st[m] = o->phase == P_ALL   ? &r0->all :
			o->phase == P_BUILD ? &r0->build :
					      &r0->mix;
	}
	if (res[0].hash != res[o->runs].hash ||
	    res[0].final_ranges != res[o->runs].final_ranges) {
		rb_note("maple-prealloc: WARNING: the two modes ran different "
			"operation sequences at %zu ranges",
			target);
		*bad = true;
	}

	if (ctx->format == RB_TABLE) {
		fprintf(ctx->out,
			"== maple-prealloc: nodes requested per "
			"preallocation, %zu live ranges, %lu mix ops (phase "
			"%s, seed %llu)\n\n",
			target, nops, phase_names[o->phase],
			(unsigned long long)ctx->seed);
		for (int m = 0; m < NR_MODES; m++) {
			snprintf(title, sizeof(title),
				 "@prealloc_req[%s, %zu]:", mode_names[m],
				 target);
			print_bars(ctx->out, title, st[m]->hist);
		}
	}
	for (int m = 0; m < NR_MODES; m++)
		mode_rows(t, o, target, (enum mode)m, &res[m * o->runs], st[m],
			  bns[m], mns[m]);
	compare_row(t, target, st[M_HEIGHT], st[M_VACANCY], mns);
	if (si < 4)
		mix_note(t, target, &res[0]);
	free(res);
	return 0;
}

static void legend_notes(struct tables *t, const struct opts *o)
{
	rb_table_note(t->sum, "Workload: VMA-like, on an allocation tree "
			      "(RG_MT_FLAGS_ALLOC_RANGE). Build: map until "
			      "the target number of live ranges; then the "
			      "mix (--ops): 10%% protect, 10%% brk, 80%% map "
			      "while below the target else unmap.");
	rb_table_note(t->sum, "map: size 1..64 units; 1/2 lowest fit "
			      "(alloc_range from 0), 1/4 lowest fit above a "
			      "random hint, 1/4 fixed right after a random "
			      "range (insert_range; -EEXIST falls back to "
			      "alloc_range from there). unmap: erase a random "
			      "range.");
	rb_table_note(t->sum, "protect: store_range over a random middle "
			      "part of a range (it splits in three). brk: "
			      "grow the topmost range (store_range over it "
			      "and 1..16 more units) or shrink it (store NULL "
			      "over 1..16 units).");
	rb_table_note(t->sum,
		      "Both modes run the same operation sequence "
		      "(same seed; checked by a hash of every "
		      "operation and result). Counts are "
		      "deterministic; times are medians of runs%s.",
		      o->validate ? " and include --validate" : "");
	rb_table_note(t->sum,
		      "Counted stores: phase %s (all = build + mix, "
		      "as the kernel's trace counted everything). "
		      "Default --ops: 200000 (--quick: 1000 ranges, "
		      "2000 ops).",
		      phase_names[o->phase]);
	rb_table_note(t->sum, "The 2024 Maple Tree vacancy patches measured "
			      "malloc1_threads [8,16) 2790 -> 2; mmap stress: "
			      "nodes requested -19%%.");
}

static int run_maple_prealloc(struct rb_ctx *ctx, int argc, char **argv)
{
	struct tables t;
	struct opts o;
	bool bad = false;
	int ret = 0;

	parse_opts(&o, ctx, argc, argv);
	make_tables(&t, &o, ctx);
	legend_notes(&t, &o);
	for (int si = 0; si < o.nsizes && !ret; si++)
		if (run_size(&t, &o, ctx, o.sizes[si], si, &bad))
			ret = 1;
	if (!ret) {
		rb_plot_table(ctx, t.lt,
			      &(struct rb_plot){
				      .file = "maple-prealloc",
				      .title = "maple-prealloc: preallocations "
					       "by nodes requested",
				      .x = "bucket",
				      .series = "live_ranges,mode",
				      .y = { "requests" },
				      .xlabel = "nodes requested",
				      .ylabel = "preallocations",
				      .skip = "total,by-op",
				      .bars = true,
			      });
		if (ctx->format == RB_TABLE) {
			rb_table_print(t.sum, ctx);
			rb_table_print(t.cmp, ctx);
			rb_table_print(t.stt, ctx);
			if (o.by_op)
				rb_table_print(t.opt, ctx);
		} else {
			rb_table_print(t.lt, ctx);
		}
	}
	rb_table_free(t.lt);
	rb_table_free(t.sum);
	rb_table_free(t.cmp);
	rb_table_free(t.stt);
	rb_table_free(t.opt);
	return ret ? ret : bad ? 1 : 0;
}

RB_COMMAND(maple_prealloc, "maple-prealloc",
	   "maple tree node preallocation: height vs vacancy",
	   run_maple_prealloc);
