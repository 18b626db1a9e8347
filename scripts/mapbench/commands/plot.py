"""Plots of mapbench results with gnuplot, as PNG (pngcairo) and SVG.

  plot SET --kind summary        one chart per figure unit: every configuration's
                                 mean ± stddev (what make run shows)
  plot SET [--by map]            the figure (or --metric M) against nr-entries, log x,
                                 one line per benchmark and map type, error bars = stddev;
                                 configurations measured at one size only are named, left out
       [--x PARAM] [--xscale log|lin|split] [--y2 METRIC]
                                 another parameter on x (a sweep's); a linear axis, or three
                                 linear panels (small/medium/large); a second metric on y2
  plot BEFORE AFTER              the same, both sets: a colour per line, a dash per set
  plot BEFORE AFTER --kind delta each benchmark's change with its interval (the test's own,
                                 at the verdict's 1 - 2 alpha) and the noise band,
                                 turned so that better is up, coloured by the gate's verdict
                                 (hollow: inconclusive, e.g. fewer than --min-runs runs a side)

Files are named after the set(s) and the kind (plots/SET-curve.png, ...)
unless --name says otherwise; legends name the sets by their folder.
  plot BEFORE [AFTER] --kind memory   bytes per element, before/after bars
  plot SET --kind scaling        throughput and in-kernel latency against producers,
                                 a line per benchmark and placement; prints the
                                 scaling efficiency T(p) / (p x T(1))

Exit status: 0 the plot files were written (their paths printed), 3 unreadable
input, nothing to plot or gnuplot failed, 64 usage error.
"""
import argparse
import math
from pathlib import Path

import numpy as np

from .. import cli, model, output, results, verdict
from ..charts import gnuplot, quoted, slug
from ..paths import ROOT

def set_name(path):
    return Path(path).resolve().name


def axis_range(values):
    """A log axis that starts at the first point, not at the decade below."""
    return f"[{min(values) / 1.5:g}:{max(values) * 1.5:g}]"


def curve_series(a, b, metric, x, by):
    """{(line, side): {x value: [metric of each run]}} of the runs that have both."""
    series = {}
    for side, runs in enumerate((a, b or [])):
        for r in runs:
            if metric not in r.metrics or x not in r.params:
                continue
            line = f"{r.benchmark} {by}={r.params.get(by)}"
            series.setdefault((line, side), {}).setdefault(r.params[x], []).append(
                r.metrics[metric])
    return series


def short(v):
    """4642 -> 4.6K, 1000000 -> 1M: ./bench's suffixes."""
    for div, suffix in ((1e6, "M"), (1e3, "K"), (1, "")):
        if v >= div or div == 1:
            return f"{v / div:.{0 if v / div >= 10 else 1}f}{suffix}"


def split_ranges(xs):
    """Small, medium and large x ranges: the log span cut in three."""
    lo, hi = np.log10(min(xs)), np.log10(max(xs))
    cuts = [10 ** (lo + (hi - lo) * k / 3) for k in range(4)]
    return list(zip(cuts[:-1], cuts[1:]))


def curve(a, b, args):
    metric, x = args.metric, args.x
    if not any(x in r.params for r in a + (b or [])):
        have = sorted({p for r in a + (b or []) for p, v in r.params.items()
                       if isinstance(v, (int, float)) and not isinstance(v, bool)})
        cli.die(f"--x {x} names no parameter of these results; they have "
                f"{', '.join(have) or 'no numeric parameter'} (--kind summary or delta draws "
                "them without one)", cli.EXIT_USAGE)
    unit = model.unit_of(a + (b or []), metric)
    names = [set_name(args.before)] + ([set_name(args.after)] if b else [])
    series = curve_series(a, b, metric, x, args.by)
    # A curve needs two points: single points are named and left out.
    single = sorted({f"{line} ({x} {next(iter(pts))})"
                     for (line, _), pts in series.items() if len(pts) < 2})
    curves = {k: v for k, v in series.items() if len(v) > 1}
    if not curves:
        cli.die(f"no configuration measured at two {x} or more ({metric}); "
                "--kind summary shows every configuration")
    for s_ in single:
        print(f"note: left out {s_}: measured at one {x} only (--kind summary shows it)")
    second = curve_series(a, b, args.y2, x, args.by) if args.y2 else {}
    colours = {line: i + 1 for i, line in enumerate(sorted({line for line, _ in curves}))}
    data, plots = {}, []
    for i, ((line, side), points) in enumerate(sorted(curves.items())):
        rows = [f"{v} {np.mean(m)} {np.std(m, ddof=1) if len(m) > 1 else 0}"
                for v, m in sorted(points.items())]
        data[f"s{i}.dat"] = "\n".join(rows) + "\n"
        title = f"{names[side]}: {line}" if b else line
        plots.append(f"'s{i}.dat' using 1:2:3 with yerrorlines lw 2 lc {colours[line]} "
                     f"dt {side + 1} title {quoted(title)}")
        if (line, side) in second:
            rows = [f"{v} {np.mean(m)}" for v, m in sorted(second[(line, side)].items())]
            data[f"y{i}.dat"] = "\n".join(rows) + "\n"
            plots.append(f"'y{i}.dat' using 1:2 axes x1y2 with linespoints pt 6 lc "
                         f"{colours[line]} dt 3 title {quoted(f'{title}: {args.y2} (right)')}")
    xs = [v for pts in curves.values() for v in pts]
    head = f"""set ylabel '{metric} ({unit}), mean ± stddev of runs' noenhanced
set grid
set offsets 0, 0, graph 0.05, graph 0.05
set yrange [0:*]
set key below noenhanced"""
    if args.y2:
        head += (f"\nset y2label '{args.y2} ({model.unit_of(a + (b or []), args.y2)})' "
                 "noenhanced\nset y2tics\nset y2range [0:*]")
    title = quoted(args.title or f"{metric} against {x}")
    if args.xscale != "split":
        scale = "set logscale x 10" if args.xscale == "log" else "unset logscale x"
        rng = axis_range(xs) if args.xscale == "log" else f"[{min(xs):g}:{max(xs):g}]"
        return (f"set title {title} noenhanced\n{scale}\nset xrange {rng}\n"
                f"set xlabel '{x} ({args.xscale} scale)' noenhanced\n{head}\n"
                f"plot {', '.join(plots)}"), data
    panels = []
    for i, (name, (lo, hi)) in enumerate(zip(("small", "medium", "large"), split_ranges(xs))):
        panels.append(("" if i == 0 else "unset key\n") +
                      f"set title '{name}: {x} {short(lo)} to {short(hi)}' noenhanced\n"
                      f"set xrange [{lo:g}:{hi:g}]\nplot {', '.join(plots)}")
    # one key under the three panels; tick labels in k and M so that they fit
    return (f"set multiplot layout 1,3 title {title} noenhanced\nunset logscale x\n"
            f"set xlabel '{x} (linear)' noenhanced\nset format x '%.1s%c'\n"
            f"set xtics rotate by -45\n{head}\nset bmargin 8\n"
            "set key at screen 0.5, 0.02 center bottom horizontal\n"
            + "\n".join(panels) + "\nunset multiplot"), data


def summary(a, b, args):
    """One bar chart per figure unit: every configuration of the set."""
    if b:
        cli.die("--kind summary plots one set; two sets: --kind delta")
    metric = args.metric
    families = {}
    for r in a:
        if metric in r.metrics:
            families.setdefault(r.unit(metric), []).append(r)
    if not families:
        cli.die(f"no {metric} in these results")
    charts = []
    for unit, runs in sorted(families.items()):
        keyed = {}
        for r in runs:
            keyed.setdefault(r.key(), []).append(r.metrics[metric])
        varying = results.varying_params(list(keyed))
        # a label a line per word: every bar's label fits under it
        rows = [f"{quoted(results.label(k, varying)).replace(' ', chr(92) + 'n')} {np.mean(v)} "
                f"{np.std(v, ddof=1) if len(v) > 1 else 0}" for k, v in sorted(keyed.items())]
        means = [np.mean(v) for v in keyed.values()]
        # bars a hundred times apart (noop beside lookups): a log axis shows both
        wide = min(means) > 0 and max(means) / min(means) > 100
        yaxis = f"set logscale y\nset yrange [{min(means) / 2:g}:*]" if wide else "set yrange [0:*]"
        body = f"""set title {quoted(args.title or f'{set_name(args.before)}: {metric} ({unit})')} noenhanced
set ylabel '{unit}, mean ± stddev of runs{" (log scale)" if wide else ""}' noenhanced
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.7 border -1
set xtics noenhanced font ",8"
set bmargin 6
{yaxis}
set grid ytics
set key off
plot 'bars.dat' using 2:3:xtic(1)"""
        charts.append((slug(unit), body, {"bars.dat": "\n".join(rows) + "\n"}))
    return charts


def scaling_series(runs, metric):
    """{line name: {producers: [values]}}, a line per benchmark, placement and
    every other parameter that is not the producer count."""
    keys = [r.key() for r in runs]
    varying = results.varying_params(keys) - {"producers", "prod_cpus"}
    series = {}
    for r in runs:
        if metric in r.metrics:
            name = results.label(r.key(), varying)
            series.setdefault(name, {}).setdefault(r.params["producers"], []).append(
                r.metrics[metric])
    return {k: v for k, v in series.items() if len(v) > 1}


def axis_unit(runs, metric):
    """The metric's unit without its clock, which the title names once."""
    return model.unit_of(runs, metric).split(" [")[0]


def scaling(a, b, args):
    """Throughput and in-kernel latency against producers, and the efficiency
    T(p) / (p x T(1)) printed per line."""
    if b:
        cli.die("--kind scaling plots one set (a scaling suite run)")
    tput, lat = scaling_series(a, "throughput"), scaling_series(a, "latency")
    if not tput:
        cli.die("no benchmark measured at two producer counts or more (run the scaling suite)")
    data, top, bottom = {}, [], []
    print(f"{'line':50} {'producers':>9} {'M ops/s':>9} {'efficiency':>10}")
    for i, name in enumerate(sorted(tput)):
        base = np.mean(tput[name].get(1, [np.nan]))
        rows = []
        for p, v in sorted(tput[name].items()):
            eff = np.mean(v) / (p * base) if base == base else float("nan")
            print(f"{name:50} {p:9} {np.mean(v):9.3f} {eff:10.2f}")
            lv = lat.get(name, {}).get(p, [float("nan")])
            rows.append(f"{p} {np.mean(v)} {np.std(v, ddof=1) if len(v) > 1 else 0} "
                        f"{np.mean(lv)} {np.std(lv, ddof=1) if len(lv) > 1 else 0}")
        data[f"s{i}.dat"] = "\n".join(rows) + "\n"
        top.append(f"'s{i}.dat' using 1:2:3 with yerrorlines lw 2 title {quoted(name)}")
        bottom.append(f"'s{i}.dat' using 1:4:5 with yerrorlines lw 2 title {quoted(name)}")
    most = max(p for v in tput.values() for p in v)
    title = args.title or "scaling with producers"
    if any((r.env.get("vm") or {}).get("accelerator") == "tcg" for r in a):
        turns = ("a TCG guest: its vCPUs take turns on one host thread, so this shows "
                 "behaviour, not scaling")
        print(f"note: {turns}")
        title += f"\\n({turns})"
    if model.clock_of_runs(a) == "icount":
        title += f"\\n[{model.ICOUNT_UNIT}]"
    body = f"""set multiplot layout 2,1 title {quoted(title)} noenhanced
set xlabel 'producers'
set xtics {1 if most <= 16 else most // 8}
set grid
set key outside right noenhanced
set yrange [0:*]
set ylabel {quoted('throughput (' + axis_unit(a, 'throughput') + ')')} noenhanced
plot {', '.join(top)}
set ylabel {quoted('in-kernel latency (' + axis_unit(a, 'latency') + ')')} noenhanced
plot {', '.join(bottom)}
unset multiplot"""
    return body, data


# How the delta plot draws each verdict: colour, point type, legend.
VERDICT_STYLE = {verdict.REGRESSION: ("#d62728", 7, "regression"),
                 verdict.IMPROVEMENT: ("#2ca02c", 7, "improvement"),
                 verdict.NEGLIGIBLE: ("#7f7f7f", 7, "different, under the threshold"),
                 verdict.NO_CHANGE: ("#1f77b4", 7, "no significant change"),
                 verdict.INCONCLUSIVE: ("#ff7f0e", 6, "inconclusive")}


def delta(a, b, args):
    """Each configuration's change turned so that up is better (a latency
    that falls rises here), the interval its verdict read, coloured by the
    gate's verdict."""
    if not b:
        cli.die("--kind delta needs two sets: plot BEFORE AFTER --kind delta")
    judged = verdict.judge(a, b, args.policy, model.clock_of_runs(a, b))
    comps = [c for c in judged.compared if math.isfinite(c.delta_pct)]
    if not comps:
        cli.die("no benchmark with the same parameters in both sets")
    varying = results.varying_params([c.key for c in comps])
    cvs = [c.a.std(ddof=1) / c.a.mean() * 100 for c in comps if len(c.a) > 1 and c.a.mean()]
    noise = 2 * float(np.median(cvs)) if cvs else 0.0
    data = {}
    for i, c in enumerate(comps):
        good = c.good()
        lo = c.ci_low if c.ci_low == c.ci_low else c.delta_pct
        hi = c.ci_high if c.ci_high == c.ci_high else c.delta_pct
        lo, hi = sorted((lo * c.direction, hi * c.direction))
        tick = f"{results.label(c.key, varying)}\\n({model.better(c.direction)})"
        data[f"{c.verdict}.dat"] = data.get(f"{c.verdict}.dat", "") + \
            f"{i} {good} {lo} {hi} {quoted(tick)}\n"
    series = [f"'{v}.dat' using 1:2:3:4:xtic(5) with yerrorbars pt {pt} ps 1.5 lw 2 "
              f"lc rgb '{colour}' title {quoted(words)}"
              for v, (colour, pt, words) in VERDICT_STYLE.items() if f"{v}.dat" in data]
    n = len(comps)
    mismatch = f" (no verdict: environments differ in {'; '.join(judged.mismatch)})" \
        if judged.mismatch else ""
    title = args.title or (f"{args.metric}: {set_name(args.after)} against "
                           f"{set_name(args.before)}, {output.ci_heading(comps)}{mismatch}")
    body = f"""set title {quoted(title)} noenhanced
set ylabel 'change in {args.metric}, better is up (%)'
set xrange [-0.7:{n - 0.3}]
set xtics rotate by -30 noenhanced
set grid ytics
set bmargin 9
set key below noenhanced
set style fill transparent solid 0.2 noborder
plot {-noise} with filledcurves y1={noise} lc rgb 'gray' title 'noise band (±2 x median CV before: ±{noise:.1f}%)', \\
     {', '.join(series)}, \\
     0 with lines lc rgb 'black' notitle"""
    return body, data


def memory(a, b, args):
    ga = results.groups(a, "bytes_per_element")
    gb = results.groups(b, "bytes_per_element") if b else {}
    if not ga:
        cli.die("no mem results to plot")
    rows = []
    for key, va in ga.items():
        after = gb[key].mean() if key in gb else float("nan")
        rows.append(f"{quoted(key.params['row'])} {va.mean()} {after}")
    cols = f"using 2:xtic(1) title {quoted(set_name(args.before))}" + \
        (f", '' using 3 title {quoted(set_name(args.after))}" if b else "")
    body = f"""set title {quoted(args.title or 'memory per element')}
set ylabel 'bytes per element (kernel accounting)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xtics rotate by -30 noenhanced
set yrange [0:*]
set grid ytics
plot 'mem.dat' {cols}"""
    return body, {"mem.dat": "\n".join(rows) + "\n"}


def main(argv=None):
    ap = cli.ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", help="result file or folder")
    ap.add_argument("after", nargs="?", help="result file or folder")
    ap.add_argument("--kind", choices=["curve", "summary", "delta", "memory", "scaling"],
                    default="curve")
    ap.add_argument("--metric", choices=sorted(model.METRICS),
                    help="default: the policy's (figure, each benchmark's own)")
    ap.add_argument("--min-runs", type=cli.RUNS,
                    help="delta: runs a side a verdict needs (default 5; 2 on the icount clock)")
    ap.add_argument("--policy", help="delta: the gate's policy file, for the verdicts")
    ap.add_argument("--by", default="map", help="curve: parameter that names the lines")
    ap.add_argument("--x", default="nr_entries", help="curve: the parameter on the x axis")
    ap.add_argument("--xscale", choices=["log", "lin", "split"], default="log",
                    help="curve: log (default), linear, or three linear panels (small, "
                         "medium, large ranges)")
    ap.add_argument("--y2", choices=sorted(model.METRICS),
                    help="curve: a second metric on the right axis (e.g. llc_misses)")
    ap.add_argument("--title")
    ap.add_argument("--out", default=str(ROOT / "plots"), help="folder (default plots/)")
    ap.add_argument("--name", help="file name without extension (default: SET[-vs-AFTER]-KIND)")
    args = ap.parse_args(argv)
    args.policy = verdict.override(verdict.load_policy(args.policy), metric=args.metric,
                                   min_runs=args.min_runs)
    args.metric = args.policy["default"]["metric"]
    a = cli.need_runs(results.load_path(args.before), args.before)
    b = cli.need_runs(results.load_path(args.after), args.after) if args.after else None
    name = args.name or "-vs-".join(set_name(p) for p in (args.before, args.after) if p) + \
        f"-{args.kind}"
    if args.kind == "summary":
        charts = [(f"{name}-{part}", body, data) for part, body, data in summary(a, b, args)]
    else:
        body, data = {"curve": curve, "delta": delta, "memory": memory,
                      "scaling": scaling}[args.kind](a, b, args)
        charts = [(name, body, data)]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for chart, body, data in charts:
        for path in gnuplot(body, data, out / chart):
            print(path)
    return 0
