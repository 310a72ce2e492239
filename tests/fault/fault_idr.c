// SPDX-License-Identifier: MIT
/*
 * Fault injection on every allocating IDR call (alloc, alloc_u32,
 * alloc_cyclic, with a pointer and with NULL) in every shape that needs
 * nodes: the first node, a tree grown by many levels, a new path inside a
 * tree, the top of the u32 space in a based IDR, a cyclic cursor far from
 * the other IDs. For n = 1, 2, ... the nth allocation attempt fails until
 * the call succeeds with no failure fired; each failure must return
 * -ENOMEM and leave the IDR equal to a model of its IDs (pointers, IDs
 * holding NULL, the target ID free, the cursor, the bytes held) and valid,
 * with the node cache's objects_in_use back at its baseline. The calls
 * that never allocate are run with a failure armed and must not fire it.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "region/idr.h"
#include "rg_test.h"

#define P(n) ((void *)(uintptr_t)(((uintptr_t)(n) << 4) | 0x10000))
#define MAXM 256

/* The model: the IDs the test allocated and what they hold. */
struct model {
	size_t n;
	unsigned long id[MAXM];
	void *ptr[MAXM];
};

enum op { OP_ALLOC, OP_ALLOC_NULL, OP_ALLOC_U32, OP_CYCLIC, OP_NR };

static const char *const op_name[] = { "alloc", "alloc NULL", "alloc_u32",
				       "cyclic" };

static size_t nodes_in_use(void)
{
	struct rg_slab_stats st;

	assert_int_equal(rg_xa_node_cache_stats(&st), 0);
	return st.objects_in_use;
}

static void model_add(struct model *m, unsigned long id, void *ptr)
{
	assert_true(m->n < MAXM);
	m->id[m->n] = id;
	m->ptr[m->n] = ptr;
	m->n++;
}

/* The IDR holds exactly the model's IDs; @free_id is not allocated. */
static void same(struct rg_idr *idr, const struct model *m,
		 unsigned long free_id)
{
	unsigned long id, tmp, nonnull = 0;
	void *p, *old;

	RG_ASSERT_VALID(idr);
	for (size_t k = 0; k < m->n; k++) {
		assert_ptr_equal(rg_idr_find(idr, m->id[k]), m->ptr[k]);
		/* Replacing with the same pointer proves the ID allocated. */
		assert_int_equal(rg_idr_replace(idr, m->ptr[k], m->id[k], &old),
				 0);
		assert_ptr_equal(old, m->ptr[k]);
		nonnull += m->ptr[k] != NULL;
	}
	rg_idr_for_each_entry_ul(idr, p, tmp, id)
	{
		bool known = false;

		for (size_t k = 0; k < m->n; k++)
			known |= m->id[k] == id && m->ptr[k] == p;
		assert_true(known);
		nonnull--;
	}
	assert_int_equal(nonnull, 0);
	assert_int_equal(rg_idr_replace(idr, P(1), free_id, NULL), -ENOENT);
	assert_int_equal(rg_idr_is_empty(idr), m->n == 0);
}

static int do_op(struct rg_idr *idr, enum op op, unsigned long target)
{
	uint32_t id = (uint32_t)target;
	int got, err;

	switch (op) {
	case OP_ALLOC:
	case OP_ALLOC_NULL:
		got = rg_idr_alloc(idr, op == OP_ALLOC ? P(target) : NULL,
				   (int)target, 0);
		if (got >= 0)
			assert_int_equal(got, target);
		return got < 0 ? got : 0;
	case OP_ALLOC_U32:
		err = rg_idr_alloc_u32(idr, P(target), &id, ULONG_MAX);
		if (!err)
			assert_int_equal(id, target);
		else
			assert_int_equal(id, (uint32_t)target);
		return err;
	case OP_CYCLIC:
		/* The cursor points at the target. */
		rg_idr_set_cursor(idr, (unsigned int)target);
		got = rg_idr_alloc_cyclic(idr, P(target), 0, 0);
		if (got >= 0)
			assert_int_equal(got, target);
		return got < 0 ? got : 0;
	default:
		return -EINVAL;
	}
}

/* Run @op for @target with failures injected; returns failures seen. */
static unsigned int fault_loop(struct rg_idr *idr, struct model *m, enum op op,
			       unsigned long target)
{
	size_t base = nodes_in_use(), bytes = rg_idr_bytes(idr);
	unsigned int failures = 0, cursor;
	unsigned long n;
	int err;

	if (op == OP_CYCLIC)
		rg_idr_set_cursor(idr, (unsigned int)target);
	cursor = rg_idr_get_cursor(idr);
	RG_FAULT_LOOP(n, err, do_op(idr, op, target), {
		same(idr, m, target);
		assert_int_equal(rg_idr_get_cursor(idr), cursor);
		assert_int_equal(rg_idr_bytes(idr), bytes);
		assert_int_equal(nodes_in_use(), base);
		failures++;
	});
	if (err)
		fail_msg("%s at %lu: %d without a fault", op_name[op], target,
			 err);
	model_add(m, target, op == OP_ALLOC_NULL ? NULL : P(target));
	same(idr, m, target + 1);
	if (op == OP_CYCLIC)
		assert_int_equal(rg_idr_get_cursor(idr), target + 1);
	return failures;
}

static void test_shapes(void **state)
{
	(void)state;
	for (int op = 0; op < OP_NR; op++) {
		struct model m = { 0 };
		size_t base = nodes_in_use();
		struct rg_idr idr;

		rg_idr_init(&idr);
		/* ID 0 stays in the xarray's head: no allocation. */
		assert_int_equal(fault_loop(&idr, &m, op, 0), 0);
		/* The first node. */
		assert_true(fault_loop(&idr, &m, op, 1) > 0);
		/* Growth by several levels, then a new path inside. */
		assert_true(fault_loop(&idr, &m, op, 1UL << 30) > 0);
		assert_true(fault_loop(&idr, &m, op, 70000) > 0);
		/* An existing leaf: no allocation. */
		assert_int_equal(fault_loop(&idr, &m, op, 2), 0);
		rg_idr_destroy(&idr);
		assert_int_equal(nodes_in_use(), base);
		if (op != OP_ALLOC_U32)
			continue;
		/* The top of the u32 space in a based IDR. */
		memset(&m, 0, sizeof(m));
		rg_idr_init_base(&idr, 1);
		assert_int_equal(fault_loop(&idr, &m, op, 1), 0);
		assert_true(fault_loop(&idr, &m, op, UINT_MAX) > 0);
		rg_idr_destroy(&idr);
		assert_int_equal(nodes_in_use(), base);
	}
}

static int count_cb(int id, void *ptr, void *data)
{
	(void)id;
	(void)ptr;
	(*(int *)data)++;
	return 0;
}

/* The calls that never allocate do not fire an armed failure. */
static void test_no_allocation(void **state)
{
	RG_DEFINE_IDR(idr);
	unsigned long ul = 0;
	int id = 0, n = 0;
	void *old;

	(void)state;
	for (int i = 0; i < 200; i++)
		assert_int_equal(rg_idr_alloc(&idr, i % 3 ? P(i) : NULL, 0, 0),
				 i);
	rg_fault_inject(1);
	assert_int_equal(rg_idr_replace(&idr, P(7), 3, &old), 0);
	assert_null(old);
	assert_int_equal(rg_idr_replace(&idr, NULL, 4, &old), 0);
	assert_ptr_equal(old, P(4));
	assert_int_equal(rg_idr_replace(&idr, P(7), 500, NULL), -ENOENT);
	assert_ptr_equal(rg_idr_find(&idr, 5), P(5));
	assert_ptr_equal(rg_idr_remove(&idr, 5), P(5));
	assert_null(rg_idr_remove(&idr, 6));
	assert_ptr_equal(rg_idr_get_next(&idr, &id), P(1));
	assert_ptr_equal(rg_idr_get_next_ul(&idr, &ul), P(1));
	assert_int_equal(rg_idr_for_each(&idr, count_cb, &n), 0);
	assert_int_equal(n, 132);
	assert_false(rg_idr_is_empty(&idr));
	assert_int_equal(rg_idr_validate(&idr, NULL), 0);
	rg_idr_destroy(&idr);
	assert_false(rg_fault_fired());
	rg_fault_inject(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_no_allocation),
	};
	RG_DEFINE_IDR(warm);

	/* Create the node cache outside the fault loops. */
	assert_int_equal(rg_idr_alloc(&warm, P(1), 1, 0), 1);
	rg_idr_destroy(&warm);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
