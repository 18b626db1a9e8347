"""What a boot's model input says beyond the model's counts: read a trace
that scripts/vmrun --model-trace recorded, over its timed work, per op of
the run that recorded it.

  trace FILE --run RUN.json [--accesses N] [--latency CYCLES ...]

- loads that read a word a store wrote within 60 accesses before (a core
  forwards those from its store queue), and those off the stack by
  instruction and address: what chains lookups through memory;
- a dataflow bound: instructions issued at the machine's IPC, none more
  than its reorder window past the oldest load not done, each load that
  follows a pointer a recent load returned (the overlap rule's test)
  waiting for it, every load taking --latency cycles (default 4, 14, 30,
  50). Where the bound equals the issue time at a level's latency, chains
  of loads served there do not bind the lookup.

The first --accesses (default 1,000,000) accesses of timed work are read:
the bound's loop runs in Python. make model-cost TRACE=FILE times the
simulation on the same trace.

Exit status: 0, 2 bad input (not a trace, a run with no model block, or
one whose machine has no reorder window), 64 usage error.
"""
import argparse
import json
from pathlib import Path

from .. import cli, trace
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
    return ap.parse_args(argv)


def run_of(path):
    """The run's accesses per op and its machine's IPC and reorder window."""
    try:
        doc = json.loads(path.read_text())
        per_op = doc["model"]["per_op"]["accesses"]
        machine = doc["environment"]["vm"]["model"]
    except (OSError, ValueError, KeyError, TypeError):
        fail(f"--run {path}: not a result with a model block (vmrun --model writes them)")
    if not machine.get("overlap"):
        fail(f"--run {path}: machine {machine['name']} has no reorder window (:no-overlap)")
    return per_op, machine


def main(argv=None):
    args = parse_args(argv)
    per_op, machine = run_of(args.run)
    try:
        t = trace.read(args.trace, args.accesses)
    except OSError as e:
        fail(f"{args.trace}: {e.strerror}")
    except trace.NotATrace as e:
        fail(str(e))
    if not t.accesses:
        fail(f"{args.trace}: no timed work recorded (the run's programs mark it)")
    ops = t.accesses / per_op
    name = t.words.split(",")[0].removeprefix("name=")
    print(f"trace {args.trace}: machine {name}, {t.ncpus} vCPU(s); {t.accesses} accesses of "
          f"timed work read, {ops:.0f} ops ({per_op:.2f} accesses an op in {args.run})")
    count, off_stack = trace.forwarded(t)
    print(f"loads of a word a store wrote within 60 accesses: {count / ops:.2f} an op, "
          f"{sum(off_stack.values()) / ops:.2f} off the stack")
    for (pc, vaddr), n in sorted(off_stack.items(), key=lambda kv: -kv[1])[:5]:
        if n / ops >= 0.01:
            print(f"  pc {pc:#x} reading {vaddr:#x}: {n / ops:.2f} an op")
    ipc, rob = machine["ipc"], machine["overlap"]["rob"]
    bounds = ", ".join(f"loads at {lat}: {trace.dataflow_cycles(t, lat, ipc, rob) / ops:.1f}"
                       for lat in args.latency or (4, 14, 30, 50))
    print(f"dataflow bound, cycles an op (IPC {ipc:g}, {rob}-instruction window): issue "
          f"{trace.issue_cycles(t, ipc) / ops:.1f}; {bounds}")
