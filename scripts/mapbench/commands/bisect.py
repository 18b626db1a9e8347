"""Find the commit that changed a figure: git bisect run over a kernel tree,
each step built and booted once.

  bisect --src TREE --good REV --bad REV [--label L] -- BENCH ARGS

TREE is a git tree of the kernel. bisect checks it out in a worktree of its
own (build/bisect/L/src; your tree is not touched), builds GOOD and BAD
with scripts/kbuild and runs BENCH ARGS once in a guest of each
(scripts/vmrun, one boot, the icount clock where TCG runs it: a boot
decides). Their figures must differ by more than the gate's threshold
(0.5% under icount, 5% on the host clock; --policy sets it). Then
`git bisect run` tests the commits between: each is built --from the
nearest earlier build (only what the commit touched is rebuilt), booted
once, and is "bad" when its figure lies nearer to BAD's than to GOOD's; a
commit that does not build is skipped (exit 125), as git bisect run wants.
The end: the first bad commit, its figure against its parent's with the
delta, the "where" line when --profile counted functions, and git's bisect
log (build/bisect/L/bisect-GOOD-BAD-KEY.log: one per question asked under
the label). Then the worktree is removed (your tree lists it no more).

Each step's kernel (build/bisect/L/kernels/SHA) and result
(results/bisect-L/KEY/SHA, KEY naming the benchmark and guest options) are
kept: after Ctrl-C the same command resumes where git's bisect stood, a
commit measured before is not booted again, and a commit built before is not
built again, whatever is measured on it next (a kernel built with an older
configs/vm-bpf.config is brought up to date first). One bisection at a
time per label: another measurement waits until the first has ended.
Disk is bounded: only the --keep-builds newest kernels (default 2) keep
their objects for later steps to start from; the others are pruned to
bzImage, .config and kbuild.json (about 15 MB against 1.5 GB), which is
all a commit measured again needs.

--model NAME counts with the cache model (memory effects icount cannot
see), and --profile also attributes them to functions; the guest options
(--runs, -w, -d, --accel, --clock, --smp, -j, --model, --profile) are
vmrun's, as ab's are.

Exit status: 0 the first bad commit was found, 1 it was not (a step that
could not be judged, or GOOD and BAD that do not differ), 2 bad input (no
git tree, unknown revisions), 3 tool error, 64 usage error, 130 interrupted.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess  # processes of their own: git; git bisect run (git's design)
import sys
from pathlib import Path

import numpy as np

from .. import cachemodel, cli, model, results, verdict, where
from ..guest import options
from ..lab import engine as lab_engine
from . import vmrun as vmrun_command
from .kbuild import prune_older, up_to_date, whole
from ..paths import PY, RESULTS, ROOT, SCRIPTS

WORK = ROOT / "build" / "bisect"


def git(tree, *args, check=True):
    return subprocess.run(["git", "-C", str(tree), *args], capture_output=True, text=True,
                          check=check)


def commit_of(tree, rev):
    proc = git(tree, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
    if proc.returncode:
        cli.die(f"{rev}: no such commit in {tree}", cli.EXIT_INPUT)
    return proc.stdout.strip()


def folders(label):
    work = WORK / label
    return {"work": work, "src": work / "src", "state": work / "state.json",
            "kernels": work / "kernels", "results": RESULTS / f"bisect-{label}"}


def measurement_key(bench, vmrun):
    """Names what a step measures (the benchmark and the guest options, and
    the cache model's machine as defined now and what its figures count per
    op: zen4 that gained TLBs measures something else): a label's kernels
    serve every measurement, its results only theirs."""
    name = vmrun[vmrun.index("--model") + 1] if "--model" in vmrun else "none"
    if name == "none" and "--profile" in vmrun:
        name = cachemodel.DEFAULT
    machine = cachemodel.named(name)
    what = [bench, vmrun] + ([machine.record(), cachemodel.PER_OP] if machine else [])
    return hashlib.sha256(json.dumps(what).encode()).hexdigest()[:8]


def results_of(state):
    return folders(state["label"])["results"] / measurement_key(state["bench"], state["vmrun"])


def figure_of(folder, metric):
    """(mean figure, direction, runs) of a step's result folder, or None."""
    try:
        runs = results.load_path(folder)
    except model.InputError:
        return None
    values = [r.metrics[metric] for r in runs if metric in r.metrics]
    return (float(np.mean(values)), runs[0].direction(metric), runs) if values else None


def nearest_build(kernels, but):
    """The build to start the next from: the last whole one made with
    today's config fragment (kbuild relocates a copy and rebuilds only what
    the commits changed), else the last whole one made."""
    built = [d for d in kernels.glob("*") if whole(d) and d.name != but]
    return max(built, key=lambda d: (up_to_date(d), (d / "bzImage").stat().st_mtime),
               default=None)


def measure(state, sha):
    """The figure of commit sha (the worktree checked out at it): built,
    booted once, kept. None where it does not build or boot."""
    f = folders(state["label"])
    short = sha[:12]
    out, where_to = f["kernels"] / short, results_of(state) / short
    found = figure_of(where_to, state["metric"]) if where_to.exists() else None
    if found:
        return found
    shutil.rmtree(where_to, ignore_errors=True)
    if not up_to_date(out):
        # a stale kernel starts again from an up-to-date one (what the commits
        # changed is rebuilt), else where it is (what the fragment touched)
        base = nearest_build(f["kernels"], short)
        base = None if whole(out) and not (base and up_to_date(base)) else base
        if cli.call("kbuild", ["--src", str(f["src"]), "--out", str(out),
                               "--from", str(base) if base else "none"]):
            return None
    status = vmrun_command.main(["--kernel", str(out / "bzImage"), "--label", str(where_to),
                                 "--boots", "1", *state["vmrun"], "--", *state["bench"]])
    for pruned, freed in prune_older(f["kernels"].glob("*"), state.get("keep_builds", 2)):
        print(f"bisect: pruned {pruned.name} to its bzImage ({freed / 2 ** 30:.2f} GiB freed; "
              f"--keep-builds {state.get('keep_builds', 2)})", flush=True)
    if status == cli.EXIT_INTERRUPTED:
        raise KeyboardInterrupt
    return figure_of(where_to, state["metric"]) if status == 0 else None


def step(state_file):
    """git bisect run's command: 0 good, 1 bad, 125 skip (no build), 130
    interrupted (git bisect run then stops; bisect itself says so). It runs
    where the user ran bisect, so that paths print as they do there."""
    state = json.loads(Path(state_file).read_text())
    sha = git(folders(state["label"])["src"], "rev-parse", "HEAD").stdout.strip()
    os.chdir(state.get("cwd", ROOT))        # a state file of an older bisect has none
    found = measure(state, sha)             # a Ctrl-C: cli.run's exit 130, quietly
    if found is None:
        print(f"bisect: {sha[:12]} does not build or boot: skipped", flush=True)
        return 125
    value = found[0]
    bad = abs(value - state["bad_figure"]) < abs(value - state["good_figure"])
    print(f"bisect: {sha[:12]}: {value:.6g} {state['unit']} -> {'bad' if bad else 'good'}",
          flush=True)
    return 1 if bad else 0


def prepare(args, f):
    """The worktree at GOOD (made once) and the state file."""
    tree = args.src.resolve()
    if git(tree, "rev-parse", "--git-dir", check=False).returncode:
        cli.die(f"--src {args.src}: not a git tree (bisect needs the history)", cli.EXIT_INPUT)
    good, bad = commit_of(tree, args.good), commit_of(tree, args.bad)
    if git(tree, "merge-base", "--is-ancestor", good, bad, check=False).returncode:
        cli.die(f"--good {args.good} is not an ancestor of --bad {args.bad}", cli.EXIT_INPUT)
    f["work"].mkdir(parents=True, exist_ok=True)
    if not f["src"].exists():
        git(tree, "worktree", "prune")
        git(tree, "worktree", "add", "--detach", str(f["src"]), good)
    return good, bad


def remove_worktree(tree, f):
    """The bisection's worktree gone, and with it the user's tree's entry
    for it: what stays is its kernels and results."""
    git(tree, "worktree", "remove", "--force", str(f["src"]), check=False)
    git(tree, "worktree", "prune", check=False)


def refuse_a_second_bisection(f, state):
    """git keeps one bisection per worktree: one measured otherwise must
    wait until it has ended."""
    if not f["state"].exists() or git(f["src"], "bisect", "log", check=False).returncode:
        return
    was = json.loads(f["state"].read_text())
    if [was["bench"], was["vmrun"], was["metric"]] != [state["bench"], state["vmrun"],
                                                       state["metric"]]:
        cli.die(f"label {state['label']} is in the middle of bisecting {' '.join(was['bench'])} "
                f"({' '.join(was['vmrun'])}, {was['metric']}): run that command again to finish "
                f"it, or give another --label", cli.EXIT_INPUT)


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--step"]:
        return step(argv[1])
    ap = cli.ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True, type=Path, help="a git tree of the kernel")
    ap.add_argument("--good", required=True, help="a commit with the old figure")
    ap.add_argument("--bad", required=True, help="a later commit with the new figure")
    ap.add_argument("--label", help="names the bisection's folders (default: GOOD-BAD)")
    ap.add_argument("--metric", choices=sorted(model.METRICS),
                    help="default: the policy's (figure, the benchmark's own), and "
                         "model_cycles under --model")
    ap.add_argument("--policy", help="the gate's policy file: its threshold")
    ap.add_argument("--keep-builds", type=cli.at_least(0), default=2, metavar="N",
                    help="kernels that keep their objects for later steps (default 2); the "
                         "others keep their bzImage only")
    options.add(ap)
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    bench = argv[cut + 1:]
    if not bench:
        ap.error("give the benchmark after --: bisect ... -- htab-lookup --max-entries 1K")
    vmrun_command.check_model_options(ap, args)
    vmrun_command.check_lab_options(ap, args)
    if args.engine == "lava":       # before any build: a lab that cannot take the jobs says so
        lab_engine.preflight(args)
    label = args.label or f"{args.good}-{args.bad}"
    label = re.sub(r"[^A-Za-z0-9_.+-]+", "_", label)
    f = folders(label)
    good, bad = prepare(args, f)
    # under the cache model, its cycles: icount's figure cannot see a
    # memory-only commit ("nothing to bisect"), which is what --model is for
    metric = args.metric or ("model_cycles" if options.modelled(args) and not args.policy
                             else None)
    policy = verdict.override(verdict.load_policy(args.policy), metric=metric)
    state = {"label": label, "metric": policy["default"]["metric"], "bench": bench,
             "vmrun": options.passed_on(args), "keep_builds": args.keep_builds,
             "cwd": os.getcwd()}
    refuse_a_second_bisection(f, state)
    try:
        status = bisection(f, state, policy, good, bad)
    except KeyboardInterrupt:
        print(f"\nbisect: interrupted; run the same command again to resume ({f['work']})")
        return cli.interrupted()
    remove_worktree(args.src, f)
    return status


def bisection(f, state, policy, good, bad):
    """Measure GOOD and BAD, let git bisect run the commits between, report
    the first bad one: an exit status."""
    ends = {}
    for name, sha in (("good", good), ("bad", bad)):
        git(f["src"], "checkout", "--quiet", "--detach", sha)
        ends[name] = measure(state, sha)
        if ends[name] is None:
            print(f"bisect: --{name} {sha[:12]} does not build or boot", file=sys.stderr)
            return cli.EXIT_FAILED
    (g, direction, g_runs), (b, _, b_runs) = ends["good"], ends["bad"]
    verdict.apply_clock_defaults(policy, model.clock_of_runs(g_runs, b_runs))
    threshold = verdict.rules_for(policy, g_runs[0].benchmark)["threshold_pct"]
    delta = (b / g - 1) * 100
    if abs(delta) <= threshold:
        print(f"bisect: GOOD {g:.6g} and BAD {b:.6g} differ by {delta:+.2f}%, not more than "
              f"the threshold {threshold:g}%: nothing to bisect")
        return cli.EXIT_FAILED
    state.update(good_figure=g, bad_figure=b, unit=g_runs[0].unit(state["metric"]))
    f["state"].write_text(json.dumps(state, indent=1))
    print(f"bisect: GOOD {good[:12]} {g:.6g}, BAD {bad[:12]} {b:.6g} ({delta:+.2f}%, "
          f"{model.better(direction)})", flush=True)
    if git(f["src"], "bisect", "log", check=False).returncode:
        git(f["src"], "bisect", "start", bad, good)
    else:       # resumed: measuring the ends moved HEAD off git's pending commit
        git(f["src"], "bisect", "next", check=False)
    run = subprocess.run(["git", "-C", str(f["src"]), "bisect", "run", PY,
                          str(SCRIPTS / "bisect"), "--step", str(f["state"])])
    if run.returncode < 0 or run.returncode == cli.EXIT_INTERRUPTED:
        raise KeyboardInterrupt
    log = git(f["src"], "bisect", "log", check=False).stdout
    saved = f["work"] / (f"bisect-{good[:12]}-{bad[:12]}-"
                         f"{measurement_key(state['bench'], state['vmrun'])}.log")
    saved.write_text(log)
    first = re.search(r"^# first bad commit: \[([0-9a-f]{40})\]", log, re.M)
    git(f["src"], "bisect", "reset", check=False)
    if not first:
        print(f"bisect: no first bad commit (skipped commits hide it?); git's log: {saved}")
        return cli.EXIT_FAILED
    return report(state, f, first[1], saved)


def report(state, f, sha, log):
    """The first bad commit, its figure against its parent's (measured
    now where the bisection only inferred it), where."""
    parent = git(f["src"], "rev-parse", f"{sha}^").stdout.strip()
    subject = git(f["src"], "log", "-1", "--format=%s", sha).stdout.strip()
    bad_runs = figure_of(results_of(state) / sha[:12], state["metric"])
    git(f["src"], "checkout", "--quiet", "--detach", parent)
    before = measure(state, parent)
    print(f"\nfirst bad commit: {sha[:12]} {subject}")   # git bisect run ends without one
    if bad_runs and before:
        delta = (bad_runs[0] / before[0] - 1) * 100
        print(f"  {state['metric']}: {before[0]:.6g} -> {bad_runs[0]:.6g} {state['unit']} "
              f"({delta:+.2f}% against its parent {parent[:12]})")
        for line in where.lines(before[2], bad_runs[2]):
            print(f"  {line}")
    print(f"  git's bisect log: {log}")
    return cli.EXIT_PASS
