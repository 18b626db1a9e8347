"""Memory per element (mem) and memory under churn (htab-mem) on the live kernel."""
import glob
import json
import os
import signal
import subprocess

import pytest

from conftest import run_bench, start_until

SIZE = ["--max-entries", "100K", "-q"]


def mapbench_cgroups():
    """Every mapbench-PID cgroup, in any hierarchy (v1's memory one is under
    /sys/fs/cgroup too)."""
    return set(glob.glob("/sys/fs/cgroup/**/mapbench-*", recursive=True))


def pid_of(cgroup):
    return int(cgroup.rsplit("-", 1)[1])


@pytest.fixture
def leftover_cgroups():
    """mapbench-PID cgroups made since the test began whose process is gone:
    what the test's runs left behind. Cgroups from before (another machine's
    user killed a run) and live PIDs' (a run in progress) do not count."""
    before = mapbench_cgroups()
    return lambda: sorted(d for d in mapbench_cgroups() - before
                          if not os.path.exists(f"/proc/{pid_of(d)}"))


def own_memory_cgroup():
    """Where ./bench makes its cgroup: this process's own cgroup in the
    hierarchy that has the memory controller (v2 where it does, else v1)."""
    v2 = "/sys/fs/cgroup/cgroup.controllers"
    version = 2 if os.path.exists(v2) and "memory" in open(v2).read() else 1
    for line in open("/proc/self/cgroup"):
        num, ctrl, path = line.rstrip("\n").split(":", 2)
        if (version == 2 and num == "0") or (version == 1 and ctrl == "memory"):
            root = "/sys/fs/cgroup" if version == 2 else "/sys/fs/cgroup/memory"
            return root + path.rstrip("/")
    pytest.skip("no memory cgroup controller on this machine")


def row(doc, i=0):
    r = doc["memory"]["rows"][i]
    assert r["status"] == "ok", r
    return r


def possible_cpus():
    text = open("/sys/devices/system/cpu/possible").read().strip()
    return sum(int(b) - int(a) + 1 if "-" in p else 1
               for p in text.split(",") for a, _, b in [p.partition("-")])


def test_prealloc_hash_element_is_64_bytes(root, result, leftover_cgroups):
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


def test_all_rows(root, result, leftover_cgroups):
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
def test_htab_mem_samples_memory(root, result, use_case, p, leftover_cgroups):
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


def test_htab_mem_cgroup_is_removed_after_sigint(root, tmp_path, leftover_cgroups):
    path = tmp_path / "r.json"
    proc = start_until(["htab-mem", "-w", "0", "-d", "30", "--json", str(path)], "Iter")
    assert glob.glob(f"/sys/fs/cgroup/**/mapbench-{proc.pid}", recursive=True)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGINT
    assert json.loads(path.read_text())["status"] == "interrupted"
    assert leftover_cgroups() == []


MEM_RUN = ["mem", "--max-entries", "64K"]
HTAB_MEM_RUN = ["-p", "2", "-a", "htab-mem", "--use-case", "overwrite", "-w", "0", "-d", "30"]


@pytest.mark.parametrize("args,needle", [
    (MEM_RUN, None), (MEM_RUN, "Memory per element"), (MEM_RUN, "htab "),
    (HTAB_MEM_RUN, None), (HTAB_MEM_RUN, "Setting up"), (HTAB_MEM_RUN, "Iter"),
], ids=["mem-at-start", "mem-after-header", "mem-after-row",
        "htab-mem-at-start", "htab-mem-in-setup", "htab-mem-measuring"])
def test_a_run_removes_what_killed_runs_left(root, args, needle):
    """SIGKILL cannot be caught: a run killed at any point may leave its
    cgroup; the next run that makes one removes it, and says so."""
    killed = start_until(args, needle)
    killed.kill()
    killed.wait()
    proc = run_bench(*MEM_RUN, "-q")
    assert proc.returncode == 0, proc.stderr
    assert not glob.glob(f"/sys/fs/cgroup/**/mapbench-{killed.pid}", recursive=True)


def planted(name):
    """A mapbench-like cgroup made by the test in ./bench's own place."""
    path = os.path.join(own_memory_cgroup(), name)
    os.mkdir(path)
    return path


def test_a_stale_cgroup_of_a_dead_pid_is_removed_with_one_line(root):
    dead = int(open("/proc/sys/kernel/pid_max").read())    # pids are below pid_max
    path = planted(f"mapbench-{dead}")
    try:
        proc = run_bench(*MEM_RUN, "-q")
    finally:
        gone = not os.path.exists(path)
        if not gone:
            os.rmdir(path)
    assert proc.returncode == 0, proc.stderr
    assert gone
    lines = [x for x in proc.stderr.splitlines() if "memory cgroup" in x]
    assert lines == ["mapbench: removed 1 memory cgroup left by killed runs (mapbench-PID, PID gone)"]


def test_a_live_pids_cgroup_is_kept(root):
    """A live PID is a run in progress (or a reused PID): never touched."""
    sleeper = subprocess.Popen(["sleep", "60"])
    path = planted(f"mapbench-{sleeper.pid}")
    try:
        proc = run_bench(*MEM_RUN, "-q")
        assert proc.returncode == 0, proc.stderr
        assert os.path.isdir(path)
        assert "removed" not in proc.stderr
    finally:
        os.rmdir(path)
        sleeper.kill()
        sleeper.wait()


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
