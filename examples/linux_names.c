// SPDX-License-Identifier: MIT
/*
 * linux_names: code written against the kernel's API, built against
 * libregion through <region/linux.h>.
 *
 * A toy driver in kernel style: a kmem_cache of request objects, an IDA for
 * device numbers, an xarray from request tag to request, a Maple Tree of
 * mapped address ranges (MA_STATE and the mas_* advanced API), and a bitmap
 * of DMA slots. Everything keeps the kernel's argument order and return
 * conventions: ida_alloc*() return the ID or a negative errno, xa_store()
 * returns the old entry or an error entry (xa_is_err() / xa_err()),
 * kmem_cache_alloc_bulk() returns the count, bitmap_find_next_zero_area()
 * returns a position or the size. gfp flags are accepted and ignored,
 * except __GFP_ZERO, which zeroes the object.
 * Exits 0 when every step behaves as the kernel documents.
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include <region/linux.h>

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "linux_names: failed: %s (line %d)\n", \
				#cond, __LINE__);                              \
			return 1;                                              \
		}                                                              \
	} while (0)

struct request {
	uint32_t tag;
	int dev;
	char payload[120];
};

#define NR_SLOTS 256

static DEFINE_IDA(dev_ida);
static DEFINE_XARRAY_ALLOC(requests);
static DEFINE_MTREE(mappings);
static DECLARE_BITMAP(dma_slots, NR_SLOTS);

int main(void)
{
	struct kmem_cache *cache;
	struct request *rq, *batch[8];
	unsigned long index, start;
	void *entry;
	uint32_t tag;
	int dev, n;

	/* ---- slab ---- */
	cache = kmem_cache_create("request", sizeof(struct request), 0,
				  SLAB_HWCACHE_ALIGN, NULL);
	CHECK(cache);
	rq = kmem_cache_zalloc(cache, GFP_KERNEL); /* zeroed */
	CHECK(rq && rq->tag == 0 && rq->payload[0] == 0);
	/* Bulk: all 8 or none; returns the number allocated. */
	CHECK(kmem_cache_alloc_bulk(cache, GFP_KERNEL, 8, (void **)batch) == 8);

	/* ---- IDA: the lowest free device number ---- */
	dev = ida_alloc(&dev_ida, GFP_KERNEL);
	CHECK(dev == 0);
	CHECK(ida_alloc_range(&dev_ida, 10, 19, GFP_KERNEL) == 10);
	CHECK(ida_alloc_range(&dev_ida, 10, 10, GFP_KERNEL) == -ENOSPC);
	ida_free(&dev_ida, 10);

	/* ---- xarray: tag -> request, tags allocated by the array ---- */
	for (int i = 0; i < 8; i++) {
		CHECK(xa_alloc(&requests, &tag, batch[i], xa_limit_31b,
			       GFP_KERNEL) == 0);
		batch[i]->tag = tag;
		batch[i]->dev = dev;
	}
	CHECK(xa_load(&requests, 5) == batch[5]);
	/* xa_store returns the previous entry, or an error entry. */
	entry = xa_store(&requests, 5, rq, GFP_KERNEL);
	CHECK(!xa_is_err(entry) && entry == batch[5]);
	entry = xa_store(&requests, 6, (void *)0x2, GFP_KERNEL); /* reserved */
	CHECK(xa_is_err(entry) && xa_err(entry) == -EINVAL);
	xa_set_mark(&requests, 3, XA_MARK_1);
	n = 0;
	xa_for_each_marked(&requests, index, entry, XA_MARK_1) n++;
	CHECK(n == 1);
	CHECK(xa_erase(&requests, 5) == rq);
	CHECK(xa_store(&requests, 5, batch[5], GFP_KERNEL) == NULL);

	/* ---- Maple Tree: mapped ranges, as the mm tracks VMAs ---- */
	CHECK(mtree_store_range(&mappings, 0x1000, 0x1fff, batch[0],
				GFP_KERNEL) == 0);
	CHECK(mtree_store_range(&mappings, 0x4000, 0x5fff, batch[1],
				GFP_KERNEL) == 0);
	CHECK(mtree_insert(&mappings, 0x1800, batch[2], GFP_KERNEL) == -EEXIST);
	CHECK(mtree_load(&mappings, 0x4abc) == batch[1]);
	{
		MA_STATE(mas, &mappings, 0, 0);

		/* The advanced API: the caller holds the lock. */
		mtree_lock(&mappings);
		/* A free gap of 0x2000 between 0x1000 and 0xffff: 0x2000. */
		CHECK(mas_empty_area(&mas, 0x1000, 0xffff, 0x2000) == 0);
		start = mas.index;
		CHECK(start == 0x2000 && mas.last == 0x3fff);
		CHECK(mas_store_gfp(&mas, batch[2], GFP_KERNEL) == 0);
		/* Walk every range in order. */
		mas_set(&mas, 0);
		n = 0;
		mas_for_each(&mas, entry, ULONG_MAX)
		{
			printf("[%#lx, %#lx] request %u\n", mas.index, mas.last,
			       ((struct request *)entry)->tag);
			n++;
		}
		mtree_unlock(&mappings);
		CHECK(n == 3);
	}
	CHECK(mtree_erase(&mappings, 0x2100) == batch[2]);
	CHECK(mt_validate(&mappings) == 0);
	mtree_destroy(&mappings);

	/* ---- bitmap: contiguous DMA slots ---- */
	bitmap_zero(dma_slots, NR_SLOTS);
	bitmap_set(dma_slots, 0, 5);
	/* 16 free slots, aligned to 8 (align_mask 7): slot 8. */
	index = bitmap_find_next_zero_area(dma_slots, NR_SLOTS, 0, 16, 7);
	CHECK(index == 8);
	bitmap_set(dma_slots, index, 16);
	CHECK(bitmap_weight(dma_slots, NR_SLOTS) == 21);
	/* No room: the search returns a position past the end. */
	CHECK(bitmap_find_next_zero_area(dma_slots, NR_SLOTS, 0, 300, 0) >=
	      NR_SLOTS);
	/* A power-of-two region: order 2 is 4 slots, at the first free one. */
	CHECK(bitmap_find_free_region(dma_slots, NR_SLOTS, 2) == 24);
	bitmap_release_region(dma_slots, 24, 2);
	bitmap_clear(dma_slots, 0, 5);
	bitmap_clear(dma_slots, 8, 16);
	CHECK(bitmap_empty(dma_slots, NR_SLOTS));

	/* ---- teardown ---- */
	xa_for_each(&requests, index, entry)
		xa_erase(&requests, index);
	xa_destroy(&requests);
	kmem_cache_free_bulk(cache, 8, (void **)batch);
	kmem_cache_free(cache, rq);
	ida_free(&dev_ida, dev);
	CHECK(ida_is_empty(&dev_ida));
	ida_destroy(&dev_ida);
	kmem_cache_destroy(cache);
	return 0;
}
