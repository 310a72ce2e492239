#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every public call of a module is named on the module's doc/api page.

usage: check_api_docs.py INCLUDE_DIR DOC_API_DIR

For each module header include/region/<header>.h with a page
doc/api/<page>.md (the table below), the public calls are the functions it
declares with RG_API, its static inline rg_* functions and its
function-like rg_* / RG_* macros (names ending in _ are private). Each must
appear on the page as a word. A header under include/region/ that is in
neither table fails too, so a new module cannot go without a page.
"""
import os
import re
import sys

PAGES = {
    "bitmap.h": "bitmap.md",
    "hbitmap.h": "hbitmap.md",
    "ida.h": "ida.md",
    "idr.h": "idr.md",
    "maple_tree.h": "maple.md",
    "region.h": "region.md",
    "sbitmap.h": "sbitmap.md",
    "slab.h": "slab.md",
    "xarray.h": "xarray.md",
}
# Headers that are not a module: shared definitions, the version, the
# umbrella header of the kernel names (include/region/linux/).
NOT_MODULES = {"common.h", "version.h", "linux.h"}

API_RE = re.compile(r"\bRG_API\b[^;{]*?\b((?:rg|RG)_\w+)\s*\(", re.S)
INLINE_RE = re.compile(
    r"^static\s+(?:inline|RG_\w+)[^;{=]*?\b(rg_\w+)\s*\(", re.M | re.S)
MACRO_RE = re.compile(r"^#\s*define\s+((?:rg|RG)_\w+)\(", re.M)


def strip_comments(src):
    return re.sub(r"/\*.*?\*/", " ", src, flags=re.S)


def public_calls(path):
    with open(path, encoding="utf-8") as f:
        src = strip_comments(f.read())
    names = set(API_RE.findall(src)) | set(INLINE_RE.findall(src))
    names |= set(MACRO_RE.findall(src))
    return sorted(n for n in names if not n.endswith("_"))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    incdir, docdir = sys.argv[1], sys.argv[2]
    hdrdir = os.path.join(incdir, "region")
    problems = 0
    total = 0
    for h in sorted(os.listdir(hdrdir)):
        if not h.endswith(".h") or h in NOT_MODULES:
            continue
        if h not in PAGES:
            print("check_api_docs: include/region/%s has no doc/api page "
                  "(add it to PAGES in %s)" % (h, os.path.basename(__file__)))
            problems += 1
            continue
        page = os.path.join(docdir, PAGES[h])
        try:
            with open(page, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            print("check_api_docs: %s: %s" % (PAGES[h], e))
            problems += 1
            continue
        words = set(re.findall(r"\b[A-Za-z_]\w*\b", text))
        calls = public_calls(os.path.join(hdrdir, h))
        total += len(calls)
        missing = [c for c in calls if c not in words]
        for c in missing:
            print("check_api_docs: doc/api/%s does not name %s "
                  "(include/region/%s)" % (PAGES[h], c, h))
        problems += len(missing)
    print("check_api_docs: %d public calls and macros, %d problems" %
          (total, problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
