// SPDX-License-Identifier: MIT
/*
 * The single-word fast paths of <region/linux/bitmap.h>: for every size
 * 1 .. 64 given as a compile-time constant (each instantiated by a macro,
 * so the fast path is the one compiled), random words, starts, offsets and
 * shifts, every kernel-name call with a fast path gives the same result,
 * and leaves the same destination word, as the out-of-line path: the
 * rg_bitmap_* call where the wrapper has one, else the same wrapper with a
 * size the compiler cannot see. Word 1 of every map is a guard that no
 * call may touch. The program is built with optimisation (meson adds -O2)
 * and checks first that the fast path folds constants, as the kernel's
 * test_bitmap_const_eval() does at build time, so it cannot pass by
 * comparing the out-of-line path with itself.
 */
#include <stdbool.h>
#include <string.h>

#include "rg_rand.h"
#include "rg_test.h"

#include "region/bitmap.h"
#include "region/linux/bitmap.h"

#define BPL RG_BITS_PER_LONG
#define ROUNDS 200
#define GUARD 0x5a5a5a5a5a5a5a5aUL

static struct rg_rand rng;

/* @n as the compiler cannot see it: the wrappers take the rg_ call. */
static unsigned int hide(unsigned int n)
{
	volatile unsigned int v = n;

	return v;
}

/* A random word of one of several densities. */
static unsigned long word(void)
{
	unsigned long a = (unsigned long)rg_rand_next(&rng);
	unsigned long b = (unsigned long)rg_rand_next(&rng);

	switch (rg_rand_below(&rng, 6)) {
	case 0:
		return 0;
	case 1:
		return ~0UL;
	case 2:
		return a & b & (unsigned long)rg_rand_next(&rng);
	case 3:
		return a | b | (unsigned long)rg_rand_next(&rng);
	case 4:
		return 1UL << (a % BPL);
	default:
		return a;
	}
}

#define EXPECT_EQ(n, what, got, want)                                          \
	do {                                                                   \
		unsigned long g_ = (unsigned long)(got);                       \
		unsigned long w_ = (unsigned long)(want);                      \
		if (g_ != w_)                                                  \
			fail_msg(                                              \
				"nbits %u: %s: inline %#lx, out of line %#lx", \
				(n), (what), g_, w_);                          \
	} while (0)

/* Both maps' words, the destination and its guard. */
#define EXPECT_MAPS(n, what, fast, slow)                         \
	do {                                                     \
		EXPECT_EQ(n, what, (fast)[0], (slow)[0]);        \
		EXPECT_EQ(n, what " (guard)", (fast)[1], GUARD); \
		EXPECT_EQ(n, what " (guard)", (slow)[1], GUARD); \
	} while (0)

/* A destination pair holding the same random word and the guard. */
#define FRESH(fast, slow)                       \
	do {                                    \
		(fast)[0] = (slow)[0] = word(); \
		(fast)[1] = (slow)[1] = GUARD;  \
	} while (0)

static __attribute__((always_inline)) inline void
check_ranges(unsigned int n, unsigned int start, unsigned int nr)
{
	unsigned long f[2], s[2];

	FRESH(f, s);
	bitmap_set(f, start, nr);
	rg_bitmap_set_range(s, start, nr);
	EXPECT_MAPS(n, "bitmap_set", f, s);
	FRESH(f, s);
	bitmap_clear(f, start, nr);
	rg_bitmap_clear_range(s, start, nr);
	EXPECT_MAPS(n, "bitmap_clear", f, s);
}

/* Every call with a fast path, at the constant size @n. */
static __attribute__((always_inline)) inline void check_size(unsigned int n)
{
	unsigned long a[2], b[2], f[2], s[2];
	unsigned int h = hide(n);

#ifdef __OPTIMIZE__
	if (!__builtin_constant_p(n))
		fail_msg("nbits %u is not a compile-time constant here", n);
#endif
	if (n > BPL)
		return;
	check_ranges(n, 0, n);
	check_ranges(n, n - 1, 1);
	check_ranges(n, n / 2, n - n / 2);
	check_ranges(n, n / 3, n / 3 + 1);
	for (int r = 0; r < ROUNDS; r++) {
		unsigned long off = rg_rand_below(&rng, n + 3);
		unsigned int sh = (unsigned int)rg_rand_below(&rng, n + 3);

		a[0] = word();
		b[0] = rg_rand_below(&rng, 2) ?
			       a[0] ^ (1UL << rg_rand_below(&rng, BPL)) :
			       a[0];
		a[1] = b[1] = GUARD;

		EXPECT_EQ(n, "bitmap_weight", bitmap_weight(a, n),
			  rg_bitmap_weight(a, n));
		EXPECT_EQ(n, "bitmap_equal", bitmap_equal(a, b, n),
			  rg_bitmap_equal(a, b, n));
		EXPECT_EQ(n, "bitmap_empty", bitmap_empty(a, n),
			  bitmap_empty(a, h));
		EXPECT_EQ(n, "bitmap_full", bitmap_full(a, n),
			  bitmap_full(a, h));
		EXPECT_EQ(n, "find_next_bit", find_next_bit(a, n, off),
			  rg_bitmap_find_next_bit(a, n, off));
		EXPECT_EQ(n, "find_next_zero_bit",
			  find_next_zero_bit(a, n, off),
			  rg_bitmap_find_next_zero_bit(a, n, off));
		EXPECT_EQ(n, "find_first_bit", find_first_bit(a, n),
			  rg_bitmap_find_next_bit(a, n, 0));
		EXPECT_EQ(n, "find_first_zero_bit", find_first_zero_bit(a, n),
			  rg_bitmap_find_next_zero_bit(a, n, 0));
		EXPECT_EQ(n, "find_last_bit", find_last_bit(a, n),
			  rg_bitmap_find_last_bit(a, n));

		FRESH(f, s);
		bitmap_shift_right(f, a, sh, n);
		rg_bitmap_shift_right(s, a, sh, n);
		EXPECT_MAPS(n, "bitmap_shift_right", f, s);
		FRESH(f, s);
		bitmap_shift_left(f, a, sh, n);
		rg_bitmap_shift_left(s, a, sh, n);
		EXPECT_MAPS(n, "bitmap_shift_left", f, s);
		FRESH(f, s);
		bitmap_complement(f, a, n);
		rg_bitmap_complement(s, a, n);
		EXPECT_MAPS(n, "bitmap_complement", f, s);
		/* In place, as the kernel's test calls them. */
		f[0] = s[0] = a[0];
		bitmap_shift_right(f, f, sh, n);
		rg_bitmap_shift_right(s, s, sh, n);
		EXPECT_MAPS(n, "bitmap_shift_right in place", f, s);
		f[0] = s[0] = a[0];
		bitmap_complement(f, f, n);
		rg_bitmap_complement(s, s, n);
		EXPECT_MAPS(n, "bitmap_complement in place", f, s);
		/* Whole words, tail included, on both paths. */
		FRESH(f, s);
		bitmap_zero(f, n);
		bitmap_zero(s, h);
		EXPECT_MAPS(n, "bitmap_zero", f, s);
		FRESH(f, s);
		bitmap_fill(f, n);
		bitmap_fill(s, h);
		EXPECT_MAPS(n, "bitmap_fill", f, s);
		FRESH(f, s);
		bitmap_copy(f, a, n);
		bitmap_copy(s, a, h);
		EXPECT_MAPS(n, "bitmap_copy", f, s);
	}
	/* NULL maps: no-ops and the rg_ calls' answers. */
	EXPECT_EQ(n, "bitmap_weight NULL", bitmap_weight(NULL, n), 0);
	EXPECT_EQ(n, "bitmap_equal NULL", bitmap_equal(NULL, a, n), false);
	EXPECT_EQ(n, "find_next_bit NULL", find_next_bit(NULL, n, 0), n);
	EXPECT_EQ(n, "find_last_bit NULL", find_last_bit(NULL, n), n);
	bitmap_set(NULL, 0, n);
	bitmap_complement(NULL, a, n);
}

/* Sizes b + 1 .. b + 8, one function each so the compiler keeps up. */
#define SIZES8(b)                         \
	static void sizes_after_##b(void) \
	{                                 \
		check_size(b + 1);        \
		check_size(b + 2);        \
		check_size(b + 3);        \
		check_size(b + 4);        \
		check_size(b + 5);        \
		check_size(b + 6);        \
		check_size(b + 7);        \
		check_size(b + 8);        \
	}
SIZES8(0)
SIZES8(8)
SIZES8(16)
SIZES8(24)
SIZES8(32)
SIZES8(40)
SIZES8(48)
SIZES8(56)

static void test_every_constant_size(void **state)
{
	(void)state;
	rg_rand_seed(&rng, rg_test_seed());
	sizes_after_0();
	sizes_after_8();
	sizes_after_16();
	sizes_after_24();
	/* Sizes past BITS_PER_LONG (32-bit) have no fast path: skipped. */
	sizes_after_32();
	sizes_after_40();
	sizes_after_48();
	sizes_after_56();
}

/*
 * The kernel's test_bitmap_const_eval() sequence: with constant operands
 * every result folds to a constant. Without optimisation nothing folds and
 * only the values are checked.
 */
static void test_folds_to_constants(void **state)
{
	DECLARE_BITMAP(map, BITS_PER_LONG) = { ~0UL };
	unsigned long shifted = 0, var = 1UL << 25;
	unsigned int weight;
	int clear18, full;

	(void)state;
	bitmap_clear(map, 0, BITS_PER_LONG);
	if (!test_bit(7, map))
		bitmap_set(map, 5, 2);
	__change_bit(31, &shifted);
	bitmap_shift_right(&shifted, &shifted, 11, BITS_PER_LONG);
	weight = bitmap_weight(map, 20);
	clear18 = !test_bit(18, &shifted);
	bitmap_complement(&var, &var, BITS_PER_LONG);
	__assign_bit(25, &var, true);
	full = bitmap_full(&var, BITS_PER_LONG);
	assert_int_equal(weight, 2);
	assert_true(clear18);
	assert_int_equal(shifted, 1UL << 20);
	assert_true(full);
#ifdef __OPTIMIZE__
	assert_true(__builtin_constant_p(weight));
	assert_true(__builtin_constant_p(clear18));
	assert_true(__builtin_constant_p(shifted));
	assert_true(__builtin_constant_p(full));
#else
	printf("# built without optimisation: folding not checked\n");
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folds_to_constants),
		cmocka_unit_test(test_every_constant_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
