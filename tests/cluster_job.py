"""The job the cluster tests run: the same query in local mode, on a standalone cluster (spark-submit
--jars) and through Spark Connect; each run writes its rows as JSON, and the test compares them.

    python tests/cluster_job.py OUT.json                 # inside spark-submit (session from the environment)
    python tests/cluster_job.py OUT.json sc://host:port  # Spark Connect client
"""

from __future__ import annotations

import json
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

ROWS = 20000


def query(spark: SparkSession):
    """Subjects built in the JVM (spark.range), transforms as constants and from columns, spread over
    several partitions so that executors share nothing but the plan."""
    from subjxform import subject_matches, subject_transform, try_subject_transform

    region = F.element_at(F.array(F.lit("eu"), F.lit("us"), F.lit("ap")), (F.col("id") % 3 + 1).cast("int"))
    last = F.when(F.col("id") % 7 == 0, F.lit("--")).otherwise(F.concat(F.lit("x-"), (F.col("id") % 11).cast("string")))
    df = (
        spark.range(0, ROWS, 1, 8)
        .select(
            "id",
            F.concat_ws(".", F.lit("orders"), region, (F.col("id") % 1000).cast("string"), last).alias("subject"),
            F.when(F.col("id") % 2 == 0, F.lit("orders.*.*.*")).otherwise(F.lit("orders.>")).alias("src"),
            F.when(F.col("id") % 2 == 0, F.lit("{{split(3,-)}}.$2.{{partition(5,1,2)}}"))
            .when(F.col("id") % 5 == 1, F.lit("bad.{{wildcard(9)}}"))
            .otherwise(F.lit("all.>"))
            .alias("dest"),
        )
        .repartition(8)
    )
    return df.select(
        "id",
        subject_transform("subject", "orders.*.*.*", "shipments.$2.{{wildcard(1)}}.{{slicefromleft(3,2)}}").alias(
            "constant"
        ),
        subject_transform("subject", "orders.*.*.*", "x.{{split(3,-)}}").alias("empty_token"),
        try_subject_transform("subject", F.col("src"), F.col("dest")).alias("from_columns"),
        subject_matches("subject", "orders.eu.>").alias("matches"),
        F.expr("subject_transform(subject, 'orders.>', '<<partition(16)>>.>')").alias("sql"),
    ).orderBy("id")


def run(spark: SparkSession) -> dict:
    rows = [r.asDict() for r in query(spark).collect()]
    try:
        spark.range(1).select(F.expr("subject_transform('a.b', 'a.*', 'x.{{wildcard(2)}}')")).collect()
        error = None
    except Exception as e:  # the analysis error, as the user sees it in this mode
        error = str(e).splitlines()[0]
    return {"rows": rows, "invalid_constant_error": error, "master": spark.conf.get("spark.master", "connect")}


def main(argv: list[str]) -> int:
    out = argv[0]
    if len(argv) > 1:
        spark = SparkSession.builder.remote(argv[1]).getOrCreate()
    else:
        spark = SparkSession.builder.appName("subjxform-cluster-job").getOrCreate()
    try:
        result = run(spark)
    finally:
        spark.stop()
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
