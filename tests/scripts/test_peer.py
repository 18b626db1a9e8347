"""The kernel's own bench as a peer: scripts/kernel-bench builds it from a
kernel tree (map benchmarks only) and suite run --peer kernel runs it beside
mapbench; report --peer sets them side by side."""
import json
import shutil
import uuid
from pathlib import Path

import pytest

from conftest import ROOT, run_script, script_process

LINUX_SRC = Path("/usr/src/linux-source-6.12.tar.xz")


def script(name, *args):
    return run_script(name, *args)


@pytest.mark.parametrize("args, status, says", [
    (["--src", "/nonexistent"], 2, "give a kernel tree or a source tarball"),
    (["--src", "/tmp", "--btf", "/nonexistent"], 2, "--btf /nonexistent: no such file"),
    (["--src", "/tmp"], 2, "is not a kernel tree"),
])
def test_kernel_bench_bad_input_is_one_line(args, status, says):
    proc = script("kernel-bench", *args)
    assert proc.returncode == status, proc.stdout + proc.stderr
    assert says in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_peer_needs_its_source():
    proc = script("suite", "run", "quick", "--label", "x", "--peer", "kernel")
    assert proc.returncode == 64 and "--kernel-src" in proc.stderr, proc.stderr


@pytest.mark.slow
@pytest.mark.skipif(not LINUX_SRC.exists(), reason="apt-get install linux-source-6.12")
def test_suite_runs_the_kernel_bench_beside_mapbench(root, tmp_path):
    built = script_process("kernel-bench", "--src", LINUX_SRC, timeout=1800)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr
    line = next(x for x in built.stdout.splitlines() if x.startswith("built: "))
    assert {"htab_mem", "bpf_hashmap_lookup", "bpf_hashmap_full_update",
            "bloom_filter_map"} <= set(line[7:].split(", ")), line
    suite = tmp_path / "peer.json"
    suite.write_text(json.dumps({"description": "peer", "runs": 2, "warmup": 1, "duration": 1,
                                 "configs": [{"id": "overwrite", "args": [
                                     "htab-mem", "--use-case", "overwrite", "-a", "-p", "2"]}]}))
    label = ROOT / "results" / f"test-peer-{uuid.uuid4().hex[:8]}"
    try:
        run = script_process("suite", "run", suite, "--label", label, "--peer", "kernel",
                             "--kernel-src", LINUX_SRC, timeout=600)
        assert run.returncode == 0, run.stdout + run.stderr
        assert run.stdout.count("kernel bench ") == 2, run.stdout
        logs = sorted((label.with_name(label.name + "-kernel") / "overwrite").glob("run-*.log"))
        assert len(logs) == 2 and "Summary: per-prod-op" in logs[0].read_text()
        rep = script("report", label, "--peer", label.with_name(label.name + "-kernel"))
        assert rep.returncode == 0, rep.stderr
        row = next(line for line in rep.stdout.splitlines() if line.startswith("overwrite"))
        ratio = float(row.split("|")[3])
        assert 0.2 < ratio < 5, row          # the same workload, not a different program
        assert "agree within" in rep.stdout
    finally:
        shutil.rmtree(label, ignore_errors=True)
        shutil.rmtree(label.with_name(label.name + "-kernel"), ignore_errors=True)
