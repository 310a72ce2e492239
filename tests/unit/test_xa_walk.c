// SPDX-License-Identifier: MIT
/*
 * The xarray's single-index walks with and without multi-index entries.
 *
 * An array that never held an entry of order > 0 walks without looking for
 * multi-index or sibling entries; RG_XA_FLAGS_MULTI tells the two kinds
 * apart. These tests check when the flag is set and cleared, that validate
 * fails when it is missing (or stale without nodes), and, in a seeded
 * lockstep run, that single-index stores, erases, loads and finds give the
 * answers of a reference model both in a plain array and in one that also
 * holds multi-index entries far from the indices used, validating after
 * every mutation, with fault injection on the stores.
 */
#include <errno.h>
#include <string.h>

#include "region/xarray.h"
#include "rg_test.h"

#define SPAN 4096UL
/* The multi-index entries of the second array lie above the model's span. */
#define FAR (1UL << 24)

static int cells[64];

static bool multi_flag(const struct rg_xarray *xa)
{
	return xa->flags & RG_XA_FLAGS_MULTI;
}

static void test_flag_lifecycle(void **state)
{
	struct rg_xarray xa;
	unsigned long i;

	(void)state;
	rg_xa_init(&xa);
	for (i = 0; i < 200; i++)
		assert_int_equal(rg_xa_store(&xa, i, rg_xa_mk_value(i), NULL),
				 0);
	assert_false(multi_flag(&xa));
	/* An entry of order 0 through the order call sets nothing. */
	assert_int_equal(rg_xa_store_order(&xa, 300, 0, &cells[0], NULL), 0);
	assert_false(multi_flag(&xa));
	/* Order 2 in a leaf (siblings), order 6 in an interior slot. */
	assert_int_equal(rg_xa_store_order(&xa, 512, 2, &cells[1], NULL), 0);
	assert_true(multi_flag(&xa));
	assert_int_equal(rg_xa_store_order(&xa, 1024, 6, &cells[2], NULL), 0);
	RG_ASSERT_VALID(&xa);
	assert_ptr_equal(rg_xa_load(&xa, 514), &cells[1]);
	assert_ptr_equal(rg_xa_load(&xa, 1087), &cells[2]);
	assert_null(rg_xa_load(&xa, 1088));
	/* Gone, but nodes remain: the flag stays (valid, never wrong). */
	assert_ptr_equal(rg_xa_erase(&xa, 513), &cells[1]);
	assert_ptr_equal(rg_xa_erase(&xa, 1030), &cells[2]);
	assert_true(multi_flag(&xa));
	RG_ASSERT_VALID(&xa);
	/* The last node takes it. */
	for (i = 0; i < 200; i++)
		assert_ptr_equal(rg_xa_erase(&xa, i), rg_xa_mk_value(i));
	assert_ptr_equal(rg_xa_erase(&xa, 300), &cells[0]);
	assert_true(rg_xa_empty(&xa));
	assert_false(multi_flag(&xa));
	RG_ASSERT_VALID(&xa);

	/* Shrinking to a head entry removes the last node too. */
	assert_int_equal(rg_xa_store(&xa, 0, &cells[3], NULL), 0);
	assert_int_equal(rg_xa_store_order(&xa, 64, 3, &cells[4], NULL), 0);
	assert_true(multi_flag(&xa));
	assert_ptr_equal(rg_xa_erase(&xa, 70), &cells[4]);
	assert_int_equal(rg_xa_node_count(&xa), 0);
	assert_false(multi_flag(&xa));
	assert_ptr_equal(rg_xa_load(&xa, 0), &cells[3]);
	RG_ASSERT_VALID(&xa);

	/* So does destroy, and a range store sets it. */
	assert_int_equal(rg_xa_store_range(&xa, 5, 100, &cells[5]), 0);
	assert_true(multi_flag(&xa));
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
	assert_false(multi_flag(&xa));
	RG_ASSERT_VALID(&xa);
	/* Not a flag a caller may give. */
	assert_int_equal(rg_xa_init_flags(&xa, RG_XA_FLAGS_MULTI), -EINVAL);
	RG_ASSERT_CACHE_EMPTY(rg_xa_node_cache_stats);
}

static void expect_invalid(struct rg_xarray *xa, const char *want)
{
	const char *why = NULL;

	assert_int_equal(rg_xa_validate(xa, &why), -EINVAL);
	assert_non_null(why);
	assert_non_null(strstr(why, want));
}

static void test_flag_validate(void **state)
{
	struct rg_xarray xa;

	(void)state;
	rg_xa_init(&xa);
	/* Set without any node. */
	xa.flags |= RG_XA_FLAGS_MULTI;
	expect_invalid(&xa, "multi flag");
	assert_int_equal(rg_xa_store(&xa, 0, &cells[0], NULL), 0);
	expect_invalid(&xa, "multi flag");
	xa.flags &= ~RG_XA_FLAGS_MULTI;
	RG_ASSERT_VALID(&xa);
	/* Missing over siblings in a leaf. */
	assert_int_equal(rg_xa_store_order(&xa, 8, 3, &cells[1], NULL), 0);
	xa.flags &= ~RG_XA_FLAGS_MULTI;
	expect_invalid(&xa, "multi flag");
	xa.flags |= RG_XA_FLAGS_MULTI;
	RG_ASSERT_VALID(&xa);
	assert_ptr_equal(rg_xa_erase(&xa, 8), &cells[1]);
	/* Missing over an entry in an interior slot (no siblings). */
	assert_int_equal(rg_xa_store_order(&xa, 4096, 6, &cells[2], NULL), 0);
	assert_ptr_equal(rg_xa_erase(&xa, 0), &cells[0]);
	RG_ASSERT_VALID(&xa);
	xa.flags &= ~RG_XA_FLAGS_MULTI;
	expect_invalid(&xa, "multi flag");
	xa.flags |= RG_XA_FLAGS_MULTI;
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
	RG_ASSERT_CACHE_EMPTY(rg_xa_node_cache_stats);
}

/*
 * An erase that leaves a top node using only slot 0 shrinks the tree: in a
 * plain array and in one whose flag a multi-index entry left set.
 */
static void test_erase_shrinks(void **state)
{
	(void)state;
	for (int stale = 0; stale < 2; stale++) {
		struct rg_xarray xa;
		unsigned long i;

		rg_xa_init(&xa);
		/* A top leaf with slots 0 and 1: erase 1, back to the head. */
		assert_int_equal(rg_xa_store(&xa, 0, &cells[0], NULL), 0);
		assert_int_equal(rg_xa_store(&xa, 1, &cells[1], NULL), 0);
		if (stale) {
			assert_int_equal(
				rg_xa_store_order(&xa, 2, 1, &cells[2], NULL),
				0);
			assert_ptr_equal(rg_xa_erase(&xa, 3), &cells[2]);
			assert_true(multi_flag(&xa));
		}
		assert_ptr_equal(rg_xa_erase(&xa, 1), &cells[1]);
		RG_ASSERT_VALID(&xa);
		assert_int_equal(rg_xa_node_count(&xa), 0);
		assert_false(multi_flag(&xa));
		assert_ptr_equal(rg_xa_load(&xa, 0), &cells[0]);
		/* A top node of shift 6 over two leaves: erase the second
		 * leaf's entry, the first leaf becomes the top. */
		for (i = 0; i < 64; i++)
			assert_int_equal(rg_xa_store(&xa, i, &cells[i], NULL),
					 0);
		assert_int_equal(rg_xa_store(&xa, 64, &cells[0], NULL), 0);
		assert_int_equal(rg_xa_store(&xa, 65, &cells[1], NULL), 0);
		if (stale) {
			assert_int_equal(
				rg_xa_store_order(&xa, 66, 1, &cells[2], NULL),
				0);
			assert_ptr_equal(rg_xa_erase(&xa, 66), &cells[2]);
			assert_true(multi_flag(&xa));
		}
		assert_ptr_equal(rg_xa_erase(&xa, 64), &cells[0]);
		RG_ASSERT_VALID(&xa);
		assert_int_equal(rg_xa_node_count(&xa), 3);
		assert_ptr_equal(rg_xa_erase(&xa, 65), &cells[1]);
		RG_ASSERT_VALID(&xa);
		assert_int_equal(rg_xa_node_count(&xa), 1);
		assert_int_equal(multi_flag(&xa), stale);
		for (i = 0; i < 64; i++)
			assert_ptr_equal(rg_xa_load(&xa, i), &cells[i]);
		rg_xa_destroy(&xa);
	}
	RG_ASSERT_CACHE_EMPTY(rg_xa_node_cache_stats);
}

/* The model: the entry at each index of [0, SPAN), or NULL. */
static void *model[2][SPAN];

static void *mk_entry(struct rg_rand *r)
{
	unsigned long k = rg_rand_below(r, 128);

	return k & 1 ? rg_xa_mk_value(k) : (void *)&cells[k / 2];
}

/* Compare the array with its model: loads, and finds from random points. */
static void check(struct rg_xarray *xa, void **m, struct rg_rand *r,
		  unsigned long op, bool full)
{
	unsigned long i, at;
	void *e;

	RG_ASSERT_VALIDF(xa, "op %lu", op);
	for (int k = 0; k < 8; k++) {
		i = rg_rand_below(r, SPAN);
		assert_ptr_equal(rg_xa_load(xa, i), m[i]);
	}
	at = rg_rand_below(r, SPAN);
	e = rg_xa_find(xa, &at, SPAN - 1, RG_XA_PRESENT);
	for (i = at; i < SPAN && !m[i]; i++)
		;
	if (e) {
		assert_true(at == i || !e);
		assert_ptr_equal(e, m[i]);
	} else {
		assert_true(i == SPAN);
	}
	if (!full)
		return;
	for (i = 0; i < SPAN; i++)
		assert_ptr_equal(rg_xa_load(xa, i), m[i]);
}

static void test_lockstep(void **state)
{
	struct rg_xarray xa[2];
	struct rg_rand r;
	unsigned long op, n, ops = RG_THOROUGH ? 6000 : 20000;

	(void)state;
	rg_rand_seed(&r, rg_test_seed());
	memset(model, 0, sizeof(model));
	rg_xa_init(&xa[0]);
	rg_xa_init(&xa[1]);
	/* Far multi-index entries: one in a leaf, one interior. */
	assert_int_equal(rg_xa_store_order(&xa[1], FAR, 2, &cells[60], NULL),
			 0);
	assert_int_equal(
		rg_xa_store_order(&xa[1], FAR + 4096, 7, &cells[61], NULL), 0);
	for (op = 0; op < ops; op++) {
		/* Dense runs now and then, so leaves fill and empty. */
		unsigned long i = rg_rand_below(&r, 8) ?
					  rg_rand_below(&r, SPAN) :
					  rg_rand_below(&r, 128);
		unsigned int what = (unsigned int)rg_rand_below(&r, 8);
		void *e = mk_entry(&r);

		for (int a = 0; a < 2; a++) {
			void *old = &xa;
			int err;

			if (what < 4) {
				if (rg_rand_below(&r, 64) == 0) {
					RG_FAULT_LOOP(
						n, err,
						rg_xa_store(&xa[a], i, e, &old),
						{
							RG_ASSERT_VALID(&xa[a]);
							assert_ptr_equal(
								rg_xa_load(
									&xa[a],
									i),
								model[a][i]);
						});
					assert_int_equal(err, 0);
				} else {
					assert_int_equal(
						rg_xa_store(&xa[a], i, e, &old),
						0);
				}
				assert_ptr_equal(old, model[a][i]);
				model[a][i] = e;
			} else if (what < 7) {
				assert_ptr_equal(rg_xa_erase(&xa[a], i),
						 model[a][i]);
				model[a][i] = NULL;
			} else {
				assert_ptr_equal(rg_xa_load(&xa[a], i),
						 model[a][i]);
			}
			check(&xa[a], model[a], &r, op, op % 4096 == 4095);
		}
		assert_false(multi_flag(&xa[0]));
		assert_true(multi_flag(&xa[1]));
	}
	assert_ptr_equal(rg_xa_load(&xa[1], FAR + 3), &cells[60]);
	assert_ptr_equal(rg_xa_load(&xa[1], FAR + 4096 + 127), &cells[61]);
	rg_xa_destroy(&xa[0]);
	rg_xa_destroy(&xa[1]);
	RG_ASSERT_CACHE_EMPTY(rg_xa_node_cache_stats);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flag_lifecycle),
		cmocka_unit_test(test_flag_validate),
		cmocka_unit_test(test_erase_shrinks),
		cmocka_unit_test(test_lockstep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
