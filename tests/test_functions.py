"""The functions end to end, as a PySpark user calls them: F.expr, Spark SQL and the Python API.

Tests taking `session` also run as a Spark Connect client of a server started with the jar
(`SUBJXFORM_SPARK_MODE=connect`, see conftest and scripts/test.sh)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

import subjxform
from conftest import NEEDS_EXTENSION_CONF, classic_only, row_error
from subjxform import subject_matches, subject_transform, try_subject_transform

# Part of the compatibility suite that runs on every Spark line (scripts/test-lines.sh).
pytestmark = pytest.mark.compat


@pytest.fixture
def subjects(session):
    return session.createDataFrame([("a.x",), ("orders.eu.42",), ("other.thing",), (None,)], "subject string")


def test_the_users_line_works_with_the_jar_alone(session, subjects):
    if not NEEDS_EXTENSION_CONF:  # Spark 4: the jar alone (see conftest for PySpark 3.5)
        assert session.conf.get("spark.sql.extensions", None) in (None, "")
    out = subjects.select(F.expr("subject_transform(subject,'a.*','b.<<wildcard(1)>>')").alias("out"))
    assert [r.out for r in out.collect()] == ["b.x", None, None, None]


def test_spark_sql_query(session, subjects):
    subjects.createOrReplaceTempView("messages")
    rows = session.sql(
        """SELECT subject, subject_transform(subject, 'orders.*.*', 'shipments.{{wildcard(2)}}.$1') AS moved
           FROM messages WHERE subject_matches(subject, 'orders.>')"""
    ).collect()
    assert [(r.subject, r.moved) for r in rows] == [("orders.eu.42", "shipments.42.eu")]


def test_python_api_takes_names_or_columns_and_strings_or_columns(session):
    df = session.createDataFrame([("orders.eu.42", "orders.*.*", "x.$2")], "subject string, src string, dest string")
    row = df.select(
        subject_transform("subject", "orders.*.*", "x.$1").alias("by_name"),
        subject_transform(F.col("subject"), F.col("src"), F.col("dest")).alias("by_column"),
        subject_transform("subject", "orders.>", "y.>").alias("fwc"),
        subject_matches("subject", "orders.*.*").alias("matches"),
        subject_matches(F.col("subject"), F.col("src")).alias("matches_column"),
    ).first()
    assert row.asDict() == {
        "by_name": "x.eu",
        "by_column": "x.42",
        "fwc": "y.eu.42",
        "matches": True,
        "matches_column": True,
    }


def test_coalesce_gives_core_nats_unchanged_when_not_matching(subjects):
    out = subjects.select(F.coalesce(subject_transform("subject", "a.*", "b.$1"), F.col("subject")).alias("s"))
    assert [r.s for r in out.collect()] == ["b.x", "orders.eu.42", "other.thing", None]


def test_nulls_give_null(session):
    df = session.createDataFrame([("a.b", None), (None, "a.*")], "subject string, src string")
    out = df.select(
        subject_transform("subject", F.col("src"), "x.$1").alias("t"),
        subject_matches("subject", F.col("src")).alias("m"),
    ).collect()
    assert [(r.t, r.m) for r in out] == [(None, None), (None, None)]
    assert df.select(subject_transform("subject", F.lit(None).cast("string"), "x").alias("t")).first().t is None


def test_invalid_constant_transform_fails_at_analysis_before_reading(session):
    poisoned = session.range(5).select(F.expr("raise_error('the data was read')").cast("string").alias("subject"))
    with pytest.raises(AnalysisException) as err:
        poisoned.select(subject_transform("subject", "a.*", "b.{{wildcard(2)}}")).schema  # analysis only
    message = str(err.value)
    assert "INVALID_PARAMETER_VALUE.PATTERN" in message
    assert "`subject_transform`" in message and "`dest`" in message
    assert "invalid mapping destination: wildcard index out of range in {{wildcard(2)}}" in message


def test_invalid_transform_in_a_row_fails_the_job_naming_it_unless_try(session):
    df = session.createDataFrame(
        [("a.b", "a.*", "b.$1"), ("a.c", "a.*", "b.{{nope(1)}}")], "subject string, src string, dest string"
    )
    _, _, _, message = row_error(
        df.select(subject_transform("subject", F.col("src"), F.col("dest")))
    )  # see test_runtime_errors.py
    assert "unknown function in {{nope(1)}}" in message
    assert '"b.{{nope(1)}}"' in message
    tried = df.select(try_subject_transform("subject", F.col("src"), F.col("dest")).alias("t")).collect()
    assert [r.t for r in tried] == ["b.b", None]


def test_random_and_column_transforms_can_be_grouped_by_like_rand(session):
    # Spark's analyzer pulls Nondeterministic expressions out of a GROUP BY; anything else that is not
    # deterministic there is an internal error, which random and column transforms used to be.
    df = session.range(300).select(
        F.concat(F.lit("a."), (F.col("id") % 7).cast("string")).alias("s"),
        F.lit("a.*").alias("src"),
        F.when(F.col("id") % 2 == 0, F.lit("b.{{random(3)}}")).otherwise(F.lit("c.$1")).alias("dest"),
    )
    draws = {"b.0", "b.1", "b.2"}
    for fn in (subject_transform, try_subject_transform):
        random = {r.k: r["count"] for r in df.groupBy(fn("s", "a.*", "b.{{random(3)}}").alias("k")).count().collect()}
        assert set(random) == draws and sum(random.values()) == 300
        by_row = {
            r.k: r["count"] for r in df.groupBy(fn("s", F.col("src"), F.col("dest")).alias("k")).count().collect()
        }
        renamed = {f"c.{m}": sum(1 for i in range(300) if i % 2 == 1 and i % 7 == m) for m in range(7)}
        assert {k: v for k, v in by_row.items() if k not in draws} == renamed
        assert sum(by_row.values()) == 300
    df.createOrReplaceTempView("grouping_input")
    sql = session.sql(
        "SELECT subject_filter_transform(s, array(named_struct('src', 'a.*', 'dest', 'b.{{random(3)}}'))) AS k, "
        "count(*) AS n FROM grouping_input GROUP BY k"
    ).collect()
    assert {r.k for r in sql} == draws and sum(r.n for r in sql) == 300


def test_strict_mode_is_the_import_export_rule(session):
    df = session.createDataFrame([("a.x.y",)], "subject string")
    assert df.select(subject_transform("subject", "a.*.*", "b.$2.$1", strict=True).alias("t")).first().t == "b.y.x"
    with pytest.raises(AnalysisException, match="not using all of the token wildcard"):
        df.select(subject_transform("subject", "a.*.*", "b.$1", strict=True)).schema
    assert df.select(subject_transform("subject", "a.*.*", "b.$1").alias("t")).first().t == "b.x"


def test_random_destination_draws_in_range(session):
    rows = session.range(300).select(subject_transform(F.lit("a.b"), "a.*", "{{random(4)}}.$1").alias("r")).collect()
    assert {r.r for r in rows} == {"0.b", "1.b", "2.b", "3.b"}


@classic_only
def test_register_on_a_running_session(spark):
    subjxform.register(spark)  # idempotent: the service entry registered them already
    assert spark.sql("SELECT subject_transform('x.y', 'x.*', '$1.z') AS t").first().t == "y.z"


def test_jar_path_and_module_entry_point():
    import subprocess
    import sys

    import pyspark

    path = subjxform.jar_path()
    spark_line = ".".join(pyspark.__version__.split(".")[:2])
    assert Path(path).name.startswith(f"subjxform-spark-{spark_line}_")
    printed = subprocess.run([sys.executable, "-m", "subjxform", "jar"], capture_output=True, text=True, check=True)
    assert printed.stdout.strip() == path


def test_describe_function_documents_usage_and_examples(session):
    text = "\n".join(r[0] for r in session.sql("DESCRIBE FUNCTION EXTENDED subject_transform").collect())
    assert "Usage:" in text and "Examples:" in text and "{{partition(3,1)}}" in text


def test_subject_map_from_python_with_a_dict_a_cluster_column_and_a_seed(session):
    from subjxform import subject_map

    table = {
        "orders.*": "orders.central.{{wildcard(1)}}",
        "foo": [{"destination": "foo.west", "weight": "100%", "cluster": "west"}],
        "svc": [{"destination": "svc.v1", "weight": 50}, {"destination": "svc.v2", "weight": 50}],
    }
    df = session.createDataFrame(
        [("orders.7", None), ("foo", "west"), ("foo", "east")], "subject string, cluster string"
    )
    out = [r.m for r in df.select(subject_map("subject", table, cluster=F.col("cluster")).alias("m")).collect()]
    assert out == ["orders.central.7", "foo.west", "foo"]
    draws = lambda: [
        r.m for r in session.range(50).select(subject_map(F.lit("svc"), table, seed=3).alias("m")).collect()
    ]
    assert draws() == draws() and set(draws()) == {"svc.v1", "svc.v2"}
    with pytest.raises(AnalysisException, match="total weight needs to be <= 100"):
        df.select(subject_map("subject", "a: [{destination: b, weight: 60}, {destination: c, weight: 50}]")).collect()


def test_account_names_the_account_whose_hash_account_functions_give(session):
    # A live 2.15.3 delivered orders.NUmM6cRx.x in account A and orders.b2oh2L6w.y in B for this destination
    # (tests/test_account_functions_nats_server.py); the line names stand for 2.15.1, which knows no such function.
    df = session.createDataFrame([("orders.x",)], "subject string")
    dest = "orders.{{account-hash()}}.$1"
    row = df.select(
        subject_transform("subject", "orders.*", dest, server_version="2.15.3", account="A"),
        subjxform.subject_map("subject", {"orders.*": dest}, server_version="2.15.3", account="B"),
        try_subject_transform("subject", "orders.*", dest, account="A"),
        F.expr(f"subject_transform(subject, 'orders.*', '{dest}', server_version => '2.14.10', account => 'B')"),
    ).head()
    assert list(row) == ["orders.NUmM6cRx.x", "orders.b2oh2L6w.x", None, "orders.b2oh2L6w.x"]
    with pytest.raises(AnalysisException, match="no account was given"):
        df.select(subject_transform("subject", "orders.*", dest, server_version="2.15.3")).collect()
    with pytest.raises(TypeError, match="account must be a str"):
        subject_transform("subject", "orders.*", dest, account=1)  # type: ignore[arg-type]
