"""Result files and kernel bench logs into runs: loading, schema upgrades, a
guest boot's runs pooled into one sample, the checks a set must pass, and
grouping by configuration.

A run (one ./bench process, or one Summary line of a kernel bench log) is one
sample: its value is the median of its post-warmup intervals. Runs of the same
configuration form a group; groups of two sets are matched on it.
"""
import json
import math
import os
import re
from dataclasses import replace
from pathlib import Path

import numpy as np

from .contracts import line_shapes
from .kernel_log import looks_like_kernel_log, parse_kernel_bench
from .model import (ENV_MUST_MATCH, ENV_WARN, ICOUNT_UNIT, METRICS, MISS_RATIOS, MODEL_METRICS,
                    PERCENTILES, PERF_METRICS, SCHEMA, SCHEMA_VERSIONS, SET_MUST_SHARE, InputError,
                    Run, Runs, Skipped, clock_of, figure_direction, figure_unit, model_of)
from .paths import RESULTS


# Metrics that only a positive value makes sense of: rates, times per op, bytes.
POSITIVE_METRICS = {"figure", "throughput", "latency", "kernel_rate", "bytes_per_element"}
# No figure of a map benchmark comes near this (ns, B, ops/s or counts per op):
# a larger one is a corrupt file, and would overflow the statistics.
POSSIBLE = 1e15


def label_dir(label):
    """Where a set's runs go: results/LABEL, or LABEL itself when it is a path."""
    return RESULTS / label if "/" not in label else Path(label)


def runs_of_document(doc, source):
    """One Run per throughput document; one per memory row for mem; or a
    Skipped for a run that did not complete or measured nothing."""
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise InputError(f"{source}: not a mapbench result (no \"schema\": \"{SCHEMA}\")")
    version = doc.get("schema_version")
    if isinstance(version, bool) or version not in SCHEMA_VERSIONS:
        raise InputError(f"{source}: schema_version {json.dumps(version)} is not supported "
                         f"(this mapbench reads the numbers {', '.join(map(str, SCHEMA_VERSIONS))}); "
                         "rerun ./bench to rewrite it")
    check_fields(doc, source)
    try:
        return _runs_of(upgrade(doc, source), source)
    except KeyError as e:
        raise InputError(f"{source}: malformed mapbench result (no field {e})") from e
    except (TypeError, ValueError, AttributeError) as e:
        raise InputError(f"{source}: malformed mapbench result (a field of the wrong type: "
                         f"{e})") from e


# The fields every result is read by: (path, type, what it must be), and
# those only a completed run's throughput (samples) or memory document has.
# A field may be absent only where its path says "?".
FIELDS = (("benchmark", str, "a string"), ("status", str, "a string"),
          ("params", dict, "an object"), ("environment?", dict, "an object"),
          ("environment.vm?", (dict, type(None)), "an object or null"))
COMPLETE_FIELDS = {"samples": (("samples", list, "a list"), ("summary", dict, "an object"),
                               ("summary.figure", dict, "an object"),
                               ("summary.figure.unit", str, "a string"),
                               ("summary.figure.name", str, "a string")),
                   "memory": (("memory.rows", list, "a list"),)}


def check_fields(doc, source):
    """Refuse, in one line naming the field and the file, a result whose
    fields the analysis reads are missing or of another type."""
    fields = FIELDS
    if doc.get("status") == "complete":
        fields += COMPLETE_FIELDS["memory" if "memory" in doc else "samples"]
    for path, kind, what in fields:
        optional = path.endswith("?")
        path = path.rstrip("?")
        value = doc
        for part in path.split("."):
            if not isinstance(value, dict) or part not in value:
                if optional:
                    break
                raise InputError(f"{source}: no \"{path}\" field: not a complete mapbench "
                                 "result; rerun ./bench to rewrite it")
            value = value[part]
        else:
            if not isinstance(value, kind):
                raise InputError(f"{source}: \"{path}\" is {json.dumps(value)}, not {what}; "
                                 "rerun ./bench to rewrite it")


def upgrade(doc, source):
    """The document in the schema ./bench writes now. Version 2 had no
    environment.round: scripts/suite and vmrun named an interleaved run
    run-N.json, N its round."""
    if doc["schema_version"] == 2:
        m = re.search(r"(^|/)run-(\d+)\.json$", source)
        env = dict(doc.get("environment", {}), round=int(m[2]) if m else None)
        doc = dict(doc, schema_version=3, environment=env)
    return doc


# Parameters added later whose false means what their absence meant before:
# left out when false, so that older results still match newer ones.
FALSE_AS_ABSENT = ("zero_seed",)


def _runs_of(doc, source):
    env = doc.get("environment", {})
    params = {k: v for k, v in doc["params"].items()
              if not (k in FALSE_AS_ABSENT and v is False)}
    if (env.get("vm") or {}).get("warmup"):
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
            for m, field in (("element_bytes", "element_bytes"),
                             ("per_cpu_bytes", "per_cpu_value_bytes")):
                if row.get(field) is not None:
                    metrics[m] = row[field]
            fill = row.get("fill") or {}
            if fill:
                metrics["memlock_at_fill"] = fill["memlock"]
            if fill.get("charged") is not None:
                metrics["charged_at_fill"] = fill["charged"]
            runs.append(Run(source, "mem", p, metrics, env,
                            units={"figure": figure_unit("B", "bytes per element")},
                            directions={"figure": figure_direction("B")},
                            round=env.get("round")))
        return runs
    measured = [s for s in doc["samples"] if not s["warmup"] and s["ops"] > 0]
    if not measured:
        return [Skipped(source, doc["benchmark"], params, "no measured samples")]

    def median(field):
        """The median of the samples that have the field (null: not measured)."""
        values = [s[field] for s in measured if s.get(field) is not None]
        return float(np.median(values)) if values else None
    figure = doc["summary"]["figure"]
    metrics = {m: v for m, v in (("throughput", median("throughput_mops")),
                                 ("latency", median("latency_ns")), ("figure", median("figure")),
                                 ("kernel_rate", median("kernel_mops_per_producer")))
               if v is not None}
    batches = doc["summary"].get("batches") or {}
    for m in PERCENTILES:
        if batches.get(f"{m}_ns") is not None:
            metrics[m] = batches[f"{m}_ns"]
    for m in ("median", "stddev", "p99"):
        if (batches.get("iqr") or {}).get(f"{m}_ns") is not None:
            metrics[f"iqr_{m}"] = batches["iqr"][f"{m}_ns"]
    for role, r in (doc["summary"].get("roles") or {}).items():
        metrics[f"{role}_throughput"] = r["throughput_mops"]["median"]
        metrics[f"{role}_latency"] = r["latency_ns"]["median"]
    memory = doc["summary"].get("memory", {})
    for m in ("memlock_peak", "charged_avg"):
        if memory.get(m) is not None:
            metrics[m] = memory[m]
    dur = sum(s["interval_ns"] for s in measured) / 1e9
    units = {"figure": figure_unit(figure["unit"], figure["name"])}
    for c in (doc.get("perf") or {}).get("counters", []):
        if c["name"] in PERF_METRICS and c["status"] == "ok":
            metrics[PERF_METRICS[c["name"]]] = c["per_op"]
    if clock_of(env) == "icount":
        units = {m: f"{units.get(m, METRICS[m][0])} [{ICOUNT_UNIT}]" for m in metrics}
        for m in metrics:
            if m.endswith("latency") or m in PERCENTILES or m.startswith("iqr_"):
                units[m] = f"instructions/op [{ICOUNT_UNIT}]"
    counted = (doc.get("model") or {}).get("per_op") or {}
    for m in MODEL_METRICS:
        if m in counted:
            metrics[m] = counted[m]
            units[m] = f"{METRICS[m][0]} [{model_of(env)} model]"
    add_miss_ratios(metrics, counted, units, model_of(env))
    cv = doc["summary"].get("throughput_mops", {}).get("cv")
    return [Run(source, doc["benchmark"], params, metrics, env, dur, units,
                cv if cv is not None else math.nan, per_producer=per_producer(doc, measured),
                directions={"figure": figure_direction(figure["unit"])},
                round=env.get("round"), profile=(doc.get("model") or {}).get("profile") or [],
                counted=counted)]


def add_miss_ratios(metrics, counted, units, machine):
    """Miss % of each level --perf counted both sides of, else of the levels
    the cache model counts (its unit says so)."""
    def counts(source, pair):    # (misses, accesses) where both were counted, accesses > 0
        if pair and pair[0] in source and source.get(pair[1]):
            return source[pair[0]], source[pair[1]]
        return None
    for m, (perf, modelled) in MISS_RATIOS.items():
        if (c := counts(metrics, perf)):
            metrics[m] = c[0] / c[1] * 100
        elif (c := counts(counted, modelled)):
            metrics[m] = c[0] / c[1] * 100
            units[m] = f"{METRICS[m][0]} [{machine} model]"


def per_producer(doc, measured):
    """Each producer's M events/s: the kernel's per-CPU lines where the
    benchmark prints them (its own aggregation), else ops over in-kernel
    time of the measured samples."""
    per_task = line_shapes()["per-task"]
    lines = [m for x in doc["summary"].get("kernel_lines") or [] if (m := per_task.match(x))]
    if lines:
        return [per_task.values(m)["figure"] for m in sorted(lines, key=lambda m: int(m["cpu"]))]
    n = len(measured[0].get("producers") or [])
    out = []
    for i in range(n):
        ops = sum(s["producers"][i]["ops"] for s in measured)
        ns = sum(s["producers"][i]["ns"] for s in measured)
        out.append(ops / ns * 1e3 if ns else math.nan)
    return out


def status_of(path):
    """A result file's status (complete, failed, ...), None where there is no
    readable one: what a resumed suite needs of a run it finds."""
    try:
        return json.loads(Path(path).read_text()).get("status")
    except (OSError, json.JSONDecodeError):
        return None


def figure_text(doc):
    """A result document's figure ("8.123 M ops/s throughput"), or its status
    and reason: a progress line's."""
    if doc["status"] != "complete":
        return doc["status"] + (f": {doc['reason']}" if doc.get("reason") else "")
    if "memory" in doc:
        return "complete"
    f = doc["summary"]["figure"]
    return f"{f['mean']:.3f} {figure_unit(f['unit'], f['name'])}"


def file_figure_text(path):
    """figure_text of the result file at path, or "no result written"."""
    try:
        return figure_text(json.loads(Path(path).read_text()))
    except (OSError, KeyError, TypeError, json.JSONDecodeError):
        return "no result written"


def load_path(path, pool_boots=True):
    """Runs from a result file, a kernel bench log, or a folder of them; the
    files left out (failed, unsupported, interrupted, empty) in .skipped.
    pool_boots: a guest boot's runs of a configuration become one (per_boot)."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{path}: no such file or folder")
    files = sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else [p]
    # a link to nothing is left out, and said so as every file left out is
    found = [Skipped(str(q), "", {}, f"a link to {os.readlink(q)}, which does not exist")
             for q in (sorted(p.rglob("*")) if p.is_dir() else []) if q.is_symlink() and not q.exists()]
    for f in files:
        if f.name.endswith((".png", ".svg")) or ".tmp." in f.name:
            continue
        try:
            text = f.read_text(errors="replace")
        except OSError as e:
            raise InputError(f"{f}: cannot be read ({e.strerror}); check its permissions") from e
        if f.suffix == ".json":
            try:
                doc = json.loads(text)
            except json.JSONDecodeError as e:
                raise InputError(f"{f}: not valid JSON ({e})") from e
            found += runs_of_document(doc, str(f))
        elif looks_like_kernel_log(text):
            found += parse_kernel_bench(text, str(f))
        elif not p.is_dir():
            raise InputError(f"{f}: neither a mapbench result (.json) nor a kernel bench log "
                             "(most of its lines should be the bench's Iter/Summary lines)")
    if not found:
        raise InputError(f"{path}: no mapbench results or kernel bench summaries in it")
    measured = [r for r in found if isinstance(r, Run)]
    for r in measured:
        check_figures(r)
    runs = Runs(per_boot(measured) if pool_boots else measured,
                [r for r in found if isinstance(r, Skipped)])
    check_one_set(runs, path)
    return runs


def check_figures(run):
    """Refuse a run whose figures no kernel could have given: not finite,
    negative, zero where only a positive value means anything (a rate, a
    time, bytes), or beyond POSSIBLE."""
    for metric, v in run.metrics.items():
        why = None
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            why = "is not a finite number"
        elif v < 0:
            why = "is negative"
        elif v == 0 and metric in POSITIVE_METRICS:
            why = "is 0, which no completed run measures"
        elif v > POSSIBLE:
            why = f"is over {POSSIBLE:g}"
        if why:
            raise InputError(f"{run.source}: {run.benchmark}'s {metric} ({v!r}) {why}; "
                             "this file cannot be a measurement: remove it or rerun")


def boot_of(env):
    """Which guest boot a run came from, or None for a host run (or a guest
    run that names no boot: then each run is its own sample). Guests
    booted under icount repeat their boot_id (the same RNG state, the same
    RTC), so vmrun's own id of the boot comes first, and without it (results
    of hand or of an older vmrun) the boot's number of its kernel image."""
    vm = env.get("vm")
    if not vm:
        return None
    if vm.get("boot_uid"):
        return vm["boot_uid"]
    if env.get("boot_id"):
        return (env["boot_id"], vm.get("kernel_image"), vm.get("boot"))
    return None


def per_boot(runs):
    """Runs in QEMU guests (scripts/vmrun) share their boot's state, so a boot,
    not a run, is one sample: the runs of one configuration in one boot become
    one Run with their median metrics. Host runs are left as they are."""
    out, boots = [], {}
    for r in runs:
        boot = boot_of(r.env)
        if boot:
            boots.setdefault((r.key(), boot), []).append(r)
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
    first = {}
    for r in runs:
        for metric in r.metrics:
            other = first.setdefault((r.key(), metric), r)
            if other.unit(metric) != r.unit(metric):
                raise InputError(f"{path}: {r.benchmark}'s {metric} is in {other.unit(metric)} in "
                                 f"{other.source} and in {r.unit(metric)} in {r.source}; the runs "
                                 "of one configuration must share a unit: put each in a folder "
                                 "of its own")


def groups(runs, metric, ignore=()):
    """{Configuration: np.array of the metric's values, in run order}, sorted."""
    out = {}
    for r in runs:
        if metric in r.metrics:
            out.setdefault(r.key(ignore), []).append(r.metrics[metric])
    return {k: np.array(out[k], dtype=float) for k in sorted(out)}


def varying_params(keys):
    """Parameter names whose values differ between groups of the same benchmark."""
    seen = {}
    for key in keys:
        for k, v in key.params.items():
            seen.setdefault((key.benchmark, k), set()).add(json.dumps(v))
    return {k for (_, k), vals in seen.items() if len(vals) > 1}


# Parameters derived from others: they would only repeat them in a label.
DERIVED = {"key_set", "map_type", "map_type_id", "map_flags"}


def label(key, varying):
    """"htab-lookup max_entries=1000": the benchmark and the varying parameters."""
    p = key.params
    extra = [f"{k}={p[k]}" for k in sorted(varying - DERIVED) if k in p]
    return " ".join([key.benchmark] + extra)


def env_differences(a_runs, b_runs):
    """(must_match, warn) lists of 'field: A vs B' for environments that differ."""
    def values(runs, f):
        if f == "clock":
            return {clock_of(r.env) for r in runs if r.env}
        if f == "model":
            return {model_of(r.env) for r in runs if r.env}
        return {json.dumps(r.env.get(f), sort_keys=True) for r in runs if r.env}
    hard, soft = [], []
    for fields, out in ((ENV_MUST_MATCH, hard), (ENV_WARN, soft)):
        for f in fields:
            va, vb = values(a_runs, f), values(b_runs, f)
            if va and vb and va != vb:
                out.append(f"{f}: {', '.join(sorted(va))} vs {', '.join(sorted(vb))}")
    return hard, soft
