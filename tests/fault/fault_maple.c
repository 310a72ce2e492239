// SPDX-License-Identifier: MIT
/*
 * Fault injection on the Maple Tree: for every allocating call (store,
 * store_range, insert, insert_range, erase, alloc_range, alloc_rrange,
 * alloc_cyclic, rg_mas_preallocate, rg_mas_store_gfp, rg_mas_store,
 * rg_mas_erase), make the 1st, 2nd, ... allocation attempt fail until the
 * call succeeds without a fault. Each failure must return -ENOMEM (or NULL
 * with the error status), leave the tree valid with exactly the ranges it
 * had, and leak nothing: the node cache's objects in use and the tree's own
 * node count stay where they were. In RCU mode every store that replaces
 * nodes also reserves its deferred-free batch: failing that allocation
 * must fail the store just as cleanly (the counts are taken after
 * rg_mtree_rcu_barrier(), so earlier stores' deferred frees are done).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "region/maple_tree.h"
#include "rg_test.h"

#define V(x) rg_mt_mk_value(x)

struct snap {
	unsigned long n, cap;
	unsigned long *s, *l;
	void **e;
};

static void snap_take(struct rg_maple_tree *mt, struct snap *sn)
{
	RG_MA_STATE(mas, mt, 0, 0);
	void *e;

	sn->n = 0;
	rg_mtree_lock(mt);
	e = rg_mas_find_range(&mas, ULONG_MAX);
	for (;;) {
		if (sn->n == sn->cap) {
			sn->cap = sn->cap * 2 + 64;
			sn->s = realloc(sn->s, sn->cap * sizeof(*sn->s));
			sn->l = realloc(sn->l, sn->cap * sizeof(*sn->l));
			sn->e = realloc(sn->e, sn->cap * sizeof(*sn->e));
			assert_true(sn->s && sn->l && sn->e);
		}
		sn->s[sn->n] = mas.index;
		sn->l[sn->n] = mas.last;
		sn->e[sn->n] = e;
		sn->n++;
		if (mas.last == ULONG_MAX)
			break;
		e = rg_mas_next_range(&mas, ULONG_MAX);
	}
	rg_mtree_unlock(mt);
}

static void snap_same(const struct snap *a, const struct snap *b)
{
	assert_int_equal(a->n, b->n);
	for (unsigned long i = 0; i < a->n; i++) {
		assert_int_equal(a->s[i], b->s[i]);
		assert_int_equal(a->l[i], b->l[i]);
		assert_ptr_equal(a->e[i], b->e[i]);
	}
}

static void snap_free(struct snap *sn)
{
	free(sn->s);
	free(sn->l);
	free(sn->e);
}

static unsigned long live_nodes(void)
{
	struct rg_slab_stats st;

	rg_mtree_node_stats(&st);
	return st.objects_in_use;
}

enum op {
	OP_STORE_RANGE,
	OP_STORE,
	OP_INSERT_RANGE,
	OP_INSERT,
	OP_ERASE,
	OP_ALLOC,
	OP_RALLOC,
	OP_CYCLIC,
	OP_PREALLOC,
	OP_MAS_STORE_GFP,
	OP_MAS_STORE,
	OP_MAS_ERASE,
	NR_OPS
};

/* Run one call; 1 = -ENOMEM, 0 = done (success or a non-memory error). */
static int do_op(struct rg_maple_tree *mt, enum op op, unsigned long a,
		 unsigned long b, void *e, unsigned long *next)
{
	unsigned long start;
	int ret = 0;

	switch (op) {
	case OP_STORE_RANGE:
		ret = rg_mtree_store_range(mt, a, b, e);
		break;
	case OP_STORE:
		ret = rg_mtree_store(mt, a, e);
		break;
	case OP_INSERT_RANGE:
		ret = rg_mtree_insert_range(mt, a, b, e);
		break;
	case OP_INSERT:
		ret = rg_mtree_insert(mt, a, e);
		break;
	case OP_ERASE:
		ret = rg_mtree_erase_err(mt, a, NULL);
		break;
	case OP_ALLOC:
		ret = rg_mtree_alloc_range(mt, &start, e, 1 + b % 9, a,
					   ULONG_MAX);
		break;
	case OP_RALLOC:
		ret = rg_mtree_alloc_rrange(mt, &start, e, 1 + b % 9, 0,
					    a + 64);
		break;
	case OP_CYCLIC:
		ret = rg_mtree_alloc_cyclic(mt, &start, e, 0, a + 64, next);
		break;
	case OP_PREALLOC: {
		RG_MA_STATE(mas, mt, a, b);

		rg_mtree_lock(mt);
		ret = rg_mas_preallocate(&mas, e, 0);
		if (!ret)
			rg_mas_store_prealloc(&mas, e);
		rg_mtree_unlock(mt);
		break;
	}
	case OP_MAS_STORE_GFP: {
		RG_MA_STATE(mas, mt, a, b);

		rg_mtree_lock(mt);
		ret = rg_mas_store_gfp(&mas, e, 0);
		rg_mtree_unlock(mt);
		break;
	}
	case OP_MAS_STORE: {
		RG_MA_STATE(mas, mt, a, b);

		rg_mtree_lock(mt);
		rg_mas_store(&mas, e);
		if (mas.status == RG_MAS_ERROR)
			ret = mas.error;
		rg_mtree_unlock(mt);
		break;
	}
	case OP_MAS_ERASE: {
		RG_MA_STATE(mas, mt, a, a);

		rg_mtree_lock(mt);
		rg_mas_erase(&mas);
		if (mas.status == RG_MAS_ERROR)
			ret = mas.error;
		rg_mtree_unlock(mt);
		break;
	}
	default:
		break;
	}
	if (ret == -ENOMEM)
		return 1;
	assert_true(ret == 0 || ret == 1 || ret == -EEXIST || ret == -EBUSY);
	return 0;
}

static unsigned long failures;

/* The fault loop around one call. */
static void faulty(struct rg_maple_tree *mt, enum op op, unsigned long a,
		   unsigned long b, void *e, unsigned long *next)
{
	static unsigned long calls;
	struct snap before = { 0 }, after = { 0 };
	unsigned long nodes, nth, nx;
	int err;
	size_t bytes = rg_mtree_bytes(mt);
	/*
	 * RCU mode: earlier stores' nodes come back asynchronously; count the
	 * cache only after waiting for them (every 16th call: a wait is a
	 * grace period). The tree's own count (bytes) is exact at once.
	 */
	bool count = !rg_mtree_in_rcu(mt) || calls++ % 16 == 0;

	if (count && rg_mtree_in_rcu(mt))
		rg_mtree_rcu_barrier();
	nodes = live_nodes();
	snap_take(mt, &before);
	/* A failed allocation never turns into a success. */
	RG_FAULT_LOOP(nth, err,
		      (nx = *next, do_op(mt, op, a, b, e, &nx) ? -ENOMEM : 0), {
			      failures++;
			      RG_ASSERT_VALID(mt);
			      if (count)
				      assert_int_equal(live_nodes(), nodes);
			      assert_int_equal(rg_mtree_bytes(mt), bytes);
			      snap_take(mt, &after);
			      snap_same(&before, &after);
		      });
	assert_int_equal(err, 0);
	*next = nx;
	RG_ASSERT_VALID(mt);
	snap_free(&before);
	snap_free(&after);
}

static void run(unsigned int flags, unsigned long ops, unsigned long span)
{
	struct rg_maple_tree mt;
	struct rg_rand r;
	struct rg_mtree_stats st;
	unsigned long next = 0, base, f0 = failures;
	uint64_t seed = rg_test_seed();

	/* Make sure the node cache exists before counting. */
	rg_mtree_init(&mt, flags);
	rg_mtree_store(&mt, 1, V(1));
	rg_mtree_destroy(&mt);
	rg_mtree_rcu_barrier();
	base = live_nodes();
	rg_rand_seed(&r, seed ^ flags);
	rg_mtree_init(&mt, flags);
	for (unsigned long i = 0; i < ops; i++) {
		enum op op = (enum op)rg_rand_below(&r, NR_OPS);
		unsigned long a = rg_rand_below(&r, span);
		unsigned long b = a + rg_rand_below(&r, 6);
		void *e = V(i + 1);

		if (rg_rand_below(&r, 50) == 0)
			b = a + rg_rand_below(&r, span / 2);
		if (!(flags & RG_MT_FLAGS_ALLOC_RANGE) &&
		    (op == OP_ALLOC || op == OP_RALLOC || op == OP_CYCLIC))
			op = OP_STORE_RANGE;
		if ((op == OP_STORE_RANGE || op == OP_PREALLOC ||
		     op == OP_MAS_STORE_GFP) &&
		    rg_rand_below(&r, 4) == 0)
			e = NULL;
		faulty(&mt, op, a, b, e, &next);
	}
	assert_true(failures > f0); /* the faults did reach the tree */
	rg_mtree_get_stats(&mt, &st);
	assert_int_equal(st.overuse, 0);
	rg_mtree_destroy(&mt);
	rg_mtree_rcu_barrier();
	assert_int_equal(live_nodes(), base);
}

static void test_fault_plain(void **state)
{
	(void)state;
	run(0, RG_THOROUGH ? 3000 : 8000, 2000);
	printf("# %lu injected failures handled\n", failures);
}

static void test_fault_alloc(void **state)
{
	(void)state;
	run(RG_MT_FLAGS_ALLOC_RANGE, RG_THOROUGH ? 3000 : 8000, 2000);
	run(RG_MT_FLAGS_ALLOC_RANGE | RG_MT_FLAGS_NO_VACANCY,
	    RG_THOROUGH ? 800 : 3000, 600);
	printf("# %lu injected failures handled\n", failures);
}

/* RCU mode: stores also reserve the batch of their deferred frees. */
static void test_fault_rcu(void **state)
{
	(void)state;
	run(RG_MT_FLAGS_USE_RCU, RG_THOROUGH ? 1500 : 3000, 2000);
	run(RG_MT_FLAGS_ALLOC_RANGE | RG_MT_FLAGS_USE_RCU,
	    RG_THOROUGH ? 1500 : 3000, 600);
	printf("# %lu injected failures handled\n", failures);
}

/*
 * Every kind of allocating store, from an empty tree: new root first. The
 * erase kinds fill by store_range and then erase with their own call.
 */
static void each_kind(unsigned int flags, unsigned long n)
{
	struct rg_maple_tree mt;
	unsigned long next = 0, base;

	rg_mtree_init(&mt, RG_MT_FLAGS_ALLOC_RANGE);
	rg_mtree_store(&mt, 1, V(1));
	rg_mtree_destroy(&mt);
	base = live_nodes();
	for (int op = 0; op < NR_OPS; op++) {
		bool erase = op == OP_ERASE || op == OP_MAS_ERASE;
		enum op fill = erase ? OP_STORE_RANGE : (enum op)op;
		enum op del = op == OP_MAS_ERASE ? OP_MAS_ERASE : OP_ERASE;
		unsigned long f0 = failures;

		rg_mtree_init(&mt, RG_MT_FLAGS_ALLOC_RANGE | flags);
		/* new root */
		faulty(&mt, fill, 10, 20, V(5), &next);
		/* splits up to height 3 */
		for (unsigned long i = 0; i < n; i++)
			faulty(&mt, fill, 3 * i + 100, 3 * i + 101, V(i + 10),
			       &next);
		/* spanning NULL store, then erases that rebalance */
		faulty(&mt, OP_STORE_RANGE, 150, 900, NULL, &next);
		for (unsigned long i = 0; i < n; i++)
			faulty(&mt, del, 3 * i + 100, 0, NULL, &next);
		assert_true(failures > f0);
		rg_mtree_destroy(&mt);
		rg_mtree_rcu_barrier();
		assert_int_equal(live_nodes(), base);
	}
}

static void test_fault_each_kind(void **state)
{
	(void)state;
	each_kind(0, 400);
}

static void test_fault_each_kind_rcu(void **state)
{
	(void)state;
	each_kind(RG_MT_FLAGS_USE_RCU, 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_each_kind),
		cmocka_unit_test(test_fault_each_kind_rcu),
		cmocka_unit_test(test_fault_rcu),
		cmocka_unit_test(test_fault_plain),
		cmocka_unit_test(test_fault_alloc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
