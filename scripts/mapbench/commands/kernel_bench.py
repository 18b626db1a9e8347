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
import os
import sys
from pathlib import Path

from .. import cli, peer


def say(text):
    """A progress line of kernel-bench's."""
    print(f"kernel-bench: {text}", flush=True)


def main(argv=None):
    ap = cli.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True, type=Path,
                    help="kernel tree, source tarball or Debian package (linux-source-6.12)")
    ap.add_argument("--btf", type=Path, default=peer.BTF,
                    help="BTF for vmlinux.h (default the running kernel's; a guest kernel's "
                         "vmlinux for a newer tree)")
    ap.add_argument("bench_args", nargs=argparse.REMAINDER, help="after --: the bench's arguments")
    args = ap.parse_args(argv)
    if args.bench_args[:1] == ["--"]:
        args.bench_args = args.bench_args[1:]
    try:
        built = peer.prepare(args.src, args.btf, say)
    except peer.BuildFailed as e:
        print(e.tail, file=sys.stderr)
        raise
    if args.bench_args:
        peer.mount_tracefs()
        sys.stdout.flush()
        os.execv(str(built.binary), [str(built.binary), *args.bench_args])
    print(f"kernel-bench: {built.binary}")
    print(f"built: {', '.join(b.removeprefix('bench_') for b in built.benches)}")
    print(f"map_perf_test: {built.map_perf_test or 'not in this tree'}")
    for line in built.refusals():
        print(line)
    return 0
