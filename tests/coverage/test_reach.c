// SPDX-License-Identifier: MIT
/*
 * Ordinary paths that make coverage found no other test driving: the
 * reverse search on a best-fit instance, reverse and best-fit allocation
 * on a full map, best fit asked of an instance without the index.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libregion.h>

#include "coverage.h"

static void expect_hb_valid(const struct rg_hbitmap *hb)
{
	const char *reason = NULL;

	assert_int_equal(rg_hbitmap_validate(hb, &reason), 0);
	assert_null(reason);
}

/*
 * On a best-fit instance the reverse search scans the words from the top
 * and keeps the index of free runs up to date.
 */
static void test_hbitmap_rev_on_best_fit(void **state)
{
	struct rg_hbitmap *hb =
		rg_hbitmap_create_flags(1000, RG_HBITMAP_BEST_FIT);
	uint64_t s = 12345;

	(void)state;
	assert_non_null(hb);
	assert_int_equal(rg_hbitmap_alloc_rev(hb, 10, 1, &s), 0);
	assert_int_equal(s, 990);
	expect_hb_valid(hb);
	assert_int_equal(rg_hbitmap_alloc_rev(hb, 8, 16, &s), 0);
	assert_int_equal(s, 976);
	assert_int_equal(rg_hbitmap_free_units(hb), 982);
	expect_hb_valid(hb);
	/* The index saw both: best fit takes the 6-unit hole between them. */
	assert_int_equal(rg_hbitmap_alloc_best(hb, 6, 1, &s), 0);
	assert_int_equal(s, 984);
	expect_hb_valid(hb);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), 976);

	/* Full: the reverse search fails and changes nothing. */
	assert_int_equal(rg_hbitmap_reserve(hb, 0, 976), 0);
	assert_int_equal(rg_hbitmap_free_units(hb), 0);
	s = 12345;
	assert_int_equal(rg_hbitmap_alloc_rev(hb, 1, 1, &s), -ENOSPC);
	assert_int_equal(s, 12345);
	assert_int_equal(rg_hbitmap_alloc_best(hb, 1, 1, &s), -ENOSPC);
	assert_int_equal(s, 12345);
	expect_hb_valid(hb);
	assert_int_equal(rg_hbitmap_free(hb, 500, 3), 0);
	assert_int_equal(rg_hbitmap_alloc_rev(hb, 4, 1, &s), -ENOSPC);
	assert_int_equal(rg_hbitmap_alloc_rev(hb, 3, 1, &s), 0);
	assert_int_equal(s, 500);
	assert_int_equal(rg_hbitmap_free_units(hb), 0);
	expect_hb_valid(hb);
	rg_hbitmap_destroy(hb);
}

/* Reverse allocation on a full plain instance; best fit without index. */
static void test_hbitmap_rev_full_plain(void **state)
{
	struct rg_hbitmap *hb = rg_hbitmap_create(5000);
	uint64_t s = 777;

	(void)state;
	assert_non_null(hb);
	assert_int_equal(rg_hbitmap_alloc_best(hb, 1, 1, &s), -EOPNOTSUPP);
	assert_int_equal(s, 777);
	assert_int_equal(rg_hbitmap_reserve(hb, 0, 5000), 0);
	assert_int_equal(rg_hbitmap_alloc_rev(hb, 1, 1, &s), -ENOSPC);
	assert_int_equal(rg_hbitmap_alloc_rev(hb, 64, 64, &s), -ENOSPC);
	assert_int_equal(s, 777);
	expect_hb_valid(hb);
	assert_int_equal(rg_hbitmap_free(hb, 4096, 64), 0);
	assert_int_equal(rg_hbitmap_alloc_rev(hb, 64, 64, &s), 0);
	assert_int_equal(s, 4096);
	assert_int_equal(rg_hbitmap_free_units(hb), 0);
	expect_hb_valid(hb);
	rg_hbitmap_destroy(hb);
}

static void expect_xa_valid(struct rg_xarray *xa)
{
	const char *reason = NULL;

	assert_int_equal(rg_xa_validate(xa, &reason), 0);
	assert_null(reason);
}

/* A state on the array's head: index 0 held with no node. */
static void test_xas_on_head(void **state)
{
	static int a;
	RG_DEFINE_XARRAY(xa);

	(void)state;
	assert_int_equal(rg_xa_store(&xa, 0, &a, NULL), 0);
	rg_xa_lock(&xa);
	{
		RG_XA_STATE(xas, &xa, 0);

		/* Not walked yet: reload walks. */
		assert_ptr_equal(rg_xas_reload(&xas), &a);
		assert_null(xas.xa_node);
		assert_ptr_equal(rg_xas_load(&xas), &a);
		assert_null(xas.xa_node);
		assert_ptr_equal(rg_xas_reload(&xas), &a);
		/* Nothing before index 0: the state leaves the array. */
		assert_null(rg_xas_prev(&xas));
		assert_ptr_equal(xas.xa_node, RG_XAS_BOUNDS);
		assert_true(rg_xas_invalid(&xas));
		assert_int_equal(rg_xas_error(&xas), 0);
	}
	{
		RG_XA_STATE(xas, &xa, 0);

		/* A mark that does not exist finds nothing. */
		assert_null(rg_xas_find_marked(
			&xas, ULONG_MAX, (rg_xa_mark_t)(RG_XA_MARK_MAX + 1)));
		assert_int_equal(xas.xa_index, 0);
		/* A state holding an error does nothing. */
		rg_xas_set_err(&xas, -EINVAL);
		assert_null(rg_xas_prev(&xas));
		assert_int_equal(rg_xas_error(&xas), -EINVAL);
		assert_int_equal(xas.xa_index, 0);
	}
	rg_xa_unlock(&xa);
	assert_ptr_equal(rg_xa_load(&xa, 0), &a);
	expect_xa_valid(&xa);
	rg_xa_destroy(&xa);
	assert_true(rg_xa_empty(&xa));
}

/*
 * Nodes rg_xas_nomem() allocated and no store used are given back by the
 * next rg_xas_nomem(); one that already holds enough allocates no more.
 */
static void test_xas_nomem_leftover(void **state)
{
	static int a;
	RG_DEFINE_XARRAY(xa);
	struct rg_slab_stats st0, st;
	void *old;

	(void)state;
	/* a node, so that the node cache exists */
	assert_int_equal(rg_xa_store(&xa, 1000, &a, NULL), 0);
	assert_int_equal(rg_xa_node_cache_stats(&st0), 0);
	{
		RG_XA_STATE(xas, &xa, 1UL << 30);

		rg_fault_inject(1);
		rg_xa_lock(&xa);
		old = rg_xas_store(&xas, &a);
		rg_xa_unlock(&xa);
		rg_fault_inject(0);
		assert_null(old);
		assert_int_equal(rg_xas_error(&xas), -ENOMEM);
		assert_null(rg_xa_load(&xa, 1UL << 30));
		assert_true(xas.xa_need > 0);
		assert_true(rg_xas_nomem(&xas));
		assert_int_equal(rg_xas_error(&xas), 0);
		assert_non_null(xas.xa_alloc);
		assert_int_equal(rg_xa_node_cache_stats(&st), 0);
		assert_int_equal(st.objects_in_use,
				 st0.objects_in_use + xas.xa_need);

		/* Already holding what it needs: nothing more is allocated. */
		rg_xas_set_err(&xas, -ENOMEM);
		assert_true(rg_xas_nomem(&xas));
		assert_int_equal(rg_xa_node_cache_stats(&st), 0);
		assert_int_equal(st.objects_in_use,
				 st0.objects_in_use + xas.xa_need);

		/* Not used after all: the next call frees them. */
		assert_false(rg_xas_nomem(&xas));
		assert_null(xas.xa_alloc);
		assert_int_equal(rg_xa_node_cache_stats(&st), 0);
		assert_int_equal(st.objects_in_use, st0.objects_in_use);
	}
	assert_null(rg_xa_load(&xa, 1UL << 30));
	expect_xa_valid(&xa);
	rg_xa_destroy(&xa);
}

/* Freeing units that are not allocated, on a best-fit instance. */
static void test_hbitmap_best_fit_free_not_taken(void **state)
{
	struct rg_hbitmap *hb =
		rg_hbitmap_create_flags(4096, RG_HBITMAP_BEST_FIT);
	uint64_t s;

	(void)state;
	assert_non_null(hb);
	assert_int_equal(rg_hbitmap_reserve(hb, 0, 1000), 0);
	/* short (one or two words) and long frees, each half outside */
	assert_int_equal(rg_hbitmap_free(hb, 990, 20), -ENOENT);
	assert_int_equal(rg_hbitmap_free(hb, 1000, 8), -ENOENT);
	assert_int_equal(rg_hbitmap_free(hb, 900, 200), -ENOENT);
	assert_int_equal(rg_hbitmap_free(hb, 2000, 300), -ENOENT);
	assert_int_equal(rg_hbitmap_free_units(hb), 3096);
	assert_int_equal(rg_hbitmap_test(hb, 999), 1);
	assert_int_equal(rg_hbitmap_test(hb, 1000), 0);
	expect_hb_valid(hb);
	/* nothing changed: best fit still finds the run after 1000 */
	assert_int_equal(rg_hbitmap_alloc_best(hb, 10, 1, &s), 0);
	assert_int_equal(s, 1000);
	assert_int_equal(rg_hbitmap_free(hb, 0, 1010), 0);
	assert_int_equal(rg_hbitmap_free_units(hb), 4096);
	expect_hb_valid(hb);
	rg_hbitmap_destroy(hb);
}

/*
 * A summary node whose 64 children (level-0 nodes of 64 blocks of 512
 * units each) all become free again, one child at a time.
 */
static void test_hbitmap_node_all_free(void **state)
{
	const uint64_t child = 64 * 512, node = 64 * child;
	struct rg_hbitmap *hb = rg_hbitmap_create(2 * node + child);
	uint64_t s;

	(void)state;
	assert_non_null(hb);
	assert_int_equal(rg_hbitmap_reserve(hb, 0, 2 * node), 0);
	expect_hb_valid(hb);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), child);
	for (uint64_t c = 0; c < 64; c++) {
		assert_int_equal(rg_hbitmap_free(hb, c * child, child), 0);
		assert_int_equal(rg_hbitmap_largest_free_run(hb),
				 c == 63 ? node : (c + 1) * child);
	}
	assert_int_equal(rg_hbitmap_free_units(hb), node + child);
	expect_hb_valid(hb);
	assert_int_equal(rg_hbitmap_alloc(hb, node, 1, &s), 0);
	assert_int_equal(s, 0);
	assert_int_equal(rg_hbitmap_alloc(hb, child + 1, 1, &s), -ENOSPC);
	assert_int_equal(rg_hbitmap_alloc(hb, child, 1, &s), 0);
	assert_int_equal(s, 2 * node);
	assert_int_equal(rg_hbitmap_free_units(hb), 0);
	expect_hb_valid(hb);
	rg_hbitmap_destroy(hb);
}

/* A marked search over an array whose only entry sits in its head. */
static void test_xa_find_marked_head_only(void **state)
{
	static int a;
	RG_DEFINE_XARRAY(xa);
	unsigned long index = 0;

	(void)state;
	assert_int_equal(rg_xa_store(&xa, 0, &a, NULL), 0);
	assert_null(rg_xa_find(&xa, &index, ULONG_MAX, RG_XA_MARK_0));
	assert_int_equal(index, 0);
	assert_ptr_equal(rg_xa_find(&xa, &index, ULONG_MAX, RG_XA_PRESENT), &a);
	assert_int_equal(index, 0);
	assert_int_equal(rg_xa_set_mark(&xa, 0, RG_XA_MARK_0), 0);
	index = 0;
	assert_ptr_equal(rg_xa_find(&xa, &index, ULONG_MAX, RG_XA_MARK_0), &a);
	assert_int_equal(index, 0);
	expect_xa_valid(&xa);
	rg_xa_destroy(&xa);
}

/* Allocation whose range ends just past a full tree: nothing left. */
static void test_xa_alloc_full_tree_limit(void **state)
{
	static int a;
	RG_DEFINE_XARRAY_ALLOC(xa);
	unsigned long id;

	(void)state;
	for (unsigned long i = 0; i < 64; i++) {
		assert_int_equal(rg_xa_alloc(&xa, &id, &a, 0, ULONG_MAX), 0);
		assert_int_equal(id, i);
	}
	id = 999;
	assert_int_equal(rg_xa_alloc(&xa, &id, &a, 0, 63), -EBUSY);
	assert_int_equal(rg_xa_alloc(&xa, &id, &a, 10, 63), -EBUSY);
	assert_int_equal(id, 999);
	expect_xa_valid(&xa);
	assert_int_equal(rg_xa_alloc(&xa, &id, &a, 10, 64), 0);
	assert_int_equal(id, 64);
	expect_xa_valid(&xa);
	rg_xa_destroy(&xa);
}

static size_t slab_in_use(struct rg_slab_cache *c)
{
	struct rg_slab_stats st;

	assert_int_equal(rg_slab_get_stats(c, &st), 0);
	return st.objects_in_use;
}

/*
 * A bulk free whose first entries are NULL: they are skipped, and the
 * double-free check applies to the first real object.
 */
static void test_slab_free_bulk_leading_nulls(void **state)
{
	struct rg_slab_cache *c = rg_slab_create("reach", 32, 0, 0, NULL);
	struct cov_reports r = { 0 };
	void *p[5] = { NULL, NULL, NULL, NULL, NULL };
	void *x;

	(void)state;
	assert_non_null(c);
	rg_slab_set_report_hook(cov_note_report, &r);
	assert_int_equal(rg_slab_alloc_bulk(c, 3, &p[2]), 3);
	assert_int_equal(slab_in_use(c), 3);
	rg_slab_free_bulk(c, 5, p);
	assert_int_equal(slab_in_use(c), 0);
	assert_int_equal(r.n, 0);

	/* The object freed last, behind NULLs, is reported and skipped. */
	x = rg_slab_alloc(c);
	assert_non_null(x);
	p[0] = rg_slab_alloc(c);
	assert_non_null(p[0]);
	rg_slab_free(c, x);
	assert_int_equal(slab_in_use(c), 1);
	p[1] = NULL;
	p[2] = x;
	p[3] = p[0];
	p[0] = NULL;
	rg_slab_free_bulk(c, 4, p);
	assert_int_equal(r.n, 1);
	assert_ptr_equal(r.obj, x);
	assert_string_equal(r.what, "double free");
	assert_int_equal(slab_in_use(c), 0);
	assert_int_equal(rg_slab_validate(c, NULL), 0);
	rg_slab_set_report_hook(NULL, NULL);
	assert_int_equal(rg_slab_destroy(c), 0);
}

#define EXPECT_AT(mas, e, want, st, lo, hi)           \
	do {                                          \
		assert_ptr_equal((e), (want));        \
		assert_int_equal((mas).status, (st)); \
		assert_int_equal((mas).index, (lo));  \
		assert_int_equal((mas).last, (hi));   \
	} while (0)

/*
 * The advanced Maple Tree API's steps from paused, overflowed and
 * underflowed states, and from a state holding an error.
 */
static void test_maple_steps_from_limits(void **state)
{
	static int a, b, c, x;
	struct rg_maple_tree mt;
	void *e;

	(void)state;
	cov_maple_three(&mt, &a, &b, &c, 59);

	rg_mtree_lock(&mt);
	{
		RG_MA_STATE(mas, &mt, 5, 5);

		/* Paused: the next entry lies past the gap after it. */
		assert_ptr_equal(rg_mas_walk(&mas), &a);
		rg_mas_pause(&mas);
		e = rg_mas_next(&mas, ULONG_MAX);
		EXPECT_AT(mas, e, &b, RG_MAS_ACTIVE, 30, 39);
	}
	{
		RG_MA_STATE(mas, &mt, 5, 5);

		/* Paused, by range: the gap itself comes next. */
		assert_ptr_equal(rg_mas_walk(&mas), &a);
		rg_mas_pause(&mas);
		e = rg_mas_next_range(&mas, ULONG_MAX);
		EXPECT_AT(mas, e, NULL, RG_MAS_ACTIVE, 10, 29);
	}
	{
		RG_MA_STATE(mas, &mt, 35, 35);

		/* Paused, and the gap after it reaches the limit. */
		assert_ptr_equal(rg_mas_walk(&mas), &b);
		rg_mas_pause(&mas);
		assert_null(rg_mas_next(&mas, 45));
		assert_int_equal(mas.status, RG_MAS_OVERFLOW);
	}
	{
		RG_MA_STATE(mas, &mt, 35, 35);

		/* Underflowed above a floor, then a lower floor: go on. */
		assert_ptr_equal(rg_mas_walk(&mas), &b);
		rg_mas_pause(&mas);
		assert_null(rg_mas_prev(&mas, 20));
		assert_int_equal(mas.status, RG_MAS_UNDERFLOW);
		e = rg_mas_prev(&mas, 0);
		EXPECT_AT(mas, e, &a, RG_MAS_ACTIVE, 0, 9);
	}
	{
		RG_MA_STATE(mas, &mt, 55, 55);

		/* Overflowed: the step back reads the range it stood on. */
		assert_ptr_equal(rg_mas_walk(&mas), &c);
		assert_null(rg_mas_next(&mas, 58));
		assert_int_equal(mas.status, RG_MAS_OVERFLOW);
		e = rg_mas_prev(&mas, 0);
		EXPECT_AT(mas, e, &c, RG_MAS_ACTIVE, 50, 59);
	}
	{
		RG_MA_STATE(mas, &mt, 55, 55);

		/* Overflowed, then find: no further under the same limit. */
		assert_ptr_equal(rg_mas_walk(&mas), &c);
		assert_null(rg_mas_next(&mas, 58));
		assert_int_equal(mas.status, RG_MAS_OVERFLOW);
		assert_null(rg_mas_find(&mas, 58));
		e = rg_mas_find(&mas, ULONG_MAX);
		EXPECT_AT(mas, e, &c, RG_MAS_ACTIVE, 50, 59);
	}
	{
		RG_MA_STATE(mas, &mt, 55, 55);

		/* Overflowed, then backwards with find_rev. */
		assert_ptr_equal(rg_mas_walk(&mas), &c);
		assert_null(rg_mas_next(&mas, 58));
		e = rg_mas_find_rev(&mas, 0);
		EXPECT_AT(mas, e, &b, RG_MAS_ACTIVE, 30, 39);
		assert_null(rg_mas_next(&mas, mas.last));
		e = rg_mas_find_rev(&mas, mas.index);
		EXPECT_AT(mas, e, NULL, RG_MAS_UNDERFLOW, 30, 39);
	}
	{
		RG_MA_STATE(mas, &mt, 35, 35);

		/* Underflowed, then find_rev with the same and a lower floor. */
		assert_ptr_equal(rg_mas_walk(&mas), &b);
		rg_mas_pause(&mas);
		assert_null(rg_mas_prev(&mas, 20));
		assert_int_equal(mas.status, RG_MAS_UNDERFLOW);
		e = rg_mas_find_rev(&mas, 20);
		EXPECT_AT(mas, e, NULL, RG_MAS_UNDERFLOW, 10, 29);
		e = rg_mas_find_rev(&mas, 0);
		EXPECT_AT(mas, e, &a, RG_MAS_ACTIVE, 0, 9);
	}
	{
		RG_MA_STATE(mas, &mt, 5, 5);

		/* Underflowed at 0, then find with limit 0: overflow. */
		assert_ptr_equal(rg_mas_walk(&mas), &a);
		assert_null(rg_mas_prev(&mas, 0));
		assert_int_equal(mas.status, RG_MAS_UNDERFLOW);
		e = rg_mas_find(&mas, 0);
		EXPECT_AT(mas, e, NULL, RG_MAS_OVERFLOW, 0, 9);
	}
	{
		RG_MA_STATE(mas, &mt, 200, 100);

		/* A store that fails leaves an error: every step is a no-op. */
		assert_null(rg_mas_store(&mas, &x));
		assert_int_equal(mas.status, RG_MAS_ERROR);
		assert_int_equal(mas.error, -EINVAL);
		assert_null(rg_mas_next(&mas, ULONG_MAX));
		assert_null(rg_mas_prev(&mas, 0));
		assert_null(rg_mas_find(&mas, ULONG_MAX));
		assert_null(rg_mas_find_rev(&mas, 0));
		assert_int_equal(mas.status, RG_MAS_ERROR);
		assert_int_equal(mas.error, -EINVAL);
	}
	rg_mtree_unlock(&mt);
	assert_null(rg_mtree_load(&mt, 100));
	assert_null(rg_mtree_load(&mt, 150));
	assert_int_equal(rg_mtree_validate(&mt, NULL), 0);
	rg_mtree_destroy(&mt);
}

/* Aligned free-window searches of the advanced API, both directions. */
static void test_maple_empty_area_aligned(void **state)
{
	static int a, b, c;
	struct rg_maple_tree mt;

	(void)state;
	cov_maple_three(&mt, &a, &b, &c, 59);
	rg_mtree_lock(&mt);
	{
		RG_MA_STATE(mas, &mt, 0, 0);

		assert_int_equal(rg_mas_empty_area_aligned(&mas, 0, 100, 8, 16),
				 0);
		assert_int_equal(mas.index, 16);
		assert_int_equal(mas.last, 23);
		assert_int_equal(
			rg_mas_empty_area_rev_aligned(&mas, 0, 100, 8, 16), 0);
		assert_int_equal(mas.index, 80);
		assert_int_equal(mas.last, 87);
		/* No gap below 60 holds 20 indices from a multiple of 16. */
		assert_int_equal(rg_mas_empty_area_aligned(&mas, 0, 59, 20, 16),
				 -EBUSY);
		assert_int_equal(
			rg_mas_empty_area_rev_aligned(&mas, 0, 59, 20, 16),
			-EBUSY);
		assert_int_equal(mas.index, 80);
		assert_int_equal(mas.last, 87);
		assert_int_equal(rg_mas_empty_area_aligned(&mas, 0, 100, 8, 3),
				 -EINVAL);
		assert_int_equal(
			rg_mas_empty_area_rev_aligned(&mas, 0, 100, 8, 0),
			-EINVAL);
		/* Unaligned gaps of 20 do exist. */
		assert_int_equal(rg_mas_empty_area_aligned(&mas, 0, 59, 20, 1),
				 0);
		assert_int_equal(mas.index, 10);
	}
	rg_mtree_unlock(&mt);
	assert_int_equal(rg_mtree_validate(&mt, NULL), 0);
	rg_mtree_destroy(&mt);
}

/* A region created with RG_REGION_LOCKED: alloc and free take its lock. */
static void test_region_locked_alloc_free(void **state)
{
	struct rg_region *r = rg_region_create("bitmap", 100, RG_REGION_LOCKED);
	const char *why = NULL;
	unsigned long s = 0;

	(void)state;
	assert_non_null(r);
	assert_int_equal(rg_region_alloc(r, 10, 8, &s), 0);
	assert_int_equal(s, 0);
	assert_int_equal(rg_region_alloc(r, 10, 8, &s), 0);
	assert_int_equal(s, 16);
	assert_int_equal(rg_region_test(r, 25), 1);
	assert_int_equal(rg_region_free(r, 16, 10), 0);
	assert_int_equal(rg_region_free(r, 16, 10), -ENOENT);
	assert_int_equal(rg_region_test(r, 16), 0);
	assert_int_equal(rg_region_alloc(r, 200, 1, &s), -EINVAL);
	assert_int_equal(rg_region_validate(r, &why), 0);
	assert_null(why);
	rg_region_destroy(r);
}

/*
 * A prefilled sheaf given back full goes to the shared pool whole; the
 * next prefill of the same size is served without touching the slabs.
 */
static void test_slab_return_full_sheaf(void **state)
{
	/* 64-byte objects: sheaves of 60 */
	struct rg_slab_cache *c = rg_slab_create("reach-sheaf", 64, 0, 0, NULL);
	struct rg_slab_sheaf *sh;
	struct rg_slab_stats st;
	void *p;

	(void)state;
	assert_non_null(c);
	sh = rg_slab_prefill_sheaf(c, 60);
	assert_non_null(sh);
	assert_true(rg_slab_sheaf_size(sh) >= 60);
	p = rg_slab_alloc_from_sheaf(c, sh);
	assert_non_null(p);
	assert_int_equal(slab_in_use(c), 1);
	rg_slab_free(c, p);
	assert_int_equal(slab_in_use(c), 0);
	rg_slab_return_sheaf(c, sh);
	assert_int_equal(rg_slab_get_stats(c, &st), 0);
	assert_int_equal(st.objects_in_use, 0);
	assert_true(st.objects_cached >= 60);
	assert_int_equal(rg_slab_validate(c, NULL), 0);
	sh = rg_slab_prefill_sheaf(c, 60);
	assert_non_null(sh);
	assert_true(rg_slab_sheaf_size(sh) >= 60);
	rg_slab_return_sheaf(c, sh);
	assert_int_equal(slab_in_use(c), 0);
	assert_int_equal(rg_slab_validate(c, NULL), 0);
	assert_int_equal(rg_slab_destroy(c), 0);
}

/* Dump @hb into a string (freed by the caller). */
static char *hb_dump_str(const struct rg_hbitmap *hb)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	rg_hbitmap_dump(hb, f);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	return buf;
}

/*
 * A best-fit instance whose index a resize dropped: the largest free run
 * is read from the bitmap, the dump says the index is stale, and the next
 * best-fit call rebuilds it. A full instance has no largest run.
 */
static void test_hbitmap_best_fit_dropped_index(void **state)
{
	struct rg_hbitmap *hb =
		rg_hbitmap_create_flags(1000, RG_HBITMAP_BEST_FIT);
	uint64_t s;
	char *d;

	(void)state;
	assert_non_null(hb);
	assert_int_equal(rg_hbitmap_alloc_best(hb, 10, 1, &s), 0);
	assert_int_equal(s, 0);
	d = hb_dump_str(hb);
	assert_non_null(strstr(d, "best-fit index: live"));
	free(d);
	assert_int_equal(rg_hbitmap_resize(hb, 2000), 0);
	assert_int_equal(rg_hbitmap_reserve(hb, 1500, 10), 0);
	assert_int_equal(rg_hbitmap_free(hb, 0, 10), 0);
	assert_int_equal(rg_hbitmap_reserve(hb, 0, 10), 0);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), 1490);
	d = hb_dump_str(hb);
	assert_non_null(strstr(d, "best-fit index: stale"));
	free(d);
	expect_hb_valid(hb);
	/* rebuilt: the shortest run that fits is [1510, 2000) */
	assert_int_equal(rg_hbitmap_alloc_best(hb, 400, 1, &s), 0);
	assert_int_equal(s, 1510);
	d = hb_dump_str(hb);
	assert_non_null(strstr(d, "best-fit index: live"));
	free(d);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), 1490);
	assert_int_equal(rg_hbitmap_reserve(hb, 10, 1490), 0);
	assert_int_equal(rg_hbitmap_reserve(hb, 1910, 90), 0);
	assert_int_equal(rg_hbitmap_free_units(hb), 0);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), 0);
	expect_hb_valid(hb);
	/* The same capacity again: the rebuild reuses the start sets. */
	assert_int_equal(rg_hbitmap_resize(hb, 2000), 0);
	assert_int_equal(rg_hbitmap_free(hb, 100, 50), 0);
	assert_int_equal(rg_hbitmap_free(hb, 300, 20), 0);
	assert_int_equal(rg_hbitmap_alloc_best(hb, 20, 1, &s), 0);
	assert_int_equal(s, 300);
	assert_int_equal(rg_hbitmap_largest_free_run(hb), 50);
	expect_hb_valid(hb);
	rg_hbitmap_destroy(hb);
}

/*
 * rg_region_save_file() into a stream with room for @room bytes and no
 * buffer, so that the write that does not fit fails at once.
 */
static int save_into(struct rg_region *r, unsigned char *buf, size_t room)
{
	FILE *f = fmemopen(buf, room, "w");
	int err;

	assert_non_null(f);
	assert_int_equal(setvbuf(f, NULL, _IONBF, 0), 0);
	err = rg_region_save_file(r, f);
	fclose(f);
	return err;
}

/*
 * A save that runs out of room after the header (inside the runs) or
 * just before the checksum reports -EIO; with room for all of it, the
 * bytes are those rg_region_save() writes.
 */
static void test_region_save_file_short_stream(void **state)
{
	struct rg_region *r = rg_region_create("bitmap", 1000, 0);
	unsigned char want[64], buf[64];
	size_t size = sizeof(want);

	(void)state;
	assert_non_null(r);
	assert_int_equal(rg_region_reserve(r, 10, 5), 0);
	assert_int_equal(rg_region_reserve(r, 100, 50), 0);
	/* header 24, two runs of 16, checksum 4 */
	assert_int_equal(rg_region_save(r, want, &size), 0);
	assert_int_equal(size, 60);
	assert_int_equal(save_into(r, buf, 24 + 16), -EIO);
	assert_int_equal(save_into(r, buf, 24 + 32), -EIO);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(save_into(r, buf, sizeof(buf)), 0);
	assert_memory_equal(buf, want, 60);
	assert_int_equal(rg_region_validate(r, NULL), 0);
	rg_region_destroy(r);
}

/* Paused backwards search whose previous index holds an entry. */
static void test_maple_find_rev_after_pause_adjacent(void **state)
{
	static int a, b;
	struct rg_maple_tree mt;
	void *e;

	(void)state;
	assert_int_equal(rg_mtree_init(&mt, 0), 0);
	assert_int_equal(rg_mtree_store_range(&mt, 0, 9, &a), 0);
	assert_int_equal(rg_mtree_store_range(&mt, 10, 19, &b), 0);
	rg_mtree_lock(&mt);
	{
		RG_MA_STATE(mas, &mt, 15, 15);

		assert_ptr_equal(rg_mas_find_rev(&mas, 0), &b);
		rg_mas_pause(&mas);
		e = rg_mas_find_rev(&mas, 0);
		EXPECT_AT(mas, e, &a, RG_MAS_ACTIVE, 0, 9);
	}
	rg_mtree_unlock(&mt);
	rg_mtree_destroy(&mt);
}

/* The run walk and the save of a region created with RG_REGION_LOCKED. */
static void test_region_locked_walk_save(void **state)
{
	struct rg_region *r = rg_region_create("ida", 500, RG_REGION_LOCKED);
	unsigned char buf[64];
	unsigned long s, n;
	size_t size = sizeof(buf);

	(void)state;
	assert_non_null(r);
	assert_int_equal(rg_region_reserve(r, 100, 20), 0);
	assert_int_equal(rg_region_next_run(r, 0, RG_RUN_USED, &s, &n),
			 RG_RUN_USED);
	assert_int_equal(s, 100);
	assert_int_equal(n, 20);
	assert_int_equal(rg_region_save(r, buf, &size), 0);
	assert_int_equal(size, 24 + 16 + 4);
	assert_int_equal(save_into(r, buf, sizeof(buf)), 0);
	assert_int_equal(rg_region_validate(r, NULL), 0);
	rg_region_destroy(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slab_free_bulk_leading_nulls),
		cmocka_unit_test(test_slab_return_full_sheaf),
		cmocka_unit_test(test_hbitmap_rev_on_best_fit),
		cmocka_unit_test(test_hbitmap_rev_full_plain),
		cmocka_unit_test(test_hbitmap_best_fit_dropped_index),
		cmocka_unit_test(test_xas_on_head),
		cmocka_unit_test(test_hbitmap_best_fit_free_not_taken),
		cmocka_unit_test(test_hbitmap_node_all_free),
		cmocka_unit_test(test_xas_nomem_leftover),
		cmocka_unit_test(test_xa_find_marked_head_only),
		cmocka_unit_test(test_xa_alloc_full_tree_limit),
		cmocka_unit_test(test_maple_steps_from_limits),
		cmocka_unit_test(test_maple_empty_area_aligned),
		cmocka_unit_test(test_region_locked_alloc_free),
		cmocka_unit_test(test_region_save_file_short_stream),
		cmocka_unit_test(test_maple_find_rev_after_pause_adjacent),
		cmocka_unit_test(test_region_locked_walk_save),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
