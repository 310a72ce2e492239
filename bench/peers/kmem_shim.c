// SPDX-License-Identifier: MIT
/*
 * A kmem_cache for the kernel's Maple Tree, IDA and xarray in userspace
 * (bench/peers): aligned malloc for new objects, an unbounded LIFO free
 * list under a pthread mutex, bulk calls under one lock, and the counters
 * the radix-tree test programs declare. It replaces the test suite's own
 * shim (linux.c in tools/testing/radix-tree, or tools/testing/shared in
 * 6.12), whose 6.1 bulk allocation mallocs size x n bytes per object and
 * whose frees of aligned caches (in 6.12 too) poison and free() every
 * object: that measures glibc, not the tree.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct list_lru;

int nr_allocated;
int preempt_count;
int test_verbose;

struct kmem_cache {
	pthread_mutex_t lock;
	unsigned int size, align;
	void (*ctor)(void *);
	void *free; /* objects linked through their first word */
	long live;
};

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, unsigned int flags,
				     void (*ctor)(void *))
{
	struct kmem_cache *c = calloc(1, sizeof(*c));

	(void)name;
	(void)flags;
	if (!c)
		abort();
	pthread_mutex_init(&c->lock, NULL);
	c->size = size;
	c->align = align ? align : sizeof(void *);
	c->ctor = ctor;
	return c;
}

static void *take_locked(struct kmem_cache *c)
{
	void *p = c->free;

	if (p)
		c->free = *(void **)p;
	return p;
}

static void *fresh(struct kmem_cache *c, int gfp)
{
	size_t sz = (c->size + c->align - 1) / c->align * c->align;
	void *p = aligned_alloc(c->align, sz);

	(void)gfp;
	if (!p)
		abort();
	return p;
}

static void prepare(struct kmem_cache *c, void *p, int gfp)
{
	if (c->ctor)
		c->ctor(p);
	else if (gfp & 0x100u) /* __GFP_ZERO */
		memset(p, 0, c->size);
}

void *kmem_cache_alloc_lru(struct kmem_cache *c, struct list_lru *lru, int gfp)
{
	void *p;

	(void)lru;
	pthread_mutex_lock(&c->lock);
	p = take_locked(c);
	c->live++;
	pthread_mutex_unlock(&c->lock);
	if (!p)
		p = fresh(c, gfp);
	prepare(c, p, gfp);
	__atomic_add_fetch(&nr_allocated, 1, __ATOMIC_RELAXED);
	return p;
}

int kmem_cache_alloc_bulk(struct kmem_cache *c, int gfp, size_t n, void **p)
{
	size_t i;

	pthread_mutex_lock(&c->lock);
	for (i = 0; i < n; i++)
		p[i] = take_locked(c);
	c->live += (long)n;
	pthread_mutex_unlock(&c->lock);
	for (i = 0; i < n; i++) {
		if (!p[i])
			p[i] = fresh(c, gfp);
		prepare(c, p[i], gfp);
	}
	__atomic_add_fetch(&nr_allocated, (int)n, __ATOMIC_RELAXED);
	return (int)n;
}

void kmem_cache_free(struct kmem_cache *c, void *p)
{
	pthread_mutex_lock(&c->lock);
	*(void **)p = c->free;
	c->free = p;
	c->live--;
	pthread_mutex_unlock(&c->lock);
	__atomic_sub_fetch(&nr_allocated, 1, __ATOMIC_RELAXED);
}

void kmem_cache_free_bulk(struct kmem_cache *c, size_t n, void **p)
{
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < n; i++) {
		*(void **)p[i] = c->free;
		c->free = p[i];
	}
	c->live -= (long)n;
	pthread_mutex_unlock(&c->lock);
	__atomic_sub_fetch(&nr_allocated, (int)n, __ATOMIC_RELAXED);
}

void kmem_cache_shrink(struct kmem_cache *c)
{
	(void)c;
}
