// SPDX-License-Identifier: MIT
/*
 * Fault injection on the bitmap's one allocating call, rg_bitmap_zalloc():
 * for n = 1, 2, ... the nth allocation attempt fails until the call succeeds
 * without the failure firing. Each failure must return NULL with errno
 * ENOMEM; the map that finally comes back must be zeroed. Leaks are caught by
 * the sanitizer build's leak checker.
 */
#include <errno.h>

#include "rg_test.h"

#include "region/bitmap.h"

static void test_zalloc_faults(void **state)
{
	static const unsigned long sizes[] = { 0, 1, 63, 64, 65, 1000, 327680 };

	(void)state;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		unsigned long n, *map;
		int err;

		RG_FAULT_LOOP(n, err,
			      RG_PTR_ERR(map = rg_bitmap_zalloc(sizes[s])),
			      (void)0);
		assert_int_equal(err, 0);
		assert_non_null(map);
		assert_int_equal(n - 1, 1); /* one allocation per call */
		assert_int_equal(rg_bitmap_weight(map, sizes[s]), 0);
		assert_int_equal(rg_bitmap_validate(map, sizes[s], NULL), 0);
		rg_bitmap_set_range(map, 0, sizes[s]);
		assert_int_equal(rg_bitmap_weight(map, sizes[s]), sizes[s]);
		rg_bitmap_free(map);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zalloc_faults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
