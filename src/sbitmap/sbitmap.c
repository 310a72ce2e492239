// SPDX-License-Identifier: MIT
/*
 * sbitmap: theory of operation.
 *
 * Memory. One block per instance, 64-byte aligned: the shared counters
 * (struct rgi_sbq_priv, one line), the RG_SBQ_WAIT_QUEUES wait queues (one
 * line each), then one line per bitmap word for the capacity. A word line
 * holds the word (allocated bits) and its cleared mask (freed bits not yet
 * folded). Nothing else is written on the get/clear paths, so threads that
 * work in different words share no written line.
 *
 * Hints. Each thread keeps one (instance id, hint) pair in thread-local
 * storage, for the last instance it used, as the slab's per-thread state
 * does: one compare on the fast path. Ids come from a global counter and
 * are never reused, so a stale pair never matches a new instance; a thread
 * that moves to another instance starts again from its start word. A
 * thread's start word comes from its ordinal (given once per thread from a
 * global counter): ordinals 0, 1, 2, ... map to words 0, 2, 4, ... then 1,
 * 3, ..., so threads started one after the other begin on different lines.
 * Not round-robin: a get moves the hint to the tag after the one handed
 * out, a clear moves the clearing thread's hint to the freed tag, so a
 * thread cycles through its own word. Round-robin instances have the top
 * bit set in their id, which no pair holds: their gets always take the
 * general path, and clears never move a hint.
 *
 * Get. From the hint's word: find a zero bit at or after the hint's bit
 * (then, not round-robin, anywhere in the word); claim it with an atomic
 * fetch-or (lost race: look again). A word with no zero bit in the range is
 * "full": if its cleared mask is not empty, fold it (exchange it with 0 and
 * clear those bits in the word) and look again; else go to the next word.
 * After every word was tried the get fails. Folding on the way is what
 * keeps every freed tag reachable.
 *
 * Clear. Check the bit is set in the word and not already cleared, set it
 * in the cleared mask (fetch-or), move the hint, then read ws_active: only
 * if someone waits does the clear count itself (completion_cnt) and maybe
 * wake a batch.
 *
 * Waking. A waiter increments ws_active (once per wait, "accounted"), puts
 * its entry on a queue, sets its futex word to 0, then tries a get; only if
 * that fails does it sleep on the futex word. The clear's fetch-or on the
 * cleared mask and the waiter's increment are both sequentially consistent,
 * as are the clear's load of ws_active and the fold's load of the mask: one
 * of the two sees the other, so either the waiter's get finds the tag or
 * the clear is counted. Every wake_batch counted frees (a compare-and-swap
 * on wakeup_cnt decides who wakes) wake up to wake_batch entries, taking
 * the queues in turn from wake_index. A wake unlinks the entry and sets its
 * futex word under the queue lock, and finish_wait takes that lock, so an
 * entry is never touched after its thread left.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "region/sbitmap.h"
#include "rg_internal.h"

#define SB_ID_RR (1ULL << 63) /* in the ids of round-robin instances */
#define SB_MAX_SHIFT 6
#define SB_ATOMIC_RELAXED __ATOMIC_RELAXED
#define SB_ACQ __ATOMIC_ACQUIRE
#define SB_REL __ATOMIC_RELEASE
#define SB_SC __ATOMIC_SEQ_CST

/* The instance's shared counters: written only while threads wait. */
struct rgi_sbq_priv {
	unsigned int completion_cnt; /* frees counted while anyone waited */
	unsigned int wakeup_cnt; /* completion_cnt at the last batch woken */
	unsigned int wake_index; /* next wait queue to wake */
} __attribute__((aligned(RG_SBITMAP_LINE)));

struct sb_hint {
	uint64_t id; /* the instance (never with SB_ID_RR), 0: none */
	unsigned int hint;
	unsigned int ord; /* the thread's ordinal + 1; 0: not given yet */
};

static __thread struct sb_hint sb_tls
	__attribute__((tls_model("initial-exec")));
static __thread unsigned int sb_wait_index
	__attribute__((tls_model("initial-exec")));
static uint64_t sb_next_id = 1;
static unsigned int sb_next_ord;

static inline unsigned long low_mask(unsigned int n)
{
	return n >= 64 ? ~0UL : (1UL << n) - 1;
}

/* Set bit @n of *@p atomically; true if it was set already (lock bts). */
static RGI_ALWAYS_INLINE bool test_and_set(unsigned long *p, unsigned int n,
					   int order)
{
	return __atomic_fetch_or(p, 1UL << n, order) & (1UL << n);
}

static inline unsigned int words_for(unsigned int depth, unsigned int shift)
{
	return (unsigned int)(((unsigned long)depth + (1UL << shift) - 1) >>
			      shift);
}

/* Set the words' usable masks for the depth (every word of the capacity). */
static void set_usable(struct rg_sbitmap *sb)
{
	unsigned int per = 1U << sb->shift;

	for (unsigned int w = 0; w < words_for(sb->capacity, sb->shift); w++) {
		unsigned long first = (unsigned long)w << sb->shift;
		unsigned int n = first >= sb->depth ?
					 0 :
				 sb->depth - first < per ?
					 sb->depth - (unsigned int)first :
					 per;

		sb->map[w].usable = low_mask(n);
	}
}

/* ---- hints ---- */

static RGI_NOINLINE struct sb_hint *hint_init(struct rg_sbitmap *sb)
{
	struct sb_hint *h = &sb_tls;
	unsigned int a, w = 0;

	if (!h->ord)
		h->ord =
			__atomic_fetch_add(&sb_next_ord, 1, SB_ATOMIC_RELAXED) +
			1;
	if (!sb->round_robin && sb->map_nr > 1) {
		a = 2 * ((h->ord - 1) % sb->map_nr);
		w = (a + a / sb->map_nr) % sb->map_nr;
	}
	h->id = sb->id & ~SB_ID_RR;
	h->hint = w << sb->shift;
	return h;
}

static RGI_ALWAYS_INLINE struct sb_hint *hint_get(struct rg_sbitmap *sb)
{
	if (unlikely(sb_tls.id != (sb->id & ~SB_ID_RR)))
		return hint_init(sb);
	return &sb_tls;
}

/* ---- words ---- */

/* Fold @m's cleared mask into its word; false if there was nothing. */
static bool word_fold(struct rg_sbitmap_word *m)
{
	unsigned long mask;

	if (!__atomic_load_n(&m->cleared, SB_SC))
		return false;
	mask = __atomic_exchange_n(&m->cleared, 0, SB_SC);
	if (!mask)
		return false;
	__atomic_fetch_and(&m->word, ~mask, SB_REL);
	return true;
}

/*
 * Claim a usable zero bit of @m within @lim at or after @start, or (@wrap)
 * anywhere within @lim; -1 if the word stays full after a fold.
 */
static int word_get(struct rg_sbitmap_word *m, unsigned long lim,
		    unsigned int start, bool wrap)
{
	unsigned long val = __atomic_load_n(&m->word, SB_ATOMIC_RELAXED);

	for (;;) {
		unsigned long free = ~val & lim & m->usable, f;
		int nr;

		f = start < 64 ? free & (~0UL << start) : 0;
		if (!f && wrap)
			f = free;
		if (unlikely(!f)) {
			if (!word_fold(m))
				return -1;
			/* A fresh word: start again from its beginning. */
			if (wrap)
				start = 0;
			val = __atomic_load_n(&m->word, SB_ATOMIC_RELAXED);
			continue;
		}
		nr = __builtin_ctzl(f);
		if (!test_and_set(&m->word, (unsigned int)nr, SB_ACQ))
			return nr;
		val = __atomic_load_n(&m->word, SB_ATOMIC_RELAXED);
	}
}

/* The general search: any hint, shallow limits, round-robin, folding. */
static RGI_NOINLINE int sb_get(struct rg_sbitmap *sb, unsigned int shallow)
{
	struct sb_hint *h = hint_get(sb);
	unsigned int hint = h->hint, depth = sb->depth, n = sb->map_nr;
	unsigned long lim = shallow >= 64 ? ~0UL : low_mask(shallow);
	unsigned int bit, w;
	bool rr = sb->round_robin;
	int nr = -1;

	if (unlikely(hint >= depth))
		hint = 0;
	w = hint >> sb->shift;
	bit = hint & ((1U << sb->shift) - 1);
	/* Round-robin tries the first word again from its bit 0 at the end. */
	for (unsigned int i = 0; i < n + rr; i++) {
		nr = word_get(&sb->map[w], lim, i ? 0 : bit, !rr);
		if (nr >= 0)
			break;
		if (++w == n)
			w = 0;
	}
	if (nr < 0)
		return -EAGAIN;
	nr += (int)(w << sb->shift);
	h->hint = (unsigned int)nr + 1 < depth ? (unsigned int)nr + 1 : 0;
	return nr;
}

/*
 * The hint's word had no free bit at or after the hint: fold the word's
 * deferred clears and look at the whole word (the usual way a thread comes
 * round to the start of its word), else search everywhere.
 */
static RGI_NOINLINE int sb_get_wrap(struct rg_sbitmap *sb, struct sb_hint *h,
				    struct rg_sbitmap_word *m,
				    unsigned int hint, unsigned int bit)
{
	int nr = word_get(m, ~0UL, bit, true);

	if (nr < 0)
		return sb_get(sb, UINT_MAX);
	hint += (unsigned int)nr - bit;
	h->hint = hint + 1;
	return (int)hint;
}

/*
 * The common case inline: this thread's hint names a word with a free bit
 * at or after it. Anything else goes to sb_get(): no hint yet, a hint past
 * the depth (it lands on a word with no usable bit, or on the spare word
 * after the map), a full word, a lost race. The hint moves to the tag after
 * the one handed out, which is also round-robin's rule.
 */
int rg_sbitmap_queue_get(struct rg_sbitmap_queue *sbq)
{
	struct rg_sbitmap *sb;
	struct rg_sbitmap_word *m;
	struct sb_hint *h;
	unsigned int hint, bit, nr;
	unsigned long f;

	if (unlikely(!sbq))
		return -EINVAL;
	sb = &sbq->sb;
	h = &sb_tls;
	if (unlikely(h->id != sb->id))
		return sb_get(sb, UINT_MAX);
	hint = h->hint;
	m = &sb->map[hint >> sb->shift];
	bit = hint & sb->bit_mask;
	f = ~__atomic_load_n(&m->word, SB_ATOMIC_RELAXED) & m->usable &
	    (~0UL << bit);
	if (unlikely(!f))
		return sb_get_wrap(sb, h, m, hint, bit);
	nr = (unsigned int)__builtin_ctzl(f);
	if (unlikely(test_and_set(&m->word, nr, SB_ACQ)))
		return sb_get(sb, UINT_MAX);
	hint += nr - bit;
	h->hint = hint + 1;
	return (int)hint;
}

int rg_sbitmap_queue_get_shallow(struct rg_sbitmap_queue *sbq,
				 unsigned int shallow_depth)
{
	if (!sbq || !shallow_depth)
		return -EINVAL;
	return sb_get(&sbq->sb, shallow_depth);
}

int rg_sbitmap_queue_get_batch(struct rg_sbitmap_queue *sbq,
			       unsigned int nr_tags, unsigned int *offset,
			       unsigned long *mask)
{
	struct rg_sbitmap *sb;
	struct sb_hint *h;
	unsigned int w, n;

	if (!sbq || !offset || !mask || !nr_tags ||
	    nr_tags > (1U << sbq->sb.shift))
		return -EINVAL;
	sb = &sbq->sb;
	h = hint_get(sb);
	n = sb->map_nr;
	w = (h->hint < sb->depth ? h->hint : 0) >> sb->shift;
	for (unsigned int i = 0; i < n; i++, w = w + 1 == n ? 0 : w + 1) {
		struct rg_sbitmap_word *m = &sb->map[w];
		unsigned int wd = (unsigned int)__builtin_popcountl(m->usable);

		for (;;) {
			unsigned long val, free, want, got;
			unsigned int nr, next;

			val = __atomic_load_n(&m->word, SB_ATOMIC_RELAXED);
			free = ~val & m->usable;
			nr = free ? (unsigned int)__builtin_ctzl(free) : wd;
			if (nr + nr_tags > wd) {
				if (word_fold(m))
					continue;
				break;
			}
			want = low_mask(nr_tags) << nr;
			got = want & ~__atomic_fetch_or(&m->word, want, SB_ACQ);
			if (!got)
				continue;
			*offset = (w << sb->shift) + nr;
			*mask = got >> nr;
			next = *offset + nr_tags;
			h->hint = next < sb->depth ? next : 0;
			return __builtin_popcountl(got);
		}
	}
	return -EAGAIN;
}

/* ---- clear and wake ---- */

static RGI_ALWAYS_INLINE int sb_clear_one(struct rg_sbitmap *sb,
					  unsigned int tag)
{
	struct rg_sbitmap_word *m = &sb->map[tag >> sb->shift];
	unsigned int bit = tag & sb->bit_mask;

	if (unlikely(!(__atomic_load_n(&m->word, SB_ATOMIC_RELAXED) &
		       (1UL << bit))))
		return -ENOENT;
	if (unlikely(test_and_set(&m->cleared, bit, SB_SC)))
		return -ENOENT;
	return 0;
}

static RGI_ALWAYS_INLINE void sb_hint_to(struct rg_sbitmap *sb,
					 unsigned int tag)
{
	if (likely(sb_tls.id == sb->id))
		sb_tls.hint = tag;
}

int rg_sbitmap_queue_clear(struct rg_sbitmap_queue *sbq, unsigned int tag)
{
	int err;

	if (unlikely(!sbq || tag >= sbq->sb.capacity))
		return -EINVAL;
	err = sb_clear_one(&sbq->sb, tag);
	if (unlikely(err))
		return err;
	sb_hint_to(&sbq->sb, tag);
	if (unlikely(__atomic_load_n(&sbq->ws_active, SB_SC)))
		rg_sbitmap_queue_wake_up(sbq, 1);
	return 0;
}

int rg_sbitmap_queue_clear_batch(struct rg_sbitmap_queue *sbq, int offset,
				 const int *tags, int nr_tags)
{
	unsigned int freed = 0, last = 0;
	int err = 0;

	if (!sbq || nr_tags < 0 || (nr_tags && !tags))
		return -EINVAL;
	for (int i = 0; i < nr_tags; i++) {
		long t = (long)tags[i] - offset;

		if (t < 0 || t >= (long)sbq->sb.capacity)
			return -EINVAL;
	}
	for (int i = 0; i < nr_tags; i++) {
		unsigned int t = (unsigned int)((long)tags[i] - offset);

		if (sb_clear_one(&sbq->sb, t)) {
			err = -ENOENT;
			continue;
		}
		freed++;
		last = t;
	}
	if (freed) {
		sb_hint_to(&sbq->sb, last);
		if (__atomic_load_n(&sbq->ws_active, SB_SC))
			rg_sbitmap_queue_wake_up(sbq, freed);
	}
	return err;
}

static void futex_wake(int *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Take @wait off @ws's list; @ws's lock is held. */
static void ws_unlink(struct rg_sbq_wait_state *ws, struct rg_sbq_wait *wait)
{
	if (wait->prev)
		wait->prev->next = wait->next;
	else
		ws->head = wait->next;
	if (wait->next)
		wait->next->prev = wait->prev;
	else
		ws->tail = wait->prev;
	wait->next = wait->prev = NULL;
	wait->ws = NULL;
	__atomic_store_n(&ws->nr, ws->nr - 1, SB_ATOMIC_RELAXED);
}

/* Unlink @wait from @ws and wake its thread; @ws's lock is held. */
static void ws_wake_one(struct rg_sbq_wait_state *ws, struct rg_sbq_wait *wait)
{
	ws_unlink(ws, wait);
	__atomic_store_n(&wait->woken, 1, SB_REL);
	futex_wake(&wait->woken);
}

/* Wake up to @n waiters (UINT_MAX: all), queues in turn. */
static void sbq_wake(struct rg_sbitmap_queue *sbq, unsigned int n)
{
	unsigned int start =
		__atomic_fetch_add(&sbq->sb.priv->wake_index, 1, SB_SC);

	for (unsigned int i = 0; i < RG_SBQ_WAIT_QUEUES && n; i++) {
		struct rg_sbq_wait_state *ws =
			&sbq->ws[(start + i) % RG_SBQ_WAIT_QUEUES];

		/*
		 * Every queue is looked at under its lock: an unlocked look at
		 * its count could miss an entry queued just now, and with it
		 * the wake-up that entry is owed.
		 */
		pthread_mutex_lock(&ws->lock);
		while (n && ws->head) {
			ws_wake_one(ws, ws->head);
			if (n != UINT_MAX)
				n--;
		}
		pthread_mutex_unlock(&ws->lock);
	}
}

/* Whether any tag is in use, read in the order the wake protocol needs. */
static bool sb_any_busy_sc(const struct rg_sbitmap *sb)
{
	for (unsigned int w = 0; w < sb->map_nr; w++) {
		const struct rg_sbitmap_word *m = &sb->map[w];

		if (__atomic_load_n(&m->word, SB_SC) &
		    ~__atomic_load_n(&m->cleared, SB_SC) & m->usable)
			return true;
	}
	return false;
}

void rg_sbitmap_queue_wake_up(struct rg_sbitmap_queue *sbq, unsigned int nr)
{
	struct rgi_sbq_priv *p;
	unsigned int c, w, batch;
	bool woke = false;

	if (!sbq || !nr || !__atomic_load_n(&sbq->ws_active, SB_SC))
		return;
	p = sbq->sb.priv;
	batch = sbq->wake_batch;
	c = __atomic_add_fetch(&p->completion_cnt, nr, SB_SC);
	w = __atomic_load_n(&p->wakeup_cnt, SB_SC);
	while ((int)(c - w) >= (int)batch) {
		if (__atomic_compare_exchange_n(&p->wakeup_cnt, &w, w + batch,
						false, SB_SC, SB_SC)) {
			sbq_wake(sbq, batch);
			w += batch;
			woke = true;
		}
	}
	/*
	 * Fewer than a batch of frees owed, and nothing in use: no more frees
	 * may come, so nobody may be left asleep with every tag free.
	 */
	if (!woke && !sb_any_busy_sc(&sbq->sb))
		sbq_wake(sbq, UINT_MAX);
}

void rg_sbitmap_queue_wake_all(struct rg_sbitmap_queue *sbq)
{
	if (sbq && sbq->ws)
		sbq_wake(sbq, UINT_MAX);
}

struct rg_sbq_wait_state *
rg_sbitmap_queue_wait_ptr(struct rg_sbitmap_queue *sbq,
			  unsigned int *wait_index)
{
	if (!sbq || !wait_index)
		return NULL;
	return &sbq->ws[(*wait_index)++ % RG_SBQ_WAIT_QUEUES];
}

void rg_sbitmap_prepare_to_wait(struct rg_sbitmap_queue *sbq,
				struct rg_sbq_wait_state *ws,
				struct rg_sbq_wait *wait)
{
	if (!sbq || !ws || !wait)
		return;
	if (!wait->accounted) {
		wait->accounted = 1;
		__atomic_fetch_add(&sbq->ws_active, 1, SB_SC);
	}
	pthread_mutex_lock(&ws->lock);
	if (!wait->ws) {
		wait->next = NULL;
		wait->prev = ws->tail;
		if (ws->tail)
			ws->tail->next = wait;
		else
			ws->head = wait;
		ws->tail = wait;
		wait->ws = ws;
		__atomic_store_n(&ws->nr, ws->nr + 1, SB_ATOMIC_RELAXED);
	}
	__atomic_store_n(&wait->woken, 0, SB_SC);
	pthread_mutex_unlock(&ws->lock);
}

void rg_sbitmap_wait_sleep(struct rg_sbq_wait *wait)
{
	if (!wait)
		return;
	while (!__atomic_load_n(&wait->woken, SB_ACQ))
		syscall(SYS_futex, &wait->woken, FUTEX_WAIT_PRIVATE, 0, NULL,
			NULL, 0);
}

void rg_sbitmap_finish_wait(struct rg_sbitmap_queue *sbq,
			    struct rg_sbq_wait_state *ws,
			    struct rg_sbq_wait *wait)
{
	if (!sbq || !ws || !wait)
		return;
	pthread_mutex_lock(&ws->lock);
	if (wait->ws == ws)
		ws_unlink(ws, wait);
	pthread_mutex_unlock(&ws->lock);
	if (wait->accounted) {
		wait->accounted = 0;
		__atomic_fetch_sub(&sbq->ws_active, 1, SB_SC);
	}
}

int rg_sbitmap_queue_get_wait(struct rg_sbitmap_queue *sbq)
{
	struct rg_sbq_wait wait = RG_SBQ_WAIT_INIT;
	struct rg_sbq_wait_state *ws;
	int tag;

	if (!sbq)
		return -EINVAL;
	tag = sb_get(&sbq->sb, UINT_MAX);
	if (tag >= 0)
		return tag;
	ws = rg_sbitmap_queue_wait_ptr(sbq, &sb_wait_index);
	for (;;) {
		rg_sbitmap_prepare_to_wait(sbq, ws, &wait);
		tag = sb_get(&sbq->sb, UINT_MAX);
		if (tag >= 0)
			break;
		rg_sbitmap_wait_sleep(&wait);
	}
	rg_sbitmap_finish_wait(sbq, ws, &wait);
	return tag;
}

/* ---- creation, geometry ---- */

/* The wake batch for the depth and the smallest shallow depth in use. */
static unsigned int sbq_calc_batch(const struct rg_sbitmap_queue *sbq)
{
	const struct rg_sbitmap *sb = &sbq->sb;
	unsigned int per = 1U << sb->shift, msd = sbq->min_shallow_depth;
	unsigned int last = sb->depth - ((sb->map_nr - 1) << sb->shift);
	unsigned long usable;
	unsigned int b;

	if (msd > per)
		msd = per;
	usable = (unsigned long)(sb->map_nr - 1) * msd +
		 (last < msd ? last : msd);
	b = (unsigned int)(usable / RG_SBQ_WAIT_QUEUES);
	return b < 1 ? 1 : b > RG_SBQ_WAKE_BATCH ? RG_SBQ_WAKE_BATCH : b;
}

static unsigned int default_shift(unsigned int depth)
{
	unsigned int shift = SB_MAX_SHIFT;

	if (depth >= 4)
		while ((4UL << shift) > depth)
			shift--;
	return shift;
}

int rg_sbitmap_queue_init(struct rg_sbitmap_queue *sbq, unsigned int depth,
			  int shift, bool round_robin)
{
	size_t words, size;
	char *block;
	int err;

	if (!sbq || !depth || depth > INT_MAX || shift > SB_MAX_SHIFT)
		return -EINVAL;
	memset(sbq, 0, sizeof(*sbq));
	sbq->sb.shift = shift < 0 ? default_shift(depth) : (unsigned int)shift;
	words = words_for(depth, sbq->sb.shift);
	size = sizeof(struct rgi_sbq_priv) +
	       RG_SBQ_WAIT_QUEUES * sizeof(struct rg_sbq_wait_state) +
	       (words + 1) * sizeof(struct rg_sbitmap_word);
	block = rgi_fault() ? NULL : aligned_alloc(RG_SBITMAP_LINE, size);
	if (!block) {
		memset(sbq, 0, sizeof(*sbq));
		return -ENOMEM;
	}
	memset(block, 0, size);
	sbq->sb.priv = (struct rgi_sbq_priv *)block;
	sbq->ws = (struct rg_sbq_wait_state *)(block +
					       sizeof(struct rgi_sbq_priv));
	sbq->sb.map = (struct rg_sbitmap_word *)(sbq->ws + RG_SBQ_WAIT_QUEUES);
	for (int i = 0; i < RG_SBQ_WAIT_QUEUES; i++) {
		err = pthread_mutex_init(&sbq->ws[i].lock, NULL);
		if (err) {
			while (i-- > 0)
				pthread_mutex_destroy(&sbq->ws[i].lock);
			free(block);
			memset(sbq, 0, sizeof(*sbq));
			return -err;
		}
	}
	sbq->sb.depth = depth;
	sbq->sb.capacity = depth;
	sbq->sb.bit_mask = (1U << sbq->sb.shift) - 1;
	sbq->sb.map_nr = (unsigned int)words;
	sbq->sb.round_robin = round_robin;
	sbq->sb.id = __atomic_fetch_add(&sb_next_id, 1, SB_ATOMIC_RELAXED) |
		     (round_robin ? SB_ID_RR : 0);
	set_usable(&sbq->sb);
	sbq->min_shallow_depth = UINT_MAX;
	sbq->wake_batch = sbq_calc_batch(sbq);
	return 0;
}

void rg_sbitmap_queue_destroy(struct rg_sbitmap_queue *sbq)
{
	if (!sbq || !sbq->sb.priv)
		return;
	for (int i = 0; i < RG_SBQ_WAIT_QUEUES; i++)
		pthread_mutex_destroy(&sbq->ws[i].lock);
	free(sbq->sb.priv);
	memset(sbq, 0, sizeof(*sbq));
}

int rg_sbitmap_queue_resize(struct rg_sbitmap_queue *sbq, unsigned int depth)
{
	struct rg_sbitmap *sb;

	if (!sbq || !sbq->sb.priv || !depth || depth > sbq->sb.capacity)
		return -EINVAL;
	sb = &sbq->sb;
	for (unsigned int w = 0; w < words_for(sb->capacity, sb->shift); w++)
		word_fold(&sb->map[w]);
	sb->depth = depth;
	sb->map_nr = words_for(depth, sb->shift);
	set_usable(sb);
	sbq->wake_batch = sbq_calc_batch(sbq);
	rg_sbitmap_queue_wake_all(sbq);
	return 0;
}

int rg_sbitmap_queue_min_shallow_depth(struct rg_sbitmap_queue *sbq,
				       unsigned int min_shallow_depth)
{
	if (!sbq || !sbq->sb.priv || !min_shallow_depth)
		return -EINVAL;
	sbq->min_shallow_depth = min_shallow_depth;
	sbq->wake_batch = sbq_calc_batch(sbq);
	return 0;
}

/* ---- questions, validate, dump ---- */

/* Tags of a word in use: set in the word, not cleared, usable. */
static unsigned long word_busy(const struct rg_sbitmap_word *m)
{
	unsigned long word = __atomic_load_n(&m->word, SB_ATOMIC_RELAXED);
	unsigned long cleared = __atomic_load_n(&m->cleared, SB_ATOMIC_RELAXED);

	return word & ~cleared & m->usable;
}

unsigned int rg_sbitmap_weight(const struct rg_sbitmap *sb)
{
	unsigned int n = 0;

	if (!sb || !sb->map)
		return 0;
	for (unsigned int w = 0; w < sb->map_nr; w++)
		n += (unsigned int)__builtin_popcountl(word_busy(&sb->map[w]));
	return n;
}

bool rg_sbitmap_any_bit_set(const struct rg_sbitmap *sb)
{
	if (!sb || !sb->map)
		return false;
	for (unsigned int w = 0; w < sb->map_nr; w++)
		if (word_busy(&sb->map[w]))
			return true;
	return false;
}

static const char *sbq_check(struct rg_sbitmap_queue *sbq)
{
	const struct rg_sbitmap *sb = &sbq->sb;
	unsigned int cap_nr, queued = 0;

	if (sb->shift > SB_MAX_SHIFT)
		return "shift above 6";
	if (!sb->depth || sb->depth > sb->capacity)
		return "depth is 0 or above the capacity";
	if (sb->map_nr != words_for(sb->depth, sb->shift))
		return "map_nr does not cover the depth";
	if ((void *)sb->map != (void *)(sbq->ws + RG_SBQ_WAIT_QUEUES) ||
	    (void *)sbq->ws != (void *)(sb->priv + 1))
		return "the block's parts are misplaced";
	cap_nr = words_for(sb->capacity, sb->shift);
	for (unsigned int w = 0; w < cap_nr; w++) {
		unsigned int wd = w == cap_nr - 1 ?
					  sb->capacity - (w << sb->shift) :
					  1U << sb->shift;
		const struct rg_sbitmap_word *m = &sb->map[w];

		if ((m->word | m->cleared) & ~low_mask(wd))
			return "a bit is set beyond the capacity";
		if (m->cleared & ~m->word)
			return "a cleared bit is not set in its word";
		if (m->usable != low_mask(w >= sb->map_nr ?
						  0 :
					  w == sb->map_nr - 1 ?
						  sb->depth - (w << sb->shift) :
						  1U << sb->shift))
			return "a word's usable mask does not match the depth";
	}
	if (sbq->wake_batch != sbq_calc_batch(sbq))
		return "wake_batch does not match the depth";
	if (sbq->ws_active < 0)
		return "ws_active is negative";
	for (int i = 0; i < RG_SBQ_WAIT_QUEUES; i++) {
		struct rg_sbq_wait_state *ws = &sbq->ws[i];
		const struct rg_sbq_wait *prev = NULL, *e;
		unsigned int n = 0;

		pthread_mutex_lock(&ws->lock);
		for (e = ws->head; e; prev = e, e = e->next) {
			if (e->prev != prev || e->ws != ws || ++n > ws->nr)
				break;
		}
		pthread_mutex_unlock(&ws->lock);
		if (e || ws->tail != prev || n != ws->nr)
			return "a wait queue's list is broken";
		queued += n;
	}
	if (queued > (unsigned int)sbq->ws_active)
		return "more waiters queued than ws_active counts";
	return NULL;
}

int rg_sbitmap_queue_validate(struct rg_sbitmap_queue *sbq, const char **reason)
{
	const char *why;

	if (reason)
		*reason = NULL;
	if (!sbq || !sbq->sb.priv) {
		if (reason)
			*reason = "not initialised";
		return -EINVAL;
	}
	why = sbq_check(sbq);
	if (reason)
		*reason = why;
	return why ? -EINVAL : 0;
}

void rg_sbitmap_queue_dump(struct rg_sbitmap_queue *sbq, FILE *f)
{
	const struct rg_sbitmap *sb;

	if (!sbq || !f)
		return;
	sb = &sbq->sb;
	if (!sb->priv) {
		fprintf(f, "sbitmap_queue %p: not initialised\n", (void *)sbq);
		return;
	}
	fprintf(f,
		"sbitmap_queue %p: depth %u capacity %u shift %u words %u "
		"in use %u%s wake_batch %u min_shallow %u waiters %d\n",
		(void *)sbq, sb->depth, sb->capacity, sb->shift, sb->map_nr,
		rg_sbitmap_weight(sb), sb->round_robin ? " round-robin" : "",
		sbq->wake_batch, sbq->min_shallow_depth, sbq->ws_active);
	for (unsigned int w = 0; w < words_for(sb->capacity, sb->shift); w++) {
		const struct rg_sbitmap_word *m = &sb->map[w];

		if (m->word || m->cleared)
			fprintf(f, "  word %u: %016lx cleared %016lx\n", w,
				m->word, m->cleared);
	}
}
