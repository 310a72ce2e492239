// SPDX-License-Identifier: MIT
/*
 * disk_space: the free-space map of a storage engine. A 1 GiB volume of 4 KiB
 * blocks (262,144 units) is managed by an hbitmap instance: files get extents,
 * some files are deleted, and the map is reported (free runs, their lengths,
 * fragmentation). At "shutdown" the map is saved to a file; at "restart" it is
 * loaded into another backend (the plain bitmap, which offers the same best-fit
 * policy), checked to hold exactly the same extents, and the engine goes on
 * allocating with the same placements. Exits 0 when every check passed.
 *
 * Usage: disk_space [FILE]	(default: an anonymous temporary file)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libregion.h>

#define BLOCKS (1UL << 18) /* 1 GiB of 4 KiB blocks */
#define FILES 64

struct file {
	unsigned long start, blocks;
	int live;
};

static void report(struct rg_region *r, const char *when)
{
	struct rg_region_stats st;

	rg_region_get_stats(r, &st);
	printf("%s (%s): %lu of %lu blocks free in %lu runs, largest %lu, "
	       "fragmentation %.3f\n",
	       when, rg_region_backend_name(st.backend), st.free_units,
	       st.capacity, st.free_runs, st.largest_free_run,
	       st.fragmentation);
	for (int k = 0; k < RG_REGION_HIST_BUCKETS; k++)
		if (st.free_run_hist[k])
			printf("  free runs of %lu..%lu blocks: %lu\n",
			       1UL << k, (2UL << k) - 1, st.free_run_hist[k]);
}

/* 1 if @a and @b have the same allocated extents (walked in order). */
static int same_extents(struct rg_region *a, struct rg_region *b)
{
	unsigned long s, n, s2 = 0, n2 = 0, from = 0;
	int kind;

	rg_region_for_each_run(a, 0, RG_RUN_USED, kind, s, n)
	{
		if (rg_region_next_run(b, from, RG_RUN_USED, &s2, &n2) !=
			    RG_RUN_USED ||
		    s2 != s || n2 != n)
			return 0;
		from = s2 + n2;
	}
	return rg_region_next_run(b, from, RG_RUN_USED, &s2, &n2) < 0;
}

int main(int argc, char **argv)
{
	struct file files[FILES];
	struct rg_region *disk, *again;
	unsigned long s, n, extents = 0, seed = 12345;
	int kind, err;
	FILE *f;

	disk = rg_region_create("hbitmap", BLOCKS,
				RG_REGION_POLICY(RG_REGION_BEST_FIT));
	if (!disk) {
		perror("rg_region_create");
		return 1;
	}
	/* Block 0..15: the superblock and journal, a fixed placement. */
	if (rg_region_reserve(disk, 0, 16))
		return 1;
	/* Files of 1 .. 4096 blocks, best fit to keep large runs whole. */
	for (int i = 0; i < FILES; i++) {
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		files[i].blocks = 1 + (seed >> 33) % 4096;
		files[i].live = !rg_region_alloc(disk, files[i].blocks, 0,
						 &files[i].start);
	}
	/* Delete every third file. */
	for (int i = 0; i < FILES; i += 3)
		if (files[i].live &&
		    !rg_region_free(disk, files[i].start, files[i].blocks))
			files[i].live = 0;
	report(disk, "before shutdown");
	rg_region_for_each_run(disk, 0, RG_RUN_USED, kind, s, n)
	{
		if (extents++ < 4)
			printf("  extent %lu..%lu\n", s, s + n - 1);
	}
	printf("  ... %lu allocated extents in all\n", extents);

	/* Shutdown: save the map. */
	f = argc > 1 ? fopen(argv[1], "w+b") : tmpfile();
	if (!f) {
		perror("open");
		return 1;
	}
	err = rg_region_save_file(disk, f);
	if (err) {
		fprintf(stderr, "save: %s\n", strerror(-err));
		return 1;
	}
	printf("saved %ld bytes (%lu extents x 16 + 28)\n", ftell(f), extents);

	/* Restart: load it into a plain bitmap, with the saved policy. */
	rewind(f);
	again = rg_region_load_file(f, RG_REGION_BITMAP,
				    RG_REGION_LOAD_SAVED_POLICY);
	fclose(f);
	if (!again) {
		perror("rg_region_load_file");
		return 1;
	}
	if (!same_extents(disk, again) || rg_region_validate(again, NULL)) {
		fprintf(stderr, "the loaded map differs\n");
		return 1;
	}
	/* Go on: the same call gives the same extent on both. */
	{
		unsigned long a, b;

		if (rg_region_alloc(disk, 100, 0, &a) ||
		    rg_region_alloc(again, 100, 0, &b) || a != b) {
			fprintf(stderr, "the maps diverged\n");
			return 1;
		}
		printf("after restart: a new 100-block file at %lu on both\n",
		       b);
	}
	report(again, "after restart");
	rg_region_destroy(again);
	rg_region_destroy(disk);
	return 0;
}
