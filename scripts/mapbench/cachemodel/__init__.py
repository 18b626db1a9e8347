"""The cache model: what icount cannot see (caches, TLBs, prefetchers,
overlapping misses), counted in a guest by the QEMU plugin in plugin/ and
costed here. One loop, a module a step:

  machines   a named machine (zen4, skylake; NAME:no-MECHANISM) as data,
             and the plugin arguments that define it to plugin/
  qemu10     the QEMU 10 the plugin runs in (fetched from backports)
  (plugin/)  the counts file: per window, vCPU and mode, instructions,
             accesses, misses per level, walks, prefetches
  counts     the counts file read back: windows per op, profiles per code
             site, at the machine's costs (its cost terms): a result's
             model block
  calibration  the costs against the seeds' hardware figures (report
             --style calibration) and the ablation table
  tracefile, mca  a recorded boot's load chains (vmrun --model-trace) and
             LLVM's core model of its instructions (scripts/trace)

scripts/vmrun --model NAME drives the loop (guest/ builds the plugin's
arguments and reads the counts back); docs/vm.org is its manual.
"""
from .counts import PER_OP, Symbols, block, profile, read_sites, read_windows, run_block
from .machines import (BASE, COST_ONLY, COST_TERMS, DEFAULT, MECHANISMS, OPT_IN, PLUGIN,
                       Branch, Machine, Overlap, Prefetch, Tlb, as_recorded, named)

__all__ = ["PER_OP", "Symbols", "block", "profile", "read_sites", "read_windows", "run_block",
           "BASE",
           "COST_ONLY", "COST_TERMS", "DEFAULT", "MECHANISMS", "OPT_IN", "PLUGIN", "Branch",
           "Machine", "Overlap", "Prefetch", "Tlb", "as_recorded", "named"]
