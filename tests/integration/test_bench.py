"""./bench on the live kernel: every benchmark, its figures and its failures."""
import json
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from conftest import (BENCH, BPFTOOL, QUICK, SHORT, assert_usage_error, bpf_snapshot, leaks,
                      run_bench, start_until)

HTAB_BENCHES = ["noop", "htab-lookup", "htab-update", "htab-delete", "htab-overwrite",
                "htab-overwrite-full", "bpf-hashmap-full-update", "bpf-hashmap-lookup",
                "htab-batch_add_batch_del", "htab-add_del_on_diff_cpu"]
MAPS = ["htab", "percpu", "lru", "lru_percpu", "lru_nocommon"]


def kernel_has_map_type(name):
    out = subprocess.run([BPFTOOL, "btf", "dump", "file", "/sys/kernel/btf/vmlinux"],
                         capture_output=True, text=True).stdout
    return f"'BPF_MAP_TYPE_{name}'" in out


def measured(doc):
    return [s for s in doc["samples"] if not s["warmup"]]


KERNEL_ALIASES = {"htab-noop": "noop", "htab-full-update": "bpf-hashmap-full-update",
                  "overwrite": "htab-mem-overwrite",
                  "batch_add_batch_del": "htab-mem-batch_add_batch_del",
                  "add_del_on_diff_cpu": "htab-mem-add_del_on_diff_cpu"}


def test_list_names_every_benchmark_and_alias():
    """-l's first column is the names; an alias is named on its benchmark's
    line, and runs that benchmark's plan."""
    lines = run_bench("-l").stdout.splitlines()
    names = [line.split()[0] for line in lines]
    aliases = {a: line.split()[0] for line in lines
               for a in re.findall(r"\(alias: ([^)]+)\)", line)}
    assert set(HTAB_BENCHES) <= set(names) and len(names) == len(set(names))
    assert aliases == KERNEL_ALIASES
    for alias, name in aliases.items():
        plans = [run_bench(n, "-p", "2", "--dry-run") for n in (alias, name)]
        assert plans[0].returncode == 0 and plans[0].stdout == plans[1].stdout, alias


@pytest.mark.parametrize("bench", HTAB_BENCHES)
@pytest.mark.parametrize("map_name", MAPS)
def test_every_benchmark_runs_clean(root, result, bench, map_name):
    p = ["-p", "2"] if bench == "htab-add_del_on_diff_cpu" else []
    proc, doc = result(bench, "--map", map_name, "-w", "1", "-d", "1", "-q", *p)
    assert proc.returncode == 0, proc.stderr
    assert doc["status"] == "complete"
    assert doc["errors"]["total"] == 0
    assert doc["params"]["map_type"].startswith("BPF_MAP_TYPE_")
    assert len(doc["samples"]) == 2 and doc["summary"]["samples"] == 1
    for s in measured(doc):
        assert s["ops"] > 0 and s["ns"] > 0
        # throughput is what the machine delivered: all ops over the wall interval
        assert s["throughput_mops"] == pytest.approx(s["ops"] * 1e3 / s["interval_ns"], rel=1e-6)
        rate = [p["ops"] * 1e3 / p["ns"] for p in s["producers"] if p["ns"]]
        assert s["kernel_mops_per_producer"] == pytest.approx(sum(rate) / len(rate), rel=1e-6)
        # a batch may straddle the interval's end, hence some slack
        assert s["ns"] <= s["interval_ns"] * len(s["producers"]) * 1.05
    assert "Summary: throughput" in proc.stdout


@pytest.mark.parametrize("args", [
    ["--map", "htab"], ["--map", "htab", "--no-prealloc"], ["--map", "percpu"],
    ["--map", "htab", "--keys", "random", "--key-size", "32"],
    ["--map", "htab", "--max-entries", "1000", "--nr-entries", "500"],
    ["--map", "htab", "--loop", "bpf_loop"],
])
@pytest.mark.parametrize("bench", ["htab-lookup", "htab-update"])
def test_prefilled_keys_are_always_found(root, result, bench, args):
    proc, doc = result(bench, *QUICK, *args)
    assert proc.returncode == 0, proc.stderr
    assert doc["summary"]["hits"] > 0
    assert doc["summary"]["misses"] == 0
    assert doc["summary"]["hit_rate"] == 1.0
    if "--loop" in args:
        assert doc["params"]["loop"] == args[args.index("--loop") + 1]


def test_kernel_bench_alias_and_spellings(root, result):
    proc, doc = result("bpf-hashmap-lookup", "--nr_entries", "500", "--max_entries", "1K",
                       "--key_size", "8", *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert doc["benchmark"] == "bpf-hashmap-lookup"
    assert (doc["params"]["nr_entries"], doc["params"]["max_entries"],
            doc["params"]["key_size"]) == (500, 1000, 8)


def test_hashmap_lookup_is_the_kernel_workload(root, result):
    """bpf-hashmap-lookup: 500 keys, whole passes of 1M lookups per run, all found,
    reported as M events/s per producer of in-kernel time."""
    proc, doc = result("bpf-hashmap-lookup", *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert (doc["params"]["nr_entries"], doc["params"]["max_entries"]) == (500, 1000)
    assert doc["params"]["batch"] == 1000000 and doc["params"]["prealloc"] is True
    assert doc["summary"]["hit_rate"] == 1.0
    fig = doc["summary"]["figure"]
    assert (fig["unit"], fig["clock"]) == ("M events/s", "in-kernel")
    assert fig["mean"] == pytest.approx(doc["summary"]["kernel_mops_per_producer"]["mean"])


@pytest.mark.parametrize("p", [1, 2])
def test_full_update_takes_the_full_map_path(root, result, p):
    """bpf-hashmap-full-update: every update of an absent key finds the prealloc map
    full; E2BIG is the expected result, counted and shown, never an error."""
    proc, doc = result("bpf-hashmap-full-update", "-p", str(p), *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert doc["status"] == "complete" and doc["errors"]["total"] == 0
    assert doc["params"]["batch"] == 10000 and doc["params"]["nr_entries"] == 1000
    assert doc["summary"]["hits"] == 0 and doc["summary"]["misses"] == doc["summary"]["ops"] > 0
    assert doc["summary"]["figure"]["unit"] == "M events/s"
    assert "E2BIG" in proc.stdout


@pytest.mark.parametrize("batch,loop", [(1, "bpf_loop"), (3, "bpf_loop"), (16, None)])
def test_a_batch_is_as_many_operations_as_asked(root, result, batch, loop):
    """--batch N: N map operations a program run, whatever N; a batch bpf_for's
    unrolled loop cannot make runs with bpf_loop, and the result says so."""
    proc, doc = result("htab-lookup", "--batch", str(batch), "-p", "1", *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert doc["params"]["batch"] == batch
    for sample in measured(doc):
        assert sample["runs"] > 0 and sample["ops"] == batch * sample["runs"]
    if loop:
        assert doc["environment"]["loop"] == loop


@pytest.mark.parametrize("ratio", [0.0, 0.25, 1.0])
def test_hit_ratio_is_the_share_of_lookups_that_hit(root, result, ratio):
    """--hit-ratio R: R of the lookups find their key, in every sample (the
    absent keys are spread evenly over the walk), and the result records R."""
    proc, doc = result("htab-lookup", "--hit-ratio", str(ratio), "-p", "2", *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert doc["params"].get("hit_ratio", 1.0) == ratio
    for sample in measured(doc):
        assert sample["hits"] / sample["ops"] == pytest.approx(ratio, abs=0.01)
    assert doc["errors"]["total"] == 0


@pytest.mark.parametrize("name,writes", [
    ("htab-lookup-update", "update"), ("htab-lookup-delete", "delete")])
def test_readers_and_writers_each_have_their_figure(root, result, name, writes):
    """--readers 1 --writers 1: producer 0 looks up while producer 1 writes the
    same keys; each role's ops, hits and throughput add up to the run's, and
    the lookups a deleting writer makes miss are misses, not errors (how many
    there are depends on how long the two run at once, which a loaded machine
    decides: test_vmrun.py asserts them in a guest, where they always do)."""
    proc, doc = result(name, "--readers", "1", "--writers", "1", *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert doc["params"]["producers"] == 2 and doc["params"]["writers"] == 1
    summary, roles = doc["summary"], doc["summary"]["roles"]
    readers, writers = roles["readers"], roles["writers"]
    assert (readers["op"], writers["op"]) == ("lookup", writes)
    assert readers["ops"] > 0 and writers["ops"] > 0
    assert readers["ops"] + writers["ops"] == summary["ops"]
    assert readers["hits"] + writers["hits"] == summary["hits"]
    tput = readers["throughput_mops"]["mean"] + writers["throughput_mops"]["mean"]
    assert tput == pytest.approx(summary["throughput_mops"]["mean"], rel=1e-6)
    assert sum(sample["producers"][0]["ops"] for sample in measured(doc)) == readers["ops"]
    assert writers["hit_rate"] == 1.0
    assert doc["errors"]["total"] == 0
    assert re.search(rf"^Writers: 1 x {writes}, throughput +[0-9.]+ ± [0-9.]+ M ops/s",
                     run_bench(name, *QUICK[:-1]).stdout, re.M)


def test_every_batch_time_gives_percentiles(root, result):
    """summary.batches: the batches' ns/op in order (min <= p50 <= p90 <= p99 <=
    max) around the run's mean latency, from every measured batch that was
    read; each sample has its own p50 and p99."""
    proc, doc = result("htab-lookup", "--batch", "64", "-p", "2", *QUICK)
    assert proc.returncode == 0, proc.stderr
    b = doc["summary"]["batches"]
    assert doc["params"]["batch_times"] is True
    assert b["min_ns"] <= b["p50_ns"] <= b["p90_ns"] <= b["p99_ns"] <= b["max_ns"]
    assert b["min_ns"] <= doc["summary"]["latency_ns"]["mean"] <= b["max_ns"]
    assert 0 < b["kept"] == b["read"] <= b["ran"] == sum(s["runs"] for s in measured(doc))
    assert b["iqr"]["samples"] <= b["kept"] and b["iqr"]["max_ns"] <= b["max_ns"]
    assert all(s["batches"]["p50_ns"] <= s["batches"]["p99_ns"] for s in measured(doc))
    assert re.search(r"^Batches: p50 [0-9.]+, p90 [0-9.]+, p99 [0-9.]+, max [0-9.]+ ns/op",
                     run_bench("htab-lookup", *QUICK[:-1]).stdout, re.M)


@pytest.mark.parametrize("args,recorded", [([], False), (["--batch-times", "on"], True)])
def test_kernel_rows_keep_their_harness_unless_asked(root, result, args, recorded):
    proc, doc = result("bpf-hashmap-lookup", *QUICK, *args)
    assert proc.returncode == 0, proc.stderr
    assert ("batches" in doc["summary"]) == recorded
    assert doc["params"].get("batch_times", False) == recorded


def rval(line, key):
    """run_bench_xdp_lb.sh's rval(): sed -nE "s/.*KEY=([^ ]+).*/\\1/p"."""
    m = re.fullmatch(rf".*{key}=([^ ]+).*", line)
    return m.group(1) if m else ""


def test_machine_readable_line_reads_as_the_kernel_scripts_read_it(root, result):
    """--machine-readable: a RESULT line (the one grep '^RESULT ' finds) whose
    median, stddev and p99 are the result's IQR-filtered batch figures."""
    proc, doc = result("htab-lookup", "--machine-readable", *QUICK[:-1])
    assert proc.returncode == 0, proc.stderr
    lines = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
    assert len(lines) == 1 and rval(lines[0], "scenario") == "htab-lookup"
    iqr = doc["summary"]["batches"]["iqr"]
    assert int(rval(lines[0], "samples")) == iqr["samples"] > 0
    for key in ("median", "stddev", "p99", "min", "max"):
        assert float(rval(lines[0], key)) == pytest.approx(iqr[f"{key}_ns"], abs=0.006)
    assert float(rval(lines[0], "cv")) == pytest.approx(iqr["cv_pct"], abs=0.006)


def test_batch_auto_sizes_the_batch_for_ten_milliseconds(root, result):
    """--batch auto: after the first warmup second every run is the calibrated
    batch, and that batch takes about 10 ms at the calibration's ns/op."""
    proc, doc = result("htab-lookup", "--batch", "auto", "-w", "1", "-d", "1", "-q")
    assert proc.returncode == 0, proc.stderr
    cal = doc["summary"]["batch_calibration"]
    assert doc["params"]["batch_auto"] is True and doc["params"]["batch"] == 1024
    assert cal["batch"] * cal["per_op_ns"] == pytest.approx(10e6, rel=0.01)
    assert cal["batch"] % 8 == 0 or doc["environment"]["loop"] == "bpf_loop"
    # every run is of one batch or the other: the runs of the old that end
    # after the change (one in flight, more on a loaded machine) are few
    for s in measured(doc):
        old, rest = divmod(cal["batch"] * s["runs"] - s["ops"], cal["batch"] - 1024)
        assert rest == 0 and 0 <= old < s["runs"] / 2
    assert f"Batch: calibrated to {cal['batch']} operations a run" in proc.stdout


def htab_mem(result, use_case, *args):
    proc, doc = result("htab-mem", "--use-case", use_case, *SHORT, *args)
    assert proc.returncode == 0, proc.stderr
    assert doc["status"] == "complete" and doc["errors"]["total"] == 0
    assert doc["params"]["batch"] == 64 and doc["params"]["nr_entries"] == 0
    return doc


@pytest.mark.parametrize("use_case,ops_per_run", [("overwrite", 64), ("batch_add_batch_del", 128)])
def test_htab_mem_is_the_kernel_workload(root, result, use_case, ops_per_run):
    """64 operations per run on each producer's own 64 keys; the map stays almost
    empty; per-prod-op is runs per producer per wall second (x2 for batch_add_batch_del)."""
    doc = htab_mem(result, use_case, "-p", "2")
    assert doc["params"]["key_set"] == 128
    weight = 2 if use_case == "batch_add_batch_del" else 1
    for s in measured(doc):
        for p in s["producers"]:
            assert p["ops"] == p["runs"] * ops_per_run and p["hits"] == p["ops"]
        want = sum(p["runs"] for p in s["producers"]) * weight / 2 / (s["interval_ns"] / 1e9) / 1e3
        assert s["figure"] == pytest.approx(want, rel=1e-9)
    # at most 128 elements of 8 B values: far below the 8192-entry capacity
    assert doc["summary"]["memory"]["memlock_peak"] < 8192 * 64


@pytest.mark.parametrize("prealloc", [[], ["--preallocated"]])
def test_add_del_on_diff_cpu_takes_turns(root, result, prealloc):
    """The adder adds 64 keys (BPF_NOEXIST), then its partner deletes the same 64:
    never concurrently, so no add finds its key and no delete misses one."""
    doc = htab_mem(result, "add_del_on_diff_cpu", "-p", "2", "-a", *prealloc)
    assert doc["summary"]["misses"] == 0 and doc["summary"]["hit_rate"] == 1.0
    adds = sum(s["producers"][0]["runs"] for s in doc["samples"])
    dels = sum(s["producers"][1]["runs"] for s in doc["samples"])
    assert adds > 100 and abs(adds - dels) <= 1


def test_more_producers_than_cpus_deliver_no_more_than_the_cpus(root, result):
    """Throughput is what the machine delivered: with twice as many producers as
    CPUs it stays below what the CPUs can do at the in-kernel rate, far below the
    sum of the producers' in-kernel rates, and the result says they share CPUs.
    Every bound is within the one run: a run before it, on a machine whose
    load changes, would be a different machine."""
    ncpu = os.cpu_count()
    proc, many = result("htab-lookup", "-p", str(2 * ncpu), *SHORT)
    assert proc.returncode == 0, proc.stderr
    total = many["summary"]["throughput_mops"]["mean"]
    rate = many["summary"]["kernel_mops_per_producer"]["mean"]
    assert total <= rate * ncpu * 1.05
    assert total < 0.75 * rate * 2 * ncpu
    assert many["warnings"] and "online CPUs" in many["warnings"][0]
    assert "Warning:" in proc.stdout


@pytest.mark.slow
def test_random_keys_walk_memory_filled_in_id_order(root, result):
    """--keys random visits a permutation of keys prefilled in id order: on a
    1M-entry map that is slower than visiting them in the order they were filled.
    A speed property, so check-slow: runs alternate, and the fastest second of
    each order's runs is compared (a loaded machine's stolen time inflates the
    others); make check has the functional side (permutation, hits)."""
    args = ["--max-entries", "1M", "-w", "1", "-d", "3", "-q"]
    fastest = {"seq": [], "random": []}
    for _ in range(3):
        for order in fastest:
            _, doc = result("htab-lookup", *args, "--keys", order)
            fastest[order].append(doc["summary"]["latency_ns"]["min"])
    assert min(fastest["random"]) > 1.2 * min(fastest["seq"])


def test_noop_costs_less_than_a_lookup(root, result):
    _, noop = result("noop", *SHORT)
    _, lookup = result("htab-lookup", *SHORT)
    assert noop["summary"]["latency_ns"]["mean"] < lookup["summary"]["latency_ns"]["mean"]


def test_delete_of_present_keys_never_fails(root, result):
    proc, doc = result("htab-delete", "-p", "2", *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert doc["errors"]["total"] == 0
    assert doc["summary"]["hits"] > 0 and doc["summary"]["misses"] == 0
    assert doc["params"]["batch"] <= 500


def test_producers_are_reported_separately(root, result):
    proc, doc = result("htab-lookup", "-p", "2", "-a", *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert doc["params"]["prod_cpus"] == [0, 1]
    for s in measured(doc):
        assert len(s["producers"]) == 2
        assert all(p["ops"] > 0 for p in s["producers"])


def test_perf_counts_the_producers_and_says_what_the_pmu_lacks(root, result):
    proc, doc = result("htab-lookup", "-p", "2", "--perf", "-w", "1", "-d", "2")
    assert proc.returncode == 0, proc.stderr
    counters = {c["name"]: c for c in doc["perf"]["counters"]}
    assert set(counters) == {"cycles", "instructions", "cache-references", "cache-misses",
                             "L1-dcache-loads", "L1-dcache-load-misses", "dTLB-loads",
                             "dTLB-load-misses", "task-clock", "context-switches"}
    # Software counters always work; task-clock covers the in-kernel time and more.
    clock = counters["task-clock"]
    assert clock["status"] == "ok"
    assert clock["per_op"] >= doc["summary"]["latency_ns"]["mean"] * 0.9
    for c in counters.values():
        assert c["status"] == "ok" or (c["status"] == "unsupported" and c["reason"])
    line = next(x for x in proc.stdout.splitlines() if x.startswith("Perf"))
    assert "task-clock" in line and ("not supported" in line) == any(
        c["status"] == "unsupported" for c in counters.values())


def test_placement_pins_by_topology_and_records_it(root, result):
    proc, doc = result("htab-lookup", "-p", "2", "--placement", "spread-llc", *QUICK)
    assert proc.returncode == 0, proc.stderr
    topo = doc["environment"]["topology"]
    assert topo["online_cpus"] == os.cpu_count() == len(topo["cpus"])
    assert doc["params"]["placement"] == "spread-llc"
    cpus = doc["params"]["prod_cpus"]
    assert len(set(cpus)) == 2 and set(cpus) <= {c["cpu"] for c in topo["cpus"]}
    llc = {c["cpu"]: c["llc"] for c in topo["cpus"]}
    # Two LLCs or more: the two producers are on different ones.
    assert (llc[cpus[0]] != llc[cpus[1]]) == (topo["llc_domains"] > 1)


def test_smt_pairs_needs_siblings_and_placement_excludes_affinity(root, result):
    proc, doc = result("htab-lookup", "-p", "2", "--placement", "smt-pairs", *QUICK)
    if proc.returncode:
        assert proc.returncode == 1 and "no SMT siblings" in proc.stderr
    else:
        core = {c["cpu"]: c["core"] for c in doc["environment"]["topology"]["cpus"]}
        assert len({core[c] for c in doc["params"]["prod_cpus"]}) == 1
    proc = run_bench("htab-lookup", "--placement", "compact", "-a")
    assert proc.returncode == 1 and "give one" in proc.stderr


def test_raw_tp_trigger_runs_the_same_producers(root, result):
    proc, doc = result("htab-lookup", "--trigger", "raw_tp", *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert doc["environment"]["trigger"] == "raw_tp"
    assert doc["summary"]["hit_rate"] == 1.0


def test_raw_tp_pairs_run_on_their_own_syscall_only(root, result):
    """raw_tp fires on every syscall, the futex calls of producers taking turns
    too: a batch runs only on the trigger syscall, so no add finds its key
    and every delete finds one."""
    proc, doc = result("-p", "2", "-a", "-w", "0", "-d", "1", "-q", "htab-mem", "--use-case",
                       "add_del_on_diff_cpu", "--trigger", "raw_tp")
    assert proc.returncode == 0, proc.stderr
    assert doc["errors"]["total"] == 0 and doc["summary"]["hit_rate"] == 1.0
    runs = [sum(s["producers"][p]["runs"] for s in doc["samples"]) for p in (0, 1)]
    assert runs[0] > 100 and abs(runs[0] - runs[1]) <= 1


def test_fentry_runs_or_says_why(root, result):
    proc, doc = result("htab-lookup", "--trigger", "fentry", *QUICK)
    if proc.returncode == 2:
        assert "fentry" in proc.stderr and "--trigger" in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
        assert doc["status"] == "unsupported" and "fentry" in doc["reason"]
    else:
        assert proc.returncode == 0, proc.stderr
        assert doc["summary"]["hit_rate"] == 1.0


def test_rhtab_resolved_from_kernel_btf(root, result):
    proc, doc = result("htab-lookup", "--map", "rhtab", *QUICK)
    if kernel_has_map_type("RHASH"):
        assert proc.returncode == 0, proc.stderr
        assert doc["params"]["prealloc"] is False
    else:
        assert proc.returncode == 2
        assert proc.stderr.strip() == (
            f"mapbench: this kernel ({os.uname().release}) has no BPF_MAP_TYPE_RHASH")
        assert doc["status"] == "unsupported"


@pytest.mark.parametrize("name", ["bpf-rhashmap-lookup", "bpf-rhashmap-full-update",
                                  "rhtab-mem"])
def test_rhtab_kernel_names_run_where_the_kernel_has_rhash(root, result, name):
    p = ["-p", "2"] if name == "rhtab-mem" else []
    proc, doc = result(name, *p, *QUICK)
    assert doc["params"]["map"] == "rhtab" and doc["params"]["prealloc"] is False
    if kernel_has_map_type("RHASH"):
        assert proc.returncode == 0, proc.stderr
        assert doc["status"] == "complete"
    else:
        assert proc.returncode == 2
        assert proc.stderr.strip().endswith("has no BPF_MAP_TYPE_RHASH")
        assert doc["status"] == "unsupported"


@pytest.mark.parametrize("args,needle", [
    (["rhtab-mem", "--preallocated"], "cannot be preallocated"),
    (["mem", "--map", "array"], "unknown map 'array' for mem: use htab"),
    (["bpf-rhashmap-lookup", "--map", "htab"], "use rhtab"),
    (["htab-lookup", "--nr-entries", "2000", "--max-entries", "1000"], "larger than"),
    (["htab-lookup", "--key-size", "2"], "--key-size"),
    (["htab-lookup", "--key-size", "4096"], "--key-size"),
    (["htab-lookup", "--map", "array"], "unknown map"),
    (["htab-lookup", "--map", "lru", "--no-prealloc"], "preallocated"),
    (["htab-lookup", "--map", "rhtab", "--prealloc"], "cannot be preallocated"),
    (["no-such-benchmark"], "unknown benchmark"),
    (["htab-add_del_on_diff_cpu", "-p", "3"], "even"),
    (["bpf-hashmap-full-update", "--nr-entries", "10"], "fills the map"),
    (["bpf-hashmap-full-update", "--keys", "random"], "kernel bench's order"),
    (["htab-mem", "--nr-entries", "100"], "empty map"),
    (["bpf-hashmap-lookup", "--nr-entries", "2000"], "larger than"),
    (["htab-lookup", "-a", "-p", str(os.cpu_count() + 1)], "more pinned producers"),
    (["htab-lookup", "--prod-affinity", "0-", "-p", "1"], "--prod-affinity"),
    (["htab-lookup", "--prod-affinity", "0", "-p", "2"], "names 1 CPUs for 2"),
    (["htab-lookup", "--json", "/"], "cannot write"),
    (["htab-lookup", "--duration", "0"], "--duration"),
    (["htab-free", "--trigger", "raw_tp"], "drop --trigger"),
    (["mem", "--loop", "bpf_loop"], "drop --loop"),
    (["htab-lookup", "--all"], "--all is for mem"),
    (["--from-result", "README.org"], "not a result document"),
    (["--from-result", "README.org", "htab-lookup"], "recorded plan as it is"),
    (["--from-result", "README.org", "--max-entries", "10"], "recorded plan as it is"),
])
def test_bad_input_is_one_line_and_exit_1(args, needle):
    before = bpf_snapshot() if os.geteuid() == 0 else None
    proc = run_bench(*args)
    assert_usage_error(proc, needle)
    if os.geteuid() == 0:
        assert leaks(before) == []


@pytest.mark.parametrize("args,needle", [
    (["htab-lookup", "--max-entries", "1M", "--json", "/etc/hostname/x.json"], "Not a directory"),
    (["noop", "--trigger", "nic", "--iface", "nosuch0", "--max-entries", "1M"], "no such interface"),
    (["htab-lookup", "--json", "/nonexistent-mapbench/dir/x.json"], "folder must exist"),
])
def test_refused_before_any_bpf_object_is_made(root, tmp_path, args, needle):
    """Checks come before work: not one bpf() call, not one folder made."""
    log = tmp_path / "strace"
    proc = subprocess.run(["strace", "-f", "-qq", "-e", "trace=bpf", "-o", str(log), str(BENCH),
                           *args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and needle in proc.stderr
    assert "bpf(" not in log.read_text()
    assert not os.path.exists("/nonexistent-mapbench")


def test_dry_run_prints_the_plan_with_every_default(root):
    proc = run_bench("htab-mem", "--use-case", "batch_add_batch_del", "-p", "2", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout.split("Plan: ", 1)[1])
    assert (plan["batch"], plan["nr_entries"], plan["prealloc"], plan["key_walk"]) == \
        (64, 0, False, "strided")
    assert plan["max_entries"] == max(8192, 64 * os.cpu_count()) and plan["key_set"] == 128


def test_from_result_reruns_the_same_plan(root, result, tmp_path):
    """A result file alone re-creates its run: the plan --from-result resolves
    is the recorded params, and running it records the same params again."""
    _, first = result("htab-delete", "-p", "2", "--max-entries", "2K", "--keys", "random",
                      "--seed", "5", "--no-prealloc", *QUICK)
    saved = tmp_path / "first.json"
    saved.write_text(json.dumps(first))
    dry = run_bench("--from-result", saved, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    plan = json.loads(dry.stdout.split("Plan: ", 1)[1])
    assert {k: first["params"][k] for k in plan} == plan
    proc, again = result("--from-result", saved, "-q")
    assert proc.returncode == 0, proc.stderr
    assert again["benchmark"] == "htab-delete"
    assert {k: again["params"][k] for k in plan} == plan
    assert again["params"]["map_flags"] == first["params"]["map_flags"] != 0


def test_without_capabilities_names_cap_bpf(tmp_path):
    if os.geteuid() != 0:
        proc = run_bench("htab-lookup", "-d", "1")
    else:
        # Root without capabilities: works wherever the checkout lives.
        proc = subprocess.run(["setpriv", "--bounding-set=-all", "--inh-caps=-all",
                               str(BENCH), "htab-lookup", "-d", "1"],
                              capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "CAP_BPF" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_leak_check_sees_what_is_left_and_not_what_others_hold(root):
    """The leak check itself: a pinned map nobody holds is reported; the
    objects of a bench still running (another process's) are not."""
    pin = Path("/sys/fs/bpf/mapbench-leak-check")
    mounted = not os.path.ismount("/sys/fs/bpf")
    if mounted:
        subprocess.run(["mount", "-t", "bpf", "bpf", "/sys/fs/bpf"], check=True)
    before = bpf_snapshot()
    # running, its programs loaded, until it is told to stop
    other = start_until(["htab-lookup", "-w", "0", "-d", "60"], "' started")
    subprocess.run([BPFTOOL, "map", "create", str(pin), "type", "hash", "key", "4", "value", "4",
                    "entries", "1", "name", "mbleakcheck"], check=True)
    try:
        left = leaks(before, expected=["mbleakcheck"])
        assert len(left) == 1 and left[0].endswith("mbleakcheck"), left
        assert other.poll() is None
    finally:
        other.send_signal(signal.SIGINT)
        other.communicate(timeout=30)
        pin.unlink()
        if mounted:
            subprocess.run(["umount", "/sys/fs/bpf"], check=True)
    assert leaks(before) == []


def test_no_bpf_objects_left_behind(root, tmp_path):
    before = bpf_snapshot()
    for args in (["htab-lookup"], ["htab-lookup", "--trigger", "raw_tp"],
                 ["htab-lookup", "--trigger", "fentry"], ["htab-lookup", "--map", "rhtab"]):
        run_bench(*args, "-w", "0", "-d", "1", "-q")
        assert leaks(before) == [], args


@pytest.mark.parametrize("held", [False, True], ids=["", "started-with-sigint-blocked"])
def test_sigint_keeps_samples_and_cleans_up(root, tmp_path, validator, held):
    """held: as scripts/suite starts a run, SIGINT blocked (inherited)."""
    path = tmp_path / "out" / "r.json"
    path.parent.mkdir()
    before = bpf_snapshot()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK if held else signal.SIG_UNBLOCK,
                                  {signal.SIGINT})
    # two samples taken: "Iter   1" printed
    try:
        proc = start_until(["htab-lookup", "-w", "0", "-d", "30", "--json", str(path)],
                           "Iter   1", stderr=subprocess.PIPE)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    out = proc.seen + out
    assert proc.returncode == 128 + signal.SIGINT, err
    doc = json.loads(path.read_text())
    validator.validate(doc)
    assert doc["status"] == "interrupted"
    assert 2 <= len(doc["samples"]) < 30
    assert "Interrupted after" in out and "Summary: throughput" in out
    assert os.listdir(path.parent) == ["r.json"]
    assert leaks(before) == []


def kernel_sed(pattern, output):
    """What run_bench_htab_mem.sh extracts: `echo $out` joins the output into
    one line of single spaces, then sed keeps the last match of pattern."""
    m = re.fullmatch(pattern, " ".join(output.split()), re.S)
    return m.group(1) if m else None


@pytest.mark.parametrize("use_case", ["overwrite", "batch_add_batch_del", "add_del_on_diff_cpu"])
def test_htab_mem_prints_the_kernel_line_its_script_parses(root, result, use_case):
    """htab-mem runs as the kernel's: the getpgid tracepoint (deleters on
    getppid), bpf_loop; its final line is the kernel's, parsed here with the
    patterns of the kernel's run_bench_htab_mem.sh, and agrees with the JSON."""
    proc, doc = result("-p", "2", "-a", "-w", "1", "-d", "2", "htab-mem", "--use-case", use_case)
    assert proc.returncode == 0, proc.stderr
    p = doc["params"]
    assert (p["trigger"], p["loop"], p["keys"]) == ("tp", "bpf_loop", "index")
    assert p["trigger_point"].startswith("syscalls/sys_enter_getpgid")
    assert ("sys_enter_getppid" in p["trigger_point"]) == (use_case == "add_del_on_diff_cpu")
    fig, mem = doc["summary"]["figure"], doc["summary"]["memory"]
    per_prod = kernel_sed(r".* per-prod-op\s+([0-9]+\.[0-9]+ ± [0-9]+\.[0-9]+k/s).*", proc.stdout)
    avg_mem = kernel_sed(r".* memory usage\s+([0-9]+\.[0-9]+ ± [0-9]+\.[0-9]+MiB).*", proc.stdout)
    peak = kernel_sed(r".* peak memory usage\s+([0-9]+\.[0-9]+MiB).*", proc.stdout)
    assert per_prod == f"{fig['mean']:.2f} ± {fig['stddev']:.2f}k/s"
    assert avg_mem == f"{mem['charged_avg'] / 2**20:.2f} ± {mem['charged_sd'] / 2**20:.2f}MiB"
    assert peak == f"{mem['cgroup_peak'] / 2**20:.2f}MiB"
    assert doc["summary"]["kernel_lines"][0] in proc.stdout
    assert doc["summary"]["hit_rate"] == 1.0 and doc["errors"]["total"] == 0


@pytest.mark.parametrize("name", ["bpf-hashmap-lookup", "bpf-hashmap-full-update"])
def test_hashmap_benches_run_the_kernel_trigger_or_say_what_ran(root, result, name):
    """fentry on getpgid and bpf_loop, as the kernel's; where fentry is refused,
    the getpgid tracepoint, and the output and the result say so."""
    proc, doc = result(name, *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert (doc["params"]["loop"], doc["params"]["keys"]) == ("bpf_loop", "index")
    # ids made in the program hit every prefilled key (lookup) or find the map full
    assert doc["summary"]["hit_rate"] == (1.0 if name.endswith("lookup") else 0.0)
    assert doc["errors"]["total"] == 0
    if doc["params"]["trigger"] == "tp":
        assert any("refuses fentry" in w for w in doc["warnings"])
        assert "Warning: this kernel refuses fentry" in proc.stdout
    else:
        assert doc["params"]["trigger"] == "fentry" and not doc["warnings"]
    asked = run_bench(name, "--trigger", "fentry", *QUICK)
    assert asked.returncode in (0, 2)          # asked for, fentry is never swapped


def test_hashmap_lookup_prints_the_kernel_lines(root, result):
    """One cpuNN line per producer as the kernel's: the events/s of its last
    32 runs (or fewer), mean ± 2 sd, and their mean length."""
    proc, doc = result("bpf-hashmap-lookup", "-p", "2", "-a", *SHORT)
    assert proc.returncode == 0, proc.stderr
    lines = doc["summary"]["kernel_lines"]
    assert len(lines) == 2
    for p, line in enumerate(lines):      # -a: producer p runs on CPU p
        m = re.fullmatch(r"cpu(\d\d): lookup (\d+\.\d{3})M ± (\d+\.\d{3})M events/sec "
                         r"\(approximated from (\d+) samples of ~(\d+)ms\)", line)
        assert m and int(m[1]) == p and 1 <= int(m[4]) <= 32, line
        assert line in proc.stdout
        # Runs of 1M lookups lasting ~M ms (truncated) are 1000/M M events/s
        # together; the mean of their rates is never below that.
        mean, ms = float(m[2]), int(m[5])
        assert mean >= 1000 / (ms + 1)
        # and in this producer's units: the producers' rates differ (they
        # contend on one key), so each line is held to its own producer's
        # samples, with room for a loaded machine's uneven runs.
        rates = [s["producers"][p]["ops"] / s["producers"][p]["ns"] * 1e3 for s in measured(doc)]
        assert mean <= 3 * max(rates), (line, rates)


def test_full_update_prints_the_kernel_lines(root, result):
    proc, doc = result("bpf-hashmap-full-update", "-p", "2", "-a", *SHORT)
    assert proc.returncode == 0, proc.stderr
    lines = doc["summary"]["kernel_lines"]
    assert [re.fullmatch(r"(\d+):hash_map_full_perf (\d+) events per sec", x)[1] for x in lines] \
        == ["0", "1"]
    assert all(int(x.split()[1]) > 0 for x in lines)


def test_jit_symbols_name_the_runs_programs(root, result):
    """--jit-symbols records the run's JIT'd programs as kallsyms lists them
    (the sysctl that lists them set for the test, as vmrun sets it in its
    guests), among them the program that ran the batches."""
    sysctl = Path("/proc/sys/net/core/bpf_jit_kallsyms")
    was = sysctl.read_text()
    sysctl.write_text("1\n")
    try:
        proc, doc = result("htab-lookup", "--jit-symbols", "--trigger", "xdp", *QUICK)
    finally:
        sysctl.write_text(was)
    assert proc.returncode == 0, proc.stderr
    names = [p["name"] for p in doc["programs"]]
    assert any(re.fullmatch(r"bpf_prog_[0-9a-f]{16}_xdp_\w+", n) for n in names), names
    proc, doc = result("htab-lookup", *QUICK)
    assert "programs" not in doc
