"""How one destination token reads, as the jar's ``DestinationSyntax`` (jvm/core/.../engine/DestinationSyntax.scala):
the operations, nats-server's error texts, its (unanchored) function patterns and argument readers.

The quirks are deliberate, nats-server's, and pinned by the golden cases: function tokens are found with
unanchored patterns, arguments are split on ``,`` plus white space, numbers are read as Go's
``strconv.ParseInt`` reads them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .java_text import java_length
from .server_version import ServerVersion, resolve
from .subjects import tokens

# Operations of a destination token (DestinationSyntax.Op)

LITERAL = "literal"
WILDCARD = "wildcard"
PARTITION = "partition"
SPLIT_FROM_LEFT = "splitfromleft"
SPLIT_FROM_RIGHT = "splitfromright"
SLICE_FROM_LEFT = "slicefromleft"
SLICE_FROM_RIGHT = "slicefromright"
SPLIT = "split"
LEFT = "left"
RIGHT = "right"
RANDOM = "random"
FWC = "fwc"  # the trailing `>`: every token the source's `>` matched
CRASH = "crash"  # `{{partition(0,…)}}` on a line whose server panics on it: its process exits (crash_words); NULL

NOT_ENOUGH_ARGS = "invalid mapping destination: not enough arguments passed to the function"
TOO_MANY_ARGS = "invalid mapping destination: too many arguments passed to the function"
INVALID_ARG = "invalid mapping destination: function argument is invalid or in the wrong format"
UNKNOWN_FUNCTION = "invalid mapping destination: unknown function"
INDEX_OUT_OF_RANGE = "invalid mapping destination: wildcard index out of range"
NOT_FOR_IMPORT = (
    "invalid mapping destination: the only mapping function allowed for import transforms is {{Wildcard()}}"
)
NOT_USING_ALL_WILDCARDS = "invalid mapping destination: not using all of the token wildcard(s)"
INVALID_SUBJECT = "invalid subject"

_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def in_token(reason: str, token: str) -> str:
    """nats-server's mappingDestinationErr text: the reason, then the token when there is one."""
    return f"{reason} in {token}" if token else reason


class TokenSyntaxError(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


# One destination token (DestinationSyntax.scala)


def _camel(*words: str) -> re.Pattern[str]:
    # Only the first letter of each word may change case, as in nats-server's patterns. Go's `\s` is
    # [\t\n\f\r ] and its `.` anything but \n, as Python's `.` without DOTALL.
    body = "".join(f"[{w[0].lower()}{w[0].upper()}]" + re.escape(w[1:]) for w in words)
    return re.compile(r"\{\{[\t\n\f\r ]*" + body + r"[\t\n\f\r ]*\((.*)\)[\t\n\f\r ]*\}\}")


FUNCTION_PATTERNS = {
    "wildcard": _camel("wildcard"),
    "partition": _camel("partition"),
    "splitfromleft": _camel("split", "from", "left"),
    "splitfromright": _camel("split", "from", "right"),
    "slicefromleft": _camel("slice", "from", "left"),
    "slicefromright": _camel("slice", "from", "right"),
    "split": _camel("split"),
    "left": _camel("left"),
    "right": _camel("right"),
    "random": _camel("random"),
}
_ARG_SEPARATOR = re.compile(r",[\t\n\f\r ]*")


def canonical(token: str) -> str:
    """`<<fn(args)>>` reads as `{{fn(args)}}`, so a destination can live inside a Jinja template."""
    if java_length(token) > 4 and token.startswith("<<") and token.endswith(">>"):
        return token.replace("<<", "{{").replace(">>", "}}")
    return token


def looks_like_function(t: str) -> bool:
    return java_length(t) > 4 and t.startswith("{{") and t.endswith("}}")


def names_known_function(t: str, version: ServerVersion) -> bool:
    return any(FUNCTION_PATTERNS[f].search(t) for f in version.functions)


def parse_go_int(s: str) -> int | None:
    """Go's strconv.ParseInt(s, 10, 64): optional sign, ASCII digits only, no white space."""
    digits_from = 1 if s[:1] in ("+", "-") else 0
    digits = s[digits_from:]
    if not digits or any(c not in "0123456789" for c in digits):
        return None
    v = int(s)
    return v if _LONG_MIN <= v <= _LONG_MAX else None


def _trim_spaces(s: str) -> str:
    return s.strip(" ")


def _to_int32(v: int) -> int:
    """Scala's `Long.toInt` (Go's int32(x)): the low 32 bits, signed."""
    return ((v + 2**31) % 2**32) - 2**31


def _int_arg(s: str, token: str) -> int:
    v = parse_go_int(_trim_spaces(s))
    if v is None:
        raise TokenSyntaxError(in_token(INVALID_ARG, token))
    return v


def _int32_arg(s: str, token: str, version: ServerVersion) -> int:
    v = _int_arg(s, token)
    if version.character_counts_bound_to_32_bits and not _INT_MIN <= v <= _INT_MAX:
        raise TokenSyntaxError(in_token(INVALID_ARG, token))
    return _to_int32(v)


def _count_arg(s: str, token: str, version: ServerVersion) -> int:
    v = _int_arg(s, token)
    if version.counts_bound_to_32_bits and v > _INT_MAX:
        raise TokenSyntaxError(in_token(INVALID_ARG, token))
    return _to_int32(v)


@dataclass(frozen=True)
class _Parsed:
    op: str
    indexes: tuple[int, ...] = ()
    int_arg: int = -1
    string: str = ""


_LITERAL = _Parsed(LITERAL)


def _index_and_int(op: str, a: list, token: str, version: ServerVersion) -> _Parsed:
    if len(a) < 2:
        raise TokenSyntaxError(in_token(NOT_ENOUGH_ARGS, token))
    if len(a) > 2:
        raise TokenSyntaxError(in_token(TOO_MANY_ARGS, token))
    index = _int_arg(a[0], token)
    return _Parsed(op, (index,), _int32_arg(a[1], token, version))


def _function(name: str, a: list, token: str, version: ServerVersion) -> _Parsed:
    if name == "wildcard":
        if len(a) == 1 and a[0] == "":
            raise TokenSyntaxError(in_token(NOT_ENOUGH_ARGS, token))
        if len(a) > 1:
            raise TokenSyntaxError(in_token(TOO_MANY_ARGS, token))
        return _Parsed(WILDCARD, (_int_arg(a[0], token),))
    if name == "partition":
        if len(a) < 2 and not version.partition_of_whole_subject:
            raise TokenSyntaxError(in_token(NOT_ENOUGH_ARGS, token))
        n = _count_arg(a[0], token, version)
        return _Parsed(PARTITION, tuple(_int_arg(x, token) for x in a[1:]), n)
    if name in (SPLIT_FROM_LEFT, SPLIT_FROM_RIGHT, SLICE_FROM_LEFT, SLICE_FROM_RIGHT, LEFT, RIGHT):
        return _index_and_int(name, a, token, version)
    if name == "split":
        if len(a) < 2:
            raise TokenSyntaxError(in_token(NOT_ENOUGH_ARGS, token))
        if len(a) > 2:
            raise TokenSyntaxError(in_token(TOO_MANY_ARGS, token))
        index = _int_arg(a[0], token)
        # The separator is taken untrimmed; a space or `.` in it could never match inside a token.
        if " " in a[1] or "." in a[1]:
            raise TokenSyntaxError(in_token(INVALID_ARG, token))
        return _Parsed(SPLIT, (index,), -1, a[1])
    if name == "random":
        # nats-server reports any count other than one as "not enough".
        if len(a) != 1:
            raise TokenSyntaxError(in_token(NOT_ENOUGH_ARGS, token))
        return _Parsed(RANDOM, (), _count_arg(a[0], token, version))
    raise AssertionError(name)


def parse_token(token: str, t: str, version: ServerVersion) -> _Parsed:
    """One destination token as the line's indexPlaceHolders reads it; `t` is its canonical form."""
    if java_length(t) <= 1:
        return _LITERAL
    if t[0] == "$":
        # Anything after `$` that is not a number leaves the token a literal, as in nats-server.
        i = parse_go_int(t[1:])
        return _LITERAL if i is None else _Parsed(WILDCARD, (i,))
    if not looks_like_function(t):
        return _LITERAL
    # resolved where a subject is installed for an account (account_functions.expand); any left are refused
    if version.account_functions:
        from .account_functions import NOT_AVAILABLE, is_account_function

        if is_account_function(t):
            raise TokenSyntaxError(in_token(NOT_AVAILABLE, token))
    for name in version.parsed_functions:
        m = FUNCTION_PATTERNS[name].search(t)
        if m:
            return _function(name, _ARG_SEPARATOR.split(m.group(1)), token, version)
    raise TokenSyntaxError(in_token(UNKNOWN_FUNCTION, token))


def partitions_written(dest: str, server_version=None) -> list[tuple[int, tuple[int, ...]]]:
    """(count, wildcard indexes) of each ``{{partition(...)}}`` token of a destination, read as the line reads
    it (``<<...>>``, any case); no indexes: the whole subject is hashed. Tokens the line cannot read are left
    out (the table's check reports them)."""
    version = server_version if isinstance(server_version, ServerVersion) else resolve(server_version)
    out = []
    for token in tokens(dest) if dest else []:
        try:
            p = parse_token(token, canonical(token), version)
        except TokenSyntaxError:
            continue
        if p.op == PARTITION:
            out.append((p.int_arg, p.indexes))
    return out
