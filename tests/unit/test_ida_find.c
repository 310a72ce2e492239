// SPDX-License-Identifier: MIT
/*
 * Unit tests of the IDA's range lookups, rg_ida_find_first_range() (the
 * lowest allocated ID) and rg_ida_find_free_range() (the lowest free one):
 * bad input with its documented errors and nothing changed; hand-made cases
 * in each chunk form (nothing, a value entry, a bitmap, a full bitmap), at
 * chunk edges and at INT_MAX; that a lookup never allocates (fault
 * injection armed on the first allocation) and changes nothing; and a
 * randomized lockstep run against a bool-array model over five chunks,
 * with lookups from random ranges after every mutation.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "region/ida.h"
#include "rg_test.h"

#define NONE UINT_MAX

/* The lookup's answer, or NONE for -ENOENT (any other result fails). */
static unsigned int used_in(struct rg_ida *ida, unsigned int min,
			    unsigned int max)
{
	unsigned int id = 4242;
	int err = rg_ida_find_first_range(ida, min, max, &id);

	if (err == -ENOENT) {
		assert_int_equal(id, 4242);
		return NONE;
	}
	assert_int_equal(err, 0);
	return id;
}

static unsigned int free_in(struct rg_ida *ida, unsigned int min,
			    unsigned int max)
{
	unsigned int id = 4242;
	int err = rg_ida_find_free_range(ida, min, max, &id);

	if (err == -ENOENT) {
		assert_int_equal(id, 4242);
		return NONE;
	}
	assert_int_equal(err, 0);
	return id;
}

static void take(struct rg_ida *ida, unsigned int first, unsigned int last)
{
	unsigned int id;

	for (unsigned long i = first; i <= last; i++) {
		assert_int_equal(rg_ida_alloc_range(ida, (unsigned int)i,
						    (unsigned int)i, &id),
				 0);
		assert_int_equal(id, i);
	}
}

static void test_bad_input(void **state)
{
	RG_DEFINE_IDA(ida);
	unsigned int id = 7;

	(void)state;
	assert_int_equal(rg_ida_find_first_range(NULL, 0, 9, &id), -EINVAL);
	assert_int_equal(rg_ida_find_first_range(&ida, 0, 9, NULL), -EINVAL);
	assert_int_equal(rg_ida_find_free_range(NULL, 0, 9, &id), -EINVAL);
	assert_int_equal(rg_ida_find_free_range(&ida, 0, 9, NULL), -EINVAL);
	assert_int_equal(rg_ida_find_first(NULL, &id), -EINVAL);
	assert_int_equal(id, 7);
	take(&ida, 0, 9);
	/* min > max, min past INT_MAX: nothing to find, nothing changes */
	assert_int_equal(used_in(&ida, 5, 4), NONE);
	assert_int_equal(free_in(&ida, 12, 11), NONE);
	assert_int_equal(used_in(&ida, (unsigned int)INT_MAX + 1, UINT_MAX),
			 NONE);
	assert_int_equal(free_in(&ida, (unsigned int)INT_MAX + 1, UINT_MAX),
			 NONE);
	/* max past INT_MAX means INT_MAX */
	assert_int_equal(used_in(&ida, 3, UINT_MAX), 3);
	assert_int_equal(free_in(&ida, 3, UINT_MAX), 10);
	RG_ASSERT_VALID(&ida);
	rg_ida_destroy(&ida);
}

static void test_empty(void **state)
{
	RG_DEFINE_IDA(ida);
	unsigned int id = 7;

	(void)state;
	assert_int_equal(rg_ida_find_first(&ida, &id), -ENOENT);
	assert_int_equal(id, 7);
	assert_int_equal(used_in(&ida, 0, UINT_MAX), NONE);
	assert_int_equal(free_in(&ida, 0, 0), 0);
	assert_int_equal(free_in(&ida, 5000, 6000), 5000);
	assert_int_equal(free_in(&ida, INT_MAX, INT_MAX), INT_MAX);
	assert_true(rg_ida_is_empty(&ida));
	RG_ASSERT_VALID(&ida);
}

/* A value chunk (IDs below 63 only): bits and the free IDs above them. */
static void test_value_chunk(void **state)
{
	RG_DEFINE_IDA(ida);

	(void)state;
	take(&ida, 3, 5);
	take(&ida, 62, 62);
	assert_int_equal(rg_ida_bitmap_count(&ida), 0);
	assert_int_equal(used_in(&ida, 0, 1023), 3);
	assert_int_equal(used_in(&ida, 4, 1023), 4);
	assert_int_equal(used_in(&ida, 6, 1023), 62);
	assert_int_equal(used_in(&ida, 6, 61), NONE);
	assert_int_equal(used_in(&ida, 63, UINT_MAX), NONE);
	assert_int_equal(free_in(&ida, 3, 1023), 6);
	assert_int_equal(free_in(&ida, 62, 1023), 63);
	assert_int_equal(free_in(&ida, 62, 62), NONE);
	assert_int_equal(free_in(&ida, 100, 1023), 100);
	/* the next chunk's first ID after a value chunk */
	assert_int_equal(free_in(&ida, 1023, 5000), 1023);
	RG_ASSERT_VALID(&ida);
	rg_ida_destroy(&ida);
}

/* Bitmaps, a full chunk (skipped by the free mark) and chunk edges. */
static void test_bitmap_chunks(void **state)
{
	RG_DEFINE_IDA(ida);

	(void)state;
	take(&ida, 1000, 3071); /* chunk 0's top, chunks 1 and 2 full */
	take(&ida, 5000, 5000);
	assert_true(rg_ida_bitmap_count(&ida) >= 3);
	assert_int_equal(used_in(&ida, 0, UINT_MAX), 1000);
	assert_int_equal(used_in(&ida, 1023, 1023), 1023);
	assert_int_equal(used_in(&ida, 2500, 9999), 2500);
	assert_int_equal(used_in(&ida, 3071, 9999), 3071);
	assert_int_equal(used_in(&ida, 3072, 9999), 5000);
	assert_int_equal(used_in(&ida, 3072, 4999), NONE);
	assert_int_equal(used_in(&ida, 5001, UINT_MAX), NONE);
	assert_int_equal(free_in(&ida, 0, 9999), 0);
	assert_int_equal(free_in(&ida, 1000, 9999), 3072);
	assert_int_equal(free_in(&ida, 1024, 3071), NONE);
	assert_int_equal(free_in(&ida, 1500, 3072), 3072);
	assert_int_equal(free_in(&ida, 5000, 5000), NONE);
	assert_int_equal(free_in(&ida, 5000, 5001), 5001);
	/* the last ID of a partly searched chunk */
	take(&ida, 3072, 4094);
	assert_int_equal(free_in(&ida, 1000, 9999), 4095);
	assert_int_equal(used_in(&ida, 4095, 9999), 5000);
	RG_ASSERT_VALID(&ida);
	rg_ida_destroy(&ida);
}

/* The top of the ID space. */
static void test_int_max(void **state)
{
	RG_DEFINE_IDA(ida);

	(void)state;
	take(&ida, INT_MAX - 2, INT_MAX);
	assert_int_equal(used_in(&ida, 0, UINT_MAX), INT_MAX - 2);
	assert_int_equal(used_in(&ida, INT_MAX, UINT_MAX), INT_MAX);
	assert_int_equal(used_in(&ida, 0, INT_MAX - 3), NONE);
	assert_int_equal(free_in(&ida, INT_MAX - 2, UINT_MAX), NONE);
	assert_int_equal(free_in(&ida, INT_MAX - 1000, UINT_MAX),
			 INT_MAX - 1000);
	assert_int_equal(free_in(&ida, INT_MAX - 3, UINT_MAX), INT_MAX - 3);
	RG_ASSERT_VALID(&ida);
	rg_ida_destroy(&ida);
}

/* Below the search hint (every ID below it taken) and after frees. */
static void test_after_frees(void **state)
{
	RG_DEFINE_IDA(ida);

	(void)state;
	take(&ida, 0, 2047);
	assert_int_equal(free_in(&ida, 0, 9999), 2048);
	assert_int_equal(rg_ida_free(&ida, 1500), 0);
	assert_int_equal(free_in(&ida, 0, 9999), 1500);
	assert_int_equal(free_in(&ida, 1501, 9999), 2048);
	assert_int_equal(used_in(&ida, 1500, 9999), 1501);
	for (unsigned int i = 0; i < 1500; i++)
		assert_int_equal(rg_ida_free(&ida, i), 0);
	assert_int_equal(used_in(&ida, 0, 9999), 1501);
	assert_int_equal(free_in(&ida, 0, 9999), 0);
	/* chunk 0 released: the walk goes straight to chunk 1 */
	for (unsigned int i = 1501; i < 1024 * 2; i++)
		assert_int_equal(rg_ida_free(&ida, i), 0);
	assert_true(rg_ida_is_empty(&ida));
	assert_int_equal(used_in(&ida, 0, UINT_MAX), NONE);
	RG_ASSERT_VALID(&ida);
}

/* Lookups never allocate and change nothing. */
static void test_no_allocation(void **state)
{
	RG_DEFINE_IDA(ida);
	size_t bytes;
	unsigned int id;

	(void)state;
	take(&ida, 10, 70);
	take(&ida, 4000, 4200);
	bytes = rg_ida_bytes(&ida);
	for (unsigned int m = 0; m < 5000; m += 37) {
		rg_fault_inject(1);
		(void)rg_ida_find_first_range(&ida, m, m + 500, &id);
		(void)rg_ida_find_free_range(&ida, m, m + 500, &id);
		assert_false(rg_fault_fired());
		rg_fault_inject(0);
	}
	assert_int_equal(rg_ida_bytes(&ida), bytes);
	assert_int_equal(used_in(&ida, 0, UINT_MAX), 10);
	assert_int_equal(free_in(&ida, 10, UINT_MAX), 71);
	RG_ASSERT_VALID(&ida);
	rg_ida_destroy(&ida);
}

/* ---- lockstep against a model ---- */

#define SPACE (5 * 1024)

static bool model[SPACE];

static unsigned int model_find(bool used, unsigned int min, unsigned int max)
{
	for (unsigned long i = min; i <= max && i < SPACE; i++)
		if (model[i] == used)
			return (unsigned int)i;
	/* past the model's space every ID is free */
	if (!used && max >= SPACE)
		return min > SPACE ? min : SPACE;
	return NONE;
}

static void check_lookups(struct rg_ida *ida, struct rg_rand *rng,
			  unsigned long step)
{
	for (int k = 0; k < 6; k++) {
		unsigned int a = (unsigned int)rg_rand_below(rng, SPACE + 64);
		unsigned int b = k == 0 ? UINT_MAX :
				 k == 1 ? a :
					  a + (unsigned int)rg_rand_below(
						      rng, k == 2 ? 64 : 3000);

		if (used_in(ida, a, b) != model_find(true, a, b) ||
		    free_in(ida, a, b) != model_find(false, a, b))
			fail_msg("step %lu [%u, %u]: used %u want %u, free %u "
				 "want %u",
				 step, a, b, used_in(ida, a, b),
				 model_find(true, a, b), free_in(ida, a, b),
				 model_find(false, a, b));
	}
}

static void test_lockstep(void **state)
{
	RG_DEFINE_IDA(ida);
	struct rg_rand rng;
	unsigned long steps = RG_THOROUGH ? 6000 : 30000, live = 0, full = 0;
	unsigned int id;

	(void)state;
	rg_rand_seed(&rng, rg_test_seed());
	memset(model, 0, sizeof(model));
	for (unsigned long i = 0; i < steps; i++) {
		/* phases: fill densely (full chunks), then thin out */
		bool fill = (i / 2000) % 2 == 0 ? rg_rand_below(&rng, 4) != 0 :
						  rg_rand_below(&rng, 64) == 0;
		unsigned int a = (unsigned int)rg_rand_below(&rng, SPACE);

		if (fill && live < SPACE) {
			/* up to 64 IDs from a: chunks fill up */
			unsigned long k = rg_rand_range(&rng, 1, 64);

			while (k--) {
				unsigned int want =
					model_find(false, a, SPACE - 1);

				if (want == NONE)
					break;
				assert_int_equal(rg_ida_alloc_range(&ida, a,
								    SPACE - 1,
								    &id),
						 0);
				assert_int_equal(id, want);
				model[id] = true;
				live++;
			}
		} else if (live) {
			unsigned int u = model_find(true, a, SPACE - 1);

			if (u == NONE)
				u = model_find(true, 0, SPACE - 1);
			assert_int_equal(rg_ida_free(&ida, u), 0);
			model[u] = false;
			live--;
		}
		RG_ASSERT_VALIDF(&ida, "step %lu", i);
		check_lookups(&ida, &rng, i);
		full += free_in(&ida, 1024, 2047) == NONE;
	}
	printf("# %lu steps, %lu IDs live at the end, %lu full chunks seen\n",
	       steps, live, full);
	rg_ida_destroy(&ida);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_value_chunk),
		cmocka_unit_test(test_bitmap_chunks),
		cmocka_unit_test(test_int_max),
		cmocka_unit_test(test_after_frees),
		cmocka_unit_test(test_no_allocation),
		cmocka_unit_test(test_lockstep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
