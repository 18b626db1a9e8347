"""LPM trie and map-free benchmarks on the live kernel."""
import json
import re
from pathlib import Path

import pytest

from conftest import QUICK, SHORT, bpf_snapshot, leaks, run_bench

LPM_BENCHES = ["lpm-trie-noop", "lpm-trie-baseline", "lpm-trie-lookup", "lpm-trie-update",
               "lpm-trie-insert", "lpm-trie-delete"]


@pytest.mark.parametrize("bench", LPM_BENCHES)
def test_every_lpm_benchmark_runs_clean(root, result, bench):
    proc, doc = result(bench, "--prefix_len=32", "--producers=1", "--nr_entries=10000", *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert doc["status"] == "complete" and doc["errors"]["total"] == 0
    assert doc["params"]["map_type"] == "BPF_MAP_TYPE_LPM_TRIE"
    assert doc["params"]["prefix_len"] == 32 and doc["params"]["max_entries"] == 10000
    assert doc["summary"]["samples"] == 1 and doc["summary"]["ops"] > 0


@pytest.mark.parametrize("bench,nr", [("lpm-trie-delete", 1000), ("lpm-trie-insert", 1000),
                                      ("lpm-trie-delete", 25000)])
def test_delete_drains_and_insert_fills_the_whole_trie(root, result, bench, nr):
    """The kernel's delete empties a full trie in id order and insert fills an
    empty one (10000 a run); the refill or emptying in between is not timed."""
    proc, doc = result(bench, *QUICK, "--nr-entries", str(nr))
    assert proc.returncode == 0, proc.stderr
    assert doc["params"]["batch"] == 10000
    assert doc["summary"]["misses"] == 0 and doc["summary"]["hits"] == doc["summary"]["ops"]
    ops = sum(s["ops"] for s in doc["samples"])
    runs = sum(s["runs"] for s in doc["samples"])
    # every run ends at the trie's end or after 10000: 1000 a run, or 10000,
    # 10000, 5000 in turn; the measured runs are a window of that cycle, so
    # 3 x ops is 25000 x runs but for the cycle's leftover runs (at most two):
    # exact however many runs a busy machine fits in the window
    if nr <= 10000:
        assert ops == runs * nr
    else:
        assert 3 * ops - 25000 * runs in (-10000, -5000, 0, 5000, 10000), (ops, runs)
    fig = doc["summary"]["figure"]
    assert fig["clock"] == "in-kernel" and fig["unit"] == "M ops/s"


@pytest.mark.parametrize("args", [
    ["--prefix-len", "32"], ["--prefix-len", "24", "--nr-entries", "1000", "--random"],
    ["--key-size", "16", "--prefix-len", "64", "--nr-entries", "5000"],
    ["--key-size", "16", "--prefix-len", "128"], ["--nr-entries", "1"],
])
def test_lookups_in_a_full_trie_all_hit(root, result, args):
    proc, doc = result("lpm-trie-lookup", *QUICK, *args)
    assert proc.returncode == 0, proc.stderr
    assert doc["summary"]["hits"] > 0 and doc["summary"]["hit_rate"] == 1.0


@pytest.mark.parametrize("bench", ["lpm-trie-lookup", "lpm-trie-update", "lpm-trie-insert"])
def test_mixed_prefix_lengths_are_all_stored_and_found(root, result, bench):
    """--prefix-len 16..32: 17 lengths, equal shares, recorded; lookups of
    addresses under every prefix all hit, updates find every prefix, and
    inserting them all into an empty trie meets no duplicate (EEXIST)."""
    proc, doc = result(bench, *QUICK, "--prefix-len", "16..32", "--nr-entries", "5000")
    assert proc.returncode == 0, proc.stderr
    lens = doc["params"]["prefix_lens"]
    assert sorted(map(int, lens)) == list(range(16, 33)) and doc["params"]["prefix_len"] is None
    assert sum(lens.values()) == pytest.approx(1.0)
    assert doc["params"]["keys"] == "seq"
    assert doc["summary"]["misses"] == 0 and doc["summary"]["hits"] == doc["summary"]["ops"] > 0
    assert doc["errors"]["total"] == 0


@pytest.mark.parametrize("bench", ["lpm-trie-delete", "lpm-trie-update"])
def test_present_prefixes_are_always_found(root, result, bench):
    proc, doc = result(bench, *QUICK, "--nr-entries", "5000")
    assert proc.returncode == 0, proc.stderr
    assert doc["summary"]["misses"] == 0 and doc["summary"]["hits"] > 0


def test_baseline_is_cheaper_than_lookup(root, result):
    _, base = result("lpm-trie-baseline", *SHORT)
    _, lookup = result("lpm-trie-lookup", *SHORT)
    assert base["summary"]["latency_ns"]["mean"] < lookup["summary"]["latency_ns"]["mean"]


def free_latency(result, bench, *args):
    proc, doc = result(bench, "-w", "1", "-d", "3", *args)
    assert proc.returncode == 0, proc.stderr
    assert "bpf_map_free_deferred" in doc["params"]["timing"]
    assert doc["summary"]["ops"] > 0
    assert " ms/op" in proc.stdout and " K ops/s" in proc.stdout
    return doc["summary"]["latency_ns"]["mean"]


def test_freeing_a_larger_trie_takes_longer(root, result):
    small = free_latency(result, "lpm-trie-free", "--nr-entries", "1000")
    large = free_latency(result, "lpm-trie-free", "--nr-entries", "100000")
    assert large > 10 * small


def deferred_map_frees():
    """Kernel workers now in free_mem_alloc_deferred: the RCU barriers a
    non-preallocated map's free leaves to a workqueue."""
    stacks = []
    for stack in Path("/proc").glob("[0-9]*/stack"):
        try:
            stacks.append(stack.read_text())
        except OSError:
            continue
    return sum("free_mem_alloc_deferred" in s for s in stacks)


def test_each_free_is_timed_and_finished_before_the_next_map(root, result):
    """Small non-preallocated maps freed as fast as they were made piled
    thousands of barrier works on the machine, and later samples timed
    nothing: every map closed is freed and timed in its sample, and the run
    leaves no deferred free behind."""
    before = deferred_map_frees()
    free_latency(result, "htab-free", "--max-entries", "1000", "--no-prealloc")
    _, doc = result("htab-free", "--max-entries", "1000", "--no-prealloc", *QUICK)
    assert [s["ops"] for s in doc["samples"]] == [s["runs"] for s in doc["samples"]]
    assert deferred_map_frees() <= before + 2


def test_free_leaves_no_maps_behind(root):
    before = bpf_snapshot()
    run_bench("lpm-trie-free", "-w", "0", "-d", "2", "--nr-entries", "1000", "-q")
    assert leaks(before) == []


@pytest.mark.parametrize("args,needle", [
    (["lpm-trie-lookup", "--prefix-len", "33"], "--prefix-len"),
    (["lpm-trie-lookup", "--key-size", "16", "--prefix-len", "129"], "--prefix-len"),
    (["lpm-trie-lookup", "--nr-entries", "0"], "--nr-entries"),
    (["lpm-trie-lookup", "--nr-entries", "100", "--max-entries", "10"], "larger than"),
    (["lpm-trie-lookup", "--nr-entries", "300", "--prefix-len", "8"], "distinct prefixes"),
    (["lpm-trie-lookup", "--nr-entries", "300", "--prefix-len", "12"], "distinct prefixes"),
    (["lpm-trie-delete", "--random"], "in order"),
    (["lpm-trie-lookup", "--key-size", "2"], "--key-size"),
    (["lpm-trie-delete", "-p", "2"], "-p 1"),
    (["lpm-trie-insert", "-p", "2"], "-p 1"),
    (["lpm-trie-free", "-p", "2"], "-p 1"),
    (["lpm-trie-lookup", "--map", "htab"], "LPM trie"),
    (["htab-lookup", "--prefix-len", "8"], "LPM"),
    (["htab-lookup", "--prefix-len", "8..32"], "LPM"),
    (["lpm-trie-lookup", "--prefix-len", "8..32"], "gives /8 more prefixes than the 256"),
    (["lpm-trie-lookup", "--prefix-len", "16..33"], "longer than the 4-byte key"),
    (["lpm-trie-lookup", "--prefix-len", "16..65"], "--prefix-len takes"),
    (["lpm-trie-lookup", "--prefix-len", "24:60,16"], "--prefix-len takes"),
    (["lpm-trie-lookup", "--prefix-len", "16..32", "--random"], "use --keys seq or random"),
    (["lpm-trie-free", "--prefix-len", "16..32"], "not lpm-trie-free"),
])
def test_bad_lpm_input_is_one_line_and_exit_1(args, needle):
    proc = run_bench(*args)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]


@pytest.mark.parametrize("bench,unit", [("lpm-trie-insert", "M"), ("lpm-trie-delete", "M"),
                                        ("lpm-trie-free", "K")])
def test_the_kernel_scripts_read_the_in_kernel_figure(root, tmp_path, bench, unit):
    """For the ops that reset the trie, the kernel's LPM bench reports
    throughput over in-kernel time: its Summary line comes last, so the
    patterns of run_common.sh (the last match wins) read that figure."""
    path = tmp_path / "r.json"
    proc = run_bench(bench, "--nr-entries", "10K", "-w", "1", "-d", "2", "--json", path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(path.read_text())
    flat = " ".join(proc.stdout.split())
    got = re.fullmatch(rf".*throughput\s+([0-9]+\.[0-9]+ ± [0-9]+\.[0-9]+\s{unit}\sops/s).*", flat)[1]
    fig = doc["summary"]["figure"]
    assert got == f"{fig['mean']:.3f} ± {fig['stddev']:.3f} {unit} ops/s"
    printed = [x for x in proc.stdout.splitlines() if not x.startswith("Result: ")]
    assert doc["summary"]["kernel_lines"] == [printed[-1]]


@pytest.mark.parametrize("keys, args", [("counter", []), ("seq", ["--keys", "seq"]),
                                        ("random", ["--keys", "random"]),
                                        ("prandom", ["--random"])])
def test_lpm_keys_default_to_the_kernel_counter(root, result, keys, args):
    """The kernel's LPM bench takes key cur_key++ % nr from one shared counter:
    mapbench's default for lpm-trie-*; its --random draws prandom % nr per
    lookup (the prefill still stores every key below nr: all hit); seq and
    random walk the key array."""
    proc, doc = result("lpm-trie-lookup", "-p", "2", *args, "-w", "0", "-d", "1", "-q")
    assert proc.returncode == 0, proc.stderr
    assert doc["params"]["keys"] == keys
    assert doc["summary"]["hit_rate"] == 1.0 and doc["errors"]["total"] == 0


def test_random_is_refused_where_the_kernel_lpm_bench_refuses_it():
    proc = run_bench("lpm-trie-insert", "--random")
    assert proc.returncode == 1 and "drop --random" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_counter_keys_are_for_lpm_only():
    proc = run_bench("htab-lookup", "--keys", "counter")
    assert proc.returncode == 1 and "for lpm-trie-* only" in proc.stderr
