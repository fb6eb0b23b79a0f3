"""The job tests/test_nats_source_faults.py submits to a standalone cluster of two one-core executors: a JetStream
stream read in 6 partitions, each row's sequence collected. Every task but the first waits, on its first attempt,
until one executor has been killed (SIGKILL) after the first task finished: Spark must read again the ranges
that executor held, and every sequence must still arrive exactly once.

    spark-submit ... tests/nats_rerun_job.py OUT.json NATS_URL STREAM
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from collections import Counter

from pyspark import TaskContext
from pyspark.sql import SparkSession

from rerun_job import alive_executors, kill_after_first_reduce_task

PARTITIONS = 6


def main(argv: list[str]) -> int:
    out, url, stream = argv
    spark = SparkSession.builder.appName("subjxform-nats-rerun-job").getOrCreate()
    workdir = tempfile.mkdtemp(prefix="subjxform-nats-rerun-")
    marker = os.path.join(workdir, "go")
    try:
        deadline = time.monotonic() + 90
        while alive_executors(spark) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        df = (
            spark.read.format("nats")
            .option("servers", url)
            .option("stream", stream)
            .option("partitions", PARTITIONS)
            .load()
        )

        def held_back(index, rows):
            ctx = TaskContext.get()
            if index != 0 and ctx.attemptNumber() == 0 and ctx.stageAttemptNumber() == 0:
                wait = time.monotonic() + 120
                while not os.path.exists(marker) and time.monotonic() < wait:
                    time.sleep(0.05)
            for row in rows:
                yield row.streamSeq

        killed: list = []
        killer = threading.Thread(
            target=kill_after_first_reduce_task, args=(spark, PARTITIONS, marker, killed), daemon=True
        )
        killer.start()
        seqs = df.select("streamSeq").rdd.mapPartitionsWithIndex(held_back).collect()
        killer.join(130)
        counts = Counter(seqs)
        result = {
            "killed": killed,
            "rows": len(seqs),
            "distinct": len(counts),
            "doubled": sum(1 for c in counts.values() if c > 1),
            "max": max(counts, default=0),
        }
    finally:
        spark.stop()
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
