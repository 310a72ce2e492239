/* SPDX-License-Identifier: MIT */
/*
 * Kernel names for the scalable tag allocator (sbitmap_queue_*), over
 * rg_sbitmap_queue_*; included by <region/linux.h>.
 *
 * Usage:
 *	struct sbitmap_queue tags;
 *	unsigned int cpu;
 *	if (sbitmap_queue_init_node(&tags, 128, -1, false, GFP_KERNEL, -1))
 *		return -ENOMEM;
 *	int tag = sbitmap_queue_get(&tags, &cpu);	// tag, or -1
 *	sbitmap_queue_clear(&tags, tag, cpu);
 *	sbitmap_queue_free(&tags);
 *
 * Waiting, as the kernel's callers do, with rg_sbitmap_wait_sleep() where
 * they call io_schedule():
 *	DEFINE_SBQ_WAIT(wait);
 *	struct sbq_wait_state *ws = sbq_wait_ptr(&tags, &my_wait_index);
 *	for (;;) {
 *		sbitmap_prepare_to_wait(&tags, ws, &wait, TASK_UNINTERRUPTIBLE);
 *		tag = sbitmap_queue_get(&tags, &cpu);
 *		if (tag >= 0)
 *			break;
 *		rg_sbitmap_wait_sleep(&wait);
 *	}
 *	sbitmap_finish_wait(&tags, ws, &wait);
 *
 * The types are libregion's, under the kernel's names (struct sbitmap is
 * struct rg_sbitmap, by macro), so the fields the kernel's callers read
 * exist: sbq->sb.depth, sbq->sb.shift, sbq->sb.map_nr, sbq->sb.round_robin,
 * sbq->wake_batch, sbq->min_shallow_depth, sbq->ws_active, sbq->ws.
 *
 * Differences from the kernel: allocation hints are per thread, not per
 * CPU, so the @cpu of sbitmap_queue_get() is set to 0 and the @cpu of
 * sbitmap_queue_clear() is ignored (the clearing thread's hint moves);
 * sbq_wait_ptr() takes an unsigned int counter instead of an atomic_t;
 * gfp, node and task-state arguments are accepted and ignored. Bad input
 * that the kernel would warn about (clearing a free tag, a depth above the
 * initial one) is ignored; call the rg_ names to get the -errno.
 */
#ifndef REGION_LINUX_SBITMAP_H
#define REGION_LINUX_SBITMAP_H

#include "region/linux/types.h"
#include "region/sbitmap.h"

#ifdef __cplusplus
extern "C" {
#endif

#define sbitmap_word rg_sbitmap_word
#define sbitmap rg_sbitmap
#define sbitmap_queue rg_sbitmap_queue
#define sbq_wait_state rg_sbq_wait_state
#define sbq_wait rg_sbq_wait

#define SBQ_WAIT_QUEUES RG_SBQ_WAIT_QUEUES
#define SBQ_WAKE_BATCH RG_SBQ_WAKE_BATCH

#ifndef TASK_UNINTERRUPTIBLE
#define TASK_INTERRUPTIBLE 1
#define TASK_UNINTERRUPTIBLE 2
#endif

#define DEFINE_SBQ_WAIT(name) struct rg_sbq_wait name = RG_SBQ_WAIT_INIT

static inline int sbitmap_queue_init_node(struct rg_sbitmap_queue *sbq,
					  unsigned int depth, int shift,
					  bool round_robin, gfp_t flags,
					  int node)
{
	(void)flags;
	(void)node;
	return rg_sbitmap_queue_init(sbq, depth, shift, round_robin);
}

static inline void sbitmap_queue_free(struct rg_sbitmap_queue *sbq)
{
	rg_sbitmap_queue_destroy(sbq);
}

static inline void sbitmap_queue_resize(struct rg_sbitmap_queue *sbq,
					unsigned int depth)
{
	(void)rg_sbitmap_queue_resize(sbq, depth);
}

static inline int __sbitmap_queue_get(struct rg_sbitmap_queue *sbq)
{
	int tag = rg_sbitmap_queue_get(sbq);

	return tag < 0 ? -1 : tag;
}

static inline int sbitmap_queue_get(struct rg_sbitmap_queue *sbq,
				    unsigned int *cpu)
{
	*cpu = 0;
	return __sbitmap_queue_get(sbq);
}

static inline int sbitmap_queue_get_shallow(struct rg_sbitmap_queue *sbq,
					    unsigned int shallow_depth)
{
	int tag = rg_sbitmap_queue_get_shallow(sbq, shallow_depth);

	return tag < 0 ? -1 : tag;
}

static inline unsigned long
__sbitmap_queue_get_batch(struct rg_sbitmap_queue *sbq, int nr_tags,
			  unsigned int *offset)
{
	unsigned long mask = 0;

	if (nr_tags <= 0 ||
	    rg_sbitmap_queue_get_batch(sbq, (unsigned int)nr_tags, offset,
				       &mask) < 0)
		return 0;
	return mask;
}

static inline void
sbitmap_queue_min_shallow_depth(struct rg_sbitmap_queue *sbq,
				unsigned int min_shallow_depth)
{
	(void)rg_sbitmap_queue_min_shallow_depth(sbq, min_shallow_depth);
}

static inline void sbitmap_queue_clear(struct rg_sbitmap_queue *sbq,
				       unsigned int nr, unsigned int cpu)
{
	(void)cpu;
	(void)rg_sbitmap_queue_clear(sbq, nr);
}

static inline void sbitmap_queue_clear_batch(struct rg_sbitmap_queue *sbq,
					     int offset, int *tags, int nr_tags)
{
	(void)rg_sbitmap_queue_clear_batch(sbq, offset, tags, nr_tags);
}

static inline void sbitmap_queue_wake_up(struct rg_sbitmap_queue *sbq, int nr)
{
	if (nr > 0)
		rg_sbitmap_queue_wake_up(sbq, (unsigned int)nr);
}

static inline void sbitmap_queue_wake_all(struct rg_sbitmap_queue *sbq)
{
	rg_sbitmap_queue_wake_all(sbq);
}

static inline struct rg_sbq_wait_state *
sbq_wait_ptr(struct rg_sbitmap_queue *sbq, unsigned int *wait_index)
{
	return rg_sbitmap_queue_wait_ptr(sbq, wait_index);
}

static inline void sbitmap_prepare_to_wait(struct rg_sbitmap_queue *sbq,
					   struct rg_sbq_wait_state *ws,
					   struct rg_sbq_wait *wait, int state)
{
	(void)state;
	rg_sbitmap_prepare_to_wait(sbq, ws, wait);
}

static inline void sbitmap_finish_wait(struct rg_sbitmap_queue *sbq,
				       struct rg_sbq_wait_state *ws,
				       struct rg_sbq_wait *wait)
{
	rg_sbitmap_finish_wait(sbq, ws, wait);
}

static inline unsigned int sbitmap_weight(const struct rg_sbitmap *sb)
{
	return rg_sbitmap_weight(sb);
}

static inline bool sbitmap_any_bit_set(const struct rg_sbitmap *sb)
{
	return rg_sbitmap_any_bit_set(sb);
}

#ifdef __cplusplus
}
#endif

#endif /* REGION_LINUX_SBITMAP_H */
