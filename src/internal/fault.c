// SPDX-License-Identifier: MIT
/*
 * Fault injection: theory of operation.
 *
 * Every place in libregion that obtains memory calls rgi_fault() once. The
 * call counts an attempt in a thread-local counter and, when a failure has
 * been armed with rg_fault_inject(n), fails the nth attempt exactly once.
 * Tests loop n = 1, 2, ... over an operation until it succeeds without the
 * failure firing; at each n they check that the operation returned -ENOMEM
 * (or NULL/0) and left its structure unchanged and leak-free. Being
 * thread-local, the switch costs one predictable branch on the fast path
 * and needs no locking.
 */
#include <stdio.h>

#include "rg_internal.h"

__thread struct rgi_fault_state rgi_fault_tls
	__attribute__((tls_model("initial-exec")));

void rg_fault_inject(unsigned long nth)
{
	rgi_fault_tls.countdown = nth;
	rgi_fault_tls.fired = false;
}

bool rg_fault_fired(void)
{
	return rgi_fault_tls.fired;
}

unsigned long rg_fault_attempts(void)
{
	return rgi_fault_tls.attempts;
}

void rgi_assert_fail(const char *expr, const char *file, int line)
{
	fprintf(stderr, "libregion: assertion failed: %s (%s:%d)\n", expr, file,
		line);
	abort();
}
