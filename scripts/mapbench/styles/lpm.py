"""Seed 002's LPM tables: lookup, update, delete and free at each N
(throughput ±, latency), and the per-N lookup table of the xdp-project's
lookup study (ns/op, miss %, dTLB %)."""
import numpy as np

from .base import Style, mean_sd, si
from .. import output
from ..model import InputError


LPM_OPS = ("lookup", "update", "delete", "free")


def latency_text(ns):
    """Latency as the kernel's LPM bench prints it: ns/op, or ms/op for frees."""
    return f"{ns / 1e6:.3f} ms/op" if ns >= 1e5 else f"{ns:.3f} ns/op"


def ops_unit(run):
    """"M ops/s" or "K ops/s" of a figure, its name left out, as the kernel's
    LPM lines print it."""
    return " ".join(run.unit("figure").split()[:2])


def lpm_ops_table(runs, args):
    """Seed 002's first table, at each nr_entries: op | throughput ± sd | latency."""
    cells = {}
    for r in runs:
        op = r.benchmark.removeprefix("lpm-trie-")
        if op in LPM_OPS and "figure" in r.metrics:
            cells.setdefault(r.params.get("nr_entries"), {}).setdefault(op, []).append(r)
    out = []
    for nr, ops in sorted(cells.items()):
        if set(ops) == {"lookup"} and len(cells) > 1:
            continue    # a lookup sweep: the per-N table has it
        rows = [[op, f"{mean_sd(np.array([r.metrics['figure'] for r in ops[op]]), 1, 3)} "
                     f"{ops_unit(ops[op][0])}",
                 latency_text(np.mean([r.metrics["latency"] for r in ops[op]])),
                 str(len(ops[op]))] for op in LPM_OPS if op in ops]
        out.append(f"nr_entries {si(nr)}\n" + output.render_table(
            ["op", "throughput", "latency", "runs"], rows, args.format, args.width, left=(0,)))
    return out


def lpm_sweep_table(runs, args):
    """Jesper Brouer's per-N lookup table: nr_entries | ns/op | miss % | dTLB %."""
    by_nr = {}
    for r in runs:
        if r.benchmark == "lpm-trie-lookup":
            by_nr.setdefault(r.params.get("nr_entries"), []).append(r)
    if not by_nr:
        return None

    def cell(group, m):
        v = [r.metrics[m] for r in group if m in r.metrics]
        return f"{np.mean(v):.2f}" if v else "-"
    rows = [[si(nr), cell(g, "latency"), cell(g, "cache_miss_pct"), cell(g, "dtlb_miss_pct")]
            for nr, g in sorted(by_nr.items())]
    table = output.render_table(["nr_entries", "ns/op", "miss %", "dTLB %"], rows, args.format,
                                args.width)
    if all(r[2] == "-" and r[3] == "-" for r in rows):
        table += ("\nmiss % and dTLB %: no run counted them (./bench --perf on a machine "
                  "whose PMU has the counters, or vmrun --model for miss %)")
    return "lpm-trie-lookup by nr_entries (latency: in-kernel ns/op, mean of the runs)\n" + table


def lpm_table(a, b, args):
    parts = lpm_ops_table(a, args)
    sweep = lpm_sweep_table(a, args)
    if sweep:
        parts.append(sweep)
    if not parts:
        raise InputError("no lpm-trie-* results in the set")
    return "\n\n".join(parts)


STYLE = Style("lpm", (1,), lpm_table)
