"""Charts with gnuplot (PNG through pngcairo, and SVG): the runner every
chart goes through, and the charts more than one tool draws (a history's
trend, its sparklines)."""
import subprocess  # processes of their own: gnuplot
import tempfile
from pathlib import Path

from . import history, model, results
from .model import InputError

TERMINALS = {"png": "pngcairo size 1000,600 enhanced font 'sans,11'",
             "svg": "svg size 1000,600 dynamic enhanced font 'sans,11'"}


def gnuplot(body, data, out_base, terminals=TERMINALS):
    """Run body once per terminal; data: {file name: text}. Returns output paths."""
    outs = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in data.items():
            (Path(tmp) / name).write_text(text)
        for ext, term in terminals.items():
            out = out_base.with_name(f"{out_base.name}.{ext}")   # a label may hold dots
            script = f"set terminal {term}\nset output '{out}'\ncd '{tmp}'\n{body}\n"
            proc = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
            if proc.returncode or not out.exists() or out.stat().st_size == 0:
                raise InputError(f"gnuplot failed: {proc.stderr.strip()}")
            outs.append(out)
    return outs


def quoted(s):
    return '"' + str(s).replace('"', "'") + '"'


def slug(text):
    return "".join(ch if ch.isalnum() else "-" for ch in text).strip("-").lower()


def trend_chart(bench, unit, lines):
    """gnuplot body and data of one benchmark's trend in one unit."""
    data, plots, marks = {}, [], []
    varying = results.varying_params([one.key for one, _ in lines])
    ticks = {}
    for i, (one, points) in enumerate(lines):
        data[f"l{i}.dat"] = "".join(f"{x} {v}\n" for x, v in enumerate(one.values))
        ticks.update(enumerate(one.commits))
        name = results.label(one.key, varying)
        plots.append(f"'l{i}.dat' using 1:2 with linespoints pt 7 ps 0.8 lc {i + 1} "
                     f"title {quoted(name)}")
        seg = "".join(f"{lo - 0.5} {one.values[lo:hi].mean()}\n{hi - 0.5} "
                      f"{one.values[lo:hi].mean()}\n\n"
                      for lo, hi in history.segments(one, [c for c, _, _ in points]))
        data[f"s{i}.dat"] = seg
        plots.append(f"'s{i}.dat' using 1:2 with lines lw 3 dt 2 lc {i + 1} "
                     f"title {quoted(name + ': segment means')}")
        for c, v, words in points:
            colour = {"regression": "#d62728", "improvement": "#2ca02c"}.get(v, "#7f7f7f")
            marks.append(f"set arrow from {c.index - 0.5}, graph 0 to {c.index - 0.5}, graph 1 "
                         f"nohead lw 2 lc rgb '{colour}'\n"
                         f"set label {quoted(f'{one.commits[c.index]} {c.delta_pct:+.2f}% {words}')} "
                         f"at {c.index - 0.4}, graph 0.95 rotate by -90 font ',8' noenhanced")
    xtics = ", ".join(f"{quoted(commit[:12])} {x}" for x, commit in sorted(ticks.items()))
    direction = model.better(lines[0][0].direction)
    body = f"""set title {quoted(f'{bench}: {unit} over commits ({direction})')} noenhanced
set ylabel {quoted(unit)} noenhanced
set xlabel 'commit (oldest left)'
set xtics ({xtics}) rotate by -45 font ',8' noenhanced
set grid ytics
set key below noenhanced
set bmargin 10
{chr(10).join(marks)}
plot {', '.join(plots)}"""
    return body, data


# A sparkline: a small SVG of one series, no axes.
SPARK = {"svg": "svg size 160,36 font 'sans,6'"}


def sparkline(values, out_base):
    """One series as a line 160 x 36 pixels, its last point marked: the SVG's path."""
    data = "".join(f"{x} {v}\n" for x, v in enumerate(values))
    body = ("unset border\nunset tics\nunset key\nset margins 1,1,1,1\n"
            f"set xrange [-0.5:{len(values) - 0.5}]\n"
            "plot 's.dat' using 1:2 with lines lw 1.5 lc rgb '#1f77b4', "
            f"'s.dat' every ::{len(values) - 1} using 1:2 with points pt 7 ps 0.4 lc rgb '#1f77b4'")
    return gnuplot(body, {"s.dat": data}, out_base, SPARK)[0]
