"""What a JetStream stream stores and republishes (ADR-36), over a DataFrame of messages.

A stream applies subject transforms in three places: each ``sources[]`` entry and the ``mirror``
(``filter_subject`` or ``subject_transforms``: filters that may rename), the stream's ingress
``subject_transform`` (renames what matches, keeps the rest) and ``republish`` (a filter that
renames). :func:`stream_messages` reproduces that from the stream's config, the JSON nats uses::

    from subjxform.streams import stream_messages
    stored = stream_messages(messages, config_json, origin_col="stream")

Everything is built from the SQL functions (``stream_config_plan``, ``subject_filter_transform``,
``subject_transform``, ``subject_matches``), so it works in classic PySpark and Spark Connect alike;
the config is checked by the JVM with nats-server's rules before any data is read.
"""

from __future__ import annotations

import functools
import json
import operator
import os
import re
import warnings
from collections.abc import Mapping
from typing import Any, Union

from pyspark.errors import PySparkException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from subjxform._compat import raise_config_error
from subjxform.configs import config_text, missing_file_note
from subjxform.functions import _call, _server_version, subject_filter_transform, subject_matches, subject_transform
from subjxform.grammar import server_version as versions
from subjxform.grammar.subjects import is_nats_space

STORED_SUBJECT = "stored_subject"
REPUBLISHED_SUBJECT = "republished_subject"
EXPLANATION = "explanation"

StreamConfig = Union[str, "os.PathLike[str]", Mapping[str, Any]]

_BUCKET = re.compile(r"^[a-zA-Z0-9_-]+$")  # nats.go's bucket name rule


class StreamConfigError(ValueError):
    """nats-server would reject this stream config; the message names the field and gives its error
    (e.g. ``subjects: stream mirrors can not contain subjects (nats-server error 10034)``)."""


def _config_json(config: StreamConfig) -> str:
    """The stream config's JSON: a dict, a JSON text, or a file (a Path or a str naming one: :mod:`subjxform.configs`)."""
    return config_text(config)[0]


def stream_plan(spark: SparkSession, config: StreamConfig, server_version: str | None = None) -> dict:
    """The config checked as nats-server checks it and reduced to what decides storing and republishing:
    ``subjects``, ``subject_transform``, ``origins`` (each source or the mirror: ``name``, ``field``, its
    ``subject_transforms`` filter list and ``inactive``, why nothing is taken from it, or None) and
    ``republish``, nats-server's defaults applied, and ``applied_as`` (when there are transforms): for each
    field, the server version whose functions build its subjects as the stream's server does (None for a
    republish none does: white space in a literal token, never a valid subject, see
    docs/concepts/server-releases.md).

    Args:
        spark: a session with the jar (classic or Spark Connect).
        config: the stream config: a dict, its JSON text (as ``nats stream info --json`` prints it, or the
            create request), or a file (a ``pathlib.Path``, or a str naming an existing file).
        server_version: check it as that nats-server line or release does (a line such as ``"2.10"``, or a
            release such as ``"2.14.0"``: docs/concepts/server-releases.md); None: the session conf
            ``spark.subjxform.serverVersion``, else the newest line.

    Returns:
        The plan as a dict (the ``stream_config_plan`` SQL function's JSON).

    Raises:
        StreamConfigError: a config nats-server rejects: the field, nats-server's words and error code.

    Examples:
        >>> stream_plan(spark, {"name": "ORDERS"})  # doctest: +SKIP
        {'subjects': ['ORDERS'], 'subject_transform': None, 'origins': [], 'republish': None}
    """
    config_json = _config_json(config)
    version = _server_version(server_version)
    try:
        # Classic PySpark analyses (and checks) at select(), Spark Connect at first(): both are inside.
        query = spark.range(1).select(_call("stream_config_plan", F.lit(config_json), *version))
        row = query.first()
        assert row is not None  # spark.range(1): one row
        return json.loads(row[0])
    except PySparkException as e:
        raise_config_error(e, "stream_config_plan", StreamConfigError, missing_file_note(config))


def stream_messages(
    df: DataFrame,
    config: StreamConfig,
    subject_col: str = "subject",
    origin_col: str | None = None,
    explain: bool = False,
    server_version: str | None = None,
) -> DataFrame:
    """The messages a stream with this config stores, with ``stored_subject`` and ``republished_subject``.

    ``df`` holds messages, their subject in ``subject_col``. ``origin_col`` names the stream each one
    comes from (matched against ``sources[].name`` / ``mirror.name``), NULL for a message published to
    the stream directly; without it every message is a direct publish. Direct publishes are kept when
    they match the stream's ``subjects``; sourced ones when the source's filters take them, renamed by
    its transforms. The stored subject is the ingress-transformed one (unchanged where the ingress
    transform does not match); ``republished_subject`` is the republish transform of the stored
    subject, NULL where it does not match or builds a subject that is not valid (white space, an empty token:
    nats-server from 2.14.1 on suppresses that message, older releases send it broken; `subjxform validate`
    warns of those). A message taken by two sources of the same stream is
    stored twice, as NATS does. The result has ``df``'s columns plus the two new ones.

    ``explain=True`` adds an ``explanation`` struct, why each row is there (the rows and the two subjects
    are the same as without it): ``taken_by`` (``subjects`` for a direct publish, else the origin's field,
    e.g. ``sources[1]`` or ``mirror``), ``origin`` (its stream name), ``filter`` and ``filter_index``
    (the stream subject, or the ``subject_transforms`` entry's ``src``, that took the message),
    ``transform_index`` (the entry whose ``dest`` renamed it, NULL when none did), ``sourced_subject``
    (the subject as it reached the stream), ``ingress_applied`` (whether the ingress
    ``subject_transform`` renamed it), ``stored_subject``, ``republished`` and ``republished_subject``.

    Args:
        df: the messages.
        config: the stream config, as for :func:`stream_plan`.
        subject_col: the name of ``df``'s subject column.
        origin_col: the name of the column naming each message's origin stream (NULL: a direct publish);
            None: every message is a direct publish.
        explain: add the ``explanation`` struct.
        server_version: the nats-server line or release, as for :func:`stream_plan`.

    Returns:
        A DataFrame of the stored messages: ``df``'s columns, ``stored_subject``, ``republished_subject``
        (and ``explanation``).

    Raises:
        StreamConfigError: a config nats-server rejects.
        TypeError: ``explain`` is not a bool.

    Examples:
        >>> stream_messages(archive, {"name": "S", "sources": [{"name": "A"}]}, origin_col="stream")  # doctest: +SKIP
    """
    if not isinstance(explain, bool):
        raise TypeError(f"explain must be True or False, not {type(explain).__name__}: {explain!r}")
    # A plan carries no server version: every transform below is compiled for the line that checked it.
    plan = stream_plan(df.sparkSession, config, server_version)
    # The version whose functions build each field's transforms as the stream's server does (2.10 checks its
    # stream transforms, and every line a republish, only as transforms: `left` there is built as 2.15 builds it).
    applied_as = plan.get("applied_as", {})  # absent: no transforms
    subject = F.col(subject_col)
    parts = []

    if plan["subjects"]:
        direct = F.col(origin_col).isNull() if origin_col else F.lit(True)
        part = df.where(direct & _listens_on(subject, plan["subjects"])).withColumn(STORED_SUBJECT, subject)
        if explain:
            # nats-server refuses stream subjects that overlap: exactly one of them takes the message.
            taking = _first_match(subject, plan["subjects"])
            part = part.withColumn(EXPLANATION, _why_taken("subjects", None, plan["subjects"], taking, None, subject))
        parts.append(part)

    # Without an origin column nothing comes from another stream.
    if origin_col:
        for origin in plan["origins"]:
            if origin.get("inactive"):
                # nats-server accepts such a config and then takes nothing from that stream.
                warnings.warn(origin["inactive"], stacklevel=2)
                continue
            # An empty list takes everything: the same as one ">" filter that keeps the subject.
            pairs = [(t["src"], t["dest"]) for t in origin["subject_transforms"]] or [(">", "")]
            part = (
                df.where(F.col(origin_col) == F.lit(origin["name"]))
                .withColumn(
                    STORED_SUBJECT,
                    subject_filter_transform(
                        subject, pairs, server_version=_stored_as(applied_as, origin["field"], server_version)
                    ),
                )
                .where(F.col(STORED_SUBJECT).isNotNull())
            )
            if explain:
                # A source's (or mirror's) filters do not overlap either (nats-server refuses that), so the
                # entry that took the message is the one that renames it, when it has a destination.
                taking = _first_match(subject, [src or ">" for src, _ in pairs])
                renaming = F.coalesce(
                    *[F.when(taking == i, F.lit(i)) for i, (_, dest) in enumerate(pairs) if dest],
                    F.lit(None).cast("int"),
                )
                part = part.withColumn(
                    EXPLANATION,
                    _why_taken(
                        origin["field"],
                        origin["name"],
                        [src for src, _ in pairs],
                        taking,
                        renaming,
                        F.col(STORED_SUBJECT),
                    ),
                )
            parts.append(part)

    if parts:
        taken = parts[0]
        for p in parts[1:]:
            taken = taken.unionByName(p)
    else:
        taken = df.limit(0).withColumn(STORED_SUBJECT, subject)
        if explain:
            taken = taken.withColumn(
                EXPLANATION, _why_taken("subjects", None, [], F.lit(None).cast("int"), None, subject)
            )

    stored: Column = F.col(STORED_SUBJECT)
    ingress = plan["subject_transform"]
    ingress_applied = F.lit(False)
    if ingress and not _matches_no_subject(ingress["src"]):
        # A one-entry filter list renames as a stream does: a result with an empty token is stored as it
        # is (Core NATS would drop it, so subject_transform gives NULL there); no match keeps the subject.
        renamed = subject_filter_transform(
            stored,
            [(ingress["src"] or ">", ingress["dest"])],  # no source means `>`, as nats-server builds it
            server_version=_stored_as(applied_as, "subject_transform", server_version),
        )
        if explain:
            taken = taken.withColumn(EXPLANATION, F.col(EXPLANATION).withField("ingress_applied", renamed.isNotNull()))
            ingress_applied = F.col(EXPLANATION).getField("ingress_applied")
        taken = taken.withColumn(STORED_SUBJECT, F.coalesce(renamed, stored))
    republish = plan["republish"]
    # nats-server checks a republish only as a transform: a subject it builds with white space is never a valid
    # subject, so nothing is republished (docs/concepts/server-releases.md).
    republished = (
        subject_transform(stored, republish["src"], republish["dest"], server_version=applied_as["republish"])
        if republish and applied_as["republish"] and not _matches_no_subject(republish["src"])
        else F.lit(None).cast("string")
    )
    if republish and versions.resolve(server_version or applied_as.get("republish")).suppresses_reserved_republish:
        # 2.14.10 and 2.15.3 suppress a republish to a reserved destination (a JetStream API or ack subject, a
        # service or gateway reply): nothing is republished
        republished = F.when(~republished.rlike(_RESERVED_DESTINATION), republished)
    taken = taken.withColumn(REPUBLISHED_SUBJECT, republished)
    if explain:
        x = F.col(EXPLANATION)
        taken = taken.withColumn(
            EXPLANATION,
            F.struct(
                *[
                    x.getField(f).alias(f)
                    for f in ("taken_by", "origin", "filter", "filter_index", "transform_index", "sourced_subject")
                ],
                ingress_applied.alias("ingress_applied"),
                stored.alias("stored_subject"),
                F.col(REPUBLISHED_SUBJECT).isNotNull().alias("republished"),
                F.col(REPUBLISHED_SUBJECT).alias("republished_subject"),
            ),
        )
    return taken


# nats-server's isReservedDestination (client.go): a service reply `_R_.`, a gateway reply `_GR_.`/`$GR.`, a JetStream
# subject with a side effect (`$JS.API`, `$JS.ACK`, `$JS.FC`, `$JS.SNAPSHOT`, `$JS.EVENT`, a domain's `$JS.<d>.API`).
_RESERVED_DESTINATION = r"(?s)^(_R_\.|_GR_\..|\$GR\..|\$JS\.(API|ACK|FC|SNAPSHOT|EVENT)(\.|\z)|\$JS\.[^.]*\.API(\.|\z))"


def _matches_no_subject(src: str) -> bool:
    """A transform source with white space in a token: nats-server accepts it where it checks the source only as
    a transform's (a republish on every line, 2.10's ingress transform), and no valid subject matches it
    (StreamConfig.matchesNoSubject): nothing is renamed or republished through it."""
    return any(is_nats_space(c) for c in src)


def _stored_as(applied_as: dict, field: str, server_version: str | None) -> str | None:
    """The version that builds `field`'s stored subjects: the line that checked the config (its
    subject_filter_transform builds a list as that line's stream does, on 2.10 as transforms alone)."""
    return applied_as.get(field, server_version)


def _first_match(subject: Column, filters: list[str]) -> Column:
    """The index of the first of `filters` that `subject` matches (NULL for none): one flat coalesce."""
    return F.coalesce(
        *[F.when(subject_matches(subject, f), F.lit(i)) for i, f in enumerate(filters)], F.lit(None).cast("int")
    )


def _why_taken(
    taken_by: str, origin: str | None, filters: list[str], taking: Column, renaming: Column | None, sourced: Column
) -> Column:
    """The first fields of a stream explanation, for the messages one part of the stream takes: `taking`
    is the index in `filters` of the filter that took them."""
    filter_text = (
        F.element_at(F.array(*[F.lit(f) for f in filters]), taking + 1) if filters else F.lit(None).cast("string")
    )
    return F.struct(
        F.lit(taken_by).alias("taken_by"),
        F.lit(origin).cast("string").alias("origin"),
        filter_text.alias("filter"),
        taking.alias("filter_index"),
        (renaming if renaming is not None else F.lit(None).cast("int")).alias("transform_index"),
        sourced.alias("sourced_subject"),
        F.lit(False).alias("ingress_applied"),
    )


def _listens_on(subject: Column, subjects: list[str]) -> Column:
    """Whether a stream with these `subjects` takes a message published on `subject`.

    One filter-list call over the subjects (compiled once into an index), not an OR of one
    subject_matches per subject: a few hundred subjects made an expression tree deep enough to overflow
    the JVM's stack. nats-server has refused subjects that collide, so the list's overlap check passes,
    except for a subject with a token like `*x`: as a source filter (the list's check) that token matches
    any token, as a stream subject it is a literal. Those rare subjects get a subject_matches each.
    """
    quirky = [s for s in subjects if any(t.startswith("*") and t != "*" for t in s.split("."))]
    plain = [s for s in subjects if s not in quirky]
    clauses = [subject_filter_transform(subject, [(s, "") for s in plain]).isNotNull()] if plain else []
    clauses += [subject_matches(subject, s) for s in quirky]
    return functools.reduce(operator.or_, clauses)


def _check_bucket(bucket: str, what: str) -> None:
    if not isinstance(bucket, str) or not _BUCKET.match(bucket):
        raise ValueError(f"invalid {what} bucket name {bucket!r}: letters, digits, '_' and '-' only")


def kv_source_transform(source_bucket: str, target_bucket: str) -> dict:
    """The transform bucket ``target_bucket`` needs to source bucket ``source_bucket`` (ADR-36).

    Args:
        source_bucket: the KV bucket sourced from.
        target_bucket: the KV bucket that sources it.

    Returns:
        A ``subject_transforms`` entry: ``{"src", "dest"}``.

    Raises:
        ValueError: a bucket name nats.go would refuse (letters, digits, ``_`` and ``-`` only).

    Examples:
        >>> kv_source_transform("A", "B")
        {'src': '$KV.A.>', 'dest': '$KV.B.>'}
    """
    _check_bucket(source_bucket, "source")
    _check_bucket(target_bucket, "target")
    return {"src": f"$KV.{source_bucket}.>", "dest": f"$KV.{target_bucket}.>"}


def kv_source(source_bucket: str, target_bucket: str) -> dict:
    """The ``sources[]`` entry of bucket ``target_bucket``'s stream (``KV_<bucket>``) sourcing ``source_bucket``,
    as the clients write it.

    Args:
        source_bucket: the KV bucket sourced from.
        target_bucket: the KV bucket that sources it.

    Returns:
        The ``sources[]`` entry, with its ``subject_transforms``.

    Raises:
        ValueError: a bucket name nats.go would refuse.

    Examples:
        >>> kv_source("A", "B")
        {'name': 'KV_A', 'subject_transforms': [{'src': '$KV.A.>', 'dest': '$KV.B.>'}]}
    """
    return {"name": f"KV_{source_bucket}", "subject_transforms": [kv_source_transform(source_bucket, target_bucket)]}
