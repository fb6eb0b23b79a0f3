"""Soak run (not in CI): N subjects (default 100 million) through `subject_map` with a weighted table of
10,000 rules, generated in the JVM with spark.range (nothing on the driver); every few seconds the JVM
heap after a full collection, so a leak shows as a rising floor. In local mode the driver and the
executors are one JVM: that heap is both. Prints rows/s, the heap at the start and the end, and checks
the weighted shares (a binomial bound).

    PYTHONPATH=python/src python bench/soak.py [--rows 100000000] [--rules 10000] [--master local[2]]
"""

from __future__ import annotations

import argparse
import math
import threading
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import subjxform
from subjxform import subject_map


def table(rules: int) -> str:
    """Rule i: orders.r<i>.* -> 90% v1.<i>.<id>, 10% v2.<i>.<id>; in nats-server config syntax."""
    return "\n".join(
        f'"orders.r{i}.*": [{{destination: "v1.{i}.$1", weight: 90%}}, {{destination: "v2.{i}.$1", weight: 10%}}]'
        for i in range(rules)
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000_000)
    ap.add_argument("--rules", type=int, default=10_000)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="1g")
    ap.add_argument("--every", type=float, default=20.0, help="seconds between heap samples")
    args = ap.parse_args()

    spark = (
        SparkSession.builder.master(args.master)
        .appName("subjxform-soak")
        .config("spark.jars", subjxform.jar_path())
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.codegen.fallback", "false")
        .getOrCreate()
    )
    jvm = spark._jvm
    runtime = jvm.java.lang.Runtime.getRuntime()

    def heap_after_gc() -> float:
        jvm.java.lang.System.gc()
        return (runtime.totalMemory() - runtime.freeMemory()) / 2**20

    samples: list[tuple[float, float]] = []
    done = threading.Event()
    started = time.monotonic()

    def sample() -> None:
        while not done.wait(args.every):
            samples.append((time.monotonic() - started, heap_after_gc()))
            print(f"  t={samples[-1][0]:7.1f}s heap after GC {samples[-1][1]:7.1f} MB", flush=True)

    mappings = table(args.rules)
    before = heap_after_gc()
    print(
        f"{args.rows:,} rows, {args.rules:,} rules ({len(mappings):,} bytes of text), {args.master}, "
        f"driver heap max {runtime.maxMemory() / 2**20:.0f} MB; heap after GC at the start {before:.1f} MB",
        flush=True,
    )
    threading.Thread(target=sample, daemon=True).start()
    id_ = F.col("id")
    partitions = max(8, args.rows // 2_000_000)
    subjects = spark.range(0, args.rows, 1, partitions).select(
        F.concat(F.lit("orders.r"), (id_ % args.rules).cast("string"), F.lit("."), id_.cast("string")).alias("subject")
    )
    out = subjects.select(subject_map("subject", mappings, seed=42).alias("to")).agg(
        F.count("*").alias("rows"),
        F.count_if(F.col("to").startswith("v2.")).alias("v2"),
        F.count_if(F.col("to").isNull()).alias("nulls"),
    )
    row = out.collect()[0]
    elapsed = time.monotonic() - started
    done.set()
    after = heap_after_gc()
    sd = math.sqrt(row.rows * 0.1 * 0.9)
    print(
        f"rows {row.rows:,}  v2 {row.v2:,} ({row.v2 / row.rows:.4%}, {(row.v2 - 0.1 * row.rows) / sd:+.2f} sd)  NULL {row.nulls}"
    )
    print(f"elapsed {elapsed:.1f} s  ->  {row.rows / elapsed:,.0f} rows/s")
    floor = [h for _, h in samples]
    print(
        f"heap after GC: start {before:.1f} MB, end {after:.1f} MB"
        + (
            f", during the run min {min(floor):.1f} / max {max(floor):.1f} MB over {len(floor)} samples"
            if floor
            else ""
        )
    )
    if abs(row.v2 - 0.1 * row.rows) > 5 * sd or row.nulls:
        raise SystemExit("the weighted shares are off")
    spark.stop()


if __name__ == "__main__":
    main()
