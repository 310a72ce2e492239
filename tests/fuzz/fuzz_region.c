// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the region API on every backend, against a bool array.
 *
 * Input: backend byte, placement-policy byte, capacity (2 bytes), flags
 * byte, then operations: alloc, free, reserve, test, stats, bulk allocs and
 * frees, the by-name and policy calls, NULL arguments and creation errors,
 * a second instance at a large capacity, resize, constrained requests
 * (rg_region_alloc_request(): a window [lo, hi], an alignment, a boundary
 * and a per-call policy, each sometimes invalid), run walks
 * (rg_region_next_run() and rg_region_for_each_run()), save and load
 * round trips (to a buffer and a stream, loaded into any backend, which
 * then replaces the fuzzed instance) and loads of saved bytes made bad
 * (cut, grown, a byte changed, a field rewritten under a good checksum).
 * Every operation's result is compared with the model: the start an
 * allocation returns (the model's own search under the chosen policy),
 * each error code, test() of units, the figures of get_stats() (the free
 * runs, their histogram and the fragmentation ratio included), every run
 * walked, the saved bytes (rebuilt from the model, CRC-32C included) and
 * every unit of a loaded instance. The instance is validated after every
 * operation, compared unit by unit every 32 operations, after every fired
 * fault and at the end.
 *
 * Bit 2 of the flags byte creates the instance RG_REGION_CHECKED (and
 * loads keep it): the model then records where each allocation starts,
 * and a free must name exactly one allocation (-EINVAL otherwise, -ENOENT
 * when its first unit is free, the instance compared unit by unit after
 * each refusal); a loaded instance holds one allocation per saved run.
 *
 * Placement lives in one place: model_find() tries every start of every
 * free run against the request's window, alignment and boundary and picks
 * the one each policy names (first, best, top-down, next fit, as region.h
 * defines them); rg_region_alloc() is a request for the whole capacity
 * under the instance's policy, which the input's policy byte selects and
 * creation receives as RG_REGION_POLICY(). A combination a backend does
 * not offer must fail creation with EOPNOTSUPP, and a per-call policy it
 * does not answer must fail the request with -EOPNOTSUPP. Only next-fit
 * allocations move the next-fit cursor.
 */
#include "fuzz.h"

#include "region/region.h"

#define MAX_CAP 4096
#define MAX_LIVE 256

struct live {
	unsigned long start, n;
};

struct model {
	unsigned long cap;
	unsigned int policy;
	unsigned long next; /* next fit: end of the previous next-fit alloc */
	enum rg_region_backend backend;
	bool used[MAX_CAP];
	unsigned long free_units;
	struct live live[MAX_LIVE];
	unsigned int nr_live;
	bool checked; /* RG_REGION_CHECKED */
	bool first[MAX_CAP]; /* an allocation starts here (implies used) */
};

static struct model m;

static bool run_free(unsigned long s, unsigned long n)
{
	for (unsigned long u = s; u < s + n; u++)
		if (m.used[u])
			return false;
	return true;
}

/* The first used unit in [s, s + n), or -1 if all are free. */
static long first_used(unsigned long s, unsigned long n)
{
	for (unsigned long u = s; u < s + n; u++)
		if (m.used[u])
			return (long)u;
	return -1;
}

/*
 * The start a constrained request picks (struct rg_region_request, its
 * fields already checked): among the starts s with [s, s + n) free, inside
 * [lo, hi], a multiple of @a and crossing no multiple of @b (0: none), the
 * one policy @pol names (enum rg_region_policy; next fit from m.next), or -1.
 * Every start of every free run is tried: slow, and plainly right.
 */
static long model_find(unsigned long n, unsigned long a, unsigned long lo,
		       unsigned long hi, unsigned long b, unsigned int pol)
{
	long first = -1, top = -1, best = -1, next = -1;
	unsigned long best_len = ~0UL, u = 0;

	a = a ? a : 1;
	while (u < m.cap) {
		unsigned long ra, re;
		long low = -1;

		if (m.used[u]) {
			u++;
			continue;
		}
		for (ra = u; u < m.cap && !m.used[u]; u++)
			;
		re = u; /* free run [ra, re) */
		for (unsigned long s = ra > lo ? ra : lo; s + n <= re; s++) {
			if (s + n - 1 > hi)
				break;
			if (s % a || (b && s / b != (s + n - 1) / b))
				continue;
			if (low < 0)
				low = (long)s;
			if (first < 0)
				first = (long)s;
			if (next < 0 && s >= m.next)
				next = (long)s;
			top = (long)s;
		}
		/* First fit (and next fit past the cursor) stop here. */
		if ((pol == RG_REGION_FIRST_FIT && first >= 0) ||
		    (pol == RG_REGION_NEXT_FIT && next >= 0))
			break;
		if (low >= 0 && re - ra < best_len) {
			best_len = re - ra;
			best = low;
		}
	}
	switch (pol) {
	case RG_REGION_BEST_FIT:
		return best;
	case RG_REGION_TOP_DOWN:
		return top;
	case RG_REGION_NEXT_FIT:
		return next >= 0 ? next : first;
	default:
		return first;
	}
}

/* The start the instance's policy picks for @n units aligned to @align. */
static long model_place(unsigned long n, unsigned long align)
{
	return model_find(n, align, 0, m.cap - 1, 0, m.policy);
}

static bool run_used(unsigned long s, unsigned long n)
{
	for (unsigned long u = s; u < s + n; u++)
		if (!m.used[u])
			return false;
	return true;
}

static unsigned long model_largest_run(void)
{
	unsigned long best = 0, cur = 0;

	for (unsigned long u = 0; u < m.cap; u++) {
		cur = m.used[u] ? 0 : cur + 1;
		if (cur > best)
			best = cur;
	}
	return best;
}

static void model_mark(unsigned long s, unsigned long n, bool used)
{
	for (unsigned long u = s; u < s + n; u++) {
		m.used[u] = used;
		m.first[u] = used && u == s;
	}
	if (used)
		m.free_units -= n;
	else
		m.free_units += n;
}

/*
 * Record a successful allocation of [s, s + n) placed by policy @pol: only
 * next fit moves the cursor.
 */
static void model_alloc(unsigned long s, unsigned long n, unsigned int pol)
{
	model_mark(s, n, true);
	/*
	 * The cursor is the end itself, the capacity included: a search from
	 * it finds nothing and wraps, and after a grow it starts there.
	 */
	if (pol == RG_REGION_NEXT_FIT)
		m.next = s + n;
}

/*
 * The result rg_region_free(s, n) must give, the range inside the capacity:
 * without RG_REGION_CHECKED, 0 if every unit is used, else -ENOENT; with
 * it, -ENOENT if unit s is free, else 0 only for exactly the allocation
 * starting at s, ending at a free unit, another start or the capacity.
 */
static int model_free_errno(unsigned long s, unsigned long n)
{
	if (!m.checked)
		return run_used(s, n) ? 0 : -ENOENT;
	if (!m.used[s])
		return -ENOENT;
	if (!m.first[s] || !run_used(s, n))
		return -EINVAL;
	for (unsigned long u = s + 1; u < s + n; u++)
		if (m.first[u])
			return -EINVAL;
	if (s + n < m.cap && m.used[s + n] && !m.first[s + n])
		return -EINVAL;
	return 0;
}

static void add_live(unsigned long s, unsigned long n)
{
	if (m.nr_live < MAX_LIVE)
		m.live[m.nr_live++] = (struct live){ s, n };
}

static struct rg_region *create(struct fz *f, unsigned int flags)
{
	struct rg_region *r;
	bool armed;

	/* Creation may itself run with a fault armed (opcode byte 0x80). */
	fz_op_begin(f, &armed);
	errno = 0;
	r = rg_region_create_backend(m.backend, m.cap, flags);
	if (!r && errno == EOPNOTSUPP) {
		/* ida: first fit only; maple: no best fit. */
		fz_op_end(f, armed);
		FZ_CHECK(
			f,
			(m.backend == RG_REGION_IDA && m.policy) ||
				(m.backend == RG_REGION_MAPLE && m.policy == 1),
			"create %s with policy %u: EOPNOTSUPP",
			rg_region_backend_name(m.backend), m.policy);
		return NULL;
	}
	if (fz_op_failed(f, armed, !r)) {
		FZ_CHECK(f, errno == ENOMEM, "create under a fault: errno %d",
			 errno);
		r = rg_region_create_backend(m.backend, m.cap, flags);
	}
	FZ_CHECK(f, r, "create %s cap %lu: errno %d",
		 rg_region_backend_name(m.backend), m.cap, errno);
	return r;
}

static void check_valid(struct fz *f, struct rg_region *r)
{
	const char *why = NULL;

	if (rg_region_validate(r, &why))
		FZ_FAIL(f, "validate: %s", why ? why : "?");
}

/*
 * The fragmentation figures of @st against the model: the number of free
 * runs, their histogram by power of two, and 1 - largest / free.
 */
static void check_runs_stats(struct fz *f, const struct rg_region_stats *st)
{
	unsigned long hist[RG_REGION_HIST_BUCKETS] = { 0 }, runs = 0;
	unsigned long u = 0, a, largest = model_largest_run();
	double frag;

	while (u < m.cap) {
		unsigned int k = 0;

		if (m.used[u]) {
			u++;
			continue;
		}
		for (a = u; u < m.cap && !m.used[u]; u++)
			;
		runs++;
		while ((u - a) >> (k + 1))
			k++;
		hist[k]++;
	}
	FZ_EQ(f, st->free_runs, runs, "stats.free_runs");
	for (unsigned int k = 0; k < RG_REGION_HIST_BUCKETS; k++)
		FZ_CHECK(f, st->free_run_hist[k] == hist[k],
			 "stats.free_run_hist[%u]: got %lu, want %lu", k,
			 st->free_run_hist[k], hist[k]);
	frag = m.free_units ? 1.0 - (double)largest / (double)m.free_units :
			      0.0;
	FZ_CHECK(f,
		 st->fragmentation > frag - 1e-9 &&
			 st->fragmentation < frag + 1e-9,
		 "stats.fragmentation: got %g, want %g", st->fragmentation,
		 frag);
}

static void check_all(struct fz *f, struct rg_region *r)
{
	struct rg_region_stats st;

	for (unsigned long u = 0; u < m.cap; u++)
		FZ_EQ(f, rg_region_test(r, u), m.used[u], "test(unit)");
	FZ_EQ(f, rg_region_test(r, m.cap), -EINVAL, "test(capacity)");
	FZ_EQ(f, rg_region_get_stats(r, &st), 0, "get_stats");
	FZ_EQ(f, st.backend, m.backend, "stats.backend");
	FZ_EQ(f, st.capacity, m.cap, "stats.capacity");
	FZ_EQ(f, st.free_units, m.free_units, "stats.free_units");
	FZ_EQ(f, st.largest_free_run, model_largest_run(),
	      "stats.largest_free_run");
	FZ_CHECK(f, st.bytes_held <= st.bytes_held_peak,
		 "bytes_held %zu above its peak %zu", st.bytes_held,
		 st.bytes_held_peak);
	check_runs_stats(f, &st);
}

/* A length: mostly small, sometimes anything up to past the capacity. */
static unsigned long pick_len(struct fz *f)
{
	uint8_t k = fz_u8(f);

	if (k < 200)
		return k % 17;
	if (k < 250)
		return fz_below(f, m.cap + 2);
	return (unsigned long)fz_u64(f);
}

/* A start: inside a live region, anywhere, or past the capacity. */
static void pick_range(struct fz *f, unsigned long *s, unsigned long *n)
{
	uint8_t k = fz_u8(f);

	if (m.nr_live && k < 160) {
		unsigned int i = fz_below(f, m.nr_live);
		struct live *l = &m.live[i];
		unsigned long off = k & 1 ? fz_below(f, l->n) : 0;

		*s = l->start + off;
		*n = k & 2 ? l->n - off : 1 + fz_below(f, l->n - off);
		/* Checked: sometimes on to the end of the run, across others */
		if (m.checked && (k & 4))
			while (*s + *n < m.cap && m.used[*s + *n])
				(*n)++;
		/* Drop the record: it will be (partly) freed or refused. */
		*l = m.live[--m.nr_live];
		return;
	}
	*s = k < 250 ? fz_below(f, m.cap + 1) : fz_index(f);
	*n = pick_len(f);
}

/* Start and length both valid and inside the capacity. */
static bool range_ok(unsigned long s, unsigned long n)
{
	return n && s < m.cap && n <= m.cap - s;
}

static void op_alloc(struct fz *f, struct rg_region *r, bool request,
		     bool armed)
{
	unsigned long n = pick_len(f), align, start = ~0UL;
	uint8_t a = fz_u8(f);
	long want;
	int rc, exp;

	align = a < 128 ? 0 : a < 250 ? 1UL << (a % 13) : a;
	if (request) {
		/* The same allocation as a request with no constraint. */
		struct rg_region_request req = RG_REGION_REQUEST(n);

		req.align = align;
		rc = rg_region_alloc_request(r, &req, &start);
	} else {
		rc = rg_region_alloc(r, n, align, &start);
	}
	if (fz_op_failed(f, armed, rc == -ENOMEM)) {
		FZ_EQ(f, start, ~0UL, "start written by a failed alloc");
		check_all(f, r);
		return;
	}
	if (!n || n > m.cap || (align & (align - 1))) {
		exp = -EINVAL;
	} else {
		want = model_place(n, align);
		exp = want < 0 ? -ENOSPC : 0;
		if (!exp && rc == 0)
			FZ_EQ(f, start, want, "alloc start");
	}
	FZ_CHECK(f, rc == exp, "alloc(%lu, align %lu) = %d, want %d", n, align,
		 rc, exp);
	if (rc) {
		FZ_EQ(f, start, ~0UL, "start written by a failed alloc");
		return;
	}
	model_alloc(start, n, m.policy);
	add_live(start, n);
	for (unsigned long u = start; u < start + n; u++)
		FZ_EQ(f, rg_region_test(r, u), 1, "test after alloc");
}

static void op_free(struct fz *f, struct rg_region *r, bool armed)
{
	unsigned long s, n;
	int rc, exp;

	pick_range(f, &s, &n);
	rc = rg_region_free(r, s, n);
	if (fz_op_failed(f, armed, rc == -ENOMEM)) {
		check_all(f, r);
		return;
	}
	exp = range_ok(s, n) ? model_free_errno(s, n) : -EINVAL;
	FZ_CHECK(f, rc == exp, "free(%lu, %lu) = %d, want %d", s, n, rc, exp);
	if (!rc)
		model_mark(s, n, false);
	else if (m.checked)
		check_all(f, r); /* a refused free changed nothing */
	/* Live records overlapping the freed range are now stale. */
	for (unsigned int i = 0; !rc && i < m.nr_live;) {
		struct live *l = &m.live[i];

		if (l->start < s + n && s < l->start + l->n)
			*l = m.live[--m.nr_live];
		else
			i++;
	}
}

static void op_reserve(struct fz *f, struct rg_region *r, bool armed)
{
	unsigned long s, n;
	int rc, exp;

	if (fz_u8(f) & 1) {
		/* Just past or inside something live, or anywhere. */
		s = fz_below(f, m.cap + 1);
		n = pick_len(f);
	} else {
		pick_range(f, &s, &n);
	}
	rc = rg_region_reserve(r, s, n);
	if (fz_op_failed(f, armed, rc == -ENOMEM)) {
		check_all(f, r);
		return;
	}
	if (!range_ok(s, n))
		exp = -EINVAL;
	else
		exp = run_free(s, n) ? 0 : -EBUSY;
	FZ_CHECK(f, rc == exp, "reserve(%lu, %lu) = %d, want %d", s, n, rc,
		 exp);
	if (!rc) {
		model_mark(s, n, true);
		add_live(s, n);
	}
}

static void op_test(struct fz *f, struct rg_region *r)
{
	unsigned long u = fz_u8(f) < 250 ? fz_below(f, m.cap) : fz_index(f);

	FZ_EQ(f, rg_region_test(r, u), u < m.cap ? m.used[u] : -EINVAL, "test");
}

/*
 * Many allocations (or frees of live regions) in one operation, so that
 * short inputs fill an instance and fragment it.
 */
static void op_bulk(struct fz *f, struct rg_region *r, bool release)
{
	unsigned int count = 1 + fz_u8(f) % 64;
	unsigned long n = 1 + fz_u8(f) % 24, start = 0;
	long want;
	int rc;

	for (unsigned int i = 0; i < count; i++) {
		if (release) {
			unsigned int k;
			struct live l;

			if (!m.nr_live)
				break;
			k = i % m.nr_live;
			l = m.live[k];
			m.live[k] = m.live[m.nr_live - 1];
			m.nr_live--;
			rc = rg_region_free(r, l.start, l.n);
			FZ_EQ(f, rc, model_free_errno(l.start, l.n),
			      "bulk free");
			if (!rc)
				model_mark(l.start, l.n, false);
			continue;
		}
		if (n > m.cap)
			break;
		want = model_place(n, 0);
		rc = rg_region_alloc(r, n, 0, &start);
		FZ_EQ(f, rc, want < 0 ? -ENOSPC : 0, "bulk alloc");
		if (rc)
			break;
		FZ_EQ(f, start, want, "bulk alloc start");
		model_alloc(start, n, m.policy);
		add_live(start, n);
	}
}

/* The by-name calls, creation errors and dump. */
static void op_api(struct fz *f, struct rg_region *r)
{
	static const char *const bad[] = { "", "bitmaps", "HBITMAP", "idr" };
	enum rg_region_backend b = RG_REGION_NR_BACKENDS;
	const char *name = rg_region_backend_name(m.backend);
	struct rg_region *r2;

	FZ_CHECK(f, name, "backend_name");
	FZ_EQ(f, rg_region_backend_lookup(name, &b), 0, "backend_lookup");
	FZ_EQ(f, b, m.backend, "backend_lookup result");
	FZ_EQ(f, rg_region_backend_lookup(bad[fz_u8(f) % 4], &b), -EINVAL,
	      "backend_lookup(bad name)");
	FZ_CHECK(f, !rg_region_backend_name(RG_REGION_NR_BACKENDS),
		 "backend_name(NR_BACKENDS)");
	errno = 0;
	FZ_CHECK(f,
		 !rg_region_create_backend(m.backend, 0, 0) && errno == EINVAL,
		 "create(capacity 0)");
	errno = 0;
	FZ_CHECK(f,
		 !rg_region_create_backend(m.backend, 16, 0x80) &&
			 errno == EINVAL,
		 "create(unknown flags)");
	errno = 0;
	FZ_CHECK(f, !rg_region_create("no-such", 16, 0) && errno == EINVAL,
		 "create(unknown name)");
	r2 = rg_region_create(name, 1 + fz_u8(f), 0);
	FZ_CHECK(f, r2, "create(%s) by name", name);
	rg_region_destroy(r2);
	rg_region_dump(r, fz_null());
}

static void op_stats(struct fz *f, struct rg_region *r)
{
	struct rg_region_stats st;

	FZ_EQ(f, rg_region_get_stats(r, &st), 0, "get_stats");
	FZ_EQ(f, st.free_units, m.free_units, "stats.free_units");
	FZ_EQ(f, st.largest_free_run, model_largest_run(),
	      "stats.largest_free_run");
	check_runs_stats(f, &st);
}

/* Policy names and lookups; which backend offers which policy. */
static void op_policy(struct fz *f)
{
	static const char *const bad[] = { "", "First", "worst", "nextfit" };
	enum rg_region_policy p = RG_REGION_NR_POLICIES, q;
	const char *name;

	for (unsigned int i = 0; i < RG_REGION_NR_POLICIES; i++) {
		name = rg_region_policy_name((enum rg_region_policy)i);
		FZ_CHECK(f, name, "policy_name(%u)", i);
		FZ_EQ(f, rg_region_policy_lookup(name, &p), 0, "policy_lookup");
		FZ_EQ(f, p, i, "policy_lookup result");
	}
	FZ_CHECK(f, !rg_region_policy_name(RG_REGION_NR_POLICIES),
		 "policy_name(NR_POLICIES)");
	FZ_CHECK(f,
		 !rg_region_policy_name((enum rg_region_policy)fz_index(f) |
					RG_REGION_NR_POLICIES),
		 "policy_name(out of range)");
	q = p;
	FZ_EQ(f, rg_region_policy_lookup(bad[fz_u8(f) % 4], &p), -ENOENT,
	      "policy_lookup(bad name)");
	FZ_EQ(f, p, q, "policy written by a failed lookup");
	FZ_EQ(f, rg_region_policy_lookup(NULL, &p), -EINVAL,
	      "policy_lookup(NULL)");
	FZ_EQ(f, rg_region_policy_lookup("first", NULL), -EINVAL,
	      "policy_lookup(name, NULL)");
	for (unsigned int b = 0; b <= RG_REGION_NR_BACKENDS; b++)
		for (unsigned int i = 0; i <= RG_REGION_NR_POLICIES; i++) {
			bool want = b < RG_REGION_NR_BACKENDS &&
				    i < RG_REGION_NR_POLICIES &&
				    !(b == RG_REGION_IDA && i) &&
				    !(b == RG_REGION_MAPLE && i == 1);

			FZ_EQ(f,
			      rg_region_backend_has_policy(
				      (enum rg_region_backend)b,
				      (enum rg_region_policy)i),
			      want, "backend_has_policy");
		}
	FZ_CHECK(f, !rg_region_backend_available(RG_REGION_NR_BACKENDS),
		 "backend_available(NR_BACKENDS)");
}

/*
 * Calls given NULL where a pointer is required (they answer as
 * <region/common.h> says and change nothing), and creation past a
 * backend's capacity limit or with an unknown policy.
 */
static void op_null(struct fz *f, struct rg_region *r)
{
	enum rg_region_backend b = RG_REGION_NR_BACKENDS;
	unsigned long start = 7;
	const char *why = "x";

	FZ_EQ(f, rg_region_alloc(NULL, 1, 0, &start), -EINVAL, "alloc(NULL)");
	FZ_EQ(f, rg_region_alloc(r, 1, 0, NULL), -EINVAL, "alloc(start NULL)");
	FZ_EQ(f, start, 7, "start written by alloc(NULL)");
	FZ_EQ(f, rg_region_free(NULL, 0, 1), -EINVAL, "free(NULL)");
	FZ_EQ(f, rg_region_reserve(NULL, 0, 1), -EINVAL, "reserve(NULL)");
	FZ_EQ(f, rg_region_test(NULL, 0), -EINVAL, "test(NULL)");
	FZ_EQ(f, rg_region_get_stats(NULL, NULL), -EINVAL, "get_stats(NULL)");
	FZ_EQ(f, rg_region_get_stats(r, NULL), -EINVAL, "get_stats(r, NULL)");
	FZ_EQ(f, rg_region_validate(NULL, &why), -EINVAL, "validate(NULL)");
	FZ_CHECK(f, why && *why, "validate(NULL) gave no reason");
	FZ_EQ(f, rg_region_validate(NULL, NULL), -EINVAL,
	      "validate(NULL, NULL)");
	FZ_EQ(f, rg_region_validate(r, NULL), 0, "validate(r, NULL)");
	FZ_EQ(f, rg_region_backend_lookup(NULL, &b), -EINVAL,
	      "backend_lookup(NULL)");
	FZ_EQ(f, rg_region_backend_lookup("maple", NULL), -EINVAL,
	      "backend_lookup(name, NULL)");
	FZ_EQ(f, b, RG_REGION_NR_BACKENDS,
	      "backend written by a failed lookup");
	errno = 0;
	FZ_CHECK(f, !rg_region_create(NULL, 16, 0) && errno == EINVAL,
		 "create(NULL name): errno %d", errno);
	errno = 0;
	FZ_CHECK(f,
		 !rg_region_create_backend(RG_REGION_NR_BACKENDS, 16, 0) &&
			 errno == EINVAL,
		 "create(NR_BACKENDS): errno %d", errno);
	errno = 0;
	FZ_CHECK(f,
		 !rg_region_create_backend(m.backend, 16,
					   (unsigned int)RG_REGION_NR_POLICIES
						   << RG_REGION_POLICY_SHIFT) &&
			 errno == EINVAL,
		 "create(unknown policy): errno %d", errno);
	if (m.backend != RG_REGION_MAPLE) {
		unsigned long over = m.backend == RG_REGION_IDA ?
					     (unsigned long)INT32_MAX + 2 :
				     m.backend == RG_REGION_HBITMAP ?
					     (1UL << 56) + 1 :
					     ~0UL;

		errno = 0;
		FZ_CHECK(f,
			 !rg_region_create_backend(m.backend, over, 0) &&
				 errno == EINVAL,
			 "create(capacity %lu): errno %d", over, errno);
	}
	rg_region_destroy(NULL);
	rg_region_dump(NULL, fz_null());
	rg_region_dump(r, NULL);
}

/*
 * A second, large instance (Maple Tree: the largest capacity; IDA: 65,536
 * units, as its stats and validate look at every unit), driven at both
 * ends of the unit space.
 */
static void op_big(struct fz *f)
{
	unsigned long cap, n = 1 + fz_u8(f) % 64, k = 1 + fz_u8(f) % 64;
	unsigned long start = 0, want;
	struct rg_region_stats st;
	struct rg_region *big;

	if (m.backend == RG_REGION_IDA)
		cap = 1UL << 16; /* its stats and validate test every unit */
	else if (m.backend == RG_REGION_MAPLE)
		cap = ~0UL;
	else
		return;
	big = rg_region_create_backend(m.backend, cap,
				       RG_REGION_POLICY(m.policy));
	FZ_CHECK(f, big, "create(%s, capacity %lu): errno %d",
		 rg_region_backend_name(m.backend), cap, errno);
	/* The top k units first, then n units where the policy puts them. */
	FZ_EQ(f, rg_region_reserve(big, cap - k, k), 0, "big reserve at top");
	FZ_EQ(f, rg_region_test(big, cap - 1), 1, "big test(top)");
	FZ_EQ(f, rg_region_alloc(big, n, 0, &start), 0, "big alloc");
	want = m.policy == 2 ? cap - k - n : 0;
	FZ_EQ(f, start, want, "big alloc start");
	FZ_EQ(f, rg_region_reserve(big, cap - k - 1, 2), -EBUSY,
	      "big reserve across the top");
	FZ_EQ(f, rg_region_free(big, cap - k, k + 1), -EINVAL,
	      "big free past the capacity");
	FZ_EQ(f, rg_region_get_stats(big, &st), 0, "big get_stats");
	FZ_EQ(f, st.free_units, cap - k - n, "big free_units");
	FZ_EQ(f, rg_region_free(big, cap - k, k), 0, "big free at top");
	FZ_EQ(f, rg_region_free(big, start, n), 0, "big free");
	FZ_EQ(f, rg_region_get_stats(big, &st), 0, "big get_stats");
	FZ_EQ(f, st.free_units, cap, "big free_units after frees");
	FZ_EQ(f, st.largest_free_run, cap, "big largest_free_run");
	if (rg_region_validate(big, NULL))
		FZ_FAIL(f, "big validate");
	rg_region_dump(big, fz_null());
	rg_region_destroy(big);
}

/* rg_region_resize(): grow, or shrink when the cut-off units are free. */
static void op_resize(struct fz *f, struct rg_region *r, bool armed)
{
	uint8_t k = fz_u8(f);
	unsigned long cap, d = 1 + fz_u8(f) % 64;
	int rc, exp;

	if (k < 8)
		cap = 0;
	else if (k < 128)
		cap = k & 1 ? m.cap + d : m.cap > d ? m.cap - d : 1;
	else
		cap = 1 + fz_below(f, MAX_CAP);
	if (cap > MAX_CAP)
		cap = MAX_CAP;
	rc = rg_region_resize(r, cap);
	if (fz_op_failed(f, armed, rc == -ENOMEM)) {
		check_all(f, r);
		return;
	}
	if (!cap)
		exp = -EINVAL;
	else if (cap < m.cap && first_used(cap, m.cap - cap) >= 0)
		exp = -EBUSY;
	else
		exp = 0;
	FZ_CHECK(f, rc == exp, "resize(%lu) from %lu = %d, want %d", cap, m.cap,
		 rc, exp);
	if (rc)
		return;
	m.free_units = m.free_units + cap - m.cap;
	m.cap = cap; /* the cursor stays where the last allocation ended */
	check_all(f, r);
}

/* Whether a backend answers policy @pol in rg_region_alloc_request(). */
static bool req_offers(enum rg_region_backend b, unsigned int pol)
{
	if (pol == RG_REGION_NEXT_FIT)
		pol = RG_REGION_FIRST_FIT; /* built from first fit */
	if (b == RG_REGION_IDA)
		return pol == RG_REGION_FIRST_FIT;
	if (b == RG_REGION_MAPLE)
		return pol != RG_REGION_BEST_FIT;
	return true;
}

/* A power of two up to 2^13, 0, or (rarely) anything. */
static unsigned long pick_pow2(struct fz *f)
{
	uint8_t k = fz_u8(f);

	if (k < 96)
		return 0;
	if (k < 240)
		return 1UL << (k % 14);
	return fz_index(f);
}

/*
 * rg_region_alloc_request() with a window [lo, hi], an alignment, a
 * boundary and a per-call policy (or the instance's), against
 * model_find(); every field sometimes out of range.
 */
static void op_request(struct fz *f, struct rg_region *r, bool armed)
{
	struct rg_region_request req = RG_REGION_REQUEST(pick_len(f));
	unsigned long start = ~0UL, hi;
	uint8_t k = fz_u8(f);
	unsigned int pol;
	long want = -1;
	int rc, exp;

	req.align = pick_pow2(f);
	req.boundary = pick_pow2(f);
	/* Often a boundary at least n, as a valid request needs. */
	while (req.boundary && req.boundary < req.n && req.n <= MAX_CAP &&
	       (k & 0x40))
		req.boundary <<= 1;
	req.lo = k < 16 ? fz_index(f) : k & 1 ? fz_below(f, m.cap + 1) : 0;
	switch (fz_u8(f) % 8) {
	case 0:
		req.hi = fz_index(f);
		break;
	case 1:
	case 2:
		req.hi = req.lo + fz_below(f, m.cap + 1);
		break;
	case 3:
		req.hi = m.cap - 1;
		break;
	default:
		break; /* RG_REGION_END */
	}
	k = fz_u8(f);
	req.policy = k < 96  ? RG_REGION_INSTANCE_POLICY :
		     k < 240 ? (int)(k % RG_REGION_NR_POLICIES) :
		     k < 248 ? (int)RG_REGION_NR_POLICIES + (k & 3) :
			       -2 - (k & 7);
	rc = rg_region_alloc_request(r, &req, &start);
	if (fz_op_failed(f, armed, rc == -ENOMEM)) {
		FZ_EQ(f, start, ~0UL, "start written by a failed request");
		check_all(f, r);
		return;
	}
	hi = req.hi == RG_REGION_END ? m.cap - 1 : req.hi;
	pol = req.policy == RG_REGION_INSTANCE_POLICY ?
		      m.policy :
		      (unsigned int)req.policy;
	if (!req.n || (req.align & (req.align - 1)) ||
	    (req.boundary &&
	     ((req.boundary & (req.boundary - 1)) || req.boundary < req.n)) ||
	    (req.policy != RG_REGION_INSTANCE_POLICY &&
	     (req.policy < 0 || req.policy >= RG_REGION_NR_POLICIES)) ||
	    req.n > m.cap || req.lo >= m.cap || hi < req.lo || hi >= m.cap) {
		exp = -EINVAL;
	} else if (!req_offers(m.backend, pol)) {
		exp = -EOPNOTSUPP;
	} else {
		want = model_find(req.n, req.align, req.lo, hi, req.boundary,
				  pol);
		exp = want < 0 ? -ENOSPC : 0;
	}
	FZ_CHECK(f, rc == exp,
		 "request(n %lu align %lu lo %lu hi %lu boundary %lu policy "
		 "%d) = %d, want %d",
		 req.n, req.align, req.lo, req.hi, req.boundary, req.policy, rc,
		 exp);
	if (rc) {
		FZ_EQ(f, start, ~0UL, "start written by a failed request");
		return;
	}
	FZ_EQ(f, start, want, "request start");
	model_alloc(start, req.n, pol);
	add_live(start, req.n);
}

/*
 * The model's rg_region_next_run(): the kind found and the run in *s, *n,
 * or -ENOENT; the arguments already checked.
 */
static int model_next_run(unsigned long from, unsigned int kinds,
			  unsigned long *s, unsigned long *n)
{
	bool used;
	unsigned long u = from, e;

	if (from >= m.cap)
		return -ENOENT;
	used = kinds == (RG_RUN_USED | RG_RUN_FREE) ? m.used[from] :
						      kinds == RG_RUN_USED;
	while (u < m.cap && m.used[u] != used)
		u++;
	if (u == m.cap)
		return -ENOENT;
	for (e = u; e < m.cap && m.used[e] == used; e++)
		;
	*s = u;
	*n = e - u;
	return used ? (int)RG_RUN_USED : (int)RG_RUN_FREE;
}

/*
 * rg_region_next_run() once from anywhere (bad kinds and NULL included),
 * then rg_region_for_each_run() to the end, step by step with the model.
 */
static void op_walk(struct fz *f, struct rg_region *r)
{
	uint8_t k = fz_u8(f);
	unsigned long from = k < 200 ? fz_below(f, m.cap + 1) : fz_index(f);
	unsigned int kinds = fz_u8(f);
	unsigned long s = 7, n = 9, ms, mn;
	int rc, exp, kind;

	kinds = kinds < 240 ? 1 + kinds % 3 : kinds & 0xf;
	if (k % 16 == 0) {
		FZ_EQ(f, rg_region_next_run(r, from, kinds, NULL, &n), -EINVAL,
		      "next_run(start NULL)");
		FZ_EQ(f, rg_region_next_run(r, from, kinds, &s, NULL), -EINVAL,
		      "next_run(n NULL)");
		FZ_EQ(f, rg_region_next_run(NULL, from, kinds, &s, &n), -EINVAL,
		      "next_run(NULL)");
	}
	rc = rg_region_next_run(r, from, kinds, &s, &n);
	if (!kinds || (kinds & ~(RG_RUN_USED | RG_RUN_FREE)))
		exp = -EINVAL;
	else
		exp = model_next_run(from, kinds, &ms, &mn);
	FZ_CHECK(f, rc == exp, "next_run(%lu, kinds %u) = %d, want %d", from,
		 kinds, rc, exp);
	if (rc < 0) {
		FZ_CHECK(f, s == 7 && n == 9,
			 "run written by a failed next_run");
		return;
	}
	FZ_CHECK(f, s == ms && n == mn,
		 "next_run(%lu, kinds %u): %lu+%lu, want %lu+%lu", from, kinds,
		 s, n, ms, mn);
	ms = from;
	mn = 0;
	rg_region_for_each_run(r, from, kinds, kind, s, n)
	{
		exp = model_next_run(ms + mn, kinds, &ms, &mn);
		FZ_CHECK(f, kind == exp && s == ms && n == mn,
			 "for_each_run: %d %lu+%lu, want %d %lu+%lu", kind, s,
			 n, exp, ms, mn);
	}
	FZ_EQ(f, kind, -ENOENT, "for_each_run end");
	FZ_EQ(f, model_next_run(ms + mn, kinds, &ms, &mn), -ENOENT,
	      "runs left after for_each_run");
}

/* CRC-32C (Castagnoli, reflected, bit by bit), as the saved format says. */
static uint32_t crc32c(const uint8_t *p, size_t len)
{
	uint32_t c = ~0u;

	while (len--) {
		c ^= *p++;
		for (int i = 0; i < 8; i++)
			c = c & 1 ? c >> 1 ^ 0x82f63b78u : c >> 1;
	}
	return ~c;
}

static void put_le(uint8_t *p, uint64_t v, unsigned int bytes)
{
	for (unsigned int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static uint64_t get_le(const uint8_t *p, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = bytes; i--;)
		v = v << 8 | p[i];
	return v;
}

/* Largest saved record: MAX_CAP / 2 runs. */
#define SAVE_MAX (28 + 16 * (MAX_CAP / 2 + 1))
static uint8_t save_want[SAVE_MAX], save_got[SAVE_MAX + 64];

/* The bytes rg_region_save() must write for the model; returns the size. */
static size_t model_save(uint8_t *p)
{
	size_t off = 24;
	unsigned long s = 0, n = 0, nruns = 0;

	memcpy(p, "RGRN", 4);
	put_le(p + 4, RG_REGION_SAVE_VERSION, 2);
	p[6] = (uint8_t)m.policy;
	p[7] = 0;
	put_le(p + 8, m.cap, 8);
	while (model_next_run(s + n, RG_RUN_USED, &s, &n) > 0) {
		put_le(p + off, s, 8);
		put_le(p + off + 8, n, 8);
		off += 16;
		nruns++;
	}
	put_le(p + 16, nruns, 8);
	put_le(p + off, crc32c(p, off), 4);
	return off + 4;
}

/*
 * The errno rg_region_load() must give for @size bytes at @p into
 * @backend with @flags, or 0 if it must build the instance.
 */
static int model_load_errno(const uint8_t *p, size_t size,
			    enum rg_region_backend backend, unsigned int flags)
{
	uint64_t cap, nruns, next = 0;
	unsigned int pol;

	if (size < 28 || ((flags & RG_REGION_LOAD_SAVED_POLICY) &&
			  (flags & RG_REGION_POLICY_MASK)))
		return EINVAL;
	cap = get_le(p + 8, 8);
	nruns = get_le(p + 16, 8);
	if (memcmp(p, "RGRN", 4) || get_le(p + 4, 2) != 1 ||
	    p[6] >= RG_REGION_NR_POLICIES || p[7] || !cap ||
	    nruns > cap / 2 + 1 || size != 28 + 16 * nruns)
		return EINVAL;
	if (get_le(p + size - 4, 4) != crc32c(p, size - 4))
		return EBADMSG;
	for (uint64_t i = 0; i < nruns; i++) {
		uint64_t s = get_le(p + 24 + 16 * i, 8);
		uint64_t n = get_le(p + 32 + 16 * i, 8);

		if (!n || s < next || s >= cap || n > cap - s)
			return EINVAL;
		next = s + n + 1;
	}
	pol = flags & RG_REGION_LOAD_SAVED_POLICY ?
		      p[6] :
		      (flags & RG_REGION_POLICY_MASK) >> RG_REGION_POLICY_SHIFT;
	if (flags & ~(RG_REGION_LOAD_SAVED_POLICY | RG_REGION_POLICY_MASK |
		      RG_REGION_LOCKED | RG_REGION_CHECKED) ||
	    pol >= RG_REGION_NR_POLICIES)
		return EINVAL;
	if (!rg_region_backend_has_policy(backend, pol))
		return EOPNOTSUPP;
	return 0;
}

/* A loaded instance holds exactly the runs of the record at @p. */
static void check_loaded(struct fz *f, struct rg_region *r, const uint8_t *p)
{
	unsigned long cap = get_le(p + 8, 8), nruns = get_le(p + 16, 8);
	unsigned long u = 0, s, n, used = 0;
	struct rg_region_stats st;

	check_valid(f, r);
	for (unsigned long i = 0; i < nruns; i++) {
		s = get_le(p + 24 + 16 * i, 8);
		n = get_le(p + 32 + 16 * i, 8);
		for (; u < s; u++)
			FZ_EQ(f, rg_region_test(r, u), 0, "loaded unit free");
		for (; u < s + n; u++)
			FZ_EQ(f, rg_region_test(r, u), 1, "loaded unit used");
		used += n;
	}
	for (; u < cap; u++)
		FZ_EQ(f, rg_region_test(r, u), 0, "loaded unit free");
	FZ_EQ(f, rg_region_test(r, cap), -EINVAL, "loaded test(capacity)");
	FZ_EQ(f, rg_region_get_stats(r, &st), 0, "loaded get_stats");
	FZ_EQ(f, st.capacity, cap, "loaded capacity");
	FZ_EQ(f, st.free_units, cap - used, "loaded free_units");
}

/* rg_region_load() of @size bytes at @p, checked against the model. */
static struct rg_region *load_checked(struct fz *f, const uint8_t *p,
				      size_t size,
				      enum rg_region_backend backend,
				      unsigned int flags, bool armed)
{
	int want = model_load_errno(p, size, backend, flags);
	struct rg_region *r2;

	errno = 0;
	r2 = rg_region_load(p, size, backend, flags);
	if (fz_op_failed(f, armed, !r2)) {
		FZ_EQ(f, errno, ENOMEM, "load under a fault: errno");
		return NULL;
	}
	FZ_CHECK(f, (r2 != NULL) == !want && (r2 || errno == want),
		 "load(%zu bytes into %s, flags %#x): %s errno %d, want %d",
		 size, rg_region_backend_name(backend), flags,
		 r2 ? "built" : "NULL", errno, want);
	if (r2)
		check_loaded(f, r2, p);
	return r2;
}

/* A backend to load into: any available one. */
static enum rg_region_backend pick_backend(struct fz *f)
{
	enum rg_region_backend b = fz_u8(f) % RG_REGION_NR_BACKENDS;

	return rg_region_backend_available(b) ? b : m.backend;
}

/*
 * rg_region_save() against model_save() (byte for byte; a short buffer
 * gets -ENOSPC and the size), the stream save, then rg_region_load() into
 * any backend with any policy. Sometimes the loaded instance replaces the
 * fuzzed one (the model carries on: same units, new backend and policy,
 * the cursor at 0).
 */
static void op_save_load(struct fz *f, struct rg_region **rp, bool armed)
{
	struct rg_region *r = *rp, *r2;
	enum rg_region_backend b;
	size_t want = model_save(save_want), size = 0;
	unsigned int flags, pol;
	uint8_t k = fz_u8(f);

	FZ_EQ(f, rg_region_save(r, NULL, &size), -ENOSPC, "save(NULL)");
	FZ_EQ(f, size, want, "save(NULL) size");
	size = want - 1;
	FZ_EQ(f, rg_region_save(r, save_got, &size), -ENOSPC, "save(short)");
	FZ_EQ(f, size, want, "save(short) size");
	FZ_EQ(f, rg_region_save(r, save_got, NULL), -EINVAL, "save(size NULL)");
	FZ_EQ(f, rg_region_save(NULL, save_got, &size), -EINVAL,
	      "save(NULL r)");
	size = sizeof(save_got);
	FZ_EQ(f, rg_region_save(r, save_got, &size), 0, "save");
	FZ_EQ(f, size, want, "save size");
	FZ_CHECK(f, !memcmp(save_got, save_want, want), "saved bytes differ");
	if ((k & 1) && !armed) { /* (the stream load allocates) */
		char *mem = NULL;
		size_t len = 0;
		FILE *s = open_memstream(&mem, &len);

		FZ_CHECK(f, s, "open_memstream");
		FZ_EQ(f, rg_region_save_file(r, s), 0, "save_file");
		FZ_EQ(f, fclose(s), 0, "fclose");
		FZ_CHECK(f, len == want && !memcmp(mem, save_want, want),
			 "save_file bytes differ");
		s = fmemopen(mem, len, "rb");
		FZ_CHECK(f, s, "fmemopen");
		r2 = rg_region_load_file(s, m.backend,
					 RG_REGION_LOAD_SAVED_POLICY);
		FZ_CHECK(f, r2, "load_file: errno %d", errno);
		fclose(s);
		free(mem);
		check_loaded(f, r2, save_want);
		rg_region_destroy(r2);
	}
	b = pick_backend(f);
	pol = fz_u8(f);
	flags = pol < 64  ? RG_REGION_LOAD_SAVED_POLICY :
		pol < 250 ? RG_REGION_POLICY(pol % RG_REGION_NR_POLICIES) :
			    RG_REGION_LOAD_SAVED_POLICY | RG_REGION_POLICY(pol);
	if (k & 2)
		flags |= RG_REGION_LOCKED;
	if (m.checked)
		flags |= RG_REGION_CHECKED;
	r2 = load_checked(f, save_want, want, b, flags, armed);
	if (!r2)
		return;
	if (k & 4) {
		rg_region_destroy(r2);
		return;
	}
	/* The model follows the loaded instance. */
	rg_region_destroy(r);
	*rp = r2;
	m.backend = b;
	if (!(flags & RG_REGION_LOAD_SAVED_POLICY))
		m.policy = (flags & RG_REGION_POLICY_MASK) >>
			   RG_REGION_POLICY_SHIFT;
	m.next = 0;
	/* Checked: one allocation per saved run, as the load reserved. */
	for (unsigned long u = 0; u < m.cap; u++)
		m.first[u] = m.used[u] && (!u || !m.used[u - 1]);
	check_all(f, r2);
}

/*
 * rg_region_load() of a saved record made bad: cut short or grown, a byte
 * changed, or a field rewritten with the checksum made good again (runs
 * overlapping, touching, empty or past the capacity; another capacity or
 * policy). Each gets the errno model_load_errno() names and builds
 * nothing, or (a rewrite that is still sound) exactly the record's runs.
 */
static void op_load_bad(struct fz *f, bool armed)
{
	size_t size = model_save(save_want), at;
	uint8_t k = fz_u8(f);
	struct rg_region *r2;

	memcpy(save_got, save_want, size);
	switch (k % 4) {
	case 0: /* truncated or oversized */
		if (fz_u8(f) & 1)
			size -= 1 + fz_below(f, size);
		else
			size += 1 + fz_below(f, 64);
		break;
	case 1: /* one byte changed */
		at = fz_below(f, size);
		save_got[at] ^= 1 + fz_below(f, 255);
		break;
	default: /* a field rewritten, the checksum recomputed */
		at = fz_below(f, (size - 4) / 8);
		if (at == 0) /* magic, version, policy, 0 byte */
			save_got[fz_below(f, 8)] ^= 1 + fz_below(f, 255);
		else if (fz_u8(f) & 1)
			put_le(save_got + 8 * at, fz_index(f), 8);
		else
			put_le(save_got + 8 * at,
			       get_le(save_got + 8 * at, 8) + fz_u8(f) - 128,
			       8);
		/* A capacity that stays small enough to check unit by unit. */
		if (get_le(save_got + 8, 8) > 2 * MAX_CAP)
			put_le(save_got + 8, 1 + fz_below(f, 2 * MAX_CAP), 8);
		put_le(save_got + size - 4, crc32c(save_got, size - 4), 4);
		break;
	}
	r2 = load_checked(f, save_got, size, pick_backend(f),
			  RG_REGION_LOAD_SAVED_POLICY, armed);
	rg_region_destroy(r2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rg_region_stats st0 = { 0 }, st1;
	struct rg_region *r;
	struct fz f;
	unsigned int flags;

	fz_init(&f, "region", data, size);
	m.backend = fz_u8(&f) % RG_REGION_NR_BACKENDS;
	m.policy = fz_u8(&f) % RG_REGION_NR_POLICIES;
	m.cap = fz_u16(&f);
	flags = fz_u8(&f);
	/* Mostly small instances (fast runs), sometimes up to MAX_CAP. */
	m.cap = 1 + m.cap % (flags & 2 ? MAX_CAP : 512);
	m.checked = flags & 4;
	flags = (flags & 1 ? RG_REGION_LOCKED : 0) |
		(m.checked ? RG_REGION_CHECKED : 0);
	if (!rg_region_backend_available(m.backend))
		return 0;
	memset(m.used, 0, sizeof(m.used));
	memset(m.first, 0, sizeof(m.first));
	m.free_units = m.cap;
	m.nr_live = 0;
	m.next = 0;
	r = create(&f, flags | RG_REGION_POLICY(m.policy));
	if (!r)
		return 0; /* a policy this backend does not offer */
	check_valid(&f, r);

	while (fz_more(&f)) {
		bool armed;
		unsigned int op = fz_op_begin(&f, &armed);

		if (armed)
			FZ_EQ(&f, rg_region_get_stats(r, &st0), 0, "get_stats");
		/*
		 * Opcodes 0-95 as before these calls came, 96-119 them, and
		 * 120-127 (two each) constrained requests, walks, save and
		 * load, bad loads.
		 */
		switch (op < 96	 ? op % 8 :
			op < 120 ? 8 + (op - 96) % 5 :
				   13 + (op - 120) / 2) {
		case 13:
			op_request(&f, r, armed);
			break;
		case 14:
			fz_op_end(&f, armed);
			op_walk(&f, r);
			break;
		case 15:
			op_save_load(&f, &r, armed);
			break;
		case 16:
			op_load_bad(&f, armed);
			break;
		case 12:
			op_resize(&f, r, armed);
			break;
		case 8:
			fz_op_end(&f, armed);
			op_policy(&f);
			break;
		case 9:
			fz_op_end(&f, armed);
			op_null(&f, r);
			break;
		case 10:
			fz_op_end(&f, armed);
			op_big(&f);
			break;
		case 11:
			op_alloc(&f, r, true, armed);
			break;
		case 0:
			op_alloc(&f, r, false, armed);
			break;
		case 1:
			op_free(&f, r, armed);
			break;
		case 2:
			op_reserve(&f, r, armed);
			break;
		case 3:
			fz_op_end(&f, armed);
			op_test(&f, r);
			break;
		case 4:
			fz_op_end(&f, armed);
			op_api(&f, r);
			break;
		case 6:
		case 7:
			fz_op_end(&f, armed);
			op_bulk(&f, r, op % 8 == 7);
			break;
		default:
			fz_op_end(&f, armed);
			op_stats(&f, r);
			break;
		}
		check_valid(&f, r);
		/*
		 * A failed call leaves the bytes held as they were; the IDA
		 * may keep a value chunk turned into a 128-byte bitmap.
		 */
		if (f.fired) {
			FZ_EQ(&f, rg_region_get_stats(r, &st1), 0, "get_stats");
			FZ_CHECK(&f,
				 st1.bytes_held == st0.bytes_held ||
					 (m.backend == RG_REGION_IDA &&
					  st1.bytes_held > st0.bytes_held &&
					  st1.bytes_held <=
						  st0.bytes_held + 128),
				 "bytes held %zu -> %zu across a failed call",
				 st0.bytes_held, st1.bytes_held);
		}
		if (f.op % 32 == 0)
			check_all(&f, r);
	}
	check_all(&f, r);
	rg_region_destroy(r);
	return 0;
}
