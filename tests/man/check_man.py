#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check that every public function and macro has a man page, built and installed.

Usage: check_man.py INCDIR PAGEDIR BUILDDIR MANDIR KDOC2MAN [regionbench]

Finds the functions on its own (every RG_API declaration and every static
inline function in INCDIR/region/*.h), and the function-like macros (every
"#define NAME(" there whose name does not end in "_", the mark of a
header-private helper), independently of the generator, and fails if one
of them has no page in PAGEDIR (the build's output), if a page lacks its
CONTEXT section, or, for a function that returns a value, its RETURN VALUE
section. The kernel names of INCDIR/region/linux/*.h (static inline
functions and function-like macros, but for helpers ending in "_" or
starting with RG_) must each have a page too. It then runs the generator's own --check (arguments
against @lines, comments naming the wrong function), installs the pages
with "meson install --tags man" into a temporary folder, checks that every
page is there under MANDIR (the configured <prefix>/share/man) with the
overview pages (OVERVIEWS, and regionbench(1) when the last argument says
the bench is installed), that no installed page says "see above" (about
text it does not hold), that "man -M MANDIR -w" finds every function,
macro and overview page, and that man(1) shows a few of them.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
# The overview pages every build installs (regionbench.1 with the bench).
OVERVIEWS = ("libregion.7", "rg_slab.3", "rg_bitmap.3", "rg_hbitmap.3",
             "rg_xarray.3", "rg_ida.3", "rg_idr.3", "rg_maple_tree.3",
             "rg_region.3", "rg_linux.3")


def public_functions(incdir):
    """(header, line, name, returns_value, is_macro) of every public
    function and function-like macro."""
    out = []
    for path in sorted(glob.glob(os.path.join(incdir, "region", "*.h"))):
        with open(path, encoding="utf-8") as f:
            src = f.read()
        for m in re.finditer(r"^(RG_API|static inline)\b([^;{]*?)(" + IDENT +
                             r")\s*\(", src, re.M):
            rtype = (m.group(2) or "").strip()
            line = src.count("\n", 0, m.start()) + 1
            out.append((os.path.basename(path), line, m.group(3),
                        rtype != "void", False))
        for m in re.finditer(r"^#\s*define\s+(" + IDENT + r")\(", src,
                             re.M):
            if m.group(1).endswith("_"):
                continue
            line = src.count("\n", 0, m.start()) + 1
            out.append((os.path.basename(path), line, m.group(1), False,
                        True))
    return out


def kernel_names(incdir):
    """(header, line, name) of every kernel name of region/linux/*.h: each
    static inline function and function-like macro, but for the headers'
    own helpers (a name ending in "_" or starting with RG_)."""
    out, seen = [], set()
    for path in sorted(glob.glob(os.path.join(incdir, "region", "linux",
                                              "*.h"))):
        with open(path, encoding="utf-8") as f:
            src = f.read()
        for m in re.finditer(r"^(?:(?:static inline|RG_LINUX_INLINE)\b"
                             r"[^;{]*?(" + IDENT + r")\s*\(|#\s*define\s+(" +
                             IDENT + r")\()", src, re.M):
            name = m.group(1) or m.group(2)
            if name.endswith("_") or name.startswith("RG_") or name in seen:
                continue
            seen.add(name)
            out.append(("linux/" + os.path.basename(path),
                        src.count("\n", 0, m.start()) + 1, name))
    return out


def main():
    incdir, pagedir, builddir, mandir, kdoc2man = sys.argv[1:6]
    errors = []
    funcs = public_functions(incdir)
    macros = [f for f in funcs if f[4]]
    if len(funcs) - len(macros) < 100 or len(macros) < 30:
        errors.append("found only %d public functions and %d macros in %s" %
                      (len(funcs) - len(macros), len(macros), incdir))
    knames = kernel_names(incdir)
    if len(knames) < 200:
        errors.append("found only %d kernel names in %s/region/linux" %
                      (len(knames), incdir))
    for hdr, line, name in knames:
        if not os.path.isfile(os.path.join(pagedir, name + ".3")):
            errors.append("include/region/%s:%d: %s: no man page %s.3" %
                          (hdr, line, name, name))
    for hdr, line, name, returns, _ in funcs:
        page = os.path.join(pagedir, name + ".3")
        where = "include/region/%s:%d: %s()" % (hdr, line, name)
        if not os.path.isfile(page):
            errors.append("%s: no man page %s.3 (no kernel-doc comment?)" %
                          (where, name))
            continue
        with open(page, encoding="utf-8") as f:
            text = f.read()
        if "\n.SH CONTEXT\n" not in text:
            errors.append("%s: page has no CONTEXT (no Context: line)" %
                          where)
        if returns and "\n.SH RETURN VALUE\n" not in text:
            errors.append("%s: page has no RETURN VALUE (no Return: line)" %
                          where)

    r = subprocess.run([sys.executable, kdoc2man, "--check", incdir],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if r.returncode != 0:
        errors += [x for x in r.stdout.splitlines()
                   if not x.startswith("kdoc2man:")]

    tmp = tempfile.mkdtemp(prefix="man-test.", dir=builddir)
    try:
        os.chmod(tmp, 0o755)
        r = subprocess.run(["meson", "install", "-C", builddir,
                            "--no-rebuild", "--quiet", "--tags", "man",
                            "--destdir", tmp],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        if r.returncode != 0:
            errors.append("meson install --tags man failed:\n" + r.stdout)
        root = tmp + mandir if os.path.isabs(mandir) else \
            os.path.join(tmp, mandir)
        for name in [f[2] for f in funcs] + [k[2] for k in knames]:
            if not os.path.isfile(os.path.join(root, "man3", name + ".3")):
                errors.append("%s.3 not installed under %s/man3" %
                              (name, mandir))
        # The overview pages, with their list of calls filled in.
        overviews = list(OVERVIEWS)
        if sys.argv[6:7] == ["regionbench"]:
            overviews.append("regionbench.1")
        for base in overviews:
            path = os.path.join(root, "man" + base[-1], base)
            if not os.path.isfile(path):
                errors.append("%s not installed under %s" % (base, mandir))
                continue
            with open(path, encoding="utf-8") as f:
                if "@CALLS@" in f.read():
                    errors.append("%s: list of calls not filled in" % base)
        # No page points at text it does not hold.
        for path in sorted(glob.glob(os.path.join(root, "man*", "*"))):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            m = re.search(r"(?i)see\s+above", text)
            if m:
                errors.append("%s: says \"%s\": name the section or page"
                              % (os.path.basename(path), m.group(0)))
        man = shutil.which("man")
        if not man:
            errors.append("man(1) not found (scripts/deps.sh installs "
                          "man-db)")
        else:
            env = dict(os.environ, MANWIDTH="80", MANPAGER="cat",
                       PAGER="cat", MAN_DISABLE_SECCOMP="1", LC_ALL="C")
            # man finds every function's and macro's page, and the
            # overview pages.
            names = [f[2] for f in funcs] + [k[2] for k in knames]
            names += [o.rsplit(".", 1)[0] for o in overviews]
            r = subprocess.run([man, "-M", root, "-w"] + names, env=env,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT,
                               universal_newlines=True)
            if r.returncode != 0:
                errors += ["man -M %s -w: %s" % (mandir, x) for x in
                           r.stdout.splitlines() if not x.startswith("/")]
            shown = [(["rg_region_alloc"], "rg_region_alloc - allocate"),
                     (["rg_region_for_each_run"],
                      "rg_region_for_each_run - visit"),
                     (["rg_idr"], "RG_IDR(3)"),
                     (["idr_alloc"], "idr_alloc - the kernel's name for "
                      "rg_idr_alloc()"),
                     (["7", "libregion"], "LIBREGION(7)")]
            if "regionbench.1" in overviews:
                shown.append((["regionbench"], "REGIONBENCH(1)"))
            for args, want in shown:
                r = subprocess.run([man, "-M", root] + args, env=env,
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT,
                                   universal_newlines=True)
                if r.returncode != 0 or want not in r.stdout:
                    errors.append("man -M %s %s: expected \"%s\", got "
                                  "(exit %d):\n%s" %
                                  (mandir, " ".join(args), want,
                                   r.returncode, r.stdout[:2000]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    for e in errors:
        print("check_man: " + e)
    print("check_man: %d public functions, %d macros, %d kernel names, "
          "%d problems" % (len(funcs) - len(macros), len(macros),
                           len(knames), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
