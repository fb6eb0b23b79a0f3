"""Run by test_concurrency.py in its own JVM with local[8]: one plan shared by eight task threads
over many partitions must give what one thread gives; 100k distinct transforms from columns too.
Writes a JSON summary to argv[1]."""

from __future__ import annotations

import json
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

ROWS = 200_000
DISTINCT = 100_000


def frame(spark: SparkSession, partitions: int):
    from subjxform import subject_transform, try_subject_transform

    return (
        spark.range(0, ROWS, 1, partitions)
        .select(
            "id",
            F.format_string(
                "orders.%s.%d.a-b-%d",
                F.element_at(F.array(F.lit("eu"), F.lit("us")), (F.col("id") % 2 + 1).cast("int")),
                F.col("id") % 977,
                F.col("id"),
            ).alias("subject"),
        )
        .select(
            "id",
            subject_transform("subject", "orders.*.*.*", "s.$2.{{split(3,-)}}.{{partition(13,1,2)}}").alias("constant"),
            # 100k distinct transforms from columns: each row's destination names its own number
            try_subject_transform(
                "subject",
                F.lit("orders.*.*.*"),
                F.format_string("d%d.$1.{{slicefromright(3,2)}}", F.col("id") % DISTINCT),
            ).alias("distinct"),
        )
    )


def digest(df) -> dict:
    rows = df.agg(
        F.count("*").alias("n"),
        F.count("constant").alias("constant_non_null"),
        F.bit_xor(F.xxhash64("id", "constant")).alias("constant_hash"),
        F.bit_xor(F.xxhash64("id", "distinct")).alias("distinct_hash"),
    ).collect()[0]
    return rows.asDict()


def main(out: str) -> int:
    import subjxform

    spark = (
        SparkSession.builder.master("local[8]")
        .appName("subjxform-concurrency")
        .config("spark.jars", subjxform.jar_path())
        .config("spark.ui.enabled", "false")
        .config("spark.sql.codegen.fallback", "false")
        .getOrCreate()
    )
    try:
        parallel = digest(frame(spark, 64))
        sequential = digest(frame(spark, 1))
        # spot check the distinct transforms' values against Python's own formatting
        sample = frame(spark, 8).where(F.col("id") % 9973 == 0).select("id", "distinct").collect()
        jvm = spark._jvm
        runtime = jvm.java.lang.Runtime.getRuntime()
        used_mb = (runtime.totalMemory() - runtime.freeMemory()) / 2**20
    finally:
        spark.stop()
    with open(out, "w", encoding="utf-8") as f:
        json.dump(
            {
                "parallel": parallel,
                "sequential": sequential,
                "sample": [(r.id, r.distinct) for r in sample],
                "heap_used_mb": used_mb,
            },
            f,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
