"""A compiled subject transform, as the jar's ``SubjectTransform`` (jvm/core/.../engine/SubjectTransform.scala):
the destination checks nats-server makes, the compiled form ``_build`` turns into an expression of Spark's
built-in functions, and a reference evaluator in plain Python (what the built expression must give; the
tests check the grammar against the golden cases with it, without Spark).

Index 0 (or below) is the subject's first token, and a source token that starts with ``*`` matches any token,
as in nats-server."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .account_functions import NOT_AVAILABLE, Context, expand, is_account_function
from .destination_syntax import (
    CRASH,
    FUNCTION_PATTERNS,
    FWC,
    INDEX_OUT_OF_RANGE,
    INVALID_SUBJECT,
    LEFT,
    LITERAL,
    NOT_FOR_IMPORT,
    NOT_USING_ALL_WILDCARDS,
    PARTITION,
    RANDOM,
    RIGHT,
    SLICE_FROM_LEFT,
    SPLIT,
    SPLIT_FROM_LEFT,
    SPLIT_FROM_RIGHT,
    UNKNOWN_FUNCTION,
    WILDCARD,
    TokenSyntaxError,
    canonical,
    in_token,
    looks_like_function,
    names_known_function,
    parse_token,
)
from .go_quote import go_quote
from .keyed_draw import mix, text_salt, wrap64
from .server_version import ServerVersion, resolve
from .subjects import (
    Filter,
    compile_filter,
    filter_matches,
    is_nats_space,
    is_valid_subject,
    is_valid_transform_source,
    literal_tokens,
    tokens,
)


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
            # an account function left unresolved: the subject was not installed for an account (a stream's)
            if version.account_functions and is_account_function(c):
                return in_token(NOT_AVAILABLE, t)
            if not names_known_function(c, version):
                # An import's `to` is built without the mapping checks: a function its parser reads fails the
                # strict check there (2.10-2.14: left/right), any other is unknown.
                parsed = strict and any(FUNCTION_PATTERNS[f].search(c) for f in version.parsed_functions)
                return in_token(NOT_FOR_IMPORT if parsed else UNKNOWN_FUNCTION, t)
        elif t == ">":
            after_fwc = True
        elif any(is_nats_space(ch) for ch in t):
            return invalid
    return None


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
    def crashes_server(self) -> bool:
        """Whether the server's process exits on the first message this destination maps (2.10/2.11:
        ``{{partition(0,…)}}``, an integer divide by zero): not one message lost, the whole server down."""
        return any(t.op == CRASH for t in self.tokens)

    @property
    def crash_tokens(self) -> tuple[str, ...]:
        """The destination tokens the server crashes in, as written."""
        written = self.destination.split(".")
        return tuple(written[i] for i, t in enumerate(self.tokens) if t.op == CRASH)

    @property
    def draw_salt(self) -> int:
        """Keyed draws (KeyedDraw): the n-th destination token's salt is mix(draw_salt + n)."""
        return wrap64(text_salt(self.source) * 31 + text_salt(self.destination))

    def token_salt(self, index: int) -> int:
        """The salt of the draw of destination token `index` (a signed 64-bit value)."""
        return mix(self.draw_salt + index)

    def keeping_empty_tokens(self) -> Transform:
        return Transform(self.source, self.destination, self.strict, self.version, self.filter, self.tokens, True)


def crash_words(crashing: Transform, version) -> str:
    """What a server of ``version`` does on a message that ``crashing``'s destination maps, in the words every
    path uses (validate, the upgrade check, ``mapping``, explain, the docs): its process exits."""
    return (
        f"nats-server {version}'s process exits on the first message this destination maps "
        f"({', '.join(crashing.crash_tokens)}: panic: runtime error: integer divide by zero): the whole server "
        "goes down, with every account's traffic, not only this message"
    )


def compile_for_account(src: str, dest: str, strict: bool, server_version, context: Context) -> Transform:
    """compile_transform of a transform installed for an account (SubjectTransform.compile with a context): its
    account functions (2.14.10 and 2.15.3 on) resolved first to the hashes of the accounts `context` names."""
    version = server_version if isinstance(server_version, ServerVersion) else resolve(server_version)
    try:
        s, d = expand(src, context, version), expand(dest, context, version)
    except TokenSyntaxError as e:
        raise InvalidTransform(src, dest, e.reason) from None
    return compile_transform(s, d, strict, version)


def compile_transform(
    src: str, dest: str, strict: bool = False, server_version=None, mapping_checks: bool = True
) -> Transform:
    """Compiles `src` -> `dest` with exactly the acceptance of an entry of a nats-server `mappings` block
    of the given line (`strict`: of an import). An empty `src` means `>`; an empty `dest` means "no
    transformation". Raises InvalidTransform with the line's reason and the jar's text.

    ``mapping_checks=False`` is nats-server's NewSubjectTransform alone (a stream's republish, 2.10's
    stream transforms): white space in a literal token and any function the line's parser reads pass, and
    white space in a source token too (such a source matches no valid subject)."""
    version = server_version if isinstance(server_version, ServerVersion) else resolve(server_version)
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
            p = parse_token(token, canonical(token), version)
        except TokenSyntaxError as e:
            fail(e.reason)
        if p.op == LITERAL:
            out.append(DestinationToken(FWC if token == ">" else LITERAL, string=token))
        elif npwcs > 0 or has_fwc:
            if strict and p.op != WILDCARD:
                fail(in_token(NOT_FOR_IMPORT, token))
            if npwcs == 0 and version.functions_need_a_source_wildcard:
                fail(in_token(INDEX_OUT_OF_RANGE, token))
            op = CRASH if (p.op == PARTITION and p.int_arg == 0 and not version.partition_by_zero_is_zero) else p.op
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


# A reference evaluator in plain Python (SubjectTransform.build on bytes): what the built expression must
# give, used by the tests to check the grammar against the golden cases without Spark.


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
        elif d.op == CRASH:
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
