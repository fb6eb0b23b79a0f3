"""Checking a mapping table before running anything."""

from __future__ import annotations

import json
from dataclasses import dataclass

from pyspark.sql import SparkSession

from subjxform.grammar.mapping_table import mappings_text
from subjxform.session import jvm_class


@dataclass(frozen=True)
class MappingProblem:
    """One problem of a mapping table.

    ``rule``: the rule's source subject (None when the text cannot be read at all); ``destination``:
    the entry concerned (None when the problem is the rule's); ``severity``: ``"error"`` (nats-server
    rejects the block; ``message`` is its own message) or ``"warning"`` (e.g. two rules a subject can
    match both: nats-server picks one of them at random at each start).
    """

    rule: str | None
    destination: str | None
    severity: str
    message: str


SERVER_VERSION_CONF = "spark.subjxform.serverVersion"


def validate_mappings(
    mappings: str | dict, spark: SparkSession | None = None, server_version: str | None = None
) -> list[MappingProblem]:
    """Every problem of a mapping table (a str in JSON or nats-server config syntax, or a dict).

    An empty list means ``subject_map`` accepts the table and nothing looks suspicious. The check runs
    in the JVM of ``spark`` (default: the active session), so it is exactly the one ``subject_map`` makes.
    It needs a classic session (under Spark Connect, ``subject_map`` itself reports errors when the
    query is analysed). ``server_version`` (e.g. ``"2.10"``) checks the table as that nats-server line does;
    by default the session conf ``spark.subjxform.serverVersion``, else the newest line.

    Args:
        mappings: the table: a str in JSON or nats-server config syntax, or a dict in the JSON shape.
        spark: a classic session with the jar; None: the active session, else the one this process started.
        server_version: the nats-server line whose checks apply (e.g. ``"2.10"``).

    Returns:
        The problems, errors and warnings, in the table's order; empty when there is none.

    Raises:
        TypeError: a table that is neither a str nor a dict, or a server version that is not a str.
        ValueError: an unsupported server version (the message names the supported lines).
        RuntimeError: no session, a Spark Connect session, or a session without the jar.

    Examples:
        >>> validate_mappings('foo.*: "bar.$2"')  # doctest: +SKIP
        [MappingProblem(rule='foo.*', destination='bar.$2', severity='error', message='Error adding mapping for "foo.*" to "bar.$2" : invalid mapping destination: wildcard index out of range in $2: [2]')]
    """
    text = mappings_text(mappings) if isinstance(mappings, dict) else mappings
    if not isinstance(text, str):
        raise TypeError(f"mappings must be a str or a dict, not {type(mappings).__name__}")
    # The active session is per thread: from another thread, the session this process started.
    session = spark or SparkSession.getActiveSession() or getattr(SparkSession, "_instantiatedSession", None)
    if session is None:
        raise RuntimeError(
            "validate_mappings needs a SparkSession: none is active or started in this process (pass spark=)"
        )
    table = jvm_class(session, "subjxform.config.MappingTable", "validate_mappings")
    version = _server_version(session, server_version, "validate_mappings")
    found = json.loads(table.validateJson(text, version))
    return [MappingProblem(p["rule"], p["destination"], p["severity"], p["message"]) for p in found]


def _server_version(session: SparkSession, server_version: str | None, caller: str):
    """The JVM ServerVersion of ``server_version`` (None: the session's conf, else the newest line)."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import IllegalArgumentException as JvmIllegalArgument

    if server_version is None:
        server_version = session.conf.get(SERVER_VERSION_CONF, None)
    versions = jvm_class(session, "subjxform.engine.ServerVersion", caller)
    if server_version is None:
        return versions.Newest()
    if not isinstance(server_version, str):
        raise TypeError(f"server_version must be a str such as '2.10' (or None), not {type(server_version).__name__}")
    try:
        return versions.parse(server_version)
    except JvmIllegalArgument as e:  # (PySpark's form of the JVM's IllegalArgumentException)
        raise ValueError(str(e).strip()) from None
    except Py4JJavaError as e:
        raise ValueError(str(e.java_exception.getMessage())) from None
