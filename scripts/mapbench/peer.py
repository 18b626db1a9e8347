"""The kernel's own tools as peers of mapbench's kernel-named benchmarks:
the selftests bench (same arguments as ./bench) and samples/bpf
map_perf_test (the command ./bench --dry-run gives for map-perf-*), built by
scripts/kernel-bench, run by scripts/suite on the host and by scripts/vmrun
in guests."""
import re
import subprocess
from pathlib import Path

from . import kernel_log
from .model import InputError
from .paths import PY, SCRIPTS


class Peer:
    """A built kernel bench: its binary, the benchmarks it has, the ones
    this kernel cannot run (kernel-bench's "cannot run here" lines), and
    map_perf_test where the tree has it."""

    def __init__(self, src, btf=None):
        argv = [PY, str(SCRIPTS / "kernel-bench"), "--src", str(src)]
        if btf:
            argv += ["--btf", str(btf)]
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode:
            last = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "?"
            raise InputError(f"--peer kernel: {last}", proc.returncode)
        lines = proc.stdout.splitlines()
        self.binary = Path(next(line.split(": ", 1)[1] for line in lines
                                if line.startswith("kernel-bench: /")))
        self.refusals = [line for line in lines if line.startswith("cannot run here")]
        built = next((line.split(": ", 1)[1] for line in lines
                      if line.startswith("map_perf_test: /")), None)
        self.map_perf_test = Path(built) if built else None
        listed = subprocess.run([str(self.binary), "-l"], capture_output=True, text=True).stdout
        self.names = {line[2:].strip() for line in listed.splitlines()
                      if line.startswith("- ") and not line.strip().endswith("-not-built")}

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
