"""scripts/bisect on a git tree of commits whose figures are known: each
step's result is in bisect's cache, so no kernel is built or booted, except
where a commit's is missing: the fake tree does not build, and git bisect
run skips it."""
import shutil
import subprocess
import uuid

import pytest

from conftest import ROOT, script_process
from test_analysis import write_set
from test_clock import ICOUNT

from mapbench.commands import bisect

TREES = ROOT / "build" / "kernel" / "tree"


def commit(tree, i):
    (tree / "kernel" / "bpf" / "hashtab.c").write_text(f"int step = {i};\n")
    subprocess.run(["git", "-C", str(tree), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(tree), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-q", "-m", f"step {i}"], check=True)
    return subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()


@pytest.fixture
def history_tree(tmp_path):
    """A fake kernel tree of 9 commits, the figure 1% lower from commit 6 on;
    commit 3's result left out of the cache. Everything made is removed."""
    tree = tmp_path / "linux"
    (tree / "kernel" / "bpf").mkdir(parents=True)
    (tree / "Makefile").write_text("# not a real kernel: it does not build\n")
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    label = f"t{uuid.uuid4().hex[:8]}"
    f = bisect.folders(label)
    trees_before = set(TREES.glob("*"))
    shas = [commit(tree, i) for i in range(9)]
    for i, sha in enumerate(shas):
        if i != 3:
            write_set(f["results"] / sha[:12], "htab-lookup", [5.0 if i < 6 else 4.95],
                      env=dict(ICOUNT, kernel_release=f"7.2.13-{i}"))
    yield tree, shas, label, f
    shutil.rmtree(f["results"], ignore_errors=True)
    shutil.rmtree(f["work"], ignore_errors=True)
    subprocess.run(["git", "-C", str(tree), "worktree", "prune"], check=True)
    for made in set(TREES.glob("*")) - trees_before:
        shutil.rmtree(made, ignore_errors=True) if made.is_dir() else made.unlink()


def test_bisect_names_the_commit_and_skips_one_that_does_not_build(history_tree):
    tree, shas, label, f = history_tree
    proc = script_process("bisect", "--src", tree, "--good", shas[0], "--bad", shas[8],
                          "--label", label, "--", "htab-lookup", timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert f"first bad commit: {shas[6][:12]} step 6" in proc.stdout
    assert "5 -> 4.95" in proc.stdout and "-1.00% against its parent" in proc.stdout
    steps = [x for x in proc.stdout.splitlines() if x.startswith("bisect: ") and "->" in x]
    assert 1 <= len(steps) <= 4, steps
    log = (f["work"] / "bisect.log").read_text()
    assert f"# first bad commit: [{shas[6]}]" in log
    # the worktree's bisection is over; the user's tree was never checked out
    assert subprocess.run(["git", "-C", str(f["src"]), "bisect", "log"],
                          capture_output=True).returncode != 0
    assert subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip() == shas[8]


def test_a_commit_that_does_not_build_is_skipped(history_tree):
    tree, shas, label, f = history_tree
    proc = script_process("bisect", "--src", tree, "--good", shas[0], "--bad", shas[4],
                          "--label", label, "--", "htab-lookup", timeout=300)
    assert proc.returncode == 1       # good and bad alike: nothing to bisect
    assert "nothing to bisect" in proc.stdout
    subprocess.run(["git", "-C", str(f["src"]), "checkout", "-q", "--detach", shas[3]], check=True)
    state = {"label": label, "metric": "figure", "bench": ["htab-lookup"], "vmrun": [],
             "good_figure": 5.0, "bad_figure": 4.95, "unit": "M ops/s"}
    state_file = f["work"] / "step.json"
    state_file.write_text(__import__("json").dumps(state))
    assert script_process("bisect", "--step", state_file, timeout=120).returncode == 125


@pytest.mark.parametrize("args, says", [
    (["--src", "/tmp", "--good", "a", "--bad", "b", "--", "x"], "not a git tree"),
    (["--src", "{tree}", "--good", "nope", "--bad", "HEAD", "--", "x"], "nope: no such commit"),
    (["--src", "{tree}", "--good", "HEAD", "--bad", "HEAD~1", "--", "x"], "is not an ancestor")])
def test_bad_input_is_one_line(history_tree, args, says):
    tree = history_tree[0]
    proc = script_process("bisect", *[a.format(tree=tree) for a in args], timeout=60)
    assert proc.returncode == 2 and says in proc.stderr and \
        len(proc.stderr.strip().splitlines()) == 1, proc.stderr
