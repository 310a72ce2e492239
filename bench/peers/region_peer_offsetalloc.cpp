// SPDX-License-Identifier: MIT
/*
 * OffsetAllocator (github.com/sebbbi/OffsetAllocator) as a region
 * allocator of units, for make bench-peers. It hands out offsets of a
 * 32-bit space from 256 size bins and takes no alignment, so the adapter
 * allocates n + align - 1 units and returns the first aligned unit inside:
 * the padding stays allocated until the free, and a failure it causes is
 * OffsetAllocator's (the mirror bitmap sees only the n units handed out).
 * The handle is OffsetAllocator's node index, which its free() needs.
 *
 * It is created with maxAllocs = capacity + 1 (at most 2^24), so it never
 * runs out of nodes where a unit is free. Memory: sizeof(Allocator) plus
 * 32 bytes (a 28-byte node and its 4-byte free-list slot) per node in use,
 * live allocations plus free regions: the maxAllocs a user would size
 * the allocator with for this workload.
 */
#include <cerrno>
#include <cstdint>
#include <new>

#include "offsetAllocator.hpp"
#include "region_peer.h"

namespace
{
struct oa_peer {
	OffsetAllocator::Allocator a;
	unsigned long live;

	oa_peer(uint32_t cap, uint32_t max) : a(cap, max), live(0)
	{
	}
};
} // namespace

extern "C" {
void *rbp_offsetalloc_create(unsigned long cap);
int rbp_offsetalloc_alloc(void *p, unsigned long n, unsigned long align,
			  unsigned long *start, unsigned long *handle);
void rbp_offsetalloc_free(void *p, unsigned long start, unsigned long n,
			  unsigned long handle);
size_t rbp_offsetalloc_bytes(void *p);
void rbp_offsetalloc_destroy(void *p);
}

void *rbp_offsetalloc_create(unsigned long cap)
{
	unsigned long max = cap + 1 < (1UL << 24) ? cap + 1 : 1UL << 24;

	return new (std::nothrow) oa_peer((uint32_t)cap, (uint32_t)max);
}

int rbp_offsetalloc_alloc(void *p, unsigned long n, unsigned long align,
			  unsigned long *start, unsigned long *handle)
{
	oa_peer *o = static_cast<oa_peer *>(p);
	unsigned long want = n + align - 1;
	OffsetAllocator::Allocation a;

	if (want >= OffsetAllocator::Allocation::NO_SPACE)
		return -ENOSPC;
	a = o->a.allocate((uint32_t)want);
	if (a.offset == OffsetAllocator::Allocation::NO_SPACE)
		return -ENOSPC;
	*start = ((unsigned long)a.offset + align - 1) & ~(align - 1);
	*handle = a.metadata;
	o->live++;
	return 0;
}

void rbp_offsetalloc_free(void *p, unsigned long start, unsigned long n,
			  unsigned long handle)
{
	oa_peer *o = static_cast<oa_peer *>(p);
	OffsetAllocator::Allocation a;

	(void)start;
	(void)n;
	a.offset = 0;
	a.metadata = (OffsetAllocator::NodeIndex)handle;
	o->a.free(a);
	o->live--;
}

size_t rbp_offsetalloc_bytes(void *p)
{
	oa_peer *o = static_cast<oa_peer *>(p);
	OffsetAllocator::StorageReportFull r = o->a.storageReportFull();
	size_t nodes = o->live;

	for (uint32_t i = 0; i < OffsetAllocator::NUM_LEAF_BINS; i++)
		nodes += r.freeRegions[i].count;
	return sizeof(OffsetAllocator::Allocator) + 32 * nodes;
}

void rbp_offsetalloc_destroy(void *p)
{
	delete static_cast<oa_peer *>(p);
}

namespace
{
struct rb_region_peer make_peer()
{
	struct rb_region_peer q = {};

	q.name = "offsetalloc";
	q.placement = "good";
	q.legend = "offsetalloc: OffsetAllocator, aligned by allocating "
		   "n + align - 1 units and aligning inside (it has no "
		   "alignment); bytes: sizeof(Allocator) + 32 B per node in "
		   "use (live allocations + free regions), the maxAllocs this "
		   "workload needs.";
	q.max_capacity = 0xfffffffeUL;
	q.create = rbp_offsetalloc_create;
	q.alloc = rbp_offsetalloc_alloc;
	q.free = rbp_offsetalloc_free;
	q.bytes = rbp_offsetalloc_bytes;
	q.destroy = rbp_offsetalloc_destroy;
	return q;
}

const struct rb_region_peer oa_desc = make_peer();

struct oa_register {
	oa_register()
	{
		rb_region_peer_register(&oa_desc);
	}
} oa_register_now;
} // namespace
