#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Reconfigure a build dir when an optional benchmark peer that is looked up
# at build time (through pkg-config) has been installed since the dir was
# set up: Meson remembers a dependency it did not find, so without this a
# later `make bench` would go on printing "GLib not found at build time"
# after `make test` or deps.sh installed GLib. jemalloc and mimalloc need
# nothing here: regionbench loads them at run time. Usage: peers.sh DIR
set -eu
dir=$1
info=$dir/meson-info/intro-dependencies.json
# The pkg-config names of the optional peers that bench/meson.build asks for.
peers=(glib-2.0)
[ -f "$info" ] || exit 0
new=()
for pc in "${peers[@]}"; do
	if pkg-config --exists "$pc" && ! grep -qF "\"name\": \"$pc\"" "$info"; then
		new+=("$pc")
	fi
done
[ ${#new[@]} -gt 0 ] || exit 0
echo "make bench: ${new[*]} installed since $dir was set up: reconfiguring"
meson setup --reconfigure "$dir" >/dev/null
