// SPDX-License-Identifier: MIT
/*
 * Unit tests of every IDA call, including the kernel's known cases
 * (kernel-semantics.md, "IDA"): sequential 10,000 with reuse, alloc_min(5000)
 * after 0..9999, destroy at 0 / 1 / 1023 / 1024 / 12345678, full chunks at
 * bases 0, 1024 and 65536, -ENOSPC past INT_MAX; the three chunk forms
 * (nothing, value entry, bitmap) and their memory; -ENOENT on bad frees;
 * the search hint; validate, dump and the kernel names of linux/ida.h.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "region/ida.h"
#include "region/linux/ida.h"
#include "region/xarray.h"
#include "rg_test.h"

static size_t bitmaps_in_use(void)
{
	struct rg_slab_stats st;

	assert_int_equal(rg_ida_bitmap_cache_stats(&st), 0);
	return st.objects_in_use;
}

static size_t nodes_in_use(void)
{
	struct rg_slab_stats st;

	assert_int_equal(rg_xa_node_cache_stats(&st), 0);
	return st.objects_in_use;
}

static unsigned int alloc_ok(struct rg_ida *ida, unsigned int min,
			     unsigned int max)
{
	unsigned int id = UINT_MAX;

	assert_int_equal(rg_ida_alloc_range(ida, min, max, &id), 0);
	return id;
}

static void test_empty(void **state)
{
	RG_DEFINE_IDA(ida);
	struct rg_ida b;
	unsigned int id = 7;

	(void)state;
	assert_true(rg_ida_is_empty(&ida));
	assert_int_equal(rg_ida_bytes(&ida), sizeof(ida));
	assert_int_equal(rg_ida_free(&ida, 0), -ENOENT);
	assert_false(rg_ida_exists(&ida, 0));
	RG_ASSERT_VALID(&ida);
	rg_ida_init(&b);
	assert_true(rg_ida_is_empty(&b));
	RG_ASSERT_VALID(&b);
	rg_ida_destroy(&b);
	assert_int_equal(rg_ida_alloc_range(NULL, 0, 1, &id), -EINVAL);
	assert_int_equal(rg_ida_alloc_range(&ida, 0, 1, NULL), -EINVAL);
	assert_int_equal(rg_ida_free(NULL, 0), -EINVAL);
	assert_int_equal(id, 7);
	assert_true(rg_ida_is_empty(&ida));
}

/* Allocate 10,000 IDs in a row, free one, and get it back. */
static void test_sequential_reuse(void **state)
{
	RG_DEFINE_IDA(ida);
	unsigned int i, id;

	(void)state;
	for (i = 0; i < 10000; i++) {
		assert_int_equal(rg_ida_alloc(&ida, &id), 0);
		assert_int_equal(id, i);
		if (RG_THOROUGH && i % 97 == 0)
			RG_ASSERT_VALID(&ida);
	}
	RG_ASSERT_VALID(&ida);
	for (i = 0; i < 10000; i += 1111) {
		assert_int_equal(rg_ida_free(&ida, i), 0);
		assert_false(rg_ida_exists(&ida, i));
		assert_int_equal(rg_ida_alloc(&ida, &id), 0);
		assert_int_equal(id, i);
	}
	/* Several holes come back lowest first. */
	assert_int_equal(rg_ida_free(&ida, 9000), 0);
	assert_int_equal(rg_ida_free(&ida, 70), 0);
	assert_int_equal(rg_ida_free(&ida, 3000), 0);
	RG_ASSERT_VALID(&ida);
	assert_int_equal(alloc_ok(&ida, 0, INT_MAX), 70);
	assert_int_equal(alloc_ok(&ida, 0, INT_MAX), 3000);
	assert_int_equal(alloc_ok(&ida, 0, INT_MAX), 9000);
	assert_int_equal(alloc_ok(&ida, 0, INT_MAX), 10000);
	RG_ASSERT_VALID(&ida);
	rg_ida_destroy(&ida);
	assert_true(rg_ida_is_empty(&ida));
}

/* After 0..9999, alloc_min(5000) returns 10000, then 10001. */
static void test_alloc_min_after_range(void **state)
{
	RG_DEFINE_IDA(ida);
	unsigned int i, id;

	(void)state;
	for (i = 0; i < 10000; i++)
		assert_int_equal(alloc_ok(&ida, 0, INT_MAX), i);
	assert_int_equal(rg_ida_alloc_min(&ida, 5000, &id), 0);
	assert_int_equal(id, 10000);
	assert_int_equal(rg_ida_alloc_min(&ida, 5000, &id), 0);
	assert_int_equal(id, 10001);
	RG_ASSERT_VALID(&ida);
	/* alloc_max inside the full range fails, above it succeeds. */
	assert_int_equal(rg_ida_alloc_max(&ida, 9999, &id), -ENOSPC);
	assert_int_equal(rg_ida_alloc_max(&ida, 10002, &id), 0);
	assert_int_equal(id, 10002);
	RG_ASSERT_VALID(&ida);
	rg_ida_destroy(&ida);
}

/* Destroying an IDA holding 0, 1, 1023, 1024 or 12345678 empties it. */
static void test_destroy_known(void **state)
{
	static const unsigned int ids[] = { 0, 1, 1023, 1024, 12345678 };
	size_t nb = nodes_in_use(), bb = bitmaps_in_use();
	unsigned int k, id;

	(void)state;
	for (k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
		RG_DEFINE_IDA(ida);

		assert_int_equal(rg_ida_alloc_min(&ida, ids[k], &id), 0);
		assert_int_equal(id, ids[k]);
		assert_true(rg_ida_exists(&ida, ids[k]));
		assert_false(rg_ida_is_empty(&ida));
		RG_ASSERT_VALID(&ida);
		rg_ida_destroy(&ida);
		assert_true(rg_ida_is_empty(&ida));
		assert_false(rg_ida_exists(&ida, ids[k]));
		assert_int_equal(rg_ida_bytes(&ida), sizeof(ida));
		RG_ASSERT_VALID(&ida);
		/* Still usable afterwards. */
		assert_int_equal(rg_ida_alloc(&ida, &id), 0);
		assert_int_equal(id, 0);
		rg_ida_destroy(&ida);
		assert_true(rg_ida_is_empty(&ida));
	}
	/* A mixed IDA too. */
	{
		RG_DEFINE_IDA(ida);

		for (k = 0; k < sizeof(ids) / sizeof(ids[0]); k++)
			assert_int_equal(alloc_ok(&ida, ids[k], INT_MAX),
					 ids[k]);
		RG_ASSERT_VALID(&ida);
		rg_ida_destroy(&ida);
		assert_true(rg_ida_is_empty(&ida));
	}
	assert_int_equal(nodes_in_use(), nb);
	assert_int_equal(bitmaps_in_use(), bb);
}

/* A whole 1024-ID chunk can be filled at bases 0, 1024 and 65536. */
static void test_full_chunks(void **state)
{
	static const unsigned int bases[] = { 0, 1024, 65536 };
	unsigned int k, i, id;

	(void)state;
	for (k = 0; k < 3; k++) {
		RG_DEFINE_IDA(ida);
		unsigned int b = bases[k];

		for (i = 0; i < 1024; i++) {
			assert_int_equal(
				rg_ida_alloc_range(&ida, b, b + 1023, &id), 0);
			assert_int_equal(id, b + i);
			if (RG_THOROUGH && (i < 70 || i % 64 == 0))
				RG_ASSERT_VALID(&ida);
		}
		RG_ASSERT_VALID(&ida);
		assert_int_equal(rg_ida_bitmap_count(&ida), 1);
		assert_int_equal(rg_ida_alloc_range(&ida, b, b + 1023, &id),
				 -ENOSPC);
		/* A full chunk is skipped by the free mark. */
		assert_int_equal(alloc_ok(&ida, b, INT_MAX), b + 1024);
		assert_int_equal(rg_ida_free(&ida, b + 1024), 0);
		/* Freeing from a full chunk makes it findable again. */
		assert_int_equal(rg_ida_free(&ida, b + 517), 0);
		RG_ASSERT_VALID(&ida);
		assert_int_equal(alloc_ok(&ida, b, INT_MAX), b + 517);
		for (i = 0; i < 1024; i++)
			assert_int_equal(rg_ida_free(&ida, b + i), 0);
		assert_true(rg_ida_is_empty(&ida));
		assert_int_equal(rg_ida_bitmap_count(&ida), 0);
		assert_int_equal(rg_ida_bytes(&ida), sizeof(ida));
		RG_ASSERT_VALID(&ida);
	}
}

/* -ENOSPC past INT_MAX; max is clamped to INT_MAX. */
static void test_enospc(void **state)
{
	RG_DEFINE_IDA(ida);
	unsigned int id = 5;

	(void)state;
	assert_int_equal(rg_ida_alloc_min(&ida, (unsigned int)INT_MAX + 1, &id),
			 -ENOSPC);
	assert_int_equal(rg_ida_alloc_min(&ida, UINT_MAX, &id), -ENOSPC);
	assert_int_equal(rg_ida_alloc_range(&ida, 10, 9, &id), -ENOSPC);
	assert_int_equal(id, 5);
	assert_int_equal(rg_ida_alloc_range(&ida, INT_MAX, UINT_MAX, &id), 0);
	assert_int_equal(id, INT_MAX);
	assert_int_equal(rg_ida_alloc_min(&ida, INT_MAX, &id), -ENOSPC);
	assert_int_equal(rg_ida_alloc_min(&ida, INT_MAX - 1, &id), 0);
	assert_int_equal(id, INT_MAX - 1);
	RG_ASSERT_VALID(&ida);
	assert_int_equal(rg_ida_free(&ida, INT_MAX), 0);
	assert_int_equal(rg_ida_free(&ida, INT_MAX - 1), 0);
	assert_true(rg_ida_is_empty(&ida));
	/* A small range runs out. */
	assert_int_equal(alloc_ok(&ida, 100, 102), 100);
	assert_int_equal(alloc_ok(&ida, 100, 102), 101);
	assert_int_equal(alloc_ok(&ida, 100, 102), 102);
	assert_int_equal(rg_ida_alloc_range(&ida, 100, 102, &id), -ENOSPC);
	assert_int_equal(alloc_ok(&ida, 100, 103), 103);
	assert_int_equal(alloc_ok(&ida, 0, 103), 0);
	RG_ASSERT_VALID(&ida);
	rg_ida_destroy(&ida);
}

/* Chunk forms: nothing, a value entry (no memory), a bitmap. */
static void test_chunk_forms(void **state)
{
	RG_DEFINE_IDA(ida);
	unsigned int i, id;

	(void)state;
	for (i = 0; i < 63; i++)
		assert_int_equal(alloc_ok(&ida, 0, INT_MAX), i);
	/* IDs 0..62 fit in a value entry in the xarray head: no memory. */
	assert_int_equal(rg_ida_bitmap_count(&ida), 0);
	assert_int_equal(rg_ida_bytes(&ida), sizeof(ida));
	RG_ASSERT_VALID(&ida);
	assert_int_equal(alloc_ok(&ida, 0, INT_MAX), 63);
	assert_int_equal(rg_ida_bitmap_count(&ida), 1);
	assert_int_equal(rg_ida_bytes(&ida), sizeof(ida) + 128);
	RG_ASSERT_VALID(&ida);
	/* A value chunk elsewhere needs xarray nodes but no bitmap. */
	assert_int_equal(alloc_ok(&ida, 5 * 1024 + 3, INT_MAX), 5 * 1024 + 3);
	assert_int_equal(rg_ida_bitmap_count(&ida), 1);
	assert_int_equal(rg_ida_bytes(&ida),
			 sizeof(ida) + 128 + rg_xa_node_size());
	RG_ASSERT_VALID(&ida);
	/* A new chunk whose first ID is at or above 63 starts as a bitmap. */
	assert_int_equal(alloc_ok(&ida, 7 * 1024 + 500, INT_MAX),
			 7 * 1024 + 500);
	assert_int_equal(rg_ida_bitmap_count(&ida), 2);
	/* Value chunk converts when it needs bit 63; the low bits stay. */
	for (i = 0; i < 63; i++)
		if (i != 3)
			assert_int_equal(alloc_ok(&ida, 5 * 1024, INT_MAX),
					 5 * 1024 + i);
	assert_int_equal(rg_ida_bitmap_count(&ida), 2);
	assert_int_equal(alloc_ok(&ida, 5 * 1024, INT_MAX), 5 * 1024 + 63);
	assert_int_equal(rg_ida_bitmap_count(&ida), 3);
	for (i = 0; i < 64; i++)
		assert_true(rg_ida_exists(&ida, 5 * 1024 + i));
	RG_ASSERT_VALID(&ida);
	/* Emptied chunks are released, value and bitmap alike. */
	for (i = 0; i < 64; i++)
		assert_int_equal(rg_ida_free(&ida, 5 * 1024 + i), 0);
	assert_int_equal(rg_ida_bitmap_count(&ida), 2);
	assert_int_equal(rg_ida_free(&ida, 7 * 1024 + 500), 0);
	assert_int_equal(rg_ida_bitmap_count(&ida), 1);
	RG_ASSERT_VALID(&ida);
	assert_int_equal(rg_ida_bytes(&ida), sizeof(ida) + 128);
	/* A bitmap chunk stays a bitmap when it drops back below 63. */
	assert_int_equal(rg_ida_free(&ida, 63), 0);
	assert_int_equal(rg_ida_bitmap_count(&ida), 1);
	for (i = 0; i < 63; i++)
		assert_int_equal(rg_ida_free(&ida, i), 0);
	assert_true(rg_ida_is_empty(&ida));
	assert_int_equal(rg_ida_bitmap_count(&ida), 0);
	/* A value chunk: only bits below 63 live there. */
	assert_int_equal(rg_ida_alloc_min(&ida, 2048 + 10, &id), 0);
	assert_int_equal(rg_ida_bitmap_count(&ida), 0);
	assert_int_equal(rg_ida_free(&ida, 2048 + 10), 0);
	assert_true(rg_ida_is_empty(&ida));
	RG_ASSERT_VALID(&ida);
}

/* Dense memory: 128 bytes per 1024 IDs plus a node per 64 chunks. */
static void test_dense_memory(void **state)
{
	RG_DEFINE_IDA(ida);
	unsigned int i, n = 64 * 1024 * 2;

	(void)state;
	for (i = 0; i < n; i++)
		assert_int_equal(alloc_ok(&ida, 0, INT_MAX), i);
	RG_ASSERT_VALID(&ida);
	/* 128 chunks: two leaves and a root. */
	assert_int_equal(rg_ida_bitmap_count(&ida), 128);
	assert_int_equal(rg_ida_bytes(&ida),
			 sizeof(ida) + 128 * 128 + 3 * rg_xa_node_size());
	rg_ida_destroy(&ida);
}

static void test_free_errors(void **state)
{
	RG_DEFINE_IDA(ida);
	size_t before;

	(void)state;
	assert_int_equal(rg_ida_free(&ida, 5), -ENOENT);
	assert_int_equal(alloc_ok(&ida, 4, INT_MAX), 4);
	/* Value chunk: missing bit, bit >= 63. */
	assert_int_equal(rg_ida_free(&ida, 5), -ENOENT);
	assert_int_equal(rg_ida_free(&ida, 100), -ENOENT);
	assert_int_equal(rg_ida_free(&ida, 5000), -ENOENT);
	assert_int_equal(rg_ida_free(&ida, (unsigned int)INT_MAX + 1), -ENOENT);
	assert_int_equal(rg_ida_free(&ida, UINT_MAX), -ENOENT);
	/* Bitmap chunk: missing bit. */
	assert_int_equal(alloc_ok(&ida, 700, INT_MAX), 700);
	before = rg_ida_bytes(&ida);
	assert_int_equal(rg_ida_free(&ida, 701), -ENOENT);
	assert_int_equal(rg_ida_bytes(&ida), before);
	assert_true(rg_ida_exists(&ida, 4));
	assert_true(rg_ida_exists(&ida, 700));
	RG_ASSERT_VALID(&ida);
	/* Double free. */
	assert_int_equal(rg_ida_free(&ida, 700), 0);
	assert_int_equal(rg_ida_free(&ida, 700), -ENOENT);
	assert_int_equal(rg_ida_free(&ida, 4), 0);
	assert_int_equal(rg_ida_free(&ida, 4), -ENOENT);
	assert_true(rg_ida_is_empty(&ida));
	RG_ASSERT_VALID(&ida);
}

/* The hint never changes results: ranges above it, frees below it. */
static void test_hint(void **state)
{
	RG_DEFINE_IDA(ida);
	unsigned int i;

	(void)state;
	for (i = 0; i < 100; i++)
		assert_int_equal(alloc_ok(&ida, 0, INT_MAX), i);
	assert_int_equal(alloc_ok(&ida, 500, INT_MAX), 500);
	assert_int_equal(alloc_ok(&ida, 0, INT_MAX), 100);
	assert_int_equal(alloc_ok(&ida, 50, 60000), 101);
	assert_int_equal(rg_ida_free(&ida, 10), 0);
	assert_int_equal(alloc_ok(&ida, 11, INT_MAX), 102);
	assert_int_equal(alloc_ok(&ida, 0, INT_MAX), 10);
	assert_int_equal(alloc_ok(&ida, 0, 103), 103);
	assert_int_equal(alloc_ok(&ida, 0, INT_MAX), 104);
	RG_ASSERT_VALID(&ida);
	/* validate catches a hint above the lowest free ID. */
	ida.free_lo = 1000;
	assert_int_equal(rg_ida_validate(&ida, NULL), -EINVAL);
	ida.free_lo = 0;
	RG_ASSERT_VALID(&ida);
	rg_ida_destroy(&ida);
}

static void test_validate_catches(void **state)
{
	RG_DEFINE_IDA(ida);
	const char *why = NULL;

	(void)state;
	assert_int_equal(alloc_ok(&ida, 3000, INT_MAX), 3000);
	ida.nr_bitmaps++;
	assert_int_equal(rg_ida_validate(&ida, &why), -EINVAL);
	assert_non_null(why);
	ida.nr_bitmaps--;
	RG_ASSERT_VALID(&ida);
	rg_ida_destroy(&ida);
}

static void test_dump(void **state)
{
	RG_DEFINE_IDA(ida);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(alloc_ok(&ida, 0, INT_MAX), 0);
	assert_int_equal(alloc_ok(&ida, 2000, INT_MAX), 2000);
	rg_ida_dump(&ida, f);
	fclose(f);
	assert_non_null(strstr(buf, "IDs 0..1023 value 0x1 (1 in use)"));
	assert_non_null(strstr(buf, "IDs 1024..2047 bitmap"));
	free(buf);
	rg_ida_destroy(&ida);
}

static void test_linux_names(void **state)
{
	DEFINE_IDA(ids);
	struct ida b;
	int i;

	(void)state;
	for (i = 0; i < 100; i++)
		assert_int_equal(ida_alloc(&ids, GFP_KERNEL), i);
	assert_int_equal(ida_alloc_min(&ids, 50, GFP_KERNEL), 100);
	assert_int_equal(ida_alloc_max(&ids, 100, GFP_KERNEL), -ENOSPC);
	assert_int_equal(ida_alloc_range(&ids, 200, 300, GFP_KERNEL), 200);
	assert_int_equal(ida_alloc_range(&ids, INT_MAX, UINT_MAX, GFP_KERNEL),
			 INT_MAX);
	assert_int_equal(ida_alloc_min(&ids, INT_MAX, GFP_KERNEL), -ENOSPC);
	ida_free(&ids, 7);
	ida_free(&ids, 7); /* ignored, as the kernel only warns */
	assert_int_equal(ida_alloc(&ids, GFP_KERNEL), 7);
	assert_false(ida_is_empty(&ids));
	ida_destroy(&ids);
	assert_true(ida_is_empty(&ids));
	ida_init(&b);
	assert_int_equal(ida_alloc(&b, GFP_KERNEL), 0);
	ida_destroy(&b);
	assert_int_equal(IDA_BITMAP_BITS, 1024);
}

/* Every call with NULL for each pointer argument: the common.h policy. */
static void regress_ida_null_arguments(void **state)
{
	RG_DEFINE_IDA(ida);
	const char *why = "x";
	unsigned int id;

	(void)state;
	assert_int_equal(rg_ida_alloc(&ida, &id), 0);
	RG_EXPECT_NULL_VOID(rg_ida_init(NULL));
	RG_EXPECT_NULL_RET(rg_ida_alloc_range(NULL, 0, 10, &id), -EINVAL);
	RG_EXPECT_NULL_RET(rg_ida_alloc_range(&ida, 0, 10, NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_ida_alloc(NULL, &id), -EINVAL);
	RG_EXPECT_NULL_RET(rg_ida_alloc(&ida, NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_ida_alloc_min(NULL, 3, &id), -EINVAL);
	RG_EXPECT_NULL_RET(rg_ida_alloc_max(&ida, 3, NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_ida_free(NULL, 0), -EINVAL);
	RG_EXPECT_NULL_RET(rg_ida_exists(NULL, 0), false);
	RG_EXPECT_NULL_VOID(rg_ida_destroy(NULL));
	RG_EXPECT_NULL_RET(rg_ida_is_empty(NULL), false);
	RG_EXPECT_NULL_RET(rg_ida_bytes(NULL), 0);
	RG_EXPECT_NULL_RET(rg_ida_bitmap_count(NULL), 0);
	RG_EXPECT_NULL_RET(rg_ida_bitmap_cache_stats(NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_ida_validate(NULL, &why), -EINVAL);
	RG_EXPECT_NULL_RET(rg_ida_validate(NULL, NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_ida_validate(&ida, NULL), 0);
	RG_EXPECT_NULL_VOID(rg_ida_dump(NULL, stderr));
	RG_EXPECT_NULL_VOID(rg_ida_dump(&ida, NULL));
	/* In this process too: nothing changed. */
	assert_int_equal(rg_ida_alloc_range(&ida, 0, 10, NULL), -EINVAL);
	assert_int_equal(rg_ida_validate(NULL, &why), -EINVAL);
	assert_non_null(why);
	assert_true(rg_ida_exists(&ida, 0));
	assert_false(rg_ida_exists(&ida, 1));
	RG_ASSERT_VALID(&ida);
	rg_ida_destroy(&ida);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_sequential_reuse),
		cmocka_unit_test(test_alloc_min_after_range),
		cmocka_unit_test(test_destroy_known),
		cmocka_unit_test(test_full_chunks),
		cmocka_unit_test(test_enospc),
		cmocka_unit_test(test_chunk_forms),
		cmocka_unit_test(test_dense_memory),
		cmocka_unit_test(test_free_errors),
		cmocka_unit_test(test_hint),
		cmocka_unit_test(test_validate_catches),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_linux_names),
		cmocka_unit_test(regress_ida_null_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
