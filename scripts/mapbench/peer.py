"""The kernel's own tools as peers of mapbench's kernel-named benchmarks:
the selftests bench (same arguments as ./bench) and samples/bpf
map_perf_test (the command ./bench --dry-run gives for map-perf-*), built by
scripts/kernel-bench, run by scripts/suite on the host and by scripts/vmrun
in guests."""
import contextlib
import io
import re
import subprocess  # processes of their own: the kernel's bench
from pathlib import Path

from . import kernel_log
from .commands import kernel_bench
from .model import InputError

BTF = Path("/sys/kernel/btf/vmlinux")


class Peer:
    """A built kernel bench: its binary, the benchmarks it has, the ones
    this kernel cannot run (kernel-bench's "cannot run here" lines), and
    map_perf_test where the tree has it."""

    def __init__(self, src, btf=None):
        # kernel-bench's progress is its own user's; here it would interleave
        # with the suite's lines
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                built = kernel_bench.prepare(Path(src), Path(btf) if btf else BTF)
        except InputError as e:
            raise InputError(f"--peer kernel: kernel-bench: {e}", e.status) from None
        self.binary, self.map_perf_test = built.binary, built.map_perf_test
        self.refusals = built.refusals()
        # the kernel's own tool: a process of its own
        listed = subprocess.run([str(self.binary), "-l"], capture_output=True, text=True).stdout
        self.names = {line[2:].strip() for line in listed.splitlines()
                      if line.startswith("- ") and not line.strip().endswith("-not-built")}

    def run(self, argv, warmup_s, duration_s):
        """The kernel bench on this machine with ./bench's arguments argv:
        the finished process (its output captured)."""
        kernel_bench.mount_tracefs()
        return subprocess.run([str(self.binary), "-w", str(warmup_s), "-d", str(duration_s),
                               *argv], capture_output=True, text=True)

    def has(self, argv):
        return benchmark_of(argv) in self.names

    def guest_command(self, argv, plan_text, warmup_s, duration_s):
        """The peer's command line in a guest for ./bench argv (plan_text:
        its --dry-run output), or None where no kernel tool has it."""
        m = re.search(r"^Kernel command: map_perf_test (.*)$", plan_text, re.M)
        if m:
            return ["/map_perf_test", *m[1].split()] if self.map_perf_test else None
        if self.has(argv):
            return ["/kbench", "-w", str(warmup_s), "-d", str(duration_s), *argv]
        return None


def benchmark_of(argv):
    """The benchmark name among ./bench arguments (the first bare word)."""
    return next((a for a in argv if not a.startswith("-") and not a[:1].isdigit()), "")


def figure_text(text, source):
    """The progress line's words for one kernel bench output."""
    runs = kernel_log.parse_kernel_bench(text, source)
    if not runs:
        return None
    return f"kernel bench {runs[-1].metrics['figure']:.4g} {runs[-1].unit('figure')}"
