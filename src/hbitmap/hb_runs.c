// SPDX-License-Identifier: MIT
/*
 * hbitmap best-fit index. Theory of operation.
 *
 * What it is
 *   A size-segregated index of the bitmap's free runs, kept by instances
 *   created with RG_HBITMAP_BEST_FIT. The bitmap stays the one source of
 *   truth: the index is derived from it, told about every change of bits
 *   and checked against it by rg_hbitmap_validate().
 *
 * Short and long runs
 *   A run of 1 .. 63 units is short and has no node: its class (its
 *   length) keeps a start set, one bit per bitmap word ("a run of this
 *   length starts here") with 64-way summary levels above (three up to
 *   2^24 units, walked in straight-line code). The runs starting in a word
 *   come from the words themselves, so short runs cost no memory of their
 *   own. A run of 64 units or more is long: one 24-byte pool node (node 0
 *   is the null link), and a linear-probing hash table (at most half full)
 *   maps its start and its end to the node.
 *
 * Classes
 *   Lengths 1 .. 63 have a class each; above, 8 linear sub-classes per
 *   power of two, as in TLSF (472 classes, a two-level non-empty mask). A
 *   long class is a treap ordered by (length, start).
 *
 * Best fit
 *   The first non-empty class at or above n's. A short class is walked in
 *   address order; a long class, and the next ones while nothing fits, in
 *   (length, start) order from the first run of length >= n; the first run
 *   holding an aligned start wins. Classes are disjoint, so the result is
 *   exact: never a rounded-up class, never a failure while a fit exists.
 *   Under a boundary the same walk takes the first run holding an aligned
 *   start that crosses no boundary.
 *
 * Neighbours and updates
 *   A free finds the runs beside it from the bits: at most two words for a
 *   short neighbour, one table lookup for a long one, so it merges in O(1).
 *   An allocation finds the run that held its units the same way (a scan
 *   back to a long run's start is unbounded only when it was not a best
 *   fit). A long run that changes at one end and stays long keeps its
 *   node: it moves treaps and one hash entry is rewritten.
 *
 * Hot paths
 *   A best-fit allocation and a free of one or two words are whole calls
 *   here (hbitmap_adv.h): find or merge the run, set or clear the bits,
 *   move the free count, note the changed blocks for hbitmap.c's stale
 *   summaries. The usual cases come first, the general search and the
 *   merging of neighbours out of line. The "quiet" flag stands for four
 *   tests while there is nothing to note (doc/design.md, deferred updates).
 *
 * Memory and failure
 *   Start sets: one array sized at create (1.01 bits per unit). Pool and
 *   table double, both allocated before anything is switched, when fewer
 *   than two nodes are spare after a call (a call needs at most one). If
 *   growing failed and a node is needed, the index is dropped: every class
 *   mask reads empty, so the next best-fit allocation takes the search
 *   path, which rebuilds it in O(capacity / 64) and is the one call that
 *   may return -ENOMEM for it. Resize drops it too. Bytes: a 2.7 KB head,
 *   the start sets, 40 bytes per pool node (40 to 80 per long run).
 */
#include <errno.h>
#include <string.h>

#include "hb_internal.h"
#include "hbitmap_adv.h"

#define NCLASS 472
#define NWORDS 8
#define NSHORT 64 /* lengths 1 .. NSHORT - 1 are short runs */
#define SLEVELS 10 /* start-set levels: enough for 2^56 units */
#define SFIX 3 /* levels of every start set up to 2^24 units (see the top) */
#define NONE UINT64_MAX

struct run {
	uint64_t start, len; /* len 0: on the free list */
	uint32_t l, r; /* treap children; l links the free list */
};

struct rgi_hb_runs {
	struct hb_mem *mem; /* the instance's byte counts (index: ours) */
	struct run *node;
	uint32_t *tab; /* entries idx << 1 | kind (1: end key); 0 empty */
	uint32_t ncap; /* nodes in the pool, node 0 included */
	uint32_t tbits; /* table of 2^tbits slots */
	uint32_t free_head, nfree, count;
	bool stale;
	/*
	 * Nothing to note: the index is live, its start sets have SFIX
	 * levels and hbitmap.c's summaries are stale with their change list
	 * overflowed (hb_chg_note() is a no-op), so the hot paths skip those
	 * tests. Set by quiet_check() after a noted hot call; cleared by
	 * drop() and rgi_hb_runs_synced().
	 */
	bool quiet;
	/* start sets of the short classes (see the top) */
	uint64_t *sset; /* class c at sset + (c - 1) * sstride */
	uint64_t scap; /* the capacity they are sized for */
	uint64_t sstride; /* words per class */
	uint64_t soff[SLEVELS]; /* level k at soff[k] in a class */
	uint64_t slen[SLEVELS]; /* words of level k */
	unsigned slevels; /* level slevels - 1 is one word */
	uint64_t *sptr[NSHORT]; /* sptr[c]: class c's set (sset_of()) */
	uint8_t top; /* bit i: l1[i] != 0 */
	uint64_t l1[NWORDS];
	uint32_t root[NCLASS];
};

static inline unsigned run_class(uint64_t len)
{
	unsigned f;

	if (len < 64)
		return (unsigned)len;
	f = 63u - (unsigned)__builtin_clzll(len);
	return 64 + 8 * (f - 6) + (unsigned)((len >> (f - 3)) & 7);
}

static inline uint32_t prio(uint32_t i)
{
	uint32_t x = i * 0x9e3779b1u;

	x ^= x >> 15;
	x *= 0x85ebca6bu;
	return x ^ (x >> 13);
}

static inline bool key_less(const struct run *a, const struct run *b)
{
	return a->len < b->len || (a->len == b->len && a->start < b->start);
}

/* ---- treaps ------------------------------------------------------------- */

static uint32_t merge(struct run *nd, uint32_t a, uint32_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (prio(a) > prio(b)) {
		nd[a].r = merge(nd, nd[a].r, b);
		return a;
	}
	nd[b].l = merge(nd, a, nd[b].l);
	return b;
}

/* Split @t into keys below node @x's key (*lo) and the rest (*hi). */
static void split(struct run *nd, uint32_t t, const struct run *x, uint32_t *lo,
		  uint32_t *hi)
{
	if (!t) {
		*lo = *hi = 0;
	} else if (key_less(&nd[t], x)) {
		split(nd, nd[t].r, x, &nd[t].r, hi);
		*lo = t;
	} else {
		split(nd, nd[t].l, x, lo, &nd[t].l);
		*hi = t;
	}
}

/* Insert node @x (children cleared) into the treap at *@root. */
static void insert(struct run *nd, uint32_t *root, uint32_t x)
{
	uint32_t px = prio(x), *link = root, t;

	/* down the search path while the nodes outrank x */
	while ((t = *link) && prio(t) > px)
		link = key_less(&nd[x], &nd[t]) ? &nd[t].l : &nd[t].r;
	split(nd, t, &nd[x], &nd[x].l, &nd[x].r);
	*link = x;
}

/* Remove node @x from the treap at *@root. */
static void erase(struct run *nd, uint32_t *root, uint32_t x)
{
	uint32_t *link = root;

	while (*link != x)
		link = key_less(&nd[x], &nd[*link]) ? &nd[*link].l :
						      &nd[*link].r;
	*link = merge(nd, nd[x].l, nd[x].r);
}

static inline bool fits(const struct run *x, uint64_t n, uint64_t mask)
{
	uint64_t s = (x->start + mask) & ~mask;

	return s >= x->start && s - x->start <= x->len - n && x->len >= n;
}

/* First node in key order with len >= n that fits, or 0. */
static uint32_t first_fit(const struct run *nd, uint32_t t, uint64_t n,
			  uint64_t mask)
{
	uint32_t f = 0;

	if (!mask) { /* every run of len >= n fits: the lower bound */
		while (t) {
			if (nd[t].len >= n) {
				f = t;
				t = nd[t].l;
			} else {
				t = nd[t].r;
			}
		}
		return f;
	}
	while (t) {
		if (nd[t].len < n) {
			t = nd[t].r;
			continue;
		}
		f = first_fit(nd, nd[t].l, n, mask);
		if (f)
			return f;
		if (fits(&nd[t], n, mask))
			return t;
		t = nd[t].r;
	}
	return 0;
}

/*
 * The lowest start s >= a with (s & mask) == 0, [s, s + n) inside the run
 * [a, a + len) and crossing no multiple of bmask + 1 (bmask 0: none; else
 * bmask + 1 >= n), into *s: false if there is none. A fit that crosses
 * moves up to the next boundary, aligned; one move suffices.
 */
static inline bool fit_bounded(uint64_t a, uint64_t len, uint64_t n,
			       uint64_t mask, uint64_t bmask, uint64_t *s)
{
	uint64_t x = (a + mask) & ~mask;

	if (len < n || x < a || x - a > len - n)
		return false;
	if (bmask && ((x ^ (x + n - 1)) & ~bmask)) {
		x = (((x | bmask) + 1) + mask) & ~mask;
		if (x < a || x - a > len - n)
			return false;
	}
	*s = x;
	return true;
}

/* First node in key order with a bounded fit (fit_bounded()), or 0. */
static uint32_t first_fit_bounded(const struct run *nd, uint32_t t, uint64_t n,
				  uint64_t mask, uint64_t bmask)
{
	uint64_t s;
	uint32_t f;

	while (t) {
		if (nd[t].len < n) {
			t = nd[t].r;
			continue;
		}
		f = first_fit_bounded(nd, nd[t].l, n, mask, bmask);
		if (f)
			return f;
		if (fit_bounded(nd[t].start, nd[t].len, n, mask, bmask, &s))
			return t;
		t = nd[t].r;
	}
	return 0;
}

/* ---- hash table ---------------------------------------------------------- */

static inline uint64_t entry_key(const struct run *nd, uint32_t e)
{
	const struct run *x = &nd[e >> 1];

	return e & 1 ? ((x->start + x->len) << 1) | 1 : x->start << 1;
}

static inline uint32_t slot_of(const struct rgi_hb_runs *ix, uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - ix->tbits));
}

static void tab_put(struct rgi_hb_runs *ix, uint32_t e)
{
	uint32_t m = (1u << ix->tbits) - 1;
	uint32_t i = slot_of(ix, entry_key(ix->node, e));

	while (ix->tab[i])
		i = (i + 1) & m;
	ix->tab[i] = e;
}

/* Slot holding @key, or UINT32_MAX. */
static uint32_t tab_find(const struct rgi_hb_runs *ix, uint64_t key)
{
	uint32_t m = (1u << ix->tbits) - 1, i = slot_of(ix, key);

	for (; ix->tab[i]; i = (i + 1) & m)
		if (entry_key(ix->node, ix->tab[i]) == key)
			return i;
	return UINT32_MAX;
}

/* Remove the entry in slot @i, shifting later entries of its cluster back. */
static void tab_del(struct rgi_hb_runs *ix, uint32_t i)
{
	uint32_t m = (1u << ix->tbits) - 1, j = i, h;

	for (;;) {
		ix->tab[i] = 0;
		for (;;) {
			j = (j + 1) & m;
			if (!ix->tab[j])
				return;
			h = slot_of(ix, entry_key(ix->node, ix->tab[j]));
			/* move it back unless its home lies in (i, j] */
			if (i <= j ? (h <= i || h > j) : (h <= i && h > j))
				break;
		}
		ix->tab[i] = ix->tab[j];
		i = j;
	}
}

static inline uint64_t start_key(uint64_t s)
{
	return s << 1;
}

static inline uint64_t end_key(uint64_t e)
{
	return (e << 1) | 1;
}

/* Node of the run with that start (end) key, or 0. */
static uint32_t lookup(const struct rgi_hb_runs *ix, uint64_t key)
{
	uint32_t i = tab_find(ix, key);

	return i == UINT32_MAX ? 0 : ix->tab[i] >> 1;
}

/* ---- runs in and out ----------------------------------------------------- */

static inline void class_mark(struct rgi_hb_runs *ix, unsigned c)
{
	uint64_t bit = 1ull << (c & 63), *w = &ix->l1[c >> 6];

	if (ix->root[c]) {
		*w |= bit;
		ix->top |= (uint8_t)(1u << (c >> 6));
	} else if (!(*w &= ~bit)) {
		ix->top &= (uint8_t) ~(1u << (c >> 6));
	}
}
/* Index node @x, whose start and len are set. */
static void run_add(struct rgi_hb_runs *ix, uint32_t x)
{
	struct run *nd = ix->node;
	unsigned c = run_class(nd[x].len);

	nd[x].l = nd[x].r = 0;
	insert(nd, &ix->root[c], x);
	class_mark(ix, c);
	tab_put(ix, x << 1);
	tab_put(ix, (x << 1) | 1);
	ix->count++;
}

/*
 * Give indexed node @x the run [s, s + len): it moves between trees, but
 * only the hash entries of the ends that change are rewritten.
 */
static void run_reshape(struct rgi_hb_runs *ix, uint32_t x, uint64_t s,
			uint64_t len)
{
	struct run *nd = ix->node;
	unsigned c = run_class(nd[x].len), c2 = run_class(len);
	bool new_start = nd[x].start != s;
	bool new_end = nd[x].start + nd[x].len != s + len;

	erase(nd, &ix->root[c], x);
	if (new_start)
		tab_del(ix, tab_find(ix, start_key(nd[x].start)));
	if (new_end)
		tab_del(ix, tab_find(ix, end_key(nd[x].start + nd[x].len)));
	nd[x].start = s;
	nd[x].len = len;
	nd[x].l = nd[x].r = 0;
	insert(nd, &ix->root[c2], x);
	if (c2 != c) {
		class_mark(ix, c);
		class_mark(ix, c2);
	}
	if (new_start)
		tab_put(ix, x << 1);
	if (new_end)
		tab_put(ix, (x << 1) | 1);
}

/* Take node @x out of the index (it stays allocated). */
static void run_remove(struct rgi_hb_runs *ix, uint32_t x)
{
	struct run *nd = ix->node;
	unsigned c = run_class(nd[x].len);

	erase(nd, &ix->root[c], x);
	class_mark(ix, c);
	tab_del(ix, tab_find(ix, start_key(nd[x].start)));
	tab_del(ix, tab_find(ix, end_key(nd[x].start + nd[x].len)));
	ix->count--;
}

static uint32_t node_get(struct rgi_hb_runs *ix)
{
	uint32_t x = ix->free_head;

	ix->free_head = ix->node[x].l;
	ix->nfree--;
	return x;
}

static void node_put(struct rgi_hb_runs *ix, uint32_t x)
{
	ix->node[x].len = 0;
	ix->node[x].l = ix->free_head;
	ix->free_head = x;
	ix->nfree++;
}

/* A new run [s, s + len): false if no node is spare. */
static bool run_new(struct rgi_hb_runs *ix, uint64_t s, uint64_t len)
{
	uint32_t x;

	if (!ix->nfree)
		return false;
	x = node_get(ix);
	ix->node[x].start = s;
	ix->node[x].len = len;
	run_add(ix, x);
	return true;
}

/* The index now holds @bytes: the peak follows. */
static void set_bytes(struct rgi_hb_runs *ix, size_t bytes)
{
	ix->mem->index = bytes;
	hb_mem_note(ix->mem);
}

/*
 * Pool of at least @want nodes (node 0 included): 0 or -ENOMEM, the index
 * unchanged on error. Node indices are kept.
 */
static int pool_grow(struct rgi_hb_runs *ix, uint64_t want)
{
	uint32_t ncap = ix->ncap ? ix->ncap : 32, tbits = 0;
	struct run *nd;
	uint32_t *tab;

	while (ncap < want) {
		if (ncap > UINT32_MAX / 8)
			return -ENOMEM;
		ncap *= 2;
	}
	if (ncap == ix->ncap)
		return 0;
	while ((1ull << tbits) < 4ull * ncap)
		tbits++;
	nd = rgi_malloc((size_t)ncap * sizeof(*nd));
	if (!nd)
		return -ENOMEM;
	tab = rgi_calloc((size_t)1 << tbits, sizeof(*tab));
	if (!tab) {
		rgi_free(nd);
		return -ENOMEM;
	}
	if (ix->ncap)
		memcpy(nd, ix->node, (size_t)ix->ncap * sizeof(*nd));
	else
		memset(nd, 0, sizeof(*nd)); /* node 0: the null link */
	rgi_free(ix->node);
	rgi_free(ix->tab);
	ix->node = nd;
	ix->tab = tab;
	ix->tbits = tbits;
	set_bytes(ix, sizeof(*ix) + (size_t)ncap * sizeof(*nd) +
			      ((size_t)1 << tbits) * sizeof(*tab) +
			      (size_t)(NSHORT - 1) * ix->sstride *
				      sizeof(uint64_t));
	for (uint32_t i = ix->ncap ? ix->ncap : 1; i < ncap; i++) {
		nd[i].start = 0;
		nd[i].len = 0;
		nd[i].r = 0;
		node_put(ix, i);
	}
	ix->ncap = ncap;
	for (uint32_t i = 1; i < ncap; i++) {
		if (!nd[i].len)
			continue;
		tab_put(ix, i << 1);
		tab_put(ix, (i << 1) | 1);
	}
	return 0;
}

/* After a call: keep two nodes spare if memory allows. */
static inline void keep_spare(struct rgi_hb_runs *ix)
{
	if (unlikely(ix->nfree < 2))
		(void)pool_grow(ix, (uint64_t)ix->ncap + 1);
}

/* ---- start sets of the short classes ------------------------------------ */

static inline uint64_t *sset_of(const struct rgi_hb_runs *ix, unsigned c)
{
	return ix->sptr[c];
}

/*
 * Size the start sets for @cap units: 0 or -ENOMEM (nothing changed).
 * The sets are cleared.
 */
static int sset_size(struct rgi_hb_runs *ix, uint64_t cap)
{
	uint64_t len[SLEVELS], off[SLEVELS], n = (cap + 63) >> 6, stride = 0;
	unsigned k = 0;
	uint64_t *set;

	do {
		n = (n + 63) >> 6;
		len[k] = n;
		off[k] = stride;
		stride += n;
		k++;
	} while ((n > 1 || k < SFIX) && k < SLEVELS);
	if (ix->sset && cap == ix->scap) {
		memset(ix->sset, 0,
		       (size_t)(NSHORT - 1) * ix->sstride * sizeof(uint64_t));
		return 0;
	}
	set = rgi_calloc((size_t)(NSHORT - 1) * stride, sizeof(uint64_t));
	if (!set)
		return -ENOMEM;
	rgi_free(ix->sset);
	ix->sset = set;
	ix->scap = cap;
	ix->sstride = stride;
	ix->slevels = k;
	for (unsigned c = 1; c < NSHORT; c++)
		ix->sptr[c] = set + (size_t)(c - 1) * stride;
	memcpy(ix->slen, len, sizeof(len[0]) * k);
	memcpy(ix->soff, off, sizeof(off[0]) * k);
	set_bytes(ix, sizeof(*ix) + (size_t)ix->ncap * sizeof(*ix->node) +
			      (ix->tab ? ((size_t)1 << ix->tbits) *
						 sizeof(*ix->tab) :
					 0) +
			      (size_t)(NSHORT - 1) * stride * sizeof(uint64_t));
	return 0;
}

/*
 * Word @wi of the bitmap holds the start of a run of class @c: true if the
 * class was empty. @fix: the caller knows the sets have SFIX levels (the
 * index is quiet), so the test is left out.
 */
static RGI_ALWAYS_INLINE bool sset_add_as(struct rgi_hb_runs *ix, unsigned c,
					  uint64_t wi, bool fix)
{
	uint64_t *set = sset_of(ix, c), *x = set + (wi >> 6), old = *x;

	*x = old | 1ull << (wi & 63); /* level 0 sits at offset 0 */
	if (old)
		return false;
	if (fix || likely(ix->slevels == SFIX)) { /* the top is one word */
		x = set + ix->soff[1] + (wi >> 12);
		old = *x;
		*x = old | 1ull << ((wi >> 6) & 63);
		if (old)
			return false;
		x = set + ix->soff[2];
		old = *x;
		*x = old | 1ull << (wi >> 12);
		return !old;
	}
	for (unsigned k = 1; k < ix->slevels; k++) {
		wi >>= 6;
		x = set + ix->soff[k] + (wi >> 6);
		old = *x;
		*x = old | 1ull << (wi & 63);
		if (old)
			return false;
	}
	return true;
}

/* ... no longer: true if the class is now empty. */
static RGI_ALWAYS_INLINE bool sset_del_as(struct rgi_hb_runs *ix, unsigned c,
					  uint64_t wi, bool fix)
{
	uint64_t *set = sset_of(ix, c), *x = set + (wi >> 6);

	if ((*x &= ~(1ull << (wi & 63))))
		return false;
	if (fix || likely(ix->slevels == SFIX)) { /* the top is one word */
		x = set + ix->soff[1] + (wi >> 12);
		if ((*x &= ~(1ull << ((wi >> 6) & 63))))
			return false;
		x = set + ix->soff[2];
		return !(*x &= ~(1ull << (wi >> 12)));
	}
	for (unsigned k = 1; k < ix->slevels; k++) {
		wi >>= 6;
		x = set + ix->soff[k] + (wi >> 6);
		if ((*x &= ~(1ull << (wi & 63))))
			return false;
	}
	return true;
}

static RGI_ALWAYS_INLINE bool sset_del(struct rgi_hb_runs *ix, unsigned c,
				       uint64_t wi)
{
	return sset_del_as(ix, c, wi, false);
}

static inline bool sset_any(const struct rgi_hb_runs *ix, unsigned c)
{
	return sset_of(ix, c)[ix->soff[ix->slevels - 1]] != 0;
}

/* Lowest word index >= @wi in class @c's set, or NONE. */
static uint64_t sset_next(const struct rgi_hb_runs *ix, unsigned c, uint64_t wi)
{
	const uint64_t *set = sset_of(ix, c);
	unsigned k = 0;
	uint64_t v;

	for (;;) {
		if ((wi >> 6) >= ix->slen[k])
			return NONE;
		v = set[ix->soff[k] + (wi >> 6)] & (~0ull << (wi & 63));
		if (v)
			break;
		wi = (wi >> 6) + 1;
		if (++k == ix->slevels)
			return NONE;
	}
	wi = (wi & ~63ull) + (uint64_t)__builtin_ctzll(v);
	while (k--)
		wi = (wi << 6) +
		     (uint64_t)__builtin_ctzll(set[ix->soff[k] + wi]);
	return wi;
}

/*
 * Lowest word index in class @c's set (not empty): from the top down.
 * @fix: as for sset_add_as().
 */
static RGI_ALWAYS_INLINE uint64_t sset_first_as(const struct rgi_hb_runs *ix,
						unsigned c, bool fix)
{
	const uint64_t *set = sset_of(ix, c), *off = ix->soff + ix->slevels - 1;
	uint64_t wi;

	if (fix || likely(ix->slevels == SFIX)) {
		/* 32-bit sums (wi < 2^18 here): no widening of each count */
		unsigned v = (unsigned)__builtin_ctzll(set[ix->soff[2]]);

		v = (v << 6) + (unsigned)__builtin_ctzll(set[ix->soff[1] + v]);
		return (v << 6) + (unsigned)__builtin_ctzll(set[v]);
	}
	wi = (unsigned)__builtin_ctzll(set[*off]);
	while (off != ix->soff) {
		off--;
		wi = (wi << 6) + (unsigned)__builtin_ctzll(set[*off + wi]);
	}
	return wi;
}

static inline uint64_t sset_first(const struct rgi_hb_runs *ix, unsigned c)
{
	return sset_first_as(ix, c, false);
}

/* ---- short runs, found from the bitmap ----------------------------------- */

static inline bool unit_free(const uint64_t *w, uint64_t u)
{
	return !((w[u >> 6] >> (u & 63)) & 1);
}

/* Starts of the free runs that begin in word @wi (bit i: unit 64 wi + i). */
static inline uint64_t word_starts(const uint64_t *w, uint64_t wi)
{
	uint64_t x = w[wi], below = wi ? w[wi - 1] >> 63 : 1;

	/* clear, and the unit before set: ~(~x << 1) is x << 1 | 1 */
	return ~x & ((x << 1) | below);
}

/*
 * Length of the free run starting at unit 64 @wi + @i, if shorter than
 * NSHORT, else NSHORT. @cap: the capacity (word wi + 1 exists if it holds
 * a unit below it).
 */
static inline unsigned short_len(const uint64_t *w, uint64_t cap, uint64_t wi,
				 unsigned i)
{
	uint64_t y = w[wi] >> i;
	unsigned len;

	if (y)
		return (unsigned)__builtin_ctzll(y);
	len = 64 - i;
	if (((wi + 1) << 6) < cap)
		len += w[wi + 1] ? (unsigned)__builtin_ctzll(w[wi + 1]) : 64;
	return len < NSHORT ? len : NSHORT;
}

/*
 * Start of the free run ending at @x (unit x - 1 free) if it is short,
 * else NONE: two words at most are read.
 */
static inline uint64_t short_start(const uint64_t *w, uint64_t x)
{
	uint64_t i = (x - 1) >> 6, a;
	uint64_t v = w[i] & (~0ull >> (63 - ((x - 1) & 63)));

	if (v)
		a = (i << 6) + 64 - (uint64_t)__builtin_clzll(v);
	else if (!i)
		a = 0;
	else if ((v = w[i - 1]))
		a = ((i - 1) << 6) + 64 - (uint64_t)__builtin_clzll(v);
	else
		return NONE;
	return x - a < NSHORT ? a : NONE;
}

/*
 * End of the free run starting at @x (unit x free) if it is short, else
 * NONE. @cap: the capacity (the bits past it are set).
 */
static inline uint64_t short_end(const uint64_t *w, uint64_t cap, uint64_t x)
{
	uint64_t i = x >> 6, nw = (cap + 63) >> 6, b;
	uint64_t v = w[i] & (~0ull << (x & 63));

	if (v)
		b = (i << 6) + (uint64_t)__builtin_ctzll(v);
	else if (i + 1 >= nw)
		b = cap;
	else if ((v = w[i + 1]))
		b = ((i + 1) << 6) + (uint64_t)__builtin_ctzll(v);
	else
		return NONE;
	if (b > cap)
		b = cap;
	return b - x < NSHORT ? b : NONE;
}

/*
 * Other than the run at unit @skip, does a run of class @c start in word
 * @wi? @skip: a unit of the word, or NONE.
 */
static inline bool word_has(const uint64_t *w, uint64_t cap, uint64_t wi,
			    unsigned c, uint64_t skip)
{
	uint64_t t = word_starts(w, wi);

	if (skip != NONE)
		t &= ~(1ull << (skip & 63));
	for (; t; t &= t - 1)
		if (short_len(w, cap, wi, (unsigned)__builtin_ctzll(t)) == c)
			return true;
	return false;
}

/* Short class @c became empty (any false) or not empty. */
static inline void class_mark_short(struct rgi_hb_runs *ix, unsigned c,
				    bool any)
{
	uint64_t bit = 1ull << c;

	if (any) {
		ix->l1[0] |= bit;
		ix->top |= 1;
	} else if (!(ix->l1[0] &= ~bit)) {
		ix->top &= (uint8_t)~1u;
	}
}

/*
 * The short run [a, a + len) appears. Its bits are clear and its
 * neighbours' set, so no other run of its class starts at a.
 */
static RGI_ALWAYS_INLINE void short_add_as(struct rgi_hb_runs *ix, uint64_t a,
					   unsigned len, bool fix)
{
	if (sset_add_as(ix, len, a >> 6, fix))
		class_mark_short(ix, len, true);
}

static RGI_ALWAYS_INLINE void short_add(struct rgi_hb_runs *ix, uint64_t a,
					unsigned len)
{
	short_add_as(ix, a, len, false);
}

/*
 * The short run [a, a + len) is gone (its bits may have changed): its
 * class keeps word a / 64 if another run of that length starts there.
 */
static inline void short_del(struct rgi_hb_runs *ix, const uint64_t *w,
			     uint64_t cap, uint64_t a, unsigned len)
{
	if (!word_has(w, cap, a >> 6, len, a) && sset_del(ix, len, a >> 6))
		class_mark_short(ix, len, false);
}

/* ---- dropping and rebuilding --------------------------------------------- */

static void drop(struct rgi_hb_runs *ix)
{
	ix->stale = true;
	ix->quiet = false;
	ix->count = 0;
	ix->top = 0;
	memset(ix->l1, 0, sizeof(ix->l1));
	memset(ix->root, 0, sizeof(ix->root));
	if (ix->tab)
		memset(ix->tab, 0, ((size_t)1 << ix->tbits) * sizeof(*ix->tab));
	if (ix->sset)
		memset(ix->sset, 0,
		       (size_t)(NSHORT - 1) * ix->sstride * sizeof(uint64_t));
	ix->free_head = 0;
	ix->nfree = 0;
	for (uint32_t i = 1; i < ix->ncap; i++)
		node_put(ix, i);
}

/* Lowest free unit at or after x, or cap. */
static uint64_t next_clear(const uint64_t *w, uint64_t cap, uint64_t x)
{
	uint64_t i = x >> 6, last = (cap - 1) >> 6, v;

	if (x >= cap)
		return cap;
	v = ~w[i] & (~0ull << (x & 63));
	while (!v) {
		if (++i > last)
			return cap;
		v = ~w[i];
	}
	x = (i << 6) + (uint64_t)__builtin_ctzll(v);
	return x < cap ? x : cap;
}

/* A new run [a, b): false if it needed a node and none was spare. */
static inline bool run_put(struct rgi_hb_runs *ix, uint64_t a, uint64_t b)
{
	if (b - a < NSHORT) {
		short_add(ix, a, (unsigned)(b - a));
		return true;
	}
	return run_new(ix, a, b - a);
}

/* Rebuild from the bitmap: 0 or -ENOMEM (still stale). */
static int rebuild(struct rgi_hb_runs *ix, const uint64_t *w, uint64_t cap)
{
	uint64_t runs = 0, a, b;
	int err;

	for (a = next_clear(w, cap, 0); a < cap; a = next_clear(w, cap, b)) {
		b = rgi_hb_next_set(w, cap, a);
		runs += b - a >= NSHORT;
	}
	drop(ix);
	err = sset_size(ix, cap);
	if (!err)
		err = pool_grow(ix, runs + 3);
	if (err)
		return err;
	ix->stale = false;
	for (a = next_clear(w, cap, 0); a < cap; a = next_clear(w, cap, b)) {
		b = rgi_hb_next_set(w, cap, a);
		run_put(ix, a, b);
	}
	return 0;
}

/* ---- the calls hbitmap.c makes ------------------------------------------- */

struct rgi_hb_runs *rgi_hb_runs_create(const uint64_t *w, uint64_t cap,
				       struct hb_mem *mem)
{
	struct rgi_hb_runs *ix = rgi_calloc(1, sizeof(*ix));

	if (!ix)
		return NULL;
	ix->mem = mem;
	if (sset_size(ix, cap) || pool_grow(ix, 32)) {
		rgi_hb_runs_destroy(ix);
		return NULL;
	}
	(void)w;
	run_put(ix, 0, cap);
	return ix;
}

void rgi_hb_runs_destroy(struct rgi_hb_runs *ix)
{
	if (!ix)
		return;
	rgi_free(ix->node);
	rgi_free(ix->tab);
	rgi_free(ix->sset);
	rgi_free(ix);
}

/*
 * Best fit among the short runs of class @c (length c >= n): the lowest
 * run that holds an aligned start, or NONE; *a: its start.
 */
static RGI_ALWAYS_INLINE bool best_short(const struct rgi_hb_runs *ix,
					 const uint64_t *w, uint64_t cap,
					 unsigned c, uint64_t n, uint64_t mask,
					 uint64_t *a, bool *more)
{
	for (uint64_t wi = sset_first(ix, c); wi != NONE;
	     wi = sset_next(ix, c, wi + 1)) {
		bool found = false;

		for (uint64_t t = word_starts(w, wi); t; t &= t - 1) {
			unsigned i = (unsigned)__builtin_ctzll(t);
			uint64_t s = (wi << 6) + i, f = (s + mask) & ~mask;

			if (short_len(w, cap, wi, i) != c)
				continue;
			if (found) { /* another run of the class in this word */
				*more = true;
				return true;
			}
			if (f + n <= s + c) {
				*a = s;
				found = true;
			} else {
				*more = true; /* (only with alignment) */
			}
		}
		if (found)
			return true;
		*more = false;
	}
	return false;
}

/*
 * [s, e) is taken out of the free run [a, b) (node x if the run is long):
 * before or after the bits are set, as only the runs starting in word
 * a / 64 are read, and the one at a is skipped.
 */
static void take(struct rgi_hb_runs *ix, const uint64_t *w, uint64_t cap,
		 uint64_t a, uint64_t b, uint32_t x, uint64_t s, uint64_t e)
{
	if (b - a < NSHORT) {
		short_del(ix, w, cap, a, (unsigned)(b - a));
		if (a < s)
			short_add(ix, a, (unsigned)(s - a));
		if (e < b)
			short_add(ix, e, (unsigned)(b - e));
		return;
	}
	if (unlikely(!x || ix->node[x].start != a || ix->node[x].len != b - a ||
		     b < e)) {
		drop(ix); /* cannot happen while the index is valid */
		return;
	}
	/* a long run: its node goes to the longer remnant, if long */
	if (s - a >= NSHORT && b - e >= NSHORT) { /* one node more */
		if (unlikely(!ix->nfree)) {
			drop(ix);
			keep_spare(ix);
			return;
		}
		run_reshape(ix, x, a, s - a);
		run_new(ix, e, b - e);
	} else if (s - a >= NSHORT) {
		run_reshape(ix, x, a, s - a);
		if (e < b)
			short_add(ix, e, (unsigned)(b - e));
	} else if (b - e >= NSHORT) {
		run_reshape(ix, x, e, b - e);
		if (a < s)
			short_add(ix, a, (unsigned)(s - a));
	} else {
		run_remove(ix, x);
		node_put(ix, x);
		if (a < s)
			short_add(ix, a, (unsigned)(s - a));
		if (e < b)
			short_add(ix, e, (unsigned)(b - e));
	}
	keep_spare(ix);
}

/* Set the bits of [s, s + n) (free until now). */
static RGI_ALWAYS_INLINE void set_bits(uint64_t *w, uint64_t s, uint64_t n)
{
	uint64_t i = s >> 6;
	unsigned o = (unsigned)(s & 63);

	if (likely(o + n <= 64)) {
		w[i] |= (~0ull >> (64 - n)) << o;
		return;
	}
	w[i++] |= ~0ull << o;
	for (n -= 64 - o; n >= 64; n -= 64)
		w[i++] = ~0ull;
	if (n)
		w[i] |= ~0ull >> (64 - n);
}

/*
 * classes_from[n]: the short classes n .. 63 (none for n = 64), so
 * ~classes_from[n] is n low ones (no shift by a variable count, which
 * goes through cl).
 */
#define CF(n) (~0ull << (n))
#define CF8(n)                                                        \
	CF(n), CF(n + 1), CF(n + 2), CF(n + 3), CF(n + 4), CF(n + 5), \
		CF(n + 6), CF(n + 7)
static const uint64_t classes_from[NSHORT + 1] = {
	CF8(0), CF8(8), CF8(16), CF8(24), CF8(32), CF8(40), CF8(48), CF8(56), 0,
};
#undef CF8
#undef CF

/* set_bits() for n < 64: [s, s + n) lies in one word or two. */
static RGI_ALWAYS_INLINE void set_bits_short(uint64_t *w, uint64_t s,
					     uint64_t n)
{
	uint64_t i = s >> 6, m = ~classes_from[n];
	unsigned o = (unsigned)(s & 63);

	w[i] |= m << o;
	if (o + n > 64) /* then o >= 2: the shift is in range */
		w[i + 1] |= m >> (64 - o);
}

/*
 * The index holds [s, s + n) as allocated and its bits are set: the
 * change note and the counts follow (*@also too, the caller's count).
 */
static RGI_ALWAYS_INLINE int hb_counted(struct rg_hbitmap *hb, uint64_t s,
					uint64_t n, uint64_t *start,
					uint64_t *also, bool note)
{
	if (note)
		hb_chg_note(hb, s, n);
	hb->free_units -= n;
	*also -= n;
	*start = s;
	return 0;
}

static RGI_ALWAYS_INLINE int hb_taken(struct rg_hbitmap *hb, uint64_t s,
				      uint64_t n, uint64_t *start,
				      uint64_t *also)
{
	set_bits(hb->words, s, n);
	return hb_counted(hb, s, n, start, also, true);
}

/*
 * [s, s + n) is taken from the short run [a, a + k) of class k: its word
 * stays in the class's set if another run of the class starts there
 * (@more, seen by the search).
 */
static RGI_ALWAYS_INLINE void take_short_as(struct rgi_hb_runs *ix, uint64_t a,
					    unsigned k, bool more, uint64_t s,
					    uint64_t n, bool fix)
{
	if (!more && sset_del_as(ix, k, a >> 6, fix))
		class_mark_short(ix, k, false);
	if (a < s)
		short_add_as(ix, a, (unsigned)(s - a), fix);
	if (s + n < a + k)
		short_add_as(ix, s + n, (unsigned)(a + k - s - n), fix);
}

static RGI_ALWAYS_INLINE void take_short(struct rgi_hb_runs *ix, uint64_t a,
					 unsigned k, bool more, uint64_t s,
					 uint64_t n)
{
	take_short_as(ix, a, k, more, s, n, false);
}

/* rgi_hb_runs_alloc() past its fast path: every class from n's up. */
static RGI_NOINLINE int alloc_search(struct rg_hbitmap *hb, uint64_t n,
				     uint64_t mask, uint64_t *start,
				     uint64_t *also)
{
	struct rgi_hb_runs *ix = hb->runs;
	const uint64_t *w = hb->words;
	uint64_t cap = hb->capacity, bits, a = 0, s;
	unsigned c = run_class(n), wi, k;
	uint32_t x;
	int err;

	if (unlikely(!hb->sum_stale))
		hb_go_stale(hb);
	if (unlikely(ix->stale)) {
		err = rebuild(ix, w, cap);
		if (err)
			return err;
	}
	for (k = c; k < NCLASS;) {
		wi = k >> 6;
		bits = ix->l1[wi] & (~0ull << (k & 63));
		if (!bits) { /* the next non-empty word, from the top mask */
			unsigned t = ix->top & (0xffu << (wi + 1)) & 0xffu;

			if (!t)
				break;
			k = (unsigned)__builtin_ctz(t) << 6;
			continue;
		}
		k = (wi << 6) + (unsigned)__builtin_ctzll(bits);
		if (k < NSHORT) {
			bool more = false;

			if (best_short(ix, w, cap, k, n, mask, &a, &more)) {
				s = (a + mask) & ~mask;
				take_short(ix, a, k, more, s, n);
				goto found;
			}
		} else {
			x = first_fit(ix->node, ix->root[k], n, mask);
			if (x) {
				a = ix->node[x].start;
				s = (a + mask) & ~mask;
				take(ix, w, cap, a, a + ix->node[x].len, x, s,
				     s + n);
				goto found;
			}
		}
		k++;
	}
	return -ENOSPC;
found:
	return hb_taken(hb, s, n, start, also);
}

/*
 * The usual case first: no alignment, a short n, and a short class at or
 * above it that is not empty. Its lowest run is the answer: the first run
 * of that length in the first word its start set names. @note: the change
 * goes to the summaries' list (false only while the index is quiet).
 */
static RGI_ALWAYS_INLINE int alloc_short(struct rg_hbitmap *hb, uint64_t n,
					 uint64_t *start, uint64_t *also,
					 uint64_t bits, bool note)
{
	struct rgi_hb_runs *ix = hb->runs;
	uint64_t *w = hb->words;
	uint64_t wi, t, a, cap = hb->capacity;
	bool more = false;
	unsigned k, i;

	k = (unsigned)__builtin_ctzll(bits);
	wi = sset_first_as(ix, k, !note);
	for (t = word_starts(w, wi);; t &= t - 1) {
		if (unlikely(!t)) /* (not while the index is valid) */
			return alloc_search(hb, n, 0, start, also);
		i = (unsigned)__builtin_ctzll(t);
		if (short_len(w, cap, wi, i) == k)
			break;
	}
	for (t &= t - 1; t && !more; t &= t - 1)
		more = short_len(w, cap, wi, (unsigned)__builtin_ctzll(t)) == k;
	a = (wi << 6) + i;
	take_short_as(ix, a, k, more, a, n, !note);
	/* n < 64: the bits span one word or two */
	set_bits_short(w, a, n);
	return hb_counted(hb, a, n, start, also, note);
}

/* The index is quiet if nothing is left to note (see struct rgi_hb_runs). */
static inline void quiet_check(struct rg_hbitmap *hb)
{
	hb->runs->quiet = !hb->runs->stale && hb->sum_stale &&
			  hb->chg_n > hb->chg_max && hb->runs->slevels == SFIX;
}

/* alloc_short() while the index is quiet: nothing to note. */
static RGI_NOINLINE int alloc_short_quiet(struct rg_hbitmap *hb, uint64_t n,
					  uint64_t bits, uint64_t *start,
					  uint64_t *also)
{
	return alloc_short(hb, n, start, also, bits, false);
}

/* alloc_short() while the index is not quiet: noted, then checked. */
static RGI_NOINLINE int alloc_short_noted(struct rg_hbitmap *hb, uint64_t n,
					  uint64_t bits, uint64_t *start,
					  uint64_t *also)
{
	int err;

	if (unlikely(!hb->sum_stale))
		hb_go_stale(hb);
	err = alloc_short(hb, n, start, also, bits, true);
	quiet_check(hb);
	return err;
}

/*
 * The entry (hbitmap_adv.h) only picks the path, so that it needs no
 * frame: a search for a long or aligned request, or for a short one when
 * no short class at or above n has a run (a dropped index has every class
 * mask clear, so it is searched and rebuilt too); else the short path.
 * @bits: the non-empty short classes at or above n.
 */
int rgi_hbitmap_alloc_best_adv(struct rg_hbitmap *hb, uint64_t n, uint64_t mask,
			       uint64_t *start, uint64_t *also)
{
	const struct rgi_hb_runs *ix = hb->runs;
	uint64_t bits;

	if (unlikely(n >= NSHORT || mask))
		return alloc_search(hb, n, mask, start, also);
	bits = ix->l1[0] & classes_from[n];
	if (unlikely(!bits))
		return alloc_search(hb, n, mask, start, also);
	if (unlikely(!ix->quiet))
		return alloc_short_noted(hb, n, bits, start, also);
	return alloc_short_quiet(hb, n, bits, start, also);
}

int rgi_hb_runs_alloc_bounded(struct rg_hbitmap *hb, uint64_t n, uint64_t mask,
			      uint64_t bmask, uint64_t *start)
{
	struct rgi_hb_runs *ix = hb->runs;
	const uint64_t *w = hb->words;
	uint64_t cap = hb->capacity, bits, a, s = 0, sink;
	unsigned k, wi;
	uint32_t x;

	if (ix->stale)
		return -EAGAIN;
	for (k = run_class(n); k < NCLASS;) {
		wi = k >> 6;
		bits = ix->l1[wi] & (~0ull << (k & 63));
		if (!bits) { /* the next non-empty word, from the top mask */
			unsigned t = ix->top & (0xffu << (wi + 1)) & 0xffu;

			if (!t)
				break;
			k = (unsigned)__builtin_ctz(t) << 6;
			continue;
		}
		k = (wi << 6) + (unsigned)__builtin_ctzll(bits);
		if (k >= NSHORT) {
			x = first_fit_bounded(ix->node, ix->root[k], n, mask,
					      bmask);
			if (x) {
				a = ix->node[x].start;
				fit_bounded(a, ix->node[x].len, n, mask, bmask,
					    &s);
				take(ix, w, cap, a, a + ix->node[x].len, x, s,
				     s + n);
				goto found;
			}
			k++;
			continue;
		}
		/* a short class: its runs in address order, the first fit */
		for (uint64_t v = sset_first(ix, k); v != NONE;
		     v = sset_next(ix, k, v + 1)) {
			uint64_t t = word_starts(w, v), f = 0;
			bool more = false;

			for (; t; t &= t - 1) {
				unsigned i = (unsigned)__builtin_ctzll(t);

				if (short_len(w, cap, v, i) != k)
					continue;
				if (f) { /* another run of the class here */
					more = true;
					break;
				}
				if (fit_bounded((v << 6) + i, k, n, mask, bmask,
						&s))
					f = (v << 6) + i + 1;
				else
					more = true;
			}
			if (f) {
				take_short(ix, f - 1, k, more, s, n);
				goto found;
			}
		}
		k++;
	}
	return -ENOSPC;
found:
	return hb_taken(hb, s, n, start, &sink);
}

void rgi_hb_runs_taken(struct rgi_hb_runs *ix, const uint64_t *w, uint64_t cap,
		       uint64_t s, uint64_t n)
{
	uint64_t a = s, e = s + n, b = e;
	uint32_t x = 0;

	if (ix->stale)
		return;
	if (s && unit_free(w, s - 1)) {
		a = short_start(w, s);
		if (a == NONE) {
			a = rgi_hb_prev_set(w, s - 1);
			a = a == RGI_HB_NONE ? 0 : a + 1;
		}
	}
	if (e < cap && unit_free(w, e)) {
		b = short_end(w, cap, e);
		if (b == NONE)
			b = RGI_HB_NONE; /* long: the node says */
	}
	if (b == RGI_HB_NONE || b - a >= NSHORT) {
		x = lookup(ix, start_key(a));
		if (x)
			b = a + ix->node[x].len;
	}
	take(ix, w, cap, a, b, x, s, e);
}

static int freed_merge(struct rgi_hb_runs *ix, const uint64_t *w, uint64_t cap,
		       uint64_t s, uint64_t n, unsigned sides);

int rgi_hb_runs_freed(struct rgi_hb_runs *ix, const uint64_t *w, uint64_t cap,
		      uint64_t s, uint64_t n)
{
	uint64_t e = s + n;
	bool lf, rf;

	if (unlikely(ix->stale))
		return 0;
	lf = s && unit_free(w, s - 1);
	rf = e < cap && unit_free(w, e);
	return freed_merge(ix, w, cap, s, n, lf | rf << 1);
}

/*
 * Free [s, s + n), n <= 64, on @hb whose summaries are stale: 0, with the
 * bits, hb->free_units (and *@also), the change list (if
 * @note) and the index updated, or -ENOENT (a unit is free; nothing
 * changed). Without @note the index is quiet, so not stale either.
 */
static RGI_ALWAYS_INLINE int free_short(struct rg_hbitmap *hb, uint64_t s,
					uint64_t n, uint64_t *also, bool note)
{
	struct rgi_hb_runs *ix = hb->runs;
	uint64_t *w = hb->words, e = s + n, cap = hb->capacity;
	unsigned o = (unsigned)(s & 63), eo = o + (unsigned)n;
	uint64_t *p = &w[s >> 6], x0 = p[0], x1 = 0, m0, m1 = 0;
	bool lf, rf;

	if (eo <= 64) {
		m0 = ~classes_from[n] << o;
	} else {
		m0 = ~0ull << o;
		m1 = ~classes_from[eo - 64];
		x1 = p[1];
	}
	if (unlikely((x0 & m0) != m0 || (x1 & m1) != m1))
		return -ENOENT;
	p[0] = x0 & ~m0;
	if (m1)
		p[1] = x1 & ~m1;
	if (note)
		hb_chg_note(hb, s, n);
	hb->free_units += n;
	*also += n;
	if (note && unlikely(ix->stale))
		return 0;
	/*
	 * The neighbours' bits, from the words read above where they lie
	 * there (bits past the capacity are set, so they read as taken).
	 */
	if (likely(o))
		lf = !((x0 >> (o - 1)) & 1);
	else
		lf = s && unit_free(w, s - 1);
	if (eo < 64)
		rf = !((x0 >> eo) & 1);
	else if (eo > 64)
		rf = !((x1 >> (eo - 64)) & 1);
	else
		rf = e < cap && unit_free(w, e);
	if (likely(!lf && !rf && n < NSHORT)) { /* a short run on its own */
		short_add_as(ix, s, (unsigned)n, !note);
		return 0;
	}
	return freed_merge(ix, w, cap, s, n, lf | rf << 1);
}

/*
 * rg_hbitmap_free() on a best-fit instance of more than 64 units: the
 * bits, the change list and the counts, then the index.
 */
static RGI_NOINLINE int free_long(struct rg_hbitmap *hb, uint64_t start,
				  uint64_t n, uint64_t *also)
{
	if (unlikely(!hb_bits_are(hb->words, start, start + n, true)))
		return -ENOENT;
	hb_bits_only(hb, start, n, false);
	*also += n;
	return rgi_hb_runs_freed(hb->runs, hb->words, hb->capacity, start, n);
}

/* free_short() while the index is not quiet: noted, then checked. */
static RGI_NOINLINE int free_short_noted(struct rg_hbitmap *hb, uint64_t s,
					 uint64_t n, uint64_t *also)
{
	int err;

	if (unlikely(!hb->sum_stale))
		hb_go_stale(hb);
	err = free_short(hb, s, n, also, true);
	quiet_check(hb);
	return err;
}

int rgi_hbitmap_free_best_adv(struct rg_hbitmap *hb, uint64_t start, uint64_t n,
			      uint64_t *also)
{
	if (unlikely(n > 64))
		return free_long(hb, start, n, also);
	if (unlikely(!hb->runs->quiet))
		return free_short_noted(hb, start, n, also);
	return free_short(hb, start, n, also, false);
}

void rgi_hb_runs_synced(struct rgi_hb_runs *ix)
{
	ix->quiet = false;
}

/* rgi_hb_runs_freed() once the neighbours are known; free_short()'s too. */
/* @sides: bit 0 the unit before s is free, bit 1 the unit at s + n. */
static RGI_NOINLINE int freed_merge(struct rgi_hb_runs *ix, const uint64_t *w,
				    uint64_t cap, uint64_t s, uint64_t n,
				    unsigned sides)
{
	uint64_t e = s + n, a = s, b = e;
	bool lf = sides & 1, rf = sides & 2;
	uint32_t l = 0, r = 0;

	if (lf) {
		a = short_start(w, s);
		if (a != NONE) {
			short_del(ix, w, cap, a, (unsigned)(s - a));
		} else {
			l = lookup(ix, end_key(s));
			if (unlikely(!l)) {
				drop(ix);
				return 0;
			}
			a = ix->node[l].start;
		}
	}
	if (rf) {
		b = short_end(w, cap, e);
		if (b != NONE) {
			short_del(ix, w, cap, e, (unsigned)(b - e));
		} else {
			r = lookup(ix, start_key(e));
			if (unlikely(!r)) {
				drop(ix);
				return 0;
			}
			b = e + ix->node[r].len;
		}
	}
	if (l && r) { /* three runs become one */
		run_remove(ix, r);
		node_put(ix, r);
		run_reshape(ix, l, a, b - a);
	} else if (l || r) {
		run_reshape(ix, l ? l : r, a, b - a);
	} else if (!run_put(ix, a, b)) {
		drop(ix);
	}
	keep_spare(ix);
	return 0;
}

void rgi_hb_runs_reset(struct rgi_hb_runs *ix)
{
	drop(ix);
}

uint64_t rgi_hb_runs_largest(const struct rgi_hb_runs *ix, const uint64_t *w,
			     uint64_t cap)
{
	uint64_t best = 0, a, b;
	unsigned wi, c;
	uint32_t t;

	if (ix->stale) { /* dropped: scan the bitmap */
		for (a = next_clear(w, cap, 0); a < cap;
		     a = next_clear(w, cap, b)) {
			b = rgi_hb_next_set(w, cap, a);
			best = b - a > best ? b - a : best;
		}
		return best;
	}
	if (!ix->top)
		return 0;
	wi = 31u - (unsigned)__builtin_clz(ix->top);
	c = (wi << 6) + 63u - (unsigned)__builtin_clzll(ix->l1[wi]);
	if (c < NSHORT)
		return c;
	for (t = ix->root[c]; ix->node[t].r;)
		t = ix->node[t].r;
	return ix->node[t].len;
}

/* Check a treap: order, class, heap; counts its nodes into *nodes. */
static const char *check_tree(const struct run *nd, uint32_t t, unsigned c,
			      uint32_t ncap, uint64_t *nodes, unsigned depth)
{
	const char *why;

	if (!t)
		return NULL;
	if (t >= ncap || depth > 200)
		return "best-fit index: bad tree link";
	if (!nd[t].len || run_class(nd[t].len) != c)
		return "best-fit index: run in the wrong class";
	if (nd[t].l &&
	    (!key_less(&nd[nd[t].l], &nd[t]) || prio(nd[t].l) > prio(t)))
		return "best-fit index: tree order or heap broken (left)";
	if (nd[t].r &&
	    (!key_less(&nd[t], &nd[nd[t].r]) || prio(nd[t].r) > prio(t)))
		return "best-fit index: tree order or heap broken (right)";
	++*nodes;
	why = check_tree(nd, nd[t].l, c, ncap, nodes, depth + 1);
	return why ? why : check_tree(nd, nd[t].r, c, ncap, nodes, depth + 1);
}

/*
 * Check the start sets: each level's bits say which words below are not
 * zero, and every level-0 bit names a word where a run of its class
 * starts. Counts the level-0 bits into *bits.
 */
static const char *check_ssets(const struct rgi_hb_runs *ix, const uint64_t *w,
			       uint64_t cap, uint64_t *bits)
{
	if (ix->scap != cap)
		return "best-fit index: start sets sized for another capacity";
	for (unsigned c = 1; c < NSHORT; c++) {
		const uint64_t *set = sset_of(ix, c);

		for (unsigned k = 0; k < ix->slevels; k++) {
			for (uint64_t j = 0; j < ix->slen[k]; j++) {
				uint64_t v = set[ix->soff[k] + j];
				bool up = k + 1 == ix->slevels ||
					  (set[ix->soff[k + 1] + (j >> 6)] >>
					   (j & 63)) &
						  1;

				if (!!v != up && (k + 1 < ix->slevels))
					return "best-fit index: start set "
					       "levels disagree";
				if (k)
					continue;
				*bits += (uint64_t)__builtin_popcountll(v);
				for (; v; v &= v - 1) {
					uint64_t wi =
						(j << 6) +
						(uint64_t)__builtin_ctzll(v);

					if ((wi << 6) >= cap ||
					    !word_has(w, cap, wi, c, NONE))
						return "best-fit index: start "
						       "set names no run";
				}
			}
		}
	}
	return NULL;
}

/* The quiet flag stands for its four conditions (see struct rgi_hb_runs). */
static const char *check_quiet(const struct rg_hbitmap *hb)
{
	const struct rgi_hb_runs *ix = hb->runs;

	if (!ix->quiet)
		return NULL;
	if (ix->stale)
		return "best-fit index: quiet but dropped";
	if (!hb->sum_stale)
		return "best-fit index: quiet but the summaries are exact";
	if (hb->chg_n <= hb->chg_max)
		return "best-fit index: quiet but the change list has room";
	if (ix->slevels != SFIX)
		return "best-fit index: quiet with other than three levels";
	return NULL;
}

int rgi_hb_runs_validate(const struct rg_hbitmap *hb, const char **reason)
{
	const struct rgi_hb_runs *ix = hb->runs;
	const uint64_t *w = hb->words;
	uint64_t cap = hb->capacity;
	uint64_t a, b, runs = 0, nodes = 0, slots = 0, pairs = 0, bits = 0;
	uint64_t lastw[NSHORT];
	const char *why = check_quiet(hb);
	uint32_t x;

	if (why || ix->stale) /* dropped: rebuilt by the next best-fit call */
		goto out;
	memset(lastw, 0xff, sizeof(lastw));
	for (a = next_clear(w, cap, 0); a < cap && !why;
	     a = next_clear(w, cap, b)) {
		b = rgi_hb_next_set(w, cap, a);
		if (b - a < NSHORT) {
			unsigned c = (unsigned)(b - a);
			const uint64_t *set = sset_of(ix, c);

			if (!((set[a >> 12] >> ((a >> 6) & 63)) & 1))
				why = "best-fit index: a short run is missing";
			if (lastw[c] != a >> 6)
				pairs++;
			lastw[c] = a >> 6;
			continue;
		}
		runs++;
		x = lookup(ix, start_key(a));
		if (!x || ix->node[x].len != b - a)
			why = "best-fit index: a free run is missing";
		else if (lookup(ix, end_key(b)) != x)
			why = "best-fit index: a run's end is not indexed";
	}
	if (!why)
		why = check_ssets(ix, w, cap, &bits);
	if (!why && bits != pairs)
		why = "best-fit index: start sets hold stale entries";
	if (!why && runs != ix->count)
		why = "best-fit index: run count disagrees with the bitmap";
	for (unsigned c = 1; c < NCLASS && !why; c++) {
		bool any = c < NSHORT ? sset_any(ix, c) : ix->root[c] != 0;

		if (any != !!(ix->l1[c >> 6] & (1ull << (c & 63))))
			why = "best-fit index: class mask disagrees";
		else if (c < NSHORT && ix->root[c])
			why = "best-fit index: a short class has a tree";
		else
			why = check_tree(ix->node, ix->root[c], c, ix->ncap,
					 &nodes, 0);
	}
	if (!why && (ix->l1[0] & 1))
		why = "best-fit index: class 0 marked";
	for (unsigned i = 0; i < NWORDS && !why; i++)
		if (!!ix->l1[i] != !!(ix->top & (1u << i)))
			why = "best-fit index: top mask disagrees";
	if (!why && nodes != ix->count)
		why = "best-fit index: trees do not hold every run";
	if (!why && ix->count + ix->nfree + 1 != ix->ncap)
		why = "best-fit index: nodes lost from the pool";
	for (uint64_t i = 0; !why && i < ((uint64_t)1 << ix->tbits); i++)
		slots += ix->tab[i] != 0;
	if (!why && slots != 2 * ix->count)
		why = "best-fit index: hash table holds stale entries";
out:
	if (why && reason)
		*reason = why;
	return why ? -EINVAL : 0;
}

void rgi_hb_runs_dump(const struct rgi_hb_runs *ix, FILE *f)
{
	fprintf(f,
		"best-fit index: %s%s, %u long runs, %u nodes (%u spare), "
		"%zu B\n",
		ix->stale ? "stale" : "live", ix->quiet ? " (quiet)" : "",
		ix->count, ix->ncap - 1, ix->nfree, ix->mem->index);
}
