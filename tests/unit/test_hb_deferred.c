// SPDX-License-Identifier: MIT
/*
 * hbitmap: deferred runs. Allocations over several blocks that each start
 * where the previous one ended, and frees that each end where the
 * previous one started, defer the summary updates of the blocks they
 * leave behind until another call needs them. These cases stop such runs
 * at their most exposed points (a fill that leaves only a few units, a
 * run over several level-0 nodes of 32768 units, a free or an allocation
 * that breaks the run, a resize) and check every reader there against a
 * byte model: the start of every allocation (the model's first fit), the
 * longest free run, every run rg_hbitmap_next_run() reports from many
 * starting points, and validate.
 */
#include <errno.h>
#include <string.h>

#include "rg_test.h"
#include "region/hbitmap.h"

#include "hb_unit_model.h"

/* The first unit at or after u (u <= cap) in state, or cap if none. */
static uint64_t m_next_unit(const struct hbm_model *m, uint64_t u, int state)
{
	uint64_t s, n;

	return hbm_next(m, u, state, &s, &n) ? s : m->cap;
}

/*
 * Validate; the longest free run; the free count; rg_hbitmap_next_run()
 * of both kinds from every 61st unit and from both sides of every block
 * boundary, against the next unit of each kind (nx, from the end).
 */
static void check_all(struct rg_hbitmap *hb, const struct hbm_model *m)
{
	uint64_t held = 0, *nx[2];

	RG_ASSERT_VALID(hb);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), hbm_largest(m));
	for (uint64_t u = 0; u < m->cap; u++)
		held += m->unit[u];
	assert_int_equal(rg_hbitmap_free_units(hb), m->cap - held);
	nx[0] = malloc((m->cap + 1) * sizeof(uint64_t));
	nx[1] = malloc((m->cap + 1) * sizeof(uint64_t));
	assert_non_null(nx[0]);
	assert_non_null(nx[1]);
	nx[0][m->cap] = nx[1][m->cap] = m->cap;
	for (uint64_t u = m->cap; u-- > 0;) {
		nx[0][u] = m->unit[u] ? nx[0][u + 1] : u;
		nx[1][u] = m->unit[u] ? u : nx[1][u + 1];
	}
	for (uint64_t f = 0; f < m->cap; f++) {
		if (f % 61 && f % 512 && f % 512 != 511)
			continue;
		for (int used = 0; used < 2; used++) {
			uint64_t s, n, es = nx[used][f];
			int err = rg_hbitmap_next_run(hb, f, used, &s, &n);

			if (es == m->cap) {
				assert_int_equal(err, -ENOENT);
				continue;
			}
			assert_int_equal(err, 0);
			assert_int_equal(s, es);
			assert_int_equal(n, nx[!used][es] - es);
		}
	}
	free(nx[0]);
	free(nx[1]);
}

static void alloc_at(struct rg_hbitmap *hb, struct hbm_model *m, uint64_t n)
{
	uint64_t s, e;

	assert_true(hbm_first_fit(m, n, 1, &e));
	assert_int_equal(rg_hbitmap_alloc(hb, n, 1, &s), 0);
	assert_int_equal(s, e);
	hbm_set(m, s, n, 1);
	RG_ASSERT_VALID(hb);
}

static void free_at(struct rg_hbitmap *hb, struct hbm_model *m, uint64_t s,
		    uint64_t n)
{
	assert_int_equal(rg_hbitmap_free(hb, s, n), 0);
	hbm_set(m, s, n, 0);
	RG_ASSERT_VALID(hb);
}

/*
 * An ascending fill over several level-0 nodes that leaves exactly left
 * units at the end: while the run is deferred, the longest free run is
 * left, not what the stale summaries of the nodes it covers say.
 */
static void fill_leaving(uint64_t cap, uint64_t left, uint64_t step)
{
	struct rg_hbitmap *hb = rg_hbitmap_create(cap);
	struct hbm_model m;
	uint64_t done = 0;

	assert_non_null(hb);
	hbm_init(&m, cap, cap);
	while (done < cap - left) {
		uint64_t n =
			cap - left - done < step ? cap - left - done : step;

		alloc_at(hb, &m, n);
		done += n;
		if (done % (7 * step) == 0 || done == cap - left)
			check_all(hb, &m);
	}
	assert_int_equal(rg_hbitmap_largest_free_run(hb), left);
	check_all(hb, &m);
	/* descending frees, every one ending where the last one began */
	while (done > 0) {
		uint64_t n = done < step + 3 ? done : step + 3;

		free_at(hb, &m, done - n, n);
		done -= n;
		if (done % (5 * (step + 3)) == 0 || done < 3 * step)
			check_all(hb, &m);
	}
	check_all(hb, &m);
	alloc_at(hb, &m, 3 * step); /* the emptied space, from unit 0 */
	check_all(hb, &m);
	rg_hbitmap_destroy(hb);
	hbm_fini(&m);
}

static void test_fill_leaving_few(void **state)
{
	(void)state;
	fill_leaving(300007, 5, 2048);
	fill_leaving(300007, 0, 1500);
	fill_leaving(200000, 1, 4096);
	fill_leaving(70000, 700, 513);
}

/* Regions of exactly one block, starting at block starts. */
static void test_block_sized(void **state)
{
	(void)state;
	fill_leaving(131072, 512, 512);
	fill_leaving(131072 + 100, 100, 1024);
}

/*
 * A deferred run broken by each kind of call, at a point inside a run
 * over more than one level-0 node: each call's result and every reader
 * right after it.
 */
enum breaker {
	BR_FREE_BEHIND, /* free a region far below the front */
	BR_SMALL_ALLOC, /* a short allocation (lands in that hole) */
	BR_RANGE, /* rg_hbitmap_alloc_range() in a window above the front */
	BR_REV, /* top-down allocation */
	BR_RESERVE, /* reserve units above the front */
	BR_RESIZE, /* grow the capacity */
	BR_BAD_FREE, /* free of free units: -ENOENT, nothing changes */
	BR_COUNT
};

static void break_run(enum breaker br)
{
	uint64_t cap = 250000, s, n;
	struct rg_hbitmap *hb = rg_hbitmap_create(cap);
	struct hbm_model m;

	assert_non_null(hb);
	hbm_init(&m, cap, cap);
	for (int i = 0; i < 40; i++)
		alloc_at(hb, &m, 1000 + 97 * (uint64_t)i); /* ~114,000 units */
	check_all(hb, &m);
	switch (br) {
	case BR_FREE_BEHIND:
		free_at(hb, &m, 5000, 3000);
		break;
	case BR_SMALL_ALLOC:
		free_at(hb, &m, 5000, 3000);
		alloc_at(hb, &m, 40);
		break;
	case BR_RANGE:
		assert_int_equal(
			rg_hbitmap_alloc_range(hb, 700, 1, 200000, 230000, &s),
			0);
		assert_int_equal(s, 200000);
		hbm_set(&m, s, 700, 1);
		break;
	case BR_REV:
		assert_int_equal(rg_hbitmap_alloc_rev(hb, 900, 1, &s), 0);
		assert_int_equal(s, cap - 900);
		hbm_set(&m, s, 900, 1);
		break;
	case BR_RESERVE:
		assert_int_equal(rg_hbitmap_reserve(hb, 150000, 33000), 0);
		hbm_set(&m, 150000, 33000, 1);
		break;
	case BR_RESIZE:
		assert_int_equal(rg_hbitmap_resize(hb, cap + 40000), 0);
		hbm_resize(&m, cap + 40000);
		break;
	case BR_BAD_FREE:
		n = m_next_unit(&m, 0, 0);
		assert_int_equal(rg_hbitmap_free(hb, n - 10, 600), -ENOENT);
		assert_int_equal(rg_hbitmap_free(hb, n, 0), -EINVAL);
		assert_int_equal(rg_hbitmap_free(hb, n, m.cap), -EINVAL);
		break;
	default:
		fail();
	}
	check_all(hb, &m);
	/* the fill goes on: a new run, then its frees in reverse */
	for (int i = 0; i < 30; i++)
		alloc_at(hb, &m, 1500 + 31 * (uint64_t)i);
	check_all(hb, &m);
	s = m_next_unit(&m, 0, 0);
	while (s > 2000 && m.unit[s - 1]) {
		n = 1999;
		free_at(hb, &m, s - n, n);
		s -= n;
		if (s % 7 == 0)
			check_all(hb, &m);
	}
	check_all(hb, &m);
	rg_hbitmap_destroy(hb);
	hbm_fini(&m);
}

static void test_breakers(void **state)
{
	(void)state;
	for (int br = 0; br < BR_COUNT; br++)
		break_run((enum breaker)br);
}

/*
 * Frees in descending order broken by a free that ends elsewhere, then
 * by a free of units already free: the first must end the run and leave
 * every reader exact, the second must fail and change nothing.
 */
static void test_free_run_broken(void **state)
{
	uint64_t cap = 180000, top;
	struct rg_hbitmap *hb = rg_hbitmap_create(cap);
	struct hbm_model m;

	(void)state;
	assert_non_null(hb);
	hbm_init(&m, cap, cap);
	for (int i = 0; i < 60; i++)
		alloc_at(hb, &m, 2900);
	top = 60 * 2900;
	for (int i = 0; i < 30; i++) {
		free_at(hb, &m, top - 2900, 2900);
		top -= 2900;
		if (i % 9 == 0)
			check_all(hb, &m);
	}
	check_all(hb, &m);
	free_at(hb, &m, 2900, 2900); /* elsewhere */
	check_all(hb, &m);
	assert_int_equal(rg_hbitmap_free(hb, top, 100), -ENOENT);
	check_all(hb, &m);
	alloc_at(hb, &m, 2000); /* first fit: the hole at 2900 */
	alloc_at(hb, &m, 5000); /* the emptied top */
	check_all(hb, &m);
	rg_hbitmap_destroy(hb);
	hbm_fini(&m);
}

/*
 * A run that starts above a free gap in its first block: the gap is a
 * run before the blocks the run leaves behind, so the run must not
 * start (the fast path would skip the gap), and the next short request
 * lands in the gap.
 */
static void test_gap_below_start(void **state)
{
	uint64_t cap = 100000;
	struct rg_hbitmap *hb = rg_hbitmap_create(cap);
	struct hbm_model m;

	(void)state;
	assert_non_null(hb);
	hbm_init(&m, cap, cap);
	alloc_at(hb, &m, 1100); /* [0, 1100) */
	alloc_at(hb, &m, 20); /* [1100, 1120) */
	alloc_at(hb, &m, 50); /* [1120, 1170) */
	free_at(hb, &m, 1100, 20); /* a gap of 20 in block 2 */
	free_at(hb, &m, 5, 1); /* elsewhere: block 2 is flushed */
	alloc_at(hb, &m, 30); /* above the gap: [1170, 1200) */
	alloc_at(hb, &m, 2000); /* onward, over several blocks */
	check_all(hb, &m);
	alloc_at(hb, &m, 10); /* the gap, not the pending block */
	alloc_at(hb, &m, 3000);
	check_all(hb, &m);
	rg_hbitmap_destroy(hb);
	hbm_fini(&m);
}

/*
 * Frees in descending order that start with a short free inside the
 * block the fill left pending (where allocations had the fast path): the
 * run of frees must leave it, and every allocation after lands at the
 * model's first fit.
 */
static void test_free_after_fill(void **state)
{
	uint64_t cap = 120000, top = 0;
	struct rg_hbitmap *hb = rg_hbitmap_create(cap);
	struct hbm_model m;

	(void)state;
	assert_non_null(hb);
	hbm_init(&m, cap, cap);
	for (int i = 0; i < 20; i++) {
		alloc_at(hb, &m, 3000);
		top += 3000;
	}
	alloc_at(hb, &m, 10); /* inside the pending block */
	free_at(hb, &m, top, 10);
	for (int i = 0; i < 12; i++) {
		free_at(hb, &m, top - 3000, 3000);
		top -= 3000;
	}
	check_all(hb, &m);
	alloc_at(hb, &m, 7000);
	alloc_at(hb, &m, 100);
	check_all(hb, &m);
	rg_hbitmap_destroy(hb);
	hbm_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill_leaving_few),
		cmocka_unit_test(test_block_sized),
		cmocka_unit_test(test_breakers),
		cmocka_unit_test(test_free_run_broken),
		cmocka_unit_test(test_gap_below_start),
		cmocka_unit_test(test_free_after_fill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
