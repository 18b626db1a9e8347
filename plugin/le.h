/* SPDX-License-Identifier: GPL-2.0 */
/* x86's little-endian fields in an instruction's bytes (the markers'
 * words, branches' displacements), read alike by every decoder. */
#ifndef MAPBENCH_LE_H
#define MAPBENCH_LE_H
#include <stdint.h>

static inline uint32_t mb_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif
