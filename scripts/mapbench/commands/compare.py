"""Compare two sets of mapbench results (before, after): one row per matched
benchmark with mean ± stddev, delta and its interval (the estimate of the
test that judged, at 1 - 2 alpha), p-value, MDE and a verdict.

Metrics: figure (default, as in report, gate and plot: each benchmark's own
figure in its unit and clock, e.g. htab-mem's per-prod-op k/s, mem's bytes
per element), throughput (M ops/s of wall time), latency (ns/op of in-kernel
time), kernel_rate, bytes_per_element, memlock_peak. The header says whether
higher or lower is better. --json prints one document, a row per
configuration, with the fields report --json and gate --json use.

The verdict is the gate's (mapbench/verdict.py judges for every tool):
Welch's t at alpha 0.01 on the host clock and the range rule under icount,
Holm-corrected over the rows; a change must exceed the threshold to matter
(--min-effect: 5% on the host clock, 0.5% on the icount clock) and 5 runs a
side (2 boots on the icount clock) before any verdict. --policy reads the
gate's policy file; the options below override it for every benchmark.
Verdicts: REGRESSION, improvement, "different, but under PCT%: does not
matter" (and its interval lies within the threshold), "no significant
change" (the test that judged could have seen the threshold, and the
interval lies within it), inconclusive (a change whose interval reaches
past the threshold, and how far; too few runs; underpowered: the test
could not have seen a change of the threshold, and how many runs would; a
configuration the other set cannot match; environments that must match
but differ), or new (only after). Each test's delta and interval are its
own estimate: the means' ratio (Welch, range), the 20%-trimmed means'
(Yuen), the Hodges-Lehmann shift (Mann-Whitney), the rounds' mean ratio
(paired); the footer names it.

MDE is the minimum detectable effect of the test that judged: the smallest
change it confirms at Holm's strictest level with --power, given the runs'
counts and each set's spread (simulated with the test itself, so Welch's
degrees of freedom with 2 runs, Yuen's trimming and a rank test's steps all
count). --test yuen compares 20%-trimmed means (robust to one bad run);
outlier runs are listed either way. --test paired compares run N of BEFORE
with run N of AFTER only (t on the per-round ratios): for interleaved sets
(scripts/suite ab, scripts/vmrun's alternating boots), where slow drift of
the machine hits both runs of a round alike. --test mwu (Mann-Whitney U)
cannot reach a small p with few runs (with 2 a side, never below 1/3): such
a row is inconclusive and says so. --test range is icount's default.

--save-noise-floor stores an A/A comparison (two sets of one build on one
kernel) in results/noise-floor.json as this machine's noise floor: later
comparisons on the same CPU model show that A/A |delta| beside theirs.

Exit status: 0 the table was printed (whatever it says; scripts/gate gives a
verdict), 3 unreadable input or no benchmark in both sets, 64 usage error.
"""
import argparse

from .. import cli, model, noise_floor, output, results, stats, verdict


def main(argv=None):
    ap = cli.ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", help="result file or folder (e.g. results/before)")
    ap.add_argument("after", help="result file or folder (e.g. results/after)")
    ap.add_argument("--policy", help="the gate's policy file (JSON): its rules, here too")
    ap.add_argument("--metric", choices=sorted(model.METRICS),
                    help="default: figure, each benchmark's own")
    ap.add_argument("--test", choices=verdict.TESTS,
                    help="Welch's t (default), Yuen's trimmed t, Mann-Whitney U, or paired t")
    ap.add_argument("--alpha", type=cli.PROBABILITY, help="default 0.01, Holm-corrected")
    ap.add_argument("--power", type=cli.PROBABILITY, help="for the MDE (default 0.8)")
    ap.add_argument("--target", type=cli.POSITIVE_PERCENT, default=2.0,
                    help="change (%%) the footer says how many runs would detect (default 2)")
    ap.add_argument("--min-runs", type=cli.RUNS,
                    help="runs a side a verdict needs (default 5; 2 on the icount clock)")
    ap.add_argument("--min-effect", type=cli.PERCENT, metavar="PCT",
                    help="smallest change that matters (default 5 on the host clock, 0.5 on "
                         "the icount clock): the gate's threshold_pct")
    ap.add_argument("--ignore", default="", help="parameters left out of matching, comma-separated")
    ap.add_argument("--noise-floor", default=str(noise_floor.NOISE_FLOOR), metavar="FILE",
                    help="A/A spreads to show (default results/noise-floor.json)")
    ap.add_argument("--save-noise-floor", action="store_true",
                    help="these two sets are an A/A: store their spread in --noise-floor")
    ap.add_argument("--format", choices=["text", "md", "org"], default="text")
    ap.add_argument("--json", action="store_true", help="one JSON document instead of the table")
    ap.add_argument("--width", type=int, default=None)
    args = ap.parse_args(argv)
    policy = verdict.override(verdict.load_policy(args.policy), metric=args.metric,
                              test=args.test, alpha=args.alpha, power=args.power,
                              min_runs=args.min_runs, threshold_pct=args.min_effect)
    a, b = results.load_path(args.before), results.load_path(args.after)
    cli.need_runs(a, args.before)
    cli.need_runs(b, args.after)
    clock = model.clock_of_runs(a, b)
    judged = verdict.judge(a, b, policy, clock, ignore=tuple(filter(None, args.ignore.split(","))))
    comps = judged.compared
    if not comps:
        cli.die("no benchmark with the same parameters in both sets "
                f"({policy['default']['metric']})")
    rules = policy["default"]
    if args.json:
        output.print_json(output.judgement_json(judged, policy), tool="compare",
                          test=rules["test"], alpha=rules["alpha"],
                          min_effect_pct=rules["threshold_pct"])
        return 0
    floor = noise_floor.noise_floor_of(args.noise_floor, comps, cpu_of(a))
    print_table(judged.rows, policy, floor, args)
    print_footer(comps, policy, clock, args)
    for side, runs in (("before", a), ("after", b)):
        for metric in sorted({c.metric for c in comps}):
            output.report_outliers(runs, metric)
            for line in output.layout_spread(runs, metric, side):
                print(line)
    for w in judged.mismatch:
        print(f"warning: environments must match but differ in {w}: no verdict")
    for w in judged.warnings:
        print(f"warning: environments differ in {w}")
    output.report_skipped(a, b)
    if args.save_noise_floor:
        noise_floor.save_noise_floor(args.noise_floor, comps, cpu_of(a))
        print(f"Saved the A/A spread of {len(comps)} comparisons to {args.noise_floor}")
    return 0


def cpu_of(runs):
    return next((r.env.get("cpu_model") for r in runs if r.env), None)


def mean_sd(v):
    if not len(v):
        return "-"
    return f"{output.fmt_num(v.mean())} ± {output.fmt_num(v.std(ddof=1) if len(v) > 1 else 0)} ({len(v)})"


def print_table(comps, policy, floor, args):
    """One row per comparison; the unit in the header where all share it."""
    varying = results.varying_params([c.key for c in comps])
    kinds = {(c.unit, c.direction) for c in comps}
    one_kind = len(kinds) == 1
    rough = False
    rows = []
    for c in comps:
        few = bool(stats.too_few(c, verdict.rules_for(policy, c.key.benchmark)["min_runs"]))
        rough |= few and c.ci_low == c.ci_low
        ci = f"[{c.ci_low:+.1f}, {c.ci_high:+.1f}]%{'*' if few else ''}" \
            if c.ci_low == c.ci_low else "-"
        rows.append([results.label(c.key, varying)] +
                    ([] if one_kind else [f"{c.unit} ({model.better(c.direction).split()[0]})"]) +
                    [mean_sd(c.a), mean_sd(c.b), output.fmt_pct(c.delta_pct), ci,
                     output.fmt_num(c.p_adj, 4), output.fmt_pct(c.mde, 1, sign=False)] +
                    ([f"±{floor[c.key]:.1f}%" if c.key in floor else "-"] if floor else []) +
                    [c.result])
    g = stats.geomean(comps)
    if g and g.n > 1:
        rows.append([f"geomean of {g.n}"] + ([] if one_kind else ["ratio"]) +
                    ["-", "-", f"{g.delta_pct:+.2f}%", f"[{g.ci_low:+.1f}, {g.ci_high:+.1f}]%",
                     "-", "-"] + (["-"] if floor else []) + [stats.GEOMEAN_WORDS])
    unit, dirn = next(iter(kinds))
    metric = comps[0].metric if len({c.metric for c in comps}) == 1 else "metric"
    first = f"Benchmark ({metric}: {unit}, {model.better(dirn)})" if one_kind else \
        f"Benchmark ({metric})"
    heads = [first] + ([] if one_kind else ["Unit"]) + \
        ["Before ± sd (n)", "After ± sd (n)", "Delta", output.ci_heading(comps), "p (Holm)",
         "MDE"] + \
        (["A/A delta"] if floor else []) + ["Verdict"]
    print(output.render_table(heads, rows, args.format, args.width,
                              left=(0, len(heads) - 1) if one_kind else (0, 1, len(heads) - 1)))
    if rough:
        print(f"* from fewer than --min-runs {policy['default']['min_runs']} runs a side: "
              "not to be trusted")


def print_footer(comps, policy, clock, args):
    """How many were tested, what the runs could see, and the clock's blind spot."""
    rules = policy["default"]
    tested = [c for c in comps if not stats.too_few(c, verdict.rules_for(policy, c.key.benchmark)["min_runs"])]
    if tested:
        print(f"\n{len(tested)} of {len(comps)} comparisons tested ({stats.TESTS[rules['test']].words}, "
              f"alpha {rules['alpha']:g}, Holm-corrected over the {len(comps)}): a change must "
              f"exceed {rules['threshold_pct']:g}% to matter; about "
              f"{len(tested) * rules['alpha']:.2f} false alarms expected by chance.")
    else:
        fewest = min(min(len(c.a), len(c.b)) for c in comps)
        print(f"\nNot one of the {len(comps)} comparison(s) was tested: each needs "
              f"{rules['min_runs']} runs a side and the fewest here is {fewest}; run "
              f"{rules['min_runs'] - fewest} more a side (or lower --min-runs).")
    print(output.estimate_note(comps))
    print(output.power_sentence(comps, rules["test"], rules["alpha"] / len(comps), rules["power"],
                                args.target))
    for note in sorted({model.clock_note(clock, c.metric) for c in comps} - {None}):
        print(note)
