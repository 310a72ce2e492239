#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# ABI hygiene: the shared library exports only rg_* functions and data
# (hidden visibility plus the version script), each under a LIBREGION_X.Y
# version node, nothing named rgi_* leaks out, and every name the version
# script lists by name is exported under the node that lists it (a release's
# calls keep their version for good; as the default version, or as a compat
# version name@NODE when a newer node holds the default).
# Usage: symbols.sh LIBREGION_SO [VERSION_SCRIPT]
set -euo pipefail
so=$1
map=${2:-}
syms=$(nm -D --defined-only "$so" | awk '{print $3}')
bad=$(printf '%s\n' "$syms" |
	grep -v -E '^(rg_[A-Za-z0-9_]+@@?LIBREGION_[0-9]+\.[0-9]+|LIBREGION_[0-9]+\.[0-9]+)$' ||
	true)
if [ -n "$bad" ]; then
	echo "unexpected exported symbols:"
	printf '%s\n' "$bad" | sed 's/^/  /'
	exit 1
fi
n=$(printf '%s\n' "$syms" | grep -c '^rg_')
[ "$n" -gt 0 ] || { echo "no rg_ symbols exported"; exit 1; }

if [ -n "$map" ]; then
	# "name node" for every name listed without a wildcard, by node.
	listed=$(sed 's|/\*.*\*/||; s|/\*.*||' "$map" | awk '
		/^[A-Za-z0-9_.]+ *\{/ { node = $1; next }
		/^}/ { node = ""; next }
		node != "" && $1 ~ /^rg_[A-Za-z0-9_]+;$/ {
			sub(";", "", $1); print $1, node
		}')
	[ -n "$listed" ] || { echo "no names listed in $map"; exit 1; }
	# (No "printf | grep -q": grep's early exit would fail the pipe.)
	# A call whose struct grew keeps its old version as a compat symbol
	# (name@NODE, one @) beside the new default (name@@NEWER).
	missing=$(comm -23 <(printf '%s\n' "$listed" | sed 's/ /@@/' | sort) \
		<(printf '%s\n' "$syms" | sed -E 's/^([^@]+)@([^@])/\1@@\2/' |
			sort))
	if [ -n "$missing" ]; then
		echo "listed in $(basename "$map") but not exported so:"
		printf '%s\n' "$missing" | sed 's/^/  /'
		exit 1
	fi
	echo "$(printf '%s\n' "$listed" | wc -l) listed names under their nodes"
fi
echo "$n rg_ symbols exported, nothing else:" \
	"$(printf '%s\n' "$syms" | sed -n 's/^rg_.*@@//p' | sort | uniq -c |
		awk '{printf "%s%s %s", sep, $1, $2; sep = ", "}')"
