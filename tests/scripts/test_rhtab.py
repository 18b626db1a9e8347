"""rhtab live (slow): a 7.2 kernel built from Debian's linux-source-7.2
(fetched once, cached under build/), booted under QEMU; the rhtab names and
htab benchmarks on rhtab run there, and a reduced rhtab-vs-htab matrix goes
through to seed 004's report."""
import json
import re
import shutil
import subprocess

import pytest

from conftest import ROOT

SCRIPTS = ROOT / "scripts"


def script(name, *args, timeout=3600):
    return subprocess.run(["/usr/bin/python3", str(SCRIPTS / name), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


LOOKUPS = [f"bpf-hashmap-lookup --map {m} --key-size 8 --max-entries {mx} --nr-entries {mx}"
           for m in ("htab", "rhtab") for mx in ("1K", "1M")]
OTHERS = [f"{b} --map {m}" for m in ("htab", "rhtab")
          for b in ("bpf-hashmap-full-update -a -p 2", "htab-mem --use-case overwrite -a -p 2")]
NAMES = ["bpf-rhashmap-lookup", "htab-lookup --map rhtab --max-entries 1K", "rhtab-mem -p 2 -a"]


@pytest.mark.slow
def test_rhtab_runs_in_a_7_2_guest_and_reports_seed_004(kernel_7_2, label, validator):
    proc = script("vmrun", "--kernel", kernel_7_2, "--label", label, "--accel", "tcg",
                  "--smp", "2", "--warmup-runs", "0", "-w", "0", "-d", "1",
                  *[x for b in NAMES + LOOKUPS + OTHERS for x in ("--bench", b)])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    docs = [json.loads(f.read_text()) for f in sorted(label.glob("*/run-1.json"))]
    assert len(docs) == len(NAMES + LOOKUPS + OTHERS)
    for doc in docs:
        validator.validate(doc)
        assert doc["status"] == "complete", (doc["benchmark"], doc.get("reason"))
        assert doc["environment"]["kernel_release"].startswith("7.2.")
    rhtab = [d for d in docs if d["params"]["map"] == "rhtab"]
    assert {d["params"]["map_type"] for d in rhtab} == {"BPF_MAP_TYPE_RHASH"}
    assert {d["benchmark"] for d in rhtab} >= {"bpf-rhashmap-lookup", "htab-lookup",
                                               "rhtab-mem-overwrite"}
    report = script("report", label, "--style", "rhtab")
    assert report.returncode == 0, report.stderr
    out = report.stdout
    assert re.search(r"^\s+8 \|\s+1K \|\s+1K \|", out, re.M), out
    assert re.search(r"^\s+8 \|\s+1M \|\s+1M \|", out, re.M), out
    assert "speedup (mean):" in out and "rhtab mem" in out and "SUMMARY" in out
    assert "kernel 7.2." in out and "TCG guest, icount clock" in out


@pytest.mark.slow
def test_the_kernel_bench_runs_beside_mapbench_in_the_guest(kernel_7_2, label):
    """vmrun --peer kernel: the 7.2 tree's own bench (static) in the guest,
    after each measured run, its output back as LABEL-kernel logs; report
    --peer sets both side by side. On the icount clock the two count the
    same program's instructions: the ratio is near 1 (measured 0.96-1.01)."""
    benches = ["-p 1 bpf-hashmap-lookup", "--nr_entries=10000 lpm-trie-lookup",
               "htab-mem --use-case overwrite -a -p 2"]
    proc = script("vmrun", "--kernel", kernel_7_2, "--label", label, "--accel", "tcg",
                  "--smp", 2, "--warmup-runs", 0, "-w", 1, "-d", 1, "--peer", "kernel",
                  "--kernel-src", "linux-source-7.2", *[a for b in benches for a in ("--bench", b)])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert proc.stdout.count(", kernel bench: kernel bench ") == 3, proc.stdout
    peer = label.with_name(label.name + "-kernel")
    try:
        assert len(list(peer.glob("*/run-1.log"))) == 3
        rep = script("report", label, "--peer", peer)
        assert rep.returncode == 0, rep.stderr
        rows = [line.split("|") for line in rep.stdout.splitlines() if line.count("|") == 4]
        ratios = {r[0].strip(): float(r[3]) for r in rows
                  if re.fullmatch(r"\s*\d+\.\d+\s*", r[3])}
        assert len(ratios) == 3, rep.stdout
        assert all(0.85 < v < 1.15 for v in ratios.values()), rep.stdout
        assert "Clock: icount" in rep.stdout
    finally:
        shutil.rmtree(peer, ignore_errors=True)
