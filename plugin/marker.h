/* SPDX-License-Identifier: GPL-2.0 */
/* The window protocol between ./bench in a guest and the cache-model plugin
 * (plugin/plugin.c): the bench marks where its measured intervals start and
 * end with an 8-byte NOP, nopl DISP(%rax,%rax,1), whose displacement holds a
 * magic and a command (marker_cmd.h). Any x86 CPU runs it as a NOP; the
 * plugin finds it when QEMU translates the code and acts when it executes.
 * No register is read, so the marker costs nothing outside the model.
 * Its BPF programs mark the work they time with a load of a constant whose
 * halves are both the marker's word; the x86 JIT emits it as one movabs
 * (REX.W B8+r imm64), a register load on any CPU. */
#ifndef MAPBENCH_MARKER_H
#define MAPBENCH_MARKER_H
#include <stddef.h>
#include <stdint.h>
#include "le.h"
#include "marker_cmd.h"

#define MB_MARK_LEN 8		/* the nopl form */
#define MB_MARK_BPF_LEN 10	/* the movabs form */

#if defined(__x86_64__)
#define mb_mark(cmd)                                                        \
	__asm__ volatile(".byte 0x0f, 0x1f, 0x84, 0x00\n\t.long %c0"          \
			 : : "i"(MB_MARK_WORD(cmd)) : "memory")
#else
#define mb_mark(cmd) ((void)(cmd))
#endif

/* The command a marker's word carries, or MB_MARK_NONE. */
static inline enum mb_mark mb_mark_of_word(uint32_t word)
{
	if (word >> 16 != MB_MARK_MAGIC || (word & 0xffff) == MB_MARK_NONE ||
	    (word & 0xffff) >= MB_MARK_MAX)
		return MB_MARK_NONE;
	return word & 0xffff;
}

/* The command an instruction's bytes carry (either form), or MB_MARK_NONE. */
static inline enum mb_mark mb_mark_decode(const uint8_t *insn, size_t len)
{
	if (len == MB_MARK_LEN && insn[0] == 0x0f && insn[1] == 0x1f && insn[2] == 0x84 &&
	    insn[3] == 0x00)
		return mb_mark_of_word(mb_le32(insn + 4));
	if (len == MB_MARK_BPF_LEN && (insn[0] & 0xfe) == 0x48 && (insn[1] & 0xf8) == 0xb8 &&
	    mb_le32(insn + 2) == mb_le32(insn + 6))
		return mb_mark_of_word(mb_le32(insn + 2));
	return MB_MARK_NONE;
}

#endif
