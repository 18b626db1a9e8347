/* SPDX-License-Identifier: GPL-2.0 */
/* The commands of the window protocol (marker.h), shared by ./bench, its BPF
 * programs (progs/common.bpf.h) and the plugin; no includes, so that BPF C
 * can take it. */
#ifndef MAPBENCH_MARKER_CMD_H
#define MAPBENCH_MARKER_CMD_H

#define MB_MARK_MAGIC 0x4d42u	/* "MB", the upper half of a marker's 32-bit word */

enum mb_mark {
	MB_MARK_NONE,
	MB_MARK_BEGIN,	/* a run starts: cold caches, window 0 opens */
	MB_MARK_NEXT,	/* the window closes and the next one opens */
	MB_MARK_END,	/* the window closes; the run is over */
	MB_MARK_MEASURED,	/* the warmup samples are over: the profile starts again */
	MB_MARK_TIMED,	/* this vCPU enters the work its program times (BPF) */
	MB_MARK_UNTIMED,	/* and leaves it */
	MB_MARK_MAX,
};

#define MB_MARK_WORD(cmd) ((MB_MARK_MAGIC << 16) | (cmd))

#endif
