// SPDX-License-Identifier: MIT
/*
 * Fuzz target: a slab cache against a list of live objects.
 *
 * Input: object size, alignment, debug flags and constructor choice, then
 * operations: alloc, free, alloc_bulk, free_bulk, prefill / refill /
 * alloc_from / return sheaf, shrink, stats, and (with RG_SLAB_CHECK) a
 * double free, a foreign and an interior pointer, which must reach the
 * report hook and change nothing. Every object handed out must be aligned,
 * must not overlap any live object, and is filled with its own tag, which
 * must be intact when it is freed (so two owners of one object are caught
 * even without debug flags). With a constructor, every new object must be
 * in constructed state. Faults armed on any allocating call must give
 * NULL / 0 / -ENOMEM with errno ENOMEM and nothing allocated. After every
 * operation the cache is validated and objects_in_use compared; at the end
 * the cache is destroyed and must report exactly the objects left live.
 */
#include "fuzz.h"

#include "region/slab.h"

#define MAX_LIVE 512
#define MAX_SHEAVES 4
#define CTOR_BYTE 0xc5

struct obj {
	unsigned char *p;
	uint8_t tag;
};

static struct obj live[MAX_LIVE];
static unsigned int nr_live;
static void *freed[64]; /* recently freed, not handed out again */
static unsigned int nr_freed;
static struct rg_slab_sheaf *sheaf[MAX_SHEAVES];
static size_t osize, oalign;
static bool has_ctor, checked;
static unsigned long reports;
static const char *last_report;

static void ctor(void *p)
{
	memset(p, CTOR_BYTE, osize);
}

static void hook(const char *cache, const void *obj, const char *what,
		 void *arg)
{
	(void)cache;
	(void)obj;
	(void)arg;
	reports++;
	last_report = what;
}

static void forget_freed(void *p)
{
	for (unsigned int i = 0; i < nr_freed; i++)
		if (freed[i] == p) {
			freed[i] = freed[--nr_freed];
			return;
		}
}

static void remember_freed(void *p)
{
	forget_freed(p);
	if (nr_freed < 64)
		freed[nr_freed++] = p;
	else
		freed[p == freed[0]] = p;
}

/* A new object from the cache: check and record it. */
static void take(struct fz *f, void *vp)
{
	unsigned char *p = vp;
	uint8_t tag = (uint8_t)(f->op * 31 + nr_live);

	FZ_CHECK(f, p, "NULL object");
	FZ_CHECK(f, (uintptr_t)p % oalign == 0, "object %p not aligned to %zu",
		 vp, oalign);
	for (unsigned int i = 0; i < nr_live; i++)
		FZ_CHECK(f, p + osize <= live[i].p || live[i].p + osize <= p,
			 "object %p overlaps live object %p", vp,
			 (void *)live[i].p);
	if (has_ctor)
		for (size_t b = 0; b < osize; b++)
			FZ_CHECK(f, p[b] == CTOR_BYTE,
				 "object %p byte %zu not constructed", vp, b);
	forget_freed(p);
	memset(p, tag, osize);
	FZ_CHECK(f, nr_live < MAX_LIVE, "too many live objects");
	live[nr_live++] = (struct obj){ p, tag };
}

/* Remove live object @i and prepare it to be freed. */
static void *give(struct fz *f, unsigned int i)
{
	struct obj o = live[i];

	for (size_t b = 0; b < osize; b++)
		FZ_CHECK(f, o.p[b] == o.tag,
			 "object %p byte %zu overwritten: %#x, tag %#x",
			 (void *)o.p, b, o.p[b], o.tag);
	if (has_ctor)
		memset(o.p, CTOR_BYTE, osize);
	live[i] = live[--nr_live];
	remember_freed(o.p);
	return o.p;
}

static void check(struct fz *f, struct rg_slab_cache *c)
{
	struct rg_slab_stats st;
	const char *why = NULL;
	size_t in_sheaves = 0;

	if (rg_slab_validate(c, &why))
		FZ_FAIL(f, "validate: %s", why ? why : "?");
	FZ_EQ(f, rg_slab_get_stats(c, &st), 0, "get_stats");
	FZ_EQ(f, st.objects_in_use, nr_live, "objects_in_use");
	FZ_EQ(f, st.object_size, osize, "object_size");
	FZ_EQ(f, st.bytes_held, st.slabs * st.slab_size, "bytes_held");
	FZ_EQ(f, st.bytes_live, nr_live * osize, "bytes_live");
	FZ_CHECK(f, st.bytes_held_peak >= st.bytes_held, "peak below held");
	for (unsigned int j = 0; j < MAX_SHEAVES; j++)
		in_sheaves += rg_slab_sheaf_size(sheaf[j]);
	FZ_CHECK(f, st.objects_cached >= in_sheaves,
		 "objects_cached %zu below the %zu in prefilled sheaves",
		 st.objects_cached, in_sheaves);
}

static struct rg_slab_cache *create(struct fz *f)
{
	uint8_t fl = fz_u8(f), a = fz_u8(f);
	unsigned int flags = 0;
	struct rg_slab_cache *c;
	bool armed;

	osize = 1 + fz_u16(f) % (fl & 0x80 ? 8192 : 512);
	oalign = a % 14 < 13 ? (size_t)1 << (a % 14) : 0;
	if (fl & 1)
		flags |= RG_SLAB_POISON;
	if (fl & 2) {
		/*
		 * Validate checks every guard byte of every object, padding
		 * included: with large alignments that is most of each slab,
		 * after every operation. Red-zone caches keep to 64 bytes.
		 */
		flags |= RG_SLAB_RED_ZONE;
		if (oalign > 64)
			oalign = 64;
	}
	if (fl & 4)
		flags |= RG_SLAB_CHECK;
	if ((fl & 0x38) == 0x38)
		flags |= RG_SLAB_HUGEPAGE;
	has_ctor = fl & 0x40;
	checked = flags & RG_SLAB_CHECK;
	/* Bad arguments first: each must fail with EINVAL. */
	errno = 0;
	FZ_CHECK(f, !rg_slab_create("fz", 0, 0, 0, NULL) && errno == EINVAL,
		 "create(size 0)");
	FZ_CHECK(f, !rg_slab_create("fz", osize, 3, 0, NULL) && errno == EINVAL,
		 "create(align 3)");
	FZ_CHECK(f,
		 !rg_slab_create("fz", osize, 0, 0x100, NULL) &&
			 errno == EINVAL,
		 "create(unknown flags)");
	fz_op_begin(f, &armed);
	errno = 0;
	c = rg_slab_create("fz", osize, oalign, flags, has_ctor ? ctor : NULL);
	if (fz_op_failed(f, armed, !c)) {
		FZ_EQ(f, errno, ENOMEM, "create under a fault: errno");
		c = rg_slab_create("fz", osize, oalign, flags,
				   has_ctor ? ctor : NULL);
	}
	FZ_CHECK(f, c, "create(%zu, %zu, %#x): errno %d", osize, oalign, flags,
		 errno);
	if (!oalign) /* natural alignment of the size, up to 16 */
		for (oalign = 1; oalign < 16 && osize % (oalign * 2) == 0;)
			oalign *= 2;
	return c;
}

static void run_op(struct fz *f, struct rg_slab_cache *c, unsigned int op,
		   bool armed)
{
	void *v[64], *p;
	unsigned int j = fz_u8(f) % MAX_SHEAVES, n, k;
	int rc;

	switch (op) {
	case 0: /* alloc */
		errno = 0;
		p = rg_slab_alloc(c);
		if (fz_op_failed(f, armed, !p)) {
			FZ_EQ(f, errno, ENOMEM, "alloc under a fault: errno");
			break;
		}
		if (nr_live < MAX_LIVE)
			take(f, p);
		else
			rg_slab_free(c, p);
		break;
	case 1: /* free */
	case 2:
		fz_op_end(f, armed);
		if (nr_live)
			rg_slab_free(c, give(f, fz_below(f, nr_live)));
		break;
	case 3: /* alloc_bulk */
		n = fz_u8(f) % 65;
		if (nr_live + n > MAX_LIVE)
			n = 0;
		errno = 0;
		k = (unsigned int)rg_slab_alloc_bulk(c, n, v);
		if (fz_op_failed(f, armed, !k)) {
			FZ_EQ(f, errno, ENOMEM, "alloc_bulk under a fault");
			break;
		}
		if (!n) {
			FZ_CHECK(f, !k && errno == EINVAL, "alloc_bulk(0)");
			break;
		}
		FZ_EQ(f, k, n, "alloc_bulk");
		for (unsigned int i = 0; i < n; i++)
			take(f, v[i]);
		break;
	case 4: /* free_bulk, with NULL holes */
		fz_op_end(f, armed);
		n = fz_u8(f) % 65;
		for (k = 0; k < n; k++)
			v[k] = nr_live && fz_u8(f) % 8 ?
				       give(f, fz_below(f, nr_live)) :
				       NULL;
		rg_slab_free_bulk(c, n, v);
		break;
	case 5: { /* prefill */
		uint8_t b = fz_u8(f);

		n = b < 250 ? 1 + b % 80 : b == 250 ? 0 : 65537;
		if (sheaf[j]) {
			fz_op_end(f, armed);
			break;
		}
		errno = 0;
		sheaf[j] = rg_slab_prefill_sheaf(c, n);
		if (fz_op_failed(f, armed, !sheaf[j])) {
			FZ_EQ(f, errno, ENOMEM, "prefill under a fault");
			break;
		}
		if (!n || n > 65536) {
			FZ_CHECK(f, !sheaf[j] && errno == EINVAL, "prefill(%u)",
				 n);
			break;
		}
		FZ_CHECK(f, sheaf[j] && rg_slab_sheaf_size(sheaf[j]) >= n,
			 "prefill(%u): %u objects", n,
			 rg_slab_sheaf_size(sheaf[j]));
		break;
	}
	case 6: { /* refill */
		unsigned int before = rg_slab_sheaf_size(sheaf[j]);

		n = 1 + fz_u8(f) % 100;
		if (!sheaf[j]) {
			fz_op_end(f, armed);
			break;
		}
		rc = rg_slab_refill_sheaf(c, &sheaf[j], n);
		if (fz_op_failed(f, armed, rc == -ENOMEM)) {
			FZ_EQ(f, rg_slab_sheaf_size(sheaf[j]), before,
			      "sheaf size after a failed refill");
			break;
		}
		FZ_EQ(f, rc, 0, "refill");
		FZ_CHECK(f, rg_slab_sheaf_size(sheaf[j]) >= n,
			 "refill(%u): %u objects", n,
			 rg_slab_sheaf_size(sheaf[j]));
		break;
	}
	case 7: { /* alloc_from_sheaf */
		unsigned int before = rg_slab_sheaf_size(sheaf[j]);

		fz_op_end(f, armed);
		if (!sheaf[j] || nr_live == MAX_LIVE)
			break;
		p = rg_slab_alloc_from_sheaf(c, sheaf[j]);
		if (!before) {
			FZ_CHECK(f, !p, "object from an empty sheaf");
			break;
		}
		FZ_EQ(f, rg_slab_sheaf_size(sheaf[j]), before - 1,
		      "sheaf size after a take");
		take(f, p);
		break;
	}
	case 8: /* return sheaf */
		fz_op_end(f, armed);
		rg_slab_return_sheaf(c, sheaf[j]);
		sheaf[j] = NULL;
		break;
	case 9:
		fz_op_end(f, armed);
		FZ_CHECK(f, rg_slab_shrink(c) >= 0, "shrink");
		rg_slab_dump(c, fz_null());
		break;
	default: { /* bad frees: reported, ignored */
		unsigned long before = reports;
		long local;

		fz_op_end(f, armed);
		k = fz_u8(f) % 4;
		if (k == 3 && nr_live) {
			/* Freed twice in a row: caught in every cache. */
			p = give(f, fz_below(f, nr_live));
			rg_slab_free(c, p);
			before = reports;
			rg_slab_free(c, p);
			FZ_EQ(f, reports, before + 1,
			      "reports of a double free in a row");
			FZ_CHECK(f, !strcmp(last_report, "double free"),
				 "double free in a row reported as %s",
				 last_report);
			break;
		}
		if (!checked)
			break;
		/*
		 * A freed object may sit in a prefilled sheaf by now, out of
		 * its slab as if allocated: double-free only without sheaves.
		 */
		for (unsigned int i = 0; i < MAX_SHEAVES; i++)
			if (rg_slab_sheaf_size(sheaf[i]) && k == 0)
				k = 3;
		if (k == 0 && nr_freed)
			rg_slab_free(c, freed[fz_below(f, nr_freed)]);
		else if (k == 1)
			rg_slab_free(c, &local);
		else if (nr_live && osize > 1)
			rg_slab_free(c, live[fz_below(f, nr_live)].p + 1);
		else
			break;
		FZ_EQ(f, reports, before + 1, "reports of a bad free");
		FZ_CHECK(f, last_report, "report without a reason");
		break;
	}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rg_slab_cache *c;
	size_t leaked;
	bool keep;
	struct fz f;

	fz_init(&f, "slab", data, size);
	rg_slab_set_report_hook(hook, NULL);
	nr_live = nr_freed = 0;
	memset(sheaf, 0, sizeof(sheaf));
	keep = fz_u8(&f) & 1;
	c = create(&f);
	check(&f, c);
	while (fz_more(&f)) {
		bool armed;
		unsigned int op = fz_op_begin(&f, &armed) % 11;

		run_op(&f, c, op, armed);
		check(&f, c);
	}
	for (unsigned int j = 0; j < MAX_SHEAVES; j++) {
		rg_slab_return_sheaf(c, sheaf[j]);
		sheaf[j] = NULL;
	}
	check(&f, c);
	if (!keep)
		while (nr_live)
			rg_slab_free(c, give(&f, nr_live - 1));
	leaked = rg_slab_destroy(c);
	FZ_EQ(&f, leaked, nr_live, "objects destroy reports as leaked");
	rg_slab_set_report_hook(NULL, NULL);
	return 0;
}
