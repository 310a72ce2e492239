#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The build's front door: every target of the top-level Makefile has its
# "## target: what" line, so that `make help` lists it, and no help line
# names a target that is gone; every file of scripts/ has its line in
# scripts/README.md, and that page names no file that is gone.
# Usage: check_front_door.sh SOURCE_ROOT
set -u
mk=$1/Makefile
targets=$(sed -n 's/^\([a-z][a-z-]*\):\([^=]\|$\).*/\1/p' "$mk" | sort -u)
helped=$(sed -n 's/^## \([a-z][a-z-]*\): .*/\1/p' "$mk" | sort -u)
bad=0
for t in $(comm -23 <(echo "$targets") <(echo "$helped")); do
	echo "front_door: target '$t' has no '## $t: ...' line"
	bad=1
done
for t in $(comm -13 <(echo "$targets") <(echo "$helped")); do
	echo "front_door: '## $t:' names no target"
	bad=1
done
scripts=$(cd "$1/scripts" && ls | grep -v '^README.md$' | sort)
listed=$(sed -n 's/^| `\([^`]*\)` |.*/\1/p' "$1/scripts/README.md" | sort -u)
for s in $(comm -23 <(echo "$scripts") <(echo "$listed")); do
	echo "front_door: scripts/$s has no line in scripts/README.md"
	bad=1
done
for s in $(comm -13 <(echo "$scripts") <(echo "$listed")); do
	echo "front_door: scripts/README.md names $s, which is not there"
	bad=1
done
[ $bad = 0 ] && echo "front_door: $(echo "$targets" | wc -w) targets in" \
	"make help, $(echo "$scripts" | wc -w) scripts in scripts/README.md"
exit $bad
