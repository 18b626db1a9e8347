"""README.org states what ./bench does: its benchmark table is the registry's."""
import re

from conftest import ROOT, run_bench


def test_benchmark_table_is_the_contract_table():
    readme = (ROOT / "README.org").read_text()
    block = re.search(r"^# contracts:begin[^\n]*\n(.*?)^# contracts:end", readme, re.S | re.M)
    assert block, "README.org lost its contracts:begin/end block"
    proc = run_bench("--contracts")
    assert proc.returncode == 0, proc.stderr
    assert block.group(1) == proc.stdout, "README's benchmark table differs from ./bench --contracts"


def test_every_benchmark_has_a_unit_and_a_clock():
    rows = [r.strip("|").split("|") for r in run_bench("--contracts").stdout.splitlines()[2:]]
    names = run_bench("-l").stdout
    for name, alias, workload, walk, trigger, loop, batch, figure, unit, clock in (
            [c.strip() for c in r] for r in rows):
        assert name in names and workload and walk and figure and unit
        assert trigger in ("xdp", "raw_tp", "fentry", "close", "none"), name
        assert loop in ("auto", "bpf_for", "bpf_loop", "none") and int(batch) >= 0, name
        assert clock in ("wall", "in-kernel", "none"), name
