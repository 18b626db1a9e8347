/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_PROBE_H
#define MAPBENCH_PROBE_H
#include <stdbool.h>

struct btf;

/* Value of enumerator `name` of enum `enum_name` in btf, or -1. */
long btf_enum_value(const struct btf *btf, const char *enum_name, const char *name);
/* enum bpf_map_type value of BPF_MAP_TYPE_<suffix> in the running kernel, or -1. */
long kernel_map_type(const char *suffix);
/* Whether the running kernel's BTF has function `name` (a kfunc, a syscall). */
bool kernel_has_func(const char *name);
/* Whether this process may load BPF programs (root, or CAP_BPF + CAP_PERFMON +
 * CAP_NET_ADMIN); else *missing names the first capability lacking. */
bool have_bpf_caps(const char **missing);
/* Release string of the running kernel, e.g. "6.18.44". */
const char *kernel_release(void);

#endif
