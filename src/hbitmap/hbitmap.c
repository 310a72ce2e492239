// SPDX-License-Identifier: MIT
/*
 * hbitmap: a first-fit contiguous-range allocator. Theory of operation.
 *
 * Layout. One bit per unit in 64-bit words (1 = allocated), grouped in
 * blocks of 8 words (512 units). Every block has a packed 32-bit summary
 * (bsum): the length of its free prefix (the free run starting at its first
 * unit), of its free suffix (the run ending at its last unit) and of its
 * longest "inner" run (a free run touching neither end), 10 bits each. Above
 * the blocks sit levels of nodes with fan-out 64: a level-0 node covers 64
 * blocks (32768 units), a level-k node covers 64 level-(k-1) nodes. A node
 * holds two child masks (any: the child has a free unit; all: the child is
 * entirely free) and the same three lengths for its own span, in 64 bits
 * each. The top level has a single node, the root. Bits past the capacity
 * (padding in the last block) are set, and children past the last block or
 * node are absent from the masks, so no search ever sees them as free.
 * Memory at 10^6 units: 125,056 B of bitmap, 7,816 B of block summaries,
 * 1,280 B of nodes: 1.075x the plain bitmap.
 *
 * Invariants. For every block other than the pending one (below) bsum equals
 * a recomputation from its words. For every node, the masks match the
 * stored summaries of its children, and its own summary equals a
 * recomputation from those stored child summaries. A fully free span has
 * prefix = suffix = its size and inner = 0. free_units counts the zero bits
 * below the capacity.
 *
 * Search (first fit). A scan walks a node's children left to right carrying
 * the open free run (where the current run of free units started). For each
 * child it checks exactly whether the open run, extended by the child's
 * prefix, holds an aligned fit; descends into the child only if the
 * child's inner run could hold the request; then checks the child's suffix
 * run and carries it on. Prefix, suffix and spanning runs are therefore
 * decided at the level where they appear, and the only reason to descend is
 * an inner run, which lies wholly inside the child: with align == 1 the
 * descent never fails, so one root-to-block path is walked (O(64 x depth)
 * word operations). Children are first put through one test, max(open run
 * + prefix, suffix, inner) < n, which rejects most of them; at level 0 SSE2
 * applies it to four blocks at a time. Inside a block, run starts of n <= 64
 * zeros in a word are found with log2(n) shift-and steps and masked by the
 * alignment pattern; longer runs are handled by the carried run. With
 * align > 1 a child whose inner run is long enough but misaligned is
 * searched and left (the scan goes on): this keeps the result exact; runs
 * of n + align - 1 units always succeed.
 *
 * Updates. After bits change in one block the block summary is recomputed
 * and, while a summary actually changes, the parent is updated
 * incrementally: its prefix and suffix come from the masks in O(1), and its
 * inner run from the runs that touch the changed child (one ctz/clz each
 * side, skipped for a side whose end did not move); only when the changed
 * child held the old maximum and the new runs are shorter is the node
 * recomputed from its 64 children (four blocks per SSE2 step at level 0).
 * The same rule updates a block from a single recorded change (one run
 * carved or two merged) without reading its other words. Ranges spanning
 * many blocks recompute the covered nodes level by level.
 *
 * Pending block. Summary updates for a block are deferred while operations
 * stay inside it: mutations confined to one block only change its bits and
 * make it the pending block (the first change is recorded); its summary and
 * its ancestors' go stale until an operation elsewhere flushes it. Searches,
 * statistics and validation never read the stale summaries: a search
 * flushes first; the statistics recompute the pending path on the side.
 * Allocation has a fast path for sequential use, armed when an allocation
 * starts where the previous one ended: it caches the longest free run lying
 * wholly before the pending block (before_max) and the free run ending at
 * its first unit (before_suffix); if both are shorter than n no fit starts
 * before the block, so the lowest fit found by scanning the pending block's
 * words is the global first fit. This makes filling and emptying in address
 * order cost a few word operations per call, with the tree walked once per
 * block.
 *
 * What never allocates: everything but rg_hbitmap_create() and
 * rg_hbitmap_resize(), which allocate the handle and one array holding
 * words, nodes and block summaries (rgi_calloc, so fault injection reaches
 * them).
 *
 * Limits: capacity 1 .. 2^56 units (8 node levels at most); unit numbers
 * and lengths are 64-bit.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rg_internal.h"
#include "region/hbitmap.h"

#ifdef __SSE2__
#include <emmintrin.h>
#define HB_SIMD 1
#endif

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
	uint64_t lv_count[HB_MAX_LEVELS];
	unsigned nlevels;
	size_t data_bytes;
	/* Pending block: bits may be ahead of its summary (see top). */
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
};

/* A search request and the scan state it carries. */
struct hb_req {
	uint64_t n;
	uint64_t amask; /* align - 1 */
	uint64_t apat; /* start pattern in a word, align <= 64 */
	uint64_t lo, hi; /* window [lo, hi) */
	uint64_t rs; /* the open free run starts here (== pos: none) */
	uint64_t pos; /* the scan has covered everything below pos */
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

/* ---- word and block level ---------------------------------------------- */

/* Longest run of one bits in u, u not all ones: one step per run. */
static unsigned hb_longest_ones(uint64_t u)
{
	unsigned best = 0;

	while (u) {
		unsigned len;

		u >>= __builtin_ctzll(u);
		len = (unsigned)__builtin_ctzll(~u);
		if (len > best)
			best = len;
		u >>= len;
	}
	return best;
}

/* Positions i such that bits i .. i + n - 1 of u are all set (n <= 64). */
static inline uint64_t hb_run_starts(uint64_t u, uint64_t n)
{
	uint64_t have = 1;

	while (have < n && u) {
		uint64_t k = have < n - have ? have : n - have;

		u &= u >> k;
		have += k;
	}
	return u;
}

/*
 * Summary of the 512 units held in w[0 .. 7]. Built twice where the
 * compiler can dispatch on the CPU: the hardware popcount prunes the
 * inner-run search of most words. Not under ThreadSanitizer: the ifunc
 * resolver runs before the sanitizer's runtime is up and crashes.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
	!defined(__SANITIZE_THREAD__)
__attribute__((target_clones("popcnt", "default")))
#endif
static uint32_t
hb_block_compute(const uint64_t *w)
{
	unsigned rs = 0, p = 0, best = 0, nu = 0;
	uint64_t us[HB_BLOCK_WORDS];

	/* runs that touch a word boundary first, then the words' inner runs,
	 * most of which the longest boundary run makes moot */
	for (unsigned j = 0; j < HB_BLOCK_WORDS; j++) {
		uint64_t x = w[j], u;
		unsigned wb = 64 * j, z, e, top;

		if (!x)
			continue;
		z = (unsigned)__builtin_ctzll(x);
		e = wb + z;
		if (rs < e) {
			if (rs == 0)
				p = e;
			else if (e - rs > best)
				best = e - rs;
		}
		top = 63 - (unsigned)__builtin_clzll(x);
		/* zeros strictly between the lowest and highest set bit */
		u = ~x & (~0ULL << z) & ((2ULL << top) - 1);
		if (u)
			us[nu++] = u;
		rs = wb + 64 - (unsigned)__builtin_clzll(x);
	}
	for (unsigned j = 0; j < nu; j++) {
		if ((unsigned)__builtin_popcountll(us[j]) > best) {
			unsigned l = hb_longest_ones(us[j]);

			if (l > best)
				best = l;
		}
	}
	if (rs == 0)
		return HB_BS_FREE;
	return HB_BS(p, HB_BLOCK_BITS - rs, best);
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
			t = hb_run_starts(~x, r->n);
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
	r->pos = base + HB_BLOCK_BITS;
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

/* Number of blocks under level-0 node idx. */
static inline unsigned hb_l0_count(const struct rg_hbitmap *hb, uint64_t idx)
{
	uint64_t left = hb->nblocks - (idx << HB_FAN_SHIFT);

	return left < 64 ? (unsigned)left : 64;
}

#ifdef HB_SIMD
/*
 * First block b in [j, cnt - 3) that could start or hold a fit of n <= 512
 * units: the previous block's suffix plus b's prefix, b's suffix or b's
 * inner run reaches n. Four blocks per step; returns where it stopped (the
 * candidate, or the first block of a tail shorter than four). Blocks before
 * the result are no candidates, so none is entirely free and the run open
 * at the result is exactly the suffix of the block before it.
 */
static unsigned hb_l0_skip(const uint32_t *bs, unsigned j, unsigned cnt,
			   uint64_t n)
{
	const __m128i m10 = _mm_set1_epi32(1023);
	const __m128i n1 = _mm_set1_epi32((int)n - 1);

	for (; j + 4 <= cnt; j += 4) {
		__m128i v = _mm_loadu_si128((const __m128i *)(bs + j));
		__m128i pv = _mm_loadu_si128((const __m128i *)(bs + j - 1));
		__m128i sp = _mm_and_si128(_mm_srli_epi32(pv, 10), m10);
		__m128i sv = _mm_and_si128(_mm_srli_epi32(v, 10), m10);
		__m128i c = _mm_cmpgt_epi32(
			_mm_add_epi32(sp, _mm_and_si128(v, m10)), n1);
		int mask;

		c = _mm_or_si128(c, _mm_cmpgt_epi32(sv, n1));
		c = _mm_or_si128(c, _mm_cmpgt_epi32(_mm_srli_epi32(v, 20), n1));
		mask = _mm_movemask_ps(_mm_castsi128_ps(c));
		if (mask)
			return j + (unsigned)__builtin_ctz((unsigned)mask);
	}
	return j;
}
#endif

/*
 * Scan the blocks of level-0 node idx (r->pos is its start). A block is
 * passed over after one test when neither the open run plus its prefix,
 * nor its inner run, nor its suffix reaches n units (absent and full
 * blocks read as zeros); with SSE2 four blocks are tested at a time. Only
 * blocks that pass the test get the exact checks.
 */
static uint64_t hb_scan_l0(const struct rg_hbitmap *hb, uint64_t idx,
			   struct hb_req *r)
{
	const uint32_t *bs = hb->bsum + (idx << HB_FAN_SHIFT);
	uint64_t base = idx << (HB_BLOCK_SHIFT + HB_FAN_SHIFT);
	uint64_t carry = base - r->rs, n = r->n, a;
	unsigned cnt = hb_l0_count(hb, idx), i = 0;

	if (r->hi < base + ((uint64_t)cnt << HB_BLOCK_SHIFT))
		cnt = (unsigned)((r->hi - base + HB_BLOCK_BITS - 1) >>
				 HB_BLOCK_SHIFT);
	while (i < cnt) {
		uint32_t v = bs[i];
		uint64_t p = HB_BS_P(v), s = HB_BS_S(v), in = HB_BS_I(v);
		uint64_t t = carry + p, cs, ce;

		t = s > t ? s : t;
		t = in > t ? in : t;
		if (likely(t < n)) {
			i++;
			if (p == HB_BLOCK_BITS) {
				carry += HB_BLOCK_BITS;
				continue;
			}
			carry = s;
#ifdef HB_SIMD
			if (n <= HB_BLOCK_BITS && i + 4 <= cnt) {
				unsigned j = hb_l0_skip(bs, i, cnt, n);

				if (j != i) {
					i = j;
					carry = HB_BS_S(bs[j - 1]);
				}
			}
#endif
			continue;
		}
		cs = base + ((uint64_t)i << HB_BLOCK_SHIFT);
		ce = cs + HB_BLOCK_BITS;
		if (p == HB_BLOCK_BITS) {
			if ((a = hb_fit(r, cs - carry, ce)) != HB_NONE)
				return a;
			carry += HB_BLOCK_BITS;
			i++;
			continue;
		}
		if ((a = hb_fit(r, cs - carry, cs + p)) != HB_NONE)
			return a;
		if (in >= n && ce > r->lo) {
			r->rs = cs - carry;
			r->pos = cs;
			a = hb_scan_block(hb, (idx << HB_FAN_SHIFT) + i, 0, r);
			if (a != HB_NONE)
				return a;
		}
		if (s && (a = hb_fit(r, ce - s, ce)) != HB_NONE)
			return a;
		carry = s;
		i++;
	}
	return HB_NONE;
}

/*
 * Scan the children of node idx at level k >= 1 (r->pos is its start) with
 * the same one-test rejection as hb_scan_l0(); absent children are not
 * visited and full ones read as zeros.
 */
static uint64_t hb_scan_node(const struct rg_hbitmap *hb, unsigned k,
			     uint64_t idx, struct hb_req *r)
{
	const struct hb_node *ch = hb->lv[k - 1] + (idx << HB_FAN_SHIFT);
	unsigned csh = hb_child_shift(k);
	uint64_t csz = 1ULL << csh, base = idx << (csh + HB_FAN_SHIFT);
	uint64_t left = hb->lv_count[k - 1] - (idx << HB_FAN_SHIFT);
	uint64_t carry = base - r->rs, n = r->n, a;
	unsigned cnt = left < 64 ? (unsigned)left : 64;

	if (r->hi < base + ((uint64_t)cnt << csh))
		cnt = (unsigned)((r->hi - base + csz - 1) >> csh);
	for (unsigned i = 0; i < cnt; i++) {
		uint64_t p = ch[i].p, s = ch[i].s, in = ch[i].inner;
		uint64_t t = carry + p, cs, ce;

		t = s > t ? s : t;
		t = in > t ? in : t;
		if (likely(t < n)) {
			carry = p == csz ? carry + csz : s;
			continue;
		}
		cs = base + ((uint64_t)i << csh);
		ce = cs + csz;
		if (p == csz) {
			if ((a = hb_fit(r, cs - carry, ce)) != HB_NONE)
				return a;
			carry += csz;
			continue;
		}
		if ((a = hb_fit(r, cs - carry, cs + p)) != HB_NONE)
			return a;
		if (in >= n && ce > r->lo) {
			uint64_t c = (idx << HB_FAN_SHIFT) + i;

			r->rs = cs - carry;
			r->pos = cs;
			a = k > 1 ? hb_scan_node(hb, k - 1, c, r) :
				    hb_scan_l0(hb, c, r);
			if (a != HB_NONE)
				return a;
		}
		if (s && (a = hb_fit(r, ce - s, ce)) != HB_NONE)
			return a;
		carry = s;
	}
	return HB_NONE;
}

static uint64_t hb_search(const struct rg_hbitmap *hb, struct hb_req *r)
{
	r->rs = 0;
	r->pos = 0;
	if (hb->nlevels == 1)
		return hb_scan_l0(hb, 0, r);
	return hb_scan_node(hb, hb->nlevels - 1, 0, r);
}

/*
 * Summary of node idx at level k from its masks and its children's stored
 * summaries, child ov_i replaced by *ov when ov is not NULL.
 */
static struct hb_sum hb_node_compute_masks(const struct rg_hbitmap *hb,
					   unsigned k, uint64_t idx,
					   uint64_t any, uint64_t all,
					   unsigned ov_i,
					   const struct hb_sum *ov)
{
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
		if (ov && i == ov_i)
			sm = *ov;
		else
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
 * hb_node_compute_masks() for a level-0 node in one straight pass over its
 * packed block summaries (absent and full blocks read as all zero).
 */
static struct hb_sum hb_l0_compute(const struct rg_hbitmap *hb, uint64_t idx,
				   unsigned ov_i, const struct hb_sum *ov)
{
	const uint32_t *bs = hb->bsum + (idx << HB_FAN_SHIFT);
	unsigned cnt = hb_l0_count(hb, idx), i = 0;
	uint64_t run = 0, best = 0, pfx, size = 1ULL << (HB_BLOCK_SHIFT + 6);
	uint32_t ovv = ov ? HB_BS(ov->p, ov->s, ov->inner) : 0;
	struct hb_sum out;

	/* the run from the node's start */
	for (;; i++) {
		uint32_t v;

		if (i == cnt) {
			if (cnt == 64) {
				out.p = out.s = size;
				out.inner = 0;
				return out;
			}
			out.p = run;
			out.s = 0;
			out.inner = 0;
			return out;
		}
		v = (ov && i == ov_i) ? ovv : bs[i];
		if ((v & 1023) != HB_BLOCK_BITS) {
			pfx = run + (v & 1023);
			best = v >> 20;
			run = (v >> 10) & 1023;
			i++;
			break;
		}
		run += HB_BLOCK_BITS;
	}
	for (; i < cnt; i++) {
		uint32_t v = (ov && i == ov_i) ? ovv : bs[i];
		uint64_t p = v & 1023, len = run + p, in = v >> 20;

		if (unlikely(p == HB_BLOCK_BITS)) {
			run += HB_BLOCK_BITS;
			continue;
		}
		best = len > best ? len : best;
		best = in > best ? in : best;
		run = (v >> 10) & 1023;
	}
	if (cnt < 64) {
		best = run > best ? run : best;
		run = 0;
	}
	out.p = pfx;
	out.s = run;
	out.inner = best;
	return out;
}

#ifdef HB_SIMD
/*
 * hb_l0_compute() for a full level-0 node without override: the inner
 * runs within a block or across one boundary between two blocks that are
 * not entirely free are maxed four blocks at a time; runs through entirely
 * free blocks, the prefix and the suffix come from the all mask.
 */
static struct hb_sum hb_l0_compute_simd(const struct rg_hbitmap *hb,
					uint64_t idx, uint64_t all)
{
	const uint32_t *bs = hb->bsum + (idx << HB_FAN_SHIFT);
	const __m128i m10 = _mm_set1_epi32(1023);
	const __m128i fr = _mm_set1_epi32((int)HB_BS_FREE);
	__m128i prev = fr, best = _mm_setzero_si128();
	uint64_t nf = ~all, inner, m;
	struct hb_sum out;
	unsigned f, l;

	if (!nf) {
		out.p = out.s = 1ULL << (HB_BLOCK_SHIFT + HB_FAN_SHIFT);
		out.inner = 0;
		return out;
	}
	for (unsigned k = 0; k < 64; k += 4) {
		__m128i v = _mm_loadu_si128((const __m128i *)(bs + k));
		__m128i pv = _mm_or_si128(_mm_slli_si128(v, 4),
					  _mm_srli_si128(prev, 12));
		__m128i ex = _mm_or_si128(_mm_cmpeq_epi32(v, fr),
					  _mm_cmpeq_epi32(pv, fr));
		__m128i pair = _mm_add_epi32(
			_mm_and_si128(v, m10),
			_mm_and_si128(_mm_srli_epi32(pv, 10), m10));

		best = _mm_max_epi16(best, _mm_andnot_si128(ex, pair));
		best = _mm_max_epi16(best, _mm_srli_epi32(v, 20));
		prev = v;
	}
	best = _mm_max_epi16(best, _mm_srli_si128(best, 8));
	best = _mm_max_epi16(best, _mm_srli_si128(best, 4));
	inner = (uint32_t)_mm_cvtsi128_si32(best);
	/* runs through entirely free blocks */
	for (m = all; m;) {
		unsigned a = (unsigned)__builtin_ctzll(m);
		unsigned len = hb_group_len(m, a), b = a + len;

		if (a > 0 && b < 64) {
			uint64_t run = HB_BS_S(bs[a - 1]) +
				       ((uint64_t)len << HB_BLOCK_SHIFT) +
				       HB_BS_P(bs[b]);

			inner = run > inner ? run : inner;
		}
		m = hb_clear_below(m, b);
	}
	f = (unsigned)__builtin_ctzll(nf);
	l = 63 - (unsigned)__builtin_clzll(nf);
	out.p = ((uint64_t)f << HB_BLOCK_SHIFT) + HB_BS_P(bs[f]);
	out.s = ((uint64_t)(63 - l) << HB_BLOCK_SHIFT) + HB_BS_S(bs[l]);
	out.inner = inner;
	return out;
}
#endif

static inline struct hb_sum hb_node_compute(const struct rg_hbitmap *hb,
					    unsigned k, uint64_t idx,
					    uint64_t any, uint64_t all,
					    unsigned ov_i,
					    const struct hb_sum *ov)
{
	if (k == 0) {
#ifdef HB_SIMD
		if (!ov && hb_l0_count(hb, idx) == 64)
			return hb_l0_compute_simd(hb, idx, all);
#endif
		return hb_l0_compute(hb, idx, ov_i, ov);
	}
	return hb_node_compute_masks(hb, k, idx, any, all, ov_i, ov);
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

/* Inner-class length of the free run [a, b) in a node of size size. */
static inline uint64_t hb_inner_len(uint64_t a, uint64_t b, uint64_t size)
{
	return (a < b && a != 0 && b != size) ? b - a : 0;
}

/* Start of the free run that reaches the start of child i, or i's start. */
static inline uint64_t hb_run_left(const struct rg_hbitmap *hb, unsigned k,
				   uint64_t cbase, uint64_t any, uint64_t nf,
				   unsigned i, unsigned csh)
{
	uint64_t lm = nf & ((1ULL << i) - 1), L;
	unsigned j;

	if (!lm)
		return 0;
	j = 63 - (unsigned)__builtin_clzll(lm);
	L = (uint64_t)(j + 1) << csh;
	if ((any >> j) & 1)
		L -= hb_child(hb, k, cbase + j).s;
	return L;
}

/* End of the free run that reaches the end of child i, or i's end. */
static inline uint64_t hb_run_right(const struct rg_hbitmap *hb, unsigned k,
				    uint64_t cbase, uint64_t any, uint64_t nf,
				    unsigned i, unsigned csh)
{
	uint64_t rm = i == 63 ? 0 : nf & (~0ULL << (i + 1)), R;
	unsigned j;

	if (!rm)
		return 64ULL << csh;
	j = (unsigned)__builtin_ctzll(rm);
	R = (uint64_t)j << csh;
	if ((any >> j) & 1)
		R += hb_child(hb, k, cbase + j).p;
	return R;
}

/*
 * Child i of node (k, idx) changed from *o to *x: update the node's masks
 * and summary. Returns true if the node's summary changed.
 *
 * Only the runs touching child i change: the one ending in its prefix, the
 * one starting in its suffix (one run through it if it is entirely free)
 * and its inner run. If none of the old ones was the node's longest inner
 * run, or a new one is at least as long, the new inner run follows from
 * them; otherwise the node is recomputed from its children.
 */
static bool hb_node_child_changed(struct rg_hbitmap *hb, unsigned k,
				  uint64_t idx, unsigned i,
				  const struct hb_sum *o,
				  const struct hb_sum *x)
{
	struct hb_node *nd = &hb->lv[k][idx];
	unsigned csh = hb_child_shift(k);
	uint64_t csz = 1ULL << csh, size = csz << HB_FAN_SHIFT;
	uint64_t cbase = idx << HB_FAN_SHIFT, cs = (uint64_t)i << csh;
	uint64_t all, any, nf, oi, ni, inner, p, s, L, R;
	struct hb_sum old = { nd->p, nd->s, nd->inner }, t;
	bool o_all = o->p == csz, x_all = x->p == csz;
	unsigned f, l;

	hb_mask_set(nd, i, x, csz);
	any = nd->any;
	all = nd->all;
	nf = ~all;
	if (!nf) {
		nd->p = nd->s = size;
		nd->inner = 0;
		return !(old.p == size && old.s == size && old.inner == 0);
	}
	f = (unsigned)__builtin_ctzll(nf);
	l = 63 - (unsigned)__builtin_clzll(nf);
	if (o_all != x_all || f == i) {
		p = (uint64_t)f << csh;
		if ((any >> f) & 1)
			p += f == i ? x->p : hb_child(hb, k, cbase + f).p;
	} else {
		p = old.p; /* the first child not entirely free is another */
	}
	if (o_all != x_all || l == i) {
		s = (uint64_t)(63 - l) << csh;
		if ((any >> l) & 1)
			s += l == i ? x->s : hb_child(hb, k, cbase + l).s;
	} else {
		s = old.s;
	}

	oi = o->inner;
	ni = x->inner;
	if (o_all || x_all) {
		L = hb_run_left(hb, k, cbase, any, nf, i, csh);
		R = hb_run_right(hb, k, cbase, any, nf, i, csh);
		if (o_all) {
			oi = hb_inner_len(L, R, size);
		} else {
			oi = hb_max3(oi, hb_inner_len(L, cs + o->p, size),
				     hb_inner_len(cs + csz - o->s, R, size));
		}
		if (x_all) {
			ni = hb_inner_len(L, R, size);
		} else {
			ni = hb_max3(ni, hb_inner_len(L, cs + x->p, size),
				     hb_inner_len(cs + csz - x->s, R, size));
		}
	} else {
		/* a run whose end did not move is no change */
		if (o->p != x->p) {
			L = hb_run_left(hb, k, cbase, any, nf, i, csh);
			oi = hb_max3(oi, hb_inner_len(L, cs + o->p, size), 0);
			ni = hb_max3(ni, hb_inner_len(L, cs + x->p, size), 0);
		}
		if (o->s != x->s) {
			R = hb_run_right(hb, k, cbase, any, nf, i, csh);
			oi = hb_max3(oi, hb_inner_len(cs + csz - o->s, R, size),
				     0);
			ni = hb_max3(ni, hb_inner_len(cs + csz - x->s, R, size),
				     0);
		}
	}
	if (oi < old.inner) {
		inner = old.inner > ni ? old.inner : ni;
	} else if (ni >= oi) {
		inner = ni;
	} else {
		t = hb_node_compute(hb, k, idx, any, all, 64, NULL);
		inner = t.inner;
	}
	nd->p = p;
	nd->s = s;
	nd->inner = inner;
	return !(old.p == p && old.s == s && old.inner == inner);
}

/* Child c at level k - 1 (block if k == 0) changed from o to x. */
static void hb_propagate(struct rg_hbitmap *hb, uint64_t c, struct hb_sum o,
			 struct hb_sum x)
{
	for (unsigned k = 0; k < hb->nlevels; k++) {
		uint64_t idx = c >> HB_FAN_SHIFT;
		struct hb_node *nd = &hb->lv[k][idx];
		struct hb_sum po = { nd->p, nd->s, nd->inner };

		if (!hb_node_child_changed(hb, k, idx, c & 63, &o, &x))
			return;
		o = po;
		x.p = nd->p;
		x.s = nd->s;
		x.inner = nd->inner;
		c = idx;
	}
}

/* Record a mutation of [s, e) (absolute) inside the pending block. */
static inline void hb_pend_note(struct rg_hbitmap *hb, uint64_t s, uint64_t e,
				bool set)
{
	if (hb->pend_ops == 0) {
		uint64_t ps = hb->pend << HB_BLOCK_SHIFT;

		hb->pend_s = (unsigned)(s - ps);
		hb->pend_e = (unsigned)(e - ps);
		hb->pend_set = set;
		hb->pend_ops = 1;
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
static uint32_t hb_block_incr(const uint64_t *w, uint32_t old, unsigned s,
			      unsigned e, bool set)
{
	unsigned p = HB_BS_P(old), sf = HB_BS_S(old), in = HB_BS_I(old);
	unsigned L = hb_prev_set_end(w, s), R = hb_next_set(w, e);

	if (set) {
		/* [s, e) was carved from the free run [L, R) */
		if (L == 0 && R == HB_BLOCK_BITS)
			return HB_BS(s, HB_BLOCK_BITS - e, 0);
		if (L != 0 && R != HB_BLOCK_BITS && R - L == in)
			return hb_block_compute(w);
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
			return hb_block_compute(w);
		return HB_BS(p, sf, in);
	}
}

static void hb_update_block(struct rg_hbitmap *hb, uint64_t b)
{
	uint32_t ov = hb->bsum[b];
	uint32_t nv = hb_block_compute(hb->words + b * HB_BLOCK_WORDS);

	if (ov == nv)
		return;
	hb->bsum[b] = nv;
	hb_propagate(hb, b, hb_unpack(ov), hb_unpack(nv));
}

/* Recompute blocks b0 .. b1 and every node above them. */
static void hb_update_blocks(struct rg_hbitmap *hb, uint64_t b0, uint64_t b1)
{
	uint64_t lo, hi;

	if (b1 - b0 < 4) {
		for (uint64_t b = b0; b <= b1; b++)
			hb_update_block(hb, b);
		return;
	}
	for (uint64_t b = b0; b <= b1; b++) {
		uint32_t v = hb_block_compute(hb->words + b * HB_BLOCK_WORDS);
		struct hb_sum s = hb_unpack(v);

		hb->bsum[b] = v;
		hb_mask_set(&hb->lv[0][b >> HB_FAN_SHIFT], b & 63, &s,
			    HB_BLOCK_BITS);
	}
	lo = b0 >> HB_FAN_SHIFT;
	hi = b1 >> HB_FAN_SHIFT;
	for (unsigned k = 0; k < hb->nlevels; k++) {
		uint64_t nsz = 1ULL << (hb_child_shift(k) + HB_FAN_SHIFT);

		for (uint64_t idx = lo; idx <= hi; idx++) {
			struct hb_node *nd = &hb->lv[k][idx];
			struct hb_sum s = hb_node_compute(hb, k, idx, nd->any,
							  nd->all, 64, NULL);

			nd->p = s.p;
			nd->s = s.s;
			nd->inner = s.inner;
			if (k + 1 < hb->nlevels)
				hb_mask_set(&hb->lv[k + 1][idx >> HB_FAN_SHIFT],
					    idx & 63, &s, nsz);
		}
		lo >>= HB_FAN_SHIFT;
		hi >>= HB_FAN_SHIFT;
	}
}

static inline void hb_before_reset(struct rg_hbitmap *hb)
{
	hb->before_known = false;
	hb->before_lim = UINT64_MAX;
}

static void hb_flush(struct rg_hbitmap *hb)
{
	uint64_t b = hb->pend;

	if (b == HB_NONE)
		return;
	if (hb->pend_ops == 1) {
		uint32_t ov = hb->bsum[b];
		uint32_t nv =
			hb_block_incr(hb->words + b * HB_BLOCK_WORDS, ov,
				      hb->pend_s, hb->pend_e, hb->pend_set);

		if (nv != ov) {
			hb->bsum[b] = nv;
			hb_propagate(hb, b, hb_unpack(ov), hb_unpack(nv));
		}
	} else if (hb->pend_ops) {
		hb_update_block(hb, b);
	}
	hb->pend = HB_NONE;
	hb->pend_alloc = false;
	hb_before_reset(hb);
}

/*
 * Fold the runs lying before the pending block: the longest closed one and
 * the one open at its first unit. Stops early once a run reaches limit.
 */
static void hb_compute_before(struct rg_hbitmap *hb, uint64_t limit)
{
	uint64_t rs = 0, pos = 0, best = 0, pb = hb->pend;
	bool exact = true;

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

/* ---- bit ranges -------------------------------------------------------- */

static void hb_bits(uint64_t *w, uint64_t s, uint64_t e, bool set)
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

/* True if every bit of [s, e) equals set. */
static bool hb_bits_are(const uint64_t *w, uint64_t s, uint64_t e, bool set)
{
	uint64_t i = s >> 6, last = (e - 1) >> 6, want = set ? ~0ULL : 0;
	uint64_t fm = ~0ULL << (s & 63), lm = ~0ULL >> (63 - ((e - 1) & 63));

	if (i == last)
		return ((w[i] ^ want) & fm & lm) == 0;
	if ((w[i] ^ want) & fm)
		return false;
	for (i++; i < last; i++)
		if (w[i] != want)
			return false;
	return ((w[last] ^ want) & lm) == 0;
}

static void hb_set_pend(struct rg_hbitmap *hb, uint64_t b)
{
	if (hb->pend == b)
		return;
	hb_flush(hb);
	hb->pend = b;
	hb->pend_hint = 0;
	hb->pend_ops = 0;
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
	} else {
		uint64_t keep = from_alloc ? b1 : b0;
		uint64_t lo = keep == b1 ? b0 : b0 + 1;
		uint64_t hi = keep == b1 ? b1 - 1 : b1;

		if (hb->pend != keep) {
			if (hb->pend >= lo && hb->pend <= hi) {
				/* recomputed below: the path was consistent
				 * with its stale summary */
				hb->pend = HB_NONE;
				hb->pend_alloc = false;
			}
			hb_flush(hb);
		}
		hb_bits(hb->words, s, e, set);
		hb_update_blocks(hb, lo, hi);
		if (hb->pend != keep) {
			hb->pend = keep;
			hb->pend_hint = 0;
			hb->pend_ops = 0;
			hb_before_reset(hb);
		}
		hb_pend_note(hb,
			     s > (keep << HB_BLOCK_SHIFT) ?
				     s :
				     keep << HB_BLOCK_SHIFT,
			     e < ((keep + 1) << HB_BLOCK_SHIFT) ?
				     e :
				     (keep + 1) << HB_BLOCK_SHIFT,
			     set);
		if (s < (keep << HB_BLOCK_SHIFT))
			hb_before_reset(hb); /* runs before it changed */
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

/* ---- geometry, build --------------------------------------------------- */

struct hb_geom {
	uint64_t nblocks;
	uint64_t count[HB_MAX_LEVELS];
	unsigned nlevels;
	size_t words_off, nodes_off[HB_MAX_LEVELS], bsum_off, total;
};

static void hb_geometry(uint64_t capacity, struct hb_geom *g)
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
		hb->lv_count[k] = k < g->nlevels ? g->count[k] : 0;
	}
	hb->data_bytes = g->total;
	hb->pend = HB_NONE;
	hb->pend_alloc = false;
	hb->last_end = 0;
	hb_before_reset(hb);
}

/* Mark the padding past the capacity as allocated. */
static void hb_set_padding(struct rg_hbitmap *hb)
{
	uint64_t end = hb->nblocks << HB_BLOCK_SHIFT;

	if (hb->capacity < end)
		hb_bits(hb->words, hb->capacity, end, true);
}

/* Compute every summary from the words; all_free: words are known zero. */
static void hb_build(struct rg_hbitmap *hb, bool all_free)
{
	for (uint64_t b = 0; b < hb->nblocks; b++) {
		uint32_t v = HB_BS_FREE;

		if (!all_free || b + 1 == hb->nblocks)
			v = hb_block_compute(hb->words + b * HB_BLOCK_WORDS);
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
			s = hb_node_compute(hb, k, idx, nd->any, nd->all, 64,
					    NULL);
			nd->p = s.p;
			nd->s = s.s;
			nd->inner = s.inner;
		}
	}
}

/* ---- public API -------------------------------------------------------- */

struct rg_hbitmap *rg_hbitmap_create(uint64_t capacity)
{
	struct rg_hbitmap *hb;
	struct hb_geom g;
	char *data;

	if (capacity == 0 || capacity > RG_HBITMAP_MAX_CAPACITY) {
		errno = EINVAL;
		return NULL;
	}
	hb_geometry(capacity, &g);
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
	hb_build(hb, true);
	return hb;
}

void rg_hbitmap_destroy(struct rg_hbitmap *hb)
{
	if (!hb)
		return;
	rgi_free(hb->words);
	rgi_free(hb);
}

static inline bool hb_bad_align(uint64_t align)
{
	return align == 0 || (align & (align - 1));
}

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
	hb_req_init(&r, n, align, 0, hb->capacity);
	r.rs = j == 0 ? pstart - hb->before_suffix : wb;
	r.pos = wb;
	a = hb_scan_block(hb, hb->pend, j, &r);
	if (a != HB_NONE || hb->pend + 1 >= hb->nblocks)
		return a;
	/* the run open at the block's end, into the next block */
	return hb_fit(&r, r.rs,
		      pstart + HB_BLOCK_BITS +
			      hb_unpack(hb->bsum[hb->pend + 1]).p);
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

int rg_hbitmap_alloc(struct rg_hbitmap *hb, uint64_t n, uint64_t align,
		     uint64_t *start)
{
	struct hb_req r;
	uint64_t a;

	if (unlikely(n == 0 || n > hb->capacity || hb_bad_align(align)))
		return -EINVAL;
	if (likely(hb->pend_alloc)) {
		a = hb_alloc_pending(hb, n, align);
		if (likely(a != HB_NONE)) {
			uint64_t ps = hb->pend << HB_BLOCK_SHIFT;

			if (likely(a >= ps && a + n <= ps + HB_BLOCK_BITS &&
				   n <= 64)) {
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
	}
	hb_req_init(&r, n, align, 0, hb->capacity);
	hb_flush(hb);
	a = hb_search(hb, &r);
	if (a == HB_NONE)
		return -ENOSPC;
	hb_mutate(hb, a, n, true, true);
	/* the fast path pays off when allocations follow each other */
	hb->pend_alloc = a == hb->last_end;
	hb->last_end = a + n;
	*start = a;
	return 0;
}

int rg_hbitmap_alloc_range(struct rg_hbitmap *hb, uint64_t n, uint64_t align,
			   uint64_t min, uint64_t max, uint64_t *start)
{
	struct hb_req r;
	uint64_t a, hi;

	if (n == 0 || n > hb->capacity || hb_bad_align(align) || min > max)
		return -EINVAL;
	hi = max >= hb->capacity ? hb->capacity : max + 1;
	if (min >= hi || hi - min < n)
		return -ENOSPC;
	hb_req_init(&r, n, align, min, hi);
	hb_flush(hb);
	a = hb_search(hb, &r);
	if (a == HB_NONE)
		return -ENOSPC;
	hb_mutate(hb, a, n, true, true);
	*start = a;
	return 0;
}

static inline bool hb_bad_range(const struct rg_hbitmap *hb, uint64_t start,
				uint64_t n)
{
	return n == 0 || start >= hb->capacity || n > hb->capacity - start;
}

int rg_hbitmap_free(struct rg_hbitmap *hb, uint64_t start, uint64_t n)
{
	uint64_t e = start + n;

	if (unlikely(hb_bad_range(hb, start, n)))
		return -EINVAL;
	if (likely(n <= 64 && (start >> HB_BLOCK_SHIFT) == hb->pend &&
		   ((e - 1) >> HB_BLOCK_SHIFT) == hb->pend)) {
		/* one or two words of the pending block */
		uint64_t *w = &hb->words[start >> 6];
		unsigned o = (unsigned)(start & 63);
		unsigned j = (unsigned)(start >> 6) & (HB_BLOCK_WORDS - 1);

		if (o + n <= 64) {
			uint64_t m = (~0ULL >> (64 - n)) << o;

			if (unlikely((w[0] & m) != m))
				return -ENOENT;
			w[0] &= ~m;
		} else {
			uint64_t m0 = ~0ULL << o, m1 = ~0ULL >> (128 - o - n);

			if (unlikely((w[0] & m0) != m0 || (w[1] & m1) != m1))
				return -ENOENT;
			w[0] &= ~m0;
			w[1] &= ~m1;
		}
		hb_pend_note(hb, start, e, false);
		hb->free_units += n;
		if (j < hb->pend_hint)
			hb->pend_hint = j;
		return 0;
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
	hb_mutate(hb, start, n, true, false);
	return 0;
}

int rg_hbitmap_resize(struct rg_hbitmap *hb, uint64_t capacity)
{
	struct hb_geom g;
	uint64_t keep, nwords, old;
	char *data;

	if (capacity == 0 || capacity > RG_HBITMAP_MAX_CAPACITY)
		return -EINVAL;
	if (capacity < hb->capacity &&
	    !hb_bits_are(hb->words, capacity, hb->capacity, false))
		return -EBUSY;
	hb_geometry(capacity, &g);
	data = rgi_calloc(1, g.total);
	if (!data)
		return -ENOMEM;
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
	hb_build(hb, false);
	return 0;
}

int rg_hbitmap_test(const struct rg_hbitmap *hb, uint64_t unit)
{
	if (unit >= hb->capacity)
		return -EINVAL;
	return (int)((hb->words[unit >> 6] >> (unit & 63)) & 1);
}

uint64_t rg_hbitmap_capacity(const struct rg_hbitmap *hb)
{
	return hb->capacity;
}

uint64_t rg_hbitmap_free_units(const struct rg_hbitmap *hb)
{
	return hb->free_units;
}

/* Root summary, recomputing the pending block's path on the side. */
static struct hb_sum hb_live_root(const struct rg_hbitmap *hb)
{
	const struct hb_node *root = &hb->lv[hb->nlevels - 1][0];
	struct hb_sum x = { root->p, root->s, root->inner };
	uint64_t c = hb->pend;

	if (c == HB_NONE)
		return x;
	x = hb_unpack(hb_block_compute(hb->words + c * HB_BLOCK_WORDS));
	for (unsigned k = 0; k < hb->nlevels; k++) {
		uint64_t idx = c >> HB_FAN_SHIFT;
		struct hb_node t = hb->lv[k][idx];

		hb_mask_set(&t, c & 63, &x, 1ULL << hb_child_shift(k));
		x = hb_node_compute(hb, k, idx, t.any, t.all, c & 63, &x);
		c = idx;
	}
	return x;
}

uint64_t rg_hbitmap_largest_free_run(const struct rg_hbitmap *hb)
{
	struct hb_sum r = hb_live_root(hb);

	return hb_max3(r.p, r.s, r.inner);
}

size_t rg_hbitmap_bytes(const struct rg_hbitmap *hb)
{
	return sizeof(*hb) + hb->data_bytes;
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

#define HB_FAIL(msg)                     \
	do {                             \
		if (reason)              \
			*reason = (msg); \
		return -EINVAL;          \
	} while (0)

int rg_hbitmap_validate(const struct rg_hbitmap *hb, const char **reason)
{
	struct hb_geom g;
	uint64_t zeros = 0, end, suffix = 0, best = 0, pstart;

	if (!hb)
		HB_FAIL("NULL bitmap");
	if (hb->capacity == 0 || hb->capacity > RG_HBITMAP_MAX_CAPACITY)
		HB_FAIL("capacity out of range");
	hb_geometry(hb->capacity, &g);
	if (g.nblocks != hb->nblocks || g.nlevels != hb->nlevels ||
	    g.total != hb->data_bytes)
		HB_FAIL("geometry does not match the capacity");
	end = hb->nblocks << HB_BLOCK_SHIFT;
	if (hb->capacity < end &&
	    !hb_bits_are(hb->words, hb->capacity, end, true))
		HB_FAIL("padding past the capacity is not allocated");
	for (uint64_t i = 0; i < hb->nblocks * HB_BLOCK_WORDS; i++)
		zeros += 64 - (uint64_t)__builtin_popcountll(hb->words[i]);
	if (zeros != hb->free_units)
		HB_FAIL("free_units does not match the bitmap");
	if (hb->pend != HB_NONE && hb->pend >= hb->nblocks)
		HB_FAIL("pending block out of range");
	for (uint64_t b = 0; b < hb->nblocks; b++) {
		if (b == hb->pend)
			continue;
		if (hb->bsum[b] !=
		    hb_block_compute(hb->words + b * HB_BLOCK_WORDS))
			HB_FAIL("block summary differs from its words");
	}
	for (unsigned k = 0; k < hb->nlevels; k++) {
		uint64_t nchild = k ? hb->lv_count[k - 1] : hb->nblocks;
		uint64_t csz = 1ULL << hb_child_shift(k);

		if (hb->lv_count[k] != g.count[k])
			HB_FAIL("level node count is wrong");
		for (uint64_t idx = 0; idx < hb->lv_count[k]; idx++) {
			const struct hb_node *nd = &hb->lv[k][idx];
			struct hb_node t = { 0, 0, 0, 0, 0 };
			struct hb_sum s, t2;

			for (unsigned i = 0; i < 64; i++) {
				uint64_t c = (idx << HB_FAN_SHIFT) + i;

				if (c >= nchild)
					break;
				s = hb_child(hb, k, c);
				hb_mask_set(&t, i, &s, csz);
			}
			if (t.any != nd->any || t.all != nd->all)
				HB_FAIL("node masks differ from the children");
			s = hb_node_compute(hb, k, idx, nd->any, nd->all, 64,
					    NULL);
			t2 = hb_node_compute_masks(hb, k, idx, nd->any, nd->all,
						   64, NULL);
			if (!hb_sum_eq(&s, &t2))
				HB_FAIL("node summary methods disagree");
			if (k == 0) {
				t2 = hb_l0_compute(hb, idx, 64, NULL);
				if (!hb_sum_eq(&s, &t2))
					HB_FAIL("level-0 summary methods "
						"disagree");
			}
			if (s.p != nd->p || s.s != nd->s ||
			    s.inner != nd->inner)
				HB_FAIL("node summary differs from a "
					"recomputation");
		}
	}
	if (hb->pend == HB_NONE) {
		if (hb->before_known || hb->pend_alloc)
			HB_FAIL("pending state without a pending block");
		return 0;
	}
	if (hb->before_lim !=
	    (hb->before_known ? hb_max3(hb->before_max, hb->before_suffix, 0) :
				UINT64_MAX))
		HB_FAIL("cached fast-path limit is wrong");
	if (hb->pend_hint > HB_BLOCK_WORDS)
		HB_FAIL("pending word hint out of range");
	for (unsigned j = 0; j < hb->pend_hint; j++)
		if (hb->words[hb->pend * HB_BLOCK_WORDS + j] != ~0ULL)
			HB_FAIL("pending word hint passes a free unit");
	if (!hb->before_known)
		return 0;
	/* Brute force: runs before the pending block. */
	pstart = hb->pend << HB_BLOCK_SHIFT;
	for (uint64_t u = hb_next_bit(hb->words, 0, pstart, false); u < pstart;
	     u = hb_next_bit(hb->words, u, pstart, false)) {
		uint64_t e = hb_next_bit(hb->words, u, pstart, true);

		if (e == pstart) {
			suffix = e - u;
			break;
		}
		if (e - u > best)
			best = e - u;
		u = e;
	}
	if (hb->before_exact) {
		if (best != hb->before_max || suffix != hb->before_suffix)
			HB_FAIL("cached runs before the pending block are "
				"wrong");
	} else if (hb->before_max > hb_max3(best, suffix, 0)) {
		HB_FAIL("cached run bound before the pending block is too "
			"high");
	}
	return 0;
}

void rg_hbitmap_dump(const struct rg_hbitmap *hb, FILE *f)
{
	struct hb_sum r = hb_live_root(hb);
	uint64_t u = 0, runs = 0;

	fprintf(f,
		"hbitmap capacity %llu free %llu blocks %llu levels %u "
		"bytes %zu\n",
		(unsigned long long)hb->capacity,
		(unsigned long long)hb->free_units,
		(unsigned long long)hb->nblocks, hb->nlevels,
		rg_hbitmap_bytes(hb));
	fprintf(f, "  root prefix %llu suffix %llu inner %llu\n",
		(unsigned long long)r.p, (unsigned long long)r.s,
		(unsigned long long)r.inner);
	if (hb->pend != HB_NONE)
		fprintf(f,
			"  pending block %llu (alloc %d, before %s %llu/%llu)\n",
			(unsigned long long)hb->pend, hb->pend_alloc,
			hb->before_known ? "known" : "unknown",
			(unsigned long long)hb->before_max,
			(unsigned long long)hb->before_suffix);
	for (unsigned k = hb->nlevels; k-- > 0;) {
		uint64_t shown = hb->lv_count[k] < 8 ? hb->lv_count[k] : 8;

		fprintf(f, "  level %u: %llu nodes\n", k,
			(unsigned long long)hb->lv_count[k]);
		for (uint64_t i = 0; i < shown; i++) {
			const struct hb_node *nd = &hb->lv[k][i];

			fprintf(f,
				"    [%llu] any %016llx all %016llx p %llu "
				"s %llu inner %llu\n",
				(unsigned long long)i,
				(unsigned long long)nd->any,
				(unsigned long long)nd->all,
				(unsigned long long)nd->p,
				(unsigned long long)nd->s,
				(unsigned long long)nd->inner);
		}
	}
	fprintf(f, "  free runs:");
	while (runs < 32) {
		uint64_t s = hb_next_bit(hb->words, u, hb->capacity, false);

		if (s >= hb->capacity)
			break;
		u = hb_next_bit(hb->words, s, hb->capacity, true);
		fprintf(f, " [%llu,%llu)", (unsigned long long)s,
			(unsigned long long)u);
		runs++;
	}
	fprintf(f, "%s\n", runs == 32 ? " ..." : "");
}
