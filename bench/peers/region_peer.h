/* SPDX-License-Identifier: MIT */
/*
 * Region allocators of other projects next to libregion's backends in
 * regionbench regions and replay (make bench-peers PEERS=DIR). Each peer
 * is built from a clone of its own repository (never copied into this
 * tree) in its own translation unit without LTO, behind a small adapter of
 * ours that gives it libregion's shape: alloc(n, align) of units, free.
 * An adapter registers itself from a constructor; without peers in the
 * build the list is empty and nothing changes.
 */
#ifndef RB_REGION_PEER_H
#define RB_REGION_PEER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rb_region_peer {
	const char *name; /* the --backends name: "tlsf" */
	const char *placement; /* the policy column: "good" (class bins) */
	const char *legend; /* one note: how alignment and bytes count */
	unsigned long max_capacity; /* units; larger instances are skipped */
	/* A new instance of @capacity units, or NULL. */
	void *(*create)(unsigned long capacity);
	/*
	 * @n units whose start is a multiple of @align (a power of 2):
	 * 0 and *@start, *@handle (given back to free), or -ENOSPC.
	 */
	int (*alloc)(void *p, unsigned long n, unsigned long align,
		     unsigned long *start, unsigned long *handle);
	/* Free what alloc returned (@start, @n and @handle as returned). */
	void (*free)(void *p, unsigned long start, unsigned long n,
		     unsigned long handle);
	/* Metadata bytes now (see @legend); called untimed. */
	size_t (*bytes)(void *p);
	void (*destroy)(void *p);
};

/* Add @p to regionbench's peers (at most RB_MAX_PEERS). */
void rb_region_peer_register(const struct rb_region_peer *p);

#define RB_MAX_PEERS 4

#ifdef __cplusplus
}
#endif

#endif /* RB_REGION_PEER_H */
