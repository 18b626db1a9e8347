"""Build a small kernel with BPF and BTF for mapbench's QEMU guests.

  kbuild --src SRC --out DIR [--patch FILE]... [--from DIR] [--config FRAGMENT]

SRC is a kernel tree (a directory; your tree is never modified), a source
tarball such as Debian's /usr/src/linux-source-6.12.tar.xz, or the name of a
Debian source package (linux-source-7.2), fetched once with apt from the
Debian suite that has it (see mapbench/kernelsrc.py). kbuild keeps a
private copy of it under build/kernel/tree/, brings the copy up to date with
rsync (unchanged files keep their times, so nothing is rebuilt for nothing),
applies the patches to the copy and builds out of tree into DIR (O=DIR):
`make tinyconfig` plus configs/vm-bpf.config, merged by the kernel's
merge_config.sh. DIR/bzImage is the result and DIR/kbuild.json says what it
was built from (source, patches with their sha256, config fragment, kernel
release, build time).

--from BASE starts DIR as a copy of an earlier build BASE of the same source
(anywhere: its tools' recorded paths are moved to DIR): same .config, and
only what the patches touch is rebuilt (seconds, not minutes). Before/after kernels must share a config; --from guarantees it.

Each build's release carries its name (LOCALVERSION=-mb-NAME, NAME = DIR's
folder name), so results say which kernel they ran on.

Exit status: 0 built, 1 the build failed (last lines of DIR/build.log shown),
2 bad input or a missing tool (one line saying which), 64 usage error,
130 interrupted.
"""
import argparse
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .. import kernelsrc
from .. import cli
from ..paths import ROOT

TREES = kernelsrc.TREES
HELD = []           # lock_tree's open lock file, kept for the process's life
FRAGMENT = ROOT / "configs" / "vm-bpf.config"
# Options without which a guest cannot run mapbench; checked in the final .config.
REQUIRED = ("CONFIG_BPF_SYSCALL", "CONFIG_BPF_JIT", "CONFIG_DEBUG_INFO_BTF",
            "CONFIG_SERIAL_8250_CONSOLE", "CONFIG_BLK_DEV_INITRD", "CONFIG_FUNCTION_TRACER")
TOOLS = {"make": "make", "gcc": "gcc", "flex": "flex", "bison": "bison", "bc": "bc",
         "perl": "perl", "pahole": "dwarves", "rsync": "rsync", "patch": "patch"}
HEADERS = {"/usr/include/libelf.h": "libelf-dev", "/usr/include/openssl/opensslv.h": "libssl-dev"}


def say(text):
    """A progress line of kbuild's."""
    print(f"kbuild: {text}", flush=True)


def check_toolchain():
    """One line naming the Debian package of the first thing missing."""
    for tool, pkg in TOOLS.items():
        if not shutil.which(tool):
            cli.die(f"{tool} is missing: apt-get install {pkg}", cli.EXIT_INPUT)
    for header, pkg in HEADERS.items():
        if not Path(header).exists():
            cli.die(f"{header} is missing: apt-get install {pkg}", cli.EXIT_INPUT)
    out = subprocess.run(["pahole", "--version"], capture_output=True, text=True).stdout
    m = re.match(r"v(\d+)\.(\d+)", out.strip())
    if not m or (int(m[1]), int(m[2])) < (1, 16):
        cli.die(f"pahole {out.strip() or '?'} is too old for BTF (1.16 or newer needed)", cli.EXIT_INPUT)


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def tree_name(pristine):
    """NAME-DIGEST: one per source path (two bisections' worktrees are both
    called src)."""
    digest = hashlib.sha256(str(pristine.resolve()).encode()).hexdigest()[:8]
    return f"{pristine.name.removesuffix('.pristine')}-{digest}"


def lock_tree(pristine):
    """One kbuild at a time per working tree: another one would reset or patch
    it under the first one's build. The lock is held until kbuild exits."""
    TREES.mkdir(parents=True, exist_ok=True)
    lock = open(TREES / f"{tree_name(pristine)}.lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print("kbuild: waiting for another kbuild of this tree to finish ...", flush=True)
        fcntl.flock(lock, fcntl.LOCK_EX)
    HELD.append(lock)


def working_tree(pristine):
    """build/kernel/tree/NAME-DIGEST: the copy kbuild patches and builds. One
    path per source, so builds from it can seed each other (--from)."""
    tree = TREES / tree_name(pristine)
    tree.mkdir(parents=True, exist_ok=True)
    subprocess.run(["rsync", "-a", "--delete", "--exclude=.git", "--exclude=.mapbench-unpacked",
                    f"{pristine}/", f"{tree}/"], check=True)
    return tree


def apply_patches(tree, patches):
    for p in patches:
        proc = subprocess.run(["patch", "-p1", "--forward", "--batch", "-d", str(tree), "-i",
                               str(p.resolve())], capture_output=True, text=True)
        if proc.returncode:
            why = (proc.stdout + proc.stderr).strip().splitlines()
            cli.die(f"{p} does not apply to {tree}: {why[-1] if why else 'patch failed'}",
                    cli.EXIT_INPUT)


def configure(tree, out, fragment, local):
    """tinyconfig + fragment; DIR's own .config (an earlier build or --from)
    is kept, and the fragment merged into it again when it changed since."""
    merged = out / ".mb-fragment.sha256"
    fresh = not (out / ".config").exists()
    if fresh:
        subprocess.run(["make", "-s", "-C", str(tree), f"O={out.resolve()}", "tinyconfig"],
                       check=True, stdout=subprocess.DEVNULL)
    if fresh or not merged.exists() or merged.read_text().strip() != sha256(fragment):
        if not fresh:
            print(f"kbuild: {fragment} changed since {out} was configured: merging it again",
                  flush=True)
        subprocess.run([str(tree / "scripts/kconfig/merge_config.sh"), "-m", "-O", str(out),
                        str(out / ".config"), str(fragment)], check=True, cwd=out,
                       stdout=subprocess.DEVNULL)
        merged.write_text(sha256(fragment) + "\n")
    subprocess.run(["make", "-s", "-C", str(tree), f"O={out.resolve()}",
                    f"LOCALVERSION={local}", "olddefconfig"], check=True, stdout=subprocess.DEVNULL)
    config = (out / ".config").read_text()
    missing = [o for o in REQUIRED if not re.search(rf"^{o}=y$", config, re.M)]
    if missing:
        cli.die(f"the merged config lacks {', '.join(missing)} (an old kernel or pahole?); "
                f"see {out}/.config", cli.EXIT_INPUT)


def build(tree, out, local, jobs):
    """make bzImage with the output in DIR/build.log; a progress line a minute."""
    log_path = out / "build.log"
    start = time.monotonic()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(["make", "-C", str(tree), f"O={out.resolve()}", f"-j{jobs}",
                                 f"LOCALVERSION={local}", "bzImage"],
                                stdout=log, stderr=subprocess.STDOUT)
        try:
            while proc.poll() is None:
                try:
                    proc.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    last = log_path.read_text(errors="replace").strip().splitlines()[-1:]
                    print(f"kbuild: {int(time.monotonic() - start) // 60} min: "
                          f"{last[0].strip() if last else ''}", flush=True)
        except KeyboardInterrupt:
            proc.terminate()
            proc.wait()
            raise
    if proc.returncode:
        tail = log_path.read_text(errors="replace").strip().splitlines()[-15:]
        print("\n".join(tail), file=sys.stderr)
        cli.die(f"the kernel build failed (exit {proc.returncode}); the log is {log_path}",
                cli.EXIT_FAILED)
    return time.monotonic() - start


def relocate(base, out):
    """Make a copy of build BASE at OUT its own: the tools kbuild builds
    (objtool, resolve_btfids) record their absolute output paths in their
    dependency files, so at a new path their commands look changed, they
    are relinked, and every object that depends on objtool (nearly all of
    them) is rebuilt. The old path in those files becomes the new one; each
    file keeps its time."""
    old, new = str(base).encode(), str(out).encode()
    for folder, _, names in os.walk(out):
        for name in names:
            if not (name.endswith(".cmd") or name.endswith(".d")):
                continue
            path = os.path.join(folder, name)
            data = open(path, "rb").read()
            if old in data:
                times = os.stat(path)
                with open(path, "wb") as f:
                    f.write(data.replace(old, new))
                os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))


def built_with(kernel):
    """What kbuild.json says of a build, or None where there is no build."""
    try:
        return json.loads((kernel / "kbuild.json").read_text()) \
            if (kernel / "bzImage").exists() else None
    except (OSError, ValueError):
        return None


def up_to_date(kernel):
    """A kernel exists and was configured with today's fragment."""
    info = built_with(kernel)
    fragment = hashlib.sha256(FRAGMENT.read_bytes()).hexdigest()
    return bool(info) and info["config_fragment"]["sha256"] == fragment


def unpatched_build(kernels, but):
    """A build of this source without patches and with today's fragment,
    other than but, to start a first build from (kbuild --from rebuilds
    only what differs: seconds, where a first build takes minutes); None
    if there is none. A patched build would not do: its objects are newer
    than the pristine sources they would have to be rebuilt from."""
    return next((d for d in sorted(kernels.glob("*")) if d.name != but and up_to_date(d)
                 and not built_with(d)["patches"]), None)


def main(argv=None):
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True, type=Path,
                    help="kernel tree, source tarball or Debian package (linux-source-7.2)")
    ap.add_argument("--out", required=True, type=Path, help="build folder (O=); DIR/bzImage")
    ap.add_argument("--patch", action="append", default=[], type=Path,
                    help="apply to kbuild's copy of the tree (repeatable, in order)")
    ap.add_argument("--from", dest="base", type=Path,
                    help="start from this earlier build of the same source (same .config)")
    ap.add_argument("--config", type=Path, default=FRAGMENT, help="config fragment to merge")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    for p in args.patch + [args.config]:
        if not p.is_file():
            cli.die(f"{p}: no such file", cli.EXIT_INPUT)
    if args.base and not (args.base / ".config").exists():
        cli.die(f"--from {args.base}: not a kbuild build folder (no .config)", cli.EXIT_INPUT)
    check_toolchain()
    out = args.out.resolve()
    src = kernelsrc.source_path(args.src, say)
    pristine = kernelsrc.pristine_tree(src, say)
    lock_tree(pristine)
    tree = working_tree(pristine)
    if args.base and args.base.resolve() != out:
        base_info = json.loads((args.base / "kbuild.json").read_text()) \
            if (args.base / "kbuild.json").exists() else {}
        if base_info.get("tree") not in (None, str(tree)):
            cli.die(f"--from {args.base} was built from {base_info['tree']}, not {tree}",
                    cli.EXIT_INPUT)
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)         # --out may name a folder in one not made yet
        print(f"kbuild: starting from {args.base}", flush=True)
        subprocess.run(["cp", "-a", f"{args.base.resolve()}/.", f"{out}/"], check=True)
        relocate(args.base.resolve(), out)
        (out / "kbuild.json").unlink(missing_ok=True)
        (out / "bzImage").unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    apply_patches(tree, args.patch)
    local = "-mb-" + re.sub(r"[^A-Za-z0-9_.+-]+", "_", out.name)
    configure(tree, out, args.config, local)
    print(f"kbuild: building {out}/bzImage from {tree}"
          f"{' + ' + ', '.join(map(str, args.patch)) if args.patch else ''} (-j{args.jobs}; "
          f"a first build takes minutes, a rebuild after a patch seconds)", flush=True)
    seconds = build(tree, out, local, args.jobs)
    release = subprocess.run(["make", "-s", "-C", str(tree), f"O={out}", f"LOCALVERSION={local}",
                              "kernelrelease"], capture_output=True, text=True, check=True
                             ).stdout.strip()
    shutil.copy2(out / "arch/x86/boot/bzImage", out / "bzImage")
    info = {"bzImage": str(out / "bzImage"), "kernel_release": release,
            "src": str(src), "tree": str(tree),
            "patches": [{"path": str(p.resolve()), "sha256": sha256(p)} for p in args.patch],
            "config_fragment": {"path": str(args.config.resolve()), "sha256": sha256(args.config)},
            "config_sha256": sha256(out / ".config"),
            "from": str(args.base.resolve()) if args.base else None,
            "build_seconds": round(seconds, 1)}
    (out / "kbuild.json").write_text(json.dumps(info, indent=2) + "\n")
    print(f"kbuild: {out}/bzImage ({release}) built in {seconds:.0f} s")
    return 0
