/* SPDX-License-Identifier: MIT */
/*
 * libregion version: macros for the headers a program is compiled with,
 * calls for the library it runs with (they differ when a program built
 * against one release runs with another shared library).
 *
 * Usage:
 *	#if RG_VERSION_NUMBER >= RG_VERSION_ENCODE(0, 2, 0)
 *	...					// code for 0.2.0 and later
 *	#endif
 *	printf("libregion %s\n", rg_version_string());	// e.g. "0.1.0"
 *	if (rg_version() < RG_VERSION_NUMBER)	// older library than headers
 *		...
 *
 * The build fails if these numbers differ from the project's version
 * (meson.build), so they cannot drift. Releases follow NEWS; the symbol
 * version of each call (LIBREGION_0.1, LIBREGION_0.2, ...) is the release
 * that added it.
 */
#ifndef REGION_VERSION_H
#define REGION_VERSION_H

#include "region/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RG_VERSION_MAJOR 0
#define RG_VERSION_MINOR 1
#define RG_VERSION_PATCH 0
#define RG_VERSION_STRING "0.1.0"

/**
 * RG_VERSION_ENCODE() - one number per version, ordered as the versions are.
 * @major: the major version.
 * @minor: the minor version, below 256.
 * @patch: the patch level, below 256.
 *
 * Compare RG_VERSION_NUMBER (the headers) or rg_version_number() (the
 * library) with it: "#if RG_VERSION_NUMBER >= RG_VERSION_ENCODE(0, 2, 0)".
 *
 * Context: any; a constant expression.
 */
#define RG_VERSION_ENCODE(major, minor, patch) \
	(((major) << 16) | ((minor) << 8) | (patch))
#define RG_VERSION_NUMBER \
	RG_VERSION_ENCODE(RG_VERSION_MAJOR, RG_VERSION_MINOR, RG_VERSION_PATCH)

/**
 * rg_version() - version of the libregion library in use.
 *
 * The library's own RG_VERSION_NUMBER, for comparison with the one of the
 * headers a program was compiled with.
 *
 * Context: any thread; never fails.
 * Return: RG_VERSION_ENCODE(major, minor, patch) of the running library.
 */
RG_API unsigned int rg_version(void);

/**
 * rg_version_string() - version of the libregion library in use, as text.
 *
 * Context: any thread; never fails.
 * Return: the running library's RG_VERSION_STRING, "MAJOR.MINOR.PATCH", a
 * static string.
 */
RG_API const char *rg_version_string(void);

#ifdef __cplusplus
}
#endif
#endif /* REGION_VERSION_H */
