"""Guest-shaped sets (scripts/vmrun: a vm block, a boot id, several runs per
boot, a warmup run first): pooling a boot's runs keeps what they carry, and
compare, gate, report and ab's per-patch table give one verdict, in the
right direction, for memory and for throughput."""
import argparse
import json

import pytest

from test_analysis import ENV, result_doc, script

from mapbench import results
from mapbench.commands import ab as ab_command

VM = {"accelerator": "tcg", "clock": "icount", "icount_shift": 0, "qemu_version": "7.2.0",
      "vcpus": 2, "memory_mib": 2048, "kernel_image": "bzImage", "boots_of_kernel": 2}


def guest_env(kernel, boot, warmup):
    return dict(ENV, kernel_release=kernel, boot_id=f"{kernel}-boot-{boot}",
                vm=dict(VM, boot=boot, boot_of_kernel=boot, warmup=warmup))


def mem_doc(bytes_per_element):
    row = {"label": "htab", "map": "htab", "status": "ok", "map_type": "BPF_MAP_TYPE_HASH",
           "prealloc": True, "key_size": 8, "value_size": 8,
           "bytes_per_element": bytes_per_element, "element_bytes": bytes_per_element,
           "fixed_bytes": 0, "per_cpu_value_bytes": None, "charged_bytes_per_element": None,
           "points": []}
    return {"schema": "mapbench-result", "schema_version": 2, "status": "complete",
            "benchmark": "mem", "family": "mem", "command": ["./bench", "mem"],
            "params": {"map": "htab", "key_size": 8, "value_size": 8, "max_entries": 1000000},
            "memory": {"cgroup": "none", "sizes": [524289, 1000000], "rows": [row]}}


def lookup_doc(figure):
    doc = result_doc("htab-lookup", [figure] * 3)
    for s in doc["samples"]:
        s["producers"] = [{"ops": 1000, "ns": 1000 * 1000 / figure}]
    return doc


def guest_set(folder, kernel, make, value, boots=2, runs=3):
    """What vmrun leaves: per boot a warmup run, then runs whose figures
    differ in the seventh digit, as icount runs do."""
    for boot in range(1, boots + 1):
        for n in range(runs + 1):
            doc = make(value * (1 + 1e-7 * n))
            doc["environment"] = guest_env(kernel, boot, warmup=n == 0)
            path = folder / f"boot-{boot}" / f"run-{n}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(doc))
    return folder


def rows(tool, a, b):
    proc = script(tool, a, b, "--json")
    assert proc.returncode in (0, 1, 2), proc.stderr
    return json.loads(proc.stdout)["rows"]


def test_a_pooled_boot_keeps_what_its_runs_carry(tmp_path):
    runs = results.load_path(guest_set(tmp_path / "m", "7.2.13", mem_doc, 64.0))
    assert len(runs) == 2 and {r.benchmark for r in runs} == {"mem"}   # one per boot
    for r in runs:
        assert r.direction("figure") == -1 and r.unit("figure") == "B per element"
    runs = results.load_path(guest_set(tmp_path / "l", "7.2.13", lookup_doc, 5.334))
    assert len(runs) == 2
    for r in runs:
        assert r.direction("figure") == +1 and "[icount: 1 ns = 1 instruction]" in r.unit("figure")
        assert r.per_producer == pytest.approx([5.334], rel=1e-5)
        assert r.metrics["figure"] == pytest.approx(5.334 * (1 + 2e-7))   # median of 3 runs


# (benchmark's doc, before, after, the verdict every tool must give)
CASES = {
    "memory-wasting": (mem_doc, 64.0, 96.0, "regression"),
    "memory-saving": (mem_doc, 64.0, 32.0, "improvement"),
    "slower": (lookup_doc, 5.334, 5.281, "regression"),
    "faster": (lookup_doc, 5.334, 5.400, "improvement"),
}


@pytest.mark.parametrize("case", CASES)
def test_every_tool_gives_one_verdict_in_the_right_direction(tmp_path, case):
    make, before, after, expected = CASES[case]
    a = guest_set(tmp_path / "a", "7.2.13", make, before)
    b = guest_set(tmp_path / "b", "7.2.13-patched", make, after)
    verdicts = {tool: [(r["verdict"], r["result"], r["direction"]) for r in rows(tool, a, b)]
                for tool in ("compare", "gate", "report")}
    assert verdicts["compare"] == verdicts["gate"] == verdicts["report"], verdicts
    (verdict, _, direction), = verdicts["gate"]
    assert verdict == expected
    assert direction == ("lower is better" if make is mem_doc else "higher is better")
    gate = script("gate", a, b)
    assert gate.returncode == (1 if expected == "regression" else 0), gate.stdout
    table, regressed = ab_command.series_table([a, b], ["0001-the.patch"], None)
    assert bool(regressed) == (expected == "regression"), table
    wording = "REGRESSION" if expected == "regression" else "improvement"
    assert table.splitlines()[2].endswith(wording), table


def test_a_rank_test_says_it_cannot_judge_two_boots(tmp_path):
    """With 2 runs a side Mann-Whitney U never goes below p = 1/3: the row
    says so instead of calling a 1% change "no significant change"."""
    a = guest_set(tmp_path / "a", "7.2.13", lookup_doc, 5.334)
    b = guest_set(tmp_path / "b", "7.2.13-patched", lookup_doc, 5.281)
    out = script("compare", a, b, "--test", "mwu").stdout
    assert "inconclusive: Mann-Whitney U cannot reach p" in out and "2/2 runs" in out, out


def test_the_report_counts_runs_and_boots(tmp_path):
    a = guest_set(tmp_path / "a", "7.2.13", lookup_doc, 5.334)
    out = script("report", a).stdout
    assert "Runs: 6 per configuration x 3 s measured, in 2 boots (a boot's runs pooled " \
           "into one sample)" in out, out


def test_boots_that_repeat_their_boot_id_stay_apart(tmp_path):
    """Guests booted under icount repeat boot_id (the same RNG, the same RTC):
    vmrun's boot_uid keeps two boots two samples, so two boots a side can be
    judged."""
    folder = guest_set(tmp_path / "a", "7.2", lookup_doc, 100.0)
    for i, path in enumerate(sorted(folder.glob("boot-*/run-*.json"))):
        doc = json.loads(path.read_text())
        doc["environment"]["boot_id"] = "the-same-every-boot"
        doc["environment"]["vm"]["boot_uid"] = path.parent.name
        path.write_text(json.dumps(doc))
    assert len(results.load_path(folder)) == 2


def test_boots_until_decided_are_judged_as_the_gate_judges(tmp_path, monkeypatch, capsys):
    """ab --until-mde looks after each boot of both kernels with the gate's
    policy and the clock's test (the range rule under icount), in the
    verdict engine's words: a 1% slower lookup is a REGRESSION once both
    kernels have booted twice."""
    pair = [tmp_path / "before", tmp_path / "after"]
    boots = iter(range(1, 10))

    def one_boot_each(title, argv):
        boot = next(boots)
        for folder, kernel, figure in ((pair[0], "before", 10.0), (pair[1], "after", 9.9)):
            doc = lookup_doc(figure * (1 + 1e-7 * boot))
            doc["environment"] = guest_env(kernel, boot, warmup=False)
            path = folder / f"boot-{boot}" / "run-1.json"
            path.parent.mkdir(parents=True)
            path.write_text(json.dumps(doc))
        return 0

    monkeypatch.setattr(ab_command, "boot_guests", one_boot_each)
    args = argparse.Namespace(boots=4, min_boots=2, policy=None, metric="figure", until_mde=0.5,
                              paired=False)
    assert ab_command.boot_until_mde(args, [], pair) == 0
    out = capsys.readouterr().out
    assert "ab: htab-lookup: 2 boots a side, delta -1.00%" in out
    assert out.count(": REGRESSION\n") == 1
    assert "every benchmark decided after 2 boots a side" in out


def test_ab_with_the_model_judges_modelled_cycles_beside_the_clock(tmp_path):
    """ab --model: the per-patch table has a row of each metric, and a
    modelled regression is worse than an icount pass in ab's exit (when
    layouts were sampled); a tool error is worse than any verdict."""
    a = guest_set(tmp_path / "a", "7.2.13", lookup_doc, 5.334)
    b = guest_set(tmp_path / "b", "7.2.13-patched", lookup_doc, 5.334)
    table, _ = ab_command.series_table([a, b], ["0001-the.patch"], None,
                                       (None, ab_command.MODELLED))
    lines = table.splitlines()[2:]
    assert len(lines) == 4, table     # the patch and the series, each on two metrics
    assert "no significant change" in lines[0] and \
        "inconclusive: no model_cycles in its runs before or after" in lines[1], table
    w = ab_command.worse
    assert w(0, 1) == w(1, 2) == w(2, 1) == 1 and w(0, 2) == 2 and w(0, 0) == 0
    assert w(1, 3) == 3 and w(64, 0) == 64
