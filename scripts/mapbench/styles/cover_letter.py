"""The cover letter of a patch series that changes hash-map elements (seeds
000 and 003), from two sets measured by suite htab-elem (before, after):
the memory table (Old size | New size | Savings, each element's bytes by the
kernel's own accounting), the whole per-element cost of the per-CPU maps
at the possible CPUs it was measured with and at 64 and 256 (the
reviewers' question), the htab-mem table with each row's verdict and MDE,
the lookups in instructions and, where the cache model counted them,
modelled cycles with where they moved, and the environment a reviewer asks
for. ab --series writes it as results/LABEL/cover-letter.txt with the
per-patch table."""
import copy
import math

import numpy as np

from . import htab_mem
from .base import Style, context
from .. import model, output, results, verdict, where
from ..model import InputError

# The CPU counts the per-CPU maps' whole element is priced at, beside the guest's.
CPU_COUNTS = (64, 256)


def by_row(runs, metric):
    """{mem row label: mean of metric} of a set's mem runs, in mem's order
    (its table's: standard, per-CPU, LRU)."""
    values = {}
    for r in runs:
        if r.benchmark == "mem" and metric in r.metrics:
            values.setdefault(r.params["row"], []).append(r.metrics[metric])
    return {row: float(np.mean(v)) for row, v in values.items()}


def memory_table(a, b, fmt):
    old, new = by_row(a, "element_bytes"), by_row(b, "element_bytes")
    if not old:
        return None
    rows = []
    for label in old:
        after = new.get(label)
        saving = f"{(old[label] - after) / old[label] * 100:.1f}%" if after is not None else "-"
        rows.append([label, f"{old[label]:.0f} B", "-" if after is None else f"{after:.0f} B",
                     saving])
    params = next(r.params for r in a if r.benchmark == "mem")
    return (f"Memory per element (key {params.get('key_size')} B, value "
            f"{params.get('value_size')} B; the kernel's accounting, memlock per element less "
            "the per-CPU values; a map without prealloc is also charged its allocator's bytes "
            "beside each element, so its saving is the one to compare):\n" +
            output.render_table(["Map Type & Configuration", "Old size", "New size", "Savings"],
                                rows, fmt))


def per_cpu_table(a, b, fmt):
    """Each per-CPU map's whole element (its own bytes and its values on
    every CPU) at the CPUs it was measured with and at CPU_COUNTS. mem
    takes the values' bytes as the kernel charges them, the value rounded
    up to 8 B on each possible CPU, so that is what a CPU holds here too."""
    old, new = by_row(a, "element_bytes"), by_row(b, "element_bytes")
    values = by_row(a, "per_cpu_bytes")
    value_size = next((r.params.get("value_size") for r in a if r.benchmark == "mem"), None)
    if not values or not value_size:
        return None
    each = -(-int(value_size) // 8) * 8
    rows, measured = [], set()
    for label, spread in values.items():
        if label not in new:
            continue
        cpus = round(spread / each)
        measured.add(cpus)
        for n in (cpus, *CPU_COUNTS):
            before, after = old[label] + each * n, new[label] + each * n
            rows.append([label, str(n), f"{before:.0f} B", f"{after:.0f} B",
                         f"{(before - after) / before * 100:.1f}%"])
    return ("The whole element of the per-CPU maps, its values on every CPU included (each CPU "
            f"holds {each} B of an element's value: the value rounded up to 8 B, as the kernel "
            f"allocates and charges it per possible CPU; measured with "
            f"{', '.join(map(str, sorted(measured)))} possible CPUs, priced at "
            f"{', '.join(map(str, CPU_COUNTS))}):\n"
            + output.render_table(["Map Type & Configuration", "CPUs", "Old", "New", "Savings"],
                                  rows, fmt))


def judged(a, b, policy, metric, benches):
    """The verdict engine's rows of these benchmarks on metric."""
    a = [r for r in a if benches(r.benchmark)]
    b = [r for r in b if benches(r.benchmark)]
    if not a or not b:
        return None
    rules = verdict.override(copy.deepcopy(policy), metric=metric)
    judgement = verdict.judge(a, b, rules, model.clock_of_runs(a, b))
    return judgement if judgement.compared else None


def verdict_cell(c):
    mde = f"MDE {c.mde:.2g}%" if math.isfinite(c.mde) else "no MDE"
    return f"{c.result} ({mde})"


def htab_mem_table(a, b, policy, fmt):
    j = judged(a, b, policy, "figure", lambda name: name.startswith("htab-mem-"))
    if not j:
        return None
    rows = sorted(j.compared, key=lambda c: htab_mem.order(c) or (9, 9))
    unit = rows[0].unit
    body = [[htab_mem.label(c.key, {"prealloc"}) or results.label(c.key, set()),
             f"{c.a.mean():.2f}", f"{c.b.mean():.2f}", output.fmt_pct(c.delta_pct),
             verdict_cell(c)] for c in rows]
    return (f"htab-mem (per-prod-op, {unit}; {model.better(rows[0].direction)}):\n" +
            output.render_table(["", "Avg. Before", "Avg. After", "Delta", "Verdict"], body, fmt,
                                left=(0, 4)))


def lookup_table(a, b, policy, fmt):
    out = []
    for metric in ("latency", "model_cycles"):
        j = judged(a, b, policy, metric, lambda name: name == "htab-lookup")
        if not j:
            continue
        varying = results.varying_params([c.key for c in j.compared])
        body = [[results.label(c.key, varying), f"{np.mean(c.a):.2f}", f"{np.mean(c.b):.2f}",
                 output.fmt_pct(c.delta_pct), verdict_cell(c)] for c in j.compared]
        out.append(f"Lookups, {metric} ({j.compared[0].unit}; "
                   f"{model.better(j.compared[0].direction)}):\n" +
                   output.render_table(["", "Before", "After", "Delta", "Verdict"], body, fmt,
                                       left=(0, 4)))
    lookups_a = [r for r in a if r.benchmark == "htab-lookup"]
    lookups_b = [r for r in b if r.benchmark == "htab-lookup"]
    out += where.lines(lookups_a, lookups_b)
    return "\n".join(out) if out else None


def environment(a, b):
    """Where the numbers come from, in one line a reviewer can quote."""
    vm = next((r.env["vm"] for r in a + b if r.env.get("vm")), {})
    machine = (f"QEMU {vm.get('qemu_version', '?')} {str(vm.get('accelerator', '?')).upper()}, "
               f"{vm.get('vcpus', '?')} vCPUs, {vm.get('memory_mib', '?')} MiB"
               + (f", {model.model_of(a[0].env)} cache model" if vm.get("model") else "")
               if vm else "bare metal")
    revisions = sorted({str(r.env.get("mapbench_revision")) for r in a + b if r.env})
    return (f"Environment: before {context(a)}; after {context(b)}; {machine}; "
            f"{'guest ' if vm else ''}CPU {a[0].env.get('cpu_model', '?')}; "
            f"mapbench {', '.join(revisions)}; boots a side: "
            f"{len({results.boot_of(r.env) for r in a})}/{len({results.boot_of(r.env) for r in b})}")


def table(a, b, args):
    sections = [s for s in (memory_table(a, b, args.format), per_cpu_table(a, b, args.format),
                            htab_mem_table(a, b, args.policy, args.format),
                            lookup_table(a, b, args.policy, args.format)) if s]
    if not sections:
        raise InputError("no htab-elem suite runs in these sets (mem, htab-mem, htab-lookup): "
                         "scripts/suite run htab-elem, or ab --suite htab-elem")
    metrics = ["latency"] + (["model_cycles"] if any("model_cycles" in r.metrics
                                                     for r in a + b) else [])
    notes = sorted({n for m in metrics if (n := model.clock_note(model.clock_of_runs(a, b), m))})
    return "\n\n".join(sections + notes + [environment(a, b)])


STYLE = Style("cover-letter", (2,), table)
