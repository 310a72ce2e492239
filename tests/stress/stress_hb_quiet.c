// SPDX-License-Identifier: MIT
/*
 * hbitmap best fit once its index is quiet: after enough best-fit
 * allocations and frees without a sync, the first-fit summaries' list of
 * changed blocks has overflowed and nothing is noted until the next sync,
 * so the short allocation and free take paths that note nothing and, at
 * capacities up to 2^24 units, assume three start-set levels. Only
 * best-fit allocations and frees run here (anything that syncs would
 * empty the list again). In lockstep with a brute-force model over a few
 * zones (everything else is reserved): every start must be the exact best
 * fit; validate every few operations and at the end. At 300,007 units the
 * dump must say the index went quiet; at 17,077,223 units (four start-set
 * levels) it must never be quiet, as the three-level paths do not apply.
 * Then a sync (the summaries exact again) and another round, checked the
 * same way, a resize (the index dropped, the summaries exact) and another
 * round, and a first-fit call that must agree with the model.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hb_zone_model.h"

#define CAP1 300007ULL
#define CAP2 (CAP1 + (1ULL << 24)) /* a fourth start-set level */
#define NZ 8
#define ZLEN HBZ_LEN

static const uint64_t zones1[NZ] = {
	0,	4096 - 100,   65536 - 64,   150001,
	200000, 262144 - 128, 262144 + 300, CAP1 - ZLEN,
};
static const uint64_t zones2[NZ] = {
	0,
	(1ULL << 23) + 5,
	(1ULL << 24) - 128,
	(1ULL << 24) + 300,
	(1ULL << 24) + 262144 - 100,
	(1ULL << 24) + 270000,
	(1ULL << 24) + 290000,
	CAP2 - ZLEN,
};

/* Does the dump of @hb say its best-fit index is quiet? */
static bool dump_says_quiet(const struct rg_hbitmap *hb)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool quiet;

	assert_non_null(f);
	rg_hbitmap_dump(hb, f);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	assert_non_null(strstr(buf, "best-fit index: live"));
	quiet = strstr(buf, "best-fit index: live (quiet)") != NULL;
	free(buf);
	return quiet;
}

/*
 * @ops best-fit allocations and frees, checked against the model; true if
 * the index was quiet at some check.
 */
static bool churn(struct rg_hbitmap *hb, struct rg_rand *r, unsigned long ops,
		  unsigned long every)
{
	bool quiet = false;

	for (unsigned long i = 0; i < ops; i++) {
		uint64_t n = rg_rand_below(r, 8) ? rg_rand_range(r, 1, 24) :
						   rg_rand_range(r, 1, 100);
		uint64_t align =
			rg_rand_below(r, 8) ? 1 : 1ULL << rg_rand_below(r, 6);
		uint64_t s = 0, want;
		int err;

		if (rg_rand_below(r, 2) && hbz_nlive < HBZ_MAXLIVE) {
			want = hbz_alloc(HBZ_BEST, n, align - 1);
			err = rg_hbitmap_alloc_best(hb, n, align, &s);
			if (want == UINT64_MAX) {
				assert_int_equal(err, -ENOSPC);
			} else {
				assert_int_equal(err, 0);
				assert_int_equal(s, want);
				hbz_set(s, n, true);
				hbz_live_add(s, n);
			}
		} else if (hbz_nlive) {
			unsigned j = (unsigned)rg_rand_below(r, hbz_nlive);

			assert_int_equal(rg_hbitmap_free(hb, hbz_live[j].s,
							 hbz_live[j].n),
					 0);
			hbz_set(hbz_live[j].s, hbz_live[j].n, false);
			hbz_live_del(j);
		}
		if (!(i % every)) {
			RG_ASSERT_VALID(hb);
			quiet = quiet || dump_says_quiet(hb);
		}
	}
	RG_ASSERT_VALID(hb);
	return quiet || dump_says_quiet(hb);
}

static void run_quiet(uint64_t cap, const uint64_t *zones, bool quiet)
{
	/* enough mutations to overflow the change list (one per 2,048) */
	unsigned long ops = 2 * (cap / 2048) + 4000;
	/* validate often, but not at 17 M units (each one scans them all) */
	unsigned long every = cap > (1ULL << 24) ? 1024 : RG_THOROUGH ? 8 : 64;
	struct rg_hbitmap *hb;
	uint64_t s = 0, want, n;
	struct rg_rand r;

	hb = rg_hbitmap_create_flags(cap, RG_HBITMAP_BEST_FIT);
	assert_non_null(hb);
	rg_rand_seed(&r, rg_test_seed());
	hbz_init(hb, cap, zones, NZ);
	assert_true(churn(hb, &r, ops, every) == quiet);
	/* exact summaries again: the hot paths note their changes again */
	rg_hbitmap_sync(hb);
	assert_false(dump_says_quiet(hb));
	RG_ASSERT_VALID(hb);
	assert_true(churn(hb, &r, ops, every) == quiet);
	/*
	 * A resize drops the index and makes the summaries exact: the index
	 * must not stay quiet (the quiet free would skip the change note
	 * behind exact summaries). The new units are reserved at once, out
	 * of the model's zones.
	 */
	assert_int_equal(rg_hbitmap_resize(hb, cap + 64), 0);
	RG_ASSERT_VALID(hb);
	assert_int_equal(rg_hbitmap_reserve(hb, cap, 64), 0);
	RG_ASSERT_VALID(hb);
	assert_true(churn(hb, &r, ops, every) == quiet);
	/* first fit syncs and must see every change the quiet paths made */
	n = rg_rand_range(&r, 1, 8);
	want = hbz_alloc(HBZ_FIRST, n, 0);
	if (want == UINT64_MAX) {
		assert_int_equal(rg_hbitmap_alloc(hb, n, 1, &s), -ENOSPC);
	} else {
		assert_int_equal(rg_hbitmap_alloc(hb, n, 1, &s), 0);
		assert_int_equal(s, want);
	}
	RG_ASSERT_VALID(hb);
	rg_hbitmap_destroy(hb);
}

static void test_quiet_three_levels(void **state)
{
	(void)state;
	run_quiet(CAP1, zones1, true);
}

static void test_quiet_four_levels(void **state)
{
	(void)state;
	run_quiet(CAP2, zones2, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quiet_three_levels),
		cmocka_unit_test(test_quiet_four_levels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
