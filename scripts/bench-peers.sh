#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make bench-peers PEERS=DIR [TRACE=FILE] [RUNS=N]: the region workloads on
# OffsetAllocator and TLSF next to libregion's backends, in one process.
#
#   scripts/bench-peers.sh BUILD_DIR PEERS_DIR [TRACE] [RUNS]
#
# PEERS_DIR holds clones of the peers' own repositories, made by you:
#   git clone https://github.com/sebbbi/OffsetAllocator PEERS_DIR/OffsetAllocator
#   git clone https://github.com/mattconte/tlsf PEERS_DIR/tlsf
# Nothing of theirs is copied into this tree: BUILD_DIR (default
# build/peers) is configured with -Dpeers=PEERS_DIR, which compiles each
# peer as its own library (one translation unit, no LTO) behind our
# adapters in bench/peers/, and regionbench regions and replay then list
# them as backends offsetalloc and tlsf. Without PEERS_DIR the benchmark
# is skipped with a note. TRACE (default: the recorded mmap trace of
# tests/data, converted by scripts/strace2trace.py) is replayed last.
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build/peers}
peers=${2:-}
trace=${3:-}
runs=${4:-3}
if [ -z "$peers" ]; then
	echo "make bench-peers: skipped: no PEERS=DIR. Clone"
	echo "  https://github.com/sebbbi/OffsetAllocator into DIR/OffsetAllocator and"
	echo "  https://github.com/mattconte/tlsf into DIR/tlsf,"
	echo "then run make bench-peers PEERS=DIR."
	exit 0
fi
for f in OffsetAllocator/offsetAllocator.cpp OffsetAllocator/offsetAllocator.hpp \
	tlsf/tlsf.c tlsf/tlsf.h; do
	if [ ! -f "$peers/$f" ]; then
		echo "make bench-peers: $peers/$f not found (PEERS=DIR must hold" \
			"clones named OffsetAllocator and tlsf)" >&2
		exit 2
	fi
done
peers=$(cd "$peers" && pwd)
bash scripts/deps.sh peers
if [ -f "$dir/build.ninja" ]; then
	meson configure "$dir" -Dpeers="$peers" >&2
else
	meson setup "$dir" -Dbuildtype=debugoptimized -Db_ndebug=true \
		-Dpeers="$peers" >&2
fi
ninja -C "$dir" bench/regionbench >&2
rb="$dir/bench/regionbench"
for p in OffsetAllocator tlsf; do
	echo "peer $p: $(git -C "$peers/$p" log -1 --format='%h %cs' 2>/dev/null ||
		echo 'not a git clone')"
done
if [ -z "$trace" ]; then
	trace="$dir/mmap.trace"
	python3 scripts/strace2trace.py tests/data/python-threads.strace >"$trace"
fi
# Every workload under first and best fit; bitmap (a scan of the whole
# map per allocation) only where it fills, the others wherever they run.
pol=(--policy first,best)
all=bitmap,maple,hbitmap,offsetalloc,tlsf
fast=maple,hbitmap,offsetalloc,tlsf
set -x
"$rb" --runs "$runs" regions --workload fill --capacity 1e6 "${pol[@]}" \
	--backends "$all"
"$rb" --runs "$runs" regions --workload big --capacity 1e6 "${pol[@]}" \
	--backends "$all"
"$rb" --runs "$runs" regions --workload churn --occupancy 90,95,99 \
	--iterations 200000 "${pol[@]}" --backends "$fast"
"$rb" --runs "$runs" regions --workload aligned --occupancy 90 \
	--iterations 200000 "${pol[@]}" --backends "$fast"
"$rb" --runs "$runs" regions --workload vram --iterations 200000 \
	"${pol[@]}" --backends "$fast"
"$rb" --runs "$runs" regions --workload extents --iterations 200000 \
	"${pol[@]}" --backends "$fast"
"$rb" --runs "$runs" replay "${pol[@]}" --backends "$all" "$trace"
