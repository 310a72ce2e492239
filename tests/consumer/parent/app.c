// SPDX-License-Identifier: MIT
/* The parent project's program: a region allocation through libregion. */
#include <libregion.h>

/* The exported dependency carries the public headers only. */
#if defined(__has_include)
#if __has_include("rg_internal.h") || __has_include("rg_rand.h")
#error "libregion's private headers are on the parent's include path"
#endif
#endif

int main(void)
{
	struct rg_region *r = rg_region_create("hbitmap", 1000, 0);
	unsigned long a, b;
	int ok;

	if (!r)
		return 1;
	ok = !rg_region_alloc(r, 10, 0, &a) && !rg_region_alloc(r, 4, 16, &b) &&
	     a == 0 && b == 16 && !rg_region_free(r, a, 10);
	rg_region_destroy(r);
	return ok ? 0 : 1;
}
