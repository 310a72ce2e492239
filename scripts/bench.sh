#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The default benchmarks of `make bench`, sized to finish in about three
# minutes on a 2-core machine. Each prints its seed and parameters; run a
# subcommand by hand (build/release/bench/regionbench --help) for the full
# versions quoted in the README. Charts (gnuplot, PNG and SVG) go to the
# folder in $PLOTS (default BUILD_DIR/plots), printed at the end; without
# gnuplot the benchmarks run without charts.
set -eu
dir=${1:-build/release}
rb="$dir/bench/regionbench"
plots=${PLOTS:-$dir/plots}
start=$(date +%s)
plot=()
if command -v gnuplot >/dev/null 2>&1; then
	mkdir -p "$plots"
	plot=(--plot "$plots")
else
	echo "make bench: gnuplot not found, no charts"
fi

# Slab bulk vs single calls vs malloc, jemalloc, mimalloc (the 2015 SLUB
# bulk-free patches).
"$rb" "${plot[@]}" slab --objects 2000000
# IDs in a row, and the zero-area search (the kernel's 2026 speed-up).
"$rb" --runs 3 ida
"$rb" "${plot[@]}" --runs 3 bitmap
# Region fill at 10^6 .. 10 (the kernel's 2026 region-allocation
# benchmark), then a short churn run.
"$rb" "${plot[@]}" regions
"$rb" "${plot[@]}" --runs 3 regions --workload churn --iterations 200000 --budget 5
# Maple Tree against GLib's GTree at 10^6 ranges.
"$rb" "${plot[@]}" --runs 3 maple
# Preallocation histograms with and without vacancy tracking (the 2024
# Maple Tree vacancy patches).
"$rb" "${plot[@]}" --runs 1 maple-prealloc --ranges 10000,100000
# Walking, free-run histogram, save and load after a churn at 10^6 units.
"$rb" --runs 3 region-walk
# Every structure with 1, 2 and 4 threads on one shared instance.
"$rb" "${plot[@]}" --runs 3 threads --threads 1,2,4 --seconds 0.3
echo "make bench: done in $(($(date +%s) - start)) s"
if [ ${#plot[@]} -gt 0 ]; then
	echo "make bench: charts in $plots"
fi
