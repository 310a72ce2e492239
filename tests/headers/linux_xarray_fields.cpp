// SPDX-License-Identifier: MIT
// The kernel's field names of struct xarray compile in C++ under -pedantic
// and name struct rg_xarray's own fields, as they do in C.
#include <cstddef>

#include <region/linux/xarray.h>

static_assert(offsetof(struct xarray, xa_lock) ==
		      offsetof(struct rg_xarray, lock),
	      "xa_lock names rg_xarray.lock");
static_assert(offsetof(struct xarray, xa_flags) ==
		      offsetof(struct rg_xarray, flags),
	      "xa_flags names rg_xarray.flags");
static_assert(offsetof(struct xarray, xa_head) ==
		      offsetof(struct rg_xarray, head),
	      "xa_head names rg_xarray.head");
static_assert(sizeof(struct xarray) == sizeof(struct rg_xarray),
	      "struct xarray is struct rg_xarray");

static DEFINE_XARRAY_ALLOC(array);

int main(void)
{
	return array.xa_head != NULL || !(array.xa_flags & XA_FLAGS_ALLOC);
}
