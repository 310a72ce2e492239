// SPDX-License-Identifier: MIT
/*
 * Randomized xarray test against a reference model (a sorted array of
 * index, entry, marks, reserved): 10^6 mixed operations on an ordinary
 * array and 10^6 on an allocating one (half of each in the sanitizer
 * build): store, erase, load, insert, cmpxchg, reserve/release,
 * set/clear/get mark, find/find_after with every filter, alloc, destroy,
 * with indices drawn from dense, medium, sparse and top-of-range regions so
 * the tree grows and shrinks through every height. Every result is
 * compared with the model; the sanitizer build validates after every
 * operation, the optimised build every few thousand; the whole contents
 * are compared periodically. Prints its seed (RG_SEED repeats).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "region/xarray.h"
#include "rg_test.h"

#define P(n) ((void *)(uintptr_t)(((uintptr_t)(n) << 3) | 0x1000))

struct ref_ent {
	unsigned long index;
	void *entry; /* NULL for a reservation */
	unsigned int marks;
};

struct ref {
	struct ref_ent *v;
	size_t n, cap;
};

static struct rg_rand rng;

/* First position with index >= @index. */
static size_t ref_lb(const struct ref *r, unsigned long index)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->v[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct ref_ent *ref_get(struct ref *r, unsigned long index)
{
	size_t i = ref_lb(r, index);

	return i < r->n && r->v[i].index == index ? &r->v[i] : NULL;
}

static struct ref_ent *ref_put(struct ref *r, unsigned long index)
{
	size_t i = ref_lb(r, index);

	if (i < r->n && r->v[i].index == index)
		return &r->v[i];
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		assert_non_null(r->v);
	}
	memmove(&r->v[i + 1], &r->v[i], (r->n - i) * sizeof(*r->v));
	r->n++;
	r->v[i].index = index;
	r->v[i].entry = NULL;
	r->v[i].marks = 0;
	return &r->v[i];
}

static void ref_del(struct ref *r, unsigned long index)
{
	size_t i = ref_lb(r, index);

	if (i < r->n && r->v[i].index == index) {
		memmove(&r->v[i], &r->v[i + 1], (r->n - i - 1) * sizeof(*r->v));
		r->n--;
	}
}

static unsigned long rand_index(void)
{
	unsigned int r = (unsigned int)rg_rand_below(&rng, 100);

	if (r < 70)
		return rg_rand_below(&rng, 300);
	if (r < 88)
		return 1000 + rg_rand_below(&rng, 5000);
	if (r < 96)
		return rg_rand_below(&rng, 1UL << 24);
	if (r < 98)
		return ULONG_MAX - rg_rand_below(&rng, 200);
	return rg_rand_next(&rng);
}

static void *rand_entry(void)
{
	unsigned long k = rg_rand_below(&rng, 1UL << 20);

	return rg_rand_below(&rng, 2) ? P(k) : rg_xa_mk_value(k);
}

/* Whole-contents comparison: entries in order, marks, emptiness. */
static void check_contents(struct rg_xarray *xa, struct ref *r, bool alloc)
{
	unsigned long index;
	size_t i = 0;
	void *e;

	rg_xa_for_each(xa, index, e)
	{
		while (i < r->n && !r->v[i].entry)
			i++;
		assert_true(i < r->n);
		assert_int_equal(index, r->v[i].index);
		assert_ptr_equal(e, r->v[i].entry);
		for (unsigned int m = alloc ? 1 : 0; m <= RG_XA_MARK_MAX; m++)
			assert_int_equal(rg_xa_get_mark(xa, index, m),
					 !!(r->v[i].marks & (1u << m)));
		i++;
	}
	while (i < r->n && !r->v[i].entry)
		i++;
	assert_int_equal(i, r->n);
	assert_int_equal(rg_xa_empty(xa), r->n == 0);
}

/* Expected result of find from @start to @max with @filter. */
static struct ref_ent *ref_find(struct ref *r, unsigned long start,
				unsigned long max, unsigned int filter)
{
	for (size_t i = ref_lb(r, start); i < r->n; i++) {
		struct ref_ent *x = &r->v[i];

		if (x->index > max)
			return NULL;
		if (!x->entry)
			continue;
		if (filter == RG_XA_PRESENT || (x->marks & (1u << filter)))
			return x;
	}
	return NULL;
}

static void run(bool alloc, unsigned long ops, size_t target)
{
	struct rg_xarray xa;
	struct ref r = { 0 };
	unsigned int first_mark = alloc ? 1 : 0;
	unsigned long op;

	assert_int_equal(rg_xa_init_flags(&xa, alloc ? RG_XA_FLAGS_ALLOC : 0),
			 0);
	for (op = 0; op < ops; op++) {
		unsigned int kind = (unsigned int)rg_rand_below(&rng, 100);
		unsigned long index = rand_index();
		struct ref_ent *x;
		void *e, *old, *cur;
		int err;

		/* Keep the model small: erase existing entries when big. */
		if (r.n > target && kind < 60)
			kind = 99;
		if (kind >= 95 && r.n) {
			index = r.v[rg_rand_below(&rng, r.n)].index;
			kind = 99;
		}
		x = ref_get(&r, index);
		if (kind < 25) { /* store */
			e = rg_rand_below(&rng, 20) ? rand_entry() : NULL;
			err = rg_xa_store(&xa, index, e, &old);
			assert_int_equal(err, 0);
			assert_ptr_equal(old, x ? x->entry : NULL);
			if (e || alloc) {
				x = ref_put(&r, index);
				x->entry = e;
			} else {
				ref_del(&r, index);
			}
		} else if (kind < 35) { /* load */
			assert_ptr_equal(rg_xa_load(&xa, index),
					 x ? x->entry : NULL);
		} else if (kind < 40) { /* insert */
			e = rg_rand_below(&rng, 10) ? rand_entry() : NULL;
			err = rg_xa_insert(&xa, index, e);
			assert_int_equal(err, x ? -EBUSY : 0);
			if (!x)
				ref_put(&r, index)->entry = e;
		} else if (kind < 45) { /* cmpxchg */
			void *want = x && rg_rand_below(&rng, 3) ? x->entry :
				     rg_rand_below(&rng, 4) ? rand_entry() :
							      NULL;
			bool match = x ? x->entry && want == x->entry : !want;

			e = rg_rand_below(&rng, 8) ? rand_entry() : NULL;
			err = rg_xa_cmpxchg(&xa, index, want, e, &cur);
			assert_int_equal(err, match ? 0 : -EBUSY);
			assert_ptr_equal(cur, x ? x->entry : NULL);
			if (match && (e || alloc))
				ref_put(&r, index)->entry = e;
			else if (match)
				ref_del(&r, index);
		} else if (kind < 48) { /* reserve / release */
			if (rg_rand_below(&rng, 2)) {
				assert_int_equal(rg_xa_reserve(&xa, index), 0);
				if (!x)
					ref_put(&r, index);
			} else {
				rg_xa_release(&xa, index);
				if (x && !x->entry)
					ref_del(&r, index);
			}
		} else if (kind < 58) { /* set / clear mark */
			unsigned int m =
				first_mark +
				(unsigned int)rg_rand_below(
					&rng, RG_XA_MARK_MAX + 1 - first_mark);
			bool set = rg_rand_below(&rng, 2);

			err = set ? rg_xa_set_mark(&xa, index, m) :
				    rg_xa_clear_mark(&xa, index, m);
			assert_int_equal(err, x ? 0 : -ENOENT);
			if (x && set)
				x->marks |= 1u << m;
			else if (x)
				x->marks &= ~(1u << m);
		} else if (kind < 63) { /* get mark */
			unsigned int m = (unsigned int)rg_rand_below(&rng, 3);
			bool want = x && (x->marks & (1u << m));

			if (alloc && m == RG_XA_FREE_MARK)
				want = false;
			assert_int_equal(rg_xa_get_mark(&xa, index, m), want);
		} else if (kind < 75) { /* find / find_after */
			unsigned int filter =
				rg_rand_below(&rng, 2) ?
					RG_XA_PRESENT :
					(unsigned int)rg_rand_below(&rng, 3);
			unsigned long max =
				rg_rand_below(&rng, 4) ?
					ULONG_MAX :
					index + rg_rand_below(&rng, 5000);
			bool after = rg_rand_below(&rng, 2);
			unsigned long i = index;
			struct ref_ent *want;

			if (max < index)
				max = ULONG_MAX;
			if (after && index == ULONG_MAX)
				want = NULL;
			else if (alloc && filter == RG_XA_FREE_MARK)
				want = NULL;
			else
				want = ref_find(&r, after ? index + 1 : index,
						max, filter);
			e = after ? rg_xa_find_after(&xa, &i, max, filter) :
				    rg_xa_find(&xa, &i, max, filter);
			assert_ptr_equal(e, want ? want->entry : NULL);
			assert_int_equal(i, want ? want->index : index);
		} else if (kind < 90 && alloc) { /* alloc */
			unsigned long min = index, max, id = 7, want;
			bool none = false;
			size_t k;

			max = rg_rand_below(&rng, 3) ?
				      min + rg_rand_below(&rng, 400) :
				      ULONG_MAX;
			if (max < min)
				max = ULONG_MAX;
			want = min;
			for (k = ref_lb(&r, min);
			     k < r.n && r.v[k].index == want; k++) {
				if (want == max) {
					none = true;
					break;
				}
				want++;
			}
			e = rg_rand_below(&rng, 10) ? rand_entry() : NULL;
			err = rg_xa_alloc(&xa, &id, e, min, max);
			if (none) {
				assert_int_equal(err, -EBUSY);
				assert_int_equal(id, 7);
			} else {
				assert_int_equal(err, 0);
				assert_int_equal(id, want);
				ref_put(&r, want)->entry = e;
			}
		} else if (kind < 99 || !x) { /* erase */
			assert_ptr_equal(rg_xa_erase(&xa, index),
					 x ? x->entry : NULL);
			ref_del(&r, index);
		} else { /* erase a known entry */
			assert_ptr_equal(rg_xa_erase(&xa, index), x->entry);
			ref_del(&r, index);
		}
		if (rg_rand_below(&rng, 200000) == 0) {
			rg_xa_destroy(&xa);
			r.n = 0;
		}
		if (RG_THOROUGH || op % 4096 == 0)
			RG_ASSERT_VALIDF(&xa, "op %lu", op);
		if (op % (RG_THOROUGH ? 5000 : 20000) == 0)
			check_contents(&xa, &r, alloc);
	}
	RG_ASSERT_VALIDF(&xa, "op %lu", op);
	check_contents(&xa, &r, alloc);
	rg_xa_destroy(&xa);
	free(r.v);
}

static void test_random(void **state)
{
	struct rg_slab_stats st;
	size_t base;

	(void)state;
	rg_rand_seed(&rng, rg_test_seed());
	assert_int_equal(rg_xa_node_cache_stats(&st), 0);
	base = st.objects_in_use;
	/* 10^6 operations in all under sanitizers, 10^6 per kind otherwise. */
	run(false, RG_THOROUGH ? 500000 : 1000000, RG_THOROUGH ? 48 : 3000);
	run(true, RG_THOROUGH ? 500000 : 1000000, RG_THOROUGH ? 48 : 3000);
	assert_int_equal(rg_xa_node_cache_stats(&st), 0);
	assert_int_equal(st.objects_in_use, base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
