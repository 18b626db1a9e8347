"""scripts/bisect on a git tree of commits whose figures are known: each
step's result is in bisect's cache, so no kernel is built or booted, except
where a commit's is missing: the fake tree does not build, and git bisect
run skips it."""
import argparse
import dataclasses
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import uuid

import pytest

from conftest import ROOT, script_process
from test_analysis import write_set
from test_clock import ICOUNT

from mapbench import cachemodel
from mapbench.commands import bisect, kbuild
from mapbench.guest import options

TREES = ROOT / "build" / "kernel" / "tree"


def commit(tree, i):
    (tree / "kernel" / "bpf" / "hashtab.c").write_text(f"int step = {i};\n")
    subprocess.run(["git", "-C", str(tree), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(tree), "-c", "user.name=t", "-c", "user.email=t@t",
                    "commit", "-q", "-m", f"step {i}"], check=True)
    return subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()


def results_for(label, bench, guest_options=()):
    """Where bisect keeps the results of BENCH measured with these options."""
    ap = argparse.ArgumentParser()
    options.add(ap)
    vmrun = options.passed_on(ap.parse_args(list(guest_options)))
    return bisect.results_of({"label": label, "bench": bench, "vmrun": vmrun})


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
    shas = [commit(tree, i) for i in range(9)]
    for i, sha in enumerate(shas):
        if i != 3:
            write_set(results_for(label, ["htab-lookup"]) / sha[:12], "htab-lookup",
                      [5.0 if i < 6 else 4.95], env=dict(ICOUNT, kernel_release=f"7.2.13-{i}"))
    yield tree, shas, label, f
    shutil.rmtree(f["results"], ignore_errors=True)
    shutil.rmtree(f["work"], ignore_errors=True)
    subprocess.run(["git", "-C", str(tree), "worktree", "prune"], check=True)
    for made in TREES.glob(f"{kbuild.tree_name(f['src'])}*"):     # kbuild's copy and lock
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
    log, = f["work"].glob(f"bisect-{shas[0][:12]}-{shas[8][:12]}-*.log")
    assert f"# first bad commit: [{shas[6]}]" in log.read_text()
    assert f"git's bisect log: {log}" in proc.stdout
    # the bisection is over: its worktree is gone, and the user's tree, never
    # checked out, lists it no more
    assert not f["src"].exists() and str(f["src"]) not in worktrees(tree)
    assert subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip() == shas[8]


def worktrees(tree):
    return subprocess.run(["git", "-C", str(tree), "worktree", "list"], capture_output=True,
                          text=True, check=True).stdout


def test_a_commit_that_does_not_build_is_skipped(history_tree):
    tree, shas, label, f = history_tree
    proc = script_process("bisect", "--src", tree, "--good", shas[0], "--bad", shas[4],
                          "--label", label, "--", "htab-lookup", timeout=300)
    assert proc.returncode == 1       # good and bad alike: nothing to bisect
    assert "nothing to bisect" in proc.stdout
    assert not f["src"].exists() and str(f["src"]) not in worktrees(tree)
    subprocess.run(["git", "-C", str(tree), "worktree", "add", "-q", "--detach", str(f["src"]),
                    shas[3]], check=True)
    state = {"label": label, "metric": "figure", "bench": ["htab-lookup"], "vmrun": [],
             "good_figure": 5.0, "bad_figure": 4.95, "unit": "M ops/s"}
    state_file = f["work"] / "step.json"
    state_file.write_text(json.dumps(state))
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


def test_a_negative_count_is_refused_before_anything_is_built():
    proc = script_process("bisect", "--src", "/tmp", "--good", "a", "--bad", "b", "-w", "-1",
                          "--", "x", timeout=60)
    assert proc.returncode == 64 and "argument -w/--warmup: -1 is not a whole number, 0 or more" \
        in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_another_measurement_keeps_its_own_results(history_tree):
    """The same commits measured with other guest options (--model, say)
    are measured again, not read from the first measurement's results: the
    fake tree does not build, so bisect cannot judge its ends."""
    tree, shas, label, f = history_tree
    proc = script_process("bisect", "--src", tree, "--good", shas[0], "--bad", shas[8],
                          "--label", label, "--runs", "2", "--", "htab-lookup", timeout=300)
    assert proc.returncode == 1 and "does not build or boot" in proc.stderr, proc.stderr
    assert results_for(label, ["htab-lookup"], ["--runs", "2"]) != \
        results_for(label, ["htab-lookup"])


def test_a_machine_that_changed_is_another_measurement(monkeypatch):
    """zen4's results measured before it gained a mechanism are not zen4's
    now: the key holds the machine's definition, not only its name."""
    zen4 = results_for("l", ["htab-lookup"], ["--model", "zen4"])
    assert zen4 == results_for("l", ["htab-lookup"], ["--model", "zen4"])
    assert results_for("l", ["htab-lookup"], ["--profile"]) != zen4
    before = dataclasses.replace(cachemodel.named("zen4:no-prefetch"), name="zen4")
    monkeypatch.setattr(cachemodel.machines, "BASE", (before,))
    assert results_for("l", ["htab-lookup"], ["--model", "zen4"]) != zen4


def test_a_second_bisection_waits_for_the_first(history_tree):
    tree, shas, label, f = history_tree
    assert script_process("bisect", "--src", tree, "--good", shas[0], "--bad", shas[8],
                          "--label", label, "--", "htab-lookup", timeout=300).returncode == 0
    # the first one interrupted: git's bisection still stands in the worktree
    subprocess.run(["git", "-C", str(tree), "worktree", "add", "-q", "--detach", str(f["src"]),
                    shas[0]], check=True)
    subprocess.run(["git", "-C", str(f["src"]), "bisect", "start", shas[8], shas[0]],
                   check=True, capture_output=True)
    proc = script_process("bisect", "--src", tree, "--good", shas[0], "--bad", shas[8],
                          "--label", label, "--", "htab-lookup", "--max-entries", "1M",
                          timeout=120)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "in the middle of bisecting htab-lookup" in proc.stderr
    # the same measurement resumes it
    again = script_process("bisect", "--src", tree, "--good", shas[0], "--bad", shas[8],
                           "--label", label, "--", "htab-lookup", timeout=300)
    assert again.returncode == 0 and f"first bad commit: {shas[6][:12]}" in again.stdout
    # it went on from git's pending commit: BAD was not tested (and logged) again
    log, = f["work"].glob(f"bisect-{shas[0][:12]}-{shas[8][:12]}-*.log")
    assert f"git bisect bad {shas[8]}" not in log.read_text(), log.read_text()


def test_ctrl_c_in_a_step_ends_it_quietly_where_the_user_ran_bisect(tmp_path, monkeypatch):
    """A Ctrl-C reaches git bisect run's child too: it used to end in a
    KeyboardInterrupt traceback after bisect's one line. The step runs in the
    folder bisect was run from, so the paths it prints read as there."""
    from mapbench import cli
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"label": "x", "cwd": str(tmp_path)}))
    seen = []

    def interrupted(state, sha):
        seen.append(os.getcwd())
        raise KeyboardInterrupt
    monkeypatch.setattr(bisect, "measure", interrupted)
    monkeypatch.setattr(bisect, "git", lambda *a, **k: subprocess.CompletedProcess(a, 0, "abc"))
    handlers = []
    monkeypatch.setattr(cli.signal, "signal", lambda *a: handlers.append(a))
    monkeypatch.chdir(ROOT)
    assert cli.run(bisect.main, ["--step", str(state)], "bisect") == cli.EXIT_INTERRUPTED
    assert seen == [str(tmp_path)]
    # a second Ctrl-C while it exits is ignored, not a traceback
    assert handlers == [(signal.SIGINT, signal.SIG_IGN)]


def test_a_kernel_built_with_another_fragment_is_out_of_date(tmp_path):
    (tmp_path / "bzImage").write_bytes(b"")
    fragment = hashlib.sha256(kbuild.FRAGMENT.read_bytes()).hexdigest()
    info = {"config_fragment": {"sha256": fragment}}
    (tmp_path / "kbuild.json").write_text(json.dumps(info))
    assert bisect.up_to_date(tmp_path)
    info["config_fragment"]["sha256"] = "0" * 64
    (tmp_path / "kbuild.json").write_text(json.dumps(info))
    assert not bisect.up_to_date(tmp_path)


def test_two_bisections_build_at_once(tmp_path):
    """Every bisection's worktree is called src: kbuild's lock is per source
    path, so one label's build does not wait for another's."""
    one, two = tmp_path / "a" / "src", tmp_path / "b" / "src"
    kbuild.lock_tree(one)
    try:
        code = (f"from pathlib import Path; from mapbench.commands import kbuild; "
                f"kbuild.lock_tree(Path({str(two)!r}))")
        subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT / "scripts")},
                       check=True, timeout=20)
    finally:
        kbuild.HELD.pop().close()
        for src in (one, two):
            (TREES / f"{kbuild.tree_name(src)}.lock").unlink(missing_ok=True)


def test_a_step_starts_from_a_build_with_todays_fragment(tmp_path):
    """Rebuilding a kernel whose fragment changed recompiles what the
    fragment touched (minutes); starting from a kernel already built with
    today's fragment recompiles what the commits changed (about a minute)."""
    fragment = hashlib.sha256(kbuild.FRAGMENT.read_bytes()).hexdigest()
    for i, (name, sha, pruned) in enumerate((("new", fragment, False), ("old", "0" * 64, False),
                                             ("pruned", fragment, True))):
        (tmp_path / name).mkdir()
        (tmp_path / name / "kbuild.json").write_text(
            json.dumps({"config_fragment": {"sha256": sha}, "pruned": pruned}))
        for kept in ("bzImage", ".config"):
            (tmp_path / name / kept).write_bytes(b"")
        os.utime(tmp_path / name / "bzImage", (1000 + i, 1000 + i))   # old is the newer
    assert bisect.nearest_build(tmp_path, "x").name == "new"
    assert bisect.nearest_build(tmp_path, "new").name == "old"      # a pruned one never


def test_under_the_model_it_bisects_modelled_cycles(history_tree):
    """A memory-only commit: icount's figure flat, modelled cycles 10% up
    from commit 6. bisect --model judges modelled cycles unless told
    otherwise (it said "nothing to bisect")."""
    tree, shas, label, f = history_tree
    guest = ["--model", "zen4"]
    for i, sha in enumerate(shas):
        if i == 3:
            continue
        folder = write_set(results_for(label, ["htab-lookup"], guest) / sha[:12], "htab-lookup",
                           [5.0], env=dict(ICOUNT, kernel_release=f"7.2.13-{i}"))
        for run in folder.glob("*.json"):
            doc = json.loads(run.read_text())
            doc["model"] = {"per_op": {"model_cycles": 100.0 if i < 6 else 110.0}}
            run.write_text(json.dumps(doc))
    proc = script_process("bisect", "--src", tree, "--good", shas[0], "--bad", shas[8],
                          "--label", label, *guest, "--", "htab-lookup", timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert f"first bad commit: {shas[6][:12]}" in proc.stdout
    assert "model_cycles: 100 -> 110" in proc.stdout
