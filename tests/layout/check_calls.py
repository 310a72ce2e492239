#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""No two files of src/ call each other.

Reads the symbol tables of the library's object files (nm -P) in a build
directory: the objects of the shared library (libregion.so.*.p), else of
the static one (libregion.a.p). A file uses a symbol another defines when
the symbol is undefined in its object (U, or weak undefined w/v) and
defined (an upper-case type other than U) in the other's. Fails, naming
both files and the symbols each takes from the other, if two files each
use a symbol the other defines: dependencies between the files of src/
go one way.

    check_calls.py BUILDDIR
"""
import glob
import os
import subprocess
import sys


def objects(build):
    for pattern in ('libregion.so.*.p', 'libregion.a.p'):
        dirs = sorted(d for d in glob.glob(os.path.join(build, pattern))
                      if os.path.isdir(d))
        if dirs:
            objs = sorted(glob.glob(os.path.join(dirs[0], '*.o')))
            if objs:
                return objs
    return []


def source_name(obj):
    """src_region_region.c.o -> src/region/region.c (as meson names it)."""
    base = os.path.basename(obj)
    if base.endswith('.o'):
        base = base[:-2]
    parts = base.split('_', 2)
    if len(parts) == 3 and parts[0] == 'src':
        return 'src/%s/%s' % (parts[1], parts[2])
    return base


def symbols(obj):
    out = subprocess.run(['nm', '-P', obj], check=True, capture_output=True,
                         text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        name, kind = f[0], f[1]
        if kind in ('U', 'w', 'v'):
            used.add(name)
        elif kind.isupper():
            defined.add(name)
    return defined, used


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    objs = objects(argv[1])
    if not objs:
        print('check_calls: no object files of libregion under %s' % argv[1],
              file=sys.stderr)
        return 2
    owner, uses = {}, {}
    for obj in objs:
        src = source_name(obj)
        defined, used = symbols(obj)
        for s in defined:
            owner[s] = src
        uses[src] = used
    # edges[a][b]: the symbols file a uses that file b defines
    edges = {}
    for a, used in uses.items():
        for s in used:
            b = owner.get(s)
            if b and b != a:
                edges.setdefault(a, {}).setdefault(b, set()).add(s)
    bad = 0
    for a in sorted(edges):
        for b in sorted(edges[a]):
            if a < b and a in edges.get(b, {}):
                bad += 1
                print('check_calls: %s and %s call each other:' % (a, b))
                print('  %s uses %s' % (a, ', '.join(sorted(edges[a][b]))))
                print('  %s uses %s' % (b, ', '.join(sorted(edges[b][a]))))
    if bad:
        return 1
    print('check_calls: %d object files, no two call each other' % len(objs))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
