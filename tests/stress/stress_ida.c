// SPDX-License-Identifier: MIT
/*
 * Randomized IDA test against a reference model: plain bit arrays over
 * three windows of the ID space (the bottom, around 65536, and the top
 * ending at INT_MAX). At least 10^6 mixed operations: alloc_range with
 * random bounds inside a window (and unbounded from the bottom one),
 * alloc_min / alloc_max, frees of allocated and unallocated IDs, exists and
 * is_empty, in alternating fill and drain phases so chunks go through every
 * form (nothing, value entry, bitmap, full bitmap) and back. Every result is
 * compared with the model; the sanitizer build validates after every
 * operation. Prints its seed (RG_SEED repeats).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "region/ida.h"
#include "region/xarray.h"
#include "rg_test.h"

#define NWIN 3
#define LBITS 64

struct window {
	unsigned int lo, n; /* IDs lo .. lo + n - 1 */
	unsigned long *bits;
	unsigned int used;
};

static struct rg_rand rng;
static struct window win[NWIN];
/* Coverage: times a 1024-ID chunk was seen full, and bitmaps at a peak. */
static unsigned long full_seen;
static size_t peak_bitmaps;

static bool ref_test(struct window *w, unsigned int id)
{
	unsigned int k = id - w->lo;

	return (w->bits[k / LBITS] >> (k % LBITS)) & 1;
}

static void ref_flip(struct window *w, unsigned int id)
{
	unsigned int k = id - w->lo;

	w->bits[k / LBITS] ^= 1UL << (k % LBITS);
}

/* Lowest free ID in [min, max] inside @w, or UINT_MAX. */
static unsigned int ref_lowest_free(struct window *w, unsigned int min,
				    unsigned int max)
{
	for (unsigned int id = min; id <= max; id++) {
		unsigned int k = id - w->lo;

		if (k % LBITS == 0 && w->bits[k / LBITS] == ~0UL &&
		    max - id >= LBITS) {
			id += LBITS - 1;
			continue;
		}
		if (!ref_test(w, id))
			return id;
		if (id == max)
			break;
	}
	return UINT_MAX;
}

static void check_all(struct rg_ida *ida)
{
	unsigned int total = 0;

	for (int i = 0; i < NWIN; i++) {
		struct window *w = &win[i];

		for (unsigned int k = 0; k < w->n; k++)
			assert_int_equal(rg_ida_exists(ida, w->lo + k),
					 ref_test(w, w->lo + k));
		total += w->used;
	}
	assert_int_equal(rg_ida_is_empty(ida), total == 0);
	assert_int_equal(rg_ida_bytes(ida),
			 sizeof(*ida) + 128 * rg_ida_bitmap_count(ida) +
				 rg_xa_node_size() *
					 rg_xa_node_count(&ida->xa));
}

static void do_alloc(struct rg_ida *ida, struct window *w, unsigned int min,
		     unsigned int max, unsigned long op)
{
	unsigned int want = ref_lowest_free(
		w, min, max < w->lo + w->n - 1 ? max : w->lo + w->n - 1);
	unsigned int id = 12345;
	int err = rg_ida_alloc_range(ida, min, max, &id);

	if (want == UINT_MAX) {
		if (err != -ENOSPC)
			fail_msg("op %lu: alloc [%u, %u] gave %d id %u", op,
				 min, max, err, id);
		assert_int_equal(id, 12345);
		return;
	}
	if (err || id != want)
		fail_msg("op %lu: alloc [%u, %u] gave %d id %u, want %u", op,
			 min, max, err, id, want);
	ref_flip(w, id);
	w->used++;
	/* Windows are chunk-aligned: the chunk of @id lies inside @w. */
	if (ref_lowest_free(w, id & ~1023u, id | 1023u) == UINT_MAX)
		full_seen++;
}

static unsigned int rand_in(struct window *w)
{
	return w->lo + (unsigned int)rg_rand_below(&rng, w->n);
}

static void run(unsigned long ops)
{
	RG_DEFINE_IDA(ida);
	bool fill = true;
	unsigned long op;

	for (op = 0; op < ops; op++) {
		unsigned int kind = (unsigned int)rg_rand_below(&rng, 100);
		unsigned int wi = (unsigned int)rg_rand_below(&rng, 10);
		struct window *w = &win[wi < 6 ? 0 : wi < 8 ? 1 : 2];
		unsigned int whi = w->lo + w->n - 1, id, min, max;
		int err;

		if (op % 40000 == 0)
			fill = !fill;
		if (kind < (fill ? 62 : 40)) {
			min = rand_in(w);
			switch (rg_rand_below(&rng, 4)) {
			case 0:
				max = whi;
				break;
			case 1:
				max = min +
				      (unsigned int)rg_rand_below(&rng, 64);
				break;
			case 2:
				min = w->lo;
				max = whi;
				break;
			default:
				max = min + (unsigned int)rg_rand_below(
						    &rng, whi - min + 1);
				break;
			}
			if (max > whi)
				max = whi;
			/* Unbounded above when the window still has room. */
			if (rg_rand_below(&rng, 4) == 0 &&
			    ref_lowest_free(w, min, whi) != UINT_MAX)
				max = rg_rand_below(&rng, 2) ? UINT_MAX :
							       INT_MAX;
			do_alloc(&ida, w, min, max, op);
		} else if (kind < 92) {
			id = rand_in(w);
			/* Mostly free something that is allocated. */
			if (rg_rand_below(&rng, 10) < 8 && w->used) {
				unsigned int k = id - w->lo, n;

				for (n = 0; n < w->n; n++) {
					if (ref_test(w, w->lo + k))
						break;
					k = (k + 1) % w->n;
				}
				id = w->lo + k;
			}
			err = rg_ida_free(&ida, id);
			if (ref_test(w, id)) {
				assert_int_equal(err, 0);
				ref_flip(w, id);
				w->used--;
			} else {
				assert_int_equal(err, -ENOENT);
			}
		} else if (kind < 96) {
			id = rand_in(w);
			assert_int_equal(rg_ida_exists(&ida, id),
					 ref_test(w, id));
		} else if (kind < 98) {
			/* Out of range and empty ranges: nothing changes. */
			unsigned int past =
				(unsigned int)INT_MAX + 1 +
				(unsigned int)rg_rand_below(&rng, 1000);

			assert_int_equal(rg_ida_alloc_min(&ida, past, &id),
					 -ENOSPC);
			assert_int_equal(rg_ida_free(&ida, past), -ENOENT);
			min = rand_in(w);
			if (min > 0)
				assert_int_equal(rg_ida_alloc_range(&ida, min,
								    min - 1,
								    &id),
						 -ENOSPC);
		} else if (kind < 99) {
			/* alloc_max with max inside the bottom window. */
			max = rand_in(&win[0]);
			do_alloc(&ida, &win[0], 0, max, op);
		} else if (rg_rand_below(&rng, 1000) == 0) {
			rg_ida_destroy(&ida);
			assert_true(rg_ida_is_empty(&ida));
			for (int i = 0; i < NWIN; i++) {
				memset(win[i].bits, 0,
				       win[i].n / LBITS *
					       sizeof(unsigned long));
				win[i].used = 0;
			}
		} else if (rg_rand_below(&rng, 10) == 0) {
			/* A frees-everything sweep of one window. */
			for (id = w->lo; id <= whi; id++) {
				if (!ref_test(w, id))
					continue;
				assert_int_equal(rg_ida_free(&ida, id), 0);
				ref_flip(w, id);
				w->used--;
			}
		}
		if (RG_THOROUGH || op % 2048 == 0)
			RG_ASSERT_VALIDF(&ida, "op %lu", op);
		if (op % 50000 == 0)
			check_all(&ida);
		if (op % 1000 == 0 && rg_ida_bitmap_count(&ida) > peak_bitmaps)
			peak_bitmaps = rg_ida_bitmap_count(&ida);
	}
	RG_ASSERT_VALIDF(&ida, "op %lu", op);
	check_all(&ida);
	rg_ida_destroy(&ida);
	assert_true(rg_ida_is_empty(&ida));
}

static void test_random(void **state)
{
	static const unsigned int lo[NWIN] = { 0, 65536 - 2048,
					       (unsigned int)INT_MAX - 4095 };
	static const unsigned int n[NWIN] = { 8192, 4096, 4096 };
	struct rg_slab_stats sn, sb;
	size_t base_n, base_b;

	(void)state;
	rg_rand_seed(&rng, rg_test_seed());
	for (int i = 0; i < NWIN; i++) {
		win[i].lo = lo[i];
		win[i].n = n[i];
		win[i].bits = calloc(n[i] / LBITS, sizeof(unsigned long));
		assert_non_null(win[i].bits);
	}
	assert_int_equal(rg_xa_node_cache_stats(&sn), 0);
	assert_int_equal(rg_ida_bitmap_cache_stats(&sb), 0);
	base_n = sn.objects_in_use;
	base_b = sb.objects_in_use;
	run(1000000);
	printf("# chunks filled: %lu, peak bitmaps: %zu\n", full_seen,
	       peak_bitmaps);
	assert_true(full_seen > 0);
	assert_int_equal(rg_xa_node_cache_stats(&sn), 0);
	assert_int_equal(rg_ida_bitmap_cache_stats(&sb), 0);
	assert_int_equal(sn.objects_in_use, base_n);
	assert_int_equal(sb.objects_in_use, base_b);
	for (int i = 0; i < NWIN; i++)
		free(win[i].bits);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
