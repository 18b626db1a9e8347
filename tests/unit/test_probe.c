// SPDX-License-Identifier: GPL-2.0
/* Map-type resolution by name from BTF, on a BTF built here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <bpf/btf.h>
#include "probe.h"

static struct btf *btf_with_map_types(bool with_rhash)
{
	struct btf *btf = btf__new_empty();

	btf__add_enum(btf, "bpf_map_type", 4);
	btf__add_enum_value(btf, "BPF_MAP_TYPE_UNSPEC", 0);
	btf__add_enum_value(btf, "BPF_MAP_TYPE_HASH", 1);
	btf__add_enum_value(btf, "BPF_MAP_TYPE_ARENA", 33);
	if (with_rhash)
		btf__add_enum_value(btf, "BPF_MAP_TYPE_RHASH", 35);
	btf__add_enum(btf, "other_enum", 4);
	btf__add_enum_value(btf, "BPF_MAP_TYPE_RHASH_DECOY", 99);
	return btf;
}

static void finds_types_by_name(void **state)
{
	struct btf *btf = btf_with_map_types(true);

	assert_int_equal(btf_enum_value(btf, "bpf_map_type", "BPF_MAP_TYPE_HASH"), 1);
	assert_int_equal(btf_enum_value(btf, "bpf_map_type", "BPF_MAP_TYPE_RHASH"), 35);
	btf__free(btf);
}

static void absent_type_is_minus_one(void **state)
{
	struct btf *btf = btf_with_map_types(false);

	assert_int_equal(btf_enum_value(btf, "bpf_map_type", "BPF_MAP_TYPE_RHASH"), -1);
	assert_int_equal(btf_enum_value(btf, "no_such_enum", "BPF_MAP_TYPE_HASH"), -1);
	btf__free(btf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(finds_types_by_name),
		cmocka_unit_test(absent_type_is_minus_one),
	};
	return cmocka_run_group_tests_name("probe", tests, NULL, NULL);
}
