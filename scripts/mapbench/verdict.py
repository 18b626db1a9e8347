"""The one verdict engine: a policy, and what it says of two sets of runs.

compare, gate, report and ab's per-patch table all judge through judge(), so
the same sets under the same policy get the same verdict in every tool; the
gate is judge() with an exit status. A verdict is one of VERDICTS (the value
of "verdict" in every tool's --json); its wording, with the reason, is the
comparison's .result.
"""
import json
from math import comb
from pathlib import Path

from . import model, stats

# Every tool's defaults: Welch's t at alpha 0.01, Holm-corrected over the
# comparisons made together; the threshold and the runs a side follow the clock.
DEFAULT = {"metric": model.DEFAULT_METRIC, "floor": 0.0, "alpha": 0.01, "test": "welch",
           "power": 0.8, "allow_underpowered": False}
CLOCK_DEFAULTS = {clock: {"threshold_pct": model.min_effect_of(clock), "min_runs": model.min_runs_of(clock)}
                  for clock in ("host", "icount")}
TESTS = ("welch", "yuen", "mwu", "paired")
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

REGRESSION, IMPROVEMENT, NEGLIGIBLE, NO_CHANGE, INCONCLUSIVE = \
    "regression", "improvement", "negligible", "no change", "inconclusive"
VERDICTS = (REGRESSION, IMPROVEMENT, NEGLIGIBLE, NO_CHANGE, INCONCLUSIVE)


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


def smallest_rank_p(n, m):
    """The smallest two-sided p Mann-Whitney U can give with n and m runs."""
    return min(1.0, 2 / comb(n + m, n))


def decide(c, rules, level):
    """(verdict, wording) of one comparison whose c.p_adj and c.mde are set."""
    threshold = rules["threshold_pct"]
    few = stats.too_few(c, rules["min_runs"])
    if few:
        return INCONCLUSIVE, f"inconclusive: {few}"
    if rules["test"] == "mwu" and smallest_rank_p(len(c.a), len(c.b)) >= level:
        return INCONCLUSIVE, (f"inconclusive: Mann-Whitney U cannot reach p < {level:.2g} with "
                              f"{len(c.a)}/{len(c.b)} runs (use --test welch)")
    if c.p_adj < rules["alpha"]:
        if abs(c.delta_pct) <= threshold:
            return NEGLIGIBLE, f"different, but under {threshold:g}%: does not matter"
        if abs(c.b.mean() - c.a.mean()) < rules["floor"]:
            return NEGLIGIBLE, f"different, but under the floor of {rules['floor']:g} {c.unit}"
        return (IMPROVEMENT, "improvement") if c.good() > 0 else (REGRESSION, "REGRESSION")
    if c.mde > threshold and not rules["allow_underpowered"]:
        n = stats.runs_needed(c.a, c.b, threshold, level, rules["power"])
        return INCONCLUSIVE, (f"inconclusive: underpowered (MDE {c.mde:.1f}% > {threshold:g}%; "
                              f"{n} runs a side would do)")
    return NO_CHANGE, "no significant change"


def judge(a, b, policy, clock, ignore=()):
    """Every configuration in both sets, compared by its benchmark's metric
    and test and judged by its rules: Comparisons with p_adj (Holm over all
    of them, whatever their metric), mde (at Holm's strictest step), verdict
    and result set; and the configurations found in one set only."""
    apply_clock_defaults(policy, clock)
    benches = sorted({r.benchmark for r in a} | {r.benchmark for r in b})
    by_metric = {}
    for bench in benches:
        rules = rules_for(policy, bench)
        by_metric.setdefault((rules["metric"], rules["test"]), []).append(bench)
    comps, unmatched = [], []
    for (metric, test), names in by_metric.items():
        sub_a = [r for r in a if r.benchmark in names]
        sub_b = [r for r in b if r.benchmark in names]
        found, alone = stats.compare(sub_a, sub_b, metric, test, ignore=ignore)
        comps += found
        unmatched += alone
    for c, p in zip(comps, stats.holm([c.p for c in comps])):
        c.p_adj = p
    for c in comps:
        rules = rules_for(policy, c.key.benchmark)
        level = rules["alpha"] / len(comps)      # Holm's strictest step
        c.mde = stats.mde_of_test(rules["test"], c.a, c.b, level, rules["power"])
        c.verdict, c.result = decide(c, rules, level)
    return comps, sorted(set(unmatched))
