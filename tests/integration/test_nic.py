"""--trigger nic on a veth pair: packets from trafgen in the root namespace
arrive on the peer in a namespace of the test's own, where the bench's XDP
program runs a batch per packet."""
import json
import os
import shutil
import signal
import subprocess
import time

import pytest

from conftest import BENCH, run_bench

TRAFGEN = shutil.which("trafgen") or "/usr/sbin/trafgen"
# A broadcast frame of ethertype 0x88b5 (local experimental): 64 bytes.
FRAME = "{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 1, 0x88, 0xb5, fill(0x00, 50) }\n"


def ip(*args, check=True):
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check)


@pytest.fixture
def veth(root, tmp_path):
    """(namespace, sending device, receiving device); all removed after."""
    if not os.path.exists(TRAFGEN):
        pytest.skip("trafgen missing: apt-get install netsniff-ng (make check installs it)")
    tag = f"mb{os.getpid() % 100000}"
    ns, tx, rx = f"{tag}ns", f"{tag}a", f"{tag}b"
    ip("netns", "add", ns)
    try:
        ip("link", "add", tx, "type", "veth", "peer", "name", rx, "netns", ns)
        ip("link", "set", tx, "up")
        ip("-n", ns, "link", "set", rx, "up")
        (tmp_path / "frame.cfg").write_text(FRAME)
        yield ns, tx, rx
    finally:
        ip("link", "del", tx, check=False)
        ip("netns", "del", ns, check=False)


def has_xdp(ns, dev):
    return "xdp" in ip("-n", ns, "link", "show", dev).stdout


def start_bench(ns, dev, tmp_path, *args):
    proc = subprocess.Popen(["ip", "netns", "exec", ns, str(BENCH), "htab-lookup", "--trigger",
                             "nic", "--iface", dev, "--json", str(tmp_path / "r.json"), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not has_xdp(ns, dev):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the XDP program was never attached"
        time.sleep(0.05)
    return proc


def send(tx, tmp_path, n):
    subprocess.run([TRAFGEN, "--dev", tx, "--conf", str(tmp_path / "frame.cfg"), "--num", str(n),
                    "--cpus", "1"], capture_output=True, check=True, timeout=60)


def test_every_packet_runs_a_batch_and_the_interface_is_left_clean(veth, tmp_path, validator):
    ns, tx, rx = veth
    proc = start_bench(ns, rx, tmp_path, "-w", "0", "-d", "3")
    send(tx, tmp_path, 20000)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    doc = json.loads((tmp_path / "r.json").read_text())
    validator.validate(doc)
    nic = doc["nic"]
    # Every frame sent, and no more than a few the kernel sends itself (e.g. IPv6 ND).
    assert 20000 <= nic["packets"] <= 20000 + 20, nic
    assert nic["xdp_mode"] in ("native", "generic") and nic["action"] == "drop"
    assert sum(c["packets"] for c in nic["per_cpu"]) == nic["packets"]
    # Eight lookups per packet, all of them hits of the prefilled keys.
    assert doc["summary"]["hits"] == 8 * nic["packets"] and doc["summary"]["misses"] == 0
    assert doc["environment"]["trigger"] == "nic"
    assert "NIC: " + rx in out and "packets/s in total" in out
    assert not has_xdp(ns, rx)


def test_kill_9_leaves_no_xdp_program(veth, tmp_path):
    ns, tx, rx = veth
    proc = start_bench(ns, rx, tmp_path, "-w", "0", "-d", "60")
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    deadline = time.monotonic() + 5
    while has_xdp(ns, rx) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not has_xdp(ns, rx)


def test_an_interface_with_an_xdp_program_is_refused(veth, tmp_path):
    ns, tx, rx = veth
    first = start_bench(ns, rx, tmp_path, "-w", "0", "-d", "60")
    try:
        second = subprocess.run(["ip", "netns", "exec", ns, str(BENCH), "htab-lookup", "--trigger",
                                 "nic", "--iface", rx, "-d", "1"], capture_output=True, text=True,
                                timeout=60)
        assert second.returncode == 1
        assert "already has an XDP program" in second.stderr and "--force" in second.stderr
        assert len(second.stderr.strip().splitlines()) == 1
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=30)


@pytest.mark.parametrize("args, says", [
    (["--trigger", "nic"], "needs --iface"),
    (["--trigger", "nic", "--iface", "mb-no-such-dev", "-d", "1"], "no such interface"),
    (["--iface", "lo"], "go with --trigger nic"),
    (["--trigger", "nic", "--iface", "lo", "-p", "2"], "do not apply to --trigger nic"),
])
def test_bad_nic_options_are_one_line(root, args, says):
    proc = run_bench("htab-lookup", *args)
    assert proc.returncode == 1, proc.stderr
    assert says in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_no_traffic_measures_nothing_and_fails(veth, tmp_path, validator):
    """A run that measured no sample is a failure (exit 3, status failed),
    never a success with an empty table."""
    ns, tx, rx = veth
    ip("link", "set", tx, "down")    # no carrier: not one packet reaches rx
    proc = subprocess.run(["ip", "netns", "exec", ns, str(BENCH), "htab-lookup", "--trigger", "nic",
                           "--iface", rx, "-w", "0", "-d", "1", "-q", "--json",
                           str(tmp_path / "r.json")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.count("\n") == 1 and "no packet arrived on" in proc.stderr
    doc = json.loads((tmp_path / "r.json").read_text())
    validator.validate(doc)
    assert doc["status"] == "failed" and "no packet arrived" in doc["reason"]
