#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The default benchmarks of `make bench`, sized to finish in about three
# minutes on a 2-core machine. Each prints its seed and parameters; run a
# subcommand by hand (build/release/bench/regionbench --help) for the full
# versions quoted in the README.
set -eu
dir=${1:-build/release}
rb="$dir/bench/regionbench"
start=$(date +%s)

# Seed 003: slab bulk vs single calls vs malloc, jemalloc, mimalloc.
"$rb" slab --objects 2000000
# IDs in a row (issue 3) and the zero-area search (2026 speed-up).
"$rb" --runs 3 ida
"$rb" --runs 3 bitmap
# Seed 000: region fill at 10^6 .. 10, then a short churn run.
"$rb" regions
"$rb" --runs 3 regions --workload churn --iterations 200000 --budget 5
# Maple Tree against GLib's GTree at 10^6 ranges.
"$rb" --runs 3 maple
# Seed 002: preallocation histograms with and without vacancy tracking.
"$rb" --runs 1 maple-prealloc --ranges 10000,100000
echo "make bench: done in $(($(date +%s) - start)) s"
