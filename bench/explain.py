"""subject_map_explain against subject_map per row, in one run on the same cached data (issue 15's goal:
within 2x).

``PYTHONPATH=python/src python bench/explain.py [--rows 2000000] [--rounds 5]`` (the jar built first:
``bash scripts/setup.sh``). The data is bench.py's (four subject kinds, 3-6 tokens), the table its
four-rule ``subject_map`` case plus a weighted rule (so both functions draw), and each case is timed two
ways, best of the rounds, rounds going over every case in turn:

- ``noop``: ``df.select(expr).write.format("noop")``: every row's whole value is built and written to an
  UnsafeRow (for the explanation: the whole struct);
- ``agg``: ``df.select(expr).agg(sum(length(...)))`` as bench.py times its cases (for the explanation:
  the length of its ``result`` plus its ``rule_index``, selected from the aliased struct: two fields of
  ``subject_map_explain(...)`` written out twice would run a nondeterministic expression twice).

Printed: ms per case, ns/row net of the passthrough floor (``subject`` itself), and the ratio
explain / map net of the floor.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "python" / "src"))

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

import subjxform  # noqa: E402
from bench import load_data, sql_str  # noqa: E402

MAPPINGS = (
    '{"orders.*.*.*": "orders.{{wildcard(2)}}.$1.$3", '
    '"payments.*.*": [{"destination": "payments.v1.$1.$2", "weight": 90}, {"destination": "payments.v2.$1.$2", "weight": 10}], '
    '"shipments.>": "archive.shipments.>", '
    '"telemetry.*.>": "t.$1.>"}'
)


def time_noop(df, column) -> float:
    start = time.perf_counter()
    df.select(column.alias("x")).write.format("noop").mode("overwrite").save()
    return time.perf_counter() - start


def time_agg(df, column) -> float:
    start = time.perf_counter()
    if isinstance(column, str):
        # Two fields of the struct: aliased first, so that the (nondeterministic) expression runs once a row.
        explained = F.expr(f"subject_map_explain(subject, {sql_str(MAPPINGS)}, NULL, 42)")
        picked = df.select(explained.alias("e")).select((F.length("e.result") + F.col("e.rule_index")).alias("x"))
    else:
        picked = df.select(column.alias("x"))
    picked.agg(F.sum("x").alias("n")).collect()
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--master", default="local[2]")
    args = ap.parse_args()
    spark = (
        SparkSession.builder.master(args.master)
        .appName("subjxform-bench-explain")
        .config("spark.jars", subjxform.jar_path())
        .config("spark.driver.memory", "4g")
        .config("spark.sql.codegen.fallback", "false")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        df = load_data(spark, args.rows).select("subject")
        m = sql_str(MAPPINGS)
        mapped = F.expr(f"subject_map(subject, {m}, NULL, 42)")
        explained = F.expr(f"subject_map_explain(subject, {m}, NULL, 42)")
        cases = {
            ("noop", "floor"): (time_noop, F.col("subject")),
            ("noop", "subject_map"): (time_noop, mapped),
            ("noop", "subject_map_explain"): (time_noop, explained),
            ("agg", "floor"): (time_agg, F.length("subject")),
            ("agg", "subject_map"): (time_agg, F.length(mapped)),
            ("agg", "subject_map_explain"): (time_agg, "explained"),
        }
        # The same draws: the explanation's result is subject_map's, row for row (one partitioning, one seed).
        both = df.select(mapped.alias("m"), explained["result"].alias("e"))
        differ = both.where(~F.col("m").eqNullSafe(F.col("e"))).count()
        assert differ == 0, f"{differ} rows where subject_map_explain's result is not subject_map's"
        best = {k: float("inf") for k in cases}
        for timer, col in cases.values():  # warm-up
            timer(df, col)
        for _ in range(args.rounds):
            for k, (timer, col) in cases.items():
                best[k] = min(best[k], timer(df, col))
        print(f"{args.rows:,} rows, {args.master}, best of {args.rounds} rounds; results checked equal row for row")
        print(f"{'way':<5} {'case':<20} {'ms':>8} {'ns/row net':>11}")
        for (way, case), t in best.items():
            net = (t - best[(way, "floor")]) * 1e9 / args.rows
            print(f"{way:<5} {case:<20} {t * 1000:>8.0f} {net:>11.1f}")
        for way in ("noop", "agg"):
            floor = best[(way, "floor")]
            ratio = (best[(way, "subject_map_explain")] - floor) / (best[(way, "subject_map")] - floor)
            print(f"{way}: subject_map_explain / subject_map per row (net of the floor) = {ratio:.2f}")
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
