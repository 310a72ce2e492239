#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# ABI hygiene: the shared library exports only rg_* functions and data
# (hidden visibility plus the version script), every one under the
# LIBREGION_0 version, and nothing named rgi_* leaks out.
# Usage: symbols.sh LIBREGION_SO
set -euo pipefail
so=$1
syms=$(nm -D --defined-only "$so" | awk '{print $3}')
bad=$(printf '%s\n' "$syms" | grep -v -E '^(rg_[A-Za-z0-9_]+@@LIBREGION_0|LIBREGION_0)$' || true)
if [ -n "$bad" ]; then
	echo "unexpected exported symbols:"
	printf '  %s\n' $bad
	exit 1
fi
n=$(printf '%s\n' "$syms" | grep -c '^rg_')
[ "$n" -gt 0 ] || { echo "no rg_ symbols exported"; exit 1; }
echo "$n rg_ symbols exported, nothing else"
