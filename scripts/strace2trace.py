#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turn a program's mmap/munmap/mremap/brk calls, as strace logs them, into
a trace for `regionbench replay` (see `regionbench replay --help`).

Record, then convert and replay:

    strace -f -e trace=mmap,munmap,mremap,brk,execve -o prog.strace prog ARGS
    python3 scripts/strace2trace.py prog.strace > prog.trace
    regionbench replay prog.trace

The trace counts in pages (--page-size, default 4096): a mapping of L bytes
at address A covers pages A / P up to (A + L - 1) / P. The recorder keeps
the set of mapped pages as the program saw it, split into pieces, one trace
allocation per piece:

- mmap (with or without MAP_FIXED) and brk growth first unmap any mapped
  pages the new range covers, as the kernel does, then allocate the range
  as one new piece ("alloc N");
- munmap and brk shrinking free every piece the range touches ("free ID")
  and allocate again what remains of a piece on either side of the range,
  so a partial munmap keeps the remaining pages mapped;
- mremap frees the old range and allocates the new one (the replayed
  allocator chooses the place, so growing in place is not reproduced);
- a successful execve (if traced) frees the pieces that process mapped;
- failed calls, and lines that are not one of these calls, are skipped;
  "<unfinished ...>" / "<... resumed>" pairs (strace -f) are joined, and
  lines starting with '#' are comments.

Limits: the replayed allocator places every allocation itself, so addresses
are not reproduced, only the sequence of sizes and lifetimes; processes and
threads of one log share one page space (two processes' mappings at the
same address replace each other); protections, file offsets and mprotect
are ignored. The capacity is twice the peak of mapped pages (at least 64)
unless --capacity is given.
"""

import argparse
import bisect
import re
import sys

CALL = re.compile(
    r"^(?:\[pid\s+)?(\d+)?\]?\s*(?:\d+(?::\d+)*(?:\.\d+)?\s+)?"
    r"(mmap|munmap|mremap|brk|execve)\((.*)\)\s+=\s+(\S+)")
UNFINISHED = re.compile(r"^(?:\[pid\s+)?(\d+)?\]?\s*(.*)<unfinished \.\.\.>\s*$")
EVENT = re.compile(r"^(?:\[pid\s+)?(\d+)?\]?\s*(?:[\d:.]+\s+)?(?:\+\+\+|---) ")
RESUMED = re.compile(r"^(?:\[pid\s+)?(\d+)?\]?\s*(?:[\d:.]+\s+)?"
                     r"<\.\.\. (\w+) resumed>(.*)$")


class Recorder:
    def __init__(self, page):
        self.page = page
        self.starts = []  # sorted piece starts (pages)
        self.pieces = {}  # start -> (end, id, pid)
        self.out = []  # trace lines
        self.next_id = 0
        self.live = 0
        self.peak = 0
        self.max_size = 1
        self.brk = {}  # pid -> current break (bytes)
        self.counts = {"alloc": 0, "free": 0}

    def pages(self, addr, length):
        return addr // self.page, (addr + length + self.page - 1) // self.page

    def _add(self, start, end, pid):
        ident = self.next_id
        self.next_id += 1
        bisect.insort(self.starts, start)
        self.pieces[start] = (end, ident, pid)
        self.out.append("alloc %d" % (end - start))
        self.counts["alloc"] += 1
        self.live += end - start
        self.peak = max(self.peak, self.live)
        self.max_size = max(self.max_size, end - start)

    def _remove(self, start):
        end, ident, pid = self.pieces.pop(start)
        self.starts.remove(start)
        self.out.append("free %d" % ident)
        self.counts["free"] += 1
        self.live -= end - start
        return end, pid

    def unmap(self, a, b):
        """Unmap pages a..b-1: free what they touch, keep the rest."""
        i = bisect.bisect_right(self.starts, a) - 1
        if i < 0:
            i = 0
        hit = []
        for s in self.starts[i:]:
            if s >= b:
                break
            if self.pieces[s][0] > a:
                hit.append(s)
        for s in hit:
            end, pid = self._remove(s)
            if s < a:
                self._add(s, a, pid)
            if end > b:
                self._add(b, end, pid)

    def map(self, a, b, pid):
        if b <= a:
            return
        self.unmap(a, b)
        self._add(a, b, pid)

    def exec_reset(self, pid):
        for s in [s for s in self.starts if self.pieces[s][2] == pid]:
            self._remove(s)
        self.brk.pop(pid, None)


def number(s):
    return int(s, 0)


def convert(lines, page):
    rec = Recorder(page)
    pending = {}
    skipped = 0
    for raw in lines:
        line = raw.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if EVENT.match(line):
            continue  # exits and signals
        m = UNFINISHED.match(line)
        if m:
            pending[m.group(1)] = m.group(2)
            continue
        m = RESUMED.match(line)
        if m and m.group(1) in pending:
            line = (m.group(1) or "") + " " + pending.pop(m.group(1)) + \
                m.group(3)
        m = CALL.match(line)
        if not m:
            skipped += 1
            continue
        pid, call, args, ret = m.group(1) or "0", m.group(2), m.group(3), \
            m.group(4)
        if ret in ("?",) or ret.startswith("-"):
            continue
        if call == "execve":
            if ret == "0":
                rec.exec_reset(pid)
            continue
        argv = [a.strip() for a in args.split(",")]
        try:
            if call == "mmap":
                a, b = rec.pages(number(ret), number(argv[1]))
                rec.map(a, b, pid)
            elif call == "munmap":
                a, b = rec.pages(number(argv[0]), number(argv[1]))
                rec.unmap(a, b)
            elif call == "mremap":
                a, b = rec.pages(number(argv[0]), number(argv[1]))
                rec.unmap(a, b)
                a, b = rec.pages(number(ret), number(argv[2]))
                rec.map(a, b, pid)
            elif call == "brk":
                new = number(ret)
                old = rec.brk.get(pid)
                rec.brk[pid] = new
                if argv[0] == "NULL" or old is None:
                    continue
                if new > old:
                    a, b = rec.pages(old, new - old)
                    rec.map(a, b, pid)
                elif new < old:
                    # Pages wholly above the new break go.
                    a = (new + page - 1) // page
                    b = (old + page - 1) // page
                    if b > a:
                        rec.unmap(a, b)
        except (ValueError, IndexError):
            skipped += 1
    return rec, skipped


def main():
    ap = argparse.ArgumentParser(
        description="Turn strace output (mmap, munmap, mremap, brk, "
        "execve) into a regionbench replay trace in page units.")
    ap.add_argument("log", help="strace -o output; - for standard input")
    ap.add_argument("--page-size", type=int, default=4096,
                    help="bytes per trace unit (default 4096)")
    ap.add_argument("--capacity", type=int, default=0,
                    help="trace capacity in pages (default: twice the peak "
                    "of mapped pages, at least 64)")
    args = ap.parse_args()
    if args.page_size < 1:
        ap.error("--page-size must be at least 1")
    if args.log == "-":
        rec, skipped = convert(sys.stdin, args.page_size)
    else:
        with open(args.log, encoding="utf-8", errors="replace") as f:
            rec, skipped = convert(f, args.page_size)
    cap = args.capacity or max(64, 2 * rec.peak)
    if cap < rec.max_size:
        ap.error("--capacity %d is below the largest mapping, %d pages" %
                 (cap, rec.max_size))
    print("# regionbench replay trace from strace2trace.py: %d allocs, "
          "%d frees, peak %d pages mapped, page size %d" %
          (rec.counts["alloc"], rec.counts["free"], rec.peak,
           args.page_size))
    if skipped:
        print("# %d log lines were not mmap/munmap/mremap/brk/execve "
              "calls and were skipped" % skipped)
    print("capacity %d" % cap)
    sys.stdout.write("\n".join(rec.out) + ("\n" if rec.out else ""))


if __name__ == "__main__":
    main()
