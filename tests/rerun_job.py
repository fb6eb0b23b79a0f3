"""The job tests/test_task_reruns.py submits to a standalone cluster of two one-core executors: orders
routed by a weighted `subject_map` table, shuffled by their route and collected, once per draw mode
(no seed and no key, a seed, a key). In each, one executor is killed (SIGKILL) right after the first
reduce task has finished, so Spark must recompute the map output it held while reduce tasks that read
the first attempt's output are done: every id must still arrive exactly once.

    spark-submit ... tests/rerun_job.py OUT.json
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter

from pyspark import TaskContext
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

ROWS = 60_000
TABLE = {
    "orders.*.*": [
        {"destination": "orders.v1.{{partition(8,2)}}.{{wildcard(1)}}.{{wildcard(2)}}", "weight": "88%"},
        {"destination": "orders.v2.{{partition(8,2)}}.{{wildcard(1)}}.{{wildcard(2)}}", "weight": "10%"},
    ]
}
MODES = {"unseeded": {}, "seeded": {"seed": 42}, "keyed": {"key": "id"}}


def executor_pids(app_id: str) -> list[int]:
    # -ww: whole command lines whatever COLUMNS says (pytest-xdist's workers set COLUMNS=80: ps cut each line
    # there, before the app id, and no executor was found)
    out = subprocess.run(["ps", "-ww", "-eo", "pid=,args="], capture_output=True, text=True, check=True).stdout
    return [
        int(line.split(None, 1)[0])
        for line in out.splitlines()
        if "CoarseGrainedExecutorBackend" in line and app_id in line
    ]


def alive_executors(spark: SparkSession) -> int:
    return spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1  # less the driver


def kill_after_first_reduce_task(spark: SparkSession, reduce_tasks: int, marker: str, killed: list) -> None:
    """Waits until a stage of `reduce_tasks` tasks has finished one, SIGKILLs one executor, then lets the
    held-back reduce tasks go on (the marker file)."""
    tracker = spark.sparkContext.statusTracker()
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            stages = [tracker.getStageInfo(s) for s in tracker.getActiveStageIds()]
            if any(s and s.numTasks == reduce_tasks and s.numCompletedTasks >= 1 for s in stages):
                pid = executor_pids(spark.sparkContext.applicationId)[0]
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
            time.sleep(0.05)
    finally:
        open(marker, "w").close()


def run_mode(spark: SparkSession, mode: str, draw: dict, workdir: str) -> dict:
    from subjxform import subject_map

    marker = os.path.join(workdir, mode + ".go")
    region = F.element_at(
        F.array(*[F.lit(r) for r in ("eu", "us", "ap", "sa", "af", "me")]), (F.col("id") % 6 + 1).cast("int")
    )
    orders = spark.range(0, ROWS, 1, 12).select(
        "id",
        F.concat_ws(".", F.lit("orders"), region, F.concat(F.lit("c"), (F.col("id") % 5000).cast("string"))).alias(
            "subject"
        ),
    )
    routed = orders.select("id", subject_map("subject", TABLE, **draw).alias("routed")).repartition(6, "routed")

    def held_back(index, rows):
        # Every reduce task but the first waits, on its first attempt, until the executor is gone.
        ctx = TaskContext.get()
        if index != 0 and ctx.attemptNumber() == 0 and ctx.stageAttemptNumber() == 0:
            deadline = time.monotonic() + 120
            while not os.path.exists(marker) and time.monotonic() < deadline:
                time.sleep(0.05)
        for row in rows:
            yield row.id

    killed: list = []
    killer = threading.Thread(target=kill_after_first_reduce_task, args=(spark, 6, marker, killed), daemon=True)
    spark.sparkContext.setJobGroup(mode, mode)
    killer.start()
    try:
        ids = routed.rdd.mapPartitionsWithIndex(held_back).collect()
        error = None
    except Exception as e:  # e.g. Spark 4.2+ aborting a stage whose rerun map output changed
        lines = str(e).splitlines()
        ids, error = [], next((line for line in lines if "Exception" in line), lines[0])[:500]
    killer.join(130)
    tracker = spark.sparkContext.statusTracker()
    attempts = [
        tracker.getStageInfo(s).currentAttemptId
        for j in tracker.getJobIdsForGroup(mode)
        for s in tracker.getJobInfo(j).stageIds
        if tracker.getStageInfo(s) is not None
    ]
    counts = Counter(ids)
    # Before the next mode, the worker's replacement executor must be up.
    deadline = time.monotonic() + 90
    while alive_executors(spark) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    return {
        "error": error,
        "killed": killed,
        "rows": len(ids),
        "lost": ROWS - len(counts),
        "doubled": sum(1 for c in counts.values() if c > 1),
        "rerun_stage_attempts": max(attempts, default=0),
    }


def main(argv: list[str]) -> int:
    spark = SparkSession.builder.appName("subjxform-rerun-job").getOrCreate()
    workdir = tempfile.mkdtemp(prefix="subjxform-rerun-")
    try:
        deadline = time.monotonic() + 90
        while alive_executors(spark) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        result = {mode: run_mode(spark, mode, draw, workdir) for mode, draw in MODES.items()}
    finally:
        spark.stop()
    with open(argv[0], "w", encoding="utf-8") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
