"""What a boot's model input says beyond the model's counts: read a trace
that scripts/vmrun --model-trace recorded, over its timed work, per op of
the run that recorded it.

  trace FILE --run RUN.json [--accesses N] [--latency CYCLES ...] [--instructions N]

- loads that read a word a store wrote within 60 accesses before (a core
  forwards those from its store queue), and those off the stack by
  instruction and address: what chains lookups through memory;
- a dataflow bound: instructions issued at the machine's IPC, none more
  than its reorder window past the oldest load not done, each load that
  follows a pointer a recent load returned (the overlap rule's test)
  waiting for it, every load taking --latency cycles (default 4, 14, 30,
  50). Where the bound equals the issue time at a level's latency, chains
  of loads served there do not bind the lookup;
- the core's bound: the first --instructions (default 100,000) of timed
  work as they ran, given to llvm-mca with the scheduling model of the
  machine's core (zen4: -mcpu=znver4, LLVM 16 or later): its dispatch
  width, ports, latencies and register chains, with a stack engine, every
  load an L1D hit, and no front end (mapbench/mca.py says what else it
  takes as given); beside it the flat IPC's figure.

The first --accesses (default 1,000,000) accesses of timed work are read:
the bound's loop runs in Python. make model-cost TRACE=FILE times the
simulation on the same trace.

Exit status: 0, 2 bad input (not a trace, a run with no model block, or
one whose machine has no reorder window), 64 usage error.
"""
import argparse
import json
from pathlib import Path

from .. import cli
from ..cachemodel import mca, tracefile
from ..model import InputError


def fail(msg):
    raise InputError(msg, cli.EXIT_INPUT)


def parse_args(argv):
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace", type=Path, help="a trace (vmrun --model-trace FILE)")
    ap.add_argument("--run", type=Path, required=True,
                    help="the result of the boot that recorded it (results/LABEL/CONFIG/run-N.json)")
    ap.add_argument("--accesses", type=cli.at_least(1), default=1_000_000,
                    help="accesses of timed work read (default 1000000)")
    ap.add_argument("--latency", type=cli.at_least(1), action="append",
                    help="cycles a load takes in the bound (repeat; default 4, 14, 30, 50)")
    ap.add_argument("--instructions", type=cli.at_least(1), default=100_000,
                    help="instructions of timed work given to llvm-mca (default 100000)")
    return ap.parse_args(argv)


def run_of(path):
    """The run's per-op counts and its machine (the plugin's description of it)."""
    try:
        doc = json.loads(path.read_text())
        per_op = doc["model"]["per_op"]
        per_op["accesses"], per_op["insns"]     # both there
        machine = doc["environment"]["vm"]["model"]
    except (OSError, ValueError, KeyError, TypeError):
        fail(f"--run {path}: not a result with a model block (vmrun --model writes them)")
    if not machine.get("overlap"):
        fail(f"--run {path}: machine {machine['name']} has no reorder window (:no-overlap)")
    return per_op, machine


def core(t, instructions, per_op, machine):
    """The core's bound over the first instructions of t, a line."""
    name = machine["name"].split(":")[0]
    if name not in mca.MCPU:
        return f"core bound: unsupported: no scheduling model named for machine {name}"
    encodings, stream, missing = tracefile.executed(t, instructions)
    if not stream:
        return ("core bound: unsupported: the trace has no code (recorded before "
                "vmrun --model-trace kept it)")
    try:
        c = mca.cycles(encodings, stream, mca.MCPU[name])
    except mca.Unsupported as e:
        return f"core bound: unsupported: {e}"
    insns = per_op["insns"]
    taken = ", ".join(f"{n / c.instructions * insns:.2f} {text}" for text, n in c.unmodelled.items())
    return (f"core bound (llvm-mca -mcpu={mca.MCPU[name]}, {c.instructions} instructions, "
            f"{missing} blocks without code skipped): "
            f"{c.cycles / c.instructions * insns:.1f} cycles an op, IPC "
            f"{c.instructions / c.cycles:.2f}; flat IPC {machine['ipc']:g}: "
            f"{insns / machine['ipc']:.1f}" + (f"; taken as a nop, an op: {taken}" if taken else ""))


def main(argv=None):
    args = parse_args(argv)
    per_op, machine = run_of(args.run)
    accesses = per_op["accesses"]
    try:
        t = tracefile.read(args.trace, args.accesses)
    except OSError as e:
        fail(f"{args.trace}: {e.strerror}")
    except tracefile.NotATrace as e:
        fail(str(e))
    if not t.accesses:
        fail(f"{args.trace}: no timed work recorded (the run's programs mark it)")
    ops = t.accesses / accesses
    name = t.words.split(",")[0].removeprefix("name=")
    print(f"trace {args.trace}: machine {name}, {t.ncpus} vCPU(s); {t.accesses} accesses of "
          f"timed work read, {ops:.0f} ops ({accesses:.2f} accesses an op in {args.run})")
    count, off_stack = tracefile.forwarded(t)
    print(f"loads of a word a store wrote within 60 accesses: {count / ops:.2f} an op, "
          f"{sum(off_stack.values()) / ops:.2f} off the stack")
    for (pc, vaddr), n in sorted(off_stack.items(), key=lambda kv: -kv[1])[:5]:
        if n / ops >= 0.01:
            print(f"  pc {pc:#x} reading {vaddr:#x}: {n / ops:.2f} an op")
    ipc, rob = machine["ipc"], machine["overlap"]["rob"]
    bounds = ", ".join(f"loads at {lat}: {tracefile.dataflow_cycles(t, lat, ipc, rob) / ops:.1f}"
                       for lat in args.latency or (4, 14, 30, 50))
    print(f"dataflow bound, cycles an op (IPC {ipc:g}, {rob}-instruction window): issue "
          f"{tracefile.issue_cycles(t, ipc) / ops:.1f}; {bounds}")
    print(core(t, args.instructions, per_op, machine))
