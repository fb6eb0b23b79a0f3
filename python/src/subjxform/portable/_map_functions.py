"""``subject_map`` and ``subject_map_explain`` without the jar: the same signatures and argument checks
as :mod:`subjxform.functions`, returning Columns built only from Spark's built-in functions. The table
must be a constant (a str or a dict): it is read, checked and compiled here, in Python, so an invalid
table raises :class:`InvalidMappings` (the jar's text) when the Column is built, before any query runs."""

from __future__ import annotations

import numbers
import random
from typing import Optional, Union

from pyspark.sql import Column
from pyspark.sql import functions as F

from .._compat import is_column
from . import _expr as E
from . import _map_build as MB
from . import _mappings as M

ColumnOrName = Union[Column, str]
ColumnOrValue = Union[Column, str]
MappingsValue = Union[str, dict]

# Seeds for unseeded draws: its own generator, so that a user's random.seed() does not repeat them.
_random = random.Random()


def _type_name(v: object) -> str:
    return type(v).__name__


def _column(c: ColumnOrName, name: str = "subject") -> Column:
    if isinstance(c, str):
        return F.col(c)
    if is_column(c):
        return c
    raise TypeError(f"{name} must be a column name (str) or a Column, not {_type_name(c)}")


def _table(mappings: MappingsValue, server_version: Optional[str]) -> M.MappingTable:
    if is_column(mappings):
        raise TypeError("subjxform.portable needs a constant mappings table (a str or a dict): a table taken from a "
                        "column needs the jar (subjxform.subject_map)")
    if not isinstance(mappings, (str, dict)):
        raise TypeError(f"mappings must be a str, a dict or a Column, not {_type_name(mappings)}")
    if server_version is not None and not isinstance(server_version, str):
        raise TypeError(f"server_version must be a str such as '2.10' (or None), not {_type_name(server_version)}: "
                        f"{server_version!r}")
    return M.compile_mappings(mappings, server_version)


def _seed(seed: Optional[int], key: Optional[ColumnOrName]) -> int:
    """The draws' seed, as subjxform.functions chooses it: one picked here, once, when neither a seed nor
    a key is given (as Spark's rand() does); with a key and no seed, 0 (the jar's seed for keyed draws)."""
    if seed is None:
        return _random.getrandbits(64) - 2 ** 63 if key is None else 0
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be an integer (or None), not {_type_name(seed)}: {seed!r}")
    if not -(2 ** 63) <= int(seed) < 2 ** 63:
        raise ValueError(f"seed must fit in a BIGINT (64 bits), got {seed}")
    return int(seed)


def _cluster(cluster: Optional[ColumnOrValue]) -> Optional[Column]:
    if cluster is None:
        return None
    if isinstance(cluster, str):
        return F.lit(cluster)
    if is_column(cluster):
        return cluster
    raise TypeError(f"cluster must be a str (a constant) or a Column, not {_type_name(cluster)}: {cluster!r}")


def _render(build, subject, mappings, cluster, seed, key, server_version) -> Column:
    subject_col = _column(subject)
    cluster_col = _cluster(cluster)
    key_col = None if key is None else _column(key, "key")
    table = _table(mappings, server_version)
    draws = MB.MapDraws(_seed(seed, key), None if key_col is None else E.Input("key"))
    tree = build(table, draws, None if cluster_col is None else E.Input("cluster"))
    inputs = {"subject": subject_col}
    if cluster_col is not None:
        inputs["cluster"] = cluster_col
    if key_col is not None:
        inputs["key"] = key_col
    return E.to_column(tree, inputs)


def subject_map(
    subject: ColumnOrName,
    mappings: MappingsValue,
    cluster: Optional[ColumnOrValue] = None,
    seed: Optional[int] = None,
    key: Optional[ColumnOrName] = None,
    server_version: Optional[str] = None,
) -> Column:
    """:func:`subjxform.subject_map` from Spark's built-in functions (no jar): a literal rule equal to the
    subject, else the first matching wildcard rule; no match leaves the subject unchanged; a dropped
    message is NULL. With ``key`` each message's draw is the jar's, row for row; without, the draw is
    Spark's ``rand`` (the same frequencies, not the jar's sequence)."""
    return _render(MB.map_tree, subject, mappings, cluster, seed, key, server_version)


def subject_map_explain(
    subject: ColumnOrName,
    mappings: MappingsValue,
    cluster: Optional[ColumnOrValue] = None,
    seed: Optional[int] = None,
    key: Optional[ColumnOrName] = None,
    server_version: Optional[str] = None,
) -> Column:
    """:func:`subjxform.subject_map_explain` from Spark's built-in functions: the same struct, and the
    same ``result`` as :func:`subject_map` with the same arguments (seed and key)."""
    return _render(MB.explain_tree, subject, mappings, cluster, seed, key, server_version)
