// SPDX-License-Identifier: MIT
/*
 * Ordinary paths that make coverage listed as reachable and untested
 * (doc/coverage.md): a best-fit window search whose run reaches the end of
 * an hbitmap that has no padding after its last unit, a Maple Tree batch
 * preallocated in RCU mode and used after RCU mode was switched off, the
 * sync of a best-fit hbitmap after a change of more than 65,536 blocks,
 * best fit and first fit taking turns on one instance. Each
 * test checks the documented result, not only that the path ran.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/urcu-memb.h>

#include <libregion.h>

#include "coverage.h"

static void expect_hb_valid(const struct rg_hbitmap *hb)
{
	const char *reason = NULL;

	assert_int_equal(rg_hbitmap_validate(hb, &reason), 0);
	assert_null(reason);
}

/*
 * Best fit inside a window measures each candidate run whole; a run that
 * reaches the last unit of an instance whose capacity fills its summary
 * tree exactly (no padding bits after it) ends at the capacity.
 */
static void test_hbitmap_best_run_to_capacity_end(void **state)
{
	const uint64_t cap = 64 * 512; /* 64 blocks of 512: no padding */
	struct rg_hbitmap *hb = rg_hbitmap_create(cap);
	uint64_t s = 7, runs, n;

	(void)state;
	assert_non_null(hb);
	/* Free runs: [1000, 1200) (200 units) and [cap - 100, cap). */
	assert_int_equal(rg_hbitmap_reserve(hb, 0, 1000), 0);
	assert_int_equal(rg_hbitmap_reserve(hb, 1200, cap - 100 - 1200), 0);
	expect_hb_valid(hb);
	/* The run at the end is the shorter one: best fit takes it. */
	assert_int_equal(rg_hbitmap_alloc_window(hb, 10, 1, 0, UINT64_MAX, 0,
						 RG_HBITMAP_BEST, &s),
			 0);
	assert_int_equal(s, cap - 100);
	expect_hb_valid(hb);
	/* Now [cap - 90, cap) (90 units) is still the shorter: again. */
	assert_int_equal(rg_hbitmap_alloc_window(hb, 90, 1, 0, UINT64_MAX, 0,
						 RG_HBITMAP_BEST, &s),
			 0);
	assert_int_equal(s, cap - 90);
	assert_int_equal(rg_hbitmap_test(hb, cap - 1), 1);
	/* Only [1000, 1200) is left, and the walk sees exactly that. */
	assert_int_equal(rg_hbitmap_free_units(hb), 200);
	assert_int_equal(rg_hbitmap_next_run(hb, 0, 0, &runs, &n), 0);
	assert_int_equal(runs, 1000);
	assert_int_equal(n, 200);
	assert_int_equal(rg_hbitmap_next_run(hb, 1200, 0, &runs, &n), -ENOENT);
	/* Free the end again: a run of 50 from a window at the top. */
	assert_int_equal(rg_hbitmap_free(hb, cap - 50, 50), 0);
	assert_int_equal(rg_hbitmap_alloc_window(hb, 50, 1, cap - 60, cap - 1,
						 0, RG_HBITMAP_BEST, &s),
			 0);
	assert_int_equal(s, cap - 50);
	assert_int_equal(rg_hbitmap_free_units(hb), 200);
	expect_hb_valid(hb);
	rg_hbitmap_destroy(hb);
}

/* An RCU tree of @n ranges [10 i, 10 i + 4], each holding &v[i]. */
static void maple_rcu_ranges(struct rg_maple_tree *mt, int *v, unsigned int n)
{
	assert_int_equal(rg_mtree_init(mt, RG_MT_FLAGS_USE_RCU), 0);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(
			rg_mtree_store_range(mt, 10 * i, 10 * i + 4, &v[i]), 0);
	assert_true(rg_mtree_in_rcu(mt));
}

/*
 * A store preallocated in RCU mode (nodes and the batch for the nodes it
 * retires) and made after RCU mode was switched off: the store frees the
 * replaced nodes at once and gives the unused batch back. Nothing leaks
 * (the sanitizer builds check) and the tree holds what was stored.
 */
static void test_maple_prealloc_rcu_then_plain(void **state)
{
	static int v[40], x;
	struct rg_maple_tree mt;
	RG_MA_STATE(mas, &mt, 0, 0);

	(void)state;
	urcu_memb_register_thread();
	maple_rcu_ranges(&mt, v, 40);
	assert_true(rg_mtree_height(&mt) >= 2);
	rg_mtree_lock(&mt);
	rg_mas_set_range(&mas, 102, 233); /* spans several ranges */
	assert_int_equal(rg_mas_preallocate(&mas, &x, 0), 0);
	rg_mtree_unlock(&mt);
	rg_mtree_clear_rcu(&mt);
	assert_false(rg_mtree_in_rcu(&mt));
	rg_mtree_lock(&mt);
	rg_mas_store_prealloc(&mas, &x);
	rg_mtree_unlock(&mt);
	assert_ptr_equal(rg_mtree_load(&mt, 102), &x);
	assert_ptr_equal(rg_mtree_load(&mt, 233), &x);
	assert_ptr_equal(rg_mtree_load(&mt, 100), &v[10]);
	assert_ptr_equal(rg_mtree_load(&mt, 234), &v[23]);
	assert_null(rg_mtree_load(&mt, 235));
	for (unsigned int i = 0; i < 40; i++)
		if (i < 10 || i > 23)
			assert_ptr_equal(rg_mtree_load(&mt, 10 * i + 2), &v[i]);
	assert_int_equal(rg_mtree_validate(&mt, NULL), 0);
	rg_mtree_destroy(&mt);
	urcu_memb_unregister_thread();
}

/*
 * A best-fit instance notes the blocks each change touched for the next
 * sync of its summaries; a change of more than 65,536 blocks is noted as
 * "rebuild them all", which the sync a first-fit call makes then does.
 */
static void test_hbitmap_best_sync_after_huge_change(void **state)
{
	const uint64_t big = (65536 + 2) * 512; /* 65,538 blocks of 512 */
	const uint64_t cap = big + 4096;
	struct rg_hbitmap *hb =
		rg_hbitmap_create_flags(cap, RG_HBITMAP_BEST_FIT);
	uint64_t s = 7;

	(void)state;
	assert_non_null(hb);
	/* Free: [0, 100) and [100 + big, cap), 3,996 units. */
	assert_int_equal(rg_hbitmap_reserve(hb, 100, big), 0);
	assert_int_equal(rg_hbitmap_free_units(hb), cap - big);
	expect_hb_valid(hb);
	/* First fit of 200: [0, 100) is too short, the run after it fits. */
	assert_int_equal(rg_hbitmap_alloc(hb, 200, 1, &s), 0);
	assert_int_equal(s, 100 + big);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), 4096 - 100 - 200);
	expect_hb_valid(hb);
	/* Free the huge range again: [0, 100 + big) is one free run. */
	assert_int_equal(rg_hbitmap_free(hb, 100, big), 0);
	assert_int_equal(rg_hbitmap_alloc(hb, 1000, 1, &s), 0);
	assert_int_equal(s, 0);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), 100 + big - 1000);
	assert_int_equal(rg_hbitmap_free_units(hb), cap - 1200);
	expect_hb_valid(hb);
	rg_hbitmap_destroy(hb);
}

/*
 * First fit on a best-fit instance brings the summaries up to date and
 * leaves no pending block (validate checks it), so the next best-fit call
 * lets them go stale with nothing behind them but its own change, which
 * the sync a later first-fit call replays.
 */
static void test_hbitmap_best_after_pending_first_fit(void **state)
{
	struct rg_hbitmap *hb =
		rg_hbitmap_create_flags(4096, RG_HBITMAP_BEST_FIT);
	uint64_t s = 7, rs = 0, rn = 0;

	(void)state;
	assert_non_null(hb);
	/* Two first-fit allocations in block 0: [0, 10) and [10, 20). */
	assert_int_equal(rg_hbitmap_alloc(hb, 10, 1, &s), 0);
	assert_int_equal(s, 0);
	assert_int_equal(rg_hbitmap_alloc(hb, 10, 1, &s), 0);
	assert_int_equal(s, 10);
	/* Best fit of 5: the one free run is [20, 4096). */
	assert_int_equal(rg_hbitmap_alloc_best(hb, 5, 1, &s), 0);
	assert_int_equal(s, 20);
	expect_hb_valid(hb);
	/* Free [0, 10) behind the summaries, then first fit again. */
	assert_int_equal(rg_hbitmap_free(hb, 0, 10), 0);
	assert_int_equal(rg_hbitmap_alloc(hb, 12, 1, &s), 0);
	assert_int_equal(s, 25);
	assert_int_equal(rg_hbitmap_alloc(hb, 10, 1, &s), 0);
	assert_int_equal(s, 0);
	rg_hbitmap_sync(hb);
	assert_int_equal(rg_hbitmap_next_run(hb, 0, 0, &rs, &rn), 0);
	assert_int_equal(rs, 37);
	assert_int_equal(rn, 4096 - 37);
	assert_int_equal(rg_hbitmap_free_units(hb), 4096 - 37);
	expect_hb_valid(hb);
	rg_hbitmap_destroy(hb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hbitmap_best_run_to_capacity_end),
		cmocka_unit_test(test_maple_prealloc_rcu_then_plain),
		cmocka_unit_test(test_hbitmap_best_sync_after_huge_change),
		cmocka_unit_test(test_hbitmap_best_after_pending_first_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
