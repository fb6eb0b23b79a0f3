"""The nats-server release lines and what each one's binary does differently when it compiles a subject
transform: a port of the jar's capability table (jvm/core/.../ServerVersion.scala), field for field, so
that the portable grammar accepts, refuses and builds exactly what the jar does for every line."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import FrozenSet, Optional, Tuple

from ._quote import go_quote


@dataclass(frozen=True)
class ServerVersion:
    """One line's capabilities (the fields mean what ServerVersion.scala's do)."""

    line: str
    measured: str
    # mapping functions the line knows (its ValidateMapping list); any other is "unknown function"
    functions: FrozenSet[str]
    # functions its token parser reads, in its order of trial (2.10-2.14 parse left/right, then refuse them)
    parsed_functions: Tuple[str, ...]
    partition_of_whole_subject: bool
    functions_need_a_source_wildcard: bool
    counts_bound_to_32_bits: bool
    character_counts_bound_to_32_bits: bool
    partition_by_zero_is_zero: bool
    invalid_destination_error: str
    empty_token_error_says_in: bool
    stream_transforms_checked_as_mappings: bool

    def __str__(self) -> str:
        return self.line


V2_10 = ServerVersion(
    line="2.10",
    measured="2.10.26",
    functions=frozenset({"wildcard", "partition", "splitfromleft", "splitfromright", "slicefromleft",
                         "slicefromright", "split"}),
    parsed_functions=("wildcard", "partition", "splitfromleft", "splitfromright", "slicefromleft",
                      "slicefromright", "right", "left", "split"),
    partition_of_whole_subject=False,
    functions_need_a_source_wildcard=True,
    counts_bound_to_32_bits=False,
    character_counts_bound_to_32_bits=False,
    partition_by_zero_is_zero=False,
    invalid_destination_error="invalid mapping destination: invalid subject",
    empty_token_error_says_in=True,
    stream_transforms_checked_as_mappings=False,
)
V2_11 = replace(V2_10, line="2.11", measured="2.11.11", character_counts_bound_to_32_bits=True,
                invalid_destination_error="invalid mapping destination: invalid transform",
                stream_transforms_checked_as_mappings=True)
V2_12 = replace(V2_11, line="2.12", measured="2.12.8", functions=V2_11.functions | {"random"},
                parsed_functions=V2_11.parsed_functions + ("random",), partition_of_whole_subject=True,
                functions_need_a_source_wildcard=False, counts_bound_to_32_bits=True,
                partition_by_zero_is_zero=True, empty_token_error_says_in=False)
# 2.14.6 was measured to do exactly what 2.12.8 does.
V2_14 = replace(V2_12, line="2.14", measured="2.14.6")
V2_15 = replace(V2_14, line="2.15", measured="2.15.1", functions=V2_14.functions | {"left", "right"})

ALL: Tuple[ServerVersion, ...] = (V2_10, V2_11, V2_12, V2_14, V2_15)
NEWEST = V2_15
SUPPORTED = ", ".join(v.line for v in ALL)

# Java's \d is ASCII only: spelled out, as Python's \d takes any Unicode digit.
_SPELLING = re.compile(r"v?([0-9]+)\.([0-9]+)(?:\.([0-9]+))?")


class UnsupportedServerVersion(ValueError):
    """A server_version that names no supported line; the jar's words."""


def parse(text: Optional[str]) -> ServerVersion:
    """The line of '2.10', '2.10.26' or 'v2.10.26' (surrounding spaces ignored), as ServerVersion.parse."""

    def unsupported(why: str) -> UnsupportedServerVersion:
        return UnsupportedServerVersion(
            f"unsupported nats-server version {go_quote(str(text) if text is not None else 'null')}{why}: "
            f"supported lines are {SUPPORTED} (a line like '2.10' or a release like '2.10.26'; the default is "
            f"{NEWEST.line})")

    if text is None:
        raise unsupported("")
    # Java's String.trim drops every character <= U+0020, not only white space.
    trimmed = _java_trim(text)
    m = _SPELLING.fullmatch(trimmed)
    if not m:
        raise unsupported(" (not a version)")
    line = f"{int(m.group(1))}.{int(m.group(2))}"
    for v in ALL:
        if v.line == line:
            return v
    raise unsupported("")


def _java_trim(s: str) -> str:
    a, b = 0, len(s)
    while a < b and s[a] <= " ":
        a += 1
    while b > a and s[b - 1] <= " ":
        b -= 1
    return s[a:b]


def resolve(server_version: Optional[str]) -> ServerVersion:
    """None: the newest line; else the parsed line."""
    return NEWEST if server_version is None else parse(server_version)
