"""The cache model against hardware (docs/vm.org, Calibration): the seeds'
hardware figures beside a set run with vmrun --model --suite cache-model.

Two questions, two answers:
  - How well does a named machine's modelled cycles/op track the hardware's
    ns/op? One clock rate turns cycles into ns: the one that minimises the
    squared log errors of seed 004's rows (the geometric mean of their
    cycles per ns), the fit the geometric mean error judges; the residuals
    say how far each row is off. (Least squares in ns let the 256-byte rows,
    the largest, choose the clock.)
  - What would the hardware's own costs be? Non-negative least squares of
    ns/op on the model's counts per op (Machine.cost_terms: instructions,
    loads that hit L2, the LLC, memory, walks' loads, L2 TLB hits,
    mispredicts), each row
    weighted by 1/its ns
    (relative errors: rows span 10 ns to 1.4 us): ns per instruction and per
    miss. Fitted on seed 004's rows (one machine); seed 002's LPM rows, from
    another box of the same part and another bench, are shown against that
    fit, not fitted.
"""
import numpy as np
from scipy.optimize import nnls

from .. import results
from .machines import COST_ONLY, COST_TERMS, as_recorded
from ..model import InputError

# Seed 004 (rhtab cover letter), LOOKUP at nr = max, single producer, M events/s:
# (map, key bytes, max entries) -> figure.
SEED_004 = {
    ("htab", 8, 1000): 100.71, ("rhtab", 8, 1000): 80.19,
    ("htab", 8, 1000000): 13.39, ("rhtab", 8, 1000000): 53.72,
    ("htab", 32, 1000): 50.81, ("rhtab", 32, 1000): 45.83,
    ("htab", 32, 1000000): 7.32, ("rhtab", 32, 1000000): 8.75,
    ("htab", 256, 1000): 7.43, ("rhtab", 256, 1000): 7.81,
    ("htab", 256, 1000000): 2.60, ("rhtab", 256, 1000000): 3.12,
}
# Seed 002 (LPM benchmarks), 10K entries of /32, latency ns/op.
SEED_002 = {"lpm-trie-lookup": 134.710, "lpm-trie-update": 378.310,
            "lpm-trie-delete": 1405.152}


def hardware_ns(run):
    """The seed's ns/op for this run's configuration, and its row name; None
    where the seeds have no figure for it."""
    p, bench = run.params, run.benchmark
    if bench == "bpf-hashmap-lookup" and p["nr_entries"] == p["max_entries"]:
        key = (p["map"], p["key_size"], p["max_entries"])
        if key in SEED_004:
            size = "1K" if key[2] == 1000 else "1M"
            return 1e3 / SEED_004[key], f"{key[0]} lookup {key[1]} B {size}"
    if bench in SEED_002 and p["nr_entries"] == 10000:
        return SEED_002[bench], f"{bench[4:]} 10K"
    return None


def rows(folder):
    """[(row, hardware ns/op, model counts per op, fitted)] of a set's runs
    (a row's first run: one the suite runs twice counts once), and the
    machines they were modelled on (None: a definition no machine here
    has)."""
    out, machines, seen = [], set(), set()
    for run in results.load_path(folder, pool_boots=False):
        hw = hardware_ns(run)
        if hw and run.counted and hw[1] not in seen:
            seen.add(hw[1])
            out.append((hw[1], hw[0], run.counted, run.benchmark == "bpf-hashmap-lookup"))
            machines.add(as_recorded((run.env.get("vm") or {}).get("model") or {}))
    return out, machines


def fit(rows_, machine):
    """The machine's clock rate (on seed 004's rows, in log space) and each
    row's modelled ns, and the NNLS costs (ns per instruction, L2 hit, LLC
    hit, memory access) with each row's fitted ns."""
    hw = np.array([r[1] for r in rows_])
    cycles = np.array([machine.cycles(r[2]) for r in rows_])
    fitted = np.array([r[3] for r in rows_])
    ghz = float(np.exp(np.mean(np.log(cycles[fitted] / hw[fitted]))))
    x = np.array([machine.cost_terms(r[2]) for r in rows_])
    w = 1 / hw[fitted]
    costs, _ = nnls(x[fitted] * w[:, None], hw[fitted] * w)
    return {"ghz": ghz, "model_ns": cycles / ghz, "costs": dict(zip(COST_TERMS, costs)),
            "fit_ns": x @ costs, "hw_ns": hw, "cycles": cycles, "fitted": fitted,
            "names": [r[0] for r in rows_]}


def table(result):
    """An org table: row, hardware, model, fit, with residuals in %."""
    lines = ["| row | hardware ns/op | modelled cycles/op | model ns/op | off "
             "| NNLS fit ns/op | off |", "|-"]
    for i, name in enumerate(result["names"]):
        hw, mod, fitted = result["hw_ns"][i], result["model_ns"][i], result["fit_ns"][i]
        lines.append(f"| {name}{'' if result['fitted'][i] else ' (not fitted)'} | {hw:.2f} | "
                     f"{result['cycles'][i]:.1f} | {mod:.2f} | {(mod / hw - 1) * 100:+.0f}% | "
                     f"{fitted:.2f} | {(fitted / hw - 1) * 100:+.0f}% |")
    return "\n".join(lines)


def geo_error(estimate, actual):
    """The geometric mean of estimate/actual's distance from 1, in %."""
    return (np.exp(np.mean(np.abs(np.log(estimate / actual)))) - 1) * 100


def directions(r):
    """How many of seed 004's htab-against-rhtab pairs the model orders as
    the hardware does, and which it does not."""
    ns = dict(zip(r["names"], zip(r["model_ns"], r["hw_ns"])))
    pairs = [(n, n.replace("htab", "rhtab", 1)) for n in ns if n.startswith("htab lookup")]
    pairs = [(h, rh) for h, rh in pairs if rh in ns]
    wrong = [h[len("htab lookup "):] for h, rh in pairs
             if (ns[h][0] < ns[rh][0]) != (ns[h][1] < ns[rh][1])]
    return (f"htab against rhtab: {len(pairs) - len(wrong)} of {len(pairs)} in the hardware's "
            f"direction" + (f" (not at {', '.join(wrong)})" if wrong else ""))


def modelled(folder):
    """The machine a set was modelled on and its rows (rows())."""
    found, machines = rows(folder)
    if len(found) < len(COST_TERMS) or len(machines) != 1:
        raise InputError(f"{folder}: {len(found)} runs with a seed figure and model counts, on "
                         f"{len(machines)} machines; run vmrun --model NAME --suite cache-model "
                         "in a 7.2 guest")
    machine = machines.pop()
    if not machine:
        raise InputError(f"{folder}: counted on a machine no definition here matches; run "
                         "vmrun --model NAME --suite cache-model again")
    return machine, found


def variants(folder):
    """A set's fit on its machine and on it without each mechanism that
    changes costs only (overlapping misses, branch prediction) it has: the
    same counts, read once."""
    machine, found = modelled(folder)
    kept = [machine] + [machine.without(m) for m in COST_ONLY if getattr(machine, m)]
    return [(m, fit(found, m)) for m in kept]


def ablation(sets):
    """An org table of [(machine, fit)]: per row the hardware's ns and each
    machine's modelled cycles and error at its own clock rate (the one
    fitted number each), so a reader sees what each mechanism moved; the
    geometric mean errors last."""
    def off(r, j):
        return f"{(r['model_ns'][j] / r['hw_ns'][j] - 1) * 100:+.0f}%"

    def error(r, rows_):
        return f"at {r['ghz']:.2f} GHz | {geo_error(r['model_ns'][rows_], r['hw_ns'][rows_]):.0f}%"
    names = sets[0][1]["names"]
    lines = ["| row | hardware ns/op | " + " | ".join(
        f"{m.name} cycles/op | off" for m, _ in sets) + " |", "|-"]
    for i, name in enumerate(names):
        cells = []
        for _, r in sets:
            j = r["names"].index(name) if name in r["names"] else None
            cells += ["-", "-"] if j is None else [f"{r['cycles'][j]:.1f}", off(r, j)]
        lines.append(f"| {name} | {sets[0][1]['hw_ns'][i]:.2f} | " + " | ".join(cells) + " |")
    lines.append("| geometric mean error, seed 004 | | "
                 + " | ".join(error(r, r["fitted"]) for _, r in sets) + " |")
    lines.append("| geometric mean error, all rows | | "
                 + " | ".join(error(r, slice(None)) for _, r in sets) + " |")
    lines.append("| seed 004 at the part's documented clock, no fitted number | | "
                 + " | ".join(documented(m, r) for m, r in sets) + " |")
    return "\n".join(lines)


def documented(machine, r):
    """ "at 3.70 GHz | 24%": seed 004's error with cycles read at the
    machine's documented clock, where it has one."""
    if not machine.ghz:
        return "- | -"
    f = r["fitted"]
    error = geo_error(r["cycles"][f] / machine.ghz, r["hw_ns"][f])
    return f"at {machine.ghz:.2f} GHz | {error:.0f}%"


def report(folder, others=()):
    """The calibration of the set in folder, as text and an org table, and
    an ablation table: the machine without overlapping misses and without
    branch prediction (from the same counts), and others (the suite run on
    the machine with a mechanism off, e.g. zen4:no-tlb) with and without
    them."""
    sets = [s for f in (folder, *others) for s in variants(f)]
    machine, r = sets[0]
    f = r["fitted"]
    costs = ", ".join(f"{k} {v:.3g} ns" for k, v in r["costs"].items())
    return "\n".join([
        f"{machine.name}: {len(r['names'])} rows; one clock rate of {r['ghz']:.2f} GHz (fitted "
        f"to seed 004's rows in log space) maps modelled cycles to ns; geometric mean error "
        f"{geo_error(r['model_ns'], r['hw_ns']):.0f}% "
        f"({geo_error(r['model_ns'][f], r['hw_ns'][f]):.0f}% on seed 004's rows)",
        f"NNLS costs on seed 004's rows: {costs}; geometric mean error "
        f"{geo_error(r['fit_ns'][f], r['hw_ns'][f]):.0f}%",
        f"At the part's documented clock, no number fitted: seed 004's rows "
        f"{documented(machine, r).replace(' |', ':')}", directions(r), "", table(r)]
        + (["", "Ablation: each set's machine, its modelled cycles and error per row", "",
            ablation(sets)] if len(sets) > 1 else []))
