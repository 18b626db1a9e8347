/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_ENV_H
#define MAPBENCH_ENV_H
#include <jansson.h>
#include "bench.h"

/* The machine and kernel a result was measured on; "unknown" where unreadable. */
json_t *env_json(const struct run *run);
/* The BPF programs loaded now, as kallsyms lists them ([{name, addr}]),
 * an empty list where it lists none (net.core.bpf_jit_kallsyms 0): read
 * while the run's programs are loaded, so a profile can name them. */
json_t *env_bpf_programs(void);
/* The mapbench revision this binary was built from (git describe). */
const char *mapbench_revision(void);

#endif
