// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the xarray against a sorted array of slots.
 *
 * Input: a flags byte (plain, allocating, allocating from 1), then
 * operations: store, insert, erase, cmpxchg, reserve, release, alloc,
 * load, find / find_after (any entry or by mark), set / clear / get mark.
 * The model keeps, per used index, the entry (or a reservation) and its
 * three marks: marks survive a replacement of the entry and go when the
 * index empties. Indices favour small values, the boundaries of the 64-way
 * levels and ULONG_MAX. After every operation the array is validated and
 * rg_xa_empty() compared; every 16 operations, after a fired fault and at
 * the end every model slot is loaded and the array iterated in full. At
 * the end every index is erased and the array must hold no node.
 */
#include "fuzz.h"

#include "region/xarray.h"

#define MAX_SLOTS 2048
#define NR_MARKS 3

struct slot {
	unsigned long index;
	void *entry; /* NULL: reserved */
	unsigned int marks;
};

static struct slot sl[MAX_SLOTS];
static unsigned int nr;
static unsigned int xflags;

static unsigned int model_pos(unsigned long i)
{
	unsigned int lo = 0, hi = nr;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (sl[mid].index < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct slot *model_get(unsigned long i)
{
	unsigned int p = model_pos(i);

	return p < nr && sl[p].index == i ? &sl[p] : NULL;
}

static struct slot *model_add(unsigned long i, void *entry)
{
	unsigned int p = model_pos(i);

	memmove(sl + p + 1, sl + p, (nr - p) * sizeof(*sl));
	nr++;
	sl[p] = (struct slot){ i, entry, 0 };
	return &sl[p];
}

static void model_del(unsigned long i)
{
	unsigned int p = model_pos(i);

	memmove(sl + p, sl + p + 1, (nr - p - 1) * sizeof(*sl));
	nr--;
}

static bool is_alloc(void)
{
	return xflags & RG_XA_FLAGS_ALLOC;
}

/* Put @entry at @i as a store does: NULL erases, or reserves (alloc). */
static void model_store(unsigned long i, void *entry)
{
	struct slot *s = model_get(i);

	if (!entry && !is_alloc()) {
		if (s)
			model_del(i);
		return;
	}
	if (s)
		s->entry = entry;
	else
		model_add(i, entry);
}

/* First real entry at or after @i, up to @max, with @filter. */
static struct slot *model_find(unsigned long i, unsigned long max,
			       unsigned int filter)
{
	if (filter != RG_XA_PRESENT &&
	    (filter > RG_XA_MARK_MAX ||
	     (is_alloc() && filter == RG_XA_FREE_MARK)))
		return NULL;
	for (unsigned int p = model_pos(i); p < nr && sl[p].index <= max; p++) {
		if (!sl[p].entry)
			continue;
		if (filter == RG_XA_PRESENT || (sl[p].marks >> filter & 1))
			return &sl[p];
	}
	return NULL;
}

static unsigned long pick_idx(struct fz *f)
{
	uint8_t k = fz_u8(f);

	if (k < 16 && nr)
		return sl[fz_below(f, nr)].index;
	if (k < 128)
		return k - 16;
	if (k < 192)
		return (1UL << (6 * (k % 6 + 1))) +
		       (unsigned long)(int8_t)fz_u8(f);
	return fz_index(f);
}

static void *pick_entry(struct fz *f)
{
	uint8_t k = fz_u8(f);

	if (k < 160)
		return (void *)(uintptr_t)(((uintptr_t)k + 1) << 3);
	if (k < 200)
		return rg_xa_mk_value(fz_u16(f));
	if (k < 240)
		return NULL;
	return (void *)(uintptr_t)((uintptr_t)fz_u8(f) << 2 | 2); /* reserved */
}

static void check(struct fz *f, struct rg_xarray *xa, bool all)
{
	const char *why = NULL;
	unsigned long i = 0;
	unsigned int p = 0;
	void *e;

	if (rg_xa_validate(xa, &why))
		FZ_FAIL(f, "validate: %s", why ? why : "?");
	FZ_EQ(f, rg_xa_empty(xa), nr == 0, "empty");
	if (!all)
		return;
	for (p = 0; p < nr; p++) {
		FZ_CHECK(f, rg_xa_load(xa, sl[p].index) == sl[p].entry,
			 "load(%lu)", sl[p].index);
		for (unsigned int m = 0; m < NR_MARKS; m++)
			if (sl[p].entry && !(is_alloc() && m == 0))
				FZ_EQ(f, rg_xa_get_mark(xa, sl[p].index, m),
				      sl[p].marks >> m & 1, "get_mark");
	}
	p = 0;
	rg_xa_for_each(xa, i, e)
	{
		while (p < nr && !sl[p].entry)
			p++;
		FZ_CHECK(f, p < nr, "iteration: extra index %lu", i);
		FZ_CHECK(f, i == sl[p].index && e == sl[p].entry,
			 "iteration: %lu %p, want %lu %p", i, e, sl[p].index,
			 sl[p].entry);
		p++;
	}
	while (p < nr && !sl[p].entry)
		p++;
	FZ_EQ(f, p, nr, "entries seen by iteration");
}

static void run_op(struct fz *f, struct rg_xarray *xa, unsigned int op,
		   bool armed)
{
	unsigned long i = pick_idx(f), max, id = 77;
	void *entry = pick_entry(f), *old = (void *)8, *want, *e;
	struct slot *s = model_get(i);
	bool bad = rg_xa_is_reserved_entry(entry);
	unsigned int mark;
	int rc, exp;

	if (nr + 1 >= MAX_SLOTS && op < 8) {
		fz_op_end(f, armed);
		return;
	}
	switch (op) {
	case 0: /* store */
		rc = rg_xa_store(xa, i, entry, &old);
		if (fz_op_failed(f, armed, rc == -ENOMEM))
			goto fault;
		FZ_EQ(f, rc, bad ? -EINVAL : 0, "store");
		if (rc) {
			FZ_CHECK(f, old == (void *)8, "old written on error");
			break;
		}
		FZ_CHECK(f, old == (s ? s->entry : NULL), "store: old %p", old);
		model_store(i, entry);
		break;
	case 1: /* insert */
		rc = rg_xa_insert(xa, i, entry);
		if (fz_op_failed(f, armed, rc == -ENOMEM))
			goto fault;
		exp = bad ? -EINVAL : s ? -EBUSY : 0;
		FZ_EQ(f, rc, exp, "insert");
		if (!rc)
			model_add(i, entry);
		break;
	case 2: /* erase */
		fz_op_end(f, armed);
		e = rg_xa_erase(xa, i);
		FZ_CHECK(f, e == (s ? s->entry : NULL), "erase(%lu) = %p", i,
			 e);
		if (s)
			model_del(i);
		break;
	case 3: { /* cmpxchg: old is what is there, or something else */
		void *cur = (void *)8, *exp_old;

		uint8_t k = fz_u8(f);

		if (k & 1)
			exp_old = s ? s->entry : NULL;
		else if (k & 2)
			/* A reserved value never matches: -EBUSY. */
			exp_old = (void *)(uintptr_t)((uintptr_t)(k >> 2) << 2 |
						      2);
		else
			exp_old = (void *)(uintptr_t)(((uintptr_t)fz_u8(f) + 1)
						      << 3);
		rc = rg_xa_cmpxchg(xa, i, exp_old, entry, &cur);
		if (fz_op_failed(f, armed, rc == -ENOMEM))
			goto fault;
		if (bad) {
			FZ_EQ(f, rc, -EINVAL, "cmpxchg of a reserved entry");
			break;
		}
		FZ_CHECK(f, cur == (s ? s->entry : NULL),
			 "cmpxchg(%lu): cur %p", i, cur);
		/* NULL matches only an index with nothing, not reserved. */
		if (s ? s->entry && s->entry == exp_old : !exp_old) {
			FZ_EQ(f, rc, 0, "cmpxchg");
			model_store(i, entry);
		} else {
			FZ_EQ(f, rc, -EBUSY, "cmpxchg");
		}
		break;
	}
	case 4: /* reserve */
		rc = rg_xa_reserve(xa, i);
		if (fz_op_failed(f, armed, rc == -ENOMEM))
			goto fault;
		FZ_EQ(f, rc, 0, "reserve");
		if (!s)
			model_add(i, NULL);
		break;
	case 5: /* release */
		fz_op_end(f, armed);
		rg_xa_release(xa, i);
		if (s && !s->entry)
			model_del(i);
		break;
	case 6: { /* alloc */
		unsigned long min = i, lo;
		bool found;

		max = fz_u8(f) < 200 ? min + fz_u8(f) : pick_idx(f);
		if (max < min && (min & 1))
			max = ~0UL;
		rc = rg_xa_alloc(xa, &id, entry, min, max);
		if (fz_op_failed(f, armed, rc == -ENOMEM))
			goto fault;
		if (!is_alloc() || bad || min > max) {
			/* An empty range is full, as in the kernel. */
			FZ_EQ(f, rc, !is_alloc() || bad ? -EINVAL : -EBUSY,
			      "alloc");
			FZ_EQ(f, id, 77, "id written on error");
			break;
		}
		lo = min;
		if ((xflags & RG_XA_FLAGS_ALLOC1) == RG_XA_FLAGS_ALLOC1 &&
		    lo == 0)
			lo = 1;
		/* Lowest index in [lo, max] without a slot (bounded by nr). */
		found = false;
		while (lo <= max) {
			if (!model_get(lo)) {
				found = true;
				break;
			}
			if (lo == max)
				break;
			lo++;
		}
		if (!found) {
			FZ_EQ(f, rc, -EBUSY, "alloc in a full range");
			break;
		}
		FZ_EQ(f, rc, 0, "alloc");
		FZ_EQ(f, id, lo, "alloc id");
		model_add(lo, entry);
		break;
	}
	case 7: /* set or clear a mark */
	case 8:
		fz_op_end(f, armed);
		mark = fz_u8(f) % 5;
		rc = op == 7 ? rg_xa_set_mark(xa, i, mark) :
			       rg_xa_clear_mark(xa, i, mark);
		if (mark > RG_XA_MARK_MAX ||
		    (is_alloc() && mark == RG_XA_FREE_MARK))
			exp = -EINVAL;
		else
			exp = s ? 0 : -ENOENT;
		FZ_EQ(f, rc, exp, op == 7 ? "set_mark" : "clear_mark");
		if (!rc) {
			if (op == 7)
				s->marks |= 1u << mark;
			else
				s->marks &= ~(1u << mark);
		}
		break;
	case 9: /* find / find_after */
	case 10: {
		unsigned long idx = i;
		struct slot *w;

		fz_op_end(f, armed);
		max = pick_idx(f);
		mark = fz_u8(f) % 5;
		if (mark == 3)
			mark = RG_XA_PRESENT;
		if (op == 9) {
			e = rg_xa_find(xa, &idx, max, mark);
			w = i <= max ? model_find(i, max, mark) : NULL;
		} else {
			e = rg_xa_find_after(xa, &idx, max, mark);
			w = i < max ? model_find(i + 1, max, mark) : NULL;
		}
		want = w ? w->entry : NULL;
		FZ_CHECK(f, e == want, "find%s(%lu, %lu, %u) = %p, want %p",
			 op == 9 ? "" : "_after", i, max, mark, e, want);
		FZ_EQ(f, idx, w ? w->index : i, "find: index");
		break;
	}
	case 13: /* many stores at a stride */
	case 14: { /* or many erases */
		unsigned long stride = 1 + fz_u8(f) % 80;
		unsigned int count = 1 + fz_u8(f) % 128;

		fz_op_end(f, armed);
		for (unsigned int c = 0; c < count; c++, i += stride) {
			s = model_get(i);
			if (op == 14) {
				e = rg_xa_erase(xa, i);
				FZ_CHECK(f, e == (s ? s->entry : NULL),
					 "bulk erase(%lu)", i);
				if (s)
					model_del(i);
				continue;
			}
			if (nr + 1 >= MAX_SLOTS)
				break;
			FZ_EQ(f, rg_xa_store(xa, i, rg_xa_mk_value(c), NULL), 0,
			      "bulk store");
			model_store(i, rg_xa_mk_value(c));
		}
		break;
	}
	case 12: /* dump, byte counts */
		fz_op_end(f, armed);
		rg_xa_dump(xa, fz_null());
		FZ_EQ(f, rg_xa_bytes(xa),
		      sizeof(*xa) + rg_xa_node_count(xa) * rg_xa_node_size(),
		      "bytes");
		break;
	default: /* load, get_mark */
		fz_op_end(f, armed);
		FZ_CHECK(f, rg_xa_load(xa, i) == (s ? s->entry : NULL),
			 "load(%lu)", i);
		mark = fz_u8(f) % 4;
		if (!s || s->entry)
			FZ_EQ(f, rg_xa_get_mark(xa, i, mark),
			      s && !(is_alloc() && mark == 0) &&
				      (s->marks >> mark & 1),
			      "get_mark");
		break;
	}
	return;
fault:
	if (op == 0)
		FZ_CHECK(f, old == (void *)8, "old written on error");
	if (op == 6)
		FZ_EQ(f, id, 77, "id written on error");
	check(f, xa, true);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int flagset[3] = { 0, RG_XA_FLAGS_ALLOC,
						 RG_XA_FLAGS_ALLOC1 };
	struct rg_xarray xa;
	struct fz f;

	fz_init(&f, "xarray", data, size);
	xflags = flagset[fz_u8(&f) % 3];
	nr = 0;
	FZ_EQ(&f, rg_xa_init_flags(&xa, xflags), 0, "init_flags");
	while (fz_more(&f)) {
		bool armed;
		unsigned int op = fz_op_begin(&f, &armed) % 15;

		run_op(&f, &xa, op, armed);
		check(&f, &xa, f.op % 16 == 0);
	}
	check(&f, &xa, true);
	while (nr) {
		rg_xa_erase(&xa, sl[nr - 1].index);
		nr--;
	}
	check(&f, &xa, false);
	FZ_EQ(&f, rg_xa_node_count(&xa), 0, "nodes of an empty array");
	rg_xa_destroy(&xa);
	return 0;
}
