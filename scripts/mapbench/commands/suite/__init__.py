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
import sys
from pathlib import Path

from ... import cli, model
from .listing import cmd_check, cmd_list, cmd_show
from .runs import Interrupted, cmd_run, cmd_sweep
from .until_mde import cmd_ab


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
