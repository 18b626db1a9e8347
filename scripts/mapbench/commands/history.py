"""A history of result sets over kernel commits: add a set, list them,
export them, find the change points, plot the trend, and gate a new set
against the last stable segment.

  history add SET --commit REV [--branch B] [--time ISO]   store a set
  history list                                   the sets, oldest first
  history export --csv FILE [--metric M]         Otava's CSV layout: time,
                                                 commit, branch, label, a
                                                 column per configuration
  history changes [--metric M] [--json]          change points per
                                                 configuration: commit, means
                                                 before and after, delta, p,
                                                 the gate's words
  history plot [--metric M]                      plots/history-BENCH-UNIT.png:
                                                 the figure against commit,
                                                 segments' means, change points
  history gate SET [--policy P]                  SET against each configuration's
                                                 last stable segment, judged
                                                 as scripts/gate judges
  history site DIR [--metric M]                  a static web site of the history in DIR:
                                                 an index (each configuration's last change
                                                 and sparkline), a trend page per benchmark
                                                 and unit, a page per set with its gate rows,
                                                 result files and LAVA jobs
  history kcidb SET --commit REV [--origin O]    SET as KCIDB report data (KernelCI's
                                                 schema v4.5): a test per configuration,
                                                 its figure as number {value, unit}

The store is SQLite by default (results/history.sqlite: one file, no
server) or the database --db names (postgresql://USER@HOST/DB for a lab's
runners; the same schema, created on first use). A set is stored with every
run as the results model reads it, so any set of the history can be judged
again. In Python, mapbench.history.frame(mapbench.history.open_store(URL))
gives every run as a pandas DataFrame.

Change points are E-divisive means with Hunter's and Otava's changes
(sliding windows of 30 sets, weak candidates at p 0.01 re-judged at 0.001
against their neighbours), over one point per set (the mean of its runs),
each split tested with Mann-Whitney's U (robust to a failed boot),
Bonferroni-corrected over the splits it was chosen among (docs/analysis.org).
A change point is then worded as the gate words a change: REGRESSION or
improvement beyond the policy's threshold (5% on the host clock, 0.5% under
icount), else "different, but under ...".

Exit status: 0 done (changes: whatever it found; gate: pass), 1 gate: a
regression, 2 gate: inconclusive, 3 unreadable input or store, 64 usage error.
"""
import argparse
import datetime
import json
from pathlib import Path

from .. import cli, history, history_site, kcidb, model, output, results, verdict
from ..paths import ROOT
from ..charts import gnuplot, slug, trend_chart


def add(args, engine):
    runs = cli.need_runs(results.load_path(args.set), args.set)
    when = None
    if args.time:
        try:
            when = datetime.datetime.fromisoformat(args.time)
        except ValueError:
            cli.die(f"--time {args.time}: not an ISO time (2026-12-03T14:00:00+00:00)",
                    cli.EXIT_USAGE)
    set_id = history.add(engine, runs, results.label_dir(args.set).name, args.commit,
                         args.branch, when)
    print(f"history: added {args.set} as set {set_id} (commit {args.commit}, {len(runs)} runs)")


def list_sets(args, engine):
    rows = [[str(s["id"]), str(s["time"])[:19], s["kernel_commit"], s["branch"] or "-",
             s["label"], s["clock"], s["kernel_release"] or "-"]
            for s in history.sets(engine, args.branch)]
    if not rows:
        print("history: no sets yet (history add SET --commit REV)")
        return
    print(output.render_table(["Set", "Time", "Commit", "Branch", "Label", "Clock", "Kernel"],
                              rows, left=(1, 2, 3, 4, 5, 6)))


def export(args, engine):
    h = history.load(engine, args.branch)
    if not h.sets:
        cli.die("the history has no sets to export (history add SET --commit REV)")
    history.otava_csv(h, args.metric, args.csv)
    print(f"history: wrote {args.csv}")


def found_changes(engine, args):
    """[(series, [(change point, verdict, words)])] for every configuration."""
    return history.weighed_changes(history.load(engine, args.branch), args.metric, args.policy)


def changes(args, engine):
    found = found_changes(engine, args)
    if not found:
        cli.die(f"no {args.metric} in the history")
    if args.json:
        print(json.dumps([{"benchmark": one.key.benchmark, "params": one.key.params,
                           "metric": one.metric, "unit": one.unit,
                           "direction": model.better(one.direction), "points": len(one.values),
                           "changes": [{"commit": one.commits[c.index], "index": c.index,
                                        "mean_before": c.mean_before, "mean_after": c.mean_after,
                                        "delta_pct": c.delta_pct, "p": c.p, "verdict": v,
                                        "result": words} for c, v, words in points]}
                          for one, points in found], indent=1))
        return
    varying = results.varying_params([one.key for one, _ in found])
    rows = []
    for one, points in found:
        for c, _, words in points:
            rows.append([results.label(one.key, varying), one.commits[c.index],
                         f"{output.fmt_num(c.mean_before)} -> {output.fmt_num(c.mean_after)} "
                         f"{one.unit}", output.fmt_pct(c.delta_pct), f"{c.p:.2g}", words])
    if rows:
        print(output.render_table(["Benchmark", "First commit after", "Means", "Delta", "p",
                                   "Verdict"], rows, left=(0, 1, 5)))
    quiet = sum(not points for _, points in found)
    print(f"history: {len(rows)} change point(s) in {len(found)} configuration(s); "
          f"{quiet} without one")


def plot_trend(args, engine):
    by_chart = {}
    for one, points in found_changes(engine, args):
        by_chart.setdefault((one.key.benchmark, one.unit), []).append((one, points))
    if not by_chart:
        cli.die(f"no {args.metric} in the history")
    for (bench, unit), lines in sorted(by_chart.items()):
        body, data = trend_chart(bench, unit, lines)
        for path in gnuplot(body, data, args.out / f"history-{slug(bench)}-{slug(unit)}"):
            print(path)


def gate(args, engine):
    b = cli.need_runs(results.load_path(args.set), args.set)
    metric = args.policy["default"]["metric"]
    a = history.last_stable(history.load(engine, args.branch), metric)
    if not a:
        cli.die(f"the history has no {metric} to judge against (history add SET first)")
    judged = verdict.judge(a, b, args.policy, model.clock_of_runs(a, b))
    print(output.gate_table(judged, args.policy))
    print(f"(before: each configuration's last stable segment of the history, "
          f"{len(a)} runs)")
    print(output.gate_line(judged))
    return judged.status()


def site(args, engine):
    h = history.load(engine, args.branch)
    if not h.sets:
        cli.die("the history has no sets to show (history add SET --commit REV)")
    pages = history_site.build(h, args.metric, args.policy, args.dir,
                               engine.url.render_as_string(hide_password=True))
    print(f"history: wrote {len(pages)} pages in {args.dir} (open {args.dir / 'index.html'})")


def to_kcidb(args):
    runs = cli.need_runs(results.load_path(args.set), args.set)
    print(kcidb.dumps(kcidb.document(runs, args.origin, args.commit, args.branch, args.tree,
                                     args.metric or model.DEFAULT_METRIC)))


def main(argv=None):
    ap = cli.ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    shared = argparse.ArgumentParser(add_help=False)
    shared.add_argument("--db", help="the store's URL (default sqlite:///results/history.sqlite)")
    shared.add_argument("--branch", help="the set's branch (add); only that branch's sets (others)")
    sub = ap.add_subparsers(dest="verb", required=True, parser_class=cli.ArgumentParser)
    p = sub.add_parser("add", help="store a result set", parents=[shared])
    p.add_argument("set", help="result folder (results/LABEL)")
    p.add_argument("--commit", required=True, help="the kernel commit the set measured")
    p.add_argument("--time", help="the commit's time, ISO 8601 (default: now)")
    sub.add_parser("list", help="the sets, oldest first", parents=[shared])
    for name, what in (("export", "Otava's CSV"), ("changes", "change points"),
                       ("plot", "trend plots"), ("gate", "judge a set"),
                       ("site", "a static web site")):
        p = sub.add_parser(name, help=what, parents=[shared])
        p.add_argument("--metric", choices=sorted(model.METRICS),
                       help="default: the policy's (figure, each benchmark's own)")
        p.add_argument("--policy", help="the gate's policy file: its metric and thresholds")
        if name == "export":
            p.add_argument("--csv", required=True, help="the file to write")
        if name == "changes":
            p.add_argument("--json", action="store_true")
        if name == "plot":
            p.add_argument("--out", default=str(ROOT / "plots"), help="folder (default plots/)")
        if name == "gate":
            p.add_argument("set", help="the new result folder")
        if name == "site":
            p.add_argument("dir", type=Path, help="the folder to write the site in")
    p = sub.add_parser("kcidb", help="a set as KCIDB report data", parents=[shared])
    p.add_argument("set", help="result folder")
    p.add_argument("--commit", required=True, help="the kernel commit the set measured")
    p.add_argument("--origin", default="mapbench", help="KCIDB origin (default mapbench)")
    p.add_argument("--tree", help="KCIDB tree_name (e.g. bpf-next)")
    p.add_argument("--metric", choices=sorted(model.METRICS), help="default: figure")
    args = ap.parse_args(argv)
    if hasattr(args, "policy"):
        args.policy = verdict.override(verdict.load_policy(args.policy), metric=args.metric)
        args.metric = args.policy["default"]["metric"]
    if hasattr(args, "out"):
        args.out = Path(args.out)
        args.out.mkdir(parents=True, exist_ok=True)
    if args.verb == "kcidb":          # a set alone: no store to open (or make)
        return to_kcidb(args)
    engine = history.open_store(args.db)
    return {"add": add, "list": list_sets, "export": export, "changes": changes,
            "plot": plot_trend, "gate": gate, "site": site}[args.verb](args, engine) or 0
