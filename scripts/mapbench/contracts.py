"""What ./bench declares about its benchmarks, read from the file make
writes with ./bench --contracts --json (build/contracts.json): the shapes
of the kernel tools' lines, declared beside the C that prints them in
src/peers/, and the file of the kernel's tree each kernel-named benchmark
is. Nothing here is kept by hand: a new kernel bench's C file is all the
Python side learns it from."""
import functools
import json
import re

from .model import InputError
from .paths import ROOT

PATH = ROOT / "build" / "contracts.json"


@functools.cache
def _document():
    try:
        return json.loads(PATH.read_text())
    except FileNotFoundError:
        raise InputError(f"{PATH} is missing: run make (./bench --contracts "
                         "--json writes it)") from None


@functools.cache
def line_shapes():
    """{name: compiled pattern} of every kernel tool line shape."""
    return {name: re.compile(p) for name, p in _document()["lines"].items()}


def kernel_sources():
    """(file, library file or None) of every kernel bench a benchmark is,
    in the table's order, each once."""
    found = {}
    for b in _document()["benchmarks"]:
        if b.get("kernel_source"):
            found.setdefault(b["kernel_source"], b.get("kernel_library"))
    return list(found.items())
