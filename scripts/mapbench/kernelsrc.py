"""Kernel sources for kbuild and kernel-bench: a tree, a tarball (unpacked
once under build/kernel/tree/), or a Debian package name (linux-source-X.Y).

A package the machine's own apt sources carry is fetched with them; one they
do not (7.2 lives in sid and trixie-backports, not bookworm) is fetched
through a private sources list under build/kernel/debian/apt/ that reuses the
machine's configured Debian mirror, read from its apt configuration now. The
system's apt lists, caches and settings are never touched.
"""
import re
import shutil
import subprocess
import time
from pathlib import Path

from . import cli
from .paths import ROOT

CACHE = ROOT / "build" / "kernel" / "debian"
TREES = ROOT / "build" / "kernel" / "tree"
PACKAGE = re.compile(r"^linux-source-\d+\.\d+$")
# Suites to look in, in order, when the machine's own sources lack the package.
SUITES = ("sid", "trixie-backports", "bookworm-backports")
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
FRESH_S = 86400     # a private suite's lists younger than this are not updated again


class SourceError(Exception):
    """Why a package could not be had: one line."""


def is_package_name(text):
    return bool(PACKAGE.match(text))


def debian_mirrors(etc=Path("/etc/apt")):
    """The machine's configured Debian archive URIs (not its security archive),
    from deb822 .sources files and one-line .list files."""
    uris = []
    for f in sorted((etc / "sources.list.d").glob("*.sources")):
        for m in re.finditer(r"^URIs:\s*(.+)$", f.read_text(), re.M):
            uris += m[1].split()
    lists = [etc / "sources.list", *sorted((etc / "sources.list.d").glob("*.list"))]
    for f in lists:
        if f.exists():
            for m in re.finditer(r"^deb\s+(?:\[[^\]]*\]\s+)?(\S+)", f.read_text(), re.M):
                uris.append(m[1])
    return [u.rstrip("/") for u in dict.fromkeys(uris) if not u.rstrip("/").endswith("-security")]


def _apt(private, *args, cwd=None):
    opts = []
    if private:
        opts = ["-o", f"Dir::Etc::SourceList={private / 'sources.list'}",
                "-o", "Dir::Etc::SourceParts=/dev/null",
                "-o", f"Dir::State::Lists={private / 'lists'}",
                "-o", f"Dir::Cache={private / 'cache'}"]
    return subprocess.run(["apt-get", *opts, *args], cwd=cwd, capture_output=True, text=True)


def sources_line(mirror, suite):
    return f"deb [signed-by={KEYRING}] {mirror} {suite} main\n"


def _private_apt(suite):
    """build/kernel/debian/apt/SUITE: a sources list for SUITE on the machine's
    mirror, its lists updated unless they are less than a day old."""
    mirrors = debian_mirrors()
    if not mirrors:
        raise SourceError("no Debian mirror in /etc/apt/sources.list(.d): configure apt first")
    private = CACHE / "apt" / suite
    (private / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (private / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    line = sources_line(mirrors[0], suite)
    listed = private / "sources.list"
    packages = list((private / "lists").glob("*_Packages*"))
    if listed.exists() and listed.read_text() == line and packages and \
            time.time() - min(p.stat().st_mtime for p in packages) < FRESH_S:
        return private
    listed.write_text(line)
    proc = _apt(private, "update")
    if proc.returncode:
        raise SourceError(f"apt-get update of {suite} on {mirrors[0]} failed: "
                          f"{(proc.stderr.strip().splitlines() or ['?'])[-1]}")
    return private


def _download(package, private, dest):
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    proc = _apt(private, "download", package, cwd=dest)
    debs = list(dest.glob("*.deb"))
    if proc.returncode or not debs:
        shutil.rmtree(dest)
        return None
    return debs[0]


def tarball(package, progress=print):
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
    deb = _download(package, None, download)
    suite = "the machine's sources"
    for s in SUITES:
        if deb:
            break
        progress(f"fetching {package} from Debian {s} (a private sources list; once) ...")
        try:
            deb = _download(package, _private_apt(s), download)
        except SourceError:
            continue
        suite = s
    if not deb:
        raise SourceError(f"no Debian suite on this machine's mirror has {package} "
                          f"(tried its own sources and {', '.join(SUITES)})")
    shutil.rmtree(home, ignore_errors=True)
    subprocess.run(["dpkg-deb", "-x", str(deb), str(home)], check=True)
    (home / "FROM").write_text(f"{deb.name} from {suite}\n")
    shutil.rmtree(download)
    if not cached.exists():
        raise SourceError(f"{deb.name} holds no {cached.relative_to(home)}")
    return cached


def source_path(src, tool="kbuild"):
    """SRC as a path: a Debian package name becomes its fetched tarball."""
    if src.exists() or not is_package_name(str(src)):
        return src.resolve()
    try:
        return tarball(str(src), progress=lambda t: print(f"{tool}: {t}", flush=True))
    except SourceError as e:
        cli.die(f"--src {src}: {e}", cli.EXIT_INPUT)


def pristine_tree(src, tool="kbuild"):
    """A directory holding SRC unmodified: SRC itself, or its tarball unpacked once."""
    if src.is_dir():
        if not (src / "Makefile").exists() or not (src / "kernel" / "bpf").is_dir():
            cli.die(f"{src} is not a kernel tree (no Makefile and kernel/bpf/)", cli.EXIT_INPUT)
        return src
    if not src.is_file() or not re.search(r"\.tar(\.\w+)?$", src.name):
        cli.die(f"{src}: give a kernel tree or a source tarball (.tar.xz, .tar.gz)", cli.EXIT_INPUT)
    dest = TREES / (re.sub(r"\.tar(\.\w+)?$", "", src.name) + ".pristine")
    stamp = dest / ".mapbench-unpacked"
    ident = f"{src.resolve()} {src.stat().st_size} {src.stat().st_mtime_ns}\n"
    if not stamp.exists() or stamp.read_text() != ident:
        print(f"{tool}: unpacking {src} (once) ...", flush=True)
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        subprocess.run(["tar", "-xf", str(src), "-C", str(dest), "--strip-components=1"], check=True)
        stamp.write_text(ident)
        pristine_tree(dest, tool)
    return dest
