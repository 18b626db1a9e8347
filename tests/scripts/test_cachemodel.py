"""The cache model's host side (mapbench/cachemodel/, vmrun --model): the
plugin's counts read back, per-op figures and modelled cycles, the metrics
compare and report take, and a guest run whose counts repeat exactly."""
import dataclasses
import itertools
import json
import shutil
import subprocess

import numpy as np
import pytest

from conftest import ROOT, run_script
from test_analysis import result_doc
from test_clock import ICOUNT

from mapbench.cachemodel import tracefile as mbtrace
from mapbench import cachemodel, results, where
from mapbench.cachemodel import calibration, qemu10
from mapbench.cachemodel import Branch, Machine, Overlap, Prefetch, Tlb

WINDOWS = """model name=t vcpus=2 line=64 l1d=32768:8 l2=1048576:8 llc=33554432:16
window run=1 index=0 vcpu=0 mode=kernel insns=1000 accesses=300 l1d_misses=40 l2_misses=20 llc_misses=10
window run=1 index=0 vcpu=0 mode=user insns=500 accesses=100 l1d_misses=9 l2_misses=9 llc_misses=9
window run=1 index=0 vcpu=1 mode=kernel insns=200 accesses=60 l1d_misses=4 l2_misses=2 llc_misses=0
window run=1 index=0 vcpu=1 mode=user insns=0 accesses=0 l1d_misses=0 l2_misses=0 llc_misses=0
window run=1 index=1 vcpu=0 mode=kernel insns=3000 accesses=900 l1d_misses=120 l2_misses=60 llc_misses=30
window run=1 index=1 vcpu=0 mode=user insns=7 accesses=1 l1d_misses=1 l2_misses=1 llc_misses=1
window run=1 index=1 vcpu=1 mode=kernel insns=0 accesses=0 l1d_misses=0 l2_misses=0 llc_misses=0
window run=1 index=1 vcpu=1 mode=user insns=0 accesses=0 l1d_misses=0 l2_misses=0 llc_misses=0
""".splitlines()
MACHINE = Machine("t", "a test machine", (32768, 1 << 20, 32 << 20), (8, 8, 16), (10, 40, 200), 2.0,
                  4, Tlb("kmg:4:4", "km:16:4", 2, 7), Overlap(100, 4))


def test_per_op_counts_are_the_measured_samples_in_kernel_mode():
    windows = cachemodel.read_windows(WINDOWS)
    assert len(windows) == 8 and windows[2] == {
        "run": 1, "index": 0, "vcpu": 1, "mode": "kernel", "insns": 200, "accesses": 60,
        "l1d_misses": 4, "l2_misses": 2, "llc_misses": 0}
    samples = [{"index": 0, "warmup": True, "ops": 10}, {"index": 1, "warmup": False, "ops": 100}]
    block = cachemodel.block(MACHINE, windows, samples)
    # sample 1 only (sample 0 is warmup), user mode left out: 3000 insns, 120/60/30 misses
    assert block["ops"] == 100
    assert block["per_op"]["insns"] == 30 and block["per_op"]["llc_misses"] == 0.3
    # 30 / 2 + (1.2 - 0.6) x 10 + (0.6 - 0.3) x 40 + 0.3 x 200
    assert block["per_op"]["model_cycles"] == pytest.approx(15 + 6 + 12 + 60)
    assert [w["sample"] for w in block["windows"]] == [0, 1]
    assert len(block["windows"][0]["counts"]) == 4


def test_per_op_counts_are_the_timed_work_where_the_programs_mark_it():
    """A run whose programs marked their timed work: per op is that work's
    (every vCPU), not all kernel-mode work; the block says which."""
    timed = WINDOWS + [
        "window run=1 index=0 vcpu=0 mode=timed insns=900 accesses=280 l1d_misses=30 "
        "l2_misses=15 llc_misses=5",
        "window run=1 index=0 vcpu=1 mode=timed insns=0 accesses=0 l1d_misses=0 l2_misses=0 "
        "llc_misses=0",
        "window run=1 index=1 vcpu=0 mode=timed insns=2700 accesses=850 l1d_misses=100 "
        "l2_misses=50 llc_misses=20",
        "window run=1 index=1 vcpu=1 mode=timed insns=100 accesses=10 l1d_misses=0 "
        "l2_misses=0 llc_misses=0"]
    samples = [{"index": 0, "warmup": True, "ops": 10}, {"index": 1, "warmup": False, "ops": 100}]
    block = cachemodel.block(MACHINE, cachemodel.read_windows(timed), samples)
    assert block["scope"] == "timed"
    assert block["per_op"]["insns"] == 28 and block["per_op"]["llc_misses"] == 0.2
    assert cachemodel.block(MACHINE, cachemodel.read_windows(WINDOWS), samples)["scope"] == \
        "kernel"


def test_walks_cost_their_loads_and_l2_tlb_hits_their_latency():
    """A window with TLB counts: walks' loads cost the L1D latency each and
    their misses as data misses; L1 DTLB misses that hit the L2 TLB cost its
    latency; a machine without TLBs (:no-tlb) leaves them out."""
    line = ("window run=1 index=0 vcpu=0 mode=kernel insns=300 accesses=90 l1d_misses=12 "
            "l2_misses=6 llc_misses=3 dtlb_misses=20 walks=5 walk_loads=8 walk_l1d_misses=4 "
            "walk_l2_misses=2 walk_llc_misses=1 unwalkable=0")
    block = cachemodel.block(MACHINE, cachemodel.read_windows([line]),
                             [{"index": 0, "warmup": False, "ops": 10}])
    per_op = block["per_op"]
    assert per_op["walks"] == 0.5 and per_op["unwalkable"] == 0
    # data: 30/2 + 0.6x10 + 0.3x40 + 0.3x200; walks: 0.8x4 + 0.2x10 + 0.1x40 + 0.1x200;
    # L2 TLB hits: (2.0 - 0.5) x 7
    assert per_op["model_cycles"] == pytest.approx(93 + 3.2 + 2 + 4 + 20 + 10.5)
    bare = MACHINE.without("tlb")
    assert bare.name == "t:no-tlb" and "TLBs" in bare.leaves_out()
    assert "TLBs" not in MACHINE.leaves_out()
    assert "dtlb=" not in bare.plugin_arg("out") and ",dtlb=kmg:4:4,stlb=km:16:4,pwc=2" in \
        MACHINE.plugin_arg("out")
    assert cachemodel.named("zen4:no-tlb").tlb is None


def test_the_plugin_argument_is_the_machine_and_what_to_record():
    m = cachemodel.named("zen4")
    arg = m.plugin_arg("/o", profile=True, trace=("/t", 5))
    assert arg.startswith(f"{cachemodel.PLUGIN},out=/o,{m.words()},")
    assert arg.endswith(",profile=on,trace=/t,trace_accesses=5")
    assert m.words().startswith("name=zen4,l1d=") and "out=" not in m.words()


def test_an_overlapped_miss_costs_no_penalty_of_its_own():
    """Misses an earlier one hid leave their level's term; the machine's
    plugin argument carries the window, and :no-overlap drops it."""
    counts = {"insns": 30.0, "l1d_misses": 2.0, "l2_misses": 1.5, "llc_misses": 1.0}
    hidden = dict(counts, overlapped_l2_hits=0.5, overlapped_llc_hits=0.25,
                  overlapped_memory=0.5)
    assert MACHINE.cycles(counts) - MACHINE.cycles(hidden) == pytest.approx(
        0.5 * 10 + 0.25 * 40 + 0.5 * 200)
    assert ",rob=100,mshr=4" in MACHINE.plugin_arg("out")
    assert "rob=" not in MACHINE.without("overlap").plugin_arg("out")
    assert "overlapping misses" in MACHINE.without("overlap").leaves_out()


def test_prefetchers_switch_off_one_by_one_and_cost_nothing():
    """Each prefetcher has its own switch in the name and the plugin's
    arguments; prefetches change counts, never costs."""
    m = cachemodel.named("zen4")
    # a line waits its level's penalty: 10/45/300 cycles at 3 instructions a cycle
    assert ",stream=2,stride=on,adjacent=on,wait=30:135:900" in m.plugin_arg("out")
    assert ",stream=" not in m.without("stream").plugin_arg("out")
    assert "stride=on" not in cachemodel.named("zen4:no-stride").plugin_arg("out")
    assert "adjacent=on" not in cachemodel.named("zen4:no-adjacent").plugin_arg("out")
    bare = cachemodel.named("zen4:no-stream:no-stride:no-adjacent")
    assert bare.prefetch is None and "prefetchers" in bare.leaves_out()
    assert "prefetchers" not in m.leaves_out()
    assert cachemodel.named("zen4:no-prefetch").record()["prefetch"] is None
    assert cachemodel.named("zen4:no-tlb:no-prefetch").tlb is None
    assert cachemodel.named("zen4:no-such") is None and cachemodel.named("z80") is None
    counts = {"insns": 30.0, "l1d_misses": 2.0, "l2_misses": 1.0, "llc_misses": 0.5}
    assert m.cycles(dict(counts, prefetches=9.0, prefetch_memory=4.0)) == m.cycles(counts)
    assert Prefetch(0, False, True).without("adjacent") is None


def test_a_mispredicted_branch_costs_the_machines_penalty_where_asked_for():
    """The predictor is modelled where the name asks (zen4:branch): its
    mispredicts cost the machine's penalty each, branches nothing; zen4
    alone has none, in the plugin's arguments or the cost; a run counted on
    zen4 while it had one reads as zen4:branch, one from before as zen4."""
    m = cachemodel.named("zen4:branch")
    assert ",branch=14:12" in m.plugin_arg("out") and m.branch.penalty == 13
    counts = {"insns": 30.0, "l1d_misses": 0.0, "l2_misses": 0.0, "llc_misses": 0.0}
    counted = dict(counts, branches=6.0, mispredicts=0.5)
    assert m.cycles(counted) - m.cycles(counts) == pytest.approx(0.5 * 13)
    bare = cachemodel.named("zen4")
    assert "branch=" not in bare.plugin_arg("out") and "branch prediction" in bare.leaves_out()
    assert m.leaves_out().endswith(", a gshare branch predictor, no coherence traffic")
    assert bare.cycles(counted) == bare.cycles(counts)
    assert m.without("branch").name == "zen4" and m.without("tlb").name == "zen4:branch:no-tlb"
    assert cachemodel.named("zen4:branch:no-tlb").branch == m.branch
    assert cachemodel.as_recorded(dict(m.record(), name="zen4")).name == "zen4:branch"
    before = {k: v for k, v in m.record().items() if k != "branch"}
    assert cachemodel.as_recorded(dict(before, name="zen4")).name == "zen4"


def test_a_machine_name_takes_any_switches_and_nothing_else():
    """--model takes NAME with any :no-MECHANISM; anything else is one line."""
    from mapbench.guest.options import machine_name
    assert machine_name("zen4:no-tlb:no-stride") == "zen4:no-tlb:no-stride"
    proc = run_script("vmrun", "--kernel", "k", "--model", "zen4:no-cache", "--", "htab-lookup")
    assert proc.returncode == 64 and "no machine 'zen4:no-cache'" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_run_is_read_as_the_machine_it_was_counted_on():
    """A set counted before zen4 had prefetchers is zen4:no-prefetch's, not
    today's zen4; a definition no machine has is none."""
    before = cachemodel.named("zen4:no-prefetch").record()
    before = {k: v for k, v in dict(before, name="zen4").items() if k != "prefetch"}
    assert cachemodel.as_recorded(before).name == "zen4:no-prefetch"
    assert cachemodel.as_recorded(cachemodel.named("zen4").record()).name == "zen4"
    assert cachemodel.as_recorded(dict(before, name="zen4:no-tlb", tlb=None)).name == \
        "zen4:no-tlb:no-prefetch"
    assert cachemodel.as_recorded(dict(before, ipc=9.0)) is None


def test_a_run_cut_short_has_no_model_block():
    windows = cachemodel.read_windows(WINDOWS[:5])      # sample 1's window never closed
    samples = [{"index": 0, "warmup": False, "ops": 10}, {"index": 1, "warmup": False, "ops": 9}]
    assert cachemodel.block(MACHINE, windows, samples) is None


def test_every_machine_builds_in_the_plugin():
    """The plugin takes power-of-two sets only (plugin/cache.c, plugin/mmu.c)."""
    def power_of_two_sets(entries, ways):
        sets = entries // ways
        return sets * ways == entries and sets & (sets - 1) == 0
    every = [cachemodel.named(":".join([asked, *(f"no-{m}" for m in off)]))
             for b in cachemodel.BASE for asked in (b.name, f"{b.name}:branch")
             for n in range(len(cachemodel.MECHANISMS) + 1)
             for off in itertools.combinations(cachemodel.MECHANISMS, n)]
    for m in every:
        assert m.prefetch is None or m.prefetch.stream <= 8     # plugin/prefetch.h
        assert m.branch is None or m.branch.history_bits <= m.branch.table_bits <= 24
        for size, ways in zip(m.size, m.ways):
            assert size % m.line == 0 and power_of_two_sets(size // m.line, ways), m.name
        for array in (m.tlb.l1.split("+") + m.tlb.l2.split("+") if m.tlb else []):
            pages, entries, ways = array.split(":")
            assert set(pages) <= set("kmgs") and power_of_two_sets(int(entries), int(ways))
    assert cachemodel.named(cachemodel.DEFAULT)


@pytest.fixture
def model_sets(tmp_path):
    """Sets of two guest runs each, with model blocks and environments as
    vmrun writes them."""
    def make(name, machine, cycles):
        for n in (1, 2):
            doc = result_doc("htab-lookup", [5.0] * 3)
            doc["environment"]["vm"] = {
                "accelerator": "tcg", "clock": "icount", "qemu_version": "10.0.2", "vcpus": 1,
                "memory_mib": 2048, "kernel_image": "k", "boot": n, "boot_of_kernel": n,
                "boots_of_kernel": 2, "warmup": False,
                "model": cachemodel.named(machine).record()}
            doc["model"] = {"source": "model", "machine": machine, "ops": 3000, "windows": [],
                            "per_op": {"insns": 180.0, "accesses": 50.0, "l1d_misses": 2.0,
                                       "l2_misses": 1.5, "llc_misses": 1.0,
                                       "model_cycles": cycles}}
            out = tmp_path / name / f"run-{n}.json"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(doc))
        return tmp_path / name
    return make


def test_modelled_metrics_are_labelled_and_compared(model_sets):
    a, b = model_sets("a", "zen4", 600.0), model_sets("b", "zen4", 660.0)
    run = results.load_path(a)[0]
    assert run.metrics["model_cycles"] == 600.0 and run.metrics["llc_misses"] == 1.0
    assert run.unit("model_cycles") == "modelled cycles/op [zen4 model]"
    proc = run_script("compare", str(a), str(b), "--metric", "model_cycles")
    assert "+10.00%" in proc.stdout, proc.stdout + proc.stderr
    assert "modelled figures" in proc.stdout


def test_sets_of_two_models_are_not_compared(model_sets):
    a, b = model_sets("a", "zen4", 600.0), model_sets("b", "skylake-sp", 600.0)
    proc = run_script("gate", str(a), str(b), "--metric", "model_cycles")
    assert proc.returncode != 0
    assert "differ in model: zen4 vs skylake-sp" in proc.stdout


@pytest.fixture
def fake_image(tmp_path):
    image = tmp_path / "bzImage"
    image.write_bytes(b"\0" * 0x202 + b"HdrS" + b"\0" * 64)
    return image


def test_the_model_without_qemu_10_is_unsupported_in_one_line(fake_image, monkeypatch):
    def nowhere(progress=print):
        raise qemu10.Unsupported("Debian bookworm-backports offers no QEMU 10")
    monkeypatch.setattr(qemu10, "fetch", nowhere)
    proc = run_script("vmrun", "--kernel", str(fake_image), "--model", "zen4", "--", "htab-lookup")
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("vmrun: --model zen4: unsupported here: Debian "
                                   "bookworm-backports offers no QEMU 10"), proc.stderr


def test_the_model_needs_the_icount_clock(fake_image):
    proc = run_script("vmrun", "--kernel", str(fake_image), "--model", "zen4", "--clock", "host",
                      "--", "htab-lookup")
    assert proc.returncode == 2 and "drop --clock host" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("how", [["--smp", "2"], ["--topology", "epyc-1s-2ccx"]])
def test_the_model_boots_one_vcpu(fake_image, how):
    proc = run_script("vmrun", "--kernel", str(fake_image), "--model", "zen4", *how, "--",
                      "htab-lookup")
    assert proc.returncode == 64 and "run it with --smp 1" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_guest_run_on_the_model_repeats_exactly(root, debian_6_12, tmp_path):
    """The plugin builds and loads on the fetched QEMU 10; two boots of one
    kernel count the same misses and cycles per op, to the last digit, and
    the profile puts them in the map's functions."""
    if shutil.which("apt-get") is None:
        pytest.skip("no apt-get to fetch QEMU 10")
    out, trace = tmp_path / "m", tmp_path / "boot-1.trace"
    proc = run_script("vmrun", "--kernel", str(debian_6_12), "--label", str(out), "--profile",
                      "--model", "zen4:branch", "--no-sample-layouts", "--boots", "2",
                      "--warmup-runs", "0", "-w", "1", "-d", "1",
                      "--model-trace", str(trace), "--model-trace-accesses", "200000", "--",
                      "htab-lookup", "--max-entries", "1K")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    docs = [json.loads(f.read_text()) for f in sorted(out.glob("*/run-*.json"))]
    assert len(docs) == 2
    # the first boot, recorded, counted what the second did
    first, second = (d["model"]["per_op"] for d in docs)
    assert first == second
    # and its trace, replayed without QEMU, counts what the boot had counted when it ended
    cost = subprocess.run([str(ROOT / "build" / "model-cost"), "--trace", str(trace)],
                          capture_output=True, text=True)
    assert cost.returncode == 0 and "counts what the boot counted: yes" in cost.stdout, \
        cost.stdout + cost.stderr
    assert "+ branch predictor" in cost.stdout
    # it holds the instructions the timed work ran, each block's code with it
    t = mbtrace.read(trace)
    _, stream, missing = mbtrace.executed(t, 10 ** 9)
    assert missing == 0
    assert len(stream) / (t.accesses / first["accesses"]) == pytest.approx(first["insns"], rel=0.05)
    assert first["l1d_misses"] >= first["l2_misses"] >= first["llc_misses"]
    # per op is the work the program timed: icount's ns/op, its instructions
    assert docs[0]["model"]["scope"] == "timed"
    assert first["insns"] == pytest.approx(docs[0]["summary"]["latency_ns"]["median"], rel=0.02)
    assert first["model_cycles"] > 0 and docs[0]["environment"]["vm"]["model"]["name"] == \
        "zen4:branch"
    assert len(docs[0]["model"]["windows"]) == len(docs[0]["samples"])
    profile = docs[0]["model"]["profile"]
    assert docs[1]["model"]["profile"] == profile
    # every kernel instruction of the measured samples lands in some function
    assert sum(r["insns"] for r in profile) == pytest.approx(first["insns"], rel=1e-3)
    # the predictor saw the lookups' conditional branches, each in its function
    assert 0 < first["mispredicts"] < first["branches"] < first["insns"] / 2
    assert sum(r["branches"] for r in profile) == pytest.approx(first["branches"], rel=1e-3)
    assert {"htab_map_hash", "lookup_nulls_elem_raw"} <= {r["function"] for r in profile[:8]}


KALLSYMS = """ffffffff81000000 T _stext
ffffffff81200000 T htab_map_lookup_elem
ffffffff81200100 t lookup_nulls_elem_raw
ffffffff81200400 D some_data
ffffffff81300000 T bpf_loop
0000000000000000 T hidden_by_kptr_restrict
"""


def test_sites_are_named_by_function_and_costed_per_op():
    symbols = cachemodel.Symbols(KALLSYMS)
    sites = cachemodel.read_sites([
        "site run=1 vaddr=0xffffffff81200010 insns=300 accesses=50 l1d_misses=10 l2_misses=10 "
        "llc_misses=10",
        "site run=1 vaddr=0xffffffff81200140 insns=100 accesses=50 l1d_misses=0 l2_misses=0 "
        "llc_misses=0",
        "site run=1 vaddr=0xffffffff812001f0 insns=100 accesses=0 l1d_misses=0 l2_misses=0 "
        "llc_misses=0",
        "site run=1 vaddr=0xffffffff81300008 insns=1000 accesses=0 l1d_misses=0 l2_misses=0 "
        "llc_misses=0",
        "site run=1 vaddr=0xffffffffc0001200 insns=400 accesses=0 l1d_misses=0 l2_misses=0 "
        "llc_misses=0"])
    rows = cachemodel.profile(MACHINE, sites, symbols, ops=100)
    # htab_map_lookup_elem: 3 insns/op / 2 + 0.1 LLC misses/op x 200 = 21.5 cycles/op
    assert [r["function"] for r in rows] == ["htab_map_lookup_elem", "bpf_loop",
                                             cachemodel.Symbols.BPF, "lookup_nulls_elem_raw"]
    assert rows[0]["model_cycles"] == pytest.approx(1.5 + 20)
    assert rows[3]["insns"] == 2.0 and rows[3]["accesses"] == 0.5
    # the run's JIT'd programs, as ./bench --jit-symbols records them, by name
    named = symbols.with_programs([{"name": "bpf_prog_9048070ded41d803_xdp_for",
                                    "addr": "0xffffffffc0001000"}])
    rows = cachemodel.profile(MACHINE, sites, named, ops=100)
    assert "bpf_prog_xdp_for" in [r["function"] for r in rows]
    assert cachemodel.Symbols.BPF not in [r["function"] for r in rows]


def test_the_report_says_where_a_change_is(model_sets):
    a, b = model_sets("a", "zen4", 600.0), model_sets("b", "zen4", 700.0)
    rows = {"a": [("htab_map_lookup_elem", 30.0, 1.0, 330.0), ("bpf_loop", 20.0, 0.0, 7.0)],
            "b": [("htab_map_lookup_elem", 30.0, 1.3, 420.0), ("bpf_loop", 21.0, 0.0, 7.3)]}
    for side, folder in (("a", a), ("b", b)):
        for f in folder.glob("run-*.json"):
            doc = json.loads(f.read_text())
            doc["model"]["profile"] = [{"function": n, "insns": i, "accesses": 9.0,
                                        "l1d_misses": m, "l2_misses": m, "llc_misses": m,
                                        "model_cycles": c} for n, i, m, c in rows[side]]
            f.write_text(json.dumps(doc))
    out = run_script("report", str(a), str(b), "--metric", "model_cycles").stdout
    where = out[out.index("Where (htab-lookup"):]
    first, second = where.splitlines()[3:5]
    assert first.startswith("htab_map_lookup_elem") and "+0.00 insns/op, +0.30 LLC misses/op" in first
    assert second.startswith("bpf_loop") and "+1.00 insns/op, +0.00 LLC misses/op" in second
    gate = run_script("gate", str(a), str(b), "--metric", "model_cycles").stdout
    assert "where: htab-lookup: htab_map_lookup_elem +0.00 insns/op, +0.30 LLC misses/op" in gate


def test_the_clock_is_fitted_as_the_error_is_judged():
    """Two seed rows, one modelled 2 cycles a ns and one 8, and a large row
    of another machine: the clock is their geometric mean, 4 GHz, both off
    by the same factor; least squares in ns would let the large row choose
    it. At the part's documented clock nothing is fitted."""
    m = dataclasses.replace(cachemodel.named("zen4"), ghz=2.0)
    rows = [("a", 10.0, {"insns": 60.0}, True), ("b", 1000.0, {"insns": 24000.0}, True),
            ("lpm", 5000.0, {"insns": 3.0}, False)]
    r = calibration.fit(rows, m)
    assert r["ghz"] == pytest.approx(4.0)
    assert list(r["model_ns"][:2] / r["hw_ns"][:2]) == pytest.approx([0.5, 2.0])
    assert calibration.documented(m, r) == "at 2.00 GHz | 100%"
    assert calibration.documented(dataclasses.replace(m, ghz=None), r) == "- | -"


def test_the_calibration_recovers_known_costs_and_names_its_rows(tmp_path, monkeypatch):
    """Seed 004's rows made from counts whose hardware cost is known (1 ns an
    instruction, 5 an L2 hit, 20 an LLC hit, 80 a memory access, 3 a walk's
    load, 7 an L2 TLB hit, 13 a mispredict): the fit
    gives those costs back, and a machine whose cycles are that cost has no
    residual at its one clock rate."""
    truth = np.array([1, 5, 20, 80, 3, 7, 13])
    costed = Machine("m", "", (1, 1, 1), (1, 1, 1), (5, 20, 80), 1.0, 3,
                     Tlb("k:1:1", "k:1:1", 0, 7), branch=Branch(1, 0, 13))
    rng = np.random.default_rng(3)
    monkeypatch.setattr(calibration, "SEED_004", dict(calibration.SEED_004))
    for i, ((m, key, size), _) in enumerate(calibration.SEED_004.items()):
        llc, l2, l1 = sorted(rng.uniform(0, 4, 3))
        counts = {"insns": 100 + key * 4, "l1d_misses": l1 + 1, "l2_misses": l2 + 0.5,
                  "llc_misses": llc, "walks": rng.uniform(0, 1), "walk_loads": rng.uniform(1, 3),
                  "dtlb_misses": rng.uniform(1, 2), "mispredicts": rng.uniform(0, 2)}
        ns = float(np.array(costed.cost_terms(counts)) @ truth)
        calibration.SEED_004[(m, key, size)] = 1e3 / ns
        doc = result_doc("bpf-hashmap-lookup", [1.0],
                         {"map": m, "key_size": key, "max_entries": size, "nr_entries": size},
                         env={"vm": dict(ICOUNT["vm"], model={"name": "zen4"})})
        doc["model"] = {"machine": "zen4", "per_op": counts}
        (tmp_path / f"c{i}").mkdir()
        (tmp_path / f"c{i}" / "run-1.json").write_text(json.dumps(doc))
    found, machines = calibration.rows(tmp_path)
    assert {m.name for m in machines} == {"zen4"} and len(found) == 12
    fitted = calibration.fit(found, costed)
    assert list(fitted["costs"].values()) == pytest.approx(truth, rel=1e-6)
    assert fitted["ghz"] == pytest.approx(1.0) and fitted["model_ns"] == pytest.approx(
        fitted["hw_ns"])
    text = calibration.report(tmp_path)
    assert "htab lookup 8 B 1K" in text
    # the rows' hardware figures came from the counts: every pair in its direction
    assert "htab against rhtab: 6 of 6 in the hardware's direction\n" in text


def test_the_ablation_sets_each_machine_beside_the_full_one(tmp_path):
    """Two calibration sets, zen4:branch and zen4:no-tlb, each also costed
    without its overlapped misses (and the first without its mispredicts): a
    column of each per seed row, misses no longer hidden costlier,
    mispredicts free; walks that turn rhtab's lead at 1M put those pairs out
    of the hardware's direction."""
    for machine, walk_loads in (("zen4:branch", 4.0), ("zen4:no-tlb", None),
                                ("zen4:no-prefetch", 4.0)):
        for i, (m, key, size) in enumerate(calibration.SEED_004):
            counts = {"insns": 100.0 + key + (m == "rhtab"), "l1d_misses": 1.0, "l2_misses": 0.5,
                      "llc_misses": 0.25 if m == "htab" or size == 1000 else 0.2,
                      "overlapped_memory": 0.1, "branches": 9.0, "mispredicts": 0.5}
            if walk_loads and size == 1000000 and m == "rhtab":
                counts.update(walks=1.0, walk_loads=walk_loads, dtlb_misses=1.0,
                              walk_l1d_misses=1.0, walk_l2_misses=1.0)
            doc = result_doc("bpf-hashmap-lookup", [1.0],
                             {"map": m, "key_size": key, "max_entries": size, "nr_entries": size},
                             env={"vm": dict(ICOUNT["vm"], model={"name": machine})})
            doc["model"] = {"machine": machine, "per_op": counts}
            (tmp_path / machine / f"c{i}").mkdir(parents=True)
            (tmp_path / machine / f"c{i}" / "run-1.json").write_text(json.dumps(doc))
    text = calibration.report(tmp_path / "zen4:branch", [tmp_path / "zen4:no-tlb"])
    ablation = text[text.index("Ablation"):]
    assert ("| row | hardware ns/op | zen4:branch cycles/op | off | zen4:branch:no-overlap "
            "cycles/op | off | zen4 cycles/op | off | zen4:no-tlb cycles/op | off | "
            "zen4:no-tlb:no-overlap cycles/op | off |") in ablation
    (_, full), (_, serial), (_, unpredicted) = calibration.variants(tmp_path / "zen4:branch")
    (_, no_tlb), (_, bare) = calibration.variants(tmp_path / "zen4:no-tlb")
    i = full["names"].index("rhtab lookup 8 B 1M")
    assert full["cycles"][i] > no_tlb["cycles"][i]
    assert serial["cycles"] == pytest.approx(full["cycles"] + 0.1 * 300)
    assert unpredicted["cycles"] == pytest.approx(full["cycles"] - 0.5 * 13)
    assert calibration.directions(bare) == \
        "htab against rhtab: 5 of 6 in the hardware's direction (not at 256 B 1K)"
    assert calibration.directions(full).startswith("htab against rhtab: 2 of 6")
    # more sets through the command line: a column pair each
    out = run_script("report", str(tmp_path / "zen4:branch"), str(tmp_path / "zen4:no-tlb"),
                     "--ablation", str(tmp_path / "zen4:no-prefetch"), "--style",
                     "calibration").stdout
    assert "| zen4:no-prefetch cycles/op | off | zen4:no-prefetch:no-overlap cycles/op |" in out
    refused = run_script("report", str(tmp_path / "zen4:branch"), "--ablation",
                         str(tmp_path / "zen4:branch"))
    assert refused.returncode == 64 and "--style calibration" in refused.stderr


def test_where_names_the_deepest_level_whose_misses_moved():
    """A table that outgrew L2 but not the LLC: its L2 misses moved, its LLC
    misses did not; the headline says L2 (it said +0.00 LLC misses)."""
    before = {"insns": 30.0, "l1d_misses": 1.0, "l2_misses": 0.5, "llc_misses": 0.3}
    after = {"insns": 30.0, "l1d_misses": 1.2, "l2_misses": 0.7, "llc_misses": 0.3}
    assert where.headline(before, after) == "+0.00 insns/op, +0.20 L2 misses/op"
    assert where.headline(before, before) == "+0.00 insns/op, +0.00 LLC misses/op"
    # a model with TLBs: walks named where they moved
    assert where.headline(dict(before, walks=0.1), dict(after, walks=1.1)) == \
        "+0.00 insns/op, +0.20 L2 misses/op, +1.00 page walks/op"
    assert where.headline(dict(before, walks=0.1), dict(after, walks=0.1)) == \
        "+0.00 insns/op, +0.20 L2 misses/op"
    # a model with a predictor: mispredicts too
    assert where.headline(dict(before, mispredicts=0.5), dict(after, mispredicts=0.2)) == \
        "+0.00 insns/op, +0.20 L2 misses/op, -0.30 mispredicts/op"


def test_two_builds_counted_on_one_layout_are_not_judged(model_sets):
    """Issue 58: without sampled layouts a build change moved modelled cycles
    by a certain-looking 0.5-1.8% ("-0.50%, MDE 0.0%, p 1e-05, different"):
    two builds' modelled figures counted so are inconclusive in every tool;
    with a layout drawn per boot they are judged."""
    a, b = model_sets("a", "zen4", 600.0), model_sets("b", "zen4", 660.0)
    for folder, release in ((a, "7.2.13-mb-before"), (b, "7.2.13-mb-after")):
        for f in folder.glob("run-*.json"):
            doc = json.loads(f.read_text())
            doc["environment"]["kernel_release"] = release
            f.write_text(json.dumps(doc))
    for tool in ("gate", "compare", "report"):
        proc = run_script(tool, str(a), str(b), "--metric", "model_cycles", "--json")
        (row,) = json.loads(proc.stdout)["rows"]
        assert row["verdict"] == "inconclusive", (tool, row)
        assert "without sampled layouts" in row["result"] and "REGRESSION" in row["result"]
    assert "layouts (" not in run_script("gate", str(a), str(b), "--metric", "model_cycles").stdout
    for n, f in enumerate(sorted(a.glob("run-*.json")) + sorted(b.glob("run-*.json"))):
        doc = json.loads(f.read_text())
        doc["environment"]["vm"]["layout_draw"] = 1000 + n
        doc["model"]["per_op"]["model_cycles"] *= 1 + 0.001 * n      # layouts spread a little
        f.write_text(json.dumps(doc))
    gate = run_script("gate", str(a), str(b), "--metric", "model_cycles")
    assert gate.returncode == 1 and "REGRESSION" in gate.stdout, gate.stdout
    # and every tool says how far the layouts alone moved each side: 600 and
    # 600.6 cycles, then 661.32 and 661.98: sd / mean 0.0707% and 0.0705%
    for tool in ("gate", "compare", "report"):
        out = run_script(tool, str(a), str(b), "--metric", "model_cycles").stdout
        for side in ("before", "after"):
            assert (f"layouts ({side}): htab-lookup: model_cycles moves 0.07% between layouts "
                    "(sd of 2 boots' figures, each boot its own draw)") in out, (tool, out)
