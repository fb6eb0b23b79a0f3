"""Column functions: each calls the SQL function of the same name, so they work in classic
PySpark and under Spark Connect alike (the work happens in the JVM, never in Python)."""

from __future__ import annotations

import json
from typing import Optional, Union

from pyspark.sql import Column
from pyspark.sql import functions as F

ColumnOrName = Union[Column, str]
ColumnOrValue = Union[Column, str]


def _column(c: ColumnOrName) -> Column:
    return F.col(c) if isinstance(c, str) else c


def _value(v: ColumnOrValue) -> Column:
    """A plain string is a constant (a transform compiled once); a Column varies per row."""
    return F.lit(v) if isinstance(v, str) else v


def subject_transform(subject: ColumnOrName, src: ColumnOrValue, dest: ColumnOrValue, strict: bool = False) -> Column:
    """Applies the NATS subject transform ``src`` -> ``dest`` to ``subject``, as nats-server does.

    ``subject`` is a column name or Column; ``src`` and ``dest`` are strings (constants, compiled once;
    an invalid transform fails the query before any data is read) or Columns. Returns NULL when the
    subject does not match ``src`` (or is not a literal subject, or the result has an empty token).
    ``strict=True`` accepts only what an import/export mapping accepts.

    >>> df.select(subject_transform("subject", "orders.*.*", "shipments.{{wildcard(2)}}.$1"))  # doctest: +SKIP
    orders.eu.42 -> shipments.42.eu
    >>> df.select(F.coalesce(subject_transform("subject", "a.*", "b.$1"), F.col("subject")))  # doctest: +SKIP
    unchanged when not matching, as Core NATS mappings behave
    """
    return F.call_function("subject_transform", _column(subject), _value(src), _value(dest), F.lit(strict))


def try_subject_transform(
    subject: ColumnOrName, src: ColumnOrValue, dest: ColumnOrValue, strict: bool = False
) -> Column:
    """Like :func:`subject_transform`, but an invalid transform gives NULL instead of an error.

    >>> df.select(try_subject_transform("subject", "src", F.col("dest")))  # doctest: +SKIP
    """
    return F.call_function("try_subject_transform", _column(subject), _value(src), _value(dest), F.lit(strict))


def subject_matches(subject: ColumnOrName, filter: ColumnOrValue) -> Column:
    """Whether subscription interest on ``filter`` receives ``subject`` (``*`` one token, ``>`` the rest).

    >>> df.where(subject_matches("subject", "orders.*.>"))  # doctest: +SKIP
    """
    return F.call_function("subject_matches", _column(subject), _value(filter))


MappingsValue = Union[Column, str, dict]


def _mappings_text(mappings: MappingsValue) -> Column:
    """A dict is sent as JSON (the same shape), a string as it is: either way a constant, compiled once."""
    if isinstance(mappings, dict):
        return F.lit(json.dumps(mappings))
    return _value(mappings)


def subject_map(
    subject: ColumnOrName,
    mappings: MappingsValue,
    cluster: Optional[ColumnOrValue] = None,
    seed: Optional[int] = None,
) -> Column:
    """Applies a Core NATS account mapping table to ``subject``, as nats-server does.

    ``mappings`` is the content of a nats-server ``mappings { }`` block, in its config syntax or as
    JSON, or a Python dict in the JSON shape (``{"orders.*": "orders.central.{{wildcard(1)}}",
    "svc": [{"destination": "svc.v2", "weight": "2%"}, ...]}``), or a Column. An invalid table fails the
    query before any data is read. One rule applies (a literal rule equal to the subject, else the
    first matching wildcard rule); no match leaves the subject unchanged; a dropped message (artificial
    loss) is NULL. ``cluster`` (a string or Column) picks a rule's cluster-scoped destinations.
    Weighted choices are random; ``seed`` makes them reproducible (like ``rand(seed)``).

    >>> df.select(subject_map("subject", {"orders.*": "orders.central.$1"}))  # doctest: +SKIP
    """
    cluster_col = F.lit(None).cast("string") if cluster is None else _value(cluster)
    seed_col = F.lit(None).cast("long") if seed is None else F.lit(int(seed)).cast("long")
    return F.call_function("subject_map", _column(subject), _mappings_text(mappings), cluster_col, seed_col)


TransformList = Union[Column, "list[tuple[str, str]]", "list[dict[str, str]]"]


def _transform_list(transforms: TransformList) -> Column:
    """A Column as is; a Python list of (src, dest) pairs or {"src", "dest"} dicts as a constant
    ARRAY<STRUCT<src, dest>> (compiled once, checked before any data is read)."""
    if isinstance(transforms, Column):
        return transforms
    pairs = []
    for i, t in enumerate(transforms):
        src, dest = (t.get("src", ""), t.get("dest", "")) if isinstance(t, dict) else t
        if not isinstance(src, str) or not isinstance(dest, str):
            raise TypeError(f"transforms[{i}]: src and dest must be strings, got {t!r}")
        pairs.append(F.struct(F.lit(src).alias("src"), F.lit(dest).alias("dest")))
    return F.array(*pairs).cast("array<struct<src:string,dest:string>>")


def subject_filter_transform(subject: ColumnOrName, transforms: TransformList) -> Column:
    """Applies a stream source's or mirror's ``subject_transforms`` list, as nats-server does.

    The message is taken when ``subject`` matches one of the ``src`` filters and renamed by the first
    entry with a non-empty ``dest`` whose ``src`` matches (``dest`` ``""``: kept as is); NULL when it is
    not taken. ``transforms`` is a list of ``(src, dest)`` pairs or ``{"src", "dest"}`` dicts (a
    constant) or an ``ARRAY<STRUCT<src, dest>>`` Column.

    >>> df.select(subject_filter_transform("subject", [("foo", "foo-transformed"), ("bar", "")]))  # doctest: +SKIP
    foo -> foo-transformed, bar -> bar, baz -> NULL
    """
    return F.call_function("subject_filter_transform", _column(subject), _transform_list(transforms))


def try_subject_filter_transform(subject: ColumnOrName, transforms: TransformList) -> Column:
    """Like :func:`subject_filter_transform`, but an invalid list gives NULL instead of an error."""
    return F.call_function("try_subject_filter_transform", _column(subject), _transform_list(transforms))
