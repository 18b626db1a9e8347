"""QEMU for mapbench's guests: the command line of a boot (accelerator, the
icount clock, a machine's topology), the kernel's command line, QEMU's
version, and how many guests may run at once."""
import os
import re
import subprocess  # processes of their own: QEMU
import uuid
from pathlib import Path

from ..cli import EXIT_INPUT
from ..model import InputError

QEMU = "qemu-system-x86_64"


def probe_cache():
    """Where the KVM probe's answer is kept: per user and machine (every
    clone, bisect step and ab run shares it), as the XDG cache spec says."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(home) / "mapbench" / "accel-probe.json"


def machine():
    """What a KVM probe's answer holds for: this machine and its kernel."""
    try:
        machine_id = Path("/etc/machine-id").read_text().strip()
    except OSError:
        machine_id = os.uname().nodename
    return {"machine_id": machine_id, "host_kernel": os.uname().release}


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


def is_kernel_image(path):
    """An x86 bzImage carries "HdrS" at offset 0x202 (the boot protocol header)."""
    with open(path, "rb") as f:
        f.seek(0x202)
        return f.read(4) == b"HdrS"


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


def kernel_cmdline(clock, layout_draw=None):
    """The guest kernel's command line. With a layout draw (--sample-layouts)
    the page allocator shuffles its free lists (CONFIG_SHUFFLE_PAGE_ALLOCATOR)
    and the draw, a number of the boot's own, is on the line, which the
    kernel mixes into its entropy: where objects land differs from boot to
    boot, even under icount, which otherwise repeats a boot exactly. The
    draw is not a seed: shuffled boots differ even with one draw."""
    line = "console=ttyS0 panic=-1 quiet" + (" nokaslr" if clock == "icount" else "")
    if layout_draw is not None:
        line += f" page_alloc.shuffle=1 mapbench.layout={layout_draw}"
    return line


def layout_draw(sample_layouts):
    """A boot's layout draw for --sample-layouts (kernel_cmdline), or None."""
    return uuid.uuid4().int % 10 ** 9 if sample_layouts else None


def machine_argv(accel, smp, mem_mib, clock="host", topology=None):
    """QEMU's options for a guest's accelerator, clock and CPUs (pairs of
    option and value; its memory size apart)."""
    accel_args = ["-accel", "kvm", "-cpu", "host"] if accel == "kvm" \
        else ["-accel", "tcg,thread=single"]
    if clock == "icount":
        accel_args += ["-icount", f"shift={ICOUNT_SHIFT},align=off,sleep=off", *ICOUNT_RTC]
    if topology and accel == "tcg":
        accel_args += ["-cpu", TOPOLOGY_CPU]
    return accel_args + (topology_argv(topology, mem_mib) if topology else ["-smp", str(smp)])


def qemu_argv(image, initrd, serial_out, accel, smp, mem_mib, clock="host", topology=None,
              qemu=(QEMU,), layout_draw=None):
    return [*qemu, *machine_argv(accel, smp, mem_mib, clock, topology), "-m", str(mem_mib),
            "-nographic", "-no-reboot", "-kernel", str(image), "-initrd", str(initrd),
            "-append", kernel_cmdline(clock, layout_draw),
            "-serial", "mon:stdio", "-serial", f"file:{serial_out}"]


def qemu_version():
    """This machine's QEMU, or "unknown" (a lab's jobs need none here): as a
    lab's worker says its own (LAVA reads the package's version), Debian's
    package version where QEMU names one ("QEMU emulator version 7.2.22
    (Debian 1:7.2+dfsg-7+deb12u18+b3)"), else QEMU's, so that a guest's QEMU
    is one name whichever engine booted it."""
    try:
        out = subprocess.run([QEMU, "--version"], capture_output=True, text=True).stdout
    except OSError:
        return "unknown"
    m = re.search(r"version (\S+)(?: \(Debian ([^)\s]+)\))?", out)
    return (m[2] or m[1]) if m else "unknown"


def parallel_boots(asked, clock):
    """How many guests may run at once, and a note where -j was ignored:
    under icount a guest's figures do not depend on the host's load, so up to
    one per host CPU (TCG runs a guest on one thread); on the host clock
    guests would slow each other: one."""
    if clock != "icount":
        note = (f"note: -j {asked} ignored: on the {clock} clock guests running at once "
                "would slow each other's figures; boots run one at a time")
        return 1, note if asked and asked > 1 else None
    return asked or os.cpu_count() or 1, None


def clock_for(asked, accel):
    """icount under TCG unless host is asked for; KVM and a physical box
    (bare-metal) run on the host's clock."""
    if asked == "icount" and accel != "tcg":
        raise InputError("--clock icount needs TCG (QEMU counts instructions only when it emulates them): "
             "add --accel tcg, or use --clock host", EXIT_INPUT)
    if asked == "auto":
        return "icount" if accel == "tcg" else "host"
    return asked
