// SPDX-License-Identifier: MIT
/*
 * Paths of the xarray's multi-index entries that make coverage listed as
 * reachable and untested (doc/coverage.md): states that hold an error or
 * were never walked, a split short of preallocated nodes, multi-index
 * entries in an allocating array, entries the multi-index store refuses,
 * marks and counts of partly covered ranges, and the dump's order column.
 * Each test checks the documented result and validates the array.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "region/xarray.h"
#include "rg_test.h"

static long cells[16];

/* A pointer whose two low bits are 10, above the reserved range. */
#define LOW10 ((void *)(uintptr_t)0x10002)

static void expect_entry(struct rg_xarray *xa, unsigned long first,
			 unsigned long last, void *e, int order)
{
	assert_ptr_equal(rg_xa_load(xa, first), e);
	assert_ptr_equal(rg_xa_load(xa, last), e);
	assert_int_equal(rg_xa_get_order(xa, first), order);
	assert_int_equal(rg_xa_get_order(xa, last), order);
}

/* Calls on a state that holds an error leave the state and array alone. */
static void test_error_state_calls(void **state)
{
	struct rg_xarray xa;
	RG_XA_STATE_ORDER(xas, &xa, 0, 8);

	(void)state;
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_store_order(&xa, 0, 8, &cells[0], NULL), 0);
	rg_xas_set_err(&xas, -EINVAL);
	rg_xa_lock(&xa);
	assert_null(rg_xas_find_conflict(&xas));
	rg_xas_create_range(&xas);
	assert_int_equal(rg_xas_error(&xas), -EINVAL);
	/* create_range did not drop the order: the state is unchanged */
	assert_int_equal(xas.xa_shift, 6);
	assert_int_equal(xas.xa_sibs, 3);
	rg_xa_unlock(&xa);
	rg_xas_split_alloc(&xas, &cells[1], 8);
	assert_int_equal(rg_xas_error(&xas), -EINVAL);
	rg_xa_lock(&xa);
	rg_xas_split(&xas, &cells[1], 8);
	rg_xa_unlock(&xa);
	assert_int_equal(rg_xas_error(&xas), -EINVAL);
	/* an error other than -ENOMEM: nomem has nothing to retry */
	assert_false(rg_xas_nomem(&xas));
	expect_entry(&xa, 0, 255, &cells[0], 8);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
}

/* A state never walked (or not on a node) is on no entry: order 0. */
static void test_get_order_unwalked(void **state)
{
	struct rg_xarray xa;
	RG_XA_STATE(xas, &xa, 100);

	(void)state;
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_store_order(&xa, 64, 6, &cells[0], NULL), 0);
	rg_xa_lock(&xa);
	assert_int_equal(rg_xas_get_order(&xas), 0);
	assert_ptr_equal(rg_xas_load(&xas), &cells[0]);
	assert_int_equal(rg_xas_get_order(&xas), 6);
	rg_xa_unlock(&xa);
	rg_xa_destroy(&xa);
}

/* rg_xas_split_alloc() for a smaller order holds too few nodes. */
static void test_split_short_of_nodes(void **state)
{
	struct rg_xarray xa;
	RG_XA_STATE(xas, &xa, 0);

	(void)state;
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_store_order(&xa, 0, 12, &cells[0], NULL), 0);
	assert_int_equal(rg_xa_set_mark(&xa, 5, RG_XA_MARK_1), 0);
	rg_xas_set_order(&xas, 0, 0);
	/* nodes for splitting an order-6 entry, not an order-12 one */
	rg_xas_split_alloc(&xas, &cells[1], 6);
	assert_int_equal(rg_xas_error(&xas), 0);
	rg_xa_lock(&xa);
	rg_xas_split(&xas, &cells[1], 12);
	rg_xa_unlock(&xa);
	assert_int_equal(rg_xas_error(&xas), -ENOMEM);
	expect_entry(&xa, 0, 4095, &cells[0], 12);
	assert_int_equal(rg_xa_get_mark(&xa, 4095, RG_XA_MARK_1), 1);
	RG_ASSERT_VALID(&xa);
	/* the retry allocates the rest; the split then goes through */
	assert_true(rg_xas_nomem(&xas));
	rg_xa_lock(&xa);
	rg_xas_split(&xas, &cells[1], 12);
	rg_xa_unlock(&xa);
	assert_int_equal(rg_xas_error(&xas), 0);
	rg_xas_nomem(&xas);
	expect_entry(&xa, 4095, 4095, &cells[1], 0);
	assert_int_equal(rg_xa_get_mark(&xa, 4095, RG_XA_MARK_1), 1);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
	RG_ASSERT_CACHE_EMPTY(rg_xa_node_cache_stats);
}

/* In an allocating array NULL reserves; entries are not free. */
static void test_alloc_array_orders(void **state)
{
	struct rg_xarray xa;
	unsigned long id = 0;

	(void)state;
	assert_int_equal(rg_xa_init_flags(&xa, RG_XA_FLAGS_ALLOC), 0);
	/* a reservation of order 6: reads NULL, is not free */
	assert_int_equal(rg_xa_store_order(&xa, 64, 6, NULL, NULL), 0);
	assert_null(rg_xa_load(&xa, 100));
	assert_int_equal(rg_xa_alloc(&xa, &id, &cells[0], 64, 127), -EBUSY);
	assert_int_equal(rg_xa_alloc(&xa, &id, &cells[0], 64, 200), 0);
	assert_int_equal(id, 128);
	RG_ASSERT_VALID(&xa);
	/* an entry of order 4 and a range: neither is free */
	assert_int_equal(rg_xa_store_order(&xa, 0, 4, &cells[1], NULL), 0);
	assert_int_equal(rg_xa_alloc(&xa, &id, &cells[0], 0, 15), -EBUSY);
	assert_int_equal(rg_xa_store_range(&xa, 16, 40, &cells[2]), 0);
	assert_int_equal(rg_xa_alloc(&xa, &id, &cells[0], 0, 40), -EBUSY);
	assert_int_equal(rg_xa_alloc(&xa, &id, &cells[0], 0, 63), 0);
	assert_int_equal(id, 41);
	/* a range stored as NULL is erased (not reserved), entries and all */
	assert_int_equal(rg_xa_store_range(&xa, 16, 63, NULL), 0);
	assert_null(rg_xa_load(&xa, 41));
	assert_int_equal(rg_xa_alloc(&xa, &id, &cells[0], 16, 63), 0);
	assert_int_equal(id, 16);
	RG_ASSERT_VALID(&xa);
	/* releasing the reservation frees all of it */
	rg_xa_release(&xa, 100);
	assert_int_equal(rg_xa_alloc(&xa, &id, &cells[0], 64, 127), 0);
	assert_int_equal(id, 64);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
}

/*
 * Entries with the low bits 10 cannot sit in an interior node: not as an
 * entry of order 6 or more, nor given to one by a store inside it.
 */
static void test_low_bits_refused_in_nodes(void **state)
{
	struct rg_xarray xa;
	RG_XA_STATE_ORDER(xas, &xa, 64, 6);
	void *old = &cells[9];

	(void)state;
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_store_order(&xa, 64, 6, LOW10, &old), -EINVAL);
	assert_ptr_equal(old, &cells[9]);
	rg_xa_lock(&xa);
	rg_xas_store(&xas, LOW10);
	rg_xa_unlock(&xa);
	assert_int_equal(rg_xas_error(&xas), -EINVAL);
	assert_true(rg_xa_empty(&xa));
	/* in a leaf (order below 6) they are stored like any pointer */
	assert_int_equal(rg_xa_store_order(&xa, 8, 3, LOW10, NULL), 0);
	expect_entry(&xa, 8, 15, LOW10, 3);
	RG_ASSERT_VALID(&xa);
	/* a store inside an order-6 entry would give that entry LOW10 */
	assert_int_equal(rg_xa_store_order(&xa, 128, 6, &cells[0], NULL), 0);
	assert_int_equal(rg_xa_store_order(&xa, 136, 3, LOW10, NULL), -EINVAL);
	assert_int_equal(rg_xa_store(&xa, 140, LOW10, NULL), -EINVAL);
	rg_xa_lock(&xa);
	rg_xas_set(&xas, 150);
	rg_xas_set_order(&xas, 150, 0);
	rg_xas_store(&xas, LOW10);
	rg_xa_unlock(&xa);
	assert_int_equal(rg_xas_error(&xas), -EINVAL);
	expect_entry(&xa, 128, 191, &cells[0], 6);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
}

/*
 * Regression: rg_xa_store_range() of one index, with an entry whose low
 * bits are 10, inside an entry of order 6 or more failed its internal
 * store and asserted (debug builds) or returned 0 having stored nothing.
 * It now returns -EINVAL and leaves the array as it was.
 */
static void test_store_range_low_bits_inside_order6(void **state)
{
	struct rg_xarray xa;

	(void)state;
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_store_order(&xa, 128, 7, &cells[0], NULL), 0);
	assert_int_equal(rg_xa_set_mark(&xa, 130, RG_XA_MARK_2), 0);
	assert_int_equal(rg_xa_store_range(&xa, 200, 200, LOW10), -EINVAL);
	expect_entry(&xa, 128, 255, &cells[0], 7);
	assert_int_equal(rg_xa_get_mark(&xa, 200, RG_XA_MARK_2), 1);
	RG_ASSERT_VALID(&xa);
	/* outside any such entry the same call stores it */
	assert_int_equal(rg_xa_store_range(&xa, 300, 300, LOW10), 0);
	expect_entry(&xa, 300, 300, LOW10, 0);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
	RG_ASSERT_CACHE_EMPTY(rg_xa_node_cache_stats);
}

/* A store covering smaller entries unites their marks; counts follow. */
static void test_cover_unites_marks(void **state)
{
	struct rg_xarray xa;
	unsigned long i;
	void *e, *old = NULL;
	int n = 0;

	(void)state;
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_store(&xa, 4, rg_xa_mk_value(4), NULL), 0);
	assert_int_equal(rg_xa_store(&xa, 6, &cells[6], NULL), 0);
	assert_int_equal(rg_xa_store_order(&xa, 2, 1, rg_xa_mk_value(2), NULL),
			 0);
	assert_int_equal(rg_xa_set_mark(&xa, 4, RG_XA_MARK_0), 0);
	assert_int_equal(rg_xa_set_mark(&xa, 6, RG_XA_MARK_2), 0);
	assert_int_equal(rg_xa_set_mark(&xa, 3, RG_XA_MARK_1), 0);
	/* order 2 at 4 covers 4 and 6 only: 2-3 keeps its own mark */
	assert_int_equal(rg_xa_store_order(&xa, 4, 2, rg_xa_mk_value(9), &old),
			 0);
	assert_ptr_equal(old, rg_xa_mk_value(4));
	expect_entry(&xa, 4, 7, rg_xa_mk_value(9), 2);
	assert_int_equal(rg_xa_get_mark(&xa, 7, RG_XA_MARK_0), 1);
	assert_int_equal(rg_xa_get_mark(&xa, 5, RG_XA_MARK_2), 1);
	assert_int_equal(rg_xa_get_mark(&xa, 5, RG_XA_MARK_1), 0);
	assert_int_equal(rg_xa_get_mark(&xa, 2, RG_XA_MARK_1), 1);
	RG_ASSERT_VALID(&xa);
	/* order 3 at 0 covers both entries and unites all three marks */
	assert_int_equal(rg_xa_store_order(&xa, 0, 3, &cells[1], &old), 0);
	assert_ptr_equal(old, rg_xa_mk_value(2));
	for (unsigned int m = 0; m <= RG_XA_MARK_MAX; m++)
		assert_int_equal(rg_xa_get_mark(&xa, 0, m), 1);
	rg_xa_for_each(&xa, i, e)
	{
		assert_int_equal(i, 0);
		assert_ptr_equal(e, &cells[1]);
		n++;
	}
	assert_int_equal(n, 1);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
}

/* Paths of the multi-index store and erase that build or skip levels. */
static void test_store_levels(void **state)
{
	struct rg_xarray xa;
	void *old = &cells[9];

	(void)state;
	rg_xa_init(&xa);
	/* a marked head entry moves into a leaf with its mark */
	assert_int_equal(rg_xa_store(&xa, 0, &cells[0], NULL), 0);
	assert_int_equal(rg_xa_set_mark(&xa, 0, RG_XA_MARK_1), 0);
	assert_int_equal(rg_xa_store_order(&xa, 64, 6, &cells[1], NULL), 0);
	assert_int_equal(rg_xa_get_mark(&xa, 0, RG_XA_MARK_1), 1);
	assert_int_equal(rg_xa_get_mark(&xa, 64, RG_XA_MARK_1), 0);
	expect_entry(&xa, 64, 127, &cells[1], 6);
	RG_ASSERT_VALID(&xa);
	/* an order-6 entry far above the root: levels added on the way */
	assert_int_equal(rg_xa_store_order(&xa, 1UL << 30, 6, &cells[2], NULL),
			 0);
	expect_entry(&xa, 1UL << 30, (1UL << 30) + 63, &cells[2], 6);
	RG_ASSERT_VALID(&xa);
	/* an erase of an order where no node exists: nothing there */
	assert_int_equal(rg_xa_store_order(&xa, 320, 2, NULL, &old), 0);
	assert_null(old);
	assert_ptr_equal(rg_xa_load(&xa, 0), &cells[0]);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
	RG_ASSERT_CACHE_EMPTY(rg_xa_node_cache_stats);
}

/* rg_xas_create_range() on an empty, a head-only and a partial tree. */
static void test_create_range_counts(void **state)
{
	struct rg_xarray xa;
	unsigned long i;

	(void)state;
	rg_xa_init(&xa);
	for (int round = 0; round < 3; round++) {
		RG_XA_STATE_ORDER(xas, &xa, 0, 8);

		if (round == 1)
			assert_int_equal(rg_xa_store(&xa, 0, &cells[0], NULL),
					 0);
		if (round == 2)
			assert_int_equal(rg_xa_store(&xa, 130, &cells[1], NULL),
					 0);
		rg_xa_lock(&xa);
		/* (rg_xas_nomem() on a state without error frees its nodes) */
		for (rg_xas_create_range(&xas); rg_xas_error(&xas);
		     rg_xas_create_range(&xas)) {
			rg_xa_unlock(&xa);
			assert_true(rg_xas_nomem(&xas));
			rg_xa_lock(&xa);
		}
		/* the stores over the range then never fail for memory */
		rg_fault_inject(1);
		for (i = 0; i < 256; i++) {
			rg_xas_store(&xas, rg_xa_mk_value(i));
			assert_int_equal(rg_xas_error(&xas), 0);
			rg_xas_next(&xas);
		}
		assert_false(rg_fault_fired());
		rg_fault_inject(0);
		rg_xa_unlock(&xa);
		rg_xas_nomem(&xas);
		assert_ptr_equal(rg_xa_load(&xa, 255), rg_xa_mk_value(255));
		RG_ASSERT_VALID(&xa);
		assert_int_equal(rg_xa_store_range(&xa, 0, 255, NULL), 0);
		assert_true(rg_xa_empty(&xa));
	}
	/* index 0 alone in an empty array lives in the head: no node */
	{
		RG_XA_STATE(xas, &xa, 0);

		rg_xa_lock(&xa);
		rg_fault_inject(1);
		rg_xas_create_range(&xas);
		assert_false(rg_fault_fired());
		rg_fault_inject(0);
		assert_int_equal(rg_xas_error(&xas), 0);
		rg_xas_store(&xas, &cells[4]);
		assert_int_equal(rg_xas_error(&xas), 0);
		rg_xa_unlock(&xa);
		assert_int_equal(rg_xa_node_count(&xa), 0);
		assert_ptr_equal(rg_xa_erase(&xa, 0), &cells[4]);
	}
	/* a range too large to count in a state: -ENOMEM, nothing held */
	{
		RG_XA_STATE_ORDER(xas, &xa, 0, 40);

		rg_xa_lock(&xa);
		rg_xas_create_range(&xas);
		rg_xa_unlock(&xa);
		assert_int_equal(rg_xas_error(&xas), -ENOMEM);
	}
	/* the whole index space as one piece of order BITS_PER_LONG */
	assert_int_equal(rg_xa_store_range(&xa, 0, ULONG_MAX, &cells[3]), 0);
	expect_entry(&xa, 0, ULONG_MAX, &cells[3], RG_BITS_PER_LONG);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
	RG_ASSERT_CACHE_EMPTY(rg_xa_node_cache_stats);
}

/* A split into order 0 of the whole index space takes too many nodes. */
static void test_split_alloc_too_many(void **state)
{
	struct rg_xarray xa;
	RG_XA_STATE(xas, &xa, 0);

	(void)state;
	rg_xa_init(&xa);
	rg_fault_inject(0);
	rg_xas_split_alloc(&xas, &cells[0], RG_BITS_PER_LONG);
	assert_int_equal(rg_xas_error(&xas), -ENOMEM);
	rg_xa_destroy(&xa);
	RG_ASSERT_CACHE_EMPTY(rg_xa_node_cache_stats);
}

/* find_after from inside an entry that reaches past max finds nothing. */
static void test_find_after_inside_last_entry(void **state)
{
	struct rg_xarray xa;
	unsigned long i = 3;

	(void)state;
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_store_order(&xa, 0, 4, &cells[0], NULL), 0);
	assert_int_equal(rg_xa_store(&xa, 40, &cells[1], NULL), 0);
	assert_null(rg_xa_find_after(&xa, &i, 15, RG_XA_PRESENT));
	i = 3;
	assert_ptr_equal(rg_xa_find_after(&xa, &i, 63, RG_XA_PRESENT),
			 &cells[1]);
	assert_int_equal(i, 40);
	rg_xa_destroy(&xa);
}

/*
 * A find that starts in a reservation of order 2 (an allocating array's
 * NULL) skips the reservation's canonical slot and its siblings alike.
 */
static void test_find_skips_reserved_siblings(void **state)
{
	struct rg_xarray xa;
	unsigned long i, start;

	(void)state;
	assert_int_equal(rg_xa_init_flags(&xa, RG_XA_FLAGS_ALLOC), 0);
	assert_int_equal(rg_xa_store(&xa, 1, &cells[1], NULL), 0);
	assert_int_equal(rg_xa_store_order(&xa, 64, 2, NULL, NULL), 0);
	assert_int_equal(rg_xa_store(&xa, 70, &cells[0], NULL), 0);
	RG_ASSERT_VALID(&xa);
	for (start = 64; start <= 67; start++) {
		assert_null(rg_xa_load(&xa, start));
		i = start;
		assert_ptr_equal(rg_xa_find(&xa, &i, ULONG_MAX, RG_XA_PRESENT),
				 &cells[0]);
		assert_int_equal(i, 70);
		/* nothing but the reservation up to max: NULL, i unchanged */
		i = start;
		assert_null(rg_xa_find(&xa, &i, 69, RG_XA_PRESENT));
		assert_int_equal(i, start);
		i = start;
		assert_ptr_equal(rg_xa_find_after(&xa, &i, 100, RG_XA_PRESENT),
				 &cells[0]);
		assert_int_equal(i, 70);
	}
	/* the reservation still holds its four indices */
	assert_int_equal(rg_xa_get_order(&xa, 66), 2);
	assert_int_equal(rg_xa_alloc(&xa, &i, &cells[2], 64, 67), -EBUSY);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
	RG_ASSERT_CACHE_EMPTY(rg_xa_node_cache_stats);
}

/* The dump names the order of each multi-index entry. */
static void test_dump_order_column(void **state)
{
	struct rg_xarray xa;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_store_order(&xa, 0, 3, &cells[0], NULL), 0);
	assert_int_equal(rg_xa_store_order(&xa, 4096, 12, &cells[1], NULL), 0);
	assert_int_equal(rg_xa_store(&xa, 9, &cells[2], NULL), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	rg_xa_dump(&xa, f);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "[0] order 3 "));
	assert_non_null(strstr(buf, "[4096] order 12 "));
	/* a single-index entry in a leaf has no order column */
	assert_non_null(strstr(buf, "[9] "));
	assert_null(strstr(buf, "[9] order"));
	free(buf);
	rg_xa_destroy(&xa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_state_calls),
		cmocka_unit_test(test_get_order_unwalked),
		cmocka_unit_test(test_split_short_of_nodes),
		cmocka_unit_test(test_alloc_array_orders),
		cmocka_unit_test(test_low_bits_refused_in_nodes),
		cmocka_unit_test(test_store_range_low_bits_inside_order6),
		cmocka_unit_test(test_cover_unites_marks),
		cmocka_unit_test(test_store_levels),
		cmocka_unit_test(test_create_range_counts),
		cmocka_unit_test(test_split_alloc_too_many),
		cmocka_unit_test(test_find_after_inside_last_entry),
		cmocka_unit_test(test_find_skips_reserved_siblings),
		cmocka_unit_test(test_dump_order_column),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
