/* SPDX-License-Identifier: MIT */
/*
 * libregion sbitmap: a scalable tag allocator with the Linux kernel's
 * sbitmap_queue semantics. Tags 0 .. depth - 1 are bits spread over words,
 * each word on a cache line of its own; threads that allocate and free at
 * the same time touch different lines, so the allocator scales with them.
 *
 * Usage:
 *	struct rg_sbitmap_queue sbq;
 *	int err = rg_sbitmap_queue_init(&sbq, 128, -1, false); // 0, -EINVAL,
 *							         // -ENOMEM
 *	int tag = rg_sbitmap_queue_get(&sbq);	// tag, or -EAGAIN when none
 *	err = rg_sbitmap_queue_clear(&sbq, tag); // -ENOENT if not allocated
 *	tag = rg_sbitmap_queue_get_wait(&sbq);	// sleeps until a tag is free
 *	rg_sbitmap_queue_destroy(&sbq);
 *
 * How it works:
 * - Per-thread hints. Each thread remembers, per instance (in thread-local
 *   storage, no memory in the instance), the tag where its next search
 *   starts. A thread's first call on an instance gives it a start word of
 *   its own (threads 0, 1, 2, ... are spread over the words), and a clear
 *   moves the clearing thread's hint to the tag it freed, so each thread
 *   keeps working in its own word while the word has room.
 * - Deferred clearing. A clear sets the tag's bit in the word's "cleared"
 *   mask instead of clearing it in the word; when a search finds a word
 *   full, it folds the cleared mask into the word at once and searches
 *   again. A get is then one atomic operation on the word and a clear one
 *   on the mask, with no retry loop between threads that share a word.
 * - No stranding. A get looks at every word (folding each full one) before
 *   it answers -EAGAIN, so a free tag anywhere is found: nothing is parked
 *   in a per-thread cache where other threads cannot reach it.
 * - Waiters. A thread that must have a tag sleeps (on a futex, no
 *   spinning) on one of RG_SBQ_WAIT_QUEUES wait queues. Frees are counted
 *   while anyone waits, and every wake_batch frees wake wake_batch waiters,
 *   the queues taken in turn, as the kernel does. wake_batch is
 *   min(RG_SBQ_WAKE_BATCH, usable depth / RG_SBQ_WAIT_QUEUES), at least 1,
 *   so the tags in use when a waiter went to sleep are enough to wake every
 *   queue. A free that leaves no tag in use wakes every waiter, so the
 *   end of the work never leaves a waiter asleep with every tag free (a
 *   thread that keeps tags forever can still leave fewer than a batch of
 *   frees owed, as in the kernel). A clear with nobody waiting reads one shared word and writes
 *   nothing shared beyond its own bitmap word.
 *
 * Threads: get, get_shallow, get_batch, clear, clear_batch, wake_up and the
 * wait calls may run from any number of threads at once. init, resize,
 * min_shallow_depth, validate, dump and destroy need the caller to exclude
 * every other call on the instance (the kernel's users freeze the queue).
 *
 * Kernel names: <region/linux/sbitmap.h> (included by <region/linux.h>).
 */
#ifndef REGION_SBITMAP_H
#define REGION_SBITMAP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "region/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Wait queues per instance, and the largest wake batch. */
#define RG_SBQ_WAIT_QUEUES 8
#define RG_SBQ_WAKE_BATCH 8

/* Bytes of one bitmap word's cache line. */
#define RG_SBITMAP_LINE 64

/**
 * struct rg_sbitmap_word - one word of tags, alone on its cache line.
 * @word: allocated tags (bit set: in use or freed but not yet folded).
 * @cleared: tags freed since the last fold; each is also set in @word.
 * @usable: the bits of this word below the depth (read-only between
 *          resizes; 0 for words past the depth).
 */
struct rg_sbitmap_word {
	unsigned long word;
	unsigned long cleared;
	unsigned long usable;
	char pad[RG_SBITMAP_LINE - 3 * sizeof(unsigned long)];
};

/**
 * struct rg_sbitmap - the bitmap of an rg_sbitmap_queue; fields read-only.
 * @depth: tags in use: 0 .. depth - 1 can be handed out.
 * @shift: log2 of the tags per word (every word but the last is full).
 * @map_nr: words covering @depth.
 * @round_robin: tags are handed out in strict rotating order.
 * @map: the words (@capacity tags' worth, and one more that is never
 *       usable, where a hint just past the last tag lands).
 * @capacity: the depth given at creation; rg_sbitmap_queue_resize() stays
 *            at or below it.
 * @bit_mask: private: tags per word minus 1.
 * @id: private: names the instance in the threads' hints (never reused).
 * @priv: private: the instance's counters and wait queues.
 */
struct rg_sbitmap {
	unsigned int depth;
	unsigned int shift;
	unsigned int map_nr;
	bool round_robin;
	struct rg_sbitmap_word *map;
	unsigned int capacity;
	unsigned int bit_mask;
	uint64_t id;
	struct rgi_sbq_priv *priv;
};

struct rg_sbq_wait_state;

/**
 * struct rg_sbq_wait - one waiting thread's entry; initialise with
 * RG_SBQ_WAIT_INIT (or zero it) and treat the fields as private.
 * @next: private: the next waiter on the same queue.
 * @prev: private: the previous waiter on the same queue.
 * @ws: private: the queue the entry is on, NULL when on none.
 * @woken: private: the futex word the thread sleeps on; set by a wake.
 * @accounted: private: the entry is counted in the instance's ws_active.
 */
struct rg_sbq_wait {
	struct rg_sbq_wait *next, *prev;
	struct rg_sbq_wait_state *ws;
	int woken;
	int accounted;
};

#define RG_SBQ_WAIT_INIT               \
	{                              \
		NULL, NULL, NULL, 0, 0 \
	}

/**
 * struct rg_sbq_wait_state - one wait queue, alone on its cache line.
 * @lock: private: guards the list.
 * @head: private: the oldest waiter.
 * @tail: private: the newest waiter.
 * @nr: private: waiters on the list.
 */
struct rg_sbq_wait_state {
	pthread_mutex_t lock;
	struct rg_sbq_wait *head, *tail;
	unsigned int nr;
} __attribute__((aligned(RG_SBITMAP_LINE)));

/**
 * struct rg_sbitmap_queue - a tag allocator with wait queues.
 * @sb: the bitmap.
 * @wake_batch: frees per wake-up while threads wait (1 .. RG_SBQ_WAKE_BATCH).
 * @min_shallow_depth: the smallest shallow depth callers will use
 *                     (rg_sbitmap_queue_min_shallow_depth()); the wake
 *                     batch is computed from it.
 * @ws_active: threads between rg_sbitmap_prepare_to_wait() and
 *             rg_sbitmap_finish_wait().
 * @ws: the RG_SBQ_WAIT_QUEUES wait queues.
 */
struct rg_sbitmap_queue {
	struct rg_sbitmap sb;
	unsigned int wake_batch;
	unsigned int min_shallow_depth;
	int ws_active;
	struct rg_sbq_wait_state *ws;
};

/**
 * rg_sbitmap_queue_init() - create a tag allocator in caller-owned memory.
 * @sbq: the instance.
 * @depth: tags, 1 .. INT_MAX: tags 0 .. @depth - 1.
 * @shift: log2 of the tags per word, 0 .. 6; negative: a good default (64
 *         tags per word at most, and at least 4 words when @depth is 4 or
 *         more, so threads can spread).
 * @round_robin: hand tags out in strict rotating order (each search starts
 *               after the last tag handed out) instead of from the calling
 *               thread's own hint; slower, and it makes the threads share
 *               words.
 *
 * The instance's memory is one block: one cache line per word plus the
 * wait queues.
 *
 * Context: no other call on @sbq may run; allocates.
 * Return: 0; -EINVAL if @sbq is NULL, @depth is 0 or above INT_MAX or
 * @shift is above 6; -ENOMEM if memory ran out (@sbq is then zeroed and
 * holds nothing), or the error pthread_mutex_init() returned, negated.
 */
RG_API int rg_sbitmap_queue_init(struct rg_sbitmap_queue *sbq,
				 unsigned int depth, int shift,
				 bool round_robin);

/**
 * rg_sbitmap_queue_destroy() - free what an instance holds.
 * @sbq: the instance, or NULL (nothing happens).
 *
 * Tags still allocated are simply forgotten.
 *
 * Context: no other call on @sbq may run or follow, and no thread may be
 * waiting on it.
 */
RG_API void rg_sbitmap_queue_destroy(struct rg_sbitmap_queue *sbq);

/**
 * rg_sbitmap_queue_get() - allocate a free tag.
 * @sbq: the instance.
 *
 * The search starts at the calling thread's hint and goes through every
 * word. It fails only when every tag below the depth was allocated during
 * its search (with other threads freeing at the same time, a tag freed
 * after the search passed its word may be missed, as in the kernel).
 *
 * Context: any thread; lock-free; never allocates.
 * Return: the tag (0 .. depth - 1); -EAGAIN if every tag is in use;
 * -EINVAL if @sbq is NULL.
 */
RG_API int rg_sbitmap_queue_get(struct rg_sbitmap_queue *sbq);

/**
 * rg_sbitmap_queue_get_shallow() - allocate a tag from the low part of
 * each word.
 * @sbq: the instance.
 * @shallow_depth: tags usable per word: only the lowest @shallow_depth
 *                 tags of each word (all of it when larger) are tried.
 *
 * A class of callers limited this way (say to half of each word) can never
 * take the whole map from callers of rg_sbitmap_queue_get(). Tell the
 * instance the smallest value used with rg_sbitmap_queue_min_shallow_depth()
 * first, so the wake batch suits it.
 *
 * Context: any thread; lock-free; never allocates.
 * Return: the tag; -EAGAIN if no such tag is free; -EINVAL if @sbq is NULL
 * or @shallow_depth is 0.
 */
RG_API int rg_sbitmap_queue_get_shallow(struct rg_sbitmap_queue *sbq,
					unsigned int shallow_depth);

/**
 * rg_sbitmap_queue_get_batch() - allocate up to @nr_tags tags of one word.
 * @sbq: the instance.
 * @nr_tags: tags wanted, 1 .. the tags per word.
 * @offset: receives the tag of bit 0 of *@mask.
 * @mask: receives the tags allocated: bit i set for tag *@offset + i.
 *
 * From the calling thread's word onwards, the first word whose first free
 * tag is followed by room for @nr_tags tags within the word gets those
 * @nr_tags tags marked in one atomic step; the ones that were free are
 * yours: fewer than @nr_tags when some are held, or freed but not yet
 * folded (those stay free). The first free tag searched for is always
 * among them. The calling thread's hint moves to the tag after the
 * window.
 *
 * Context: any thread; lock-free; never allocates.
 * Return: the number of tags allocated (1 .. @nr_tags); -EAGAIN if no word
 * had room; -EINVAL if an argument is
 * NULL or @nr_tags is 0 or above the tags per word. On error *@offset and
 * *@mask are untouched.
 */
RG_API int rg_sbitmap_queue_get_batch(struct rg_sbitmap_queue *sbq,
				      unsigned int nr_tags,
				      unsigned int *offset,
				      unsigned long *mask);

/**
 * rg_sbitmap_queue_clear() - free a tag and wake waiters.
 * @sbq: the instance.
 * @tag: a tag rg_sbitmap_queue_get() (or a sibling) handed out.
 *
 * The tag becomes free at once for every thread (its bit goes into the
 * word's cleared mask, folded in by the next search that finds the word
 * full); the calling thread's hint moves to it unless the instance is
 * round-robin. While threads wait, the free counts towards the next
 * wake-up. A tag at or above the depth after a shrinking resize may be
 * freed; it is not handed out again unless the depth grows back.
 *
 * Context: any thread; lock-free unless it wakes waiters; never allocates.
 * Return: 0; -EINVAL if @sbq is NULL or @tag is not below the capacity;
 * -ENOENT if @tag is not allocated (nothing changes).
 */
RG_API int rg_sbitmap_queue_clear(struct rg_sbitmap_queue *sbq,
				  unsigned int tag);

/**
 * rg_sbitmap_queue_clear_batch() - free several tags and wake waiters.
 * @sbq: the instance.
 * @offset: subtracted from every entry of @tags.
 * @tags: the tags plus @offset.
 * @nr_tags: entries in @tags, 0 or more.
 *
 * Context: any thread; lock-free unless it wakes waiters; never allocates.
 * Return: 0; -EINVAL if @sbq or @tags (with @nr_tags above 0) is NULL,
 * @nr_tags is negative, or a tag minus @offset is not below the capacity
 * (then nothing is freed); -ENOENT if some tag was not allocated (the
 * others are still freed).
 */
RG_API int rg_sbitmap_queue_clear_batch(struct rg_sbitmap_queue *sbq,
					int offset, const int *tags,
					int nr_tags);

/**
 * rg_sbitmap_queue_resize() - change the depth without reallocating.
 * @sbq: the instance.
 * @depth: the new depth, 1 .. the capacity given at creation.
 *
 * Deferred clears are folded, the wake batch is recomputed, and every
 * waiter is woken to search again (a larger depth may have free tags for
 * it). Tags at or above a smaller depth that are in use stay allocated
 * until they are cleared.
 *
 * Context: no other call on @sbq may run.
 * Return: 0; -EINVAL if @sbq is NULL or @depth is 0 or above the capacity
 * (nothing changes).
 */
RG_API int rg_sbitmap_queue_resize(struct rg_sbitmap_queue *sbq,
				   unsigned int depth);

/**
 * rg_sbitmap_queue_min_shallow_depth() - declare the smallest shallow depth
 * callers will use.
 * @sbq: the instance.
 * @min_shallow_depth: the smallest @shallow_depth that will be passed to
 *                     rg_sbitmap_queue_get_shallow(), at least 1.
 *
 * The wake batch is recomputed from the tags such callers can reach, so a
 * waiter limited to shallow tags is still woken (too large a batch could
 * leave it asleep while every tag it may take is free).
 *
 * Context: no other call on @sbq may run.
 * Return: 0; -EINVAL if @sbq is NULL or @min_shallow_depth is 0.
 */
RG_API int rg_sbitmap_queue_min_shallow_depth(struct rg_sbitmap_queue *sbq,
					      unsigned int min_shallow_depth);

/**
 * rg_sbitmap_queue_wake_up() - count @nr frees and wake waiters if due.
 * @sbq: the instance.
 * @nr: frees to count.
 *
 * The clear calls call it; call it yourself only for frees made another
 * way. Nothing happens while nobody waits. Every wake_batch counted frees
 * wake up to wake_batch waiters, the queues taken in turn; a call that
 * wakes no batch and finds no tag in use wakes every waiter.
 *
 * Context: any thread; takes a wait queue's lock when it wakes.
 */
RG_API void rg_sbitmap_queue_wake_up(struct rg_sbitmap_queue *sbq,
				     unsigned int nr);

/**
 * rg_sbitmap_queue_wake_all() - wake every waiter.
 * @sbq: the instance.
 *
 * Context: any thread; takes each wait queue's lock.
 */
RG_API void rg_sbitmap_queue_wake_all(struct rg_sbitmap_queue *sbq);

/**
 * rg_sbitmap_queue_wait_ptr() - the wait queue a waiter should use next.
 * @sbq: the instance.
 * @wait_index: a counter of the caller's own (one per user of @sbq), 0 at
 *              first; advanced, so users spread over the queues.
 *
 * Context: any thread.
 * Return: a wait queue of @sbq; NULL if an argument is NULL.
 */
RG_API struct rg_sbq_wait_state *
rg_sbitmap_queue_wait_ptr(struct rg_sbitmap_queue *sbq,
			  unsigned int *wait_index);

/**
 * rg_sbitmap_prepare_to_wait() - queue the calling thread before a last try.
 * @sbq: the instance.
 * @ws: a wait queue of @sbq (rg_sbitmap_queue_wait_ptr()).
 * @wait: the thread's entry (RG_SBQ_WAIT_INIT the first time).
 *
 * The pattern, as in the kernel:
 *
 *	struct rg_sbq_wait wait = RG_SBQ_WAIT_INIT;
 *	for (;;) {
 *		rg_sbitmap_prepare_to_wait(sbq, ws, &wait);
 *		tag = rg_sbitmap_queue_get(sbq);
 *		if (tag >= 0)
 *			break;
 *		rg_sbitmap_wait_sleep(&wait);
 *	}
 *	rg_sbitmap_finish_wait(sbq, ws, &wait);
 *
 * A free after this call either is seen by the next get or counts towards
 * a wake-up of this entry: the thread cannot sleep through it.
 *
 * Context: any thread; takes @ws's lock.
 */
RG_API void rg_sbitmap_prepare_to_wait(struct rg_sbitmap_queue *sbq,
				       struct rg_sbq_wait_state *ws,
				       struct rg_sbq_wait *wait);

/**
 * rg_sbitmap_wait_sleep() - sleep until the entry is woken.
 * @wait: an entry queued by rg_sbitmap_prepare_to_wait().
 *
 * Returns at once if the entry was woken since it was queued. The thread
 * sleeps on a futex; it does not spin.
 *
 * Context: any thread; blocks.
 */
RG_API void rg_sbitmap_wait_sleep(struct rg_sbq_wait *wait);

/**
 * rg_sbitmap_finish_wait() - leave the wait queue.
 * @sbq: the instance.
 * @ws: the queue given to rg_sbitmap_prepare_to_wait().
 * @wait: the entry.
 *
 * After it returns, @wait may go out of scope.
 *
 * Context: any thread; takes @ws's lock.
 */
RG_API void rg_sbitmap_finish_wait(struct rg_sbitmap_queue *sbq,
				   struct rg_sbq_wait_state *ws,
				   struct rg_sbq_wait *wait);

/**
 * rg_sbitmap_queue_get_wait() - allocate a tag, sleeping until one is free.
 * @sbq: the instance.
 *
 * rg_sbitmap_queue_get(), then the waiting pattern of
 * rg_sbitmap_prepare_to_wait() on a queue chosen per thread.
 *
 * Context: any thread; may block.
 * Return: the tag; -EINVAL if @sbq is NULL.
 */
RG_API int rg_sbitmap_queue_get_wait(struct rg_sbitmap_queue *sbq);

/**
 * rg_sbitmap_weight() - count the tags in use.
 * @sb: the bitmap (&sbq->sb).
 *
 * Tags freed but not yet folded count as free.
 *
 * Context: any thread; a snapshot if others run at the same time.
 * Return: the number of tags below the depth in use; 0 if @sb is NULL.
 */
RG_API unsigned int rg_sbitmap_weight(const struct rg_sbitmap *sb);

/**
 * rg_sbitmap_any_bit_set() - tell whether any tag is in use.
 * @sb: the bitmap (&sbq->sb).
 *
 * Context: any thread; a snapshot if others run at the same time.
 * Return: true if a tag below the depth is in use; false otherwise or if
 * @sb is NULL.
 */
RG_API bool rg_sbitmap_any_bit_set(const struct rg_sbitmap *sb);

/**
 * rg_sbitmap_queue_validate() - check an instance's invariants.
 * @sbq: the instance.
 * @reason: if not NULL, receives a static description of the first broken
 *          invariant, or NULL when all hold.
 *
 * Checks the geometry (shift, words, depth within the capacity), that no
 * bit is set beyond the capacity, that every cleared bit is also set in
 * its word, the wake batch against its formula, and every wait queue's
 * list (links, counts, entries naming their queue, no more queued than
 * ws_active).
 *
 * Context: no other call on @sbq may run.
 * Return: 0 if every invariant holds; -EINVAL otherwise (also when @sbq
 * is NULL or not initialised).
 */
RG_API int rg_sbitmap_queue_validate(struct rg_sbitmap_queue *sbq,
				     const char **reason);

/**
 * rg_sbitmap_queue_dump() - print an instance for debugging.
 * @sbq: the instance.
 * @f: the stream.
 *
 * One header line (depth, capacity, shift, words, in use, wake batch,
 * waiters), then one line per word that has a tag in use or a cleared
 * one: its index, word and cleared mask in hex. The format may change.
 *
 * Context: no other call on @sbq may run.
 */
RG_API void rg_sbitmap_queue_dump(struct rg_sbitmap_queue *sbq, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* REGION_SBITMAP_H */
