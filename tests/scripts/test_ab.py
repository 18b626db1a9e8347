"""scripts/kbuild and scripts/ab: their input errors, and (slow) the end-to-end
proof: a kernel built from linux-source-6.12 with a patch that slows htab
lookups down is judged a regression; two builds of the same tree pass."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from conftest import ROOT, run_script, script_process

from mapbench.commands import kbuild as kbuild_command


FIXTURES = ROOT / "tests" / "fixtures"
LINUX_SRC = Path("/usr/src/linux-source-6.12.tar.xz")


def one_line(proc, status, says):
    assert proc.returncode == status, proc.stdout + proc.stderr
    assert says in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.fixture
def fake_tree(tmp_path):
    """Just enough of a kernel tree for kbuild to accept it, and its copy removed after."""
    src = tmp_path / f"linux-{uuid.uuid4().hex[:8]}"
    (src / "kernel" / "bpf").mkdir(parents=True)
    (src / "Makefile").write_text("# not a real kernel\n")
    (src / "kernel" / "bpf" / "hashtab.c").write_text("int x;\n")
    yield src
    for made in (ROOT / "build" / "kernel" / "tree").glob(f"{src.name}-*"):   # copy and lock
        shutil.rmtree(made) if made.is_dir() else made.unlink()


@pytest.mark.parametrize("args, says", [
    (["--src", "/nonexistent", "--out", "/tmp/x"], "give a kernel tree or a source tarball"),
    (["--src", "/tmp", "--out", "/tmp/x"], "is not a kernel tree"),
    (["--src", "/tmp", "--out", "/tmp/x", "--patch", "/nonexistent.patch"], "no such file"),
    (["--src", "/tmp", "--out", "/tmp/x", "--from", "/tmp"], "not a kbuild build folder"),
])
def test_kbuild_bad_input_is_one_line(args, says):
    one_line(run_script("kbuild", *args), 2, says)


def test_kbuild_refuses_a_patch_that_does_not_apply_and_leaves_the_tree_alone(fake_tree, tmp_path):
    proc = run_script("kbuild", "--src", fake_tree, "--out", tmp_path / "out", "--patch",
                      FIXTURES / "htab-lookup-slower.patch")
    one_line(proc, 2, "does not apply")
    assert (fake_tree / "kernel" / "bpf" / "hashtab.c").read_text() == "int x;\n"


def test_ab_builds_each_kernel_into_its_folder(fake_tree, tmp_path, monkeypatch):
    """The steps ab runs, without running them: the first is kbuild of the
    tree into build/kernel/TREE/before (a first build that fails stops ab)."""
    from mapbench.commands import ab
    seen = []

    def step(title, command, argv, printed=None):
        seen.append([command, *map(str, argv)])
        return 1
    monkeypatch.setattr(ab, "step", step)
    assert ab.main(["--src", str(fake_tree), "--label", str(tmp_path / "set"), "--",
                    "htab-lookup"]) == 1
    kbuild, = seen
    assert kbuild[0] == "kbuild" and kbuild[kbuild.index("--src") + 1] == str(fake_tree)
    assert kbuild[kbuild.index("--out") + 1].endswith(f"/{fake_tree.name}/before")


def kbuild_record(folder, **info):
    """A build folder as kbuild leaves one: bzImage, .config, kbuild.json."""
    folder.mkdir(parents=True)
    for name in ("bzImage", ".config"):
        (folder / name).write_bytes(b"k")
    (folder / "kbuild.json").write_text(json.dumps(dict(
        {"patches": [], "config_fragment": {"sha256": FRAGMENT_SHA},
         "toolchain": kbuild_command.toolchain()}, **info)))
    return folder


FRAGMENT_SHA = hashlib.sha256(kbuild_command.FRAGMENT.read_bytes()).hexdigest()


def test_a_first_build_starts_from_an_unpatched_build_of_its_tree_anywhere(tmp_path):
    """kbuild's first build of a folder starts from the newest whole build of
    the same working tree under build/ (ab's, bisect's or a user's) without
    patches, with the fragment and toolchain it will use: seconds, not the
    minutes of a first build. A patched, pruned, stale or other-toolchain
    build, or one of another tree, would not do."""
    top, tree = tmp_path / "build", "/tree/x"
    kbuild_record(top / "kernel/src/patched", tree=tree, patches=["x.patch"])
    kbuild_record(top / "kernel/src/stale", tree=tree, config_fragment={"sha256": "0" * 64})
    kbuild_record(top / "kernel/src/other-tree", tree="/another/tree")
    kbuild_record(top / "kernel/src/pruned", tree=tree, pruned=True)
    kbuild_record(top / "kernel/src/old-awk", tree=tree,
                  toolchain=dict(kbuild_command.toolchain(), awk="gawk 5"))
    assert kbuild_command.unpatched_base(tree, FRAGMENT_SHA, tmp_path, top) is None
    base = kbuild_record(top / "bisect/L/kernels/abc", tree=tree)
    assert kbuild_command.unpatched_base(tree, FRAGMENT_SHA, tmp_path, top) == base
    assert kbuild_command.unpatched_base(tree, FRAGMENT_SHA, base.resolve(), top) is None


@pytest.mark.parametrize("args, status, says", [
    (["--src", "/tmp"], 64, "nothing to run"),
    (["--src", "/tmp", "--patch", "/nonexistent.patch", "--", "htab-lookup"], 2, "no such file"),
    (["--src", "/tmp", "--until-mde", "5", "--boots", "2", "--min-boots", "3", "--",
      "htab-lookup"], 64, "--min-boots"),
    (["--src", "/tmp", "--series", "/nonexistent", "--", "htab-lookup"], 2,
     "not a folder of patches"),
    (["--src", "/tmp", "--series", str(FIXTURES), "--patch", str(FIXTURES / "series" /
      "0001-htab-comment-only.patch"), "--", "htab-lookup"], 64, "not both"),
    (["--src", "/tmp", "--per-patch", "--patch", str(FIXTURES / "htab-lookup-one-percent.patch"),
      "--", "htab-lookup"], 64, "at least two patches"),
    (["--src", "/tmp", "--series", str(FIXTURES / "series"), "--until-mde", "1", "--",
      "htab-lookup"], 64, "one pair of kernels"),
    (["--src", "/tmp", "-j", "0", "--", "htab-lookup"], 64,
     "argument -j/--jobs: 0 is not a whole number, 1 or more"),
    (["--src", "/tmp", "--warmup-runs", "-1", "--", "htab-lookup"], 64,
     "argument --warmup-runs: -1 is not a whole number, 0 or more"),
])
def test_ab_bad_input_is_one_line(args, status, says):
    one_line(run_script("ab", *args), status, says)


def ab(*args, boots=2):
    """scripts/ab on linux-source-6.12 under TCG (so the icount clock), htab-lookup 1K:
    its exit, report, kbuild.json of each build, and per-patch table."""
    label = f"test-ab-{uuid.uuid4().hex[:8]}"
    results = ROOT / "results" / label
    try:
        proc = script_process("ab", "--src", LINUX_SRC, "--label", label, "--accel", "tcg", "-w", 1,
                              "-d", 2, "--boots", boots, "--runs", 2, *args,
                              "--", "htab-lookup", "--max-entries", "1K", timeout=3600)
        texts = {name: (results / name).read_text() if (results / name).exists() else ""
                 for name in ("report.txt", "series.txt")}
        kernels = ROOT / "build" / "kernel" / "linux-source-6.12"
        builds = [json.loads(f.read_text()) for f in
                  [kernels / "before" / "kbuild.json"] +
                  sorted(kernels.glob(f"{label}*/kbuild.json")) if f.exists()]
        figures = {d.name: [json.loads(f.read_text())["summary"]["figure"]["median"]
                            for f in sorted(d.glob("*/run-*.json"))]
                   for d in results.iterdir() if d.is_dir()} if results.exists() else {}
        return proc, texts, builds, figures
    finally:
        shutil.rmtree(results, ignore_errors=True)
        for d in (ROOT / "build" / "kernel").glob(f"*/{label}*"):
            shutil.rmtree(d)


def report_delta(report):
    """htab-lookup's Delta % in a report's table."""
    return float(re.search(r"htab-lookup\s+\|[^|]+\|[^|]+\|\s*([-+\d.]+)%", report)[1])


needs_source = pytest.mark.skipif(not LINUX_SRC.exists(),
                                  reason="apt-get install linux-source-6.12 (make check-slow does)")


@pytest.mark.slow
@needs_source
def test_a_one_percent_patch_is_a_regression_with_two_boots_under_icount(root):
    proc, texts, builds, _ = ab("--patch", FIXTURES / "htab-lookup-one-percent.patch")
    print(proc.stdout[-3000:])
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr
    assert re.search(r"htab-lookup .*\| REGRESSION", proc.stdout)
    report = texts["report.txt"]
    # the release names the build: whatever 6.12.N Debian's linux-source-6.12 holds now
    assert re.search(r"^Kernel before: 6\.12\.\d+-mb-before$", report, re.M), report
    assert "Clock: icount" in report
    assert -3 < report_delta(report) < -0.5
    # The patched kernel was built from the unpatched one: one config, one patch.
    assert len(builds) == 2 and builds[0]["config_sha256"] == builds[1]["config_sha256"]
    assert [p["path"] for p in builds[1]["patches"]] == \
        [str(FIXTURES / "htab-lookup-one-percent.patch")]


@pytest.mark.slow
@needs_source
def test_until_mde_stops_once_a_big_slowdown_is_confirmed(root):
    proc, texts, _, _ = ab("--patch", FIXTURES / "htab-lookup-slower.patch", "--until-mde", 0.5,
                           "--min-boots", 2, boots=4)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr
    assert "every benchmark decided after 2 boots a side" in proc.stdout
    assert report_delta(texts["report.txt"]) < -20


@pytest.mark.slow
@needs_source
def test_two_builds_of_the_same_tree_pass(root):
    proc, _, builds, figures = ab()
    print(proc.stdout[-3000:])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert "ab: pass" in proc.stdout
    assert len(builds) == 2 and not builds[1]["patches"]
    assert builds[0]["config_sha256"] == builds[1]["config_sha256"]
    # Under icount an A/A's figures agree within 0.1%, run for run.
    values = figures["before"] + figures["after"]
    assert len(values) == 8 and max(values) / min(values) - 1 < 0.001, values


@pytest.mark.slow
@needs_source
def test_a_series_table_names_the_patch_that_regressed(root):
    proc, texts, builds, _ = ab("--series", FIXTURES / "series")
    print(proc.stdout[-3000:])
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr
    table = texts["series.txt"]
    rows = {line.split("|")[0].strip(): line.split("|")[-1].strip()
            for line in table.splitlines() if "htab-lookup" in line}
    # a comment changes no instruction: the same figures, no change
    assert rows["1. 0001-htab-comment-only.patch"] == "no significant change", table
    assert rows["2. 0002-htab-lookup-one-percent.patch"] == "REGRESSION", table
    assert rows["series (2 patches)"] == "REGRESSION", table
    assert "Regressed within the series: 2. 0002-htab-lookup-one-percent.patch" in table
    assert [len(b["patches"]) for b in builds] == [0, 1, 2]


FAKE_MAKEFILE = """\
# just enough of a kernel's make for kbuild: configure, build, name a release
tinyconfig:
\t@echo '# tiny' > $(O)/.config
olddefconfig:
\t@true
bzImage:
\t@mkdir -p $(O)/arch/x86/boot && echo image > $(O)/arch/x86/boot/bzImage
\t@echo $(AWK) > $(O)/awk-used
kernelrelease:
\t@echo 7.2.0$(LOCALVERSION)
"""


def test_kbuild_from_a_build_into_a_folder_not_made_yet(fake_tree, tmp_path):
    """--out build/kernel/SRC/before, whose parent does not exist, ended in
    an internal error from cp (issue 43)."""
    fragment = fake_kernel(fake_tree, tmp_path)
    base = tmp_path / "base"
    # processes of their own: kbuild holds its tree's lock until it exits
    assert script_process("kbuild", "--src", fake_tree, "--out", base, "--config", fragment,
                          timeout=120).returncode == 0
    after = tmp_path / "new" / "series" / "after"
    proc = script_process("kbuild", "--src", fake_tree, "--from", base, "--out", after,
                          "--config", fragment, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (after / "bzImage").read_text() == "image\n"
    assert json.loads((after / "kbuild.json").read_text())["kernel_release"] == "7.2.0-mb-after"


def test_a_copied_build_names_its_own_folder_in_its_tools_dependencies(tmp_path):
    """objtool's dependency files hold absolute paths: left as the copy's
    source, objtool is relinked and every object after it (issue 43: 1527
    of 1536). relocate rewrites them and keeps their times; objects stay."""
    base, out = tmp_path / "base", tmp_path / "a" / "b" / "after"
    cmd = out / "tools" / "objtool" / ".check.o.cmd"
    obj = out / "tools" / "objtool" / "check.o"
    cmd.parent.mkdir(parents=True)
    cmd.write_text(f"cmd_{base}/tools/objtool/check.o := gcc -o {base}/tools/objtool/check.o\n")
    obj.write_bytes(b"\0" + str(base).encode())
    os.utime(cmd, ns=(10 ** 18, 10 ** 18))
    kbuild_command.relocate(base, out)
    assert cmd.read_text() == f"cmd_{out}/tools/objtool/check.o := gcc -o {out}/tools/objtool/check.o\n"
    assert cmd.stat().st_mtime_ns == 10 ** 18
    assert obj.read_bytes() == b"\0" + str(base).encode()


def fake_kernel(tree, tmp_path):
    """tree given FAKE_MAKEFILE and a merge_config.sh; a fragment kbuild accepts."""
    (tree / "Makefile").write_text(FAKE_MAKEFILE)
    merge = tree / "scripts" / "kconfig" / "merge_config.sh"
    merge.parent.mkdir(parents=True)
    merge.write_text("#!/bin/sh\n# merge_config.sh -m -O DIR CONFIG FRAGMENT\ncat \"$5\" >> \"$4\"\n")
    merge.chmod(0o755)
    fragment = tmp_path / "f.config"
    fragment.write_text("".join(f"{o}=y\n" for o in kbuild_command.REQUIRED))
    return fragment


def test_the_awk_is_fixed_and_a_toolchain_change_is_said_before_building(fake_tree, tmp_path):
    """Issue 59: a build made with mawk, gawk installed later (it becomes
    awk), and a --from build recompiled the whole kernel. kbuild gives make
    AWK= itself, whatever awk is on PATH, records the toolchain, and says
    before building when a base was built with another."""
    fragment = fake_kernel(fake_tree, tmp_path)
    shims = tmp_path / "shims"
    shims.mkdir()
    (shims / "awk").write_text("#!/bin/sh\necho 'GNU Awk 5.2.1'\n")
    (shims / "awk").chmod(0o755)
    base, after = tmp_path / "base", tmp_path / "after"
    env_path = f"{shims}:{os.environ['PATH']}"
    first = subprocess.run([ROOT / "scripts" / "kbuild", "--src", fake_tree, "--out", base,
                            "--config", fragment], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, PATH=env_path))
    assert first.returncode == 0, first.stderr
    pinned = kbuild_command.awk()
    assert (base / "awk-used").read_text().strip() == pinned != str(shims / "awk")
    recorded = json.loads((base / "kbuild.json").read_text())["toolchain"]
    assert recorded == kbuild_command.toolchain() and recorded["awk"].startswith(pinned)
    assert "will rebuild" not in first.stdout
    info = json.loads((base / "kbuild.json").read_text())
    info["toolchain"]["awk"] = "/usr/bin/gawk: GNU Awk 5.2.1"
    (base / "kbuild.json").write_text(json.dumps(info))
    proc = script_process("kbuild", "--src", fake_tree, "--from", base, "--out", after,
                          "--config", fragment, timeout=120)
    assert proc.returncode == 0, proc.stderr
    said = [x for x in proc.stdout.splitlines() if "will rebuild most objects" in x]
    assert said == [f"kbuild: will rebuild most objects: awk changed from /usr/bin/gawk: GNU Awk "
                    f"5.2.1 to {recorded['awk']} since {base} was built"], proc.stdout
    assert proc.stdout.index("will rebuild") < proc.stdout.index("building")


def test_gc_prunes_all_but_what_later_builds_need(tmp_path):
    """Per tree: the unpatched base and the N newest others stay whole; the
    others keep bzImage, .config and kbuild.json and say they are pruned; a
    tree copy no whole build uses goes, one a whole build uses stays."""
    top = tmp_path / "build"
    copies = top / "kernel" / "tree"
    for i, (name, patches) in enumerate((("before", []), ("p1", ["a"]), ("p2", ["b"]),
                                         ("p3", ["c"]), ("p4", ["d"]))):
        d = kbuild_record(top / "kernel" / "src" / name, tree=str(copies / "used"),
                          patches=patches)
        (d / "drivers").mkdir()
        (d / "drivers" / "x.o").write_bytes(b"\0" * 100000)
        os.utime(d / "bzImage", (1000 + i, 1000 + i))      # p4 the newest
    for copy in ("used", "orphan"):
        (copies / copy).mkdir(parents=True)
        (copies / copy / "Makefile").write_text("x")
    assert kbuild_command.gc(1, top) >= 3 * 100000
    kernels = top / "kernel" / "src"
    assert {d.name for d in kernels.iterdir() if (d / "drivers").exists()} == {"before", "p4"}
    for name in ("p1", "p2", "p3"):
        assert sorted(p.name for p in (kernels / name).iterdir()) == \
            [".config", "bzImage", "kbuild.json"]
        assert not kbuild_command.whole(kernels / name)
        assert kbuild_command.up_to_date(kernels / name)    # still boots, still says what it is
    assert (copies / "used").exists() and not (copies / "orphan").exists()
