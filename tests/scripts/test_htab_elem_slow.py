"""make check-slow: the seeds' own experiment, end to end. The fixture series
that splits hash-map elements by map type (tests/fixtures/htab-elem-split,
reconstructed from seeds 000/003's description) built on linux-source-7.2
from the existing unpatched build, booted under icount with a reduced
matrix of suite htab-elem, to its cover letter: the memory table measured
by the kernel's accounting is the seed's where the kernel counts the
element alone (64 -> 32 B standard and preallocated per-CPU, LRU
unchanged) and saves the seed's bytes where it counts the allocator's too
(per-CPU allocated one by one: 64 -> 40 B in the seed, 24 B saved), every
htab-mem and lookup row has a verdict with its MDE, and the per-patch
table names both patches."""
import re
import shutil
import time

import pytest

from conftest import ROOT, script_process

pytestmark = pytest.mark.slow

SERIES = ROOT / "tests" / "fixtures" / "htab-elem-split"
# the seed's rows (mem's labels), element bytes before and after; the
# kernel counts an element allocated one by one with its allocator's bytes
# (htab_map_mem_usage), so that row is checked by what it saves
SEED = {"Standard (prealloc)": (64, 32), "Per-CPU (prealloc)": (64, 32),
        "Per-CPU (non-prealloc)": (64, 40), "LRU": (64, 64)}
COUNTED_ALONE = {"Standard (prealloc)", "Per-CPU (prealloc)", "LRU"}
BENCHES = ["mem --all --key-size 8 --value-size 8 --max-entries 64K",
           "htab-mem --preallocated -a -p 2 --use-case overwrite",
           "htab-mem -a -p 2 --use-case overwrite",
           "htab-lookup --key-size 8 --max-entries 1K"]


def test_the_series_from_tree_to_cover_letter(kernel_7_2):
    label = "test-htab-elem-split"
    shutil.rmtree(ROOT / "results" / label, ignore_errors=True)    # the last run's, ours
    start = time.monotonic()
    proc = script_process("ab", "--src", "linux-source-7.2", "--series", SERIES, "--label", label,
                          "--accel", "tcg", "--smp", "2", "--boots", "2", "-w", "1", "-d", "2",
                          *[x for b in BENCHES for x in ("--bench", b)], timeout=7200)
    took = time.monotonic() - start
    letter_file = ROOT / "results" / label / "cover-letter.txt"
    assert letter_file.exists(), proc.stdout[-4000:] + proc.stderr
    letter = letter_file.read_text()
    print(f"\nab --series htab-elem-split, icount, 2 boots a side: {took:.0f} s\n{letter}")
    for row, (old, new) in SEED.items():
        line = next(x for x in letter.splitlines() if x.startswith(row + " "))
        sizes = [int(v) for v in re.findall(r"(\d+) B", line)]
        if row in COUNTED_ALONE:
            assert sizes == [old, new], (row, line)
        else:
            assert sizes[0] - sizes[1] == old - new, (row, line)
    for row in ("prealloc overwrite", "normal overwrite", "htab-lookup"):
        line = next(x for x in letter.splitlines() if x.startswith(row))
        assert "MDE" in line and re.search(r"\| (REGRESSION|improvement|different|no sig|inconcl)",
                                           line), line
    assert "0001-bpf-htab-elements-carry" in letter and "0002-bpf-htab-no-stored-hash" in letter
    assert letter.splitlines()[-1].startswith("Environment:") or "Environment:" in letter
