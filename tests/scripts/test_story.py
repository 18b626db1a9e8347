"""From run to verdict: the scripts agree on every number, say what to do
next, and refuse what is not theirs."""
import json
import os
import re
import subprocess

import pytest

from conftest import ROOT, run_bench
from test_analysis import result_doc, script, slowdown, write_set  # noqa: F401 (fixture)

from mapbench import model

SUITE = ROOT / "scripts" / "suite"


def rows_of(tool, *args):
    proc = script(tool, *args, "--json")
    assert proc.returncode in (0, 1, 2), proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["tool"] == tool
    return {(r["benchmark"], json.dumps(r["params"], sort_keys=True)): r for r in doc["rows"]}


def test_compare_report_and_gate_give_the_same_delta(slowdown):
    a, b = slowdown
    rows = {tool: rows_of(tool, a, b) for tool in ("compare", "report", "gate")}
    assert rows["compare"].keys() == rows["report"].keys() == rows["gate"].keys()
    assert len(rows["compare"]) == 2
    for key, c in rows["compare"].items():
        for tool in ("report", "gate"):
            r = rows[tool][key]
            assert (r["metric"], r["unit"], r["direction"]) == \
                ("figure", "M ops/s throughput", "higher is better")
            assert r["delta_pct"] == pytest.approx(c["delta_pct"], abs=1e-9)
            assert r["before"] == c["before"] and r["after"] == c["after"]
            for field in ("ci", "mde_pct", "p_holm", "verdict", "result"):
                assert r[field] == c[field], (tool, field)
    lookup = next(r for k, r in rows["gate"].items() if k[0] == "htab-lookup")
    assert lookup["verdict"] == "regression" and lookup["delta_pct"] < -8
    assert lookup["result"] == "REGRESSION"
    assert "Verdicts (scripts/gate's rules): 1 regression (htab-lookup); 1 no change" in \
        script("report", a, b).stdout


def test_one_metric_switches_every_script(slowdown):
    a, b = slowdown
    for tool in ("compare", "report", "gate"):
        rows = rows_of(tool, a, b, "--metric", "latency")
        assert {r["metric"] for r in rows.values()} == {"latency"}
        assert {r["direction"] for r in rows.values()} == {"lower is better"}


def test_too_few_runs_say_how_many_more(tmp_path):
    a = write_set(tmp_path / "a", "htab-lookup", [100, 101])
    b = write_set(tmp_path / "b", "htab-lookup", [80, 81])
    out = script("compare", a, b).stdout
    assert "too few runs (2/2 of 5 a side: 3 more)" in out
    assert "]%*" in out and "* from fewer than --min-runs 5 runs a side" in out
    assert "Not one of the 1 comparison(s) was tested" in out and "run 3 more a side" in out
    gate = script("gate", a, b)
    assert gate.returncode == 2
    assert "inconclusive: too few runs (2/2 of 5 a side: 3 more)" in gate.stdout
    assert "gate: inconclusive (none of 1 passed)" in gate.stdout
    row = next(iter(rows_of("compare", a, b).values()))
    assert row["ci_reliable"] is False


def test_a_small_figure_keeps_its_digits(tmp_path):
    """lpm-trie-free is a fraction of an operation per second in M ops/s: the
    figure (K ops/s) is the default, and small values keep three digits."""
    kw = {"figure": ("in-kernel throughput", "K ops/s", "in-kernel")}
    a = write_set(tmp_path / "a", "lpm-trie-free", [0.228, 0.229, 0.230, 0.227, 0.228], **kw)
    out = script("compare", a, a).stdout
    assert "figure: K ops/s in-kernel throughput, higher is better" in out
    assert "0.228 ± " in out
    assert "0.000 ± 0.000" not in script("compare", a, a, "--metric", "kernel_rate").stdout


def test_mem_bytes_are_lower_is_better(tmp_path):
    def mem_doc(v):
        return {"schema": "mapbench-result", "schema_version": 2, "status": "complete",
                "benchmark": "mem", "family": "mem", "command": [], "params": {"map": "htab"},
                "environment": {"cpu_model": "x"},
                "memory": {"rows": [{"label": "htab", "map": "htab", "prealloc": True,
                                     "status": "ok", "bytes_per_element": v}]}}
    for side, v in (("a", 64), ("b", 32)):
        (tmp_path / side).mkdir()
        for i in range(5):
            (tmp_path / side / f"m{i}.json").write_text(json.dumps(mem_doc(v + i * 0.01)))
    row = next(iter(rows_of("gate", tmp_path / "a", tmp_path / "b").values()))
    assert row["direction"] == "lower is better" and row["verdict"] == "improvement"


def test_a_text_file_that_is_not_a_kernel_log_is_refused():
    proc = script("compare", ROOT / "README.org", ROOT / "README.org")
    assert proc.returncode == 3
    assert proc.stderr.count("\n") == 1 and "neither a mapbench result" in proc.stderr


def test_a_kernel_log_is_read_by_its_shape(tmp_path):
    log = ("Setting up benchmark 'lpm-trie-lookup'...\nBenchmark 'lpm-trie-lookup' started.\n"
           "Iter   0 ( 61.239us): throughput    7.40 M ops/s (  7.40M ops/prod), latency  135.1 ns/op\n"
           "Summary: throughput    7.423 ± 0.023 M ops/s (  7.423M ops/prod), latency  134.710 ns/op\n")
    (tmp_path / "lookup.log").write_text(log)
    proc = script("report", tmp_path / "lookup.log")
    assert proc.returncode == 0, proc.stderr
    assert "7.423" in proc.stdout


@pytest.mark.parametrize("policy,needle", [
    ({"default": {"alpha": 2}}, "alpha must be a number between 0 and 1, not 2"),
    ({"default": {"threshold_pct": "five"}}, 'threshold_pct must be a number of percent'),
    ({"default": {"min_runs": 1.5}}, "min_runs must be a whole number"),
    ({"default": {"allow_underpowered": "yes"}}, "allow_underpowered must be true or false"),
    ({"default": {"power": True}}, "power must be a number"),
    ({"benchmarks": ["htab-lookup"]}, "benchmarks must be an object"),
    ({"benchmarks": {"htab-lookup": {"metric": "speed"}}}, "htab-lookup: metric must be one of"),
])
def test_policy_values_are_checked(slowdown, tmp_path, policy, needle):
    a, b = slowdown
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(policy))
    proc = script("gate", a, b, "--policy", path)
    assert proc.returncode == 3
    assert proc.stderr.count("\n") == 1 and needle in proc.stderr, proc.stderr


def test_an_interrupted_run_is_left_out_with_a_note(tmp_path):
    s = write_set(tmp_path / "s", "htab-lookup", [100, 101, 99, 100, 102])
    (s / "cut.json").write_text(json.dumps(result_doc("htab-lookup", [50], status="interrupted")))
    proc = script("report", s)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^htab-lookup\s*\|[^|]*\|\s*5\s*\|", proc.stdout, re.M), proc.stdout
    assert f"note: left out {s / 'cut.json'}: status interrupted" in proc.stdout


def test_summary_plot_shows_every_configuration_named_after_the_set(slowdown, tmp_path):
    a, _ = slowdown
    proc = script("plot", a, "--kind", "summary", "--out", tmp_path / "plots")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "plots" / "before-summary-m-ops-s-throughput.png").stat().st_size > 1000
    curve = script("plot", a, "--out", tmp_path / "plots")
    assert curve.returncode == 3 and "--kind summary shows every configuration" in curve.stderr


def test_a_dotted_label_keeps_every_summary_chart(tmp_path):
    """make run's label is the kernel release (quick-6.18.44-fc-v1045): its
    dots are part of the name, never an extension to cut, so each unit's
    chart keeps a file of its own."""
    label = tmp_path / "quick-6.18.44-fc-v1045"
    write_set(label, "htab-lookup", [10.0, 10.5])
    write_set(label, "htab-mem-overwrite", [120.0, 121.0], figure=("per-prod-op", "k/s", "wall"))
    proc = script("plot", label, "--kind", "summary", "--out", tmp_path / "plots")
    assert proc.returncode == 0, proc.stderr
    charts = {f"quick-6.18.44-fc-v1045-summary-{part}.{ext}"
              for part in ("m-ops-s-throughput", "k-s-per-prod-op") for ext in ("png", "svg")}
    assert {p.name for p in (tmp_path / "plots").iterdir()} == charts
    assert sorted(proc.stdout.split()) == sorted(str(tmp_path / "plots" / c) for c in charts)
    pngs = [(tmp_path / "plots" / c).read_bytes() for c in sorted(charts) if c.endswith(".png")]
    assert pngs[0] != pngs[1]


def suite_run(tmp_path, *args):
    tiny = tmp_path / "tiny.json"
    tiny.write_text(json.dumps({"description": "one noop", "runs": 1, "warmup": 0, "duration": 1,
                                "configs": [{"id": "noop", "args": ["noop"]}]}))
    return subprocess.run(["/usr/bin/python3", str(SUITE), "run", str(tiny), "--label",
                           str(tmp_path / "L"), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_resume_only_with_the_same_settings(root, tmp_path):
    first = suite_run(tmp_path, "-w", "0", "-d", "1")
    assert first.returncode == 0, first.stdout + first.stderr
    again = suite_run(tmp_path, "-w", "0", "-d", "1")
    assert again.returncode == 0 and "1 of 1 runs already finished, kept" in again.stdout
    other = suite_run(tmp_path, "-w", "0", "-d", "2")
    assert other.returncode == 64
    assert other.stderr.count("\n") == 1
    assert "duration 1, not 2" in other.stderr and "--fresh" in other.stderr
    assert "--label" in other.stderr
    fresh = suite_run(tmp_path, "-w", "0", "-d", "2", "--fresh")
    assert fresh.returncode == 0, fresh.stderr
    doc = json.loads((tmp_path / "L" / "noop" / "run-1.json").read_text())
    assert doc["params"]["duration"] == 2


def test_bench_version_is_the_build_revision():
    """The revision results record is the tree's as built (make rebuilds
    ./bench when it changes), not the commit env.c last changed at."""
    rev = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                         capture_output=True, text=True).stdout.strip() or "unknown"
    proc = run_bench("--version")
    assert proc.returncode == 0 and proc.stdout == f"mapbench {rev}\n"


@pytest.mark.parametrize("unit,name,label", [
    ("M ops/s", "throughput", "M ops/s throughput"), ("k/s", "per-prod-op", "k/s per-prod-op"),
    ("M events/s", "events per producer", "M events/s per producer"),
    ("B", "bytes per element", "B per element"),
    ("K ops/s", "in-kernel throughput", "K ops/s in-kernel throughput")])
def test_a_unit_label_says_each_word_once(unit, name, label):
    assert model.figure_unit(unit, name) == label


def test_a_reader_that_stops_reading_ends_a_command_quietly():
    """scripts/suite list | head -1: no "internal error", the status a
    pipeline's killed writer has. The pipe's reader is gone before the
    command starts, so its first write fails whatever the timing."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        proc = subprocess.run(["/usr/bin/python3", str(ROOT / "scripts" / "suite"), "list"],
                              stdout=writer, stderr=subprocess.PIPE, timeout=60)
    finally:
        os.close(writer)
    assert proc.returncode == 141 and proc.stderr == b""
