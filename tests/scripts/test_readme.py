"""README.org and docs/ state what ./bench does: the Python side reads what
the rows declare, and where --help and the docs state the same fact (option
names, key sizes, spellings) they agree."""
import json
import re

import pytest

from conftest import ROOT, run_bench

BENCH_DOC = ROOT / "docs" / "bench.org"


def help_text():
    proc = run_bench("--help")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_python_side_reads_what_the_rows_declare(tmp_path, monkeypatch):
    """The line shapes and kernel files the Python side uses are those
    ./bench declares (make writes them to build/contracts.json): every
    kernel-named row names its kernel file, and kernel-bench builds the
    selftests files they name, each once, with its library."""
    from mapbench import contracts
    from mapbench import peer
    path = tmp_path / "contracts.json"
    assert run_bench("--contracts", "--json", path).returncode == 0
    declared = json.loads(path.read_text())
    assert {n: p.regex.pattern for n, p in contracts.line_shapes().items()} == \
        {n: d["pattern"] for n, d in declared["lines"].items()}
    kernel_named = [b for b in declared["benchmarks"] if re.match(
        r"(htab-mem|rhtab-mem|bpf-r?hashmap|lpm-trie|map-perf|xdp-lb|bloom)-|bpf-nop$|"
        r"hashmap-with(out)?-bloom$", b["benchmark"])]
    assert kernel_named and all(b["kernel_source"] for b in kernel_named)
    wanted = peer.selftests_benches()
    assert wanted["bench_htab_mem"] is None and wanted["bench_xdp_lb"] == "bench_bpf_timing"
    assert "map_perf_test_user" not in wanted       # samples/bpf: built on its own
    monkeypatch.setattr(contracts, "PATH", tmp_path / "gone.json")
    contracts._document.cache_clear()
    contracts.line_shapes.cache_clear()
    try:
        with pytest.raises(contracts.InputError, match="run make"):
            contracts.line_shapes()
    finally:
        contracts._document.cache_clear()
        contracts.line_shapes.cache_clear()


def test_every_benchmark_has_a_unit_and_a_clock():
    rows = [r.strip("|").split("|") for r in run_bench("--contracts").stdout.splitlines()[2:]]
    names = {line.split()[0] for line in run_bench("-l").stdout.splitlines()}
    assert len(rows) == len(names), "a benchmark of -l without a contract row, or a row too many"
    for name, alias, workload, walk, trigger, loop, batch, figure, unit, clock in (
            [c.strip() for c in r] for r in rows):
        assert name in names and workload and walk and figure and unit
        assert trigger in ("xdp", "raw_tp", "fentry", "tp", "ksyscall", "syscall", "close",
                           "none"), name
        assert loop in ("auto", "bpf_for", "bpf_loop", "can_loop", "none") and int(batch) >= 0, name
        assert clock in ("wall", "in-kernel", "none"), name


def test_help_and_docs_name_the_same_options():
    helped = set(re.findall(r"^\s+(?:-\w, )?(--[\w-]+)", help_text(), re.M))
    table = set(re.findall(r"^\| (?:-\w, )?(--[\w-]+)", BENCH_DOC.read_text(), re.M))
    assert helped == table, (helped - table, table - helped)


def test_help_lists_every_option_the_parser_takes():
    """--help, --list-options and the spellings line come from one table:
    every option the parser takes is helped, or is a kernel spelling named
    on the spellings line; the spelling --prealloc is the one said in
    --no-prealloc's line."""
    text = help_text()
    helped = set(re.findall(r"^\s+(?:-\w, )?(--[\w-]+)", text, re.M))
    spelled = set(re.search(r"spellings are accepted: its benchmark names, and (.*)", text)[1]
                  .split())
    listed = {line.split()[0] for line in run_bench("--list-options").stdout.splitlines()}
    assert listed - helped - spelled == {"--prealloc"} and "(--prealloc to" in text
    assert helped <= listed and spelled <= listed


def test_help_docs_and_errors_give_the_same_key_sizes():
    line = next(x for x in help_text().splitlines() if x.strip().startswith("--key-size"))
    row = next(x for x in BENCH_DOC.read_text().splitlines() if x.startswith("| --key-size"))
    ranges = re.findall(r"\d+\.\.\d+", line)
    assert ranges == ["4..512", "4..256"] and re.findall(r"\d+\.\.\d+", row) == ranges
    hash_err = run_bench("htab-lookup", "--key-size", "2").stderr
    lpm_err = run_bench("lpm-trie-lookup", "--key-size", "300").stderr
    assert "from 4 to 512" in hash_err and "from 4 to 256" in lpm_err


def test_help_and_docs_list_the_same_spellings():
    helped = re.search(r"spellings are accepted: its benchmark names, and (.*)", help_text())[1]
    doc = re.search(r"spellings are accepted: its benchmark names, and\n(.*?)\n\(",
                    BENCH_DOC.read_text(), re.S)[1]
    assert helped.split() == re.findall(r"=(--\w+)=", doc)


def test_every_link_names_a_file_that_is_there():
    for page in [ROOT / "README.org"] + sorted((ROOT / "docs").glob("*.org")):
        for target in re.findall(r"\[\[file:([^\]]+)\]", page.read_text()):
            assert (page.parent / target).exists(), f"{page.name} links {target}"


def test_every_benchmarks_plan_is_what_the_result_schema_allows():
    """scripts/result-schema.json is kept by hand; this says what differs.
    Each benchmark's plan (./bench --dry-run: the params its result
    records) has only parameters the schema declares, each a value the
    schema allows there: a parameter or value added to a row or an option
    without the schema fails here, naming both."""
    import jsonschema
    params = json.loads((ROOT / "scripts" / "result-schema.json").read_text())[
        "properties"]["params"]["properties"]
    names = [line.split()[0] for line in run_bench("-l").stdout.splitlines()]
    assert len(names) > 40
    wrong = []
    for name in names:
        proc = run_bench("--dry-run", name)
        if proc.returncode == 1:        # pairs of producers: the smallest -p they take
            proc = run_bench("--dry-run", name, "-p", "2")
        plan = next((json.loads(line[6:]) for line in proc.stdout.splitlines()
                     if line.startswith("Plan: ")), None)
        if plan is None:        # a benchmark this machine cannot plan (a kernel without rhtab)
            assert proc.returncode == 2, (name, proc.stderr)
            continue
        for key, value in plan.items():
            if key not in params:
                wrong.append(f"{name}: {key} is not in the schema's params")
                continue
            try:
                jsonschema.validate(value, params[key])
            except jsonschema.ValidationError as e:
                wrong.append(f"{name}: {key} = {value!r}: {e.message}")
    assert not wrong, "\n".join(wrong)
