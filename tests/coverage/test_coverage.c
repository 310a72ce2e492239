// SPDX-License-Identifier: MIT
/*
 * Behaviour that the module tests did not reach (found with make coverage):
 * the fault-injection counters, statistics before first use, validators
 * catching corrupted structures (through public fields and calls only),
 * paused and exhausted Maple Tree iteration, allocating beside a root
 * entry, the IDA's range end inside an absent chunk, aligned zero-area
 * searches against the naive search, the bitmap dump's line breaks and
 * constructors failing under fault injection.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libregion.h>

#include "coverage.h"

/* Runs first: the process-wide node caches do not exist yet. */
static void test_stats_before_first_use(void **state)
{
	struct rg_slab_stats st;

	(void)state;
	memset(&st, 0xff, sizeof(st));
	assert_int_equal(rg_mtree_node_stats(&st), 0);
	assert_int_equal(st.objects_in_use, 0);
	assert_int_equal(st.bytes_held, 0);
	memset(&st, 0xff, sizeof(st));
	assert_int_equal(rg_xa_node_cache_stats(&st), 0);
	assert_int_equal(st.bytes_held, 0);
	memset(&st, 0xff, sizeof(st));
	assert_int_equal(rg_ida_bitmap_cache_stats(&st), 0);
	assert_int_equal(st.bytes_held, 0);
}

static void test_fault_counters(void **state)
{
	struct rg_slab_cache *c = rg_slab_create("cov", 64, 0, 0, NULL);
	unsigned long before;
	void *p;

	(void)state;
	assert_non_null(c);
	rg_fault_inject(0);
	assert_false(rg_fault_fired());
	before = rg_fault_attempts();
	p = rg_slab_alloc(c);
	assert_non_null(p);
	assert_true(rg_fault_attempts() > before);
	assert_false(rg_fault_fired());
	rg_slab_free(c, p);

	/* The next attempt fails, once, and says so. */
	rg_fault_inject(1);
	assert_false(rg_fault_fired());
	p = rg_slab_alloc(c);
	assert_null(p);
	assert_int_equal(errno, ENOMEM);
	assert_true(rg_fault_fired());
	p = rg_slab_alloc(c);
	assert_non_null(p);
	rg_slab_free(c, p);
	rg_fault_inject(0);
	assert_int_equal(rg_slab_destroy(c), 0);
}

/* Expect validation to fail with exactly @why. */
static void expect_ida_invalid(struct rg_ida *ida, const char *why)
{
	const char *reason = NULL;

	assert_int_equal(rg_ida_validate(ida, &reason), -EINVAL);
	assert_non_null(reason);
	assert_string_equal(reason, why);
}

static void expect_ida_valid(struct rg_ida *ida)
{
	const char *reason = NULL;

	assert_int_equal(rg_ida_validate(ida, &reason), 0);
}

/*
 * The IDA's chunks live in its public xarray: entries stored there behind
 * its back are what a stray write would leave, and validate must name them.
 */
static void test_ida_validate_catches_corruption(void **state)
{
	static unsigned long fake_bitmap[RG_IDA_BITMAP_BITS / 64]
		__attribute__((aligned(64)));
	RG_DEFINE_IDA(ida);
	unsigned int id;
	struct rg_xa_state keep;

	(void)state;
	for (int i = 0; i < 3; i++)
		assert_int_equal(rg_ida_alloc(&ida, &id), 0);
	expect_ida_valid(&ida);

	/* A value chunk with no ID in it. */
	assert_int_equal(rg_xa_store(&ida.xa, 5, rg_xa_mk_value(0), NULL), 0);
	expect_ida_invalid(&ida, "empty value chunk not released");
	rg_xa_erase(&ida.xa, 5);
	expect_ida_valid(&ida);

	/* A value chunk that is not marked as having free IDs. */
	assert_int_equal(rg_xa_store(&ida.xa, 5, rg_xa_mk_value(1), NULL), 0);
	/* (a new entry starts unmarked; the IDA sets the mark itself) */
	expect_ida_invalid(&ida, "value chunk without the free mark");
	rg_xa_erase(&ida.xa, 5);
	expect_ida_valid(&ida);

	/* A chunk past the last ID. */
	assert_int_equal(rg_xa_store(&ida.xa, (RG_IDA_MAX / 1024UL) + 1,
				     rg_xa_mk_value(1), NULL),
			 0);
	expect_ida_invalid(&ida, "chunk beyond INT_MAX");
	rg_xa_erase(&ida.xa, (RG_IDA_MAX / 1024UL) + 1);
	expect_ida_valid(&ida);

	/* A pointer that cannot be a bitmap, then an empty "bitmap". */
	assert_int_equal(rg_xa_store(&ida.xa, 6, (char *)fake_bitmap + 4, NULL),
			 0);
	expect_ida_invalid(&ida, "chunk is not a bitmap pointer");
	assert_int_equal(rg_xa_store(&ida.xa, 6, fake_bitmap, NULL), 0);
	expect_ida_invalid(&ida, "empty bitmap chunk not released");
	/* A bitmap with free IDs but without the free mark. */
	fake_bitmap[0] = 1;
	expect_ida_invalid(&ida, "free mark disagrees with bitmap");
	rg_xa_erase(&ida.xa, 6);
	expect_ida_valid(&ida);

	/* The array's flags and the cached hint. */
	ida.xa.flags = RG_XA_FLAGS_ALLOC1;
	expect_ida_invalid(&ida, "IDA xarray is not a plain allocating array");
	ida.xa.flags = RG_XA_FLAGS_ALLOC;
	expect_ida_valid(&ida);
	keep = ida.hint;
	ida.hint.xa = &ida.xa;
	ida.hint.xa_index = 0;
	ida.hint.xa_node = RG_XAS_BOUNDS;
	expect_ida_invalid(&ida, "cached slot is stale");
	ida.hint = keep;
	expect_ida_valid(&ida);

	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(rg_ida_free(&ida, i), 0);
	assert_true(rg_ida_is_empty(&ida));
	rg_ida_destroy(&ida);
}

static void test_ida_range_ends_before_next_chunk(void **state)
{
	RG_DEFINE_IDA(ida);
	unsigned int id;

	(void)state;
	/* Chunk 0 full: the lowest candidate is 1024, past max. */
	for (unsigned int i = 0; i < RG_IDA_BITMAP_BITS; i++) {
		assert_int_equal(rg_ida_alloc(&ida, &id), 0);
		assert_int_equal(id, i);
	}
	id = 12345;
	assert_int_equal(rg_ida_alloc_range(&ida, 100, 1023, &id), -ENOSPC);
	assert_int_equal(id, 12345);
	expect_ida_valid(&ida);
	assert_int_equal(rg_ida_alloc_range(&ida, 100, 1024, &id), 0);
	assert_int_equal(id, 1024);
	assert_false(rg_ida_exists(&ida, RG_IDA_MAX + 1U));
	assert_false(rg_ida_exists(&ida, UINT_MAX));
	rg_ida_destroy(&ida);
	assert_true(rg_ida_is_empty(&ida));
}

/* Paused and exhausted iteration at both ends of the index space. */
static void test_maple_iteration_ends(void **state)
{
	static int a, b, c;
	struct rg_maple_tree mt;

	(void)state;
	cov_maple_three(&mt, &a, &b, &c, ULONG_MAX);

	rg_mtree_lock(&mt);
	{
		RG_MA_STATE(mas, &mt, 60, 60);

		/* Paused on the last range: nothing after it, twice. */
		assert_ptr_equal(rg_mas_walk(&mas), &c);
		rg_mas_pause(&mas);
		assert_null(rg_mas_next(&mas, ULONG_MAX));
		assert_int_equal(mas.status, RG_MAS_OVERFLOW);
		assert_null(rg_mas_next(&mas, ULONG_MAX));
		assert_int_equal(mas.status, RG_MAS_OVERFLOW);
	}
	{
		RG_MA_STATE(mas, &mt, 5, 5);

		/* Paused on the first range: nothing before it, twice. */
		assert_ptr_equal(rg_mas_walk(&mas), &a);
		rg_mas_pause(&mas);
		assert_null(rg_mas_prev(&mas, 0));
		assert_int_equal(mas.status, RG_MAS_UNDERFLOW);
		assert_null(rg_mas_prev(&mas, 0));
		assert_int_equal(mas.status, RG_MAS_UNDERFLOW);
		/* From the underflow, forward reads the range at index first. */
		assert_ptr_equal(rg_mas_next(&mas, ULONG_MAX), &a);
		assert_int_equal(mas.index, 0);
		assert_int_equal(mas.last, 9);
		assert_ptr_equal(rg_mas_next(&mas, ULONG_MAX), &b);
		assert_int_equal(mas.index, 30);
		assert_int_equal(mas.last, 39);
	}
	{
		RG_MA_STATE(mas, &mt, 35, 35);

		/* Paused, backwards with a floor above the previous range. */
		assert_ptr_equal(rg_mas_walk(&mas), &b);
		rg_mas_pause(&mas);
		assert_null(rg_mas_prev(&mas, 20));
		assert_int_equal(mas.status, RG_MAS_UNDERFLOW);
	}
	{
		RG_MA_STATE(mas, &mt, 35, 35);

		/* The range before it ends below the floor. */
		assert_ptr_equal(rg_mas_walk(&mas), &b);
		rg_mas_pause(&mas);
		assert_null(rg_mas_prev(&mas, 30));
		assert_int_equal(mas.status, RG_MAS_UNDERFLOW);
	}
	rg_mtree_unlock(&mt);
	rg_mtree_destroy(&mt);
}

/* rg_mas_find() and rg_mas_find_rev() resumed after a pause. */
static void test_maple_find_after_pause(void **state)
{
	static int a, b, c;
	struct rg_maple_tree mt;

	(void)state;
	cov_maple_three(&mt, &a, &b, &c, 59);

	rg_mtree_lock(&mt);
	{
		RG_MA_STATE(mas, &mt, 0, 0);

		/* Forward: each pause resumes after the range found. */
		assert_ptr_equal(rg_mas_find(&mas, ULONG_MAX), &a);
		rg_mas_pause(&mas);
		assert_ptr_equal(rg_mas_find(&mas, ULONG_MAX), &b);
		assert_int_equal(mas.index, 30);
		assert_int_equal(mas.last, 39);
		rg_mas_pause(&mas);
		/* A limit inside the paused range: nothing more. */
		assert_null(rg_mas_find(&mas, 35));
	}
	{
		RG_MA_STATE(mas, &mt, 59, 59);

		/* Backward: each pause resumes before the range found. */
		assert_ptr_equal(rg_mas_find_rev(&mas, 0), &c);
		rg_mas_pause(&mas);
		assert_ptr_equal(rg_mas_find_rev(&mas, 0), &b);
		rg_mas_pause(&mas);
		assert_ptr_equal(rg_mas_find_rev(&mas, 0), &a);
		assert_int_equal(mas.index, 0);
		rg_mas_pause(&mas);
		assert_null(rg_mas_find_rev(&mas, 0));
		assert_int_equal(mas.status, RG_MAS_UNDERFLOW);
		assert_null(rg_mas_find_rev(&mas, 0));
		assert_int_equal(mas.status, RG_MAS_UNDERFLOW);
		/* Forward from the underflow: the range at index first. */
		assert_ptr_equal(rg_mas_find(&mas, ULONG_MAX), &a);
		assert_ptr_equal(rg_mas_find(&mas, ULONG_MAX), &b);
	}
	rg_mtree_unlock(&mt);
	rg_mtree_destroy(&mt);
}

/* An allocation tree whose only entry is index 0, held in the root. */
static void test_maple_alloc_beside_root_entry(void **state)
{
	static int a, b;
	struct rg_maple_tree mt;
	unsigned long start = 777;

	(void)state;
	assert_int_equal(rg_mtree_init(&mt, RG_MT_FLAGS_ALLOC_RANGE), 0);
	assert_int_equal(rg_mtree_store(&mt, 0, &a), 0);
	assert_int_equal(rg_mtree_alloc_range(&mt, &start, &b, 1, 0, 0),
			 -EBUSY);
	assert_int_equal(rg_mtree_alloc_range(&mt, &start, &b, 6, 0, 5),
			 -EBUSY);
	assert_int_equal(start, 777);
	assert_int_equal(rg_mtree_validate(&mt, NULL), 0);
	assert_int_equal(rg_mtree_alloc_range(&mt, &start, &b, 5, 0, 5), 0);
	assert_int_equal(start, 1);
	assert_ptr_equal(rg_mtree_load(&mt, 0), &a);
	assert_ptr_equal(rg_mtree_load(&mt, 5), &b);
	assert_int_equal(rg_mtree_validate(&mt, NULL), 0);
	rg_mtree_destroy(&mt);
}

/* The aligned zero-area search agrees with the naive one everywhere. */
static void test_bitmap_zero_area_vs_naive(void **state)
{
	RG_DECLARE_BITMAP(map, 256);
	struct rg_rand rng;

	(void)state;
	rg_rand_seed(&rng, rg_test_seed());
	for (int round = 0; round < (RG_THOROUGH ? 4000 : 20000); round++) {
		unsigned long size = 1 + rg_rand_below(&rng, 256);
		unsigned long density = rg_rand_below(&rng, 8);

		memset(map, 0, sizeof(map));
		for (unsigned long i = 0; i < size; i++)
			if (rg_rand_below(&rng, 8) < density)
				rg_bitmap_set(map, i);
		for (int q = 0; q < 8; q++) {
			unsigned long start = rg_rand_below(&rng, size + 1);
			unsigned long nr = 1 + rg_rand_below(&rng, 24);
			unsigned long mask =
				(1UL << rg_rand_below(&rng, 5)) - 1;
			unsigned long off = rg_rand_below(&rng, 8);

			assert_int_equal(
				rg_bitmap_find_next_zero_area_off(
					map, size, start, nr, mask, off),
				rg_bitmap_find_next_zero_area_naive(
					map, size, start, nr, mask, off));
		}
	}
}

static void test_bitmap_dump_lines(void **state)
{
	RG_DECLARE_BITMAP(map, 128);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int lines = 0;

	(void)state;
	memset(map, 0, sizeof(map));
	/* 9 runs: 8 on the first line, the ninth on the second. */
	for (unsigned long i = 0; i < 9; i++)
		rg_bitmap_set(map, i * 10);
	rg_bitmap_set_range(map, 100, 5);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	rg_bitmap_dump(map, 128, f);
	fclose(f);
	for (size_t i = 0; i < len; i++)
		lines += buf[i] == '\n';
	assert_int_equal(lines, 3);
	assert_non_null(strstr(buf, "weight=14"));
	assert_non_null(strstr(buf, "  0 10 20 30 40 50 60 70\n"));
	assert_non_null(strstr(buf, "  80 100-104\n"));
	free(buf);
}

/*
 * Debug caches: a write just before an object (its left red zone) and a
 * free of a pointer into a slab's header are reported, and the offending
 * free is ignored, so the cache stays valid.
 */
static void test_slab_debug_reports(void **state)
{
	struct rg_slab_cache *c = rg_slab_create(
		"cov-debug", 48, 0, RG_SLAB_RED_ZONE | RG_SLAB_CHECK, NULL);
	struct rg_slab_stats st;
	struct cov_reports r = { 0 };
	unsigned char *p;
	char *header;

	(void)state;
	assert_non_null(c);
	rg_slab_set_report_hook(cov_note_report, &r);
	p = rg_slab_alloc(c);
	assert_non_null(p);
	p[-1] ^= 0xff;
	rg_slab_free(c, p);
	assert_int_equal(r.n, 1);
	assert_ptr_equal(r.obj, p);
	assert_string_equal(r.what, "red zone overwritten");
	p[-1] ^= 0xff;

	/* The slab of an object is its address rounded down to 64 KiB+. */
	header = (char *)((uintptr_t)p & ~(uintptr_t)((64UL << 10) - 1));
	rg_slab_free(c, header + 8);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.what, "pointer not from cache");
	assert_int_equal(rg_slab_validate(c, NULL), 0);
	assert_int_equal(rg_slab_get_stats(c, &st), 0);
	assert_int_equal(st.objects_in_use, 1);

	rg_slab_free(c, p);
	assert_int_equal(r.n, 2);
	rg_slab_set_report_hook(NULL, NULL);
	assert_int_equal(rg_slab_destroy(c), 0);
}

/* Constructors fail cleanly at every allocation they make. */
static void test_region_create_under_faults(void **state)
{
	(void)state;
	for (unsigned int b = 0; b < RG_REGION_NR_BACKENDS; b++) {
		struct rg_region *r = NULL;
		unsigned long n;
		int err;

		RG_FAULT_LOOP(n, err,
			      RG_PTR_ERR(r = rg_region_create_backend(
						 b, 5000, RG_REGION_LOCKED)),
			      (void)0);
		assert_int_equal(err, 0);
		assert_non_null(r);
		assert_int_equal(rg_region_validate(r, NULL), 0);
		rg_region_destroy(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_before_first_use),
		cmocka_unit_test(test_fault_counters),
		cmocka_unit_test(test_ida_validate_catches_corruption),
		cmocka_unit_test(test_ida_range_ends_before_next_chunk),
		cmocka_unit_test(test_maple_iteration_ends),
		cmocka_unit_test(test_maple_find_after_pause),
		cmocka_unit_test(test_maple_alloc_beside_root_entry),
		cmocka_unit_test(test_bitmap_zero_area_vs_naive),
		cmocka_unit_test(test_bitmap_dump_lines),
		cmocka_unit_test(test_slab_debug_reports),
		cmocka_unit_test(test_region_create_under_faults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
