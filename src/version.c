// SPDX-License-Identifier: MIT
/*
 * The library's version: rg_version() and rg_version_string() return the
 * numbers of <region/version.h> as this library was compiled with, so a
 * program can compare them with the header it was compiled with.
 */
#include "region/version.h"

unsigned int rg_version(void)
{
	return RG_VERSION_NUMBER;
}

const char *rg_version_string(void)
{
	return RG_VERSION_STRING;
}
