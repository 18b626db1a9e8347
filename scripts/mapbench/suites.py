"""Suite files (suites/*.json) and the result folders they fill: shared by
scripts/suite (runs on this machine) and scripts/vmrun (runs in QEMU guests)."""
import itertools
import json
import os
import random
import re
from pathlib import Path

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
        cli.die(f"no suite '{name}'; known: {known}", cli.EXIT_USAGE)
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


def status_of(path):
    try:
        return json.loads(path.read_text()).get("status")
    except (OSError, json.JSONDecodeError):
        return None


def fmt_time(s):
    s = int(round(s))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def doc_figure_text(doc):
    """A result's figure ("8.123 M ops/s throughput"), or its status and reason."""
    if doc["status"] != "complete":
        return doc["status"] + (f": {doc['reason']}" if doc.get("reason") else "")
    if "memory" in doc:
        return "complete"
    f = doc["summary"]["figure"]
    return f"{f['mean']:.3f} {f['unit']} {f['name']}"


def figure_text(path):
    try:
        return doc_figure_text(json.loads(path.read_text()))
    except (OSError, KeyError, TypeError, json.JSONDecodeError):
        return "no result written"
