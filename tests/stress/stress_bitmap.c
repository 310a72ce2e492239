// SPDX-License-Identifier: MIT
/*
 * Randomized test of the bitmap against a plain bool-array reference:
 * more than 10^6 mixed operations (single bits, ranges, weight, the find
 * calls, both zero-area searches with random alignment masks and offsets,
 * and the power-of-two region calls) on maps of random sizes and densities.
 * Every search result is compared with a brute-force linear search; the
 * whole map is compared with the reference every few operations (every
 * operation in sanitizer builds, where maps are kept small).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "rg_test.h"

#include "region/bitmap.h"

#define MAX_BITS 1600
#define TOTAL_OPS 1100000UL

static RG_DECLARE_BITMAP(map, MAX_BITS + 64);
static bool ref[MAX_BITS];
static unsigned long prefix[MAX_BITS + 1];
static unsigned long nbits;
static struct rg_rand rng;
static unsigned long searches, found;

static void ref_set(unsigned long s, unsigned long n, bool v)
{
	for (unsigned long i = s; i < s + n; i++)
		ref[i] = v;
}

static void compare_all(void)
{
	const char *why;

	assert_int_equal(rg_bitmap_validate(map, nbits, &why), 0);
	for (unsigned long i = 0; i < nbits; i++)
		if (rg_bitmap_test(map, i) != ref[i])
			fail_msg("bit %lu of %lu differs", i, nbits);
}

/* Prefix sums of set bits, for O(1) window checks in the brute force. */
static void build_prefix(void)
{
	prefix[0] = 0;
	for (unsigned long i = 0; i < nbits; i++)
		prefix[i + 1] = prefix[i] + ref[i];
}

static bool ref_clear(unsigned long s, unsigned long n)
{
	return prefix[s + n] == prefix[s];
}

static unsigned long brute_area(unsigned long start, unsigned long nr,
				unsigned long mask, unsigned long off)
{
	if (nr == 0 || nr > nbits)
		return nbits;
	for (unsigned long i = start; i + nr <= nbits; i++)
		if (((i + off) & mask) == 0 && ref_clear(i, nr))
			return i;
	return nbits;
}

static unsigned long rand_len(unsigned long max)
{
	/* Mostly short, sometimes long, sometimes the whole map. */
	switch (rg_rand_below(&rng, 8)) {
	case 0:
		return rg_rand_range(&rng, 0, max);
	case 1:
		return max;
	case 2:
	case 3:
		return rg_rand_range(&rng, 0, max < 64 ? max : 64);
	default:
		return rg_rand_range(&rng, 0, max < 8 ? max : 8);
	}
}

static unsigned long rand_mask(void)
{
	switch (rg_rand_below(&rng, 10)) {
	case 0:
	case 1:
	case 2:
	case 3:
		return 0;
	case 4:
		return rg_rand_next(&rng) & 0x7f; /* any small mask */
	case 5:
		return rg_rand_next(&rng); /* any mask at all */
	default:
		return (1UL << rg_rand_below(&rng, 10)) - 1;
	}
}

static unsigned long rand_off(void)
{
	switch (rg_rand_below(&rng, 6)) {
	case 0:
		return rg_rand_next(&rng);
	case 1:
	case 2:
		return rg_rand_below(&rng, 1024);
	default:
		return 0;
	}
}

static void op_search(void)
{
	unsigned long nr, start, mask, off, want, a, b;

	build_prefix();
	nr = rg_rand_below(&rng, 50) ? rand_len(nbits) : rand_len(nbits + 3);
	start = rg_rand_below(&rng, 3) ? rg_rand_below(&rng, nbits / 4 + 1) :
					 rg_rand_below(&rng, nbits + 3);
	mask = rand_mask();
	off = rand_off();
	want = brute_area(start, nr, mask, off);
	a = rg_bitmap_find_next_zero_area_off(map, nbits, start, nr, mask, off);
	b = rg_bitmap_find_next_zero_area_naive(map, nbits, start, nr, mask,
						off);
	if (a != want || b != want)
		fail_msg("zero area size %lu start %lu nr %lu mask %#lx off "
			 "%#lx: got %lu / %lu, want %lu",
			 nbits, start, nr, mask, off, a, b, want);
	if (!off)
		assert_int_equal(rg_bitmap_find_next_zero_area(map, nbits,
							       start, nr, mask),
				 want);
	searches++;
	found += want < nbits;
}

static void op_find(void)
{
	unsigned long off = rg_rand_below(&rng, nbits + 2);
	unsigned long size =
		rg_rand_below(&rng, 4) ? nbits : rg_rand_below(&rng, nbits + 1);
	unsigned long want_set = size, want_zero = size, want_last = size;

	for (unsigned long i = off; i < size; i++)
		if (ref[i]) {
			want_set = i;
			break;
		}
	for (unsigned long i = off; i < size; i++)
		if (!ref[i]) {
			want_zero = i;
			break;
		}
	for (unsigned long i = size; i-- > 0;)
		if (ref[i]) {
			want_last = i;
			break;
		}
	assert_int_equal(rg_bitmap_find_next_bit(map, size, off), want_set);
	assert_int_equal(rg_bitmap_find_next_zero_bit(map, size, off),
			 want_zero);
	assert_int_equal(rg_bitmap_find_last_bit(map, size), want_last);
	if (off == 0) {
		assert_int_equal(rg_bitmap_find_first_bit(map, size), want_set);
		assert_int_equal(rg_bitmap_find_first_zero_bit(map, size),
				 want_zero);
	}
}

static void op_range_query(void)
{
	unsigned long s = rg_rand_below(&rng, nbits + 1);
	unsigned long n = rand_len(nbits - s);
	unsigned long w = 0;
	bool all_clear = true, all_set = true;

	for (unsigned long i = s; i < s + n; i++) {
		all_clear &= !ref[i];
		all_set &= ref[i];
	}
	assert_int_equal(rg_bitmap_range_is_clear(map, s, n), all_clear);
	assert_int_equal(rg_bitmap_range_is_set(map, s, n), all_set);
	for (unsigned long i = 0; i < s + n; i++)
		w += ref[i];
	assert_int_equal(rg_bitmap_weight(map, s + n), w);
}

static void op_regions(void)
{
	unsigned int order = (unsigned int)rg_rand_below(&rng, 11);
	unsigned long n = 1UL << order, pos = ~0UL, want = ~0UL;
	int err;

	build_prefix();
	switch (rg_rand_below(&rng, 3)) {
	case 0:
		for (unsigned long p = 0; p + n <= nbits; p += n)
			if (ref_clear(p, n)) {
				want = p;
				break;
			}
		err = rg_bitmap_find_free_region(map, nbits, order, &pos);
		if (want == ~0UL) {
			assert_int_equal(err, -ENOMEM);
			assert_int_equal(pos, ~0UL);
		} else {
			assert_int_equal(err, 0);
			assert_int_equal(pos, want);
			ref_set(pos, n, true);
		}
		break;
	case 1:
		if (n > nbits)
			return;
		pos = rg_rand_below(&rng, nbits - n + 1);
		err = rg_bitmap_allocate_region(map, pos, order);
		assert_int_equal(err, ref_clear(pos, n) ? 0 : -EBUSY);
		if (!err)
			ref_set(pos, n, true);
		break;
	default:
		if (n > nbits)
			return;
		pos = rg_rand_below(&rng, nbits - n + 1);
		rg_bitmap_release_region(map, pos, order);
		ref_set(pos, n, false);
		break;
	}
}

static void op_mutate(unsigned int density)
{
	bool set = rg_rand_below(&rng, 100) < density;
	unsigned long s = rg_rand_below(&rng, nbits);
	unsigned long n;

	if (rg_rand_below(&rng, 2)) {
		if (set)
			rg_bitmap_set(map, s);
		else
			rg_bitmap_clear(map, s);
		ref[s] = set;
		return;
	}
	n = rand_len(nbits - s);
	if (set)
		rg_bitmap_set_range(map, s, n);
	else
		rg_bitmap_clear_range(map, s, n);
	ref_set(s, n, set);
}

static void test_random_ops(void **state)
{
	static const unsigned int densities[] = { 2, 20, 50, 80, 97 };
	unsigned long ops = 0, rounds = 0;
	unsigned long check_every = RG_THOROUGH ? 1 : 16;
	/* Small maps where every operation is checked against the model. */
	unsigned long max_bits = RG_THOROUGH ? 512 : MAX_BITS;

	(void)state;
	rg_rand_seed(&rng, rg_test_seed());
	while (ops < TOTAL_OPS) {
		unsigned int density = densities[rg_rand_below(
			&rng, sizeof(densities) / sizeof(densities[0]))];
		unsigned long round_ops = 500 + rg_rand_below(&rng, 3000);

		/* Sizes near word boundaries matter most. */
		if (rg_rand_below(&rng, 2))
			nbits = 64 * rg_rand_range(&rng, 1, max_bits / 64) +
				rg_rand_range(&rng, 0, 2) - 1;
		else
			nbits = rg_rand_range(&rng, 1, max_bits);
		if (nbits > max_bits)
			nbits = max_bits;
		memset(map, 0, sizeof(map));
		memset(ref, 0, sizeof(ref));
		/* Start each round at its density. */
		for (unsigned long i = 0; i < nbits; i++)
			if (rg_rand_below(&rng, 100) < density) {
				rg_bitmap_set(map, i);
				ref[i] = true;
			}
		for (unsigned long k = 0; k < round_ops; k++, ops++) {
			unsigned int r = (unsigned int)rg_rand_below(&rng, 100);

			if (r < 40)
				op_mutate(density);
			else if (r < 70)
				op_search();
			else if (r < 82)
				op_find();
			else if (r < 92)
				op_range_query();
			else
				op_regions();
			if (k % check_every == 0)
				compare_all();
		}
		compare_all();
		rounds++;
	}
	printf("# %lu operations in %lu rounds; %lu zero-area searches, "
	       "%lu found a run\n",
	       ops, rounds, searches, found);
	/* The searches must have exercised both outcomes. */
	assert_true(found > searches / 10);
	assert_true(found < searches - searches / 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_ops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
