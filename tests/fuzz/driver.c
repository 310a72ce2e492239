// SPDX-License-Identifier: MIT
/*
 * Standalone corpus driver: runs every file of the folders (or the files)
 * named on the command line through LLVMFuzzerTestOneInput(), in name
 * order, so a target's corpus and its regression inputs replay as an
 * ordinary test, without libFuzzer. A mismatch inside the target aborts;
 * the driver prints each file's name before running it, so the last name
 * printed is the failing input. Exit status 0 means every input passed; 1
 * means an argument could not be read.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!fp) {
		perror(path);
		return 1;
	}
	for (;;) {
		if (len == cap) {
			uint8_t *nb;

			cap = cap ? 2 * cap : 4096;
			nb = realloc(buf, cap);
			if (!nb) {
				fclose(fp);
				free(buf);
				fprintf(stderr, "%s: out of memory\n", path);
				return 1;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, fp);
		if (!got)
			break;
		len += got;
	}
	fclose(fp);
	printf("run %s (%zu bytes)\n", path, len);
	fflush(stdout);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, unsigned long *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int err = 0;

	if (!d) {
		perror(dir);
		return 1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn;

			cap = cap ? 2 * cap : 64;
			nn = realloc(names, cap * sizeof(*names));
			if (!nn) {
				err = 1;
				break;
			}
			names = nn;
		}
		names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
		if (!names[n]) {
			err = 1;
			break;
		}
		sprintf(names[n], "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		if (!err)
			err = run_file(names[i]);
		free(names[i]);
		(*count)++;
	}
	free(names);
	return err;
}

int main(int argc, char **argv)
{
	unsigned long count = 0;
	struct stat st;
	int i, err = 0;

	for (i = 1; i < argc && !err; i++) {
		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			err = run_dir(argv[i], &count);
		} else {
			err = run_file(argv[i]);
			count++;
		}
	}
	if (!err)
		printf("%lu inputs passed\n", count);
	return err;
}
