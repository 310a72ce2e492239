// SPDX-License-Identifier: MIT
/*
 * rcu: a Maple Tree in RCU mode, read by lock-free threads while a writer
 * replaces, erases and allocates entries.
 *
 * The tree maps windows of 16 indices (say, slots of a shared buffer) to
 * session objects. Two reader threads look sessions up at random without
 * ever taking the tree's lock; the main thread is the writer.
 *
 * What it shows:
 *  - Every thread that touches an RCU-mode tree registers with liburcu, in
 *    the flavour libregion links: memb (<urcu/urcu-memb.h>, urcu_memb_*).
 *  - A reader dereferences an entry only inside urcu_memb_read_lock() /
 *    urcu_memb_read_unlock(): the entry may be replaced at any moment, but
 *    it is not freed until every reader that could have seen it has left
 *    its read-side critical section (a grace period).
 *  - The writer frees a replaced entry with urcu_memb_call_rcu() (freed by
 *    liburcu's thread after a grace period, the writer does not wait) and
 *    an erased one after urcu_memb_synchronize_rcu() (the writer waits).
 *  - rg_mtree_alloc_range() publishes its entry before it returns the start,
 *    so the writer stores a placeholder value entry first and replaces it
 *    with the finished object; readers skip placeholders.
 *  - rg_mtree_rcu_barrier() before exit waits for every pending call_rcu()
 *    callback: the tree's own node frees and ours.
 * Exits 0 when no reader ever saw a torn or freed session. Under
 * AddressSanitizer (the test suite's first build) a premature free would
 * also be reported as a use after free.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <urcu/urcu-memb.h>

#include <libregion.h>

#define WINDOW 16 /* indices per session */
#define NSESSIONS 64 /* live sessions */
#define SPACE 4096 /* indices [0, SPACE) */
#define ROUNDS 100000 /* writer updates */
#define NREADERS 2

#define LIVE 0x5e55a11eUL
#define DEAD 0xdeadUL

struct session {
	unsigned long magic; /* LIVE while the tree may hand it out */
	unsigned long first, last; /* the window it is stored over */
	unsigned long version;
	struct rcu_head rcu; /* for urcu_memb_call_rcu() */
};

static struct rg_maple_tree tree;
static atomic_bool stop;
static atomic_long freed; /* sessions freed by either route */
static atomic_int bad; /* what readers found wrong */

static struct session *session_new(unsigned long first, unsigned long version)
{
	struct session *s = malloc(sizeof(*s));

	if (!s)
		return NULL;
	/* Fill the object completely before the tree publishes it. */
	s->magic = LIVE;
	s->first = first;
	s->last = first + WINDOW - 1;
	s->version = version;
	return s;
}

static void session_free(struct session *s)
{
	s->magic = DEAD; /* a reader that still sees it would notice */
	free(s);
	atomic_fetch_add(&freed, 1);
}

/* Runs in liburcu's call_rcu thread, after a grace period. */
static void session_free_rcu(struct rcu_head *head)
{
	session_free(caa_container_of(head, struct session, rcu));
}

static void *reader(void *arg)
{
	unsigned long x = 0x9e3779b97f4a7c15UL * ((unsigned long)arg + 1);
	long found = 0, placeholders = 0;

	urcu_memb_register_thread();
	do {
		unsigned long index;
		void *e;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift */
		index = x % SPACE;

		urcu_memb_read_lock();
		/* rg_mtree_load() takes the read lock too; nesting is fine. */
		e = rg_mtree_load(&tree, index);
		if (e && rg_mt_is_value(e)) {
			placeholders++; /* being set up: not ready yet */
		} else if (e) {
			struct session *s = e;

			/* Safe to read until urcu_memb_read_unlock(). */
			if (s->magic != LIVE || index < s->first ||
			    index > s->last)
				atomic_fetch_add(&bad, 1);
			found++;
		}
		urcu_memb_read_unlock();
		/* From here on, e must not be dereferenced. */
	} while (!atomic_load(&stop));

	/* A whole iteration runs under one read lock, without the tree lock. */
	{
		RG_MA_STATE(mas, &tree, 0, 0);
		unsigned long prev_last = 0;
		bool first = true;
		void *e;

		urcu_memb_read_lock();
		rg_mas_for_each(&mas, e, ULONG_MAX)
		{
			if (!first && mas.index <= prev_last)
				atomic_fetch_add(&bad, 1);
			prev_last = mas.last;
			first = false;
		}
		urcu_memb_read_unlock();
	}
	urcu_memb_unregister_thread();
	printf("reader %ld: %ld sessions, %ld placeholders\n", (long)arg, found,
	       placeholders);
	return NULL;
}

/* Give a new session a free window: placeholder first, then the object. */
static struct session *session_open(unsigned long version)
{
	unsigned long start;
	struct session *s;

	/*
	 * In RCU mode the entry is visible to readers before the call returns
	 * @start, so the object cannot know its window yet: store a value
	 * entry (rg_mt_mk_value()) as a placeholder ...
	 */
	if (rg_mtree_alloc_range(&tree, &start, rg_mt_mk_value(0), WINDOW, 0,
				 SPACE - 1))
		return NULL;
	s = session_new(start, version);
	if (!s) {
		rg_mtree_erase(&tree, start);
		return NULL;
	}
	/* ... and replace it with the finished object: an exact-fit store. */
	if (rg_mtree_store_range(&tree, s->first, s->last, s)) {
		rg_mtree_erase(&tree, start);
		free(s);
		return NULL;
	}
	return s;
}

int main(void)
{
	struct session *live[NSESSIONS];
	pthread_t th[NREADERS];
	long retired = 0;
	int ret = 0;

	urcu_memb_register_thread(); /* the writer is a registered thread too */
	if (rg_mtree_init(&tree, RG_MT_FLAGS_ALLOC_RANGE | RG_MT_FLAGS_USE_RCU))
		return 1;
	for (int i = 0; i < NSESSIONS; i++) {
		live[i] = session_open(0);
		if (!live[i]) {
			fprintf(stderr, "rcu: session_open failed\n");
			return 1;
		}
	}
	for (long r = 0; r < NREADERS; r++)
		if (pthread_create(&th[r], NULL, reader, (void *)r)) {
			fprintf(stderr, "rcu: pthread_create failed\n");
			return 1;
		}

	for (unsigned long round = 1; round <= ROUNDS; round++) {
		int i = (int)(round * 7919 % NSESSIONS);
		struct session *old = live[i], *s;

		if (round % 100 == 0) {
			/*
			 * Close the session: erase it, wait until no reader
			 * can hold it, free it; then open a new one, which may
			 * land in another window.
			 */
			if (rg_mtree_erase(&tree, old->first) != old) {
				ret = 1;
				break;
			}
			urcu_memb_synchronize_rcu();
			session_free(old);
			retired++;
			live[i] = session_open(round);
			if (!live[i]) {
				ret = 1;
				break;
			}
			continue;
		}
		/*
		 * Update the session: readers see the old version or the new
		 * one, never a mix, so build a new object and swap it in.
		 */
		s = session_new(old->first, round);
		if (!s || rg_mtree_store_range(&tree, s->first, s->last, s)) {
			free(s);
			ret = 1;
			break;
		}
		live[i] = s;
		/* Readers may still use @old: free it after a grace period. */
		urcu_memb_call_rcu(&old->rcu, session_free_rcu);
		retired++;
	}

	atomic_store(&stop, true);
	for (int r = 0; r < NREADERS; r++)
		pthread_join(th[r], NULL);

	if (rg_mtree_validate(&tree, NULL))
		ret = 1;
	/* No reader is left: the tree and the live sessions can go at once. */
	rg_mtree_destroy(&tree);
	for (int i = 0; i < NSESSIONS; i++)
		if (live[i]) {
			session_free(live[i]);
			retired++;
		}
	/* Wait for every call_rcu() callback: the tree's and ours. */
	rg_mtree_rcu_barrier();
	printf("writer: %d rounds, %ld sessions freed of %ld retired\n", ROUNDS,
	       atomic_load(&freed), retired);
	if (atomic_load(&freed) != retired || atomic_load(&bad)) {
		fprintf(stderr, "rcu: %d bad reads, %ld of %ld freed\n",
			atomic_load(&bad), atomic_load(&freed), retired);
		ret = 1;
	}
	urcu_memb_unregister_thread();
	return ret;
}
