/* SPDX-License-Identifier: MIT */
/*
 * Kernel names for the bitmap module; included by <region/linux.h>.
 *
 * Usage:
 *	#include <region/linux.h>
 *	DECLARE_BITMAP(map, 1000);
 *	bitmap_zero(map, 1000);
 *	int pos = bitmap_find_free_region(map, 1000, 3);	// or -ENOMEM
 *	unsigned long at = bitmap_find_next_zero_area(map, 1000, 0, 16, 0);
 *	if (at < 1000)
 *		bitmap_set(map, at, 16);
 *
 * Argument order and return conventions are the kernel's. Where libregion
 * differs it is said here: set_bit(), clear_bit() and change_bit() are
 * atomic (relaxed) as in the kernel, the __ forms are not; a zero-area search
 * for 0 bits fails (returns the size); gfp arguments are ignored. As in the
 * kernel, bitmap_zero(), bitmap_fill() and bitmap_copy() work on whole words,
 * tail bits included (use bitmap_clear() or bitmap_set(), or the rg_ calls,
 * to stay exact); bitmap_cut() moves the bits past nbits in the source's
 * last word down into the map, as the kernel's does; the other whole-map
 * calls leave the tail bits clear; find_nth_bit() and the clump search
 * return exactly the size when nothing is found. A wrapping walk or search
 * from a start at or past the size starts at 0.
 */
#ifndef REGION_LINUX_BITMAP_H
#define REGION_LINUX_BITMAP_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "region/bitmap.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef BITS_PER_LONG
#define BITS_PER_LONG RG_BITS_PER_LONG
#endif
#ifndef BITS_TO_LONGS
#define BITS_TO_LONGS(nr) RG_BITS_TO_LONGS(nr)
#endif
#ifndef BIT_WORD
#define BIT_WORD(nr) ((nr) / RG_BITS_PER_LONG)
#endif
#ifndef BIT_MASK
#define BIT_MASK(nr) (1UL << ((nr) % RG_BITS_PER_LONG))
#endif
#ifndef DECLARE_BITMAP
#define DECLARE_BITMAP(name, bits) RG_DECLARE_BITMAP(name, bits)
#endif
#ifndef BITS_PER_BYTE
#define BITS_PER_BYTE RG_BITS_PER_BYTE
#endif

/*
 * Single-word fast paths. When a call's size is a compile-time constant
 * from 1 to BITS_PER_LONG (what the kernel calls small_const_nbits()), the
 * calls below work on the one word inline, so a compiler that also sees
 * constant operands folds the whole call to a constant, as the kernel's
 * do; any other size goes to the out-of-line rg_ call. Both paths give the
 * same result in every case, tail bits included (and a NULL map is a no-op
 * on both wherever the rg_ call makes it one). Without GNU C the
 * out-of-line call is always taken.
 */
#if defined(__GNUC__)
#define RG_LINUX_SMALL_NBITS(n) \
	(__builtin_constant_p(n) && (n) >= 1 && (n) <= RG_BITS_PER_LONG)
#define RG_LINUX_INLINE static inline __attribute__((always_inline))
#else
#define RG_LINUX_SMALL_NBITS(n) 0
#define RG_LINUX_INLINE static inline
#endif
/* Bits 0 .. n - 1 of a word, for 1 <= n <= BITS_PER_LONG. */
#define RG_LINUX_LOW_MASK(n) (~0UL >> (RG_BITS_PER_LONG - (n)))
/*
 * bitmap_set()/bitmap_clear() of bits start .. start + nr - 1, all in word
 * 0, with both constant and nr at least 1.
 */
#define RG_LINUX_SMALL_RANGE(start, nr)                             \
	(RG_LINUX_SMALL_NBITS(nr) && __builtin_constant_p(start) && \
	 (start) < RG_BITS_PER_LONG &&                              \
	 (unsigned long)(start) + (nr) <= RG_BITS_PER_LONG)

/* ---- single bits ---- */

static inline int test_bit(unsigned long nr, const unsigned long *addr)
{
	return rg_bitmap_test(addr, nr);
}

static inline void __set_bit(unsigned long nr, unsigned long *addr)
{
	rg_bitmap_set(addr, nr);
}

static inline void __clear_bit(unsigned long nr, unsigned long *addr)
{
	rg_bitmap_clear(addr, nr);
}

static inline void __change_bit(unsigned long nr, unsigned long *addr)
{
	addr[BIT_WORD(nr)] ^= BIT_MASK(nr);
}

static inline int __test_and_set_bit(unsigned long nr, unsigned long *addr)
{
	int old = rg_bitmap_test(addr, nr);

	rg_bitmap_set(addr, nr);
	return old;
}

static inline int __test_and_clear_bit(unsigned long nr, unsigned long *addr)
{
	int old = rg_bitmap_test(addr, nr);

	rg_bitmap_clear(addr, nr);
	return old;
}

static inline void __assign_bit(unsigned long nr, unsigned long *addr,
				bool value)
{
	if (value)
		rg_bitmap_set(addr, nr);
	else
		rg_bitmap_clear(addr, nr);
}

#if defined(__GNUC__)
static inline void set_bit(unsigned long nr, unsigned long *addr)
{
	__atomic_fetch_or(&addr[BIT_WORD(nr)], BIT_MASK(nr), __ATOMIC_RELAXED);
}

static inline void clear_bit(unsigned long nr, unsigned long *addr)
{
	__atomic_fetch_and(&addr[BIT_WORD(nr)], ~BIT_MASK(nr),
			   __ATOMIC_RELAXED);
}

static inline void change_bit(unsigned long nr, unsigned long *addr)
{
	__atomic_fetch_xor(&addr[BIT_WORD(nr)], BIT_MASK(nr), __ATOMIC_RELAXED);
}

static inline int test_and_set_bit(unsigned long nr, unsigned long *addr)
{
	return (__atomic_fetch_or(&addr[BIT_WORD(nr)], BIT_MASK(nr),
				  __ATOMIC_SEQ_CST) &
		BIT_MASK(nr)) != 0;
}

static inline int test_and_clear_bit(unsigned long nr, unsigned long *addr)
{
	return (__atomic_fetch_and(&addr[BIT_WORD(nr)], ~BIT_MASK(nr),
				   __ATOMIC_SEQ_CST) &
		BIT_MASK(nr)) != 0;
}
#endif

/* ---- whole maps and ranges ---- */

RG_LINUX_INLINE void bitmap_zero(unsigned long *dst, unsigned int nbits)
{
	if (RG_LINUX_SMALL_NBITS(nbits)) {
		*dst = 0;
		return;
	}
	memset(dst, 0, RG_BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

RG_LINUX_INLINE void bitmap_set(unsigned long *map, unsigned int start,
				unsigned int nbits)
{
	if (RG_LINUX_SMALL_RANGE(start, nbits)) {
		if (map)
			*map |= RG_LINUX_LOW_MASK(start + nbits) &
				(~0UL << start);
		return;
	}
	rg_bitmap_set_range(map, start, nbits);
}

RG_LINUX_INLINE void bitmap_clear(unsigned long *map, unsigned int start,
				  unsigned int nbits)
{
	if (RG_LINUX_SMALL_RANGE(start, nbits)) {
		if (map)
			*map &= ~(RG_LINUX_LOW_MASK(start + nbits) &
				  (~0UL << start));
		return;
	}
	rg_bitmap_clear_range(map, start, nbits);
}

RG_LINUX_INLINE unsigned int bitmap_weight(const unsigned long *src,
					   unsigned int nbits)
{
	if (RG_LINUX_SMALL_NBITS(nbits))
		return src ? (unsigned int)__builtin_popcountl(
				     *src & RG_LINUX_LOW_MASK(nbits)) :
			     0;
	return (unsigned int)rg_bitmap_weight(src, nbits);
}

/* The out-of-line forms; a length of 0 or less does nothing. */
static inline void __bitmap_set(unsigned long *map, unsigned int start, int len)
{
	if (len > 0)
		rg_bitmap_set_range(map, start, (unsigned long)len);
}

static inline void __bitmap_clear(unsigned long *map, unsigned int start,
				  int len)
{
	if (len > 0)
		rg_bitmap_clear_range(map, start, (unsigned long)len);
}

/* Whole words, tail bits included, as the kernel documents. */
RG_LINUX_INLINE void bitmap_fill(unsigned long *dst, unsigned int nbits)
{
	if (RG_LINUX_SMALL_NBITS(nbits)) {
		*dst = ~0UL;
		return;
	}
	memset(dst, 0xff, RG_BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

/* Whole words, tail bits included, as the kernel does. */
RG_LINUX_INLINE void bitmap_copy(unsigned long *dst, const unsigned long *src,
				 unsigned int nbits)
{
	if (RG_LINUX_SMALL_NBITS(nbits)) {
		*dst = *src;
		return;
	}
	memmove(dst, src, RG_BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

RG_LINUX_INLINE bool bitmap_equal(const unsigned long *src1,
				  const unsigned long *src2, unsigned int nbits)
{
	if (RG_LINUX_SMALL_NBITS(nbits))
		return src1 && src2 &&
		       !((*src1 ^ *src2) & RG_LINUX_LOW_MASK(nbits));
	return rg_bitmap_equal(src1, src2, nbits);
}

static inline bool __bitmap_equal(const unsigned long *bitmap1,
				  const unsigned long *bitmap2,
				  unsigned int bits)
{
	return rg_bitmap_equal(bitmap1, bitmap2, bits);
}

static inline void bitmap_replace(unsigned long *dst,
				  const unsigned long *old_map,
				  const unsigned long *new_map,
				  const unsigned long *mask, unsigned int nbits)
{
	rg_bitmap_replace(dst, old_map, new_map, mask, nbits);
}

RG_LINUX_INLINE void bitmap_shift_right(unsigned long *dst,
					const unsigned long *src,
					unsigned int shift, unsigned int nbits)
{
	if (RG_LINUX_SMALL_NBITS(nbits)) {
		if (dst && src)
			*dst = shift < nbits ?
				       (*src & RG_LINUX_LOW_MASK(nbits)) >>
					       shift :
				       0;
		return;
	}
	rg_bitmap_shift_right(dst, src, shift, nbits);
}

RG_LINUX_INLINE void bitmap_shift_left(unsigned long *dst,
				       const unsigned long *src,
				       unsigned int shift, unsigned int nbits)
{
	if (RG_LINUX_SMALL_NBITS(nbits)) {
		if (dst && src)
			*dst = shift < nbits ?
				       (*src << shift) &
					       RG_LINUX_LOW_MASK(nbits) :
				       0;
		return;
	}
	rg_bitmap_shift_left(dst, src, shift, nbits);
}

static inline void bitmap_cut(unsigned long *dst, const unsigned long *src,
			      unsigned int first, unsigned int cut,
			      unsigned int nbits)
{
	/* The kernel shifts the source's whole last word, tail bits too. */
	rg_bitmap_cut(dst, src, first, cut,
		      RG_BITS_TO_LONGS((unsigned long)nbits) *
			      RG_BITS_PER_LONG);
}

RG_LINUX_INLINE void bitmap_complement(unsigned long *dst,
				       const unsigned long *src,
				       unsigned int nbits)
{
	if (RG_LINUX_SMALL_NBITS(nbits)) {
		if (dst && src)
			*dst = ~*src & RG_LINUX_LOW_MASK(nbits);
		return;
	}
	rg_bitmap_complement(dst, src, nbits);
}

static inline void __bitmap_complement(unsigned long *dst,
				       const unsigned long *src,
				       unsigned int nbits)
{
	rg_bitmap_complement(dst, src, nbits);
}

/* nbits 0 or above BITS_PER_LONG: reads 0, writes nothing. */
static inline unsigned long
bitmap_read(const unsigned long *map, unsigned long start, unsigned long nbits)
{
	return rg_bitmap_read(map, start, nbits);
}

static inline void bitmap_write(unsigned long *map, unsigned long value,
				unsigned long start, unsigned long nbits)
{
	rg_bitmap_write(map, value, start, nbits);
}

static inline void bitmap_scatter(unsigned long *dst, const unsigned long *src,
				  const unsigned long *mask, unsigned int nbits)
{
	rg_bitmap_scatter(dst, src, mask, nbits);
}

static inline void bitmap_gather(unsigned long *dst, const unsigned long *src,
				 const unsigned long *mask, unsigned int nbits)
{
	rg_bitmap_gather(dst, src, mask, nbits);
}

static inline void bitmap_from_arr32(unsigned long *bitmap, const uint32_t *buf,
				     unsigned int nbits)
{
	rg_bitmap_from_arr32(bitmap, buf, nbits);
}

static inline void bitmap_to_arr32(uint32_t *buf, const unsigned long *bitmap,
				   unsigned int nbits)
{
	rg_bitmap_to_arr32(buf, bitmap, nbits);
}

static inline void bitmap_from_arr64(unsigned long *bitmap, const uint64_t *buf,
				     unsigned int nbits)
{
	rg_bitmap_from_arr64(bitmap, buf, nbits);
}

static inline void bitmap_to_arr64(uint64_t *buf, const unsigned long *bitmap,
				   unsigned int nbits)
{
	rg_bitmap_to_arr64(buf, bitmap, nbits);
}

RG_LINUX_INLINE int bitmap_empty(const unsigned long *src, unsigned int nbits)
{
	if (RG_LINUX_SMALL_NBITS(nbits))
		return !src || !(*src & RG_LINUX_LOW_MASK(nbits));
	return rg_bitmap_find_next_bit(src, nbits, 0) >= nbits;
}

RG_LINUX_INLINE int bitmap_full(const unsigned long *src, unsigned int nbits)
{
	if (RG_LINUX_SMALL_NBITS(nbits))
		return !src || !(~*src & RG_LINUX_LOW_MASK(nbits));
	return rg_bitmap_find_next_zero_bit(src, nbits, 0) >= nbits;
}

/* ---- searches ---- */

/*
 * Lowest bit at or past @offset of a one-word map of @size bits whose
 * value XOR @invert is 1, or @size; 1 <= size <= BITS_PER_LONG.
 */
RG_LINUX_INLINE unsigned long rg_linux_word_next(const unsigned long *addr,
						 unsigned long size,
						 unsigned long offset,
						 unsigned long invert)
{
	unsigned long word;

	if (!addr || offset >= size)
		return size;
	word = (*addr ^ invert) & RG_LINUX_LOW_MASK(size) & (~0UL << offset);
	return word ? (unsigned long)__builtin_ctzl(word) : size;
}

RG_LINUX_INLINE unsigned long find_next_bit(const unsigned long *addr,
					    unsigned long size,
					    unsigned long offset)
{
	if (RG_LINUX_SMALL_NBITS(size))
		return rg_linux_word_next(addr, size, offset, 0);
	return rg_bitmap_find_next_bit(addr, size, offset);
}

RG_LINUX_INLINE unsigned long find_next_zero_bit(const unsigned long *addr,
						 unsigned long size,
						 unsigned long offset)
{
	if (RG_LINUX_SMALL_NBITS(size))
		return rg_linux_word_next(addr, size, offset, ~0UL);
	return rg_bitmap_find_next_zero_bit(addr, size, offset);
}

RG_LINUX_INLINE unsigned long find_first_bit(const unsigned long *addr,
					     unsigned long size)
{
	if (RG_LINUX_SMALL_NBITS(size))
		return rg_linux_word_next(addr, size, 0, 0);
	return rg_bitmap_find_next_bit(addr, size, 0);
}

RG_LINUX_INLINE unsigned long find_first_zero_bit(const unsigned long *addr,
						  unsigned long size)
{
	if (RG_LINUX_SMALL_NBITS(size))
		return rg_linux_word_next(addr, size, 0, ~0UL);
	return rg_bitmap_find_next_zero_bit(addr, size, 0);
}

RG_LINUX_INLINE unsigned long find_last_bit(const unsigned long *addr,
					    unsigned long size)
{
	if (RG_LINUX_SMALL_NBITS(size)) {
		unsigned long word = addr ? *addr & RG_LINUX_LOW_MASK(size) : 0;

		return word ? RG_BITS_PER_LONG - 1 -
				       (unsigned long)__builtin_clzl(word) :
			      size;
	}
	return rg_bitmap_find_last_bit(addr, size);
}

static inline unsigned long find_nth_bit(const unsigned long *addr,
					 unsigned long size, unsigned long n)
{
	return rg_bitmap_find_nth_bit(addr, size, n);
}

static inline unsigned long find_next_bit_wrap(const unsigned long *addr,
					       unsigned long size,
					       unsigned long offset)
{
	return rg_bitmap_find_next_bit_wrap(addr, size, offset);
}

static inline unsigned long find_next_clump8(unsigned long *clump,
					     const unsigned long *addr,
					     unsigned long size,
					     unsigned long offset)
{
	return rg_bitmap_find_next_clump8(clump, addr, size, offset);
}

#define find_first_clump8(clump, bits, size) \
	rg_bitmap_find_next_clump8((clump), (bits), (size), 0)

/* ---- iterators ---- */

#define for_each_set_bit(bit, addr, size) \
	RG_BITMAP_FOR_EACH_SET_BIT(bit, addr, size)
#define for_each_set_bit_from(bit, addr, size) \
	RG_BITMAP_FOR_EACH_SET_BIT_FROM(bit, addr, size)
#define for_each_clear_bit(bit, addr, size) \
	RG_BITMAP_FOR_EACH_CLEAR_BIT(bit, addr, size)
#define for_each_clear_bit_from(bit, addr, size) \
	RG_BITMAP_FOR_EACH_CLEAR_BIT_FROM(bit, addr, size)
#define for_each_set_bit_wrap(bit, addr, size, start) \
	RG_BITMAP_FOR_EACH_SET_BIT_WRAP(bit, addr, size, start)
#define for_each_set_bitrange(b, e, addr, size) \
	RG_BITMAP_FOR_EACH_SET_BITRANGE(b, e, addr, size)
#define for_each_set_bitrange_from(b, e, addr, size) \
	RG_BITMAP_FOR_EACH_SET_BITRANGE_FROM(b, e, addr, size)
#define for_each_clear_bitrange(b, e, addr, size) \
	RG_BITMAP_FOR_EACH_CLEAR_BITRANGE(b, e, addr, size)
#define for_each_clear_bitrange_from(b, e, addr, size) \
	RG_BITMAP_FOR_EACH_CLEAR_BITRANGE_FROM(b, e, addr, size)
#define for_each_set_clump8(start, clump, bits, size) \
	RG_BITMAP_FOR_EACH_SET_CLUMP8(start, clump, bits, size)

static inline unsigned long bitmap_find_next_zero_area_off(
	unsigned long *map, unsigned long size, unsigned long start,
	unsigned int nr, unsigned long align_mask, unsigned long align_offset)
{
	return rg_bitmap_find_next_zero_area_off(map, size, start, nr,
						 align_mask, align_offset);
}

static inline unsigned long bitmap_find_next_zero_area(unsigned long *map,
						       unsigned long size,
						       unsigned long start,
						       unsigned int nr,
						       unsigned long align_mask)
{
	return rg_bitmap_find_next_zero_area_off(map, size, start, nr,
						 align_mask, 0);
}

/* ---- power-of-two regions ---- */

/* Returns the block's position, or -ENOMEM (positions above INT_MAX fail). */
static inline int bitmap_find_free_region(unsigned long *bitmap,
					  unsigned int bits, int order)
{
	unsigned long pos;
	unsigned int limit =
		bits > (unsigned int)INT_MAX ? (unsigned int)INT_MAX : bits;

	if (order < 0 || rg_bitmap_find_free_region(bitmap, limit,
						    (unsigned int)order, &pos))
		return -ENOMEM;
	return (int)pos;
}

static inline int bitmap_allocate_region(unsigned long *bitmap,
					 unsigned int pos, int order)
{
	if (order < 0)
		return -EINVAL;
	return rg_bitmap_allocate_region(bitmap, pos, (unsigned int)order);
}

static inline void bitmap_release_region(unsigned long *bitmap,
					 unsigned int pos, int order)
{
	if (order >= 0)
		rg_bitmap_release_region(bitmap, pos, (unsigned int)order);
}

/* ---- allocation (gfp ignored) ---- */

#define bitmap_alloc(nbits, gfp) ((void)(gfp), rg_bitmap_zalloc(nbits))
#define bitmap_zalloc(nbits, gfp) ((void)(gfp), rg_bitmap_zalloc(nbits))
#define bitmap_free(map) rg_bitmap_free(map)

#ifdef __cplusplus
}
#endif
#endif /* REGION_LINUX_BITMAP_H */
