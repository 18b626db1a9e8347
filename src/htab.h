/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_HTAB_H
#define MAPBENCH_HTAB_H
#include "bench.h"

extern const struct family htab_family;
/* BPF_MAP_TYPE_ suffix for a --map name of the hash family, or NULL. */
const char *htab_map_suffix(const char *map_name);

#endif
