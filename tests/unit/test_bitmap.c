// SPDX-License-Identifier: MIT
/*
 * Unit tests of every bitmap call, the kernel-name wrappers and their bad
 * input: empty ranges, positions at or past the size, zero-length and
 * oversized zero-area requests, alignment masks and offsets (including ones
 * that wrap), and the kernel's find_free_region example; then the whole-map
 * calls (equal, fill, copy, complement, replace, shifts, cut, scatter and
 * gather) at every size around word
 * boundaries, with shifts at and past the size, cuts at both ends and
 * overlapping destinations, guard words that must stay untouched, the rank
 * search, every iterator (wrap from every start), the clump search, the
 * u32/u64 array conversions for every size 0 .. 320, and reads and writes of
 * values at every start and width.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "rg_test.h"

#include "region/bitmap.h"
#include "region/linux/bitmap.h"

#define BPL RG_BITS_PER_LONG

static void test_single_bits(void **state)
{
	RG_DECLARE_BITMAP(map, 200);

	(void)state;
	memset(map, 0, sizeof(map));
	assert_int_equal(sizeof(map), RG_BITS_TO_LONGS(200) * sizeof(long));
	for (unsigned long i = 0; i < 200; i += 3)
		rg_bitmap_set(map, i);
	for (unsigned long i = 0; i < 200; i++)
		assert_int_equal(rg_bitmap_test(map, i), i % 3 == 0);
	rg_bitmap_clear(map, 63);
	rg_bitmap_clear(map, 0);
	assert_false(rg_bitmap_test(map, 63));
	assert_false(rg_bitmap_test(map, 0));
	assert_true(rg_bitmap_test(map, 66));
	assert_int_equal(rg_bitmap_weight(map, 200), 67 - 2);
	assert_int_equal(rg_bitmap_validate(map, 200, NULL), 0);
}

static void test_ranges(void **state)
{
	RG_DECLARE_BITMAP(map, 300);
	const char *why;

	(void)state;
	memset(map, 0, sizeof(map));
	rg_bitmap_set_range(map, 5, 0); /* empty: no change */
	assert_int_equal(rg_bitmap_weight(map, 300), 0);
	rg_bitmap_set_range(map, 60, 10); /* crosses a word */
	for (unsigned long i = 0; i < 300; i++)
		assert_int_equal(rg_bitmap_test(map, i), i >= 60 && i < 70);
	rg_bitmap_set_range(map, 3, 1);
	rg_bitmap_set_range(map, 64, 192); /* whole words */
	assert_int_equal(rg_bitmap_weight(map, 300), 1 + 4 + 192);
	assert_true(rg_bitmap_range_is_set(map, 60, 196));
	assert_false(rg_bitmap_range_is_set(map, 59, 2));
	assert_true(rg_bitmap_range_is_set(map, 0, 0));
	assert_true(rg_bitmap_range_is_clear(map, 0, 3));
	assert_false(rg_bitmap_range_is_clear(map, 0, 4));
	assert_true(rg_bitmap_range_is_clear(map, 256, 44));
	assert_true(rg_bitmap_range_is_clear(map, 3, 0));
	rg_bitmap_clear_range(map, 61, 194);
	assert_true(rg_bitmap_test(map, 60));
	assert_true(rg_bitmap_test(map, 255));
	assert_int_equal(rg_bitmap_weight(map, 300), 3);
	rg_bitmap_clear_range(map, 0, 300);
	assert_int_equal(rg_bitmap_weight(map, 300), 0);
	rg_bitmap_set_range(map, 0, 300);
	assert_int_equal(rg_bitmap_weight(map, 300), 300);
	/* Never a tail bit. */
	assert_int_equal(rg_bitmap_validate(map, 300, &why), 0);
	assert_null(why);
	assert_int_equal(rg_bitmap_weight(map, 299), 299);
	assert_int_equal(rg_bitmap_weight(map, 0), 0);
	rg_bitmap_set_range(map, 0, 300);
	/* A tail bit makes the map invalid. */
	map[300 / BPL] |= 1UL << (300 % BPL);
	assert_int_equal(rg_bitmap_validate(map, 300, &why), -EINVAL);
	assert_non_null(why);
	assert_int_equal(rg_bitmap_weight(map, 300), 300);
	assert_int_equal(rg_bitmap_validate(NULL, 10, &why), -EINVAL);
	assert_int_equal(rg_bitmap_validate(NULL, 0, &why), 0);
}

static void test_find_bits(void **state)
{
	RG_DECLARE_BITMAP(map, 200);

	(void)state;
	memset(map, 0, sizeof(map));
	assert_int_equal(rg_bitmap_find_next_bit(map, 200, 0), 200);
	assert_int_equal(rg_bitmap_find_first_bit(map, 200), 200);
	assert_int_equal(rg_bitmap_find_last_bit(map, 200), 200);
	assert_int_equal(rg_bitmap_find_last_bit(map, 0), 0);
	assert_int_equal(rg_bitmap_find_first_zero_bit(map, 200), 0);
	rg_bitmap_set(map, 70);
	rg_bitmap_set(map, 130);
	rg_bitmap_set(map, 199);
	assert_int_equal(rg_bitmap_find_next_bit(map, 200, 0), 70);
	assert_int_equal(rg_bitmap_find_next_bit(map, 200, 70), 70);
	assert_int_equal(rg_bitmap_find_next_bit(map, 200, 71), 130);
	assert_int_equal(rg_bitmap_find_next_bit(map, 200, 131), 199);
	assert_int_equal(rg_bitmap_find_next_bit(map, 199, 131), 199);
	assert_int_equal(rg_bitmap_find_next_bit(map, 130, 71), 130);
	/* offset at or past the size gives the size */
	assert_int_equal(rg_bitmap_find_next_bit(map, 200, 200), 200);
	assert_int_equal(rg_bitmap_find_next_bit(map, 200, 1000), 200);
	assert_int_equal(rg_bitmap_find_next_zero_bit(map, 200, 500), 200);
	assert_int_equal(rg_bitmap_find_last_bit(map, 200), 199);
	assert_int_equal(rg_bitmap_find_last_bit(map, 199), 130);
	assert_int_equal(rg_bitmap_find_last_bit(map, 130), 70);
	assert_int_equal(rg_bitmap_find_last_bit(map, 70), 70);
	rg_bitmap_set_range(map, 0, 200);
	assert_int_equal(rg_bitmap_find_next_zero_bit(map, 200, 0), 200);
	rg_bitmap_clear(map, 128);
	assert_int_equal(rg_bitmap_find_next_zero_bit(map, 200, 0), 128);
	assert_int_equal(rg_bitmap_find_next_zero_bit(map, 200, 128), 128);
	assert_int_equal(rg_bitmap_find_next_zero_bit(map, 200, 129), 200);
	assert_int_equal(rg_bitmap_find_next_zero_bit(map, 128, 0), 128);
	assert_int_equal(rg_bitmap_find_first_zero_bit(map, 100), 100);
	assert_int_equal(rg_bitmap_find_last_bit(map, 1), 0);
}

typedef unsigned long (*area_fn)(const unsigned long *, unsigned long,
				 unsigned long, unsigned long, unsigned long,
				 unsigned long);

static void check_area_cases(area_fn fn)
{
	RG_DECLARE_BITMAP(map, 256);

	memset(map, 0, sizeof(map));
	/* empty map */
	assert_int_equal(fn(map, 256, 0, 1, 0, 0), 0);
	assert_int_equal(fn(map, 256, 0, 256, 0, 0), 0);
	assert_int_equal(fn(map, 256, 1, 256, 0, 0), 256);
	assert_int_equal(fn(map, 256, 255, 1, 0, 0), 255);
	/* bad input: nr 0, nr > size, start >= size */
	assert_int_equal(fn(map, 256, 0, 0, 0, 0), 256);
	assert_int_equal(fn(map, 256, 0, 257, 0, 0), 256);
	assert_int_equal(fn(map, 256, 256, 1, 0, 0), 256);
	assert_int_equal(fn(map, 256, ~0UL, 1, 0, 0), 256);
	assert_int_equal(fn(map, 256, 0, ~0UL, 0, 0), 256);
	assert_int_equal(fn(map, 0, 0, 1, 0, 0), 0);
	/* alignment: mask 7 */
	assert_int_equal(fn(map, 256, 1, 4, 7, 0), 8);
	assert_int_equal(fn(map, 256, 8, 4, 7, 0), 8);
	/* offset: (i + 3) % 8 == 0 gives 5 */
	assert_int_equal(fn(map, 256, 0, 4, 7, 3), 5);
	/* an offset that wraps: i + ~0UL == i - 1, so i - 1 % 8 == 0: i = 1 */
	assert_int_equal(fn(map, 256, 0, 4, 7, ~0UL), 1);
	/* aligned index past the end */
	assert_int_equal(fn(map, 256, 250, 4, 7, 0), 256);
	assert_int_equal(fn(map, 256, 249, 4, 7, 0), 256);
	assert_int_equal(fn(map, 256, 248, 8, 7, 0), 248);
	/* a mask that is not 2^k - 1: bits 1 and 4 clear in i */
	assert_int_equal(fn(map, 256, 2, 1, 0x12, 0), 4);
	assert_int_equal(fn(map, 256, 6, 1, 0x12, 0), 8);
	assert_int_equal(fn(map, 256, 14, 1, 0x12, 0), 32);
	/* a huge mask: only i with (i & mask) == 0, i.e. 0 */
	assert_int_equal(fn(map, 256, 0, 1, ~0UL, 0), 0);
	assert_int_equal(fn(map, 256, 1, 1, ~0UL, 0), 256);

	/* blocked windows */
	rg_bitmap_set(map, 3);
	rg_bitmap_set(map, 10);
	rg_bitmap_set_range(map, 60, 10);
	assert_int_equal(fn(map, 256, 0, 3, 0, 0), 0);
	assert_int_equal(fn(map, 256, 0, 4, 0, 0), 4);
	assert_int_equal(fn(map, 256, 0, 7, 0, 0), 11);
	assert_int_equal(fn(map, 256, 0, 49, 0, 0), 11);
	assert_int_equal(fn(map, 256, 0, 50, 0, 0), 70);
	assert_int_equal(fn(map, 256, 0, 186, 0, 0), 70);
	assert_int_equal(fn(map, 256, 0, 187, 0, 0), 256);
	assert_int_equal(fn(map, 256, 0, 4, 3, 0), 4);
	assert_int_equal(fn(map, 256, 0, 8, 7, 0), 16);
	assert_int_equal(fn(map, 256, 0, 8, 63, 0), 128);
	assert_int_equal(fn(map, 256, 0, 8, 63, 1), 127);
	assert_int_equal(fn(map, 256, 0, 64, 63, 0), 128);
	assert_int_equal(fn(map, 256, 0, 129, 63, 0), 256);
	/* full map */
	rg_bitmap_set_range(map, 0, 256);
	assert_int_equal(fn(map, 256, 0, 1, 0, 0), 256);
	rg_bitmap_clear(map, 255);
	assert_int_equal(fn(map, 256, 0, 1, 0, 0), 255);
	assert_int_equal(fn(map, 256, 0, 2, 0, 0), 256);
	assert_int_equal(fn(map, 255, 0, 1, 0, 0), 255);
}

static void test_zero_area(void **state)
{
	(void)state;
	check_area_cases(rg_bitmap_find_next_zero_area_off);
	check_area_cases(rg_bitmap_find_next_zero_area_naive);
}

static void test_zero_area_inline(void **state)
{
	RG_DECLARE_BITMAP(map, 100);

	(void)state;
	memset(map, 0, sizeof(map));
	rg_bitmap_set(map, 2);
	assert_int_equal(rg_bitmap_find_next_zero_area(map, 100, 0, 4, 3), 4);
	assert_int_equal(bitmap_find_next_zero_area(map, 100, 0, 4, 3), 4);
	assert_int_equal(bitmap_find_next_zero_area_off(map, 100, 0, 4, 3, 1),
			 3);
	assert_int_equal(bitmap_find_next_zero_area(map, 100, 0, 0, 0), 100);
}

static void test_free_region_example(void **state)
{
	RG_DECLARE_BITMAP(map, 1000);
	unsigned long pos, expect[] = { 0, 2, 4, 8, 16, 32, 64, 128, 256 };

	(void)state;
	memset(map, 0, sizeof(map));
	for (unsigned int order = 0; order <= 8; order++) {
		assert_int_equal(
			rg_bitmap_find_free_region(map, 1000, order, &pos), 0);
		assert_int_equal(pos, expect[order]);
		assert_true(rg_bitmap_range_is_set(map, pos, 1UL << order));
	}
	pos = 12345;
	assert_int_equal(rg_bitmap_find_free_region(map, 1000, 9, &pos),
			 -ENOMEM);
	assert_int_equal(pos, 12345);
	/* bits 0..1, 2..3, 4..7 ... 256..511 taken: 1 + 2 + ... + 256 = 511 */
	assert_int_equal(rg_bitmap_weight(map, 1000), 511);
	assert_int_equal(rg_bitmap_find_free_region(
				 map, 1000, RG_BITMAP_MAX_ORDER + 1, &pos),
			 -EINVAL);
	/* order 0 fills the hole at 1 */
	assert_int_equal(rg_bitmap_find_free_region(map, 1000, 0, &pos), 0);
	assert_int_equal(pos, 1);
	/* 512 .. 999: an order-8 block fits at 512, then 768 + 256 > 1000 */
	assert_int_equal(rg_bitmap_find_free_region(map, 1000, 8, &pos), 0);
	assert_int_equal(pos, 512);
	assert_int_equal(rg_bitmap_find_free_region(map, 1000, 8, &pos),
			 -ENOMEM);
	assert_int_equal(rg_bitmap_validate(map, 1000, NULL), 0);
}

static void test_allocate_release_region(void **state)
{
	RG_DECLARE_BITMAP(map, 256);

	(void)state;
	memset(map, 0, sizeof(map));
	assert_int_equal(rg_bitmap_allocate_region(map, 16, 4), 0);
	assert_true(rg_bitmap_range_is_set(map, 16, 16));
	assert_int_equal(rg_bitmap_weight(map, 256), 16);
	assert_int_equal(rg_bitmap_allocate_region(map, 16, 4), -EBUSY);
	assert_int_equal(rg_bitmap_allocate_region(map, 31, 0), -EBUSY);
	assert_int_equal(rg_bitmap_allocate_region(map, 0, 5), -EBUSY);
	assert_int_equal(rg_bitmap_weight(map, 256), 16);
	/* unaligned positions are allowed, as in the kernel */
	assert_int_equal(rg_bitmap_allocate_region(map, 33, 1), 0);
	assert_int_equal(rg_bitmap_weight(map, 256), 18);
	assert_int_equal(
		rg_bitmap_allocate_region(map, 0, RG_BITMAP_MAX_ORDER + 1),
		-EINVAL);
	assert_int_equal(rg_bitmap_allocate_region(map, ~0UL, 1), -EINVAL);
	rg_bitmap_release_region(map, 16, 4);
	assert_int_equal(rg_bitmap_weight(map, 256), 2);
	rg_bitmap_release_region(map, 0, RG_BITMAP_MAX_ORDER + 1); /* no-op */
	rg_bitmap_release_region(map, ~0UL, 3); /* no-op */
	assert_int_equal(rg_bitmap_weight(map, 256), 2);
	rg_bitmap_release_region(map, 32, 2);
	assert_int_equal(rg_bitmap_weight(map, 256), 0);
}

static void test_zalloc(void **state)
{
	unsigned long *map;

	(void)state;
	map = rg_bitmap_zalloc(1000);
	assert_non_null(map);
	assert_int_equal(rg_bitmap_weight(map, 1000), 0);
	assert_int_equal(rg_bitmap_validate(map, 1000, NULL), 0);
	rg_bitmap_set(map, 999);
	rg_bitmap_free(map);
	map = rg_bitmap_zalloc(0);
	assert_non_null(map);
	rg_bitmap_free(map);
	rg_bitmap_free(NULL);
	/* the allocation honours fault injection */
	rg_fault_inject(1);
	errno = 0;
	assert_null(rg_bitmap_zalloc(64));
	assert_int_equal(errno, ENOMEM);
	assert_true(rg_fault_fired());
	rg_fault_inject(0);
}

static void test_dump(void **state)
{
	RG_DECLARE_BITMAP(map, 300);
	char buf[512];
	FILE *f;

	(void)state;
	memset(map, 0, sizeof(map));
	rg_bitmap_set(map, 1);
	rg_bitmap_set_range(map, 60, 10);
	rg_bitmap_set(map, 299);
	f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	rg_bitmap_dump(map, 300, f);
	fclose(f);
	assert_string_equal(buf, "bitmap nbits=300 weight=12\n  1 60-69 299\n");
}

static void test_linux_names(void **state)
{
	DECLARE_BITMAP(map, 1000);
	unsigned long *z;

	(void)state;
	assert_int_equal(BITS_TO_LONGS(65), 2);
	assert_int_equal(BITS_PER_LONG, 8 * sizeof(long));
	bitmap_zero(map, 1000);
	assert_true(bitmap_empty(map, 1000));
	set_bit(3, map);
	__set_bit(5, map);
	assert_true(test_bit(3, map));
	assert_true(test_bit(5, map));
	assert_false(test_bit(4, map));
	assert_true(test_and_set_bit(3, map));
	assert_false(test_and_set_bit(4, map));
	assert_true(test_and_clear_bit(4, map));
	assert_false(__test_and_set_bit(6, map));
	assert_true(__test_and_clear_bit(6, map));
	change_bit(7, map);
	__change_bit(8, map);
	assert_int_equal(bitmap_weight(map, 1000), 4);
	clear_bit(3, map);
	__clear_bit(5, map);
	clear_bit(7, map);
	clear_bit(8, map);
	assert_true(bitmap_empty(map, 1000));
	bitmap_set(map, 100, 50);
	assert_int_equal(find_first_bit(map, 1000), 100);
	assert_int_equal(find_next_bit(map, 1000, 120), 120);
	assert_int_equal(find_next_zero_bit(map, 1000, 100), 150);
	assert_int_equal(find_first_zero_bit(map, 1000), 0);
	assert_int_equal(find_last_bit(map, 1000), 149);
	bitmap_clear(map, 100, 50);
	assert_int_equal(find_last_bit(map, 1000), 1000);
	for (int order = 0; order <= 8; order++)
		assert_int_equal(bitmap_find_free_region(map, 1000, order),
				 order ? 1 << order : 0);
	assert_int_equal(bitmap_find_free_region(map, 1000, 9), -ENOMEM);
	assert_int_equal(bitmap_find_free_region(map, 1000, -1), -ENOMEM);
	assert_int_equal(bitmap_allocate_region(map, 512, 3), 0);
	assert_int_equal(bitmap_allocate_region(map, 512, 3), -EBUSY);
	bitmap_release_region(map, 512, 3);
	assert_int_equal(bitmap_allocate_region(map, 512, 3), 0);
	assert_false(bitmap_full(map, 1000));
	bitmap_set(map, 0, 1000);
	assert_true(bitmap_full(map, 1000));
	z = bitmap_zalloc(77, 0);
	assert_non_null(z);
	assert_true(bitmap_empty(z, 77));
	bitmap_free(z);
}

/*
 * Every call with NULL for each pointer argument: the common.h policy. A
 * NULL map of 0 bits is a valid empty bitmap; of more bits it is bad input.
 */
static void regress_bitmap_null_arguments(void **state)
{
	RG_DECLARE_BITMAP(map, 200);
	const char *why = "x";
	unsigned long pos;

	(void)state;
	memset(map, 0, sizeof(map));
	rg_bitmap_set_range(map, 10, 5);
	RG_EXPECT_NULL_RET(rg_bitmap_test(NULL, 3), false);
	RG_EXPECT_NULL_VOID(rg_bitmap_set(NULL, 3));
	RG_EXPECT_NULL_VOID(rg_bitmap_clear(NULL, 3));
	RG_EXPECT_NULL_VOID(rg_bitmap_set_range(NULL, 0, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_clear_range(NULL, 0, 100));
	RG_EXPECT_NULL_RET(rg_bitmap_range_is_clear(NULL, 0, 100), false);
	RG_EXPECT_NULL_RET(rg_bitmap_range_is_set(NULL, 0, 100), false);
	RG_EXPECT_NULL_RET(rg_bitmap_weight(NULL, 100), 0);
	RG_EXPECT_NULL_RET(rg_bitmap_find_next_bit(NULL, 100, 0), 100);
	RG_EXPECT_NULL_RET(rg_bitmap_find_next_zero_bit(NULL, 100, 0), 100);
	RG_EXPECT_NULL_RET(rg_bitmap_find_first_bit(NULL, 100), 100);
	RG_EXPECT_NULL_RET(rg_bitmap_find_first_zero_bit(NULL, 100), 100);
	RG_EXPECT_NULL_RET(rg_bitmap_find_last_bit(NULL, 100), 100);
	RG_EXPECT_NULL_RET(rg_bitmap_find_next_zero_area(NULL, 100, 0, 4, 0),
			   100);
	RG_EXPECT_NULL_RET(
		rg_bitmap_find_next_zero_area_off(NULL, 100, 0, 4, 3, 1), 100);
	RG_EXPECT_NULL_RET(
		rg_bitmap_find_next_zero_area_naive(NULL, 100, 0, 4, 3, 1),
		100);
	RG_EXPECT_NULL_RET(rg_bitmap_find_free_region(NULL, 100, 2, &pos),
			   -EINVAL);
	RG_EXPECT_NULL_RET(rg_bitmap_find_free_region(map, 200, 2, NULL),
			   -EINVAL);
	RG_EXPECT_NULL_RET(rg_bitmap_allocate_region(NULL, 0, 2), -EINVAL);
	RG_EXPECT_NULL_VOID(rg_bitmap_release_region(NULL, 0, 2));
	RG_EXPECT_NULL_VOID(rg_bitmap_free(NULL));
	RG_EXPECT_NULL_RET(rg_bitmap_validate(NULL, 100, &why), -EINVAL);
	RG_EXPECT_NULL_RET(rg_bitmap_validate(map, 200, NULL), 0);
	RG_EXPECT_NULL_VOID(rg_bitmap_dump(NULL, 100, stderr));
	RG_EXPECT_NULL_VOID(rg_bitmap_dump(map, 200, NULL));
	/* A NULL map of 0 bits is empty and valid. */
	assert_int_equal(rg_bitmap_validate(NULL, 0, NULL), 0);
	assert_int_equal(rg_bitmap_weight(NULL, 0), 0);
	assert_int_equal(rg_bitmap_find_next_bit(NULL, 0, 0), 0);
	assert_true(rg_bitmap_range_is_clear(NULL, 0, 0));
	/* In this process too: nothing changed. */
	assert_int_equal(rg_bitmap_find_free_region(map, 200, 2, NULL),
			 -EINVAL);
	assert_int_equal(rg_bitmap_weight(map, 200), 5);
	assert_true(rg_bitmap_range_is_set(map, 10, 5));
	assert_int_equal(rg_bitmap_validate(map, 200, NULL), 0);
}

/* A map of up to 320 bits with one guard word after it. */
#define NB 320
#define NW (RG_BITS_TO_LONGS(NB) + 1)
#define GUARD 0x5a5a5a5a5a5a5a5aUL

/* Bits of @map as a string of 0/1 for bits 0 .. n - 1 (for messages). */
static void expect_bits(const unsigned long *map, const bool *want,
			unsigned long n, const char *what)
{
	for (unsigned long i = 0; i < n; i++)
		if (rg_bitmap_test(map, i) != want[i])
			fail_msg("%s: bit %lu of %lu is %d", what, i, n,
				 rg_bitmap_test(map, i));
	if (n && rg_bitmap_validate(map, n, NULL))
		fail_msg("%s: a tail bit is set (nbits %lu)", what, n);
}

/* A pattern with runs, single bits and word-crossing stretches. */
static void pattern(unsigned long *map, bool *ref, unsigned long n,
		    unsigned long seed)
{
	memset(map, 0, NW * sizeof(long));
	for (unsigned long i = 0; i < n; i++) {
		ref[i] = ((i * 7 + seed) % 11) < 4 || (i / 13 + seed) % 5 == 0;
		if (ref[i])
			rg_bitmap_set(map, i);
	}
}

static const unsigned long sizes[] = { 1,   2,	 7,   8,   31,	32,  33,
				       63,  64,	 65,  100, 127, 128, 129,
				       191, 192, 193, 255, 256, 257, 320 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void test_equal(void **state)
{
	unsigned long a[NW], b[NW];

	(void)state;
	memset(a, 0, sizeof(a));
	memset(b, 0xff, sizeof(b));
	assert_true(rg_bitmap_equal(a, b, 0)); /* nothing to compare */
	assert_false(rg_bitmap_equal(a, b, 1));
	memset(b, 0, sizeof(b));
	for (size_t k = 0; k < NSIZES; k++) {
		unsigned long n = sizes[k];

		assert_true(rg_bitmap_equal(a, b, n));
		/* a difference at the last bit counts, one past it does not */
		rg_bitmap_set(b, n - 1);
		assert_false(rg_bitmap_equal(a, b, n));
		assert_true(rg_bitmap_equal(a, b, n - 1));
		rg_bitmap_clear(b, n - 1);
		rg_bitmap_set(b, n);
		assert_true(rg_bitmap_equal(a, b, n));
		assert_false(rg_bitmap_equal(a, b, n + 1));
		rg_bitmap_clear(b, n);
		rg_bitmap_set(b, 0);
		assert_false(rg_bitmap_equal(a, b, n));
		rg_bitmap_clear(b, 0);
	}
	/* kernel names */
	rg_bitmap_set(b, 70);
	assert_true(bitmap_equal(a, b, 70));
	assert_false(bitmap_equal(a, b, 71));
	assert_false(__bitmap_equal(a, b, 71));
}

static void test_fill_copy(void **state)
{
	unsigned long a[NW], b[NW];
	bool want[NB];

	(void)state;
	for (size_t k = 0; k < NSIZES; k++) {
		unsigned long n = sizes[k], words = RG_BITS_TO_LONGS(n);

		for (unsigned long w = 0; w < NW; w++)
			a[w] = GUARD;
		rg_bitmap_fill(a, n);
		for (unsigned long i = 0; i < n; i++)
			want[i] = true;
		expect_bits(a, want, n, "fill");
		assert_int_equal(rg_bitmap_weight(a, words * BPL), n);
		assert_int_equal(a[words], GUARD); /* next word untouched */

		/* copy: every bit, the tail cleared, nothing past it */
		pattern(b, want, n, k);
		b[words - 1] |= ~0UL << 1 << ((n - 1) % BPL); /* tail garbage */
		for (unsigned long w = 0; w < NW; w++)
			a[w] = GUARD;
		rg_bitmap_copy(a, b, n);
		expect_bits(a, want, n, "copy");
		assert_int_equal(a[words], GUARD);
		/* in place keeps the bits and clears the tail */
		rg_bitmap_copy(b, b, n);
		expect_bits(b, want, n, "copy in place");
	}
	/* nbits 0 writes nothing */
	a[0] = GUARD;
	rg_bitmap_fill(a, 0);
	rg_bitmap_copy(a, b, 0);
	assert_int_equal(a[0], GUARD);

	/* The kernel names work on whole words, tail bits included. */
	memset(a, 0, sizeof(a));
	bitmap_fill(a, 35);
	assert_int_equal(rg_bitmap_weight(a, NB), BPL);
	memset(b, 0, sizeof(b));
	rg_bitmap_set_range(b, 0, 109);
	memset(a, 0xff, sizeof(a));
	bitmap_copy(a, b, 97); /* copies two words: bits 0..108 */
	assert_int_equal(rg_bitmap_find_next_zero_bit(a, NB, 0), 109);
	assert_int_equal(rg_bitmap_find_next_bit(a, NB, 109), 2 * BPL);
	bitmap_fill(a, 0);
	bitmap_copy(a, b, 0);
	assert_int_equal(rg_bitmap_find_next_bit(a, NB, 109), 2 * BPL);
}

static void test_set_clear_kernel_forms(void **state)
{
	unsigned long a[NW];

	(void)state;
	memset(a, 0, sizeof(a));
	__bitmap_set(a, 60, 10);
	assert_int_equal(rg_bitmap_weight(a, NB), 10);
	assert_true(rg_bitmap_range_is_set(a, 60, 10));
	__bitmap_set(a, 100, 0);
	__bitmap_set(a, 100, -5); /* a negative length does nothing */
	assert_int_equal(rg_bitmap_weight(a, NB), 10);
	__bitmap_clear(a, 62, -1);
	assert_int_equal(rg_bitmap_weight(a, NB), 10);
	__bitmap_clear(a, 62, 4);
	assert_int_equal(rg_bitmap_weight(a, NB), 6);
	assert_false(rg_bitmap_test(a, 65));
	assert_true(rg_bitmap_test(a, 66));
	assert_int_equal(BITS_PER_BYTE, 8);
	assert_int_equal(RG_BITS_PER_BYTE * sizeof(long), BITS_PER_LONG);
}

static void test_replace(void **state)
{
	unsigned long o[NW], nw[NW], m[NW], d[NW];
	bool ro[NB], rn[NB], rm[NB], want[NB];

	(void)state;
	for (size_t k = 0; k < NSIZES; k++) {
		unsigned long n = sizes[k], words = RG_BITS_TO_LONGS(n);

		pattern(o, ro, n, 1);
		pattern(nw, rn, n, 4);
		pattern(m, rm, n, 9);
		for (unsigned long i = 0; i < n; i++)
			want[i] = rm[i] ? rn[i] : ro[i];
		for (unsigned long w = 0; w < NW; w++)
			d[w] = GUARD;
		rg_bitmap_replace(d, o, nw, m, n);
		expect_bits(d, want, n, "replace");
		assert_int_equal(d[words], GUARD);
		/* the destination may be any source */
		rg_bitmap_replace(o, o, nw, m, n);
		expect_bits(o, want, n, "replace into old");
		pattern(o, ro, n, 1);
		rg_bitmap_replace(nw, o, nw, m, n);
		expect_bits(nw, want, n, "replace into new");
		pattern(nw, rn, n, 4);
		bitmap_replace(m, o, nw, m, (unsigned int)n);
		expect_bits(m, want, n, "replace into mask");
	}
	/* a single word, by value */
	o[0] = 0xf0f0;
	nw[0] = 0x0ff0;
	m[0] = 0xff00;
	rg_bitmap_replace(d, o, nw, m, 16);
	assert_int_equal(d[0], 0x0ff0); /* 0x00f0 from old, 0x0f00 from new */
}

/* Reference shift of @src (n bits) by @s, right or left. */
static void ref_shift(const bool *src, bool *out, unsigned long n,
		      unsigned long s, bool right)
{
	for (unsigned long i = 0; i < n; i++) {
		if (right)
			out[i] = s < n - i ? src[i + s] : false;
		else
			out[i] = i >= s ? src[i - s] : false;
	}
}

static void test_shifts(void **state)
{
	static const unsigned long shifts[] = { 0,   1,	  5,	31,  32,
						63,  64,  65,	100, 127,
						128, 129, 255,	256, 319,
						320, 321, 1000, ~0UL };
	unsigned long s_map[NW], d[NW];
	bool src[NB], want[NB];

	(void)state;
	for (size_t k = 0; k < NSIZES; k++) {
		unsigned long n = sizes[k], words = RG_BITS_TO_LONGS(n);

		for (size_t j = 0; j < sizeof(shifts) / sizeof(shifts[0]);
		     j++) {
			unsigned long s = shifts[j];

			for (int right = 0; right < 2; right++) {
				pattern(s_map, src, n, k + j);
				/* tail garbage in the source never shifts in */
				s_map[words - 1] |= ~0UL << 1
							 << ((n - 1) % BPL);
				ref_shift(src, want, n, s, right);
				for (unsigned long w = 0; w < NW; w++)
					d[w] = GUARD;
				if (right)
					rg_bitmap_shift_right(d, s_map, s, n);
				else
					rg_bitmap_shift_left(d, s_map, s, n);
				expect_bits(d, want, n, right ? "shr" : "shl");
				assert_int_equal(d[words], GUARD);
				/* in place */
				if (right)
					rg_bitmap_shift_right(s_map, s_map, s,
							      n);
				else
					rg_bitmap_shift_left(s_map, s_map, s,
							     n);
				expect_bits(s_map, want, n,
					    right ? "shr in place" :
						    "shl in place");
			}
		}
	}
	/* by value, and nbits 0 writes nothing */
	d[0] = 0xabcd;
	rg_bitmap_shift_right(d, d, 4, 16);
	assert_int_equal(d[0], 0xabc);
	rg_bitmap_shift_left(d, d, 8, 16);
	assert_int_equal(d[0], 0xbc00);
	bitmap_shift_right(d, d, 11, BITS_PER_LONG);
	assert_int_equal(d[0], 0x17);
	bitmap_shift_left(d, d, 60, 64);
	assert_int_equal(d[0], 0x7UL << 60);
	rg_bitmap_shift_left(d, d, 1, 0);
	rg_bitmap_shift_right(d, d, 1, 0);
	assert_int_equal(d[0], 0x7UL << 60);
}

/* Reference cut: bits below @first stay, the rest move down by @cut. */
static void ref_cut(const bool *src, bool *out, unsigned long n,
		    unsigned long first, unsigned long cut)
{
	for (unsigned long i = 0; i < n; i++) {
		if (i < first)
			out[i] = src[i];
		else
			out[i] = cut < n - i ? src[i + cut] : false;
	}
}

static void test_cut(void **state)
{
	unsigned long buf[NW + 2], *m = buf + 1;
	bool src[NB], want[NB];

	(void)state;
	/* Small cases by value. */
	m[0] = 0xaa;
	rg_bitmap_cut(m, m, 3, 3, 8);
	assert_int_equal(m[0], 0x12);
	m[0] = 0xaa;
	rg_bitmap_cut(m, m, 0, 3, 8); /* cut at the start */
	assert_int_equal(m[0], 0x15);
	m[0] = 0xaa;
	rg_bitmap_cut(m, m, 7, 1, 8); /* cut the last bit */
	assert_int_equal(m[0], 0x2a);
	m[0] = 0xaa;
	rg_bitmap_cut(m, m, 5, 100, 8); /* past the end: clears 5 and up */
	assert_int_equal(m[0], 0x0a);
	m[0] = 0xaa;
	rg_bitmap_cut(m, m, 8, 2, 8); /* first >= nbits: a copy */
	assert_int_equal(m[0], 0xaa);
	rg_bitmap_cut(m, m, 2, 0, 8); /* nothing cut */
	assert_int_equal(m[0], 0xaa);
	rg_bitmap_cut(m, m, 0, 8, 8); /* everything cut */
	assert_int_equal(m[0], 0);
	m[0] = 0xaa;
	rg_bitmap_cut(m, m, 1, 1, 0); /* nbits 0 writes nothing */
	assert_int_equal(m[0], 0xaa);

	/* Every size, first and cut at the ends and across words, with the
	 * destination separate, the same, one word below or above. */
	for (size_t k = 0; k < NSIZES; k++) {
		unsigned long n = sizes[k], words = RG_BITS_TO_LONGS(n);
		unsigned long firsts[] = { 0, 1, n / 2, n - 1, n, 63, 64, 65 };
		unsigned long cuts[] = { 0, 1, 2, 63, 64, 65, n - 1, n, n + 1 };

		for (size_t f = 0; f < 8; f++)
			for (size_t c = 0; c < 9; c++)
				for (int mode = 0; mode < 4; mode++) {
					unsigned long dst_buf[NW + 2], *dst;
					unsigned long first = firsts[f], *g;

					pattern(m, src, n, k + f + c);
					if (first > n)
						continue;
					ref_cut(src, want, n, first, cuts[c]);
					buf[0] = GUARD;
					if (mode == 0) {
						dst = dst_buf;
						dst[words] = GUARD;
					} else if (mode == 1) {
						dst = m;
					} else if (mode == 2) {
						dst = m -
						      1; /* overlaps below */
					} else {
						dst = m +
						      1; /* overlaps above */
					}
					/* the word after both maps */
					g = mode == 2 ? &m[words] : &dst[words];
					*g = GUARD;
					rg_bitmap_cut(dst, m, first, cuts[c],
						      n);
					expect_bits(dst, want, n, "cut");
					assert_int_equal(*g, GUARD);
					if (mode == 3)
						assert_int_equal(buf[0], GUARD);
				}
	}
	/* kernel name */
	m[0] = 0xaa;
	bitmap_cut(m, m, 3, 3, 8);
	assert_int_equal(m[0], 0x12);
	/* Bit 80 is past a 70-bit map: the kernel's cut moves it down into
	 * the map (to 60), ours ignores it. */
	{
		unsigned long src2[2] = { 0, 1UL << 16 }, out[2];

		bitmap_cut(out, src2, 10, 20, 70);
		assert_true(rg_bitmap_test(out, 60));
		assert_int_equal(rg_bitmap_weight(out, 70), 1);
		rg_bitmap_cut(out, src2, 10, 20, 70);
		assert_int_equal(rg_bitmap_weight(out, 128), 0);
	}
}

static void test_find_nth_bit(void **state)
{
	unsigned long m[NW];
	bool ref[NB];

	(void)state;
	memset(m, 0, sizeof(m));
	assert_int_equal(rg_bitmap_find_nth_bit(m, 0, 0), 0);
	assert_int_equal(rg_bitmap_find_nth_bit(m, NB, 0), NB);
	rg_bitmap_set(m, 5);
	rg_bitmap_set(m, 64);
	rg_bitmap_set(m, 130);
	rg_bitmap_set(m, 319);
	assert_int_equal(rg_bitmap_find_nth_bit(m, NB, 0), 5);
	assert_int_equal(rg_bitmap_find_nth_bit(m, NB, 1), 64);
	assert_int_equal(rg_bitmap_find_nth_bit(m, NB, 2), 130);
	assert_int_equal(rg_bitmap_find_nth_bit(m, NB, 3), 319);
	assert_int_equal(rg_bitmap_find_nth_bit(m, NB, 4), NB);
	assert_int_equal(rg_bitmap_find_nth_bit(m, NB, ~0UL), NB);
	/* bits at or past the size do not count */
	assert_int_equal(rg_bitmap_find_nth_bit(m, 319, 3), 319);
	assert_int_equal(rg_bitmap_find_nth_bit(m, 130, 2), 130);
	assert_int_equal(rg_bitmap_find_nth_bit(m, 131, 2), 130);
	assert_int_equal(find_nth_bit(m, 65, 1), 64);
	/* every rank of a denser pattern, every size */
	for (size_t k = 0; k < NSIZES; k++) {
		unsigned long n = sizes[k], rank = 0;

		pattern(m, ref, n, k);
		for (unsigned long i = 0; i < n; i++)
			if (ref[i])
				assert_int_equal(
					rg_bitmap_find_nth_bit(m, n, rank++),
					i);
		assert_int_equal(rg_bitmap_find_nth_bit(m, n, rank), n);
	}
	/* a full word: every position inside it */
	memset(m, 0xff, sizeof(m));
	for (unsigned long i = 0; i < NB; i++)
		assert_int_equal(rg_bitmap_find_nth_bit(m, NB, i), i);
}

static void test_iterators(void **state)
{
	unsigned long m[NW], seen[NW];
	unsigned long bit, b, e = 0, count;
	unsigned int ubit;
	bool ref[NB];

	(void)state;
	for (size_t k = 0; k < NSIZES; k++) {
		unsigned long n = sizes[k];

		pattern(m, ref, n, k);
		/* set bits, in order, each once */
		count = 0;
		b = 0;
		RG_BITMAP_FOR_EACH_SET_BIT(bit, m, n)
		{
			assert_true(ref[bit]);
			assert_true(count == 0 || bit > b);
			b = bit;
			count++;
		}
		assert_int_equal(bit, n);
		assert_int_equal(count, rg_bitmap_weight(m, n));
		count = 0;
		RG_BITMAP_FOR_EACH_CLEAR_BIT(bit, m, n)
		{
			assert_false(ref[bit]);
			count++;
		}
		assert_int_equal(count, n - rg_bitmap_weight(m, n));
		/* from every start */
		for (unsigned long from = 0; from <= n + 1; from++) {
			unsigned long ns = 0, nc = 0;

			bit = from;
			RG_BITMAP_FOR_EACH_SET_BIT_FROM(bit, m, n)
			{
				assert_true(bit >= from && ref[bit]);
				ns++;
			}
			bit = from;
			RG_BITMAP_FOR_EACH_CLEAR_BIT_FROM(bit, m, n)
			{
				assert_true(bit >= from && !ref[bit]);
				nc++;
			}
			assert_int_equal(ns + nc, from < n ? n - from : 0);
			if (from < n)
				assert_int_equal(
					ns, rg_bitmap_weight(m, n) -
						    rg_bitmap_weight(m, from));
		}
		/* wrap from every start: [start, n) then [0, start); a bit
		 * just past the size is never visited */
		rg_bitmap_set(m, n);
		for (unsigned long start = 0; start <= n + 1; start++) {
			unsigned long s0 = start < n ? start : 0, want[NB];
			unsigned long nwant = 0;

			for (unsigned long i = 0; i < n; i++)
				if (ref[(s0 + i) % n])
					want[nwant++] = (s0 + i) % n;
			count = 0;
			RG_BITMAP_FOR_EACH_SET_BIT_WRAP(bit, m, n, start)
			{
				assert_true(count < nwant);
				assert_int_equal(bit, want[count]);
				count++;
			}
			assert_int_equal(bit, n);
			assert_int_equal(count, nwant);
		}
		rg_bitmap_clear(m, n);
		/* runs: set and clear runs tile the map, maximal */
		memset(seen, 0, sizeof(seen));
		e = 0;
		RG_BITMAP_FOR_EACH_SET_BITRANGE(b, e, m, n)
		{
			assert_true(b < e && e <= n);
			assert_true(rg_bitmap_range_is_set(m, b, e - b));
			assert_true(e == n || !ref[e]);
			assert_true(b == 0 || !ref[b - 1]);
			rg_bitmap_set_range(seen, b, e - b);
		}
		assert_true(rg_bitmap_equal(seen, m, n));
		memset(seen, 0, sizeof(seen));
		RG_BITMAP_FOR_EACH_CLEAR_BITRANGE(b, e, m, n)
		{
			assert_true(b < e && e <= n);
			assert_true(rg_bitmap_range_is_clear(m, b, e - b));
			assert_true(e == n || ref[e]);
			assert_true(b == 0 || ref[b - 1]);
			rg_bitmap_set_range(seen, b, e - b);
		}
		assert_int_equal(rg_bitmap_weight(seen, n),
				 n - rg_bitmap_weight(m, n));
		for (unsigned long from = 0; from <= n; from++) {
			memset(seen, 0, sizeof(seen));
			b = from;
			RG_BITMAP_FOR_EACH_SET_BITRANGE_FROM(b, e, m, n)
			{
				assert_true(b >= from && b < e && e <= n);
				rg_bitmap_set_range(seen, b, e - b);
			}
			b = from;
			RG_BITMAP_FOR_EACH_CLEAR_BITRANGE_FROM(b, e, m, n)
			{
				assert_true(b >= from && b < e && e <= n);
				assert_true(rg_bitmap_range_is_clear(seen, b,
								     e - b));
				rg_bitmap_set_range(seen, b, e - b);
			}
			/* together they cover exactly [from, n) */
			assert_int_equal(rg_bitmap_weight(seen, n), n - from);
			assert_int_equal(rg_bitmap_find_next_bit(seen, n, 0),
					 from < n ? from : n);
		}
	}
	/* an empty and a full map; unsigned int counters, kernel names */
	memset(m, 0, sizeof(m));
	count = 0;
	for_each_set_bit(ubit, m, NB) count++;
	assert_int_equal(ubit, NB);
	for_each_set_bit_wrap(ubit, m, NB, 17) count++;
	for_each_set_bitrange(b, e, m, NB) count++;
	assert_int_equal(count, 0);
	for_each_clear_bitrange(b, e, m, NB)
	{
		assert_int_equal(b, 0);
		assert_int_equal(e, NB);
		count++;
	}
	assert_int_equal(count, 1);
	rg_bitmap_fill(m, NB);
	count = 0;
	for_each_clear_bit(ubit, m, NB) count++;
	ubit = 3;
	for_each_clear_bit_from(ubit, m, NB) count++;
	ubit = 300;
	for_each_set_bit_from(ubit, m, NB) count++;
	assert_int_equal(count, 20);
	b = 250;
	for_each_set_bitrange_from(b, e, m, NB)
	{
		assert_int_equal(b, 250);
		assert_int_equal(e, NB);
	}
	b = 0;
	for_each_clear_bitrange_from(b, e, m, NB) fail();
	/* a wrap from the middle: 3 bits, visited 200, 10, 150 */
	memset(m, 0, sizeof(m));
	rg_bitmap_set(m, 10);
	rg_bitmap_set(m, 150);
	rg_bitmap_set(m, 200);
	{
		unsigned long order[3], i = 0;

		RG_BITMAP_FOR_EACH_SET_BIT_WRAP(bit, m, NB, 151)
		order[i++] = bit;
		assert_int_equal(i, 3);
		assert_int_equal(order[0], 200);
		assert_int_equal(order[1], 10);
		assert_int_equal(order[2], 150);
	}
	assert_int_equal(rg_bitmap_find_next_bit_wrap(m, NB, 201), 10);
	assert_int_equal(find_next_bit_wrap(m, NB, 150), 150);
	assert_int_equal(rg_bitmap_find_next_bit_wrap(m, NB, NB + 5), 10);
	assert_int_equal(rg_bitmap_find_next_bit_wrap(m, 0, 0), 0);
	memset(m, 0, sizeof(m));
	assert_int_equal(rg_bitmap_find_next_bit_wrap(m, NB, 77), NB);
	assert_int_equal(rg_bitmap_wrap_next_bit(m, NB, 77, 78), NB);
	/* a start past the size means 0: never a bit at or past the size */
	rg_bitmap_set(m, 120);
	assert_int_equal(rg_bitmap_wrap_next_bit(m, 100, 150, 100), 100);
	assert_int_equal(rg_bitmap_wrap_next_bit(m, 100, 150, 1), 100);
	assert_int_equal(rg_bitmap_wrap_next_bit(m, 121, 150, 1), 120);
	assert_int_equal(rg_bitmap_wrap_next_bit(m, 121, 150, 121), 121);
}

static void test_clump8(void **state)
{
	unsigned long m[NW], clump = 0xdead, start;
	unsigned int ustart;
	unsigned long want_start[] = { 0, 16, 56, 64, 120, 312 };
	unsigned long want_clump[] = { 0x81, 0x10, 0xff, 0x01, 0xc0, 0x02 };
	size_t i = 0;

	(void)state;
	memset(m, 0, sizeof(m));
	assert_int_equal(rg_bitmap_find_next_clump8(&clump, m, NB, 0), NB);
	assert_int_equal(clump, 0xdead); /* unchanged when none is found */
	rg_bitmap_set(m, 0);
	rg_bitmap_set(m, 7);
	rg_bitmap_set(m, 20);
	rg_bitmap_set_range(m, 56, 9); /* 56..63 and 64 */
	rg_bitmap_set_range(m, 126, 2);
	rg_bitmap_set(m, 313);
	RG_BITMAP_FOR_EACH_SET_CLUMP8(start, clump, m, NB)
	{
		assert_true(i < 6);
		assert_int_equal(start, want_start[i]);
		assert_int_equal(clump, want_clump[i]);
		i++;
	}
	assert_int_equal(i, 6);
	assert_int_equal(start, NB);
	/* an offset inside a group returns the group's start */
	assert_int_equal(rg_bitmap_find_next_clump8(&clump, m, NB, 3), 0);
	assert_int_equal(clump, 0x81);
	assert_int_equal(rg_bitmap_find_next_clump8(&clump, m, NB, 21), 56);
	assert_int_equal(find_next_clump8(&clump, m, NB, 121), 120);
	/* bits at or past the size read as 0 in the last group */
	rg_bitmap_set(m, 318);
	assert_int_equal(rg_bitmap_find_next_clump8(&clump, m, 314, 300), 312);
	assert_int_equal(clump, 0x02);
	assert_int_equal(rg_bitmap_find_next_clump8(&clump, m, 313, 300), 313);
	/* kernel names, an unsigned int start */
	i = 0;
	for_each_set_clump8(ustart, clump, m, 64) i++;
	assert_int_equal(i, 3);
	assert_int_equal(find_first_clump8(&clump, m, NB), 0);
}

static void test_complement(void **state)
{
	unsigned long a[NW], d[NW];
	bool ref[NB];

	(void)state;
	for (size_t k = 0; k < NSIZES; k++) {
		unsigned long n = sizes[k], words = RG_BITS_TO_LONGS(n);

		pattern(a, ref, n, k);
		for (unsigned long i = 0; i < n; i++)
			ref[i] = !ref[i];
		for (unsigned long w = 0; w < NW; w++)
			d[w] = GUARD;
		rg_bitmap_complement(d, a, n);
		expect_bits(d, ref, n, "complement");
		assert_int_equal(d[words], GUARD);
		bitmap_complement(a, a, (unsigned int)n); /* in place */
		expect_bits(a, ref, n, "complement in place");
	}
	d[0] = GUARD;
	rg_bitmap_complement(d, a, 0);
	assert_int_equal(d[0], GUARD);
}

static void test_read_write(void **state)
{
	unsigned long m[NW], ref_map[NW];

	(void)state;
	/* every start and width against a bit-at-a-time model */
	for (unsigned long start = 0; start + BPL <= 3 * BPL; start++)
		for (unsigned long nb = 1; nb <= BPL; nb++) {
			unsigned long v = 0x9e3779b97f4a7c15UL * (start + 1) ^
					  nb * 0x1234567UL;
			unsigned long want = 0;

			for (unsigned long w = 0; w < NW; w++)
				m[w] = ref_map[w] =
					0xc3a5c3a5c3a5c3a5UL * (w + 1);
			for (unsigned long i = 0; i < nb; i++)
				want |= (unsigned long)rg_bitmap_test(m,
								      start + i)
					<< i;
			assert_int_equal(rg_bitmap_read(m, start, nb), want);
			rg_bitmap_write(m, v, start, nb);
			for (unsigned long i = 0; i < nb; i++)
				__assign_bit(start + i, ref_map, (v >> i) & 1);
			assert_memory_equal(m, ref_map, sizeof(m));
			assert_int_equal(bitmap_read(m, start, nb),
					 nb == BPL ? v : v & ((1UL << nb) - 1));
		}
	/* width 0 or above a word: reads 0, writes nothing */
	memcpy(ref_map, m, sizeof(m));
	assert_int_equal(rg_bitmap_read(m, 3, 0), 0);
	assert_int_equal(rg_bitmap_read(m, 3, BPL + 1), 0);
	rg_bitmap_write(m, ~0UL, 3, 0);
	bitmap_write(m, ~0UL, 3, BPL + 1);
	assert_memory_equal(m, ref_map, sizeof(m));
	/* a value at the very end of a map reads no word past it */
	{
		unsigned long one[1] = { 0xabcdUL << (BPL - 16) };

		assert_int_equal(rg_bitmap_read(one, BPL - 16, 16), 0xabcd);
		rg_bitmap_write(one, 0x1234, BPL - 16, 16);
		assert_int_equal(one[0], 0x1234UL << (BPL - 16));
	}
	/* __assign_bit takes any value as a truth value */
	memset(m, 0, sizeof(m));
	__assign_bit(70, m, 0x100);
	assert_true(rg_bitmap_test(m, 70));
	__assign_bit(70, m, 0);
	assert_false(rg_bitmap_test(m, 70));
}

static void test_scatter_gather(void **state)
{
	unsigned long src[NW], mask[NW], d[NW], back[NW];
	bool rs[NB], rmask[NB], want[NB];

	(void)state;
	src[0] = 0x5a;
	mask[0] = 0x1313;
	rg_bitmap_scatter(d, src, mask, 16);
	assert_int_equal(d[0], 0x0302);
	bitmap_gather(back, d, mask, 16);
	assert_int_equal(back[0], 0x1a); /* 0x5a's low 5 bits: weight 5 */
	for (size_t k = 0; k < NSIZES; k++) {
		unsigned long n = sizes[k], words = RG_BITS_TO_LONGS(n), j;

		pattern(src, rs, n, k);
		pattern(mask, rmask, n, k + 3);
		/* scatter: the j-th set bit of the mask gets source bit j */
		j = 0;
		for (unsigned long i = 0; i < n; i++)
			want[i] = rmask[i] && rs[j++];
		for (unsigned long w = 0; w < NW; w++)
			d[w] = GUARD;
		bitmap_scatter(d, src, mask, (unsigned int)n);
		expect_bits(d, want, n, "scatter");
		assert_int_equal(d[words], GUARD);
		/* gather: bit j gets the source bit under the j-th mask bit */
		j = 0;
		for (unsigned long i = 0; i < n; i++)
			want[i] = false;
		for (unsigned long i = 0; i < n; i++)
			if (rmask[i])
				want[j++] = rs[i];
		for (unsigned long w = 0; w < NW; w++)
			back[w] = GUARD;
		rg_bitmap_gather(back, src, mask, n);
		expect_bits(back, want, n, "gather");
		assert_int_equal(back[words], GUARD);
		/* gathering what was scattered gives the low bits back */
		rg_bitmap_gather(back, d, mask, n);
		for (unsigned long i = 0; i < n; i++)
			want[i] = i < j && rs[i];
		expect_bits(back, want, n, "gather(scatter)");
	}
	/* a full mask is a copy, an empty one clears */
	memset(mask, 0xff, sizeof(mask));
	pattern(src, rs, 200, 1);
	rg_bitmap_scatter(d, src, mask, 200);
	expect_bits(d, rs, 200, "scatter, full mask");
	rg_bitmap_gather(d, src, mask, 200);
	expect_bits(d, rs, 200, "gather, full mask");
	memset(mask, 0, sizeof(mask));
	rg_bitmap_scatter(d, src, mask, 200);
	assert_int_equal(rg_bitmap_weight(d, 200), 0);
	rg_bitmap_fill(d, 200);
	rg_bitmap_gather(d, src, mask, 200);
	assert_int_equal(rg_bitmap_weight(d, 200), 0);
	d[0] = GUARD;
	rg_bitmap_gather(d, src, mask, 0);
	rg_bitmap_scatter(d, src, mask, 0);
	assert_int_equal(d[0], GUARD);
}

static void test_arrays(void **state)
{
	unsigned long m[NW], back[NW];
	uint32_t a32[NB / 32 + 2];
	uint64_t a64[NB / 64 + 2];
	bool ref[NB];

	(void)state;
	for (unsigned long n = 0; n <= NB; n++) {
		unsigned long n32 = (n + 31) / 32, n64 = (n + 63) / 64;

		pattern(m, ref, n, n);
		if (n) /* tail garbage in the source is not copied */
			m[(n - 1) / BPL] |= ~0UL << 1 << ((n - 1) % BPL);
		memset(a32, 0xa5, sizeof(a32));
		memset(a64, 0xa5, sizeof(a64));
		rg_bitmap_to_arr32(a32, m, n);
		rg_bitmap_to_arr64(a64, m, n);
		for (unsigned long i = 0; i < n; i++) {
			assert_int_equal((a32[i / 32] >> (i % 32)) & 1, ref[i]);
			assert_int_equal((a64[i / 64] >> (i % 64)) & 1, ref[i]);
		}
		/* the last element's bits past n are clear, no more written */
		if (n % 32)
			assert_int_equal(a32[n32 - 1] >> (n % 32), 0);
		if (n % 64)
			assert_int_equal(a64[n64 - 1] >> (n % 64), 0);
		assert_int_equal(a32[n32], 0xa5a5a5a5);
		assert_int_equal(a64[n64], 0xa5a5a5a5a5a5a5a5ULL);
		/* and back, into a map full of ones: tail cleared */
		memset(back, 0xff, sizeof(back));
		rg_bitmap_from_arr32(back, a32, n);
		expect_bits(back, ref, n, "from_arr32");
		assert_int_equal(back[RG_BITS_TO_LONGS(n)], ~0UL);
		memset(back, 0xff, sizeof(back));
		rg_bitmap_from_arr64(back, a64, n);
		expect_bits(back, ref, n, "from_arr64");
		assert_int_equal(back[RG_BITS_TO_LONGS(n)], ~0UL);
	}
	/* element layout by value */
	memset(m, 0, sizeof(m));
	rg_bitmap_set(m, 0);
	rg_bitmap_set(m, 33);
	rg_bitmap_set(m, 64 + 4);
	bitmap_to_arr32(a32, m, 96);
	assert_int_equal(a32[0], 1);
	assert_int_equal(a32[1], 2);
	assert_int_equal(a32[2], 0x10);
	bitmap_to_arr64(a64, m, 96);
	assert_int_equal(a64[0], 0x200000001ULL);
	assert_int_equal(a64[1], 0x10);
	a32[1] = 0x80000000u;
	bitmap_from_arr32(back, a32, 64);
	assert_int_equal(back[0], 1UL | 1UL << 63);
	/* bits past nbits in the source array are not copied */
	memset(a32, 0xff, sizeof(a32));
	bitmap_from_arr32(back, a32, 40);
	assert_int_equal(back[0], (1UL << 40) - 1);
	a64[0] = 0xffffffffffffffffULL;
	bitmap_from_arr64(back, a64, 40);
	assert_int_equal(back[0], (1UL << 40) - 1);
}

/* The new calls under the common.h NULL policy: nothing changes. */
static void test_null_arguments_new_calls(void **state)
{
	unsigned long m[NW], d[NW], clump = 77, bit, count = 0;
	uint32_t a32[4] = { 1, 2, 3, 4 };
	uint64_t a64[2] = { 5, 6 };

	(void)state;
	memset(m, 0, sizeof(m));
	rg_bitmap_set_range(m, 10, 5);
	memcpy(d, m, sizeof(d));
	RG_EXPECT_NULL_RET(rg_bitmap_equal(NULL, m, 100), false);
	RG_EXPECT_NULL_RET(rg_bitmap_equal(m, NULL, 100), false);
	assert_true(rg_bitmap_equal(NULL, NULL, 0)); /* 0-bit maps */
	RG_EXPECT_NULL_VOID(rg_bitmap_fill(NULL, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_copy(NULL, m, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_copy(d, NULL, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_replace(NULL, m, m, m, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_replace(d, NULL, m, m, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_replace(d, m, NULL, m, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_replace(d, m, m, NULL, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_shift_right(NULL, m, 3, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_shift_right(d, NULL, 3, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_shift_left(NULL, m, 3, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_shift_left(d, NULL, 3, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_cut(NULL, m, 3, 3, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_cut(d, NULL, 3, 3, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_complement(NULL, m, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_complement(d, NULL, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_scatter(NULL, m, m, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_scatter(d, NULL, m, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_scatter(d, m, NULL, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_gather(NULL, m, m, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_gather(d, NULL, m, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_gather(d, m, NULL, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_from_arr32(NULL, a32, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_from_arr32(d, NULL, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_to_arr32(NULL, m, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_to_arr32(a32, NULL, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_from_arr64(NULL, a64, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_from_arr64(d, NULL, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_to_arr64(NULL, m, 100));
	RG_EXPECT_NULL_VOID(rg_bitmap_to_arr64(a64, NULL, 100));
	RG_EXPECT_NULL_RET(rg_bitmap_read(NULL, 3, 8), 0);
	RG_EXPECT_NULL_VOID(rg_bitmap_write(NULL, 0xff, 3, 8));
	RG_EXPECT_NULL_RET(rg_bitmap_find_nth_bit(NULL, 100, 0), 100);
	RG_EXPECT_NULL_RET(rg_bitmap_find_next_bit_wrap(NULL, 100, 50), 100);
	RG_EXPECT_NULL_RET(rg_bitmap_wrap_next_bit(NULL, 100, 50, 51), 100);
	RG_EXPECT_NULL_RET(rg_bitmap_find_next_clump8(&clump, NULL, 100, 0),
			   100);
	RG_EXPECT_NULL_RET(rg_bitmap_find_next_clump8(NULL, m, 100, 0), 100);
	RG_BITMAP_FOR_EACH_SET_BIT(bit, (const unsigned long *)NULL, 100)
	count++;
	RG_BITMAP_FOR_EACH_SET_BIT_WRAP(bit, (const unsigned long *)NULL, 100,
					7)
	count++;
	/* In this process too: a valid destination is left as it was. */
	rg_bitmap_copy(d, NULL, 100);
	rg_bitmap_replace(d, m, NULL, m, 100);
	rg_bitmap_shift_right(d, NULL, 3, 100);
	rg_bitmap_shift_left(d, NULL, 3, 100);
	rg_bitmap_cut(d, NULL, 3, 3, 100);
	rg_bitmap_complement(d, NULL, 100);
	rg_bitmap_scatter(d, m, NULL, 100);
	rg_bitmap_gather(d, NULL, m, 100);
	rg_bitmap_from_arr32(d, NULL, 100);
	rg_bitmap_from_arr64(d, NULL, 100);
	rg_bitmap_to_arr32(a32, NULL, 100);
	rg_bitmap_to_arr64(a64, NULL, 100);
	assert_int_equal(rg_bitmap_find_next_clump8(&clump, NULL, 100, 0), 100);
	assert_int_equal(count, 0);
	assert_int_equal(clump, 77);
	assert_memory_equal(d, m, sizeof(d));
	assert_int_equal(a32[0], 1);
	assert_int_equal(a32[3], 4);
	assert_int_equal(a64[1], 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_bits),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_find_bits),
		cmocka_unit_test(test_zero_area),
		cmocka_unit_test(test_zero_area_inline),
		cmocka_unit_test(test_free_region_example),
		cmocka_unit_test(test_allocate_release_region),
		cmocka_unit_test(test_zalloc),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_linux_names),
		cmocka_unit_test(regress_bitmap_null_arguments),
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_fill_copy),
		cmocka_unit_test(test_set_clear_kernel_forms),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_shifts),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_find_nth_bit),
		cmocka_unit_test(test_iterators),
		cmocka_unit_test(test_clump8),
		cmocka_unit_test(test_arrays),
		cmocka_unit_test(test_complement),
		cmocka_unit_test(test_read_write),
		cmocka_unit_test(test_scatter_gather),
		cmocka_unit_test(test_null_arguments_new_calls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
