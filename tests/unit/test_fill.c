// SPDX-License-Identifier: GPL-2.0
/* map_fill (free.h) against a kernel that refuses inserts for now: the
 * BPF memory allocator's ENOMEM is asked again and counted, nothing is
 * inserted twice or left out, any other error ends the fill at once. The
 * kernel is this file's bpf_map_update_batch and bpf_map_update_elem,
 * which the test binary's own definitions put before libbpf's. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include "free.h"

#define N 10

static struct {
	int batch_errno;	/* the batch's error (0: the batch works) */
	int batch_takes;	/* how many a failing batch takes first */
	int enomem;		/* inserts refused with ENOMEM before one works */
	int elem_errno;		/* every insert's error once enomem is spent (0: none) */
	int inserted[N];	/* times each key went in */
} kernel;

static void insert(const void *keys, int i)
{
	kernel.inserted[((const __u32 *)keys)[i]]++;
}

int bpf_map_update_batch(int fd, const void *keys, const void *values, __u32 *count,
			 const struct bpf_map_batch_opts *opts)
{
	if (!kernel.batch_errno) {
		for (__u32 i = 0; i < *count; i++)
			insert(keys, i);
		return 0;
	}
	for (int i = 0; i < kernel.batch_takes; i++)
		insert(keys, i);
	*count = kernel.batch_takes;
	errno = kernel.batch_errno;
	kernel.batch_errno = kernel.batch_errno == ENOMEM ? 0 : kernel.batch_errno;
	return -1;
}

int bpf_map_update_elem(int fd, const void *key, const void *value, __u64 flags)
{
	if (kernel.enomem > 0) {
		kernel.enomem--;
		errno = ENOMEM;
		return -1;
	}
	if (kernel.elem_errno) {
		errno = kernel.elem_errno;
		return -1;
	}
	insert(key, 0);
	return 0;
}

static __u32 keys[N] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
static __u64 vals[N];

static void each_key_once(void)
{
	for (int i = 0; i < N; i++)
		assert_int_equal(kernel.inserted[i], 1);
}

static void a_batch_refused_part_way_goes_on_where_it_stopped(void **unused)
{
	long retries = 0;

	memset(&kernel, 0, sizeof(kernel));
	kernel.batch_errno = ENOMEM;
	kernel.batch_takes = 3;
	assert_int_equal(map_fill(1, keys, sizeof(*keys), vals, sizeof(*vals), N, &retries), 0);
	assert_int_equal(retries, 1);
	each_key_once();
}

static void inserts_refused_for_now_are_asked_again(void **unused)
{
	long retries = 0;

	memset(&kernel, 0, sizeof(kernel));
	kernel.batch_errno = EOPNOTSUPP;	/* no batch ops: one at a time */
	kernel.enomem = 4;
	assert_int_equal(map_fill(1, keys, sizeof(*keys), vals, sizeof(*vals), N, &retries), 0);
	assert_int_equal(retries, 4);
	each_key_once();
}

static void another_error_ends_the_fill_at_once(void **unused)
{
	long retries = 0;

	memset(&kernel, 0, sizeof(kernel));
	kernel.batch_errno = EOPNOTSUPP;
	kernel.elem_errno = E2BIG;
	assert_int_equal(map_fill(1, keys, sizeof(*keys), vals, sizeof(*vals), N, &retries),
			 -E2BIG);
	assert_int_equal(retries, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_batch_refused_part_way_goes_on_where_it_stopped),
		cmocka_unit_test(inserts_refused_for_now_are_asked_again),
		cmocka_unit_test(another_error_ends_the_fill_at_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
