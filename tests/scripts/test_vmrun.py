"""scripts/vmrun: guests booted from real Debian kernel images (TCG), the
result stream over the second serial port, and its input errors."""
import argparse
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ROOT, run_script, sigint_default

from mapbench import results
from mapbench.guest import boot as guest_boot, files, initramfs, options, qemu
from mapbench.model import InputError
from mapbench.peer import Peer

VMRUN = ROOT / "scripts" / "vmrun"


def vmrun(*args, timeout=900):
    return subprocess.run(["/usr/bin/python3", str(VMRUN), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def test_frames_keeps_complete_files_only():
    body = b'{"a": "MAPBENCH-FILE x 3\\n"}'
    stream = (b"noise\nMAPBENCH-FILE 0:w0 " + str(len(body)).encode() + b"\n" + body +
              b"\nMAPBENCH-FILE 1:r0 100\n{\"cut")
    assert guest_boot.frames(stream) == {"0:w0": body}


def test_config_ids_and_job_order():
    valued = {"--max-entries", "-p", "--use-case", "--prefix_len", "--nr_entries"}
    assert initramfs.config_id(["htab-lookup", "--max-entries", "1K", "-a"], valued) == \
        "htab-lookup,max-entries=1K,a"
    # a flag before the benchmark is a flag, not an option with a value
    assert initramfs.config_id(["-p", "8", "-a", "htab-mem", "--use-case", "overwrite"], valued) == \
        "p=8,a,htab-mem,use-case=overwrite"
    todo, job = initramfs.job_script([("x", ["htab-lookup"]), ("y", ["lpm-trie-lookup", "-p", "2"])],
                             1, 2, 0, 1)
    # Every configuration's warmup first, then the measured runs round-robin.
    assert [n for n, _ in todo] == ["0:w0", "1:w0", "0:r0", "1:r0", "0:r1", "1:r1"]
    assert job.splitlines()[1] == "run 1:w0 - -w 0 -d 1 lpm-trie-lookup -p 2"
    _, job = initramfs.job_script([("x", ["htab-lookup"])], 0, 1, 0, 1, ["--zero-seed"])
    assert job == "run 0:r0 x.run-1 -w 0 -d 1 --zero-seed htab-lookup\n"
    assert initramfs.config_id(["--prefix_len=32", "--nr_entries=10000", "lpm-trie-noop"], valued) == \
        "prefix_len=32,nr_entries=10000,lpm-trie-noop"


def test_the_peer_runs_right_after_each_measured_run_it_has():
    # a kernel bench that has htab-mem only
    todo, job = initramfs.job_script([("m", ["htab-mem", "-p", "2"]), ("l", ["htab-lookup"])], 1, 2, 1, 3,
                             ["--zero-seed"], {0: ["/kbench", "-w", "1", "-d", "3", "htab-mem",
                                                   "-p", "2"]})
    # Not after warmups; interleaved with mapbench's runs of the same round.
    assert [n for n, _ in todo] == ["0:w0", "1:w0", "0:r0", "0:r0:k", "1:r0", "0:r1", "0:r1:k",
                                    "1:r1"]
    lines = job.splitlines()
    # The kernel's bench gets the same arguments and none of mapbench's own options.
    assert lines[3] == "peer 0:r0:k /kbench -w 1 -d 3 htab-mem -p 2"
    assert lines[2] == "run 0:r0 m.run-1 -w 1 -d 3 --zero-seed htab-mem -p 2"


def test_the_clock_follows_the_accelerator():
    assert [qemu.clock_for("auto", "tcg"), qemu.clock_for("auto", "kvm")] == ["icount", "host"]
    assert qemu.clock_for("host", "tcg") == "host"
    with pytest.raises(InputError) as refused:      # KVM does not count instructions
        qemu.clock_for("icount", "kvm")
    assert refused.value.status == 2 and "--accel tcg" in str(refused.value)
    argv = qemu.qemu_argv("img", "rd", "out", "tcg", 1, 512, "icount")
    assert argv[argv.index("-icount") + 1] == "shift=0,align=off,sleep=off"
    assert "-icount" not in qemu.qemu_argv("img", "rd", "out", "tcg", 1, 512, "host")


@pytest.mark.parametrize("args, status, says", [
    (["--kernel", "/nonexistent/bzImage", "--", "htab-lookup"], 2, "no such file"),
    (["--kernel", __file__, "--", "htab-lookup"], 2, "not an x86 kernel image"),
    (["--kernel", __file__, "--label", "a", "--label", "b", "--", "htab-lookup"], 64,
     "give one per kernel"),
    (["--kernel", __file__], 64, "nothing to run"),
    (["--kernel", __file__, "-j", "0", "--", "htab-lookup"], 64,
     "argument -j/--jobs: 0 is not a whole number, 1 or more"),
    (["--kernel", __file__, "--mem", "0", "--", "htab-lookup"], 64,
     "argument --mem: 0 is not a whole number, 1 or more"),
    (["--kernel", __file__, "--run-timeout", "ten", "--", "htab-lookup"], 64,
     "argument --run-timeout: 'ten' is not a whole number, 1 or more"),
    (["--kernel", __file__, "--peer", "kernel", "--", "htab-mem"], 64,
     "--peer kernel and --kernel-src SRC go together"),
    (["--kernel", __file__, "--peer-btf", "/x", "--", "htab-mem"], 64,
     "--peer-btf goes with --peer kernel"),
])
def test_bad_input_is_one_line(args, status, says):
    proc = run_script("vmrun", *args)
    assert proc.returncode == status, proc.stderr
    assert says in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_two_debian_kernels_alternate_and_fentry_works(root, debian_6_1, debian_6_12, tmp_path,
                                                       validator):
    a, b = tmp_path / "a", tmp_path / "b"
    lookup_id, for_id = ("htab-lookup,trigger=fentry,max-entries=1K",
                         "htab-lookup,loop=bpf_for,max-entries=1K")
    proc = vmrun("--kernel", debian_6_1, "--kernel", debian_6_12, "--label", a, "--label", b,
                 "--accel", "tcg", "-w", 0, "-d", 1,
                 "--bench", "htab-lookup --trigger fentry --max-entries 1K",
                 "--bench", "htab-lookup --loop bpf_for --max-entries 1K",
                 "--bench", "htab-free --max-entries 1K",
                 "--bench", "bpf-hashmap-full-update")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[boot 2/2]" in proc.stdout
    assert "TCG emulation (--accel tcg)" in proc.stderr and "not hardware numbers" in proc.stderr
    docs = {}
    for folder, release, boot in ((a, "6.1.0-", 1), (b, "6.12.", 2)):
        docs[folder] = {name: json.loads((folder / cid / f"{kind}-1.json").read_text())
                        for name, cid, kind in (("lookup", lookup_id, "run"),
                                                ("for", for_id, "run"),
                                                ("free", "htab-free,max-entries=1K", "run"),
                                                ("full", "bpf-hashmap-full-update", "run"),
                                                ("warm", "htab-free,max-entries=1K", "warmup"))}
        for doc in docs[folder].values():
            validator.validate(doc)
            env = doc["environment"]
            assert env["kernel_release"].startswith(release)
            assert env["vm"]["accelerator"] == "tcg" and env["vm"]["boot"] == boot
            # TCG guests count instructions, and their hash maps hash with seed 0
            assert env["vm"]["clock"] == "icount" and env["vm"]["icount_shift"] == 0
            assert doc["params"]["zero_seed"] is True
            assert env["label"] == folder.name
        free, warm, lookup = docs[folder]["free"], docs[folder]["warm"], docs[folder]["lookup"]
        # E2BIG from a full map is a miss on both (6.1's map ops return int:
        # only the register's lower half is the error)
        full = docs[folder]["full"]
        assert full["status"] == "complete" and full["errors"]["total"] == 0, full["errors"]
        assert full["summary"]["misses"] == full["summary"]["ops"] > 0
        assert free["status"] == "complete" and free["params"]["timing"].startswith("fentry")
        assert warm["environment"]["vm"]["warmup"] and not free["environment"]["vm"]["warmup"]
        # fentry-triggered lookups on both kernels: 6.12 loops with bpf_for, 6.1 with bpf_loop.
        assert (lookup["status"], lookup["environment"]["trigger"]) == ("complete", "fentry")
        assert lookup["summary"]["hit_rate"] == 1.0
        assert lookup["environment"]["loop"] == ("bpf_loop" if release == "6.1.0-" else "bpf_for")
        runs = results.load_path(folder)
        assert all("warmup" in s.why or "unsupported" in s.why for s in runs.skipped)
    # 6.1 has no bpf_for: asked for, it is unsupported with the reason, not a failure.
    old = docs[a]["for"]
    assert old["status"] == "unsupported" and "bpf_iter_num_new" in old["reason"]
    assert docs[b]["for"]["status"] == "complete"
    report = subprocess.run(["/usr/bin/python3", ROOT / "scripts" / "report", a, b],
                            capture_output=True, text=True)
    assert report.returncode == 0, report.stderr
    assert "Kernel before: 6.1.0-" in report.stdout and "Kernel after: 6.12." in report.stdout
    assert "Guest: QEMU" in report.stdout
    assert "Clock: icount" in report.stdout and "1 ns = 1 instruction" in report.stdout


def test_ctrl_c_stops_qemu_and_keeps_finished_runs(root, debian_6_12, tmp_path):
    out = tmp_path / "stopped"
    proc = subprocess.Popen(["/usr/bin/python3", str(VMRUN), "--kernel", str(debian_6_12),
                             "--label", str(out), "--accel", "tcg", "--boots", "3",
                             "--warmup-runs", "0", "-w", "0", "-d", "1", "--",
                             "htab-lookup", "--max-entries", "1K"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=sigint_default)
    for line in proc.stdout:
        if "run 1:" in line:
            break
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, rest + err
    assert "Interrupted" in rest
    assert len(list(out.glob("*/run-*.json"))) in (1, 2)
    # No guest left running: QEMU's command line names the image and vmrun's
    # temporary folder (guests of other images may be someone else's).
    mine = f"-kernel {debian_6_12.resolve()} -initrd [^ ]*mapbench-vm-"
    left = subprocess.run(["pgrep", "-f", "--", mine], capture_output=True)
    assert left.returncode == 1, left.stdout


def test_a_guest_benchmark_is_checked_against_the_guests_cpus():
    """vmrun --smp 8 on a 2-CPU host: -p 8 -a fits the guest, so its check
    passes; the label names -a as the flag it is."""
    initramfs.build_static_bench()
    argv = ["-p", "8", "-a", "htab-mem", "--use-case", "overwrite"]
    assert initramfs.config_id(argv, initramfs.valued_options()) == "p=8,a,htab-mem,use-case=overwrite"

    def dry(*args):
        return subprocess.run([str(initramfs.STATIC_BENCH), "--dry-run", *args, *argv],
                              capture_output=True, text=True)
    ok = dry("--guest-cpus", "8")
    assert ok.returncode == 0 and '"prod_cpus":[0,1,2,3,4,5,6,7]' in ok.stdout, ok.stderr
    small = dry("--guest-cpus", "4")
    assert small.returncode == 1
    assert small.stderr.strip() == \
        "mapbench: more pinned producers (8) than online CPUs (4): lower -p or drop -a"
    alone = subprocess.run([str(initramfs.STATIC_BENCH), "--guest-cpus", "8", *argv],
                           capture_output=True, text=True)
    assert alone.returncode == 1 and "give it with --dry-run" in alone.stderr


def test_files_are_named_by_boot_and_run_whichever_finishes_first(tmp_path):
    """Guests run at once (-j) finish in any order: a file's number comes from
    its boot and run, after the files a set already had (ab adds rounds)."""
    args = argparse.Namespace(seed=1, boots=2, order="alternate", runs=2, warmup_runs=1, model="none",
                              profile=False)
    a, b = tmp_path / "a", tmp_path / "b"
    (a / "cfg").mkdir(parents=True)
    (a / "cfg" / "run-3.json").write_text("{}")          # from an earlier vmrun
    plan = files.Plan(args, [Path("A"), Path("B")], [str(a), str(b)], [("cfg", ["htab-lookup"])])
    assert plan.boots == [(0, 0), (0, 1), (1, 0), (1, 1)]
    names, rounds = {}, {}
    for k in (0, 1):
        for boot in (1, 0):
            for name in ("0:r1", "0:w0", "0:r0"):
                path, n = plan.path(k, name, boot)
                names[(k, name, boot)] = path.relative_to(tmp_path).as_posix()
                rounds[(k, name, boot)] = n
    assert names[(0, "0:r0", 0)] == "a/cfg/run-4.json"
    assert names[(0, "0:r1", 1)] == "a/cfg/run-7.json"
    assert names[(1, "0:r0", 0)] == "b/cfg/run-1.json"
    assert names[(1, "0:r1", 1)] == "b/cfg/run-4.json"
    assert names[(1, "0:w0", 1)] == "b/cfg/warmup-2.json"
    assert plan.path(1, "0:r1:k", 1, ".log", peer=True)[0] == tmp_path / "b-kernel/cfg/run-4.log"
    assert len(set(names.values())) == len(names)
    # the round stored in a result is its N
    assert rounds[(0, "0:r1", 1)] == 7 and rounds[(1, "0:r0", 0)] == 1
    vm = {"boot_of_kernel": 2}
    doc = plan.store(1, "0:r1", {"environment": {}}, vm)
    assert doc["environment"]["round"] == 4 and not doc["environment"]["vm"]["warmup"]
    assert json.loads((b / "cfg" / "run-4.json").read_text())["environment"]["round"] == 4
    assert plan.store(1, "0:w0", {"environment": {}}, vm)["environment"]["round"] is None


def test_the_host_clock_boots_one_guest_at_a_time():
    assert qemu.parallel_boots(None, "icount") == (os.cpu_count(), None)
    assert qemu.parallel_boots(3, "icount") == (3, None)
    assert qemu.parallel_boots(1, "host") == (1, None)
    jobs, note = qemu.parallel_boots(4, "host")
    assert jobs == 1 and "-j 4 ignored" in note


@pytest.mark.slow
def test_guests_at_once_give_the_figures_of_guests_one_at_a_time(root, debian_6_12, tmp_path):
    """Under icount a guest's figures do not depend on the host's load: two
    guests at once measure what one at a time does (within the clock's own
    run-to-run spread), in files of the same names. The wall times are
    printed, not asserted: they are the machine's."""
    sets, took = {}, {}
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}"
        t0 = time.monotonic()
        proc = vmrun("--kernel", debian_6_12, "--label", out, "--accel", "tcg", "--boots", 2,
                     "--runs", 2, "-w", 0, "-d", 1, "-j", jobs, "--",
                     "htab-lookup", "--max-entries", "1K")
        took[jobs] = time.monotonic() - t0
        assert proc.returncode == 0, proc.stdout + proc.stderr
        sets[jobs] = {f.relative_to(out): json.loads(f.read_text())["summary"]["figure"]["median"]
                      for f in out.glob("*/run-*.json")}
    print(f"wall time: -j 1 {took[1]:.1f} s, -j 2 {took[2]:.1f} s ({took[2] / took[1]:.0%})")
    assert sets[1].keys() == sets[2].keys() and len(sets[1]) == 4
    runs = list(sets[1].values()) + list(sets[2].values())
    assert max(runs) / min(runs) - 1 < 1e-4      # icount runs of one kernel: within 0.01%


@pytest.mark.slow
def test_a_deleting_writer_makes_the_readers_miss(root, debian_6_12, tmp_path):
    """With two vCPUs under icount the reader and the writer run at once in
    every run, which a loaded host does not promise (tests/integration's
    readers-and-writers test leaves this out): the lookups a deleting writer
    meets miss, and only they."""
    out = tmp_path / "rw"
    proc = vmrun("--kernel", debian_6_12, "--label", out, "--accel", "tcg", "--smp", 2,
                 "-w", 0, "-d", 1, "--", "htab-lookup-delete", "--readers", 1, "--writers", 1)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc, = [json.loads(f.read_text()) for f in out.glob("*/run-*.json")]
    roles = doc["summary"]["roles"]
    assert roles["readers"]["hit_rate"] < 1.0 and roles["writers"]["hit_rate"] == 1.0
    assert doc["errors"]["total"] == 0


def test_a_topology_is_a_qemu_machine_shape():
    argv = qemu.qemu_argv("img", "rd", "out", "tcg", 64, 4096, "icount", "epyc-2s-8ccx")
    assert argv[argv.index("-smp") + 1] == "64,sockets=2,dies=4,cores=4,threads=2"
    assert argv[argv.index("-cpu") + 1] == "Skylake-Server"     # L3 per die (CCX)
    nodes = [argv[i + 1] for i, a in enumerate(argv) if a == "-numa"]
    assert nodes == ["node,nodeid=0,memdev=m0,cpus=0-31", "node,nodeid=1,memdev=m1,cpus=32-63"]
    assert "memory-backend-ram,id=m1,size=2048M" in argv
    assert qemu.topology_record("epyc-1s-2ccx")["cpus"] == 8
    proc = vmrun("--kernel", __file__, "--topology", "epyc-1s-2ccx", "--smp", "4", "--",
                 "htab-lookup")
    assert proc.returncode == 64 and "has 8 CPUs: drop --smp 4" in proc.stderr


def test_a_model_trace_needs_a_local_model_and_a_path_qemu_can_take(tmp_path):
    for extra, said in ((["--model-trace", tmp_path / "t"], "give --model NAME"),
                        (["--model", "zen4", "--model-trace", tmp_path / "a,b"], "without commas"),
                        (["--model", "zen4", "--model-trace", tmp_path / "t",
                          "--model-trace-accesses", 0], "1 or more")):
        proc = vmrun("--kernel", __file__, *extra, "--", "htab-lookup")
        assert proc.returncode == 64 and said in proc.stderr, proc.stderr
    assert not list(tmp_path.iterdir())


def topology_guest(kernel, out, topology, *benches):
    proc = vmrun("--kernel", kernel, "--label", out, "--accel", "tcg", "--topology", topology,
                 "--warmup-runs", 0, "-w", 0, "-d", 1, *[x for b in benches for x in ("--bench", b)],
                 timeout=1800)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "proves placement and behaviour" in proc.stdout
    return {d.name: json.loads((d / "run-1.json").read_text()) for d in out.iterdir()}


@pytest.mark.slow
def test_placements_in_a_guest_with_two_ccx(root, debian_6_12, tmp_path):
    """epyc-1s-2ccx: 1 socket, 2 LLC domains of 2 cores, SMT 2. Each
    placement puts its producers where docs/big-machines.org's table says."""
    docs = topology_guest(debian_6_12, tmp_path / "t", "epyc-1s-2ccx",
                          *[f"htab-lookup --max-entries 1K -p 2 --placement {p}"
                            for p in ("compact", "spread-llc", "smt-pairs")],
                          "htab-lookup --max-entries 1K -p 8 -a")
    for doc in docs.values():
        assert doc["status"] == "complete", doc.get("reason")
        topo = doc["environment"]["topology"]
        assert (topo["online_cpus"], topo["packages"], topo["llc_domains"],
                topo["threads_per_core"], topo["numa_nodes"]) == (8, 1, 2, 2, 1)
        assert doc["environment"]["vm"]["topology"]["name"] == "epyc-1s-2ccx"
    cpu = {c["cpu"]: c for c in docs["htab-lookup,max-entries=1K,p=8,a"]["environment"]
           ["topology"]["cpus"]}

    def placed(p):
        cpus = docs[f"htab-lookup,max-entries=1K,p=2,placement={p}"]["params"]["prod_cpus"]
        return [(cpu[c]["llc"], cpu[c]["core"]) for c in cpus]
    (l0, c0), (l1, c1) = placed("compact")
    assert l0 == l1 and c0 != c1            # one LLC, two physical cores
    (l0, _), (l1, _) = placed("spread-llc")
    assert l0 != l1                         # two LLCs
    (l0, c0), (l1, c1) = placed("smt-pairs")
    assert (l0, c0) == (l1, c1)             # the two threads of one core


def test_each_configuration_gets_the_kernel_tool_that_has_it(tmp_path):
    """The selftests bench takes ./bench's arguments; map_perf_test takes the
    command ./bench --dry-run gives for map-perf-*; others get none."""
    peer = Peer.__new__(Peer)
    peer.names, peer.map_perf_test = {"htab-mem"}, tmp_path / "map_perf_test"
    plan = "map-perf-hash-kmalloc: valid\nPlan: {}\nKernel command: map_perf_test 4 1 1000\n"
    assert peer.guest_command(["map-perf", "4", "-p", "1"], plan, 1, 2) == \
        ["/map_perf_test", "4", "1", "1000"]
    assert peer.guest_command(["htab-mem", "-p", "2"], "htab-mem-overwrite: valid\n", 1, 2) == \
        ["/kbench", "-w", "1", "-d", "2", "htab-mem", "-p", "2"]
    assert peer.guest_command(["htab-lookup"], "htab-lookup: valid\n", 1, 2) is None
    peer.map_perf_test = None       # a tree without samples/bpf/map_perf_test
    assert peer.guest_command(["map-perf", "4"], plan, 1, 2) is None


def test_a_layout_draw_is_on_the_kernels_command_line_with_shuffled_pages():
    """--sample-layouts: a boot's layout draw is on the command line the
    kernel mixes into its entropy, with shuffled page lists; without it the
    line is the plain one (boots repeat), and the option is handed on."""
    argv = qemu.qemu_argv("img", "rd", "out", "tcg", 1, 512, "icount", layout_draw=41)
    assert argv[argv.index("-append") + 1] == \
        "console=ttyS0 panic=-1 quiet nokaslr page_alloc.shuffle=1 mapbench.layout=41"
    assert "mapbench.layout" not in qemu.kernel_cmdline("icount")
    parser = argparse.ArgumentParser()
    options.add(parser, boots=2)
    given = parser.parse_args(["--sample-layouts", "-w", "0"])
    assert options.passed_on(given)[:10] == ["--runs", "1", "--warmup-runs", "1", "--warmup", "0",
                                             "--duration", "3", "--accel", "auto"]
    assert "--sample-layouts" in options.passed_on(given) and given.boots == 2
    assert "--sample-layouts" not in options.passed_on(parser.parse_args([]))


def test_a_label_that_is_a_file_is_one_line(tmp_path):
    image = tmp_path / "bzImage"
    image.write_bytes(b"\0" * 0x202 + b"HdrS" + b"\0" * 64)
    (tmp_path / "taken").write_text("not a folder\n")
    proc = run_script("vmrun", "--kernel", image, "--label", tmp_path / "taken", "--",
                      "htab-lookup")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "is a file, not a folder of results" in proc.stderr


def test_a_failed_kvm_probe_is_not_paid_again_on_this_machine(tmp_path, monkeypatch):
    """Issue 59: where /dev/kvm exists but cannot boot a stock kernel (PVM),
    every vmrun, ab run and bisect step paid a 20 s probe. The answer is kept
    per machine and host kernel (any clone reads it), with its date and how to
    probe again; another host kernel probes again."""
    from mapbench.guest import boot, qemu
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(boot, "kvm_usable", lambda: True)
    probes = []

    def fake_probe(image, workdir):
        probes.append(image)
        return "tcg", "KVM is here but a probe boot under it did not reach /init in 20 s"
    monkeypatch.setattr(boot, "probe_boot", fake_probe)
    first = boot.probe_kvm("a", tmp_path)
    again = boot.probe_kvm("b", tmp_path)
    assert probes == ["a"] and first[0] == again[0] == "tcg"
    assert "remove" in again[1] and str(qemu.probe_cache()) in again[1] and "probed 20" in again[1]
    monkeypatch.setattr(qemu, "machine", lambda: {"machine_id": "x", "host_kernel": "7.0"})
    boot.probe_kvm("c", tmp_path)
    assert probes == ["a", "c"]
