// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the region API on every backend, against a bool array.
 *
 * Input: backend byte, placement-policy byte, capacity (2 bytes), flags
 * byte, then operations: alloc, free, reserve, test, stats, bulk allocs and
 * frees, the by-name and policy calls, NULL arguments and creation errors,
 * and a second instance at a large capacity. Every operation's result is compared with the
 * model: the start an allocation returns (the model's own search under the
 * chosen policy), each error code, test() of units, and the figures of
 * get_stats(). The instance is validated after every operation, compared
 * unit by unit every 32 operations, after every fired fault and at the end.
 *
 * Placement policies live in one place: model_place() computes the start
 * each one picks (first, best, top-down, next fit, as region.h defines
 * them), and the input's policy byte selects one, passed to creation as
 * RG_REGION_POLICY(). A combination a backend does not offer must fail
 * creation with EOPNOTSUPP. Built against a region.h without policies,
 * the target runs first fit only.
 */
#include "fuzz.h"

#include "region/region.h"

#define MAX_CAP 4096
#define MAX_LIVE 256

#ifdef RG_REGION_POLICY_SHIFT
#define FZ_NR_POLICIES RG_REGION_NR_POLICIES
#define FZ_POLICY_FLAGS(p) RG_REGION_POLICY(p)
#else
#define FZ_NR_POLICIES 1
#define FZ_POLICY_FLAGS(p) 0u
#endif

struct live {
	unsigned long start, n;
};

struct model {
	unsigned long cap;
	unsigned int policy;
	unsigned long
		next; /* next fit: end of the previous rg_region_alloc() */
	enum rg_region_backend backend;
	bool used[MAX_CAP];
	unsigned long free_units;
	struct live live[MAX_LIVE];
	unsigned int nr_live;
};

static struct model m;

static bool run_free(unsigned long s, unsigned long n)
{
	for (unsigned long u = s; u < s + n; u++)
		if (m.used[u])
			return false;
	return true;
}

/* The last used unit in [s, s + n), or -1 if all are free. */
static long last_used(unsigned long s, unsigned long n)
{
	for (unsigned long u = s + n; u-- > s;)
		if (m.used[u])
			return (long)u;
	return -1;
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
 * The lowest aligned start at or after @from where @n units fit, or -1.
 * A window holding a used unit is left past its last used unit.
 */
static long lowest_fit(unsigned long from, unsigned long n, unsigned long a)
{
	unsigned long s = (from + a - 1) / a * a;
	long u;

	while (s + n <= m.cap && s >= from) {
		u = last_used(s, n);
		if (u < 0)
			return (long)s;
		s = ((unsigned long)u + a) / a * a;
	}
	return -1;
}

/* Best fit: the shortest free run holding the request, lowest among equals. */
static long best_fit(unsigned long n, unsigned long a)
{
	unsigned long best_len = ~0UL, u = 0;
	long best = -1;

	while (u < m.cap) {
		unsigned long lo, hi, s;

		if (m.used[u]) {
			u++;
			continue;
		}
		for (lo = u; u < m.cap && !m.used[u]; u++)
			;
		hi = u; /* run [lo, hi) */
		s = (lo + a - 1) / a * a;
		if (s < hi && hi - s >= n && hi - lo < best_len) {
			best_len = hi - lo;
			best = (long)s;
		}
	}
	return best;
}

/* The start the policy picks for @n units aligned to @align, or -1. */
static long model_place(unsigned long n, unsigned long align)
{
	unsigned long a = align ? align : 1;
	long s;

	switch (m.policy) {
	case 1: /* best fit */
		return best_fit(n, a);
	case 2: /* top down: the highest aligned start that fits */
		for (s = (long)((m.cap - n) / a * a); s >= 0;) {
			long u = first_used((unsigned long)s, n);

			if (u < 0)
				return s;
			if ((unsigned long)u < n)
				return -1;
			s = (long)(((unsigned long)u - n) / a * a);
		}
		return -1;
	case 3: /* next fit, wrapping once */
		s = lowest_fit(m.next, n, a);
		return s >= 0 ? s : lowest_fit(0, n, a);
	default: /* first fit */
		return lowest_fit(0, n, a);
	}
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
	for (unsigned long u = s; u < s + n; u++)
		m.used[u] = used;
	if (used)
		m.free_units -= n;
	else
		m.free_units += n;
}

/* Record a successful rg_region_alloc() of [s, s + n). */
static void model_alloc(unsigned long s, unsigned long n)
{
	model_mark(s, n, true);
	/*
	 * The cursor is the end itself, the capacity included: a search from
	 * it finds nothing and wraps, and after a grow it starts there.
	 */
	m.next = s + n;
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
	model_alloc(start, n);
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
	if (!range_ok(s, n))
		exp = -EINVAL;
	else {
		exp = 0;
		for (unsigned long u = s; u < s + n; u++)
			if (!m.used[u])
				exp = -ENOENT;
	}
	FZ_CHECK(f, rc == exp, "free(%lu, %lu) = %d, want %d", s, n, rc, exp);
	if (!rc)
		model_mark(s, n, false);
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
			FZ_EQ(f, rc, run_used(l.start, l.n) ? 0 : -ENOENT,
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
		model_alloc(start, n);
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
	FZ_EQ(f, rg_region_backend_lookup(bad[fz_u8(f) % 4], &b), -ENOENT,
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
	FZ_CHECK(f, !rg_region_create("no-such", 16, 0) && errno == ENOENT,
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
				       FZ_POLICY_FLAGS(m.policy));
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rg_region_stats st0 = { 0 }, st1;
	struct rg_region *r;
	struct fz f;
	unsigned int flags;

	fz_init(&f, "region", data, size);
	m.backend = fz_u8(&f) % RG_REGION_NR_BACKENDS;
	m.policy = fz_u8(&f) % FZ_NR_POLICIES;
	m.cap = fz_u16(&f);
	flags = fz_u8(&f);
	/* Mostly small instances (fast runs), sometimes up to MAX_CAP. */
	m.cap = 1 + m.cap % (flags & 2 ? MAX_CAP : 512);
	flags = flags & 1 ? RG_REGION_LOCKED : 0;
	if (!rg_region_backend_available(m.backend))
		return 0;
	memset(m.used, 0, sizeof(m.used));
	m.free_units = m.cap;
	m.nr_live = 0;
	m.next = 0;
	r = create(&f, flags | FZ_POLICY_FLAGS(m.policy));
	if (!r)
		return 0; /* a policy this backend does not offer */
	check_valid(&f, r);

	while (fz_more(&f)) {
		bool armed;
		unsigned int op = fz_op_begin(&f, &armed);

		if (armed)
			FZ_EQ(&f, rg_region_get_stats(r, &st0), 0, "get_stats");
		/* Opcodes 0-95 as before these calls came, 96-127 them. */
		switch (op < 96 ? op % 8 : 8 + (op - 96) % 5) {
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
