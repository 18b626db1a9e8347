"""The cache model (plugin/, docs/vm.org): named machines, the plugin's
arguments for one, its counts read back, and the figures a result carries.

The plugin counts, per measured window, vCPU and mode, instructions, data
line accesses and misses per cache level, and with TLBs their misses and
the page walks' loads and misses; it knows only the geometry. The costs
live here, so a figure can be recomputed without running again:

  modelled cycles = instructions / IPC + L1D misses that hit L2 x L2 penalty
                    + L2 misses that hit the LLC x LLC penalty
                    + LLC misses x memory penalty
                    + L1 DTLB misses that hit the L2 TLB x its latency
                    + walks' loads x the L1D latency
                      (and their misses as the data's, by level)
                    - each overlapped miss's penalty (plugin/overlap.h)
                    + mispredicted branches x the mispredict penalty

Prefetchers (plugin/prefetch.h) change what the caches hold, not the
costs: a line fetched ahead is a hit when used after it arrived (the
penalty of the level it came from, in instructions at the machine's IPC),
a miss of that level when used before; the fetch itself is free.

A penalty is the cycles a miss adds beyond an L1 hit: a data load's L1 hit
is in the IPC, a walk's is not (the walk waits for each entry). Per op:
the counts of every vCPU over the measured samples, divided by their ops,
of the work the bench's BPF programs time where they mark it (between
their two clock reads), else of all kernel-mode work (the maps' work runs
in the kernel; the bench's loop is user mode).

A machine's mechanisms can be switched off for an ablation: zen4:no-tlb is
zen4 without TLBs, zen4:no-overlap without overlapping misses,
zen4:no-prefetch without prefetchers and zen4:no-stream (no-stride,
no-adjacent) without one of them; they combine (zen4:no-tlb:no-prefetch).
Branch prediction is asked for by name (zen4:branch): it costs a quarter
more host time and takes the calibration further from the hardware
(docs/vm.org), so no machine models it unless its name says so.
"""
import itertools
from dataclasses import dataclass, replace

from ..paths import ROOT

PLUGIN = ROOT / "build" / "mapbench-model.so"
LEVELS = ("l1d", "l2", "llc")
TLB_COUNTS = ("dtlb_misses", "walks", "walk_loads", "walk_l1d_misses", "walk_l2_misses",
              "walk_llc_misses", "unwalkable")
OVERLAP_COUNTS = ("overlapped_l2_hits", "overlapped_llc_hits", "overlapped_memory")
PREFETCH_COUNTS = ("prefetches", "prefetch_memory", "prefetch_late")
BRANCH_COUNTS = ("branches", "mispredicts")
COUNTS = ("insns", "accesses", "l1d_misses", "l2_misses", "llc_misses", *TLB_COUNTS,
          *OVERLAP_COUNTS, *PREFETCH_COUNTS, *BRANCH_COUNTS)
# The prefetchers one by one, and the mechanisms a machine's name can switch
# off (NAME:no-MECHANISM).
PREFETCHERS = ("stream", "stride", "adjacent")
MECHANISMS = ("tlb", "overlap", "prefetch", *PREFETCHERS, "branch")
# the mechanisms that change what counts cost, not the counts: a machine
# without one is exact from a run with it
COST_ONLY = ("overlap", "branch")
# the mechanisms a machine defines but models only where its name asks
# (NAME:branch)
OPT_IN = ("branch",)
COST_TERMS = ("insns", "L2 hits", "LLC hits", "memory", "walk loads", "L2 TLB hits",
              "mispredicts")


@dataclass(frozen=True)
class Tlb:
    """A core's data TLBs as the plugin takes them (plugin/plugin.c): each
    level's arrays PAGES:ENTRIES:WAYS joined by '+', PAGES of k (4 KiB),
    m (2 MiB), g (1 GiB), s (1 GiB held as 2 MiB); page-walk cache entries
    per upper level; cycles of an L1 miss that hits the L2 TLB."""
    l1: str
    l2: str
    pwc: int
    l2_hit: int


@dataclass(frozen=True)
class Overlap:
    """How many misses a core overlaps (plugin/overlap.h): its reorder
    window in instructions and the L1D misses it keeps in flight."""
    rob: int
    mshr: int


@dataclass(frozen=True)
class Prefetch:
    """A core's data prefetchers as the plugin takes them (plugin/prefetch.h):
    the lines a stream fetches ahead into L1D (0: none), the stride rule per
    instruction into L1D, the other line of a 128-byte pair into L2."""
    stream: int
    stride: bool
    adjacent: bool

    def without(self, prefetcher):
        """These prefetchers but one; None where none is left."""
        left = replace(self, **{prefetcher: 0 if prefetcher == "stream" else False})
        return left if left.stream or left.stride or left.adjacent else None

    def plugin_arg(self, wait):
        """The plugin's arguments; wait: instructions a line takes to arrive
        from L2, the LLC and memory."""
        return ((f",stream={self.stream}" if self.stream else "")
                + (",stride=on" if self.stride else "") + (",adjacent=on" if self.adjacent else "")
                + ",wait=" + ":".join(str(w) for w in wait))


@dataclass(frozen=True)
class Branch:
    """A core's branch prediction as the plugin models it (plugin/branch.h):
    a gshare predictor of 2^table_bits counters and history_bits of global
    history, and the cycles a mispredicted branch costs."""
    table_bits: int
    history_bits: int
    penalty: int


@dataclass(frozen=True)
class Machine:
    name: str
    about: str
    size: tuple        # bytes of L1D, L2, LLC
    ways: tuple
    penalty: tuple     # cycles a miss to L2, to the LLC, to memory adds to an L1 hit
    ipc: float         # instructions per cycle when every access hits L1D
    l1_latency: int    # cycles of an L1D hit (a walk's load waits for it)
    tlb: Tlb = None
    overlap: Overlap = None
    prefetch: Prefetch = None
    branch: Branch = None
    line: int = 64
    # the part's documented top clock (GHz), to read cycles as ns with no
    # fitted number; not part of the model (record() leaves it out)
    ghz: float = None

    def without(self, mechanism):
        """This machine with a mechanism switched off, named NAME:no-MECHANISM,
        or without the :MECHANISM that asked for it (no-overlap from a run
        with it is exact: overlaps change costs, not what the caches hold)."""
        words = self.name.split(":")
        name = (":".join(w for w in words if w != mechanism) if mechanism in words
                else f"{self.name}:no-{mechanism}")
        if mechanism in PREFETCHERS:
            return replace(self, name=name,
                           prefetch=self.prefetch and self.prefetch.without(mechanism))
        return replace(self, name=name, **{mechanism: None})

    def leaves_out(self):
        """What the model leaves out, said once wherever its figures are shown."""
        missing = ["coherence traffic", *(["TLBs"] if not self.tlb else []),
                   *(["prefetchers"] if not self.prefetch else []),
                   *(["branch prediction"] if not self.branch else []),
                   *(["overlapping misses"] if not self.overlap else [])]
        return ("modelled: one data-cache hierarchy, true LRU"
                + (", prefetches that cost only their wait" if self.prefetch else "")
                + (", a gshare branch predictor" if self.branch else "")
                + ", no " + " or ".join(filter(None, [", ".join(missing[:-1]), missing[-1]])))

    def record(self):
        """What environment.vm.model says of it."""
        return {"name": self.name, "about": self.about, "line": self.line,
                **{f"{lv}_bytes": s for lv, s in zip(LEVELS, self.size)},
                **{f"{lv}_ways": w for lv, w in zip(LEVELS, self.ways)},
                "penalty_l2": self.penalty[0], "penalty_llc": self.penalty[1],
                "penalty_memory": self.penalty[2], "ipc": self.ipc,
                "l1_latency": self.l1_latency,
                "tlb": self.tlb and {"l1": self.tlb.l1, "l2": self.tlb.l2, "pwc": self.tlb.pwc,
                                     "l2_hit": self.tlb.l2_hit},
                "overlap": self.overlap and {"rob": self.overlap.rob, "mshr": self.overlap.mshr},
                "prefetch": self.prefetch and {"stream": self.prefetch.stream,
                                               "stride": self.prefetch.stride,
                                               "adjacent": self.prefetch.adjacent},
                "branch": self.branch and {"table_bits": self.branch.table_bits,
                                           "history_bits": self.branch.history_bits,
                                           "penalty": self.branch.penalty}}

    def plugin_arg(self, out, profile=False, trace=None):
        """-plugin's argument: the plugin, where its counts go, the geometry;
        trace: (FILE, ACCESSES) to record what the model is given (plugin/trace.h)."""
        return (f"{PLUGIN},out={out},{self.words()}" + (",profile=on" if profile else "")
                + (",trace={},trace_accesses={}".format(*trace) if trace else ""))

    def words(self):
        """The machine as the plugin's arguments (plugin/machine.h)."""
        levels = ",".join(f"{lv}={s}:{w}" for lv, s, w in zip(LEVELS, self.size, self.ways))
        tlb = (f",dtlb={self.tlb.l1},stlb={self.tlb.l2},pwc={self.tlb.pwc}" if self.tlb else "")
        overlap = f",rob={self.overlap.rob},mshr={self.overlap.mshr}" if self.overlap else ""
        # a miss's penalty in cycles is that many cycles' instructions at the IPC
        prefetch = (self.prefetch.plugin_arg([round(p * self.ipc) for p in self.penalty])
                    if self.prefetch else "")
        branch = (f",branch={self.branch.table_bits}:{self.branch.history_bits}"
                  if self.branch else "")
        return f"name={self.name},{levels},line={self.line}{tlb}{overlap}{prefetch}{branch}"

    def cost_terms(self, c):
        """What a dict of counts costs in on this machine (COST_TERMS):
        instructions; loads that hit L2, the LLC or memory (data and walks
        alike) and no earlier miss hid; walks' loads; L1 DTLB misses that
        hit the L2 TLB; mispredicted branches. A mechanism the machine has
        not adds nothing, so NAME:no-overlap costs NAME's counts as if no
        miss had overlapped."""
        def n(key, mechanism=True):
            return c.get(key, 0) if mechanism else 0
        tlb, hide, branch = self.tlb is not None, self.overlap is not None, self.branch is not None
        return (c["insns"],
                n("l1d_misses") - n("l2_misses") + n("walk_l1d_misses", tlb)
                - n("walk_l2_misses", tlb) - n("overlapped_l2_hits", hide),
                n("l2_misses") - n("llc_misses") + n("walk_l2_misses", tlb)
                - n("walk_llc_misses", tlb) - n("overlapped_llc_hits", hide),
                n("llc_misses") + n("walk_llc_misses", tlb) - n("overlapped_memory", hide),
                n("walk_loads", tlb), n("dtlb_misses", tlb) - n("walks", tlb),
                n("mispredicts", branch))

    def cycles(self, c):
        """Modelled cycles of a dict of counts."""
        insns, l2_hits, llc_hits, memory, walk_loads, l2_tlb_hits, mispredicts = \
            self.cost_terms(c)
        return (insns / self.ipc + l2_hits * self.penalty[0]
                + llc_hits * self.penalty[1] + memory * self.penalty[2]
                + walk_loads * self.l1_latency
                + l2_tlb_hits * (self.tlb.l2_hit if self.tlb else 0)
                + mispredicts * (self.branch.penalty if self.branch else 0))


KiB, MiB = 1024, 1024 * 1024
# TLBs (docs/vm.org names the sources): Zen 4's L1 DTLB holds every page
# size, its L2 DTLB 4 KiB and 2 MiB pages and 1 GiB ones smashed to 2 MiB;
# Skylake has an L1 DTLB per page size and an STLB shared by 4 KiB and 2 MiB.
# Prefetchers: the ones each vendor documents that the plugin has (Zen 4's
# L1 stream and stride, its L2 up/down as a pair; Skylake's DCU next line,
# DCU IP stride, L2 adjacent line); the stream's depth is ours. Branches: a
# gshare predictor of 16K counters and 12 bits of history stands in for both
# cores' (ours); the mispredict penalties are AMD's common case for Zen 4 (13
# cycles, of 11 to 18) and published measurements of Skylake (about 16). Clocks: the
# top boost of the EPYC 9654 and 9684X (3.7 GHz) and the Xeon Platinum 8180
# (3.8 GHz).
BASE = (
    Machine("zen4", "AMD Zen 4 core: 32 KiB L1D, 1 MiB L2, a CCD's 32 MiB L3",
            (32 * KiB, 1 * MiB, 32 * MiB), (8, 8, 16), (10, 45, 300), 3.0, 4,
            Tlb("kmg:72:72", "kms:3072:24", 16, 7), Overlap(320, 24), Prefetch(2, True, True),
            Branch(14, 12, 13), ghz=3.7),
    # seed 004's EPYC 9684X: Zen 4 cores with 3D V-Cache, 96 MiB of L3 a CCD;
    # 24 ways are ours (at 16 the plugin's sets would not be a power of two)
    Machine("zen4-x3d", "AMD Zen 4 core with 3D V-Cache: 32 KiB L1D, 1 MiB L2, a CCD's 96 MiB L3",
            (32 * KiB, 1 * MiB, 96 * MiB), (8, 8, 24), (10, 45, 300), 3.0, 4,
            Tlb("kmg:72:72", "kms:3072:24", 16, 7), Overlap(320, 24), Prefetch(2, True, True),
            Branch(14, 12, 13), ghz=3.7),
    Machine("skylake-sp", "Intel Skylake-SP core: 32 KiB L1D, 1 MiB L2, 16 MiB of L3",
            (32 * KiB, 1 * MiB, 16 * MiB), (8, 16, 16), (10, 60, 250), 2.5, 4,
            Tlb("k:64:4+m:32:4+g:4:4", "km:1536:12+g:16:4", 16, 9), Overlap(224, 12),
            Prefetch(1, True, True), Branch(14, 12, 16), ghz=3.8),
)
DEFAULT = "zen4"


def named(name):
    """The machine NAME[:MECHANISM...][:no-MECHANISM...], or None: NAME's
    definition with the opt-in mechanisms its name asks for (OPT_IN) and
    without those it switches off."""
    base, *words = name.split(":")
    machine = next((b for b in BASE if b.name == base), None)
    for word in words:
        if word in OPT_IN:
            continue
        if not machine or not word.startswith("no-") or word[3:] not in MECHANISMS:
            return None
        machine = machine.without(word[3:])
    if not machine:
        return None
    return replace(machine, name=name, **{m: None for m in OPT_IN if m not in words})


def as_recorded(record):
    """The machine a run's environment.vm.model describes: the one its name
    names where that is defined as it was then, else the machine of the same
    base whose definition it was (zen4 counted before it had prefetchers is
    zen4:no-prefetch); a record of a name alone, that name's; None if no
    machine is."""
    def definition(r):
        return {k: v for k, v in r.items() if k not in ("name", "about") and v is not None}
    machine = named(record.get("name", ""))
    if machine and definition(record) in ({}, definition(machine.record())):
        return machine
    base = record.get("name", "").split(":")[0]
    for start in (named(base), *(named(f"{base}:{m}") for m in OPT_IN)):
        for n in range(len(MECHANISMS) + 1):
            for off in itertools.combinations(MECHANISMS, n):
                candidate = start
                for mech in off:
                    candidate = candidate and candidate.without(mech)
                if candidate and definition(candidate.record()) == definition(record):
                    return candidate
    return None
