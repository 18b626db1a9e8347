"""What the scripts print: tables in the cover letters' style (text,
Markdown, Org), the --json rows every tool shares, and notes on runs left
out or far from their group."""
import json
import math

import numpy as np

from . import cli, verdict
from .model import MODEL_METRICS, better, layout_drawn, unit_of
from .results import label, varying_params
from .verdict import rules_for
from .stats import (MAX_RUNS, TESTS, geomean, geomean_text, outliers, pooled_sd, runs_needed,
                    too_few)


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


def power_sentence(comps, test, alpha, power, target):
    """"With 5 runs a side and CV 1.8%, changes under 4.1% cannot be seen
    (power 0.8, alpha 0.01); 12 runs a side would see 2%." for the least
    sensitive comparison, by the test that judged."""
    worst = max((c for c in comps if c.mde == c.mde), key=lambda c: c.mde, default=None)
    if worst is None:
        return "MDE: needs at least two runs a side."
    cv = pooled_sd(worst.a, worst.b) / abs(np.mean(worst.a)) * 100
    n = runs_needed(test, worst.a, worst.b, target, alpha, power)
    more = f"more than {MAX_RUNS}" if n > MAX_RUNS else str(n)
    return (f"MDE: with {len(worst.a)}/{len(worst.b)} runs and CV {cv:.2g}%, changes under "
            f"{worst.mde:.2g}% cannot be seen by the {TESTS[test].words} (power {power:g}, "
            f"alpha {alpha:g}; {label(worst.key, set())}); {more} runs a side would see "
            f"{target:g}%.")


def ci_heading(comps):
    """"98% CI": the confidence of the rows' intervals ("CI" where they differ)."""
    levels = {c.ci_level for c in comps}
    return f"{levels.pop() * 100:g}% CI" if len(levels) == 1 else "CI"


def estimate_note(comps, means_too=True):
    """"Delta: the ratio of 20%-trimmed means, ...": what the rows' deltas and
    intervals estimate (the test's own estimate); None where they are the
    ratio of the means shown and means_too is False."""
    said = sorted({c.estimate for c in comps})
    if not said or (said == ["ratio of means"] and not means_too):
        return None
    return (f"Delta and its interval: the {' or the '.join(said)} (the estimate of the test that "
            "judged" + (", not the ratio of the means shown)" if said != ["ratio of means"]
                        else ")"))


def report_outliers(runs, metric):
    for r, why in outliers(runs, metric):
        print(f"note: outlier run {r.source}: {why}")


def layout_spread(runs, metric, side=""):
    """A line per configuration of runs the cache model counted in boots
    that each drew their own memory layout (vmrun --sample-layouts): how
    far placement alone moves a modelled metric, the sd of the boots'
    figures against their mean, so that a reviewer sees when a change is
    within what layouts do. No line for other metrics or runs."""
    if metric not in MODEL_METRICS:
        return []
    keyed = {}
    for r in runs:
        if metric in r.metrics and (draw := layout_drawn(r.env)) is not None:
            keyed.setdefault(r.key(), []).append((draw, r.metrics[metric]))
    varying = varying_params(list(keyed))
    lines = []
    for key, drawn in sorted(keyed.items()):
        v = np.array([x for _, x in drawn])
        if len({d for d, _ in drawn}) < 2 or not v.mean():
            continue
        spread = fmt_pct(v.std(ddof=1) / abs(v.mean()) * 100, sign=False)
        lines.append(f"layouts{f' ({side})' if side else ''}: {label(key, varying)}: {metric} "
                     f"moves {spread} between layouts (sd of {len(v)} boots' figures, each "
                     "boot its own draw)")
    return lines


def fmt_pct(v, digits=2, sign=True):
    """"+1.23%", or "-" where there is no number."""
    if v is None or not math.isfinite(v):
        return "-"
    return f"{v:{'+' if sign else ''}.{digits}f}%"


def fmt_num(v, digits=3):
    """digits decimals, and at least three significant digits for small values
    (0.000228 K ops/s must not read 0.000)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if v and abs(v) < 10 ** -digits:
        return f"{v:.3g}"
    return f"{v:.{digits}f}"


def finite(x):
    """x, or None where it is NaN or infinite (JSON has neither)."""
    return None if x is None or not math.isfinite(x) else float(x)


def comparison_json(c, min_runs=None):
    """One row of --json (compare, report, gate): the same fields whoever prints it."""
    def side(v):
        return {"mean": finite(np.mean(v)) if len(v) else None,
                "sd": float(np.std(v, ddof=1)) if len(v) > 1 else 0.0, "runs": len(v)}
    return {"benchmark": c.key.benchmark, "params": c.key.params, "metric": c.metric,
            "unit": c.unit, "direction": better(c.direction), "before": side(c.a),
            "after": side(c.b), "delta_pct": finite(c.delta_pct),
            "estimate": c.estimate, "ci": [finite(x) for x in (c.ci_low, c.ci_high)],
            "ci_level": c.ci_level, "ci_reliable": min_runs is None or not too_few(c, min_runs),
            "p_holm": finite(c.p_adj), "mde_pct": finite(c.mde), "verdict": c.verdict,
            "result": c.result}


def judgement_json(judged, policy):
    """The fields every tool's --json shares: a row per configuration, the
    clock, the environments that must match but differ, the geomean."""
    g = geomean(judged.compared)
    return {"rows": [comparison_json(c, rules_for(policy, c.key.benchmark)["min_runs"])
                     for c in judged.rows],
            "clock": judged.clock, "environment_mismatch": judged.mismatch,
            "geomean": vars(g) if g else None}


def print_json(doc, **extra):
    print(json.dumps(dict(extra, **doc), indent=1, sort_keys=True))


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


def gate_rows(judged, policy):
    """The gate's rows, a list of cells per configuration (compared, missing
    after, or new): what its table shows, and the history site's."""
    varying = varying_params([c.key for c in judged.rows])
    return [[label(c.key, varying), f"{c.metric} ({c.unit}, {better(c.direction)})",
             fmt_pct(c.delta_pct), f"{rules_for(policy, c.key.benchmark)['threshold_pct']:g}%",
             fmt_pct(c.mde, 1, sign=False), fmt_num(c.p_adj, 4), c.result]
            for c in judged.rows]


GATE_HEADS = ["Benchmark", "Metric", "Delta", "Threshold", "MDE", "p (Holm)", "Result"]


def gate_table(judged, policy):
    """The gate's table."""
    return render_table(GATE_HEADS, gate_rows(judged, policy), left=(0, 1, 6))


def gate_line(judged):
    """"gate: FAIL, 1 regression(s) (3 of 4 passed; geomean ...)"."""
    status, verdicts = judged.status(), judged.verdicts()
    judged_rows = [v for v in verdicts if v != verdict.NEW]
    passed = sum(v not in (verdict.REGRESSION, verdict.INCONCLUSIVE) for v in judged_rows)
    head = {cli.EXIT_PASS: "gate: pass",
            cli.EXIT_REGRESSION: f"gate: FAIL, {verdicts.count(verdict.REGRESSION)} regression(s)",
            cli.EXIT_INCONCLUSIVE: "gate: inconclusive"}[status]
    n = len(judged_rows)
    counted = (f"{n} benchmarks" if passed == n else f"none of {n} passed" if not passed
               else f"{passed} of {n} passed")
    new = verdicts.count(verdict.NEW)
    counted += f"; {new} new, not judged" if new else ""
    comps = judged.compared
    g = geomean(comps) if len(comps) > 1 else None
    return f"{head} ({counted}" + (f"; {geomean_text(g)})" if g else ")")
