"""The kernel's bloom filter map benches (bench_bloom_filter_map.c): each
run's work is the kernel's (a walk of every value, or 1024 probes), its
tally says what each op found, its Summary line is the kernel's, and the
figure the Python side reads from it is the one the kernel's script reads
(hits, or total operations)."""

import pytest

from conftest import assert_usage_error, run_bench, shaped
from test_bench import measured

from mapbench.kernel_log import parse_kernel_bench

QUICK = ("-w", "0", "-d", "1", "-q")


def counts(doc):
    return [(s["ops"], s["runs"], s["hits"], s["misses"]) for s in measured(doc)]


@pytest.mark.parametrize("name", ["bloom-lookup", "bloom-update"])
def test_a_run_visits_every_value_and_each_is_a_hit(root, result, name):
    proc, doc = result(name, *QUICK, "--nr_entries", "500")
    assert proc.returncode == 0, proc.stderr
    assert doc["params"]["batch"] == 500 and doc["params"]["map_extra"] == 3
    assert doc["params"]["map_type"] == "BPF_MAP_TYPE_BLOOM_FILTER"
    assert all(ops == 500 * runs == hits > 0 and misses == 0
               for ops, runs, hits, misses in counts(doc))
    line, = shaped(proc.stdout, "total-operations")
    assert float(line["drops"]) == 0 and float(line["hits"]) == float(line["total"]) > 0


def test_without_the_filter_every_random_probe_is_a_drop(root, result):
    """8-byte random values: a probe finding one of the 1000 stored is a
    chance of 1000 in 2^64."""
    proc, doc = result("hashmap-without-bloom", *QUICK)
    assert proc.returncode == 0, proc.stderr
    assert doc["params"]["map_type"] == "BPF_MAP_TYPE_HASH" and doc["params"]["batch"] == 1024
    assert all(ops == 1024 * runs == misses > 0 and hits == 0
               for ops, runs, hits, misses in counts(doc))


def false_positives(result, *args):
    proc, doc = result("hashmap-with-bloom", *QUICK, *args)
    assert proc.returncode == 0, proc.stderr
    ops = sum(s["ops"] for s in measured(doc))
    assert all(ops == 1024 * runs == hits + misses for ops, runs, hits, misses in counts(doc))
    return sum(s["misses"] for s in measured(doc)) / ops, proc


def test_the_filter_passes_its_false_positives_and_its_hash_count_is_the_maps(root, result):
    """Every probe the filter passes is a false positive, a drop; the rest
    are hits. The kernel sizes the filter to nr x hashes / ln 2 bits, a power
    of two: 1000 values and 3 hashes make 8192 bits, (1 - e^-0.37)^3 = 2.9%
    false positives; 1 hash 2048 bits, 1 - e^-0.49 = 39%."""
    three, proc = false_positives(result)
    one, _ = false_positives(result, "--nr_hash_funcs", "1")
    assert 0.005 < three < 0.1 and 0.25 < one < 0.55
    *_, run = parse_kernel_bench(proc.stdout, "hashmap-with-bloom.log")
    line, = shaped(proc.stdout, "total-operations")
    assert run.metrics["figure"] == float(line["total"]) > float(line["hits"])
    assert run.unit("figure") == "M/s total operations"


@pytest.mark.parametrize("args,needle", [
    (["bloom-lookup", "--value_size", "1"], "from 2 to 256"),
    (["bloom-lookup", "--value_size", "2", "--nr_entries", "70000"], "only 65536 distinct"),
    (["hashmap-with-bloom", "--nr_hash_funcs", "16"], "from 1 to 15"),
    (["bloom-update", "--batch", "64"], "a walk of every value: drop --batch"),
    (["hashmap-without-bloom", "--batch", "64"], "1024 probes: drop --batch"),
    (["bloom-lookup", "--trigger", "xdp"], "--trigger fentry or tp"),
    (["bloom-lookup", "--key-size", "8"], "drop --key-size"),
    (["bloom-lookup", "--max-entries", "2000"], "drop --max-entries"),
    (["hashmap-with-bloom", "--keys", "random"], "drop --keys"),
    (["bloom-lookup", "--no-prealloc"], "bloom filters are always preallocated"),
    (["htab-lookup", "--map-extra", "3"], "not htab-lookup's"),
])
def test_bad_input_is_one_line_and_exit_1(args, needle):
    assert_usage_error(run_bench(*args, "--dry-run"), needle)
