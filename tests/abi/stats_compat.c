// SPDX-License-Identifier: MIT
/*
 * regress_stats_abi_0_1: struct rg_region_stats grew in 0.2 (the free-run
 * figures), so a program linked against 0.1.0 calls
 * rg_region_get_stats@LIBREGION_0.1 with the smaller 0.1.0 struct; that
 * version must fill exactly those fields and write nothing past them,
 * while rg_region_get_stats@@LIBREGION_0.2 fills the whole struct. Loads
 * the built shared library (the path is the argument) with dlopen() and
 * picks each version with dlvsym(). Exit 0 when both behave.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "region/region.h"

/* struct rg_region_stats as 0.1.0 declared it. */
struct stats_v01 {
	enum rg_region_backend backend;
	unsigned long capacity;
	unsigned long free_units;
	unsigned long largest_free_run;
	size_t bytes_held;
	size_t bytes_held_peak;
};

typedef struct rg_region *(*create_fn)(const char *, unsigned long,
				       unsigned int);
typedef int (*reserve_fn)(struct rg_region *, unsigned long, unsigned long);
typedef void (*destroy_fn)(struct rg_region *);
typedef int (*stats_fn)(struct rg_region *, void *);

static int fail(const char *what)
{
	fprintf(stderr, "stats_compat: %s\n", what);
	return 1;
}

int main(int argc, char **argv)
{
	struct {
		struct stats_v01 st;
		unsigned char canary[600];
	} old;
	struct rg_region_stats now;
	unsigned char ff[sizeof(old.canary)];
	struct rg_region *r;
	void *h, *p;
	create_fn create;
	reserve_fn reserve;
	destroy_fn destroy;
	stats_fn v01, v02;

	if (argc != 2)
		return fail("usage: stats_compat LIBREGION_SO");
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return fail(dlerror());
	p = dlsym(h, "rg_region_create");
	memcpy(&create, &p, sizeof(p));
	p = dlsym(h, "rg_region_reserve");
	memcpy(&reserve, &p, sizeof(p));
	p = dlsym(h, "rg_region_destroy");
	memcpy(&destroy, &p, sizeof(p));
	p = dlvsym(h, "rg_region_get_stats", "LIBREGION_0.1");
	memcpy(&v01, &p, sizeof(p));
	p = dlvsym(h, "rg_region_get_stats", "LIBREGION_0.2");
	memcpy(&v02, &p, sizeof(p));
	if (!create || !reserve || !destroy || !v01 || !v02)
		return fail("a symbol or version is missing");
	if (v01 == v02)
		return fail("both versions are the same function");
	r = create("hbitmap", 1000, 0);
	if (!r || reserve(r, 10, 5) || reserve(r, 100, 50))
		return fail("cannot set up an instance");

	if (v01(r, NULL) != -EINVAL || v01(NULL, &old) != -EINVAL)
		return fail("the 0.1 version took a NULL argument");
	memset(&old, 0xff, sizeof(old));
	memset(ff, 0xff, sizeof(ff));
	if (v01(r, &old))
		return fail("the 0.1 version failed");
	if (old.st.capacity != 1000 || old.st.free_units != 945 ||
	    old.st.largest_free_run != 850 ||
	    old.st.backend != RG_REGION_HBITMAP)
		return fail("the 0.1 version filled wrong figures");
	if (memcmp(old.canary, ff, sizeof(ff)))
		return fail("the 0.1 version wrote past the 0.1 struct");

	memset(&now, 0xff, sizeof(now));
	if (v02(r, &now))
		return fail("the 0.2 version failed");
	if (now.free_units != 945 || now.free_runs != 3 ||
	    now.free_run_hist[3] != 1 || now.free_run_hist[6] != 1 ||
	    now.free_run_hist[9] != 1)
		return fail("the 0.2 version filled wrong figures");
	destroy(r);
	dlclose(h);
	printf("stats_compat: 0.1 fills %zu bytes, 0.2 fills %zu\n",
	       sizeof(struct stats_v01), sizeof(struct rg_region_stats));
	return 0;
}
