// SPDX-License-Identifier: MIT
/*
 * Randomized test of the bitmap against a plain bool-array reference:
 * more than 10^6 mixed operations (single bits, ranges, weight, the find
 * calls, both zero-area searches with random alignment masks and offsets,
 * and the power-of-two region calls) on maps of random sizes and densities.
 * Every search result is compared with a brute-force linear search; the
 * whole map is compared with the reference every few operations (every
 * operation in sanitizer builds, where maps are kept small).
 *
 * A second test runs 200,000 random cases of the whole-map calls (equal,
 * fill, copy, complement, replace, both shifts, cut with every kind of
 * overlap, scatter, gather, reads and writes of values, the u32/u64 array
 * conversions, the rank search, every iterator and the clump search, and
 * the kernel names among them) against the same kind of model:
 * sources carry random garbage past their size, which must never leak in,
 * destinations start as random words, and every word a call must not touch
 * is compared with its old value.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "rg_test.h"

#include "region/bitmap.h"
#include "region/linux/bitmap.h"

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

/* ---- whole-map calls ---- */

#define WM_BITS 640
#define WM_WORDS (RG_BITS_TO_LONGS(WM_BITS) + 4)
#define WM_CASES 200000UL
#define WPL RG_BITS_PER_LONG

enum wm_op {
	WM_EQUAL,
	WM_FILL,
	WM_COPY,
	WM_REPLACE,
	WM_SHR,
	WM_SHL,
	WM_CUT,
	WM_ARR32,
	WM_ARR64,
	WM_NTH,
	WM_ITER,
	WM_CLUMP,
	WM_KSETCLR,
	WM_COMPLEMENT,
	WM_READ_WRITE,
	WM_SCATTER,
	WM_GATHER,
	WM_NOPS
};

static struct rg_rand wr;
/* Two guard words before each map (cut writes one word below its source). */
static unsigned long wa_buf[WM_WORDS + 2], wb[WM_WORDS], wm[WM_WORDS];
static unsigned long wd[WM_WORDS], wsave[WM_WORDS + 2];
static unsigned long *const wa = wa_buf + 2;
static bool ra[WM_BITS], rb[WM_BITS], rm[WM_BITS], rx[WM_BITS];
static unsigned long wn, wcase, wm_count[WM_NOPS];
static unsigned long seq[2 * WM_BITS + 4], want_seq[2 * WM_BITS + 4];

static unsigned long rand_word(void)
{
	unsigned long w = rg_rand_next(&wr);

	switch (rg_rand_below(&wr, 6)) {
	case 0:
		return w & rg_rand_next(&wr) & rg_rand_next(&wr); /* sparse */
	case 1:
		return w | rg_rand_next(&wr) | rg_rand_next(&wr); /* dense */
	case 2:
		return 0;
	case 3:
		return ~0UL;
	default:
		return w;
	}
}

/* Random words everywhere, garbage past @wn included; @r gets bits < wn. */
static void rand_map(unsigned long *m, bool *r)
{
	for (unsigned long w = 0; w < WM_WORDS; w++)
		m[w] = rand_word();
	if (rg_rand_below(&wr, 4) == 0 && wn) { /* a long run */
		unsigned long s = rg_rand_below(&wr, wn);
		unsigned long n = rg_rand_range(&wr, 0, wn - s);

		if (rg_rand_below(&wr, 2))
			rg_bitmap_set_range(m, s, n);
		else
			rg_bitmap_clear_range(m, s, n);
	}
	for (unsigned long i = 0; i < wn; i++)
		r[i] = rg_bitmap_test(m, i);
}

/*
 * @dst must hold @want in bits 0 .. wn - 1 and clear tail bits; every word
 * dst[w] for @lo <= w < @hi outside the map must still equal old[w].
 */
static void check_dst(const unsigned long *dst, const bool *want,
		      const unsigned long *old, long lo, long hi,
		      const char *what)
{
	long words = (long)RG_BITS_TO_LONGS(wn);

	for (unsigned long i = 0; i < wn; i++)
		if (rg_bitmap_test(dst, i) != want[i])
			fail_msg("case %lu %s nbits %lu: bit %lu is %d", wcase,
				 what, wn, i, !want[i]);
	if (wn && rg_bitmap_validate(dst, wn, NULL))
		fail_msg("case %lu %s nbits %lu: tail bit set", wcase, what,
			 wn);
	for (long w = lo; w < hi; w++)
		if ((w < 0 || w >= words) && dst[w] != old[w])
			fail_msg("case %lu %s nbits %lu: word %ld touched",
				 wcase, what, wn, w);
}

static unsigned long rand_shift(void)
{
	switch (rg_rand_below(&wr, 5)) {
	case 0:
		return WPL * rg_rand_below(&wr, wn / WPL + 2);
	case 1:
		return wn + rg_rand_below(&wr, 3);
	case 2:
		return rg_rand_below(&wr, 2) ? ~0UL : rg_rand_next(&wr);
	default:
		return rg_rand_below(&wr, wn + 1);
	}
}

static void wm_equal(void)
{
	bool want = true;

	memcpy(wb, wa, sizeof(wb));
	switch (rg_rand_below(&wr, 3)) {
	case 0: /* a flip inside the map */
		if (wn) {
			unsigned long i = rg_rand_below(&wr, wn);

			wb[i / WPL] ^= 1UL << (i % WPL);
			want = false;
		}
		break;
	case 1: /* a flip in the tail or past the map: still equal */
	{
		unsigned long i = wn + rg_rand_below(&wr, 2 * WPL);

		wb[i / WPL] ^= 1UL << (i % WPL);
		break;
	}
	default:
		break;
	}
	assert_int_equal(rg_bitmap_equal(wa, wb, wn), want);
	assert_int_equal(rg_bitmap_equal(wb, wa, wn), want);
	assert_int_equal(bitmap_equal(wa, wb, (unsigned int)wn), want);
}

static void wm_fill_copy(bool fill)
{
	unsigned long words = RG_BITS_TO_LONGS(wn);
	bool kernel = rg_rand_below(&wr, 4) == 0;

	rand_map(wd, rx);
	memcpy(wsave, wd, sizeof(wd));
	if (kernel) {
		/* The kernel's forms: whole words, tail bits included. */
		if (fill)
			bitmap_fill(wd, (unsigned int)wn);
		else
			bitmap_copy(wd, wa, (unsigned int)wn);
		for (unsigned long w = 0; w < WM_WORDS; w++)
			assert_int_equal(wd[w], w >= words ? wsave[w] :
						fill	   ? ~0UL :
							     wa[w]);
		return;
	}
	for (unsigned long i = 0; i < wn; i++)
		rx[i] = fill || ra[i];
	if (fill)
		rg_bitmap_fill(wd, wn);
	else if (rg_rand_below(&wr, 4)) {
		rg_bitmap_copy(wd, wa, wn);
	} else { /* in place */
		memcpy(wd, wa, sizeof(wd));
		memcpy(wsave, wd, sizeof(wd));
		rg_bitmap_copy(wd, wd, wn);
	}
	check_dst(wd, rx, wsave, 0, WM_WORDS, fill ? "fill" : "copy");
}

static void wm_replace(void)
{
	unsigned long *dst = wd;

	rand_map(wb, rb);
	rand_map(wm, rm);
	rand_map(wd, rx);
	for (unsigned long i = 0; i < wn; i++)
		rx[i] = rm[i] ? rb[i] : ra[i];
	switch (rg_rand_below(&wr, 4)) {
	case 1:
		dst = wa;
		break;
	case 2:
		dst = wb;
		break;
	case 3:
		dst = wm;
		break;
	default:
		break;
	}
	memcpy(wsave, dst, sizeof(wd));
	if (rg_rand_below(&wr, 2))
		rg_bitmap_replace(dst, wa, wb, wm, wn);
	else
		bitmap_replace(dst, wa, wb, wm, (unsigned int)wn);
	check_dst(dst, rx, wsave, 0, WM_WORDS, "replace");
	if (dst == wa) /* keep wa's model in step */
		for (unsigned long i = 0; i < wn; i++)
			ra[i] = rx[i];
}

static void wm_shift(bool right)
{
	unsigned long s = rand_shift();
	bool in_place = rg_rand_below(&wr, 3) == 0;
	unsigned long *dst = in_place ? wa : wd;

	for (unsigned long i = 0; i < wn; i++) {
		if (right)
			rx[i] = s < wn - i ? ra[i + s] : false;
		else
			rx[i] = i >= s ? ra[i - s] : false;
	}
	if (!in_place)
		rand_map(wd, rb);
	memcpy(wsave, dst, sizeof(wd));
	if (rg_rand_below(&wr, 4) || s > UINT_MAX) {
		if (right)
			rg_bitmap_shift_right(dst, wa, s, wn);
		else
			rg_bitmap_shift_left(dst, wa, s, wn);
	} else if (right) {
		bitmap_shift_right(dst, wa, (unsigned int)s, (unsigned int)wn);
	} else {
		bitmap_shift_left(dst, wa, (unsigned int)s, (unsigned int)wn);
	}
	check_dst(dst, rx, wsave, 0, WM_WORDS, right ? "shr" : "shl");
	if (in_place)
		for (unsigned long i = 0; i < wn; i++)
			ra[i] = rx[i];
}

static void wm_cut(void)
{
	unsigned long first, cut, *dst, nb = wn, size = wn;
	unsigned int mode = (unsigned int)rg_rand_below(&wr, 6);
	bool kernel = rg_rand_below(&wr, 4) == 0;

	switch (rg_rand_below(&wr, 4)) {
	case 0:
		first = 0;
		break;
	case 1:
		first = wn ? wn - 1 : 0;
		break;
	case 2:
		first = wn + rg_rand_below(&wr, 3);
		break;
	default:
		first = rg_rand_below(&wr, wn + 1);
		break;
	}
	switch (rg_rand_below(&wr, 4)) {
	case 0:
		cut = wn > first ? wn - first : 0; /* exactly to the end */
		break;
	case 1:
		cut = rand_shift();
		break;
	default:
		cut = rg_rand_below(&wr, wn + 1);
		break;
	}
	kernel = kernel && first <= UINT_MAX && cut <= UINT_MAX;
	if (kernel) {
		/*
		 * The kernel's cut also moves the bits past nbits in the
		 * source's last word down: model a map of whole words.
		 */
		nb = RG_BITS_TO_LONGS(wn) * WPL;
		for (unsigned long i = wn; i < nb; i++)
			ra[i] = rg_bitmap_test(wa, i);
	}
	for (unsigned long i = 0; i < nb; i++) {
		if (i < first)
			rx[i] = ra[i];
		else
			rx[i] = cut < nb - i ? ra[i + cut] : false;
	}
	/* separate, in place, one or two words below, one or two above */
	if (mode == 0) {
		rand_map(wd, rb);
		dst = wd;
	} else if (mode == 1) {
		dst = wa;
	} else if (mode <= 3) {
		dst = wa - (mode - 1);
	} else {
		dst = wa + (mode - 3);
	}
	wa_buf[0] = rg_rand_next(&wr);
	wa_buf[1] = rg_rand_next(&wr);
	memcpy(wsave, wa_buf, sizeof(wa_buf));
	if (mode == 0)
		memcpy(wsave + 2, wd, sizeof(wd));
	if (kernel)
		bitmap_cut(dst, wa, (unsigned int)first, (unsigned int)cut,
			   (unsigned int)wn);
	else
		rg_bitmap_cut(dst, wa, first, cut, wn);
	wn = nb; /* check the whole-word map for the kernel's form */
	/* Words the cut must not touch: past dst's map, within the buffers. */
	if (mode == 0) {
		check_dst(dst, rx, wsave + 2, 0, WM_WORDS, "cut");
	} else {
		long off = (long)(dst - wa_buf);

		check_dst(dst, rx, wsave + off, -off, WM_WORDS + 2 - off,
			  "cut");
	}
	wn = size;
	if (mode >= 1) /* wa changed: re-read its model */
		for (unsigned long i = 0; i < wn; i++)
			ra[i] = rg_bitmap_test(wa, i);
}

static void wm_arrays(bool wide)
{
	uint32_t a32[WM_BITS / 32 + 2], s32[WM_BITS / 32 + 2];
	uint64_t a64[WM_BITS / 64 + 2], s64[WM_BITS / 64 + 2];
	unsigned long n32 = (wn + 31) / 32, n64 = (wn + 63) / 64;

	for (size_t i = 0; i < sizeof(a32) / sizeof(a32[0]); i++)
		a32[i] = s32[i] = (uint32_t)rg_rand_next(&wr);
	for (size_t i = 0; i < sizeof(a64) / sizeof(a64[0]); i++)
		a64[i] = s64[i] = rg_rand_next(&wr);
	if (wide) {
		if (rg_rand_below(&wr, 2))
			rg_bitmap_to_arr64(a64, wa, wn);
		else
			bitmap_to_arr64(a64, wa, (unsigned int)wn);
		for (unsigned long i = 0; i < n64 * 64; i++)
			if (((a64[i / 64] >> (i % 64)) & 1) !=
			    (i < wn && ra[i]))
				fail_msg("case %lu to_arr64 nbits %lu bit %lu",
					 wcase, wn, i);
		for (size_t i = n64; i < sizeof(a64) / sizeof(a64[0]); i++)
			assert_int_equal(a64[i], s64[i]);
		/* garbage past wn in the array must not come back */
		if (wn % 64)
			a64[n64 - 1] |= ~0ULL << (wn % 64);
	} else {
		if (rg_rand_below(&wr, 2))
			rg_bitmap_to_arr32(a32, wa, wn);
		else
			bitmap_to_arr32(a32, wa, (unsigned int)wn);
		for (unsigned long i = 0; i < n32 * 32; i++)
			if (((a32[i / 32] >> (i % 32)) & 1) !=
			    (i < wn && ra[i]))
				fail_msg("case %lu to_arr32 nbits %lu bit %lu",
					 wcase, wn, i);
		for (size_t i = n32; i < sizeof(a32) / sizeof(a32[0]); i++)
			assert_int_equal(a32[i], s32[i]);
		if (wn % 32)
			a32[n32 - 1] |= ~0U << (wn % 32);
	}
	rand_map(wd, rb);
	memcpy(wsave, wd, sizeof(wd));
	if (wide)
		rg_bitmap_from_arr64(wd, a64, wn);
	else if (rg_rand_below(&wr, 2))
		rg_bitmap_from_arr32(wd, a32, wn);
	else
		bitmap_from_arr32(wd, a32, (unsigned int)wn);
	check_dst(wd, ra, wsave, 0, WM_WORDS,
		  wide ? "from_arr64" : "from_arr32");
}

static void wm_nth(void)
{
	unsigned long rank = 0;

	for (unsigned long i = 0; i < wn; i++)
		if (ra[i]) {
			want_seq[rank++] = i;
		}
	for (int k = 0; k < 4; k++) {
		unsigned long n = rg_rand_below(&wr, rank + 2);
		unsigned long want = n < rank ? want_seq[n] : wn;

		assert_int_equal(rg_bitmap_find_nth_bit(wa, wn, n), want);
		assert_int_equal(find_nth_bit(wa, wn, n), want);
	}
	assert_int_equal(rg_bitmap_find_nth_bit(wa, wn, ~0UL), wn);
}

/* The model's sequence for iterator @kind from @from; returns its length. */
static unsigned long model_iter(unsigned int kind, unsigned long from)
{
	unsigned long n = 0, s0 = from < wn ? from : 0, i, e;

	switch (kind) {
	case 0: /* set bits from @from */
	case 1: /* clear bits from @from */
		for (i = from; i < wn; i++)
			if (ra[i] == (kind == 0))
				want_seq[n++] = i;
		break;
	case 2: /* wrap */
		for (i = 0; i < wn; i++)
			if (ra[(s0 + i) % wn])
				want_seq[n++] = (s0 + i) % wn;
		break;
	default: /* 3: set runs, 4: clear runs, from @from */
		for (i = from; i < wn;) {
			if (ra[i] != (kind == 3)) {
				i++;
				continue;
			}
			for (e = i; e < wn && ra[e] == (kind == 3); e++)
				;
			want_seq[n++] = i;
			want_seq[n++] = e;
			i = e;
		}
		break;
	}
	return n;
}

static void wm_iter(void)
{
	unsigned int kind = (unsigned int)rg_rand_below(&wr, 5);
	bool from0 = rg_rand_below(&wr, 3) == 0;
	unsigned long from = from0 ? 0 : rg_rand_below(&wr, wn + 3);
	unsigned long n = 0, want_n, bit, b, e;
	unsigned int ubit;

	if (kind == 2)
		from = rg_rand_below(&wr, wn + 3);
	want_n = model_iter(kind, from);
	switch (kind) {
	case 0:
		if (from0 && rg_rand_below(&wr, 2)) {
			for_each_set_bit(ubit, wa, wn) seq[n++] = ubit;
			bit = ubit;
		} else if (from0) {
			RG_BITMAP_FOR_EACH_SET_BIT(bit, wa, wn)
			seq[n++] = bit;
		} else {
			bit = from;
			RG_BITMAP_FOR_EACH_SET_BIT_FROM(bit, wa, wn)
			seq[n++] = bit;
		}
		assert_true(bit >= wn);
		break;
	case 1:
		if (from0) {
			RG_BITMAP_FOR_EACH_CLEAR_BIT(bit, wa, wn)
			seq[n++] = bit;
		} else if (rg_rand_below(&wr, 2)) {
			bit = from;
			RG_BITMAP_FOR_EACH_CLEAR_BIT_FROM(bit, wa, wn)
			seq[n++] = bit;
		} else {
			ubit = (unsigned int)from;
			for_each_clear_bit_from(ubit, wa, wn) seq[n++] = ubit;
		}
		break;
	case 2:
		if (rg_rand_below(&wr, 2)) {
			RG_BITMAP_FOR_EACH_SET_BIT_WRAP(bit, wa, wn, from)
			seq[n++] = bit;
		} else {
			for_each_set_bit_wrap(ubit, wa, wn, from) seq[n++] =
				ubit;
		}
		break;
	case 3:
		if (from0) {
			RG_BITMAP_FOR_EACH_SET_BITRANGE(b, e, wa, wn)
			{
				seq[n++] = b;
				seq[n++] = e;
			}
		} else {
			b = from;
			RG_BITMAP_FOR_EACH_SET_BITRANGE_FROM(b, e, wa, wn)
			{
				seq[n++] = b;
				seq[n++] = e;
			}
		}
		break;
	default:
		if (from0) {
			RG_BITMAP_FOR_EACH_CLEAR_BITRANGE(b, e, wa, wn)
			{
				seq[n++] = b;
				seq[n++] = e;
			}
		} else {
			b = from;
			RG_BITMAP_FOR_EACH_CLEAR_BITRANGE_FROM(b, e, wa, wn)
			{
				seq[n++] = b;
				seq[n++] = e;
			}
		}
		break;
	}
	if (n != want_n || memcmp(seq, want_seq, n * sizeof(seq[0])))
		fail_msg("case %lu iterator %u from %lu nbits %lu: %lu items, "
			 "want %lu",
			 wcase, kind, from, wn, n, want_n);
}

static void wm_clump(void)
{
	unsigned long n = 0, start, clump, off, want, v;

	RG_BITMAP_FOR_EACH_SET_CLUMP8(start, clump, wa, wn)
	{
		seq[n++] = start;
		seq[n++] = clump;
	}
	want = 0;
	for (unsigned long g = 0; g < wn; g += 8) {
		v = 0;
		for (unsigned long i = g; i < g + 8 && i < wn; i++)
			v |= (unsigned long)ra[i] << (i - g);
		if (v) {
			want_seq[want++] = g;
			want_seq[want++] = v;
		}
	}
	if (n != want || memcmp(seq, want_seq, n * sizeof(seq[0])))
		fail_msg("case %lu clump8 nbits %lu: %lu items, want %lu",
			 wcase, wn, n, want);
	/* one search from an unaligned offset */
	off = rg_rand_below(&wr, wn + 2);
	for (want = off; want < wn && !ra[want]; want++)
		;
	clump = 12345;
	start = find_next_clump8(&clump, wa, wn, off);
	if (want >= wn) {
		assert_int_equal(start, wn);
		assert_int_equal(clump, 12345);
		return;
	}
	want -= want % 8;
	v = 0;
	for (unsigned long i = want; i < want + 8 && i < wn; i++)
		v |= (unsigned long)ra[i] << (i - want);
	assert_int_equal(start, want);
	assert_int_equal(clump, v);
}

static void wm_kernel_set_clear(void)
{
	unsigned long s = rg_rand_below(&wr, wn + 1);
	long len = (long)rg_rand_range(&wr, 0, wn - s) -
		   (rg_rand_below(&wr, 8) ? 0 : (long)rg_rand_below(&wr, 5));
	bool set = rg_rand_below(&wr, 2);

	/* a valid map: no tail bits (the words past it keep their garbage) */
	rg_bitmap_clear_range(wa, wn, RG_BITS_TO_LONGS(wn) * WPL - wn);
	memcpy(wsave, wa, sizeof(wb));
	if (set)
		__bitmap_set(wa, (unsigned int)s, (int)len);
	else
		__bitmap_clear(wa, (unsigned int)s, (int)len);
	for (long i = 0; i < len; i++)
		ra[s + (unsigned long)i] = set;
	/* bits past the map (garbage) untouched as well */
	check_dst(wa, ra, wsave, 0, WM_WORDS, "__bitmap_set/clear");
}

static void bitmap_gather_ul(unsigned long *d, const unsigned long *src,
			     const unsigned long *mask, unsigned long n)
{
	bitmap_gather(d, src, mask, (unsigned int)n);
}

static void bitmap_scatter_ul(unsigned long *d, const unsigned long *src,
			      const unsigned long *mask, unsigned long n)
{
	bitmap_scatter(d, src, mask, (unsigned int)n);
}

static void wm_complement(void)
{
	bool in_place = rg_rand_below(&wr, 3) == 0;
	unsigned long *dst = in_place ? wa : wd;

	for (unsigned long i = 0; i < wn; i++)
		rx[i] = !ra[i];
	if (!in_place)
		rand_map(wd, rb);
	memcpy(wsave, dst, sizeof(wd));
	if (rg_rand_below(&wr, 2))
		rg_bitmap_complement(dst, wa, wn);
	else
		bitmap_complement(dst, wa, (unsigned int)wn);
	check_dst(dst, rx, wsave, 0, WM_WORDS, "complement");
	if (in_place)
		for (unsigned long i = 0; i < wn; i++)
			ra[i] = rx[i];
}

static void wm_read_write(void)
{
	unsigned long nb, start, v, want = 0;

	if (!wn)
		return;
	nb = rg_rand_range(&wr, 1, wn < WPL ? wn : WPL);
	start = rg_rand_below(&wr, wn - nb + 1);
	for (unsigned long i = 0; i < nb; i++)
		want |= (unsigned long)ra[start + i] << i;
	assert_int_equal(rg_bitmap_read(wa, start, nb), want);
	assert_int_equal(bitmap_read(wa, start, nb), want);
	v = rand_word();
	memcpy(wsave, wa, sizeof(wb));
	for (unsigned long i = 0; i < wn; i++)
		rx[i] = i >= start && i < start + nb ? (v >> (i - start)) & 1 :
						       ra[i];
	if (rg_rand_below(&wr, 2))
		rg_bitmap_write(wa, v, start, nb);
	else
		bitmap_write(wa, v, start, nb);
	/* every other bit, tail and words past the map included, kept */
	for (unsigned long i = 0; i < WM_WORDS * WPL; i++)
		if (i >= start && i < start + nb) {
			assert_int_equal(rg_bitmap_test(wa, i), rx[i]);
		} else if (rg_bitmap_test(wa, i) != rg_bitmap_test(wsave, i)) {
			fail_msg("case %lu write nbits %lu at %lu width %lu: "
				 "bit %lu changed",
				 wcase, wn, start, nb, i);
		}
	for (unsigned long i = 0; i < wn; i++)
		ra[i] = rx[i];
}

/* Scatter (@gather false) or gather wa under the mask wm into wd. */
static void wm_scatter_gather(bool gather)
{
	unsigned long j = 0;

	rand_map(wm, rm);
	rand_map(wd, rb);
	memcpy(wsave, wd, sizeof(wd));
	for (unsigned long i = 0; i < wn; i++)
		rx[i] = false;
	for (unsigned long i = 0; i < wn; i++) {
		if (!rm[i])
			continue;
		if (gather)
			rx[j] = ra[i];
		else
			rx[i] = ra[j];
		j++;
	}
	if (gather)
		(rg_rand_below(&wr, 2) ? rg_bitmap_gather :
					 bitmap_gather_ul)(wd, wa, wm, wn);
	else
		(rg_rand_below(&wr, 2) ? rg_bitmap_scatter :
					 bitmap_scatter_ul)(wd, wa, wm, wn);
	check_dst(wd, rx, wsave, 0, WM_WORDS, gather ? "gather" : "scatter");
}

static void test_random_whole_map(void **state)
{
	(void)state;
	rg_rand_seed(&wr, rg_test_seed() ^ 0x9e3779b97f4a7c15ULL);
	for (wcase = 0; wcase < WM_CASES; wcase++) {
		enum wm_op op = (enum wm_op)rg_rand_below(&wr, WM_NOPS);

		switch (rg_rand_below(&wr, 8)) {
		case 0:
			wn = rg_rand_below(&wr, 40) ? rg_rand_below(&wr, 9) : 0;
			break;
		case 1:
		case 2:
			wn = WPL * rg_rand_range(&wr, 1, WM_BITS / WPL) +
			     rg_rand_range(&wr, 0, 2) - 1;
			break;
		default:
			wn = rg_rand_range(&wr, 1, WM_BITS);
			break;
		}
		if (wn > WM_BITS)
			wn = WM_BITS;
		rand_map(wa, ra);
		switch (op) {
		case WM_EQUAL:
			wm_equal();
			break;
		case WM_FILL:
		case WM_COPY:
			wm_fill_copy(op == WM_FILL);
			break;
		case WM_REPLACE:
			wm_replace();
			break;
		case WM_SHR:
		case WM_SHL:
			wm_shift(op == WM_SHR);
			break;
		case WM_CUT:
			wm_cut();
			break;
		case WM_ARR32:
		case WM_ARR64:
			wm_arrays(op == WM_ARR64);
			break;
		case WM_NTH:
			wm_nth();
			break;
		case WM_ITER:
			wm_iter();
			break;
		case WM_CLUMP:
			wm_clump();
			break;
		case WM_KSETCLR:
			wm_kernel_set_clear();
			break;
		case WM_COMPLEMENT:
			wm_complement();
			break;
		case WM_READ_WRITE:
			wm_read_write();
			break;
		default:
			wm_scatter_gather(op == WM_GATHER);
			break;
		}
		wm_count[op]++;
	}
	printf("# %lu whole-map cases:", wcase);
	for (int k = 0; k < WM_NOPS; k++)
		printf(" %lu", wm_count[k]);
	printf("\n");
	for (int k = 0; k < WM_NOPS; k++)
		assert_true(wm_count[k] > WM_CASES / WM_NOPS / 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_ops),
		cmocka_unit_test(test_random_whole_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
