// SPDX-License-Identifier: MIT
/*
 * threads: one slab cache and one IDA shared by several threads, the way a
 * server numbers and allocates its connections.
 *
 * What it shows:
 *  - A slab cache needs no locking by the caller: each thread allocates and
 *    frees through its own sheaves, and any thread may free an object that
 *    another thread allocated (here every object is freed by the thread
 *    "next door").
 *  - An IDA takes its own lock in every call, so threads may allocate and
 *    free IDs concurrently; each ID is handed out to one thread only.
 *  - rg_slab_get_stats() and rg_ida_is_empty() prove at the end that every
 *    object and every ID came back.
 * Exits 0 when every step behaves as documented.
 */
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_* under -std=c11 */

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <libregion.h>

#define NTHREADS 4
#define PER_THREAD 2000 /* connections each thread opens */

struct conn {
	unsigned int id;
	int owner; /* thread that opened it */
	char peer[48];
};

static struct rg_slab_cache *conn_cache;
static RG_DEFINE_IDA(conn_ids);

/* What each thread opened; freed later by the next thread. */
static struct conn *opened[NTHREADS][PER_THREAD];
/* How often each ID was seen while open: must never exceed 1. */
static atomic_int id_users[NTHREADS * PER_THREAD];
static atomic_int errors;

static pthread_barrier_t all_opened;

static void fail(const char *what, int t)
{
	fprintf(stderr, "threads: thread %d: %s\n", t, what);
	atomic_fetch_add(&errors, 1);
}

static void *worker(void *arg)
{
	int t = (int)(long)arg;
	int next = (t + 1) % NTHREADS;

	/* Phase 1: open connections, each with an object and an ID. */
	for (int i = 0; i < PER_THREAD; i++) {
		struct conn *c = rg_slab_alloc(conn_cache);
		unsigned int id;

		if (!c) {
			fail("rg_slab_alloc failed", t);
			break; /* still meet the others at the barrier */
		}
		/*
		 * The lowest free ID each time: with at most NTHREADS *
		 * PER_THREAD connections open, the range never runs out.
		 */
		if (rg_ida_alloc_range(&conn_ids, 0, NTHREADS * PER_THREAD - 1,
				       &id)) {
			fail("rg_ida_alloc_range failed", t);
			rg_slab_free(conn_cache, c);
			break;
		}
		if (atomic_fetch_add(&id_users[id], 1) != 0)
			fail("an ID was handed out twice", t);
		c->id = id;
		c->owner = t;
		snprintf(c->peer, sizeof(c->peer), "10.0.%d.%d", t, i % 250);
		opened[t][i] = c;

		/* Close every third one at once: IDs get reused under load. */
		if (i % 3 == 0) {
			atomic_fetch_sub(&id_users[id], 1);
			if (rg_ida_free(&conn_ids, id))
				fail("rg_ida_free failed", t);
			rg_slab_free(conn_cache, c);
			opened[t][i] = NULL;
		}
	}

	pthread_barrier_wait(&all_opened);

	/* Phase 2: close what the neighbour opened (a cross-thread free). */
	for (int i = 0; i < PER_THREAD; i++) {
		struct conn *c = opened[next][i];

		if (!c)
			continue;
		if (c->owner != next)
			fail("a connection object was overwritten", t);
		atomic_fetch_sub(&id_users[c->id], 1);
		if (rg_ida_free(&conn_ids, c->id))
			fail("rg_ida_free failed", t);
		rg_slab_free(conn_cache, c);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NTHREADS];
	struct rg_slab_stats st;

	conn_cache = rg_slab_create("conn", sizeof(struct conn), 0, 0, NULL);
	if (!conn_cache) {
		perror("rg_slab_create");
		return 1;
	}
	pthread_barrier_init(&all_opened, NULL, NTHREADS);
	for (long t = 0; t < NTHREADS; t++)
		if (pthread_create(&th[t], NULL, worker, (void *)t)) {
			fprintf(stderr, "threads: pthread_create failed\n");
			return 1;
		}
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	pthread_barrier_destroy(&all_opened);

	/*
	 * The workers have exited, so their sheaves went back to the cache:
	 * nothing is in use, and the IDA is empty again.
	 */
	if (rg_slab_get_stats(conn_cache, &st)) {
		fprintf(stderr, "threads: rg_slab_get_stats failed\n");
		return 1;
	}
	printf("%d threads opened %d connections; in use now: %zu objects, "
	       "peak %zu bytes of slabs\n",
	       NTHREADS, NTHREADS * PER_THREAD, st.objects_in_use,
	       st.bytes_held_peak);
	if (st.objects_in_use != 0 || !rg_ida_is_empty(&conn_ids) ||
	    rg_ida_validate(&conn_ids, NULL) != 0)
		atomic_fetch_add(&errors, 1);
	/* Freeing an ID that is not allocated is refused, nothing changes. */
	if (rg_ida_free(&conn_ids, 5) != -ENOENT)
		atomic_fetch_add(&errors, 1);
	rg_ida_destroy(&conn_ids);
	/* rg_slab_destroy() returns how many objects were never freed. */
	if (rg_slab_destroy(conn_cache) != 0)
		atomic_fetch_add(&errors, 1);
	if (atomic_load(&errors)) {
		fprintf(stderr, "threads: %d errors\n", atomic_load(&errors));
		return 1;
	}
	return 0;
}
