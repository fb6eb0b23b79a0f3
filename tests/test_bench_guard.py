"""bench/guard.py runs end to end: two Spark sessions, interleaved rounds, the issue's ratios printed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from subjxform.session import jar_path

ROOT = Path(__file__).resolve().parent.parent
NUMBER = r"\d+\.\d+ \[\d+\.\d+-\d+\.\d+\]"


def test_the_guard_prints_every_ratio_for_both_jars(tmp_path):
    jar = jar_path()  # as the previous jar too: no build of another commit here
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "guard.py"),
            "--previous-jar",
            jar,
            "--current-jar",
            jar,
            "--rows",
            "3000",
            "--rounds",
            "2",
            "--warmup",
            "0",
            "--driver-memory",
            "1g",
            "--data-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert "floor guard: 3,000 rows, 2 timed rounds per jar" in out
    for label in ("telemetry reorder / concat", "mix reorder / concat", "columns (4 distinct) / constant"):
        # one row per metric (CPU time, wall time), a median [min-max] for each jar
        rows = [line for line in out.splitlines() if line.startswith(f"| {label} |")]
        assert len(rows) == 2, out
        assert all(
            re.fullmatch(rf"\| {re.escape(label)} \| <= \d\.\d\d \| {NUMBER} \| {NUMBER} \|", r) for r in rows
        ), rows
    assert (tmp_path / "telemetry-3000.parquet" / "_SUCCESS").exists()
    assert (tmp_path / "subjects-3000.parquet" / "_SUCCESS").exists()
