"""The cache model's slow proofs (make check-slow): the seeds' shapes in a 7.2
guest, and a memory-only patch that icount passes and the model does not."""
import shutil

import pytest

from conftest import ROOT, run_script

from mapbench import cachemodel, results


def modelled(folder, metric="model_cycles"):
    """{configuration folder name: the metric} of a set's runs."""
    return {r.source.split("/")[-2]: r.metrics[metric] for r in results.load_path(folder)}


@pytest.mark.slow
def test_the_model_has_the_seeds_shapes(kernel_7_2, label):
    """Seed 004 on hardware: htab 7.5x slower at 1M than at 1K with 8-byte keys,
    ahead of rhtab at 1K with 32-byte keys, behind it at 1M with 8-byte keys;
    seed 002: LPM lookups cost more as the trie grows. icount sees none of
    it; the default model must, in a 7.2 guest. (Seed 004 has htab ahead at
    1K with 8-byte keys too; the model does not: docs/vm.org, Calibration.)"""
    proc = run_script("vmrun", "--kernel", str(kernel_7_2), "--label", str(label),
                      "--model", cachemodel.DEFAULT, "--suite", "cache-model", "--warmup-runs", "0")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    cycles, icount = modelled(label), modelled(label, "latency")
    print("\n".join(f"{k}: {cycles[k]:.2f} modelled cycles/op, {icount[k]:.2f} insns/op"
                    for k in sorted(cycles)))

    def lookup(m, key, size):
        return f"lookup-{size},map={m},key-size={key}"
    ratio = cycles[lookup("htab", 8, "1M")] / cycles[lookup("htab", 8, "1K")]
    assert 5 <= ratio <= 10, ratio
    assert icount[lookup("htab", 8, "1M")] / icount[lookup("htab", 8, "1K")] < 1.05
    assert cycles[lookup("htab", 32, "1K")] < cycles[lookup("rhtab", 32, "1K")]
    assert cycles[lookup("rhtab", 8, "1M")] < cycles[lookup("htab", 8, "1M")]
    # by size: 10K is lpm-10K's lookup, which lpm-lookup's 10K repeats
    by_size = {r.params["nr_entries"]: r.metrics["model_cycles"]
               for r in results.load_path(label) if r.benchmark == "lpm-trie-lookup"}
    lpm = [by_size[n] for n in sorted(by_size)]
    assert len(lpm) == 4 and lpm == sorted(lpm) and lpm[-1] > 1.5 * lpm[0], by_size


@pytest.mark.slow
def test_a_memory_only_patch_is_seen_by_the_model_and_not_by_icount(kernel_7_2, tmp_path):
    """tests/fixtures/htab-bucket-stride.patch pads struct bucket from 16 to 64
    bytes: the same instructions, 4x the bucket array. icount passes it; the
    model calls it a regression at 1M with two boots a side, and the gate says
    which function's misses grew."""
    name = f"test-stride-{tmp_path.name[-8:]}"
    try:
        proc = run_script("ab", "--src", "linux-source-7.2", "--patch",
                          str(ROOT / "tests" / "fixtures" / "htab-bucket-stride.patch"),
                          "--label", name, "--model", cachemodel.DEFAULT, "--profile",
                          "--boots", "2", "--runs", "2", "-w", "1", "-d", "2", "--",
                          "htab-lookup", "--max-entries", "1M")
        out = proc.stdout
        print(out[-3000:])
        assert proc.returncode == 0, out[-3000:] + proc.stderr      # icount: pass
        sets = [str(ROOT / "results" / name / s) for s in ("before", "after")]
        gate = run_script("gate", *sets, "--metric", "model_cycles")
        print(gate.stdout)
        assert gate.returncode == 1 and "REGRESSION" in gate.stdout, gate.stdout
        where = next(line for line in gate.stdout.splitlines() if line.startswith("where:"))
        assert "LLC misses/op" in where and "+0.00 LLC" not in where, where
    finally:
        shutil.rmtree(ROOT / "results" / name, ignore_errors=True)
