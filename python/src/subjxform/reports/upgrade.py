"""Server upgrade: one table on two nats-server lines, the rules whose verdict changes and, per rule, the
messages whose delivered subject changes."""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from subjxform.configs import mappings_argument
from subjxform.functions import ColumnOrName, MappingsValue, _column, subject_map_explain
from subjxform.grammar import server_version as versions
from subjxform.grammar.mapping_table import mappings_text, validate_mappings

from ._query import cluster_column
from ._render import Report, Table, category_bars, cell

UPGRADE_CATEGORIES = ("becomes_invalid", "becomes_valid", "changed", "newly_dropped", "newly_delivered", "unchanged")
COLORS = {
    "becomes_invalid": "#b2182b",
    "becomes_valid": "#1b7837",
    "changed": "#d95f02",
    "newly_dropped": "#e7298a",
    "newly_delivered": "#2a7ab9",
    "unchanged": "#999999",
}
SCHEMA = (
    "category STRING, rule_index INT, rule STRING, messages BIGINT, "
    "example_subject STRING, example_before STRING, example_after STRING, "
    "error_before STRING, error_after STRING"
)


def _errors_by_rule(mappings: MappingsValue, server_version: str) -> dict[str | None, str]:
    """The table's errors on a line, by rule (None: the text as a whole), in nats-server's words. Read by the
    engine's Python port (the same checks and texts as the jar's, kept equal by the differential tests), so the
    report needs no JVM of its own: it runs under Spark Connect as in a classic session."""
    version = versions.parse(server_version)  # an unsupported line: ValueError naming the supported ones
    errors: dict[str | None, str] = {}
    for p in validate_mappings(mappings_text(mappings_argument(mappings)), version):
        if p.is_error:
            errors.setdefault(p.rule, p.message)
    return errors


def _category(before: Column, after: Column) -> Column:
    # A NULL result is a message the server does not deliver: dropped by a weight, or lost (2.10/2.11 crash
    # on `{{partition(0,...)}}`).
    return (
        F.when(before["result"].eqNullSafe(after["result"]), "unchanged")
        .when(after["result"].isNull(), "newly_dropped")
        .when(before["result"].isNull(), "newly_delivered")
        .otherwise("changed")
    )


def _query(messages, mappings, from_version, to_version, accepted, subject, cluster, seed, key) -> list:
    """Per (rule, category): the messages and the smallest example (subject, before, after). A table one line
    refuses is refused whole by that line's server: its messages are counted on the other line alone."""
    cl = cluster_column(cluster, messages)

    def explained(version: str) -> Column:
        return subject_map_explain(subject, mappings, cl, seed, key, version)

    if accepted[from_version] and accepted[to_version]:
        both = messages.select(
            _column(subject).alias("subject"),
            explained(from_version).alias("before"),
            explained(to_version).alias("after"),
        ).where(F.col("before").isNotNull())
        category = _category(F.col("before"), F.col("after"))
        rule_index, rule = F.col("before.rule_index"), F.col("before.rule")
        before_result, after_result = F.col("before.result"), F.col("after.result")
    elif accepted[from_version] or accepted[to_version]:
        valid = from_version if accepted[from_version] else to_version
        both = messages.select(_column(subject).alias("subject"), explained(valid).alias("x")).where(
            F.col("x").isNotNull()
        )
        category = F.lit("becomes_invalid" if valid == from_version else "becomes_valid")
        rule_index, rule = F.col("x.rule_index"), F.col("x.rule")
        nothing = F.lit(None).cast("string")
        before_result, after_result = (
            (F.col("x.result"), nothing) if valid == from_version else (nothing, F.col("x.result"))
        )
    else:
        return []
    rows = (
        both.groupBy(rule_index.alias("rule_index"), rule.alias("rule"), category.alias("category"))
        .agg(
            F.count(F.lit(1)).alias("messages"),
            F.min(F.struct(F.col("subject"), before_result.alias("before"), after_result.alias("after"))).alias(
                "example"
            ),
        )
        .collect()
    )
    return sorted(
        rows,
        key=lambda r: (UPGRADE_CATEGORIES.index(r["category"]), -1 if r["rule_index"] is None else r["rule_index"]),
    )


def _rows(counted: list, before_errors: dict, after_errors: dict) -> list[tuple]:
    """The report's rows (SCHEMA), and a row for each rule whose verdict changes with no message to show."""
    rows = [
        (
            r["category"],
            r["rule_index"],
            r["rule"],
            r["messages"],
            r["example"]["subject"],
            r["example"]["before"],
            r["example"]["after"],
            before_errors.get(r["rule"]),
            after_errors.get(r["rule"]),
        )
        for r in counted
    ]
    shown = {(c, r) for c, _, r, *_ in rows}
    for rule in sorted(set(before_errors) ^ set(after_errors), key=str):
        change = "becomes_valid" if rule in before_errors else "becomes_invalid"
        if (change, rule) not in shown:
            rows.append((change, None, rule, 0, None, None, None, before_errors.get(rule), after_errors.get(rule)))
    return rows


def _facts(rows: list[tuple], before_errors: dict, after_errors: dict) -> dict:
    totals = {c: 0 for c in UPGRADE_CATEGORIES}
    for c, _, _, m, *_ in rows:
        totals[c] += m
    return {
        "total": sum(totals.values()),
        "totals": totals,
        "becomes_invalid": {r: e for r, e in after_errors.items() if r not in before_errors},
        "becomes_valid": {r: e for r, e in before_errors.items() if r not in after_errors},
        "by_rule": {(c, r): m for c, _, r, m, *_ in rows},
    }


def _rule_text(i, r, messages=0) -> str:
    if r is None:  # messages no rule takes, or an error of the table as a whole
        return "(no rule)" if messages else "(the table)"
    return r if i is None else f"{i}: {r}"


def _text(rows: list[tuple], facts: dict, from_version: str, to_version: str) -> list:
    parts: list = [f"Server upgrade {from_version} -> {to_version}: {facts['total']:,} messages"]
    for title, found, verdict in (
        ("become invalid", facts["becomes_invalid"], to_version),
        ("become valid", facts["becomes_valid"], from_version),
    ):
        parts.append(f"rules that {title}:" + (" none" if not found else ""))
        parts += [
            f"  {_rule_text(None, r)}: {verdict} says: {e}" for r, e in sorted(found.items(), key=lambda kv: str(kv[0]))
        ]
    parts.append(
        Table(
            ["change", "rule", "messages", "example"],
            [
                [c, _rule_text(i, r, m), m, "-" if s is None else f"{s} -> {cell(b)} | {cell(a)}"]
                for c, i, r, m, s, b, a, _, _ in rows
            ],
            [False, False, True, False],
        )
    )
    parts.append("totals: " + ", ".join(f"{c} {n:,}" for c, n in facts["totals"].items()))
    return parts


def _chart(facts: dict, from_version: str, to_version: str):
    title = f"nats-server {from_version} -> {to_version} over {facts['total']:,} messages"
    return lambda fig: category_bars(fig.add_subplot(1, 1, 1), facts["totals"], COLORS, title)


def server_upgrade(
    messages: DataFrame,
    mappings: MappingsValue,
    from_version: str,
    to_version: str,
    subject: ColumnOrName = "subject",
    cluster: ColumnOrName | None = None,
    seed: int | None = 0,
    key: ColumnOrName | None = None,
) -> Report:
    """What moving the servers that apply ``mappings`` from nats-server line ``from_version`` to
    ``to_version`` (e.g. ``"2.10"`` to ``"2.15"``) changes: the rules that become invalid or valid (with
    each line's error), and per rule the messages of ``messages`` whose delivered subject changes:
    ``changed``, ``newly_dropped`` (delivered before, not after), ``newly_delivered`` (not delivered before:
    e.g. lost on 2.10/2.11, whose servers crash on ``{{partition(0,...)}}``), ``unchanged``; with an example
    of each. ``cluster``: the column of the cluster each message entered, as in every report. Both lines
    draw with the same ``seed`` (and ``key``), so weighted choices differ only where
    the lines do. A table one line refuses is refused whole by that line's server: its messages are
    counted on the other line, under the rule that takes them there, as ``becomes_valid`` or
    ``becomes_invalid``. Runs in classic PySpark and under Spark Connect alike.

    Args:
        messages: the recorded messages.
        mappings: the mapping table the servers apply, as ``subject_map`` takes it.
        from_version: the line the servers run now, e.g. ``"2.10"``.
        to_version: the line to move to, e.g. ``"2.15"``.
        subject: the subject column, as in :func:`rule_coverage`.
        cluster: the cluster column, as in :func:`rule_coverage`.
        seed: the draws' seed, as in :func:`rule_coverage`.
        key: a per-message draw key, as in :func:`rule_coverage`.

    Returns:
        The :class:`Report` (``facts``: ``becomes_invalid``, ``becomes_valid`` and the count of each change).

    Raises:
        ValueError: an unsupported server version (the message names the supported lines).

    Examples:
        >>> print(server_upgrade(traffic, table, "2.10", "2.15"))  # doctest: +SKIP
    """
    errors = {v: _errors_by_rule(mappings, v) for v in (from_version, to_version)}
    before_errors, after_errors = errors[from_version], errors[to_version]
    accepted = {v: not errors[v] for v in (from_version, to_version)}
    counted = _query(messages, mappings, from_version, to_version, accepted, subject, cluster, seed, key)
    rows = _rows(counted, before_errors, after_errors)
    facts = _facts(rows, before_errors, after_errors)
    df = messages.sparkSession.createDataFrame(rows, SCHEMA)
    return Report(
        "server upgrade",
        df,
        facts,
        _text(rows, facts, from_version, to_version),
        _chart(facts, from_version, to_version),
    )
