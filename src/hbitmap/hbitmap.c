// SPDX-License-Identifier: MIT
/*
 * hbitmap: a contiguous-range allocator over a bitmap. Theory of operation.
 *
 * Layout
 *   One bit per unit in 64-bit words (1 = allocated), in blocks of 8 words
 *   (512 units). Each block has a packed 32-bit summary (bsum): its free
 *   prefix, free suffix and longest inner run (touching neither end), 10
 *   bits each. Above, levels of 64-way nodes: two child masks (any: some
 *   unit free; all: entirely free), the same three lengths, and one 16-bit
 *   g value per child, kept in one array per level; the top level is one
 *   root. Padding bits past the capacity are set and absent children are
 *   clear in the masks, so no search sees them free. At 10^6 units: 1.109x
 *   the plain bitmap. Layout and helpers: hb_internal.h.
 *
 * g values
 *   Child j's g value is 0 if it is entirely free, else the longest of its
 *   inner run and (unless j is the first child not entirely free) the run
 *   ending in its prefix. These are the node's inner runs, each counted
 *   where it ends, so the node's inner run is the largest g value and a
 *   child below n ends no inner fit of n. Values past HB_G_MAX are stored
 *   as "at least": searches check such a child exactly; level 0 never
 *   saturates.
 *
 * First fit
 *   The root's prefix, its inner runs, its suffix, in that order. Inside a
 *   node the candidates are the children whose g value reaches n (one SIMD
 *   compare of 64 values); for each, the run ending in its prefix, then the
 *   child itself, then its suffix, so the first fit found is the lowest.
 *   With align 1 the first candidate holds the fit: one path, no
 *   backtracking. In a block, runs of n <= 64 come from at most six
 *   shift-and steps per word (SSE2: eight words at once); longer runs are
 *   carried across words. Top-down mirrors it (hb_window.c).
 *
 * Updates
 *   After bits change in a block its summary is recomputed (from the one
 *   recorded change when the longest inner run did not shrink) and, while
 *   a summary changes, the parent's masks, the two g values that depend on
 *   it, its prefix and suffix, and its inner run (the largest exact g: one
 *   SIMD pass only when the child that held it shrank). A change of only
 *   an inner run climbs on a path of its own. A range over several blocks
 *   sets the covered blocks and nodes whole by word operations; only its
 *   end children are read.
 *
 * Deferred updates
 *   The pending block, the "before" fold, the deferred run (first fit),
 *   and on best-fit instances the stale summaries with their change list:
 *   what each defers, who flushes it and which readers may see it stale is
 *   the table in doc/design.md. In short, calls confined to one block only
 *   change its bits until a call elsewhere flushes it (hb_flush()); calls
 *   in address order across blocks join a deferred run, updated by one
 *   range update; best-fit calls change only bits and the index, and
 *   hb_sync() brings the summaries up to date for the calls that read
 *   them. Fast paths are tested first and reach slow ones by tail calls.
 *
 * Files
 *   This file: first fit, the updates, the deferred updates, the build
 *   and the hot API. hb_window.c: top-down, windows and boundaries, the
 *   run walk. hb_geom.c: geometry, create, resize. hb_runs.c: the
 *   best-fit index. hb_place.c: word scans.
 *   hbitmap_check.c: rg_hbitmap_validate() with its invariants, the dump.
 *   Calls go one way, from this file to the others (hb_internal.h).
 *
 * What never allocates
 *   Everything but rg_hbitmap_create() and rg_hbitmap_resize(): one handle
 *   and one array of words, g values, nodes and summaries (rgi_calloc, so
 *   fault injection reaches them). The best-fit index grows its pool after
 *   calls and never makes them fail (hb_runs.c).
 *
 * Limits
 *   Capacity 1 .. 2^56 units (8 node levels); units and lengths 64-bit.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hb_internal.h"
#include "hbitmap_adv.h"
#include "rg_internal.h"
#include "region/hbitmap.h"

#define HB_ALWAYS_INLINE RGI_ALWAYS_INLINE
#define HB_NOINLINE RGI_NOINLINE

/* A search request and the scan state it carries. */
struct hb_req {
	uint64_t n;
	uint64_t amask; /* align - 1 */
	uint64_t apat; /* start pattern in a word, align <= 64 */
	uint64_t lo, hi; /* window [lo, hi) */
	uint64_t rs; /* the open free run starts here */
};

static const uint64_t hb_align_pattern[7] = {
	~0ULL,
	0x5555555555555555ULL,
	0x1111111111111111ULL,
	0x0101010101010101ULL,
	0x0001000100010001ULL,
	0x0000000100000001ULL,
	0x0000000000000001ULL,
};

/* ---- word and block level ---------------------------------------------- */

#if defined(__GNUC__) && !defined(__clang__)
#define HB_UNROLL _Pragma("GCC unroll 8")
#else
#define HB_UNROLL
#endif

/*
 * Shifts that turn a word of free bits into the starts of its runs of n
 * ones, 1 <= n <= 64: doubling while that stays within n, then the rest,
 * then zeros. Row n - 1.
 */
static const uint8_t hb_shift_tab[64][6] = {
	{ 0, 0, 0, 0, 0, 0 },	{ 1, 0, 0, 0, 0, 0 },	{ 1, 1, 0, 0, 0, 0 },
	{ 1, 2, 0, 0, 0, 0 },	{ 1, 2, 1, 0, 0, 0 },	{ 1, 2, 2, 0, 0, 0 },
	{ 1, 2, 3, 0, 0, 0 },	{ 1, 2, 4, 0, 0, 0 },	{ 1, 2, 4, 1, 0, 0 },
	{ 1, 2, 4, 2, 0, 0 },	{ 1, 2, 4, 3, 0, 0 },	{ 1, 2, 4, 4, 0, 0 },
	{ 1, 2, 4, 5, 0, 0 },	{ 1, 2, 4, 6, 0, 0 },	{ 1, 2, 4, 7, 0, 0 },
	{ 1, 2, 4, 8, 0, 0 },	{ 1, 2, 4, 8, 1, 0 },	{ 1, 2, 4, 8, 2, 0 },
	{ 1, 2, 4, 8, 3, 0 },	{ 1, 2, 4, 8, 4, 0 },	{ 1, 2, 4, 8, 5, 0 },
	{ 1, 2, 4, 8, 6, 0 },	{ 1, 2, 4, 8, 7, 0 },	{ 1, 2, 4, 8, 8, 0 },
	{ 1, 2, 4, 8, 9, 0 },	{ 1, 2, 4, 8, 10, 0 },	{ 1, 2, 4, 8, 11, 0 },
	{ 1, 2, 4, 8, 12, 0 },	{ 1, 2, 4, 8, 13, 0 },	{ 1, 2, 4, 8, 14, 0 },
	{ 1, 2, 4, 8, 15, 0 },	{ 1, 2, 4, 8, 16, 0 },	{ 1, 2, 4, 8, 16, 1 },
	{ 1, 2, 4, 8, 16, 2 },	{ 1, 2, 4, 8, 16, 3 },	{ 1, 2, 4, 8, 16, 4 },
	{ 1, 2, 4, 8, 16, 5 },	{ 1, 2, 4, 8, 16, 6 },	{ 1, 2, 4, 8, 16, 7 },
	{ 1, 2, 4, 8, 16, 8 },	{ 1, 2, 4, 8, 16, 9 },	{ 1, 2, 4, 8, 16, 10 },
	{ 1, 2, 4, 8, 16, 11 }, { 1, 2, 4, 8, 16, 12 }, { 1, 2, 4, 8, 16, 13 },
	{ 1, 2, 4, 8, 16, 14 }, { 1, 2, 4, 8, 16, 15 }, { 1, 2, 4, 8, 16, 16 },
	{ 1, 2, 4, 8, 16, 17 }, { 1, 2, 4, 8, 16, 18 }, { 1, 2, 4, 8, 16, 19 },
	{ 1, 2, 4, 8, 16, 20 }, { 1, 2, 4, 8, 16, 21 }, { 1, 2, 4, 8, 16, 22 },
	{ 1, 2, 4, 8, 16, 23 }, { 1, 2, 4, 8, 16, 24 }, { 1, 2, 4, 8, 16, 25 },
	{ 1, 2, 4, 8, 16, 26 }, { 1, 2, 4, 8, 16, 27 }, { 1, 2, 4, 8, 16, 28 },
	{ 1, 2, 4, 8, 16, 29 }, { 1, 2, 4, 8, 16, 30 }, { 1, 2, 4, 8, 16, 31 },
	{ 1, 2, 4, 8, 16, 32 },
};

/* Positions i such that bits i .. i + n - 1 of u are set, no branches. */
static inline uint64_t hb_starts(uint64_t u, const uint8_t *k)
{
	u &= u >> k[0];
	u &= u >> k[1];
	u &= u >> k[2];
	u &= u >> k[3];
	u &= u >> k[4];
	u &= u >> k[5];
	return u;
}

#ifdef HB_SIMD
/* The eight words of a block in four registers. */
struct hb_v4 {
	__m128i a, b, c, d;
};

/* One shift-and step on the eight words: v &= v >> c. */
static HB_ALWAYS_INLINE struct hb_v4 hb_step4(struct hb_v4 v, unsigned c)
{
	__m128i sh = _mm_cvtsi32_si128((int)c);

	v.a = _mm_and_si128(v.a, _mm_srl_epi64(v.a, sh));
	v.b = _mm_and_si128(v.b, _mm_srl_epi64(v.b, sh));
	v.c = _mm_and_si128(v.c, _mm_srl_epi64(v.c, sh));
	v.d = _mm_and_si128(v.d, _mm_srl_epi64(v.d, sh));
	return v;
}

/*
 * The starts of runs of n free units in each word of v (free units set),
 * 1 <= n <= 64: the shifts of row n - 1 of hb_shift_tab (k), in steps
 * known at compile time: four for n <= 16, five for n <= 32, else six.
 */
static HB_ALWAYS_INLINE struct hb_v4 hb_starts4(struct hb_v4 v,
						const uint8_t *k, unsigned n)
{
	v = hb_step4(v, k[0]);
	v = hb_step4(v, k[1]);
	v = hb_step4(v, k[2]);
	v = hb_step4(v, k[3]);
	if (n > 16)
		v = hb_step4(v, k[4]);
	if (n > 32)
		v = hb_step4(v, k[5]);
	return v;
}
#endif

/*
 * Summary of the 512 units held in w[0 .. 7], given a lower bound lb on
 * its inner run (a run known to remain). Runs touching a word boundary
 * come from one ctz and one clz per word; the runs inside words are found
 * for all eight words at once: the starts of runs longer than the best so
 * far, then grown one unit at a time (SSE2: four registers) while any
 * remains. The only data-dependent branches are the zero-word test and
 * the end of that growth.
 */
static uint32_t hb_block_compute(const uint64_t *w, unsigned lb)
{
	unsigned j0 = 0, j1 = 0, p, le, best = lb;
	uint64_t u[HB_BLOCK_WORDS] __attribute__((aligned(16)));

	while (!w[j0])
		if (++j0 == HB_BLOCK_WORDS)
			return HB_BS_FREE;
	p = 64 * j0 + (unsigned)__builtin_ctzll(w[j0]);
	le = p;
	/*
	 * Runs that touch a word boundary; each word not entirely free
	 * gives its free units to the search inside words below. Those
	 * touching its edges belong to boundary runs, already counted at
	 * their full length, except the block's prefix and suffix runs,
	 * which are not inner: they are masked off the first and last such
	 * word.
	 */
	HB_UNROLL
	for (unsigned j = 0; j < HB_BLOCK_WORDS; j++) {
		uint64_t x = w[j];
		unsigned len;

		u[j] = 0;
		if (!x)
			continue;
		len = 64 * j + (unsigned)__builtin_ctzll(x) - le;
		best = len > best ? len : best;
		le = 64 * j + 64 - (unsigned)__builtin_clzll(x);
		u[j] = ~x;
		j1 = j;
	}
	u[j0] &= w[j0] | (0 - w[j0]);
	u[j1] &= ~0ULL >> __builtin_clzll(w[j1]);
	if (best < 62) {
		/* runs inside words longer than best: their starts, then
		 * grown one unit at a time while one remains */
		const uint8_t *k = hb_shift_tab[best];
#ifdef HB_SIMD
		struct hb_v4 v = {
			_mm_load_si128((const __m128i *)u),
			_mm_load_si128((const __m128i *)u + 1),
			_mm_load_si128((const __m128i *)u + 2),
			_mm_load_si128((const __m128i *)u + 3),
		};
		__m128i v0, v1, v2, v3;
		const __m128i zero = _mm_setzero_si128();

		v = hb_starts4(v, k, best + 1);
		v0 = v.a;
		v1 = v.b;
		v2 = v.c;
		v3 = v.d;
		for (;;) {
			__m128i any = _mm_or_si128(_mm_or_si128(v0, v1),
						   _mm_or_si128(v2, v3));

			if (_mm_movemask_epi8(_mm_cmpeq_epi8(any, zero)) ==
			    0xffff)
				break;
			best++;
			v0 = _mm_and_si128(v0, _mm_srli_epi64(v0, 1));
			v1 = _mm_and_si128(v1, _mm_srli_epi64(v1, 1));
			v2 = _mm_and_si128(v2, _mm_srli_epi64(v2, 1));
			v3 = _mm_and_si128(v3, _mm_srli_epi64(v3, 1));
		}
#else
		uint64_t any = 0;

		for (unsigned j = 0; j < HB_BLOCK_WORDS; j++) {
			u[j] = hb_starts(u[j], k);
			any |= u[j];
		}
		while (any) {
			best++;
			any = 0;
			for (unsigned j = 0; j < HB_BLOCK_WORDS; j++) {
				u[j] &= u[j] >> 1;
				any |= u[j];
			}
		}
#endif
	}
	return HB_BS(p, HB_BLOCK_BITS - le, best);
}

/* Lowest aligned start of n units inside the free run [a, b) and window. */
static inline uint64_t hb_fit(const struct hb_req *r, uint64_t a, uint64_t b)
{
	if (a < r->lo)
		a = r->lo;
	a = (a + r->amask) & ~r->amask;
	if (b > r->hi)
		b = r->hi;
	return a + r->n <= b ? a : HB_NONE;
}

/* In-word start positions allowed by the window for a word at wb. */
static uint64_t hb_window_mask(const struct hb_req *r, uint64_t wb)
{
	uint64_t m = ~0ULL, last;

	if (r->lo > wb)
		m = r->lo - wb >= 64 ? 0 : m << (r->lo - wb);
	if (r->hi < wb + r->n)
		return 0;
	last = r->hi - r->n - wb;
	if (last < 63)
		m &= (2ULL << last) - 1;
	return m;
}

/*
 * Scan block b from the carried run; returns the lowest fit that ends inside
 * the block (or started before it), or HB_NONE with the run carried on.
 */
static uint64_t hb_scan_block(const struct rg_hbitmap *hb, uint64_t b,
			      unsigned j0, struct hb_req *r)
{
	const uint64_t *w = hb->words + b * HB_BLOCK_WORDS;
	uint64_t base = b << HB_BLOCK_SHIFT, rs = r->rs, a;

	for (unsigned j = j0; j < HB_BLOCK_WORDS; j++) {
		uint64_t x = w[j], wb = base + 64 * j, t;
		unsigned z;

		if (x == ~0ULL) {
			if (rs < wb && (a = hb_fit(r, rs, wb)) != HB_NONE)
				return a;
			rs = wb + 64;
			continue;
		}
		z = x ? (unsigned)__builtin_ctzll(x) : 64;
		if (rs < wb + z && (a = hb_fit(r, rs, wb + z)) != HB_NONE)
			return a;
		if (!x)
			continue;
		if (r->n <= 64) {
			t = hb_starts(~x, hb_shift_tab[r->n - 1]);
			if (r->amask < 64)
				t &= r->apat;
			else if (wb & r->amask)
				t = 0;
			else
				t &= 1;
			if (t && unlikely(r->lo > wb || r->hi < wb + 63 + r->n))
				t &= hb_window_mask(r, wb);
			if (t)
				return wb + (uint64_t)__builtin_ctzll(t);
		}
		rs = wb + 64 - (uint64_t)__builtin_clzll(x);
	}
	r->rs = rs;
	return HB_NONE;
}

/*
 * hb_scan_block() for the common case: a block entered with no run
 * carried in, n <= 64, align <= 64 and no window edge inside the block.
 * Per word, the lowest fit inside it and the lowest fit that crosses in
 * from the previous word's top are found without branches; one test per
 * word.
 */
static HB_ALWAYS_INLINE uint64_t hb_block_fit(const uint64_t *w, uint64_t base,
					      const struct hb_req *r)
{
	const uint8_t *k = hb_shift_tab[r->n - 1];
	uint64_t top = 0; /* free units at the top of the previous word */
	uint64_t ts[HB_BLOCK_WORDS] __attribute__((aligned(16)));

#ifdef HB_SIMD
	{
		/* the starts of runs of n free units, all words at once */
		const __m128i ones = _mm_set1_epi32(-1);
		const __m128i ap = _mm_set1_epi64x((long long)r->apat);
		const __m128i *wv = (const __m128i *)w;
		struct hb_v4 v = {
			_mm_xor_si128(_mm_load_si128(wv), ones),
			_mm_xor_si128(_mm_load_si128(wv + 1), ones),
			_mm_xor_si128(_mm_load_si128(wv + 2), ones),
			_mm_xor_si128(_mm_load_si128(wv + 3), ones),
		};

		v = hb_starts4(v, k, (unsigned)r->n);
		_mm_store_si128((__m128i *)ts, _mm_and_si128(v.a, ap));
		_mm_store_si128((__m128i *)ts + 1, _mm_and_si128(v.b, ap));
		_mm_store_si128((__m128i *)ts + 2, _mm_and_si128(v.c, ap));
		_mm_store_si128((__m128i *)ts + 3, _mm_and_si128(v.d, ap));
	}
#else
	for (unsigned j = 0; j < HB_BLOCK_WORDS; j++)
		ts[j] = hb_starts(~w[j], k) & r->apat;
#endif
	for (unsigned j = 0; j < HB_BLOCK_WORDS; j++) {
		uint64_t x = w[j], wb = base + 64 * j, a, c, in, t = ts[j];
		uint64_t z = x ? (uint64_t)__builtin_ctzll(x) : 64;

		a = (wb - top + r->amask) & ~r->amask;
		c = top && a + r->n <= wb + z ? a : HB_NONE;
		in = t ? wb + (uint64_t)__builtin_ctzll(t) : HB_NONE;
		if ((c & in) != HB_NONE)
			return c < in ? c : in;
		top = x ? (uint64_t)__builtin_clzll(x) : 64;
	}
	return HB_NONE;
}

/* ---- node level -------------------------------------------------------- */

/* Length of the group of set bits of m starting at bit i (bit i set). */
static inline unsigned hb_group_len(uint64_t m, unsigned i)
{
	uint64_t g = ~(m >> i);

	return g ? (unsigned)__builtin_ctzll(g) : 64 - i;
}

static inline uint64_t hb_clear_below(uint64_t m, unsigned end)
{
	return end >= 64 ? 0 : m & (~0ULL << end);
}

/* Summary of child j of node nd (zeros if it has no free unit). */
static inline struct hb_sum hb_child_or0(const struct rg_hbitmap *hb,
					 unsigned k, uint64_t idx,
					 const struct hb_node *nd, unsigned j)
{
	struct hb_sum z = { 0, 0, 0 };

	if (!((nd->any >> j) & 1))
		return z;
	return hb_child(hb, k, (idx << HB_FAN_SHIFT) + j);
}

/*
 * Start of the free run that ends at the start of child j: the end of the
 * suffix of the last child before j that is not entirely free (lm: those
 * children, not empty).
 */
static inline uint64_t hb_run_into(const struct rg_hbitmap *hb, unsigned k,
				   uint64_t idx, const struct hb_node *nd,
				   uint64_t lm, unsigned csh)
{
	unsigned i = 63 - (unsigned)__builtin_clzll(lm);
	uint64_t rs = (uint64_t)(i + 1) << csh;

	if ((nd->any >> i) & 1)
		rs -= hb_child(hb, k, (idx << HB_FAN_SHIFT) + i).s;
	return rs;
}

/*
 * The g value of child j of node (k, idx) (see the top), exact: 0 if the
 * child is entirely free, else its inner run and, unless it is the first
 * child not entirely free, the run ending in its prefix.
 */
static uint64_t hb_g_exact(const struct rg_hbitmap *hb, unsigned k,
			   uint64_t idx, const struct hb_node *nd, unsigned j)
{
	uint64_t nf = ~nd->all, lm, run;
	unsigned csh = hb_child_shift(k);
	struct hb_sum x;

	if (!((nf >> j) & 1))
		return 0;
	x = hb_child_or0(hb, k, idx, nd, j);
	lm = nf & ((1ULL << j) - 1);
	if (!lm)
		return x.inner;
	run = ((uint64_t)j << csh) + x.p - hb_run_into(hb, k, idx, nd, lm, csh);
	return run > x.inner ? run : x.inner;
}

/*
 * A child's g value from its inner run and prefix, the child starting at
 * @start: with a free run open since @rs (@open), the run ending in the
 * prefix counts too.
 */
static inline uint64_t hb_g_val(bool open, uint64_t start, uint64_t prefix,
				uint64_t rs, uint64_t inner)
{
	return RGI_MAX(inner, open ? start + prefix - rs : 0);
}

static inline void hb_g_put(struct rg_hbitmap *hb, unsigned k, uint64_t idx,
			    unsigned j, uint64_t v)
{
	hb->gv[k][(idx << HB_FAN_SHIFT) + j] = (int16_t)hb_g_clamp(v);
}

/*
 * Children of node (k, idx) whose stored g value is at least nq,
 * 1 <= nq <= HB_G_MAX.
 */
static inline uint64_t hb_g_ge(const struct rg_hbitmap *hb, unsigned k,
			       uint64_t idx, uint64_t nq)
{
	const int16_t *g = hb->gv[k] + (idx << HB_FAN_SHIFT);
	uint64_t m = 0;
#ifdef HB_SIMD
	const __m128i t = _mm_set1_epi16((short)(nq - 1));

	HB_UNROLL
	for (unsigned q = 0; q < 4; q++) {
		__m128i a = _mm_loadu_si128((const __m128i *)(g + 16 * q));
		__m128i b = _mm_loadu_si128((const __m128i *)(g + 16 * q + 8));
		__m128i c = _mm_packs_epi16(_mm_cmpgt_epi16(a, t),
					    _mm_cmpgt_epi16(b, t));

		m |= (uint64_t)(uint16_t)_mm_movemask_epi8(c) << (16 * q);
	}
#else
	for (unsigned j = 0; j < 64; j++)
		m |= (uint64_t)((uint64_t)g[j] >= nq) << j;
#endif
	return m;
}

/*
 * The first child of node (k, idx) whose stored g value is at least nq,
 * 1 <= nq <= HB_G_MAX, or 64: hb_g_ge() that stops at the first group of
 * 16 values holding one.
 */
static inline unsigned hb_g_first(const struct rg_hbitmap *hb, unsigned k,
				  uint64_t idx, uint64_t nq)
{
	const int16_t *g = hb->gv[k] + (idx << HB_FAN_SHIFT);
#ifdef HB_SIMD
	const __m128i t = _mm_set1_epi16((short)(nq - 1));

	for (unsigned q = 0; q < 4; q++) {
		__m128i a = _mm_loadu_si128((const __m128i *)(g + 16 * q));
		__m128i b = _mm_loadu_si128((const __m128i *)(g + 16 * q + 8));
		__m128i c = _mm_packs_epi16(_mm_cmpgt_epi16(a, t),
					    _mm_cmpgt_epi16(b, t));
		unsigned m = (unsigned)_mm_movemask_epi8(c);

		if (m)
			return 16 * q + (unsigned)__builtin_ctz(m);
	}
#else
	for (unsigned j = 0; j < 64; j++)
		if ((uint64_t)g[j] >= nq)
			return j;
#endif
	return 64;
}

/* Largest stored g value of node (k, idx). */
static inline uint64_t hb_g_max(const struct rg_hbitmap *hb, unsigned k,
				uint64_t idx)
{
	const int16_t *g = hb->gv[k] + (idx << HB_FAN_SHIFT);
#ifdef HB_SIMD
	__m128i m = _mm_loadu_si128((const __m128i *)g);

	HB_UNROLL
	for (unsigned q = 1; q < 8; q++)
		m = _mm_max_epi16(
			m, _mm_loadu_si128((const __m128i *)(g + 8 * q)));
	m = _mm_max_epi16(m, _mm_srli_si128(m, 8));
	m = _mm_max_epi16(m, _mm_srli_si128(m, 4));
	m = _mm_max_epi16(m, _mm_srli_si128(m, 2));
	return (uint64_t)(_mm_cvtsi128_si32(m) & 0xffff);
#else
	int16_t m = 0;

	for (unsigned j = 0; j < 64; j++)
		m = g[j] > m ? g[j] : m;
	return (uint64_t)m;
#endif
}

/*
 * Exact inner run of node (k, idx): the largest g value, recomputed
 * exactly for the saturated children if it is saturated.
 */
static uint64_t hb_node_inner(const struct rg_hbitmap *hb, unsigned k,
			      uint64_t idx)
{
	uint64_t inner = hb_g_max(hb, k, idx), m;

	if (likely(inner < HB_G_MAX))
		return inner;
	inner = 0;
	for (m = hb_g_ge(hb, k, idx, HB_G_MAX); m; m &= m - 1) {
		uint64_t v = hb_g_exact(hb, k, idx, &hb->lv[k][idx],
					(unsigned)__builtin_ctzll(m));

		inner = v > inner ? v : inner;
	}
	return inner;
}

/*
 * hb_node_inner() of node (k, idx) whose children i and j (64: none) were
 * just given the exact g values vi and vj, one of them saturated: the
 * largest of those and of the other stored values if those are exact
 * (the usual case: a long free run ends in one child, as at the top of
 * an ascending fill), without recomputing the known ones.
 */
static HB_NOINLINE uint64_t hb_node_inner_past(struct rg_hbitmap *hb,
					       unsigned k, uint64_t idx,
					       unsigned i, uint64_t vi,
					       unsigned j, uint64_t vj)
{
	int16_t *g = hb->gv[k] + (idx << HB_FAN_SHIFT);
	int16_t gi = g[i], gj = j < 64 ? g[j] : 0;
	uint64_t m;

	g[i] = 0;
	if (j < 64)
		g[j] = 0;
	m = hb_g_max(hb, k, idx);
	g[i] = gi;
	if (j < 64)
		g[j] = gj;
	if (m < HB_G_MAX)
		return hb_max3(m, vi, vj);
	return hb_node_inner(hb, k, idx);
}

/*
 * Summary of node (k, idx) from its masks, the stored summaries of its
 * first and last children that are not entirely free, and its g values
 * (exact ones recomputed for the saturated children only).
 */
static struct hb_sum hb_node_sum(const struct rg_hbitmap *hb, unsigned k,
				 uint64_t idx)
{
	const struct hb_node *nd = &hb->lv[k][idx];
	unsigned csh = hb_child_shift(k), f, l;
	uint64_t nf = ~nd->all;
	struct hb_sum out;

	if (!nf) {
		out.p = out.s = 1ULL << (csh + HB_FAN_SHIFT);
		out.inner = 0;
		return out;
	}
	f = (unsigned)__builtin_ctzll(nf);
	l = 63 - (unsigned)__builtin_clzll(nf);
	out.p = ((uint64_t)f << csh) + hb_child_or0(hb, k, idx, nd, f).p;
	out.s = ((uint64_t)(63 - l) << csh) + hb_child_or0(hb, k, idx, nd, l).s;
	out.inner = hb_node_inner(hb, k, idx);
	return out;
}

/*
 * Scan node (k, idx), which the caller entered for its inner run: only
 * runs that touch neither end of the node are its business. The children
 * whose g value reaches n (capped) are the candidates; for each, in order,
 * the run ending in its prefix, its inner runs (one level down) and its
 * suffix are checked exactly. A run that a candidate's suffix starts and a
 * later child ends is checked again at that child, whose g value counts it.
 */
static uint64_t hb_scan_up(const struct rg_hbitmap *hb, unsigned k,
			   uint64_t idx, struct hb_req *r);

static HB_ALWAYS_INLINE uint64_t hb_scan(const struct rg_hbitmap *hb,
					 unsigned k, uint64_t idx,
					 struct hb_req *r)
{
	const struct hb_node *nd = &hb->lv[k][idx];
	unsigned csh = hb_child_shift(k);
	uint64_t csz = 1ULL << csh, base = idx << (csh + HB_FAN_SHIFT);
	uint64_t nf = ~nd->all, m, a;

	m = hb_g_ge(hb, k, idx, hb_g_clamp(r->n));
	if (unlikely(r->lo > base)) {
		uint64_t c = (r->lo - base) >> csh;

		m = c >= 64 ? 0 : m & (~0ULL << c);
	}
	for (; m; m &= m - 1) {
		unsigned j = (unsigned)__builtin_ctzll(m);
		uint64_t cs = base + ((uint64_t)j << csh), ce = cs + csz;
		uint64_t lm = nf & ((1ULL << j) - 1);
		struct hb_sum x = hb_child_or0(hb, k, idx, nd, j);

		if (lm) {
			uint64_t rs =
				base + hb_run_into(hb, k, idx, nd, lm, csh);

			if ((a = hb_fit(r, rs, cs + x.p)) != HB_NONE)
				return a;
		}
		if (unlikely(cs >= r->hi))
			break; /* later runs start past the window */
		if (x.inner >= r->n) {
			uint64_t c = (idx << HB_FAN_SHIFT) + j;

			r->rs = cs;
			if (k > 1)
				a = hb_scan_up(hb, k - 1, c, r);
			else if (k)
				a = hb_scan(hb, 0, c, r);
			else if (r->n <= 64 && r->amask < 64 && r->lo <= cs &&
				 r->hi >= ce)
				a = hb_block_fit(hb->words + c * HB_BLOCK_WORDS,
						 cs, r);
			else
				a = hb_scan_block(hb, c, 0, r);
			if (a != HB_NONE)
				return a;
		}
		if (x.s && (a = hb_fit(r, ce - x.s, ce)) != HB_NONE)
			return a;
	}
	return HB_NONE;
}

/* hb_scan() for levels k >= 1 (level 0 is inlined into level 1). */
static uint64_t hb_scan_up(const struct rg_hbitmap *hb, unsigned k,
			   uint64_t idx, struct hb_req *r)
{
	return hb_scan(hb, k, idx, r);
}

/* First fit: the root's prefix run, its inner runs, its suffix run. */
static uint64_t hb_search(const struct rg_hbitmap *hb, struct hb_req *r)
{
	unsigned top = hb->nlevels - 1;
	const struct hb_node *root = &hb->lv[top][0];
	uint64_t size = 1ULL << (hb_child_shift(top) + HB_FAN_SHIFT), a;

	r->rs = 0;
	if (root->p && (a = hb_fit(r, 0, root->p)) != HB_NONE)
		return a;
	if (root->inner >= r->n && (a = top ? hb_scan_up(hb, top, 0, r) :
					      hb_scan(hb, 0, 0, r)) != HB_NONE)
		return a;
	if (root->s && root->p != size &&
	    (a = hb_fit(r, size - root->s, size)) != HB_NONE)
		return a;
	return HB_NONE;
}

/*
 * hb_search() for align 1, n <= 64 and no window. With align 1 the first
 * candidate at every level holds the first fit: the run ending in its
 * prefix if that reaches n, else its inner run, which a descent always
 * finds. So the search is one root-to-block descent, no backtracking.
 */
static uint64_t hb_search_plain(const struct rg_hbitmap *hb,
				const struct hb_req *r)
{
	unsigned k = hb->nlevels - 1;
	const struct hb_node *nd = &hb->lv[k][0];
	uint64_t n = r->n, idx = 0;

	if (nd->p >= n)
		return 0;
	if (nd->inner < n) {
		uint64_t size = 1ULL << (hb_child_shift(k) + HB_FAN_SHIFT);

		return nd->s >= n && nd->p != size ? size - nd->s : HB_NONE;
	}
	for (;;) {
		unsigned csh = hb_child_shift(k), j = hb_g_first(hb, k, idx, n);
		uint64_t lm;
		struct hb_sum x;

		if (unlikely(j == 64))
			return HB_NONE; /* cannot happen: inner >= n */
		x = hb_child_or0(hb, k, idx, nd, j);
		lm = ~nd->all & ((1ULL << j) - 1);
		if (lm) {
			uint64_t rs = hb_run_into(hb, k, idx, nd, lm, csh);

			if (((uint64_t)j << csh) + x.p - rs >= n)
				return (idx << (csh + HB_FAN_SHIFT)) + rs;
		}
		idx = (idx << HB_FAN_SHIFT) + j;
		if (k == 0)
			return hb_block_fit(hb->words + idx * HB_BLOCK_WORDS,
					    idx << HB_BLOCK_SHIFT, r);
		nd = &hb->lv[--k][idx];
	}
}

/*
 * Summary of node idx at level k from its masks and its children's stored
 * summaries: the reference computation validation checks the stored
 * summaries against.
 */
static struct hb_sum hb_node_compute_masks(const struct rg_hbitmap *hb,
					   unsigned k, uint64_t idx)
{
	uint64_t any = hb->lv[k][idx].any, all = hb->lv[k][idx].all;
	unsigned csh = hb_child_shift(k);
	uint64_t csz = 1ULL << csh, size = csz << HB_FAN_SHIFT;
	uint64_t rs = 0, pos = 0, p = 0, best = 0, m = any;
	struct hb_sum out;

#define HB_CLOSE(a_, b_)                             \
	do {                                         \
		if ((a_) < (b_)) {                   \
			if ((a_) == 0)               \
				p = (b_);            \
			else if ((b_) - (a_) > best) \
				best = (b_) - (a_);  \
		}                                    \
	} while (0)

	while (m) {
		unsigned i = (unsigned)__builtin_ctzll(m);
		uint64_t cs = (uint64_t)i << csh;
		struct hb_sum sm;

		if (cs != pos) {
			HB_CLOSE(rs, pos);
			rs = cs;
		}
		if ((all >> i) & 1) {
			unsigned len = hb_group_len(all, i);

			pos = cs + ((uint64_t)len << csh);
			m = hb_clear_below(m, i + len);
			continue;
		}
		sm = hb_child(hb, k, (idx << HB_FAN_SHIFT) + i);
		HB_CLOSE(rs, cs + sm.p);
		if (sm.inner > best)
			best = sm.inner;
		rs = cs + csz - sm.s;
		pos = cs + csz;
		m &= m - 1;
	}
	if (pos != size) {
		HB_CLOSE(rs, pos);
		rs = size;
	}
#undef HB_CLOSE
	if (rs == 0) {
		out.p = out.s = size;
		out.inner = 0;
		return out;
	}
	out.p = p;
	out.s = size - rs;
	out.inner = best;
	return out;
}

/*
 * Recompute every g value and the summary of node (k, idx) from its
 * children (its masks are set), in one pass that carries the run open at
 * each child.
 */
static struct hb_sum hb_node_rebuild(struct rg_hbitmap *hb, unsigned k,
				     uint64_t idx)
{
	struct hb_node *nd = &hb->lv[k][idx];
	unsigned csh = hb_child_shift(k);
	uint64_t nf = ~nd->all, rs = 0;
	bool open = false; /* a run can end at the next child's start */
	struct hb_sum out;

	for (unsigned j = 0; j < 64; j++) {
		struct hb_sum x;
		uint64_t v;

		if (!((nf >> j) & 1)) {
			hb_g_put(hb, k, idx, j, 0);
			continue;
		}
		x = hb_child_or0(hb, k, idx, nd, j);
		v = hb_g_val(open, (uint64_t)j << csh, x.p, rs, x.inner);
		hb_g_put(hb, k, idx, j, v);
		open = true;
		rs = ((uint64_t)(j + 1) << csh) - x.s;
	}
	out = hb_node_sum(hb, k, idx);
	nd->p = out.p;
	nd->s = out.s;
	nd->inner = out.inner;
	return out;
}

/*
 * Child j's g value from the run open before it; carry the run on. The
 * largest old (stored) and new (exact) values so far: *omax, *nmax.
 */
static inline void hb_g_step(struct rg_hbitmap *hb, unsigned k, uint64_t idx,
			     const struct hb_node *nd, unsigned j, bool *open,
			     uint64_t *rs, uint64_t *omax, uint64_t *nmax)
{
	unsigned csh = hb_child_shift(k);
	uint64_t v = 0, o = hb_g_get(hb, k, idx, j);
	struct hb_sum x;

	if (!((nd->all >> j) & 1)) {
		x = hb_child_or0(hb, k, idx, nd, j);
		v = hb_g_val(*open, (uint64_t)j << csh, x.p, *rs, x.inner);
		*open = true;
		*rs = ((uint64_t)(j + 1) << csh) - x.s;
	}
	hb_g_put(hb, k, idx, j, v);
	*omax = RGI_MAX(*omax, o);
	*nmax = RGI_MAX(*nmax, v);
}

/*
 * A set (set) or cleared range changed children c0 .. c1 of node (k, idx):
 * those strictly inside the range, all but the ends e0 (c0, if @e0) and
 * e1 (c1, if @e1), became entirely allocated or entirely free. Their
 * masks change by one word operation and their g values become 0 (an
 * allocated child after an allocated one, or a free child, ends no run
 * of the node), and the run open after them is known: from their end
 * (set), or the one open before them (cleared). Only the end children
 * and the next child not entirely free need their summaries read. The
 * node's prefix and suffix follow from its masks; its inner run is the
 * largest new g value if that reaches the old one, else the old one if
 * no changed child held it, else the maximum is taken again. Stored and
 * returned.
 */
static struct hb_sum hb_node_update_span(struct rg_hbitmap *hb, unsigned k,
					 uint64_t idx, unsigned c0, unsigned c1,
					 bool e0, bool e1, bool set)
{
	struct hb_node *nd = &hb->lv[k][idx];
	unsigned csh = hb_child_shift(k), j = c0, u1 = c1, f, l;
	uint64_t span = hb_span_mask(c0, c1);
	uint64_t lm, rm, nf, rs = 0, csz = 1ULL << csh, omax = 0, nmax = 0;
	int16_t *g = hb->gv[k] + (idx << HB_FAN_SHIFT);
	struct hb_sum out, x;
	bool open;

	if (e0)
		span &= ~(1ULL << c0);
	if (e1)
		span &= ~(1ULL << c1);
	if (set) {
		nd->any &= ~span;
		nd->all &= ~span;
	} else {
		nd->any |= span;
		nd->all |= span;
	}
	if (e0) {
		x = hb_child(hb, k, (idx << HB_FAN_SHIFT) + c0);
		hb_mask_set(nd, c0, &x, csz);
	}
	if (e1) {
		x = hb_child(hb, k, (idx << HB_FAN_SHIFT) + c1);
		hb_mask_set(nd, c1, &x, csz);
	}
	lm = ~nd->all & ((1ULL << c0) - 1);
	open = lm != 0;
	if (open)
		rs = hb_run_into(hb, k, idx, nd, lm, csh);
	if (e0)
		hb_g_step(hb, k, idx, nd, j++, &open, &rs, &omax, &nmax);
	if (e1 && u1 >= j)
		u1--;
	if (j <= u1 && u1 < 64) {
		for (unsigned i = j; i <= u1; i++) {
			omax = RGI_MAX(omax, (uint64_t)g[i]);
			g[i] = 0;
		}
		if (set) {
			open = true;
			rs = (uint64_t)(u1 + 1) << csh;
		}
		j = u1 + 1;
	}
	if (e1 && j == c1)
		hb_g_step(hb, k, idx, nd, j, &open, &rs, &omax, &nmax);
	nf = ~nd->all;
	rm = c1 == 63 ? 0 : nf & (~0ULL << (c1 + 1));
	if (rm)
		hb_g_step(hb, k, idx, nd, (unsigned)__builtin_ctzll(rm), &open,
			  &rs, &omax, &nmax);
	if (!nf) {
		out.p = out.s = csz << HB_FAN_SHIFT;
		out.inner = 0;
	} else {
		f = (unsigned)__builtin_ctzll(nf);
		l = 63 - (unsigned)__builtin_clzll(nf);
		out.p = ((uint64_t)f << csh) +
			hb_child_or0(hb, k, idx, nd, f).p;
		out.s = ((uint64_t)(63 - l) << csh) +
			hb_child_or0(hb, k, idx, nd, l).s;
		if (nmax >= nd->inner)
			out.inner = nmax;
		else if (omax < nd->inner && omax < HB_G_MAX)
			out.inner = nd->inner;
		else
			out.inner = hb_node_inner(hb, k, idx);
	}
	nd->p = out.p;
	nd->s = out.s;
	nd->inner = out.inner;
	return out;
}

/*
 * Node c of level k - 1 changed only its inner run, from oin (the new one
 * is stored): its prefix and suffix stayed, and it is not entirely free,
 * so of its parent only the "any" mask bit (no free unit left), the
 * child's g value and the inner run can change, and the same holds one
 * level up: the change climbs while an inner run changes. An unsaturated
 * old g value gives the run ending in the child's prefix, which did not
 * change (see hb_propagate()); the previous child's suffix is read only
 * otherwise.
 */
static HB_ALWAYS_INLINE void hb_inner_up(struct rg_hbitmap *hb, unsigned k,
					 uint64_t c, uint64_t oin)
{
	for (; k < hb->nlevels; k++) {
		const struct hb_node *cn = &hb->lv[k - 1][c];
		uint64_t idx = c >> HB_FAN_SHIFT, bit = 1ULL << (c & 63);
		uint64_t nin = cn->inner, og, vi, ovi, inner;
		unsigned i = (unsigned)(c & 63), csh = hb_child_shift(k);
		struct hb_node *nd = &hb->lv[k][idx];

		if (cn->p | cn->s | nin)
			nd->any |= bit;
		else
			nd->any &= ~bit;
		og = hb_g_get(hb, k, idx, i);
		if (likely(og < HB_G_MAX) && nin >= oin) {
			vi = RGI_MAX(nin, og);
			ovi = og;
		} else if (og < HB_G_MAX && og > oin) {
			return; /* the prefix run holds the value */
		} else {
			uint64_t lm = ~nd->all & (bit - 1), rs = 0;

			if (lm)
				rs = hb_run_into(hb, k, idx, nd, lm, csh);
			vi = hb_g_val(lm != 0, (uint64_t)i << csh, cn->p, rs,
				      nin);
			ovi = hb_g_val(lm != 0, (uint64_t)i << csh, cn->p, rs,
				       oin);
		}
		hb_g_put(hb, k, idx, i, vi);
		inner = nd->inner;
		if (vi >= inner)
			inner = vi;
		else if (ovi == inner)
			inner = hb_node_inner(hb, k, idx);
		if (inner == nd->inner)
			return;
		oin = nd->inner;
		nd->inner = inner;
		c = idx;
	}
}

/*
 * Child i of node (k, idx) changed its (stored) summary from *o to *x:
 * update the node's masks, the g values that depend on the child (its own
 * and that of the next child not entirely free) and the node's summary.
 * The prefix (suffix) is re-read only if child i is or was the first
 * (last) child not entirely free. The inner run is the largest exact g
 * value: a new value that reaches the old inner run is it; otherwise, if
 * the child's old value held it, the maximum is taken again. Returns true
 * if the summary changed and the caller must go on above; a change of the
 * child's inner run alone is handed to hb_inner_up(), which climbs by
 * itself (false).
 */
static HB_ALWAYS_INLINE bool hb_node_child_changed(struct rg_hbitmap *hb,
						   unsigned k, uint64_t idx,
						   unsigned i,
						   const struct hb_sum *o,
						   const struct hb_sum *x)
{
	struct hb_node *nd = &hb->lv[k][idx];
	unsigned csh = hb_child_shift(k), f, l, j = 64;
	uint64_t onf = ~nd->all, nf, lm, rm, rs = 0, vi = 0, vj = 0;
	uint64_t p = nd->p, s = nd->s, inner = nd->inner;
	bool open;

	if (likely(o->p == x->p && o->s == x->s && x->p != 1ULL << csh)) {
		/* only the inner run changed: it climbs on its own */
		hb_inner_up(hb, k, (idx << HB_FAN_SHIFT) + i, o->inner);
		return false;
	}
	hb_mask_set(nd, i, x, 1ULL << csh);
	nf = ~nd->all;
	lm = onf & ((1ULL << i) - 1); /* the same in nf */
	open = lm != 0; /* a run can end at child i's start */
	if (open)
		rs = hb_run_into(hb, k, idx, nd, lm, csh);
	if (unlikely(!nf)) {
		uint64_t size = 1ULL << (csh + HB_FAN_SHIFT);

		hb_g_put(hb, k, idx, i, 0);
		nd->p = nd->s = size;
		nd->inner = 0;
		return !(p == size && s == size && inner == 0);
	}
	if ((nf >> i) & 1) {
		vi = hb_g_val(open, (uint64_t)i << csh, x->p, rs, x->inner);
		/* the run into the next child starts at i's suffix */
		open = true;
		rs = ((uint64_t)(i + 1) << csh) - x->s;
	}
	hb_g_put(hb, k, idx, i, vi);
	rm = i == 63 ? 0 : nf & (~0ULL << (i + 1));
	if (rm) {
		struct hb_sum y;

		j = (unsigned)__builtin_ctzll(rm);
		y = hb_child_or0(hb, k, idx, nd, j);

		vj = hb_g_val(open, (uint64_t)j << csh, y.p, rs, y.inner);
		hb_g_put(hb, k, idx, j, vj);
	}
	f = (unsigned)__builtin_ctzll(nf);
	l = 63 - (unsigned)__builtin_clzll(nf);
	if (onf != nf || i == f) {
		p = (uint64_t)f << csh;
		if ((nd->any >> f) & 1)
			p += f == i ? x->p :
				      hb_child(hb, k, (idx << HB_FAN_SHIFT) + f)
					      .p;
	}
	if (onf != nf || i == l) {
		s = (uint64_t)(63 - l) << csh;
		if ((nd->any >> l) & 1)
			s += l == i ? x->s :
				      hb_child(hb, k, (idx << HB_FAN_SHIFT) + l)
					      .s;
	}
	/* two g values changed: unless one reaches it, take the maximum */
	if (vi >= inner || vj >= inner)
		inner = vi > vj ? vi : vj;
	else if (likely(vi < HB_G_MAX && vj < HB_G_MAX))
		inner = hb_node_inner(hb, k, idx);
	else
		inner = hb_node_inner_past(hb, k, idx, i, vi, j, vj);
	if (p == nd->p && s == nd->s && inner == nd->inner)
		return false;
	nd->p = p;
	nd->s = s;
	nd->inner = inner;
	return true;
}

/*
 * hb_node_child_changed() for level 0, on packed block summaries: block b
 * (child i of node idx) changed its (stored) summary to v, more than its
 * inner run (hb_propagate() takes that case).
 */
static bool hb_l0_changed(struct rg_hbitmap *hb, uint64_t b, uint32_t v)
{
	uint64_t idx = b >> HB_FAN_SHIFT, bit = 1ULL << (b & 63);
	unsigned i = (unsigned)(b & 63), f, l;
	struct hb_node *nd = &hb->lv[0][idx];
	const uint32_t *bs = hb->bsum + (idx << HB_FAN_SHIFT);
	int16_t *g = hb->gv[0] + (idx << HB_FAN_SHIFT);
	uint64_t onf = ~nd->all, nf, any, lm, rm;
	uint64_t inner = nd->inner, p = nd->p, s = nd->s, rs = 0;
	uint64_t vi = 0, vj = 0;
	bool open;

	/* the bsum of a block below i that is not entirely free is present
	 * (a full block reads as 0); g values here stay below HB_G_MAX */
	any = (nd->any & ~bit) | (v ? bit : 0);
	nd->any = any;
	lm = onf & (bit - 1);
	open = lm != 0;
	if (open) {
		unsigned q = 63 - (unsigned)__builtin_clzll(lm);

		rs = ((uint64_t)(q + 1) << HB_BLOCK_SHIFT) - HB_BS_S(bs[q]);
	}
	nf = HB_BS_P(v) == HB_BLOCK_BITS ? onf & ~bit : onf | bit;
	nd->all = ~nf;
	if (unlikely(!nf)) {
		g[i] = 0;
		nd->p = nd->s = 1ULL << (HB_BLOCK_SHIFT + HB_FAN_SHIFT);
		nd->inner = 0;
		return !(p == nd->p && s == nd->s && inner == 0);
	}
	if (nf & bit) {
		vi = hb_g_val(open, (uint64_t)i << HB_BLOCK_SHIFT, HB_BS_P(v),
			      rs, HB_BS_I(v));
		open = true;
		rs = ((uint64_t)(i + 1) << HB_BLOCK_SHIFT) - HB_BS_S(v);
	}
	g[i] = (int16_t)vi;
	rm = nf & ~(bit | (bit - 1));
	if (rm) {
		unsigned j = (unsigned)__builtin_ctzll(rm);
		uint32_t y = (any >> j) & 1 ? bs[j] : 0;

		vj = hb_g_val(open, (uint64_t)j << HB_BLOCK_SHIFT, HB_BS_P(y),
			      rs, HB_BS_I(y));
		g[j] = (int16_t)vj;
	}
	f = (unsigned)__builtin_ctzll(nf);
	l = 63 - (unsigned)__builtin_clzll(nf);
	if (onf != nf || i == f)
		p = ((uint64_t)f << HB_BLOCK_SHIFT) +
		    ((any >> f) & 1 ? HB_BS_P(bs[f]) : 0);
	if (onf != nf || i == l)
		s = ((uint64_t)(63 - l) << HB_BLOCK_SHIFT) +
		    ((any >> l) & 1 ? HB_BS_S(bs[l]) : 0);
	if (vi >= inner || vj >= inner)
		inner = vi > vj ? vi : vj;
	else
		inner = hb_g_max(hb, 0, idx);
	if (p == nd->p && s == nd->s && inner == nd->inner)
		return false;
	nd->p = p;
	nd->s = s;
	nd->inner = inner;
	return true;
}

/*
 * Level-0 node c changed its summary from *o (the new one is stored):
 * update the nodes above while a summary actually changes.
 */
static HB_ALWAYS_INLINE void hb_propagate_up(struct rg_hbitmap *hb, uint64_t c,
					     struct hb_sum o)
{
	const struct hb_node *cn = &hb->lv[0][c];

	for (unsigned k = 1; k < hb->nlevels; k++) {
		uint64_t idx = c >> HB_FAN_SHIFT;
		const struct hb_node *nd = &hb->lv[k][idx];
		struct hb_sum x = { cn->p, cn->s, cn->inner };
		struct hb_sum po = { nd->p, nd->s, nd->inner };

		if (!hb_node_child_changed(hb, k, idx, c & 63, &o, &x))
			return;
		o = po;
		cn = nd;
		c = idx;
	}
}

/* hb_propagate() for a change of more than the block's inner run. */
static HB_NOINLINE void hb_propagate_all(struct rg_hbitmap *hb, uint64_t b,
					 uint32_t v)
{
	uint64_t c = b >> HB_FAN_SHIFT;
	const struct hb_node *cn = &hb->lv[0][c];
	struct hb_sum o = { cn->p, cn->s, cn->inner };

	if (hb_l0_changed(hb, b, v))
		hb_propagate_up(hb, c, o);
}

/*
 * Block b's summary changed from ov to (stored) v: update the nodes above.
 * When only its inner run changed (the usual case), only its own g value
 * can: it is the larger of the inner run and the run ending in the
 * prefix, which did not change: that run is the old value if the old
 * value exceeds the old inner run, else at most the old inner run. That
 * path is inlined into the callers; the rest is out of line.
 */
static HB_ALWAYS_INLINE void hb_propagate(struct rg_hbitmap *hb, uint64_t b,
					  uint32_t ov, uint32_t v)
{
	uint64_t idx = b >> HB_FAN_SHIFT, bit = 1ULL << (b & 63);
	unsigned i = (unsigned)(b & 63);
	struct hb_node *nd;
	int16_t *g;
	uint64_t oin = HB_BS_I(ov), nin = HB_BS_I(v), ovi, vi, inner;

	if (unlikely(((ov ^ v) & HB_BS(1023, 1023, 0)) != 0 ||
		     HB_BS_P(v) == HB_BLOCK_BITS)) {
		hb_propagate_all(hb, b, v);
		return;
	}
	nd = &hb->lv[0][idx];
	g = hb->gv[0] + (idx << HB_FAN_SHIFT);
	/* the any bit: a block with no free unit left reads as 0 */
	nd->any = (nd->any & ~bit) | (v ? bit : 0);
	ovi = (uint64_t)g[i];
	if (nin >= oin) {
		vi = RGI_MAX(nin, ovi);
	} else if (ovi > oin) {
		return; /* the prefix run holds the value */
	} else {
		uint64_t lm = ~nd->all & (bit - 1), rs = 0;

		if (lm) {
			unsigned q = 63 - (unsigned)__builtin_clzll(lm);

			rs = ((uint64_t)(q + 1) << HB_BLOCK_SHIFT) -
			     HB_BS_S(hb->bsum[(idx << HB_FAN_SHIFT) + q]);
		}
		vi = hb_g_val(lm != 0, (uint64_t)i << HB_BLOCK_SHIFT,
			      HB_BS_P(v), rs, nin);
	}
	g[i] = (int16_t)vi;
	inner = nd->inner;
	if (vi >= inner) {
		if (vi == inner)
			return;
	} else if (ovi == inner) {
		vi = hb_g_max(hb, 0, idx);
		if (vi == inner)
			return;
	} else {
		return;
	}
	nd->inner = vi;
	if (hb->nlevels > 1)
		hb_inner_up(hb, 1, idx, inner);
}

/*
 * Record a mutation of [s, e) (absolute) inside the pending block. A set
 * starting where the recorded set ends, or a clear ending where the
 * recorded clear starts, extends it: the two are one range whose units
 * were all free (or all allocated), as an address-ordered fill or
 * emptying makes them, and a deferred run goes on over them.
 */
static inline void hb_pend_note(struct rg_hbitmap *hb, uint64_t s, uint64_t e,
				bool set)
{
	uint64_t ps = hb->pend << HB_BLOCK_SHIFT;

	if (hb->pend_ops == 0) {
		hb->pend_s = (unsigned)(s - ps);
		hb->pend_e = (unsigned)(e - ps);
		hb->pend_set = set;
		hb->pend_ops = 1;
	} else if (hb->pend_ops == 1 && set == hb->pend_set &&
		   (set ? s - ps == hb->pend_e : e - ps == hb->pend_s)) {
		if (set)
			hb->pend_e = (unsigned)(e - ps);
		else
			hb->pend_s = (unsigned)(s - ps);
	} else {
		hb->pend_ops = 2;
	}
}

/* Position after the last set bit below unit s of the block, or 0. */
static inline unsigned hb_prev_set_end(const uint64_t *w, unsigned s)
{
	unsigned j = s >> 6;
	uint64_t x = (s & 63) ? w[j] & (~0ULL >> (64 - (s & 63))) : 0;

	for (;;) {
		if (x)
			return j * 64 + 64 - (unsigned)__builtin_clzll(x);
		if (j == 0)
			return 0;
		x = w[--j];
	}
}

/* First set bit at or after unit e of the block, or 512. */
static inline unsigned hb_next_set(const uint64_t *w, unsigned e)
{
	unsigned j = e >> 6;
	uint64_t x;

	if (j == HB_BLOCK_WORDS)
		return HB_BLOCK_BITS;
	x = w[j] & (~0ULL << (e & 63));
	for (;;) {
		if (x)
			return j * 64 + (unsigned)__builtin_ctzll(x);
		if (++j == HB_BLOCK_WORDS)
			return HB_BLOCK_BITS;
		x = w[j];
	}
}

/*
 * New summary of a block whose only change since its summary old was
 * exact is that [s, e) was set (set) or cleared. Only the runs touching
 * [s, e) change; the block is rescanned only when the run that held the
 * longest inner run shrank.
 */
static HB_ALWAYS_INLINE uint32_t hb_block_incr(const uint64_t *w, uint32_t old,
					       unsigned s, unsigned e, bool set)
{
	unsigned p = HB_BS_P(old), sf = HB_BS_S(old), in = HB_BS_I(old);
	unsigned L = hb_prev_set_end(w, s), R = hb_next_set(w, e);

	if (set) {
		/* [s, e) was carved from the free run [L, R) */
		if (L == 0 && R == HB_BLOCK_BITS)
			return HB_BS(s, HB_BLOCK_BITS - e, 0);
		if (L != 0 && R != HB_BLOCK_BITS && R - L == in)
			return hb_block_compute(w,
						s - L > R - e ? s - L : R - e);
		if (L == 0)
			p = s;
		else if (s - L > in)
			in = s - L;
		if (R == HB_BLOCK_BITS)
			sf = HB_BLOCK_BITS - e;
		else if (R - e > in)
			in = R - e;
		return HB_BS(p, sf, in);
	} else {
		/* the runs [L, s) and [e, R) merged through [s, e) */
		unsigned oi = 0, ni = 0;

		if (L == 0 && R == HB_BLOCK_BITS)
			return HB_BS_FREE;
		if (L != 0 && s - L > oi)
			oi = s - L;
		if (R != HB_BLOCK_BITS && R - e > oi)
			oi = R - e;
		if (L == 0)
			p = R;
		if (R == HB_BLOCK_BITS)
			sf = HB_BLOCK_BITS - L;
		if (L != 0 && R != HB_BLOCK_BITS)
			ni = R - L;
		if (oi < in)
			in = ni > in ? ni : in;
		else if (ni >= oi)
			in = ni;
		else
			return hb_block_compute(w, ni);
		return HB_BS(p, sf, in);
	}
}

static void hb_update_block(struct rg_hbitmap *hb, uint64_t b)
{
	uint32_t ov = hb->bsum[b];
	uint32_t nv = hb_block_compute(hb->words + b * HB_BLOCK_WORDS, 0);

	if (ov == nv)
		return;
	hb->bsum[b] = nv;
	hb_propagate(hb, b, ov, nv);
}

/* hb_block_incr() out of line, for the range updates. */
static HB_NOINLINE uint32_t hb_block_incr_call(const uint64_t *w, uint32_t old,
					       unsigned s, unsigned e, bool set)
{
	return hb_block_incr(w, old, s, e, set);
}

/*
 * New summary of block b after [s, e) (absolute, meeting the block) was
 * set (set) or cleared; stale: its summary was not exact before. A block
 * the range covers is entirely allocated or free. A set range ending in
 * it carves its prefix or suffix run, which its old summary and the words
 * next to the range give (hb_block_incr()); a cleared one merges into
 * runs that reach past the words next to it, where a scan of the words,
 * cheap on mostly free blocks, does better. A block whose words the
 * range leaves all set or all clear needs neither.
 */
static inline uint32_t hb_block_after(const struct rg_hbitmap *hb, uint64_t b,
				      uint64_t s, uint64_t e, bool set,
				      uint64_t stale)
{
	uint64_t bs = b << HB_BLOCK_SHIFT;
	const uint64_t *w = hb->words + b * HB_BLOCK_WORDS;

	if (s <= bs && e >= bs + HB_BLOCK_BITS)
		return set ? 0 : HB_BS_FREE;
	if (set && ((w[0] & w[1]) & (w[2] & w[3]) & (w[4] & w[5]) &
		    (w[6] & w[7])) == ~0ULL)
		return 0; /* filled up (the usual end of an ascending fill) */
	/* emptied (the usual end of frees in descending order) */
	if (!set && ((w[0] | w[1]) | (w[2] | w[3]) | (w[4] | w[5]) |
		     (w[6] | w[7])) == 0)
		return HB_BS_FREE;
	if (!set || b == stale)
		return hb_block_compute(w, 0);
	return hb_block_incr_call(
		w, hb->bsum[b], (unsigned)(RGI_MAX(s, bs) - bs),
		(unsigned)(RGI_MIN(e, bs + HB_BLOCK_BITS) - bs), true);
}

/*
 * Blocks b0 .. b1, whose summaries were exact but for block stale (or
 * HB_NONE), changed by setting (set) or clearing [s, e): update them (see
 * hb_block_after()) and every node above them, each over the children
 * that changed. When the blocks share one level-0 node
 * (any range of up to 64 blocks that does not cross a node boundary),
 * that node is updated over the changed children in one pass and the
 * levels above see one changed child each, as after a single block.
 */
static HB_ALWAYS_INLINE void hb_update_blocks(struct rg_hbitmap *hb,
					      uint64_t b0, uint64_t b1,
					      uint64_t s, uint64_t e, bool set,
					      uint64_t stale)
{
	uint64_t lo, hi;

	if (b0 == b1) {
		uint32_t ov = hb->bsum[b0],
			 nv = hb_block_after(hb, b0, s, e, set, stale);

		if (nv != ov) {
			hb->bsum[b0] = nv;
			hb_propagate(hb, b0, ov, nv);
		}
		return;
	}
	hb->bsum[b0] = hb_block_after(hb, b0, s, e, set, stale);
	hb->bsum[b1] = hb_block_after(hb, b1, s, e, set, stale);
	for (uint64_t b = b0 + 1; b < b1; b++)
		hb->bsum[b] = set ? 0 : HB_BS_FREE;
	if (b0 >> HB_FAN_SHIFT == b1 >> HB_FAN_SHIFT) {
		uint64_t c = b0 >> HB_FAN_SHIFT;
		const struct hb_node *nd = &hb->lv[0][c];
		struct hb_sum o = { nd->p, nd->s, nd->inner };
		struct hb_sum x = hb_node_update_span(
			hb, 0, c, (unsigned)(b0 & 63), (unsigned)(b1 & 63),
			true, true, set);

		if (!hb_sum_eq(&o, &x))
			hb_propagate_up(hb, c, o);
		return;
	}
	/*
	 * Level by level: at each, the children strictly between the first
	 * (lo) and the last (hi) lie inside the range.
	 */
	lo = b0;
	hi = b1;
	for (unsigned k = 0; k < hb->nlevels; k++) {
		uint64_t i0 = lo >> HB_FAN_SHIFT, i1 = hi >> HB_FAN_SHIFT;

		for (uint64_t idx = i0; idx <= i1; idx++)
			hb_node_update_span(
				hb, k, idx, idx == i0 ? (unsigned)(lo & 63) : 0,
				idx == i1 ? (unsigned)(hi & 63) : 63, idx == i0,
				idx == i1, set);
		lo = i0;
		hi = i1;
	}
}

/*
 * Bring the blocks of the deferred run, and the nodes above them, up to
 * date: one range update (the pending block stays pending).
 */
static HB_NOINLINE void hb_chain_flush(struct rg_hbitmap *hb)
{
	uint64_t s = hb->chain_s, e = hb->chain_e;

	hb->chain_s = HB_NONE;
	hb_update_blocks(hb, s >> HB_BLOCK_SHIFT, (e - 1) >> HB_BLOCK_SHIFT, s,
			 e, hb->chain_set, HB_NONE);
}

/*
 * Bring the pending block's summary and its ancestors up to date (its
 * recorded change or a recompute) and drop it. Inlined into the two hot
 * callers, the search and the switch to another pending block.
 */
static HB_ALWAYS_INLINE void hb_flush_inl(struct rg_hbitmap *hb)
{
	uint64_t b = hb->pend;

	if (b == HB_NONE)
		return;
	if (unlikely(hb->chain_s != HB_NONE))
		hb_chain_flush(hb);
	if (hb->pend_ops == 1) {
		uint32_t ov = hb->bsum[b];
		uint32_t nv =
			hb_block_incr(hb->words + b * HB_BLOCK_WORDS, ov,
				      hb->pend_s, hb->pend_e, hb->pend_set);

		if (nv != ov) {
			hb->bsum[b] = nv;
			hb_propagate(hb, b, ov, nv);
		}
	} else if (hb->pend_ops) {
		hb_update_block(hb, b);
	}
	hb->pend = HB_NONE;
	hb->pend_alloc = false;
	hb_before_reset(hb);
}

/* hb_flush_inl() out of line, for the calls off the hot paths. */
static HB_NOINLINE void hb_flush(struct rg_hbitmap *hb)
{
	hb_flush_inl(hb);
}

/*
 * Fold the runs lying before the pending block: the longest closed one and
 * the one open at its first unit. Stops early once a run reaches limit.
 */
static void hb_compute_before(struct rg_hbitmap *hb, uint64_t limit)
{
	uint64_t rs = 0, pos = 0, best = 0, pb = hb->pend;
	bool exact = true;

	/*
	 * The fold reads the summaries before the pending block: a deferred
	 * allocation run keeps the fold known, a deferred free run lies after.
	 */
	RGI_DEBUG_ASSERT(hb->chain_s == HB_NONE || !hb->chain_set);

	for (int k = (int)hb->nlevels - 1; k >= 0 && exact; k--) {
		unsigned csh = hb_child_shift((unsigned)k);
		uint64_t idx = pb >> (HB_FAN_SHIFT * (k + 1));
		unsigned c = (pb >> (HB_FAN_SHIFT * k)) & 63;
		const struct hb_node *nd = &hb->lv[k][idx];
		uint64_t base = idx << (csh + HB_FAN_SHIFT);
		uint64_t m = nd->any & ((1ULL << c) - 1), pc;

		while (m) {
			unsigned i = (unsigned)__builtin_ctzll(m);
			uint64_t cs = base + ((uint64_t)i << csh);
			struct hb_sum sm;

			if (cs != pos) {
				if (pos - rs > best)
					best = pos - rs;
				rs = cs;
			}
			if ((nd->all >> i) & 1) {
				unsigned len = hb_group_len(nd->all, i);

				if (i + len > c)
					len = c - i;
				pos = cs + ((uint64_t)len << csh);
				m = hb_clear_below(m, i + len);
				continue;
			}
			sm = hb_child(hb, (unsigned)k,
				      (idx << HB_FAN_SHIFT) + i);
			best = hb_max3(best, cs + sm.p - rs, sm.inner);
			rs = cs + (1ULL << csh) - sm.s;
			pos = cs + (1ULL << csh);
			m &= m - 1;
			if (best >= limit) {
				exact = false;
				break;
			}
		}
		pc = base + ((uint64_t)c << csh);
		if (pc != pos) {
			if (pos - rs > best)
				best = pos - rs;
			rs = pc;
			pos = pc;
		}
	}
	hb->before_known = true;
	hb->before_exact = exact;
	hb->before_max = best;
	hb->before_suffix = exact ? (pb << HB_BLOCK_SHIFT) - rs : 0;
	hb->before_lim = hb_max3(best, hb->before_suffix, 0);
}

static void hb_switch_pend(struct rg_hbitmap *hb, uint64_t b)
{
	hb_flush_inl(hb);
	hb->pend = b;
	hb->pend_hint = 0;
	hb->pend_ops = 0;
}

static inline void hb_set_pend(struct rg_hbitmap *hb, uint64_t b)
{
	if (hb->pend != b)
		hb_switch_pend(hb, b);
}

/*
 * A range over blocks b0 .. b1 (b0 < b1) that continues the deferred run,
 * or the pending block's recorded change: set [s, e) starting where an
 * allocation from the pending block b0 ended, or clear it ending where a
 * free in the pending block b1 began (see the top of the file). Defer its
 * summary updates: set the bits, grow the run, make the block where the
 * next call is likely to work (b1 when set, b0 when cleared) pending with
 * its part of the range recorded, and return true. Else (another block
 * pending, other changes in it, or an allocation's runs before b1 not
 * known) change nothing and return false.
 */
static bool hb_chain_extend(struct rg_hbitmap *hb, uint64_t s, uint64_t e,
			    bool set, bool from_alloc)
{
	uint64_t b0 = s >> HB_BLOCK_SHIFT, b1 = (e - 1) >> HB_BLOCK_SHIFT;
	uint64_t bs0 = b0 << HB_BLOCK_SHIFT, bs1 = b1 << HB_BLOCK_SHIFT, cs, ce;
	bool chain = hb->chain_s != HB_NONE;

	if (hb->pend_ops != 1 || hb->pend_set != set || set != from_alloc ||
	    (chain && hb->chain_set != set))
		return false;
	if (set) {
		uint64_t cmax;

		/*
		 * The runs wholly before b1 are those before b0 and the one
		 * open at it, once every unit of b0 below s is allocated.
		 */
		if (hb->pend != b0 || bs0 + hb->pend_e != s ||
		    !hb->before_known || !hb->before_exact ||
		    (chain && hb->pend_s != 0))
			return false;
		cs = chain ? hb->chain_s : bs0 + hb->pend_s;
		if (!chain && cs > bs0 + 64 * hb->pend_hint &&
		    !hb_bits_are(hb->words, bs0 + 64 * hb->pend_hint, cs, true))
			return false;
		cmax = RGI_MAX(hb->before_max, hb->before_suffix);
		hb->before_max = cmax;
		hb->before_suffix = 0;
		hb->before_lim = cmax;
		hb->chain_s = cs;
		hb->chain_e = bs1;
		hb->pend = b1;
		hb->pend_s = 0;
		hb->pend_e = (unsigned)(e - bs1);
		hb->pend_hint = (unsigned)((e - bs1) >> 6);
	} else {
		if (hb->pend != b1 || bs1 + hb->pend_s != e ||
		    (chain && hb->pend_e != HB_BLOCK_BITS))
			return false;
		ce = chain ? hb->chain_e : bs1 + hb->pend_e;
		hb->chain_s = bs0 + HB_BLOCK_BITS;
		hb->chain_e = ce;
		hb->pend = b0;
		hb->pend_s = (unsigned)(s - bs0);
		hb->pend_e = HB_BLOCK_BITS;
		hb->pend_hint = 0;
		hb->pend_alloc = false;
		hb_before_reset(hb); /* the runs before b0 stay exact */
	}
	hb->chain_set = set;
	hb_bits(hb->words, s, e, set);
	return true;
}

/*
 * Set or clear [s, s + n), keeping summaries and the pending block. A range
 * within one block makes it pending. A range over several blocks updates
 * all but one of them at once and leaves pending the one where the next
 * call is likely to work: the last for allocations (filling upwards), the
 * first for frees (emptying downwards).
 */
static void hb_mutate(struct rg_hbitmap *hb, uint64_t s, uint64_t n, bool set,
		      bool from_alloc)
{
	uint64_t e = s + n, b0 = s >> HB_BLOCK_SHIFT;
	uint64_t b1 = (e - 1) >> HB_BLOCK_SHIFT;

	if (b0 == b1) {
		hb_set_pend(hb, b0);
		hb_pend_note(hb, s, e, set);
		hb_bits(hb->words, s, e, set);
	} else if (hb_chain_extend(hb, s, e, set, from_alloc)) {
		/* deferred: nothing else to update */
	} else {
		uint64_t keep = from_alloc ? b1 : b0, stale = HB_NONE;
		uint64_t lo = keep == b1 ? b0 : b0 + 1;
		uint64_t hi = keep == b1 ? b1 - 1 : b1;
		uint64_t ks = keep << HB_BLOCK_SHIFT,
			 bs0 = b0 << HB_BLOCK_SHIFT;
		/*
		 * An allocation onward from the pending block b0, all of whose
		 * units below s are allocated, closes the run open at b0: the
		 * runs wholly before b1 are those before b0 and that one.
		 */
		bool carry = set && from_alloc && hb->pend == b0 &&
			     hb->before_known && hb->before_exact &&
			     (s == bs0 + 64 * hb->pend_hint ||
			      hb_bits_are(hb->words, bs0 + 64 * hb->pend_hint,
					  s, true));
		uint64_t cmax =
			carry ? RGI_MAX(hb->before_max, hb->before_suffix) : 0;

		if (hb->chain_s != HB_NONE)
			hb_chain_flush(hb);
		if (hb->pend != keep) {
			if (hb->pend >= lo && hb->pend <= hi) {
				/* its summary is recomputed below (unless the
				 * range covers it or fills it up); carried up
				 * there: the path was consistent with its
				 * stale summary */
				if (hb->pend_ops)
					stale = hb->pend;
				hb->pend = HB_NONE;
				hb->pend_alloc = false;
			}
			hb_switch_pend(hb, keep);
			/* (hb_flush() skips this when nothing was pending) */
			hb_before_reset(hb);
		}
		hb_bits(hb->words, s, e, set);
		hb_update_blocks(hb, lo, hi, s, e, set, stale);
		hb_pend_note(hb, RGI_MAX(s, ks), RGI_MIN(e, ks + HB_BLOCK_BITS),
			     set);
		if (carry) {
			hb->before_known = true;
			hb->before_exact = true;
			hb->before_max = cmax;
			hb->before_suffix = 0;
			hb->before_lim = cmax;
		} else if (s < ks) {
			hb_before_reset(hb); /* runs before it changed */
		}
		/* the words the range covers from the kept block's start */
		if (set && s < ks && (e - ks) >> 6 > hb->pend_hint)
			hb->pend_hint = (unsigned)((e - ks) >> 6);
	}
	if (set) {
		hb->free_units -= n;
	} else {
		uint64_t ps = hb->pend << HB_BLOCK_SHIFT;

		hb->free_units += n;
		if (s < ps + HB_BLOCK_BITS && e > ps) {
			unsigned j = (unsigned)(((s > ps ? s : ps) - ps) >> 6);

			if (j < hb->pend_hint)
				hb->pend_hint = j;
		}
	}
}

/* ---- build ------------------------------------------------------------- */

/* Compute every summary from the words; all_free: words are known zero. */
static void hb_build(struct rg_hbitmap *hb, bool all_free)
{
	for (uint64_t b = 0; b < hb->nblocks; b++) {
		uint32_t v = HB_BS_FREE;

		if (!all_free || b + 1 == hb->nblocks)
			v = hb_block_compute(hb->words + b * HB_BLOCK_WORDS, 0);
		hb->bsum[b] = v;
	}
	for (unsigned k = 0; k < hb->nlevels; k++) {
		uint64_t nchild = k ? hb->lv_count[k - 1] : hb->nblocks;
		uint64_t csz = 1ULL << hb_child_shift(k);

		for (uint64_t idx = 0; idx < hb->lv_count[k]; idx++) {
			struct hb_node *nd = &hb->lv[k][idx];
			struct hb_sum s;

			nd->any = nd->all = 0;
			for (unsigned i = 0; i < 64; i++) {
				uint64_t c = (idx << HB_FAN_SHIFT) + i;

				if (c >= nchild)
					break;
				s = hb_child(hb, k, c);
				hb_mask_set(nd, i, &s, csz);
			}
			hb_node_rebuild(hb, k, idx);
		}
	}
}

/* ---- public API -------------------------------------------------------- */

static void hb_req_init(struct hb_req *r, uint64_t n, uint64_t align,
			uint64_t lo, uint64_t hi)
{
	unsigned a = (unsigned)__builtin_ctzll(align);

	r->n = n;
	r->amask = align - 1;
	r->apat = a <= 6 ? hb_align_pattern[a] : 1;
	r->lo = lo;
	r->hi = hi;
}

/*
 * Fast path for n > 64 from word j of the pending block (the lowest word
 * not entirely allocated): the first free run there, joined to the run
 * open at the block (before_suffix) if it starts at the block's first
 * unit, followed through the block's words and the prefixes of the blocks
 * after it (their summaries are exact) until it ends or holds any aligned
 * start. Every unit before the run is allocated and no fit starts before
 * the block (n > before_lim), so the run's lowest aligned start is the
 * first fit if it holds n units; else HB_NONE (a later run may: the
 * caller scans).
 */
static uint64_t hb_pend_first_run(const struct rg_hbitmap *hb, uint64_t n,
				  uint64_t align, unsigned j)
{
	const uint64_t *w = hb->words + hb->pend * HB_BLOCK_WORDS;
	uint64_t pstart = hb->pend << HB_BLOCK_SHIFT, x = w[j], y, rs, end, a;
	unsigned f = (unsigned)__builtin_ctzll(~x);

	rs = pstart + 64 * j + f;
	y = x >> f;
	if (y) {
		end = rs + (uint64_t)__builtin_ctzll(y);
	} else {
		while (++j < HB_BLOCK_WORDS && !w[j])
			;
		end = j < HB_BLOCK_WORDS ?
			      pstart + 64 * j +
				      (uint64_t)__builtin_ctzll(w[j]) :
			      pstart + HB_BLOCK_BITS;
	}
	if (rs == pstart)
		rs -= hb->before_suffix;
	if (end == pstart + HB_BLOCK_BITS) {
		/* the entirely free blocks after it, from their node's mask */
		uint64_t b = hb->pend + 1;

		while (b < hb->nblocks && end - rs < n + align - 1) {
			unsigned c = (unsigned)(b & 63);
			uint64_t fr = ~(hb->lv[0][b >> HB_FAN_SHIFT].all >> c);
			unsigned run =
				fr ? (unsigned)__builtin_ctzll(fr) : 64 - c;

			end += (uint64_t)run << HB_BLOCK_SHIFT;
			b += run;
			if (c + run < 64) {
				if (b < hb->nblocks)
					end += HB_BS_P(hb->bsum[b]);
				break;
			}
		}
	}
	a = (rs + align - 1) & ~(align - 1);
	return a + n <= end ? a : HB_NONE;
}

/*
 * Fast path: the first fit, if it starts in the run open at the pending
 * block (before_suffix) or later, and ends in the block or in the run
 * reaching into the next block. HB_NONE: take the slow path.
 */
static uint64_t hb_alloc_pending(struct rg_hbitmap *hb, uint64_t n,
				 uint64_t align)
{
	const uint64_t *w = hb->words + hb->pend * HB_BLOCK_WORDS;
	uint64_t pstart = hb->pend << HB_BLOCK_SHIFT, x, y, wb, a, len;
	unsigned j = hb->pend_hint, f;
	struct hb_req r;

	if (unlikely(n <= hb->before_lim)) {
		/* a run before the block might hold the request */
		if (hb->before_known && hb->before_exact)
			return HB_NONE;
		hb_compute_before(hb, n);
		if (n <= hb->before_lim)
			return HB_NONE;
	}
	while (j < HB_BLOCK_WORDS && w[j] == ~0ULL)
		j++;
	hb->pend_hint = j;
	wb = pstart + 64 * j;
	if (likely(j < HB_BLOCK_WORDS && (j > 0 || hb->before_suffix == 0))) {
		/* No open run: try the first free run of word j. */
		x = w[j];
		f = (unsigned)__builtin_ctzll(~x);
		y = x >> f;
		if (y) {
			len = (uint64_t)__builtin_ctzll(y);
		} else {
			len = 64 - f;
			if (j + 1 < HB_BLOCK_WORDS)
				len += w[j + 1] ? (uint64_t)__builtin_ctzll(
							  w[j + 1]) :
						  64;
		}
		a = (wb + f + align - 1) & ~(align - 1);
		if (likely(a + n <= wb + f + len))
			return a;
	}
	if (n > 64 && j < HB_BLOCK_WORDS &&
	    (a = hb_pend_first_run(hb, n, align, j)) != HB_NONE)
		return a;
	hb_req_init(&r, n, align, 0, hb->capacity);
	r.rs = j == 0 ? pstart - hb->before_suffix : wb;
	a = hb_scan_block(hb, hb->pend, j, &r);
	if (a != HB_NONE || hb->pend + 1 >= hb->nblocks)
		return a;
	/*
	 * The run open at the block's end, into the blocks after it (their
	 * summaries are exact): through entirely free ones until the run is
	 * long enough for any aligned start, or ends.
	 */
	len = pstart + HB_BLOCK_BITS;
	for (uint64_t b = hb->pend + 1; b < hb->nblocks; b++) {
		unsigned p = HB_BS_P(hb->bsum[b]);

		len += p;
		if (p != HB_BLOCK_BITS || len - r.rs >= n + r.amask)
			break;
	}
	return hb_fit(&r, r.rs, len);
}

/* Set [s, s + n), n <= 64, at most two words. */
static inline void hb_set_short(uint64_t *w, uint64_t s, uint64_t n)
{
	uint64_t i = s >> 6;
	unsigned o = (unsigned)(s & 63);

	if (o + n <= 64) {
		w[i] |= (~0ULL >> (64 - n)) << o;
	} else {
		w[i] |= ~0ULL << o;
		w[i + 1] |= ~0ULL >> (128 - o - n);
	}
}

/* rg_hbitmap_alloc() past the pending-block fast path: a search. */
static HB_NOINLINE int hb_alloc_search(struct rg_hbitmap *hb, uint64_t n,
				       uint64_t align, uint64_t *start)
{
	struct hb_req r;
	uint64_t a;

	hb_req_init(&r, n, align, 0, hb->capacity);
	hb_flush_inl(hb);
	a = align == 1 && n <= 64 ? hb_search_plain(hb, &r) : hb_search(hb, &r);
	if (a == HB_NONE)
		return -ENOSPC;
	if (likely(n <= 64 &&
		   a >> HB_BLOCK_SHIFT == (a + n - 1) >> HB_BLOCK_SHIFT)) {
		/* nothing is pending (flushed): this block becomes it */
		hb->pend = a >> HB_BLOCK_SHIFT;
		hb->pend_hint = 0;
		hb->pend_ops = 0;
		hb_pend_note(hb, a, a + n, true);
		hb_set_short(hb->words, a, n);
		hb->free_units -= n;
	} else {
		hb_mutate(hb, a, n, true, true);
	}
	/* the fast path pays off when allocations follow each other */
	hb->pend_alloc = a == hb->last_end;
	hb->last_end = a + n;
	*start = a;
	return 0;
}

/* rg_hbitmap_alloc() when allocations follow each other: the fast path. */
static HB_NOINLINE int hb_alloc_seq(struct rg_hbitmap *hb, uint64_t n,
				    uint64_t align, uint64_t *start)
{
	uint64_t a = hb_alloc_pending(hb, n, align), ps;

	if (unlikely(a == HB_NONE))
		return hb_alloc_search(hb, n, align, start);
	ps = hb->pend << HB_BLOCK_SHIFT;
	if (likely(a >= ps && a + n <= ps + HB_BLOCK_BITS && n <= 64)) {
		hb_pend_note(hb, a, a + n, true);
		hb_set_short(hb->words, a, n);
		hb->free_units -= n;
	} else {
		hb_mutate(hb, a, n, true, true);
		hb->pend_alloc = true;
	}
	hb->last_end = a + n;
	*start = a;
	return 0;
}

/*
 * Best-fit instances: every change of bits is reported to the index, and
 * the summaries are not kept up to date: best fit, top-down, free and
 * reserve change only bits (and the index), mark the summaries stale and
 * note the blocks they changed in a list of block ranges (a quarter of
 * the block count, at least 64 entries); a call
 * that needs the summaries (first fit, a window, rg_hbitmap_sync(), which
 * the region walk calls) recomputes those blocks and their ancestors, or,
 * once the list overflowed, every summary in O(capacity / 64). So a
 * best-fit instance pays one list entry or one count per change for the
 * first-fit structure unless it uses it. Such an instance never keeps a
 * pending block (every call that changes bits through the summaries
 * flushes it; validate checks it), so the plain fast paths, which test for
 * one first, never see it and test for the index only when they miss.
 */

/*
 * Bring the summaries of a best-fit instance up to date: each block named
 * in the change list is recomputed from its words and its change carried
 * up as after any update (hb_update_block()); the blocks not named are
 * exact. A list that overflowed rebuilds everything, O(capacity / 64).
 */
static void hb_sync(struct rg_hbitmap *hb)
{
	if (!hb->sum_stale)
		return;
	if (hb->chg_n > hb->chg_max) {
		hb_build(hb, false);
	} else {
		for (uint64_t i = 0; i < hb->chg_n; i++) {
			uint64_t e = hb->chg[i], b = e >> 16;

			if (e == UINT64_MAX) {
				hb_build(hb, false);
				break;
			}
			for (uint64_t last = b + (e & 0xffff); b <= last; b++)
				hb_update_block(hb, b);
		}
	}
	hb->chg_n = 0;
	hb->sum_stale = false;
	if (hb->runs)
		rgi_hb_runs_synced(hb->runs);
}

/*
 * Units [s, s + n), free, become allocated outside the plain paths: on a
 * best-fit instance by the bits and the index alone (the summaries go
 * stale), else through the summaries (@from_alloc: an allocation, which
 * may arm the sequential fast path). The one place that picks between the
 * two bookkeeping modes for a take.
 */
static void hb_take(struct rg_hbitmap *hb, uint64_t s, uint64_t n,
		    bool from_alloc)
{
	if (hb->runs) {
		hb_bits_only(hb, s, n, true);
		rgi_hb_runs_taken(hb->runs, hb->words, hb->capacity, s, n);
	} else {
		hb_mutate(hb, s, n, true, from_alloc);
	}
}

void rg_hbitmap_sync(struct rg_hbitmap *hb)
{
	if (hb)
		hb_sync(hb);
}

static HB_NOINLINE int hb_alloc_indexed(struct rg_hbitmap *hb, uint64_t n,
					uint64_t align, uint64_t *start)
{
	int err;

	hb_sync(hb);
	err = hb_alloc_search(hb, n, align, start);
	hb_flush(hb); /* no pending block: the plain fast paths stay off */
	if (!err)
		rgi_hb_runs_taken(hb->runs, hb->words, hb->capacity, *start, n);
	return err;
}

int rg_hbitmap_alloc_best(struct rg_hbitmap *hb, uint64_t n, uint64_t align,
			  uint64_t *start)
{
	uint64_t sink; /* the adv calls move a caller's count too */

	if (unlikely(!hb || n == 0 || n > hb->capacity || hb_bad_align(align) ||
		     !start))
		return -EINVAL;
	if (unlikely(!hb->runs))
		return -EOPNOTSUPP;
	if (unlikely(n > hb->free_units))
		return -ENOSPC;
	return rgi_hbitmap_alloc_best_adv(hb, n, align - 1, start, &sink);
}

int rg_hbitmap_alloc(struct rg_hbitmap *hb, uint64_t n, uint64_t align,
		     uint64_t *start)
{
	if (unlikely(!hb || n == 0 || n > hb->capacity || hb_bad_align(align) ||
		     !start))
		return -EINVAL;
	if (likely(hb->pend_alloc)) /* never on best-fit instances */
		return hb_alloc_seq(hb, n, align, start);
	if (unlikely(hb->runs))
		return hb_alloc_indexed(hb, n, align, start);
	return hb_alloc_search(hb, n, align, start);
}

int rg_hbitmap_alloc_range(struct rg_hbitmap *hb, uint64_t n, uint64_t align,
			   uint64_t min, uint64_t max, uint64_t *start)
{
	struct hb_req r;
	uint64_t a, hi;

	if (unlikely(!hb || !start))
		return -EINVAL;
	if (n == 0 || n > hb->capacity || hb_bad_align(align) || min > max)
		return -EINVAL;
	hi = max >= hb->capacity ? hb->capacity : max + 1;
	if (min >= hi || hi - min < n)
		return -ENOSPC;
	hb_req_init(&r, n, align, min, hi);
	if (hb->runs)
		hb_sync(hb);
	hb_flush(hb);
	a = hb_search(hb, &r);
	if (a == HB_NONE)
		return -ENOSPC;
	hb_take(hb, a, n, true);
	*start = a;
	return 0;
}

static inline bool hb_bad_range(const struct rg_hbitmap *hb, uint64_t start,
				uint64_t n)
{
	return !hb || n == 0 || start >= hb->capacity ||
	       n > hb->capacity - start;
}

/*
 * Free [start, start + n), n <= 64 units within one block: one or two
 * words. The block becomes the pending one (switch: it was not).
 */
static HB_ALWAYS_INLINE int hb_free_short(struct rg_hbitmap *hb, uint64_t start,
					  uint64_t n, bool switch_pend)
{
	uint64_t *w = &hb->words[start >> 6];
	unsigned o = (unsigned)(start & 63);
	unsigned j = (unsigned)(start >> 6) & (HB_BLOCK_WORDS - 1);
	uint64_t m0, m1 = 0;

	if (o + n <= 64) {
		m0 = (~0ULL >> (64 - n)) << o;
		if (unlikely((w[0] & m0) != m0))
			return -ENOENT;
	} else {
		m0 = ~0ULL << o;
		m1 = ~0ULL >> (128 - o - n);
		if (unlikely((w[0] & m0) != m0 || (w[1] & m1) != m1))
			return -ENOENT;
	}
	if (switch_pend)
		hb_switch_pend(hb, start >> HB_BLOCK_SHIFT);
	w[0] &= ~m0;
	if (m1)
		w[1] &= ~m1;
	hb_pend_note(hb, start, start + n, false);
	hb->free_units += n;
	if (j < hb->pend_hint)
		hb->pend_hint = j;
	return 0;
}

/* hb_free_short() in a block other than the pending one. */
static HB_NOINLINE int hb_free_short_switch(struct rg_hbitmap *hb,
					    uint64_t start, uint64_t n)
{
	return hb_free_short(hb, start, n, true);
}

/* rg_hbitmap_free() on a best-fit instance, out of first fit's way. */
static HB_NOINLINE int hb_free_best(struct rg_hbitmap *hb, uint64_t start,
				    uint64_t n)
{
	uint64_t sink; /* the adv calls move a caller's count too */

	return rgi_hbitmap_free_best_adv(hb, start, n, &sink);
}

int rg_hbitmap_free(struct rg_hbitmap *hb, uint64_t start, uint64_t n)
{
	uint64_t e = start + n, b = start >> HB_BLOCK_SHIFT;

	if (unlikely(hb_bad_range(hb, start, n)))
		return -EINVAL;
	if (unlikely(hb->runs)) /* best fit: no pending block, no summaries */
		return hb_free_best(hb, start, n);
	if (likely(n <= 64 && b == ((e - 1) >> HB_BLOCK_SHIFT))) {
		if (likely(b == hb->pend))
			return hb_free_short(hb, start, n, false);
		return hb_free_short_switch(hb, start, n);
	}
	if (unlikely(!hb_bits_are(hb->words, start, e, true)))
		return -ENOENT;
	hb_mutate(hb, start, n, false, false);
	return 0;
}

int rg_hbitmap_reserve(struct rg_hbitmap *hb, uint64_t start, uint64_t n)
{
	if (hb_bad_range(hb, start, n))
		return -EINVAL;
	if (!hb_bits_are(hb->words, start, start + n, false))
		return -EBUSY;
	hb_take(hb, start, n, false);
	return 0;
}

uint64_t rg_hbitmap_free_units(const struct rg_hbitmap *hb)
{
	return hb ? hb->free_units : 0;
}

/*
 * Summary of block b: stored, or from its words if it may be stale (the
 * pending block, a block of the deferred run).
 */
static struct hb_sum hb_live_block(const struct rg_hbitmap *hb, uint64_t b)
{
	if (b == hb->pend || hb_in_chain(hb, b))
		return hb_unpack(
			hb_block_compute(hb->words + b * HB_BLOCK_WORDS, 0));
	return hb_unpack(hb->bsum[b]);
}

/*
 * Summary of node (k, idx) as the words give it: the stored one unless
 * the node holds the pending block or part of the deferred run (whose
 * summaries may be stale), a constant for a node inside the run, else
 * its children's folded in address order (stale blocks recomputed).
 */
static struct hb_sum hb_live_node(const struct rg_hbitmap *hb, unsigned k,
				  uint64_t idx)
{
	unsigned csh = hb_child_shift(k);
	uint64_t ns = idx << (csh + HB_FAN_SHIFT), ne = ns + (64ULL << csh);
	uint64_t ps = hb->pend << HB_BLOCK_SHIFT, run = 0, p = 0, best = 0;
	uint64_t nchild = k ? hb->lv_count[k - 1] : hb->nblocks;
	bool chain = hb->chain_s != HB_NONE, closed = false;
	const struct hb_node *nd = &hb->lv[k][idx];
	struct hb_sum out = { nd->p, nd->s, nd->inner };

	if ((hb->pend == HB_NONE || ps < ns || ps >= ne) &&
	    (!chain || hb->chain_e <= ns || hb->chain_s >= ne))
		return out; /* exact */
	if (chain && hb->chain_s <= ns && hb->chain_e >= ne) {
		out.p = out.s = hb->chain_set ? 0 : ne - ns;
		out.inner = 0;
		return out;
	}
	for (unsigned i = 0; i < 64; i++) {
		uint64_t c = (idx << HB_FAN_SHIFT) + i;
		struct hb_sum x = { 0, 0, 0 }; /* absent: allocated */

		if (c < nchild)
			x = k ? hb_live_node(hb, k - 1, c) :
				hb_live_block(hb, c);
		if (x.p == 1ULL << csh) {
			run += 1ULL << csh;
			continue;
		}
		if (!closed)
			p = run + x.p;
		else
			best = RGI_MAX(best, run + x.p);
		closed = true;
		best = RGI_MAX(best, x.inner);
		run = x.s;
	}
	if (!closed) {
		out.p = out.s = ne - ns;
		out.inner = 0;
		return out;
	}
	out.p = p;
	out.s = run;
	out.inner = best;
	return out;
}

/* Root summary, the pending block's and the deferred run's recomputed. */
static struct hb_sum hb_live_root(const struct rg_hbitmap *hb)
{
	return hb_live_node(hb, hb->nlevels - 1, 0);
}

uint64_t rg_hbitmap_largest_free_run(const struct rg_hbitmap *hb)
{
	struct hb_sum r;

	if (!hb)
		return 0;
	if (hb->sum_stale)
		return rgi_hb_runs_largest(hb->runs, hb->words, hb->capacity);
	r = hb_live_root(hb);
	return hb_max3(r.p, r.s, r.inner);
}

size_t rg_hbitmap_bytes(const struct rg_hbitmap *hb)
{
	return hb ? hb->mem.base + hb->mem.index : 0;
}

size_t rg_hbitmap_bytes_peak(const struct rg_hbitmap *hb)
{
	return hb ? hb->mem.peak : 0;
}

/* First unit in [from, end) whose bit equals set, or end. */
static uint64_t hb_next_bit(const uint64_t *w, uint64_t from, uint64_t end,
			    bool set)
{
	while (from < end) {
		uint64_t x = w[from >> 6] ^ (set ? 0 : ~0ULL);

		x &= ~0ULL << (from & 63);
		if (x) {
			uint64_t u =
				(from & ~63ULL) + (uint64_t)__builtin_ctzll(x);

			return u < end ? u : end;
		}
		from = (from & ~63ULL) + 64;
	}
	return end;
}

/* ---- for hbitmap_check.c ----------------------------------------------- */

/*
 * Validation and the dump (hbitmap_check.c) reuse these computations
 * through wrappers, so that the static functions keep the inlining the hot
 * paths depend on.
 */

uint32_t rgi_hb_block_compute(const uint64_t *w)
{
	return hb_block_compute(w, 0);
}

uint64_t rgi_hb_g_exact(const struct rg_hbitmap *hb, unsigned k, uint64_t idx,
			const struct hb_node *nd, unsigned j)
{
	return hb_g_exact(hb, k, idx, nd, j);
}

struct hb_sum rgi_hb_node_compute(const struct rg_hbitmap *hb, unsigned k,
				  uint64_t idx)
{
	return hb_node_compute_masks(hb, k, idx);
}

struct hb_sum rgi_hb_node_sum(const struct rg_hbitmap *hb, unsigned k,
			      uint64_t idx)
{
	return hb_node_sum(hb, k, idx);
}

struct hb_sum rgi_hb_live_root(const struct rg_hbitmap *hb)
{
	return hb_live_root(hb);
}

uint64_t rgi_hb_next_bit(const uint64_t *w, uint64_t from, uint64_t end,
			 bool set)
{
	return hb_next_bit(w, from, end, set);
}

/* ---- for hb_window.c and hb_geom.c ------------------------------------ */

uint64_t rgi_hb_search(const struct rg_hbitmap *hb, uint64_t n, uint64_t align,
		       uint64_t lo, uint64_t hi)
{
	struct hb_req r;

	hb_req_init(&r, n, align, lo, hi);
	return hb_search(hb, &r);
}

void rgi_hb_build(struct rg_hbitmap *hb, bool all_free)
{
	hb_build(hb, all_free);
}

void rgi_hb_flush(struct rg_hbitmap *hb)
{
	hb_flush(hb);
}

void rgi_hb_sync(struct rg_hbitmap *hb)
{
	hb_sync(hb);
}

void rgi_hb_take(struct rg_hbitmap *hb, uint64_t s, uint64_t n, bool from_alloc)
{
	hb_take(hb, s, n, from_alloc);
}
