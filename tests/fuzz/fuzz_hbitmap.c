// SPDX-License-Identifier: MIT
/*
 * Fuzz target: hbitmap against a bool array.
 *
 * Input: capacity (2 bytes), then operations: alloc, alloc_range, free,
 * reserve, resize (grow or shrink, with faults), test, and the counters.
 * Allocation results must be the model's lowest aligned fit; each error
 * code must match; after every operation the hbitmap is validated and its
 * free-unit count, largest free run and capacity compared. The whole
 * bitmap is compared unit by unit every 16 operations, after every fired
 * fault and at the end.
 */
#include "fuzz.h"

#include "region/hbitmap.h"

#define MAX_CAP 20000

static bool used[MAX_CAP];
static uint64_t cap, nfree;

static bool run_free(uint64_t s, uint64_t n)
{
	for (uint64_t u = s; u < s + n; u++)
		if (used[u])
			return false;
	return true;
}

/* Lowest aligned start in [min, max] with n free units ending <= max. */
static bool model_fit(uint64_t n, uint64_t align, uint64_t min, uint64_t max,
		      uint64_t *start)
{
	uint64_t s;

	if (max >= cap)
		max = cap - 1;
	if (min > max)
		return false;
	s = (min + align - 1) / align * align; /* min < cap: no overflow */
	while (s <= max && max - s >= n - 1) {
		uint64_t u = s + n;

		while (u > s && !used[u - 1])
			u--;
		if (u == s) {
			*start = s;
			return true;
		}
		/* Resume past the window's last used unit. */
		s = (u + align - 1) / align * align;
	}
	return false;
}

static uint64_t model_largest(void)
{
	uint64_t best = 0, cur = 0;

	for (uint64_t u = 0; u < cap; u++) {
		cur = used[u] ? 0 : cur + 1;
		if (cur > best)
			best = cur;
	}
	return best;
}

static void mark(uint64_t s, uint64_t n, bool v)
{
	for (uint64_t u = s; u < s + n; u++)
		used[u] = v;
	nfree = v ? nfree - n : nfree + n;
}

static bool range_ok(uint64_t s, uint64_t n)
{
	return n && s < cap && n <= cap - s;
}

static void check(struct fz *f, struct rg_hbitmap *hb, bool all)
{
	const char *why = NULL;

	if (rg_hbitmap_validate(hb, &why))
		FZ_FAIL(f, "validate: %s", why ? why : "?");
	FZ_EQ(f, rg_hbitmap_capacity(hb), cap, "capacity");
	FZ_EQ(f, rg_hbitmap_free_units(hb), nfree, "free_units");
	FZ_EQ(f, rg_hbitmap_largest_free_run(hb), model_largest(),
	      "largest_free_run");
	if (!all)
		return;
	for (uint64_t u = 0; u < cap; u++)
		FZ_EQ(f, rg_hbitmap_test(hb, u), used[u], "test(unit)");
	FZ_EQ(f, rg_hbitmap_test(hb, cap), -EINVAL, "test(capacity)");
}

static uint64_t pick_len(struct fz *f)
{
	uint8_t k = fz_u8(f);

	if (k < 180)
		return k % 33;
	if (k < 250)
		return fz_below(f, cap + 2);
	return fz_u64(f);
}

static uint64_t pick_unit(struct fz *f)
{
	uint8_t k = fz_u8(f);

	if (k < 250)
		return fz_below(f, cap + 1);
	return fz_index(f);
}

static uint64_t pick_align(struct fz *f)
{
	uint8_t a = fz_u8(f);

	if (a < 128)
		return 1;
	if (a < 250)
		return (uint64_t)1 << (a % 15);
	return a; /* mostly not a power of two */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rg_hbitmap *hb;
	struct fz f;

	fz_init(&f, "hbitmap", data, size);
	cap = 1 + fz_u16(&f) % 8192;
	memset(used, 0, sizeof(used));
	nfree = cap;
	hb = rg_hbitmap_create(cap);
	FZ_CHECK(&f, hb, "create(%llu): errno %d", (unsigned long long)cap,
		 errno);
	check(&f, hb, true);
	while (fz_more(&f)) {
		bool armed, pow2;
		unsigned int op = fz_op_begin(&f, &armed) % 7;
		uint64_t s = 0, n, align, min, max, start = 7;
		int rc, exp;

		switch (op) {
		case 0:
		case 1:
			n = pick_len(&f);
			align = pick_align(&f);
			min = op ? pick_unit(&f) : 0;
			max = op ? min + pick_len(&f) * (fz_u8(&f) % 64) :
				   UINT64_MAX;
			if (op && max < min)
				max = UINT64_MAX;
			rc = op ? rg_hbitmap_alloc_range(hb, n, align, min, max,
							 &start) :
				  rg_hbitmap_alloc(hb, n, align, &start);
			fz_op_end(&f, armed);
			pow2 = align && !(align & (align - 1));
			if (!n || n > cap || !pow2 || min > max)
				exp = -EINVAL;
			else
				exp = model_fit(n, align, min, max, &s) ?
					      0 :
					      -ENOSPC;
			FZ_CHECK(
				&f, rc == exp,
				"alloc%s(n %llu, align %llu, [%llu, %llu]) = %d, want %d",
				op ? "_range" : "", (unsigned long long)n,
				(unsigned long long)align,
				(unsigned long long)min,
				(unsigned long long)max, rc, exp);
			if (rc) {
				FZ_EQ(&f, start, 7, "start written on error");
				break;
			}
			FZ_EQ(&f, start, s, "alloc start");
			mark(s, n, true);
			break;
		case 2:
		case 3:
			s = pick_unit(&f);
			n = pick_len(&f);
			rc = op == 2 ? rg_hbitmap_free(hb, s, n) :
				       rg_hbitmap_reserve(hb, s, n);
			fz_op_end(&f, armed);
			if (!range_ok(s, n)) {
				exp = -EINVAL;
			} else if (op == 2) {
				exp = 0;
				for (uint64_t u = s; u < s + n; u++)
					if (!used[u])
						exp = -ENOENT;
			} else {
				exp = run_free(s, n) ? 0 : -EBUSY;
			}
			FZ_CHECK(&f, rc == exp, "%s(%llu, %llu) = %d, want %d",
				 op == 2 ? "free" : "reserve",
				 (unsigned long long)s, (unsigned long long)n,
				 rc, exp);
			if (!rc)
				mark(s, n, op == 3);
			break;
		case 4: {
			/* Up to the model's size, or too large to accept. */
			uint64_t nc =
				fz_u8(&f) < 250 ?
					fz_below(&f, MAX_CAP) :
					RG_HBITMAP_MAX_CAPACITY + 1 + fz_u8(&f);
			bool busy = false;

			rc = rg_hbitmap_resize(hb, nc);
			if (fz_op_failed(&f, armed, rc == -ENOMEM)) {
				check(&f, hb, true);
				break;
			}
			for (uint64_t u = nc; u < cap; u++)
				busy |= used[u];
			if (!nc || nc > RG_HBITMAP_MAX_CAPACITY)
				exp = -EINVAL;
			else if (busy)
				exp = -EBUSY;
			else
				exp = 0;
			FZ_CHECK(&f, rc == exp, "resize(%llu) = %d, want %d",
				 (unsigned long long)nc, rc, exp);
			if (!rc) {
				for (uint64_t u = cap; u < nc; u++)
					used[u] = false;
				nfree = nfree + (nc > cap ? nc - cap : 0) -
					(nc < cap ? cap - nc : 0);
				cap = nc;
			}
			break;
		}
		case 5:
			fz_op_end(&f, armed);
			s = pick_unit(&f);
			FZ_EQ(&f, rg_hbitmap_test(hb, s),
			      s < cap ? used[s] : -EINVAL, "test");
			break;
		default:
			fz_op_end(&f, armed);
			FZ_CHECK(&f, rg_hbitmap_bytes(hb) >= (cap + 7) / 8,
				 "bytes %zu below the bitmap itself",
				 rg_hbitmap_bytes(hb));
			break;
		}
		check(&f, hb, f.op % 16 == 0);
	}
	check(&f, hb, true);
	rg_hbitmap_destroy(hb);
	return 0;
}
