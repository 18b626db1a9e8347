"""suite run and suite sweep: a suite's runs, interleaved, one result file
per run under results/LABEL/, resumable; the kernel's bench beside them
with --peer kernel."""
import json
import os
import signal
import subprocess  # processes of their own: ./bench (C), the measured process
import time
from pathlib import Path

from ... import cli, model, output, results
from ...suites import configurations, sweep_suite, fmt_time, load_suite, plan, run_file
from ...peer import Peer, figure_text as peer_figure_text
from ...paths import ROOT

BENCH = ROOT / "bench"
FINISHED = ("complete", "unsupported", "failed")
SETUP_S = 1.5        # a run's set-up and teardown, for estimates before any run


def bench_argv(argv, label, rnd, path, warmup, duration, bench=BENCH):
    return [str(bench), "-q", "-w", str(warmup), "-d", str(duration), "--label", label,
            "--round", str(rnd), "--json", str(path)] + argv


def dry_run_error(argv, bench=BENCH):
    """What ./bench --dry-run says is wrong with argv (one line), or None."""
    proc = subprocess.run([str(bench), "--dry-run"] + argv, capture_output=True, text=True)
    return proc.stderr.strip() if proc.returncode else None


class Interrupted(Exception):
    pass


def bench_revision():
    out = subprocess.run([str(BENCH), "--version"], capture_output=True, text=True).stdout
    return out.split()[-1] if out.startswith("mapbench ") else "unknown"


def settings_of(suite, warmup, duration):
    """What a folder's runs were made with: resuming needs all of it the same."""
    return {"suite": suite["name"], "warmup": warmup, "duration": duration,
            "configs": {cid: argv for cid, argv in configurations(suite)},
            "mapbench_revision": bench_revision(), "kernel": os.uname().release}


def settings_difference(old, new):
    """The first setting that differs, in words, or None."""
    for key in ("suite", "warmup", "duration", "mapbench_revision", "kernel"):
        if old.get(key) != new[key]:
            return f"{key} {old.get(key)!r}, not {new[key]!r}"
    for cid, argv in new["configs"].items():
        if old.get("configs", {}).get(cid, argv) != argv:
            return f"configuration {cid} ./bench {' '.join(old['configs'][cid])}"
    return None


def prepare_folder(label_dir, settings, fresh):
    """Make or check label_dir for these settings; --fresh empties it first."""
    manifest = label_dir / "SUITE"
    if fresh and label_dir.exists():
        for f in sorted(label_dir.rglob("*"), reverse=True):
            if f.is_file() and (f.suffix == ".json" or f == manifest):
                f.unlink()
            elif f.is_dir() and not any(f.iterdir()):
                f.rmdir()
    if manifest.exists():
        try:
            old = json.loads(manifest.read_text())
        except json.JSONDecodeError:
            old = {"suite": (manifest.read_text().split() or [None])[0]}  # before settings
        diff = settings_difference(old, settings)
        if diff:
            cli.die(f"{label_dir} holds runs made with {diff}: choose another --label, or give "
                    "--fresh to discard them", cli.EXIT_USAGE)
    elif label_dir.exists() and any(label_dir.rglob("*.json")):
        cli.die(f"{label_dir} holds results that no suite run made: choose another --label",
                cli.EXIT_USAGE)
    label_dir.mkdir(parents=True, exist_ok=True)
    manifest.write_text(json.dumps(settings, indent=1, sort_keys=True) + "\n")


def cmd_sweep(args):
    extra = args.bench_args
    try:
        suite = sweep_suite(args.bench, args.param, extra, args.runs or 1,
                            1 if args.warmup is None else args.warmup,
                            2 if args.duration is None else args.duration)
    except model.InputError as e:
        cli.die(str(e), cli.EXIT_USAGE)
    for cid, argv in configurations(suite):
        if (error := dry_run_error(argv)):
            cli.die(f"{cid}: {error}", cli.EXIT_USAGE)
    return cmd_run(args, suite)


def cmd_run(args, suite=None):
    suite = suite or load_suite(args.suite)
    if not BENCH.exists():
        cli.die("./bench is not built: run make first", cli.EXIT_TOOL)
    label_dir = results.label_dir(args.label)
    label = label_dir.name
    warmup = suite["warmup"] if args.warmup is None else args.warmup
    duration = suite["duration"] if args.duration is None else args.duration
    prepare_folder(label_dir, settings_of(suite, warmup, duration), args.fresh)
    runs = args.runs or suite["runs"]
    todo = plan(configurations(suite), runs, args.order, args.seed)
    done = [t for t in todo if results.status_of(run_file(label_dir, t[1], t[0])) in FINISHED]
    if done:
        print(f"Resuming {label_dir}: {len(done)} of {len(todo)} runs already finished, kept")
    left = [t for t in todo if t not in done]
    peer = Peer(args.kernel_src) if args.peer else None
    for line in peer.refusals if peer else ():
        print(f"--peer kernel: {line}")
    peer_dir = label_dir.with_name(label + "-kernel")
    start, took, failed = time.monotonic(), [], 0
    width = len(str(len(todo)))
    finished = len(done)
    try:
        for i, (r, cid, argv) in enumerate(left):
            path = run_file(label_dir, cid, r)
            print(f"[{len(done) + i + 1:{width}}/{len(todo)}] round {r + 1}/{runs} {cid}:", end="",
                  flush=True)
            t0 = time.monotonic()
            rc, err = run_once(argv, path, label, r + 1, warmup, duration)
            finished += 1
            took.append(time.monotonic() - t0)
            failed += rc not in (0, 2)
            peer_text = ""
            if peer and peer.has(argv):
                peer_text = "; " + run_peer(peer, argv, peer_dir / cid / f"run-{r + 1}.log",
                                            warmup, duration)
            eta = sum(took) / len(took) * (len(left) - i - 1)
            print(f" {results.file_figure_text(path)}{peer_text} (elapsed "
                  f"{fmt_time(time.monotonic() - start)}, ETA {fmt_time(eta)})", flush=True)
            if rc not in (0, 2) and err.strip():
                print(f"    {err.strip().splitlines()[-1]}")
    except (Interrupted, KeyboardInterrupt):
        # wherever Ctrl-C lands: in a run, starting one, in the peer's, printing
        print(" interrupted")
        raise Interrupted(f"{finished} of {len(todo)} runs finished; run the same command "
                          "again to resume") from None
    finish(label_dir, suite)
    return 1 if failed else 0


def run_peer(peer, argv, path, warmup, duration):
    """The kernel's bench with the run's arguments; its output in path (.log).
    Returns the figure text for the progress line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    proc = peer.run(argv, warmup, duration)
    tmp = path.with_name(path.name + ".tmp.log")
    tmp.write_text(proc.stdout + proc.stderr)
    tmp.replace(path)
    text = peer_figure_text(proc.stdout, str(path))
    if proc.returncode or not text:
        last = (proc.stderr.strip() or proc.stdout.strip() or "no output").splitlines()[-1]
        return f"kernel bench: exit {proc.returncode} ({last[:100]})"
    return text


def run_once(argv, path, label, rnd, warmup, duration, bench=BENCH):
    """One ./bench run, round rnd of its set, into path (its folder made
    first: ./bench makes folders only inside results/); Interrupted on
    Ctrl-C (after the bench has written what it had)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    proc = None
    # SIGINT held while the bench starts: a Ctrl-C then comes once Popen has
    # returned it, to be stopped, not left running in its own session
    # (./bench unblocks SIGINT for itself)
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        try:
            proc = subprocess.Popen(bench_argv(argv, label, rnd, path, warmup, duration, bench),
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    text=True, start_new_session=True)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        _, err = proc.communicate()
    except KeyboardInterrupt:
        # no proc: Ctrl-C came before the bench existed, nothing to stop
        if proc:
            os.killpg(proc.pid, signal.SIGINT)
            proc.communicate()
        raise Interrupted(f"stopped during {path}") from None
    return proc.returncode, err


def finish(label_dir, suite):
    runs = results.load_path(label_dir)
    print(f"\nResults: {label_dir}/ ({len(runs)} runs measured, {len(runs.skipped)} left out)")
    if runs:
        metric = "bytes_per_element" if suite["name"] == "mem" else "figure"
        print(output.summary_table(runs, metric))
    output.report_skipped(runs)
    rel = os.path.relpath(label_dir) if label_dir.is_relative_to(Path.cwd()) else str(label_dir)
    print("\nNext: the same suite on the other kernel with another --label, then\n"
          f"  scripts/report results/BEFORE {rel}     # the cover-letter table\n"
          f"  scripts/plot {rel} --kind summary       # plots/{label_dir.name}-summary-*.png\n"
          f"  scripts/gate results/BEFORE {rel}       # the CI verdict")
