#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Consumer test: install libregion into a temporary prefix, then build and
# run programs against it the four ways a user does, with no source-tree
# include path. The programs: every example, and programs/ (rcu_reader.c
# calls liburcu itself, so its link line must carry liburcu).
#   cmake       find_package(libregion CONFIG), shared and static
#               (libregion::libregion, libregion::libregion_static)
#   pkg-config  "pkg-config --cflags --libs libregion"
#   static      fully static (-static), "pkg-config --static"
#   subproject  a Meson parent project with libregion in subprojects/ and
#               the README's wrap file: its meson test runs only its own
#               test, of libregion only the library is built, no program
#               is installed, and no private header is on its include path
# Prints one line per way; exits non-zero on the first failure.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/consumer
tmp=$(mktemp -d /tmp/libregion-consumer.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

fail() {
	echo "consumer test: $*" >&2
	exit 1
}

# run LOG CMD...: run quietly, show the log on failure.
run() {
	local log=$1
	shift
	"$@" >"$log" 2>&1 || { tail -n 40 "$log"; fail "failed: $*"; }
}

run "$tmp/setup.log" meson setup "$tmp/build" "$top" --prefix="$prefix" \
	-Dbuildtype=debugoptimized -Dwerror=true -Dtests=disabled \
	-Dbench=disabled -Dexamples=disabled
run "$tmp/build.log" ninja -C "$tmp/build"
run "$tmp/install.log" meson install -C "$tmp/build"

for ex in "$top"/examples/*.c; do
	cmp -s "$ex" "$prefix/share/doc/libregion/examples/$(basename "$ex")" ||
		fail "$(basename "$ex") not installed in share/doc/libregion/examples"
done
pc=$(find "$prefix" -name libregion.pc | head -n 1)
[ -n "$pc" ] || fail "libregion.pc not installed"
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH
libdir=$(pkg-config --variable=libdir libregion)
[ -f "$libdir/cmake/libregion/libregionConfig.cmake" ] ||
	fail "no libregionConfig.cmake in $libdir/cmake/libregion"
shopt -s nullglob
programs=("$top"/examples/*.c "$here"/programs/*.c)
shopt -u nullglob

# The programs exit 0 when every check in them passed.
run_all() { # suffix
	local p name
	for p in "${programs[@]}"; do
		name=$(basename "$p" .c)
		"$tmp/bin/$name$1" >"$tmp/run.log" 2>&1 ||
			{ cat "$tmp/run.log"; fail "$name$1 failed"; }
	done
}

# (a) CMake find_package(libregion CONFIG).
if command -v cmake >/dev/null; then
	run "$tmp/cmake.log" cmake -S "$here/cmake" -B "$tmp/cmake" \
		-DCMAKE_PREFIX_PATH="$prefix" -DEXAMPLES_DIR="$top/examples" \
		-DCONSUMER_DIR="$here/programs" \
		-DCMAKE_RUNTIME_OUTPUT_DIRECTORY="$tmp/bin"
	run "$tmp/cmake-build.log" cmake --build "$tmp/cmake"
	run_all ""
	run_all _static
	echo "consumer test: cmake: ${#programs[@]} programs, shared and static"
else
	fail "cmake not found (scripts/deps.sh test installs it)"
fi

# (b) pkg-config, shared.
rm -rf "${tmp:?}/bin" && mkdir -p "$tmp/bin"
for p in "${programs[@]}"; do
	# shellcheck disable=SC2046
	cc -std=c11 -Wall -Wextra -Werror -o "$tmp/bin/$(basename "$p" .c)" \
		"$p" $(pkg-config --cflags --libs libregion)
done
LD_LIBRARY_PATH=$libdir run_all ""
echo "consumer test: pkg-config: ${#programs[@]} programs, shared"

# (c) pkg-config --static: a fully static program, so the .pc file's
# private libraries must be complete.
for p in "${programs[@]}"; do
	# shellcheck disable=SC2046
	cc -std=c11 -static -o "$tmp/bin/$(basename "$p" .c)_static" "$p" \
		$(pkg-config --cflags --libs --static libregion)
done
run_all _static
file "$tmp/bin/$(basename "${programs[0]}" .c)_static" |
	grep -q 'statically linked' ||
	fail "pkg-config --static did not give a static program"
echo "consumer test: pkg-config --static: ${#programs[@]} programs, static"

# (d) A Meson parent project with libregion as a subproject.
# The wrap file is the README's (its ```ini block), with the source tree
# already in place, so nothing is downloaded.
cp -r "$here/parent" "$tmp/parent"
mkdir -p "$tmp/parent/subprojects"
awk '/^```ini$/ { f = 1; next } /^```$/ { f = 0 } f' "$top/README.md" \
	>"$tmp/parent/subprojects/libregion.wrap"
grep -q '^dependency_names = libregion$' "$tmp/parent/subprojects/libregion.wrap" ||
	fail "README.md has no wrap file (an ini block providing libregion)"
ln -s "$top" "$tmp/parent/subprojects/libregion"
# Not the installed copy: PKG_CONFIG_PATH would find it first.
unset PKG_CONFIG_PATH
run "$tmp/parent-setup.log" meson setup "$tmp/parent/build" "$tmp/parent" \
	--wrap-mode=nodownload --prefix="$tmp/parent-prefix"
run "$tmp/parent-build.log" ninja -C "$tmp/parent/build"
run "$tmp/parent-test.log" meson test -C "$tmp/parent/build"
tests=$(meson introspect --tests "$tmp/parent/build" |
	python3 -c 'import json, sys; print(" ".join(t["name"] for t in json.load(sys.stdin)))')
[ "$tests" = parent_app ] || fail "parent's meson test runs: $tests"
built=$(meson introspect --targets "$tmp/parent/build" |
	python3 -c 'import json, sys
print(" ".join(sorted(set(t["name"] for t in json.load(sys.stdin)
	if t["subproject"] == "libregion"))))')
[ "$built" = region ] || fail "the subproject builds more than the library: $built"
run "$tmp/parent-install.log" meson install -C "$tmp/parent/build"
[ ! -e "$tmp/parent-prefix/bin" ] ||
	fail "the subproject installs programs: $(ls "$tmp/parent-prefix/bin")"
echo "consumer test: subproject: parent's tests only ($tests), built of libregion: $built"
