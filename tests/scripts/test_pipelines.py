"""The CI pipelines a team copies (pipelines/): both run one mapbench
command, scripts/ci-commit, with the same options, each one ci-commit
takes, so that what CI runs is what make check-slow runs
(test_pipelines_slow.py runs the GitLab one end to end)."""
import re
import shlex

import pytest
import yaml

from conftest import ROOT, run_script

PIPELINES = {"gitlab": ROOT / "pipelines" / "gitlab-ci.yml",
             "github": ROOT / "pipelines" / "github-actions.yml"}


def commands(kind):
    """Every shell line of the pipeline's jobs, folded."""
    doc = yaml.safe_load(PIPELINES[kind].read_text())
    if kind == "gitlab":
        scripts = [line for job in doc.values() if isinstance(job, dict) and "script" in job
                   for line in job["script"]]
    else:
        scripts = [step["run"] for job in doc["jobs"].values() for step in job["steps"]
                   if "run" in step]
    return [" ".join(line.split()) for script in scripts for line in script.splitlines()]


def ci_call(kind):
    """The ci-commit command line of the pipeline: its options, in order."""
    (line,) = [x for x in commands(kind) if "scripts/ci-commit" in x]
    words = shlex.split(line.replace("${", "").replace(":+", " ").replace("}", ""))
    return [w for w in words if w.startswith("--")]


@pytest.mark.parametrize("kind", PIPELINES)
def test_a_pipeline_runs_ci_commit_and_no_other_mapbench_tool(kind):
    tools = {m for line in commands(kind) for m in re.findall(r"scripts/([\w-]+)", line)}
    assert tools == {"ci-commit"}, tools


def test_both_pipelines_call_ci_commit_alike_with_options_it_takes():
    gitlab, github = ci_call("gitlab"), ci_call("github")
    assert gitlab == github, (gitlab, github)
    usage = run_script("ci-commit", "--help").stdout
    assert all(re.search(rf"{option}\b", usage) for option in gitlab), (gitlab, usage)
    assert {"--src", "--commit", "--branch", "--suite", "--site", "--db", "--engine"} <= set(gitlab)
