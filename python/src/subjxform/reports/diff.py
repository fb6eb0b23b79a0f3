"""Config diff: two mapping tables over the same traffic with the same draws, per message a category."""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from subjxform.functions import ColumnOrName, MappingsValue, _column, subject_map_explain

from ._query import cluster_column
from ._render import Report, Table, category_bars, cell

DIFF_CATEGORIES = ("changed", "unchanged", "newly_dropped", "newly_mapped")
COLORS = {"changed": "#d95f02", "unchanged": "#999999", "newly_dropped": "#b2182b", "newly_mapped": "#2a7ab9"}


def _category(old: Column, new: Column) -> Column:
    return (
        F.when(old["result"].eqNullSafe(new["result"]), "unchanged")
        .when(old["result"].isNotNull() & new["result"].isNull(), "newly_dropped")
        # Kept its subject because no rule took it or the rule's remainder did; a destination equal to the
        # subject is a mapping like any other: a rule that changes it is "changed".
        .when(
            ((old["outcome"] == "no_match") | ((old["outcome"] == "unchanged") & old["remainder"]))
            & (new["outcome"] == "mapped"),
            "newly_mapped",
        )
        .otherwise("changed")
    )


def _query(messages: DataFrame, old, new, subject, cluster, seed, key, server_version) -> list[tuple]:
    """Per (old rule, new rule, category): the messages and the smallest example, in the report's order."""
    cl = cluster_column(cluster, messages)
    both = messages.select(
        _column(subject).alias("subject"),
        subject_map_explain(subject, old, cl, seed, key, server_version).alias("old"),
        subject_map_explain(subject, new, cl, seed, key, server_version).alias("new"),
    ).where(F.col("old").isNotNull())
    agg = (
        both.withColumn("category", _category(F.col("old"), F.col("new")))
        .groupBy(
            F.col("old.rule_index").alias("old_rule_index"),
            F.col("old.rule").alias("old_rule"),
            F.col("new.rule_index").alias("new_rule_index"),
            F.col("new.rule").alias("new_rule"),
            "category",
        )
        .agg(
            F.count(F.lit(1)).alias("messages"),
            F.min(
                F.struct("subject", F.col("old.result").alias("old_result"), F.col("new.result").alias("new_result"))
            ).alias("example"),
        )
    )
    rows = sorted(
        agg.collect(),
        key=lambda r: (
            DIFF_CATEGORIES.index(r["category"]),
            -1 if r["old_rule_index"] is None else r["old_rule_index"],
            -1 if r["new_rule_index"] is None else r["new_rule_index"],
        ),
    )
    return [
        (
            r["category"],
            r["old_rule_index"],
            r["old_rule"],
            r["new_rule_index"],
            r["new_rule"],
            r["messages"],
            r["example"]["subject"],
            r["example"]["old_result"],
            r["example"]["new_result"],
        )
        for r in rows
    ]


SCHEMA = (
    "category STRING, old_rule_index INT, old_rule STRING, new_rule_index INT, new_rule STRING, "
    "messages BIGINT, example_subject STRING, example_old STRING, example_new STRING"
)


def _facts(rows: list[tuple]) -> dict:
    totals = {c: 0 for c in DIFF_CATEGORIES}
    for r in rows:
        totals[r[0]] += r[5]
    return {
        "total": sum(totals.values()),
        "totals": totals,
        "by_rules": {(c, o, n): m for c, _, o, _, n, m, *_ in rows},
    }


def _text(rows: list[tuple], facts: dict, seed) -> list:
    return [
        f"Config diff: {facts['total']:,} messages, seed {seed}",
        Table(
            ["category", "old rule", "new rule", "messages", "example"],
            [
                [
                    c,
                    "-" if o is None else f"{oi}: {o}",
                    "-" if n is None else f"{ni}: {n}",
                    m,
                    f"{s} -> {cell(eo)} | {cell(en)}",
                ]
                for c, oi, o, ni, n, m, s, eo, en in rows
            ],
            [False, False, False, True, False],
        ),
        "totals: " + ", ".join(f"{c} {n:,}" for c, n in facts["totals"].items()),
    ]


def _chart(facts: dict, seed):
    title = f"Config diff over {facts['total']:,} messages (seed {seed})"
    return lambda fig: category_bars(fig.add_subplot(1, 1, 1), facts["totals"], COLORS, title)


def config_diff(
    messages: DataFrame,
    old: MappingsValue,
    new: MappingsValue,
    subject: ColumnOrName = "subject",
    cluster: ColumnOrName | None = None,
    seed: int | None = 0,
    key: ColumnOrName | None = None,
    server_version: str | None = None,
) -> Report:
    """``old`` and ``new`` mapping tables over the same messages with the same ``seed``: per message, both
    explanations, and a category: ``unchanged`` (the same result), ``newly_dropped`` (delivered before,
    dropped now), ``newly_mapped`` (kept its subject before, mapped now) or ``changed``; counted per
    (old rule, new rule, category) with an example of each.

    Weighted draws: with ``key`` (e.g. a message id) each message's draw is a pure function of (seed,
    key, rule), so a rule that both tables share draws alike for every message and only real changes
    show. Without it each table draws from its own seeded random source in row order, and a table that
    adds or removes a weighted rule shifts the draws of the rows after it: changes of weighted
    destinations that are only a different draw. ``cluster``: the column of the cluster each message
    entered (a name or a Column), as in every report.

    Args:
        messages: the recorded messages.
        old: the table deployed now, as ``subject_map`` takes it.
        new: the table to deploy.
        subject: the subject column, as in :func:`rule_coverage`.
        cluster: the cluster column, as in :func:`rule_coverage`.
        seed: the draws' seed, as in :func:`rule_coverage`.
        key: a per-message draw key, as in :func:`rule_coverage`.
        server_version: the nats-server line; None: the session's default.

    Returns:
        The :class:`Report` (``facts``: ``total`` and ``totals``, the count of each category).

    Raises:
        pyspark.errors.AnalysisException: either table nats-server would refuse.

    Examples:
        >>> print(config_diff(traffic, old_table, new_table, key="id"))  # doctest: +SKIP
    """
    rows = _query(messages, old, new, subject, cluster, seed, key, server_version)
    facts = _facts(rows)
    df = messages.sparkSession.createDataFrame(rows, SCHEMA)
    return Report("config diff", df, facts, _text(rows, facts, seed), _chart(facts, seed))
