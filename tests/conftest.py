"""Shared fixtures: the built ./bench, BPF object accounting, result loading."""
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BPFTOOL = shutil.which("bpftool") or "/usr/sbin/bpftool"
BENCH = ROOT / "bench"
SCHEMA = ROOT / "scripts" / "result-schema.json"

# Names of every map and program mapbench creates (the free benchmarks' maps
# are mbf<pid> and mbp<pid>); anything left with these names after a run is a leak.
OUR_MAPS = {"target", "keys", "scratch", "tid2prod", "htab_bpf.bss", "htab_bpf.rodata",
            "lpm_bpf.bss", "lpm_bpf.rodata", "trie", "free_bpf.bss", "free_bpf.rodata", "starts"}
OUR_PROGS = {"xdp_for", "xdp_loop", "raw_tp_for", "raw_tp_loop", "fentry_for", "fentry_loop",
             "nic_for", "nic_loop", "wq_start", "wq_end", "free_entry", "free_exit"}


def script_module(name):
    """scripts/NAME (no .py suffix) imported as a module, for unit tests."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader(name, str(ROOT / "scripts" / name))
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long live proofs, run by make check-slow")


def bpf_objects():
    """Our maps, programs and links still loaded in the kernel."""
    def names(kind):
        out = subprocess.run([BPFTOOL, "-j", kind, "list"], capture_output=True, text=True,
                             check=True).stdout
        return [o.get("name", "") for o in json.loads(out or "[]")]
    maps = [n for n in names("map") if n in OUR_MAPS or n.startswith(("mbf", "mbp"))]
    progs = [n for n in names("prog") if n in OUR_PROGS]
    links = names("link")
    return maps, progs, len(links)


def settled_objects(expected, timeout=10.0):
    """bpf_objects() once it equals expected, or after timeout. Programs drop
    their maps after an RCU grace period, so a clean exit is seen a moment later."""
    deadline = time.monotonic() + timeout
    while True:
        now = bpf_objects()
        if now == expected or time.monotonic() > deadline:
            return now
        time.sleep(0.1)


def quiet_objects():
    """bpf_objects() once earlier runs' maps have been freed: none of ours."""
    return settled_objects(([], [], bpf_objects()[2]))


def run_bench(*args, timeout=120):
    return subprocess.run([str(BENCH), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def root():
    if os.geteuid() != 0:
        pytest.skip("integration test loads BPF programs: needs root (CI runs as root)")


@pytest.fixture
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text())
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture
def result(tmp_path, validator):
    """Run ./bench with --json and return (completed process, validated document)."""
    def go(*args):
        path = tmp_path / "r.json"
        proc = run_bench(*args, "--json", path)
        doc = json.loads(path.read_text()) if path.exists() else None
        if doc is not None:
            validator.validate(doc)
        return proc, doc
    return go


DEBIAN_KERNELS = ROOT / "build" / "kernel" / "debian"


def debian_kernel(pattern):
    """The newest Debian cloud kernel image matching pattern (apt-cache regex),
    downloaded with apt-get download once and cached under build/kernel/debian/."""
    DEBIAN_KERNELS.mkdir(parents=True, exist_ok=True)
    cached = sorted(k for k in DEBIAN_KERNELS.glob("*/boot/vmlinuz-*")
                    if re.search(pattern, k.parent.parent.name))
    if cached:
        return cached[-1]
    names = subprocess.run(["apt-cache", "search", "--names-only", pattern], capture_output=True,
                           text=True).stdout.split("\n")
    pkgs = sorted((line.split()[0] for line in names if line.strip()),
                  key=lambda p: [int(x) for x in re.findall(r"\d+", p)])
    if not pkgs:
        pytest.skip(f"no Debian package matches {pattern} (apt-get update?)")
    pkg = pkgs[-1]
    dl = DEBIAN_KERNELS / "download"
    shutil.rmtree(dl, ignore_errors=True)
    dl.mkdir()
    if subprocess.run(["apt-get", "download", pkg], cwd=dl, capture_output=True).returncode:
        pytest.skip(f"apt-get download {pkg} failed (no network?)")
    subprocess.run(["dpkg-deb", "-x", next(dl.glob("*.deb")), DEBIAN_KERNELS / pkg], check=True)
    shutil.rmtree(dl)
    return next((DEBIAN_KERNELS / pkg / "boot").glob("vmlinuz-*"))


@pytest.fixture(scope="session")
def debian_6_12():
    return debian_kernel(r"^linux-image-6\.12\..*cloud-amd64-unsigned$")


@pytest.fixture(scope="session")
def debian_6_1():
    return debian_kernel(r"^linux-image-6\.1\.0-.*cloud-amd64-unsigned$")
