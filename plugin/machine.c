// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include "machine.h"

#define STRINGIFY(x) #x
#define LINES_MAX_OF(n) STRINGIFY(n)
#define LINES_MAX LINES_MAX_OF(MB_PREFETCH_STREAM_MAX)

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

/* "PAGES:ENTRIES:WAYS[+...]" into a TLB level; -1 if it is not that. */
static int parse_tlb(const char *text, struct mb_tlb_array *arrays)
{
	static const char letters[] = "kmgs";
	char *end;

	for (int a = 0; a < MB_TLB_ARRAYS; a++) {
		struct mb_tlb_array *arr = &arrays[a];
		const char *l;

		for (; *text && *text != ':'; text++) {
			if (!(l = strchr(letters, *text)))
				return -1;
			if (*l == 's')
				arr->smash_1g = true;
			else
				arr->pages |= 1u << (l - letters);
		}
		if (*text != ':' || !(arr->pages || arr->smash_1g))
			return -1;
		arr->entries = strtoul(text + 1, &end, 10);
		if (*end != ':')
			return -1;
		arr->ways = strtoul(end + 1, &end, 10);
		if (!*end)
			return 0;
		if (*end != '+')
			return -1;
		text = end + 1;
	}
	return -1;
}

/* The value of word if it starts with key ("l1d="), else NULL. */
static const char *value_of(const char *word, const char *key)
{
	size_t n = strlen(key);

	return strncmp(word, key, n) ? NULL : word + n;
}

static const char *const plugin_keys[] = { "out=", "trace=", "trace_accesses=", "profile=" };

bool mb_machine_word(const char *word)
{
	for (size_t k = 0; k < sizeof(plugin_keys) / sizeof(plugin_keys[0]); k++)
		if (value_of(word, plugin_keys[k]))
			return false;
	return true;
}

/* One word into m; NULL, or what to give instead. */
static const char *parse_word(struct mb_machine *m, const char *word)
{
	static const char *const levels[MB_LEVELS] = { "l1d=", "l2=", "llc=" };
	const char *v;

	for (int l = 0; l < MB_LEVELS; l++)
		if ((v = value_of(word, levels[l])))
			return parse_level(v, &m->cache, l) ? "give BYTES:WAYS" : NULL;
	if ((v = value_of(word, "dtlb=")) || (v = value_of(word, "stlb=")))
		return parse_tlb(v, m->tlb.array[word[0] == 'd' ? MB_DTLB_L1 : MB_DTLB_L2]) ?
		       "give PAGES:ENTRIES:WAYS[+...], PAGES of kmgs" : NULL;
	if ((v = value_of(word, "wait=")))
		return sscanf(v, "%u:%u:%u", &m->prefetch.wait[MB_L2], &m->prefetch.wait[MB_LLC],
			      &m->prefetch.wait[MB_MEMORY]) != 3 ?
		       "give INSNS:INSNS:INSNS (from L2, the LLC, memory)" : NULL;
	if ((v = value_of(word, "branch=")))
		return sscanf(v, "%u:%u", &m->branch.table_bits, &m->branch.history_bits) != 2 ||
		       !m->branch.table_bits || m->branch.table_bits > MB_BRANCH_TABLE_BITS_MAX ||
		       m->branch.history_bits > m->branch.table_bits ?
		       "give TABLE_BITS:HISTORY_BITS, TABLE_BITS 1..24 and HISTORY_BITS at most "
		       "TABLE_BITS" : NULL;
	if ((v = value_of(word, "line=")))
		m->cache.line = strtoul(v, NULL, 10);
	else if ((v = value_of(word, "out=")))
		m->out = v;
	else if ((v = value_of(word, "name=")))
		m->name = v;
	else if ((v = value_of(word, "trace=")))
		m->trace = v;
	else if ((v = value_of(word, "trace_accesses=")))
		return !(m->trace_accesses = strtoull(v, NULL, 10)) ?
		       "give the accesses to record, 1 or more" : NULL;
	else if (!strcmp(word, "profile=on"))
		m->profile = true;
	else if ((v = value_of(word, "pwc=")))
		m->tlb.pwc = strtoul(v, NULL, 10);
	else if ((v = value_of(word, "rob=")))
		m->overlap.rob = strtoul(v, NULL, 10);
	else if ((v = value_of(word, "mshr=")))
		m->overlap.mshr = strtoul(v, NULL, 10);
	else if ((v = value_of(word, "stream=")))
		m->prefetch.stream = strtoul(v, NULL, 10);
	else if (!strcmp(word, "stride=on"))
		m->prefetch.stride = true;
	else if (!strcmp(word, "adjacent=on"))
		m->prefetch.adjacent = true;
	else if ((v = value_of(word, "direct_map=")))
		m->direct_map = strtoull(v, NULL, 0);
	else
		return "unknown argument (out, name, l1d, l2, llc, line, profile, dtlb, stlb, pwc, "
		       "direct_map, rob, mshr, stream, stride, adjacent, wait, branch, trace, "
		       "trace_accesses)";
	return NULL;
}

int mb_machine_parse(struct mb_machine *m, int argc, char **argv, const char **bad,
		     const char **why)
{
	/* x86-64's direct map with 4-level paging and no KASLR */
	*m = (struct mb_machine){ .name = "custom", .cache.line = 64,
				  .direct_map = 0xffff888000000000ull,
				  .trace_accesses = 4000000 };
	for (int i = 0; i < argc; i++)
		if ((*why = parse_word(m, argv[i]))) {
			*bad = argv[i];
			return -1;
		}
	if (!m->overlap.rob != !m->overlap.mshr) {
		*bad = "rob";
		*why = "give both rob= and mshr=, or neither";
		return -1;
	}
	return 0;
}

int mb_machine_build(const struct mb_machine *m, struct mb_windows *w, int ncpus, FILE *out,
		     mb_read_phys read, void *ctx, const char **what, const char **why)
{
	const struct mb_prefetch_geometry *p = &m->prefetch;
	struct mb_cache *cache = mb_cache_new(&m->cache, ncpus, why);

	*what = "geometry";
	if (!cache)
		return -1;
	*what = "memory";
	*why = "out of memory";
	if (mb_windows_init(w, cache, ncpus, out))
		goto fail;
	*what = "dtlb";
	if (m->tlb.array[MB_DTLB_L1][0].entries &&
	    !(w->mmu = mb_mmu_new(&m->tlb, ncpus, read, ctx, why)))
		goto fail;
	*what = "memory";
	*why = "out of memory";
	if (m->overlap.rob && !(w->overlap = mb_overlap_new(&m->overlap, ncpus)))
		goto fail;
	if (m->branch.table_bits && !(w->branch = mb_branch_new(&m->branch, ncpus)))
		goto fail;
	*what = "stream";
	*why = "give at most " LINES_MAX " lines";
	if ((p->stream || p->stride || p->adjacent) &&
	    !(w->prefetch = mb_prefetch_new(p, ncpus, mb_cache_line_shift(cache))))
		goto fail;
	return 0;
fail:
	w->out = NULL;		/* the caller's still */
	mb_machine_free(w);
	return -1;
}

void mb_machine_free(struct mb_windows *w)
{
	mb_mmu_free(w->mmu);
	mb_overlap_free(w->overlap);
	mb_branch_free(w->branch);
	mb_prefetch_free(w->prefetch);
	mb_cache_free(w->cache);
	if (w->out)
		fclose(w->out);
	mb_windows_free(w);
}
