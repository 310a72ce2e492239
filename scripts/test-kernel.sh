#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make test-kernel [KERNEL=6.12|6.1]: the kernel's own test programs,
# compiled against libregion's kernel names (<region/linux.h>) with the shim
# in tests/kernel/shim, never against the kernel's implementation.
#
# The programs come from Debian's linux-source-$KERNEL package (installed on
# demand by scripts/deps.sh) and are extracted at run time into
# build/kernel-tests/$KERNEL; nothing of the kernel is in this repository.
# Sub-tests that exercise something libregion deliberately does not have are
# disabled by the rules in tests/kernel/disabled.txt, each with its reason.
# Prints, per program, "N checks, M failed" from the program's own counters,
# and fails if any check failed or a program did not finish.
set -euo pipefail
cd "$(dirname "$0")/.."
ver=${KERNEL:-6.12}
lib=build/release
tarball=/usr/src/linux-source-$ver.tar.xz
out=build/kernel-tests/$ver
progs=(test_ida.c test_maple_tree.c test_bitmap.c test_xarray.c)

[ -f "$tarball" ] || bash scripts/deps.sh "kernel-source-$ver"
[ -f "$lib/libregion.a" ] || { echo "test-kernel: run make build first" >&2; exit 2; }
mkdir -p "$out"
tar -xJf "$tarball" -C "$out" --strip-components=2 --wildcards \
	"${progs[@]/#/*/lib/}"

# Disable rules (tests/kernel/disabled.txt, tab-separated): PROGRAM (or
# PROGRAM@VERSION for one kernel version), WHAT, REASON. WHAT is a function
# name (its calls are skipped) or the exact text of one statement (every
# copy of it becomes a no-op), or "FUNCTION: TEXT" for the copies inside
# one function. A rule that
# matches nothing is an error, so the list cannot go stale silently.
disable() { # program file
	python3 - "$1" "$2" tests/kernel/disabled.txt "$ver" <<'PY'
import re, sys
prog, path, rules, ver = sys.argv[1:5]
src = open(path).read()
for n, line in enumerate(open(rules), 1):
    if not line.strip() or line.startswith('#'):
        continue
    p, what, reason = line.rstrip('\n').split('\t')
    p, _, only = p.partition('@')
    if p != prog or (only and only != ver):
        continue
    scope = None
    m = re.fullmatch(r'([A-Za-z_]\w*): (.*)', what)
    if m:
        scope, what = m.groups()
    if not re.fullmatch(r'[A-Za-z_]\w*', what):
        lo, hi = 0, len(src)
        if scope:
            d = re.search(r'^\S.*\b' + scope + r'\(.*\)\n\{', src, re.M)
            lo = d.start() if d else 0
            hi = src.index('\n}\n', lo) if d else 0
        body = src[lo:hi]
        hits = body.count(what)
        src = src[:lo] + body.replace(what, '(void)0; /* disabled */') + src[hi:]
        kind = 'statement'
    else:
        src, hits = re.subn(r'^(\s+)' + re.escape(what) + r'\(',
                            r'\1if (0) ' + what + '(', src, flags=re.M)
        kind = 'call of'
    if not hits:
        sys.exit(f'{rules}:{n}: rule matches nothing in {prog}')
    print(f'  {prog}: {hits} x {kind} {what} disabled: {reason}')
open(path, 'w').write(src)
PY
}

fail=0
for p in "${progs[@]%.c}"; do
	src=$out/$p.c
	disable "$p" "$src" || { fail=1; continue; }
	# test_bitmap's BUILD_BUG_ON()s need bitmap calls on address-taken
	# locals to fold to constants; gcc keeps such locals in memory when
	# ASan's use-after-scope checks and UBSan are both on, so that one
	# check is off for this program (-O1 folds them otherwise).
	extra=()
	[ "$p" = test_bitmap ] && extra=(-fno-sanitize-address-use-after-scope)
	if ! ${CC:-cc} -std=gnu11 -O1 -g -w -fsanitize=address,undefined \
		-fno-sanitize-recover=undefined "${extra[@]}" \
		-include tests/kernel/shim/kshim.h -Itests/kernel/shim \
		-Itests/kernel/shim/lib \
		-Iinclude -o "$out/$p" "$src" "$lib/libregion.a" \
		-lurcu -lpthread -lm 2>"$out/$p.build.log"; then
		echo "test-kernel: $p ($ver): does not build:"
		head -n 40 "$out/$p.build.log"
		fail=1
		continue
	fi
	log=$out/$p.log
	rc=0
	"$out/$p" >"$log" 2>&1 || rc=$?
	line=$(grep -Eo '[0-9]+ of [0-9]+ tests passed' "$log" | tail -n 1 || true)
	if [ $rc -ne 0 ] || [ -z "$line" ]; then
		echo "test-kernel: $p ($ver): did not finish (exit $rc):"
		tail -n 20 "$log"
		fail=1
		continue
	fi
	read -r passed _ total _ <<<"$line"
	echo "test-kernel: $p ($ver): $total checks, $((total - passed)) failed"
	[ "$passed" -eq "$total" ] || fail=1
done

# tools/testing/radix-tree/idr-test.c: the IDR and IDA checks of the
# kernel's radix-tree suite (it includes lib/test_ida.c, so both keep their
# places in the tree). Its #include "test.h" finds the harness pieces of
# tests/kernel/shim/radix-tree, which count every assert() and BUG_ON().
tree=$out/tree
mkdir -p "$tree"
tar -xJf "$tarball" -C "$tree" --strip-components=1 --wildcards \
	'*/tools/testing/radix-tree/idr-test.c' '*/lib/test_ida.c'
p=idr-test
src=$tree/tools/testing/radix-tree/$p.c
if ! disable "$p" "$src"; then
	fail=1
elif ! ${CC:-cc} -std=gnu11 -O1 -g -w -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined \
	-include tests/kernel/shim/kshim.h -Itests/kernel/shim/radix-tree \
	-Itests/kernel/shim -Itests/kernel/shim/lib -Iinclude \
	-o "$out/$p" "$src" "$lib/libregion.a" -lurcu -lpthread -lm \
	2>"$out/$p.build.log"; then
	echo "test-kernel: $p ($ver): does not build:"
	head -n 40 "$out/$p.build.log"
	fail=1
else
	rc=0
	"$out/$p" >"$out/$p.log" 2>&1 || rc=$?
	line=$(grep -Eo "^$p: [0-9]+ of [0-9]+ tests passed" "$out/$p.log" || true)
	if [ $rc -ne 0 ] || [ -z "$line" ]; then
		echo "test-kernel: $p ($ver): did not finish (exit $rc):"
		tail -n 20 "$out/$p.log"
		fail=1
	else
		read -r _ passed _ total _ <<<"$line"
		echo "test-kernel: $p ($ver): $total checks, $((total - passed)) failed"
		[ "$passed" -eq "$total" ] || fail=1
	fi
fi
exit $fail
