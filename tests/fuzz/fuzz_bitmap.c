// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the bitmap calls against a bool array.
 *
 * Input: the map size in bits (2 bytes), then operations: set / clear a
 * range, the range tests, weight, next set / clear bit, last bit, the
 * zero-area search (both the resuming and the naive one, any mask and
 * offset), and the power-of-two region calls. Every result is compared
 * with a search over the bool array; after every operation the map is
 * validated (tail bits clear) and, every 16 operations and at the end,
 * compared bit by bit. The map is allocated with a fault armed first:
 * a fired fault must give NULL and errno ENOMEM.
 */
#include "fuzz.h"

#include "region/bitmap.h"

#define MAX_BITS 4200

static bool bits[MAX_BITS];
static unsigned long nbits;

static unsigned long model_next(unsigned long off, bool want)
{
	for (unsigned long i = off; i < nbits; i++)
		if (bits[i] == want)
			return i;
	return nbits;
}

static unsigned long model_area(unsigned long start, unsigned long nr,
				unsigned long mask, unsigned long offset)
{
	if (!nr || nr > nbits)
		return nbits;
	for (unsigned long i = start; i <= nbits - nr; i++) {
		bool clear = true;

		if ((i + offset) & mask)
			continue;
		for (unsigned long j = i; j < i + nr && clear; j++)
			clear = !bits[j];
		if (clear)
			return i;
	}
	return nbits;
}

static unsigned long pick_bit(struct fz *f)
{
	return fz_below(f, nbits + 1);
}

static void check(struct fz *f, const unsigned long *map, bool all)
{
	const char *why = NULL;

	if (rg_bitmap_validate(map, nbits, &why))
		FZ_FAIL(f, "validate: %s", why ? why : "?");
	if (!all)
		return;
	for (unsigned long i = 0; i < nbits; i++)
		FZ_EQ(f, rg_bitmap_test(map, i), bits[i], "test(bit)");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long *map;
	bool armed;
	struct fz f;

	fz_init(&f, "bitmap", data, size);
	nbits = fz_u16(&f) % MAX_BITS;
	memset(bits, 0, sizeof(bits));
	fz_op_begin(&f, &armed);
	errno = 0;
	map = rg_bitmap_zalloc(nbits);
	if (fz_op_failed(&f, armed, !map)) {
		FZ_EQ(&f, errno, ENOMEM, "zalloc under a fault: errno");
		map = rg_bitmap_zalloc(nbits);
	}
	FZ_CHECK(&f, map, "zalloc(%lu)", nbits);
	check(&f, map, true);
	while (fz_more(&f)) {
		unsigned int op = fz_op_begin(&f, &armed) % 10;
		unsigned long s, n, got, want, mask, off, pos = 0;
		unsigned int order;
		int rc;

		fz_op_end(&f, armed);
		switch (op) {
		case 0: /* set or clear a range */
		case 1:
			s = pick_bit(&f);
			n = fz_u8(&f) < 200 ? fz_u8(&f) % 70 :
					      fz_below(&f, nbits + 1);
			if (n > nbits - s)
				n = nbits - s;
			if (op == 0)
				rg_bitmap_set_range(map, s, n);
			else
				rg_bitmap_clear_range(map, s, n);
			for (unsigned long i = s; i < s + n; i++)
				bits[i] = op == 0;
			break;
		case 2: { /* range tests and weight */
			bool clear = true, set = true;
			unsigned long w = 0;

			s = pick_bit(&f);
			n = fz_u8(&f) % 130;
			if (n > nbits - s)
				n = nbits - s;
			for (unsigned long i = s; i < s + n; i++) {
				clear &= !bits[i];
				set &= bits[i];
			}
			FZ_EQ(&f, rg_bitmap_range_is_clear(map, s, n), clear,
			      "range_is_clear");
			FZ_EQ(&f, rg_bitmap_range_is_set(map, s, n), set,
			      "range_is_set");
			n = pick_bit(&f);
			for (unsigned long i = 0; i < n; i++)
				w += bits[i];
			FZ_EQ(&f, rg_bitmap_weight(map, n), w, "weight");
			break;
		}
		case 3: /* next set / clear bit, last bit */
			s = fz_u8(&f) < 250 ? pick_bit(&f) : fz_index(&f);
			FZ_EQ(&f, rg_bitmap_find_next_bit(map, nbits, s),
			      s < nbits ? model_next(s, true) : nbits,
			      "find_next_bit");
			FZ_EQ(&f, rg_bitmap_find_next_zero_bit(map, nbits, s),
			      s < nbits ? model_next(s, false) : nbits,
			      "find_next_zero_bit");
			want = nbits;
			for (unsigned long i = nbits; i-- > 0;)
				if (bits[i]) {
					want = i;
					break;
				}
			FZ_EQ(&f, rg_bitmap_find_last_bit(map, nbits), want,
			      "find_last_bit");
			break;
		case 4: /* zero-area searches */
		case 5:
			s = fz_u8(&f) < 250 ? pick_bit(&f) : fz_index(&f);
			n = fz_u8(&f) < 240 ? fz_u8(&f) % 80 : fz_index(&f);
			mask = fz_u8(&f);
			mask = mask < 128 ? 0 :
			       mask < 240 ? (1UL << (mask % 10)) - 1 :
					    fz_u8(&f);
			off = fz_u8(&f) < 200 ? 0 : fz_u16(&f);
			want = s <= nbits ? model_area(s, n, mask, off) : nbits;
			got = op == 4 ? rg_bitmap_find_next_zero_area_off(
						map, nbits, s, n, mask, off) :
					rg_bitmap_find_next_zero_area_naive(
						map, nbits, s, n, mask, off);
			FZ_CHECK(
				&f, got == want,
				"zero_area%s(start %lu, nr %lu, mask %#lx, off %lu) = %lu, want %lu",
				op == 4 ? "" : "_naive", s, n, mask, off, got,
				want);
			break;
		case 6: /* find_free_region */
			order = fz_u8(&f) % 14;
			if (order == 13)
				order = RG_BITMAP_MAX_ORDER + 1;
			rc = rg_bitmap_find_free_region(map, nbits, order,
							&pos);
			if (order > RG_BITMAP_MAX_ORDER) {
				FZ_EQ(&f, rc, -EINVAL, "find_free_region");
				break;
			}
			want = model_area(0, 1UL << order, (1UL << order) - 1,
					  0);
			FZ_EQ(&f, rc, want < nbits ? 0 : -ENOMEM,
			      "find_free_region");
			if (rc)
				break;
			FZ_EQ(&f, pos, want, "find_free_region pos");
			for (unsigned long i = pos; i < pos + (1UL << order);
			     i++)
				bits[i] = true;
			break;
		case 7: /* allocate_region */
		case 8: /* release_region */
			order = fz_u8(&f) % 8;
			if (nbits < (1UL << order))
				break;
			s = fz_below(&f, nbits - (1UL << order) + 1);
			n = 1UL << order;
			if (op == 8) {
				rg_bitmap_release_region(map, s, order);
				for (unsigned long i = s; i < s + n; i++)
					bits[i] = false;
				break;
			}
			rc = rg_bitmap_allocate_region(map, s, order);
			want = 0;
			for (unsigned long i = s; i < s + n; i++)
				want |= bits[i];
			FZ_EQ(&f, rc, want ? -EBUSY : 0, "allocate_region");
			if (!rc)
				for (unsigned long i = s; i < s + n; i++)
					bits[i] = true;
			break;
		default:
			rg_bitmap_dump(map, nbits, fz_null());
			check(&f, map, true);
			break;
		}
		check(&f, map, f.op % 16 == 0);
	}
	check(&f, map, true);
	rg_bitmap_free(map);
	return 0;
}
