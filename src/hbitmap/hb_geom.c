// SPDX-License-Identifier: MIT
/*
 * hbitmap: geometry, create, destroy and resize. Theory of operation.
 *
 * Geometry
 *   One data array per instance holds the words, the g values of every
 *   level, the nodes and the block summaries, in that order; its offsets
 *   follow from the capacity alone (rgi_hb_geometry(), which validation
 *   checks against). Levels are added until one node covers the blocks.
 *
 * Create and resize
 *   The only calls that allocate (rgi_calloc, so fault injection reaches
 *   them): the handle, the data array, and on best-fit instances the
 *   change list (a quarter of the block count, at least 64 entries) and
 *   the index. Resize allocates the new array (and change list) before
 *   changing anything, copies the words, builds every summary and drops
 *   the index (rebuilt by the next best-fit allocation). Both note the
 *   bytes held and their peak (struct hb_mem). hbitmap.c calls nothing
 *   here.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hb_internal.h"
#include "rg_internal.h"
#include "region/hbitmap.h"

void rgi_hb_geometry(uint64_t capacity, struct hb_geom *g)
{
	uint64_t c;
	size_t off;

	g->nblocks = (capacity + HB_BLOCK_BITS - 1) >> HB_BLOCK_SHIFT;
	c = g->nblocks;
	g->nlevels = 0;
	do {
		c = (c + 63) >> HB_FAN_SHIFT;
		g->count[g->nlevels++] = c;
	} while (c > 1);
	g->words_off = 0;
	off = (size_t)g->nblocks * HB_BLOCK_WORDS * sizeof(uint64_t);
	for (unsigned k = 0; k < g->nlevels; k++) {
		g->g_off[k] = off;
		off += (size_t)g->count[k] * 64 * sizeof(int16_t);
	}
	for (unsigned k = 0; k < g->nlevels; k++) {
		g->nodes_off[k] = off;
		off += (size_t)g->count[k] * sizeof(struct hb_node);
	}
	g->bsum_off = off;
	off += (size_t)g->nblocks * sizeof(uint32_t);
	g->total = off;
}

static void hb_attach(struct rg_hbitmap *hb, char *data,
		      const struct hb_geom *g, uint64_t capacity)
{
	hb->capacity = capacity;
	hb->nblocks = g->nblocks;
	hb->nlevels = g->nlevels;
	hb->words = (uint64_t *)(data + g->words_off);
	hb->bsum = (uint32_t *)(data + g->bsum_off);
	for (unsigned k = 0; k < HB_MAX_LEVELS; k++) {
		hb->lv[k] = k < g->nlevels ?
				    (struct hb_node *)(data + g->nodes_off[k]) :
				    NULL;
		hb->gv[k] =
			k < g->nlevels ? (int16_t *)(data + g->g_off[k]) : NULL;
		hb->lv_count[k] = k < g->nlevels ? g->count[k] : 0;
	}
	hb->data_bytes = g->total;
	hb->pend = HB_NONE;
	hb->pend_alloc = false;
	hb->last_end = 0;
	hb->chain_s = HB_NONE;
	hb_before_reset(hb);
}

/* Mark the padding past the capacity as allocated. */
static void hb_set_padding(struct rg_hbitmap *hb)
{
	uint64_t end = hb->nblocks << HB_BLOCK_SHIFT;

	if (hb->capacity < end)
		hb_bits(hb->words, hb->capacity, end, true);
}

/*
 * The handle or the bitmap changed size: the peak of bytes held follows
 * (the index keeps the peak across its own growth, on this base).
 */
static void hb_note_bytes(struct rg_hbitmap *hb)
{
	hb->mem.base =
		sizeof(*hb) + hb->data_bytes + hb->chg_max * sizeof(*hb->chg);
	hb_mem_note(&hb->mem);
}

struct rg_hbitmap *rg_hbitmap_create(uint64_t capacity)
{
	return rg_hbitmap_create_flags(capacity, 0);
}

struct rg_hbitmap *rg_hbitmap_create_flags(uint64_t capacity,
					   unsigned int flags)
{
	struct rg_hbitmap *hb;
	struct hb_geom g;
	char *data;

	if (capacity == 0 || capacity > RG_HBITMAP_MAX_CAPACITY ||
	    (flags & ~RG_HBITMAP_BEST_FIT)) {
		errno = EINVAL;
		return NULL;
	}
	rgi_hb_geometry(capacity, &g);
	hb = rgi_calloc(1, sizeof(*hb));
	if (!hb) {
		errno = ENOMEM;
		return NULL;
	}
	data = rgi_calloc(1, g.total);
	if (!data) {
		rgi_free(hb);
		errno = ENOMEM;
		return NULL;
	}
	hb_attach(hb, data, &g, capacity);
	hb->free_units = capacity;
	hb_set_padding(hb);
	rgi_hb_build(hb, true);
	if (flags & RG_HBITMAP_BEST_FIT) {
		hb->chg_max = hb_chg_size(g.nblocks);
		hb->chg = rgi_calloc(hb->chg_max, sizeof(*hb->chg));
		hb->runs = hb->chg ? rgi_hb_runs_create(hb->words, capacity,
							&hb->mem) :
				     NULL;
		if (!hb->runs) {
			rg_hbitmap_destroy(hb);
			errno = ENOMEM;
			return NULL;
		}
	}
	hb_note_bytes(hb);
	return hb;
}

void rg_hbitmap_destroy(struct rg_hbitmap *hb)
{
	if (!hb)
		return;
	rgi_hb_runs_destroy(hb->runs);
	rgi_free(hb->chg);
	rgi_free(hb->words);
	rgi_free(hb);
}

int rg_hbitmap_resize(struct rg_hbitmap *hb, uint64_t capacity)
{
	uint64_t keep, nwords, old, *chg = NULL, cmax = 0;
	struct hb_geom g;
	char *data;

	if (!hb || capacity == 0 || capacity > RG_HBITMAP_MAX_CAPACITY)
		return -EINVAL;
	if (capacity < hb->capacity &&
	    !hb_bits_are(hb->words, capacity, hb->capacity, false))
		return -EBUSY;
	rgi_hb_geometry(capacity, &g);
	if (hb->runs) { /* the change list follows the block count */
		cmax = hb_chg_size(g.nblocks);
		chg = rgi_calloc(cmax, sizeof(*chg));
		if (!chg)
			return -ENOMEM;
	}
	data = rgi_calloc(1, g.total);
	if (!data) {
		rgi_free(chg);
		return -ENOMEM;
	}
	old = hb->capacity;
	keep = capacity < old ? capacity : old;
	nwords = (keep + 63) >> 6;
	memcpy(data + g.words_off, hb->words, nwords * sizeof(uint64_t));
	rgi_free(hb->words);
	hb_attach(hb, data, &g, capacity);
	/* Units in [keep, capacity) are new: clear the tail of the last word. */
	if (keep & 63)
		hb->words[keep >> 6] &= ~(~0ULL << (keep & 63));
	if (capacity > old)
		hb->free_units += capacity - old;
	else
		hb->free_units -= old - capacity; /* the cut units were free */
	hb_set_padding(hb);
	rgi_hb_build(hb, false);
	hb->sum_stale = false;
	hb->chg_n = 0;
	if (hb->runs) {
		rgi_free(hb->chg);
		hb->chg = chg;
		hb->chg_max = cmax;
		rgi_hb_runs_reset(hb->runs); /* rebuilt by the next best fit */
	}
	hb_note_bytes(hb);
	return 0;
}

int rg_hbitmap_test(const struct rg_hbitmap *hb, uint64_t unit)
{
	if (!hb || unit >= hb->capacity)
		return -EINVAL;
	return (int)((hb->words[unit >> 6] >> (unit & 63)) & 1);
}

uint64_t rg_hbitmap_capacity(const struct rg_hbitmap *hb)
{
	return hb ? hb->capacity : 0;
}
