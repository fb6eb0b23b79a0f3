"""Where a nats-server's accounts deliver messages: account mappings, stream and service imports.

:func:`replay` takes recorded traffic (a subject and the account each message was published in) and a
server config's accounts (or account JWTs) and returns every delivery, as nats-server 2.15 makes it::

    from subjxform.accounts import replay
    deliveries = replay(messages, "server.conf", account_col="account")  # a path, or the config's text

- the publishing account's own mappings apply first (``subject_map``); a message they drop is gone;
- the publishing account receives the mapped subject (``via = "publish"``);
- every account importing a stream the publisher exports receives it, renamed by the import's ``to`` or
  ``prefix`` (``via = "stream import"``); the importer's own mappings are **not** applied to it;
- for a service import of the publisher, the exporting account receives the request under the import's
  subject (the import's transform run in reverse), then the exporter's own mappings apply
  (``via = "service import"``).

One hop: a message an account receives through an import is not followed into further imports. The
config is checked by the JVM (the ``accounts_plan`` SQL function) with nats-server's rules before any
data is read, so this works in classic PySpark and Spark Connect alike.
"""

from __future__ import annotations

import base64
import binascii
import json

from pyspark.errors import PySparkException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from subjxform._compat import raise_config_error
from subjxform.configs import Config, config_text, missing_file_note
from subjxform.functions import _call, _map_column, _server_version, subject_matches, subject_transform

RECEIVED_BY = "received_by"
RECEIVED_SUBJECT = "received_subject"
VIA = "via"


class AccountsConfigError(ValueError):
    """nats-server would refuse this config (or these account JWTs): file:line, the entry, its words."""


def accounts_plan(spark: SparkSession, config: Config, server_version: str | None = None) -> dict:
    """The config's accounts checked as nats-server checks them, reduced to what decides deliveries:
    ``accounts`` (``name``, ``id``, ``mappings`` as a mapping table in config syntax, None without one; the
    top-level mappings as ``$G``),
    ``routes`` (one per import: ``kind``, ``importer``, ``exporter``, ``filter``, ``src``/``dest`` or
    ``literal``), ``problems`` (warnings), ``jwt`` and ``server`` (``server_name``, ``cluster``, ``gateway``,
    ``leafnode_remotes``, ``leafnode_listen``, ``jetstream``; None for JWTs).

    ``config``: a nats-server config's text, a path to one (a ``pathlib.Path``, or a str naming an
    existing file: :mod:`subjxform.configs`; its ``include`` files and environment variables are then
    read as nats-server reads them, by the Spark driver), account JWTs (separated by white space), or a
    JWT's claims (as ``nsc describe account --json`` prints them, a str or a dict).

    Args:
        spark: a session with the jar (classic or Spark Connect).
        config: the config, a path, account JWTs or claims, as above.
        server_version: check it as that nats-server line does (e.g. ``"2.10"``); None: the session conf
            ``spark.subjxform.serverVersion``, else the newest line.

    Returns:
        The plan as a dict (the ``accounts_plan`` SQL function's JSON).

    Raises:
        AccountsConfigError: a config nats-server refuses: file:line, the entry and nats-server's words.

    Examples:
        >>> accounts_plan(spark, "server.conf")["routes"]  # doctest: +SKIP
    """
    text, path = config_text(config)
    args = [F.lit(text), F.lit(path).cast("string"), *_server_version(server_version)]
    try:
        # Classic PySpark analyses (and checks) at select(), Spark Connect at first(): both are inside.
        row = spark.range(1).select(_call("accounts_plan", *args)).first()
        assert row is not None  # spark.range(1): one row
        return json.loads(row[0])
    except PySparkException as e:
        raise_config_error(e, "accounts_plan", AccountsConfigError, missing_file_note(config))


def _mapped(subject: Column, account: Column, plan: dict, cluster, seed, server_version) -> Column:
    """The subject after the publishing account's own mappings (unchanged for an account without any)."""
    out: Column | None = None
    for acc in plan["accounts"]:
        if acc["mappings"] is None:
            continue
        mapped = _map_column("subject_map", subject, acc["mappings"], cluster, seed, None, server_version)
        out = (
            F.when(account == F.lit(acc["name"]), mapped)
            if out is None
            else out.when(account == F.lit(acc["name"]), mapped)
        )
    return subject if out is None else out.otherwise(subject)


def _routed(subject: Column, route: dict, server_version: str | None) -> Column:
    """The subject the other account sees: the route's transform, or its fixed subject."""
    if route["literal"] is not None:
        return F.lit(route["literal"])
    return subject_transform(subject, route["src"], route["dest"], server_version=server_version)


def replay(
    df: DataFrame,
    config: Config,
    subject_col: str = "subject",
    account_col: str = "account",
    cluster: str | None = None,
    seed: int | None = None,
    server_version: str | None = None,
) -> DataFrame:
    """Every delivery of each message of ``df`` through the accounts of ``config`` (see the module doc).

    ``df`` holds messages: their subject in ``subject_col`` and the account they were published in in
    ``account_col`` (account names as the config writes them; in JWT mode the ``name`` claim; ``$G``
    for a server without accounts). The result has ``df``'s columns plus ``received_by`` (the account),
    ``received_subject`` and ``via`` (``"publish"``, ``"stream import"``, ``"service import"``): one row
    per delivery, none for a message the publisher's mappings drop. ``cluster`` and ``seed`` are
    ``subject_map``'s (cluster-scoped destinations, reproducible weighted draws); ``cluster`` defaults to
    the config's own ``cluster { name: ... }``, the name the server chooses scoped destinations by.
    Args:
        df: the messages.
        config: the accounts, as :func:`accounts_plan` takes them.
        subject_col: the name of ``df``'s subject column.
        account_col: the name of ``df``'s column of the publishing account.
        cluster: the cluster whose scoped destinations apply; None: the config's own cluster name.
        seed: reproducible weighted draws, as in ``subject_map``.
        server_version: the nats-server line whose rules apply (see :func:`accounts_plan`).

    Returns:
        A DataFrame, one row per delivery: ``df``'s columns, ``received_by``, ``received_subject``, ``via``.

    Raises:
        AccountsConfigError: a config nats-server refuses, before any data is read.

    Examples:
        >>> replay(day, "server.conf").groupBy("received_by", "via").count()  # doctest: +SKIP
    """
    # A plan carries no server version: its mappings and imports are compiled for the line that checked it.
    plan = accounts_plan(df.sparkSession, config, server_version)
    if cluster is None:
        cluster = (plan.get("server") or {}).get("cluster")
    by_name = {a["name"]: a for a in plan["accounts"]}
    account = F.col(account_col)
    mapped_name = "__subjxform_mapped"
    staged = df.withColumn(mapped_name, _mapped(F.col(subject_col), account, plan, cluster, seed, server_version))
    mapped = F.col(mapped_name)

    def delivery(received_by: Column, subject: Column, via: str) -> Column:
        return F.struct(received_by.alias(RECEIVED_BY), subject.alias(RECEIVED_SUBJECT), F.lit(via).alias(VIA))

    candidates = [F.when(mapped.isNotNull(), delivery(account, mapped, "publish"))]
    for route in plan["routes"]:
        if route["kind"] == "stream":
            # The exporter publishes; the importer receives the renamed subject.
            taken = (account == F.lit(route["exporter"])) & subject_matches(mapped, route["filter"])
            candidates.append(
                F.when(
                    taken, delivery(F.lit(route["importer"]), _routed(mapped, route, server_version), "stream import")
                )
            )
        else:
            # The importer publishes on its local subject; the exporter receives the import's subject,
            # which its own mappings then map.
            taken = (account == F.lit(route["importer"])) & subject_matches(mapped, route["filter"])
            seen = _routed(mapped, route, server_version)
            exporter = by_name.get(route["exporter"], {})
            if exporter.get("mappings") is not None:
                seen = _map_column("subject_map", seen, exporter["mappings"], cluster, seed, None, server_version)
            candidates.append(F.when(taken, delivery(F.lit(route["exporter"]), seen, "service import")))

    exploded = staged.withColumn("__subjxform_delivery", F.explode(F.array(*candidates)))
    d = F.col("__subjxform_delivery")
    return exploded.where(d.isNotNull() & d[RECEIVED_SUBJECT].isNotNull()).select(
        *[F.col(c) for c in df.columns],
        d[RECEIVED_BY].alias(RECEIVED_BY),
        d[RECEIVED_SUBJECT].alias(RECEIVED_SUBJECT),
        d[VIA].alias(VIA),
    )


# --- account JWTs ---------------------------------------------------------------------------------------


class JwtSignatureError(ValueError):  # noqa: N818 (the name says what failed)
    """An account JWT whose signature does not verify (or that is not a signed JWT at all)."""


def _b64url(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def _public_key_bytes(key: str) -> bytes:
    """An nkey public key (``O...``, ``A...``): base32 of prefix byte, 32 key bytes and a CRC-16, checked."""
    import nkeys  # the ``jwt`` extra: only signature checks need it

    try:
        raw = base64.b32decode(key + "=" * (-len(key) % 8))
    except (binascii.Error, ValueError) as e:
        raise JwtSignatureError(f"not an nkey public key: {key!r}") from e
    if len(raw) != 35 or not nkeys.valid_public_prefix_byte(raw[0]):
        raise JwtSignatureError(f"not an nkey public key: {key!r}")
    if nkeys.crc16(bytearray(raw[:33])) != int.from_bytes(raw[33:], "little"):
        raise JwtSignatureError(f"nkey public key with a bad checksum: {key!r}")
    return raw[1:33]


def verify_account_jwt(token: str, trusted_keys: list[str] | None = None) -> dict:
    """The claims of an account JWT once its ed25519 signature is checked against its issuer (``iss``).

    Needs the ``nkeys`` package (the ``jwt`` extra).

    Args:
        token: the account JWT.
        trusted_keys: the operator keys (and signing keys) allowed to issue it; when given, an issuer
            outside it is refused too.

    Returns:
        The JWT's claims, a dict.

    Raises:
        JwtSignatureError: not a signed JWT, an algorithm other than ed25519, an untrusted issuer, or a
            signature that does not verify (claims altered after signing).

    Examples:
        >>> verify_account_jwt(token, trusted_keys=[operator_public_key])["name"]  # doctest: +SKIP
        'orders'
    """
    from nacl.exceptions import BadSignatureError
    from nacl.signing import VerifyKey

    parts = token.strip().split(".")
    if len(parts) != 3:
        raise JwtSignatureError("not a JWT: expected three parts separated by '.'")
    try:
        header = json.loads(_b64url(parts[0]))
        claims = json.loads(_b64url(parts[1]))
        signature = _b64url(parts[2])
    except (binascii.Error, ValueError) as e:
        raise JwtSignatureError(f"not a JWT: {e}") from e
    if header.get("alg") not in ("ed25519-nkey", "ed25519"):
        raise JwtSignatureError(f"unsupported JWT algorithm {header.get('alg')!r} (NATS signs with ed25519-nkey)")
    issuer = claims.get("iss", "")
    if trusted_keys is not None and issuer not in trusted_keys:
        raise JwtSignatureError(f"issuer {issuer!r} is not one of the trusted keys")
    try:
        VerifyKey(_public_key_bytes(issuer)).verify(f"{parts[0]}.{parts[1]}".encode(), signature)
    except BadSignatureError as e:
        raise JwtSignatureError(
            f"the signature of account {claims.get('sub')!r} does not verify against {issuer!r}"
        ) from e
    return claims
