"""Seed 004's tables (the rhtab cover letter): lookup, full update and memory
of the kernel's htab benchmarks on htab and rhtab maps, and a summary
computed from them (report SET --style rhtab, of suite rhtab-vs-htab)."""
import numpy as np

from .base import Style, context, pct, si
from .. import output
from ..model import InputError


# The kernel's rhtab names are its htab benchmarks on an rhtab map.
RHTAB_NAMES = {"bpf-rhashmap-lookup": "bpf-hashmap-lookup",
               "bpf-rhashmap-full-update": "bpf-hashmap-full-update",
               "rhtab-mem-overwrite": "htab-mem-overwrite"}


MAPS = ("htab", "rhtab")


def by_map(runs, bench):
    """The runs of bench (or its rhtab name) with map htab or rhtab, as (map, run)."""
    return [(r.params.get("map"), r) for r in runs
            if RHTAB_NAMES.get(r.benchmark, r.benchmark) == bench and r.params.get("map") in MAPS]


def lookup_section(runs):
    cells, pairs = {}, by_map(runs, "bpf-hashmap-lookup")
    for m, r in pairs:
        p = r.params
        cells.setdefault((p["key_size"], p["max_entries"], p["nr_entries"]), {}) \
            .setdefault(m, []).append(r.metrics["figure"])
    rows, ratios = [], {}
    for (key, mx, nr), v in sorted(cells.items()):
        if set(v) != set(MAPS):
            cell = {m: f"{np.mean(v[m]):.2f}" if m in v else "-" for m in MAPS}
            rows.append([str(key), si(mx), si(nr), cell["htab"], cell["rhtab"], "-", "-"])
            continue
        h, rh = np.mean(v["htab"]), np.mean(v["rhtab"])
        ratios[(key, mx, nr)] = rh / h
        rows.append([str(key), si(mx), si(nr), f"{h:.2f}", f"{rh:.2f}", f"{rh / h:.2f}x",
                     pct(rh / h)])
    if not rows:
        return "1. LOOKUP: no bpf-hashmap-lookup configuration ran on both maps", {}
    table = output.render_table(["key", "max", "nr", "htab", "rhtab", "ratio", "delta"], rows,
                                left=())
    return (f"1. LOOKUP (single producer, M events/sec; {context([r for _, r in pairs])})\n{table}",
            ratios)


def full_update_section(runs):
    lists, pairs = {}, by_map(runs, "bpf-hashmap-full-update")
    for m, r in pairs:
        if r.per_producer:
            lists.setdefault(m, []).append(r.per_producer)
    if set(lists) != set(MAPS):
        return "2. FULL UPDATE: bpf-hashmap-full-update did not run on both maps", None
    out = [f"2. FULL UPDATE (M events/sec per producer; {context([r for _, r in pairs])})"]
    means = {}
    for m in MAPS:
        # a producer's figure: its mean over the runs
        per = np.mean(np.array([x for x in lists[m] if len(x) == len(lists[m][0])]), axis=0)
        means[m] = per.mean()
        runs = len(lists[m])
        out += [f"{m} per-producer ({runs} run{'s' if runs > 1 else ''}):", " ".join(f"{v:.2f}" for v in per),
                f"mean {per.mean():.2f} range {per.min():.2f} - {per.max():.2f}"]
    speedup = means["rhtab"] / means["htab"]
    out.append(f"speedup (mean): {speedup:.2f}x ({pct(speedup)})")
    return "\n".join(out), speedup


def memory_section(runs):
    cells, pairs = {}, by_map(runs, "htab-mem-overwrite")
    for m, r in pairs:
        if "charged_avg" in r.metrics:
            cells.setdefault(r.params["value_size"], {}).setdefault(m, []).append(r)
    rows, notes, deltas = [], [], {}
    for vs, v in sorted(cells.items()):
        if set(v) != set(MAPS):
            notes.append(f"note: {vs} B values ran on {', '.join(sorted(v))} only")
            continue
        ops = {m: np.mean([r.metrics["figure"] for r in v[m]]) for m in MAPS}
        mem = {m: np.mean([r.metrics["charged_avg"] for r in v[m]]) / 2**20 for m in MAPS}
        rows.append([f"{vs} B", f"{ops['htab']:.2f} k/s", f"{ops['rhtab']:.2f} k/s",
                     f"{mem['htab']:.2f} MiB", f"{mem['rhtab']:.2f} MiB"])
        deltas[vs] = (ops["rhtab"] / ops["htab"], mem["rhtab"] / mem["htab"])
        notes.append(f"rhtab/htab: {(deltas[vs][0] - 1) * 100:+.1f} % ops, "
                     f"{(deltas[vs][1] - 1) * 100:+.1f} % mem ({vs} B)")
    if not rows:
        return "3. MEMORY: htab-mem overwrite did not run on both maps", {}
    table = output.render_table(["value_size", "htab ops/s", "rhtab ops/s", "htab mem", "rhtab mem"],
                                rows, left=())
    return (f"3. MEMORY (htab-mem overwrite: per-prod-op, cgroup charge mean; "
            f"{context([r for _, r in pairs])})\n"
            f"{table}\n" + "\n".join(notes), deltas)


def winner(ratio):
    """"rhtab 1.20x" or "htab 1.25x": who is ahead by how much."""
    return f"rhtab {ratio:.2f}x" if ratio >= 1 else f"htab {1 / ratio:.2f}x"


def rhtab_summary(ratios, speedup, deltas):
    """Which map wins where, in sentences computed from the tables."""
    out = ["SUMMARY (computed from the tables above)"]
    for mx in sorted({k[1] for k in ratios}):
        parts = []
        for key in sorted({k[0] for k in ratios if k[1] == mx}):
            rs = [v for k, v in ratios.items() if k[:2] == (key, mx)]
            lo, hi = min(rs), max(rs)
            if lo < 1 < hi:
                parts.append(f"{key} B keys: mixed ({winner(lo)} to {winner(hi)})")
                continue
            side = "rhtab" if lo >= 1 else "htab"
            f = sorted({f"{x if x >= 1 else 1 / x:.2f}" for x in rs}, key=float)
            span = f[0] if len(f) == 1 else f"{f[0]}-{f[-1]}"
            parts.append(f"{key} B keys: {side} ahead ({span}x)")
        out.append(f"* Lookup, max {si(mx)}: " + "; ".join(parts) + ".")
    if speedup:
        out.append(f"* Full update per producer: {winner(speedup)} faster on the mean.")
    for vs, (ops, mem) in sorted(deltas.items()):
        on_par = abs(ops - 1) < 0.05 and abs(mem - 1) < 0.05
        out.append(f"* Memory at {vs} B values: " +
                   ("on par (ops and memory within 5 %)" if on_par else
                    f"rhtab {(ops - 1) * 100:+.1f} % ops, {(mem - 1) * 100:+.1f} % memory") + ".")
    return "\n".join(out)


def rhtab_table(a, b, args):
    lookup, ratios = lookup_section(a)
    full, speedup = full_update_section(a)
    memory, deltas = memory_section(a)
    if not ratios and speedup is None and not deltas:
        raise InputError("no configuration ran on both htab and rhtab (a kernel without rhtab "
                         "records them as unsupported)")
    return "\n\n".join([lookup, full, memory, rhtab_summary(ratios, speedup, deltas)])


STYLE = Style("rhtab", (1,), rhtab_table)
