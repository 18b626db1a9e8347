"""A machine's noise floor: the |delta| an A/A (same build, same kernel)
showed for each configuration, stored by CPU model and shown beside later
deltas."""
import json
from pathlib import Path

import numpy as np

from .model import InputError
from .paths import RESULTS
from .stats import pooled_sd


NOISE_FLOOR = RESULTS / "noise-floor.json"


def _floor_key(cpu_model, metric, key):
    return json.dumps([cpu_model, metric, key.benchmark, key.params], sort_keys=True)


def save_noise_floor(path, comps, cpu_model):
    """Store each comparison of an A/A (two sets of the same build on the same
    kernel) as this machine's noise floor: |delta|, MDE and CV, by CPU model,
    metric and configuration. Later comparisons show it beside their delta."""
    path = Path(path)
    floor = json.loads(path.read_text()) if path.exists() else {}
    for c in comps:
        floor[_floor_key(cpu_model, c.metric, c.key)] = {
            "abs_delta_pct": abs(c.delta_pct), "mde_pct": c.mde if c.mde == c.mde else None,
            "cv_pct": pooled_sd(c.a, c.b) / abs(np.mean(c.a)) * 100
            if len(c.a) > 1 and len(c.b) > 1 else None,
            "runs": [len(c.a), len(c.b)]}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.new")
    tmp.write_text(json.dumps(floor, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def noise_floor_of(path, comps, cpu_model):
    """{comparison key: stored A/A |delta| %} for the comparisons the file knows."""
    path = Path(path)
    if not path.exists():
        return {}
    try:
        floor = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not valid JSON ({e})") from e
    out = {}
    for c in comps:
        entry = floor.get(_floor_key(cpu_model, c.metric, c.key))
        if entry:
            out[c.key] = entry["abs_delta_pct"]
    return out
