"""Booting guests: one QEMU process and its serial lines (Boot), the
results framed on the second serial port, one boot's job run and stored,
every boot of a plan, up to -j at once, and the KVM probe."""
import json
import os
import re
import select
import signal
import subprocess  # processes of their own: QEMU
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from .. import cachemodel, results
from ..cli import EXIT_INPUT
from ..model import InputError
from ..peer import figure_text as peer_figure_text
from ..suites import fmt_time
from . import qemu
from .initramfs import is_peer, make_initramfs
from .qemu import ICOUNT_SHIFT, kernel_cmdline, layout_draw, qemu_argv, topology_record


class Interrupted(Exception):
    pass


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


def boot_tag(plan, i):
    """How progress names boot i: [boot I/N] results/LABEL."""
    return f"[boot {i + 1}/{len(plan.boots)}] {os.path.relpath(plan.label_dir(plan.boots[i][1]))}"


class Console:
    """One boot's console, line by line: the guest's MAPBENCH markers turned
    into stored results and progress lines. files() gives the result files
    the guest has sent so far ({name: bytes}), over whatever carried them."""

    def __init__(self, plan, i, vm, files, progress, counts=None):
        self.plan, self.vm, self.files, self.progress, self.counts = plan, vm, files, progress, counts
        self.r, self.k = plan.boots[i]
        self.tag = boot_tag(plan, i)
        self.guest, self.symbols = None, None
        self.failed, self.stored = set(), set()
        self.tail = []       # the console's last lines, for error messages

    def feed(self, line):
        """Take one console line; the marker's event (GUEST, RUN, RC, DONE, ...) or None."""
        self.tail = (self.tail + [line])[-20:]
        # Kernel messages may share a console line with the guest's markers.
        m = re.search(r"MAPBENCH-([A-Z]+) ?(.*)", line)
        if not m:
            return None
        event, words = m[1], m[2].split()
        image = self.plan.kernels[self.k]
        if event == "GUEST":
            self.guest = words[0]
            self.progress(f"{self.tag}: {self.guest} up")
        elif event == "NOBTF":
            raise InputError(f"{image}: the guest kernel {self.guest} has no BTF "
                             "(/sys/kernel/btf/vmlinux); build it with "
                             "CONFIG_DEBUG_INFO_BTF=y", EXIT_INPUT)
        elif event == "NOSHUFFLE":
            raise InputError(f"{image}: the guest kernel {self.guest} cannot shuffle its page "
                             "lists: --sample-layouts needs CONFIG_SHUFFLE_PAGE_ALLOCATOR=y "
                             "(kbuild's kernels have it)", EXIT_INPUT)
        elif event == "SYMBOLS":
            self.symbols = cachemodel.Symbols(
                self.files().get("kallsyms", b"").decode(errors="replace"))
        elif event == "RC" and len(words) == 2:
            self.run_ended(*words)
        return event

    def run_ended(self, name, rc):
        plan, counts, got = self.plan, self.counts, self.files()
        text = f"exit {rc}, no result came back"
        if counts and not is_peer(name) and name not in got:
            counts.new_lines()      # a failed run's windows belong to no result
        if name in got and is_peer(name):
            log, path = plan.store_peer(self.k, name, got[name], self.r)
            self.stored.add(name)
            text = peer_figure_text(log, str(path)) or \
                f"exit {rc} ({(log.strip() or 'no output').splitlines()[-1][:100]})"
        elif name in got:
            doc = json.loads(got[name])
            counted = counts.new_lines() if counts else ()
            if plan.machine and doc.get("samples") is not None:
                doc["model"] = cachemodel.run_block(plan.machine, counted, doc, self.symbols)
            doc = plan.store(self.k, name, doc, self.vm)
            self.stored.add(name)
            text = results.figure_text(doc)
        text += " [icount]" if plan.clock == "icount" else ""
        if not is_peer(name) and (rc not in ("0", "2") or name not in got):
            self.failed.add(name)
            err = [t for t in self.tail[:-1] if t and "MAPBENCH" not in t]
            text += f" ({err[-1]})" if err else ""
        idx, kind = name.split(":")[:2]
        what = "warmup" if kind.startswith("w") else f"run {int(kind[1:]) + 1}"
        what += ", kernel bench" if is_peer(name) else ""
        self.progress(f"{self.tag}: {plan.configs[int(idx)][0]} {what}: {text}")

    def unfinished(self, todo, why):
        """How many runs failed: those that said so, and those of todo that
        never ended (said, with why)."""
        never = [name for name, _ in todo if name not in self.stored | self.failed]
        if never:
            self.progress(f"{self.tag}: {len(never)} runs brought no result ({why}: "
                          f"{(self.tail or [''])[-1][:100]})")
        return len(self.failed) + len(never)


def run_boot(plan, i, accel, initrd, todo, workdir, progress, console=None):
    """Boot kernel k once and run the job; returns the number of runs that failed."""
    args = plan.args
    r, k = plan.boots[i]
    image = plan.kernels[k]
    if plan.interrupted:
        return 0
    serial = workdir / f"boot-{i}.out"
    draw = layout_draw(args.sample_layouts)
    argv = qemu_argv(image, initrd, serial, accel, args.smp, args.mem, plan.clock,
                     args.topology, plan.qemu, draw)
    counts = ModelCounts(workdir / f"boot-{i}.model") if plan.machine else None
    if counts:
        trace = ((args.model_trace.resolve(), args.model_trace_accesses)
                 if args.model_trace and i == 0 else None)
        if trace:
            trace[0].parent.mkdir(parents=True, exist_ok=True)
        argv += ["-plugin", plan.machine.plugin_arg(counts.path, args.profile, trace)]
    boot = Boot(argv)
    plan.active.add(boot)
    if plan.interrupted:        # stopped while this one was starting
        boot.kill()
    vm = vm_record(plan, i, accel, draw)
    seen = Console(plan, i, vm, lambda: frames(serial.read_bytes() if serial.exists() else b""),
                   progress, counts)
    # a time limit per stage: reaching /init, each run, powering off
    limits = {"GUEST": args.run_timeout, "RUN": args.run_timeout, "DONE": 30}
    deadline = time.monotonic() + args.boot_timeout
    try:
        while (line := boot.line(deadline)) is not None:
            if console:
                console(f"guest: {line}")
            event = seen.feed(line)
            if event in limits:
                deadline = time.monotonic() + limits[event]
    finally:
        boot.stop()
        plan.active.discard(boot)
    if plan.interrupted:
        return 0
    if seen.guest is None:
        last = next((t for t in reversed(boot.tail) if t.strip()), "no console output")
        raise InputError(f"{image} did not reach the benchmark within {args.boot_timeout} s "
                         f"under {accel} (last console line: {last.strip()[:120]})", EXIT_INPUT)
    return seen.unfinished(todo, f"time limit {args.run_timeout} s per run, or a crash")


def vm_record(plan, i, accel, draw):
    """environment.vm of boot i's results (an engine adds where it ran)."""
    args = plan.args
    r, k = plan.boots[i]
    cmdline = kernel_cmdline(plan.clock, draw)
    if accel == "bare-metal":     # a lab's physical box: the kernel on the machine itself
        return {"accelerator": accel, "clock": plan.clock, "cmdline": cmdline,
                "kernel_image": str(plan.kernels[k]), "boot": i + 1, "boot_uid": uuid.uuid4().hex,
                "boot_of_kernel": r + 1, "boots_of_kernel": args.boots}
    return {"accelerator": accel, "clock": plan.clock, "qemu_version": plan.qemu_version,
            **({"icount_shift": ICOUNT_SHIFT} if plan.clock == "icount" else {}), "vcpus": args.smp,
            "cmdline": cmdline, "layout_draw": draw,
            "memory_mib": args.mem, "kernel_image": str(plan.kernels[k]), "boot": i + 1,
            # a guest booted under icount repeats its boot_id; this one is the host's
            "boot_uid": uuid.uuid4().hex,
            "boot_of_kernel": r + 1, "boots_of_kernel": args.boots,
            **({"model": plan.machine.record()} if plan.machine else {}),
            **({"topology": topology_record(args.topology)} if args.topology else {})}


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


# Ctrl-C may reach any of the process's threads, and Python runs its handler
# in the main thread only when that thread next runs: it never waits longer.
WAKE_S = 1.0


def completed(futures):
    """The futures as they complete, the caller woken every WAKE_S."""
    pending = set(futures)
    while pending:
        done, pending = wait(pending, timeout=WAKE_S, return_when=FIRST_COMPLETED)
        yield from done


def run_boots(plan, jobs, boot_one, progress):
    """Every boot of the plan, up to jobs at once, started in the plan's
    order (boot_one(i): the runs of boot i that failed); the number of runs
    that failed. Ctrl-C stops every guest (what plan.active holds: kill())."""
    start, failed, done = time.monotonic(), 0, 0
    # a CI job's timeout sends SIGTERM: it stops the guests as Ctrl-C does
    terminated = signal.signal(signal.SIGTERM, interrupt)
    pool = ThreadPoolExecutor(max_workers=jobs)
    futures = [pool.submit(boot_one, i) for i in range(len(plan.boots))]
    try:
        for f in completed(futures):
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
        signal.signal(signal.SIGTERM, terminated)
    return failed


def interrupt(signum, frame):
    raise KeyboardInterrupt


def kvm_usable():
    return os.access("/dev/kvm", os.R_OK | os.W_OK)


def probe_kvm(image, workdir):
    """kvm if /dev/kvm boots this stock kernel to /init within 20 s, else tcg.
    The answer is kept per machine and host kernel, with its date (a PVM
    /dev/kvm crawls, and would cost every vmrun, ab and bisect step 20 s)."""
    if not kvm_usable():
        return "tcg", "no usable /dev/kvm"
    cache, here = qemu.probe_cache(), qemu.machine()
    try:
        cached = json.loads(cache.read_text())
        if cached["machine"] == here:
            return cached["accel"], (f"{cached['why']} (probed {cached['date']} on this machine; "
                                     f"remove {cache} to probe again)")
    except (OSError, ValueError, KeyError, TypeError):
        pass
    accel, why = probe_boot(image, workdir)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"machine": here, "date": time.strftime("%Y-%m-%d"),
                                 "accel": accel, "why": why}) + "\n")
    return accel, why


def probe_boot(image, workdir):
    """(accel, why) of one short boot of image under KVM."""
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
    return accel, why
