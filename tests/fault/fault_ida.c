// SPDX-License-Identifier: MIT
/*
 * Fault injection on the IDA's allocating call, rg_ida_alloc_range() (and so
 * rg_ida_alloc / _min / _max), in every shape: a new value chunk in the
 * head (no memory), a new value chunk needing xarray nodes, a new bitmap
 * chunk (bitmap and nodes), a value chunk converting to a bitmap, a chunk
 * far above the tree. For n = 1, 2, ... the nth allocation attempt fails
 * until the call succeeds with no failure fired; each failure must return
 * -ENOMEM and leave the IDA valid with exactly the same IDs, bytes, bitmap
 * and node counts, and both slab caches' objects_in_use at their baselines.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "region/ida.h"
#include "region/xarray.h"
#include "rg_test.h"

#define MAXIDS 256

struct state {
	unsigned int ids[MAXIDS];
	size_t n;
};

static void in_use(size_t *nodes, size_t *bitmaps)
{
	struct rg_slab_stats st;

	assert_int_equal(rg_xa_node_cache_stats(&st), 0);
	*nodes = st.objects_in_use;
	assert_int_equal(rg_ida_bitmap_cache_stats(&st), 0);
	*bitmaps = st.objects_in_use;
}

static void take(struct rg_ida *ida, struct state *s, unsigned int min,
		 unsigned int want)
{
	assert_true(s->n < MAXIDS);
	assert_int_equal(rg_ida_alloc_min(ida, min, &s->ids[s->n]), 0);
	assert_int_equal(s->ids[s->n], want);
	s->n++;
}

/* Allocate from @min expecting @want, with failures injected. */
static unsigned int fault_loop(struct rg_ida *ida, struct state *s,
			       unsigned int min, unsigned int max,
			       unsigned int want)
{
	size_t nodes0, bitmaps0, nodes1, bitmaps1;
	size_t bytes = rg_ida_bytes(ida), bms = rg_ida_bitmap_count(ida);
	size_t xnodes = rg_xa_node_count(&ida->xa);
	unsigned int failures = 0, id;
	unsigned long n;
	int err;

	in_use(&nodes0, &bitmaps0);
	RG_FAULT_LOOP(
		n, err, (id = 0xdead, rg_ida_alloc_range(ida, min, max, &id)), {
			assert_int_equal(id, 0xdead);
			RG_ASSERT_VALID(ida);
			assert_int_equal(rg_ida_bytes(ida), bytes);
			assert_int_equal(rg_ida_bitmap_count(ida), bms);
			assert_int_equal(rg_xa_node_count(&ida->xa), xnodes);
			for (size_t k = 0; k < s->n; k++)
				assert_true(rg_ida_exists(ida, s->ids[k]));
			assert_false(rg_ida_exists(ida, want));
			in_use(&nodes1, &bitmaps1);
			assert_int_equal(nodes1, nodes0);
			assert_int_equal(bitmaps1, bitmaps0);
			failures++;
		});
	if (err)
		fail_msg("alloc [%u, %u]: %d without a fault", min, max, err);
	assert_int_equal(id, want);
	RG_ASSERT_VALID(ida);
	s->ids[s->n++] = id;
	in_use(&nodes1, &bitmaps1);
	assert_int_equal(nodes1 - nodes0, rg_xa_node_count(&ida->xa) - xnodes);
	assert_int_equal(bitmaps1 - bitmaps0, rg_ida_bitmap_count(ida) - bms);
	return failures;
}

static void test_shapes(void **state)
{
	RG_DEFINE_IDA(ida);
	struct state s = { { 0 }, 0 };
	size_t nodes0, bitmaps0, nodes1, bitmaps1;

	(void)state;
	in_use(&nodes0, &bitmaps0);
	/* A value chunk in the head: no memory at all. */
	assert_int_equal(fault_loop(&ida, &s, 0, INT_MAX, 0), 0);
	assert_int_equal(fault_loop(&ida, &s, 0, INT_MAX, 1), 0);
	/* A value chunk at index 3: xarray nodes only. */
	assert_true(fault_loop(&ida, &s, 3 * 1024 + 5, INT_MAX, 3 * 1024 + 5) >
		    0);
	/* A bitmap chunk at index 5: bitmap and nothing else. */
	assert_true(fault_loop(&ida, &s, 5 * 1024 + 700, INT_MAX,
			       5 * 1024 + 700) > 0);
	/* A bitmap chunk far above: bitmap and growth of the tree. */
	assert_true(fault_loop(&ida, &s, 12345678, INT_MAX, 12345678) > 0);
	assert_true(fault_loop(&ida, &s, INT_MAX, INT_MAX, INT_MAX) > 0);
	/* Value chunk 0 converts to a bitmap when ID 63 is needed. */
	for (unsigned int i = 2; i < 63; i++)
		take(&ida, &s, 0, i);
	assert_true(fault_loop(&ida, &s, 0, 100, 63) > 0);
	/* Within an existing bitmap: no memory. */
	assert_int_equal(fault_loop(&ida, &s, 0, 100, 64), 0);
	/* A value chunk in the middle of the grown tree. */
	assert_true(fault_loop(&ida, &s, 40000 * 1024, INT_MAX, 40000 * 1024) >
		    0);
	rg_ida_destroy(&ida);
	assert_true(rg_ida_is_empty(&ida));
	in_use(&nodes1, &bitmaps1);
	assert_int_equal(nodes1, nodes0);
	assert_int_equal(bitmaps1, bitmaps0);
}

/* A value chunk at index 0 moved out of the head by a new chunk. */
static void test_head_growth(void **state)
{
	RG_DEFINE_IDA(ida);
	struct state s = { { 0 }, 0 };

	(void)state;
	take(&ida, &s, 0, 0);
	take(&ida, &s, 70, 70);
	assert_true(fault_loop(&ida, &s, 1024, INT_MAX, 1024) > 0);
	assert_true(fault_loop(&ida, &s, 1 << 20, INT_MAX, 1 << 20) > 0);
	rg_ida_destroy(&ida);
}

/* Sequential allocation across chunk boundaries, failing at every step. */
static void test_sequential(void **state)
{
	RG_DEFINE_IDA(ida);
	struct state s = { { 0 }, 0 };
	unsigned int id, n = RG_THOROUGH ? 3 * 1024 : 70 * 1024;

	(void)state;
	for (unsigned int i = 0; i < n; i++) {
		unsigned int before = (unsigned int)s.n;

		if (i % 1024 == 0 || i % 1024 == 63 || i % 1024 == 1023) {
			fault_loop(&ida, &s, 0, INT_MAX, i);
			s.n = before;
		} else {
			assert_int_equal(rg_ida_alloc(&ida, &id), 0);
			assert_int_equal(id, i);
		}
	}
	RG_ASSERT_VALID(&ida);
	rg_ida_destroy(&ida);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_head_growth),
		cmocka_unit_test(test_sequential),
	};
	RG_DEFINE_IDA(warm);
	unsigned int id;

	/* Create both slab caches outside the fault loops. */
	assert_int_equal(rg_ida_alloc_min(&warm, 5000, &id), 0);
	rg_ida_destroy(&warm);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
