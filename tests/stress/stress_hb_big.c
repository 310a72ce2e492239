// SPDX-License-Identifier: MIT
/*
 * hbitmap first fit on regions that span several blocks (1 .. 4096 units
 * and more), in lockstep with a reference model: a byte array (1 =
 * allocated) searched linearly for the lowest aligned start. The runs
 * mimic regionbench's big workload (a fill in address order until the
 * first failure, then frees in reverse order) and disturb it: small
 * regions mixed in, holes freed behind the fill, random frees and
 * refills, alignments up to 4096. Every start must match the model; the
 * structure is validated after every mutation (after every few at the
 * largest capacities).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "rg_test.h"
#include "region/hbitmap.h"

#include "hb_unit_model.h"

#define NONE UINT64_MAX

/* The model (hb_unit_model.h) and the regions live in it. */
struct big_model {
	struct hbm_model md;
	uint64_t *start, *len; /* live regions */
	size_t nlive, max;
};

static void bm_init(struct big_model *m, uint64_t cap)
{
	hbm_init(&m->md, cap, cap);
	m->max = cap + 1;
	m->start = malloc(m->max * sizeof(uint64_t));
	m->len = malloc(m->max * sizeof(uint64_t));
	m->nlive = 0;
	assert_non_null(m->start);
	assert_non_null(m->len);
}

static void bm_fini(struct big_model *m)
{
	hbm_fini(&m->md);
	free(m->start);
	free(m->len);
}

static void check(struct rg_hbitmap *hb, const struct big_model *m,
		  bool validate)
{
	if (validate)
		RG_ASSERT_VALID(hb);
	assert_int_equal(rg_hbitmap_free_units(hb), m->md.cap - m->md.used);
}

/* Allocate n (align) on both; the starts must agree. */
static bool big_alloc(struct rg_hbitmap *hb, struct big_model *m, uint64_t n,
		      uint64_t align, bool validate)
{
	uint64_t want = NONE, got = NONE;
	bool fit = hbm_first_fit(&m->md, n, align, &want);
	int err = rg_hbitmap_alloc(hb, n, align, &got);

	if (!fit) {
		assert_int_equal(err, -ENOSPC);
		check(hb, m, validate);
		return false;
	}
	if (err || got != want) {
		fprintf(stderr,
			"alloc n %llu align %llu: err %d got %llu "
			"want %llu\n",
			(unsigned long long)n, (unsigned long long)align, err,
			(unsigned long long)got, (unsigned long long)want);
		rg_hbitmap_dump(hb, stderr);
	}
	assert_int_equal(err, 0);
	assert_int_equal(got, want);
	hbm_set(&m->md, got, n, 1);
	m->start[m->nlive] = got;
	m->len[m->nlive++] = n;
	check(hb, m, validate);
	return true;
}

/* Free live region i on both. */
static void big_free(struct rg_hbitmap *hb, struct big_model *m, size_t i,
		     bool validate)
{
	uint64_t s = m->start[i], n = m->len[i];

	assert_int_equal(rg_hbitmap_free(hb, s, n), 0);
	/* freeing it again fails and changes nothing */
	assert_int_equal(rg_hbitmap_free(hb, s, n), -ENOENT);
	hbm_set(&m->md, s, n, 0);
	m->start[i] = m->start[m->nlive - 1];
	m->len[i] = m->len[--m->nlive];
	check(hb, m, validate);
}

static uint64_t pick_align(struct rg_rand *r, unsigned mode)
{
	if (mode == 0 || rg_rand_below(r, 2))
		return 1;
	return 1ULL << rg_rand_below(r, mode == 1 ? 7 : 13);
}

static uint64_t pick_size(struct rg_rand *r, uint64_t maxn)
{
	uint64_t k = rg_rand_below(r, 8);

	/* small regions between big ones; multiples of 64 units, so that
	 * regions often end where a word or block does */
	if (k == 0)
		return rg_rand_range(r, 1, 64 < maxn ? 64 : maxn);
	if (k <= 2 && maxn >= 64)
		return 64 * rg_rand_range(r, 1, maxn / 64);
	return rg_rand_range(r, 1, maxn);
}

/*
 * Fill in address order until the first failure, free in reverse order
 * (the benchmark's pattern), then churn: frees of random regions (holes
 * behind the fill), refills with the same sizes, and a final fill and
 * reverse free.
 */
static void big_run(uint64_t cap, uint64_t maxn, unsigned amode, uint64_t seed,
		    unsigned validate_every)
{
	struct rg_hbitmap *hb = rg_hbitmap_create(cap);
	struct big_model m;
	struct rg_rand r;
	uint64_t op = 0;

	assert_non_null(hb);
	bm_init(&m, cap);
	rg_rand_seed(&r, seed ^ cap ^ (maxn << 20) ^ amode);
	for (unsigned round = 0; round < 3; round++) {
		/* fill */
		while (big_alloc(hb, &m, pick_size(&r, maxn),
				 pick_align(&r, amode),
				 op++ % validate_every == 0))
			;
		if (round == 1) {
			/* churn behind the fill */
			for (unsigned i = 0; i < 200 && m.nlive; i++) {
				if (rg_rand_below(&r, 2))
					big_free(hb, &m,
						 rg_rand_below(&r, m.nlive),
						 op++ % validate_every == 0);
				else
					big_alloc(hb, &m, pick_size(&r, maxn),
						  pick_align(&r, amode),
						  op++ % validate_every == 0);
			}
		}
		/* reverse order (the live array keeps the fill order
		 * while nothing was freed before) */
		while (m.nlive)
			big_free(hb, &m, m.nlive - 1,
				 op++ % validate_every == 0);
		RG_ASSERT_VALID(hb);
		assert_int_equal(rg_hbitmap_largest_free_run(hb), cap);
	}
	rg_hbitmap_destroy(hb);
	bm_fini(&m);
}

static uint64_t seed;

/* One and two node levels, odd block counts. */
static void test_big_fill(void **state)
{
	static const uint64_t caps[] = { 4097, 33000, 70000 };

	(void)state;
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		for (unsigned amode = 0; amode < 3; amode++)
			big_run(caps[i], 4096, amode, seed + amode, 1);
}

/* The benchmark's capacity: saturated g values at the root. */
static void test_big_1e6(void **state)
{
	(void)state;
	big_run(1000000, 4096, 0, seed, 13);
	big_run(1000000, 4096, 2, seed + 1, 13);
}

/*
 * Regions of up to 40,000 units: ranges over several level-0 nodes, at
 * two and three node levels.
 */
static void test_huge_regions(void **state)
{
	(void)state;
	big_run(32768 * 64 + 777, 40000, 0, seed, 7);
	big_run(300000, 40000, 2, seed + 1, 1);
}

/*
 * A long request at a pending block whose first unit is free: the first
 * fit starts in the free run that ends at the block's start.
 */
static void test_run_into_pending(void **state)
{
	struct rg_hbitmap *hb = rg_hbitmap_create(4096);
	uint64_t s;

	(void)state;
	assert_non_null(hb);
	assert_int_equal(rg_hbitmap_alloc(hb, 500, 1, &s), 0);
	assert_int_equal(s, 0);
	/* aligned: leaves [500, 512) free, block 1 pending */
	assert_int_equal(rg_hbitmap_alloc(hb, 64, 64, &s), 0);
	assert_int_equal(s, 512);
	assert_int_equal(rg_hbitmap_free(hb, 512, 64), 0);
	assert_int_equal(rg_hbitmap_alloc(hb, 100, 1, &s), 0);
	assert_int_equal(s, 500);
	assert_int_equal(rg_hbitmap_alloc(hb, 600, 4, &s), 0);
	assert_int_equal(s, 600);
	RG_ASSERT_VALID(hb);
	rg_hbitmap_destroy(hb);
}

/*
 * A long free with one free unit anywhere inside fails with -ENOENT, and
 * a long reserve with one allocated unit inside with -EBUSY; neither
 * changes anything.
 */
static void test_one_unit_inside(void **state)
{
	const uint64_t cap = 5000, n = 4500;
	struct rg_hbitmap *hb = rg_hbitmap_create(cap);
	uint64_t s;

	(void)state;
	assert_non_null(hb);
	for (uint64_t u = 0; u < n; u++) {
		assert_int_equal(rg_hbitmap_reserve(hb, 300 + u, 1), 0);
		assert_int_equal(rg_hbitmap_reserve(hb, 300, n), -EBUSY);
		assert_int_equal(rg_hbitmap_free_units(hb), cap - 1);
		assert_int_equal(rg_hbitmap_free(hb, 300 + u, 1), 0);
		if (u % 61 == 0)
			RG_ASSERT_VALID(hb);
	}
	assert_int_equal(rg_hbitmap_reserve(hb, 300, n), 0);
	for (uint64_t u = 0; u < n; u++) {
		assert_int_equal(rg_hbitmap_free(hb, 300 + u, 1), 0);
		assert_int_equal(rg_hbitmap_free(hb, 300, n), -ENOENT);
		assert_int_equal(rg_hbitmap_free_units(hb), cap - n + 1);
		assert_int_equal(rg_hbitmap_reserve(hb, 300 + u, 1), 0);
		if (u % 61 == 0)
			RG_ASSERT_VALID(hb);
	}
	assert_int_equal(rg_hbitmap_free(hb, 300, n), 0);
	assert_int_equal(rg_hbitmap_alloc(hb, cap, 1, &s), 0);
	assert_int_equal(s, 0);
	RG_ASSERT_VALID(hb);
	rg_hbitmap_destroy(hb);
}

/*
 * A long request at the pending block whose first free run reaches
 * through free blocks (within a node and across nodes) to an allocated
 * unit: a request that fills the run exactly starts in it, one unit
 * more starts after the unit.
 */
static void test_run_to_allocated_unit(void **state)
{
	static const uint64_t unit[] = { 3000, 40000 };

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		for (uint64_t d = 0; d < 3; d++) {
			struct rg_hbitmap *hb = rg_hbitmap_create(100000);
			uint64_t n = unit[i] - 100 - 1 + d, s;

			assert_non_null(hb);
			assert_int_equal(rg_hbitmap_reserve(hb, unit[i], 1), 0);
			assert_int_equal(rg_hbitmap_alloc(hb, 100, 1, &s), 0);
			assert_int_equal(s, 0);
			assert_int_equal(rg_hbitmap_alloc(hb, n, 1, &s), 0);
			assert_int_equal(s, n + 100 <= unit[i] ? 100 :
								 unit[i] + 1);
			RG_ASSERT_VALID(hb);
			rg_hbitmap_destroy(hb);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_into_pending),
		cmocka_unit_test(test_one_unit_inside),
		cmocka_unit_test(test_run_to_allocated_unit),
		cmocka_unit_test(test_big_fill),
		cmocka_unit_test(test_big_1e6),
		cmocka_unit_test(test_huge_regions),
	};

	seed = rg_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
