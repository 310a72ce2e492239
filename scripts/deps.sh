#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Install the Debian packages a part of libregion needs, only those that are
# missing, then check the versions the build needs. Usage:
#
#   deps.sh [GROUP...]      default: test (what make test needs)
#
#   lib          the library: meson, ninja, pkg-config, a C compiler, liburcu
#   test         lib + cmocka, a C++ compiler (headers are checked as C++),
#                cmake and clang (consumer and -O0 tests), file, and man-db
#                (tests/man reads the installed man pages with man(1))
#   bench        lib + gnuplot; the benchmark peers jemalloc, mimalloc and
#                GLib are optional: skipped with a note when not installable
#   kernel-peer  the kernel source make bench-kernel builds its peers
#                from by default (linux-source-6.12)
#   peers        lib + a C++ compiler and python3: make bench-peers builds
#                OffsetAllocator (C++) from a clone and converts a trace
#   kernel-source-VERSION
#                linux-source-VERSION, whose own test programs make
#                test-kernel builds against libregion
#   fuzz         clang and its libFuzzer/sanitizer runtime
#   qa           coverage (gcovr, lcov), static analysis (cppcheck,
#                clang-tools) and the format check (clang-format)
#
# Idempotent: a second run installs nothing and says so. While another apt
# or dpkg holds the package lock it waits, up to DEPS_LOCK_WAIT seconds
# (default 300), then fails. As root it runs
# apt-get; otherwise through sudo if there is one; otherwise it prints the
# exact apt-get line to run and fails.
set -euo pipefail

lib=(meson ninja-build pkg-config gcc liburcu-dev)
required=()
optional=()
groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(test)
for g in "${groups[@]}"; do
	case "$g" in
	lib) required+=("${lib[@]}") ;;
	test)
		required+=("${lib[@]}" libcmocka-dev g++ cmake clang file man-db)
		;;
	bench)
		required+=("${lib[@]}" gnuplot-nox)
		optional+=(libjemalloc-dev libmimalloc-dev libglib2.0-dev)
		;;
	kernel-peer | --kernel-peer) required+=(linux-source-6.12 xz-utils) ;;
	peers) required+=("${lib[@]}" g++ python3) ;;
	kernel-source-*)
		required+=("linux-source-${g#kernel-source-}" xz-utils)
		;;
	fuzz) required+=(clang libclang-rt-14-dev) ;;
	qa) required+=(gcovr lcov cppcheck clang-tools clang-format) ;;
	*)
		echo "deps.sh: unknown group '$g' (lib, test, bench," \
			"kernel-peer, kernel-source-VERSION, peers, fuzz, qa)" >&2
		exit 2
		;;
	esac
done

installed() {
	case "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" in
	*"install ok installed"*) return 0 ;;
	*) return 1 ;;
	esac
}

# Missing packages of a list, each once, in order.
missing() {
	local p seen=" "
	for p in "$@"; do
		case "$seen" in *" $p "*) continue ;; esac
		seen+="$p "
		installed "$p" || printf '%s\n' "$p"
	done
}

mapfile -t need < <(missing "${required[@]}")
mapfile -t want < <(missing "${optional[@]}")

if [ "$(id -u)" -eq 0 ]; then
	as_root=()
elif command -v sudo >/dev/null; then
	as_root=(sudo)
else
	as_root=(none)
fi

# apt-get ARGS, waiting while another apt or dpkg holds the package lock
# (an unattended upgrade, a second make): up to DEPS_LOCK_WAIT seconds
# (default 300), saying so, then failing with apt-get's message.
lock_wait=${DEPS_LOCK_WAIT:-300}
apt_get() {
	local start=$SECONDS said=0 err
	err=$(mktemp)
	while ! DEBIAN_FRONTEND=noninteractive "${as_root[@]}" \
		apt-get "$@" >/dev/null 2>"$err"; do
		if ! grep -qiE 'could not get lock|unable to acquire the dpkg' \
			"$err"; then
			cat "$err" >&2
			rm -f "$err"
			return 1
		fi
		if [ $((SECONDS - start)) -ge "$lock_wait" ]; then
			cat "$err" >&2
			echo "deps.sh: the package lock was still held after" \
				"${lock_wait} s; run make again when the other" \
				"apt or dpkg has finished" >&2
			rm -f "$err"
			return 1
		fi
		[ $said -eq 1 ] || echo "deps.sh: another apt or dpkg holds" \
			"the package lock; waiting for it (up to ${lock_wait} s)"
		said=1
		sleep 5
	done
	rm -f "$err"
}

apt_install() { # packages...
	apt_get install -y --no-install-recommends "$@"
}

updated=0
apt_update() {
	[ $updated -eq 1 ] && return
	apt_get update -qq
	updated=1
}

if [ ${#need[@]} -gt 0 ] && [ "${as_root[*]}" = none ]; then
	echo "deps.sh: missing packages: ${need[*]}" >&2
	echo "deps.sh: run as root: apt-get update &&" \
		"apt-get install -y --no-install-recommends ${need[*]}" >&2
	exit 1
fi
if [ ${#need[@]} -gt 0 ]; then
	echo "deps.sh: installing ${need[*]}${as_root:+ (with sudo)}"
	apt_update
	apt_install "${need[@]}"
	echo "deps.sh: installed ${need[*]}"
fi

# Optional packages: one at a time, so one the distribution lacks skips
# only itself.
if [ ${#want[@]} -gt 0 ] && [ "${as_root[*]}" = none ]; then
	echo "deps.sh: note: optional packages missing (benchmark peers" \
		"skipped; as root: apt-get install ${want[*]})"
	want=()
fi
for p in "${want[@]+"${want[@]}"}"; do
	apt_update
	if apt-cache show "$p" >/dev/null 2>&1 && apt_install "$p" 2>/dev/null; then
		echo "deps.sh: installed $p (optional)"
	else
		echo "deps.sh: note: optional $p not installable here;" \
			"regionbench skips that peer"
	fi
done

if [ ${#need[@]} -eq 0 ] && [ ${#want[@]} -eq 0 ]; then
	echo "deps.sh: all packages of ${groups[*]} present"
fi

# Versions: the build needs these whatever installed them.
ver_ge() { # have min: true if have >= min
	[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]
}
if ! command -v meson >/dev/null; then
	echo "deps.sh: meson not found (Debian: meson)" >&2
	exit 1
fi
mv=$(meson --version)
if ! ver_ge "$mv" 0.63; then
	echo "deps.sh: meson $mv is too old: libregion needs meson >= 0.63" \
		"(e.g. pip3 install --user 'meson>=0.63')" >&2
	exit 1
fi
if ! command -v "${CC:-cc}" >/dev/null && ! command -v gcc >/dev/null &&
	! command -v clang >/dev/null; then
	echo "deps.sh: no C compiler: install gcc or clang" >&2
	exit 1
fi
if ! pkg-config --exists liburcu; then
	echo "deps.sh: pkg-config does not find liburcu (Debian: liburcu-dev)" >&2
	exit 1
fi
