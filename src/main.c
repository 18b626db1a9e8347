// SPDX-License-Identifier: GPL-2.0
/* ./bench: parse, validate, set up, run producers under the sampler, then
 * summarise and write the result. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "cpu.h"
#include "log.h"
#include "output.h"
#include "perf.h"
#include "probe.h"
#include "producer.h"
#include "result.h"
#include "sampler.h"
#include "stats.h"
#include "trigger.h"

/* The benchmark's options, checked without touching the kernel or files. */
static int validate(struct config *cfg)
{
	int err;

	if (cfg->bench->single_producer && cfg->producers > 1) {
		mb_err("%s needs the map to itself: run it with -p 1", cfg->bench->name);
		return EXIT_USAGE;
	}
	err = trigger_validate(cfg) ?: cpu_validate(cfg);
	return err ?: cfg->bench->family->validate(cfg);
}

/* What a run needs beyond valid options: a writable --json path, BPF rights. */
static int check_can_run(const struct config *cfg)
{
	const char *missing;
	int err;

	if (cfg->json_path && (err = result_check_path(cfg->json_path))) {
		mb_err("cannot write --json %s: %s", cfg->json_path, strerror(-err));
		return EXIT_USAGE;
	}
	if (!have_bpf_caps(&missing)) {
		mb_err("loading BPF programs needs %s: run as root, or grant CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN",
		       missing);
		return EXIT_UNSUPPORTED;
	}
	return EXIT_OK;
}

/* The result document, if --json asked for one; memory is the part a
 * oneshot benchmark adds (NULL for throughput benchmarks). */
static int write_result(const struct run *run, const struct samples *s,
			const struct run_summary *sum, enum run_status status, json_t *memory)
{
	json_t *doc;
	int err;

	if (!run->cfg->json_path)
		return EXIT_OK;
	doc = result_json(run, s, sum, status);
	if (doc && memory)
		json_object_set(doc, "memory", memory);
	err = doc ? result_write(run->cfg->json_path, doc) : -ENOMEM;
	json_decref(doc);
	if (err) {
		mb_err("writing %s failed: %s", run->cfg->json_path, strerror(-err));
		return EXIT_RUNTIME;
	}
	if (!run->cfg->quiet)
		printf("Result: %s\n", run->cfg->json_path);
	return EXIT_OK;
}

/* Exit status of a run that got as far as sampling. */
static int run_exit_status(const struct samples *s, const struct run_summary *sum, int failed)
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

	status = run->cfg->bench->family->oneshot(run, &part);
	werr = write_result(run, NULL, NULL, status_of(status), part);
	json_decref(part);
	return status ?: werr;
}

static int measure(struct run *run)
{
	const struct family *f = run->cfg->bench->family;
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
			write_result(run, &samples, &sum, RUN_UNSUPPORTED, NULL);
		return status;
	}
	output_setup(run);
	if (run->cfg->perf) {
		perf_init(&perf);
		run->perf = &perf;
	}
	failed = producers_start(&prods, run);
	if (!failed)
		failed = sampler_run(run, &prods, &samples);
	failed = producers_stop(&prods) ?: failed;
	if (run->perf)
		perf_close(run->perf, run->cfg->producers);
	f->teardown(run);

	summarize_run(&samples, &sum);
	output_summary(run, &samples, &sum);
	if (run->perf && !run->cfg->quiet)
		perf_print(run->perf, sum.ops, stdout);
	status = run_exit_status(&samples, &sum, failed);
	/* Unexpected operation errors fail the run, even one cut short. */
	werr = write_result(run, &samples, &sum,
			    failed || sum.errors ? RUN_FAILED :
			    samples.interrupted ? RUN_INTERRUPTED : RUN_COMPLETE, NULL);
	samples_free(&samples);
	return status ?: werr;
}

int main(int argc, char **argv)
{
	struct config cfg;
	struct run run = { .cfg = &cfg };
	enum cli_action action;
	int err;

	err = cli_parse(argc, argv, &cfg, &action);
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
	if (action == CLI_CONTRACTS) {
		cli_contracts(stdout);
		return EXIT_OK;
	}
	log_setup(cfg.verbose);
	err = validate(&cfg);
	if (err)
		return err;
	if (cfg.dry_run) {
		printf("%s: valid\n", cfg.bench->name);
		return EXIT_OK;
	}
	err = check_can_run(&cfg);
	if (err)
		return err;
	if (cfg.producers > cpu_online_count())
		snprintf(run.warning, sizeof(run.warning),
			 "%d producers on %d online CPUs: they take turns on the CPUs; throughput is "
			 "what the machine delivered, per-producer in-kernel rates do not add up to it",
			 cfg.producers, cpu_online_count());
	sampler_install_signals();
	if (cfg.bench->family->oneshot)
		return measure_oneshot(&run);
	return measure(&run);
}
