"""mapbench's own tables: the delta table (two sets, judged as the gate
judges), one set's summary, seed 003's memory table, the matrix, and seed
001's per-task table."""
import numpy as np

from .base import NAMERS, Style, mean_sd, si
from .. import model, output, results, stats, verdict
from ..model import InputError


def row_label(key, varying):
    """A row's name: a kernel tool's, where one names it, else its
    configuration's."""
    return next((name for n in NAMERS if (name := n.label(key, varying))), None) or \
        results.label(key, varying)


def row_order(c):
    """The kernel tools' rows first, in their scripts' orders; then the
    others, by configuration."""
    for i, n in enumerate(NAMERS):
        if (k := n.order(c)) is not None:
            return (0, i, k, "")
    return (1, 0, (), c.key.benchmark + c.key.canonical)


def delta_comparisons(a, b, args):
    """Every configuration of the delta table, judged as the gate judges them."""
    judged = verdict.judge(a, b, args.policy, model.clock_of_runs(a, b))
    if not judged.compared:
        raise InputError(f"no benchmark with the same parameters in both sets ({args.metric})")
    judged.rows.sort(key=row_order)
    return judged


def verdict_line(judged):
    """The rows' verdicts in one line, under the gate's rules; the rows
    that changed, or could not be judged, are named."""
    by_verdict = {}
    for c in judged.rows:
        by_verdict.setdefault(c.verdict, []).append(c)
    named = (verdict.REGRESSION, verdict.IMPROVEMENT, verdict.NEW)
    parts = [f"{len(cs)} {word}" + (f" ({', '.join(row_label(c.key, set()) for c in cs)})"
                                    if word in named else "")
             for word, cs in by_verdict.items()]
    line = "Verdicts (scripts/gate's rules): " + "; ".join(parts)
    if judged.mismatch:
        line += f"\nNo verdict: environments must match but differ in {'; '.join(judged.mismatch)}"
    return line


def delta_table(a, b, args):
    metric = args.metric
    judged = delta_comparisons(a, b, args)
    comps = judged.rows
    scale = 1
    if metric == "throughput":
        scale = {"kops": 1e3, "mops": 1}[args.unit]
    units = {c.key: c.unit for c in comps}
    if metric == "throughput":
        units = dict.fromkeys(units, {"kops": "K ops/s", "mops": "M ops/s"}[args.unit])
    varying = results.varying_params([c.key for c in comps])
    one_unit = len({(units[c.key], c.direction) for c in comps}) == 1
    rows = [[row_label(c.key, varying)] +
            ([] if one_unit else [f"{units[c.key]} ({model.better(c.direction).split()[0]})"]) +
            [mean_sd(c.a, scale, 2), mean_sd(c.b, scale, 2), output.fmt_pct(c.delta_pct)] +
            ([] if c.verdict not in (verdict.INCONCLUSIVE, verdict.NEW) or len(c.a) and len(c.b)
             else [c.result])
            for c in comps]
    g = stats.geomean(judged.compared)
    if g and g.n > 1:
        rows.append([f"geomean of {g.n} ({stats.GEOMEAN_WORDS})"] +
                    ([] if one_unit else ["ratio"]) + ["", "", f"{g.delta_pct:+.2f}% "
                    f"[{g.ci_low:+.1f}, {g.ci_high:+.1f}]"])
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    dirs = {c.direction for c in comps}
    said = [f"all in {units[comps[0].key]}"] if one_unit else []
    said += [model.better(dirs.pop())] if len(dirs) == 1 else []
    first = f"Benchmark ({', '.join(said)})" if said else "Benchmark"
    base = 4 if one_unit else 5
    heads = [first] + ([] if one_unit else ["Unit (better)"]) + \
        ["Avg. Before", "Avg. After", "Delta"] + ["Note"] * (width - base)
    left = (0,) + ((1,) if not one_unit else ()) + ((base,) if width > base else ())
    note = output.estimate_note(judged.compared, means_too=False)
    return verdict_line(judged) + "\n" + \
        output.render_table(heads, rows, args.format, args.width, left=left) + \
        (f"\n{note}" if note else "")


def summary_table(a, b, args):
    """One set: each configuration's mean ± sd."""
    return output.summary_table(a, args.metric, args.format, args.width)


def memory_table(a, b, args):
    """Seed 003's memory table; a row only one set has shows "-" on the other."""
    ga = results.groups(a, "bytes_per_element")
    gb = results.groups(b, "bytes_per_element") if b else {}
    if not ga:
        raise InputError("no mem results in the first set")
    rows = []
    for key in sorted(set(ga) | set(gb)):
        label = key.params["row"]
        old, new = (ga[key].mean() if key in ga else None), (gb[key].mean() if key in gb else None)
        if not b:
            rows.append([label, f"{old:.0f} B"])
            continue
        saving = f"{(old - new) / old * 100:.1f}%" if old and new is not None else "-"
        rows.append([label, "-" if old is None else f"{old:.0f} B",
                     "-" if new is None else f"{new:.0f} B", saving])
    heads = ["Map Type & Configuration", "Size"] if not b else \
        ["Map Type & Configuration", "Old size", "New size", "Savings"]
    return output.render_table(heads, rows, args.format, args.width)


# The matrix's own columns; any other parameter that varies names the row.
MATRIX_COLUMNS = ("key_size", "max_entries", "nr_entries")


def matrix_rows(a, b, args):
    """(column names, {configuration: (A mean, B mean)}): every configuration
    measured on both sides, keyed whole, so that no two share a row."""
    metric = args.metric
    sides = {}
    if args.by:
        param, _, values = args.by.partition("=")
        va, vb = values.split(",")
        for r in a:
            v = str(r.params.get(param))
            if v not in (va, vb) or metric not in r.metrics:
                continue
            rest = {k: x for k, x in r.params.items() if k not in (param, "map_type", "map_type_id")}
            sides.setdefault(model.Configuration.of(r.benchmark, rest), {}) \
                .setdefault(v == vb, []).append(r.metrics[metric])
        names = (va, vb)
    else:
        for side, runs in ((False, a), (True, b)):
            for r in runs:
                if metric in r.metrics:
                    sides.setdefault(r.key(), {}).setdefault(side, []).append(r.metrics[metric])
        names = ("before", "after")
    cells = {key: (np.mean(s[False]), np.mean(s[True])) for key, s in sides.items()
             if False in s and True in s}
    one_side = sorted(key for key, s in sides.items() if not (False in s and True in s))
    return names, cells, one_side


def matrix_label(key, varying):
    """The benchmark and whatever else varies, the matrix's columns left out."""
    return results.label(key, varying - set(MATRIX_COLUMNS))


def matrix_table(a, b, args):
    if not args.by and not b:
        raise InputError("--style matrix needs --by PARAM=A,B or two sets")
    if args.by and b:       # --by within each set: the set before's table, then after's
        return "\n\n".join(f"{side} ({path}):\n" + matrix_table(runs, None, args)
                            for side, runs, path in (("Before", a, args.before),
                                                     ("After", b, args.after)))
    names, cells, one_side = matrix_rows(a, b, args)
    if not cells:
        raise InputError("no configuration measured on both sides")
    varying = results.varying_params(list(cells) + one_side)
    several = len({matrix_label(k, varying) for k in cells}) > 1
    rows = []
    for key, (x, y) in sorted(cells.items(), key=lambda kv: (
            kv[0].benchmark, [kv[0].params.get(c, 0) for c in MATRIX_COLUMNS], kv[0].canonical)):
        p = key.params
        ratio, delta = (f"{y / x:.2f}x", f"{round((y / x - 1) * 100) + 0:+d} %") if x else ("-", "-")
        rows.append(([matrix_label(key, varying)] if several else []) +
                    [str(p.get("key_size", "-")),
                     si(p["max_entries"]) if "max_entries" in p else "-",
                     si(p["nr_entries"]) if "nr_entries" in p else "-",
                     f"{x:.2f}", f"{y:.2f}", ratio, delta])
    heads = (["configuration"] if several else []) + ["key", "max", "nr", *names, "ratio", "delta"]
    metric = args.metric
    unit = model.unit_of(a + (b or []), metric)
    notes = "".join(f"\nnote: only on one side: {matrix_label(k, varying)}" for k in one_side)
    return f"{metric} ({unit}):\n" + \
        output.render_table(heads, rows, args.format, args.width, left=(0,) if several else ()) + \
        notes


def per_cpu_means(runs):
    """{configuration: (each producer's mean over the runs, runs, unit)}; a
    per-task figure in events/s is put back in events per sec, as the
    kernel's lines print it, others stay M ops/s of in-kernel time."""
    out, grouped = {}, {}
    for r in runs:
        grouped.setdefault(r.key(), []).append(r)
    for key, group in grouped.items():
        lists = [r.per_producer for r in group if r.per_producer]
        lists = [x for x in lists if len(x) == len(lists[0])]
        if not lists:
            continue
        events = group[0].unit("figure").startswith("events/s")
        scale, unit = (1e6, "events per sec") if events else (1, "M ops/s in-kernel")
        out[key] = (np.mean(lists, axis=0) * scale, len(lists), unit)
    return out


def per_cpu_table(a, b, args):
    """Seed 001's figure per task: for each configuration, a row per CPU (a
    producer pinned to it), before and after and the delta, then the mean."""
    before, after = per_cpu_means(a), per_cpu_means(b) if b else {}
    tables, varying = [], results.varying_params(list(before) + list(after))
    unplaced = []
    for key in sorted(set(after) - set(before), key=lambda k: k.canonical):
        unplaced.append(f"{results.label(key, varying)}: only after")
    for key, (va, na, unit) in sorted(before.items(), key=lambda kv: kv[0].canonical):
        if b and key not in after:
            unplaced.append(f"{results.label(key, varying)}: no run after")
            continue
        if b and len(after[key][0]) != len(va):
            unplaced.append(f"{results.label(key, varying)}: {len(va)} tasks before, "
                            f"{len(after[key][0])} after")
            continue
        digits = 0 if unit == "events per sec" else 2
        vb = after[key][0] if b else None

        def row(label, x, y):
            return [label, f"{x:.{digits}f}"] + \
                ([f"{y:.{digits}f}", f"{(y / x - 1) * 100:+.2f}%"] if b else [])
        rows = [row(str(i), x, vb[i] if b else None) for i, x in enumerate(va)]
        rows.append(row("mean", va.mean(), vb.mean() if b else None))
        runs = f"{na} run{'s' if na > 1 else ''}" + (f" / {after[key][1]}" if b else "")
        heads = ["CPU", "Before", "After", "Delta"] if b else ["CPU", "Per task"]
        tables.append(f"{results.label(key, varying)} ({unit} per task; {runs})\n" +
                      output.render_table(heads, rows, args.format, args.width, left=(0,)))
    if not tables:
        raise InputError("no configuration with per-task figures" + (" in both sets" if b else ""))
    return "\n\n".join(tables + [f"note: not shown: {x}" for x in unplaced])


DELTA = Style("delta", (1, 2), delta_table)
STYLES = (DELTA,
          Style("memory", (1, 2), memory_table),
          Style("matrix", (1, 2), matrix_table),
          Style("per-cpu", (1, 2), per_cpu_table))
