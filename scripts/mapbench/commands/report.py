"""Cover-letter tables from mapbench result files: every figure comes from
the files.

  report SET                               Benchmark | Mean ± sd | Runs | Unit (one set)
  report BEFORE AFTER                      Benchmark | Avg. Before | Avg. After | Delta
  report BEFORE AFTER --style memory       Map Type & Configuration | Old size | New size | Savings
  report SET --style matrix --by map=htab,rhtab   key | max | nr | htab | rhtab | ratio | delta
  report BEFORE AFTER --style matrix       the same with before and after as the two columns
  report SET --style rhtab                 seed 004's three tables (lookup, full update,
                                           memory) and a summary computed from them
  report BEFORE AFTER --style per-cpu      seed 001's shape: each task's (CPU's) events per
                                           sec before and after, as map_perf_test prints them
  report SET --style lpm                   seed 002's LPM tables: lookup, update, delete,
                                           free at each N (throughput ±, latency), and
                                           Jesper Brouer's per-N lookup table (ns/op,
                                           miss %, dTLB %)
  report SET --style xdp-lb                run_bench_xdp_lb.sh's table: each scenario's p50,
                                           stddev and p99 (ns/op of its batches, the kernel
                                           timing library's figures), in its five groups
  report SET --peer SET-kernel             the kernel's own bench beside mapbench, per
                                           configuration (suite run --peer kernel)

The delta table shows each benchmark's figure (--metric figure, the default,
as in compare, gate and plot):
for a benchmark named after a kernel bench, that bench's figure in its unit
(htab-mem: per-prod-op in k/s, as run_bench_htab_mem.sh prints it; bpf-hashmap-*:
M events/s per producer). The header names the unit; a Unit column appears
where the rows' units differ.

Exit status: 0 the table was printed, 3 unreadable input or nothing to show,
64 usage error.
"""
import argparse
from pathlib import Path

import numpy as np

from .. import calibration, cli, kernel_log, model, output, results, stats, verdict, where


def si(n):
    """1000 -> 1K, 750000 -> 750K, 1000000 -> 1M."""
    for div, suffix in ((1000000, "M"), (1000, "K")):
        if n >= div and n % div == 0:
            return f"{n // div}{suffix}"
    return str(n)


def header(a, b, metric):
    lines = []
    for name, runs in ((" before" if b else "", a), (" after", b)):
        kernels = sorted({f"{r.env.get('kernel_release', '?')}" for r in runs if r.env})
        if kernels:
            lines.append(f"Kernel{name}: {', '.join(kernels)}")
    cpus = sorted({r.env.get("cpu_model", "?") for r in a + (b or []) if r.env})
    if cpus:
        lines.append(f"CPU: {', '.join(cpus)}")
    vms = sorted({f"QEMU {v['qemu_version']} {v['accelerator'].upper()}, {v['vcpus']} vCPU, "
                  f"{v['memory_mib']} MiB" + (f", cache model {v['model']['name']}"
                                              if v.get("model") else "")
                  for r in a + (b or []) if (v := r.env.get("vm"))})
    if vms:
        lines.append(f"Guest: {'; '.join(vms)} (VM figures are for A/B at one configuration, "
                     "not hardware numbers)")
    clock = model.clock_of_runs(a, b or [])
    lines.append(f"Clock: {clock}" + (", QEMU's instruction counter (1 ns = 1 instruction)"
                                      if clock == "icount" else ""))
    note = model.clock_note(clock, metric)
    if note:
        lines.append(note)
    durs = [r.duration / r.runs for r in a if r.duration == r.duration]
    samples, runs = per_configuration(a)
    pooled = runs != samples
    lines.append(f"Runs: {runs} per configuration" +
                 (f" x {np.median(durs):.0f} s measured" if durs else "") +
                 (f", in {samples} boots (a boot's runs pooled into one sample)" if pooled else ""))
    return "\n".join(lines)


def per_configuration(runs):
    """("N" or "N-M" samples, the same for runs) per configuration of a set."""
    def span(counts):
        lo, hi = min(counts.values()), max(counts.values())
        return f"{lo}" if lo == hi else f"{lo}-{hi}"
    samples, total = {}, {}
    for r in runs:
        samples[r.key()] = samples.get(r.key(), 0) + 1
        total[r.key()] = total.get(r.key(), 0) + r.runs
    return span(samples), span(total)


def two_digits(x):
    """A spread with two significant digits: 4.3, 0.69, 140."""
    if not x:
        return "0"
    decimals = max(0, 1 - int(np.floor(np.log10(abs(x)))))
    return f"{x:.{decimals}f}"


def mean_sd(v, scale, digits):
    if not len(v):
        return "-"
    sd = v.std(ddof=1) if len(v) > 1 else 0.0
    return f"{v.mean() * scale:.{digits}f} ± {two_digits(sd * scale)}"


def seed_label(key, varying):
    """htab-mem rows as the seed tables name them ("prealloc overwrite")."""
    bench, p = key.benchmark, key.params
    if bench.startswith("htab-mem-") and varying <= {"prealloc", "map_flags"}:
        return f"{'prealloc' if p.get('prealloc') else 'normal'} {bench[len('htab-mem-'):]}"
    return results.label(key, varying)


USE_CASES = ["overwrite", "batch_add_batch_del", "add_del_on_diff_cpu"]


def seed_order(c):
    """htab-mem rows in the seed tables' order: prealloc first, then the use cases
    as run_bench_htab_mem.sh runs them; other rows after, by name."""
    bench = c.key.benchmark
    case = bench[len("htab-mem-"):]
    if case in USE_CASES:
        return (0, not c.key.params.get("prealloc"), USE_CASES.index(case), "")
    return (1, 0, 0, bench + c.key.canonical)


def delta_comparisons(a, b, args):
    """Every configuration of the delta table, judged as the gate judges them."""
    judged = verdict.judge(a, b, args.policy, model.clock_of_runs(a, b))
    if not judged.compared:
        cli.die(f"no benchmark with the same parameters in both sets ({args.metric})")
    judged.rows.sort(key=seed_order)
    return judged


def delta_json(a, b, args):
    return output.judgement_json(delta_comparisons(a, b, args), args.policy)


def verdict_line(judged):
    """The rows' verdicts in one line, under the gate's rules; the rows
    that changed, or could not be judged, are named."""
    by_verdict = {}
    for c in judged.rows:
        by_verdict.setdefault(c.verdict, []).append(c)
    named = (verdict.REGRESSION, verdict.IMPROVEMENT, verdict.NEW)
    parts = [f"{len(cs)} {word}" + (f" ({', '.join(seed_label(c.key, set()) for c in cs)})"
                                    if word in named else "")
             for word, cs in by_verdict.items()]
    line = "Verdicts (scripts/gate's rules): " + "; ".join(parts)
    if judged.mismatch:
        line += f"\nNo verdict: environments must match but differ in {'; '.join(judged.mismatch)}"
    return line


def delta_table(a, b, args):
    metric = args.metric
    judged = delta_comparisons(a, b, args)
    comps = judged.rows
    print(verdict_line(judged))
    scale = 1
    if metric == "throughput":
        scale = {"kops": 1e3, "mops": 1}[args.unit]
    units = {c.key: c.unit for c in comps}
    if metric == "throughput":
        units = dict.fromkeys(units, {"kops": "K ops/s", "mops": "M ops/s"}[args.unit])
    varying = results.varying_params([c.key for c in comps])
    one_unit = len({(units[c.key], c.direction) for c in comps}) == 1
    rows = [[seed_label(c.key, varying)] +
            ([] if one_unit else [f"{units[c.key]} ({model.better(c.direction).split()[0]})"]) +
            [mean_sd(c.a, scale, 2), mean_sd(c.b, scale, 2), output.fmt_pct(c.delta_pct)] +
            ([] if c.verdict not in (verdict.INCONCLUSIVE, verdict.NEW) or len(c.a) and len(c.b)
             else [c.result])
            for c in comps]
    g = stats.geomean(judged.compared)
    if g and g.n > 1:
        rows.append([f"geomean of {g.n} ({stats.GEOMEAN_WORDS})"] +
                    ([] if one_unit else ["ratio"]) + ["", "", f"{g.delta_pct:+.2f}% "
                    f"[{g.ci_low:+.1f}, {g.ci_high:+.1f}]"])
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    dirs = {c.direction for c in comps}
    said = [f"all in {units[comps[0].key]}"] if one_unit else []
    said += [model.better(dirs.pop())] if len(dirs) == 1 else []
    first = f"Benchmark ({', '.join(said)})" if said else "Benchmark"
    base = 4 if one_unit else 5
    heads = [first] + ([] if one_unit else ["Unit (better)"]) + \
        ["Avg. Before", "Avg. After", "Delta"] + ["Note"] * (width - base)
    left = (0,) + ((1,) if not one_unit else ()) + ((base,) if width > base else ())
    return output.render_table(heads, rows, args.format, args.width, left=left)


def summary_table(a, b, args):
    """One set: each configuration's mean ± sd."""
    return output.summary_table(a, args.metric, args.format, args.width)


def memory_table(a, b, args):
    """Seed 003's memory table; a row only one set has shows "-" on the other."""
    ga = results.groups(a, "bytes_per_element")
    gb = results.groups(b, "bytes_per_element") if b else {}
    if not ga:
        cli.die("no mem results in the first set")
    rows = []
    for key in sorted(set(ga) | set(gb)):
        label = key.params["row"]
        old, new = (ga[key].mean() if key in ga else None), (gb[key].mean() if key in gb else None)
        if not b:
            rows.append([label, f"{old:.0f} B"])
            continue
        saving = f"{(old - new) / old * 100:04.1f}%" if old and new is not None else "-"
        rows.append([label, "-" if old is None else f"{old:.0f} B",
                     "-" if new is None else f"{new:.0f} B", saving])
    heads = ["Map Type & Configuration", "Size"] if not b else \
        ["Map Type & Configuration", "Old size", "New size", "Savings"]
    return output.render_table(heads, rows, args.format, args.width)


# The matrix's own columns; any other parameter that varies names the row.
MATRIX_COLUMNS = ("key_size", "max_entries", "nr_entries")


def matrix_rows(a, b, args):
    """(column names, {configuration: (A mean, B mean)}): every configuration
    measured on both sides, keyed whole, so that no two share a row."""
    metric = args.metric
    sides = {}
    if args.by:
        param, _, values = args.by.partition("=")
        va, vb = values.split(",")
        for r in a:
            v = str(r.params.get(param))
            if v not in (va, vb) or metric not in r.metrics:
                continue
            rest = {k: x for k, x in r.params.items() if k not in (param, "map_type", "map_type_id")}
            sides.setdefault(model.Configuration.of(r.benchmark, rest), {}) \
                .setdefault(v == vb, []).append(r.metrics[metric])
        names = (va, vb)
    else:
        for side, runs in ((False, a), (True, b)):
            for r in runs:
                if metric in r.metrics:
                    sides.setdefault(r.key(), {}).setdefault(side, []).append(r.metrics[metric])
        names = ("before", "after")
    cells = {key: (np.mean(s[False]), np.mean(s[True])) for key, s in sides.items()
             if False in s and True in s}
    one_side = sorted(key for key, s in sides.items() if not (False in s and True in s))
    return names, cells, one_side


def matrix_label(key, varying):
    """The benchmark and whatever else varies, the matrix's columns left out."""
    return results.label(key, varying - set(MATRIX_COLUMNS))


def matrix_table(a, b, args):
    if not args.by and not b:
        cli.die("--style matrix needs --by PARAM=A,B or two sets")
    names, cells, one_side = matrix_rows(a, b, args)
    if not cells:
        cli.die("no configuration measured on both sides")
    varying = results.varying_params(list(cells) + one_side)
    several = len({matrix_label(k, varying) for k in cells}) > 1
    rows = []
    for key, (x, y) in sorted(cells.items(), key=lambda kv: (
            kv[0].benchmark, [kv[0].params.get(c, 0) for c in MATRIX_COLUMNS], kv[0].canonical)):
        p = key.params
        ratio, delta = (f"{y / x:.2f}x", f"{round((y / x - 1) * 100) + 0:+d} %") if x else ("-", "-")
        rows.append(([matrix_label(key, varying)] if several else []) +
                    [str(p.get("key_size", "-")),
                     si(p["max_entries"]) if "max_entries" in p else "-",
                     si(p["nr_entries"]) if "nr_entries" in p else "-",
                     f"{x:.2f}", f"{y:.2f}", ratio, delta])
    heads = (["configuration"] if several else []) + ["key", "max", "nr", *names, "ratio", "delta"]
    metric = args.metric
    unit = model.unit_of(a + (b or []), metric)
    notes = "".join(f"\nnote: only on one side: {matrix_label(k, varying)}" for k in one_side)
    return f"{metric} ({unit}):\n" + \
        output.render_table(heads, rows, args.format, args.width, left=(0,) if several else ()) + \
        notes


# The kernel's rhtab names are its htab benchmarks on an rhtab map.
RHTAB_NAMES = {"bpf-rhashmap-lookup": "bpf-hashmap-lookup",
               "bpf-rhashmap-full-update": "bpf-hashmap-full-update",
               "rhtab-mem-overwrite": "htab-mem-overwrite"}
MAPS = ("htab", "rhtab")


def context(runs):
    """"kernel 7.2.13, TCG guest, icount clock": where a table's numbers come from."""
    kernels = sorted({r.env.get("kernel_release", "?") for r in runs})
    accel = sorted({vm["accelerator"].upper() if (vm := r.env.get("vm")) else "bare metal"
                    for r in runs})
    return (f"kernel {', '.join(kernels)}, {', '.join(accel)}"
            f"{' guest' if any(r.env.get('vm') for r in runs) else ''}, "
            f"{model.clock_of_runs(runs)} clock")


def by_map(runs, bench):
    """The runs of bench (or its rhtab name) with map htab or rhtab, as (map, run)."""
    return [(r.params.get("map"), r) for r in runs
            if RHTAB_NAMES.get(r.benchmark, r.benchmark) == bench and r.params.get("map") in MAPS]


def pct(x):
    return f"{round((x - 1) * 100):+d} %"


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
    if b:
        cli.die("--style rhtab reads one set holding htab and rhtab runs (suite rhtab-vs-htab)",
                cli.EXIT_USAGE)
    lookup, ratios = lookup_section(a)
    full, speedup = full_update_section(a)
    memory, deltas = memory_section(a)
    if not ratios and speedup is None and not deltas:
        cli.die("no configuration ran on both htab and rhtab (a kernel without rhtab records "
                "them as unsupported)")
    return "\n\n".join([lookup, full, memory, rhtab_summary(ratios, speedup, deltas)])


def per_cpu_means(runs):
    """{configuration: (each producer's mean over the runs, runs, unit)}; a
    per-task figure in events/s is put back in events per sec, as the
    kernel's lines print it, others stay M ops/s of in-kernel time."""
    out, grouped = {}, {}
    for r in runs:
        grouped.setdefault(r.key(), []).append(r)
    for key, group in grouped.items():
        lists = [r.per_producer for r in group if r.per_producer]
        lists = [x for x in lists if len(x) == len(lists[0])]
        if not lists:
            continue
        events = group[0].unit("figure").startswith("events/s")
        scale, unit = (1e6, "events per sec") if events else (1, "M ops/s in-kernel")
        out[key] = (np.mean(lists, axis=0) * scale, len(lists), unit)
    return out


def per_cpu_table(a, b, args):
    """Seed 001's figure per task: for each configuration, a row per CPU (a
    producer pinned to it), before and after and the delta, then the mean."""
    before, after = per_cpu_means(a), per_cpu_means(b) if b else {}
    tables, varying = [], results.varying_params(list(before) + list(after))
    unplaced = []
    for key in sorted(set(after) - set(before), key=lambda k: k.canonical):
        unplaced.append(f"{results.label(key, varying)}: only after")
    for key, (va, na, unit) in sorted(before.items(), key=lambda kv: kv[0].canonical):
        if b and key not in after:
            unplaced.append(f"{results.label(key, varying)}: no run after")
            continue
        if b and len(after[key][0]) != len(va):
            unplaced.append(f"{results.label(key, varying)}: {len(va)} tasks before, "
                            f"{len(after[key][0])} after")
            continue
        digits = 0 if unit == "events per sec" else 2
        vb = after[key][0] if b else None

        def row(label, x, y):
            return [label, f"{x:.{digits}f}"] + \
                ([f"{y:.{digits}f}", f"{(y / x - 1) * 100:+.2f}%"] if b else [])
        rows = [row(str(i), x, vb[i] if b else None) for i, x in enumerate(va)]
        rows.append(row("mean", va.mean(), vb.mean() if b else None))
        runs = f"{na} run{'s' if na > 1 else ''}" + (f" / {after[key][1]}" if b else "")
        heads = ["CPU", "Before", "After", "Delta"] if b else ["CPU", "Per task"]
        tables.append(f"{results.label(key, varying)} ({unit} per task; {runs})\n" +
                      output.render_table(heads, rows, args.format, args.width, left=(0,)))
    if not tables:
        cli.die("no configuration with per-task figures" + (" in both sets" if b else ""))
    return "\n\n".join(tables + [f"note: not shown: {x}" for x in unplaced])


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
    if b:
        cli.die("--style lpm reads one set: report SET --style lpm", cli.EXIT_USAGE)
    parts = lpm_ops_table(a, args)
    sweep = lpm_sweep_table(a, args)
    if sweep:
        parts.append(sweep)
    if not parts:
        cli.die("no lpm-trie-* results in the set")
    return "\n\n".join(parts)


# run_bench_xdp_lb.sh's groups of xdp-lb scenarios, in its order.
XDP_LB_GROUPS = (
    ("Single-flow baseline", ("tcp-v4-lru-hit", "tcp-v4-ch", "tcp-v6-lru-hit", "tcp-v6-ch",
                              "udp-v4-lru-hit", "udp-v6-lru-hit", "tcp-v4v6-lru-hit")),
    ("Diverse flows (4K src addrs)", ("tcp-v4-lru-diverse", "tcp-v4-ch-diverse",
                                      "tcp-v6-lru-diverse", "tcp-v6-ch-diverse",
                                      "udp-v4-lru-diverse")),
    ("TCP flags", ("tcp-v4-syn", "tcp-v4-rst-miss")),
    ("LRU stress", ("tcp-v4-lru-miss", "udp-v4-lru-miss", "tcp-v4-lru-warmup")),
    ("Early exits", ("pass-v4-no-vip", "pass-v6-no-vip", "pass-v4-icmp", "pass-non-ip",
                     "drop-v4-frag", "drop-v4-options", "drop-v6-frag")),
)


def xdp_lb_table(a, b, args):
    """run_bench_xdp_lb.sh's table from one set: per scenario the timing
    library's median, stddev and p99 (ns/op within 1.5 IQR; the median of
    the runs), ERR where the set has no run of it. Text is the script's
    boxes; md and org one table with the group as a column."""
    if b:
        cli.die("--style xdp-lb reads one set: report SET --style xdp-lb", cli.EXIT_USAGE)
    by_name = {}
    for r in a:
        if r.benchmark.startswith("xdp-lb-"):
            by_name.setdefault(r.benchmark.removeprefix("xdp-lb-"), []).append(r)
    if not by_name:
        cli.die("no xdp-lb results in the set (scripts/suite run xdp-lb)")

    def cells(name):
        runs = by_name.get(name, [])
        v = [[r.metrics.get(m) for r in runs if r.metrics.get(m) is not None]
             for m in ("iqr_median", "iqr_stddev", "iqr_p99")]
        return [f"{np.median(x):.2f}" if x else "-" for x in v] if runs else ["ERR", "-", "-"]
    if args.format != "text":
        rows = [[group, name, *cells(name)] for group, names in XDP_LB_GROUPS for name in names]
        return output.render_table(["Group", "Scenario", "p50", "stddev", "p99"], rows,
                                   args.format, left=(0, 1))
    sep = "  +" + "-" * 34 + "+" + "-" * 10 + "+" + "-" * 9 + "+" + "-" * 10 + "+"
    lines = ["XDP load-balancer benchmark", "=" * 27]
    for group, names in XDP_LB_GROUPS:
        lines += [sep, f"  | {group:<32} | {'p50':>8} | {'stddev':>7} | {'p99':>8} |", sep]
        lines += [f"  | {name:<32} | {p50:>8} | {sd:>7} | {p99:>8} |"
                  for name in names for p50, sd, p99 in [cells(name)]]
    lines.append(sep)
    return "\n".join(lines) + "\n(ns/op, in-kernel time of each batch per packet; the median " \
        "of the runs)"


def median_cv(v):
    """"23.60 (CV 1.2%, 5)": a side of the peer table."""
    v = np.asarray(v)
    cv = v.std(ddof=1) / v.mean() * 100 if len(v) > 1 and v.mean() else 0.0
    return f"{np.median(v):.2f} (CV {cv:.1f}%, {len(v)})"


def unit_scale(unit):
    """Operations per second of one unit: "M ops/s" 1e6, "K ops/s" and "k/s" 1e3."""
    return {"M": 1e6, "K": 1e3, "k": 1e3}.get(unit[:1], 1.0)


def peer_table(a, b, args):
    """Each configuration of SET beside the kernel bench's runs of it in
    PEER (same folder names): medians, CVs and mapbench / kernel of
    --metric (the figure, or the timing library's iqr_p99). Both sides
    count every run (the kernel bench's logs carry no boot), and the kernel
    bench's figures are put in mapbench's unit."""
    ours, theirs = results.label_dir(args.before), results.label_dir(args.peer)
    a = results.load_path(args.before, pool_boots=False)
    metric, rows, ratios = args.metric, [], []
    for folder in sorted(p for p in theirs.iterdir() if p.is_dir()):
        logs = sorted(folder.glob("run-*.log"))
        here = [r for r in a if Path(r.source).parent.name == folder.name]
        unit = next((r.unit(metric) for r in here), "")
        kernel = [r.metrics[metric] * unit_scale(r.unit(metric)) / unit_scale(unit)
                  for f in logs
                  for r in kernel_log.parse_kernel_bench(f.read_text(errors="replace"), str(f))[-1:]
                  if metric in r.metrics]
        mine = [r.metrics[metric] for r in here if metric in r.metrics]
        if not kernel:
            why = (logs[-1].read_text(errors="replace").strip().splitlines() or ["no output"])[-1] \
                if logs else "no run"
            rows.append([folder.name, f"did not run: {why[:70]}", median_cv(mine) if mine else "-",
                         "-", unit])
            continue
        if not mine:
            continue
        ratio = np.median(mine) / np.median(kernel)
        ratios.append(ratio)
        rows.append([folder.name, median_cv(kernel), median_cv(mine), f"{ratio:.2f}", unit])
    if not rows:
        cli.die(f"{theirs}: no kernel bench runs of {ours}'s configurations")
    table = output.render_table(["Configuration", "kernel bench (median)", "mapbench (median)",
                                 "mapbench / kernel", "Unit"], rows, args.format, args.width,
                                left=(0, 1, 4))
    if ratios:
        table += (f"\nOn this machine mapbench and the kernel's bench agree within "
                  f"{max(abs(r - 1) for r in ratios) * 100:.0f}% ({len(ratios)} configurations; "
                  f"ratios {min(ratios):.2f}-{max(ratios):.2f}).")
    if any(taking_turns(r) for r in a):
        table += ("\nnote: runs with several producers in a TCG guest of several vCPUs: the "
                  "vCPUs take turns on one host thread and share one clock, so each producer's "
                  "time counts the others' instructions while they overlap. mapbench's producers "
                  "start together and keep step; map_perf_test forks its tasks one after "
                  "another and they overlap by chance (its spread shows it). Such figures "
                  "measure the turns, not the kernel: compare one producer, or hardware.")
    return table


def taking_turns(run):
    """A run whose producers shared a TCG guest's one host thread."""
    vm = run.env.get("vm") or {}
    return vm.get("accelerator") == "tcg" and vm.get("vcpus", 1) > 1 and \
        run.params.get("producers", 1) > 1


def main(argv=None):
    ap = cli.ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", help="result file or folder")
    ap.add_argument("after", nargs="?", help="result file or folder")
    ap.add_argument("--style", choices=["delta", "memory", "matrix", "rhtab", "calibration",
                                        "per-cpu", "lpm", "xdp-lb"],
                    default="delta", help="calibration: a set run with vmrun --model --suite "
                    "cache-model against the seeds' hardware figures (docs/vm.org)")
    ap.add_argument("--format", choices=["text", "md", "org"], default="text")
    ap.add_argument("--width", type=int, help="fit the table in this many columns (e.g. 72)")
    ap.add_argument("--metric", choices=sorted(model.METRICS),
                    help="default: the policy's (figure, each benchmark's own)")
    ap.add_argument("--policy", help="the gate's policy file, for the verdicts (and its metric)")
    ap.add_argument("--unit", choices=["kops", "mops"], default="kops",
                    help="with --metric throughput: K ops/s or M ops/s")
    ap.add_argument("--by", help="matrix: PARAM=A,B, e.g. map=htab,rhtab")
    ap.add_argument("--peer", help="the kernel bench's runs of SET's configurations "
                                   "(suite run --peer kernel: SET-kernel)")
    ap.add_argument("--json", action="store_true",
                    help="the delta table as one JSON document (the fields of compare --json)")
    args = ap.parse_args(argv)
    args.policy = verdict.override(verdict.load_policy(args.policy), metric=args.metric)
    args.metric = args.policy["default"]["metric"]
    if args.style == "calibration":
        print(calibration.report(args.before))
        return 0
    a = cli.need_runs(results.load_path(args.before), args.before)
    b = cli.need_runs(results.load_path(args.after), args.after) if args.after else None
    if args.json:
        if not b or args.style != "delta":
            cli.die("--json is for the delta table: report BEFORE AFTER --json", cli.EXIT_USAGE)
        output.print_json(delta_json(a, b, args), tool="report")
        return 0
    if args.peer:
        if b:
            cli.die("--peer sets one set beside the kernel bench's: report SET --peer SET-kernel",
                    cli.EXIT_USAGE)
        table = peer_table
    elif args.style == "delta" and not b:
        table = summary_table
    else:
        table = {"delta": delta_table, "memory": memory_table, "matrix": matrix_table,
                 "rhtab": rhtab_table, "per-cpu": per_cpu_table,
                 "lpm": lpm_table, "xdp-lb": xdp_lb_table}[args.style]
    print(header(a, b or [], args.metric))
    print()
    print(table(a, b, args))
    if b and (located := where.table(a, b, args.format)):
        print()
        print(located)
    output.report_skipped(a, *([b] if b else []))
    return 0
