// SPDX-License-Identifier: MIT
/*
 * Randomized IDR test against a reference model: a map of ID -> pointer
 * (an array of slots) over three windows of the ID space: 2048 IDs from
 * the base, the 128 IDs ending at INT_MAX, and the 128 ending at UINT_MAX
 * (reachable only by rg_idr_alloc_u32()). Rounds of operations on a fresh
 * IDR with a random base: alloc, alloc_u32 and alloc_cyclic with random
 * ranges (empty ones, end <= 0, u32 maxima above UINT_MAX), set_cursor,
 * remove, replace, find, get_next / get_next_ul and is_empty, with
 * pointers of every kind (aligned, unaligned, odd, error-like, NULL, and
 * refused ones that must get -EINVAL). Every result is compared with the
 * model; the sanitizer build validates after every operation, and a full
 * walk is compared with the model every few thousand operations and at the
 * end of each round. Prints its seed (RG_SEED repeats).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "region/idr.h"
#include "rg_test.h"

#define NWIN 3
#define W0 2048U
#define WHI 128U
/* A value the xarray reserves (low bits 10, at most 4096): refused. */
#define BAD_PTR ((void *)(uintptr_t)(2 + 4 * rg_rand_below(&rng, 1024)))
#define IS_BAD(p) (((uintptr_t)(p)&3) == 2 && (uintptr_t)(p) <= 4096)

struct slot {
	bool used;
	void *ptr;
};

struct window {
	unsigned long lo, n; /* IDs lo .. lo + n - 1 */
	struct slot *s;
};

static struct rg_rand rng;
static struct window win[NWIN];
static unsigned int base, cursor;
static unsigned long nr_used;
static char bytes[64];
static unsigned long ops, ok_allocs, nospc, null_stored, peak_used;
/* Drain phases turn half the allocations into removals. */
static bool drain;

static struct slot *ref_slot(unsigned long id)
{
	for (int w = 0; w < NWIN; w++)
		if (id >= win[w].lo && id - win[w].lo < win[w].n)
			return &win[w].s[id - win[w].lo];
	return NULL;
}

/* Lowest unused ID in [lo, hi] that lies inside window @w, or ULONG_MAX. */
static unsigned long ref_lowest_free(int w, unsigned long lo, unsigned long hi)
{
	struct window *wi = &win[w];
	unsigned long top = wi->lo + wi->n - 1;

	if (lo < wi->lo)
		lo = wi->lo;
	if (hi > top)
		hi = top;
	for (unsigned long id = lo; id <= hi && id >= lo; id++)
		if (!wi->s[id - wi->lo].used)
			return id;
	return ULONG_MAX;
}

static void ref_take(unsigned long id, void *ptr)
{
	struct slot *s = ref_slot(id);

	assert_non_null(s);
	assert_false(s->used);
	s->used = true;
	s->ptr = ptr;
	nr_used++;
}

/* The first non-NULL entry at or after @id up to @limit, or NULL. */
static void *ref_next(unsigned long *id, unsigned long limit)
{
	for (int w = 0; w < NWIN; w++) {
		struct window *wi = &win[w];

		for (unsigned long k = 0; k < wi->n; k++) {
			unsigned long i = wi->lo + k;

			if (i < *id || i > limit)
				continue;
			if (wi->s[k].used && wi->s[k].ptr) {
				*id = i;
				return wi->s[k].ptr;
			}
		}
	}
	return NULL;
}

static void *random_ptr(void)
{
	switch (rg_rand_below(&rng, 8)) {
	case 0:
		null_stored++;
		return NULL;
	case 1:
		return &bytes[rg_rand_below(&rng, sizeof(bytes))];
	case 2:
		return (void *)(uintptr_t)(0 - 1 - rg_rand_below(&rng, 4096));
	case 3:
		return (void *)(uintptr_t)(rg_rand_below(&rng, 1 << 20) | 1);
	case 4: /* tagged: a top byte of 0xb4 (arm64 Android) or any */
		return (void *)(uintptr_t)(((rg_rand_below(&rng, 2) ?
						     0xb4 :
						     rg_rand_below(&rng, 256))
					    << (sizeof(uintptr_t) * 8 - 8)) |
					   (rg_rand_below(&rng, 1 << 24) << 2));
	default:
		return (void *)(uintptr_t)((rg_rand_below(&rng, 1 << 24) + 1)
					   << 4);
	}
}

/* A random ID of window @w, now and then just outside it. */
static unsigned long random_id(int w)
{
	struct window *wi = &win[w];

	if (rg_rand_below(&rng, 16) == 0)
		return wi->lo ? wi->lo - 1 : wi->lo + wi->n;
	return wi->lo + rg_rand_below(&rng, wi->n);
}

/* A used ID most of the time, if there is one in window @w. */
static unsigned long pick_id(int w)
{
	unsigned long id = random_id(w);

	for (int tries = 0; tries < 8 && rg_rand_below(&rng, 10) < 8; tries++) {
		struct slot *s = ref_slot(id);

		if (s && s->used)
			break;
		id = random_id(w);
	}
	return id;
}

/* Walk the whole IDR and compare with the model. */
static void compare_all(struct rg_idr *idr)
{
	unsigned long id = 0, tmp, want_id = 0, n = 0;
	void *p;

	rg_idr_for_each_entry_ul(idr, p, tmp, id)
	{
		void *want = ref_next(&want_id, ULONG_MAX);

		if (!want || want_id != id || want != p)
			fail_msg("op %lu: walk has %p at %lu, model %p at %lu",
				 ops, p, id, want, want_id);
		want_id++;
		n++;
	}
	assert_null(ref_next(&want_id, ULONG_MAX));
	for (int w = 0; w < NWIN; w++)
		for (unsigned long k = 0; k < win[w].n; k++) {
			struct slot *s = &win[w].s[k];

			assert_ptr_equal(rg_idr_find(idr, win[w].lo + k),
					 s->used ? s->ptr : NULL);
		}
	assert_int_equal(rg_idr_is_empty(idr), nr_used == 0);
	assert_int_equal(rg_idr_get_cursor(idr), cursor);
	(void)n;
}

static int int_end(unsigned long max_id)
{
	return max_id >= INT_MAX ? (rg_rand_below(&rng, 2) ? 0 : -1) :
				   (int)(max_id + 1);
}

static void op_alloc(struct rg_idr *idr)
{
	int w = (int)rg_rand_below(&rng, 2); /* the int windows */
	unsigned long lo = win[w].lo, hi = lo + win[w].n - 1;
	unsigned long start = lo + rg_rand_below(&rng, win[w].n + 4);
	unsigned long max = lo + rg_rand_below(&rng, win[w].n);
	void *ptr = rg_rand_below(&rng, 50) ? random_ptr() : BAD_PTR;
	int end, got;

	if (w == 1 || rg_rand_below(&rng, 4) == 0)
		max = hi;
	if (start > INT_MAX)
		start = INT_MAX;
	if (w == 0 && start < base && rg_rand_below(&rng, 2))
		start = 0;
	end = int_end(max);
	if (rg_rand_below(&rng, 64) == 0) {
		assert_int_equal(rg_idr_alloc(idr, ptr, -1 - (int)start, end),
				 -EINVAL);
		return;
	}
	got = rg_idr_alloc(idr, ptr, (int)start, end);
	if (IS_BAD(ptr)) {
		assert_int_equal(got, -EINVAL);
		return;
	}
	unsigned long want =
		start > max ? ULONG_MAX : ref_lowest_free(w, start, max);
	if (want == ULONG_MAX) {
		if (got != -ENOSPC)
			fail_msg(
				"op %lu: alloc [%lu, %d) gave %d, want -ENOSPC",
				ops, start, end, got);
		nospc++;
		return;
	}
	if (got < 0 || (unsigned long)got != want)
		fail_msg("op %lu: alloc [%lu, %d) gave %d, want %lu", ops,
			 start, end, got, want);
	ref_take(want, ptr);
	ok_allocs++;
}

static void op_alloc_u32(struct rg_idr *idr)
{
	int w = (int)rg_rand_below(&rng, NWIN);
	unsigned long lo = win[w].lo;
	uint32_t id = (uint32_t)(lo + rg_rand_below(&rng, win[w].n));
	unsigned long max = lo + rg_rand_below(&rng, win[w].n);
	void *ptr = random_ptr();
	uint32_t before;
	int err;

	if (w == 0 && rg_rand_below(&rng, 8) == 0)
		id = 0;
	if (w == 2 && rg_rand_below(&rng, 2))
		max = rg_rand_below(&rng, 2) ? ULONG_MAX : UINT_MAX;
	if (w != 2 && rg_rand_below(&rng, 2))
		max = lo + win[w].n - 1;
	before = id;
	err = rg_idr_alloc_u32(idr, ptr, &id, max);
	unsigned long want =
		before > max ? ULONG_MAX : ref_lowest_free(w, before, max);
	if (want == ULONG_MAX) {
		if (err != -ENOSPC)
			fail_msg("op %lu: alloc_u32 [%u, %lu] gave %d", ops,
				 before, max, err);
		assert_int_equal(id, before);
		nospc++;
		return;
	}
	if (err || id != want)
		fail_msg("op %lu: alloc_u32 [%u, %lu] gave %d, %u, want %lu",
			 ops, before, max, err, id, want);
	ref_take(want, ptr);
	ok_allocs++;
}

static void op_alloc_cyclic(struct rg_idr *idr)
{
	int w = (int)rg_rand_below(&rng, 2);
	unsigned long lo = win[w].lo, n = win[w].n;
	unsigned long start = lo + rg_rand_below(&rng, n / 4);
	unsigned long max = w ? (unsigned long)INT_MAX :
				start + rg_rand_below(&rng, n - (start - lo));
	void *ptr = random_ptr();
	unsigned long first, want;
	int end = int_end(max), got;

	if (w == 0 && start < base && rg_rand_below(&rng, 2))
		start = 0;
	/* The model: from the cursor if it lies in the range, then wrap. */
	first = cursor >= start && cursor <= max ? cursor : start;
	want = ref_lowest_free(w, first, max);
	if (want == ULONG_MAX)
		want = ref_lowest_free(w, start, max);
	got = rg_idr_alloc_cyclic(idr, ptr, (int)start, end);
	if (want == ULONG_MAX) {
		if (got != -ENOSPC)
			fail_msg("op %lu: cyclic [%lu, %d) cursor %u gave %d",
				 ops, start, end, cursor, got);
		nospc++;
		return;
	}
	if (got < 0 || (unsigned long)got != want)
		fail_msg("op %lu: cyclic [%lu, %d) cursor %u gave %d, want %lu",
			 ops, start, end, cursor, got, want);
	ref_take(want, ptr);
	cursor = (unsigned int)want + 1;
	ok_allocs++;
}

static void one_op(struct rg_idr *idr)
{
	unsigned int kind = (unsigned int)rg_rand_below(&rng, 100);
	int w = (int)rg_rand_below(&rng, NWIN);
	unsigned long id;
	struct slot *s;
	void *p, *old;
	int err;

	if (drain && kind < 47 && rg_rand_below(&rng, 2))
		kind = 50;
	if (kind < 25) {
		op_alloc(idr);
	} else if (kind < 35) {
		op_alloc_u32(idr);
	} else if (kind < 47) {
		op_alloc_cyclic(idr);
	} else if (kind < 49) {
		w = (int)rg_rand_below(&rng, 2);
		cursor = (unsigned int)random_id(w);
		if (rg_rand_below(&rng, 4) == 0)
			cursor = (unsigned int)rg_rand_next(&rng);
		rg_idr_set_cursor(idr, cursor);
	} else if (kind < 72) {
		id = pick_id(w);
		s = ref_slot(id);
		p = rg_idr_remove(idr, id);
		assert_ptr_equal(p, s && s->used ? s->ptr : NULL);
		if (s && s->used) {
			s->used = false;
			nr_used--;
		}
	} else if (kind < 82) {
		id = pick_id(w);
		s = ref_slot(id);
		p = rg_rand_below(&rng, 40) ? random_ptr() : BAD_PTR;
		old = &rng;
		err = rg_idr_replace(idr, p, id, &old);
		if (IS_BAD(p)) {
			assert_int_equal(err, -EINVAL);
			assert_ptr_equal(old, &rng);
		} else if (!s || !s->used) {
			assert_int_equal(err, -ENOENT);
			assert_ptr_equal(old, &rng);
		} else {
			assert_int_equal(err, 0);
			assert_ptr_equal(old, s->ptr);
			s->ptr = p;
		}
	} else if (kind < 92) {
		id = pick_id(w);
		s = ref_slot(id);
		assert_ptr_equal(rg_idr_find(idr, id),
				 s && s->used ? s->ptr : NULL);
	} else if (kind < 96) {
		unsigned long got = random_id(w), want = got;
		void *wp = ref_next(&want, ULONG_MAX);

		p = rg_idr_get_next_ul(idr, &got);
		assert_ptr_equal(p, wp);
		assert_int_equal(got, want);
	} else if (kind < 99) {
		int got =
			(int)(random_id((int)rg_rand_below(&rng, 2)) & INT_MAX);
		unsigned long want = (unsigned long)got;
		void *wp = ref_next(&want, INT_MAX);

		p = rg_idr_get_next(idr, &got);
		assert_ptr_equal(p, wp);
		assert_int_equal((unsigned long)got, want);
	} else {
		assert_int_equal(rg_idr_is_empty(idr), nr_used == 0);
	}
	ops++;
}

static void run_round(unsigned long nops)
{
	static const unsigned int bases[] = { 0, 1, 7, 1000 };
	struct rg_idr idr;

	base = bases[rg_rand_below(&rng, 4)];
	cursor = 0;
	nr_used = 0;
	win[0].lo = base;
	win[0].n = W0;
	win[1].lo = INT_MAX - (WHI - 1);
	win[1].n = WHI;
	win[2].lo = UINT_MAX - (WHI - 1);
	win[2].n = WHI;
	for (int w = 0; w < NWIN; w++)
		memset(win[w].s, 0, win[w].n * sizeof(struct slot));
	rg_idr_init_base(&idr, base);
	for (unsigned long k = 0; k < nops; k++) {
		if (k % 3000 == 0)
			drain = !drain;
		one_op(&idr);
		if (nr_used > peak_used)
			peak_used = nr_used;
		if (RG_THOROUGH || k % 1000 == 0)
			RG_ASSERT_VALIDF(&idr, "op %lu", ops);
		if (k % 4096 == 0)
			compare_all(&idr);
	}
	compare_all(&idr);
	RG_ASSERT_VALIDF(&idr, "op %lu", ops);
	rg_idr_destroy(&idr);
	assert_true(rg_idr_is_empty(&idr));
}

static void test_random(void **state)
{
	const unsigned long total = RG_THOROUGH ? 150000 : 600000;
	const unsigned long per_round = 25000;

	(void)state;
	rg_rand_seed(&rng, rg_test_seed());
	win[0].s = calloc(W0, sizeof(struct slot));
	win[1].s = calloc(WHI, sizeof(struct slot));
	win[2].s = calloc(WHI, sizeof(struct slot));
	assert_non_null(win[0].s);
	assert_non_null(win[1].s);
	assert_non_null(win[2].s);
	while (ops < total)
		run_round(per_round);
	printf("# %lu operations, %lu allocations, %lu -ENOSPC, %lu NULL "
	       "pointers, at most %lu IDs\n",
	       ops, ok_allocs, nospc, null_stored, peak_used);
	/* The run reached the interesting states. */
	assert_true(ok_allocs > total / 10);
	assert_true(nospc > 100);
	assert_true(peak_used > W0 / 2);
	for (int w = 0; w < NWIN; w++)
		free(win[w].s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
