"""What a guest boots into: a busybox initramfs with a static ./bench, its
/init, and the job (every configuration's runs, and the kernel's tool after
them where asked)."""
import re
import shlex
import shutil
import subprocess  # processes of their own: ./bench (C), find, cpio, gzip, make
import tempfile
from pathlib import Path

from ..model import InputError
from ..paths import ROOT

STATIC_BENCH = ROOT / "build" / "bench.static"


BUSYBOX = Path("/bin/busybox")


# Every guest's start: mount what BPF needs, say which kernel is up, refuse
# a kernel that cannot run the job.
SETUP = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
mkdir -p /proc /sys /dev /tmp /mnt
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
# cgroup v2 with the memory controller for children: htab-mem's and mem's charges
mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null && \
	echo +memory > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
echo "MAPBENCH-GUEST $(uname -r) $(nproc)"
if [ ! -e /sys/kernel/btf/vmlinux ]; then echo MAPBENCH-NOBTF; poweroff -f; fi
# --sample-layouts: the page allocator must be able to shuffle
case " $(cat /proc/cmdline) " in *" mapbench.layout="*)
	[ -e /sys/module/page_alloc/parameters/shuffle ] || { echo MAPBENCH-NOSHUFFLE; poweroff -f; }
esac
"""


# The job's steps: each run's result file is sent (send NAME FILE) and its
# figure reported (figure CASE FILE) as the engine defines them.
STEPS = r"""run() {
	name=$1; case=$2; shift 2
	echo "MAPBENCH-RUN $name"
	/bench -q --json /tmp/r.json "$@"
	rc=$?
	if [ -f /tmp/r.json ]; then
		send "$name" /tmp/r.json
		figure "$case" "$rc" /tmp/r.json
		rm -f /tmp/r.json
	fi
	echo "MAPBENCH-RC $name $rc"
}
# --profile: the kernel's symbols, once per boot (KASLR is off under icount);
# each run's JIT'd programs in kallsyms too, which each run records itself
symbols() {
	echo 1 > /proc/sys/net/core/bpf_jit_kallsyms 2>/dev/null
	send kallsyms /proc/kallsyms
	echo MAPBENCH-SYMBOLS
}
# --peer kernel: the kernel's own tool (its command line given), its output sent back
peer() {
	name=$1; shift
	echo "MAPBENCH-RUN $name"
	"$@" > /tmp/k.log 2>&1
	rc=$?
	send "$name" /tmp/k.log
	echo "MAPBENCH-RC $name $rc"
}
"""


# A local boot: the results go out byte-exact on ttyS1 as
# "MAPBENCH-FILE NAME BYTES\n" + the bytes; the guest powers off when done.
LOCAL = r"""stty -F /dev/ttyS1 raw -echo
send() {
	printf '\nMAPBENCH-FILE %s %s\n' "$1" "$(wc -c < "$2")" > /dev/ttyS1
	cat "$2" > /dev/ttyS1
}
figure() { :; }
"""


# Every engine's end of the job: run it, say it is done.
RUN_JOB = """. /job.sh
echo MAPBENCH-DONE
"""


INIT = SETUP + LOCAL + STEPS + RUN_JOB + """sleep 1
poweroff -f
"""


def valued_options():
    """The ./bench options that take a value, every spelling (--producers, -p)."""
    proc = subprocess.run([str(STATIC_BENCH), "--list-options"], capture_output=True, text=True,
                          check=True)
    return {name for line in proc.stdout.splitlines() if " value" in line
            for name in line.split() if name.startswith("-")}


def config_id(argv, valued):
    """htab-lookup --max-entries 1K -a -> htab-lookup,max-entries=1K,a; valued:
    the options that take a value, so "-a htab-mem" is a flag and a benchmark."""
    out, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a in valued and i + 1 < len(argv):
            out.append(f"{a.lstrip('-')}={argv[i + 1]}")
            i += 2
        else:
            out.append(a.lstrip("-") if a.startswith("-") else a)
            i += 1
    return re.sub(r"[^A-Za-z0-9_.,=+-]+", "_", ",".join(out))


def job_script(configs, warmup_runs, runs, warmup_s, duration_s, extra=(), peer_cmds=None):
    """[(name, argv)] in boot order and the shell lines that run them (each
    with the extra ./bench options). peer_cmds: {configuration index: the
    kernel tool's command line}; a measured run of such a configuration is
    followed by the tool's run of it, named NAME:k."""
    peer_cmds = peer_cmds or {}
    todo = [(f"{i}:w{k}", argv) for k in range(warmup_runs) for i, (_, argv) in enumerate(configs)]
    for k in range(runs):
        for i, (_, argv) in enumerate(configs):
            todo.append((f"{i}:r{k}", argv))
            if i in peer_cmds:
                todo.append((f"{i}:r{k}:k", peer_cmds[i]))

    def line(name, argv):
        if is_peer(name):
            return f"peer {shlex.quote(name)} " + " ".join(map(shlex.quote, argv))
        return (f"run {shlex.quote(name)} {case_name(configs, name)} -w {warmup_s} -d {duration_s} "
                + " ".join(shlex.quote(a) for a in [*extra, *argv]))
    return todo, "\n".join(line(name, argv) for name, argv in todo) + "\n"


def case_name(configs, name):
    """A measured run's name as a test case of a lab (LAVA's: no spaces, no
    "="): CONFIG.run-K; "-" for a warmup, which has none."""
    idx, kind = name.split(":")[:2]
    if kind.startswith("w"):
        return "-"
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", configs[int(idx)][0])[:90] + f".run-{int(kind[1:]) + 1}"


def is_peer(name):
    return name.endswith(":k")


def make_initramfs(dest, job, peer=None, init=INIT, extra=None):
    """A gzip'd newc cpio: /init, busybox, the static bench (and the
    kernel's tools: its bench as /kbench, /map_perf_test beside its BPF
    object), the job, and extra executables ({name: text}) an engine adds."""
    with tempfile.TemporaryDirectory(prefix="mapbench-initramfs-") as d:
        root = Path(d)
        (root / "bin").mkdir()
        shutil.copy2(BUSYBOX, root / "bin" / "busybox")
        shutil.copy2(STATIC_BENCH, root / "bench")
        if peer:
            shutil.copy2(peer.binary, root / "kbench")
        if peer and peer.map_perf_test:
            shutil.copy2(peer.map_perf_test, root / "map_perf_test")
            shutil.copy2(peer.map_perf_test.with_suffix(".bpf.o"), root / "map_perf_test.bpf.o")
        for name, text in {"init": init, **(extra or {})}.items():
            (root / name).write_text(text)
            (root / name).chmod(0o755)
        (root / "job.sh").write_text(job)
        files = subprocess.run(["find", ".", "-mindepth", "1"], cwd=root, capture_output=True,
                               text=True, check=True).stdout
        cpio = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=root, input=files.encode(),
                              capture_output=True, check=True).stdout
    dest.write_bytes(subprocess.run(["gzip", "-1"], input=cpio, capture_output=True,
                                    check=True).stdout)


def build_static_bench():
    proc = subprocess.run(["make", "-s", "-C", str(ROOT), "build/bench.static"],
                          capture_output=True, text=True)
    if proc.returncode:
        raise InputError(f"cannot build the static bench: "
                         f"{(proc.stderr.strip().splitlines() or ['?'])[-1]}")
