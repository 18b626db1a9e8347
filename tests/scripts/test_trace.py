"""scripts/trace on traces written here in plugin/trace.h's format: the
timed work read between its markers, loads a store served, and a dataflow
bound that a chain of pointer-following loads and a full reorder window
each set, and that independent loads leave at the issue time."""
import json

import numpy as np
import pytest

from conftest import run_script

from mapbench import trace

NCPUS = 2
STACK, DATA = 0xffffc90000010000, 0xffff888010000000


def record(kind, **fields):
    r = np.zeros(1, trace.RECORD)
    r["type"] = ord(kind)
    for k, v in fields.items():
        r[k] = v
    return r.tobytes()


def mark(command):
    return record("M", arg=command) + bytes(8 * NCPUS * 2)


def access(vaddr, insns, value=0, store=False):
    return record("A", arg2=8, store=int(store), v=[vaddr, vaddr & 0xffffff, 0x1000, value, insns])


def write(path, *records):
    path.write_bytes(f"mapbench-trace 1 vcpus={NCPUS} name=tiny,l1d=256:2\n".encode()
                     + b"".join(records) + record("E") + b"vcpu=0 mode=kernel insns=0\n")
    return path


def test_only_timed_work_is_read_and_markers_skip_their_counters(tmp_path):
    t = trace.read(write(tmp_path / "t",
                         mark(1), access(DATA, 1),                     # run begins: not timed
                         mark(trace.TIMED), access(DATA + 8, 2), access(DATA + 16, 3),
                         mark(trace.UNTIMED), access(DATA + 24, 4),
                         mark(trace.TIMED), access(DATA + 32, 5), mark(3)))
    assert t.ncpus == NCPUS and t.words == "name=tiny,l1d=256:2"
    assert [list(s["v"][:, 0]) for s in t.segments] == [[DATA + 8, DATA + 16], [DATA + 32]]
    assert trace.read(tmp_path / "t", limit=2).accesses == 2
    (tmp_path / "m").write_bytes(b"model name=zen4 vcpus=1\n")
    with pytest.raises(trace.NotATrace):
        trace.read(tmp_path / "m")


def test_a_load_a_store_just_wrote_is_counted_and_named_off_the_stack(tmp_path):
    t = trace.read(write(tmp_path / "t", mark(trace.TIMED),
                         access(STACK, 1, store=True), access(STACK + 4, 2),     # same word
                         access(DATA, 3, store=True), access(DATA, 4),
                         access(DATA + 64, 5),                                  # never stored
                         *[access(STACK + 8 * k, 6 + k) for k in range(1, 70)],
                         access(DATA, 80), mark(trace.UNTIMED)))               # too late
    count, off_stack = trace.forwarded(t, window=60)
    assert count == 2 and off_stack == {(0x1000, DATA): 1}


def chase(n, step, pointers):
    """n loads step instructions apart; with pointers, each one's address
    is the value the one before loaded."""
    return [access(DATA + 0x10000 * k, 1 + step * k,
                   value=DATA + 0x10000 * (k + 1) if pointers else 0) for k in range(n)]


def test_a_chain_of_loads_binds_and_independent_ones_issue_at_the_ipc(tmp_path):
    chained = trace.read(write(tmp_path / "c", mark(trace.TIMED), *chase(10, 1, True),
                               mark(trace.UNTIMED)))
    free = trace.read(write(tmp_path / "f", mark(trace.TIMED), *chase(10, 1, False),
                            mark(trace.UNTIMED)))
    # ten loads in sequence at 50 cycles; issued one a cycle, the last done at 9 + 50
    assert trace.dataflow_cycles(chained, 50, ipc=1, rob=1000) == pytest.approx(500)
    assert trace.dataflow_cycles(free, 50, ipc=1, rob=1000) == pytest.approx(59)
    assert trace.issue_cycles(free, ipc=1) == pytest.approx(9)
    # a chain of short loads spread out hides behind the issue time
    spread = trace.read(write(tmp_path / "s", mark(trace.TIMED), *chase(10, 30, True),
                              mark(trace.UNTIMED)))
    assert trace.dataflow_cycles(spread, 4, ipc=3, rob=1000) == pytest.approx(90 + 4)


def test_a_full_reorder_window_holds_issue_back(tmp_path):
    free = trace.read(write(tmp_path / "f", mark(trace.TIMED), *chase(100, 1, False),
                            mark(trace.UNTIMED)))
    # ten in flight at a time, each 50 cycles: ten rounds of 50
    assert trace.dataflow_cycles(free, 50, ipc=1, rob=10) == pytest.approx(500, rel=0.05)
    assert trace.dataflow_cycles(free, 50, ipc=1, rob=1000) == pytest.approx(149)


def run_doc(tmp_path, name="run-1.json", overlap=True):
    doc = {"model": {"per_op": {"accesses": 2.0}},
           "environment": {"vm": {"model": {"name": "zen4", "ipc": 3,
                                            "overlap": {"rob": 320, "mshr": 24} if overlap
                                            else None}}}}
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_the_command_reads_per_op_and_refuses_bad_input_in_one_line(tmp_path):
    t = write(tmp_path / "t", mark(trace.TIMED), access(DATA, 1, store=True), access(DATA, 2),
              access(DATA + 64, 3), access(DATA + 128, 4), mark(trace.UNTIMED))
    proc = run_script("trace", t, "--run", run_doc(tmp_path), "--latency", "4")
    assert proc.returncode == 0, proc.stderr
    assert "4 accesses of timed work read, 2 ops" in proc.stdout
    assert "0.50 an op, 0.50 off the stack" in proc.stdout
    assert "issue 0.5; loads at 4: 2.5" in proc.stdout
    for args, said in (((tmp_path / "none", "--run", run_doc(tmp_path)), "No such file"),
                       ((run_doc(tmp_path), "--run", run_doc(tmp_path)), "not a trace"),
                       ((t, "--run", t), "not a result with a model block"),
                       ((t, "--run", run_doc(tmp_path, "bare.json", overlap=False)),
                        "no reorder window")):
        proc = run_script("trace", *args)
        assert proc.returncode == 2 and said in proc.stderr and proc.stderr.count("\n") == 1, \
            proc.stderr
