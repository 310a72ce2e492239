// SPDX-License-Identifier: MIT
/*
 * A GPU VRAM sub-allocator: 16 GiB of video memory in 4 KiB pages, one
 * region instance (hbitmap backend) over the 4,194,304 pages.
 *
 *   - firmware and page tables live for the whole run: top-down, so they
 *     stay out of the way of everything else;
 *   - staging buffers must be CPU-visible: inside the first 256 MiB (the
 *     PCI BAR window);
 *   - scanout buffers (framebuffers) start on a 64 KiB boundary;
 *   - command rings must not cross a 2 MiB boundary (the DMA engine's
 *     page-table granule);
 *   - textures come and go: best fit, to keep the large holes whole.
 *
 * After a churn of textures it prints a short fragmentation report from
 * rg_region_get_stats(). Every placement is checked against its
 * constraints; the program exits non-zero if one is broken.
 */
#include <stdio.h>
#include <stdlib.h>

#include <libregion.h>

#define PAGE (4096UL)
#define VRAM_PAGES ((16UL << 30) / PAGE)
#define BAR_PAGES ((256UL << 20) / PAGE)
#define MIB(x) ((unsigned long)(x) * (1UL << 20) / PAGE) /* in pages */

static unsigned long seed = 12345;

static unsigned long rnd(unsigned long n)
{
	seed = seed * 6364136223846793005UL + 1442695040888963407UL;
	return (seed >> 33) % n;
}

static int check(int ok, const char *what)
{
	if (!ok)
		fprintf(stderr, "vram: %s broken\n", what);
	return ok ? 0 : 1;
}

/* Allocate one buffer; returns its first page or exits. */
static unsigned long vram_alloc(struct rg_region *vram,
				const struct rg_region_request *req,
				const char *what)
{
	unsigned long start;
	int err = rg_region_alloc_request(vram, req, &start);

	if (err) {
		fprintf(stderr, "vram: %s of %lu pages: error %d\n", what,
			req->n, err);
		exit(1);
	}
	return start;
}

int main(void)
{
	struct rg_region *vram = rg_region_create("hbitmap", VRAM_PAGES, 0);
	struct rg_region_request req;
	struct rg_region_stats st;
	static unsigned long tex_at[4096], tex_n[4096];
	unsigned long s, ntex = 0, bad = 0;

	if (!vram) {
		perror("rg_region_create");
		return 1;
	}

	/* Firmware (32 MiB) and page tables (64 MiB), top-down. */
	req = RG_REGION_REQUEST(MIB(32));
	req.policy = RG_REGION_TOP_DOWN;
	s = vram_alloc(vram, &req, "firmware");
	bad += check(s + req.n == VRAM_PAGES, "firmware at the top");
	req.n = MIB(64);
	s = vram_alloc(vram, &req, "page tables");
	printf("firmware and page tables: pages %lu .. %lu (top-down)\n", s,
	       VRAM_PAGES - 1);

	/* Three framebuffers of 3840 x 2160 x 4 B, 64 KiB aligned. */
	for (int i = 0; i < 3; i++) {
		req = RG_REGION_REQUEST((3840UL * 2160 * 4 + PAGE - 1) / PAGE);
		req.align = 64 * 1024 / PAGE;
		s = vram_alloc(vram, &req, "framebuffer");
		bad += check(s % req.align == 0, "framebuffer alignment");
		printf("framebuffer %d: %lu pages at page %lu (64 KiB "
		       "aligned)\n",
		       i, req.n, s);
	}

	/* Staging buffers: inside the CPU-visible first 256 MiB. */
	for (int i = 0; i < 4; i++) {
		req = RG_REGION_REQUEST(MIB(16) + rnd(512));
		req.hi = BAR_PAGES - 1;
		s = vram_alloc(vram, &req, "staging buffer");
		bad += check(s + req.n <= BAR_PAGES, "staging in the BAR");
	}

	/* Command rings: 1 MiB + 64 KiB each, crossing no 2 MiB line. */
	for (int i = 0; i < 8; i++) {
		req = RG_REGION_REQUEST(MIB(1) + 16);
		req.boundary = MIB(2);
		s = vram_alloc(vram, &req, "command ring");
		bad += check(s / req.boundary == (s + req.n - 1) / req.boundary,
			     "ring boundary");
		if (i == 0)
			printf("command rings: %lu pages each, the first at "
			       "page %lu (no 2 MiB line crossed)\n",
			       req.n, s);
	}

	/* Textures: 64 KiB .. 64 MiB, best fit, half of them freed twice. */
	for (int round = 0; round < 3; round++) {
		while (ntex < 4096) {
			req = RG_REGION_REQUEST(16 +
						rnd(rnd(8) ? 512 : MIB(64)));
			req.policy = RG_REGION_BEST_FIT;
			if (rg_region_alloc_request(vram, &req, &s))
				break;
			tex_at[ntex] = s;
			tex_n[ntex++] = req.n;
		}
		for (unsigned long i = 0; i < ntex;) {
			if (rnd(2)) {
				rg_region_free(vram, tex_at[i], tex_n[i]);
				tex_at[i] = tex_at[--ntex];
				tex_n[i] = tex_n[ntex];
			} else {
				i++;
			}
		}
	}

	rg_region_get_stats(vram, &st);
	printf("\nVRAM report (%lu textures live)\n", ntex);
	printf("  capacity        %8lu MiB\n", st.capacity * PAGE >> 20);
	printf("  free            %8lu MiB\n", st.free_units * PAGE >> 20);
	printf("  largest hole    %8lu MiB\n",
	       st.largest_free_run * PAGE >> 20);
	printf("  fragmentation   %8.1f %%  (1 - largest hole / free)\n",
	       st.free_units ? 100.0 * (1.0 - (double)st.largest_free_run /
						      (double)st.free_units) :
			       0.0);
	printf("  allocator holds %8zu KiB\n", st.bytes_held >> 10);
	bad += check(rg_region_validate(vram, NULL) == 0, "validation");
	rg_region_destroy(vram);
	return bad ? 1 : 0;
}
