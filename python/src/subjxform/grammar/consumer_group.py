"""A partitioned consumer group's config (orbit.go pcgroups), read and checked as the jar's ``ConsumerGroup``
(jvm/core/.../config/ConsumerGroup.scala) reads it, with the library's reasons, and what it answers for one
subject and lists for its plan, in plain Python (no Spark): ``subjxform group`` checks a config and places
subjects with it, in milliseconds; ``portable.groups`` builds its SQL from it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .filter_transforms import FilterTransformList, InvalidStreamConfig, compile_filter_transforms
from .subject_transform import apply_reference
from .subjects import compile_filter, filter_matches, is_subset_match, is_valid_subject, literal_tokens

_MAX_INT = 2**31 - 1


class InvalidConsumerGroup(ValueError):
    """A config the library refuses, with its reason (the jar's InvalidConsumerGroupException)."""


@dataclass(frozen=True)
class Group:
    kind: str  # "elastic" or "static"
    max_members: int
    active_members: tuple[str, ...]  # the members with partitions, in the library's order (empty with mappings)
    owners: tuple[str | None, ...] | None  # the member of each partition, with mappings
    filters: tuple[str, ...]
    transforms: tuple[tuple[str, str], ...]  # an elastic group's sourcing (src, dest)
    members: tuple[str, ...] = ()  # `members` as configured
    member_mappings: tuple[tuple[str, tuple[int, ...]], ...] = ()  # as configured
    sourcing: FilterTransformList | None = None  # the transforms compiled (elastic)

    def member_index(self, p: int) -> int:
        """GeneratePartitionFilters: blocks of N / members partitions, then the remainder round robin."""
        n, m = self.max_members, len(self.active_members)
        per = n // m
        return p // per if p < m * per else (p - m * per) % m

    # What the jar's ConsumerGroup answers for one subject and lists for its plan, in plain Python (no Spark):
    # `subjxform group` checks a config and places subjects with these, in milliseconds.

    def partition(self, subject: bytes) -> int | None:
        """The subject's partition (its UTF-8 bytes), None where the group does not take it."""
        toks = literal_tokens(subject)
        if toks is None:
            return None
        if self.sourcing is not None:
            rename = next((t for t in self.sourcing.renames if filter_matches(t.filter, toks)), None)
            out = None if rename is None else apply_reference(rename, subject)
            return None if out is None else self._leading_partition(out)
        if self.owners is None and self.filters:
            if not any(filter_matches(compile_filter("*." + f), toks) for f in self.filters):
                return None
        return self._leading_partition(subject)

    def _leading_partition(self, subject: bytes) -> int | None:
        """The canonical decimal below N (as Go's %d writes it) that the first of two or more tokens is."""
        first, dot, _ = subject.partition(b".")
        if not dot or not first.isdigit() or (len(first) > 1 and first[:1] == b"0"):
            return None
        p = int(first)
        return p if p < self.max_members else None

    def member(self, p: int | None) -> str | None:
        """The member of partition ``p``, None when no member has it."""
        if p is None:
            return None
        if self.owners is not None:
            return self.owners[p]
        return self.active_members[self.member_index(p)] if self.active_members else None

    def partition_filters(self, member: str) -> list[str]:
        """The member's consumer filter subjects, as the library lists them."""
        out = []
        for f in self.filters or (">",):
            if self.active_members:
                out += [f"{p}.{f}" for p in range(self.max_members) if self.member(p) == member]
            else:
                out += [f"{p}.>" for m, ps in self.member_mappings if m == member for p in ps]
        return out

    def plan(self) -> dict:
        """The group laid out as the jar's ``consumer_group_plan`` gives it: ``kind``, ``bucket``,
        ``max_members``, ``filters``, ``transforms`` and ``members`` (each with its ``partitions`` and
        ``filter_subjects``)."""
        if self.active_members:
            partitions = {m: [p for p in range(self.max_members) if self.member(p) == m] for m in self.active_members}
        else:
            partitions = {m: list(ps) for m, ps in self.member_mappings if ps}
        names = list(dict.fromkeys([*self.active_members, *self.members, *(m for m, _ in self.member_mappings)]))
        return {
            "kind": self.kind,
            "bucket": f"{self.kind}-consumer-groups",
            "max_members": self.max_members,
            "filters": list(self.filters),
            "transforms": [{"src": s, "dest": d} for s, d in self.transforms],
            "members": [
                {"member": m, "partitions": partitions.get(m, []), "filter_subjects": self.partition_filters(m)}
                for m in names
            ],
        }


def _field(o: list, key: str) -> Any:
    """Go's encoding/json: the exact key, else any key equal case-insensitively; the last one wins; null is absent."""
    exact = [v for k, v in o if k == key]
    found = exact or [v for k, v in o if k.lower() == key.lower()]
    if not found:
        return None
    return found[-1]


def _is_object(v: Any) -> bool:
    """Whether a value read with object_pairs_hook=list is a JSON object (a list of (key, value) tuples)."""
    return isinstance(v, list) and all(isinstance(x, tuple) for x in v)


def _has(o: list, key: str) -> bool:
    return any(k.lower() == key.lower() for k, _ in o)


def _sourcing_destination(filter_: str, wildcards: list[int], n: int) -> str:
    """The library's getPartitioningTransformDest."""
    toks, star = [], 0
    for t in filter_.split("."):
        if t == "*":
            star += 1
            t = "{{Wildcard(%d)}}" % star
        toks.append(t)
    ws = "".join("," + str(w) for w in wildcards)
    return "{{Partition(%d%s)}}.%s" % (n, ws, ".".join(toks))


def _go_less_key(s: str) -> bytes:
    return s.encode("utf-8", "surrogatepass")  # Go sorts strings by their bytes


def parse_group(config: str | Mapping[str, Any], server_version=None) -> Group:
    """The group of a config (JSON text or a dict), checked as the jar checks it; raises ValueError with
    the jar's (the library's) text."""
    text = config if isinstance(config, str) else json.dumps(config)
    try:
        root = json.loads(text, object_pairs_hook=list)
    except ValueError as e:
        raise InvalidConsumerGroup(f"invalid JSON value for the consumer group's config: {e}") from None
    if not _is_object(root):
        raise InvalidConsumerGroup("invalid JSON value for the consumer group's config: expected a JSON object")
    elastic, static = _has(root, "partitioning_filters"), _has(root, "filters")
    if elastic == static:
        raise InvalidConsumerGroup(
            (
                'the config has both "partitioning_filters" and "filters"'
                if elastic
                else 'the config has neither "partitioning_filters" nor "filters"'
            )
            + ': say which kind of group it is (an elastic group\'s config has "partitioning_filters", null '
            'when there are none; a static group\'s "filters", [] when there are none)'
        )
    kind = "elastic" if elastic else "static"

    def bad(path: str, expected: str):
        return InvalidConsumerGroup(
            f"invalid JSON value for the {kind} consumer group's config: {path} must be {expected}"
        )

    def items(v, path):
        if v is None:
            return []
        if not isinstance(v, list) or (v and _is_object(v)):
            raise bad(path, "a list")
        return v

    def integer(v, path, unsigned=False):
        if v is None:
            return 0
        if isinstance(v, bool) or not isinstance(v, int) or (unsigned and v < 0):
            raise bad(path, "an integer >= 0" if unsigned else "an integer")
        return v

    def string(v, path):
        if v is None:
            return ""
        if not isinstance(v, str):
            raise bad(path, "a string")
        return v

    def obj(v, path):
        if v is None:
            return []
        if not _is_object(v):
            raise bad(path, "an object")
        return v

    n = integer(_field(root, "max_members"), "max_members", unsigned=True)
    partitioning = []
    if kind == "elastic":
        for i, v in enumerate(items(_field(root, "partitioning_filters"), "partitioning_filters")):
            o = obj(v, f"partitioning_filters[{i}]")
            path = f"partitioning_filters[{i}]"
            partitioning.append(
                (
                    string(_field(o, "filter"), f"{path}.filter"),
                    [
                        integer(w, f"{path}.partitioning_wildcards[{j}]")
                        for j, w in enumerate(
                            items(_field(o, "partitioning_wildcards"), f"{path}.partitioning_wildcards")
                        )
                    ],
                )
            )
    filters = (
        [string(v, f"filters[{i}]") for i, v in enumerate(items(_field(root, "filters"), "filters"))]
        if kind == "static"
        else []
    )
    members = [string(v, f"members[{i}]") for i, v in enumerate(items(_field(root, "members"), "members"))]
    mappings = []
    for i, v in enumerate(items(_field(root, "member_mappings"), "member_mappings")):
        o = obj(v, f"member_mappings[{i}]")
        mappings.append(
            (
                string(_field(o, "member"), f"member_mappings[{i}].member"),
                [
                    integer(p, f"member_mappings[{i}].partitions[{j}]")
                    for j, p in enumerate(items(_field(o, "partitions"), f"member_mappings[{i}].partitions"))
                ],
            )
        )

    def fail(reason: str):
        raise InvalidConsumerGroup(f"invalid {kind} consumer group config: {reason}")

    # validateConfig / validateStaticConfig, in the library's order and words
    if n < 1:
        fail("the max number of members must be >= 1")
    for f, wildcards in partitioning:
        if f == "":
            fail("partitioning filters must have a non-empty filter")
        toks = f.split(".")
        stars = toks.count("*")
        if stars == 0 and toks[-1] != ">":
            fail("partitioning filters must have at least one * wildcard or end with > wildcard")
        if len(wildcards) > stars:
            fail(
                "the number of partitioning wildcards must not be larger than the total number of * wildcards in the filter"
            )
        seen = set()
        for w in wildcards:
            if w in seen:
                fail("partitioning wildcard indexes must be unique")
            seen.add(w)
            if w > stars or w < 1:
                fail("partitioning wildcard indexes must be between 1 and the number of * wildcards in the filter")
    if members and mappings:
        fail("either members or member mappings must be provided, not both")
    if mappings:
        if len(mappings) > n:
            fail("the number of member mappings must be between 1 and the max number of members")
        names, partitions = set(), set()
        for member, ps in mappings:
            if member in names:
                fail("member names must be unique")
            names.add(member)
            for p in ps:
                if p in partitions:
                    fail("partition numbers must be used only once")
                partitions.add(p)
                if p < 0 or p >= n:
                    fail("partition numbers must be between 0 and one less than the max number of members")
        if len(partitions) != n:
            fail(
                "the number of unique partition numbers must be equal to the max number of members"
                if kind == "elastic"
                else "the number of unique partition numbers specified in the mappings must be equal to the max number of members"
            )
    if n > _MAX_INT:
        raise InvalidConsumerGroup(
            f"max_members {n}: more partitions than {{{{Partition(n)}}}} takes (at most {_MAX_INT})"
        )

    transforms: tuple[tuple[str, str], ...] = ()
    sourcing = None
    if kind == "elastic":
        pfs = partitioning or [(">", [])]
        transforms = tuple((f, _sourcing_destination(f, w, n)) for f, w in pfs)
        try:
            sourcing = compile_filter_transforms(transforms, server_version, field="partitioning_filters")
        except InvalidStreamConfig as e:
            raise InvalidConsumerGroup(f"nats-server refuses the group's sourcing stream: {e}") from None
    elif not mappings:
        for i, f in enumerate(filters):
            if not is_valid_subject(f):
                raise InvalidConsumerGroup(
                    f"nats-server refuses the members' consumers: filters[{i}] {json.dumps(f)}: invalid subject"
                )
            for j, o in enumerate(filters):
                if i != j and is_subset_match(f, o):
                    raise InvalidConsumerGroup(
                        f"nats-server refuses the members' consumers: filters[{i}] {json.dumps(f)} and "
                        f"filters[{j}] {json.dumps(o)}: consumer subject filters cannot overlap "
                        "(nats-server error 10138)"
                    )
    owners = None
    if mappings:
        table: list[str | None] = [None] * n
        for member, ps in mappings:
            for p in ps:
                table[p] = member
        owners = tuple(table)
    active = () if mappings else tuple(sorted(dict.fromkeys(members), key=_go_less_key)[:n])
    return Group(
        kind,
        n,
        active,
        owners,
        tuple(p[0] for p in partitioning) if kind == "elastic" else tuple(filters),
        transforms,
        tuple(members),
        tuple((m, tuple(ps)) for m, ps in mappings),
        sourcing,
    )
