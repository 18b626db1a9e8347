"""Run mapbench inside QEMU guests booted from kernel images, so that one
machine can measure several kernels (patched and unpatched) without a reboot.

  vmrun --kernel IMAGE [--label L] -- BENCH ARGS          one benchmark
  vmrun --kernel A --kernel B --boots 5 --suite quick     A,B,A,B,... boots
  vmrun --kernel A --bench "htab-lookup" --bench "lpm-trie-lookup" ...

Each boot runs every configuration once or more (--runs) after a warmup run
(--warmup-runs, default 1) that is kept, marked warmup, and left out of every
comparison (the first run after a boot is the slowest). Kernels alternate boot
by boot (--order random shuffles each round), so drift of the host lands on
none of them. Results go where host runs go: results/LABEL/CONFIG/run-N.json,
one label per kernel (default vm-NAME, NAME from the image's file or folder),
each with the guest's kernel identity and an environment.vm block (accelerator,
QEMU version, vCPUs, memory, boot numbers, image).

The guest is a busybox initramfs with a static ./bench (make build/bench.static);
results come back byte-exact over a second serial port. Every stage has a time
limit (--boot-timeout, --run-timeout). Ctrl-C stops QEMU and keeps every run
that finished.

-j N boots up to N guests at once (default: the host's CPUs) under the icount
clock, where a guest's figures do not depend on what else the host runs;
files are named by boot and run (run-N: N = runs before this vmrun + boot x
--runs + run), so the results are those of boots one at a time. On the host
clock guests would slow each other: boots run one at a time, and -j says so.

Accelerator (--accel): kvm where a short probe boot proves that KVM runs
stock kernels (bare metal), else tcg: emulation inflates compute 4-6x and cache
misses about 2.5x, so TCG numbers are for A/B at one configuration, never
hardware figures.

Clock (--clock, default auto: icount under TCG, host under KVM): icount makes
QEMU's instruction counter the guest's clock (-icount shift=0,align=off,
sleep=off: 1 ns of guest time = 1 executed instruction), so in-kernel ns/op
becomes instructions per op and the host's load never enters. Hash maps are
then created with --zero-seed (BPF_F_ZERO_SEED): a random hash seed per
map gives each run other bucket chains, which moved runs of one kernel by
up to 0.1% under icount. Its blind spot: every instruction costs the
same, so cache and memory effects do not show (a memory-saving patch needs
--clock host or KVM runs for its speed, and `mem` for its bytes). host is
the host's wall clock as the guest sees it (5-15% run-to-run under TCG).
The clock is recorded in each result's environment.vm.

--model NAME adds the cache model (plugin/, docs/vm.org): guests run on
QEMU 10 (fetched once from Debian bookworm-backports into build/qemu10/)
with a TCG plugin that simulates the data caches of a named machine (zen4,
skylake-sp) on every guest load and store, in the windows ./bench marks
(one per sample). Each result then carries a "model" block: instructions,
accesses and L1D/L2/LLC misses per op, and modelled cycles per op, exact and
repeatable like icount's, which stays the guest clock. Needs the icount clock.
--profile (implies --model zen4 unless a model is given) also attributes them
to the guest kernel's functions (its /proc/kallsyms, read once per boot; BPF
programs JITed during a run are one row), over the measured samples: the
block's "profile", and scripts/report's "Where" table.

--peer kernel --kernel-src SRC carries the kernel's own selftests bench
(scripts/kernel-bench, linked statically; vmlinux.h from --peer-btf, default
the vmlinux beside the first --kernel) into the guest: each measured run of
a configuration it has is followed by its run with the same arguments, the
output kept as results/LABEL-kernel/CONFIG/run-N.log for scripts/report
LABEL --peer LABEL-kernel. Guests allow the fentry the host refuses, so
bpf-hashmap-* and lpm-trie-* run there. --zero-seed is then not added
(the kernel's bench draws a random seed per map).

Exit status: 0 every run finished, 1 some runs failed or brought no result,
2 bad input (no such image, not a kernel, no QEMU, no BTF in the guest, a boot
that never reaches the benchmark), 3 tool error, 64 usage error, 130 interrupted.
"""
import argparse
import json
import os
import random
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from .. import cachemodel, cli, qemu10, results
from ..suites import (configurations, doc_figure_text, fmt_time, load_suite,
                      placeholders)
from ..peer import Peer, figure_text as peer_figure_text
from ..paths import ROOT

STATIC_BENCH = ROOT / "build" / "bench.static"
BUSYBOX = Path("/bin/busybox")
QEMU = "qemu-system-x86_64"
PROBE_CACHE = ROOT / "build" / "vm" / "accel-probe.json"
ICOUNT_SHIFT = 0     # 2^0 ns of guest time per instruction
# Under icount a boot is the same instruction stream every time once nothing
# reads the host: the RTC starts at a fixed date and follows the guest's clock,
# and KASLR (seeded from it) is off. Two boots then agree to the last
# instruction, cache model included, where they differed by up to 0.8% in the
# first second of a run and 0.1% in modelled L1D misses.
ICOUNT_RTC = ["-rtc", "base=2026-01-01T00:00:00,clock=vm"]
ICOUNT_NOTE = "icount clock: figures are virtual time, 1 ns = 1 instruction"
TCG_WARNING = ("warning: guests run under TCG emulation ({}): compare kernels with each other "
               "at one configuration; absolute numbers are not hardware numbers")

# The guest's /init: mount what BPF needs, then run the job and send each
# result file out on ttyS1 as "MAPBENCH-FILE NAME BYTES\n" + the bytes.
INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /tmp /mnt
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
# cgroup v2 with the memory controller for children: htab-mem's and mem's charges
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null && \
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
stty -F /dev/ttyS1 raw -echo
echo "MAPBENCH-GUEST $(uname -r) $(nproc)"
if [ ! -e /sys/kernel/btf/vmlinux ]; then echo MAPBENCH-NOBTF; poweroff -f; fi
run() {
	name=$1; shift
	echo "MAPBENCH-RUN $name"
	/bench -q --json /tmp/r.json "$@"
	rc=$?
	if [ -f /tmp/r.json ]; then
		printf '\nMAPBENCH-FILE %s %s\n' "$name" "$(wc -c < /tmp/r.json)" > /dev/ttyS1
		cat /tmp/r.json > /dev/ttyS1
		rm -f /tmp/r.json
	fi
	echo "MAPBENCH-RC $name $rc"
}
# --profile: the kernel's symbols, once per boot (KASLR is off under icount)
symbols() {
	printf '\nMAPBENCH-FILE kallsyms %s\n' "$(wc -c < /proc/kallsyms)" > /dev/ttyS1
	cat /proc/kallsyms > /dev/ttyS1
	echo MAPBENCH-SYMBOLS
}
# --peer kernel: the kernel's own tool (its command line given), its output sent back
peer() {
	name=$1; shift
	echo "MAPBENCH-RUN $name"
	"$@" > /tmp/k.log 2>&1
	rc=$?
	printf '\nMAPBENCH-FILE %s %s\n' "$name" "$(wc -c < /tmp/k.log)" > /dev/ttyS1
	cat /tmp/k.log > /dev/ttyS1
	echo "MAPBENCH-RC $name $rc"
}
. /job.sh
echo MAPBENCH-DONE
sleep 1
poweroff -f
"""


class Interrupted(Exception):
    pass


def fail(msg):
    cli.die(msg, cli.EXIT_INPUT)


def is_kernel_image(path):
    """An x86 bzImage carries "HdrS" at offset 0x202 (the boot protocol header)."""
    with open(path, "rb") as f:
        f.seek(0x202)
        return f.read(4) == b"HdrS"


def default_label(image):
    name = image.parent.name if image.name == "bzImage" else image.name
    return "vm-" + re.sub(r"[^A-Za-z0-9_.+-]+", "_", name)


def valued_options():
    """The ./bench options that take a value, every spelling (--producers, -p)."""
    proc = subprocess.run([str(STATIC_BENCH), "--list-options"], capture_output=True, text=True,
                          check=True)
    return {name for line in proc.stdout.splitlines() if " value" in line
            for name in line.split() if name.startswith("-")}


def config_id(argv, valued):
    """htab-lookup --max-entries 1K -a -> htab-lookup,max-entries=1K,a; valued:
    the options that take a value, so "-a htab-mem" is a flag and a benchmark."""
    out, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a in valued and i + 1 < len(argv):
            out.append(f"{a.lstrip('-')}={argv[i + 1]}")
            i += 2
        else:
            out.append(a.lstrip("-") if a.startswith("-") else a)
            i += 1
    return re.sub(r"[^A-Za-z0-9_.,=+-]+", "_", ",".join(out))


def job_script(configs, warmup_runs, runs, warmup_s, duration_s, extra=(), peer_cmds=None):
    """[(name, argv)] in boot order and the shell lines that run them (each
    with the extra ./bench options). peer_cmds: {configuration index: the
    kernel tool's command line}; a measured run of such a configuration is
    followed by the tool's run of it, named NAME:k."""
    peer_cmds = peer_cmds or {}
    todo = [(f"{i}:w{k}", argv) for k in range(warmup_runs) for i, (_, argv) in enumerate(configs)]
    for k in range(runs):
        for i, (_, argv) in enumerate(configs):
            todo.append((f"{i}:r{k}", argv))
            if i in peer_cmds:
                todo.append((f"{i}:r{k}:k", peer_cmds[i]))

    def line(name, argv):
        if is_peer(name):
            return f"peer {shlex.quote(name)} " + " ".join(map(shlex.quote, argv))
        return (f"run {shlex.quote(name)} -w {warmup_s} -d {duration_s} "
                + " ".join(shlex.quote(a) for a in [*extra, *argv]))
    return todo, "\n".join(line(name, argv) for name, argv in todo) + "\n"


def is_peer(name):
    return name.endswith(":k")


def make_initramfs(dest, job, peer=None):
    """A gzip'd newc cpio: /init, busybox, the static bench (and the
    kernel's tools: its bench as /kbench, /map_perf_test beside its BPF
    object) and the job."""
    with tempfile.TemporaryDirectory(prefix="mapbench-initramfs-") as d:
        root = Path(d)
        (root / "bin").mkdir()
        shutil.copy2(BUSYBOX, root / "bin" / "busybox")
        shutil.copy2(STATIC_BENCH, root / "bench")
        if peer:
            shutil.copy2(peer.binary, root / "kbench")
        if peer and peer.map_perf_test:
            shutil.copy2(peer.map_perf_test, root / "map_perf_test")
            shutil.copy2(peer.map_perf_test.with_suffix(".bpf.o"), root / "map_perf_test.bpf.o")
        (root / "init").write_text(INIT)
        (root / "init").chmod(0o755)
        (root / "job.sh").write_text(job)
        files = subprocess.run(["find", ".", "-mindepth", "1"], cwd=root, capture_output=True,
                               text=True, check=True).stdout
        cpio = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root, input=files.encode(),
                              capture_output=True, check=True).stdout
    dest.write_bytes(subprocess.run(["gzip", "-1"], input=cpio, capture_output=True,
                                    check=True).stdout)


# --topology: machines of many cores in one guest. An LLC domain is a QEMU
# die: QEMU 7.2's Intel models report L3 per die (CPUID leaf 4), while its
# EPYC models report one L3 per socket whatever the dies (measured), so the
# CCXs of an EPYC are drawn as dies of Skylake-Server. NUMA: one node per
# socket. Under one TCG thread the vCPUs take turns: a topology guest proves
# placement and behaviour, never scaling speed.
TOPOLOGIES = {
    # name: (sockets, LLC domains per socket, cores per LLC, threads per core)
    "epyc-2s-8ccx": (2, 4, 4, 2),     # 2 x 4 CCX x 4 cores, SMT 2: 64 CPUs
    "epyc-1s-2ccx": (1, 2, 2, 2),     # a small one: 8 CPUs, 2 CCX
    "xeon-2s-smt": (2, 1, 4, 2),      # 2 sockets, one L3 each: 16 CPUs
}
TOPOLOGY_CPU = "Skylake-Server"


def topology_cpus(name):
    sockets, llcs, cores, threads = TOPOLOGIES[name]
    return sockets * llcs * cores * threads


def topology_record(name):
    """What environment.vm.topology says of a named shape."""
    sockets, llcs, cores, threads = TOPOLOGIES[name]
    return {"name": name, "sockets": sockets, "llc_domains_per_socket": llcs,
            "cores_per_llc": cores, "threads_per_core": threads, "numa_nodes": sockets,
            "cpus": topology_cpus(name), "qemu_cpu": TOPOLOGY_CPU}


def topology_argv(name, mem_mib):
    """QEMU's -smp and NUMA options for a named shape (the CPU model apart:
    KVM keeps the host's)."""
    sockets, llcs, cores, threads = TOPOLOGIES[name]
    per_node = topology_cpus(name) // sockets
    argv = ["-smp", f"{topology_cpus(name)},sockets={sockets},dies={llcs},"
            f"cores={cores},threads={threads}"]
    for n in range(sockets):
        argv += ["-object", f"memory-backend-ram,id=m{n},size={mem_mib // sockets}M",
                 "-numa", f"node,nodeid={n},memdev=m{n},"
                 f"cpus={n * per_node}-{(n + 1) * per_node - 1}"]
    return argv


def kernel_cmdline(clock):
    return "console=ttyS0 panic=-1 quiet" + (" nokaslr" if clock == "icount" else "")


def qemu_argv(image, initrd, serial_out, accel, smp, mem_mib, clock="host", topology=None,
              qemu=(QEMU,)):
    accel_args = ["-accel", "kvm", "-cpu", "host"] if accel == "kvm" \
        else ["-accel", "tcg,thread=single"]
    if clock == "icount":
        accel_args += ["-icount", f"shift={ICOUNT_SHIFT},align=off,sleep=off", *ICOUNT_RTC]
    if topology and accel == "tcg":
        accel_args += ["-cpu", TOPOLOGY_CPU]
    shape = topology_argv(topology, mem_mib) if topology else ["-smp", str(smp)]
    return [*qemu, *accel_args, *shape, "-m", str(mem_mib), "-nographic",
            "-no-reboot", "-kernel", str(image), "-initrd", str(initrd),
            "-append", kernel_cmdline(clock),
            "-serial", "mon:stdio", "-serial", f"file:{serial_out}"]


def qemu_version():
    out = subprocess.run([QEMU, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"version (\S+)", out)
    return m[1] if m else "unknown"


class Boot:
    """One QEMU process: its console lines, read with a deadline per stage."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.buf = b""
        self.tail = []       # the console's last lines, for error messages

    def line(self, deadline):
        """The next console line, or None at the deadline or when QEMU exits."""
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.proc.stdout], [], [], min(left, 1.0))
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    return None
                self.buf += chunk
        raw, self.buf = self.buf.split(b"\n", 1)
        text = raw.decode(errors="replace").rstrip("\r")
        self.tail = (self.tail + [text])[-20:]
        return text

    def kill(self):
        """Stop QEMU now; line() then returns None. Safe from another thread."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)

    def stop(self):
        self.kill()
        self.proc.wait()
        self.proc.stdout.close()


def frames(data):
    """{name: bytes} of the complete MAPBENCH-FILE frames on the second serial port."""
    out, pos = {}, 0
    header = re.compile(rb"MAPBENCH-FILE (\S+) (\d+)\n")
    while True:
        m = header.search(data, pos)
        if not m:
            return out
        start, size = m.end(), int(m[2])
        if start + size > len(data):
            return out
        out[m[1].decode()] = data[start:start + size]
        pos = start + size


def probe_kvm(image, workdir):
    """kvm if /dev/kvm boots this stock kernel to /init within 20 s, else tcg.
    Cached per host boot (a PVM /dev/kvm crawls and would cost 20 s each time)."""
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg", "no usable /dev/kvm"
    host_boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    try:
        cached = json.loads(PROBE_CACHE.read_text())
        if cached["host_boot"] == host_boot:
            return cached["accel"], cached["why"]
    except (OSError, ValueError, KeyError):
        pass
    initrd = workdir / "probe.cpio.gz"
    make_initramfs(initrd, "")      # an empty job: reaching /init is the proof
    boot = Boot(qemu_argv(image, initrd, workdir / "probe.out", "kvm", 1, 512))
    deadline = time.monotonic() + 20
    accel, why = "tcg", "KVM is here but a probe boot under it did not reach /init in 20 s"
    try:
        while (line := boot.line(deadline)) is not None:
            if "MAPBENCH-GUEST" in line:
                accel, why = "kvm", "a probe boot under KVM reached /init"
                break
    finally:
        boot.stop()
    if accel == "tcg" and boot.tail and any("MSR" in t or "KVM" in t for t in boot.tail):
        why = "KVM refused the guest: " + next(t for t in boot.tail if "MSR" in t or "KVM" in t)
    PROBE_CACHE.parent.mkdir(parents=True, exist_ok=True)
    PROBE_CACHE.write_text(json.dumps({"host_boot": host_boot, "accel": accel, "why": why}) + "\n")
    return accel, why


class Plan:
    """Who boots when, and where each guest file lands."""

    def __init__(self, args, kernels, labels, configs):
        self.args, self.kernels, self.labels, self.configs = args, kernels, labels, configs
        self.machine = cachemodel.MACHINES.get(args.model)
        self.qemu = qemu10.argv() if self.machine else [QEMU]
        self.qemu_version = qemu10.version() if self.machine else qemu_version()
        self.clock = "host"     # set once the accelerator is known (clock_for)
        rng = random.Random(args.seed)
        self.boots = []
        for r in range(args.boots):
            order = list(range(len(kernels)))
            if args.order == "random":
                rng.shuffle(order)
            self.boots += [(r, k) for k in order]
        self.active = set()     # Boots running now, for Ctrl-C
        self.interrupted = False
        # A file's number comes from its boot and run, after the files already
        # there (ab's rounds add boots to a set): the same names whichever
        # boot of a parallel run finishes first.
        self.taken = {kind: last_number(*kind) for k in range(len(kernels))
                      for cid, _ in configs for kind in self.kinds(k, cid)}

    def label_dir(self, k):
        return results.label_dir(self.labels[k])

    def peer_dir(self, k):
        label = self.label_dir(k)
        return label.with_name(label.name + "-kernel")

    def kinds(self, k, cid):
        """(folder, stem, suffix) of each kind of file a configuration leaves."""
        return [(self.label_dir(k) / cid, "run", ".json"),
                (self.label_dir(k) / cid, "warmup", ".json"),
                (self.peer_dir(k) / cid, "run", ".log")]

    def path(self, k, name, boot_of_kernel, suffix=".json", peer=False):
        """Where the run NAME ("3:r1", "3:w0", "3:r1:k") of the kernel's
        boot_of_kernel-th boot (from 0) goes: STEM-N.SUFFIX, N counting from
        the files there before this vmrun, boot by boot; and N, the run's
        round (kernels' boots alternate, so run N of each ran side by side)."""
        idx, kind = name.split(":")[:2]
        cid = self.configs[int(idx)][0]
        stem = "warmup" if kind.startswith("w") else "run"
        per_boot = self.args.warmup_runs if stem == "warmup" else self.args.runs
        folder = (self.peer_dir(k) if peer else self.label_dir(k)) / cid
        n = self.taken[(folder, stem, suffix)] + boot_of_kernel * per_boot + int(kind[1:]) + 1
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{stem}-{n}{suffix}", n

    def store(self, k, name, payload, vm, counted=(), symbols=None):
        """Write one guest result as results/LABEL/CONFIG/{run,warmup}-N.json,
        with the cache model's block from the plugin's lines of the run."""
        doc = json.loads(payload)
        if self.machine and doc.get("samples") is not None:
            doc["model"] = cachemodel.block(self.machine, cachemodel.read_windows(counted),
                                            doc["samples"])
            if symbols and doc["model"] and doc["model"]["ops"]:
                doc["model"]["profile"] = cachemodel.profile(
                    self.machine, cachemodel.read_sites(counted), symbols, doc["model"]["ops"])
        warmup = name.split(":")[1].startswith("w")
        path, n = self.path(k, name, vm["boot_of_kernel"] - 1)
        doc["environment"]["label"] = self.label_dir(k).name
        doc["environment"]["round"] = None if warmup else n
        doc["environment"]["vm"] = dict(vm, warmup=warmup)
        write_atomically(path, json.dumps(doc, indent=1) + "\n")
        return doc

    def store_peer(self, k, name, payload, boot_of_kernel):
        """The kernel bench's output as results/LABEL-kernel/CONFIG/run-N.log,
        where scripts/report --peer reads it (as the host's suite --peer writes)."""
        path, _ = self.path(k, name, boot_of_kernel, ".log", peer=True)
        text = payload.decode(errors="replace")
        write_atomically(path, text)
        return text, path


def last_number(folder, stem, suffix):
    """The largest N of folder/STEM-N.SUFFIX there now, or 0."""
    return max([int(p.stem.split("-")[1]) for p in folder.glob(f"{stem}-*{suffix}")
                if p.stem.split("-")[1].isdigit()] + [0])


def write_atomically(path, text):
    tmp = path.with_name(path.name + ".tmp" + path.suffix)
    tmp.write_text(text)
    tmp.replace(path)


def run_boot(plan, i, accel, initrd, todo, workdir, progress):
    """Boot kernel k once and run the job; returns the number of runs that failed."""
    args = plan.args
    r, k = plan.boots[i]
    image = plan.kernels[k]
    if plan.interrupted:
        return 0
    serial = workdir / f"boot-{i}.out"
    argv = qemu_argv(image, initrd, serial, accel, args.smp, args.mem, plan.clock,
                     args.topology, plan.qemu)
    counts = ModelCounts(workdir / f"boot-{i}.model") if plan.machine else None
    if counts:
        argv += ["-plugin", plan.machine.plugin_arg(counts.path, args.profile)]
    boot = Boot(argv)
    plan.active.add(boot)
    if plan.interrupted:        # stopped while this one was starting
        boot.kill()
    vm = {"accelerator": accel, "clock": plan.clock, "qemu_version": plan.qemu_version,
          **({"icount_shift": ICOUNT_SHIFT} if plan.clock == "icount" else {}), "vcpus": args.smp,
          "cmdline": kernel_cmdline(plan.clock),
          "memory_mib": args.mem, "kernel_image": str(image), "boot": i + 1,
          # a guest booted under icount repeats its boot_id; this one is the host's
          "boot_uid": uuid.uuid4().hex,
          "boot_of_kernel": r + 1, "boots_of_kernel": args.boots,
          **({"model": plan.machine.record()} if plan.machine else {}),
          **({"topology": topology_record(args.topology)} if args.topology else {})}
    tag = f"[boot {i + 1}/{len(plan.boots)}] {os.path.relpath(plan.label_dir(k))}"
    failed, stored = 0, set()
    deadline = time.monotonic() + args.boot_timeout
    guest, symbols = None, None
    try:
        while True:
            line = boot.line(deadline)
            if line is None:
                break
            if args.console:
                print(f"guest: {line}", flush=True)
            # Kernel messages may share a console line with the guest's markers.
            m = re.search(r"MAPBENCH-([A-Z]+) ?(.*)", line)
            if not m:
                continue
            event, words = m[1], m[2].split()
            if event == "GUEST":
                guest = words[0]
                progress(f"{tag}: {guest} up")
                deadline = time.monotonic() + args.run_timeout
            elif event == "NOBTF":
                fail(f"{image}: the guest kernel {guest} has no BTF (/sys/kernel/btf/vmlinux); "
                     "build it with CONFIG_DEBUG_INFO_BTF=y")
            elif event == "SYMBOLS":
                got = frames(serial.read_bytes() if serial.exists() else b"")
                symbols = cachemodel.Symbols(got.get("kallsyms", b"").decode(errors="replace"))
            elif event == "RUN":
                deadline = time.monotonic() + args.run_timeout
            elif event == "RC":
                name, rc = words
                got = frames(serial.read_bytes() if serial.exists() else b"")
                text = f"exit {rc}, no result came back"
                if counts and not is_peer(name) and name not in got:
                    counts.new_lines()      # a failed run's windows belong to no result
                if name in got and is_peer(name):
                    log, path = plan.store_peer(k, name, got[name], r)
                    stored.add(name)
                    text = peer_figure_text(log, str(path)) or \
                        f"exit {rc} ({(log.strip() or 'no output').splitlines()[-1][:100]})"
                elif name in got:
                    doc = plan.store(k, name, got[name], vm, counts.new_lines() if counts else (), symbols)
                    stored.add(name)
                    text = doc_figure_text(doc)
                text += " [icount]" if plan.clock == "icount" else ""
                if not is_peer(name) and (rc not in ("0", "2") or name not in got):
                    failed += 1
                    err = [t for t in boot.tail[:-1] if t and "MAPBENCH" not in t]
                    text += f" ({err[-1]})" if err else ""
                idx, kind = name.split(":")[:2]
                what = "warmup" if kind.startswith("w") else f"run {int(kind[1:]) + 1}"
                what += ", kernel bench" if is_peer(name) else ""
                progress(f"{tag}: {plan.configs[int(idx)][0]} {what}: {text}")
            elif event == "DONE":
                deadline = time.monotonic() + 30
    finally:
        boot.stop()
        plan.active.discard(boot)
    if plan.interrupted:
        return 0
    if guest is None:
        last = next((t for t in reversed(boot.tail) if t.strip()), "no console output")
        fail(f"{image} did not reach the benchmark within {args.boot_timeout} s under {accel} "
             f"(last console line: {last.strip()[:120]})")
    missing = [name for name, _ in todo if name not in stored]
    if missing:
        progress(f"{tag}: {len(missing)} runs brought no result (time limit "
                 f"{args.run_timeout} s per run, or a crash: {(boot.tail or [''])[-1][:100]})")
    return failed + len(missing)


class ModelCounts:
    """The plugin's counts file of one boot, read run by run: the lines
    written since the last run ended are the run's that just ended."""

    def __init__(self, path):
        self.path, self.pos = path, 0

    def new_lines(self):
        if not self.path.exists():
            return []
        with open(self.path, "rb") as f:
            f.seek(self.pos)
            data = f.read()
        done = data[:data.rfind(b"\n") + 1]
        self.pos += len(done)
        return done.decode().splitlines()


def parallel_boots(asked, clock):
    """How many guests may run at once: under icount a guest's figures do not
    depend on the host's load, so up to one per host CPU (TCG runs a guest on
    one thread); on the host clock guests would slow each other: one."""
    if clock != "icount":
        if asked and asked > 1:
            print(f"note: -j {asked} ignored: on the {clock} clock guests running at once "
                  "would slow each other's figures; boots run one at a time", flush=True)
        return 1
    return asked or os.cpu_count() or 1


def run_boots(plan, jobs, accel, initrd, todo, workdir, progress):
    """Every boot of the plan, up to jobs at once, started in the plan's
    order; the number of runs that failed. Ctrl-C stops every guest."""
    start, failed, done = time.monotonic(), 0, 0
    pool = ThreadPoolExecutor(max_workers=jobs)
    futures = [pool.submit(run_boot, plan, i, accel, initrd, todo, workdir, progress)
               for i in range(len(plan.boots))]
    try:
        for f in as_completed(futures):
            failed += f.result()
            done += 1
            left = len(plan.boots) - done
            if left:
                eta = (time.monotonic() - start) / done * left
                progress(f"ETA {fmt_time(eta)} for {left} more boots ({jobs} at a time)")
    except BaseException as e:
        # Ctrl-C, or a boot that failed for good: no other guest goes on
        plan.interrupted = True
        for boot in list(plan.active):
            boot.kill()
        if isinstance(e, KeyboardInterrupt):
            raise Interrupted(f"stopped with {done} of {len(plan.boots)} boots done; the runs "
                              "that finished are kept") from None
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return failed


def parse_args(argv=None):
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", action="append", required=True, type=Path,
                    help="a bzImage (repeat for A/B: boots alternate)")
    ap.add_argument("--label", action="append", default=[],
                    help="results/LABEL per --kernel, in the same order (default vm-NAME)")
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--suite", help="a suite of suites/ (its configurations)")
    what.add_argument("--bench", action="append", default=[],
                      help="./bench arguments, one string (repeatable)")
    ap.add_argument("--boots", type=int, default=1, help="boots per kernel (default 1)")
    ap.add_argument("--runs", type=int, default=1, help="measured runs per configuration per boot")
    ap.add_argument("--warmup-runs", type=int, default=1,
                    help="runs per configuration and boot kept as warmup (default 1)")
    ap.add_argument("-w", "--warmup", type=int, default=1, help="./bench -w in the guest")
    ap.add_argument("-d", "--duration", type=int, default=3, help="./bench -d in the guest")
    ap.add_argument("--order", choices=["alternate", "random"], default="alternate")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--accel", choices=["auto", "kvm", "tcg"], default="auto")
    ap.add_argument("--clock", choices=["auto", "icount", "host"], default="auto",
                    help="guest clock: icount (instructions; default under TCG) or host")
    ap.add_argument("--smp", type=int, help="guest vCPUs (default 1, or --topology's)")
    ap.add_argument("--topology", choices=sorted(TOPOLOGIES),
                    help="a many-core machine in the guest: sockets, LLC domains (CCXs), SMT, "
                         "a NUMA node per socket (docs/big-machines.org)")
    ap.add_argument("-j", "--jobs", type=int,
                    help="guests at once under the icount clock (default: the host's CPUs); "
                         "the host clock runs one at a time")
    ap.add_argument("--mem", type=int, default=2048, help="guest memory in MiB (default 2048)")
    ap.add_argument("--console", action="store_true",
                    help="show the guest's console (the bench's errors, -v verifier logs)")
    ap.add_argument("--boot-timeout", type=int,
                    help="seconds to reach /init (default 120, and 5 more per vCPU past the "
                         "first: TCG brings vCPUs up one after another, 64 in about 4 minutes)")
    ap.add_argument("--run-timeout", type=int, default=300, help="seconds per benchmark run")
    ap.add_argument("--model", choices=[*cachemodel.MACHINES, "none"], default="none",
                    help="the cache model's machine: simulated L1D/L2/LLC misses and modelled "
                         "cycles per op beside icount's instructions (QEMU 10; default none)")
    ap.add_argument("--profile", action="store_true",
                    help="attribute the model's counts to guest kernel functions (the guest's "
                         "kallsyms; implies --model zen4)")
    ap.add_argument("--peer", choices=["kernel"],
                    help="also run the kernel's own selftests bench (built from --kernel-src) "
                         "after each measured run of a kernel-named configuration")
    ap.add_argument("--kernel-src", type=Path,
                    help="--peer kernel: the tree, tarball or linux-source-X.Y to build it from")
    ap.add_argument("--peer-btf", type=Path,
                    help="--peer kernel: BTF for its vmlinux.h (default the vmlinux beside the "
                         "first --kernel, else the running kernel's)")
    ap.add_argument("bench_args", nargs=argparse.REMAINDER,
                    help="after --: one ./bench command line")
    args = ap.parse_args(argv)
    if bool(args.peer) != bool(args.kernel_src):
        ap.error("--peer kernel and --kernel-src SRC go together")
    if args.peer_btf and not args.peer:
        ap.error("--peer-btf goes with --peer kernel")
    if args.bench_args[:1] == ["--"]:
        args.bench_args = args.bench_args[1:]
    if args.bench_args:
        if args.suite:
            ap.error("give --suite or a bench command line, not both")
        args.bench.append(shlex.join(args.bench_args))
    if not args.suite and not args.bench:
        ap.error("nothing to run: give --suite NAME, --bench \"ARGS\" or -- ARGS")
    if args.label and len(args.label) != len(args.kernel):
        ap.error(f"{len(args.label)} --label for {len(args.kernel)} --kernel: give one per kernel")
    if args.jobs is not None and args.jobs < 1:
        ap.error("-j/--jobs must be at least 1")
    if args.profile and args.model == "none":
        args.model = cachemodel.DEFAULT
    if args.topology:
        cpus = topology_cpus(args.topology)
        if args.smp not in (None, cpus):
            ap.error(f"--topology {args.topology} has {cpus} CPUs: drop --smp {args.smp}")
        args.smp = cpus
    if args.smp is None:
        args.smp = 1
    if args.boot_timeout is None:
        args.boot_timeout = 120 + 5 * (args.smp - 1)
    for opt in ("boots", "runs", "smp", "mem", "boot_timeout", "run_timeout", "duration"):
        if getattr(args, opt) < 1:
            ap.error(f"--{opt.replace('_', '-')} must be at least 1")
    if args.warmup_runs < 0 or args.warmup < 0:
        ap.error("--warmup-runs and --warmup cannot be negative")
    return args


def check_inputs(args):
    if not shutil.which(QEMU):
        fail(f"{QEMU} is not installed: apt-get install qemu-system-x86")
    if not BUSYBOX.exists():
        fail(f"{BUSYBOX} is missing: apt-get install busybox-static")
    for image in args.kernel:
        if not image.is_file():
            fail(f"--kernel {image}: no such file")
        if not is_kernel_image(image):
            fail(f"--kernel {image}: not an x86 kernel image (no bzImage header)")

    labels = args.label or [default_label(k) for k in args.kernel]
    if len(set(labels)) != len(labels):
        fail(f"two kernels would share results/{labels[0]}: give each a --label")
    return labels


def model_ready(args):
    """Fetch QEMU 10 and build the plugin for --model, or fail with one line."""
    if args.model == "none":
        return
    if args.clock == "host" or args.accel == "kvm":
        fail(f"--model {args.model} counts under TCG beside the icount clock: drop "
             f"{'--clock host' if args.clock == 'host' else '--accel kvm'}")
    try:
        qemu10.fetch(lambda t: print(f"vmrun: {t}", flush=True))
    except qemu10.Unsupported as e:
        fail(f"--model {args.model}: unsupported here: {e}")
    proc = subprocess.run(["make", "-s", "-C", str(ROOT), str(cachemodel.PLUGIN.relative_to(ROOT))],
                          capture_output=True, text=True)
    if proc.returncode:
        cli.die(f"cannot build the cache model's plugin: "
                f"{(proc.stderr.strip().splitlines() or ['?'])[-1]}")


def clock_for(asked, accel):
    """icount under TCG unless host is asked for; KVM runs on the host's clock."""
    if asked == "icount" and accel == "kvm":
        fail("--clock icount needs TCG (QEMU counts instructions only when it emulates them): "
             "add --accel tcg, or use --clock host")
    if asked == "auto":
        return "icount" if accel == "tcg" else "host"
    return asked


def peer_btf(args):
    if args.peer_btf:
        if not args.peer_btf.is_file():
            fail(f"--peer-btf {args.peer_btf}: no such file")
        return args.peer_btf
    beside = args.kernel[0].resolve().parent / "vmlinux"
    return beside if beside.is_file() else None


def build_static_bench():
    proc = subprocess.run(["make", "-s", "-C", str(ROOT), "build/bench.static"],
                          capture_output=True, text=True)
    if proc.returncode:
        cli.die(f"cannot build the static bench: {(proc.stderr.strip().splitlines() or ['?'])[-1]}")


def main(argv=None):
    args = parse_args(argv)
    labels = check_inputs(args)
    model_ready(args)
    build_static_bench()
    if args.suite:
        suite = load_suite(args.suite)
        configs = configurations(suite, placeholders(args.smp))
    else:
        valued = valued_options()
        configs = [(config_id(shlex.split(b), valued), shlex.split(b)) for b in args.bench]
    # checked against the guest's CPUs (--smp), not this machine's
    plans = []
    for cid, argv in configs:
        proc = subprocess.run([str(STATIC_BENCH), "--dry-run", "--guest-cpus", str(args.smp)] +
                              argv, capture_output=True, text=True)
        if proc.returncode:
            cli.die(f"{cid}: {proc.stderr.strip()}", cli.EXIT_USAGE)
        plans.append(proc.stdout)
    plan = Plan(args, [k.resolve() for k in args.kernel], labels, configs)
    peer = Peer(args.kernel_src, peer_btf(args)) if args.peer else None
    peer_cmds = {i: cmd for i, (_, argv) in enumerate(configs) if peer and
                 (cmd := peer.guest_command(argv, plans[i], args.warmup, args.duration))}
    start = time.monotonic()

    def progress(text):
        print(f"{text}  (elapsed {fmt_time(time.monotonic() - start)})", flush=True)

    with tempfile.TemporaryDirectory(prefix="mapbench-vm-") as d:
        workdir = Path(d)
        initrd = workdir / "initramfs.cpio.gz"
        if args.accel != "auto":
            accel, why = args.accel, f"--accel {args.accel}"
        elif plan.machine:
            accel, why = "tcg", f"--model {args.model} needs TCG"
        else:
            accel, why = probe_kvm(plan.kernels[0], workdir)
        plan.clock = clock_for(args.clock, accel)
        # The peer draws a random hash seed per map, as the kernel does; zeroing
        # ours would make the two tools walk different bucket chains.
        zero_seed = plan.clock == "icount" and not peer
        todo, job = job_script(configs, args.warmup_runs, args.runs, args.warmup, args.duration,
                               ["--zero-seed"] if zero_seed else [], peer_cmds)
        job = ("symbols\n" if args.profile else "") + job
        make_initramfs(initrd, job, peer)
        if accel == "tcg":
            print(TCG_WARNING.format(why), file=sys.stderr)
        print(f"{len(plan.boots)} boots ({args.boots} per kernel, {args.order}), "
              f"{len(configs)} configurations x ({args.warmup_runs} warmup + {args.runs}) runs "
              f"each, {accel}, {plan.clock} clock, {args.smp} vCPU, {args.mem} MiB", flush=True)
        if peer:
            print(f"--peer kernel: the kernel's tool after each measured run of "
                  f"{len(peer_cmds)} configurations, hash seeds random in both", flush=True)
        if plan.machine:
            print(f"{ICOUNT_NOTE}; cache model {plan.machine.name} on QEMU {plan.qemu_version} "
                  f"({cachemodel.LEAVES_OUT})", flush=True)
        elif plan.clock == "icount":
            print(f"{ICOUNT_NOTE}; cache and memory effects do not show (--model zen4, or "
                  "--clock host, for those)", flush=True)
        if args.topology and accel == "tcg":
            print(f"--topology {args.topology}: {args.smp} vCPUs take turns on one TCG thread: "
                  "this proves placement and behaviour on that shape, not how it scales",
                  flush=True)
        jobs = parallel_boots(args.jobs, plan.clock)
        try:
            failed = run_boots(plan, jobs, accel, initrd, todo, workdir, progress)
        except Interrupted as e:
            print(f"\nInterrupted: {e}")
            return cli.EXIT_INTERRUPTED
    dirs = " ".join(os.path.relpath(plan.label_dir(k)) for k in range(len(labels)))
    print(f"\nResults: {dirs}")
    if len(labels) == 2:
        print(f"Next: scripts/compare {dirs}; scripts/report {dirs}; scripts/gate {dirs}")
    return cli.EXIT_FAILED if failed else 0
