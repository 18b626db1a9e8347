"""The kernel tools' text output (the selftests bench, map_perf_test), read
by the line shapes ./bench declares (contracts.py): one run per line that
carries a figure, or one per block of per-CPU lines, as mapbench reads its
own. No shape is known here: a kernel bench's C file declares its own."""
import re
from pathlib import Path

import numpy as np

from .contracts import figure_line, line_shapes
from .model import Run


def looks_like_kernel_log(text):
    lines = [x for x in text.splitlines() if x.strip()]
    ours = sum(bool(line_shapes()["run"].match(x) or line_shapes()["per-task"].match(x.strip())) for x in lines)
    return bool(lines) and ours * 2 >= len(lines)


def stored_configuration(source):
    """The configuration of a log where suite and vmrun store the kernel
    bench's runs (LABEL-kernel/CONFIG/run-N.log): its folder's name, which
    names every run in it, so that a configuration's runs group together
    and no two configurations share a row; else None."""
    path = Path(source)
    return path.parent.name if re.fullmatch(r"run-\d+", path.stem) and path.parent.name else None


def figure_shapes(text, source):
    """The shapes that carry a figure, the benchmark's own first: two benches
    print the same line with another figure (bloom-lookup's hits,
    hashmap-with-bloom's total operations). The benchmark is the one the
    log names (its "Setting up benchmark" line; not under -q), else one
    its file's name or its folder's configuration names (suite and vmrun
    store a run as CONFIG/run-N.log, CONFIG its id and arguments)."""
    named = [m["name"] for x in text.splitlines() if (m := line_shapes()["bench"].match(x))]
    path = Path(source)
    named += re.split(r"[,=]", stored_configuration(source) or path.stem)
    first = next((f for name in named if (f := figure_line(name))), None)
    return sorted((s for s in line_shapes().values() if s.metrics), key=lambda s: s.name != first)


def _run(shape, source, name, metrics, per_producer=()):
    return Run(source, name, {"source": "kernel-bench"}, metrics, units={"figure": shape.unit},
               directions={"figure": -1} if shape.lower_better else {},
               per_producer=list(per_producer))


def parse_kernel_bench(text, source):
    """Runs from a kernel tool's text output: a run per line of a shape that
    carries a figure (the line's own: throughput, hits, total operations,
    per-prod-op, the timing library's median ns/op), named by the line
    where it names one; the per-CPU lines of a shape (bpf-hashmap-lookup's
    cpuNN, full-update's and map_perf_test's per task) make one run, their
    mean (M events/s per producer, as mapbench's figure)."""
    stored = stored_configuration(source)
    default = stored or Path(source).stem
    shapes = figure_shapes(text, source)
    runs = []
    for shape in (s for s in shapes if s.per_cpu):
        per_cpu = [shape.values(m)["figure"] for line in text.splitlines()
                   if (m := shape.match(line.strip()))]
        if per_cpu:
            runs.append(_run(shape, source, default, {"figure": float(np.mean(per_cpu))}, per_cpu))
    for line in text.splitlines():
        shape, m = next(((s, m) for s in shapes if not s.per_cpu and (m := s.match(line))),
                        (None, None))
        if m:
            name = m.groupdict().get("name")
            runs.append(_run(shape, source, stored or (default if name in (None, "Summary") else name),
                             shape.values(m)))
    return runs
