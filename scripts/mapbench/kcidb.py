"""A result set as KCIDB report data (Kernel CI's common database, schema
v4.5): one checkout (the kernel commit), one build (its release), and a test
per configuration with its figure as a measurement, so a lab that reports to
KernelCI carries mapbench's numbers. Pure: returns the document."""
import hashlib
import json
import re

import numpy as np

from . import model, results

VERSION = {"major": 4, "minor": 5}


def _part(text):
    """A test path component: KCIDB paths are dot-separated names."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", str(text)).strip("_") or "_"


def document(runs, origin, commit, branch=None, tree=None, metric=model.DEFAULT_METRIC):
    """{version, checkouts, builds, tests} for a loaded set."""
    if not re.fullmatch(r"[a-z0-9_]+", origin):
        raise model.InputError(f"--origin {origin}: KCIDB origins are lowercase letters, digits "
                               "and underscores (e.g. mapbench)")
    release = next((r.env.get("kernel_release") for r in runs if r.env.get("kernel_release")),
                   "unknown")
    checkout = {"id": f"{origin}:{commit}", "origin": origin, "git_commit_hash": commit}
    if re.fullmatch(r"[0-9a-f]{40}", commit) is None:
        checkout.pop("git_commit_hash")
        checkout["git_commit_name"] = commit
    if branch:
        checkout["git_repository_branch"] = branch
    if tree:
        checkout["tree_name"] = tree
    build = {"id": f"{origin}:{commit}:{_part(release)}", "origin": origin,
             "checkout_id": checkout["id"], "architecture": "x86_64",
             "comment": f"kernel {release}"}
    tests = []
    for key, values in results.groups(runs, metric).items():
        first = next(r for r in runs if r.key() == key and metric in r.metrics)
        digest = hashlib.sha256(key.canonical.encode()).hexdigest()[:12]
        varying = set(key.params) - results.DERIVED
        path = ".".join(["mapbench", _part(key.benchmark)] +
                        [_part(f"{k}-{key.params[k]}") for k in sorted(varying)])
        tests.append({
            "id": f"{build['id']}:{_part(key.benchmark)}:{digest}", "origin": origin,
            "build_id": build["id"], "path": path, "status": "DONE",
            "number": {"value": float(np.mean(values)), "unit": first.unit(metric)},
            "misc": {"benchmark": key.benchmark, "params": key.params, "metric": metric,
                     "direction": model.better(first.direction(metric)), "runs": len(values),
                     "sd": float(np.std(values, ddof=1)) if len(values) > 1 else 0.0,
                     "clock": model.clock_of(first.env)}})
    return {"version": VERSION, "checkouts": [checkout], "builds": [build], "tests": tests}


def dumps(doc):
    return json.dumps(doc, indent=1, sort_keys=True)
