// SPDX-License-Identifier: MIT
/*
 * hbitmap randomized tests against a reference model: the byte array of
 * hb_unit_model.h (1 = allocated), searched linearly for the lowest aligned
 * start whose n units are free. Every operation's result, start addresses
 * included, must match the model; sanitizer builds validate after every
 * mutation.
 */
#include <errno.h>
#include <string.h>

#include "rg_test.h"
#include "region/hbitmap.h"

#include "hb_unit_model.h"

#define NONE UINT64_MAX

struct region {
	uint64_t start, n;
};

/* The units (hb_unit_model.h) and the live regions, to free at random. */
struct model {
	struct hbm_model u;
	struct region *live;
	size_t nlive, maxlive;
};

static void model_init(struct model *m, uint64_t cap)
{
	hbm_init(&m->u, cap, cap);
	m->maxlive = 1024;
	m->nlive = 0;
	m->live = malloc(m->maxlive * sizeof(*m->live));
	assert_non_null(m->live);
}

static void model_fini(struct model *m)
{
	hbm_fini(&m->u);
	free(m->live);
}

static void model_push(struct model *m, uint64_t start, uint64_t n)
{
	if (m->nlive == m->maxlive) {
		m->maxlive *= 2;
		m->live = realloc(m->live, m->maxlive * sizeof(*m->live));
		assert_non_null(m->live);
	}
	m->live[m->nlive].start = start;
	m->live[m->nlive].n = n;
	m->nlive++;
}

static void check_stats(const struct rg_hbitmap *hb, const struct model *m)
{
	assert_int_equal(rg_hbitmap_free_units(hb), m->u.cap - m->u.used);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), hbm_largest(&m->u));
}

static uint64_t rand_size(struct rg_rand *r, uint64_t cap)
{
	uint64_t n;

	switch (rg_rand_below(r, 16)) {
	case 0:
		n = rg_rand_range(r, 1, cap); /* occasionally large */
		break;
	case 1:
		n = rg_rand_range(r, 65, 1200);
		break;
	default:
		n = rg_rand_range(r, 1, 64);
		break;
	}
	return n > cap ? cap : n;
}

static uint64_t rand_align(struct rg_rand *r, uint64_t cap)
{
	unsigned k;

	if (rg_rand_below(r, 2))
		return 1;
	k = (unsigned)rg_rand_below(r, 12);
	if (rg_rand_below(r, 32) == 0)
		k = (unsigned)rg_rand_below(r, 40);
	(void)cap;
	return 1ULL << k;
}

struct stress_stats {
	uint64_t allocs, fails, frees, reserves, busy, enoent;
};

static void do_alloc(struct rg_hbitmap *hb, struct model *m, struct rg_rand *r,
		     uint64_t n, uint64_t align, bool ranged,
		     struct stress_stats *st)
{
	uint64_t lo = 0, hi = m->u.cap, want, got = NONE;
	int err;

	if (ranged) {
		uint64_t a = rg_rand_below(r, m->u.cap),
			 b = rg_rand_below(r, m->u.cap);

		lo = a < b ? a : b;
		hi = (a < b ? b : a) + 1;
		if (rg_rand_below(r, 8) == 0)
			hi = m->u.cap;
		err = rg_hbitmap_alloc_range(
			hb, n, align, lo, hi == m->u.cap ? UINT64_MAX : hi - 1,
			&got);
	} else {
		err = rg_hbitmap_alloc(hb, n, align, &got);
	}
	if (!hbm_find(&m->u, n, align, lo, hi == m->u.cap ? UINT64_MAX : hi - 1,
		      0, RG_HBITMAP_LOWEST, &want)) {
		if (err != -ENOSPC)
			fprintf(stderr,
				"alloc n %llu align %llu [%llu,%llu): err %d "
				"got %llu, want ENOSPC\n",
				(unsigned long long)n,
				(unsigned long long)align,
				(unsigned long long)lo, (unsigned long long)hi,
				err, (unsigned long long)got);
		assert_int_equal(err, -ENOSPC);
		st->fails++;
		return;
	}
	if (err || got != want) {
		fprintf(stderr,
			"alloc n %llu align %llu [%llu,%llu): err %d got %llu "
			"want %llu\n",
			(unsigned long long)n, (unsigned long long)align,
			(unsigned long long)lo, (unsigned long long)hi, err,
			(unsigned long long)got, (unsigned long long)want);
		rg_hbitmap_dump(hb, stderr);
	}
	assert_int_equal(err, 0);
	assert_int_equal(got, want);
	hbm_set(&m->u, got, n, 1);
	model_push(m, got, n);
	st->allocs++;
}

/* Free a live region, the whole or a part of it. */
static void do_free(struct rg_hbitmap *hb, struct model *m, struct rg_rand *r,
		    struct stress_stats *st)
{
	size_t i = (size_t)rg_rand_below(r, m->nlive);
	struct region g = m->live[i];
	uint64_t a = 0, b = g.n;

	if (rg_rand_below(r, 8) == 0 && g.n > 1) {
		a = rg_rand_below(r, g.n);
		b = rg_rand_range(r, a + 1, g.n);
	}
	assert_int_equal(rg_hbitmap_free(hb, g.start + a, b - a), 0);
	hbm_set(&m->u, g.start + a, b - a, 0);
	m->live[i] = m->live[--m->nlive];
	if (a > 0)
		model_push(m, g.start, a);
	if (b < g.n)
		model_push(m, g.start + b, g.n - b);
	st->frees++;
}

static void do_reserve(struct rg_hbitmap *hb, struct model *m,
		       struct rg_rand *r, struct stress_stats *st)
{
	uint64_t n = rand_size(r, m->u.cap);
	uint64_t s = rg_rand_below(r, m->u.cap - n + 1);
	int err = rg_hbitmap_reserve(hb, s, n);

	if (hbm_range_is(&m->u, s, n, 0)) {
		assert_int_equal(err, 0);
		hbm_set(&m->u, s, n, 1);
		model_push(m, s, n);
		st->reserves++;
	} else {
		assert_int_equal(err, -EBUSY);
		st->busy++;
	}
}

/* A free that must fail: some unit of the range is free. */
static void do_bad_free(struct rg_hbitmap *hb, struct model *m,
			struct rg_rand *r, struct stress_stats *st)
{
	uint64_t n = rand_size(r, m->u.cap);
	uint64_t s = rg_rand_below(r, m->u.cap - n + 1);

	if (m->nlive && rg_rand_below(r, 2)) {
		/* a live region grown by one unit on one side */
		struct region g = m->live[rg_rand_below(r, m->nlive)];

		s = g.start;
		n = g.n;
		if (rg_rand_below(r, 2) && s > 0) {
			s--;
			n++;
		} else if (s + n < m->u.cap) {
			n++;
		}
	}
	if (hbm_range_is(&m->u, s, n, 1))
		return;
	assert_int_equal(rg_hbitmap_free(hb, s, n), -ENOENT);
	st->enoent++;
}

static void stress_run(uint64_t cap, uint64_t ops, uint64_t seed,
		       unsigned validate_every, unsigned stats_every)
{
	struct rg_hbitmap *hb = rg_hbitmap_create(cap);
	struct stress_stats st = { 0 };
	struct model m;
	struct rg_rand r;
	uint64_t target = 80, seq_n = 0;

	assert_non_null(hb);
	model_init(&m, cap);
	rg_rand_seed(&r, seed ^ cap);
	for (uint64_t op = 0; op < ops; op++) {
		uint64_t kind = rg_rand_below(&r, 100);
		uint64_t occ = m.u.used * 100 / cap;

		if (op % 4096 == 0) {
			target = rg_rand_range(&r, 10, 100);
			/* sequential phases: small sizes, or sizes spanning
			 * several blocks (runs through free blocks) */
			seq_n = rg_rand_below(&r, 3) ?
					0 :
				rg_rand_below(&r, 2) ?
					rg_rand_range(&r, 1, 40) :
					rg_rand_range(&r, 500, 3000);
		}
		if (kind < 3) {
			do_reserve(hb, &m, &r, &st);
		} else if (kind < 6) {
			do_bad_free(hb, &m, &r, &st);
			continue; /* no mutation */
		} else if (kind < 10) {
			do_alloc(hb, &m, &r, rand_size(&r, cap),
				 rand_align(&r, cap), true, &st);
		} else if (occ < target || m.nlive == 0) {
			/* sequential phases reuse one size, no alignment */
			if (seq_n)
				do_alloc(hb, &m, &r, seq_n > cap ? cap : seq_n,
					 1, false, &st);
			else
				do_alloc(hb, &m, &r, rand_size(&r, cap),
					 rand_align(&r, cap), false, &st);
		} else {
			do_free(hb, &m, &r, &st);
		}
		if (validate_every && op % validate_every == 0)
			RG_ASSERT_VALID(hb);
		if (stats_every && op % stats_every == 0)
			check_stats(hb, &m);
	}
	RG_ASSERT_VALID(hb);
	check_stats(hb, &m);
	printf("# cap %llu ops %llu: %llu allocs, %llu ENOSPC, %llu frees, "
	       "%llu reserves, %llu EBUSY, %llu ENOENT\n",
	       (unsigned long long)cap, (unsigned long long)ops,
	       (unsigned long long)st.allocs, (unsigned long long)st.fails,
	       (unsigned long long)st.frees, (unsigned long long)st.reserves,
	       (unsigned long long)st.busy, (unsigned long long)st.enoent);
	/* the run must have exercised both outcomes */
	if (ops >= 10000) {
		assert_true(st.allocs > 0);
		assert_true(st.fails > 0);
	}
	rg_hbitmap_destroy(hb);
	model_fini(&m);
}

static uint64_t seed;

/* Tiny and odd capacities: 1, word and block edges. */
static void test_small_capacities(void **state)
{
	static const uint64_t caps[] = { 1,    2,    3,	   63,	 64,
					 65,   127,  511,  512,	 513,
					 1000, 1023, 1025, 4095, 4097 };
	(void)state;
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		stress_run(caps[i], RG_THOROUGH ? 20000 : 50000, seed, 1,
			   RG_THOROUGH ? 7 : 31);
}

/* The main run: 10^6 operations at a small capacity. */
static void test_mixed_5000(void **state)
{
	(void)state;
	stress_run(5000, 1000000, seed, RG_THOROUGH ? 1 : 997,
		   RG_THOROUGH ? 61 : 251);
	stress_run(4999, RG_THOROUGH ? 200000 : 1000000, seed + 1,
		   RG_THOROUGH ? 1 : 997, 101);
}

/* Two and three node levels: exercises node-of-node updates. */
static void test_multilevel(void **state)
{
	(void)state;
	stress_run(40000, RG_THOROUGH ? 100000 : 400000, seed,
		   RG_THOROUGH ? 3 : 211, 997);
	stress_run(32768 * 64 + 777, RG_THOROUGH ? 30000 : 100000, seed,
		   RG_THOROUGH ? 2999 : 9973, 4999);
}

/*
 * The seed-000 pattern: fill with 1..32-unit regions until the first
 * failure, then free in reverse order; every start checked.
 */
static void fill_reverse(uint64_t cap, unsigned validate_every)
{
	struct rg_hbitmap *hb = rg_hbitmap_create(cap);
	struct rg_rand r;
	uint64_t *starts = malloc(sizeof(uint64_t) * (cap + 1));
	uint64_t *sizes = malloc(sizeof(uint64_t) * (cap + 1));
	uint64_t cnt = 0, expect = 0, maxn = cap / 10 < 32 ? cap / 10 : 32;

	assert_non_null(hb);
	assert_non_null(starts);
	assert_non_null(sizes);
	if (maxn < 1)
		maxn = 1;
	rg_rand_seed(&r, seed);
	for (;;) {
		uint64_t n = rg_rand_range(&r, 1, maxn), s;
		int err = rg_hbitmap_alloc(hb, n, 1, &s);

		if (err) {
			assert_int_equal(err, -ENOSPC);
			assert_true(cap - expect < n);
			break;
		}
		assert_int_equal(s, expect);
		expect += n;
		starts[cnt] = s;
		sizes[cnt++] = n;
		if (validate_every && cnt % validate_every == 0)
			RG_ASSERT_VALID(hb);
	}
	RG_ASSERT_VALID(hb);
	assert_int_equal(rg_hbitmap_free_units(hb), cap - expect);
	while (cnt--) {
		assert_int_equal(rg_hbitmap_free(hb, starts[cnt], sizes[cnt]),
				 0);
		if (validate_every && cnt % validate_every == 0)
			RG_ASSERT_VALID(hb);
	}
	RG_ASSERT_VALID(hb);
	assert_int_equal(rg_hbitmap_free_units(hb), cap);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), cap);
	free(starts);
	free(sizes);
	rg_hbitmap_destroy(hb);
}

static void test_fill_reverse(void **state)
{
	(void)state;
	fill_reverse(10, 1);
	fill_reverse(100, 1);
	fill_reverse(1000, 1);
	fill_reverse(100000, RG_THOROUGH ? 7 : 0);
	fill_reverse(1000000, RG_THOROUGH ? 0 : 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_capacities),
		cmocka_unit_test(test_fill_reverse),
		cmocka_unit_test(test_mixed_5000),
		cmocka_unit_test(test_multilevel),
	};

	seed = rg_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
