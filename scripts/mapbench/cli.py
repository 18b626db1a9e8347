"""What every command shares: exit statuses, one-line errors, the argument
parser that exits 64 on a bad command line."""
import argparse
import importlib
import os
import signal
import sys
from pathlib import Path

from .model import InputError

# Exit statuses shared by the scripts.
EXIT_TOOL = 3       # unreadable input, or a bug
EXIT_USAGE = 64     # bad command line (EX_USAGE), distinct from the gate's verdicts
# The gate's verdicts (scripts/gate, and scripts/ab which exits with them).
EXIT_PASS, EXIT_REGRESSION, EXIT_INCONCLUSIVE = 0, 1, 2
GATE_WORDS = {EXIT_PASS: "pass", EXIT_REGRESSION: "regression",
              EXIT_INCONCLUSIVE: "inconclusive"}
# The kernel tools (kbuild, vmrun): a build or guest run failed, or bad input
# (a tree, image or patch that is not one); interrupted by SIGINT.
EXIT_FAILED, EXIT_INPUT, EXIT_INTERRUPTED = 1, 2, 130
EXIT_LAB = 4        # a LAVA server that cannot be reached, or refuses the token


def need_runs(runs, path):
    """runs, or InputError (one line, exit 3) if every file of the set was left out."""
    if not runs:
        why = "; ".join(sorted({s.why for s in runs.skipped}))
        raise InputError(f"{path}: no completed results in it ({why})")
    return runs


# The command that is running, as its errors name it (set by run()).
prog = "mapbench"


def die(msg, status=EXIT_TOOL):
    print(f"{prog}: {msg}", file=sys.stderr)
    sys.exit(status)


def _number(kind, ok, what):
    """An argparse type: kind(text) where ok(value), else a usage error
    saying what the option takes (argparse names the option)."""
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not ok(value):
            raise argparse.ArgumentTypeError(f"{text} is not {what}")
        return value
    return parse


PERCENT = _number(float, lambda v: 0 <= v < float("inf"), "a percent, 0 or more")
POSITIVE_PERCENT = _number(float, lambda v: 0 < v < float("inf"), "a percent above 0")
PROBABILITY = _number(float, lambda v: 0 < v < 1, "a number between 0 and 1")
RUNS = _number(int, lambda v: v >= 2, "a whole number of runs, 2 or more")


def at_least(low):
    """An argparse type: a whole number of low or more (a count of boots,
    runs, seconds, ...)."""
    return _number(int, lambda v: v >= low, f"a whole number, {low} or more")


class ArgumentParser(argparse.ArgumentParser):
    """argparse with a one-line usage error and exit status 64, so that a
    mistyped command never reads as the gate's "inconclusive" (2)."""
    def __init__(self, **kw):
        kw.setdefault("prog", prog)
        super().__init__(**kw)

    def error(self, message):
        die(f"{message}; see --help", EXIT_USAGE)


def run(main, argv, name):
    """The exit status of command name's main(argv): any unexpected failure
    is one line and exit 3, never a traceback."""
    global prog
    prog = name
    return _exit_status(main, argv, outermost=True)


def script_name(command):
    """scripts/NAME of mapbench.commands.COMMAND (kernel_bench: kernel-bench)."""
    return command.replace("_", "-")


def call(command, argv):
    """Another of our tools, run in this process as its script would run
    it: the exit status of mapbench.commands.COMMAND's main(argv), its
    errors one line under its own name. A Ctrl-C is the caller's to handle."""
    global prog
    caller, prog = prog, script_name(command)
    try:
        return _exit_status(lambda a: importlib.import_module(f"mapbench.commands.{command}")
                            .main(a), argv, outermost=False)
    finally:
        prog = caller


def _exit_status(main, argv, outermost):
    """main(argv)'s exit status, its errors one line; a Ctrl-C or a reader
    gone ends the process's own command quietly, and reaches a caller that
    ran another tool (outermost False)."""
    try:
        try:
            return main(argv) or 0
        except InputError as e:
            die(str(e), e.status)
        except BrokenPipeError:
            if not outermost:
                raise
            return reader_gone()
        except KeyboardInterrupt:
            if not outermost:
                raise
            return interrupted()
        except Exception as e:  # a bug or an unreadable input
            die(f"internal error: {e!r}")
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 0 if e.code is None else EXIT_TOOL


def interrupted():
    """EXIT_INTERRUPTED for a Ctrl-C, with no traceback; a second one while
    the process exits (a process group's signal can reach a process twice,
    seen in bisect's steps) is ignored rather than break into its clean-up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return EXIT_INTERRUPTED


# A reader that stopped reading (| head): quiet, as a killed pipeline's writer is.
EXIT_PIPE = 128 + 13


def reader_gone():
    """The exit status once stdout's reader has gone, with what Python would
    still flush at exit sent nowhere."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return EXIT_PIPE


def run_main(command):
    """A script's entry point: mapbench.commands.COMMAND's main on the
    command line, its exit status the process's; imported inside run(), so
    that a Ctrl-C while it loads is exit 130 too, not a traceback."""
    def main(argv):
        return importlib.import_module(f"mapbench.commands.{command}").main(argv)
    sys.exit(run(main, sys.argv[1:], Path(sys.argv[0]).name))
