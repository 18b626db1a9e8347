"""The one verdict engine: a policy, and what it says of two sets of runs.

compare, gate, report and ab's per-patch table all judge through judge(), so
the same sets under the same policy get the same verdict in every tool; the
gate is judge() with an exit status. A verdict is one of VERDICTS (the value
of "verdict" in every tool's --json); its wording, with the reason, is the
comparison's .result.
"""
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import cli, model, results, stats

# Every tool's defaults: alpha 0.01, Holm-corrected over the comparisons made
# together; the test, the threshold and the runs a side follow the clock.
DEFAULT = {"metric": model.DEFAULT_METRIC, "floor": 0.0, "alpha": 0.01, "power": 0.8,
           "allow_underpowered": False}
# Welch's t on the host clock; the range rule under icount, where two boots a
# side leave Welch's t one degree of freedom (a gap of 64 standard errors).
CLOCK_TESTS = {"host": "welch", "icount": "range"}
CLOCK_DEFAULTS = {clock: {"threshold_pct": model.min_effect_of(clock),
                          "min_runs": model.min_runs_of(clock), "test": CLOCK_TESTS[clock]}
                  for clock in ("host", "icount")}
TESTS = tuple(stats.TESTS)
NUMBER = (int, float)
# key -> (types, check, what the value must be)
RULES = {
    "metric": (str, lambda v: v in model.METRICS, f"one of {sorted(model.METRICS)}"),
    "test": (str, lambda v: v in TESTS, f"one of {list(TESTS)}"),
    "threshold_pct": (NUMBER, lambda v: v >= 0, "a number of percent, 0 or more"),
    "floor": (NUMBER, lambda v: v >= 0, "a number in the metric's unit, 0 or more"),
    "alpha": (NUMBER, lambda v: 0 < v < 1, "a number between 0 and 1"),
    "power": (NUMBER, lambda v: 0 < v < 1, "a number between 0 and 1"),
    "min_runs": (int, lambda v: v >= 2, "a whole number, 2 or more"),
    "allow_underpowered": (bool, lambda v: True, "true or false"),
}

REGRESSION, IMPROVEMENT, NEGLIGIBLE, NO_CHANGE, INCONCLUSIVE, NEW = \
    "regression", "improvement", "negligible", "no change", "inconclusive", "new"
VERDICTS = (REGRESSION, IMPROVEMENT, NEGLIGIBLE, NO_CHANGE, INCONCLUSIVE, NEW)


class PolicyError(model.InputError):
    """A policy file or value that cannot be used."""


def check_rules(path, name, rules):
    for key, value in rules.items():
        if key not in RULES:
            raise PolicyError(f"policy {path}: {name}: unknown key {key!r}; known: {sorted(RULES)}")
        types, ok, what = RULES[key]
        # JSON true/false are not numbers here, though Python counts bool as int
        if isinstance(value, bool) != (types is bool) or not isinstance(value, types) \
                or not ok(value):
            raise PolicyError(f"policy {path}: {name}: {key} must be {what}, "
                              f"not {json.dumps(value)}")


def load_policy(path=None):
    """The default policy, updated from the JSON file at path: {"default":
    {rules}, "benchmarks": {name: {rules}}}. Every value is checked."""
    policy = {"default": dict(DEFAULT), "benchmarks": {}}
    if not path:
        return policy
    try:
        given = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise PolicyError(f"cannot read policy {path}: {e}") from e
    if not isinstance(given, dict):
        raise PolicyError(f"policy {path}: must be a JSON object with default and benchmarks")
    unknown = set(given) - {"default", "benchmarks"}
    if unknown:
        raise PolicyError(f"policy {path}: unknown sections {sorted(unknown)}; "
                          "use default and benchmarks")
    policy["default"].update(given.get("default", {}))
    policy["benchmarks"] = given.get("benchmarks", {})
    if not isinstance(policy["benchmarks"], dict):
        raise PolicyError(f"policy {path}: benchmarks must be an object of benchmark name: rules")
    for name, rules in [("default", policy["default"])] + list(policy["benchmarks"].items()):
        if not isinstance(rules, dict):
            raise PolicyError(f"policy {path}: {name}: must be an object of rules")
        check_rules(path, name, rules)
    return policy


def override(policy, **given):
    """Rules given on a command line: for every benchmark, over the file's."""
    for key, value in given.items():
        if value is None:
            continue
        check_rules("from the command line", "--" + key.replace("_", "-"), {key: value})
        policy["default"][key] = value
        for rules in policy["benchmarks"].values():
            rules.pop(key, None)
    return policy


def apply_clock_defaults(policy, clock):
    for key, value in CLOCK_DEFAULTS.get(clock, CLOCK_DEFAULTS["host"]).items():
        policy["default"].setdefault(key, value)


def rules_for(policy, bench):
    return dict(policy["default"], **policy["benchmarks"].get(bench, {}))


# A change exceeds a threshold only past floating-point rounding: -5% computed
# as -5.0000000000004% is at a threshold of 5%, not beyond it.
ROUNDING_PCT = 1e-9


def exceeds(pct, threshold):
    return abs(pct) > threshold + ROUNDING_PCT


def interval_level(alpha):
    """The confidence of the interval a verdict reads: at 1 - 2 alpha, an
    interval inside the threshold is two one-sided tests at alpha, each
    rejecting a change as large as the threshold on its side."""
    return 1 - 2 * alpha


def inside(low, high, threshold):
    """An interval within ±threshold: the change it bounds is shown smaller."""
    return math.isfinite(low) and math.isfinite(high) and not exceeds(low, threshold) \
        and not exceeds(high, threshold)


def weigh(delta_pct, low, high, direction, threshold, bound):
    """(verdict, wording) of a change found real (a significant comparison,
    or a change point of a history): a REGRESSION or improvement where its
    estimate exceeds the threshold, negligible ("does not matter") only
    where its whole interval lies within it, else inconclusive with how far
    the interval reaches. bound words the threshold ("5%")."""
    if exceeds(delta_pct, threshold):
        return (IMPROVEMENT, "improvement") if delta_pct * direction > 0 else (REGRESSION, "REGRESSION")
    if inside(low, high, threshold):
        return NEGLIGIBLE, f"different, but under {bound}: does not matter"
    return INCONCLUSIVE, f"inconclusive: a change of {delta_pct:+.2f}%, {reach(low, high)}"


def weigh_step(before, after, delta_pct, direction, rules):
    """weigh() of a step of a history (a change point), by the interval of
    its two segments' means' ratio (Welch's, as a t test's estimate)."""
    _, low, high = stats.estimate("welch", before, after, interval_level(rules["alpha"]))
    return weigh(delta_pct, low, high, direction, rules["threshold_pct"],
                 f"{rules['threshold_pct']:g}%")


def reach(low, high):
    """"up to -8.10%": the end of an interval farthest from no change."""
    far = low if abs(low) > abs(high) else high
    return f"up to {far:+.2f}%" if math.isfinite(far) else \
        "of any size (the test gives no interval with these runs)"


def threshold_of(c, rules):
    """(threshold %, its words): the policy's threshold, or the absolute floor
    in % of the mean before where that is larger (a change must exceed both)."""
    threshold, bound = rules["threshold_pct"], f"{rules['threshold_pct']:g}%"
    mean = abs(float(np.mean(c.a))) if len(c.a) else 0.0
    if rules["floor"] and mean and rules["floor"] / mean * 100 > threshold:
        threshold, bound = rules["floor"] / mean * 100, f"the floor of {rules['floor']:g} {c.unit}"
    return threshold, bound


def runs_to_decide(c, rules, threshold):
    """" (N runs a side would decide)": the runs at which the interval, as
    wide as these spreads make it, no longer reaches the threshold."""
    n = stats.runs_to_bound(rules["test"], c.a, c.b, threshold - abs(c.delta_pct), c.ci_level)
    return f" ({f'more than {stats.MAX_RUNS}' if n > stats.MAX_RUNS else n} runs a side would decide)"


def decide(c, rules, level, advise=True):
    """(verdict, wording) of one comparison whose c.p_adj, c.mde and the test's
    own estimate and interval (c.delta_pct, c.ci_low, c.ci_high at
    interval_level) are set. "no change" and "negligible" only where that
    interval lies within the threshold, and "no change" only where the test
    could have seen the threshold too. advise: an inconclusive comparison
    says how many runs would do (a search: a sequential look, which goes on
    anyway, leaves it out)."""
    few = stats.too_few(c, rules["min_runs"])
    if few:
        return INCONCLUSIVE, f"inconclusive: {few}"
    if not math.isfinite(c.delta_pct):
        return INCONCLUSIVE, "inconclusive: the mean before is 0, so no change in % exists"
    test = stats.TESTS[rules["test"]]
    if test.smallest_p(len(c.a), len(c.b)) >= level:
        return INCONCLUSIVE, (f"inconclusive: {test.words} cannot reach p < {level:.2g} with "
                              f"{len(c.a)}/{len(c.b)} runs (use --test welch)")
    threshold, bound = threshold_of(c, rules)
    if c.p_adj < rules["alpha"]:
        verdict, words = weigh(c.delta_pct, c.ci_low, c.ci_high, c.direction, threshold, bound)
        more = runs_to_decide(c, rules, threshold) if advise and verdict == INCONCLUSIVE else ""
        return verdict, words + more
    if rules["allow_underpowered"]:
        return NO_CHANGE, "no significant change"
    if c.mde > threshold or exceeds(c.delta_pct, threshold):
        seen = "" if c.mde > threshold else f", though {c.delta_pct:+.2f}% was seen"
        if not advise:
            return INCONCLUSIVE, f"inconclusive: underpowered (MDE {c.mde:.2g}% > {bound}{seen})"
        n = stats.runs_needed(rules["test"], c.a, c.b, threshold, level, rules["power"])
        more = f"more than {stats.MAX_RUNS}" if n > stats.MAX_RUNS else str(n)
        return INCONCLUSIVE, (f"inconclusive: underpowered (MDE {c.mde:.2g}% > {bound}"
                              f"{seen}; {more} runs a side would do)")
    if not inside(c.ci_low, c.ci_high, threshold):
        return INCONCLUSIVE, (f"inconclusive: not significant ({c.delta_pct:+.2f}%), but a "
                              f"change {reach(c.ci_low, c.ci_high)} is not ruled out"
                              + (runs_to_decide(c, rules, threshold) if advise else ""))
    return NO_CHANGE, "no significant change"


def look(a, b, rules, looks, direction=+1, unit=""):
    """One look of a sequential A/B that may stop at any of `looks` looks,
    judged as the gate judges (decide) with alpha spent equally over the
    looks (Bonferroni: however it stops, false alarms stay at or below
    alpha) and the threshold the MDE to reach. The look is final unless its
    verdict is INCONCLUSIVE. A Comparison with verdict, result, p and mde."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    rules = dict(rules, alpha=rules["alpha"] / looks)
    level = interval_level(rules["alpha"])
    c = stats.Comparison(None, rules["metric"], a, b, *stats.estimate(rules["test"], a, b, level),
                         stats.p_value(a, b, rules["test"]), direction=direction, unit=unit,
                         estimate=stats.TESTS[rules["test"]].estimate_words, ci_level=level)
    c.p_adj = c.p
    c.mde = stats.mde_of_test(rules["test"], a, b, rules["alpha"], rules["power"])
    c.verdict, c.result = decide(c, rules, rules["alpha"], advise=False)
    return c


@dataclass
class Judgement:
    """Two sets judged under a policy: a row per configuration of either
    set (compared, missing after, or new), the clock, and the environment
    fields that must match but differ. Every tool prints and writes its
    JSON from this, and the gate's exit status follows its rows."""
    rows: list
    clock: str
    mismatch: list
    warnings: list

    @property
    def compared(self):
        return [c for c in self.rows if len(c.a) and len(c.b)]

    def verdicts(self):
        return [c.verdict for c in self.rows]

    def status(self):
        """The gate's exit status: a regression fails, anything unsure is
        inconclusive, else a pass."""
        if REGRESSION in self.verdicts():
            return cli.EXIT_REGRESSION
        if INCONCLUSIVE in self.verdicts():
            return cli.EXIT_INCONCLUSIVE
        return cli.EXIT_PASS


def _runs_of(runs, key, ignore):
    return [r for r in runs if r.key(ignore) == key]


def _row(key, metric, runs, before, verdict, result):
    """A row that could not be compared: its values on the side that has them."""
    values = np.array([r.metrics[metric] for r in runs if metric in r.metrics], dtype=float)
    first = runs[0]
    c = stats.Comparison(key, metric, values if before else np.array([]),
                         np.array([]) if before else values, math.nan, math.nan, math.nan,
                         math.nan, direction=first.direction(metric), unit=first.unit(metric))
    c.verdict, c.result = verdict, result
    return c


def _why_not_compared(key, metric, test, a, b, ignore):
    """Why a configuration of the first set has no comparison."""
    before, after = _runs_of(a, key, ignore), _runs_of(b, key, ignore)
    if not any(metric in r.metrics for r in before):
        return f"no {metric} in its runs before" + (
            " or after" if after and not any(metric in r.metrics for r in after) else "")
    if any(metric in r.metrics for r in after) and test == "paired":
        return ("no round in common with the runs after (the paired test matches runs by "
                "environment.round: ./bench --round N)")
    if after:
        return f"no {metric} in its runs after"
    return next((s.why for s in getattr(b, "skipped", [])
                 if model.Configuration.of(s.benchmark, s.params, ignore) == key), "no run after")


def unsampled_builds(a, b):
    """Two sets of two builds (their kernels differ) with runs the cache model
    counted on one fixed layout a boot: their modelled figures cannot be
    judged, however exact (docs/vm.org: a build change moved them by a
    certain-looking 0.5-1.8%)."""
    kernels = [{r.env.get("kernel_release") for r in side if r.env} for side in (a, b)]
    return all(kernels) and kernels[0] != kernels[1] and \
        any(model.layout_fixed(r.env) for r in (*a, *b))


def judge(a, b, policy, clock, ignore=()):
    """Every configuration of either set, judged by its benchmark's metric,
    test and rules. Compared rows get p_adj (Holm over all of them, whatever
    their metric), mde (of the test that judged, at Holm's strictest step),
    verdict and result; a configuration of the first set that the second
    cannot match is inconclusive with the reason; one of the second only is
    NEW. Environments that must match but differ make every row inconclusive."""
    apply_clock_defaults(policy, clock)
    benches = sorted({r.benchmark for r in a} | {r.benchmark for r in b})
    by_rule = {}
    for bench in benches:
        rules = rules_for(policy, bench)
        by_rule.setdefault((rules["metric"], rules["test"], rules["alpha"]), []).append(bench)
    comps, absent = [], []
    for (metric, test, alpha), names in by_rule.items():
        sub_a = [r for r in a if r.benchmark in names]
        sub_b = [r for r in b if r.benchmark in names]
        found = stats.compare(sub_a, sub_b, metric, test, interval_level(alpha), ignore=ignore)
        comps += found
        done = {c.key for c in found}
        keys_a = {r.key(ignore) for r in sub_a}
        for k in sorted(keys_a - done):
            why = _why_not_compared(k, metric, test, a, b, ignore)
            absent.append(_row(k, metric, _runs_of(sub_a, k, ignore), True, INCONCLUSIVE,
                               f"inconclusive: {why}"))
        for k in sorted({r.key(ignore) for r in sub_b if metric in r.metrics} - keys_a):
            absent.append(_row(k, metric, _runs_of(sub_b, k, ignore), False, NEW,
                               "new: only in the set after, nothing to compare with"))
    for c, p in zip(comps, stats.holm([c.p for c in comps])):
        c.p_adj = p
    for c in comps:
        rules = rules_for(policy, c.key.benchmark)
        level = rules["alpha"] / len(comps)      # Holm's strictest step
        c.mde = stats.mde_of_test(rules["test"], c.a, c.b, level, rules["power"])
        c.verdict, c.result = decide(c, rules, level)
    unsampled = unsampled_builds(a, b)
    for c in comps if unsampled else ():
        if c.metric in model.MODEL_METRICS and c.verdict != INCONCLUSIVE:
            c.verdict, c.result = INCONCLUSIVE, (
                "inconclusive: modelled figures of two builds counted without sampled layouts: "
                "a layout that merely moved reads as a certain change (count them with "
                f"--sample-layouts; the numbers alone: {c.result})")
    hard, soft = results.env_differences(a, b)
    for c in comps if hard else ():
        said = "" if c.verdict == INCONCLUSIVE else f" (the numbers alone: {c.result})"
        c.verdict, c.result = INCONCLUSIVE, (f"inconclusive: environments must match but "
                                             f"differ in {'; '.join(hard)}{said}")
    rows = sorted(comps + absent, key=lambda c: c.key)
    return Judgement(rows, clock, hard, soft)
