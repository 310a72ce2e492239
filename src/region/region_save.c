// SPDX-License-Identifier: MIT
/*
 * region save and load: theory of operation.
 *
 * Save. The allocated runs, walked in address order, are written in the
 * format region.h documents (little-endian, byte by byte, whatever the
 * host), followed by a CRC-32C of everything before it. Since runs are
 * maximal and units are what every backend tracks, the bytes depend only
 * on which units are allocated (and the policy byte), not on the backend.
 *
 * Load. The input is checked entirely before anything is built: size,
 * magic, version, fields, checksum (-EBADMSG), then every run (in order,
 * separated by a free unit, inside the capacity). Only then is the
 * instance created and each run reserved; a reservation that fails (out
 * of memory) destroys the instance, so the caller gets a whole instance or
 * none. A stream is read into a buffer first (rg_region_load_file), which
 * doubles as bytes arrive, so a lying header costs no more than twice the
 * bytes present.
 *
 * The checksum is CRC-32C (Castagnoli polynomial, reflected, initial and
 * final value all ones), a byte at a time from a 256-entry table built on
 * first use (pthread_once): a dozen lines, and no library for consumers to
 * link (libregion depends on nothing but libc, pthreads and liburcu).
 * Integers are read and written byte by byte, or as one 8-byte copy on
 * little-endian hosts, so the format is the same everywhere.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "region_internal.h"

#define SAVE_MAGIC "RGRN"
#define SAVE_HEADER 24
#define SAVE_RUN 16
#define SAVE_CRC 4

/* ---- CRC-32C ---------------------------------------------------------- */

/* The reflected Castagnoli polynomial. */
#define CRC32C_POLY 0x82f63b78u

/* crc_table[b]: the CRC register after shifting byte b through it. */
static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_table_init(void)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = b;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC32C_POLY & (0u - (c & 1)));
		crc_table[b] = c;
	}
}

/* Continue a CRC-32C over @len bytes; start from 0, the result is final. */
static uint32_t crc32c(uint32_t crc, const void *p, size_t len)
{
	const unsigned char *b = p;

	pthread_once(&crc_once, crc_table_init);
	crc = ~crc;
	while (len--)
		crc = (crc >> 8) ^ crc_table[(crc ^ *b++) & 0xff];
	return ~crc;
}

/* ---- save ------------------------------------------------------------ */

static void put_le(unsigned char *p, uint64_t v, unsigned int bytes)
{
	for (unsigned int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The 8-byte cases, as single loads and stores where the host allows. */
static inline void put_le64(unsigned char *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, 8);
#else
	put_le(p, v, 8);
#endif
}

static inline uint64_t get_le64(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
#else
	return get_le(p, 8);
#endif
}

static void header(struct rg_region *r, unsigned long nruns, unsigned char *h)
{
	memcpy(h, SAVE_MAGIC, 4);
	put_le(h + 4, RG_REGION_SAVE_VERSION, 2);
	h[6] = (unsigned char)r->policy;
	h[7] = 0;
	put_le(h + 8, r->capacity, 8);
	put_le(h + 16, nruns, 8);
}

/* Lock held: the number of allocated runs. */
static unsigned long count_used_runs(struct rg_region *r)
{
	unsigned long from = 0, s, n, nruns = 0;

	while (from < r->capacity &&
	       rgi_region_next_run_locked(r, from, RG_RUN_USED, &s, &n) > 0) {
		nruns++;
		from = s + n;
	}
	return nruns;
}

int rg_region_save(struct rg_region *r, void *buf, size_t *size)
{
	unsigned long from = 0, s, n, nruns;
	unsigned char *p = buf;
	size_t need;

	if (!r || !size)
		return -EINVAL;
	rgi_region_lock(r);
	nruns = count_used_runs(r);
	need = RG_REGION_SAVE_SIZE(nruns);
	if (!buf || *size < need) {
		rgi_region_unlock(r);
		*size = need;
		return -ENOSPC;
	}
	header(r, nruns, p);
	p += SAVE_HEADER;
	while (from < r->capacity &&
	       rgi_region_next_run_locked(r, from, RG_RUN_USED, &s, &n) > 0) {
		put_le64(p, s);
		put_le64(p + 8, n);
		p += SAVE_RUN;
		from = s + n;
	}
	rgi_region_unlock(r);
	put_le(p, crc32c(0, buf, need - SAVE_CRC), 4);
	*size = need;
	return 0;
}

int rg_region_save_file(struct rg_region *r, FILE *f)
{
	unsigned long from = 0, s, n;
	unsigned char b[SAVE_HEADER];
	uint32_t crc;
	int err = 0;

	if (!r || !f)
		return -EINVAL;
	rgi_region_lock(r);
	header(r, count_used_runs(r), b);
	crc = crc32c(0, b, SAVE_HEADER);
	if (fwrite(b, SAVE_HEADER, 1, f) != 1)
		err = -EIO;
	while (!err && from < r->capacity &&
	       rgi_region_next_run_locked(r, from, RG_RUN_USED, &s, &n) > 0) {
		put_le64(b, s);
		put_le64(b + 8, n);
		crc = crc32c(crc, b, SAVE_RUN);
		if (fwrite(b, SAVE_RUN, 1, f) != 1)
			err = -EIO;
		from = s + n;
	}
	rgi_region_unlock(r);
	put_le(b, crc, 4);
	if (!err && fwrite(b, SAVE_CRC, 1, f) != 1)
		err = -EIO;
	return err;
}

/* ---- load ------------------------------------------------------------ */

/* The header's run count if @p's first SAVE_HEADER bytes are sound. */
static int check_header(const unsigned char *p, uint64_t *cap, uint64_t *nruns)
{
	if (memcmp(p, SAVE_MAGIC, 4) ||
	    get_le(p + 4, 2) != RG_REGION_SAVE_VERSION ||
	    p[6] >= RG_REGION_NR_POLICIES || p[7])
		return -EINVAL;
	*cap = get_le(p + 8, 8);
	*nruns = get_le(p + 16, 8);
	/* Runs are at least 1 unit and 1 apart: at most (cap + 1) / 2. */
	if (!*cap || *cap > ULONG_MAX || *nruns > *cap / 2 + 1 ||
	    *nruns > (SIZE_MAX - SAVE_HEADER - SAVE_CRC) / SAVE_RUN)
		return -EINVAL;
	return 0;
}

/* 0 if the runs are in order, apart and inside the capacity. */
static int check_runs(const unsigned char *p, uint64_t cap, uint64_t nruns)
{
	uint64_t next = 0; /* lowest start the next run may have */

	for (uint64_t i = 0; i < nruns; i++, p += SAVE_RUN) {
		uint64_t s = get_le64(p), n = get_le64(p + 8);

		if (!n || s < next || s >= cap || n > cap - s)
			return -EINVAL;
		next = s + n + 1; /* may pass cap: then no run may follow */
		if (next <= s) /* s + n == 2^64 - 1 and cap = 2^64 - 1 */
			next = UINT64_MAX;
	}
	return 0;
}

struct rg_region *rg_region_load(const void *buf, size_t size,
				 enum rg_region_backend backend,
				 unsigned int flags)
{
	const unsigned char *p = buf;
	uint64_t cap, nruns;
	struct rg_region *r;
	int err;

	if (!buf || size < SAVE_HEADER + SAVE_CRC ||
	    (flags & RG_REGION_LOAD_SAVED_POLICY &&
	     flags & RG_REGION_POLICY_MASK)) {
		errno = EINVAL;
		return NULL;
	}
	err = check_header(p, &cap, &nruns);
	if (!err && size != RG_REGION_SAVE_SIZE(nruns))
		err = -EINVAL;
	if (!err &&
	    get_le(p + size - SAVE_CRC, 4) != crc32c(0, p, size - SAVE_CRC))
		err = -EBADMSG;
	if (!err)
		err = check_runs(p + SAVE_HEADER, cap, nruns);
	if (err) {
		errno = -err;
		return NULL;
	}
	if (flags & RG_REGION_LOAD_SAVED_POLICY)
		flags = (flags & ~RG_REGION_LOAD_SAVED_POLICY) |
			RG_REGION_POLICY(p[6]);
	r = rg_region_create_backend(backend, (unsigned long)cap, flags);
	if (!r)
		return NULL;
	p += SAVE_HEADER;
	for (uint64_t i = 0; i < nruns; i++, p += SAVE_RUN) {
		err = rg_region_reserve(r, (unsigned long)get_le64(p),
					(unsigned long)get_le64(p + 8));
		if (err) {
			rg_region_destroy(r);
			errno = -err;
			return NULL;
		}
	}
	return r;
}

/* Read exactly @n bytes: 0, -EINVAL at the end of the stream, -EIO. */
static int read_exact(FILE *f, unsigned char *p, size_t n)
{
	size_t got = fread(p, 1, n, f);

	if (got == n)
		return 0;
	return ferror(f) ? -EIO : -EINVAL;
}

struct rg_region *rg_region_load_file(FILE *f, enum rg_region_backend backend,
				      unsigned int flags)
{
	unsigned char h[SAVE_HEADER], *buf = NULL, *nb;
	size_t size, have = SAVE_HEADER, alloc = 0;
	uint64_t cap, nruns;
	struct rg_region *r = NULL;
	int err;

	if (!f) {
		errno = EINVAL;
		return NULL;
	}
	err = read_exact(f, h, SAVE_HEADER);
	if (!err)
		err = check_header(h, &cap, &nruns);
	if (err) {
		errno = -err;
		return NULL;
	}
	size = RG_REGION_SAVE_SIZE(nruns);
	while (!err && have < size) {
		size_t want = RGI_MIN(size, RGI_MAX(alloc * 2, (size_t)4096));

		nb = rgi_malloc(want);
		if (!nb) {
			err = -ENOMEM;
			break;
		}
		memcpy(nb, buf ? buf : h, have);
		rgi_free(buf);
		buf = nb;
		alloc = want;
		err = read_exact(f, buf + have, want - have);
		have = want;
	}
	if (!err) {
		r = rg_region_load(buf, size, backend, flags);
		err = r ? 0 : -errno;
	}
	rgi_free(buf);
	if (err)
		errno = -err;
	return r;
}
