// SPDX-License-Identifier: MIT
/*
 * ida_basic: hand out small integer IDs with an IDA and map each to an
 * object with an xarray, the way a driver numbers its devices.
 * Exits 0 when every step behaves as documented.
 */
#include <errno.h>
#include <stdio.h>

#include <libregion.h>

struct device {
	const char *name;
	unsigned int id;
};

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "ida_basic: failed: %s (line %d)\n", \
				#cond, __LINE__);                            \
			return 1;                                            \
		}                                                            \
	} while (0)

int main(void)
{
	static struct device devs[] = {
		{ "eth0", 0 }, { "eth1", 0 }, { "wlan0", 0 }, { "usb0", 0 }
	};
	RG_DEFINE_IDA(ids);
	RG_DEFINE_XARRAY(by_id);
	unsigned long index;
	unsigned int id;
	void *entry;
	int n = 0;

	/* The lowest free ID each time: 0, 1, 2, 3. */
	for (unsigned int i = 0; i < 4; i++) {
		CHECK(rg_ida_alloc(&ids, &devs[i].id) == 0);
		CHECK(devs[i].id == i);
		CHECK(rg_xa_store(&by_id, devs[i].id, &devs[i], NULL) == 0);
	}
	/* Free ID 1: the next allocation reuses it. */
	CHECK(rg_ida_free(&ids, 1) == 0);
	CHECK(rg_xa_erase(&by_id, 1) == &devs[1]);
	CHECK(rg_ida_alloc(&ids, &id) == 0 && id == 1);
	CHECK(rg_ida_free(&ids, 1) == 0);
	/* Freeing an ID that is not allocated changes nothing. */
	CHECK(rg_ida_free(&ids, 1) == -ENOENT);
	/* A range: the lowest free ID in [100, 199]. */
	CHECK(rg_ida_alloc_range(&ids, 100, 199, &id) == 0 && id == 100);
	CHECK(rg_ida_alloc_range(&ids, 100, 100, &id) == -ENOSPC);

	rg_xa_for_each(&by_id, index, entry)
	{
		struct device *d = entry;

		printf("device %lu: %s\n", index, d->name);
		n++;
	}
	CHECK(n == 3);
	printf("IDA holds %zu bytes, xarray %zu bytes\n", rg_ida_bytes(&ids),
	       rg_xa_bytes(&by_id));
	CHECK(rg_ida_validate(&ids, NULL) == 0);
	CHECK(rg_xa_validate(&by_id, NULL) == 0);

	rg_ida_destroy(&ids);
	rg_xa_destroy(&by_id);
	CHECK(rg_ida_is_empty(&ids));
	CHECK(rg_xa_empty(&by_id));
	return 0;
}
