// SPDX-License-Identifier: MIT
/*
 * Region walking and fragmentation figures, on every backend
 * this build has, in lockstep with a brute-force model (an array of bools):
 *  - after each random mutation (validated), rg_region_next_run() from
 *    random start units (and, every few steps, from every unit) for each
 *    kind set, and rg_region_for_each_run() over the whole instance, equal
 *    the runs the model gives; the free-run count, histogram and
 *    fragmentation ratio in the stats equal the model's;
 *  - bad arguments get their documented errors;
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "rg_test.h"

#include "region/region.h"

#define NB RG_REGION_NR_BACKENDS
#define CAP 1500

static enum rg_region_backend ids[NB];
static unsigned int nids;
static struct rg_rand rng;
static bool model[CAP];

static void check_valid(struct rg_region *r)
{
	const char *why = NULL;

	if (rg_region_validate(r, &why))
		fail_msg("validate: %s", why);
}

/* The model's run of @kinds at or after @from: kind, or 0 if none. */
static int model_next(const bool *m, unsigned long cap, unsigned long from,
		      unsigned int kinds, unsigned long *s, unsigned long *n)
{
	unsigned long u = from;
	bool used;

	while (u < cap && !((m[u] ? RG_RUN_USED : RG_RUN_FREE) & kinds))
		u++;
	if (u >= cap)
		return 0;
	used = m[u];
	*s = u;
	while (u < cap && m[u] == used)
		u++;
	*n = u - *s;
	return used ? (int)RG_RUN_USED : (int)RG_RUN_FREE;
}

static const unsigned int kind_sets[3] = { RG_RUN_USED, RG_RUN_FREE,
					   RG_RUN_USED | RG_RUN_FREE };

static void check_from(struct rg_region *r, unsigned long from)
{
	for (int k = 0; k < 3; k++) {
		unsigned long s = 7, n = 9, ms = 0, mn = 0;
		int want = model_next(model, CAP, from, kind_sets[k], &ms, &mn);
		int got = rg_region_next_run(r, from, kind_sets[k], &s, &n);

		if (!want) {
			if (got != -ENOENT || s != 7 || n != 9)
				fail_msg("from %lu kinds %u: got %d, want "
					 "-ENOENT, untouched",
					 from, kind_sets[k], got);
			continue;
		}
		if (got != want || s != ms || n != mn)
			fail_msg("from %lu kinds %u: got %d %lu+%lu, want %d "
				 "%lu+%lu",
				 from, kind_sets[k], got, s, n, want, ms, mn);
	}
}

/* Stats and a full for-each walk against the model. */
static void check_walk_and_stats(struct rg_region *r)
{
	unsigned long hist[RG_REGION_HIST_BUCKETS] = { 0 };
	unsigned long s, n, u = 0, nfree = 0, largest = 0, runs = 0, ms, mn;
	struct rg_region_stats st;
	int kind;

	rg_region_for_each_run(r, 0, RG_RUN_USED | RG_RUN_FREE, kind, s, n)
	{
		assert_int_equal(model_next(model, CAP, u,
					    RG_RUN_USED | RG_RUN_FREE, &ms,
					    &mn),
				 kind);
		assert_int_equal(s, ms);
		assert_int_equal(n, mn);
		u = s + n;
	}
	assert_int_equal(kind, -ENOENT);
	assert_int_equal(u, CAP);
	for (u = 0; u < CAP;) {
		if (model[u]) {
			u++;
			continue;
		}
		for (n = 0; u + n < CAP && !model[u + n]; n++)
			;
		runs++;
		nfree += n;
		largest = n > largest ? n : largest;
		hist[63 - __builtin_clzl(n)]++;
		u += n;
	}
	assert_int_equal(rg_region_get_stats(r, &st), 0);
	assert_int_equal(st.free_units, nfree);
	assert_int_equal(st.largest_free_run, largest);
	assert_int_equal(st.free_runs, runs);
	assert_memory_equal(st.free_run_hist, hist, sizeof(hist));
	if (nfree)
		assert_true(st.fragmentation ==
			    1.0 - (double)largest / (double)nfree);
	else
		assert_true(st.fragmentation == 0.0);
}

/* One random mutation, mirrored in the model when it succeeds. */
static void mutate(struct rg_region *r)
{
	unsigned long a = rg_rand_below(&rng, CAP), n, s;
	unsigned int op = (unsigned int)rg_rand_below(&rng, 3);
	int err;

	n = rg_rand_below(&rng, 8) ? rg_rand_range(&rng, 1, 12) :
				     rg_rand_range(&rng, 13, 200);
	if (n > CAP - a)
		n = CAP - a;
	if (op == 0) {
		err = rg_region_alloc(r, n, 0, &s);
		if (!err)
			a = s;
	} else if (op == 1) {
		/* free a piece of an allocated run, mostly */
		while (a < CAP && !model[a])
			a++;
		if (a == CAP)
			return;
		for (n = 1; a + n < CAP && model[a + n] && n < 40; n++)
			;
		n = rg_rand_range(&rng, 1, n);
		err = rg_region_free(r, a, n);
	} else {
		err = rg_region_reserve(r, a, n);
	}
	if (!err)
		for (unsigned long u = a; u < a + n; u++)
			model[u] = op != 1;
	check_valid(r);
}

static void test_walk_lockstep(void **state)
{
	enum rg_region_backend b = *(enum rg_region_backend *)*state;
	struct rg_region *r = rg_region_create_backend(b, CAP, 0);
	int steps = b == RG_REGION_IDA ? 150 : 600;

	assert_non_null(r);
	memset(model, 0, sizeof(model));
	check_walk_and_stats(r);
	for (unsigned long u = 0; u < CAP; u++)
		check_from(r, u);
	for (int i = 0; i < steps; i++) {
		mutate(r);
		check_walk_and_stats(r);
		for (int k = 0; k < 8; k++)
			check_from(r, rg_rand_below(&rng, CAP));
		if (i % 100 == 99)
			for (unsigned long u = 0; u < CAP; u++)
				check_from(r, u);
	}
	check_from(r, CAP);
	check_from(r, ULONG_MAX);
	rg_region_destroy(r);
}

static void test_bad_arguments(void **state)
{
	struct rg_region *r = rg_region_create_backend(ids[0], 100, 0);
	unsigned long s = 1, n = 2;

	(void)state;
	assert_non_null(r);
	assert_int_equal(rg_region_next_run(NULL, 0, RG_RUN_FREE, &s, &n),
			 -EINVAL);
	assert_int_equal(rg_region_next_run(r, 0, 0, &s, &n), -EINVAL);
	assert_int_equal(rg_region_next_run(r, 0, 4, &s, &n), -EINVAL);
	assert_int_equal(rg_region_next_run(r, 0, RG_RUN_FREE, NULL, &n),
			 -EINVAL);
	assert_int_equal(rg_region_next_run(r, 0, RG_RUN_FREE, &s, NULL),
			 -EINVAL);
	assert_int_equal(rg_region_next_run(r, 0, RG_RUN_USED, &s, &n),
			 -ENOENT);
	assert_int_equal(rg_region_next_run(r, 100, RG_RUN_FREE, &s, &n),
			 -ENOENT);
	assert_int_equal(s, 1);
	assert_int_equal(n, 2);
	rg_region_destroy(r);
}

int main(void)
{
	struct CMUnitTest tests[NB + 1];
	size_t nt = 0;

	rg_rand_seed(&rng, rg_test_seed());
	for (unsigned int b = 0; b < NB; b++) {
		if (!rg_region_backend_available((enum rg_region_backend)b))
			continue;
		ids[nids] = (enum rg_region_backend)b;
		tests[nt] = (struct CMUnitTest)cmocka_unit_test_prestate(
			test_walk_lockstep, &ids[nids]);
		tests[nt++].name = rg_region_backend_name(ids[nids]);
		nids++;
	}
	tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_bad_arguments);
	return _cmocka_run_group_tests("region_walk", tests, nt, NULL, NULL);
}
