// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the IDA against a sorted array of allocated IDs.
 *
 * IDs are drawn from a few windows (the first chunks, chunk boundaries,
 * the top of the ID space near INT_MAX) so that allocations collide and
 * cross chunks, value-entry chunks turn into bitmaps and back, and chunks
 * empty out. Operations: alloc_range (lowest free ID in [min, max], the
 * model's answer), free, exists, with faults armed on any of them.
 * After every operation the IDA is validated and is_empty() compared;
 * every 16 operations, after a fired fault and at the end every model ID
 * must exist and a few IDs around each must match the model. At the end
 * all IDs are freed and the IDA must hold no memory beyond its header.
 */
#include "fuzz.h"

#include "region/ida.h"

#define MAX_IDS 2048

static unsigned int ids[MAX_IDS];
static unsigned int nr;

static unsigned int model_pos(unsigned int id)
{
	unsigned int lo = 0, hi = nr;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool model_has(unsigned int id)
{
	unsigned int p = model_pos(id);

	return p < nr && ids[p] == id;
}

static void model_add(unsigned int id)
{
	unsigned int p = model_pos(id);

	memmove(ids + p + 1, ids + p, (nr - p) * sizeof(*ids));
	ids[p] = id;
	nr++;
}

static void model_del(unsigned int id)
{
	unsigned int p = model_pos(id);

	memmove(ids + p, ids + p + 1, (nr - p - 1) * sizeof(*ids));
	nr--;
}

/* Lowest free ID in [min, max] (max capped at INT_MAX), or -1. */
static long long model_lowest(unsigned int min, unsigned int max)
{
	unsigned long long c = min;
	unsigned int p;

	if (max > RG_IDA_MAX)
		max = RG_IDA_MAX;
	if (min > max)
		return -1;
	for (p = model_pos(min); p < nr && ids[p] == c; p++)
		c++;
	return c <= max ? (long long)c : -1;
}

static unsigned int pick_id(struct fz *f)
{
	static const unsigned int base[8] = {
		0,	  1024 - 64,	     2048 - 32,	      64 * 1024 - 100,
		1u << 20, RG_IDA_MAX - 3000, RG_IDA_MAX - 70, 0xfffffff0u,
	};
	uint8_t k = fz_u8(f);

	if (k < 8 && nr)
		return ids[fz_below(f, nr)];
	if (k == 255)
		return fz_u32(f);
	return base[k % 8] + fz_u8(f) * (k >> 5 & 1 ? 1u : 12u);
}

static void check(struct fz *f, struct rg_ida *ida, bool all)
{
	const char *why = NULL;

	if (rg_ida_validate(ida, &why))
		FZ_FAIL(f, "validate: %s", why ? why : "?");
	FZ_EQ(f, rg_ida_is_empty(ida), nr == 0, "is_empty");
	if (!all)
		return;
	for (unsigned int i = 0; i < nr; i++) {
		FZ_CHECK(f, rg_ida_exists(ida, ids[i]), "id %u lost", ids[i]);
		FZ_EQ(f, rg_ida_exists(ida, ids[i] + 1), model_has(ids[i] + 1),
		      "exists(id + 1)");
		if (ids[i])
			FZ_EQ(f, rg_ida_exists(ida, ids[i] - 1),
			      model_has(ids[i] - 1), "exists(id - 1)");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rg_ida ida;
	size_t empty_bytes;
	struct fz f;

	fz_init(&f, "ida", data, size);
	nr = 0;
	rg_ida_init(&ida);
	empty_bytes = rg_ida_bytes(&ida);
	while (fz_more(&f)) {
		bool armed;
		unsigned int op = fz_op_begin(&f, &armed) % 7;
		unsigned int min, max, id = 0xdeadbeef;
		long long want;
		int rc;

		switch (op) {
		case 0:
		case 1:
			min = pick_id(&f);
			max = op ? min + fz_u16(&f) : pick_id(&f);
			if (op && max < min)
				max = RG_IDA_MAX;
			if (nr == MAX_IDS) {
				fz_op_end(&f, armed);
				break;
			}
			rc = rg_ida_alloc_range(&ida, min, max, &id);
			if (fz_op_failed(&f, armed, rc == -ENOMEM)) {
				check(&f, &ida, true);
				break;
			}
			want = model_lowest(min, max);
			FZ_CHECK(&f, rc == (want < 0 ? -ENOSPC : 0),
				 "alloc_range(%u, %u) = %d, want %lld", min,
				 max, rc, want);
			if (rc) {
				FZ_EQ(&f, id, 0xdeadbeef,
				      "id written on error");
				break;
			}
			FZ_EQ(&f, id, want, "alloc_range id");
			model_add(id);
			break;
		case 2:
			id = pick_id(&f);
			rc = rg_ida_free(&ida, id);
			fz_op_end(&f, armed);
			FZ_EQ(&f, rc, model_has(id) ? 0 : -ENOENT, "free");
			if (!rc)
				model_del(id);
			break;
		case 3:
			fz_op_end(&f, armed);
			rg_ida_dump(&ida, fz_null());
			break;
		case 5: /* many allocations from one minimum */
			fz_op_end(&f, armed);
			min = pick_id(&f);
			for (unsigned int i = fz_u8(&f) * 2u; i && nr < MAX_IDS;
			     i--) {
				want = model_lowest(min, RG_IDA_MAX);
				rc = rg_ida_alloc_range(&ida, min, RG_IDA_MAX,
							&id);
				FZ_EQ(&f, rc, want < 0 ? -ENOSPC : 0,
				      "bulk alloc");
				if (rc)
					break;
				FZ_EQ(&f, id, want, "bulk alloc id");
				model_add(id);
			}
			break;
		case 6: /* free every k-th ID */
			fz_op_end(&f, armed);
			for (unsigned int i = 0, k = 1 + fz_u8(&f) % 4; i < nr;
			     i += k - 1) {
				FZ_EQ(&f, rg_ida_free(&ida, ids[i]), 0,
				      "bulk free");
				model_del(ids[i]);
			}
			break;
		default:
			fz_op_end(&f, armed);
			id = pick_id(&f);
			FZ_EQ(&f, rg_ida_exists(&ida, id), model_has(id),
			      "exists");
			break;
		}
		check(&f, &ida, f.op % 16 == 0);
	}
	check(&f, &ida, true);
	while (nr) {
		FZ_EQ(&f, rg_ida_free(&ida, ids[nr - 1]), 0, "free at the end");
		nr--;
		check(&f, &ida, false);
	}
	FZ_EQ(&f, rg_ida_bytes(&ida), empty_bytes, "bytes of an empty IDA");
	FZ_EQ(&f, rg_ida_bitmap_count(&ida), 0, "bitmaps of an empty IDA");
	rg_ida_destroy(&ida);
	return 0;
}
