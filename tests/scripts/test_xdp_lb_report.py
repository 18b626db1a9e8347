"""xdp-lb's tables from result files: run_bench_xdp_lb.sh's, and the
kernel bench's p99 beside ours (report --peer --metric iqr_p99)."""
import json

from test_analysis import result_doc, script


def write_scenario(folder, scenario, iqr):
    """One result per (median, stddev, p99) of the timing library's figures."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, (median, stddev, p99) in enumerate(iqr):
        doc = result_doc(f"xdp-lb-{scenario}", [median] * 3,
                         figure=("median per batch", "ns/op", "in-kernel"))
        doc["summary"]["batches"] = {"n": 200, "p50_ns": median, "p99_ns": p99 * 2,
                                     "iqr": {"samples": 190, "median_ns": median,
                                             "stddev_ns": stddev, "p99_ns": p99}}
        (folder / f"run-{i}.json").write_text(json.dumps(doc))


def test_xdp_lb_report_is_the_scripts_table(tmp_path):
    """Each scenario's row in its group, the median of the runs' figures;
    a scenario with no run is ERR, as the script prints a failed run."""
    write_scenario(tmp_path / "hit", "tcp-v4-lru-hit",
                   [(131.6, 2.0, 178.0), (133.6, 4.0, 180.0), (132.0, 3.0, 179.0)])
    write_scenario(tmp_path / "frag", "drop-v6-frag", [(17.5, 1.0, 20.0)])
    rep = script("report", tmp_path, "--style", "xdp-lb")
    assert rep.returncode == 0, rep.stderr
    lines = rep.stdout.splitlines()
    assert "  | Single-flow baseline             |      p50 |  stddev |      p99 |" in lines
    assert "  | tcp-v4-lru-hit                   |   132.00 |    3.00 |   179.00 |" in lines
    assert "  | tcp-v4-ch                        |      ERR |       - |        - |" in lines
    frag = "  | drop-v6-frag                     |    17.50 |    1.00 |    20.00 |"
    assert frag in lines
    assert lines.index(frag) > lines.index(
        "  | Early exits                      |      p50 |  stddev |      p99 |")
    md = script("report", tmp_path, "--style", "xdp-lb", "--format", "md")
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in md.stdout.splitlines()
             if line.startswith("| ")]
    assert ["Single-flow baseline", "tcp-v4-lru-hit", "132.00", "3.00", "179.00"] in cells


def test_xdp_lb_report_needs_xdp_lb_runs(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "r.json").write_text(json.dumps(result_doc("htab-lookup", [1.0] * 3)))
    rep = script("report", tmp_path, "--style", "xdp-lb")
    assert rep.returncode == 3 and len(rep.stderr.strip().splitlines()) == 1
    assert "scripts/suite run xdp-lb" in rep.stderr


def test_peer_report_sets_the_kernels_p99_beside_ours(tmp_path):
    """--metric iqr_p99: the p99 of the timing library's line (after its IQR
    filter) beside ours, not our p99 over every batch."""
    ours, peer = tmp_path / "set", tmp_path / "set-kernel"
    write_scenario(ours / "hit", "tcp-v4-lru-hit", [(950.0, 1.0, 960.0), (950.0, 1.0, 962.0)])
    (peer / "hit").mkdir(parents=True)
    (peer / "hit" / "run-1.log").write_text(
        "RESULT scenario=tcp-v4-lru-hit samples=200 median=949.80 stddev=0.50 cv=0.05 "
        "min=949.00 p99=950.00 max=951.00\n")
    rep = script("report", ours, "--peer", peer, "--metric", "iqr_p99")
    assert rep.returncode == 0, rep.stderr
    row = next(line for line in rep.stdout.splitlines() if line.startswith("hit "))
    cells = [c.strip() for c in row.split("|")[1:4]]
    assert cells == ["950.00 (CV 0.0%, 1)", "961.00 (CV 0.1%, 2)", "1.01"]
