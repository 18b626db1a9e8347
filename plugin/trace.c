// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "trace.h"

#define MAGIC "mapbench-trace 1 vcpus="

int mb_trace_open(struct mb_trace *t, const char *path, int ncpus, int nwords,
		  char *const *words, uint64_t accesses)
{
	*t = (struct mb_trace){ .f = fopen(path, "wb"), .left = accesses, .ncpus = ncpus };
	if (!t->f)
		return -1;
	fprintf(t->f, MAGIC "%d ", ncpus);
	for (int i = 0; i < nwords; i++)
		fprintf(t->f, "%s%s", i ? "," : "", words[i]);
	fputc('\n', t->f);
	return 0;
}

static void put(struct mb_trace *t, const struct mb_trace_record *r)
{
	fwrite(r, sizeof(*r), 1, t->f);
}

/* What a window's readers see of its counts so far, every vCPU's. */
static void open_counts(FILE *f, const struct mb_windows *w)
{
	for (int i = 0; i < w->ncpus * MB_MODES; i++) {
		fprintf(f, "vcpu=%d mode=%s ", i / MB_MODES, mb_mode_names[i % MB_MODES]);
		mb_counts_write(w, f, &w->counts[i]);
		fputc('\n', f);
	}
	for (int cpu = 0; cpu < w->ncpus; cpu++) {
		fprintf(f, "vcpu=%d mode=timed ", cpu);
		mb_counts_write(w, f, &w->timed_counts[cpu]);
		fputc('\n', f);
	}
}

void mb_trace_access(struct mb_trace *t, const struct mb_windows *w, int cpu, enum mb_mode mode,
		     const struct mb_access *a)
{
	const struct mb_trace_record r = {
		MB_TRACE_ACCESS, cpu, mode, a->size, a->store,
		{ a->vaddr, a->paddr, a->pc, a->value, a->insns }
	};

	put(t, &r);
	if (--t->left)
		return;
	put(t, &(struct mb_trace_record){ .type = MB_TRACE_END });
	open_counts(t->f, w);
	mb_trace_close(t);
}

void mb_trace_branch(struct mb_trace *t, int cpu, enum mb_mode mode, uint64_t pc, bool taken)
{
	put(t, &(struct mb_trace_record){ MB_TRACE_BRANCH, cpu, mode, taken, 0, { pc } });
}

void mb_trace_mark(struct mb_trace *t, enum mb_mark mark, int cpu, const uint64_t *insns)
{
	put(t, &(struct mb_trace_record){ MB_TRACE_MARK, cpu, mark });
	fwrite(insns, sizeof(*insns), (size_t)t->ncpus * MB_MODES, t->f);
	/* a QEMU killed before the budget is spent leaves what it had at its last marker */
	fflush(t->f);
}

void mb_trace_root(struct mb_trace *t, int cpu, uint64_t cr3)
{
	put(t, &(struct mb_trace_record){ MB_TRACE_ROOT, cpu, .v = { cr3 } });
}

void mb_trace_pte(struct mb_trace *t, uint64_t paddr, uint64_t value, bool read)
{
	put(t, &(struct mb_trace_record){ MB_TRACE_PTE, 0, read, .v = { paddr, value } });
}

void mb_trace_block(struct mb_trace *t, int cpu, enum mb_mode mode, uint64_t vaddr,
		    unsigned int n, const uint8_t *len, const uint8_t *code)
{
	for (unsigned int i = 0, at = 0; code && i < n; at += len[i++]) {
		struct mb_trace_record r = { MB_TRACE_CODE, cpu, 0, len[i], .v = { vaddr + at } };

		memcpy(&r.v[1], code + at, len[i]);
		put(t, &r);
	}
	put(t, &(struct mb_trace_record){ MB_TRACE_BLOCK, cpu, mode, 0, n, { vaddr } });
}

void mb_trace_close(struct mb_trace *t)
{
	if (t->f)
		fclose(t->f);
	t->f = NULL;
}

int mb_replay_load(struct mb_replay *r, const char *path, const char **why)
{
	FILE *f = fopen(path, "rb");
	long start, end;
	char *line = NULL, *words;
	size_t cap = 0;

	memset(r, 0, sizeof(*r));
	if (!f) {
		*why = strerror(errno);
		return -1;
	}
	*why = "not a trace (no \"" MAGIC "N WORDS\" header)";
	if (getline(&line, &cap, f) < 0 || strncmp(line, MAGIC, strlen(MAGIC)) ||
	    (r->ncpus = atoi(line + strlen(MAGIC))) < 1 ||
	    !(words = strchr(line + strlen(MAGIC), ' ')))
		goto fail;
	line[strcspn(line, "\n")] = '\0';
	r->words = strdup(words + 1);
	start = ftell(f);
	fseek(f, 0, SEEK_END);
	end = ftell(f);
	fseek(f, start, SEEK_SET);
	r->size = end - start;
	r->pte_size = 1 << 12;
	r->ptes = calloc(r->pte_size, sizeof(*r->ptes));
	*why = "out of memory";
	if (!r->words || !r->ptes || !(r->data = malloc(r->size + 1)))
		goto fail;
	*why = "cannot read it";
	if (fread(r->data, 1, r->size, f) != r->size)
		goto fail;
	r->data[r->size] = '\0';	/* the end's counts are text */
	free(line);
	fclose(f);
	return 0;
fail:
	free(line);
	fclose(f);
	mb_replay_free(r);
	return -1;
}

void mb_replay_free(struct mb_replay *r)
{
	free(r->words);
	free(r->data);
	free(r->ptes);
	memset(r, 0, sizeof(*r));
}

/* The slot of key (paddr + 1), or the empty one its probe ends at. */
static size_t pte_slot(const struct mb_replay_pte *ptes, size_t size, uint64_t key)
{
	size_t i = (key * 0x9e3779b97f4a7c15ull) >> 40 & (size - 1);

	while (ptes[i].key && ptes[i].key != key)
		i = (i + 1) & (size - 1);
	return i;
}

/* Room for one more, or exit: a replay cannot go on without it. */
static void pte_room(struct mb_replay *r)
{
	size_t size = 2 * r->pte_size;
	struct mb_replay_pte *ptes;

	if (2 * (r->pte_used + 1) <= r->pte_size)
		return;
	if (!(ptes = calloc(size, sizeof(*ptes)))) {
		fprintf(stderr, "replay: out of memory\n");
		exit(3);
	}
	for (size_t j = 0; j < r->pte_size; j++)
		if (r->ptes[j].key)
			ptes[pte_slot(ptes, size, r->ptes[j].key)] = r->ptes[j];
	free(r->ptes);
	r->ptes = ptes;
	r->pte_size = size;
}

/* A page-table read as the walker made it, the latest for its address. */
static void pte_put(struct mb_replay *r, uint64_t paddr, uint64_t value, bool read)
{
	size_t i;

	pte_room(r);
	i = pte_slot(r->ptes, r->pte_size, paddr + 1);
	r->pte_used += !r->ptes[i].key;
	r->ptes[i] = (struct mb_replay_pte){ paddr + 1, value, read };
}

bool mb_replay_read_phys(void *ctx, uint64_t paddr, uint64_t *value)
{
	const struct mb_replay *r = ctx;
	const struct mb_replay_pte *e = &r->ptes[pte_slot(r->ptes, r->pte_size, paddr + 1)];

	*value = e->value;
	return e->key && e->read;
}

/* Whether text holds w's open counts, as mb_trace_access wrote them. */
static bool same_counts(const struct mb_windows *w, const char *text)
{
	char *mine = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mine, &len);
	bool same;

	if (!f)
		return false;
	open_counts(f, w);
	fclose(f);
	same = mine && !strcmp(mine, text);
	free(mine);
	return same;
}

uint64_t mb_replay_run(struct mb_replay *r, struct mb_windows *w, enum mb_replay_end *end_as)
{
	const size_t marks = (size_t)r->ncpus * MB_MODES * sizeof(uint64_t);
	const unsigned char *p = r->data, *end = r->data + r->size;
	uint64_t accesses = 0;

	*end_as = MB_REPLAY_CUT;
	r->pte_used = 0;
	memset(r->ptes, 0, r->pte_size * sizeof(*r->ptes));
	while (p + sizeof(struct mb_trace_record) <= end) {
		struct mb_trace_record rec;

		memcpy(&rec, p, sizeof(rec));
		p += sizeof(rec);
		switch (rec.type) {
		case MB_TRACE_ACCESS: {
			struct mb_access a = { .vaddr = rec.v[0], .paddr = rec.v[1], .size = rec.arg2,
					       .pc = rec.v[2], .value = rec.v[3], .insns = rec.v[4],
					       .store = rec.store };

			if (w)
				mb_windows_access(w, rec.cpu, rec.arg, &a, NULL);
			accesses++;
			break;
		}
		case MB_TRACE_BRANCH:
			if (w && w->branch)
				mb_windows_branch(w, rec.cpu, rec.arg, rec.v[0], rec.arg2, NULL);
			break;
		case MB_TRACE_MARK: {
			uint64_t insns[r->ncpus * MB_MODES];

			if (p + marks > end)
				return accesses;
			memcpy(insns, p, marks);
			p += marks;
			if (w)
				mb_windows_mark(w, rec.arg, rec.cpu, insns);
			break;
		}
		case MB_TRACE_ROOT:
			if (w && w->mmu)
				mb_mmu_set_root(w->mmu, rec.cpu, rec.v[0]);
			break;
		case MB_TRACE_PTE:
			pte_put(r, rec.v[0], rec.v[1], rec.arg);
			break;
		case MB_TRACE_BLOCK:
		case MB_TRACE_CODE:
			break;		/* for scripts/trace: the model does not read code */
		case MB_TRACE_END:
			if (w)
				*end_as = same_counts(w, (const char *)p) ? MB_REPLAY_SAME :
									    MB_REPLAY_DIFFERS;
			return accesses;
		default:
			return accesses;	/* not a record: the rest cannot be read */
		}
	}
	return accesses;
}
