"""scripts/trace on traces written here in plugin/trace.h's format: the
timed work read between its markers, loads a store served, a dataflow
bound that a chain of pointer-following loads and a full reorder window
each set, and that independent loads leave at the issue time; the
instructions run, rebuilt from the blocks entered and their code, and the
core's bound llvm-mca gives them (with the LLVM installed: its -mcpu=znver3
and skylake-avx512 are in every version make deps installs)."""
import json
import re
import subprocess

import numpy as np
import pytest

from conftest import run_script

from mapbench.cachemodel import mca, tracefile as trace

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


def code(vaddr, *instructions):
    """Code records of instructions (bytes each) laid out from vaddr on."""
    out = b""
    for insn in instructions:
        raw = np.zeros(2, "<u8")
        raw.view(np.uint8)[:len(insn)] = list(insn)
        out += record("C", arg2=len(insn), v=[vaddr, raw[0], raw[1], 0, 0])
        vaddr += len(insn)
    return out


def block(vaddr, n):
    return record("X", store=n, v=[vaddr, 0, 0, 0, 0])


MOV, RET, NOP = bytes.fromhex("4889e5"), bytes.fromhex("c3"), bytes.fromhex("90")


def write(path, *records):
    path.write_bytes(f"mapbench-trace 1 vcpus={NCPUS} name=tiny,l1d=256:2\n".encode()
                     + b"".join(records) + record("E") + b"vcpu=0 mode=kernel insns=0\n")
    return path


@pytest.mark.parametrize("first_view", [1, trace.FIRST_VIEW])
def test_only_timed_work_is_read_and_markers_skip_their_counters(tmp_path, monkeypatch,
                                                                 first_view):
    """first_view 1: the views that look for each marker grow to reach it."""
    monkeypatch.setattr(trace, "FIRST_VIEW", first_view)
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


def test_the_instructions_run_are_the_blocks_entered_with_their_code(tmp_path):
    t = trace.read(write(tmp_path / "t", code(0x1000, MOV, RET), mark(1), code(0x2000, NOP),
                         block(0x2000, 1),                                  # not timed
                         mark(trace.TIMED), block(0x1000, 2), access(DATA, 1),
                         block(0x2000, 1), block(0x3000, 4),                # no code
                         mark(trace.UNTIMED), block(0x2000, 1),
                         mark(trace.TIMED), block(0x1000, 2), access(DATA, 2),
                         mark(trace.UNTIMED)))
    encodings, stream, missing = trace.executed(t, 100)
    assert [encodings[i] for i in stream] == [MOV, RET, NOP, MOV, RET] and missing == 1
    assert len(set(encodings)) == len(encodings)
    assert [encodings[i] for i in trace.executed(t, 4)[1]] == [MOV, RET, NOP, MOV]


def asm_encodings(*lines):
    """The bytes of each line of assembly (llvm-mc assembles them)."""
    tools = mca.tools("znver3")
    out = subprocess.run([tools.mc, "-triple=x86_64", "--show-encoding"], text=True,
                         input="\n".join(lines) + "\n", capture_output=True, check=True)
    return [bytes(int(b, 16) for b in enc.split(","))
            for enc in re.findall(r"encoding: \[([^\]]*)\]", out.stdout)]


def test_llvm_mca_sees_a_chain_of_latencies_and_the_stack_engine():
    imul, push, pop, endbr = asm_encodings("imulq %rax, %rax", "pushq %rbx", "popq %rbx",
                                           "endbr64")
    chained = mca.cycles([imul], [0] * 100, "znver3")
    # imul's latency is 3: in sequence, each waits for the one before
    assert chained.cycles >= 290 and chained.instructions == 100
    # a push and a pop each a link of a chain through %rsp would take 200 cycles
    stack = mca.cycles([push, pop], [0, 1] * 100, "znver3")
    assert stack.cycles < 150, stack
    # endbr64 has no figures in znver3's model (100 cycles if taken as given)
    skipped = mca.cycles([endbr, imul], [0] * 10 + [1], "znver3")
    assert skipped.unmodelled == {"endbr64": 10} and skipped.cycles < 50, skipped


def run_doc(tmp_path, name="run-1.json", overlap=True, machine="zen4"):
    doc = {"model": {"per_op": {"accesses": 2.0, "insns": 4.0}},
           "environment": {"vm": {"model": {"name": machine, "ipc": 3,
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
    assert "core bound: unsupported: the trace has no code" in proc.stdout
    with_code = write(tmp_path / "c", code(0x1000, MOV, NOP), mark(trace.TIMED),
                      *[block(0x1000, 2) + access(DATA, k) for k in range(1, 101)],
                      mark(trace.UNTIMED))
    proc = run_script("trace", with_code, "--run", run_doc(tmp_path, machine="skylake-sp"))
    # 200 instructions, 4 an op
    assert re.search(r"core bound \(llvm-mca -mcpu=skylake-avx512, 200 instructions, 0 blocks "
                     r"without code skipped\): [0-9.]+ cycles an op, IPC [0-9.]+; flat IPC 3: "
                     r"1.3$", proc.stdout, re.M), proc.stdout
    proc = run_script("trace", with_code, "--run", run_doc(tmp_path, machine="tiny"))
    assert "core bound: unsupported: no scheduling model named for machine tiny" in proc.stdout
    for args, said in (((tmp_path / "none", "--run", run_doc(tmp_path)), "No such file"),
                       ((run_doc(tmp_path), "--run", run_doc(tmp_path)), "not a trace"),
                       ((t, "--run", t), "not a result with a model block"),
                       ((t, "--run", run_doc(tmp_path, "bare.json", overlap=False)),
                        "no reorder window")):
        proc = run_script("trace", *args)
        assert proc.returncode == 2 and said in proc.stderr and proc.stderr.count("\n") == 1, \
            proc.stderr
