/* SPDX-License-Identifier: MIT */
/*
 * Shared pieces of the fuzz targets.
 *
 * Every target is one LLVMFuzzerTestOneInput() that decodes its input into
 * a short program of operations, runs each one on the structure under test
 * and on a plain reference model (a bool array, a sorted array of ranges),
 * compares every result, and validates the structure after every operation.
 * Operations whose first byte has FZ_FAULT set run with an allocation
 * failure armed (rg_fault_inject()); when it fires, the call must fail with
 * -ENOMEM (or NULL, or 0) and leave the structure equal to the model.
 *
 * A mismatch prints one line naming the target, the operation number and
 * what differed, then calls abort(), which libFuzzer and the corpus driver
 * both report as a crash.
 *
 * Input decoding never fails: reading past the end yields zeros, so every
 * byte string is a valid program and the fuzzer never wastes executions.
 */
#ifndef RG_FUZZ_H
#define RG_FUZZ_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "region/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The opcode bit that arms a fault for the operation. */
#define FZ_FAULT 0x80u

/* Cursor over the input. */
struct fz {
	const uint8_t *p;
	size_t n;
	unsigned long op; /* operations decoded so far, for messages */
	const char *target;
	bool fired; /* the last operation's armed failure fired */
};

static inline void fz_init(struct fz *f, const char *target,
			   const uint8_t *data, size_t size)
{
	f->p = data;
	f->n = size;
	f->op = 0;
	f->target = target;
	f->fired = false;
}

static inline bool fz_more(const struct fz *f)
{
	return f->n > 0;
}

static inline uint8_t fz_u8(struct fz *f)
{
	if (!f->n)
		return 0;
	f->n--;
	return *f->p++;
}

static inline uint16_t fz_u16(struct fz *f)
{
	uint16_t v = fz_u8(f);

	return (uint16_t)(v | (uint16_t)fz_u8(f) << 8);
}

static inline uint32_t fz_u32(struct fz *f)
{
	uint32_t v = fz_u16(f);

	return v | (uint32_t)fz_u16(f) << 16;
}

static inline uint64_t fz_u64(struct fz *f)
{
	uint64_t v = fz_u32(f);

	return v | (uint64_t)fz_u32(f) << 32;
}

/* A value below @bound (@bound > 0), from one or two bytes. */
static inline unsigned long fz_below(struct fz *f, unsigned long bound)
{
	unsigned long v = bound <= 256 ? fz_u8(f) : fz_u16(f);

	return v % bound;
}

/*
 * An unsigned long that favours the edges of the index space: small
 * values, values around powers of two, and values near ULONG_MAX.
 */
static inline unsigned long fz_index(struct fz *f)
{
	uint8_t k = fz_u8(f);
	unsigned int sh;

	switch (k >> 6) {
	case 0:
		return k & 63;
	case 1:
		sh = fz_u8(f) % 64;
		return (1UL << sh) + (unsigned long)(int8_t)fz_u8(f);
	case 2:
		return ~0UL - (k & 63);
	default:
		return (unsigned long)fz_u64(f);
	}
}

/* A stream to /dev/null for the dump calls (their output is not checked). */
static inline FILE *fz_null(void)
{
	static FILE *null_out;

	if (!null_out)
		null_out = fopen("/dev/null", "w");
	return null_out;
}

#define FZ_FAIL(f, ...)                                                     \
	do {                                                                \
		fprintf(stderr, "fuzz %s: op %lu: ", (f)->target, (f)->op); \
		fprintf(stderr, __VA_ARGS__);                               \
		fputc('\n', stderr);                                        \
		abort();                                                    \
	} while (0)

#define FZ_CHECK(f, cond, ...)                   \
	do {                                     \
		if (!(cond))                     \
			FZ_FAIL(f, __VA_ARGS__); \
	} while (0)

/* Compare two integers (as long long), naming what was compared. */
#define FZ_EQ(f, got, want, what)                                              \
	do {                                                                   \
		long long g_ = (long long)(got), w_ = (long long)(want);       \
		if (g_ != w_)                                                  \
			FZ_FAIL(f, "%s: got %lld, want %lld", (what), g_, w_); \
	} while (0)

/*
 * Start one operation: read its opcode byte and, if FZ_FAULT is set, arm
 * a failure of the 1st .. 8th allocation attempt from now. Returns the
 * opcode without FZ_FAULT.
 */
static inline unsigned int fz_op_begin(struct fz *f, bool *armed)
{
	uint8_t op = fz_u8(f);

	f->op++;
	f->fired = false;
	*armed = (op & FZ_FAULT) != 0;
	if (*armed)
		rg_fault_inject(1 + fz_u8(f) % 8);
	return op & ~FZ_FAULT;
}

/*
 * End the allocating part of an operation: disarm; true (also kept in
 * f->fired) if the armed failure fired.
 *
 * A fired failure does not always fail the call: where the library tops up
 * a cache "as far as memory allows" (the slab refills a per-thread sheaf
 * from partial slabs when a new slab cannot be had), the call may still
 * succeed. So a fired fault means: the call returned -ENOMEM (NULL, 0) and
 * changed nothing, or it succeeded exactly as without the fault. Targets
 * use fz_op_failed() for that.
 */
static inline bool fz_op_end(struct fz *f, bool armed)
{
	f->fired = armed && rg_fault_fired();
	rg_fault_inject(0);
	return f->fired;
}

/*
 * End an allocating operation whose result says @failed (-ENOMEM, NULL,
 * 0): true if the armed failure fired and the call failed, in which case
 * the target checks that nothing changed; false otherwise, in which case
 * the result is compared with the model as usual (f->fired is set alike).
 */
static inline bool fz_op_failed(struct fz *f, bool armed, bool failed)
{
	f->fired = fz_op_end(f, armed) && failed;
	return f->fired;
}

#endif /* RG_FUZZ_H */
