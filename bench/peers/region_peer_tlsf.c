// SPDX-License-Identifier: MIT
/*
 * TLSF (github.com/mattconte/tlsf) as a region allocator of units, for
 * make bench-peers. TLSF manages real memory and keeps its block headers
 * inside it, so the adapter gives it a pool of capacity x 32 bytes (one
 * unit = 32 bytes, TLSF's smallest block) reserved with mmap and faulted
 * in at creation (untimed). A used block costs TLSF one 8-byte size
 * field before its payload, so n units are requested as n x 32 - 8 bytes:
 * every block then spans exactly n units, blocks tile the pool at unit
 * granularity and a start is (payload - base) / 32. Alignment is TLSF's
 * own tlsf_memalign() with align x 32 bytes (the pool base is aligned to
 * the pool's size, so byte and unit alignment agree); it searches for
 * n + align + 1 units and trims, as TLSF does.
 *
 * Memory: tlsf_size() plus 32 bytes per block (used or free), counted by
 * walking the pool: the headers an offset allocator over GPU or disk
 * space would have to keep outside the space it manages. Its times include
 * the cache misses of reaching headers spread over capacity x 32 bytes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "region_peer.h"
#include "tlsf.h"

#define UNIT 32UL

struct tlsf_peer {
	tlsf_t t;
	pool_t pool;
	void *ctl, *map;
	size_t maplen, align; /* base alignment: the pool size, a power of 2 */
	char *base; /* the payload of unit 0 */
};

void *rbp_tlsf_create(unsigned long cap);
int rbp_tlsf_alloc(void *p, unsigned long n, unsigned long align,
		   unsigned long *start, unsigned long *handle);
void rbp_tlsf_free(void *p, unsigned long start, unsigned long n,
		   unsigned long handle);
size_t rbp_tlsf_bytes(void *p);
void rbp_tlsf_destroy(void *p);

void *rbp_tlsf_create(unsigned long cap)
{
	struct tlsf_peer *tp = calloc(1, sizeof(*tp));
	size_t bytes = cap * UNIT, a = 4096;
	uintptr_t b;

	if (!tp)
		return NULL;
	while (a < bytes)
		a *= 2;
	tp->maplen = 2 * a + 4096;
	tp->map = mmap(NULL, tp->maplen, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	tp->ctl = aligned_alloc(tlsf_align_size() > 8 ? tlsf_align_size() : 8,
				(tlsf_size() + 63) & ~(size_t)63);
	if (tp->map == MAP_FAILED || !tp->ctl)
		goto fail;
	b = ((uintptr_t)tp->map + 16 + a - 1) & ~(uintptr_t)(a - 1);
	tp->align = a;
	tp->base = (char *)b;
	/* Fault the pool in now, untimed: no page fault in a timed call. */
	for (size_t off = 0; off < bytes + 4096; off += 4096)
		(tp->base - 8)[off] = 0;
	tp->t = tlsf_create(tp->ctl);
	/* The first block's size field sits 8 bytes before unit 0. */
	tp->pool = tp->t ? tlsf_add_pool(tp->t, tp->base - 8, bytes + 8) : NULL;
	if (tp->pool)
		return tp;
fail:
	rbp_tlsf_destroy(tp);
	return NULL;
}

int rbp_tlsf_alloc(void *p, unsigned long n, unsigned long align,
		   unsigned long *start, unsigned long *handle)
{
	struct tlsf_peer *tp = p;
	char *q;

	/* Past the pool's size only unit 0 is aligned: the same request. */
	if (align * UNIT > tp->align)
		align = tp->align / UNIT;
	q = align > 1 ? tlsf_memalign(tp->t, align * UNIT, n * UNIT - 8) :
			tlsf_malloc(tp->t, n * UNIT - 8);

	if (!q)
		return -ENOSPC;
	*start = (unsigned long)(q - tp->base) / UNIT;
	*handle = 0;
	return 0;
}

void rbp_tlsf_free(void *p, unsigned long start, unsigned long n,
		   unsigned long handle)
{
	struct tlsf_peer *tp = p;

	(void)n;
	(void)handle;
	tlsf_free(tp->t, tp->base + start * UNIT);
}

static void count_block(void *ptr, size_t size, int used, void *user)
{
	(void)ptr;
	(void)size;
	(void)used;
	(*(size_t *)user)++;
}

size_t rbp_tlsf_bytes(void *p)
{
	struct tlsf_peer *tp = p;
	size_t blocks = 0;

	tlsf_walk_pool(tp->pool, count_block, &blocks);
	return tlsf_size() + 32 * blocks;
}

void rbp_tlsf_destroy(void *p)
{
	struct tlsf_peer *tp = p;

	if (!tp)
		return;
	if (tp->map && tp->map != MAP_FAILED)
		munmap(tp->map, tp->maplen);
	free(tp->ctl);
	free(tp);
}

static const struct rb_region_peer tlsf_peer = {
	.name = "tlsf",
	.placement = "good",
	.legend = "tlsf: TLSF over a pool of 32-byte units, blocks tiling it "
		  "exactly; alignment by its tlsf_memalign(); bytes: "
		  "tlsf_size() + 32 B per block, used or free, as headers "
		  "kept outside the managed space; its times include the "
		  "cache misses of headers spread over capacity x 32 bytes.",
	/* TLSF's largest block is 4 GiB: 2^27 units of 32 bytes. */
	.max_capacity = (1UL << 27) - 1,
	.create = rbp_tlsf_create,
	.alloc = rbp_tlsf_alloc,
	.free = rbp_tlsf_free,
	.bytes = rbp_tlsf_bytes,
	.destroy = rbp_tlsf_destroy,
};

__attribute__((constructor)) static void register_tlsf(void)
{
	rb_region_peer_register(&tlsf_peer);
}
