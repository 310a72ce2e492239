// SPDX-License-Identifier: MIT
/*
 * rcu_reader: a Maple Tree in RCU mode with a lock-free reader thread,
 * built from libregion's pkg-config line (or CMake target) alone: the
 * program calls liburcu (urcu_memb_register_thread() and the read lock)
 * directly, so this proves the link line carries liburcu.
 *
 * The writer keeps [0, 99] mapped to a or b while the reader loads under
 * the read lock, which must always see a or b, never anything else.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include <urcu/urcu-memb.h>

#include <libregion.h>

static struct rg_maple_tree mt;
static int a, b;
static atomic_int done;
static atomic_long seen;
static long bad;

static int ok(void *p)
{
	return p == &a || p == &b;
}

static void *reader(void *arg)
{
	unsigned long i = 0;

	(void)arg;
	urcu_memb_register_thread();
	while (!atomic_load(&done)) {
		RG_MA_STATE(mas, &mt, 50, 50);
		void *p, *q;

		p = rg_mtree_load(&mt, i++ % 100); /* takes the read lock */
		urcu_memb_read_lock(); /* advanced API: the caller's lock */
		q = rg_mas_walk(&mas);
		urcu_memb_read_unlock();
		if (!ok(p) || !ok(q))
			bad++;
		atomic_fetch_add(&seen, 1);
	}
	urcu_memb_unregister_thread();
	return NULL;
}

int main(void)
{
	pthread_t t;
	int i, rc = 0;

	urcu_memb_register_thread();
	if (rg_mtree_init(&mt, RG_MT_FLAGS_USE_RCU) ||
	    rg_mtree_store_range(&mt, 0, 99, &a))
		return 1;
	if (pthread_create(&t, NULL, reader, NULL))
		return 1;
	for (i = 0; i < 20000 && !rc; i++)
		rc = rg_mtree_store_range(&mt, 0, 99, i & 1 ? &b : &a);
	while (!atomic_load(&seen)) /* the reader ran at least once */
		;
	atomic_store(&done, 1);
	pthread_join(t, NULL);
	rg_mtree_destroy(&mt);
	rg_mtree_rcu_barrier();
	urcu_memb_unregister_thread();
	printf("rcu_reader: %ld loads, %ld wrong\n", (long)atomic_load(&seen),
	       bad);
	return rc || bad ? 1 : 0;
}
