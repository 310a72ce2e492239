#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Uncovered lines of src/, by file and function, from gcovr's JSON.

Usage: coverage_list.py COVERAGE.json > coverage-functions.md

Prints one Markdown table row per function that has uncovered lines:
| file | `function()` | lines |, the file relative to src/, the lines as
numbers and ranges (2479-2480). A line belongs to the function whose
first line is the closest at or above it. This is the form of the tables
in doc/coverage.md, so a fresh run's rows can be sorted into its groups.
"""
import json
import sys


def ranges(nums):
    out, i = [], 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else "%d-%d" % (nums[i], nums[j]))
        i = j + 1
    return ", ".join(out)


def main():
    with open(sys.argv[1]) as f:
        data = json.load(f)
    total = 0
    for fi in sorted(data["files"], key=lambda x: x["file"]):
        name = fi["file"].split("src/", 1)[-1]
        funcs = sorted((fn["lineno"], fn["name"]) for fn in fi["functions"])
        per = {}
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
            per.setdefault(owner, []).append(n)
        for owner, nums in sorted(per.items(), key=lambda x: x[1][0]):
            total += len(nums)
            print("| %s | `%s()` | %s |" % (name, owner, ranges(sorted(nums))))
    print("\n%d uncovered lines" % total)


if __name__ == "__main__":
    main()
