"""The plugin's counts read back (its counts file: a window's counts per
run, index, vCPU and mode; a profile's per code site) and turned into the
figures a result carries, per op, at a machine's costs (machines.py)."""
import bisect
import re

from .machines import COUNTS

# What a run's counts per op are of (block()); a result counted another way
# is another measurement (bisect keys its results by it).
PER_OP = "the timed work where the programs mark it, else kernel mode"
WINDOW = re.compile(r"^window run=(\d+) index=(\d+) vcpu=(\d+) mode=(\w+) (.*)$")
SITE = re.compile(r"^site run=(\d+) vaddr=0x([0-9a-f]+) (.*)$")
# a profile keeps the functions that cost most, the rest summed in one row
PROFILE_TOP = 40
OTHER = "[other functions]"


def counts_of(text):
    """{count: value} of a counts line's "name=N name=N ..." tail."""
    return {k: int(v) for k, v in (kv.split("=") for kv in text.split())}


def read_windows(lines):
    """[{run, index, vcpu, mode, insns, ...}] from the plugin's window lines."""
    return [{"run": int(m[1]), "index": int(m[2]), "vcpu": int(m[3]), "mode": m[4],
             **counts_of(m[5])} for m in map(WINDOW.match, lines) if m]


def read_sites(lines):
    """[{vaddr, insns, ...}] from the plugin's site lines (--profile)."""
    return [{"vaddr": int(m[2], 16), **counts_of(m[3])} for m in map(SITE.match, lines) if m]


def program_name(ksym):
    """bpf_prog_NAME of kallsyms' bpf_prog_TAG_NAME: the tag hashes the
    program's code, so a profile row keeps its name when a build of
    mapbench changes the program (A/B of kernels, or of mapbench)."""
    return re.sub(r"^bpf_prog_[0-9a-f]{16}_", "bpf_prog_", ksym)


class Symbols:
    """The kernel's text symbols, from /proc/kallsyms or System.map text, to
    name the function at an address. Module space holds modules and JITed BPF
    programs: an address there past every symbol is a BPF program's, named
    where the run recorded its programs (./bench --jit-symbols)."""
    MODULES = 0xffffffffa0000000
    BPF = "[BPF programs]"

    def __init__(self, text, programs=()):
        symbols = [(int(p["addr"], 16), program_name(p["name"])) for p in programs]
        for line in text.splitlines():
            words = line.split()
            if len(words) >= 3 and words[1] in "tTwW" and int(words[0], 16):
                symbols.append((int(words[0], 16), words[2]))
        symbols.sort()
        self.text = text
        self.addrs = [a for a, _ in symbols]
        self.names = [n for _, n in symbols]

    def with_programs(self, programs):
        """These symbols and a run's BPF programs ([{name, addr}])."""
        return Symbols(self.text, programs) if programs else self

    def name(self, vaddr):
        i = bisect.bisect_right(self.addrs, vaddr) - 1
        if vaddr >= self.MODULES and (i < 0 or self.addrs[i] < self.MODULES):
            return self.BPF
        return self.names[i] if i >= 0 else f"0x{vaddr:x}"


def profile(machine, sites, symbols, ops):
    """Per function, per op: the counts of its sites over the measured
    samples and their modelled cycles, costliest first; the functions past
    PROFILE_TOP summed as one row."""
    funcs = {}
    counted = [k for k in COUNTS if k in sites[0]] if sites else []
    for s in sites:
        f = funcs.setdefault(symbols.name(s["vaddr"]), dict.fromkeys(counted, 0))
        for k in counted:
            f[k] += s[k]
    rows = [{"function": name, **{k: v / ops for k, v in c.items()}} for name, c in funcs.items()]
    for r in rows:
        r["model_cycles"] = machine.cycles(r)
    rows.sort(key=lambda r: (-r["model_cycles"], r["function"]))
    if len(rows) > PROFILE_TOP:
        rest = {k: sum(r[k] for r in rows[PROFILE_TOP:]) for k in (*counted, "model_cycles")}
        rows = rows[:PROFILE_TOP] + [{"function": OTHER, **rest}]
    return rows


def run_block(machine, lines, doc, symbols=None):
    """Run doc's "model" block from the plugin's lines of that run: block(),
    and with the guest's symbols its profile per function."""
    found = block(machine, read_windows(lines), doc["samples"])
    if symbols and found and found["ops"]:
        found["profile"] = profile(machine, read_sites(lines),
                                   symbols.with_programs(doc.get("programs")), found["ops"])
    return found


def block(machine, windows, samples):
    """A result's "model" block: every window's counts beside its sample, and
    per op over the measured samples, every vCPU: of the work the bench's
    programs timed where they marked it (scope "timed": the counts of the
    figure's own clock reads), else of all kernel-mode work ("kernel"). None
    if the windows do not match the samples (a run cut short)."""
    by_index = {}
    for w in windows:
        by_index.setdefault(w["index"], []).append(
            {k: w[k] for k in ("vcpu", "mode", *COUNTS) if k in w})
    if any(s["index"] not in by_index for s in samples):
        return None
    measured = [s for s in samples if not s["warmup"]]
    ops = sum(s["ops"] for s in measured)
    counted = [k for k in COUNTS if k in windows[0]] if windows else []
    scope = ("timed" if any(c["mode"] == "timed" for s in measured for c in by_index[s["index"]])
             else "kernel")
    total = {k: sum(c[k] for s in measured for c in by_index[s["index"]]
                    if c["mode"] == scope) for k in counted}
    per_op = {k: v / ops for k, v in total.items()} if ops else {}
    if per_op:
        per_op["model_cycles"] = machine.cycles(per_op)
    return {"source": "model", "machine": machine.name, "scope": scope, "ops": ops,
            "per_op": per_op,
            "windows": [{"sample": s["index"], "counts": by_index[s["index"]]} for s in samples]}
