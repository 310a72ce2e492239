// SPDX-License-Identifier: MIT
/*
 * Fault injection on the slab layer: with the Nth allocation attempt
 * failing for N = 1, 2, ... until the call succeeds, every allocating call
 * (create, alloc, bulk alloc, prefill, refill) fails cleanly: nothing taken,
 * nothing leaked, the cache still valid. Run with objects spread over the
 * thread's sheaves, the barn and the slabs, so failures happen after part
 * of a request has been gathered.
 */
#include <errno.h>
#include <string.h>

#include "rg_test.h"
#include "region/slab.h"

static void check(struct rg_slab_cache *c, size_t want_in_use)
{
	struct rg_slab_stats st;
	RG_ASSERT_VALID(c);
	rg_slab_get_stats(c, &st);
	assert_int_equal(st.objects_in_use, want_in_use);
}

enum op { OP_ALLOC, OP_BULK, OP_PREFILL, OP_REFILL, NR_OPS };

/* One call of kind op for n objects; returns 0 or -ENOMEM. */
static int do_op(struct rg_slab_cache *c, enum op op, size_t n, void **p,
		 struct rg_slab_sheaf **sh)
{
	switch (op) {
	case OP_ALLOC:
		p[0] = rg_slab_alloc(c);
		if (!p[0]) {
			assert_int_equal(errno, ENOMEM);
			return -ENOMEM;
		}
		return 0;
	case OP_BULK:
		if (rg_slab_alloc_bulk(c, n, p) != n) {
			assert_int_equal(errno, ENOMEM);
			return -ENOMEM;
		}
		return 0;
	case OP_PREFILL:
		*sh = rg_slab_prefill_sheaf(c, (unsigned int)n);
		return *sh ? 0 : -ENOMEM;
	default:
		return rg_slab_refill_sheaf(c, sh, (unsigned int)n);
	}
}

static void undo_op(struct rg_slab_cache *c, enum op op, size_t n, void **p,
		    struct rg_slab_sheaf **sh)
{
	if (op == OP_ALLOC)
		rg_slab_free(c, p[0]);
	else if (op == OP_BULK)
		rg_slab_free_bulk(c, n, p);
	else if (op == OP_PREFILL)
		rg_slab_return_sheaf(c, *sh);
}

static void fault_loop(unsigned int flags)
{
	static void *p[4000], *keep[3000];
	size_t sizes[] = { 1, 5, 28, 29, 60, 200, 1000, 4000 };

	for (int op = 0; op < NR_OPS; op++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			struct rg_slab_cache *c =
				rg_slab_create("fault", 256, 256, flags, NULL);
			size_t n = sizes[s], warm = 3000;
			unsigned long nth;
			int done = 0;

			/* Spread objects over sheaves, barn and slabs. */
			assert_int_equal(rg_slab_alloc_bulk(c, warm, keep),
					 warm);
			rg_slab_free_bulk(c, warm - 100, keep + 100);
			for (nth = 1; !done; nth++) {
				struct rg_slab_sheaf *sh = NULL;
				int err;

				if (op == OP_REFILL) {
					sh = rg_slab_prefill_sheaf(c, 1);
					assert_non_null(sh);
				}
				rg_fault_inject(nth);
				err = do_op(c, (enum op)op, n, p, &sh);
				done = !rg_fault_fired();
				rg_fault_inject(0);
				if (err) {
					assert_false(done);
					assert_int_equal(err, -ENOMEM);
					check(c, 100);
					if (op == OP_REFILL) {
						assert_true(rg_slab_sheaf_size(
								    sh) >= 1);
						rg_slab_return_sheaf(c, sh);
					}
					continue;
				}
				/* Success (maybe the fault hit nothing). */
				if (op == OP_REFILL) {
					assert_true(rg_slab_sheaf_size(sh) >=
						    n);
					rg_slab_return_sheaf(c, sh);
				} else if (op == OP_PREFILL) {
					assert_true(rg_slab_sheaf_size(sh) >=
						    n);
				}
				undo_op(c, (enum op)op, n, p, &sh);
				check(c, 100);
				/* Empty slabs go, so later N map new ones. */
				rg_slab_shrink(c);
			}
			assert_true(nth > 2 || (op == OP_REFILL && n == 1));
			rg_slab_free_bulk(c, 100, keep);
			check(c, 0);
			assert_int_equal(rg_slab_destroy(c), 0);
		}
	}
}

static void test_fault_sheaves(void **state)
{
	(void)state;
	fault_loop(0);
}

static void test_fault_debug(void **state)
{
	(void)state;
	fault_loop(RG_SLAB_DEBUG);
}

static void test_fault_create(void **state)
{
	(void)state;
	struct rg_slab_cache *c;

	rg_fault_inject(1);
	errno = 0;
	c = rg_slab_create("x", 64, 0, 0, NULL);
	assert_null(c);
	assert_int_equal(errno, ENOMEM);
	assert_true(rg_fault_fired());
	rg_fault_inject(0);
	/* A fresh cache's first alloc needs a slab: fault that one. */
	c = rg_slab_create("x", 64, 0, 0, NULL);
	rg_fault_inject(2);
	assert_null(rg_slab_alloc(c));
	assert_true(rg_fault_fired());
	rg_fault_inject(0);
	check(c, 0);
	void *p = rg_slab_alloc(c);

	assert_non_null(p);
	rg_slab_free(c, p);
	assert_int_equal(rg_slab_destroy(c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_create),
		cmocka_unit_test(test_fault_sheaves),
		cmocka_unit_test(test_fault_debug),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
