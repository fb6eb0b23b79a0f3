"""What `explain("codegen")` shows a PySpark user: subject_transform compiled into the whole-stage
generated code (the speed of the functions depends on it), for constant and column transforms."""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import pytest
from pyspark.sql import functions as F

# Part of the compatibility suite that runs on every Spark line (scripts/test-lines.sh).
pytestmark = pytest.mark.compat


def codegen_of(df) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        df.explain("codegen")
    return out.getvalue()


@pytest.mark.parametrize(
    "expr",
    [
        "subject_transform(subject, '*.*.>', '$2.$1.>')",
        "subject_transform(subject, src, dest)",
        "try_subject_transform(subject, src, dest)",
    ],
)
def test_subject_transform_is_compiled_into_the_stage(spark, expr):
    assert spark.conf.get("spark.sql.codegen.fallback") == "false"
    # From a range, not local rows: Spark would evaluate a projection of local rows while optimizing.
    df = spark.range(100).selectExpr(
        "concat('orders.', if(id % 2 = 0, 'eu', 'us'), '.', id) AS subject",
        "'*.*.>' AS src",
        "if(id % 3 = 0, '$2.$1.>', '{{wildcard(2)}}.$1.>') AS dest",
    )
    q = df.select(F.expr(expr).alias("out"))
    text = codegen_of(q)
    assert "Found 1 WholeStageCodegen subtrees" in text, text
    assert "subjxform.spark.PerRow.transform(" in text, text
    # and the compiled stage computes the right thing
    got = [r.out for r in q.collect()]
    assert got[:3] == ["eu.orders.0", "us.orders.1", "eu.orders.2"]
