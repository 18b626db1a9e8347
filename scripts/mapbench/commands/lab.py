"""A LAVA lab on this machine, for ab, vmrun and bisect's --engine lava:

  lab up [--workers N] [--remote M] [--bind ADDR] [--dir D]
                  PostgreSQL, LAVA's server and scheduler, N QEMU workers here
                  (default 2); prints the URL, the token and the export line
                  that give them to --engine lava, and for each of M workers
                  on other machines the lava-worker command that joins it
  lab status [--dir D]   the lab's processes, devices and jobs
  lab down [--dir D]     stops what up started, by the pids it recorded
                         (nothing else), and removes D

D is build/lab by default. The lab's second database (history) takes
scripts/history's --db. Up takes about a minute here (2-vCPU VM); it needs
root and make deps-lava.

Exit status: 0 done, 2 bad input (no lab in D, D not empty, a package
missing), 4 a LAVA step that failed, 64 usage error.
"""
import argparse
import shlex
from pathlib import Path

from .. import cli
from ..lab import local
from ..paths import ROOT

DEFAULT_DIR = ROOT / "build" / "lab"


def say(text):
    print(f"lab: {text}", flush=True)


def up(args):
    lab = local.up(args.dir, args.workers, args.remote, args.bind, say)
    say(f"up: {lab.url} with {len(lab.devices)} QEMU device(s); its record is "
        f"{Path(args.dir).resolve() / local.RECORD}")
    print(f"\nexport MAPBENCH_LAVA_URL={lab.url} MAPBENCH_LAVA_TOKEN={lab.token}\n"
          f"scripts/ab --src SRC --patch P --engine lava -- htab-lookup   # uses them\n"
          f"scripts/history add SET --commit C --db {lab.record['databases']['history']}")
    for w in lab.record["workers"]:
        if not w["here"]:
            print(f"\non the machine of {w['name']} ({w['device']}; make deps-lava there):\n"
                  f"  {shlex.join(map(str, w['command']))}")
    print(f"\nscripts/lab down{'' if Path(args.dir) == DEFAULT_DIR else ' --dir ' + str(args.dir)}"
          "   # when done")


def status(args):
    lab = local.Lab.of(args.dir)
    alive = lab.running()
    say(f"{lab.url}: {len(alive)} of {len(lab.record['processes'])} processes running")
    for p in lab.record["processes"]:
        print(f"  {p['name']:10} pid {p['pid']:>7}  "
              f"{'running' if p['name'] in alive else 'gone'}")
    if "server" not in alive:
        return cli.EXIT_LAB
    for device in lab.devices:
        d = lab.api(f"devices/{device}/")
        print(f"  {device:10} {d['state']}, health {d['health']}, worker {d.get('worker_host')}")
    jobs = lab.jobs()
    done = sum(j["state"] == "Finished" for j in jobs)
    print(f"  jobs: {len(jobs)}, {done} finished, {len(jobs) - done} queued or running")
    return 0


def down(args):
    if not (Path(args.dir) / local.RECORD).exists():
        cli.die(f"no lab in {args.dir}: nothing to stop", cli.EXIT_INPUT)
    stopped = local.down(args.dir)
    say(f"down: stopped {', '.join(name for name, _ in stopped) or 'nothing (all had ended)'}; "
        f"removed {args.dir}")


def main(argv=None):
    ap = cli.ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="verb", required=True, parser_class=cli.ArgumentParser)
    for name, what in (("up", "start a lab"), ("status", "what runs"), ("down", "stop it")):
        p = sub.add_parser(name, help=what)
        p.add_argument("--dir", type=Path, default=DEFAULT_DIR,
                       help="the lab's folder (default build/lab)")
        if name == "up":
            p.add_argument("--workers", type=cli.at_least(0), default=2,
                           help="QEMU workers on this machine (default 2)")
            p.add_argument("--remote", type=cli.at_least(0), default=0,
                           help="workers on other machines: up prints how each joins")
            p.add_argument("--bind", default="127.0.0.1",
                           help="the address the server listens on (another machine's "
                                "workers need one they reach)")
    args = ap.parse_args(argv)
    if args.verb == "up" and not args.workers + args.remote:
        ap.error("a lab needs a worker: --workers or --remote")
    return {"up": up, "status": status, "down": down}[args.verb](args) or 0
