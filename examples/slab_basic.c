// SPDX-License-Identifier: MIT
/*
 * A slab cache in a few lines: single, bulk and prefilled-sheaf allocation,
 * statistics, and the leak report of destroy. Built and run by the tests,
 * and by the install test through pkg-config.
 */
#include <stdio.h>
#include <libregion.h>

struct request {
	unsigned long id;
	char payload[248];
};

int main(void)
{
	struct rg_slab_cache *cache;
	struct rg_slab_sheaf *sheaf;
	struct rg_slab_stats st;
	struct request *r;
	void *batch[32];

	cache = rg_slab_create("request", sizeof(struct request), 0, 0, NULL);
	if (!cache)
		return 1;

	r = rg_slab_alloc(cache); /* NULL + errno on failure */
	if (!r)
		return 1;
	r->id = 1;

	/* All or nothing: 32 objects, or none and 0. */
	if (rg_slab_alloc_bulk(cache, 32, batch) != 32)
		return 1;
	rg_slab_free_bulk(cache, 32, batch);

	/* Reserve 3 objects now; taking them later cannot fail. */
	sheaf = rg_slab_prefill_sheaf(cache, 3);
	if (!sheaf)
		return 1;
	for (int i = 0; i < 3; i++)
		batch[i] = rg_slab_alloc_from_sheaf(cache, sheaf);
	rg_slab_return_sheaf(cache, sheaf); /* unused objects go back */
	rg_slab_free_bulk(cache, 3, batch);

	rg_slab_get_stats(cache, &st);
	printf("in use %zu, bytes held %zu\n", st.objects_in_use,
	       st.bytes_held);

	rg_slab_free(cache, r);
	return rg_slab_destroy(cache) == 0 ? 0 : 1; /* 0 objects leaked */
}
