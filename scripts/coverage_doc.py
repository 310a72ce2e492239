#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""doc/coverage.md from one make coverage run.

Usage: coverage_doc.py BUILD_DIR [--readme README.md] > coverage.md

Reads BUILD_DIR/coverage.json (gcovr's JSON), BUILD_DIR/coverage-totals.txt
(gcovr's --print-summary lines) and BUILD_DIR.test.log (meson test's log), sorts every
uncovered line of src/ into the groups of scripts/coverage_groups.txt and
fills in scripts/coverage_doc.md.in:

  @SUMMARY@     the summary's lines, functions and branches lines
  @TESTS@       "N tests (P passed, ...)" from the test log
  @UNCOVERED@   the number of uncovered lines
  @LINES:G@     "N lines" (or "1 line") in group G
  @TABLE:G@     group G's table: | file | `function()` | lines |
  @UNSORTED@    a section for lines no rule names (empty if none)

A rule names a file (relative to src/) and a function; it takes every
uncovered line of that function, or, with "= TEXT", only the lines whose
source reads TEXT (leading and trailing blanks ignored): that is how one
function's lines go to two groups. Text rules come before function rules.
A line belongs to the function whose first line is the closest at or
above it (as in coverage_list.py). Lines no rule takes are listed under
"Not yet sorted" and named on stderr; the group counts always add up to
the uncovered total, which is checked against gcovr's summary.

With --readme FILE, the figures in FILE's "### Coverage" section (the
three summary lines and "(debug build, N tests)") are rewritten in place.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GROUPS = os.path.join(HERE, "coverage_groups.txt")
TEMPLATE = os.path.join(HERE, "coverage_doc.md.in")


def ranges(nums):
    out, i = [], 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else "%d-%d" % (nums[i], nums[j]))
        i = j + 1
    return ", ".join(out)


def read_rules(path):
    """[(group, file, function, text or None)], in file order."""
    rules = []
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            head, sep, text = line.partition(" = ")
            parts = head.split()
            if len(parts) != 3:
                sys.exit("%s:%d: want GROUP FILE FUNCTION [= TEXT]" %
                         (path, n))
            rules.append((parts[0], parts[1], parts[2],
                          text.strip() if sep else None))
    return rules


def uncovered(data):
    """[(file, function, line number, source text)] of src/."""
    out = []
    for fi in sorted(data["files"], key=lambda x: x["file"]):
        name = fi["file"].split("src/", 1)[-1]
        with open(os.path.join(ROOT, "src", name)) as f:
            src = f.read().split("\n")
        funcs = sorted((fn["lineno"], fn["name"]) for fn in fi["functions"])
        for ln in fi["lines"]:
            if ln["count"] or ln.get("gcovr/noncode") or \
                    ln.get("gcovr/excluded"):
                continue
            n = ln["line_number"]
            owner = "(file scope)"
            for start, fname in funcs:
                if start > n:
                    break
                owner = fname
            out.append((name, owner, n, src[n - 1].strip()))
    return out


def table(rows):
    """Markdown table of [(file, function, n)], one row per function."""
    per = {}
    for name, func, n in rows:
        per.setdefault((name, func), []).append(n)
    lines = ["| file | function | lines |", "|---|---|---|"]
    for (name, func), nums in sorted(per.items(),
                                     key=lambda x: (x[0][0], min(x[1]))):
        lines.append("| %s | `%s()` | %s |" %
                     (name, func, ranges(sorted(nums))))
    return "\n".join(lines)


def test_counts(log):
    counts = {}
    with open(log) as f:
        for line in f:
            m = re.match(r"^(Ok|Expected Fail|Fail|Unexpected Pass|Skipped|"
                         r"Timeout):\s+(\d+)", line)
            if m:
                counts[m.group(1)] = int(m.group(2))
    total = sum(counts.values())
    words = {"Ok": "passed", "Expected Fail": "expected failures",
             "Fail": "failed", "Unexpected Pass": "unexpected passes",
             "Skipped": "skipped", "Timeout": "timed out"}
    parts = ["%d %s" % (v, words[k]) for k, v in counts.items() if v]
    if counts.get("Expected Fail") == 1:
        parts = [p.replace("expected failures", "expected failure")
                 for p in parts]
    return total, "%d tests (%s)" % (total, ", ".join(parts))


def summary(path):
    want = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"^(lines|functions|branches): (.*)$", line.strip())
            if m:
                want[m.group(1)] = line.strip()
    return [want[k] for k in ("lines", "functions", "branches")]


def rewrite_readme(path, summ, ntests):
    with open(path) as f:
        text = f.read()
    start = text.index("### Coverage")
    end = text.index("\n### ", start + 1)
    sec = text[start:end]
    for line in summ:
        key = line.split(":", 1)[0]
        sec, k = re.subn(r"(?m)^%s: .*$" % key, line, sec)
        if k != 1:
            sys.exit("%s: no single '%s:' line under ### Coverage" %
                     (path, key))
    sec, k = re.subn(r"\(debug build, \d+ tests\)",
                     "(debug build, %d tests)" % ntests, sec)
    if k != 1:
        sys.exit("%s: no '(debug build, N tests)' under ### Coverage" % path)
    with open(path, "w") as f:
        f.write(text[:start] + sec + text[end:])


def main():
    args = sys.argv[1:]
    readme = None
    if "--readme" in args:
        i = args.index("--readme")
        readme = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__.split("\n\n")[1])
    d = args[0].rstrip("/")
    with open(os.path.join(d, "coverage.json")) as f:
        data = json.load(f)
    summ = summary(os.path.join(d, "coverage-totals.txt"))
    ntests, tests = test_counts(d + ".test.log")
    rules = read_rules(GROUPS)
    lines = uncovered(data)

    groups, unsorted, used = {}, [], set()
    for name, func, n, text in lines:
        hit = None
        for i, (g, rf, rfunc, rtext) in enumerate(rules):
            if rf == name and rfunc == func and rtext is not None and \
                    rtext == text:
                hit = i
                break
        if hit is None:
            for i, (g, rf, rfunc, rtext) in enumerate(rules):
                if rf == name and rfunc == func and rtext is None:
                    hit = i
                    break
        if hit is None:
            unsorted.append((name, func, n))
            print("coverage_doc: not sorted: %s:%d in %s(): %s" %
                  (name, n, func, text), file=sys.stderr)
            continue
        used.add(hit)
        groups.setdefault(rules[hit][0], []).append((name, func, n))

    # Rules that took nothing: the lines were reached (races, group 4, come
    # and go from run to run) or moved to another function.
    for i, (g, rf, rfunc, rtext) in enumerate(rules):
        if i not in used and g != "4":
            print("coverage_doc: rule took no line: %s %s %s%s" %
                  (g, rf, rfunc, " = " + rtext if rtext else ""),
                  file=sys.stderr)
    m = re.search(r"\((\d+) out of (\d+)\)", summ[0])
    total = int(m.group(2)) - int(m.group(1))
    counted = sum(len(v) for v in groups.values()) + len(unsorted)
    if counted != total:
        sys.exit("coverage_doc: %d lines sorted, gcovr reports %d uncovered"
                 % (counted, total))

    with open(TEMPLATE) as f:
        out = f.read()
    out = out.replace("@SUMMARY@", "\n".join(summ))
    out = out.replace("@TESTS@", tests)
    out = out.replace("@UNCOVERED@", str(total))
    for g in sorted(set(re.findall(r"@(?:LINES|TABLE):(\d+)@", out)) |
                    {r[0] for r in rules}):
        rows = groups.get(g, [])
        out = out.replace("@LINES:%s@" % g, "%d line%s" %
                          (len(rows), "" if len(rows) == 1 else "s"))
        out = out.replace("@TABLE:%s@" % g, table(rows) if rows else
                          "None in this run.")
    if unsorted:
        sec = ("\n## Not yet sorted (%d line%s)\n\nLines no rule of "
               "`scripts/coverage_groups.txt` names yet: each wants a\n"
               "test, or a rule with its reason.\n\n%s\n" %
               (len(unsorted), "" if len(unsorted) == 1 else "s",
                table(unsorted)))
    else:
        sec = ""
    out = out.replace("@UNSORTED@", sec)
    left = re.findall(r"@[A-Z]+(?::[0-9]+)?@", out)
    if left:
        sys.exit("coverage_doc: unknown placeholders %s" % ", ".join(left))
    sys.stdout.write(out.rstrip("\n") + "\n")
    if readme:
        rewrite_readme(readme, summ, ntests)


if __name__ == "__main__":
    main()
