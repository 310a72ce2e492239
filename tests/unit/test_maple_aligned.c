// SPDX-License-Identifier: MIT
/*
 * The Maple Tree's aligned gap search: rg_mas_empty_area_aligned(),
 * rg_mas_empty_area_rev_aligned(), rg_mtree_alloc_range_aligned() and
 * rg_mtree_alloc_rrange_aligned().
 *
 * Unit tests of the edges (bad alignments and windows, an empty tree, a
 * lone root entry, the top of the index space, a run long enough for the
 * size but not for an aligned start), a randomized lockstep run against a
 * brute-force model (an allocation tree and an ordinary tree holding the
 * same ranges, validated after every mutation), and fault injection on
 * every allocation of both allocating calls, outside and in RCU mode.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "region/maple_tree.h"
#include "rg_test.h"

#define V(x) rg_mt_mk_value(x)

/* ---- unit tests ---- */

static int ea(struct rg_maple_tree *mt, unsigned long min, unsigned long max,
	      unsigned long size, unsigned long align, bool rev,
	      unsigned long *start)
{
	RG_MA_STATE(mas, mt, 7, 9);
	int ret;

	rg_mtree_lock(mt);
	ret = rev ? rg_mas_empty_area_rev_aligned(&mas, min, max, size, align) :
		    rg_mas_empty_area_aligned(&mas, min, max, size, align);
	rg_mtree_unlock(mt);
	if (ret) {
		/* the state is untouched on failure */
		assert_int_equal(mas.index, 7);
		assert_int_equal(mas.last, 9);
		return ret;
	}
	assert_int_equal(mas.last - mas.index, size - 1);
	*start = mas.index;
	return 0;
}

static void test_bad_input(void **state)
{
	struct rg_maple_tree at, pt;
	unsigned long s = 12345;
	const unsigned long bad[] = { 0, 3, 6, 12, 1UL << 63 | 1, ULONG_MAX };

	(void)state;
	assert_int_equal(rg_mtree_init(&at, RG_MT_FLAGS_ALLOC_RANGE), 0);
	assert_int_equal(rg_mtree_init(&pt, 0), 0);
	assert_int_equal(rg_mtree_store_range(&at, 10, 19, V(1)), 0);
	for (unsigned int i = 0; i < RGT_ARRAY_SIZE(bad); i++) {
		for (int rev = 0; rev < 2; rev++) {
			assert_int_equal(ea(&at, 0, 100, 4, bad[i], rev, &s),
					 -EINVAL);
			assert_int_equal(ea(&pt, 0, 100, 4, bad[i], rev, &s),
					 -EINVAL);
		}
		assert_int_equal(rg_mtree_alloc_range_aligned(&at, &s, V(2), 4,
							      0, 100, bad[i]),
				 -EINVAL);
		assert_int_equal(rg_mtree_alloc_rrange_aligned(&at, &s, V(2), 4,
							       0, 100, bad[i]),
				 -EINVAL);
	}
	/* size 0, min > max, a window smaller than the size */
	for (int rev = 0; rev < 2; rev++) {
		assert_int_equal(ea(&at, 0, 100, 0, 4, rev, &s), -EINVAL);
		assert_int_equal(ea(&at, 101, 100, 1, 4, rev, &s), -EINVAL);
		assert_int_equal(ea(&at, 0, 2, 4, 1, rev, &s), -EINVAL);
	}
	assert_int_equal(
		rg_mtree_alloc_range_aligned(&at, &s, V(2), 0, 0, 100, 4),
		-EINVAL);
	assert_int_equal(
		rg_mtree_alloc_range_aligned(&at, &s, V(2), 8, 50, 40, 4),
		-EINVAL);
	assert_int_equal(
		rg_mtree_alloc_rrange_aligned(&at, &s, V(2), 8, 0, 6, 1),
		-EINVAL);
	/* not an allocation tree, no entry, a reserved entry, NULLs */
	assert_int_equal(
		rg_mtree_alloc_range_aligned(&pt, &s, V(2), 4, 0, 100, 4),
		-EINVAL);
	assert_int_equal(
		rg_mtree_alloc_range_aligned(&at, &s, NULL, 4, 0, 100, 4),
		-EINVAL);
	assert_int_equal(rg_mtree_alloc_rrange_aligned(&at, &s, (void *)2UL, 4,
						       0, 100, 4),
			 -EINVAL);
	assert_int_equal(
		rg_mtree_alloc_range_aligned(&at, NULL, V(2), 4, 0, 100, 4),
		-EINVAL);
	assert_int_equal(
		rg_mtree_alloc_rrange_aligned(NULL, &s, V(2), 4, 0, 100, 4),
		-EINVAL);
	assert_int_equal(rg_mas_empty_area_aligned(NULL, 0, 100, 4, 4),
			 -EINVAL);
	assert_int_equal(rg_mas_empty_area_rev_aligned(NULL, 0, 100, 4, 4),
			 -EINVAL);
	assert_int_equal(s, 12345);
	/* nothing changed */
	assert_ptr_equal(rg_mtree_load(&at, 10), V(1));
	assert_null(rg_mtree_load(&at, 9));
	assert_null(rg_mtree_load(&at, 20));
	assert_true(rg_mtree_empty(&pt));
	RG_ASSERT_VALID(&at);
	RG_ASSERT_VALID(&pt);
	rg_mtree_destroy(&at);
	rg_mtree_destroy(&pt);
}

static void test_empty_and_root_entry(void **state)
{
	struct rg_maple_tree mt;
	unsigned long s;

	(void)state;
	for (unsigned int flags = 0; flags <= RG_MT_FLAGS_ALLOC_RANGE;
	     flags += RG_MT_FLAGS_ALLOC_RANGE) {
		assert_int_equal(rg_mtree_init(&mt, flags), 0);
		/* empty: everything is free */
		assert_int_equal(ea(&mt, 5, 100, 4, 8, false, &s), 0);
		assert_int_equal(s, 8);
		assert_int_equal(ea(&mt, 5, 100, 4, 8, true, &s), 0);
		assert_int_equal(s, 96);
		assert_int_equal(ea(&mt, 0, ULONG_MAX, 1, 1UL << 63, true, &s),
				 0);
		assert_int_equal(s, 1UL << 63);
		assert_int_equal(ea(&mt, 1, ULONG_MAX, 2, 1UL << 63, false, &s),
				 0);
		assert_int_equal(s, 1UL << 63);
		/* no multiple of 4 in [ULONG_MAX - 2, ULONG_MAX]: no rounding
		 * past the top */
		assert_int_equal(
			ea(&mt, ULONG_MAX - 2, ULONG_MAX, 1, 4, false, &s),
			-EBUSY);
		assert_int_equal(
			ea(&mt, ULONG_MAX - 2, ULONG_MAX, 1, 4, true, &s),
			-EBUSY);
		assert_int_equal(ea(&mt, 9, 15, 2, 8, false, &s), -EBUSY);
		assert_int_equal(ea(&mt, 9, 17, 2, 8, true, &s), 0);
		assert_int_equal(s, 16);
		/* a lone entry at index 0 sits in the root pointer */
		assert_int_equal(rg_mtree_store(&mt, 0, V(1)), 0);
		assert_int_equal(ea(&mt, 0, 100, 2, 4, false, &s), 0);
		assert_int_equal(s, 4);
		assert_int_equal(ea(&mt, 0, 1, 1, 2, false, &s), -EBUSY);
		assert_int_equal(ea(&mt, 0, ULONG_MAX, 2, 4, true, &s), 0);
		assert_int_equal(s, ULONG_MAX - 3);
		assert_int_equal(ea(&mt, 0, 3, 1, 4, true, &s), -EBUSY);
		if (flags) {
			assert_int_equal(rg_mtree_alloc_range_aligned(
						 &mt, &s, V(2), 3, 0, 100, 16),
					 0);
			assert_int_equal(s, 16);
			assert_int_equal(rg_mtree_alloc_rrange_aligned(
						 &mt, &s, V(3), 3, 0, 100, 16),
					 0);
			assert_int_equal(s, 96);
			assert_ptr_equal(rg_mtree_load(&mt, 18), V(2));
			assert_null(rg_mtree_load(&mt, 19));
			assert_ptr_equal(rg_mtree_load(&mt, 98), V(3));
		}
		RG_ASSERT_VALID(&mt);
		rg_mtree_destroy(&mt);
	}
}

/*
 * Free runs [1, 4], [8, 11] and [13, 20] (entries elsewhere in [0, 40]): a
 * run that holds the size but no aligned start is passed over.
 */
static void test_passes_short_runs(void **state)
{
	struct rg_maple_tree mt;
	unsigned long s;

	(void)state;
	for (unsigned int flags = 0; flags <= RG_MT_FLAGS_ALLOC_RANGE;
	     flags += RG_MT_FLAGS_ALLOC_RANGE) {
		assert_int_equal(rg_mtree_init(&mt, flags), 0);
		assert_int_equal(rg_mtree_store(&mt, 0, V(1)), 0);
		assert_int_equal(rg_mtree_store_range(&mt, 5, 7, V(2)), 0);
		assert_int_equal(rg_mtree_store(&mt, 12, V(3)), 0);
		assert_int_equal(rg_mtree_store_range(&mt, 21, 40, V(4)), 0);
		assert_int_equal(ea(&mt, 0, 40, 4, 1, false, &s), 0);
		assert_int_equal(s, 1);
		assert_int_equal(ea(&mt, 0, 40, 4, 4, false, &s), 0);
		assert_int_equal(s, 8);
		assert_int_equal(ea(&mt, 0, 40, 4, 8, false, &s), 0);
		assert_int_equal(s, 8);
		assert_int_equal(ea(&mt, 0, 40, 4, 16, false, &s), 0);
		assert_int_equal(s, 16);
		assert_int_equal(ea(&mt, 0, 40, 5, 16, false, &s), 0);
		assert_int_equal(s, 16);
		assert_int_equal(ea(&mt, 0, 40, 6, 16, false, &s), -EBUSY);
		assert_int_equal(ea(&mt, 0, 40, 6, 16, true, &s), -EBUSY);
		assert_int_equal(ea(&mt, 0, 40, 4, 1, true, &s), 0);
		assert_int_equal(s, 17);
		assert_int_equal(ea(&mt, 0, 40, 4, 4, true, &s), 0);
		assert_int_equal(s, 16);
		assert_int_equal(ea(&mt, 0, 19, 4, 4, true, &s), 0);
		assert_int_equal(s, 16);
		assert_int_equal(ea(&mt, 0, 18, 4, 4, true, &s), 0);
		assert_int_equal(s, 8);
		assert_int_equal(ea(&mt, 0, 18, 4, 2, true, &s), 0);
		assert_int_equal(s, 14);
		assert_int_equal(ea(&mt, 0, 12, 4, 4, true, &s), 0);
		assert_int_equal(s, 8);
		assert_int_equal(ea(&mt, 0, 10, 4, 4, true, &s), -EBUSY);
		assert_int_equal(ea(&mt, 0, 10, 3, 2, true, &s), 0);
		assert_int_equal(s, 8);
		assert_int_equal(ea(&mt, 0, 9, 3, 2, true, &s), 0);
		assert_int_equal(s, 2);
		RG_ASSERT_VALID(&mt);
		rg_mtree_destroy(&mt);
	}
}

/* ---- lockstep against a brute-force model ---- */

#define M 1536 /* model indices; the trees hold nothing past them */
#define MAXA 512

struct model {
	unsigned long own[M]; /* allocation id, 0 free */
	unsigned long st[MAXA], sz[MAXA], id[MAXA];
	unsigned long n, next_id;
};

static bool m_free(const struct model *m, unsigned long s, unsigned long n)
{
	for (unsigned long i = s; i < s + n; i++)
		if (m->own[i])
			return false;
	return true;
}

/* Brute force: the lowest (highest) aligned free window in [lo, hi]. */
static int m_find(const struct model *m, unsigned long lo, unsigned long hi,
		  unsigned long n, unsigned long align, bool rev,
		  unsigned long *start)
{
	if (hi - lo + 1 < n)
		return -EINVAL;
	if (!rev) {
		for (unsigned long s = (lo + align - 1) / align * align;
		     s + n - 1 <= hi; s += align)
			if (m_free(m, s, n)) {
				*start = s;
				return 0;
			}
		return -EBUSY;
	}
	for (unsigned long s = (hi - n + 1) / align * align; s >= lo;
	     s -= align) {
		if (m_free(m, s, n)) {
			*start = s;
			return 0;
		}
		if (s < align)
			break;
	}
	return -EBUSY;
}

static void m_add(struct model *m, unsigned long s, unsigned long n)
{
	assert_true(m->n < MAXA);
	m->next_id++;
	for (unsigned long i = s; i < s + n; i++)
		m->own[i] = m->next_id;
	m->st[m->n] = s;
	m->sz[m->n] = n;
	m->id[m->n] = m->next_id;
	m->n++;
}

static void m_del(struct model *m, unsigned long k)
{
	for (unsigned long i = m->st[k]; i < m->st[k] + m->sz[k]; i++)
		m->own[i] = 0;
	m->n--;
	m->st[k] = m->st[m->n];
	m->sz[k] = m->sz[m->n];
	m->id[k] = m->id[m->n];
}

static void same_content(struct rg_maple_tree *mt, const struct model *m)
{
	for (unsigned long i = 0; i < M + 8; i++) {
		void *want = i < M && m->own[i] ? V(m->own[i]) : NULL;

		assert_ptr_equal(rg_mtree_load(mt, i), want);
	}
}

static int alloc_call(struct rg_maple_tree *mt, unsigned long *s, void *e,
		      unsigned long n, unsigned long lo, unsigned long hi,
		      unsigned long align, bool rev, bool plain)
{
	if (plain) /* align 1: the kernel-compatible call must agree */
		return rev ? rg_mtree_alloc_rrange(mt, s, e, n, lo, hi) :
			     rg_mtree_alloc_range(mt, s, e, n, lo, hi);
	return rev ? rg_mtree_alloc_rrange_aligned(mt, s, e, n, lo, hi, align) :
		     rg_mtree_alloc_range_aligned(mt, s, e, n, lo, hi, align);
}

static void random_request(struct rg_rand *r, unsigned long *lo,
			   unsigned long *hi, unsigned long *n,
			   unsigned long *align)
{
	*n = 1 + rg_rand_below(r, rg_rand_below(r, 4) ? 12 : 48);
	*align = 1UL << rg_rand_below(r, 8);
	*lo = rg_rand_below(r, M);
	*hi = rg_rand_range(r, *lo, M - 1);
	if (rg_rand_below(r, 4) == 0) {
		*lo = 0;
		*hi = M - 1;
	}
}

static void test_lockstep(void **state)
{
	static struct model m;
	struct rg_maple_tree at, pt;
	struct rg_rand r;
	unsigned long ops = RG_THOROUGH ? 12000 : 6000;

	(void)state;
	memset(&m, 0, sizeof(m));
	rg_rand_seed(&r, rg_test_seed());
	assert_int_equal(rg_mtree_init(&at, RG_MT_FLAGS_ALLOC_RANGE), 0);
	assert_int_equal(rg_mtree_init(&pt, 0), 0);
	for (unsigned long op = 0; op < ops; op++) {
		unsigned long lo, hi, n, align, s = 0, ms = 0, k;
		unsigned int what = (unsigned int)rg_rand_below(&r, 100);
		bool rev = rg_rand_below(&r, 3) == 0;
		int ret, want;

		random_request(&r, &lo, &hi, &n, &align);
		want = m_find(&m, lo, hi, n, align, rev, &ms);
		if (what < 55 && m.n < MAXA) {
			bool plain = align == 1 && rg_rand_below(&r, 2);

			ret = alloc_call(&at, &s, V(m.next_id + 1), n, lo, hi,
					 align, rev, plain);
			assert_int_equal(ret, want);
			if (!ret) {
				assert_int_equal(s, ms);
				assert_int_equal(
					rg_mtree_store_range(&pt, s, s + n - 1,
							     V(m.next_id + 1)),
					0);
				m_add(&m, s, n);
			}
		} else if (what < 75) {
			/* both tree kinds answer the query alike */
			ret = ea(&at, lo, hi, n, align, rev, &s);
			assert_int_equal(ret, want);
			if (!ret)
				assert_int_equal(s, ms);
			ret = ea(&pt, lo, hi, n, align, rev, &s);
			assert_int_equal(ret, want);
			if (!ret)
				assert_int_equal(s, ms);
			continue;
		} else if (m.n) {
			k = rg_rand_below(&r, m.n);
			assert_ptr_equal(
				rg_mtree_erase(
					&at,
					m.st[k] + rg_rand_below(&r, m.sz[k])),
				V(m.id[k]));
			assert_int_equal(rg_mtree_store_range(
						 &pt, m.st[k],
						 m.st[k] + m.sz[k] - 1, NULL),
					 0);
			m_del(&m, k);
		}
		RG_ASSERT_VALID(&at);
		RG_ASSERT_VALID(&pt);
		if (op % 512 == 0) {
			same_content(&at, &m);
			same_content(&pt, &m);
		}
	}
	same_content(&at, &m);
	same_content(&pt, &m);
	rg_mtree_destroy(&at);
	rg_mtree_destroy(&pt);
}

/* ---- fault injection ---- */

/* After a failed call: the tree is valid, with its ranges and nodes. */
static void fault_same(struct rg_maple_tree *at, const struct model *m,
		       size_t bytes)
{
	RG_ASSERT_VALID(at);
	assert_int_equal(rg_mtree_bytes(at), bytes);
	same_content(at, m);
}

static void fault_run(bool rcu)
{
	static struct model m;
	struct rg_maple_tree at;
	struct rg_rand r;
	unsigned long faults = 0;

	memset(&m, 0, sizeof(m));
	rg_rand_seed(&r, rg_test_seed() + rcu);
	assert_int_equal(rg_mtree_init(&at, RG_MT_FLAGS_ALLOC_RANGE), 0);
	if (rcu)
		rg_mtree_set_rcu(&at);
	/* a tree of a few levels, with holes */
	for (unsigned long i = 0; i < 300; i++) {
		unsigned long s;

		assert_int_equal(rg_mtree_alloc_range(&at, &s, V(m.next_id + 1),
						      1 + i % 3, 0, M - 1),
				 0);
		m_add(&m, s, 1 + i % 3);
	}
	for (unsigned long i = 0; i < 120; i++) {
		unsigned long k = rg_rand_below(&r, m.n);

		assert_ptr_equal(rg_mtree_erase(&at, m.st[k]), V(m.id[k]));
		m_del(&m, k);
	}
	for (unsigned long req = 0; req < 96 && m.n < MAXA; req++) {
		unsigned long lo, hi, n, align, s = 0, ms = 0, nth;
		bool rev = req & 1;
		size_t bytes = rg_mtree_bytes(&at);
		int want, ret;

		random_request(&r, &lo, &hi, &n, &align);
		want = m_find(&m, lo, hi, n, align, rev, &ms);
		/* each failure: -ENOMEM, valid, same ranges, same nodes */
		RG_FAULT_LOOP(nth, ret,
			      alloc_call(&at, &s, V(m.next_id + 1), n, lo, hi,
					 align, rev, false),
			      fault_same(&at, &m, bytes));
		faults += nth - 1;
		assert_int_equal(ret, want);
		if (!ret) {
			assert_int_equal(s, ms);
			m_add(&m, s, n);
		}
		RG_ASSERT_VALID(&at);
	}
	same_content(&at, &m);
	/* some requests had to allocate, and each such failure was clean */
	assert_true(faults > 0);
	rg_mtree_destroy(&at);
	if (rcu)
		rg_mtree_rcu_barrier();
}

static void test_fault(void **state)
{
	(void)state;
	fault_run(false);
}

static void test_fault_rcu(void **state)
{
	(void)state;
	fault_run(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_empty_and_root_entry),
		cmocka_unit_test(test_passes_short_runs),
		cmocka_unit_test(test_lockstep),
		cmocka_unit_test(test_fault),
		cmocka_unit_test(test_fault_rcu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
