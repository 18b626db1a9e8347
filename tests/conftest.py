"""Shared fixtures: the built ./bench, BPF object accounting, result loading."""
import glob
import importlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BPFTOOL = shutil.which("bpftool") or "/usr/sbin/bpftool"
BENCH = ROOT / "bench"
SCHEMA = ROOT / "scripts" / "result-schema.json"


def run_script(name, *args):
    """scripts/NAME ARGS run in this process, as its entry point runs it
    (mapbench.cli.run): a CompletedProcess with its exit status and what it
    printed. scipy is imported once, not once per call; output of
    processes the command starts is not captured."""
    from mapbench import cli
    command = importlib.import_module(f"mapbench.commands.{name.replace('-', '_')}")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = cli.run(command.main, [str(a) for a in args], name)
    return subprocess.CompletedProcess([name, *args], status, out.getvalue(), err.getvalue())


def start_until(args, needle, stderr=subprocess.DEVNULL):
    """./bench args started, once a line of its output contains needle (or
    at once for needle None): a point of the run, not a guessed sleep. The
    lines read on the way are in proc.seen."""
    proc = subprocess.Popen([str(BENCH), *args], stdout=subprocess.PIPE, stderr=stderr,
                            text=True)
    proc.seen = ""
    while needle is not None:
        line = proc.stdout.readline()
        assert line, f"{args} ended before printing {needle!r}"
        proc.seen += line
        if needle in line:
            break
    return proc


def script_process(name, *args, timeout):
    """scripts/NAME ARGS as a process of its own: for long runs that boot
    guests or run benchmarks, with everything they and their children print."""
    return subprocess.run(["/usr/bin/python3", str(ROOT / "scripts" / name), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


KINDS = ("map", "prog", "link")


def _listed(kind):
    out = subprocess.run([BPFTOOL, "-j", kind, "list"], capture_output=True, text=True,
                         check=True).stdout
    return {o["id"]: o for o in json.loads(out or "[]")}


def bpf_snapshot():
    """The ids of every BPF map, program and link in the kernel now."""
    return {kind: set(_listed(kind)) for kind in KINDS}


def _held(now):
    """Ids some live process holds a file descriptor of, with the programs
    its links hold and the maps its programs use."""
    held = {kind: set() for kind in KINDS}
    for info in glob.glob("/proc/[0-9]*/fdinfo/*"):
        try:
            text = open(info).read()
        except OSError:
            continue
        for kind in KINDS:
            m = re.search(rf"^{kind}_id:\s*(\d+)", text, re.M)
            if m:
                held[kind].add(int(m[1]))
    held["prog"] |= {lk.get("prog_id") for i, lk in now["link"].items() if i in held["link"]}
    for i, prog in now["prog"].items():
        if i in held["prog"]:
            held["map"] |= set(prog.get("map_ids", []))
    return held


def left_behind(before):
    """Objects created since the snapshot that no live process holds: what our
    runs left in the kernel. Objects of other processes (another checkout's
    tests, a user's run) are held by them, so they do not count."""
    now = {kind: _listed(kind) for kind in KINDS}
    held = _held(now)
    return sorted(f"{kind} {i} {now[kind][i].get('name', '')}" for kind in KINDS
                  for i in now[kind] if i not in before[kind] and i not in held[kind])


def leaks(before, timeout=15.0, expected=()):
    """left_behind() once it is what is expected (nothing, by default), or
    what is left after timeout: programs drop their maps after an RCU grace
    period, libbpf's feature probes free theirs the same way, and a large map
    is freed from a workqueue seconds after its process exits."""
    deadline = time.monotonic() + timeout
    while True:
        left = left_behind(before)
        if [x.split()[-1] for x in left] == list(expected) or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def sigint_default():
    """preexec_fn for a Python script the test interrupts: a test run from a
    background job inherits SIGINT ignored, and a Python child that starts
    with it ignored never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# ./bench timing for integration tests. What a run did (keys found, fields
# recorded): one second, no warmup. How fast it ran, against another run:
# two measured seconds after a warmup one.
QUICK = ["-w", "0", "-d", "1", "-q"]
SHORT = ["-w", "1", "-d", "2", "-q"]


def shaped(text, shape):
    """The lines of text that a kernel tool's line shape matches (kernel_log's,
    declared with the C that prints them), as match objects."""
    from mapbench.contracts import line_shapes
    return [m for line in text.splitlines() if (m := line_shapes()[shape].match(line))]


def run_bench(*args, timeout=120):
    return subprocess.run([str(BENCH), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def assert_usage_error(proc, needle):
    """Bad input: exit 1 and one line on stderr, mapbench's, that says needle."""
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mapbench: ") and needle in lines[0]


def pytest_collection_modifyitems(items):
    """A test that needs root runs ./bench on this kernel or boots a guest:
    marked live, which make test leaves to make check."""
    for item in items:
        if "root" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.live)


def is_live(item):
    return item.get_closest_marker("live") or item.get_closest_marker("slow")


# Root with no capabilities, for good: what a user without root is to BPF.
WITHOUT_CAPABILITIES = ["setpriv", "--securebits", "+noroot,+noroot_locked",
                        "--bounding-set", "-all", "--inh-caps", "-all"]


class _Unprivileged(subprocess.Popen):
    """subprocess.Popen for a test that is not live: ./bench runs without
    capabilities, so a test that loads BPF unmarked fails under make check
    as it would for a user without root, and a guest boot fails at once."""
    item = None

    def __init__(self, args, *rest, **kwargs):
        program = Path(str(args[0] if isinstance(args, (list, tuple)) else args).split()[0])
        if program.name.startswith("qemu-system") and "-kernel" in map(str, args):
            pytest.fail(f"{self.item.nodeid} boots a guest but is not marked live: take the root "
                        "fixture", pytrace=False)
        if program.resolve() == BENCH.resolve():
            self.item.user_properties.append(("ran ./bench", True))
            if os.geteuid() == 0:
                args = [*WITHOUT_CAPABILITIES, *map(str, args)]
        super().__init__(args, *rest, **kwargs)


@pytest.fixture(autouse=True)
def _tier(request, monkeypatch):
    """Tests are tiered by what they do: one that is not live runs ./bench
    without privileges and cannot boot a guest."""
    if not is_live(request.node):
        monkeypatch.setattr(_Unprivileged, "item", request.node)
        monkeypatch.setattr(subprocess, "Popen", _Unprivileged)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Why a test that is not live and ran ./bench may have failed."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and not is_live(item) and ("ran ./bench", True) in item.user_properties:
        report.sections.append(("tier", "./bench ran without capabilities: this test is not "
                                "marked live. A test that loads BPF takes the root fixture."))


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


def kbuild_kernel(version):
    """A kernel built from Debian's linux-source-VERSION (fetched and built
    once, cached under build/kernel/): its bzImage."""
    out = ROOT / "build" / "kernel" / f"linux-source-{version}" / "base"
    proc = subprocess.run(["/usr/bin/python3", str(ROOT / "scripts" / "kbuild"), "--src",
                           f"linux-source-{version}", "--out", str(out)],
                          capture_output=True, text=True, timeout=7200)
    if proc.returncode == 2 and "no Debian suite" in proc.stderr:
        pytest.skip(proc.stderr.strip())
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    return out / "bzImage"


@pytest.fixture(scope="session")
def kernel_7_2():
    """rhtab and the cache model's shapes need 7.2."""
    return kbuild_kernel("7.2")


@pytest.fixture(scope="session")
def kernel_7_3():
    """7.3's selftests bench has the timing library (bpf-nop, xdp-lb)."""
    return kbuild_kernel("7.3")


@pytest.fixture
def label():
    """results/test-XXXXXXXX, removed after the test."""
    name = f"test-{uuid.uuid4().hex[:8]}"
    yield ROOT / "results" / name
    shutil.rmtree(ROOT / "results" / name, ignore_errors=True)


@contextmanager
def postgres_cluster(db):
    """A PostgreSQL 15 server of the caller's own (a cluster in a temporary
    folder, as scripts/lab starts its own) with database DB; its URL.
    Stopped and removed afterwards."""
    from mapbench.lab import local
    if os.geteuid() != 0 or not (local.PG_BIN / "initdb").exists():
        pytest.skip("needs root and postgresql-15 (make deps)")
    tmp = Path(tempfile.mkdtemp(prefix="mapbench-pg-"))
    tmp.chmod(0o755)            # the postgres user goes through it to its cluster
    cluster = local.Postgres(tmp / "cluster", local.free_port())
    try:
        cluster.start([db])
        yield cluster.url(db)
    finally:
        cluster.stop()
        shutil.rmtree(tmp)
