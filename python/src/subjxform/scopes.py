"""A message's way through the scopes of a NATS deployment, from the servers' real config files: a hub's
(cluster-scoped) mappings, a leaf node's mappings, a stream's ingress transform and its republish, in the
order the message meets them, with the rules nats-server really follows. Checked against live servers
(a hub and a JetStream leaf, and a gateway, on 127.0.0.1) in ``tests/test_scopes_nats_server.py``:

- a server applies its account's mappings (cluster-scoped destinations by its own ``cluster`` name) to
  what its clients publish and to what arrives over a leaf node connection, in either direction
  (nats-server's parser maps for CLIENT and LEAF connections only): a leaf re-maps what arrives from its
  hub, and a hub re-maps what arrives from a leaf;
- a route or a gateway does not re-map: the server the message entered did;
- an importing account does not apply its own mappings to imported messages (see :mod:`subjxform.accounts`);
- a stream stores what its ``subjects`` take, renamed by its ingress ``subject_transform``; its
  ``republish`` is an internal publish that account mappings do not touch (it reaches the hub over the
  leaf connection, and the hub re-maps it there);
- a message is not sent back over the connection it came from, so a hub never returns a leaf's message
  to that leaf (a chain that declares so is refused).

Loops: a hop on a server that the message already passed with the same subject, and a stream whose
republished subject its own ``subjects`` would take again, are loops: the ``loop`` column says which.

    from subjxform.scopes import server_from_config, publish, forward, stream, chain
    hub, leaf = server_from_config(spark, "hub.conf"), server_from_config(spark, "leaf.conf")
    chain(messages, [publish(hub), forward(leaf, via="leaf"), stream(leaf, orders_stream)]).show()
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from subjxform.accounts import accounts_plan
from subjxform.configs import Config, config_text
from subjxform.functions import ColumnOrName, _column, subject_map_explain, subject_matches
from subjxform.streams import REPUBLISHED_SUBJECT, STORED_SUBJECT, stream_messages, stream_plan

LINKS = ("leaf", "route", "gateway")
# The table of an account without a mappings block: no rules, every subject stays as it is.
NO_MAPPINGS = "{}"


@dataclass(frozen=True)
class Server:
    """One server as its config file places it: ``name`` (``server_name``, else the file's stem), the
    ``mappings`` of the account that handles the messages (its table in nats-server's config syntax; ``"{}"``,
    no rules, when the account has no ``mappings`` block: the server maps nothing there), its
    ``cluster`` name (what cluster-scoped destinations are chosen by), the rest of ``info`` and the
    nats-server line it runs (``server_version``, None: the session's default), which every hop on it
    follows."""

    name: str
    mappings: str
    cluster: str | None
    info: Mapping[str, Any]
    server_version: str | None = None


def server_from_config(
    spark: SparkSession, config: Config, account: str = "$G", name: str | None = None, server_version: str | None = None
) -> Server:
    """Reads a nats-server config (a file: a ``pathlib.Path`` or a str naming one, with ``include`` and
    ``$VARIABLES`` as nats-server reads them; else the config's text: :mod:`subjxform.configs`) as the
    ``accounts_plan`` SQL function checks it; ``account`` is the account whose messages are followed
    (``$G``: the top-level ``mappings``). The server's name: ``name``, else its ``server_name``, else the
    file's stem (``"server"`` for a text without ``server_name``). ``server_version``: the nats-server line
    the server runs.

    Args:
        spark: a session with the jar.
        config: the server's config: a file (a ``pathlib.Path`` or a str naming one) or its text.
        account: the account whose messages are followed; ``"$G"``: the top-level ``mappings``.
        name: the server's name in paths and labels; None: as above.
        server_version: the nats-server line the server runs; None: the session's default.

    Returns:
        The :class:`Server`: its name, the account's mappings (a table in config syntax; ``"{}"`` when the
        account has no ``mappings`` block), its cluster name and the rest of the config's server facts.

    Raises:
        AccountsConfigError: a config nats-server refuses (an unknown field such as a mistyped ``mapings``
            among them, as ``nats-server -t`` refuses it).
        ValueError: no such account in the config.

    Examples:
        >>> hub = server_from_config(spark, "hub.conf")  # doctest: +SKIP
        >>> hub.name, hub.cluster  # doctest: +SKIP
        ('hub', 'hub')
    """
    _, path = config_text(config)
    where = path or "the config"
    plan = accounts_plan(spark, config, server_version)
    info = plan.get("server") or {}
    accounts = {a["name"]: a for a in plan["accounts"]}
    if account not in accounts and account != "$G":
        raise ValueError(f"{where}: no account {account!r} (it has {', '.join(sorted(accounts))})")
    mappings = accounts.get(account, {}).get("mappings") or NO_MAPPINGS
    return Server(
        name or info.get("server_name") or (Path(path).stem if path else "server"),
        mappings,
        info.get("cluster"),
        info,
        server_version,
    )


@dataclass(frozen=True)
class Hop:
    """One step of a chain: made by :func:`publish`, :func:`forward` and :func:`stream`, not by hand."""

    kind: str  # "publish", "forward" or "stream"
    server: Server
    via: str | None = None  # forward: "leaf", "route" or "gateway"
    config: Any = None  # stream: its config (JSON text or dict)

    @property
    def label(self) -> str:
        """How the hop is named in ``path`` and ``loop``: the server's name, ``name (via leaf)`` or
        ``stream orders@store1``."""
        if self.kind == "stream":
            return f"stream {stream_name(self.config)}@{self.server.name}"
        return self.server.name if self.kind == "publish" else f"{self.server.name} (via {self.via})"


def publish(server: Server) -> Hop:
    """A client publishes on ``server``: its account's mappings apply, with its cluster. A chain starts here.

    Args:
        server: where the message is published.

    Returns:
        The first :class:`Hop` of a chain.

    Examples:
        >>> publish(hub)  # doctest: +SKIP
    """
    return Hop("publish", server)


def forward(server: Server, via: str) -> Hop:
    """The message travels to ``server`` over a ``via`` connection (``"leaf"``: re-mapped there;
    ``"route"`` or ``"gateway"``: not).

    Args:
        server: where the message arrives.
        via: the connection: ``"leaf"``, ``"route"`` or ``"gateway"``.

    Returns:
        A :class:`Hop`.

    Raises:
        ValueError: another ``via``.

    Examples:
        >>> forward(store1, via="leaf")  # doctest: +SKIP
    """
    if via not in LINKS:
        raise ValueError(f"via must be one of {LINKS}, not {via!r}")
    return Hop("forward", server, via)


def stream(server: Server, config: Any) -> Hop:
    """A stream on ``server`` (its config as nats uses it): stores, renames by its ingress transform,
    republishes (not re-mapped); the message goes on as the republished subject.

    Args:
        server: the server the stream is on (the message must be there at that point of the chain).
        config: the stream config, a dict or its JSON text (or a file, as :mod:`subjxform.configs` reads it).

    Returns:
        A :class:`Hop`.

    Examples:
        >>> stream(store1, {"name": "orders", "subjects": ["orders.local.*"]})  # doctest: +SKIP
    """
    return Hop("stream", server, config=config)


def stream_name(config: Any) -> str:
    """A stream config's ``name`` (``"?"`` without one), for labels.

    Args:
        config: the stream config, a dict, its JSON text or a file.

    Returns:
        The name.

    Examples:
        >>> stream_name({"name": "orders"})
        'orders'
    """
    return (dict(config) if isinstance(config, Mapping) else json.loads(config_text(config)[0])).get("name", "?")


def _check(hops: Sequence[Hop]) -> None:
    if not hops or hops[0].kind != "publish":
        raise ValueError("a chain starts where a client publishes: publish(server)")
    came_from: str | None = None
    current = hops[0].server.name
    for hop in hops[1:]:
        if hop.kind == "publish":
            raise ValueError("publish(...) only starts a chain")
        if hop.kind == "forward":
            if hop.server.name == current:
                raise ValueError(f"forward to {hop.server.name}: the message is already there")
            if hop.server.name == came_from:
                raise ValueError(
                    f"forward back to {hop.server.name}: nats-server does not send a message back over the "
                    "connection it came from"
                )
            came_from, current = current, hop.server.name
        elif hop.server.name != current:
            raise ValueError(
                f"stream on {hop.server.name}: the message is on {current} at that point (forward it first)"
            )
        else:
            came_from = None  # what goes on is the republished message: a new publish on this server


def chain(
    messages: DataFrame,
    hops: Sequence[Hop],
    subject: ColumnOrName = "subject",
    seed: int | None = None,
    key: ColumnOrName | None = None,
) -> DataFrame:
    """Follows each message of ``messages`` through ``hops``. Adds, per hop ``i`` (1-based): ``hop<i>``
    the subject after it (NULL once the message is dropped, or not taken by a stream), for a mapping
    hop ``hop<i>_rule`` (the rule that applied, NULL for none or for a link that does not re-map), for a
    stream hop ``hop<i>_stored`` (the subject it stores under; the hop's own column is the republished
    subject, what goes on); then ``final`` (the subject at the end), ``path`` (``server: subject`` at
    each hop) and ``loop`` (NULL, or why the message would circulate). Draws as ``subject_map``'s
    (``seed``, ``key``).

    Args:
        messages: the messages.
        hops: the hops, starting with :func:`publish`, then :func:`forward` and :func:`stream` hops.
        subject: the subject column (a name or Column).
        seed: reproducible weighted draws, as in ``subject_map``.
        key: a per-message draw key, as in ``subject_map``.

    Returns:
        ``messages`` with the columns above.

    Raises:
        ValueError: a chain nats-server cannot make (not starting with a publish, a forward back over the
            connection the message came from, a stream on a server the message is not on).
        StreamConfigError: a stream config nats-server rejects, before any data is read.

    Examples:
        >>> chain(msgs, [publish(hub), forward(store1, via="leaf"), stream(store1, orders)]).select("path")  # doctest: +SKIP
    """
    _check(hops)
    spark = messages.sparkSession
    for hop in hops:
        if hop.kind == "stream":
            stream_plan(spark, hop.config, hop.server.server_version)  # refused configs fail before any data is read
    row_id = "_subjxform_row"
    df = messages.withColumn(row_id, F.monotonically_increasing_id())
    current = "_subjxform_current"
    df = df.withColumn(current, _column(subject))
    seen: list[tuple[str, str]] = []  # (server, column) pairs, for loop detection
    path: list[Column] = []
    loops: list[Column] = []

    def visit(server: str, column: str, label: str) -> None:
        for other_server, other in seen:
            if other_server == server:
                loops.append(
                    F.when(
                        F.col(column).isNotNull() & (F.col(column) == F.col(other)),
                        F.concat(F.lit(f"{label}: back at {server} as "), F.col(column)),
                    )
                )
        seen.append((server, column))
        path.append(F.when(F.col(column).isNotNull(), F.concat(F.lit(f"{server}: "), F.col(column))))

    for i, hop in enumerate(hops, start=1):
        out = f"hop{i}"
        server = hop.server
        remaps = hop.kind == "publish" or (hop.kind == "forward" and hop.via == "leaf")
        if hop.kind in ("publish", "forward"):
            if remaps and server.mappings != NO_MAPPINGS:
                why = f"_subjxform_why{i}"
                df = df.withColumn(
                    why,
                    subject_map_explain(
                        F.col(current),
                        server.mappings,
                        F.lit(server.cluster).cast("string"),
                        seed,
                        key,
                        server_version=server.server_version,
                    ),
                )
                df = (
                    df.withColumn(out, F.col(f"{why}.result")).withColumn(f"{out}_rule", F.col(f"{why}.rule")).drop(why)
                )
            else:
                df = df.withColumn(out, F.col(current)).withColumn(f"{out}_rule", F.lit(None).cast("string"))
            visit(server.name, out, hop.label)
        else:
            taken = stream_messages(
                df.where(F.col(current).isNotNull()),
                hop.config,
                subject_col=current,
                server_version=server.server_version,
            ).select(row_id, F.col(STORED_SUBJECT).alias(f"{out}_stored"), F.col(REPUBLISHED_SUBJECT).alias(out))
            df = df.join(taken, row_id, "left")
            plan = stream_plan(spark, hop.config, server.server_version)
            listens = F.lit(False)
            for s in plan["subjects"]:
                listens = listens | subject_matches(F.col(out), s)
            loops.append(
                F.when(
                    F.col(out).isNotNull() & listens,
                    F.concat(F.lit(f"{hop.label}: republished "), F.col(out), F.lit(" is taken by the stream again")),
                )
            )
            path.append(
                F.when(
                    F.col(f"{out}_stored").isNotNull(), F.concat(F.lit(f"{hop.label}: stored "), F.col(f"{out}_stored"))
                )
            )
            visit(server.name, out, hop.label)
        df = df.withColumn(current, F.col(out))
    return (
        df.withColumn("final", F.col(current))
        .withColumn("path", F.filter(F.array(*path), lambda v: v.isNotNull()))
        .withColumn("loop", F.coalesce(*loops) if loops else F.lit(None).cast("string"))
        .drop(row_id, current)
    )
