// SPDX-License-Identifier: GPL-2.0
/* LPM trie keys: where an id's bits land. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "lpm.h"

struct key4 { __u32 prefixlen; __u8 data[4]; };
struct key16 { __u32 prefixlen; __u8 data[16]; };

static void id_sits_just_above_the_prefix_length(void **state)
{
	struct key4 k;

	lpm_key(&k, 4, 32, 32, 1);
	assert_int_equal(k.prefixlen, 32);
	assert_memory_equal(k.data, ((__u8[]){ 0, 0, 0, 1 }), 4);
	lpm_key(&k, 4, 24, 24, 0x0203);
	assert_int_equal(k.prefixlen, 24);
	assert_memory_equal(k.data, ((__u8[]){ 0, 2, 3, 0 }), 4);
	lpm_key(&k, 4, 12, 12, 0xfff);
	assert_memory_equal(k.data, ((__u8[]){ 0xff, 0xf0, 0, 0 }), 4);
}

static void lookup_keys_use_the_full_length(void **state)
{
	struct key4 k;

	lpm_key(&k, 4, 24, 32, 5);
	assert_int_equal(k.prefixlen, 32);
	assert_memory_equal(k.data, ((__u8[]){ 0, 0, 5, 0 }), 4);
}

static void ipv6_keys(void **state)
{
	struct key16 k;
	__u8 want[16] = { [6] = 0x12, [7] = 0x34 };

	lpm_key(&k, 16, 64, 64, 0x1234);
	assert_memory_equal(k.data, want, 16);
}

static void ids_give_distinct_prefixes(void **state)
{
	struct key4 a, b;

	for (__u32 i = 0; i < 255; i++) {
		lpm_key(&a, 4, 8, 8, i);
		lpm_key(&b, 4, 8, 8, i + 1);
		assert_memory_not_equal(a.data, b.data, 4);
		assert_int_equal(a.data[1] | a.data[2] | a.data[3], 0);	/* nothing past the prefix */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(id_sits_just_above_the_prefix_length),
		cmocka_unit_test(lookup_keys_use_the_full_length),
		cmocka_unit_test(ipv6_keys),
		cmocka_unit_test(ids_give_distinct_prefixes),
	};
	return cmocka_run_group_tests_name("lpm", tests, NULL, NULL);
}
