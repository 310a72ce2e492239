// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the sbitmap tag allocator against an array of allocated
 * flags, single-threaded, where its answers are exact.
 *
 * The input picks a depth (1 .. 300) and a shift (default or 0 .. 6), with
 * the init call's one allocation failed when its first byte says so; then
 * a program of get, get_shallow, get_batch, clear (of held and of free
 * tags), clear_batch, resize, min_shallow_depth and dump. A get must
 * return a free tag below the depth (and within the shallow limit) and
 * -EAGAIN exactly when the model has none; a batch must return tags of one
 * word starting at a free one, -EAGAIN exactly when no word has room; a
 * clear must return 0 for a held tag and -ENOENT for a free one. After
 * every operation the instance is validated and its weight compared; at
 * the end every held tag is freed and every tag must be taken again.
 */
#include "fuzz.h"

#include <limits.h>

#include "region/sbitmap.h"

#define CAP 300

static unsigned char used[CAP];
static unsigned int depth;

static unsigned int model_weight(void)
{
	unsigned int n = 0;

	for (unsigned int t = 0; t < depth; t++)
		n += used[t];
	return n;
}

static bool model_free(unsigned int mask, unsigned int shallow)
{
	for (unsigned int t = 0; t < depth; t++)
		if (!used[t] && (t & mask) < shallow)
			return true;
	return false;
}

static bool model_room(unsigned int per, unsigned int n)
{
	for (unsigned int w = 0; w * per < depth; w++) {
		unsigned int wd = depth - w * per < per ? depth - w * per : per;
		unsigned int f = 0;

		while (f < wd && used[w * per + f])
			f++;
		if (f + n <= wd)
			return true;
	}
	return false;
}

static void take(struct fz *f, int tag, unsigned int mask, unsigned int shallow)
{
	FZ_CHECK(f, tag >= 0 && (unsigned int)tag < depth, "tag %d of %u", tag,
		 depth);
	FZ_CHECK(f, !used[tag], "tag %d handed out twice", tag);
	FZ_CHECK(f, ((unsigned int)tag & mask) < shallow,
		 "tag %d past shallow depth %u", tag, shallow);
	used[tag] = 1;
}

static void check(struct fz *f, struct rg_sbitmap_queue *q)
{
	const char *why = NULL;

	if (rg_sbitmap_queue_validate(q, &why))
		FZ_FAIL(f, "validate: %s", why ? why : "?");
	FZ_EQ(f, rg_sbitmap_weight(&q->sb), model_weight(), "weight");
	FZ_EQ(f, rg_sbitmap_any_bit_set(&q->sb), model_weight() != 0,
	      "any_bit_set");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rg_sbitmap_queue q;
	unsigned int cap, per, mask;
	int shift, rc;
	bool armed;
	struct fz f;

	fz_init(&f, "sbitmap", data, size);
	memset(used, 0, sizeof(used));
	fz_op_begin(&f, &armed);
	cap = 1 + (unsigned int)fz_below(&f, CAP);
	shift = (int)fz_below(&f, 8) - 1;
	rc = rg_sbitmap_queue_init(&q, cap, shift, false);
	if (fz_op_failed(&f, armed, rc == -ENOMEM)) {
		rg_sbitmap_queue_destroy(&q);
		return 0;
	}
	FZ_EQ(&f, rc, 0, "init");
	depth = cap;
	per = 1U << q.sb.shift;
	mask = per - 1;
	check(&f, &q);
	while (fz_more(&f)) {
		unsigned int op = fz_op_begin(&f, &armed) % 9, n, t, off = 0;
		unsigned long got = 0;
		int tags[16], k = 0, o;

		switch (op) {
		case 0:
		case 1:
			rc = rg_sbitmap_queue_get(&q);
			if (model_free(mask, UINT_MAX))
				take(&f, rc, mask, UINT_MAX);
			else
				FZ_EQ(&f, rc, -EAGAIN, "get of a full map");
			break;
		case 2:
			n = 1 + (unsigned int)fz_below(&f, per + 1);
			rc = rg_sbitmap_queue_get_shallow(&q, n);
			if (model_free(mask, n))
				take(&f, rc, mask, n);
			else
				FZ_EQ(&f, rc, -EAGAIN, "get_shallow");
			break;
		case 3:
			n = 1 + (unsigned int)fz_below(&f, per);
			rc = rg_sbitmap_queue_get_batch(&q, n, &off, &got);
			if (!model_room(per, n)) {
				FZ_EQ(&f, rc, -EAGAIN,
				      "get_batch without room");
				break;
			}
			FZ_EQ(&f, rc, __builtin_popcountl(got), "batch count");
			FZ_CHECK(&f,
				 (got & 1) && (n == 64 || !(got >> n)) &&
					 off % per + n <= per &&
					 off + n <= depth,
				 "batch %#lx at %u of %u", got, off, n);
			for (unsigned int i = 0; i < n; i++)
				if (got & (1UL << i))
					take(&f, (int)(off + i), mask,
					     UINT_MAX);
			break;
		case 4:
		case 5:
			t = (unsigned int)fz_below(&f, cap);
			rc = rg_sbitmap_queue_clear(&q, t);
			FZ_EQ(&f, rc, used[t] ? 0 : -ENOENT, "clear");
			used[t] = 0;
			break;
		case 6:
			o = (int)fz_u8(&f);
			for (t = (unsigned int)fz_below(&f, cap);
			     t < cap && k < 16; t += 1 + fz_u8(&f) % 8)
				if (used[t]) {
					tags[k++] = (int)t + o;
					used[t] = 0;
				}
			FZ_EQ(&f, rg_sbitmap_queue_clear_batch(&q, o, tags, k),
			      0, "clear_batch");
			break;
		case 7:
			n = (unsigned int)fz_below(&f, cap + 2);
			rc = rg_sbitmap_queue_resize(&q, n);
			FZ_EQ(&f, rc, n >= 1 && n <= cap ? 0 : -EINVAL,
			      "resize");
			if (!rc)
				depth = n;
			break;
		default:
			n = (unsigned int)fz_below(&f, per + 2);
			FZ_EQ(&f, rg_sbitmap_queue_min_shallow_depth(&q, n),
			      n ? 0 : -EINVAL, "min_shallow_depth");
			rg_sbitmap_queue_dump(&q, fz_null());
			break;
		}
		fz_op_end(&f, armed);
		FZ_CHECK(&f, !f.fired, "a call other than init allocated");
		check(&f, &q);
	}
	for (unsigned int i = 0; i < cap; i++)
		if (used[i]) {
			FZ_EQ(&f, rg_sbitmap_queue_clear(&q, i), 0,
			      "clear at the end");
			used[i] = 0;
		}
	FZ_EQ(&f, rg_sbitmap_queue_resize(&q, cap), 0, "resize back");
	depth = cap;
	for (unsigned int i = 0; i < cap; i++)
		take(&f, rg_sbitmap_queue_get(&q), mask, UINT_MAX);
	FZ_EQ(&f, rg_sbitmap_queue_get(&q), -EAGAIN, "get of a full map");
	check(&f, &q);
	rg_sbitmap_queue_destroy(&q);
	return 0;
}
