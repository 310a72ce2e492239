// SPDX-License-Identifier: MIT
/*
 * region backend "extent": theory of operation.
 *
 * Only the free runs are stored, each as one node: the extent [start, end)
 * of free units, maximal (two extents are always at least one allocated
 * unit apart). Allocated units are the gaps between them. So memory is per
 * free run, not per unit, and no call touches anything in proportion to a
 * region's length.
 *
 * The extents sit in a treap ordered by address (a binary search tree
 * whose nodes also form a heap on random priorities, expected depth
 * O(log runs)), with parent links. Every tree node is augmented with
 * fit[k] for the exact alignment classes k = 0 .. EX_CLASSES - 1: the
 * largest n such that some extent of its subtree holds n units from a
 * start that is a multiple of 2^k, i.e. max(end - align_up(start, 2^k)).
 * fit[0] is the longest extent of the subtree. Since "holds n units at
 * alignment 2^k" is exactly fit[k] >= n, one descent from the root finds
 * the lowest (first fit) or highest (top-down) extent that holds a
 * request: go left (right) while that child's fit[k] >= n, else take the
 * node if it holds the request itself, else go right (left). A failure is
 * one comparison at the root. Alignments of 2^EX_CLASSES and more are
 * pruned with the last class (an upper bound) and checked exactly per
 * extent, as are windows and boundaries: the search visits the subtrees
 * that may hold a fit in address order (rgi_req_lowest/highest on each
 * candidate), so a window costs the two paths along its edges, and only a
 * boundary or an alignment past the classes can make it visit extents
 * that turn out not to fit.
 *
 * Best fit: instances created with RG_REGION_BEST_FIT put every extent in
 * a second treap on the same node, ordered by (length, start) and
 * augmented the same way. fit[k] >= n implies length >= n, so the
 * leftmost node of that tree holding the request at its alignment is the
 * shortest run that holds it, the lowest among equals: the same single
 * descent. Constrained best-fit requests (a window, a boundary, or an
 * instance without the size tree) scan the address tree's candidates and
 * keep the shortest.
 *
 * Carving a region out of an extent shrinks it (its start or end moves,
 * the order of the address tree is kept, so only the fit values on the
 * path up change, and the walk up stops at the first node whose values
 * did not change), deletes it (an exact fit) or splits it (a new node for
 * the part above). The node a split or a free between two allocated
 * neighbours needs is allocated before anything changes, so -ENOMEM
 * leaves the instance as it was. free(start, n) finds the extents just
 * below and above start in one descent: if either overlaps [start,
 * start + n) a unit of the range is free (-ENOENT, nothing changed);
 * otherwise the range joins its neighbours (extending one, merging two
 * and deleting the upper) or becomes a new extent. reserve carves from
 * the extent holding start (-EBUSY if none holds the whole range).
 *
 * Nodes come from two process-wide slab caches (address-ordered only, and
 * with the size-tree links for best fit), so fault injection reaches every
 * node allocation; bytes held are live nodes x node size plus the
 * instance state, kept with their own peak. Capacity is at most
 * INT32_MAX units (fit values are compared as 32-bit signed). Walks, tests and
 * statistics are O(log runs) per run: predecessor/successor descents.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "region/slab.h"
#include "region_internal.h"

/* Exact alignment classes: 2^0 .. 2^(EX_CLASSES - 1). */
#define EX_CLASSES 12

struct ex_link {
	struct ex_link *l, *r, *p;
	/* per subtree: largest n that fits at alignment 2^k */
	uint32_t fit[EX_CLASSES];
};

struct ex_node {
	uint32_t start, end; /* free units [start, end) */
	uint32_t prio;
	struct ex_link a; /* address order */
	struct ex_link s; /* (length, start) order: best-fit instances only */
};

#define EX_SMALL_SIZE offsetof(struct ex_node, s)
#define EX_BIG_SIZE sizeof(struct ex_node)

struct ex_state {
	struct ex_link *root; /* address tree */
	struct ex_link *sroot; /* size tree (best) */
	struct rg_slab_cache *cache;
	size_t node_size;
	unsigned long nodes, nodes_peak;
	uint32_t rng;
	bool best; /* the size tree is kept */
};

static pthread_mutex_t ex_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rg_slab_cache *_Atomic ex_caches[2];

static struct rg_slab_cache *ex_cache(bool big)
{
	struct rg_slab_cache *c =
		atomic_load_explicit(&ex_caches[big], memory_order_acquire);

	if (likely(c))
		return c;
	pthread_mutex_lock(&ex_cache_lock);
	c = atomic_load_explicit(&ex_caches[big], memory_order_relaxed);
	if (!c) {
		c = rg_slab_create(big ? "region_extent_best" : "region_extent",
				   big ? EX_BIG_SIZE : EX_SMALL_SIZE, 8, 0,
				   NULL);
		if (c)
			atomic_store_explicit(&ex_caches[big], c,
					      memory_order_release);
	}
	pthread_mutex_unlock(&ex_cache_lock);
	return c;
}

static inline struct ex_node *an(struct ex_link *lk)
{
	return container_of(lk, struct ex_node, a);
}

static inline struct ex_node *sn(struct ex_link *lk)
{
	return container_of(lk, struct ex_node, s);
}

static inline struct ex_node *node_of(struct ex_link *lk, bool sz)
{
	return sz ? sn(lk) : an(lk);
}

static inline struct ex_link *link_of(struct ex_node *x, bool sz)
{
	return sz ? &x->s : &x->a;
}

/* Units of [start, end) usable from a multiple of mask + 1. */
static inline unsigned long own_fit(const struct ex_node *x, unsigned long mask)
{
	unsigned long s = ((unsigned long)x->start + mask) & ~mask;

	return s < x->end && s >= x->start ? x->end - s : 0;
}

/*
 * The fit values four classes at a time (GCC's and Clang's vector
 * extensions, plain SSE2 on x86-64): own fit of each class, the maximum
 * with the children's.
 */
typedef uint32_t ex_v4 __attribute__((vector_size(16)));
typedef int32_t ex_s4 __attribute__((vector_size(16)));
#define EX_VECS (EX_CLASSES / 4)
_Static_assert(EX_VECS == 3, "three vectors of four classes");

static const uint32_t ex_zero[EX_CLASSES];

static inline ex_s4 v_load(const uint32_t *p)
{
	ex_s4 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Lane by lane, which compiles to one store and which gcc -fanalyzer follows. */
static inline void v_store(uint32_t *p, ex_s4 v)
{
	for (unsigned int i = 0; i < 4; i++)
		p[i] = (uint32_t)v[i];
}

/*
 * Every value is below 2^31 (the capacity is), so signed compares, which
 * SSE2 has, order them.
 */
static inline ex_s4 v_max(ex_s4 a, ex_s4 b)
{
	ex_s4 m = a > b;

	return (a & m) | (b & ~m);
}

/* Own fit of four classes: end - align_up(start), or 0 if negative. */
static inline ex_s4 v_own(ex_v4 st, ex_v4 en, ex_v4 mask)
{
	ex_s4 v = (ex_s4)(en - ((st + mask) & ~mask));

	return v & (v > 0);
}

/* Recompute lk's fit values from its node and children: true if changed. */
static bool pull(struct ex_link *lk, bool sz)
{
	const struct ex_node *x = node_of(lk, sz);
	const uint32_t *lf = lk->l ? lk->l->fit : ex_zero;
	const uint32_t *rf = lk->r ? lk->r->fit : ex_zero;
	ex_v4 st = (ex_v4){ 0, 0, 0, 0 } + x->start;
	ex_v4 en = (ex_v4){ 0, 0, 0, 0 } + x->end;
	ex_s4 v0 = v_own(st, en, (ex_v4){ 0, 1, 3, 7 });
	ex_s4 v1 = v_own(st, en, (ex_v4){ 15, 31, 63, 127 });
	ex_s4 v2 = v_own(st, en, (ex_v4){ 255, 511, 1023, 2047 });
	ex_s4 d;

	v0 = v_max(v0, v_max(v_load(lf), v_load(rf)));
	v1 = v_max(v1, v_max(v_load(lf + 4), v_load(rf + 4)));
	v2 = v_max(v2, v_max(v_load(lf + 8), v_load(rf + 8)));
	d = (v0 ^ v_load(lk->fit)) | (v1 ^ v_load(lk->fit + 4)) |
	    (v2 ^ v_load(lk->fit + 8));
	v_store(lk->fit, v0);
	v_store(lk->fit + 4, v1);
	v_store(lk->fit + 8, v2);
	/* (GCC 12 and clang both have __builtin_shufflevector) */
	d |= __builtin_shufflevector(d, d, 2, 3, 0, 1);
	return (d[0] | d[1]) != 0;
}

/* lk's values changed (or its subtree did): fix them up to the root. */
static void fix_up(struct ex_link *lk, bool sz)
{
	while (lk && pull(lk, sz))
		lk = lk->p;
}

/* Rotate x above its parent, keeping the fit values right. */
static void rotate_up(struct ex_link **root, struct ex_link *x, bool sz)
{
	struct ex_link *p = x->p, *g = p->p;

	if (p->l == x) {
		p->l = x->r;
		if (x->r)
			x->r->p = p;
		x->r = p;
	} else {
		p->r = x->l;
		if (x->l)
			x->l->p = p;
		x->l = p;
	}
	p->p = x;
	x->p = g;
	if (!g)
		*root = x;
	else if (g->l == p)
		g->l = x;
	else
		g->r = x;
	/* x now holds p's old subtree: p's old values, which were right */
	memcpy(x->fit, p->fit, sizeof(x->fit));
	pull(p, sz);
}

static inline bool key_less(const struct ex_node *x, const struct ex_node *y,
			    bool sz)
{
	if (sz && x->end - x->start != y->end - y->start)
		return x->end - x->start < y->end - y->start;
	return x->start < y->start;
}

static void tree_insert(struct ex_link **root, struct ex_node *x, bool sz)
{
	struct ex_link *lk = link_of(x, sz), *p = NULL, **slot = root;

	while (*slot) {
		p = *slot;
		slot = key_less(x, node_of(p, sz), sz) ? &p->l : &p->r;
	}
	lk->l = lk->r = NULL;
	lk->p = p;
	for (unsigned int k = 0; k < EX_CLASSES; k++)
		lk->fit[k] = 0;
	*slot = lk;
	fix_up(lk, sz);
	while (lk->p && node_of(lk->p, sz)->prio < x->prio)
		rotate_up(root, lk, sz);
}

static void tree_erase(struct ex_link **root, struct ex_node *x, bool sz)
{
	struct ex_link *lk = link_of(x, sz), *p;

	while (lk->l || lk->r) {
		struct ex_link *c = lk->l;

		if (!c ||
		    (lk->r && node_of(lk->r, sz)->prio > node_of(c, sz)->prio))
			c = lk->r;
		rotate_up(root, c, sz);
	}
	p = lk->p;
	if (!p)
		*root = NULL;
	else if (p->l == lk)
		p->l = NULL;
	else
		p->r = NULL;
	fix_up(p, sz);
}

static inline struct ex_state *st_of(struct rg_region *r)
{
	return r->priv;
}

static struct ex_node *node_new(struct ex_state *st)
{
	struct ex_node *x = rg_slab_alloc(st->cache);

	if (unlikely(!x))
		return NULL;
	st->rng ^= st->rng << 13;
	st->rng ^= st->rng >> 17;
	st->rng ^= st->rng << 5;
	x->prio = st->rng;
	if (++st->nodes > st->nodes_peak)
		st->nodes_peak = st->nodes;
	return x;
}

static void node_put(struct ex_state *st, struct ex_node *x)
{
	st->nodes--;
	rg_slab_free(st->cache, x);
}

/* Add a new extent [start, end) to the trees. */
static void ext_add(struct ex_state *st, struct ex_node *x, unsigned long start,
		    unsigned long end)
{
	x->start = (uint32_t)start;
	x->end = (uint32_t)end;
	tree_insert(&st->root, x, false);
	if (st->best)
		tree_insert(&st->sroot, x, true);
}

static void ext_del(struct ex_state *st, struct ex_node *x)
{
	tree_erase(&st->root, x, false);
	if (st->best)
		tree_erase(&st->sroot, x, true);
	node_put(st, x);
}

/* In-order neighbour of lk (prev or next) through the parent links. */
static struct ex_link *step(struct ex_link *lk, bool next)
{
	struct ex_link *c = next ? lk->r : lk->l;

	if (c) {
		while (next ? c->l : c->r)
			c = next ? c->l : c->r;
		return c;
	}
	while (lk->p && (next ? lk->p->r : lk->p->l) == lk)
		lk = lk->p;
	return lk->p;
}

/* Would x, as [start, end), still sit between its size-tree neighbours? */
static bool size_order_kept(struct ex_node *x, unsigned long start,
			    unsigned long end)
{
	struct ex_link *pv = step(&x->s, false), *nx = step(&x->s, true);
	struct ex_node y = { .start = (uint32_t)start, .end = (uint32_t)end };

	return (!pv || key_less(sn(pv), &y, true)) &&
	       (!nx || key_less(&y, sn(nx), true));
}

/*
 * Change x to [start, end), in address order between its neighbours. The
 * size tree keeps the node in place when its order still holds (its
 * values are fixed up as the address tree's), else takes it out and back.
 */
static void ext_set(struct ex_state *st, struct ex_node *x, unsigned long start,
		    unsigned long end)
{
	bool move = st->best && !size_order_kept(x, start, end);

	if (move)
		tree_erase(&st->sroot, x, true);
	x->start = (uint32_t)start;
	x->end = (uint32_t)end;
	fix_up(&x->a, false);
	if (move)
		tree_insert(&st->sroot, x, true);
	else if (st->best)
		fix_up(&x->s, true);
}

/*
 * Allocate [s, s + n) out of extent x, which holds it: shrink, delete or
 * split x. 0, or -ENOMEM (a split found no node) with nothing changed.
 */
static int carve(struct ex_state *st, struct ex_node *x, unsigned long s,
		 unsigned long n)
{
	unsigned long a = x->start, e = x->end;
	struct ex_node *t;

	if (s == a && s + n == e) {
		ext_del(st, x);
	} else if (s == a) {
		ext_set(st, x, s + n, e);
	} else if (s + n == e) {
		ext_set(st, x, a, s);
	} else {
		t = node_new(st);
		if (!t)
			return -ENOMEM;
		ext_set(st, x, a, s);
		ext_add(st, t, s + n, e);
	}
	return 0;
}

/* The extent with the largest start <= u and the one with the next. */
static void neighbours(struct ex_state *st, unsigned long u,
		       struct ex_node **pred, struct ex_node **succ)
{
	struct ex_link *lk = st->root;

	*pred = *succ = NULL;
	while (lk) {
		struct ex_node *x = an(lk);

		if (x->start <= u) {
			*pred = x;
			lk = lk->r;
		} else {
			*succ = x;
			lk = lk->l;
		}
	}
}

/* ---- searches --------------------------------------------------------- */

static inline unsigned int class_of(unsigned long mask)
{
	unsigned int k = (unsigned int)__builtin_ctzl(mask + 1);

	return k < EX_CLASSES ? k : EX_CLASSES - 1;
}

/* Leftmost (!rev) or rightmost node whose own fit at class k holds n. */
static struct ex_node *descend(struct ex_link *lk, unsigned long n,
			       unsigned int k, bool sz, bool rev)
{
	if (!lk || lk->fit[k] < n)
		return NULL;
	for (;;) {
		struct ex_link *near = rev ? lk->r : lk->l;
		struct ex_node *x;

		if (near && near->fit[k] >= n) {
			lk = near;
			continue;
		}
		x = node_of(lk, sz);
		if (own_fit(x, (1UL << k) - 1) >= n)
			return x;
		lk = rev ? lk->l : lk->r;
	}
}

/* Lowest start meeting @q, class c pruning: the extent, start in *s. */
static struct ex_node *find_low(struct ex_link *lk, const struct rgi_req *q,
				unsigned int c, unsigned long *s)
{
	while (lk && lk->fit[c] >= q->n) {
		struct ex_node *x = an(lk), *y;

		if (x->start > q->lo && (y = find_low(lk->l, q, c, s)))
			return y;
		if (x->start > q->hi)
			return NULL;
		if (rgi_req_lowest(q, x->start, x->end, s))
			return x;
		if (x->end > q->hi)
			return NULL;
		lk = lk->r;
	}
	return NULL;
}

static struct ex_node *find_high(struct ex_link *lk, const struct rgi_req *q,
				 unsigned int c, unsigned long *s)
{
	while (lk && lk->fit[c] >= q->n) {
		struct ex_node *x = an(lk), *y;

		if (x->end < q->hi && (y = find_high(lk->r, q, c, s)))
			return y;
		if (x->end <= q->lo)
			return NULL;
		if (rgi_req_highest(q, x->start, x->end, s))
			return x;
		if (x->start <= q->lo)
			return NULL;
		lk = lk->l;
	}
	return NULL;
}

/*
 * Best fit by scanning: the shortest extent meeting @q (the lowest among
 * equals), visiting the address tree's candidates in order.
 */
static void find_best_scan(struct ex_link *lk, const struct rgi_req *q,
			   unsigned int c, struct ex_node **best,
			   unsigned long *s)
{
	unsigned long t;

	while (lk && lk->fit[c] >= q->n) {
		struct ex_node *x = an(lk);

		if (*best && (*best)->end - (*best)->start == q->n)
			return; /* nothing can be shorter */
		if (x->start > q->lo)
			find_best_scan(lk->l, q, c, best, s);
		if (x->start > q->hi)
			return;
		if ((!*best ||
		     x->end - x->start < (*best)->end - (*best)->start) &&
		    rgi_req_lowest(q, x->start, x->end, &t)) {
			*best = x;
			*s = t;
		}
		if (x->end > q->hi)
			return;
		lk = lk->r;
	}
}

/* Find the start for @q (policy first, best or top) without allocating. */
static struct ex_node *find_req(struct ex_state *st, const struct rgi_req *q,
				unsigned long cap, unsigned long *s)
{
	unsigned int c = class_of(q->mask);
	bool whole = !q->lo && q->hi == cap - 1 && !q->bmask &&
		     q->mask >> (EX_CLASSES - 1) == 0;
	struct ex_node *x = NULL;

	switch (q->policy) {
	case RG_REGION_BEST_FIT:
		if (whole && st->best) {
			x = descend(st->sroot, q->n, c, true, false);
			if (x)
				*s = ((unsigned long)x->start + q->mask) &
				     ~q->mask;
			return x;
		}
		find_best_scan(st->root, q, c, &x, s);
		return x;
	case RG_REGION_TOP_DOWN:
		if (whole) {
			x = descend(st->root, q->n, c, false, true);
			if (x)
				*s = ((unsigned long)x->end - q->n) & ~q->mask;
			return x;
		}
		return find_high(st->root, q, c, s);
	default:
		if (whole) {
			x = descend(st->root, q->n, c, false, false);
			if (x)
				*s = ((unsigned long)x->start + q->mask) &
				     ~q->mask;
			return x;
		}
		return find_low(st->root, q, c, s);
	}
}

static int ex_alloc_req(struct rg_region *r, const struct rgi_req *q,
			unsigned long *start)
{
	struct ex_state *st = st_of(r);
	unsigned long s;
	struct ex_node *x = find_req(st, q, r->capacity, &s);
	int err;

	if (!x)
		return -ENOSPC;
	err = carve(st, x, s, q->n);
	if (!err)
		*start = s;
	return err;
}

static int ex_alloc(struct rg_region *r, unsigned long n, unsigned long mask,
		    unsigned long *start)
{
	struct rgi_req q = { .n = n,
			     .mask = mask,
			     .lo = 0,
			     .hi = r->capacity - 1,
			     .bmask = 0,
			     .policy = r->policy };
	unsigned long from = rgi_next_fit_from(r);
	int err = -ENOSPC;

	if (r->policy != RG_REGION_NEXT_FIT)
		return ex_alloc_req(r, &q, start);
	q.policy = RG_REGION_FIRST_FIT;
	if (from) {
		q.lo = from;
		if (n - 1 <= q.hi - from)
			err = ex_alloc_req(r, &q, start);
		q.lo = 0;
	}
	if (err == -ENOSPC)
		err = ex_alloc_req(r, &q, start);
	if (!err)
		rgi_next_fit_done(r, *start, n);
	return err;
}

/* ---- the other calls --------------------------------------------------- */

static int ex_init(struct rg_region *r)
{
	struct ex_state *st;
	struct ex_node *x;
	bool best = r->policy == RG_REGION_BEST_FIT;
	struct rg_slab_cache *c = ex_cache(best);

	if (!c)
		return -ENOMEM;
	st = rgi_calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->cache = c;
	st->best = best;
	st->node_size = best ? EX_BIG_SIZE : EX_SMALL_SIZE;
	/* the same priorities on every run, so figures repeat exactly */
	st->rng = 0x9e3779b9u;
	x = node_new(st);
	if (!x) {
		rgi_free(st);
		return -ENOMEM;
	}
	ext_add(st, x, 0, r->capacity);
	r->priv = st;
	return 0;
}

static void free_subtree(struct ex_state *st, struct ex_link *lk)
{
	while (lk) {
		struct ex_link *next = lk->r;

		free_subtree(st, lk->l);
		node_put(st, an(lk));
		lk = next;
	}
}

static void ex_fini(struct rg_region *r)
{
	struct ex_state *st = st_of(r);

	free_subtree(st, st->root);
	rgi_free(st);
}

static int ex_free(struct rg_region *r, unsigned long start, unsigned long n)
{
	struct ex_state *st = st_of(r);
	unsigned long end = start + n;
	struct ex_node *p, *s, *x;

	neighbours(st, start, &p, &s);
	if ((p && p->end > start) || (s && s->start < end))
		return -ENOENT;
	if (p && p->end == start) {
		if (s && s->start == end) {
			end = s->end;
			ext_del(st, s);
		}
		ext_set(st, p, p->start, end);
	} else if (s && s->start == end) {
		ext_set(st, s, start, s->end);
	} else {
		x = node_new(st);
		if (!x)
			return -ENOMEM;
		ext_add(st, x, start, end);
	}
	return 0;
}

static int ex_reserve(struct rg_region *r, unsigned long start, unsigned long n)
{
	struct ex_state *st = st_of(r);
	struct ex_node *p, *s;

	neighbours(st, start, &p, &s);
	if (!p || p->end < start + n || p->end <= start)
		return -EBUSY;
	return carve(st, p, start, n);
}

static bool ex_test(struct rg_region *r, unsigned long unit)
{
	struct ex_node *p, *s;

	neighbours(st_of(r), unit, &p, &s);
	return !p || p->end <= unit;
}

static unsigned long ex_largest_free(struct rg_region *r)
{
	struct ex_state *st = st_of(r);

	return st->root ? st->root->fit[0] : 0;
}

static size_t ex_bytes(struct rg_region *r)
{
	struct ex_state *st = st_of(r);

	return sizeof(*st) + st->nodes * st->node_size;
}

static size_t ex_bytes_peak(struct rg_region *r)
{
	struct ex_state *st = st_of(r);

	return sizeof(*st) + st->nodes_peak * st->node_size;
}

/* ---- validate and dump ------------------------------------------------ */

struct ex_check {
	const char *why;
	unsigned long count, free_units;
	const struct ex_node *prev;
	unsigned long cap;
};

static void check_tree(struct ex_check *ck, struct ex_link *lk,
		       struct ex_link *parent, bool sz)
{
	struct ex_node *x;
	uint32_t saved[EX_CLASSES];

	if (!lk || ck->why)
		return;
	x = node_of(lk, sz);
	if (lk->p != parent) {
		ck->why = "extent: a parent link is wrong";
		return;
	}
	if (parent && node_of(parent, sz)->prio < x->prio) {
		ck->why = "extent: heap order of priorities broken";
		return;
	}
	check_tree(ck, lk->l, lk, sz);
	if (ck->why)
		return;
	if (x->start >= x->end || x->end > ck->cap) {
		ck->why = "extent: an extent is empty or past the capacity";
		return;
	}
	if (ck->prev && !key_less(ck->prev, x, sz)) {
		ck->why = "extent: tree order broken";
		return;
	}
	if (!sz && ck->prev && ck->prev->end >= x->start) {
		ck->why = "extent: two extents touch or overlap";
		return;
	}
	ck->prev = x;
	ck->count++;
	ck->free_units += x->end - x->start;
	check_tree(ck, lk->r, lk, sz);
	if (ck->why)
		return;
	/* recompute in place, compare, put the stored values back */
	memcpy(saved, lk->fit, sizeof(saved));
	if (pull(lk, sz))
		ck->why = "extent: a subtree's fit values are wrong";
	memcpy(lk->fit, saved, sizeof(saved));
}

static int ex_validate(struct rg_region *r, unsigned long *used,
		       const char **reason)
{
	struct ex_state *st = st_of(r);
	struct ex_check ck = { .cap = r->capacity };
	unsigned long free_units;

	check_tree(&ck, st->root, NULL, false);
	free_units = ck.free_units;
	if (!ck.why && ck.count != st->nodes)
		ck.why = "extent: node count disagrees with the tree";
	if (!ck.why && st->best) {
		ck.count = 0;
		ck.prev = NULL;
		check_tree(&ck, st->sroot, NULL, true);
		if (!ck.why && ck.count != st->nodes)
			ck.why = "extent: size tree misses extents";
	}
	if (!ck.why && !st->best && st->sroot)
		ck.why = "extent: a size tree without best fit";
	*used = r->capacity - free_units;
	if (ck.why) {
		*reason = ck.why;
		return -EINVAL;
	}
	return 0;
}

static void dump_tree(struct ex_link *lk, unsigned long *next, FILE *f)
{
	while (lk) {
		struct ex_node *x = an(lk);

		dump_tree(lk->l, next, f);
		if (x->start > *next)
			fprintf(f, "  used [%lu, %lu)\n", *next,
				(unsigned long)x->start);
		*next = x->end;
		lk = lk->r;
	}
}

static void ex_dump(struct rg_region *r, FILE *f)
{
	struct ex_state *st = st_of(r);
	unsigned long next = 0;

	fprintf(f, "  extent: %lu free runs, %s\n", st->nodes,
		st->best ? "address and size trees" : "address tree");
	dump_tree(st->root, &next, f);
	if (next < r->capacity)
		fprintf(f, "  used [%lu, %lu)\n", next, r->capacity);
}

/* ---- resize and walks -------------------------------------------------- */

static struct ex_node *last_extent(struct ex_state *st)
{
	struct ex_link *lk = st->root;

	if (!lk)
		return NULL;
	while (lk->r)
		lk = lk->r;
	return an(lk);
}

static int ex_resize(struct rg_region *r, unsigned long cap)
{
	struct ex_state *st = st_of(r);
	struct ex_node *x = last_extent(st);
	unsigned long old = r->capacity;

	if (cap > old) {
		if (x && x->end == old) {
			ext_set(st, x, x->start, cap);
			return 0;
		}
		x = node_new(st);
		if (!x)
			return -ENOMEM;
		ext_add(st, x, old, cap);
		return 0;
	}
	if (!x || x->end != old || x->start > cap)
		return -EBUSY;
	if (x->start == cap)
		ext_del(st, x);
	else
		ext_set(st, x, x->start, cap);
	return 0;
}

static int ex_next_run(struct rg_region *r, unsigned long from, bool used,
		       unsigned long *start, unsigned long *n)
{
	struct ex_state *st = st_of(r);
	unsigned long cap = r->capacity, s;
	struct ex_node *p, *x;

	neighbours(st, from, &p, &x);
	if (!used) {
		if (p && p->end > from) {
			*start = from;
			*n = p->end - from;
			return 0;
		}
		if (!x)
			return -ENOENT;
		*start = x->start;
		*n = x->end - x->start;
		return 0;
	}
	s = from;
	if (p && p->end > from) {
		/* from is free: the used run starts where p ends */
		s = p->end;
		if (s >= cap)
			return -ENOENT;
	}
	*start = s;
	*n = (x ? x->start : cap) - s;
	return 0;
}

const struct rgi_region_ops rgi_region_extent_ops = {
	.max_capacity = INT32_MAX,
	.bytes_vary = false,
	.policies = RGI_POLICY_BIT(RG_REGION_FIRST_FIT) |
		    RGI_POLICY_BIT(RG_REGION_BEST_FIT) |
		    RGI_POLICY_BIT(RG_REGION_TOP_DOWN) |
		    RGI_POLICY_BIT(RG_REGION_NEXT_FIT),
	.init = ex_init,
	.fini = ex_fini,
	.alloc = ex_alloc,
	.free = ex_free,
	.reserve = ex_reserve,
	.test = ex_test,
	.largest_free = ex_largest_free,
	.bytes = ex_bytes,
	.bytes_peak = ex_bytes_peak,
	.validate = ex_validate,
	.dump = ex_dump,
	.req_policies = RGI_POLICY_BIT(RG_REGION_FIRST_FIT) |
			RGI_POLICY_BIT(RG_REGION_BEST_FIT) |
			RGI_POLICY_BIT(RG_REGION_TOP_DOWN),
	.alloc_req = ex_alloc_req,
	.resize = ex_resize,
	.next_run = ex_next_run,
};
