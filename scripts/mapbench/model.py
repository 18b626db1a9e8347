"""What a run is: its configuration (benchmark and parameters), its metrics
with their units and directions, its clock and environment. Loading
(results), statistics (stats) and verdicts (verdict) all speak of these."""
import json
import math
from dataclasses import dataclass, field

SCHEMA = "mapbench-result"
# The versions results reads: ./bench writes the last, upgrade() lifts the others.
SCHEMA_VERSIONS = (2, 3)

# metric -> (unit, direction: +1 higher is better, -1 lower is better).
# "figure" is each benchmark's own headline figure, the default of every
# script; its unit and direction are in the results (bytes: lower is better).
DEFAULT_METRIC = "figure"
# the runs a side a verdict needs on the host clock (mapbench/verdict.py's default)
DEFAULT_MIN_RUNS = 5
METRICS = {
    "figure": ("the benchmark's unit", +1),
    "throughput": ("M ops/s", +1),
    "latency": ("ns/op", -1),
    "kernel_rate": ("M ops/s per producer, in-kernel", +1),
    # readers and writers of one map (htab-lookup-*): each role's own
    "readers_throughput": ("M ops/s of the readers", +1),
    "writers_throughput": ("M ops/s of the writers", +1),
    "readers_latency": ("ns/op of the readers", -1),
    "writers_latency": ("ns/op of the writers", -1),
    # every batch's in-kernel time per op (summary.batches): the tail
    "p50": ("ns/op, median batch", -1),
    "p90": ("ns/op, 90th percentile batch", -1),
    "p99": ("ns/op, 99th percentile batch", -1),
    # the kernel's timing library's figures: the batches within 1.5 IQR
    # (summary.batches.iqr), as bench_bpf_timing.c prints them
    "iqr_median": ("ns/op, median batch within 1.5 IQR", -1),
    "iqr_stddev": ("ns/op, stddev of the batches within 1.5 IQR", -1),
    "iqr_p99": ("ns/op, 99th percentile batch within 1.5 IQR", -1),
    "bytes_per_element": ("B", -1),
    # mem: an element's own bytes (memlock per element less its per-CPU
    # values), and those per-CPU values' bytes over the possible CPUs
    "element_bytes": ("B", -1),
    "per_cpu_bytes": ("B over the possible CPUs", -1),
    "memlock_peak": ("B", -1),
    "charged_avg": ("B charged to the cgroup, mean of the ticks", -1),
    # mem --nr-entries below --max-entries: the part-full map's own bytes
    "memlock_at_fill": ("B memlock of the part-full map", -1),
    "charged_at_fill": ("B charged for the part-full map", -1),
    # --perf's hardware counters per map operation (bare metal: the PMU)
    "instructions": ("instructions/op", -1),
    "cycles": ("cycles/op", -1),
    "cache_references": ("cache references/op", -1),
    "cache_misses": ("cache misses/op", -1),
    "l1d_loads": ("L1D loads/op", -1),
    "l1d_load_misses": ("L1D load misses/op", -1),
    "dtlb_loads": ("dTLB loads/op", -1),
    "dtlb_load_misses": ("dTLB load misses/op", -1),
    # miss ratios: --perf's counts, else the cache model's (labelled modelled)
    "cache_miss_pct": ("% of cache references missed (last level)", -1),
    "l1d_miss_pct": ("% of L1D loads missed", -1),
    "dtlb_miss_pct": ("% of dTLB loads missed", -1),
    # the cache model's counts per map operation (scripts/vmrun --model):
    # exact and repeatable, but modelled, never measured
    "model_cycles": ("modelled cycles/op", -1),
    "llc_misses": ("modelled LLC misses/op", -1),
    "l2_misses": ("modelled L2 misses/op", -1),
    "l1d_misses": ("modelled L1D misses/op", -1),
}
# The batch-time metrics (summary.batches' PERCENTILE_ns): time per op
PERCENTILES = ("p50", "p90", "p99")
# --perf's counters (perf.counters[].name) and the metric each is
PERF_METRICS = {"instructions": "instructions", "cycles": "cycles",
                "cache-references": "cache_references", "cache-misses": "cache_misses",
                "L1-dcache-loads": "l1d_loads", "L1-dcache-load-misses": "l1d_load_misses",
                "dTLB-loads": "dtlb_loads", "dTLB-load-misses": "dtlb_load_misses"}
# A ratio metric: (misses, accesses) from --perf, and from the cache model
# where it models that level (its LLC is looked up on L2 misses; no TLBs)
MISS_RATIOS = {"cache_miss_pct": (("cache_misses", "cache_references"),
                                  ("llc_misses", "l2_misses")),
               "l1d_miss_pct": (("l1d_load_misses", "l1d_loads"), ("l1d_misses", "accesses")),
               "dtlb_miss_pct": (("dtlb_load_misses", "dtlb_loads"), None)}
MODEL_METRICS = ("model_cycles", "llc_misses", "l2_misses", "l1d_misses")

# The clocks a figure can be in. Under icount (scripts/vmrun under TCG) a guest
# nanosecond is one executed instruction: noise-free, blind to cache and memory.
ICOUNT_UNIT = "icount: 1 ns = 1 instruction"
ICOUNT_BLIND_SPOT = ("icount clock: each figure is virtual time (1 ns = 1 executed instruction), "
                     "so code-path changes show to about 0.1% but cache and memory effects do "
                     "not; a memory-saving patch needs host-clock or KVM runs for its speed and "
                     "`./bench mem` for its bytes.")
MODEL_NOTE = ("modelled figures (scripts/vmrun --model): a cache model's misses and cycles on "
              "the instructions the guest ran, exact for each run; a data-cache hierarchy "
              "with true LRU and fixed miss penalties, TLBs with page walks, overlapping "
              "misses, prefetchers (free, but waited for) and a gshare branch predictor "
              "where the machine has them (the predictor where its name asks: NAME:branch; "
              "docs/vm.org), without coherence traffic.")


def clock_note(clock, metric):
    """The sentence a table on this clock and metric ends with, or None."""
    if metric in MODEL_METRICS:
        return MODEL_NOTE
    if metric in MISS_RATIOS:  # counts, on no clock
        return None
    return ICOUNT_BLIND_SPOT if clock in ("icount", "mixed") else None


def model_of(env):
    """The cache model's machine a guest run was counted on, or "none"."""
    return ((env.get("vm") or {}).get("model") or {}).get("name", "none")


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


def layout_fixed(env):
    """A guest run the cache model counted in a boot whose memory layout was
    not drawn (vmrun without --sample-layouts): every boot of a build then
    repeats one layout, and two builds differ by where their objects landed."""
    vm = env.get("vm") or {}
    return bool(vm.get("model")) and vm.get("layout_draw") is None


def layout_drawn(env):
    """A guest run the cache model counted in a boot that drew its own
    memory layout (vmrun --sample-layouts): its draw, else None."""
    vm = env.get("vm") or {}
    return vm.get("layout_draw") if vm.get("model") else None


def clock_of(env):
    """host, or icount for runs in a guest whose clock counted instructions."""
    return (env.get("vm") or {}).get("clock", "host")


def clock_of_runs(*sets):
    """The one clock of these runs, or "mixed"."""
    clocks = {clock_of(r.env) for runs in sets for r in runs}
    return clocks.pop() if len(clocks) == 1 else "mixed"


# Environment fields that make two sets not comparable if they differ
# (the kernel is expected to differ).
# A cache model's figures depend on its machine: sets of two models never compare.
ENV_MUST_MATCH = ["cpu_model", "online_cpus", "bpf_jit_enable", "bpf_jit_harden", "clock",
                  "model"]
ENV_WARN = ["mitigations", "smt_active", "cpufreq_governor", "cpufreq_boost", "host"]
# Fields that every run of one set must share: a set is one kernel, CPU and build.
SET_MUST_SHARE = ["kernel_release", "cpu_model", "mapbench_revision"]


class InputError(Exception):
    """Input that cannot be used (a result file or folder, a suite, a kernel
    tree); the message says why, status is the exit status it ends a
    command with (cli.run: 3, the tools' unreadable input, unless given)."""

    def __init__(self, message, status=3):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, order=True)
class Configuration:
    """What a run measured: its benchmark and parameters. Runs group on it and
    two sets match on it; it sorts by benchmark, then by parameters."""
    benchmark: str
    canonical: str = "{}"           # the parameters as JSON with sorted keys

    @classmethod
    def of(cls, benchmark, params, ignore=()):
        """The configuration of these parameters, those in ignore left out."""
        return cls(benchmark, json.dumps({k: v for k, v in params.items() if k not in ignore},
                                         sort_keys=True))

    @property
    def params(self):
        return json.loads(self.canonical)


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
    round: int = None               # its round in an interleaved series, or None
    profile: list = field(default_factory=list)  # the cache model's per-function rows, per op
    counted: dict = field(default_factory=dict)  # the cache model's counts per op, all of them

    def key(self, ignore=()):
        """The group the run belongs to; the parameters in ignore take no part."""
        return Configuration.of(self.benchmark, self.params, ignore)

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
        return Configuration.of(self.benchmark, self.params)


class Runs(list):
    """The runs of a set, with the files that were left out (.skipped)."""
    def __init__(self, runs=(), skipped=()):
        super().__init__(runs)
        self.skipped = list(skipped)


# Units that name their noun only by a symbol.
UNIT_NOUNS = {"B": "bytes"}


def figure_direction(unit):
    """+1 where a larger figure is better (a rate), -1 where smaller is (a
    time per operation, such as bpf-nop's median ns/op, or bytes)."""
    return -1 if unit.endswith("/op") or unit == "B" else +1


def figure_unit(unit, name):
    """A figure's unit and name as one label, the name's first word left out
    where the unit already says it: "M ops/s throughput", "k/s per-prod-op",
    "M events/s per producer" (not "M events/s events per producer"), "B per
    element"."""
    first, _, rest = name.partition(" ")
    said = first in unit.replace("/", " ").split() or UNIT_NOUNS.get(unit) == first
    return f"{unit} {rest}" if said and rest else f"{unit} {name}"


def unit_of(runs, metric):
    """The metric's unit, e.g. "k/s per-prod-op" for htab-mem figures; the
    units joined by " / " where runs differ."""
    return " / ".join(sorted({r.unit(metric) for r in runs if metric in r.metrics})) or \
        METRICS[metric][0]


def better(direction):
    return "higher is better" if direction > 0 else "lower is better"
