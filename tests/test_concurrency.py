"""One expression shared by many tasks (local[8], 64 partitions) gives what one task gives, and
100k distinct transforms from columns stay correct (the per-task plan cache is bounded: see
PlanCacheSuite for its size)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def expected_distinct(i: int) -> str:
    region = "eu" if i % 2 == 0 else "us"
    tail = f"a-b-{i}"
    slices = []  # slicefromright(3, 2): pieces of 2 from the right, the remainder first
    first = len(tail) % 2 or 2
    slices.append(tail[:first])
    slices += [tail[k : k + 2] for k in range(first, len(tail), 2)]
    return f"d{i % 100_000}.{region}." + ".".join(slices)


def test_eight_threads_and_many_partitions_agree_with_one_and_distinct_transforms_are_right():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        env = dict(
            os.environ,
            SPARK_LOCAL_IP="127.0.0.1",
            PYTHONPATH=os.pathsep.join([str(TESTS.parent / "python" / "src"), os.environ.get("PYTHONPATH", "")]),
        )
        proc = subprocess.run(
            [sys.executable, str(TESTS / "concurrency_job.py"), out],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        with open(out, encoding="utf-8") as f:
            result = json.load(f)
    assert result["parallel"] == result["sequential"]
    assert result["parallel"]["n"] == 200_000 and result["parallel"]["constant_non_null"] == 200_000
    assert result["sample"] and all(value == expected_distinct(i) for i, value in result["sample"]), result["sample"][
        :5
    ]
    print(f"heap used after the runs: {result['heap_used_mb']:.0f} MB")
