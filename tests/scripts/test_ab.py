"""scripts/kbuild and scripts/ab: their input errors, and (slow) the end-to-end
proof: a kernel built from linux-source-6.12 with a patch that slows htab
lookups down is judged a regression; two builds of the same tree pass."""
import json
import re
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from conftest import ROOT

KBUILD, AB = ROOT / "scripts" / "kbuild", ROOT / "scripts" / "ab"
FIXTURES = ROOT / "tests" / "fixtures"
LINUX_SRC = Path("/usr/src/linux-source-6.12.tar.xz")


def script(path, *args, timeout=60):
    return subprocess.run(["/usr/bin/python3", str(path), *map(str, args)], capture_output=True,
                          text=True, timeout=timeout)


def one_line(proc, status, says):
    assert proc.returncode == status, proc.stdout + proc.stderr
    assert says in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.fixture
def fake_tree(tmp_path):
    """Just enough of a kernel tree for kbuild to accept it, and its copy removed after."""
    src = tmp_path / f"linux-{uuid.uuid4().hex[:8]}"
    (src / "kernel" / "bpf").mkdir(parents=True)
    (src / "Makefile").write_text("# not a real kernel\n")
    (src / "kernel" / "bpf" / "hashtab.c").write_text("int x;\n")
    yield src
    for copy in (ROOT / "build" / "kernel" / "tree").glob(f"{src.name}-*"):
        shutil.rmtree(copy)


@pytest.mark.parametrize("args, says", [
    (["--src", "/nonexistent", "--out", "/tmp/x"], "give a kernel tree or a source tarball"),
    (["--src", "/tmp", "--out", "/tmp/x"], "is not a kernel tree"),
    (["--src", "/tmp", "--out", "/tmp/x", "--patch", "/nonexistent.patch"], "no such file"),
    (["--src", "/tmp", "--out", "/tmp/x", "--from", "/tmp"], "not a kbuild build folder"),
])
def test_kbuild_bad_input_is_one_line(args, says):
    one_line(script(KBUILD, *args), 2, says)


def test_kbuild_refuses_a_patch_that_does_not_apply_and_leaves_the_tree_alone(fake_tree, tmp_path):
    proc = script(KBUILD, "--src", fake_tree, "--out", tmp_path / "out", "--patch",
                  FIXTURES / "htab-lookup-slower.patch")
    one_line(proc, 2, "does not apply")
    assert (fake_tree / "kernel" / "bpf" / "hashtab.c").read_text() == "int x;\n"


@pytest.mark.parametrize("args, status, says", [
    (["--src", "/tmp"], 64, "nothing to run"),
    (["--src", "/tmp", "--patch", "/nonexistent.patch", "--", "htab-lookup"], 2, "no such file"),
    (["--src", "/tmp", "--until-mde", "5", "--boots", "2", "--min-boots", "3", "--",
      "htab-lookup"], 64, "--min-boots"),
])
def test_ab_bad_input_is_one_line(args, status, says):
    one_line(script(AB, *args), status, says)


def ab(*args):
    label = f"test-ab-{uuid.uuid4().hex[:8]}"
    try:
        proc = script(AB, "--src", LINUX_SRC, "--label", label, "--accel", "tcg", "-w", 1,
                      "-d", 2, "--until-mde", 25, "--boots", 12,
                      "--policy", FIXTURES / "vm-gate-policy.json", *args,
                      "--", "htab-lookup", "--max-entries", "1K", timeout=3600)
        report = (ROOT / "results" / label / "report.txt").read_text() \
            if (ROOT / "results" / label / "report.txt").exists() else ""
        kernels = ROOT / "build" / "kernel" / "linux-source-6.12"
        builds = [json.loads((kernels / d / "kbuild.json").read_text()) for d in ("before", label)
                  if (kernels / d / "kbuild.json").exists()]
        return proc, report, builds
    finally:
        shutil.rmtree(ROOT / "results" / label, ignore_errors=True)
        for d in (ROOT / "build" / "kernel").glob(f"*/{label}"):
            shutil.rmtree(d)


needs_source = pytest.mark.skipif(not LINUX_SRC.exists(),
                                  reason="apt-get install linux-source-6.12 (make check-slow does)")


@pytest.mark.slow
@needs_source
def test_a_patch_that_slows_lookups_is_a_regression(root):
    proc, report, builds = ab("--patch", FIXTURES / "htab-lookup-slower.patch")
    print(proc.stdout[-3000:])
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr
    assert re.search(r"htab-lookup .*\| regression", proc.stdout)
    assert "Kernel before: 6.12.117-mb-before" in report
    assert re.search(r"Kernel after: 6\.12\.\d+-mb-test-ab-", report)
    delta = float(re.search(r"htab-lookup\s+\|[^|]+\|[^|]+\|\s*([-+\d.]+)%", report)[1])
    assert delta < -25
    # The patched kernel was built from the unpatched one: one config, one patch.
    assert len(builds) == 2 and builds[0]["config_sha256"] == builds[1]["config_sha256"]
    assert [p["path"] for p in builds[1]["patches"]] == [str(FIXTURES / "htab-lookup-slower.patch")]


@pytest.mark.slow
@needs_source
def test_two_builds_of_the_same_tree_pass(root):
    proc, report, builds = ab()
    print(proc.stdout[-3000:])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert "ab: pass" in proc.stdout
    assert len(builds) == 2 and not builds[1]["patches"]
    assert builds[0]["config_sha256"] == builds[1]["config_sha256"]
