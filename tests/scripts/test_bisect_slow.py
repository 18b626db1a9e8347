"""make check-slow: a git tree made from linux-source-7.2 with 11 commits, the
1% lookup fixture at one of them and a memory-only fixture (each bucket a
cache line) at another: bisect names the first under icount and the second
under the cache model, each in at most 4 steps, resumes after a Ctrl-C with
no traceback, keeps its disk to --keep-builds whole kernels and leaves no
worktree; a history of one boot per commit under the model shows each as a
change point of its own metric; a --from build with gawk as awk stays
incremental. The first build takes about 16 minutes on 2 CPUs; each later
one is incremental."""
import argparse
import difflib
import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ROOT, script_process

from mapbench import cachemodel, history, kernelsrc, results
from mapbench.commands import bisect, kbuild

FIXTURES = ROOT / "tests" / "fixtures"
TREE = ROOT / "build" / "bisect-tree-7.2"
LABEL = "slow-7.2"
COMMITS = 11
# the commits that change something; the others touch a file no build reads
CHANGES = {5: ("htab-lookup-one-percent.patch", "bpf: htab: two more instructions a lookup"),
           9: ("htab-bucket-stride.patch", "bpf: htab: a bucket takes a cache line")}
BENCH = ["htab-lookup", "--max-entries", "1K", "-w", "1", "-d", "2"]
# 1M entries: with the second fixture the bucket array (64 MB) outgrows the LLC; at
# 64K its effect was within what sampled layouts spread one boot (about 1%)
MODELLED = ["--model", cachemodel.DEFAULT, "--profile", "--sample-layouts", "--metric", "model_cycles",
            "--", "htab-lookup", "--max-entries", "1M", "-w", "1", "-d", "2"]


def git(*args):
    return subprocess.run(["git", "-C", str(TREE), "-c", "user.name=mapbench",
                           "-c", "user.email=mapbench@localhost", *args],
                          capture_output=True, text=True, check=True).stdout.strip()


def make_tree():
    """linux-source-7.2 as a git tree: the release, then the commits after
    it. Made once and kept (build/), as kbuild keeps its kernels; a tree
    made with fewer commits is carried on."""
    if not (TREE / ".git").exists():
        pristine = kernelsrc.pristine_tree(kernelsrc.source_path(Path("linux-source-7.2")))
        shutil.copytree(pristine, TREE, symlinks=True,
                        ignore=shutil.ignore_patterns(".mapbench-*"))
        # Debian's packaging ignores everything at the top level ("/*"): not here
        ignore = TREE / ".gitignore"
        ignore.write_text(ignore.read_text().replace("\n/*\n!/debian/\n", "\n"))
        subprocess.run(["git", "init", "-q", str(TREE)], check=True)
        git("add", "-A")
        git("commit", "-q", "-m", "linux 7.2.13")
    for i in range(len(git("rev-list", "HEAD").split()), COMMITS):
        if i in CHANGES:
            patch, message = CHANGES[i]
            subprocess.run(["patch", "-p1", "--no-backup-if-mismatch", "-d", str(TREE), "-i",
                            str(FIXTURES / patch)], check=True, capture_output=True)
        else:
            with open(TREE / "Documentation" / "bpf" / "mapbench-series.txt", "a") as f:
                f.write(f"step {i}\n")
            message = f"docs: a neutral step {i}"
        git("add", "-A")
        git("commit", "-q", "-m", message)
    return git("rev-list", "--reverse", "HEAD").split()


def bisect_argv(shas, *argv):
    return ["/usr/bin/python3", str(ROOT / "scripts" / "bisect"), "--src", str(TREE), "--good",
            shas[0], "--bad", shas[-1], "--label", LABEL, "--keep-builds", "2", *argv]


def interrupted_after_a_step(shas, *argv):
    """bisect started and stopped with Ctrl-C (SIGINT to its process group,
    as a terminal sends it) once it has judged a commit between the ends:
    one line, exit 130, no traceback from it or git bisect run's child."""
    proc = subprocess.Popen(bisect_argv(shas, *argv), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    seen = ""
    for line in proc.stdout:
        seen += line
        if re.match(r"bisect: [0-9a-f]{12}: .* -> (good|bad)$", line):
            break
    else:
        raise AssertionError(seen + proc.stderr.read())
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 130, seen + out + err
    assert "Traceback" not in out + err and "run the same command again to resume" in out, err


def bisected(shas, *argv):
    """bisect over the whole tree: its output; it named a first bad commit
    in at most 4 steps."""
    start = time.monotonic()
    proc = subprocess.run(bisect_argv(shas, *argv), capture_output=True, text=True,
                          timeout=5400)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    steps = [x for x in proc.stdout.splitlines() if x.startswith("bisect: ") and "->" in x]
    assert len(steps) <= 4, steps
    print(f"\nbisect {' '.join(argv)}: {time.monotonic() - start:.0f} s, {len(steps)} steps\n"
          + proc.stdout[-1500:])
    return proc.stdout


def changes(db, metric):
    """{commit: verdict} of the history's change points in METRIC."""
    out = script_process("history", "changes", "--db", db, "--metric", metric, "--json",
                         timeout=120)
    assert out.returncode in (0, 1), out.stderr
    (series,) = json.loads(out.stdout)
    print(metric, [(c["commit"][:12], round(c["delta_pct"], 2), c["verdict"])
                   for c in series["changes"]])
    return {c["commit"]: c["verdict"] for c in series["changes"]}


def kept_to_budget(label):
    """At most --keep-builds 2 whole kernels; every other one pruned to what
    booting it needs; the user's tree lists no worktree of the bisection."""
    kernels = sorted(bisect.folders(label)["kernels"].iterdir())
    whole = [d for d in kernels if kbuild.whole(d)]
    sizes = {d.name: kbuild.size_of(d) / 2 ** 20 for d in kernels}
    print(f"\nkernels: {len(kernels)}, whole {len(whole)}, {sum(sizes.values()):.0f} MiB in all; "
          f"MiB each: {sizes}")
    assert len(whole) <= 2, [d.name for d in whole]
    assert all(sizes[d.name] < 64 for d in kernels if d not in whole), sizes
    assert str(bisect.folders(label)["src"]) not in git("worktree", "list")


def awk_switch_stays_incremental(base, tmp_path):
    """A --from build of a kernel made before, run where awk is gawk: kbuild
    gives make its own awk, so only the patched file is compiled again (where
    make took awk from PATH, every object was: issue 59)."""
    gawk = shutil.which("gawk")
    if not gawk:
        pytest.skip("gawk is not installed (check-slow's LAVA packages bring it)")
    shims = tmp_path / "awk-is-gawk"
    shims.mkdir()
    (shims / "awk").symlink_to(gawk)
    source = (TREE / "kernel/bpf/hashtab.c").read_text()
    patch = tmp_path / "comment.patch"
    patch.write_text("".join(difflib.unified_diff(
        source.splitlines(True), (source + "/* mapbench: a comment */\n").splitlines(True),
        "a/kernel/bpf/hashtab.c", "b/kernel/bpf/hashtab.c")))
    out = tmp_path / "gawk-build"
    proc = subprocess.run(["/usr/bin/python3", str(ROOT / "scripts" / "kbuild"), "--src",
                           str(bisect.folders(LABEL)["src"]), "--from", str(base), "--out",
                           str(out), "--patch", str(patch)], capture_output=True, text=True,
                          timeout=3600, env=dict(os.environ, PATH=f"{shims}:{os.environ['PATH']}"))
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    compiled = [x for x in (out / "build.log").read_text().splitlines()
                if x.strip().startswith("CC ")]
    print(f"\n--from build with awk = gawk: {len(compiled)} objects compiled")
    assert "will rebuild most objects" not in proc.stdout
    assert 0 < len(compiled) < 40, compiled[:20]
    shutil.rmtree(out)


@pytest.mark.slow
def test_bisect_names_each_commit_and_the_history_shows_both(tmp_path):
    shas = make_tree()
    interrupted_after_a_step(shas, "--", *BENCH)
    out = bisected(shas, "--", *BENCH)
    assert f"first bad commit: {shas[5][:12]} bpf: htab: two" in out
    kept_to_budget(LABEL)
    out = bisected(shas, *MODELLED)
    assert f"first bad commit: {shas[9][:12]} bpf: htab: a bucket" in out
    where = next(x for x in out.splitlines() if x.strip().startswith("where:"))
    moved = re.search(r"([+-][\d.]+) (L1D|L2|LLC) misses/op", where)
    assert moved and float(moved[1]) > 0, where
    # the history: one boot per commit under the model, with bisect's cache
    kept_to_budget(LABEL)
    f = bisect.folders(LABEL)
    state = json.loads(f["state"].read_text())
    bisect.prepare(argparse.Namespace(src=TREE, good=shas[0], bad=shas[-1]), f)
    awk_switch_stays_incremental(bisect.nearest_build(f["kernels"], ""), tmp_path)
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    engine = history.open_store(db)
    for i, sha in enumerate(shas):
        subprocess.run(["git", "-C", str(f["src"]), "checkout", "-q", "--detach", sha],
                       check=True)
        t0 = time.monotonic()
        assert bisect.measure(state, sha) is not None
        print(f"commit {i}: {time.monotonic() - t0:.0f} s")
        history.add(engine, results.load_path(bisect.results_of(state) / sha[:12]),
                    sha[:12], sha)
    # icount sees the instructions and not the memory; the model sees the memory
    figure = changes(db, "figure")
    assert figure.get(shas[5]) == "regression" and shas[9] not in figure, figure
    assert changes(db, "model_cycles").get(shas[9]) == "regression"
