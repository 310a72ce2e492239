// SPDX-License-Identifier: MIT
/*
 * Unit tests of the slab cache API: every call, bad input, alignment,
 * constructors, prefilled sheaves, shrink, leak reports, statistics, the
 * debug checks through the report hook, and the kernel names.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rg_test.h"
#include "region/slab.h"
#include "region/linux.h"

static size_t in_use(struct rg_slab_cache *c)
{
	struct rg_slab_stats st;

	assert_int_equal(rg_slab_get_stats(c, &st), 0);
	return st.objects_in_use;
}

static void test_create_bad_input(void **state)
{
	(void)state;
	struct {
		const char *name;
		size_t size, align;
		unsigned int flags;
	} bad[] = {
		{ NULL, 8, 0, 0 },
		{ "x", 0, 0, 0 },
		{ "x", RG_SLAB_MAX_OBJECT_SIZE + 1, 0, 0 },
		{ "x", SIZE_MAX, 0, 0 },
		{ "x", 8, 3, 0 },
		{ "x", 8, 24, 0 },
		{ "x", 8, 8192, 0 },
		{ "x", 8, 0, 0x80000000u },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		assert_null(rg_slab_create(bad[i].name, bad[i].size,
					   bad[i].align, bad[i].flags, NULL));
		assert_int_equal(errno, EINVAL);
	}
	/* NULL everywhere else: errors, never crashes. */
	errno = 0;
	assert_null(rg_slab_alloc(NULL));
	assert_int_equal(errno, EINVAL);
	rg_slab_free(NULL, NULL);
	assert_int_equal(rg_slab_alloc_bulk(NULL, 1, (void **)&bad), 0);
	assert_null(rg_slab_prefill_sheaf(NULL, 1));
	assert_int_equal(rg_slab_shrink(NULL), -EINVAL);
	assert_int_equal(rg_slab_get_stats(NULL, NULL), -EINVAL);
	assert_int_equal(rg_slab_destroy(NULL), 0);
	assert_int_equal(rg_slab_validate(NULL, NULL), -EINVAL);
}

static void test_alloc_free_alignment(void **state)
{
	(void)state;
	size_t sizes[] = { 1, 7, 8, 24, 100, 256, 1000, 4096, 5000, 70000 };

	for (size_t a = 1; a <= RG_SLAB_MAX_ALIGN; a <<= 1) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			struct rg_slab_cache *c =
				rg_slab_create("align", sizes[s], a, 0, NULL);
			void *p[40];

			assert_non_null(c);
			assert_int_equal(rg_slab_object_size(c), sizes[s]);
			assert_string_equal(rg_slab_name(c), "align");
			for (int i = 0; i < 40; i++) {
				p[i] = rg_slab_alloc(c);
				assert_non_null(p[i]);
				assert_int_equal((uintptr_t)p[i] % a, 0);
				memset(p[i], 0xa5, sizes[s]);
				for (int j = 0; j < i; j++)
					assert_ptr_not_equal(p[i], p[j]);
			}
			assert_int_equal(in_use(c), 40);
			RG_ASSERT_VALID(c);
			for (int i = 0; i < 40; i++)
				rg_slab_free(c, p[i]);
			assert_int_equal(in_use(c), 0);
			RG_ASSERT_VALID(c);
			assert_int_equal(rg_slab_destroy(c), 0);
		}
	}
}

static void test_bulk(void **state)
{
	(void)state;
	struct rg_slab_cache *c = rg_slab_create("bulk", 256, 256, 0, NULL);
	void *p[1000];

	assert_non_null(c);
	errno = 0;
	assert_int_equal(rg_slab_alloc_bulk(c, 0, p), 0);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(rg_slab_alloc_bulk(c, 1, NULL), 0);
	rg_slab_free_bulk(c, 0, p);
	rg_slab_free_bulk(c, 1, NULL);

	for (size_t n = 1; n <= 1000; n = n * 3 + 1) {
		assert_int_equal(rg_slab_alloc_bulk(c, n, p), n);
		for (size_t i = 0; i < n; i++) {
			assert_non_null(p[i]);
			assert_int_equal((uintptr_t)p[i] % 256, 0);
			memset(p[i], (int)i, 256);
		}
		assert_int_equal(in_use(c), n);
		RG_ASSERT_VALID(c);
		rg_slab_free_bulk(c, n, p);
		assert_int_equal(in_use(c), 0);
		RG_ASSERT_VALID(c);
	}
	/* NULL entries of a bulk free are skipped. */
	assert_int_equal(rg_slab_alloc_bulk(c, 4, p), 4);
	p[1] = NULL;
	rg_slab_free(c, p[1]);
	rg_slab_free_bulk(c, 4, p);
	assert_int_equal(in_use(c), 1);
	assert_int_equal(rg_slab_destroy(c), 1); /* the one we dropped */
}

static void test_sheaf(void **state)
{
	(void)state;
	struct rg_slab_cache *c = rg_slab_create("sheaf", 256, 256, 0, NULL);
	struct rg_slab_sheaf *sh;
	void *objs[200];

	errno = 0;
	assert_null(rg_slab_prefill_sheaf(c, 0));
	assert_int_equal(errno, EINVAL);
	assert_null(rg_slab_prefill_sheaf(c, 65537));

	for (unsigned int n = 1; n <= 200; n += 13) {
		sh = rg_slab_prefill_sheaf(c, n);
		assert_non_null(sh);
		assert_true(rg_slab_sheaf_size(sh) >= n);
		for (unsigned int i = 0; i < n; i++) {
			objs[i] = rg_slab_alloc_from_sheaf(c, sh);
			assert_non_null(objs[i]);
		}
		assert_int_equal(in_use(c), n);
		/* Refill tops it up, growing the sheaf when needed. */
		assert_int_equal(rg_slab_refill_sheaf(c, &sh, n + 50), 0);
		assert_true(rg_slab_sheaf_size(sh) >= n + 50);
		assert_int_equal(rg_slab_refill_sheaf(c, &sh, 0), -EINVAL);
		assert_int_equal(rg_slab_refill_sheaf(c, NULL, 1), -EINVAL);
		rg_slab_return_sheaf(c, sh);
		assert_int_equal(in_use(c), n);
		RG_ASSERT_VALID(c);
		rg_slab_free_bulk(c, n, objs);
		assert_int_equal(in_use(c), 0);
	}
	/* An emptied sheaf says so instead of failing badly. */
	sh = rg_slab_prefill_sheaf(c, 1);
	while (rg_slab_sheaf_size(sh))
		rg_slab_free(c, rg_slab_alloc_from_sheaf(c, sh));
	assert_null(rg_slab_alloc_from_sheaf(c, sh));
	rg_slab_return_sheaf(c, sh);
	rg_slab_return_sheaf(c, NULL);
	assert_int_equal(rg_slab_destroy(c), 0);
}

static void test_shrink_stats_leaks(void **state)
{
	(void)state;
	struct rg_slab_cache *c = rg_slab_create("stats", 256, 256, 0, NULL);
	struct rg_slab_stats st;
	static void *p[5000];

	assert_int_equal(rg_slab_alloc_bulk(c, 5000, p), 5000);
	rg_slab_get_stats(c, &st);
	assert_int_equal(st.objects_in_use, 5000);
	assert_int_equal(st.bytes_live, 5000 * 256);
	assert_true(st.slabs >= 5000 * 256 / st.slab_size);
	assert_int_equal(st.bytes_held, st.slabs * st.slab_size);
	assert_int_equal(st.bytes_held_peak, st.bytes_held);
	assert_int_equal(st.object_stride, 256);
	assert_true(st.slab_allocs >= st.slabs);
	rg_slab_free_bulk(c, 4997, p + 3);
	rg_slab_get_stats(c, &st);
	assert_int_equal(st.objects_in_use, 3);
	assert_true(rg_slab_shrink(c) > 0);
	rg_slab_get_stats(c, &st);
	assert_int_equal(st.objects_cached, 0);
	assert_true(st.slabs <= 1);
	assert_true(st.bytes_held_peak > st.bytes_held);
	RG_ASSERT_VALID(c);
	{
		char buf[4096] = "";
		FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

		rg_slab_dump(c, f);
		fclose(f);
		assert_non_null(strstr(buf, "slab cache 'stats'"));
		assert_non_null(strstr(buf, "in use 3,"));
	}
	/* Three objects still allocated: destroy reports them. */
	assert_int_equal(rg_slab_destroy(c), 3);
}

static void test_hugepage(void **state)
{
	(void)state;
	struct rg_slab_cache *c =
		rg_slab_create("huge", 256, 256, RG_SLAB_HUGEPAGE, NULL);
	struct rg_slab_stats st;
	static void *p[10000];

	assert_non_null(c);
	assert_int_equal(rg_slab_alloc_bulk(c, 10000, p), 10000);
	rg_slab_get_stats(c, &st);
	assert_int_equal(st.slab_size, 2UL << 20);
	for (int i = 0; i < 10000; i++)
		assert_int_equal((uintptr_t)p[i] % 256, 0);
	assert_int_equal(rg_slab_validate(c, NULL), 0);
	rg_slab_free_bulk(c, 10000, p);
	assert_int_equal(rg_slab_destroy(c), 0);
}

static int ctor_calls;

static void ctor(void *obj)
{
	ctor_calls++;
	memcpy(obj, "built", 6);
}

static void test_ctor(void **state)
{
	(void)state;
	struct rg_slab_cache *c =
		rg_slab_create("ctor", 64, 0, RG_SLAB_POISON, ctor);
	struct rg_slab_stats st;
	void *p[300];

	ctor_calls = 0;
	assert_int_equal(rg_slab_alloc_bulk(c, 300, p), 300);
	rg_slab_get_stats(c, &st);
	/* Once per object when its slab was mapped, never again. */
	assert_int_equal(ctor_calls, st.objects_free + st.objects_cached +
					     st.objects_in_use);
	for (int i = 0; i < 300; i++)
		assert_string_equal(p[i], "built");
	rg_slab_free_bulk(c, 300, p);
	int before = ctor_calls;

	assert_int_equal(rg_slab_alloc_bulk(c, 300, p), 300);
	assert_int_equal(ctor_calls, before);
	for (int i = 0; i < 300; i++)
		assert_string_equal(p[i], "built"); /* poison ignored */
	rg_slab_free_bulk(c, 300, p);
	assert_int_equal(rg_slab_destroy(c), 0);
}

/* ---- debug checks ---- */

static struct {
	int calls;
	const void *obj;
	char what[64];
} rep;

static void hook(const char *cache, const void *obj, const char *what,
		 void *arg)
{
	assert_ptr_equal(arg, &rep);
	assert_string_equal(cache, "dbg");
	rep.calls++;
	rep.obj = obj;
	snprintf(rep.what, sizeof(rep.what), "%s", what);
}

static void expect_report(const void *obj, const char *what)
{
	assert_int_equal(rep.calls, 1);
	assert_ptr_equal(rep.obj, obj);
	assert_string_equal(rep.what, what);
	memset(&rep, 0, sizeof(rep));
}

static void test_debug_checks(void **state)
{
	(void)state;
	struct rg_slab_cache *c =
		rg_slab_create("dbg", 100, 8, RG_SLAB_DEBUG, NULL);
	char *p, *q, local[128];
	void *v[3];

	rg_slab_set_report_hook(hook, &rep);
	memset(&rep, 0, sizeof(rep));

	p = rg_slab_alloc(c);
	q = rg_slab_alloc(c);
	assert_non_null(p);
	memset(p, 0, 100);
	rg_slab_free(c, p);
	assert_int_equal(rep.calls, 0);
	RG_ASSERT_VALID(c);

	/* Double free: reported, ignored, cache still valid. */
	rg_slab_free(c, p);
	expect_report(p, "double free");
	RG_ASSERT_VALID(c);
	assert_int_equal(in_use(c), 1);

	/* Foreign pointers: the stack, and a pointer inside an object. */
	rg_slab_free(c, local);
	expect_report(local, "pointer not from cache");
	rg_slab_free(c, q + 1);
	expect_report(q + 1, "pointer not from cache");
	RG_ASSERT_VALID(c);

	/* Writing past the end of an object tramples its red zone. */
	q[100] = 1;
	assert_int_equal(rg_slab_validate(c, NULL), -EINVAL);
	rg_slab_free(c, q);
	expect_report(q, "red zone overwritten");
	q[100] = (char)RG_SLAB_RED_ZONE_BYTE;
	rg_slab_free(c, q);
	assert_int_equal(rep.calls, 0);
	RG_ASSERT_VALID(c);

	/* A write after free breaks the poison: seen on the next alloc. */
	q[5] = 0;
	assert_int_equal(rg_slab_validate(c, NULL), -EINVAL);
	assert_int_equal(rg_slab_alloc_bulk(c, 3, v), 3);
	assert_int_equal(rep.calls, 1);
	assert_string_equal(rep.what, "poison overwritten");
	memset(&rep, 0, sizeof(rep));
	rg_slab_free_bulk(c, 3, v);
	/* A double free inside a bulk free is caught too. */
	assert_int_equal(rg_slab_alloc_bulk(c, 2, v), 2);
	v[2] = v[0];
	rg_slab_free_bulk(c, 3, v);
	expect_report(v[0], "double free");
	RG_ASSERT_VALID(c);
	assert_int_equal(in_use(c), 0);
	rg_slab_set_report_hook(NULL, NULL);
	assert_int_equal(rg_slab_destroy(c), 0);
}

static void test_default_hook_aborts(void **state)
{
	(void)state;
	/* The default hook prints one line and aborts: run it in a child. */
	fflush(NULL);
	pid_t pid = fork();

	if (pid == 0) {
		struct rg_slab_cache *c =
			rg_slab_create("victim", 64, 0, RG_SLAB_CHECK, NULL);
		void *p = rg_slab_alloc(c);

		freopen("/dev/null", "w", stderr);
		rg_slab_free(c, p);
		rg_slab_free(c, p);
		_exit(0); /* not reached */
	}
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
}

/*
 * Without debug flags, an object freed twice in a row is reported and the
 * second free ignored: it is not handed out twice and the counts stay
 * right. Single and bulk frees, with the thread's sheaf full or not.
 */
static void regress_slab_double_free_no_debug(void **state)
{
	struct rg_slab_cache *c = rg_slab_create("dbg", 64, 0, 0, NULL);
	void *p, *a, *b, *v[5];

	(void)state;
	assert_non_null(c);
	rg_slab_set_report_hook(hook, &rep);
	memset(&rep, 0, sizeof(rep));

	p = rg_slab_alloc(c);
	assert_non_null(p);
	rg_slab_free(c, p);
	assert_int_equal(rep.calls, 0);
	rg_slab_free(c, p);
	expect_report(p, "double free");
	assert_int_equal(in_use(c), 0);
	RG_ASSERT_VALID(c);
	a = rg_slab_alloc(c);
	b = rg_slab_alloc(c);
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_int_equal(in_use(c), 2);

	/* A bulk free of the object just freed. */
	rg_slab_free(c, a);
	rg_slab_free_bulk(c, 1, &a);
	expect_report(a, "double free");
	assert_int_equal(in_use(c), 1);

	/* A bulk free, then its last object again (after a NULL entry). */
	assert_int_equal(rg_slab_alloc_bulk(c, 4, v), 4);
	rg_slab_free_bulk(c, 4, v);
	v[4] = NULL;
	rg_slab_free_bulk(c, 2, v + 3);
	expect_report(v[3], "double free");
	rg_slab_free(c, v[3]);
	expect_report(v[3], "double free");
	assert_int_equal(in_use(c), 1);
	RG_ASSERT_VALID(c);
	assert_int_equal(rg_slab_alloc_bulk(c, 5, v), 5);
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < i; j++)
			assert_ptr_not_equal(v[i], v[j]);
	assert_int_equal(in_use(c), 6);
	rg_slab_free_bulk(c, 5, v);
	rg_slab_free(c, b);
	assert_int_equal(rep.calls, 0);
	assert_int_equal(in_use(c), 0);
	RG_ASSERT_VALID(c);
	rg_slab_set_report_hook(NULL, NULL);
	assert_int_equal(rg_slab_destroy(c), 0);

	/* The default hook aborts, as for the debug checks. */
	fflush(NULL);
	pid_t pid = fork();

	if (pid == 0) {
		c = rg_slab_create("victim", 64, 0, 0, NULL);
		p = rg_slab_alloc(c);
		freopen("/dev/null", "w", stderr);
		rg_slab_free(c, p);
		rg_slab_free(c, p);
		_exit(0);
	}
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
}

static void test_kernel_names(void **state)
{
	(void)state;
	struct kmem_cache *c =
		kmem_cache_create("k", 256, 0, SLAB_HWCACHE_ALIGN, NULL);
	void *v[16], *z;
	struct slab_sheaf *sh;

	assert_non_null(c);
	assert_int_equal(kmem_cache_alloc_bulk(c, GFP_KERNEL, 16, v), 16);
	for (int i = 0; i < 16; i++)
		assert_int_equal((uintptr_t)v[i] % 64, 0);
	kmem_cache_free_bulk(c, 16, v);
	z = kmem_cache_zalloc(c, GFP_KERNEL);
	for (int i = 0; i < 256; i++)
		assert_int_equal(((char *)z)[i], 0);
	kmem_cache_free(c, z);
	sh = kmem_cache_prefill_sheaf(c, GFP_KERNEL, 3);
	assert_true(kmem_cache_sheaf_size(sh) >= 3);
	z = kmem_cache_alloc_from_sheaf(c, GFP_KERNEL, sh);
	assert_non_null(z);
	kmem_cache_return_sheaf(c, GFP_KERNEL, sh);
	kmem_cache_free(c, z);
	assert_int_equal(kmem_cache_shrink(c), 0);
	kmem_cache_destroy(c);
}

/* Every call with NULL for each pointer argument: the common.h policy. */
static void regress_slab_null_arguments(void **state)
{
	struct rg_slab_cache *c = rg_slab_create("n", 64, 0, 0, NULL);
	struct rg_slab_sheaf *sh = rg_slab_prefill_sheaf(c, 2), *none = NULL;
	struct rg_slab_stats st;
	const char *why = "x";
	void *v[2] = { NULL, NULL };

	(void)state;
	assert_non_null(sh);
	RG_EXPECT_NULL_EINVAL(rg_slab_create(NULL, 64, 0, 0, NULL));
	RG_EXPECT_NULL_RET(rg_slab_destroy(NULL), 0);
	RG_EXPECT_NULL_EINVAL(rg_slab_alloc(NULL));
	RG_EXPECT_NULL_VOID(rg_slab_free(NULL, v));
	RG_EXPECT_NULL_VOID(rg_slab_free(c, NULL));
	RG_EXPECT_NULL_OK(errno = 0;
			  bool ok_ = rg_slab_alloc_bulk(NULL, 2, v) == 0 &&
				     errno == EINVAL,
			  ok_);
	RG_EXPECT_NULL_OK(errno = 0;
			  bool ok_ = rg_slab_alloc_bulk(c, 2, NULL) == 0 &&
				     errno == EINVAL,
			  ok_);
	RG_EXPECT_NULL_VOID(rg_slab_free_bulk(NULL, 2, v));
	RG_EXPECT_NULL_VOID(rg_slab_free_bulk(c, 2, NULL));
	RG_EXPECT_NULL_EINVAL(rg_slab_prefill_sheaf(NULL, 2));
	RG_EXPECT_NULL_RET(rg_slab_refill_sheaf(NULL, &sh, 4), -EINVAL);
	RG_EXPECT_NULL_RET(rg_slab_refill_sheaf(c, NULL, 4), -EINVAL);
	RG_EXPECT_NULL_RET(rg_slab_refill_sheaf(c, &none, 4), -EINVAL);
	RG_EXPECT_NULL_RET(rg_slab_alloc_from_sheaf(NULL, sh), NULL);
	RG_EXPECT_NULL_RET(rg_slab_alloc_from_sheaf(c, NULL), NULL);
	RG_EXPECT_NULL_RET(rg_slab_sheaf_size(NULL), 0);
	RG_EXPECT_NULL_VOID(rg_slab_return_sheaf(NULL, sh));
	RG_EXPECT_NULL_VOID(rg_slab_return_sheaf(c, NULL));
	RG_EXPECT_NULL_RET(rg_slab_shrink(NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_slab_get_stats(NULL, &st), -EINVAL);
	RG_EXPECT_NULL_RET(rg_slab_get_stats(c, NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_slab_object_size(NULL), 0);
	RG_EXPECT_NULL_RET(rg_slab_name(NULL), NULL);
	RG_EXPECT_NULL_RET(rg_slab_validate(NULL, &why), -EINVAL);
	RG_EXPECT_NULL_RET(rg_slab_validate(NULL, NULL), -EINVAL);
	RG_EXPECT_NULL_RET(rg_slab_validate(c, NULL), 0);
	RG_EXPECT_NULL_VOID(rg_slab_dump(NULL, stderr));
	RG_EXPECT_NULL_VOID(rg_slab_dump(c, NULL));
	RG_EXPECT_NULL_VOID(rg_slab_set_report_hook(NULL, NULL));
	/* In this process too: nothing changed. */
	assert_int_equal(rg_slab_refill_sheaf(c, NULL, 4), -EINVAL);
	rg_slab_free_bulk(c, 2, NULL);
	rg_slab_return_sheaf(c, NULL);
	assert_int_equal(rg_slab_validate(NULL, &why), -EINVAL);
	assert_non_null(why);
	assert_int_equal(rg_slab_sheaf_size(sh), 2);
	RG_ASSERT_VALID(c);
	assert_int_equal(in_use(c), 0);
	rg_slab_return_sheaf(c, sh);
	assert_int_equal(rg_slab_destroy(c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_bad_input),
		cmocka_unit_test(test_alloc_free_alignment),
		cmocka_unit_test(test_bulk),
		cmocka_unit_test(test_sheaf),
		cmocka_unit_test(test_shrink_stats_leaks),
		cmocka_unit_test(test_ctor),
		cmocka_unit_test(test_hugepage),
		cmocka_unit_test(test_debug_checks),
		cmocka_unit_test(test_default_hook_aborts),
		cmocka_unit_test(test_kernel_names),
		cmocka_unit_test(regress_slab_double_free_no_debug),
		cmocka_unit_test(regress_slab_null_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
