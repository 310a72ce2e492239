// SPDX-License-Identifier: MIT
/*
 * Best-fit hbitmap instances let the first-fit summaries fall behind the
 * bits and note which blocks changed; rg_hbitmap_sync() (and every call
 * that needs the summaries) recomputes only those, or everything once the
 * list of changes overflowed. In lockstep with a bool array: best-fit
 * (also crossing no boundary, through rg_hbitmap_alloc_window() over the
 * whole capacity, which the index answers), top-down and first-fit
 * allocations (exact starts), frees, reservations
 * and long frees and reservations that span many blocks, in bursts of 1
 * to 200 mutations between syncs, so that both the list and its overflow
 * are used. After every sync validate checks every summary against the
 * words, and walks (rg_hbitmap_next_run(), before and after the sync, and
 * rg_region_next_run() on a best-fit region) must name exactly the model's
 * runs. Validate after every operation (sanitizer builds) or every 16th.
 */
#include "rg_test.h"

#include "region/hbitmap.h"
#include "region/region.h"

#define CAP 100003ULL
#define MAXLIVE 8192

static bool ref[CAP];
static struct {
	uint64_t s, n;
} live[MAXLIVE];
static unsigned nlive;

static void ref_set(uint64_t s, uint64_t n, bool v)
{
	for (uint64_t i = s; i < s + n; i++) {
		assert_true(ref[i] != v);
		ref[i] = v;
	}
}

/*
 * The start the policy names in the model, or UINT64_MAX; BOUNDED: best
 * fit crossing no multiple of @bound (a power of two >= n).
 */
enum pol { BEST, FIRST, TOP, BOUNDED };

static uint64_t ref_alloc_b(enum pol p, uint64_t n, uint64_t mask,
			    uint64_t bound)
{
	uint64_t want = UINT64_MAX, blen = UINT64_MAX;

	for (uint64_t a = 0, e; a < CAP; a = e + 1) {
		uint64_t s, t;

		for (e = a; e < CAP && !ref[e]; e++)
			;
		if (e == a || e - a < n)
			continue;
		s = (a + mask) & ~mask;
		while (p == BOUNDED && s + n <= e &&
		       s / bound != (s + n - 1) / bound)
			s += mask + 1;
		t = (e - n) & ~mask;
		if (s < a || s + n > e)
			continue;
		if (p == FIRST && want == UINT64_MAX)
			want = s;
		if (p == TOP && t >= a)
			want = t;
		if ((p == BEST || p == BOUNDED) && e - a < blen) {
			want = s;
			blen = e - a;
		}
	}
	return want;
}

static uint64_t ref_alloc(enum pol p, uint64_t n, uint64_t mask)
{
	return ref_alloc_b(p, n, mask, 0);
}

/* The model's run of @used units at or after @from: false if none. */
static bool ref_next(uint64_t from, bool used, uint64_t *s, uint64_t *n)
{
	uint64_t a = from, e;

	while (a < CAP && ref[a] != used)
		a++;
	if (a >= CAP)
		return false;
	for (e = a; e < CAP && ref[e] == used; e++)
		;
	*s = a;
	*n = e - a;
	return true;
}

/* Walk every run of both kinds from a random unit against the model. */
static void check_walk(struct rg_hbitmap *hb, struct rg_rand *r)
{
	bool used = rg_rand_below(r, 2);
	uint64_t from = rg_rand_below(r, CAP), s, n, ws, wn;
	unsigned runs = 0;

	for (;;) {
		bool have = ref_next(from, used, &s, &n);
		int err = rg_hbitmap_next_run(hb, from, used, &ws, &wn);

		if (!have) {
			assert_int_equal(err, -ENOENT);
			break;
		}
		assert_int_equal(err, 0);
		assert_int_equal(ws, s);
		assert_int_equal(wn, n);
		from = s + n;
		used = !used;
		if (from >= CAP || ++runs > 200)
			break;
	}
}

static int do_alloc(struct rg_hbitmap *hb, enum pol p, uint64_t n,
		    uint64_t align, uint64_t *s)
{
	if (p == BEST)
		return rg_hbitmap_alloc_best(hb, n, align, s);
	if (p == FIRST)
		return rg_hbitmap_alloc(hb, n, align, s);
	if (p == BOUNDED) /* the whole capacity: answered by the index */
		return rg_hbitmap_alloc_window(hb, n, align, 0, UINT64_MAX,
					       n <= 64 ? 64 : 1024,
					       RG_HBITMAP_BEST, s);
	return rg_hbitmap_alloc_rev(hb, n, align, s);
}

/* One random mutation, checked against the model. */
static void mutate(struct rg_hbitmap *hb, struct rg_rand *r,
		   unsigned long *counts)
{
	unsigned k = (unsigned)rg_rand_below(r, 100);
	uint64_t n = rg_rand_below(r, 8) ? rg_rand_range(r, 1, 40) :
					   rg_rand_range(r, 41, 700);
	uint64_t align = 1ULL << rg_rand_below(r, 5), s = 0, want;
	int err;

	if (k < 58 && nlive < MAXLIVE) {
		enum pol p = k < 44 ? BEST :
			     k < 50 ? BOUNDED :
			     k < 54 ? TOP :
				      FIRST;

		want = ref_alloc_b(p, n, align - 1, n <= 64 ? 64 : 1024);
		err = do_alloc(hb, p, n, align, &s);
		if (want == UINT64_MAX) {
			assert_int_equal(err, -ENOSPC);
			counts[1]++;
			return;
		}
		assert_int_equal(err, 0);
		assert_int_equal(s, want);
		ref_set(s, n, true);
		live[nlive].s = s;
		live[nlive++].n = n;
		counts[0]++;
	} else if (k >= 94 && k < 97 && nlive < MAXLIVE) {
		/* a reservation, long at times: it spans many blocks */
		bool fr = true;

		n = k < 96 ? rg_rand_range(r, 1, 64) :
			     rg_rand_range(r, 1, 6000);
		s = rg_rand_below(r, CAP - n + 1);
		for (uint64_t u = s; u < s + n && fr; u++)
			fr = !ref[u];
		err = rg_hbitmap_reserve(hb, s, n);
		assert_int_equal(err, fr ? 0 : -EBUSY);
		if (!err) {
			ref_set(s, n, true);
			live[nlive].s = s;
			live[nlive++].n = n;
			counts[3]++;
		}
	} else if ((k < 94 || rg_rand_below(r, 10)) && nlive) {
		unsigned j = (unsigned)rg_rand_below(r, nlive);

		assert_int_equal(rg_hbitmap_free(hb, live[j].s, live[j].n), 0);
		ref_set(live[j].s, live[j].n, false);
		live[j] = live[--nlive];
		counts[2]++;
	} else {
		/* free every live region inside a long span at once */
		uint64_t lo = rg_rand_below(r, CAP), hi = lo + 3000;

		for (unsigned j = 0; j < nlive;) {
			if (live[j].s >= lo && live[j].s + live[j].n <= hi) {
				assert_int_equal(rg_hbitmap_free(hb, live[j].s,
								 live[j].n),
						 0);
				ref_set(live[j].s, live[j].n, false);
				live[j] = live[--nlive];
			} else {
				j++;
			}
		}
		counts[4]++;
	}
}

static void test_sync_lockstep(void **state)
{
	struct rg_hbitmap *hb =
		rg_hbitmap_create_flags(CAP, RG_HBITMAP_BEST_FIT);
	unsigned long bursts = RG_THOROUGH ? 400 : 1200, counts[5] = { 0 };
	unsigned long ops = 0, overflows = 0;
	struct rg_rand r;

	(void)state;
	assert_non_null(hb);
	memset(ref, 0, sizeof(ref));
	nlive = 0;
	rg_rand_seed(&r, rg_test_seed());
	for (unsigned long b = 0; b < bursts; b++) {
		/* short bursts stay in the list of changes, long ones not */
		unsigned len = rg_rand_below(&r, 4) ?
				       (unsigned)rg_rand_range(&r, 1, 20) :
				       (unsigned)rg_rand_range(&r, 60, 200);

		overflows += len > 64;
		for (unsigned i = 0; i < len; i++, ops++) {
			mutate(hb, &r, counts);
			if (RG_THOROUGH || !(ops & 15))
				RG_ASSERT_VALIDF(hb, "op %lu", ops);
		}
		if (rg_rand_below(&r, 2))
			check_walk(hb, &r); /* stale: a scan of the words */
		rg_hbitmap_sync(hb);
		/* the summaries are exact now: validate checks every one */
		RG_ASSERT_VALIDF(hb, "sync after op %lu", ops);
		check_walk(hb, &r);
		rg_hbitmap_sync(hb); /* nothing changed: nothing to do */
		RG_ASSERT_VALID(hb);
	}
	printf("# %lu operations in %lu bursts (%lu past the list): %lu "
	       "allocations, %lu -ENOSPC, %lu frees, %lu reservations, %lu "
	       "span frees\n",
	       ops, bursts, overflows, counts[0], counts[1], counts[2],
	       counts[3], counts[4]);
	assert_true(counts[0] > 1000 && counts[1] > 10 && counts[2] > 1000);
	rg_hbitmap_sync(NULL);
	rg_hbitmap_destroy(hb);
}

/* rg_region_next_run() on a best-fit region, walked between frees. */
static void test_region_walk_best(void **state)
{
	struct rg_region *rg = rg_region_create(
		"hbitmap", CAP, RG_REGION_POLICY(RG_REGION_BEST_FIT));
	unsigned long rounds = RG_THOROUGH ? 60 : 200;
	struct rg_rand r;

	(void)state;
	assert_non_null(rg);
	memset(ref, 0, sizeof(ref));
	nlive = 0;
	rg_rand_seed(&r, rg_test_seed() ^ 0x5bd1e995);
	for (unsigned long i = 0; i < rounds; i++) {
		uint64_t from = 0, s, n;
		unsigned long ws, wn;

		for (unsigned j = 0; j < 200; j++) {
			if (nlive < MAXLIVE && rg_rand_below(&r, 3)) {
				unsigned long st;
				uint64_t len = rg_rand_range(&r, 1, 32);
				uint64_t want = ref_alloc(BEST, len, 0);
				int err = rg_region_alloc(rg, len, 1, &st);

				if (want == UINT64_MAX) {
					assert_int_equal(err, -ENOSPC);
					continue;
				}
				assert_int_equal(err, 0);
				assert_int_equal(st, want);
				ref_set(st, len, true);
				live[nlive].s = st;
				live[nlive++].n = len;
			} else if (nlive) {
				unsigned k = (unsigned)rg_rand_below(&r, nlive);

				assert_int_equal(rg_region_free(rg, live[k].s,
								live[k].n),
						 0);
				ref_set(live[k].s, live[k].n, false);
				live[k] = live[--nlive];
			}
		}
		RG_ASSERT_VALID(rg);
		/* every run of both kinds, freeing now and then on the way */
		while (ref_next(from, ref[from], &s, &n)) {
			assert_int_equal(
				rg_region_next_run(rg, from,
						   RG_RUN_USED | RG_RUN_FREE,
						   &ws, &wn),
				ref[s] ? 1 : 2);
			assert_int_equal(ws, s);
			assert_int_equal(wn, n);
			from = s + n;
			if (from >= CAP)
				break;
			if (nlive && !rg_rand_below(&r, 8)) {
				unsigned k = (unsigned)rg_rand_below(&r, nlive);

				if (live[k].s >= from) {
					assert_int_equal(
						rg_region_free(rg, live[k].s,
							       live[k].n),
						0);
					ref_set(live[k].s, live[k].n, false);
					live[k] = live[--nlive];
				}
			}
		}
		RG_ASSERT_VALID(rg);
	}
	rg_region_destroy(rg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sync_lockstep),
		cmocka_unit_test(test_region_walk_best),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
