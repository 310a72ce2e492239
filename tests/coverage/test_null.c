// SPDX-License-Identifier: MIT
/*
 * The NULL policy of <region/common.h> for the calls make coverage found
 * no test giving NULL to: each answers as the table there says (status
 * calls -EINVAL, pointers NULL, counts 0, yes/no false, void calls
 * nothing) and a live structure passed beside it stays valid and
 * unchanged.
 */
#include <errno.h>
#include <stdio.h>

#include <libregion.h>

#include "rg_test.h"

static FILE *null_out(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	assert_non_null(f);
	return f;
}

static void test_null_bitmap(void **state)
{
	unsigned long map[2] = { 0x5, 0 };

	(void)state;
	assert_false(rg_bitmap_range_is_clear(NULL, 0, 8));
	assert_false(rg_bitmap_range_is_set(NULL, 0, 8));
	assert_false(rg_bitmap_equal(NULL, map, 64));
	assert_false(rg_bitmap_equal(map, NULL, 64));
	rg_bitmap_dump(NULL, 64, null_out());
	rg_bitmap_dump(map, 64, NULL);
	assert_int_equal(map[0], 0x5);
}

static void test_null_hbitmap(void **state)
{
	(void)state;
	assert_int_equal(rg_hbitmap_largest_free_run(NULL), 0);
	assert_int_equal(rg_hbitmap_bytes(NULL), 0);
	rg_hbitmap_dump(NULL, null_out());
}

static void test_null_ida(void **state)
{
	struct rg_ida ida;
	unsigned int id;

	(void)state;
	rg_ida_init(NULL);
	rg_ida_destroy(NULL);
	assert_false(rg_ida_is_empty(NULL));
	assert_int_equal(rg_ida_bytes(NULL), 0);
	assert_int_equal(rg_ida_bitmap_count(NULL), 0);
	assert_int_equal(rg_ida_bitmap_cache_stats(NULL), -EINVAL);
	rg_ida_dump(NULL, null_out());
	rg_ida_init(&ida);
	assert_int_equal(rg_ida_alloc(&ida, &id), 0);
	rg_ida_dump(&ida, NULL);
	assert_true(rg_ida_exists(&ida, id));
	assert_int_equal(rg_ida_validate(&ida, NULL), 0);
	rg_ida_destroy(&ida);
}

static void test_null_maple(void **state)
{
	struct rg_maple_tree mt;
	void *old = (void *)1;

	(void)state;
	rg_mtree_lock(NULL);
	rg_mtree_unlock(NULL);
	rg_mtree_destroy(NULL);
	assert_int_equal(rg_mtree_erase_err(NULL, 0, &old), -EINVAL);
	assert_int_equal(rg_mtree_height(NULL), 0);
	rg_mtree_reset_stats(NULL);
	rg_mtree_set_vacancy(NULL, true);

	/* The advanced calls given no state. */
	assert_null(rg_mas_walk(NULL));
	assert_null(rg_mas_next(NULL, ~0UL));
	assert_null(rg_mas_prev(NULL, 0));
	assert_null(rg_mas_find(NULL, ~0UL));
	assert_null(rg_mas_find_rev(NULL, 0));
	rg_mas_pause(NULL);
	rg_mas_reset(NULL);
	rg_mas_set_range(NULL, 1, 2);
	assert_null(rg_mas_erase(NULL));
	assert_int_equal(rg_mas_empty_area(NULL, 0, 10, 1), -EINVAL);
	assert_int_equal(rg_mas_empty_area_rev(NULL, 0, 10, 1), -EINVAL);
	assert_int_equal(rg_mas_preallocate(NULL, rg_mt_mk_value(1), 0),
			 -EINVAL);
	rg_mas_store_prealloc(NULL, rg_mt_mk_value(1));
	rg_mas_destroy(NULL);

	/* A live tree beside them is untouched. */
	assert_int_equal(rg_mtree_init(&mt, 0), 0);
	assert_int_equal(rg_mtree_store_range(&mt, 5, 9, rg_mt_mk_value(3)), 0);
	assert_int_equal(rg_mtree_erase_err(&mt, 7, NULL), 0);
	assert_true(rg_mtree_empty(&mt));
	assert_int_equal(rg_mtree_validate(&mt, NULL), 0);
	rg_mtree_destroy(&mt);
}

static void test_null_xarray(void **state)
{
	struct rg_xarray xa;

	(void)state;
	rg_xa_destroy(NULL);
	assert_null(rg_xa_load(NULL, 0));
	assert_null(rg_xa_erase(NULL, 0));
	assert_int_equal(rg_xa_reserve(NULL, 0), -EINVAL);
	rg_xa_release(NULL, 0);
	assert_false(rg_xa_empty(NULL));
	assert_int_equal(rg_xa_bytes(NULL), 0);
	assert_int_equal(rg_xa_node_count(NULL), 0);
	assert_int_equal(rg_xa_node_cache_stats(NULL), -EINVAL);
	rg_xa_dump(NULL, null_out());
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_reserve(&xa, 3), 0);
	rg_xa_dump(&xa, NULL);
	assert_false(rg_xa_empty(&xa));
	rg_xa_release(&xa, 3);
	assert_true(rg_xa_empty(&xa));
	rg_xa_destroy(&xa);
}

static void test_null_slab(void **state)
{
	struct rg_slab_cache *c = rg_slab_create("null", 64, 8, 0, NULL);
	struct rg_slab_stats st;

	(void)state;
	assert_non_null(c);
	rg_slab_dump(NULL, null_out());
	rg_slab_dump(c, NULL);
	assert_int_equal(rg_slab_get_stats(c, &st), 0);
	assert_int_equal(st.objects_in_use, 0);
	assert_int_equal(rg_slab_validate(c, NULL), 0);
	rg_slab_destroy(c);
}

/* The Maple Tree's reads and range steps given no tree or no state. */
static void test_null_maple_reads(void **state)
{
	struct rg_maple_tree mt;
	struct rg_mtree_stats st;
	unsigned long index = 0;

	(void)state;
	assert_null(rg_mtree_load(NULL, 0));
	assert_null(rg_mtree_find(NULL, &index, ~0UL));
	assert_false(rg_mtree_empty(NULL));
	assert_int_equal(rg_mtree_bytes(NULL), 0);
	assert_int_equal(rg_mtree_get_stats(NULL, &st), -EINVAL);
	assert_int_equal(rg_mtree_node_stats(NULL), -EINVAL);
	rg_mtree_dump(NULL, null_out());
	assert_null(rg_mas_next_range(NULL, ~0UL));
	assert_null(rg_mas_prev_range(NULL, 0));
	assert_null(rg_mas_find_range(NULL, ~0UL));

	/* A live tree given a NULL out-parameter or stream. */
	assert_int_equal(rg_mtree_init(&mt, 0), 0);
	assert_int_equal(rg_mtree_store_range(&mt, 5, 9, rg_mt_mk_value(3)), 0);
	assert_null(rg_mtree_find(&mt, NULL, ~0UL));
	assert_int_equal(rg_mtree_get_stats(&mt, NULL), -EINVAL);
	rg_mtree_dump(&mt, NULL);
	assert_ptr_equal(rg_mtree_load(&mt, 7), rg_mt_mk_value(3));
	assert_int_equal(rg_mtree_validate(&mt, NULL), 0);
	rg_mtree_destroy(&mt);
}

/* The xarray's writes given no array. */
static void test_null_xarray_writes(void **state)
{
	static int a;
	struct rg_xarray xa;
	unsigned long id = 77;
	void *cur = &a;

	(void)state;
	assert_int_equal(rg_xa_store(NULL, 0, &a, NULL), -EINVAL);
	assert_int_equal(rg_xa_insert(NULL, 0, &a), -EINVAL);
	assert_int_equal(rg_xa_cmpxchg(NULL, 0, NULL, &a, &cur), -EINVAL);
	assert_int_equal(rg_xa_alloc(NULL, &id, &a, 0, ~0UL), -EINVAL);
	assert_int_equal(id, 77);
	assert_int_equal(rg_xa_set_mark(NULL, 0, RG_XA_MARK_0), -EINVAL);
	assert_int_equal(rg_xa_clear_mark(NULL, 0, RG_XA_MARK_0), -EINVAL);
	assert_null(rg_xa_erase_locked(NULL, 0));
	rg_xa_dump_locked(NULL, null_out(), NULL);

	rg_xa_init(&xa);
	assert_int_equal(rg_xa_store(&xa, 4, &a, NULL), 0);
	rg_xa_lock(&xa);
	rg_xa_dump_locked(&xa, NULL, NULL);
	rg_xa_unlock(&xa);
	assert_ptr_equal(rg_xa_load(&xa, 4), &a);
	assert_int_equal(rg_xa_validate(&xa, NULL), 0);
	rg_xa_destroy(&xa);
}

/* The region calls given no region, and an hbitmap's peak. */
static void test_null_region(void **state)
{
	struct rg_region *r = rg_region_create("bitmap", 64, 0);
	unsigned long s;

	(void)state;
	assert_int_equal(rg_region_free(NULL, 0, 1), -EINVAL);
	assert_int_equal(rg_region_reserve(NULL, 0, 1), -EINVAL);
	assert_int_equal(rg_region_test(NULL, 0), -EINVAL);
	rg_region_dump(NULL, null_out());
	assert_int_equal(rg_hbitmap_bytes_peak(NULL), 0);

	assert_non_null(r);
	assert_int_equal(rg_region_alloc(r, 4, 1, &s), 0);
	rg_region_dump(r, NULL);
	assert_int_equal(rg_region_test(r, s), 1);
	assert_int_equal(rg_region_validate(r, NULL), 0);
	rg_region_destroy(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_bitmap),
		cmocka_unit_test(test_null_hbitmap),
		cmocka_unit_test(test_null_ida),
		cmocka_unit_test(test_null_maple),
		cmocka_unit_test(test_null_xarray),
		cmocka_unit_test(test_null_slab),
		cmocka_unit_test(test_null_maple_reads),
		cmocka_unit_test(test_null_xarray_writes),
		cmocka_unit_test(test_null_region),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
