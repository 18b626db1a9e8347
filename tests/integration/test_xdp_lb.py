"""xdp-lb, linux 7.3's XDP load balancer benchmark: every scenario passes
the kernel bench's check and prints its lines; the scenarios' work differs
as theirs does; bad input is one line."""
import json
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import BENCH, assert_usage_error, run_bench, shaped
from test_bench import rval

SCENARIOS = ["tcp-v4-lru-hit", "tcp-v4-ch", "tcp-v6-lru-hit", "tcp-v6-ch", "udp-v4-lru-hit",
             "udp-v6-lru-hit", "tcp-v4v6-lru-hit", "tcp-v4-lru-diverse", "tcp-v4-ch-diverse",
             "tcp-v6-lru-diverse", "tcp-v6-ch-diverse", "udp-v4-lru-diverse", "tcp-v4-lru-miss",
             "udp-v4-lru-miss", "tcp-v4-lru-warmup", "tcp-v4-syn", "tcp-v4-rst-miss",
             "pass-v4-no-vip", "pass-v6-no-vip", "pass-v4-icmp", "pass-non-ip", "drop-v4-frag",
             "drop-v4-options", "drop-v6-frag"]
# a short run: a fixed batch needs no warmup to size it
SHORT = ["--batch", "1000", "-w", "0", "-d", "1", "-q"]


def run_scenario(scenario, tmp_path, *args):
    path = tmp_path / f"{scenario}.json"
    proc = subprocess.run([str(BENCH), "xdp-lb", "--scenario", scenario, *SHORT, *args,
                           "--json", str(path)], capture_output=True, text=True, timeout=120)
    return proc, json.loads(path.read_text()) if path.exists() else None


@pytest.fixture
def loads(root, tmp_path):
    """xdp-lb's program loads here, or the test is skipped with the kernel's
    own reason, which ./bench gives in one line (exit 2): a kernel whose XDP
    programs may not call a helper the kernel bench's program calls (seen:
    6.18.44-fc-v1300 refuses bpf_xdp_adjust_meta) cannot run it."""
    proc, _ = run_scenario("tcp-v4-lru-hit", tmp_path)
    if proc.returncode == 2 and "refuses a helper xdp-lb's program calls" in proc.stderr:
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert "cannot use helper" in proc.stderr
        pytest.skip(proc.stderr.strip())
    assert proc.returncode == 0, proc.stderr


def figure(scenario, tmp_path):
    proc, doc = run_scenario(scenario, tmp_path)
    assert proc.returncode == 0, proc.stderr
    return doc["summary"]["batches"]["iqr"]["median_ns"]


def test_every_scenario_passes_the_kernels_check_and_prints_its_lines(loads, tmp_path):
    """Setup runs one batch and checks it as the kernel bench does (verdict,
    the packet that leaves, the counters and table misses): a scenario whose
    program does another workload fails with exit 3. Four at a time."""
    with ThreadPoolExecutor(4) as pool:
        done = dict(zip(SCENARIOS, pool.map(
            lambda s: run_scenario(s, tmp_path, "--machine-readable"), SCENARIOS)))
    for scenario, (proc, doc) in done.items():
        assert proc.returncode == 0, f"{scenario}: {proc.stderr}"
        (median, stddev, p99, n), = [m.group("median", "stddev", "p99", "samples")
                                     for m in shaped(proc.stdout, "timing")
                                     if m["name"] == scenario]
        result, = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
        assert rval(result, "scenario") == scenario
        for key, value in (("median", median), ("stddev", stddev), ("p99", p99),
                           ("samples", n)):
            assert rval(result, key) == value
        assert doc["benchmark"] == f"xdp-lb-{scenario}" and doc["errors"]["total"] == 0
        assert (doc["params"]["trigger"], doc["params"]["loop"]) == ("xdp", "can_loop")


def test_the_scenarios_work_as_theirs(loads, tmp_path):
    """Interleaved pairs, wide margins: a packet that misses the table and
    evicts to insert its flow costs several of one that hits (6x here), and
    one dropped on its IPv4 header a small part of one (1/10 here)."""
    hit = [figure("tcp-v4-lru-hit", tmp_path)]
    miss = figure("tcp-v4-lru-miss", tmp_path)
    hit.append(figure("tcp-v4-lru-hit", tmp_path))
    frag = figure("drop-v4-frag", tmp_path)
    hit.append(figure("tcp-v4-lru-hit", tmp_path))
    assert miss > 2 * max(hit)
    assert frag < min(hit) / 3


def test_list_scenarios_is_the_kernels_list():
    proc = run_bench("xdp-lb", "--list-scenarios")
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[0] == "Available scenarios:"
    assert [x[2:22].rstrip() for x in lines[1:]] == SCENARIOS
    assert all(re.fullmatch(r"  \S+ +  \S.*", x) for x in lines[1:])


@pytest.mark.parametrize("args,needle", [
    (["xdp-lb", "--scenario", "tcp-v5"], "./bench xdp-lb --list-scenarios lists them"),
    (["htab-lookup", "--list-scenarios"], "htab-lookup has no scenarios"),
    (["--list-scenarios"], "./bench xdp-lb --list-scenarios"),
    (["xdp-lb", "--trigger", "raw_tp"], "drop --trigger and --loop"),
    (["xdp-lb", "--max-entries", "8"], "drop the map options"),
])
def test_bad_input_is_one_line_and_exit_1(args, needle):
    proc = run_bench(*args, "--dry-run")
    assert_usage_error(proc, needle)


def test_zero_seed_reaches_every_connection_table(loads, tmp_path):
    """vmrun's icount clock adds --zero-seed: the tables made for each CPU
    must carry it as the array's inner map does, or the array refuses them."""
    proc, doc = run_scenario("tcp-v4-lru-hit", tmp_path, "--zero-seed")
    assert proc.returncode == 0, proc.stderr
    assert doc["params"]["zero_seed"] is True and doc["params"]["map_flags"] & 0x40
