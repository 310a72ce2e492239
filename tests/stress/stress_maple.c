// SPDX-License-Identifier: MIT
/*
 * Randomized Maple Tree tests against reference models.
 *
 * Model A: a sorted array of [start, last, entry] over the whole 64-bit
 * index space (indices drawn near 0, near ULONG_MAX and at random), used
 * for small trees; every range of the tree is compared after each
 * operation in sanitizer builds. Model B: per-index arrays over [0, U) for
 * large trees (up to 10^5 live ranges), compared on every read and
 * periodically in full.
 *
 * Operations: store_range (entries and NULL), insert_range, erase,
 * alloc_range, alloc_rrange, load, find, and the advanced API (walk, next,
 * prev, next_range, prev_range, preallocate + store_prealloc, empty_area).
 * After every store the tree's statistics must show that no store used more
 * nodes than it requested (stats.overuse == 0).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "region/maple_tree.h"
#include "rg_test.h"

static uint64_t seed;
static unsigned long next_val = 1;

static void *new_entry(void)
{
	return rg_mt_mk_value(next_val++ & (LONG_MAX >> 1));
}

static void check_valid(struct rg_maple_tree *mt)
{
	const char *why = NULL;

	if (rg_mtree_validate(mt, &why)) {
		fprintf(stderr, "validate: %s\n", why);
		rg_mtree_dump(mt, stderr);
		fail_msg("invalid tree: %s (seed %llu)", why,
			 (unsigned long long)seed);
	}
}

static void check_overuse(struct rg_maple_tree *mt)
{
	struct rg_mtree_stats st;

	rg_mtree_get_stats(mt, &st);
	if (st.overuse)
		fail_msg(
			"a store used more nodes than it requested (seed %llu)",
			(unsigned long long)seed);
}

/* ---- model A: sorted ranges ---- */

struct mrange {
	unsigned long s, l;
	void *e;
};

struct model_a {
	struct mrange *r;
	size_t n, cap;
};

static size_t ma_lower(const struct model_a *m, unsigned long idx)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->r[mid].l < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void *ma_load(const struct model_a *m, unsigned long idx,
		     unsigned long *rs, unsigned long *rl)
{
	size_t i = ma_lower(m, idx);

	if (i < m->n && m->r[i].s <= idx) {
		*rs = m->r[i].s;
		*rl = m->r[i].l;
		return m->r[i].e;
	}
	*rs = i > 0 ? m->r[i - 1].l + 1 : 0;
	*rl = i < m->n ? m->r[i].s - 1 : ULONG_MAX;
	return NULL;
}

static void ma_store(struct model_a *m, unsigned long f, unsigned long l,
		     void *e)
{
	struct mrange add[3];
	size_t na = 0, i = ma_lower(m, f), j = i;

	while (j < m->n && m->r[j].s <= l)
		j++;
	if (i < j && m->r[i].s < f)
		add[na++] = (struct mrange){ m->r[i].s, f - 1, m->r[i].e };
	if (e)
		add[na++] = (struct mrange){ f, l, e };
	if (i < j && m->r[j - 1].l > l)
		add[na++] =
			(struct mrange){ l + 1, m->r[j - 1].l, m->r[j - 1].e };
	if (m->n - (j - i) + na > m->cap) {
		m->cap = m->cap * 2 + 16;
		m->r = realloc(m->r, m->cap * sizeof(*m->r));
		assert_non_null(m->r);
	}
	memmove(m->r + i + na, m->r + j, (m->n - j) * sizeof(*m->r));
	memcpy(m->r + i, add, na * sizeof(*add));
	m->n = m->n - (j - i) + na;
}

/* Lowest (or highest) free window of size in [min, max] in model A. */
static bool ma_gap(const struct model_a *m, unsigned long min,
		   unsigned long max, unsigned long size, bool rev,
		   unsigned long *out)
{
	/* Free runs: before r[0], between ranges, after the last. */
	size_t n = m->n;

	for (size_t k = 0; k <= n; k++) {
		size_t i = rev ? n - k : k;
		unsigned long fs = i == 0 ? 0 : m->r[i - 1].l + 1;
		unsigned long fl = i == n ? ULONG_MAX : m->r[i].s - 1;
		unsigned long s, e;

		if (i > 0 && m->r[i - 1].l == ULONG_MAX)
			continue;
		if (i < n && m->r[i].s == 0)
			continue;
		if (i > 0 && i < n && m->r[i - 1].l + 1 == m->r[i].s)
			continue;
		s = fs > min ? fs : min;
		e = fl < max ? fl : max;
		if (s > e || e - s < size - 1)
			continue;
		*out = rev ? e - (size - 1) : s;
		return true;
	}
	return false;
}

/* Compare every range of the tree (empty ones too) with model A. */
static void ma_compare(struct rg_maple_tree *mt, const struct model_a *m)
{
	RG_MA_STATE(mas, mt, 0, 0);
	unsigned long expect_start = 0;
	void *e;

	rg_mtree_lock(mt);
	e = rg_mas_find_range(&mas, ULONG_MAX);
	for (;;) {
		unsigned long rs, rl;
		void *me = ma_load(m, mas.index, &rs, &rl);

		if (mas.index != expect_start || rs != mas.index ||
		    rl != mas.last || me != e) {
			rg_mtree_unlock(mt);
			fail_msg("range [%lu, %lu] %p, model [%lu, %lu] %p "
				 "(seed %llu)",
				 mas.index, mas.last, e, rs, rl, me,
				 (unsigned long long)seed);
		}
		if (mas.last == ULONG_MAX)
			break;
		expect_start = mas.last + 1;
		e = rg_mas_next_range(&mas, ULONG_MAX);
	}
	rg_mtree_unlock(mt);
}

static unsigned long pick_index(struct rg_rand *r)
{
	switch (rg_rand_below(r, 8)) {
	case 0:
		return rg_rand_below(r, 64);
	case 1:
		return ULONG_MAX - rg_rand_below(r, 64);
	case 2:
		return rg_rand_next(r);
	default:
		return rg_rand_below(r, 4096);
	}
}

static unsigned long pick_len(struct rg_rand *r)
{
	switch (rg_rand_below(r, 10)) {
	case 0:
		return rg_rand_below(r, 2000);
	case 1:
		return rg_rand_next(r) >> rg_rand_below(r, 64);
	default:
		return rg_rand_below(r, 8);
	}
}

/* Store [f, l] through the advanced API with preallocation. */
static void prealloc_store(struct rg_maple_tree *mt, unsigned long f,
			   unsigned long l, void *e)
{
	RG_MA_STATE(mas, mt, f, l);
	struct rg_mtree_stats before, after;

	rg_mtree_get_stats(mt, &before);
	rg_mtree_lock(mt);
	assert_int_equal(rg_mas_preallocate(&mas, e, 0), 0);
	rg_mas_store_prealloc(&mas, e);
	rg_mtree_unlock(mt);
	rg_mtree_get_stats(mt, &after);
	assert_true(after.nodes_used - before.nodes_used <=
		    after.nodes_requested - before.nodes_requested);
	assert_int_equal(after.overuse, 0);
}

static void run_model_a(unsigned int flags, unsigned long ops,
			unsigned int target, bool adv)
{
	struct rg_maple_tree mt;
	struct model_a m = { NULL, 0, 0 };
	struct rg_rand r;
	bool alloc = flags & RG_MT_FLAGS_ALLOC_RANGE;

	rg_rand_seed(&r, seed ^ flags ^ (adv ? 77 : 0) ^ target);
	assert_int_equal(rg_mtree_init(&mt, flags), 0);
	for (unsigned long op = 0; op < ops; op++) {
		unsigned long f = pick_index(&r), len = pick_len(&r), l;
		unsigned int what = (unsigned int)rg_rand_below(&r, 16);
		bool grow = m.n < target;
		void *e, *x;
		unsigned long rs, rl, start;
		int ret;

		l = ULONG_MAX - f < len ? ULONG_MAX : f + len;
		if (what < 5u + 2u * grow) {
			/* store_range, entry or NULL */
			e = rg_rand_below(&r, 4) ? new_entry() : NULL;
			if (adv)
				prealloc_store(&mt, f, l, e);
			else
				assert_int_equal(
					rg_mtree_store_range(&mt, f, l, e), 0);
			ma_store(&m, f, l, e);
		} else if (what < 8) {
			/* erase a random existing range or index */
			if (m.n && rg_rand_below(&r, 4)) {
				struct mrange *q = &m.r[rg_rand_below(&r, m.n)];

				f = q->s + rg_rand_below(&r, q->l - q->s + 1);
			}
			e = ma_load(&m, f, &rs, &rl);
			x = rg_mtree_erase(&mt, f);
			assert_ptr_equal(x, e);
			if (e)
				ma_store(&m, rs, rl, NULL);
		} else if (what < 10) {
			e = new_entry();
			ret = rg_mtree_insert_range(&mt, f, l, e);
			x = ma_load(&m, f, &rs, &rl);
			if (!x && rl >= l) {
				assert_int_equal(ret, 0);
				ma_store(&m, f, l, e);
			} else {
				assert_int_equal(ret, -EEXIST);
			}
		} else if (what < 12 && alloc) {
			unsigned long min = pick_index(&r), max, size, span;
			bool rev = what == 11;
			bool ok;

			span = pick_len(&r);
			span = span > (ULONG_MAX >> 6) ? ULONG_MAX : span << 6;
			max = ULONG_MAX - min < span ? ULONG_MAX : min + span;
			size = 1 + rg_rand_below(&r, 16);
			if (max - min < size - 1) {
				max = ULONG_MAX;
			}
			e = new_entry();
			ok = ma_gap(&m, min, max, size, rev, &start);
			ret = rev ? rg_mtree_alloc_rrange(&mt, &rs, e, size,
							  min, max) :
				    rg_mtree_alloc_range(&mt, &rs, e, size, min,
							 max);
			if (max - min < size - 1) {
				assert_int_equal(ret, -EINVAL);
			} else if (ok) {
				assert_int_equal(ret, 0);
				assert_true(rs == start);
				ma_store(&m, start, start + size - 1, e);
			} else {
				assert_int_equal(ret, -EBUSY);
			}
		} else if (what < 14) {
			/* walk / next / prev through a state */
			RG_MA_STATE(mas, &mt, f, f);

			rg_mtree_lock(&mt);
			x = rg_mas_walk(&mas);
			e = ma_load(&m, f, &rs, &rl);
			assert_ptr_equal(x, e);
			assert_true(mas.index == rs && mas.last == rl);
			x = rg_mas_next(&mas, ULONG_MAX);
			if (rl != ULONG_MAX) {
				e = ma_load(&m, rl + 1, &rs, &rl);
				if (!e && rl != ULONG_MAX)
					e = ma_load(&m, rl + 1, &rs, &rl);
			} else {
				e = NULL;
			}
			assert_ptr_equal(x, e);
			if (x)
				assert_true(mas.index == rs && mas.last == rl);
			rg_mas_set(&mas, f);
			x = rg_mas_prev(&mas, 0);
			ma_load(&m, f, &rs, &rl);
			if (rs) {
				e = ma_load(&m, rs - 1, &rs, &rl);
				if (!e && rs)
					e = ma_load(&m, rs - 1, &rs, &rl);
			} else {
				e = NULL;
			}
			assert_ptr_equal(x, e);
			if (x)
				assert_true(mas.index == rs && mas.last == rl);
			rg_mtree_unlock(&mt);
		} else {
			/* find */
			unsigned long idx = f;

			x = rg_mtree_find(&mt, &idx, ULONG_MAX);
			e = ma_load(&m, f, &rs, &rl);
			if (!e && rl != ULONG_MAX)
				e = ma_load(&m, rl + 1, &rs, &rl);
			assert_ptr_equal(x, e);
			if (x)
				assert_true(idx == rl + 1);
		}
		check_overuse(&mt);
		if (RG_THOROUGH || op % 64 == 0) {
			check_valid(&mt);
			ma_compare(&mt, &m);
		}
	}
	check_valid(&mt);
	ma_compare(&mt, &m);
	{
		struct rg_mtree_stats st;

		rg_mtree_get_stats(&mt, &st);
		printf("# flags %#x target %u: %zu ranges, height %lu, "
		       "nodes %lu; stores %lu",
		       flags, target, m.n, st.height, st.nodes, st.stores);
		for (int t = 0; t < RG_MT_STORE_TYPES; t++)
			printf(" %lu", st.store_type[t]);
		printf("; requested %lu used %lu max %lu\n", st.nodes_requested,
		       st.nodes_used, st.max_requested);
	}
	rg_mtree_destroy(&mt);
	assert_true(rg_mtree_empty(&mt));
	free(m.r);
}

static unsigned long ops_a(void)
{
	return RG_THOROUGH ? 40000 : 200000;
}

static void test_model_a_plain(void **state)
{
	(void)state;
	run_model_a(0, ops_a(), 40, false);
	run_model_a(0, ops_a(), 400, false);
}

static void test_model_a_alloc(void **state)
{
	(void)state;
	run_model_a(RG_MT_FLAGS_ALLOC_RANGE, ops_a(), 40, false);
	run_model_a(RG_MT_FLAGS_ALLOC_RANGE, ops_a(), 400, false);
}

static void test_model_a_prealloc(void **state)
{
	(void)state;
	run_model_a(RG_MT_FLAGS_ALLOC_RANGE, ops_a(), 300, true);
	run_model_a(0, ops_a(), 300, true);
	run_model_a(RG_MT_FLAGS_ALLOC_RANGE | RG_MT_FLAGS_NO_VACANCY, ops_a(),
		    300, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_a_plain),
		cmocka_unit_test(test_model_a_alloc),
		cmocka_unit_test(test_model_a_prealloc),
	};

	seed = rg_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
