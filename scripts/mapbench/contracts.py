"""What ./bench declares about its benchmarks, read from the file make
writes with ./bench --contracts --json (build/contracts.json): the shapes
of the kernel tools' lines, declared beside the C that prints them in
src/peers/, and the file of the kernel's tree each kernel-named benchmark
is. Nothing here is kept by hand: a new kernel bench's C file is all the
Python side learns it from."""
import functools
import json
import re
from dataclasses import dataclass

from .model import InputError
from .paths import ROOT

PATH = ROOT / "build" / "contracts.json"


@functools.cache
def _document():
    try:
        return json.loads(PATH.read_text())
    except FileNotFoundError:
        raise InputError(f"{PATH} is missing: run make (./bench --contracts "
                         "--json writes it)") from None


@dataclass(frozen=True)
class LineShape:
    """A kernel tool's line as ./bench declares it (src/peer.h's struct
    kernel_line): its pattern, the metrics a match gives (metric, group),
    one of them the figure, the figure's unit and direction, and whether a
    run is a line per CPU."""
    name: str
    regex: re.Pattern
    metrics: tuple = ()
    unit: str = None
    lower_better: bool = False
    per_cpu: bool = False

    def match(self, line):
        return self.regex.match(line)

    def values(self, m):
        """{metric: value} of match m, each group scaled by the word its
        G_scale group holds (times mul, divided by div)."""
        groups = m.groupdict()
        out = {}
        for metric, g in self.metrics:
            mul, div = _document()["scales"].get(groups.get(f"{g}_scale"), (1, 1))
            out[metric] = float(groups[g]) * mul / div
        return out


@functools.cache
def line_shapes():
    """{name: LineShape} of every kernel tool line shape."""
    return {name: LineShape(name, re.compile(d["pattern"]),
                            tuple(tuple(w.split("=")) for w in d.get("metrics", "").split()),
                            d.get("unit"), d.get("lower_better", False), d.get("per_cpu", False))
            for name, d in _document()["lines"].items()}


def figure_line(benchmark):
    """The name of the line shape that carries benchmark's figure in its
    kernel tool's output, or None for one that is no kernel bench."""
    return next((b.get("kernel_line") for b in _document()["benchmarks"]
                 if b["benchmark"] == benchmark), None)


def kernel_sources():
    """(file, library file or None) of every kernel bench a benchmark is,
    in the table's order, each once."""
    found = {}
    for b in _document()["benchmarks"]:
        if b.get("kernel_source"):
            found.setdefault(b["kernel_source"], b.get("kernel_library"))
    return list(found.items())
