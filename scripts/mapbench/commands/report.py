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

from .. import cli, kernel_log, model, output, results, verdict, where
from ..cachemodel import calibration
from ..styles import STYLES, tables


def header(a, b, metric):
    lines = []
    for name, runs in ((" before" if b else "", a), (" after", b)):
        kernels = sorted({f"{r.env.get('kernel_release', '?')}" for r in runs if r.env})
        if kernels:
            lines.append(f"Kernel{name}: {', '.join(kernels)}")
    cpus = sorted({r.env.get("cpu_model", "?") for r in a + (b or []) if r.env})
    if cpus:
        lines.append(f"CPU: {', '.join(cpus)}")
    vms = sorted({f"QEMU {v.get('qemu_version', '?')} {str(v.get('accelerator', '?')).upper()}, "
                  f"{v.get('vcpus', '?')} vCPU, {v.get('memory_mib', '?')} MiB" +
                  (f", cache model {model.model_of(r.env)}" if v.get("model") else "")
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
    said = {name: runs_text(runs) for name, runs in (("before", a), ("after", b)) if runs}
    texts = set(said.values())
    lines.append("Runs: " + (texts.pop() if len(texts) == 1 else
                             "; ".join(f"{name}: {text}" for name, text in said.items())))
    return "\n".join(lines)


def runs_text(runs):
    """"6 per configuration x 3 s measured, in 2 boots (...)" of one set."""
    durs = [r.duration / r.runs for r in runs if r.duration == r.duration]
    samples, total = per_configuration(runs)
    return (f"{total} per configuration" + (f" x {np.median(durs):.0f} s measured" if durs else "")
            + (f", in {samples} boots (a boot's runs pooled into one sample)"
               if total != samples else ""))


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
    ap.add_argument("--style", choices=[*STYLES, "calibration"], default="delta",
                    help="the tables above; calibration: a set run with vmrun --model --suite "
                    "cache-model against the seeds' hardware figures (docs/vm.org), and with "
                    "a second set (the machine with a mechanism off, e.g. zen4:no-tlb) an "
                    "ablation table")
    ap.add_argument("--ablation", action="append", default=[], metavar="SET",
                    help="calibration: one more set on the machine with other mechanisms off "
                         "(e.g. zen4:no-prefetch), a column of the ablation table each")
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
        print(calibration.report(args.before, ([args.after] if args.after else [])
                                 + args.ablation))
        return 0
    if args.ablation:
        cli.die("--ablation adds sets to --style calibration's table", cli.EXIT_USAGE)
    a = cli.need_runs(results.load_path(args.before), args.before)
    b = cli.need_runs(results.load_path(args.after), args.after) if args.after else None
    if args.json:
        if not b or args.style != "delta":
            cli.die("--json is for the delta table: report BEFORE AFTER --json", cli.EXIT_USAGE)
        judged = tables.delta_comparisons(a, b, args)
        output.print_json(output.judgement_json(judged, args.policy), tool="report")
        return 0
    style = STYLES[args.style]
    sets = 2 if b else 1
    if args.peer:
        if b:
            cli.die("--peer sets one set beside the kernel bench's: report SET --peer SET-kernel",
                    cli.EXIT_USAGE)
        table = peer_table
    elif sets not in style.sets:
        cli.die(f"--style {style.name} reads {'one set' if sets == 2 else 'two sets'}: report "
                f"{'SET' if sets == 2 else 'BEFORE AFTER'} --style {style.name}", cli.EXIT_USAGE)
    elif style is tables.DELTA and not b:
        table = tables.summary_table
    else:
        table = style.table
    print(header(a, b or [], args.metric))
    print()
    print(table(a, b, args))
    spread = [line for side, runs in (("before", a), ("after", b)) if runs
              for line in output.layout_spread(runs, args.metric, side if b else "")]
    if spread:
        print()
        print("\n".join(spread))
    if b and (located := where.table(a, b, args.format)):
        print()
        print(located)
    output.report_skipped(a, *([b] if b else []))
    return 0
