"""Issue 57's inputs, built by hand: what the tools cannot judge is refused
in one line naming the file and what is wrong, the same way in every tool;
what they can, they judge on the policy's metric and show whole."""
import json
from pathlib import Path

import pytest

from test_analysis import script, write_set
from test_clock import ICOUNT
from test_guest_verdicts import guest_set, lookup_doc, mem_doc
from test_verdicts import latency_set

from mapbench import results

TOOLS = ("compare", "gate", "report", "plot")


def quiet(folder, value=100.0, **kw):
    return write_set(folder, "htab-lookup", [value * (1 + d) for d in
                                             (0, 0.002, -0.002, 0.001, -0.001)], **kw)


def one_line_error(proc, *words):
    err = proc.stderr.strip()
    assert proc.returncode == 3, (proc.returncode, proc.stdout, err)
    assert len(err.splitlines()) == 1 and "internal error" not in err, err
    assert all(w in err for w in words), (words, err)


def test_a_configuration_mixing_units_is_refused_naming_its_files(tmp_path):
    """bpf-nop runs partly ns/op and partly M ops/s used to be averaged:
    "240.146 ± 260.879 ns/op, -99.17%"."""
    a = quiet(tmp_path / "a")
    write_set(tmp_path / "a" / "x", "htab-lookup", [10.0],
              figure=("median per batch", "ns/op", "in-kernel"))
    b = quiet(tmp_path / "b")
    for tool in TOOLS:
        one_line_error(script(tool, a, b, "--out", tmp_path) if tool == "plot" else
                       script(tool, a, b), "ns/op", "M ops/s", "htab-lookup-0.json",
                       str(tmp_path / "a" / "x"))


def test_an_unreadable_file_is_named(tmp_path, monkeypatch):
    a, b = quiet(tmp_path / "a"), quiet(tmp_path / "b")
    shut = a / "htab-lookup-2.json"
    read = Path.read_text

    def refuse(path, *args, **kw):
        if path == shut:
            raise PermissionError(13, "Permission denied", str(path))
        return read(path, *args, **kw)
    monkeypatch.setattr(Path, "read_text", refuse)
    for tool in ("compare", "gate", "report"):
        one_line_error(script(tool, a, b), str(shut), "cannot be read (Permission denied)")


@pytest.mark.parametrize("field, value, said", [
    ("environment", None, '"environment" is null, not an object'),
    ("params", None, '"params" is null, not an object'),
    ("samples", None, '"samples" is null, not a list'),
    ("samples", "drop", 'no "samples" field'),
    ("unit", None, '"summary.figure.unit" is null, not a string')])
def test_a_missing_or_null_field_is_named(tmp_path, field, value, said):
    a, b = quiet(tmp_path / "a"), quiet(tmp_path / "b")
    bad = b / "htab-lookup-1.json"
    doc = json.loads(bad.read_text())
    where = doc["summary"]["figure"] if field == "unit" else doc
    if value == "drop":
        del where[field]
    else:
        where[field] = value
    bad.write_text(json.dumps(doc))
    for tool in TOOLS:
        one_line_error(script(tool, a, b, "--kind", "delta", "--out", tmp_path)
                       if tool == "plot" else script(tool, a, b), str(bad), said)


def test_a_null_vm_is_a_host_run(tmp_path):
    a, b = quiet(tmp_path / "a"), quiet(tmp_path / "b", env={"vm": None})
    assert script("gate", a, b).returncode == 0


def test_an_after_set_with_nothing_measured_is_one_exit_status_in_every_tool(tmp_path):
    a, b = quiet(tmp_path / "a"), quiet(tmp_path / "b")
    for f in b.glob("*.json"):
        doc = json.loads(f.read_text())
        doc["samples"] = []
        f.write_text(json.dumps(doc))
    for tool in TOOLS:
        proc = script(tool, a, b, "--kind", "delta", "--out", tmp_path) if tool == "plot" \
            else script(tool, a, b)
        one_line_error(proc, str(b), "no completed results", "no measured samples")


def test_a_link_to_nothing_is_said(tmp_path):
    a, b = quiet(tmp_path / "a"), quiet(tmp_path / "b")
    (b / "gone.json").symlink_to(tmp_path / "nowhere.json")
    out = script("gate", a, b).stdout
    assert f"note: left out {b / 'gone.json'}: a link to {tmp_path / 'nowhere.json'}, which " \
           "does not exist" in out, out


def test_icount_boots_without_vmruns_id_are_told_apart_by_their_number(tmp_path):
    """Four boots a side that repeat their boot_id (icount) and carry no
    boot_uid (older vmrun): four samples, not "too few runs (1/1 ...)"."""
    sets = []
    for side, value in (("a", 5.334), ("b", 5.281)):
        folder = guest_set(tmp_path / side, "7.2.13", lookup_doc, value, boots=4)
        for path in folder.glob("boot-*/run-*.json"):
            doc = json.loads(path.read_text())
            doc["environment"]["boot_id"] = "the-same-every-boot"
            path.write_text(json.dumps(doc))
        sets.append(folder)
    assert len(results.load_path(sets[0])) == 4
    gate = script("gate", *sets)
    assert gate.returncode == 1 and "REGRESSION" in gate.stdout, gate.stdout


def test_the_matrix_by_a_parameter_shows_both_sets(tmp_path):
    params = {"key_size": 8, "max_entries": 1000, "nr_entries": 750}
    sets = []
    for side, (htab, rhtab) in (("a", (99.0, 81.0)), ("b", (90.0, 82.0))):
        for m, v in (("htab", htab), ("rhtab", rhtab)):
            write_set(tmp_path / side / m, "htab-lookup", [v], params=dict(params, map=m))
        sets.append(tmp_path / side)
    out = script("report", *sets, "--style", "matrix", "--by", "map=htab,rhtab").stdout
    assert f"Before ({sets[0]}):" in out and f"After ({sets[1]}):" in out, out
    assert "99.00 | 81.00 | 0.82x" in out and "90.00 | 82.00 | 0.91x" in out, out


def test_the_report_header_counts_each_sets_runs(tmp_path):
    a = write_set(tmp_path / "a", "htab-lookup", [100.0 + i / 10 for i in range(20)])
    b = quiet(tmp_path / "b")
    out = script("report", a, b).stdout
    assert "Runs: before: 20 per configuration x 3 s measured; after: 5 per configuration" in out
    out = script("report", b, b).stdout
    assert "Runs: 5 per configuration x 3 s measured\n" in out


def test_the_memory_table_has_no_padded_zero(tmp_path):
    for side in ("a", "b"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "m.json").write_text(json.dumps(mem_doc(64.0)))
    out = script("report", tmp_path / "a", tmp_path / "b", "--style", "memory").stdout
    assert out.splitlines()[-1].endswith("|     64 B |     64 B |    0.0%"), out


def test_a_curve_of_results_without_numeric_parameters_says_so(tmp_path):
    a = write_set(tmp_path / "a", "bpf-nop", [10.0], params={"mode": "loop"})
    proc = script("plot", a, a, "--out", tmp_path)
    assert proc.returncode == 64 and "they have no numeric parameter" in proc.stderr, proc.stderr


def test_the_plot_draws_the_policys_metric(tmp_path):
    """A +20% latency regression under a policy judging latency: compare,
    gate and report say REGRESSION; the plot drew the figure ("no
    significant change") until its --metric stopped overriding the policy."""
    a, b = latency_set(tmp_path / "a", 100.0), latency_set(tmp_path / "b", 120.0)
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps({"default": {"metric": "latency"}}))
    proc = script("plot", a, b, "--kind", "delta", "--policy", policy, "--out", tmp_path / "p")
    assert proc.returncode == 0, proc.stderr
    svg = (tmp_path / "p" / "a-vs-b-delta.svg").read_text()
    assert "change in latency" in svg and "regression" in svg, svg[:2000]


def test_history_refuses_a_set_on_another_clock(tmp_path):
    db = f"sqlite:///{tmp_path / 'h.sqlite'}"
    icount = write_set(tmp_path / "i", "htab-lookup", [5.0, 5.0001], env=ICOUNT)
    assert script("history", "add", icount, "--commit", "c1", "--db", db).returncode == 0
    host = quiet(tmp_path / "h")
    proc = script("history", "add", host, "--commit", "c2", "--db", db)
    one_line_error(proc, "htab-lookup", "icount clock in the history", "host clock here")
    assert "c2" not in script("history", "list", "--db", db).stdout
