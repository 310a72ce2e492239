#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Install every Debian package that libregion's build, tests and benchmarks
# need, and only those that are missing (usage: deps.sh [--kernel-peer]). Idempotent: a second run installs
# nothing and says so. Without root it prints the exact apt-get line to run
# and fails.
set -euo pipefail

pkgs=(
	meson ninja-build pkg-config gcc g++ make
	libcmocka-dev liburcu-dev gnuplot-nox
	libjemalloc-dev libmimalloc-dev libglib2.0-dev
	man-db # tests/man: man(1) reads the installed pages
)
# --kernel-peer: also the kernel source the Maple Tree peer is built from
# (bench/peers/kernel-maple.sh); not needed by make test or make bench.
if [ "${1:-}" = --kernel-peer ]; then
	pkgs+=(linux-source-6.1 xz-utils)
fi

missing=()
for p in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing+=("$p") ;;
	esac
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "deps.sh: all ${#pkgs[@]} packages present"
	exit 0
fi

cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages: ${missing[*]}" >&2
	echo "deps.sh: run as root: apt-get update && ${cmd[*]}" >&2
	exit 1
fi

echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
"${cmd[@]}" >/dev/null
echo "deps.sh: installed ${missing[*]}"
