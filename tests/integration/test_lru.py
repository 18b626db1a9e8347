"""LRU maps past full: key spaces larger than the map, evictions counted,
BPF_F_NO_COMMON_LRU and --map_flags as the kernel holds them."""
import os

import pytest

from conftest import QUICK, assert_usage_error, bpf_snapshot, leaks, run_bench

BPF_F_NO_COMMON_LRU = 1 << 1


def total_misses(doc):
    return sum(p["misses"] for s in doc["samples"] for p in s["producers"])


@pytest.mark.parametrize("map_name", ["lru", "lru_percpu", "lru_nocommon"])
def test_evict_counts_the_inserts_the_map_did_not_keep(root, result, map_name):
    proc, doc = result("htab-lru-evict", "--map", map_name, "-w", "1", "-d", "1")
    assert proc.returncode == 0, proc.stderr
    s = doc["summary"]
    # uniform draws over twice the map: about half of the lookups can hit
    assert 0.2 < s["hit_rate"] < 0.8
    assert 0 < s["map_entries_end"] <= doc["params"]["max_entries"]
    # every miss inserted: kept (the map's entries) or evicted, counted once
    # the producers stopped; the samples stop before their last batches
    assert s["evictions"] + s["map_entries_end"] >= total_misses(doc)
    assert s["evictions"] > 0
    assert "Evictions: " in proc.stdout and "each miss was inserted" in proc.stdout


def test_skewed_keys_hit_more_than_uniform_ones(root, result):
    _, uniform = result("htab-lru-evict", *QUICK)
    proc, skewed = result("htab-lru-evict", *QUICK, "--zipf", "0.99")
    assert proc.returncode == 0, proc.stderr
    assert skewed["params"]["zipf"] == 0.99 and uniform["params"]["zipf"] is None
    # 0.99 over 2000 keys: the 1000 hottest take ~91% of draws; uniform: 50%
    assert skewed["summary"]["hit_rate"] > uniform["summary"]["hit_rate"] + 0.2


@pytest.mark.parametrize("map_name,flag", [("lru", 0), ("lru-nocommon", BPF_F_NO_COMMON_LRU)])
def test_nocommon_flag_reaches_the_kernel(root, result, map_name, flag):
    """map_flags is read back from the kernel (BPF_OBJ_GET_INFO_BY_FD)."""
    proc, doc = result("htab-lookup", "--map", map_name, *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert doc["params"]["map_flags"] & BPF_F_NO_COMMON_LRU == flag
    assert doc["params"]["map"] == map_name.replace("-", "_")


def test_more_keys_than_an_lru_map_miss_some_lookups(root, result):
    proc, doc = result("htab-lookup", "--map", "lru", "--max-entries", "1000",
                       "--nr-entries", "2000", *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert doc["params"]["key_set"] == 2000
    assert 0 < doc["summary"]["hit_rate"] < 1


def test_map_flags_pass_through_to_the_kernel(root, result):
    proc, doc = result("bpf-hashmap-lookup", "--map_flags", "0x40", *QUICK)   # BPF_F_ZERO_SEED
    assert proc.returncode == 0, proc.stderr
    assert doc["params"]["extra_map_flags"] == 0x40 and doc["params"]["map_flags"] & 0x40


def test_map_flags_the_kind_rejects_is_a_usage_error(root):
    before = bpf_snapshot()
    proc = run_bench("htab-lookup", "--map_flags", "0x10000", *QUICK)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "with map_flags 0x10000 (EINVAL)" in lines[0], proc.stderr
    assert leaks(before) == []


@pytest.mark.parametrize("args,needle", [
    (["htab-lru-evict", "--zipf", "0"], "--zipf takes"),
    (["htab-lru-evict", "--zipf", "-1"], "--zipf takes"),
    (["htab-lru-evict", "--zipf", "x"], "--zipf takes"),
    (["htab-lookup", "--zipf", "1"], "fixed order"),
    (["htab-lru-evict", "--keys", "random"], "drop --keys"),
    (["htab-lru-evict", "--map", "htab"], "use lru, lru_percpu or lru_nocommon"),
    (["htab-lookup", "--map", "rhtab", "--nr-entries", "2000", "--max-entries", "1000"],
     "do not evict"),
    (["lpm-trie-lookup", "--map_flags", "2"], "for hash maps"),
    (["htab-lookup", "--map_flags", "0x1g"], "32-bit flags word"),
    (["htab-lookup", "--hit-ratio", "1.5"], "--hit-ratio takes"),
    (["htab-lookup", "--hit-ratio", "-0.1"], "--hit-ratio takes"),
    (["htab-update", "--hit-ratio", "0.5"], "not htab-update"),
])
def test_bad_input_is_one_line_and_exit_1(args, needle):
    proc = run_bench(*args, "--dry-run" if os.geteuid() else "-q")
    assert_usage_error(proc, needle)
