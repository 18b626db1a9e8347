"""CI gate: fail on a confirmed regression between two sets of mapbench
results, not on noise.

Exit status (it follows the rows: any regression fails, any inconclusive
row makes the gate inconclusive):
  0   pass: every benchmark of BEFORE was measured AFTER and none regressed
  1   regression confirmed (significant after Holm correction, beyond the
      threshold and the absolute floor)
  2   inconclusive: too few runs; a pass that the test that judged could
      not have seen (its MDE above the threshold, a change over the
      threshold that is not significant, or a change whose interval at
      1 - 2 alpha reaches past the threshold); a benchmark of BEFORE missing,
      failed or unsupported AFTER; or environments that must not be
      compared (every row then says so, whatever the numbers)
  3   tool error: unreadable input or policy, an impossible figure (not a
      number, negative, zero), a unit that changed between the sets or
      within a configuration, or a set with no completed run at all
  64  usage error (bad command line)

Every configuration of either set is a row: compared, "inconclusive" with
the reason where AFTER cannot match it, or "new" where only AFTER has it
(shown, not judged). The verdicts come from mapbench/verdict.py, the engine
compare, report, plot and ab's per-patch table use too: the same sets under
the same policy get the same verdict in every tool ("verdict" in --json:
regression, improvement, negligible, no change, inconclusive or new).

The policy file (JSON) sets, for all benchmarks and per benchmark:
  {"default": {"metric": "figure", "threshold_pct": 5, "floor": 0,
               "alpha": 0.01, "min_runs": 5, "test": "welch", "power": 0.8,
               "allow_underpowered": false},
   "benchmarks": {"lpm-trie-free": {"metric": "latency", "floor": 100000}}}
threshold_pct is the smallest change that matters: a regression must be
significant ("different") and worse by more than it ("matters"). Where the
policy does not set them, test, threshold_pct and min_runs follow the clock
of the runs: Welch's t, 5% and 5 runs on the host clock; the range rule,
0.5% and 2 runs (boots) a side on the icount clock (scripts/vmrun under
TCG), whose runs agree within 0.1%. metric "figure" (the default, as in
compare, report and plot) is each benchmark's own figure in its unit; floor
is in the metric's unit. Every value is checked before any result is read:
a wrong type or range is one line and exit 3. --json prints one document, a
row per configuration, with the fields compare --json uses.

The tests: "welch" (means, each set its own variance), "yuen" (20%-trimmed
means), "mwu" (Mann-Whitney U: with 2 runs a side it cannot reach 0.01),
"paired" (run N of each set: interleaved A/B runs, suite ab, vmrun), and
"range" (the gap between the means in units of the larger range within a
set, calibrated on Gaussian noise: for a clock with almost none). The MDE
is that test's own, at alpha / (number of comparisons), Holm's strictest
step, with the given power (docs/analysis.org).
"""
import argparse

from .. import cli, model, output, results, verdict, where
from ..model import InputError


def judge_sets(before, after, policy, ignore=()):
    """The result sets at before and after, judged under policy: (a, b, the
    Judgement); InputError where the gate cannot judge them (a set with
    nothing measured, no configuration in both)."""
    a, b = (cli.need_runs(results.load_path(p), p) for p in (before, after))
    judged = verdict.judge(a, b, policy, model.clock_of_runs(a, b), ignore)
    if not judged.rows:
        raise InputError("no benchmark with the same parameters in both sets")
    return a, b, judged


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
    a, b, judged = judge_sets(args.before, args.after, policy,
                              tuple(filter(None, args.ignore.split(","))))
    clock = judged.clock
    status = judged.status()
    if args.json:
        output.print_json(output.judgement_json(judged, policy), tool="gate", exit_status=status,
                          gate=cli.GATE_WORDS[status], where=where.lines(a, b))
        return status
    print(output.gate_table(judged, policy))
    if (note := output.estimate_note(judged.compared, means_too=False)):
        print(note)
    output.report_skipped(a, b)
    for metric in sorted({c.metric for c in judged.rows}):
        output.report_outliers(a, metric)
        output.report_outliers(b, metric)
        for line in output.layout_spread(a, metric, "before") + \
                output.layout_spread(b, metric, "after"):
            print(line)
    for note in sorted({model.clock_note(clock, c.metric) for c in judged.rows} - {None}):
        print(note)
    for line in where.lines(a, b):
        print(line)
    for w in judged.warnings:
        print(f"warning: environments differ in {w}")
    for w in judged.mismatch:
        print(f"error: environments must match but differ in {w}")
    print(output.gate_line(judged))
    return status
