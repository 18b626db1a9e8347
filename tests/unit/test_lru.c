// SPDX-License-Identifier: GPL-2.0
/* The LRU arrays (plugin/lru.c): a fully associative array of many ways
 * (hash index and use stamps) replaces as an ordered list does, on long
 * random traces that hit, miss and evict; a clear empties it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "lru.h"

#define WAYS 72

/* The reference: keys most recently used first. */
static void naive_touch(uint64_t *list, int *len, uint64_t key, bool insert)
{
	int i = 0;

	while (i < *len && list[i] != key)
		i++;
	if (i == *len) {
		if (!insert)
			return;
		if (*len < WAYS)
			(*len)++;
		i = *len - 1;
	}
	memmove(list + 1, list, i * sizeof(*list));
	list[0] = key;
}

static void an_indexed_array_replaces_as_an_ordered_list(void **state)
{
	struct mb_lru s;
	uint64_t list[WAYS];
	int len = 0, hits = 0, misses = 0;

	assert_int_equal(mb_lru_init(&s, WAYS, WAYS), 0);
	assert_non_null(s.index);	/* the path under test */
	srand(11);
	for (int i = 0; i < 200000; i++) {
		/* keys that collide in the index too: multiples of a power of two */
		uint64_t key = (uint64_t)(rand() % (WAYS + 24)) << (rand() % 2 ? 12 : 30);
		bool insert = rand() % 4 != 0, was = false;

		for (int j = 0; j < len; j++)
			was |= list[j] == key;
		assert_int_equal(insert ? mb_lru_touch(&s, key) : mb_lru_find(&s, key), was);
		naive_touch(list, &len, key, insert);
		was ? hits++ : misses++;
		if (i == 100000) {	/* cleared: empty again */
			mb_lru_clear(&s);
			len = 0;
		}
	}
	assert_true(hits > 10000 && misses > 10000);
	mb_lru_free(&s);
}

static void a_small_array_keeps_its_list(void **state)
{
	struct mb_lru s;

	assert_int_equal(mb_lru_init(&s, 64, 8), 0);
	assert_null(s.index);
	assert_false(mb_lru_touch(&s, 5));
	assert_true(mb_lru_find(&s, 5));
	mb_lru_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_indexed_array_replaces_as_an_ordered_list),
		cmocka_unit_test(a_small_array_keeps_its_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
