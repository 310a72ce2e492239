// SPDX-License-Identifier: MIT
/*
 * Unit tests of every IDR call and the kernel's documented cases: ranges
 * [start, end) with end <= 0 meaning INT_MAX + 1, a base, u32 IDs above
 * INT_MAX (invisible to the int calls), cyclic allocation wrapping at the
 * end of its range and at INT_MAX, NULL as an allocated value, replace on
 * free and NULL-holding IDs, pointers of any alignment, the iterators,
 * destroy, bad input with its documented errors (the IDR unchanged and
 * valid), validate, and the kernel names of linux/idr.h and
 * ida_simple_get/remove.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "region/idr.h"
#include "region/linux/ida.h"
#include "region/linux/idr.h"
#include "region/xarray.h"
#include "rg_test.h"

#define P(n) ((void *)(uintptr_t)(((uintptr_t)(n) << 4) | 0x10000))
/* A value the IDR refuses: the xarray reserves it (low bits 10, <= 4096). */
#define BAD_PTR ((void *)(uintptr_t)4094)

static size_t nodes_in_use(void)
{
	struct rg_slab_stats st;

	assert_int_equal(rg_xa_node_cache_stats(&st), 0);
	return st.objects_in_use;
}

/* Number of non-NULL entries, by the int iterator. */
static int count_entries(struct rg_idr *idr)
{
	int id, n = 0;
	void *p;

	rg_idr_for_each_entry(idr, p, id)
	{
		assert_non_null(p);
		n++;
	}
	return n;
}

static void test_empty(void **state)
{
	RG_DEFINE_IDR(idr);
	void *old = P(1);
	int id = 0;

	(void)state;
	assert_true(rg_idr_is_empty(&idr));
	assert_null(rg_idr_find(&idr, 0));
	assert_null(rg_idr_remove(&idr, 0));
	assert_null(rg_idr_remove(&idr, ULONG_MAX));
	assert_int_equal(rg_idr_replace(&idr, P(1), 0, &old), -ENOENT);
	assert_ptr_equal(old, P(1));
	assert_null(rg_idr_get_next(&idr, &id));
	assert_int_equal(id, 0);
	assert_int_equal(rg_idr_get_cursor(&idr), 0);
	assert_int_equal(rg_idr_bytes(&idr), sizeof(struct rg_idr));
	assert_int_equal(count_entries(&idr), 0);
	RG_ASSERT_VALID(&idr);
	rg_idr_destroy(&idr);
	assert_true(rg_idr_is_empty(&idr));
}

static void test_sequential_reuse(void **state)
{
	size_t base_nodes = nodes_in_use();
	struct rg_idr idr;

	(void)state;
	rg_idr_init(&idr);
	for (int i = 0; i < 10000; i++)
		assert_int_equal(rg_idr_alloc(&idr, P(i), 0, 20000), i);
	RG_ASSERT_VALID(&idr);
	assert_true(rg_idr_bytes(&idr) > sizeof(struct rg_idr));
	/* [5, 30) is full. */
	assert_int_equal(rg_idr_alloc(&idr, P(1), 5, 30), -ENOSPC);
	for (int i = 0; i < 5000; i++) {
		assert_ptr_equal(rg_idr_find(&idr, i), P(i));
		assert_ptr_equal(rg_idr_remove(&idr, i), P(i));
		assert_null(rg_idr_find(&idr, i));
	}
	assert_null(rg_idr_remove(&idr, 3));
	RG_ASSERT_VALID(&idr);
	/* The lowest free ID comes back first. */
	assert_int_equal(rg_idr_alloc(&idr, P(7), 0, 0), 0);
	assert_int_equal(rg_idr_alloc(&idr, P(8), 100, 0), 100);
	assert_int_equal(rg_idr_alloc(&idr, P(9), 4990, 0), 4990);
	assert_int_equal(rg_idr_alloc(&idr, P(9), 4999, 0), 4999);
	assert_int_equal(rg_idr_alloc(&idr, P(9), 4999, 0), 10000);
	assert_int_equal(count_entries(&idr), 5005);
	rg_idr_destroy(&idr);
	assert_true(rg_idr_is_empty(&idr));
	assert_int_equal(nodes_in_use(), base_nodes);
	assert_int_equal(rg_idr_bytes(&idr), sizeof(struct rg_idr));
	assert_int_equal(rg_idr_alloc(&idr, P(1), 0, 0), 0);
	rg_idr_destroy(&idr);
}

static void test_ranges(void **state)
{
	RG_DEFINE_IDR(idr);
	unsigned long i;

	(void)state;
	/* end <= 0 means INT_MAX + 1. */
	assert_int_equal(rg_idr_alloc(&idr, P(1), INT_MAX, 0), INT_MAX);
	assert_int_equal(rg_idr_alloc(&idr, P(1), INT_MAX, -5), -ENOSPC);
	assert_int_equal(rg_idr_alloc(&idr, P(1), INT_MAX - 1, -1),
			 INT_MAX - 1);
	assert_ptr_equal(rg_idr_remove(&idr, INT_MAX), P(1));
	assert_ptr_equal(rg_idr_remove(&idr, INT_MAX - 1), P(1));
	/* Empty ranges. */
	assert_int_equal(rg_idr_alloc(&idr, P(1), 10, 10), -ENOSPC);
	assert_int_equal(rg_idr_alloc(&idr, P(1), 11, 10), -ENOSPC);
	assert_int_equal(rg_idr_alloc(&idr, P(1), 0, 1), 0);
	assert_int_equal(rg_idr_alloc(&idr, P(1), 0, 1), -ENOSPC);
	/* Bad start. */
	assert_int_equal(rg_idr_alloc(&idr, P(1), -1, 10), -EINVAL);
	assert_int_equal(rg_idr_alloc(&idr, P(1), INT_MIN, 0), -EINVAL);
	assert_ptr_equal(rg_idr_remove(&idr, 0), P(1));
	assert_true(rg_idr_is_empty(&idr));

	/* The kernel's case: the four IDs below INT_MAX + 1, then full. */
	for (i = INT_MAX - 3UL; i < INT_MAX + 1UL; i++)
		assert_int_equal(
			rg_idr_alloc(&idr, P(i), (int)i, (int)(i + 10)),
			(int)i);
	assert_int_equal(rg_idr_alloc(&idr, P(1), INT_MAX - 1, 0), -ENOSPC);
	assert_int_equal(rg_idr_alloc(&idr, P(1), INT_MAX - 3, -1), -ENOSPC);
	RG_ASSERT_VALID(&idr);
	assert_int_equal(count_entries(&idr), 4);
	rg_idr_destroy(&idr);
}

static void test_base(void **state)
{
	struct rg_idr idr = RG_IDR_INIT_BASE(1);
	int id = 0;
	void *old;

	(void)state;
	/* The kernel's case: nothing below the base. */
	assert_int_equal(rg_idr_alloc(&idr, P(1), 0, 1), -ENOSPC);
	assert_int_equal(rg_idr_alloc(&idr, P(1), 1, 2), 1);
	assert_int_equal(rg_idr_alloc(&idr, P(1), 0, 1), -ENOSPC);
	assert_int_equal(rg_idr_alloc(&idr, P(1), 0, 2), -ENOSPC);
	assert_int_equal(rg_idr_alloc(&idr, P(2), 0, 0), 2);
	assert_null(rg_idr_find(&idr, 0));
	assert_null(rg_idr_remove(&idr, 0));
	assert_int_equal(rg_idr_replace(&idr, P(3), 0, &old), -ENOENT);
	assert_ptr_equal(rg_idr_get_next(&idr, &id), P(1));
	assert_int_equal(id, 1);
	rg_idr_destroy(&idr);

	/* A large base: IDs base .. UINT_MAX, the int calls see none. */
	rg_idr_init_base(&idr, 0x80000000u);
	assert_int_equal(rg_idr_alloc(&idr, P(1), 0, 0), -ENOSPC);
	uint32_t u = 5;
	assert_int_equal(rg_idr_alloc_u32(&idr, P(4), &u, 0x7fffffff), -ENOSPC);
	assert_int_equal(u, 5);
	assert_int_equal(rg_idr_alloc_u32(&idr, P(4), &u, ULONG_MAX), 0);
	assert_int_equal(u, 0x80000000u);
	u = UINT_MAX;
	assert_int_equal(rg_idr_alloc_u32(&idr, P(5), &u, UINT_MAX), 0);
	assert_int_equal(u, UINT_MAX);
	assert_int_equal(rg_idr_alloc_u32(&idr, P(5), &u, UINT_MAX), -ENOSPC);
	assert_ptr_equal(rg_idr_find(&idr, UINT_MAX), P(5));
	RG_ASSERT_VALID(&idr);
	id = 0;
	assert_null(rg_idr_get_next(&idr, &id));
	assert_int_equal(id, 0);
	unsigned long ul = 0;
	assert_ptr_equal(rg_idr_get_next_ul(&idr, &ul), P(4));
	assert_int_equal(ul, 0x80000000u);
	rg_idr_destroy(&idr);
}

static int u32_cb(int id, void *ptr, void *data)
{
	int *calls = data;

	assert_true(id >= 0);
	assert_ptr_equal(ptr, P(3));
	(*calls)++;
	return 0;
}

/* The kernel's u32 cases, at base 0 and 1. */
static void test_u32(void **state)
{
	static const uint32_t handles[] = {
		10, 0x7fffffff, 0x80000000, 0x80000001, 0xffe00000, 0xffffffff
	};

	(void)state;
	for (unsigned int base = 0; base < 2; base++) {
		struct rg_idr idr;

		rg_idr_init_base(&idr, base);
		for (size_t k = 0; k < sizeof(handles) / sizeof(handles[0]);
		     k++) {
			uint32_t id = handles[k];
			int sid = 0, calls = 0;
			void *p;

			assert_int_equal(rg_idr_alloc_u32(&idr, P(3), &id, id),
					 0);
			assert_int_equal(id, handles[k]);
			assert_int_equal(rg_idr_alloc_u32(&idr, P(3), &id, id),
					 -ENOSPC);
			assert_int_equal(id, handles[k]);
			p = rg_idr_get_next(&idr, &sid);
			assert_int_equal(rg_idr_for_each(&idr, u32_cb, &calls),
					 0);
			if (id > INT_MAX) {
				assert_null(p);
				assert_int_equal(sid, 0);
				assert_int_equal(calls, 0);
			} else {
				assert_ptr_equal(p, P(3));
				assert_int_equal(sid, (int)id);
				assert_int_equal(calls, 1);
			}
			RG_ASSERT_VALID(&idr);
			assert_ptr_equal(rg_idr_remove(&idr, id), P(3));
			assert_true(rg_idr_is_empty(&idr));
		}
		/* *nextid above max, max above UINT_MAX. */
		uint32_t id = 9;
		assert_int_equal(rg_idr_alloc_u32(&idr, P(1), &id, 8), -ENOSPC);
		assert_int_equal(id, 9);
		id = UINT_MAX;
		assert_int_equal(rg_idr_alloc_u32(&idr, P(1), &id, ULONG_MAX),
				 0);
		assert_int_equal(id, UINT_MAX);
		assert_int_equal(rg_idr_alloc_u32(&idr, P(1), &id, ULONG_MAX),
				 -ENOSPC);
		assert_int_equal(id, UINT_MAX);
		/* Below the base means the base. */
		id = 0;
		assert_int_equal(rg_idr_alloc_u32(&idr, P(1), &id, 100), 0);
		assert_int_equal(id, base);
		assert_int_equal(rg_idr_alloc_u32(&idr, P(1), NULL, 100),
				 -EINVAL);
		rg_idr_destroy(&idr);
	}
}

static void test_cyclic(void **state)
{
	RG_DEFINE_IDR(idr);

	(void)state;
	/* The kernel's case: wrap from the end of [1, 0x4000) to 1. */
	assert_int_equal(rg_idr_alloc_cyclic(&idr, P(1), 0, 0x4000), 0);
	assert_int_equal(rg_idr_get_cursor(&idr), 1);
	assert_int_equal(rg_idr_alloc_cyclic(&idr, P(1), 0x3ffd, 0x4000),
			 0x3ffd);
	rg_idr_remove(&idr, 0x3ffd);
	rg_idr_remove(&idr, 0);
	for (unsigned long i = 0x3ffe; i < 0x4003; i++) {
		int want = i < 0x4000 ? (int)i : (int)(i - 0x3fff);

		assert_int_equal(rg_idr_alloc_cyclic(&idr, P(i), 1, 0x4000),
				 want);
		assert_int_equal(rg_idr_get_cursor(&idr), want + 1);
	}
	/* Freed IDs are not reused while the cursor is past them. */
	assert_ptr_equal(rg_idr_remove(&idr, 2), P(0x4001));
	assert_int_equal(rg_idr_alloc_cyclic(&idr, P(9), 1, 0x4000), 4);
	assert_int_equal(count_entries(&idr), 5);
	RG_ASSERT_VALID(&idr);
	rg_idr_destroy(&idr);

	/* The kernel's case: wrap at INT_MAX to the start of the range. */
	rg_idr_set_cursor(&idr, INT_MAX - 3U);
	assert_int_equal(rg_idr_get_cursor(&idr), INT_MAX - 3U);
	for (unsigned long i = INT_MAX - 3UL; i < INT_MAX + 3UL; i++) {
		int want = i <= INT_MAX ? (int)i : (int)(i - INT_MAX - 1);

		assert_int_equal(rg_idr_alloc_cyclic(&idr, P(i), 0, 0), want);
	}
	assert_int_equal(count_entries(&idr), 6);
	rg_idr_destroy(&idr);

	/* A cursor outside the range starts at the start. */
	rg_idr_set_cursor(&idr, 5);
	assert_int_equal(rg_idr_alloc_cyclic(&idr, P(1), 10, 20), 10);
	rg_idr_set_cursor(&idr, 50);
	assert_int_equal(rg_idr_alloc_cyclic(&idr, P(1), 10, 20), 11);
	/* Full, empty and bad ranges leave the cursor alone. */
	for (int i = 12; i < 20; i++)
		assert_int_equal(rg_idr_alloc_cyclic(&idr, P(1), 10, 20), i);
	assert_int_equal(rg_idr_get_cursor(&idr), 20);
	assert_int_equal(rg_idr_alloc_cyclic(&idr, P(1), 10, 20), -ENOSPC);
	assert_int_equal(rg_idr_alloc_cyclic(&idr, P(1), 30, 30), -ENOSPC);
	assert_int_equal(rg_idr_alloc_cyclic(&idr, P(1), -1, 30), -EINVAL);
	assert_int_equal(rg_idr_alloc_cyclic(&idr, BAD_PTR, 0, 0), -EINVAL);
	assert_int_equal(rg_idr_get_cursor(&idr), 20);
	/* From the cursor to the end is full: wrap to a free start. */
	assert_ptr_equal(rg_idr_remove(&idr, 10), P(1));
	rg_idr_set_cursor(&idr, 11);
	assert_int_equal(rg_idr_alloc_cyclic(&idr, P(1), 10, 20), 10);
	assert_int_equal(rg_idr_get_cursor(&idr), 11);
	rg_idr_set_cursor(&idr, 20);
	assert_int_equal(count_entries(&idr), 10);
	RG_ASSERT_VALID(&idr);
	rg_idr_destroy(&idr);
}

/* The kernel's NULL-entry cases. */
static void test_null_entries(void **state)
{
	RG_DEFINE_IDR(idr);
	void *old;

	(void)state;
	assert_int_equal(rg_idr_alloc(&idr, NULL, 0, 0), 0);
	assert_false(rg_idr_is_empty(&idr));
	assert_null(rg_idr_remove(&idr, 0));
	assert_true(rg_idr_is_empty(&idr));
	assert_int_equal(rg_idr_alloc(&idr, NULL, 0, 0), 0);
	rg_idr_destroy(&idr);
	assert_true(rg_idr_is_empty(&idr));

	for (int i = 0; i < 10; i++)
		assert_int_equal(rg_idr_alloc(&idr, NULL, 0, 0), i);
	assert_int_equal(count_entries(&idr), 0);
	assert_int_equal(rg_idr_replace(&idr, P(1), 3, &old), 0);
	assert_null(old);
	assert_int_equal(rg_idr_replace(&idr, P(1), 4, &old), 0);
	assert_null(old);
	assert_int_equal(rg_idr_replace(&idr, NULL, 4, &old), 0);
	assert_ptr_equal(old, P(1));
	assert_int_equal(rg_idr_replace(&idr, P(1), 11, &old), -ENOENT);
	assert_int_equal(count_entries(&idr), 1);
	rg_idr_remove(&idr, 5);
	assert_int_equal(rg_idr_alloc(&idr, NULL, 0, 0), 5);
	rg_idr_remove(&idr, 5);
	for (int i = 0; i < 9; i++) {
		rg_idr_remove(&idr, i);
		assert_false(rg_idr_is_empty(&idr));
	}
	rg_idr_remove(&idr, 8);
	assert_false(rg_idr_is_empty(&idr));
	rg_idr_remove(&idr, 9);
	assert_true(rg_idr_is_empty(&idr));

	assert_int_equal(rg_idr_alloc(&idr, NULL, 0, 0), 0);
	assert_int_equal(rg_idr_replace(&idr, P(1), 3, NULL), -ENOENT);
	assert_int_equal(rg_idr_replace(&idr, P(1), 0, &old), 0);
	assert_null(old);
	assert_ptr_equal(rg_idr_find(&idr, 0), P(1));
	assert_int_equal(rg_idr_replace(&idr, NULL, 0, &old), 0);
	assert_ptr_equal(old, P(1));
	assert_null(rg_idr_find(&idr, 0));
	rg_idr_destroy(&idr);
	for (int i = 1; i < 10; i++)
		assert_int_equal(rg_idr_alloc(&idr, NULL, 1, 0), i);
	RG_ASSERT_VALID(&idr);
	rg_idr_destroy(&idr);
	assert_true(rg_idr_is_empty(&idr));
}

/* Any pointer: every alignment, odd values, error pointers, and refusal. */
static void test_any_pointer(void **state)
{
	static char name[] = "Motorola 68000";
	RG_DEFINE_IDR(idr);
	void *odd[] = { (void *)-1, (void *)(uintptr_t)-2, (void *)3,
			(void *)(uintptr_t)-4095, rg_xa_mk_value(12345) };
	size_t bytes;
	void *old;
	int id;

	(void)state;
	for (int i = 0; i < 12; i++)
		assert_int_equal(rg_idr_alloc(&idr, &name[i], 0, 0), i);
	for (int i = 0; i < 12; i++)
		assert_ptr_equal(rg_idr_find(&idr, i), &name[i]);
	id = 0;
	for (void *p = rg_idr_get_next(&idr, &id); p;
	     id++, p = rg_idr_get_next(&idr, &id))
		assert_ptr_equal(p, &name[id]);
	assert_int_equal(id, 12);
	for (int i = 0; i < 5; i++)
		assert_int_equal(rg_idr_alloc(&idr, odd[i], 0, 0), 12 + i);
	for (int i = 0; i < 5; i++) {
		assert_ptr_equal(rg_idr_find(&idr, 12 + i), odd[i]);
		assert_int_equal(rg_idr_replace(&idr, &name[1], 12 + i, &old),
				 0);
		assert_ptr_equal(old, odd[i]);
	}
	RG_ASSERT_VALID(&idr);

	/* Refused: nothing changes. */
	bytes = rg_idr_bytes(&idr);
	uint32_t u = 0;
	assert_int_equal(rg_idr_alloc(&idr, BAD_PTR, 0, 0), -EINVAL);
	assert_int_equal(rg_idr_alloc_u32(&idr, BAD_PTR, &u, 100), -EINVAL);
	assert_int_equal(u, 0);
	old = P(1);
	assert_int_equal(rg_idr_replace(&idr, BAD_PTR, 3, &old), -EINVAL);
	assert_ptr_equal(old, P(1));
	assert_ptr_equal(rg_idr_find(&idr, 3), &name[3]);
	assert_int_equal(rg_idr_bytes(&idr), bytes);
	assert_int_equal(count_entries(&idr), 17);
	RG_ASSERT_VALID(&idr);
	rg_idr_destroy(&idr);
}

/* A pointer with the top byte @tag (arm64 Android's heap tag is 0xb4). */
static void *tagged(uintptr_t tag, uintptr_t addr)
{
	return (void *)((tag << (sizeof(uintptr_t) * 8 - 8)) | addr);
}

/*
 * regress_idr_tagged_pointers: pointers whose two top bits are 10 were
 * refused with -EINVAL (the IDR rotated entries by two bits to get past
 * the xarray's reserved low bits), so on arm64 Android every heap pointer
 * (top byte 0xb4) and under HWASan every tagged one failed. Every pointer
 * the xarray does not reserve must round-trip through every call and the
 * kernel names; exactly the reserved values are refused.
 */
static void test_regress_idr_tagged_pointers(void **state)
{
	const uintptr_t top10 = (uintptr_t)2 << (sizeof(uintptr_t) * 8 - 2);
	void *ptrs[] = {
		tagged(0xb4, 0x7fe4a01230), /* arm64 Android heap */
		tagged(0xb4, 0x7fe4a01238),
		tagged(0x80, 0x1000), /* top bits 10, every kind */
		tagged(0xbf, 0xfffffffffffffc),
		(void *)(top10 | 8),
		(void *)(top10 | 1), /* odd: a value entry */
		(void *)(top10 | 2), /* low bits 10 above 4096 */
		(void *)(uintptr_t)4098,
		(void *)(uintptr_t)4096,
		(void *)(uintptr_t)(((uintptr_t)1 << 63) | 0x5a5a), /* cookie */
	};
	const size_t n = RGT_ARRAY_SIZE(ptrs);
	RG_DEFINE_IDR(idr);
	DEFINE_IDR(k);
	void *old, *p;
	uint32_t u;
	int id;

	(void)state;
	/* alone at ID 0 first: the xarray holds it in its head */
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(rg_idr_alloc(&idr, ptrs[i], 0, 0), 0);
		assert_ptr_equal(rg_idr_find(&idr, 0), ptrs[i]);
		RG_ASSERT_VALID(&idr);
		assert_ptr_equal(rg_idr_remove(&idr, 0), ptrs[i]);
		assert_true(rg_idr_is_empty(&idr));
	}
	for (size_t i = 0; i < n; i++)
		assert_int_equal(rg_idr_alloc(&idr, ptrs[i], 0, 0), (int)i);
	u = 1000;
	assert_int_equal(rg_idr_alloc_u32(&idr, ptrs[0], &u, UINT_MAX), 0);
	assert_int_equal(u, 1000);
	assert_int_equal(rg_idr_alloc_cyclic(&idr, ptrs[2], 2000, 0), 2000);
	RG_ASSERT_VALID(&idr);
	for (size_t i = 0; i < n; i++)
		assert_ptr_equal(rg_idr_find(&idr, i), ptrs[i]);
	assert_ptr_equal(rg_idr_find(&idr, 1000), ptrs[0]);
	assert_ptr_equal(rg_idr_find(&idr, 2000), ptrs[2]);
	id = 0;
	rg_idr_for_each_entry(&idr, p, id)
	{
		if (id < (int)n)
			assert_ptr_equal(p, ptrs[id]);
	}
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(rg_idr_replace(&idr, ptrs[n - 1 - i], i, &old),
				 0);
		assert_ptr_equal(old, ptrs[i]);
	}
	for (size_t i = 0; i < n; i++)
		assert_ptr_equal(rg_idr_remove(&idr, i), ptrs[n - 1 - i]);
	assert_ptr_equal(rg_idr_remove(&idr, 1000), ptrs[0]);
	assert_ptr_equal(rg_idr_remove(&idr, 2000), ptrs[2]);
	assert_true(rg_idr_is_empty(&idr));

	/* the kernel names */
	for (size_t i = 0; i < n; i++)
		assert_int_equal(idr_alloc(&k, ptrs[i], 0, 0, GFP_KERNEL),
				 (int)i);
	u = 500;
	assert_int_equal(idr_alloc_u32(&k, ptrs[1], &u, 600, GFP_KERNEL), 0);
	assert_int_equal(idr_alloc_cyclic(&k, ptrs[3], 0, 0, GFP_KERNEL),
			 (int)n);
	for (size_t i = 0; i < n; i++)
		assert_ptr_equal(idr_find(&k, i), ptrs[i]);
	assert_ptr_equal(idr_find(&k, 500), ptrs[1]);
	assert_ptr_equal(idr_replace(&k, ptrs[4], 0), ptrs[0]);
	assert_ptr_equal(idr_find(&k, 0), ptrs[4]);
	assert_ptr_equal(idr_remove(&k, 0), ptrs[4]);
	assert_ptr_equal(idr_remove(&k, n), ptrs[3]);
	idr_destroy(&k);

	/* refused: exactly the 1024 values the xarray reserves */
	for (uintptr_t v = 2; v <= 4094; v += 4) {
		assert_int_equal(rg_idr_alloc(&idr, (void *)v, 0, 0), -EINVAL);
		u = 0;
		assert_int_equal(rg_idr_alloc_u32(&idr, (void *)v, &u, 9),
				 -EINVAL);
		assert_int_equal(rg_idr_alloc_cyclic(&idr, (void *)v, 0, 0),
				 -EINVAL);
	}
	assert_true(rg_idr_is_empty(&idr));
	assert_int_equal(rg_idr_alloc(&idr, (void *)(uintptr_t)4094, 0, 0),
			 -EINVAL);
	assert_int_equal(rg_idr_alloc(&idr, ptrs[0], 0, 0), 0);
	assert_int_equal(rg_idr_replace(&idr, (void *)(uintptr_t)2, 0, &old),
			 -EINVAL);
	assert_ptr_equal(rg_idr_find(&idr, 0), ptrs[0]);
	RG_ASSERT_VALID(&idr);
	rg_idr_destroy(&idr);
}

struct walk {
	int ids[16];
	int n;
	int stop_at;
	struct rg_idr *remove_from;
};

static int walk_cb(int id, void *ptr, void *data)
{
	struct walk *w = data;

	assert_ptr_equal(ptr, P(id));
	assert_true(w->n < 16);
	w->ids[w->n++] = id;
	if (w->remove_from)
		assert_ptr_equal(rg_idr_remove(w->remove_from, id), P(id));
	return id == w->stop_at ? 42 : 0;
}

static void test_iterators(void **state)
{
	static const int ids[] = { 4, 7, 9, 15, 65, 128, 1000, 99999 };
	const int n = (int)(sizeof(ids) / sizeof(ids[0]));

	(void)state;
	for (unsigned int base = 0; base < 2; base++) {
		struct rg_idr idr;
		struct walk w;
		unsigned long ul, tmp;
		int id, k;
		void *p;

		rg_idr_init_base(&idr, base);
		for (k = 0; k < n; k++)
			assert_int_equal(rg_idr_alloc(&idr, P(ids[k]), ids[k],
						      ids[k] + 1),
					 ids[k]);
		/* IDs holding NULL are skipped everywhere. */
		assert_int_equal(rg_idr_alloc(&idr, NULL, 8, 9), 8);
		assert_int_equal(rg_idr_alloc(&idr, NULL, 5000, 0), 5000);

		for (k = 0, id = 0; k < n; k++, id++) {
			assert_ptr_equal(rg_idr_get_next(&idr, &id), P(ids[k]));
			assert_int_equal(id, ids[k]);
		}
		assert_null(rg_idr_get_next(&idr, &id));
		assert_int_equal(id, 100000);
		id = -1;
		assert_null(rg_idr_get_next(&idr, &id));
		assert_int_equal(id, -1);
		for (k = 0, ul = 0; k < n; k++, ul++) {
			assert_ptr_equal(rg_idr_get_next_ul(&idr, &ul),
					 P(ids[k]));
			assert_int_equal(ul, ids[k]);
		}
		assert_null(rg_idr_get_next_ul(&idr, &ul));
		assert_int_equal(ul, 100000);

		k = 0;
		rg_idr_for_each_entry(&idr, p, id)
		{
			assert_int_equal(id, ids[k]);
			assert_ptr_equal(p, P(id));
			k++;
		}
		assert_int_equal(k, n);
		k = 0;
		rg_idr_for_each_entry_ul(&idr, p, tmp, ul)
		{
			assert_int_equal(ul, ids[k]);
			k++;
		}
		assert_int_equal(k, n);
		/* _continue starts at the current ID, included. */
		id = 9;
		k = 2;
		rg_idr_for_each_entry_continue(&idr, p, id)
			assert_int_equal(id, ids[k++]);
		assert_int_equal(k, n);
		ul = 10;
		k = 3;
		rg_idr_for_each_entry_continue_ul(&idr, p, tmp, ul)
			assert_int_equal(ul, ids[k++]);
		assert_int_equal(k, n);

		/* for_each: order, early stop with fn's value. */
		memset(&w, 0, sizeof(w));
		w.stop_at = 15;
		assert_int_equal(rg_idr_for_each(&idr, walk_cb, &w), 42);
		assert_int_equal(w.n, 4);
		assert_int_equal(w.ids[3], 15);
		/* fn may remove the ID it is given. */
		memset(&w, 0, sizeof(w));
		w.stop_at = -1;
		w.remove_from = &idr;
		assert_int_equal(rg_idr_for_each(&idr, walk_cb, &w), 0);
		assert_int_equal(w.n, n);
		for (k = 0; k < n; k++)
			assert_int_equal(w.ids[k], ids[k]);
		assert_false(rg_idr_is_empty(&idr)); /* the NULL IDs */
		assert_null(rg_idr_remove(&idr, 8));
		assert_null(rg_idr_remove(&idr, 5000));
		assert_true(rg_idr_is_empty(&idr));
		RG_ASSERT_VALID(&idr);
		rg_idr_destroy(&idr);
	}

	/* The _ul forms reach UINT_MAX, the top of a based IDR. */
	struct rg_idr big;
	unsigned long ul, tmp;
	void *p;
	int k = 0;

	rg_idr_init_base(&big, UINT_MAX);
	uint32_t u = 0;
	assert_int_equal(rg_idr_alloc_u32(&big, P(1), &u, UINT_MAX), 0);
	assert_int_equal(u, UINT_MAX);
	rg_idr_for_each_entry_ul(&big, p, tmp, ul) k++;
	assert_int_equal(k, 1);
	ul = ULONG_MAX;
	assert_null(rg_idr_get_next_ul(&big, &ul));
	rg_idr_destroy(&big);
}

static int never_cb(int id, void *ptr, void *data)
{
	(void)id;
	(void)ptr;
	(void)data;
	fail_msg("called");
	return 0;
}

static void test_null_args(void **state)
{
	uint32_t u = 0;
	unsigned long ul = 0;
	int id = 0;
	void *old = NULL;

	(void)state;
	rg_idr_init(NULL);
	rg_idr_init_base(NULL, 1);
	assert_int_equal(rg_idr_alloc(NULL, P(1), 0, 0), -EINVAL);
	assert_int_equal(rg_idr_alloc_u32(NULL, P(1), &u, 10), -EINVAL);
	assert_int_equal(rg_idr_alloc_cyclic(NULL, P(1), 0, 0), -EINVAL);
	assert_null(rg_idr_find(NULL, 0));
	assert_null(rg_idr_remove(NULL, 0));
	assert_int_equal(rg_idr_replace(NULL, P(1), 0, &old), -EINVAL);
	assert_null(rg_idr_get_next(NULL, &id));
	assert_null(rg_idr_get_next_ul(NULL, &ul));
	assert_int_equal(rg_idr_for_each(NULL, never_cb, NULL), -EINVAL);
	assert_false(rg_idr_is_empty(NULL));
	rg_idr_destroy(NULL);
	assert_int_equal(rg_idr_get_cursor(NULL), 0);
	rg_idr_set_cursor(NULL, 3);
	assert_int_equal(rg_idr_bytes(NULL), 0);
	assert_int_equal(rg_idr_validate(NULL, NULL), -EINVAL);

	RG_DEFINE_IDR(idr);
	assert_int_equal(rg_idr_alloc(&idr, P(1), 0, 0), 0);
	assert_null(rg_idr_get_next(&idr, NULL));
	assert_null(rg_idr_get_next_ul(&idr, NULL));
	assert_int_equal(rg_idr_for_each(&idr, NULL, NULL), -EINVAL);
	RG_ASSERT_VALID(&idr);
	rg_idr_destroy(&idr);
}

static void test_validate_catches(void **state)
{
	struct rg_idr idr;
	const char *why = NULL;

	(void)state;
	rg_idr_init_base(&idr, 16);
	assert_int_equal(rg_idr_alloc(&idr, P(1), 0, 0), 16);
	RG_ASSERT_VALID(&idr);
	/* An index whose ID would pass UINT_MAX, planted in the xarray. */
	assert_int_equal(
		rg_xa_store(&idr.xa, (unsigned long)UINT_MAX - 15, P(2), NULL),
		0);
	assert_int_equal(rg_idr_validate(&idr, &why), -EINVAL);
	assert_non_null(why);
	rg_xa_erase(&idr.xa, (unsigned long)UINT_MAX - 15);
	assert_int_equal(
		rg_xa_store(&idr.xa, (unsigned long)UINT_MAX - 16, P(2), NULL),
		0);
	RG_ASSERT_VALID(&idr);
	rg_idr_destroy(&idr);
}

static void test_dump(void **state)
{
	struct rg_idr idr = RG_IDR_INIT_BASE(3);
	char buf[512] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	(void)state;
	assert_non_null(f);
	assert_int_equal(rg_idr_alloc(&idr, (void *)0x40, 0, 0), 3);
	assert_int_equal(rg_idr_alloc(&idr, NULL, 0, 0), 4);
	assert_int_equal(rg_idr_alloc_cyclic(&idr, (void *)0x80, 0, 0), 5);
	rg_idr_dump(&idr, f);
	rg_idr_dump(NULL, f);
	rg_idr_dump(&idr, NULL);
	fclose(f);
	assert_non_null(strstr(buf, "base 3 cursor 6"));
	assert_non_null(strstr(buf, "id 3: 0x40\n"));
	assert_non_null(strstr(buf, "id 4: (nil)\n"));
	assert_non_null(strstr(buf, "id 5: 0x80\n"));
	assert_null(strstr(buf, "id 6"));
	rg_idr_destroy(&idr);
}

static int free_cb(int id, void *ptr, void *data)
{
	(void)id;
	(void)data;
	free(ptr);
	return 0;
}

static void test_linux_names(void **state)
{
	DEFINE_IDR(idr);
	struct idr b = IDR_INIT_BASE(b, 1);
	DEFINE_IDA(ida);
	uint32_t u = 100;
	unsigned long ul, tmp;
	void *p;
	int id, n;

	(void)state;
	idr_preload(GFP_KERNEL);
	for (int i = 0; i < 3; i++)
		assert_int_equal(
			idr_alloc(&idr, malloc(8), i, i + 1, GFP_NOWAIT), i);
	idr_preload_end();
	assert_int_equal(idr_alloc_u32(&idr, NULL, &u, 200, GFP_KERNEL), 0);
	assert_int_equal(u, 100);
	assert_int_equal(idr_alloc_cyclic(&idr, P(5), 0, 0, GFP_KERNEL), 3);
	assert_int_equal(idr_get_cursor(&idr), 4);
	idr_set_cursor(&idr, 50);
	assert_int_equal(idr_alloc_cyclic(&idr, P(5), 0, 0, GFP_KERNEL), 50);
	assert_ptr_equal(idr_find(&idr, 50), P(5));
	assert_ptr_equal(idr_replace(&idr, P(6), 50), P(5));
	assert_null(idr_replace(&idr, P(6), 100));
	assert_ptr_equal(idr_replace(&idr, NULL, 100), P(6));
	p = idr_replace(&idr, P(6), 101);
	assert_true(IS_ERR(p));
	assert_int_equal(PTR_ERR(p), -ENOENT);
	assert_ptr_equal(p, ERR_PTR(-ENOENT));
	assert_int_equal(PTR_ERR(idr_replace(&idr, BAD_PTR, 50)), -EINVAL);
	assert_false(IS_ERR(P(1)));
	assert_int_equal(idr_alloc(&idr, P(1), -1, 0, GFP_KERNEL), -EINVAL);
	assert_ptr_equal(idr_remove(&idr, 50), P(6));
	assert_ptr_equal(idr_remove(&idr, 3), P(5));

	n = 0;
	idr_for_each_entry(&idr, p, id) assert_int_equal(id, n++);
	assert_int_equal(n, 3);
	n = 0;
	idr_for_each_entry_ul(&idr, p, tmp, ul) n++;
	assert_int_equal(n, 3);
	id = 1;
	n = 0;
	idr_for_each_entry_continue(&idr, p, id) n++;
	assert_int_equal(n, 2);
	ul = 2;
	n = 0;
	idr_for_each_entry_continue_ul(&idr, p, tmp, ul) n++;
	assert_int_equal(n, 1);
	id = 1;
	assert_non_null(idr_get_next(&idr, &id));
	ul = 3;
	assert_null(idr_get_next_ul(&idr, &ul));
	assert_false(idr_is_empty(&idr));
	assert_int_equal(idr_for_each(&idr, free_cb, NULL), 0);
	idr_destroy(&idr);
	assert_true(idr_is_empty(&idr));
	idr_init(&idr);
	idr_init_base(&idr, 7);
	assert_int_equal(idr_alloc(&idr, P(1), 0, 0, GFP_KERNEL), 7);
	idr_destroy(&idr);

	assert_int_equal(idr_alloc(&b, P(1), 0, 1, GFP_KERNEL), -ENOSPC);
	assert_int_equal(idr_alloc(&b, P(1), 0, 0, GFP_KERNEL), 1);
	idr_destroy(&b);

	/* ida_simple_get: [start, end), end 0 meaning no limit. */
	assert_int_equal(ida_simple_get(&ida, 5, 7, GFP_KERNEL), 5);
	assert_int_equal(ida_simple_get(&ida, 5, 7, GFP_KERNEL), 6);
	assert_int_equal(ida_simple_get(&ida, 5, 7, GFP_KERNEL), -ENOSPC);
	assert_int_equal(ida_simple_get(&ida, 5, 0, GFP_KERNEL), 7);
	assert_int_equal(ida_simple_get(&ida, INT_MAX, 0, GFP_KERNEL), INT_MAX);
	assert_int_equal(ida_simple_get(&ida, INT_MAX, 0, GFP_KERNEL), -ENOSPC);
	ida_simple_remove(&ida, 5);
	assert_int_equal(ida_simple_get(&ida, 0, 0, GFP_KERNEL), 0);
	assert_int_equal(ida_simple_get(&ida, 0, 0, GFP_KERNEL), 1);
	assert_int_equal(ida_simple_get(&ida, 0, 0, GFP_KERNEL), 2);
	assert_int_equal(ida_simple_get(&ida, 0, 0, GFP_KERNEL), 3);
	assert_int_equal(ida_simple_get(&ida, 0, 0, GFP_KERNEL), 4);
	assert_int_equal(ida_simple_get(&ida, 0, 0, GFP_KERNEL), 5);
	assert_int_equal(ida_simple_get(&ida, 0, 0, GFP_KERNEL), 8);
	ida_simple_remove(&ida, 8);
	assert_false(rg_ida_exists(&ida.rg, 8));
	ida_destroy(&ida);
	assert_true(ida_is_empty(&ida));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_sequential_reuse),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_base),
		cmocka_unit_test(test_u32),
		cmocka_unit_test(test_cyclic),
		cmocka_unit_test(test_null_entries),
		cmocka_unit_test(test_any_pointer),
		cmocka_unit_test(test_regress_idr_tagged_pointers),
		cmocka_unit_test(test_iterators),
		cmocka_unit_test(test_null_args),
		cmocka_unit_test(test_validate_catches),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_linux_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
