// SPDX-License-Identifier: MIT
/*
 * Unit tests of every bitmap call, the kernel-name wrappers and their bad
 * input: empty ranges, positions at or past the size, zero-length and
 * oversized zero-area requests, alignment masks and offsets (including ones
 * that wrap), and the kernel's find_free_region example.
 */
#include <errno.h>
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
