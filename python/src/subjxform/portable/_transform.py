"""The grammar in Python: how a source filter and a destination are read, checked and compiled, with
exactly the jar's acceptance and error texts (a port of jvm/core/.../DestinationSyntax.scala,
SubjectTransform.compile, Subjects, SubjectFilter and FilterTransforms.compile).

The quirks are deliberate, nats-server's, and pinned by the golden cases: function tokens are found with
unanchored patterns, arguments are split on ``,`` plus white space, numbers are read as Go's
``strconv.ParseInt`` reads them, index 0 (or below) is the subject's first token, a source token that
starts with ``*`` matches any token. Nothing here touches Spark: a compiled :class:`Transform` is what
``_build`` turns into an expression of Spark's built-in functions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from . import _versions
from ._quote import go_quote
from ._versions import ServerVersion

# ---------------------------------------------------------------------------------------------------
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
LOST = "lost"  # `{{partition(0,…)}}` on a line whose server panics on it: the message is lost

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


class InvalidTransform(ValueError):
    """An invalid transform, with the jar's message (InvalidTransformException) and nats-server's reason.

    ``nats_message`` is the error nats-server gives for the same entry of a ``mappings`` block."""

    def __init__(self, source: str, destination: str, reason: str, source_invalid: bool = False, detail: str = ""):
        self.source = source
        self.destination = destination
        self.reason = reason
        self.source_invalid = source_invalid
        message = f"invalid subject transform from {go_quote(source)} to {go_quote(destination)}: {reason}"
        super().__init__(message + (f" ({detail})" if detail else ""))

    @property
    def message(self) -> str:
        return self.args[0]

    @property
    def nats_message(self) -> str:
        if self.source_invalid:
            return self.reason
        return f"Error adding mapping for {go_quote(self.source)} to {go_quote(self.destination)} : {self.reason}"

    @property
    def blamed(self) -> str:
        """The parameter(s) the jar blames (SubjectTransformFunction.blame)."""
        if self.source_invalid:
            return "src"
        if self.reason != INVALID_SUBJECT:
            return "dest"
        return "src, dest"


class InvalidFilter(ValueError):
    """An invalid subject filter (InvalidFilterException)."""

    def __init__(self, filter: str):
        self.filter = filter
        super().__init__(f"Subject {go_quote(filter)} is not a valid subject")

    @property
    def message(self) -> str:
        return self.args[0]


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


class _SyntaxError(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


# ---------------------------------------------------------------------------------------------------
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


def _java_length(s: str) -> int:
    """A Java String's length (UTF-16 code units), which the jar's length checks count."""
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


# ---------------------------------------------------------------------------------------------------
# One destination token (DestinationSyntax.scala)


def _camel(*words: str) -> re.Pattern[str]:
    # Only the first letter of each word may change case, as in nats-server's patterns. Go's `\s` is
    # [\t\n\f\r ] and its `.` anything but \n, as Python's `.` without DOTALL.
    body = "".join(f"[{w[0].lower()}{w[0].upper()}]" + re.escape(w[1:]) for w in words)
    return re.compile(r"\{\{[\t\n\f\r ]*" + body + r"[\t\n\f\r ]*\((.*)\)[\t\n\f\r ]*\}\}")


_PATTERNS = {
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
    if _java_length(token) > 4 and token.startswith("<<") and token.endswith(">>"):
        return token.replace("<<", "{{").replace(">>", "}}")
    return token


def looks_like_function(t: str) -> bool:
    return _java_length(t) > 4 and t.startswith("{{") and t.endswith("}}")


def names_known_function(t: str, version: ServerVersion) -> bool:
    return any(_PATTERNS[f].search(t) for f in version.functions)


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
        raise _SyntaxError(in_token(INVALID_ARG, token))
    return v


def _int32_arg(s: str, token: str, version: ServerVersion) -> int:
    v = _int_arg(s, token)
    if version.character_counts_bound_to_32_bits and not _INT_MIN <= v <= _INT_MAX:
        raise _SyntaxError(in_token(INVALID_ARG, token))
    return _to_int32(v)


def _count_arg(s: str, token: str, version: ServerVersion) -> int:
    v = _int_arg(s, token)
    if version.counts_bound_to_32_bits and v > _INT_MAX:
        raise _SyntaxError(in_token(INVALID_ARG, token))
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
        raise _SyntaxError(in_token(NOT_ENOUGH_ARGS, token))
    if len(a) > 2:
        raise _SyntaxError(in_token(TOO_MANY_ARGS, token))
    index = _int_arg(a[0], token)
    return _Parsed(op, (index,), _int32_arg(a[1], token, version))


def _function(name: str, a: list, token: str, version: ServerVersion) -> _Parsed:
    if name == "wildcard":
        if len(a) == 1 and a[0] == "":
            raise _SyntaxError(in_token(NOT_ENOUGH_ARGS, token))
        if len(a) > 1:
            raise _SyntaxError(in_token(TOO_MANY_ARGS, token))
        return _Parsed(WILDCARD, (_int_arg(a[0], token),))
    if name == "partition":
        if len(a) < 2 and not version.partition_of_whole_subject:
            raise _SyntaxError(in_token(NOT_ENOUGH_ARGS, token))
        n = _count_arg(a[0], token, version)
        return _Parsed(PARTITION, tuple(_int_arg(x, token) for x in a[1:]), n)
    if name in (SPLIT_FROM_LEFT, SPLIT_FROM_RIGHT, SLICE_FROM_LEFT, SLICE_FROM_RIGHT, LEFT, RIGHT):
        return _index_and_int(name, a, token, version)
    if name == "split":
        if len(a) < 2:
            raise _SyntaxError(in_token(NOT_ENOUGH_ARGS, token))
        if len(a) > 2:
            raise _SyntaxError(in_token(TOO_MANY_ARGS, token))
        index = _int_arg(a[0], token)
        # The separator is taken untrimmed; a space or `.` in it could never match inside a token.
        if " " in a[1] or "." in a[1]:
            raise _SyntaxError(in_token(INVALID_ARG, token))
        return _Parsed(SPLIT, (index,), -1, a[1])
    if name == "random":
        # nats-server reports any count other than one as "not enough".
        if len(a) != 1:
            raise _SyntaxError(in_token(NOT_ENOUGH_ARGS, token))
        return _Parsed(RANDOM, (), _count_arg(a[0], token, version))
    raise AssertionError(name)


def _parse_token(token: str, t: str, version: ServerVersion) -> _Parsed:
    """One destination token as the line's indexPlaceHolders reads it; `t` is its canonical form."""
    if _java_length(t) <= 1:
        return _LITERAL
    if t[0] == "$":
        # Anything after `$` that is not a number leaves the token a literal, as in nats-server.
        i = parse_go_int(t[1:])
        return _LITERAL if i is None else _Parsed(WILDCARD, (i,))
    if not looks_like_function(t):
        return _LITERAL
    for name in version.parsed_functions:
        m = _PATTERNS[name].search(t)
        if m:
            return _function(name, _ARG_SEPARATOR.split(m.group(1)), token, version)
    raise _SyntaxError(in_token(UNKNOWN_FUNCTION, token))


def _check_destination_tokens(dtoks: Sequence[str], version: ServerVersion, strict: bool = False) -> str | None:
    """The token checks nats-server's ValidateMapping makes before it builds a transform, in its order (as
    SubjectTransform.checkDestinationTokens: a strict one's function the parser reads fails the import check)."""
    invalid = version.invalid_destination_error
    after_fwc = False
    for t in dtoks:
        if not t or after_fwc:
            return invalid + " in " if (not t and version.empty_token_error_says_in) else in_token(invalid, t)
        c = canonical(t)
        if looks_like_function(c):
            if not names_known_function(c, version):
                # An import's `to` is built without the mapping checks: a function its parser reads fails the
                # strict check there (2.10-2.14: left/right), any other is unknown.
                parsed = strict and any(_PATTERNS[f].search(c) for f in version.parsed_functions)
                return in_token(NOT_FOR_IMPORT if parsed else UNKNOWN_FUNCTION, t)
        elif t == ">":
            after_fwc = True
        elif any(is_nats_space(ch) for ch in t):
            return invalid
    return None


def partitions_written(dest: str, server_version=None) -> list[tuple[int, tuple[int, ...]]]:
    """(count, wildcard indexes) of each ``{{partition(...)}}`` token of a destination, read as the line reads
    it (``<<...>>``, any case); no indexes: the whole subject is hashed. Tokens the line cannot read are left
    out (the table's check reports them)."""
    version = server_version if isinstance(server_version, ServerVersion) else _versions.resolve(server_version)
    out = []
    for token in tokens(dest) if dest else []:
        try:
            p = _parse_token(token, canonical(token), version)
        except _SyntaxError:
            continue
        if p.op == PARTITION:
            out.append((p.int_arg, p.indexes))
    return out


# ---------------------------------------------------------------------------------------------------
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


@dataclass(frozen=True)
class DestinationToken:
    """One destination token: its operation, the source token position it reads, its integer argument
    (partition count, character count, random ceiling: a 32-bit int as the jar keeps it), its string
    argument (literal text, split separator) and the source positions `partition` hashes (None: the
    whole subject)."""

    op: str
    position: int = 0
    int_arg: int = 0
    string: str = ""
    hash_positions: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Transform:
    """A compiled transform (SubjectTransform): source filter, one entry per destination token."""

    source: str
    destination: str
    strict: bool
    version: ServerVersion
    filter: Filter
    tokens: tuple[DestinationToken, ...]  # empty: the identity (an empty destination)
    keeps_empty_tokens: bool = False  # a stream stores such a result; Core NATS drops it

    @property
    def is_random(self) -> bool:
        return any(t.op == RANDOM for t in self.tokens)

    @property
    def drops_empty_tokens(self) -> bool:
        """Only `split` can leave a token empty; then the result is NULL (Core NATS drops the message)."""
        return not self.keeps_empty_tokens and any(t.op == SPLIT for t in self.tokens)

    @property
    def loses_messages(self) -> bool:
        return any(t.op == LOST for t in self.tokens)

    @property
    def draw_salt(self) -> int:
        """Keyed draws (KeyedDraw): the n-th destination token's salt is mix(draw_salt + n)."""
        return _wrap64(text_salt(self.source) * 31 + text_salt(self.destination))

    def token_salt(self, index: int) -> int:
        """The salt of the draw of destination token `index` (a signed 64-bit value)."""
        return mix(self.draw_salt + index)

    def keeping_empty_tokens(self) -> Transform:
        return Transform(self.source, self.destination, self.strict, self.version, self.filter, self.tokens, True)


def compile_transform(
    src: str, dest: str, strict: bool = False, server_version=None, mapping_checks: bool = True
) -> Transform:
    """Compiles `src` -> `dest` with exactly the acceptance of an entry of a nats-server `mappings` block
    of the given line (`strict`: of an import). An empty `src` means `>`; an empty `dest` means "no
    transformation". Raises InvalidTransform with the line's reason and the jar's text.

    ``mapping_checks=False`` is nats-server's NewSubjectTransform alone (a stream's republish, 2.10's
    stream transforms): white space in a literal token and any function the line's parser reads pass, and
    white space in a source token too (such a source matches no valid subject)."""
    version = server_version if isinstance(server_version, ServerVersion) else _versions.resolve(server_version)
    if src == "":
        # ADR-36: no source means `>`. A mappings block rejects an empty key outright, so an invalid
        # transform from "" is reported as nats-server reports that.
        try:
            t = compile_transform(">", dest, strict, version, mapping_checks)
        except InvalidTransform as e:
            raise InvalidTransform(
                src,
                dest,
                f"Subject {go_quote(src)} is not a valid subject",
                source_invalid=True,
                detail=f'as ">": {e.reason}',
            ) from None
        return Transform(src, t.destination, t.strict, t.version, t.filter, t.tokens)

    def fail(reason: str):
        raise InvalidTransform(src, dest, reason)

    # A mappings block checks the source as a subject (no white space) and names it; NewSubjectTransform alone
    # checks only its tokens (empty ones, `>` before the last) and says only "invalid subject" (2.10's streams).
    if mapping_checks and not is_valid_subject(src):
        raise InvalidTransform(src, dest, f"Subject {go_quote(src)} is not a valid subject", source_invalid=True)
    if not mapping_checks and not is_valid_transform_source(src):
        raise InvalidTransform(src, dest, INVALID_SUBJECT, source_invalid=True)
    filt = compile_filter(src, source_quirk=True, transform_source=not mapping_checks)
    if dest == "":
        return Transform(src, dest, strict, version, filt, ())

    dtoks = tokens(dest)
    if mapping_checks:
        err = _check_destination_tokens(dtoks, version, strict)
        if err is not None:
            fail(err)
    elif any(t == "" for t in dtoks) or ">" in dtoks[:-1]:
        # The transform's own check of the destination as a subject: no empty token, `>` last only.
        fail(INVALID_SUBJECT)

    stoks = tokens(src)
    has_fwc = stoks[-1] == ">"
    if "*" in dtoks or has_fwc != (dtoks[-1] == ">"):
        fail(INVALID_SUBJECT)
    # Position in the source of the N-th `*` (1-based); nats-server reads index 0 or below as position 0.
    wildcard_positions = [i for i, t in enumerate(stoks) if t == "*"]
    npwcs = len(wildcard_positions)

    def position(index: int) -> int:
        return wildcard_positions[index - 1] if index >= 1 else 0

    out = []
    placeholders = 0
    for token in dtoks:
        try:
            p = _parse_token(token, canonical(token), version)
        except _SyntaxError as e:
            fail(e.reason)
        if p.op == LITERAL:
            out.append(DestinationToken(FWC if token == ">" else LITERAL, string=token))
        elif npwcs > 0 or has_fwc:
            if strict and p.op != WILDCARD:
                fail(in_token(NOT_FOR_IMPORT, token))
            if npwcs == 0 and version.functions_need_a_source_wildcard:
                fail(in_token(INDEX_OUT_OF_RANGE, token))
            op = LOST if (p.op == PARTITION and p.int_arg == 0 and not version.partition_by_zero_is_zero) else p.op
            if p.op == RANDOM:
                out.append(DestinationToken(op, int_arg=p.int_arg))
                continue
            placeholders += len(p.indexes)
            for bad in p.indexes:
                if bad > npwcs:
                    fail(in_token(INDEX_OUT_OF_RANGE, f"{token}: [{bad}]"))
            positions = tuple(position(i) for i in p.indexes)
            if p.op == PARTITION:
                out.append(DestinationToken(op, int_arg=p.int_arg, hash_positions=positions or None))
            else:
                out.append(DestinationToken(op, position=positions[0], int_arg=p.int_arg, string=p.string))
        else:
            # A literal source has no wildcard to read: only whole-subject functions make sense.
            if p.op not in (PARTITION, RANDOM) or version.functions_need_a_source_wildcard:
                fail(in_token(INDEX_OUT_OF_RANGE, token))
            out.append(DestinationToken(p.op, int_arg=p.int_arg, hash_positions=None))
    if strict and (npwcs > 0 or has_fwc) and placeholders < npwcs:
        fail(in_token(NOT_USING_ALL_WILDCARDS, dest))
    return Transform(src, dest, strict, version, filt, tuple(out))


# ---------------------------------------------------------------------------------------------------
# Keyed draws (KeyedDraw.scala), computed here for the constants: salts are known when the query is written

_MASK64 = 2**64 - 1


def _wrap64(v: int) -> int:
    v &= _MASK64
    return v - 2**64 if v >= 2**63 else v


def mix(z: int) -> int:
    """SplitMix64's finalizer on a 64-bit value (signed result, as the jar's Long)."""
    z &= _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return _wrap64(z ^ (z >> 31))


def text_salt(text: str) -> int:
    """FNV-1a 64 over the UTF-8 bytes of `text`, then mixed (KeyedDraw.salt)."""
    h = 0xCBF29CE484222325
    b = text.encode("utf-8", "surrogatepass")
    for x in b:
        h = ((h ^ x) * 0x100000001B3) & _MASK64
    return mix(h ^ len(b))


def keyed_below(bound: int, seed: int, key: int, salt: int) -> int:
    """KeyedDraw.below: an integer in [0, bound) for this seed, key and salt (reference, for tests)."""
    a = mix(seed ^ 0x9E3779B97F4A7C15)
    b = mix(a ^ key)
    c = mix(b ^ salt)
    return ((c & _MASK64) >> 1) % bound


# ---------------------------------------------------------------------------------------------------
# Stream source lists (FilterTransforms.compile, the one-source rule subject_filter_transform uses)


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
    version = server_version if isinstance(server_version, ServerVersion) else _versions.resolve(server_version)
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


# ---------------------------------------------------------------------------------------------------
# A reference evaluator in plain Python (SubjectTransform.build on bytes): what the built expression must
# give, used by the tests to check the grammar against the golden cases without Spark.


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


def fnv1a32(data: bytes) -> int:
    h = 0x811C9DC5
    for x in data:
        h = ((h ^ x) * 0x01000193) & 0xFFFFFFFF
    return h


# One UTF-8 sequence as Go's utf8.DecodeRune reads it (well formed: no overlong form, no surrogate, nothing above
# U+10FFFF), else one byte: how Go's strings.Split cuts a token on an empty separator.
GO_SEQUENCE = (
    rb"[\x00-\x7f]|[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}"
    rb"|\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}"
    rb"|\xf4[\x80-\x8f][\x80-\xbf]{2}|[\x00-\xff]"
)
_GO_SEQUENCE = re.compile(GO_SEQUENCE)


def _by_characters(op: str, token: bytes, k: int) -> bytes:
    """split/slice/left/right counting bytes, as nats-server does (a cut may fall inside a character)."""
    n = len(token)
    if k <= 0 or k >= n:
        return token
    if op == SPLIT_FROM_LEFT:
        return token[:k] + b"." + token[k:]
    if op == SPLIT_FROM_RIGHT:
        return token[: n - k] + b"." + token[n - k :]
    if op == LEFT:
        return token[:k]
    if op == RIGHT:
        return token[n - k :]
    first = k if op == SLICE_FROM_LEFT else (n % k or k)
    return b".".join([token[:first]] + [token[i : i + k] for i in range(first, n, k)])


def _split(token: bytes, sep: bytes) -> bytes:
    if not sep:
        return b".".join(_GO_SEQUENCE.findall(token))
    pieces = token.split(sep)
    # Empty pieces are written as nothing; a `.` goes before a non-empty piece unless the first piece
    # was an empty one directly before it (nats-server's loop).
    out = pieces[0]
    for idx, p in enumerate(pieces[1:], start=1):
        if p and not (idx == 1 and not pieces[0]):
            out += b"."
        out += p
    return out


def apply_reference(t: Transform, subject: bytes, draw=None) -> bytes | None:
    """The transform of `subject` (UTF-8 bytes), or None where the jar gives NULL. `draw(index, n)` gives
    `{{random(n)}}`'s value for destination token `index` (n > 0)."""
    toks = literal_tokens(subject)
    if toks is None or not filter_matches(t.filter, toks):
        return None
    if not t.tokens:
        return subject
    parts = []
    for i, d in enumerate(t.tokens):
        if d.op == LITERAL:
            parts.append(d.string.encode("utf-8", "surrogatepass"))
        elif d.op == FWC:
            parts.append(b".".join(toks[t.filter.length - 1 :]))
        elif d.op == PARTITION:
            n = d.int_arg & 0xFFFFFFFF
            if n == 0:
                parts.append(b"0")
            else:
                data = subject if d.hash_positions is None else b"".join(toks[p] for p in d.hash_positions)
                parts.append(str(fnv1a32(data) % n).encode())
        elif d.op == RANDOM:
            n = abs(d.int_arg)
            parts.append(b"0" if n == 0 else str(draw(i, n)).encode())
        elif d.op == LOST:
            return None
        elif d.op == WILDCARD:
            parts.append(toks[d.position])
        elif d.op == SPLIT:
            parts.append(_split(toks[d.position], d.string.encode("utf-8", "surrogatepass")))
        else:
            parts.append(_by_characters(d.op, toks[d.position], d.int_arg))
    out = b".".join(parts)
    if t.drops_empty_tokens and (not out or b".." in out or out.startswith(b".") or out.endswith(b".")):
        return None
    return out
