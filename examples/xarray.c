// SPDX-License-Identifier: MIT
/*
 * xarray: an array indexed by unsigned long that grows as needed, here a
 * page cache of a small file: page number -> page, with marks for "dirty"
 * and "under writeback", and an allocating array that numbers open files.
 *
 * What it shows:
 *  - store / load / erase, and value entries (small integers stored in the
 *    array itself, no object needed);
 *  - marks: set and clear, and iteration over only the marked entries;
 *  - iteration over every entry, in index order, and from an index on;
 *  - an allocating array (RG_DEFINE_XARRAY_ALLOC): rg_xa_alloc() picks the
 *    lowest free index in a range;
 *  - errors: every call returns 0 or a negative errno and changes nothing
 *    on failure.
 * Exits 0 when every step behaves as documented.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>

#include <libregion.h>

#define CHECK(cond)                                                       \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "xarray: failed: %s (line %d)\n", \
				#cond, __LINE__);                         \
			return 1;                                         \
		}                                                         \
	} while (0)

#define DIRTY RG_XA_MARK_0
#define WRITEBACK RG_XA_MARK_1

struct page {
	unsigned long index;
	char data[64];
};

int main(void)
{
	static struct page pages[8];
	RG_DEFINE_XARRAY(cache); /* or rg_xa_init() on your own struct */
	RG_DEFINE_XARRAY_ALLOC(files);
	unsigned long index, fd;
	void *entry, *old;
	int n;

	/* Pages 0..5 and 1000, 1001: the array is sparse, nodes are added
	 * only where indices are used. */
	for (unsigned long i = 0; i < 8; i++) {
		pages[i].index = i < 6 ? i : 1000 + (i - 6);
		CHECK(rg_xa_store(&cache, pages[i].index, &pages[i], NULL) ==
		      0);
	}
	CHECK(rg_xa_load(&cache, 3) == &pages[3]);
	CHECK(rg_xa_load(&cache, 500) == NULL); /* never stored */

	/* Storing over an entry returns the old one through @old. */
	CHECK(rg_xa_store(&cache, 3, &pages[3], &old) == 0 && old == &pages[3]);
	/* rg_xa_insert() refuses an occupied index. */
	CHECK(rg_xa_insert(&cache, 3, &pages[4]) == -EBUSY);

	/* Marks: pages 1, 4 and 1001 are dirty; page 4 goes to writeback. */
	CHECK(rg_xa_set_mark(&cache, 1, DIRTY) == 0);
	CHECK(rg_xa_set_mark(&cache, 4, DIRTY) == 0);
	CHECK(rg_xa_set_mark(&cache, 1001, DIRTY) == 0);
	CHECK(rg_xa_set_mark(&cache, 500, DIRTY) == -ENOENT); /* no entry */
	CHECK(rg_xa_set_mark(&cache, 4, WRITEBACK) == 0);
	CHECK(rg_xa_clear_mark(&cache, 4, DIRTY) == 0);

	/* Iterate over the dirty pages only: 1 and 1001. */
	n = 0;
	rg_xa_for_each_marked(&cache, index, entry, DIRTY)
	{
		struct page *p = entry;

		printf("dirty page %lu\n", p->index);
		CHECK(index == p->index && (index == 1 || index == 1001));
		n++;
	}
	CHECK(n == 2);
	CHECK(rg_xa_get_mark(&cache, 4, WRITEBACK));

	/* Every entry, in index order; then from index 6 on with rg_xa_find. */
	n = 0;
	rg_xa_for_each(&cache, index, entry) n++;
	CHECK(n == 8);
	index = 6;
	entry = rg_xa_find(&cache, &index, ULONG_MAX, RG_XA_PRESENT);
	CHECK(entry == &pages[6] && index == 1000);

	/* Erase returns what was there; the marks go with the entry. */
	CHECK(rg_xa_erase(&cache, 1001) == &pages[7]);
	CHECK(rg_xa_erase(&cache, 1001) == NULL);

	/* A value entry: an integer stored in the slot (0 .. LONG_MAX). */
	CHECK(rg_xa_store(&cache, 2000, rg_xa_mk_value(42), NULL) == 0);
	entry = rg_xa_load(&cache, 2000);
	CHECK(rg_xa_is_value(entry) && rg_xa_to_value(entry) == 42);

	/* An allocating array hands out the lowest free index: file numbers
	 * from 3 up, as a process whose 0, 1 and 2 are taken. */
	for (int i = 0; i < 3; i++) {
		CHECK(rg_xa_alloc(&files, &fd, &pages[i], 3, 1023) == 0);
		CHECK(fd == 3 + (unsigned long)i);
	}
	CHECK(rg_xa_erase(&files, 4) == &pages[1]);
	CHECK(rg_xa_alloc(&files, &fd, &pages[5], 3, 1023) == 0 && fd == 4);
	/* A full range is -EBUSY, and nothing changes. */
	CHECK(rg_xa_alloc(&files, &fd, &pages[5], 3, 5) == -EBUSY);
	/* A plain array cannot allocate: -EINVAL. */
	CHECK(rg_xa_alloc(&cache, &fd, &pages[5], 0, 10) == -EINVAL);

	printf("page cache: %zu nodes, %zu bytes; files: %zu bytes\n",
	       rg_xa_node_count(&cache), rg_xa_bytes(&cache),
	       rg_xa_bytes(&files));
	CHECK(rg_xa_validate(&cache, NULL) == 0);
	CHECK(rg_xa_validate(&files, NULL) == 0);

	/* Destroy frees the nodes; the entries belong to the caller. */
	rg_xa_destroy(&cache);
	rg_xa_destroy(&files);
	CHECK(rg_xa_empty(&cache) && rg_xa_empty(&files));
	return 0;
}
