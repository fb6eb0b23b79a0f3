"""Compiled transforms and filters -> expression trees of Spark's built-in functions (see _expr).

Exactness on every byte string: a Spark STRING is a window on UTF-8 bytes that need not be valid. Functions
that go through a Java String (``split``, ``split_part``, ``regexp_*`` on the subject itself, ``ascii``)
replace invalid bytes, so tokens are cut with ``substring_index`` (byte search), joined with ``concat``,
counted with ``octet_length``/``replace``, and cut by position with ``substr`` on the token's BINARY form
(``cast(x as binary)``: the same bytes; ``cast(... as string)`` takes them back unchanged, valid UTF-8 or not);
anything that needs a byte as a value or a regex works on the token's ISO-8859-1 reading (one character per
byte, ``decode(cast(x as binary), 'ISO-8859-1')``), where a regex sees every byte and
``encode(..., 'ISO-8859-1')`` gives the same bytes back.

split/slice/left/right count bytes, as nats-server does (SPEC §4): a cut may fall inside a character, and the
result is then those bytes.
"""

from __future__ import annotations

from decimal import Decimal

from ..grammar.destination_syntax import (
    FWC,
    LEFT,
    LITERAL,
    LOST,
    PARTITION,
    RANDOM,
    RIGHT,
    SLICE_FROM_LEFT,
    SLICE_FROM_RIGHT,
    SPLIT,
    SPLIT_FROM_LEFT,
    SPLIT_FROM_RIGHT,
    WILDCARD,
)
from ..grammar.filter_transforms import FilterTransformList
from ..grammar.keyed_draw import mix
from ..grammar.subject_transform import GO_SEQUENCE, Transform
from ..grammar.subjects import Filter
from ._expr import SUBJECT, Aggregate, Node, Var, and_, call, case, cast, let, lit, not_, null, shared_case, when

# The longest subject the jar builds (Workspace.MaxSubjectBytes): 8 MiB.
MAX_SUBJECT_BYTES = 8 << 20
_INT_MAX = 2**31 - 1

_FNV_OFFSET = 0x811C9DC5
_FNV_PRIME = 0x01000193
_MASK32 = 0xFFFFFFFF


def i32(v: int) -> Node:
    return lit(v, "int")


def latin1(x: Node) -> Node:
    """The bytes of `x` read one character per byte."""
    return call("decode", cast(x, "binary"), lit("ISO-8859-1"))


def from_latin1(x: Node) -> Node:
    """The bytes an ISO-8859-1 reading stands for, as a STRING (any bytes, as the jar returns them)."""
    return cast(call("encode", x, lit("ISO-8859-1")), "string")


def _has_token(x: Node, token: str) -> Node:
    """`x` has a token equal to `token` ('' for an empty token): byte tests on `x` itself. (Not `.x.` searched for
    `.token.`: under an elt, Spark's common-subexpression elimination builds such a wrapped copy for every
    row, a string allocated and copied a row; issue 31 measured the reorder 651 -> 532 ns/row without it.)"""
    return call(
        "OR",
        call("OR", call("=", x, lit(token)), call("contains", x, lit(f".{token}."))),
        call("OR", call("startswith", x, lit(f"{token}.")), call("endswith", x, lit(f".{token}"))),
    )


def _has_empty_token(x: Node) -> Node:
    return _has_token(x, "")


class SubjectParts:
    """Pieces of one subject expression, each built once and shared (Spark's common-subexpression
    elimination computes a shared piece once per row). Every piece is a byte search or a byte copy: the
    token count is read from the heads (the first i tokens) the tokens are cut from, so no piece rebuilds
    the subject to count its dots."""

    def __init__(self, subject: Node = SUBJECT):
        self.subject = subject
        self._heads: dict[int, Node] = {}
        self._tokens: dict[int, Node] = {}
        self._literal: Node | None = None

    def head(self, i: int) -> Node:
        """The first i tokens (i >= 1) joined by `.`; the whole subject when it has i tokens or fewer (then
        Spark returns the subject itself, no copy)."""
        if i not in self._heads:
            self._heads[i] = call("substring_index", self.subject, lit("."), i32(i))
        return self._heads[i]

    def has_more_tokens_than(self, i: int) -> Node:
        """More than i tokens (i >= 1): the first i are shorter than the subject."""
        return call("<", call("octet_length", self.head(i)), call("octet_length", self.subject))

    def is_literal(self) -> Node:
        """Workspace.tokenize's check: no empty token, no lone `*` or `>` token (NULL for NULL). The lone-token
        tests only for a subject that holds a `*` or `>` byte at all (AND and OR stop early in generated code)."""
        if self._literal is None:
            s = self.subject
            no_wildcard = call(
                "OR",
                and_(not_(call("contains", s, lit("*"))), not_(call("contains", s, lit(">")))),
                and_(not_(_has_token(s, "*")), not_(_has_token(s, ">"))),
            )
            self._literal = and_(not_(_has_empty_token(s)), no_wildcard)
        return self._literal

    def token(self, i: int) -> Node:
        """Token i (0-based) of a subject known to have more than i tokens."""
        if i not in self._tokens:
            self._tokens[i] = self.head(1) if i == 0 else call("substring_index", self.head(i + 1), lit("."), i32(-1))
        return self._tokens[i]

    def tokens_from(self, i: int) -> Node:
        """Tokens i.. joined by `.` (the part a trailing `>` matched), of a subject known to have more than i
        tokens: its bytes after the first i tokens and their `.` (a byte copy; `substr` on a STRING would
        count characters)."""
        if i == 0:
            return self.subject
        start = call("+", call("octet_length", self.head(i)), i32(2))
        return cast(call("substr", cast(self.subject, "binary"), start), "string")

    def matches(self, f: Filter, literal_known: bool = False) -> Node:
        """The subject is a literal subject that `f` matches (NULL for a NULL subject). `literal_known`: the
        caller has checked that it is a literal subject."""
        n = f.length
        if f.ends_with_fwc:
            count = self.has_more_tokens_than(n - 1) if n > 1 else None
        else:
            fewer = not_(self.has_more_tokens_than(n))
            count = and_(self.has_more_tokens_than(n - 1), fewer) if n > 1 else fewer
        fixed = n - 1 if f.ends_with_fwc else n
        literal_tokens = [
            call("=", self.token(i), lit(f.literals[i])) for i in range(fixed) if f.literals[i] is not None
        ]
        return and_(None if literal_known else self.is_literal(), count, *literal_tokens)


# ---------------------------------------------------------------------------------------------------
# FNV-1a 32 over raw bytes


def fnv1a32(key: Node) -> Node:
    """FNV-1a 32 of the bytes of STRING `key`, a BIGINT in [0, 2^32): one `aggregate` over the characters of
    the key's ISO-8859-1 reading (one character per byte; `split` on '' cuts it into characters without a
    regex). Compact on purpose: a chain unrolled byte by byte made the SQL text tens of KB, took Spark
    seconds to analyse, and inside a CASE branch (where Spark shares no common piece) recomputed the key
    for every byte: 6 us a row against about 0.6 us for this. An unrolled chain for short keys only (the
    key's bytes read 7 at a time by `conv(hex(...))`, the aggregate kept for longer keys) measured no faster
    (issue 31: 1671 against 1628 ns a row, the aggregate still in the projection) and is 40 levels deeper
    than a Spark Connect client sends; an aggregate over `sequence` with `substr` per byte was twice as slow."""
    text = latin1(key)
    step = call("&", call("*", call("^", Var("h"), call("ascii", Var("c"))), lit(_FNV_PRIME)), lit(_MASK32))
    # split('', '') is [''] (a character that is not there): the empty key's hash is the offset basis
    return when(
        call("=", text, lit("")),
        lit(_FNV_OFFSET),
        Aggregate(call("split", text, lit("")), lit(_FNV_OFFSET), "h", "c", step),
    )


# ---------------------------------------------------------------------------------------------------
# 64-bit wrapping arithmetic without overflow (Spark 4 runs with ANSI mode on: BIGINT * and + raise)
#
# z * c mod 2^64 for a BIGINT z and a constant c: as signed 64-bit values |z * c| <= 2^126 < 10^38, so the
# product is exact in DECIMAL(38,0); pmod brings it to [0, 2^64), and subtracting 2^63 before the cast to
# BIGINT, then flipping the sign bit, gives the wrapped signed value. Each step reads its operand once:
# a tree has no shared bindings, so an operand read k times is written out k times. (Exact 16-bit pieces
# in BIGINT arithmetic, no DECIMAL, were measured too: 3x faster alone in generated code, but a draw's
# steps run inside its bindings' lambdas, evaluated node by node, where their forty nodes made a keyed
# subject_map 18% slower: issue 31.)

_M64 = (1 << 64) - 1
_TWO_64 = lit(Decimal(2**64))
_TWO_63 = lit(Decimal(2**63))
_MIN_LONG = lit(-(2**63))


def mul64(z: Node, c: int) -> Node:
    """z * c mod 2^64, as a signed BIGINT."""
    product = call("*", cast(z, "decimal(19,0)"), lit(Decimal(_signed(c))))
    return call("^", cast(call("-", call("pmod", product, _TWO_64), _TWO_63), "bigint"), _MIN_LONG)


def _signed(v: int) -> int:
    v &= _M64
    return v - (1 << 64) if v >= 1 << 63 else v


def mix64(z: Node) -> Node:
    """KeyedDraw.mix (SplitMix64's finalizer) on a BIGINT expression. Each `z ^ (z >>> k)` reads its
    operand twice, so each step binds it (Let) rather than writing it out twice: linear, not exponential."""

    def xor_shift(v: Node, k: int) -> Node:
        return call("^", v, call("shiftrightunsigned", v, i32(k)))

    return let(
        z,
        lambda z0: let(
            mul64(xor_shift(z0, 30), 0xBF58476D1CE4E5B9),
            lambda z1: let(mul64(xor_shift(z1, 27), 0x94D049BB133111EB), lambda z2: xor_shift(z2, 31)),
        ),
    )


def draw_key(key: Node) -> Node:
    """The jar's draw key: Spark's xxhash64 of the key (seed 42, as the jar's registry hashes it)."""
    return call("xxhash64", key)


# KeyedDraw.below(bound, seed, key, salt) = (mix(mix(mix(seed ^ G) ^ key) ^ salt) >>> 1) % bound: the
# seed's mix is folded here, in Python (a constant); the rest runs per row.


def keyed_mix(seed: int, hashed_key: Node) -> Node:
    """mix(mix(seed ^ G) ^ key), the part of a keyed draw shared by every salt (built once, shared)."""
    seeded = mix(_signed(seed) ^ _signed(0x9E3779B97F4A7C15))
    return mix64(call("^", lit(seeded), hashed_key))


def below_from_keyed(keyed: Node, bound: int, salt: int) -> Node:
    return call("%", call("shiftrightunsigned", mix64(call("^", keyed, lit(_signed(salt)))), i32(1)), lit(bound))


# ---------------------------------------------------------------------------------------------------
# The byte-counting functions (split, slice, left, right), on the token's bytes


def _split_any_bytes(tok: Node, sep: str) -> Node:
    """Any token: nats-server's split: empty pieces dropped, and a `.` before the first piece when the token starts
    with two separators and something follows (its loop writes one there; the result has an empty token)."""
    if sep == "":
        # Go's strings.Split on "" cuts after each UTF-8 sequence it decodes, and after each byte it cannot: a `.`
        # after every sequence, then the last one taken off. (Not a lookahead for the end, which would make the
        # regex give up the last sequence for its first byte alone.)
        each = call("regexp_replace", latin1(tok), lit("(%s)" % GO_SEQUENCE.decode("latin-1")), lit("$1."))
        return from_latin1(call("regexp_replace", each, lit(r"\.\z"), lit("")))
    dotted = latin1(call("replace", tok, lit(sep), lit(".")))  # byte search; a token holds no `.`
    joined = call(
        "regexp_replace", call("regexp_replace", dotted, lit(r"\.{2,}"), lit(".")), lit(r"\A\.|\.\z"), lit("")
    )
    lead = and_(call("startswith", tok, lit(sep + sep)), not_(call("=", joined, lit(""))))
    return from_latin1(when(lead, call("concat", lit("."), joined), joined))


def _is_ascii(tok: Node) -> Node:
    """Every byte below 0x80: the ISO-8859-1 reading writes each byte above as two."""
    return call("=", call("octet_length", tok), call("octet_length", latin1(tok)))


def _bytes(tok: Node, start: int | Node, length: int | Node | None = None) -> Node:
    """`length` bytes of STRING `tok` from byte `start` (1-based; negative: from the end), to its end when
    `length` is None, as a STRING holding exactly those bytes."""
    start_node = i32(start) if isinstance(start, int) else start
    args = [cast(tok, "binary"), start_node] + (
        [] if length is None else [i32(length) if isinstance(length, int) else length]
    )
    return cast(call("substr", *args), "string")


# A token of up to this many bytes is sliced by `substr`s, one a piece, a longer one by a regex: issue 31
# measured the regex at ~0.55 us a row and the substrings of a 9-byte token at ~0.2.
_SLICED_BY_SUBSTRINGS = 24
_MOST_PIECES = 8  # (each piece writes the token out again in the SQL text)


def _slices(tok: Node, size: Node, k: int, from_left: bool) -> Node:
    """slicefromleft/slicefromright (`size` the token's length in bytes, 0 < k): pieces of k bytes joined by `.`,
    the short piece last (from the left) or first (from the right)."""
    pieces = min(_MOST_PIECES, -(-_SLICED_BY_SUBSTRINGS // k))
    text = latin1(tok)  # the regex for a longer token: one character a byte
    if from_left:
        regex = call("regexp_replace", text, lit(r"([\x00-\xff]{%d})(?!\z)" % k), lit("$1."))
        # piece i: the k bytes after the first i*k, when there are more than i*k (else NULL: concat_ws skips it)
        parts = [when(call(">", size, i32(i * k)), _bytes(tok, i * k + 1, k)) for i in range(pieces)]
    else:
        regex = call("regexp_replace", text, lit(r"(?<=[\x00-\xff])(?=(?:[\x00-\xff]{%d})+\z)" % k), lit("."))
        # piece j from the right: the k bytes before the last j*k, or what is left before them
        parts = [
            when(
                call(">", size, i32(j * k)),
                _bytes(
                    tok,
                    call("greatest", i32(1), call("-", size, i32((j + 1) * k - 1))),
                    call("least", i32(k), call("-", size, i32(j * k))),
                ),
            )
            for j in reversed(range(pieces))
        ]
    return when(call("<=", size, i32(pieces * k)), call("concat_ws", lit("."), *parts), from_latin1(regex))


def _by_characters(op: str, tok: Node, k: int) -> Node:
    """split/slice/left/right, counting bytes as nats-server does: `substr` on the token's bytes, whatever they
    are (no test for ASCII, no regex but for slicing a token longer than _SLICED_BY_SUBSTRINGS bytes)."""
    if k <= 0 or k >= _INT_MAX:
        return tok  # the token stays whole unless 0 < k < its length (no token is 2^31-1 bytes long)
    size = call("octet_length", tok)
    if op == LEFT:
        return _bytes(tok, 1, k)
    if op == RIGHT:
        return _bytes(tok, -k)  # the whole token when it is k bytes or shorter
    if op == SPLIT_FROM_LEFT:
        return when(call(">", size, i32(k)), call("concat", _bytes(tok, 1, k), lit("."), _bytes(tok, k + 1)), tok)
    if op == SPLIT_FROM_RIGHT:
        return when(
            call(">", size, i32(k)),
            call("concat", _bytes(tok, 1, call("-", size, i32(k))), lit("."), _bytes(tok, -k)),
            tok,
        )
    if op in (SLICE_FROM_LEFT, SLICE_FROM_RIGHT):
        return _slices(tok, size, k, from_left=op == SLICE_FROM_LEFT)
    raise AssertionError(op)


def _split(tok: Node, sep: str) -> Node:
    """nats-server's split (see _split_any_bytes); an ASCII token without the ISO-8859-1 round trip."""
    if sep == "":
        return _split_any_bytes(tok, sep)
    dotted = call("replace", tok, lit(sep), lit("."))
    joined = call("btrim", call("regexp_replace", dotted, lit(r"\.{2,}"), lit(".")), lit("."))
    lead = and_(call("startswith", tok, lit(sep + sep)), not_(call("=", joined, lit(""))))
    # no two separators in a row (the usual token): no empty piece inside, nothing to collapse, no regex
    fast = when(
        not_(call("contains", tok, lit(sep + sep))),
        call("btrim", dotted, lit(".")),
        when(lead, call("concat", lit("."), joined), joined),
    )
    return when(_is_ascii(tok), fast, _split_any_bytes(tok, sep))


# ---------------------------------------------------------------------------------------------------
# Transforms


class Draws:
    """How `{{random(n)}}` is drawn: keyed (the jar's KeyedDraw, exactly) or from Spark's rand(seed)."""

    def __init__(self, seed: int, key: Node | None):
        self.seed = seed
        self.key = key
        self._keyed: Node | None = None

    def draw(self, t: Transform, index: int, bound: int) -> Node:
        if self.key is not None:
            if self._keyed is None:
                self._keyed = keyed_mix(self.seed, draw_key(self.key))
            return below_from_keyed(self._keyed, bound, t.token_salt(index))
        # Unkeyed: Spark's generator, one stream per destination token (it cannot equal the jar's draws).
        token_seed = _signed(mix(self.seed ^ t.token_salt(index)))
        return call("floor", call("*", call("rand", lit(token_seed)), lit(bound)))


def transform_output(t: Transform, parts: SubjectParts, draws: Draws | None) -> Node:
    """The built subject of a subject `t` matches (the caller checks the match)."""
    if not t.tokens:
        return parts.subject
    pieces: list[Node] = []
    for i, d in enumerate(t.tokens):
        if pieces:
            pieces.append(lit("."))
        if d.op == LITERAL:
            pieces.append(lit(d.string))
        elif d.op == FWC:
            pieces.append(parts.tokens_from(t.filter.length - 1))
        elif d.op == PARTITION:
            n = d.int_arg & _MASK32
            if n == 0:
                pieces.append(lit("0"))
            else:
                key = (
                    parts.subject
                    if d.hash_positions is None
                    else (
                        parts.token(d.hash_positions[0])
                        if len(d.hash_positions) == 1
                        else call("concat", *[parts.token(p) for p in d.hash_positions])
                    )
                )
                pieces.append(cast(call("%", fnv1a32(key), lit(n)), "string"))
        elif d.op == RANDOM:
            n = abs(d.int_arg)
            if n == 0 or draws is None:
                pieces.append(lit("0") if n == 0 else null("string"))
            else:
                pieces.append(cast(draws.draw(t, i, n), "string"))
        elif d.op == LOST:
            return null("string")
        elif d.op == WILDCARD:
            pieces.append(parts.token(d.position))
        elif d.op == SPLIT:
            pieces.append(_split(parts.token(d.position), d.string))
        else:
            pieces.append(_by_characters(d.op, parts.token(d.position), d.int_arg))
    return pieces[0] if len(pieces) == 1 else call("concat", *pieces)


def too_long_error(function: str, size: Node) -> Node:
    """The jar's runtime error for a result longer than 8 MiB (SubjectTooLongException via Errors.atRuntime)."""
    message = call(
        "concat",
        lit(
            "[INVALID_PARAMETER_VALUE.PATTERN] The value of parameter(s) `subject` in "
            f"`{function}` is invalid: the transformed subject would be at least "
        ),
        cast(size, "string"),
        lit(
            f" bytes long, more than the limit of {MAX_SUBJECT_BYTES} bytes (a destination that repeats "
            "or slices a long token). SQLSTATE: 22023"
        ),
    )
    return call("raise_error", message)


def _longest_safe_subject(t: Transform) -> int:
    """The longest subject (in bytes) whose result cannot be longer than a subject may be (-1: none is safe).
    A destination token writes at most its source token's bytes (a slice: twice, a `.` after each byte)
    plus a few bytes of its own; tokens read once each write at most the subject's bytes in all, so only
    the most-read token multiplies the subject's length (a trailing `>` reads every token from its position)."""
    rest = t.filter.length - 1 if t.filter.ends_with_fwc else None
    reads: dict[object, int] = {}
    constant = len(t.tokens) - 1
    for token in t.tokens:
        if token.op == LITERAL:
            constant += len(token.string.encode("utf-8", "surrogatepass"))
        elif token.op in (PARTITION, RANDOM, LOST):
            constant += 20  # a decimal number
        else:
            slot = "rest" if token.op == FWC or (rest is not None and token.position >= rest) else token.position
            sliced = token.op in (SLICE_FROM_LEFT, SLICE_FROM_RIGHT)
            reads[slot] = reads.get(slot, 0) + (2 if sliced else 1)
            constant += 0 if sliced else 1  # split/splitfrom*: one `.` more
    per_byte = max(reads.values(), default=0)
    if per_byte == 0:  # the result's length does not depend on the subject's
        return _INT_MAX if constant <= MAX_SUBJECT_BYTES else -1
    return max((MAX_SUBJECT_BYTES - constant) // per_byte, -1)


def bounded(out: Node, t: Transform, function: str | None, subject: Node = SUBJECT, alone: bool = False) -> Node:
    """`out`, or NULL when it has an empty token (Core NATS drops it), or the jar's error (NULL in the try_
    forms: `function` None) when it is longer than a subject may be.

    `alone`: `out` is the only output of its tree (a transform's, not one of a table's rules). Then `out` is
    measured on every row through shared_case, which has Spark compute it once a row, before the tree's match
    test: written once in the generated code. Otherwise only a subject long enough to make a long result
    possible is measured (see _longest_safe_subject) and `out` is written four times in CASE values, each
    computed only where reached, and nothing inside them shared: a table computes only the rule that matched,
    but a transform's character functions, unshared, read their token again and again (issue 31, one run, 1M
    subjects: `$1.{{slicefromleft(2,3)}}.>` 3811 ns a row in CASE values, 757 measured once, the jar 244;
    `{{right(3,4)}}.{{splitfromleft(2,2)}}.$1.>` 3333 against 893). The price: a subject the transform does not
    match builds the output too (`orders.*.*.*` matching a quarter of the rows: 542 -> 651 ns a row). Written
    four times, an unrolled slice also grew the generated method past the 8000 bytes of bytecode HotSpot
    compiles (9441; once: 2120): see the test of that bound in tests/test_portable_transforms.py."""
    if not t.tokens:
        return out
    size = call("octet_length", out)
    longer = call(">", size, i32(MAX_SUBJECT_BYTES))
    refused = null("string") if function is None else cast(too_long_error(function, size), "string")
    # The error stays inside a CASE's value, where common-subexpression elimination never reaches: as elt's own
    # value, an error written the same way elsewhere in the projection (the same destination in another rule or
    # another column) would be hoisted and raised on every row.
    too_long = (longer, when(longer, refused))
    if t.drops_empty_tokens:
        # One elt: Spark shares `out` between the drop test and the value (in a CASE it is built twice).
        return shared_case((_has_empty_token(out), null("string")), too_long, otherwise=out)
    safe = _longest_safe_subject(t)
    if safe == _INT_MAX:
        return out
    if alone:
        return shared_case(too_long, otherwise=out)
    measured = case((longer, refused), otherwise=out)
    if safe < 0:
        return measured
    return case((call("<=", call("octet_length", subject), i32(safe)), out), otherwise=measured)


def transform_tree(
    t: Transform,
    draws: Draws | None = None,
    parts: SubjectParts | None = None,
    function: str | None = "subject_transform",
) -> Node:
    """The tree of `t` applied to the subject (``parts.subject``, by default the Input "subject"): NULL when
    the subject is NULL, not a literal subject, does not match, or the result has an empty token.
    `function` names the jar function whose error a too-long result raises (None: NULL instead)."""
    parts = parts or SubjectParts()
    return shared_case(
        (parts.matches(t.filter), bounded(transform_output(t, parts, draws), t, function, parts.subject, alone=True))
    )


def matches_tree(f: Filter, parts: SubjectParts | None = None) -> Node:
    """subject_matches: the subject is a literal subject the filter matches (false otherwise, NULL for NULL)."""
    parts = parts or SubjectParts()
    return parts.matches(f)


def filter_transform_tree(
    ft: FilterTransformList,
    draws: Draws | None = None,
    parts: SubjectParts | None = None,
    function: str | None = "subject_filter_transform",
) -> Node:
    """subject_filter_transform: NULL unless the subject is a literal subject one of the list's filters
    matches; renamed by the first renaming entry whose source matches (nats-server's source quirk), else
    unchanged. A renamed subject with an empty token is kept, as a stream stores it."""
    parts = parts or SubjectParts()
    taken = parts.is_literal() if not ft.pairs else call_or([parts.matches(f) for f in ft.filters])
    renames = [
        (parts.matches(t.filter), bounded(transform_output(t, parts, draws), t, function, parts.subject))
        for t in ft.renames
    ]
    renamed = shared_case(*renames, otherwise=parts.subject) if renames else parts.subject
    return shared_case((taken, renamed))


def call_or(conds: list[Node]) -> Node:
    out = conds[0]
    for c in conds[1:]:
        out = call("OR", out, c)
    return out
