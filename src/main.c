// SPDX-License-Identifier: GPL-2.0
/* ./bench: parse, validate, set up, run producers under the sampler, then
 * summarise and write the result. */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "cpu.h"
#include "env.h"
#include "log.h"
#include "output.h"
#include "peer.h"
#include "perf.h"
#include "plan.h"
#include "probe.h"
#include "producer.h"
#include "result.h"
#include "sampler.h"
#include "stats.h"
#include "stop.h"
#include "trigger.h"

/* What a run needs beyond valid options: a writable --json path, BPF rights. */
static int check_can_run(const struct plan *plan)
{
	const char *missing;
	int err;

	if (plan->json_path && (err = result_check_path(plan->json_path))) {
		mb_err("cannot write --json %s: %s%s", plan->json_path, strerror(-err),
		       err == -ENOENT ? " (its folder must exist; only folders inside results/ are made)" : "");
		return EXIT_USAGE;
	}
	if (!have_bpf_caps(&missing)) {
		mb_err("loading BPF programs needs %s: run as root, or grant CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN",
		       missing);
		return EXIT_UNSUPPORTED;
	}
	return EXIT_OK;
}

/* The result document, if --json asked for one: samples or mem's report. */
static int write_result(const struct run *run, const struct samples *s,
			const struct run_summary *sum, json_t *part,
			enum run_status status, const char *reason)
{
	const char *path = run->plan->json_path;
	json_t *doc;
	int err;

	if (!path)
		return EXIT_OK;
	doc = result_json(run, s, sum, part, status, reason);
	err = doc ? result_write(path, doc) : -ENOMEM;
	json_decref(doc);
	if (err) {
		mb_err("writing %s failed: %s", path, strerror(-err));
		return EXIT_RUNTIME;
	}
	if (!run->plan->quiet)
		printf("Result: %s\n", path);
	return EXIT_OK;
}

/* Exit status of a run that got as far as sampling: a run that measured
 * nothing failed, whatever else it did. */
static int run_exit_status(const struct run *run, const struct samples *s,
			   const struct run_summary *sum, int failed)
{
	if (failed)
		return failed;
	if (sum->errors) {
		mb_err("%llu map operations failed unexpectedly (see Errors above)",
		       (unsigned long long)sum->errors);
		return EXIT_RUNTIME;
	}
	if (s->interrupted)
		return 128 + stop_requested;
	if (!sum->n && run->plan->trigger == TRIGGER_NIC) {
		mb_err("no packet arrived on %s in %d s: nothing was measured; send traffic to it (README: Real NIC)",
		       run->plan->iface, run->plan->duration);
		return EXIT_RUNTIME;
	}
	if (!sum->n) {
		mb_err("no measured sample completed an operation: nothing was measured (raise --duration?)");
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

static enum run_status status_of(int exit_status)
{
	if (exit_status == EXIT_OK)
		return RUN_COMPLETE;
	if (exit_status == EXIT_UNSUPPORTED)
		return RUN_UNSUPPORTED;
	return exit_status > 128 ? RUN_INTERRUPTED : RUN_FAILED;
}

/* A benchmark measured without producers (mem): its own part of the result. */
static int measure_oneshot(struct run *run)
{
	json_t *part = NULL;
	int status, werr;

	run->timing = "none";	/* no programs run */
	status = run->plan->bench->family->oneshot(run, &part);
	werr = write_result(run, NULL, NULL, part, status_of(status), mb_last_error());
	json_decref(part);
	return status ?: werr;
}

/* Every insert the map did not keep was evicted: the run's inserts (its
 * misses, since the row's misses insert) less what the map holds now. */
/* Once the producers have stopped: every insert (a miss) is kept or was
 * evicted, so the counters and the map's entries read now add up. */
static void count_evictions(struct run *run)
{
	const struct family *f = run->plan->bench->family;
	struct prod_counters *now;
	long long inserts = 0;

	run->entries_end = run->evictions = -1;
	if (!run->plan->bench->counts_evictions || !f->entries)
		return;
	now = calloc(run->plan->producers, sizeof(*now));
	if (!now)
		return;
	f->measure(run, now);
	for (int p = 0; p < run->plan->producers; p++)
		inserts += now[p].misses;
	free(now);
	run->entries_end = f->entries(run);
	if (run->entries_end >= 0)
		run->evictions = inserts - run->entries_end;
}

static int measure(struct run *run)
{
	const struct family *f = run->plan->bench->family;
	struct samples samples = {};
	struct run_summary sum = {};
	struct producers prods;
	/* static: the counters' fds of MAX_PRODUCERS threads are too large for the stack */
	static struct perf_counters perf;
	int status, failed, werr;

	status = f->setup(run);
	if (status) {
		f->teardown(run);
		if (status == EXIT_UNSUPPORTED)
			write_result(run, &samples, &sum, NULL, RUN_UNSUPPORTED, mb_last_error());
		return status;
	}
	output_setup(run);
	if (run->plan->perf) {
		perf_init(&perf);
		run->perf = &perf;
	}
	failed = producers_start(&prods, run);
	if (!failed)
		failed = sampler_run(run, &prods, &samples);
	failed = producers_stop(&prods) ?: failed;
	if (run->plan->jit_symbols)
		run->programs = env_bpf_programs();
	count_evictions(run);
	if (run->perf)
		perf_close(run->perf, run->plan->producers);
	f->teardown(run);

	summarize_run(&samples, &sum);
	summarize_roles(&samples, run->plan->writers, &sum);
	summarize_kernel_lines(run, &samples, &sum);
	output_summary(run, &samples, &sum);
	if (run->perf && !run->plan->quiet)
		perf_print(run->perf, sum.ops, stdout);
	status = run_exit_status(run, &samples, &sum, failed);
	/* Unexpected operation errors fail the run, even one cut short. */
	werr = write_result(run, &samples, &sum, NULL,
			    samples.interrupted && !failed && !sum.errors ? RUN_INTERRUPTED :
			    status ? RUN_FAILED : RUN_COMPLETE,
			    atomic_load(&prods.failed) ? prods.reason : mb_last_error());
	samples_free(&samples);
	json_decref(run->programs);
	return status ?: werr;
}

/* --contracts --json FILE: every benchmark's contract, and the shapes of
 * the kernel tools' lines that scripts/mapbench/kernel_log.py reads. */
static int write_contracts(const char *path)
{
	json_t *doc = json_pack("{s:o, s:o, s:o}", "benchmarks", cli_contracts_json(),
				"lines", kernel_lines_json(), "scales", kernel_scales_json());
	int err = json_dump_file(doc, path, JSON_INDENT(1) | JSON_SORT_KEYS);

	json_decref(doc);
	if (err) {
		mb_err("writing %s failed: %s", path, strerror(errno));
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* --dry-run: the plan as the result's params would record it. */
static void print_plan(const struct plan *plan)
{
	json_t *o = plan_json(plan);
	char *text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);

	printf("%s: valid\nPlan: %s\n", plan->bench->name, text ? text : "{}");
	if (plan->bench->kernel && plan->bench->kernel->command) {
		char cmd[128];

		plan->bench->kernel->command(plan, cmd, sizeof(cmd));
		printf("Kernel command: %s\n", cmd);
	}
	free(text);
	json_decref(o);
}

int main(int argc, char **argv)
{
	/* static: a 4096-CPU online list is too large for the stack */
	static struct host host;
	struct options given;
	struct plan plan;
	struct run run = { .plan = &plan, .progress = &text_progress, .entries_end = -1,
			   .evictions = -1 };
	enum cli_action action;
	int err;

	err = cli_parse(argc, argv, &given, &action);
	if (err)
		return err;
	if (action == CLI_HELP) {
		cli_usage(stdout);
		return EXIT_OK;
	}
	if (action == CLI_LIST) {
		cli_list(stdout);
		return EXIT_OK;
	}
	if (action == CLI_SCENARIOS)
		return cli_scenarios(stdout, given.list_group);
	if (action == CLI_CONTRACTS && given.json_path)
		return write_contracts(given.json_path);
	if (action == CLI_CONTRACTS) {
		cli_contracts(stdout);
		return EXIT_OK;
	}
	if (action == CLI_OPTIONS) {
		cli_options(stdout);
		return EXIT_OK;
	}
	if (action == CLI_VERSION) {
		printf("mapbench %s\n", mapbench_revision());
		return EXIT_OK;
	}
	log_setup(given.verbose);
	if (given.guest_cpus)
		host_assume(&host, given.guest_cpus);
	else
		host_probe(&host);
	err = plan_resolve(&given, &host, &plan);
	if (err)
		return err;
	if (plan.dry_run) {
		print_plan(&plan);
		return EXIT_OK;
	}
	err = check_can_run(&plan);
	if (err)
		return err;
	/* --trigger nic starts no producer threads: nothing takes turns. */
	if (plan.producers > host.online_cpus && plan.trigger != TRIGGER_NIC)
		run_warn(&run, "%d producers on %d online CPUs: they take turns on the CPUs; "
			 "throughput is what the machine delivered, per-producer in-kernel rates "
			 "do not add up to it", plan.producers, host.online_cpus);
	run.trigger = plan.trigger;
	stop_on_signals();
	if (plan.bench->family->oneshot)
		return measure_oneshot(&run);
	return measure(&run);
}
