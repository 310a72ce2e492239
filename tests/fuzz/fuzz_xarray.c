// SPDX-License-Identifier: MIT
/*
 * Fuzz target: the xarray against a sorted array of slots.
 *
 * Input: a flags byte (plain, allocating, allocating from 1; 0xf0 and
 * above: the multi-index mode below, on a plain array), then
 * operations: store, insert, erase, cmpxchg, reserve, release, alloc,
 * load, find / find_after (any entry or by mark), set / clear / get mark;
 * and the advanced API on a state (rg_xas_*): store in the lock / store /
 * unlock / rg_xas_nomem() loop, load and reload, marks through the state,
 * find, next_entry and find_marked with pauses, next and prev steps. The
 * advanced calls are raw: a reservation reads as RG_XA_ZERO_ENTRY.
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

/* ---- the advanced API (rg_xas_*) ---- */

/* What a raw read (rg_xas_load() and friends) finds at model slot @s. */
static void *raw(const struct slot *s)
{
	return !s ? NULL : s->entry ? s->entry : RG_XA_ZERO_ENTRY;
}

/* The first model slot (entries and reservations) in [i, max]. */
static struct slot *model_find_raw(unsigned long i, unsigned long max,
				   unsigned int mark)
{
	for (unsigned int p = model_pos(i); p < nr && sl[p].index <= max; p++)
		if (mark == RG_XA_PRESENT || (sl[p].marks >> mark & 1))
			return &sl[p];
	return NULL;
}

/*
 * rg_xas_load() and rg_xas_reload() at an index, the marks read through
 * the state, then one mark set or cleared through it (on an entry, or on
 * an empty index, where nothing happens).
 */
static void xas_op_load(struct fz *f, struct rg_xarray *xa, unsigned long i)
{
	struct slot *s = model_get(i);
	unsigned int mark = fz_u8(f);
	RG_XA_STATE(xas, xa, i);
	void *e;

	rg_xa_lock(xa);
	e = rg_xas_load(&xas);
	FZ_CHECK(f, e == raw(s), "xas_load(%lu) = %p, want %p", i, e, raw(s));
	FZ_CHECK(f, rg_xas_reload(&xas) == e, "xas_reload(%lu)", i);
	FZ_EQ(f, xas.xa_index, i, "xas_load index");
	for (unsigned int m = 0; m < NR_MARKS; m++)
		if ((!s || s->entry) && !(is_alloc() && m == 0))
			FZ_CHECK(f,
				 rg_xas_get_mark(&xas, m) ==
					 (s && (s->marks >> m & 1)),
				 "xas_get_mark(%lu, %u): %s slot, marks %u", i,
				 m, s ? "an entry's" : "no", s ? s->marks : 0);
	FZ_EQ(f, rg_xas_get_mark(&xas, NR_MARKS + (mark & 3)), 0,
	      "xas_get_mark(bad mark)");
	/* The free mark of an allocating array is the array's own. */
	if ((!s || s->entry) && !(is_alloc() && mark % 4 == 0)) {
		if (mark & 0x80)
			rg_xas_clear_mark(&xas, mark % 4);
		else
			rg_xas_set_mark(&xas, mark % 4);
		if (s && mark % 4 < NR_MARKS) {
			if (mark & 0x80)
				s->marks &= ~(1u << mark % 4);
			else
				s->marks |= 1u << mark % 4;
		}
		if (s && mark % 4 < NR_MARKS)
			FZ_EQ(f, rg_xas_get_mark(&xas, mark % 4),
			      !(mark & 0x80), "xas_get_mark after set/clear");
	}
	rg_xa_unlock(xa);
}

/*
 * rg_xas_store() in the documented loop "lock, store, unlock, while
 * rg_xas_nomem()": entries, NULL (erase), RG_XA_ZERO_ENTRY (reserve) and
 * entries the array keeps for itself (-EINVAL, nothing stored). A fault
 * that leaves -ENOMEM leaves the array as it was. A new entry in an
 * allocating array gets its free mark cleared, as its owner must.
 */
static void xas_op_store(struct fz *f, struct rg_xarray *xa, unsigned long i,
			 bool armed)
{
	uint8_t k = fz_u8(f);
	void *entry = k < 32 ? RG_XA_ZERO_ENTRY : pick_entry(f);
	struct slot *s = model_get(i);
	void *want = raw(s), *old = (void *)8;
	bool bad = rg_xa_is_reserved_entry(entry) && entry != RG_XA_ZERO_ENTRY;
	RG_XA_STATE(xas, xa, i);
	long err;

	if (nr + 1 >= MAX_SLOTS) {
		fz_op_end(f, armed);
		return;
	}
	do {
		rg_xa_lock(xa);
		old = rg_xas_store(&xas, entry);
		err = rg_xas_error(&xas);
		if (!err && !s && entry && is_alloc())
			rg_xas_clear_mark(&xas, RG_XA_FREE_MARK);
		rg_xa_unlock(xa);
	} while (rg_xas_nomem(&xas));
	if (fz_op_failed(f, armed, err == -ENOMEM)) {
		FZ_CHECK(f, !old, "xas_store under a fault returned %p", old);
		check(f, xa, true);
		return;
	}
	FZ_EQ(f, err, bad ? -EINVAL : 0, "xas_store error");
	if (err) {
		FZ_CHECK(f, !old, "xas_store error returned %p", old);
		return;
	}
	FZ_CHECK(f, old == want, "xas_store(%lu): old %p, want %p", i, old,
		 want);
	FZ_EQ(f, xas.xa_index, i, "xas_store index");
	if (!entry) {
		if (s)
			model_del(i);
	} else if (s) {
		s->entry = entry == RG_XA_ZERO_ENTRY ? NULL : entry;
	} else {
		model_add(i, entry == RG_XA_ZERO_ENTRY ? NULL : entry);
	}
}

/*
 * rg_xas_find() / rg_xas_next_entry() / rg_xas_find_marked() from an index
 * up to a limit, with rg_xas_pause() now and then: each result and index
 * against the model (reservations included: the calls are raw).
 */
static void xas_op_find(struct fz *f, struct rg_xarray *xa, unsigned long i)
{
	unsigned long max = pick_idx(f), at = i;
	unsigned int mark = fz_u8(f) % 4, steps = 1 + fz_u8(f) % 64;
	RG_XA_STATE(xas, xa, i);
	struct slot *w;
	bool walked = false;
	void *e;

	if (mark == 3)
		mark = RG_XA_PRESENT;
	else if (is_alloc() && mark == RG_XA_FREE_MARK)
		mark = 1; /* free indices: the array's own search */
	rg_xa_lock(xa);
	for (unsigned int n = 0; n < steps; n++) {
		uint8_t how = fz_u8(f);

		if (mark != RG_XA_PRESENT)
			e = rg_xas_find_marked(&xas, max, mark);
		else if (walked && (how & 1))
			e = rg_xas_next_entry(&xas, max);
		else
			e = rg_xas_find(&xas, max);
		if (walked && at == ~0UL)
			w = NULL;
		else
			w = model_find_raw(walked ? at + 1 : at, max, mark);
		FZ_CHECK(f, e == raw(w),
			 "xas_find%s(%lu, max %lu, mark %u) step %u = %p, want "
			 "%p",
			 walked ? " again" : "", at, max, mark, n, e, raw(w));
		if (!w)
			break;
		FZ_EQ(f, xas.xa_index, w->index, "xas_find index");
		at = w->index;
		walked = true;
		if (how & 2) {
			rg_xas_pause(&xas);
			if (at == ~0UL)
				break;
		}
	}
	rg_xa_unlock(xa);
}

/*
 * rg_xas_next() / rg_xas_prev() steps (turning round now and then) from a
 * state walked by rg_xas_load(), or from one not walked, whose first step
 * loads its own index.
 */
static void xas_op_step(struct fz *f, struct rg_xarray *xa, unsigned long i)
{
	unsigned int steps = 1 + fz_u8(f) % 80;
	uint8_t dir = fz_u8(f);
	bool walked = dir & 1, up;
	RG_XA_STATE(xas, xa, i);
	void *e;

	rg_xa_lock(xa);
	if (walked)
		FZ_CHECK(f, rg_xas_load(&xas) == raw(model_get(i)),
			 "xas_load(%lu)", i);
	for (unsigned int n = 0; n < steps; n++) {
		if (n && fz_u8(f) < 32) /* turn round */
			dir ^= 2;
		up = (dir & 2) != 0;
		if (walked)
			i += up ? 1 : -1UL;
		walked = true;
		e = up ? rg_xas_next(&xas) : rg_xas_prev(&xas);
		FZ_CHECK(f, e == raw(model_get(i)), "xas_%s to %lu = %p",
			 up ? "next" : "prev", i, e);
		FZ_EQ(f, xas.xa_index, i, "xas_next/prev index");
	}
	rg_xa_unlock(xa);
}

/*
 * Multi-index mode (a flags byte of 0xf0 or more): a plain array driven by
 * stores of an order, rg_xa_store_range(), erases inside an entry, splits
 * (rg_xas_split_alloc() + rg_xas_split()), conflict walks over a range,
 * marks and get_order, against a list of disjoint ranges, each
 * (first, last, entry, marks). A store inside a larger or equal entry
 * replaces that entry, which keeps its range; a store over smaller
 * entries replaces them with the union of their marks; an erase at any
 * index of an entry erases all of it.
 */
struct mrange {
	unsigned long first, last;
	void *entry;
	unsigned int marks;
};

static struct mrange mr[MAX_SLOTS];
static unsigned int mn;

static unsigned long order_last(unsigned long base, unsigned int order)
{
	return base + ((order >= RG_XA_BITS_ ? 0UL : 1UL << order) - 1);
}

static unsigned int range_order(const struct mrange *r)
{
	unsigned long n = r->last - r->first;
	unsigned int o = 0;

	while (o < RG_XA_BITS_ && (n >> o))
		o++;
	return o;
}

static struct mrange *mr_find(unsigned long i)
{
	for (unsigned int k = 0; k < mn; k++)
		if (i >= mr[k].first && i <= mr[k].last)
			return &mr[k];
	return NULL;
}

static void mr_del(struct mrange *r)
{
	*r = mr[--mn];
}

static void mr_store(unsigned long base, unsigned int order, void *entry)
{
	struct mrange n = { base, order_last(base, order), entry, 0 };
	struct mrange *c = mr_find(base);

	if (c && c->last - c->first >= n.last - n.first) {
		if (entry)
			c->entry = entry;
		else
			mr_del(c);
		return;
	}
	for (unsigned int k = 0; k < mn;) {
		if (mr[k].first >= n.first && mr[k].last <= n.last) {
			n.marks |= mr[k].marks;
			mr_del(&mr[k]);
		} else {
			k++;
		}
	}
	if (entry)
		mr[mn++] = n;
}

/* The largest aligned piece of [i, last] that starts at @i. */
static unsigned int piece_order(unsigned long i, unsigned long last)
{
	unsigned int o = 0;

	if (i == 0 && last == ~0UL)
		return RG_XA_BITS_;
	while (o + 1 < RG_XA_BITS_ && !(i & ((2UL << o) - 1)) &&
	       last - i >= (2UL << o) - 1)
		o++;
	return o;
}

static void *pick_mentry(struct fz *f)
{
	uint8_t k = fz_u8(f);

	if (k < 150)
		return (void *)(uintptr_t)(((uintptr_t)k + 1) << 3);
	if (k < 220)
		return rg_xa_mk_value(k);
	if (k < 240)
		return (void *)(uintptr_t)(0x10002u + ((uintptr_t)k << 2));
	if (k < 250)
		return NULL;
	return (void *)(uintptr_t)((uintptr_t)(k & 7) << 2 | 2); /* reserved */
}

/* An index inside @r. */
static unsigned long pick_inside(struct fz *f, const struct mrange *r)
{
	if (r->last - r->first == ~0UL)
		return fz_index(f);
	return r->first + fz_below(f, r->last - r->first + 1);
}

static bool low_bits_10(const void *e)
{
	return ((uintptr_t)e & 3) == 2;
}

static int cmp_mrange(const void *a, const void *b)
{
	const struct mrange *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

static void mcheck_index(struct fz *f, struct rg_xarray *xa, unsigned long i)
{
	struct mrange *c = mr_find(i);

	FZ_CHECK(f, rg_xa_load(xa, i) == (c ? c->entry : NULL), "load(%lu)", i);
	FZ_EQ(f, rg_xa_get_order(xa, i), c ? (int)range_order(c) : 0,
	      "get_order");
	for (unsigned int m = 0; m < NR_MARKS; m++)
		FZ_EQ(f, rg_xa_get_mark(xa, i, m), c && (c->marks >> m & 1),
		      "get_mark");
}

static void mcheck(struct fz *f, struct rg_xarray *xa, bool all)
{
	static struct mrange srt[MAX_SLOTS];
	const char *why = NULL;
	unsigned long i;
	unsigned int p = 0;
	void *e;

	if (rg_xa_validate(xa, &why))
		FZ_FAIL(f, "validate: %s", why ? why : "?");
	FZ_EQ(f, rg_xa_empty(xa), mn == 0, "empty");
	if (!all)
		return;
	memcpy(srt, mr, mn * sizeof(*mr));
	qsort(srt, mn, sizeof(*srt), cmp_mrange);
	for (p = 0; p < mn; p++) {
		mcheck_index(f, xa, srt[p].first);
		mcheck_index(f, xa, srt[p].last);
	}
	p = 0;
	rg_xa_for_each(xa, i, e)
	{
		FZ_CHECK(f, p < mn, "iteration: extra index %lu", i);
		FZ_CHECK(f, i == srt[p].first && e == srt[p].entry,
			 "iteration: %lu %p, want %lu %p", i, e, srt[p].first,
			 srt[p].entry);
		p++;
		if (srt[p - 1].last == ~0UL)
			break;
	}
	FZ_EQ(f, p, mn, "entries seen by iteration");
}

/* Every entry overlapping [base, last] once, in index order, with order. */
static void mop_conflict(struct fz *f, struct rg_xarray *xa, unsigned long base,
			 unsigned int order)
{
	RG_XA_STATE_ORDER(xas, xa, base, order);
	unsigned long last = order_last(base, order), after = 0;
	unsigned int want = 0, seen = 0;
	bool any = false;
	void *c;

	for (unsigned int k = 0; k < mn; k++)
		want += mr[k].first <= last && mr[k].last >= base;
	rg_xa_lock(xa);
	while ((c = rg_xas_find_conflict(&xas))) {
		struct mrange *at = NULL;

		FZ_EQ(f, xas.xa_index, base, "find_conflict index");
		for (unsigned int k = 0; k < mn; k++)
			if (mr[k].first <= last && mr[k].last >= base &&
			    (!any || mr[k].first > after) &&
			    (!at || mr[k].first < at->first))
				at = &mr[k];
		FZ_CHECK(f, at && at->entry == c, "find_conflict(%lu, %u): %p",
			 base, order, c);
		FZ_EQ(f, rg_xas_get_order(&xas), range_order(at),
		      "find_conflict order");
		after = at->first;
		any = true;
		seen++;
		FZ_CHECK(f, seen <= want, "find_conflict: too many");
	}
	rg_xa_unlock(xa);
	FZ_EQ(f, seen, want, "find_conflict count");
}

static void mop_split(struct fz *f, struct rg_xarray *xa, bool armed)
{
	RG_XA_STATE(xas, xa, 0);
	struct mrange *c, was;
	unsigned int order, to;
	unsigned long i;
	void *e = (void *)(uintptr_t)(((uintptr_t)fz_u8(f) + 1) << 3);
	int err;

	if (!mn) {
		fz_op_end(f, armed);
		return;
	}
	c = &mr[fz_below(f, mn)];
	order = range_order(c);
	if (!order || order > 12 || mn + 64 >= MAX_SLOTS) {
		fz_op_end(f, armed);
		return;
	}
	to = order - 1 - fz_u8(f) % (order < 6 ? order : 6);
	i = pick_inside(f, c);
	rg_xas_set_order(&xas, i, to);
	rg_xas_split_alloc(&xas, e, order);
	err = rg_xas_error(&xas);
	if (fz_op_failed(f, armed, err == -ENOMEM))
		return;
	FZ_EQ(f, err, 0, "split_alloc");
	rg_xa_lock(xa);
	rg_xas_split(&xas, e, order);
	rg_xa_unlock(xa);
	FZ_EQ(f, rg_xas_error(&xas), 0, "split");
	rg_xas_nomem(&xas);
	was = *c;
	mr_del(c);
	for (unsigned long b = was.first;; b += 1UL << to) {
		mr[mn++] =
			(struct mrange){ b, order_last(b, to), e, was.marks };
		if (order_last(b, to) == was.last)
			break;
	}
}

static void run_mop(struct fz *f, struct rg_xarray *xa, unsigned int op,
		    bool armed)
{
	unsigned long i = pick_idx(f), last;
	unsigned int order = fz_u8(f) % 16, m;
	void *e = pick_mentry(f), *old = (void *)8;
	struct mrange *c = mr_find(i);
	int rc, exp;

	if (order >= 14)
		order = order == 14 ? RG_XA_BITS_ : RG_XA_BITS_ + 1;
	if (mn + 70 >= MAX_SLOTS && op % 8 < 2)
		op = 2; /* hold the model's size: erase */
	switch (op % 8) {
	case 0: { /* store of an order, aligned (or sometimes not) */
		unsigned long base =
			order >= RG_XA_BITS_ ? 0 : i & ~((1UL << order) - 1);
		struct mrange *at;

		if (fz_u8(f) < 16 && order && order < RG_XA_BITS_)
			base |= 1UL << (order - 1);
		exp = order > RG_XA_BITS_ || rg_xa_is_reserved_entry(e) ||
				      (low_bits_10(e) && order >= 6) ||
				      (order < RG_XA_BITS_ &&
				       (base & ((1UL << order) - 1))) ?
			      -EINVAL :
			      0;
		at = exp ? NULL : mr_find(base);
		/* a larger entry takes @e: refused where it sits in a node */
		if (at && low_bits_10(e) && range_order(at) >= 6) {
			exp = -EINVAL;
			at = NULL;
		}
		rc = rg_xa_store_order(xa, base, order, e, &old);
		if (fz_op_failed(f, armed, rc == -ENOMEM)) {
			FZ_CHECK(f, old == (void *)8, "old written on failure");
			break;
		}
		FZ_CHECK(f, rc == exp, "store_order(%lu, %u, %p): %d, want %d",
			 base, order, e, rc, exp);
		if (rc) {
			FZ_CHECK(f, old == (void *)8, "old written on error");
			break;
		}
		if (!at) {
			/* the first entry in the range, in index order */
			last = order_last(base, order);
			for (unsigned int k = 0; k < mn; k++)
				if (mr[k].first >= base && mr[k].last <= last &&
				    (!at || mr[k].first < at->first))
					at = &mr[k];
		}
		FZ_CHECK(f, old == (at ? at->entry : NULL), "store_order old");
		mr_store(base, order, e);
		mcheck_index(f, xa, base);
		break;
	}
	case 1: /* store_range */
		last = fz_u8(f) == 255 ? ~0UL : i + fz_below(f, 300);
		if (fz_u8(f) == 0)
			i = 0;
		if (last < i)
			last = ~0UL;
		exp = rg_xa_is_reserved_entry(e) ||
				      (low_bits_10(e) && last != i) ?
			      -EINVAL :
			      0;
		if (!exp && low_bits_10(e) && c && range_order(c) >= 6)
			exp = -EINVAL;
		rc = rg_xa_store_range(xa, i, last, e);
		if (fz_op_failed(f, armed, rc == -ENOMEM))
			break;
		FZ_CHECK(f, rc == exp, "store_range(%lu, %lu, %p): %d, want %d",
			 i, last, e, rc, exp);
		if (rc)
			break;
		for (unsigned long b = i;;) {
			unsigned int o = piece_order(b, last);

			mr_store(b, o, e);
			if (order_last(b, o) == last)
				break;
			b += 1UL << o;
		}
		mcheck_index(f, xa, i);
		mcheck_index(f, xa, last);
		break;
	case 2: /* erase inside an entry: all of it goes */
		fz_op_end(f, armed);
		if (mn && fz_u8(f) < 200) {
			c = &mr[fz_below(f, mn)];
			i = pick_inside(f, c);
		}
		old = rg_xa_erase(xa, i);
		FZ_CHECK(f, old == (c ? c->entry : NULL), "erase(%lu)", i);
		if (c)
			mr_del(c);
		mcheck_index(f, xa, i);
		break;
	case 3: /* split */
		mop_split(f, xa, armed);
		break;
	case 4: /* find_conflict over a range */
		fz_op_end(f, armed);
		if (order > RG_XA_BITS_)
			order = 12;
		mop_conflict(f, xa,
			     order >= RG_XA_BITS_ ? 0 :
						    i & ~((1UL << order) - 1),
			     order);
		break;
	case 5: /* set or clear a mark at any index of an entry */
		fz_op_end(f, armed);
		m = fz_u8(f) % NR_MARKS;
		if (order & 1) {
			FZ_EQ(f, rg_xa_set_mark(xa, i, m), c ? 0 : -ENOENT,
			      "set_mark");
			if (c)
				c->marks |= 1u << m;
		} else {
			FZ_EQ(f, rg_xa_clear_mark(xa, i, m), c ? 0 : -ENOENT,
			      "clear_mark");
			if (c)
				c->marks &= ~(1u << m);
		}
		break;
	default: /* get_order and load at an index */
		fz_op_end(f, armed);
		mcheck_index(f, xa, i);
		break;
	}
}

static void run_multi(struct fz *f, struct rg_xarray *xa)
{
	mn = 0;
	while (fz_more(f)) {
		bool armed;
		unsigned int op = fz_op_begin(f, &armed);

		run_mop(f, xa, op, armed);
		mcheck(f, xa, f->fired || f->op % 16 == 0);
	}
	mcheck(f, xa, true);
	while (mn) {
		rg_xa_erase(xa, mr[mn - 1].first);
		mn--;
	}
	mcheck(f, xa, false);
	FZ_EQ(f, rg_xa_node_count(xa), 0, "nodes of an empty array");
	rg_xa_destroy(xa);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int flagset[3] = { 0, RG_XA_FLAGS_ALLOC,
						 RG_XA_FLAGS_ALLOC1 };
	struct rg_xarray xa;
	struct fz f;

	uint8_t mode;

	fz_init(&f, "xarray", data, size);
	mode = fz_u8(&f);
	xflags = mode >= 0xf0 ? 0 : flagset[mode % 3];
	nr = 0;
	FZ_EQ(&f, rg_xa_init_flags(&xa, xflags), 0, "init_flags");
	if (mode >= 0xf0) {
		run_multi(&f, &xa);
		return 0;
	}
	while (fz_more(&f)) {
		bool armed;
		unsigned int op = fz_op_begin(&f, &armed);
		unsigned long i;

		/* Opcodes 0-119 the normal API, 120-127 the advanced. */
		if (op < 120) {
			run_op(&f, &xa, op % 15, armed);
		} else {
			i = pick_idx(&f);
			if (op >= 122)
				fz_op_end(&f, armed);
			if (op < 122)
				xas_op_store(&f, &xa, i, armed);
			else if (op < 124)
				xas_op_load(&f, &xa, i);
			else if (op < 126)
				xas_op_find(&f, &xa, i);
			else
				xas_op_step(&f, &xa, i);
		}
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
