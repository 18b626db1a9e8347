"""suite ab: two ./bench command lines (or builds) interleaved on this
kernel until the runs can tell a change, or none above --until-mde."""
import json
import random
import shlex
import time
from pathlib import Path

import numpy as np

from ... import cli, model, results, verdict
from ...suites import fmt_time
from .runs import BENCH, dry_run_error, run_once

def run_of(path, metric):
    """The run a result file holds, if it measured metric."""
    runs = results.runs_of_document(json.loads(path.read_text()), str(path))
    if not runs or not isinstance(runs[0], model.Run) or metric not in runs[0].metrics:
        why = runs[0].why if runs and isinstance(runs[0], model.Skipped) else f"no {metric}"
        raise model.InputError(f"{path}: {why}")
    return runs[0]


def ab_rules(args):
    """The gate's rules on the host clock, with the A/B's own test, alpha,
    power and, as threshold, the MDE it runs until."""
    return {**verdict.DEFAULT, **verdict.CLOCK_DEFAULTS["host"], "metric": args.metric,
            "test": "paired" if args.paired else "welch", "alpha": args.alpha,
            "power": args.power, "threshold_pct": args.until_mde, "min_runs": 2}


def cmd_ab(args):
    if not BENCH.exists():
        cli.die("./bench is not built: run make first", cli.EXIT_TOOL)
    label_dir = results.label_dir(args.label)
    if label_dir.exists() and any(label_dir.iterdir()):
        cli.die(f"{label_dir} is not empty: choose another --label", cli.EXIT_USAGE)
    sides = {"a": shlex.split(args.a), "b": shlex.split(args.b)}
    benches = {"a": args.a_bench or BENCH, "b": args.b_bench or BENCH}
    for name, argv in sides.items():
        if not Path(benches[name]).is_file():
            cli.die(f"--{name}-bench {benches[name]}: no such file", cli.EXIT_USAGE)
        if (error := dry_run_error(argv, benches[name])):
            cli.die(f"--{name}: {error}", cli.EXIT_USAGE)
    looks = args.max_runs - args.min_runs + 1
    rng = random.Random(args.seed)
    runs = {"a": [], "b": []}
    start = time.monotonic()
    print(f"A: {benches['a']} {args.a}\nB: {benches['b']} {args.b}\nUntil the MDE is below {args.until_mde:g}% "
          f"or a change is confirmed; at most {args.max_runs} runs a side, alpha {args.alpha:g} "
          f"over {looks} looks{', paired by round' if args.paired else ''}.")
    for r in range(args.max_runs):
        order = ["a", "b"]
        if args.order == "random":
            rng.shuffle(order)
        for side in order:
            path = label_dir / side / f"run-{r + 1}.json"
            rc, err = run_once(sides[side], path, f"{label_dir.name}-{side}", r + 1, args.warmup,
                               args.duration, benches[side])
            if rc:
                cli.die(f"{side.upper()} run {r + 1} failed: "
                        f"{(err.strip().splitlines() or ['exit ' + str(rc)])[-1]}", 1)
            runs[side].append(run_of(path, args.metric))
        a, b = ([x.metrics[args.metric] for x in runs[side]] for side in "ab")
        first = runs["a"][0]
        line = (f"[round {r + 1}/{args.max_runs}] A {np.mean(a):.3f}, B {np.mean(b):.3f} "
                f"{first.unit(args.metric)}")
        if r + 1 < args.min_runs:
            print(line, flush=True)
            continue
        c = verdict.look(a, b, ab_rules(args), looks, first.direction(args.metric),
                         first.unit(args.metric))
        print(f"{line}: delta {c.delta_pct:+.2f}%, p {c.p:.4f}, MDE {c.mde:.1f}%: {c.result} "
              f"(elapsed {fmt_time(time.monotonic() - start)})", flush=True)
        if c.verdict == verdict.NO_CHANGE:
            print(f"No significant change after {r + 1} runs a side: the MDE is {c.mde:.1f}%, "
                  f"below {args.until_mde:g}% (delta {c.delta_pct:+.2f}%).")
            return 0
        if c.verdict != verdict.INCONCLUSIVE:
            print(f"B against A after {r + 1} runs a side: {c.delta_pct:+.2f}%, {c.result} "
                  f"(p {c.p:.4f} < {args.alpha / looks:.4g}).")
            return 1
    print(f"No answer within {args.max_runs} runs a side: {c.result}.")
    return 2
