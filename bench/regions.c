// SPDX-License-Identifier: MIT
/*
 * regionbench regions / replay: the seed-000 region benchmark, reproduced
 * and extended (see doc: benchmarks.md section 1).
 *
 * fill (default): for each capacity, one seeded trace of region sizes,
 * uniform in 1 .. min(32, capacity / 10) (at least 1), shared by every
 * backend. Each backend allocates the trace in order until the first request
 * fails (no frees in between, so every first-fit backend ends with the same
 * layout: the region count and a hash of the start addresses are compared,
 * and a mismatch is reported loudly and makes the command fail), then frees
 * every region in reverse order. The whole fill loop and the whole free
 * loop are timed; figures are medians of --runs runs. Peak bytes are the
 * bytes the instance held when full, measured by rg_region_get_stats().
 * big: the same with sizes up to 4096 (at most capacity / 10).
 *
 * churn: fill to P% of the capacity (untimed), then --iterations times free
 * a random live region and allocate a random size. Frees and allocations
 * are timed in alternating batches of B = min(64, live regions / 100, at
 * least 1), so the timer is read twice per batch, not per call. A failed
 * allocation is a failure; it is a false failure if a fitting free run
 * existed, which is checked outside the timed batches on a mirror bitmap
 * that follows every call. The ida backend is excluded (noted).
 *
 * Capacities are processed in ascending order; each backend's time at one
 * capacity predicts the next (quadratic for bitmap, whose every search
 * restarts at 0; slightly superlinear otherwise); a backend predicted to
 * exceed --budget seconds is skipped with a note. Churn stops a backend at
 * its budget and reports the iterations it finished.
 *
 * aligned: churn with power-of-two sizes (1 .. the largest power of two
 * within the size limit) and align = size, the GPU and storage pattern.
 *
 * mix, vram, extents (mix_run): the workloads users shape. One stream of
 * --iterations operations, each an allocation or a free, timed in batches
 * of 64 in their order; the columns give ns per operation (failed
 * allocations included), failures and false failures (checked as churn
 * does). --sizes draws request sizes (uniform:LO..HI, loguniform:LO..HI,
 * lognormal:MEDIAN,SIGMA,MAX or list:S[:W],...[*K], a weighted list whose
 * entry is multiplied by a uniform 1..K), --aligns a weighted alignment
 * mix (1:80,8:15,64:5), --free-order frees a random live region or the
 * oldest. --occupancy P holds P % (fill untimed, then allocate below P %
 * and free above); --alloc-share P runs full instead, each operation an
 * allocation with probability P %. vram and extents are presets of mix
 * (regions_help lists them): GPU memory of 2^21 4 KiB pages with requests
 * of 1..16,384 pages aligned to 1, 16 or 512, running full; disk extents
 * of lognormal size, mostly unaligned, oldest freed first, half full.
 * scripts/instructions.sh counts their instructions per operation.
 *
 * Peers (peers/region_peer.h): in a build configured with -Dpeers=DIR
 * (make bench-peers PEERS=DIR), OffsetAllocator and TLSF, built from clones
 * of their repositories, are backends offsetalloc and tlsf of regions and
 * replay: every workload runs on them through ba_alloc() and ba_free(),
 * once, in the first policy's pass, with the same mirror checks; notes give
 * each row's time as a ratio to offsetalloc's, and each adapter's note says
 * how it aligns and what its bytes count. They take no part in the
 * placement comparisons among libregion's backends.
 *
 * --policy LIST runs everything once per placement policy (first, best,
 * top, next), each on the backends that offer it (others are skipped with
 * a note); region counts, start hashes and failures are checked among the
 * backends of one policy. With churn or aligned, --plot DIR also draws the
 * failures against the occupancy (give several: --occupancy 80,85,90,...)
 * per policy.
 *
 * replay FILE: a text trace on every backend (format and parsing rules:
 * replay_help).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "peers/region_peer.h"
#include "region/bitmap.h"
#include "region/region.h"
#include "replay.h"
#include "rg_rand.h"

/* Backend slots: libregion's backends, then the peers (region_peer.h). */
#define NLIB RG_REGION_NR_BACKENDS
#define NB (NLIB + RB_MAX_PEERS)
#define NP RG_REGION_NR_POLICIES
#define MAX_CAPS 32
#define MAX_OCC 24
#define MAX_ROWS (MAX_CAPS * MAX_OCC)

/* The order of workload_choices (see parse_opts); replay is last. */
enum workload {
	W_FILL,
	W_CHURN,
	W_BIG,
	W_ALIGNED,
	W_MIX,
	W_VRAM,
	W_EXTENTS,
	W_REPLAY
};
static const char *const workload_names[] = { "fill",	 "churn", "big",
					      "aligned", "mix",	  "vram",
					      "extents", "replay" };

/* A shaped workload: one stream of allocations and frees (see mix_run). */
#define IS_MIX(w) ((w) == W_MIX || (w) == W_VRAM || (w) == W_EXTENTS)
#define MAX_MIX 32

enum size_kind { SZ_UNIFORM, SZ_LOGUNIFORM, SZ_LOGNORMAL, SZ_LIST };

struct mix {
	enum size_kind kind;
	unsigned long lo, hi; /* uniform, loguniform: lo..hi */
	double median, sigma; /* lognormal, capped at hi */
	unsigned long size[MAX_MIX], sw[MAX_MIX], swsum; /* list, weights */
	int nsize;
	unsigned long scale; /* list: each size times a uniform 1..scale */
	unsigned long align[MAX_MIX], aw[MAX_MIX], awsum; /* align mix */
	int nalign;
	bool oldest; /* free order: oldest first, else a random live one */
	unsigned long alloc_share; /* running full with P % allocs; 0: hold */
	const char *sizes_spec, *aligns_spec; /* as given, for the params */
};

/* The placement policy of the instances being measured. */
static enum rg_region_policy cur_policy;
/* --checked: instances created RG_REGION_CHECKED. */
static bool checked_frees;

static const struct rb_col cols[] = {
	{ "workload", "workload",
	  "fill, churn, big, aligned, mix, vram, extents or replay", RB_STR,
	  0 },
	{ "backend", "backend", "region backend", RB_STR, 0 },
	{ "capacity", "capacity", "units the instance manages", RB_INT, 0 },
	{ "policy", "policy", "placement policy: first, best, top or next fit",
	  RB_STR, 0 },
	{ "occupancy", "occupancy %",
	  "churn: units allocated before the churn starts, % of capacity; "
	  "mix, vram, extents: the occupancy held (- : running full)",
	  RB_INT, 0 },
	{ "iterations", "iterations",
	  "churn: free + alloc iterations timed (per run); mix, vram, "
	  "extents: operations timed",
	  RB_INT, 0 },
	{ "regions", "regions",
	  "fill/big: regions allocated before the first failure; churn and "
	  "replay: successful allocations",
	  RB_INT, 0 },
	{ "alloc_ns_per_region", "alloc ns/region",
	  "median ns per allocation call (fill: whole fill loop / regions)",
	  RB_NUM, 1 },
	{ "free_ns_per_region", "free ns/region",
	  "median ns per free call (fill: whole reverse free loop / regions)",
	  RB_NUM, 1 },
	{ "total_alloc_ms", "alloc total ms",
	  "median ms of all timed allocation calls of one run", RB_NUM, 3 },
	{ "total_free_ms", "free total ms",
	  "median ms of all timed free calls of one run", RB_NUM, 3 },
	{ "peak_bytes", "peak bytes",
	  "bytes the instance held at its fullest: header + backend memory, "
	  "measured (slab node counts x node size, array sizes), not "
	  "estimated",
	  RB_INT, 0 },
	{ "bytes_per_unit", "bytes/unit", "peak bytes / capacity", RB_NUM, 4 },
	{ "failures", "failures",
	  "allocations that failed (fill: the one that ends the fill)", RB_INT,
	  0 },
	{ "false_failures", "false failures",
	  "failures although a fitting free run existed (checked untimed on a "
	  "mirror bitmap)",
	  RB_INT, 0 },
	{ "ns_per_op", "ns/op",
	  "mix, vram, extents: median ns per operation, an allocation or a "
	  "free, failed allocations included",
	  RB_NUM, 1 },
};
#define NCOLS ((int)(sizeof(cols) / sizeof(cols[0])))

struct opts {
	enum workload workload;
	unsigned long caps[MAX_CAPS];
	int ncaps;
	unsigned int occ[MAX_OCC];
	int nocc;
	unsigned long iterations;
	unsigned long align;
	unsigned long boundary; /* churn: constrained requests, 0: plain */
	struct mix mix; /* mix, vram, extents */
	double budget_s;
	bool use[NB];
	bool pol[NP];
	int npol; /* policies selected */
};

/* One result row, kept for ratios, plots and equality checks. */
struct result {
	bool done;
	unsigned long capacity, regions, iterations, failures, false_failures;
	unsigned int occupancy;
	double alloc_ns, free_ns, alloc_ms, free_ms;
	size_t peak_bytes;
	uint64_t hash;
	bool truncated;
};

static int mismatches;

/* ---- helpers ---- */

static uint64_t hash_step(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

static int cmp_ul(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a,
		      y = *(const unsigned long *)b;

	return (x > y) - (x < y);
}

/* ---- backends and peers ---- */

static const struct rb_region_peer *peers[RB_MAX_PEERS];
static int npeers;
/* The first policy selected: the pass in which the peers run. */
static enum rg_region_policy peer_policy;

void rb_region_peer_register(const struct rb_region_peer *p)
{
	if (npeers < RB_MAX_PEERS)
		peers[npeers++] = p;
}

static const struct rb_region_peer *peer_of(int b)
{
	return b >= NLIB && b < NLIB + npeers ? peers[b - NLIB] : NULL;
}

static const char *bname(int b)
{
	if (b < NLIB)
		return rg_region_backend_name((enum rg_region_backend)b);
	return peer_of(b) ? peer_of(b)->name : "-"; /* an empty slot */
}

/* Whether slot @b runs under cur_policy: peers once, with their own. */
static bool has_policy(int b)
{
	if (b >= NLIB)
		return cur_policy == peer_policy;
	return rg_region_backend_has_policy((enum rg_region_backend)b,
					    cur_policy);
}

/* A peer too small for @cap units is skipped, with a note. */
static bool peer_skip(struct rb_table *t, int b, unsigned long cap)
{
	const struct rb_region_peer *p = peer_of(b);

	if (!p || cap <= p->max_capacity)
		return false;
	rb_table_note(t, "%s skipped at capacity %lu: it manages at most %lu",
		      p->name, cap, p->max_capacity);
	return true;
}

static const char *policy_of(int b)
{
	return b >= NLIB ? peers[b - NLIB]->placement :
			   rg_region_policy_name(cur_policy);
}

/* One instance being measured: a libregion region or a peer's. */
struct ba {
	struct rg_region *r;
	const struct rb_region_peer *peer;
	void *p;
};

static struct ba xcreate(int b, unsigned long cap)
{
	struct ba a = { .peer = peer_of(b) };

	if (a.peer)
		a.p = a.peer->create(cap);
	else
		a.r = rg_region_create_backend(
			(enum rg_region_backend)b, cap,
			RG_REGION_POLICY(cur_policy) |
				(checked_frees ? RG_REGION_CHECKED : 0));
	if (!a.r && !a.p) {
		fprintf(stderr, "regionbench: cannot create %s of %lu: %s\n",
			bname(b), cap, strerror(errno));
		exit(2);
	}
	return a;
}

/* Allocate; *@h is the peer's handle for ba_free (0 for libregion). */
static inline int ba_alloc(struct ba *a, unsigned long n, unsigned long align,
			   unsigned long *s, unsigned long *h)
{
	if (a->peer)
		return a->peer->alloc(a->p, n, align ? align : 1, s, h);
	*h = 0;
	return rg_region_alloc(a->r, n, align, s);
}

static inline int ba_free(struct ba *a, unsigned long s, unsigned long n,
			  unsigned long h)
{
	if (!a->peer)
		return rg_region_free(a->r, s, n);
	a->peer->free(a->p, s, n, h);
	return 0;
}

/* libregion: the peak the instance held; a peer: its bytes now. */
static size_t peak_bytes(struct ba *a)
{
	struct rg_region_stats st;

	if (a->peer)
		return a->peer->bytes(a->p);
	rg_region_get_stats(a->r, &st);
	return st.bytes_held_peak;
}

static void ba_destroy(struct ba *a)
{
	if (a->peer)
		a->peer->destroy(a->p);
	else
		rg_region_destroy(a->r);
}

static unsigned long max_size_for(enum workload w, unsigned long cap)
{
	unsigned long lim = w == W_BIG ? 4096 : 32;
	unsigned long m = cap / 10 < lim ? cap / 10 : lim;

	return m ? m : 1;
}

/* ---- fill / big ---- */

struct trace {
	uint32_t *size;
	unsigned long n;
};

static void make_trace(struct trace *t, uint64_t seed, enum workload w,
		       unsigned long cap)
{
	unsigned long max = max_size_for(w, cap), sum = 0, n = 0, alloc = 1024;
	struct rg_rand r;

	rg_rand_seed(&r, seed ^ (cap * 0x9e3779b97f4a7c15ULL));
	t->size = rb_xcalloc(alloc, sizeof(*t->size));
	/* Enough requests that the last ones cannot all fit. */
	while (sum <= cap + max) {
		if (n == alloc) {
			alloc *= 2;
			t->size = realloc(t->size, alloc * sizeof(*t->size));
			if (!t->size) {
				perror("regionbench");
				exit(2);
			}
		}
		t->size[n] = (uint32_t)rg_rand_range(&r, 1, max);
		sum += t->size[n++];
	}
	t->n = n;
}

/* One fill + free run; returns false if the trace did not run out. */
static void fill_run(int b, unsigned long cap, const struct trace *t,
		     unsigned long align, unsigned long *starts,
		     unsigned long *handles, struct result *res,
		     double *alloc_ns_total, double *free_ns_total)
{
	struct ba r = xcreate(b, cap);
	unsigned long i, n;
	uint64_t t0, t1, t2, h = 0;

	t0 = rb_now_ns();
	for (i = 0; i < t->n; i++)
		if (ba_alloc(&r, t->size[i], align, &starts[i], &handles[i]))
			break;
	t1 = rb_now_ns();
	n = i;
	res->peak_bytes = peak_bytes(&r);
	t2 = rb_now_ns();
	for (i = n; i-- > 0;)
		ba_free(&r, starts[i], t->size[i], handles[i]);
	*free_ns_total = (double)(rb_now_ns() - t2);
	*alloc_ns_total = (double)(t1 - t0);
	for (i = 0; i < n; i++)
		h = hash_step(h, starts[i]);
	res->regions = n;
	res->hash = h;
	res->failures = n < t->n;
	ba_destroy(&r);
}

/*
 * The request that ended the fill: false failure if it fit somewhere. The
 * mirror is rebuilt from the recorded starts.
 */
static unsigned long fill_false_failure(unsigned long cap,
					const struct trace *t,
					const unsigned long *starts,
					unsigned long n, unsigned long align)
{
	unsigned long *m, fits;

	if (n >= t->n)
		return 0;
	m = rg_bitmap_zalloc(cap);
	if (!m)
		exit(2);
	for (unsigned long i = 0; i < n; i++)
		rg_bitmap_set_range(m, starts[i], t->size[i]);
	fits = rg_bitmap_find_next_zero_area(m, cap, 0, t->size[n],
					     align ? align - 1 : 0) < cap;
	rg_bitmap_free(m);
	return fits;
}

static double predict(int b, const struct result *prev, unsigned long cap)
{
	double f = (double)cap / (double)prev->capacity;
	double e = b == RG_REGION_BITMAP ? 2.0 : 1.15;
	double per_run = (prev->alloc_ms + prev->free_ms) / 1e3;

	return per_run * pow(f, e);
}

static void run_fill(struct rb_ctx *ctx, const struct opts *o,
		     struct result res[NB][MAX_ROWS], unsigned long *sorted,
		     struct rb_table *t)
{
	double *va = rb_xcalloc((size_t)ctx->runs, sizeof(double));
	double *vf = rb_xcalloc((size_t)ctx->runs, sizeof(double));
	struct result *last[NB] = { 0 };

	for (int c = 0; c < o->ncaps; c++) {
		unsigned long cap = sorted[c], *starts, *handles;
		struct trace tr;
		int ref = -1;

		make_trace(&tr, ctx->seed, o->workload, cap);
		starts = rb_xcalloc(tr.n, sizeof(*starts));
		handles = rb_xcalloc(tr.n, sizeof(*handles));
		for (int b = 0; b < NB; b++) {
			struct result *r = &res[b][c];
			const char *name = bname(b);

			if (!o->use[b] || !has_policy(b))
				continue;
			if (b == RG_REGION_IDA &&
			    cap > (unsigned long)INT_MAX) {
				rb_table_note(t,
					      "ida skipped at capacity %lu: "
					      "IDs stop at INT_MAX",
					      cap);
				continue;
			}
			if (peer_skip(t, b, cap))
				continue;
			if (last[b]) {
				double p = predict(b, last[b], cap) * ctx->runs;

				if (p > o->budget_s) {
					rb_note("regionbench regions: %s "
						"skipped at capacity %lu: "
						"predicted %.0f s > budget "
						"%.0f s (--budget)",
						name, cap, p, o->budget_s);
					rb_table_note(
						t,
						"%s skipped at capacity %lu: "
						"predicted %.0f s for %d runs "
						"> budget %.0f s (--budget)",
						name, cap, p, ctx->runs,
						o->budget_s);
					continue;
				}
			}
			for (int k = 0; k < ctx->runs; k++)
				fill_run(b, cap, &tr, o->align, starts, handles,
					 r, &va[k], &vf[k]);
			r->capacity = cap;
			r->alloc_ms = rb_median(va, ctx->runs) / 1e6;
			r->free_ms = rb_median(vf, ctx->runs) / 1e6;
			r->alloc_ns = r->regions ? r->alloc_ms * 1e6 /
							   (double)r->regions :
						   0;
			r->free_ns = r->regions ? r->free_ms * 1e6 /
							  (double)r->regions :
						  0;
			r->false_failures = fill_false_failure(
				cap, &tr, starts, r->regions, o->align);
			r->done = true;
			last[b] = r;
			if (peer_of(b)) {
				/* a peer places by its own rules */
			} else if (ref < 0) {
				ref = b;
			} else if (r->regions != res[ref][c].regions ||
				   r->hash != res[ref][c].hash) {
				mismatches++;
				fprintf(stderr,
					"regionbench regions: MISMATCH at "
					"capacity %lu: %s placed %lu regions "
					"(hash %016" PRIx64 "), %s placed %lu "
					"(hash %016" PRIx64 ")\n",
					cap, name, r->regions, r->hash,
					bname(ref), res[ref][c].regions,
					res[ref][c].hash);
				rb_table_note(t,
					      "MISMATCH at capacity %lu: %s "
					      "and %s placed different "
					      "regions",
					      cap, name, bname(ref));
			}
		}
		free(starts);
		free(handles);
		free(tr.size);
	}
	free(va);
	free(vf);
}

/* ---- churn ---- */

struct live {
	unsigned long start;
	unsigned long n;
	unsigned long h; /* a peer's handle (ba_alloc) */
};

/*
 * A churn allocation: rg_region_alloc(), or with --boundary the same
 * request through rg_region_alloc_request() with that boundary.
 */
static int churn_alloc(struct ba *r, unsigned long n, unsigned long align,
		       unsigned long boundary, unsigned long *s,
		       unsigned long *h)
{
	struct rg_region_request q = RG_REGION_REQUEST(n);

	if (!boundary)
		return ba_alloc(r, n, align, s, h);
	q.align = align;
	q.boundary = boundary;
	*h = 0;
	return rg_region_alloc_request(r->r, &q, s);
}

static void churn_run(int b, unsigned long cap, unsigned int occ,
		      const struct opts *o, uint64_t seed,
		      unsigned long iterations, struct result *res,
		      double *alloc_ns, double *free_ns, double budget_ns,
		      unsigned long *done_out)
{
	struct ba r = xcreate(b, cap);
	unsigned long max = max_size_for(W_CHURN, cap), mask, lg = 0;
	bool aligned = o->workload == W_ALIGNED;
	unsigned long nlive = 0, used = 0, it = 0;
	struct live *live = rb_xcalloc(cap, sizeof(*live));
	struct live victim[64];
	unsigned long size[64], st[64], sh[64], *mirror = rg_bitmap_zalloc(cap);
	int ret[64];
	uint64_t h = 0, ta = 0, tf = 0, begin;
	struct rg_rand rng;

	mask = o->align ? o->align - 1 : 0;
	while (aligned && (2UL << lg) <= max)
		lg++; /* sizes 1 .. 2^lg */
	rg_rand_seed(&rng, seed ^ (cap * 31 + occ));
	if (!mirror)
		exit(2);
	/* Fill to the target occupancy: untimed. */
	while (used * 100 < (unsigned long)occ * cap) {
		unsigned long n = aligned ? 1UL << rg_rand_below(&rng, lg + 1) :
					    rg_rand_range(&rng, 1, max),
			      s, hd;

		if (churn_alloc(&r, n, aligned ? n : o->align, o->boundary, &s,
				&hd))
			break;
		live[nlive++] = (struct live){ s, n, hd };
		rg_bitmap_set_range(mirror, s, n);
		used += n;
	}
	res->failures = res->false_failures = 0;
	begin = rb_now_ns();
	while (it < iterations && nlive) {
		unsigned long bsz = nlive / 100, k;
		uint64_t t0, t1, t2;

		bsz = bsz < 1 ? 1 : bsz > 64 ? 64 : bsz;
		if (bsz > iterations - it)
			bsz = iterations - it;
		for (k = 0; k < bsz; k++) {
			unsigned long i = rg_rand_below(&rng, nlive);

			victim[k] = live[i];
			live[i] = live[--nlive];
			size[k] = aligned ? 1UL << rg_rand_below(&rng, lg + 1) :
					    rg_rand_range(&rng, 1, max);
		}
		t0 = rb_now_ns();
		for (k = 0; k < bsz; k++)
			ret[k] = ba_free(&r, victim[k].start, victim[k].n,
					 victim[k].h);
		t1 = rb_now_ns();
		for (k = 0; k < bsz; k++)
			if (churn_alloc(&r, size[k],
					aligned ? size[k] : o->align,
					o->boundary, &st[k], &sh[k]))
				st[k] = ~0UL;
		t2 = rb_now_ns();
		tf += t1 - t0;
		ta += t2 - t1;
		/* Untimed: check, and follow on the mirror. */
		for (k = 0; k < bsz; k++) {
			if (ret[k]) {
				fprintf(stderr,
					"regionbench churn: %s free(%lu, %lu) "
					"failed: %d\n",
					bname(b), victim[k].start, victim[k].n,
					ret[k]);
				exit(1);
			}
			rg_bitmap_clear_range(mirror, victim[k].start,
					      victim[k].n);
		}
		for (k = 0; k < bsz; k++) {
			unsigned long al = aligned ? size[k] : mask + 1;

			if (st[k] == ~0UL) {
				res->failures++;
				/* (a fit crossing the boundary is no fit) */
				if ((!o->boundary || o->boundary >= cap) &&
				    rg_bitmap_find_next_zero_area_off(
					    mirror, cap, 0, size[k],
					    aligned ? size[k] - 1 : mask,
					    0) < cap)
					res->false_failures++;
				h = hash_step(h, ~0UL);
				continue;
			}
			if (st[k] > cap - size[k] || st[k] % al ||
			    !rg_bitmap_range_is_clear(mirror, st[k], size[k])) {
				fprintf(stderr,
					"regionbench churn: %s handed out "
					"%lu+%lu, which is out of range, "
					"misaligned or overlaps a live "
					"region\n",
					bname(b), st[k], size[k]);
				exit(1);
			}
			rg_bitmap_set_range(mirror, st[k], size[k]);
			live[nlive++] = (struct live){ st[k], size[k], sh[k] };
			h = hash_step(h, st[k]);
		}
		it += bsz;
		if ((double)(t2 - begin) > budget_ns)
			break;
	}
	*done_out = it;
	res->peak_bytes = peak_bytes(&r);
	res->hash = h;
	/* Every iteration is one free and one allocation. */
	res->regions = it - res->failures;
	*alloc_ns = it ? (double)ta / (double)it : 0;
	*free_ns = it ? (double)tf / (double)it : 0;
	rg_bitmap_free(mirror);
	free(live);
	ba_destroy(&r);
}

/* ---- shaped workloads: mix, vram, extents ---- */

static unsigned long pick_weighted(struct rg_rand *rng, const unsigned long *v,
				   const unsigned long *w, int n,
				   unsigned long sum)
{
	unsigned long x = rg_rand_below(rng, sum);
	int i = 0;

	while (i < n - 1 && x >= w[i])
		x -= w[i++];
	return v[i];
}

/* One request size of the mix, 1..cap. */
static unsigned long mix_size(struct rg_rand *rng, const struct mix *m,
			      unsigned long cap)
{
	double u, v, x;
	unsigned long n;

	switch (m->kind) {
	case SZ_UNIFORM:
		n = rg_rand_range(rng, m->lo, m->hi);
		break;
	case SZ_LOGUNIFORM:
		u = (double)(rg_rand_next(rng) >> 11) * 0x1p-53;
		x = exp(log((double)m->lo) +
			u * (log((double)m->hi + 1) - log((double)m->lo)));
		n = (unsigned long)x;
		break;
	case SZ_LOGNORMAL:
		/* Box-Muller: one standard normal from two uniforms. */
		u = ((double)(rg_rand_next(rng) >> 11) + 1) * 0x1p-53;
		v = (double)(rg_rand_next(rng) >> 11) * 0x1p-53;
		x = m->median *
		    exp(m->sigma * sqrt(-2 * log(u)) * cos(2 * M_PI * v));
		n = x >= (double)m->hi ? m->hi : (unsigned long)(x + 0.5);
		break;
	default:
		n = pick_weighted(rng, m->size, m->sw, m->nsize, m->swsum);
		if (m->scale > 1)
			n *= rg_rand_range(rng, 1, m->scale);
		break;
	}
	n = n < 1 ? 1 : n > m->hi ? m->hi : n;
	return n > cap ? cap : n;
}

/*
 * One shaped run: a stream of @iterations operations, each an allocation
 * (size and alignment drawn from the mix) or a free (the oldest live
 * region, or a random one). Holding an occupancy (alloc_share 0), the
 * instance is first filled to @occ % untimed, then each operation
 * allocates while the units in use are below @occ % and frees otherwise;
 * running full, each operation allocates with probability alloc_share %
 * (always when nothing is live) from an empty start. Operations are
 * planned and timed in batches of 64 in their order (a free's victim is
 * a region live before the batch); results are checked untimed on a
 * mirror bitmap in the same order, so a failure's false-failure test sees
 * the space as it was at that operation. *@op_ns: ns per operation.
 */
static void mix_run(int b, unsigned long cap, unsigned int occ,
		    const struct opts *o, uint64_t seed,
		    unsigned long iterations, struct result *res, double *op_ns,
		    double budget_ns, unsigned long *done_out)
{
	const struct mix *m = &o->mix;
	struct ba r = xcreate(b, cap);
	unsigned long ring = cap + 1, head = 0, nlive = 0, used = 0, it = 0;
	unsigned long nok = 0; /* successful timed allocations */
	unsigned long target = (unsigned long)((double)cap * occ / 100);
	struct live *live = rb_xcalloc(ring, sizeof(*live));
	struct live op[64]; /* free: the victim; alloc: size (start: align) */
	bool is_free[64];
	unsigned long st[64], sh[64], *mirror = rg_bitmap_zalloc(cap);
	int ret[64];
	uint64_t h = 0, tt = 0, begin;
	struct rg_rand rng;

	rg_rand_seed(&rng, seed ^ (cap * 31 + occ) ^ 0x6d6978);
	if (!mirror)
		exit(2);
	/* Holding an occupancy: fill to it first, untimed. */
	while (!m->alloc_share && used < target) {
		unsigned long n = mix_size(&rng, m, cap), s, hd;
		unsigned long a = pick_weighted(&rng, m->align, m->aw,
						m->nalign, m->awsum);

		if (ba_alloc(&r, n, a, &s, &hd))
			break;
		live[(head + nlive++) % ring] = (struct live){ s, n, hd };
		rg_bitmap_set_range(mirror, s, n);
		used += n;
	}
	res->failures = res->false_failures = 0;
	begin = rb_now_ns();
	while (it < iterations) {
		unsigned long bsz = iterations - it < 64 ? iterations - it : 64;
		unsigned long proj = used, k;
		uint64_t t0, t1;

		for (k = 0; k < bsz; k++) {
			bool fr = nlive &&
				  (m->alloc_share ? rg_rand_below(&rng, 100) >=
							    m->alloc_share :
						    proj >= target);

			is_free[k] = fr;
			if (fr) {
				unsigned long i =
					m->oldest ? 0 :
						    rg_rand_below(&rng, nlive);
				struct live *v = &live[(head + i) % ring];

				op[k] = *v;
				*v = live[head];
				head = (head + 1) % ring;
				nlive--;
				proj -= op[k].n;
			} else {
				op[k].n = mix_size(&rng, m, cap);
				op[k].start =
					pick_weighted(&rng, m->align, m->aw,
						      m->nalign, m->awsum);
				proj += op[k].n;
			}
		}
		t0 = rb_now_ns();
		for (k = 0; k < bsz; k++) {
			if (is_free[k])
				ret[k] = ba_free(&r, op[k].start, op[k].n,
						 op[k].h);
			else if (ba_alloc(&r, op[k].n, op[k].start, &st[k],
					  &sh[k]))
				st[k] = ~0UL;
		}
		t1 = rb_now_ns();
		tt += t1 - t0;
		/* Untimed: check and follow on the mirror, in order. */
		for (k = 0; k < bsz; k++) {
			if (is_free[k]) {
				if (ret[k]) {
					fprintf(stderr,
						"regionbench %s: %s "
						"free(%lu, %lu) failed: %d\n",
						workload_names[o->workload],
						bname(b), op[k].start, op[k].n,
						ret[k]);
					exit(1);
				}
				rg_bitmap_clear_range(mirror, op[k].start,
						      op[k].n);
				used -= op[k].n;
				continue;
			}
			if (st[k] == ~0UL) {
				res->failures++;
				if (rg_bitmap_find_next_zero_area_off(
					    mirror, cap, 0, op[k].n,
					    op[k].start - 1, 0) < cap)
					res->false_failures++;
				h = hash_step(h, ~0UL);
				continue;
			}
			if (st[k] > cap - op[k].n || st[k] % op[k].start ||
			    !rg_bitmap_range_is_clear(mirror, st[k], op[k].n)) {
				fprintf(stderr,
					"regionbench %s: %s handed out "
					"%lu+%lu (align %lu), which is out "
					"of range, misaligned or overlaps a "
					"live region\n",
					workload_names[o->workload], bname(b),
					st[k], op[k].n, op[k].start);
				exit(1);
			}
			rg_bitmap_set_range(mirror, st[k], op[k].n);
			live[(head + nlive++) % ring] =
				(struct live){ st[k], op[k].n, sh[k] };
			used += op[k].n;
			nok++;
			h = hash_step(h, st[k]);
		}
		it += bsz;
		if ((double)(t1 - begin) > budget_ns)
			break;
	}
	*done_out = it;
	res->peak_bytes = peak_bytes(&r);
	res->hash = h;
	res->regions = nok;
	*op_ns = it ? (double)tt / (double)it : 0;
	rg_bitmap_free(mirror);
	free(live);
	ba_destroy(&r);
}

static void run_churn(struct rb_ctx *ctx, const struct opts *o,
		      struct result res[NB][MAX_ROWS],
		      const unsigned long *sorted, struct rb_table *t)
{
	double *va = rb_xcalloc((size_t)ctx->runs, sizeof(double));
	double *vf = rb_xcalloc((size_t)ctx->runs, sizeof(double));
	bool first = true; /* the first policy's run: say it once */

	for (int p = 0; p < (int)cur_policy; p++)
		first = first && !o->pol[p];
	if (o->use[RG_REGION_IDA] && first) {
		rb_note("regionbench regions: ida excluded from %s: N "
			"single-ID allocations are not a contiguous allocator "
			"once frees interleave",
			workload_names[o->workload]);
		rb_table_note(t,
			      "ida is excluded from %s: N single-ID "
			      "allocations are not a contiguous allocator "
			      "once frees interleave.",
			      workload_names[o->workload]);
	}
	for (int c = 0; c < o->ncaps; c++) {
		for (int oi = 0; oi < o->nocc; oi++) {
			int idx = c * o->nocc + oi, ref = -1;
			unsigned long cap = sorted[c];

			for (int b = 0; b < NB; b++) {
				struct result *r = &res[b][idx];
				const char *name = bname(b);
				unsigned long iters = o->iterations, done;
				double budget = o->budget_s * 1e9 / ctx->runs;

				if (!o->use[b] || b == RG_REGION_IDA ||
				    !has_policy(b) || peer_skip(t, b, cap))
					continue;
				if (peer_of(b) && o->boundary) {
					if (!c && !oi)
						rb_table_note(
							t,
							"%s skipped: no "
							"boundary constraint",
							name);
					continue;
				}
				for (int k = 0; k < ctx->runs; k++) {
					vf[k] = 0;
					if (IS_MIX(o->workload))
						mix_run(b, cap, o->occ[oi], o,
							ctx->seed, iters, r,
							&va[k], budget, &done);
					else
						churn_run(b, cap, o->occ[oi], o,
							  ctx->seed, iters, r,
							  &va[k], &vf[k],
							  budget, &done);
					if (done < iters) {
						/* Later runs do the same. */
						r->truncated = true;
						iters = done;
					}
				}
				r->capacity = cap;
				r->occupancy = o->occ[oi];
				r->iterations = iters;
				r->alloc_ns = rb_median(va, ctx->runs);
				r->free_ns = rb_median(vf, ctx->runs);
				r->alloc_ms = r->alloc_ns * (double)iters / 1e6;
				r->free_ms = r->free_ns * (double)iters / 1e6;
				r->done = true;
				if (r->truncated) {
					rb_note("regionbench regions: %s at "
						"capacity %lu, %u%%: stopped "
						"after %lu of %lu iterations "
						"(budget %.0f s)",
						name, cap, o->occ[oi], iters,
						o->iterations, o->budget_s);
					rb_table_note(
						t,
						"%s at capacity %lu, %u%%: "
						"time budget reached, %lu of "
						"%lu iterations run",
						name, cap, o->occ[oi], iters,
						o->iterations);
				}
				if (r->truncated || peer_of(b))
					continue;
				if (ref < 0) {
					ref = b;
				} else if (r->hash != res[ref][idx].hash ||
					   r->failures !=
						   res[ref][idx].failures) {
					mismatches++;
					fprintf(stderr,
						"regionbench regions: MISMATCH "
						"in churn at capacity %lu, "
						"%u%%: %s and %s placed "
						"different regions\n",
						cap, o->occ[oi], name,
						bname(ref));
					rb_table_note(
						t,
						"MISMATCH in churn at capacity "
						"%lu, %u%%: %s and %s differ",
						cap, o->occ[oi], name,
						bname(ref));
				}
			}
		}
	}
	free(va);
	free(vf);
}

/* ---- output ---- */

static void add_row(struct rb_table *t, enum workload w, int b,
		    const struct result *r)
{
	rb_row(t);
	rb_set_str(t, "workload", "%s", workload_names[w]);
	rb_set_str(t, "backend", "%s", bname(b));
	rb_set_int(t, "capacity", (long long)r->capacity);
	rb_set_str(t, "policy", "%s", policy_of(b));
	if (w == W_CHURN || w == W_ALIGNED || IS_MIX(w)) {
		if (r->occupancy) /* 0: running full */
			rb_set_int(t, "occupancy", r->occupancy);
		rb_set_int(t, "iterations", (long long)r->iterations);
	}
	rb_set_int(t, "regions", (long long)r->regions);
	if (IS_MIX(w)) {
		/* One stream of operations: alloc_ns is ns per operation. */
		rb_set_num(t, "ns_per_op", r->alloc_ns);
	} else {
		rb_set_num(t, "alloc_ns_per_region", r->alloc_ns);
		rb_set_num(t, "free_ns_per_region", r->free_ns);
		rb_set_num(t, "total_alloc_ms", r->alloc_ms);
		rb_set_num(t, "total_free_ms", r->free_ms);
	}
	rb_set_int(t, "peak_bytes", (long long)r->peak_bytes);
	rb_set_num(t, "bytes_per_unit",
		   (double)r->peak_bytes / (double)r->capacity);
	rb_set_int(t, "failures", (long long)r->failures);
	rb_set_int(t, "false_failures", (long long)r->false_failures);
}

static int cap_index(const unsigned long *sorted, int n, unsigned long cap)
{
	for (int i = 0; i < n; i++)
		if (sorted[i] == cap)
			return i;
	return -1;
}

static void fill_ratios(struct rb_table *t, struct result res[NB][MAX_ROWS],
			const unsigned long *sorted, int n)
{
	const struct result *hb, *mp, *bm;

	for (int c = n - 1; c >= 0; c--) {
		hb = &res[RG_REGION_HBITMAP][c];
		mp = &res[RG_REGION_MAPLE][c];
		bm = &res[RG_REGION_BITMAP][c];
		if (!hb->done || !bm->done)
			continue;
		rb_table_note(t,
			      "At capacity %lu: hbitmap alloc = %.3fx "
			      "bitmap's alloc, %.2fx bitmap's free; hbitmap "
			      "free = %.2fx bitmap's free; peak bytes = "
			      "%.3fx bitmap's.",
			      sorted[c], hb->alloc_ns / bm->alloc_ns,
			      hb->alloc_ns / bm->free_ns,
			      hb->free_ns / bm->free_ns,
			      (double)hb->peak_bytes / (double)bm->peak_bytes);
		if (mp->done)
			rb_table_note(t,
				      "At capacity %lu: hbitmap alloc = %.3fx "
				      "maple's, free = %.3fx maple's.",
				      sorted[c], hb->alloc_ns / mp->alloc_ns,
				      hb->free_ns / mp->free_ns);
		break;
	}
	for (int c = 0; c < n; c++) {
		int c6 = cap_index(sorted, n, 1000000);

		hb = &res[RG_REGION_HBITMAP][c];
		if (c6 < 0 || sorted[c] <= 1000000 || !hb->done ||
		    !res[RG_REGION_HBITMAP][c6].done)
			continue;
		rb_table_note(t,
			      "hbitmap alloc at capacity %lu = %.2fx its "
			      "figure at 1000000.",
			      sorted[c],
			      hb->alloc_ns /
				      res[RG_REGION_HBITMAP][c6].alloc_ns);
	}
}

static void churn_ratios(struct rb_table *t, struct result res[NB][MAX_ROWS],
			 const struct opts *o, const unsigned long *sorted)
{
	for (int c = 0; c < o->ncaps; c++)
		for (int oi = 0; oi < o->nocc; oi++) {
			int i = c * o->nocc + oi;
			const struct result *hb = &res[RG_REGION_HBITMAP][i];
			const struct result *mp = &res[RG_REGION_MAPLE][i];
			char at[32] = "running full";

			if (!hb->done || !mp->done)
				continue;
			if (o->occ[oi])
				snprintf(at, sizeof(at), "%u%%", o->occ[oi]);
			rb_table_note(t,
				      "%s at capacity %lu, %s: hbitmap "
				      "%s = %.3fx maple's.",
				      o->workload == W_CHURN ?
					      "Churn" :
					      workload_names[o->workload],
				      sorted[c], at,
				      IS_MIX(o->workload) ? "ns/op" :
							    "alloc+free",
				      (hb->alloc_ns + hb->free_ns) /
					      (mp->alloc_ns + mp->free_ns));
		}
}

/* The peers' rows of their pass, for the ratios of every policy's. */
static struct result peer_res[RB_MAX_PEERS][MAX_ROWS];

/* The peer times are divided by: offsetalloc if present, else the first. */
static int ratio_peer(void)
{
	for (int i = 0; i < npeers; i++)
		if (!strcmp(peers[i]->name, "offsetalloc"))
			return i;
	return 0;
}

/*
 * With peers: one note per row (capacity, occupancy) giving each row's
 * time as a ratio to the reference peer's, measured in the same process:
 * fill and big allocation and free, churn free+alloc, mix ns/op. The
 * peers' own ratios are given in their pass only.
 */
static void peer_ratios(struct rb_table *t, const struct opts *o,
			struct result res[NB][MAX_ROWS],
			const unsigned long *sorted, int nrows_cap)
{
	bool churn = o->workload == W_CHURN || o->workload == W_ALIGNED;
	bool fill = !churn && !IS_MIX(o->workload) && o->workload != W_REPLAY;
	int rp = ratio_peer(),
	    nocc = fill || o->workload == W_REPLAY ? 1 : o->nocc;

	if (!npeers)
		return;
	if (cur_policy == peer_policy)
		memcpy(peer_res, &res[NLIB], sizeof(peer_res));
	for (int i = 0; i < nrows_cap * nocc; i++) {
		const struct result *ref = &peer_res[rp][i];
		char buf[1024];
		size_t len = 0;

		if (!ref->done)
			continue;
		buf[0] = 0;
		for (int b = 0; b < NLIB + npeers; b++) {
			const struct result *r = &res[b][i];

			if (!r->done || b == NLIB + rp)
				continue;
			if (fill)
				len += (size_t)snprintf(
					buf + len, sizeof(buf) - len,
					"%s%s %s alloc %.2fx, free %.2fx",
					len ? "; " : "", bname(b), policy_of(b),
					r->alloc_ns / ref->alloc_ns,
					r->free_ns / ref->free_ns);
			else
				len += (size_t)snprintf(
					buf + len, sizeof(buf) - len,
					"%s%s %s %.2fx", len ? "; " : "",
					bname(b), policy_of(b),
					(r->alloc_ns + r->free_ns) /
						(ref->alloc_ns + ref->free_ns));
			if (len >= sizeof(buf))
				break;
		}
		if (!len)
			continue;
		if (o->workload == W_REPLAY)
			rb_table_note(t, "Time / %s's (alloc + free ns): %s.",
				      peers[rp]->name, buf);
		else if (fill || !o->occ[i % nocc])
			rb_table_note(t, "At capacity %lu: time / %s's: %s.",
				      sorted[i / nocc], peers[rp]->name, buf);
		else
			rb_table_note(t,
				      "At capacity %lu, %u%%: time / %s's: "
				      "%s.",
				      sorted[i / nocc], o->occ[i % nocc],
				      peers[rp]->name, buf);
	}
}

/* Once per table with peers: what their rows mean. */
static void peer_legend(struct rb_table *t, const struct opts *o)
{
	bool any = false;

	for (int i = 0; i < npeers; i++)
		if (o->use[NLIB + i]) {
			rb_table_note(t, "%s", peers[i]->legend);
			any = true;
		}
	if (any)
		rb_table_note(t,
			      "Peers run once, in the %s fit pass, each "
			      "behind an adapter of one out-of-line call; "
			      "'good': their own size-class placement. Their "
			      "false failures are checked on the same mirror "
			      "bitmap (with the units handed out).",
			      rg_region_policy_name(peer_policy));
}

/*
 * --plot DIR: fill and big draw ns per region and peak bytes against the
 * capacity (log-log), churn and aligned draw alloc and free ns per region
 * for each occupancy, replay draws both per backend. With several
 * policies, each series is a policy and backend.
 */
static void plot_regions(struct rb_ctx *ctx, struct rb_table *t,
			 const struct opts *o)
{
	const char *w = workload_names[o->workload];
	char f1[64], f2[64], t1[128], t2[128];
	bool lines = o->workload == W_FILL || o->workload == W_BIG;
	bool churn = o->workload == W_CHURN || o->workload == W_ALIGNED;
	bool pols = o->npol > 1;

	if (IS_MIX(o->workload))
		return; /* no chart of its own; plot_failures draws failures */
	snprintf(f1, sizeof(f1), "regions-%s-%s", w, lines ? "ns" : "alloc");
	snprintf(f2, sizeof(f2), "regions-%s-%s", w, lines ? "bytes" : "free");
	if (lines) {
		snprintf(t1, sizeof(t1),
			 "regions %s: ns per region vs "
			 "capacity",
			 w);
		snprintf(t2, sizeof(t2),
			 "regions %s: peak bytes held vs "
			 "capacity",
			 w);
		rb_plot_table(
			ctx, t,
			&(struct rb_plot){
				.file = f1,
				.title = t1,
				.x = "capacity",
				.series = pols ? "policy,backend" : "backend",
				.y = { "alloc_ns_per_region",
				       "free_ns_per_region" },
				.xlabel = "capacity (units)",
				.ylabel = "ns per region",
				.logx = true,
				.logy = true,
			});
		rb_plot_table(
			ctx, t,
			&(struct rb_plot){
				.file = f2,
				.title = t2,
				.x = "capacity",
				.series = pols ? "policy,backend" : "backend",
				.y = { "peak_bytes" },
				.xlabel = "capacity (units)",
				.ylabel = "peak bytes (measured)",
				.logx = true,
				.logy = true,
			});
	} else if (churn) {
		for (int i = 0; i < 2; i++) {
			snprintf(t1, sizeof(t1),
				 "regions %s: %s ns per "
				 "region by occupancy",
				 w, i ? "free" : "alloc");
			rb_plot_table(
				ctx, t,
				&(struct rb_plot){
					.file = i ? f2 : f1,
					.title = t1,
					.x = "occupancy",
					.series = o->ncaps > 1 ?
							  (pols ? "capacity,"
								  "policy,"
								  "backend" :
								  "capacity,"
								  "backend") :
						  pols ? "policy,backend" :
							 "backend",
					.y = { i ? "free_ns_per_region" :
						   "alloc_ns_per_region" },
					.xlabel = "occupancy (%)",
					.ylabel = "ns per region",
					.bars = true,
					.logy = true,
				});
		}
	} else if (pols) {
		/* One chart per call: a bar per policy in each backend's. */
		for (int i = 0; i < 2; i++) {
			snprintf(t1, sizeof(t1),
				 "replay: %s ns per region by backend and "
				 "policy",
				 i ? "free" : "alloc");
			rb_plot_table(
				ctx, t,
				&(struct rb_plot){
					.file = i ? "replay-free" :
						    "replay-alloc",
					.title = t1,
					.x = "backend",
					.series = "policy",
					.y = { i ? "free_ns_per_region" :
						   "alloc_ns_per_region" },
					.xlabel = "backend",
					.ylabel = "ns per region",
					.bars = true,
					.logy = true,
				});
		}
	} else {
		rb_plot_table(ctx, t,
			      &(struct rb_plot){
				      .file = "replay",
				      .title = "replay: ns per region by "
					       "backend",
				      .x = "backend",
				      .y = { "alloc_ns_per_region",
					     "free_ns_per_region" },
				      .xlabel = "backend",
				      .ylabel = "ns per region",
				      .bars = true,
				      .logy = true,
			      });
	}
}

static const struct rb_col fail_cols[] = {
	{ "policy", "policy", "placement policy", RB_STR, 0 },
	{ "occupancy", "occupancy %", "units allocated before the churn",
	  RB_INT, 0 },
	{ "failures", "failures", "allocations that failed", RB_INT, 0 },
};

/*
 * --plot DIR with churn or aligned: failures against occupancy, one line
 * per policy (the first capacity; all backends of a policy fail alike,
 * which churn checks), drawn from a table of its own.
 */
static void plot_failures(struct rb_ctx *ctx, const struct opts *o,
			  unsigned long fails[NP][MAX_OCC],
			  bool done[NP][MAX_OCC])
{
	char file[64], title[128];
	struct rb_table *f;

	if (!ctx->plot)
		return;
	f = rb_table_new("failures", fail_cols,
			 (int)(sizeof(fail_cols) / sizeof(fail_cols[0])));
	for (int p = 0; p < NP; p++)
		for (int oi = 0; o->pol[p] && oi < o->nocc; oi++) {
			if (!done[p][oi])
				continue;
			rb_row(f);
			rb_set_str(f, "policy", "%s fit",
				   rg_region_policy_name(
					   (enum rg_region_policy)p));
			rb_set_int(f, "occupancy", o->occ[oi]);
			rb_set_int(f, "failures", (long long)fails[p][oi]);
		}
	snprintf(file, sizeof(file), "regions-%s-failures",
		 workload_names[o->workload]);
	snprintf(title, sizeof(title),
		 "regions %s: failures vs occupancy per policy",
		 workload_names[o->workload]);
	rb_plot_table(ctx, f,
		      &(struct rb_plot){
			      .file = file,
			      .title = title,
			      .x = "occupancy",
			      .series = "policy",
			      .y = { "failures" },
			      /* it coincides with first fit on churn */
			      .dashed = "top fit",
			      .xlabel = "occupancy before the churn (% of "
					"capacity)",
			      .ylabel = "failed allocations",
		      });
	rb_table_free(f);
}

/* ---- command line ---- */

/* In enum workload order: the parsed index is the workload. */
static const char *const workload_choices[] = { "fill",	   "churn", "big",
						"aligned", "mix",   "vram",
						"extents", NULL };
static const char *const free_order_choices[] = { "random", "oldest", NULL };

/* The presets of the shaped workloads: --sizes, --aligns, --free-order. */
static const char *const preset_sizes[] = {
	[W_MIX] = "uniform:1..32",
	[W_VRAM] = "list:1,4,16,64,256,1024,4096*4",
	[W_EXTENTS] = "lognormal:16,2.2,65536",
};
static const char *const preset_aligns[] = {
	[W_MIX] = "1",
	[W_VRAM] = "1:1,16:1,512:1",
	[W_EXTENTS] = "1:80,8:15,64:5",
};

static unsigned long spec_uint(const char *opt, const char *spec, const char *s,
			       unsigned long min, unsigned long max)
{
	unsigned long v;

	if (!rb_parse_uint(s, &v) || v < min || v > max)
		rb_die("--%s: '%s': '%s' is not an integer in %lu..%lu", opt,
		       spec, s, min, max);
	return v;
}

/*
 * "A[:W],A[:W],...": values (powers of two for --aligns) with weights
 * (default 1) into @v and @w; returns the count, the weight sum in @sum.
 */
static int parse_weighted(const char *opt, const char *spec, const char *s,
			  bool pow2, unsigned long *v, unsigned long *w,
			  unsigned long *sum)
{
	char *dup = strdup(s), *save = NULL;
	int n = 0;

	if (!dup)
		rb_die("out of memory");
	*sum = 0;
	for (char *e = strtok_r(dup, ",", &save); e;
	     e = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(e, ':');

		if (n == MAX_MIX)
			rb_die("--%s: '%s': more than %d entries", opt, spec,
			       MAX_MIX);
		if (colon)
			*colon = 0;
		v[n] = spec_uint(opt, spec, e, 1, pow2 ? 1UL << 30 : 1UL << 40);
		if (pow2 && (v[n] & (v[n] - 1)))
			rb_die("--%s: '%s': %lu is not a power of two", opt,
			       spec, v[n]);
		w[n] = colon ? spec_uint(opt, spec, colon + 1, 1, 1000000) : 1;
		*sum += w[n++];
	}
	free(dup);
	if (!n)
		rb_die("--%s: '%s' names no value", opt, spec);
	return n;
}

/* --sizes SPEC (see regions_help). */
static void parse_sizes(const char *spec, struct mix *m)
{
	char *dup = strdup(spec), *arg, *dots, *end;

	if (!dup)
		rb_die("out of memory");
	arg = strchr(dup, ':');
	if (!arg)
		rb_die("--sizes: '%s': expected uniform:LO..HI, "
		       "loguniform:LO..HI, lognormal:MEDIAN,SIGMA,MAX or "
		       "list:S[:W],...[*K]",
		       spec);
	*arg++ = 0;
	m->scale = 1;
	if (!strcmp(dup, "uniform") || !strcmp(dup, "loguniform")) {
		m->kind = dup[0] == 'u' ? SZ_UNIFORM : SZ_LOGUNIFORM;
		dots = strstr(arg, "..");
		if (!dots)
			rb_die("--sizes: '%s': expected %s:LO..HI", spec, dup);
		*dots = 0;
		m->lo = spec_uint("sizes", spec, arg, 1, 1UL << 40);
		m->hi = spec_uint("sizes", spec, dots + 2, m->lo, 1UL << 40);
	} else if (!strcmp(dup, "lognormal")) {
		char *f[3], *save = NULL;
		int n = 0;

		m->kind = SZ_LOGNORMAL;
		for (char *e = strtok_r(arg, ",", &save); e && n < 3;
		     e = strtok_r(NULL, ",", &save))
			f[n++] = e;
		if (n != 3 || strtok_r(NULL, ",", &save))
			rb_die("--sizes: '%s': expected "
			       "lognormal:MEDIAN,SIGMA,MAX",
			       spec);
		m->median = strtod(f[0], &end);
		if (*end || !(m->median >= 1))
			rb_die("--sizes: '%s': the median must be a number "
			       ">= 1",
			       spec);
		m->sigma = strtod(f[1], &end);
		if (*end || !(m->sigma >= 0 && m->sigma <= 10))
			rb_die("--sizes: '%s': sigma must be a number in 0..10",
			       spec);
		m->lo = 1;
		m->hi = spec_uint("sizes", spec, f[2], 1, 1UL << 40);
	} else if (!strcmp(dup, "list")) {
		char *star = strchr(arg, '*');

		m->kind = SZ_LIST;
		if (star) {
			*star = 0;
			m->scale =
				spec_uint("sizes", spec, star + 1, 1, 1 << 20);
		}
		m->nsize = parse_weighted("sizes", spec, arg, false, m->size,
					  m->sw, &m->swsum);
		m->lo = 1;
		m->hi = 0;
		for (int i = 0; i < m->nsize; i++)
			if (m->size[i] * m->scale > m->hi)
				m->hi = m->size[i] * m->scale;
	} else {
		rb_die("--sizes: '%s': '%s' is not uniform, loguniform, "
		       "lognormal or list",
		       spec, dup);
	}
	free(dup);
}

/* The shape of mix, vram or extents: the preset, then what was given. */
static void parse_mix(struct opts *o, const char *sizes, const char *aligns,
		      int forder, unsigned long share, bool occ)
{
	struct mix *m = &o->mix;
	static char one[32];

	if (o->boundary)
		rb_die("--boundary: not with --workload %s",
		       workload_names[o->workload]);
	if (aligns && o->align)
		rb_die("--align and --aligns: give one");
	if (share && occ)
		rb_die("--alloc-share and --occupancy: give one (running full "
		       "or holding an occupancy)");
	m->sizes_spec = sizes ? sizes : preset_sizes[o->workload];
	parse_sizes(m->sizes_spec, m);
	snprintf(one, sizeof(one), "%lu", o->align ? o->align : 1);
	if (!aligns)
		aligns = o->align ? one : preset_aligns[o->workload];
	m->nalign = parse_weighted("aligns", aligns, aligns, true, m->align,
				   m->aw, &m->awsum);
	m->aligns_spec = aligns;
	m->oldest = forder < 0 ? o->workload == W_EXTENTS : forder == 1;
	m->alloc_share = share ? share : o->workload == W_VRAM && !occ ? 55 : 0;
}

/* The options of regions and replay: one table each. */
static void parse_opts(struct rb_ctx *ctx, int argc, char **argv,
		       struct opts *o, bool replay)
{
	const char *caps = NULL, *occ = NULL, *bnames[NB + 1] = { NULL };
	const char *pnames[NP + 1] = { NULL };
	const char *sizes = NULL, *aligns = NULL;
	unsigned long backends = 0, policies = 0, v[MAX_OCC], share = 0;
	int workload = W_FILL, forder = 0;
	struct rb_opt regions_opts[] = {
		RB_OPT_CHOICE("workload", &workload, workload_choices,
			      "(default fill; aligned: churn with power-of-two "
			      "sizes and align = size; mix: allocations and "
			      "frees shaped by the four options below; vram, "
			      "extents: mix presets, see below)"),
		RB_OPT_STR("sizes", &sizes, "SPEC",
			   "mix, vram, extents: request sizes, "
			   "uniform:LO..HI, loguniform:LO..HI, "
			   "lognormal:MEDIAN,SIGMA,MAX or list:S[:W],...[*K] "
			   "(see below)"),
		RB_OPT_STR("aligns", &aligns, "MIX",
			   "mix, vram, extents: alignments with weights, "
			   "A[:W],... e.g. 1:80,8:15,64:5 (default --align)"),
		RB_OPT_CHOICE("free-order", &forder, free_order_choices,
			      "mix, vram, extents: free a random live region "
			      "or the oldest (default random)"),
		RB_OPT_UINT("alloc-share", &share, 1, 99, "P",
			    "mix, vram, extents: run full instead of holding "
			    "--occupancy: each operation allocates with "
			    "probability P % (always when nothing is live), "
			    "else frees"),
		RB_OPT_STR("capacity", &caps, "LIST",
			   "comma list, e.g. 1e6,10^5,1000 (fill default "
			   "10^6..10, churn 10^6; --quick: 10^5..10)"),
		RB_OPT_STR("occupancy", &occ, "LIST",
			   "churn, aligned: fill to P% first, a comma list of "
			   "1..99 (default 90,95,99); mix, extents: hold P% "
			   "(default 90; extents 50)"),
		RB_OPT_UINT("iterations", &o->iterations, 1, 1000000000000000,
			    "N",
			    "churn: free+alloc iterations; mix, vram, extents: "
			    "operations (default 10^6; --quick: 20000)"),
		RB_OPT_UINT("align", &o->align, 1, 1UL << 30, "A",
			    "alignment of every region, a power of 2 (default "
			    "1: none)"),
		RB_OPT_UINT("boundary", &o->boundary, 1, 1UL << 62, "B",
			    "churn, aligned: allocate through "
			    "rg_region_alloc_request() with this boundary, a "
			    "power of 2 at least the largest size (default: "
			    "rg_region_alloc())"),
		RB_OPT_CHOICES("backends", &backends, bnames,
			       "comma list (default all in this build; the "
			       "peers of make bench-peers only when named)"),
		RB_OPT_CHOICES("policy", &policies, pnames,
			       "comma list of placement policies, each run on "
			       "the backends that offer it (default first)"),
		RB_OPT_FLAG("checked", &checked_frees,
			    "create every instance RG_REGION_CHECKED (frees "
			    "checked against a record of allocations)"),
		RB_OPT_NUM("budget", &o->budget_s, 0, 86400, "S",
			   "seconds per backend and capacity (default 30; "
			   "--quick: 2); a backend predicted to take longer is "
			   "skipped"),
		RB_OPT_END,
	};
	struct rb_opt replay_opts[] = {
		RB_OPT_CHOICES("backends", &backends, bnames,
			       "comma list (default all in this build; the "
			       "peers of make bench-peers only when named)"),
		RB_OPT_CHOICES("policy", &policies, pnames,
			       "comma list of placement policies, each run on "
			       "the backends that offer it (default first)"),
		RB_OPT_NUM("budget", &o->budget_s, 0, 86400, "S",
			   "seconds per backend (default 30; --quick: 2): no "
			   "new run starts after it"),
		RB_OPT_END,
	};
	struct rb_opt *opts = replay ? replay_opts : regions_opts;

	memset(o, 0, sizeof(*o));
	for (int b = 0; b < NLIB + npeers; b++)
		bnames[b] = bname(b);
	for (int p = 0; p < NP; p++)
		pnames[p] = rg_region_policy_name((enum rg_region_policy)p);
	rb_parse(ctx, opts, argc, argv);
	if (!rb_given(opts, "policy"))
		policies = 1UL << RG_REGION_FIRST_FIT;
	for (int p = 0; p < NP; p++) {
		o->pol[p] = policies >> p & 1;
		o->npol += o->pol[p];
	}
	for (int p = NP - 1; p >= 0; p--)
		if (o->pol[p])
			peer_policy = (enum rg_region_policy)p;
	for (int b = 0; b < NLIB + npeers; b++) {
		bool in_build = b >= NLIB || rg_region_backend_available(
						     (enum rg_region_backend)b);

		/* Peers run only when named. */
		o->use[b] = rb_given(opts, "backends") ? backends >> b & 1 :
							 in_build && b < NLIB;
		if (o->use[b] && !in_build)
			rb_die("--backends: '%s' is not in this build",
			       bnames[b]);
	}
	o->workload = replay ? W_REPLAY : (enum workload)workload;
	if (!rb_given(opts, "iterations"))
		o->iterations = ctx->quick ? 20000 : 1000000;
	if (!rb_given(opts, "budget"))
		o->budget_s = ctx->quick ? 2 : 30;
	if (o->align & (o->align - 1))
		rb_die("--align: '%lu' is not a power of two in 1..%lu",
		       o->align, 1UL << 30);
	if ((o->boundary & (o->boundary - 1)) ||
	    (o->boundary && o->boundary < max_size_for(W_CHURN, ~0UL)))
		rb_die("--boundary: '%lu' is not a power of two of at least "
		       "%lu, the largest churn size",
		       o->boundary, max_size_for(W_CHURN, ~0UL));
	if (IS_MIX(o->workload))
		parse_mix(o, sizes, aligns,
			  rb_given(opts, "free-order") ? forder : -1, share,
			  occ != NULL);
	else if (sizes || aligns || rb_given(opts, "free-order") || share)
		rb_die("--sizes, --aligns, --free-order and --alloc-share "
		       "shape the workloads mix, vram and extents");
	if (IS_MIX(o->workload) && (o->mix.alloc_share || !occ)) {
		/* Running full (one row, occupancy 0), or the default. */
		o->occ[0] = o->mix.alloc_share	     ? 0 :
			    o->workload == W_EXTENTS ? 50 :
						       90;
		o->nocc = 1;
	} else if (occ) {
		o->nocc =
			rb_parse_uint_list("occupancy", occ, 1, 99, v, MAX_OCC);
		for (int i = 0; i < o->nocc; i++)
			o->occ[i] = (unsigned int)v[i];
	} else {
		o->occ[0] = 90;
		o->occ[1] = 95;
		o->occ[2] = 99;
		o->nocc = 3;
	}
	if (caps) {
		o->ncaps =
			rb_parse_uint_list("capacity", caps, 1,
					   1000000000000000, o->caps, MAX_CAPS);
	} else if (o->workload == W_VRAM || o->workload == W_EXTENTS) {
		o->caps[o->ncaps++] = 1UL << 21;
	} else if (o->workload == W_CHURN || o->workload == W_ALIGNED ||
		   o->workload == W_MIX) {
		o->caps[o->ncaps++] = ctx->quick ? 100000 : 1000000;
	} else if (o->workload != W_REPLAY) {
		for (unsigned long cap = ctx->quick ? 100000 : 1000000;
		     cap >= 10; cap /= 10)
			o->caps[o->ncaps++] = cap;
	}
}

/* The policies selected, as a comma list, for the table's parameters. */
static const char *policy_list(const struct opts *o)
{
	static char buf[64];

	buf[0] = 0;
	for (int p = 0; p < NP; p++)
		if (o->pol[p])
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 "%s%s", buf[0] ? "," : "",
				 rg_region_policy_name(
					 (enum rg_region_policy)p));
	return buf;
}

/* Note the selected backends that lack the current policy. */
static void note_lacking(struct rb_table *t, const struct opts *o)
{
	for (int b = 0; b < NLIB; b++)
		if (o->use[b] && !has_policy(b))
			rb_table_note(t, "%s does not offer %s fit: skipped",
				      bname(b),
				      rg_region_policy_name(cur_policy));
}

/* Rows of one policy's churn, and its failures at the first capacity. */
static void churn_rows(struct rb_table *t, const struct opts *o,
		       struct result res[NB][MAX_ROWS],
		       const unsigned long *sorted, int n,
		       unsigned long fails[MAX_OCC], bool done[MAX_OCC])
{
	int c0 = cap_index(sorted, n, o->caps[0]);

	for (int c = 0; c < o->ncaps; c++) {
		int ci = cap_index(sorted, n, o->caps[c]);

		for (int oi = 0; oi < o->nocc; oi++)
			for (int b = 0; b < NB; b++)
				if (res[b][ci * o->nocc + oi].done)
					add_row(t, o->workload, b,
						&res[b][ci * o->nocc + oi]);
	}
	for (int oi = 0; oi < o->nocc; oi++)
		for (int b = NLIB - 1; b >= 0; b--) {
			const struct result *r = &res[b][c0 * o->nocc + oi];

			if (!r->done || r->truncated)
				continue;
			fails[oi] = r->failures;
			done[oi] = true;
			break;
		}
}

static int run_regions(struct rb_ctx *ctx, int argc, char **argv)
{
	static struct result res[NB][MAX_ROWS];
	static unsigned long fails[NP][MAX_OCC];
	static bool fails_done[NP][MAX_OCC];
	unsigned long sorted[MAX_CAPS];
	struct rb_table *t;
	struct opts o;
	bool churn;
	int n;

	parse_opts(ctx, argc, argv, &o, false);
	churn = o.workload == W_CHURN || o.workload == W_ALIGNED ||
		IS_MIX(o.workload);
	/* Distinct capacities, ascending, for prediction. */
	memcpy(sorted, o.caps, sizeof(sorted));
	qsort(sorted, (size_t)o.ncaps, sizeof(sorted[0]), cmp_ul);
	n = 0;
	for (int i = 0; i < o.ncaps; i++)
		if (!n || sorted[n - 1] != sorted[i])
			sorted[n++] = sorted[i];
	t = rb_table_new("regions", cols, NCOLS);
	rb_table_param(t, "workload", "%s", workload_names[o.workload]);
	rb_table_param(t, "seed", "%" PRIu64, ctx->seed);
	rb_table_param(t, "runs", "%d", ctx->runs);
	if (o.workload == W_ALIGNED)
		rb_table_param(t, "align", "size");
	else if (IS_MIX(o.workload))
		rb_table_param(t, "align", "%s", o.mix.aligns_spec);
	else
		rb_table_param(t, "align", "%lu", o.align ? o.align : 1);
	rb_table_param(t, "policies", "%s", policy_list(&o));
	if (checked_frees)
		rb_table_param(t, "flags", "RG_REGION_CHECKED");
	if (IS_MIX(o.workload)) {
		rb_table_param(t, "operations", "%lu", o.iterations);
		rb_table_param(t, "sizes", "%s", o.mix.sizes_spec);
		rb_table_param(t, "free order", "%s",
			       o.mix.oldest ? "oldest first" : "random");
		if (o.mix.alloc_share)
			rb_table_param(t, "occupancy",
				       "running full: %lu %% allocations, "
				       "%lu %% frees",
				       o.mix.alloc_share,
				       100 - o.mix.alloc_share);
	} else if (churn) {
		rb_table_param(t, "iterations", "%lu", o.iterations);
		if (o.boundary)
			rb_table_param(t, "boundary",
				       "%lu (constrained "
				       "requests)",
				       o.boundary);
		rb_table_param(t, "sizes", "%s",
			       o.workload == W_ALIGNED ?
				       "powers of two 1..min(32, capacity/10)" :
				       "1..min(32, capacity/10)");
	} else {
		rb_table_param(t, "sizes", "1..min(%d, capacity/10)",
			       o.workload == W_BIG ? 4096 : 32);
	}
	for (int p = 0; p < NP; p++) {
		struct opts o2 = o;

		if (!o.pol[p])
			continue;
		cur_policy = (enum rg_region_policy)p;
		memset(res, 0, sizeof(res));
		note_lacking(t, &o);
		o2.ncaps = n;
		if (churn) {
			run_churn(ctx, &o2, res, sorted, t);
			churn_rows(t, &o, res, sorted, n, fails[p],
				   fails_done[p]);
			if (p == RG_REGION_FIRST_FIT)
				churn_ratios(t, res, &o2, sorted);
			peer_ratios(t, &o2, res, sorted, n);
			continue;
		}
		run_fill(ctx, &o2, res, sorted, t);
		/* Rows in the order the capacities were given. */
		for (int c = 0; c < o.ncaps; c++) {
			int ci = cap_index(sorted, n, o.caps[c]);

			if (c && o.caps[c] == o.caps[c - 1])
				continue;
			for (int b = 0; b < NB; b++)
				if (res[b][ci].done)
					add_row(t, o.workload, b, &res[b][ci]);
		}
		if (p == RG_REGION_FIRST_FIT)
			fill_ratios(t, res, sorted, n);
		peer_ratios(t, &o2, res, sorted, n);
	}
	peer_legend(t, &o);
	if (IS_MIX(o.workload))
		rb_table_note(t, "Operations are timed in batches of 64 in "
				 "their order; a free's victim is a region "
				 "live before its batch.");
	else if (churn)
		rb_table_note(t, "Churn times frees and allocations in "
				 "alternating batches of min(64, live/100) "
				 "calls; the timer is read twice per batch.");
	else if (o.workload == W_FILL && o.pol[RG_REGION_FIRST_FIT])
		rb_table_note(t,
			      "The kernel's 2026 region-allocation benchmark "
			      "(x86/kvm, 10^6 units, about "
			      "60,600 regions): bitmap 179.6 ms alloc / 0.34 "
			      "ms free / 125,000 B; IDA 46.6 / 33.9 ms / "
			      "134,864 B (estimate); maple 18.6 / 19.7 ms / "
			      "1,548,304 B (estimate, leaves only).");
	rb_table_print(t, ctx);
	plot_regions(ctx, t, &o);
	if (churn)
		plot_failures(ctx, &o, fails, fails_done);
	rb_table_free(t);
	if (mismatches) {
		fprintf(stderr,
			"regionbench regions: %d MISMATCH(ES) between "
			"backends of one policy: see above\n",
			mismatches);
		return 1;
	}
	return 0;
}

static const char regions_help[] =
	"Shaped workloads (--workload mix, vram, extents): one stream of "
	"operations,\n"
	"each an allocation or a free, with these options:\n"
	"  --sizes uniform:LO..HI       sizes uniform in LO..HI\n"
	"  --sizes loguniform:LO..HI    log-uniform in LO..HI (as many of "
	"1..2 as of\n"
	"                               1000..2000)\n"
	"  --sizes lognormal:M,S,MAX    lognormal with median M and sigma S, "
	"rounded,\n"
	"                               at most MAX\n"
	"  --sizes list:S[:W],...[*K]   one of the listed sizes (weight W, "
	"default 1),\n"
	"                               times a uniform 1..K when *K is "
	"given\n"
	"  --aligns A[:W],...           alignments (powers of 2) with "
	"weights\n"
	"  --free-order random|oldest   free a random live region or the "
	"oldest\n"
	"  --occupancy P                hold P % of the units: fill to P % "
	"untimed, then\n"
	"                               allocate below it and free at or "
	"above it\n"
	"  --alloc-share P              run full instead: from empty, each "
	"operation\n"
	"                               allocates with probability P %, else "
	"frees\n"
	"Sizes above the capacity are cut to it. Failed allocations count as "
	"operations;\n"
	"ns/op is the median over --runs of each run's time per operation.\n"
	"Presets (any of the options above overrides its part):\n"
	"  mix      uniform:1..32, --align (default 1), random, 90 %, 10^6 "
	"units\n"
	"  vram     list:1,4,16,64,256,1024,4096*4, aligns 1:1,16:1,512:1, "
	"random,\n"
	"           running full with 55 % allocations, 2^21 units (8 GiB "
	"of 4 KiB pages)\n"
	"  extents  lognormal:16,2.2,65536, aligns 1:80,8:15,64:5, oldest "
	"first,\n"
	"           50 %, 2^21 units\n"
	"scripts/instructions.sh WORKLOAD BACKEND POLICY counts instructions "
	"per\n"
	"operation with callgrind (e.g. scripts/instructions.sh vram hbitmap "
	"best).\n";

RB_COMMAND_ARGS(regions, "regions",
		"region allocation: bitmap vs ida vs maple vs hbitmap",
		run_regions, NULL, regions_help);

/* ---- replay ---- */

enum { OP_ALLOC, OP_RESERVE, OP_FREE };

struct rop {
	unsigned char kind;
	unsigned long id; /* the allocation this operation makes or frees */
};

/* One allocation (an alloc or reserve line), by ID. */
struct ralloc {
	unsigned long size, align, fixed; /* fixed: reserve's START */
	bool freed; /* a free line names it */
};

struct rtrace {
	unsigned long capacity, nops, nallocs, cap_ops, cap_ids;
	struct rop *ops;
	struct ralloc *a;
};

#define REPLAY_MAX_CAPACITY (1UL << 40)

static const char replay_help[] =
	"Trace format (text, one operation per line; '#' starts a comment):\n"
	"  capacity C            first: units the instance manages, "
	"1..2^40\n"
	"  alloc N [align A]     N units (1..C), placed by --policy (first: "
	"lowest fit);\n"
	"                        the start a multiple of A (a power of 2; "
	"default 1)\n"
	"  reserve START N       exactly units START..START+N-1 (a fixed "
	"placement)\n"
	"  free ID               free allocation ID; alloc and reserve lines "
	"are\n"
	"                        numbered from 0 in trace order\n"
	"FILE '-' reads the trace from standard input.\n\n"
	"Parsing is strict: an unknown word, a missing or extra token, a "
	"number that\n"
	"is not a whole number (such as -3 or 5x), a size of 0 or above C, an "
	"align\n"
	"that is not a power of 2, a reserve past C, a free of an ID not yet\n"
	"allocated, a second free of an ID, or a capacity line that is not "
	"first\n"
	"is an error naming FILE:LINE (exit status 2); nothing is run.\n"
	"While replaying, an alloc or reserve that fails is counted under "
	"failures\n"
	"(a false failure if a fitting free run existed) and a later free of "
	"it is\n"
	"skipped and counted. Every backend must place every region alike "
	"under one\n"
	"policy; a mismatch is reported and the exit status is 1.\n";

static void trace_push(struct rtrace *tr, unsigned char kind, unsigned long id)
{
	if (tr->nops == tr->cap_ops) {
		tr->cap_ops = tr->cap_ops ? 2 * tr->cap_ops : 1024;
		tr->ops = realloc(tr->ops, tr->cap_ops * sizeof(*tr->ops));
		if (!tr->ops)
			rb_die("out of memory");
	}
	tr->ops[tr->nops++] = (struct rop){ kind, id };
}

static struct ralloc *trace_new_alloc(struct rtrace *tr)
{
	if (tr->nallocs == tr->cap_ids) {
		tr->cap_ids = tr->cap_ids ? 2 * tr->cap_ids : 1024;
		tr->a = realloc(tr->a, tr->cap_ids * sizeof(*tr->a));
		if (!tr->a)
			rb_die("out of memory");
	}
	tr->a[tr->nallocs] = (struct ralloc){ 0 };
	return &tr->a[tr->nallocs++];
}

/* Parse one line's tokens; NULL, or the reason it is wrong. */
static const char *trace_line(struct rtrace *tr, char **tok, int ntok)
{
	unsigned long v[3] = { 0 };
	struct ralloc *a;

	/* Every token after the first is a number, but alloc's "align". */
	for (int i = 1; i < ntok && i < 4; i++)
		if ((i != 2 || strcmp(tok[0], "alloc")) &&
		    !rb_parse_uint(tok[i], &v[i - 1]))
			return "expected a whole number (0, 1, 2, ...)";
	if (!strcmp(tok[0], "capacity")) {
		if (ntok != 2)
			return "expected 'capacity C'";
		if (tr->capacity)
			return "a second capacity line";
		if (!v[0] || v[0] > REPLAY_MAX_CAPACITY)
			return "the capacity must be 1..2^40";
		tr->capacity = v[0];
		return NULL;
	}
	if (!tr->capacity)
		return "the first operation must be 'capacity C'";
	if (!strcmp(tok[0], "alloc")) {
		if (ntok != 2 && (ntok != 4 || strcmp(tok[2], "align")))
			return "expected 'alloc N' or 'alloc N align A'";
		if (!v[0] || v[0] > tr->capacity)
			return "the size must be 1..capacity";
		if (ntok == 4 && (!v[2] || (v[2] & (v[2] - 1))))
			return "the align must be a power of 2";
		a = trace_new_alloc(tr);
		a->size = v[0];
		a->align = ntok == 4 ? v[2] : 1;
		a->fixed = ~0UL;
		trace_push(tr, OP_ALLOC, tr->nallocs - 1);
	} else if (!strcmp(tok[0], "reserve")) {
		if (ntok != 3)
			return "expected 'reserve START N'";
		if (!v[1] || v[0] >= tr->capacity || v[1] > tr->capacity - v[0])
			return "the range START..START+N-1 must lie in "
			       "0..capacity-1, N >= 1";
		a = trace_new_alloc(tr);
		a->size = v[1];
		a->align = 1;
		a->fixed = v[0];
		trace_push(tr, OP_RESERVE, tr->nallocs - 1);
	} else if (!strcmp(tok[0], "free")) {
		if (ntok != 2)
			return "expected 'free ID'";
		if (v[0] >= tr->nallocs)
			return "free of an ID not allocated yet";
		if (tr->a[v[0]].freed)
			return "a second free of this ID";
		tr->a[v[0]].freed = true;
		trace_push(tr, OP_FREE, v[0]);
	} else {
		return "unknown operation (capacity, alloc, reserve or free)";
	}
	return NULL;
}

/* Read and check a whole trace; exits 2 naming FILE:LINE on bad input. */
static void read_trace(const char *path, struct rtrace *tr)
{
	bool std = !strcmp(path, "-");
	const char *name = std ? "<stdin>" : path;
	FILE *f = std ? stdin : fopen(path, "r");
	char *line = NULL;
	size_t len = 0;
	unsigned long lineno = 0;

	memset(tr, 0, sizeof(*tr));
	if (!f)
		rb_die("replay: %s: %s", path, strerror(errno));
	while (getline(&line, &len, f) >= 0) {
		char *tok[5], *save = NULL, *hash = strchr(line, '#');
		const char *why;
		int ntok = 0;

		lineno++;
		if (hash)
			*hash = 0;
		for (char *t = strtok_r(line, " \t\r\n", &save); t;
		     t = strtok_r(NULL, " \t\r\n", &save))
			if (ntok < 5)
				tok[ntok++] = t;
			else
				ntok = 6;
		if (!ntok)
			continue;
		why = ntok > 5 ? "too many tokens" : trace_line(tr, tok, ntok);
		if (why)
			rb_die("replay: %s:%lu: %s (see regionbench replay "
			       "--help)",
			       name, lineno, why);
	}
	if (ferror(f))
		rb_die("replay: %s: %s", name, strerror(errno));
	free(line);
	if (!std)
		fclose(f);
	if (!tr->capacity)
		rb_die("replay: %s: no 'capacity C' line", name);
}

/* Median cost of one rb_now_ns() pair, subtracted per timed group. */
static double timer_overhead(void)
{
	double v[101];

	for (int i = 0; i < 101; i++) {
		uint64_t a = rb_now_ns();

		v[i] = (double)(rb_now_ns() - a);
	}
	return rb_median(v, 101);
}

static void replay_run(int b, const struct rtrace *tr, double overhead,
		       struct result *res, double *ta_out, double *tf_out,
		       unsigned long *nalloc, unsigned long *nfree,
		       unsigned long *skipped)
{
	struct ba r = xcreate(b, tr->capacity);
	unsigned long *start = rb_xcalloc(tr->nallocs, sizeof(*start));
	unsigned long *hd = rb_xcalloc(tr->nallocs, sizeof(*hd));
	unsigned long *mirror = rg_bitmap_zalloc(tr->capacity);
	unsigned long *freed = rb_xcalloc(tr->nops, sizeof(*freed));
	unsigned long i = 0, cap = tr->capacity;
	double ta = 0, tf = 0;
	uint64_t h = 0;

	if (!mirror)
		exit(2);
	*nalloc = *nfree = *skipped = 0;
	res->failures = res->false_failures = 0;
	while (i < tr->nops) {
		bool allocs = tr->ops[i].kind != OP_FREE;
		unsigned long j = i;
		uint64_t t0, t1;

		/* A maximal group of allocations (or of frees), timed. */
		while (j < tr->nops && (tr->ops[j].kind != OP_FREE) == allocs)
			j++;
		t0 = rb_now_ns();
		if (allocs) {
			for (unsigned long k = i; k < j; k++) {
				unsigned long id = tr->ops[k].id;
				const struct ralloc *a = &tr->a[id];

				if (tr->ops[k].kind == OP_RESERVE) {
					start[id] = a->fixed;
					/* peers: no fixed placement */
					if (r.peer ||
					    rg_region_reserve(r.r, a->fixed,
							      a->size))
						start[id] = ~0UL;
				} else if (ba_alloc(&r, a->size, a->align,
						    &start[id], &hd[id])) {
					start[id] = ~0UL;
				}
			}
		} else {
			for (unsigned long k = i; k < j; k++) {
				unsigned long id = tr->ops[k].id;

				freed[k - i] = start[id];
				if (start[id] == ~0UL)
					continue;
				if (ba_free(&r, start[id], tr->a[id].size,
					    hd[id])) {
					fprintf(stderr,
						"regionbench replay: %s "
						"refused to free allocation "
						"%lu\n",
						bname(b), id);
					exit(1);
				}
				start[id] = ~0UL;
			}
		}
		t1 = rb_now_ns();
		if (allocs) {
			ta += (double)(t1 - t0) - overhead;
			*nalloc += j - i;
			for (unsigned long k = i; k < j; k++) {
				unsigned long id = tr->ops[k].id;
				const struct ralloc *a = &tr->a[id];

				if (start[id] == ~0UL) {
					res->failures++;
					if (tr->ops[k].kind == OP_RESERVE)
						res->false_failures +=
							rg_bitmap_range_is_clear(
								mirror,
								a->fixed,
								a->size);
					else
						res->false_failures +=
							rg_bitmap_find_next_zero_area(
								mirror, cap, 0,
								a->size,
								a->align - 1) <
							cap;
					h = hash_step(h, ~0UL);
					continue;
				}
				if (start[id] > cap - a->size ||
				    !rg_bitmap_range_is_clear(mirror, start[id],
							      a->size) ||
				    start[id] % a->align) {
					fprintf(stderr,
						"regionbench replay: bad "
						"placement of allocation %lu\n",
						id);
					exit(1);
				}
				rg_bitmap_set_range(mirror, start[id], a->size);
				h = hash_step(h, start[id]);
			}
		} else {
			tf += (double)(t1 - t0) - overhead;
			for (unsigned long k = i; k < j; k++) {
				if (freed[k - i] == ~0UL) {
					(*skipped)++;
					continue;
				}
				(*nfree)++;
				rg_bitmap_clear_range(
					mirror, freed[k - i],
					tr->a[tr->ops[k].id].size);
			}
		}
		i = j;
	}
	res->peak_bytes = peak_bytes(&r);
	res->hash = h;
	res->regions = *nalloc - res->failures;
	*ta_out = ta < 0 ? 0 : ta;
	*tf_out = tf < 0 ? 0 : tf;
	rg_bitmap_free(mirror);
	free(freed);
	free(start);
	ba_destroy(&r);
	free(hd);
}

/* ---- the replay for other subcommands (replay.h) ---- */

struct rtrace *rb_trace_load(const char *path)
{
	struct rtrace *tr = rb_xcalloc(1, sizeof(*tr));

	read_trace(path, tr);
	return tr;
}

void rb_trace_unload(struct rtrace *tr)
{
	if (!tr)
		return;
	free(tr->ops);
	free(tr->a);
	free(tr);
}

unsigned long rb_trace_capacity(const struct rtrace *tr)
{
	return tr->capacity;
}

unsigned long rb_trace_ops(const struct rtrace *tr)
{
	return tr->nops;
}

double rb_replay_timer_overhead(void)
{
	return timer_overhead();
}

void rb_replay_once(const struct rtrace *tr, enum rg_region_backend backend,
		    enum rg_region_policy policy, double overhead,
		    struct rb_replay_run *out)
{
	struct result res = { 0 };

	cur_policy = policy;
	replay_run((int)backend, tr, overhead, &res, &out->alloc_ns,
		   &out->free_ns, &out->allocs, &out->frees, &out->skipped);
	out->failures = res.failures;
	out->false_failures = res.false_failures;
	out->peak_bytes = res.peak_bytes;
	out->hash = res.hash;
}

/* Replay @tr on backend @b with the current policy: one row. */
static void replay_backend(struct rb_ctx *ctx, const struct opts *o,
			   const struct rtrace *tr, double overhead, int b,
			   struct result res[NB], int *ref, double *va,
			   double *vf, struct rb_table *t)
{
	struct result *r = &res[b];
	unsigned long na = 0, nf = 0, skipped = 0;
	uint64_t begin = rb_now_ns();
	int runs = 0;

	if (!o->use[b] || !has_policy(b))
		return;
	if (b == RG_REGION_IDA && tr->capacity > (unsigned long)INT_MAX) {
		rb_table_note(t, "ida skipped: capacity above INT_MAX");
		return;
	}
	if (peer_skip(t, b, tr->capacity))
		return;
	while (runs < ctx->runs) {
		replay_run(b, tr, overhead, r, &va[runs], &vf[runs], &na, &nf,
			   &skipped);
		runs++;
		if ((double)(rb_now_ns() - begin) > o->budget_s * 1e9)
			break;
	}
	if (runs < ctx->runs)
		rb_table_note(t, "%s: time budget reached after %d of %d runs",
			      bname(b), runs, ctx->runs);
	r->capacity = tr->capacity;
	r->alloc_ms = rb_median(va, runs) / 1e6;
	r->free_ms = rb_median(vf, runs) / 1e6;
	r->alloc_ns = na ? r->alloc_ms * 1e6 / (double)na : 0;
	r->free_ns = nf ? r->free_ms * 1e6 / (double)nf : 0;
	r->done = true;
	add_row(t, W_REPLAY, b, r);
	if (peer_of(b)) {
		/* a peer places by its own rules */
	} else if (*ref < 0) {
		*ref = b;
		rb_table_note(t,
			      "%s fit: %lu allocations, %lu frees, %lu frees "
			      "skipped (their allocation had failed)",
			      rg_region_policy_name(cur_policy), na, nf,
			      skipped);
	} else if (r->hash != res[*ref].hash) {
		mismatches++;
		fprintf(stderr,
			"regionbench replay: MISMATCH: %s and %s placed "
			"different regions (%s fit)\n",
			bname(b), bname(*ref),
			rg_region_policy_name(cur_policy));
		rb_table_note(t, "MISMATCH: %s and %s differ (%s fit)",
			      bname(b), bname(*ref),
			      rg_region_policy_name(cur_policy));
	}
}

static int run_replay(struct rb_ctx *ctx, int argc, char **argv)
{
	static struct result res[NB], rows[NB][MAX_ROWS];
	struct rtrace tr;
	struct rb_table *t;
	struct opts o;
	double overhead, *va, *vf;
	int ref = -1;

	parse_opts(ctx, argc, argv, &o, true);
	if (ctx->nargs != 1)
		rb_die("replay: expected one trace FILE (or - for standard "
		       "input), got %d (see regionbench replay --help)",
		       ctx->nargs);
	read_trace(ctx->args[0], &tr);
	overhead = timer_overhead();
	va = rb_xcalloc((size_t)ctx->runs, sizeof(double));
	vf = rb_xcalloc((size_t)ctx->runs, sizeof(double));
	t = rb_table_new("replay", cols, NCOLS);
	rb_table_param(t, "trace", "%s", ctx->args[0]);
	rb_table_param(t, "operations", "%lu", tr.nops);
	rb_table_param(t, "runs", "%d", ctx->runs);
	rb_table_param(t, "policies", "%s", policy_list(&o));
	for (int p = 0; p < NP; p++) {
		if (!o.pol[p])
			continue;
		cur_policy = (enum rg_region_policy)p;
		memset(res, 0, sizeof(res));
		note_lacking(t, &o);
		ref = -1;
		for (int b = 0; b < NB; b++)
			replay_backend(ctx, &o, &tr, overhead, b, res, &ref, va,
				       vf, t);
		for (int b = 0; b < NB; b++)
			rows[b][0] = res[b];
		peer_ratios(t, &o, rows, NULL, 1);
	}
	peer_legend(t, &o);
	rb_table_note(t,
		      "Replay times each maximal group of consecutive "
		      "allocs (or frees) and subtracts the timer's own "
		      "cost (%.0f ns per group).",
		      overhead);
	rb_table_print(t, ctx);
	plot_regions(ctx, t, &o);
	rb_table_free(t);
	free(tr.ops);
	free(tr.a);
	free(va);
	free(vf);
	return mismatches ? 1 : 0;
}

RB_COMMAND_ARGS(replay, "replay", "replay a region trace on every backend",
		run_replay, "FILE", replay_help);
