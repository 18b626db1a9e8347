/* SPDX-License-Identifier: GPL-2.0 */
/* Address translation as an x86-64 core does it: per-vCPU L1 and L2 data
 * TLBs, and on a miss in both a walk of the guest's 4-level page tables,
 * whose loads the caller sends through the caches (cache.h). Upper-level
 * entries that are not leaves are kept in a page-walk cache per level; a
 * load they hold is not made. The page size of each translation is the
 * guest's own: the walk reads its entries (read_phys). No flushes: global
 * kernel mappings survive a CR3 switch, and the windows count the kernel. */
#ifndef MAPBENCH_MMU_H
#define MAPBENCH_MMU_H
#include <stdbool.h>
#include <stdint.h>

enum mb_page { MB_PAGE_4K, MB_PAGE_2M, MB_PAGE_1G, MB_PAGES };

/* One array of a TLB level: the page sizes it holds (bit per enum mb_page)
 * and its shape; smash_1g: a 1 GiB page is held as the 2 MiB entry the
 * access falls in (AMD's L2 TLB). entries 0: no array. */
struct mb_tlb_array {
	unsigned int pages, entries, ways;
	bool smash_1g;
};

#define MB_TLB_ARRAYS 3
enum mb_tlb_level { MB_DTLB_L1, MB_DTLB_L2, MB_TLB_LEVELS };

struct mb_tlb_geometry {
	struct mb_tlb_array array[MB_TLB_LEVELS][MB_TLB_ARRAYS];
	unsigned int pwc;	/* entries per upper level (PML4E, PDPTE, PDE), fully associative */
};

enum mb_translated { MB_TLB_L1_HIT, MB_TLB_L2_HIT, MB_TLB_WALKED, MB_TLB_UNWALKABLE };

#define MB_WALK_MAX 4
struct mb_walk {
	enum mb_translated how;
	unsigned int nloads;		/* the entries the walk loaded, root first */
	uint64_t loads[MB_WALK_MAX];	/* their physical addresses */
};

/* A guest-physical 8-byte read; false if it cannot be read. */
typedef bool (*mb_read_phys)(void *ctx, uint64_t paddr, uint64_t *value);

struct mb_mmu;

/* NULL with *why set if an array's entries / ways is not a power of two. */
struct mb_mmu *mb_mmu_new(const struct mb_tlb_geometry *g, int ncpus, mb_read_phys read,
			  void *ctx, const char **why);
void mb_mmu_free(struct mb_mmu *m);
/* Every TLB and page-walk cache empty. */
void mb_mmu_flush(struct mb_mmu *m);
/* The page-table root (CR3) a vCPU runs on; a vCPU that has none walks another's. */
void mb_mmu_set_root(struct mb_mmu *m, int cpu, uint64_t cr3);
/* Translate vaddr for a load or store on vCPU cpu. */
void mb_mmu_translate(struct mb_mmu *m, int cpu, uint64_t vaddr, struct mb_walk *walk);

#endif
