"""Memory per element (mem) and memory under churn (htab-mem) on the live kernel."""
import glob
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import BENCH, run_bench

SIZE = ["--max-entries", "100K", "-q"]


def leftover_cgroups():
    """mapbench-PID cgroups whose process is gone: left behind. A live PID's
    cgroup is a run in progress (another checkout's tests, a user's run)."""
    found = glob.glob("/sys/fs/cgroup/memory/**/mapbench-*", recursive=True) + \
        glob.glob("/sys/fs/cgroup/**/mapbench-*", recursive=True)
    return [d for d in found if not os.path.exists(f"/proc/{d.rsplit('-', 1)[1]}")]


def row(doc, i=0):
    r = doc["memory"]["rows"][i]
    assert r["status"] == "ok", r
    return r


def possible_cpus():
    text = open("/sys/devices/system/cpu/possible").read().strip()
    return sum(int(b) - int(a) + 1 if "-" in p else 1
               for p in text.split(",") for a, _, b in [p.partition("-")])


def test_prealloc_hash_element_is_64_bytes(root, result):
    proc, doc = result("mem", "--key-size", "8", "--value-size", "8", *SIZE)
    assert proc.returncode == 0, proc.stderr
    r = row(doc)
    if os.uname().release.startswith("6.18"):
        assert r["bytes_per_element"] == 64   # the seeds' "old size"
    assert r["bytes_per_element"] % 8 == 0 and r["element_bytes"] == r["bytes_per_element"]
    # preallocated: filling adds nothing to what the kernel accounts
    for p in r["points"]:
        assert p["memlock_full"] == p["memlock_empty"]
    assert leftover_cgroups() == []


def test_value_size_follows_the_kernels_rounding(root, result):
    sizes = {}
    for v in (8, 12, 16):
        proc, doc = result("mem", "--key-size", "8", "--value-size", str(v), *SIZE)
        assert proc.returncode == 0, proc.stderr
        sizes[v] = row(doc)["bytes_per_element"]
    assert sizes[16] - sizes[8] == 8
    assert sizes[12] == sizes[16]   # values are rounded up to 8 bytes


def test_non_prealloc_grows_when_filled_and_falls_back_after_deletes(root, result):
    proc, doc = result("mem", "--no-prealloc", *SIZE)
    assert proc.returncode == 0, proc.stderr
    big = row(doc)["points"][1]
    assert big["memlock_full"] > big["memlock_empty"] + 100_000 * 32
    assert big["memlock_after_delete"] == big["memlock_empty"]
    assert row(doc)["charged_bytes_per_element"] is not None


@pytest.mark.parametrize("prealloc", [True, False])
def test_a_part_full_map_costs_what_its_kind_holds(root, result, prealloc):
    """--nr-entries below --max-entries adds the large map holding that many:
    a preallocated map holds all of its memory from the start, one without
    preallocation about a quarter of the full map's elements at a quarter."""
    proc, doc = result("mem", "--max-entries", "64K", "--nr-entries", "16K", "-q",
                       *([] if prealloc else ["--no-prealloc"]))
    assert proc.returncode == 0, proc.stderr
    r = row(doc)
    fill, big = r["fill"], r["points"][1]
    assert fill["nr_entries"] == 16000
    if prealloc:
        assert fill["memlock"] == big["memlock_full"]
    else:
        grown = (fill["memlock"] - big["memlock_empty"]) / (big["memlock_full"] - big["memlock_empty"])
        assert 0.2 < grown < 0.3, (fill, big)
    proc, doc = result("mem", "--max-entries", "64K", "-q")
    assert row(doc)["fill"]["memlock"] == row(doc)["points"][1]["memlock_full"]


def test_per_cpu_values_are_separated(root, result):
    proc, doc = result("mem", "--map", "percpu", "--value-size", "8", *SIZE)
    assert proc.returncode == 0, proc.stderr
    r = row(doc)
    assert r["per_cpu_value_bytes"] == 8 * possible_cpus()
    assert r["element_bytes"] == r["bytes_per_element"] - r["per_cpu_value_bytes"]


def test_all_rows(root, result):
    proc, doc = result("mem", "--all", *SIZE)
    assert proc.returncode == 0, proc.stderr
    rows = {r["label"]: r for r in doc["memory"]["rows"]}
    assert {"Standard (prealloc)", "Per-CPU (prealloc)", "Per-CPU (non-prealloc)", "LRU",
            "LRU per-CPU", "rhtab", "LPM trie"} <= set(rows)
    assert rows["LPM trie"]["status"] == "ok" and rows["LPM trie"]["bytes_per_element"] > 0
    if "has no BPF_MAP_TYPE_RHASH" in proc.stderr:
        assert rows["rhtab"]["status"] == "unsupported"
    assert leftover_cgroups() == []


def test_mem_of_a_missing_map_type_is_unsupported(root, result):
    proc, doc = result("mem", "--map", "rhtab", *SIZE)
    if proc.returncode == 2:
        assert doc["memory"]["rows"][0]["status"] == "unsupported"
    else:
        assert proc.returncode == 0


@pytest.mark.parametrize("use_case,p", [("overwrite", 1), ("batch_add_batch_del", 1),
                                        ("add_del_on_diff_cpu", 2)])
def test_htab_mem_samples_memory(root, result, use_case, p):
    proc, doc = result("htab-mem", "--use-case", use_case, "-p", str(p), "-w", "1", "-d", "2")
    assert proc.returncode == 0, proc.stderr
    assert doc["benchmark"] == f"htab-mem-{use_case}"
    assert doc["params"]["prealloc"] is False
    assert doc["params"]["max_entries"] == max(8192, 64 * os.cpu_count())
    mem = doc["summary"]["memory"]
    assert mem["memlock_peak"] >= mem["memlock_avg"] > 0
    assert mem["charged_peak"] >= mem["charged_avg"] > 0
    assert all(s["memlock_bytes"] > 0 for s in doc["samples"])
    assert "per-prod-op" in proc.stdout and doc["summary"]["figure"]["unit"] == "k/s"
    assert leftover_cgroups() == []


def test_htab_mem_cgroup_is_removed_after_sigint(root, tmp_path):
    path = tmp_path / "r.json"
    proc = subprocess.Popen([str(BENCH), "htab-mem", "-w", "0", "-d", "30", "--json", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.5)
    assert glob.glob(f"/sys/fs/cgroup/**/mapbench-{proc.pid}", recursive=True)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGINT
    assert json.loads(path.read_text())["status"] == "interrupted"
    assert leftover_cgroups() == []


@pytest.mark.parametrize("args,needle", [
    (["htab-mem", "--use-case", "bogus"], "--use-case"),
    (["htab-mem", "--use-case", "add_del_on_diff_cpu", "-p", "3"], "even"),
    (["htab-lookup", "--use-case", "overwrite"], "htab-mem"),
    (["mem", "--nr-entries", "2M"], "--nr-entries"),
    (["mem", "--max-entries", "1100"], "power of two"),
    (["mem", "--map", "lru", "--no-prealloc"], "preallocated"),
])
def test_bad_memory_input_is_one_line_and_exit_1(args, needle):
    proc = run_bench(*args)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]
