"""QEMU 10 for the cache model. bookworm's QEMU 7.2 has TCG plugins but an
older API; the model's plugin is written for plugin API v4 (QEMU 10.0),
which Debian ships in bookworm-backports. It is fetched with a private apt
list (mapbench/debian.py), unpacked once under build/qemu10/ and run from
there: nothing is installed. It finds its firmware with -L. Left to itself
it loads bookworm's QEMU 7.2 audio and display modules and aborts; a silent
PC speaker and -nographic keep it from looking for any.
"""
import re
import shutil
import subprocess  # processes of their own: dpkg-deb, QEMU 10
from pathlib import Path

from .. import debian
from ..paths import ROOT

HOME = ROOT / "build" / "qemu10"
SUITE = "bookworm-backports"
PACKAGES = ("qemu-system-x86", "qemu-system-common", "qemu-system-data")
PLUGIN_API = 4      # the API version the plugin declares (QEMU 10.0)
BINARY = HOME / "usr" / "bin" / "qemu-system-x86_64"
FIRMWARE = (HOME / "usr" / "share" / "qemu", Path("/usr/share/seabios"))


class Unsupported(Exception):
    """Why the cache model cannot run here: one line."""


def fetch(progress=lambda _: None):
    """QEMU 10's binary, fetched and unpacked once (progress is told each step)."""
    if BINARY.exists():
        return BINARY
    progress(f"fetching QEMU from Debian {SUITE} (a private sources list; once) ...")
    try:
        private = debian.private_apt(SUITE)
    except debian.FetchError as e:
        raise Unsupported(str(e)) from None
    version = debian.candidate(PACKAGES[0], private)
    if not version or int(version.split(":")[-1].split(".")[0]) < 10:
        raise Unsupported(f"Debian {SUITE} offers no QEMU 10 ({PACKAGES[0]} {version})")
    download = HOME.with_name("qemu10-download")
    debs = debian.download([f"{p}={version}" for p in PACKAGES], private, download)
    if not debs:
        raise Unsupported(f"cannot download {', '.join(PACKAGES)} {version} from {SUITE}")
    shutil.rmtree(HOME, ignore_errors=True)
    for deb in debs:
        subprocess.run(["dpkg-deb", "-x", str(deb), str(HOME)], check=True)
    (HOME / "FROM").write_text("".join(f"{d.name} from {SUITE}\n" for d in debs))
    shutil.rmtree(download)
    return BINARY


def argv():
    """The start of a QEMU 10 command line: the binary, its firmware, no audio."""
    return [str(BINARY), *[a for d in FIRMWARE for a in ("-L", str(d))],
            "-audiodev", "none,id=a0", "-machine", "pcspk-audiodev=a0"]


def version():
    out = subprocess.run([str(BINARY), "--version"], capture_output=True, text=True).stdout
    m = re.search(r"version (\S+)", out)
    return m[1] if m else "unknown"
