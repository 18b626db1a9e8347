"""scripts/suite: suite files, interleaving, and a live run that is
interrupted and resumed."""
import json
import shutil
import signal
import subprocess
import time

import pytest

from conftest import ROOT, sigint_default

from mapbench import model, results, suites
from mapbench.commands import suite as suite_command
from mapbench.commands.suite import runs as suite_runs

SUITE = ROOT / "scripts" / "suite"


def script(*args, **kw):
    return subprocess.run(["/usr/bin/python3", str(SUITE), *map(str, args)],
                          capture_output=True, text=True, timeout=600, **kw)


def test_each_expands_to_every_combination():
    s = suites
    suite = {"configs": [{"id": "x", "args": ["htab-lookup", "-p", "{cpus}"],
                          "each": {"--map": ["htab", "lru"], "-p": ["1..{cpus_even}/2"],
                                   "": ["-a"]}}]}
    got = s.configurations(suite, {"cpus": "3", "cpus_even": "4"})
    assert [c[0] for c in got] == ["x,map=htab,p=1,-a", "x,map=htab,p=3,-a",
                                   "x,map=lru,p=1,-a", "x,map=lru,p=3,-a"]
    assert got[1][1] == ["htab-lookup", "-p", "3", "--map", "htab", "-p", "3", "-a"]


def test_runs_interleave_round_robin_or_shuffled_per_round():
    s = suites
    configs = [(c, [c]) for c in "abcd"]
    rr = s.plan(configs, 3)
    assert [c for _, c, _ in rr] == list("abcd") * 3
    assert [r for r, _, _ in rr] == [0] * 4 + [1] * 4 + [2] * 4
    rnd = s.plan(configs, 3, "random", seed=7)
    rounds = [[c for r, c, _ in rnd if r == k] for k in range(3)]
    assert all(sorted(x) == list("abcd") for x in rounds)
    assert rounds != [list("abcd")] * 3
    assert s.plan(configs, 3, "random", seed=7) == rnd


def test_every_suite_file_is_valid_for_bench():
    proc = script("check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    names = {p.stem for p in (ROOT / "suites").glob("*.json")}
    assert names >= {"htab-mem", "rhtab-vs-htab", "lpm", "mem", "scaling", "quick"}
    for name in names:
        assert f"{name}: " in proc.stdout and "configurations checked" in proc.stdout


def test_the_docs_list_every_suite():
    """docs/suites.org's table names each suites/*.json, and no other."""
    table = (ROOT / "docs" / "suites.org").read_text().split("| suite ", 1)[1].split("\n\n")[0]
    listed = {row.split("|")[1].strip() for row in table.splitlines()[2:] if row.startswith("|")}
    assert listed - {""} == {p.stem for p in (ROOT / "suites").glob("*.json")}


def test_show_and_list():
    proc = script("show", "htab-mem")
    assert proc.returncode == 0
    assert "6 configurations x 10 runs = 60 runs" in proc.stdout
    assert "prealloc,use-case=overwrite" in proc.stdout
    assert "quick" in script("list").stdout
    bad = script("show", "nope")
    assert bad.returncode == 64 and "no suite 'nope'" in bad.stderr


def complete_runs(label_dir):
    out = {}
    for f in label_dir.rglob("run-*.json"):
        doc = json.loads(f.read_text())
        out[f] = (doc["status"], f.stat().st_mtime_ns)
    return out


def test_quick_suite_interrupted_and_resumed(root, tmp_path):
    label = tmp_path / "quick"
    args = ["run", "quick", "--label", label, "--runs", "2", "--warmup", "0", "--duration", "1"]
    total = len(suites.configurations(suites.load_suite("quick"))) * 2
    proc = subprocess.Popen(["/usr/bin/python3", str(SUITE), *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=sigint_default)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if sum(s == "complete" for s, _ in complete_runs(label).values()) >= 3:
            break
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert "run the same command again to resume" in out
    first = {f: v for f, v in complete_runs(label).items() if v[0] == "complete"}
    assert 3 <= len(first) < total
    resumed = script(*args)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"{len(first)} of {total} runs already finished, kept" in resumed.stdout
    final = complete_runs(label)
    assert len(final) == total and all(s == "complete" for s, _ in final.values())
    assert all(final[f] == v for f, v in first.items())      # no finished run done twice
    # each run says its round, which the paired test matches on
    assert all(json.loads(f.read_text())["environment"]["round"] == int(f.stem.split("-")[1])
               for f in final)
    # progress lines: done/total, elapsed and ETA; then the summary and what to do next
    assert f"[{total}/{total}]" in resumed.stdout and "ETA" in resumed.stdout
    assert "per-prod-op" in resumed.stdout and "scripts/report results/BEFORE" in resumed.stdout
    report = subprocess.run(["/usr/bin/python3", ROOT / "scripts" / "report", label],
                            capture_output=True, text=True)
    assert report.returncode == 0 and "Mean ± sd (figure)" in report.stdout
    assert resumed.stdout.count("Mean ± sd (figure)") == 1      # one table
    plot = subprocess.run(["/usr/bin/python3", ROOT / "scripts" / "plot", label,
                           "--out", tmp_path / "plots"],
                          capture_output=True, text=True)
    assert plot.returncode == 0, plot.stderr
    assert (tmp_path / "plots" / "quick-curve.png").stat().st_size > 1000
    assert "note: left out noop" in plot.stdout        # one size only: named, not dropped silently
    summary = subprocess.run(["/usr/bin/python3", ROOT / "scripts" / "plot", label, "--kind",
                              "summary", "--out", tmp_path / "plots"], capture_output=True, text=True)
    assert summary.returncode == 0, summary.stderr
    figures = [json.loads(f.read_text())["summary"]["figure"] for f in final]
    units = {f"{fig['unit']} {fig['name']}" for fig in figures}
    assert len(list((tmp_path / "plots").glob("quick-summary-*.png"))) == len(units) == 4


def ab(tmp_path, name, a, b, *extra):
    return script("ab", "--a", a, "--b", b, "--label", tmp_path / name, "--warmup", "0",
                  "--duration", "1", *extra)


@pytest.mark.slow
def test_ab_until_mde_says_no_change_on_a_a(root, tmp_path):
    """The same benchmark as A and B: stops with "no change" once the MDE is small
    enough (50%: one-second runs on our shared VMs vary by 10-15%), never with a
    confirmed change."""
    proc = ab(tmp_path, "aa", "htab-lookup --max-entries 1K", "htab-lookup --max-entries 1K",
              "--until-mde", "50", "--max-runs", "20")
    print(proc.stdout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "No significant change after" in proc.stdout
    assert len(list((tmp_path / "aa" / "a").glob("run-*.json"))) < 20


@pytest.mark.slow
def test_ab_until_mde_confirms_a_slowdown_early(root, tmp_path):
    """1M entries against 1K: lookups miss the cache; confirmed well before the maximum."""
    proc = ab(tmp_path, "slow", "htab-lookup --max-entries 1K", "htab-lookup --max-entries 1M",
              "--until-mde", "5", "--max-runs", "16")
    print(proc.stdout)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "B against A after" in proc.stdout and "REGRESSION" in proc.stdout
    assert len(list((tmp_path / "slow" / "a").glob("run-*.json"))) <= 6


def test_ab_refuses_bad_arguments(tmp_path):
    proc = ab(tmp_path, "bad", "htab-lookup --map nope", "htab-lookup", "--until-mde", "5")
    assert proc.returncode == 64 and "--a: mapbench: unknown map" in proc.stderr


def test_ab_refuses_a_missing_bench_build(tmp_path):
    proc = ab(tmp_path, "bad", "noop", "noop", "--until-mde", "5", "--b-bench", tmp_path / "nope")
    assert proc.returncode == 64 and "--b-bench" in proc.stderr and "no such file" in proc.stderr


def test_ab_runs_two_builds_of_the_bench(root, tmp_path):
    other = tmp_path / "bench-b"
    shutil.copy2(ROOT / "bench", other)
    proc = ab(tmp_path, "builds", "noop", "noop", "--until-mde", "50", "--max-runs", "2",
              "--min-runs", "2", "--b-bench", other)
    assert proc.returncode in (0, 1, 2), proc.stderr
    assert f"B: {other} noop" in proc.stdout
    assert [len(list((tmp_path / "builds" / s).glob("run-*.json"))) for s in "ab"] == [2, 2]


def test_sweep_points_are_spaced_as_asked():
    points = suites.sweep_points
    assert points("nr_entries=1..1M:log:7") == ("nr_entries", [1, 10, 100, 1000, 10000, 100000,
                                                                1000000])
    assert points("nr_entries=1..10:lin:4") == ("nr_entries", [1, 4, 7, 10])
    assert points("max-entries=1K..1K:3") == ("max-entries", [1000])     # repeats dropped
    assert points("nr_entries=1..3:log:60")[1] == [1, 2, 3]
    name, sixty = points("nr_entries=1..1M:log:60")
    assert len(sixty) > 45 and sixty[0] == 1 and sixty[-1] == 1000000
    for bad in ("nr_entries", "nr_entries=5..1:log:3", "nr_entries=0..9:log:3",
                "nr_entries=1..9:log:0", "=1..9:3"):
        with pytest.raises(model.InputError):
            points(bad)


@pytest.mark.parametrize("args,needle", [
    (["--param", "nr_entries=5..1:log:3"], "gives no points"),
    (["--param", "nr_entries=1..9"], "give NAME=LO..HI"),
    (["--param", "no-such-option=1..9:2"], "unknown option"),
])
def test_a_sweep_with_no_points_is_one_line_and_exit_64(tmp_path, args, needle):
    proc = script("sweep", "lpm-trie-lookup", *args, "--label", tmp_path / "s")
    assert proc.returncode == 64 and needle in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not (tmp_path / "s").exists()


def test_bench_arguments_go_with_sweep_only(tmp_path):
    proc = script("run", "quick", "--label", tmp_path / "q", "--", "-p", "2")
    assert proc.returncode == 64 and "goes with sweep" in proc.stderr


def test_a_sweep_over_three_points_end_to_end(root, tmp_path):
    proc = script("sweep", "lpm-trie-lookup", "--param", "nr_entries=1K..100K:log:3",
                  "--label", tmp_path / "s", "-w", "0", "-d", "1", "--", "--prefix_len=32")
    assert proc.returncode == 0, proc.stderr
    runs = results.load_path(tmp_path / "s")
    assert sorted(r.params["nr_entries"] for r in runs) == [1000, 10000, 100000]
    assert {r.params["prefix_len"] for r in runs} == {32}


def test_the_progress_line_names_the_figure_once():
    doc = {"status": "complete", "summary": {"figure": {
        "mean": 3.25, "unit": "M events/s", "name": "events per producer"}}}
    assert results.figure_text(doc) == "3.250 M events/s per producer"


def test_ctrl_c_while_a_run_starts_is_an_interruption(tmp_path, monkeypatch):
    """Seen beside a kernel build: SIGINT landed in Popen's fork, before the
    run's own handler, and suite ended in a traceback (exit -2)."""
    def fork_interrupted(*args, **kw):
        raise KeyboardInterrupt
    monkeypatch.setattr(suite_runs.subprocess, "Popen", fork_interrupted)
    with pytest.raises(suite_command.Interrupted):
        suite_runs.run_once(["noop"], tmp_path / "r" / "run-1.json", "x", 1, 0, 1)
    label = tmp_path / "quick"
    status = suite_command.main(["run", "quick", "--label", str(label), "--runs", "1"])
    assert status == 130


FAKE_BENCH = """#!/usr/bin/python3
import signal, sys, time
def stop(*_):
    open(sys.argv[sys.argv.index("--json") + 1] + ".stopped", "w").close()
    sys.exit(130)
signal.signal(signal.SIGINT, stop)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # as ./bench does
time.sleep(30)
"""


def test_ctrl_c_while_popen_returns_stops_the_run_it_started(tmp_path, monkeypatch):
    """Seen under load: SIGINT landed after the fork, before Popen returned;
    the bench, in its own session, ran on unseen and wrote its result after
    suite had exited, so a resumed suite kept a run it had not counted."""
    bench = tmp_path / "bench"
    bench.write_text(FAKE_BENCH)
    bench.chmod(0o755)
    real = suite_runs.subprocess.Popen

    def started_then_interrupted(*args, **kw):
        child = real(*args, **kw)
        signal.raise_signal(signal.SIGINT)
        return child
    monkeypatch.setattr(suite_runs.subprocess, "Popen", started_then_interrupted)
    path = tmp_path / "r" / "run-1.json"
    t0 = time.monotonic()
    # SIGINT as a terminal's Ctrl-C delivers it (a background job's tests start with it ignored)
    launched_with = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(suite_command.Interrupted):
            suite_runs.run_once(["noop"], path, "x", 1, 0, 1, bench=bench)
    finally:
        signal.signal(signal.SIGINT, launched_with)
    # the run was stopped, and waited for
    assert (tmp_path / "r" / "run-1.json.stopped").exists()
    assert time.monotonic() - t0 < 20
