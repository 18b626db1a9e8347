"""The kernel selftests bench's text output, read by its lines' shapes: one
run per Summary line (or per cpuNN/per-CPU block), as mapbench reads its own."""
import re
from pathlib import Path

import numpy as np

from .model import Run, figure_unit


# A line per CPU or task: bpf-hashmap-full-update's "3:hash_map_full_perf 20330000
# events per sec", map_perf_test's "0:hash_map_perf kmalloc 262788 events per sec"
# and "0:hash_lookup 24567286 lookups per sec"
PER_TASK = re.compile(r"^(?P<cpu>\d+):(?P<name>\w+(?: [\w-]+)?) (?P<v>\d+) "
                      r"(?P<what>events|lookups) per sec$")
# map_perf_test's lookup tests make 64 lookups an event and print lookups
LOOKUPS_PER_EVENT = 64


def task_rate(m):
    """A PER_TASK line's events per second."""
    return int(m["v"]) / (LOOKUPS_PER_EVENT if m["what"] == "lookups" else 1)


# "Summary: throughput 7.4 ± 0.02 M ops/s (...), latency 134.7 ns/op" and the
# LPM cover letter's "lookup: throughput 7.423 ± 0.023 M ops/s (...), latency 134.710 ns/op"
_SUMMARY = re.compile(
    r"^\s*(?P<name>[\w.-]+)?\s*:\s*throughput\s+(?P<tput>[\d.]+)\s*(?:±|\+-)\s*[\d.]+\s*"
    r"(?P<tunit>[MK])\s*ops/s.*?latency\s+(?P<lat>[\d.]+)\s*(?P<lunit>ns|us|ms)/op")
_HITS = re.compile(r"^\s*Summary:\s*hits\s+(?P<tput>[\d.]+)\s*(?:±|\+-)\s*[\d.]+\s*M/s")
# htab-mem: "Summary: per-prod-op  115.11 ±    4.10k/s, memory usage ..."
_PER_PROD = re.compile(r"^\s*Summary:\s*per-prod-op\s+(?P<v>[\d.]+)\s*(?:±|\+-)\s*[\d.]+\s*k/s")
# bpf-hashmap-lookup: "cpu00: lookup 23.272M ± 5.213M events/sec (approximated ...)"
_LOOKUP_CPU = re.compile(r"^\s*cpu\d+:\s*lookup\s+(?P<v>[\d.]+)M\s*(?:±|\+-)")
# linux 7.3's timing library (bpf-nop, xdp-lb): "bpf-nop: median 2.09 ns/op,
# stddev 0.27, p99 2.57 (191 samples)", or with --machine-readable "RESULT
# scenario=NAME samples=N median=2.09 stddev=... p99=2.57 ..."
_TIMING = re.compile(r"^(?P<name>[\w.-]+): median (?P<median>[\d.]+) ns/op, stddev [\d.]+, "
                     r"p99 (?P<p99>[\d.]+) \(\d+ samples\)$")
_RESULT = re.compile(r"^RESULT scenario=(?P<name>\S+) .*\bmedian=(?P<median>[\d.]+) .*"
                     r"\bp99=(?P<p99>[\d.]+)")
_SCALE = {"M": 1.0, "K": 1e-3}
_LAT = {"ns": 1.0, "us": 1e3, "ms": 1e6}

# Lines the kernel bench prints besides its summaries and PER_TASK lines: a
# log is recognised by its shape (most of its lines are the bench's), never
# by one word.
_BENCH_LINE = re.compile(r"^\s*(Setting up benchmark|Benchmark '|Iter\s+\d+\s*\(|Summary:|"
                         r"[\w.-]+\s*:\s*throughput\s|cpu\d+:\s*lookup\s|"
                         r"[\w.-]+: median [\d.]+ ns/op|RESULT scenario=)")


def looks_like_kernel_log(text):
    lines = [x for x in text.splitlines() if x.strip()]
    ours = sum(bool(_BENCH_LINE.match(x) or PER_TASK.match(x.strip())) for x in lines)
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
    for pattern, rate in ((_LOOKUP_CPU, lambda m: float(m["v"])),
                          (PER_TASK, lambda m: task_rate(m) / 1e6)):
        per_cpu = [rate(m) for line in text.splitlines() if (m := pattern.match(line.strip()))]
        if per_cpu:
            v = float(np.mean(per_cpu))
            runs.append(Run(source, default, {"source": "kernel-bench"}, {"figure": v},
                            units={"figure": figure_unit("M events/s", "events per producer")},
                            per_producer=per_cpu))
    for line in text.splitlines():
        m = _SUMMARY.match(line)
        if m:
            name = m.group("name")
            name = default if stored or name in (None, "Summary") else name
            tput = float(m.group("tput")) * _SCALE[m.group("tunit")]
            runs.append(Run(source, name, {"source": "kernel-bench"}, {
                "throughput": tput, "figure": tput,
                "latency": float(m.group("lat")) * _LAT[m.group("lunit")]},
                units={"figure": "M ops/s throughput"}))
            continue
        m = _HITS.match(line)
        if m:
            runs.append(Run(source, default, {"source": "kernel-bench"},
                            {"throughput": float(m.group("tput")), "figure": float(m.group("tput"))},
                            units={"figure": "M/s hits"}))
            continue
        m = _PER_PROD.match(line)
        if m:
            runs.append(Run(source, default, {"source": "kernel-bench"},
                            {"figure": float(m.group("v"))}, units={"figure": "k/s per-prod-op"}))
            continue
        m = _TIMING.match(line) or _RESULT.match(line)
        if m:
            median = float(m.group("median"))
            runs.append(Run(source, stored or m.group("name"), {"source": "kernel-bench"},
                            {"figure": median, "p50": median, "iqr_median": median,
                             "iqr_p99": float(m.group("p99"))},
                            units={"figure": figure_unit("ns/op", "median per batch")},
                            directions={"figure": -1}))
    return runs
