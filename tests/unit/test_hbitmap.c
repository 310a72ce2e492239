// SPDX-License-Identifier: MIT
/*
 * hbitmap unit tests: every call, every documented error, and the corner
 * cases of the geometry (word, block and node edges, capacities past 2^32).
 */
#include <errno.h>
#include <string.h>

#include "rg_test.h"
#include "region/hbitmap.h"

static struct rg_hbitmap *mk(uint64_t cap)
{
	struct rg_hbitmap *hb = rg_hbitmap_create(cap);

	assert_non_null(hb);
	RG_ASSERT_VALID(hb);
	return hb;
}

static void test_create_bad(void **state)
{
	(void)state;
	errno = 0;
	assert_null(rg_hbitmap_create(0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(rg_hbitmap_create(RG_HBITMAP_MAX_CAPACITY + 1));
	assert_int_equal(errno, EINVAL);
	rg_hbitmap_destroy(NULL); /* no-op */
}

static void test_create_stats(void **state)
{
	static const uint64_t caps[] = { 1,	 63,	 64,	  65,
					 511,	 512,	 513,	  32768,
					 32769,	 100000, 1000000, 2097152,
					 2097153 };
	(void)state;
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		struct rg_hbitmap *hb = mk(caps[i]);

		assert_int_equal(rg_hbitmap_capacity(hb), caps[i]);
		assert_int_equal(rg_hbitmap_free_units(hb), caps[i]);
		assert_int_equal(rg_hbitmap_largest_free_run(hb), caps[i]);
		assert_int_equal(rg_hbitmap_test(hb, 0), 0);
		assert_int_equal(rg_hbitmap_test(hb, caps[i] - 1), 0);
		assert_int_equal(rg_hbitmap_test(hb, caps[i]), -EINVAL);
		assert_true(rg_hbitmap_bytes(hb) >= caps[i] / 8);
		rg_hbitmap_destroy(hb);
	}
}

/* Memory at the seed capacity: within 1.15x of the plain bitmap. */
static void test_bytes(void **state)
{
	struct rg_hbitmap *hb = mk(1000000);
	size_t b = rg_hbitmap_bytes(hb);

	(void)state;
	printf("# 10^6 units: %zu bytes (%.3fx of 125000)\n", b,
	       (double)b / 125000.0);
	assert_true(b * 100 <= 125000 * 115);
	rg_hbitmap_destroy(hb);
}

static void test_alloc_bad(void **state)
{
	struct rg_hbitmap *hb = mk(1000);
	uint64_t s = 12345;

	(void)state;
	assert_int_equal(rg_hbitmap_alloc(hb, 0, 1, &s), -EINVAL);
	assert_int_equal(rg_hbitmap_alloc(hb, 1001, 1, &s), -EINVAL);
	assert_int_equal(rg_hbitmap_alloc(hb, UINT64_MAX, 1, &s), -EINVAL);
	assert_int_equal(rg_hbitmap_alloc(hb, 1, 0, &s), -EINVAL);
	assert_int_equal(rg_hbitmap_alloc(hb, 1, 3, &s), -EINVAL);
	assert_int_equal(rg_hbitmap_alloc(hb, 1, 96, &s), -EINVAL);
	assert_int_equal(s, 12345);
	assert_int_equal(rg_hbitmap_free_units(hb), 1000);
	/* whole capacity, then nothing */
	assert_int_equal(rg_hbitmap_alloc(hb, 1000, 1, &s), 0);
	assert_int_equal(s, 0);
	assert_int_equal(rg_hbitmap_alloc(hb, 1, 1, &s), -ENOSPC);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), 0);
	RG_ASSERT_VALID(hb);
	rg_hbitmap_destroy(hb);
}

static void test_alloc_first_fit(void **state)
{
	struct rg_hbitmap *hb = mk(10000);
	uint64_t s;

	(void)state;
	for (uint64_t i = 0; i < 100; i++) {
		assert_int_equal(rg_hbitmap_alloc(hb, 10, 1, &s), 0);
		assert_int_equal(s, i * 10);
	}
	/* holes of 10 at 100, 20 at 300 (merged), 10 at 980 */
	assert_int_equal(rg_hbitmap_free(hb, 100, 10), 0);
	assert_int_equal(rg_hbitmap_free(hb, 300, 20), 0);
	assert_int_equal(rg_hbitmap_free(hb, 980, 10), 0);
	RG_ASSERT_VALID(hb);
	assert_int_equal(rg_hbitmap_alloc(hb, 15, 1, &s), 0);
	assert_int_equal(s, 300);
	assert_int_equal(rg_hbitmap_alloc(hb, 10, 1, &s), 0);
	assert_int_equal(s, 100);
	assert_int_equal(rg_hbitmap_alloc(hb, 5, 1, &s), 0);
	assert_int_equal(s, 315);
	assert_int_equal(rg_hbitmap_alloc(hb, 11, 1, &s), 0);
	assert_int_equal(s, 1000); /* 980..989 too short */
	RG_ASSERT_VALID(hb);
	rg_hbitmap_destroy(hb);
}

static void test_alloc_align(void **state)
{
	struct rg_hbitmap *hb = mk(5000);
	uint64_t s;

	(void)state;
	assert_int_equal(rg_hbitmap_reserve(hb, 0, 1), 0);
	assert_int_equal(rg_hbitmap_alloc(hb, 1, 1, &s), 0);
	assert_int_equal(s, 1);
	assert_int_equal(rg_hbitmap_alloc(hb, 4, 4, &s), 0);
	assert_int_equal(s, 4);
	assert_int_equal(rg_hbitmap_alloc(hb, 1, 64, &s), 0);
	assert_int_equal(s, 64);
	assert_int_equal(rg_hbitmap_alloc(hb, 100, 1024, &s), 0);
	assert_int_equal(s, 1024);
	assert_int_equal(rg_hbitmap_alloc(hb, 2, 2, &s), 0);
	assert_int_equal(s, 2);
	/* the run 8..63 is 56 long: an aligned fit of 16 at 16 */
	assert_int_equal(rg_hbitmap_alloc(hb, 16, 16, &s), 0);
	assert_int_equal(s, 16);
	/* 32..63 is free: 32 at 32 */
	assert_int_equal(rg_hbitmap_alloc(hb, 32, 32, &s), 0);
	assert_int_equal(s, 32);
	/* alignment past the capacity: only 0, taken */
	assert_int_equal(rg_hbitmap_alloc(hb, 1, 1ULL << 40, &s), -ENOSPC);
	assert_int_equal(rg_hbitmap_alloc(hb, 1, 1ULL << 63, &s), -ENOSPC);
	/* a misaligned long run must not hide a later aligned one */
	assert_int_equal(rg_hbitmap_reserve(hb, 2048, 2952), 0);
	assert_int_equal(rg_hbitmap_free(hb, 2049, 1000), 0);
	assert_int_equal(rg_hbitmap_free(hb, 4000, 600), 0);
	assert_int_equal(rg_hbitmap_alloc(hb, 700, 2048, &s), -ENOSPC);
	assert_int_equal(rg_hbitmap_alloc(hb, 500, 1024, &s), 0);
	assert_int_equal(s, 4096);
	RG_ASSERT_VALID(hb);
	rg_hbitmap_destroy(hb);
}

static void test_alloc_range(void **state)
{
	struct rg_hbitmap *hb = mk(3000);
	uint64_t s;

	(void)state;
	assert_int_equal(rg_hbitmap_alloc_range(hb, 0, 1, 0, 10, &s), -EINVAL);
	assert_int_equal(rg_hbitmap_alloc_range(hb, 3001, 1, 0, 9999, &s),
			 -EINVAL);
	assert_int_equal(rg_hbitmap_alloc_range(hb, 1, 5, 0, 10, &s), -EINVAL);
	assert_int_equal(rg_hbitmap_alloc_range(hb, 1, 1, 11, 10, &s), -EINVAL);
	assert_int_equal(rg_hbitmap_alloc_range(hb, 1, 1, 3000, 4000, &s),
			 -ENOSPC);
	assert_int_equal(rg_hbitmap_alloc_range(hb, 11, 1, 0, 9, &s), -ENOSPC);
	assert_int_equal(rg_hbitmap_alloc_range(hb, 10, 1, 0, 9, &s), 0);
	assert_int_equal(s, 0);
	assert_int_equal(rg_hbitmap_alloc_range(hb, 10, 1, 700, 800, &s), 0);
	assert_int_equal(s, 700);
	assert_int_equal(rg_hbitmap_alloc_range(hb, 10, 8, 701, 800, &s), 0);
	assert_int_equal(s, 712);
	assert_int_equal(rg_hbitmap_alloc_range(hb, 90, 1, 700, 800, &s),
			 -ENOSPC);
	assert_int_equal(rg_hbitmap_alloc_range(hb, 79, 1, 700, 800, &s), 0);
	assert_int_equal(s, 722);
	/* max past the capacity clamps */
	assert_int_equal(
		rg_hbitmap_alloc_range(hb, 10, 1, 2995, UINT64_MAX, &s),
		-ENOSPC);
	assert_int_equal(rg_hbitmap_alloc_range(hb, 5, 1, 2995, UINT64_MAX, &s),
			 0);
	assert_int_equal(s, 2995);
	assert_int_equal(rg_hbitmap_alloc_range(hb, 600, 512, 1, 2999, &s), 0);
	assert_int_equal(s, 1024);
	RG_ASSERT_VALID(hb);
	rg_hbitmap_destroy(hb);
}

static void test_free_bad(void **state)
{
	struct rg_hbitmap *hb = mk(1000);
	uint64_t s;

	(void)state;
	assert_int_equal(rg_hbitmap_alloc(hb, 100, 1, &s), 0);
	assert_int_equal(rg_hbitmap_free(hb, 0, 0), -EINVAL);
	assert_int_equal(rg_hbitmap_free(hb, 1000, 1), -EINVAL);
	assert_int_equal(rg_hbitmap_free(hb, 999, 2), -EINVAL);
	assert_int_equal(rg_hbitmap_free(hb, 10, UINT64_MAX), -EINVAL);
	assert_int_equal(rg_hbitmap_free(hb, UINT64_MAX, 2), -EINVAL);
	/* partly allocated: nothing changes */
	assert_int_equal(rg_hbitmap_free(hb, 50, 51), -ENOENT);
	assert_int_equal(rg_hbitmap_free(hb, 100, 1), -ENOENT);
	assert_int_equal(rg_hbitmap_free_units(hb), 900);
	assert_int_equal(rg_hbitmap_test(hb, 50), 1);
	/* parts of a region may be freed separately */
	assert_int_equal(rg_hbitmap_free(hb, 10, 20), 0);
	assert_int_equal(rg_hbitmap_free(hb, 10, 20), -ENOENT); /* double */
	assert_int_equal(rg_hbitmap_free(hb, 0, 10), 0);
	assert_int_equal(rg_hbitmap_free(hb, 30, 70), 0);
	assert_int_equal(rg_hbitmap_free_units(hb), 1000);
	RG_ASSERT_VALID(hb);
	rg_hbitmap_destroy(hb);
}

static void test_reserve(void **state)
{
	struct rg_hbitmap *hb = mk(2000);
	uint64_t s;

	(void)state;
	assert_int_equal(rg_hbitmap_reserve(hb, 0, 0), -EINVAL);
	assert_int_equal(rg_hbitmap_reserve(hb, 2000, 1), -EINVAL);
	assert_int_equal(rg_hbitmap_reserve(hb, 1990, 11), -EINVAL);
	assert_int_equal(rg_hbitmap_reserve(hb, 5, UINT64_MAX - 2), -EINVAL);
	assert_int_equal(rg_hbitmap_reserve(hb, 500, 1000), 0);
	assert_int_equal(rg_hbitmap_reserve(hb, 1499, 2), -EBUSY);
	assert_int_equal(rg_hbitmap_reserve(hb, 0, 501), -EBUSY);
	assert_int_equal(rg_hbitmap_free_units(hb), 1000);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), 500);
	assert_int_equal(rg_hbitmap_alloc(hb, 501, 1, &s), -ENOSPC);
	assert_int_equal(rg_hbitmap_alloc(hb, 500, 1, &s), 0);
	assert_int_equal(s, 0);
	assert_int_equal(rg_hbitmap_reserve(hb, 1999, 1), 0);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), 499);
	RG_ASSERT_VALID(hb);
	rg_hbitmap_destroy(hb);
}

/* Runs crossing words, blocks and level-0 nodes. */
static void test_spanning(void **state)
{
	uint64_t cap = 32768 * 3 + 100, s;
	struct rg_hbitmap *hb = mk(cap);

	(void)state;
	assert_int_equal(rg_hbitmap_reserve(hb, 0, 32768 - 10), 0);
	assert_int_equal(rg_hbitmap_reserve(hb, 32768 + 10, 32768 * 2), 0);
	/* 20 free units straddle the first node boundary, 90 at the end */
	assert_int_equal(rg_hbitmap_largest_free_run(hb), 90);
	assert_int_equal(rg_hbitmap_alloc(hb, 20, 1, &s), 0);
	assert_int_equal(s, 32768 - 10);
	RG_ASSERT_VALID(hb);
	/* a run over many blocks */
	assert_int_equal(rg_hbitmap_free(hb, 40000, 20000), 0);
	assert_int_equal(rg_hbitmap_alloc(hb, 19999, 1, &s), 0);
	assert_int_equal(s, 40000);
	assert_int_equal(rg_hbitmap_alloc(hb, 2, 1, &s), 0);
	assert_int_equal(s, 32768 * 3 + 10);
	assert_int_equal(rg_hbitmap_alloc(hb, 1, 1, &s), 0);
	assert_int_equal(s, 59999);
	RG_ASSERT_VALID(hb);
	rg_hbitmap_destroy(hb);
}

static void test_resize(void **state)
{
	struct rg_hbitmap *hb = mk(1000);
	uint64_t s;

	(void)state;
	assert_int_equal(rg_hbitmap_resize(hb, 0), -EINVAL);
	assert_int_equal(rg_hbitmap_resize(hb, RG_HBITMAP_MAX_CAPACITY + 1),
			 -EINVAL);
	assert_int_equal(rg_hbitmap_reserve(hb, 990, 10), 0);
	assert_int_equal(rg_hbitmap_alloc(hb, 10, 1, &s), 0);
	assert_int_equal(rg_hbitmap_resize(hb, 995), -EBUSY);
	assert_int_equal(rg_hbitmap_capacity(hb), 1000);
	assert_int_equal(rg_hbitmap_resize(hb, 100000), 0);
	RG_ASSERT_VALID(hb);
	assert_int_equal(rg_hbitmap_capacity(hb), 100000);
	assert_int_equal(rg_hbitmap_free_units(hb), 100000 - 20);
	assert_int_equal(rg_hbitmap_test(hb, 995), 1);
	assert_int_equal(rg_hbitmap_test(hb, 1000), 0);
	assert_int_equal(rg_hbitmap_alloc(hb, 990, 1, &s), 0);
	assert_int_equal(s, 1000);
	assert_int_equal(rg_hbitmap_free(hb, 1000, 990), 0);
	assert_int_equal(rg_hbitmap_free(hb, 990, 10), 0);
	assert_int_equal(rg_hbitmap_resize(hb, 11), 0);
	RG_ASSERT_VALID(hb);
	assert_int_equal(rg_hbitmap_free_units(hb), 1);
	assert_int_equal(rg_hbitmap_alloc(hb, 1, 1, &s), 0);
	assert_int_equal(s, 10);
	assert_int_equal(rg_hbitmap_alloc(hb, 1, 1, &s), -ENOSPC);
	rg_hbitmap_destroy(hb);
}

/* Unit numbers past 2^32 (the bitmap is calloc'd, mostly untouched). */
static void test_big_capacity(void **state)
{
	uint64_t cap = (1ULL << 32) + 1000, s;
	struct rg_hbitmap *hb = rg_hbitmap_create(cap);

	(void)state;
	assert_non_null(hb);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), cap);
	assert_int_equal(rg_hbitmap_reserve(hb, 1ULL << 32, 10), 0);
	assert_int_equal(
		rg_hbitmap_alloc_range(hb, 100, 1, 1ULL << 32, UINT64_MAX, &s),
		0);
	assert_int_equal(s, (1ULL << 32) + 10);
	assert_int_equal(rg_hbitmap_alloc(hb, 5, 1ULL << 32, &s), 0);
	assert_int_equal(s, 0);
	assert_int_equal(rg_hbitmap_alloc(hb, 5, 1ULL << 32, &s), -ENOSPC);
	assert_int_equal(rg_hbitmap_free(hb, (1ULL << 32) + 10, 100), 0);
	assert_int_equal(rg_hbitmap_test(hb, (1ULL << 32) + 9), 1);
	assert_int_equal(rg_hbitmap_free_units(hb), cap - 15);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), (1ULL << 32) - 5);
	/* runs past 2^31 saturate the 32-bit search hints of upper levels */
	assert_int_equal(rg_hbitmap_alloc(hb, (1ULL << 31) + 1, 1, &s), 0);
	assert_int_equal(s, 5);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), (1ULL << 31) - 6);
	assert_int_equal(rg_hbitmap_alloc(hb, (1ULL << 31) - 5, 1, &s),
			 -ENOSPC);
	assert_int_equal(rg_hbitmap_alloc(hb, (1ULL << 31) - 6, 1, &s), 0);
	assert_int_equal(s, (1ULL << 31) + 6);
	assert_int_equal(rg_hbitmap_free(hb, 5, (1ULL << 31) + 1), 0);
	assert_int_equal(rg_hbitmap_alloc(hb, (1ULL << 31) + 2, 1, &s),
			 -ENOSPC);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), (1ULL << 31) + 1);
	RG_ASSERT_VALID(hb);
	assert_int_equal(rg_hbitmap_alloc(hb, (1ULL << 31) + 1, 1, &s), 0);
	assert_int_equal(s, 5);
	assert_int_equal(rg_hbitmap_free(hb, 5, (1ULL << 31) + 1), 0);
	assert_int_equal(rg_hbitmap_alloc(hb, 1000, 1, &s), 0);
	assert_int_equal(s, 5);
	assert_int_equal(rg_hbitmap_alloc(hb, (1ULL << 31) - 999, 1, &s), 0);
	assert_int_equal(s, 1005);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), 990);
	rg_hbitmap_destroy(hb);
	/* 10^9 units */
	hb = rg_hbitmap_create(1000000000);
	assert_non_null(hb);
	assert_int_equal(rg_hbitmap_reserve(hb, 500000000, 1), 0);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), 500000000);
	assert_int_equal(rg_hbitmap_alloc(hb, 500000000, 1, &s), 0);
	assert_int_equal(s, 0);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), 500000000 - 1);
	assert_true(rg_hbitmap_bytes(hb) < 1000000000ULL / 8 * 115 / 100);
	rg_hbitmap_destroy(hb);
}

static void test_validate_dump(void **state)
{
	struct rg_hbitmap *hb = mk(3000);
	const char *why = NULL;
	char buf[4096];
	FILE *f = tmpfile();
	uint64_t s;
	size_t len;

	(void)state;
	assert_int_equal(rg_hbitmap_validate(NULL, &why), -EINVAL);
	assert_non_null(why);
	assert_int_equal(rg_hbitmap_validate(NULL, NULL), -EINVAL);
	assert_int_equal(rg_hbitmap_alloc(hb, 7, 1, &s), 0);
	assert_int_equal(rg_hbitmap_reserve(hb, 2000, 5), 0);
	assert_non_null(f);
	rg_hbitmap_dump(hb, f);
	rewind(f);
	len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[len] = 0;
	fclose(f);
	assert_non_null(strstr(buf, "hbitmap capacity 3000 free 2988"));
	assert_non_null(strstr(buf, "[7,2000) [2005,3000)"));
	rg_hbitmap_destroy(hb);
}

/* Every call with NULL for each pointer argument: the common.h policy. */
static void regress_hbitmap_null_arguments(void **state)
{
	struct rg_hbitmap *hb = rg_hbitmap_create(1000);
	const char *why = "x";
	uint64_t start;

	(void)state;
	assert_non_null(hb);
	assert_int_equal(rg_hbitmap_alloc(hb, 10, 1, &start), 0);
	RG_EXPECT_NULL_VOID(rg_hbitmap_destroy(NULL));
	RG_EXPECT_NULL_RET(rg_hbitmap_alloc(NULL, 10, 1, &start), -EINVAL);
	RG_EXPECT_NULL_RET(rg_hbitmap_alloc(hb, 10, 1, NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_hbitmap_alloc_range(NULL, 10, 1, 0, 999, &start),
			   -EINVAL);
	RG_EXPECT_NULL_RET(rg_hbitmap_alloc_range(hb, 10, 1, 0, 999, NULL),
			   -EINVAL);
	RG_EXPECT_NULL_RET(rg_hbitmap_alloc_rev(NULL, 10, 1, &start), -EINVAL);
	RG_EXPECT_NULL_RET(rg_hbitmap_alloc_rev(hb, 10, 1, NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_hbitmap_alloc_best(NULL, 10, 1, &start), -EINVAL);
	RG_EXPECT_NULL_RET(rg_hbitmap_alloc_best(hb, 10, 1, NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_hbitmap_free(NULL, 0, 10), -EINVAL);
	RG_EXPECT_NULL_RET(rg_hbitmap_reserve(NULL, 100, 10), -EINVAL);
	RG_EXPECT_NULL_RET(rg_hbitmap_resize(NULL, 2000), -EINVAL);
	RG_EXPECT_NULL_RET(rg_hbitmap_test(NULL, 0), -EINVAL);
	RG_EXPECT_NULL_RET(rg_hbitmap_capacity(NULL), 0);
	RG_EXPECT_NULL_RET(rg_hbitmap_free_units(NULL), 0);
	RG_EXPECT_NULL_RET(rg_hbitmap_largest_free_run(NULL), 0);
	RG_EXPECT_NULL_RET(rg_hbitmap_bytes(NULL), 0);
	RG_EXPECT_NULL_RET(rg_hbitmap_validate(NULL, &why), -EINVAL);
	RG_EXPECT_NULL_RET(rg_hbitmap_validate(NULL, NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_hbitmap_validate(hb, NULL), 0);
	RG_EXPECT_NULL_VOID(rg_hbitmap_dump(NULL, stderr));
	RG_EXPECT_NULL_VOID(rg_hbitmap_dump(hb, NULL));
	/* In this process too: nothing changed. */
	assert_int_equal(rg_hbitmap_alloc(hb, 10, 1, NULL), -EINVAL);
	assert_int_equal(rg_hbitmap_alloc_range(hb, 10, 1, 0, 999, NULL),
			 -EINVAL);
	assert_int_equal(rg_hbitmap_validate(NULL, &why), -EINVAL);
	assert_non_null(why);
	assert_int_equal(rg_hbitmap_free_units(hb), 990);
	RG_ASSERT_VALID(hb);
	rg_hbitmap_destroy(hb);
}

/* Top-down and best fit: bad input, and choices on a known layout. */
static void test_policies(void **state)
{
	struct rg_hbitmap *hb = rg_hbitmap_create(100), *bf;
	uint64_t s = 777;

	(void)state;
	assert_non_null(hb);
	errno = 0;
	assert_null(rg_hbitmap_create_flags(100, 0x80));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(rg_hbitmap_create_flags(0, RG_HBITMAP_BEST_FIT));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(rg_hbitmap_alloc_best(hb, 1, 1, &s), -EOPNOTSUPP);
	assert_int_equal(rg_hbitmap_alloc_rev(hb, 0, 1, &s), -EINVAL);
	assert_int_equal(rg_hbitmap_alloc_rev(hb, 101, 1, &s), -EINVAL);
	assert_int_equal(rg_hbitmap_alloc_rev(hb, 1, 3, &s), -EINVAL);
	assert_int_equal(s, 777);
	assert_int_equal(rg_hbitmap_alloc_rev(hb, 10, 8, &s), 0);
	assert_int_equal(s, 88);
	assert_int_equal(rg_hbitmap_alloc_rev(hb, 3, 1, &s), 0);
	assert_int_equal(s, 85); /* [98, 100) is too short */
	RG_ASSERT_VALID(hb);
	rg_hbitmap_destroy(hb);

	bf = rg_hbitmap_create_flags(100, RG_HBITMAP_BEST_FIT);
	assert_non_null(bf);
	assert_true(rg_hbitmap_bytes(bf) > 0);
	assert_int_equal(rg_hbitmap_alloc_best(bf, 0, 1, &s), -EINVAL);
	assert_int_equal(rg_hbitmap_alloc_best(bf, 1, 6, &s), -EINVAL);
	/* free runs [10, 15), [20, 40), [50, 53), [60, 100) */
	assert_int_equal(rg_hbitmap_reserve(bf, 0, 100), 0);
	assert_int_equal(rg_hbitmap_free(bf, 10, 5), 0);
	assert_int_equal(rg_hbitmap_free(bf, 20, 20), 0);
	assert_int_equal(rg_hbitmap_free(bf, 50, 3), 0);
	assert_int_equal(rg_hbitmap_free(bf, 60, 40), 0);
	RG_ASSERT_VALID(bf);
	assert_int_equal(rg_hbitmap_alloc_best(bf, 3, 1, &s), 0);
	assert_int_equal(s, 50);
	assert_int_equal(rg_hbitmap_alloc_best(bf, 4, 4, &s), 0);
	assert_int_equal(s, 20);
	assert_int_equal(rg_hbitmap_alloc_best(bf, 5, 1, &s), 0);
	assert_int_equal(s, 10);
	assert_int_equal(rg_hbitmap_alloc_best(bf, 41, 1, &s), -ENOSPC);
	RG_ASSERT_VALID(bf);
	/* freeing between two runs merges all three */
	assert_int_equal(rg_hbitmap_free(bf, 40, 20), 0);
	assert_int_equal(rg_hbitmap_alloc_best(bf, 76, 1, &s), 0);
	assert_int_equal(s, 24);
	RG_ASSERT_VALID(bf);
	/* first fit in a window on a best-fit instance: both stay exact */
	{
		struct rg_hbitmap *w =
			rg_hbitmap_create_flags(200, RG_HBITMAP_BEST_FIT);

		assert_non_null(w);
		assert_int_equal(rg_hbitmap_reserve(w, 0, 200), 0);
		assert_int_equal(rg_hbitmap_free(w, 10, 10), 0);
		assert_int_equal(rg_hbitmap_free(w, 100, 50), 0);
		assert_int_equal(rg_hbitmap_alloc_best(w, 10, 1, &s), 0);
		assert_int_equal(s, 10);
		assert_int_equal(rg_hbitmap_alloc_range(w, 5, 1, 120, 199, &s),
				 0);
		assert_int_equal(s, 120);
		RG_ASSERT_VALID(w);
		assert_int_equal(rg_hbitmap_largest_free_run(w), 25);
		assert_int_equal(rg_hbitmap_alloc_best(w, 20, 1, &s), 0);
		assert_int_equal(s, 100);
		assert_int_equal(rg_hbitmap_alloc(w, 25, 1, &s), 0);
		assert_int_equal(s, 125);
		RG_ASSERT_VALID(w);
		assert_int_equal(rg_hbitmap_largest_free_run(w), 0);
		rg_hbitmap_destroy(w);
	}
	/* a capacity of whole blocks has no padding to check */
	{
		struct rg_hbitmap *w =
			rg_hbitmap_create_flags(1024, RG_HBITMAP_BEST_FIT);

		assert_non_null(w);
		assert_int_equal(rg_hbitmap_reserve(w, 1000, 24), 0);
		RG_ASSERT_VALID(w);
		assert_int_equal(rg_hbitmap_free(w, 1023, 1), 0);
		RG_ASSERT_VALID(w);
		rg_hbitmap_destroy(w);
	}
	/* resize drops the index; the next best fit rebuilds it */
	assert_int_equal(rg_hbitmap_resize(bf, 200), 0);
	RG_ASSERT_VALID(bf);
	assert_int_equal(rg_hbitmap_alloc_best(bf, 100, 1, &s), 0);
	assert_int_equal(s, 100);
	RG_ASSERT_VALID(bf);
	rg_hbitmap_destroy(bf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_bad),
		cmocka_unit_test(test_create_stats),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_alloc_bad),
		cmocka_unit_test(test_alloc_first_fit),
		cmocka_unit_test(test_alloc_align),
		cmocka_unit_test(test_alloc_range),
		cmocka_unit_test(test_free_bad),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_spanning),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_big_capacity),
		cmocka_unit_test(test_validate_dump),
		cmocka_unit_test(regress_hbitmap_null_arguments),
		cmocka_unit_test(test_policies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
