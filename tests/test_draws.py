"""Weighted and random draws: reproducible per message with a key, fresh per micro-batch without one,
and named arguments for them (SQL), on every Spark line."""

from __future__ import annotations

import json
import math
import time

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

from conftest import classic_only
from subjxform import subject_map, subject_transform

pytestmark = pytest.mark.compat

CANARY = {
    "orders.*": [{"destination": "orders.v1.$1", "weight": "95%"}, {"destination": "orders.v2.$1", "weight": "5%"}]
}


def within_binomial_bound(hits: int, n: int, p: float, sigmas: float = 5.0) -> bool:
    return abs(hits - n * p) <= sigmas * math.sqrt(n * p * (1 - p))


@classic_only
def test_keyed_shares_pass_a_binomial_test_at_a_million_rows(spark):
    df = spark.range(1_000_000).select(
        F.concat(F.lit("orders."), F.col("id")).alias("subject"), F.col("id").alias("msg_id")
    )
    canary = (
        df.select(subject_map("subject", CANARY, seed=42, key="msg_id").alias("to"))
        .where(F.col("to").startswith("orders.v2."))
        .count()
    )
    assert within_binomial_bound(canary, 1_000_000, 0.05), canary


def test_a_key_gives_each_message_its_destination_whatever_the_partitioning_and_filtering(session):
    rows = [(f"orders.{i}", f"m-{i}") for i in range(2000)]
    df = session.createDataFrame(rows, "subject string, msg_id string")
    routed = lambda d: {
        r.msg_id: r.to
        for r in d.select("msg_id", subject_map("subject", CANARY, seed=7, key="msg_id").alias("to")).collect()
    }
    base = routed(df.repartition(4))
    assert routed(df.repartition(1)) == base
    assert routed(df.repartition(7, "msg_id").where(F.col("msg_id") != "m-3")) == {
        k: v for k, v in base.items() if k != "m-3"
    }
    # the key, not the row, chooses: another seed chooses again
    assert routed(df.select("subject", "msg_id")) == base
    other = {
        r.msg_id: r.to
        for r in df.select("msg_id", subject_map("subject", CANARY, seed=8, key="msg_id").alias("to")).collect()
    }
    assert other != base
    # {{random(n)}} as well
    tokens = lambda d: {
        r.msg_id: r.t
        for r in d.select(
            "msg_id", subject_transform("subject", "*.*", "{{random(1000)}}", key="msg_id").alias("t")
        ).collect()
    }
    assert tokens(df.repartition(3)) == tokens(df.repartition(1))


def test_a_keyed_column_is_deterministic_usable_in_an_aggregate(session):
    df = session.createDataFrame([(f"orders.{i}", i) for i in range(100)], "subject string, id long")
    keyed = df.agg(F.count(subject_map("subject", CANARY, seed=1, key="id")).alias("n"))
    assert keyed.first().n == 100
    with pytest.raises(AnalysisException, match="AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION"):
        df.agg(F.count(subject_map("subject", CANARY, seed=1)).alias("n")).collect()


FIFTY = {"svc": [{"destination": "svc.a", "weight": "50%"}, {"destination": "svc.b", "weight": "50%"}]}


def test_an_unseeded_column_takes_its_seed_once_a_dataframe_collected_twice_draws_alike(session):
    """As Spark's rand(): the seed is chosen when the column is built, so every evaluation of one
    DataFrame (a second action, a rerun task, a recomputed shuffle output) draws the same, in classic
    and Spark Connect mode alike, while another column draws anew."""
    base = session.range(0, 3000, 1, 3).select(F.lit("svc").alias("subject"), "id")
    column = subject_map("subject", FIFTY)
    df = base.select("id", column.alias("to"))
    first = sorted(df.collect())
    assert {r.to for r in first} == {"svc.a", "svc.b"}
    assert sorted(df.collect()) == first
    assert sorted(base.select("id", column.alias("to")).collect()) == first  # the same column, another DataFrame
    assert sorted(base.select("id", subject_map("subject", FIFTY).alias("to")).collect()) != first
    random = base.select("id", subject_transform("subject", "svc", "{{random(1000)}}").alias("t"))
    assert sorted(random.collect()) == sorted(random.collect())


@classic_only
def test_an_unseeded_call_in_sql_takes_one_seed_per_query_hidden_from_the_column_name(spark):
    table = json.dumps(FIFTY)
    df = spark.range(0, 3000, 1, 3).selectExpr("id", f"subject_map('svc', '{table}')")
    assert df.columns[1] == f"subject_map(svc, {table})"
    first = sorted(df.collect())
    assert sorted(df.collect()) == first
    assert sorted(spark.range(0, 3000, 1, 3).selectExpr("id", f"subject_map('svc', '{table}')").collect()) != first
    # grouped by, with the call written twice (it is built twice): one grouping, as before
    counts = spark.range(0, 3000, 1, 3).groupBy(F.expr(f"subject_map('svc', '{table}')").alias("to")).count().collect()
    assert sorted(r.to for r in counts) == ["svc.a", "svc.b"] and sum(r["count"] for r in counts) == 3000


def test_named_arguments_in_sql(session):
    table = json.dumps(CANARY)
    row = session.sql(
        f"SELECT subject_map(key => 'm-1', seed => 42, subject => 'orders.x', mappings => '{table}') AS named, "
        f"subject_map('orders.x', '{table}', NULL, 42, 'm-1') AS positional, "
        "subject_transform('a.b', 'a.*', 'x.$1', strict => true) AS strict_named"
    ).first()
    assert row.named == row.positional and row.named.startswith("orders.v")
    assert row.strict_named == "x.b"


def test_without_a_key_a_seeded_table_draws_afresh_in_every_micro_batch(session, tmp_path):
    """One message per micro-batch, 40 batches, on a 50/50 rule: a seed must not replay the first
    batch's draw in every batch (the batch id is mixed into the seed); a key still decides alone."""
    source = tmp_path / "in"
    source.mkdir()
    for i in range(40):
        (source / f"{i:03d}.json").write_text(json.dumps({"subject": "svc", "msg_id": f"m-{i}"}) + "\n")
    fifty = {"svc": [{"destination": "svc.a", "weight": "50%"}, {"destination": "svc.b", "weight": "50%"}]}
    stream = (
        session.readStream.schema("subject string, msg_id string").option("maxFilesPerTrigger", 1).json(str(source))
    )
    out = stream.select(
        "msg_id",
        subject_map("subject", fifty, seed=42).alias("unkeyed"),
        subject_map("subject", fifty, seed=42, key="msg_id").alias("keyed"),
    )
    name = f"draws_{int(time.time() * 1000)}"
    query = out.writeStream.format("memory").queryName(name).trigger(availableNow=True).start()
    query.awaitTermination(240)
    got = session.sql(f"SELECT * FROM {name}").collect()
    assert len(got) == 40
    assert {r.unkeyed for r in got} == {"svc.a", "svc.b"}  # all alike would have chance 2^-39
    batch = session.createDataFrame([(r.msg_id,) for r in got], "msg_id string").select(
        "msg_id", subject_map(F.lit("svc"), fifty, seed=42, key="msg_id").alias("keyed")
    )
    assert {r.msg_id: r.keyed for r in got} == {r.msg_id: r.keyed for r in batch.collect()}
