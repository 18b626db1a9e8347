"""The history of result sets: the change-point detector on series with
known steps, the store (SQLite, and PostgreSQL started by the test), and
scripts/history's verbs."""
import csv
import re
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from conftest import postgres_cluster
from test_analysis import script, write_set
from test_clock import ICOUNT

from mapbench import changepoints, history, results


def steps(n, at, cv, seed, outliers=0):
    """n points around 100 with relative noise cv, changed by pct at each
    (index, pct) of at, and some points 30% off (failed boots)."""
    rng = np.random.default_rng(seed)
    v = np.full(n, 100.0)
    for i, pct in at:
        v[i:] *= 1 + pct / 100
    v *= 1 + cv * rng.standard_normal(n)
    for i in rng.choice(n, outliers, replace=False):
        v[i] *= 1.3
    return v


@pytest.mark.parametrize("cv", [1e-5, 0.1])
def test_a_flat_series_has_no_change_point(cv):
    for seed in range(5):
        assert changepoints.change_points(steps(200, [], cv, seed)) == []


@pytest.mark.parametrize("pct", [0.5, -0.5, 2, -20])
def test_icount_steps_are_found_where_they_are(pct):
    found = changepoints.change_points(steps(60, [(20, pct), (40, -pct)], 1e-5, 7))
    assert [c.index for c in found] == [20, 40]
    assert found[0].delta_pct == pytest.approx(pct, rel=0.01)


def test_two_boots_a_segment_are_enough_under_icount():
    """A bisection's history: one boot per commit, steps two commits apart."""
    found = changepoints.change_points(steps(8, [(3, -1), (6, 0.6)], 1e-5, 3))
    assert [c.index for c in found] == [3, 6]


def test_a_large_step_is_found_through_host_noise_and_failed_boots():
    found = changepoints.change_points(steps(60, [(30, -25)], 0.05, 11, outliers=2))
    assert [c.index for c in found] == [30]


def test_a_failed_boot_is_not_a_change_point():
    v = steps(60, [], 1e-5, 5)
    v[30] *= 1.3
    assert changepoints.change_points(v) == []


def icount_set(folder, value, release, bench="htab-lookup"):
    return write_set(folder, bench, [value * (1 + 1e-6 * k) for k in range(2)],
                     env=dict(ICOUNT, kernel_release=release))


def grown(tmp_path, db, values):
    """A history of one set per value (commits c0, c1, ...)."""
    for i, v in enumerate(values):
        folder = icount_set(tmp_path / f"c{i}", v, f"7.2.13-c{i}")
        proc = script("history", "add", folder, "--commit", f"c{i}", "--branch", "main",
                      "--time", f"2026-12-01T{10 + i:02d}:00:00+00:00", "--db", db)
        assert proc.returncode == 0, proc.stderr
    return db


def test_the_store_gives_back_what_it_was_given(tmp_path):
    folder = icount_set(tmp_path / "s", 5.0, "7.2.13")
    engine = history.open_store(f"sqlite:///{tmp_path / 'h.sqlite'}")
    runs = results.load_path(folder)
    set_id = history.add(engine, runs, "s", "abc", "main")
    back = history.runs_of(engine, [set_id])[set_id]
    assert [vars(r) for r in back] == [vars(r) for r in runs]
    frame = history.frame(engine)
    assert set(frame["metric"]) >= {"figure", "throughput"} and set(frame["commit"]) == {"abc"}


def test_changes_gate_export_and_plot(tmp_path):
    db = grown(tmp_path, f"sqlite:///{tmp_path / 'h.sqlite'}", [5.0] * 6 + [4.95] * 5)
    out = script("history", "changes", "--db", db)
    assert out.returncode == 0, out.stderr
    row = next(x for x in out.stdout.splitlines() if x.startswith("htab-lookup"))
    assert "| c6 " in row and "-1.00%" in row and "REGRESSION" in row
    doc = json.loads(script("history", "changes", "--json", "--db", db).stdout)
    assert doc[0]["changes"][0]["verdict"] == "regression"
    # a new set judged against the segment since c6: as it, a pass; 1% lower, a regression
    assert script("history", "gate", icount_set(tmp_path / "new", 4.95, "x"),
                  "--db", db).returncode == 0
    gate = script("history", "gate", icount_set(tmp_path / "worse", 4.90, "y"), "--db", db)
    assert gate.returncode == 1 and "last stable segment" in gate.stdout
    script("history", "export", "--csv", tmp_path / "o.csv", "--db", db)
    with open(tmp_path / "o.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 11 and list(rows[0])[:4] == ["time", "commit", "branch", "label"]
    plot = script("history", "plot", "--out", tmp_path / "plots", "--db", db)
    assert plot.returncode == 0 and all(Path(p).stat().st_size > 1000
                                        for p in plot.stdout.split())


@pytest.mark.parametrize("args, words", [
    (["list", "--db", "nonsense://"], "not a database URL"),
    (["gate", "x", "--db", "sqlite:///{tmp}/e.sqlite"], "no such file"),
    (["changes", "--db", "sqlite:///{tmp}/e.sqlite"], "no figure in the history"),
    (["export", "--csv", "o.csv", "--db", "sqlite:///{tmp}/e.sqlite"], "no sets to export")])
def test_bad_input_is_one_line(tmp_path, args, words):
    proc = script("history", *[a.format(tmp=tmp_path) for a in args])
    assert proc.returncode == 3 and words in proc.stderr and len(proc.stderr.splitlines()) == 1, \
        proc.stderr


def _add_many(db, folder, n):
    engine = history.open_store(db)
    runs = results.load_path(folder)
    for i in range(n):
        history.add(engine, runs, f"w{i}", f"c{i}")


def writers_lose_nothing(db, folder):
    """Two processes adding 20 sets each at once: all 40 sets and their runs."""
    before = {s["id"] for s in history.sets(history.open_store(db))}
    with ProcessPoolExecutor(2) as pool:
        for f in [pool.submit(_add_many, db, folder, 20) for _ in range(2)]:
            f.result()
    engine = history.open_store(db)
    entries = [s for s in history.sets(engine) if s["id"] not in before]
    assert len(entries) == 40
    assert sum(len(r) for r in history.runs_of(engine, [s["id"] for s in entries]).values()) == 80


def test_two_sqlite_writers_at_once_lose_nothing(tmp_path):
    writers_lose_nothing(f"sqlite:///{tmp_path / 'h.sqlite'}", icount_set(tmp_path / "s", 5.0, "r"))


@pytest.fixture
def postgres():
    with postgres_cluster("mapbench") as url:
        yield url


@pytest.mark.live
def test_postgresql_keeps_the_same_history(tmp_path, postgres):
    grown(tmp_path, postgres, [5.0] * 4 + [4.95] * 4)
    out = script("history", "changes", "--db", postgres)
    assert "| c4 " in out.stdout and "REGRESSION" in out.stdout, out.stdout + out.stderr
    writers_lose_nothing(postgres, icount_set(tmp_path / "s", 5.0, "r"))


def test_a_set_as_kcidb_report_data(tmp_path):
    """KCIDB v4.5's rules for what it takes: ids "origin:...", tests with
    build_id, path of dotted names, status DONE with number {value, unit}."""
    folder = icount_set(tmp_path / "s", 5.0, "7.2.13-mb-base")
    write_set(folder, "lpm-trie-lookup", [2.0, 2.0], env=dict(ICOUNT, kernel_release="7.2.13-mb-base"))
    sha = "0123456789abcdef0123456789abcdef01234567"
    proc = script("history", "kcidb", folder, "--commit", sha, "--tree", "bpf-next")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["version"] == {"major": 4, "minor": 5}
    (checkout,), (build,) = doc["checkouts"], doc["builds"]
    assert checkout == {"id": f"mapbench:{sha}", "origin": "mapbench", "git_commit_hash": sha,
                        "tree_name": "bpf-next"}
    assert build["checkout_id"] == checkout["id"]
    assert len(doc["tests"]) == 2
    for t in doc["tests"]:
        assert t["build_id"] == build["id"] and t["origin"] == "mapbench"
        assert re.fullmatch(r"[a-z0-9_]+:.+", t["id"]) and t["status"] == "DONE"
        assert re.fullmatch(r"mapbench(\.[A-Za-z0-9_-]+)+", t["path"])
        assert set(t["number"]) == {"value", "unit"}
    assert len({t["id"] for t in doc["tests"]}) == 2
    lookup = next(t for t in doc["tests"] if t["misc"]["benchmark"] == "htab-lookup")
    assert lookup["number"]["value"] == pytest.approx(5.0) and "M ops/s" in lookup["number"]["unit"]
    bad = script("history", "kcidb", folder, "--commit", sha, "--origin", "Map Bench")
    assert bad.returncode == 3 and "KCIDB origins" in bad.stderr
