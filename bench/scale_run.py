"""Scale run (not in CI): N subjects generated in the JVM with spark.range (nothing on the driver), a
few transforms applied, results aggregated; logs rows/s and the JVM heap every few seconds.

    PYTHONPATH=python/src python bench/scale_run.py --rows 100000000 [--master local[2]]
"""

from __future__ import annotations

import argparse
import threading
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import subjxform
from subjxform import subject_matches, subject_transform, try_subject_transform


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000_000)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="2g")
    ap.add_argument("--every", type=float, default=15.0, help="seconds between heap samples")
    args = ap.parse_args()

    spark = (
        SparkSession.builder.master(args.master)
        .appName("subjxform-scale")
        .config("spark.jars", subjxform.jar_path())
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.codegen.fallback", "false")
        .getOrCreate()
    )
    runtime = spark._jvm.java.lang.Runtime.getRuntime()
    samples: list[tuple[float, float]] = []
    done = threading.Event()
    started = time.monotonic()

    def sample() -> None:
        while not done.wait(args.every):
            used = (runtime.totalMemory() - runtime.freeMemory()) / 2**20
            samples.append((time.monotonic() - started, used))
            print(
                f"  t={samples[-1][0]:7.1f}s heap used {used:7.1f} MB (max {runtime.maxMemory() / 2**20:.0f} MB)",
                flush=True,
            )

    threading.Thread(target=sample, daemon=True).start()
    id_ = F.col("id")
    subjects = spark.range(0, args.rows, 1, max(8, args.rows // 2_000_000)).select(
        F.concat_ws(
            ".",
            F.lit("orders"),
            F.element_at(F.array(*[F.lit(r) for r in ("eu", "us", "ap", "sa")]), (id_ % 4 + 1).cast("int")),
            (id_ % 100_003).cast("string"),
            F.concat(F.lit("sku-"), (id_ % 977).cast("string"), F.lit("-x")),
        ).alias("subject")
    )
    out = subjects.select(
        subject_transform("subject", "orders.*.*.*", "shipments.$2.{{wildcard(1)}}.{{partition(64,2)}}").alias("a"),
        subject_transform("subject", "orders.*.*.*", "{{split(3,-)}}.{{slicefromleft(2,3)}}").alias("b"),
        try_subject_transform("subject", "orders.>", "<<Partition(16)>>.>").alias("c"),
        subject_matches("subject", "orders.eu.>").alias("d"),
    ).agg(
        F.count("*").alias("rows"),
        F.sum(F.length("a") + F.length("b") + F.length("c")).alias("chars"),
        F.count_if("d").alias("eu"),
    )
    row = out.collect()[0]
    elapsed = time.monotonic() - started
    done.set()
    print(f"rows {row.rows:,}  output chars {row.chars:,}  eu {row.eu:,}")
    print(
        f"elapsed {elapsed:.1f} s  ->  {row.rows / elapsed:,.0f} rows/s ({4 * row.rows / elapsed:,.0f} function calls/s)"
    )
    if samples:
        used = [u for _, u in samples]
        print(f"heap used: min {min(used):.0f} MB, max {max(used):.0f} MB over {len(used)} samples")
    spark.stop()


if __name__ == "__main__":
    main()
