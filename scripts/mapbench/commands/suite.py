"""Run a suite: the benchmark configurations of one seed experiment, each
several times, interleaved, one result file per run under results/LABEL/.

  suite list                          the suites (suites/*.json) and what they reproduce
  suite show SUITE                    its configurations, runs and estimated time here
  suite check [SUITE...]              validate suite files with ./bench --dry-run
  suite run SUITE --label LABEL [--runs N] [-w SEC] [-d SEC] [--fresh]
           [--order round-robin|random] [--peer kernel --kernel-src SRC]
                                      run it; resumes when LABEL already has runs
                                      made with the same settings
  suite sweep BENCH --param NAME=LO..HI[:log|:lin]:N --label LABEL [--runs N]
           [-w SEC] [-d SEC] [-- ./bench ARGS]
                                      one benchmark over N values of one option,
                                      without a suite file: a run of the suite
                                      "sweep" (log spacing unless :lin)
  suite ab --a "ARGS" --b "ARGS" --label LABEL --until-mde PCT [--max-runs N]
           [--a-bench PATH --b-bench PATH]
                                      A and B interleaved until the runs can
                                      tell: a difference, or none above PCT %;
                                      A and B may be two builds of the bench

Runs go round-robin (every configuration once, then again), so slow drift of
the machine does not land on one configuration; --order random shuffles each
round. Ctrl-C stops after writing the current run as interrupted; running the
same command again skips the runs that finished and redoes the rest. A folder
remembers its settings (LABEL/SUITE: the suite, -w/-d, every configuration's
arguments, the bench revision and the kernel); resuming with any of them
different is refused, naming the difference: choose a new --label, or give
--fresh to discard the folder's runs and start again.

--peer kernel runs the kernel's own selftests bench beside mapbench: built
from --kernel-src (a tree, tarball or linux-source-X.Y; scripts/kernel-bench),
it runs each kernel-named configuration the tree has with the same arguments
right after mapbench's run of the same round (interleaved), its output saved
as LABEL-kernel/CONFIG/run-N.log. scripts/report LABEL --peer LABEL-kernel
sets the two side by side.

A suite file is JSON: description, runs, warmup, duration, and configs, each
{"id", "args": [./bench arguments], "each": {"--option": [values]}}; "each"
expands into one configuration per combination of values ("" adds bare
values, e.g. benchmark names; "1..{cpus}" is a range, "2..8/2" one with a
step). {cpus} is the number of online CPUs, {cpus_even} that rounded down to
an even number (at least 2).

`suite ab` runs ./bench with ARGS for A and for B in alternation (ABAB...,
or each round in random order), results in LABEL/a and LABEL/b, and after
every round from --min-runs on judges the runs as the gate does (Welch's t,
or with --paired a paired t on the rounds' relative differences): it stops
on a REGRESSION or improvement of B against A (or a change under
--until-mde, negligible), on "no significant change" once the MDE has
fallen below --until-mde, and otherwise goes on to --max-runs. alpha is
spent equally over all the looks it may take (Bonferroni), so stopping
early does not raise the false-alarm rate above --alpha.

Exit status: 0 every run finished (unsupported ones are recorded as such;
ab: no significant change), 1 some runs failed (ab: a change confirmed), 2
(ab) no answer within --max-runs, 3 tool error, 64 usage error, 130
interrupted.
"""
import argparse
import shlex
import json
import os
import random
import signal
import subprocess  # processes of their own: ./bench (C), the measured process
import sys
import time
from pathlib import Path

from .. import cli, model, output, results, verdict
from ..suites import (SUITES, configurations, sweep_suite, fmt_time, load_suite, plan,
                      run_file)
from ..peer import Peer, figure_text as peer_figure_text
from ..paths import ROOT
import numpy as np

BENCH = ROOT / "bench"
FINISHED = ("complete", "unsupported", "failed")
SETUP_S = 1.5        # a run's set-up and teardown, for estimates before any run


def bench_argv(argv, label, rnd, path, warmup, duration, bench=BENCH):
    return [str(bench), "-q", "-w", str(warmup), "-d", str(duration), "--label", label,
            "--round", str(rnd), "--json", str(path)] + argv


def dry_run_error(argv, bench=BENCH):
    """What ./bench --dry-run says is wrong with argv (one line), or None."""
    proc = subprocess.run([str(bench), "--dry-run"] + argv, capture_output=True, text=True)
    return proc.stderr.strip() if proc.returncode else None


def cmd_list(args):
    for p in sorted(SUITES.glob("*.json")):
        s = load_suite(p.stem)
        print(f"{p.stem:15} {s['description']}")
    return 0


def estimate(suite, n_configs, runs):
    return n_configs * runs * (suite["warmup"] + suite["duration"] + SETUP_S)


def cmd_show(args):
    suite = load_suite(args.suite)
    configs = configurations(suite)
    runs = args.runs or suite["runs"]
    print(f"{suite['name']}: {suite['description']}")
    print(f"{len(configs)} configurations x {runs} runs = {len(configs) * runs} runs, "
          f"-w {suite['warmup']} -d {suite['duration']}; about "
          f"{fmt_time(estimate(suite, len(configs), runs))} here (set-up of large maps adds more)")
    for cid, argv in configs:
        print(f"  {cid:45} ./bench {' '.join(argv)}")
    return 0


def cmd_check(args):
    names = args.suites or sorted(p.stem for p in SUITES.glob("*.json"))
    bad = 0
    for name in names:
        suite = load_suite(name)
        for cid, argv in configurations(suite):
            if (error := dry_run_error(argv)):
                bad += 1
                print(f"{name}: {cid}: {error}")
        print(f"{name}: {len(configurations(suite))} configurations checked")
    return 1 if bad else 0


class Interrupted(Exception):
    pass


def bench_revision():
    out = subprocess.run([str(BENCH), "--version"], capture_output=True, text=True).stdout
    return out.split()[-1] if out.startswith("mapbench ") else "unknown"


def settings_of(suite, warmup, duration):
    """What a folder's runs were made with: resuming needs all of it the same."""
    return {"suite": suite["name"], "warmup": warmup, "duration": duration,
            "configs": {cid: argv for cid, argv in configurations(suite)},
            "mapbench_revision": bench_revision(), "kernel": os.uname().release}


def settings_difference(old, new):
    """The first setting that differs, in words, or None."""
    for key in ("suite", "warmup", "duration", "mapbench_revision", "kernel"):
        if old.get(key) != new[key]:
            return f"{key} {old.get(key)!r}, not {new[key]!r}"
    for cid, argv in new["configs"].items():
        if old.get("configs", {}).get(cid, argv) != argv:
            return f"configuration {cid} ./bench {' '.join(old['configs'][cid])}"
    return None


def prepare_folder(label_dir, settings, fresh):
    """Make or check label_dir for these settings; --fresh empties it first."""
    manifest = label_dir / "SUITE"
    if fresh and label_dir.exists():
        for f in sorted(label_dir.rglob("*"), reverse=True):
            if f.is_file() and (f.suffix == ".json" or f == manifest):
                f.unlink()
            elif f.is_dir() and not any(f.iterdir()):
                f.rmdir()
    if manifest.exists():
        try:
            old = json.loads(manifest.read_text())
        except json.JSONDecodeError:
            old = {"suite": (manifest.read_text().split() or [None])[0]}  # before settings
        diff = settings_difference(old, settings)
        if diff:
            cli.die(f"{label_dir} holds runs made with {diff}: choose another --label, or give "
                    "--fresh to discard them", cli.EXIT_USAGE)
    elif label_dir.exists() and any(label_dir.rglob("*.json")):
        cli.die(f"{label_dir} holds results that no suite run made: choose another --label",
                cli.EXIT_USAGE)
    label_dir.mkdir(parents=True, exist_ok=True)
    manifest.write_text(json.dumps(settings, indent=1, sort_keys=True) + "\n")


def cmd_sweep(args):
    extra = args.bench_args
    try:
        suite = sweep_suite(args.bench, args.param, extra, args.runs or 1,
                            1 if args.warmup is None else args.warmup,
                            2 if args.duration is None else args.duration)
    except model.InputError as e:
        cli.die(str(e), cli.EXIT_USAGE)
    for cid, argv in configurations(suite):
        if (error := dry_run_error(argv)):
            cli.die(f"{cid}: {error}", cli.EXIT_USAGE)
    return cmd_run(args, suite)


def cmd_run(args, suite=None):
    suite = suite or load_suite(args.suite)
    if not BENCH.exists():
        cli.die("./bench is not built: run make first", cli.EXIT_TOOL)
    label_dir = results.label_dir(args.label)
    label = label_dir.name
    warmup = suite["warmup"] if args.warmup is None else args.warmup
    duration = suite["duration"] if args.duration is None else args.duration
    prepare_folder(label_dir, settings_of(suite, warmup, duration), args.fresh)
    runs = args.runs or suite["runs"]
    todo = plan(configurations(suite), runs, args.order, args.seed)
    done = [t for t in todo if results.status_of(run_file(label_dir, t[1], t[0])) in FINISHED]
    if done:
        print(f"Resuming {label_dir}: {len(done)} of {len(todo)} runs already finished, kept")
    left = [t for t in todo if t not in done]
    peer = Peer(args.kernel_src) if args.peer else None
    for line in peer.refusals if peer else ():
        print(f"--peer kernel: {line}")
    peer_dir = label_dir.with_name(label + "-kernel")
    start, took, failed = time.monotonic(), [], 0
    width = len(str(len(todo)))
    finished = len(done)
    try:
        for i, (r, cid, argv) in enumerate(left):
            path = run_file(label_dir, cid, r)
            print(f"[{len(done) + i + 1:{width}}/{len(todo)}] round {r + 1}/{runs} {cid}:", end="",
                  flush=True)
            t0 = time.monotonic()
            rc, err = run_once(argv, path, label, r + 1, warmup, duration)
            finished += 1
            took.append(time.monotonic() - t0)
            failed += rc not in (0, 2)
            peer_text = ""
            if peer and peer.has(argv):
                peer_text = "; " + run_peer(peer, argv, peer_dir / cid / f"run-{r + 1}.log",
                                            warmup, duration)
            eta = sum(took) / len(took) * (len(left) - i - 1)
            print(f" {results.file_figure_text(path)}{peer_text} (elapsed "
                  f"{fmt_time(time.monotonic() - start)}, ETA {fmt_time(eta)})", flush=True)
            if rc not in (0, 2) and err.strip():
                print(f"    {err.strip().splitlines()[-1]}")
    except (Interrupted, KeyboardInterrupt):
        # wherever Ctrl-C lands: in a run, starting one, in the peer's, printing
        print(" interrupted")
        raise Interrupted(f"{finished} of {len(todo)} runs finished; run the same command "
                          "again to resume") from None
    finish(label_dir, suite)
    return 1 if failed else 0


def run_peer(peer, argv, path, warmup, duration):
    """The kernel's bench with the run's arguments; its output in path (.log).
    Returns the figure text for the progress line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    proc = peer.run(argv, warmup, duration)
    tmp = path.with_name(path.name + ".tmp.log")
    tmp.write_text(proc.stdout + proc.stderr)
    tmp.replace(path)
    text = peer_figure_text(proc.stdout, str(path))
    if proc.returncode or not text:
        last = (proc.stderr.strip() or proc.stdout.strip() or "no output").splitlines()[-1]
        return f"kernel bench: exit {proc.returncode} ({last[:100]})"
    return text


def run_once(argv, path, label, rnd, warmup, duration, bench=BENCH):
    """One ./bench run, round rnd of its set, into path (its folder made
    first: ./bench makes folders only inside results/); Interrupted on
    Ctrl-C (after the bench has written what it had)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    proc = None
    # SIGINT held while the bench starts: a Ctrl-C then comes once Popen has
    # returned it, to be stopped, not left running in its own session
    # (./bench unblocks SIGINT for itself)
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        try:
            proc = subprocess.Popen(bench_argv(argv, label, rnd, path, warmup, duration, bench),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    text=True, start_new_session=True)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        _, err = proc.communicate()
    except KeyboardInterrupt:
        # no proc: Ctrl-C came before the bench existed, nothing to stop
        if proc:
            os.killpg(proc.pid, signal.SIGINT)
            proc.communicate()
        raise Interrupted(f"stopped during {path}") from None
    return proc.returncode, err


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


def finish(label_dir, suite):
    runs = results.load_path(label_dir)
    print(f"\nResults: {label_dir}/ ({len(runs)} runs measured, {len(runs.skipped)} left out)")
    if runs:
        metric = "bytes_per_element" if suite["name"] == "mem" else "figure"
        print(output.summary_table(runs, metric))
    output.report_skipped(runs)
    rel = os.path.relpath(label_dir) if label_dir.is_relative_to(Path.cwd()) else str(label_dir)
    print("\nNext: the same suite on the other kernel with another --label, then\n"
          f"  scripts/report results/BEFORE {rel}     # the cover-letter table\n"
          f"  scripts/plot {rel} --kind summary       # plots/{label_dir.name}-summary-*.png\n"
          f"  scripts/gate results/BEFORE {rel}       # the CI verdict")


def add_run_options(p, runs_help, warmup_help, duration_help):
    """What run and sweep share: the folder, the rounds and their order."""
    p.add_argument("--label", required=True, help="results/LABEL/ (or a path with /)")
    p.add_argument("--runs", type=int, help=runs_help)
    p.add_argument("--order", choices=["round-robin", "random"], default="round-robin")
    p.add_argument("--seed", type=int, default=1, help="--order random's seed")
    p.add_argument("-w", "--warmup", type=int, help=warmup_help)
    p.add_argument("-d", "--duration", type=int, help=duration_help)
    p.add_argument("--fresh", action="store_true",
                   help="discard the runs LABEL holds and start again")


def main(argv=None):
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="the suites")
    p = sub.add_parser("show", help="a suite's configurations and estimated time")
    p.add_argument("suite")
    p.add_argument("--runs", type=int)
    p = sub.add_parser("check", help="validate suite files with ./bench --dry-run")
    p.add_argument("suites", nargs="*")
    p = sub.add_parser("run", help="run a suite")
    p.add_argument("suite")
    add_run_options(p, "runs per configuration (default: the suite's)",
                    "override the suite's -w (e.g. for a smoke test)", "override the suite's -d")
    p.add_argument("--peer", choices=["kernel"],
                   help="also run the kernel's own bench on each kernel-named configuration")
    p.add_argument("--kernel-src", type=Path, help="--peer kernel: the tree to build it from")
    p = sub.add_parser("sweep", help="one benchmark over many values of one option")
    p.add_argument("bench")
    p.add_argument("--param", required=True, metavar="NAME=LO..HI[:log|:lin]:N",
                   help="the ./bench option and its points, e.g. nr_entries=1..1M:log:60")
    add_run_options(p, "runs per point (default 1)", "default 1", "default 2")
    p.set_defaults(peer=None, kernel_src=None)
    p = sub.add_parser("ab", help="A and B interleaved until the runs can tell")
    p.add_argument("--a", required=True, help="./bench arguments of A, one string")
    p.add_argument("--b", required=True, help="./bench arguments of B, one string")
    p.add_argument("--label", required=True, help="results/LABEL/{a,b}/ (or a path with /)")
    p.add_argument("--until-mde", type=float, required=True, metavar="PCT",
                   help="stop once a change of PCT %% would have been seen")
    p.add_argument("--max-runs", type=int, default=20, help="runs a side at most (default 20)")
    p.add_argument("--min-runs", type=int, default=3, help="runs a side before the first look")
    p.add_argument("--alpha", type=float, default=0.01)
    p.add_argument("--power", type=float, default=0.8)
    p.add_argument("--metric", choices=sorted(model.METRICS), default="figure")
    p.add_argument("--a-bench", type=Path, help="A's bench binary (two builds of mapbench)")
    p.add_argument("--b-bench", type=Path, help="B's bench binary (default ./bench for both)")
    p.add_argument("--paired", action="store_true", help="compare the rounds' A/B pairs")
    p.add_argument("--order", choices=["alternate", "random"], default="alternate",
                   help="AB every round, or each round in random order")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--duration", type=int, default=3)
    for q in sub.choices.values():
        q.error = ap.error
    # sweep: what follows -- is ./bench's, for every point
    argv = list(sys.argv[1:] if argv is None else argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    args.bench_args = argv[cut + 1:]
    if args.bench_args and args.cmd != "sweep":
        ap.error("-- ./bench ARGS goes with sweep")
    if getattr(args, "runs", None) is not None and args.runs < 1:
        ap.error("--runs must be at least 1")
    if args.cmd == "run" and bool(args.peer) != bool(args.kernel_src):
        ap.error("--peer kernel and --kernel-src SRC go together")
    if args.cmd == "ab" and not 2 <= args.min_runs <= args.max_runs:
        ap.error("--min-runs must be at least 2 and at most --max-runs")
    try:
        return {"list": cmd_list, "show": cmd_show, "check": cmd_check, "run": cmd_run,
                "sweep": cmd_sweep, "ab": cmd_ab}[args.cmd](args)
    except Interrupted as e:
        print(f"\nInterrupted: {e}")
        return 130
    except KeyboardInterrupt:      # between runs (ab's looks): every finished run is kept
        print("\nInterrupted: the runs that finished are kept")
        return 130
