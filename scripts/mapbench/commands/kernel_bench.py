"""Build the kernel's own selftests bench from a kernel tree, map benchmarks
only, and run it: the peer mapbench's kernel-named benchmarks are checked
against.

  kernel-bench --src TREE|TARBALL|linux-source-X.Y           build; say what runs here
  kernel-bench --src linux-source-6.12 -- -w1 -d3 -a -p2 htab-mem --use-case overwrite

The tree's own tools/testing/selftests/bpf Makefile builds the pieces (its
libbpf, statically: Debian 12's 1.1.2 is too old for recent selftests; its
bpftool; vmlinux.h from --btf, default the running kernel's; the BPF
programs with clang; the skeletons), and only the objects of the map
benchmarks the tree has (htab-mem, bpf-hashmap-*, lpm-trie-*, and the rhtab
names where the tree has them; from 7.3 also bpf-nop and xdp-lb, with their
BPF-side timing library, each left out with the compiler's reason where this
machine's clang cannot build it), linked statically so that scripts/vmrun
--peer kernel can run it in guests; and samples/bpf map_perf_test, the peer
of map-perf-*, with the same libbpf and vmlinux.h. bench.c names every benchmark of the suite,
so the others are linked as stubs named NAME-not-built. The build lives in
build/kernel-bench/TREE/ (with a copy of the tree: the selftests
Makefile writes into its own tree) and is reused. Benchmarks whose programs attach
fentry are listed as unable to run where the kernel refuses fentry (our
hosts; guests allow it), with the reason.

With arguments after --, runs the bench with them (tracefs is mounted where
it is missing: the kernel's htab-mem attaches to syscall tracepoints) and
exits with its status.

Exit status: 0 built (and the bench's own status when it runs), 1 the build
failed (last lines of its log shown), 2 bad input or a missing tool, 64 usage
error, 130 interrupted.
"""
import argparse
import hashlib
import os
import re
import shutil
import subprocess  # processes of their own: the selftests make, gcc, nm, readelf, ./bench
import sys
from dataclasses import dataclass
from pathlib import Path

from .. import cli, contracts, kernelsrc
from ..model import InputError
from ..paths import ROOT

BUILDS = ROOT / "build" / "kernel-bench"
SELFTESTS = Path("tools/testing/selftests/bpf")
HELPERS = ("bench", "testing_helpers", "cgroup_helpers", "trace_helpers")


def selftests_benches():
    """The selftests bench's files our benchmarks are, as ./bench declares
    them (src/peers/): {bench object: library object or None}, e.g.
    bench_htab_mem: None, bench_xdp_lb: bench_bpf_timing (7.3's BPF-side
    timing benchmarks, each built on its own with its library, and left out
    with the reason where this machine's clang cannot build their programs)."""
    def stem(path):
        return Path(path).stem if path and Path(path).parent == SELFTESTS / "benchs" else None
    return {stem(source): stem(library) for source, library in contracts.kernel_sources()
            if stem(source)}
TOOLS = {"make": "make", "clang": "clang", "llc": "llvm", "gcc": "gcc", "nm": "binutils",
         "rsync": "rsync"}


def say(text):
    """A progress line of kernel-bench's."""
    print(f"kernel-bench: {text}", flush=True)


def check_tools():
    for tool, pkg in TOOLS.items():
        if not shutil.which(tool):
            raise InputError(f"{tool} is missing: apt-get install {pkg}", cli.EXIT_INPUT)


def out_dir(tree, btf, wanted):
    """One build per tree, BTF (their paths) and set of benchmarks wanted,
    reused: a kernel bench added to ./bench builds anew."""
    key = f"{tree.resolve()} {btf.resolve()} {' '.join(sorted(wanted))}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:8]
    return BUILDS / f"{tree.name.removesuffix('.pristine')}-{digest}"


def make(selftests, out, btf, targets, log, must=True):
    """The tree's selftests Makefile, building only these targets; whether it
    did (a failure ends the tool where it must not)."""
    with open(log, "a") as f:
        proc = subprocess.run(["make", "-C", str(selftests), f"-j{os.cpu_count() or 1}",
                               f"OUTPUT={out}", f"VMLINUX_BTF={btf.resolve()}",
                               # newer trees' test runner wants the arena library, whose
                               # programs need a clang newer than Debian 12's; the map
                               # benchmarks do not use it
                               "LIBARENA_SKEL=", *map(str, targets)],
                              stdout=f, stderr=subprocess.STDOUT)
    if proc.returncode and must:
        fail(log, f"building the kernel bench failed (make exit {proc.returncode})")
    return proc.returncode == 0


def build_with_libraries(selftests, out, btf, wanted):
    """The benchmarks of wanted ({bench: library}) this machine builds, each
    with its library: (objects, {bench: why not})."""
    built, libraries, skipped = [], [], {}
    for b, library in wanted.items():
        log = out / f"{b}.log"
        log.write_text("")
        if make(selftests, out, btf, [out / f"{library}.o", out / f"{b}.o"], log, must=False):
            built.append(b)
            libraries += [library] if library not in libraries else []
        else:
            errors = [x for x in log.read_text(errors="replace").splitlines() if "error" in x]
            skipped[b] = (errors or ["see the log"])[0].strip()[:160] + f" ({log})"
    return libraries + built, skipped


def fail(log, what):
    """The log's last lines, then one line saying what failed and where the log is."""
    print("\n".join(log.read_text(errors="replace").strip().splitlines()[-15:]), file=sys.stderr)
    raise InputError(f"{what}; the log is {log}", cli.EXIT_FAILED)


def write_stubs(selftests, out, built):
    """stubs.c: every benchmark and option parser bench.c names but the built
    objects do not define, as an inert definition (a NAME-not-built bench)."""
    names = re.findall(r"extern (?:const )?struct (bench|argp) (\w+);",
                       (selftests / "bench.c").read_text())
    nm = subprocess.run(["nm", "--defined-only", *map(str, built)], capture_output=True,
                        text=True, check=True).stdout
    have = {line.split()[-1] for line in nm.splitlines() if len(line.split()) == 3}
    lines = ["/* Generated by mapbench's scripts/kernel-bench: the benchmarks not built. */",
             "#include <argp.h>", '#include "bench.h"']
    for kind, name in names:
        if name in have:
            continue
        lines.append(f'const struct bench {name} = {{ .name = "{name}-not-built" }};'
                     if kind == "bench" else f"const struct argp {name} = {{ 0 }};")
    (out / "stubs.c").write_text("\n".join(lines) + "\n")


def build(tree, btf):
    if not (tree / SELFTESTS / "bench.c").exists():
        raise InputError(f"{tree} has no {SELFTESTS}/bench.c (the kernel's bench came with "
                         "5.10)", cli.EXIT_INPUT)
    present = {b: library for b, library in selftests_benches().items()
               if (tree / SELFTESTS / "benchs" / f"{b}.c").exists()}
    benches = [b for b, library in present.items() if not library]
    out = out_dir(tree, btf, present)
    binary = out / "bench"
    if binary.exists():
        return binary, benches
    # The selftests Makefile writes into its tree: it runs in a copy, so the
    # user's tree (and kbuild's pristine copy) stay as they were.
    copy = out / "src"
    copy.mkdir(parents=True, exist_ok=True)
    subprocess.run(["rsync", "-a", "--delete", "--exclude=.git", f"{tree}/", f"{copy}/"],
                   check=True)
    tree, selftests = copy, copy / SELFTESTS
    log = out / "build.log"
    log.write_text("")
    print(f"kernel-bench: building {', '.join(benches)} from {selftests} into {out} "
          "(its libbpf, bpftool and programs; a minute or two) ...", flush=True)
    objects = [out / f"{o}.o" for o in HELPERS + tuple(benches)]
    make(selftests, out, btf, objects, log)
    with_libraries, skipped = build_with_libraries(
        selftests, out, btf, {b: library for b, library in present.items() if library})
    for b, why in skipped.items():
        print(f"kernel-bench: {b.removeprefix('bench_')} not built: {why}", flush=True)
    objects += [out / f"{o}.o" for o in with_libraries]
    benches += [b for b in with_libraries if b in present]
    write_stubs(selftests, out, [out / f"{b}.o" for b in benches])
    libbpf = next(out.glob("tools/build/libbpf/libbpf.a"))
    includes = [f"-I{p}" for p in (selftests, tree / "tools/include", out / "tools/include",
                                   tree / "tools/include/uapi")]
    for argv in (["gcc", "-O2", *includes, "-c", str(out / "stubs.c"), "-o", str(out / "stubs.o")],
                 # static: the same binary runs in vmrun's guests (--peer kernel)
                 ["gcc", "-static", "-o", str(binary) + ".tmp", *map(str, objects),
                  str(out / "stubs.o"),
                  str(libbpf), "-lelf", "-lz", "-lm", "-lpthread"]):
        with open(log, "a") as f:
            if subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT).returncode:
                fail(log, "linking the kernel bench failed")
    os.replace(str(binary) + ".tmp", binary)
    return binary, benches


def build_map_perf_test(copy, out):
    """samples/bpf map_perf_test from the copy of the tree, with the libbpf
    and vmlinux.h the selftests build made, linked statically for guests:
    OUT/map_perf_test and the OUT/map_perf_test.bpf.o it opens beside
    itself. None where the tree has no map_perf_test."""
    samples = copy / "samples" / "bpf"
    binary = out / "map_perf_test"
    if not (samples / "map_perf_test_user.c").exists():
        return None
    if binary.exists():
        return binary
    log = out / "build.log"
    # its program includes <errno.h> for ENOENT; glibc's needs a multilib
    # under --target=bpf, so it gets the kernel's errno values instead
    shim = out / "map-perf-shim"
    shim.mkdir(exist_ok=True)
    (shim / "errno.h").write_text("#include <asm-generic/errno-base.h>\n")
    libbpf = next(out.glob("tools/build/libbpf/libbpf.a"))
    for argv in (["clang", "-g", "-O2", "--target=bpf", "-D__TARGET_ARCH_x86",
                  "-Wno-compare-distinct-pointer-types", f"-I{shim}",
                  # the selftests build's vmlinux.h and libbpf headers
                  f"-I{out / 'tools/include'}", f"-I{copy / 'include/uapi'}",
                  "-idirafter", "/usr/include", "-c", str(samples / "map_perf_test.bpf.c"),
                  "-o", str(out / "map_perf_test.bpf.o")],
                 ["gcc", "-O2", "-static", f"-I{copy / 'tools/include/uapi'}",
                  f"-I{out / 'tools/include'}", str(samples / "map_perf_test_user.c"),
                  str(libbpf), "-lelf", "-lz", "-o", str(binary) + ".tmp"]):
        with open(log, "a") as f:
            if subprocess.run(argv, stdout=f, stderr=subprocess.STDOUT).returncode:
                fail(log, "building map_perf_test failed")
    os.replace(str(binary) + ".tmp", binary)
    return binary


def fentry_programs(out):
    """{program object: fentry sections} of the built BPF objects."""
    found = {}
    for obj in sorted(out.glob("*.bpf.o")):
        secs = subprocess.run(["readelf", "-SW", str(obj)], capture_output=True, text=True).stdout
        fentry = sorted(set(re.findall(r"\b(f(?:entry|exit)/\S+)", secs)))
        if fentry:
            found[obj.stem.removesuffix(".bpf")] = fentry
    return found


def fentry_refused():
    """The reason this kernel refuses fentry, or None (asked of ./bench)."""
    bench = ROOT / "bench"
    if not bench.exists():
        return None
    proc = subprocess.run([str(bench), "-q", "-w", "0", "-d", "1", "htab-lookup", "--trigger",
                           "fentry", "--max-entries", "1K"], capture_output=True, text=True)
    return proc.stderr.strip().splitlines()[-1] if proc.returncode == 2 else None


def mount_tracefs():
    if not Path("/sys/kernel/tracing/events").exists():
        subprocess.run(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"],
                       capture_output=True)


@dataclass
class Built:
    """The kernel bench of a tree, built: its binary, the map benchmarks in
    it, and map_perf_test (None where the tree has none)."""
    binary: Path
    benches: list
    map_perf_test: Path

    def refusals(self):
        """A line per program whose benchmarks this kernel cannot run."""
        refused = fentry_refused()
        return [f"cannot run here: the benchmarks of {prog} attach {', '.join(secs)} and "
                f"this kernel refuses fentry ({refused})"
                for prog, secs in fentry_programs(self.binary.parent).items() if refused]


def prepare(src, btf):
    """The kernel bench of src (a tree, tarball or Debian package), built
    against btf where it is not yet; InputError where it cannot be."""
    if not btf.exists():
        raise InputError(f"--btf {btf}: no such file", cli.EXIT_INPUT)
    check_tools()
    tree = kernelsrc.pristine_tree(kernelsrc.source_path(src, say), say)
    binary, benches = build(tree, btf)
    return Built(binary, benches, build_map_perf_test(binary.parent / "src", binary.parent))


def main(argv=None):
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True, type=Path,
                    help="kernel tree, source tarball or Debian package (linux-source-6.12)")
    ap.add_argument("--btf", type=Path, default=Path("/sys/kernel/btf/vmlinux"),
                    help="BTF for vmlinux.h (default the running kernel's; a guest kernel's "
                         "vmlinux for a newer tree)")
    ap.add_argument("bench_args", nargs=argparse.REMAINDER, help="after --: the bench's arguments")
    args = ap.parse_args(argv)
    if args.bench_args[:1] == ["--"]:
        args.bench_args = args.bench_args[1:]
    built = prepare(args.src, args.btf)
    if args.bench_args:
        mount_tracefs()
        sys.stdout.flush()
        os.execv(str(built.binary), [str(built.binary), *args.bench_args])
    print(f"kernel-bench: {built.binary}")
    print(f"built: {', '.join(b.removeprefix('bench_') for b in built.benches)}")
    print(f"map_perf_test: {built.map_perf_test or 'not in this tree'}")
    for line in built.refusals():
        print(line)
    return 0
