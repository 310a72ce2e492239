// SPDX-License-Identifier: MIT
/*
 * hbitmap: the cold parts, validation and the dump. Theory of operation.
 *
 * What is here
 *   rg_hbitmap_validate() and rg_hbitmap_dump(). The structure and its hot
 *   paths are in hbitmap.c, the layout both read in hb_internal.h; what
 *   needs hbitmap.c's static computations goes through its rgi_hb_*
 *   wrappers.
 *
 * Invariants (what rg_hbitmap_validate() checks)
 *   Every block but the pending one has bsum equal to a recomputation from
 *   its words (by a plain run-by-run reference, independent of
 *   hb_block_compute()); a block of the deferred run holds the summary of
 *   its words with the run's units flipped back. Every node's masks match
 *   its children's stored summaries, each g value a recomputation
 *   (saturated at HB_G_MAX), its own summary a recomputation from its
 *   children. A fully free span has prefix = suffix = its size, inner 0.
 *   free_units counts the zero bits below the capacity; the padding is
 *   set. The pending block's cached runs match a brute-force scan.
 *   Best-fit instances never have a pending block; with stale summaries
 *   only the count, the padding and the index (hb_runs.c) are checked.
 *   doc/design.md has the table of the deferred-update schemes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hb_internal.h"
#include "rg_internal.h"
#include "region/hbitmap.h"

/*
 * hb_block_compute() the plain way, one free run at a time: validation
 * checks the stored summaries against this independent reference.
 */
static uint32_t hb_block_compute_ref(const uint64_t *w)
{
	uint64_t a = 0, b, p = 0, s = 0, best = 0;

	for (;; a = b) {
		a = rgi_hb_next_bit(w, a, HB_BLOCK_BITS, false);
		if (a == HB_BLOCK_BITS)
			break;
		b = rgi_hb_next_bit(w, a, HB_BLOCK_BITS, true);
		if (a == 0)
			p = b;
		if (b == HB_BLOCK_BITS)
			s = b - a;
		if (a != 0 && b != HB_BLOCK_BITS && b - a > best)
			best = b - a;
		if (b == HB_BLOCK_BITS)
			break;
	}
	if (p == HB_BLOCK_BITS)
		return HB_BS_FREE;
	return HB_BS(p, s, best);
}

#define HB_FAIL(msg)                     \
	do {                             \
		if (reason)              \
			*reason = (msg); \
		return -EINVAL;          \
	} while (0)

/*
 * The deferred run: where it lies, its bits, and that every block it
 * covers, other than the pending one, holds the summary of its words
 * before the run (its part of the run flipped back).
 */
static int hb_validate_chain(const struct rg_hbitmap *hb, const char **reason)
{
	uint64_t s = hb->chain_s, e = hb->chain_e, ps, b0, b1;

	if (hb->pend == HB_NONE)
		HB_FAIL("deferred run without a pending block");
	ps = hb->pend << HB_BLOCK_SHIFT;
	if (s >= e || (hb->chain_set ? e != ps : s != ps + HB_BLOCK_BITS))
		HB_FAIL("deferred run not next to the pending block");
	b0 = s >> HB_BLOCK_SHIFT;
	b1 = (e - 1) >> HB_BLOCK_SHIFT;
	if (e > hb->capacity)
		HB_FAIL("deferred run past the capacity");
	if (!hb_bits_are(hb->words, s, e, hb->chain_set))
		HB_FAIL("deferred run's bits are not all changed");
	if (hb->chain_set ? !hb->before_known || !hb->before_exact :
			    hb->pend_alloc)
		HB_FAIL("deferred run with the wrong fast-path state");
	for (uint64_t b = b0; b <= b1; b++) {
		uint64_t w[HB_BLOCK_WORDS], bs = b << HB_BLOCK_SHIFT;

		/* the block's words with its part of the run undone */
		memcpy(w, hb->words + b * HB_BLOCK_WORDS, sizeof(w));
		hb_bits(w, RGI_MAX(s, bs) - bs,
			RGI_MIN(e, bs + HB_BLOCK_BITS) - bs, !hb->chain_set);
		if (hb->bsum[b] != hb_block_compute_ref(w))
			HB_FAIL("deferred block's summary is not its summary "
				"before the run");
	}
	return 0;
}

static int hb_validate_core(const struct rg_hbitmap *hb, const char **reason)
{
	struct hb_geom g;
	uint64_t zeros = 0, end, suffix = 0, best = 0, pstart;

	if (!hb)
		HB_FAIL("NULL bitmap");
	if (hb->capacity == 0 || hb->capacity > RG_HBITMAP_MAX_CAPACITY)
		HB_FAIL("capacity out of range");
	rgi_hb_geometry(hb->capacity, &g);
	if (g.nblocks != hb->nblocks || g.nlevels != hb->nlevels ||
	    g.total != hb->data_bytes)
		HB_FAIL("geometry does not match the capacity");
	end = hb->nblocks << HB_BLOCK_SHIFT;
	if (hb->capacity < end &&
	    !hb_bits_are(hb->words, hb->capacity, end, true))
		HB_FAIL("padding past the capacity is not allocated");
	for (uint64_t i = 0; i < hb->nblocks * HB_BLOCK_WORDS; i++)
		zeros += 64 - (uint64_t)__builtin_popcountll(hb->words[i]);
	if (zeros != hb->free_units)
		HB_FAIL("free_units does not match the bitmap");
	if (hb->pend != HB_NONE && hb->pend >= hb->nblocks)
		HB_FAIL("pending block out of range");
	if (hb->pend != HB_NONE && hb->runs)
		HB_FAIL("best-fit instance keeps a pending block");
	for (uint64_t b = 0; b < hb->nblocks; b++) {
		const uint64_t *w = hb->words + b * HB_BLOCK_WORDS;

		if (b == hb->pend || hb_in_chain(hb, b)) {
			/* stale by design; the fast method must still agree */
			if (rgi_hb_block_compute(w) != hb_block_compute_ref(w))
				HB_FAIL("block summary methods disagree");
			continue;
		}
		if (hb->bsum[b] != hb_block_compute_ref(w))
			HB_FAIL("block summary differs from its words");
	}
	for (unsigned k = 0; k < hb->nlevels; k++) {
		uint64_t nchild = k ? hb->lv_count[k - 1] : hb->nblocks;
		uint64_t csz = 1ULL << hb_child_shift(k);

		if (hb->lv_count[k] != g.count[k])
			HB_FAIL("level node count is wrong");
		for (uint64_t idx = 0; idx < hb->lv_count[k]; idx++) {
			const struct hb_node *nd = &hb->lv[k][idx];
			struct hb_node t = { 0, 0, 0, 0, 0 };
			struct hb_sum s, t2;

			for (unsigned i = 0; i < 64; i++) {
				uint64_t c = (idx << HB_FAN_SHIFT) + i;

				if (c >= nchild)
					break;
				s = hb_child(hb, k, c);
				hb_mask_set(&t, i, &s, csz);
			}
			if (t.any != nd->any || t.all != nd->all)
				HB_FAIL("node masks differ from the children");
			for (unsigned j = 0; j < 64; j++)
				if (hb_g_get(hb, k, idx, j) !=
				    hb_g_clamp(
					    rgi_hb_g_exact(hb, k, idx, nd, j)))
					HB_FAIL("node g value differs from a "
						"recomputation");
			s = rgi_hb_node_compute(hb, k, idx);
			t2 = rgi_hb_node_sum(hb, k, idx);
			if (!hb_sum_eq(&s, &t2))
				HB_FAIL("node summary methods disagree");
			if (s.p != nd->p || s.s != nd->s ||
			    s.inner != nd->inner)
				HB_FAIL("node summary differs from a "
					"recomputation");
		}
	}
	if (hb->chain_s != HB_NONE && hb_validate_chain(hb, reason))
		return -EINVAL;
	if (hb->pend == HB_NONE) {
		if (hb->before_known || hb->pend_alloc)
			HB_FAIL("pending state without a pending block");
		return 0;
	}
	if (hb->before_lim !=
	    (hb->before_known ? hb_max3(hb->before_max, hb->before_suffix, 0) :
				UINT64_MAX))
		HB_FAIL("cached fast-path limit is wrong");
	if (hb->pend_hint > HB_BLOCK_WORDS)
		HB_FAIL("pending word hint out of range");
	for (unsigned j = 0; j < hb->pend_hint; j++)
		if (hb->words[hb->pend * HB_BLOCK_WORDS + j] != ~0ULL)
			HB_FAIL("pending word hint passes a free unit");
	if (!hb->before_known)
		return 0;
	/* Brute force: runs before the pending block. */
	pstart = hb->pend << HB_BLOCK_SHIFT;
	for (uint64_t u = rgi_hb_next_bit(hb->words, 0, pstart, false);
	     u < pstart; u = rgi_hb_next_bit(hb->words, u, pstart, false)) {
		uint64_t e = rgi_hb_next_bit(hb->words, u, pstart, true);

		if (e == pstart) {
			suffix = e - u;
			break;
		}
		if (e - u > best)
			best = e - u;
		u = e;
	}
	if (hb->before_exact) {
		if (best != hb->before_max || suffix != hb->before_suffix)
			HB_FAIL("cached runs before the pending block are "
				"wrong");
	} else if (hb->before_max > hb_max3(best, suffix, 0)) {
		HB_FAIL("cached run bound before the pending block is too "
			"high");
	}
	return 0;
}

/* Stale summaries (best fit): the free count and the padding only. */
static int hb_validate_bits(const struct rg_hbitmap *hb, const char **reason)
{
	uint64_t used = 0, nw = (hb->capacity + 63) >> 6;

	for (uint64_t i = 0; i < nw; i++)
		used += (uint64_t)__builtin_popcountll(hb->words[i]);
	if (hb->capacity & 63)
		used -= 64 - (hb->capacity & 63); /* padding of the last word */
	if (hb->capacity < hb->nblocks << HB_BLOCK_SHIFT &&
	    !hb_bits_are(hb->words, hb->capacity, hb->nblocks << HB_BLOCK_SHIFT,
			 true))
		HB_FAIL("padding bits past the capacity are not all set");
	if (used + hb->free_units != hb->capacity)
		HB_FAIL("free-unit count disagrees with the bitmap");
	return 0;
}

int rg_hbitmap_validate(const struct rg_hbitmap *hb, const char **reason)
{
	int err = hb && hb->sum_stale ? hb_validate_bits(hb, reason) :
					hb_validate_core(hb, reason);

	if (!err && rg_hbitmap_bytes_peak(hb) < rg_hbitmap_bytes(hb)) {
		if (reason)
			*reason = "peak of bytes held below bytes held";
		return -EINVAL;
	}
	if (err || !hb->runs)
		return err;
	if (hb->pend != HB_NONE || hb->pend_alloc) {
		if (reason)
			*reason = "best-fit instance has a pending block";
		return -EINVAL;
	}
	return rgi_hb_runs_validate(hb, reason);
}

void rg_hbitmap_dump(const struct rg_hbitmap *hb, FILE *f)
{
	struct hb_sum r = { 0, 0, 0 };
	uint64_t u = 0, runs = 0;

	if (!hb || !f)
		return;
	if (!hb->sum_stale)
		r = rgi_hb_live_root(hb);
	fprintf(f,
		"hbitmap capacity %llu free %llu blocks %llu levels %u "
		"bytes %zu\n",
		(unsigned long long)hb->capacity,
		(unsigned long long)hb->free_units,
		(unsigned long long)hb->nblocks, hb->nlevels,
		rg_hbitmap_bytes(hb));
	if (hb->sum_stale)
		fprintf(f, "  summaries stale (best fit; rebuilt by the next "
			   "first-fit call)\n");
	else
		fprintf(f, "  root prefix %llu suffix %llu inner %llu\n",
			(unsigned long long)r.p, (unsigned long long)r.s,
			(unsigned long long)r.inner);
	if (hb->pend != HB_NONE)
		fprintf(f,
			"  pending block %llu (alloc %d, before %s %llu/%llu)\n",
			(unsigned long long)hb->pend, hb->pend_alloc,
			hb->before_known ? "known" : "unknown",
			(unsigned long long)hb->before_max,
			(unsigned long long)hb->before_suffix);
	if (hb->chain_s != HB_NONE)
		fprintf(f, "  deferred run [%llu,%llu) %s\n",
			(unsigned long long)hb->chain_s,
			(unsigned long long)hb->chain_e,
			hb->chain_set ? "set" : "cleared");
	for (unsigned k = hb->nlevels; k-- > 0;) {
		uint64_t shown = hb->lv_count[k] < 8 ? hb->lv_count[k] : 8;

		fprintf(f, "  level %u: %llu nodes\n", k,
			(unsigned long long)hb->lv_count[k]);
		for (uint64_t i = 0; i < shown; i++) {
			const struct hb_node *nd = &hb->lv[k][i];

			fprintf(f,
				"    [%llu] any %016llx all %016llx p %llu "
				"s %llu inner %llu\n",
				(unsigned long long)i,
				(unsigned long long)nd->any,
				(unsigned long long)nd->all,
				(unsigned long long)nd->p,
				(unsigned long long)nd->s,
				(unsigned long long)nd->inner);
		}
	}
	fprintf(f, "  free runs:");
	while (runs < 32) {
		uint64_t s = rgi_hb_next_bit(hb->words, u, hb->capacity, false);

		if (s >= hb->capacity)
			break;
		u = rgi_hb_next_bit(hb->words, s, hb->capacity, true);
		fprintf(f, " [%llu,%llu)", (unsigned long long)s,
			(unsigned long long)u);
		runs++;
	}
	fprintf(f, "%s\n", runs == 32 ? " ..." : "");
	if (hb->runs)
		rgi_hb_runs_dump(hb->runs, f);
}
