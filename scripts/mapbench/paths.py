"""Where things are: the checkout, its scripts and its results."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
RESULTS = ROOT / "results"
# Debian's Python, which sees Debian's scipy and pandas (pyenv's does not).
PY = "/usr/bin/python3"
