"""samples/bpf map_perf_test's tests under mapbench: its workloads, a task
per CPU, its per-task lines, and its invocation shape."""
import json
import os
import subprocess

import pytest

from conftest import (BPFTOOL, QUICK, assert_usage_error, bpf_snapshot, run_bench, shaped,
                      start_until)

# map_perf_test's test bits, the rows that run them and the names in its lines
TESTS = {
    1: ("map-perf-hash-prealloc", "hash_map_perf pre-alloc"),
    2: ("map-perf-percpu-hash-prealloc", "percpu_hash_map_perf pre-alloc"),
    4: ("map-perf-hash-kmalloc", "hash_map_perf kmalloc"),
    8: ("map-perf-percpu-hash-kmalloc", "percpu_hash_map_perf kmalloc"),
    16: ("map-perf-lru-hash-prealloc", "lru_hash_map_perf pre-alloc"),
    32: ("map-perf-nocommon-lru-hash-prealloc", "nocommon_lru_hash_map_perf pre-alloc"),
    64: ("map-perf-lpm-kmalloc", "lpm_perf kmalloc"),
    128: ("map-perf-hash-lookup", "hash_lookup"),
    256: ("map-perf-array-lookup", "array_lookup"),
    512: ("map-perf-inner-lru-hash-prealloc", "inner_lru_hash_map_perf pre-alloc"),
    1024: ("map-perf-lru-hash-lookup", "lru_hash_lookup_perf pre-alloc"),
}
BPF_F_NO_PREALLOC, BPF_F_NO_COMMON_LRU, BPF_F_ZERO_SEED = 1, 2, 64


@pytest.mark.parametrize("flag", sorted(TESTS))
def test_each_test_prints_the_kernels_line_per_task(root, result, flag):
    bench, name = TESTS[flag]
    proc, doc = result("map-perf", str(flag), *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert doc["benchmark"] == bench
    lines = [m.group("cpu", "name", "v", "v_scale") for m in shaped(proc.stdout, "per-task")]
    # a task per online CPU, each pinned to its CPU and labelled by it
    assert [int(cpu) for cpu, *_ in lines] == doc["params"]["prod_cpus"] == \
        list(range(os.cpu_count()))
    assert {n for _, n, _, _ in lines} == {name} and all(int(v) > 0 for _, _, v, _ in lines)
    assert doc["summary"]["kernel_lines"] == [f"{c}:{n} {v} {u} per sec" for c, n, v, u in lines]
    # the kernel's ksyscall where kprobes attach, its tracepoint (said) elsewhere
    assert doc["params"]["trigger"] in ("ksyscall", "tp")
    if doc["params"]["trigger"] == "tp":
        assert any("refuses kprobes" in w for w in doc["warnings"])
    assert doc["summary"]["figure"]["unit"] == "events/s"


@pytest.mark.parametrize("flag,hit_rate", [(4, 1.0), (64, 0.0), (128, 0.0), (256, 1.0)])
def test_lookups_find_what_the_kernels_maps_hold(root, result, flag, hit_rate):
    """The churn finds the key it just added; LPM_KMALLOC's trie and
    HASH_LOOKUP's map are empty in the kernel's test too."""
    proc, doc = result("map-perf", str(flag), *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert doc["summary"]["hit_rate"] == hit_rate


@pytest.mark.parametrize("flag,bits", [(4, BPF_F_NO_PREALLOC), (32, BPF_F_NO_COMMON_LRU)])
def test_the_kernels_map_flags_are_read_back(root, result, flag, bits):
    proc, doc = result("map-perf", "--flags", str(flag), *QUICK, "-p", "1")
    assert proc.returncode == 0, proc.stderr
    assert doc["params"]["map_flags"] & bits == bits and doc["params"]["producers"] == 1


def test_zero_seed_reaches_every_inner_map(root, result):
    """The maps of an array of maps share its inner map's flags: with
    --zero-seed (every icount guest run) INNER_LRU_HASH_PREALLOC's array
    refused its maps and the test did not load."""
    proc, doc = result("map-perf", "512", "--zero-seed", *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert doc["params"]["map_flags"] & BPF_F_ZERO_SEED


def test_invocation_shapes_name_the_same_test():
    plans = [run_bench(*args, "--dry-run").stdout for args in
             (["map-perf", "4"], ["map-perf", "--flags", "4"], ["map-perf-hash-kmalloc"])]
    assert all(p.startswith("map-perf-hash-kmalloc: valid") for p in plans), plans
    plan = json.loads(plans[0].split("Plan: ", 1)[1].splitlines()[0])
    assert plan["producers"] == os.cpu_count() and plan["prealloc"] is False
    assert plan["trigger"] == "ksyscall" and plan["max_entries"] == 1000
    # what scripts/vmrun --peer kernel runs in a guest beside it
    assert f"Kernel command: map_perf_test 4 {os.cpu_count()} 1000 10000\n" in plans[0]


def test_map_perf_tests_arguments_set_tasks_entries_and_count():
    """./bench map-perf FLAGS TASKS ENTRIES COUNT, as map_perf_test takes
    them; a 0 leaves one to the row, as map_perf_test's do."""
    out = run_bench("map-perf", "16", "1", "500", "2000", "--dry-run").stdout
    plan = json.loads(out.split("Plan: ", 1)[1].splitlines()[0])
    assert (plan["producers"], plan["max_entries"], plan["count"]) == (1, 500, 2000)
    assert "Kernel command: map_perf_test 16 1 500 2000\n" in out
    out = run_bench("map-perf", "16", "0", "0", "300", "--dry-run").stdout
    plan = json.loads(out.split("Plan: ", 1)[1].splitlines()[0])
    assert (plan["producers"], plan["max_entries"], plan["count"]) == \
        (os.cpu_count(), 10000, 300)


def test_the_figure_is_each_tasks_rounds_timed_in_user_space(root, result):
    """Each task's line is its events over its own time around its rounds
    (map_perf_test's count over its elapsed time), recorded per sample."""
    proc, doc = result("map-perf", "4", "-p", "1", "--count", "1000", "-w", "0", "-d", "2")
    assert proc.returncode == 0, proc.stderr
    prods = [x["producers"][0] for x in doc["samples"]]
    # whole rounds only. At any snapshot the program has seen the events of
    # the finished rounds and of the one under way (fewer than --count), and
    # the producers start before the first snapshot: over the samples, the
    # two counts differ by less than a round either way.
    assert all(p["wall_events"] % 1000 == 0 for p in prods)
    events = sum(p["wall_events"] for p in prods)
    ns = sum(p["wall_ns"] for p in prods)
    assert events > 0 and abs(sum(p["runs"] for p in prods) - events) < 1000
    cpu = doc["params"]["prod_cpus"][0]
    line = f"{cpu}:hash_map_perf kmalloc {int(events * 1e9 / ns)} events per sec"
    assert doc["summary"]["kernel_lines"] == [line]


def _elements(name, before):
    """Elements in each new map called name, as bpftool dumps them."""
    maps = json.loads(subprocess.run([BPFTOOL, "-j", "map", "list"], capture_output=True,
                                     text=True, check=True).stdout)
    return [len(json.loads(subprocess.run([BPFTOOL, "-j", "map", "dump", "id", str(m["id"])],
                                          capture_output=True, text=True, check=True).stdout))
            for m in maps if m.get("name") == name and m["id"] not in before["map"]]


def test_lru_tests_start_each_round_from_an_empty_map(root):
    """map_perf_test inserts count random keys into a new map; without the
    emptying between rounds the map would be full (10000) after ten."""
    before = bpf_snapshot()
    proc = start_until(["map-perf", "16", "-p", "1", "--count", "1000", "-w", "0", "-d", "3"],
                       "Iter   0")
    try:
        counts = _elements("lru_hash_map", before)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert len(counts) == 1 and counts[0] < 5000, counts


def test_timed_events_are_not_in_step_with_the_lru_refill(root, result):
    """One event in 16 is timed and counted for 16; taking every 16th fell
    in step with the LRU's free-list refills (128 nodes) and put an event's
    map work at more than the whole event (syscall and all) as the task
    timed it, which it is a part of."""
    proc, doc = result("map-perf", "16", "-p", "1", *QUICK)
    assert proc.returncode == 0, proc.stderr
    event_ns = 1e9 / doc["summary"]["figure"]["mean"]
    assert doc["summary"]["latency_ns"]["mean"] < event_ns


@pytest.mark.parametrize("args,needle", [
    (["map-perf", "--flags", "5"], "names several tests"),
    (["map-perf", "2048"], "is no test of map-perf here"),
    (["htab-lookup", "--flags", "4"], "by its test bit (map-perf), not of htab-lookup"),
    (["map-perf", "4", "--key-size", "8"], "only --max-entries"),
    (["map-perf", "4", "--trigger", "xdp"], "--trigger takes tp"),
    (["map-perf", "4", "--loop", "bpf_loop"], "drop --loop"),
    (["map-perf", "4", "-p", str(os.cpu_count() + 1)], "more than the"),
    (["map-perf", "4", "-p", "2", "--prod-affinity", "0,0"], "CPUs that differ"),
    (["map-perf", "4", "--count", "0"], "--count"),
    (["htab-lookup", "--count", "10"], "for map-perf, not htab-lookup"),
    (["map-perf", "4", "1", "-p", "1"], "TASKS (-p) given twice"),
    (["map-perf", "4", "1", "100", "10", "5"], "not '5'"),
    (["map-perf", "4", "x"], "not 'x'"),
    # only a kernel tool with arguments of its own takes them
    (["htab-lookup", "5"], "htab-lookup takes no arguments after its name, not '5'"),
    (["nope", "5"], "unknown benchmark 'nope'"),
])
def test_bad_input_is_one_line_and_exit_1(args, needle):
    proc = run_bench(*args, "--dry-run")
    assert_usage_error(proc, needle)
