// SPDX-License-Identifier: GPL-2.0
/* Key walks as plan_resolve() sets them up, and permutations. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "keys.h"
#include "plan.h"

/* The machine the plans are for: two CPUs, whatever runs the tests. */
static const struct host *machine(void)
{
	static struct host h;

	host_assume(&h, 2);
	return &h;
}

/* What the command line would give: the benchmark, -p, --max-entries and
 * --nr-entries (each given unless -1). */
static struct options given_for(const char *bench, int producers, long max, long nr)
{
	struct options given;

	options_init(&given);
	given.bench = bench_find(bench, NULL);
	given.producers = producers;
	if (max >= 0)
		GIVE(given.max_entries, max);
	if (nr >= 0)
		GIVE(given.nr_entries, nr);
	return given;
}

/* The resolved plan of given_for(), which must resolve. */
static struct plan plan_for(const char *bench, int producers, long max, long nr)
{
	struct options given = given_for(bench, producers, max, nr);
	struct plan plan;

	assert_int_equal(plan_resolve(&given, machine(), &plan), EXIT_OK);
	return plan;
}

static int resolve(struct options given)
{
	struct plan plan;

	return plan_resolve(&given, machine(), &plan);
}

static void permutation_keeps_prefill_ids(void **state)
{
	__u32 perm[100];
	int seen[100] = {};

	keys_permutation(perm, 100, 40, KEYS_RANDOM, 7);
	for (int i = 0; i < 100; i++) {
		assert_true(perm[i] < 100);
		seen[perm[i]]++;
		if (i < 40)
			assert_true(perm[i] < 40);
	}
	for (int i = 0; i < 100; i++)
		assert_int_equal(seen[i], 1);
	keys_permutation(perm, 100, 40, KEYS_SEQ, 7);
	for (int i = 0; i < 100; i++)
		assert_int_equal(perm[i], i);
}

static void permutation_is_shuffled_and_seeded(void **state)
{
	__u32 a[1000], b[1000], c[1000];
	int moved = 0;

	keys_permutation(a, 1000, 1000, KEYS_RANDOM, 1);
	keys_permutation(b, 1000, 1000, KEYS_RANDOM, 1);
	keys_permutation(c, 1000, 1000, KEYS_RANDOM, 2);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));
	for (int i = 0; i < 1000; i++)
		moved += a[i] != (__u32)i;
	assert_true(moved > 900);
}

static void sliced_layout_is_disjoint_and_complete(void **state)
{
	struct plan cfg = plan_for("htab-delete", 3, 1000, -1);
	struct prod_ctl ctl[3];

	assert_int_equal(cfg.nr_entries, 1000);
	walk_assign(&cfg, ctl);
	assert_int_equal(ctl[0].lo, 0);
	assert_int_equal(ctl[1].lo, ctl[0].hi);
	assert_int_equal(ctl[2].lo, ctl[1].hi);
	assert_int_equal(ctl[2].hi, 1000);
	/* A batch never wraps within a slice: no key is deleted twice per run. */
	assert_true(cfg.batch <= 333 && cfg.batch % UNROLL == 0);
	for (int p = 0; p < 3; p++)
		assert_int_equal(ctl[p].op, MB_OP_DELETE);
}

static void churn_pairs_share_slices(void **state)
{
	struct plan cfg = plan_for("htab-add_del_on_diff_cpu", 4, 1000, 200);
	struct prod_ctl ctl[4];

	walk_assign(&cfg, ctl);
	assert_int_equal(ctl[0].op, MB_OP_ADD);
	assert_int_equal(ctl[1].op, MB_OP_REMOVE);
	assert_int_equal(ctl[0].lo, 200);
	assert_int_equal(ctl[1].lo, ctl[0].lo);
	assert_int_equal(ctl[1].hi, ctl[0].hi);
	assert_int_equal(ctl[2].lo, ctl[0].hi);
	assert_int_equal(ctl[3].hi, 1000);
}

/* A walk as the bench sets it up: resolved, assigned, its key ids in order. */
static struct plan laid_out(const char *bench, int producers, long max, struct prod_ctl *ctl,
			    __u32 *ids)
{
	struct plan cfg = plan_for(bench, producers, max, -1);

	walk_assign(&cfg, ctl);
	keys_ids(&cfg, ids, KEYS_FILL);
	return cfg;
}

/* The kernel's htab-mem: producer p's 64 keys are p, p + P, p + 2P, ... */
static void strided_layout_is_htab_mem(void **state)
{
	struct prod_ctl ctl[4];
	__u32 ids[8192];
	struct plan cfg = laid_out("htab-mem-overwrite", 4, 8192, ctl, ids);

	assert_int_equal(cfg.batch, 64);
	assert_int_equal(cfg.nr_entries, 0);
	for (int p = 0; p < 4; p++) {
		assert_int_equal(ctl[p].hi - ctl[p].lo, 64);
		assert_int_equal(ctl[p].op, MB_OP_OVERWRITE);
		for (int j = 0; j < 64; j++)
			assert_int_equal(ids[ctl[p].lo + j], p + j * 4);
	}
}

/* add_del_on_diff_cpu: producers 2k and 2k+1 share keys k, k + P/2, ... */
static void strided_pairs_share_keys(void **state)
{
	struct prod_ctl ctl[4];
	__u32 ids[8192];
	struct plan cfg = laid_out("htab-mem-add_del_on_diff_cpu", 4, 8192, ctl, ids);

	assert_int_equal(ctl[0].op, MB_OP_ADD);
	assert_int_equal(ctl[1].op, MB_OP_REMOVE);
	assert_int_equal(ctl[1].lo, ctl[0].lo);
	assert_int_equal(ids[ctl[2].lo + 1], 1 + 2);
	assert_true(cfg.bench->walk->pairs);
}

/* bpf-hashmap-full-update: the map full, each producer one absent key. */
static void absent_layout_is_full_update(void **state)
{
	struct prod_ctl ctl[2];
	__u32 ids[1002];
	struct plan cfg = laid_out("bpf-hashmap-full-update", 2, 1000, ctl, ids);

	assert_int_equal(cfg.nr_entries, 1000);
	assert_int_equal(cfg.batch, 10000);
	assert_int_equal(walk_key_slots(&cfg), 1002);
	for (int p = 0; p < 2; p++) {
		assert_int_equal(ctl[p].hi - ctl[p].lo, 1);
		assert_int_equal(ids[ctl[p].lo], 1000 + p);
	}
}

/* bpf-hashmap-lookup: keys 1..nr, whole passes per run, from the first key. */
static void from_first_layout_is_hashmap_lookup(void **state)
{
	struct prod_ctl ctl[2];
	__u32 ids[1000];
	struct plan cfg = laid_out("bpf-hashmap-lookup", 2, 1000, ctl, ids);

	assert_int_equal(cfg.nr_entries, 500);
	assert_int_equal(cfg.batch, 1000000);
	assert_int_equal(ids[0], 1);
	assert_int_equal(ids[499], 500);
	assert_int_equal(ctl[1].cur, 0);
	assert_int_equal(ctl[1].hi, 500);
}

/* --keys random visits a permutation, but the prefill order stays ids ascending. */
static void random_order_leaves_prefill_order(void **state)
{
	struct options given = given_for("htab-lookup", 1, 1000, -1);
	struct plan cfg;
	__u32 seq[1000], rnd[1000];

	GIVE(given.keys, KEYS_RANDOM);
	assert_int_equal(plan_resolve(&given, machine(), &cfg), EXIT_OK);
	keys_ids(&cfg, seq, KEYS_FILL);
	keys_ids(&cfg, rnd, KEYS_VISIT);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(seq[i], i);
	assert_memory_not_equal(seq, rnd, sizeof(seq));
}

static void shared_layout_spreads_start(void **state)
{
	struct plan cfg = plan_for("htab-lookup", 2, 1000, 500);
	struct prod_ctl ctl[2];

	walk_assign(&cfg, ctl);
	assert_int_equal(ctl[0].hi, 500);
	assert_int_equal(ctl[1].lo, 0);
	assert_int_equal(ctl[1].cur, 250);
	assert_int_equal(cfg.batch, 1024);
}

static void walk_errors(void **state)
{
	struct options given;
	struct plan cfg;

	assert_int_equal(resolve(given_for("htab-lookup", 1, 1000, 2000)), EXIT_USAGE); /* nr > max */
	assert_int_equal(resolve(given_for("htab-add_del_on_diff_cpu", 3, 1000, -1)),
			 EXIT_USAGE);						/* odd -p */
	assert_int_equal(resolve(given_for("htab-overwrite", 1, 1000, 1000)),
			 EXIT_USAGE);						/* no churn keys */
	assert_int_equal(resolve(given_for("htab-overwrite-full", 1, 1000, 10)),
			 EXIT_USAGE);						/* full: nr == max */
	cfg = plan_for("htab-overwrite-full", 1, 1000, -1);
	assert_int_equal(cfg.nr_entries, 1000);
	assert_int_equal(resolve(given_for("htab-mem-overwrite", 200, 8192, -1)),
			 EXIT_USAGE);						/* 200 x 64 > max */
	assert_int_equal(resolve(given_for("htab-mem-overwrite", 2, 8192, 100)),
			 EXIT_USAGE);						/* starts empty */
	given = given_for("bpf-hashmap-full-update", 1, 1000, -1);
	GIVE(given.keys, KEYS_RANDOM);
	assert_int_equal(resolve(given), EXIT_USAGE);			/* the kernel's order */
}

/* --keys index, the kernel rows' default: each producer's ids as first + i x
 * step, whole passes from its first key; refused where runs are not. */
static void index_keys_are_first_plus_step(void **state)
{
	struct prod_ctl ctl[4];
	__u32 ids[8192];
	struct plan mem = laid_out("htab-mem-overwrite", 4, 8192, ctl, ids), cfg;
	struct options given = given_for("bpf-hashmap-lookup", 1, 1000, 750);

	assert_int_equal(mem.keys, KEYS_INDEX);
	assert_int_equal(keys_index_form(&mem, ctl, 4), 0);
	for (int p = 0; p < 4; p++)	/* the kernel's from = cpu, step = producers */
		assert_true(ctl[p].id_first == (__u32)p && ctl[p].id_step == 4);
	cfg = laid_out("bpf-hashmap-full-update", 2, 1000, ctl, ids);
	assert_int_equal(keys_index_form(&cfg, ctl, 2), 0);
	assert_true(ctl[1].id_first == 1001 && ctl[1].id_step == 0);
	/* whole passes of 750: the batch is not rounded to a multiple of 8 */
	assert_int_equal(plan_resolve(&given, machine(), &cfg), EXIT_OK);
	assert_int_equal(cfg.batch, 1333 * 750);
	given = given_for("htab-lookup", 1, 1000, -1);	/* spread starts: not whole passes */
	GIVE(given.keys, KEYS_INDEX);
	assert_int_equal(resolve(given), EXIT_USAGE);
	given = given_for("lpm-trie-lookup", 1, -1, -1);	/* LPM has its counter */
	GIVE(given.keys, KEYS_INDEX);
	assert_int_equal(resolve(given), EXIT_USAGE);
}

/* LRU kinds evict, so their keys may outnumber the map: the keys array
 * holds them all; other kinds refuse. */
static void lru_kinds_take_more_keys_than_the_map(void **state)
{
	struct options given = given_for("htab-lookup", 1, 1000, 2000);
	struct plan cfg;

	assert_int_equal(resolve(given), EXIT_USAGE);
	given.map_name = "lru-nocommon";
	assert_int_equal(plan_resolve(&given, machine(), &cfg), EXIT_OK);
	assert_string_equal(cfg.map_name, "lru_nocommon");
	assert_int_equal(walk_key_slots(&cfg), 2000);
}

/* htab-lru-evict: twice max keys by default, drawn, in a sequence 8 x nr
 * long (at least 64K); --zipf only where keys are drawn, --keys never. */
static void evict_plan_draws_twice_the_map(void **state)
{
	struct plan cfg = plan_for("htab-lru-evict", 1, 100000, -1);
	struct options given = given_for("htab-lru-evict", 1, 1000, -1);

	assert_int_equal(cfg.nr_entries, 200000);
	assert_int_equal(cfg.keys, KEYS_DRAWN);
	assert_int_equal(walk_key_slots(&cfg), 1600000);
	assert_int_equal(walk_key_slots(&(struct plan){ .bench = cfg.bench, .nr_entries = 10 }),
			 65536);
	GIVE(given.keys, KEYS_RANDOM);
	assert_int_equal(resolve(given), EXIT_USAGE);
	given = given_for("htab-lookup", 1, 1000, -1);
	given.zipf = 1;
	assert_int_equal(resolve(given), EXIT_USAGE);
}

/* --hit-ratio 0.25: the visits put an absent id (above every present one)
 * in 3 of every 4 slots, evenly, so each batch of 8 misses 6; the prefill
 * still stores every key. */
static void hit_ratio_spreads_absent_keys(void **state)
{
	struct options given = given_for("htab-lookup", 1, 1000, -1);
	static __u32 fill[1000], visit[1000];
	struct plan cfg;
	int absent = 0;

	given.hit_ratio = 0.25;
	assert_int_equal(plan_resolve(&given, machine(), &cfg), EXIT_OK);
	assert_true(keys_visit_differs(&cfg));
	keys_ids(&cfg, fill, KEYS_FILL);
	keys_ids(&cfg, visit, KEYS_VISIT);
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(fill[i], i);
		absent += visit[i] >= 1000;
		assert_true(visit[i] == (__u32)i || visit[i] > 1000);
	}
	assert_int_equal(absent, 750);
	for (int b = 0; b < 1000; b += 8) {
		int miss = 0;

		for (int i = b; i < b + 8; i++)
			miss += visit[i] >= 1000;
		assert_int_equal(miss, 6);
	}
}

/* Uniform draws cover [0, nr) evenly; Zipf's id k comes up in proportion
 * to 1 / (k + 1)^s; a seed gives one sequence. */
static void draws_follow_their_distribution(void **state)
{
	enum { N = 200000, NR = 1000 };
	static __u32 a[N], b[N];
	static long count[NR];
	double h = 0;

	assert_int_equal(keys_draw(a, N, 100, 0, 1), 0);
	for (int i = 0; i < N; i++)
		count[a[i]]++;
	for (int k = 0; k < 100; k++)	/* 2000 expected, sd 44 */
		assert_true(count[k] > 1700 && count[k] < 2300);
	memset(count, 0, sizeof(count));
	assert_int_equal(keys_draw(a, N, NR, 1.0, 7), 0);
	for (int i = 0; i < N; i++)
		count[a[i]]++;
	for (int k = 1; k <= NR; k++)
		h += 1.0 / k;
	/* id 0: N / H(1000) = 26,718 expected (sd 152); id 1 half of it */
	assert_true(labs(count[0] - (long)(N / h)) < 1000);
	assert_true(labs(count[1] - (long)(N / h / 2)) < 700);
	assert_int_equal(keys_draw(b, N, NR, 1.0, 7), 0);
	assert_memory_equal(a, b, sizeof(a));
	assert_int_equal(keys_draw(b, N, NR, 1.0, 8), 0);
	assert_memory_not_equal(a, b, sizeof(a));
}

/* The resolve step writes only its output: the options it read stay as given. */
static void resolve_leaves_the_options_alone(void **state)
{
	struct options given = given_for("htab-delete", 3, 1000, -1), copy = given;
	struct plan cfg;

	assert_int_equal(plan_resolve(&given, machine(), &cfg), EXIT_OK);
	assert_memory_equal(&given, &copy, sizeof(given));
	assert_int_equal(cfg.nr_entries, 1000);
	assert_false(given.nr_entries.given);
}

/* A benchmark that differs from htab-lookup only in data (16-byte keys by
 * default) is one more row: the same plan but for the key size, nothing
 * else to write. */
static void a_data_only_benchmark_is_one_row(void **state)
{
	struct bench row = *bench_find("htab-lookup", NULL);
	struct options given;
	struct plan wide, base = plan_for("htab-lookup", 1, -1, -1);

	row.name = "htab-lookup-16";
	row.key_size = 16;
	options_init(&given);
	given.bench = &row;
	assert_int_equal(plan_resolve(&given, machine(), &wide), EXIT_OK);
	assert_int_equal(wide.key_size, 16);
	wide.key_size = base.key_size;
	wide.bench = base.bench;
	assert_true(json_equal(plan_json(&wide), plan_json(&base)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(permutation_keeps_prefill_ids),
		cmocka_unit_test(permutation_is_shuffled_and_seeded),
		cmocka_unit_test(sliced_layout_is_disjoint_and_complete),
		cmocka_unit_test(churn_pairs_share_slices),
		cmocka_unit_test(strided_layout_is_htab_mem),
		cmocka_unit_test(strided_pairs_share_keys),
		cmocka_unit_test(absent_layout_is_full_update),
		cmocka_unit_test(from_first_layout_is_hashmap_lookup),
		cmocka_unit_test(random_order_leaves_prefill_order),
		cmocka_unit_test(shared_layout_spreads_start),
		cmocka_unit_test(walk_errors),
		cmocka_unit_test(index_keys_are_first_plus_step),
		cmocka_unit_test(resolve_leaves_the_options_alone),
		cmocka_unit_test(lru_kinds_take_more_keys_than_the_map),
		cmocka_unit_test(evict_plan_draws_twice_the_map),
		cmocka_unit_test(draws_follow_their_distribution),
		cmocka_unit_test(hit_ratio_spreads_absent_keys),
		cmocka_unit_test(a_data_only_benchmark_is_one_row),
	};
	return cmocka_run_group_tests_name("keys", tests, NULL, NULL);
}
