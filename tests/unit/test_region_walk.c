// SPDX-License-Identifier: MIT
/*
 * Region walking, fragmentation figures, save and load, on every backend
 * this build has, in lockstep with a brute-force model (an array of bools):
 *  - after each random mutation (validated), rg_region_next_run() from
 *    random start units (and, every few steps, from every unit) for each
 *    kind set, and rg_region_for_each_run() over the whole instance, equal
 *    the runs the model gives; the free-run count, histogram and
 *    fragmentation ratio in the stats equal the model's;
 *  - save and load round trips between every pair of backends give the
 *    same units, validate, and save to the same bytes; buffer and stream
 *    saves agree; the saved policy comes back with
 *    RG_REGION_LOAD_SAVED_POLICY;
 *  - every truncation length of a saved instance is refused with EINVAL,
 *    random bit flips with EINVAL or EBADMSG, and fields that are wrong
 *    under a valid checksum with EINVAL; never a crash or an instance;
 *  - every allocation of a load fails in turn (fault injection): NULL with
 *    ENOMEM, nothing leaked (ASan), then the load succeeds;
 *  - bad arguments get their documented errors;
 *  - the checksum is CRC-32C: the standard check value;
 *  - rg_hbitmap_next_run() directly: its bad arguments, and on a best-fit
 *    instance (summaries behind the bits) against the model.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "rg_run_model.h"
#include "rg_test.h"

#include "region/hbitmap.h"
#include "region/region.h"

#define NB RG_REGION_NR_BACKENDS
#define CAP 1500

static enum rg_region_backend ids[NB];
static unsigned int nids;
static struct rg_rand rng;
static bool model[CAP];

static const unsigned int kind_sets[3] = { RG_RUN_USED, RG_RUN_FREE,
					   RG_RUN_USED | RG_RUN_FREE };

static void check_from(struct rg_region *r, unsigned long from)
{
	for (int k = 0; k < 3; k++) {
		unsigned long s = 7, n = 9, ms = 0, mn = 0;
		int want = rg_model_next_run(model, CAP, from, kind_sets[k],
					     &ms, &mn);
		int got = rg_region_next_run(r, from, kind_sets[k], &s, &n);

		if (!want) {
			if (got != -ENOENT || s != 7 || n != 9)
				fail_msg("from %lu kinds %u: got %d, want "
					 "-ENOENT, untouched",
					 from, kind_sets[k], got);
			continue;
		}
		if (got != want || s != ms || n != mn)
			fail_msg("from %lu kinds %u: got %d %lu+%lu, want %d "
				 "%lu+%lu",
				 from, kind_sets[k], got, s, n, want, ms, mn);
	}
}

/* Stats and a full for-each walk against the model. */
static void check_walk_and_stats(struct rg_region *r)
{
	unsigned long hist[RG_REGION_HIST_BUCKETS] = { 0 };
	unsigned long s, n, u = 0, nfree = 0, largest = 0, runs = 0, ms, mn;
	struct rg_region_stats st;
	int kind;

	rg_region_for_each_run(r, 0, RG_RUN_USED | RG_RUN_FREE, kind, s, n)
	{
		assert_int_equal(rg_model_next_run(model, CAP, u,
						   RG_RUN_USED | RG_RUN_FREE,
						   &ms, &mn),
				 kind);
		assert_int_equal(s, ms);
		assert_int_equal(n, mn);
		u = s + n;
	}
	assert_int_equal(kind, -ENOENT);
	assert_int_equal(u, CAP);
	for (u = 0; u < CAP;) {
		if (model[u]) {
			u++;
			continue;
		}
		for (n = 0; u + n < CAP && !model[u + n]; n++)
			;
		runs++;
		nfree += n;
		largest = n > largest ? n : largest;
		hist[63 - __builtin_clzl(n)]++;
		u += n;
	}
	assert_int_equal(rg_region_get_stats(r, &st), 0);
	assert_int_equal(st.free_units, nfree);
	assert_int_equal(st.largest_free_run, largest);
	assert_int_equal(st.free_runs, runs);
	assert_memory_equal(st.free_run_hist, hist, sizeof(hist));
	if (nfree)
		assert_true(st.fragmentation ==
			    1.0 - (double)largest / (double)nfree);
	else
		assert_true(st.fragmentation == 0.0);
}

/* One random mutation, mirrored in the model when it succeeds. */
static void mutate(struct rg_region *r)
{
	unsigned long a = rg_rand_below(&rng, CAP), n, s;
	unsigned int op = (unsigned int)rg_rand_below(&rng, 3);
	int err;

	n = rg_rand_below(&rng, 8) ? rg_rand_range(&rng, 1, 12) :
				     rg_rand_range(&rng, 13, 200);
	if (n > CAP - a)
		n = CAP - a;
	if (op == 0) {
		err = rg_region_alloc(r, n, 0, &s);
		if (!err)
			a = s;
	} else if (op == 1) {
		/* free a piece of an allocated run, mostly */
		while (a < CAP && !model[a])
			a++;
		if (a == CAP)
			return;
		for (n = 1; a + n < CAP && model[a + n] && n < 40; n++)
			;
		n = rg_rand_range(&rng, 1, n);
		err = rg_region_free(r, a, n);
	} else {
		err = rg_region_reserve(r, a, n);
	}
	if (!err)
		for (unsigned long u = a; u < a + n; u++)
			model[u] = op != 1;
	RG_ASSERT_VALID(r);
}

static void test_walk_lockstep(void **state)
{
	enum rg_region_backend b = *(enum rg_region_backend *)*state;
	struct rg_region *r = rg_region_create_backend(b, CAP, 0);
	int steps = b == RG_REGION_IDA ? 150 : 600;

	assert_non_null(r);
	memset(model, 0, sizeof(model));
	check_walk_and_stats(r);
	for (unsigned long u = 0; u < CAP; u++)
		check_from(r, u);
	for (int i = 0; i < steps; i++) {
		mutate(r);
		check_walk_and_stats(r);
		for (int k = 0; k < 8; k++)
			check_from(r, rg_rand_below(&rng, CAP));
		if (i % 100 == 99)
			for (unsigned long u = 0; u < CAP; u++)
				check_from(r, u);
	}
	check_from(r, CAP);
	check_from(r, ULONG_MAX);
	rg_region_destroy(r);
}

/* Units of @r equal the model's. */
static void check_units(struct rg_region *r)
{
	for (unsigned long u = 0; u < CAP; u++)
		if ((rg_region_test(r, u) == 1) != model[u])
			fail_msg("unit %lu differs after load", u);
}

static unsigned char *save(struct rg_region *r, size_t *size)
{
	unsigned char *buf;

	*size = 0;
	assert_int_equal(rg_region_save(r, NULL, size), -ENOSPC);
	assert_true(*size >= RG_REGION_SAVE_SIZE(0));
	buf = malloc(*size);
	assert_non_null(buf);
	assert_int_equal(rg_region_save(r, buf, size), 0);
	return buf;
}

static void test_save_load_pairs(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < nids; i++) {
		struct rg_region *r = rg_region_create_backend(ids[i], CAP, 0);
		unsigned char *buf, *buf2;
		char *fbuf;
		size_t size, size2, fsize = 0;
		FILE *f;

		assert_non_null(r);
		memset(model, 0, sizeof(model));
		for (int k = 0; k < 300; k++)
			mutate(r);
		model[CAP - 1] =
			model[CAP - 1] || !rg_region_reserve(r, CAP - 1, 1);
		buf = save(r, &size);
		/* the stream save writes the same bytes */
		f = open_memstream(&fbuf, &fsize);
		assert_non_null(f);
		assert_int_equal(rg_region_save_file(r, f), 0);
		assert_int_equal(fclose(f), 0);
		assert_int_equal(fsize, size);
		assert_memory_equal(fbuf, buf, size);
		free(fbuf);
		for (unsigned int j = 0; j < nids; j++) {
			struct rg_region *l =
				rg_region_load(buf, size, ids[j], 0);

			assert_non_null(l);
			RG_ASSERT_VALID(l);
			check_units(l);
			check_walk_and_stats(l);
			buf2 = save(l, &size2);
			assert_int_equal(size2, size);
			assert_memory_equal(buf2, buf, size);
			free(buf2);
			/* from a stream, with something after it */
			f = fmemopen(NULL, size + 3, "w+");
			assert_non_null(f);
			assert_int_equal(fwrite(buf, 1, size, f), size);
			assert_int_equal(fwrite("abc", 1, 3, f), 3);
			rewind(f);
			rg_region_destroy(l);
			l = rg_region_load_file(f, ids[j], RG_REGION_LOCKED);
			assert_non_null(l);
			check_units(l);
			assert_int_equal(fgetc(f), 'a');
			fclose(f);
			rg_region_destroy(l);
		}
		free(buf);
		rg_region_destroy(r);
	}
}

static void test_saved_policy(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < nids; i++) {
		for (unsigned int p = 0; p < RG_REGION_NR_POLICIES; p++) {
			struct rg_region *r, *l;
			unsigned long s, s2;
			unsigned char *buf;
			size_t size;

			if (!rg_region_backend_has_policy(
				    ids[i], (enum rg_region_policy)p))
				continue;
			r = rg_region_create_backend(ids[i], 100,
						     RG_REGION_POLICY(p));
			assert_non_null(r);
			assert_int_equal(rg_region_reserve(r, 10, 5), 0);
			assert_int_equal(rg_region_reserve(r, 40, 5), 0);
			buf = save(r, &size);
			assert_int_equal(buf[6], p);
			l = rg_region_load(buf, size, ids[i],
					   RG_REGION_LOAD_SAVED_POLICY);
			assert_non_null(l);
			/* the same policy places the same way */
			assert_int_equal(rg_region_alloc(r, 3, 0, &s), 0);
			assert_int_equal(rg_region_alloc(l, 3, 0, &s2), 0);
			assert_int_equal(s, s2);
			rg_region_destroy(l);
			/* both a policy and the saved one: EINVAL */
			errno = 0;
			assert_null(rg_region_load(
				buf, size, ids[i],
				RG_REGION_LOAD_SAVED_POLICY |
					RG_REGION_POLICY(RG_REGION_TOP_DOWN)));
			assert_int_equal(errno, EINVAL);
			free(buf);
			rg_region_destroy(r);
		}
	}
}

static struct rg_region *sample(size_t *size, unsigned char **buf)
{
	struct rg_region *r =
		rg_region_create_backend(RG_REGION_HBITMAP, CAP, 0);

	assert_non_null(r);
	memset(model, 0, sizeof(model));
	for (int k = 0; k < 60; k++)
		mutate(r);
	*buf = save(r, size);
	return r;
}

/*
 * A stream is read as long as its header says: one whose run count was
 * lowered reads as a shorter record whose checksum fails.
 */
static bool stream_badmsg;

static void expect_refused(const unsigned char *buf, size_t size, int e1,
			   int e2)
{
	for (unsigned int j = 0; j < nids; j++) {
		struct rg_region *l;
		FILE *f;

		errno = 0;
		l = rg_region_load(buf, size, ids[j], 0);
		if (l)
			fail_msg("%zu bytes loaded", size);
		if (errno != e1 && errno != e2)
			fail_msg("%zu bytes: errno %d", size, errno);
		/* the stream gives the same error */
		f = fmemopen(NULL, size + 1, "w+");
		assert_non_null(f);
		if (size)
			assert_int_equal(fwrite(buf, 1, size, f), size);
		rewind(f);
		errno = 0;
		assert_null(rg_region_load_file(f, ids[j], 0));
		if (errno != e1 && errno != e2 &&
		    !(stream_badmsg && errno == EBADMSG))
			fail_msg("%zu bytes from a stream: errno %d", size,
				 errno);
		fclose(f);
	}
}

static void test_truncation(void **state)
{
	unsigned char *buf;
	size_t size;
	struct rg_region *r = sample(&size, &buf);

	(void)state;
	for (size_t len = 0; len < size; len++)
		expect_refused(buf, len, EINVAL, EINVAL);
	rg_region_destroy(r);
	free(buf);
}

static void test_bit_flips(void **state)
{
	unsigned char *buf;
	size_t size;
	struct rg_region *r = sample(&size, &buf);
	int flips = RG_THOROUGH ? 300 : 1000;

	(void)state;
	/* every bit of the header and checksum, random bits elsewhere */
	for (size_t bit = 0; bit < 8 * size; bit++) {
		if (bit >= 8 * 24 && bit < 8 * (size - 4) && flips-- <= 0)
			continue;
		if (bit >= 8 * 24 && bit < 8 * (size - 4) &&
		    rg_rand_below(&rng, 4))
			continue;
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		expect_refused(buf, size, EINVAL, EBADMSG);
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
	}
	/* a few random multi-bit corruptions */
	for (int k = 0; k < 200; k++) {
		size_t at = rg_rand_below(&rng, size);
		unsigned char old = buf[at];

		buf[at] ^= (unsigned char)rg_rand_range(&rng, 1, 255);
		expect_refused(buf, size, EINVAL, EBADMSG);
		buf[at] = old;
	}
	rg_region_destroy(r);
	free(buf);
}

/* Little-endian store, and the checksum recomputed: well-formed lies. */
static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t ref_crc32c(const unsigned char *p, size_t n)
{
	uint32_t c = ~0u;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
	}
	return ~c;
}

static void reseal(unsigned char *buf, size_t size)
{
	uint32_t c = ref_crc32c(buf, size - 4);

	for (int i = 0; i < 4; i++)
		buf[size - 4 + i] = (unsigned char)(c >> (8 * i));
}

static void test_bad_fields(void **state)
{
	unsigned char b[28 + 3 * 16];
	size_t size = sizeof(b);
	struct {
		unsigned int off;
		uint64_t v;
		unsigned int bytes;
	} lies[] = {
		{ 0, 'X', 1 }, /* magic */
		{ 4, 2, 1 }, /* version */
		{ 6, 4, 1 }, /* policy */
		{ 7, 1, 1 }, /* reserved */
		{ 8, 0, 8 }, /* capacity 0 */
		{ 8, 20, 8 }, /* runs past the capacity */
		{ 16, 2, 8 }, /* run count disagrees with the size */
		{ 16, ~0ULL, 8 }, /* absurd run count */
		{ 24 + 8, 0, 8 }, /* empty run */
		{ 40, 2, 8 }, /* run overlaps the previous one */
		{ 40, 3, 8 }, /* run touches the previous one */
		{ 56, 95, 8 }, /* last run passes the capacity */
		{ 56 + 8, ~0ULL, 8 }, /* length overflows */
	};

	(void)state;
	for (unsigned int i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		memcpy(b, "RGRN\1\0\0\0", 8);
		put64(b + 8, 100);
		put64(b + 16, 3);
		put64(b + 24, 0); /* runs [0,3) [10,15) [90,100) */
		put64(b + 32, 3);
		put64(b + 40, 10);
		put64(b + 48, 5);
		put64(b + 56, 90);
		put64(b + 64, 10);
		reseal(b, size);
		if (i == 0) { /* the well-formed one loads */
			struct rg_region *l =
				rg_region_load(b, size, ids[0], 0);

			assert_non_null(l);
			assert_int_equal(rg_region_test(l, 2), 1);
			assert_int_equal(rg_region_test(l, 3), 0);
			assert_int_equal(rg_region_test(l, 99), 1);
			rg_region_destroy(l);
		}
		for (unsigned int k = 0; k < lies[i].bytes; k++)
			b[lies[i].off + k] =
				(unsigned char)(lies[i].v >> (8 * k));
		reseal(b, size);
		stream_badmsg = lies[i].off == 16 && lies[i].v == 2;
		expect_refused(b, size, EINVAL, EINVAL);
		stream_badmsg = false;
	}
	/* a capacity the backend does not take */
	memcpy(b, "RGRN\1\0\0\0", 8);
	put64(b + 8, (uint64_t)INT_MAX + 2);
	put64(b + 16, 0);
	reseal(b, 28);
	for (unsigned int j = 0; j < nids; j++) {
		if (ids[j] != RG_REGION_IDA)
			continue;
		errno = 0;
		assert_null(rg_region_load(b, 28, ids[j], 0));
		assert_int_equal(errno, EINVAL);
	}
}

static void test_load_faults(void **state)
{
	unsigned char *buf;
	size_t size;
	struct rg_region *r = sample(&size, &buf);

	(void)state;
	for (unsigned int j = 0; j < nids; j++) {
		for (int stream = 0; stream < 2; stream++) {
			struct rg_region *l;
			unsigned long k, fired = 0;

			for (k = 1;; k++) {
				FILE *f = NULL;

				if (stream) {
					f = fmemopen(buf, size, "r");
					assert_non_null(f);
				}
				rg_fault_inject(k);
				errno = 0;
				l = stream ? rg_region_load_file(f, ids[j], 0) :
					     rg_region_load(buf, size, ids[j],
							    0);
				if (f)
					fclose(f);
				if (!rg_fault_fired())
					break;
				rg_fault_inject(0);
				assert_null(l);
				assert_int_equal(errno, ENOMEM);
				fired++;
			}
			rg_fault_inject(0);
			assert_non_null(l);
			RG_ASSERT_VALID(l);
			check_units(l);
			assert_true(fired >= 1);
			rg_region_destroy(l);
		}
	}
	rg_region_destroy(r);
	free(buf);
}

static void test_bad_arguments(void **state)
{
	struct rg_region *r = rg_region_create_backend(ids[0], 100, 0);
	unsigned long s = 1, n = 2;
	size_t size = 5;
	unsigned char buf[64];

	(void)state;
	assert_non_null(r);
	assert_int_equal(rg_region_next_run(NULL, 0, RG_RUN_FREE, &s, &n),
			 -EINVAL);
	assert_int_equal(rg_region_next_run(r, 0, 0, &s, &n), -EINVAL);
	assert_int_equal(rg_region_next_run(r, 0, 4, &s, &n), -EINVAL);
	assert_int_equal(rg_region_next_run(r, 0, RG_RUN_FREE, NULL, &n),
			 -EINVAL);
	assert_int_equal(rg_region_next_run(r, 0, RG_RUN_FREE, &s, NULL),
			 -EINVAL);
	assert_int_equal(rg_region_next_run(r, 0, RG_RUN_USED, &s, &n),
			 -ENOENT);
	assert_int_equal(rg_region_next_run(r, 100, RG_RUN_FREE, &s, &n),
			 -ENOENT);
	assert_int_equal(s, 1);
	assert_int_equal(n, 2);
	assert_int_equal(rg_region_save(NULL, buf, &size), -EINVAL);
	assert_int_equal(rg_region_save(r, buf, NULL), -EINVAL);
	assert_int_equal(rg_region_save(r, buf, &size), -ENOSPC);
	assert_int_equal(size, RG_REGION_SAVE_SIZE(0));
	assert_int_equal(rg_region_save_file(NULL, stdout), -EINVAL);
	assert_int_equal(rg_region_save_file(r, NULL), -EINVAL);
	errno = 0;
	assert_null(rg_region_load(NULL, 28, ids[0], 0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(rg_region_load_file(NULL, ids[0], 0));
	assert_int_equal(errno, EINVAL);
	size = sizeof(buf);
	assert_int_equal(rg_region_save(r, buf, &size), 0);
	errno = 0;
	assert_null(rg_region_load(buf, size, RG_REGION_NR_BACKENDS, 0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(rg_region_load(buf, size, ids[0], 0x40000000u));
	assert_int_equal(errno, EINVAL);
	{ /* a failing stream: -EIO */
		FILE *f = fopen("/dev/full", "w");

		if (f) {
			setvbuf(f, NULL, _IONBF, 0);
			assert_int_equal(rg_region_save_file(r, f), -EIO);
			fclose(f);
		}
	}
	rg_region_destroy(r);
}

/* The checksum is CRC-32C: its check value over "123456789". */
static void test_crc32c(void **state)
{
	unsigned char b[28];

	(void)state;
	assert_int_equal(ref_crc32c((const unsigned char *)"123456789", 9),
			 0xe3069283u);
	/* an empty instance of capacity 9 carries the reference's CRC */
	{
		struct rg_region *r = rg_region_create_backend(ids[0], 9, 0);
		size_t size = sizeof(b);
		uint32_t c;

		assert_non_null(r);
		assert_int_equal(rg_region_save(r, b, &size), 0);
		c = (uint32_t)b[24] | (uint32_t)b[25] << 8 |
		    (uint32_t)b[26] << 16 | (uint32_t)b[27] << 24;
		assert_int_equal(c, ref_crc32c(b, 24));
		assert_memory_equal(b, "RGRN\1\0\0\0\x09\0\0\0\0\0\0\0", 16);
		rg_region_destroy(r);
	}
}

static void test_hbitmap_next_run(void **state)
{
	struct rg_hbitmap *hb = rg_hbitmap_create_flags(CAP, 0);
	struct rg_hbitmap *bf =
		rg_hbitmap_create_flags(CAP, RG_HBITMAP_BEST_FIT);
	uint64_t s = 3, n = 4, s2, n2, st;

	(void)state;
	assert_non_null(hb);
	assert_non_null(bf);
	assert_int_equal(rg_hbitmap_next_run(NULL, 0, 0, &s, &n), -EINVAL);
	assert_int_equal(rg_hbitmap_next_run(hb, 0, 0, NULL, &n), -EINVAL);
	assert_int_equal(rg_hbitmap_next_run(hb, 0, 0, &s, NULL), -EINVAL);
	assert_int_equal(rg_hbitmap_next_run(hb, 0, 1, &s, &n), -ENOENT);
	assert_int_equal(rg_hbitmap_next_run(hb, CAP, 0, &s, &n), -ENOENT);
	assert_int_equal(s, 3);
	assert_int_equal(n, 4);
	assert_int_equal(rg_hbitmap_next_run(hb, 5, 0, &s, &n), 0);
	assert_int_equal(s, 5);
	assert_int_equal(n, CAP - 5);
	/* best fit leaves the summaries behind: the word scan answers */
	memset(model, 0, sizeof(model));
	for (int i = 0; i < 400; i++) {
		uint64_t len = rg_rand_range(&rng, 1, 30);

		if (rg_rand_below(&rng, 3)) {
			if (rg_hbitmap_alloc_best(bf, len, 1, &st))
				continue;
			assert_int_equal(rg_hbitmap_alloc_best(hb, len, 1, &s2),
					 -EOPNOTSUPP);
			for (uint64_t u = st; u < st + len; u++)
				model[u] = true;
		} else {
			st = rg_rand_below(&rng, CAP - len);
			if (rg_hbitmap_free(bf, st, len))
				continue;
			for (uint64_t u = st; u < st + len; u++)
				model[u] = false;
		}
		for (int k = 0; k < 4; k++) {
			unsigned long from = rg_rand_below(&rng, CAP), ms, mn;
			int want = rg_rand_below(&rng, 2) ? 5 :
							    0; /* any nonzero */
			int got = rg_model_next_run(
				model, CAP, from,
				want ? RG_RUN_USED : RG_RUN_FREE, &ms, &mn);

			if (!got) {
				assert_int_equal(rg_hbitmap_next_run(bf, from,
								     want, &s2,
								     &n2),
						 -ENOENT);
				continue;
			}
			assert_int_equal(
				rg_hbitmap_next_run(bf, from, want, &s2, &n2),
				0);
			assert_int_equal(s2, ms);
			assert_int_equal(n2, mn);
		}
	}
	rg_hbitmap_destroy(hb);
	rg_hbitmap_destroy(bf);
}

int main(void)
{
	struct CMUnitTest tests[NB + 9];
	size_t nt = 0;

	rg_rand_seed(&rng, rg_test_seed());
	for (unsigned int b = 0; b < NB; b++) {
		if (!rg_region_backend_available((enum rg_region_backend)b))
			continue;
		ids[nids] = (enum rg_region_backend)b;
		tests[nt] = (struct CMUnitTest)cmocka_unit_test_prestate(
			test_walk_lockstep, &ids[nids]);
		tests[nt++].name = rg_region_backend_name(ids[nids]);
		nids++;
	}
	tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_save_load_pairs);
	tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_saved_policy);
	tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_truncation);
	tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_bit_flips);
	tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_bad_fields);
	tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_load_faults);
	tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_bad_arguments);
	tests[nt++] = (struct CMUnitTest)cmocka_unit_test(test_crc32c);
	tests[nt++] =
		(struct CMUnitTest)cmocka_unit_test(test_hbitmap_next_run);
	return _cmocka_run_group_tests("region_walk", tests, nt, NULL, NULL);
}
