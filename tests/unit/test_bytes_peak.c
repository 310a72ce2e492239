// SPDX-License-Identifier: MIT
/*
 * The peak of bytes held, exact: hbitmap keeps its own
 * (rg_hbitmap_bytes_peak()) where its memory changes, and the region front
 * end reports it without sampling. Randomized churn that grows the
 * best-fit index; after every call the peak must equal the largest bytes
 * figure seen after any call so far, never more and never less.
 */
#include <errno.h>
#include <string.h>

#include "rg_test.h"
#include "region/hbitmap.h"
#include "region/region.h"

#define CAP 20000u
#define OPS 20000u
#define SLOTS 512u

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static uint64_t seed;

struct held {
	uint64_t s, n;
};

static void test_hbitmap_peak(void **state)
{
	static struct held h[SLOTS];
	uint64_t x = seed | 1, s;
	struct rg_hbitmap *hb =
		rg_hbitmap_create_flags(CAP, RG_HBITMAP_BEST_FIT);
	size_t first, max;

	(void)state;
	assert_non_null(hb);
	memset(h, 0, sizeof(h));
	first = max = rg_hbitmap_bytes(hb);
	assert_int_equal(rg_hbitmap_bytes_peak(hb), max);
	for (unsigned i = 0; i < OPS; i++) {
		struct held *e = &h[rnd(&x) % SLOTS];

		if (e->n) {
			assert_int_equal(rg_hbitmap_free(hb, e->s, e->n), 0);
			e->n = 0;
		} else {
			uint64_t n = 1 + rnd(&x) % 96;

			if (!rg_hbitmap_alloc_best(hb, n, 1, &s)) {
				e->s = s;
				e->n = n;
			}
		}
		if (i % 5000 == 4999) { /* grow, then shrink back */
			assert_int_equal(rg_hbitmap_resize(hb, 2 * CAP), 0);
			if (rg_hbitmap_bytes(hb) > max)
				max = rg_hbitmap_bytes(hb);
			assert_int_equal(rg_hbitmap_bytes_peak(hb), max);
			assert_int_equal(rg_hbitmap_resize(hb, CAP), 0);
		}
		if (rg_hbitmap_bytes(hb) > max)
			max = rg_hbitmap_bytes(hb);
		assert_int_equal(rg_hbitmap_bytes_peak(hb), max);
		if (RG_THOROUGH || i % 1024 == 0)
			RG_ASSERT_VALIDF(hb, "op %u", i);
	}
	assert_true(max > first); /* the peak did move */
	assert_true(max > rg_hbitmap_bytes(hb)); /* and stayed after a shrink */
	rg_hbitmap_destroy(hb);
	/* no index: the peak is the first figure */
	hb = rg_hbitmap_create(CAP);
	assert_non_null(hb);
	assert_int_equal(rg_hbitmap_bytes_peak(hb), rg_hbitmap_bytes(hb));
	rg_hbitmap_destroy(hb);
	assert_int_equal(rg_hbitmap_bytes_peak(NULL), 0);
}

/* Every backend and policy, locked and not: peak == max of bytes_held. */
static void test_region_peak(void **state)
{
	static struct held h[SLOTS];

	(void)state;
	RG_FOR_EACH_BACKEND(b) {
		for (unsigned p = 0; p < RG_REGION_NR_POLICIES; p++) {
			for (unsigned locked = 0; locked < 2; locked++) {
				unsigned flags =
					RG_REGION_POLICY(p) |
					(locked ? RG_REGION_LOCKED : 0);
				struct rg_region_stats st;
				struct rg_region *r;
				uint64_t x = seed | 1;
				unsigned long s;
				size_t max;

				if (!rg_region_backend_has_policy(
					    b, (enum rg_region_policy)p))
					continue;
				r = rg_region_create_backend(b, CAP, flags);
				assert_non_null(r);
				memset(h, 0, sizeof(h));
				assert_int_equal(rg_region_get_stats(r, &st),
						 0);
				max = st.bytes_held;
				assert_int_equal(st.bytes_held_peak, max);
				for (unsigned i = 0; i < OPS / 4; i++) {
					struct held *e = &h[rnd(&x) % SLOTS];

					if (e->n) {
						assert_int_equal(
							rg_region_free(r, e->s,
								       e->n),
							0);
						e->n = 0;
					} else {
						unsigned long n =
							1 + rnd(&x) % 96;

						if (!rg_region_alloc(r, n, 0,
								     &s)) {
							e->s = s;
							e->n = n;
						}
					}
					assert_int_equal(
						rg_region_get_stats(r, &st), 0);
					if (st.bytes_held > max)
						max = st.bytes_held;
					assert_int_equal(st.bytes_held_peak,
							 max);
				}
				RG_ASSERT_VALIDF(r, "%s",
						 rg_region_backend_name(b));
				rg_region_destroy(r);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hbitmap_peak),
		cmocka_unit_test(test_region_peak),
	};

	seed = rg_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
