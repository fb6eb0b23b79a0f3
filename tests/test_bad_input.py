"""Bad input, nothing lost: what every kind of bad input gives, with ANSI mode on and off.

`TABLE` is the README's table: each row is run as a Spark SQL query and checked.
`python tests/test_bad_input.py` prints it as markdown.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import pytest
from pyspark.errors import AnalysisException, IllegalArgumentException


@dataclass(frozen=True)
class Row:
    situation: str
    sql: str  # a SELECT list over `t(subject, src, dest)`, one row, see FROM below
    result: str  # "NULL", a value, "false", "analysis error: ..." or "runtime error: ..."
    explanation: str
    # Why the row does not hold yet, when the Spark layer still has to turn the engine's error into its
    # own (the test then expects it to fail, strictly, so that the row is updated when it holds).
    pending: str = ""

    @property
    def is_error(self) -> bool:
        return self.result.startswith(("analysis error", "runtime error"))


# From `range`, not a VALUES list, so that rows are evaluated in tasks (a local relation is evaluated
# by the optimizer on the driver), and not constants (which the optimizer folds).
T = (
    "FROM (SELECT concat('orders.eu.', id + 42) AS subject, IF(id >= 0, 'orders.*.*', '') AS src,"
    " IF(id >= 0, 'x.$2.$1', '') AS dest FROM range(1))"
)
BAD = "'x.{{wildcard(3)}}'"
# Lists 12,000 deep (more than nats-server's limit, Go's JSON depth of 10,000), as a constant.
DEEP = "repeat('[', 12000), repeat(']', 12000)"
# A 1.2 MB token (the subject repeated, its dots made dashes) cut into one-character pieces eight times.
LONG_TOKEN = "translate(repeat(subject, 100000), '.', '-')"
SLICES = "'" + ".".join(["{{slicefromleft(1,1)}}"] * 8) + "'"

TABLE = [
    Row("NULL subject", "subject_transform(NULL, 'a.*', 'b.$1')", "NULL", "any NULL argument gives NULL"),
    Row("NULL src", "subject_transform(subject, NULL, 'b.$1')", "NULL", "the transform is unknown"),
    Row("NULL dest", "subject_transform(subject, 'a.*', CAST(NULL AS STRING))", "NULL", "the transform is unknown"),
    Row(
        "NULL src/dest from a column",
        "subject_transform(subject, IF(subject = '', src, NULL), dest)",
        "NULL",
        "per row, as with constants",
    ),
    Row("NULL strict", "subject_transform(subject, src, dest, CAST(NULL AS BOOLEAN))", "NULL", "the rules are unknown"),
    Row(
        "subject does not match src",
        "subject_transform(subject, 'billing.*', 'x.$1')",
        "NULL",
        "`coalesce(subject_transform(s, src, dest), s)` keeps it unchanged",
    ),
    Row(
        "subject with an empty token",
        "subject_transform('orders..42', 'orders.>', 'x.>')",
        "NULL",
        "not a literal subject",
    ),
    Row("empty subject", "subject_transform('', '>', 'x.>')", "NULL", "not a literal subject"),
    Row(
        "subject with a lone `*` or `>` token",
        "subject_transform('orders.*.42', 'orders.>', 'x.>')",
        "NULL",
        "not a literal subject (nats-server's account mappings would map it)",
    ),
    Row(
        "subject with white space or control characters",
        "subject_transform('a b.\\t\\u0001', '*.*', '$2.$1')",
        "\t\u0001.a b",
        "tokens are bytes between dots: copied as they are",
    ),
    Row(
        "subject with invalid UTF-8 and an empty token",
        "hex(subject_transform(CAST(X'2EFF' AS STRING), '>', 'x.>'))",
        "NULL",
        "an empty first token: not a literal subject",
    ),
    Row(
        "subject with invalid UTF-8 bytes in a token",
        "hex(subject_transform(CAST(X'61FF2E62' AS STRING), '*.*', '$2.$1'))",
        "622E61FF",
        "whole tokens are copied byte for byte",
    ),
    Row(
        "a cut inside a character (`left(1,1)` of `日`, the bytes E6 97 A5)",
        "hex(subject_transform('m.日本', 'm.*', '{{left(1,1)}}.{{slicefromleft(1,2)}}'))",
        "E62EE6972EA5E62E9CAC",
        "split, slice, left and right count bytes, as nats-server: the result holds the bytes it delivers, not "
        "valid UTF-8 (`hex()` shows them)",
    ),
    Row(
        "result with an empty token",
        "subject_transform('a.--', 'a.*', 'x.{{split(1,-)}}')",
        "NULL",
        "nats-server builds it, then drops the message",
    ),
    Row(
        "result with a lone `*` token",
        "subject_transform('a.x-*-y', 'a.*', '{{split(1,-)}}')",
        "x.*.y",
        "nats-server delivers it",
    ),
    Row(
        "non-string subject (INT, BINARY, ...)",
        "subject_transform(42, '*', 'n.$1')",
        "analysis error: UNEXPECTED_INPUT_TYPE ... Parameter `subject` of function `subject_transform` requires the "
        '"STRING" type, however "42" has the type "INT"',
        "cast to its text it would be matched as a subject (a `content` column taken for the subject would map "
        "unchanged): CAST it where its text is the subject; any STRING argument likewise",
    ),
    Row(
        "invalid constant transform",
        f"subject_transform(raise_error('data was read'), 'a.*', {BAD})",
        "analysis error: INVALID_PARAMETER_VALUE.PATTERN ... wildcard index out of range in {{wildcard(3)}}",
        "the query fails before any data is read",
    ),
    Row(
        "invalid constant src",
        "subject_transform(subject, 'a..b', 'x')",
        'analysis error: INVALID_PARAMETER_VALUE.PATTERN ... Subject "a..b" is not a valid subject',
        "names `src`",
    ),
    Row(
        "invalid transform from columns",
        f"subject_transform(subject, src, IF(subject = 'orders.eu.42', {BAD}, dest))",
        'runtime error: INVALID_PARAMETER_VALUE.PATTERN ... from "orders.*.*" to "x.{{wildcard(3)}}"',
        "names the row's transform; in Python a `pyspark.errors.IllegalArgumentException`",
    ),
    Row(
        "transform from columns inside an aggregate function",
        "sum(length(subject_transform(subject, src, dest)))",
        "analysis error: AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION",
        "a row may hold a `{{random(n)}}` destination, so it is nondeterministic like `rand()`: select it first, "
        "then aggregate (GROUP BY it works as it is)",
    ),
    Row(
        "invalid constant transform, `try_`",
        f"try_subject_transform(subject, 'a.*', {BAD})",
        "NULL",
        "Spark's `try_` convention",
    ),
    Row(
        "invalid transform from columns, `try_`",
        f"try_subject_transform(subject, src, IF(subject <> '', {BAD}, dest))",
        "NULL",
        "Spark's `try_` convention",
    ),
    Row(
        "strict transform that drops a wildcard",
        "subject_transform(subject, 'orders.*.*', 'x.$1', true)",
        "analysis error: INVALID_PARAMETER_VALUE.PATTERN ... not using all of the token wildcard(s)",
        "import/export rules",
    ),
    Row(
        "`strict` from a column",
        "subject_transform(subject, src, dest, subject = '')",
        "analysis error: DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
        "it must be a constant",
    ),
    Row("NULL subject, `subject_matches`", "subject_matches(NULL, 'a.>')", "NULL", "any NULL argument gives NULL"),
    Row(
        "subject that is not literal, `subject_matches`",
        "subject_matches('a.*', 'a.*')",
        "false",
        "only literal subjects match",
    ),
    Row(
        "invalid constant filter, `subject_matches`",
        "subject_matches(subject, 'a.>.b')",
        'analysis error: INVALID_PARAMETER_VALUE.PATTERN ... Subject "a.>.b" is not a valid subject',
        "the query fails before any data is read",
    ),
    Row(
        "an unknown named argument",
        "subject_map(subject, 'a b', kee => 1)",
        "analysis error: UNRECOGNIZED_PARAMETER_NAME ... kee",
        "Spark's own error for a named argument no parameter has (the names: see DESCRIBE FUNCTION)",
    ),
    Row(
        "a draw key that is NULL in a row",
        "subject_map('svc', 'svc: [{destination: a, weight: 50%}, "
        "{destination: b, weight: 50%}]', NULL, 7, IF(subject = '', 'k', NULL))",
        "a",
        "a key like any other: every row whose key is NULL draws alike (a NULL constant key is no key)",
    ),
    Row(
        "mappings nested thousands deep",
        f"subject_map(subject, concat('a: ', {DEEP}))",
        "analysis error: INVALID_PARAMETER_VALUE.PATTERN ... line 1: 'lists and maps nested more than 10000 deep'",
        "nats-server's own limit (Go's JSON depth; `nats-server -t` stops there too), named with its line",
    ),
    Row(
        "stream config nested thousands deep",
        f'stream_config_plan(concat(\'{{"name": "S", "x": \', {DEEP}, \'}}\'))',
        "analysis error: INVALID_PARAMETER_VALUE.PATTERN ... config: not valid JSON ... nested more than 10000 deep",
        "the same limit; `StreamConfigError` in Python",
    ),
    Row(
        "result longer than 8 MiB",
        f"length(subject_transform({LONG_TOKEN}, '*', {SLICES}))",
        "runtime error: INVALID_PARAMETER_VALUE ... more than the limit of 8388608 bytes",
        "a small input may ask for an enormous subject: refused before the memory is taken (8 MiB is nats-server's "
        "largest recommended message); the session goes on",
    ),
    Row(
        "result longer than 8 MiB, `try_`",
        f"try_subject_transform({LONG_TOKEN}, '*', {SLICES})",
        "NULL",
        "Spark's `try_` convention",
    ),
]


def markdown() -> str:
    lines = ["| input | ANSI on and off | why |", "| --- | --- | --- |"]
    for r in TABLE:
        shown = r.result.encode("unicode_escape").decode("ascii") if not r.result.isprintable() else r.result
        why = f"{r.explanation} (not yet: {r.pending})" if r.pending else r.explanation
        lines.append(f"| {r.situation} (`{r.sql.replace('|', '&#124;')}`) | {shown.replace('|', '&#124;')} | {why} |")
    return "\n".join(lines)


@pytest.fixture(params=["true", "false"], ids=["ansi", "no-ansi"])
def ansi_spark(spark, request):
    before = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", request.param)
    yield spark
    spark.conf.set("spark.sql.ansi.enabled", before)


@pytest.mark.parametrize("row", TABLE, ids=lambda r: r.situation)
def test_every_row_of_the_bad_input_table(ansi_spark, row, request):
    if row.pending:
        request.applymarker(pytest.mark.xfail(strict=True, reason=row.pending))
    query = f"SELECT {row.sql} AS r {T}"
    if row.result.startswith("analysis error"):
        with pytest.raises(AnalysisException) as err:
            ansi_spark.sql(query)  # analysed here, before any job runs
        for fragment in row.result.removeprefix("analysis error: ").split(" ... "):
            assert fragment in str(err.value)
    elif row.result.startswith("runtime error"):
        df = ansi_spark.sql(query)  # analysis passes: the transform is only known per row
        with pytest.raises(IllegalArgumentException) as err:  # pyspark.errors: no raw Py4JJavaError
            df.collect()
        for fragment in row.result.removeprefix("runtime error: ").split(" ... "):
            assert fragment in str(err.value)
    else:
        value = ansi_spark.sql(query).collect()[0].r
        shown = "NULL" if value is None else str(value).lower() if isinstance(value, bool) else value
        assert shown == row.result


def test_the_table_prints_as_markdown():
    text = markdown()
    assert text.count("\n") == len(TABLE) + 1


if __name__ == "__main__":
    sys.stdout.write(markdown() + "\n")
