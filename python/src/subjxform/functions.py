"""Column functions: each calls the SQL function of the same name, so they work in classic
PySpark and under Spark Connect alike (the work happens in the JVM, never in Python)."""

from __future__ import annotations

from typing import Union

from pyspark.sql import Column
from pyspark.sql import functions as F

from ._compat import is_column
from .arguments import (
    check_account,
    check_mappings,
    check_seed,
    check_server_version,
    check_strict,
    check_subject,
    check_value,
    draws_seed,
    transform_pairs,
)
from .configs import check_table, mappings_argument
from .grammar.mapping_table import mappings_text
from .session import ensure_functions

ColumnOrName = Column | str
ColumnOrValue = Column | str


# Each argument is checked (subjxform.arguments, the checks the portable functions make too), then passed on.


def _call(name: str, *args: Column) -> Column:
    """The SQL function ``name`` as a Column, its functions registered first in a classic session that
    lacks them (see :func:`subjxform.session.ensure_functions`)."""
    ensure_functions()
    return F.call_function(name, *args)


def _column(c: ColumnOrName, name: str = "subject") -> Column:
    check_subject(c, name)
    return F.col(c) if isinstance(c, str) else c


def _value(v: ColumnOrValue, name: str) -> Column:
    """A plain string is a constant (a transform compiled once); a Column varies per row."""
    check_value(v, name)
    return F.lit(v) if isinstance(v, str) else v


def _strict(strict: bool) -> Column:
    return F.lit(check_strict(strict))


def _seed(seed: int | None, key: ColumnOrName | None) -> Column:
    """The draws' seed (subjxform.arguments.draws_seed: chosen once, when the column is built, without a seed
    or a key; NULL, the jar's 0, with a key)."""
    chosen = draws_seed(check_seed(seed), keyed=key is not None)
    return F.lit(chosen).cast("long")


def _key(key: ColumnOrName | None) -> Column:
    """A per-message draw key: a column name or Column of any type (the JVM uses its xxhash64; a MAP's by its
    entries in key order, so that equal maps draw alike)."""
    if key is None:
        return F.lit(None).cast("long")
    return _column(key, "key")


def _server_version(server_version: str | None, account: str | None = None) -> list[Column]:
    """The trailing ``server_version`` argument: none when not given (the session conf
    ``spark.subjxform.serverVersion``, else the newest line, decides when the query is analysed). The JVM
    checks the value, so an unsupported line is an analysis error naming the supported ones. Then, for the
    functions that compile mapping destinations, ``account`` when given (``server_version`` before it is then
    NULL when not given: the same default)."""
    if check_account(account) is not None:
        return [F.lit(check_server_version(server_version)).cast("string"), F.lit(account)]
    if check_server_version(server_version) is None:
        return []
    return [F.lit(server_version)]


def subject_transform(
    subject: ColumnOrName,
    src: ColumnOrValue,
    dest: ColumnOrValue,
    strict: bool = False,
    seed: int | None = None,
    key: ColumnOrName | None = None,
    server_version: str | None = None,
    account: str | None = None,
) -> Column:
    """Applies the NATS subject transform ``src`` -> ``dest`` to ``subject``, as nats-server does.

    Args:
        subject: the subject, a column name or Column.
        src: the source filter (``*`` one token, a trailing ``>`` the rest; ``""`` means ``>``): a str is a
            constant, compiled once, and an invalid one fails the query before any data is read; a Column
            varies per row.
        dest: the destination (``$N``, ``{{wildcard(N)}}``, ``{{partition(n,N,...)}}``, ``{{split(N,sep)}}``,
            ... and a trailing ``>``; ``""`` means no transformation): a str or a Column, as ``src``.
        strict: accept only what an import/export mapping accepts (wildcards only, every ``*`` used).
        seed: makes ``{{random(n)}}`` draws reproducible for the same input in the same partitioning, like
            ``rand(seed)``; None: one seed chosen when the column is built.
        key: a column name or Column (e.g. a message id): each draw is then a pure function of (seed, key,
            the token), the same whatever the partitioning, micro-batching or upstream filtering.
        server_version: the nats-server line to follow (``"2.10"``, ``"2.11"``, ``"2.12"``, ``"2.14"``,
            ``"2.15"`` or a release such as ``"2.10.26"``); None: the session conf
            ``spark.subjxform.serverVersion``, else the newest.
        account: the account the transform is installed for, by name (a public key in operator mode):
            nats-server 2.14.10 and 2.15.3 put the hash of its name where ``dest`` says ``{{account-hash()}}``;
            None: no account, and such a destination is refused, saying so.

    Returns:
        A STRING Column: the transformed subject; NULL when an argument is NULL, the subject is not a
        literal subject or does not match ``src``, or the result has an empty token.

    Raises:
        TypeError: an argument of the wrong type (``strict="yes"``, ``seed=1.9``), before Spark sees it.
        pyspark.errors.AnalysisException: an invalid constant transform or server version, when the query
            is analysed (nats-server's reason in the message).
        pyspark.errors.IllegalArgumentException: an invalid transform from a column, when the row is reached.

    Examples:
        >>> df.select(subject_transform("subject", "orders.*.*", "shipments.{{wildcard(2)}}.$1"))  # doctest: +SKIP
        orders.eu.42 -> shipments.42.eu
        >>> df.select(F.coalesce(subject_transform("subject", "a.*", "b.$1"), F.col("subject")))  # doctest: +SKIP
        unchanged when not matching, as Core NATS mappings behave
    """
    return _call(
        "subject_transform",
        _column(subject),
        _value(src, "src"),
        _value(dest, "dest"),
        _strict(strict),
        _seed(seed, key),
        _key(key),
        *_server_version(server_version, account),
    )


def try_subject_transform(
    subject: ColumnOrName,
    src: ColumnOrValue,
    dest: ColumnOrValue,
    strict: bool = False,
    seed: int | None = None,
    key: ColumnOrName | None = None,
    server_version: str | None = None,
    account: str | None = None,
) -> Column:
    """Like :func:`subject_transform`, but an invalid transform gives NULL instead of an error.

    Args:
        subject: the subject, a column name or Column.
        src: the source filter, a str (constant) or Column.
        dest: the destination, a str (constant) or Column.
        strict: import/export rules, as in :func:`subject_transform`.
        seed: the draws' seed, as in :func:`subject_transform`.
        key: a per-message draw key, as in :func:`subject_transform`.
        server_version: the nats-server line, as in :func:`subject_transform`.
        account: the account it is installed for, as in :func:`subject_transform`.

    Returns:
        A STRING Column: as :func:`subject_transform`, and NULL where the transform is invalid.

    Raises:
        TypeError: an argument of the wrong type, before Spark sees it.

    Examples:
        >>> df.select(try_subject_transform("subject", "src", F.col("dest")))  # doctest: +SKIP
    """
    return _call(
        "try_subject_transform",
        _column(subject),
        _value(src, "src"),
        _value(dest, "dest"),
        _strict(strict),
        _seed(seed, key),
        _key(key),
        *_server_version(server_version, account),
    )


def subject_matches(subject: ColumnOrName, filter: ColumnOrValue) -> Column:
    """Whether subscription interest on ``filter`` receives ``subject`` (``*`` one token, ``>`` the rest).

    Args:
        subject: the subject, a column name or Column.
        filter: the subject filter, a str (constant) or Column.

    Returns:
        A BOOLEAN Column: NULL when an argument is NULL; false for a subject that is not literal.

    Raises:
        TypeError: an argument of the wrong type.
        pyspark.errors.AnalysisException: an invalid constant filter (``a.>.b``).

    Examples:
        >>> df.where(subject_matches("subject", "orders.*.>"))  # doctest: +SKIP
    """
    return _call("subject_matches", _column(subject), _value(filter, "filter"))


MappingsValue = Column | str | dict


def _mappings_text(mappings: MappingsValue) -> Column:
    """A dict is sent as its text in nats-server's configuration syntax (the same values), a string as it is:
    either way a constant, compiled once. A path is read first (subjxform.configs' rule)."""
    mappings = mappings_argument(mappings)
    check_mappings(mappings)
    if isinstance(mappings, dict):
        return F.lit(mappings_text(mappings))
    return _value(mappings, "mappings")


def _map_column(function: str, subject, mappings, cluster, seed, key, server_version, account=None) -> Column:
    """subject_map or subject_map_explain, unchecked: for callers that apply one cluster to many tables
    (subjxform.accounts), where a table without that cluster is no mistake."""
    cluster_col = F.lit(None).cast("string") if cluster is None else _value(cluster, "cluster")
    return _call(
        function,
        _column(subject),
        _mappings_text(mappings),
        cluster_col,
        _seed(seed, key),
        _key(key),
        *_server_version(server_version, account),
    )


def subject_map(
    subject: ColumnOrName,
    mappings: MappingsValue,
    cluster: ColumnOrValue | None = None,
    seed: int | None = None,
    key: ColumnOrName | None = None,
    server_version: str | None = None,
    account: str | None = None,
) -> Column:
    """Applies a Core NATS account mapping table to ``subject``, as nats-server does.

    One rule applies (a literal rule equal to the subject, else the first matching wildcard rule); no
    match leaves the subject unchanged; a dropped message (artificial loss) is NULL.

    Args:
        subject: the subject, a column name or Column.
        mappings: the content of a nats-server ``mappings { }`` block, in its config syntax or as JSON, or
            a dict in the JSON shape (``{"orders.*": "orders.central.{{wildcard(1)}}", "svc":
            [{"destination": "svc.v2", "weight": "2%"}, ...]}``): a constant, checked before any data is
            read; or a Column, a table per row. A file holding the table is read when given as a
            ``pathlib.Path`` or a str naming an existing file (``"mappings.conf"``); a str that looks like a
            file name but names none is an error saying so.
        cluster: the cluster the message entered (a str: one name for every row, or a Column): picks a
            rule's cluster-scoped destinations. A name that is no cluster of a constant table that scopes
            clusters warns (a column's name given as a str, say).
        seed: makes the weighted draws reproducible (like ``rand(seed)``); None: one seed chosen when the
            column is built.
        key: a column name or Column (e.g. ``"msg_id"``): each message gets the same destination in every
            run, whatever the partitioning.
        server_version: the nats-server line to follow (see :func:`subject_transform`).
        account: the account whose mappings these are, by name (a public key in operator mode): nats-server
            2.14.10 and 2.15.3 put the hash of its name where a rule says ``{{account-hash()}}``; None: no
            account, and such a rule is refused, saying so.

    Returns:
        A STRING Column: the mapped subject, the subject unchanged when no rule takes it, NULL when it is
        dropped or an argument is NULL.

    Raises:
        TypeError: an argument of the wrong type (a mappings value that is not a str, dict or Column).
        pyspark.errors.AnalysisException: an invalid constant table, naming the rule, the destination and
            nats-server's reason.

    Examples:
        >>> df.select(subject_map("subject", {"orders.*": "orders.central.$1"}))  # doctest: +SKIP
        >>> df.select(subject_map("subject", "orders.* orders.v2.$1", key="msg_id", server_version="2.11"))  # doctest: +SKIP
    """
    mappings = mappings_argument(mappings)
    check_table(cluster, mappings, server_version, check_account(account))
    return _map_column("subject_map", subject, mappings, cluster, seed, key, server_version, account)


def subject_map_explain(
    subject: ColumnOrName,
    mappings: MappingsValue,
    cluster: ColumnOrValue | None = None,
    seed: int | None = None,
    key: ColumnOrName | None = None,
    server_version: str | None = None,
    account: str | None = None,
) -> Column:
    """Why :func:`subject_map` with the same arguments gives ``subject`` what it gives: a struct of
    ``rule`` (the source as written) and ``rule_index`` (its 0-based position), ``matched_as``
    (``'literal'`` or ``'wildcard'``), ``cluster`` (the cluster scope whose destinations applied, NULL
    for the cluster-less ones), ``destination`` (as written) and ``destination_index`` (its 0-based
    position among the rule's entries) or ``remainder`` (true when the rest of the weight was taken),
    ``weight`` (percent), ``outcome`` (``'mapped'``, ``'unchanged'``, ``'dropped'``, ``'no_match'``, or
    ``'crash'``: the release's server process exits on the message, as 2.10 and 2.11 do on
    ``{{partition(0,...)}}``)
    and ``result``: what ``subject_map`` returns, the same draw for the same ``seed`` (and ``key``: then
    each message's draw is its own, whatever the partitioning). NULL when the subject is NULL or not a
    literal subject.

    Args:
        subject: the subject, a column name or Column.
        mappings: the mapping table, as for :func:`subject_map`.
        cluster: the cluster the message entered, as for :func:`subject_map`.
        seed: the draws' seed, as for :func:`subject_map`.
        key: a per-message draw key, as for :func:`subject_map`.
        server_version: the nats-server line, as for :func:`subject_map`.
        account: the account whose mappings these are, as for :func:`subject_map`.

    Returns:
        A STRUCT Column with the fields above.

    Raises:
        TypeError: an argument of the wrong type.
        pyspark.errors.AnalysisException: an invalid constant table.

    Examples:
        >>> df.select(subject_map_explain("subject", {"orders.*": "orders.central.$1"}).alias("why"))  # doctest: +SKIP
    """
    mappings = mappings_argument(mappings)
    check_table(cluster, mappings, server_version, check_account(account))
    return _map_column("subject_map_explain", subject, mappings, cluster, seed, key, server_version, account)


TransformList = Union[Column, "list[tuple[str, str]]", "list[dict[str, str]]"]


def _transform_list(transforms: TransformList) -> Column:
    """A Column as is; a Python list of (src, dest) pairs or {"src", "dest"} dicts as a constant
    ARRAY<STRUCT<src, dest>> (compiled once, checked before any data is read)."""
    if is_column(transforms):
        return transforms
    pairs = [F.struct(F.lit(src).alias("src"), F.lit(dest).alias("dest")) for src, dest in transform_pairs(transforms)]
    return F.array(*pairs).cast("array<struct<src:string,dest:string>>")


def subject_filter_transform(
    subject: ColumnOrName,
    transforms: TransformList,
    seed: int | None = None,
    key: ColumnOrName | None = None,
    server_version: str | None = None,
) -> Column:
    """Applies a stream source's or mirror's ``subject_transforms`` list, as nats-server does.

    The message is taken when ``subject`` matches one of the ``src`` filters and renamed by the first
    entry with a non-empty ``dest`` whose ``src`` matches (``dest`` ``""``: kept as is); NULL when it is
    not taken.

    Args:
        subject: the subject, a column name or Column.
        transforms: a list of ``(src, dest)`` pairs or ``{"src", "dest"}`` dicts (a constant, checked before
            any data is read) or an ``ARRAY<STRUCT<src, dest>>`` Column.
        seed: the seed of ``{{random(n)}}`` draws, as in :func:`subject_transform`.
        key: a per-message draw key, as in :func:`subject_transform`.
        server_version: the nats-server line, as in :func:`subject_transform`.

    Returns:
        A STRING Column: the subject as the stream takes it (renamed or not), NULL when it is not taken. A
        renamed subject with an empty token is kept, as the stream stores it. With ``server_version="2.10"``
        the list is built as 2.10 builds a stream's transforms, as transforms alone: white space in a literal
        token (``"m x.>"``) and ``left``/``right`` pass and build what 2.10 stores (2.10's config check of a
        ``sources[]`` entry refuses such a destination: :func:`subjxform.streams.stream_plan` says so).

    Raises:
        TypeError: a list entry that is not a pair or a ``{"src", "dest"}`` dict.
        pyspark.errors.AnalysisException: an invalid constant list (a bad ``src`` or ``dest``, or one ``src``
            inside another).

    Examples:
        >>> df.select(subject_filter_transform("subject", [("foo", "foo-transformed"), ("bar", "")]))  # doctest: +SKIP
        foo -> foo-transformed, bar -> bar, baz -> NULL
    """
    return _call(
        "subject_filter_transform",
        _column(subject),
        _transform_list(transforms),
        _seed(seed, key),
        _key(key),
        *_server_version(server_version),
    )


def try_subject_filter_transform(
    subject: ColumnOrName,
    transforms: TransformList,
    seed: int | None = None,
    key: ColumnOrName | None = None,
    server_version: str | None = None,
) -> Column:
    """Like :func:`subject_filter_transform`, but an invalid list gives NULL instead of an error.

    Args:
        subject: the subject, a column name or Column.
        transforms: the ``subject_transforms`` list, as for :func:`subject_filter_transform`.
        seed: the draws' seed, as in :func:`subject_transform`.
        key: a per-message draw key, as in :func:`subject_transform`.
        server_version: the nats-server line, as in :func:`subject_transform`.

    Returns:
        A STRING Column: as :func:`subject_filter_transform`, and NULL where the list is invalid.

    Raises:
        TypeError: a list entry that is not a pair or a ``{"src", "dest"}`` dict.

    Examples:
        >>> df.select(try_subject_filter_transform("subject", F.col("transforms")))  # doctest: +SKIP
    """
    return _call(
        "try_subject_filter_transform",
        _column(subject),
        _transform_list(transforms),
        _seed(seed, key),
        _key(key),
        *_server_version(server_version),
    )
