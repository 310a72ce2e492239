/* SPDX-License-Identifier: MIT */
/*
 * Private to src/hbitmap: what hbitmap.c shares with hb_window.c (top-down,
 * windows, the walk), hb_geom.c (geometry, create, resize), hb_place.c
 * (word scans), hb_runs.c (the best-fit index) and hbitmap_check.c
 * (validation and the dump): the layout of the structure (see the top of
 * hbitmap.c) and the helpers on bit ranges. Calls go one way: hbitmap.c
 * calls hb_runs.c and hb_place.c; hb_window.c, hb_geom.c and
 * hbitmap_check.c call hbitmap.c; hb_runs.c calls only
 * hb_place.c, so the index's hot paths (hbitmap_adv.h's best-fit
 * allocation and free, which set and clear the bits themselves) use the
 * inline helpers here.
 */
#ifndef RGI_HB_INTERNAL_H
#define RGI_HB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rg_internal.h"

#ifdef __SSE2__
#include <emmintrin.h>
#define HB_SIMD 1
#endif

#define RGI_HB_NONE UINT64_MAX

/*
 * Highest s with (s & mask) == 0, lo <= s, s + n <= hi and units
 * [s, s + n) free, or RGI_HB_NONE. A scan of the words from hi down.
 */
uint64_t rgi_hb_find_rev(const uint64_t *w, uint64_t lo, uint64_t hi,
			 uint64_t n, uint64_t mask) RGI_HIDDEN;

/* Highest allocated unit below x, or RGI_HB_NONE. */
uint64_t rgi_hb_prev_set(const uint64_t *w, uint64_t x) RGI_HIDDEN;
/* Lowest allocated unit at or after x, or cap. */
uint64_t rgi_hb_next_set(const uint64_t *w, uint64_t cap,
			 uint64_t x) RGI_HIDDEN;

struct rgi_hb_runs;

/*
 * Bytes an instance holds, the one head both halves write: hbitmap.c its
 * own (handle, data array, change list), the best-fit index its own, and
 * whoever changes either moves the peak with hb_mem_note().
 */
struct hb_mem {
	size_t base; /* hbitmap.c's */
	size_t index; /* the best-fit index's */
	size_t peak; /* the largest base + index so far */
};

static inline void hb_mem_note(struct hb_mem *m)
{
	if (m->base + m->index > m->peak)
		m->peak = m->base + m->index;
}

/*
 * An empty index for a bitmap of @cap units, its bytes kept in *@mem:
 * NULL when out of memory.
 */
struct rgi_hb_runs *rgi_hb_runs_create(const uint64_t *w, uint64_t cap,
				       struct hb_mem *mem) RGI_HIDDEN;
void rgi_hb_runs_destroy(struct rgi_hb_runs *ix) RGI_HIDDEN;
struct rg_hbitmap;
/* Units [s, s + n) were free and have just been set in @w. */
void rgi_hb_runs_taken(struct rgi_hb_runs *ix, const uint64_t *w, uint64_t cap,
		       uint64_t s, uint64_t n) RGI_HIDDEN;
/*
 * Best fit (rgi_hbitmap_alloc_best_adv()) for a start crossing no
 * multiple of bmask + 1 (0:
 * none; else bmask + 1 >= n): the smallest run holding such a fit, its
 * lowest fit. -EAGAIN (nothing changed) if the index is dropped: the
 * caller searches its summaries instead.
 */
int rgi_hb_runs_alloc_bounded(struct rg_hbitmap *hb, uint64_t n, uint64_t mask,
			      uint64_t bmask, uint64_t *start) RGI_HIDDEN;
/* The summaries are exact again (sync): the hot paths note changes again. */
void rgi_hb_runs_synced(struct rgi_hb_runs *ix) RGI_HIDDEN;
/*
 * Units [s, s + n) were allocated and have just been cleared in @w.
 * Returns 0 (so that a caller's last call is a tail call).
 */
int rgi_hb_runs_freed(struct rgi_hb_runs *ix, const uint64_t *w, uint64_t cap,
		      uint64_t s, uint64_t n) RGI_HIDDEN;
/* The bitmap changed wholesale (resize): forget the runs, rebuild later. */
void rgi_hb_runs_reset(struct rgi_hb_runs *ix) RGI_HIDDEN;
/* Length of the longest free run (a scan of @w if the index is dropped). */
uint64_t rgi_hb_runs_largest(const struct rgi_hb_runs *ix, const uint64_t *w,
			     uint64_t cap) RGI_HIDDEN;
/* Check @hb's index against its bitmap: 0 or -EINVAL with *reason. */
int rgi_hb_runs_validate(const struct rg_hbitmap *hb,
			 const char **reason) RGI_HIDDEN;
void rgi_hb_runs_dump(const struct rgi_hb_runs *ix, FILE *f) RGI_HIDDEN;

/* ---- the bitmap's layout (hbitmap.c; read by hbitmap_check.c) ---------- */

#define HB_BLOCK_SHIFT 9
#define HB_BLOCK_BITS (1u << HB_BLOCK_SHIFT)
#define HB_BLOCK_WORDS (HB_BLOCK_BITS / 64)
#define HB_FAN_SHIFT 6
#define HB_MAX_LEVELS 8
#define HB_NONE UINT64_MAX

/* Block summary packing: prefix, suffix, inner run, 10 bits each. */
#define HB_BS(p, s, i) \
	((uint32_t)(p) | ((uint32_t)(s) << 10) | ((uint32_t)(i) << 20))
#define HB_BS_FREE HB_BS(HB_BLOCK_BITS, HB_BLOCK_BITS, 0)
#define HB_BS_P(v) ((v)&1023)
#define HB_BS_S(v) (((v) >> 10) & 1023)
#define HB_BS_I(v) ((v) >> 20)

/* Stored g values saturate here (a stored maximum means "at least"). */
#define HB_G_MAX 32767

struct hb_node {
	uint64_t any; /* bit i: child i has a free unit */
	uint64_t all; /* bit i: child i is entirely free */
	uint64_t p, s, inner;
};

struct hb_sum {
	uint64_t p, s, inner;
};

struct rg_hbitmap {
	uint64_t capacity;
	uint64_t free_units;
	uint64_t nblocks;
	uint64_t *words;
	uint32_t *bsum;
	struct hb_node *lv[HB_MAX_LEVELS];
	int16_t *gv[HB_MAX_LEVELS]; /* 64 g values per node of level k */
	uint64_t lv_count[HB_MAX_LEVELS];
	unsigned nlevels;
	size_t data_bytes;
	struct hb_mem mem; /* rg_hbitmap_bytes(), rg_hbitmap_bytes_peak() */
	/* Pending block: bits may be ahead of its summary (see hbitmap.c). */
	uint64_t pend;
	bool pend_alloc; /* allocations proceed in address order here */
	uint64_t last_end; /* end of the last allocation */
	unsigned pend_hint; /* words below this in the pending block are full */
	unsigned pend_ops; /* mutations since its summary was exact, max 2 */
	unsigned pend_s, pend_e; /* the first one: units [s, e) of the block */
	bool pend_set; /* ... set (else cleared) */
	bool before_known; /* before_max / before_suffix computed */
	bool before_exact; /* false: the fold stopped early at before_max */
	uint64_t before_max;
	uint64_t before_suffix;
	uint64_t before_lim; /* fast path needs n > this; max if unknown */
	/*
	 * Deferred run (see hbitmap.c): units [chain_s, chain_e), ending
	 * at the pending block's first unit (set) or starting past its last
	 * (cleared), were all set (chain_set) or all cleared since the
	 * summaries of the blocks they cover, other than the pending one,
	 * were exact. chain_s is HB_NONE if none.
	 */
	uint64_t chain_s, chain_e;
	bool chain_set;
	struct rgi_hb_runs *runs; /* best-fit index (RG_HBITMAP_BEST_FIT) */
	bool sum_stale; /* best fit: summaries behind the bits, rebuilt lazily */
	/*
	 * Best fit, while sum_stale: the block ranges whose bits changed,
	 * chg_n of them (entries b0 << 16 | (b1 - b0)); past chg_max
	 * (chg_n stops at chg_max + 1), or for a range of 65,536 blocks or
	 * more, the next sync rebuilds every summary. Blocks not named have
	 * exact summaries.
	 */
	uint64_t *chg;
	uint64_t chg_n, chg_max;
};

/*
 * True if block b holds part of the deferred run: its stored summary is
 * the one from before the run.
 */
static inline bool hb_in_chain(const struct rg_hbitmap *hb, uint64_t b)
{
	uint64_t bs = b << HB_BLOCK_SHIFT;

	return hb->chain_s != HB_NONE && bs < hb->chain_e &&
	       bs + HB_BLOCK_BITS > hb->chain_s;
}

/*
 * Entries of the change list for @nblocks blocks: a quarter of the block
 * count (at least 64), where replaying the list still costs less than
 * rebuilding every summary.
 */
static inline uint64_t hb_chg_size(uint64_t nblocks)
{
	return nblocks / 4 > 64 ? nblocks / 4 : 64;
}

/*
 * Best fit: the bits of [s, s + n) changed behind the summaries. Once the
 * list has overflowed (chg_n = chg_max + 1) nothing more is noted: the
 * next sync rebuilds everything anyway.
 */
static inline void hb_chg_note(struct rg_hbitmap *hb, uint64_t s, uint64_t n)
{
	uint64_t b0 = s >> HB_BLOCK_SHIFT, b1 = (s + n - 1) >> HB_BLOCK_SHIFT;

	if (hb->chg_n > hb->chg_max)
		return;
	if (hb->chg_n < hb->chg_max)
		hb->chg[hb->chg_n] =
			b1 - b0 < 65536 ? b0 << 16 | (b1 - b0) : UINT64_MAX;
	hb->chg_n++;
}

/* Best fit: the bits are about to change behind exact summaries. */
static inline void hb_go_stale(struct rg_hbitmap *hb)
{
	hb->sum_stale = true;
	hb->chg_n = 0;
	RGI_DEBUG_ASSERT(hb->pend == HB_NONE && !hb->pend_alloc);
}

/* ---- bit ranges (hbitmap.c, hb_runs.c, hbitmap_check.c) --------------- */

/* Set (set) or clear the bits of [s, e), s < e. */

static inline void hb_bits(uint64_t *w, uint64_t s, uint64_t e, bool set)
{
	uint64_t i = s >> 6, last = (e - 1) >> 6;
	uint64_t fm = ~0ULL << (s & 63), lm = ~0ULL >> (63 - ((e - 1) & 63));

	if (i == last) {
		if (set)
			w[i] |= fm & lm;
		else
			w[i] &= ~(fm & lm);
		return;
	}
	if (set) {
		w[i] |= fm;
		for (i++; i < last; i++)
			w[i] = ~0ULL;
		w[last] |= lm;
	} else {
		w[i] &= ~fm;
		for (i++; i < last; i++)
			w[i] = 0;
		w[last] &= ~lm;
	}
}

#ifdef HB_SIMD
/*
 * Whole words from *i while at least eight remain before last, eight at
 * a time (one test per eight): false at the first eight not all equal to
 * want, else true with *i past them.
 */
static RGI_NOINLINE bool hb_words_are(const uint64_t *w, uint64_t *i,
				      uint64_t last, uint64_t want)
{
	const __m128i wv = _mm_set1_epi64x((long long)want);

	for (; *i + 8 <= last; *i += 8) {
		const __m128i *v = (const __m128i *)(w + *i);
		__m128i d = _mm_or_si128(
			_mm_or_si128(_mm_xor_si128(_mm_loadu_si128(v), wv),
				     _mm_xor_si128(_mm_loadu_si128(v + 1), wv)),
			_mm_or_si128(
				_mm_xor_si128(_mm_loadu_si128(v + 2), wv),
				_mm_xor_si128(_mm_loadu_si128(v + 3), wv)));

		if (_mm_movemask_epi8(_mm_cmpeq_epi8(d, _mm_setzero_si128())) !=
		    0xffff)
			return false;
	}
	return true;
}
#endif

/* True if every bit of [s, e) equals set. */
static inline bool hb_bits_are(const uint64_t *w, uint64_t s, uint64_t e,
			       bool set)
{
	uint64_t i = s >> 6, last = (e - 1) >> 6, want = set ? ~0ULL : 0;
	uint64_t fm = ~0ULL << (s & 63), lm = ~0ULL >> (63 - ((e - 1) & 63));

	if (i == last)
		return ((w[i] ^ want) & fm & lm) == 0;
	if ((w[i] ^ want) & fm)
		return false;
	i++;
#ifdef HB_SIMD
	if (last - i >= 8 && !hb_words_are(w, &i, last, want))
		return false;
#endif
	/* then four at a time: one test per four */
	for (; i + 4 <= last; i += 4)
		if (((w[i] ^ want) | (w[i + 1] ^ want) | (w[i + 2] ^ want) |
		     (w[i + 3] ^ want)) != 0)
			return false;
	for (; i < last; i++)
		if (w[i] != want)
			return false;
	return ((w[last] ^ want) & lm) == 0;
}

/*
 * Best fit: set or clear [s, s + n) behind the summaries, noted in the
 * change list, with the free count.
 */
static inline void hb_bits_only(struct rg_hbitmap *hb, uint64_t s, uint64_t n,
				bool set)
{
	if (!hb->sum_stale)
		hb_go_stale(hb);
	/* one word, the usual reservation (a free here is longer than 64) */
	if (set && ((s ^ (s + n - 1)) >> 6) == 0)
		hb->words[s >> 6] |= (~0ULL >> (64 - n)) << (s & 63);
	else
		hb_bits(hb->words, s, s + n, set);
	hb_chg_note(hb, s, n);
	if (set)
		hb->free_units -= n;
	else
		hb->free_units += n;
}

/* Bits c0 .. c1 of a node's child mask, c0 <= c1 <= 63. */
static inline uint64_t hb_span_mask(unsigned c0, unsigned c1)
{
	return (c1 == 63 ? ~0ULL : (2ULL << c1) - 1) & (~0ULL << c0);
}

static inline bool hb_bad_align(uint64_t align)
{
	return align == 0 || (align & (align - 1));
}

/* The "before" fold is unknown (see hbitmap.c). */
static inline void hb_before_reset(struct rg_hbitmap *hb)
{
	hb->before_known = false;
	hb->before_lim = UINT64_MAX;
}

/* Sizes and offsets of the one data array, from the capacity. */
struct hb_geom {
	uint64_t nblocks;
	uint64_t count[HB_MAX_LEVELS];
	unsigned nlevels;
	size_t words_off, g_off[HB_MAX_LEVELS], nodes_off[HB_MAX_LEVELS];
	size_t bsum_off, total;
};

/* The geometry for @capacity units (hb_geom.c). */
void rgi_hb_geometry(uint64_t capacity, struct hb_geom *g) RGI_HIDDEN;

static inline unsigned hb_child_shift(unsigned k)
{
	return HB_BLOCK_SHIFT + HB_FAN_SHIFT * k;
}

static inline struct hb_sum hb_unpack(uint32_t v)
{
	struct hb_sum s = { v & 1023, (v >> 10) & 1023, v >> 20 };

	return s;
}

static inline bool hb_sum_eq(const struct hb_sum *a, const struct hb_sum *b)
{
	return a->p == b->p && a->s == b->s && a->inner == b->inner;
}

/* Summary of child c (a block index if k == 0) of a level-k node. */
static inline struct hb_sum hb_child(const struct rg_hbitmap *hb, unsigned k,
				     uint64_t c)
{
	if (k == 0)
		return hb_unpack(hb->bsum[c]);
	const struct hb_node *nd = &hb->lv[k - 1][c];
	struct hb_sum s = { nd->p, nd->s, nd->inner };

	return s;
}

static inline uint64_t hb_max3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a > b ? a : b;

	return m > c ? m : c;
}

static inline uint64_t hb_g_clamp(uint64_t v)
{
	return v < HB_G_MAX ? v : HB_G_MAX;
}

static inline uint64_t hb_g_get(const struct rg_hbitmap *hb, unsigned k,
				uint64_t idx, unsigned j)
{
	return (uint64_t)hb->gv[k][(idx << HB_FAN_SHIFT) + j];
}

static inline void hb_mask_set(struct hb_node *nd, unsigned i,
			       const struct hb_sum *s, uint64_t csz)
{
	uint64_t bit = 1ULL << i;

	if (s->p | s->s | s->inner)
		nd->any |= bit;
	else
		nd->any &= ~bit;
	if (s->p == csz)
		nd->all |= bit;
	else
		nd->all &= ~bit;
}

/*
 * Entry points of hbitmap.c for hbitmap_check.c: wrappers of its static
 * computations (the hot paths keep their inlining).
 */
/* First unit in [from, end) whose bit equals set, or end. */
uint64_t rgi_hb_next_bit(const uint64_t *w, uint64_t from, uint64_t end,
			 bool set) RGI_HIDDEN;
/* Summary of the block at w from its words (hb_block_compute()). */
uint32_t rgi_hb_block_compute(const uint64_t *w) RGI_HIDDEN;
/* Exact g value of child j of node (k, idx) (hb_g_exact()). */
uint64_t rgi_hb_g_exact(const struct rg_hbitmap *hb, unsigned k, uint64_t idx,
			const struct hb_node *nd, unsigned j) RGI_HIDDEN;
/* Summary of node (k, idx) from its masks (hb_node_compute_masks()). */
struct hb_sum rgi_hb_node_compute(const struct rg_hbitmap *hb, unsigned k,
				  uint64_t idx) RGI_HIDDEN;
/* Summary of node (k, idx) from its g values (hb_node_sum()). */
struct hb_sum rgi_hb_node_sum(const struct rg_hbitmap *hb, unsigned k,
			      uint64_t idx) RGI_HIDDEN;
/* Root summary, the pending block's path recomputed (hb_live_root()). */
struct hb_sum rgi_hb_live_root(const struct rg_hbitmap *hb) RGI_HIDDEN;

/*
 * Entry points of hbitmap.c for hb_window.c. First fit for n units
 * aligned to @align inside [lo, hi) (summaries flushed): its start or
 * HB_NONE.
 */
uint64_t rgi_hb_search(const struct rg_hbitmap *hb, uint64_t n, uint64_t align,
		       uint64_t lo, uint64_t hi) RGI_HIDDEN;
/* Compute every summary; all_free: the words are known zero (hb_build()). */
void rgi_hb_build(struct rg_hbitmap *hb, bool all_free) RGI_HIDDEN;
/* Flush the pending block and the deferred run (hb_flush()). */
void rgi_hb_flush(struct rg_hbitmap *hb) RGI_HIDDEN;
/* Best fit: bring stale summaries up to date (hb_sync()). */
void rgi_hb_sync(struct rg_hbitmap *hb) RGI_HIDDEN;
/* Free units [s, s + n) become allocated, in either mode (hb_take()). */
void rgi_hb_take(struct rg_hbitmap *hb, uint64_t s, uint64_t n,
		 bool from_alloc) RGI_HIDDEN;

#endif /* RGI_HB_INTERNAL_H */
