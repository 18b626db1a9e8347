// SPDX-License-Identifier: GPL-2.0
/* mapbench's cache model: a TCG plugin for QEMU 10 that, inside the windows
 * the guest's bench marks (marker.h), counts instructions and simulates a data
 * cache hierarchy on every guest load and store (cache.h), and writes the
 * counts per window (windows.h). It runs beside -icount, which stays the
 * guest's clock: the model is a second, exact measurement of the same run.
 *
 *   -plugin mapbench-model.so,out=FILE,name=NAME,l1d=BYTES:WAYS,l2=BYTES:WAYS,
 *           llc=BYTES:WAYS,line=BYTES[,profile=on]
 *           [,dtlb=TLB,stlb=TLB,pwc=ENTRIES,direct_map=ADDRESS][,rob=INSNS,mshr=MISSES]
 *           [,stream=LINES][,stride=on][,adjacent=on][,wait=INSNS:INSNS:INSNS]
 *           [,branch=TABLE_BITS:HISTORY_BITS][,trace=FILE[,trace_accesses=N]]
 *
 * profile=on also counts per block of kernel code (profile.h). dtlb= models
 * the TLBs (mmu.h): TLB is a level's arrays joined by '+', each
 * PAGES:ENTRIES:WAYS with PAGES letters k (4 KiB), m (2 MiB), g (1 GiB) or s
 * (1 GiB held as 2 MiB); e.g. dtlb=kmg:72:72,stlb=kms:3072:24. A walk reads
 * the guest's page tables through its direct map (direct_map=, the start of
 * x86-64's with 4-level paging and no KASLR by default) from the CR3 a vCPU
 * had at its last marker. rob= and mshr= model overlapping misses (overlap.h);
 * stream=LINES, stride=on and adjacent=on the prefetchers (prefetch.h), whose
 * lines take wait=L2:LLC:MEMORY instructions to arrive from each level;
 * branch= the branch predictor (branch.h): a block that ends in a
 * conditional branch leaves it pending, and the next block entered says
 * which way it went. trace= records what the model is given (trace.h), up
 * to trace_accesses accesses (default 4 million), for make model-cost to
 * replay. machine.c parses these.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qemu-plugin-api.h"
#include "machine.h"
#include "profile.h"
#include "trace.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 4;

struct insn_counts {
	uint64_t insns[MB_MODES];
};

static struct mb_windows windows;
static struct mb_trace trace;		/* trace=, while it records */
static struct mb_profile sites;		/* every kernel block translated */
static bool profiling;
static struct qemu_plugin_scoreboard *insn_board;
static uint64_t *insns_now;	/* [cpu * MB_MODES + mode], read at each marker */
static struct qemu_plugin_register *cr3;	/* with the TLBs: read at each marker */
static GByteArray *scratch;	/* a register's or a page-table entry's bytes (emptied first:
				 * a register read appends to it) */
static uint64_t direct_map;
/* with the predictor: per vCPU, the insn_site of the conditional branch
 * that ended the last block, until the next block resolves it; 0: none */
static struct qemu_plugin_scoreboard *pending_board;
/* What an access callback is told of its instruction: its address (the
 * stride prefetcher follows each instruction) and its block's site (NULL in
 * user code); one per instruction and site, kept for QEMU's lifetime. A
 * conditional branch's also says where it goes either way. */
struct insn_site {
	uint64_t pc;
	struct mb_site *site;
	uint64_t fallthrough, target;
};
/* every insn_site made, by (pc, site): open addressing, at most half full */
static struct insn_site **insn_sites;
static size_t insn_sites_size, insn_sites_used;

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

/* x86 is little-endian; a short read is 0. */
static uint64_t scratch_u64(void)
{
	uint64_t v = 0;

	for (unsigned int i = scratch->len < 8 ? scratch->len : 8; i--;)
		v = v << 8 | scratch->data[i];
	return v;
}

static bool read_phys(void *ctx, uint64_t paddr, uint64_t *value)
{
	bool read;

	g_byte_array_set_size(scratch, 0);
	read = qemu_plugin_read_memory_vaddr(direct_map + paddr, scratch, 8) && scratch->len >= 8;
	*value = read ? scratch_u64() : 0;
	if (mb_trace_on(&trace))
		mb_trace_pte(&trace, paddr, *value, read);
	return read;
}

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	GArray *regs = qemu_plugin_get_registers();
	qemu_plugin_reg_descriptor *r = (qemu_plugin_reg_descriptor *)regs->data;

	for (unsigned int i = 0; i < regs->len && !cr3; i++)
		if (!strcmp(r[i].name, "cr3"))
			cr3 = r[i].handle;
	g_array_free(regs, 1);
}

static void on_mark(unsigned int vcpu, void *udata)
{
	enum mb_mark mark = (enum mb_mark)(uintptr_t)udata;
	bool open;

	if (windows.mmu && cr3 && g_byte_array_set_size(scratch, 0) &&
	    qemu_plugin_read_register(cr3, scratch) >= 8) {
		mb_mmu_set_root(windows.mmu, vcpu, scratch_u64());
		if (mb_trace_on(&trace))
			mb_trace_root(&trace, vcpu, scratch_u64());
	}
	for (int cpu = 0; cpu < windows.ncpus; cpu++)
		for (int m = 0; m < MB_MODES; m++)
			insns_now[cpu * MB_MODES + m] = qemu_plugin_u64_get(insn_entry(m), cpu);
	if (mb_trace_on(&trace))
		mb_trace_mark(&trace, mark, vcpu, insns_now);
	open = windows.open;
	mb_windows_mark(&windows, mark, vcpu, insns_now);
	if (profiling)
		mb_profile_mark(&sites, &windows, mark, open);
}

/* What an access loaded or stored (its low 64 bits), and the vCPU's
 * instructions at its block: asked for only when it missed L1D. */
struct access_ctx {
	qemu_plugin_meminfo_t info;
	unsigned int vcpu;
};

static void complete_access(struct mb_access *a, const void *ctx)
{
	const struct access_ctx *c = ctx;
	qemu_plugin_mem_value v = qemu_plugin_mem_get_value(c->info);

	switch (v.type) {
	case QEMU_PLUGIN_MEM_VALUE_U8:
		a->value = v.data.u8;
		break;
	case QEMU_PLUGIN_MEM_VALUE_U16:
		a->value = v.data.u16;
		break;
	case QEMU_PLUGIN_MEM_VALUE_U32:
		a->value = v.data.u32;
		break;
	case QEMU_PLUGIN_MEM_VALUE_U64:
		a->value = v.data.u64;
		break;
	default:
		a->value = v.data.u128.low;
	}
	a->insns = qemu_plugin_u64_get(insn_entry(MB_KERNEL), c->vcpu) +
		   qemu_plugin_u64_get(insn_entry(MB_USER), c->vcpu);
}

static size_t insn_site_slot(struct insn_site **table, size_t size, uint64_t pc,
			     const struct mb_site *site)
{
	size_t i = ((pc ^ (uintptr_t)site) * 0x9e3779b97f4a7c15ull) & (size - 1);

	while (table[i] && (table[i]->pc != pc || table[i]->site != site))
		i = (i + 1) & (size - 1);
	return i;
}

/* The table twice as large, or exit: the plugin cannot go on without it. */
static void insn_sites_grow(void)
{
	size_t size = insn_sites_size ? 2 * insn_sites_size : 1 << 16;
	struct insn_site **table = calloc(size, sizeof(*table));

	if (!table) {
		qemu_plugin_outs("mapbench-model: out of memory\n");
		abort();
	}
	for (size_t i = 0; i < insn_sites_size; i++)
		if (insn_sites[i])
			table[insn_site_slot(table, size, insn_sites[i]->pc,
					     insn_sites[i]->site)] = insn_sites[i];
	free(insn_sites);
	insn_sites = table;
	insn_sites_size = size;
}

/* The instruction's insn_site: one per (pc, site), as blocks are translated again. */
static struct insn_site *insn_site_of(uint64_t pc, struct mb_site *site)
{
	size_t i;

	if (2 * (insn_sites_used + 1) > insn_sites_size)
		insn_sites_grow();
	i = insn_site_slot(insn_sites, insn_sites_size, pc, site);
	if (!insn_sites[i]) {
		if (!(insn_sites[i] = malloc(sizeof(**insn_sites)))) {
			qemu_plugin_outs("mapbench-model: out of memory\n");
			abort();
		}
		*insn_sites[i] = (struct insn_site){ pc, site, 0, 0 };
		insn_sites_used++;
	}
	return insn_sites[i];
}

/* udata: the instruction's insn_site. */
static void on_access(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
		      void *udata)
{
	const struct insn_site *insn = udata;
	struct mb_site *site = insn->site;
	struct qemu_plugin_hwaddr *hw;
	const struct access_ctx ctx = { info, vcpu };
	struct mb_access a = { .vaddr = vaddr, .pc = insn->pc, .complete = complete_access,
			       .ctx = &ctx };
	const bool recording = mb_trace_on(&trace);
	const enum mb_mode mode = site ? MB_KERNEL : MB_USER;

	if (!windows.open)
		return;
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return;		/* device registers are not cached memory */
	a.paddr = qemu_plugin_hwaddr_phys_addr(hw);
	a.size = 1u << qemu_plugin_mem_size_shift(info);
	/* recorded with its value and instructions, after its walk's reads */
	if (recording) {
		complete_access(&a, &ctx);
		a.complete = NULL;
		a.store = qemu_plugin_mem_is_store(info);
	}
	mb_windows_access(&windows, vcpu, mode, &a, profiling && site ? &site->counts : NULL);
	if (recording)
		mb_trace_access(&trace, &windows, vcpu, mode, &a);
}

static void on_block(unsigned int vcpu, void *udata)
{
	struct mb_site *site = udata;

	if (mb_windows_profiling(&windows, vcpu))
		site->counts.insns += site->insns;
}

static qemu_plugin_u64 pending_entry(void)
{
	return (qemu_plugin_u64){ pending_board, 0 };
}

/* udata: the address of the block entered after a pending branch. A block
 * that is neither of its ways follows an interrupt or an exception: the
 * branch did not run (or ran unseen) and is not counted. */
static void on_branch_resolved(unsigned int vcpu, void *udata)
{
	uint64_t vaddr = (uintptr_t)udata;
	const struct insn_site *b =
		(const void *)(uintptr_t)qemu_plugin_u64_get(pending_entry(), vcpu);

	qemu_plugin_u64_set(pending_entry(), vcpu, 0);
	if (vaddr != b->fallthrough && vaddr != b->target)
		return;
	mb_windows_branch(&windows, vcpu, mode_of(b->pc), b->pc, vaddr != b->fallthrough,
			  profiling && b->site ? &b->site->counts : NULL);
	if (mb_trace_on(&trace) && windows.open)
		mb_trace_branch(&trace, vcpu, mode_of(b->pc), b->pc, vaddr != b->fallthrough);
}

/* Resolve the branch the last block left pending, then (where this block
 * ends in one) leave this block's: QEMU runs a block's callbacks and inline
 * operations in the order they were registered. */
static void watch_branches(struct qemu_plugin_tb *tb, uint64_t vaddr, size_t n,
			   struct mb_site *site)
{
	struct qemu_plugin_insn *last = qemu_plugin_tb_get_insn(tb, n - 1);
	uint8_t bytes[16];
	size_t len = qemu_plugin_insn_size(last);
	uint64_t pc = qemu_plugin_insn_vaddr(last), target;
	struct insn_site *branch;

	qemu_plugin_register_vcpu_tb_exec_cond_cb(tb, on_branch_resolved, QEMU_PLUGIN_CB_NO_REGS,
						  QEMU_PLUGIN_COND_NE, pending_entry(), 0,
						  (void *)(uintptr_t)vaddr);
	if (len > sizeof(bytes) || qemu_plugin_insn_data(last, bytes, len) != len ||
	    !mb_branch_decode(bytes, len, pc, &target))
		return;
	branch = insn_site_of(pc, site);
	branch->fallthrough = pc + len;
	branch->target = target;
	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_STORE_U64,
							  pending_entry(), (uintptr_t)branch);
}

/* A translated block's code, for a trace: written the first time the block
 * runs in a window (written: done, or none to write). One per translation,
 * kept for the plugin's life (a recording boot's only). */
struct traced_block {
	uint64_t vaddr;
	enum mb_mode mode;
	unsigned int n;
	bool written;
	uint8_t *len, *code;
};

static void on_traced_block(unsigned int vcpu, void *udata)
{
	struct traced_block *b = udata;

	if (!windows.open || !mb_trace_on(&trace))
		return;
	mb_trace_block(&trace, vcpu, b->mode, b->vaddr, b->n, b->len,
		       b->written ? NULL : b->code);
	b->written = true;
}

/* Record the block's runs; its code from QEMU's copy of it. A block whose
 * code QEMU cannot give has its runs recorded and no code: the reader skips
 * it and counts it. */
static void trace_block(struct qemu_plugin_tb *tb, uint64_t vaddr, enum mb_mode mode, size_t n)
{
	struct traced_block *b = malloc(sizeof(*b));
	uint8_t *len = malloc(n), *code = malloc(n * MB_TRACE_INSN_MAX);
	bool readable = true;

	if (!b || !len || !code) {
		qemu_plugin_outs("mapbench-model: out of memory\n");
		abort();
	}
	for (size_t i = 0, at = 0; i < n && readable; at += len[i++]) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		size_t size = qemu_plugin_insn_size(insn);

		readable = size <= MB_TRACE_INSN_MAX &&
			   qemu_plugin_insn_data(insn, code + at, size) == size;
		len[i] = size;
	}
	*b = (struct traced_block){ vaddr, mode, n, !readable, len, code };
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_traced_block, QEMU_PLUGIN_CB_NO_REGS, b);
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
	if (windows.branch && n)
		watch_branches(tb, vaddr, n, site);
	if (mb_trace_on(&trace) && n)
		trace_block(tb, vaddr, mode, n);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint8_t bytes[MB_MARK_BPF_LEN];
		size_t len = qemu_plugin_insn_size(insn);
		enum mb_mark mark = MB_MARK_NONE;

		if ((len == MB_MARK_LEN || len == MB_MARK_BPF_LEN) &&
		    qemu_plugin_insn_data(insn, bytes, len) == len)
			mark = mb_mark_decode(bytes, len);
		if (mark != MB_MARK_NONE)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
							       windows.mmu ? QEMU_PLUGIN_CB_R_REGS :
									     QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)mark);
		else
			qemu_plugin_register_vcpu_mem_cb(insn, on_access, QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW,
							 insn_site_of(qemu_plugin_insn_vaddr(insn),
								      site));
	}
}

static void on_qemu_exit(qemu_plugin_id_t id, void *udata)
{
	mb_trace_close(&trace);
	fclose(windows.out);
}

static int fail(const char *what, const char *why)
{
	char line[512];

	snprintf(line, sizeof(line), "mapbench-model: %s: %s\n", what, why);
	qemu_plugin_outs(line);
	return -1;
}

/* The machine's own words of argv (not out=, trace=, ...), for a trace's header. */
static int machine_words(int argc, char **argv, char **words)
{
	int n = 0;

	for (int i = 0; i < argc; i++)
		if (mb_machine_word(argv[i]))
			words[n++] = argv[i];
	return n;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	struct mb_machine m;
	const char *bad, *why;
	char *words[argc + 1];
	int ncpus;

	if (!info->system_emulation || strcmp(info->target_name, "x86_64"))
		return fail(info->target_name, "the model runs x86_64 system emulation only");
	ncpus = info->system.max_vcpus;
	if (mb_machine_parse(&m, argc, argv, &bad, &why))
		return fail(bad, why);
	if (!m.out)
		return fail("out", "missing: give out=FILE for the counts");
	if (mb_machine_build(&m, &windows, ncpus, NULL, read_phys, NULL, &bad, &why))
		return fail(bad, why);
	if (!(windows.out = fopen(m.out, "w")))
		return fail(m.out, "cannot create");
	if (m.trace && mb_trace_open(&trace, m.trace, ncpus, machine_words(argc, argv, words),
				     words, m.trace_accesses))
		return fail(m.trace, "cannot create");
	direct_map = m.direct_map;
	profiling = m.profile;
	insn_board = qemu_plugin_scoreboard_new(sizeof(struct insn_counts));
	insns_now = calloc((size_t)ncpus * MB_MODES, sizeof(*insns_now));
	if (!insns_now || mb_profile_init(&sites))
		return fail("memory", "out of memory");
	if (windows.branch)
		pending_board = qemu_plugin_scoreboard_new(sizeof(uint64_t));
	scratch = g_byte_array_new();
	if (windows.mmu)
		qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
	mb_windows_header(&windows, &m.cache, m.name);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
