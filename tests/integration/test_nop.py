"""bpf-nop, the kernel timing library's loop doing nothing (linux 7.3's
selftests bench): its line, its calibration, its refusals."""

import pytest

from conftest import assert_usage_error, run_bench, shaped
from test_bench import measured, rval


def test_its_line_is_the_batches_without_outliers(root, result):
    proc, doc = result("bpf-nop", "-w", "1", "-d", "1", "-q")
    assert proc.returncode == 0, proc.stderr
    line, = shaped(proc.stdout, "timing")
    iqr = doc["summary"]["batches"]["iqr"]
    assert line["name"] == "bpf-nop" and int(line["samples"]) == iqr["samples"] > 0
    for group, key in (("median", "median_ns"), ("stddev", "stddev_ns"), ("p99", "p99_ns")):
        assert float(line[group]) == pytest.approx(iqr[key], abs=0.006)
    assert doc["summary"]["kernel_lines"] == [line.group(0)]
    assert (doc["params"]["trigger"], doc["params"]["loop"]) == ("syscall", "can_loop")


def test_the_batch_is_sized_to_ten_milliseconds_as_the_kernels(root, result):
    """The kernel calibrates every run; so does bpf-nop unless --batch N.
    A batch's ops are the iterations its loop ran: may_goto may end one
    early, where the kernel's would still divide by the bound."""
    proc, doc = result("bpf-nop", "-w", "1", "-d", "1", "-q")
    assert proc.returncode == 0, proc.stderr
    cal = doc["summary"]["batch_calibration"]
    assert doc["params"]["batch_auto"] is True
    # 10 ms of iterations, within the kernel's 100..10M (a loop faster than
    # 1 ns an iteration gets 10M)
    assert cal["batch"] == pytest.approx(min(max(10e6 / cal["per_op_ns"], 100), 10e6), rel=0.01)
    assert all(0 < s["ops"] <= s["runs"] * cal["batch"] for s in measured(doc))


def test_a_given_batch_runs_as_given(root, result):
    proc, doc = result("bpf-nop", "-w", "0", "-d", "1", "-q", "--batch", "1000")
    assert proc.returncode == 0, proc.stderr
    assert "batch_auto" not in doc["params"] and doc["params"]["batch"] == 1000
    assert all(s["ops"] == 1000 * s["runs"] > 0 for s in measured(doc))


def test_machine_readable_line_names_the_scenario(root, result):
    proc, doc = result("bpf-nop", "--machine-readable", "-w", "1", "-d", "1", "-q")
    assert proc.returncode == 0, proc.stderr
    line, = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
    assert rval(line, "scenario") == "bpf-nop"
    assert int(rval(line, "samples")) == doc["summary"]["batches"]["iqr"]["samples"]


@pytest.mark.parametrize("args,needle", [
    (["--trigger", "xdp"], "drop --trigger and --loop"),
    (["--loop", "bpf_for"], "drop --trigger and --loop"),
    (["--max-entries", "8"], "drop the map options"),
    (["-w", "0"], "give -w 1 or more, or --batch N"),
])
def test_bad_input_is_one_line_and_exit_1(args, needle):
    proc = run_bench("bpf-nop", *args, "--dry-run")
    assert_usage_error(proc, needle)
