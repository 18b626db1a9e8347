"""The engine never asks which benchmark or family it runs: what makes a
benchmark the kernel's is in its peer (src/peers/), what a family can do is
declared in its table, and rows are data (src/registry.c)."""
import re

import pytest

from conftest import ROOT, run_bench

ENGINE = sorted(p for p in (ROOT / "src").glob("*.c") if p.name != "registry.c")
FAMILIES = ("htab", "lpm", "free", "mem")
MAP_KINDS = ("htab", "percpu", "lru", "lru_percpu", "lru_nocommon", "rhtab", "lpm_trie")


def names():
    """Every benchmark name and alias ./bench -l lists, the families' and the
    map kinds'."""
    listed = run_bench("-l").stdout
    found = set(re.findall(r"^(\S+)", listed, re.M))
    found |= {a for group in re.findall(r"\(aliases?: ([^)]+)\)", listed)
              for a in group.split(", ")}
    return found | set(FAMILIES) | set(MAP_KINDS)


@pytest.mark.parametrize("source", ENGINE, ids=lambda p: p.name)
def test_no_name_or_identity_checks_in_the_engine(source):
    text = source.read_text()
    compared = {m for m in re.findall(r'strn?cmp\([^;]*?"([^"]+)"', text)}
    assert not compared & names(), f"{source.name} compares against {compared & names()}"
    # a row, family or walk told apart by its address
    assert not re.findall(r"[!=]= &\w+", text), source.name
