#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The default benchmarks of `make bench`: each one that is built runs with
# the defaults of its issue, sized to finish within a few minutes in all.
set -u
dir=${1:-build/release}
rb="$dir/bench/regionbench"
have() { "$rb" --list | grep -qx "$1"; }
have slab && "$rb" slab --objects 2000000
have ida && "$rb" ida
have regions && "$rb" regions && "$rb" regions --workload churn --iterations 200000
have maple && "$rb" maple --entries 1000000 --runs 3
have maple-prealloc && "$rb" maple-prealloc --runs 1
exit 0
