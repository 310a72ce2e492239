/* SPDX-License-Identifier: MIT */
/*
 * libregion IDR: a map from integer IDs to pointers that hands out the IDs,
 * built on an allocating xarray (the kernel's idr_* semantics).
 *
 * Usage:
 *	RG_DEFINE_IDR(objs);			// or rg_idr_init_base(&objs, 1)
 *	int id = rg_idr_alloc(&objs, obj, 0, 0); // lowest free ID >= 0
 *	if (id < 0)
 *		return id;			// -ENOSPC, -ENOMEM, -EINVAL
 *	obj = rg_idr_find(&objs, id);
 *	void *old;
 *	rg_idr_replace(&objs, other, id, &old);	// -ENOENT if id is free
 *	int i;
 *	void *p;
 *	rg_idr_for_each_entry(&objs, p, i)
 *		use(i, p);
 *	rg_idr_remove(&objs, id);		// returns the pointer
 *	rg_idr_destroy(&objs);			// frees the nodes
 *
 * IDs: rg_idr_alloc() and rg_idr_alloc_cyclic() hand out IDs in a half-open
 * range [start, end), where an end of 0 or less means INT_MAX + 1; their
 * IDs fit in an int. rg_idr_alloc_u32() takes an inclusive maximum and
 * reaches UINT_MAX. An IDR initialised with a base (rg_idr_init_base())
 * never hands out an ID below it; a base of 1 is common.
 *
 * Entries: any pointer, NULL included, whatever its top bits (tagged
 * pointers such as arm64 Android's top byte 0xb4 or HWASan's tags round-
 * trip unchanged), at any alignment, and any integer cast to a pointer,
 * except the 1024 values the xarray reserves for itself: those whose two
 * low bits are 10 and that are at most 4096, that is 2, 6, 10, ..., 4094
 * (rg_xa_is_reserved_entry()). No object's address lies in the first 4096
 * bytes, so only integer cookies can be refused; they get -EINVAL. The
 * kernel's IDR refuses every pointer whose two low bits are 10; this one
 * takes those above 4096 too. An ID holding NULL is
 * allocated: rg_idr_find() returns NULL for it as for a free ID, but
 * rg_idr_replace() succeeds and rg_idr_alloc() skips it. The iterators skip
 * IDs that hold NULL.
 *
 * Locking: every call takes the xarray's mutex, so each call is atomic.
 * The cyclic cursor is read and written outside it: serialise
 * rg_idr_alloc_cyclic() and rg_idr_set_cursor() calls on one IDR (the
 * kernel asks its callers to serialise every IDR change).
 */
#ifndef REGION_IDR_H
#define REGION_IDR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "region/common.h"
#include "region/xarray.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct rg_idr - an IDR; treat every field as private.
 * @xa: the allocating xarray; index n holds ID @base + n.
 * @base: the lowest ID.
 * @next: the cursor of rg_idr_alloc_cyclic(): the next ID it tries.
 */
struct rg_idr {
	struct rg_xarray xa;
	unsigned int base;
	unsigned int next;
};

/**
 * RG_IDR_INIT_BASE() - static initialiser of an IDR whose IDs start at @base.
 * @base: the lowest ID the IDR hands out.
 *
 * "struct rg_idr idr = RG_IDR_INIT_BASE(1);" is rg_idr_init_base(&idr, 1)
 * at compile time; RG_IDR_INIT is RG_IDR_INIT_BASE(0).
 *
 * Context: any; an initialiser.
 */
#define RG_IDR_INIT_BASE(base)                               \
	{                                                    \
		RG_XARRAY_INIT(RG_XA_FLAGS_ALLOC), (base), 0 \
	}
#define RG_IDR_INIT RG_IDR_INIT_BASE(0)
/**
 * RG_DEFINE_IDR() - define an empty IDR with IDs from 0.
 * @name: the variable's name.
 *
 * The same as "struct rg_idr name = RG_IDR_INIT;" and as rg_idr_init() on
 * it. Give it back with rg_idr_destroy().
 *
 * Context: any; a definition.
 */
#define RG_DEFINE_IDR(name) struct rg_idr name = RG_IDR_INIT

/**
 * rg_idr_init_base() - initialise an IDR whose IDs start at a base.
 * @idr: the IDR, in caller-owned memory.
 * @base: the lowest ID it hands out.
 *
 * An initialised IDR holds no memory until an ID other than @base is
 * allocated.
 *
 * Context: no other thread may use @idr during the call.
 */
RG_API void rg_idr_init_base(struct rg_idr *idr, unsigned int base);

/**
 * rg_idr_init() - initialise an IDR whose IDs start at 0.
 * @idr: the IDR, in caller-owned memory.
 *
 * Context: no other thread may use @idr during the call.
 */
RG_API void rg_idr_init(struct rg_idr *idr);

/**
 * rg_idr_alloc_u32() - allocate the lowest free ID in an inclusive range.
 * @idr: the IDR.
 * @ptr: the pointer to store at the new ID; NULL is allowed.
 * @nextid: in: the lowest acceptable ID; out: the ID allocated.
 * @max: the highest acceptable ID; values above UINT_MAX mean UINT_MAX.
 *
 * IDs below the IDR's base are never handed out, whatever *@nextid says.
 *
 * Context: takes the xarray's lock; may allocate nodes.
 * Return: 0 with *@nextid set; -ENOSPC if every ID in the range is taken
 * or the range is empty (*@nextid > @max, or @max below the base);
 * -EINVAL if @idr or @nextid is NULL or @ptr is one of the values the
 * xarray reserves (two low bits 10 and at most 4096: 2, 6, ..., 4094);
 * -ENOMEM. On error nothing changes and *@nextid is not written.
 */
RG_API int rg_idr_alloc_u32(struct rg_idr *idr, void *ptr, uint32_t *nextid,
			    unsigned long max);

/**
 * rg_idr_alloc() - allocate the lowest free ID in a half-open range.
 * @idr: the IDR.
 * @ptr: the pointer to store at the new ID; NULL is allowed.
 * @start: the lowest acceptable ID, 0 or more.
 * @end: one more than the highest acceptable ID; 0 or less means
 *       INT_MAX + 1.
 *
 * Context: takes the xarray's lock; may allocate nodes.
 * Return: the new ID (0 .. INT_MAX); -ENOSPC if every ID in [@start, @end)
 * is taken or the range is empty (@start >= @end > 0); -EINVAL if @idr is
 * NULL, @start is negative or @ptr is one of the values the xarray
 * reserves (two low bits 10 and at most 4096: 2, 6, ..., 4094); -ENOMEM.
 * On error nothing changes.
 */
RG_API int rg_idr_alloc(struct rg_idr *idr, void *ptr, int start, int end);

/**
 * rg_idr_alloc_cyclic() - allocate an ID at or after the cursor, wrapping.
 * @idr: the IDR.
 * @ptr: the pointer to store at the new ID; NULL is allowed.
 * @start: the lowest acceptable ID, 0 or more.
 * @end: one more than the highest acceptable ID; 0 or less means
 *       INT_MAX + 1.
 *
 * Searches [max(cursor, @start), @end) first and then, if that is full,
 * the whole of [@start, @end); a cursor outside the range starts at
 * @start. On success the cursor moves to the new ID plus one, so IDs are
 * not reused soon after they are freed.
 *
 * Context: takes the xarray's lock; may allocate nodes; the caller
 * serialises cyclic allocations and rg_idr_set_cursor() on one IDR.
 * Return: the new ID (0 .. INT_MAX); -ENOSPC if every ID in [@start, @end)
 * is taken or the range is empty; -EINVAL if @idr is NULL, @start is
 * negative or @ptr is one of the values the xarray reserves (two low bits
 * 10 and at most 4096: 2, 6, ..., 4094); -ENOMEM. On error nothing
 * changes, the cursor included.
 */
RG_API int rg_idr_alloc_cyclic(struct rg_idr *idr, void *ptr, int start,
			       int end);

/**
 * rg_idr_find() - the pointer stored at an ID.
 * @idr: the IDR.
 * @id: the ID.
 *
 * One rg_xa_load(): lock-free from a thread registered with liburcu (it
 * takes urcu_memb_read_lock() itself), so lookups from several threads
 * scale; the pointer is one the ID held at some moment during the call.
 * To use the object afterwards while another thread may remove and free
 * it, hold urcu_memb_read_lock() across the lookup and the use.
 *
 * Context: any thread; lock-free from a thread registered with liburcu,
 * otherwise takes the xarray's lock; never allocates.
 * Return: the pointer; NULL if @id is free, holds NULL, or @idr is NULL.
 */
RG_API void *rg_idr_find(struct rg_idr *idr, unsigned long id);

/**
 * rg_idr_remove() - free an ID.
 * @idr: the IDR.
 * @id: the ID; freeing a free ID does nothing.
 *
 * Context: takes the xarray's lock; never allocates, cannot fail.
 * Return: the pointer that was stored at @id; NULL if it held NULL, was
 * free, or @idr is NULL.
 */
RG_API void *rg_idr_remove(struct rg_idr *idr, unsigned long id);

/**
 * rg_idr_replace() - store a new pointer at an allocated ID.
 * @idr: the IDR.
 * @ptr: the new pointer; NULL is allowed (the ID stays allocated).
 * @id: the ID.
 * @old: if not NULL, receives the pointer that was there.
 *
 * Context: takes the xarray's lock; never allocates.
 * Return: 0; -ENOENT if @id is not allocated; -EINVAL if @idr is NULL or
 * @ptr is one of the values the xarray reserves (two low bits 10 and at
 * most 4096: 2, 6, ..., 4094). On error nothing changes and *@old is not
 * written.
 */
RG_API int rg_idr_replace(struct rg_idr *idr, void *ptr, unsigned long id,
			  void **old);

/**
 * rg_idr_get_next_ul() - the first non-NULL pointer at or after an ID.
 * @idr: the IDR.
 * @nextid: in: where to start; out: the ID of the pointer found.
 *
 * Context: takes the xarray's lock, once more for each ID holding NULL
 * that it skips; never allocates.
 * Return: the pointer with *@nextid updated; NULL if there is none (or
 * @idr or @nextid is NULL), with *@nextid unchanged.
 */
RG_API void *rg_idr_get_next_ul(struct rg_idr *idr, unsigned long *nextid);

/**
 * rg_idr_get_next() - the first non-NULL pointer at or after an int ID.
 * @idr: the IDR.
 * @nextid: in: where to start; out: the ID of the pointer found.
 *
 * IDs above INT_MAX do not fit in *@nextid and are never returned; a
 * negative *@nextid (an int ID incremented past INT_MAX) finds nothing,
 * which ends rg_idr_for_each_entry().
 *
 * Context: takes the xarray's lock, once more for each ID holding NULL
 * that it skips; never allocates.
 * Return: the pointer with *@nextid updated; NULL if there is none up to
 * INT_MAX (or @idr or @nextid is NULL), with *@nextid unchanged.
 */
RG_API void *rg_idr_get_next(struct rg_idr *idr, int *nextid);

/**
 * rg_idr_for_each() - call a function for each non-NULL pointer.
 * @idr: the IDR.
 * @fn: called as fn(id, ptr, @data) in ID order; a non-zero return stops
 *      the walk.
 * @data: passed to @fn.
 *
 * IDs above INT_MAX do not fit in @fn's first argument: the walk stops
 * before them. @fn may remove the ID it is given.
 *
 * Context: takes the xarray's lock once per ID visited, never while @fn
 * runs; never allocates.
 * Return: 0 after the last ID, the first non-zero value @fn returns, or
 * -EINVAL if @idr or @fn is NULL.
 */
RG_API int rg_idr_for_each(struct rg_idr *idr,
			   int (*fn)(int id, void *ptr, void *data),
			   void *data);

/**
 * rg_idr_is_empty() - tell whether no ID is allocated.
 * @idr: the IDR.
 *
 * Context: takes the xarray's lock.
 * Return: true if no ID is allocated (IDs holding NULL count as
 * allocated); false otherwise or if @idr is NULL.
 */
RG_API bool rg_idr_is_empty(struct rg_idr *idr);

/**
 * rg_idr_destroy() - free every ID and every node.
 * @idr: the IDR.
 *
 * The pointers themselves are the caller's; free them first if needed (for
 * instance with rg_idr_for_each()). The IDR stays initialised, with its
 * base and cursor, and empty.
 *
 * Context: takes the xarray's lock.
 */
RG_API void rg_idr_destroy(struct rg_idr *idr);

/**
 * rg_idr_get_cursor() - the cursor of rg_idr_alloc_cyclic().
 * @idr: the IDR.
 *
 * Context: the caller serialises it with rg_idr_alloc_cyclic().
 * Return: the next ID a cyclic allocation tries first; 0 if @idr is NULL.
 */
RG_API unsigned int rg_idr_get_cursor(struct rg_idr *idr);

/**
 * rg_idr_set_cursor() - set the cursor of rg_idr_alloc_cyclic().
 * @idr: the IDR.
 * @val: the next ID a cyclic allocation tries first.
 *
 * Context: the caller serialises it with rg_idr_alloc_cyclic().
 */
RG_API void rg_idr_set_cursor(struct rg_idr *idr, unsigned int val);

/**
 * rg_idr_bytes() - memory the IDR holds.
 * @idr: the IDR.
 *
 * Context: takes the xarray's lock.
 * Return: its nodes times the node size, plus sizeof(struct rg_idr); 0 if
 * @idr is NULL.
 */
RG_API size_t rg_idr_bytes(struct rg_idr *idr);

/**
 * rg_idr_validate() - check every invariant of an IDR.
 * @idr: the IDR.
 * @reason: if not NULL, receives a static description of the first problem.
 *
 * Checks the xarray (rg_xa_validate()) and that no ID exceeds UINT_MAX
 * (the xarray's words cannot hold a refused pointer).
 *
 * Context: takes the xarray's lock; O(nodes).
 * Return: 0 if valid, -EINVAL otherwise (or if @idr is NULL).
 */
RG_API int rg_idr_validate(struct rg_idr *idr, const char **reason);

/**
 * rg_idr_dump() - print the IDR, one line per allocated ID.
 * @idr: the IDR.
 * @f: the stream.
 *
 * A header line gives the base, the cursor and the bytes held; then each
 * allocated ID, NULL-holding ones included, with its pointer.
 *
 * Context: takes the xarray's lock once per ID.
 */
RG_API void rg_idr_dump(struct rg_idr *idr, FILE *f);

/**
 * rg_idr_for_each_entry() - loop over the non-NULL pointers in ID order.
 * @idr: the IDR.
 * @entry: a pointer lvalue: the current pointer.
 * @id: an int lvalue: the current ID.
 *
 * Starts at ID 0; each step is one rg_idr_get_next() from the ID after
 * the current one, so the body may remove the current ID or store others.
 * After the loop @entry is NULL.
 *
 * Context: each step takes the xarray's lock (see rg_idr_get_next()).
 */
#define rg_idr_for_each_entry(idr, entry, id)                     \
	for ((id) = 0; ((entry) = rg_idr_get_next((idr), &(id))); \
	     (id) = (int)((unsigned int)(id) + 1U))
/**
 * rg_idr_for_each_entry_continue() - loop over the pointers from @id on.
 * @idr: the IDR.
 * @entry: a pointer lvalue: the current pointer.
 * @id: an int lvalue: the first ID to look at (included), then the current.
 *
 * rg_idr_for_each_entry() starting at the current value of @id instead of 0.
 *
 * Context: each step takes the xarray's lock (see rg_idr_get_next()).
 */
#define rg_idr_for_each_entry_continue(idr, entry, id)    \
	for (; ((entry) = rg_idr_get_next((idr), &(id))); \
	     (id) = (int)((unsigned int)(id) + 1U))
/**
 * rg_idr_for_each_entry_ul() - loop over the pointers, unsigned long IDs.
 * @idr: the IDR.
 * @entry: a pointer lvalue: the current pointer.
 * @tmp: an unsigned long lvalue the loop uses to stop after ULONG_MAX.
 * @id: an unsigned long lvalue: the current ID.
 *
 * rg_idr_for_each_entry() for IDs above INT_MAX, through
 * rg_idr_get_next_ul().
 *
 * Context: each step takes the xarray's lock (see rg_idr_get_next_ul()).
 */
#define rg_idr_for_each_entry_ul(idr, entry, tmp, id)                      \
	for ((tmp) = 0, (id) = 0;                                          \
	     ((entry) = (tmp) <= (id) ? rg_idr_get_next_ul((idr), &(id)) : \
					NULL);                             \
	     (id) += 1UL, (tmp) = (id))
/**
 * rg_idr_for_each_entry_continue_ul() - loop from @id on, unsigned long IDs.
 * @idr: the IDR.
 * @entry: a pointer lvalue: the current pointer.
 * @tmp: an unsigned long lvalue the loop uses to stop after ULONG_MAX.
 * @id: an unsigned long lvalue: the first ID to look at (included).
 *
 * rg_idr_for_each_entry_ul() starting at the current value of @id.
 *
 * Context: each step takes the xarray's lock (see rg_idr_get_next_ul()).
 */
#define rg_idr_for_each_entry_continue_ul(idr, entry, tmp, id)             \
	for ((tmp) = (id);                                                 \
	     ((entry) = (tmp) <= (id) ? rg_idr_get_next_ul((idr), &(id)) : \
					NULL);                             \
	     (id) += 1UL, (tmp) = (id))

#ifdef __cplusplus
}
#endif
#endif /* REGION_IDR_H */
