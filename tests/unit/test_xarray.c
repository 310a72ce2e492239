// SPDX-License-Identifier: MIT
/*
 * Unit tests of every xarray call: load/store/erase at every height, value
 * and reserved entries, insert, cmpxchg, reserve/release, marks (including
 * across growth and shrinking), find/find_after/for_each, allocating
 * arrays, destroy, bytes, validate (including that it catches corruption)
 * and dump; lock-free loads (RCU mode, deferred frees, retry entries).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <urcu/urcu-memb.h>

#include "region/linux/xarray.h"
#include "region/xarray.h"
#include "rg_test.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define P(n) ((void *)(uintptr_t)((uintptr_t)(n) << 3 | 0x1000))

static size_t nodes_in_use(void)
{
	struct rg_slab_stats st;

	assert_int_equal(rg_xa_node_cache_stats(&st), 0);
	return st.objects_in_use;
}

static void test_empty(void **state)
{
	struct rg_xarray xa;
	unsigned long i = 0;

	(void)state;
	rg_xa_init(&xa);
	assert_true(rg_xa_empty(&xa));
	assert_null(rg_xa_load(&xa, 0));
	assert_null(rg_xa_load(&xa, ULONG_MAX));
	assert_null(rg_xa_find(&xa, &i, ULONG_MAX, RG_XA_PRESENT));
	assert_null(rg_xa_erase(&xa, 5));
	assert_int_equal(rg_xa_bytes(&xa), sizeof(xa));
	assert_int_equal(rg_xa_node_count(&xa), 0);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
	assert_true(rg_xa_empty(&xa));
	assert_int_equal(rg_xa_init_flags(&xa, 0x20), -EINVAL);
	assert_int_equal(rg_xa_init_flags(&xa, RG_XA_FLAGS_MULTI), -EINVAL);
	assert_int_equal(rg_xa_init_flags(&xa, 0x2), -EINVAL);
	assert_int_equal(rg_xa_init_flags(NULL, 0), -EINVAL);
}

static void test_values(void **state)
{
	void *e;

	(void)state;
	e = rg_xa_mk_value(0);
	assert_true(rg_xa_is_value(e));
	assert_int_equal(rg_xa_to_value(e), 0);
	e = rg_xa_mk_value(RG_XA_VALUE_MAX);
	assert_true(rg_xa_is_value(e));
	assert_true(rg_xa_to_value(e) == RG_XA_VALUE_MAX);
	assert_false(rg_xa_is_value(P(1)));
	assert_false(rg_xa_is_reserved_entry(P(1)));
	assert_false(rg_xa_is_reserved_entry(e));
	assert_true(rg_xa_is_reserved_entry((void *)(uintptr_t)2));
	assert_true(rg_xa_is_reserved_entry((void *)(uintptr_t)0xffe));
	assert_false(rg_xa_is_reserved_entry((void *)(uintptr_t)0x1002));
}

static void test_store_load_heights(void **state)
{
	RG_DEFINE_XARRAY(xa);
	size_t base = nodes_in_use();
	void *old = P(99);

	(void)state;
	/* Index 0 alone lives in the head: no node. */
	assert_int_equal(rg_xa_store(&xa, 0, P(0), &old), 0);
	assert_null(old);
	assert_int_equal(rg_xa_node_count(&xa), 0);
	assert_ptr_equal(rg_xa_load(&xa, 0), P(0));
	assert_null(rg_xa_load(&xa, 1));
	RG_ASSERT_VALID(&xa);
	/* Index 1: one leaf. */
	assert_int_equal(rg_xa_store(&xa, 1, P(1), NULL), 0);
	assert_int_equal(rg_xa_node_count(&xa), 1);
	RG_ASSERT_VALID(&xa);
	/* Index 64: a root over two leaves. */
	assert_int_equal(rg_xa_store(&xa, 64, P(64), NULL), 0);
	assert_int_equal(rg_xa_node_count(&xa), 3);
	assert_int_equal(rg_xa_bytes(&xa), 3 * rg_xa_node_size() + sizeof(xa));
	assert_int_equal(nodes_in_use() - base, 3);
	RG_ASSERT_VALID(&xa);
	/* The top of the index space: eleven levels on 64-bit. */
	assert_int_equal(rg_xa_store(&xa, ULONG_MAX, P(7), NULL), 0);
	assert_ptr_equal(rg_xa_load(&xa, ULONG_MAX), P(7));
	assert_null(rg_xa_load(&xa, ULONG_MAX - 1));
	RG_ASSERT_VALID(&xa);
	assert_ptr_equal(rg_xa_load(&xa, 0), P(0));
	assert_ptr_equal(rg_xa_load(&xa, 1), P(1));
	assert_ptr_equal(rg_xa_load(&xa, 64), P(64));
	/* Replace returns the old entry. */
	assert_int_equal(rg_xa_store(&xa, 64, rg_xa_mk_value(5), &old), 0);
	assert_ptr_equal(old, P(64));
	assert_int_equal(rg_xa_to_value(rg_xa_load(&xa, 64)), 5);
	/* Erase shrinks back step by step. */
	assert_ptr_equal(rg_xa_erase(&xa, ULONG_MAX), P(7));
	RG_ASSERT_VALID(&xa);
	assert_int_equal(rg_xa_node_count(&xa), 3);
	assert_ptr_equal(rg_xa_erase(&xa, 64), rg_xa_mk_value(5));
	RG_ASSERT_VALID(&xa);
	assert_int_equal(rg_xa_node_count(&xa), 1);
	assert_ptr_equal(rg_xa_erase(&xa, 1), P(1));
	RG_ASSERT_VALID(&xa);
	assert_int_equal(rg_xa_node_count(&xa), 0);
	assert_ptr_equal(rg_xa_load(&xa, 0), P(0));
	/* Storing NULL erases in an ordinary array. */
	assert_int_equal(rg_xa_store(&xa, 0, NULL, &old), 0);
	assert_ptr_equal(old, P(0));
	assert_true(rg_xa_empty(&xa));
	RG_ASSERT_VALID(&xa);
	assert_int_equal(nodes_in_use(), base);
}

static void test_shrink_to_child(void **state)
{
	RG_DEFINE_XARRAY(xa);

	(void)state;
	/* Entries only under slot 0 of a tall tree: erase the far one. */
	assert_int_equal(rg_xa_store(&xa, 5, P(5), NULL), 0);
	assert_int_equal(rg_xa_store(&xa, 1UL << 40, P(6), NULL), 0);
	RG_ASSERT_VALID(&xa);
	assert_ptr_equal(rg_xa_erase(&xa, 1UL << 40), P(6));
	RG_ASSERT_VALID(&xa);
	assert_int_equal(rg_xa_node_count(&xa), 1);
	assert_ptr_equal(rg_xa_load(&xa, 5), P(5));
	/* Erase the low one of two leaves: root must drop to the far leaf. */
	assert_int_equal(rg_xa_store(&xa, 4096 + 3, P(9), NULL), 0);
	assert_ptr_equal(rg_xa_erase(&xa, 5), P(5));
	RG_ASSERT_VALID(&xa);
	assert_int_equal(rg_xa_node_count(&xa), 3);
	assert_ptr_equal(rg_xa_load(&xa, 4099), P(9));
	rg_xa_destroy(&xa);
	assert_int_equal(rg_xa_node_count(&xa), 0);
	RG_ASSERT_VALID(&xa);
}

static void test_reserved_entries(void **state)
{
	RG_DEFINE_XARRAY(xa);
	RG_DEFINE_XARRAY_ALLOC(ax);
	void *bad = (void *)(uintptr_t)0x802, *cur;
	unsigned long id;

	(void)state;
	assert_int_equal(rg_xa_store(&xa, 3, bad, NULL), -EINVAL);
	assert_int_equal(rg_xa_insert(&xa, 3, bad), -EINVAL);
	assert_int_equal(rg_xa_cmpxchg(&xa, 3, NULL, bad, &cur), -EINVAL);
	assert_int_equal(rg_xa_alloc(&ax, &id, bad, 0, 10), -EINVAL);
	assert_true(rg_xa_empty(&xa));
	assert_true(rg_xa_empty(&ax));
	RG_ASSERT_VALID(&xa);
	RG_ASSERT_VALID(&ax);
	/* above 4096 the low bits 10 are a pointer like any other */
	assert_int_equal(rg_xa_store(&xa, 3, (void *)(uintptr_t)0x2002, NULL),
			 0);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
}

static void test_insert_cmpxchg(void **state)
{
	RG_DEFINE_XARRAY(xa);
	void *cur = P(77);

	(void)state;
	assert_int_equal(rg_xa_insert(&xa, 10, P(10)), 0);
	assert_int_equal(rg_xa_insert(&xa, 10, P(11)), -EBUSY);
	assert_ptr_equal(rg_xa_load(&xa, 10), P(10));
	/* Wrong expectation: nothing changes, current entry reported. */
	assert_int_equal(rg_xa_cmpxchg(&xa, 10, P(3), P(4), &cur), -EBUSY);
	assert_ptr_equal(cur, P(10));
	assert_ptr_equal(rg_xa_load(&xa, 10), P(10));
	assert_int_equal(rg_xa_cmpxchg(&xa, 10, P(10), P(4), &cur), 0);
	assert_ptr_equal(cur, P(10));
	assert_ptr_equal(rg_xa_load(&xa, 10), P(4));
	/* cmpxchg from NULL inserts; to NULL erases. */
	assert_int_equal(rg_xa_cmpxchg(&xa, 200, NULL, P(5), &cur), 0);
	assert_null(cur);
	assert_ptr_equal(rg_xa_load(&xa, 200), P(5));
	assert_int_equal(rg_xa_cmpxchg(&xa, 200, P(5), NULL, NULL), 0);
	assert_null(rg_xa_load(&xa, 200));
	RG_ASSERT_VALID(&xa);
	/* Insert NULL reserves. */
	assert_int_equal(rg_xa_insert(&xa, 300, NULL), 0);
	assert_null(rg_xa_load(&xa, 300));
	assert_int_equal(rg_xa_insert(&xa, 300, P(1)), -EBUSY);
	assert_int_equal(rg_xa_cmpxchg(&xa, 300, NULL, P(1), &cur), -EBUSY);
	assert_null(cur);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
}

static void test_reserve_release(void **state)
{
	RG_DEFINE_XARRAY(xa);
	unsigned long i = 0;

	(void)state;
	assert_int_equal(rg_xa_reserve(&xa, 12), 0);
	assert_false(rg_xa_empty(&xa));
	assert_null(rg_xa_load(&xa, 12));
	assert_null(rg_xa_find(&xa, &i, ULONG_MAX, RG_XA_PRESENT));
	RG_ASSERT_VALID(&xa);
	rg_xa_release(&xa, 12);
	assert_true(rg_xa_empty(&xa));
	/* Release after a real store does nothing. */
	assert_int_equal(rg_xa_reserve(&xa, 12), 0);
	assert_int_equal(rg_xa_store(&xa, 12, P(12), NULL), 0);
	rg_xa_release(&xa, 12);
	assert_ptr_equal(rg_xa_load(&xa, 12), P(12));
	/* Reserve over an entry does nothing. */
	assert_int_equal(rg_xa_reserve(&xa, 12), 0);
	assert_ptr_equal(rg_xa_load(&xa, 12), P(12));
	/* Reserved index 0 in the head. */
	assert_int_equal(rg_xa_reserve(&xa, 0), 0);
	assert_null(rg_xa_load(&xa, 0));
	assert_ptr_equal(rg_xa_erase(&xa, 12), P(12));
	RG_ASSERT_VALID(&xa);
	assert_false(rg_xa_empty(&xa));
	assert_null(rg_xa_erase(&xa, 0));
	assert_true(rg_xa_empty(&xa));
	RG_ASSERT_VALID(&xa);
}

static void test_marks(void **state)
{
	RG_DEFINE_XARRAY(xa);
	unsigned long i;

	(void)state;
	assert_int_equal(rg_xa_set_mark(&xa, 0, RG_XA_MARK_1), -ENOENT);
	assert_int_equal(rg_xa_store(&xa, 0, P(0), NULL), 0);
	assert_int_equal(rg_xa_set_mark(&xa, 0, 3), -EINVAL);
	assert_int_equal(rg_xa_set_mark(&xa, 0, RG_XA_PRESENT), -EINVAL);
	assert_int_equal(rg_xa_clear_mark(&xa, 0, 7), -EINVAL);
	assert_false(rg_xa_get_mark(&xa, 0, 9));
	/* Head-level marks survive growth and shrinking. */
	assert_int_equal(rg_xa_set_mark(&xa, 0, RG_XA_MARK_0), 0);
	assert_int_equal(rg_xa_set_mark(&xa, 0, RG_XA_MARK_2), 0);
	assert_true(rg_xa_get_mark(&xa, 0, RG_XA_MARK_0));
	assert_false(rg_xa_get_mark(&xa, 0, RG_XA_MARK_1));
	assert_int_equal(rg_xa_store(&xa, 1000000, P(1), NULL), 0);
	RG_ASSERT_VALID(&xa);
	assert_true(rg_xa_get_mark(&xa, 0, RG_XA_MARK_0));
	assert_true(rg_xa_get_mark(&xa, 0, RG_XA_MARK_2));
	assert_false(rg_xa_get_mark(&xa, 1000000, RG_XA_MARK_0));
	assert_int_equal(rg_xa_set_mark(&xa, 1000000, RG_XA_MARK_1), 0);
	RG_ASSERT_VALID(&xa);
	i = 0;
	assert_ptr_equal(rg_xa_find(&xa, &i, ULONG_MAX, RG_XA_MARK_1), P(1));
	assert_int_equal(i, 1000000);
	i = 1;
	assert_null(rg_xa_find(&xa, &i, ULONG_MAX, RG_XA_MARK_0));
	assert_int_equal(i, 1);
	assert_ptr_equal(rg_xa_erase(&xa, 1000000), P(1));
	RG_ASSERT_VALID(&xa);
	assert_true(rg_xa_get_mark(&xa, 0, RG_XA_MARK_2));
	/* Marks are kept on replacement and cleared on erase. */
	assert_int_equal(rg_xa_store(&xa, 0, P(5), NULL), 0);
	assert_true(rg_xa_get_mark(&xa, 0, RG_XA_MARK_0));
	assert_int_equal(rg_xa_clear_mark(&xa, 0, RG_XA_MARK_0), 0);
	assert_false(rg_xa_get_mark(&xa, 0, RG_XA_MARK_0));
	assert_ptr_equal(rg_xa_erase(&xa, 0), P(5));
	assert_int_equal(rg_xa_store(&xa, 0, P(5), NULL), 0);
	assert_false(rg_xa_get_mark(&xa, 0, RG_XA_MARK_2));
	/* Deep marks: clearing the last one clears the path. */
	assert_int_equal(rg_xa_store(&xa, 70000, P(2), NULL), 0);
	assert_int_equal(rg_xa_store(&xa, 70001, P(3), NULL), 0);
	assert_int_equal(rg_xa_set_mark(&xa, 70000, RG_XA_MARK_2), 0);
	assert_int_equal(rg_xa_set_mark(&xa, 70001, RG_XA_MARK_2), 0);
	RG_ASSERT_VALID(&xa);
	assert_int_equal(rg_xa_clear_mark(&xa, 70000, RG_XA_MARK_2), 0);
	RG_ASSERT_VALID(&xa);
	assert_int_equal(rg_xa_clear_mark(&xa, 70001, RG_XA_MARK_2), 0);
	RG_ASSERT_VALID(&xa);
	i = 0;
	assert_null(rg_xa_find(&xa, &i, ULONG_MAX, RG_XA_MARK_2));
	assert_int_equal(rg_xa_clear_mark(&xa, 5, RG_XA_MARK_2), -ENOENT);
	rg_xa_destroy(&xa);
}

static void test_find(void **state)
{
	RG_DEFINE_XARRAY(xa);
	static const unsigned long idx[] = {
		0,	  1,	     63,
		64,	  4095,	     4096,
		262143,	  1UL << 33, ULONG_MAX - 64,
		ULONG_MAX
	};
	unsigned long i, n;
	void *e;

	(void)state;
	for (n = 0; n < N_OF(idx); n++) {
		assert_int_equal(rg_xa_store(&xa, idx[n], P(n), NULL), 0);
		if (n % 2)
			assert_int_equal(rg_xa_set_mark(&xa, idx[n], 1), 0);
	}
	RG_ASSERT_VALID(&xa);
	n = 0;
	rg_xa_for_each(&xa, i, e)
	{
		assert_true(n < N_OF(idx));
		assert_int_equal(i, idx[n]);
		assert_ptr_equal(e, P(n));
		n++;
	}
	assert_int_equal(n, N_OF(idx));
	n = 1;
	rg_xa_for_each_marked(&xa, i, e, RG_XA_MARK_1)
	{
		assert_int_equal(i, idx[n]);
		n += 2;
	}
	assert_int_equal(n, N_OF(idx) + 1);
	/* Start in the middle, bounded by max. */
	i = 65;
	assert_ptr_equal(rg_xa_find(&xa, &i, ULONG_MAX, RG_XA_PRESENT), P(4));
	assert_int_equal(i, 4095);
	i = 65;
	assert_null(rg_xa_find(&xa, &i, 4094, RG_XA_PRESENT));
	assert_int_equal(i, 65);
	i = 4096;
	assert_ptr_equal(rg_xa_find(&xa, &i, 4096, RG_XA_PRESENT), P(5));
	i = 4096;
	assert_ptr_equal(rg_xa_find_after(&xa, &i, ULONG_MAX, RG_XA_PRESENT),
			 P(6));
	assert_int_equal(i, 262143);
	i = ULONG_MAX;
	assert_null(rg_xa_find_after(&xa, &i, ULONG_MAX, RG_XA_PRESENT));
	i = ULONG_MAX;
	assert_ptr_equal(rg_xa_find(&xa, &i, ULONG_MAX, RG_XA_PRESENT), P(9));
	i = 10;
	assert_null(rg_xa_find(&xa, &i, 5, RG_XA_PRESENT));
	i = 0;
	assert_null(rg_xa_find(&xa, &i, ULONG_MAX, 5));
	i = 0;
	assert_null(rg_xa_find(&xa, &i, ULONG_MAX, RG_XA_MARK_2));
	rg_xa_destroy(&xa);
	RG_ASSERT_VALID(&xa);
}

static void test_alloc(void **state)
{
	RG_DEFINE_XARRAY_ALLOC(xa);
	RG_DEFINE_XARRAY(plain);
	unsigned long id = 12345, n, i;
	void *cur;

	(void)state;
	assert_int_equal(rg_xa_alloc(&plain, &id, P(1), 0, 10), -EINVAL);
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), 10, 9), -EBUSY);
	assert_int_equal(rg_xa_alloc(&xa, NULL, P(1), 0, 9), -EINVAL);
	assert_int_equal(id, 12345);
	for (n = 0; n < 300; n++) {
		assert_int_equal(rg_xa_alloc(&xa, &id, P(n), 0, 299), 0);
		assert_int_equal(id, n);
	}
	RG_ASSERT_VALID(&xa);
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), 0, 299), -EBUSY);
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), 5, 5), -EBUSY);
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), 0, 300), 0);
	assert_int_equal(id, 300);
	/* Reuse the lowest freed index. */
	assert_ptr_equal(rg_xa_erase(&xa, 77), P(77));
	assert_ptr_equal(rg_xa_erase(&xa, 7), P(7));
	RG_ASSERT_VALID(&xa);
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), 0, 1000), 0);
	assert_int_equal(id, 7);
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), 50, 1000), 0);
	assert_int_equal(id, 77);
	/* Far above the tree. */
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), 1UL << 50, ULONG_MAX), 0);
	assert_int_equal(id, 1UL << 50);
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), ULONG_MAX, ULONG_MAX), 0);
	assert_int_equal(id, ULONG_MAX);
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), ULONG_MAX, ULONG_MAX),
			 -EBUSY);
	RG_ASSERT_VALID(&xa);
	/* The free mark is not a user mark. */
	assert_int_equal(rg_xa_set_mark(&xa, 3, RG_XA_FREE_MARK), -EINVAL);
	assert_false(rg_xa_get_mark(&xa, 3, RG_XA_FREE_MARK));
	assert_int_equal(rg_xa_set_mark(&xa, 3, RG_XA_MARK_1), 0);
	assert_true(rg_xa_get_mark(&xa, 3, RG_XA_MARK_1));
	i = 0;
	assert_null(rg_xa_find(&xa, &i, ULONG_MAX, RG_XA_FREE_MARK));
	/* NULL reserves: reads NULL, not handed out again until erased. */
	assert_int_equal(rg_xa_store(&xa, 3, NULL, &cur), 0);
	assert_ptr_equal(cur, P(3));
	assert_null(rg_xa_load(&xa, 3));
	assert_ptr_equal(rg_xa_erase(&xa, 100), P(100));
	assert_int_equal(rg_xa_alloc(&xa, &id, NULL, 0, 1000), 0);
	assert_int_equal(id, 100);
	assert_null(rg_xa_load(&xa, 100));
	RG_ASSERT_VALID(&xa);
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), 0, 300), -EBUSY);
	assert_null(rg_xa_erase(&xa, 3));
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), 0, 300), 0);
	assert_int_equal(id, 3);
	/* cmpxchg NULL -> NULL in an allocating array reserves. */
	assert_int_equal(rg_xa_cmpxchg(&xa, 5000, NULL, NULL, NULL), 0);
	assert_int_equal(rg_xa_insert(&xa, 5000, P(1)), -EBUSY);
	rg_xa_release(&xa, 5000);
	assert_int_equal(rg_xa_insert(&xa, 5000, P(1)), 0);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
	RG_ASSERT_VALID(&xa);
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), 0, 10), 0);
	assert_int_equal(id, 0);
	/* Index 0 in the head is occupied: the next one is 1. */
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), 0, 10), 0);
	assert_int_equal(id, 1);
	rg_xa_destroy(&xa);
}

static void test_alloc1(void **state)
{
	RG_DEFINE_XARRAY_ALLOC1(xa);
	struct rg_xarray b;
	unsigned long id;

	(void)state;
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), 0, 0), -EBUSY);
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), 0, 10), 0);
	assert_int_equal(id, 1);
	assert_int_equal(rg_xa_store(&xa, 0, P(0), NULL), 0);
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), 0, 10), 0);
	assert_int_equal(id, 2);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
	assert_int_equal(rg_xa_init_flags(&b, RG_XA_FLAGS_ALLOC1), 0);
	assert_int_equal(rg_xa_alloc(&b, &id, P(1), 0, 10), 0);
	assert_int_equal(id, 1);
	rg_xa_destroy(&b);
}

static void test_dense(void **state)
{
	RG_DEFINE_XARRAY(xa);
	size_t base = nodes_in_use();
	unsigned long i, n = RG_THOROUGH ? 20000 : 200000;

	(void)state;
	for (i = 0; i < n; i++)
		assert_int_equal(rg_xa_store(&xa, i, rg_xa_mk_value(i), NULL),
				 0);
	RG_ASSERT_VALID(&xa);
	/* Dense: ceil(k / 64) nodes per level (20000: 313 + 5 + 1). */
	{
		size_t want = 0;

		for (unsigned long k = n; k > 1; k = (k + 63) / 64)
			want += (k + 63) / 64;
		assert_int_equal(rg_xa_node_count(&xa), want);
	}
	for (i = 0; i < n; i += 2)
		assert_ptr_equal(rg_xa_erase(&xa, i), rg_xa_mk_value(i));
	RG_ASSERT_VALID(&xa);
	for (i = 1; i < n; i += 2)
		assert_int_equal(rg_xa_to_value(rg_xa_load(&xa, i)), i);
	for (i = n; i >= 2; i -= 2)
		assert_ptr_equal(rg_xa_erase(&xa, i - 1),
				 rg_xa_mk_value(i - 1));
	RG_ASSERT_VALID(&xa);
	assert_true(rg_xa_empty(&xa));
	assert_int_equal(nodes_in_use(), base);
}

static void test_validate_catches(void **state)
{
	RG_DEFINE_XARRAY(xa);
	const char *why = NULL;

	(void)state;
	assert_int_equal(rg_xa_store(&xa, 100, P(1), NULL), 0);
	xa.nr_nodes++;
	assert_int_equal(rg_xa_validate(&xa, &why), -EINVAL);
	assert_non_null(why);
	xa.nr_nodes--;
	RG_ASSERT_VALID(&xa);
	xa.head_marks = 1;
	why = NULL;
	assert_int_equal(rg_xa_validate(&xa, &why), -EINVAL);
	assert_non_null(why);
	xa.head_marks = 0;
	xa.flags = 0x40;
	assert_int_equal(rg_xa_validate(&xa, NULL), -EINVAL);
	xa.flags = 0;
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
}

static void test_dump(void **state)
{
	RG_DEFINE_XARRAY(xa);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	rg_xa_dump(&xa, f);
	assert_int_equal(rg_xa_store(&xa, 0, rg_xa_mk_value(42), NULL), 0);
	rg_xa_dump(&xa, f);
	assert_int_equal(rg_xa_store(&xa, 300, P(3), NULL), 0);
	assert_int_equal(rg_xa_reserve(&xa, 301), 0);
	rg_xa_dump(&xa, f);
	fclose(f);
	assert_non_null(strstr(buf, "empty"));
	assert_non_null(strstr(buf, "value 42"));
	assert_non_null(strstr(buf, "[300] pointer"));
	assert_non_null(strstr(buf, "[301] reserved"));
	free(buf);
	rg_xa_destroy(&xa);
}

static void test_linux_names(void **state)
{
	DEFINE_XARRAY(xa);
	DEFINE_XARRAY_ALLOC(ax);
	struct xarray b;
	unsigned long index, n = 0;
	uint32_t id = 0;
	void *entry, *r;

	(void)state;
	assert_null(xa_store(&xa, 5, P(5), GFP_KERNEL));
	assert_ptr_equal(xa_store(&xa, 5, P(6), GFP_KERNEL), P(5));
	r = xa_store(&xa, 6, (void *)(uintptr_t)0x802, GFP_KERNEL);
	assert_true(xa_is_err(r));
	assert_int_equal(xa_err(r), -EINVAL);
	assert_false(xa_is_err(P(5)));
	assert_int_equal(xa_err(P(5)), 0);
	assert_ptr_equal(xa_load(&xa, 5), P(6));
	assert_ptr_equal(xa_cmpxchg(&xa, 5, P(6), P(7), GFP_KERNEL), P(6));
	assert_ptr_equal(xa_cmpxchg(&xa, 5, P(1), P(8), GFP_KERNEL), P(7));
	assert_ptr_equal(xa_load(&xa, 5), P(7));
	assert_int_equal(xa_insert(&xa, 5, P(1), GFP_KERNEL), -EBUSY);
	assert_int_equal(xa_insert(&xa, 9, xa_mk_value(9), GFP_KERNEL), 0);
	assert_true(xa_is_value(xa_load(&xa, 9)));
	assert_int_equal(xa_to_value(xa_load(&xa, 9)), 9);
	xa_set_mark(&xa, 9, XA_MARK_1);
	xa_set_mark(&xa, 10, XA_MARK_1); /* absent: nothing happens */
	assert_true(xa_get_mark(&xa, 9, XA_MARK_1));
	xa_for_each_marked(&xa, index, entry, XA_MARK_1)
	{
		assert_int_equal(index, 9);
		n++;
	}
	assert_int_equal(n, 1);
	xa_clear_mark(&xa, 9, XA_MARK_1);
	assert_false(xa_get_mark(&xa, 9, XA_MARK_1));
	n = 0;
	xa_for_each(&xa, index, entry)
		n++;
	assert_int_equal(n, 2);
	index = 6;
	assert_ptr_equal(xa_find(&xa, &index, ULONG_MAX, XA_PRESENT),
			 xa_mk_value(9));
	assert_null(xa_find_after(&xa, &index, ULONG_MAX, XA_PRESENT));
	assert_int_equal(xa_reserve(&xa, 20, GFP_KERNEL), 0);
	assert_null(xa_load(&xa, 20));
	xa_release(&xa, 20);
	assert_ptr_equal(xa_erase(&xa, 5), P(7));
	assert_false(xa_empty(&xa));
	xa_destroy(&xa);
	assert_true(xa_empty(&xa));

	assert_int_equal(xa_alloc(&ax, &id, P(1), xa_limit_32b, GFP_KERNEL), 0);
	assert_int_equal(id, 0);
	assert_int_equal(xa_alloc(&ax, &id, P(1), XA_LIMIT(10, 20), GFP_KERNEL),
			 0);
	assert_int_equal(id, 10);
	assert_int_equal(xa_alloc(&ax, &id, P(1), XA_LIMIT(10, 10), GFP_KERNEL),
			 -EBUSY);
	xa_destroy(&ax);
	xa_init_flags(&b, XA_FLAGS_ALLOC1);
	assert_int_equal(xa_alloc(&b, &id, P(1), xa_limit_31b, GFP_KERNEL), 0);
	assert_int_equal(id, 1);
	xa_destroy(&b);
	xa_init(&b);
	assert_int_equal(xa_alloc(&b, &id, P(1), xa_limit_16b, GFP_KERNEL),
			 -EINVAL);
}

/*
 * Regression: an allocation from an empty range (min > max) returned
 * -EINVAL; the kernel's xa_alloc() returns -EBUSY (no free index in the
 * range), and code written against it tests for that.
 */
static void regress_xa_alloc_empty_range(void **state)
{
	struct rg_xarray xa;
	unsigned long id = 77;
	uint32_t kid = 77;

	(void)state;
	assert_int_equal(rg_xa_init_flags(&xa, RG_XA_FLAGS_ALLOC), 0);
	assert_int_equal(rg_xa_alloc(&xa, &id, P(1), 10, 5), -EBUSY);
	assert_int_equal(id, 77);
	assert_true(rg_xa_empty(&xa));
	assert_int_equal(rg_xa_validate(&xa, NULL), 0);
	{
		DEFINE_XARRAY_ALLOC(kxa);

		assert_int_equal(
			xa_alloc(&kxa, &kid, P(2), XA_LIMIT(10, 5), GFP_KERNEL),
			-EBUSY);
		assert_int_equal(kid, 77);
		xa_destroy(&kxa);
	}
	/* the range check still comes after the argument checks */
	assert_int_equal(rg_xa_alloc(&xa, NULL, P(1), 10, 5), -EINVAL);
	rg_xa_destroy(&xa);
}

/*
 * A reserved (internal) old value is compared like any other: it cannot
 * match what an index holds, so the exchange fails with -EBUSY, the entry
 * found is reported and nothing changes; that holds for a reserved index
 * too, whatever the bits of the library's internal reservation marker.
 */
static void regress_xa_cmpxchg_reserved_old(void **state)
{
	RG_DEFINE_XARRAY(xa);
	RG_DEFINE_XARRAY_ALLOC(ax);
	void *olds[] = { (void *)(uintptr_t)0x2, (void *)(uintptr_t)0x402,
			 (void *)(uintptr_t)0x802 };
	unsigned long id;
	void *cur;

	(void)state;
	assert_int_equal(rg_xa_store(&xa, 3, P(3), NULL), 0);
	assert_int_equal(rg_xa_reserve(&xa, 4), 0);
	assert_int_equal(rg_xa_alloc(&ax, &id, NULL, 0, 10), 0);
	for (unsigned int i = 0; i < 3; i++) {
		assert_true(rg_xa_is_reserved_entry(olds[i]));
		cur = P(99);
		assert_int_equal(rg_xa_cmpxchg(&xa, 3, olds[i], P(5), &cur),
				 -EBUSY);
		assert_ptr_equal(cur, P(3));
		cur = P(99);
		assert_int_equal(rg_xa_cmpxchg(&xa, 4, olds[i], P(5), &cur),
				 -EBUSY);
		assert_null(cur);
		cur = P(99);
		assert_int_equal(rg_xa_cmpxchg(&xa, 9, olds[i], NULL, &cur),
				 -EBUSY);
		assert_null(cur);
		cur = P(99);
		assert_int_equal(rg_xa_cmpxchg(&ax, id, olds[i], P(5), &cur),
				 -EBUSY);
		assert_null(cur);
		assert_int_equal(rg_xa_cmpxchg(&xa, 3, olds[i], P(5), NULL),
				 -EBUSY);
	}
	/* A reserved new entry is still refused, @cur not written. */
	cur = P(99);
	assert_int_equal(rg_xa_cmpxchg(&xa, 3, P(3), olds[2], &cur), -EINVAL);
	assert_ptr_equal(cur, P(99));
	assert_ptr_equal(rg_xa_load(&xa, 3), P(3));
	assert_null(rg_xa_load(&xa, 4));
	assert_int_equal(rg_xa_insert(&xa, 4, P(4)), -EBUSY);
	assert_null(rg_xa_load(&xa, 9));
	assert_null(rg_xa_load(&ax, id));
	RG_ASSERT_VALID(&xa);
	RG_ASSERT_VALID(&ax);
	rg_xa_destroy(&xa);
	rg_xa_destroy(&ax);
}

/*
 * The top node of a tree that spans every index (shift 60) has 16 slots:
 * find and alloc must step from one of its slots to the next one past the
 * fourth, as they do in any other node.
 */
static void regress_xa_top_node_slot_mask(void **state)
{
	RG_DEFINE_XARRAY(xa);
	RG_DEFINE_XARRAY_ALLOC(ax);
	unsigned long a = (3UL << 60) + 1, b = 9UL << 60, idx, id;

	(void)state;
	assert_int_equal(rg_xa_store(&xa, a, P(1), NULL), 0);
	assert_int_equal(rg_xa_store(&xa, b, P(2), NULL), 0);
	assert_int_equal(rg_xa_store(&xa, ULONG_MAX, P(3), NULL), 0);
	idx = a;
	assert_ptr_equal(rg_xa_find_after(&xa, &idx, ULONG_MAX, RG_XA_PRESENT),
			 P(2));
	assert_int_equal(idx, b);
	assert_ptr_equal(rg_xa_find_after(&xa, &idx, ULONG_MAX, RG_XA_PRESENT),
			 P(3));
	assert_int_equal(idx, ULONG_MAX);
	idx = a + 1;
	assert_ptr_equal(rg_xa_find(&xa, &idx, ULONG_MAX, RG_XA_PRESENT), P(2));
	assert_int_equal(idx, b);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);

	/* A full-height allocating array hands out indices past slot 3. */
	assert_int_equal(rg_xa_store(&ax, 0, P(4), NULL), 0);
	assert_int_equal(rg_xa_store(&ax, ULONG_MAX, P(5), NULL), 0);
	assert_int_equal(rg_xa_alloc(&ax, &id, P(6), b, ULONG_MAX), 0);
	assert_int_equal(id, b);
	assert_int_equal(rg_xa_alloc(&ax, &id, P(7), a, ULONG_MAX), 0);
	assert_int_equal(id, a);
	RG_ASSERT_VALID(&ax);
	rg_xa_destroy(&ax);
}

/* Every call with NULL for each pointer argument: the common.h policy. */
static void regress_xa_null_arguments(void **state)
{
	RG_DEFINE_XARRAY_ALLOC(xa);
	unsigned long idx = 0, id;
	const char *why = "x";
	void *cur;

	(void)state;
	assert_int_equal(rg_xa_store(&xa, 5, P(5), NULL), 0);
	RG_EXPECT_NULL_RET(rg_xa_init_flags(NULL, 0), -EINVAL);
	RG_EXPECT_NULL_VOID(rg_xa_init(NULL));
	RG_EXPECT_NULL_VOID(rg_xa_destroy(NULL));
	RG_EXPECT_NULL_RET(rg_xa_load(NULL, 5), NULL);
	RG_EXPECT_NULL_RET(rg_xa_store(NULL, 5, P(1), &cur), -EINVAL);
	RG_EXPECT_NULL_RET(rg_xa_store(&xa, 6, P(6), NULL), 0);
	RG_EXPECT_NULL_RET(rg_xa_insert(NULL, 5, P(1)), -EINVAL);
	RG_EXPECT_NULL_RET(rg_xa_erase(NULL, 5), NULL);
	RG_EXPECT_NULL_RET(rg_xa_cmpxchg(NULL, 5, P(5), P(1), &cur), -EINVAL);
	RG_EXPECT_NULL_RET(rg_xa_cmpxchg(&xa, 5, P(5), P(1), NULL), 0);
	RG_EXPECT_NULL_RET(rg_xa_reserve(NULL, 7), -EINVAL);
	RG_EXPECT_NULL_VOID(rg_xa_release(NULL, 7));
	RG_EXPECT_NULL_RET(rg_xa_alloc(NULL, &id, P(1), 0, 100), -EINVAL);
	RG_EXPECT_NULL_RET(rg_xa_alloc(&xa, NULL, P(1), 0, 100), -EINVAL);
	RG_EXPECT_NULL_RET(rg_xa_find(NULL, &idx, ULONG_MAX, RG_XA_PRESENT),
			   NULL);
	RG_EXPECT_NULL_RET(rg_xa_find(&xa, NULL, ULONG_MAX, RG_XA_PRESENT),
			   NULL);
	RG_EXPECT_NULL_RET(
		rg_xa_find_after(NULL, &idx, ULONG_MAX, RG_XA_PRESENT), NULL);
	RG_EXPECT_NULL_RET(
		rg_xa_find_after(&xa, NULL, ULONG_MAX, RG_XA_PRESENT), NULL);
	RG_EXPECT_NULL_RET(rg_xa_set_mark(NULL, 5, RG_XA_MARK_1), -EINVAL);
	RG_EXPECT_NULL_RET(rg_xa_clear_mark(NULL, 5, RG_XA_MARK_1), -EINVAL);
	RG_EXPECT_NULL_RET(rg_xa_get_mark(NULL, 5, RG_XA_MARK_1), false);
	RG_EXPECT_NULL_RET(rg_xa_empty(NULL), false);
	RG_EXPECT_NULL_RET(rg_xa_bytes(NULL), 0);
	RG_EXPECT_NULL_RET(rg_xa_node_count(NULL), 0);
	RG_EXPECT_NULL_RET(rg_xa_node_cache_stats(NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_xa_validate(NULL, &why), -EINVAL);
	RG_EXPECT_NULL_RET(rg_xa_validate(NULL, NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_xa_validate(&xa, NULL), 0);
	RG_EXPECT_NULL_VOID(rg_xa_dump(NULL, stderr));
	RG_EXPECT_NULL_VOID(rg_xa_dump(&xa, NULL));
	/* In this process too: nothing changed. */
	assert_int_equal(rg_xa_alloc(&xa, NULL, P(1), 0, 100), -EINVAL);
	assert_null(rg_xa_find(&xa, NULL, ULONG_MAX, RG_XA_PRESENT));
	assert_int_equal(rg_xa_validate(NULL, &why), -EINVAL);
	assert_non_null(why);
	assert_ptr_equal(rg_xa_load(&xa, 5), P(5));
	assert_null(rg_xa_load(&xa, 6));
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
}

/*
 * Lock-free loads: an unregistered thread loads under the lock and the
 * array frees nodes at once; the first load of a registered thread puts
 * the array in RCU mode, after which frees wait for a grace period
 * (rg_xa_rcu_barrier()), and so do frees by a registered thread.
 */
static void test_rcu_mode(void **state)
{
	struct rg_xarray xa;
	size_t base;

	(void)state;
	rg_xa_rcu_barrier();
	base = nodes_in_use();
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_store(&xa, 1000, P(1), NULL), 0);
	assert_ptr_equal(rg_xa_load(&xa, 1000), P(1));
	assert_false(xa.flags & RG_XA_FLAGS_RCU);
	rg_xa_erase(&xa, 1000);
	assert_int_equal(nodes_in_use(), base);

	urcu_memb_register_thread();
	assert_int_equal(rg_xa_store(&xa, 1000, P(1), NULL), 0);
	assert_int_equal(rg_xa_store(&xa, 5, rg_xa_mk_value(5), NULL), 0);
	/* A top node and two leaves. */
	assert_int_equal(nodes_in_use(), base + 3);
	urcu_memb_read_lock(); /* nests */
	assert_ptr_equal(rg_xa_load(&xa, 1000), P(1));
	urcu_memb_read_unlock();
	assert_true(xa.flags & RG_XA_FLAGS_RCU);
	assert_ptr_equal(rg_xa_load(&xa, 5), rg_xa_mk_value(5));
	assert_null(rg_xa_load(&xa, 6));
	assert_null(rg_xa_load(&xa, 1UL << 40));
	RG_ASSERT_VALID(&xa);
	assert_ptr_equal(rg_xa_erase(&xa, 1000), P(1));
	assert_int_equal(rg_xa_node_count(&xa), 1);
	assert_int_equal(rg_xa_bytes(&xa), sizeof(xa) + rg_xa_node_size());
	/* The leaf of 1000 and the top (shrunk away): out, not yet freed. */
	assert_int_equal(nodes_in_use(), base + 3);
	rg_xa_rcu_barrier();
	assert_int_equal(nodes_in_use(), base + 1);
	rg_xa_destroy(&xa);
	rg_xa_rcu_barrier();
	assert_int_equal(nodes_in_use(), base);
	urcu_memb_unregister_thread();

	/* RCU mode from the start; frees by an unregistered thread wait. */
	assert_int_equal(
		rg_xa_init_flags(&xa, RG_XA_FLAGS_ALLOC | RG_XA_FLAGS_RCU), 0);
	assert_int_equal(rg_xa_store(&xa, 1000, P(1), NULL), 0);
	RG_ASSERT_VALID(&xa);
	rg_xa_erase(&xa, 1000);
	assert_int_equal(nodes_in_use(), base + 2); /* the top and a leaf */
	rg_xa_rcu_barrier();
	assert_int_equal(nodes_in_use(), base);
	assert_true(rg_xa_empty(&xa));
}

/*
 * A top node removed by a shrink keeps RG_XA_RETRY_ENTRY in slot 0 for a
 * reader still on it, and stays readable for that reader's read-side
 * section; a state on the head reloads the head as it is (a node once the
 * array grew).
 */
static void test_rcu_retry(void **state)
{
	struct rg_xarray xa;

	(void)state;
	urcu_memb_register_thread();
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_store(&xa, 0, rg_xa_mk_value(0), NULL), 0);
	assert_int_equal(rg_xa_store(&xa, 1, rg_xa_mk_value(1), NULL), 0);
	urcu_memb_read_lock();
	{
		RG_XA_STATE(xas, &xa, 1);

		assert_ptr_equal(rg_xas_load(&xas), rg_xa_mk_value(1));
		assert_ptr_equal(rg_xa_erase(&xa, 1), rg_xa_mk_value(1));
		/* The leaf is out of the tree: the head holds entry 0. */
		assert_int_equal(rg_xa_node_count(&xa), 0);
		assert_null(rg_xas_reload(&xas));
		xas.xa_offset = 0;
		assert_true(rg_xa_is_retry(rg_xas_reload(&xas)));
		assert_true(rg_xas_retry(&xas, rg_xas_reload(&xas)));
		assert_ptr_equal(xas.xa_node, RG_XAS_RESTART);
		rg_xas_set(&xas, 0);
		assert_ptr_equal(rg_xas_load(&xas), rg_xa_mk_value(0));
		assert_null(xas.xa_node);
		assert_int_equal(rg_xa_store(&xa, 1, rg_xa_mk_value(1), NULL),
				 0);
		assert_true(rg_xa_is_internal(rg_xas_reload(&xas)));
		assert_ptr_equal(rg_xas_load(&xas), rg_xa_mk_value(0));
	}
	urcu_memb_read_unlock();
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
	rg_xa_rcu_barrier();
	urcu_memb_unregister_thread();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_store_load_heights),
		cmocka_unit_test(test_shrink_to_child),
		cmocka_unit_test(test_reserved_entries),
		cmocka_unit_test(test_insert_cmpxchg),
		cmocka_unit_test(test_reserve_release),
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_alloc),
		cmocka_unit_test(test_alloc1),
		cmocka_unit_test(test_dense),
		cmocka_unit_test(test_validate_catches),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_linux_names),
		cmocka_unit_test(regress_xa_alloc_empty_range),
		cmocka_unit_test(regress_xa_cmpxchg_reserved_old),
		cmocka_unit_test(regress_xa_top_node_slot_mask),
		cmocka_unit_test(regress_xa_null_arguments),
		cmocka_unit_test(test_rcu_mode),
		cmocka_unit_test(test_rcu_retry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
