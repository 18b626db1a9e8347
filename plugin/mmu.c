// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include "lru.h"
#include "mmu.h"

#define PRESENT (1ull << 0)
#define LEAF (1ull << 7)		/* PS: a PDPTE or PDE that maps a page */
#define FRAME 0x000ffffffffff000ull	/* a table's or page's physical address */
#define VA_BITS 48
#define WALK_LEVELS 4			/* PML4, PDPT, PD, PT */
#define UPPER_LEVELS 3			/* the ones a page-walk cache holds */

static const unsigned int page_shift[MB_PAGES] = { 12, 21, 30 };

struct cpu_mmu {
	struct mb_lru tlb[MB_TLB_LEVELS][MB_TLB_ARRAYS];
	struct mb_lru pwc[UPPER_LEVELS];	/* [0]: PML4E, [1]: PDPTE, [2]: PDE */
	uint64_t root;			/* CR3's frame; 0: not known yet */
	/* The page translated last, [first, end): the MRU entry of its L1
	 * array, so another access to it is a hit that changes nothing and
	 * skips the search (most accesses; both 0: none). */
	uint64_t first, end;
	enum mb_page likely;		/* that page's size */
};

struct mb_mmu {
	struct mb_tlb_geometry g;
	int ncpus;
	mb_read_phys read;
	void *ctx;
	struct cpu_mmu *cpus;
};

/* The address bits a walk translates: a TLB's and a page-walk cache's keys. */
static uint64_t walked_bits(uint64_t vaddr)
{
	return vaddr & ((1ull << VA_BITS) - 1);
}

/* A page's key: its number, and its size in the top bits (a set index uses the low ones). */
static uint64_t page_key(uint64_t vaddr, enum mb_page p)
{
	return walked_bits(vaddr) >> page_shift[p] | (uint64_t)p << 60;
}

struct mb_mmu *mb_mmu_new(const struct mb_tlb_geometry *g, int ncpus, mb_read_phys read,
			  void *ctx, const char **why)
{
	struct mb_mmu *m = calloc(1, sizeof(*m));

	*why = "out of memory";
	if (!m || !(m->cpus = calloc(ncpus, sizeof(*m->cpus))))
		goto fail;
	m->g = *g;
	m->ncpus = ncpus;
	m->read = read;
	m->ctx = ctx;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		struct cpu_mmu *c = &m->cpus[cpu];

		for (int l = 0; l < MB_TLB_LEVELS; l++)
			for (int a = 0; a < MB_TLB_ARRAYS; a++) {
				const struct mb_tlb_array *arr = &g->array[l][a];

				if (arr->entries && mb_lru_init(&c->tlb[l][a], arr->entries, arr->ways)) {
					*why = "a TLB's entries / ways must be a power of two";
					goto fail;
				}
			}
		for (int u = 0; u < UPPER_LEVELS; u++)
			if (g->pwc && mb_lru_init(&c->pwc[u], g->pwc, g->pwc))
				goto fail;
	}
	return m;
fail:
	mb_mmu_free(m);
	return NULL;
}

void mb_mmu_free(struct mb_mmu *m)
{
	if (!m)
		return;
	for (int cpu = 0; m->cpus && cpu < m->ncpus; cpu++) {
		struct cpu_mmu *c = &m->cpus[cpu];

		for (int l = 0; l < MB_TLB_LEVELS; l++)
			for (int a = 0; a < MB_TLB_ARRAYS; a++)
				mb_lru_free(&c->tlb[l][a]);
		for (int u = 0; u < UPPER_LEVELS; u++)
			mb_lru_free(&c->pwc[u]);
	}
	free(m->cpus);
	free(m);
}

void mb_mmu_flush(struct mb_mmu *m)
{
	for (int cpu = 0; cpu < m->ncpus; cpu++) {
		struct cpu_mmu *c = &m->cpus[cpu];

		for (int l = 0; l < MB_TLB_LEVELS; l++)
			for (int a = 0; a < MB_TLB_ARRAYS; a++)
				if (c->tlb[l][a].tags)
					mb_lru_clear(&c->tlb[l][a]);
		for (int u = 0; u < UPPER_LEVELS; u++)
			if (c->pwc[u].tags)
				mb_lru_clear(&c->pwc[u]);
		c->first = c->end = 0;
	}
}

void mb_mmu_set_root(struct mb_mmu *m, int cpu, uint64_t cr3)
{
	m->cpus[cpu].root = cr3 & FRAME;
}

/* The size an array holds page size p as; MB_PAGES if it does not hold it. */
static enum mb_page held_as(const struct mb_tlb_array *arr, enum mb_page p)
{
	if (!arr->entries)
		return MB_PAGES;
	if (p == MB_PAGE_1G && arr->smash_1g)
		p = MB_PAGE_2M;
	return arr->pages & 1u << p ? p : MB_PAGES;
}

/* The page size of a hit in level l, or MB_PAGES on a miss. */
static enum mb_page tlb_find(struct mb_mmu *m, struct cpu_mmu *c, enum mb_tlb_level l,
			     uint64_t vaddr)
{
	for (int a = 0; a < MB_TLB_ARRAYS; a++) {
		const struct mb_tlb_array *arr = &m->g.array[l][a];

		/* An address is held under one page size only, so the order of
		 * the probes changes nothing but their cost: the size of the
		 * last translation first (a miss scans the whole set). */
		for (int i = 0; i < MB_PAGES; i++) {
			enum mb_page p = (c->likely + i) % MB_PAGES;

			if (arr->entries && arr->pages & 1u << p &&
			    mb_lru_find(&c->tlb[l][a], page_key(vaddr, p)))
				return p;
		}
	}
	return MB_PAGES;
}

/* The page enters the first array of level l that holds its size. */
static void tlb_fill(struct mb_mmu *m, struct cpu_mmu *c, enum mb_tlb_level l, uint64_t vaddr,
		     enum mb_page p)
{
	for (int a = 0; a < MB_TLB_ARRAYS; a++) {
		enum mb_page as = held_as(&m->g.array[l][a], p);

		if (as != MB_PAGES) {
			mb_lru_touch(&c->tlb[l][a], page_key(vaddr, as));
			return;
		}
	}
}

static uint64_t root_of(struct mb_mmu *m, int cpu)
{
	for (int i = 0; i < m->ncpus && !m->cpus[cpu].root; i++)
		cpu = (cpu + 1) % m->ncpus;
	return m->cpus[cpu].root;
}

/* The walk's loads into w; the page size it found, MB_PAGES if it could not finish. */
static enum mb_page walk(struct mb_mmu *m, int cpu, uint64_t vaddr, struct mb_walk *w)
{
	struct cpu_mmu *c = &m->cpus[cpu];
	uint64_t table = root_of(m, cpu), entry;

	for (int level = WALK_LEVELS - 1; level >= 0; level--) {
		/* bits 47:39 index the PML4, 38:30 the PDPT, 29:21 the PD, 20:12 the PT */
		unsigned int shift = 12 + 9 * level, upper = WALK_LEVELS - 1 - level;
		uint64_t addr = table + ((vaddr >> shift) & 511) * 8;
		bool leaf;

		if (!table || !m->read(m->ctx, addr, &entry) || !(entry & PRESENT))
			return MB_PAGES;
		leaf = !level || (level < WALK_LEVELS - 1 && entry & LEAF);
		/* A page-walk cache holds the entries that point to a table. */
		if (leaf || !m->g.pwc ||
		    !mb_lru_touch(&c->pwc[upper], walked_bits(vaddr) >> shift))
			w->loads[w->nloads++] = addr;
		if (leaf)
			return (enum mb_page)level;
		table = entry & FRAME;
	}
	return MB_PAGES;
}

void mb_mmu_translate(struct mb_mmu *m, int cpu, uint64_t vaddr, struct mb_walk *w)
{
	struct cpu_mmu *c = &m->cpus[cpu];
	enum mb_page p;

	w->nloads = 0;
	w->how = MB_TLB_L1_HIT;
	if (vaddr - c->first < c->end - c->first)
		return;
	p = tlb_find(m, c, MB_DTLB_L1, vaddr);
	if (p != MB_PAGES)
		goto last;
	w->how = MB_TLB_L2_HIT;
	p = tlb_find(m, c, MB_DTLB_L2, vaddr);
	if (p == MB_PAGES) {
		w->how = MB_TLB_WALKED;
		p = walk(m, cpu, vaddr, w);
		if (p == MB_PAGES) {
			w->how = MB_TLB_UNWALKABLE;
			return;
		}
		tlb_fill(m, c, MB_DTLB_L2, vaddr, p);
	}
	tlb_fill(m, c, MB_DTLB_L1, vaddr, p);
last:
	c->likely = p;
	c->first = vaddr & ~((1ull << page_shift[p]) - 1);
	c->end = c->first + (1ull << page_shift[p]);
}
