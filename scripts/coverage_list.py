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
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from coverage_doc import ranges, uncovered  # noqa: E402


def main():
    with open(sys.argv[1]) as f:
        data = json.load(f)
    rows = uncovered(data)
    per = {}
    for name, owner, n, _ in rows:
        per.setdefault((name, owner), []).append(n)
    for (name, owner), nums in sorted(per.items(),
                                      key=lambda x: (x[0][0], x[1][0])):
        print("| %s | `%s()` | %s |" % (name, owner, ranges(sorted(nums))))
    print("\n%d uncovered lines" % len(rows))


if __name__ == "__main__":
    main()
