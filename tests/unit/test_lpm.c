// SPDX-License-Identifier: GPL-2.0
/* LPM trie keys: the kernel bench's layout, byte for byte. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "lpm.h"
#include "prefixes.h"

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

/* 24:60,16:40 over 1001 prefixes: 601 and 400 (the remainder to the
 * larger fraction); a range gives its lengths equal shares. */
static void a_mix_counts_each_length_its_share(void **state)
{
	struct prefix_mix mix;
	long count[PREFIX_MIX_MAX + 1];

	assert_int_equal(prefix_mix_parse("24:60,16:40", &mix), 0);
	prefix_mix_counts(&mix, 1001, count);
	assert_int_equal(count[24], 601);
	assert_int_equal(count[16], 400);
	assert_int_equal(prefix_mix_longest(&mix), 24);
	assert_int_equal(prefix_mix_parse("8..11", &mix), 0);
	prefix_mix_counts(&mix, 40, count);
	for (int len = 8; len <= 11; len++)
		assert_int_equal(count[len], 10);
	assert_int_equal(count[7] + count[12], 0);
	assert_int_equal(prefix_mix_overfull(&mix, 40), -1);
	assert_int_equal(prefix_mix_overfull(&mix, 1100), 8);	/* 275 /8s, 256 of them */
}

static void bad_mixes_are_refused(void **state)
{
	const char *bad[] = { "8..", "32..8", "8..65", "24:0", "24:-1", "24:1,24:2", "24:1,",
			      "x:1", "24" };
	struct prefix_mix mix;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!prefix_mix_parse(bad[i], &mix))
			fail_msg("'%s' parsed", bad[i]);
}

static int by_key(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct key4));
}

/* Every stored prefix distinct, its bits past the length zero; each
 * address lies under its prefix, with the key's whole length. */
static void a_table_holds_distinct_prefixes(void **state)
{
	enum { N = 4000 };
	static struct key4 keys[N];
	struct prefix_table t;
	struct prefix_mix mix;

	assert_int_equal(prefix_mix_parse("10..32", &mix), 0);
	assert_int_equal(prefix_table_make(&t, &mix, N, 7), 0);
	for (long id = 0; id < N; id++) {
		struct key4 addr;
		__u32 p, a, mask;

		prefix_key(&t, id, 4, false, &keys[id]);
		prefix_key(&t, id, 4, true, &addr);
		mask = keys[id].prefixlen ? ~0U << (32 - keys[id].prefixlen) : 0;
		p = __builtin_bswap32(*(__u32 *)keys[id].data);
		a = __builtin_bswap32(*(__u32 *)addr.data);
		assert_int_equal(p & ~mask, 0);
		assert_int_equal(a & mask, p);
		assert_int_equal(addr.prefixlen, 32);
	}
	qsort(keys, N, sizeof(keys[0]), by_key);
	for (long i = 1; i < N; i++)
		assert_memory_not_equal(&keys[i - 1], &keys[i], sizeof(keys[0]));
	prefix_table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(key_is_prefixlen_then_host_order_id),
		cmocka_unit_test(longer_addresses_keep_the_id_first),
		cmocka_unit_test(ids_give_distinct_prefixes),
		cmocka_unit_test(a_mix_counts_each_length_its_share),
		cmocka_unit_test(bad_mixes_are_refused),
		cmocka_unit_test(a_table_holds_distinct_prefixes),
	};
	return cmocka_run_group_tests_name("lpm", tests, NULL, NULL);
}
