"""CI gate: fail on a confirmed regression between two sets of mapbench
results, not on noise.

Exit status:
  0   pass: every benchmark of BEFORE was measured AFTER and none regressed
  1   regression confirmed (significant after Holm correction, beyond the
      threshold and the absolute floor)
  2   inconclusive: too few runs; a pass that is underpowered (the runs could
      not have seen a change of the threshold: MDE above it); a benchmark of
      BEFORE missing, failed or unsupported AFTER; or environments that must
      not be compared (also when the numbers differ)
  3   tool error: unreadable input or policy
  64  usage error (bad command line)

The verdicts come from mapbench/verdict.py, the engine compare, report and
ab's per-patch table use too: the same sets under the same policy get the
same verdict in every tool ("verdict" in --json: regression, improvement,
negligible, no change or inconclusive).

The policy file (JSON) sets, for all benchmarks and per benchmark:
  {"default": {"metric": "figure", "threshold_pct": 5, "floor": 0,
               "alpha": 0.01, "min_runs": 5, "test": "welch", "power": 0.8,
               "allow_underpowered": false},
   "benchmarks": {"lpm-trie-free": {"metric": "latency", "floor": 100000}}}
threshold_pct is the smallest change that matters: a regression must be
significant ("different") and worse by more than it ("matters"). Where the
policy does not set them, threshold_pct and min_runs follow the clock of the
runs: 5% and 5 runs on the host clock; 0.5% and 2 runs (boots) a side on
the icount clock (scripts/vmrun under TCG), whose runs agree within 0.1%.
metric "figure" (the default, as in compare, report and plot) is each
benchmark's own figure in its unit; floor is in the metric's unit (the
figure's, M ops/s, ns/op or B). Every value is checked before any result is
read: a wrong type or range is one line and exit 3. --json prints one
document, a row per configuration, with the fields compare --json uses. The default test is Welch's t: with five runs a side, Mann-Whitney U
cannot reach a Holm-corrected alpha of 0.01 over several benchmarks; "yuen"
compares 20%-trimmed means; "paired" pairs run N of each set (interleaved
A/B runs: suite ab, vmrun) and tests the per-round ratios. The MDE is computed at alpha / (number of
comparisons), Holm's strictest step, with the given power.
"""
import argparse

from .. import cli, model, output, results, stats, verdict, where


def judge(a, b, policy, clock, ignore=()):
    """(comparisons, table rows, verdicts) over every benchmark in both sets."""
    comps, _ = verdict.judge(a, b, policy, clock, ignore)
    varying = results.varying_params([c.key for c in comps])
    rows = [[results.label(c.key, varying), f"{c.metric} ({c.unit}, {model.better(c.direction)})",
             f"{c.delta_pct:+.2f}%", f"{verdict.rules_for(policy, c.key.benchmark)['threshold_pct']:g}%",
             f"{output.fmt_num(c.mde, 1)}%", output.fmt_num(c.p_adj, 4), c.result] for c in comps]
    return comps, rows, [c.verdict for c in comps]


def unmeasured_after(a, b, comps, ignore=()):
    """Rows for the configurations of BEFORE with no comparison: AFTER has
    none of them, or only runs that failed or were unsupported, or (the
    paired test) none of the same round."""
    def key(x):
        return model.Configuration.of(x.benchmark, x.params, ignore)
    compared = {c.key for c in comps}
    skipped_after = {}
    for s in b.skipped:
        skipped_after.setdefault(key(s), s.why)
    measured_after = {key(r) for r in b}
    rows = []
    for k in sorted({key(r) for r in a} - compared):
        why = skipped_after.get(k, "no round in common with the runs after (the paired test "
                                   "matches runs by environment.round: ./bench --round N)"
                                if k in measured_after else "no run after")
        rows.append([results.label(k, results.varying_params([k] + list(compared))), "-", "-", "-", "-",
                     "-", f"inconclusive: {why}"])
    return rows


def exit_status(verdicts, env_mismatch):
    """Environments that must not be compared make any verdict inconclusive;
    otherwise a confirmed regression fails, and anything unsure is inconclusive."""
    if env_mismatch:
        return cli.EXIT_INCONCLUSIVE
    if verdict.REGRESSION in verdicts:
        return cli.EXIT_REGRESSION
    if verdict.INCONCLUSIVE in verdicts:
        return cli.EXIT_INCONCLUSIVE
    return cli.EXIT_PASS


def main(argv=None):
    ap = cli.ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", help="result file or folder")
    ap.add_argument("after", help="result file or folder")
    ap.add_argument("--policy", help="policy file (JSON)")
    ap.add_argument("--ignore", default="", help="parameters left out of matching, comma-separated")
    ap.add_argument("--json", action="store_true", help="one JSON document instead of the table")
    ap.add_argument("--metric", choices=sorted(model.METRICS),
                    help="judge every benchmark by this metric instead of the policy's")
    args = ap.parse_args(argv)
    policy = verdict.override(verdict.load_policy(args.policy), metric=args.metric)
    a, b = results.load_path(args.before), results.load_path(args.after)
    cli.need_runs(a, args.before)
    clock = model.clock_of_runs(a, b)
    ignore = tuple(filter(None, args.ignore.split(",")))
    comps, rows, verdicts = judge(a, b, policy, clock, ignore)
    missing = unmeasured_after(a, b, comps, ignore)
    rows += missing
    verdicts += [verdict.INCONCLUSIVE] * len(missing)
    if not rows:
        cli.die("no benchmark with the same parameters in both sets")
    hard, soft = results.env_differences(a, b)
    status = exit_status(verdicts, bool(hard))
    if args.json:
        output.print_json([output.comparison_json(c, verdict.rules_for(policy, c.key.benchmark)["min_runs"])
                           for c in comps], tool="gate", exit_status=status,
                          gate={cli.EXIT_PASS: "pass", cli.EXIT_REGRESSION: "regression",
                                cli.EXIT_INCONCLUSIVE: "inconclusive"}[status],
                          unmeasured=[r[0] + ": " + r[-1] for r in missing], clock=clock,
                          environment_mismatch=hard, where=where.lines(a, b))
        return status
    print(output.render_table(["Benchmark", "Metric", "Delta", "Threshold", "MDE", "p (Holm)", "Result"],
                              rows, left=(0, 1, 6)))
    output.report_skipped(a, b)
    for metric in sorted({c.metric for c in comps}):
        output.report_outliers(a, metric)
        output.report_outliers(b, metric)
    for note in sorted({model.clock_note(clock, c.metric) for c in comps} - {None}):
        print(note)
    for line in where.lines(a, b):
        print(line)
    for w in soft:
        print(f"warning: environments differ in {w}")
    for w in hard:
        print(f"error: environments must match but differ in {w}")
    passed = sum(v not in (verdict.REGRESSION, verdict.INCONCLUSIVE) for v in verdicts)
    print({cli.EXIT_PASS: "gate: pass",
           cli.EXIT_REGRESSION: f"gate: FAIL, {verdicts.count(verdict.REGRESSION)} regression(s)",
           cli.EXIT_INCONCLUSIVE: "gate: inconclusive"}[status] +
          (f" ({len(rows)} benchmarks" if passed == len(rows) else
           f" (none of {len(rows)} passed" if not passed else
           f" ({passed} of {len(rows)} passed") +
          (f"; {stats.geomean_text(g)})" if len(comps) > 1 and (g := stats.geomean(comps))
           else ")"))
    return status
