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
block's "profile", and scripts/report's "Where" table. --sample-layouts draws
a memory layout per boot (shuffled page lists), so that boots of one kernel
spread in modelled cycles as two builds do (docs/vm.org). --model-trace FILE
records what the model is given in the first boot, for make model-cost
TRACE=FILE to time the simulation on it and scripts/trace to read it.

--peer kernel --kernel-src SRC carries the kernel's own selftests bench
(scripts/kernel-bench, linked statically; vmlinux.h from --peer-btf, default
the vmlinux beside the first --kernel) into the guest: each measured run of
a configuration it has is followed by its run with the same arguments, the
output kept as results/LABEL-kernel/CONFIG/run-N.log for scripts/report
LABEL --peer LABEL-kernel. Guests allow the fentry the host refuses, so
bpf-hashmap-* and lpm-trie-* run there. --zero-seed is then not added
(the kernel's bench draws a random seed per map).

--engine lava-run makes each boot a LAVA job run by this machine's LAVA
dispatcher (no server); --engine lava submits them to the LAVA server
--lava-url (token: --lava-token or $MAPBENCH_LAVA_TOKEN), all at once, and
reads each job's log when it ends (docs/lab.org). The results are a local
boot's, with where the job ran in environment.vm.lab.

Exit status: 0 every run finished, 1 some runs failed or brought no result,
2 bad input (no such image, not a kernel, no QEMU, no BTF in the guest, a boot
that never reaches the benchmark, a job a LAVA server refuses), 3 tool error,
4 a LAVA server that cannot be reached or refuses the token, 64 usage error,
130 interrupted (a lab's jobs cancelled).
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess  # processes of their own: make (the plugin), ./bench --dry-run
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from .. import cachemodel, cli, results
from ..cachemodel import qemu10
from ..guest import boot, files, initramfs, options, qemu
from ..lab import engine as lab_engine, guest as lab_guest
from ..suites import configurations, fmt_time, load_suite, placeholders
from ..peer import Peer
from ..paths import ROOT


def fail(msg):
    cli.die(msg, cli.EXIT_INPUT)


def default_label(image):
    name = image.parent.name if image.name == "bzImage" else image.name
    return "vm-" + re.sub(r"[^A-Za-z0-9_.+-]+", "_", name)


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
    options.add(ap, boots=1)
    ap.add_argument("--order", choices=["alternate", "random"], default="alternate")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--topology", choices=sorted(qemu.TOPOLOGIES),
                    help="a many-core machine in the guest: sockets, LLC domains (CCXs), SMT, "
                         "a NUMA node per socket (docs/big-machines.org)")
    ap.add_argument("--mem", type=cli.at_least(1), default=2048,
                    help="guest memory in MiB (default 2048)")
    ap.add_argument("--console", action="store_true",
                    help="show the guest's console (the bench's errors, -v verifier logs)")
    ap.add_argument("--boot-timeout", type=cli.at_least(1),
                    help="seconds to reach /init (default 120, and 5 more per vCPU past the "
                         "first: TCG brings vCPUs up one after another, 64 in about 4 minutes)")
    ap.add_argument("--run-timeout", type=cli.at_least(1), default=300,
                    help="seconds per benchmark run")
    ap.add_argument("--peer", choices=["kernel"],
                    help="also run the kernel's own selftests bench (built from --kernel-src) "
                         "after each measured run of a kernel-named configuration")
    ap.add_argument("--kernel-src", type=Path,
                    help="--peer kernel: the tree, tarball or linux-source-X.Y to build it from")
    ap.add_argument("--peer-btf", type=Path,
                    help="--peer kernel: BTF for its vmlinux.h (default the vmlinux beside the "
                         "first --kernel, else the running kernel's)")
    ap.add_argument("--model-trace", type=Path, metavar="FILE",
                    help="record what the model is given in the first boot, its first "
                         "--model-trace-accesses accesses (plugin/trace.h), for make "
                         "model-cost TRACE=FILE")
    ap.add_argument("--model-trace-accesses", type=cli.at_least(1), default=4_000_000,
                    metavar="N", help="accesses --model-trace records (default 4000000, "
                                      "48 bytes each)")
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
    if args.profile and args.model == "none":
        args.model = cachemodel.DEFAULT
    args.sample_layouts = options.layouts_sampled(args)
    if args.model_trace and (args.model == "none" or args.engine != "local"):
        ap.error("--model-trace records a local boot's model: give --model NAME, no --engine")
    if args.model_trace and "," in str(args.model_trace.resolve()):
        ap.error(f"--model-trace {args.model_trace}: a path without commas (QEMU splits "
                 "plugin arguments at them)")
    if args.topology:
        cpus = qemu.topology_cpus(args.topology)
        if args.smp not in (None, cpus):
            ap.error(f"--topology {args.topology} has {cpus} CPUs: drop --smp {args.smp}")
        args.smp = cpus
    if args.smp is None:
        args.smp = 1
    if args.boot_timeout is None:
        args.boot_timeout = 120 + 5 * (args.smp - 1)
    check_model_options(ap, args)
    check_lab_options(ap, args)
    return args


def check_model_options(ap, args):
    """--model boots one vCPU: QEMU 10 compiles the translating vCPU's index
    into a block's plugin callbacks when TCG is single-threaded, as icount
    needs it, so every vCPU's work would land on whichever translated it."""
    topology = getattr(args, "topology", None)     # vmrun's alone
    cpus = args.smp or (qemu.topology_cpus(topology) if topology else 1)
    if args.model != "none" and cpus > 1:
        ap.error(f"--model {args.model} with {cpus} vCPUs: unsupported: under icount QEMU tells "
                 f"a plugin which vCPU translated a block, not which one runs it, so the model "
                 f"cannot keep the vCPUs apart: run it with --smp 1")


def check_lab_options(ap, args):
    given = [o for o in ("lava_url", "lava_publish", "lava_publish_url")
             if getattr(args, o) is not None]
    if args.engine != "lava" and given:
        ap.error(f"--{given[0].replace('_', '-')} goes with --engine lava")
    if args.engine == "lava":
        args.lava_url = args.lava_url or os.environ.get("MAPBENCH_LAVA_URL")
    if args.engine == "lava" and not args.lava_url:
        ap.error("--engine lava needs the server: --lava-url http://HOST/ (or "
                 "MAPBENCH_LAVA_URL, which scripts/lab up prints)")
    if bool(args.lava_publish) != bool(args.lava_publish_url):
        ap.error("--lava-publish DIR and --lava-publish-url URL go together")
    if args.lava_poll <= 0:
        ap.error("--lava-poll must be more than 0")


def check_inputs(args):
    # a server's workers run QEMU; this machine only makes the jobs
    if args.engine != "lava" and not shutil.which(qemu.QEMU):
        fail(f"{qemu.QEMU} is not installed: apt-get install qemu-system-x86")
    if not initramfs.BUSYBOX.exists():
        fail(f"{initramfs.BUSYBOX} is missing: apt-get install busybox-static")
    for image in args.kernel:
        if not image.is_file():
            fail(f"--kernel {image}: no such file")
        if not qemu.is_kernel_image(image):
            fail(f"--kernel {image}: not an x86 kernel image (no bzImage header)")

    labels = args.label or [default_label(k) for k in args.kernel]
    if len(set(labels)) != len(labels):
        fail(f"two kernels would share results/{labels[0]}: give each a --label")
    for label in labels:
        if (folder := results.label_dir(label)).exists() and not folder.is_dir():
            fail(f"--label {label}: {folder} is a file, not a folder of results: give another")
    return labels


def model_ready(args):
    """Fetch QEMU 10 and build the plugin for --model, or fail with one line."""
    if args.model == "none":
        return
    if args.engine != "local":
        fail(f"--model {args.model} reads the plugin's counts from a file QEMU writes beside "
             f"it, which --engine {args.engine} does not bring back: run it with --engine local")
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


def accelerator(args, plan, workdir):
    """The guests' accelerator, and why: as asked, TCG for the cache model,
    the KVM probe here; a lab's workers cannot be probed from here (TCG),
    and a physical device type runs the kernel on the box (bare-metal)."""
    if args.engine == "lava" and args.lava_device_type != "qemu":
        return "bare-metal", f"--lava-device-type {args.lava_device_type}"
    if args.accel != "auto":
        return args.accel, f"--accel {args.accel}"
    if plan.machine:
        return "tcg", f"--model {args.model} needs TCG"
    if args.engine == "lava":
        return "tcg", "--engine lava: the workers' KVM cannot be probed from here (--accel kvm)"
    return boot.probe_kvm(plan.kernels[0], workdir)


def peer_btf(args):
    if args.peer_btf:
        if not args.peer_btf.is_file():
            fail(f"--peer-btf {args.peer_btf}: no such file")
        return args.peer_btf
    beside = args.kernel[0].resolve().parent / "vmlinux"
    return beside if beside.is_file() else None


def guest_configurations(args):
    """(id, ./bench arguments) of every configuration, and each one's plan
    (./bench --dry-run, checked against the guest's CPUs, --smp, not this
    machine's); a bad one is a usage error before any boot."""
    if args.suite:
        configs = configurations(load_suite(args.suite), placeholders(args.smp))
    else:
        valued = initramfs.valued_options()
        configs = [(initramfs.config_id(shlex.split(b), valued), shlex.split(b)) for b in args.bench]
    plans = []
    for cid, argv in configs:
        proc = subprocess.run([str(initramfs.STATIC_BENCH), "--dry-run", "--guest-cpus", str(args.smp)] +
                              argv, capture_output=True, text=True)
        if proc.returncode:
            cli.die(f"{cid}: {proc.stderr.strip()}", cli.EXIT_USAGE)
        plans.append(proc.stdout)
    return configs, plans


def peer_commands(args, configs, plans):
    """With --peer kernel: the kernel's bench and its command line per
    configuration that has one; else (None, {})."""
    peer = Peer(args.kernel_src, peer_btf(args)) if args.peer else None
    return peer, {i: cmd for i, (_, argv) in enumerate(configs) if peer and
                  (cmd := peer.guest_command(argv, plans[i], args.warmup, args.duration))}


def announce(args, plan, configs, accel, peer_cmds):
    """What the boots will be, and what their figures can and cannot show."""
    print(f"{len(plan.boots)} boots ({args.boots} per kernel, {args.order}), "
          f"{len(configs)} configurations x ({args.warmup_runs} warmup + {args.runs}) runs "
          f"each, {accel}, {plan.clock} clock, {args.smp} vCPU, {args.mem} MiB", flush=True)
    if args.peer:
        print(f"--peer kernel: the kernel's tool after each measured run of "
              f"{len(peer_cmds)} configurations, hash seeds random in both", flush=True)
    if plan.machine:
        print(f"{qemu.ICOUNT_NOTE}; cache model {plan.machine.name} on QEMU {plan.qemu_version} "
              f"({plan.machine.leaves_out()})", flush=True)
    elif plan.clock == "icount":
        print(f"{qemu.ICOUNT_NOTE}; cache and memory effects do not show (--model zen4, or "
              "--clock host, for those)", flush=True)
    if args.topology and accel == "tcg":
        print(f"--topology {args.topology}: {args.smp} vCPUs take turns on one TCG thread: "
              "this proves placement and behaviour on that shape, not how it scales",
              flush=True)


def main(argv=None):
    args = parse_args(argv)
    labels = check_inputs(args)
    model_ready(args)
    initramfs.build_static_bench()
    configs, plans = guest_configurations(args)
    plan = files.Plan(args, [k.resolve() for k in args.kernel], labels, configs)
    peer, peer_cmds = peer_commands(args, configs, plans)
    start = time.monotonic()

    def progress(text):
        print(f"{text}  (elapsed {fmt_time(time.monotonic() - start)})", flush=True)

    console = (lambda line: print(line, flush=True)) if args.console else None
    with tempfile.TemporaryDirectory(prefix="mapbench-vm-") as d:
        workdir = Path(d)
        initrd = workdir / "initramfs.cpio.gz"
        accel, why = accelerator(args, plan, workdir)
        plan.clock = qemu.clock_for(args.clock, accel)
        # The peer draws a random hash seed per map, as the kernel does; zeroing
        # ours would make the two tools walk different bucket chains.
        zero_seed = plan.clock == "icount" and not peer
        extra = ["--zero-seed"] * zero_seed + ["--jit-symbols"] * args.profile
        todo, job = initramfs.job_script(configs, args.warmup_runs, args.runs, args.warmup,
                                         args.duration, extra, peer_cmds)
        job = ("symbols\n" if args.profile else "") + job
        if args.engine == "local":
            initramfs.make_initramfs(initrd, job, peer)
            boot_one = partial(boot.run_boot, plan, accel=accel, initrd=initrd, todo=todo,
                               workdir=workdir, progress=progress, console=console)
        else:
            init, extra = lab_guest.files()
            initramfs.make_initramfs(initrd, job, peer, init, extra)
            boot_one = lab_engine.boot_one(plan, accel, initrd, todo, workdir, progress, console)
        if accel == "tcg":
            print(qemu.TCG_WARNING.format(why), file=sys.stderr)
        announce(args, plan, configs, accel, peer_cmds)
        jobs, note = qemu.parallel_boots(args.jobs, plan.clock)
        if args.engine == "lava":
            # each job on a device of its own: the lab runs what it has room for
            jobs, note = len(plan.boots), None
        if note:
            print(note, flush=True)
        try:
            failed = boot.run_boots(plan, jobs, boot_one, progress)
        except boot.Interrupted as e:
            print(f"\nInterrupted: {e}")
            return cli.EXIT_INTERRUPTED
    dirs = " ".join(os.path.relpath(plan.label_dir(k)) for k in range(len(labels)))
    print(f"\nResults: {dirs}")
    if len(labels) == 2:
        print(f"Next: scripts/compare {dirs}; scripts/report {dirs}; scripts/gate {dirs}")
    return cli.EXIT_FAILED if failed else 0
