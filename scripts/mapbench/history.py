"""A history of result sets: which kernel commit, when, on which branch,
machine and clock, and every run of the set as the results model reads it,
so that any set can be judged again. SQLite by default (one file, no
server); PostgreSQL where a lab's runners share one (a URL): one schema
through SQLAlchemy Core, created on first use. No printing and no exits."""
import datetime
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import sqlalchemy as sa

from . import changepoints, model, results, verdict
from .paths import RESULTS

DEFAULT_URL = f"sqlite:///{RESULTS / 'history.sqlite'}"

METADATA = sa.MetaData()
SETS = sa.Table(
    "sets", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("label", sa.Text, nullable=False),
    sa.Column("kernel_commit", sa.Text, nullable=False),
    sa.Column("branch", sa.Text),
    sa.Column("time", sa.DateTime(timezone=True), nullable=False),  # of the commit, or the run
    sa.Column("added", sa.DateTime(timezone=True), nullable=False),
    sa.Column("clock", sa.Text, nullable=False),
    sa.Column("kernel_release", sa.Text),
    sa.Column("cpu_model", sa.Text),
    sa.Column("machine", sa.Text),
)
RUNS = sa.Table(
    "runs", METADATA,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("set_id", sa.Integer, sa.ForeignKey("sets.id"), nullable=False, index=True),
    sa.Column("source", sa.Text, nullable=False),
    sa.Column("benchmark", sa.Text, nullable=False),
    sa.Column("params", sa.Text, nullable=False),       # JSON, keys sorted: the configuration
    sa.Column("metrics", sa.Text, nullable=False),      # JSON: metric -> value
    sa.Column("units", sa.Text, nullable=False),
    sa.Column("directions", sa.Text, nullable=False),
    sa.Column("environment", sa.Text, nullable=False),
    sa.Column("round", sa.Integer),
    sa.Column("duration", sa.Float),
    sa.Column("within_cv", sa.Float),
    sa.Column("runs", sa.Integer, nullable=False),
)


class HistoryError(model.InputError):
    """A store that cannot be opened or read, or a request it cannot answer."""


def open_store(url=None):
    """An engine on the store at url (default results/history.sqlite), its
    tables created if they are not there."""
    url = url or DEFAULT_URL
    try:
        parsed = sa.engine.make_url(url)
    except sa.exc.ArgumentError as e:
        raise HistoryError(f"--db {url}: not a database URL (sqlite:///FILE or "
                           "postgresql://USER@HOST/DB)") from e
    kw = {}
    if parsed.get_backend_name() == "sqlite":
        if parsed.database:
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        kw["connect_args"] = {"timeout": 60}     # writers wait for each other
    try:
        engine = sa.create_engine(url, future=True, **kw)
    except sa.exc.NoSuchModuleError as e:
        raise HistoryError(f"--db {url}: not a database URL the history knows (sqlite:///FILE "
                           "or postgresql://USER@HOST/DB)") from e
    try:
        METADATA.create_all(engine)
    except (sa.exc.SQLAlchemyError, ModuleNotFoundError) as e:
        raise HistoryError(f"cannot open the history at {parsed.render_as_string()}: "
                           f"{str(e).splitlines()[0]}") from e
    return engine


def _finite(x):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x


def on_other_clock(db, runs, clock):
    """(configuration, clock) of a configuration of runs that the history
    holds on another clock, or None."""
    keys = {(r.benchmark, json.dumps(r.params, sort_keys=True)) for r in runs}
    held = db.execute(sa.select(RUNS.c.benchmark, RUNS.c.params, SETS.c.clock).distinct()
                      .join(SETS, RUNS.c.set_id == SETS.c.id).where(SETS.c.clock != clock))
    return next(((model.Configuration(b, p), other) for b, p, other in held if (b, p) in keys),
                None)


def add(engine, runs, label, commit, branch=None, time=None):
    """Store a loaded set (results.load_path) as one entry of the history, in
    one transaction; its id. A set of runs on two clocks, or one whose
    configurations the history holds on another clock, is refused: a series
    is of one clock, and a gate across clocks could never judge."""
    clock = model.clock_of_runs(runs)
    if clock == "mixed":
        raise HistoryError(f"{label}: its runs are on more than one clock "
                           f"({', '.join(sorted({model.clock_of(r.env) for r in runs}))}); "
                           "add each clock's runs as a set of its own")
    now = datetime.datetime.now(datetime.timezone.utc)
    env = runs[0].env if runs else {}
    row = {"label": label, "kernel_commit": commit, "branch": branch, "time": time or now,
           "added": now, "clock": clock,
           "kernel_release": env.get("kernel_release"), "cpu_model": env.get("cpu_model"),
           "machine": env.get("hostname") or env.get("host")}
    with engine.begin() as db:
        if (found := on_other_clock(db, runs, clock)):
            key, other = found
            raise HistoryError(f"{label}: {results.label(key, set(key.params))} is on the {other} "
                               f"clock in the history and on the {clock} clock here; a series is "
                               "of one clock: keep this set's history in another store (--db)")
        set_id = db.execute(sa.insert(SETS).values(**row)).inserted_primary_key[0]
        db.execute(sa.insert(RUNS), [{
            "set_id": set_id, "source": r.source, "benchmark": r.benchmark,
            "params": json.dumps(r.params, sort_keys=True), "metrics": json.dumps(r.metrics),
            "units": json.dumps(r.units), "directions": json.dumps(r.directions),
            "environment": json.dumps(r.env, sort_keys=True), "round": r.round,
            "duration": _finite(r.duration), "within_cv": _finite(r.within_cv),
            "runs": r.runs} for r in runs])
    return set_id


def sets(engine, branch=None):
    """Every set, oldest first (by time, then as added)."""
    q = sa.select(SETS).order_by(SETS.c.time, SETS.c.id)
    if branch:
        q = q.where(SETS.c.branch == branch)
    with engine.connect() as db:
        return [dict(r._mapping) for r in db.execute(q)]


def runs_of(engine, set_ids):
    """{set id: Runs} as the results model reads them."""
    out = {i: results.Runs() for i in set_ids}
    with engine.connect() as db:
        for r in db.execute(sa.select(RUNS).where(RUNS.c.set_id.in_(list(set_ids)))
                            .order_by(RUNS.c.id)):
            out[r.set_id].append(model.Run(
                r.source, r.benchmark, json.loads(r.params), json.loads(r.metrics),
                json.loads(r.environment),
                r.duration if r.duration is not None else math.nan, json.loads(r.units),
                r.within_cv if r.within_cv is not None else math.nan,
                json.loads(r.directions), runs=r.runs, round=r.round))
    return out


@dataclass
class Series:
    """One configuration's figure over the history: a point per set (the
    mean of its runs), oldest first."""
    key: model.Configuration
    metric: str
    unit: str
    direction: int
    set_ids: list
    commits: list
    times: list
    values: np.ndarray


@dataclass
class History:
    """The sets of a store (oldest first) and their runs, read once."""
    sets: list
    runs: dict          # set id -> Runs

    def clock(self):
        clocks = {s["clock"] for s in self.sets}
        return clocks.pop() if len(clocks) == 1 else "mixed"

    def series(self, metric):
        """A Series per configuration measured with the metric."""
        out = {}
        for s in self.sets:
            runs = self.runs[s["id"]]
            for key, values in results.groups(runs, metric).items():
                first = next(r for r in runs if r.key() == key and metric in r.metrics)
                one = out.setdefault(key, Series(key, metric, first.unit(metric),
                                                 first.direction(metric), [], [], [], []))
                one.set_ids.append(s["id"])
                one.commits.append(s["kernel_commit"])
                one.times.append(s["time"])
                one.values.append(float(np.mean(values)))
        for one in out.values():
            one.values = np.array(one.values)
        return [out[k] for k in sorted(out)]


def load(engine, branch=None):
    """The history's sets (of one branch, or all) with their runs."""
    entries = sets(engine, branch)
    return History(entries, runs_of(engine, [s["id"] for s in entries]))


def frame(engine, branch=None):
    """Every run of every set as a pandas DataFrame, a row per run and
    metric: for notebooks."""
    import pandas as pd
    h = load(engine, branch)
    rows = [{"set_id": s["id"], "time": s["time"], "commit": s["kernel_commit"],
             "branch": s["branch"], "label": s["label"], "clock": s["clock"],
             "benchmark": r.benchmark, "params": json.dumps(r.params, sort_keys=True),
             "metric": m, "value": v, "unit": r.unit(m), "direction": r.direction(m)}
            for s in h.sets for r in h.runs[s["id"]] for m, v in r.metrics.items()]
    return pd.DataFrame(rows, columns=["set_id", "time", "commit", "branch", "label", "clock",
                                       "benchmark", "params", "metric", "value", "unit",
                                       "direction"])


def otava_csv(h, metric, path):
    """The history in Otava's CSV layout: a time column, attribute columns
    (commit, branch, label), then a column per configuration's metric."""
    import pandas as pd
    entries = pd.DataFrame(h.sets).set_index("id")
    table = pd.DataFrame({"time": entries["time"], "commit": entries["kernel_commit"],
                          "branch": entries["branch"], "label": entries["label"]})
    for one in h.series(metric):
        name = results.label(one.key, set(one.key.params) - results.DERIVED) + f" {metric}"
        table[name] = pd.Series(one.values, index=one.set_ids)
    table.to_csv(path, index=False)


def segments(one, points):
    """[(first index, end index)] of the stable segments between change points."""
    bounds = [0] + [c.index for c in points] + [len(one.values)]
    return list(zip(bounds[:-1], bounds[1:]))


def sides(one, points):
    """[(values before, values after)] of each change point: its two segments."""
    spans = segments(one, points)
    return [(one.values[lo:mid], one.values[mid:hi]) for (lo, mid), (_, hi) in zip(spans, spans[1:])]


def change_points(one):
    return changepoints.change_points(one.values)


def weighed_changes(h, metric, policy):
    """[(series, [(change point, verdict, words)])] of every configuration:
    each change point weighed as the gate weighs a change (verdict.weigh_step)."""
    verdict.apply_clock_defaults(policy, h.clock())
    out = []
    for one in h.series(metric):
        rules = verdict.rules_for(policy, one.key.benchmark)
        points = change_points(one)
        out.append((one, [(c, *verdict.weigh_step(before, after, c.delta_pct, one.direction, rules))
                          for c, (before, after) in zip(points, sides(one, points))]))
    return out


def last_stable(h, metric):
    """The runs of each configuration's last stable segment: every set since
    its last change point, as one set to judge against."""
    segment = {}
    for one in h.series(metric):
        points = change_points(one)
        start = points[-1].index if points else 0
        segment[one.key] = set(one.set_ids[start:])
    return results.Runs([r for i, runs in h.runs.items() for r in runs
                         if i in segment.get(r.key(), ())])


def before(h, set_id):
    """The history of the sets older than set_id (as sets() orders them)."""
    older = [s for s in h.sets[:[s["id"] for s in h.sets].index(set_id)]]
    return History(older, {s["id"]: h.runs[s["id"]] for s in older})
