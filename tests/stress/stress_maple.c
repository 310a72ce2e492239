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
			{
				/* The same search through the advanced API. */
				RG_MA_STATE(g, &mt, 0, 0);

				rg_mtree_lock(&mt);
				ret = rev ? rg_mas_empty_area_rev(&g, min, max,
								  size) :
					    rg_mas_empty_area(&g, min, max,
							      size);
				rg_mtree_unlock(&mt);
				if (max - min < size - 1) {
					assert_int_equal(ret, -EINVAL);
				} else if (ok) {
					assert_int_equal(ret, 0);
					assert_true(g.index == start &&
						    g.last == start + size - 1);
				} else {
					assert_int_equal(ret, -EBUSY);
				}
			}
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
			/* prev_range: the range just before f's, empty or not */
			rg_mas_set(&mas, f);
			rg_mas_walk(&mas);
			ma_load(&m, f, &rs, &rl);
			x = rg_mas_prev_range(&mas, 0);
			if (rs) {
				e = ma_load(&m, rs - 1, &rs, &rl);
				assert_ptr_equal(x, e);
				assert_true(mas.index == rs && mas.last == rl);
			}
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
			RG_ASSERT_VALID(&mt);
			ma_compare(&mt, &m);
		}
	}
	RG_ASSERT_VALID(&mt);
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
	return RG_THOROUGH ? 30000 : 200000;
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
	/* RCU mode: node stores build new nodes instead of editing. */
	run_model_a(RG_MT_FLAGS_ALLOC_RANGE | RG_MT_FLAGS_USE_RCU, ops_a(), 300,
		    true);
}

/*
 * Spanning storm: a dense tree of small ranges hit by stores and erases of
 * random spans (one index to the whole tree), validated after every one.
 * This is what drives the rebuild through cousins and whole-level runs.
 */
static void run_spanning(unsigned int flags, unsigned long ops,
			 unsigned long dense)
{
	struct rg_maple_tree mt;
	struct model_a m = { NULL, 0, 0 };
	struct rg_rand r;
	struct rg_mtree_stats st;

	rg_rand_seed(&r, seed ^ 0x5a5a ^ flags ^ dense);
	assert_int_equal(rg_mtree_init(&mt, flags), 0);
	for (unsigned long op = 0; op < ops; op++) {
		unsigned long f, l, span;
		void *e;

		if (m.n < dense / 4) {
			/* Refill densely: ranges of 1..3 with 0..1 holes. */
			unsigned long pos = rg_rand_below(&r, 16);

			for (unsigned long k = 0; k < dense; k++) {
				unsigned long len = 1 + rg_rand_below(&r, 3);

				e = new_entry();
				assert_int_equal(
					rg_mtree_store_range(&mt, pos,
							     pos + len - 1, e),
					0);
				ma_store(&m, pos, pos + len - 1, e);
				pos += len + rg_rand_below(&r, 2);
			}
			RG_ASSERT_VALID(&mt);
		}
		span = (dense * 4) >> rg_rand_below(&r, 14);
		f = rg_rand_below(&r, dense * 4);
		l = f + rg_rand_below(&r, span + 1);
		e = rg_rand_below(&r, 3) ? NULL : new_entry();
		if (op & 1)
			prealloc_store(&mt, f, l, e);
		else
			assert_int_equal(rg_mtree_store_range(&mt, f, l, e), 0);
		ma_store(&m, f, l, e);
		check_overuse(&mt);
		RG_ASSERT_VALID(&mt);
		if (RG_THOROUGH || op % 16 == 0)
			ma_compare(&mt, &m);
	}
	rg_mtree_get_stats(&mt, &st);
	printf("# spanning flags %#x dense %lu: spanning stores %lu, "
	       "rebalances %lu, height %lu\n",
	       flags, dense, st.store_type[RG_MT_STORE_SPANNING],
	       st.store_type[RG_MT_STORE_REBALANCE], st.height);
	rg_mtree_destroy(&mt);
	free(m.r);
}

static void test_spanning(void **state)
{
	(void)state;
	run_spanning(0, RG_THOROUGH ? 1500 : 10000, 2000);
	run_spanning(RG_MT_FLAGS_ALLOC_RANGE, RG_THOROUGH ? 1500 : 6000, 1500);
	run_spanning(RG_MT_FLAGS_ALLOC_RANGE | RG_MT_FLAGS_USE_RCU,
		     RG_THOROUGH ? 600 : 3000, 1500);
	if (!RG_THOROUGH)
		run_spanning(RG_MT_FLAGS_ALLOC_RANGE, 1500, 20000);
}

/* ---- model B: per-index arrays over [0, U) for large trees ---- */

struct model_b {
	unsigned long u;
	unsigned long *occ; /* bit per index: inside a stored range */
	uint32_t *rs; /* start of the range holding the index */
	uint32_t *rl; /* at a range start: its last index */
	void **ent; /* at a range start: its entry */
	unsigned long nranges;
};

static bool mb_occ(const struct model_b *m, unsigned long i)
{
	return (m->occ[i / 64] >> (i % 64)) & 1;
}

static void mb_set(struct model_b *m, unsigned long i, bool on)
{
	if (on)
		m->occ[i / 64] |= 1UL << (i % 64);
	else
		m->occ[i / 64] &= ~(1UL << (i % 64));
}

/* Next occupied index >= i, or u. */
static unsigned long mb_next_occ(const struct model_b *m, unsigned long i)
{
	unsigned long w;

	if (i >= m->u)
		return m->u;
	w = m->occ[i / 64] & (~0UL << (i % 64));
	while (!w) {
		i = (i / 64 + 1) * 64;
		if (i >= m->u)
			return m->u;
		w = m->occ[i / 64];
	}
	i = (i / 64) * 64 + (unsigned long)__builtin_ctzl(w);
	return i < m->u ? i : m->u;
}

/* Previous occupied index <= i, or ULONG_MAX if none. */
static unsigned long mb_prev_occ(const struct model_b *m, unsigned long i)
{
	unsigned long w;

	if (i >= m->u)
		i = m->u - 1;
	w = m->occ[i / 64] & (~0UL >> (63 - i % 64));
	while (!w) {
		if (i < 64)
			return ULONG_MAX;
		i = (i / 64) * 64 - 1;
		w = m->occ[i / 64];
	}
	return (i / 64) * 64 + 63 - (unsigned long)__builtin_clzl(w);
}

static void *mb_load(const struct model_b *m, unsigned long i, unsigned long *s,
		     unsigned long *l)
{
	unsigned long p, n;

	if (i < m->u && mb_occ(m, i)) {
		*s = m->rs[i];
		*l = m->rl[*s];
		return m->ent[*s];
	}
	p = mb_prev_occ(m, i < m->u ? i : m->u - 1);
	n = i < m->u ? mb_next_occ(m, i) : m->u;
	*s = p == ULONG_MAX ? 0 : p + 1;
	*l = n >= m->u ? ULONG_MAX : n - 1;
	return NULL;
}

static void mb_store(struct model_b *m, unsigned long f, unsigned long l,
		     void *e)
{
	unsigned long i;

	/* Count the ranges that intersect [f, l]. */
	for (i = f; i <= l;) {
		if (mb_occ(m, i)) {
			m->nranges--;
			i = m->rl[m->rs[i]] + 1;
		} else {
			i = mb_next_occ(m, i);
		}
	}
	if (mb_occ(m, l) && m->rl[m->rs[l]] > l) {
		unsigned long s0 = m->rs[l], l0 = m->rl[s0];

		for (i = l + 1; i <= l0; i++)
			m->rs[i] = (uint32_t)(l + 1);
		m->rl[l + 1] = (uint32_t)l0;
		m->ent[l + 1] = m->ent[s0];
		m->nranges++;
	}
	if (mb_occ(m, f) && m->rs[f] < f) {
		m->rl[m->rs[f]] = (uint32_t)(f - 1);
		m->nranges++;
	}
	for (i = f; i <= l; i++) {
		mb_set(m, i, e != NULL);
		m->rs[i] = (uint32_t)f;
	}
	m->rl[f] = (uint32_t)l;
	m->ent[f] = e;
	if (e)
		m->nranges++;
}

/* Lowest (highest) free window of size in [min, max] (max < u). */
static bool mb_gap(const struct model_b *m, unsigned long min,
		   unsigned long max, unsigned long size, bool rev,
		   unsigned long *out)
{
	if (!rev) {
		unsigned long i = min;

		while (i <= max) {
			unsigned long n = mb_next_occ(m, i);
			unsigned long e = n == 0 ? 0 : n - 1;

			if (n > i) {
				if (e > max)
					e = max;
				if (e - i >= size - 1) {
					*out = i;
					return true;
				}
			}
			if (n >= m->u || n >= max)
				return false;
			i = m->rl[m->rs[n]] + 1;
		}
		return false;
	}
	for (unsigned long i = max + 1; i > min;) {
		unsigned long p = mb_prev_occ(m, i - 1);
		unsigned long s = p == ULONG_MAX ? 0 : p + 1;

		if (p == ULONG_MAX || p < i - 1) {
			if (s < min)
				s = min;
			if (i - 1 - s >= size - 1) {
				*out = i - 1 - (size - 1);
				return true;
			}
		}
		if (p == ULONG_MAX || p <= min)
			return false;
		i = m->rs[p];
	}
	return false;
}

static void mb_compare(struct rg_maple_tree *mt, const struct model_b *m)
{
	RG_MA_STATE(mas, mt, 0, 0);
	unsigned long count = 0;
	void *e;

	rg_mtree_lock(mt);
	e = rg_mas_find_range(&mas, ULONG_MAX);
	for (;;) {
		unsigned long rs, rl;
		void *me = mb_load(m, mas.index, &rs, &rl);

		if (rs != mas.index || rl != mas.last || me != e) {
			rg_mtree_unlock(mt);
			fail_msg("range [%lu, %lu] %p, model [%lu, %lu] %p "
				 "(seed %llu)",
				 mas.index, mas.last, e, rs, rl, me,
				 (unsigned long long)seed);
		}
		count += e != NULL;
		if (mas.last == ULONG_MAX)
			break;
		e = rg_mas_next_range(&mas, ULONG_MAX);
	}
	rg_mtree_unlock(mt);
	assert_int_equal(count, m->nranges);
}

static void run_model_b(unsigned int flags, unsigned long target,
			unsigned long ops, unsigned long check_every, bool adv)
{
	struct rg_maple_tree mt;
	struct model_b m;
	struct rg_rand r;
	bool alloc = flags & RG_MT_FLAGS_ALLOC_RANGE;
	unsigned long u = target * 12 + 1024;
	struct rg_mtree_stats st;

	rg_rand_seed(&r, seed ^ target ^ flags ^ (adv ? 99 : 0));
	m.u = u;
	m.occ = calloc(u / 64 + 1, sizeof(unsigned long));
	m.rs = calloc(u + 1, sizeof(uint32_t));
	m.rl = calloc(u + 1, sizeof(uint32_t));
	m.ent = calloc(u + 1, sizeof(void *));
	m.nranges = 0;
	assert_true(m.occ && m.rs && m.rl && m.ent);
	assert_int_equal(rg_mtree_init(&mt, flags), 0);
	/* Fill: ranges in index order with random lengths and holes. */
	for (unsigned long pos = 0, k = 0; k < target; k++) {
		unsigned long len = 1 + rg_rand_below(&r, 8);
		void *e = new_entry();

		pos += rg_rand_below(&r, 3);
		if (pos + len >= u)
			break;
		if (adv)
			prealloc_store(&mt, pos, pos + len - 1, e);
		else
			assert_int_equal(rg_mtree_store_range(&mt, pos,
							      pos + len - 1, e),
					 0);
		mb_store(&m, pos, pos + len - 1, e);
		pos += len;
		if (k % check_every == check_every - 1)
			RG_ASSERT_VALID(&mt);
	}
	RG_ASSERT_VALID(&mt);
	mb_compare(&mt, &m);
	for (unsigned long op = 0; op < ops; op++) {
		unsigned int what = (unsigned int)rg_rand_below(&r, 100);
		unsigned long f = rg_rand_below(&r, u - 64);
		unsigned long l = f + rg_rand_below(&r, 8);
		bool grow = m.nranges < target;
		unsigned long rs, rl, x0;
		void *e, *x;
		int ret;

		if (what < (grow ? 40u : 20u)) {
			e = rg_rand_below(&r, 5) ? new_entry() : NULL;
			if (adv)
				prealloc_store(&mt, f, l, e);
			else
				assert_int_equal(
					rg_mtree_store_range(&mt, f, l, e), 0);
			mb_store(&m, f, l, e);
		} else if (what < 45) {
			e = new_entry();
			ret = rg_mtree_insert_range(&mt, f, l, e);
			x = mb_load(&m, f, &rs, &rl);
			if (!x && rl >= l) {
				assert_int_equal(ret, 0);
				mb_store(&m, f, l, e);
			} else {
				assert_int_equal(ret, -EEXIST);
			}
		} else if (what < (grow ? 55u : 70u)) {
			unsigned long n = mb_next_occ(&m, f);

			if (n < u)
				f = n;
			e = mb_load(&m, f, &rs, &rl);
			if (adv) {
				RG_MA_STATE(mas, &mt, f, f);

				rg_mtree_lock(&mt);
				x = rg_mas_erase(&mas);
				rg_mtree_unlock(&mt);
			} else {
				x = rg_mtree_erase(&mt, f);
			}
			assert_ptr_equal(x, e);
			if (e)
				mb_store(&m, rs, rl, NULL);
		} else if (what < 75 && alloc) {
			unsigned long min = f, max,
				      size = 1 + rg_rand_below(&r, 8);
			bool rev = rg_rand_below(&r, 2);

			max = min + 64 + rg_rand_below(&r, 4096);
			if (max >= u)
				max = u - 1;
			e = new_entry();
			ret = rev ? rg_mtree_alloc_rrange(&mt, &x0, e, size,
							  min, max) :
				    rg_mtree_alloc_range(&mt, &x0, e, size, min,
							 max);
			if (mb_gap(&m, min, max, size, rev, &rs)) {
				assert_int_equal(ret, 0);
				assert_true(x0 == rs);
				mb_store(&m, rs, rs + size - 1, e);
			} else {
				assert_int_equal(ret, -EBUSY);
			}
		} else if (what < 85) {
			x = rg_mtree_load(&mt, f);
			assert_ptr_equal(x, mb_load(&m, f, &rs, &rl));
		} else if (what < 92) {
			unsigned long idx = f;

			x = rg_mtree_find(&mt, &idx, ULONG_MAX);
			e = mb_load(&m, f, &rs, &rl);
			if (!e && rl != ULONG_MAX)
				e = mb_load(&m, rl + 1, &rs, &rl);
			assert_ptr_equal(x, e);
			if (x)
				assert_true(idx == rl + 1);
		} else if (what < 99) {
			RG_MA_STATE(mas, &mt, f, f);

			rg_mtree_lock(&mt);
			if (what & 1) {
				x = rg_mas_next(&mas, ULONG_MAX);
				mb_load(&m, f, &rs, &rl);
				e = NULL;
				if (rl != ULONG_MAX) {
					e = mb_load(&m, rl + 1, &rs, &rl);
					if (!e && rl != ULONG_MAX)
						e = mb_load(&m, rl + 1, &rs,
							    &rl);
				}
			} else {
				x = rg_mas_prev(&mas, 0);
				mb_load(&m, f, &rs, &rl);
				e = NULL;
				if (rs) {
					e = mb_load(&m, rs - 1, &rs, &rl);
					if (!e && rs)
						e = mb_load(&m, rs - 1, &rs,
							    &rl);
				}
			}
			rg_mtree_unlock(&mt);
			assert_ptr_equal(x, e);
			if (x)
				assert_true(mas.index == rs && mas.last == rl);
		} else if (rg_rand_below(&r, 200) == 0) {
			/* A spanning store over a large part of the tree. */
			l = f + rg_rand_below(&r, u / 32);
			if (l >= u)
				l = u - 1;
			e = rg_rand_below(&r, 3) ? NULL : new_entry();
			if (adv)
				prealloc_store(&mt, f, l, e);
			else
				assert_int_equal(
					rg_mtree_store_range(&mt, f, l, e), 0);
			mb_store(&m, f, l, e);
		}
		check_overuse(&mt);
		if (op % check_every == check_every - 1) {
			RG_ASSERT_VALID(&mt);
			mb_compare(&mt, &m);
		}
	}
	RG_ASSERT_VALID(&mt);
	mb_compare(&mt, &m);
	rg_mtree_get_stats(&mt, &st);
	printf("# model B flags %#x target %lu%s: %lu ranges, height %lu, "
	       "nodes %lu, stores %lu, requested %lu, used %lu\n",
	       flags, target, adv ? " (prealloc)" : "", m.nranges, st.height,
	       st.nodes, st.stores, st.nodes_requested, st.nodes_used);
	rg_mtree_destroy(&mt);
	free(m.occ);
	free(m.rs);
	free(m.rl);
	free(m.ent);
}

static void test_model_b(void **state)
{
	(void)state;
	if (RG_THOROUGH) {
		run_model_b(0, 300, 60000, 1, false);
		run_model_b(RG_MT_FLAGS_ALLOC_RANGE, 300, 60000, 1, false);
		run_model_b(RG_MT_FLAGS_ALLOC_RANGE, 10000, 100000, 5000,
			    false);
		run_model_b(0, 10000, 60000, 5000, false);
	} else {
		run_model_b(0, 1000, 200000, 1000, false);
		run_model_b(RG_MT_FLAGS_ALLOC_RANGE, 1000, 200000, 1000, false);
		run_model_b(RG_MT_FLAGS_ALLOC_RANGE, 10000, 300000, 20000,
			    false);
		run_model_b(0, 100000, 400000, 100000, false);
		run_model_b(RG_MT_FLAGS_ALLOC_RANGE, 100000, 400000, 100000,
			    false);
	}
}

static void test_model_b_prealloc(void **state)
{
	(void)state;
	if (RG_THOROUGH) {
		run_model_b(RG_MT_FLAGS_ALLOC_RANGE, 300, 40000, 1, true);
		run_model_b(0, 5000, 60000, 5000, true);
	} else {
		run_model_b(RG_MT_FLAGS_ALLOC_RANGE, 1000, 200000, 1000, true);
		run_model_b(RG_MT_FLAGS_ALLOC_RANGE, 100000, 400000, 100000,
			    true);
		run_model_b(RG_MT_FLAGS_ALLOC_RANGE | RG_MT_FLAGS_NO_VACANCY,
			    10000, 200000, 20000, true);
		run_model_b(RG_MT_FLAGS_USE_RCU, 10000, 200000, 20000, true);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_a_plain),
		cmocka_unit_test(test_model_a_alloc),
		cmocka_unit_test(test_model_a_prealloc),
		cmocka_unit_test(test_spanning),
		cmocka_unit_test(test_model_b),
		cmocka_unit_test(test_model_b_prealloc),
	};

	seed = rg_test_seed();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
