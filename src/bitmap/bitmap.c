// SPDX-License-Identifier: MIT
/*
 * bitmap: theory of operation.
 *
 * Layout: bit i lives in map[i / BPL] at position i % BPL (BPL = bits per
 * unsigned long), the kernel's layout. Every call works a word at a time:
 * range updates build a mask for the first and last word and store whole
 * words in between; searches load a word, mask off the bits outside the
 * range, and use count-trailing/leading-zeros to find a bit, so a run of
 * empty (or full) words costs one compare per 64 bits.
 *
 * Zero-area search (rg_bitmap_find_next_zero_area_off): the candidate index i
 * starts at the first clear bit at or after @start, is rounded up to the next
 * index that satisfies the alignment, and the window [i, i + nr) is checked.
 * The window is scanned from its top word down, so the first set bit found
 * is the window's last set bit L: no window starting at or below L can fit,
 * and the search resumes at L + 1 (the kernel's 2026 speed-up). Bits between
 * L and the window's end are then known to be clear; the next window only
 * scans the part beyond that known-clear stretch, so every bit of the map is
 * loaded at most about once per search. The naive variant resumes after the
 * window's first set bit and rescans, as the kernel did before 2026.
 *
 * Alignment: the condition is ((i + off) & mask) == 0. The smallest j >= x
 * with (j & mask) == 0 is found without a loop: if x has mask bits set, set
 * every bit of x up to its highest set mask bit, then add one "through" the
 * mask (OR the mask in, add 1, clear the mask). That works for any mask, not
 * only 2^k - 1, and all arithmetic is modulo 2^64, so an offset that wraps
 * the sum is handled too; the distance moved is what is added to i, with an
 * overflow check.
 *
 * Whole-map calls (equal, fill, copy, complement, replace, the shifts, cut,
 * scatter, gather, the array conversions) loop over words; only the last word
 * is masked. A shift by s builds each result word from two source words,
 * s / BPL words away, with the source's tail masked off so that it never shifts
 * into the map. Right shifts run upwards and left shifts downwards, so either
 * works in place. Cut is a copy (memmove, so any overlap works) followed by an
 * in-place right shift of the words from the one holding the first cut bit,
 * whose bits below the cut are then put back.
 *
 * Rank search (find_nth_bit) counts whole words with a population count,
 * then finds the bit inside the right word by halving the window six times
 * (log2 of the word size), counting the lower half each time.
 *
 * Invariants: no call sets a tail bit (past the map's size in its last word);
 * searches never read past the word that holds bit size - 1. Nothing here
 * allocates except rg_bitmap_zalloc(), which uses rgi_calloc() and so honours
 * fault injection. Limits: sizes and indices are unsigned long; the caller
 * keeps ranges inside the map.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "region/bitmap.h"
#include "rg_internal.h"

#define BPL RG_BITS_PER_LONG

static inline unsigned long ctzl(unsigned long w)
{
	return (unsigned long)__builtin_ctzl(w);
}

static inline unsigned long fls_idx(unsigned long w)
{
	return BPL - 1 - (unsigned long)__builtin_clzl(w);
}

/* Mask of the bits at and above position @start % BPL in a word. */
static inline unsigned long first_word_mask(unsigned long start)
{
	return ~0UL << (start % BPL);
}

/* Mask of the bits below position @end % BPL; all bits when it is 0. */
static inline unsigned long last_word_mask(unsigned long end)
{
	return ~0UL >> ((BPL - end % BPL) % BPL);
}

void rg_bitmap_set_range(unsigned long *map, unsigned long start,
			 unsigned long nr)
{
	unsigned long end = start + nr, w, lw;

	if (!nr || unlikely(!map))
		return;
	w = start / BPL;
	lw = (end - 1) / BPL;
	if (w == lw) {
		map[w] |= first_word_mask(start) & last_word_mask(end);
		return;
	}
	map[w++] |= first_word_mask(start);
	while (w < lw)
		map[w++] = ~0UL;
	map[lw] |= last_word_mask(end);
}

void rg_bitmap_clear_range(unsigned long *map, unsigned long start,
			   unsigned long nr)
{
	unsigned long end = start + nr, w, lw;

	if (!nr || unlikely(!map))
		return;
	w = start / BPL;
	lw = (end - 1) / BPL;
	if (w == lw) {
		map[w] &= ~(first_word_mask(start) & last_word_mask(end));
		return;
	}
	map[w++] &= ~first_word_mask(start);
	while (w < lw)
		map[w++] = 0;
	map[lw] &= ~last_word_mask(end);
}

/*
 * Lowest bit in [offset, size) whose value XOR @invert is 1 (invert = 0:
 * set bits; ~0: clear bits), or @size.
 */
static inline unsigned long next_bit(const unsigned long *map,
				     unsigned long size, unsigned long offset,
				     unsigned long invert)
{
	unsigned long w, lw, word, r;

	if (unlikely(offset >= size))
		return size;
	w = offset / BPL;
	lw = (size - 1) / BPL;
	word = (map[w] ^ invert) & first_word_mask(offset);
	if (!word) {
		/* Skip four uninteresting words per test while we can. */
		w++;
		if (invert) {
			while (w + 4 <= lw + 1 &&
			       (map[w] & map[w + 1] & map[w + 2] &
				map[w + 3]) == ~0UL)
				w += 4;
		} else {
			while (w + 4 <= lw + 1 &&
			       !(map[w] | map[w + 1] | map[w + 2] | map[w + 3]))
				w += 4;
		}
		for (;; w++) {
			if (w > lw)
				return size;
			word = map[w] ^ invert;
			if (word)
				break;
		}
	}
	r = w * BPL + ctzl(word);
	return r < size ? r : size;
}

/*
 * Highest bit in [lo, hi) whose value XOR @invert is 1, or @hi. lo < hi.
 */
static inline unsigned long last_bit_in(const unsigned long *map,
					unsigned long lo, unsigned long hi,
					unsigned long invert)
{
	unsigned long w = (hi - 1) / BPL, lw = lo / BPL;
	unsigned long word = (map[w] ^ invert) & last_word_mask(hi);

	for (;;) {
		if (w == lw)
			word &= first_word_mask(lo);
		if (word)
			return w * BPL + fls_idx(word);
		if (w == lw)
			return hi;
		word = map[--w] ^ invert;
	}
}

bool rg_bitmap_range_is_clear(const unsigned long *map, unsigned long start,
			      unsigned long nr)
{
	if (!nr)
		return true;
	if (unlikely(!map))
		return false;
	return next_bit(map, start + nr, start, 0) == start + nr;
}

bool rg_bitmap_range_is_set(const unsigned long *map, unsigned long start,
			    unsigned long nr)
{
	if (!nr)
		return true;
	if (unlikely(!map))
		return false;
	return next_bit(map, start + nr, start, ~0UL) == start + nr;
}

unsigned long rg_bitmap_weight(const unsigned long *map, unsigned long nbits)
{
	unsigned long n = 0, w, full = nbits / BPL;

	if (unlikely(!map))
		return 0;
	for (w = 0; w < full; w++)
		n += (unsigned long)__builtin_popcountl(map[w]);
	if (nbits % BPL)
		n += (unsigned long)__builtin_popcountl(map[w] &
							last_word_mask(nbits));
	return n;
}

unsigned long rg_bitmap_find_next_bit(const unsigned long *map,
				      unsigned long size, unsigned long offset)
{
	return likely(map) ? next_bit(map, size, offset, 0) : size;
}

unsigned long rg_bitmap_find_next_zero_bit(const unsigned long *map,
					   unsigned long size,
					   unsigned long offset)
{
	return likely(map) ? next_bit(map, size, offset, ~0UL) : size;
}

unsigned long rg_bitmap_find_last_bit(const unsigned long *map,
				      unsigned long size)
{
	if (!size || unlikely(!map))
		return size;
	return last_bit_in(map, 0, size, 0);
}

/*
 * Position of the set bit of rank @n (0: the lowest) in @word, which has
 * more than @n set bits: halve the window while counting, no bit loop.
 */
static inline unsigned long select_in_word(unsigned long word, unsigned long n)
{
	unsigned long pos = 0, half, low;

	for (half = BPL / 2; half; half /= 2) {
		low = (unsigned long)__builtin_popcountl(word &
							 ((1UL << half) - 1));
		if (n >= low) {
			n -= low;
			word >>= half;
			pos += half;
		}
	}
	return pos;
}

unsigned long rg_bitmap_find_nth_bit(const unsigned long *map,
				     unsigned long size, unsigned long n)
{
	unsigned long w, lw, word, c;

	if (!size || unlikely(!map))
		return size;
	lw = (size - 1) / BPL;
	for (w = 0; w <= lw; w++) {
		word = map[w];
		if (w == lw)
			word &= last_word_mask(size);
		c = (unsigned long)__builtin_popcountl(word);
		if (n < c)
			return w * BPL + select_in_word(word, n);
		n -= c;
	}
	return size;
}

unsigned long rg_bitmap_find_next_clump8(unsigned long *clump,
					 const unsigned long *map,
					 unsigned long size,
					 unsigned long offset)
{
	unsigned long bit, v;

	if (unlikely(!map || !clump))
		return size;
	bit = next_bit(map, size, offset, 0);
	if (bit >= size)
		return size;
	bit -= bit % 8;
	v = (map[bit / BPL] >> (bit % BPL)) & 0xff;
	if (size - bit < 8)
		v &= (1UL << (size - bit)) - 1;
	*clump = v;
	return bit;
}

bool rg_bitmap_equal(const unsigned long *a, const unsigned long *b,
		     unsigned long nbits)
{
	unsigned long w, full = nbits / BPL;

	if (!nbits)
		return true;
	if (unlikely(!a || !b))
		return false;
	for (w = 0; w < full; w++)
		if (a[w] != b[w])
			return false;
	return !(nbits % BPL) || !((a[w] ^ b[w]) & last_word_mask(nbits));
}

/* Clear the tail bits of an @nbits map's last word (nbits > 0). */
static inline void clear_tail(unsigned long *map, unsigned long nbits)
{
	map[(nbits - 1) / BPL] &= last_word_mask(nbits);
}

void rg_bitmap_fill(unsigned long *map, unsigned long nbits)
{
	unsigned long w, lw;

	if (!nbits || unlikely(!map))
		return;
	lw = (nbits - 1) / BPL;
	for (w = 0; w < lw; w++)
		map[w] = ~0UL;
	map[lw] = last_word_mask(nbits);
}

void rg_bitmap_copy(unsigned long *dst, const unsigned long *src,
		    unsigned long nbits)
{
	if (!nbits || unlikely(!dst || !src))
		return;
	memmove(dst, src, RG_BITS_TO_LONGS(nbits) * sizeof(unsigned long));
	clear_tail(dst, nbits);
}

void rg_bitmap_replace(unsigned long *dst, const unsigned long *old_map,
		       const unsigned long *new_map, const unsigned long *mask,
		       unsigned long nbits)
{
	unsigned long w, words = RG_BITS_TO_LONGS(nbits);

	if (!nbits || unlikely(!dst || !old_map || !new_map || !mask))
		return;
	for (w = 0; w < words; w++)
		dst[w] = (old_map[w] & ~mask[w]) | (new_map[w] & mask[w]);
	clear_tail(dst, nbits);
}

/*
 * Word @i of an @nbits map whose last word is @lw, without its tail bits;
 * 0 past the last word.
 */
static inline unsigned long src_word(const unsigned long *src, unsigned long i,
				     unsigned long lw, unsigned long nbits)
{
	if (i < lw)
		return src[i];
	return i == lw ? src[lw] & last_word_mask(nbits) : 0;
}

/*
 * dst = src >> shift over @nbits bits. Word k of the result is built from
 * source words k + off and k + off + 1, read before word k is written, so
 * ascending order works in place.
 */
static void shift_right(unsigned long *dst, const unsigned long *src,
			unsigned long shift, unsigned long nbits)
{
	unsigned long lw = (nbits - 1) / BPL, off, rem, k, lo, hi;

	if (shift >= nbits) {
		memset(dst, 0, (lw + 1) * sizeof(unsigned long));
		return;
	}
	off = shift / BPL;
	rem = shift % BPL;
	for (k = 0; k + off <= lw; k++) {
		lo = src_word(src, k + off, lw, nbits);
		if (rem) {
			hi = src_word(src, k + off + 1, lw, nbits);
			lo = (lo >> rem) | (hi << (BPL - rem));
		}
		dst[k] = lo;
	}
	for (; k <= lw; k++)
		dst[k] = 0;
}

void rg_bitmap_shift_right(unsigned long *dst, const unsigned long *src,
			   unsigned long shift, unsigned long nbits)
{
	if (nbits && likely(dst && src))
		shift_right(dst, src, shift, nbits);
}

void rg_bitmap_shift_left(unsigned long *dst, const unsigned long *src,
			  unsigned long shift, unsigned long nbits)
{
	unsigned long lw, off, rem, k, hi;

	if (!nbits || unlikely(!dst || !src))
		return;
	lw = (nbits - 1) / BPL;
	if (shift >= nbits) {
		memset(dst, 0, (lw + 1) * sizeof(unsigned long));
		return;
	}
	off = shift / BPL;
	rem = shift % BPL;
	/* Descending: word k reads source words k - off and k - off - 1. */
	for (k = lw + 1; k-- > off;) {
		hi = src[k - off];
		if (rem) {
			hi <<= rem;
			if (k > off)
				hi |= src[k - off - 1] >> (BPL - rem);
		}
		dst[k] = hi;
	}
	for (k = 0; k < off; k++)
		dst[k] = 0;
	clear_tail(dst, nbits);
}

void rg_bitmap_cut(unsigned long *dst, const unsigned long *src,
		   unsigned long first, unsigned long cut, unsigned long nbits)
{
	unsigned long w0, keep;

	if (!nbits || unlikely(!dst || !src))
		return;
	if (dst != src)
		memmove(dst, src,
			RG_BITS_TO_LONGS(nbits) * sizeof(unsigned long));
	clear_tail(dst, nbits);
	if (!cut || first >= nbits)
		return;
	if (cut >= nbits - first) {
		rg_bitmap_clear_range(dst, first, nbits - first);
		return;
	}
	/*
	 * Shift the words from the one holding @first down by @cut, in place,
	 * then restore that word's bits below @first.
	 */
	w0 = first / BPL;
	keep = dst[w0] & ~first_word_mask(first);
	shift_right(dst + w0, dst + w0, cut, nbits - w0 * BPL);
	dst[w0] = (dst[w0] & first_word_mask(first)) | keep;
}

void rg_bitmap_complement(unsigned long *dst, const unsigned long *src,
			  unsigned long nbits)
{
	unsigned long w, words = RG_BITS_TO_LONGS(nbits);

	if (!nbits || unlikely(!dst || !src))
		return;
	for (w = 0; w < words; w++)
		dst[w] = ~src[w];
	clear_tail(dst, nbits);
}

/* Mask of the low @nbits bits, 1 <= nbits <= BPL. */
static inline unsigned long low_mask(unsigned long nbits)
{
	return ~0UL >> (BPL - nbits);
}

unsigned long rg_bitmap_read(const unsigned long *map, unsigned long start,
			     unsigned long nbits)
{
	unsigned long w = start / BPL, off = start % BPL, v;

	if (!nbits || nbits > BPL || unlikely(!map))
		return 0;
	v = map[w] >> off;
	if (off + nbits > BPL) /* spans two words; off > 0 here */
		v |= map[w + 1] << (BPL - off);
	return v & low_mask(nbits);
}

void rg_bitmap_write(unsigned long *map, unsigned long value,
		     unsigned long start, unsigned long nbits)
{
	unsigned long w = start / BPL, off = start % BPL, mask;

	if (!nbits || nbits > BPL || unlikely(!map))
		return;
	mask = low_mask(nbits);
	value &= mask;
	map[w] = (map[w] & ~(mask << off)) | (value << off);
	if (off + nbits > BPL) {
		map[w + 1] = (map[w + 1] & ~(mask >> (BPL - off))) |
			     (value >> (BPL - off));
	}
}

/*
 * Scatter and gather visit the set bits of each mask word by clearing its
 * lowest set bit in turn (as many steps as the mask has set bits), and
 * build each destination word in a register.
 */
void rg_bitmap_scatter(unsigned long *dst, const unsigned long *src,
		       const unsigned long *mask, unsigned long nbits)
{
	unsigned long words = RG_BITS_TO_LONGS(nbits), w, m, v, k = 0;

	if (unlikely(!dst || !src || !mask))
		return;
	for (w = 0; w < words; w++) {
		m = mask[w];
		if (w == words - 1)
			m &= last_word_mask(nbits);
		for (v = 0; m; m &= m - 1, k++)
			if (rg_bitmap_test(src, k))
				v |= m & -m;
		dst[w] = v;
	}
}

void rg_bitmap_gather(unsigned long *dst, const unsigned long *src,
		      const unsigned long *mask, unsigned long nbits)
{
	unsigned long words = RG_BITS_TO_LONGS(nbits), w, m, s, v = 0, k = 0;

	if (!nbits || unlikely(!dst || !src || !mask))
		return;
	for (w = 0; w < words; w++) {
		m = mask[w];
		if (w == words - 1)
			m &= last_word_mask(nbits);
		for (s = src[w]; m; m &= m - 1) {
			v |= ((s >> ctzl(m)) & 1) << (k % BPL);
			if (++k % BPL == 0) {
				dst[k / BPL - 1] = v;
				v = 0;
			}
		}
	}
	/* The partial word, then zeros up to the map's end. */
	for (w = k / BPL; w < words; w++, v = 0)
		dst[w] = v;
}

/*
 * The array conversions work for any long of 32 or 64 bits: each 32-bit
 * element is a piece of one long (or, with 32-bit longs, one long), and
 * each 64-bit element spans one long or two.
 */
void rg_bitmap_from_arr32(unsigned long *map, const uint32_t *buf,
			  unsigned long nbits)
{
	unsigned long n = (nbits + 31) / 32, per = BPL / 32, w, j, v;

	if (!nbits || unlikely(!map || !buf))
		return;
	for (w = 0; w * per < n; w++) {
		v = 0;
		for (j = 0; j < per && w * per + j < n; j++)
			v |= (unsigned long)buf[w * per + j] << (32 * j);
		map[w] = v;
	}
	clear_tail(map, nbits);
}

void rg_bitmap_to_arr32(uint32_t *buf, const unsigned long *map,
			unsigned long nbits)
{
	unsigned long n = (nbits + 31) / 32, i;

	if (!nbits || unlikely(!buf || !map))
		return;
	for (i = 0; i < n; i++)
		buf[i] = (uint32_t)(map[i * 32 / BPL] >> (i * 32 % BPL));
	if (nbits % 32)
		buf[n - 1] &= (uint32_t)((1UL << (nbits % 32)) - 1);
}

void rg_bitmap_from_arr64(unsigned long *map, const uint64_t *buf,
			  unsigned long nbits)
{
	unsigned long words = RG_BITS_TO_LONGS(nbits), w;

	if (!nbits || unlikely(!map || !buf))
		return;
	for (w = 0; w < words; w++)
		map[w] = (unsigned long)(buf[w * BPL / 64] >> (w * BPL % 64));
	clear_tail(map, nbits);
}

void rg_bitmap_to_arr64(uint64_t *buf, const unsigned long *map,
			unsigned long nbits)
{
	unsigned long words = RG_BITS_TO_LONGS(nbits), n = (nbits + 63) / 64;
	unsigned long per = 64 / BPL, i, j;
	uint64_t v;

	if (!nbits || unlikely(!buf || !map))
		return;
	for (i = 0; i < n; i++) {
		v = 0;
		for (j = 0; j < per && i * per + j < words; j++)
			v |= (uint64_t)map[i * per + j] << (BPL * j);
		buf[i] = v;
	}
	if (nbits % 64)
		buf[n - 1] &= ((uint64_t)1 << (nbits % 64)) - 1;
}

/*
 * Distance from @x to the smallest y >= x (mod 2^64 arithmetic) with
 * (y & mask) == 0. See the theory of operation.
 */
static inline unsigned long align_distance(unsigned long x, unsigned long mask)
{
	unsigned long hit = x & mask, w, y;

	if (likely(!hit))
		return 0;
	w = x | ((2UL << fls_idx(hit)) - 1);
	y = ((w | mask) + 1) & ~mask;
	return y - x;
}

/*
 * Round @i up to the alignment; false if that passes @limit (or overflows).
 */
static inline bool align_index(unsigned long *i, unsigned long limit,
			       unsigned long mask, unsigned long off)
{
	unsigned long d = align_distance(*i + off, mask);

	if (unlikely(d > limit - *i))
		return false;
	*i += d;
	return true;
}

unsigned long rg_bitmap_find_next_zero_area_off(
	const unsigned long *map, unsigned long size, unsigned long start,
	unsigned long nr, unsigned long align_mask, unsigned long align_offset)
{
	unsigned long limit, i, end, scan, last, clear_end = 0;

	if (unlikely(!map || !nr || nr > size || start > size - nr))
		return size;
	limit = size - nr; /* highest index a run may start at */
	i = start;
	for (;;) {
		i = next_bit(map, limit + 1, i, ~0UL);
		if (i > limit)
			return size;
		if (align_mask &&
		    !align_index(&i, limit, align_mask, align_offset))
			return size;
		end = i + nr;
		/* [i, clear_end) is known clear from the previous window. */
		scan = i > clear_end ? i : clear_end;
		if (scan >= end)
			return i;
		last = last_bit_in(map, scan, end, 0);
		if (last == end)
			return i;
		if (last >= limit)
			return size;
		i = last + 1;
		clear_end = end;
	}
}

unsigned long rg_bitmap_find_next_zero_area_naive(
	const unsigned long *map, unsigned long size, unsigned long start,
	unsigned long nr, unsigned long align_mask, unsigned long align_offset)
{
	unsigned long limit, i, end, first;

	if (unlikely(!map || !nr || nr > size || start > size - nr))
		return size;
	limit = size - nr;
	i = start;
	for (;;) {
		i = next_bit(map, limit + 1, i, ~0UL);
		if (i > limit)
			return size;
		if (align_mask &&
		    !align_index(&i, limit, align_mask, align_offset))
			return size;
		end = i + nr;
		first = next_bit(map, end, i, 0);
		if (first == end)
			return i;
		if (first >= limit)
			return size;
		i = first + 1;
	}
}

/* The length of a region of @order at @pos: 0, or -EINVAL if too large. */
static int region_len(unsigned long pos, unsigned int order, unsigned long *n)
{
	if (order > RG_BITMAP_MAX_ORDER)
		return -EINVAL;
	*n = 1UL << order;
	return pos > ~0UL - *n ? -EINVAL : 0;
}

int rg_bitmap_find_free_region(unsigned long *map, unsigned long bits,
			       unsigned int order, unsigned long *pos)
{
	unsigned long n, at;

	if (!map || !pos || region_len(0, order, &n))
		return -EINVAL;
	at = rg_bitmap_find_next_zero_area_off(map, bits, 0, n, n - 1, 0);
	if (at >= bits)
		return -ENOMEM;
	rg_bitmap_set_range(map, at, n);
	*pos = at;
	return 0;
}

int rg_bitmap_allocate_region(unsigned long *map, unsigned long pos,
			      unsigned int order)
{
	unsigned long n;
	int err = map ? region_len(pos, order, &n) : -EINVAL;

	if (err)
		return err;
	if (!rg_bitmap_range_is_clear(map, pos, n))
		return -EBUSY;
	rg_bitmap_set_range(map, pos, n);
	return 0;
}

void rg_bitmap_release_region(unsigned long *map, unsigned long pos,
			      unsigned int order)
{
	unsigned long n;

	if (map && !region_len(pos, order, &n))
		rg_bitmap_clear_range(map, pos, n);
}

unsigned long *rg_bitmap_zalloc(unsigned long nbits)
{
	unsigned long words = nbits / BPL + (nbits % BPL != 0);
	unsigned long *map =
		rgi_calloc(words ? words : 1, sizeof(unsigned long));

	if (!map)
		errno = ENOMEM;
	return map;
}

void rg_bitmap_free(unsigned long *map)
{
	rgi_free(map);
}

int rg_bitmap_validate(const unsigned long *map, unsigned long nbits,
		       const char **reason)
{
	const char *why = NULL;

	if (!map && nbits)
		why = "NULL map with a non-zero size";
	else if (nbits % BPL && (map[nbits / BPL] & ~last_word_mask(nbits)))
		why = "a tail bit past the map's size is set";
	if (reason)
		*reason = why;
	return why ? -EINVAL : 0;
}

void rg_bitmap_dump(const unsigned long *map, unsigned long nbits, FILE *f)
{
	unsigned long i = 0, e;
	int n = 0;

	if (!f || (!map && nbits))
		return;
	fprintf(f, "bitmap nbits=%lu weight=%lu\n", nbits,
		map ? rg_bitmap_weight(map, nbits) : 0UL);
	while (map && (i = next_bit(map, nbits, i, 0)) < nbits) {
		e = next_bit(map, nbits, i, ~0UL);
		if (e - i == 1)
			fprintf(f, "%s%lu", n ? " " : "  ", i);
		else
			fprintf(f, "%s%lu-%lu", n ? " " : "  ", i, e - 1);
		if (++n == 8) {
			fputc('\n', f);
			n = 0;
		}
		i = e;
	}
	if (n)
		fputc('\n', f);
}
