"""Boots as LAVA jobs, end to end on this machine (make check-slow): a
lava-run job with no server gives vmrun's figures; a lab started by
scripts/lab up with two workers (two QEMU devices) runs an A/B of the 1%
patch to the same verdict and figures as a local A/B, with the lab's URL and
token from the environment up printed, runs jobs two at a time (one at a
time with one worker; the wall times are printed), and Ctrl-C cancels every
job; the history's store works on the lab's PostgreSQL; scripts/lab down
leaves nothing running."""
import json
import shutil
import signal
import subprocess
import time
from contextlib import contextmanager
from datetime import datetime

import pytest

from conftest import ROOT, script_process
from test_ab import FIXTURES, ab, needs_source, report_delta
from test_analysis import write_set
from test_clock import ICOUNT

from mapbench.lab import local

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (shutil.which("lava-run") and shutil.which("lava-worker")
                                      and shutil.which("lavacli")),
                                 reason="needs LAVA (make deps-lava; make check-slow does)")]

# A warmup run first, as by default: the first run after a boot shares the
# CPU with the kernel's boot-time work (Debian's 6.12: 55% of its wall time in
# the kernel, against 98% in the next run), and a LAVA boot reaches the test
# shell later than a local one reaches its job.
VMRUN = ["-d", "1", "-w", "0", "--warmup-runs", "1", "--accel", "tcg"]
BENCH = ["--", "htab-lookup", "--max-entries", "1K"]


def figures(label_dir):
    """{run file: (ns/op, figure)} of a set's measured runs."""
    out = {}
    for f in sorted(label_dir.glob("*/run-*.json")):
        s = json.loads(f.read_text())["summary"]
        out[f.relative_to(label_dir).as_posix()] = (s["latency_ns"]["mean"], s["figure"]["mean"])
    return out


def running():
    """The pids of QEMU, LAVA and PostgreSQL processes running now."""
    return set(subprocess.run(["pgrep", "-f", "qemu-system|lava-run|lava-worker|lava_server|"
                               "postgres"], capture_output=True, text=True).stdout.split())


@contextmanager
def lab_up(tmp_path, workers=2):
    """scripts/lab up in a folder of the test's under build/ (the postgres
    user must reach it), and down after: the Lab, with up's printout (the
    export line) and its time."""
    folder = ROOT / "build" / f"lab-{tmp_path.name}"
    start = time.monotonic()
    proc = script_process("lab", "up", "--workers", workers, "--dir", folder, timeout=600)
    took = time.monotonic() - start
    try:
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
        lab = local.Lab.of(folder)
        lab.printed, lab.took = proc.stdout, took
        yield lab
    finally:
        down = script_process("lab", "down", "--dir", folder, timeout=300)
        assert down.returncode == 0, down.stderr
        assert not folder.exists()


def test_a_lava_run_job_gives_a_local_boots_figures(root, debian_6_12, label):
    local, lab = label.with_name(label.name + "-local"), label.with_name(label.name + "-lab")
    try:
        for name, engine in ((local, "local"), (lab, "lava-run")):
            proc = script_process("vmrun", "--kernel", debian_6_12, "--label", name.name,
                                  "--engine", engine, *VMRUN, *BENCH, timeout=600)
            assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
        here, there = figures(local), figures(lab)
        print(f"local {here}\nlava-run {there}")
        assert here and list(here) == list(there), (here, there)
        for run in here:
            # icount: instructions per op, and ops per virtual second, agree
            # to well within the spread of boots
            assert abs(there[run][0] / here[run][0] - 1) < 1e-4, (here, there)
            assert abs(there[run][1] / here[run][1] - 1) < 1e-3, (here, there)
        doc = json.loads(next(lab.glob("*/run-1.json")).read_text())
        assert doc["environment"]["vm"]["lab"]["engine"] == "lava-run"
    finally:
        shutil.rmtree(local, ignore_errors=True)
        shutil.rmtree(lab, ignore_errors=True)


def when(stamp):
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def timing(jobs):
    """What the server says of its jobs: seconds run in all, first start to last end."""
    ran = sum((when(j["end_time"]) - when(j["start_time"])).total_seconds() for j in jobs)
    span = (max(when(j["end_time"]) for j in jobs) -
            min(when(j["start_time"]) for j in jobs)).total_seconds()
    return f"jobs ran {ran:.0f} s in all, {span:.0f} s from the first start to the last end"


def overlapping(jobs):
    """The most jobs that ran at once, from the server's start and end times."""
    times = sorted([(when(j["start_time"]), 1) for j in jobs] +
                   [(when(j["end_time"]), -1) for j in jobs])
    most = now = 0
    for _, step in times:
        now += step
        most = max(most, now)
    return most


@needs_source
def test_an_ab_through_a_lab_of_two_workers_is_the_local_ab(root, tmp_path, monkeypatch):
    """README's whole story: scripts/lab up --workers 2, the export line it
    prints, scripts/ab --engine lava, scripts/lab down."""
    before = running()
    here, local_texts, _, local_figures = ab("--patch",
                                             FIXTURES / "htab-lookup-one-percent.patch")
    assert here.returncode == 1, here.stdout[-3000:] + here.stderr
    with lab_up(tmp_path) as lava:
        export = next(x for x in lava.printed.splitlines() if x.startswith("export "))
        for pair in export.split()[1:]:
            name, value = pair.split("=", 1)
            monkeypatch.setenv(name, value)
        start = time.monotonic()
        lab, lab_texts, _, lab_figures = ab(
            "--patch", FIXTURES / "htab-lookup-one-percent.patch", "--engine", "lava",
            "--lava-poll", "2")
        lab_s = time.monotonic() - start
        jobs = lava.jobs()
        # the history's store on the lab's own PostgreSQL
        db = lava.record["databases"]["history"]
        folder = write_set(tmp_path / "set", "htab-lookup", [5.0, 5.0001], env=ICOUNT)
        assert script_process("history", "add", folder, "--commit", "c1", "--db", db,
                              timeout=120).returncode == 0
        assert "c1" in script_process("history", "list", "--db", db, timeout=120).stdout
    print(lab.stdout[-3000:])
    print(f"scripts/lab up --workers 2: {lava.took:.0f} s; ab through LAVA, two workers: "
          f"{lab_s:.0f} s")
    # the same verdict, and the same figures within icount's spread
    assert lab.returncode == 1, lab.stdout[-3000:] + lab.stderr
    assert "| REGRESSION" in lab.stdout
    assert abs(report_delta(lab_texts["report.txt"]) - report_delta(local_texts["report.txt"])) < 0.05
    for side in ("before", "after"):
        assert len(lab_figures[side]) == len(local_figures[side]) == 4
        for a, b in zip(lab_figures[side], local_figures[side]):
            assert abs(a / b - 1) < 1e-3, (lab_figures, local_figures)
    # 4 jobs on two devices: two at a time, on both, each Complete
    assert len(jobs) == 4 and {j["health"] for j in jobs} == {"Complete"}
    assert {j["actual_device"] for j in jobs} == {"qemu-1", "qemu-2"}
    assert overlapping(jobs) == 2
    assert not running() - before


def test_two_workers_run_jobs_two_at_a_time_one_one_and_ctrl_c_cancels_them(root, debian_6_12,
                                                                              label, tmp_path):
    before = running()
    sets = [label.with_name(label.name + s) for s in ("-a", "-b", "-c")]
    lab = ["--engine", "lava", "--lava-poll", "1"]
    try:
        with lab_up(tmp_path) as lava:
            # a physical box's job cannot run here: the server's own validation takes it
            bare_metal = (FIXTURES / "lava" / "ipxe-job.yaml").read_text()
            assert lava.api("jobs/validate/", {"definition": bare_metal, "strict": True}) == \
                {"message": "Job valid."}
            assert lava.api("jobs/validate/", {"definition": bare_metal.replace(
                "method: ipxe", "method: pxe"), "strict": True})["message"] != "Job valid."
            lab += ["--lava-url", lava.url, "--lava-token", lava.token]
            seen = 0
            for workers in (2, 1):
                if workers == 1:
                    lava.set_health("qemu-2", "MAINTENANCE")
                    local.wait(lambda: lava.api("devices/qemu-2/")["health"] == "Maintenance",
                               "qemu-2 in maintenance")
                start = time.monotonic()
                proc = script_process("vmrun", "--kernel", debian_6_12, "--kernel", debian_6_12,
                                      "--label", sets[0].name, "--label", sets[1].name,
                                      "--boots", "2", *lab, *VMRUN, *BENCH, timeout=1200)
                wall = time.monotonic() - start
                assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
                jobs = [j for j in lava.jobs() if j["id"] > seen]
                print(f"4 boots through LAVA, {workers} workers: {wall:.0f} s; {timing(jobs)}")
                assert len(jobs) == 4 and overlapping(jobs) == workers
                seen += 4

            # Ctrl-C while one job runs and two wait: every job it submitted is cancelled
            child = subprocess.Popen(
                ["/usr/bin/python3", str(ROOT / "scripts" / "vmrun"), "--kernel",
                 str(debian_6_12), "--label", sets[2].name, "--boots", "3", *lab, *VMRUN, *BENCH],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            local.wait(lambda: any(j["state"] == "Running" and j["id"] > seen
                                   for j in lava.jobs()), "a job to run")
            child.send_signal(signal.SIGINT)
            out, _ = child.communicate(timeout=120)
            assert child.returncode == 130, out
            local.wait(lambda: all(j["state"] == "Finished" for j in lava.jobs()), "cancels", 180)
            later = [j for j in lava.jobs() if j["id"] > seen]
            assert len(later) == 3 and {j["health"] for j in later} == {"Canceled"}, later
    finally:
        for s in sets:
            shutil.rmtree(s, ignore_errors=True)
    assert not running() - before
