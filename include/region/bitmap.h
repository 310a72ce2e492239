/* SPDX-License-Identifier: MIT */
/*
 * libregion bitmap: word-at-a-time bit operations on arrays of unsigned long,
 * the kernel's zero-area search and its power-of-two region calls.
 *
 * Usage:
 *	unsigned long *map = rg_bitmap_zalloc(1000);	// NULL + errno
 *	rg_bitmap_set_range(map, 10, 5);		// bits 10..14
 *	unsigned long at = rg_bitmap_find_next_zero_area(map, 1000, 0, 32, 7);
 *	if (at < 1000)					// failure returns 1000
 *		rg_bitmap_set_range(map, at, 32);
 *	unsigned long pos;
 *	if (!rg_bitmap_find_free_region(map, 1000, 3, &pos))	// 8 bits
 *		rg_bitmap_release_region(map, pos, 3);
 *	unsigned long bit;
 *	RG_BITMAP_FOR_EACH_SET_BIT(bit, map, 1000)	// lowest first
 *		printf("%lu\n", bit);
 *	rg_bitmap_free(map);
 *
 * Bit i lives in word i / RG_BITS_PER_LONG at position i % RG_BITS_PER_LONG,
 * as in the kernel, so a map can be shared with code that uses the kernel's
 * layout. Bits at or past a map's size in its last word ("tail bits") are
 * never read by the search calls and never set by any call here;
 * rg_bitmap_validate() checks that they are clear.
 *
 * Calls that write a whole destination map (fill, copy, complement, replace,
 * the shifts, cut, scatter, gather, and the conversions from u32 and u64
 * arrays) write the words that hold bits 0 .. nbits - 1 and leave that map's
 * tail bits clear; they never touch a word past them. Bits of a source map at
 * or past nbits are ignored. With nbits 0 they do nothing at all.
 *
 * A bitmap is plain caller-owned memory: no call here locks or allocates,
 * except rg_bitmap_zalloc(). The caller serialises access.
 */
#ifndef REGION_BITMAP_H
#define REGION_BITMAP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "region/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bits in a byte, as the kernel counts them. */
#define RG_BITS_PER_BYTE 8
/* Bits in one word of a bitmap. */
#define RG_BITS_PER_LONG (sizeof(unsigned long) * CHAR_BIT)
/**
 * RG_BITS_TO_LONGS() - the number of words that hold @nbits bits.
 * @nbits: a number of bits.
 *
 * A constant expression when @nbits is one, so it sizes arrays.
 *
 * Context: any; evaluated at compile time for constants.
 */
#define RG_BITS_TO_LONGS(nbits) \
	(((nbits) + RG_BITS_PER_LONG - 1) / RG_BITS_PER_LONG)
/**
 * RG_DECLARE_BITMAP() - declare a bitmap of @nbits bits as an array.
 * @name: the array's name.
 * @nbits: its size in bits, a constant.
 *
 * Declares unsigned long @name[RG_BITS_TO_LONGS(@nbits)]. Like any array
 * it holds garbage unless static or zeroed: rg_bitmap_zero() it, or write
 * "= { 0 }" after the macro.
 *
 * Context: any; a declaration.
 */
#define RG_DECLARE_BITMAP(name, nbits) \
	unsigned long name[RG_BITS_TO_LONGS(nbits)]

/**
 * rg_bitmap_test() - read one bit.
 * @map: the bitmap.
 * @bit: bit index; the caller keeps it below the map's size.
 *
 * Context: caller serialises; never allocates.
 * Return: true if the bit is set.
 */
static inline bool rg_bitmap_test(const unsigned long *map, unsigned long bit)
{
	return map &&
	       (map[bit / RG_BITS_PER_LONG] >> (bit % RG_BITS_PER_LONG)) & 1;
}

/**
 * rg_bitmap_set() - set one bit (not atomic).
 * @map: the bitmap.
 * @bit: bit index; the caller keeps it below the map's size.
 *
 * Context: caller serialises; never allocates.
 */
static inline void rg_bitmap_set(unsigned long *map, unsigned long bit)
{
	if (map)
		map[bit / RG_BITS_PER_LONG] |= 1UL << (bit % RG_BITS_PER_LONG);
}

/**
 * rg_bitmap_clear() - clear one bit (not atomic).
 * @map: the bitmap.
 * @bit: bit index; the caller keeps it below the map's size.
 *
 * Context: caller serialises; never allocates.
 */
static inline void rg_bitmap_clear(unsigned long *map, unsigned long bit)
{
	if (map)
		map[bit / RG_BITS_PER_LONG] &=
			~(1UL << (bit % RG_BITS_PER_LONG));
}

/**
 * rg_bitmap_set_range() - set bits @start .. @start + @nr - 1.
 * @map: the bitmap.
 * @start: first bit.
 * @nr: number of bits; 0 does nothing.
 *
 * The caller keeps @start + @nr within the map (and free of overflow).
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_set_range(unsigned long *map, unsigned long start,
				unsigned long nr);

/**
 * rg_bitmap_clear_range() - clear bits @start .. @start + @nr - 1.
 * @map: the bitmap.
 * @start: first bit.
 * @nr: number of bits; 0 does nothing.
 *
 * The caller keeps @start + @nr within the map (and free of overflow).
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_clear_range(unsigned long *map, unsigned long start,
				  unsigned long nr);

/**
 * rg_bitmap_range_is_clear() - tell whether a range holds no set bit.
 * @map: the bitmap.
 * @start: first bit.
 * @nr: number of bits; an empty range is clear.
 *
 * Context: caller serialises; never allocates.
 * Return: true if bits @start .. @start + @nr - 1 are all zero.
 */
RG_API bool rg_bitmap_range_is_clear(const unsigned long *map,
				     unsigned long start, unsigned long nr);

/**
 * rg_bitmap_range_is_set() - tell whether a range holds no clear bit.
 * @map: the bitmap.
 * @start: first bit.
 * @nr: number of bits; an empty range is set.
 *
 * Context: caller serialises; never allocates.
 * Return: true if bits @start .. @start + @nr - 1 are all one.
 */
RG_API bool rg_bitmap_range_is_set(const unsigned long *map,
				   unsigned long start, unsigned long nr);

/**
 * rg_bitmap_weight() - count the set bits among the first @nbits.
 * @map: the bitmap.
 * @nbits: number of bits to look at (tail bits past it are ignored).
 *
 * Context: caller serialises; never allocates.
 * Return: the number of set bits in 0 .. @nbits - 1.
 */
RG_API unsigned long rg_bitmap_weight(const unsigned long *map,
				      unsigned long nbits);

/**
 * rg_bitmap_find_next_bit() - find the next set bit.
 * @map: the bitmap.
 * @size: the map's size in bits.
 * @offset: first bit to look at.
 *
 * Context: caller serialises; never allocates.
 * Return: the lowest set bit index in [@offset, @size), or @size if there is
 * none (also when @offset >= @size).
 */
RG_API unsigned long rg_bitmap_find_next_bit(const unsigned long *map,
					     unsigned long size,
					     unsigned long offset);

/**
 * rg_bitmap_find_next_zero_bit() - find the next clear bit.
 * @map: the bitmap.
 * @size: the map's size in bits.
 * @offset: first bit to look at.
 *
 * Context: caller serialises; never allocates.
 * Return: the lowest clear bit index in [@offset, @size), or @size if there
 * is none (also when @offset >= @size).
 */
RG_API unsigned long rg_bitmap_find_next_zero_bit(const unsigned long *map,
						  unsigned long size,
						  unsigned long offset);

/**
 * rg_bitmap_find_first_bit() - find the lowest set bit.
 * @map: the bitmap.
 * @size: the map's size in bits.
 *
 * Context: caller serialises; never allocates.
 * Return: the lowest set bit index, or @size if there is none.
 */
static inline unsigned long rg_bitmap_find_first_bit(const unsigned long *map,
						     unsigned long size)
{
	return rg_bitmap_find_next_bit(map, size, 0);
}

/**
 * rg_bitmap_find_first_zero_bit() - find the lowest clear bit.
 * @map: the bitmap.
 * @size: the map's size in bits.
 *
 * Context: caller serialises; never allocates.
 * Return: the lowest clear bit index, or @size if there is none.
 */
static inline unsigned long
rg_bitmap_find_first_zero_bit(const unsigned long *map, unsigned long size)
{
	return rg_bitmap_find_next_zero_bit(map, size, 0);
}

/**
 * rg_bitmap_find_last_bit() - find the highest set bit.
 * @map: the bitmap.
 * @size: the map's size in bits.
 *
 * Context: caller serialises; never allocates.
 * Return: the highest set bit index below @size, or @size if there is none.
 */
RG_API unsigned long rg_bitmap_find_last_bit(const unsigned long *map,
					     unsigned long size);

/**
 * rg_bitmap_find_nth_bit() - find the set bit of a given rank.
 * @map: the bitmap.
 * @size: the map's size in bits.
 * @n: how many set bits to pass over: 0 finds the lowest set bit.
 *
 * Counts a word at a time (population count) and picks the bit inside the
 * word that holds it by halving, without a loop over its bits.
 *
 * Context: caller serialises; never allocates.
 * Return: the index of the set bit that has exactly @n set bits below it in
 * [0, @size), or @size if fewer than @n + 1 bits are set.
 */
RG_API unsigned long rg_bitmap_find_nth_bit(const unsigned long *map,
					    unsigned long size,
					    unsigned long n);

/**
 * rg_bitmap_find_next_bit_wrap() - find the next set bit, wrapping around.
 * @map: the bitmap.
 * @size: the map's size in bits.
 * @offset: first bit to look at; at or past @size it means 0.
 *
 * Context: caller serialises; never allocates.
 * Return: the lowest set bit in [@offset, @size); if there is none, the
 * lowest set bit in [0, @offset); if the map has no set bit, @size.
 */
static inline unsigned long
rg_bitmap_find_next_bit_wrap(const unsigned long *map, unsigned long size,
			     unsigned long offset)
{
	unsigned long bit;

	if (offset >= size)
		offset = 0;
	bit = rg_bitmap_find_next_bit(map, size, offset);
	if (bit < size || !offset)
		return bit;
	bit = rg_bitmap_find_next_bit(map, offset, 0);
	return bit < offset ? bit : size;
}

/**
 * rg_bitmap_wrap_next_bit() - step of a walk over the set bits from @start.
 * @map: the bitmap.
 * @size: the map's size in bits.
 * @start: where the walk began; at or past @size it means 0.
 * @next: one past the bit the walk visited last.
 *
 * A walk from @start visits the set bits of [@start, @size) in increasing
 * order, then those of [0, @start), each once; the walk is the one that
 * RG_BITMAP_FOR_EACH_SET_BIT_WRAP() runs. After the walk visited bit b,
 * this returns the bit it visits next, given @next = b + 1.
 *
 * Context: caller serialises; never allocates.
 * Return: the next set bit of the walk, or @size when the walk is over.
 */
static inline unsigned long rg_bitmap_wrap_next_bit(const unsigned long *map,
						    unsigned long size,
						    unsigned long start,
						    unsigned long next)
{
	unsigned long bit;

	if (start >= size)
		start = 0;
	if (next > start) {
		/* Still in [start, size); past its end, go on at 0. */
		bit = rg_bitmap_find_next_bit(map, size, next);
		if (bit < size || !start)
			return bit;
		next = 0;
	}
	bit = rg_bitmap_find_next_bit(map, start, next);
	return bit < start ? bit : size;
}

/**
 * rg_bitmap_find_next_clump8() - find the next byte-aligned 8-bit group
 * that holds a set bit.
 * @clump: where the group's 8 bits are stored (bit 0 is the group's
 *         first bit; bits at or past @size read as 0).
 * @map: the bitmap.
 * @size: the map's size in bits.
 * @offset: first bit to look at.
 *
 * Finds the lowest set bit at or after @offset and returns the start of the
 * 8-bit group that holds it: the bit index rounded down to a multiple of 8,
 * which is below @offset when @offset is not a multiple of 8 (as in the
 * kernel).
 *
 * Context: caller serialises; never allocates.
 * Return: the group's first bit index, with *@clump set; or @size if no bit
 * at or after @offset is set, with *@clump unchanged.
 */
RG_API unsigned long rg_bitmap_find_next_clump8(unsigned long *clump,
						const unsigned long *map,
						unsigned long size,
						unsigned long offset);

/**
 * RG_BITMAP_FOR_EACH_SET_BIT() - loop over the set bits, lowest first.
 * @bit: an unsigned integer lvalue: the current bit.
 * @map: the bitmap.
 * @size: the map's size in bits.
 *
 * The body may change bits at or below @bit; bits above it are read as the
 * loop reaches them. After the loop @bit equals @size.
 *
 * Context: caller serialises; never allocates.
 */
#define RG_BITMAP_FOR_EACH_SET_BIT(bit, map, size)                             \
	for ((bit) = 0;                                                        \
	     ((bit) = rg_bitmap_find_next_bit((map), (size), (bit))) < (size); \
	     (bit)++)

/**
 * RG_BITMAP_FOR_EACH_SET_BIT_FROM() - loop over the set bits from @bit up.
 * @bit: an unsigned integer lvalue that holds the first bit to look at.
 * @map: the bitmap.
 * @size: the map's size in bits.
 *
 * Context: caller serialises; never allocates.
 */
#define RG_BITMAP_FOR_EACH_SET_BIT_FROM(bit, map, size)                        \
	for (;                                                                 \
	     ((bit) = rg_bitmap_find_next_bit((map), (size), (bit))) < (size); \
	     (bit)++)

/**
 * RG_BITMAP_FOR_EACH_CLEAR_BIT() - loop over the clear bits, lowest first.
 * @bit: an unsigned integer lvalue: the current bit.
 * @map: the bitmap.
 * @size: the map's size in bits.
 *
 * Context: caller serialises; never allocates.
 */
#define RG_BITMAP_FOR_EACH_CLEAR_BIT(bit, map, size)                        \
	for ((bit) = 0;                                                     \
	     ((bit) = rg_bitmap_find_next_zero_bit((map), (size), (bit))) < \
	     (size);                                                        \
	     (bit)++)

/**
 * RG_BITMAP_FOR_EACH_CLEAR_BIT_FROM() - loop over the clear bits from @bit.
 * @bit: an unsigned integer lvalue that holds the first bit to look at.
 * @map: the bitmap.
 * @size: the map's size in bits.
 *
 * Context: caller serialises; never allocates.
 */
#define RG_BITMAP_FOR_EACH_CLEAR_BIT_FROM(bit, map, size)                     \
	for (; ((bit) = rg_bitmap_find_next_zero_bit((map), (size), (bit))) < \
	       (size);                                                        \
	     (bit)++)

/**
 * RG_BITMAP_FOR_EACH_SET_BIT_WRAP() - loop over the set bits from @start,
 * wrapping around the end.
 * @bit: an unsigned integer lvalue: the current bit.
 * @map: the bitmap.
 * @size: the map's size in bits.
 * @start: first bit to look at; at or past @size it means 0.
 *
 * Visits the set bits of [@start, @size) in increasing order, then those of
 * [0, @start): every set bit once. After the loop @bit equals @size.
 *
 * Context: caller serialises; never allocates.
 */
#define RG_BITMAP_FOR_EACH_SET_BIT_WRAP(bit, map, size, start)             \
	for ((bit) = rg_bitmap_find_next_bit_wrap((map), (size), (start)); \
	     (bit) < (size); (bit) = rg_bitmap_wrap_next_bit(              \
				     (map), (size), (start), (bit) + 1))

/**
 * RG_BITMAP_FOR_EACH_SET_BITRANGE() - loop over the runs of set bits.
 * @b: an unsigned integer lvalue: the run's first bit.
 * @e: an unsigned integer lvalue: one past the run's last bit.
 * @map: the bitmap.
 * @size: the map's size in bits.
 *
 * Each turn covers one maximal run [@b, @e) of set bits, lowest first.
 *
 * Context: caller serialises; never allocates.
 */
#define RG_BITMAP_FOR_EACH_SET_BITRANGE(b, e, map, size) \
	for ((b) = 0; RG_BITMAP_SET_RUN_(b, e, map, size); (b) = (e) + 1)

/**
 * RG_BITMAP_FOR_EACH_SET_BITRANGE_FROM() - loop over the runs of set bits
 * from @b up.
 * @b: an unsigned integer lvalue that holds the first bit to look at; then
 *     the run's first bit.
 * @e: an unsigned integer lvalue: one past the run's last bit.
 * @map: the bitmap.
 * @size: the map's size in bits.
 *
 * As RG_BITMAP_FOR_EACH_SET_BITRANGE(), but bits below the initial @b are
 * not looked at: a run that began below it is reported from @b.
 *
 * Context: caller serialises; never allocates.
 */
#define RG_BITMAP_FOR_EACH_SET_BITRANGE_FROM(b, e, map, size) \
	for (; RG_BITMAP_SET_RUN_(b, e, map, size); (b) = (e) + 1)

/**
 * RG_BITMAP_FOR_EACH_CLEAR_BITRANGE() - loop over the runs of clear bits.
 * @b: an unsigned integer lvalue: the run's first bit.
 * @e: an unsigned integer lvalue: one past the run's last bit.
 * @map: the bitmap.
 * @size: the map's size in bits.
 *
 * Each turn covers one maximal run [@b, @e) of clear bits, lowest first.
 *
 * Context: caller serialises; never allocates.
 */
#define RG_BITMAP_FOR_EACH_CLEAR_BITRANGE(b, e, map, size) \
	for ((b) = 0; RG_BITMAP_CLEAR_RUN_(b, e, map, size); (b) = (e) + 1)

/**
 * RG_BITMAP_FOR_EACH_CLEAR_BITRANGE_FROM() - loop over the runs of clear
 * bits from @b up.
 * @b: an unsigned integer lvalue that holds the first bit to look at; then
 *     the run's first bit.
 * @e: an unsigned integer lvalue: one past the run's last bit.
 * @map: the bitmap.
 * @size: the map's size in bits.
 *
 * Context: caller serialises; never allocates.
 */
#define RG_BITMAP_FOR_EACH_CLEAR_BITRANGE_FROM(b, e, map, size) \
	for (; RG_BITMAP_CLEAR_RUN_(b, e, map, size); (b) = (e) + 1)

/* The loop tests of the run iterators: find the run at or after @b. */
#define RG_BITMAP_SET_RUN_(b, e, map, size)                          \
	((b) = rg_bitmap_find_next_bit((map), (size), (b)),          \
	 (e) = rg_bitmap_find_next_zero_bit((map), (size), (b) + 1), \
	 (b) < (size))
#define RG_BITMAP_CLEAR_RUN_(b, e, map, size)                    \
	((b) = rg_bitmap_find_next_zero_bit((map), (size), (b)), \
	 (e) = rg_bitmap_find_next_bit((map), (size), (b) + 1), (b) < (size))

/**
 * RG_BITMAP_FOR_EACH_SET_CLUMP8() - loop over the 8-bit groups that hold a
 * set bit.
 * @start: an unsigned integer lvalue: the group's first bit, a multiple of 8.
 * @clump: an unsigned long lvalue: the group's 8 bits.
 * @map: the bitmap.
 * @size: the map's size in bits.
 *
 * Visits the groups [8k, 8k + 8) that hold at least one set bit, lowest
 * first, with their value in @clump (bits at or past @size read as 0).
 *
 * Context: caller serialises; never allocates.
 */
#define RG_BITMAP_FOR_EACH_SET_CLUMP8(start, clump, map, size)                 \
	for ((start) = rg_bitmap_find_next_clump8(&(clump), (map), (size), 0); \
	     (start) < (size); (start) = rg_bitmap_find_next_clump8(           \
				       &(clump), (map), (size), (start) + 8))

/**
 * rg_bitmap_equal() - compare the first @nbits bits of two maps.
 * @a: one map.
 * @b: the other map.
 * @nbits: number of bits to compare (bits past it are ignored).
 *
 * Context: caller serialises; never allocates.
 * Return: true if bits 0 .. @nbits - 1 of @a and @b are equal (always for
 * @nbits 0).
 */
RG_API bool rg_bitmap_equal(const unsigned long *a, const unsigned long *b,
			    unsigned long nbits);

/**
 * rg_bitmap_fill() - set every bit of a map.
 * @map: the bitmap.
 * @nbits: its size in bits.
 *
 * Sets bits 0 .. @nbits - 1 and clears the tail bits of the last word, so
 * the map stays valid (the kernel's bitmap_fill() sets the tail bits too).
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_fill(unsigned long *map, unsigned long nbits);

/**
 * rg_bitmap_copy() - copy a map.
 * @dst: the destination; it may overlap @src.
 * @src: the source.
 * @nbits: size of both maps in bits.
 *
 * Copies bits 0 .. @nbits - 1 and clears the tail bits of @dst's last word
 * (the kernel's bitmap_copy() copies them from @src).
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_copy(unsigned long *dst, const unsigned long *src,
			   unsigned long nbits);

/**
 * rg_bitmap_replace() - take the bits of one map where a mask is set and of
 * another where it is clear.
 * @dst: the destination; it may be any of the three sources.
 * @old_map: bits kept where @mask is clear.
 * @new_map: bits taken where @mask is set.
 * @mask: the selector.
 * @nbits: size of the maps in bits.
 *
 * Computes @dst = (@old_map & ~@mask) | (@new_map & @mask) a word at a time.
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_replace(unsigned long *dst, const unsigned long *old_map,
			      const unsigned long *new_map,
			      const unsigned long *mask, unsigned long nbits);

/**
 * rg_bitmap_shift_right() - move every bit down by @shift positions.
 * @dst: the destination; it may be @src itself (no other overlap).
 * @src: the source.
 * @shift: how far to move; @shift >= @nbits clears @dst.
 * @nbits: size of both maps in bits.
 *
 * Bit i of @dst becomes bit i + @shift of @src (0 when that is at or past
 * @nbits): bits shifted off the bottom are lost, zeros come in at the top.
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_shift_right(unsigned long *dst, const unsigned long *src,
				  unsigned long shift, unsigned long nbits);

/**
 * rg_bitmap_shift_left() - move every bit up by @shift positions.
 * @dst: the destination; it may be @src itself (no other overlap).
 * @src: the source.
 * @shift: how far to move; @shift >= @nbits clears @dst.
 * @nbits: size of both maps in bits.
 *
 * Bit i of @dst becomes bit i - @shift of @src (0 when i < @shift): zeros
 * come in at the bottom, bits moved to @nbits or beyond are lost.
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_shift_left(unsigned long *dst, const unsigned long *src,
				 unsigned long shift, unsigned long nbits);

/**
 * rg_bitmap_cut() - remove a run of bits and close the gap.
 * @dst: the destination; it may overlap @src in any way.
 * @src: the source.
 * @first: first bit to remove.
 * @cut: number of bits to remove.
 * @nbits: size of both maps in bits.
 *
 * Bits below @first are copied unchanged; bit i >= @first of @dst becomes
 * bit i + @cut of @src, and the top @cut bits become 0. Example: @src 0xaa
 * (8 bits), @first 3, @cut 3 gives 0x12. @cut 0, or @first >= @nbits, is a
 * plain copy; a cut that reaches past the end clears bits @first and above.
 * (The kernel's bitmap_cut() moves the bits past @nbits in the source's
 * last word down as well; its name in <region/linux/bitmap.h> does.)
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_cut(unsigned long *dst, const unsigned long *src,
			  unsigned long first, unsigned long cut,
			  unsigned long nbits);

/**
 * rg_bitmap_complement() - invert every bit of a map.
 * @dst: the destination; it may be @src itself.
 * @src: the source.
 * @nbits: size of both maps in bits.
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_complement(unsigned long *dst, const unsigned long *src,
				 unsigned long nbits);

/**
 * rg_bitmap_read() - read a value of up to one word from any bit position.
 * @map: the bitmap.
 * @start: the value's lowest bit; the caller keeps @start + @nbits within
 *         the map.
 * @nbits: the value's width, 1 .. RG_BITS_PER_LONG.
 *
 * Reads at most the two words the value spans.
 *
 * Context: caller serialises; never allocates.
 * Return: bits @start .. @start + @nbits - 1 as a number (bit @start is its
 * bit 0); 0 if @nbits is 0 or more than RG_BITS_PER_LONG.
 */
RG_API unsigned long rg_bitmap_read(const unsigned long *map,
				    unsigned long start, unsigned long nbits);

/**
 * rg_bitmap_write() - store a value of up to one word at any bit position.
 * @map: the bitmap.
 * @value: the value; its bits at or past @nbits are ignored.
 * @start: where bit 0 of @value goes; the caller keeps @start + @nbits
 *         within the map.
 * @nbits: the value's width, 1 .. RG_BITS_PER_LONG; 0 or more than
 *         RG_BITS_PER_LONG writes nothing.
 *
 * Changes bits @start .. @start + @nbits - 1 only.
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_write(unsigned long *map, unsigned long value,
			    unsigned long start, unsigned long nbits);

/**
 * rg_bitmap_scatter() - spread the low bits of a map over a mask's set bits.
 * @dst: the destination; it must not overlap @src or @mask.
 * @src: the packed bits.
 * @mask: where they go.
 * @nbits: size of the maps in bits.
 *
 * The k-th lowest set bit of @mask receives bit k of @src; every other bit
 * of @dst is cleared. Example: @src 0x5a, @mask 0x1313 (16 bits) gives
 * 0x0302.
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_scatter(unsigned long *dst, const unsigned long *src,
			      const unsigned long *mask, unsigned long nbits);

/**
 * rg_bitmap_gather() - pack the bits of a map under a mask's set bits.
 * @dst: the destination; it must not overlap @src or @mask.
 * @src: the spread bits.
 * @mask: where to take them from.
 * @nbits: size of the maps in bits.
 *
 * Bit k of @dst receives the bit of @src under the k-th lowest set bit of
 * @mask; the bits of @dst from the mask's weight up are cleared. Example:
 * @src 0x0302, @mask 0x1313 (16 bits) gives 0x1a. Gathering what was
 * scattered with the same mask gives back the low bits of the source.
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_gather(unsigned long *dst, const unsigned long *src,
			     const unsigned long *mask, unsigned long nbits);

/**
 * rg_bitmap_from_arr32() - fill a map from an array of 32-bit words.
 * @map: the destination map.
 * @buf: the source: bit i is bit i % 32 of @buf[i / 32]; the array holds at
 *       least (@nbits + 31) / 32 elements, of which no more are read.
 * @nbits: number of bits.
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_from_arr32(unsigned long *map, const uint32_t *buf,
				 unsigned long nbits);

/**
 * rg_bitmap_to_arr32() - store a map into an array of 32-bit words.
 * @buf: the destination: bit i goes to bit i % 32 of @buf[i / 32]; exactly
 *       (@nbits + 31) / 32 elements are written, the last with its bits at
 *       or past @nbits clear.
 * @map: the source map.
 * @nbits: number of bits.
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_to_arr32(uint32_t *buf, const unsigned long *map,
			       unsigned long nbits);

/**
 * rg_bitmap_from_arr64() - fill a map from an array of 64-bit words.
 * @map: the destination map.
 * @buf: the source: bit i is bit i % 64 of @buf[i / 64]; the array holds at
 *       least (@nbits + 63) / 64 elements, of which no more are read.
 * @nbits: number of bits.
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_from_arr64(unsigned long *map, const uint64_t *buf,
				 unsigned long nbits);

/**
 * rg_bitmap_to_arr64() - store a map into an array of 64-bit words.
 * @buf: the destination: bit i goes to bit i % 64 of @buf[i / 64]; exactly
 *       (@nbits + 63) / 64 elements are written, the last with its bits at
 *       or past @nbits clear.
 * @map: the source map.
 * @nbits: number of bits.
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_to_arr64(uint64_t *buf, const unsigned long *map,
			       unsigned long nbits);

/**
 * rg_bitmap_find_next_zero_area_off() - find a free aligned run of bits.
 * @map: the bitmap.
 * @size: the map's size in bits.
 * @start: lowest index to consider.
 * @nr: length of the run.
 * @align_mask: alignment mask, normally 2^k - 1 (0: no alignment).
 * @align_offset: added to an index before the mask is applied.
 *
 * Finds the lowest index i >= @start such that bits i .. i + @nr - 1 are all
 * zero, i + @nr <= @size and ((i + @align_offset) & @align_mask) == 0. It
 * does not set the bits. Any mask works with this definition; with the usual
 * 2^k - 1 it makes i + @align_offset a multiple of 2^k, as in the kernel.
 *
 * When a candidate window holds set bits, the search resumes just past the
 * window's last set bit (the kernel's 2026 speed-up), and never looks at a
 * bit twice: bits between that last set bit and the window's end are known
 * clear and are not scanned again. Word at a time throughout.
 *
 * Unlike the kernel, @nr == 0 is not a request and fails (the kernel returns
 * an index that depends on its implementation).
 *
 * Context: caller serialises; never allocates.
 * Return: the index found, or exactly @size if there is none, including when
 * @nr is 0, @nr > @size or @start > @size - @nr.
 */
RG_API unsigned long rg_bitmap_find_next_zero_area_off(
	const unsigned long *map, unsigned long size, unsigned long start,
	unsigned long nr, unsigned long align_mask, unsigned long align_offset);

/**
 * rg_bitmap_find_next_zero_area() - find a free aligned run of bits.
 * @map: the bitmap.
 * @size: the map's size in bits.
 * @start: lowest index to consider.
 * @nr: length of the run.
 * @align_mask: alignment mask, normally 2^k - 1 (0: no alignment).
 *
 * rg_bitmap_find_next_zero_area_off() with an offset of 0.
 *
 * Context: caller serialises; never allocates.
 * Return: the index found, or exactly @size if there is none.
 */
static inline unsigned long
rg_bitmap_find_next_zero_area(const unsigned long *map, unsigned long size,
			      unsigned long start, unsigned long nr,
			      unsigned long align_mask)
{
	return rg_bitmap_find_next_zero_area_off(map, size, start, nr,
						 align_mask, 0);
}

/**
 * rg_bitmap_find_next_zero_area_naive() - the pre-2026 search, for comparison.
 * @map: the bitmap.
 * @size: the map's size in bits.
 * @start: lowest index to consider.
 * @nr: length of the run.
 * @align_mask: alignment mask, as for rg_bitmap_find_next_zero_area_off().
 * @align_offset: alignment offset, likewise.
 *
 * Same result as rg_bitmap_find_next_zero_area_off(), found the way the
 * kernel did before 2026: when a window holds a set bit, resume just after
 * its *first* set bit and rescan. Kept so that benchmarks can compare both
 * searches in one run; use rg_bitmap_find_next_zero_area_off() otherwise.
 *
 * Context: caller serialises; never allocates.
 * Return: the index found, or exactly @size if there is none.
 */
RG_API unsigned long rg_bitmap_find_next_zero_area_naive(
	const unsigned long *map, unsigned long size, unsigned long start,
	unsigned long nr, unsigned long align_mask, unsigned long align_offset);

/* Largest order the region calls accept: 2^order must fit a long. */
#define RG_BITMAP_MAX_ORDER (RG_BITS_PER_LONG - 2)

/**
 * rg_bitmap_find_free_region() - allocate a naturally aligned 2^order block.
 * @map: the bitmap.
 * @bits: the map's size in bits.
 * @order: log2 of the block size, at most RG_BITMAP_MAX_ORDER.
 * @pos: where the block's first bit index is stored on success.
 *
 * Finds the lowest free block of 2^@order bits that starts at a multiple of
 * 2^@order and ends within @bits, and sets its bits. Example: in a 1000-bit
 * map, orders 0, 1, ..., 8 in turn give 0, 2, 4, 8, 16, ..., 256 and order 9
 * then fails.
 *
 * Context: caller serialises; never allocates.
 * Return: 0 with *@pos set; -ENOMEM if no such block is free (the kernel's
 * code); -EINVAL if @order > RG_BITMAP_MAX_ORDER. On error nothing changes.
 */
RG_API int rg_bitmap_find_free_region(unsigned long *map, unsigned long bits,
				      unsigned int order, unsigned long *pos);

/**
 * rg_bitmap_allocate_region() - allocate the 2^order block at @pos.
 * @map: the bitmap.
 * @pos: first bit of the block; the caller keeps the block within the map.
 * @order: log2 of the block size, at most RG_BITMAP_MAX_ORDER.
 *
 * Sets the block's bits if they are all clear. @pos need not be aligned.
 *
 * Context: caller serialises; never allocates.
 * Return: 0; -EBUSY if any bit of the block is set; -EINVAL if @order >
 * RG_BITMAP_MAX_ORDER or the block would pass the end of the index space.
 * On error nothing changes.
 */
RG_API int rg_bitmap_allocate_region(unsigned long *map, unsigned long pos,
				     unsigned int order);

/**
 * rg_bitmap_release_region() - clear the 2^order block at @pos.
 * @map: the bitmap.
 * @pos: first bit of the block; the caller keeps the block within the map.
 * @order: log2 of the block size; an order above RG_BITMAP_MAX_ORDER does
 *         nothing.
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_release_region(unsigned long *map, unsigned long pos,
				     unsigned int order);

/**
 * rg_bitmap_zalloc() - allocate a zeroed bitmap of @nbits bits.
 * @nbits: size in bits; 0 gives a valid pointer to an empty map.
 *
 * Context: any thread; allocates (honours rg_fault_inject()).
 * Return: the map, or NULL with errno ENOMEM.
 */
RG_API unsigned long *rg_bitmap_zalloc(unsigned long nbits);

/**
 * rg_bitmap_free() - free a map from rg_bitmap_zalloc().
 * @map: the map, or NULL.
 *
 * Context: any thread.
 */
RG_API void rg_bitmap_free(unsigned long *map);

/**
 * rg_bitmap_validate() - check a bitmap's invariants.
 * @map: the bitmap.
 * @nbits: its size in bits.
 * @reason: if not NULL, receives a static string describing the first
 *          problem found.
 *
 * A bitmap is valid when @map is not NULL (unless @nbits is 0) and its tail
 * bits, past @nbits in the last word, are clear.
 *
 * Context: caller serialises; never allocates.
 * Return: 0 if valid; -EINVAL otherwise.
 */
RG_API int rg_bitmap_validate(const unsigned long *map, unsigned long nbits,
			      const char **reason);

/**
 * rg_bitmap_dump() - print a bitmap's set runs and weight.
 * @map: the bitmap.
 * @nbits: its size in bits.
 * @f: where to print.
 *
 * Prints one line "bitmap nbits=N weight=W" followed by the set runs as
 * "start-end" (inclusive), several per line.
 *
 * Context: caller serialises; never allocates.
 */
RG_API void rg_bitmap_dump(const unsigned long *map, unsigned long nbits,
			   FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* REGION_BITMAP_H */
