"""The options of every command that boots guests (vmrun, ab, bisect), declared
once: added to a parser, and handed on to vmrun as its arguments."""
from .. import cachemodel

# (flags, argparse keywords): the parser's options, and what passed_on gives back.
OPTIONS = [
    (["--runs"], dict(type=int, default=1, help="measured runs per configuration per boot")),
    (["-w", "--warmup"], dict(type=int, default=1, help="./bench -w in the guest")),
    (["-d", "--duration"], dict(type=int, default=3, help="./bench -d in the guest")),
    (["--accel"], dict(choices=["auto", "kvm", "tcg"], default="auto")),
    (["--clock"], dict(choices=["auto", "icount", "host"], default="auto",
                       help="guest clock: icount (instructions; default under TCG) or host")),
    (["--smp"], dict(type=int, help="guest vCPUs (default 1, or --topology's)")),
    (["-j", "--jobs"], dict(type=int, help="guests at once under the icount clock (default: the "
                                           "host's CPUs); the host clock runs one at a time")),
    (["--model"], dict(choices=[*cachemodel.MACHINES, "none"], default="none",
                       help="the cache model's machine: simulated L1D/L2/LLC misses and "
                            "modelled cycles per op beside icount's instructions (QEMU 10; "
                            "default none)")),
    (["--sample-layouts"], dict(action="store_true",
                                help="a memory layout drawn per boot (shuffled page lists; needs "
                                     "CONFIG_SHUFFLE_PAGE_ALLOCATOR): boots of one kernel spread "
                                     "in modelled cycles as builds do, so a verdict on them has "
                                     "the spread a layout shift makes")),
    (["--profile"], dict(action="store_true",
                         help="attribute the model's counts to guest kernel functions (the "
                              "guest's kallsyms; implies --model zen4)")),
]


def add(ap, boots=None):
    """The guest options, and --boots with its default for a command that
    takes it (bisect boots each commit once)."""
    if boots:
        ap.add_argument("--boots", type=int, default=boots,
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
        elif value is not None:
            argv += [flags[-1], str(value)]
    return argv
