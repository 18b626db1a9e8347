"""Boots as LAVA jobs: each boot of a plan a job whose log brings its
results back, stored as a local boot's are, with where the job ran in
environment.vm.lab. Two engines: lava-run (this machine's dispatcher, no
server; up to -j jobs at once) and lava (a server: every boot submitted at
once, the lab spreads them over its workers)."""
import hashlib
import os
import shutil
import time

from .. import results
from ..cli import EXIT_INPUT
from ..model import InputError
from ..paths import RESULTS
from ..guest.boot import Console, boot_tag, vm_record
from ..guest.qemu import kernel_cmdline, layout_draw, machine_argv
from . import dispatcher, job as lavajob, joblog, server as lavaserver


def boot_job(plan, i, accel, kernel_url, initrd_url, todo, draw, device_type="qemu"):
    """Boot i's job: on a QEMU device the same machine, clock and command
    line as a local boot; on a physical device type, booted over iPXE."""
    args = plan.args
    r, k = plan.boots[i]
    configs = len(plan.configs)
    name = (f"mapbench {set_name(plan.labels[k])} boot {r + 1}/{args.boots} "
            f"({configs} configuration{'s' * (configs != 1)})")
    run_seconds = args.run_timeout * max(1, len(todo))
    cmdline = kernel_cmdline(plan.clock, draw)
    if device_type != "qemu":
        return lavajob.ipxe_job(name, device_type, kernel_url, initrd_url, cmdline,
                                args.boot_timeout, run_seconds)
    argv = machine_argv(accel, args.smp, args.mem, plan.clock, args.topology)
    # one option and its value a string, as a device's extra options are
    # written; KVM's own the device type adds (no_kvm false)
    machine = [f"{o} {v}" for o, v in zip(argv[::2], argv[1::2])
               if f"{o} {v}" not in ("-accel kvm", "-cpu host")]
    return lavajob.qemu_job(name, kernel_url, initrd_url, cmdline, machine, accel == "kvm",
                            args.mem, args.boot_timeout, run_seconds)


def set_name(label):
    """A set as a job's name says it: its folder under results/, not a path
    of this machine's."""
    folder = results.label_dir(str(label)).resolve()
    return folder.relative_to(RESULTS).as_posix() if folder.is_relative_to(RESULTS) \
        else folder.name


def read_job(plan, i, records, vm, progress, console=None):
    """Feed one job's records to its boot's Console; (Console, LAVA's reason it failed)."""
    files = joblog.Files()
    seen = Console(plan, i, vm, files, progress)
    why = None
    for rec in records:
        why = joblog.failure(rec) or why
        if version := joblog.qemu_version(rec):      # the worker's, which ran it
            vm["qemu_version"] = version
        for line in joblog.console_lines(rec):
            if console:
                console(f"guest: {line}")
            files.take(line)
            seen.feed(line)
    return seen, why


def not_reached(image, job, why, tail):
    """The one-line error of a job whose guest never reached the benchmark."""
    last = next((t.strip() for t in reversed(tail) if t.strip()), "no console output")
    return InputError(f"{image}: {job} did not reach the benchmark ({why}; last console line: "
                      f"{last[:120]})", EXIT_INPUT)


def finish(plan, i, seen, why, todo, job):
    """The runs of a finished job that failed, or the error of one that never ran."""
    if seen.guest is None:
        raise not_reached(plan.kernels[plan.boots[i][1]], job, why, seen.tail)
    return seen.unfinished(todo, f"LAVA: {why}" if why else "the job ended early")


def run_local_job(plan, i, accel, initrd, todo, workdir, progress, console, templates):
    """Boot i as a job of this machine's dispatcher; the runs that failed."""
    if plan.interrupted:
        return 0
    draw = layout_draw(plan.args.sample_layouts)
    job = boot_job(plan, i, accel, file_url(plan.kernels[plan.boots[i][1]]), file_url(initrd),
                   todo, draw)
    # the dispatcher's scratch folder is named by the job's id: one no other
    # lava-run of this machine has at the same time
    job_id = os.getpid() * 1000 + i + 1
    run = dispatcher.Run(lavajob.text(job), dispatcher.device(job, templates),
                         workdir / f"job-{i + 1}", job_id)
    plan.active.add(run)
    if plan.interrupted:
        run.kill()
    vm = vm_record(plan, i, accel, draw)
    vm["lab"] = {"engine": "lava-run", "job_id": job_id, "worker": "localhost",
                 "device": "qemu", "job_name": job["job_name"]}
    try:
        seen, why = read_job(plan, i, run.records(), vm, progress, console)
    finally:
        rc = run.wait()
        plan.active.discard(run)
    if plan.interrupted:
        return 0
    if rc and not why:
        why = f"lava-run exit {rc}"
    return finish(plan, i, seen, why, todo, f"LAVA job {job_id}")


def file_url(path):
    """A file:// URL as LAVA reads it: the path as it is (LAVA does not
    undo percent-encoding: Debian's kernels have a + in their names)."""
    return f"file://{path.resolve()}"


class Artifacts:
    """Where a lab's workers fetch a file: file:// for a worker on this
    machine, else a copy in a publish directory served at a base URL."""

    def __init__(self, publish=None, base_url=None):
        self.publish, self.base_url = publish, base_url and base_url.rstrip("/") + "/"

    def url(self, path):
        if not self.publish:
            return file_url(path)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        name = f"{digest}-{path.name}"
        if not (self.publish / name).exists():
            self.publish.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, self.publish / f".{name}.part")
            (self.publish / f".{name}.part").rename(self.publish / name)
        return self.base_url + name


class ServerJob:
    """A job submitted to a server; kill() cancels it (Ctrl-C)."""

    def __init__(self, server, job_id):
        self.server, self.id, self.cancelled = server, job_id, False

    def kill(self):
        if not self.cancelled:
            self.cancelled = True
            try:
                self.server.cancel(self.id)
            except InputError:
                pass        # cancelling on the way out: the server's own limit ends it


def run_server_job(plan, i, accel, lab, todo, progress, console, poll_s):
    """Boot i as a job of a LAVA server: submitted, followed, its log read."""
    if plan.interrupted:
        return 0
    args, tag = plan.args, boot_tag(plan, i)
    draw = layout_draw(args.sample_layouts)
    job = boot_job(plan, i, accel, lab.kernel_urls[plan.boots[i][1]], lab.initrd_url, todo, draw,
                   args.lava_device_type)
    handle = ServerJob(lab.server, lab.server.submit(lavajob.text(job)))
    plan.active.add(handle)
    if plan.interrupted:
        handle.kill()
    progress(f"{tag}: LAVA job {handle.id} submitted ({lab.server.job_url(handle.id)})")
    state = None
    try:
        while True:
            info = lab.server.job(handle.id)
            if info["state"] != state:
                state = info["state"]
                where = f" on {info['actual_device']}" if info.get("actual_device") else ""
                progress(f"{tag}: LAVA job {handle.id} {lavaserver.state_words(info)}{where}")
            if state == "Finished" or plan.interrupted:
                break
            time.sleep(poll_s)
    finally:
        plan.active.discard(handle)
    if plan.interrupted:
        return 0
    vm = vm_record(plan, i, accel, draw)
    device = info.get("actual_device")
    vm["lab"] = {"engine": "lava", "server": lab.server.url, "job_id": handle.id,
                 "url": lab.server.job_url(handle.id), "device": device,
                 "device_type": args.lava_device_type,
                 "worker": lab.server.worker_of(device) if device else None,
                 "health": info["health"], "job_name": job["job_name"]}
    seen, why = read_job(plan, i, joblog.server_records(lab.server.log(handle.id)), vm,
                         progress, console)
    if info["health"] != "Complete":
        why = f"job {info['health']}" + (f": {why}" if why else "")
    return finish(plan, i, seen, why, todo, f"LAVA job {handle.id}")


def preflight(args):
    """What a lab can be asked before anything is built or booted: that its
    server answers, knows the token, has the device type and a device of it
    that can take a job. (server, user, devices); one line where not."""
    server = lavaserver.Server(args.lava_url, args.lava_token)
    user = server.check_token()
    return server, user, server.check_devices(args.lava_device_type)


class Lab:
    """A server, checked (preflight), and where its workers fetch the boot's
    files (each published once, before any job: the jobs' threads only read)."""

    def __init__(self, args, kernels, initrd):
        self.server, self.user, self.devices = preflight(args)
        artifacts = Artifacts(args.lava_publish, args.lava_publish_url)
        self.kernel_urls = [artifacts.url(k) for k in kernels]
        self.initrd_url = artifacts.url(initrd)


def boot_one(plan, accel, initrd, todo, workdir, progress, console=None):
    """What runs boot i under the plan's engine (guest.boot.run_boots)."""
    if plan.args.engine == "lava-run":
        dispatcher.ready()
        templates = dispatcher.templates(progress)
        return lambda i: run_local_job(plan, i, accel, initrd, todo, workdir, progress, console,
                                       templates)
    lab = Lab(plan.args, plan.kernels, initrd)
    jobs = len(plan.boots)
    progress(f"LAVA server {lab.server.url} as {lab.user}: {jobs} job{'s' * (jobs != 1)} on "
             f"{len(lab.devices)} {plan.args.lava_device_type} device"
             f"{'s' * (len(lab.devices) != 1)}")
    return lambda i: run_server_job(plan, i, accel, lab, todo, progress, console,
                                    plan.args.lava_poll)
