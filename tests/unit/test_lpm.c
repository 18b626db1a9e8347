// SPDX-License-Identifier: GPL-2.0
/* LPM trie keys: the kernel bench's layout, byte for byte. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "lpm.h"

struct key4 { __u32 prefixlen; __u8 data[4]; };
struct key16 { __u32 prefixlen; __u8 data[16]; };

/* The kernel's struct trie_key { __u32 prefixlen; __u32 data; } with data = id. */
static void key_is_prefixlen_then_host_order_id(void **state)
{
	struct key4 k;
	struct { __u32 prefixlen, data; } kernel = { 32, 0x01020304 };

	lpm_key(&k, 4, 32, 0x01020304);
	assert_memory_equal(&k, &kernel, sizeof(k));
	lpm_key(&k, 4, 24, 1);
	assert_int_equal(k.prefixlen, 24);
	/* host order (little-endian here): consecutive ids differ in the first byte */
	assert_memory_equal(k.data, ((__u8[]){ 1, 0, 0, 0 }), 4);
}

static void longer_addresses_keep_the_id_first(void **state)
{
	struct key16 k;
	__u8 want[16] = { 0x34, 0x12 };

	lpm_key(&k, 16, 64, 0x1234);
	assert_int_equal(k.prefixlen, 64);
	assert_memory_equal(k.data, want, 16);
}

static void ids_give_distinct_prefixes(void **state)
{
	struct key4 a, b;

	for (__u32 i = 0; i < 255; i++) {
		lpm_key(&a, 4, 8, i);
		lpm_key(&b, 4, 8, i + 1);
		assert_memory_not_equal(a.data, b.data, 1);	/* within the 8-bit prefix */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(key_is_prefixlen_then_host_order_id),
		cmocka_unit_test(longer_addresses_keep_the_id_first),
		cmocka_unit_test(ids_give_distinct_prefixes),
	};
	return cmocka_run_group_tests_name("lpm", tests, NULL, NULL);
}
