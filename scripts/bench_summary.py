#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make bench's short summary: one verdict line per benchmark.

Usage: bench_summary.py RESULTS.json

RESULTS.json holds the JSON documents regionbench --json-to appended, one
per table, one after another. Each line below names the figure it comes
from; a benchmark absent from the file is left out, and one whose table
lacks what a line needs says so instead of guessing. Lines stay within
100 columns.
"""
import json
import sys

WIDTH = 100


def documents(path):
    text = open(path).read()
    dec, i, out = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        doc, i = dec.raw_decode(text, i)
        out.append(doc)


def num(v):
    """A figure with 3 significant digits, without an exponent."""
    if v is None:
        return "-"
    if abs(v) >= 100:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    return "%.2f" % v


def units(n):
    """10^k for a power of ten from 1000 on, else the number."""
    k, m = 0, n
    while m >= 10 and m % 10 == 0:
        m, k = m // 10, k + 1
    return "10^%d" % k if m == 1 and k >= 3 else str(n)


def slab(doc):
    rows = {r["bulk"]: r for r in doc["rows"]}
    r = rows.get(16) or rows[max(rows)]
    peers = ", ".join("%s %s" % (k, num(r.get(k + "_cycles")))
                      for k in ("malloc", "jemalloc", "mimalloc")
                      if r.get(k + "_cycles") is not None)
    return ("slab bulk %d: %s cycles/object vs %s single (%.2fx); %s"
            % (r["bulk"], num(r["bulk_cycles"]), num(r["fallback_cycles"]),
               r["bulk_cycles"] / max(r["fallback_cycles"], 1e-9), peers))


def ida(doc):
    rows = {r["op"]: r for r in doc["rows"]}
    a, f = rows["alloc"], rows["free"]
    return ("ida: %s IDs in a row, %s ns per alloc, %s per free, "
            "%.2f bits per ID"
            % (units(a["ids"]), num(a["ns_per_id"]), num(f["ns_per_id"]),
               a["bits_per_id"]))


def bitmap(doc):
    rows = {(r["nr"], r["search"]): r for r in doc["rows"]}
    nr = 32 if (32, "skip_last") in rows else min(n for n, _ in rows)
    a, b = rows[(nr, "skip_last")], rows[(nr, "resume_first")]
    return ("bitmap %d-bit zero-area sweep: %s ms, %.1fx faster than "
            "resuming at the first set bit"
            % (nr, num(a["sweep_ms"]),
               b["sweep_ms"] / max(a["sweep_ms"], 1e-9)))


def fill(doc):
    rows = [r for r in doc["rows"] if r.get("workload") in ("fill", "big")]
    cap = max(r["capacity"] for r in rows)
    rows = [r for r in rows if r["capacity"] == cap]
    cost = {r["backend"]: r["alloc_ns_per_region"] + r["free_ns_per_region"]
            for r in rows}
    best = min(cost, key=cost.get)
    others = "".join(", %s %s" % (b, num(c)) for b, c in cost.items()
                     if b != best)
    return ("regions fill %s units, ns alloc+free: %s %s (fastest)%s"
            % (units(cap), best, num(cost[best]), others))


def churn(doc):
    rows = [r for r in doc["rows"] if r.get("workload") in
            ("churn", "aligned")]
    occs = sorted(set(r["occupancy"] for r in rows))
    best, ns, fails = [], [], []
    for occ in occs:
        rs = [r for r in rows if r["occupancy"] == occ]
        cost = {r["backend"]: r["alloc_ns_per_region"] +
                r["free_ns_per_region"] for r in rs}
        best.append(min(cost, key=cost.get))
        ns.append(num(cost[best[-1]]))
        fails.append(str(min(r["failures"] for r in rs)))
    who = best[0] if len(set(best)) == 1 else "/".join(best)
    return ("regions churn %s units at %s %%: %s fastest, %s ns; "
            "failures %s" % (units(rows[0]["capacity"]),
                             "/".join(map(str, occs)), who, "/".join(ns),
                             "/".join(fails)))


def maple(doc):
    rows = [r for r in doc["rows"] if r["structure"] == "maple"]
    vs = [(r["op"], r["vs_gtree"]) for r in rows if "vs_gtree" in r]
    if not vs:
        return ("maple: %s ranges; GLib not found at build time, no GTree "
                "rows" % units(rows[0]["entries"]))
    return ("maple %s ranges, time vs GLib's GTree: %s"
            % (units(rows[0]["entries"]),
               ", ".join("%s %.2fx" % (op, v) for op, v in vs)))


def prealloc(doc):
    r = max(doc["rows"], key=lambda r: r["live_ranges"])
    return ("maple-prealloc: vacancy tracking requests %.1f %% fewer nodes "
            "at %s live ranges" % (r["requested_cut"],
                                   units(r["live_ranges"])))


def walk(doc):
    rows = doc["rows"]
    parts = ", ".join("%s %s" % (r["backend"], num(r["walk_ns_per_run"]))
                      for r in rows)
    hb = [r for r in rows if r["backend"] == "hbitmap"] or rows
    return ("region-walk ns per run: %s; %s save+load %s MB/s"
            % (parts, hb[0]["backend"], num(hb[0]["save_load_mb_s"])))


def pick(doc):
    p = doc["params"]
    return ("pick on %s: %s fit (decided by %s; regionbench pick --help)"
            % (p["trace"].split("/")[-1], p["pick"], p["decided_by"]))


LINES = {
    "slab": slab,
    "ida": ida,
    "bitmap": bitmap,
    "regions": None,  # fill or churn, by its workload
    "maple": maple,
    "maple-prealloc: vacancy vs height": prealloc,
    "region-walk": walk,
    "pick": pick,
}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for doc in documents(sys.argv[1]):
        name = doc["benchmark"]
        if name not in LINES or not doc["rows"]:
            continue
        fn = LINES[name]
        if name == "regions":
            fn = fill if doc["params"].get("workload") in ("fill", "big") \
                else churn
        try:
            line = fn(doc)
        except (KeyError, ValueError, ZeroDivisionError) as e:
            line = "%s: no summary (its table lacks %s)" % (name, e)
        if len(line) > WIDTH:
            line = line[:WIDTH - 3] + "..."
        print(line)


if __name__ == "__main__":
    main()
