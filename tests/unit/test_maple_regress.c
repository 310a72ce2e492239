// SPDX-License-Identifier: MIT
/*
 * Maple Tree regression tests: one named test per fixed bug of the
 * advanced API, each run on an ordinary tree and in RCU mode, with the
 * tree validated after every store.
 *
 * - rg_mas_store() returns the entry that held mas->index, not the first
 *   entry the range overwrote (its documentation said the latter).
 * - rg_mas_find_range() that walks to an empty range reaching its limit
 *   overflows there, as documented and as the kernel's mas_find_range()
 *   does; it used to return NULL and stay active on that range.
 */
#include <limits.h>
#include <urcu/urcu-memb.h>

#include "region/maple_tree.h"
#include "rg_test.h"

#define V(x) rg_mt_mk_value(x)

/* [10, 14] V(1), [20, 24] V(2), [30, 34] V(3); empty ranges between. */
static void three_ranges(struct rg_maple_tree *mt, bool rcu)
{
	assert_int_equal(rg_mtree_init(mt, 0), 0);
	if (rcu)
		rg_mtree_set_rcu(mt);
	assert_int_equal(rg_mtree_store_range(mt, 10, 14, V(1)), 0);
	assert_int_equal(rg_mtree_store_range(mt, 20, 24, V(2)), 0);
	assert_int_equal(rg_mtree_store_range(mt, 30, 34, V(3)), 0);
	RG_ASSERT_VALID(mt);
}

static void done(struct rg_maple_tree *mt, bool rcu)
{
	RG_ASSERT_VALID(mt);
	rg_mtree_destroy(mt);
	if (rcu)
		rg_mtree_rcu_barrier();
}

static void *store(struct rg_maple_tree *mt, unsigned long first,
		   unsigned long last, void *entry)
{
	RG_MA_STATE(mas, mt, 0, 0);
	void *old;

	rg_mtree_lock(mt);
	rg_mas_set_range(&mas, first, last);
	old = rg_mas_store(&mas, entry);
	assert_int_equal(mas.status, RG_MAS_ACTIVE);
	assert_int_equal(mas.index, first);
	assert_int_equal(mas.last, last);
	rg_mtree_unlock(mt);
	RG_ASSERT_VALID(mt);
	return old;
}

static void mas_store_returns_entry_at_index(bool rcu)
{
	struct rg_maple_tree mt;

	three_ranges(&mt, rcu);
	/* index 16 is empty: NULL, though [20, 21] of V(2) is overwritten */
	assert_null(store(&mt, 16, 21, V(4)));
	assert_ptr_equal(rg_mtree_load(&mt, 21), V(4));
	assert_ptr_equal(rg_mtree_load(&mt, 22), V(2));
	/* index 12 holds V(1): V(1), not V(4) or V(2) further on */
	assert_ptr_equal(store(&mt, 12, 23, V(5)), V(1));
	/* index 5 is empty; the store covers every entry */
	assert_null(store(&mt, 5, 40, V(6)));
	/* the whole range: the entry at its first index */
	assert_ptr_equal(store(&mt, 5, 40, NULL), V(6));
	assert_true(rg_mtree_empty(&mt));
	done(&mt, rcu);

	/* A lone root entry (index 0) and a store past it. */
	assert_int_equal(rg_mtree_init(&mt, 0), 0);
	if (rcu)
		rg_mtree_set_rcu(&mt);
	assert_int_equal(rg_mtree_store(&mt, 0, V(7)), 0);
	assert_null(store(&mt, 1, 9, V(8)));
	assert_ptr_equal(store(&mt, 0, 3, V(9)), V(7));
	done(&mt, rcu);
}

static void test_mas_store_returns_entry_at_index(void **state)
{
	(void)state;
	mas_store_returns_entry_at_index(false);
}

static void test_mas_store_returns_entry_at_index_rcu(void **state)
{
	(void)state;
	mas_store_returns_entry_at_index(true);
}

/* rg_mas_find_range() and where it leaves the state. */
static void expect(struct rg_ma_state *mas, void *got, void *want,
		   unsigned char status, unsigned long index,
		   unsigned long last)
{
	assert_ptr_equal(got, want);
	assert_int_equal(mas->status, status);
	assert_int_equal(mas->index, index);
	assert_int_equal(mas->last, last);
}

static void find_range_overflows_at_limit(bool rcu)
{
	struct rg_maple_tree mt;
	RG_MA_STATE(mas, &mt, 0, 0);
	void *e;

	three_ranges(&mt, rcu);
	rg_mtree_lock(&mt);
	/* From a start inside [15, 19], empty, which reaches max 18. */
	rg_mas_set(&mas, 16);
	e = rg_mas_find_range(&mas, 18);
	expect(&mas, e, NULL, RG_MAS_OVERFLOW, 15, 19);
	e = rg_mas_find_range(&mas, 18); /* stays there */
	expect(&mas, e, NULL, RG_MAS_OVERFLOW, 15, 19);
	e = rg_mas_find_range(&mas, 40); /* a larger max goes on */
	expect(&mas, e, V(2), RG_MAS_ACTIVE, 20, 24);
	/* max inside the range, and max at its start: the range itself */
	rg_mas_set(&mas, 16);
	e = rg_mas_find_range(&mas, 16);
	expect(&mas, e, NULL, RG_MAS_OVERFLOW, 15, 19);
	rg_mas_set(&mas, 15);
	e = rg_mas_find_range(&mas, 15);
	expect(&mas, e, NULL, RG_MAS_ACTIVE, 15, 19);
	/* The empty tail up to ULONG_MAX. */
	rg_mas_set(&mas, 40);
	e = rg_mas_find_range(&mas, ULONG_MAX);
	expect(&mas, e, NULL, RG_MAS_OVERFLOW, 35, ULONG_MAX);
	e = rg_mas_prev_range(&mas, 0); /* back from the overflow */
	expect(&mas, e, V(3), RG_MAS_ACTIVE, 30, 34);
	/* Resuming after a pause onto such a range. */
	rg_mas_set(&mas, 10);
	e = rg_mas_find_range(&mas, 17);
	expect(&mas, e, V(1), RG_MAS_ACTIVE, 10, 14);
	rg_mas_pause(&mas);
	e = rg_mas_find_range(&mas, 17);
	expect(&mas, e, NULL, RG_MAS_OVERFLOW, 15, 19);
	/* Unchanged: an empty range below max, and one already at max. */
	rg_mas_set(&mas, 16);
	e = rg_mas_find_range(&mas, 40);
	expect(&mas, e, NULL, RG_MAS_ACTIVE, 15, 19);
	rg_mas_set(&mas, 20);
	e = rg_mas_find_range(&mas, 22);
	expect(&mas, e, V(2), RG_MAS_ACTIVE, 20, 24);
	e = rg_mas_find_range(&mas, 22);
	expect(&mas, e, NULL, RG_MAS_ACTIVE, 20, 24);
	rg_mtree_unlock(&mt);
	done(&mt, rcu);

	/* An empty tree: the one range [0, ULONG_MAX] reaches any max. */
	assert_int_equal(rg_mtree_init(&mt, 0), 0);
	if (rcu)
		rg_mtree_set_rcu(&mt);
	rg_mtree_lock(&mt);
	rg_mas_set(&mas, 5);
	e = rg_mas_find_range(&mas, 100);
	expect(&mas, e, NULL, RG_MAS_OVERFLOW, 0, ULONG_MAX);
	rg_mtree_unlock(&mt);
	done(&mt, rcu);
}

static void test_mas_find_range_overflows_at_limit(void **state)
{
	(void)state;
	find_range_overflows_at_limit(false);
}

static void test_mas_find_range_overflows_at_limit_rcu(void **state)
{
	(void)state;
	find_range_overflows_at_limit(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mas_store_returns_entry_at_index),
		cmocka_unit_test(test_mas_store_returns_entry_at_index_rcu),
		cmocka_unit_test(test_mas_find_range_overflows_at_limit),
		cmocka_unit_test(test_mas_find_range_overflows_at_limit_rcu),
	};

	int ret;

	urcu_memb_register_thread();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	urcu_memb_unregister_thread();
	return ret;
}
