#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Module boundaries, checked.

    check_layout.py SOURCE_DIR [BUILD_DIR]

1. Private headers: a header under src/<module>/ whose name contains
   "internal" belongs to that module alone; src/internal/ belongs to the
   library (any file under src/). No other file may include them.
2. With BUILD_DIR: no target outside the library (tests, regionbench,
   examples, tools) has src/internal (or src/) on its include path, per the
   build's compile_commands.json.

Prints one line per violation and exits 1 if there is any.
"""
import json
import os
import re
import shlex
import sys

SCAN = ['src', 'include', 'tests', 'bench', 'examples', 'tools']
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)

# Includes that cross a boundary today, each with its reason. An entry that
# no longer matches anything is reported, so the list only shrinks.
KNOWN = {
}


def private_headers(src_dir):
    """Map an include's path suffix to (owner, path) for every private header."""
    owners = {}
    for mod in sorted(os.listdir(os.path.join(src_dir, 'src'))):
        d = os.path.join(src_dir, 'src', mod)
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            if not name.endswith('.h'):
                continue
            if mod == 'internal' or 'internal' in name:
                owners[name] = (mod, 'src/%s/%s' % (mod, name))
    return owners


def allowed(path, owner):
    if owner == 'internal':
        return path.startswith('src/')
    return path.startswith('src/%s/' % owner)


def check_includes(src_dir):
    owners = private_headers(src_dir)
    bad, used = [], set()
    for top in SCAN:
        for root, dirs, files in os.walk(os.path.join(src_dir, top)):
            dirs[:] = [d for d in dirs if not d.startswith('.')]
            for name in sorted(files):
                if not name.endswith(('.c', '.h')):
                    continue
                full = os.path.join(root, name)
                path = os.path.relpath(full, src_dir)
                with open(full, errors='replace') as f:
                    text = f.read()
                for inc in INCLUDE.findall(text):
                    hit = owners.get(os.path.basename(inc))
                    if not hit or allowed(path, hit[0]):
                        continue
                    if (path, inc) in KNOWN:
                        used.add((path, inc))
                        continue
                    bad.append('%s: includes %s, private to %s' %
                               (path, inc, hit[1].rsplit('/', 1)[0]))
    for key in sorted(set(KNOWN) - used):
        bad.append('%s: the known exception for %s is not needed any more: '
                   'remove it from %s' % (key[0], key[1],
                                          os.path.relpath(__file__, src_dir)))
    return bad


def check_include_paths(src_dir, build_dir):
    db = os.path.join(build_dir, 'compile_commands.json')
    with open(db) as f:
        entries = json.load(f)
    src_abs = os.path.realpath(src_dir)
    private = [os.path.join(src_abs, 'src', 'internal'),
               os.path.join(src_abs, 'src')]
    bad = []
    for e in entries:
        where = e.get('directory', build_dir)
        source = os.path.realpath(os.path.join(where, e['file']))
        rel = os.path.relpath(source, src_abs)
        if rel.startswith('src/') or rel.startswith('..'):
            continue  # the library itself, or generated files
        args = e['arguments'] if 'arguments' in e else shlex.split(
            e['command'])
        dirs = []
        for i, a in enumerate(args):
            if a == '-I' and i + 1 < len(args):
                dirs.append(args[i + 1])
            elif a.startswith('-I') and len(a) > 2:
                dirs.append(a[2:])
        for d in dirs:
            if os.path.realpath(os.path.join(where, d)) in private:
                bad.append('%s: %s is on its include path' %
                           (rel, os.path.relpath(os.path.join(where, d),
                                                 build_dir)))
    return bad


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    bad = check_includes(sys.argv[1])
    if len(sys.argv) == 3:
        bad += check_include_paths(sys.argv[1], sys.argv[2])
    for line in bad:
        print(line)
    print('# layout: %d violation(s)' % len(bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
