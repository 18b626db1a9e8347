"""The kernel selftests bench's text output, read by its lines' shapes: one
run per Summary line (or per cpuNN/per-CPU block), as mapbench reads its own."""
import re
from pathlib import Path

import numpy as np

from .contracts import line_shapes
from .model import Run, figure_unit

# map_perf_test's lookup tests make 64 lookups an event and print lookups
LOOKUPS_PER_EVENT = 64


def task_rate(m):
    """A per-task line's events per second."""
    return int(m["v"]) / (LOOKUPS_PER_EVENT if m["what"] == "lookups" else 1)


_SCALE = {"M": 1.0, "K": 1e-3}
_LAT = {"ns": 1.0, "us": 1e3, "ms": 1e6}


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


def parse_kernel_bench(text, source):
    """Runs from the kernel selftests bench's text output, one per Summary
    line; each run's figure is the line's own figure (throughput, hits or
    per-prod-op; the timing library's median ns/op, lower being better).
    bpf-hashmap-lookup's cpuNN lines and full-update's per-CPU lines make
    one run each, their mean over the CPUs (M events/s per producer, as
    mapbench's figure)."""
    runs = []
    stored = stored_configuration(source)
    default = stored or Path(source).stem
    for pattern, rate in ((line_shapes()["cpu-lookup"], lambda m: float(m["v"])),
                          (line_shapes()["per-task"], lambda m: task_rate(m) / 1e6)):
        per_cpu = [rate(m) for line in text.splitlines() if (m := pattern.match(line.strip()))]
        if per_cpu:
            v = float(np.mean(per_cpu))
            runs.append(Run(source, default, {"source": "kernel-bench"}, {"figure": v},
                            units={"figure": figure_unit("M events/s", "events per producer")},
                            per_producer=per_cpu))
    for line in text.splitlines():
        m = line_shapes()["summary"].match(line)
        if m:
            name = m.group("name")
            name = default if stored or name in (None, "Summary") else name
            tput = float(m.group("tput")) * _SCALE[m.group("tunit")]
            runs.append(Run(source, name, {"source": "kernel-bench"}, {
                "throughput": tput, "figure": tput,
                "latency": float(m.group("lat")) * _LAT[m.group("lunit")]},
                units={"figure": "M ops/s throughput"}))
            continue
        m = line_shapes()["hits"].match(line)
        if m:
            runs.append(Run(source, default, {"source": "kernel-bench"},
                            {"throughput": float(m.group("tput")), "figure": float(m.group("tput"))},
                            units={"figure": "M/s hits"}))
            continue
        m = line_shapes()["per-prod-op"].match(line)
        if m:
            runs.append(Run(source, default, {"source": "kernel-bench"},
                            {"figure": float(m.group("v"))}, units={"figure": "k/s per-prod-op"}))
            continue
        m = line_shapes()["timing"].match(line) or line_shapes()["result"].match(line)
        if m:
            median = float(m.group("median"))
            runs.append(Run(source, stored or m.group("name"), {"source": "kernel-bench"},
                            {"figure": median, "p50": median, "iqr_median": median,
                             "iqr_p99": float(m.group("p99"))},
                            units={"figure": figure_unit("ns/op", "median per batch")},
                            directions={"figure": -1}))
    return runs
