"""Partitioned consumer groups (the orbit.go ``pcgroups`` library, v0.2.2) over recorded traffic: which
partition and member each message gets, how evenly the members are loaded, and what moves when the
group changes.

A group's config is the JSON value of its key in the ``elastic-consumer-groups`` or
``static-consumer-groups`` KV bucket (``nats kv get elastic-consumer-groups ORDERS.workers``), as a str
or a dict. An elastic config has ``partitioning_filters`` (the library writes it always, ``null`` when
empty), a static one ``filters`` (``[]`` when empty). The JVM checks it as the library and nats-server
do (:class:`GroupConfigError` with the library's reason) and computes, per message:

- the partition: for an elastic group what nats-server's sourcing transform
  ``{{Partition(N,<wildcards>)}}.<filter>`` gives it; for a static group the partition number its
  subject starts with;
- the member: as the library's ``GeneratePartitionFilters`` assigns partitions (members de-duplicated,
  sorted, cut to N, blocks of N / members, the remainder round robin; or ``member_mappings``).

Both are NULL where the group does not take the message. The reports, :func:`group_balance` and
:func:`group_diff`, return a :class:`subjxform.reports.Report` (``df``, ``text``, ``facts``, ``chart``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pyspark.errors import PySparkException
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from subjxform._compat import is_column, raise_config_error
from subjxform.functions import ColumnOrName, _call, _column, _server_version, subject_filter_transform
from subjxform.reports._render import Report, Table, share

GroupConfig = str | Mapping[str, Any]

__all__ = [
    "consumer_group_partition",
    "consumer_group_member",
    "consumer_group_plan",
    "group_balance",
    "group_diff",
    "GroupConfigError",
]


class GroupConfigError(ValueError):
    """The library (or nats-server, for what the group would create) refuses this config: its reason."""


def _config(config: GroupConfig | Column) -> Column:
    """A str or dict is a constant config (checked once, when the query is analysed); a Column varies per row."""
    if is_column(config):  # (a Spark Connect Column is another class in PySpark 3.5)
        return config
    if isinstance(config, str):
        return F.lit(config)
    if isinstance(config, Mapping):
        return F.lit(json.dumps(config))
    raise TypeError(f"config must be the group's JSON (a str or a dict) or a Column, not {type(config).__name__}")


def consumer_group_partition(
    subject: ColumnOrName, config: GroupConfig | Column, server_version: str | None = None
) -> Column:
    """The message's partition in the group (INT), NULL where the group does not take it."""
    return _call("consumer_group_partition", _column(subject), _config(config), *_server_version(server_version))


def consumer_group_member(
    subject: ColumnOrName, config: GroupConfig | Column, server_version: str | None = None
) -> Column:
    """The member that gets the message (STRING), NULL where the group does not take it or no member has its
    partition."""
    return _call("consumer_group_member", _column(subject), _config(config), *_server_version(server_version))


def consumer_group_plan(spark, config: GroupConfig, server_version: str | None = None) -> dict:
    """The group checked and laid out: ``kind``, ``bucket``, ``max_members``, ``filters``, ``transforms``
    (an elastic group's sourcing ``src``/``dest``) and ``members`` (``member``, ``partitions``,
    ``filter_subjects``). Raises :class:`GroupConfigError` for a config the library refuses."""
    try:
        # Classic PySpark analyses (and checks) at select(), Spark Connect at first(): both are inside.
        return json.loads(
            spark.range(1)
            .select(_call("consumer_group_plan", _config(config), *_server_version(server_version)))
            .first()[0]
        )
    except PySparkException as e:
        raise_config_error(e, "consumer_group_plan", GroupConfigError)


def _key_column(subject: Column, plan: dict, server_version: str | None) -> Column:
    """What the partition is a hash of (elastic: the partitioning wildcards' tokens, joined by '.'; the whole
    subject for a filter without them), or, in a static group, the subject after its partition token."""
    if plan["kind"] == "static":
        return F.regexp_extract(subject, r"^[^.]*\.(.*)$", 1)
    pairs = []
    for t in plan["transforms"]:
        dest = t["dest"]
        # {{Partition(N,a,b)}}.<filter> -> {{wildcard(a)}}.{{wildcard(b)}}; {{Partition(N)}} hashes the subject
        inside = dest[len("{{Partition(") : dest.index(")}}")].split(",")[1:]
        pairs.append((t["src"], ".".join(f"{{{{wildcard({w})}}}}" for w in inside)))
    return subject_filter_transform(subject, pairs, server_version=server_version)


def _assigned(
    messages: DataFrame, subject: ColumnOrName, config: GroupConfig, plan: dict, server_version: str | None
) -> DataFrame:
    s = _column(subject)
    return messages.select(
        consumer_group_partition(s, config, server_version).alias("partition"),
        consumer_group_member(s, config, server_version).alias("member"),
        _key_column(s, plan, server_version).alias("key"),
    )


def group_balance(
    messages: DataFrame,
    config: GroupConfig,
    subject: ColumnOrName = "subject",
    top_keys: int = 5,
    server_version: str | None = None,
) -> Report:
    """How the group's members would be loaded by ``messages``: per member its partitions, messages, distinct
    keys and share; the skew (the busiest member's messages over the mean of the members with partitions,
    1.0 is perfectly even); the hottest keys with their partition and member; and the messages the group
    does not take (no partitioning filter matches) or that no member gets (a group without members)."""
    spark = messages.sparkSession
    plan = consumer_group_plan(spark, config, server_version)
    per_key = (
        _assigned(messages, subject, config, plan, server_version).groupBy("partition", "member", "key").count().cache()
    )
    try:
        per_member = {
            r["member"]: (r["messages"], r["keys"])
            for r in per_key.where(F.col("partition").isNotNull())
            .groupBy("member")
            .agg(F.sum("count").alias("messages"), F.count("key").alias("keys"))
            .collect()
        }
        total_row = per_key.where(F.col("partition").isNull()).agg(F.sum("count")).first()
        assert total_row is not None  # an aggregate without groupBy: one row
        not_taken = total_row[0] or 0
        hot = per_key.where(F.col("partition").isNotNull()).orderBy(F.desc("count"), "key").limit(top_keys).collect()
    finally:
        per_key.unpersist()
    taken = sum(m for m, _ in per_member.values())
    members = [m for m in plan["members"] if m["partitions"]]
    loads = [per_member.get(m["member"], (0, 0))[0] for m in members]
    mean = sum(loads) / len(loads) if loads else 0
    skew = max(loads) / mean if mean else float("nan")
    rows = [(m["member"], len(m["partitions"]), *per_member.get(m["member"], (0, 0))) for m in members]
    # Members beyond max_members get no partition; messages of a partition without a member (no members).
    idle = [m["member"] for m in plan["members"] if not m["partitions"]]
    unowned = per_member.get(None, (0, 0))
    df = spark.createDataFrame(
        [(m, p, n, k, n / taken if taken else None) for m, p, n, k in rows],
        "member STRING, partitions INT, messages BIGINT, distinct_keys BIGINT, share DOUBLE",
    )
    table = Table(
        ["member", "partitions", "messages", "distinct keys", "share"],
        [(m, p, n, k, share(n, taken)) for m, p, n, k in rows],
        [False, True, True, True, True],
    )
    lines: list = [
        f"Consumer group balance ({plan['kind']}, max_members {plan['max_members']}, {len(members)} members "
        f"with partitions)",
        table,
        f"{taken:,} messages taken, {not_taken:,} not taken by any partitioning filter; "
        f"skew (max/mean over members) {skew:.3f}",
    ]
    if unowned[0]:
        lines.append(f"{unowned[0]:,} messages are in partitions no member has")
    if idle:
        lines.append("members without partitions: " + ", ".join(idle))
    lines.append(
        "hottest keys: "
        + ", ".join(
            f"{r['key']} -> partition {r['partition']}, {r['member']} ({share(r['count'], taken)})" for r in hot
        )
    )
    facts = {
        "members": {m: {"partitions": p, "messages": n, "distinct_keys": k} for m, p, n, k in rows},
        "taken": taken,
        "not_taken": not_taken,
        "unowned": unowned[0],
        "skew": skew,
        "idle_members": idle,
        "hot": [(r["key"], r["partition"], r["member"], r["count"]) for r in hot],
    }

    def draw(fig):
        ax = fig.add_subplot(1, 1, 1)
        ax.bar([r[0] for r in rows], [r[2] for r in rows], color="#2a7ab9")
        if mean:
            ax.axhline(mean, color="black", linestyle="--", linewidth=1, label="mean")
            ax.legend(fontsize=7)
        ax.set_title(f"messages per member, skew {skew:.2f}", fontsize=9)
        ax.set_ylabel("messages")

    return Report("consumer group balance", df, facts, lines, draw)


def group_diff(
    messages: DataFrame,
    old_config: GroupConfig,
    new_config: GroupConfig,
    subject: ColumnOrName = "subject",
    server_version: str | None = None,
) -> Report:
    """What changing the group's config (members added or dropped, mappings changed, N changed) moves, over
    ``messages``: the messages and distinct keys whose member changes, and per member how many move in and out."""
    spark = messages.sparkSession
    old_plan = consumer_group_plan(spark, old_config, server_version)
    consumer_group_plan(spark, new_config, server_version)  # (refused before any data is read)
    s = _column(subject)
    both = (
        messages.select(
            consumer_group_member(s, old_config, server_version).alias("old"),
            consumer_group_member(s, new_config, server_version).alias("new"),
            _key_column(s, old_plan, server_version).alias("key"),
        )
        .groupBy("old", "new", "key")
        .count()
        .cache()
    )
    try:
        flows = both.groupBy("old", "new").agg(F.sum("count").alias("messages"), F.count("key").alias("keys")).collect()
        moved_keys = both.where(~F.col("old").eqNullSafe(F.col("new"))).select("key").distinct().count()
        keys = both.select("key").distinct().count()
    finally:
        both.unpersist()
    total = sum(r["messages"] for r in flows)
    moved = sum(r["messages"] for r in flows if r["old"] != r["new"])
    names = sorted(
        {r["old"] for r in flows if r["old"] is not None} | {r["new"] for r in flows if r["new"] is not None}
    )
    per = {m: {"before": 0, "after": 0, "moved_in": 0, "moved_out": 0} for m in names}
    for r in flows:
        if r["old"] is not None:
            per[r["old"]]["before"] += r["messages"]
            if r["old"] != r["new"]:
                per[r["old"]]["moved_out"] += r["messages"]
        if r["new"] is not None:
            per[r["new"]]["after"] += r["messages"]
            if r["old"] != r["new"]:
                per[r["new"]]["moved_in"] += r["messages"]
    rows = [(m, v["before"], v["after"], v["moved_in"], v["moved_out"]) for m, v in per.items()]
    df = spark.createDataFrame(rows, "member STRING, before BIGINT, after BIGINT, moved_in BIGINT, moved_out BIGINT")
    table = Table(["member", "before", "after", "in", "out"], rows, [False, True, True, True, True])
    text: list = [
        "Consumer group change",
        table,
        f"{moved:,} of {total:,} messages ({share(moved, total)}) and {moved_keys:,} of {keys:,} keys change member",
    ]
    facts = {
        "total": total,
        "moved_messages": moved,
        "keys": keys,
        "moved_keys": moved_keys,
        "members": per,
        "flows": {(r["old"], r["new"]): r["messages"] for r in flows},
    }

    def draw(fig):
        ax = fig.add_subplot(1, 1, 1)
        xs = range(len(rows))
        ax.bar([x - 0.2 for x in xs], [r[1] for r in rows], width=0.4, label="before", color="#999999")
        ax.bar([x + 0.2 for x in xs], [r[2] for r in rows], width=0.4, label="after", color="#2a7ab9")
        ax.set_xticks(list(xs), [r[0] for r in rows])
        ax.set_title(f"messages per member: {share(moved, total)} move", fontsize=9)
        ax.legend(fontsize=7)

    return Report("consumer group change", df, facts, text, draw)
