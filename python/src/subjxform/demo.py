"""The demo job: NATS subject mappings applied to a generated order log on an embedded local Spark.

    python -m subjxform.demo [--rows N] [--out DIR]

It generates a message log of orders from customers in regions, re-partitions it with the same
``{{partition(8,2)}}`` numbers a NATS server would assign, rewrites the hierarchy, writes Parquet
partitioned by the partition token, and reports partition balance as a table and a PNG chart.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import subjxform
from subjxform import subject_matches, subject_transform

REGIONS = ["eu-west", "eu-north", "us-east", "us-west", "ap-south"]
PARTITIONS = 8

# (what it shows, source filter, destination) — each as an operator would write it in a mappings block.
TRANSFORMS = [
    ("partition by customer", "orders.*.*.*", "orders.{{partition(8,2)}}.$1.$2.$3"),
    ("reorder tokens", "orders.*.*.*", "customers.{{wildcard(2)}}.orders.{{wildcard(3)}}"),
    ("split the region", "orders.*.*.*", "regions.{{split(1,-)}}.$2"),
    ("slice the order id", "orders.*.*.*", "archive.{{slicefromleft(3,4)}}"),
    ("prefix rewrite", "orders.>", "legacy.orders.>"),
]


def log(message: str, started: float) -> None:
    print(f"[{time.monotonic() - started:6.1f}s] {message}", flush=True)


def order_log(spark: SparkSession, rows: int) -> DataFrame:
    """`orders.<region>.<customer>.<order>`: 50k customers, skewed towards the first regions."""
    regions = F.array(*[F.lit(r) for r in REGIONS])
    region = F.element_at(regions, (F.floor(F.pow(F.rand(7), 2) * len(REGIONS)) + 1).cast("int"))
    customer = F.format_string("cust%05d", (F.rand(11) * 50_000).cast("int"))
    order = F.format_string("%08d", (F.col("id") * 7919 + 10_000_019) % 100_000_000)
    return spark.range(rows).select(
        F.concat_ws(".", F.lit("orders"), region, customer, order).alias("subject"),
        (F.col("id") * 37 % 10_000 + 100).alias("bytes"),
    )


def balance(counts: dict[str, int]) -> tuple[int, int, float]:
    """min, max, and skew: max over the mean (1.0 is perfectly even)."""
    values = list(counts.values())
    return min(values), max(values), max(values) / (sum(values) / len(values))


def chart(counts: dict[str, int], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = sorted(counts, key=int)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.bar(keys, [counts[k] for k in keys], color="#2a7ab9")
    mean = sum(counts.values()) / len(counts)
    ax.axhline(mean, color="#d95f02", linestyle="--", label=f"mean {mean:,.0f}")
    ax.set_xlabel("partition ({{partition(8,2)}}: customer token)")
    ax.set_ylabel("messages")
    ax.set_title("Order log re-partitioned as nats-server would")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=2_000_000, help="messages to generate (default 2,000,000)")
    parser.add_argument("--out", type=Path, default=Path("target/demo"), help="output folder (default target/demo)")
    args = parser.parse_args(argv)
    started = time.monotonic()

    log("starting an embedded local Spark with subjxform.jar", started)
    spark = (
        subjxform.configure(SparkSession.builder.master("local[*]").appName("subjxform-demo"))
        .config("spark.ui.showConsoleProgress", "true")
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("WARN")
    try:
        messages = order_log(spark, args.rows).cache()
        log(f"generated {messages.count():,} order messages, e.g.:", started)
        sample = messages.limit(3).select(
            "subject", *[subject_transform("subject", src, dest).alias(name) for name, src, dest in TRANSFORMS]
        )
        rows = sample.collect()
        for name, src, dest in TRANSFORMS:
            print(f"  {name}: {src} -> {dest}")
            for row in rows:
                print(f"    {row['subject']:<32} -> {row[name]}")

        partitioned = messages.select(
            subject_transform("subject", "orders.*.*.*", "orders.{{partition(8,2)}}.$1.$2.$3").alias("subject"),
            "bytes",
        ).withColumn("partition", F.split("subject", r"\.").getItem(1))
        out = args.out / "orders_by_partition"
        log(f"writing Parquet partitioned by the partition token to {out}", started)
        partitioned.write.mode("overwrite").partitionBy("partition").parquet(str(out))

        stored = spark.read.parquet(str(out))
        counts = {str(r["partition"]): r["n"] for r in stored.groupBy("partition").agg(F.count("*").alias("n")).collect()}
        low, high, skew = balance(counts)
        log("partition balance (read back from Parquet):", started)
        print(f"  {'partition':>9} | {'messages':>10} | share")
        for key in sorted(counts, key=int):
            print(f"  {key:>9} | {counts[key]:>10,} | {counts[key] / sum(counts.values()):6.2%}")
        print(f"  min {low:,}  max {high:,}  skew (max/mean) {skew:.3f}")
        per_region = (
            messages.where(subject_matches("subject", "orders.eu-west.>"))
            .agg(F.count("*").alias("n"))
            .first()["n"]
        )
        print(f"  messages matching orders.eu-west.>: {per_region:,}")

        png = args.out / "partition_balance.png"
        chart(counts, png)
        log(f"chart written to {png}", started)
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
