"""The kernel's own selftests bench as a peer of mapbench's kernel-named
benchmarks: built by scripts/kernel-bench, run by scripts/suite on the host
and by scripts/vmrun in guests."""
import subprocess
from pathlib import Path

from . import cli, kernel_log
from .paths import PY, SCRIPTS


class Peer:
    """A built kernel bench: its binary, the benchmarks it has, and the
    ones this kernel cannot run (kernel-bench's "cannot run here" lines)."""

    def __init__(self, src, btf=None):
        argv = [PY, str(SCRIPTS / "kernel-bench"), "--src", str(src)]
        if btf:
            argv += ["--btf", str(btf)]
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode:
            last = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "?"
            cli.die(f"--peer kernel: {last}", proc.returncode)
        lines = proc.stdout.splitlines()
        self.binary = Path(next(line.split(": ", 1)[1] for line in lines
                                if line.startswith("kernel-bench: /")))
        self.refusals = [line for line in lines if line.startswith("cannot run here")]
        listed = subprocess.run([str(self.binary), "-l"], capture_output=True, text=True).stdout
        self.names = {line[2:].strip() for line in listed.splitlines()
                      if line.startswith("- ") and not line.strip().endswith("-not-built")}

    def has(self, argv):
        return benchmark_of(argv) in self.names


def benchmark_of(argv):
    """The benchmark name among ./bench arguments (the first bare word)."""
    return next((a for a in argv if not a.startswith("-") and not a[:1].isdigit()), "")


def figure_text(text, source):
    """The progress line's words for one kernel bench output."""
    runs = kernel_log.parse_kernel_bench(text, source)
    if not runs:
        return None
    return f"kernel bench {runs[-1].metrics['figure']:.4g} {runs[-1].unit('figure')}"
