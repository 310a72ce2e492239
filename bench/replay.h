/* SPDX-License-Identifier: MIT */
/*
 * The trace replay of bench/regions.c, for other subcommands (pick): read
 * a trace once, replay it on one backend and policy, get one run's figures.
 * The trace format and its parsing rules are those of regionbench replay.
 */
#ifndef RB_REPLAY_H
#define RB_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "region/region.h"

struct rtrace;

/* One replay of a trace on one backend and policy. */
struct rb_replay_run {
	unsigned long allocs; /* alloc and reserve lines replayed */
	unsigned long frees; /* frees done (skipped ones not counted) */
	unsigned long skipped; /* frees of an allocation that had failed */
	unsigned long failures, false_failures;
	double alloc_ns, free_ns; /* all timed allocations, all timed frees */
	size_t peak_bytes; /* the instance's bytes_held_peak */
	uint64_t hash; /* of every placement, equal for equal placements */
};

/*
 * rb_trace_load() - read and check a whole trace (FILE, or "-" for standard
 * input); bad input exits 2 naming FILE:LINE, as regionbench replay does.
 */
struct rtrace *rb_trace_load(const char *path);
void rb_trace_unload(struct rtrace *tr);
unsigned long rb_trace_capacity(const struct rtrace *tr);
unsigned long rb_trace_ops(const struct rtrace *tr);
/* The median cost of one timer read pair, subtracted per timed group. */
double rb_replay_timer_overhead(void);
/*
 * rb_replay_once() - replay @tr once on @backend placing by @policy (which
 * the backend must offer) and fill @out.
 */
void rb_replay_once(const struct rtrace *tr, enum rg_region_backend backend,
		    enum rg_region_policy policy, double overhead,
		    struct rb_replay_run *out);

#endif /* RB_REPLAY_H */
