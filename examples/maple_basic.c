// SPDX-License-Identifier: MIT
/*
 * maple_basic: a Maple Tree as a range map and as an allocator.
 *
 * Stores a few ranges, reads them back, iterates with the advanced API,
 * allocates windows in an allocation tree, and preallocates a store. Exits
 * non-zero if anything is not as documented.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>

#include <libregion.h>

#define CHECK(c)                                                         \
	do {                                                             \
		if (!(c)) {                                              \
			fprintf(stderr, "maple_basic: %s failed\n", #c); \
			return 1;                                        \
		}                                                        \
	} while (0)

int main(void)
{
	RG_DEFINE_MTREE(mt);
	struct rg_maple_tree at;
	unsigned long start;
	void *e;

	/* A range map: [10, 19] -> "ten", [30, 39] -> "thirty". */
	CHECK(rg_mtree_store_range(&mt, 10, 19, "ten") == 0);
	CHECK(rg_mtree_store_range(&mt, 30, 39, "thirty") == 0);
	CHECK(rg_mtree_insert(&mt, 15, "x") == -EEXIST);
	printf("load(12) = %s\n", (char *)rg_mtree_load(&mt, 12));
	CHECK(rg_mtree_load(&mt, 25) == NULL);

	/* Walk every entry with a caller-owned state. */
	{
		RG_MA_STATE(mas, &mt, 0, 0);

		rg_mtree_lock(&mt);
		rg_mas_for_each(&mas, e, ULONG_MAX) printf(
			"[%lu, %lu] %s\n", mas.index, mas.last, (char *)e);
		rg_mtree_unlock(&mt);
	}

	/* Erase removes the whole range holding the index. */
	CHECK(rg_mtree_erase(&mt, 33) != NULL);
	CHECK(rg_mtree_load(&mt, 30) == NULL);

	/* Preallocate, then store without any chance of failure. */
	{
		RG_MA_STATE(mas, &mt, 100, 199);

		rg_mtree_lock(&mt);
		CHECK(rg_mas_preallocate(&mas, "hundreds", 0) == 0);
		rg_mas_store_prealloc(&mas, "hundreds");
		rg_mtree_unlock(&mt);
	}
	CHECK(rg_mtree_validate(&mt, NULL) == 0);
	printf("tree holds %zu bytes, height %u\n", rg_mtree_bytes(&mt),
	       rg_mtree_height(&mt));
	rg_mtree_destroy(&mt);

	/* An allocation tree hands out the lowest free window. */
	rg_mtree_init(&at, RG_MT_FLAGS_ALLOC_RANGE);
	CHECK(rg_mtree_alloc_range(&at, &start, rg_mt_mk_value(1), 16, 0,
				   1023) == 0);
	printf("first 16 units at %lu\n", start);
	CHECK(rg_mtree_alloc_range(&at, &start, rg_mt_mk_value(2), 16, 0,
				   1023) == 0);
	printf("next 16 units at %lu\n", start);
	CHECK(rg_mtree_alloc_rrange(&at, &start, rg_mt_mk_value(3), 8, 0,
				    1023) == 0);
	printf("8 units from the top at %lu\n", start);
	rg_mtree_destroy(&at);
	return 0;
}
