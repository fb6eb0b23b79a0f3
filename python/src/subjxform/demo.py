"""The demo job: a nats-server mappings config applied to an order log on an embedded local Spark.

    python -m subjxform.demo [--rows N] [--out DIR] [--seed S]

1. generates an order log: ``orders.<region>.<customer>`` subjects with an order id, an amount and a
   time (a few popular customers order far more often than the rest, some regions are busier);
2. applies ``MAPPINGS`` (below, in nats-server's config syntax) with ``subject_map``: each order gets
   one of 8 partitions from its customer, exactly the ``{{partition(8,2)}}`` number a NATS server
   would give it, and 5% of the traffic goes to the v2 service (a canary), the rest to v1 (the new
   subject is kept next to the original, in ``routed_to``);
3. writes Parquet partitioned by the partition token (``DIR/orders/partition=0`` ... ``=7``);
4. reads it back and reports per-destination counts (canary share, expected vs observed) and
   partition balance (min/max/skew), as a table and as a PNG chart (``DIR/orders_report.png``).

The canary draw is keyed by the order id (``key="order_id"``): the same seed gives the same orders to
v2 on every run, however the log is partitioned.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

import subjxform
from subjxform import subject_map, validate_mappings

# The mappings block exactly as it would sit in a nats-server config file (or an account's `mappings`).
# `{{partition(8,2)}}` hashes the second wildcard (the customer): one customer's orders always land in
# the same partition, so a consumer per partition sees each customer's orders in order.
MAPPINGS = """\
mappings {
  # orders.<region>.<customer>  ->  orders.<version>.<partition>.<region>.<customer>
  "orders.*.*": [
    { destination: "orders.v1.{{partition(8,2)}}.{{wildcard(1)}}.{{wildcard(2)}}", weight: 95% }
    { destination: "orders.v2.{{partition(8,2)}}.{{wildcard(1)}}.{{wildcard(2)}}", weight: 5% }  # canary
  ]
}
"""
PARTITIONS = 8
CANARY_SHARE = 0.05  # the v2 weight above
DEFAULT_ROWS = 10_000_000  # 1-1.5 minutes on a 2-core machine

# Where orders come from: (region, share of the traffic).
REGIONS = [
    ("eu-west", 0.30),
    ("us-east", 0.25),
    ("us-west", 0.15),
    ("eu-north", 0.12),
    ("ap-south", 0.10),
    ("sa-east", 0.08),
]
CUSTOMERS = 200_000


def log(message: str, started: float) -> None:
    print(f"[{time.strftime('%H:%M:%S')} +{time.monotonic() - started:5.1f}s] {message}", flush=True)


def order_log(spark: SparkSession, rows: int, seed: int) -> DataFrame:
    """``rows`` orders: subject ``orders.<region>.<customer>``, order_id, amount, ordered_at.

    Fixed input partitions (8) with seeded ``rand`` make the log the same on every machine.
    """
    pick = F.rand(seed)
    upper = [sum(share for _, share in REGIONS[: i + 1]) for i in range(len(REGIONS))]  # cumulative shares
    region = F.when(pick < upper[0], REGIONS[0][0])
    for (name, _), below in zip(REGIONS[1:-1], upper[1:-1]):
        region = region.when(pick < below, name)
    region = region.otherwise(REGIONS[-1][0])
    # Popular customers: squaring a uniform number favours the low customer numbers.
    customer = F.format_string("c%06d", (F.pow(F.rand(seed + 1), 2) * CUSTOMERS).cast("int"))
    return spark.range(0, rows, 1, numPartitions=8).select(
        F.concat_ws(".", F.lit("orders"), region, customer).alias("subject"),
        (F.col("id") + 1_000_000).alias("order_id"),
        F.round(F.lit(5.0) + F.rand(seed + 2) * 495, 2).cast("decimal(9,2)").alias("amount"),
        F.timestamp_seconds(F.lit(1_767_225_600) + (F.col("id") * 86_400 / rows).cast("long")).alias("ordered_at"),
    )


@dataclass
class Report:
    rows: int
    per_destination: dict[str, int]  # "v1" / "v2" -> messages
    per_partition: dict[int, dict[str, int]]  # partition -> {"v1": n, "v2": n}

    @property
    def partition_totals(self) -> dict[int, int]:
        return {p: sum(by_version.values()) for p, by_version in self.per_partition.items()}

    def canary(self) -> tuple[int, float, float]:
        """v2 messages, the expected count, and how many standard deviations apart they are."""
        observed = self.per_destination.get("v2", 0)
        expected = self.rows * CANARY_SHARE
        sd = math.sqrt(self.rows * CANARY_SHARE * (1 - CANARY_SHARE)) or 1.0
        return observed, expected, (observed - expected) / sd

    def balance(self) -> tuple[int, int, float]:
        """min, max, and skew: the fullest partition over the mean (1.0 is perfectly even)."""
        totals = list(self.partition_totals.values())
        return min(totals), max(totals), max(totals) / (sum(totals) / len(totals))


def run(spark: SparkSession, rows: int, out: Path, seed: int = 42, started: float | None = None) -> Report:
    """The job on ``spark`` (which has subjxform.jar): map, write Parquet, read back, count."""
    started = time.monotonic() if started is None else started
    print("Mappings config (nats-server syntax):\n" + "\n".join("  " + line for line in MAPPINGS.splitlines()))
    problems = validate_mappings(MAPPINGS, spark)
    if problems:
        raise SystemExit("the mappings config has problems:\n" + "\n".join(map(str, problems)))
    log("mappings checked: nats-server would accept them", started)

    mapped = (
        order_log(spark, rows, seed)
        # keyed by the order id: each order's draw is its own, whatever the partitioning or the run
        .withColumn("routed_to", subject_map("subject", MAPPINGS, seed=seed, key="order_id"))
        # orders.<version>.<partition>.<region>.<customer>: the tokens we report on become columns.
        .withColumn("version", F.split("routed_to", r"\.").getItem(1))
        .withColumn("partition", F.split("routed_to", r"\.").getItem(2).cast("int"))
    )
    log("a few orders and where the mappings send them:", started)
    for row in mapped.limit(4).collect():
        print(f"    {row['subject']:<24} -> {row['routed_to']}")

    target = out / "orders"
    log(f"mapping {rows:,} orders and writing Parquet partitioned by the partition token to {target}", started)
    mapped.write.mode("overwrite").partitionBy("partition").parquet(str(target))

    log("reading the Parquet back and counting", started)
    counts = spark.read.parquet(str(target)).groupBy("partition", "version").count().collect()
    per_partition: dict[int, dict[str, int]] = {}
    per_destination: dict[str, int] = {}
    for r in counts:
        per_partition.setdefault(r["partition"], {})[r["version"]] = r["count"]
        per_destination[r["version"]] = per_destination.get(r["version"], 0) + r["count"]
    return Report(rows, per_destination, per_partition)


def print_report(report: Report) -> None:
    total = sum(report.per_destination.values())
    observed, expected, z = report.canary()
    print(f"\n  {'destination':<12} {'messages':>11} {'share':>8} {'expected':>9}")
    for version, weight in (("v1", 1 - CANARY_SHARE), ("v2", CANARY_SHARE)):
        n = report.per_destination.get(version, 0)
        print(f"  orders.{version:<5} {n:>11,} {n / total:>8.3%} {weight:>9.1%}")
    print(f"  {'total':<12} {total:>11,}")
    print(f"  canary: {observed:,} observed, {expected:,.0f} expected ({z:+.2f} standard deviations)")

    print(f"\n  {'partition':>9} {'messages':>11} {'of which v2':>12} {'share':>8}")
    for p, n in sorted(report.partition_totals.items()):
        print(f"  {p:>9} {n:>11,} {report.per_partition[p].get('v2', 0):>12,} {n / total:>8.2%}")
    low, high, skew = report.balance()
    print(f"  min {low:,}  max {high:,}  skew (max/mean) {skew:.3f}\n")


def chart(report: Report, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    parts = sorted(report.per_partition)
    v1 = [report.per_partition[p].get("v1", 0) for p in parts]
    v2 = [report.per_partition[p].get("v2", 0) for p in parts]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8), gridspec_kw={"width_ratios": [3, 1]})
    left.bar(parts, v1, color="#2a7ab9", label="orders.v1")
    left.bar(parts, v2, bottom=v1, color="#d95f02", label="orders.v2 (canary)")
    mean = sum(report.partition_totals.values()) / len(parts)
    left.axhline(mean, color="black", linestyle="--", linewidth=1, label=f"mean {mean:,.0f}")
    thousands = matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:,.0f}")
    left.yaxis.set_major_formatter(thousands)
    left.set_xticks(parts)
    left.set_xlabel("partition ({{partition(8,2)}} of the customer)")
    left.set_ylabel("messages")
    low, high, skew = report.balance()
    left.set_title(f"Partition balance: min {low:,}, max {high:,}, skew {skew:.3f}")
    left.legend(loc="lower right", fontsize=8)

    observed, expected, z = report.canary()
    total = sum(report.per_destination.values())
    bars = right.bar(
        ["expected", "observed"], [100 * expected / total, 100 * observed / total], color=["#999999", "#d95f02"]
    )
    right.bar_label(bars, labels=[f"{expected:,.0f}", f"{observed:,}"], fontsize=8)
    right.set_ylabel("% of messages to orders.v2")
    right.set_title(f"Canary share ({z:+.1f} sd)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=DEFAULT_ROWS, help=f"orders to generate (default {DEFAULT_ROWS:,})")
    parser.add_argument("--out", type=Path, default=Path("target/demo"), help="output folder (default target/demo)")
    parser.add_argument("--seed", type=int, default=42, help="seed of the order log and the canary draw (default 42)")
    args = parser.parse_args(argv)
    if args.rows < 1:
        parser.error("--rows must be at least 1")
    started = time.monotonic()

    log("starting an embedded local Spark with subjxform.jar", started)
    spark = (
        subjxform.configure(SparkSession.builder.master("local[*]").appName("subjxform-demo"))
        .config("spark.ui.showConsoleProgress", "true")  # Spark's progress bar while the job runs
        .config("spark.ui.enabled", "false")  # no web UI needed (and no port clash with other Sparks)
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("WARN")
    try:
        report = run(spark, args.rows, args.out, args.seed, started)
        print_report(report)
        png = args.out / "orders_report.png"
        chart(report, png)
        log(f"chart written to {png}; done in {time.monotonic() - started:.1f}s", started)
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
