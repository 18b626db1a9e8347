"""Suite files (suites/*.json) and the result folders they fill: shared by
scripts/suite (runs on this machine) and scripts/vmrun (runs in QEMU guests)."""
import itertools
import json
import os
import random
import re
from pathlib import Path

import numpy as np

from . import cli, model
from .paths import ROOT

SUITES = ROOT / "suites"


def placeholders(cpus=None):
    cpus = cpus or os.cpu_count() or 1
    return {"cpus": str(cpus), "cpus_even": str(max(2, cpus - cpus % 2))}


def expand_value(v, subst):
    """"1..{cpus}" -> ["1", "2", ...]; anything else -> [v] with placeholders."""
    v = str(v).format(**subst)
    m = re.fullmatch(r"(\d+)\.\.(\d+)(?:/(\d+))?", v)
    if not m:
        return [v]
    lo, hi, step = int(m[1]), int(m[2]), int(m[3] or 1)
    return [str(i) for i in range(lo, hi + 1, step)]


def configurations(suite, subst=None):
    """[(id, argv)] of a suite, "each" expanded in file order."""
    subst = subst or placeholders()
    out = []
    for c in suite["configs"]:
        args = [str(a).format(**subst) for a in c["args"]]
        each = c.get("each", {})
        options = list(each)
        values = [[x for v in each[o] for x in expand_value(v, subst)] for o in options]
        for combo in itertools.product(*values):
            extra, name = [], [c["id"]]
            for opt, val in zip(options, combo):
                extra += [val] if opt == "" else [opt, val]
                name.append(val if opt == "" else f"{opt.lstrip('-')}={val}")
            out.append((",".join(name), args + extra))
    ids = [i for i, _ in out]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise model.InputError(f"configurations named twice: {sorted(dup)}")
    return out


SWEEP = re.compile(r"(?P<name>[\w-]+)=(?P<lo>\d+[KkMm]?)\.\.(?P<hi>\d+[KkMm]?)"
                   r"(?::(?P<scale>log|lin))?:(?P<n>\d+)")


def count_value(text):
    """1K -> 1000, 1M -> 1000000 (./bench's suffixes)."""
    mul = {"k": 1000, "m": 1000000}.get(text[-1].lower(), 1)
    return int(text.rstrip("KkMm")) * mul


def sweep_points(spec):
    """"nr_entries=1..1M:log:60" -> ("nr_entries", [1, 2, ...]): N points from
    LO to HI, both kept, spaced evenly (lin) or evenly in log (log, the
    default), rounded to whole numbers, repeats dropped. InputError if the
    spec is not one or gives no points."""
    m = SWEEP.fullmatch(spec)
    if not m:
        raise model.InputError(f"--param '{spec}': give NAME=LO..HI[:log|:lin]:N, e.g. "
                               "nr_entries=1..1M:log:60")
    lo, hi, n = count_value(m["lo"]), count_value(m["hi"]), int(m["n"])
    if n < 1 or lo > hi or (m["scale"] != "lin" and lo < 1):
        raise model.InputError(f"--param '{spec}' gives no points: N at least 1, LO at most HI, "
                               "and LO at least 1 on a log scale")
    space = np.linspace if m["scale"] == "lin" else np.geomspace
    points = space(lo, hi, n) if n > 1 else np.array([lo])
    return m["name"], sorted({int(round(v)) for v in points})


def sweep_suite(bench, spec, extra, runs, warmup, duration):
    """A suite, in memory, of one benchmark over the points of --param."""
    name, points = sweep_points(spec)
    return {"name": f"sweep-{bench}-{name}", "runs": runs, "warmup": warmup,
            "duration": duration, "description": f"{bench} over {spec}",
            "configs": [{"id": "sweep", "args": [bench, *extra],
                         "each": {f"--{name}": [str(p) for p in points]}}]}


def plan(configs, runs, order="round-robin", seed=1):
    """[(round, id, argv)]: every configuration once per round."""
    rng = random.Random(seed)
    out = []
    for r in range(runs):
        round_ = list(configs)
        if order == "random":
            rng.shuffle(round_)
        out += [(r, cid, argv) for cid, argv in round_]
    return out


def load_suite(name):
    path = Path(name) if name.endswith(".json") else SUITES / f"{name}.json"
    if not path.exists():
        known = ", ".join(sorted(p.stem for p in SUITES.glob("*.json")))
        raise model.InputError(f"no suite '{name}'; known: {known}", cli.EXIT_USAGE)
    try:
        suite = json.loads(path.read_text())
        for key in ("description", "runs", "warmup", "duration", "configs"):
            suite[key]
        suite["name"] = path.stem
        configurations(suite)
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
        raise model.InputError(f"{path}: not a suite file ({type(e).__name__}: {e})") from e
    return suite


def run_file(label_dir, cid, r):
    return label_dir / cid / f"run-{r + 1}.json"


def fmt_time(s):
    s = int(round(s))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
