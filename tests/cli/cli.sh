#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# regionbench's command line: every bad input gets its own message and exit
# status 2, good input in every accepted form works, --help and --version
# answer. Usage: cli.sh REGIONBENCH VERSION
set -u
rb=$1
version=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checks=0

# expect STATUS TEXT ARGS...: regionbench ARGS exits STATUS and prints TEXT
# (a fixed string) on stdout or stderr.
expect() {
	local want=$1 text=$2 got
	shift 2
	"$rb" "$@" >"$tmp/out" 2>&1 <"${stdin:-/dev/null}"
	got=$?
	checks=$((checks + 1))
	if [ "$got" != "$want" ] || ! grep -qF -- "$text" "$tmp/out"; then
		fails=$((fails + 1))
		echo "FAIL: regionbench $*: exit $got (want $want), output:"
		sed 's/^/    /' "$tmp/out" | head -20
		echo "    (wanted: $text)"
	fi
}

# Numbers are parsed strictly and range checked, naming the option.
expect 2 "regionbench: --runs: 'abc' is not an integer in 1..1000" --runs abc ida
expect 2 "regionbench: --runs: '0' is not an integer in 1..1000" --runs 0 ida
expect 2 "regionbench: --runs: '-1' is not an integer in 1..1000" --runs -1 ida
expect 2 "regionbench: --runs: '1001' is not an integer in 1..1000" --runs=1001 ida
expect 2 "regionbench: --seed: '-3' is not an integer in 0..18446744073709551615" --seed -3 ida
expect 2 "regionbench: --seed: '18446744073709551616' is not an integer" --seed 18446744073709551616 ida
expect 2 "regionbench: --ids: '5000x' is not an integer in 1..2147483647" ida --ids 5000x
expect 2 "regionbench: --ids: '' is not an integer" ida --ids=
expect 2 "regionbench: --size: '0' is not an integer in 1..1048576" slab --size 0
expect 2 "regionbench: --bulk: '3x' is not an integer in 1..1024" slab --bulk 1,3x
expect 2 "regionbench: --entries: 'abc' is not an integer in 1..100000000" maple --entries abc
expect 2 "regionbench: --threads: '1' is not an integer in 2..256" maple --threads 1
expect 2 "regionbench: --duration: 'x' is not a number in 0..3600" maple --threads 2 --duration x
expect 2 "regionbench: --ranges: '0' is not an integer in 1..10000000" maple-prealloc --ranges 10,0
expect 2 "regionbench: --bits: '10' is not an integer in 64..4294967296" bitmap --bits 10
expect 2 "regionbench: --align: '3' is not a power of two in 1..1073741824" regions --align 3
expect 2 "regionbench: --occupancy: '100' is not an integer in 1..99" regions --occupancy 100
expect 2 "regionbench: --capacity: '1e6x' is not an integer" regions --capacity 1e6x
expect 0 '"ids": "1"' ida --ids '1^99999999999999' --runs 1 --format json
expect 2 "regionbench: --ids: '10^10' is not an integer in 1..2147483647" ida --ids '10^10'
expect 0 '"ids": "1000"' ida --ids 1e3 --runs 1 --format json
expect 0 '"ids": "1000"' ida --ids '10^3' --runs 1 --format json
expect 2 "regionbench: --workload: 'nope' is not one of fill, churn, big" regions --workload nope
expect 2 "regionbench: --format: 'xml' is not one of table, csv, json" --format xml ida
expect 2 "regionbench: --backends: 'nope' is not one of bitmap, ida, maple, hbitmap" regions --backends maple,nope
expect 2 "regionbench: --backends: '' is not one of bitmap, ida, maple, hbitmap" replay --backends=maple,,ida -
expect 2 "regionbench: --policy: 'worst' is not one of first, best, top, next" regions --policy first,worst
expect 2 "regionbench: --policy: 'worst' is not one of first, best, top, next" replay --policy=worst -
expect 2 "regionbench: --occupancy: '0' is not an integer in 1..99" regions --workload aligned --occupancy 90,0


# Missing values, flags with values, unknown options and commands.
expect 2 "regionbench: --runs needs a value" ida --runs
expect 2 "regionbench: --quick takes no value" --quick=1 ida
expect 2 "regionbench: ida: unknown option '--bogus'" ida --bogus
expect 2 "regionbench: ida: unknown option '-x'" ida -x
expect 2 "regionbench: unknown option '--bogus'" --bogus ida
expect 2 "regionbench: unknown command 'bogus'" bogus
expect 2 "regionbench: no command given" --runs 1
expect 2 "regionbench: ida: unexpected argument 'extra'" ida extra

# --plot needs an existing folder (it is not created).
expect 2 "regionbench: --plot: '$tmp/none': No such file or directory" --plot "$tmp/none" ida
: >"$tmp/file"
expect 2 "regionbench: --plot: '$tmp/file' is not a folder" ida --plot="$tmp/file"

# With gnuplot, charts land in the folder, titled with seed, runs and date.
if command -v gnuplot >/dev/null 2>&1; then
	mkdir "$tmp/plots"
	printf 'capacity 64\nalloc 10\nalloc 20\nfree 0\n' >"$tmp/p.trace"
	expect 0 "wrote $tmp/plots/replay.png and $tmp/plots/replay.svg" \
		--plot "$tmp/plots" replay --runs 1 --seed 9 "$tmp/p.trace"
	checks=$((checks + 1))
	if [ ! -s "$tmp/plots/replay.png" ] ||
		! grep -qE "seed 9, 1 run, [0-9]{4}-[0-9]{2}-[0-9]{2}" "$tmp/plots/replay.svg"; then
		echo "FAIL: --plot chart"
		fails=$((fails + 1))
	fi
fi

# --help on every subcommand prints its own usage; --version the version.
expect 0 "regionbench $version" --version
expect 0 "regionbench $version" replay --version
expect 0 "usage: regionbench [common options] COMMAND" --help
for c in $("$rb" --list); do
	expect 0 "usage: regionbench [common options] $c [options]" "$c" --help
	expect 0 "usage: regionbench [common options] $c [options]" --quick "$c" -h
done
expect 0 "reserve START N" replay --help
expect 0 "a second free of an ID" replay --help
[ "$("$rb" --list | wc -l)" -ge 7 ] || { echo "FAIL: --list"; fails=$((fails + 1)); }

# Common options before or after the subcommand, --x=y and --x y; an
# explicit size wins over --quick; the summary line closes the run.
expect 0 '"ids": "3000", "runs": "1", "seed": "7"' ida --quick --ids 3000 --runs=1 --format json --seed=7
expect 0 '"ids": "3000", "runs": "2", "seed": "1"' --format=json --runs 2 ida --ids=3000
expect 0 '"ids": "20000"' --quick ida --runs 1 --format json
expect 0 "regionbench: ida: 1 table, 1 run each, seed 5," ida --quick --runs 1 --seed 5
expect 0 '"ops": "100"}, "rows": [' maple-prealloc --quick --ranges 600 --ops 100 --runs 1 --format json
expect 0 '"live_ranges": 600,' maple-prealloc --quick --ranges 600 --ops 100 --runs 1 --format json
# threads: thread counts and structures checked; 1 thread is always
# measured (the ratios are to it); a tiny run of every structure works.
expect 2 "regionbench: --threads: '0' is not an integer in 1..256" threads --threads 1,0
expect 2 "regionbench: --threads: '257' is not an integer in 1..256" threads --threads 257
expect 2 "regionbench: --structures: 'nope' is not one of slab, ida," threads --structures slab,nope
expect 2 "regionbench: --max-units: 33 is above --units (32)" threads --units 32 --max-units 33
expect 0 '"threads": "1,2", "seconds": "0.010"' --quick --runs 1 --format json threads --threads 2 --seconds 0.01 --structures ida
expect 0 '{"structure": "region_locked", "threads": 2,' --quick --runs 1 --format json threads --threads 1,2
expect 0 '{"structure": "xarray_load", "threads": 1, ' --quick --runs 1 --format json threads --threads 1,2
expect 0 '"tags": "128", "iterations": "64"' --runs 1 --format json threads --threads 1 --structures sbitmap --iterations 64
expect 0 '{"structure": "sbitmap", "threads": 2,' --quick --runs 1 --format json threads --threads 2 --structures sbitmap
# One legend per run: a column shared by three tables is defined once.
"$rb" --quick --runs 1 maple-prealloc >"$tmp/out" 2>&1
n=$(grep -c '^  live ranges  ' "$tmp/out")
checks=$((checks + 1))
[ "$n" = 1 ] || { echo "FAIL: legend line printed $n times"; fails=$((fails + 1)); }

# Replay: strict trace parsing, errors name FILE:LINE, nothing runs.
trace() { printf "$1" >"$tmp/t.trace"; }
trace 'capacity 64\nalloc 10 foo 8\n'
expect 2 "$tmp/t.trace:2: expected 'alloc N' or 'alloc N align A'" replay "$tmp/t.trace"
trace 'capacity 64\nfrob 3\n'
expect 2 "$tmp/t.trace:2: unknown operation" replay "$tmp/t.trace"
trace 'capacity 64\nalloc 4\nalloc -3\n'
expect 2 "$tmp/t.trace:3: expected a whole number" replay "$tmp/t.trace"
trace 'capacity 64\nalloc 0\n'
expect 2 "$tmp/t.trace:2: the size must be 1..capacity" replay "$tmp/t.trace"
trace 'capacity 64\nalloc 65\n'
expect 2 "$tmp/t.trace:2: the size must be 1..capacity" replay "$tmp/t.trace"
trace 'capacity 64\nalloc 4 # id 0\nfree 0\n\nfree 0\n'
expect 2 "$tmp/t.trace:5: a second free of this ID" replay "$tmp/t.trace"
trace 'capacity 64\nalloc 4\nfree 1\n'
expect 2 "$tmp/t.trace:3: free of an ID not allocated yet" replay "$tmp/t.trace"
trace 'capacity 64\nalloc 4 align 3\n'
expect 2 "$tmp/t.trace:2: the align must be a power of 2" replay "$tmp/t.trace"
trace 'capacity 64\nreserve 60 5\n'
expect 2 "$tmp/t.trace:2: the range START..START+N-1 must lie" replay "$tmp/t.trace"
trace 'capacity 64\nreserve 6\n'
expect 2 "$tmp/t.trace:2: expected 'reserve START N'" replay "$tmp/t.trace"
trace 'alloc 3\n'
expect 2 "$tmp/t.trace:1: the first operation must be 'capacity C'" replay "$tmp/t.trace"
trace 'capacity 64\ncapacity 64\n'
expect 2 "$tmp/t.trace:2: a second capacity line" replay "$tmp/t.trace"
trace '# nothing\n'
expect 2 "$tmp/t.trace: no 'capacity C' line" replay "$tmp/t.trace"
expect 2 "regionbench: replay: $tmp/none: No such file or directory" replay "$tmp/none"
expect 2 "regionbench: replay: expected one trace FILE" replay
expect 2 "regionbench: replay: expected one trace FILE" replay a b
trace 'capacity 64\nalloc 1\nfree 0 0\n'
stdin="$tmp/t.trace" expect 2 "<stdin>:3: expected 'free ID'" replay -

# align is honoured: 3 units, then 10 aligned to 8 cannot fit in 16
# (unaligned it would); reserve places exactly: with 4..11 reserved, 5 units
# do not fit, 4 do. One failure each, on every backend, from stdin.
trace 'capacity 16\nalloc 3\nalloc 10 align 8\n'
stdin="$tmp/t.trace" expect 0 '"failures": 1' --runs 1 --format json replay -
trace 'capacity 16\nreserve 4 8\nalloc 5\nalloc 4\nfree 0\nreserve 4 2 # id 3\n'
"$rb" --runs 1 --format json replay - <"$tmp/t.trace" >"$tmp/out" 2>&1
checks=$((checks + 1))
if [ "$(grep -c '"failures": 1, "false_failures": 0' "$tmp/out")" != 4 ]; then
	echo "FAIL: reserve trace on every backend:"
	sed 's/^/    /' "$tmp/out"
	fails=$((fails + 1))
fi

# --backends picks the rows, in backend order.
printf 'capacity 16\nalloc 3\n' | "$rb" --runs 1 --format json replay \
	--backends hbitmap,ida - 2>/dev/null | grep -o '"backend": "[a-z]*"' |
	tr '\n' ' ' >"$tmp/out"
checks=$((checks + 1))
if [ "$(cat "$tmp/out")" != '"backend": "ida" "backend": "hbitmap" ' ]; then
	echo "FAIL: --backends hbitmap,ida gave: $(cat "$tmp/out")"
	fails=$((fails + 1))
fi

# --policy runs each policy on the backends that offer it; --workload
# aligned is churn with power-of-two sizes aligned to their size.
expect 0 '"policies": "best,top"' --quick --runs 1 --format json regions \
	--workload aligned --capacity 10000 --iterations 2000 --occupancy 90 \
	--policy top,best
expect 0 '"backend": "hbitmap", "capacity": 10000, "policy": "top"' \
	--quick --runs 1 --format json regions --workload aligned \
	--capacity 10000 --iterations 2000 --occupancy 80,90 --policy top
expect 0 '"align": "size"' --quick --runs 1 --format json regions \
	--workload aligned --capacity 10000 --iterations 2000 --occupancy 90
printf 'capacity 16\nalloc 3\n' | "$rb" --runs 1 --format json replay \
	--policy best,next - 2>/dev/null | grep -o '"policy": "[a-z]*"' |
	sort | uniq -c | tr -s ' \n' ' ' >"$tmp/out"
checks=$((checks + 1))
# best fit: bitmap and hbitmap; next fit: all but ida.
if [ "$(cat "$tmp/out")" != ' 2 "policy": "best" 3 "policy": "next" ' ]; then
	echo "FAIL: replay --policy best,next gave: $(cat "$tmp/out")"
	fails=$((fails + 1))
fi

echo "cli: $checks checks, $fails failed"
[ "$fails" = 0 ]
