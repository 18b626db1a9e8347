"""Loading, grouping and comparing mapbench results (used by compare, gate,
report and plot).

A run (one ./bench process, or one Summary line of a kernel bench log) is one
sample: its value is the median of its post-warmup intervals. Runs of the same
benchmark and parameters form a group; groups of two sets are matched on the
benchmark and every parameter.
"""
import argparse
import json
import math
import re
import sys
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.power import TTestIndPower, TTestPower

SCHEMA = "mapbench-result"
SCHEMA_VERSION = 2

# Exit statuses shared by the scripts.
EXIT_TOOL = 3       # unreadable input, or a bug
EXIT_USAGE = 64     # bad command line (EX_USAGE), distinct from the gate's verdicts
# The gate's verdicts (scripts/gate, and scripts/ab which exits with them).
EXIT_PASS, EXIT_REGRESSION, EXIT_INCONCLUSIVE = 0, 1, 2
# The kernel tools (kbuild, vmrun): a build or guest run failed, or bad input
# (a tree, image or patch that is not one); interrupted by SIGINT.
EXIT_FAILED, EXIT_INPUT, EXIT_INTERRUPTED = 1, 2, 130

RESULTS = Path(__file__).resolve().parent.parent / "results"


def label_dir(label):
    """Where a set's runs go: results/LABEL, or LABEL itself when it is a path."""
    return RESULTS / label if "/" not in label else Path(label)

# metric -> (unit, direction: +1 higher is better, -1 lower is better).
# "figure" is each benchmark's own headline figure, the default of every
# script; its unit and direction are in the results (bytes: lower is better).
DEFAULT_METRIC = "figure"
# the runs a side a verdict needs on the host clock (scripts/verdict.py's default)
DEFAULT_MIN_RUNS = 5
METRICS = {
    "figure": ("the benchmark's unit", +1),
    "throughput": ("M ops/s", +1),
    "latency": ("ns/op", -1),
    "kernel_rate": ("M ops/s per producer, in-kernel", +1),
    "bytes_per_element": ("B", -1),
    "memlock_peak": ("B", -1),
    "charged_avg": ("B charged to the cgroup, mean of the ticks", -1),
    # mem --nr-entries below --max-entries: the part-full map's own bytes
    "memlock_at_fill": ("B memlock of the part-full map", -1),
    "charged_at_fill": ("B charged for the part-full map", -1),
    # --perf's hardware counters per map operation (bare metal: the PMU)
    "instructions": ("instructions/op", -1),
    "cycles": ("cycles/op", -1),
}
PERF_METRICS = ("instructions", "cycles")

# The clocks a figure can be in. Under icount (scripts/vmrun under TCG) a guest
# nanosecond is one executed instruction: noise-free, blind to cache and memory.
ICOUNT_UNIT = "icount: 1 ns = 1 instruction"
ICOUNT_BLIND_SPOT = ("icount clock: each figure is virtual time (1 ns = 1 executed instruction), "
                     "so code-path changes show to about 0.1% but cache and memory effects do "
                     "not; a memory-saving patch needs host-clock or KVM runs for its speed and "
                     "`./bench mem` for its bytes.")
# The smallest change that matters, by clock, where a policy does not say:
# five runs on a shared machine cannot tell less than about 5% from noise;
# a noise-free clock sees 0.01%, which is real but rarely worth a patch.
MIN_EFFECT_PCT = {"host": 5.0, "icount": 0.5}
# Runs a side before a verdict: a noise-free clock needs two (boots) a side.
MIN_RUNS = {"host": DEFAULT_MIN_RUNS, "icount": 2}


def min_runs_of(clock):
    return MIN_RUNS.get(clock, DEFAULT_MIN_RUNS)


def min_effect_of(clock):
    return MIN_EFFECT_PCT.get(clock, 0.0)


def clock_of(env):
    """host, or icount for runs in a guest whose clock counted instructions."""
    return (env.get("vm") or {}).get("clock", "host")


def clock_of_runs(*sets):
    """The one clock of these runs, or "mixed"."""
    clocks = {clock_of(r.env) for runs in sets for r in runs}
    return clocks.pop() if len(clocks) == 1 else "mixed"

# Environment fields that make two sets not comparable if they differ
# (the kernel is expected to differ).
ENV_MUST_MATCH = ["cpu_model", "online_cpus", "bpf_jit_enable", "bpf_jit_harden", "clock"]
ENV_WARN = ["mitigations", "smt_active", "cpufreq_governor", "cpufreq_boost", "host"]
# Fields that every run of one set must share: a set is one kernel, CPU and build.
SET_MUST_SHARE = ["kernel_release", "cpu_model", "mapbench_revision"]


class InputError(Exception):
    """A result file or folder that cannot be used; the message says why."""


@dataclass
class Run:
    source: str
    benchmark: str
    params: dict
    metrics: dict                  # metric -> value for this run
    env: dict = field(default_factory=dict)
    duration: float = math.nan      # measured seconds
    units: dict = field(default_factory=dict)   # metric -> unit where not METRICS'
    within_cv: float = math.nan     # CV of the run's own one-second samples
    directions: dict = field(default_factory=dict)  # metric -> direction where not METRICS'
    per_producer: list = field(default_factory=list)  # M events/s of each producer
    runs: int = 1                   # ./bench runs behind it (a guest boot's, pooled)

    def key(self, ignore=()):
        """(benchmark, parameters as JSON): the group the run belongs to; the
        parameters in ignore take no part."""
        return (self.benchmark, json.dumps({k: v for k, v in self.params.items()
                                            if k not in ignore}, sort_keys=True))

    def unit(self, metric):
        return self.units.get(metric, METRICS[metric][0])

    def direction(self, metric):
        """+1 where higher is better, -1 where lower is."""
        return self.directions.get(metric, METRICS[metric][1])


@dataclass
class Skipped:
    """A result file left out of the analysis, and why."""
    source: str
    benchmark: str
    params: dict
    why: str

    def key(self):
        return (self.benchmark, json.dumps(self.params, sort_keys=True))


class Runs(list):
    """The runs of a set, with the files that were left out (.skipped)."""
    def __init__(self, runs=(), skipped=()):
        super().__init__(runs)
        self.skipped = list(skipped)


# ---------------------------------------------------------------- loading

def _run_from_result(doc, source):
    """One Run per throughput document; one per memory row for mem; or a
    Skipped for a run that did not complete or measured nothing."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise InputError(f"{source}: not a mapbench result (no \"schema\": \"{SCHEMA}\")")
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise InputError(f"{source}: schema_version {doc.get('schema_version')} is not supported "
                         f"(this mapbench reads {SCHEMA_VERSION}); rerun ./bench to rewrite it")
    try:
        return _runs_of(doc, source)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise InputError(f"{source}: malformed mapbench result ({type(e).__name__}: {e})") from e


# Parameters added later whose false means what their absence meant before:
# left out when false, so that older results still match newer ones.
FALSE_AS_ABSENT = ("zero_seed",)


def _runs_of(doc, source):
    env = doc.get("environment", {})
    params = {k: v for k, v in doc["params"].items()
              if not (k in FALSE_AS_ABSENT and v is False)}
    if env.get("vm", {}).get("warmup"):
        return [Skipped(source, doc["benchmark"], params, "warmup run (the first of its boot)")]
    if doc["status"] != "complete":
        reason = f" ({doc['reason']})" if doc.get("reason") else ""
        return [Skipped(source, doc["benchmark"], params, f"status {doc['status']}{reason}")]
    if "memory" in doc:
        runs = []
        for row in doc["memory"]["rows"]:
            if row["status"] != "ok":
                continue
            p = dict(params, map=row["map"], prealloc=row["prealloc"], row=row["label"])
            v = row["bytes_per_element"]
            metrics = {"bytes_per_element": v, "figure": v}
            fill = row.get("fill") or {}
            if fill:
                metrics["memlock_at_fill"] = fill["memlock"]
            if fill.get("charged") is not None:
                metrics["charged_at_fill"] = fill["charged"]
            runs.append(Run(source, "mem", p, metrics, env,
                            units={"figure": figure_unit("B", "bytes per element")},
                            directions={"figure": -1}))
        return runs
    measured = [s for s in doc["samples"] if not s["warmup"] and s["ops"] > 0]
    if not measured:
        return [Skipped(source, doc["benchmark"], params, "no measured samples")]

    def median(field):
        return float(np.median([s[field] for s in measured]))
    figure = doc["summary"]["figure"]
    metrics = {"throughput": median("throughput_mops"), "latency": median("latency_ns"),
               "figure": median("figure"), "kernel_rate": median("kernel_mops_per_producer")}
    memory = doc["summary"].get("memory", {})
    for m in ("memlock_peak", "charged_avg"):
        if memory.get(m) is not None:
            metrics[m] = memory[m]
    dur = sum(s["interval_ns"] for s in measured) / 1e9
    units = {"figure": figure_unit(figure["unit"], figure["name"])}
    for c in (doc.get("perf") or {}).get("counters", []):
        if c["name"] in PERF_METRICS and c["status"] == "ok":
            metrics[c["name"]] = c["per_op"]
    if clock_of(env) == "icount":
        units = {m: f"{units.get(m, METRICS[m][0])} [{ICOUNT_UNIT}]" for m in metrics}
        units["latency"] = f"instructions/op [{ICOUNT_UNIT}]"
    cv = doc["summary"].get("throughput_mops", {}).get("cv")
    return [Run(source, doc["benchmark"], params, metrics, env, dur, units,
                cv if cv is not None else math.nan, per_producer=per_producer(doc, measured))]


# Units that name their noun only by a symbol.
UNIT_NOUNS = {"B": "bytes"}


def figure_unit(unit, name):
    """A figure's unit and name as one label, the name's first word left out
    where the unit already says it: "M ops/s throughput", "k/s per-prod-op",
    "M events/s per producer" (not "M events/s events per producer"), "B per
    element"."""
    first, _, rest = name.partition(" ")
    said = first in unit.replace("/", " ").split() or UNIT_NOUNS.get(unit) == first
    return f"{unit} {rest}" if said and rest else f"{unit} {name}"


# bpf-hashmap-full-update's kernel line: "3:hash_map_full_perf 20330000 events per sec"
_FULL_PERF = re.compile(r"^(?P<cpu>\d+):hash_map_full_perf (?P<v>\d+) events per sec$")


def per_producer(doc, measured):
    """Each producer's M events/s: the kernel's per-CPU lines where the
    benchmark prints them (its own aggregation), else ops over in-kernel
    time of the measured samples."""
    lines = [m for x in doc["summary"].get("kernel_lines") or [] if (m := _FULL_PERF.match(x))]
    if lines:
        return [int(m["v"]) / 1e6 for m in sorted(lines, key=lambda m: int(m["cpu"]))]
    n = len(measured[0].get("producers") or [])
    out = []
    for i in range(n):
        ops = sum(s["producers"][i]["ops"] for s in measured)
        ns = sum(s["producers"][i]["ns"] for s in measured)
        out.append(ops / ns * 1e3 if ns else math.nan)
    return out


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
_SCALE = {"M": 1.0, "K": 1e-3}
_LAT = {"ns": 1.0, "us": 1e3, "ms": 1e6}


# Lines the kernel bench prints besides its summaries: a log is recognised
# by its shape (most of its lines are the bench's), never by one word.
_BENCH_LINE = re.compile(r"^\s*(Setting up benchmark|Benchmark '|Iter\s+\d+\s*\(|Summary:|"
                         r"[\w.-]+\s*:\s*throughput\s|cpu\d+:\s*lookup\s|"
                         r"\d+:hash_map_full_perf\s)")


def looks_like_kernel_log(text):
    lines = [x for x in text.splitlines() if x.strip()]
    ours = sum(bool(_BENCH_LINE.match(x)) for x in lines)
    return bool(lines) and ours * 2 >= len(lines)


def parse_kernel_bench(text, source):
    """Runs from the kernel selftests bench's text output, one per Summary
    line; each run's figure is the line's own figure (throughput, hits or
    per-prod-op). bpf-hashmap-lookup's cpuNN lines and full-update's
    per-CPU lines make one run each, their mean over the CPUs (M events/s
    per producer, as mapbench's figure)."""
    runs = []
    default = Path(source).stem
    for pattern, scale in ((_LOOKUP_CPU, 1.0), (_FULL_PERF, 1e-6)):
        per_cpu = [float(m["v"]) * scale
                   for line in text.splitlines() if (m := pattern.match(line.strip()))]
        if per_cpu:
            v = float(np.mean(per_cpu))
            runs.append(Run(source, default, {"source": "kernel-bench"}, {"figure": v},
                            units={"figure": figure_unit("M events/s", "events per producer")},
                            per_producer=per_cpu))
    for line in text.splitlines():
        m = _SUMMARY.match(line)
        if m:
            name = m.group("name")
            name = default if name in (None, "Summary") else name
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
    return runs


def load_path(path, pool_boots=True):
    """Runs from a result file, a kernel bench log, or a folder of them; the
    files left out (failed, unsupported, interrupted, empty) in .skipped.
    pool_boots: a guest boot's runs of a configuration become one (per_boot)."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{path}: no such file or folder")
    files = sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else [p]
    found = []
    for f in files:
        if f.name.endswith((".png", ".svg")) or ".tmp." in f.name:
            continue
        text = f.read_text(errors="replace")
        if f.suffix == ".json":
            try:
                doc = json.loads(text)
            except json.JSONDecodeError as e:
                raise InputError(f"{f}: not valid JSON ({e})") from e
            found += _run_from_result(doc, str(f))
        elif looks_like_kernel_log(text):
            found += parse_kernel_bench(text, str(f))
        elif not p.is_dir():
            raise InputError(f"{f}: neither a mapbench result (.json) nor a kernel bench log "
                             "(most of its lines should be the bench's Iter/Summary lines)")
    if not found:
        raise InputError(f"{path}: no mapbench results or kernel bench summaries in it")
    measured = [r for r in found if isinstance(r, Run)]
    runs = Runs(per_boot(measured) if pool_boots else measured,
                [r for r in found if isinstance(r, Skipped)])
    check_one_set(runs, path)
    return runs


def per_boot(runs):
    """Runs in QEMU guests (scripts/vmrun) share their boot's state, so a boot,
    not a run, is one sample: the runs of one configuration in one boot become
    one Run with their median metrics. Host runs are left as they are."""
    out, boots = [], {}
    for r in runs:
        if "vm" in r.env and r.env.get("boot_id"):
            boots.setdefault((r.key(), r.env["boot_id"]), []).append(r)
        else:
            out.append(r)
    for group in boots.values():
        out.append(pooled(group))
    return out


def pooled(group):
    """One Run for runs of one configuration: their median metrics, summed
    duration and median within-run CV; everything else (units, directions,
    environment, per-producer figures) from the first, so nothing a run
    carries is lost."""
    first = group[0]
    if len(group) == 1:
        return first
    shared = [m for m in first.metrics if all(m in g.metrics for g in group)]
    per_producer = [float(np.median(x)) for x in zip(*(g.per_producer for g in group))]
    return replace(first, metrics={m: float(np.median([g.metrics[m] for g in group]))
                                   for m in shared},
                   duration=sum(g.duration for g in group),
                   within_cv=float(np.median([g.within_cv for g in group])),
                   per_producer=per_producer, runs=sum(g.runs for g in group))


def check_one_set(runs, path):
    """Refuse a set whose runs come from different kernels, CPUs or builds:
    pooled, they would compare something else than they claim."""
    for f in SET_MUST_SHARE:
        values = sorted({str(r.env[f]) for r in runs if r.env.get(f) is not None})
        if len(values) > 1:
            raise InputError(f"{path}: its runs differ in {f} ({', '.join(values)}); "
                             "put each in a folder of its own")


def need_runs(runs, path):
    """runs, or a one-line error if every file of the set was left out."""
    if not runs:
        why = "; ".join(sorted({s.why for s in runs.skipped}))
        die(f"{path}: no completed results in it ({why})")
    return runs


def report_skipped(*sets):
    """One note per file left out of the analysis; files left out for the
    same reason in one set (e.g. every boot's warmup run) share one note."""
    for runs in sets:
        by_why = {}
        for s in getattr(runs, "skipped", []):
            by_why.setdefault(s.why, []).append(s.source)
        for why, sources in by_why.items():
            if len(sources) <= 2:
                for src in sources:
                    print(f"note: left out {src}: {why}")
            else:
                print(f"note: left out {len(sources)} files: {why} ({sources[0]}, ...)")


# ---------------------------------------------------------------- grouping

def frame(runs, metric, ignore=()):
    """One row per run with the metric: columns benchmark, params (without the
    ignored ones, as JSON), value."""
    rows = [dict(zip(("benchmark", "params"), r.key(ignore)), value=r.metrics[metric])
            for r in runs if metric in r.metrics]
    return pd.DataFrame(rows, columns=["benchmark", "params", "value"])


def groups(runs, metric, ignore=()):
    """{(benchmark, params): np.array of values}."""
    df = frame(runs, metric, ignore)
    return {k: g["value"].to_numpy() for k, g in df.groupby(["benchmark", "params"], sort=True)}


def varying_params(keys):
    """Parameter names whose values differ between groups of the same benchmark."""
    seen = {}
    for bench, params in keys:
        for k, v in json.loads(params).items():
            seen.setdefault((bench, k), set()).add(json.dumps(v))
    return {k for (_, k), vals in seen.items() if len(vals) > 1}


# Parameters derived from others: they would only repeat them in a label.
DERIVED = {"key_set", "map_type", "map_type_id", "map_flags"}


def label(key, varying):
    bench, params = key
    p = json.loads(params)
    extra = [f"{k}={p[k]}" for k in sorted(varying - DERIVED) if k in p]
    return " ".join([bench] + extra)


def env_differences(a_runs, b_runs):
    """(must_match, warn) lists of 'field: A vs B' for environments that differ."""
    def values(runs, f):
        if f == "clock":
            return {clock_of(r.env) for r in runs if r.env}
        return {json.dumps(r.env.get(f), sort_keys=True) for r in runs if r.env}
    hard, soft = [], []
    for fields, out in ((ENV_MUST_MATCH, hard), (ENV_WARN, soft)):
        for f in fields:
            va, vb = values(a_runs, f), values(b_runs, f)
            if va and vb and va != vb:
                out.append(f"{f}: {', '.join(sorted(va))} vs {', '.join(sorted(vb))}")
    return hard, soft


# ---------------------------------------------------------------- statistics

@dataclass
class Comparison:
    key: tuple
    metric: str
    a: np.ndarray
    b: np.ndarray
    delta_pct: float
    ci_low: float
    ci_high: float
    p: float
    p_adj: float = math.nan        # set by whoever corrects for many comparisons
    verdict: str = ""              # one of verdict.VERDICTS, set by verdict.judge
    result: str = ""               # the verdict in words, with its reason
    mde: float = math.nan          # minimum detectable effect, % (mde_pct)
    direction: int = +1            # +1 higher is better, -1 lower
    unit: str = ""

    def good(self):
        """Delta signed so that positive is better."""
        return self.delta_pct * self.direction


def ratio_ci(a, b, level=0.95, resamples=10000):
    """Percentile bootstrap CI of mean(b) / mean(a), as a percent change."""
    if len(a) < 2 or len(b) < 2:
        return math.nan, math.nan
    if np.ptp(a) == 0 and np.ptp(b) == 0:   # no spread to resample: the ratio is exact
        d = (b[0] / a[0] - 1) * 100
        return d, d
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = stats.bootstrap((a, b), lambda x, y, axis=-1: np.mean(y, axis=axis) / np.mean(x, axis=axis),
                              vectorized=True, paired=False, confidence_level=level,
                              n_resamples=resamples, method="percentile",
                              random_state=np.random.default_rng(12345))
    lo, hi = res.confidence_interval
    return (lo - 1) * 100, (hi - 1) * 100


def p_value(a, b, test):
    if len(a) < 2 or len(b) < 2:
        return math.nan
    if np.all(a == a[0]) and np.all(b == b[0]):
        return 1.0 if a[0] == b[0] else 0.0
    if test == "welch":
        return float(stats.ttest_ind(a, b, equal_var=False).pvalue)
    if test == "yuen":     # Welch's t on 20%-trimmed means: robust to an outlier run
        return float(stats.ttest_ind(a, b, equal_var=False, trim=0.2).pvalue)
    return float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)


_POWER = TTestIndPower()
_POWER_PAIRED = TTestPower()


def pooled_sd(a, b):
    return math.sqrt(((len(a) - 1) * np.var(a, ddof=1) + (len(b) - 1) * np.var(b, ddof=1)) /
                     (len(a) + len(b) - 2))


def _solve(model=_POWER, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(model.solve_power(alpha=kw.pop("alpha"), power=kw.pop("power"),
                                       alternative="two-sided", **kw))


def mde_pct(a, b, alpha, power=0.8):
    """The minimum detectable effect: the smallest change, in % of the first
    set's mean, that a two-sided two-sample t-test at alpha finds with the
    given power, for these run counts and their pooled run-to-run sd
    (statsmodels' TTestIndPower). NaN with fewer than two runs a side."""
    if len(a) < 2 or len(b) < 2 or not np.mean(a):
        return math.nan
    sd = pooled_sd(a, b)
    if sd == 0:
        return 0.0
    d = _solve(effect_size=None, nobs1=len(a), ratio=len(b) / len(a), alpha=alpha, power=power)
    return d * sd / abs(np.mean(a)) * 100


def runs_needed(a, b, pct, alpha, power=0.8):
    """Runs a side that would detect a change of pct % with this noise."""
    if len(a) < 2 or len(b) < 2 or not pct:
        return math.nan
    sd = pooled_sd(a, b)
    if sd == 0:
        return 2
    d = pct / 100 * abs(np.mean(a)) / sd
    # Near-zero noise (the icount clock) makes d huge, where the solver's
    # noncentral t overflows: two runs do once d is past what two runs see.
    if d >= _solve(effect_size=None, nobs1=2, ratio=1.0, alpha=alpha, power=power):
        return 2
    return max(2, math.ceil(_solve(effect_size=d, nobs1=None, ratio=1.0, alpha=alpha, power=power)))


def paired_mde_pct(a, b, alpha, power=0.8):
    """The MDE of a paired comparison (run i of a with run i of b, e.g. the
    same round of an interleaved A/B): from the sd of the per-pair relative
    differences, with a one-sample t power analysis."""
    r = np.asarray(b) / np.asarray(a) - 1
    if len(r) < 2:
        return math.nan
    sd = np.std(r, ddof=1)
    if sd == 0:
        return 0.0
    return _solve(_POWER_PAIRED, effect_size=None, nobs=len(r), alpha=alpha, power=power) * sd * 100


def sequential_look(a, b, target_pct, alpha, looks, power=0.8, paired=False):
    """One look of a sequential A/B that may stop at any of `looks` looks.
    alpha is spent equally over the looks (Bonferroni), so however it stops
    the false-alarm rate stays at or below alpha. Returns (decision, delta %,
    p, MDE %): "difference" when the change is significant at alpha / looks,
    "no change" when the MDE at that level is below target_pct, else
    "continue"."""
    level = alpha / looks
    delta = (np.mean(b) / np.mean(a) - 1) * 100
    a, b = np.asarray(a), np.asarray(b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = paired_p(a, b) if paired else p_value(a, b, "welch")
        mde = mde_of_test("paired" if paired else "welch", a, b, level, power)
    if p < level:
        return "difference", delta, p, mde
    if mde < target_pct:
        return "no change", delta, p, mde
    return "continue", delta, p, mde


def power_sentence(comps, alpha, power, target):
    """"With 5 runs a side and CV 1.8%, changes under 4.1% cannot be seen
    (power 0.8, alpha 0.01); 12 runs a side would see 2%." for the least
    sensitive comparison."""
    worst = max((c for c in comps if c.mde == c.mde), key=lambda c: c.mde, default=None)
    if worst is None:
        return "MDE: needs at least two runs a side."
    cv = pooled_sd(worst.a, worst.b) / abs(np.mean(worst.a)) * 100
    n = runs_needed(worst.a, worst.b, target, alpha, power)
    return (f"MDE: with {len(worst.a)}/{len(worst.b)} runs and CV {cv:.2g}%, changes under "
            f"{worst.mde:.2g}% cannot be seen (power {power:g}, alpha {alpha:g}; "
            f"{label(worst.key, set())}); {n} runs a side would see {target:g}%.")


NOISE_FLOOR = RESULTS / "noise-floor.json"


def _floor_key(cpu_model, metric, key):
    return json.dumps([cpu_model, metric, key[0], json.loads(key[1])], sort_keys=True)


def save_noise_floor(path, comps, cpu_model):
    """Store each comparison of an A/A (two sets of the same build on the same
    kernel) as this machine's noise floor: |delta|, MDE and CV, by CPU model,
    metric and configuration. Later comparisons show it beside their delta."""
    path = Path(path)
    floor = json.loads(path.read_text()) if path.exists() else {}
    for c in comps:
        floor[_floor_key(cpu_model, c.metric, c.key)] = {
            "abs_delta_pct": abs(c.delta_pct), "mde_pct": c.mde if c.mde == c.mde else None,
            "cv_pct": pooled_sd(c.a, c.b) / abs(np.mean(c.a)) * 100
            if len(c.a) > 1 and len(c.b) > 1 else None,
            "runs": [len(c.a), len(c.b)]}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.new")
    tmp.write_text(json.dumps(floor, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def noise_floor_of(path, comps, cpu_model):
    """{comparison key: stored A/A |delta| %} for the comparisons the file knows."""
    path = Path(path)
    if not path.exists():
        return {}
    try:
        floor = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not valid JSON ({e})") from e
    out = {}
    for c in comps:
        entry = floor.get(_floor_key(cpu_model, c.metric, c.key))
        if entry:
            out[c.key] = entry["abs_delta_pct"]
    return out


def outliers(runs, metric, z=3.5, cv_factor=3.0, min_dev=0.005):
    """(run, why) for runs far from their group: a robust z-score (median and
    MAD) above z and more than min_dev (0.5%) from the median, or a within-run
    CV over cv_factor x the group's median within-run CV (and over 2%). The
    min_dev floor keeps a noise-free clock, whose MAD is near zero, from
    calling a 0.01% wobble an outlier."""
    keyed = {}
    for r in runs:
        if metric in r.metrics:
            keyed.setdefault(r.key(), []).append(r)
    out = []
    for rs in keyed.values():
        v = np.array([r.metrics[metric] for r in rs])
        med = np.median(v)
        mad = np.median(np.abs(v - med))
        cvs = np.array([r.within_cv for r in rs])
        med_cv = np.nanmedian(cvs) if np.isfinite(cvs).any() else math.nan
        for r, x, cv in zip(rs, v, cvs):
            why = []
            if len(rs) >= 4 and mad and 0.6745 * abs(x - med) / mad > z \
                    and abs(x / med - 1) > min_dev:
                why.append(f"{(x / med - 1) * 100:+.1f}% from the group's median")
            if np.isfinite(cv) and cv > max(0.02, cv_factor * med_cv):
                why.append(f"within-run CV {cv * 100:.1f}% (group median {med_cv * 100:.1f}%)")
            if why:
                out.append((r, "; ".join(why)))
    return out


def report_outliers(runs, metric):
    for r, why in outliers(runs, metric):
        print(f"note: outlier run {r.source}: {why}")


def holm(pvalues):
    """Holm-adjusted p-values, in the input order (NaN stays NaN)."""
    idx = [i for i, p in enumerate(pvalues) if not math.isnan(p)]
    order = sorted(idx, key=lambda i: pvalues[i])
    adj = [math.nan] * len(pvalues)
    running = 0.0
    m = len(order)
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adj[i] = running
    return adj


def unit_of(runs, metric):
    """The metric's unit, e.g. "k/s per-prod-op" for htab-mem figures; the
    units joined by " / " where runs differ."""
    return " / ".join(sorted({r.unit(metric) for r in runs if metric in r.metrics})) or \
        METRICS[metric][0]


def round_of(run):
    """N of the run-N.json a run came from: its round in an interleaved A/B
    (scripts/suite, suite ab, vmrun: boots alternate, so run N of A and run N
    of B ran next to each other), or None."""
    m = re.search(r"run-(\d+)\.json$", run.source)
    return int(m[1]) if m else None


def paired(a_runs, b_runs, metric, key, ignore=()):
    """(a, b) arrays of the runs of one group that share a round, in round order."""
    def by_round(runs):
        return {round_of(r): r.metrics[metric] for r in runs
                if metric in r.metrics and round_of(r) is not None and r.key(ignore) == key}
    pa, pb = by_round(a_runs), by_round(b_runs)
    common = sorted(set(pa) & set(pb))
    return np.array([pa[n] for n in common]), np.array([pb[n] for n in common])


def paired_p(a, b):
    """p of a paired t-test on the rounds' relative differences b/a - 1."""
    if len(a) < 2:
        return math.nan
    r = b / a - 1
    if np.all(r == r[0]):
        return 1.0 if r[0] == 0 else 0.0
    return float(stats.ttest_1samp(r, 0).pvalue)


def compare(a_runs, b_runs, metric, test="mwu", level=0.95, ignore=()):
    """One Comparison per group present in both sets; parameters in ignore do
    not take part in matching (e.g. max_entries, to set two sizes side by side).
    test "paired" compares the runs of the same round only (round_of)."""
    ga, gb = groups(a_runs, metric, ignore), groups(b_runs, metric, ignore)
    first = {}
    for r in a_runs:
        if metric in r.metrics:
            first.setdefault(r.key(ignore), r)
    out = []
    for key in sorted(set(ga) & set(gb)):
        a, b = ga[key], gb[key]
        if test == "paired":
            a, b = paired(a_runs, b_runs, metric, key, ignore)
            if not len(a):
                continue
        delta = (np.mean(b) / np.mean(a) - 1) * 100 if np.mean(a) else math.nan
        lo, hi = ratio_ci(a, b, level)
        p = paired_p(a, b) if test == "paired" else p_value(a, b, test)
        out.append(Comparison(key, metric, a, b, delta, lo, hi, p,
                              direction=first[key].direction(metric),
                              unit=first[key].unit(metric)))
    return out, sorted(set(ga) ^ set(gb))


def mde_of_test(test, a, b, alpha, power=0.8):
    """The MDE of the test that judges a and b: paired or two-sample."""
    return paired_mde_pct(a, b, alpha, power) if test == "paired" else mde_pct(a, b, alpha, power)


def too_few(c, min_runs):
    """"too few runs (2/2 of 5 a side: 3 more)", or "" where there are enough."""
    if len(c.a) >= min_runs and len(c.b) >= min_runs:
        return ""
    more = min_runs - min(len(c.a), len(c.b))
    return f"too few runs ({len(c.a)}/{len(c.b)} of {min_runs} a side: {more} more)"


def fmt_num(v, digits=3):
    """digits decimals, and at least three significant digits for small values
    (0.000228 K ops/s must not read 0.000)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if v and abs(v) < 10 ** -digits:
        return f"{v:.3g}"
    return f"{v:.{digits}f}"


def better(direction):
    return "higher is better" if direction > 0 else "lower is better"


def comparison_json(c, min_runs=None):
    """One row of --json (compare, report, gate): the same fields whoever prints it."""
    def side(v):
        return {"mean": float(np.mean(v)), "sd": float(np.std(v, ddof=1)) if len(v) > 1 else 0.0,
                "runs": len(v)}
    bench, params = c.key
    return {"benchmark": bench, "params": json.loads(params), "metric": c.metric,
            "unit": c.unit, "direction": better(c.direction), "before": side(c.a),
            "after": side(c.b), "delta_pct": c.delta_pct,
            "ci": [None if math.isnan(x) else x for x in (c.ci_low, c.ci_high)],
            "ci_reliable": min_runs is None or not too_few(c, min_runs),
            "p_holm": None if math.isnan(c.p_adj) else c.p_adj,
            "mde_pct": None if math.isnan(c.mde) else c.mde, "verdict": c.verdict,
            "result": c.result}


def print_json(rows, **extra):
    print(json.dumps(dict(extra, rows=rows), indent=1, sort_keys=True))


def die(msg, status=EXIT_TOOL):
    print(f"{Path(sys.argv[0]).name}: {msg}", file=sys.stderr)
    sys.exit(status)


class ArgumentParser(argparse.ArgumentParser):
    """argparse with a one-line usage error and exit status 64, so that a
    mistyped command never reads as the gate's "inconclusive" (2)."""
    def error(self, message):
        die(f"{message}; see --help", EXIT_USAGE)


def run_main(main):
    """sys.exit(main()), with any unexpected failure as one line and exit 3."""
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except InputError as e:
        die(str(e))
    except Exception as e:  # a bug or an unreadable input: exit 3, never a traceback
        die(f"internal error: {e!r}")


# ---------------------------------------------------------------- tables

def summary_table(runs, metric, fmt="text", width=None):
    """One row per configuration of one set: mean ± stddev (runs) and unit."""
    keyed = {}
    for r in runs:
        if metric in r.metrics:
            keyed.setdefault(r.key(), []).append(r)
    if not keyed:
        return f"(no {metric} in these results)"
    varying = varying_params(list(keyed))
    rows = []
    for key, rs in sorted(keyed.items()):
        v = np.array([r.metrics[metric] for r in rs])
        sd = v.std(ddof=1) if len(v) > 1 else 0.0
        rows.append([label(key, varying), f"{fmt_num(v.mean())} ± {fmt_num(sd)}", str(len(v)),
                     unit_of(rs, metric)])
    return render_table(["Benchmark", f"Mean ± sd ({metric})", "Runs", "Unit"], rows, fmt, width,
                        left=(0, 3))


def render_table(headers, rows, fmt="text", width=None, left=(0,)):
    """Rows as a plain-text table (the cover letters' style), Markdown or Org.
    Columns in left are left-aligned, the others right-aligned. With width,
    the first column is shortened until the table fits."""
    cells = [list(map(str, headers))] + [list(map(str, r)) for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    if width:
        rest = sum(widths[1:]) + 3 * (len(widths) - 1)
        if widths[0] + rest > width:
            widths[0] = max(8, width - rest)
            for r in cells:
                if len(r[0]) > widths[0]:
                    r[0] = r[0][:widths[0] - 1] + "~"

    def line(r):
        out = [c.ljust(w) if i in left else c.rjust(w)
               for i, (c, w) in enumerate(zip(r, widths))]
        if fmt == "text":
            return " | ".join(out).rstrip()
        return "| " + " | ".join(out) + " |"

    sep = {"text": "-|-", "md": "-|-", "org": "-+-"}[fmt]
    rule = sep.join("-" * w for w in widths)
    if fmt != "text":
        rule = ("|-" if fmt == "md" else "|-") + rule + "-|"
    lines = [line(cells[0]), rule] + [line(r) for r in cells[1:]]
    return "\n".join(lines)
