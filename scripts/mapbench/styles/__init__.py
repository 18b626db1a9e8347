"""Report styles (scripts/report --style NAME), a table of Style objects:
mapbench's own tables (tables.py), and each kernel tool's table in a module
named after it, as the C peers are (src/peers/): rhtab (seed 004), lpm
(seed 002), xdp_lb (run_bench_xdp_lb.sh), cover_letter (seeds 000/003's);
htab_mem names the htab-mem rows of the delta table as run_bench_htab_mem.sh
does."""
from . import cover_letter, htab_mem, lpm, rhtab, tables, xdp_lb
from .base import NAMERS

STYLES = {s.name: s for s in (*tables.STYLES, rhtab.STYLE, lpm.STYLE, xdp_lb.STYLE,
                                  cover_letter.STYLE)}
NAMERS.append(htab_mem.NAMES)
