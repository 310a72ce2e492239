#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make soak MINUTES=N: build the optimised tree, run the soak program (every
# module at once from 2 x nproc threads) for N minutes, and plot its
# resident-memory curve. Usage: soak.sh BUILD_DIR MINUTES [PNG]
# The curve goes to BUILD_DIR/soak-rss.dat and PNG (default
# BUILD_DIR/soak-rss.png). Exit status: the soak program's.
set -u
b=${1:?usage: soak.sh BUILD_DIR MINUTES [PNG]}
minutes=${2:?usage: soak.sh BUILD_DIR MINUTES [PNG]}
png=${3:-$b/soak-rss.png}
dat=$b/soak-rss.dat

ninja -C "$b" tests/soak/soak >/dev/null || exit 1
settle=60
# Short runs settle over the first third.
awk -v m="$minutes" 'BEGIN { exit !(m * 60 < 180) }' &&
	settle=$(awk -v m="$minutes" 'BEGIN { print m * 20 }')
"$b/tests/soak/soak" --minutes "$minutes" --settle "$settle" --data "$dat"
rc=$?

if command -v gnuplot >/dev/null; then
	mkdir -p "$(dirname "$png")"
	gnuplot <<GP || echo "soak.sh: gnuplot failed" >&2
set terminal png size 900,500
set output '$png'
set title 'soak: resident memory, every module from $(( 2 * $(nproc) )) threads'
set xlabel 'seconds'
set ylabel 'RSS (MiB)'
set grid
set key right bottom
set offsets 0, 0, graph 0.15, 0
set yrange [0:*]
plot '$dat' using (strcol(3) eq "load" ? \$1 : 1/0):(\$2/1024.0) with lines lw 2 title 'under load', \
     '$dat' using (strcol(3) eq "start" ? \$1 : 1/0):(\$2/1024.0) with points pt 7 ps 1.5 title 'before the structures', \
     '$dat' using (strcol(3) eq "destroyed" ? \$1 : 1/0):(\$2/1024.0) with points pt 5 ps 1.5 title 'after free, shrink, destroy'
GP
	echo "soak.sh: curve in $dat, plot in $png"
fi
exit $rc
