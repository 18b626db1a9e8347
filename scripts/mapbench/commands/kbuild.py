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
only what the patches touch is rebuilt (seconds, not minutes). Before/after
kernels must share a config; --from guarantees it. Without --from, a first
build of DIR starts from the newest unpruned build anywhere under build/
(ab's, bisect's or yours) of the same working tree without patches, with
today's fragment and toolchain, and says which (--from none: from nothing).

The toolchain is fixed and recorded: make is given AWK= (mawk where it is
installed: gawk, which lava-server brings in, writes the generated
cpufeaturemasks.h that nearly every object includes in another order, so an
awk that changed rebuilds the whole kernel), and kbuild.json names the
versions of gcc, binutils, awk, pahole and make. A build that starts from
one made with another toolchain says, before building, that most objects
will be rebuilt and why.

kbuild --gc [--keep-builds N] prunes kernel builds under build/ to what
later builds need: per working tree, the newest unpatched build and the N
newest others (default 2) keep their objects; the others keep only
bzImage, .config and kbuild.json (enough to boot and to say what they are),
and tree copies no kept build uses are removed. It prints what it freed.

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
import subprocess  # processes of their own: the kernel's make, patch, rsync, cp, pahole
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
         "perl": "perl", "pahole": "dwarves", "rsync": "rsync", "patch": "patch",
         "ld": "binutils"}
# The awks a kernel build may use, in the order kbuild prefers them; the one
# found is given to make as AWK= so that installing another cannot change it.
AWKS = ("mawk", "gawk", "awk")
# tool -> the command whose first line of output is its version
VERSIONS = {"gcc": ["gcc", "--version"], "binutils": ["ld", "--version"],
            "pahole": ["pahole", "--version"], "make": ["make", "--version"]}
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


def awk():
    """The awk every kernel make is given: the first of AWKS installed."""
    return next(path for name in AWKS if (path := shutil.which(name)))


def first_line(argv):
    proc = subprocess.run(argv, capture_output=True, text=True)
    return ((proc.stdout or proc.stderr).strip().splitlines() or ["?"])[0].strip()


def toolchain():
    """{tool: its version} of what a kernel build here uses: a change of any
    of them rebuilds most objects."""
    tools = {name: first_line(argv) for name, argv in VERSIONS.items()}
    path = awk()
    # mawk answers -W version, gawk --version; either names itself first
    tools["awk"] = f"{path}: " + first_line([path, "-W", "version"] if path.endswith("mawk")
                                            else [path, "--version"])
    return tools


def toolchain_change(recorded, now):
    """"awk changed from X to Y; gcc ..." where a build's recorded toolchain
    differs from now's, or ""."""
    return "; ".join(f"{tool} changed from {recorded[tool]} to {now[tool]}"
                     for tool in sorted(now) if tool in recorded and recorded[tool] != now[tool])


def kmake(tree, out, *targets, local=None, jobs=None):
    """The kernel's make on tree with its output in out, the toolchain fixed."""
    return ["make", "-C", str(tree), f"O={out.resolve()}", f"AWK={awk()}",
            *([f"-j{jobs}"] if jobs else []), *([f"LOCALVERSION={local}"] if local else []),
            *targets]


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
        subprocess.run(kmake(tree, out, "-s", "tinyconfig"), check=True,
                       stdout=subprocess.DEVNULL)
    if fresh or not merged.exists() or merged.read_text().strip() != sha256(fragment):
        if not fresh:
            print(f"kbuild: {fragment} changed since {out} was configured: merging it again",
                  flush=True)
        subprocess.run([str(tree / "scripts/kconfig/merge_config.sh"), "-m", "-O", str(out),
                        str(out / ".config"), str(fragment)], check=True, cwd=out,
                       stdout=subprocess.DEVNULL)
        merged.write_text(sha256(fragment) + "\n")
    subprocess.run(kmake(tree, out, "-s", "olddefconfig", local=local), check=True,
                   stdout=subprocess.DEVNULL)
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
        proc = subprocess.Popen(kmake(tree, out, "bzImage", local=local, jobs=jobs),
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


def whole(kernel):
    """A build with its objects (not pruned): one a later build can start from."""
    info = built_with(kernel)
    return bool(info) and not info.get("pruned") and (kernel / ".config").exists()


# Where kernel builds live under build/: ab's (kernel/SOURCE/LABEL), a user's
# (kernel/NAME), bisect's (bisect/LABEL/kernels/SHA). Fixed depths: a build
# folder holds tens of thousands of files not to be walked.
BUILD_PLACES = ("kernel/*", "kernel/*/*", "bisect/*/kernels/*")
BUILD = ROOT / "build"


def builds(top=BUILD):
    """Every kernel build folder under top (build/)."""
    return sorted({f.parent for place in BUILD_PLACES for f in top.glob(f"{place}/kbuild.json")})


def newest(kernels):
    return sorted(kernels, key=lambda d: (d / "bzImage").stat().st_mtime, reverse=True)


def unpatched_base(tree, fragment, but, top=BUILD):
    """The newest whole build anywhere under build/ of this working tree
    without patches, with this fragment and no other toolchain than today's
    (one that records none is taken, and said so), other than but: a first
    build that starts from it rebuilds what differs, in seconds. A patched
    build would not do: its objects are newer than the pristine sources
    they would have to be rebuilt from."""
    now = toolchain()
    return next((d for d in newest(builds(top)) if d.resolve() != but and whole(d)
                 and (info := built_with(d)).get("tree") == str(tree) and not info["patches"]
                 and info["config_fragment"]["sha256"] == fragment
                 and info.get("toolchain", now) == now), None)


def size_of(folder):
    return sum(os.lstat(os.path.join(d, n)).st_blocks * 512
               for d, _, names in os.walk(folder) for n in names)


# What a pruned build keeps: enough to boot it and to say what it is.
PRUNED_KEEPS = ("bzImage", ".config", "kbuild.json")


def prune(kernel):
    """Everything of a build but PRUNED_KEEPS removed, and kbuild.json
    marked pruned; the bytes freed."""
    before = size_of(kernel)
    for entry in kernel.iterdir():
        if entry.name not in PRUNED_KEEPS:
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    info = built_with(kernel)
    (kernel / "kbuild.json").write_text(json.dumps(dict(info, pruned=True), indent=2) + "\n")
    return before - size_of(kernel)


def prune_older(kernels, keep):
    """Prune every whole build of kernels but the keep newest: [(build,
    bytes freed)]."""
    return [(d, prune(d)) for d in newest([d for d in kernels if whole(d)])[keep:]]


def gc(keep, top=BUILD):
    """kbuild --gc: per working tree, the newest whole unpatched build with
    today's fragment and the keep newest others stay whole; the rest are
    pruned; tree copies no whole build uses are removed (not one a kbuild
    holds). Says what it freed; returns the bytes."""
    by_tree = {}
    for d in builds(top):
        by_tree.setdefault(built_with(d).get("tree"), []).append(d)
    freed = []
    for kernels in by_tree.values():
        base = next((d for d in newest(kernels) if whole(d) and up_to_date(d)
                     and not built_with(d)["patches"]), None)
        freed += prune_older([d for d in kernels if d != base], keep)
    used = {built_with(d).get("tree") for d in builds(top) if whole(d)}
    trees = top / TREES.relative_to(BUILD)
    for copy in sorted(p for p in trees.glob("*") if p.is_dir() and str(p) not in used):
        with open(trees / f"{copy.name}.lock", "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            freed.append((copy, size_of(copy)))
            shutil.rmtree(copy)
        (trees / f"{copy.name}.lock").unlink(missing_ok=True)
    for what, size in freed:
        say(f"pruned {what}: {size / 2 ** 30:.2f} GiB freed")
    total = sum(size for _, size in freed)
    say(f"{total / 2 ** 30:.2f} GiB freed; {len(freed)} pruned, "
        f"{sum(whole(d) for d in builds(top))} whole builds kept")
    return total


def start_from(base, out, tree, why):
    """DIR made a relocated copy of build BASE of the same tree."""
    info = built_with(base) or {}
    if info.get("tree") not in (None, str(tree)):
        cli.die(f"--from {base} was built from {info['tree']}, not {tree}", cli.EXIT_INPUT)
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)         # --out may name a folder in one not made yet
    say(f"starting from {base}{why}")
    subprocess.run(["cp", "-a", f"{base.resolve()}/.", f"{out}/"], check=True)
    relocate(base.resolve(), out)
    (out / "kbuild.json").unlink(missing_ok=True)
    (out / "bzImage").unlink(missing_ok=True)


def base_of(given, out):
    """--from's build as a Path (None for none), after checking it can be one."""
    if given is None or given == "none":
        return None
    base = Path(given)
    if not (base / ".config").exists():
        cli.die(f"--from {base}: not a kbuild build folder (no .config)", cli.EXIT_INPUT)
    if not whole(base) and (base / "kbuild.json").exists():
        cli.die(f"--from {base}: pruned (kbuild --gc), only its bzImage is left; give a whole "
                "build or none", cli.EXIT_INPUT)
    return base if base.resolve() != out else None


def main(argv=None):
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", type=Path,
                    help="kernel tree, source tarball or Debian package (linux-source-7.2)")
    ap.add_argument("--out", type=Path, help="build folder (O=); DIR/bzImage")
    ap.add_argument("--patch", action="append", default=[], type=Path,
                    help="apply to kbuild's copy of the tree (repeatable, in order)")
    ap.add_argument("--from", dest="base", metavar="BASE",
                    help="start from this earlier build of the same source (same .config); "
                         "none: from nothing (default: an unpatched build of the tree, if any)")
    ap.add_argument("--config", type=Path, default=FRAGMENT, help="config fragment to merge")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--gc", action="store_true",
                    help="prune the builds under build/ to what later builds need")
    ap.add_argument("--keep-builds", type=cli.at_least(0), default=2, metavar="N",
                    help="--gc: whole builds kept per tree besides its unpatched base (default 2)")
    args = ap.parse_args(argv)
    if args.gc:
        if args.src or args.out or args.patch or args.base:
            ap.error("--gc prunes what is under build/: give it no build to make")
        gc(args.keep_builds)
        return 0
    if not args.src or not args.out:
        ap.error("give --src and --out (or --gc)")
    for p in args.patch + [args.config]:
        if not p.is_file():
            cli.die(f"{p}: no such file", cli.EXIT_INPUT)
    out = args.out.resolve()
    base = base_of(args.base, out)
    check_toolchain()
    src = kernelsrc.source_path(args.src, say)
    pristine = kernelsrc.pristine_tree(src, say)
    lock_tree(pristine)
    tree = working_tree(pristine)
    why = ""
    if args.base is None and not (out / ".config").exists():
        base = unpatched_base(tree, sha256(args.config), out)
        why = " (an unpatched build of this tree with this fragment and toolchain)"
    now = toolchain()
    recorded = built_with(base) if base else built_with(out)
    if recorded and (changed := toolchain_change(recorded.get("toolchain", now), now)):
        say(f"will rebuild most objects: {changed} since {base or out} was built")
    if base:
        start_from(base, out, tree, why)
    out.mkdir(parents=True, exist_ok=True)
    apply_patches(tree, args.patch)
    local = "-mb-" + re.sub(r"[^A-Za-z0-9_.+-]+", "_", out.name)
    configure(tree, out, args.config, local)
    say(f"building {out}/bzImage from {tree}"
        f"{' + ' + ', '.join(map(str, args.patch)) if args.patch else ''} (-j{args.jobs}; "
        f"a first build takes minutes, a rebuild after a patch seconds)")
    seconds = build(tree, out, local, args.jobs)
    release = subprocess.run(kmake(tree, out, "-s", "kernelrelease", local=local),
                             capture_output=True, text=True, check=True).stdout.strip()
    shutil.copy2(out / "arch/x86/boot/bzImage", out / "bzImage")
    info = {"bzImage": str(out / "bzImage"), "kernel_release": release,
            "src": str(src), "tree": str(tree),
            "patches": [{"path": str(p.resolve()), "sha256": sha256(p)} for p in args.patch],
            "config_fragment": {"path": str(args.config.resolve()), "sha256": sha256(args.config)},
            "config_sha256": sha256(out / ".config"),
            "from": str(base.resolve()) if base else None, "toolchain": now,
            "build_seconds": round(seconds, 1)}
    (out / "kbuild.json").write_text(json.dumps(info, indent=2) + "\n")
    say(f"{out}/bzImage ({release}) built in {seconds:.0f} s")
    return 0
