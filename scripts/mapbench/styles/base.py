"""What every report style shares: the Style object, the row namers the
delta table asks, and the small formatters of cells."""
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import model


@dataclass(frozen=True)
class Style:
    """A table of result sets a reader knows (--style NAME; scripts/report's
    help shows each): how many sets it reads (1, 2 or either) and what makes
    the table of them."""
    name: str
    sets: tuple
    table: Callable     # (first set's runs, second's or None, args) -> text


@dataclass(frozen=True)
class RowNames:
    """A kernel tool's names for its rows in its own tables: label(key,
    varying) is a row's name, or None for a row that is not the tool's;
    order(comparison) sorts them as its script runs them."""
    label: Callable
    order: Callable


# The kernel tools' row names, in the order they are asked (__init__ lists
# them; the delta table asks them, and falls back to the configuration).
NAMERS = []


def si(n):
    """1000 -> 1K, 750000 -> 750K, 1000000 -> 1M."""
    for div, suffix in ((1000000, "M"), (1000, "K")):
        if n >= div and n % div == 0:
            return f"{n // div}{suffix}"
    return str(n)


def two_digits(x):
    """A spread with two significant digits: 4.3, 0.69, 140."""
    if not x:
        return "0"
    decimals = max(0, 1 - int(np.floor(np.log10(abs(x)))))
    return f"{x:.{decimals}f}"


def mean_sd(v, scale, digits):
    if not len(v):
        return "-"
    sd = v.std(ddof=1) if len(v) > 1 else 0.0
    return f"{v.mean() * scale:.{digits}f} ± {two_digits(sd * scale)}"


def pct(x):
    return f"{round((x - 1) * 100):+d} %"


def context(runs):
    """"kernel 7.2.13, TCG guest, icount clock": where a table's numbers come from."""
    kernels = sorted({r.env.get("kernel_release", "?") for r in runs})
    accel = sorted({vm["accelerator"].upper() if (vm := r.env.get("vm")) else "bare metal"
                    for r in runs})
    return (f"kernel {', '.join(kernels)}, {', '.join(accel)}"
            f"{' guest' if any(r.env.get('vm') for r in runs) else ''}, "
            f"{model.clock_of_runs(runs)} clock")
