/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MAPBENCH_HTAB_H
#define MAPBENCH_HTAB_H
#include "bench.h"

extern const struct family htab_family;

#endif
