# SPDX-License-Identifier: MIT
#
# The two commands of the README:
#   make test   install missing packages, build, run every test: the suite
#               under ASan+UBSan and optimised, threaded tests under TSan,
#               then the install + pkg-config test
#   make bench  install missing packages, build optimised, run the default
#               benchmarks
# `make help` lists every target with one line each (the "## target:" lines
# below; tests/layout/check_front_door.sh keeps them complete).
#   make bench-kernel [KERNEL=6.12|6.1] [FORMAT=table|csv|json]: the kernel's
#   own Maple Tree, IDA, xarray and bitmap zero-area search (built from
#   Debian's linux-source, installed on demand) next to libregion's, in one
#   run (with FORMAT=csv or json only the results go to stdout);
#   make bench-peers PEERS=DIR [TRACE=FILE] [RUNS=N]: OffsetAllocator and
#   TLSF built from your clones of their repositories in DIR (never copied
#   here) next to libregion's backends on the region workloads, in one
#   process (scripts/bench-peers.sh); skipped with a note without PEERS;
#   make bench-doc: doc/benchmarks.md and doc/quality.md from one run;
#   make test-kernel [KERNEL=6.12|6.1]: the kernel's own test programs
#   (lib/test_ida.c, lib/test_maple_tree.c, lib/test_bitmap.c,
#   tools/testing/radix-tree/idr-test.c) built against <region/linux.h>.

PREFIX ?= /usr/local
KERNEL ?= 6.12
FORMAT ?= table
B := build

.PHONY: all deps deps-lib deps-bench build test bench bench-kernel test-kernel \
	install clean

## all: the same as make build
all: build

# deps.sh package groups: the library alone, the tests, the benchmarks.
## deps: install the packages the tests need (scripts/deps.sh test)
deps:
	@bash scripts/deps.sh test

## deps-lib: install the packages the library alone needs
deps-lib:
	@bash scripts/deps.sh lib

## deps-bench: install the packages the benchmarks need
deps-bench:
	@bash scripts/deps.sh bench

$(B)/release/build.ninja:
	meson setup $(B)/release -Dbuildtype=debugoptimized -Db_ndebug=true

## build: the optimised library, regionbench and examples in build/release
build: deps-lib $(B)/release/build.ninja
	ninja -C $(B)/release

## test: every test: ASan+UBSan, -O2, TSan, then install + consume
test: deps
	@bash scripts/test.sh

## bench: the default benchmarks, about three minutes
# A peer found at build time (GLib) installed since setup: reconfigure first.
bench: deps-bench $(B)/release/build.ninja
	@bash scripts/peers.sh $(B)/release
	@$(MAKE) --no-print-directory build
	@bash scripts/bench.sh $(B)/release

# The build's messages go to stderr, so stdout holds only the results.
## bench-kernel: the kernel's own structures next to ours [KERNEL= FORMAT=]
bench-kernel:
	@$(MAKE) --no-print-directory build >&2
	@KERNEL=$(KERNEL) FORMAT=$(FORMAT) bash bench/peers/kernel-bench.sh \
		$(B)/release

# Peers of the region benchmarks, from clones in $(PEERS), in $(B)/peers.
PEERS ?=
TRACE ?=
RUNS ?= 3
.PHONY: bench-peers
## bench-peers: OffsetAllocator and TLSF from clones in PEERS=DIR beside ours
bench-peers: deps-bench
	@bash scripts/bench-peers.sh $(B)/peers "$(PEERS)" "$(TRACE)" $(RUNS)

# The kernel's own test programs against <region/linux.h> (KERNEL=6.12|6.1).
## test-kernel: the kernel's own test programs against <region/linux.h>
test-kernel: build
	@KERNEL=$(KERNEL) bash scripts/test-kernel.sh

## install: install into PREFIX (default /usr/local)
install: build
	meson configure $(B)/release -Dprefix=$(PREFIX)
	meson install -C $(B)/release

## clean: remove build/
clean:
	rm -rf $(B)

# make fuzz SECONDS=N: every fuzz target of tests/fuzz/ under libFuzzer
# (clang, ASan+UBSan, in build/fuzz), N seconds each; fails on any finding.
# TARGETS=region,maple runs only those targets.
SECONDS ?= 60
TARGETS ?=
comma := ,
.PHONY: fuzz
## fuzz: every libFuzzer target for SECONDS each [TARGETS=a,b]
fuzz:
	@bash scripts/fuzz.sh $(SECONDS) $(subst $(comma), ,$(TARGETS))

# make soak MINUTES=N: every module at once from 2 x nproc threads for N
# minutes (ownership checks, checkpoints, flat resident memory); the RSS
# curve is plotted to $(B)/release/soak-rss.png (or SOAK_PNG=FILE).
MINUTES ?= 10
SOAK_PNG ?= $(B)/release/soak-rss.png
.PHONY: soak
## soak: every module from 2 x nproc threads for MINUTES
soak: build
	@bash scripts/soak.sh $(B)/release $(MINUTES) $(SOAK_PNG)

# make coverage: the whole suite built with gcc --coverage ($(B)/coverage),
# then line and branch coverage of src/ (gcovr).
# make coverage-doc: a fresh make coverage, then doc/coverage.md written
# from that run (scripts/coverage_doc.py).
.PHONY: coverage coverage-doc
## coverage: line and branch coverage of src/ (gcovr)
coverage:
	@bash scripts/deps.sh qa
	@bash scripts/coverage.sh $(B)/coverage

## coverage-doc: a fresh make coverage, then doc/coverage.md from it
coverage-doc:
	rm -rf $(B)/coverage
	@$(MAKE) --no-print-directory coverage
	python3 scripts/coverage_doc.py $(B)/coverage >$(B)/coverage/coverage.md
	cp $(B)/coverage/coverage.md doc/coverage.md

# make bench-doc: doc/benchmarks.md and doc/quality.md from one stamped run
# of the commands in scripts/benchmarks.md.in and scripts/quality.md.in
# (scripts/bench_doc.py; a few minutes), with the charts they show in
# doc/img.
.PHONY: bench-doc
## bench-doc: doc/benchmarks.md and doc/quality.md from one stamped run
bench-doc: deps-bench $(B)/release/build.ninja
	@bash scripts/peers.sh $(B)/release
	@$(MAKE) --no-print-directory build
	python3 scripts/bench_doc.py $(B)/release

# make analyze: gcc -fanalyzer and cppcheck over src/, clean or failing.
.PHONY: analyze
## analyze: gcc -fanalyzer and cppcheck over src/
analyze:
	@bash scripts/deps.sh qa
	@bash scripts/analyze.sh $(B)/analyze

# make format: every tracked .c and .h file formatted in place by
# clang-format; make check-format: the check .ci/run makes, failing on any
# file that differs.
.PHONY: format check-format
## format: clang-format every tracked .c and .h file in place
format:
	@bash scripts/deps.sh qa
	@bash scripts/check-format.sh --fix

## check-format: fail if a tracked .c or .h file is not clang-formatted
check-format:
	@bash scripts/deps.sh qa
	@bash scripts/check-format.sh

# make ci: what CI runs on a fresh clone (.ci/run), here in this tree.
.PHONY: ci
## ci: what CI runs (.ci/run): format check, make test, -O0 builds, more
ci:
	@bash .ci/run

# make help: one line per target, from the "## target: what" line above
# each (tests/layout/check_make_help.sh checks that every target has one).
.PHONY: help
## help: this list
help:
	@sed -n 's/^## \([a-z-]*\): \(.*\)/  make \1\t\2/p' $(MAKEFILE_LIST) | \
		expand -t 24
