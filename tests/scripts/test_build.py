"""The Makefile rebuilds exactly what a header change reaches: every object
that includes the header, directly, through another header or through a
skeleton built from a BPF object that includes it, and nothing else."""
import os
import re
import subprocess

import pytest

from conftest import ROOT

# Touching a header changes what make -n sees: these run on one worker,
# one after another, under make test's pytest-xdist.
pytestmark = pytest.mark.xdist_group("the build tree")

OUT = ROOT / "build"
HEADERS = sorted(ROOT.glob("src/*.h")) + sorted(ROOT.glob("src/families/*.h")) + \
    sorted(ROOT.glob("progs/*.h"))
SOURCES = sorted(ROOT.glob("src/*.c")) + sorted(ROOT.glob("src/families/*.c")) + \
    sorted(ROOT.glob("src/peers/*.c")) + sorted(ROOT.glob("progs/*.bpf.c"))


def included(path):
    return re.findall(r'^#include "([^"]+)"', path.read_text(), re.M)


def reaches(path, name, seen=None):
    """Whether path includes name, directly or through our headers and skeletons."""
    seen = set() if seen is None else seen
    for inc in included(path):
        if inc == name:
            return True
        if inc in seen:
            continue
        seen.add(inc)
        if inc.endswith(".skel.h"):
            nested = ROOT / "progs" / inc.replace(".skel.h", ".bpf.c")
        else:
            nested = next((d / inc for d in (ROOT / "src", ROOT / "src" / "families", ROOT / "progs")
                           if (d / inc).exists()),
                          None)
        if nested and reaches(nested, name, seen):
            return True
    return False


def object_of(source):
    """Its object under build/: src/peers/x.c is build/peers/x.o."""
    name = source.relative_to(source.parent.parent if source.parent.name in ("families", "peers")
                              else source.parent).as_posix()
    return name.replace(".bpf.c", ".bpf.o") if name.endswith(".bpf.c") else name[:-2] + ".o"


def rebuilt_by_touching(header):
    """The objects `make -n bench` would compile once header is newer than them."""
    st = header.stat()
    try:
        os.utime(header, None)
        out = subprocess.run(["make", "-n", "bench"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout
    finally:
        os.utime(header, ns=(st.st_atime_ns, st.st_mtime_ns))
    return set(re.findall(r"-o build/(\S+\.o)\b", out))


@pytest.fixture(scope="module")
def built():
    proc = subprocess.run(["make", "bench"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("header", HEADERS, ids=lambda h: str(h.relative_to(ROOT)))
def test_touching_a_header_rebuilds_its_users_only(built, header):
    want = {object_of(s) for s in SOURCES if reaches(s, header.name)}
    assert want, f"no source includes {header.name}"
    assert rebuilt_by_touching(header) == want


def test_an_up_to_date_tree_rebuilds_nothing(built):
    out = subprocess.run(["make", "-n", "bench"], cwd=ROOT, capture_output=True, text=True).stdout
    assert not re.findall(r"-o build/(\S+\.o)\b", out)


def test_a_failed_compile_leaves_no_object(tmp_path):
    """A compiler that writes half an object and fails leaves nothing behind
    for the next make to take as built."""
    cc = tmp_path / "cc"
    cc.write_text('#!/bin/sh\nwhile [ "$1" != -o ]; do shift; done\necho half > "$2"\nexit 1\n')
    cc.chmod(0o755)
    out = tmp_path / "out"
    proc = subprocess.run(["make", f"OUT={out}", f"CC={cc}", f"{out}/cpu.o"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode != 0
    assert not (out / "cpu.o").exists()


def test_a_header_that_went_away_remakes_its_users(built):
    """An object whose dependency file names a header that moved or was
    deleted is remade (a .SECONDARY for every target kept such objects)."""
    dep = OUT / "cpu.d"
    text = dep.read_text()
    try:
        dep.write_text(text + "build/cpu.o: src/moved-away.h\nsrc/moved-away.h:\n")
        out = subprocess.run(["make", "-n", "bench"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout
    finally:
        dep.write_text(text)
    assert set(re.findall(r"-o build/(\S+\.o)\b", out)) == {"cpu.o"}
