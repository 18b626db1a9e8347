"""run_bench_htab_mem.sh's names for the htab-mem rows, and its order: the
seed tables' ("prealloc overwrite", prealloc first, then the use cases as
the script runs them)."""
from .base import RowNames


def label(key, varying):
    """htab-mem rows as the seed tables name them ("prealloc overwrite"); None
    for another row."""
    bench, p = key.benchmark, key.params
    if bench.startswith("htab-mem-") and varying <= {"prealloc", "map_flags"}:
        return f"{'prealloc' if p.get('prealloc') else 'normal'} {bench[len('htab-mem-'):]}"
    return None


USE_CASES = ["overwrite", "batch_add_batch_del", "add_del_on_diff_cpu"]


def order(c):
    """htab-mem rows in the seed tables' order: prealloc first, then the use cases
    as run_bench_htab_mem.sh runs them; None for another row."""
    case = c.key.benchmark.removeprefix("htab-mem-")
    if case in USE_CASES:
        return (not c.key.params.get("prealloc"), USE_CASES.index(case))
    return None


NAMES = RowNames(label, order)
