/* SPDX-License-Identifier: GPL-2.0 */
/* The window protocol between ./bench in a guest and the cache-model plugin
 * (plugin/plugin.c): the bench marks where its measured intervals start and
 * end with an 8-byte NOP, nopl DISP(%rax,%rax,1), whose displacement holds a
 * magic and a command. Any x86 CPU runs it as a NOP; the plugin finds it when
 * QEMU translates the code and acts when it executes. No register is read,
 * so the marker costs nothing outside the model. */
#ifndef MAPBENCH_MARKER_H
#define MAPBENCH_MARKER_H
#include <stddef.h>
#include <stdint.h>

#define MB_MARK_MAGIC 0x4d42u	/* "MB", the displacement's upper half */
#define MB_MARK_LEN 8

enum mb_mark {
	MB_MARK_NONE,
	MB_MARK_BEGIN,	/* a run starts: cold caches, window 0 opens */
	MB_MARK_NEXT,	/* the window closes and the next one opens */
	MB_MARK_END,	/* the window closes; the run is over */
	MB_MARK_MEASURED,	/* the warmup samples are over: the profile starts again */
	MB_MARK_MAX,
};

#define MB_MARK_DISP(cmd) ((MB_MARK_MAGIC << 16) | (cmd))

#if defined(__x86_64__)
#define mb_mark(cmd)                                                        \
	__asm__ volatile(".byte 0x0f, 0x1f, 0x84, 0x00\n\t.long %c0"          \
			 : : "i"(MB_MARK_DISP(cmd)) : "memory")
#else
#define mb_mark(cmd) ((void)(cmd))
#endif

/* The command an instruction's bytes carry, or MB_MARK_NONE. */
static inline enum mb_mark mb_mark_decode(const uint8_t *insn, size_t len)
{
	uint32_t disp;

	if (len != MB_MARK_LEN || insn[0] != 0x0f || insn[1] != 0x1f || insn[2] != 0x84 ||
	    insn[3] != 0x00)
		return MB_MARK_NONE;
	disp = insn[4] | insn[5] << 8 | insn[6] << 16 | (uint32_t)insn[7] << 24;
	if (disp >> 16 != MB_MARK_MAGIC || (disp & 0xffff) == MB_MARK_NONE ||
	    (disp & 0xffff) >= MB_MARK_MAX)
		return MB_MARK_NONE;
	return disp & 0xffff;
}

#endif
