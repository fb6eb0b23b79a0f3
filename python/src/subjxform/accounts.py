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
from subjxform.functions import ColumnOrName, _call, _map_column, _server_version, subject_matches, subject_transform

RECEIVED_BY = "received_by"
RECEIVED_SUBJECT = "received_subject"
VIA = "via"
GLOBAL_ACCOUNT = "$G"
# replay's working columns, dropped from its result
PUBLISHER, BY_KEY, MAPPED, DELIVERY = (
    "__subjxform_publisher",
    "__subjxform_by_key",
    "__subjxform_mapped",
    "__subjxform_delivery",
)


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


class _Accounts:
    """The plan's accounts as nats-server knows them (by ``id``: a JWT's public key, a config's name), and how
    a message names the account it was published in: by that id, or by its name (a JWT's ``name`` claim)."""

    def __init__(self, plan: dict):
        self.by_id: dict[str, dict] = {a["id"]: a for a in plan["accounts"]}
        if not plan["jwt"] and GLOBAL_ACCOUNT not in self.by_id:
            # A server with accounts still has its global account, without mappings unless it has top-level ones.
            self.by_id[GLOBAL_ACCOUNT] = {"name": GLOBAL_ACCOUNT, "id": GLOBAL_ACCOUNT, "mappings": None}
        self.ids_of: dict[str, list[str]] = {}
        for a in self.by_id.values():
            self.ids_of.setdefault(a["name"], []).append(a["id"])

    def known(self) -> str:
        return ", ".join(a["id"] if a["name"] == a["id"] else f"{a['name']} ({a['id']})" for a in self.by_id.values())

    def publisher(self, account: Column, where: str) -> Column:
        """The id of the account a message names (its id or its name); an error naming any other."""
        out = None
        for value, ids in [(i, [i]) for i in self.by_id] + [
            (name, ids) for name, ids in self.ids_of.items() if name not in self.by_id
        ]:
            if len(ids) == 1:
                then = F.lit(ids[0])
            else:
                then = F.raise_error(
                    F.lit(
                        f"{where}: account name {value!r} names {len(ids)} accounts ({', '.join(ids)}): "
                        "name them by public key"
                    )
                )
            out = F.when(account == F.lit(value), then) if out is None else out.when(account == F.lit(value), then)
        unknown = F.raise_error(
            F.concat(
                F.lit(f"{where}: account "),
                F.coalesce(F.concat(F.lit("'"), account.cast("string"), F.lit("'")), F.lit("NULL")),
                F.lit(
                    f" is not an account of the config (its accounts: {self.known()}): name an account by its "
                    "public key or its JWT's name, or leave its messages out"
                ),
            )
        )
        assert out is not None  # every plan has an account (a config without any: $G)
        return out.otherwise(unknown)

    def named_by_key(self, account: Column) -> Column:
        """Whether a message names its account by public key (then every account it reaches is named so)."""
        keys = [i for i, a in self.by_id.items() if a["name"] != i]
        return account.isin(*keys) if keys else F.lit(False)

    def name(self, account_id: str, by_key: Column) -> Column:
        a = self.by_id[account_id]
        return F.lit(a["name"]) if a["name"] == account_id else F.when(by_key, F.lit(account_id)).otherwise(a["name"])


def _mapped(subject: Column, publisher: Column, accounts: _Accounts, cluster, seed, key, server_version) -> Column:
    """The subject after the publishing account's own mappings (unchanged for an account without any)."""
    out: Column | None = None
    for acc in accounts.by_id.values():
        if acc["mappings"] is None:
            continue
        # installed for the account (its name; its public key in operator mode): {{account-hash()}} is its hash
        mapped = _map_column("subject_map", subject, acc["mappings"], cluster, seed, key, server_version, acc["id"])
        taken = publisher == F.lit(acc["id"])
        out = F.when(taken, mapped) if out is None else out.when(taken, mapped)
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
    key: ColumnOrName | None = None,
) -> DataFrame:
    """Every delivery of each message of ``df`` through the accounts of ``config`` (see the module doc).

    ``df`` holds messages: their subject in ``subject_col`` and the account they were published in in
    ``account_col``, named as the server names it: by its name in a config's ``accounts`` (``$G`` for the
    global account), and in operator mode by its public key (``ABNLF3A7…``, what a recorded account holds)
    or its JWT's ``name`` claim. An account the config does not have is an error naming it when the query
    runs, never a message silently left unmapped. The result has ``df``'s columns plus ``received_by``
    (the account, named the way the message named its own: by public key or by name), ``received_subject``
    and ``via`` (``"publish"``, ``"stream import"``, ``"service import"``): one row per delivery, none for a
    message the publisher's mappings drop (or on which the release's server crashes: see
    ``subject_map_explain``). Each account's mappings apply as the release loads them from where they are
    written: a config file's block whole, an account JWT's rule by rule (a rule the release refuses is left
    out of the account, the others apply). ``cluster``, ``seed`` and ``key`` are ``subject_map``'s
    (cluster-scoped destinations, reproducible weighted draws, per-message draws); ``cluster`` defaults to
    the config's own ``cluster { name: ... }``, the name the server chooses scoped destinations by.

    Args:
        df: the messages.
        config: the accounts, as :func:`accounts_plan` takes them.
        subject_col: the name of ``df``'s subject column.
        account_col: the name of ``df``'s column of the publishing account (its name or public key).
        cluster: the cluster whose scoped destinations apply; None: the config's own cluster name.
        seed: reproducible weighted draws, as in ``subject_map``.
        server_version: the nats-server line or release whose rules apply (see :func:`accounts_plan`).
        key: a per-message draw key (e.g. a message id column), as in ``subject_map``: each weighted draw is
            then the message's own, whatever the partitioning.

    Returns:
        A DataFrame, one row per delivery: ``df``'s columns, ``received_by``, ``received_subject``, ``via``.

    Raises:
        AccountsConfigError: a config nats-server refuses, before any data is read.

    Examples:
        >>> replay(day, "server.conf").groupBy("received_by", "via").count()  # doctest: +SKIP
    """
    plan = accounts_plan(df.sparkSession, config, server_version)
    if cluster is None:
        cluster = (plan.get("server") or {}).get("cluster")
    accounts = _Accounts(plan)
    account = F.col(account_col)
    staged = df.withColumn(PUBLISHER, accounts.publisher(account, "replay")).withColumn(
        BY_KEY, accounts.named_by_key(account)
    )
    publisher, by_key = F.col(PUBLISHER), F.col(BY_KEY)
    staged = staged.withColumn(
        MAPPED, _mapped(F.col(subject_col), publisher, accounts, cluster, seed, key, server_version)
    )
    mapped = F.col(MAPPED)

    def delivery(received_by: Column, subject: Column, via: str) -> Column:
        return F.struct(received_by.alias(RECEIVED_BY), subject.alias(RECEIVED_SUBJECT), F.lit(via).alias(VIA))

    candidates = [F.when(mapped.isNotNull(), delivery(account.cast("string"), mapped, "publish"))]
    for route in plan["routes"]:
        if route["kind"] == "stream":
            # The exporter publishes; the importer receives the renamed subject.
            taken = (publisher == F.lit(route["exporter_id"])) & subject_matches(mapped, route["filter"])
            renamed = _routed(mapped, route, server_version)
            candidates.append(
                F.when(taken, delivery(accounts.name(route["importer_id"], by_key), renamed, "stream import"))
            )
        else:
            # The importer publishes on its local subject; the exporter receives the import's subject,
            # which its own mappings then map.
            taken = (publisher == F.lit(route["importer_id"])) & subject_matches(mapped, route["filter"])
            seen = _routed(mapped, route, server_version)
            exporter = accounts.by_id[route["exporter_id"]]
            if exporter["mappings"] is not None:
                seen = _map_column(
                    "subject_map", seen, exporter["mappings"], cluster, seed, key, server_version, exporter["id"]
                )
            candidates.append(
                F.when(taken, delivery(accounts.name(route["exporter_id"], by_key), seen, "service import"))
            )

    exploded = staged.withColumn(DELIVERY, F.explode(F.array(*candidates)))
    d = F.col(DELIVERY)
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
