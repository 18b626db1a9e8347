"""Where a change is: the cache model's per-function profiles (vmrun
--profile) of two sets, function by function, per op. Deterministic like the
counts behind them, so one instruction more per op shows in the function
that has it."""
import numpy as np

from . import output
from .results import groups, label, varying_params

COLUMNS = (("insns", "insns/op"), ("llc_misses", "LLC misses/op"),
           ("model_cycles", "modelled cycles/op"))
# The miss counts a headline names, deepest first: the deepest level whose
# misses moved is where the change costs (a table that outgrew L2 but not
# the LLC moves L2 misses, not LLC ones).
LEVELS = (("llc_misses", "LLC"), ("l2_misses", "L2"), ("l1d_misses", "L1D"))
MOVED = 0.005       # misses per op: less shows as +0.00
# Page walks (a model with TLBs) and mispredicted branches (one with a
# predictor): named beside the misses when they moved.
BESIDE = (("walks", "page walks/op"), ("mispredicts", "mispredicts/op"))
GATHERED = (*dict(COLUMNS), *dict(LEVELS), *dict(BESIDE))


def per_function(runs):
    """{function: {count: median per op over the runs}}; a function a run
    did not reach counts 0 there."""
    names = {r["function"] for run in runs for r in run.profile}
    out = {}
    for name in names:
        rows = [next((r for r in run.profile if r["function"] == name), {}) for run in runs]
        out[name] = {k: float(np.median([r.get(k, 0.0) for r in rows]))
                     for k in GATHERED}
    return out


def changes(a_runs, b_runs, top=8):
    """[(configuration label, [(function, before, after)])]: for each
    configuration both sets profiled, the functions whose modelled cycles
    per op moved most, largest first."""
    keys = sorted(set(groups(a_runs, "model_cycles")) & set(groups(b_runs, "model_cycles")))
    varying = varying_params(keys)
    out = []
    for key in keys:
        a = per_function([r for r in a_runs if r.key() == key and r.profile])
        b = per_function([r for r in b_runs if r.key() == key and r.profile])
        if not a or not b:
            continue
        zero = dict.fromkeys(GATHERED, 0.0)
        rows = [(f, a.get(f, zero), b.get(f, zero)) for f in set(a) | set(b)]
        rows.sort(key=lambda r: (-abs(r[2]["model_cycles"] - r[1]["model_cycles"]), r[0]))
        out.append((label(key, varying), rows[:top]))
    return out


def headline(before, after):
    """"+2.00 insns/op, +0.90 LLC misses/op": what moved in one function, its
    instructions and the deepest cache level whose misses moved (LLC where
    none did), and its page walks and mispredicts where they moved."""
    key, level = next(((k, lv) for k, lv in LEVELS if abs(after[k] - before[k]) >= MOVED),
                      LEVELS[0])
    moved = [(after.get(k, 0) - before.get(k, 0), unit) for k, unit in BESIDE]
    return (f"{after['insns'] - before['insns']:+.2f} insns/op, "
            f"{after[key] - before[key]:+.2f} {level} misses/op"
            + "".join(f", {d:+.2f} {unit}" for d, unit in moved if abs(d) >= MOVED))


def table(a_runs, b_runs, fmt="text", top=8):
    """The report's "Where" tables, or "" when the sets carry no profiles."""
    out = []
    for name, rows in changes(a_runs, b_runs, top):
        headers = ["Function"] + [f"{unit} {side}" for _, unit in COLUMNS
                                  for side in ("before", "after")] + ["Change"]
        body = [[f] + [f"{side[k]:.3f}" for k, _ in COLUMNS for side in (before, after)]
                + [headline(before, after)] for f, before, after in rows]
        out.append(f"Where ({name}; modelled, per op: the functions whose modelled cycles "
                   f"moved most)\n" + output.render_table(headers, body, fmt, left=(0, 7)))
    return "\n\n".join(out)


def lines(a_runs, b_runs):
    """One line per profiled configuration: the function that moved most."""
    return [f"where: {name}: {f} {headline(before, after)}"
            for name, [(f, before, after), *_] in changes(a_runs, b_runs, top=1)]
