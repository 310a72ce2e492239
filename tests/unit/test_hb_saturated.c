// SPDX-License-Identifier: MIT
/*
 * hbitmap: a node's inner run when the g values that changed are
 * saturated. Above level 0 a g value longer than 32767 units is stored as
 * 32767; when one update changes two g values of a node, one of them
 * saturated, and the node's old inner run was held by one of them, the new
 * inner run is the largest of the two new values and of the other stored
 * ones. Each case below leaves that value as the last write of the node's
 * inner run (nothing later in the call recomputes it), then checks it
 * against the reference recomputation (validate) and against the longest
 * free run found by a plain scan of the bits.
 */
#include <errno.h>
#include <string.h>

#include "rg_test.h"
#include "region/hbitmap.h"

/* 7 level-0 nodes of 32768 units under one root. */
#define CAP 200000u
#define L0 32768u

/* Longest free run, one unit at a time. */
static uint64_t scan_longest(const struct rg_hbitmap *hb)
{
	uint64_t best = 0, run = 0;

	for (uint64_t u = 0; u < CAP; u++) {
		run = rg_hbitmap_test(hb, u) ? 0 : run + 1;
		best = run > best ? run : best;
	}
	return best;
}

/* All allocated but the free run [a, b) (b > a) and the units in more. */
static struct rg_hbitmap *mk(uint64_t a, uint64_t b, const uint64_t *more,
			     size_t nmore)
{
	struct rg_hbitmap *hb = rg_hbitmap_create(CAP);

	assert_non_null(hb);
	assert_int_equal(rg_hbitmap_reserve(hb, 0, CAP), 0);
	assert_int_equal(rg_hbitmap_free(hb, a, b - a), 0);
	for (size_t i = 0; i < nmore; i++)
		assert_int_equal(rg_hbitmap_free(hb, more[i], 1), 0);
	RG_ASSERT_VALID(hb);
	return hb;
}

/*
 * Change unit u (set it if set, else clear it) in its block, then touch a
 * far block (unit far, allocated) so that the change is carried up to the
 * root by itself; the root's inner run must then be exact.
 */
static void change_then_flush(struct rg_hbitmap *hb, uint64_t u, bool set,
			      uint64_t far)
{
	if (set)
		assert_int_equal(rg_hbitmap_reserve(hb, u, 1), 0);
	else
		assert_int_equal(rg_hbitmap_free(hb, u, 1), 0);
	assert_int_equal(rg_hbitmap_free(hb, far, 1), 0);
	RG_ASSERT_VALID(hb);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), scan_longest(hb));
}

/*
 * The run starts in node 0's suffix, crosses node 1 (entirely free) and
 * ends in node 2's prefix: node 2's g value holds the root's inner run.
 * Shortening the run from its start changes node 0's suffix: its g value
 * and node 2's (saturated) change, both below the old inner run.
 */
static void test_next_saturated(void **state)
{
	uint64_t a = L0 - 100, b = 2 * L0 + 7000;
	struct rg_hbitmap *hb = mk(a, b, NULL, 0);

	(void)state;
	assert_int_equal(rg_hbitmap_largest_free_run(hb), b - a);
	change_then_flush(hb, a, true, 5 * L0 + 3);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), b - a - 1);
	/* and once more, from the other side of the block's words */
	change_then_flush(hb, a + 1, true, 5 * L0 + 700);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), b - a - 2);
	rg_hbitmap_destroy(hb);
}

/*
 * Shortening the run from its end changes node 2's prefix: node 2's own
 * g value (saturated) and that of node 3, the next one not entirely free.
 */
static void test_own_saturated(void **state)
{
	uint64_t a = L0 - 100, b = 2 * L0 + 7000;
	uint64_t more[] = { 3 * L0 + 10 }; /* a free unit in node 3 */
	struct rg_hbitmap *hb = mk(a, b, more, 1);

	(void)state;
	change_then_flush(hb, b - 1, true, 5 * L0 + 3);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), b - a - 1);
	rg_hbitmap_destroy(hb);
}

/*
 * As test_next_saturated(), with a second long run (saturated, shorter)
 * elsewhere: the other stored values include a saturated one, and the
 * inner run is the larger of the two runs' exact lengths.
 */
static void test_other_saturated(void **state)
{
	uint64_t a = L0 - 100, b = 2 * L0 + 7000;
	struct rg_hbitmap *hb = mk(a, b, NULL, 0);
	uint64_t c = 3 * L0 + 500, d = 4 * L0 + 600; /* 32868 units */

	(void)state;
	assert_int_equal(rg_hbitmap_free(hb, c, d - c), 0);
	RG_ASSERT_VALID(hb);
	change_then_flush(hb, a, true, 5 * L0 + 3);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), b - a - 1);
	/* now shorten the first run below the second one */
	assert_int_equal(rg_hbitmap_reserve(hb, a + 1, L0 + 100), 0);
	RG_ASSERT_VALID(hb);
	change_then_flush(hb, 5 * L0 + 3, true, 5 * L0 + 900);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), d - c);
	rg_hbitmap_destroy(hb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next_saturated),
		cmocka_unit_test(test_own_saturated),
		cmocka_unit_test(test_other_saturated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
