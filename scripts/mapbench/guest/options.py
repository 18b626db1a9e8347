"""The options of every command that boots guests (vmrun, ab, bisect), declared
once: added to a parser, and handed on to vmrun as its arguments."""
import argparse
import os
from pathlib import Path

from .. import cachemodel, cli


def machine_name(name):
    """--model's value: a machine of the cache model (any :no-MECHANISM
    switches, :branch for the predictor), or none."""
    if name == "none" or cachemodel.named(name):
        return name
    raise argparse.ArgumentTypeError(
        f"no machine '{name}': give {', '.join(b.name for b in cachemodel.BASE)} or none, "
        f"with :no-MECHANISM to switch off one of {', '.join(cachemodel.MECHANISMS)} "
        f"and :{' :'.join(cachemodel.OPT_IN)} to add it")


# (flags, argparse keywords): the parser's options, and what passed_on gives back.
OPTIONS = [
    (["--runs"], dict(type=cli.at_least(1), default=1,
                      help="measured runs per configuration per boot")),
    (["--warmup-runs"], dict(type=cli.at_least(0), default=1,
                             help="runs per configuration and boot kept as warmup (default 1; "
                                  "under --model each run starts cold, so 0 saves a boot "
                                  "half its time)")),
    (["-w", "--warmup"], dict(type=cli.at_least(0), default=1, help="./bench -w in the guest")),
    (["-d", "--duration"], dict(type=cli.at_least(1), default=3, help="./bench -d in the guest")),
    (["--accel"], dict(choices=["auto", "kvm", "tcg"], default="auto")),
    (["--clock"], dict(choices=["auto", "icount", "host"], default="auto",
                       help="guest clock: icount (instructions; default under TCG) or host")),
    (["--smp"], dict(type=cli.at_least(1), help="guest vCPUs (default 1, or --topology's)")),
    (["-j", "--jobs"], dict(type=cli.at_least(1),
                            help="guests at once under the icount clock (default: the host's "
                                 "CPUs); the host clock runs one at a time")),
    (["--model"], dict(type=machine_name, default="none",
                       metavar="MACHINE",
                       help=f"the cache model's machine "
                            f"({', '.join(b.name for b in cachemodel.BASE)}): simulated "
                            "L1D/L2/LLC misses, TLBs and page walks, overlapping misses, "
                            "prefetchers, and modelled cycles per op "
                            "beside icount's instructions (QEMU 10; default none); "
                            "NAME:no-MECHANISM switches one off ("
                            f"{', '.join(cachemodel.MECHANISMS)}; they combine), "
                            "NAME:branch adds a branch predictor")),
    (["--sample-layouts"], dict(action=argparse.BooleanOptionalAction,
                                help="a memory layout drawn per boot (shuffled page lists; needs "
                                     "CONFIG_SHUFFLE_PAGE_ALLOCATOR): boots of one kernel spread "
                                     "in modelled cycles as builds do, so a verdict on them has "
                                     "the spread a layout shift makes (default: on with --model, "
                                     "off without)")),
    (["--engine"], dict(choices=["local", "lava-run", "lava"], default="local",
                        help="who boots the guests: local (QEMU here), lava-run (each boot a "
                             "LAVA job of this machine's dispatcher) or lava (jobs of the LAVA "
                             "server --lava-url, spread over its workers; docs/lab.org)")),
    (["--lava-url"], dict(help="--engine lava: the server (http://HOST/)")),
    (["--lava-token"], dict(default=os.environ.get("MAPBENCH_LAVA_TOKEN"),
                            help="--engine lava: an API token (default $MAPBENCH_LAVA_TOKEN)")),
    (["--lava-device-type"], dict(default="qemu",
                                  help="--engine lava: qemu (default), or a physical x86 device "
                                       "type booted over iPXE (the kernel on the box itself)")),
    (["--lava-publish"], dict(type=Path,
                              help="--engine lava: a directory the workers fetch from over "
                                   "HTTP (with --lava-publish-url); default file:// paths, "
                                   "for workers on this machine")),
    (["--lava-publish-url"], dict(help="--engine lava: the URL --lava-publish is served at")),
    (["--lava-poll"], dict(type=float, default=5,
                           help="--engine lava: seconds between looks at a job (default 5)")),
    (["--profile"], dict(action="store_true",
                         help="attribute the model's counts to guest kernel functions (the "
                              "guest's kallsyms; implies --model zen4)")),
]


def add(ap, boots=None):
    """The guest options, and --boots with its default for a command that
    takes it (bisect boots each commit once)."""
    if boots:
        ap.add_argument("--boots", type=cli.at_least(1), default=boots,
                        help=f"boots per kernel (default {boots})")
    for flags, kw in OPTIONS:
        ap.add_argument(*flags, **kw)


def passed_on(args):
    """The guest options as given (--boots aside), as vmrun arguments."""
    argv = []
    for flags, kw in OPTIONS:
        dest = flags[-1].lstrip("-").replace("-", "_")
        value = getattr(args, dest)
        if kw.get("action") == "store_true":
            argv += [flags[-1]] if value else []
        elif kw.get("action") is argparse.BooleanOptionalAction:
            argv += [] if value is None else [flags[-1] if value else
                                              "--no-" + flags[-1].removeprefix("--")]
        elif value is not None:
            argv += [flags[-1], str(value)]
    return argv


def modelled(args):
    """The guests run under the cache model (--model, or --profile's)."""
    return args.model != "none" or args.profile


def layouts_sampled(args):
    """--sample-layouts as given, else on under the cache model: boots that
    repeat one layout make two builds' modelled figures read as certainly
    different."""
    return modelled(args) if args.sample_layouts is None else args.sample_layouts


# Options whose value is a secret: shown as *** where a command line is printed.
SECRET = {"--lava-token"}


def shown(argv):
    """argv as it may be printed: secrets masked."""
    return [("***" if i and argv[i - 1] in SECRET else a) for i, a in enumerate(argv)]
