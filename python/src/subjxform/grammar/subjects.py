"""Subjects and filters, as the jar's ``Subjects`` and ``SubjectFilter`` (jvm/core/.../engine/Subjects.scala):
tokens, nats-server's validity checks, subset matching, and a compiled filter with its matching."""

from __future__ import annotations

from dataclasses import dataclass

from .go_quote import go_quote

# Subjects (Subjects.scala)


def tokens(subject: str) -> list:
    """Splits on every `.`, keeping empty tokens (Go's strings.Split)."""
    return subject.split(".")


def is_nats_space(c: str) -> bool:
    return c in " \t\n\r\f"


def is_valid_subject(subject: str) -> bool:
    """nats-server's IsValidSubject: a subject or filter with `>` last at most, and no white space."""
    return _valid_tokens(subject, space_allowed=False)


def is_valid_transform_source(subject: str) -> bool:
    """nats-server's check of a transform's source alone (NewSubjectTransform, without IsValidSubject): no empty
    token, `>` last at most; white space in a token passes (a republish's source on every line, 2.10's ingress
    transform's). Such a source matches no valid subject (Subjects.isValidTransformSource)."""
    return _valid_tokens(subject, space_allowed=True)


def _valid_tokens(subject: str, space_allowed: bool) -> bool:
    if not subject:
        return False
    after_fwc = False
    for t in tokens(subject):
        if not t or after_fwc:
            return False
        if t == ">":
            after_fwc = True
        elif not space_allowed and any(is_nats_space(c) for c in t):
            return False
    return True


def is_subset_match(subject: str, test: str) -> bool:
    """nats-server's subjectIsSubsetMatch(subject, test)."""
    toks, tts = tokens(subject), tokens(test)
    for i, t2 in enumerate(tts):
        if i >= len(toks):
            return False
        if not t2:
            return False
        if t2 == ">":
            return True
        t1 = toks[i]
        if not t1 or t1 == ">":
            return False
        if t1 == "*":
            if t2 != "*":
                return False
        elif t2[0] != "*" and t1 != t2:
            return False
    return len(toks) == len(tts)


class InvalidFilter(ValueError):
    """An invalid subject filter (InvalidFilterException)."""

    def __init__(self, filter: str):
        self.filter = filter
        super().__init__(f"Subject {go_quote(filter)} is not a valid subject")

    @property
    def message(self) -> str:
        return self.args[0]


# Compiled forms


@dataclass(frozen=True)
class Filter:
    """A compiled subject filter: one entry per token, None where the token matches any one token (`*`,
    or with nats-server's source quirk any token starting with `*`), and whether it ends in `>`."""

    text: str
    literals: tuple[str | None, ...]  # the trailing `>` included (as None)
    ends_with_fwc: bool

    @property
    def length(self) -> int:
        return len(self.literals)


def compile_filter(filter: str, source_quirk: bool = False, transform_source: bool = False) -> Filter:
    """A valid filter (SubjectFilter.compile); InvalidFilter for an invalid one. ``transform_source``: a
    transform's source checked only as NewSubjectTransform checks it (is_valid_transform_source): a token with
    white space is a literal no subject matches."""
    if not (is_valid_transform_source(filter) if transform_source else is_valid_subject(filter)):
        raise InvalidFilter(filter)
    toks = tokens(filter)
    lits = tuple(None if (t == "*" or (source_quirk and t.startswith("*")) or t == ">") else t for t in toks)
    return Filter(filter, lits, toks[-1] == ">")


def literal_tokens(subject: bytes) -> list | None:
    """Workspace.tokenize: the tokens of a literal subject, or None (an empty token, a lone `*`/`>`)."""
    if not subject:
        return None
    toks = subject.split(b".")
    if any(not t or t in (b"*", b">") for t in toks):
        return None
    return toks


def filter_matches(f: Filter, toks: list) -> bool:
    n = f.length
    if (len(toks) < n) if f.ends_with_fwc else (len(toks) != n):
        return False
    fixed = n - 1 if f.ends_with_fwc else n
    return all((lit := f.literals[i]) is None or lit.encode("utf-8", "surrogatepass") == toks[i] for i in range(fixed))
