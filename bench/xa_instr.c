// SPDX-License-Identifier: MIT
/*
 * xa_instr: rg_xa_load() of seeded random indices of an array of value
 * entries, a fixed number of times, for scripts/instructions.sh (callgrind
 * counts the instructions inside rg_xa_load(); two runs that differ only
 * in the number of loads give the cost of one).
 *
 * usage: xa_instr ENTRIES LOADS [rcu]
 *   rcu: register the thread with liburcu first, so that rg_xa_load()
 *        reads lock-free (an unregistered thread reads under the lock).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/urcu-memb.h>

#include "region/xarray.h"
#include "rg_rand.h"

int main(int argc, char **argv)
{
	RG_DEFINE_XARRAY(xa);
	unsigned long n, loads, i, bad = 0;
	struct rg_rand r;
	int rcu;

	if (argc < 3) {
		fprintf(stderr, "usage: xa_instr ENTRIES LOADS [rcu]\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 0);
	loads = strtoul(argv[2], NULL, 0);
	rcu = argc > 3 && !strcmp(argv[3], "rcu");
	if (!n)
		return 2;
	if (rcu)
		urcu_memb_register_thread();
	for (i = 0; i < n; i++)
		if (rg_xa_store(&xa, i, rg_xa_mk_value(i), NULL))
			return 1;
	rg_rand_seed(&r, 1);
	for (i = 0; i < loads; i++) {
		unsigned long k = rg_rand_below(&r, n);

		bad += rg_xa_load(&xa, k) != rg_xa_mk_value(k);
	}
	rg_xa_destroy(&xa);
	if (rcu)
		urcu_memb_unregister_thread();
	printf("%lu loads, %lu wrong\n", loads, bad);
	return bad != 0;
}
