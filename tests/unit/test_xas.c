// SPDX-License-Identifier: MIT
/*
 * The xarray's advanced API (rg_xas_*): unit tests of each call, the
 * kernel's protocols (preallocation with rg_xas_nomem() under a dropped
 * lock, rg_xas_retry() on the retry entry, rg_xas_pause() in a loop), bad
 * entries, fault injection on every node allocation of a store, and a
 * randomized lockstep run of the state machine against a sorted map,
 * validating after every mutation.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "region/linux/xarray.h"
#include "region/xarray.h"
#include "rg_test.h"

#define P(n) ((void *)(uintptr_t)((uintptr_t)(n) << 3 | 0x1000))

static size_t nodes_in_use(void)
{
	struct rg_slab_stats st;

	assert_int_equal(rg_xa_node_cache_stats(&st), 0);
	return st.objects_in_use;
}

/* Store under the kernel's protocol: allocate with the lock dropped. */
static void *store_protocol(struct rg_xarray *xa, unsigned long index,
			    void *entry, int *err)
{
	RG_XA_STATE(xas, xa, index);
	void *old;

	do {
		rg_xa_lock(xa);
		old = rg_xas_store(&xas, entry);
		rg_xa_unlock(xa);
	} while (rg_xas_nomem(&xas));
	*err = rg_xas_error(&xas);
	assert_null(xas.xa_alloc);
	return old;
}

static void test_load_store(void **state)
{
	struct rg_xarray xa;
	int err;

	(void)state;
	rg_xa_init(&xa);
	RG_XA_STATE(xas, &xa, 0);
	rg_xa_lock(&xa);
	assert_null(rg_xas_load(&xas));
	assert_null(xas.xa_node); /* the head */
	assert_null(rg_xas_store(&xas, P(1)));
	assert_ptr_equal(rg_xas_load(&xas), P(1));
	assert_ptr_equal(rg_xas_store(&xas, P(2)), P(1));
	assert_ptr_equal(rg_xas_reload(&xas), P(2));
	rg_xas_set(&xas, 1000);
	assert_null(rg_xas_load(&xas));
	assert_ptr_equal(xas.xa_node, RG_XAS_BOUNDS);
	assert_null(rg_xas_store(&xas, P(3)));
	assert_int_equal(rg_xas_error(&xas), 0);
	assert_true(rg_xas_valid(&xas));
	assert_ptr_equal(rg_xas_reload(&xas), P(3));
	rg_xa_unlock(&xa);
	RG_ASSERT_VALID(&xa);
	assert_ptr_equal(rg_xa_load(&xa, 1000), P(3));
	assert_ptr_equal(rg_xa_load(&xa, 0), P(2));
	/* erase through the state; the tree shrinks back to the head */
	rg_xa_lock(&xa);
	rg_xas_set(&xas, 1000);
	assert_ptr_equal(rg_xas_store(&xas, NULL), P(3));
	assert_ptr_equal(xas.xa_node, RG_XAS_BOUNDS);
	assert_null(rg_xas_load(&xas));
	rg_xa_unlock(&xa);
	RG_ASSERT_VALID(&xa);
	assert_int_equal(rg_xa_node_count(&xa), 0);
	assert_null(store_protocol(&xa, ULONG_MAX, P(4), &err));
	assert_int_equal(err, 0);
	assert_ptr_equal(rg_xa_load(&xa, ULONG_MAX), P(4));
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
}

/* Bad entries: -EINVAL in the state, nothing changes, later calls no-ops. */
static void test_bad_entry(void **state)
{
	struct rg_xarray xa;
	size_t nodes;

	(void)state;
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_store(&xa, 70, P(1), NULL), 0);
	nodes = rg_xa_node_count(&xa);
	RG_XA_STATE(xas, &xa, 70);
	rg_xa_lock(&xa);
	assert_null(rg_xas_store(&xas, (void *)(uintptr_t)0x802));
	assert_int_equal(rg_xas_error(&xas), -EINVAL);
	assert_true(rg_xas_invalid(&xas));
	/* an errored state does nothing */
	assert_null(rg_xas_store(&xas, P(2)));
	assert_null(rg_xas_load(&xas));
	assert_null(rg_xas_find(&xas, ULONG_MAX));
	assert_null(rg_xas_next(&xas));
	assert_false(rg_xas_get_mark(&xas, RG_XA_MARK_1));
	rg_xa_unlock(&xa);
	assert_false(rg_xas_nomem(&xas)); /* not -ENOMEM */
	assert_int_equal(rg_xas_error(&xas), -EINVAL);
	assert_ptr_equal(rg_xa_load(&xa, 70), P(1));
	assert_int_equal(rg_xa_node_count(&xa), nodes);
	RG_ASSERT_VALID(&xa);
	rg_xas_set_err(&xas, -ENOSPC);
	assert_int_equal(rg_xas_error(&xas), -ENOSPC);
	rg_xas_reset(&xas);
	assert_int_equal(rg_xas_error(&xas), 0);
	/* the normal API still refuses every internal entry */
	assert_int_equal(rg_xa_store(&xa, 1, RG_XA_ZERO_ENTRY, NULL), -EINVAL);
	assert_int_equal(rg_xa_store(&xa, 1, RG_XA_RETRY_ENTRY, NULL), -EINVAL);
	rg_xa_destroy(&xa);
}

/* The zero entry: xas_load() returns it raw, the normal API reads NULL. */
static void test_zero_entry(void **state)
{
	struct rg_xarray xa;

	(void)state;
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_reserve(&xa, 12), 0);
	assert_null(rg_xa_load(&xa, 12));
	RG_XA_STATE(xas, &xa, 12);
	rg_xa_lock(&xa);
	assert_ptr_equal(rg_xas_load(&xas), RG_XA_ZERO_ENTRY);
	assert_true(rg_xas_retry(&xas, RG_XA_ZERO_ENTRY));
	rg_xas_set(&xas, 0);
	assert_ptr_equal(rg_xas_find(&xas, ULONG_MAX), RG_XA_ZERO_ENTRY);
	assert_int_equal(xas.xa_index, 12);
	rg_xas_set(&xas, 20);
	assert_null(rg_xas_store(&xas, RG_XA_ZERO_ENTRY));
	rg_xa_unlock(&xa);
	RG_ASSERT_VALID(&xa);
	assert_int_equal(rg_xa_insert(&xa, 20, P(1)), -EBUSY);
	assert_null(rg_xa_load(&xa, 20));
	rg_xa_release(&xa, 20);
	assert_int_equal(rg_xa_insert(&xa, 20, P(1)), 0);
	rg_xa_destroy(&xa);
}

/* The retry entry: a reader meeting it resets its state and walks again. */
static void test_retry(void **state)
{
	struct rg_xarray xa;
	unsigned int seen = 0, retries = 0;
	void *entry;

	(void)state;
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_store(&xa, 0, P(1), NULL), 0);
	assert_int_equal(rg_xa_store(&xa, 1, P(2), NULL), 0);
	RG_XA_STATE(w, &xa, 1);
	rg_xa_lock(&xa);
	assert_ptr_equal(rg_xas_store(&w, RG_XA_RETRY_ENTRY), P(2));
	rg_xa_unlock(&xa);
	RG_ASSERT_VALID(&xa);
	assert_ptr_equal(rg_xa_load(&xa, 1), RG_XA_RETRY_ENTRY);
	RG_XA_STATE(xas, &xa, 0);
	rg_xa_lock(&xa);
	rg_xas_for_each(&xas, entry, ULONG_MAX)
	{
		if (rg_xas_retry(&xas, entry)) {
			assert_ptr_equal(xas.xa_node, RG_XAS_RESTART);
			/* the writer puts the entry back meanwhile */
			rg_xas_set(&w, 1);
			rg_xas_store(&w, P(2));
			retries++;
			continue;
		}
		assert_ptr_equal(entry, P(xas.xa_index + 1));
		seen++;
	}
	rg_xa_unlock(&xa);
	assert_int_equal(retries, 1);
	assert_int_equal(seen, 2);
	assert_false(rg_xas_retry(&xas, P(3)));
	rg_xa_destroy(&xa);
}

static void test_find_next_prev(void **state)
{
	static const unsigned long idx[] = {
		0, 3, 63, 64, 4095, 4096, 1UL << 40
	};
	struct rg_xarray xa;
	unsigned int i;
	void *entry;

	(void)state;
	rg_xa_init(&xa);
	for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		assert_int_equal(rg_xa_store(&xa, idx[i], P(i + 1), NULL), 0);
	RG_XA_STATE(xas, &xa, 0);
	rg_xa_lock(&xa);
	i = 0;
	rg_xas_for_each(&xas, entry, ULONG_MAX)
	{
		assert_int_equal(xas.xa_index, idx[i]);
		assert_ptr_equal(entry, P(i + 1));
		i++;
	}
	assert_int_equal(i, 7);
	assert_ptr_equal(xas.xa_node, RG_XAS_BOUNDS);
	assert_null(rg_xas_find(&xas, ULONG_MAX)); /* stays at the end */
	/* a limit: nothing past it; the index is past the limit */
	rg_xas_set(&xas, 5);
	assert_ptr_equal(rg_xas_find(&xas, 62), NULL);
	assert_int_equal(xas.xa_index, 63);
	rg_xas_set(&xas, 5);
	assert_ptr_equal(rg_xas_find(&xas, 63), P(3));
	/* a walked state moves on; a reset one looks at its own index */
	assert_ptr_equal(rg_xas_find(&xas, ULONG_MAX), P(4));
	rg_xas_reset(&xas);
	assert_ptr_equal(rg_xas_find(&xas, ULONG_MAX), P(4));
	/* next and prev step one index, across leaves */
	rg_xas_set(&xas, 62);
	assert_null(rg_xas_load(&xas));
	assert_ptr_equal(rg_xas_next(&xas), P(3));
	assert_ptr_equal(rg_xas_next(&xas), P(4));
	assert_int_equal(xas.xa_index, 64);
	assert_ptr_equal(rg_xas_prev(&xas), P(3));
	assert_null(rg_xas_prev(&xas));
	assert_int_equal(xas.xa_index, 62);
	/* a state not walked loads its own index */
	rg_xas_set(&xas, 3);
	assert_ptr_equal(rg_xas_next(&xas), P(2));
	assert_int_equal(xas.xa_index, 3);
	/* wrap around both ends */
	rg_xas_set(&xas, 0);
	assert_ptr_equal(rg_xas_load(&xas), P(1));
	assert_null(rg_xas_prev(&xas));
	assert_int_equal(xas.xa_index, ULONG_MAX);
	assert_ptr_equal(rg_xas_next(&xas), P(1));
	assert_int_equal(xas.xa_index, 0);
	rg_xa_unlock(&xa);
	rg_xa_destroy(&xa);

	/* from the head of a one-entry array: next goes out of bounds */
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_store(&xa, 0, P(9), NULL), 0);
	rg_xa_lock(&xa);
	rg_xas_set(&xas, 0);
	assert_ptr_equal(rg_xas_load(&xas), P(9));
	assert_null(rg_xas_next(&xas));
	assert_int_equal(xas.xa_index, 1);
	assert_ptr_equal(xas.xa_node, RG_XAS_BOUNDS);
	/* the tree ends before the limit: the index is its end */
	rg_xas_set(&xas, 0);
	assert_ptr_equal(rg_xas_find(&xas, 100), P(9));
	assert_null(rg_xas_find(&xas, 100));
	assert_int_equal(xas.xa_index, 1);
	rg_xa_unlock(&xa);
	rg_xa_destroy(&xa);
}

static void test_marks(void **state)
{
	struct rg_xarray xa;
	unsigned long want[] = { 5, 700, 1UL << 30 }, i;
	unsigned int n = 0;
	void *entry;

	(void)state;
	rg_xa_init(&xa);
	for (i = 0; i < 1000; i += 5)
		assert_int_equal(rg_xa_store(&xa, i, P(i + 1), NULL), 0);
	assert_int_equal(rg_xa_store(&xa, 1UL << 30, P(7), NULL), 0);
	RG_XA_STATE(xas, &xa, 0);
	rg_xa_lock(&xa);
	for (i = 0; i < 3; i++) {
		rg_xas_set(&xas, want[i]);
		assert_non_null(rg_xas_load(&xas));
		assert_false(rg_xas_get_mark(&xas, RG_XA_MARK_2));
		rg_xas_set_mark(&xas, RG_XA_MARK_2);
		assert_true(rg_xas_get_mark(&xas, RG_XA_MARK_2));
	}
	/* a state on no entry marks nothing; a bad mark is ignored */
	rg_xas_set(&xas, 6);
	assert_null(rg_xas_load(&xas));
	rg_xas_set_mark(&xas, RG_XA_MARK_2);
	rg_xas_set_mark(&xas, 7);
	rg_xa_unlock(&xa);
	RG_ASSERT_VALID(&xa);
	assert_false(rg_xa_get_mark(&xa, 6, RG_XA_MARK_2));
	rg_xa_lock(&xa);
	rg_xas_set(&xas, 0);
	rg_xas_for_each_marked(&xas, entry, ULONG_MAX, RG_XA_MARK_2)
	{
		assert_int_equal(xas.xa_index, want[n]);
		n++;
	}
	assert_int_equal(n, 3);
	rg_xas_set(&xas, 700);
	rg_xas_load(&xas);
	rg_xas_clear_mark(&xas, RG_XA_MARK_2);
	rg_xas_set(&xas, 5);
	rg_xas_load(&xas);
	rg_xas_init_marks(&xas);
	assert_false(rg_xas_get_mark(&xas, RG_XA_MARK_2));
	rg_xa_unlock(&xa);
	RG_ASSERT_VALID(&xa);
	assert_false(rg_xa_get_mark(&xa, 700, RG_XA_MARK_2));
	assert_true(rg_xa_get_mark(&xa, 1UL << 30, RG_XA_MARK_2));
	rg_xa_destroy(&xa);
}

/* Allocating arrays: the free mark finds free indices, in and past the tree. */
static void test_free_mark(void **state)
{
	struct rg_xarray xa;
	unsigned long i;

	(void)state;
	rg_xa_init_flags(&xa, RG_XA_FLAGS_ALLOC);
	for (i = 0; i < 70; i++)
		if (i != 33)
			assert_int_equal(rg_xa_store(&xa, i, P(i + 1), NULL),
					 0);
	RG_XA_STATE(xas, &xa, 0);
	rg_xa_lock(&xa);
	assert_null(rg_xas_find_marked(&xas, ULONG_MAX, RG_XA_FREE_MARK));
	assert_int_equal(xas.xa_index, 33);
	assert_int_equal(rg_xas_error(&xas), 0);
	rg_xas_set(&xas, 34);
	assert_null(rg_xas_find_marked(&xas, ULONG_MAX, RG_XA_FREE_MARK));
	assert_int_equal(xas.xa_index, 70);
	rg_xas_set(&xas, 34);
	assert_null(rg_xas_find_marked(&xas, 69, RG_XA_FREE_MARK));
	assert_true(xas.xa_index > 69);
	/* the advanced store keeps the free mark; the owner clears it */
	rg_xas_set(&xas, 33);
	assert_null(rg_xas_store(&xas, P(34)));
	assert_true(rg_xas_get_mark(&xas, RG_XA_FREE_MARK));
	rg_xa_unlock(&xa);
	{
		const char *why = NULL;

		/* valid for an owner of the free mark, not as a plain array */
		rg_xa_lock(&xa);
		assert_int_equal(rg_xa_validate_locked(
					 &xa, RG_XA_VALIDATE_OWNER_FREE, &why),
				 0);
		rg_xa_unlock(&xa);

		assert_int_equal(rg_xa_validate(&xa, &why), -EINVAL);
		assert_int_equal(rg_xa_validate_locked(&xa, 8, &why), -EINVAL);
	}
	rg_xa_lock(&xa);
	rg_xas_clear_mark(&xas, RG_XA_FREE_MARK);
	/* erasing makes it free again (rg_xas_init_marks()) */
	rg_xas_set(&xas, 10);
	assert_ptr_equal(rg_xas_store(&xas, NULL), P(11));
	rg_xas_set(&xas, 0);
	assert_null(rg_xas_find_marked(&xas, ULONG_MAX, RG_XA_FREE_MARK));
	assert_int_equal(xas.xa_index, 10);
	rg_xa_unlock(&xa);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
}

/* Pause: drop the lock in a loop; others change the array meanwhile. */
static void test_pause(void **state)
{
	struct rg_xarray xa;
	unsigned long i, count = 0, last = 0;
	void *entry;

	(void)state;
	rg_xa_init(&xa);
	for (i = 0; i < 512; i += 2)
		assert_int_equal(rg_xa_store(&xa, i, P(i + 1), NULL), 0);
	RG_XA_STATE(xas, &xa, 0);
	rg_xa_lock(&xa);
	rg_xas_for_each(&xas, entry, ULONG_MAX)
	{
		assert_ptr_equal(entry, P(xas.xa_index + 1));
		assert_true(count == 0 || xas.xa_index > last);
		last = xas.xa_index;
		count++;
		rg_xas_pause(&xas);
		assert_ptr_equal(xas.xa_node, RG_XAS_RESTART);
		assert_int_equal(xas.xa_index, last + 1);
		rg_xa_unlock(&xa);
		/* meanwhile: the next entry goes, one behind appears */
		rg_xa_erase(&xa, last + 2);
		if (last)
			rg_xa_store(&xa, last - 1, P(last), NULL);
		rg_xa_lock(&xa);
	}
	rg_xa_unlock(&xa);
	/* every entry at 0, 4, 8, ... was seen once: 2, 6, ... were erased */
	assert_int_equal(count, 128);
	/* a state past ULONG_MAX is out of bounds; an unwalked one stays */
	rg_xa_lock(&xa);
	rg_xas_set(&xas, ULONG_MAX);
	rg_xas_load(&xas);
	rg_xas_pause(&xas);
	assert_ptr_equal(xas.xa_node, RG_XAS_BOUNDS);
	rg_xas_set(&xas, 7);
	rg_xas_pause(&xas);
	assert_int_equal(xas.xa_index, 7);
	rg_xa_unlock(&xa);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
}

/* Erasing inside an iteration: every entry goes, the walk goes on. */
static void test_erase_in_loop(void **state)
{
	struct rg_xarray xa;
	unsigned long i, n = 0;
	void *entry;

	(void)state;
	rg_xa_init(&xa);
	for (i = 0; i < 5000; i += 7)
		assert_int_equal(rg_xa_store(&xa, i * i, P(i), NULL), 0);
	RG_XA_STATE(xas, &xa, 0);
	rg_xa_lock(&xa);
	rg_xas_for_each(&xas, entry, ULONG_MAX)
	{
		assert_ptr_equal(rg_xas_store(&xas, NULL), entry);
		n++;
		if (RG_THOROUGH || n % 64 == 0) {
			const char *why = NULL;

			assert_int_equal(rg_xa_validate_locked(&xa, 0, &why),
					 0);
		}
	}
	rg_xa_unlock(&xa);
	assert_int_equal(n, (5000 + 6) / 7);
	assert_true(rg_xa_empty(&xa));
	assert_int_equal(rg_xa_node_count(&xa), 0);
	rg_xa_destroy(&xa);
}

/*
 * Fault injection on every node allocation of a store: the store fails
 * with -ENOMEM and changes nothing; rg_xas_nomem() then allocates (also
 * failable), and the protocol ends with the entry stored and no node held
 * by the state.
 */
static void test_nomem_faults(void **state)
{
	static const unsigned long idx[] = { 1, 64, 4096, 1UL << 30,
					     ULONG_MAX };
	struct rg_xarray xa;
	unsigned int k;

	(void)state;
	for (k = 0; k < sizeof(idx) / sizeof(idx[0]); k++) {
		unsigned long n;
		unsigned int fired_store = 0, fired_nomem = 0;

		for (n = 1;; n++) {
			size_t base, nodes;
			bool fired;
			void *old;

			rg_xa_init(&xa);
			assert_int_equal(rg_xa_store(&xa, 0, P(1), NULL), 0);
			nodes = rg_xa_node_count(&xa);
			base = nodes_in_use();
			RG_XA_STATE(xas, &xa, idx[k]);
			rg_fault_inject(n);
			rg_xa_lock(&xa);
			old = rg_xas_store(&xas, P(2));
			rg_xa_unlock(&xa);
			fired = rg_fault_fired();
			rg_fault_inject(0);
			assert_null(old);
			if (!fired) {
				assert_int_equal(rg_xas_error(&xas), 0);
				assert_false(rg_xas_nomem(&xas));
				assert_ptr_equal(rg_xa_load(&xa, idx[k]), P(2));
				RG_ASSERT_VALID(&xa);
				rg_xa_destroy(&xa);
				break;
			}
			fired_store++;
			assert_int_equal(rg_xas_error(&xas), -ENOMEM);
			assert_null(rg_xa_load(&xa, idx[k]));
			assert_ptr_equal(rg_xa_load(&xa, 0), P(1));
			assert_int_equal(rg_xa_node_count(&xa), nodes);
			assert_int_equal(nodes_in_use(), base);
			RG_ASSERT_VALID(&xa);
			/* the preallocation can fail too: state keeps -ENOMEM */
			rg_fault_inject(1);
			assert_false(rg_xas_nomem(&xas));
			rg_fault_inject(0);
			assert_int_equal(rg_xas_error(&xas), -ENOMEM);
			assert_null(xas.xa_alloc);
			assert_int_equal(nodes_in_use(), base);
			fired_nomem++;
			/* then the protocol, without faults, succeeds */
			assert_true(rg_xas_nomem(&xas));
			assert_int_equal(rg_xas_error(&xas), 0);
			assert_non_null(xas.xa_alloc);
			rg_xa_lock(&xa);
			assert_null(rg_xas_store(&xas, P(2)));
			rg_xa_unlock(&xa);
			assert_int_equal(rg_xas_error(&xas), 0);
			assert_false(rg_xas_nomem(&xas));
			assert_null(xas.xa_alloc);
			assert_ptr_equal(rg_xa_load(&xa, idx[k]), P(2));
			RG_ASSERT_VALID(&xa);
			rg_xa_destroy(&xa);
			assert_int_equal(nodes_in_use(), base - nodes);
		}
		/* a store needing nodes meets at least one failure */
		assert_true(fired_store >= 1);
		assert_true(fired_nomem >= 1);
	}
}

/* ---- lockstep against a sorted map ---- */

#define LS_MAX 512

struct model {
	unsigned long idx[LS_MAX];
	void *val[LS_MAX];
	unsigned int marks[LS_MAX];
	unsigned int n;
};

/* Position of the first index >= i. */
static unsigned int m_lower(const struct model *m, unsigned long i)
{
	unsigned int lo = 0, hi = m->n;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (m->idx[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void *m_load(const struct model *m, unsigned long i)
{
	unsigned int p = m_lower(m, i);

	return p < m->n && m->idx[p] == i ? m->val[p] : NULL;
}

static void *m_store(struct model *m, unsigned long i, void *v)
{
	unsigned int p = m_lower(m, i);
	void *old = NULL;

	if (p < m->n && m->idx[p] == i) {
		old = m->val[p];
		if (v) {
			m->val[p] = v;
		} else {
			memmove(&m->idx[p], &m->idx[p + 1],
				(m->n - p - 1) * sizeof(m->idx[0]));
			memmove(&m->val[p], &m->val[p + 1],
				(m->n - p - 1) * sizeof(m->val[0]));
			memmove(&m->marks[p], &m->marks[p + 1],
				(m->n - p - 1) * sizeof(m->marks[0]));
			m->n--;
		}
		return old;
	}
	if (!v)
		return NULL;
	assert_true(m->n < LS_MAX);
	memmove(&m->idx[p + 1], &m->idx[p], (m->n - p) * sizeof(m->idx[0]));
	memmove(&m->val[p + 1], &m->val[p], (m->n - p) * sizeof(m->val[0]));
	memmove(&m->marks[p + 1], &m->marks[p],
		(m->n - p) * sizeof(m->marks[0]));
	m->idx[p] = i;
	m->val[p] = v;
	m->marks[p] = 0;
	m->n++;
	return NULL;
}

/* Indices clustered so that leaves fill, empty and the tree changes height. */
static unsigned long ls_index(struct rg_rand *r)
{
	switch (rg_rand_below(r, 4)) {
	case 0:
		return rg_rand_below(r, 80);
	case 1:
		return 4000 + rg_rand_below(r, 200);
	case 2:
		return (1UL << 20) + rg_rand_below(r, 70);
	default:
		return ULONG_MAX - rg_rand_below(r, 70);
	}
}

static void test_lockstep(void **state)
{
	struct rg_xarray xa;
	struct model *m = calloc(1, sizeof(*m));
	struct rg_rand r;
	unsigned long ops = RG_THOROUGH ? 20000 : 60000, k;

	(void)state;
	assert_non_null(m);
	rg_rand_seed(&r, rg_test_seed());
	rg_xa_init(&xa);
	RG_XA_STATE(xas, &xa, 0);
	for (k = 0; k < ops; k++) {
		unsigned long i = ls_index(&r);
		unsigned int op = (unsigned int)rg_rand_below(&r, 9), p;
		bool mutated = false;
		void *e, *want;
		int err;

		rg_xa_lock(&xa);
		switch (op) {
		case 0: /* store through a fresh walk */
		case 1:
			e = (m->n < LS_MAX - 1 && rg_rand_below(&r, 3)) ?
				    P(k + 1) :
				    NULL;
			rg_xas_set(&xas, i);
			want = m_store(m, i, e);
			assert_ptr_equal(rg_xas_store(&xas, e), want);
			assert_int_equal(rg_xas_error(&xas), 0);
			mutated = true;
			break;
		case 2: /* load, then store on the loaded position */
			rg_xas_set(&xas, i);
			assert_ptr_equal(rg_xas_load(&xas), m_load(m, i));
			if (m_load(m, i)) {
				e = P(k + 1);
				m_store(m, i, e);
				rg_xas_store(&xas, e);
				assert_ptr_equal(rg_xas_reload(&xas), e);
				mutated = true;
			}
			break;
		case 3: /* find from i, then a few steps of next_entry */
			rg_xas_set(&xas, i);
			p = m_lower(m, i);
			e = rg_xas_find(&xas, ULONG_MAX);
			for (unsigned int s = 0; s < 4; s++) {
				if (p >= m->n) {
					assert_null(e);
					break;
				}
				assert_ptr_equal(e, m->val[p]);
				assert_int_equal(xas.xa_index, m->idx[p]);
				p++;
				e = rg_xas_next_entry(&xas, ULONG_MAX);
			}
			break;
		case 4: /* next / prev walks */
			rg_xas_set(&xas, i);
			assert_ptr_equal(rg_xas_load(&xas), m_load(m, i));
			for (unsigned int s = 0; s < 5; s++) {
				bool fwd = rg_rand_below(&r, 2);

				e = fwd ? rg_xas_next(&xas) : rg_xas_prev(&xas);
				if (xas.xa_node == RG_XAS_BOUNDS && !e)
					break;
				assert_ptr_equal(e, m_load(m, xas.xa_index));
			}
			break;
		case 5: /* mark or clear the entry at i */
			rg_xas_set(&xas, i);
			e = rg_xas_load(&xas);
			p = m_lower(m, i);
			if (e) {
				unsigned int mk =
					1 + (unsigned int)rg_rand_below(&r, 2);

				if (rg_rand_below(&r, 2)) {
					rg_xas_set_mark(&xas, mk);
					m->marks[p] |= 1u << mk;
				} else {
					rg_xas_clear_mark(&xas, mk);
					m->marks[p] &= ~(1u << mk);
				}
				assert_int_equal(rg_xas_get_mark(&xas, mk),
						 (m->marks[p] >> mk) & 1);
				mutated = true;
			}
			break;
		case 6: /* marked search */
		{
			unsigned int mk =
				1 + (unsigned int)rg_rand_below(&r, 2);

			rg_xas_set(&xas, i);
			e = rg_xas_find_marked(&xas, ULONG_MAX, mk);
			for (p = m_lower(m, i); p < m->n; p++)
				if (m->marks[p] & (1u << mk))
					break;
			if (p == m->n) {
				assert_null(e);
			} else {
				assert_ptr_equal(e, m->val[p]);
				assert_int_equal(xas.xa_index, m->idx[p]);
			}
			break;
		}
		case 7: /* erase a run inside an iteration, with pauses */
			rg_xas_set(&xas, i);
			p = 0;
			rg_xas_for_each(&xas, e, i + 100)
			{
				assert_ptr_equal(e, m_load(m, xas.xa_index));
				if (rg_rand_below(&r, 2)) {
					m_store(m, xas.xa_index, NULL);
					rg_xas_store(&xas, NULL);
					mutated = true;
				}
				if (rg_rand_below(&r, 4) == 0)
					rg_xas_pause(&xas);
				if (++p == 8)
					break;
			}
			break;
		default: /* the protocol, with a fault sometimes */
			if (m->n >= LS_MAX - 1)
				break;
			rg_xas_set(&xas, i);
			e = P(k + 1);
			rg_fault_inject(rg_rand_below(&r, 3));
			want = m_load(m, i);
			for (;;) {
				void *old = rg_xas_store(&xas, e);

				if (!rg_xas_error(&xas)) {
					assert_ptr_equal(old, want);
					break;
				}
				rg_xa_unlock(&xa);
				if (!rg_xas_nomem(&xas)) {
					rg_xa_lock(&xa);
					break;
				}
				rg_xa_lock(&xa);
			}
			rg_fault_inject(0);
			err = rg_xas_error(&xas);
			assert_true(err == 0 || err == -ENOMEM);
			rg_xas_nomem(&xas);
			assert_null(xas.xa_alloc);
			if (!err)
				m_store(m, i, e);
			assert_ptr_equal(rg_xas_load(&xas), m_load(m, i));
			mutated = true;
			break;
		}
		rg_xa_unlock(&xa);
		if (mutated)
			RG_ASSERT_VALID(&xa);
		if (k % 4096 == 0) {
			unsigned long j = 0;

			p = 0;
			rg_xa_for_each(&xa, j, e)
			{
				assert_true(p < m->n);
				assert_int_equal(j, m->idx[p]);
				assert_ptr_equal(e, m->val[p]);
				p++;
			}
			assert_int_equal(p, m->n);
		}
	}
	rg_xa_destroy(&xa);
	free(m);
}

/* Cyclic allocation: from the cursor, wrapping to the start with 1. */
static void test_alloc_cyclic(void **state)
{
	struct rg_xarray xa, plain;
	uint32_t id = 0, next = 0;
	unsigned int i;

	(void)state;
	rg_xa_init_flags(&xa, RG_XA_FLAGS_ALLOC);
	rg_xa_init(&plain);
	for (i = 10; i <= 14; i++) {
		assert_int_equal(
			rg_xa_alloc_cyclic(&xa, &id, P(i), 10, 14, &next), 0);
		assert_int_equal(id, i);
		assert_int_equal(next, i + 1);
		RG_ASSERT_VALID(&xa);
	}
	/* full */
	id = 77;
	assert_int_equal(rg_xa_alloc_cyclic(&xa, &id, P(1), 10, 14, &next),
			 -EBUSY);
	assert_int_equal(id, 77);
	assert_int_equal(next, 15);
	/* a hole behind the cursor: found by starting again, returns 1 */
	assert_ptr_equal(rg_xa_erase(&xa, 11), P(11));
	assert_int_equal(rg_xa_alloc_cyclic(&xa, &id, P(2), 10, 14, &next), 1);
	assert_int_equal(id, 11);
	assert_int_equal(next, 12);
	/* the cursor moves on past holes it does not need */
	assert_ptr_equal(rg_xa_erase(&xa, 10), P(10));
	assert_ptr_equal(rg_xa_erase(&xa, 13), P(13));
	assert_int_equal(rg_xa_alloc_cyclic(&xa, &id, P(3), 10, 14, &next), 0);
	assert_int_equal(id, 13);
	assert_int_equal(rg_xa_alloc_cyclic(&xa, &id, P(4), 10, 14, &next), 1);
	assert_int_equal(id, 10);
	/* the cursor wraps past UINT32_MAX: the next success returns 1 */
	next = UINT32_MAX;
	assert_int_equal(
		rg_xa_alloc_cyclic(&xa, &id, NULL, 0, UINT32_MAX, &next), 0);
	assert_int_equal(id, UINT32_MAX);
	assert_int_equal(next, 0);
	RG_ASSERT_VALID(&xa);
	assert_int_equal(
		rg_xa_alloc_cyclic(&xa, &id, P(5), 0, UINT32_MAX, &next), 1);
	assert_int_equal(id, 0);
	assert_int_equal(
		rg_xa_alloc_cyclic(&xa, &id, P(6), 0, UINT32_MAX, &next), 0);
	assert_int_equal(id, 1);
	/* bad input */
	assert_int_equal(rg_xa_alloc_cyclic(&plain, &id, P(1), 0, 9, &next),
			 -EINVAL);
	assert_int_equal(rg_xa_alloc_cyclic(&xa, NULL, P(1), 0, 9, &next),
			 -EINVAL);
	assert_int_equal(rg_xa_alloc_cyclic(&xa, &id, P(1), 0, 9, NULL),
			 -EINVAL);
	assert_int_equal(
		rg_xa_alloc_cyclic(&xa, &id, RG_XA_ZERO_ENTRY, 0, 9, &next),
		-EINVAL);
	assert_int_equal(rg_xa_alloc_cyclic(&xa, &id, P(1), 9, 8, &next),
			 -EBUSY);
	assert_int_equal(rg_xa_alloc_cyclic(NULL, &id, P(1), 0, 9, &next),
			 -EINVAL);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
	rg_xa_destroy(&plain);
}

/* Fault injection on cyclic allocation: -ENOMEM changes nothing. */
static void test_alloc_cyclic_faults(void **state)
{
	struct rg_xarray xa;
	unsigned long n;

	(void)state;
	for (n = 1;; n++) {
		uint32_t id = 5, next = 1000000;
		size_t base;
		bool fired;
		int ret;

		rg_xa_init_flags(&xa, RG_XA_FLAGS_ALLOC);
		assert_int_equal(rg_xa_store(&xa, 3, P(3), NULL), 0);
		base = nodes_in_use();
		rg_fault_inject(n);
		ret = rg_xa_alloc_cyclic(&xa, &id, P(9), 0, UINT32_MAX, &next);
		fired = rg_fault_fired();
		rg_fault_inject(0);
		RG_ASSERT_VALID(&xa);
		if (!fired) {
			assert_int_equal(ret, 0);
			assert_int_equal(id, 1000000);
			assert_int_equal(next, 1000001);
			rg_xa_destroy(&xa);
			break;
		}
		assert_int_equal(ret, -ENOMEM);
		assert_int_equal(id, 5);
		assert_int_equal(next, 1000000);
		assert_null(rg_xa_load(&xa, 1000000));
		assert_int_equal(nodes_in_use(), base);
		rg_xa_destroy(&xa);
	}
	assert_true(n > 1);
}

/*
 * Regression: kernel code reads with xa_load() (and finds, marks, checks)
 * while it holds xa_lock, as the kernel's readers take no lock; the
 * normal read calls took the array's mutex again and waited for ever.
 */
static void regress_xa_read_under_lock(void **state)
{
	struct rg_xarray xa;
	unsigned long i = 0;
	const char *why = NULL;
	char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_non_null(f);
	alarm(20); /* a deadlock fails the test instead of hanging it */
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_store(&xa, 5, P(5), NULL), 0);
	assert_int_equal(rg_xa_set_mark(&xa, 5, RG_XA_MARK_1), 0);
	rg_xa_lock(&xa);
	assert_ptr_equal(rg_xa_load(&xa, 5), P(5));
	assert_ptr_equal(rg_xa_find(&xa, &i, ULONG_MAX, RG_XA_PRESENT), P(5));
	assert_null(rg_xa_find_after(&xa, &i, ULONG_MAX, RG_XA_PRESENT));
	assert_true(rg_xa_get_mark(&xa, 5, RG_XA_MARK_1));
	assert_false(rg_xa_empty(&xa));
	assert_int_equal(rg_xa_validate(&xa, &why), 0);
	rg_xa_dump(&xa, f);
	assert_true(rg_xa_bytes(&xa) > sizeof(xa));
	assert_true(rg_xa_node_count(&xa) > 0);
	assert_int_equal(rg_xa_store_locked(&xa, 6, P(6), NULL), 0);
	rg_xa_unlock(&xa);
	fclose(f);
	alarm(0);
	/* and the lock is free again for the normal calls */
	assert_ptr_equal(rg_xa_erase(&xa, 6), P(6));
	rg_xa_destroy(&xa);
}

/*
 * Regression: pointers with the low bits 10 (a char pointer at an offset
 * of 2) were refused with -EINVAL at every address; the kernel takes them
 * above its internal entries (4096). They live in leaves: the head, where
 * one would read as the top node, never holds one, and the tree does not
 * shrink a leaf holding one into the head.
 */
static void regress_xa_low_bits_10_pointer(void **state)
{
	static char name[64] __attribute__((aligned(8)));
	struct rg_xarray xa;
	unsigned long id, i;
	void *odd = name + 2, *old = NULL;

	(void)state;
	assert_true(rg_xa_is_internal(odd));
	assert_false(rg_xa_is_reserved_entry(odd));
	rg_xa_init(&xa);
	/* at index 0 of an empty array: a leaf, not the head */
	assert_int_equal(rg_xa_store(&xa, 0, odd, &old), 0);
	RG_ASSERT_VALID(&xa);
	assert_int_equal(rg_xa_node_count(&xa), 1);
	assert_ptr_equal(rg_xa_load(&xa, 0), odd);
	/* over an entry in the head */
	assert_ptr_equal(rg_xa_erase(&xa, 0), odd);
	assert_int_equal(rg_xa_store(&xa, 0, P(1), NULL), 0);
	assert_int_equal(rg_xa_node_count(&xa), 0);
	assert_int_equal(rg_xa_store(&xa, 0, odd, &old), 0);
	assert_ptr_equal(old, P(1));
	RG_ASSERT_VALID(&xa);
	/* growth and shrinking keep it in a leaf */
	assert_int_equal(rg_xa_store(&xa, 1UL << 40, name + 6, NULL), 0);
	RG_ASSERT_VALID(&xa);
	assert_ptr_equal(rg_xa_erase(&xa, 1UL << 40), name + 6);
	RG_ASSERT_VALID(&xa);
	assert_ptr_equal(rg_xa_load(&xa, 0), odd);
	i = 0;
	assert_ptr_equal(rg_xa_find(&xa, &i, ULONG_MAX, RG_XA_PRESENT), odd);
	assert_ptr_equal(rg_xa_erase(&xa, 0), odd);
	assert_true(rg_xa_empty(&xa));
	assert_int_equal(rg_xa_node_count(&xa), 0);
	/* allocation of every offset of a string, as the kernel's tests do */
	rg_xa_destroy(&xa);
	rg_xa_init_flags(&xa, RG_XA_FLAGS_ALLOC);
	for (i = 0; i < 8; i++) {
		assert_int_equal(rg_xa_alloc(&xa, &id, name + i, 0, 100), 0);
		assert_int_equal(id, i);
		RG_ASSERT_VALID(&xa);
	}
	for (i = 0; i < 8; i++)
		assert_ptr_equal(rg_xa_erase(&xa, i), name + i);
	assert_true(rg_xa_empty(&xa));
	/* the reserved range is still refused */
	assert_int_equal(rg_xa_store(&xa, 0, (void *)(uintptr_t)0xffa, NULL),
			 -EINVAL);
	rg_xa_destroy(&xa);
}

/*
 * Regression: cmpxchg compares the raw slot, as the kernel's does, so the
 * zero entry as the expected value matches a reservation (the kernel's
 * "cmpxchg sees a reserved entry as ZERO"); it matched nothing.
 */
static void regress_xa_cmpxchg_zero_entry_old(void **state)
{
	struct rg_xarray xa;
	void *cur = P(1);

	(void)state;
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_reserve(&xa, 12345678), 0);
	assert_int_equal(
		rg_xa_cmpxchg(&xa, 12345678, RG_XA_ZERO_ENTRY, P(2), &cur), 0);
	assert_null(cur); /* the reservation reads as NULL */
	assert_ptr_equal(rg_xa_load(&xa, 12345678), P(2));
	/* without a reservation the zero entry matches nothing */
	assert_int_equal(rg_xa_cmpxchg(&xa, 5, RG_XA_ZERO_ENTRY, P(3), &cur),
			 -EBUSY);
	assert_null(rg_xa_load(&xa, 5));
	/* NULL does not match a reservation */
	assert_int_equal(rg_xa_reserve(&xa, 6), 0);
	assert_int_equal(rg_xa_cmpxchg(&xa, 6, NULL, P(4), &cur), -EBUSY);
	RG_ASSERT_VALID(&xa);
	rg_xa_destroy(&xa);
}

/*
 * Regression: a marked search from a state not yet walked whose index is
 * past the limit moved the state out of bounds; the kernel leaves it as
 * it is (not walked), which its own iteration tests check.
 */
static void regress_xas_find_marked_past_limit(void **state)
{
	struct rg_xarray xa;
	void *entry;

	(void)state;
	rg_xa_init(&xa);
	assert_int_equal(rg_xa_store(&xa, 3, P(3), NULL), 0);
	assert_int_equal(rg_xa_set_mark(&xa, 3, RG_XA_MARK_0), 0);
	RG_XA_STATE(xas, &xa, 9);
	rg_xa_lock(&xa);
	rg_xas_for_each_marked(&xas, entry, 5, RG_XA_MARK_0)
		fail_msg("found %p past the limit", entry);
	assert_ptr_equal(xas.xa_node, RG_XAS_RESTART);
	assert_int_equal(xas.xa_index, 9);
	/* within the limit the search runs as before */
	rg_xas_set(&xas, 2);
	assert_ptr_equal(rg_xas_find_marked(&xas, 5, RG_XA_MARK_0), P(3));
	assert_null(rg_xas_find_marked(&xas, 5, RG_XA_MARK_0));
	assert_ptr_equal(xas.xa_node, RG_XAS_BOUNDS);
	rg_xa_unlock(&xa);
	rg_xa_destroy(&xa);
}

/* The kernel's names map onto the calls above. */
static void test_linux_names(void **state)
{
	DEFINE_XARRAY(array);
	unsigned long seen = 0;
	void *entry;

	(void)state;
	XA_STATE(xas, &array, 100);
	do {
		xas_lock(&xas);
		xas_store(&xas, xa_mk_value(100));
		xas_unlock(&xas);
	} while (xas_nomem(&xas, GFP_KERNEL));
	assert_int_equal(xas_error(&xas), 0);
	xa_lock(&array);
	assert_null(__xa_store(&array, 7, xa_mk_value(7), GFP_KERNEL));
	xa_unlock(&array);
	xa_lock_irq(&array);
	xas_set(&xas, 0);
	xas_for_each(&xas, entry, ULONG_MAX)
	{
		if (xas_retry(&xas, entry))
			continue;
		assert_int_equal(xa_to_value(entry), xas.xa_index);
		seen++;
		xas_set_mark(&xas, XA_MARK_1);
	}
	xa_unlock_irq(&array);
	assert_int_equal(seen, 2);
	assert_true(xa_get_mark(&array, 7, XA_MARK_1));
	assert_true(xa_is_internal(XA_RETRY_ENTRY));
	assert_true(xa_is_retry(XA_RETRY_ENTRY));
	assert_true(xa_is_zero(XA_ZERO_ENTRY));
	assert_int_equal(xa_to_internal(xa_mk_internal(42)), 42);
	assert_int_equal(XA_CHUNK_SIZE, 1 << XA_CHUNK_SHIFT);
	assert_int_equal(BITS_PER_XA_VALUE, sizeof(long) * 8 - 1);
	xa_lock(&array);
	assert_ptr_equal(__xa_erase(&array, 7), xa_mk_value(7));
	xa_unlock(&array);
	xa_destroy(&array);
	{
		DEFINE_XARRAY_ALLOC(ids);
		uint32_t id, next = 5;

		assert_int_equal(xa_alloc_cyclic(&ids, &id, xa_mk_value(1),
						 XA_LIMIT(0, 5), &next,
						 GFP_KERNEL),
				 0);
		assert_int_equal(id, 5);
		assert_int_equal(xa_alloc_cyclic(&ids, &id, xa_mk_value(2),
						 XA_LIMIT(0, 5), &next,
						 GFP_KERNEL),
				 1);
		assert_int_equal(id, 0);
		xa_destroy(&ids);
	}
	{
		DEFINE_XARRAY_ALLOC(a2);
		XA_STATE_ORDER(o0, &a2, 4, 0);
		XA_STATE_ORDER(o3, &a2, 8, 3);
		void *e;
		int n = 0;

		/* an order up to BITS_PER_LONG; above it is -EINVAL */
		assert_int_equal(xas_error(&o0), 0);
		assert_int_equal(xas_error(&o3), 0);
		assert_int_equal(o3.xa_index, 8);
		xas_set_order(&o0, 5, 2);
		assert_int_equal(xas_error(&o0), 0);
		assert_int_equal(o0.xa_index, 4);
		xas_set_order(&o0, 4, RG_BITS_PER_LONG + 1);
		assert_int_equal(xas_error(&o0), -EINVAL);
		xas_set_order(&o0, 4, 0);
		assert_int_equal(xas_error(&o0), 0);
		assert_true(a2.xa_flags & XA_FLAGS_ALLOC);
		assert_null(a2.xa_head);
		assert_null(xa_store(&a2, 4, xa_mk_value(4), GFP_KERNEL));
		assert_ptr_equal(a2.xa_head, a2.rg.head);
		assert_int_equal(xa_get_order(&a2, 4), 0);
		xa_lock(&a2);
		xas_create_range(&o0);
		xas_for_each_conflict(&o0, e)
		{
			assert_ptr_equal(e, xa_mk_value(4));
			assert_int_equal(xas_get_order(&o0), 0);
			n++;
		}
		xa_unlock(&a2);
		assert_int_equal(n, 1);
		xa_destroy(&a2);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_store),
		cmocka_unit_test(test_bad_entry),
		cmocka_unit_test(test_zero_entry),
		cmocka_unit_test(test_retry),
		cmocka_unit_test(test_find_next_prev),
		cmocka_unit_test(test_marks),
		cmocka_unit_test(test_free_mark),
		cmocka_unit_test(test_pause),
		cmocka_unit_test(test_erase_in_loop),
		cmocka_unit_test(test_nomem_faults),
		cmocka_unit_test(test_lockstep),
		cmocka_unit_test(test_alloc_cyclic),
		cmocka_unit_test(test_alloc_cyclic_faults),
		cmocka_unit_test(regress_xa_read_under_lock),
		cmocka_unit_test(regress_xa_low_bits_10_pointer),
		cmocka_unit_test(regress_xa_cmpxchg_zero_entry_old),
		cmocka_unit_test(regress_xas_find_marked_past_limit),
		cmocka_unit_test(test_linux_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
