"""What the reports' queries share: the table's plan, the messages explained by ``subject_map_explain``, and
the reports' ``cluster`` argument. Everything here is a SQL function by name, so classic PySpark and Spark
Connect run it alike."""

from __future__ import annotations

import json

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from subjxform.functions import (
    ColumnOrName,
    MappingsValue,
    _call,
    _column,
    _mappings_text,
    _server_version,
    subject_map_explain,
)


def cluster_column(cluster: ColumnOrName | None, messages: DataFrame) -> Column:
    """The reports' ``cluster``: a column name or a Column (see the package doc); None: no cluster. A str that
    is no column of ``messages`` is taken for what subject_map's ``cluster`` is, a cluster name: said, not run."""
    if cluster is None:
        return F.lit(None).cast("string")
    if isinstance(cluster, str) and cluster not in messages.columns:
        raise ValueError(
            f"cluster={cluster!r} is no column of the messages (they have {', '.join(messages.columns)}): "
            "in the reports cluster names the column holding the cluster each message entered; for "
            f"every message entered in cluster {cluster}, pass F.lit({cluster!r})"
        )
    return _column(cluster, "cluster")


def mappings_plan(spark: SparkSession, mappings: MappingsValue, server_version: str | None = None) -> list[dict]:
    """The table's rules in written order as ``subject_map`` applies them (``mappings_plan`` in SQL):
    ``rule_index``, ``rule``, ``matched_as``, ``destinations`` (``index``, ``destination``, ``weight``,
    ``cluster``) and ``scopes`` (``cluster``, ``remainder``, ``remainder_drops``).

    Args:
        spark: a session with the jar (classic or Spark Connect).
        mappings: the mapping table, as ``subject_map`` takes it (text or dict).
        server_version: the nats-server line whose checks apply; None: the session's default.

    Returns:
        One dict per rule, in written order.

    Raises:
        pyspark.errors.AnalysisException: a table nats-server would refuse.

    Examples:
        >>> mappings_plan(spark, "svc: [{destination: svc.v2, weight: 5%}]")[0]["scopes"]  # doctest: +SKIP
        [{'cluster': None, 'remainder': 95, 'remainder_drops': False}]
    """
    text = _mappings_text(mappings)
    row = spark.range(1).select(_call("mappings_plan", text, *_server_version(server_version)).alias("p")).head()
    assert row is not None  # spark.range(1): one row
    return json.loads(row["p"])


def explained(
    messages: DataFrame,
    subject: ColumnOrName,
    mappings: MappingsValue,
    cluster,
    seed,
    key,
    *extra: Column,
    server_version: str | None = None,
) -> DataFrame:
    """The messages as ``subject`` and ``x``, subject_map_explain's struct, after the ``extra`` columns."""
    # Aliased once: the struct's fields are read from this column, so a row is explained (and drawn) once.
    return messages.select(
        *extra,
        _column(subject).alias("subject"),
        subject_map_explain(subject, mappings, cluster_column(cluster, messages), seed, key, server_version).alias("x"),
    )
