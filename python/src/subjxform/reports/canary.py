"""Canary check: observed against configured share of every weighted destination, with a Wilson interval."""

from __future__ import annotations

import math
from statistics import NormalDist

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from subjxform.functions import ColumnOrName, MappingsValue, _column, subject_transform

from ._query import explained, mappings_plan
from ._render import Report, Table

COLUMNS = (
    "rule_index",
    "rule",
    "cluster",
    "destination_index",
    "destination",
    "messages",
    "rule_messages",
    "observed",
    "configured",
    "low",
    "high",
    "ok",
)
SCHEMA = (
    "rule_index INT, rule STRING, cluster STRING, destination_index INT, destination STRING, "
    "messages BIGINT, rule_messages BIGINT, observed DOUBLE, configured DOUBLE, "
    "low DOUBLE, high DOUBLE, ok BOOLEAN"
)
UNEXPLAINED = -2  # a delivered subject no destination of its rule gives


def wilson_interval(k: int, n: int, confidence: float) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion k/n at ``confidence`` (two-sided).

    Args:
        k: successes.
        n: trials (0 gives the whole interval, 0 to 1).
        confidence: e.g. 0.99.

    Returns:
        ``(low, high)``, within 0 and 1.

    Examples:
        >>> tuple(round(x, 4) for x in wilson_interval(50, 100, 0.95))
        (0.4038, 0.5962)
    """
    if n == 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _delivered_destination(plan: list[dict], server_version) -> Column:
    """The index of the destination that gives the delivered subject, -1 the remainder (kept or dropped),
    UNEXPLAINED none of them."""
    dest_index = F.lit(None).cast("int")
    remainder = F.col("delivered").isNull() | (F.col("delivered") == F.col("subject"))
    for p in plan:
        for d in p["destinations"]:
            gives = subject_transform(
                F.col("subject"), p["rule"], d["destination"], server_version=server_version
            ).eqNullSafe(F.col("delivered"))
            in_scope = (F.col("x.rule_index") == p["rule_index"]) & F.col("x.cluster").eqNullSafe(F.lit(d["cluster"]))
            dest_index = F.when(dest_index.isNull() & in_scope & gives, F.lit(d["index"])).otherwise(dest_index)
    return F.when(dest_index.isNull() & ~remainder, F.lit(UNEXPLAINED)).otherwise(dest_index)


def _query(
    messages: DataFrame, plan, mappings, subject, cluster, seed, key, delivered, server_version
) -> dict[tuple, int]:
    """Messages per (rule, cluster scope, destination index; -1 the remainder)."""
    extra = [] if delivered is None else [_column(delivered, "delivered").alias("delivered")]
    ex = explained(messages, subject, mappings, cluster, seed, key, *extra, server_version=server_version)
    dest_index = F.col("x.destination_index") if delivered is None else _delivered_destination(plan, server_version)
    counts = (
        ex.where(F.col("x.rule_index").isNotNull())
        .groupBy(
            F.col("x.rule_index").alias("rule_index"),
            F.col("x.cluster").alias("scope"),
            dest_index.alias("destination_index"),
        )
        .count()
        .collect()
    )
    seen: dict[tuple, int] = {}
    for r in counts:
        at = (r["rule_index"], r["scope"], -1 if r["destination_index"] is None else r["destination_index"])
        seen[at] = seen.get(at, 0) + r["count"]
    return seen


def _rows(plan: list[dict], seen: dict[tuple, int], confidence: float) -> list[tuple]:
    """A row per destination of each scope whose draw is not certain (COLUMNS); low, high and ok are None
    where the scope had no messages: nothing observed, so no interval and no verdict."""
    rows: list[tuple] = []
    for p in plan:
        for s in p["scopes"]:
            dests = [
                (d["index"], d["destination"], d["weight"]) for d in p["destinations"] if d["cluster"] == s["cluster"]
            ]
            if s["remainder"] > 0:
                dests.append((-1, "(remainder, dropped)" if s["remainder_drops"] else "(remainder)", s["remainder"]))
            if sum(1 for *_, w in dests if w > 0) < 2:
                continue  # certain: nothing to check
            n = sum(seen.get((p["rule_index"], s["cluster"], d), 0) for d, *_ in dests)
            for d, dest, w in dests:
                k = seen.get((p["rule_index"], s["cluster"], d), 0)
                low, high = wilson_interval(k, n, confidence) if n else (None, None)
                ok = low <= w / 100 <= high if n else None
                rows.append(
                    (
                        p["rule_index"],
                        p["rule"],
                        s["cluster"],
                        None if d < 0 else d,
                        dest,
                        k,
                        n,
                        k / n if n else None,
                        w / 100,
                        low,
                        high,
                        ok,
                    )
                )
    return rows


def _facts(rows: list[tuple], seen: dict[tuple, int]) -> dict:
    return {
        "rows": [dict(zip(COLUMNS, r)) for r in rows],
        "all_ok": all(r[11] is not False for r in rows),
        "unchecked": sum(1 for r in rows if r[11] is None),
        "unexplained": sum(n for (_, _, d), n in seen.items() if d == UNEXPLAINED),
    }


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.2f}%"


def _text(rows: list[tuple], facts: dict, confidence: float) -> list:
    if not rows:
        parts: list = ["Canary check: no weighted destination"]
    else:
        parts = [
            f"Canary check ({100 * confidence:g}% Wilson interval)",
            Table(
                ["rule", "cluster", "destination", "messages", "observed", "configured", "interval", "ok"],
                [
                    [
                        f"{r[0]}: {r[1]}",
                        r[2],
                        r[4],
                        r[5],
                        _pct(r[7]),
                        _pct(r[8]),
                        "-" if r[9] is None else f"{_pct(r[9])} .. {_pct(r[10])}",
                        "no messages" if r[11] is None else r[11],
                    ]
                    for r in rows
                ],
                [False, False, False, True, True, True, True, False],
            ),
        ]
    if facts["unexplained"]:
        parts.append(f"{facts['unexplained']:,} delivered subjects no destination of their rule gives")
    return parts


def _chart(rows: list[tuple], confidence: float):
    checked = [r for r in rows if r[11] is not None]  # a destination without messages has no interval to draw
    if not checked:
        return None

    def draw(fig):
        ax = fig.add_subplot(1, 1, 1)
        labels = [f"{r[4]}" + (f" [{r[2]}]" if r[2] else "") for r in checked]
        x = list(range(len(checked)))
        obs = [100 * (r[7] or 0) for r in checked]
        err = [[100 * ((r[7] or 0) - r[9]) for r in checked], [100 * (r[10] - (r[7] or 0)) for r in checked]]
        ax.errorbar(
            x, obs, yerr=err, fmt="o", color="#d95f02", capsize=4, label=f"observed ({100 * confidence:g}% interval)"
        )
        ax.scatter(x, [100 * r[8] for r in checked], marker="_", s=400, color="black", label="configured")
        ax.set_xticks(x)
        ax.set_xticklabels(labels, fontsize=8, rotation=15)
        ax.set_ylabel("% of the rule's messages")
        ax.set_yscale("symlog", linthresh=1)
        bad = sum(1 for r in checked if not r[11])
        ax.set_title(f"Canary check: {len(checked) - bad} of {len(checked)} destinations within the interval")
        ax.legend(fontsize=8)

    return draw


def canary_check(
    messages: DataFrame,
    mappings: MappingsValue,
    subject: ColumnOrName = "subject",
    cluster: ColumnOrName | None = None,
    seed: int | None = 0,
    key: ColumnOrName | None = None,
    confidence: float = 0.99,
    delivered: ColumnOrName | None = None,
    server_version: str | None = None,
) -> Report:
    """Observed against configured share of every weighted destination (a rule scope whose draw is not
    certain), per rule and cluster scope: messages, observed share, configured weight and the Wilson
    interval of the observed share at ``confidence``; ``ok`` when the configured share lies inside it.
    The remainder (kept or dropped) is a destination of its own.

    Without ``delivered``, the draws are ``subject_map``'s (with ``seed``): a check of the table itself.
    With ``delivered`` (a column: the subject a server actually delivered for each message, NULL when it
    was dropped), each message is attributed to the destination that gives that subject: a check of
    recorded traffic against the configured weights. ``cluster``: the column of the cluster each message
    entered (a name or a Column), as in every report: each cluster scope is checked on its own messages.

    Args:
        messages: the recorded messages.
        mappings: the mapping table, as ``subject_map`` takes it.
        subject: the subject column, as in :func:`rule_coverage`.
        cluster: the cluster column, as in :func:`rule_coverage`.
        seed: the draws' seed, as in :func:`rule_coverage`.
        key: a per-message draw key, as in :func:`rule_coverage`.
        confidence: the Wilson interval's confidence.
        delivered: the column of the subject a server delivered for each message (NULL: dropped).
        server_version: the nats-server line; None: the session's default.

    Returns:
        The :class:`Report` (``facts``: ``rows``, each destination's observed share, interval and ``ok``; ``all_ok``).

    Raises:
        pyspark.errors.AnalysisException: a table nats-server would refuse.

    Examples:
        >>> print(canary_check(traffic, table, key="id"))  # doctest: +SKIP
    """
    spark = messages.sparkSession
    plan = mappings_plan(spark, mappings, server_version)
    seen = _query(messages, plan, mappings, subject, cluster, seed, key, delivered, server_version)
    rows = _rows(plan, seen, confidence)
    facts = _facts(rows, seen)
    df = spark.createDataFrame(rows, SCHEMA)
    return Report("canary check", df, facts, _text(rows, facts, confidence), _chart(rows, confidence))
