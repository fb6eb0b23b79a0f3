"""Partitioned consumer groups without the jar: :func:`subjxform.groups.consumer_group_partition` and
``consumer_group_member`` from Spark's built-in functions, for a constant config.

The config is read and checked by the grammar (``subjxform.grammar.consumer_group``, the jar's core
``ConsumerGroup`` in Python), with the library's reasons; an elastic group's partition is the portable build of its sourcing transforms (the same
``subject_filter_transform`` tree, FNV-1a in one ``aggregate``), a static group's the subject's first
token; the member is one ``CASE`` over the partition (blocks and remainder, or the mappings)::

    from subjxform.portable.groups import consumer_group_member
    df.select(consumer_group_member("subject", config))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..arguments import is_column
from ..grammar.consumer_group import Group, InvalidConsumerGroup, parse_group
from ..grammar.filter_transforms import compile_filter_transforms
from ..grammar.subjects import compile_filter
from . import InvalidArgumentValue, NeedsTheJar, _build, _column, _expr, _version
from ._expr import call, case, cast, lit, null, when

__all__ = ["consumer_group_partition", "consumer_group_member"]


def partition_tree(g: Group, server_version=None) -> _expr.Node:
    """The partition (INT), NULL where the group does not take the message."""
    if g.kind == "elastic":
        ft = compile_filter_transforms(g.transforms, server_version, field="partitioning_filters")
        out = _build.filter_transform_tree(ft, None, function=None)
        return cast(call("substring_index", out, lit("."), _build.i32(1)), "int")
    parts = _build.SubjectParts()
    first = parts.token(0)
    # Go's %d of a partition below N: a consumer filter `<p>.…` takes no other first token.
    # (the cast inside a CASE: AND does not guard it, and under ANSI a cast of a token that is no number fails)
    digits = call("rlike", first, lit("^(0|[1-9][0-9]{0,9})$"))
    canonical = _expr.and_(
        parts.is_literal(),
        parts.has_more_tokens_than(1),  # a partition token and at least one more
        call("<", when(digits, cast(first, "bigint")), lit(g.max_members)),
    )
    if g.owners is None and g.filters:
        canonical = _expr.and_(canonical, _build.call_or([parts.matches(compile_filter("*." + f)) for f in g.filters]))
    return when(canonical, cast(first, "int"))


def member_tree(g: Group, partition: _expr.Node) -> _expr.Node:
    """The member of `partition` (STRING), as GeneratePartitionFilters assigns it."""
    if g.owners is not None:
        return case(*[(call("=", partition, _build.i32(p)), lit(m)) for p, m in enumerate(g.owners) if m is not None])
    if not g.active_members:
        return null("string")
    n, m = g.max_members, len(g.active_members)
    per = n // m
    # blocks of `per` partitions, then the remainder (fewer than m partitions) one each, round robin
    whens = [(call("<", partition, _build.i32((i + 1) * per)), lit(g.active_members[i])) for i in range(m)]
    whens += [
        (call("=", partition, _build.i32(p)), lit(g.active_members[g.member_index(p)])) for p in range(m * per, n)
    ]
    return case(*whens)


def _group(config, function: str, server_version) -> tuple[Group, Any]:
    if is_column(config):
        raise NeedsTheJar(
            f"subjxform.portable.groups.{function}: `config` from a Column needs the jar "
            f"(subjxform.groups.{function}); the portable form takes a constant config (a str or a dict)"
        )
    if not isinstance(config, (str, Mapping)):
        raise TypeError(f"config must be the group's JSON (a str or a dict), not {type(config).__name__}")
    version = _version(server_version, function)
    try:
        return parse_group(config, version), version
    except InvalidConsumerGroup as e:
        raise InvalidArgumentValue(function, "config", str(e)) from None


def consumer_group_partition(subject, config, server_version: str | None = None):
    """:func:`subjxform.groups.consumer_group_partition` from built-in functions: `config` a constant."""
    g, version = _group(config, "consumer_group_partition", server_version)
    return _column(partition_tree(g, version), subject, None, "consumer_group_partition")


def consumer_group_member(subject, config, server_version: str | None = None):
    """:func:`subjxform.groups.consumer_group_member` from built-in functions: `config` a constant."""
    g, version = _group(config, "consumer_group_member", server_version)
    return _column(
        _expr.let(partition_tree(g, version), lambda p: member_tree(g, p)), subject, None, "consumer_group_member"
    )
