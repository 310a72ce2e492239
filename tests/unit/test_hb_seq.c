// SPDX-License-Identifier: MIT
/*
 * hbitmap: every call stays exact in and around runs of address-ordered
 * operations, through the public API only.
 *
 * A run is a sequence of allocations each starting where the previous one
 * ended (ascending) or of frees each ending where the previous one started
 * (descending), with regions of 1 .. a few thousand units, so that a run
 * covers many blocks (512 units) and crosses level-0 nodes (32768 units).
 * An implementation may defer the summaries of what such a run covered;
 * nothing here depends on whether or how it does: each call's result is
 * compared with a brute-force model (one byte per unit), and after every
 * call the structure must validate, count the model's free units and
 * report the model's state around the last call's edges (next_run and
 * test); every 7th call (and after every bad call) the largest free run
 * and a full walk of the allocated and the free runs are compared too.
 *
 * The cases: plain runs (a), runs disturbed at random points by calls of
 * every other kind (b), runs whose regions end at or next to block and
 * node boundaries (c), bad input in the middle of a run (d), and a
 * randomized mix of runs and other calls over 20 seeds (RG_SEED sets the
 * first; a failure prints the seed, the step and the call).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rg_test.h"
#include "region/hbitmap.h"

#include "hb_unit_model.h"

#define BLK 512u /* units per block */
#define L0 32768u /* units per level-0 node */
#define MAXREQ 4096u /* the usual largest region of a run */
#define DEEP_EVERY 7u /* calls between full comparisons */

/* ---------------------------------------------------------------- model */

/* The model is hb_unit_model.h's; here what only this test needs. */

static bool pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* Length of the allocated run ending at unit e - 1, at most max. */
static uint64_t m_alloc_before(const struct hbm_model *md, uint64_t e,
			       uint64_t max)
{
	uint64_t k = 0;

	while (k < max && e > k && md->unit[e - k - 1])
		k++;
	return k;
}

/* One past the highest allocated unit below e (0 if none). */
static uint64_t m_alloc_end_below(const struct hbm_model *md, uint64_t e)
{
	uint64_t w = 0;

	while (e >= 8) {
		memcpy(&w, md->unit + e - 8, 8);
		if (w)
			break;
		e -= 8;
	}
	while (e > 0 && !md->unit[e - 1])
		e--;
	return e;
}

/* ------------------------------------------------------ the test state */

struct reg {
	uint64_t s, n;
};

struct tc {
	struct rg_hbitmap *hb;
	struct hbm_model md;
	struct rg_rand rng; /* every random choice (rg_rand.h) */
	uint64_t seed, calls;
	const char *name, *op;
	uint64_t lo, hi; /* the last call's range */
	struct reg *regs; /* the regions of the ascending fill */
	size_t nregs, maxregs;
	uint64_t origcap;
};

static void ctx_print(const struct tc *t)
{
	fprintf(stderr,
		"# %s: seed %llu, after call %llu (%s [%llu, %llu)), "
		"capacity %llu\n",
		t->name, (unsigned long long)t->seed,
		(unsigned long long)t->calls, t->op ? t->op : "-",
		(unsigned long long)t->lo, (unsigned long long)t->hi,
		(unsigned long long)t->md.cap);
}

#define EXPECT_EQ(t, got, want) \
	expect_eq((t), (uint64_t)(got), (uint64_t)(want), #got, __LINE__)

static void expect_eq(const struct tc *t, uint64_t got, uint64_t want,
		      const char *what, int line)
{
	if (got == want)
		return;
	ctx_print(t);
	fail_msg("line %d: %s is %lld, the model says %lld", line, what,
		 (long long)got, (long long)want);
}

/*
 * What the running case holds, for the teardown when an assertion leaves
 * it (the handle and the arrays keep their addresses until tc_fini()).
 */
static struct {
	struct rg_hbitmap *hb;
	uint8_t *m;
	struct reg *regs;
} tc_live;

static void tc_init(struct tc *t, const char *name, uint64_t cap,
		    uint64_t maxcap, uint64_t seed)
{
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->seed = seed;
	rg_rand_seed(&t->rng, seed);
	t->origcap = cap;
	hbm_init(&t->md, cap, maxcap);
	tc_live.m = t->md.unit;
	t->maxregs = maxcap / 16 + 4096;
	t->regs = tc_live.regs = calloc(t->maxregs, sizeof(*t->regs));
	assert_non_null(t->regs);
	t->hb = tc_live.hb = rg_hbitmap_create(cap);
	assert_non_null(t->hb);
	RG_ASSERT_VALID(t->hb);
}

static int teardown(void **state)
{
	(void)state;
	rg_hbitmap_destroy(tc_live.hb);
	free(tc_live.m);
	free(tc_live.regs);
	memset(&tc_live, 0, sizeof(tc_live));
	return 0;
}

static void tc_fini(struct tc *t)
{
	teardown(NULL);
	memset(t, 0, sizeof(*t));
}

/* Every run of @state in address order, as the model has them. */
static void check_walk(const struct tc *t, int state)
{
	uint64_t from = 0, s = 0, n = 0, ms, mn;
	int rc;

	for (;;) {
		rc = rg_hbitmap_next_run(t->hb, from, state, &s, &n);
		if (!hbm_next(&t->md, from, state, &ms, &mn)) {
			EXPECT_EQ(t, rc, -ENOENT);
			return;
		}
		EXPECT_EQ(t, rc, 0);
		EXPECT_EQ(t, s, ms);
		EXPECT_EQ(t, n, mn);
		from = s + n;
	}
}

/* next_run from @from in both states, and test() of @from. */
static void check_probe(const struct tc *t, uint64_t from)
{
	uint64_t s = 0, n = 0, ms, mn;

	for (int state = 0; state < 2; state++) {
		int rc = rg_hbitmap_next_run(t->hb, from, state, &s, &n);

		if (hbm_next(&t->md, from, state, &ms, &mn)) {
			EXPECT_EQ(t, rc, 0);
			EXPECT_EQ(t, s, ms);
			EXPECT_EQ(t, n, mn);
		} else {
			EXPECT_EQ(t, rc, -ENOENT);
		}
	}
	EXPECT_EQ(t, rg_hbitmap_test(t->hb, from),
		  from < t->md.cap ? t->md.unit[from] : -EINVAL);
}

static void check_deep(const struct tc *t)
{
	EXPECT_EQ(t, rg_hbitmap_largest_free_run(t->hb), hbm_largest(&t->md));
	check_walk(t, 1);
	check_walk(t, 0);
}

/* After every call: validate, counts, and the state at the call's edges. */
static void after_call(struct tc *t, const char *op, uint64_t lo, uint64_t hi)
{
	t->op = op;
	t->lo = lo;
	t->hi = hi;
	t->calls++;
	RG_ASSERT_VALIDF(t->hb, "%s seed %llu call %llu %s [%llu, %llu)",
			 t->name, (unsigned long long)t->seed,
			 (unsigned long long)t->calls, op,
			 (unsigned long long)lo, (unsigned long long)hi);
	EXPECT_EQ(t, rg_hbitmap_capacity(t->hb), t->md.cap);
	EXPECT_EQ(t, rg_hbitmap_free_units(t->hb), t->md.cap - t->md.used);
	check_probe(t, lo - 1);
	check_probe(t, lo);
	check_probe(t, hi - 1);
	check_probe(t, hi);
	if (t->calls % DEEP_EVERY == 0)
		check_deep(t);
}

/* ------------------------------------------------- calls and the model */

/*
 * Result of an allocation call: the model's start (*@want, read here, after
 * the model's search filled it in), or -ENOSPC.
 */
static int alloc_done(struct tc *t, const char *op, int rc, bool fit,
		      const uint64_t *want, uint64_t got, uint64_t n)
{
	if (fit) {
		EXPECT_EQ(t, rc, 0);
		EXPECT_EQ(t, got, *want);
		hbm_set(&t->md, got, n, 1);
		after_call(t, op, got, got + n);
	} else {
		EXPECT_EQ(t, rc, -ENOSPC);
		after_call(t, op, t->lo, t->hi);
	}
	return rc;
}

/* A call the model rejects: its documented error, and nothing changed. */
static int bad_done(struct tc *t, const char *op, int rc, int want)
{
	EXPECT_EQ(t, rc, want);
	after_call(t, op, t->lo, t->hi);
	check_deep(t);
	return rc;
}

static bool bad_alloc(const struct tc *t, uint64_t n, uint64_t align)
{
	return n == 0 || n > t->md.cap || !pow2(align);
}

static int do_alloc(struct tc *t, uint64_t n, uint64_t align, uint64_t *start)
{
	uint64_t want = 0, got = UINT64_MAX;
	int rc = rg_hbitmap_alloc(t->hb, n, align, &got);

	if (bad_alloc(t, n, align))
		return bad_done(t, "alloc (bad)", rc, -EINVAL);
	rc = alloc_done(t, "alloc", rc, hbm_first_fit(&t->md, n, align, &want),
			&want, got, n);
	if (start && rc == 0)
		*start = got;
	return rc;
}

static int do_alloc_range(struct tc *t, uint64_t n, uint64_t align,
			  uint64_t min, uint64_t max)
{
	uint64_t want = 0, got = UINT64_MAX;
	int rc = rg_hbitmap_alloc_range(t->hb, n, align, min, max, &got);

	if (bad_alloc(t, n, align) || min > max)
		return bad_done(t, "alloc_range (bad)", rc, -EINVAL);
	return alloc_done(t, "alloc_range", rc,
			  hbm_find(&t->md, n, align, min, max, 0,
				   RG_HBITMAP_LOWEST, &want),
			  &want, got, n);
}

static int do_alloc_rev(struct tc *t, uint64_t n, uint64_t align)
{
	uint64_t want = 0, got = UINT64_MAX;
	int rc = rg_hbitmap_alloc_rev(t->hb, n, align, &got);

	if (bad_alloc(t, n, align))
		return bad_done(t, "alloc_rev (bad)", rc, -EINVAL);
	return alloc_done(t, "alloc_rev", rc,
			  hbm_find(&t->md, n, align, 0, UINT64_MAX, 0,
				   RG_HBITMAP_HIGHEST, &want),
			  &want, got, n);
}

static int do_window(struct tc *t, uint64_t n, uint64_t align, uint64_t min,
		     uint64_t max, uint64_t bnd, unsigned int place)
{
	uint64_t want = 0, got = UINT64_MAX;
	int rc = rg_hbitmap_alloc_window(t->hb, n, align, min, max, bnd, place,
					 &got);

	if (bad_alloc(t, n, align) || min > max ||
	    (bnd && (!pow2(bnd) || bnd < n)) || place > RG_HBITMAP_HIGHEST)
		return bad_done(t, "alloc_window (bad)", rc, -EINVAL);
	return alloc_done(
		t, "alloc_window", rc,
		hbm_find(&t->md, n, align, min, max, bnd, place, &want), &want,
		got, n);
}

/* free (set 0) or reserve (set 1) [s, s + n), checked against the model. */
static int do_change(struct tc *t, uint64_t s, uint64_t n, int set)
{
	const char *op = set ? "reserve" : "free";
	int rc = set ? rg_hbitmap_reserve(t->hb, s, n) :
		       rg_hbitmap_free(t->hb, s, n);
	int want = 0;

	if (n == 0 || s > UINT64_MAX - n || s + n > t->md.cap)
		want = -EINVAL;
	else if (!hbm_range_is(&t->md, s, n, !set))
		want = set ? -EBUSY : -ENOENT;
	if (want)
		return bad_done(t, set ? "reserve (bad)" : "free (bad)", rc,
				want);
	EXPECT_EQ(t, rc, 0);
	hbm_set(&t->md, s, n, set);
	after_call(t, op, s, s + n);
	return rc;
}

static int do_free(struct tc *t, uint64_t s, uint64_t n)
{
	return do_change(t, s, n, 0);
}

static int do_reserve(struct tc *t, uint64_t s, uint64_t n)
{
	return do_change(t, s, n, 1);
}

static int do_resize(struct tc *t, uint64_t c)
{
	struct hbm_model *md = &t->md;
	int rc = rg_hbitmap_resize(t->hb, c);
	uint64_t a, len;
	int want = 0;

	if (c == 0 || c > RG_HBITMAP_MAX_CAPACITY)
		want = -EINVAL;
	else if (c < md->cap && hbm_next(md, c, 1, &a, &len))
		want = -EBUSY;
	if (want)
		return bad_done(t, "resize (bad)", rc, want);
	EXPECT_EQ(t, rc, 0);
	assert_true(c <= md->maxcap); /* the array stays (tc_live.m) */
	hbm_resize(md, c);
	after_call(t, "resize", t->lo, t->hi);
	return rc;
}

/* Free the allocated units of [s, s + n) from the top down. */
static void free_desc(struct tc *t, uint64_t s, uint64_t n)
{
	uint64_t e = s + n < t->md.cap ? s + n : t->md.cap;

	while (e > s) {
		uint64_t k = m_alloc_before(&t->md, e, e - s);

		if (k) {
			do_free(t, e - k, k);
			e -= k;
		} else {
			e = m_alloc_end_below(&t->md, e);
		}
	}
}

/* Free everything left, top down, and check that all is free. */
static void drain(struct tc *t)
{
	free_desc(t, 0, t->md.cap);
	EXPECT_EQ(t, rg_hbitmap_free_units(t->hb), t->md.cap);
	EXPECT_EQ(t, rg_hbitmap_largest_free_run(t->hb), t->md.cap);
	check_deep(t);
}

static void push_reg(struct tc *t, uint64_t s, uint64_t n)
{
	assert_true(t->nregs < t->maxregs);
	t->regs[t->nregs].s = s;
	t->regs[t->nregs].n = n;
	t->nregs++;
}

/* ------------------------------------------------- disturbing calls */

enum {
	D_SMALL, /* a small allocation: lands at the first fit */
	D_FREE_LIVE, /* free a random live region */
	D_NOT_ON, /* an allocation that does not follow on */
	D_RANGE, /* alloc_range inside a random window */
	D_REV, /* alloc_rev */
	D_RESERVE, /* reserve part of a free run */
	D_RESIZE, /* shrink or grow where legal */
	D_FREE_NODE, /* a free crossing a level-0 node boundary */
	D_TO_BOUNDARY, /* an allocation ending at a block or node boundary */
	D_WINDOW, /* alloc_window, any placement and boundary */
	D_BAD, /* a call with bad input */
	D_KINDS
};

static uint64_t rnd_align(struct tc *t)
{
	return (uint64_t)1 << rg_rand_below(&t->rng, 10);
}

static void disturb_resize(struct tc *t)
{
	struct hbm_model *md = &t->md;
	uint64_t top = 0, from = 0, a, len;

	if (md->cap < t->origcap || rg_rand_below(&t->rng, 4) == 0) {
		/* grow, at most to maxcap */
		uint64_t room = md->maxcap - md->cap;

		if (room)
			do_resize(t,
				  md->cap + 1 + rg_rand_below(&t->rng, room));
		return;
	}
	while (hbm_next(md, from, 1, &a, &len)) {
		top = a + len;
		from = top;
	}
	if (top >= md->cap)
		return;
	if (top < md->cap && rg_rand_below(&t->rng, 3) == 0 && top > 0) {
		/* cut at an allocated unit: -EBUSY, nothing changes */
		do_resize(t, top - 1 - rg_rand_below(&t->rng, top));
		return;
	}
	do_resize(t, top + 1 + rg_rand_below(&t->rng, md->cap - top));
}

/* A free of allocated units around a node boundary, if any is there. */
static void disturb_free_node(struct tc *t)
{
	struct hbm_model *md = &t->md;
	uint64_t nodes = md->cap / L0, k, b, below, above;

	if (nodes == 0)
		return;
	k = 1 + rg_rand_below(&t->rng, nodes);
	for (uint64_t i = 0; i < nodes; i++, k = k % nodes + 1) {
		b = k * L0;
		if (b >= md->cap || !md->unit[b - 1] || !md->unit[b])
			continue;
		below = m_alloc_before(md, b, 1 + rg_rand_below(&t->rng, 3000));
		above = 0;
		while (above < 3000 && b + above < md->cap &&
		       md->unit[b + above])
			above++;
		above = 1 + rg_rand_below(&t->rng, above);
		do_free(t, b - below, below + above);
		return;
	}
}

static void disturb_bad(struct tc *t)
{
	struct hbm_model *md = &t->md;
	uint64_t cap = md->cap, u = rg_rand_below(&t->rng, cap), s, n;

	switch (rg_rand_below(&t->rng, 8)) {
	case 0: /* free of units not allocated (or past the end) */
		if (hbm_next(md, u, 0, &s, &n))
			do_free(t, s, 1 + rg_rand_below(&t->rng, n + 3));
		break;
	case 1: /* reserve over allocated units */
		if (hbm_next(md, u, 1, &s, &n))
			do_reserve(t, s + rg_rand_below(&t->rng, n), 1 + n);
		break;
	case 2:
		do_alloc(t, 0, 1, NULL);
		break;
	case 3:
		do_free(t, u, 0);
		break;
	case 4: /* past the capacity */
		do_free(t, cap - 1, 2 + rg_rand_below(&t->rng, 100));
		break;
	case 5:
		do_reserve(t, UINT64_MAX - 2, 5);
		break;
	case 6:
		do_alloc(t, cap + 1, 1, NULL);
		break;
	default:
		do_alloc(t, 1 + rg_rand_below(&t->rng, 100), 3, NULL);
		break;
	}
}

static void disturb(struct tc *t, unsigned int kind)
{
	struct hbm_model *md = &t->md;
	uint64_t cap = md->cap, s, n, lo, w, align;

	switch (kind) {
	case D_SMALL:
		do_alloc(t, 1 + rg_rand_below(&t->rng, 16), 1, NULL);
		break;
	case D_FREE_LIVE:
		if (t->nregs) {
			struct reg *r =
				&t->regs[rg_rand_below(&t->rng, t->nregs)];
			uint64_t e = r->s + r->n < cap ? r->s + r->n : cap;

			if (r->s < e && hbm_next(md, r->s, 1, &s, &n) && s < e)
				do_free(t, s, (s + n < e ? s + n : e) - s);
		}
		break;
	case D_NOT_ON:
		lo = t->hi + 1 + rg_rand_below(&t->rng, 2 * BLK);
		do_alloc_range(t, 1 + rg_rand_below(&t->rng, MAXREQ), 1, lo,
			       UINT64_MAX);
		break;
	case D_RANGE:
		lo = rg_rand_below(&t->rng, cap);
		w = 1 + rg_rand_below(&t->rng, 3 * L0);
		align = rg_rand_below(&t->rng, 2) ? 1 : rnd_align(t);
		do_alloc_range(
			t, 1 + rg_rand_below(&t->rng, w < MAXREQ ? w : MAXREQ),
			align, lo, lo + w - 1);
		break;
	case D_REV:
		do_alloc_rev(t, 1 + rg_rand_below(&t->rng, MAXREQ),
			     rg_rand_below(&t->rng, 2) ? 1 : rnd_align(t));
		break;
	case D_RESERVE:
		if (hbm_next(md, rg_rand_below(&t->rng, cap), 0, &s, &n)) {
			uint64_t off = rg_rand_below(&t->rng, n);
			uint64_t k = n - off < MAXREQ ? n - off : MAXREQ;

			do_reserve(t, s + off, 1 + rg_rand_below(&t->rng, k));
		}
		break;
	case D_RESIZE:
		disturb_resize(t);
		break;
	case D_FREE_NODE:
		disturb_free_node(t);
		break;
	case D_TO_BOUNDARY: {
		uint64_t b = rg_rand_below(&t->rng, 2) ? BLK : L0;

		do_alloc(t, hbm_round_up(t->hi + 1, b) - t->hi, 1, NULL);
		break;
	}
	case D_WINDOW: {
		uint64_t bnd = 0;

		lo = rg_rand_below(&t->rng, cap);
		w = 1 + rg_rand_below(&t->rng, 4 * L0);
		n = 1 + rg_rand_below(&t->rng, w < MAXREQ ? w : MAXREQ);
		if (rg_rand_below(&t->rng, 2)) {
			bnd = 1;
			while (bnd < n)
				bnd <<= 1;
			bnd <<= rg_rand_below(&t->rng, 4);
		}
		do_window(t, n, rg_rand_below(&t->rng, 2) ? 1 : rnd_align(t),
			  lo, lo + w - 1, bnd,
			  (unsigned int)rg_rand_below(&t->rng, 3));
		break;
	}
	default:
		disturb_bad(t);
		break;
	}
}

/* ------------------------------------------------------ (a) and (b) */

/*
 * Allocate regions of 1 .. 4096 units until -ENOSPC, then free them in
 * reverse order; with @disturb_pct, a disturbing call of a random kind
 * follows that percentage of the calls of both phases.
 */
static void fill_and_drain(const char *name, uint64_t cap, uint64_t seed,
			   unsigned int disturb_pct)
{
	struct tc t;
	uint64_t s = 0;

	tc_init(&t, name, cap, cap + 3 * L0, seed);
	for (;;) {
		uint64_t n = 1 + rg_rand_below(&t.rng, MAXREQ);

		if (do_alloc(&t, n, 1, &s))
			break;
		push_reg(&t, s, n);
		if (rg_rand_below(&t.rng, 100) < disturb_pct)
			disturb(&t,
				(unsigned int)rg_rand_below(&t.rng, D_KINDS));
	}
	while (t.nregs) {
		struct reg r = t.regs[--t.nregs];

		if (disturb_pct)
			free_desc(&t, r.s, r.n);
		else
			do_free(&t, r.s, r.n);
		if (rg_rand_below(&t.rng, 100) < disturb_pct)
			disturb(&t,
				(unsigned int)rg_rand_below(&t.rng, D_KINDS));
	}
	drain(&t);
	tc_fini(&t);
}

static const uint64_t caps[] = { 100000, 300007, 1000000 };

static void test_fill_plain(void **state)
{
	(void)state;
	for (size_t i = 0; i < RGT_ARRAY_SIZE(caps); i++)
		fill_and_drain("fill_plain", caps[i], 0x5eed0 + i, 0);
}

static void test_fill_disturbed(void **state)
{
	(void)state;
	for (size_t i = 0; i < RGT_ARRAY_SIZE(caps); i++) {
		fill_and_drain("fill_disturbed", caps[i], 0xd157 + i, 10);
		fill_and_drain("fill_disturbed", caps[i], 0xd1570 + i, 35);
	}
}

/* Each disturbing kind alone, often, so none is left to chance. */
static void test_fill_each_disturbance(void **state)
{
	(void)state;
	for (unsigned int k = 0; k < D_KINDS; k++) {
		struct tc t;
		uint64_t s = 0;

		tc_init(&t, "fill_each_disturbance", 100000 + 777 * k,
			100000 + 777 * k + 3 * L0, 0xe4c0 + k);
		for (;;) {
			uint64_t n = 1 + rg_rand_below(&t.rng, MAXREQ);

			if (do_alloc(&t, n, 1, &s))
				break;
			push_reg(&t, s, n);
			if (rg_rand_below(&t.rng, 4) == 0)
				disturb(&t, k);
		}
		while (t.nregs) {
			struct reg r = t.regs[--t.nregs];

			free_desc(&t, r.s, r.n);
			if (rg_rand_below(&t.rng, 4) == 0)
				disturb(&t, k);
		}
		drain(&t);
		tc_fini(&t);
	}
}

/* ---------------------------------------------------------------- (c) */

/*
 * Ascending fills of sizes at and next to the block and node sizes, after
 * a reserved head of @off units, then frees in reverse order, each region
 * in two descending pieces when @halves.
 */
static void fill_boundaries(uint64_t cap, uint64_t off, uint64_t align,
			    bool halves, uint64_t seed)
{
	static const uint64_t sizes[] = {
		1,     2,     511,	 512,	      513,	   1023,
		1024,  1025,  1536,	 4095,	      4096,	   4097,
		32767, 32768, 32769,	 32768 - 512, 32768 + 512, 65535,
		65536, 65537, 3 * 32768, 32768 - 1,
	};
	struct tc t;
	uint64_t s = 0;

	tc_init(&t, "fill_boundaries", cap, cap, seed);
	if (off)
		do_reserve(&t, 0, off);
	for (;;) {
		uint64_t n =
			sizes[rg_rand_below(&t.rng, RGT_ARRAY_SIZE(sizes))];

		if (align > 1)
			n = hbm_round_up(n, align);
		if (do_alloc(&t, n, align, &s)) {
			/* the tail: the largest piece that still fits */
			uint64_t l = hbm_largest(&t.md);

			if (!l || (align > 1 && l < align))
				break;
			n = align > 1 ? l & ~(align - 1) : l;
			if (!n || do_alloc(&t, n, align, &s))
				break;
		}
		push_reg(&t, s, n);
	}
	EXPECT_EQ(&t, rg_hbitmap_largest_free_run(t.hb), hbm_largest(&t.md));
	while (t.nregs) {
		struct reg r = t.regs[--t.nregs];

		if (halves && r.n > 1) {
			do_free(&t, r.s + r.n / 2, r.n - r.n / 2);
			do_free(&t, r.s, r.n / 2);
		} else {
			do_free(&t, r.s, r.n);
		}
	}
	drain(&t);
	tc_fini(&t);
}

static void test_fill_boundaries(void **state)
{
	static const uint64_t offs[] = {
		0, 1, 511, 512, 32767, 32768 - 3, 32768
	};

	(void)state;
	for (size_t i = 0; i < RGT_ARRAY_SIZE(offs); i++) {
		fill_boundaries(300007, offs[i], 1, i & 1, 0xb0 + i);
		fill_boundaries(1000000, offs[i], 1, !(i & 1), 0xb00 + i);
	}
	/* block-aligned and node-aligned regions, each at a block start */
	fill_boundaries(300007, 0, BLK, false, 0xa1);
	fill_boundaries(300007, 512, BLK, true, 0xa2);
	fill_boundaries(1000000, 0, L0, true, 0xa3);
	fill_boundaries(1000000, 32768, L0, false, 0xa4);
}

/* ---------------------------------------------------------------- (d) */

/* Every kind of bad input, with the state checked after each. */
static void bad_calls(struct tc *t, uint64_t last_s, uint64_t last_n)
{
	struct hbm_model *md = &t->md;
	uint64_t cap = md->cap, s, n;

	/* units never allocated */
	assert_true(hbm_next(md, 0, 0, &s, &n));
	do_free(t, s, 1);
	do_free(t, s + n - 1, 1);
	do_free(t, s > 0 ? s - 1 : s, 2); /* one taken, one free */
	/* a double free, when the last call freed [last_s, +last_n) */
	if (last_n && hbm_range_is(md, last_s, last_n, 0)) {
		do_free(t, last_s, last_n);
		do_free(t, last_s + last_n / 2, 1);
		do_free(t, last_s - 1, last_n + 1);
	}
	/* long ranges allocated but for their first or their last unit */
	for (uint64_t from = 0; hbm_next(md, from, 1, &s, &n); from = s + n) {
		uint64_t k = n < 700 ? n : 700;

		if (s > 0)
			do_free(t, s - 1, k + 1);
		if (s + n < cap)
			do_free(t, s + n - k, k + 1);
		if (k > 64 && s > 0 && s + n < cap)
			break;
	}
	/* reserve over allocated units */
	if (hbm_next(md, 0, 1, &s, &n)) {
		do_reserve(t, s + n - 1, 2);
		do_reserve(t, s, n);
	}
	/* n == 0 */
	do_alloc(t, 0, 1, NULL);
	do_alloc_range(t, 0, 1, 0, cap);
	do_window(t, 0, 1, 0, cap, 0, RG_HBITMAP_LOWEST);
	do_free(t, last_s, 0);
	do_reserve(t, last_s + last_n, 0);
	/* past the capacity, overflowing */
	do_free(t, cap - 1, 2);
	do_free(t, cap, 1);
	do_free(t, UINT64_MAX, 2);
	do_reserve(t, cap - 3, 4);
	do_reserve(t, UINT64_MAX - 1, 3);
	do_alloc(t, cap + 1, 1, NULL);
	do_alloc_range(t, cap + 1, 1, 0, UINT64_MAX);
	/* other bad arguments */
	do_alloc(t, 8, 3, NULL);
	do_alloc(t, 8, 0, NULL);
	do_alloc_range(t, 8, 1, 1000, 999);
	do_window(t, 600, 1, 0, cap, 512, RG_HBITMAP_LOWEST);
	do_window(t, 8, 1, 0, cap, 24, RG_HBITMAP_LOWEST);
	do_window(t, 8, 1, 0, cap, 0, 7);
	do_resize(t, 0);
	do_resize(t, RG_HBITMAP_MAX_CAPACITY + 1);
	if (hbm_next(md, 0, 1, &s, &n))
		do_resize(t, s + n - 1); /* cuts an allocated unit */
	EXPECT_EQ(t, rg_hbitmap_next_run(t->hb, 0, 1, NULL, &n), -EINVAL);
	EXPECT_EQ(t, rg_hbitmap_next_run(t->hb, 0, 0, &s, NULL), -EINVAL);
	check_probe(t, cap);
	check_probe(t, UINT64_MAX);
	check_deep(t);
}

static void test_bad_input_mid_run(void **state)
{
	static const uint64_t caps_d[] = { 100000, 300007 };

	(void)state;
	for (size_t c = 0; c < RGT_ARRAY_SIZE(caps_d); c++) {
		struct tc t;
		uint64_t s = 0, n = 0;

		tc_init(&t, "bad_input_mid_run", caps_d[c], caps_d[c],
			0xbad0 + c);
		/* an island near the top, with free units on both sides */
		do_reserve(&t, caps_d[c] - 3000, 2000);
		/* ascending: bad calls at several points of the fill */
		for (unsigned int i = 0;; i++) {
			n = 1 + rg_rand_below(&t.rng, MAXREQ);
			if (do_alloc(&t, n, 1, &s))
				break;
			push_reg(&t, s, n);
			if (i % 9 == 4)
				bad_calls(&t, s, n);
		}
		assert_true(t.nregs > 0);
		bad_calls(&t, t.regs[t.nregs - 1].s, t.regs[t.nregs - 1].n);
		/* descending: after a free, the double free among them */
		for (unsigned int i = 0; t.nregs; i++) {
			struct reg r = t.regs[--t.nregs];

			do_free(&t, r.s, r.n);
			if (i % 9 == 4)
				bad_calls(&t, r.s, r.n);
		}
		drain(&t);
		tc_fini(&t);
	}
}

/* ---------------------------------------------------------- randomized */

static uint64_t rnd_size(struct tc *t)
{
	uint64_t r = rg_rand_below(&t->rng, 100);

	if (r < 60)
		return 1 + rg_rand_below(&t->rng, MAXREQ);
	if (r < 80)
		return 1 + rg_rand_below(&t->rng, 64);
	if (r < 90)
		return BLK * (1 + rg_rand_below(&t->rng, 8));
	return L0 - 600 + rg_rand_below(&t->rng, 1200);
}

static void random_run(uint64_t seed, uint64_t ops)
{
	struct tc t;
	uint64_t caps_r[] = { L0 + 4097, 2 * L0 + 1, 2 * L0 + 513, 70000,
			      3 * L0 - 1 };
	uint64_t cap, cursor = 0, s = 0, k;
	struct rg_rand rng;
	bool asc = true;

	rg_rand_seed(&rng, seed);
	cap = caps_r[rg_rand_below(&rng, RGT_ARRAY_SIZE(caps_r))] +
	      (rg_rand_below(&rng, 2) ? 0 : rg_rand_below(&rng, 4096));
	tc_init(&t, "random", cap, cap + 8192, seed);
	t.rng = rng;
	for (uint64_t op = 0; op < ops; op++) {
		uint64_t r = rg_rand_below(&t.rng, 100);

		if (r < 14) {
			unsigned int kind =
				(unsigned int)rg_rand_below(&t.rng, D_KINDS);

			/* resizes reallocate: a quarter of their share */
			if (kind == D_RESIZE && rg_rand_below(&t.rng, 4))
				kind = D_SMALL;
			disturb(&t, kind);
			continue;
		}
		if (asc) {
			uint64_t n = rnd_size(&t), align = 1;

			if (r < 20) { /* aligned, sizes keeping the run */
				align = rnd_align(&t);
				n = hbm_round_up(n, align);
			}
			if (t.nregs + 1 >= t.maxregs)
				t.nregs = 0;
			if (do_alloc(&t, n, align, &s) == 0)
				push_reg(&t, s, n);
			else if (t.md.used * 10 > t.md.cap * 6 || r < 50)
				r = 99;
			if (r == 99) {
				asc = false;
				cursor = t.md.cap;
			}
			continue;
		}
		/* descending: free what ends where the last free started */
		if (cursor > t.md.cap)
			cursor = t.md.cap;
		if (cursor == 0 || !t.md.unit[cursor - 1]) {
			cursor = m_alloc_end_below(&t.md, cursor);
			if (cursor == 0 || r == 99 ||
			    (t.md.used * 10 < t.md.cap * 2 && r < 60)) {
				asc = true;
				continue;
			}
		}
		k = m_alloc_before(&t.md, cursor,
				   r < 90 ? 1 + rg_rand_below(&t.rng, MAXREQ) :
					    rnd_size(&t));
		do_free(&t, cursor - k, k);
		cursor -= k;
	}
	drain(&t);
	tc_fini(&t);
}

static void test_random(void **state)
{
	uint64_t base = rg_test_seed();

	(void)state;
	for (uint64_t i = 0; i < 20; i++)
		random_run(base + i, 20000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_fill_plain, teardown),
		cmocka_unit_test_teardown(test_fill_disturbed, teardown),
		cmocka_unit_test_teardown(test_fill_each_disturbance, teardown),
		cmocka_unit_test_teardown(test_fill_boundaries, teardown),
		cmocka_unit_test_teardown(test_bad_input_mid_run, teardown),
		cmocka_unit_test_teardown(test_random, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
