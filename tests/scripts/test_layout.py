"""The engine never asks which benchmark or family it runs: what makes a
benchmark the kernel's is in its peer (src/peers/), a family lives in
src/families/ and declares what it can do, and rows are data (src/registry.c
and the peers' tables, from the families' defaults in src/families/rows.h)."""
import re

import pytest

from conftest import ROOT, run_bench

SRC = ROOT / "src"
ENGINE = sorted(p for p in SRC.glob("*.[ch]") if p.name != "registry.c")
FAMILY_HEADERS = {p.name for p in (SRC / "families").glob("*.h")}
MAP_KINDS = ("htab", "percpu", "lru", "lru_percpu", "lru_nocommon", "rhtab", "array", "lpm_trie")
FAMILY = re.compile(r'^const struct family \w+ = \{\s*\.name = "([^"]+)"', re.M)


def families():
    """Each family's file and name, wherever src/ defines one."""
    return {(path.relative_to(SRC).parent.as_posix(), name)
            for path in SRC.rglob("*.c") for name in FAMILY.findall(path.read_text())}


def names():
    """Every benchmark name and alias ./bench -l lists, the families' and the
    map kinds'."""
    listed = run_bench("-l").stdout
    found = set(re.findall(r"^(\S+)", listed, re.M))
    found |= {a for group in re.findall(r"\(aliases?: ([^)]+)\)", listed)
              for a in group.split(", ")}
    return found | {name for _, name in families()} | set(MAP_KINDS)


def test_every_family_is_in_the_families_folder():
    found = families()
    assert len(found) >= 7 and {folder for folder, _ in found} == {"families"}, found


@pytest.mark.parametrize("source", ENGINE, ids=lambda p: p.name)
def test_no_name_or_identity_checks_in_the_engine(source):
    text = source.read_text()
    compared = {m for m in re.findall(r'strn?cmp\([^;]*?"([^"]+)"', text)}
    assert not compared & names(), f"{source.name} compares against {compared & names()}"
    # a row, family or walk told apart by its address
    assert not re.findall(r"[!=]= &\w+", text), source.name
    included = set(re.findall(r'^#include "([^"]+)"', text, re.M))
    assert not included & FAMILY_HEADERS, f"{source.name} includes {included & FAMILY_HEADERS}"


PACKAGE = ROOT / "scripts" / "mapbench"
LIBRARY = sorted(p for p in PACKAGE.rglob("*.py")
                 if "commands" not in p.relative_to(PACKAGE).parts
                 and p.name not in ("cli.py", "output.py"))


@pytest.mark.parametrize("module", LIBRARY, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_the_library_neither_exits_nor_prints(module):
    """Only commands (scripts/mapbench/commands/), cli.py (exit statuses,
    errors) and output.py (what is printed) exit or print: a library
    function raises InputError with its status, or takes a progress
    callback."""
    found = re.findall(r"\b(print\(|=print\b|cli\.die\(|sys\.exit\(|exit\()", module.read_text())
    assert not found, f"{module.name}: {found}"


def test_the_layout_names_every_script_and_module():
    """docs/layout.org, the map of the source: every scripts/NAME entry point
    and every module and folder of scripts/mapbench has its place on it."""
    layout = (ROOT / "docs" / "layout.org").read_text()
    scripts = [p.name for p in (ROOT / "scripts").iterdir() if p.is_file() and not p.suffix]
    modules = [p.stem for p in PACKAGE.iterdir()
               if (p.suffix == ".py" and p.stem != "__init__") or
               (p.is_dir() and not p.name.startswith("__"))]
    missing = [n for n in scripts + modules
               if not any(f in layout for f in (f"={n}=", f"{n}.py=", f"{n}/"))]
    assert not missing, missing


def test_the_layout_names_every_report_style():
    from mapbench.styles import STYLES
    row = (ROOT / "docs" / "layout.org").read_text().split("| report styles")[1].split("| guests")[0]
    words = set(re.findall(r"[\w-]+", row))
    assert set(STYLES) | {"calibration"} <= words, set(STYLES) - words


@pytest.mark.parametrize("module", sorted(PACKAGE.rglob("*.py")),
                         ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_our_tools_call_each_other_as_functions(module):
    """A process is for what is not ours (QEMU, git, make, ./bench in C,
    the kernel's tools): a module that starts one says which where it
    imports subprocess, and none runs one of our scripts (cli.call runs a
    tool in the process), but for git bisect run's steps."""
    text = module.read_text()
    imported = re.findall(r"^import subprocess\b(.*)$", text, re.M)
    assert all("# processes of their own: " in rest for rest in imported), module.name
    ours = [line for line in text.splitlines()
            if re.search(r"SCRIPTS\s*/", line) and "bisect" not in line and "print(" not in line
            and "shlex.join" not in line]
    assert not ours, ours


def test_the_package_docstring_and_the_layout_name_every_module():
    """mapbench/__init__.py's list and docs/layout.org name every module and
    folder of the package, and every module of the cache model's package."""
    import mapbench
    layout = (ROOT / "docs" / "layout.org").read_text()
    names = [p.stem if p.suffix else f"{p.name}/" for p in PACKAGE.iterdir()
             if (p.suffix == ".py" and p.stem != "__init__") or
             (p.is_dir() and not p.name.startswith("__") and p.name != "templates")]
    unnamed = [n for n in names if not re.search(rf"(?<![\w/]){re.escape(n)}(?![\w])",
                                                 mapbench.__doc__)]
    assert not unnamed, unnamed
    wing = [p.name for p in (PACKAGE / "cachemodel").glob("*.py") if p.stem != "__init__"]
    assert not [n for n in wing if f"cachemodel/{n}" not in layout], wing


def test_a_tool_called_as_a_function_keeps_its_status_name_and_ctrl_c(tmp_path, capsys,
                                                                     monkeypatch):
    """cli.call: the tool's exit status, its error under its own name (and
    the caller's name back after), and a Ctrl-C left to the caller, which
    ab and bisect stop on rather than read as the tool's failure."""
    from mapbench import cli
    from mapbench.commands import gate
    monkeypatch.setattr(cli, "prog", "ab")
    assert cli.call("gate", [str(tmp_path / "a"), str(tmp_path / "b")]) == cli.EXIT_TOOL
    assert capsys.readouterr().err.startswith("gate: ") and cli.prog == "ab"

    def interrupted(argv):
        raise KeyboardInterrupt
    monkeypatch.setattr(gate, "main", interrupted)
    with pytest.raises(KeyboardInterrupt):
        cli.call("gate", [])
    assert cli.prog == "ab"
