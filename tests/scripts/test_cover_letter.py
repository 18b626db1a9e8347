"""report --style cover-letter on guest-shaped sets of suite htab-elem whose
answers are known: the seeds' memory table from the kernel's accounting,
the per-CPU maps' whole element at the guest's CPUs and at 64 and 256, the
htab-mem table with a verdict and MDE per row, the lookups in instructions
and modelled cycles, and the environment line."""
import json

from mapbench.commands import ab
from test_analysis import result_doc, script
from test_guest_verdicts import guest_env

# (row, element bytes before, after, per-CPU bytes over the 2 possible CPUs)
MEMORY = [("Standard (prealloc)", 64, 32, None), ("Per-CPU (prealloc)", 64, 32, 16),
          ("Per-CPU (non-prealloc)", 64, 40, 16), ("LRU", 64, 64, None)]


def mem_rows(side):
    return [{"label": label, "map": "htab", "status": "ok", "prealloc": True, "key_size": 8,
             "value_size": 8, "bytes_per_element": (old if side == "a" else new) + (pc or 0),
             "element_bytes": old if side == "a" else new, "fixed_bytes": 0,
             "per_cpu_value_bytes": pc, "charged_bytes_per_element": None, "points": []}
            for label, old, new, pc in MEMORY]


def write(folder, name, doc, kernel, boot):
    # 2 possible CPUs, 1 online: the values are charged on the possible ones
    doc["environment"] = dict(guest_env(kernel, boot, warmup=False), online_cpus=1,
                              mapbench_revision="abc")
    path = folder / name / f"boot-{boot}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))


def htab_elem_set(folder, side, modelled=True):
    """Two boots of the suite: mem, htab-mem's prealloc overwrite (4% faster
    after) and normal overwrite (unchanged), lookups at 1K (0.3% more
    instructions after) and 1M, with modelled cycles (2% fewer at 1M)."""
    kernel = f"7.2.13-{side}"
    for boot in (1, 2):
        mem = {"schema": "mapbench-result", "schema_version": 2, "status": "complete",
               "benchmark": "mem", "family": "mem", "command": ["./bench", "mem"],
               "params": {"map": "htab", "key_size": 8, "value_size": 8},
               "memory": {"cgroup": "none", "sizes": [524289, 1000000], "rows": mem_rows(side)}}
        write(folder, "mem", mem, kernel, boot)
        for prealloc, speed in ((True, 1.04), (False, 1.0)):
            value = 100.0 * (speed if side == "b" else 1.0) * (1 + 1e-6 * boot)
            doc = result_doc("htab-mem-overwrite", [value] * 3,
                             params={"prealloc": prealloc, "producers": 2},
                             figure=("per-prod-op", "k/s", "wall"))
            write(folder, f"htab-mem-{prealloc}", doc, kernel, boot)
        for entries, insns, cycles in ((1000, 180.0, 50.0), (1000000, 200.0, 300.0)):
            more = 1.003 if side == "b" and entries == 1000 else 1.0
            fewer = 0.98 if side == "b" and entries == 1000000 else 1.0
            doc = result_doc("htab-lookup", [1000.0 / (insns * more)] * 3,
                             params={"map": "htab", "key_size": 8, "max_entries": entries,
                                     "nr_entries": entries})
            for s in doc["samples"]:
                s["latency_ns"] = insns * more * (1 + 1e-7 * boot)
            if modelled:
                doc["model"] = {"per_op": {"model_cycles": cycles * fewer * (1 + 1e-4 * boot)}}
            write(folder, f"lookup-{entries}", doc, kernel, boot)
    return folder


def test_the_cover_letter_has_every_table_of_the_seeds(tmp_path):
    a, b = htab_elem_set(tmp_path / "a", "a"), htab_elem_set(tmp_path / "b", "b")
    proc = script("report", a, b, "--style", "cover-letter")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for label, old, new, _ in MEMORY:
        saving = f"{(old - new) / old * 100:.1f}%"
        assert any(line.startswith(label) and f"{old} B" in line and f"{new} B" in line
                   and line.endswith(saving) for line in out.splitlines()), (label, out)
    # the per-CPU maps' whole element: 8 B a CPU, at 2, 64 and 256 CPUs
    for cpus, before, after in ((2, 80, 48), (64, 576, 544), (256, 2112, 2080)):
        assert any(line.startswith("Per-CPU (prealloc)") and f"| {cpus} |" in line.replace(
            "  ", " ").replace("  ", " ") and f"{before} B" in line and f"{after} B" in line
            for line in out.splitlines()), (cpus, out)
    assert "each CPU holds 8 B of an element's value" in out
    prealloc = next(x for x in out.splitlines() if x.startswith("prealloc overwrite"))
    assert "+4.00%" in prealloc and "improvement" in prealloc and "MDE" in prealloc, prealloc
    normal = next(x for x in out.splitlines() if x.startswith("normal overwrite"))
    assert "no significant change" in normal and "MDE" in normal, normal
    assert "Lookups, latency (instructions/op [icount" in out
    assert "Lookups, model_cycles (modelled cycles/op" in out
    one_k = [x for x in out.splitlines() if x.startswith("htab-lookup max_entries=1000 ")]
    assert len(one_k) == 2 and "+0.30%" in one_k[0] and "-0.0" not in one_k[0], one_k
    assert out.splitlines()[-1].startswith("Environment: before kernel 7.2.13-a, TCG guest, "
                                           "icount clock; after kernel 7.2.13-b")
    assert "boots a side: 2/2" in out.splitlines()[-1]
    assert "guest CPU" in out.splitlines()[-1]


def test_runs_without_the_model_have_no_modelled_table_or_note(tmp_path):
    a = htab_elem_set(tmp_path / "a", "a", modelled=False)
    b = htab_elem_set(tmp_path / "b", "b", modelled=False)
    proc = script("report", a, b, "--style", "cover-letter")
    assert proc.returncode == 0, proc.stderr
    assert "Lookups, latency" in proc.stdout and "icount clock:" in proc.stdout
    assert "model_cycles" not in proc.stdout and "modelled" not in proc.stdout, proc.stdout


def test_sets_without_the_suite_say_what_to_run(tmp_path):
    a = tmp_path / "a"
    write(a, "x", result_doc("noop", [1.0] * 3), "k", 1)
    proc = script("report", a, a, "--style", "cover-letter")
    assert proc.returncode == 3 and "scripts/suite run htab-elem" in proc.stderr, proc.stderr


def test_the_per_patch_table_tells_each_configuration_apart(tmp_path):
    """Rows of one benchmark say what differs between them (a series over
    suite htab-elem once printed two rows that both read "htab-lookup")."""
    a, b = htab_elem_set(tmp_path / "a", "a"), htab_elem_set(tmp_path / "b", "b")
    table, _ = ab.series_table([a, b], ["0001-x.patch"], None)
    benches = [line.split("|")[1].strip() for line in table.splitlines()
               if line.startswith("1. 0001-x.patch")]
    assert "htab-lookup max_entries=1000 nr_entries=1000" in benches, table
    assert any(x.startswith("mem ") and x.endswith("row=Per-CPU (prealloc)") for x in benches)
    assert len(set(benches)) == len(benches), table
