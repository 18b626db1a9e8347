// SPDX-License-Identifier: GPL-2.0
/* The result document and its atomic writer. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "cli.h"
#include "plan.h"
#include "peer.h"
#include "result.h"

static char dir[64];

static int make_dir(void **state)
{
	strcpy(dir, "/tmp/mapbench-test-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static int count_files(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* The machine the plans are for: two CPUs, whatever runs the tests. */
static const struct host *machine(void)
{
	static struct host h;

	host_assume(&h, 2);
	return &h;
}

/* The document of a two-sample run of row (htab-lookup's, or a copy). */
static json_t *document_of(const struct bench *row, enum run_status status, const char *reason)
{
	static struct options given;
	static struct plan cfg;
	static struct run run = { .plan = &cfg, .map_type_name = "BPF_MAP_TYPE_HASH" };
	static struct prod_delta d[2] = { { 100, 1000, 100, 0 }, { 100, 1000, 90, 10 } };
	static struct sample v[2] = { { .warmup = true, .interval_ns = 1e9, .prod = &d[0] },
				      { .interval_ns = 1e9, .prod = &d[1] } };
	static struct prod_counters last[1];
	struct samples s = { .v = v, .n = 2, .nprod = 1, .last = last };
	struct run_summary sum;
	char *argv[] = { "bench", "htab-lookup", "--label", "after", NULL };
	enum cli_action a;

	cli_parse(4, argv, &given, &a);
	given.bench = row;
	GIVE(given.batch, 64);
	plan_resolve(&given, machine(), &cfg);
	sample_finish(&v[0], 1, row);
	sample_finish(&v[1], 1, row);
	s.errs[7] = 2;
	summarize_run(&s, &sum);
	summarize_kernel_lines(&run, &s, &sum);
	return result_json(&run, &s, &sum, NULL, status, reason);
}

static json_t *sample_document(enum run_status status, const char *reason)
{
	return document_of(bench_find("htab-lookup", NULL), status, reason);
}

/* A kernel bench mapbench lacks is a row and a peer (src/peers/): its
 * final lines reach the result without a change to the engine. */
static int new_bench_lines(const struct run *run, const struct samples *s,
			   const struct run_summary *sum, char *buf, size_t len)
{
	snprintf(buf, len, "Summary: a new kernel bench's own line");
	return 1;
}

static const struct kernel_bench new_bench = { .final_lines = new_bench_lines };

static void a_kernel_bench_is_a_row_and_a_peer(void **state)
{
	struct bench row = *bench_find("htab-lookup", NULL);
	json_t *doc, *lines;

	row.name = "new-kernel-bench";
	row.kernel = &new_bench;
	doc = document_of(&row, RUN_COMPLETE, "");
	lines = json_object_get(json_object_get(doc, "summary"), "kernel_lines");
	assert_int_equal(json_array_size(lines), 1);
	assert_string_equal(json_string_value(json_array_get(lines, 0)),
			    "Summary: a new kernel bench's own line");
	assert_string_equal(json_string_value(json_object_get(doc, "benchmark")), "new-kernel-bench");
	json_decref(doc);
}

static void document_has_schema_and_figures(void **state)
{
	json_t *doc = sample_document(RUN_COMPLETE, ""), *sum;

	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")), RESULT_SCHEMA);
	assert_int_equal(json_integer_value(json_object_get(doc, "schema_version")), 3);
	assert_string_equal(json_string_value(json_object_get(doc, "status")), "complete");
	assert_int_equal(json_array_size(json_object_get(doc, "samples")), 2);
	sum = json_object_get(doc, "summary");
	assert_int_equal(json_integer_value(json_object_get(sum, "samples")), 1);
	assert_float_equal(json_real_value(json_object_get(sum, "hit_rate")), 0.9, 1e-12);
	/* one sample: stddev 0; throughput 100 ops / 1 s of wall time; in-kernel
	 * 100 ops / 1000 ns = 100 M ops/s per producer */
	assert_float_equal(json_real_value(json_object_get(json_object_get(sum, "throughput_mops"),
							   "mean")), 100 / 1e6, 1e-12);
	assert_float_equal(json_real_value(json_object_get(json_object_get(sum,
			   "kernel_mops_per_producer"), "mean")), 100, 1e-9);
	assert_string_equal(json_string_value(json_object_get(json_object_get(sum, "figure"),
							      "unit")), "M ops/s");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "errors"), "total")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(doc, "errors"),
						"by_errno"), "E2BIG")), 2);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "environment"),
							      "label")), "after");
	assert_null(json_object_get(doc, "reason"));
	json_decref(doc);
}

static void unsupported_document_says_why(void **state)
{
	json_t *doc;

	doc = sample_document(RUN_UNSUPPORTED, "this kernel has no BPF_MAP_TYPE_RHASH");
	assert_string_equal(json_string_value(json_object_get(doc, "status")), "unsupported");
	assert_string_equal(json_string_value(json_object_get(doc, "reason")),
			    "this kernel has no BPF_MAP_TYPE_RHASH");
	json_decref(doc);
}

static void write_is_atomic_and_clean(void **state)
{
	char path[128];
	json_t *doc = sample_document(RUN_COMPLETE, ""), *back;
	json_error_t err;

	snprintf(path, sizeof(path), "%s/r.json", dir);
	assert_int_equal(result_write(path, doc), 0);
	back = json_load_file(path, 0, &err);
	assert_non_null(back);
	assert_true(json_equal(json_object_get(back, "params"), json_object_get(doc, "params")));
	assert_int_equal(count_files(dir), 1);	/* no temp file left */
	json_decref(back);
	json_decref(doc);
}

static void write_failure_leaves_nothing(void **state)
{
	char path[128];
	json_t *doc = sample_document(RUN_COMPLETE, "");

	snprintf(path, sizeof(path), "%s/missing/r.json", dir);
	assert_int_not_equal(result_write(path, doc), 0);
	assert_int_equal(count_files(dir), 0);
	json_decref(doc);
}

/* Folders are made inside results/ only; elsewhere the folder must exist,
 * and be a folder. */
static void check_path_makes_folders_in_results_only(void **state)
{
	char path[160];
	struct stat st;

	snprintf(path, sizeof(path), "%s/a/b/r.json", dir);
	assert_int_equal(result_check_path(path), -ENOENT);
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_int_not_equal(stat(path, &st), 0);		/* nothing made */
	snprintf(path, sizeof(path), "%s/results/set/cfg/r.json", dir);
	assert_int_equal(result_check_path(path), 0);
	snprintf(path, sizeof(path), "%s/results/set/cfg", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_not_equal(result_check_path(path), 0);	/* a directory, not a file */
	snprintf(path, sizeof(path), "%s/results/set/file", dir);
	close(open(path, O_CREAT | O_WRONLY, 0644));
	snprintf(path, sizeof(path), "%s/results/set/file/x.json", dir);
	assert_int_equal(result_check_path(path), -ENOTDIR);		/* its folder is a file */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(document_has_schema_and_figures),
		cmocka_unit_test(unsupported_document_says_why),
		cmocka_unit_test(a_kernel_bench_is_a_row_and_a_peer),
		cmocka_unit_test_setup_teardown(write_is_atomic_and_clean, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(write_failure_leaves_nothing, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(check_path_makes_folders_in_results_only, make_dir, remove_dir),
	};
	return cmocka_run_group_tests_name("result", tests, NULL, NULL);
}
