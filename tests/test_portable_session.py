"""In a session without the jar (SUBJXFORM_SPARK_MODE=nojar or nojar-connect: what Databricks serverless and
shared access mode give), the jar path's functions say so in one line and point to subjxform.portable."""

from __future__ import annotations

import pytest

import subjxform
from conftest import HAS_JAR

pytestmark = pytest.mark.skipif(HAS_JAR, reason="what a session without the jar gets")


@pytest.mark.parametrize(
    "call",
    [
        lambda: subjxform.subject_transform("subject", "a.*", "b.$1"),
        lambda: subjxform.subject_map("subject", {"a.*": "b.$1"}),
        lambda: subjxform.subject_matches("subject", "a.>"),
    ],
    ids=["subject_transform", "subject_map", "subject_matches"],
)
def test_the_jar_functions_point_to_the_portable_ones(session, call):
    session.createDataFrame([("a.b",)], ["subject"])  # the session in hand is the active one
    with pytest.raises(RuntimeError) as err:
        call()
    message = str(err.value)
    assert "subjxform.portable" in message and "\n" not in message, message
    assert "jar" in message
