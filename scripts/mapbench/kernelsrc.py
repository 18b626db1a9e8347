"""Kernel sources for kbuild and kernel-bench: a tree, a tarball (unpacked
once under build/kernel/tree/), or a Debian package name (linux-source-X.Y).

A package the machine's own apt sources carry is fetched with them; one they
do not (7.2 lives in sid and trixie-backports, not bookworm) is fetched
through a private sources list (mapbench/debian.py); the system's apt lists,
caches and settings are never touched.
"""
import re
import shutil
import subprocess  # processes of their own: dpkg-deb, tar
from pathlib import Path

from . import cli, debian
from .model import InputError
from .paths import ROOT

CACHE = ROOT / "build" / "kernel" / "debian"
TREES = ROOT / "build" / "kernel" / "tree"
PACKAGE = re.compile(r"^linux-source-\d+\.\d+$")
# Suites to look in, in order, when the machine's own sources lack the package.
SUITES = ("sid", "trixie-backports", "bookworm-backports")
SourceError = debian.FetchError


def is_package_name(text):
    return bool(PACKAGE.match(text))


def quiet(_):
    """A progress callback that says nothing."""


def tarball(package, progress=quiet):
    """The source tarball of Debian package PACKAGE (linux-source-X.Y), fetched and
    unpacked once under build/kernel/debian/PACKAGE/."""
    version = package.removeprefix("linux-source-")
    installed = Path(f"/usr/src/linux-source-{version}.tar.xz")
    if installed.exists():
        return installed
    home = CACHE / package
    cached = home / "usr" / "src" / installed.name
    if cached.exists():
        return cached
    download = CACHE / "download"
    debs = debian.download([package], None, download)
    suite = "the machine's sources"
    for s in SUITES:
        if debs:
            break
        progress(f"fetching {package} from Debian {s} (a private sources list; once) ...")
        try:
            debs = debian.download([package], debian.private_apt(s), download)
        except SourceError:
            continue
        suite = s
    if not debs:
        raise SourceError(f"no Debian suite on this machine's mirror has {package} "
                          f"(tried its own sources and {', '.join(SUITES)})")
    deb = debs[0]
    shutil.rmtree(home, ignore_errors=True)
    subprocess.run(["dpkg-deb", "-x", str(deb), str(home)], check=True)
    (home / "FROM").write_text(f"{deb.name} from {suite}\n")
    shutil.rmtree(download)
    if not cached.exists():
        raise SourceError(f"{deb.name} holds no {cached.relative_to(home)}")
    return cached


def source_path(src, progress=quiet):
    """SRC as a path: a Debian package name becomes its fetched tarball
    (progress is told each step)."""
    if src.exists() or not is_package_name(str(src)):
        return src.resolve()
    try:
        return tarball(str(src), progress=progress)
    except SourceError as e:
        raise InputError(f"--src {src}: {e}", cli.EXIT_INPUT) from e


def pristine_tree(src, progress=quiet):
    """A directory holding SRC unmodified: SRC itself, or its tarball unpacked once."""
    if src.is_dir():
        if not (src / "Makefile").exists() or not (src / "kernel" / "bpf").is_dir():
            raise InputError(f"{src} is not a kernel tree (no Makefile and kernel/bpf/)",
                             cli.EXIT_INPUT)
        return src
    if not src.is_file() or not re.search(r"\.tar(\.\w+)?$", src.name):
        raise InputError(f"{src}: give a kernel tree or a source tarball (.tar.xz, .tar.gz)",
                         cli.EXIT_INPUT)
    dest = TREES / (re.sub(r"\.tar(\.\w+)?$", "", src.name) + ".pristine")
    stamp = dest / ".mapbench-unpacked"
    ident = f"{src.resolve()} {src.stat().st_size} {src.stat().st_mtime_ns}\n"
    if not stamp.exists() or stamp.read_text() != ident:
        progress(f"unpacking {src} (once) ...")
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        subprocess.run(["tar", "-xf", str(src), "-C", str(dest), "--strip-components=1"], check=True)
        stamp.write_text(ident)
        pristine_tree(dest)
    return dest
