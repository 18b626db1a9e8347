// SPDX-License-Identifier: GPL-2.0
/* The cache model's TLBs and page walker (plugin/mmu.c) on page tables built
 * here: a walk's loads per page size, a page-walk cache that spares the
 * upper levels, L1 evictions caught by the L2 TLB, AMD's 1 GiB pages held
 * as 2 MiB entries, and walks that cannot finish. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <cmocka.h>
#include "mmu.h"

#define PRESENT 1ull
#define LEAF (1ull << 7)
#define KERNEL 0xffff888000000000ull	/* PML4 index 273 */
#define MiB (1ull << 20)
#define GiB (1ull << 30)

/* Guest memory: the page tables' entries, one per physical address. */
#define ENTRIES 64
static struct {
	uint64_t addr[ENTRIES], value[ENTRIES];
	int n;
} memory;
static int reads;

static void poke(uint64_t paddr, uint64_t value)
{
	memory.addr[memory.n] = paddr;
	memory.value[memory.n++] = value;
}

static bool read_phys(void *ctx, uint64_t paddr, uint64_t *value)
{
	reads++;
	for (int i = 0; i < memory.n; i++)
		if (memory.addr[i] == paddr) {
			*value = memory.value[i];
			return true;
		}
	return false;
}

/* Tables at 0x1000 (PML4), 0x2000 (PDPT), 0x3000 (PD), 0x4000 (PT) for
 * KERNEL's first GiB: its first 16 4 KiB pages mapped, the next 2 MiB one
 * page; the second GiB of the PDPT one 1 GiB page. */
static void build_tables(void)
{
	memory.n = 0;
	poke(0x1000 + 273 * 8, 0x2000 | PRESENT);
	poke(0x2000 + 0 * 8, 0x3000 | PRESENT);
	poke(0x2000 + 1 * 8, 0x40000000 | LEAF | PRESENT);
	poke(0x3000 + 0 * 8, 0x4000 | PRESENT);
	poke(0x3000 + 1 * 8, 0x200000 | LEAF | PRESENT);
	for (int i = 0; i < 16; i++)
		poke(0x4000 + i * 8, (0x100000 + i * 0x1000) | PRESENT);
}

/* L1: 2 entries of every size; L2: 8 entries 2-way, 4K and 2M (1G as 2M if smash). */
static struct mb_mmu *new_mmu(unsigned int pwc, bool smash)
{
	struct mb_tlb_geometry g = {
		.array = { [MB_DTLB_L1] = { { .pages = 7, .entries = 2, .ways = 2 } },
			   [MB_DTLB_L2] = { { .pages = smash ? 3 : 7, .entries = 8, .ways = 2,
					      .smash_1g = smash } } },
		.pwc = pwc,
	};
	const char *why;
	struct mb_mmu *m;

	build_tables();
	m = mb_mmu_new(&g, 2, read_phys, NULL, &why);
	assert_non_null(m);
	mb_mmu_set_root(m, 0, 0x1000 | 0x18);	/* CR3's low bits are flags */
	return m;
}

static struct mb_walk translate(struct mb_mmu *m, int cpu, uint64_t vaddr)
{
	struct mb_walk w;

	mb_mmu_translate(m, cpu, vaddr, &w);
	return w;
}

static void a_walk_loads_one_entry_per_level_to_the_leaf(void **state)
{
	struct mb_mmu *m = new_mmu(0, false);
	struct mb_walk w = translate(m, 0, KERNEL + 0x1234);

	assert_int_equal(w.how, MB_TLB_WALKED);
	assert_int_equal(w.nloads, 4);
	assert_int_equal(w.loads[0], 0x1000 + 273 * 8);
	assert_int_equal(w.loads[3], 0x4000 + 1 * 8);
	assert_int_equal(translate(m, 0, KERNEL + 0x1ff8).how, MB_TLB_L1_HIT);
	/* a 2 MiB page ends the walk at the PD, a 1 GiB one at the PDPT */
	w = translate(m, 0, KERNEL + 2 * MiB + 0x5000);
	assert_int_equal(w.nloads, 3);
	assert_int_equal(w.loads[2], 0x3000 + 1 * 8);
	w = translate(m, 0, KERNEL + GiB + 123 * MiB);
	assert_int_equal(w.nloads, 2);
	assert_int_equal(w.loads[1], 0x2000 + 1 * 8);
	mb_mmu_free(m);
}

static void a_page_walk_cache_spares_the_upper_levels(void **state)
{
	struct mb_mmu *m = new_mmu(4, false);
	struct mb_walk w;

	assert_int_equal(translate(m, 0, KERNEL).nloads, 4);
	w = translate(m, 0, KERNEL + 0x3000);	/* same PD: only the PTE */
	assert_int_equal(w.how, MB_TLB_WALKED);
	assert_int_equal(w.nloads, 1);
	assert_int_equal(w.loads[0], 0x4000 + 3 * 8);
	w = translate(m, 0, KERNEL + 2 * MiB);	/* same PDPT: the PDE, a leaf */
	assert_int_equal(w.nloads, 1);
	assert_int_equal(w.loads[0], 0x3000 + 1 * 8);
	/* the other vCPU's caches are its own; it walks the root vCPU 0 gave */
	assert_int_equal(translate(m, 1, KERNEL + 0x3000).nloads, 4);
	mb_mmu_free(m);
}

static void l1_evictions_hit_the_l2_tlb(void **state)
{
	struct mb_mmu *m = new_mmu(0, false);

	for (int i = 0; i < 3; i++)
		assert_int_equal(translate(m, 0, KERNEL + i * 0x1000).how, MB_TLB_WALKED);
	/* L1 holds pages 1 and 2; the L2 TLB all three */
	assert_int_equal(translate(m, 0, KERNEL).how, MB_TLB_L2_HIT);
	assert_int_equal(translate(m, 0, KERNEL).how, MB_TLB_L1_HIT);
	assert_int_equal(translate(m, 0, KERNEL + 0x2000).how, MB_TLB_L1_HIT);
	assert_int_equal(translate(m, 0, KERNEL + 0x1000).how, MB_TLB_L2_HIT);
	mb_mmu_flush(m);
	assert_int_equal(translate(m, 0, KERNEL + 0x1000).how, MB_TLB_WALKED);
	mb_mmu_free(m);
}

/* Two 4 KiB pages take the L1 TLB's two entries. */
static void evict_l1(struct mb_mmu *m)
{
	translate(m, 0, KERNEL);
	translate(m, 0, KERNEL + 0x1000);
}

static void a_smashed_1g_page_takes_an_entry_per_2m(void **state)
{
	struct mb_mmu *whole = new_mmu(0, false), *smashed = new_mmu(0, true);
	uint64_t page = KERNEL + GiB;

	assert_int_equal(translate(whole, 0, page).how, MB_TLB_WALKED);
	assert_int_equal(translate(smashed, 0, page).how, MB_TLB_WALKED);
	/* the L1 TLB holds the page whole either way */
	assert_int_equal(translate(smashed, 0, page + 4 * MiB).how, MB_TLB_L1_HIT);
	evict_l1(whole);
	evict_l1(smashed);
	/* the L2 TLB held the whole page, or only the 2 MiB piece walked */
	assert_int_equal(translate(whole, 0, page + 4 * MiB).how, MB_TLB_L2_HIT);
	assert_int_equal(translate(smashed, 0, page + 4 * MiB).how, MB_TLB_WALKED);
	evict_l1(smashed);
	assert_int_equal(translate(smashed, 0, page + 8).how, MB_TLB_L2_HIT);
	mb_mmu_free(whole);
	mb_mmu_free(smashed);
}

static void a_walk_that_cannot_finish_translates_nothing(void **state)
{
	struct mb_mmu *m = new_mmu(0, false);
	struct mb_walk w;

	w = translate(m, 0, KERNEL + 512 * GiB);	/* PML4 entry 274: not present */
	assert_int_equal(w.how, MB_TLB_UNWALKABLE);
	assert_int_equal(w.nloads, 0);
	w = translate(m, 0, KERNEL + 0x19000);		/* PTE 25 is missing */
	assert_int_equal(w.how, MB_TLB_UNWALKABLE);
	assert_int_equal(w.nloads, 3);			/* the loads it made */
	assert_int_equal(translate(m, 0, KERNEL + 0x19000).how, MB_TLB_UNWALKABLE);
	mb_mmu_free(m);
	/* no root yet on any vCPU: nothing read */
	build_tables();
	{
		const struct mb_tlb_geometry g = { .array = { { { .pages = 1, .entries = 1,
								   .ways = 1 } } } };
		const char *why;
		struct mb_mmu *bare = mb_mmu_new(&g, 1, read_phys, NULL, &why);

		reads = 0;
		assert_int_equal(translate(bare, 0, KERNEL).how, MB_TLB_UNWALKABLE);
		assert_int_equal(reads, 0);
		mb_mmu_free(bare);
	}
}

/* A naive LRU list: the key's position, moved to the front (inserted if absent). */
static bool naive_touch(uint64_t *list, int len, uint64_t key, bool insert)
{
	int i = 0;

	while (i < len && list[i] != key)
		i++;
	if (i == len && !insert)
		return false;
	for (int j = i < len ? i : len - 1; j > 0; j--)
		list[j] = list[j - 1];
	list[0] = key;
	return i < len;
}

static void random_traces_match_a_naive_pair_of_tlbs(void **state)
{
	struct mb_mmu *m = new_mmu(0, false);
	uint64_t l1[2] = { 0 }, l2[4][2] = { { 0 } };	/* keys + 1 */
	int outcomes[3] = { 0 };

	uint64_t page = 0;

	srand(7);
	for (int i = 0; i < 20000; i++) {
		/* sixteen 4 KiB pages, half the time the one before again */
		uint64_t vaddr, key;

		page = rand() % 2 ? page : (uint64_t)rand() % 16;
		vaddr = KERNEL + page * 0x1000 + rand() % 4096;
		key = page + 1;
		enum mb_translated want = MB_TLB_WALKED;

		if (naive_touch(l1, 2, key, false)) {
			want = MB_TLB_L1_HIT;
		} else {
			/* the L2's set: the page number's low bits (KERNEL's are 0) */
			if (naive_touch(l2[page & 3], 2, key, false))
				want = MB_TLB_L2_HIT;
			else
				naive_touch(l2[page & 3], 2, key, true);
			naive_touch(l1, 2, key, true);
		}
		assert_int_equal(translate(m, 0, vaddr).how, want);
		outcomes[want]++;
	}
	for (int o = 0; o < 3; o++)	/* the trace exercised every outcome */
		assert_true(outcomes[o] > 1000);
	mb_mmu_free(m);
}

static void a_tlb_without_power_of_two_sets_is_refused(void **state)
{
	const struct mb_tlb_geometry g = { .array = { { { .pages = 1, .entries = 72,
							  .ways = 24 } } } };
	const char *why = NULL;

	assert_null(mb_mmu_new(&g, 1, read_phys, NULL, &why));
	assert_non_null(why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_walk_loads_one_entry_per_level_to_the_leaf),
		cmocka_unit_test(a_page_walk_cache_spares_the_upper_levels),
		cmocka_unit_test(l1_evictions_hit_the_l2_tlb),
		cmocka_unit_test(a_smashed_1g_page_takes_an_entry_per_2m),
		cmocka_unit_test(a_walk_that_cannot_finish_translates_nothing),
		cmocka_unit_test(random_traces_match_a_naive_pair_of_tlbs),
		cmocka_unit_test(a_tlb_without_power_of_two_sets_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
