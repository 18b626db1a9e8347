"""Properties of the verdict engine over random before/after sets (sizes,
spreads, metrics of both directions, every test a policy can choose, both
clocks, a bad run or none): the gate never passes an after side worse than
the threshold with ranges apart, nor a row whose interval reaches past the
threshold; each test's delta is its own estimate; every tool gives each row
the same verdict; and no input ends in a traceback."""
import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_analysis import script, write_set
from test_clock import ICOUNT

from mapbench import model

UNITS = {"M ops/s": +1, "ns/op": -1}

sets = st.fixed_dictionaries({
    "n_a": st.integers(2, 7), "n_b": st.integers(2, 7),
    "mean": st.floats(0.5, 5000),
    "cv_a": st.sampled_from([0.0, 1e-5, 3e-4, 0.005, 0.02, 0.08]),
    "cv_b": st.sampled_from([0.0, 1e-5, 3e-4, 0.005, 0.02, 0.08]),
    "change": st.floats(-25, 25),
    "unit": st.sampled_from(sorted(UNITS)),
    "test": st.sampled_from(["welch", "yuen", "mwu", "range"]),
    "clock": st.sampled_from(["host", "icount"]),
    "seed": st.integers(0, 2 ** 32 - 1),
    "bad_run_pct": st.sampled_from([0.0, 0.0, 60.0, -40.0]),
})


def build(folder, s):
    rng = np.random.default_rng(s["seed"])
    before = s["mean"] * (1 + s["cv_a"] * rng.standard_normal(s["n_a"]))
    after = s["mean"] * (1 + s["change"] / 100) * (1 + s["cv_b"] * rng.standard_normal(s["n_b"]))
    after[0] *= 1 + s["bad_run_pct"] / 100
    env = ICOUNT if s["clock"] == "icount" else None
    figure = ("figure", s["unit"], "in-kernel")
    a = write_set(folder / "a", "htab-lookup", list(before), env=env, figure=figure)
    b = write_set(folder / "b", "htab-lookup", list(after), env=env, figure=figure)
    policy = folder / "policy.json"
    policy.write_text(json.dumps({"default": {"test": s["test"]}}))
    return a, b, policy, before, after


@settings(max_examples=40, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(sets)
def test_every_tool_agrees_and_no_worse_set_passes(s):
    with tempfile.TemporaryDirectory() as tmp:
        a, b, policy, before, after = build(Path(tmp), s)
        docs = {}
        for tool in ("compare", "gate", "report"):
            proc = script(tool, a, b, "--policy", policy, "--json")
            assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, \
                proc.stderr
            assert proc.returncode in (0, 1, 2), (tool, proc.stderr)
            docs[tool] = json.loads(proc.stdout)
        verdicts = {tool: [r["verdict"] for r in d["rows"]] for tool, d in docs.items()}
        assert verdicts["compare"] == verdicts["gate"] == verdicts["report"], verdicts
        row = docs["gate"]["rows"][0]
        threshold = model.min_effect_of(s["clock"])
        assert row["delta_pct"] == pytest.approx(own_estimate(s["test"], before, after),
                                                 rel=1e-6, abs=1e-9), (s, row)
        if row["verdict"] in ("negligible", "no change"):
            assert row["ci_level"] == pytest.approx(0.98) and None not in row["ci"], row
            assert max(map(abs, row["ci"])) <= threshold + 1e-6, (s, row)
        worse = UNITS[s["unit"]] * (after.mean() / before.mean() - 1) * 100
        apart = after.max() < before.min() if UNITS[s["unit"]] > 0 else after.min() > before.max()
        if worse < -threshold and apart and not s["bad_run_pct"]:
            assert docs["gate"]["exit_status"] != 0, (s, docs["gate"]["rows"])


def own_estimate(test, before, after):
    """Each test's estimate of the change in %, computed here from scipy and
    numpy: trimmed means for Yuen, the Hodges-Lehmann shift (over the median
    before) for Mann-Whitney, the means for Welch's t and the range rule."""
    if test == "yuen":
        return (sps.trim_mean(after, 0.2) / sps.trim_mean(before, 0.2) - 1) * 100
    if test == "mwu":
        return np.median(np.subtract.outer(after, before)) / np.median(before) * 100
    return (after.mean() / before.mean() - 1) * 100
