"""Before/after for a kernel patch in one command: build the kernel without
and with the patch, boot the two alternately under QEMU, run the same
benchmarks in each, then print the compare table, write the cover-letter
report and let the gate judge.

  ab --src ~/linux --patch my.patch --suite htab-mem --boots 5
  ab --src /usr/src/linux-source-6.12.tar.xz --patch fix.patch -- htab-lookup --max-entries 1K
  ab --src ~/linux -- htab-lookup         (no --patch: A/A, two builds of one tree)
  ab --src linux-source-6.12 --series DIR -- htab-lookup   (per-patch attribution)

Under TCG the guests' clock is QEMU's instruction counter (--clock icount, the
default there): each figure is then instructions, not time, and runs of one
kernel agree within about 0.1%, so 2 boots a side see a 1% change; cache and
memory effects do not show (--clock host for a memory-saving patch's speed).

--series DIR (the patches DIR/*.patch in name order, as git format-patch
writes them) or --per-patch (the --patch files in order) builds base,
base+1, base+1+2, ... each from the one before (kbuild --from: seconds per
step), boots them all in turn and prints the per-patch table: each patch's
delta against the kernel before it, with the gate's verdict, and the
series' total (results/LABEL/series.txt). A patch that makes things worse
inside a series that is better overall is what a reviewer asks about.

Steps, each a script you can also run alone:
  1. scripts/kbuild --src SRC --out build/kernel/SRCNAME/before (kept for the next ab;
     kbuild starts it from any unpatched build of SRC's tree under build/, and says so)
  2. scripts/kbuild --src SRC --out build/kernel/SRCNAME/LABEL --from .../before --patch P...
     (--from: the same .config, and only what the patch touches is rebuilt;
     a series: one build per step, LABEL-1, LABEL-2, ...)
  3. scripts/vmrun --kernel before --kernel after --boots N ... (boots alternate;
     under icount up to -j guests at once, the same figures as one at a time);
     with --until-mde PCT, one boot of each kernel at a time until every
     benchmark's change is confirmed or its MDE is below PCT (at most
     --boots), alpha spent over the looks so that stopping early does not
     raise false alarms (scripts/suite ab does the same on one kernel)
  4. scripts/compare, scripts/report (saved as results/LABEL/report.txt),
     scripts/gate results/LABEL/before results/LABEL/after (a series: also
     scripts/gate --json on each step and the one before it)

Exit status: the gate's (0 pass, 1 regression, 2 inconclusive), or the first
failing step's (kbuild or vmrun: 1 failed, 2 bad input), 3 tool error,
64 usage error, 130 interrupted.
"""
import argparse
import contextlib
import io
import re
import shlex
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import cli, model, output, results, stats, verdict
from ..guest import options
from ..lab import engine as lab_engine
from ..model import InputError
from ..styles import STYLES
from . import gate as gate_command, vmrun as vmrun_command
from ..suites import fmt_time
from ..paths import RESULTS, ROOT, SCRIPTS


def step(title, command, argv, printed=None):
    """One of our tools in this process, its command line shown as
    scripts/COMMAND's; its exit status, for the caller to act on. With
    printed (a StringIO), what the tool prints goes there instead."""
    argv = [str(a) for a in argv]
    print(f"\n== {title}\n$ {shlex.join([str(SCRIPTS / cli.script_name(command)), *argv])}",
          flush=True)
    with contextlib.redirect_stdout(printed) if printed else contextlib.nullcontext():
        return cli.call(command, argv)


def vmrun_argv(args, kernels, sets, boots):
    """vmrun's arguments for these kernels' boots: the guest options as ab was given them."""
    argv = [*[x for k in kernels for x in ("--kernel", k)],
            *[x for s in sets for x in ("--label", s)], "--boots", boots, *options.passed_on(args)]
    return [str(a) for a in argv] + (["--suite", args.suite] if args.suite
                                     else [x for b in args.bench for x in ("--bench", b)])


def boot_guests(title, argv):
    """vmrun in this process, its command line shown: its exit status."""
    print(f"\n== {title}\n$ scripts/vmrun {shlex.join(options.shown(argv))}", flush=True)
    try:
        return vmrun_command.main(argv)
    except SystemExit as e:      # vmrun's usage errors
        return e.code


# The cache model's headline metric, judged beside the clock's with --model.
MODELLED = "model_cycles"


def series_table(sets, names, policy, metrics=(None,)):
    """The per-patch table: each step against the one before it, and the total,
    judged by the gate's engine on each metric (None: the policy's); the
    rows and whether a step regressed."""
    steps = [(f"{i}. {names[i - 1]}", sets[i - 1], sets[i]) for i in range(1, len(sets))]
    steps.append((f"series ({len(names)} patches)", sets[0], sets[-1]))
    rows, regressed = [], []
    for (title, a, b), metric in ((s, m) for s in steps for m in metrics):
        try:
            *_, judged = gate_command.judge_sets(
                a, b, verdict.override(verdict.load_policy(policy), metric=metric))
        except InputError as e:
            rows.append([title, "-", "-", "-", "-", f"error: gate: {e}"[:87]])
            continue
        keys = [c.key for c in judged.rows]
        varying = {name: results.varying_params([k for k in keys if k.benchmark == name])
                   for name in {k.benchmark for k in keys}}
        for c in judged.rows:
            bench = results.label(c.key, varying[c.key.benchmark])
            before, after = (output.finite(np.mean(v)) if len(v) else None for v in (c.a, c.b))
            rows.append([title, bench, f"{output.fmt_num(before)} -> "
                         f"{output.fmt_num(after)} {c.unit}",
                         output.fmt_pct(c.delta_pct), output.fmt_pct(c.mde, 2, sign=False),
                         c.result])
            if c.verdict == verdict.REGRESSION and not title.startswith("series"):
                regressed.append(f"{title} ({bench}, {c.delta_pct:+.2f}%)")
    table = output.render_table(["Patch", "Benchmark", "Before -> after", "Delta", "MDE",
                                 "Verdict (against the kernel before it)"], rows, left=(0, 1, 5))
    return table, regressed


# The gate's exits, the worst last: pass, inconclusive, regression; any
# other (a tool or usage error) is worse than all.
GATE_ORDER = (cli.EXIT_PASS, cli.EXIT_INCONCLUSIVE, cli.EXIT_REGRESSION)


def worse(a, b):
    """The worse of two gate exit statuses."""
    rank = {s: i for i, s in enumerate(GATE_ORDER)}
    return max(a, b, key=lambda s: rank.get(s, len(GATE_ORDER)))


def boot_until_mde(args, run, pair):
    """Boot both kernels once per round (run: vmrun with --boots 1) and look
    after each round from --min-boots on, judging as the gate does (its
    policy and the clock's test) until every benchmark is decided. Returns
    vmrun's status if a round fails, else 0."""
    looks = args.boots - args.min_boots + 1
    policy = verdict.load_policy(args.policy)
    metric = args.metric or policy["default"]["metric"]
    for r in range(1, args.boots + 1):
        status = boot_guests(f"round {r}/{args.boots}: one boot of each kernel", run)
        if status:
            return status
        if r < args.min_boots:
            continue
        runs = [results.load_path(p) for p in pair]
        verdict.apply_clock_defaults(policy, model.clock_of_runs(*runs))
        a, b = (results.groups(r, metric) for r in runs)
        pending = []
        for key in sorted(set(a) & set(b)):
            first = next(x for x in runs[0] if x.key() == key)
            rules = dict(verdict.rules_for(policy, key.benchmark), metric=metric,
                         threshold_pct=args.until_mde)
            rules.update(alpha=rules["alpha"] / len(a), **({"test": "paired"} if args.paired else {}))
            va, vb = stats.paired(*runs, metric, key) if args.paired else (a[key], b[key])
            c = verdict.look(va, vb, rules, looks, first.direction(metric),
                             first.unit(metric))
            print(f"ab: {results.label(key, set())}: {len(a[key])} boots a side, delta "
                  f"{c.delta_pct:+.2f}%, p {c.p:.4f}, MDE {c.mde:.2g}%: {c.result}", flush=True)
            pending += [key] if c.verdict == verdict.INCONCLUSIVE else []
        if not pending:
            print(f"ab: every benchmark decided after {r} boots a side")
            return 0
    print(f"ab: {len(pending)} benchmarks still undecided after {args.boots} boots a side "
          f"(MDE above {args.until_mde:g}%); the gate will say so")
    return 0


def cover_letter(pair, policy):
    """report --style cover-letter of the pair, where the sets hold runs of
    suite htab-elem's benchmarks (None where they hold none)."""
    a, b = (results.load_path(p) for p in pair)
    try:
        return STYLES["cover-letter"].table(a, b, argparse.Namespace(
            format="text", policy=verdict.load_policy(policy)))
    except InputError:
        return None


def default_label(patches, series=None):
    if not patches:
        return "ab-aa-" + time.strftime("%Y%m%d-%H%M%S")
    name = series.resolve().name if series else patches[0].stem
    return ("ab-series-" if series else "ab-") + re.sub(r"[^A-Za-z0-9_.+-]+", "_", name)


def parse_args(argv):
    """ab's options, checked before anything is built: (args, the label's
    folder of results, a series?)."""
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True, type=Path,
                    help="kernel tree, source tarball or Debian package (linux-source-6.12)")
    ap.add_argument("--patch", action="append", default=[], type=Path,
                    help="the change under test (repeatable); none: A/A")
    ap.add_argument("--series", type=Path, metavar="DIR",
                    help="a patch series (DIR/*.patch in order): one kernel per step")
    ap.add_argument("--per-patch", action="store_true",
                    help="the --patch files are a series: one kernel per step")
    ap.add_argument("--label", help="results/LABEL/{before,after} (default ab-PATCHNAME)")
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--suite", help="a suite of suites/")
    what.add_argument("--bench", action="append", default=[],
                      help="./bench arguments, one string (repeatable)")
    options.add(ap, boots=5)
    ap.add_argument("--until-mde", type=float, metavar="PCT",
                    help="add boots until each change is confirmed or the MDE is below PCT")
    ap.add_argument("--min-boots", type=int, default=3, help="boots a side before the first look")
    ap.add_argument("--paired", action="store_true",
                    help="--until-mde looks pair the rounds' boots (paired t on their ratios)")
    ap.add_argument("--metric", choices=sorted(model.METRICS),
                    help="what --until-mde watches (default: the policy's, figure, as the gate)")
    ap.add_argument("--policy", type=Path, help="the gate's policy file")
    ap.add_argument("bench_args", nargs=argparse.REMAINDER, help="after --: one ./bench command line")
    args = ap.parse_args(argv)
    if args.bench_args[:1] == ["--"]:
        args.bench_args = args.bench_args[1:]
    if args.bench_args:
        args.bench.append(shlex.join(args.bench_args))
    if not args.suite and not args.bench:
        ap.error("nothing to run: give --suite NAME, --bench \"ARGS\" or -- ARGS")
    if args.until_mde is not None and not 2 <= args.min_boots <= args.boots:
        ap.error("--until-mde needs 2 <= --min-boots <= --boots (the most boots a side)")
    if args.series:
        if args.patch:
            ap.error("give --series DIR or --patch files, not both")
        if not args.series.is_dir():
            cli.die(f"--series {args.series}: not a folder of patches", cli.EXIT_INPUT)
        args.patch = sorted(args.series.glob("*.patch"))
        if not args.patch:
            cli.die(f"--series {args.series}: no *.patch files in it", cli.EXIT_INPUT)
    series = bool(args.series or args.per_patch)
    if series and args.until_mde is not None:
        ap.error("--until-mde looks at one pair of kernels; a series boots --boots of each")
    if series and len(args.patch) < 2:
        ap.error("a series needs at least two patches")
    for p in args.patch + ([args.policy] if args.policy else []):
        if not p.is_file():
            cli.die(f"{p}: no such file", 2)
    label = args.label or default_label(args.patch, args.series)
    set_dir = RESULTS / label
    if set_dir.exists() and any(set_dir.iterdir()):
        cli.die(f"{set_dir} is not empty: choose another --label", cli.EXIT_USAGE)
    vmrun_command.check_model_options(ap, args)
    vmrun_command.check_lab_options(ap, args)
    if args.engine == "lava":       # before any build: a lab that cannot take the jobs says so
        lab_engine.preflight(args)
    return args, set_dir, series


@dataclass
class Kernel:
    """One kernel of the comparison: its build folder, its result set and
    the patches applied to the tree (base: none)."""
    build: Path
    results: Path
    patches: list


def planned_kernels(args, set_dir, series):
    """The kernels to build and boot, base first: one "before" build per
    source, reused (a no-op rebuild) by later ab runs, then the patched
    one, or one per step of a series."""
    kernels = ROOT / "build" / "kernel" / re.sub(r"\.tar(\.\w+)?$", "", args.src.resolve().name)
    label = set_dir.name
    planned = [Kernel(kernels / "before", set_dir / "before", [])]
    if series:
        planned += [Kernel(kernels / f"{label}-{i}", set_dir / f"{i}-{p.stem}", args.patch[:i])
                    for i, p in enumerate(args.patch, 1)]
    else:
        planned.append(Kernel(kernels / label, set_dir / "after", args.patch))
    return planned


def build_kernels(args, planned, series):
    """kbuild each kernel from the one before it: 0, or the first failure's status."""
    for i, k in enumerate(planned):
        argv = ["--src", args.src, "--out", k.build]
        if i:
            argv += ["--from", planned[i - 1].build, *[x for p in k.patches for x in ("--patch", p)]]
        title = "build the kernel before" if not i else \
            f"build step {i}: + {k.patches[-1].name}" if series else "build the kernel after"
        status = step(title, "kbuild", argv)
        if status:
            return status
    return 0


def boot_kernels(args, planned):
    """Every kernel's boots, in turn (or round by round to --until-mde): vmrun's status."""
    images = [k.build / "bzImage" for k in planned]
    sets = [k.results for k in planned]
    if args.until_mde is None:
        return boot_guests(f"{args.boots} boots of each kernel, in turn",
                           vmrun_argv(args, images, sets, args.boots))
    return boot_until_mde(args, vmrun_argv(args, images, sets, 1), [sets[0], sets[-1]])


def write_reports(args, planned, set_dir, series):
    """compare, report, the per-patch table and the cover letter, each
    printed and the last three saved in the label's folder."""
    shown = set_dir.relative_to(ROOT)
    sets = [k.results for k in planned]
    pair = [sets[0], sets[-1]]
    step("compare", "compare", pair)
    step("report (cover-letter table)", "report", pair, printed=(report := io.StringIO()))
    (set_dir / "report.txt").write_text(report.getvalue())
    print(report.getvalue(), end="")
    text = ""
    if series:
        table, regressed = series_table(sets, [p.name for p in args.patch], args.policy,
                                        (None, MODELLED) if args.model != "none" else (None,))
        text = table + "\n" + (f"Regressed within the series: {'; '.join(regressed)}\n"
                               if regressed else "No step of the series regressed.\n")
        (set_dir / "series.txt").write_text(text)
        print(f"\n== per-patch table ({shown}/series.txt)\n{text}", end="")
    if (letter := cover_letter(pair, args.policy)):
        letter += f"\n\nPer patch, each against the kernel before it:\n{text}" if text else "\n"
        (set_dir / "cover-letter.txt").write_text(letter)
        print(f"\n== cover letter ({shown}/cover-letter.txt)\n{letter}", end="")


def gate_pair(args, pair):
    """The gate on the pair (and on modelled cycles with --model): ab's exit
    status and the words for its last line."""
    policy = ["--policy", args.policy] if args.policy else []
    status = step("gate", "gate", [*pair, *policy])
    said = f"{cli.GATE_WORDS.get(status, 'error')} (gate exit {status})"
    if args.model != "none":
        modelled = step(f"gate on modelled cycles ({args.model} model)", "gate",
                        [*pair, *policy, "--metric", MODELLED])
        said += f"; modelled cycles: {cli.GATE_WORDS.get(modelled, 'error')} (exit {modelled})"
        if options.layouts_sampled(args):
            status = worse(status, modelled)
        else:
            said += (" (not in ab's exit: boots that repeat make a layout shift between two "
                     "builds read as certain; --sample-layouts, docs/vm.org)")
    return status, said


def main(argv=None):
    args, set_dir, series = parse_args(argv)
    start = time.monotonic()
    if not args.patch:
        print("No --patch: an A/A run (two builds of the same tree); the gate should pass.")
    planned = planned_kernels(args, set_dir, series)
    status = build_kernels(args, planned, series) or boot_kernels(args, planned)
    if status:
        return status
    write_reports(args, planned, set_dir, series)
    status, said = gate_pair(args, [planned[0].results, planned[-1].results])
    print(f"\nab: {said} after {fmt_time(time.monotonic() - start)}; "
          f"results in {set_dir.relative_to(ROOT)}/, report in "
          f"{(set_dir / 'report.txt').relative_to(ROOT)}")
    return status
