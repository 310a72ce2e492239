// SPDX-License-Identifier: MIT
/*
 * Unit tests of the sbitmap tag allocator: geometry and bad input of every
 * call; every tag reachable through deferred clears; round-robin order;
 * the wake batch and its formula; waiters woken by wake_all and by batches
 * of frees; validate catching corruption; the kernel names of
 * linux/sbitmap.h; and a seeded single-thread run of get, get_shallow,
 * get_batch, clear, clear_batch and resize against a simple model (an
 * array of allocated flags), with validate and the weight checked after
 * every operation.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "region/linux/sbitmap.h"
#include "region/sbitmap.h"
#include "rg_test.h"

static unsigned int per_word(const struct rg_sbitmap_queue *q)
{
	return 1U << q->sb.shift;
}

static void test_init(void **state)
{
	struct rg_sbitmap_queue q;

	(void)state;
	assert_int_equal(rg_sbitmap_queue_init(NULL, 8, -1, false), -EINVAL);
	assert_int_equal(rg_sbitmap_queue_init(&q, 0, -1, false), -EINVAL);
	assert_int_equal(rg_sbitmap_queue_init(&q, 8, 7, false), -EINVAL);
	assert_int_equal(
		rg_sbitmap_queue_init(&q, (unsigned int)INT_MAX + 1, -1, false),
		-EINVAL);
	/* The default shift: at most 64 per word, at least 4 words. */
	assert_int_equal(rg_sbitmap_queue_init(&q, 128, -1, false), 0);
	assert_int_equal(q.sb.shift, 5);
	assert_int_equal(q.sb.map_nr, 4);
	assert_int_equal(q.sb.depth, 128);
	assert_int_equal(q.wake_batch, 8);
	RG_ASSERT_VALID(&q);
	rg_sbitmap_queue_destroy(&q);
	assert_int_equal(rg_sbitmap_queue_init(&q, 3, -1, false), 0);
	assert_int_equal(q.sb.shift, 6);
	assert_int_equal(q.sb.map_nr, 1);
	assert_int_equal(q.wake_batch, 1);
	rg_sbitmap_queue_destroy(&q);
	assert_int_equal(rg_sbitmap_queue_init(&q, 1000, -1, false), 0);
	assert_int_equal(q.sb.shift, 6);
	assert_int_equal(q.sb.map_nr, 16);
	rg_sbitmap_queue_destroy(&q);
	assert_int_equal(rg_sbitmap_queue_init(&q, 100, 2, false), 0);
	assert_int_equal(q.sb.shift, 2);
	assert_int_equal(q.sb.map_nr, 25);
	RG_ASSERT_VALID(&q);
	rg_sbitmap_queue_destroy(&q);
	rg_sbitmap_queue_destroy(&q); /* zeroed: nothing happens */
	rg_sbitmap_queue_destroy(NULL);
}

static void test_bad_input(void **state)
{
	struct rg_sbitmap_queue q;
	unsigned int off = 99;
	unsigned long mask = 99;
	int tags[2] = { 0, 500 };

	(void)state;
	assert_int_equal(rg_sbitmap_queue_get(NULL), -EINVAL);
	assert_int_equal(rg_sbitmap_queue_get_shallow(NULL, 1), -EINVAL);
	assert_int_equal(rg_sbitmap_queue_get_wait(NULL), -EINVAL);
	assert_int_equal(rg_sbitmap_queue_clear(NULL, 0), -EINVAL);
	assert_int_equal(rg_sbitmap_queue_clear_batch(NULL, 0, tags, 1),
			 -EINVAL);
	assert_int_equal(rg_sbitmap_queue_resize(NULL, 1), -EINVAL);
	assert_int_equal(rg_sbitmap_queue_min_shallow_depth(NULL, 1), -EINVAL);
	assert_int_equal(rg_sbitmap_queue_validate(NULL, NULL), -EINVAL);
	assert_int_equal(rg_sbitmap_weight(NULL), 0);
	assert_false(rg_sbitmap_any_bit_set(NULL));
	assert_null(rg_sbitmap_queue_wait_ptr(NULL, &off));
	rg_sbitmap_queue_wake_up(NULL, 1);
	rg_sbitmap_queue_wake_all(NULL);
	rg_sbitmap_prepare_to_wait(NULL, NULL, NULL);
	rg_sbitmap_finish_wait(NULL, NULL, NULL);
	rg_sbitmap_wait_sleep(NULL);
	rg_sbitmap_queue_dump(NULL, stderr);

	assert_int_equal(rg_sbitmap_queue_init(&q, 64, 4, false), 0);
	assert_int_equal(rg_sbitmap_queue_get_shallow(&q, 0), -EINVAL);
	assert_int_equal(rg_sbitmap_queue_clear(&q, 64), -EINVAL);
	assert_int_equal(rg_sbitmap_queue_clear(&q, 3), -ENOENT);
	assert_int_equal(rg_sbitmap_queue_get_batch(&q, 0, &off, &mask),
			 -EINVAL);
	assert_int_equal(rg_sbitmap_queue_get_batch(&q, 17, &off, &mask),
			 -EINVAL);
	assert_int_equal(rg_sbitmap_queue_get_batch(&q, 2, NULL, &mask),
			 -EINVAL);
	assert_int_equal(off, 99);
	assert_int_equal(mask, 99);
	/* A tag past the capacity in a batch: nothing is freed. */
	tags[0] = rg_sbitmap_queue_get(&q);
	assert_true(tags[0] >= 0);
	assert_int_equal(rg_sbitmap_queue_clear_batch(&q, 0, tags, 2), -EINVAL);
	assert_int_equal(rg_sbitmap_queue_clear_batch(&q, 0, NULL, 1), -EINVAL);
	assert_int_equal(rg_sbitmap_queue_clear_batch(&q, 0, tags, -1),
			 -EINVAL);
	assert_int_equal(rg_sbitmap_weight(&q.sb), 1);
	assert_int_equal(rg_sbitmap_queue_clear_batch(&q, 0, NULL, 0), 0);
	assert_int_equal(rg_sbitmap_queue_clear_batch(&q, 0, tags, 1), 0);
	assert_int_equal(rg_sbitmap_weight(&q.sb), 0);
	rg_sbitmap_queue_destroy(&q);
}

/* Take every tag; each is new and below the depth; then -EAGAIN. */
static void take_all(struct rg_sbitmap_queue *q, unsigned char *seen)
{
	memset(seen, 0, q->sb.depth);
	for (unsigned int i = 0; i < q->sb.depth; i++) {
		int tag = rg_sbitmap_queue_get(q);

		assert_true(tag >= 0 && (unsigned int)tag < q->sb.depth);
		assert_false(seen[tag]);
		seen[tag] = 1;
	}
	assert_int_equal(rg_sbitmap_queue_get(q), -EAGAIN);
	assert_int_equal(rg_sbitmap_weight(&q->sb), q->sb.depth);
}

static void test_every_tag_reachable(void **state)
{
	static const unsigned int depths[] = { 1, 3, 64, 100, 128, 1000 };
	unsigned char seen[1000];

	(void)state;
	for (size_t d = 0; d < RGT_ARRAY_SIZE(depths); d++) {
		struct rg_sbitmap_queue q;

		assert_int_equal(
			rg_sbitmap_queue_init(&q, depths[d], -1, false), 0);
		assert_false(rg_sbitmap_any_bit_set(&q.sb));
		take_all(&q, seen);
		assert_true(rg_sbitmap_any_bit_set(&q.sb));
		for (unsigned int t = 0; t < depths[d]; t++)
			assert_int_equal(rg_sbitmap_queue_clear(&q, t), 0);
		/* Freed, not yet folded: free to every question. */
		assert_int_equal(rg_sbitmap_weight(&q.sb), 0);
		assert_false(rg_sbitmap_any_bit_set(&q.sb));
		assert_int_equal(rg_sbitmap_queue_clear(&q, 0), -ENOENT);
		RG_ASSERT_VALID(&q);
		take_all(&q, seen); /* every deferred clear is folded */
		RG_ASSERT_VALID(&q);
		rg_sbitmap_queue_destroy(&q);
	}
}

/* A get+clear loop stays in the thread's word and finds the tag freed. */
static void test_steady_pairs(void **state)
{
	struct rg_sbitmap_queue q;

	(void)state;
	assert_int_equal(rg_sbitmap_queue_init(&q, 128, -1, false), 0);
	for (int i = 0; i < 10000; i++) {
		int tag = rg_sbitmap_queue_get(&q);

		assert_true(tag >= 0 && tag < 128);
		assert_int_equal(rg_sbitmap_weight(&q.sb), 1);
		assert_int_equal(rg_sbitmap_queue_clear(&q, (unsigned int)tag),
				 0);
		assert_int_equal(rg_sbitmap_queue_clear(&q, (unsigned int)tag),
				 -ENOENT);
	}
	RG_ASSERT_VALID(&q);
	rg_sbitmap_queue_destroy(&q);
}

static void test_round_robin(void **state)
{
	struct rg_sbitmap_queue q;

	(void)state;
	assert_int_equal(rg_sbitmap_queue_init(&q, 10, 2, true), 0);
	assert_true(q.sb.round_robin);
	for (int i = 0; i < 4; i++)
		assert_int_equal(rg_sbitmap_queue_get(&q), i);
	assert_int_equal(rg_sbitmap_queue_clear(&q, 1), 0);
	/* Strict order: 1 is free but the next tag is 4. */
	for (int i = 4; i < 10; i++)
		assert_int_equal(rg_sbitmap_queue_get(&q), i);
	/* Round again: the free tag 1. */
	assert_int_equal(rg_sbitmap_queue_get(&q), 1);
	assert_int_equal(rg_sbitmap_queue_get(&q), -EAGAIN);
	assert_int_equal(rg_sbitmap_queue_clear(&q, 7), 0);
	assert_int_equal(rg_sbitmap_queue_clear(&q, 3), 0);
	assert_int_equal(rg_sbitmap_queue_get(&q), 3);
	assert_int_equal(rg_sbitmap_queue_get(&q), 7);
	RG_ASSERT_VALID(&q);
	rg_sbitmap_queue_destroy(&q);
}

static void test_shallow_and_batch(void **state)
{
	struct rg_sbitmap_queue q;
	unsigned int off;
	unsigned long mask;
	int tags[16], n = 0, tag;

	(void)state;
	assert_int_equal(rg_sbitmap_queue_init(&q, 64, 4, false), 0);
	/* Shallow 2 of each 16-tag word: 8 tags, low two of each word. */
	for (int i = 0; i < 8; i++) {
		tag = rg_sbitmap_queue_get_shallow(&q, 2);
		assert_true(tag >= 0 && (tag & 15) < 2);
		tags[n++] = tag;
	}
	assert_int_equal(rg_sbitmap_queue_get_shallow(&q, 2), -EAGAIN);
	tag = rg_sbitmap_queue_get_shallow(&q, 3);
	assert_true(tag >= 0 && (tag & 15) == 2);
	tags[n++] = tag;
	assert_int_equal(rg_sbitmap_queue_clear_batch(&q, 5, (int[]){ 70 }, 1),
			 -EINVAL);
	for (int i = 0; i < n; i++)
		tags[i] += 5;
	assert_int_equal(rg_sbitmap_queue_clear_batch(&q, 5, tags, n), 0);
	assert_int_equal(rg_sbitmap_weight(&q.sb), 0);
	assert_int_equal(rg_sbitmap_queue_clear_batch(&q, 5, tags, 1), -ENOENT);
	/* A batch of 16: a whole word. */
	assert_int_equal(rg_sbitmap_queue_get_batch(&q, 16, &off, &mask), 16);
	assert_int_equal(off % 16, 0);
	assert_int_equal(mask, 0xffff);
	assert_int_equal(rg_sbitmap_weight(&q.sb), 16);
	RG_ASSERT_VALID(&q);
	rg_sbitmap_queue_destroy(&q);
}

static void test_resize(void **state)
{
	struct rg_sbitmap_queue q;
	unsigned char seen[100];

	(void)state;
	assert_int_equal(rg_sbitmap_queue_init(&q, 100, -1, false), 0);
	assert_int_equal(rg_sbitmap_queue_resize(&q, 0), -EINVAL);
	assert_int_equal(rg_sbitmap_queue_resize(&q, 101), -EINVAL);
	assert_int_equal(q.sb.depth, 100);
	take_all(&q, seen);
	/* Shrink with every tag held: those above stay held, clearable. */
	assert_int_equal(rg_sbitmap_queue_resize(&q, 10), 0);
	RG_ASSERT_VALID(&q);
	assert_int_equal(q.sb.map_nr, 1);
	assert_int_equal(rg_sbitmap_weight(&q.sb), 10);
	for (unsigned int t = 0; t < 100; t++)
		assert_int_equal(rg_sbitmap_queue_clear(&q, t), 0);
	take_all(&q, seen);
	assert_int_equal(rg_sbitmap_queue_get(&q), -EAGAIN);
	/* Grow back: the tags above 10 are free again. */
	assert_int_equal(rg_sbitmap_queue_resize(&q, 100), 0);
	RG_ASSERT_VALID(&q);
	for (unsigned int i = 10; i < 100; i++) {
		int tag = rg_sbitmap_queue_get(&q);

		assert_true(tag >= 10 && tag < 100);
	}
	assert_int_equal(rg_sbitmap_queue_get(&q), -EAGAIN);
	rg_sbitmap_queue_destroy(&q);
}

static void test_wake_batch(void **state)
{
	struct rg_sbitmap_queue q;

	(void)state;
	assert_int_equal(rg_sbitmap_queue_init(&q, 16, -1, false), 0);
	assert_int_equal(q.wake_batch, 2);
	rg_sbitmap_queue_destroy(&q);
	assert_int_equal(rg_sbitmap_queue_init(&q, 128, 5, false), 0);
	assert_int_equal(q.wake_batch, 8);
	assert_int_equal(rg_sbitmap_queue_min_shallow_depth(&q, 0), -EINVAL);
	/* 4 words x 4 shallow tags = 16 usable: a batch of 2. */
	assert_int_equal(rg_sbitmap_queue_min_shallow_depth(&q, 4), 0);
	assert_int_equal(q.wake_batch, 2);
	assert_int_equal(q.min_shallow_depth, 4);
	RG_ASSERT_VALID(&q);
	assert_int_equal(rg_sbitmap_queue_resize(&q, 8), 0);
	assert_int_equal(q.wake_batch, 1);
	RG_ASSERT_VALID(&q);
	rg_sbitmap_queue_destroy(&q);
}

/* A queued entry is woken by the 8th free of a queue with batch 8. */
static void test_waiters(void **state)
{
	struct rg_sbitmap_queue q;
	struct rg_sbq_wait wait = RG_SBQ_WAIT_INIT;
	struct rg_sbq_wait_state *ws;
	unsigned int idx = 0;
	unsigned char seen[64];
	int tag;

	(void)state;
	assert_int_equal(rg_sbitmap_queue_init(&q, 64, -1, false), 0);
	assert_int_equal(q.wake_batch, 8);
	ws = rg_sbitmap_queue_wait_ptr(&q, &idx);
	assert_ptr_equal(ws, &q.ws[0]);
	assert_int_equal(idx, 1);
	assert_ptr_equal(rg_sbitmap_queue_wait_ptr(&q, &idx), &q.ws[1]);
	take_all(&q, seen);
	rg_sbitmap_prepare_to_wait(&q, ws, &wait);
	rg_sbitmap_prepare_to_wait(&q, ws, &wait); /* once is counted */
	assert_int_equal(q.ws_active, 1);
	assert_int_equal(ws->nr, 1);
	RG_ASSERT_VALID(&q);
	for (unsigned int t = 0; t < 7; t++) {
		assert_int_equal(rg_sbitmap_queue_clear(&q, t), 0);
		assert_int_equal(wait.woken, 0);
	}
	assert_int_equal(rg_sbitmap_queue_clear(&q, 7), 0);
	assert_int_equal(wait.woken, 1);
	assert_null(wait.ws);
	assert_int_equal(ws->nr, 0);
	rg_sbitmap_wait_sleep(&wait); /* woken: returns at once */
	rg_sbitmap_finish_wait(&q, ws, &wait);
	assert_int_equal(q.ws_active, 0);
	RG_ASSERT_VALID(&q);
	/* wake_all takes every queue; finish_wait of a queued entry. */
	rg_sbitmap_prepare_to_wait(&q, &q.ws[3], &wait);
	assert_int_equal(wait.woken, 0);
	rg_sbitmap_queue_wake_all(&q);
	assert_int_equal(wait.woken, 1);
	rg_sbitmap_prepare_to_wait(&q, &q.ws[5], &wait);
	assert_ptr_equal(wait.ws, &q.ws[5]);
	rg_sbitmap_finish_wait(&q, &q.ws[5], &wait);
	assert_null(wait.ws);
	assert_int_equal(q.ws_active, 0);
	/* Nobody waits: frees wake nobody and count nothing. */
	assert_int_equal(rg_sbitmap_queue_clear(&q, 8), 0);
	tag = rg_sbitmap_queue_get_wait(&q);
	assert_true(tag >= 0 && tag <= 8);
	RG_ASSERT_VALID(&q);
	rg_sbitmap_queue_destroy(&q);
}

static void test_validate(void **state)
{
	struct rg_sbitmap_queue q;
	const char *why = "x";
	struct rg_sbq_wait wait = RG_SBQ_WAIT_INIT;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	memset(&q, 0, sizeof(q));
	assert_int_equal(rg_sbitmap_queue_validate(&q, &why), -EINVAL);
	assert_string_equal(why, "not initialised");
	assert_int_equal(rg_sbitmap_queue_init(&q, 100, -1, false), 0);
	assert_int_equal(rg_sbitmap_queue_validate(&q, &why), 0);
	assert_null(why);
	assert_int_equal(rg_sbitmap_queue_get(&q), 0);
	assert_int_equal(rg_sbitmap_queue_get(&q), 1);
	q.sb.map[1].cleared = 1; /* cleared but not set in the word */
	assert_int_equal(rg_sbitmap_queue_validate(&q, &why), -EINVAL);
	assert_string_equal(why, "a cleared bit is not set in its word");
	q.sb.map[1].cleared = 0;
	q.sb.map[6].word = 1UL << 4; /* tag 100: past the capacity */
	assert_int_equal(rg_sbitmap_queue_validate(&q, &why), -EINVAL);
	assert_string_equal(why, "a bit is set beyond the capacity");
	q.sb.map[6].word = 0;
	q.wake_batch = 3;
	assert_int_equal(rg_sbitmap_queue_validate(&q, &why), -EINVAL);
	q.wake_batch = 8;
	q.sb.map_nr = 3;
	assert_int_equal(rg_sbitmap_queue_validate(&q, &why), -EINVAL);
	q.sb.map_nr = 7;
	rg_sbitmap_prepare_to_wait(&q, &q.ws[2], &wait);
	q.ws_active = 0;
	assert_int_equal(rg_sbitmap_queue_validate(&q, &why), -EINVAL);
	assert_string_equal(why, "more waiters queued than ws_active counts");
	q.ws_active = 1;
	q.ws[2].nr = 2;
	assert_int_equal(rg_sbitmap_queue_validate(&q, &why), -EINVAL);
	assert_string_equal(why, "a wait queue's list is broken");
	q.ws[2].nr = 1;
	rg_sbitmap_finish_wait(&q, &q.ws[2], &wait);
	RG_ASSERT_VALID(&q);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	rg_sbitmap_queue_dump(&q, f);
	fclose(f);
	assert_non_null(strstr(buf, "depth 100 capacity 100 shift 4 words 7 "
				    "in use 2"));
	assert_non_null(strstr(buf, "word 0: 0000000000000003"));
	free(buf);
	rg_sbitmap_queue_destroy(&q);
}

/* The kernel's names, types and fields. */
static void test_linux_names(void **state)
{
	struct sbitmap_queue sbq;
	unsigned int cpu = 99, off = 0, widx = 0;
	unsigned long mask;
	int tag, tags[4];
	DEFINE_SBQ_WAIT(wait);
	struct sbq_wait_state *ws;

	(void)state;
	assert_int_equal(
		sbitmap_queue_init_node(&sbq, 0, -1, false, GFP_KERNEL, -1),
		-EINVAL);
	assert_int_equal(
		sbitmap_queue_init_node(&sbq, 32, -1, false, GFP_KERNEL, -1),
		0);
	assert_int_equal(sbq.sb.depth, 32);
	assert_int_equal(sbq.sb.shift, 3);
	assert_int_equal(sbq.sb.map_nr, 4);
	assert_false(sbq.sb.round_robin);
	assert_int_equal(SBQ_WAIT_QUEUES, 8);
	tag = sbitmap_queue_get(&sbq, &cpu);
	assert_true(tag >= 0 && tag < 32);
	assert_int_equal(cpu, 0);
	assert_int_equal(sbitmap_weight(&sbq.sb), 1);
	assert_true(sbitmap_any_bit_set(&sbq.sb));
	sbitmap_queue_clear(&sbq, (unsigned int)tag, cpu);
	sbitmap_queue_clear(&sbq, (unsigned int)tag, cpu); /* ignored */
	assert_int_equal(sbitmap_weight(&sbq.sb), 0);
	mask = __sbitmap_queue_get_batch(&sbq, 4, &off);
	assert_int_equal(mask, 0xf);
	assert_int_equal(__sbitmap_queue_get_batch(&sbq, 0, &off), 0);
	for (int i = 0; i < 4; i++)
		tags[i] = (int)off + i + 100;
	sbitmap_queue_clear_batch(&sbq, 100, tags, 4);
	assert_false(sbitmap_any_bit_set(&sbq.sb));
	sbitmap_queue_min_shallow_depth(&sbq, 1);
	assert_int_equal(sbq.min_shallow_depth, 1);
	assert_int_equal(sbq.wake_batch, 1);
	for (int i = 0; i < 4; i++) {
		tag = sbitmap_queue_get_shallow(&sbq, 1);
		assert_int_equal(tag % 8, 0);
	}
	assert_int_equal(sbitmap_queue_get_shallow(&sbq, 1), -1);
	sbitmap_queue_resize(&sbq, 2);
	assert_int_equal(sbq.sb.depth, 2);
	sbitmap_queue_resize(&sbq, 1000); /* ignored */
	assert_int_equal(sbq.sb.depth, 2);
	assert_int_equal(__sbitmap_queue_get(&sbq), 1);
	assert_int_equal(__sbitmap_queue_get(&sbq), -1);
	ws = sbq_wait_ptr(&sbq, &widx);
	sbitmap_prepare_to_wait(&sbq, ws, &wait, TASK_UNINTERRUPTIBLE);
	assert_int_equal(sbq.ws_active, 1);
	sbitmap_queue_wake_up(&sbq, 1);
	assert_int_equal(wait.woken, 1);
	sbitmap_queue_wake_all(&sbq);
	sbitmap_finish_wait(&sbq, ws, &wait);
	assert_int_equal(sbq.ws_active, 0);
	sbitmap_queue_free(&sbq);
}

/* ---- a seeded run against a model ---- */

#define MCAP 200

struct model {
	unsigned char used[MCAP];
	unsigned int depth;
};

static unsigned int model_weight(const struct model *m)
{
	unsigned int n = 0;

	for (unsigned int t = 0; t < m->depth; t++)
		n += m->used[t];
	return n;
}

/* A free tag below the depth whose bit in its word is below @shallow? */
static bool model_has_free(const struct model *m, unsigned int mask,
			   unsigned int shallow)
{
	for (unsigned int t = 0; t < m->depth; t++)
		if (!m->used[t] && (t & mask) < shallow)
			return true;
	return false;
}

static void check_tag(struct model *m, int tag, unsigned int mask,
		      unsigned int shallow)
{
	assert_true(tag >= 0 && (unsigned int)tag < m->depth);
	assert_false(m->used[tag]);
	assert_true(((unsigned int)tag & mask) < shallow);
	m->used[tag] = 1;
}

/* Would a batch of @n find room: some word's first free tag + n fits. */
static bool model_batch_room(const struct model *m, unsigned int per,
			     unsigned int n)
{
	for (unsigned int w = 0; w * per < m->depth; w++) {
		unsigned int wd =
			m->depth - w * per < per ? m->depth - w * per : per;
		unsigned int f = 0;

		while (f < wd && m->used[w * per + f])
			f++;
		if (f < wd && f + n <= wd)
			return true;
	}
	return false;
}

static void run_model(struct rg_rand *r, unsigned int cap, int shift)
{
	struct rg_sbitmap_queue q;
	struct model m;
	unsigned int per, mask;

	memset(&m, 0, sizeof(m));
	m.depth = cap;
	assert_int_equal(rg_sbitmap_queue_init(&q, cap, shift, false), 0);
	per = per_word(&q);
	mask = per - 1;
	for (int op = 0; op < 4000; op++) {
		unsigned int k = (unsigned int)rg_rand_below(r, 100);
		int tag, err;

		if (k < 30) {
			tag = rg_sbitmap_queue_get(&q);
			if (model_has_free(&m, mask, UINT_MAX))
				check_tag(&m, tag, mask, UINT_MAX);
			else
				assert_int_equal(tag, -EAGAIN);
		} else if (k < 40) {
			unsigned int sh =
				1 + (unsigned int)rg_rand_below(r, per + 1);

			tag = rg_sbitmap_queue_get_shallow(&q, sh);
			if (model_has_free(&m, mask, sh))
				check_tag(&m, tag, mask, sh);
			else
				assert_int_equal(tag, -EAGAIN);
		} else if (k < 47) {
			unsigned int n =
				1 + (unsigned int)rg_rand_below(r, per);
			unsigned int off = 0;
			unsigned long got = 0;
			bool room = model_batch_room(&m, per, n);

			err = rg_sbitmap_queue_get_batch(&q, n, &off, &got);
			if (!room) {
				assert_int_equal(err, -EAGAIN);
				continue;
			}
			assert_int_equal(err, __builtin_popcountl(got));
			assert_true(got & 1);
			assert_true(off % per + n <= per && off + n <= m.depth);
			for (unsigned int i = 0; i < n; i++) {
				if (got & (1UL << i))
					check_tag(&m, (int)(off + i), mask,
						  UINT_MAX);
			}
			assert_true((got >> n) == 0);
		} else if (k < 80) {
			unsigned int t = (unsigned int)rg_rand_below(r, cap);

			err = rg_sbitmap_queue_clear(&q, t);
			assert_int_equal(err, m.used[t] ? 0 : -ENOENT);
			m.used[t] = 0;
		} else if (k < 90) {
			int tags[8], n = 0, off = (int)rg_rand_below(r, 50);

			for (unsigned int t =
				     (unsigned int)rg_rand_below(r, cap);
			     t < cap && n < 8;
			     t += 1 + (unsigned int)rg_rand_below(r, 9))
				if (m.used[t]) {
					tags[n++] = (int)t + off;
					m.used[t] = 0;
				}
			assert_int_equal(
				rg_sbitmap_queue_clear_batch(&q, off, tags, n),
				0);
		} else if (k < 92) {
			unsigned int d =
				1 + (unsigned int)rg_rand_below(r, cap);

			assert_int_equal(rg_sbitmap_queue_resize(&q, d), 0);
			m.depth = d;
		}
		RG_ASSERT_VALIDF(&q, "op %d", op);
		assert_int_equal(rg_sbitmap_weight(&q.sb), model_weight(&m));
		assert_int_equal(rg_sbitmap_any_bit_set(&q.sb),
				 model_weight(&m) != 0);
	}
	rg_sbitmap_queue_destroy(&q);
}

static void test_model(void **state)
{
	struct rg_rand r;

	(void)state;
	rg_rand_seed(&r, rg_test_seed());
	run_model(&r, 128, -1);
	run_model(&r, 200, -1);
	run_model(&r, 77, 3);
	run_model(&r, 5, 0);
	run_model(&r, 130, 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_every_tag_reachable),
		cmocka_unit_test(test_steady_pairs),
		cmocka_unit_test(test_round_robin),
		cmocka_unit_test(test_shallow_and_batch),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_wake_batch),
		cmocka_unit_test(test_waiters),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_linux_names),
		cmocka_unit_test(test_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
