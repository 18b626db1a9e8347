// SPDX-License-Identifier: GPL-2.0
/* mb_err's last line belongs to the thread that printed it: producers that
 * fail at once must not overwrite each other's, or the main thread's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <string.h>
#include <cmocka.h>
#include "bench.h"

static void *fail_in_a_producer(void *line)
{
	mb_err("%s", (const char *)line);
	return strcmp(mb_last_error(), line) ? "lost" : NULL;
}

static void each_thread_keeps_its_own_error(void **state)
{
	pthread_t t;
	void *lost;

	mb_err("the main thread's error");
	assert_int_equal(pthread_create(&t, NULL, fail_in_a_producer, "producer 1: batch failed"), 0);
	assert_int_equal(pthread_join(t, &lost), 0);
	assert_null(lost);
	assert_string_equal(mb_last_error(), "the main thread's error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(each_thread_keeps_its_own_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
