"""Boots as LAVA jobs (mapbench/lab): the job texts (golden files, and LAVA's
own schema), results read back from job logs recorded from real lava-run
jobs, the guest's test-case reporting under busybox, and every error path
of a server (a stand-in for its REST API: tests/scripts/fake_lava.py).
The real dispatcher and a real server with two workers: test_lab_slow.py.

Golden files: MAPBENCH_GOLDEN=write rewrites them from the code."""
import argparse
import json
import os
import signal
import subprocess
import threading
import time

import pytest

from conftest import ROOT, run_script
from fake_lava import FakeLava

from mapbench.commands import vmrun as vmrun_command
from mapbench.guest import boot, files, initramfs, options, qemu
from mapbench.lab import engine, guest as lab_guest, job as lavajob, joblog, server as lavaserver
from mapbench.model import InputError

FIXTURES = ROOT / "tests" / "fixtures" / "lava"
# what the recorded jobs ran (tests/fixtures/lava/lava-run*.jsonl)
RECORDED = [("htab-lookup,max-entries=1K", ["htab-lookup", "--max-entries", "1K"]),
            ("htab-mem", ["htab-mem"])]


def recorded(name):
    lines = (FIXTURES / name).read_text().splitlines()
    return [r for r in map(joblog.record, lines) if r is not None]


@pytest.fixture
def kernel_image(tmp_path):
    """A file vmrun takes for a bzImage (the boot protocol's header), never booted."""
    image = tmp_path / "bzImage"
    image.write_bytes(b"\0" * 0x202 + b"HdrS" + b"\0" * 64)
    return image


def lab_plan(label, image, *extra):
    args = vmrun_command.parse_args(["--kernel", str(image), "--label", label.name,
                                     "-d", "1", "-w", "0", "--warmup-runs", "0", *extra,
                                     "--", "htab-lookup"])
    plan = files.Plan(args, [image], [label.name], RECORDED)
    plan.clock = "icount"
    todo, _ = initramfs.job_script(RECORDED, 0, 1, 0, 1)
    return plan, todo


def golden(name, text):
    path = FIXTURES / name
    if os.environ.get("MAPBENCH_GOLDEN") == "write":
        path.write_text(text)
    assert text == path.read_text(), f"{name} changed: MAPBENCH_GOLDEN=write rewrites it"


def test_job_texts_are_unchanged_and_lava_takes_them(kernel_image):
    # a set's name of its own (the job's name says it); nothing is written
    plan, todo = lab_plan(ROOT / "results" / "lab-golden", kernel_image, "--smp", "2",
                          "--boots", "2")
    kernel, ramdisk = "file:///srv/k/bzImage", "file:///srv/r/initramfs.cpio.gz"
    qemu_job = engine.boot_job(plan, 1, "tcg", kernel, ramdisk, todo, None)
    plan.clock = "host"     # a physical box's
    ipxe_job = engine.boot_job(plan, 1, "bare-metal", "http://lab/k", "http://lab/r", todo,
                               None, "x86")
    golden("qemu-job.yaml", lavajob.text(qemu_job))
    golden("ipxe-job.yaml", lavajob.text(ipxe_job))
    assert lavajob.check(qemu_job) is None and lavajob.check(ipxe_job) is None
    # the local boot's machine, clock and command line (quiet: LAVA waits for
    # the guest's first line, not the kernel's banner)
    extra = qemu_job["context"]["extra_options"]
    assert "-icount shift=0,align=off,sleep=off" in extra and "-smp 2" in extra
    assert qemu_job["actions"][0]["deploy"]["images"]["kernel"]["image_arg"] == \
        f'-kernel {{kernel}} -append "{qemu.kernel_cmdline("icount")}"'
    assert qemu_job["context"]["kernel_start_message"] == "MAPBENCH-GUEST"
    # LAVA's schema is what judges: a job it would refuse is refused in one line
    ipxe_job["actions"][1]["boot"]["method"] = "pxe"
    assert "unknown action type" in lavajob.check(ipxe_job)


def test_a_recorded_job_log_brings_every_result_back(label, kernel_image):
    plan, todo = lab_plan(label, kernel_image, "--engine", "lava-run")
    vm = boot.vm_record(plan, 0, "tcg", None)
    progress = []
    seen, why = engine.read_job(plan, 0, recorded("lava-run.jsonl"), vm, progress.append)
    assert why is None and seen.guest == "7.2.13-mb-layout"
    assert engine.finish(plan, 0, seen, why, todo, "LAVA job 7") == 0
    docs = {cid: json.loads((label / cid / "run-1.json").read_text()) for cid, _ in RECORDED}
    # the worker's QEMU, not this machine's
    assert docs["htab-mem"]["environment"]["vm"]["qemu_version"] == "1:7.2+dfsg-7+deb12u18+b3"
    # each figure is also the LAVA test case the guest reported, read from the
    # result by the guest's own awk: the two readings agree
    signals = [dict(w.split("=", 1) for w in r["msg"].strip("<>").split()[1:])
               for r in recorded("lava-run.jsonl")
               if r["lvl"] == "target" and "LAVA_SIGNAL_TESTCASE" in str(r["msg"])]
    cases = {c["TEST_CASE_ID"]: float(c["MEASUREMENT"]) for c in signals}
    for i, (cid, _) in enumerate(RECORDED):
        assert cases[initramfs.case_name(RECORDED, f"{i}:r0")] == \
            docs[cid]["summary"]["figure"]["mean"]
    assert any("htab-lookup,max-entries=1K run 1: 6.119 M ops/s" in p for p in progress)


def test_a_file_mangled_on_the_way_brings_no_result(label, kernel_image):
    plan, todo = lab_plan(label, kernel_image, "--engine", "lava-run")
    records = recorded("lava-run.jsonl")
    first = next(i for i, r in enumerate(records) if "MAPBENCH-B64 0:r0" in str(r["msg"]))
    records[first + 3] = dict(records[first + 3], msg=records[first + 3]["msg"][:-4] + "AAAA")
    vm = boot.vm_record(plan, 0, "tcg", None)
    progress = []
    seen, why = engine.read_job(plan, 0, records, vm, progress.append)
    # one run failed (its file did not decode to its size), the other came back
    assert engine.finish(plan, 0, seen, why, todo, "LAVA job 7") == 1
    assert not (label / RECORDED[0][0]).exists() and (label / "htab-mem" / "run-1.json").exists()
    assert any("exit 0, no result came back" in p for p in progress)


def test_a_job_that_never_reached_the_guest_says_lavas_reason(label, kernel_image):
    plan, todo = lab_plan(label, kernel_image, "--engine", "lava-run")
    vm = boot.vm_record(plan, 0, "tcg", None)
    seen, why = engine.read_job(plan, 0, recorded("lava-run-incomplete.jsonl"), vm, print)
    with pytest.raises(InputError) as refused:
        engine.finish(plan, 0, seen, why, todo, "LAVA job 8")
    text = str(refused.value)
    assert refused.value.status == 2 and "\n" not in text
    assert "LAVA job 8 did not reach the benchmark (Infrastructure: Connection closed" in text
    assert "qemu: linux kernel too old to load a ram disk" in text


def guest_figure(tmp_path, result, rc, case="htab-lookup.run-1"):
    """What the guest's figure() hands lava-test-case, under busybox sh."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "lava-test-case").write_text('#!/bin/busybox sh\necho "$@"\n')
    (bin_dir / "lava-test-case").chmod(0o755)
    (bin_dir / "awk").symlink_to(initramfs.BUSYBOX) if not (bin_dir / "awk").exists() else None
    (tmp_path / "r.json").write_text(result)
    script = lab_guest.REPORT + f'figure {case} {rc} {tmp_path / "r.json"}\n'
    proc = subprocess.run([str(initramfs.BUSYBOX), "sh", "-c", script], capture_output=True,
                          text=True, env={"PATH": f"{bin_dir}:/nonexistent"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_the_guest_reports_each_runs_figure_as_a_test_case(tmp_path):
    files_sent = joblog.Files()
    for r in recorded("lava-run.jsonl"):
        for line in joblog.console_lines(r):
            files_sent.take(line)
    text = files_sent()["0:r0"].decode()
    figure = json.loads(text)["summary"]["figure"]
    said = guest_figure(tmp_path, text, 0).split()
    assert said[:3] == ["htab-lookup.run-1", "--result", "pass"]
    assert float(said[said.index("--measurement") + 1]) == figure["mean"]
    assert said[said.index("--units") + 1] == figure["unit"].replace(" ", "")
    assert guest_figure(tmp_path, text, 2) == "htab-lookup.run-1 --result skip"
    assert guest_figure(tmp_path, text, 3) == "htab-lookup.run-1 --result fail"
    assert guest_figure(tmp_path, text, 0, case="-") == ""          # a warmup
    # a result with no summary figure passes without a measurement
    assert guest_figure(tmp_path, '{\n "summary": {\n  "ops": 3\n }\n}\n', 0) == \
        "htab-lookup.run-1 --result pass"


@pytest.fixture
def fake_lava():
    lab = FakeLava(log_records=recorded("lava-run.jsonl"))
    yield lab
    lab.close()


def server_plan(label, image, lab, *extra):
    plan, todo = lab_plan(label, image, "--engine", "lava", "--lava-url", lab.url,
                          "--lava-token", "good", "--lava-poll", "0.01", *extra)
    return plan, todo


def test_a_servers_job_lands_as_a_local_boots_result(label, kernel_image, fake_lava, tmp_path):
    plan, todo = server_plan(label, kernel_image, fake_lava)
    initrd = tmp_path / "initramfs.cpio.gz"
    initrd.write_bytes(b"rd")
    progress = []
    run_one = engine.boot_one(plan, "tcg", initrd, todo, tmp_path, progress.append)
    assert run_one(0) == 0
    lab = json.loads((label / "htab-mem" / "run-1.json").read_text())["environment"]["vm"]["lab"]
    assert lab == {"engine": "lava", "server": fake_lava.url, "job_id": 1,
                   "url": fake_lava.url + "scheduler/job/1", "device": "qemu-2",
                   "device_type": "qemu", "worker": "worker-qemu-2", "health": "Complete",
                   "job_name": "mapbench " + label.name + " boot 1/1 (2 configurations)"}
    # progress per job: queued, running, complete; one job, two devices
    assert f"LAVA server {fake_lava.url} as tester: 1 job on 2 qemu devices" in progress
    said = [p.split(": ", 1)[1] for p in progress if "LAVA job 1" in p]
    assert said == ["LAVA job 1 submitted (" + fake_lava.url + "scheduler/job/1)",
                    "LAVA job 1 queued", "LAVA job 1 running on qemu-2",
                    "LAVA job 1 complete on qemu-2"], progress
    # the boot's files as the worker fetches them (file:// on one machine)
    assert f"url: file://{initrd.resolve()}" in fake_lava.definitions[0]


def test_a_publish_directory_serves_the_files_at_its_url(tmp_path):
    kernel = tmp_path / "bzImage"
    kernel.write_bytes(b"kernel")
    where = engine.Artifacts(tmp_path / "pub", "http://lab.example/mb")
    url = where.url(kernel)
    assert url.startswith("http://lab.example/mb/") and url.endswith("-bzImage")
    assert (tmp_path / "pub" / url.rsplit("/", 1)[1]).read_bytes() == b"kernel"
    assert where.url(kernel) == url and len(list((tmp_path / "pub").iterdir())) == 1


def test_an_incomplete_job_is_a_failed_boot_with_lavas_reason(label, kernel_image, tmp_path):
    lab = FakeLava(log_records=recorded("lava-run-incomplete.jsonl"),
                   steps=[("Running", "Unknown"), ("Finished", "Incomplete")])
    try:
        plan, todo = server_plan(label, kernel_image, lab)
        run_one = engine.boot_one(plan, "tcg", kernel_image, todo, tmp_path, lambda _: None)
        with pytest.raises(InputError) as refused:
            run_one(0)
    finally:
        lab.close()
    assert "LAVA job 1 did not reach the benchmark (job Incomplete: Infrastructure: " \
           "Connection closed" in str(refused.value)


@pytest.mark.parametrize("url, token, status, says", [
    ("http://127.0.0.1:1/", "good", 4, "cannot reach the LAVA server at http://127.0.0.1:1/"),
    (None, "bad", 4, "refused the token (Invalid token.)"),
    (None, None, 4, "no token for the LAVA server"),
])
def test_a_server_that_cannot_be_used_is_one_line(fake_lava, url, token, status, says):
    with pytest.raises(InputError) as refused:
        lavaserver.Server(url or fake_lava.url, token, timeout=5).check_token()
    assert refused.value.status == status and says in str(refused.value)
    assert "\n" not in str(refused.value)


def test_a_job_the_server_refuses_is_bad_input(label, kernel_image, tmp_path):
    lab = FakeLava(refuse_job="Problem with submitted job data: no device of type qemu")
    try:
        plan, todo = server_plan(label, kernel_image, lab)
        with pytest.raises(InputError) as refused:
            engine.boot_one(plan, "tcg", kernel_image, todo, tmp_path, print)(0)
    finally:
        lab.close()
    assert refused.value.status == 2
    assert "refused the job: Problem with submitted job data: no device" in str(refused.value)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_cancels_every_job_it_submitted(label, kernel_image, tmp_path, signum):
    """Ctrl-C, or the SIGTERM of a CI job's timeout."""
    lab = FakeLava(steps=[("Submitted", "Unknown"), ("Running", "Unknown")])    # never ends
    running = []        # the threads following a running job
    # SIGINT as a terminal's Ctrl-C delivers it: a runner started as a shell's
    # background job inherits it ignored, and Python then keeps ignoring it
    launched_with = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        plan, todo = server_plan(label, kernel_image, lab, "--boots", "3")
        run_one = engine.boot_one(plan, "tcg", kernel_image, todo, tmp_path,
                                  lambda text: "running" in text and
                                  running.append(threading.get_ident()))

        def ctrl_c():
            """Ctrl-C as it may land: on a boot's thread, not the main one."""
            while not running or len(lab.jobs) < 3:
                time.sleep(0.05)
            signal.pthread_kill(running[0], signum)
        threading.Thread(target=ctrl_c, daemon=True).start()
        # had the main thread missed it, the jobs' failing would wake it at 60 s
        watchdog = threading.Timer(60, lab.close)
        watchdog.start()
        start = time.monotonic()
        with pytest.raises(boot.Interrupted):
            boot.run_boots(plan, len(plan.boots), run_one, lambda _: None)
        waited = time.monotonic() - start
        watchdog.cancel()
    finally:
        lab.close()
        signal.signal(signal.SIGINT, launched_with)
    assert sorted(lab.cancelled) == [1, 2, 3]
    assert waited < 30, f"Ctrl-C on a boot's thread was seen after {waited:.0f} s"


@pytest.mark.parametrize("args, status, says", [
    (["--engine", "lava"], 64, "--engine lava needs the server: --lava-url"),
    (["--lava-url", "http://x/"], 64, "--lava-url goes with --engine lava"),
    (["--engine", "lava", "--lava-url", "http://x/", "--lava-publish", "/tmp"], 64,
     "--lava-publish DIR and --lava-publish-url URL go together"),
    (["--engine", "lava-run", "--model", "zen4"], 2, "--engine lava-run does not bring back"),
])
def test_lab_options_refused_in_one_line(kernel_image, args, status, says):
    proc = run_script("vmrun", "--kernel", kernel_image, *args, "--", "htab-lookup")
    assert proc.returncode == status, proc.stdout + proc.stderr
    assert says in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_no_dispatcher_is_one_line(monkeypatch):
    from mapbench.lab import dispatcher
    monkeypatch.setattr(dispatcher, "LAVA_RUN", "lava-run-not-installed")
    with pytest.raises(InputError) as refused:
        dispatcher.ready()
    assert refused.value.status == 2 and "apt-get install --no-install-recommends " \
        "lava-dispatcher" in str(refused.value)


def test_ab_hands_the_lab_options_on_and_never_prints_the_token():
    parser = argparse.ArgumentParser()
    options.add(parser, boots=2)
    given = parser.parse_args(["--engine", "lava", "--lava-url", "http://lab/",
                               "--lava-token", "s3cret"])
    argv = options.passed_on(given)
    assert argv[argv.index("--engine") + 1] == "lava" and "s3cret" in argv
    assert vmrun_command.parse_args(["--kernel", "k", *argv, "--", "htab-lookup"]).lava_token == \
        "s3cret"
    assert "s3cret" not in " ".join(options.shown(argv)) and "--lava-token ***" in \
        " ".join(options.shown(argv))


def test_a_server_needs_no_qemu_here(kernel_image, monkeypatch):
    monkeypatch.setattr(qemu, "QEMU", "qemu-not-installed")
    assert qemu.qemu_version() == "unknown"
    args = vmrun_command.parse_args(["--kernel", str(kernel_image), "--engine", "lava",
                                     "--lava-url", "http://lab/", "--", "htab-lookup"])
    vmrun_command.check_inputs(args)        # no QEMU here: the workers have theirs
    args.engine = "local"
    with pytest.raises(SystemExit):
        vmrun_command.check_inputs(args)


@pytest.mark.parametrize("devices, says", [
    ({}, "has no qemu device that is healthy on a worker online"),
    ({"qemu-1": ("Bad", "w1", True)}, "has no qemu device that is healthy"),
    ({"qemu-1": ("Good", "w1", False)}, "on a worker online"),
])
def test_a_lab_that_cannot_take_the_jobs_says_so_before_anything_runs(devices, says):
    lab = FakeLava(devices=devices)
    try:
        with pytest.raises(InputError) as refused:
            engine.preflight(argparse.Namespace(lava_url=lab.url, lava_token="good",
                                                lava_device_type="qemu"))
        assert refused.value.status == 4 and says in str(refused.value), refused.value
        with pytest.raises(InputError) as refused:
            engine.preflight(argparse.Namespace(lava_url=lab.url, lava_token="good",
                                                lava_device_type="x86"))
        assert "has no device type x86 (it has qemu)" in str(refused.value)
    finally:
        lab.close()


def test_ab_checks_the_lab_before_it_builds(fake_lava, monkeypatch, tmp_path):
    """A wrong token used to fail after both builds (21 minutes on a fresh
    tree), leaving a build folder behind."""
    from mapbench.commands import ab
    steps = []
    monkeypatch.setattr(ab, "step", lambda *a, **k: steps.append(a))
    proc = run_script("ab", "--src", "/tmp", "--label", str(tmp_path / "set"), "--engine", "lava",
                      "--lava-url", fake_lava.url, "--lava-token", "bad", "--", "htab-lookup")
    assert proc.returncode == 4 and "refused the token" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and steps == []
    monkeypatch.setenv("MAPBENCH_LAVA_URL", fake_lava.url)
    proc = run_script("ab", "--src", "/tmp", "--label", str(tmp_path / "set"), "--engine", "lava",
                      "--lava-token", "bad", "--", "htab-lookup")
    assert proc.returncode == 4 and fake_lava.url in proc.stderr, proc.stderr


def test_a_job_cancelled_in_the_queue_is_said_cancelled(label, kernel_image, tmp_path):
    lab = FakeLava(log_records=recorded("lava-run.jsonl"),
                   steps=[("Submitted", "Unknown"), ("Finished", "Canceled")])
    try:
        plan, todo = server_plan(label, kernel_image, lab)
        progress = []
        engine.boot_one(plan, "tcg", kernel_image, todo, tmp_path, progress.append)(0)
    finally:
        lab.close()
    said = [p.split(": ", 1)[1] for p in progress if "LAVA job 1" in p]
    assert said[-1].startswith("LAVA job 1 cancelled"), progress


def test_a_lab_folder_without_a_lab_is_one_line(tmp_path):
    for verb in ("status", "down"):
        proc = run_script("lab", verb, "--dir", tmp_path / "none")
        assert proc.returncode == 2 and "no lab in" in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("mine")
    proc = run_script("lab", "up", "--dir", tmp_path / "full")
    assert proc.returncode == 2 and "is not empty" in proc.stderr, proc.stderr
    assert (tmp_path / "full" / "keep.txt").read_text() == "mine"


def test_down_stops_what_up_recorded_and_nothing_else(tmp_path):
    """By pid and start time: a process that took a recorded pid later (here:
    one whose start time differs) is not the lab's, and lives on."""
    from mapbench.lab import local
    ours = subprocess.Popen(["sleep", "300"], start_new_session=True)
    other = subprocess.Popen(["sleep", "300"], start_new_session=True)
    folder = tmp_path / "lab"
    folder.mkdir()
    (folder / local.RECORD).write_text(json.dumps({
        "postgres": str(folder / "postgres"),
        "processes": [{"name": "server", "pid": ours.pid, "started": local.started(ours.pid)},
                      {"name": "worker-1", "pid": other.pid,
                       "started": local.started(other.pid) + 1}]}))
    try:
        proc = run_script("lab", "down", "--dir", folder)
        assert proc.returncode == 0 and "stopped server;" in proc.stdout, proc.stdout
        assert ours.wait(timeout=10) == -signal.SIGTERM
        assert other.poll() is None and not folder.exists()
    finally:
        for p in (ours, other):
            p.kill()
            p.wait()
