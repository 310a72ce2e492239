#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Install test: install libregion into a temporary prefix, then compile and
# run every program in examples/ against it through pkg-config only (no
# source-tree include paths), dynamically and statically.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/libregion-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

meson setup "$tmp/build" "$top" --prefix="$tmp/prefix" \
	-Dbuildtype=debugoptimized -Dwerror=true >"$tmp/setup.log" 2>&1 ||
	{ cat "$tmp/setup.log"; exit 1; }
ninja -C "$tmp/build" >"$tmp/build.log" 2>&1 ||
	{ tail -n 40 "$tmp/build.log"; exit 1; }
meson install -C "$tmp/build" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; exit 1; }

pc=$(find "$tmp/prefix" -name libregion.pc | head -n 1)
[ -n "$pc" ] || { echo "install test: libregion.pc not installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --variable=libdir libregion)
n=0
for ex in "$top"/examples/*.c; do
	name=$(basename "$ex" .c)
	# Examples that call liburcu themselves (RCU mode) link it too.
	pkgs=libregion
	if grep -q '<urcu/' "$ex"; then pkgs="libregion liburcu"; fi
	# shellcheck disable=SC2046,SC2086
	cc -std=c11 -Wall -Wextra -Werror -o "$tmp/$name" "$ex" \
		$(pkg-config --cflags --libs $pkgs)
	LD_LIBRARY_PATH=$libdir "$tmp/$name" >/dev/null
	# shellcheck disable=SC2046
	cc -std=c11 -o "$tmp/$name-static" "$ex" \
		$(pkg-config --cflags libregion) "$libdir/libregion.a" \
		$(pkg-config --libs --static libregion | sed 's/-lregion//')
	"$tmp/$name-static" >/dev/null
	n=$((n + 1))
done
echo "install test: $n examples built and run against $tmp/prefix via pkg-config"
