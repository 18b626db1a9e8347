"""A history as a static web site (scripts/history site DIR): an index of
every configuration with its latest figure, its last change point (commit,
delta, the gate's words) and a sparkline, and of every set; a page per
benchmark and unit with its trend chart and change points; a page per set
(commit) with the gate's rows against the stable segment before it, its
result files (copied in, so that the site opens anywhere) and its LAVA
jobs. HTML from Jinja2 templates (templates/), charts as SVG from gnuplot:
no JavaScript and no server, so a CI's artifact store or any web server
serves it as it is, and it opens offline."""
import datetime
import shutil
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from . import charts, cli, history, model, output, results, verdict

TEMPLATES = Path(__file__).parent / "templates"
# the CSS class of a verdict's words
CLASSES = {verdict.REGRESSION: "regression", verdict.IMPROVEMENT: "improvement",
           verdict.INCONCLUSIVE: "inconclusive", verdict.NEGLIGIBLE: "negligible",
           verdict.NO_CHANGE: "no-change", verdict.NEW: "no-change"}
GATE_CLASSES = {cli.EXIT_PASS: "no-change", cli.EXIT_REGRESSION: "regression",
                cli.EXIT_INCONCLUSIVE: "inconclusive"}


def set_page(set_id):
    return f"set-{set_id}.html"


def trend_page(bench, unit):
    return f"trend-{charts.slug(bench)}-{charts.slug(unit)}.html"


class Site:
    """The pages of one history, written into out."""

    def __init__(self, h, metric, policy, out, store):
        self.h, self.metric, self.policy, self.out = h, metric, policy, Path(out)
        self.env = Environment(loader=FileSystemLoader(TEMPLATES),
                               autoescape=select_autoescape(["html"]))
        self.common = {"store": store, "made": datetime.datetime.now(
            datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
        self.changes = history.weighed_changes(h, metric, policy)
        self.written = []

    def write(self, name, template, **context):
        path = self.out / name
        path.write_text(self.env.get_template(template).render(**self.common, **context))
        self.written.append(path)

    def build(self):
        """Every page; the paths written."""
        (self.out / "charts").mkdir(parents=True, exist_ok=True)
        by_chart = {}
        for one, points in self.changes:
            by_chart.setdefault((one.key.benchmark, one.unit), []).append((one, points))
        for (bench, unit), lines in sorted(by_chart.items()):
            self.trend(bench, unit, lines)
        set_rows = [self.set_page(s) for s in self.h.sets]
        self.index(set_rows)
        return self.written

    def change_row(self, one, c, v, words, varying):
        commit = one.commits[c.index]
        return {"label": results.label(one.key, varying), "commit": commit[:12],
                "page": set_page(one.set_ids[c.index]),
                "means": f"{output.fmt_num(c.mean_before)} -> {output.fmt_num(c.mean_after)}",
                "delta": f"{c.delta_pct:+.2f}%", "p": f"{c.p:.2g}", "words": words,
                "verdict_class": CLASSES.get(v, "")}

    def trend(self, bench, unit, lines):
        body, data = charts.trend_chart(bench, unit, lines)
        base = self.out / "charts" / f"trend-{charts.slug(bench)}-{charts.slug(unit)}"
        svg = charts.gnuplot(body, data, base, {"svg": charts.TERMINALS["svg"]})[0]
        varying = results.varying_params([one.key for one, _ in lines])
        self.write(trend_page(bench, unit), "trend.html", title=f"{bench}: {unit}",
                   crumb=bench, benchmark=bench, unit=unit,
                   better=model.better(lines[0][0].direction),
                   chart=svg.relative_to(self.out).as_posix(),
                   changes=[self.change_row(one, c, v, words, varying)
                            for one, points in lines for c, v, words in points])

    def index(self, set_rows):
        varying = results.varying_params([one.key for one, _ in self.changes])
        rows = []
        for i, (one, points) in enumerate(self.changes):
            spark = charts.sparkline(one.values, self.out / "charts" / f"spark-{i}")
            last = points[-1] if points else None
            rows.append({"benchmark": one.key.benchmark, "label": results.label(one.key, varying),
                         "page": trend_page(one.key.benchmark, one.unit), "unit": one.unit,
                         "better": model.better(one.direction).split()[0],
                         "points": len(one.values), "latest": output.fmt_num(one.values[-1]),
                         "change": last and self.change_row(one, *last, varying),
                         "verdict_class": CLASSES.get(last[1], "") if last else "stable",
                         "spark": spark.relative_to(self.out).as_posix()})
        rules = verdict.rules_for(self.policy, "")
        self.write("index.html", "index.html", title="index", crumb=None, metric=self.metric,
                   sets=self.h.sets, clock=self.h.clock(), rows=rows, set_rows=set_rows,
                   threshold=f"{rules['threshold_pct']:g}%")

    def set_page(self, s):
        """Set s's page: the gate against the stable segment before it, its runs."""
        runs = self.h.runs[s["id"]]
        older = history.before(self.h, s["id"])
        base = history.last_stable(older, self.metric) if older.sets else results.Runs()
        judged = verdict.judge(base, runs, self.policy, model.clock_of_runs(base, runs)) \
            if base else None
        gate = output.gate_line(judged) if judged else None
        gate_class = GATE_CLASSES[judged.status()] if judged else ""
        gate_rows = [dict(zip(("label", "metric", "delta", "threshold", "mde", "p", "result"),
                              cells), verdict_class=CLASSES.get(c.verdict, ""))
                     for cells, c in zip(output.gate_rows(judged, self.policy),
                                         judged.rows)] if judged else []
        self.write(set_page(s["id"]), "set.html", title=f"set {s['id']}",
                   crumb=f"set {s['id']} ({s['kernel_commit'][:12]})", s=s, gate=gate,
                   gate_class=gate_class, gate_rows=gate_rows,
                   runs=self.runs_of(s["id"], runs))
        return {"id": s["id"], "page": set_page(s["id"]), "commit": s["kernel_commit"][:12],
                "time": str(s["time"])[:19], "branch": s["branch"] or "-", "label": s["label"],
                "clock": s["clock"], "kernel": s["kernel_release"] or "-",
                "gate": gate.removeprefix("gate: ") if gate else "first set",
                "gate_class": gate_class}

    def runs_of(self, set_id, runs):
        """The set's runs with their result files copied in (where this
        machine still has them) and their LAVA jobs."""
        varying = results.varying_params([r.key() for r in runs])
        folder = self.out / "files" / str(set_id)
        out = []
        for n, r in enumerate(runs):
            source = Path(r.source)
            copied = None
            if source.is_file():
                folder.mkdir(parents=True, exist_ok=True)
                copied = folder / f"{n}-{source.name}"
                shutil.copyfile(source, copied)
            lab = ((r.env.get("vm") or {}).get("lab") or {})
            figure = r.metrics.get(self.metric)
            out.append({"label": results.label(r.key(), varying), "name": source.name,
                        "file": copied and copied.relative_to(self.out).as_posix(),
                        "figure": f"{output.fmt_num(figure)} {r.unit(self.metric)}"
                        if figure is not None else "-",
                        "job": lab.get("url"), "job_name": f"job {lab.get('job_id')}"})
        return out


def build(h, metric, policy, out, store):
    """The site of history h in folder out (made if need be): its pages."""
    return Site(h, metric, policy, out, store).build()
