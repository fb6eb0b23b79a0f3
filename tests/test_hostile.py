"""Hostile and careless input through the Python API (issue 13): what a new user or an attacker tries.

Tests taking `session` also run in Spark Connect mode (`SUBJXFORM_SPARK_MODE=connect`)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading

import pytest
from pyspark.errors import AnalysisException, IllegalArgumentException
from pyspark.sql import functions as F

from conftest import classic_only
from subjxform import subject_filter_transform, subject_map, subject_matches, subject_transform, validate_mappings
from subjxform.streams import StreamConfigError, stream_messages, stream_plan

DEPTH = 12000  # more than the readers' limit (10,000, nats-server's): thousands deep


# --- Item 1: a stream with many subjects --------------------------------------------------------------


def test_stream_messages_with_a_thousand_subjects(session):
    """One filter-list call, not an OR chain a thousand deep (which overflowed the JVM's stack)."""
    subjects = [f"orders.r{i}.>" for i in range(998)] + ["audit.*", "q.*x"]  # `*x` is a literal token here
    config = {"name": "BIG", "subjects": subjects}
    rows = [
        ("orders.r0.a",),
        ("orders.r997.b.c",),
        ("orders.r998.a",),
        ("audit.x",),
        ("audit.x.y",),
        ("q.*x",),
        ("q.y",),
        ("orders.r5",),
    ]
    df = session.createDataFrame(rows, "subject string")
    got = {r.subject for r in stream_messages(df, config).collect()}
    # What subject_matches says, subject by subject (the reference: nats-server's interest matching).
    checks = df.select("subject", *[subject_matches("subject", s).alias(f"m{i}") for i, s in enumerate(subjects[-3:])])
    assert got == {"orders.r0.a", "orders.r997.b.c", "audit.x", "q.*x"}
    assert {r.subject for r in checks.collect() if r.m1 or r.m2} == {"audit.x", "q.*x"}


# --- Item 3: nesting thousands deep -------------------------------------------------------------------


def test_a_deeply_nested_stream_config_is_a_stream_config_error(session):
    deep = '{"name": "S", "subjects": ["a"], "metadata": ' + "[" * DEPTH + "]" * DEPTH + "}"
    with pytest.raises(StreamConfigError, match="nested more than 10000 deep"):
        stream_plan(session, deep)
    with pytest.raises(StreamConfigError, match="line 1"):
        stream_messages(session.createDataFrame([("a",)], "subject string"), deep)


def test_a_deeply_nested_mappings_table_is_an_invalid_parameter_error(session):
    deep = "a: " + "[" * DEPTH + "]" * DEPTH
    with pytest.raises(AnalysisException) as err:
        session.range(1).select(subject_map(F.lit("a"), deep)).collect()
    assert err.value.getCondition() == "INVALID_PARAMETER_VALUE.PATTERN"
    assert "nested more than 10000 deep" in str(err.value)


@classic_only
def test_validate_mappings_of_a_deep_table_reports_it(spark):
    problems = validate_mappings("{\n" + '"a": ' + "[" * DEPTH + "]" * DEPTH + "}", spark)
    assert [p.severity for p in problems] == ["error"]
    assert problems[0].message == "Parse error on line 2: 'lists and maps nested more than 10000 deep'"


# --- Item 4: a small input asking for an enormous subject --------------------------------------------

SLICES = ".".join(["{{slicefromleft(1,1)}}"] * 100)  # a 1 MB token -> 200 MB asked


@classic_only
def test_an_enormous_result_fails_the_query_and_the_session_survives(spark):
    df = spark.range(1).select(F.repeat(F.lit("x"), 1 << 20).alias("s"))
    with pytest.raises(Exception, match="more than the limit of 8388608 bytes"):
        df.select(F.length(subject_transform("s", "*", SLICES))).collect()
    # The engine refused before taking the memory: the session goes on.
    assert spark.range(10).select(F.sum("id")).first()[0] == 45
    runtime = spark._jvm.java.lang.Runtime.getRuntime()
    assert runtime.totalMemory() - runtime.freeMemory() < runtime.maxMemory()


def test_an_enormous_result_is_a_clear_per_row_error(session):
    df = session.range(1).select(F.repeat(F.lit("x"), 1 << 20).alias("s"))
    with pytest.raises(IllegalArgumentException, match="more than the limit of 8388608 bytes"):
        df.select(F.length(subject_transform("s", "*", SLICES))).collect()


def test_an_enormous_result_is_null_in_try(session):
    df = session.range(1).select(F.repeat(F.lit("x"), 1 << 20).alias("s"))
    assert df.select(F.expr(f"try_subject_transform(s, '*', '{SLICES}')").alias("r")).first().r is None


# --- Also: arguments with the wrong type or shape -----------------------------------------------------


@pytest.fixture(params=["true", "false"], ids=["ansi", "no-ansi"])
def ansi(session, request):
    before = session.conf.get("spark.sql.ansi.enabled")
    session.conf.set("spark.sql.ansi.enabled", request.param)
    yield session
    session.conf.set("spark.sql.ansi.enabled", before)


BAD_ARGUMENTS = [
    (lambda: subject_map("s", {"a": "b"}, seed=1.9), TypeError, "seed must be an integer"),
    (lambda: subject_map("s", {"a": "b"}, seed=2.0), TypeError, "seed must be an integer"),
    (lambda: subject_map("s", {"a": "b"}, seed="42"), TypeError, "seed must be an integer"),
    (lambda: subject_map("s", {"a": "b"}, seed="abc"), TypeError, "seed must be an integer"),
    (lambda: subject_map("s", {"a": "b"}, seed=True), TypeError, "seed must be an integer"),
    (lambda: subject_map("s", {"a": "b"}, seed=2**64), ValueError, "seed must fit in a BIGINT"),
    (lambda: subject_map("s", 42), TypeError, "mappings must be a str, a dict or a Column"),
    (lambda: subject_map("s", {"a": "b"}, cluster=7), TypeError, "cluster must be a str"),
    (lambda: subject_transform("s", "a.*", "b.$1", strict="yes"), TypeError, "strict must be True or False"),
    (lambda: subject_transform("s", "a.*", "b.$1", strict=1), TypeError, "strict must be True or False"),
    (lambda: subject_transform("s", "a.*", 5), TypeError, "dest must be a str"),
    (lambda: subject_transform(5, "a.*", "b.$1"), TypeError, "subject must be a column name"),
    (lambda: subject_matches("s", None), TypeError, "filter must be a str"),
    (lambda: subject_filter_transform("s", "a.*"), TypeError, "transforms must be a list"),
    (
        lambda: subject_filter_transform("s", [("a.*",)]),
        ValueError,
        r"transforms\[0\]: a \(src, dest\) pair has 2 items",
    ),
    (lambda: subject_filter_transform("s", [("a", "b", "c")]), ValueError, "has 2 items, not 3"),
    (lambda: subject_filter_transform("s", [{"src": "a", "dst": "b"}]), ValueError, r"unknown key\(s\) \['dst'\]"),
    (lambda: subject_filter_transform("s", ["a.*"]), TypeError, r"transforms\[0\]: a \(src, dest\) pair or"),
    (lambda: subject_filter_transform("s", [("a", 1)]), TypeError, "src and dest must be strings"),
]


@pytest.mark.parametrize("call,error,message", BAD_ARGUMENTS, ids=[m for _, _, m in BAD_ARGUMENTS])
def test_wrong_argument_types_are_python_errors_with_ansi_on_and_off(ansi, call, error, message):
    with pytest.raises(error, match=message):
        ansi.range(1).select(F.lit("a.b").alias("s")).select(call()).collect()


def test_the_right_types_still_work(session):
    df = session.createDataFrame([("a.b",)], "s string")
    row = df.select(
        subject_map("s", {"a.*": "x.$1"}, seed=7).alias("m"),
        subject_transform("s", "a.*", "y.$1", strict=True).alias("t"),
        subject_filter_transform("s", [("a.*", ""), {"src": "b"}]).alias("f"),
    ).first()
    assert (row.m, row.t, row.f) == ("x.b", "y.b", "a.b")


@classic_only
def test_validate_mappings_from_another_thread_uses_the_session_of_the_process(spark):
    result = []
    thread = threading.Thread(target=lambda: result.append(validate_mappings('{"a.*": "b.$2"}')))
    thread.start()
    thread.join()
    assert [p.severity for p in result[0]] == ["error"]


@classic_only
def test_a_session_without_the_jar_says_so():
    """A separate process: one JVM holds one SparkContext."""
    script = textwrap.dedent("""
        from pyspark.sql import SparkSession
        import subjxform
        spark = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
        # configure() on the running session (a notebook's): the same session comes back, still without the jar
        assert subjxform.configure(SparkSession.builder).getOrCreate() is spark
        for call in (lambda: subjxform.validate_mappings("a: b"), lambda: subjxform.register(spark),
                     lambda: subjxform.subject_transform("subject", "a.*", "b.$1")):
            try:
                call()
                print("no error")
            except RuntimeError as e:
                print("RuntimeError:", e)
        spark.stop()
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    lines = [line for line in out.stdout.splitlines() if line.startswith(("RuntimeError", "no error"))]
    assert len(lines) == 3, out.stdout + out.stderr[-2000:]
    for line in lines:
        assert "the subjxform jar is not on this session's classpath" in line, line
        assert "a running session cannot load it" in line and "spark.stop()" in line, line
        assert "use subjxform.portable" in line, line  # where no jar can be loaded at all
        assert "JavaPackage" not in line
    assert (
        "validate_mappings" in lines[0] and "register()" in lines[1] and lines[2].startswith("RuntimeError: subjxform:")
    )
    assert json.dumps(lines)  # printable
