"""Partition balance: how evenly ``{{partition(n, tokens...)}}`` spreads the messages, and the hottest keys."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from subjxform.functions import ColumnOrName, MappingsValue, _column, subject_matches, subject_transform
from subjxform.grammar.destination_syntax import partitions_written
from subjxform.grammar.subject_transform import compile_transform

from ._query import mappings_plan
from ._render import Report, share

Candidate = tuple[str, int, tuple[int, ...]]  # (source, n, the wildcard indexes hashed; none: the whole subject)


def partition_candidates(
    spark: SparkSession, mappings: MappingsValue, server_version: str | None = None
) -> list[Candidate]:
    """(source, n, tokens) of every ``{{partition(n,t...)}}`` in the table's destinations (``tokens`` empty for
    ``{{partition(n)}}``, which hashes the whole subject).

    Args:
        spark: a session with the jar.
        mappings: the mapping table.
        server_version: the nats-server line; None: the session's default.

    Returns:
        The distinct triples, in the table's order.

    Examples:
        >>> partition_candidates(spark, 'orders.*.*: "orders.{{partition(4,2)}}.$1.$2"')  # doctest: +SKIP
        [('orders.*.*', 4, (2,))]
    """
    out: list[Candidate] = []
    for p in mappings_plan(spark, mappings, server_version):
        for d in p["destinations"]:
            for n, tokens in partitions_written(d["destination"], server_version):
                if (p["rule"], n, tokens) not in out:
                    out.append((p["rule"], n, tokens))
    return out


def _destination(n: int, tokens: Sequence[int]) -> str:
    return "{{partition(%s)}}" % ",".join(map(str, [n, *tokens]))


def _candidates(spark, mappings, candidates, source, server_version) -> list[Candidate]:
    """The candidates the call names (see partition_balance), each checked."""
    if mappings is not None:
        # A table's {{partition(0,…)}} sends everything to 0 (or, before 2.12, loses it): nothing to balance.
        found = [c for c in partition_candidates(spark, mappings, server_version) if c[1] >= 1]
        if not found:
            raise ValueError("the mappings have no {{partition(n,...)}} destination")
        return found
    if candidates and all(len(c) == 3 for c in candidates):
        found = [(src, int(n), tuple(int(t) for t in toks)) for src, n, toks in candidates]
    elif source is not None and candidates:
        found = [(source, int(n), tuple(int(t) for t in toks)) for n, toks in candidates]
    else:
        raise ValueError(
            "give mappings (with {{partition(...)}} destinations), or source and (n, tokens) candidates, "
            "or (source, n, tokens) candidates"
        )
    for src, n, toks in found:
        if n < 1:
            raise ValueError(f"partition candidate ({src!r}, {n}, {list(toks)}): the count must be at least 1")
    return found


def _query(messages: DataFrame, subject, candidate: Candidate, top_keys: int, server_version) -> tuple[dict, list]:
    """Messages per partition, and the hottest (key, partition, messages), over the messages the source matches.
    The key is what is hashed: the wildcard tokens joined by '.', or the whole subject."""
    src, n, toks = candidate
    subj = F.col("subject")
    # A source ending in `>` needs a destination that does too: the partition is then the result's first token.
    destination = _destination(n, toks) + (".>" if src.split(".")[-1] == ">" else "")
    partition = F.substring_index(subject_transform(subj, src, destination, server_version=server_version), ".", 1)
    # The tokens the partition hashes, found where the engine's port finds them (index 0: the first token).
    hashed = compile_transform(src, destination, server_version=server_version).tokens[0].hash_positions
    tokens = F.split(subj, "[.]")
    key = subj if hashed is None else F.concat_ws(".", *[F.element_at(tokens, p + 1) for p in hashed])
    matched = (
        messages.select(_column(subject).alias("subject"))
        .where(subject_matches(subj, src))
        .select(partition.cast("int").alias("partition"), key.alias("key"))
    )
    per_key = matched.groupBy("partition", "key").count().cache()
    try:
        per_partition = {
            r["partition"]: r["count"]
            for r in per_key.groupBy("partition").agg(F.sum("count").alias("count")).collect()
        }
        hot = per_key.orderBy(F.desc("count"), "key").limit(top_keys).collect()
    finally:
        per_key.unpersist()
    return per_partition, [(r["key"], r["partition"], r["count"]) for r in hot]


def _facts(candidate: Candidate, per_partition: dict, hot: list) -> dict[str, Any]:
    src, n, toks = candidate
    counts = [per_partition.get(p, 0) for p in range(n)]
    total = sum(counts)
    mean = total / n
    return {
        "label": f"{src} -> {_destination(n, toks)}",
        "source": src,
        "n": n,
        "tokens": toks,
        "counts": counts,
        "total": total,
        "min": min(counts),
        "max": max(counts),
        "skew": max(counts) / mean if mean else float("nan"),
        "hot": hot,
    }


def _text(results: list[dict]) -> list:
    lines = ["Partition balance"]
    for r in results:
        lines.append(
            f"{r['label']}: {r['total']:,} messages, min {r['min']:,}, max {r['max']:,}, skew (max/mean) {r['skew']:.3f}"
        )
        lines.append("  hottest keys: " + ", ".join(f"{k} -> {p} ({share(c, r['total'])})" for k, p, c in r["hot"]))
    return lines


def _chart(results: list[dict]):
    def draw(fig):
        k = len(results)
        for i, r in enumerate(results):
            ax = fig.add_subplot(1, k, i + 1)
            ax.bar(range(r["n"]), r["counts"], color="#2a7ab9")
            ax.axhline(r["total"] / r["n"], color="black", linestyle="--", linewidth=1, label="mean")
            ax.set_title(
                f"partition({','.join(map(str, [r['n'], *r['tokens']]))}) of {r['source']}\n"
                f"skew {r['skew']:.2f}, min {r['min']:,}, max {r['max']:,}",
                fontsize=9,
            )
            ax.set_xlabel("partition")
            if i == 0:
                ax.set_ylabel("messages")
            ax.legend(fontsize=7)

    return draw


def partition_balance(
    messages: DataFrame,
    mappings: MappingsValue | None = None,
    subject: ColumnOrName = "subject",
    *,
    candidates: Sequence[tuple[int, Sequence[int]] | tuple[str, int, Sequence[int]]] | None = None,
    source: str | None = None,
    top_keys: int = 5,
    server_version: str | None = None,
) -> Report:
    """How evenly ``{{partition(n, tokens...)}}`` spreads ``messages``: per candidate, messages per
    partition, min / max / skew (max over mean; 1.0 is perfectly even) and the hottest keys (the
    wildcard tokens hashed, or the whole subject for ``{{partition(n)}}``) with their share. Candidates are
    the ``{{partition(...)}}`` destinations of ``mappings`` (the same place as in :func:`rule_coverage`), or
    ``candidates``: ``(n, tokens)`` pairs over the wildcards of ``source``, or ``(source, n, tokens)``
    triples (no tokens: the whole subject). The partition is computed by ``subject_transform`` with
    nats-server's hash, over the messages ``source`` matches.

    The arguments are ordered as :func:`rule_coverage`'s (messages, mappings, subject). The second used to be
    ``source``: ``partition_balance(df, "orders.*.*", candidates=[(8, [2])])`` still works, with a
    FutureWarning saying to write ``source=``.

    Args:
        messages: the recorded messages.
        mappings: a mapping table whose ``{{partition(...)}}`` destinations are the candidates.
        subject: the subject column (a name or Column).
        candidates: ``(n, tokens)`` pairs (with ``source``) or ``(source, n, tokens)`` triples.
        source: the source filter whose wildcards ``candidates`` pairs hash.
        top_keys: how many of the hottest keys to name per candidate.
        server_version: the nats-server line; None: the session's default.

    Returns:
        The :class:`Report` (``facts``: per candidate the counts, min, max and skew).

    Raises:
        ValueError: neither ``mappings`` nor candidates given, both given, a table without
            ``{{partition(n,...)}}``, or a candidate with a count below 1.

    Examples:
        >>> print(partition_balance(traffic, table))  # doctest: +SKIP
        >>> print(partition_balance(traffic, candidates=[(8, [2]), (8, [1, 2])], source="orders.*.*"))  # doctest: +SKIP
    """
    if not isinstance(subject, str) and isinstance(subject, (list, tuple)):
        raise TypeError(
            "partition_balance(messages, mappings, subject, ...) takes its arguments in rule_coverage's order: "
            "give candidates=[...] and source=... by name"
        )
    if candidates is not None and isinstance(mappings, str) and source is None:
        # The old call, partition_balance(df, source, candidates=...): the second argument was the source.
        warnings.warn(
            "partition_balance(messages, source, candidates=...) is the old order: the second argument is now "
            f"mappings, as in rule_coverage; write source={mappings!r}",
            FutureWarning,
            stacklevel=2,
        )
        source, mappings = mappings, None
    if candidates is not None and mappings is not None:
        raise ValueError("give mappings or candidates, not both")
    spark = messages.sparkSession
    results = []
    rows = []
    for candidate in _candidates(spark, mappings, candidates, source, server_version):
        per_partition, hot = _query(messages, subject, candidate, top_keys, server_version)
        r = _facts(candidate, per_partition, hot)
        results.append(r)
        rows += [(r["label"], p, c) for p, c in enumerate(r["counts"])]
    df = spark.createDataFrame(rows, "candidate STRING, partition INT, messages BIGINT")
    facts = {
        r["label"]: {k: r[k] for k in ("n", "tokens", "counts", "total", "min", "max", "skew", "hot")} for r in results
    }
    return Report("partition balance", df, facts, _text(results), _chart(results))
