"""run_bench_xdp_lb.sh's table: each scenario's p50, stddev and p99 (ns/op
of its batches, the kernel timing library's figures), in its five groups."""
import numpy as np

from .base import Style
from .. import output
from ..model import InputError


# run_bench_xdp_lb.sh's groups of xdp-lb scenarios, in its order.
XDP_LB_GROUPS = (
    ("Single-flow baseline", ("tcp-v4-lru-hit", "tcp-v4-ch", "tcp-v6-lru-hit", "tcp-v6-ch",
                              "udp-v4-lru-hit", "udp-v6-lru-hit", "tcp-v4v6-lru-hit")),
    ("Diverse flows (4K src addrs)", ("tcp-v4-lru-diverse", "tcp-v4-ch-diverse",
                                      "tcp-v6-lru-diverse", "tcp-v6-ch-diverse",
                                      "udp-v4-lru-diverse")),
    ("TCP flags", ("tcp-v4-syn", "tcp-v4-rst-miss")),
    ("LRU stress", ("tcp-v4-lru-miss", "udp-v4-lru-miss", "tcp-v4-lru-warmup")),
    ("Early exits", ("pass-v4-no-vip", "pass-v6-no-vip", "pass-v4-icmp", "pass-non-ip",
                     "drop-v4-frag", "drop-v4-options", "drop-v6-frag")),
)


def xdp_lb_table(a, b, args):
    """run_bench_xdp_lb.sh's table from one set: per scenario the timing
    library's median, stddev and p99 (ns/op within 1.5 IQR; the median of
    the runs), ERR where the set has no run of it. Text is the script's
    boxes; md and org one table with the group as a column."""
    by_name = {}
    for r in a:
        if r.benchmark.startswith("xdp-lb-"):
            by_name.setdefault(r.benchmark.removeprefix("xdp-lb-"), []).append(r)
    if not by_name:
        raise InputError("no xdp-lb results in the set (scripts/suite run xdp-lb)")

    def cells(name):
        runs = by_name.get(name, [])
        v = [[r.metrics.get(m) for r in runs if r.metrics.get(m) is not None]
             for m in ("iqr_median", "iqr_stddev", "iqr_p99")]
        return [f"{np.median(x):.2f}" if x else "-" for x in v] if runs else ["ERR", "-", "-"]
    if args.format != "text":
        rows = [[group, name, *cells(name)] for group, names in XDP_LB_GROUPS for name in names]
        return output.render_table(["Group", "Scenario", "p50", "stddev", "p99"], rows,
                                   args.format, left=(0, 1))
    sep = "  +" + "-" * 34 + "+" + "-" * 10 + "+" + "-" * 9 + "+" + "-" * 10 + "+"
    lines = ["XDP load-balancer benchmark", "=" * 27]
    for group, names in XDP_LB_GROUPS:
        lines += [sep, f"  | {group:<32} | {'p50':>8} | {'stddev':>7} | {'p99':>8} |", sep]
        lines += [f"  | {name:<32} | {p50:>8} | {sd:>7} | {p99:>8} |"
                  for name in names for p50, sd, p99 in [cells(name)]]
    lines.append(sep)
    return "\n".join(lines) + "\n(ns/op, in-kernel time of each batch per packet; the median " \
        "of the runs)"


STYLE = Style("xdp-lb", (1,), xdp_lb_table)
