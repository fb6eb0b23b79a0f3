"""A Spark Connect client that runs every function, every report and the upgrade check of subjxform over a server
started as the docs say, and prints what it found as one JSON object (tests/test_connect_server.py reads it).

    python tests/connect_client.py sc://127.0.0.1:15002

Its own process: PySpark picks classic or Connect columns per process, and a process that already has a
classic session (the test run's) cannot open a Connect one.
"""

from __future__ import annotations

import json
import sys
import warnings

# The traffic and the tables whose answers are known by construction (tests/test_reports.py says how).
from test_reports import NEW_TABLE, TABLE, TRAFFIC_SQL

GROUP = {
    "max_members": 4,
    "members": ["b", "a"],
    "partitioning_filters": [{"filter": "orders.*.*", "partitioning_wildcards": [2]}],
}
NEW_GROUP = dict(GROUP, members=["a", "b", "c"])
UPGRADE_TABLE = 'orders.*.*: "orders.{{partition(0,2)}}.$1.$2"\nbilling.*: "billing.all.$1"\n'
STREAM = {"name": "ORDERS", "subjects": ["orders.>"], "subject_transform": {"src": "orders.*.*", "dest": "o.$2.$1"}}
ACCOUNTS = """accounts {
  A: { mappings: { "orders.*": "a.orders.$1" }, exports: [{ stream: "a.>" }] }
  B: { imports: [{ stream: { account: A, subject: "a.>" }, to: "from-a.>" }] }
}"""
# 400 rules: an error's text must not carry them all (the plan Spark prints with it names the table shortened).
LONG_TABLE = "".join(f'"r{i}.*": "x{i}.$1"\n' for i in range(400)) + '"bad.*": "x.$2"\n'


def _error(run) -> str:
    try:
        run()
    except Exception as e:  # the error a Connect user sees: its type and its whole text
        return f"{type(e).__name__}: {e}"
    return "no error"


def run(spark) -> dict:
    from pyspark.sql import functions as F

    import subjxform
    from subjxform import (
        accounts,
        reports,
        subject_filter_transform,
        subject_map,
        subject_map_explain,
        subject_matches,
        subject_transform,
        try_subject_filter_transform,
        try_subject_transform,
    )
    from subjxform.groups import (
        consumer_group_member,
        consumer_group_partition,
        consumer_group_plan,
        group_balance,
        group_diff,
    )
    from subjxform.mappings import validate_mappings
    from subjxform.streams import stream_messages, stream_plan

    out: dict = {}
    # Every column function in one query.
    df = spark.createDataFrame(
        [("orders.eu.42", "a.*", "b.$2", {"k": "1", "j": "2"}), ("billing.1", "a.*", "b.$1", {"j": "2", "k": "1"})],
        "subject string, src string, dest string, headers map<string,string>",
    )
    row_of = {
        r["subject"]: r.asDict(recursive=True)
        for r in df.select(
            "subject",
            subject_transform("subject", "orders.*.*", "orders.{{partition(4,2)}}.$1.$2").alias("transform"),
            try_subject_transform("subject", F.col("src"), F.col("dest")).alias("try_transform"),
            subject_matches("subject", "orders.>").alias("matches"),
            subject_map("subject", TABLE, key="subject").alias("map"),
            subject_map_explain("subject", TABLE, key="subject").alias("explain"),
            subject_filter_transform("subject", [("orders.*.*", "o.$2"), ("billing.*", "")]).alias("filter_transform"),
            try_subject_filter_transform("subject", [("a.>", "b.>"), ("a.b", "")]).alias("try_filter_transform"),
            consumer_group_partition("subject", GROUP).alias("group_partition"),
            consumer_group_member("subject", GROUP).alias("group_member"),
            # A map key (NATS headers): drawn by its entries, whatever order they were stored in.
            subject_map(
                "subject",
                '"*.*": [{destination: "x.$2", weight: 50%}, {destination: "y.$2", weight: 50%}]',
                key="headers",
            ).alias("map_keyed_by_headers"),
            subject_map(
                "subject",
                '"*.*": [{destination: "x.$2", weight: 50%}, {destination: "y.$2", weight: 50%}]',
                key=F.map_from_arrays(F.array(F.lit("k"), F.lit("j")), F.array(F.lit("1"), F.lit("2"))),
            ).alias("map_keyed_by_same_map"),
        ).collect()
    }
    out["functions"] = row_of
    out["mappings_plan"] = reports.mappings_plan(spark, TABLE)
    out["group_plan"] = consumer_group_plan(spark, GROUP)
    out["stream_plan"] = stream_plan(spark, STREAM)
    out["stream_messages"] = sorted(
        tuple(r) for r in stream_messages(df.select("subject"), STREAM).select("subject", "stored_subject").collect()
    )
    out["accounts_plan_routes"] = len(accounts.accounts_plan(spark, ACCOUNTS)["routes"])
    replayed = accounts.replay(spark.createDataFrame([("orders.1", "A")], "subject string, account string"), ACCOUNTS)
    out["replay"] = sorted(tuple(r) for r in replayed.select("received_by", "received_subject", "via").collect())

    # Every report, and the upgrade check.
    traffic = spark.range(0, 2000, 1, numPartitions=4).selectExpr(f"{TRAFFIC_SQL} AS subject", "id")
    coverage = reports.rule_coverage(traffic, TABLE, key="id")
    diff = reports.config_diff(traffic, TABLE, NEW_TABLE, key="id")
    balance = reports.partition_balance(traffic, TABLE)
    whole = reports.partition_balance(traffic, 'orders.>: "{{partition(4)}}.orders.>"')
    canary = reports.canary_check(traffic, TABLE, key="id")
    upgrade = reports.server_upgrade(traffic, UPGRADE_TABLE, "2.10", "2.15", key="id")
    groups_traffic = traffic.where("subject LIKE 'orders.%'")
    out["reports"] = {
        "rule_coverage": {"never_fire": coverage.facts["never_fire"], "total": coverage.facts["total"]},
        "config_diff": diff.facts["totals"],
        "partition_balance": [(f["n"], f["total"]) for f in balance.facts.values()],
        "partition_balance_whole_subject": [(f["n"], list(f["tokens"]), f["total"]) for f in whole.facts.values()],
        "canary_check": [(r["configured"], r["rule_messages"]) for r in canary.facts["rows"]],
        "server_upgrade": upgrade.facts["totals"],
        "group_balance": group_balance(groups_traffic, GROUP).facts["taken"],
        "group_diff": group_diff(groups_traffic, GROUP, NEW_GROUP).facts["total"],
    }
    out["report_rows"] = int(coverage.df.count())  # (a Connect 3.5 client counts in numpy)
    out["report_html"] = coverage._repr_html_()

    # What a Connect client cannot do says why; errors name what to fix and leave the table out.
    out["register"] = _error(lambda: subjxform.register(spark))
    out["validate_mappings"] = _error(lambda: validate_mappings(TABLE, spark))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out["bigint_subject"] = _error(lambda: spark.range(1).select(subject_map("id", TABLE)).collect())
    out["long_table_error"] = _error(lambda: df.select(subject_map("subject", LONG_TABLE)).collect())
    spark.conf.set("spark.subjxform.serverVersion", "2.12.x")
    try:
        out["bad_conf"] = _error(lambda: df.select(subject_map("subject", TABLE)).collect())
    finally:
        spark.conf.unset("spark.subjxform.serverVersion")
    return out


def main(url: str) -> None:
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(url).getOrCreate()
    try:
        found = run(spark)
    finally:
        spark.stop()
    print(json.dumps(found, default=str))


if __name__ == "__main__":
    main(sys.argv[1])
