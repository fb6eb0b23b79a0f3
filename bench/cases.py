"""bench/cases.tsv, the benchmark cases both reports read (bench.py, jmh_report.py)."""

from __future__ import annotations

from pathlib import Path

CASES_FILE = Path(__file__).resolve().parent / "cases.tsv"


def read_cases() -> dict[str, tuple[str, str]]:
    """name -> (src, dest), in file order; `#` lines are comments."""
    cases = {}
    for line in CASES_FILE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, src, dest = line.split("\t")
            cases[name] = (src, dest)
    return cases
