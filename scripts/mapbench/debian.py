"""Debian packages the machine's apt sources may lack (linux-source-7.2 lives
in sid and trixie-backports, QEMU 10 in bookworm-backports), fetched as .deb
files through a private sources list under build/debian/apt/SUITE/ that
reuses the machine's configured Debian mirror, read from its apt
configuration now. The system's apt lists, caches and settings are never
touched, and nothing is installed: callers unpack with dpkg-deb -x.
"""
import re
import shutil
import subprocess  # processes of their own: apt-get, apt-cache
import time
from pathlib import Path

from .paths import ROOT

APT = ROOT / "build" / "debian" / "apt"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
FRESH_S = 86400     # a private suite's lists younger than this are not updated again


class FetchError(Exception):
    """Why a package could not be had: one line."""


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


def _private_opts(private):
    return ["-o", f"Dir::Etc::SourceList={private / 'sources.list'}",
            "-o", "Dir::Etc::SourceParts=/dev/null",
            "-o", f"Dir::State::Lists={private / 'lists'}",
            "-o", f"Dir::Cache={private / 'cache'}"] if private else []


def _apt(private, *args, cwd=None, tool="apt-get"):
    return subprocess.run([tool, *_private_opts(private), *args], cwd=cwd, capture_output=True,
                          text=True)


def sources_line(mirror, suite):
    return f"deb [signed-by={KEYRING}] {mirror} {suite} main\n"


def private_apt(suite):
    """build/debian/apt/SUITE: a sources list for SUITE on the machine's
    mirror, its lists updated unless they are less than a day old."""
    mirrors = debian_mirrors()
    if not mirrors:
        raise FetchError("no Debian mirror in /etc/apt/sources.list(.d): configure apt first")
    private = APT / suite
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
        raise FetchError(f"apt-get update of {suite} on {mirrors[0]} failed: "
                         f"{(proc.stderr.strip().splitlines() or ['?'])[-1]}")
    return private


def download(packages, private, dest):
    """PACKAGES (names, or name=version) as .deb files in a new folder DEST,
    from the machine's sources (private None) or a private suite; [] if any
    is missing there."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    proc = _apt(private, "download", *packages, cwd=dest)
    debs = sorted(dest.glob("*.deb"))
    if proc.returncode or len(debs) < len(packages):
        shutil.rmtree(dest)
        return []
    return debs


def candidate(package, private):
    """The version of PACKAGE that apt would fetch from a private suite, or None."""
    out = _apt(private, "policy", package, tool="apt-cache").stdout
    m = re.search(r"Candidate:\s*(\S+)", out)
    return m[1] if m and m[1] != "(none)" else None
