/* SPDX-License-Identifier: MIT */
/*
 * libregion common definitions: export macro, error convention and the
 * fault-injection switch that every allocating path in the library honours.
 *
 * Usage:
 *	rg_fault_inject(3);		// the 3rd allocation from now fails
 *	err = rg_ida_alloc(&ida, &id);	// may return -ENOMEM
 *	if (rg_fault_fired()) ...	// did the injected failure happen?
 *	rg_fault_inject(0);		// disarm
 *
 * Errors: status calls return 0 or a negative errno; constructors return a
 * pointer, or NULL with errno set. The library never prints, except for the
 * default slab corruption report hook (see slab.h).
 *
 * NULL arguments: every public call checks its pointer arguments, in debug
 * and release builds alike. NULL is allowed only where a call's comment
 * says so (an optional out-parameter such as @reason or @old, the object
 * of a free or destroy, a bitmap of 0 bits); anywhere else it is bad input
 * like any other, and the call changes nothing and answers:
 *	status calls (int, long)	-EINVAL
 *	constructors, allocations	NULL with errno EINVAL
 *	other calls returning a pointer	NULL (as for "nothing there")
 *	counts, sizes			0
 *	yes/no questions (bool)		false
 *	searches returning an index	their documented "none found" value
 *	calls returning nothing		nothing happens
 * Individual comments list -EINVAL for NULL only where it needs saying. The
 * kernel names of linux.h follow the kernel: pass valid pointers.
 */
#ifndef REGION_COMMON_H
#define REGION_COMMON_H

#include <errno.h> /* the -E... codes every call returns */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define RG_API __attribute__((visibility("default")))
#else
#define RG_API
#endif

/**
 * rg_fault_inject() - make the Nth allocation from now fail, in this thread.
 * @nth: 1 fails the very next allocation attempt, 2 the one after, and so
 *       on; 0 disarms.
 *
 * An allocation attempt is any place where the library would obtain memory:
 * an object from a slab cache (single, bulk or sheaf prefill, counted once per
 * call), a new slab from the operating system, or a private heap block. The
 * failure happens once; later attempts succeed. The counter is per thread, so
 * tests running in parallel threads do not disturb each other.
 *
 * Context: any thread; affects only the calling thread.
 */
RG_API void rg_fault_inject(unsigned long nth);

/**
 * rg_fault_fired() - tell whether the armed failure has happened.
 *
 * Context: any thread; reads the calling thread's state.
 * Return: true once the failure armed by rg_fault_inject() has been
 * delivered, until the next rg_fault_inject() call.
 */
RG_API bool rg_fault_fired(void);

/**
 * rg_fault_attempts() - count of allocation attempts made by this thread.
 *
 * Context: any thread.
 * Return: the number of allocation attempts the calling thread has made
 * since it started; tests use differences of it to size fault loops.
 */
RG_API unsigned long rg_fault_attempts(void);

#ifdef __cplusplus
}
#endif
#endif /* REGION_COMMON_H */
