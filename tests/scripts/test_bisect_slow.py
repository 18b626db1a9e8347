"""make check-slow: a git tree made from linux-source-7.2 with 8 commits,
the 1% lookup fixture at one of them: bisect names it in at most 4 steps,
and a history of one boot per commit (bisect's own kernels and results)
shows it as a change point. The first build takes about 16 minutes on 2
CPUs; each later one is incremental."""
import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ROOT, script_process

from mapbench import history, kernelsrc, results
from mapbench.commands import bisect

FIXTURE = ROOT / "tests" / "fixtures" / "htab-lookup-one-percent.patch"
TREE = ROOT / "build" / "bisect-tree-7.2"
LABEL = "slow-7.2"
BENCH = ["htab-lookup", "--max-entries", "1K", "-w", "1", "-d", "2"]


def git(*args):
    return subprocess.run(["git", "-C", str(TREE), "-c", "user.name=mapbench",
                           "-c", "user.email=mapbench@localhost", *args],
                          capture_output=True, text=True, check=True).stdout.strip()


def make_tree():
    """linux-source-7.2 as a git tree: the release, then 7 commits, the
    fixture at the 5th (index 5); the others touch a file no build reads.
    Made once and kept (build/), as kbuild keeps its kernels."""
    if (TREE / ".git").exists():
        return git("rev-list", "--reverse", "HEAD").split()
    pristine = kernelsrc.pristine_tree(kernelsrc.source_path(Path("linux-source-7.2")))
    shutil.copytree(pristine, TREE, symlinks=True, ignore=shutil.ignore_patterns(".mapbench-*"))
    # Debian's packaging ignores everything at the top level ("/*"): not here
    ignore = TREE / ".gitignore"
    ignore.write_text(ignore.read_text().replace("\n/*\n!/debian/\n", "\n"))
    subprocess.run(["git", "init", "-q", str(TREE)], check=True)
    git("add", "-A")
    git("commit", "-q", "-m", "linux 7.2.13")
    for i in range(1, 8):
        if i == 5:
            subprocess.run(["patch", "-p1", "-d", str(TREE), "-i", str(FIXTURE)], check=True,
                           capture_output=True)
            message = "bpf: htab: two more instructions a lookup"
        else:
            with open(TREE / "Documentation" / "bpf" / "mapbench-series.txt", "a") as f:
                f.write(f"step {i}\n")
            message = f"docs: a neutral step {i}"
        git("add", "-A")
        git("commit", "-q", "-m", message)
    return git("rev-list", "--reverse", "HEAD").split()


@pytest.mark.slow
def test_bisect_names_the_one_percent_commit_and_the_history_shows_it(tmp_path):
    shas = make_tree()
    start = time.monotonic()
    proc = script_process("bisect", "--src", TREE, "--good", shas[0], "--bad", shas[-1],
                          "--label", LABEL, "--", *BENCH, timeout=5400)
    took = time.monotonic() - start
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert f"first bad commit: {shas[5][:12]} bpf: htab:" in proc.stdout
    steps = [x for x in proc.stdout.splitlines() if x.startswith("bisect: ") and "->" in x]
    assert len(steps) <= 4, steps
    print(f"\nbisect: {took:.0f} s, {len(steps)} steps\n" + proc.stdout[-1500:])
    # the history: one boot per commit, measured with bisect's own cache
    f = bisect.folders(LABEL)
    state = json.loads(f["state"].read_text())
    engine = history.open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    for i, sha in enumerate(shas):
        subprocess.run(["git", "-C", str(f["src"]), "checkout", "-q", "--detach", sha],
                       check=True)
        t0 = time.monotonic()
        assert bisect.measure(state, sha) is not None
        print(f"commit {i}: {time.monotonic() - t0:.0f} s")
        history.add(engine, results.load_path(f["results"] / sha[:12]), sha[:12], sha)
    out = script_process("history", "changes", "--db", f"sqlite:///{tmp_path / 'h.sqlite'}",
                         timeout=120)
    print(out.stdout)
    row = next(x for x in out.stdout.splitlines() if x.startswith("htab-lookup"))
    assert shas[5] in row and "REGRESSION" in row
