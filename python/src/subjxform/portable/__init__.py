"""subjxform without the jar: the same answers as the jar's SQL functions, from Spark's built-in functions
only, for every form whose transform or filter is a constant.

Databricks serverless and shared compute, Spark Connect clients and SQL warehouses cannot load a custom
jar. A constant transform is fully known when the query is written, so it is compiled here, in Python,
into an expression of Spark's own functions (``substring_index``, ``concat``, ``regexp_replace`` on the
bytes' ISO-8859-1 reading, one ``aggregate`` for FNV-1a, ``xxhash64`` for keyed draws, ``CASE``),
which every Spark >= 3.5, every Connect server and every Spark SQL engine runs::

    from subjxform import portable
    df.select(portable.subject_transform("subject", "orders.*.*", "shipments.$2.{{partition(8,1)}}"))
    spark.sql(f"SELECT {portable.sql_expression('subject_transform', 'subject', 'orders.*', 'x.$1')} FROM t")

The functions take the same arguments as :mod:`subjxform.functions` and check them the same way. An invalid
constant raises :class:`InvalidArgumentValue` (a ValueError) with the jar's text when the column is built,
before any query runs; the ``try_`` forms give NULL instead, as the jar's do. ``src``/``dest``/``filter``/
``transforms`` from a Column need the jar (:class:`NeedsTheJar`).

What is not identical to the jar: ``{{random(n)}}`` without a ``key`` draws from Spark's ``rand(seed)``,
uniform like the jar's draws but not the same numbers (with a ``key``, draws are the jar's exactly); a
result longer than 8 MiB raises Spark's ``raise_error`` (USER_RAISED_EXCEPTION) carrying the jar's text,
with the whole length where the jar may report the length it had reached.

One job, the no-jar API: each public function (and ``sql_expression``) checks its arguments (``arguments``, shared
with the jar's API), compiles its constants with the grammar and asks ``_build`` / ``_map_build`` for the tree of
built-in functions, which ``_expr`` writes as a Column or as SQL text. Its length is one docstring per function.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union

from ..arguments import (
    check_account,
    check_mappings,
    check_seed,
    check_server_version,
    check_strict,
    check_subject,
    check_value,
    draws_seed,
    is_column,
    transform_pairs,
    type_name,
)
from ..configs import check_table, mappings_argument
from ..grammar import server_version as versions
from ..grammar.account_functions import NO_ACCOUNT, NO_ACCOUNT_NAME, Context
from ..grammar.conf_value import Obj
from ..grammar.filter_transforms import InvalidStreamConfig, compile_filter_transforms
from ..grammar.mapping_table import InvalidMappings, compile_mappings
from ..grammar.subject_transform import InvalidTransform, compile_for_account
from ..grammar.subjects import InvalidFilter, compile_filter
from . import _build, _expr, _map_build

if TYPE_CHECKING:  # annotations only: `subjxform sql` runs without pyspark
    from pyspark.sql import Column

__all__ = [
    "subject_transform",
    "try_subject_transform",
    "subject_matches",
    "subject_filter_transform",
    "try_subject_filter_transform",
    "subject_map",
    "subject_map_explain",
    "sql_expression",
    "InvalidArgumentValue",
    "NeedsTheJar",
    "DrawsNeedAKeyOrSeed",
]


class InvalidArgumentValue(ValueError):
    """An invalid constant argument, with the text of the jar's analysis error
    (``[INVALID_PARAMETER_VALUE.PATTERN] The value of parameter(s) `dest` in `subject_transform` is
    invalid: ...``). ``parameter``, ``function`` and ``reason`` are its parts.

    Examples:
        >>> try:
        ...     sql_expression("subject_transform", "s", "a.*", "b.$2")
        ... except InvalidArgumentValue as e:
        ...     print(e.reason)
        invalid subject transform from "a.*" to "b.$2": invalid mapping destination: wildcard index out of range in $2: [2]
    """

    def __init__(self, function: str, parameter: str, reason: str):
        self.function = function
        self.parameter = ", ".join(f"`{p.strip()}`" for p in parameter.split(","))
        self.reason = reason[:-1] if reason.endswith(".") else reason
        super().__init__(
            f"[INVALID_PARAMETER_VALUE.PATTERN] The value of parameter(s) {self.parameter} in "
            f"`{function}` is invalid: {self.reason}. SQLSTATE: 22023"
        )


class NeedsTheJar(TypeError):
    """A form the portable functions cannot build: a transform, filter or list from a Column. Use the jar's
    functions (:mod:`subjxform.functions`) where the jar can be loaded."""


class DrawsNeedAKeyOrSeed(ValueError):
    """``sql_expression`` of constants that draw (``{{random(n)}}``, weighted destinations) with neither
    ``key`` nor ``seed``. SQL text is stored and rerun (a view, a SQL function, a dbt model): a seed chosen
    when the text is written would make every writing of it draw otherwise, so the text must say how it
    draws: ``key`` (each message's own draw, the jar's) or ``seed`` (``rand(seed)``)."""

    def __init__(self, function: str):
        self.function = function
        super().__init__(
            f"{function}: these constants draw ({{{{random(n)}}}} or weighted destinations) and SQL text is stored "
            "and rerun: give key= (the SQL of a per-message key such as a message id: each message's draw is the "
            "jar's own, in every run) or seed= (Spark's rand(seed): the same draws for the same rows in the same "
            "partitioning)"
        )


def _subject(c, function: str, name: str = "subject"):
    from pyspark.sql import functions as F

    check_subject(c, name)
    return F.col(c) if isinstance(c, str) else c


def _constant(v, name: str, function: str) -> str:
    if is_column(v):
        raise NeedsTheJar(
            f"subjxform.portable.{function}: `{name}` from a Column needs the jar (subjxform.{function}, "
            f"the SQL function of subjxform.jar); the portable form takes a constant str"
        )
    check_value(v, name)
    return v


def _version(server_version, function: str) -> versions.ServerVersion:
    if check_server_version(server_version) is None:
        return versions.NEWEST
    try:
        return versions.parse(server_version)
    except versions.UnsupportedServerVersion as e:
        raise InvalidArgumentValue(function, "server_version", str(e)) from None


def _account(account, function: str) -> str | None:
    """The account a transform or table is installed for (None: none), as the jar's AccountArgument checks it."""
    if check_account(account) == "":
        raise InvalidArgumentValue(function, "account", NO_ACCOUNT_NAME)
    return account


def _draws(seed: int | None, keyed: bool) -> _build.Draws:
    """As subjxform.functions: without seed or key a seed is chosen once, when the column is built (as
    Spark's rand() does); with a key, no seed means 0 (the draws are a pure function of the key)."""
    chosen = draws_seed(seed, keyed)
    return _build.Draws(0 if chosen is None else chosen, _expr.Input("key") if keyed else None)


# ---------------------------------------------------------------------------------------------------
# The trees: one per function, rendered to a Column or to SQL text


def _transform_tree(
    function: str, src, dest, strict, seed, key_given: bool, server_version, account=None
) -> _expr.Node:
    src = _constant(src, "src", function)
    dest = _constant(dest, "dest", function)
    strict = check_strict(strict)
    seed = check_seed(seed)
    version = _version(server_version, function)
    account = _account(account, function)
    try:
        t = compile_for_account(src, dest, strict, version, NO_ACCOUNT if account is None else Context(account))
    except InvalidTransform as e:
        if function.startswith("try_"):
            return _expr.null("string")
        raise InvalidArgumentValue(function, e.blamed, str(e)) from None
    draws = _draws(seed, key_given) if t.is_random else None
    return _build.transform_tree(t, draws, function=None if function.startswith("try_") else function)


def _matches_tree(filter) -> _expr.Node:
    filter = _constant(filter, "filter", "subject_matches")
    try:
        f = compile_filter(filter)
    except InvalidFilter as e:
        raise InvalidArgumentValue("subject_matches", "filter", str(e)) from None
    return _build.matches_tree(f)


def _pairs(transforms, function: str) -> list:
    """The jar path's checks of a list of (src, dest) pairs (subjxform.arguments.transform_pairs)."""
    if is_column(transforms):
        raise NeedsTheJar(
            f"subjxform.portable.{function}: `transforms` from a Column needs the jar "
            f"(subjxform.{function}); the portable form takes a list of (src, dest) pairs"
        )
    return transform_pairs(transforms)


def _filter_transform_tree(function: str, transforms, seed, key_given: bool, server_version) -> _expr.Node:
    pairs = _pairs(transforms, function)
    seed = check_seed(seed)
    version = _version(server_version, function)
    try:
        ft = compile_filter_transforms(pairs, version)
    except InvalidStreamConfig as e:
        if function.startswith("try_"):
            return _expr.null("string")
        raise InvalidArgumentValue(function, "transforms", str(e)) from None
    draws = _draws(seed, key_given) if ft.is_random else None
    return _build.filter_transform_tree(ft, draws, function=None if function.startswith("try_") else function)


def _map_tree(
    function: str, mappings, cluster_given: bool, seed, key_given: bool, server_version, account=None
) -> _expr.Node:
    """subject_map / subject_map_explain of a constant table: read, checked and compiled here (the jar's
    acceptance and texts), then one CASE over the rules (see _map_build)."""
    if is_column(mappings):
        raise NeedsTheJar(
            f"subjxform.portable.{function}: a `mappings` table from a Column needs the jar "
            f"(subjxform.{function}); the portable form takes a constant table (a str or a dict)"
        )
    mappings = mappings_argument(mappings)
    check_mappings(mappings, (str, dict, Obj))
    seed = check_seed(seed)
    version = _version(server_version, function)
    account = _account(account, function)
    try:
        table = compile_mappings(mappings, version, account=account)
    except InvalidMappings as e:
        raise InvalidArgumentValue(function, "mappings", str(e)) from None
    chosen = draws_seed(seed, key_given)  # as _draws
    draws = _map_build.MapDraws(0 if chosen is None else chosen, _expr.Input("key") if key_given else None)
    build = _map_build.explain_tree if function == "subject_map_explain" else _map_build.map_tree
    return build(table, draws, _expr.Input("cluster") if cluster_given else None)


def _only_for_strings(subject, result, function: str):
    """`result` where the subject is a STRING (or NULL), as the jar takes it. Spark would cast a BIGINT or BINARY
    column to its text and map it "unchanged", a silently wrong answer; the jar refuses it when the query is
    analysed, and built-in functions can only refuse it when a row is read: raise_error, naming the function
    and the type. For a STRING the check costs nothing: ``typeof`` is a constant once the query is analysed,
    and Spark's optimizer folds the CASE away.

    The check wraps the whole result once, and the tree reads the subject through a cast to STRING (a no-op
    for a STRING; for any other type the check has already refused it): checked at each of the subject's
    reads instead, a transform's tree was five times larger and took Spark 2.6 times as long to analyse."""
    from pyspark.sql import functions as F

    t = F.call_function("typeof", subject)
    text = t.startswith("string") | t.startswith("char") | t.startswith("varchar") | (t == F.lit("void"))
    return F.when(text, result).otherwise(
        F.raise_error(
            F.concat(
                F.lit(
                    f"subjxform.portable.{function}: parameter `subject` requires the STRING type, however it has "
                    "the type "
                ),
                t,
                F.lit(" (cast it to STRING only if its text is the subject)"),
            )
        )
    )


def _column(tree: _expr.Node, subject, key, function: str, cluster=None):
    subject_column = _subject(subject, function)
    inputs = {"subject": subject_column.cast("string")}
    if key is not None:
        inputs["key"] = _subject(key, function, "key")
    if cluster is not None:  # subject_map: a str names the cluster every message entered
        check_value(cluster, "cluster")
        if isinstance(cluster, str):
            from pyspark.sql import functions as F

            inputs["cluster"] = F.lit(cluster)
        else:
            inputs["cluster"] = cluster
    # Named as the jar's column is, by the function and its subject: Spark would name it by the whole
    # generated expression (thousands of characters for one table).
    result = _only_for_strings(subject_column, _expr.to_column(tree, inputs), function)
    return result.alias(f"{function}({_name_of(subject)}, …)")


def _name_of(subject) -> str:
    """A subject column's name as Spark shows it in a column's name: the name given, or the Column's text."""
    if isinstance(subject, str):
        return subject
    text = str(subject)
    return text[len("Column<'") : -len("'>")] if text.startswith("Column<'") and text.endswith("'>") else text


# ---------------------------------------------------------------------------------------------------
# Public functions: subjxform.functions' signatures

ColumnOrName = Union["Column", str]


def subject_transform(
    subject: ColumnOrName,
    src: str,
    dest: str,
    strict: bool = False,
    seed: int | None = None,
    key: ColumnOrName | None = None,
    server_version: str | None = None,
    account: str | None = None,
) -> Column:
    """:func:`subjxform.subject_transform` from built-in functions: `src` and `dest` must be str.

    Args:
        subject: the subject, a column name or Column.
        src: the source filter, a constant.
        dest: the destination, a constant.
        strict: import/export rules (wildcards only, every ``*`` used).
        seed: the draws' seed (``rand(seed)`` without a key); None: one chosen when the column is built.
        key: a per-message draw key (a column name or Column): the jar's own draws, row for row.
        server_version: the nats-server line to follow; None: the newest (no session conf is read).
        account: the account the transform is installed for (``{{account-hash()}}`` is its hash); None: none.

    Returns:
        A STRING Column: the jar's answer (NULL where the transform does not apply).

    Raises:
        InvalidArgumentValue: an invalid constant, with the jar's analysis error text, when the column is built.
        NeedsTheJar: an argument from a Column where a constant is needed.
        TypeError: an argument of the wrong type.

    Examples:
        >>> df.select(portable.subject_transform("subject", "orders.*.*", "orders.{{partition(4,2)}}.$1.$2"))  # doctest: +SKIP
    """
    tree = _transform_tree("subject_transform", src, dest, strict, seed, key is not None, server_version, account)
    return _column(tree, subject, key, "subject_transform")


def try_subject_transform(
    subject: ColumnOrName,
    src: str,
    dest: str,
    strict: bool = False,
    seed: int | None = None,
    key: ColumnOrName | None = None,
    server_version: str | None = None,
    account: str | None = None,
) -> Column:
    """:func:`subjxform.try_subject_transform`: an invalid transform gives NULL in every row.

    Args:
        subject: the subject, a column name or Column.
        src: the source filter, a constant.
        dest: the destination, a constant.
        strict: import/export rules.
        seed: the draws' seed, as in :func:`subject_transform`.
        key: a per-message draw key, as in :func:`subject_transform`.
        server_version: the nats-server line, as in :func:`subject_transform`.
        account: the account it is installed for, as in :func:`subject_transform`.

    Returns:
        A STRING Column, NULL in every row for an invalid transform.

    Raises:
        NeedsTheJar: ``src`` or ``dest`` from a Column.
        TypeError: an argument of the wrong type.

    Examples:
        >>> df.select(portable.try_subject_transform("subject", "a.*", "x.{{wildcard(3)}}"))  # doctest: +SKIP
    """
    tree = _transform_tree("try_subject_transform", src, dest, strict, seed, key is not None, server_version, account)
    return _column(tree, subject, key, "try_subject_transform")


def subject_matches(subject: ColumnOrName, filter: str) -> Column:
    """:func:`subjxform.subject_matches`: `filter` must be a str.

    Args:
        subject: the subject, a column name or Column.
        filter: the subject filter, a constant.

    Returns:
        A BOOLEAN Column.

    Raises:
        InvalidArgumentValue: an invalid constant, with the jar's analysis error text, when the column is built.
        NeedsTheJar: an argument from a Column where a constant is needed.
        TypeError: an argument of the wrong type.

    Examples:
        >>> df.where(portable.subject_matches("subject", "orders.>"))  # doctest: +SKIP
    """
    return _column(_matches_tree(filter), subject, None, "subject_matches")


def subject_filter_transform(
    subject: ColumnOrName,
    transforms: list,
    seed: int | None = None,
    key: ColumnOrName | None = None,
    server_version: str | None = None,
) -> Column:
    """:func:`subjxform.subject_filter_transform`: `transforms` a list of (src, dest) pairs or dicts.

    Args:
        subject: the subject, a column name or Column.
        transforms: the ``subject_transforms`` list, a constant.
        seed: the draws' seed, as in :func:`subject_transform`.
        key: a per-message draw key, as in :func:`subject_transform`.
        server_version: the nats-server line, as in :func:`subject_transform`.

    Returns:
        A STRING Column: the subject as the stream takes it, NULL when it is not taken.

    Raises:
        InvalidArgumentValue: an invalid constant, with the jar's analysis error text, when the column is built.
        NeedsTheJar: an argument from a Column where a constant is needed.
        TypeError: an argument of the wrong type.

    Examples:
        >>> df.select(portable.subject_filter_transform("subject", [("foo", "foo-transformed"), ("bar", "")]))  # doctest: +SKIP
    """
    tree = _filter_transform_tree("subject_filter_transform", transforms, seed, key is not None, server_version)
    return _column(tree, subject, key, "subject_filter_transform")


def try_subject_filter_transform(
    subject: ColumnOrName,
    transforms: list,
    seed: int | None = None,
    key: ColumnOrName | None = None,
    server_version: str | None = None,
) -> Column:
    """:func:`subjxform.try_subject_filter_transform`: an invalid list gives NULL in every row.

    Args:
        subject: the subject, a column name or Column.
        transforms: the ``subject_transforms`` list, a constant.
        seed: the draws' seed, as in :func:`subject_transform`.
        key: a per-message draw key, as in :func:`subject_transform`.
        server_version: the nats-server line, as in :func:`subject_transform`.

    Returns:
        A STRING Column, NULL in every row for an invalid list.

    Raises:
        NeedsTheJar: a list from a Column.
        TypeError: an argument of the wrong type.

    Examples:
        >>> df.select(portable.try_subject_filter_transform("subject", [("a.>", ""), ("a.b", "x")]))  # doctest: +SKIP
    """
    tree = _filter_transform_tree("try_subject_filter_transform", transforms, seed, key is not None, server_version)
    return _column(tree, subject, key, "try_subject_filter_transform")


def subject_map(
    subject: ColumnOrName,
    mappings: str | dict,
    cluster: ColumnOrName | None = None,
    seed: int | None = None,
    key: ColumnOrName | None = None,
    server_version: str | None = None,
    account: str | None = None,
) -> Column:
    """:func:`subjxform.subject_map`: `mappings` a constant table (config syntax or JSON text, a dict, or a file
    given as a path).
    With ``key`` each message's draw is the jar's, row for row; without, Spark's ``rand`` (the same
    frequencies, not the jar's numbers).

    Args:
        subject: the subject, a column name or Column.
        mappings: the mapping table, a constant: text in config syntax or JSON, a dict, or a file (a
            ``pathlib.Path`` or a str naming an existing file).
        cluster: the cluster the message entered: a str (one name for every row) or a Column; a name
            that is no cluster of a table that scopes clusters warns.
        seed: the draws' seed, as in :func:`subject_transform`.
        key: a per-message draw key, as in :func:`subject_transform`.
        server_version: the nats-server line, as in :func:`subject_transform`.
        account: the account it is installed for, as in :func:`subject_transform`.

    Returns:
        A STRING Column: the mapped subject, unchanged when no rule takes it, NULL when dropped.

    Raises:
        InvalidArgumentValue: an invalid constant, with the jar's analysis error text, when the column is built.
        NeedsTheJar: an argument from a Column where a constant is needed.
        TypeError: an argument of the wrong type.

    Examples:
        >>> df.select(portable.subject_map("subject", {"orders.*.*": "shipments.$2.$1"}))  # doctest: +SKIP
    """
    mappings = mappings_argument(mappings)
    check_table(cluster, mappings, server_version, check_account(account))
    tree = _map_tree("subject_map", mappings, cluster is not None, seed, key is not None, server_version, account)
    return _column(tree, subject, key, "subject_map", cluster)


def subject_map_explain(
    subject: ColumnOrName,
    mappings: str | dict,
    cluster: ColumnOrName | None = None,
    seed: int | None = None,
    key: ColumnOrName | None = None,
    server_version: str | None = None,
    account: str | None = None,
) -> Column:
    """:func:`subjxform.subject_map_explain`: the jar's struct, field for field, and the same ``result``
    as :func:`subject_map` with the same arguments.

    Args:
        subject: the subject, a column name or Column.
        mappings: the mapping table, a constant.
        cluster: the cluster the message entered, as for :func:`subject_map`.
        seed: the draws' seed, as in :func:`subject_transform`.
        key: a per-message draw key, as in :func:`subject_transform`.
        server_version: the nats-server line, as in :func:`subject_transform`.
        account: the account it is installed for, as in :func:`subject_transform`.

    Returns:
        A STRUCT Column (``rule``, ``rule_index``, ``matched_as``, ``cluster``, ``destination``,
        ``destination_index``, ``remainder``, ``weight``, ``outcome``, ``result``).

    Raises:
        InvalidArgumentValue: an invalid constant, with the jar's analysis error text, when the column is built.
        NeedsTheJar: an argument from a Column where a constant is needed.
        TypeError: an argument of the wrong type.

    Examples:
        >>> df.select(portable.subject_map_explain("subject", "orders.* orders.v2.$1").alias("why"))  # doctest: +SKIP
    """
    mappings = mappings_argument(mappings)
    check_table(cluster, mappings, server_version, check_account(account))
    tree = _map_tree(
        "subject_map_explain", mappings, cluster is not None, seed, key is not None, server_version, account
    )
    return _column(tree, subject, key, "subject_map_explain", cluster)


_TREES = {
    "subject_transform": lambda a, kw: _transform_tree(  # type: ignore[call-arg]  # mypy counts *a[:2] as any length
        "subject_transform",
        *a[:2],
        kw.get("strict", False),
        kw.get("seed"),
        kw.get("key") is not None,
        kw.get("server_version"),
        kw.get("account"),
    ),
    "try_subject_transform": lambda a, kw: _transform_tree(  # type: ignore[call-arg]  # mypy counts *a[:2] as any length
        "try_subject_transform",
        *a[:2],
        kw.get("strict", False),
        kw.get("seed"),
        kw.get("key") is not None,
        kw.get("server_version"),
        kw.get("account"),
    ),
    "subject_matches": lambda a, kw: _matches_tree(a[0]),
    "subject_filter_transform": lambda a, kw: _filter_transform_tree(
        "subject_filter_transform", a[0], kw.get("seed"), kw.get("key") is not None, kw.get("server_version")
    ),
    "try_subject_filter_transform": lambda a, kw: _filter_transform_tree(
        "try_subject_filter_transform", a[0], kw.get("seed"), kw.get("key") is not None, kw.get("server_version")
    ),
    "subject_map": lambda a, kw: _map_tree(
        "subject_map",
        a[0],
        kw.get("cluster") is not None,
        kw.get("seed"),
        kw.get("key") is not None,
        kw.get("server_version"),
        kw.get("account"),
    ),
    "subject_map_explain": lambda a, kw: _map_tree(
        "subject_map_explain",
        a[0],
        kw.get("cluster") is not None,
        kw.get("seed"),
        kw.get("key") is not None,
        kw.get("server_version"),
        kw.get("account"),
    ),
}
_ARITY = {
    "subject_transform": 2,
    "try_subject_transform": 2,
    "subject_matches": 1,
    "subject_filter_transform": 1,
    "try_subject_filter_transform": 1,
    "subject_map": 1,
    "subject_map_explain": 1,
}
_KEYWORDS = {
    "subject_transform": {"strict", "seed", "key", "server_version", "account"},
    "try_subject_transform": {"strict", "seed", "key", "server_version", "account"},
    "subject_matches": set(),
    "subject_filter_transform": {"seed", "key", "server_version"},
    "try_subject_filter_transform": {"seed", "key", "server_version"},
    "subject_map": {"cluster", "seed", "key", "server_version", "account"},
    "subject_map_explain": {"cluster", "seed", "key", "server_version", "account"},
}


def sql_expression(function_name: str, subject_sql: str, *args: Any, **kw: Any) -> str:
    """The SQL text of a portable function over the SQL expression `subject_sql` (a column name, or any
    SQL), for Spark SQL and SQL warehouses: ``sql_expression("subject_transform", "subject", "a.*", "b.$1")``.
    The constant arguments are as for the Python functions; ``key`` and ``cluster`` are SQL text (e.g.
    ``"msg_id"``, ``"'east'"`` for every message entering cluster east). Constants that draw
    (``{{random(n)}}``, weighted destinations) need ``key`` or ``seed``, since the text is stored and rerun.
    Needs Python alone (no pyspark).

    Args:
        function_name: one of the portable functions' names, e.g. ``"subject_map"``.
        subject_sql: the subject's SQL expression.
        *args: the function's constant arguments after the subject (``src, dest``; a table; a filter).
        **kw: its keyword arguments (``strict``, ``cluster``, ``seed``, ``key``, ``server_version``, ``account``).

    Returns:
        The SQL expression, built-in functions only.

    Raises:
        ValueError: an unknown function name.
        TypeError: the wrong number or type of arguments, or an unknown keyword.
        InvalidArgumentValue: an invalid constant, with the jar's text.
        DrawsNeedAKeyOrSeed: constants that draw, with neither ``key`` nor ``seed`` (a ValueError).

    Examples:
        >>> sql = sql_expression("subject_transform", "subject", "orders.*", "x.$1")
        >>> "substring_index((subject), '.', 1)" in sql  # the first token, by a built-in function
        True
    """
    if function_name not in _TREES:
        raise ValueError(f"no portable SQL for {function_name!r}: one of {', '.join(sorted(_TREES))}")
    if not isinstance(subject_sql, str):
        raise TypeError(f"subject_sql must be SQL text (str), not {type_name(subject_sql)}")
    if len(args) != _ARITY[function_name]:
        raise TypeError(
            f"{function_name} takes {_ARITY[function_name]} constant argument(s) after subject_sql, got {len(args)}"
        )
    unknown = set(kw) - _KEYWORDS[function_name]
    if unknown:
        raise TypeError(f"{function_name} has no keyword argument(s) {sorted(unknown)}")
    inputs = {"subject": subject_sql}
    for name in ("key", "cluster"):
        value = kw.get(name)
        if value is not None:
            if not isinstance(value, str):
                raise TypeError(f"{name} must be SQL text (str) in sql_expression, not {type_name(value)}")
            inputs[name] = value
    tree = _TREES[function_name](args, kw)
    if kw.get("key") is None and kw.get("seed") is None and "rand" in _expr.function_names(tree):
        raise DrawsNeedAKeyOrSeed(function_name)
    return _expr.to_sql(tree, inputs)


def tree_of(function_name: str, *args: Any, **kw: Any) -> _expr.Node:
    """The expression tree of a portable function (for tools and tests; the subject is Input("subject")).

    Args:
        function_name: one of the portable functions' names.
        *args: its constant arguments after the subject.
        **kw: its keyword arguments.

    Returns:
        The tree's root node.

    Raises:
        KeyError: an unknown function name.
        InvalidArgumentValue: an invalid constant.

    Examples:
        >>> tree_of("subject_matches", "orders.>")  # doctest: +SKIP
    """
    return _TREES[function_name](args, kw)
