"""One commit of a branch through CI: build it, measure it, judge it against
the branch's history, store it, find the history's change points and write
its web site. The pipelines in pipelines/ (GitLab CI, GitHub Actions) run
this and only this, so what CI runs is what make check-slow runs.

  ci-commit --src TREE [--commit SHA] [--branch B] (--suite S | --bench "ARGS"...)
            [--db URL] [--site DIR] [--policy P] [--keep-builds N] [guest options]

  1. scripts/kbuild --src TREE --out build/kernel/ci/SHA: a first build of the
     tree is minutes, each later commit starts from the newest build of the
     same tree (kbuild's unpatched base), seconds to a minute
  2. scripts/vmrun: the suite or benchmarks in a guest of that kernel, under
     icount where TCG runs it (--engine lava: on a lab, MAPBENCH_LAVA_URL)
  3. history gate: the set against each configuration's last stable segment
     of the branch's history (the first set of a history is not judged)
  4. history add, then history changes and history site DIR
  5. kbuild --gc --keep-builds N: the disk the builds take stays bounded

A commit already in the branch's history is not added again, and a result
set already measured is not measured again (a retried job).

Exit status: the gate's (0 pass, 1 regression, 2 inconclusive), or the
failing step's (kbuild or vmrun: 1 failed, 2 bad input), 3 tool error,
4 a lab that cannot take the jobs, 64 usage error, 130 interrupted.
"""
import argparse
import subprocess  # processes of their own: git
from pathlib import Path

from .. import cli, history, history_site, model, output, results, verdict
from ..guest import options
from ..lab import engine as lab_engine
from ..paths import RESULTS, ROOT
from . import kbuild, vmrun as vmrun_command

BUILDS = ROOT / "build" / "kernel" / "ci"


def say(text):
    print(f"ci-commit: {text}", flush=True)


def commit_of(tree, rev):
    proc = subprocess.run(["git", "-C", str(tree), "rev-parse", "--verify", "--quiet",
                           f"{rev}^{{commit}}"], capture_output=True, text=True)
    if proc.returncode:
        cli.die(f"--src {tree}: no commit {rev} in it (a git tree of the kernel)", cli.EXIT_INPUT)
    return proc.stdout.strip()


def build(args, sha):
    """The commit's bzImage, built where it is not yet: its path, or None
    after kbuild's own error."""
    out = BUILDS / sha[:12]
    if not kbuild.up_to_date(out):
        say(f"building {sha[:12]} (kbuild starts from the newest build of this tree)")
        status = cli.call("kbuild", ["--src", str(args.src), "--out", str(out)])
        if status:
            return status, None
    return 0, out / "bzImage"


def measure(args, image, label_dir):
    """vmrun of the suite or benchmarks: its exit status (0 where the set
    was measured before: a retried job)."""
    if label_dir.exists() and results.load_path(label_dir):
        say(f"{label_dir} is measured already: not again")
        return 0
    what = ["--suite", args.suite] if args.suite else [x for b in args.bench for x in ("--bench", b)]
    return vmrun_command.main(["--kernel", str(image), "--label", str(label_dir),
                               "--boots", str(args.boots), *options.passed_on(args), *what])


def judge(h, runs, policy):
    """The gate of runs against the history's last stable segments: its
    exit status (0 for a history with nothing to judge against)."""
    metric = policy["default"]["metric"]
    base = history.last_stable(h, metric)
    if not base:
        say(f"the history has no {metric} to judge against yet: the first set is stored")
        return cli.EXIT_PASS
    judged = verdict.judge(base, runs, policy, model.clock_of_runs(base, runs))
    print(output.gate_table(judged, policy))
    print(output.gate_line(judged), flush=True)
    return judged.status()


def store(engine, args, sha, runs, label_dir):
    """The set added to the history, unless the commit is there already."""
    if any(s["kernel_commit"] == sha for s in history.sets(engine, args.branch)):
        say(f"{sha[:12]} is in the history already: not added again")
        return
    set_id = history.add(engine, runs, label_dir.name, sha, args.branch)
    say(f"added {label_dir} to the history as set {set_id}")


def changes_said(h, policy):
    metric = policy["default"]["metric"]
    for one, points in history.weighed_changes(h, metric, policy):
        for c, _, words in points:
            say(f"change point: {results.label(one.key, set())} at {one.commits[c.index][:12]}: "
                f"{c.delta_pct:+.2f}%, {words}")


def main(argv=None):
    ap = cli.ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True, type=Path, help="a git tree of the kernel")
    ap.add_argument("--commit", default="HEAD", help="the commit to measure (default HEAD: "
                                                     "--src checked out at it)")
    ap.add_argument("--branch", help="the branch whose history judges it")
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--suite", help="a suite of suites/")
    what.add_argument("--bench", action="append", default=[],
                      help="./bench arguments, one string (repeatable)")
    ap.add_argument("--db", help="the history's store (default sqlite:///results/history.sqlite)")
    ap.add_argument("--site", type=Path, help="write the history's web site into this folder")
    ap.add_argument("--policy", help="the gate's policy file")
    ap.add_argument("--keep-builds", type=cli.at_least(0), default=2, metavar="N",
                    help="whole kernel builds kept besides the tree's base (default 2)")
    # two boots a commit: the gate's least under icount, on each side
    options.add(ap, boots=2)
    args = ap.parse_args(argv)
    vmrun_command.check_lab_options(ap, args)
    if args.engine == "lava":
        lab_engine.preflight(args)
    policy = verdict.load_policy(args.policy)
    engine = history.open_store(args.db)
    sha = commit_of(args.src, args.commit)
    head = commit_of(args.src, "HEAD")
    if sha != head:
        cli.die(f"--commit {args.commit} is not what --src has checked out ({head[:12]}): "
                "check it out first", cli.EXIT_INPUT)
    status, image = build(args, sha)
    if status:
        return status
    label_dir = RESULTS / "ci" / (args.branch or "default") / sha[:12]
    status = measure(args, image, label_dir)
    if status:
        return status
    runs = cli.need_runs(results.load_path(label_dir), label_dir)
    verdict_status = judge(history.load(engine, args.branch), runs, policy)
    store(engine, args, sha, runs, label_dir)
    after = history.load(engine, args.branch)
    changes_said(after, policy)
    if args.site:
        pages = history_site.build(after, policy["default"]["metric"], policy, args.site,
                                   engine.url.render_as_string(hide_password=True))
        say(f"wrote the history's site: {len(pages)} pages in {args.site}")
    freed = kbuild.gc(args.keep_builds)
    say(f"done: {cli.GATE_WORDS[verdict_status]} ({freed / 2 ** 30:.2f} GiB of old builds freed)")
    return verdict_status
