// SPDX-License-Identifier: MIT
/*
 * region: theory of operation.
 *
 * One front end over several backends. struct rg_region holds the ops table
 * of the chosen backend, its private state, the capacity, a count of free
 * units and the peak of bytes held. Every public call:
 *   1. takes the instance's mutex if it was created RG_REGION_LOCKED;
 *   2. checks its arguments (n = 0, n > capacity, a range past the capacity
 *      or overflowing, an alignment that is not a power of two) and returns
 *      -EINVAL before the backend sees anything (what depends on the
 *      capacity under the lock, as rg_region_resize() changes it);
 *   3. calls the backend, which either does the whole operation or returns
 *      an error having changed nothing (-ENOSPC, -ENOENT, -EBUSY, -ENOMEM);
 *   4. on success adjusts free_units and, for a backend whose memory
 *      varies and which keeps no peak of its own (ops->bytes_peak), samples
 *      bytes held for the peak.
 *
 * Alignment reaches the backends as a mask (align - 1), through r->alloc:
 * ops->alloc, or a path for the policy that the backend's init picked. The
 * placement policy is fixed at creation (bits of the flags; a backend lists the
 * policies it offers in its ops table, others get -EOPNOTSUPP) and each
 * backend's alloc places by r->policy, exactly as enum rg_region_policy
 * defines it, so every backend offering a policy gives the same answer.
 * Next fit's cursor (the end of the last allocation, 0 before the first)
 * lives here, in r->next, moved by the backends' next-fit paths
 * (rgi_next_fit_done), so other policies pay nothing for it; reserve, free
 * and resize do not move it. It is stored as the end itself, which may be
 * the capacity: a search reads it through rgi_next_fit_from(), which wraps
 * to 0 while it is at or past the capacity, so after a grow next fit goes
 * on from where the previous allocation ended. Units, not regions, are
 * tracked: a free of any fully allocated range succeeds, so no backend
 * stores region boundaries beyond what its structure has anyway.
 *
 * RG_REGION_CHECKED adds one record here, the same for every backend: a
 * bitmap of allocation starts (r->starts). Every successful alloc, request
 * and reserve sets the bit of its first unit; a free must find a set bit at
 * its start, no other set bit inside, and at its end a free unit, a set bit
 * or the capacity; the backend's own check (every unit allocated) does the
 * rest, and only then is the bit cleared. Checked instances take their
 * own hot paths (alloc_checked(), free_checked(): copies of the generic
 * ones with the record), so no other instance tests for it.
 *
 * Never allocates after creation except inside backends (maple and ida
 * nodes from slab caches; hbitmap and bitmap allocate only at creation).
 * free_units is checked against the backend by rg_region_validate().
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "region/bitmap.h"
#include "region_internal.h"

static const struct rgi_region_ops *const backends[RG_REGION_NR_BACKENDS] = {
	[RG_REGION_BITMAP] = &rgi_region_bitmap_ops,
	[RG_REGION_IDA] = &rgi_region_ida_ops,
	[RG_REGION_MAPLE] = &rgi_region_maple_ops,
	[RG_REGION_HBITMAP] = &rgi_region_hbitmap_ops,
	[RG_REGION_EXTENT] = &rgi_region_extent_ops,
};

static const char *const names[RG_REGION_NR_BACKENDS] = {
	[RG_REGION_BITMAP] = "bitmap",
	[RG_REGION_IDA] = "ida",
	[RG_REGION_MAPLE] = "maple",
	[RG_REGION_HBITMAP] = "hbitmap",
	/* one name a line */
	[RG_REGION_EXTENT] = "extent",
};

static const char *const policy_names[RG_REGION_NR_POLICIES] = {
	[RG_REGION_FIRST_FIT] = "first",
	[RG_REGION_BEST_FIT] = "best",
	[RG_REGION_TOP_DOWN] = "top",
	[RG_REGION_NEXT_FIT] = "next",
};

const char *rg_region_policy_name(enum rg_region_policy policy)
{
	if ((unsigned int)policy >= RG_REGION_NR_POLICIES)
		return NULL;
	return policy_names[policy];
}

int rg_region_policy_lookup(const char *name, enum rg_region_policy *policy)
{
	if (!name || !policy)
		return -EINVAL;
	for (unsigned int p = 0; p < RG_REGION_NR_POLICIES; p++) {
		if (!strcmp(name, policy_names[p])) {
			*policy = (enum rg_region_policy)p;
			return 0;
		}
	}
	return -ENOENT;
}

bool rg_region_backend_has_policy(enum rg_region_backend backend,
				  enum rg_region_policy policy)
{
	return rg_region_backend_available(backend) &&
	       (unsigned int)policy < RG_REGION_NR_POLICIES &&
	       (backends[backend]->policies & RGI_POLICY_BIT(policy));
}

const char *rg_region_backend_name(enum rg_region_backend backend)
{
	if ((unsigned int)backend >= RG_REGION_NR_BACKENDS)
		return NULL;
	return names[backend];
}

bool rg_region_backend_available(enum rg_region_backend backend)
{
	return (unsigned int)backend < RG_REGION_NR_BACKENDS;
}

int rg_region_backend_lookup(const char *name, enum rg_region_backend *backend)
{
	if (!name || !backend)
		return -EINVAL;
	for (unsigned int b = 0; b < RG_REGION_NR_BACKENDS; b++) {
		if (strcmp(name, names[b]))
			continue;
		*backend = (enum rg_region_backend)b;
		return 0;
	}
	return -EINVAL;
}

/* (a cached instance's caches are flushed: cached regions read as free) */
static inline void lock(struct rg_region *r)
{
	rgi_region_lock(r);
}

static inline void unlock(struct rg_region *r)
{
	if (unlikely(r->flags & RG_REGION_LOCKED))
		rgi_unlock(&r->lock);
}

/* Bytes of the RG_REGION_CHECKED record for @cap units. */
static inline size_t starts_bytes(unsigned long cap)
{
	return (cap / RG_BITS_PER_LONG + !!(cap % RG_BITS_PER_LONG)) *
	       sizeof(unsigned long);
}

static inline size_t bytes_held(struct rg_region *r)
{
	return sizeof(*r) + r->ops->bytes(r) +
	       (r->starts ? starts_bytes(r->capacity) : 0);
}

/* The peak of bytes held: sampled by the front end or kept by the backend. */
static size_t peak_held(struct rg_region *r)
{
	size_t b = bytes_held(r);

	if (r->ops->bytes_peak)
		b = RGI_MAX(
			b, sizeof(*r) + r->ops->bytes_peak(r) +
				   (r->starts ? starts_bytes(r->capacity) : 0));
	return RGI_MAX(r->bytes_peak, b);
}

/* After a successful mutation of a backend whose bytes vary. */
static inline void sample_peak(struct rg_region *r)
{
	size_t b = bytes_held(r);

	if (b > r->bytes_peak)
		r->bytes_peak = b;
}

/* The hot calls' generic paths (below), for backends without their own. */
static int alloc_backend(struct rg_region *r, unsigned long n,
			 unsigned long mask, unsigned long *start);
static int free_backend(struct rg_region *r, unsigned long start,
			unsigned long n);
/* The same for RG_REGION_CHECKED instances. */
static int alloc_checked(struct rg_region *r, unsigned long n,
			 unsigned long mask, unsigned long *start);
static int free_checked(struct rg_region *r, unsigned long start,
			unsigned long n);

static int alloc_locked(struct rg_region *r, unsigned long n,
			unsigned long align, unsigned long *start);
static int free_locked(struct rg_region *r, unsigned long start,
		       unsigned long n);

struct rg_region *rg_region_create_backend(enum rg_region_backend backend,
					   unsigned long capacity,
					   unsigned int flags)
{
	const struct rgi_region_ops *ops;
	unsigned int policy =
		(flags & RG_REGION_POLICY_MASK) >> RG_REGION_POLICY_SHIFT;
	struct rg_region *r;
	int err;

	if ((unsigned int)backend >= RG_REGION_NR_BACKENDS || !capacity ||
	    (flags & ~(RG_REGION_LOCKED | RG_REGION_CACHED | RG_REGION_CHECKED |
		       RG_REGION_POLICY_MASK)) ||
	    policy >= RG_REGION_NR_POLICIES) {
		errno = EINVAL;
		return NULL;
	}
	ops = backends[backend];
	if (!(ops->policies & RGI_POLICY_BIT(policy))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (capacity > ops->max_capacity) {
		errno = EINVAL;
		return NULL;
	}
	r = rgi_calloc(1, sizeof(*r));
	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	if (flags & RG_REGION_CACHED) /* thread-safe: every call locks */
		flags |= RG_REGION_LOCKED;
	r->ops = ops;
	r->backend = backend;
	r->flags = flags;
	r->policy = (enum rg_region_policy)policy;
	r->bytes_vary = ops->bytes_vary;
	r->alloc = ops->alloc;
	r->capacity = capacity;
	r->free_units = capacity;
	if (flags & RG_REGION_CHECKED) {
		r->starts = rgi_calloc(1, starts_bytes(capacity));
		if (!r->starts) {
			rgi_free(r);
			errno = ENOMEM;
			return NULL;
		}
	}
	if (flags & RG_REGION_LOCKED) {
		err = rgi_lock_init(&r->lock);
		if (err) {
			rgi_free(r->starts);
			rgi_free(r);
			errno = err;
			return NULL;
		}
	}
	err = ops->init(r);
	if (err) {
		if (flags & RG_REGION_LOCKED)
			rgi_lock_fini(&r->lock);
		rgi_free(r->starts);
		rgi_free(r);
		errno = -err;
		return NULL;
	}
	if (!r->alloc_hot) /* so the hot calls need not test for them */
		r->alloc_hot = alloc_backend;
	if (!r->free_hot)
		r->free_hot = free_backend;
	if (r->starts) { /* the record's own paths, on every backend */
		r->alloc_hot = alloc_checked;
		r->free_hot = free_checked;
	}
#ifdef RGI_EXPENSIVE_CHECKS
	if (!r->starts) { /* the generic path checks after every call */
		r->alloc_hot = alloc_backend;
		r->free_hot = free_backend;
	}
#endif
	if (flags & RG_REGION_CACHED) {
		err = rgi_rcache_init(r);
		if (err) {
			r->ops->fini(r);
			rgi_free(r->starts);
			rgi_free(r);
			errno = -err;
			return NULL;
		}
	}
	r->alloc_lk = r->rc ? rgi_rcache_alloc : alloc_locked;
	r->free_lk = r->rc ? rgi_rcache_free : free_locked;
	r->bytes_peak = bytes_held(r);
	return r;
}

struct rg_region *rg_region_create(const char *backend, unsigned long capacity,
				   unsigned int flags)
{
	enum rg_region_backend b;
	int err = rg_region_backend_lookup(backend, &b);

	if (err) {
		errno = -err;
		return NULL;
	}
	return rg_region_create_backend(b, capacity, flags);
}

void rg_region_destroy(struct rg_region *r)
{
	if (!r)
		return;
	if (r->rc)
		rgi_rcache_fini(r);
	r->ops->fini(r);
	if (r->flags & RG_REGION_LOCKED)
		rgi_lock_fini(&r->lock);
	rgi_free(r->starts);
	rgi_free(r);
}

/*
 * The RG_REGION_CHECKED record against the backend (lock held): every used
 * run starts with a set bit and no bit lies on a free unit. NULL if so.
 */
static const char *starts_inconsistency(struct rg_region *r)
{
	unsigned long from = 0, s, n, inside = 0;

	while (from < r->capacity &&
	       r->ops->next_run(r, from, true, &s, &n) == 0) {
		if (!rg_bitmap_test(r->starts, s))
			return "checked: an allocated run has no start bit";
		for (unsigned long b = s; b < s + n;
		     b = rg_bitmap_find_next_bit(r->starts, s + n, b + 1))
			inside++;
		from = s + n;
	}
	if (rg_bitmap_weight(r->starts, r->capacity) != inside)
		return "checked: a start bit on a free unit";
	return NULL;
}

/* True if [start, start + n) is a non-empty range inside the capacity. */
/*
 * What is wrong with the instance, or NULL if nothing (lock held): the
 * front end's counts against the backend's own check. rg_region_validate()
 * reports it; builds with expensive checks assert it after every mutation.
 */
static const char *inconsistency(struct rg_region *r)
{
	const char *why = NULL;
	unsigned long used = 0;

	if (!r->ops || r->ops != backends[r->backend])
		return "ops table does not match the backend";
	if (r->free_units > r->capacity)
		return "more free units than the capacity";
	if (r->ops->validate(r, &used, &why) != 0)
		return why ? why : "backend structure is invalid";
	if (used != r->capacity - r->free_units)
		return "free-unit count disagrees with the backend";
	return r->starts ? starts_inconsistency(r) : NULL;
}

static inline bool range_ok(struct rg_region *r, unsigned long start,
			    unsigned long n)
{
	/* (n - 1 wraps for n == 0: one test for n >= 1 and the end) */
	return r && start < r->capacity && n - 1 < r->capacity - start;
}

/*
 * End of a mutation (lock held): on success the free count becomes @free
 * and the peak of bytes held is sampled; then unlock.
 */
static inline int mutation_done(struct rg_region *r, int err,
				unsigned long free)
{
	if (likely(!err)) {
		r->free_units = free;
		if (r->bytes_vary)
			sample_peak(r);
		RGI_EXPENSIVE_ASSERT(!inconsistency(r));
	}
	unlock(r);
	return err;
}

/*
 * The hot calls, alloc and free, in two halves: an inline body that does
 * the work unlocked, and a locked variant out of line, so an instance
 * without RG_REGION_LOCKED pays one test for the lock and no spills. The
 * body ends in a tail call of r->alloc_hot (r->free_hot), the backend's
 * own path or the generic one below, which does the rest, counters
 * included (not in builds with expensive checks, which take the generic
 * path and check the instance after every call).
 */
/*
 * The backend's r->alloc, then the counters (and with @checked the start
 * bit): alloc_body() past its checks. Two copies, so that an unchecked
 * instance's path has no test for the record.
 */
static RGI_ALWAYS_INLINE int alloc_generic(struct rg_region *r, unsigned long n,
					   unsigned long mask,
					   unsigned long *start, bool checked)
{
	unsigned long s;
	int err = r->alloc(r, n, mask, &s);

	if (unlikely(err))
		return err;
	RGI_DEBUG_ASSERT(s < r->capacity && n <= r->capacity - s);
	*start = s;
	r->free_units -= n;
	if (checked)
		rg_bitmap_set(r->starts, s);
	if (r->bytes_vary)
		sample_peak(r);
	RGI_EXPENSIVE_ASSERT(!inconsistency(r));
	return 0;
}

static RGI_NOINLINE int alloc_backend(struct rg_region *r, unsigned long n,
				      unsigned long mask, unsigned long *start)
{
	return alloc_generic(r, n, mask, start, false);
}

static RGI_NOINLINE int alloc_checked(struct rg_region *r, unsigned long n,
				      unsigned long mask, unsigned long *start)
{
	return alloc_generic(r, n, mask, start, true);
}

/* (region_internal.h: the body the caches share) */
static inline int alloc_body(struct rg_region *r, unsigned long n,
			     unsigned long align, unsigned long *start)
{
	return rgi_region_alloc_body(r, n, align, start);
}

static RGI_NOINLINE int alloc_locked(struct rg_region *r, unsigned long n,
				     unsigned long align, unsigned long *start)
{
	int err;

	rgi_lock(&r->lock);
	err = alloc_body(r, n, align, start);
	rgi_unlock(&r->lock);
	return err;
}

int rg_region_alloc(struct rg_region *r, unsigned long n, unsigned long align,
		    unsigned long *start)
{
	if (unlikely(!r || (align & (align - 1)) || !start))
		return -EINVAL; /* (n == 0: in alloc_body()) */
	if (unlikely(r->flags & RG_REGION_LOCKED))
		return r->alloc_lk(r, n, align, start);
	return alloc_body(r, n, align, start);
}

/*
 * RG_REGION_CHECKED: is [start, start + n) (in range) exactly one
 * allocation, as far as the start bits tell? 0, -ENOENT if unit @start is
 * free, -EINVAL otherwise. The backend's free checks that every unit of
 * it is allocated.
 */
static int checked_free_check(struct rg_region *r, unsigned long start,
			      unsigned long n)
{
	unsigned long end = start + n;

	if (!rg_bitmap_test(r->starts, start))
		return r->ops->test(r, start) ? -EINVAL : -ENOENT;
	if (n > 1 && rg_bitmap_find_next_bit(r->starts, end, start + 1) < end)
		return -EINVAL;
	if (end < r->capacity && !rg_bitmap_test(r->starts, end) &&
	    r->ops->test(r, end))
		return -EINVAL;
	return 0;
}

/*
 * The backend's free, then the counters (and with @checked the record's
 * check first and its bit after): free_body() past its checks; two
 * copies, as for alloc.
 */
static RGI_ALWAYS_INLINE int free_generic(struct rg_region *r,
					  unsigned long start, unsigned long n,
					  bool checked)
{
	int err;

	if (checked) {
		err = checked_free_check(r, start, n);
		if (err)
			return err;
	}
	err = r->ops->free(r, start, n);
	if (unlikely(err))
		/* checked: a free unit inside, so not the allocation's size */
		return checked && err == -ENOENT ? -EINVAL : err;
	if (checked)
		rg_bitmap_clear(r->starts, start);
	r->free_units += n;
	if (r->bytes_vary)
		sample_peak(r);
	RGI_EXPENSIVE_ASSERT(!inconsistency(r));
	return 0;
}

static RGI_NOINLINE int free_backend(struct rg_region *r, unsigned long start,
				     unsigned long n)
{
	return free_generic(r, start, n, false);
}

static RGI_NOINLINE int free_checked(struct rg_region *r, unsigned long start,
				     unsigned long n)
{
	return free_generic(r, start, n, true);
}

static inline int free_body(struct rg_region *r, unsigned long start,
			    unsigned long n)
{
	return rgi_region_free_body(r, start, n);
}

static RGI_NOINLINE int free_locked(struct rg_region *r, unsigned long start,
				    unsigned long n)
{
	int err;

	rgi_lock(&r->lock);
	err = free_body(r, start, n);
	rgi_unlock(&r->lock);
	return err;
}

int rg_region_free(struct rg_region *r, unsigned long start, unsigned long n)
{
	if (unlikely(!r))
		return -EINVAL;
	if (unlikely(r->flags & RG_REGION_LOCKED))
		return r->free_lk(r, start, n);
	return free_body(r, start, n);
}

int rg_region_reserve(struct rg_region *r, unsigned long start, unsigned long n)
{
	int err;

	if (unlikely(!r))
		return -EINVAL;
	lock(r);
	err = unlikely(!range_ok(r, start, n)) ? -EINVAL :
	      n > r->free_units		       ? -EBUSY :
						 r->ops->reserve(r, start, n);
	if (!err && r->starts)
		rg_bitmap_set(r->starts, start);
	return mutation_done(r, err, r->free_units - n);
}

int rg_region_test(struct rg_region *r, unsigned long unit)
{
	int ret;

	if (unlikely(!r))
		return -EINVAL;
	lock(r);
	ret = unit < r->capacity ? r->ops->test(r, unit) : -EINVAL;
	unlock(r);
	return ret;
}

/*
 * rg_region_get_stats() has two versions. 0.1.0's struct rg_region_stats
 * ended at bytes_held_peak: programs linked against 0.1.0 pass that
 * smaller struct to rg_region_get_stats@LIBREGION_0.1, which fills only
 * those fields. 0.2 appended the free-run figures; programs built since
 * link rg_region_get_stats@@LIBREGION_0.2, the default (and the only one a
 * static link sees). Neither internal name is exported (the version
 * script keeps rgi_* local).
 */
static int get_stats(struct rg_region *r, struct rg_region_stats *st, bool runs)
{
	if (!r || !st)
		return -EINVAL;
	lock(r);
	st->backend = r->backend;
	st->capacity = r->capacity;
	st->free_units = r->free_units;
	st->largest_free_run = r->free_units ? r->ops->largest_free(r) : 0;
	st->bytes_held = bytes_held(r);
	st->bytes_held_peak = peak_held(r);
	if (runs)
		rgi_region_free_run_stats(r, st);
	unlock(r);
	return 0;
}

RG_API int rgi_region_get_stats_v02(struct rg_region *r,
				    struct rg_region_stats *st);
int rgi_region_get_stats_v02(struct rg_region *r, struct rg_region_stats *st)
{
	return get_stats(r, st, true);
}
__asm__(".symver rgi_region_get_stats_v02, rg_region_get_stats@@LIBREGION_0.2");

/* struct rg_region_stats as 0.1.0 had it. */
struct rgi_region_stats_v01 {
	enum rg_region_backend backend;
	unsigned long capacity;
	unsigned long free_units;
	unsigned long largest_free_run;
	size_t bytes_held;
	size_t bytes_held_peak;
};
_Static_assert(sizeof(struct rgi_region_stats_v01) ==
		       offsetof(struct rg_region_stats, free_runs),
	       "0.1.0's stats are a prefix of today's");

RG_API int rgi_region_get_stats_v01(struct rg_region *r,
				    struct rgi_region_stats_v01 *st);
int rgi_region_get_stats_v01(struct rg_region *r,
			     struct rgi_region_stats_v01 *st)
{
	struct rg_region_stats full;
	int err;

	if (!st)
		return -EINVAL;
	err = get_stats(r, &full, false);
	if (!err)
		memcpy(st, &full, sizeof(*st));
	return err;
}
__asm__(".symver rgi_region_get_stats_v01, rg_region_get_stats@LIBREGION_0.1");

int rg_region_validate(struct rg_region *r, const char **reason)
{
	const char *why;

	if (!r) {
		if (reason)
			*reason = "NULL region";
		return -EINVAL;
	}
	lock(r);
	why = inconsistency(r);
	if (!why && r->rc)
		why = rgi_rcache_check(r);
	unlock(r);
	if (reason)
		*reason = why;
	return why ? -EINVAL : 0;
}

void rg_region_dump(struct rg_region *r, FILE *f)
{
	if (!r || !f)
		return;
	lock(r);
	fprintf(f,
		"region backend=%s policy=%s capacity=%lu free=%lu bytes=%zu "
		"peak=%zu\n",
		names[r->backend], policy_names[r->policy], r->capacity,
		r->free_units, bytes_held(r), peak_held(r));
	r->ops->dump(r, f);
	unlock(r);
}

/*
 * Constrained allocation and resize. rg_region_alloc_request() checks the
 * request, turns it into a struct rgi_req (alignment and boundary as
 * masks, RG_REGION_END and the instance policy resolved) and calls the
 * backend's alloc_req for first, best or top. Next fit is built here from
 * first fit: the window from the cursor (or lo, if higher) to hi, then,
 * once, the whole window; the cursor moves as for rg_region_alloc(). So a
 * backend that answers first fit answers next fit too.
 */
static inline bool pow2(unsigned long x)
{
	return x && !(x & (x - 1));
}

int rg_region_alloc_request(struct rg_region *r,
			    const struct rg_region_request *req,
			    unsigned long *start)
{
	struct rgi_req q;
	unsigned long s, from, cap;
	int policy, err;

	if (unlikely(!r || !req || !start || !req->n ||
		     (req->align & (req->align - 1)) ||
		     (req->boundary &&
		      (!pow2(req->boundary) || req->boundary < req->n))))
		return -EINVAL;
	policy = req->policy;
	if (policy != RG_REGION_INSTANCE_POLICY &&
	    (policy < 0 || policy >= RG_REGION_NR_POLICIES))
		return -EINVAL;
	lock(r);
	/* (under the lock: rg_region_resize() may change the capacity) */
	cap = r->capacity;
	q.hi = req->hi == RG_REGION_END ? cap - 1 : req->hi;
	if (req->n > cap || req->lo >= cap || q.hi < req->lo || q.hi >= cap) {
		unlock(r);
		return -EINVAL;
	}
	q.n = req->n;
	q.mask = req->align ? req->align - 1 : 0;
	q.lo = req->lo;
	/* a boundary at or past the capacity cannot be crossed: none */
	q.bmask = req->boundary && req->boundary < cap ? req->boundary - 1 : 0;
	if (policy == RG_REGION_INSTANCE_POLICY)
		policy = (int)r->policy;
	q.policy = policy == RG_REGION_NEXT_FIT ? RG_REGION_FIRST_FIT :
						  (enum rg_region_policy)policy;
	if (!(r->ops->req_policies & RGI_POLICY_BIT(q.policy))) {
		unlock(r);
		return -EOPNOTSUPP;
	}
	if (q.n > r->free_units || q.n - 1 > q.hi - q.lo) {
		unlock(r);
		return -ENOSPC;
	}
	if (policy != RG_REGION_NEXT_FIT) {
		err = r->ops->alloc_req(r, &q, &s);
	} else {
		from = RGI_MAX(rgi_next_fit_from(r), q.lo);
		err = -ENOSPC;
		if (from <= q.hi && q.n - 1 <= q.hi - from) {
			struct rgi_req q2 = q;

			q2.lo = from;
			err = r->ops->alloc_req(r, &q2, &s);
		}
		if (err == -ENOSPC && from > q.lo)
			err = r->ops->alloc_req(r, &q, &s);
		if (!err)
			rgi_next_fit_done(r, s, q.n);
	}
	if (likely(!err)) {
		RGI_DEBUG_ASSERT(s >= q.lo && s <= q.hi && q.n - 1 <= q.hi - s);
		*start = s;
		if (r->starts)
			rg_bitmap_set(r->starts, s);
	}
	return mutation_done(r, err, r->free_units - q.n);
}

int rg_region_resize(struct rg_region *r, unsigned long capacity)
{
	unsigned long old, *starts = NULL;
	int err;

	if (!r || !capacity || capacity > r->ops->max_capacity)
		return -EINVAL;
	lock(r);
	old = r->capacity;
	if (capacity == old) {
		unlock(r);
		return 0;
	}
	if (r->starts) {
		/* Units past a smaller capacity are free: no bits there. */
		starts = rgi_calloc(1, starts_bytes(capacity));
		if (!starts) {
			unlock(r);
			return -ENOMEM;
		}
		memcpy(starts, r->starts,
		       RGI_MIN(starts_bytes(capacity), starts_bytes(old)));
	}
	err = r->ops->resize(r, capacity);
	if (err) {
		rgi_free(starts);
	} else if (starts) {
		rgi_free(r->starts);
		r->starts = starts;
	}
	if (!err) {
		r->capacity = capacity;
		r->free_units = capacity > old ?
					r->free_units + (capacity - old) :
					r->free_units - (old - capacity);
		/* fixed-size maps changed size too: sample in any case */
		r->bytes_peak = RGI_MAX(r->bytes_peak, bytes_held(r));
		RGI_EXPENSIVE_ASSERT(!inconsistency(r));
	}
	unlock(r);
	return err;
}
