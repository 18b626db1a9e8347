"""A core's cycles over the instructions a trace ran, from LLVM's
scheduling model of that core (llvm-mca): dispatch width, ports, each
instruction's latency and the chains of registers between them, where the
cache model takes a flat IPC. A bound: llvm-mca has no front end (fetch,
decode, taken branches), every load hits L1D (the cache model adds what
misses), branches are predicted (a call costs its store of the return
address, where llvm-mca would assume 100 cycles) and a load never waits
for a store. It has no stack engine either, which these cores have:
pushes, pops and constant adjustments of %rsp would chain through %rsp,
one cycle each, so they are given to it as the stack engine leaves them
(stack_engine)."""
import re
import shutil
import subprocess  # processes of their own: llvm-mca, llvm-mc
from collections import Counter
from dataclasses import dataclass

# the scheduling model of each named machine's core (machines.BASE)
MCPU = {"zen4": "znver4", "zen4-x3d": "znver4", "skylake-sp": "skylake-avx512"}
# llvm-mca's figure for an instruction its model has no class for (endbr64 on znver4)
UNMODELLED = 100


class Unsupported(Exception):
    """What is missing here, in one line."""


@dataclass
class Tools:
    mc: str
    mca: str


def tools(mcpu):
    """The newest llvm-mc and llvm-mca installed whose llvm-mca knows mcpu."""
    for version in [*range(30, 13, -1), None]:
        suffix = f"-{version}" if version else ""
        mc, mca = shutil.which(f"llvm-mc{suffix}"), shutil.which(f"llvm-mca{suffix}")
        if mc and mca and knows(mca, mcpu):
            return Tools(mc, mca)
    raise Unsupported(f"no llvm-mca here knows -mcpu={mcpu} (znver4 needs LLVM 16 or "
                      f"later: apt install llvm-19)")


def knows(mca, mcpu):
    out = subprocess.run([mca, "-mtriple=x86_64", "-mcpu=help"], capture_output=True, text=True)
    return re.search(rf"^\s+{re.escape(mcpu)}\s", out.stdout + out.stderr, re.M) is not None


def disassemble(mc, encodings):
    """Each encoding (bytes of one instruction) as assembly text."""
    src = "".join("[" + " ".join(f"0x{b:02x}" for b in e) + "]\n" for e in encodings)
    out = subprocess.run([mc, "--disassemble", "-triple=x86_64"], input=src,
                         capture_output=True, text=True)
    lines = [ln.strip() for ln in out.stdout.splitlines()
             if ln.strip() and not ln.strip().startswith(".")]
    if out.returncode or len(lines) != len(encodings):
        first = out.stderr.strip().splitlines()[:1]
        raise Unsupported(f"{mc} decoded {len(lines)} of {len(encodings)} instructions"
                          f"{': ' + first[0] if first else ''}")
    return lines


def stack_engine(line):
    """line as a core with a stack engine runs it: a push a store below
    %rsp and a pop a load from it, neither writing %rsp; a call (predicted)
    the store of its return address; a constant adjustment of %rsp
    nothing; leave a load of the saved %rbp."""
    op, _, operands = line.partition("\t")
    if op == "pushq" and operands[0] in "%$":
        return f"movq\t{operands}, -8(%rsp)"
    if op == "callq":
        return "movq\t$0, -8(%rsp)"
    if op == "popq" and operands.startswith("%"):
        return f"movq\t(%rsp), {operands}"
    if op in ("addq", "subq") and re.fullmatch(r"\$-?\d+, %rsp", operands):
        return "nop"
    if op == "leave":
        return "movq\t(%rbp), %rbp"
    return line


def run(mca, mcpu, asm, *options):
    out = subprocess.run([mca, "-mtriple=x86_64", f"-mcpu={mcpu}", "-iterations=1",
                          *options, "-"],
                         input="\n".join(asm) + "\n", capture_output=True, text=True)
    if out.returncode:
        raise Unsupported(f"{mca}: {out.stderr.strip().splitlines()[-1]}")
    return out.stdout


def unmodelled(mca, mcpu, asm):
    """Of asm (distinct instructions), those llvm-mca's model gives no figures."""
    info = run(mca, mcpu, asm, "-resource-pressure=false").split("Instructions:\n", 2)
    # the table's rows, one per instruction in order: uOps, latency, ...
    rows = [ln.split() for ln in info[-1].splitlines()]
    rows = [r for r in rows[:len(asm)] if len(r) > 2]
    if len(rows) != len(asm):
        raise Unsupported(f"{mca} printed {len(rows)} rows of instruction info for {len(asm)}")
    return {text for text, (uops, latency, *_) in zip(asm, rows)
            if int(uops) >= UNMODELLED or int(latency) >= UNMODELLED}


@dataclass
class Core:
    cycles: float          # the stream's
    instructions: int
    unmodelled: dict       # instruction text: times run, each taken as a nop


def cycles(encodings, stream, mcpu):
    """llvm-mca's cycles for stream (indexes into encodings, in the order they ran)."""
    t = tools(mcpu)
    asm = disassemble(t.mc, encodings)
    skip = unmodelled(t.mca, mcpu, sorted(set(asm)))
    core = ["nop" if text in skip else stack_engine(text) for text in asm]
    out = run(t.mca, mcpu, [core[i] for i in stream], "-instruction-info=false",
              "-resource-pressure=false")
    total = re.search(r"^Total Cycles:\s+(\d+)", out, re.M)
    if not total:
        raise Unsupported(f"{t.mca} printed no total cycles")
    return Core(float(total.group(1)), len(stream),
                dict(Counter(asm[i] for i in stream if asm[i] in skip)))
