"""Verdicts when the noise vanishes (the icount clock), the clock in labels,
and instructions per op as a metric (from a fake counter source: results
whose --perf block says what a PMU would have counted)."""
import json

import numpy as np
import pytest

from test_analysis import result_doc, script, write_set

from mapbench import results, stats

ICOUNT = {"vm": {"accelerator": "tcg", "clock": "icount", "icount_shift": 0,
                 "qemu_version": "7.2.0", "vcpus": 1, "memory_mib": 2048, "kernel_image": "x",
                 "boot": 1, "boot_of_kernel": 1, "boots_of_kernel": 2, "warmup": False}}


def icount_set(folder, values):
    return write_set(folder, "htab-lookup", values, env=ICOUNT)


def row(out, bench="htab-lookup"):
    return next(line for line in out.splitlines() if line.startswith(bench))


def test_zero_variance_does_not_degenerate():
    a, b = np.full(3, 5.0), np.full(3, 5.0)
    assert stats.ratio_ci(a, b) == (0.0, 0.0)
    assert stats.p_value(a, b, "welch") == 1.0 and stats.mde_of_test("welch", a, b, 0.01) == 0.0
    lo, hi = stats.ratio_ci(a, np.full(3, 5.05))
    assert lo == pytest.approx(1.0) and hi == pytest.approx(1.0)
    assert stats.p_value(a, np.full(3, 5.05), "welch") == 0.0


def test_a_wobble_of_a_noise_free_clock_is_no_outlier(tmp_path):
    vals = [5.3340, 5.3341, 5.3339, 5.3340, 5.3346]      # 0.01%: MAD is tiny
    runs = results.load_path(icount_set(tmp_path / "a", vals))
    assert stats.outliers(runs, "figure") == []
    runs = results.load_path(icount_set(tmp_path / "b", vals[:4] + [5.0]))
    assert len(stats.outliers(runs, "figure")) == 1          # 6% off still is one


def test_one_percent_under_icount_is_a_regression_with_two_boots(tmp_path):
    a = icount_set(tmp_path / "a", [5.3340, 5.3345])
    b = icount_set(tmp_path / "b", [5.2807, 5.2811])       # -1.0%
    gate = script("gate", a, b)
    assert gate.returncode == 1, gate.stdout
    assert "REGRESSION" in row(gate.stdout) and "0.5%" in row(gate.stdout)
    assert "1 ns = 1 instruction" in gate.stdout and "cache and memory effects" in gate.stdout
    comp = script("compare", a, b, "--min-runs", 2, "--test", "welch")
    assert "REGRESSION" in row(comp.stdout)
    assert "icount: 1 ns = 1 instruction" in comp.stdout
    doc = json.loads(script("gate", a, b, "--json").stdout)
    assert doc["clock"] == "icount" and doc["rows"][0]["mde_pct"] < 0.5


def test_a_real_but_tiny_difference_does_not_matter(tmp_path):
    a = icount_set(tmp_path / "a", [5.33400, 5.33402, 5.33401])
    b = icount_set(tmp_path / "b", [5.33110, 5.33112, 5.33111])   # -0.05%, 100 sds away
    comp = script("compare", a, b, "--min-runs", 3, "--test", "welch")
    assert "different, but under 0.5%: does not matter" in row(comp.stdout), comp.stdout
    gate = script("gate", a, b)
    assert gate.returncode == 0, gate.stdout
    assert "different, but under 0.5%: does not matter" in row(gate.stdout)
    # The host clock's default threshold is 5%; a policy can set its own.
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps({"default": {"threshold_pct": 0.01}}))
    assert script("gate", a, b, "--policy", policy).returncode == 1


def test_an_a_a_with_identical_figures_passes(tmp_path):
    a = icount_set(tmp_path / "a", [5.334, 5.334])
    b = icount_set(tmp_path / "b", [5.334, 5.334])
    gate = script("gate", a, b)
    assert gate.returncode == 0, gate.stdout
    assert row(gate.stdout).endswith("no significant change")
    comp = script("compare", a, b, "--min-runs", 2)
    assert "+0.0, +0.0" in row(comp.stdout) and "no significant change" in row(comp.stdout)


def test_clocks_are_not_mixed_and_the_report_names_its_clock(tmp_path):
    a = icount_set(tmp_path / "a", [5.334, 5.335])
    host = write_set(tmp_path / "h", "htab-lookup", [5.334, 5.335])
    gate = script("gate", a, host)
    assert gate.returncode == 2 and "clock: icount vs host" in gate.stdout, gate.stdout
    b = icount_set(tmp_path / "b", [5.2, 5.21])
    rep = script("report", a, b)
    assert rep.returncode == 0, rep.stderr
    assert "Clock: icount, QEMU's instruction counter (1 ns = 1 instruction)" in rep.stdout
    assert rep.stdout.count("cache and memory effects do not") == 1
    assert "Clock: host" in script("report", host).stdout


def perf_doc(instructions, cycles=None):
    """A result whose --perf counted these instructions (and cycles) per op."""
    doc = result_doc("htab-lookup", [5.0] * 3)
    counters = [{"name": "instructions", "status": "ok", "total": instructions * 1e6,
                 "per_op": instructions, "unit": "instructions/op", "mode": "kernel"},
                {"name": "cycles", "status": "unsupported", "reason": "not supported"}
                if cycles is None else
                {"name": "cycles", "status": "ok", "total": cycles * 1e6, "per_op": cycles,
                 "unit": "cycles/op", "mode": "kernel"}]
    doc["perf"] = {"scope": "producer threads", "counters": counters}
    return doc


def write_perf_set(folder, values, validator):
    folder.mkdir()
    for i, v in enumerate(values):
        doc = perf_doc(v, cycles=v * 1.5)
        type(validator)(validator.schema["properties"]["perf"]).validate(doc["perf"])
        (folder / f"run-{i + 1}.json").write_text(json.dumps(doc))
    return folder


def test_instructions_per_op_is_a_metric(tmp_path, validator):
    a = write_perf_set(tmp_path / "a", [210.0, 210.2, 209.9, 210.1, 210.0], validator)
    b = write_perf_set(tmp_path / "b", [216.3, 216.1, 216.4, 216.2, 216.3], validator)  # +3%
    comp = script("compare", a, b, "--metric", "instructions")
    assert comp.returncode == 0, comp.stderr
    assert "instructions/op, lower is better" in comp.stdout
    # +3% is real, and under the host clock's default threshold (5%)
    assert "different, but under 5%: does not matter" in row(comp.stdout)
    assert "+2.9" in row(comp.stdout)
    comp = script("compare", a, b, "--metric", "instructions", "--min-effect", "1")
    assert "REGRESSION" in row(comp.stdout)
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps({"default": {"threshold_pct": 1}}))
    gate = script("gate", a, b, "--metric", "instructions", "--policy", policy)
    assert gate.returncode == 1 and "REGRESSION" in row(gate.stdout), gate.stdout
    assert script("gate", a, b, "--metric", "cycles", "--policy", policy).returncode == 1
    # Throughput did not move: the figure's gate passes.
    assert script("gate", a, b, "--policy", policy).returncode == 0
    rep = script("report", a, b, "--metric", "instructions")
    assert rep.returncode == 0 and "instructions/op" in rep.stdout, rep.stdout + rep.stderr


def test_instructions_without_a_pmu_say_so(tmp_path):
    a = write_set(tmp_path / "a", "htab-lookup", [5.0, 5.1])
    b = write_set(tmp_path / "b", "htab-lookup", [5.0, 5.1])
    comp = script("compare", a, b, "--metric", "instructions")
    assert comp.returncode == 3 and "(instructions)" in comp.stderr, comp.stderr


def counters_doc(misses, references):
    """A result whose --perf counted last-level misses and references per op
    (and found no dTLB counters, as our VMs)."""
    doc = result_doc("lpm-trie-lookup", [5.0] * 3)
    doc["perf"] = {"scope": "producer threads", "counters": [
        {"name": "cache-misses", "status": "ok", "total": misses * 1e6, "per_op": misses,
         "unit": "misses/op", "mode": "kernel"},
        {"name": "cache-references", "status": "ok", "total": references * 1e6,
         "per_op": references, "unit": "references/op", "mode": "kernel"},
        {"name": "dTLB-loads", "status": "unsupported", "reason": "not supported"}]}
    return doc


def test_miss_ratios_come_from_the_counters_or_the_model(tmp_path, validator):
    """cache_miss_pct is misses over references x 100 from --perf; where only
    the cache model counted, its LLC misses over its L2 misses, labelled
    modelled; a level neither counted is no metric."""
    doc = counters_doc(2.0, 8.0)
    type(validator)(validator.schema["properties"]["perf"]).validate(doc["perf"])
    (tmp_path / "p.json").write_text(json.dumps(doc))
    run = results.load_path(tmp_path / "p.json")[0]
    assert run.metrics["cache_miss_pct"] == pytest.approx(25.0)
    assert run.metrics["cache_misses"] == 2.0 and "dtlb_miss_pct" not in run.metrics
    # no miss at all is a ratio of 0%, not a ratio unknown
    (tmp_path / "z.json").write_text(json.dumps(counters_doc(0.0, 8.0)))
    assert results.load_path(tmp_path / "z.json")[0].metrics["cache_miss_pct"] == 0.0
    doc = result_doc("lpm-trie-lookup", [5.0] * 3)
    doc["model"] = {"per_op": {"accesses": 100.0, "l1d_misses": 5.0, "l2_misses": 2.0,
                               "llc_misses": 0.5}}
    (tmp_path / "m.json").write_text(json.dumps(doc))
    run = results.load_path(tmp_path / "m.json")[0]
    assert run.metrics["l1d_miss_pct"] == pytest.approx(5.0)
    assert run.metrics["cache_miss_pct"] == pytest.approx(25.0)
    assert "model]" in run.unit("cache_miss_pct")


def test_a_higher_miss_ratio_is_a_regression(tmp_path):
    for side, misses in (("a", [2.0, 2.01, 1.99, 2.0, 2.0]), ("b", [3.0, 3.01, 2.99, 3.0, 3.0])):
        (tmp_path / side).mkdir()
        for i, m in enumerate(misses):
            (tmp_path / side / f"run-{i}.json").write_text(json.dumps(counters_doc(m, 8.0)))
    comp = script("compare", tmp_path / "a", tmp_path / "b", "--metric", "cache_miss_pct")
    assert comp.returncode == 0, comp.stderr
    assert "REGRESSION" in row(comp.stdout, "lpm-trie-lookup")
