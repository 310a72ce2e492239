// SPDX-License-Identifier: MIT
/*
 * Fault injection on the sbitmap's one allocation, the block that
 * rg_sbitmap_queue_init() (and sbitmap_queue_init_node()) takes, at several
 * depths and shifts: for n = 1, 2, ... the nth allocation attempt fails
 * until the call succeeds; each failure must return -ENOMEM and leave the
 * instance zeroed (destroy is then a no-op, validate says it is not
 * initialised). No other call allocates: a full get/clear/resize/wait
 * round with every allocation made to fail still works.
 */
#include <errno.h>
#include <string.h>

#include "region/linux/sbitmap.h"
#include "region/sbitmap.h"
#include "rg_test.h"

static bool zeroed(const struct rg_sbitmap_queue *q)
{
	static const struct rg_sbitmap_queue zero;

	return !memcmp(q, &zero, sizeof(zero));
}

static void init_loop(unsigned int depth, int shift, bool kernel)
{
	struct rg_sbitmap_queue q;
	unsigned long n;
	int err;

	memset(&q, 0x5a, sizeof(q));
	RG_FAULT_LOOP(n, err,
		      kernel ? sbitmap_queue_init_node(&q, depth, shift, false,
						       GFP_KERNEL, -1) :
			       rg_sbitmap_queue_init(&q, depth, shift, false),
		      {
			      assert_true(zeroed(&q));
			      assert_int_equal(
				      rg_sbitmap_queue_validate(&q, NULL),
				      -EINVAL);
			      rg_sbitmap_queue_destroy(&q);
			      memset(&q, 0x5a, sizeof(q));
		      });
	assert_int_equal(err, 0);
	assert_int_equal(n, 2); /* exactly one allocation */
	RG_ASSERT_VALID(&q);
	assert_int_equal(q.sb.depth, depth);
	rg_sbitmap_queue_destroy(&q);
}

static void test_init_faults(void **state)
{
	(void)state;
	init_loop(1, -1, false);
	init_loop(128, -1, false);
	init_loop(1000, 3, false);
	init_loop(64, 6, true);
}

/* Nothing after init allocates: every call works with faults armed. */
static void test_no_other_allocation(void **state)
{
	struct rg_sbitmap_queue q;
	unsigned int off;
	unsigned long mask;
	int tag, tags[1];

	(void)state;
	assert_int_equal(rg_sbitmap_queue_init(&q, 64, -1, false), 0);
	rg_fault_inject(1);
	tag = rg_sbitmap_queue_get(&q);
	assert_true(tag >= 0);
	assert_int_equal(rg_sbitmap_queue_get_batch(&q, 4, &off, &mask), 4);
	tags[0] = rg_sbitmap_queue_get_shallow(&q, 8);
	assert_true(tags[0] >= 0);
	assert_int_equal(rg_sbitmap_queue_clear(&q, (unsigned int)tag), 0);
	assert_int_equal(rg_sbitmap_queue_clear_batch(&q, 0, tags, 1), 0);
	assert_int_equal(rg_sbitmap_queue_resize(&q, 32), 0);
	assert_int_equal(rg_sbitmap_queue_min_shallow_depth(&q, 2), 0);
	assert_true(rg_sbitmap_queue_get_wait(&q) >= 0);
	rg_sbitmap_queue_wake_all(&q);
	assert_int_equal(rg_sbitmap_queue_validate(&q, NULL), 0);
	assert_false(rg_fault_fired());
	rg_fault_inject(0);
	rg_sbitmap_queue_destroy(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_faults),
		cmocka_unit_test(test_no_other_allocation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
