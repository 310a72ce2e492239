// SPDX-License-Identifier: MIT
/*
 * Version: the macros of <region/version.h>, the library's rg_version() and
 * rg_version_string(), and the project version the build passes in
 * (RG_PROJECT_VERSION) all say the same thing, and the encoding orders
 * versions as they are ordered.
 */
#include <stdio.h>
#include <string.h>

#include "rg_test.h"
#include "region/version.h"

static void test_macros_match_project(void **state)
{
	char s[32];

	(void)state;
	assert_string_equal(RG_VERSION_STRING, RG_PROJECT_VERSION);
	snprintf(s, sizeof(s), "%d.%d.%d", RG_VERSION_MAJOR, RG_VERSION_MINOR,
		 RG_VERSION_PATCH);
	assert_string_equal(s, RG_VERSION_STRING);
}

static void test_runtime_matches_headers(void **state)
{
	(void)state;
	assert_int_equal(rg_version(), RG_VERSION_NUMBER);
	assert_non_null(rg_version_string());
	assert_string_equal(rg_version_string(), RG_VERSION_STRING);
	assert_int_equal(rg_version() >> 16, RG_VERSION_MAJOR);
	assert_int_equal((rg_version() >> 8) & 0xff, RG_VERSION_MINOR);
	assert_int_equal(rg_version() & 0xff, RG_VERSION_PATCH);
}

static void test_encoding_orders_versions(void **state)
{
	(void)state;
	assert_true(RG_VERSION_ENCODE(0, 1, 9) < RG_VERSION_ENCODE(0, 2, 0));
	assert_true(RG_VERSION_ENCODE(0, 255, 255) <
		    RG_VERSION_ENCODE(1, 0, 0));
	assert_true(RG_VERSION_ENCODE(1, 2, 3) == 0x010203);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_macros_match_project),
		cmocka_unit_test(test_runtime_matches_headers),
		cmocka_unit_test(test_encoding_orders_versions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
