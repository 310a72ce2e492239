/* SPDX-License-Identifier: MIT */
/*
 * Setup shared by the coverage tests (test_coverage.c, test_reach.c): a
 * slab report hook that records what it was told, and the Maple Tree of
 * three ranges many advanced-API tests start from.
 */
#ifndef RG_TEST_COVERAGE_H
#define RG_TEST_COVERAGE_H

#include <limits.h>
#include <stdio.h>

#include <libregion.h>

#include "rg_test.h"

/* What cov_note_report() was told: calls, the last object and reason. */
struct cov_reports {
	int n;
	const void *obj;
	char what[64];
};

/* A slab report hook (rg_slab_set_report_hook()) with a cov_reports. */
static inline void cov_note_report(const char *cache, const void *obj,
				   const char *what, void *arg)
{
	struct cov_reports *r = arg;

	(void)cache;
	r->n++;
	r->obj = obj;
	snprintf(r->what, sizeof(r->what), "%s", what);
}

/*
 * A plain Maple Tree holding @a at [0, 9], @b at [30, 39] and @c at
 * [50, @c_last].
 */
static inline void cov_maple_three(struct rg_maple_tree *mt, void *a, void *b,
				   void *c, unsigned long c_last)
{
	assert_int_equal(rg_mtree_init(mt, 0), 0);
	assert_int_equal(rg_mtree_store_range(mt, 0, 9, a), 0);
	assert_int_equal(rg_mtree_store_range(mt, 30, 39, b), 0);
	assert_int_equal(rg_mtree_store_range(mt, 50, c_last, c), 0);
}

#endif /* RG_TEST_COVERAGE_H */
