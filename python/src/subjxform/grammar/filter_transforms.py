"""A stream source's list of subject transforms, as the jar's ``FilterTransforms`` (jvm/core/.../config/
FilterTransforms.scala): nats-server's rules for one source, the one-source rule ``subject_filter_transform``
uses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .go_quote import go_quote
from .server_version import ServerVersion, resolve
from .subject_transform import InvalidTransform, Transform, compile_transform
from .subjects import Filter, compile_filter, is_subset_match, is_valid_subject


class InvalidStreamConfig(ValueError):
    """A stream source's transform list nats-server would reject (InvalidStreamConfigException)."""

    def __init__(self, field: str, description: str, err_code: int):
        self.field = field
        self.description = description
        self.err_code = err_code
        super().__init__(f"{field}: {description}" + (f" (nats-server error {err_code})" if err_code > 0 else ""))

    @property
    def message(self) -> str:
        return self.args[0]


# Stream source lists (FilterTransforms.compile, the one-source rule subject_filter_transform uses)


@dataclass(frozen=True)
class FilterTransformList:
    """A compiled stream source list: every entry's source as an interest filter (None: an empty list
    takes everything) and the renaming entries (source filter with nats-server's quirk, transform)."""

    pairs: tuple[tuple[str, str], ...]
    filters: tuple[Filter, ...]
    renames: tuple[Transform, ...]

    @property
    def is_random(self) -> bool:
        return any(t.is_random for t in self.renames)


def or_fwc(src: str) -> str:
    """No source means `>`, as nats-server reads it when it builds a transform (an error is the one of `>`)."""
    return src if src else ">"


def compile_filter_transforms(
    pairs: Sequence[tuple[str, str] | None], server_version=None, field: str = "transforms"
) -> FilterTransformList:
    """TransformListCache.compile + FilterTransforms.compile with nats-server's rules for one source, as the line
    builds the list (not its stream config check)."""
    version = server_version if isinstance(server_version, ServerVersion) else resolve(server_version)
    ps: list[tuple[str, str]] = []
    for i, p in enumerate(pairs):
        if p is None:
            raise InvalidStreamConfig(f"{field}[{i}]", "is NULL", 0)
        ps.append(p)
    kind = "source"
    source_err, dest_err = 10145, 10146

    def entry(i: int) -> str:
        return f"{field}[{i}]"

    transforms: list = [None] * len(ps)

    def check_overlap(i: int) -> None:
        j = None
        for c in range(len(ps)):
            if c != i and is_subset_match(ps[i][0], ps[c][0]) and (j is None or c < j):
                j = c
        if j is not None:
            a, b = min(i, j), max(i, j)
            raise InvalidStreamConfig(
                f"{entry(a)}, {entry(b)}",
                f"source filters can not overlap ({go_quote(ps[a][0])} and {go_quote(ps[b][0])})",
                10147,
            )

    # (2.10's stream config check of a source's destination tokens is the config's, not the list's: 2.10 builds a
    # list as transforms alone, white space in a literal token and left/right included, and stores what they build.)
    as_mappings = version.stream_transforms_checked_as_mappings

    def compile_entry(src: str, dest: str, i: int) -> Transform:
        if as_mappings:
            try:
                return compile_transform(or_fwc(src), dest, False, version).keeping_empty_tokens()
            except InvalidTransform as e:
                raise InvalidStreamConfig(entry(i), f"{kind} transform: {e.reason}", dest_err) from None
        try:
            return compile_transform(src, dest, False, version, mapping_checks=False).keeping_empty_tokens()
        except InvalidTransform as e:
            raise InvalidStreamConfig(
                entry(i), f"subject transform from '{src}' to '{dest}' for the {kind}: {e.reason}", 10049
            ) from None

    for i, (src, dest) in enumerate(ps):
        if src is None or dest is None:
            raise InvalidStreamConfig(entry(i), f"{kind} transform: src and dest must be strings", 0)
        if as_mappings:
            if src and not is_valid_subject(src):
                raise InvalidStreamConfig(entry(i), f"{kind} transform source: invalid subject {src}", source_err)
            if dest:
                transforms[i] = compile_entry(src, dest, i)
        else:
            if not is_valid_subject(src):
                # 2.10 takes no empty source (`>` from 2.11 on) and names no culprit.
                raise InvalidStreamConfig(entry(i), f"{kind} subject filter is invalid", source_err)
            # 2.10 checks a source's overlaps entry by entry.
            check_overlap(i)
    if as_mappings:
        for i in range(len(ps)):
            check_overlap(i)
    else:
        for i, (src, dest) in enumerate(ps):
            if dest:
                transforms[i] = compile_entry(src, dest, i)

    return FilterTransformList(
        tuple((s, d) for s, d in ps),
        tuple(compile_filter(or_fwc(s)) for s, _ in ps),
        tuple(t for t in transforms if t is not None),
    )
