"""compare, gate, report and plot on result files whose answers are known."""
import json
import re
import struct
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from conftest import run_bench, run_script

from mapbench import kernel_log, stats, verdict

ENV = {"cpu_model": "AMD EPYC", "online_cpus": 2, "kernel_release": "6.18.44",
       "bpf_jit_enable": "1", "bpf_jit_harden": "0"}


def sample(i, m, warmup=False):
    return {"index": i, "warmup": warmup, "interval_ns": 1e9, "ops": 1000, "ns": 1000,
            "runs": 10, "hits": 0, "misses": 0, "throughput_mops": m, "latency_ns": 1000.0 / m,
            "kernel_mops_per_producer": m, "figure": m, "memlock_bytes": None,
            "charged_bytes": None, "producers": []}


def result_doc(bench, medians, params=None, env=None, status="complete",
               figure=("throughput", "M ops/s", "wall")):
    """A result document whose runs' medians are the given values (the
    figure, throughput and in-kernel rate alike)."""
    name, unit, clock = figure
    return {"schema": "mapbench-result", "schema_version": 2, "status": status,
            "benchmark": bench, "family": "htab", "command": ["./bench", bench],
            "params": params or {"map": "htab", "max_entries": 1000, "nr_entries": 1000,
                                 "key_size": 4},
            "samples": [sample(0, 1.0, warmup=True)] +
                       [sample(i + 1, m) for i, m in enumerate(medians)],
            "summary": {"memory": {}, "figure": {"name": name, "unit": unit, "clock": clock}},
            "errors": {"total": 0}, "environment": dict(ENV, **(env or {}))}


def write_set(folder, bench, values, **kw):
    """One result file per run; each run's median is one of values."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, v in enumerate(values):
        (folder / f"{bench}-{i}.json").write_text(json.dumps(result_doc(bench, [v] * 3, **kw)))
    return folder


def script(name, *args):
    return run_script(name, *args)


def noisy(mean, cv, n, seed):
    return list(np.random.default_rng(seed).normal(mean, mean * cv, n))


@pytest.fixture
def slowdown(tmp_path):
    """htab-lookup 10% slower after, little noise; htab-update unchanged."""
    a, b = tmp_path / "before", tmp_path / "after"
    write_set(a, "htab-lookup", noisy(100, 0.005, 6, 1))
    write_set(b, "htab-lookup", noisy(90, 0.005, 6, 2))
    write_set(a, "htab-update", noisy(30, 0.01, 6, 3))
    write_set(b, "htab-update", noisy(30, 0.01, 6, 4))
    return a, b


def verdicts(out):
    return {line.split()[0]: line.split("|")[-1].strip()
            for line in out.splitlines() if line.startswith("htab-")}


def test_ten_percent_slowdown_is_a_regression(slowdown):
    proc = script("compare", *slowdown)
    assert proc.returncode == 0, proc.stderr
    v = verdicts(proc.stdout)
    assert v == {"htab-lookup": "REGRESSION", "htab-update": "no significant change"}
    assert "-10." in proc.stdout or "-9.9" in proc.stdout
    assert "false alarms expected" in proc.stdout
    gate = script("gate", *slowdown)
    assert gate.returncode == 1, gate.stdout
    assert "REGRESSION" in gate.stdout


def test_identical_distributions_pass(tmp_path):
    a = write_set(tmp_path / "a", "htab-lookup", noisy(100, 0.02, 8, 10))
    b = write_set(tmp_path / "b", "htab-lookup", noisy(100, 0.02, 8, 11))
    assert verdicts(script("compare", a, b).stdout) == {"htab-lookup": "no significant change"}
    assert script("gate", a, b).returncode == 0


def test_underpowered_pass_is_inconclusive(tmp_path):
    a = write_set(tmp_path / "a", "htab-lookup", noisy(100, 0.08, 5, 20))
    b = write_set(tmp_path / "b", "htab-lookup", noisy(100, 0.08, 5, 21))
    gate = script("gate", a, b)
    assert gate.returncode == 2, gate.stdout
    assert "inconclusive: underpowered (MDE" in gate.stdout and "runs a side would do" in gate.stdout
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps({"default": {"allow_underpowered": True}}))
    assert script("gate", a, b, "--policy", policy).returncode == 0
    out = script("compare", a, b).stdout
    assert "MDE: with 5/5 runs and CV" in out and "runs a side would see 2%" in out


def test_outlier_runs_are_flagged_and_trimmed_test_resists_them(tmp_path):
    a = write_set(tmp_path / "a", "htab-lookup", [100.0, 100.5, 99.5, 100.2, 99.8, 100.1])
    b = write_set(tmp_path / "b", "htab-lookup", [100.3, 99.7, 100.0, 100.4, 99.9, 70.0])
    out = script("compare", a, b, "--test", "yuen").stdout
    assert "note: outlier run" in out and "htab-lookup-5.json" in out and "from the group's median" in out
    # not a change, though the outlier leaves too much spread to rule one out
    assert verdicts(out)["htab-lookup"].startswith("inconclusive: underpowered")


def test_a_set_mixing_kernels_is_refused(tmp_path):
    a = write_set(tmp_path / "a", "htab-lookup", [100.0, 101.0])
    write_set(tmp_path / "a" / "x", "htab-lookup", [100.0], env={"kernel_release": "6.12.1"})
    b = write_set(tmp_path / "b", "htab-lookup", [100.0, 101.0])
    proc = script("compare", a, b)
    assert proc.returncode == 3
    assert "differ in kernel_release (6.12.1, 6.18.44)" in proc.stderr


def test_two_runs_per_side_are_too_few(tmp_path):
    a = write_set(tmp_path / "a", "htab-lookup", [100, 101])
    b = write_set(tmp_path / "b", "htab-lookup", [80, 81])
    assert verdicts(script("compare", a, b).stdout) == {
        "htab-lookup": "inconclusive: too few runs (2/2 of 5 a side: 3 more)"}
    gate = script("gate", a, b)
    assert gate.returncode == 2 and "too few runs" in gate.stdout


def test_latency_up_is_a_regression(tmp_path):
    a = write_set(tmp_path / "a", "htab-lookup", noisy(100, 0.005, 6, 1))
    b = write_set(tmp_path / "b", "htab-lookup", noisy(80, 0.005, 6, 2))
    proc = script("compare", a, b, "--metric", "latency")
    assert verdicts(proc.stdout) == {"htab-lookup": "REGRESSION"}
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"default": {"metric": "latency", "threshold_pct": 30}}))
    assert script("gate", a, b, "--policy", policy).returncode == 0   # +25% < 30% threshold


def with_roles(folder, readers, writers):
    """The set's result files, their readers' and writers' medians set."""
    for i, (path, r, w) in enumerate(zip(sorted(folder.glob("*.json")), readers, writers)):
        doc = json.loads(path.read_text())
        doc["summary"]["roles"] = {
            role: {"throughput_mops": {"median": v}, "latency_ns": {"median": 1e3 / v}}
            for role, v in (("readers", r), ("writers", w))}
        path.write_text(json.dumps(doc))
    return folder


def test_writers_slower_readers_not_is_seen_in_the_writers_figure(tmp_path):
    """htab-lookup-update: the writers 20% slower, the readers the same;
    --metric writers_throughput says REGRESSION, readers_throughput does not."""
    a = with_roles(write_set(tmp_path / "a", "htab-lookup-update", [100] * 6),
                   noisy(90, 0.005, 6, 1), noisy(10, 0.005, 6, 2))
    b = with_roles(write_set(tmp_path / "b", "htab-lookup-update", [100] * 6),
                   noisy(90, 0.005, 6, 3), noisy(8, 0.005, 6, 4))
    out = {m: verdicts(script("compare", a, b, "--metric", m).stdout)["htab-lookup-update"]
           for m in ("readers_throughput", "writers_throughput", "writers_latency")}
    assert out["writers_throughput"] == out["writers_latency"] == "REGRESSION"
    assert out["readers_throughput"] != "REGRESSION"


def with_tail(folder, p50s, p99s):
    """The set's result files, their batches' p50 and p99 set."""
    for path, p50, p99 in zip(sorted(folder.glob("*.json")), p50s, p99s):
        doc = json.loads(path.read_text())
        doc["summary"]["batches"] = {"p50_ns": p50, "p90_ns": p50, "p99_ns": p99}
        path.write_text(json.dumps(doc))
    return folder


def test_a_longer_tail_is_a_p99_regression_not_a_p50_one(tmp_path):
    """The median batch unchanged, the 99th percentile 30% slower: --metric p99
    (lower is better) says REGRESSION, --metric p50 does not."""
    a = with_tail(write_set(tmp_path / "a", "htab-lookup", [100] * 6),
                  noisy(40, 0.005, 6, 1), noisy(80, 0.01, 6, 2))
    b = with_tail(write_set(tmp_path / "b", "htab-lookup", [100] * 6),
                  noisy(40, 0.005, 6, 3), noisy(104, 0.01, 6, 4))
    out = {m: verdicts(script("compare", a, b, "--metric", m).stdout)["htab-lookup"]
           for m in ("p50", "p99")}
    assert out["p99"] == "REGRESSION" and out["p50"] != "REGRESSION"


def map_perf_set(folder, per_task_runs):
    """map-perf-hash-kmalloc runs whose tasks printed these events per sec."""
    folder.mkdir(parents=True)
    for i, per_task in enumerate(per_task_runs):
        doc = result_doc("map-perf-hash-kmalloc", [sum(per_task)] * 3,
                         figure=("events per task", "events/s", "wall"))
        doc["summary"]["kernel_lines"] = [f"{cpu}:hash_map_perf kmalloc {v} events per sec"
                                          for cpu, v in enumerate(per_task)]
        (folder / f"run-{i}.json").write_text(json.dumps(doc))
    return folder


def test_per_cpu_report_is_seed_001s_events_per_sec(tmp_path):
    """--style per-cpu: a row per task, its events per sec averaged over the
    runs before and after, the delta, then the mean (100k -> 250k: +150%)."""
    a = map_perf_set(tmp_path / "a", [[100000, 90000], [100000, 110000]])
    b = map_perf_set(tmp_path / "b", [[250000, 240000], [250000, 260000]])
    proc = script("report", a, b, "--style", "per-cpu", "--format", "md")
    assert proc.returncode == 0, proc.stderr
    assert "map-perf-hash-kmalloc (events per sec per task; 2 runs / 2)" in proc.stdout
    rows = [[c.strip() for c in line.strip("|").split("|")]
            for line in proc.stdout.splitlines() if re.match(r"^\| (\d|mean)", line)]
    assert rows == [["0", "100000", "250000", "+150.00%"], ["1", "100000", "250000", "+150.00%"],
                    ["mean", "100000", "250000", "+150.00%"]]
    lone = script("report", a, "--style", "per-cpu")
    assert lone.returncode == 0 and "Per task" in lone.stdout


def lpm_doc(op, nr, figure, latency_ns, unit="M ops/s", counted=None):
    doc = result_doc(f"lpm-trie-{op}", [figure] * 3,
                     params={"map": "lpm_trie", "nr_entries": nr, "max_entries": nr},
                     figure=("throughput", unit, "wall"))
    for smp in doc["samples"]:
        smp["latency_ns"] = latency_ns
    if counted:
        doc["perf"] = {"scope": "producer threads", "counters": [
            {"name": name, "status": "ok", "total": v * 1e6, "per_op": v, "unit": "x/op",
             "mode": "kernel"} for name, v in counted.items()]}
    return doc


def test_lpm_report_is_seed_002s_tables(tmp_path):
    """--style lpm: at 10K, lookup, update, delete and free as the kernel's LPM
    lines give them (free in K ops/s and ms/op); then the lookups by N with
    their miss and dTLB ratios from --perf's counts."""
    docs = [lpm_doc("lookup", 10000, 7.598, 131.608),
            lpm_doc("update", 10000, 3.247, 308.008),
            lpm_doc("delete", 10000, 1.747, 572.519),
            lpm_doc("free", 10000, 0.294, 3.521e6, unit="K ops/s"),
            lpm_doc("lookup", 1000000, 1.1, 909.0,
                    counted={"cache-misses": 3.0, "cache-references": 12.0,
                             "dTLB-load-misses": 1.0, "dTLB-loads": 50.0})]
    folder = tmp_path / "lpm"
    folder.mkdir()
    for i, doc in enumerate(docs):
        (folder / f"r{i}.json").write_text(json.dumps(doc))
    proc = script("report", folder, "--style", "lpm")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert re.search(r"^lookup +\| 7\.598 ± 0 M ops/s +\| +131\.608 ns/op", out, re.M), out
    assert re.search(r"^free +\| 0\.294 ± 0 K ops/s +\| +3\.521 ms/op", out, re.M), out
    assert re.search(r"^1M +\| +909\.00 \| +25\.00 \| +2\.00$", out, re.M), out
    assert re.search(r"^10K +\| +131\.61 \| +- \| +-$", out, re.M), out
    assert script("report", folder, folder, "--style", "lpm").returncode == 64


@pytest.mark.parametrize("after", [100, 80])
def test_environments_that_differ_are_not_compared(tmp_path, after):
    """Inconclusive, even when the numbers differ (a CPU change, not a regression)."""
    a = write_set(tmp_path / "a", "htab-lookup", noisy(100, 0.005, 6, 1))
    b = write_set(tmp_path / "b", "htab-lookup", noisy(after, 0.005, 6, 2),
                  env={"cpu_model": "Intel Xeon"})
    gate = script("gate", a, b)
    assert gate.returncode == 2 and "cpu_model" in gate.stdout
    out = script("compare", a, b).stdout
    assert "warning: environments must match but differ in cpu_model" in out
    assert verdicts(out)["htab-lookup"].startswith("inconclusive: environments must match")


@pytest.mark.parametrize("status", ["failed", "unsupported"])
def test_benchmark_not_measured_after_is_inconclusive(tmp_path, slowdown, status):
    """A benchmark whose after runs all failed must not vanish into a pass."""
    a, b = slowdown
    write_set(a, "htab-delete", noisy(50, 0.005, 6, 5))
    write_set(b, "htab-delete", noisy(50, 0.005, 6, 6), status=status)
    for f in b.glob("htab-lookup-*.json"):
        f.unlink()
    write_set(b, "htab-lookup", noisy(100, 0.005, 6, 7))
    gate = script("gate", a, b)
    assert gate.returncode == 2, gate.stdout
    line = next(l for l in gate.stdout.splitlines() if l.startswith("htab-delete"))
    assert f"inconclusive: status {status}" in line
    assert "note: left out" in gate.stdout
    gone = tmp_path / "gone"
    write_set(gone, "htab-lookup", noisy(100, 0.005, 6, 8))
    write_set(gone, "htab-update", noisy(30, 0.01, 6, 9))
    gate = script("gate", a, gone)
    assert gate.returncode == 2 and "inconclusive: no run after" in gate.stdout


def test_usage_errors_are_not_verdicts(slowdown):
    for name in ("gate", "compare", "report", "plot"):
        proc = script(name, *slowdown, "--no-such-option")
        assert proc.returncode == 64, (name, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1 and "--help" in proc.stderr
        assert "--help" in script(name, "--help").stdout


def test_malformed_result_is_one_line(tmp_path, slowdown):
    bad = tmp_path / "bad"
    bad.mkdir()
    doc = result_doc("htab-lookup", [1.0])
    del doc["params"]
    (bad / "x.json").write_text(json.dumps(doc))
    for name in ("gate", "compare", "report"):
        proc = script(name, bad, slowdown[1])
        assert proc.returncode == 3
        assert proc.stderr.strip().count("\n") == 0 and "malformed" in proc.stderr
        assert "Traceback" not in proc.stderr


def test_htab_mem_report_is_the_seed_table(tmp_path):
    """Seed 003's table: per-prod-op in k/s, rows named prealloc/normal + use case."""
    kps = ("per-prod-op", "k/s", "wall")
    for side, vals in (("a", (116.0, 72.0)), ("b", (118.0, 81.0))):
        for prealloc, v in zip((True, False), vals):
            write_set(tmp_path / side / str(prealloc), "htab-mem-overwrite", [v, v + 1, v + 2],
                      params={"map": "htab", "prealloc": prealloc}, figure=kps)
    proc = script("report", tmp_path / "a", tmp_path / "b")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()[-5:]
    assert lines[0].startswith("Benchmark (all in k/s per-prod-op, higher is better) |")
    assert lines[2].startswith("prealloc overwrite")
    assert lines[3].startswith("normal overwrite") and "+12.33%" in lines[3]
    # sqrt(119/117 x 82/73) - 1
    assert lines[4].startswith("geomean of 2") and "+6.89%" in lines[4]


def test_gate_tool_errors_exit_3(tmp_path, slowdown):
    assert script("gate", tmp_path / "missing", slowdown[1]).returncode == 3
    bad = tmp_path / "policy.json"
    bad.write_text('{"default": {"treshold": 5}}')
    proc = script("gate", *slowdown, "--policy", bad)
    assert proc.returncode == 3 and "treshold" in proc.stderr
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "x.json").write_text("{not json")
    assert script("gate", junk, slowdown[1]).returncode == 3


SEED_LOG = """\
   lookup: throughput    7.423 ± 0.023 M ops/s (  7.423M ops/prod), latency  134.710 ns/op
   update: throughput    2.643 ± 0.015 M ops/s (  2.643M ops/prod), latency  378.310 ns/op
   delete: throughput    0.712 ± 0.008 M ops/s (  0.712M ops/prod), latency 1405.152 ns/op
     free: throughput    0.574 ± 0.003 K ops/s (  0.574K ops/prod), latency    1.743 ms/op
"""


def test_kernel_bench_text_is_read():
    runs = {r.benchmark: r.metrics for r in kernel_log.parse_kernel_bench(SEED_LOG, "lpm.txt")}
    assert runs["lookup"] == {"throughput": 7.423, "figure": 7.423, "latency": 134.710}
    assert runs["free"]["throughput"] == pytest.approx(0.000574)
    assert runs["free"]["latency"] == pytest.approx(1.743e6)
    one = kernel_log.parse_kernel_bench(
        "Summary: throughput   92.827 ± 0.091 M ops/s ( 92.827M ops/prod), latency   10.773 ns/op",
        "/x/htab-lookup.log")
    assert one[0].benchmark == "htab-lookup" and one[0].metrics["throughput"] == 92.827
    # bpf-hashmap-lookup's and full-update's per-CPU lines: the mean per producer
    lookup = kernel_log.parse_kernel_bench(
        "cpu00: lookup 23.272M ± 5.213M events/sec (approximated from 21 samples of ~43ms)\n"
        "cpu01: lookup 21.000M ± 1.000M events/sec (approximated from 21 samples of ~43ms)\n", "l")
    assert lookup[0].metrics["figure"] == pytest.approx(22.136)
    full = kernel_log.parse_kernel_bench("0:hash_map_full_perf 8711066 events per sec\n"
                                         "1:hash_map_full_perf 9515100 events per sec\n", "f")
    assert full[0].per_producer == pytest.approx([8.711066, 9.5151])
    # map_perf_test's per-task lines, in events/s: lookups lines count 64 an event
    mpt = kernel_log.parse_kernel_bench("0:hash_map_perf kmalloc 262788 events per sec\n"
                                        "1:hash_map_perf kmalloc 257212 events per sec\n", "m")
    assert mpt[0].metrics["figure"] == pytest.approx(0.26)
    lookups = kernel_log.parse_kernel_bench("0:hash_lookup 24567296 lookups per sec\n", "h")
    assert lookups[0].per_producer == pytest.approx([24567296 / 64 / 1e6])
    assert kernel_log.looks_like_kernel_log("0:lpm_perf kmalloc 901836 events per sec\n")



BLOOM_LOG = """\
Setting up benchmark '{}'...
Benchmark '{}' started.
Summary: hits   20.500 ± 0.100M/s ( 20.500M/prod), drops    1.250 ± 0.010M/s, total operations   21.750 ± 0.110M/s
"""


@pytest.mark.parametrize("bench,source,figure,unit", [
    ("bloom-lookup", "b.log", 20.5, "M/s hits"),
    ("hashmap-with-bloom", "b.log", 21.75, "M/s total operations"),
    # quiet (-q): no Setting up line; suite's folder names the configuration
    (None, "k/bloom,hashmap-without-bloom,nr_entries=10/run-1.log", 21.75, "M/s total operations"),
    (None, "k/bloom,bloom-update/run-2.log", 20.5, "M/s hits"),
])
def test_a_line_two_benches_print_gives_each_its_own_figure(bench, source, figure, unit):
    """The bloom benches all print hits, drops and total operations; the
    kernel's script reads hits for bloom-lookup and -update, total operations
    for the hashmap pair, and so does the reader, by the shape each row
    declares."""
    text = BLOOM_LOG.format(bench, bench) if bench else BLOOM_LOG.splitlines()[2]
    run, = kernel_log.parse_kernel_bench(text, source)
    assert run.metrics == {"throughput": figure, "figure": figure} and run.unit("figure") == unit

def test_peer_report_sets_the_kernel_bench_beside_mapbench(tmp_path):
    ours, peer = tmp_path / "set", tmp_path / "set-kernel"
    write_set(ours / "overwrite", "htab-mem-overwrite", [62.0, 64.0, 63.0],
              figure=("per-prod-op", "k/s", "wall"))
    (peer / "overwrite").mkdir(parents=True)
    for i, v in enumerate([66.0, 66.5, 65.5]):
        (peer / "overwrite" / f"run-{i + 1}.log").write_text(
            f"Summary: per-prod-op {v:7.2f} ±    1.00k/s, memory usage    1.40 ±    0.01MiB, "
            "peak memory usage    1.50MiB\n")
    (peer / "lookup").mkdir()
    (peer / "lookup" / "run-1.log").write_text("failed to load map: Operation not permitted\n")
    write_set(ours / "lookup", "bpf-hashmap-lookup", [23.0])
    rep = script("report", ours, "--peer", peer)
    assert rep.returncode == 0, rep.stderr
    rows = {line.split("|")[0].strip(): [c.strip() for c in line.split("|")[1:]]
            for line in rep.stdout.splitlines() if "|" in line}
    assert rows["overwrite"][:3] == ["66.00 (CV 0.8%, 3)", "63.00 (CV 1.6%, 3)", "0.95"]
    assert rows["lookup"][0] == "did not run: failed to load map: Operation not permitted"
    assert "agree within 5% (1 configurations; ratios 0.95-0.95)" in rep.stdout


def test_peer_report_reads_the_timing_librarys_line(tmp_path):
    """7.3's bpf-nop prints its median ns/op (human, or a RESULT line): the
    figure of both sides, lower being better."""
    ours, peer = tmp_path / "set", tmp_path / "set-kernel"
    write_set(ours / "nop", "bpf-nop", [2.2, 2.0, 2.1], figure=("median per batch", "ns/op",
                                                                "in-kernel"))
    (peer / "nop").mkdir(parents=True)
    (peer / "nop" / "run-1.log").write_text(
        "bpf-nop: median 2.00 ns/op, stddev 0.27, p99 2.57 (191 samples)\n")
    (peer / "nop" / "run-2.log").write_text(
        "RESULT scenario=bpf-nop samples=200 median=2.00 stddev=0.20 cv=9.90 min=1.90 "
        "p99=2.50 max=2.60\n")
    rep = script("report", ours, "--peer", peer)
    assert rep.returncode == 0, rep.stderr
    row = next(line for line in rep.stdout.splitlines() if line.startswith("nop "))
    assert [c.strip() for c in row.split("|")[1:4]] == ["2.00 (CV 0.0%, 2)",
                                                         "2.10 (CV 4.8%, 3)", "1.05"]
    assert "ns/op median per batch" in row


def test_a_time_per_op_figure_that_grows_is_a_regression(tmp_path):
    a = write_set(tmp_path / "a", "bpf-nop", noisy(2.0, 0.005, 6, 1),
                  figure=("median per batch", "ns/op", "in-kernel"))
    b = write_set(tmp_path / "b", "bpf-nop", noisy(2.4, 0.005, 6, 2),
                  figure=("median per batch", "ns/op", "in-kernel"))
    out = script("compare", a, b).stdout
    assert "REGRESSION" in out and "lower is better" in out


def test_kernel_bench_logs_compare(tmp_path):
    for side, value in (("a", 7.4), ("b", 6.0)):
        d = tmp_path / side
        d.mkdir()
        for i in range(5):
            (d / f"run{i}.txt").write_text(
                f"   lookup: throughput {value + i * 0.01:.3f} ± 0.023 M ops/s (x), latency 134.7 ns/op\n")
    out = script("compare", tmp_path / "a", tmp_path / "b").stdout
    assert "lookup" in out and "REGRESSION" in out


def test_delta_report_matches_the_cover_letter_style(tmp_path):
    a = write_set(tmp_path / "a", "htab-lookup", [0.100, 0.102, 0.104])
    b = write_set(tmp_path / "b", "htab-lookup", [0.110, 0.112, 0.114])
    proc = script("report", a, b, "--metric", "throughput")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-3:] == [
        "Benchmark (all in K ops/s, higher is better) |  Avg. Before |   Avg. After |  Delta",
        "---------------------------------------------|--------------|--------------|-------",
        "htab-lookup                                  | 102.00 ± 2.0 | 112.00 ± 2.0 | +9.80%",
    ]
    assert proc.stdout.splitlines()[0] == "Kernel before: 6.18.44"
    assert "Runs: 3 per configuration x 3 s measured" in proc.stdout
    md = script("report", a, b, "--metric", "throughput", "--format", "md").stdout.splitlines()
    assert md[-3].startswith("| Benchmark") and md[-2].startswith("|---")


def mem_doc(sizes):
    rows = [{"label": label, "map": m, "status": "ok", "map_type": "X", "prealloc": True,
             "key_size": 8, "value_size": 8, "bytes_per_element": size, "element_bytes": size,
             "fixed_bytes": 0, "per_cpu_value_bytes": None, "charged_bytes_per_element": None,
             "points": []} for (label, m), size in sizes.items()]
    return {"schema": "mapbench-result", "schema_version": 2, "status": "complete",
            "benchmark": "mem", "family": "mem", "command": [], "environment": ENV,
            "params": {"map": "all", "key_size": 8, "value_size": 8, "max_entries": 1000000},
            "memory": {"cgroup": "none", "sizes": [524289, 1000000], "rows": rows}}


def test_memory_report_is_the_seed_table(tmp_path):
    old = {("Standard (key <= 8 B, val <= 8 B)", "htab"): 64.0, ("LRU", "lru"): 64.0}
    new = {("Standard (key <= 8 B, val <= 8 B)", "htab"): 32.0, ("LRU", "lru"): 64.0}
    for side, sizes in (("a", old), ("b", new)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "mem.json").write_text(json.dumps(mem_doc(sizes)))
    proc = script("report", tmp_path / "a", tmp_path / "b", "--style", "memory")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()[-4:]
    assert lines[0] == "Map Type & Configuration          | Old size | New size | Savings"
    assert "Standard (key <= 8 B, val <= 8 B) |     64 B |     32 B |   50.0%" in lines
    assert "LRU                               |     64 B |     64 B |    0.0%" in lines


def test_matrix_report_sets_two_map_types_side_by_side(tmp_path):
    d = tmp_path / "set"
    for m, v in (("htab", [99.0, 100.0]), ("rhtab", [81.0, 82.0])):
        write_set(d / m, "htab-lookup", v, params={"map": m, "key_size": 8, "max_entries": 1000,
                                                   "nr_entries": 750})
    proc = script("report", d, "--style", "matrix", "--by", "map=htab,rhtab")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "  8 |  1K | 750 | 99.50 | 81.50 | 0.82x | -18 %"
    assert "figure (M ops/s throughput):" in proc.stdout


def test_plots_are_written(tmp_path, slowdown):
    for name in ("before", "after"):
        for nr in (1000, 100000):
            write_set(tmp_path / "sizes" / name / f"n{nr}", "htab-lookup", noisy(10, 0.01, 3, nr),
                      params={"map": "htab", "max_entries": nr, "nr_entries": nr})
    curve = script("plot", tmp_path / "sizes" / "before", tmp_path / "sizes" / "after",
                   "--out", tmp_path / "plots")
    assert curve.returncode == 0, curve.stderr
    proc = script("plot", *slowdown, "--kind", "delta", "--out", tmp_path / "plots")
    assert proc.returncode == 0, proc.stderr
    mem = tmp_path / "m"
    mem.mkdir()
    (mem / "mem.json").write_text(json.dumps(mem_doc({("LRU", "lru"): 64.0})))
    assert script("plot", mem, "--kind", "memory", "--out", tmp_path / "plots").returncode == 0
    says = {"before-vs-after-curve": ["before: htab-lookup map=htab", "after: htab-lookup map=htab"],
            "before-vs-after-delta": ["htab-lookup", "htab-update", "regression",
                                      "no significant change", "change in figure, better is up (%)"],
            "m-memory": ["bytes per element (kernel accounting)"]}
    for name, words in says.items():
        assert set(words) <= plot_words(tmp_path / "plots" / f"{name}.svg"), name
        assert png_size(tmp_path / "plots" / f"{name}.png") == (1000, 600), name


def plot_words(svg):
    """Every text and series title a gnuplot SVG shows."""
    tree = ET.parse(svg)
    return {"".join(e.itertext()).strip() for e in tree.iter()
            if e.tag.rsplit("}", 1)[-1] in ("text", "title")}


def png_size(png):
    """Width and height from a PNG's header (IHDR)."""
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    return struct.unpack(">II", head[16:24])


def round_doc(schema, n, value):
    """A run of round n: schema 3 says so in the document, 2 only by its file
    name run-N.json (read as 3 by results.upgrade)."""
    doc = result_doc("htab-lookup", [value] * 3)
    if schema == 3:
        doc["schema_version"], doc["environment"]["round"] = 3, n
    return doc


@pytest.mark.parametrize("schema", [2, 3])
def test_paired_test_sees_a_small_change_under_shared_drift(tmp_path, schema):
    """Rounds drift by 15% (the machine's speed), B is 3% slower than A in every
    round: Welch cannot tell, the paired test on the rounds can. Schema 3 files
    are named against their rounds, so that only the documents pair them."""
    rng = np.random.default_rng(7)
    drift = rng.normal(1, 0.15, 8)
    for side, level in (("a", 100.0), ("b", 97.0)):
        folder = tmp_path / side / "htab-lookup"
        folder.mkdir(parents=True)
        for n, d in enumerate(drift, 1):
            v = level * d * rng.normal(1, 0.003)
            name = f"run-{n}.json" if schema == 2 else f"{side}-{(9 - n) if side == 'b' else n}.json"
            (folder / name).write_text(json.dumps(round_doc(schema, n, v)))
    (tmp_path / "a" / "htab-lookup" / "run-9.json").write_text(
        json.dumps(round_doc(schema, 9, 100.0)))    # no partner: left out when paired
    welch, pair = (script("compare", tmp_path / "a", tmp_path / "b", "--test", test,
                          "--min-effect", "1") for test in ("welch", "paired"))
    assert welch.returncode == pair.returncode == 0, pair.stderr
    assert verdicts(welch.stdout)["htab-lookup"].startswith("inconclusive: underpowered")
    assert verdicts(pair.stdout)["htab-lookup"] == "REGRESSION"
    assert "(8)" in pair.stdout and "(9)" in welch.stdout
    mde = {name: float(re.search(r"^htab-lookup .*\| ([\d.]+)% \| [^|]+$", out.stdout, re.M)[1])
           for name, out in (("welch", welch), ("paired", pair))}
    assert mde["paired"] < 2 < 10 < mde["welch"]


def test_paired_runs_without_rounds_say_what_is_missing(tmp_path):
    """Schema 3 runs that do not say their round cannot be paired: the gate
    says so, not that the after set is missing."""
    for side in ("a", "b"):
        folder = tmp_path / side
        folder.mkdir()
        for n in range(1, 4):
            doc = round_doc(3, n, 100.0 + n)
            doc["environment"]["round"] = None
            (folder / f"run-{n}.json").write_text(json.dumps(doc))
    gate = script("gate", tmp_path / "a", tmp_path / "b", "--policy", write_policy(tmp_path))
    assert gate.returncode == 2, gate.stdout
    assert "no round in common with the runs after" in gate.stdout
    assert "--round N" in gate.stdout


def test_scaling_plot_and_efficiency(tmp_path):
    """Two placements at 1, 2 and 4 producers: one line each, efficiency T(p) / (p x T(1))."""
    d = tmp_path / "scaling"
    d.mkdir()
    for placement, rates in (("compact", (10, 18, 30)), ("spread-llc", (10, 20, 40))):
        for p, rate in zip((1, 2, 4), rates):
            params = {"map": "htab", "max_entries": 1000, "nr_entries": 1000, "producers": p,
                      "placement": placement}
            for r in range(2):
                (d / f"{placement}-{p}-{r}.json").write_text(
                    json.dumps(result_doc("htab-lookup", [rate] * 3, params=params)))
    proc = script("plot", d, "--kind", "scaling", "--out", tmp_path / "plots")
    assert proc.returncode == 0, proc.stderr
    rows = {tuple(line.split()[1:3]): line.split()[-1] for line in proc.stdout.splitlines()
            if line.startswith("htab-lookup")}
    assert rows[("placement=compact", "4")] == "0.75"
    assert rows[("placement=spread-llc", "4")] == "1.00"
    assert (tmp_path / "plots" / "scaling-scaling.png").stat().st_size > 1000
    assert "take turns" not in proc.stdout
    for f in d.glob("*.json"):      # the same runs from a TCG guest: turns, not scaling
        doc = json.loads(f.read_text())
        doc["environment"]["vm"] = {"accelerator": "tcg", "clock": "icount"}
        f.write_text(json.dumps(doc))
    guest = script("plot", d, "--kind", "scaling", "--out", tmp_path / "plots")
    assert guest.returncode == 0 and "vCPUs take turns on one host thread" in guest.stdout
    one = script("plot", d / "compact-1-0.json", "--kind", "scaling")
    assert one.returncode == 3 and "two producer counts" in one.stderr


# The live A/A's sets: A and B the same configuration, SLOW a real slowdown
# (a 1M-entry map misses the caches a 1K one lives in: several times slower).
LIVE_SETS = {"a": (), "b": (), "slow": ("--max-entries", "1M")}


def interleaved_runs(tmp_path, sets, rounds):
    """Round by round, one run of each set (--round N): a machine whose load
    changes during the test slows the runs of a round alike, and the paired
    test compares runs of the same round only."""
    for n in range(1, rounds + 1):
        for name, args in sets.items():
            folder = tmp_path / name
            folder.mkdir(exist_ok=True)
            proc = run_bench("htab-lookup", "-w", "0", "-d", "1", "-q", "--round", str(n),
                             "--json", folder / f"run-{n}.json", *args)
            assert proc.returncode == 0, proc.stderr
    return [tmp_path / name for name in sets]


def test_end_to_end_on_the_live_kernel(root, tmp_path):
    """An A/A passes and a real slowdown is a regression, on a machine whose
    load may change at any time (make check beside a kernel build)."""
    a, b, slow = interleaved_runs(tmp_path, LIVE_SETS, 5)
    gate = script("gate", a, b, "--policy", write_policy(tmp_path))
    assert gate.returncode == 0, gate.stdout + gate.stderr
    proc = script("gate", a, slow, "--policy", write_policy(tmp_path),
                  "--ignore", "max_entries,nr_entries,key_set")
    assert proc.returncode == 1 and "REGRESSION" in proc.stdout, proc.stdout


def write_policy(tmp_path):
    # One-second runs on a shared VM, paired by round: allow 10% before calling
    # it a regression, judge five rounds even where they could not see 10%, and
    # ask for p < 0.001, so an A/A fails by chance about once in a thousand
    # checks while a several-fold slowdown is far past it.
    p = tmp_path / "policy.json"
    p.write_text(json.dumps({"default": {"threshold_pct": 10, "allow_underpowered": True,
                                         "test": "paired", "alpha": 0.001}}))
    return p


def simulate_sequential(effect_pct, trials, seed, alpha=0.05, max_runs=12, min_runs=3,
                        target=5.0, cv=0.03):
    """(decisions, runs a side when it stopped) of simulated sequential A/Bs."""
    rng = np.random.default_rng(seed)
    looks = max_runs - min_runs + 1
    rules = {**verdict.DEFAULT, **verdict.CLOCK_DEFAULTS["host"], "metric": "figure",
             "alpha": alpha, "threshold_pct": target, "min_runs": 2}
    out = []
    for _ in range(trials):
        a = rng.normal(100, 100 * cv, max_runs)
        b = rng.normal(100 * (1 + effect_pct / 100), 100 * cv, max_runs)
        for n in range(min_runs, max_runs + 1):
            decision = verdict.look(a[:n], b[:n], rules, looks).verdict
            if decision != verdict.INCONCLUSIVE:
                break
        out.append((decision, n))
    return out


def test_sequential_looks_keep_false_alarms_at_alpha():
    """A/A: stopping at whichever look comes first must not raise false alarms above alpha."""
    runs = simulate_sequential(0, 300, seed=5)
    significant = (verdict.REGRESSION, verdict.IMPROVEMENT, verdict.NEGLIGIBLE)
    false_alarms = sum(d in significant for d, _ in runs) / len(runs)
    assert false_alarms <= 0.05
    assert sum(d == verdict.NO_CHANGE for d, _ in runs) > 0.5 * len(runs)


def test_sequential_stops_early_on_a_large_effect():
    runs = simulate_sequential(-20, 100, seed=6)
    assert all(d == verdict.REGRESSION for d, _ in runs)
    assert np.mean([n for _, n in runs]) < 5


def test_noise_floor_is_saved_from_an_a_a_and_shown_later(tmp_path, slowdown):
    floor = tmp_path / "floor.json"
    a = write_set(tmp_path / "a", "htab-lookup", noisy(100, 0.02, 6, 30))
    b = write_set(tmp_path / "b", "htab-lookup", noisy(100, 0.02, 6, 31))
    saved = script("compare", a, b, "--noise-floor", floor, "--save-noise-floor")
    assert saved.returncode == 0 and "Saved the A/A spread of 1 comparisons" in saved.stdout
    stored = json.loads(floor.read_text())
    (entry,) = stored.values()
    assert entry["runs"] == [6, 6] and entry["abs_delta_pct"] >= 0 and entry["mde_pct"] > 0
    out = script("compare", *slowdown, "--noise-floor", floor).stdout
    assert "A/A delta" in out
    line = next(l for l in out.splitlines() if l.startswith("htab-lookup"))
    assert f"±{entry['abs_delta_pct']:.1f}%" in line
    assert "htab-update" in out and verdicts(out)["htab-lookup"] == "REGRESSION"
    assert "A/A delta" not in script("compare", *slowdown, "--noise-floor", tmp_path / "none").stdout


def seed_004_set(folder):
    """Results holding seed 004's figures: lookups (two key sizes, two sizes),
    full update with the kernel's per-CPU lines, htab-mem overwrite memory."""
    lookups = {(8, 1000, 750): (99.85, 81.92), (8, 1000000, 1000000): (13.39, 53.72),
               (32, 1000, 1000): (50.81, 45.83), (32, 1000000, 750000): (11.27, 15.29)}
    for (key, mx, nr), figures in lookups.items():
        for m, v in zip(("htab", "rhtab"), figures):
            write_set(folder / f"l-{m}-{key}-{mx}-{nr}", "bpf-hashmap-lookup", [v],
                      params={"map": m, "key_size": key, "max_entries": mx, "nr_entries": nr})
    for m, per in (("htab", [20.33, 22.02, 19.27]), ("rhtab", [133.51, 129.47, 74.52])):
        doc = result_doc("bpf-hashmap-full-update", [sum(per) / 3] * 3, params={"map": m})
        doc["summary"]["kernel_lines"] = [f"{i}:hash_map_full_perf {int(v * 1e6)} events per sec"
                                          for i, v in enumerate(per)]
        (folder / f"fu-{m}.json").write_text(json.dumps(doc))
    for m, vs, ops, mib in (("htab", 32, 122.87, 2.47), ("rhtab", 32, 133.04, 2.49),
                            ("htab", 4096, 64.43, 6.74), ("rhtab", 4096, 65.38, 6.44)):
        doc = result_doc("htab-mem-overwrite", [ops] * 3, params={"map": m, "value_size": vs})
        doc["summary"]["memory"] = {"charged_avg": mib * 2**20}
        (folder / f"mem-{m}-{vs}.json").write_text(json.dumps(doc))
    return folder


def test_rhtab_report_prints_seed_004s_three_tables_and_a_computed_summary(tmp_path):
    proc = script("report", seed_004_set(tmp_path / "set"), "--style", "rhtab")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "1. LOOKUP (single producer, M events/sec; kernel 6.18.44, bare metal, host clock)" \
        in out
    for expected in (
            "key | max |   nr |  htab | rhtab | ratio |  delta",
            "  8 |  1K |  750 | 99.85 | 81.92 | 0.82x |  -18 %",
            "  8 |  1M |   1M | 13.39 | 53.72 | 4.01x | +301 %",
            "htab per-producer (1 run):\n20.33 22.02 19.27\nmean 20.54 range 19.27 - 22.02",
            "speedup (mean): 5.48x (+448 %)",
            "32 B | 122.87 k/s |  133.04 k/s | 2.47 MiB |  2.49 MiB",
            "rhtab/htab: +8.3 % ops, +0.8 % mem (32 B)",
            # the summary, computed from the tables
            "* Lookup, max 1K: 8 B keys: htab ahead (1.22x); 32 B keys: htab ahead (1.11x)",
            "* Lookup, max 1M: 8 B keys: rhtab ahead (4.01x)",
            "* Full update per producer: rhtab 5.48x faster on the mean.",
            "* Memory at 4096 B values: on par (ops and memory within 5 %).",
            "* Memory at 32 B values: rhtab +8.3 % ops, +0.8 % memory."):
        assert expected in out, (expected, out)
    two = script("report", tmp_path / "set", tmp_path / "set", "--style", "rhtab")
    assert two.returncode == 64 and "one set" in two.stderr


def test_one_number_per_table_is_the_geometric_mean_of_the_ratios(tmp_path):
    """Known answer: ratios 0.9 and 1.1 give sqrt(0.99) - 1 = -0.50%, in the
    compare table, its JSON, the report's delta table and the gate's line;
    with noise, its interval holds the answer and has a width."""
    a, b = tmp_path / "a", tmp_path / "b"
    for bench, before, after in (("htab-lookup", 100, 90), ("htab-update", 100, 110)):
        write_set(a, bench, [before] * 5)
        write_set(b, bench, [after] * 5)
    table = script("compare", a, b).stdout
    row = next(line for line in table.splitlines() if line.startswith("geomean of 2"))
    assert "-0.50%" in row and "[-0.5, -0.5]%" in row
    doc = json.loads(script("compare", a, b, "--json").stdout)["geomean"]
    assert doc["delta_pct"] == pytest.approx((0.99 ** 0.5 - 1) * 100) and doc["n"] == 2
    assert "geomean of 2" in script("report", a, b).stdout
    assert "geomean -0.50% [-0.50, -0.50]% over 2" in script("gate", a, b).stdout
    noisy_a, noisy_b = tmp_path / "na", tmp_path / "nb"
    for bench, after, seed in (("htab-lookup", 90, 1), ("htab-update", 110, 2)):
        write_set(noisy_a, bench, noisy(100, 0.02, 8, seed))
        write_set(noisy_b, bench, noisy(after, 0.02, 8, seed + 10))
    g = json.loads(script("compare", noisy_a, noisy_b, "--json").stdout)["geomean"]
    assert g["ci_low"] < g["delta_pct"] < g["ci_high"] and g["ci_high"] - g["ci_low"] > 0.5
    assert g["ci_low"] < -0.5 < g["ci_high"]


@pytest.mark.parametrize("runs", [2, 3, 5])
def test_the_ratio_interval_holds_an_a_a_of_few_runs_a_side(runs):
    """400 A/As of 2, 3 or 5 runs a side: the 95% interval of the ratio holds
    no change in at least 93% (a percentile bootstrap held it in 69%, 84%,
    87%: too few runs to resample)."""
    rng = np.random.default_rng(runs)
    held = 0
    for _ in range(400):
        lo, hi = stats.ratio_ci(100 + rng.standard_normal(runs), 100 + rng.standard_normal(runs))
        held += lo <= 0 <= hi
    assert held >= 0.93 * 400, held


def test_the_geomean_interval_holds_an_a_a_of_two_runs_a_side():
    """Eighteen rows of two runs a side, all A/A, one of them 15% noisy (a
    layout-sensitive row under sampled layouts): the 95% interval holds 0 in
    at least 93% of 400 such suites. Its variance then rests on one row's
    two pairs of runs; a normal interval held 0 in 83%."""
    rng = np.random.default_rng(1)
    held = 0
    for _ in range(400):
        rows = []
        for cv in [0.001] * 17 + [0.15]:
            a, b = (100 * (1 + cv * rng.standard_normal(2)) for _ in "ab")
            rows.append(stats.Comparison(key=None, metric="model_cycles", a=a, b=b, delta_pct=0,
                                         ci_low=0, ci_high=0, p=1, direction=-1))
        g = stats.geomean(rows)
        held += g.ci_low <= 0 <= g.ci_high
    assert held >= 0.93 * 400, held


def test_a_curve_takes_any_parameter_and_three_ranges(tmp_path):
    from mapbench.commands import plot as plot_command
    ranges = plot_command.split_ranges([1, 10, 1000000])
    assert [tuple(round(x) for x in r) for r in ranges] == [(1, 100), (100, 10000),
                                                           (10000, 1000000)]
    assert [plot_command.short(v) for v in (7, 4642, 21544, 1000000)] == \
        ["7.0", "4.6K", "22K", "1.0M"]
    d = tmp_path / "sweep"
    for key in (8, 16, 32):
        write_set(d / f"k{key}", "htab-lookup", [10.0 - key / 10] * 2,
                  params={"map": "htab", "max_entries": 1000, "nr_entries": 1000,
                          "key_size": key})
    for args in (["--x", "key_size", "--xscale", "lin", "--y2", "latency"],
                 ["--x", "key_size", "--xscale", "split"]):
        proc = script("plot", d, *args, "--out", tmp_path / "plots", "--name", "k")
        assert proc.returncode == 0, proc.stderr
        assert (tmp_path / "plots" / "k.png").stat().st_size > 1000
    bad = script("plot", d, "--x", "no_such", "--out", tmp_path / "plots")
    assert bad.returncode == 64 and "--x no_such names no parameter" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
