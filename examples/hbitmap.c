// SPDX-License-Identifier: MIT
/*
 * hbitmap: libregion's own region allocator used directly, without the
 * rg_region front end: here the blocks of a 64 MiB device in 4 KiB units.
 *
 * What it shows:
 *  - rg_hbitmap_alloc(): the lowest free run of N units, optionally
 *    aligned (the same answer a linear bitmap search gives, found in
 *    logarithmic time);
 *  - rg_hbitmap_alloc_range(): the same inside a window of units;
 *  - rg_hbitmap_reserve(): a fixed placement (a superblock at unit 0);
 *  - rg_hbitmap_free(): units, not regions, are recorded, so any part of an
 *    allocation may be freed; freeing a free unit is refused;
 *  - rg_hbitmap_resize(): grow the device;
 *  - the counters and the memory held (about 1.1 bits per unit).
 * The caller serialises calls on one hbitmap (it has no lock of its own).
 * Exits 0 when every step behaves as documented.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <libregion.h>

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "hbitmap: failed: %s (line %d)\n", \
				#cond, __LINE__);                          \
			return 1;                                          \
		}                                                          \
	} while (0)

#define UNITS (64u << 20 >> 12) /* 16384 blocks of 4 KiB */

int main(void)
{
	struct rg_hbitmap *hb = rg_hbitmap_create(UNITS);
	uint64_t a, b, c, d, start;

	CHECK(hb != NULL);

	/* The superblock and a journal at fixed places. */
	CHECK(rg_hbitmap_reserve(hb, 0, 8) == 0);
	CHECK(rg_hbitmap_reserve(hb, 8, 248) == 0);
	/* Overlapping a taken unit: -EBUSY, and nothing changes. */
	CHECK(rg_hbitmap_reserve(hb, 255, 2) == -EBUSY);
	CHECK(rg_hbitmap_test(hb, 256) == 0);

	/* First fit: the lowest free run. 256..355, then 356..359. */
	CHECK(rg_hbitmap_alloc(hb, 100, 1, &a) == 0 && a == 256);
	CHECK(rg_hbitmap_alloc(hb, 4, 1, &b) == 0 && b == 356);
	/* Aligned to 512 units (2 MiB): the first multiple of 512 that fits. */
	CHECK(rg_hbitmap_alloc(hb, 512, 512, &c) == 0 && c == 512);
	/* Inside a window: the lowest fit in units [8192, 12287]. */
	CHECK(rg_hbitmap_alloc_range(hb, 64, 1, 8192, 12287, &d) == 0 &&
	      d == 8192);
	printf("a=%" PRIu64 " b=%" PRIu64 " c=%" PRIu64 " d=%" PRIu64 "\n", a,
	       b, c, d);

	/* Free the middle 50 units of a: a hole the next fit reuses. */
	CHECK(rg_hbitmap_free(hb, a + 25, 50) == 0);
	CHECK(rg_hbitmap_alloc(hb, 50, 1, &start) == 0 && start == a + 25);
	CHECK(rg_hbitmap_free(hb, a, 100) == 0);
	/* A double free is refused (-ENOENT) and changes nothing. */
	CHECK(rg_hbitmap_free(hb, a, 100) == -ENOENT);
	/* So are a size of 0 and a range past the capacity (-EINVAL). */
	CHECK(rg_hbitmap_alloc(hb, 0, 1, &start) == -EINVAL);
	CHECK(rg_hbitmap_free(hb, UNITS - 1, 2) == -EINVAL);
	/* Alignment must be a power of two. */
	CHECK(rg_hbitmap_alloc(hb, 8, 3, &start) == -EINVAL);

	/*
	 * Nothing fits: -ENOSPC. Growing the device makes room: the new units
	 * are free and join the free run that ends the old capacity, so the
	 * first fit starts right after d.
	 */
	CHECK(rg_hbitmap_alloc(hb, UNITS, 1, &start) == -ENOSPC);
	CHECK(rg_hbitmap_resize(hb, 2 * UNITS) == 0);
	CHECK(rg_hbitmap_alloc(hb, UNITS, 1, &start) == 0 && start == d + 64);

	printf("capacity %" PRIu64 ", free %" PRIu64
	       ", largest free run %" PRIu64 ", %zu bytes held\n",
	       rg_hbitmap_capacity(hb), rg_hbitmap_free_units(hb),
	       rg_hbitmap_largest_free_run(hb), rg_hbitmap_bytes(hb));
	CHECK(rg_hbitmap_free_units(hb) ==
	      2 * UNITS - 256 - 4 - 512 - 64 - UNITS);
	CHECK(rg_hbitmap_validate(hb, NULL) == 0);
	rg_hbitmap_destroy(hb);
	return 0;
}
