// SPDX-License-Identifier: MIT
/*
 * Fault injection on every allocating xarray call (store, insert, cmpxchg,
 * reserve, alloc) in every shape that needs nodes: first node, growth from
 * an entry in the head, growth of a tree by many levels, a new path inside
 * a tree. For n = 1, 2, ... the nth allocation attempt fails until the call
 * succeeds with no failure fired; each failure must return -ENOMEM and
 * leave the array valid, with the same entries, marks and node count, and
 * the node cache's objects_in_use back at its baseline. The shapes run
 * again in RCU mode, from a thread registered with liburcu (lock-free
 * loads, nodes freed after a grace period).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <urcu/urcu-memb.h>

#include "region/xarray.h"
#include "rg_test.h"

#define P(n) ((void *)(uintptr_t)(((uintptr_t)(n) << 3) | 0x1000))
#define MAXE 70000

struct snap {
	size_t n, nodes;
	unsigned long index[MAXE];
	void *entry[MAXE];
	unsigned int marks[MAXE];
	bool empty;
};

enum op { OP_STORE, OP_INSERT, OP_CMPXCHG, OP_RESERVE, OP_ALLOC, OP_NR };

static const char *const op_name[] = { "store", "insert", "cmpxchg", "reserve",
				       "alloc" };

static size_t nodes_in_use(void)
{
	struct rg_slab_stats st;

	assert_int_equal(rg_xa_node_cache_stats(&st), 0);
	return st.objects_in_use;
}

static void take(struct rg_xarray *xa, struct snap *s)
{
	unsigned long i;
	void *e;

	memset(s, 0, sizeof(*s));
	rg_xa_for_each(xa, i, e)
	{
		assert_true(s->n < MAXE);
		s->index[s->n] = i;
		s->entry[s->n] = e;
		for (unsigned int m = 0; m <= RG_XA_MARK_MAX; m++)
			if (rg_xa_get_mark(xa, i, m))
				s->marks[s->n] |= 1u << m;
		s->n++;
	}
	s->nodes = rg_xa_node_count(xa);
	s->empty = rg_xa_empty(xa);
}

/* Snapshots are large: keep them out of the stack. */
static struct snap snap_before, snap_after;

static void same(struct rg_xarray *xa, const struct snap *a)
{
	struct snap *bp = &snap_after;

	RG_ASSERT_VALIDF(xa, "%s", "after a failure");
	take(xa, bp);
	assert_int_equal(a->n, bp->n);
	assert_int_equal(a->nodes, bp->nodes);
	assert_int_equal(a->empty, bp->empty);
	for (size_t k = 0; k < a->n; k++) {
		assert_int_equal(a->index[k], bp->index[k]);
		assert_ptr_equal(a->entry[k], bp->entry[k]);
		assert_int_equal(a->marks[k], bp->marks[k]);
	}
}

static int do_op(struct rg_xarray *xa, enum op op, unsigned long index)
{
	unsigned long id = 0;
	void *cur = NULL;
	int err;

	switch (op) {
	case OP_STORE:
		return rg_xa_store(xa, index, P(index & 0xffff), NULL);
	case OP_INSERT:
		return rg_xa_insert(xa, index, rg_xa_mk_value(index >> 1));
	case OP_CMPXCHG:
		err = rg_xa_cmpxchg(xa, index, NULL, P(3), &cur);
		if (!err)
			assert_null(cur);
		return err;
	case OP_RESERVE:
		return rg_xa_reserve(xa, index);
	case OP_ALLOC:
		err = rg_xa_alloc(xa, &id, P(5), index, ULONG_MAX);
		if (!err)
			assert_int_equal(id, index);
		return err;
	default:
		return -EINVAL;
	}
}

/* RCU mode: frees wait for a grace period (test_shapes_rcu()). */
static bool rcu_mode;

/* Run @op at @index on @xa with failures injected; returns failures seen. */
static unsigned int fault_loop(struct rg_xarray *xa, enum op op,
			       unsigned long index)
{
	size_t base;

	if (rcu_mode)
		rg_xa_rcu_barrier(); /* earlier frees done: a fixed base */
	base = nodes_in_use();
	unsigned int failures = 0;
	struct snap *before = &snap_before;
	unsigned long n;
	int err;

	take(xa, before);
	RG_FAULT_LOOP(n, err, do_op(xa, op, index), {
		same(xa, before);
		assert_int_equal(nodes_in_use(), base);
		failures++;
	});
	if (err)
		fail_msg("%s at %lu: %d without a fault", op_name[op], index,
			 err);
	RG_ASSERT_VALIDF(xa, "%s", "after success");
	if (op != OP_RESERVE)
		assert_non_null(rg_xa_load(xa, index));
	assert_int_equal(nodes_in_use(),
			 base + rg_xa_node_count(xa) - before->nodes);
	return failures;
}

/* A tree with entries spread over several leaves and levels, marked. */
static void populate(struct rg_xarray *xa)
{
	static const unsigned long idx[] = { 0, 5, 64, 4097, 300000 };

	for (size_t k = 0; k < sizeof(idx) / sizeof(idx[0]); k++) {
		assert_int_equal(rg_xa_store(xa, idx[k], P(k), NULL), 0);
		assert_int_equal(rg_xa_set_mark(xa, idx[k], 1 + k % 2), 0);
	}
}

static void test_shapes(void **state)
{
	(void)state;
	for (int op = 0; op < OP_NR; op++) {
		unsigned int flags = (op == OP_ALLOC ? RG_XA_FLAGS_ALLOC : 0) |
				     (rcu_mode ? RG_XA_FLAGS_RCU : 0);
		struct rg_xarray xa;

		/* Empty array: first leaf; a full-height path. */
		assert_int_equal(rg_xa_init_flags(&xa, flags), 0);
		assert_true(fault_loop(&xa, op, 1) > 0);
		rg_xa_destroy(&xa);
		assert_true(fault_loop(&xa, op, ULONG_MAX) > 0);
		rg_xa_destroy(&xa);
		/* Index 0 stays in the head: no allocation at all. */
		assert_int_equal(fault_loop(&xa, op, 0), 0);
		/* Growth from a marked head entry. */
		assert_int_equal(rg_xa_set_mark(&xa, 0, RG_XA_MARK_2), 0);
		assert_true(fault_loop(&xa, op, 1UL << 40) > 0);
		assert_true(rg_xa_get_mark(&xa, 0, RG_XA_MARK_2));
		rg_xa_destroy(&xa);
		/* Inside a populated tree: new path, growth, existing leaf. */
		populate(&xa);
		assert_true(fault_loop(&xa, op, 70000) > 0);
		assert_true(fault_loop(&xa, op, 1UL << 50) > 0);
		assert_int_equal(fault_loop(&xa, op, 6), 0);
		rg_xa_destroy(&xa);
		assert_int_equal(rg_xa_node_count(&xa), 0);
	}
}

static void test_shapes_rcu(void **state)
{
	struct rg_slab_stats st;

	urcu_memb_register_thread();
	rcu_mode = true;
	test_shapes(state);
	rcu_mode = false;
	urcu_memb_unregister_thread();
	rg_xa_rcu_barrier();
	assert_int_equal(rg_xa_node_cache_stats(&st), 0);
	assert_int_equal(st.objects_in_use, 0);
}

/* Allocation above a dense block of an allocating array. */
static void test_alloc_dense(void **state)
{
	RG_DEFINE_XARRAY_ALLOC(xa);
	size_t base = nodes_in_use();
	unsigned long id, n = RG_THOROUGH ? 4096 : 65536;

	(void)state;
	for (unsigned long i = 0; i < n; i++)
		assert_int_equal(rg_xa_alloc(&xa, &id, P(i), 0, ULONG_MAX), 0);
	/* The next free index is n: a new leaf (and a new level at 4096). */
	assert_true(fault_loop(&xa, OP_ALLOC, n) > 0);
	rg_xa_destroy(&xa);
	assert_int_equal(nodes_in_use(), base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_shapes_rcu),
		cmocka_unit_test(test_alloc_dense),
	};
	RG_DEFINE_XARRAY(warm);

	/* Create the node cache outside the fault loops. */
	assert_int_equal(rg_xa_store(&warm, 1, P(1), NULL), 0);
	rg_xa_destroy(&warm);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
