// SPDX-License-Identifier: MIT
/*
 * Unit tests of every Maple Tree call: the normal API, the advanced API,
 * allocation trees (gap searches, alloc_range / alloc_rrange / alloc_cyclic),
 * preallocation and its statistics, validate/dump, the kernel names, and
 * bad input (reserved entries, inverted ranges, -EEXIST, -EBUSY).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>

#include "region/linux.h"
#include "region/maple_tree.h"
#include "rg_test.h"

#define V(x) rg_mt_mk_value(x)

static unsigned long live_nodes(void)
{
	struct rg_slab_stats st;

	assert_int_equal(rg_mtree_node_stats(&st), 0);
	return st.objects_in_use;
}

/* Expect exactly the ranges r[0..n) (start, last, value) and nothing else. */
static void expect_ranges(struct rg_maple_tree *mt, const unsigned long *r,
			  size_t n)
{
	RG_MA_STATE(mas, mt, 0, 0);
	size_t i = 0;
	void *e;

	rg_mtree_lock(mt);
	rg_mas_for_each(&mas, e, ULONG_MAX)
	{
		assert_true(i < n);
		assert_int_equal(mas.index, r[3 * i]);
		assert_int_equal(mas.last, r[3 * i + 1]);
		assert_ptr_equal(e, V(r[3 * i + 2]));
		i++;
	}
	rg_mtree_unlock(mt);
	assert_int_equal(i, n);
	RG_ASSERT_VALID(mt);
}

static void test_init_and_empty(void **state)
{
	struct rg_maple_tree mt;
	RG_DEFINE_MTREE(st);

	(void)state;
	assert_int_equal(rg_mtree_init(NULL, 0), -EINVAL);
	assert_int_equal(rg_mtree_init(&mt, 0x100), -EINVAL);
	assert_int_equal(rg_mtree_init(&mt, RG_MT_FLAGS_ALLOC_RANGE), 0);
	assert_true(rg_mtree_empty(&mt));
	assert_int_equal(rg_mtree_height(&mt), 0);
	assert_null(rg_mtree_load(&mt, 0));
	assert_null(rg_mtree_load(&mt, ULONG_MAX));
	assert_int_equal(rg_mtree_bytes(&mt), sizeof(mt));
	RG_ASSERT_VALID(&mt);
	rg_mtree_destroy(&mt);

	assert_true(rg_mtree_empty(&st));
	assert_int_equal(rg_mtree_store(&st, 5, V(5)), 0);
	assert_ptr_equal(rg_mtree_load(&st, 5), V(5));
	RG_ASSERT_VALID(&st);
	rg_mtree_destroy(&st);
	assert_true(rg_mtree_empty(&st));
}

static void test_root_entry(void **state)
{
	RG_DEFINE_MTREE(mt);
	int x;

	(void)state;
	/* Index 0 alone lives in the root pointer: no node. */
	assert_int_equal(rg_mtree_store(&mt, 0, &x), 0);
	assert_int_equal(rg_mtree_height(&mt), 0);
	assert_int_equal(rg_mtree_bytes(&mt), sizeof(mt));
	assert_ptr_equal(rg_mtree_load(&mt, 0), &x);
	assert_null(rg_mtree_load(&mt, 1));
	RG_ASSERT_VALID(&mt);
	/* A second range needs a leaf and keeps index 0. */
	assert_int_equal(rg_mtree_store(&mt, 7, V(7)), 0);
	assert_int_equal(rg_mtree_height(&mt), 1);
	assert_int_equal(rg_mtree_bytes(&mt), sizeof(mt) + 256);
	assert_ptr_equal(rg_mtree_load(&mt, 0), &x);
	assert_ptr_equal(rg_mtree_load(&mt, 7), V(7));
	RG_ASSERT_VALID(&mt);
	assert_ptr_equal(rg_mtree_erase(&mt, 7), V(7));
	assert_ptr_equal(rg_mtree_erase(&mt, 0), &x);
	assert_true(rg_mtree_empty(&mt));
	assert_int_equal(rg_mtree_height(&mt), 0);
	RG_ASSERT_VALID(&mt);
	/* Erasing the root entry directly. */
	assert_int_equal(rg_mtree_store(&mt, 0, &x), 0);
	assert_ptr_equal(rg_mtree_erase(&mt, 0), &x);
	assert_true(rg_mtree_empty(&mt));
	/* An entry whose low bits look like a node goes into a leaf. */
	assert_int_equal(rg_mtree_store(&mt, 0, (void *)0x10002UL), 0);
	assert_ptr_equal(rg_mtree_load(&mt, 0), (void *)0x10002UL);
	RG_ASSERT_VALID(&mt);
	rg_mtree_destroy(&mt);
}

static void test_bad_input(void **state)
{
	RG_DEFINE_MTREE(mt);
	RG_MA_STATE(mas, &mt, 5, 4);
	unsigned long start;

	(void)state;
	/* Reserved values: below 4096, low bits 10. */
	assert_int_equal(rg_mtree_store(&mt, 1, (void *)2UL), -EINVAL);
	assert_int_equal(rg_mtree_store(&mt, 1, (void *)4094UL), -EINVAL);
	assert_int_equal(rg_mtree_store_range(&mt, 1, 9, (void *)6UL), -EINVAL);
	assert_int_equal(rg_mtree_insert(&mt, 1, (void *)10UL), -EINVAL);
	assert_int_equal(rg_mtree_insert_range(&mt, 1, 3, (void *)14UL),
			 -EINVAL);
	assert_true(rg_mt_is_reserved((void *)2UL));
	assert_false(rg_mt_is_reserved((void *)4098UL));
	assert_false(rg_mt_is_reserved(V(1)));
	/* Inverted ranges. */
	assert_int_equal(rg_mtree_store_range(&mt, 9, 1, V(1)), -EINVAL);
	assert_int_equal(rg_mtree_insert_range(&mt, 9, 1, V(1)), -EINVAL);
	rg_mtree_lock(&mt);
	assert_int_equal(rg_mas_store_gfp(&mas, V(1), 0), -EINVAL);
	assert_int_equal(mas.status, RG_MAS_ERROR);
	assert_int_equal(mas.error, -EINVAL);
	assert_null(rg_mas_store(&mas, V(1)));
	rg_mas_set_range(&mas, 1, 2);
	assert_int_equal(rg_mas_preallocate(&mas, (void *)2UL, 0), -EINVAL);
	assert_int_equal(rg_mas_store_gfp(&mas, (void *)2UL, 0), -EINVAL);
	rg_mtree_unlock(&mt);
	/* Allocation calls on an ordinary tree. */
	assert_int_equal(rg_mtree_alloc_range(&mt, &start, V(1), 1, 0, 10),
			 -EINVAL);
	assert_true(rg_mtree_empty(&mt));
	RG_ASSERT_VALID(&mt);
	rg_mtree_destroy(&mt);
}

static void test_store_overwrite(void **state)
{
	RG_DEFINE_MTREE(mt);
	static const unsigned long r1[] = { 10, 14, 1, 15, 34, 4, 35, 39, 3 };
	static const unsigned long r2[] = { 10, 14, 1, 15, 19, 5,
					    20, 34, 4, 35, 39, 3 };
	static const unsigned long r3[] = { 10, 14, 1, 15, 19, 5, 35, 39, 3 };

	(void)state;
	assert_int_equal(rg_mtree_store_range(&mt, 10, 19, V(1)), 0);
	assert_int_equal(rg_mtree_store_range(&mt, 20, 29, V(2)), 0);
	assert_int_equal(rg_mtree_store_range(&mt, 30, 39, V(3)), 0);
	/* Overwrite the end of one, all of another, the start of a third. */
	assert_int_equal(rg_mtree_store_range(&mt, 15, 34, V(4)), 0);
	expect_ranges(&mt, r1, 3);
	/* Split a range in the middle: three pieces. */
	assert_int_equal(rg_mtree_store_range(&mt, 15, 19, V(5)), 0);
	expect_ranges(&mt, r2, 4);
	/* Storing NULL erases exactly the range given. */
	assert_int_equal(rg_mtree_store_range(&mt, 20, 34, NULL), 0);
	expect_ranges(&mt, r3, 3);
	assert_null(rg_mtree_load(&mt, 25));
	/* erase() removes the whole range holding the index. */
	assert_ptr_equal(rg_mtree_erase(&mt, 37), V(3));
	assert_null(rg_mtree_load(&mt, 35));
	assert_null(rg_mtree_erase(&mt, 37));
	{
		void *old = V(9);

		assert_int_equal(rg_mtree_erase_err(&mt, 1000, &old), 0);
		assert_null(old);
		assert_int_equal(rg_mtree_erase_err(&mt, 12, &old), 0);
		assert_ptr_equal(old, V(1));
	}
	RG_ASSERT_VALID(&mt);
	rg_mtree_destroy(&mt);
}

static void test_edges(void **state)
{
	RG_DEFINE_MTREE(mt);
	unsigned long idx;

	(void)state;
	/* One range over everything. */
	assert_int_equal(rg_mtree_store_range(&mt, 0, ULONG_MAX, V(1)), 0);
	assert_ptr_equal(rg_mtree_load(&mt, 0), V(1));
	assert_ptr_equal(rg_mtree_load(&mt, ULONG_MAX), V(1));
	assert_ptr_equal(rg_mtree_load(&mt, 1UL << 40), V(1));
	RG_ASSERT_VALID(&mt);
	idx = 0;
	assert_ptr_equal(rg_mtree_find(&mt, &idx, ULONG_MAX), V(1));
	assert_int_equal(idx, 0); /* wrapped past ULONG_MAX */
	assert_null(rg_mtree_find_after(&mt, &idx, ULONG_MAX));
	/* Cut both ends. */
	assert_int_equal(rg_mtree_store(&mt, 0, V(2)), 0);
	assert_int_equal(rg_mtree_store(&mt, ULONG_MAX, V(3)), 0);
	assert_ptr_equal(rg_mtree_load(&mt, 0), V(2));
	assert_ptr_equal(rg_mtree_load(&mt, 1), V(1));
	assert_ptr_equal(rg_mtree_load(&mt, ULONG_MAX - 1), V(1));
	assert_ptr_equal(rg_mtree_load(&mt, ULONG_MAX), V(3));
	RG_ASSERT_VALID(&mt);
	assert_ptr_equal(rg_mtree_erase(&mt, 5), V(1));
	assert_null(rg_mtree_load(&mt, ULONG_MAX - 1));
	assert_ptr_equal(rg_mtree_erase(&mt, ULONG_MAX), V(3));
	assert_ptr_equal(rg_mtree_erase(&mt, 0), V(2));
	assert_true(rg_mtree_empty(&mt));
	RG_ASSERT_VALID(&mt);
	/* Ranges ending at ULONG_MAX in a tree of many nodes. */
	for (unsigned long i = 0; i < 1000; i++)
		assert_int_equal(rg_mtree_store_range(&mt,
						      ULONG_MAX - 2 * i - 1,
						      ULONG_MAX - 2 * i, V(i)),
				 0);
	RG_ASSERT_VALID(&mt);
	assert_ptr_equal(rg_mtree_load(&mt, ULONG_MAX), V(0));
	assert_ptr_equal(rg_mtree_load(&mt, ULONG_MAX - 1999), V(999));
	assert_null(rg_mtree_load(&mt, ULONG_MAX - 2000));
	assert_int_equal(rg_mtree_store_range(&mt, 0, ULONG_MAX - 10, NULL), 0);
	RG_ASSERT_VALID(&mt);
	assert_ptr_equal(rg_mtree_load(&mt, ULONG_MAX - 9), V(4));
	assert_null(rg_mtree_load(&mt, ULONG_MAX - 10));
	rg_mtree_destroy(&mt);
	RG_ASSERT_VALID(&mt);
}

static void test_insert(void **state)
{
	RG_DEFINE_MTREE(mt);

	(void)state;
	assert_int_equal(rg_mtree_insert_range(&mt, 10, 20, V(1)), 0);
	assert_int_equal(rg_mtree_insert_range(&mt, 10, 20, V(2)), -EEXIST);
	assert_int_equal(rg_mtree_insert_range(&mt, 5, 10, V(2)), -EEXIST);
	assert_int_equal(rg_mtree_insert_range(&mt, 20, 30, V(2)), -EEXIST);
	assert_int_equal(rg_mtree_insert_range(&mt, 0, 100, V(2)), -EEXIST);
	assert_int_equal(rg_mtree_insert(&mt, 15, V(2)), -EEXIST);
	assert_int_equal(rg_mtree_insert(&mt, 21, V(3)), 0);
	assert_int_equal(rg_mtree_insert_range(&mt, 0, 9, V(4)), 0);
	assert_int_equal(rg_mtree_insert(&mt, 22, NULL), 0);
	assert_null(rg_mtree_load(&mt, 22));
	assert_ptr_equal(rg_mtree_load(&mt, 20), V(1));
	assert_ptr_equal(rg_mtree_load(&mt, 21), V(3));
	assert_ptr_equal(rg_mtree_load(&mt, 9), V(4));
	RG_ASSERT_VALID(&mt);
	rg_mtree_destroy(&mt);
}

static void test_find_and_for_each(void **state)
{
	RG_DEFINE_MTREE(mt);
	unsigned long idx = 0, n = 0;
	void *e;

	(void)state;
	for (unsigned long i = 1; i <= 500; i++)
		assert_int_equal(
			rg_mtree_store_range(&mt, i * 10, i * 10 + 3, V(i)), 0);
	idx = 0;
	rg_mt_for_each(&mt, e, idx, ULONG_MAX) {
		n++;
		assert_ptr_equal(e, V(n));
		assert_int_equal(idx, n * 10 + 4);
	}
	assert_int_equal(n, 500);
	idx = 15;
	assert_ptr_equal(rg_mtree_find(&mt, &idx, ULONG_MAX), V(2));
	assert_int_equal(idx, 24);
	idx = 22;
	assert_ptr_equal(rg_mtree_find(&mt, &idx, ULONG_MAX), V(2));
	idx = 15;
	assert_null(rg_mtree_find(&mt, &idx, 19));
	assert_int_equal(idx, 15);
	idx = 15;
	assert_ptr_equal(rg_mtree_find(&mt, &idx, 20), V(2));
	idx = 5006;
	assert_null(rg_mtree_find(&mt, &idx, ULONG_MAX));
	idx = 30;
	assert_null(rg_mtree_find(&mt, &idx, 29));
	rg_mtree_destroy(&mt);
}

/* The gap-search examples of kernel-semantics.md. */
static void test_gap_examples(void **state)
{
	struct rg_maple_tree mt;

	(void)state;
	for (int alloc = 0; alloc < 2; alloc++) {
		RG_MA_STATE(mas, &mt, 0, 0);

		rg_mtree_init(&mt, alloc ? RG_MT_FLAGS_ALLOC_RANGE : 0);
		assert_int_equal(rg_mtree_store_range(&mt, 10, 159, V(1)), 0);
		assert_int_equal(rg_mtree_store_range(&mt, 170, 209, V(2)), 0);
		rg_mtree_lock(&mt);
		assert_int_equal(rg_mas_empty_area_rev(&mas, 5, 90, 5), 0);
		assert_int_equal(mas.index, 5);
		assert_int_equal(mas.last, 9);
		assert_int_equal(rg_mas_empty_area_rev(&mas, 5, 217, 9), 0);
		assert_int_equal(mas.index, 161);
		assert_int_equal(mas.last, 169);
		assert_int_equal(rg_mas_empty_area(&mas, 0, 100, 4), 0);
		assert_int_equal(mas.index, 0);
		assert_int_equal(mas.last, 3);
		assert_int_equal(rg_mas_empty_area(&mas, 0, 100, 11), -EBUSY);
		/* More: forward past the hole, bad windows. */
		assert_int_equal(rg_mas_empty_area(&mas, 100, 300, 10), 0);
		assert_int_equal(mas.index, 160);
		assert_int_equal(rg_mas_empty_area(&mas, 100, 300, 11), 0);
		assert_int_equal(mas.index, 210);
		assert_int_equal(rg_mas_empty_area(&mas, 0, 10, 0), -EINVAL);
		assert_int_equal(rg_mas_empty_area(&mas, 10, 0, 1), -EINVAL);
		assert_int_equal(rg_mas_empty_area(&mas, 0, 9, 11), -EINVAL);
		assert_int_equal(rg_mas_empty_area_rev(&mas, 0, ULONG_MAX, 5),
				 0);
		assert_int_equal(mas.last, ULONG_MAX);
		/* The window found can be stored through the same state. */
		assert_int_equal(rg_mas_empty_area(&mas, 0, 1000, 3), 0);
		assert_int_equal(rg_mas_store_gfp(&mas, V(3), 0), 0);
		rg_mtree_unlock(&mt);
		assert_ptr_equal(rg_mtree_load(&mt, 2), V(3));
		RG_ASSERT_VALID(&mt);
		rg_mtree_destroy(&mt);
	}
}

static void test_alloc_range(void **state)
{
	struct rg_maple_tree mt;
	unsigned long start, total = 0, i;
	int ret;

	(void)state;
	rg_mtree_init(&mt, RG_MT_FLAGS_ALLOC_RANGE);
	/* Bad input. */
	assert_int_equal(rg_mtree_alloc_range(&mt, &start, V(1), 0, 0, 9),
			 -EINVAL);
	assert_int_equal(rg_mtree_alloc_range(&mt, &start, V(1), 1, 9, 0),
			 -EINVAL);
	assert_int_equal(rg_mtree_alloc_range(&mt, &start, V(1), 11, 0, 9),
			 -EINVAL);
	assert_int_equal(rg_mtree_alloc_range(&mt, &start, NULL, 1, 0, 9),
			 -EINVAL);
	assert_int_equal(
		rg_mtree_alloc_range(&mt, &start, (void *)2UL, 1, 0, 9),
		-EINVAL);
	assert_int_equal(rg_mtree_alloc_range(&mt, &start, V(1), ULONG_MAX, 0,
					      ULONG_MAX),
			 0);
	assert_int_equal(start, 0);
	assert_ptr_equal(rg_mtree_erase(&mt, 5), V(1));
	/* Fill [0, 999] with sizes 1..7 until -EBUSY; lowest fit each time. */
	for (i = 0;; i++) {
		unsigned long size = 1 + i % 7;

		ret = rg_mtree_alloc_range(&mt, &start, V(i), size, 0, 999);
		if (ret) {
			assert_int_equal(ret, -EBUSY);
			break;
		}
		assert_int_equal(start, total);
		total += size;
	}
	assert_true(total > 990);
	RG_ASSERT_VALID(&mt);
	/* Free the range holding 500: the next small allocation goes there. */
	{
		RG_MA_STATE(mas, &mt, 500, 500);
		void *was;

		rg_mtree_lock(&mt);
		was = rg_mas_walk(&mas);
		rg_mtree_unlock(&mt);
		assert_non_null(was);
		assert_ptr_equal(rg_mtree_erase(&mt, 500), was);
		RG_ASSERT_VALID(&mt);
		assert_int_equal(
			rg_mtree_alloc_range(&mt, &start, V(77), 1, 0, 999), 0);
		assert_int_equal(start, mas.index);
		assert_int_equal(rg_mtree_alloc_rrange(&mt, &start, V(78), 1, 0,
						       mas.last),
				 0);
		if (mas.last > mas.index)
			assert_int_equal(start, mas.last);
		RG_ASSERT_VALID(&mt);
	}
	/* Fill to -EBUSY from the top, in an empty tree. */
	rg_mtree_destroy(&mt);
	total = 1000;
	for (i = 0;; i++) {
		unsigned long size = 1 + i % 5;

		ret = rg_mtree_alloc_rrange(&mt, &start, V(i), size, 0, 999);
		if (ret) {
			assert_int_equal(ret, -EBUSY);
			break;
		}
		assert_int_equal(start + size, total);
		total -= size;
	}
	assert_true(total < 5);
	RG_ASSERT_VALID(&mt);
	assert_int_equal(
		rg_mtree_alloc_rrange(&mt, &start, V(1), 1, 0, ULONG_MAX), 0);
	assert_int_equal(start, ULONG_MAX);
	rg_mtree_destroy(&mt);
}

static void test_alloc_cyclic(void **state)
{
	struct rg_maple_tree mt;
	unsigned long start, next = 0;

	(void)state;
	rg_mtree_init(&mt, RG_MT_FLAGS_ALLOC_RANGE);
	assert_int_equal(rg_mtree_alloc_cyclic(&mt, &start, V(1), 5, 4, &next),
			 -EINVAL);
	for (unsigned long i = 10; i <= 19; i++) {
		assert_int_equal(
			rg_mtree_alloc_cyclic(&mt, &start, V(i), 10, 19, &next),
			0);
		assert_int_equal(start, i);
		assert_int_equal(next, i + 1);
	}
	assert_int_equal(
		rg_mtree_alloc_cyclic(&mt, &start, V(1), 10, 19, &next),
		-EBUSY);
	assert_ptr_equal(rg_mtree_erase(&mt, 13), V(13));
	assert_ptr_equal(rg_mtree_erase(&mt, 17), V(17));
	/* next is 20 (out of range): the search starts at 10, no wrap. */
	assert_int_equal(
		rg_mtree_alloc_cyclic(&mt, &start, V(2), 10, 19, &next), 0);
	assert_int_equal(start, 13);
	assert_int_equal(next, 14);
	/* From 14 the next free is 17. */
	assert_int_equal(
		rg_mtree_alloc_cyclic(&mt, &start, V(3), 10, 19, &next), 0);
	assert_int_equal(start, 17);
	/* Free 11; from 18 nothing is free up to 19: wrap to 11 (returns 1). */
	assert_ptr_equal(rg_mtree_erase(&mt, 11), V(11));
	assert_int_equal(
		rg_mtree_alloc_cyclic(&mt, &start, V(4), 10, 19, &next), 1);
	assert_int_equal(start, 11);
	assert_int_equal(next, 12);
	RG_ASSERT_VALID(&mt);
	/* Near ULONG_MAX next wraps to 0. */
	next = ULONG_MAX;
	assert_int_equal(
		rg_mtree_alloc_cyclic(&mt, &start, V(5), 0, ULONG_MAX, &next),
		0);
	assert_int_equal(start, ULONG_MAX);
	assert_int_equal(next, 0);
	rg_mtree_destroy(&mt);
}

/* The advanced API's reads; with @flags RG_MT_FLAGS_USE_RCU, lock-free code. */
static void advanced_iteration(unsigned int flags)
{
	struct rg_maple_tree mt;
	RG_MA_STATE(mas, &mt, 0, 0);
	void *e;
	unsigned long n;

	assert_int_equal(rg_mtree_init(&mt, flags), 0);
	/* Ranges [10i, 10i+4] = i for i in 1..300 (several leaves). */
	for (unsigned long i = 1; i <= 300; i++)
		assert_int_equal(
			rg_mtree_store_range(&mt, 10 * i, 10 * i + 4, V(i)), 0);
	rg_mtree_lock(&mt);
	/* walk: the range holding index, empty or not. */
	rg_mas_set(&mas, 12);
	assert_ptr_equal(rg_mas_walk(&mas), V(1));
	assert_int_equal(mas.index, 10);
	assert_int_equal(mas.last, 14);
	rg_mas_set(&mas, 16);
	assert_null(rg_mas_walk(&mas));
	assert_int_equal(mas.index, 15);
	assert_int_equal(mas.last, 19);
	/* next / prev from a fresh state. */
	rg_mas_set(&mas, 16);
	assert_ptr_equal(rg_mas_next(&mas, ULONG_MAX), V(2));
	assert_int_equal(mas.index, 20);
	assert_ptr_equal(rg_mas_next(&mas, ULONG_MAX), V(3));
	assert_ptr_equal(rg_mas_prev(&mas, 0), V(2));
	assert_ptr_equal(rg_mas_prev(&mas, 0), V(1));
	assert_null(rg_mas_prev(&mas, 0));
	assert_int_equal(mas.status, RG_MAS_UNDERFLOW);
	/* as the kernel: the state stands on the empty range it reached */
	assert_int_equal(mas.index, 0);
	assert_int_equal(mas.last, 9);
	rg_mas_set(&mas, 12);
	assert_null(rg_mas_prev(&mas, 0));
	/* next_range / prev_range include empty ranges. */
	rg_mas_set(&mas, 12);
	assert_null(rg_mas_next_range(&mas, ULONG_MAX));
	assert_int_equal(mas.index, 15);
	assert_int_equal(mas.last, 19);
	assert_int_equal(mas.status, RG_MAS_ACTIVE);
	assert_ptr_equal(rg_mas_next_range(&mas, ULONG_MAX), V(2));
	assert_null(rg_mas_prev_range(&mas, 0));
	assert_int_equal(mas.index, 15);
	assert_ptr_equal(rg_mas_prev_range(&mas, 0), V(1));
	assert_null(rg_mas_prev_range(&mas, 0));
	assert_int_equal(mas.index, 0);
	assert_int_equal(mas.last, 9);
	assert_null(rg_mas_prev_range(&mas, 0));
	assert_int_equal(mas.status, RG_MAS_UNDERFLOW);
	/* Limits: next stops at ranges starting above max. */
	rg_mas_set(&mas, 10);
	assert_ptr_equal(rg_mas_find(&mas, 25), V(1));
	assert_ptr_equal(rg_mas_find(&mas, 25), V(2));
	assert_null(rg_mas_find(&mas, 25));
	/* as the kernel: find stays active, on the empty range it reached */
	assert_int_equal(mas.status, RG_MAS_ACTIVE);
	assert_int_equal(mas.index, 25);
	assert_int_equal(mas.last, 29);
	assert_ptr_equal(rg_mas_find(&mas, 35), V(3)); /* larger max resumes */
	/* find from inside a range returns it; find_range returns empties. */
	rg_mas_set(&mas, 13);
	assert_ptr_equal(rg_mas_find(&mas, ULONG_MAX), V(1));
	rg_mas_set(&mas, 16);
	assert_ptr_equal(rg_mas_find(&mas, ULONG_MAX), V(2));
	rg_mas_set(&mas, 16);
	assert_null(rg_mas_find_range(&mas, ULONG_MAX));
	assert_int_equal(mas.index, 15);
	assert_ptr_equal(rg_mas_find_range(&mas, ULONG_MAX), V(2));
	rg_mas_set(&mas, 100);
	assert_null(rg_mas_find(&mas, 99));
	/* find_rev */
	rg_mas_set(&mas, 27);
	assert_ptr_equal(rg_mas_find_rev(&mas, 0), V(2));
	assert_ptr_equal(rg_mas_find_rev(&mas, 0), V(1));
	assert_null(rg_mas_find_rev(&mas, 0));
	rg_mas_set(&mas, 3);
	assert_null(rg_mas_find_rev(&mas, 5));
	/* Full forward and backward iteration across leaves. */
	rg_mas_set(&mas, 0);
	n = 0;
	rg_mas_for_each(&mas, e, ULONG_MAX)
	{
		n++;
		assert_ptr_equal(e, V(n));
	}
	assert_int_equal(n, 300);
	rg_mas_set(&mas, ULONG_MAX);
	while ((e = rg_mas_find_rev(&mas, 0)) != NULL) {
		assert_ptr_equal(e, V(n));
		n--;
	}
	assert_int_equal(n, 0);
	/* pause: drop the lock, resume after last. */
	rg_mas_set(&mas, 0);
	assert_ptr_equal(rg_mas_find(&mas, ULONG_MAX), V(1));
	rg_mas_pause(&mas);
	assert_int_equal(mas.status, RG_MAS_PAUSE);
	rg_mtree_unlock(&mt);
	assert_int_equal(rg_mtree_store_range(&mt, 15, 19, V(1000)), 0);
	rg_mtree_lock(&mt);
	assert_ptr_equal(rg_mas_find(&mas, ULONG_MAX), V(1000));
	assert_ptr_equal(rg_mas_find(&mas, ULONG_MAX), V(2));
	rg_mas_pause(&mas);
	assert_ptr_equal(rg_mas_prev(&mas, 0), V(1000));
	/* reset: walks again from index. */
	rg_mas_reset(&mas);
	assert_int_equal(mas.status, RG_MAS_START);
	assert_ptr_equal(rg_mas_walk(&mas), V(1000));
	rg_mtree_unlock(&mt);
	rg_mtree_destroy(&mt);
	/* Iteration over an empty tree and a root entry. */
	rg_mtree_lock(&mt);
	rg_mas_set(&mas, 0);
	assert_null(rg_mas_find(&mas, ULONG_MAX));
	rg_mas_set(&mas, 0);
	assert_null(rg_mas_find_range(&mas, ULONG_MAX));
	assert_int_equal(mas.last, ULONG_MAX);
	rg_mtree_unlock(&mt);
	assert_int_equal(rg_mtree_store(&mt, 0, V(1)), 0);
	rg_mtree_lock(&mt);
	rg_mas_set(&mas, 0);
	assert_ptr_equal(rg_mas_find(&mas, ULONG_MAX), V(1));
	assert_null(rg_mas_find(&mas, ULONG_MAX));
	rg_mas_set(&mas, 0);
	assert_ptr_equal(rg_mas_find_range(&mas, ULONG_MAX), V(1));
	assert_null(rg_mas_next_range(&mas, ULONG_MAX));
	assert_int_equal(mas.index, 1);
	assert_int_equal(mas.last, ULONG_MAX);
	assert_ptr_equal(rg_mas_prev(&mas, 0), V(1));
	rg_mtree_unlock(&mt);
	rg_mtree_destroy(&mt);
}

static void test_advanced_iteration(void **state)
{
	(void)state;
	advanced_iteration(0);
}

/* RCU mode: the same answers from the lock-free stepping code. */
static void test_advanced_iteration_rcu(void **state)
{
	(void)state;
	advanced_iteration(RG_MT_FLAGS_USE_RCU);
	advanced_iteration(RG_MT_FLAGS_USE_RCU | RG_MT_FLAGS_ALLOC_RANGE);
	rg_mtree_rcu_barrier();
}

/* Reset the stats, run one store, return its type; *req / *used nodes. */
static int one_store(struct rg_maple_tree *mt, unsigned long first,
		     unsigned long last, void *entry, unsigned long *req,
		     unsigned long *used)
{
	struct rg_mtree_stats st;
	int type = -1;

	rg_mtree_reset_stats(mt);
	assert_int_equal(rg_mtree_store_range(mt, first, last, entry), 0);
	rg_mtree_get_stats(mt, &st);
	assert_int_equal(st.stores, 1);
	assert_int_equal(st.overuse, 0);
	for (int t = 0; t < RG_MT_STORE_TYPES; t++)
		if (st.store_type[t])
			type = t;
	*req = st.nodes_requested;
	*used = st.nodes_used;
	RG_ASSERT_VALID(mt);
	return type;
}

/*
 * RCU mode switches, store kinds and their node counts in both modes,
 * deferred frees (nodes come back after rg_mtree_rcu_barrier()).
 */
static void test_rcu_mode(void **state)
{
	struct rg_maple_tree mt;
	unsigned long base, req, used, rcu;

	(void)state;
	urcu_memb_register_thread();
	rg_mtree_init(&mt, 0);
	rg_mtree_store(&mt, 1, V(1));
	rg_mtree_destroy(&mt);
	base = live_nodes();
	assert_false(rg_mtree_in_rcu(NULL));
	assert_int_equal(rg_mtree_init(&mt, RG_MT_FLAGS_USE_RCU), 0);
	assert_true(rg_mtree_in_rcu(&mt));
	rg_mtree_clear_rcu(&mt);
	assert_false(rg_mtree_in_rcu(&mt));
	rg_mtree_set_rcu(&mt);
	assert_true(rg_mtree_in_rcu(&mt));
	rg_mtree_set_rcu(NULL);
	rg_mtree_clear_rcu(NULL);
	/* The kernel's names. */
	mt_clear_in_rcu(&mt);
	assert_false(mt_in_rcu(&mt));
	mt_set_in_rcu(&mt);
	assert_true(mt_in_rcu(&mt));
	assert_int_equal(MT_FLAGS_USE_RCU, RG_MT_FLAGS_USE_RCU);

	/* One leaf: [10i, 10i + 4] = i, i < 5, NULL between. */
	for (rcu = 1;; rcu = 0) {
		for (unsigned long i = 0; i < 5; i++)
			assert_int_equal(rg_mtree_store_range(&mt, 10 * i,
							      10 * i + 4, V(i)),
					 0);
		assert_int_equal(rg_mtree_height(&mt), 1);
		/* Exact fit: one slot, in place in any mode. */
		assert_int_equal(one_store(&mt, 10, 14, V(100), &req, &used),
				 RG_MT_STORE_EXACT_FIT);
		assert_int_equal(req, 0);
		assert_int_equal(used, 0);
		/* Slot store: a pivot and a slot change (two words). */
		assert_int_equal(one_store(&mt, 10, 16, V(101), &req, &used),
				 RG_MT_STORE_SLOT);
		assert_int_equal(req, rcu);
		assert_int_equal(used, rcu);
		/* Node store: the leaf gains entries and still fits. */
		assert_int_equal(one_store(&mt, 22, 23, V(102), &req, &used),
				 RG_MT_STORE_NODE);
		assert_int_equal(req, rcu);
		assert_int_equal(used, rcu);
		/* Append: after the last used slot. */
		assert_int_equal(one_store(&mt, 50, 60, V(103), &req, &used),
				 RG_MT_STORE_APPEND);
		assert_int_equal(req, rcu);
		assert_int_equal(used, rcu);
		assert_ptr_equal(rg_mtree_load(&mt, 16), V(101));
		assert_ptr_equal(rg_mtree_load(&mt, 22), V(102));
		assert_ptr_equal(rg_mtree_load(&mt, 24), V(2));
		assert_ptr_equal(rg_mtree_load(&mt, 60), V(103));
		rg_mtree_destroy(&mt);
		rg_mtree_rcu_barrier();
		assert_int_equal(live_nodes(), base);
		if (!rcu)
			break;
		/* Outside RCU mode the same stores edit the leaf in place. */
		rg_mtree_clear_rcu(&mt);
	}

	/* Many nodes: a destroy in RCU mode defers them all. */
	rg_mtree_set_rcu(&mt);
	for (unsigned long i = 0; i < 2000; i++)
		assert_int_equal(
			rg_mtree_store_range(&mt, 3 * i, 3 * i + 1, V(i)), 0);
	assert_ptr_equal(rg_mtree_erase(&mt, 300), V(100));
	assert_int_equal(rg_mtree_store_range(&mt, 100, 4000, NULL), 0);
	RG_ASSERT_VALID(&mt);
	{
		/* Preallocated for a one-leaf store, used for a spanning one. */
		RG_MA_STATE(mas, &mt, 4501, 4501);

		rg_mtree_lock(&mt);
		assert_int_equal(rg_mas_preallocate(&mas, V(7), 0), 0);
		rg_mas_set_range(&mas, 4100, 5500);
		assert_null(rg_mas_store(&mas, V(8)));
		/* a store leaves the state on the range written */
		assert_int_equal(mas.status, RG_MAS_ACTIVE);
		assert_int_equal(mas.index, 4100);
		assert_int_equal(mas.last, 5500);
		rg_mas_destroy(&mas);
		rg_mtree_unlock(&mt);
		assert_ptr_equal(rg_mtree_load(&mt, 5000), V(8));
		assert_ptr_equal(rg_mtree_load(&mt, 4099), V(1366));
		RG_ASSERT_VALID(&mt);
	}
	rg_mtree_destroy(&mt);
	assert_true(rg_mtree_empty(&mt));
	rg_mtree_rcu_barrier();
	assert_int_equal(live_nodes(), base);

	/* No memory for destroy's batch: it waits a grace period instead. */
	for (unsigned long i = 0; i < 500; i++)
		assert_int_equal(rg_mtree_store(&mt, 2 * i, V(i)), 0);
	rg_mtree_rcu_barrier();
	rg_fault_inject(1);
	rg_mtree_destroy(&mt);
	assert_true(rg_fault_fired());
	rg_fault_inject(0);
	assert_true(rg_mtree_empty(&mt));
	assert_int_equal(live_nodes(), base); /* freed already */
	assert_int_equal(rg_mtree_bytes(&mt), sizeof(mt));
	urcu_memb_unregister_thread();
}

/*
 * A lock-free reader whose leaf is replaced under it walks again from the
 * root and reports only what it has not covered yet. Single-threaded: this
 * thread writes between the reader's steps (inside its read-side critical
 * section, so the old leaf is not freed yet).
 */
static void test_rcu_reader_rewalk(void **state)
{
	struct rg_maple_tree mt;
	RG_MA_STATE(mas, &mt, 100, 100);
	unsigned long base;

	(void)state;
	urcu_memb_register_thread();
	rg_mtree_init(&mt, 0);
	rg_mtree_store(&mt, 1, V(1));
	rg_mtree_destroy(&mt);
	base = live_nodes();
	rg_mtree_init(&mt, RG_MT_FLAGS_USE_RCU);
	for (unsigned long i = 0; i < 200; i++)
		assert_int_equal(
			rg_mtree_store_range(&mt, 10 * i, 10 * i + 5, V(i)), 0);
	assert_true(rg_mtree_height(&mt) >= 2);

	/*
	 * Writing inside a read-side critical section is safe here only
	 * because no other thread could hold the tree lock while it waits
	 * for a grace period (rg_mtree_clear_rcu()).
	 */
	urcu_memb_read_lock();
	assert_ptr_equal(rg_mas_find(&mas, ULONG_MAX), V(10));
	assert_int_equal(mas.index, 100);
	assert_int_equal(mas.last, 105);
	/* [100, 102] keeps 10; a new entry covers 103..136: the leaf dies. */
	assert_int_equal(rg_mtree_store_range(&mt, 103, 136, V(1000)), 0);
	assert_ptr_equal(rg_mas_next(&mas, ULONG_MAX), V(1000));
	assert_int_equal(mas.index, 106); /* 103..105 were reported */
	assert_int_equal(mas.last, 136);
	assert_ptr_equal(rg_mas_next(&mas, ULONG_MAX), V(14));
	assert_int_equal(mas.index, 140);
	assert_int_equal(mas.last, 145);
	/* Backwards: 138..142 is new; the state's leaf dies again. */
	assert_int_equal(rg_mtree_store_range(&mt, 138, 142, V(1001)), 0);
	assert_ptr_equal(rg_mas_prev(&mas, 0), V(1001));
	assert_int_equal(mas.index, 138);
	assert_int_equal(mas.last, 139); /* 140.. was reported */
	assert_ptr_equal(rg_mas_prev(&mas, 0), V(1000));
	assert_int_equal(mas.index, 103);
	assert_int_equal(mas.last, 136);
	/* And forward again from there: the slot's own bounds count. */
	assert_ptr_equal(rg_mas_next(&mas, ULONG_MAX), V(1001));
	assert_int_equal(mas.index, 138);
	assert_int_equal(mas.last, 142);
	/* The whole tree goes: its nodes are dead, the reader sees it empty. */
	rg_mtree_destroy(&mt);
	assert_null(rg_mas_next(&mas, ULONG_MAX));
	assert_int_equal(mas.status, RG_MAS_OVERFLOW);
	urcu_memb_read_unlock();
	rg_mtree_rcu_barrier();
	assert_int_equal(live_nodes(), base);
	urcu_memb_unregister_thread();
}

static void test_advanced_store(void **state)
{
	struct rg_maple_tree mt;
	RG_MA_STATE(mas, &mt, 10, 19);
	struct rg_mtree_stats st;
	unsigned long base = live_nodes();
	void *e;

	(void)state;
	rg_mtree_init(&mt, RG_MT_FLAGS_ALLOC_RANGE);
	rg_mtree_lock(&mt);
	assert_null(rg_mas_store(&mas, V(1)));
	rg_mas_set_range(&mas, 15, 25);
	assert_ptr_equal(rg_mas_store(&mas, V(2)), V(1));
	assert_int_equal(mas.status, RG_MAS_ACTIVE);
	assert_int_equal(mas.index, 15);
	assert_int_equal(mas.last, 25);
	assert_ptr_equal(rg_mas_next(&mas, ULONG_MAX), NULL);
	/* the empty tail after the last entry, as the kernel */
	assert_int_equal(mas.status, RG_MAS_OVERFLOW);
	assert_int_equal(mas.index, 26);
	assert_int_equal(mas.last, ULONG_MAX);
	rg_mas_set_range(&mas, 100, 199);
	assert_int_equal(rg_mas_store_gfp(&mas, V(3), 0), 0);
	/* erase sets index/last to the removed range. */
	rg_mas_set(&mas, 150);
	assert_ptr_equal(rg_mas_erase(&mas), V(3));
	assert_int_equal(mas.index, 100);
	assert_int_equal(mas.last, 199);
	rg_mas_set(&mas, 150);
	assert_null(rg_mas_erase(&mas));
	/* preallocate + store_prealloc, many times: never more than asked. */
	for (unsigned long i = 0; i < 2000; i++) {
		rg_mas_set_range(&mas, 1000 + 3 * i, 1001 + 3 * i);
		assert_int_equal(rg_mas_preallocate(&mas, V(i), 0), 0);
		rg_mas_store_prealloc(&mas, V(i));
		assert_null(mas.sheaf);
	}
	/* preallocate then change one's mind: destroy gives it back. */
	rg_mas_set_range(&mas, 5000, 5005);
	assert_int_equal(rg_mas_preallocate(&mas, V(9), 0), 0);
	rg_mas_destroy(&mas);
	assert_null(mas.sheaf);
	rg_mas_destroy(&mas);
	/* store without preallocation through the state. */
	rg_mas_set_range(&mas, 6000, 6000);
	assert_null(rg_mas_store(&mas, V(8)));
	rg_mtree_unlock(&mt);
	assert_ptr_equal(rg_mtree_load(&mt, 1001 + 3 * 1999), V(1999));
	assert_ptr_equal(rg_mtree_load(&mt, 6000), V(8));
	assert_ptr_equal(rg_mtree_load(&mt, 20), V(2));
	RG_ASSERT_VALID(&mt);
	assert_int_equal(rg_mtree_get_stats(&mt, &st), 0);
	assert_int_equal(st.overuse, 0);
	assert_true(st.nodes_used <= st.nodes_requested);
	assert_true(st.preallocs > 0);
	assert_int_equal(st.nodes, (rg_mtree_bytes(&mt) - sizeof(mt)) / 256);
	e = NULL;
	(void)e;
	rg_mtree_destroy(&mt);
	assert_int_equal(live_nodes(), base);
}

static void test_stats_and_vacancy(void **state)
{
	struct rg_maple_tree mt;
	struct rg_mtree_stats st;
	unsigned long sum = 0;
	unsigned int h;
	int type = 0;

	(void)state;
	(void)type;
	rg_mtree_init(&mt, 0);
	for (unsigned long i = 0; i < 3000; i++)
		assert_int_equal(
			rg_mtree_store_range(&mt, 4 * i, 4 * i + 1, V(i)), 0);
	rg_mtree_get_stats(&mt, &st);
	assert_int_equal(st.overuse, 0);
	assert_true(st.store_type[RG_MT_STORE_SPLIT] > 0);
	assert_true(st.store_type[RG_MT_STORE_NEW_ROOT] == 1);
	for (int b = 0; b < RG_MT_HIST_BUCKETS; b++)
		sum += st.hist[b];
	assert_int_equal(sum, st.preallocs);
	assert_int_equal(st.stores, 3000);
	h = rg_mtree_height(&mt);
	assert_true(h >= 3);
	assert_int_equal(st.height, h);
	/* Without vacancy tracking every split asks for 2h + 1 nodes. */
	rg_mtree_reset_stats(&mt);
	rg_mtree_set_vacancy(&mt, false);
	for (unsigned long i = 3000; i < 3200; i++)
		assert_int_equal(
			rg_mtree_store_range(&mt, 4 * i, 4 * i + 1, V(i)), 0);
	rg_mtree_get_stats(&mt, &st);
	assert_int_equal(st.max_requested, 2 * rg_mtree_height(&mt) + 1);
	assert_true(st.store_type[RG_MT_STORE_SPLIT] > 0);
	for (int b = 0; b < RG_MT_HIST_BUCKETS; b++)
		if (b != 3 && b != 2)
			assert_int_equal(st.hist[b], 0);
	/* With it, the same kind of appends ask for 3: parent has room. */
	rg_mtree_reset_stats(&mt);
	rg_mtree_set_vacancy(&mt, true);
	for (unsigned long i = 3200; i < 3400; i++)
		assert_int_equal(
			rg_mtree_store_range(&mt, 4 * i, 4 * i + 1, V(i)), 0);
	rg_mtree_get_stats(&mt, &st);
	assert_true(st.hist[1] > 0);
	assert_true(st.nodes_requested < 200 * 2);
	assert_int_equal(st.overuse, 0);
	RG_ASSERT_VALID(&mt);
	rg_mtree_destroy(&mt);
	/* Flag at init time. */
	rg_mtree_init(&mt, RG_MT_FLAGS_NO_VACANCY);
	for (unsigned long i = 0; i < 100; i++)
		assert_int_equal(rg_mtree_store(&mt, i * 2, V(i)), 0);
	rg_mtree_get_stats(&mt, &st);
	/* Height only: the last split asked for 2h + 1. */
	assert_int_equal(st.max_requested, 2 * rg_mtree_height(&mt) + 1);
	assert_int_equal(st.overuse, 0);
	rg_mtree_destroy(&mt);
}

static void test_validate_and_dump(void **state)
{
	RG_DEFINE_MTREE(mt);
	const char *why = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	for (unsigned long i = 0; i < 200; i++)
		rg_mtree_store(&mt, i * 3, V(i));
	assert_int_equal(rg_mtree_validate(&mt, &why), 0);
	assert_null(why);
	/* Corrupt the header: validate notices and says why. */
	mt.nodes++;
	assert_int_equal(rg_mtree_validate(&mt, &why), -EINVAL);
	assert_non_null(why);
	mt.nodes--;
	mt.height++;
	assert_int_equal(rg_mtree_validate(&mt, &why), -EINVAL);
	assert_non_null(why);
	mt.height--;
	assert_int_equal(rg_mtree_validate(&mt, NULL), 0);
	assert_int_equal(rg_mtree_validate(NULL, &why), -EINVAL);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	rg_mtree_dump(&mt, f);
	fclose(f);
	assert_true(len > 200);
	assert_non_null(strstr(buf, "leaf"));
	free(buf);
	rg_mtree_destroy(&mt);
}

static void test_many_and_shrink(void **state)
{
	struct rg_maple_tree mt;
	unsigned long base = live_nodes(), n = RG_THOROUGH ? 20000 : 100000;

	(void)state;
	rg_mtree_init(&mt, RG_MT_FLAGS_ALLOC_RANGE);
	for (unsigned long i = 0; i < n; i++)
		assert_int_equal(rg_mtree_store_range(&mt, 2 * i, 2 * i, V(i)),
				 0);
	assert_true(rg_mtree_height(&mt) >= 4);
	RG_ASSERT_VALID(&mt);
	assert_int_equal(live_nodes() - base,
			 (rg_mtree_bytes(&mt) - sizeof(mt)) / 256);
	/* Erase everything, odd order: the tree shrinks back to nothing. */
	for (unsigned long i = 0; i < n; i += 2)
		assert_ptr_equal(rg_mtree_erase(&mt, 2 * i), V(i));
	RG_ASSERT_VALID(&mt);
	for (unsigned long i = 1; i < n; i += 2)
		assert_ptr_equal(rg_mtree_erase(&mt, 2 * i), V(i));
	assert_true(rg_mtree_empty(&mt));
	assert_int_equal(rg_mtree_height(&mt), 0);
	assert_int_equal(live_nodes(), base);
	RG_ASSERT_VALID(&mt);
	/* A spanning NULL store over most of a big tree. */
	for (unsigned long i = 0; i < n; i++)
		rg_mtree_store_range(&mt, 2 * i, 2 * i, V(i));
	assert_int_equal(rg_mtree_store_range(&mt, 7, 2 * n - 8, NULL), 0);
	RG_ASSERT_VALID(&mt);
	assert_ptr_equal(rg_mtree_load(&mt, 6), V(3));
	assert_ptr_equal(rg_mtree_load(&mt, 2 * n - 6), V(n - 3));
	assert_null(rg_mtree_load(&mt, 100));
	assert_true(rg_mtree_height(&mt) <= 2);
	rg_mtree_destroy(&mt);
	assert_int_equal(live_nodes(), base);
}

static void test_linux_names(void **state)
{
	DEFINE_MTREE(mt);
	struct maple_tree at;
	unsigned long start, idx = 0;
	void *e;
	int n = 0;

	(void)state;
	assert_int_equal(
		mtree_store_range(&mt, 1, 5, xa_mk_value(1), GFP_KERNEL), 0);
	assert_int_equal(mtree_insert(&mt, 3, xa_mk_value(2), GFP_KERNEL),
			 -EEXIST);
	assert_int_equal(mtree_store(&mt, 9, xa_mk_value(3), GFP_KERNEL), 0);
	assert_true(xa_is_value(mtree_load(&mt, 4)));
	assert_int_equal(xa_to_value(mtree_load(&mt, 4)), 1);
	mt_for_each(&mt, e, idx, ULONG_MAX)
		n++;
	assert_int_equal(n, 2);
	{
		MA_STATE(mas, &mt, 0, 0);

		mtree_lock(&mt);
		n = 0;
		mas_for_each(&mas, e, ULONG_MAX) n++;
		mas_set_range(&mas, 20, 29);
		assert_int_equal(
			mas_preallocate(&mas, xa_mk_value(4), GFP_KERNEL), 0);
		mas_store_prealloc(&mas, xa_mk_value(4));
		mtree_unlock(&mt);
	}
	assert_int_equal(n, 2);
	assert_int_equal(mt_validate(&mt), 0);
	assert_ptr_equal(mtree_erase(&mt, 25), xa_mk_value(4));
	mtree_destroy(&mt);
	assert_true(mtree_empty(&mt));
	mt_init_flags(&at, MT_FLAGS_ALLOC_RANGE);
	assert_int_equal(mtree_alloc_range(&at, &start, xa_mk_value(5), 10, 0,
					   100, GFP_KERNEL),
			 0);
	assert_int_equal(start, 0);
	assert_int_equal(mtree_alloc_rrange(&at, &start, xa_mk_value(6), 10, 0,
					    100, GFP_KERNEL),
			 0);
	assert_int_equal(start, 91);
	assert_int_equal(mt_height(&at), 1);
	mtree_destroy(&at);
}

/*
 * Regression: after a store inside an rg_mas_for_each() loop, the loop went
 * back to the range just written (the state was reset to walk from index),
 * so a loop that overwrote part of the current range never ended. As in
 * the kernel, the state now stands on the range written: the next find
 * with the loop's limit ends the loop when that range reaches the limit,
 * and a find with a larger limit returns what follows the written range.
 */
static void regress_iter(unsigned int flags)
{
	/* [8i, 8i + 7] = i for i in 0..199; overwrite inside range 60 */
	static const struct {
		unsigned long first, last, max, next_first;
		unsigned long next_value;
	} cases[] = {
		{ 480, 483, 483, 484, 60 }, /* the start of range 60 */
		{ 484, 487, 484, 488, 61 }, /* its end, limit inside it */
		{ 482, 485, 485, 486, 60 }, /* its middle */
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct rg_maple_tree mt;
		RG_MA_STATE(mas, &mt, 0, 0);
		unsigned long i = 0, rounds = 0;
		void *e;

		assert_int_equal(rg_mtree_init(&mt, flags), 0);
		for (unsigned long k = 0; k < 200; k++)
			assert_int_equal(rg_mtree_store_range(&mt, 8 * k,
							      8 * k + 7, V(k)),
					 0);
		rg_mtree_lock(&mt);
		rg_mas_for_each(&mas, e, cases[c].max)
		{
			assert_true(++rounds < 400); /* the loop ends */
			if (mas.index == 480) {
				assert_ptr_equal(e, V(60));
				mas.index = cases[c].first;
				mas.last = cases[c].last;
				assert_ptr_equal(rg_mas_store(&mas, V(1000)),
						 V(60));
				assert_int_equal(mas.status, RG_MAS_ACTIVE);
				assert_int_equal(mas.index, cases[c].first);
				assert_int_equal(mas.last, cases[c].last);
				continue;
			}
			assert_ptr_equal(e, V(i));
			i++;
		}
		assert_int_equal(i, 60);
		e = rg_mas_find(&mas, ULONG_MAX);
		assert_ptr_equal(e, V(cases[c].next_value));
		assert_int_equal(mas.index, cases[c].next_first);
		rg_mtree_unlock(&mt);
		RG_ASSERT_VALID(&mt);
		rg_mtree_destroy(&mt);
	}
}

static void regress_maple_find_after_store_in_loop(void **state)
{
	(void)state;
	regress_iter(0);
	regress_iter(RG_MT_FLAGS_ALLOC_RANGE);
	urcu_memb_register_thread();
	urcu_memb_read_lock();
	regress_iter(RG_MT_FLAGS_USE_RCU);
	urcu_memb_read_unlock();
	urcu_memb_unregister_thread();
}

/*
 * Regression: rg_mas_next() that found nothing kept the state on the last
 * range found, so rg_mas_prev() then skipped it and returned the one
 * before. As in the kernel, the state stands on the empty range it
 * reached (after the last entry: the tail up to ULONG_MAX), a prev from
 * there returns the last entry, and a prev that finds nothing stands on
 * the empty range before the first one.
 */
static void regress_end_state(unsigned int flags)
{
	struct rg_maple_tree mt;
	RG_MA_STATE(mas, &mt, 0, 0);

	assert_int_equal(rg_mtree_init(&mt, flags), 0);
	for (unsigned long k = 1; k <= 300; k++)
		assert_int_equal(
			rg_mtree_store_range(&mt, 7 * k, 7 * k + 3, V(k)), 0);
	rg_mtree_lock(&mt);
	rg_mas_set(&mas, 2100);
	assert_ptr_equal(rg_mas_walk(&mas), V(300));
	assert_null(rg_mas_next(&mas, ULONG_MAX));
	assert_int_equal(mas.status, RG_MAS_OVERFLOW);
	assert_int_equal(mas.index, 2104);
	assert_int_equal(mas.last, ULONG_MAX);
	assert_ptr_equal(rg_mas_prev(&mas, 0), V(300));
	assert_int_equal(mas.index, 2100);
	assert_int_equal(mas.last, 2103);
	/* a limit that ends inside a gap: overflow on that gap */
	assert_ptr_equal(rg_mas_prev(&mas, 0), V(299));
	rg_mas_set(&mas, 7);
	assert_ptr_equal(rg_mas_walk(&mas), V(1));
	assert_null(rg_mas_next(&mas, 12));
	assert_int_equal(mas.index, 11);
	assert_int_equal(mas.last, 13);
	assert_ptr_equal(rg_mas_next(&mas, ULONG_MAX), V(2));
	/* prev past the first entry: the empty range before it */
	rg_mas_set(&mas, 8);
	assert_ptr_equal(rg_mas_walk(&mas), V(1));
	assert_null(rg_mas_prev(&mas, 0));
	assert_int_equal(mas.status, RG_MAS_UNDERFLOW);
	assert_int_equal(mas.index, 0);
	assert_int_equal(mas.last, 6);
	assert_ptr_equal(rg_mas_next(&mas, ULONG_MAX), V(1));
	rg_mtree_unlock(&mt);
	rg_mtree_destroy(&mt);

	/* one entry at 0: next finds nothing and stands on [1, ULONG_MAX] */
	assert_int_equal(rg_mtree_init(&mt, flags), 0);
	rg_mtree_lock(&mt);
	rg_mas_set(&mas, 0);
	assert_int_equal(rg_mas_store_gfp(&mas, V(5), 0), 0);
	assert_null(rg_mas_next(&mas, ULONG_MAX));
	assert_int_equal(mas.index, 1);
	assert_int_equal(mas.last, ULONG_MAX);
	assert_ptr_equal(rg_mas_prev(&mas, 0), V(5));
	assert_int_equal(mas.index, 0);
	assert_int_equal(mas.last, 0);
	rg_mtree_unlock(&mt);
	rg_mtree_destroy(&mt);
}

static void regress_maple_state_after_next_ends(void **state)
{
	(void)state;
	regress_end_state(0);
	urcu_memb_register_thread();
	urcu_memb_read_lock();
	regress_end_state(RG_MT_FLAGS_USE_RCU);
	urcu_memb_read_unlock();
	urcu_memb_unregister_thread();
}

/*
 * Regression: the kernel's mt_validate() and mt_dump() run under whatever
 * the caller holds, and kernel code validates inside locked sections; here
 * both took the (non-recursive) tree lock, so such code deadlocked. The
 * alarm turns a deadlock into a failure within seconds.
 */
static void regress_maple_mt_validate_under_lock(void **state)
{
	struct rg_maple_tree mt;
	MA_STATE(mas, &mt, 0, 0);
	FILE *null = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(null);
	mt_init_flags(&mt, MT_FLAGS_ALLOC_RANGE);
	for (unsigned long i = 0; i < 100; i++)
		assert_int_equal(mtree_store_range(&mt, 4 * i, 4 * i + 2, V(i),
						   GFP_KERNEL),
				 0);
	alarm(10);
	mas_lock(&mas);
	assert_int_equal(mt_validate(&mt), 0);
	rg_mtree_dump_locked(&mt, null);
	mas_set_range(&mas, 401, 410);
	assert_int_equal(mas_store_gfp(&mas, V(7), GFP_KERNEL), 0);
	assert_int_equal(rg_mtree_validate_locked(&mt, NULL), 0);
	mas_unlock(&mas);
	alarm(0);
	/* the locking forms still lock, and NULL is refused */
	assert_int_equal(rg_mtree_validate(&mt, NULL), 0);
	assert_int_equal(rg_mtree_validate_locked(NULL, NULL), -EINVAL);
	rg_mtree_dump_locked(NULL, null);
	rg_mtree_dump(&mt, null);
	mtree_destroy(&mt);
	fclose(null);
}

/*
 * Regression: the kernel's zero entry (XA_ZERO_ENTRY) was refused with
 * -EINVAL, and the kernel's allocation code stores it to reserve space. It
 * now holds its range (no gap for an allocation), reads as NULL through
 * the normal API, is skipped by rg_mtree_find(), and comes back as itself
 * from the advanced API.
 */
static void regress_maple_zero_entry(void **state)
{
	struct rg_maple_tree mt;
	RG_MA_STATE(mas, &mt, 0, 0);
	unsigned long index = 0, start = 0;

	(void)state;
	assert_ptr_equal(XA_ZERO_ENTRY, RG_MT_ZERO_ENTRY);
	assert_true(xa_is_zero(XA_ZERO_ENTRY));
	assert_false(rg_mt_is_reserved(RG_MT_ZERO_ENTRY));
	assert_true(rg_mt_is_reserved((void *)1026UL));
	assert_int_equal(rg_mtree_init(&mt, RG_MT_FLAGS_ALLOC_RANGE), 0);
	assert_int_equal(rg_mtree_insert_range(&mt, 0, 99, XA_ZERO_ENTRY), 0);
	assert_int_equal(rg_mtree_insert_range(&mt, 50, 60, V(1)), -EEXIST);
	assert_int_equal(rg_mtree_store_range(&mt, 200, 209, V(2)), 0);
	RG_ASSERT_VALID(&mt);
	assert_null(rg_mtree_load(&mt, 0));
	assert_null(rg_mtree_load(&mt, 99));
	assert_ptr_equal(rg_mtree_find(&mt, &index, ULONG_MAX), V(2));
	assert_int_equal(index, 210);
	/* the reserved range is no gap */
	assert_int_equal(
		rg_mtree_alloc_range(&mt, &start, V(3), 10, 0, ULONG_MAX), 0);
	assert_int_equal(start, 100);
	rg_mtree_lock(&mt);
	rg_mas_set(&mas, 0);
	assert_ptr_equal(rg_mas_find(&mas, ULONG_MAX), XA_ZERO_ENTRY);
	assert_int_equal(mas.last, 99);
	assert_ptr_equal(rg_mas_walk(&mas), XA_ZERO_ENTRY);
	rg_mtree_unlock(&mt);
	/* erase returns it as itself and frees the range */
	assert_ptr_equal(rg_mtree_erase(&mt, 5), XA_ZERO_ENTRY);
	assert_int_equal(rg_mtree_insert_range(&mt, 50, 60, V(1)), 0);
	/* other reserved values are still refused */
	assert_int_equal(rg_mtree_store(&mt, 300, (void *)1026UL), -EINVAL);
	RG_ASSERT_VALID(&mt);
	rg_mtree_destroy(&mt);
	/* a lone zero entry at index 0 (not storable in the root itself) */
	assert_int_equal(rg_mtree_init(&mt, 0), 0);
	assert_int_equal(rg_mtree_store(&mt, 0, XA_ZERO_ENTRY), 0);
	RG_ASSERT_VALID(&mt);
	assert_null(rg_mtree_load(&mt, 0));
	rg_mtree_lock(&mt);
	rg_mas_set(&mas, 0);
	assert_ptr_equal(rg_mas_walk(&mas), XA_ZERO_ENTRY);
	rg_mtree_unlock(&mt);
	rg_mtree_destroy(&mt);
}

/*
 * A lone [0, ULONG_MAX] entry removed by any path leaves an empty tree: no
 * node held, rg_mtree_empty() true, and the tree valid.
 */
static void regress_maple_erase_lone_full_range(void **state)
{
	static const unsigned int flags[] = { 0, RG_MT_FLAGS_ALLOC_RANGE,
					      RG_MT_FLAGS_USE_RCU };
	unsigned long base;

	(void)state;
	urcu_memb_register_thread();
	rg_mtree_rcu_barrier(); /* earlier tests' deferred frees */
	base = live_nodes();
	for (unsigned int f = 0; f < 3; f++) {
		for (unsigned int way = 0; way < 6; way++) {
			struct rg_maple_tree mt;
			void *old = NULL;

			assert_int_equal(rg_mtree_init(&mt, flags[f]), 0);
			if (way == 1)
				assert_int_equal(
					rg_mtree_insert_range(&mt, 0, ULONG_MAX,
							      V(7)),
					0);
			else
				assert_int_equal(rg_mtree_store_range(&mt, 0,
								      ULONG_MAX,
								      V(7)),
						 0);
			RG_ASSERT_VALID(&mt);
			if (way <= 1) {
				assert_ptr_equal(rg_mtree_erase(&mt, 12345),
						 V(7));
			} else if (way == 2) {
				assert_int_equal(
					rg_mtree_erase_err(&mt, 0, &old), 0);
				assert_ptr_equal(old, V(7));
			} else if (way == 3) {
				assert_int_equal(rg_mtree_store_range(&mt, 0,
								      ULONG_MAX,
								      NULL),
						 0);
			} else if (way == 4) {
				RG_MA_STATE(mas, &mt, ULONG_MAX, ULONG_MAX);

				rg_mtree_lock(&mt);
				assert_ptr_equal(rg_mas_erase(&mas), V(7));
				rg_mtree_unlock(&mt);
			} else {
				RG_MA_STATE(mas, &mt, 0, ULONG_MAX);

				rg_mtree_lock(&mt);
				assert_int_equal(
					rg_mas_preallocate(&mas, NULL, 0), 0);
				rg_mas_store_prealloc(&mas, NULL);
				rg_mas_destroy(&mas);
				rg_mtree_unlock(&mt);
			}
			assert_null(rg_mtree_load(&mt, 0));
			assert_null(rg_mtree_load(&mt, ULONG_MAX));
			RG_ASSERT_VALID(&mt);
			assert_true(rg_mtree_empty(&mt));
			assert_int_equal(rg_mtree_height(&mt), 0);
			assert_int_equal(rg_mtree_bytes(&mt), sizeof(mt));
			rg_mtree_rcu_barrier();
			assert_int_equal(live_nodes(), base);
			/* Still usable. */
			assert_int_equal(rg_mtree_store(&mt, 3, V(3)), 0);
			RG_ASSERT_VALID(&mt);
			rg_mtree_destroy(&mt);
			rg_mtree_rcu_barrier();
			assert_int_equal(live_nodes(), base);
		}
	}
	urcu_memb_unregister_thread();
}

/* Every call with NULL for each pointer argument: the common.h policy. */
static void regress_maple_null_arguments(void **state)
{
	struct rg_maple_tree mt;
	struct rg_mtree_stats st;
	unsigned long start = 0, idx = 0, next = 0;
	const char *why = "x";
	void *old;

	(void)state;
	assert_int_equal(rg_mtree_init(&mt, RG_MT_FLAGS_ALLOC_RANGE), 0);
	assert_int_equal(rg_mtree_store_range(&mt, 10, 19, V(1)), 0);
	RG_MA_STATE(mas, &mt, 10, 10);
	RG_MA_STATE(nomt, NULL, 10, 10);

	RG_EXPECT_NULL_RET(rg_mtree_init(NULL, 0), -EINVAL);
	RG_EXPECT_NULL_VOID(rg_mtree_destroy(NULL));
	RG_EXPECT_NULL_RET(rg_mtree_load(NULL, 10), NULL);
	RG_EXPECT_NULL_RET(rg_mtree_store_range(NULL, 1, 2, V(2)), -EINVAL);
	RG_EXPECT_NULL_RET(rg_mtree_store(NULL, 1, V(2)), -EINVAL);
	RG_EXPECT_NULL_RET(rg_mtree_insert_range(NULL, 1, 2, V(2)), -EINVAL);
	RG_EXPECT_NULL_RET(rg_mtree_insert(NULL, 1, V(2)), -EINVAL);
	RG_EXPECT_NULL_RET(rg_mtree_erase(NULL, 10), NULL);
	RG_EXPECT_NULL_RET(rg_mtree_erase_err(NULL, 10, &old), -EINVAL);
	RG_EXPECT_NULL_RET(rg_mtree_erase_err(&mt, 10, NULL), 0);
	RG_EXPECT_NULL_RET(rg_mtree_alloc_range(NULL, &start, V(3), 4, 0, 99),
			   -EINVAL);
	RG_EXPECT_NULL_RET(rg_mtree_alloc_range(&mt, NULL, V(3), 4, 0, 99),
			   -EINVAL);
	RG_EXPECT_NULL_RET(rg_mtree_alloc_range(&mt, &start, NULL, 4, 0, 99),
			   -EINVAL);
	RG_EXPECT_NULL_RET(rg_mtree_alloc_rrange(NULL, &start, V(3), 4, 0, 99),
			   -EINVAL);
	RG_EXPECT_NULL_RET(rg_mtree_alloc_rrange(&mt, NULL, V(3), 4, 0, 99),
			   -EINVAL);
	RG_EXPECT_NULL_RET(
		rg_mtree_alloc_cyclic(NULL, &start, V(3), 0, 99, &next),
		-EINVAL);
	RG_EXPECT_NULL_RET(rg_mtree_alloc_cyclic(&mt, NULL, V(3), 0, 99, &next),
			   -EINVAL);
	RG_EXPECT_NULL_RET(
		rg_mtree_alloc_cyclic(&mt, &start, V(3), 0, 99, NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_mtree_find(NULL, &idx, ULONG_MAX), NULL);
	RG_EXPECT_NULL_RET(rg_mtree_find(&mt, NULL, ULONG_MAX), NULL);
	RG_EXPECT_NULL_RET(rg_mtree_find_after(NULL, &idx, ULONG_MAX), NULL);
	RG_EXPECT_NULL_RET(rg_mtree_find_after(&mt, NULL, ULONG_MAX), NULL);
	RG_EXPECT_NULL_RET(rg_mtree_height(NULL), 0);
	RG_EXPECT_NULL_RET(rg_mtree_empty(NULL), false);
	RG_EXPECT_NULL_RET(rg_mtree_bytes(NULL), 0);
	RG_EXPECT_NULL_RET(rg_mtree_get_stats(NULL, &st), -EINVAL);
	RG_EXPECT_NULL_RET(rg_mtree_get_stats(&mt, NULL), -EINVAL);
	RG_EXPECT_NULL_VOID(rg_mtree_reset_stats(NULL));
	RG_EXPECT_NULL_VOID(rg_mtree_set_vacancy(NULL, false));
	RG_EXPECT_NULL_VOID(rg_mtree_set_rcu(NULL));
	RG_EXPECT_NULL_VOID(rg_mtree_clear_rcu(NULL));
	RG_EXPECT_NULL_RET(rg_mtree_in_rcu(NULL), false);
	RG_EXPECT_NULL_VOID(rg_mtree_lock(NULL));
	RG_EXPECT_NULL_VOID(rg_mtree_unlock(NULL));
	RG_EXPECT_NULL_RET(rg_mtree_validate(NULL, &why), -EINVAL);
	RG_EXPECT_NULL_RET(rg_mtree_validate(NULL, NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_mtree_validate(&mt, NULL), 0);
	RG_EXPECT_NULL_VOID(rg_mtree_dump(NULL, stderr));
	RG_EXPECT_NULL_VOID(rg_mtree_dump(&mt, NULL));
	RG_EXPECT_NULL_RET(rg_mtree_validate_locked(NULL, &why), -EINVAL);
	RG_EXPECT_NULL_VOID(rg_mtree_dump_locked(NULL, stderr));
	RG_EXPECT_NULL_VOID(rg_mtree_dump_locked(&mt, NULL));
	RG_EXPECT_NULL_RET(rg_mtree_node_stats(NULL), -EINVAL);

	/* The advanced API: a NULL state, and a state on no tree. */
	for (int k = 0; k < 2; k++) {
		struct rg_ma_state *m = k ? &nomt : NULL;

		RG_EXPECT_NULL_RET(rg_mas_walk(m), NULL);
		RG_EXPECT_NULL_RET(rg_mas_find(m, ULONG_MAX), NULL);
		RG_EXPECT_NULL_RET(rg_mas_find_range(m, ULONG_MAX), NULL);
		RG_EXPECT_NULL_RET(rg_mas_find_rev(m, 0), NULL);
		RG_EXPECT_NULL_RET(rg_mas_next(m, ULONG_MAX), NULL);
		RG_EXPECT_NULL_RET(rg_mas_next_range(m, ULONG_MAX), NULL);
		RG_EXPECT_NULL_RET(rg_mas_prev(m, 0), NULL);
		RG_EXPECT_NULL_RET(rg_mas_prev_range(m, 0), NULL);
		RG_EXPECT_NULL_RET(rg_mas_store(m, V(4)), NULL);
		RG_EXPECT_NULL_RET(rg_mas_store_gfp(m, V(4), 0), -EINVAL);
		RG_EXPECT_NULL_RET(rg_mas_erase(m), NULL);
		RG_EXPECT_NULL_RET(rg_mas_empty_area(m, 0, 99, 4), -EINVAL);
		RG_EXPECT_NULL_RET(rg_mas_empty_area_rev(m, 0, 99, 4), -EINVAL);
		RG_EXPECT_NULL_RET(rg_mas_preallocate(m, V(4), 0), -EINVAL);
		RG_EXPECT_NULL_VOID(rg_mas_store_prealloc(m, V(4)));
		RG_EXPECT_NULL_VOID(rg_mas_pause(m));
		RG_EXPECT_NULL_VOID(rg_mas_reset(m));
		RG_EXPECT_NULL_VOID(rg_mas_set(m, 3));
		RG_EXPECT_NULL_VOID(rg_mas_set_range(m, 3, 4));
		RG_EXPECT_NULL_VOID(rg_mas_destroy(m));
	}
	/* In this process too: nothing changed. */
	assert_int_equal(rg_mtree_alloc_range(&mt, NULL, V(3), 4, 0, 99),
			 -EINVAL);
	assert_null(rg_mas_store(&nomt, V(4)));
	assert_int_equal(rg_mtree_validate(NULL, &why), -EINVAL);
	assert_non_null(why);
	rg_mtree_lock(&mt);
	assert_ptr_equal(rg_mas_walk(&mas), V(1));
	rg_mtree_unlock(&mt);
	expect_ranges(&mt, (unsigned long[]){ 10, 19, 1 }, 1);
	rg_mtree_destroy(&mt);
}

/*
 * rg_mas_alloc_cyclic() under the caller's lock, and a regression: after a
 * cyclic allocation took ULONG_MAX (its cursor wrapped to 0), the next one
 * returned 0; the kernel returns 1 there (the allocation wrapped), and
 * callers that count generations rely on it.
 */
static void regress_maple_alloc_cyclic_wrap_after_last(void **state)
{
	struct rg_maple_tree mt;
	RG_MA_STATE(mas, &mt, 0, 0);
	unsigned long loc = 0, next = 0;

	(void)state;
	assert_int_equal(rg_mtree_init(&mt, RG_MT_FLAGS_ALLOC_RANGE), 0);
	rg_mtree_lock(&mt);
	for (unsigned long i = 0; i < 50; i++) {
		assert_int_equal(rg_mas_alloc_cyclic(&mas, &loc, V(i), 2,
						     ULONG_MAX, &next),
				 0);
		assert_int_equal(loc, i + 2);
		assert_int_equal(next, i + 3);
		assert_int_equal(mas.index, loc);
		assert_int_equal(mas.last, loc);
		assert_int_equal(mas.status, RG_MAS_ACTIVE);
	}
	/* bad input: the tree and the state are untouched but for the error */
	assert_int_equal(rg_mas_alloc_cyclic(&mas, &loc, NULL, 2, 9, &next),
			 -EINVAL);
	assert_int_equal(mas.status, RG_MAS_ERROR);
	assert_int_equal(rg_mas_alloc_cyclic(&mas, &loc, V(1), 9, 2, &next),
			 -EINVAL);
	assert_int_equal(rg_mas_alloc_cyclic(NULL, &loc, V(1), 2, 9, &next),
			 -EINVAL);
	/* a full range */
	next = 2;
	assert_int_equal(rg_mas_alloc_cyclic(&mas, &loc, V(1), 2, 40, &next),
			 -EBUSY);
	rg_mtree_unlock(&mt);
	RG_ASSERT_VALID(&mt);
	rg_mtree_destroy(&mt);

	/* the top index, then the wrap is reported once */
	assert_int_equal(rg_mtree_init(&mt, RG_MT_FLAGS_ALLOC_RANGE), 0);
	next = ULONG_MAX - 1;
	assert_int_equal(
		rg_mtree_alloc_cyclic(&mt, &loc, V(1), 2, ULONG_MAX, &next), 0);
	assert_int_equal(
		rg_mtree_alloc_cyclic(&mt, &loc, V(2), 2, ULONG_MAX, &next), 0);
	assert_int_equal(loc, ULONG_MAX);
	assert_int_equal(next, 0);
	assert_int_equal(
		rg_mtree_alloc_cyclic(&mt, &loc, V(3), 2, ULONG_MAX, &next), 1);
	assert_int_equal(loc, 2);
	assert_int_equal(
		rg_mtree_alloc_cyclic(&mt, &loc, V(4), 2, ULONG_MAX, &next), 0);
	assert_int_equal(loc, 3);
	RG_ASSERT_VALID(&mt);
	rg_mtree_destroy(&mt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_and_empty),
		cmocka_unit_test(test_root_entry),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_store_overwrite),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_insert),
		cmocka_unit_test(test_find_and_for_each),
		cmocka_unit_test(test_gap_examples),
		cmocka_unit_test(test_alloc_range),
		cmocka_unit_test(test_alloc_cyclic),
		cmocka_unit_test(test_advanced_iteration),
		cmocka_unit_test(test_advanced_iteration_rcu),
		cmocka_unit_test(test_rcu_mode),
		cmocka_unit_test(test_rcu_reader_rewalk),
		cmocka_unit_test(test_advanced_store),
		cmocka_unit_test(test_stats_and_vacancy),
		cmocka_unit_test(test_validate_and_dump),
		cmocka_unit_test(test_many_and_shrink),
		cmocka_unit_test(test_linux_names),
		cmocka_unit_test(regress_maple_find_after_store_in_loop),
		cmocka_unit_test(regress_maple_state_after_next_ends),
		cmocka_unit_test(regress_maple_mt_validate_under_lock),
		cmocka_unit_test(regress_maple_zero_entry),
		cmocka_unit_test(regress_maple_erase_lone_full_range),
		cmocka_unit_test(regress_maple_null_arguments),
		cmocka_unit_test(regress_maple_alloc_cyclic_wrap_after_last),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
