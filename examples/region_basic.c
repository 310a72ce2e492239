// SPDX-License-Identifier: MIT
/*
 * region_basic: hand out contiguous regions of a 1,000,000-unit space with
 * each backend this build has, and show that they agree. Allocates a few
 * regions (one aligned), reserves a fixed range, frees a region and part of
 * another, and prints the placements and the figures.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libregion.h>

int main(void)
{
	for (int b = 0; b < RG_REGION_NR_BACKENDS; b++) {
		enum rg_region_backend be = (enum rg_region_backend)b;
		struct rg_region_stats st;
		unsigned long a, c, d;
		struct rg_region *r;

		if (!rg_region_backend_available(be))
			continue;
		r = rg_region_create(rg_region_backend_name(be), 1000000, 0);
		if (!r) {
			perror("rg_region_create");
			return 1;
		}
		/* Units 100..199 are spoken for (a fixed placement). */
		if (rg_region_reserve(r, 100, 100) ||
		    rg_region_alloc(r, 64, 0, &a) || /* 0..63 */
		    rg_region_alloc(r, 64, 64, &c) || /* 256..319 */
		    rg_region_alloc(r, 30, 0, &d)) { /* 64..93 */
			fprintf(stderr, "%s: allocation failed\n",
				rg_region_backend_name(be));
			return 1;
		}
		if (a != 0 || c != 256 || d != 64) {
			fprintf(stderr, "%s: unexpected placement\n",
				rg_region_backend_name(be));
			return 1;
		}
		/* Freeing what is not allocated is refused, nothing changes. */
		if (rg_region_free(r, 200, 10) != -ENOENT)
			return 1;
		rg_region_free(r, a, 64); /* a whole region */
		rg_region_free(r, c + 32, 32); /* the upper half of one */
		rg_region_get_stats(r, &st);
		printf("%-8s regions at %lu, %lu, %lu; free %lu of %lu, "
		       "largest free run %lu, %zu bytes held\n",
		       rg_region_backend_name(be), a, c, d, st.free_units,
		       st.capacity, st.largest_free_run, st.bytes_held);
		if (rg_region_validate(r, NULL))
			return 1;
		rg_region_destroy(r);
	}
	return 0;
}
