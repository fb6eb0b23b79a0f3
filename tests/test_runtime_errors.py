"""What a Python user catches when an argument taken from a column is invalid in some row: a
`pyspark.errors.IllegalArgumentException` (classic and Spark Connect alike; classic PySpark 3.5: see
conftest.row_error) whose text names the function, the parameter, the row's offending value and
nats-server's reason, with no JVM stack trace to read. Tests taking `session` also run in Connect mode (`SUBJXFORM_SPARK_MODE=connect`)."""

from __future__ import annotations

import pyspark
import pytest
from pyspark.sql import functions as F

from conftest import SPARK_MODE, row_error
from subjxform import subject_filter_transform, subject_map, subject_matches, subject_transform

# Part of the compatibility suite that runs on every Spark line (scripts/test-lines.sh).
pytestmark = pytest.mark.compat

# A stream config as the docs page prints it: `republish` as a list.
BAD_CONFIG = '{"name": "ORDERS", "subjects": ["orders.>"], "republish": [{"src": "orders.>", "dest": "r.>"}]}'

# (function, column to build it from the row, the parameter blamed, fragments of the message)
CASES = [
    (
        "subject_transform",
        lambda: subject_transform("subject", F.col("src"), F.col("dest")),
        "`dest`",
        ['from "a.*" to "b.{{split(1,-,x)}}"', "too many arguments passed to the function in {{split(1,-,x)}}"],
    ),
    (
        "subject_transform",
        lambda: subject_transform("subject", F.col("bad_filter"), F.lit("x")),
        "`src`",
        ['from "a..b" to "x"', 'Subject "a..b" is not a valid subject'],
    ),
    (
        "subject_matches",
        lambda: subject_matches("subject", F.col("bad_filter")),
        "`filter`",
        ['Subject "a..b" is not a valid subject'],
    ),
    (
        "subject_map",
        lambda: subject_map("subject", F.concat(F.col("src"), F.lit(": [{destination: b, weight: 101%}]"))),
        "`mappings`",
        ['rule "a.*", destination "b"', "Invalid weight 101 for mapping destination"],
    ),
    (
        "subject_filter_transform",
        lambda: subject_filter_transform(
            "subject", F.array(F.struct(F.col("src").alias("src"), F.col("dest").alias("dest")))
        ),
        "`transforms`",
        ["transforms[0]", "too many arguments passed to the function in {{split(1,-,x)}}"],
    ),
    (
        "mappings_plan",
        lambda: F.call_function("mappings_plan", F.concat(F.col("src"), F.lit(": [{destination: b, weight: 101%}]"))),
        "`mappings`",
        ['rule "a.*", destination "b"', "Invalid weight 101 for mapping destination"],
    ),
    (
        "stream_config_plan",
        lambda: F.call_function("stream_config_plan", F.col("bad_config")),
        "`config`",
        ["republish: invalid JSON: json: cannot unmarshal array", "(nats-server error 10025)"],
    ),
]


@pytest.fixture
def bad_row(session):
    return session.createDataFrame(
        [("a.c", "a.*", "b.{{split(1,-,x)}}", "a..b", BAD_CONFIG)],
        "subject string, src string, dest string, bad_filter string, bad_config string",
    )


@pytest.mark.parametrize("function, build, parameter, fragments", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_an_invalid_value_in_a_row_is_a_pyspark_illegal_argument_error(bad_row, function, build, parameter, fragments):
    condition, sql_state, parameters, text = row_error(bad_row.select(build().alias("out")))
    assert condition == "INVALID_PARAMETER_VALUE.PATTERN"
    # A Spark Connect 3.5 client gets the message alone: no SQL state (condition and parameters are read
    # back from the message). Every other client gets the state.
    assert sql_state == (None if SPARK_MODE == "connect" and pyspark.__version__.startswith("3.") else "22023")
    assert parameters["functionName"] == f"`{function}`"
    assert parameters["parameter"] == parameter
    # Spark Connect appends the server's stack trace after the message, as it does to Spark's own
    # errors (spark.sql.connect.serverStacktrace.enabled); the message alone says it all.
    message = text.split("\n\nJVM stacktrace:")[0]
    assert message.startswith("[INVALID_PARAMETER_VALUE.PATTERN] The value of parameter(s) "), message
    assert f"{parameter} in `{function}` is invalid" in message
    for fragment in fragments:
        assert fragment in message
    assert "\tat " not in message and "Py4J" not in message


def test_a_write_fails_with_the_same_error(bad_row, tmp_path):
    class Write:  # row_error collects; a write is the action here
        def __init__(self, df):
            self.df = df

        def collect(self):
            self.df.write.parquet(str(tmp_path / "out"))

    _, _, _, message = row_error(
        Write(bad_row.select(subject_transform("subject", F.col("src"), F.col("dest")).alias("out")))
    )
    assert "too many arguments passed to the function in {{split(1,-,x)}}" in message


def test_an_invalid_constant_config_built_from_literals_fails_analysis_naming_it(session):
    # Foldable but not a literal when the function is built (a concat): checked at analysis. Spark 3.5 then
    # asks the expression whether it is resolved while printing the plan into the error: it must answer,
    # not throw again (PySpark 3.5 would get a Py4JError in place of the AnalysisException).
    from pyspark.errors import AnalysisException

    table = F.concat(F.lit("a.*: "), F.lit("[{destination: b, weight: 101%}]"))
    with pytest.raises(AnalysisException, match="mappings_plan.*Invalid weight 101"):
        session.range(1).select(F.call_function("mappings_plan", table).alias("plan")).collect()


def test_a_refused_config_is_nats_servers_words_alone_in_every_mode(session):
    """AccountsConfigError and StreamConfigError carry the entry and nats-server's reason, nothing after it:
    a Spark Connect 3.5 client's message also holds the query's plan, which is not part of it."""
    from subjxform.accounts import AccountsConfigError, accounts_plan
    from subjxform.streams import StreamConfigError, stream_plan

    with pytest.raises(AccountsConfigError) as accounts:
        accounts_plan(session, 'accounts { A: { imports: [{stream: {account: B, subject: "x"}}] } }')
    assert str(accounts.value) == 'config:1: accounts.A.imports[0]: "B" account not defined for stream import'
    with pytest.raises(StreamConfigError) as stream:
        stream_plan(session, '{"name": "S", "subjects": ["a..b"]}')
    assert str(stream.value) == "subjects[0]: invalid subject (nats-server error 10052)"
