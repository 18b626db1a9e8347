// SPDX-License-Identifier: GPL-2.0
/* mapbench's cache model: a TCG plugin for QEMU 10 that, inside the windows
 * the guest's bench marks (marker.h), counts instructions and simulates a data
 * cache hierarchy on every guest load and store (cache.h), and writes the
 * counts per window (windows.h). It runs beside -icount, which stays the
 * guest's clock: the model is a second, exact measurement of the same run.
 *
 *   -plugin mapbench-model.so,out=FILE,name=NAME,l1d=BYTES:WAYS,l2=BYTES:WAYS,
 *           llc=BYTES:WAYS,line=BYTES[,profile=on]
 *
 * profile=on also counts per block of kernel code (profile.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qemu-plugin-api.h"
#include "profile.h"
#include "windows.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 4;

struct insn_counts {
	uint64_t insns[MB_MODES];
};

static struct mb_windows windows;
static struct mb_profile sites;		/* every kernel block translated */
static bool profiling;
static struct qemu_plugin_scoreboard *insn_board;
static uint64_t *insns_now;	/* [cpu * MB_MODES + mode], read at each marker */

/* Kernel text and data live in the upper half of x86-64's address space. */
static enum mb_mode mode_of(uint64_t vaddr)
{
	return vaddr >> 63 ? MB_KERNEL : MB_USER;
}

static qemu_plugin_u64 insn_entry(enum mb_mode mode)
{
	return (qemu_plugin_u64){ insn_board,
				  offsetof(struct insn_counts, insns) + mode * sizeof(uint64_t) };
}

static void on_mark(unsigned int vcpu, void *udata)
{
	for (int cpu = 0; cpu < windows.ncpus; cpu++)
		for (int m = 0; m < MB_MODES; m++)
			insns_now[cpu * MB_MODES + m] = qemu_plugin_u64_get(insn_entry(m), cpu);
	mb_windows_mark(&windows, (enum mb_mark)(uintptr_t)udata, insns_now);
}

/* udata: the site of a kernel block, NULL for user code. */
static void on_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
		      void *udata)
{
	struct mb_site *site = udata;
	struct qemu_plugin_hwaddr *hw;

	if (!windows.open)
		return;
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return;		/* device registers are not cached memory */
	mb_windows_access(&windows, vcpu, site ? MB_KERNEL : MB_USER,
			  qemu_plugin_hwaddr_phys_addr(hw), 1u << qemu_plugin_mem_size_shift(info),
			  profiling && site ? &site->counts : NULL);
}

static void on_block(unsigned int vcpu, void *udata)
{
	struct mb_site *site = udata;

	if (windows.open)
		site->counts.insns += site->insns;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	enum mb_mode mode = mode_of(vaddr);
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct mb_site *site = mode == MB_KERNEL ? mb_profile_site(&sites, vaddr, n) : NULL;

	/* Counted per block entered: a block left early by an interrupt counts whole. */
	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							  insn_entry(mode), n);
	if (profiling && site)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS, site);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint8_t bytes[MB_MARK_LEN];
		size_t len = qemu_plugin_insn_size(insn);
		enum mb_mark mark = MB_MARK_NONE;

		if (len == MB_MARK_LEN && qemu_plugin_insn_data(insn, bytes, len) == len)
			mark = mb_mark_decode(bytes, len);
		if (mark != MB_MARK_NONE)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)mark);
		else
			qemu_plugin_register_vcpu_mem_cb(insn, on_access, QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW, site);
	}
}

static void on_qemu_exit(qemu_plugin_id_t id, void *udata)
{
	fclose(windows.out);
}

/* "BYTES:WAYS" into a level of g; -1 if it is not that. */
static int parse_level(const char *text, struct mb_geometry *g, enum mb_level l)
{
	char *end;

	g->size[l] = strtoull(text, &end, 10);
	if (*end != ':')
		return -1;
	g->ways[l] = strtoul(end + 1, &end, 10);
	return *end ? -1 : 0;
}

static int fail(const char *what, const char *why)
{
	char line[512];

	snprintf(line, sizeof(line), "mapbench-model: %s: %s\n", what, why);
	qemu_plugin_outs(line);
	return -1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	static const char *const levels[MB_LEVELS] = { "l1d=", "l2=", "llc=" };
	struct mb_geometry g = { .line = 64 };
	const char *out = NULL, *name = "custom", *why;
	struct mb_cache *cache;
	int ncpus;
	FILE *f;

	if (!info->system_emulation || strcmp(info->target_name, "x86_64"))
		return fail(info->target_name, "the model runs x86_64 system emulation only");
	ncpus = info->system.max_vcpus;
	for (int i = 0; i < argc; i++) {
		int l;

		for (l = 0; l < MB_LEVELS && strncmp(argv[i], levels[l], strlen(levels[l])); l++)
			;
		if (l < MB_LEVELS) {
			if (parse_level(argv[i] + strlen(levels[l]), &g, l))
				return fail(argv[i], "give BYTES:WAYS");
		} else if (!strncmp(argv[i], "line=", 5)) {
			g.line = strtoul(argv[i] + 5, NULL, 10);
		} else if (!strncmp(argv[i], "out=", 4)) {
			out = argv[i] + 4;
		} else if (!strncmp(argv[i], "name=", 5)) {
			name = argv[i] + 5;
		} else if (!strcmp(argv[i], "profile=on")) {
			profiling = true;
		} else {
			return fail(argv[i], "unknown argument (out, name, l1d, l2, llc, line, "
				    "profile)");
		}
	}
	if (!out)
		return fail("out", "missing: give out=FILE for the counts");
	cache = mb_cache_new(&g, ncpus, &why);
	if (!cache)
		return fail("geometry", why);
	f = fopen(out, "w");
	if (!f)
		return fail(out, "cannot create");
	insn_board = qemu_plugin_scoreboard_new(sizeof(struct insn_counts));
	insns_now = calloc((size_t)ncpus * MB_MODES, sizeof(*insns_now));
	if (!insns_now || mb_windows_init(&windows, cache, ncpus, f) || mb_profile_init(&sites))
		return fail("memory", "out of memory");
	windows.profile = profiling ? &sites : NULL;
	mb_windows_header(&windows, &g, name);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
