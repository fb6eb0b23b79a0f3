"""Reading nats-server's configuration syntax without the JVM, exactly as nats-server 2.15's ``conf``
package reads it (as the server loads a file, ``ParseWithChecks``): the same verdict, the same values (int
vs float vs string vs bool vs date, sizes, variables; strings as Go's bytes) and its error texts. A
document that is also valid JSON is still read by these rules. It is the jar's reader (config
``ConfSyntax``) for a text, piece by piece and message by message: tests/conf_oracle compares both with
the Go package on generated documents, and this one with the jar.

It reads no files: ``include`` is an error, and ``$name`` is a variable of the text or an error (nats-server
would look it up in its environment), as in the jar when it reads a text, not a file. The deliberate
differences from nats-server: an unquoted value holding ``{{`` is refused (nats-server cuts it at its first
``}``) and lists and maps nest at most MAX_DEPTH deep.

The pieces, named as the jar's (a fix in one reader is found at the same name in the other): the values
(``ConfValue``); Java's behaviours the jar's messages have; Go's strings (``GoBytes``); ``_Lexer``
(``ConfLexer``); the scalars (``ConfScalars``); ``_Reader`` (``ConfReader``); the entry points
(``ConfSyntax``) and ``conf_text`` (``ConfValue.confText``)."""

from __future__ import annotations

import dataclasses
import re
from decimal import Decimal as _BigDecimal

from ._quote import go_quote

# How deep lists and maps may nest (the document's own map included): where nats-server stops loading a
# file (the JSON digest it takes of the config stops at 10,000), the jar's limit.
MAX_DEPTH = 10000


class ConfSyntaxError(ValueError):
    """A text nats-server's configuration parser refuses, with its message."""


# ---------------------------------------------------------------------------------------------------
# Values (the jar's ConfValue). A string holds Go's bytes (go_bytes) and remembers whether it was quoted;
# `line` is the line nats-server's token gives (its key's in a map, its own in a list).


@dataclasses.dataclass(frozen=True)
class Str:
    value: str
    quoted: bool
    line: int


@dataclasses.dataclass(frozen=True)
class Integer:
    value: int
    line: int


@dataclasses.dataclass(frozen=True)
class Decimal:
    value: float
    line: int


@dataclasses.dataclass(frozen=True)
class Bool:
    value: bool
    line: int


@dataclasses.dataclass(frozen=True)
class DateTime:
    value: str
    line: int


@dataclasses.dataclass(frozen=True)
class Null:
    line: int


@dataclasses.dataclass(frozen=True)
class Arr:
    items: tuple
    line: int


@dataclasses.dataclass(frozen=True)
class Obj:
    """Keys in written order; a repeated key replaces the earlier value (in the earlier place), as in
    nats-server's Go map."""

    entries: tuple  # of (key, value)
    repeated_keys: tuple
    line: int
    # Keys of entries a `$name` used: variables, which nats-server skips where it reads settings.
    used_variables: frozenset = dataclasses.field(default=frozenset(), compare=False)

    def get(self, key: str):
        for k, v in self.entries:
            if k == key:
                return v
        return None


ConfValue = Str | Integer | Decimal | Bool | DateTime | Null | Arr | Obj

GO_TEXT_DEPTH = 8


def go_text(v: ConfValue, depth: int = 0) -> str:
    """Go's ``%v`` of the value nats-server would hold (the jar's ConfValue.goText)."""
    if isinstance(v, Str):
        return v.value
    if isinstance(v, Integer):
        return str(v.value)
    if isinstance(v, Decimal):
        d = v.value
        if d == d and d not in (float("inf"), float("-inf")) and d == round(d) and abs(d) < 1e21:
            # Java: BigDecimal.valueOf(d) (Double.toString's digits) to a BigInteger.
            return str(int(_BigDecimal(java_double_text(d))))
        return java_double_text(d).replace("E", "e+").replace("e+-", "e-")
    if isinstance(v, Bool):
        return "true" if v.value else "false"
    if isinstance(v, DateTime):
        return v.value
    if isinstance(v, Null):
        return "<nil>"
    if depth >= GO_TEXT_DEPTH:
        return "..."
    if isinstance(v, Arr):
        return "[" + " ".join(go_text(x, depth + 1) for x in v.items) + "]"
    if isinstance(v, Obj):
        entries = sorted(v.entries, key=lambda kv: _utf16_key(kv[0]))
        return "map[" + " ".join(f"{k}:{go_text(x, depth + 1)}" for k, x in entries) + "]"
    raise TypeError(v)


# ---------------------------------------------------------------------------------------------------
# Java's behaviours that the jar's reader has (its Character, String, Long and Double): the jar is the
# reference, and Python's own (Unicode case, digits of any script, float texts) differ in corners.


def _utf16_key(s: str) -> bytes:
    # Java sorts strings by UTF-16 code units; Python by code points (they differ above U+FFFF).
    return s.encode("utf-16-be", "surrogatepass")


def java_double_text(d: float) -> str:
    """Java's ``Double.toString``: plain between 1e-3 and 1e7, else ``d.dddE±n``; the shortest digits."""
    if d != d:
        return "NaN"
    if d in (float("inf"), float("-inf")):
        return "Infinity" if d > 0 else "-Infinity"
    if d == 0:
        return "-0.0" if str(d).startswith("-") else "0.0"
    sign = "-" if d < 0 else ""
    a = abs(d)
    digits, exponent = _shortest_digits(a)  # a = 0.digits * 10**exponent
    if 1e-3 <= a < 1e7:
        point = exponent
        if point <= 0:
            text = "0." + "0" * (-point) + digits
        elif point >= len(digits):
            text = digits + "0" * (point - len(digits)) + ".0"
        else:
            text = digits[:point] + "." + digits[point:]
        return sign + text
    mantissa = digits[0] + "." + (digits[1:] or "0")
    return f"{sign}{mantissa}E{exponent - 1}"


def _shortest_digits(a: float) -> tuple[str, int]:
    r = repr(a)  # Python's repr is the shortest text that reads back as the same double
    mantissa, _, exp = r.partition("e")
    exp_n = int(exp) if exp else 0
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    lead_zeros = len(whole + frac) - len((whole + frac).lstrip("0"))
    point = len(whole) - lead_zeros + exp_n
    digits = digits.rstrip("0") or "0"
    return digits, point


def java_equals_ignore_case(a: str, b: str) -> bool:
    """Java's ``String.equalsIgnoreCase``: char by char, equal after upper- or lower-casing each."""
    ua, ub = a.encode("utf-16-be", "surrogatepass"), b.encode("utf-16-be", "surrogatepass")
    if len(ua) != len(ub):
        return False
    for x, y in zip(_utf16_units(a), _utf16_units(b)):
        if x == y:
            continue
        cx, cy = _char_upper(x), _char_upper(y)
        if cx == cy:
            continue
        if _char_lower(cx) == _char_lower(cy):
            continue
        return False
    return True


def _utf16_units(s: str) -> list[str]:
    b = s.encode("utf-16-be", "surrogatepass")
    return [b[i : i + 2].decode("utf-16-be", "surrogatepass") for i in range(0, len(b), 2)]


def _char_upper(c: str) -> str:
    u = c.upper()
    return u if len(u) == 1 else c  # Java's Character.toUpperCase maps one char to one char


def _char_lower(c: str) -> str:
    u = c.lower()
    return u if len(u) == 1 else c


# ---------------------------------------------------------------------------------------------------
# Go's strings in Python's (the jar's GoBytes): nats-server's values are bytes. Valid UTF-8 is read as its
# characters, every byte of an invalid sequence as the lone surrogate U+DC80 + (byte - 0x80), Python's
# ``surrogateescape``, so the bytes come back unchanged and both readers hold the same text.


def go_bytes(text: str) -> bytes:
    """The bytes a text stands for: UTF-8, the escaped bytes back as they were (another lone surrogate is
    written as its three bytes, as the jar does)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        out = bytearray()
        for ch in text:
            o = ord(ch)
            if 0xDC80 <= o <= 0xDCFF:
                out.append(o - 0xDC00)
            else:
                out += ch.encode("utf-8", "surrogatepass")
        return bytes(out)


def go_lower(s: str) -> str:
    """Go's ``strings.ToLower``, with which nats-server compares field names: character by character, the
    simple mapping (``İ`` is ``i``; Python's ``str.lower`` makes it two characters). The jar's GoBytes.lower."""
    return "".join("i" if c == "\u0130" else c.lower() for c in s)


def go_text_of(b: bytes) -> str:
    """The text of Go's bytes ``b``: its characters, an escaped byte for every byte Go reads as U+FFFD."""
    return b.decode("utf-8", "surrogateescape")


# ---------------------------------------------------------------------------------------------------
# The lexer (the jar's ConfLexer): nats-server's, over the document's UTF-8 bytes, one state at a time with
# a stack of the states to return to. Its states are Go's, because nats-server's verdict on an odd text
# lives in which state meets which character. Runs of ordinary bytes are skipped with one regular
# expression (the states would read them one by one to the same end).

_EOF = 0

# Go's unicode.IsDigit (Unicode 15.0): the digits of every script, as ranges, and unicode.IsSpace.
DIGIT_RANGES = (
    (0x0030, 0x0039),
    (0x0660, 0x0669),
    (0x06F0, 0x06F9),
    (0x07C0, 0x07C9),
    (0x0966, 0x096F),
    (0x09E6, 0x09EF),
    (0x0A66, 0x0A6F),
    (0x0AE6, 0x0AEF),
    (0x0B66, 0x0B6F),
    (0x0BE6, 0x0BEF),
    (0x0C66, 0x0C6F),
    (0x0CE6, 0x0CEF),
    (0x0D66, 0x0D6F),
    (0x0DE6, 0x0DEF),
    (0x0E50, 0x0E59),
    (0x0ED0, 0x0ED9),
    (0x0F20, 0x0F29),
    (0x1040, 0x1049),
    (0x1090, 0x1099),
    (0x17E0, 0x17E9),
    (0x1810, 0x1819),
    (0x1946, 0x194F),
    (0x19D0, 0x19D9),
    (0x1A80, 0x1A89),
    (0x1A90, 0x1A99),
    (0x1B50, 0x1B59),
    (0x1BB0, 0x1BB9),
    (0x1C40, 0x1C49),
    (0x1C50, 0x1C59),
    (0xA620, 0xA629),
    (0xA8D0, 0xA8D9),
    (0xA900, 0xA909),
    (0xA9D0, 0xA9D9),
    (0xA9F0, 0xA9F9),
    (0xAA50, 0xAA59),
    (0xABF0, 0xABF9),
    (0xFF10, 0xFF19),
    (0x104A0, 0x104A9),
    (0x10D30, 0x10D39),
    (0x11066, 0x1106F),
    (0x110F0, 0x110F9),
    (0x11136, 0x1113F),
    (0x111D0, 0x111D9),
    (0x112F0, 0x112F9),
    (0x11450, 0x11459),
    (0x114D0, 0x114D9),
    (0x11650, 0x11659),
    (0x116C0, 0x116C9),
    (0x11730, 0x11739),
    (0x118E0, 0x118E9),
    (0x11950, 0x11959),
    (0x11C50, 0x11C59),
    (0x11D50, 0x11D59),
    (0x11DA0, 0x11DA9),
    (0x11F50, 0x11F59),
    (0x16A60, 0x16A69),
    (0x16AC0, 0x16AC9),
    (0x16B50, 0x16B59),
    (0x1D7CE, 0x1D7FF),
    (0x1E140, 0x1E149),
    (0x1E2F0, 0x1E2F9),
    (0x1E4F0, 0x1E4F9),
    (0x1E950, 0x1E959),
    (0x1FBF0, 0x1FBF9),
)
_SPACES = frozenset(
    (
        0x09,
        0x0A,
        0x0B,
        0x0C,
        0x0D,
        0x20,
        0x85,
        0xA0,
        0x1680,
        *range(0x2000, 0x200B),
        0x2028,
        0x2029,
        0x202F,
        0x205F,
        0x3000,
    )
)


def _is_digit(r: int) -> bool:
    if r < 0x80:
        return 0x30 <= r <= 0x39
    for lo, hi in DIGIT_RANGES:
        if r < lo:
            return False
        if r <= hi:
            return True
    return False


def _is_space(r: int) -> bool:
    return r in _SPACES


def decode_rune(b: bytes, i: int, until: int) -> tuple[int, int]:
    """Go's ``utf8.DecodeRune`` at ``i``: (rune, width); an invalid or cut sequence is (U+FFFD, 1)."""
    b0 = b[i]
    if b0 < 0x80:
        return b0, 1

    def cont(k: int, lo: int = 0x80, hi: int = 0xBF) -> int:
        return b[i + k] & 0x3F if i + k < until and lo <= b[i + k] <= hi else -1

    if 0xC2 <= b0 <= 0xDF:
        c1 = cont(1)
        return ((b0 & 0x1F) << 6 | c1, 2) if c1 >= 0 else (0xFFFD, 1)
    if 0xE0 <= b0 <= 0xEF:
        c1 = cont(1, 0xA0) if b0 == 0xE0 else cont(1, 0x80, 0x9F) if b0 == 0xED else cont(1)
        c2 = cont(2) if c1 >= 0 else -1
        return ((b0 & 0x0F) << 12 | c1 << 6 | c2, 3) if c2 >= 0 else (0xFFFD, 1)
    if 0xF0 <= b0 <= 0xF4:
        c1 = cont(1, 0x90) if b0 == 0xF0 else cont(1, 0x80, 0x8F) if b0 == 0xF4 else cont(1)
        c2 = cont(2) if c1 >= 0 else -1
        c3 = cont(3) if c2 >= 0 else -1
        return ((b0 & 0x07) << 18 | c1 << 12 | c2 << 6 | c3, 4) if c3 >= 0 else (0xFFFD, 1)
    return 0xFFFD, 1


def lower_equals(b: bytes, word: str) -> bool:
    """Go's ``strings.ToLower(b) == word`` for an ASCII word (U+0130 lowers to ``i``, U+212A to ``k``)."""
    i, j, n = 0, 0, len(b)
    while i < n:
        if j >= len(word):
            return False
        r, w = decode_rune(b, i, n)
        lower = r + 32 if 0x41 <= r <= 0x5A else 0x69 if r == 0x130 else 0x6B if r == 0x212A else r
        if lower != ord(word[j]):
            return False
        i += w
        j += 1
    return j == len(word)


_BOOL_WORDS = ("true", "false", "on", "off", "yes", "no")
_SIZE_SUFFIXES = frozenset(b"kKmMgGtTpPeE")
_DATE_FORM = b"00-00T00:00:00Z"

# Items (the jar's Item): kind, value bytes, line, Go's position on the line, the end in the text, quoted.
I_ERROR, I_EOF, I_KEY, I_TEXT, I_STR, I_BOOL, I_INTEGER, I_FLOAT, I_DATETIME = 0, 2, 3, 4, 5, 6, 7, 8, 9
I_ARRAY_START, I_ARRAY_END, I_MAP_START, I_MAP_END, I_COMMENT, I_VARIABLE, I_INCLUDE = 10, 11, 12, 13, 14, 15, 16

(
    S_TOP,
    S_TOP_VALUE_END,
    S_BLOCK_START,
    S_BLOCK_VALUE_END,
    S_BLOCK_END,
    S_KEY_START,
    S_DQ_KEY,
    S_SQ_KEY,
    S_KEY,
    S_KEY_END,
    S_INCLUDE_START,
    S_INCLUDE,
    S_INCLUDE_SQ,
    S_INCLUDE_DQ,
    S_INCLUDE_BARE,
    S_VALUE,
    S_ARRAY_VALUE,
    S_ARRAY_VALUE_END,
    S_ARRAY_END,
    S_MAP_KEY_START,
    S_MAP_SQ_KEY,
    S_MAP_DQ_KEY,
    S_MAP_KEY,
    S_MAP_KEY_END,
    S_MAP_VALUE,
    S_MAP_VALUE_END,
    S_MAP_END,
    S_SQ_STRING,
    S_DQ_STRING,
    S_BARE_STRING,
    S_BLOCK,
    S_STRING_ESCAPE,
    S_STRING_BINARY,
    S_NUMBER_START,
    S_NUMBER,
    S_SIZED_NUMBER,
    S_DATE_AFTER_YEAR,
    S_NEG_NUMBER_START,
    S_NEG_NUMBER,
    S_FLOAT_START,
    S_FLOAT,
    S_IP_ADDR,
    S_COMMENT_START,
    S_COMMENT,
    S_STOP,
) = range(45)

# Runs that no state stops inside (a NUL is the end of the text; no run holds a new line but quoted ones).
_RUN_BARE = re.compile(rb"[^\\\n\r\x00;,\]} \t']*")
_RUN_DQ = re.compile(rb'[^"\\\x00]*')
_RUN_SQ = re.compile(rb"[^'\x00]*")
_RUN_DQ_KEY = re.compile(rb'[^"\x00]*')
_RUN_COMMENT = re.compile(rb"[^\n\r\x00]*")
# A key: up to white space (the multi-byte spaces of unicode.IsSpace too), `=`, `:` or the end.
_RUN_KEY = re.compile(
    rb"(?:[^\t\n\x0b\x0c\r =:\x00\xc2\xe1\xe2\xe3]|\xc2(?![\x85\xa0])|\xe1(?!\x9a\x80)"
    rb"|\xe2(?!\x80[\x80-\x8a\xa8\xa9\xaf]|\x81\x9f)|\xe3(?!\x80\x80))*"
)


def _rune_text(r: int) -> str:
    """Go's ``%v`` of a rune in the lexer's messages: a new line as ``\\n``, the end as a NUL."""
    return "\\n" if r == 0x0A else chr(r)


class _Lexer:
    """Pull-based: ``next_item()`` runs states until one emits an item."""

    def __init__(self, data: bytes):
        self.input = data
        self.n = len(data)
        self.start = 0
        self.pos = 0
        self.width = 0
        self.line = 1
        self.line_start = 0  # where the line of pos starts (the index of its '\n')
        self.item_line_start = 0  # line_start at the last item: item positions count from it
        self.state = S_TOP
        self.stack: list[int] = []
        self.parts: bytearray | None = None  # escaped pieces of the string being read
        self.string_state = S_BARE_STRING  # the state an escape returns to
        self.pending: tuple | None = None
        self.states = [getattr(self, "_" + name[2:].lower()) for name in _STATE_NAMES]

    def next_item(self) -> tuple:
        states = self.states
        while self.pending is None:
            self.state = states[self.state]()
        it = self.pending
        self.pending = None
        return it

    # -- the cursor, as Go's
    def next(self) -> int:
        p = self.pos
        if p >= self.n:
            self.width = 0
            return _EOF
        c = self.input[p]
        if c < 0x80:
            if c == 0x0A:
                self.line += 1
                self.line_start = p
            self.width = 1
            self.pos = p + 1
            return c
        r, w = decode_rune(self.input, p, self.n)
        self.width = w
        self.pos = p + w
        return r

    def backup(self) -> None:
        self.pos -= self.width
        if self.pos < self.n and self.input[self.pos] == 0x0A:
            self.line -= 1

    def peek(self) -> int:
        r = self.next()
        self.backup()
        return r

    def skip_run(self, pattern) -> None:
        """Reads on over bytes that the current state would read one by one without stopping."""
        end = pattern.match(self.input, self.pos).end()
        newlines = self.input.count(b"\n", self.pos, end)
        if newlines:
            self.line += newlines
            self.line_start = self.input.rindex(b"\n", self.pos, end)
        self.pos = end

    def ignore(self) -> None:
        self.start = self.pos
        self.item_line_start = self.line_start

    def push(self, s: int) -> None:
        self.stack.append(s)

    def pop(self) -> int:
        if not self.stack:
            return self.error("BUG in lexer: no states to pop.")
        return self.stack.pop()

    def emit(self, kind: int, quoted: bool = False) -> None:
        value = self.input[self.start : self.pos]
        if self.parts is not None:
            value = bytes(self.parts) + value
        self.pending = (kind, value, self.line, self.pos - self.item_line_start - len(value), self.pos, quoted)
        self.start = self.pos
        self.item_line_start = self.line_start

    def emit_string(self, quoted: bool) -> None:
        self.emit(I_STR, quoted)
        self.parts = None

    def add_current_string_part(self, offset: int) -> None:
        if self.parts is None:
            self.parts = bytearray()
        self.parts += self.input[self.start : self.pos - offset]
        self.start = self.pos

    def add_string_part(self, byte: int) -> int:
        assert self.parts is not None
        self.parts.append(byte)
        self.start = self.pos
        return self.string_state

    def error(self, message: str | bytes) -> int:
        value = message if isinstance(message, bytes) else go_bytes(message)
        self.pending = (I_ERROR, value, self.line, 0, self.pos, False)
        return S_STOP

    def error_at(self, template: str, *runes: int) -> int:
        return self.error(template % tuple(_rune_text(r) for r in runes))

    def end_of_text(self) -> int:
        if self.pos > self.start:
            return self.error("Unexpected EOF.")
        self.emit(I_EOF)
        return S_STOP

    def comment_or(self, back: int, other) -> int:
        """After a `/`: a `//` comment, else the caller reads the `/` as ``other()`` says."""
        if self.next() == 0x2F:
            self.push(back)
            return S_COMMENT_START
        self.backup()
        return other()

    # -- the states
    def _top(self) -> int:
        r = self.next()
        if r in _SPACES:
            self.ignore()
            return S_TOP
        if r == 0x7B:  # {
            self.push(S_TOP)
            self.ignore()
            return S_BLOCK_START
        if r == 0x23:  # #
            self.push(S_TOP)
            return S_COMMENT_START
        if r == 0x2F:
            return self.comment_or(S_TOP, self.end_of_text)
        if r == _EOF:
            return self.end_of_text()
        self.backup()
        self.push(S_TOP_VALUE_END)
        return S_KEY_START

    def _top_value_end(self) -> int:
        r = self.next()
        if r == 0x23:
            self.push(S_TOP)
            return S_COMMENT_START
        if r == 0x2F:
            return self.comment_or(S_TOP, lambda: S_TOP_VALUE_END)
        if r in (0x20, 0x09):
            return S_TOP_VALUE_END
        if r in (0x0A, 0x0D, _EOF, 0x3B, 0x2C, 0x7D):
            self.ignore()
            return S_TOP
        return self.error_at(
            "Expected a top-level value to end with a new line, comment or EOF, but got '%s' instead.", r
        )

    def _block_start(self) -> int:
        r = self.next()
        if r in _SPACES:
            self.ignore()
            return S_BLOCK_START
        if r == 0x7B:
            self.push(S_BLOCK_END)
            self.ignore()
            return S_BLOCK_START
        if r == 0x7D:
            self.ignore()
            return self.pop()
        if r == 0x23:
            self.push(S_BLOCK_START)
            return S_COMMENT_START
        if r == 0x2F:
            return self.comment_or(S_BLOCK_START, self.end_of_text)
        if r == _EOF:
            return self.end_of_text()
        self.backup()
        self.push(S_BLOCK_VALUE_END)
        return S_KEY_START

    def _block_value_end(self) -> int:
        r = self.next()
        if r == 0x23:
            self.push(S_BLOCK_VALUE_END)
            return S_COMMENT_START
        if r == 0x2F:
            return self.comment_or(S_BLOCK_VALUE_END, lambda: S_BLOCK_VALUE_END)
        if r in (0x20, 0x09):
            return S_BLOCK_VALUE_END
        if r in (0x0A, 0x0D, 0x3B, 0x2C):
            self.ignore()
            return S_BLOCK_START
        if r == 0x7D:
            self.backup()
            return S_BLOCK_END
        return self.error_at(
            "Expected a block-level value to end with a new line, comment or EOF, but got '%s' instead.", r
        )

    def _block_end(self) -> int:
        r = self.next()
        if r == 0x23:
            self.push(S_BLOCK_START)
            return S_COMMENT_START
        if r == 0x2F:
            return self.comment_or(S_BLOCK_START, lambda: S_BLOCK_END)
        if r in (0x0A, 0x0D, 0x20, 0x09):
            return S_BLOCK_END
        if r in (0x3B, 0x2C):
            self.ignore()
            return S_BLOCK_START
        if r == 0x7D:
            self.ignore()
            return self.pop()
        return self.error_at("Expected a block-level to end with a '}', but got '%s' instead.", r)

    def _key_start(self) -> int:
        r = self.peek()
        if r in (0x3D, 0x3A):
            return self.error_at("Unexpected key separator '%s'", r)
        if r in _SPACES:
            self.next()
            self.ignore()
            return S_KEY_START
        if r == 0x22:
            self.next()
            self.ignore()
            return S_DQ_KEY
        if r == 0x27:
            self.next()
            self.ignore()
            return S_SQ_KEY
        self.ignore()
        self.next()
        return S_KEY

    def _quoted_key(self, quote: int, pattern) -> int:
        self.skip_run(pattern)  # new lines are part of the key; a NUL is the end of the text
        if self.pos < self.n and self.input[self.pos] == quote:
            self.emit(I_KEY)
            self.next()
            self.ignore()
            return S_KEY_END
        return self.end_of_text()

    def _dq_key(self) -> int:
        return self._quoted_key(0x22, _RUN_DQ_KEY)

    def _sq_key(self) -> int:
        return self._quoted_key(0x27, _RUN_SQ)

    def key_or_include(self, after_key: int, after_include: int) -> int:
        """A key followed by white space: ``include`` (any case) starts an include, anything else is a key."""
        if lower_equals(self.input[self.start : self.pos], "include"):
            self.ignore()
            if after_include != S_STOP:
                self.push(after_include)
            return S_INCLUDE_START
        self.emit(I_KEY)
        return after_key

    def _key(self) -> int:
        self.skip_run(_RUN_KEY)
        r = self.peek()
        if r in _SPACES:
            return self.key_or_include(S_KEY_END, S_STOP)
        self.emit(I_KEY)  # `=`, `:` or the end
        return S_KEY_END

    def _key_end(self) -> int:
        r = self.next()
        if r in _SPACES:
            self.ignore()
            return S_KEY_END
        if r in (0x3D, 0x3A):
            self.ignore()
            return S_VALUE
        if r == _EOF:
            self.emit(I_EOF)
            return S_STOP
        self.backup()
        return S_VALUE

    def _include_start(self) -> int:
        r = self.next()
        if r in (0x20, 0x09):
            self.ignore()
            return S_INCLUDE_START
        self.backup()
        return S_INCLUDE

    def _include(self) -> int:
        r = self.next()
        if r == 0x27:
            self.ignore()
            return S_INCLUDE_SQ
        if r == 0x22:
            self.ignore()
            return S_INCLUDE_DQ
        found = {
            0x5B: "start of an array",
            0x7B: "start of a map",
            0x28: "start of a block",
            0x2D: "start of a number",
            0x5C: "escape sequence",
            0x0A: "new line",
            0x0D: "new line",
        }.get(r)
        if found is None and _is_digit(r):
            found = "start of a number"
        if found is not None:
            return self.error("Expected include value but found " + found)
        self.backup()
        return S_INCLUDE_BARE

    def _include_quoted(self, quote: int, eof_message: str, again: int) -> int:
        r = self.next()
        if r == quote:
            self.backup()
            self.emit(I_INCLUDE)
            self.next()
            self.ignore()
            return self.pop()
        if r == _EOF:
            return self.error(eof_message)
        return again

    def _include_sq(self) -> int:
        return self._include_quoted(0x27, "Unexpected EOF in quoted include", S_INCLUDE_SQ)

    def _include_dq(self) -> int:
        return self._include_quoted(0x22, "Unexpected EOF in double quoted include", S_INCLUDE_DQ)

    def _include_bare(self) -> int:
        r = self.next()
        if r in (0x0A, 0x0D, _EOF, 0x3B, 0x7D, 0x20, 0x09):
            self.backup()
            self.emit(I_INCLUDE)
            return self.pop()
        if r == 0x27:
            self.backup()
            self.emit(I_INCLUDE)
            self.next()
            self.ignore()
            return self.pop()
        return S_INCLUDE_BARE

    def _value(self) -> int:
        r = self.next()
        if r in (0x20, 0x09):
            self.ignore()
            return S_VALUE
        if r == 0x5B:
            self.ignore()
            self.emit(I_ARRAY_START)
            return S_ARRAY_VALUE
        if r == 0x7B:
            self.ignore()
            self.emit(I_MAP_START)
            return S_MAP_KEY_START
        if r == 0x27:
            self.ignore()
            return S_SQ_STRING
        if r == 0x22:
            self.ignore()
            self.string_state = S_DQ_STRING
            return S_DQ_STRING
        if r == 0x2D:
            return S_NEG_NUMBER_START
        if r == 0x28:
            self.ignore()
            return S_BLOCK
        if r == 0x2E:
            return self.error("Floats must start with a digit")
        if r in (0x0A, 0x0D):
            return self.error("Expected value but found new line")
        self.backup()
        if _is_digit(r):
            return S_NUMBER_START
        self.string_state = S_BARE_STRING
        return S_BARE_STRING

    def _array_value(self) -> int:
        r = self.next()
        if r in _SPACES:
            self.ignore()
            return S_ARRAY_VALUE
        if r == 0x23:
            self.push(S_ARRAY_VALUE)
            return S_COMMENT_START
        if r == 0x2F:
            return self.comment_or(S_ARRAY_VALUE, lambda: self.error("Unexpected array value terminator ','."))
        if r == 0x2C:
            return self.error("Unexpected array value terminator ','.")
        if r == 0x5D:
            return S_ARRAY_END
        self.backup()
        self.push(S_ARRAY_VALUE_END)
        return S_VALUE

    def _array_value_end(self) -> int:
        r = self.next()
        if r in (0x20, 0x09):
            self.ignore()
            return S_ARRAY_VALUE_END
        if r == 0x23:
            self.push(S_ARRAY_VALUE_END)
            return S_COMMENT_START
        if r == 0x2F:  # a lone `/` separates items as `,` does
            return self.comment_or(S_ARRAY_VALUE_END, self._ignore_then(S_ARRAY_VALUE))
        if r in (0x2C, 0x0A, 0x0D):
            self.ignore()
            return S_ARRAY_VALUE
        if r == 0x5D:
            return S_ARRAY_END
        return self.error_at(
            'Expected an array value terminator "," or an array terminator "]", but got \'%s\' instead.', r
        )

    def _ignore_then(self, state: int):
        def go() -> int:
            self.ignore()
            return state

        return go

    def _array_end(self) -> int:
        self.ignore()
        self.emit(I_ARRAY_END)
        return self.pop()

    def _map_key_start(self) -> int:
        r = self.peek()
        if r in (0x3D, 0x3A):
            return self.error_at("Unexpected key separator '%s'.", r)
        if r == 0x5D:
            return self.error_at("Unexpected array end '%s' processing map.", r)
        if r in _SPACES:
            self.next()
            self.ignore()
            return S_MAP_KEY_START
        if r == 0x7D:
            self.next()
            self.ignore()
            return S_MAP_END
        if r == 0x23:
            self.next()
            self.push(S_MAP_KEY_START)
            return S_COMMENT_START
        if r == 0x2F:
            self.next()
            if self.next() == 0x2F:
                self.push(S_MAP_KEY_START)
                return S_COMMENT_START
            self.backup()
            # the lone `/` is dropped: the key starts after it
        elif r == 0x27:
            self.next()
            self.ignore()
            return S_MAP_SQ_KEY
        elif r == 0x22:
            self.next()
            self.ignore()
            return S_MAP_DQ_KEY
        elif r == _EOF:
            return self.error("Unexpected EOF processing map.")
        self.ignore()
        self.next()
        return S_MAP_KEY

    def _map_quoted_key(self, quote: int, pattern, eof_message: str) -> int:
        self.skip_run(pattern)
        if self.pos < self.n and self.input[self.pos] == quote:
            self.emit(I_KEY)
            self.next()
            self.ignore()
            return S_MAP_KEY_END
        return self.error(eof_message)

    def _map_sq_key(self) -> int:
        return self._map_quoted_key(0x27, _RUN_SQ, "Unexpected EOF processing quoted map key.")

    def _map_dq_key(self) -> int:
        return self._map_quoted_key(0x22, _RUN_DQ_KEY, "Unexpected EOF processing double quoted map key.")

    def _map_key(self) -> int:
        self.skip_run(_RUN_KEY)
        r = self.peek()
        if r == _EOF:
            return self.error("Unexpected EOF processing map key.")
        if r in _SPACES:
            return self.key_or_include(S_MAP_KEY_END, S_MAP_VALUE_END)
        self.emit(I_KEY)  # `=` or `:`
        return S_MAP_KEY_END

    def _map_key_end(self) -> int:
        r = self.next()
        if r in _SPACES:
            self.ignore()
            return S_MAP_KEY_END
        if r in (0x3D, 0x3A):
            self.ignore()
            return S_MAP_VALUE
        self.backup()
        return S_MAP_VALUE

    def _map_value(self) -> int:
        r = self.next()
        if r in _SPACES:
            self.ignore()
            return S_MAP_VALUE
        if r == 0x2C:
            return self.error('Unexpected map value terminator ",".')
        if r == 0x7D:  # a key with no value before the map's end: Go reads on
            self.ignore()
            return S_MAP_END
        self.backup()
        self.push(S_MAP_VALUE_END)
        return S_VALUE

    def _map_value_end(self) -> int:
        r = self.next()
        if r in (0x20, 0x09):
            self.ignore()
            return S_MAP_VALUE_END
        if r == 0x23:
            self.push(S_MAP_VALUE_END)
            return S_COMMENT_START
        if r == 0x2F:
            return self.comment_or(S_MAP_VALUE_END, self._ignore_then(S_MAP_KEY_START))
        if r in (0x3B, 0x2C, 0x0A, 0x0D):
            self.ignore()
            return S_MAP_KEY_START
        if r == 0x7D:
            self.ignore()
            return S_MAP_END
        return self.error_at('Expected a map value terminator "," or a map terminator "}", but got \'%s\' instead.', r)

    def _map_end(self) -> int:
        self.ignore()
        self.emit(I_MAP_END)
        return self.pop()

    def _sq_string(self) -> int:
        self.skip_run(_RUN_SQ)
        if self.pos < self.n and self.input[self.pos] == 0x27:
            self.emit(I_STR, True)
            self.next()
            self.ignore()
            return self.pop()
        self.next()
        return self.end_of_text()

    def _dq_string(self) -> int:
        self.skip_run(_RUN_DQ)
        r = self.next()
        if r == 0x5C:
            self.add_current_string_part(1)
            return S_STRING_ESCAPE
        if r == 0x22:
            self.backup()
            self.emit_string(True)
            self.next()
            self.ignore()
            return self.pop()
        return self.end_of_text()

    def _bare_string(self) -> int:
        self.skip_run(_RUN_BARE)
        r = self.next()
        if r == 0x5C:
            self.add_current_string_part(1)
            return S_STRING_ESCAPE
        if r == 0x27:
            self.backup()
            self.emit_string(False)
            self.next()
            self.ignore()
            return self.pop()
        # a new line, the end, `;`, `,`, `]`, `}` or a blank
        self.backup()
        if self.parts is not None:
            self.emit_string(False)
        else:
            text = self.input[self.start : self.pos]
            if any(lower_equals(text, w) for w in _BOOL_WORDS):
                self.emit(I_BOOL)
            elif self.start < self.n and self.input[self.start] == 0x24:  # $
                self.start += 1
                self.emit(I_VARIABLE)
            else:
                self.emit_string(False)
        return self.pop()

    def _block(self) -> int:
        """``( ... )``: everything up to a ``)`` alone on its line."""
        r = self.next()
        if r == _EOF:
            return self.error("Unexpected EOF processing block.")
        if r != 0x29:
            return S_BLOCK
        self.backup()
        self.backup()  # Go steps back over the `)` and one byte more, then reads forward again
        if self.next() != 0x0A:
            self.next()
            return S_BLOCK
        self.next()
        if self.next() in (0x0A, _EOF):
            self.backup()
            self.backup()
            self.emit(I_STR, True)
            self.next()
            self.ignore()
            return self.pop()
        self.backup()
        return S_BLOCK

    def _string_escape(self) -> int:
        r = self.next()
        if r == 0x78:  # x
            return S_STRING_BINARY
        byte = {0x74: 0x09, 0x6E: 0x0A, 0x72: 0x0D, 0x22: 0x22, 0x5C: 0x5C}.get(r)
        if byte is not None:
            return self.add_string_part(byte)
        return self.error_at(
            "Invalid escape character '%s'. Only the following escape characters are allowed: "
            '\\xXX, \\t, \\n, \\r, \\", \\\\.',
            r,
        )

    def _string_binary(self) -> int:
        if self.next() in (0x0A, 0x0D) or self.next() in (0x0A, 0x0D):
            return self.error("Expected two hexadecimal digits after '\\x', but hit end of line")
        # The two bytes before the cursor, whatever runes were read: Go decodes input[pos-2:pos].
        pair = self.input[self.pos - 2 : self.pos]
        if not all(c in b"0123456789abcdefABCDEF" for c in pair):
            return self.error(b"Expected two hexadecimal digits after '\\x', but got '" + pair + b"'")
        return self.add_string_part(int(pair, 16))

    def _number_start_with(self, digits: int) -> int:
        r = self.next()
        if _is_digit(r):
            return digits
        if r == 0x2E:
            return self.error("Floats must start with a digit, not '.'.")
        return self.error_at("Expected a digit but got '%s'.", r)

    def _number_start(self) -> int:
        return self._number_start_with(S_NUMBER)

    def _neg_number_start(self) -> int:
        return self._number_start_with(S_NEG_NUMBER)

    def _number(self) -> int:
        r = self.next()
        if r == 0x2D:
            if self.pos - self.start != 5:
                return self.error("All ISO8601 dates must be in full Zulu form.")
            return S_DATE_AFTER_YEAR
        if _is_digit(r):
            return S_NUMBER
        if r == 0x2E:
            return S_FLOAT_START
        if r in _SIZE_SUFFIXES:
            return S_SIZED_NUMBER
        if r not in (0x0A, 0x0D, _EOF, 0x7D, 0x3B, 0x2C, 0x20, 0x09):
            self.string_state = S_BARE_STRING  # not a number after all: a bare string that starts with digits
            return S_BARE_STRING
        self.backup()
        self.emit(I_INTEGER)
        return self.pop()

    def _sized_number(self) -> int:
        r = self.next()
        if r in (0x62, 0x42, 0x69, 0x49):  # b B i I
            return S_SIZED_NUMBER
        self.backup()
        if r in (0x0A, 0x0D, _EOF, 0x7D, 0x3B, 0x2C, 0x20, 0x09):
            self.emit(I_INTEGER)
            return self.pop()
        self.string_state = S_BARE_STRING
        return S_BARE_STRING

    def _date_after_year(self) -> int:
        for f in _DATE_FORM:
            r = self.next()
            if f == 0x30:
                if not _is_digit(r):
                    return self.error_at("Expected digit in ISO8601 datetime, but found '%s' instead.", r)
            elif f != r:
                return self.error_at("Expected '%s' in ISO8601 datetime, but found '%s' instead.", f, r)
        self.emit(I_DATETIME)
        return self.pop()

    def _neg_number(self) -> int:
        r = self.next()
        if _is_digit(r):
            return S_NEG_NUMBER
        if r == 0x2E:
            return S_FLOAT_START
        if r in _SIZE_SUFFIXES:
            return S_SIZED_NUMBER
        self.backup()
        self.emit(I_INTEGER)
        return self.pop()

    def _float_start(self) -> int:
        r = self.next()
        if _is_digit(r):
            return S_FLOAT
        return self.error_at("Floats must have a digit after the '.', but got '%s' instead.", r)

    def _float(self) -> int:
        r = self.next()
        if _is_digit(r):
            return S_FLOAT
        if r == 0x2E:  # a second `.`: an IP address, a string
            return S_IP_ADDR
        self.backup()
        self.emit(I_FLOAT)
        return self.pop()

    def _ip_addr(self) -> int:
        r = self.next()
        if _is_digit(r) or r in (0x2E, 0x3A, 0x2D):
            return S_IP_ADDR
        self.backup()
        self.emit(I_STR)
        return self.pop()

    def _comment_start(self) -> int:
        self.ignore()
        self.emit(I_COMMENT)
        return S_COMMENT

    def _comment(self) -> int:
        self.skip_run(_RUN_COMMENT)  # up to a new line or the end, which the state on the stack reads
        self.emit(I_TEXT)
        return self.pop()

    def _stop(self) -> int:
        raise RuntimeError("the lexer has stopped")


_STATE_NAMES = (
    "S_TOP S_TOP_VALUE_END S_BLOCK_START S_BLOCK_VALUE_END S_BLOCK_END S_KEY_START S_DQ_KEY S_SQ_KEY S_KEY "
    "S_KEY_END S_INCLUDE_START S_INCLUDE S_INCLUDE_SQ S_INCLUDE_DQ S_INCLUDE_BARE S_VALUE S_ARRAY_VALUE "
    "S_ARRAY_VALUE_END S_ARRAY_END S_MAP_KEY_START S_MAP_SQ_KEY S_MAP_DQ_KEY S_MAP_KEY S_MAP_KEY_END "
    "S_MAP_VALUE S_MAP_VALUE_END S_MAP_END S_SQ_STRING S_DQ_STRING S_BARE_STRING S_BLOCK S_STRING_ESCAPE "
    "S_STRING_BINARY S_NUMBER_START S_NUMBER S_SIZED_NUMBER S_DATE_AFTER_YEAR S_NEG_NUMBER_START S_NEG_NUMBER "
    "S_FLOAT_START S_FLOAT S_IP_ADDR S_COMMENT_START S_COMMENT S_STOP"
).split()


# ---------------------------------------------------------------------------------------------------
# Scalars (the jar's ConfScalars): Go's strconv.ParseInt with the size suffixes, strconv.ParseFloat and
# time.Parse on a scalar item's text, with their errors in nats-server's words.

_NO_VALUE = object()  # an integer with a size suffix nats-server does not know: it sets no value at all

_SCALES = {"": 1}
for _i, _p in enumerate("kmgtpe"):
    _SCALES[_p] = 1000 ** (_i + 1)
    for _s in ("b", "i", "ib"):
        _SCALES[_p + _s] = 1024 ** (_i + 1)
_UINT64_CUTOFF = (2**64 - 1) // 10 + 1


def _wrap64(n: int) -> int:
    n &= (1 << 64) - 1
    return n - (1 << 64) if n >= 1 << 63 else n


def _parse_int(text: bytes) -> int | bool:
    """Go's ``strconv.ParseInt(text, 10, 64)``: the value, or whether the error is the range's."""
    if not text:
        return False
    negative = text[0] == 0x2D
    body = text[1:] if text[0] in (0x2B, 0x2D) else text
    if not body:
        return False
    n = 0
    for c in body:  # strconv.ParseUint: stops at the first non-digit, or the first byte that overflows
        if not 0x30 <= c <= 0x39:
            return False
        if n >= _UINT64_CUTOFF:
            return True
        n = n * 10 + c - 0x30
        if n > 2**64 - 1:
            return True
    if (not negative and n >= 1 << 63) or (negative and n > 1 << 63):
        return True
    return -n if negative else n


def _integer(text: bytes):
    """The integer item ``text``: its value, or ``_NO_VALUE``. The leading digits are counted in runes and
    cut in bytes, as nats-server does, so a digit of another script (``৫``) is never a number."""
    runes, i, n = 0, 0, len(text)
    while i < n:
        r, w = decode_rune(text, i, n)
        if not (_is_digit(r) or r == 0x2D):
            break
        runes += 1
        i += w
    digits = min(runes, n)
    value = _parse_int(text[:digits])
    if value is True:
        raise ConfSyntaxError(f"integer '{go_text_of(text)}' is out of the range")
    if value is False:
        raise ConfSyntaxError(f"expected integer, but got '{go_text_of(text)}'")
    scale = _SCALES.get(text[digits:].decode("latin-1").strip().lower())
    return _NO_VALUE if scale is None else _wrap64(value * scale)


def _float(text: bytes) -> float:
    s = go_text_of(text)
    if not text.isascii():
        raise ConfSyntaxError(f"expected float, but got '{s}'")
    d = float(s)  # correctly rounded, as Go's; an underflow is 0 in both
    if d in (float("inf"), float("-inf")):
        raise ConfSyntaxError(f"float '{s}' is out of the range")
    return d


def _date_time(text: bytes) -> str:
    """Go's ``time.Parse("2006-01-02T15:04:05Z", text)``: ASCII digits and a date and time that exist."""
    s = go_text_of(text)
    if (
        len(text) != 20
        or not text.isascii()
        or not all(text[i : i + 1].isdigit() for i in (0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18))
    ):
        raise ConfSyntaxError(f"expected Zulu formatted DateTime, but got '{s}'")
    year, month, day = int(s[0:4]), int(s[5:7]), int(s[8:10])
    hour, minute, second = int(s[11:13]), int(s[14:16]), int(s[17:19])
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = (29 if leap else 28) if month == 2 else 30 if month in (4, 6, 9, 11) else 31
    if not (1 <= month <= 12 and 1 <= day <= days and hour <= 23 and minute <= 59 and second <= 59):
        raise ConfSyntaxError(f"expected Zulu formatted DateTime, but got '{s}'")
    return s


# ---------------------------------------------------------------------------------------------------
# The parser (the jar's ConfReader, for a text: no files, no environment): Go's stacks as they are. A key
# waits on the key stack until a value takes it (so ``x {a }`` stores the closed map under ``a``); a
# value's line is its key's in a map and its own in a list, as nats-server's tokens give it.


class _MapFrame:
    __slots__ = ("entries", "repeated", "used")

    def __init__(self):
        self.entries: dict = {}
        self.repeated: list = []
        self.used: set = set()  # keys whose current value a `$name` used

    def put(self, key: str, v) -> None:
        if key in self.entries:
            self.repeated.append(key)
        self.entries[key] = v
        self.used.discard(key)

    def result(self, line: int) -> Obj:
        return Obj(tuple(self.entries.items()), tuple(self.repeated), line, frozenset(self.used))


class _ArrFrame:
    __slots__ = ("items",)

    def __init__(self):
        self.items: list = []

    def result(self, line: int) -> Arr:
        return Arr(tuple(self.items), line)


TEXT_INCLUDES_NO_FILES = (
    "a config read as text includes no files: give the config's file (a path, or subjxform validate FILE)"
)
TEXT_SEES_NO_ENVIRONMENT = (
    "a config read as text sees no environment variables, and a destination that starts with $ must be quoted"
)


class _Reader:
    def __init__(self, data: bytes, refuse_unquoted_braces: bool = True):
        self.data = data
        self.lexer = _Lexer(data)
        self.frames: list = []
        self.keys: list = []
        self.key_lines: list = []
        self.refuse_unquoted_braces = refuse_unquoted_braces
        self.unquoted_braces_line = 0  # the first unquoted value holding `{{`, when they are not refused

    def document(self) -> Obj:
        root = _MapFrame()
        self.frames.append(root)
        previous = None
        next_item = self.lexer.next_item
        while True:
            it = next_item()
            kind = it[0]
            if kind == I_EOF:
                # A key the text ends after is an error; a `}` read as a key is allowed (JSON-like configs).
                if previous is not None and previous[0] == I_KEY and previous[1] != b"}":
                    raise ConfSyntaxError(f"config is invalid (:{it[2]}:{it[3]})")
                return root.result(1)
            previous = it
            self.read(it)

    def line_of(self, item_line: int) -> int:
        if isinstance(self.frames[-1], _MapFrame) and self.key_lines:
            return self.key_lines[-1]
        return item_line

    def set(self, v) -> None:
        f = self.frames[-1]
        if isinstance(f, _ArrFrame):
            f.items.append(v)
            return
        if not self.keys:
            raise ConfSyntaxError("BUG in parser, keys stack empty")
        self.key_lines.pop()
        f.put(self.keys.pop(), v)

    def open(self, f, line: int) -> None:
        if len(self.frames) >= MAX_DEPTH:
            raise ConfSyntaxError(f"Parse error on line {line}: 'lists and maps nested more than {MAX_DEPTH} deep'")
        self.frames.append(f)

    def read(self, it: tuple) -> None:
        kind, value, line = it[0], it[1], it[2]
        if kind == I_KEY:
            self.keys.append(go_text_of(value))
            self.key_lines.append(line)
        elif kind == I_STR:
            s = go_text_of(value)
            if not it[5] and "{{" in s:
                if self.refuse_unquoted_braces:
                    raise self.unquoted_function(s, it)
                self.unquoted_braces_line = self.unquoted_braces_line or line
            self.set(Str(s, it[5], self.line_of(line)))
        elif kind == I_MAP_START:
            self.open(_MapFrame(), line)
        elif kind == I_ARRAY_START:
            self.open(_ArrFrame(), line)
        elif kind in (I_MAP_END, I_ARRAY_END):
            closed = self.frames.pop()
            self.set(closed.result(self.line_of(line)))
        elif kind == I_INTEGER:
            n = _integer(value)
            if n is not _NO_VALUE:
                self.set(Integer(n, self.line_of(line)))
        elif kind == I_FLOAT:
            self.set(Decimal(_float(value), self.line_of(line)))
        elif kind == I_BOOL:
            self.set(Bool(any(lower_equals(value, w) for w in ("true", "yes", "on")), self.line_of(line)))
        elif kind == I_DATETIME:
            self.set(DateTime(_date_time(value), self.line_of(line)))
        elif kind == I_VARIABLE:
            self.set(_relined(self.variable(go_text_of(value), line), self.line_of(line)))
        elif kind == I_INCLUDE:
            raise ConfSyntaxError(f"error parsing include file '{go_text_of(value)}', {TEXT_INCLUDES_NO_FILES}")
        elif kind == I_ERROR:
            raise ConfSyntaxError(f"Parse error on line {line}: '{go_text_of(value)}'")

    def variable(self, name: str, line: int):
        """``$name``: a bcrypt hash, else the innermost map in scope that has it (no environment here)."""
        if name.startswith("2a$"):
            return Str("$" + name, False, line)
        for f in reversed(self.frames):
            if isinstance(f, _MapFrame) and name in f.entries:
                f.used.add(name)
                return f.entries[name]
        raise ConfSyntaxError(
            f"variable reference for '{name}' on line {line} can not be found ({TEXT_SEES_NO_ENVIRONMENT})"
        )

    def unquoted_function(self, cut: str, it: tuple) -> ConfSyntaxError:
        """nats-server would keep only what comes before the first `}`: say so instead of guessing."""
        data, p = self.data, it[4]
        while p < len(data) and data[p] not in b"\t\n\x0b\x0c\r ,;":
            p += 1
        whole = cut + go_text_of(data[it[4] : p])
        while whole.endswith("}") and whole.count("}") > whole.count("{"):
            whole = whole[:-1]
        return ConfSyntaxError(
            f"unquoted destination on line {it[2]} holds {{{{...}}}}: nats-server reads an unquoted value only up to "
            f"its first '}}' (here {go_quote(cut)}); put the destination in quotes: {go_quote(whole)}"
        )


def _relined(v, line: int):
    """``v`` on another line (a variable's value where it is referenced, as nats-server's token does)."""
    if isinstance(v, Obj):
        return Obj(v.entries, v.repeated_keys, line, v.used_variables)
    return dataclasses.replace(v, line=line)


# ---------------------------------------------------------------------------------------------------
# The entry points (the jar's ConfSyntax) and the writer (ConfValue.confText).


def parse_document(text: str) -> Obj:
    """A whole document as nats-server's ``conf`` package reads it (a server config or a mappings block),
    nothing unwrapped; JSON too is read by its rules. Read as text: no include, no environment."""
    return _Reader(go_bytes(text)).document()


def parse_mappings(text: str) -> Obj:
    """The mappings block in ``text`` (its content, or ``mappings { ... }`` pasted whole), as the jar's
    ``ConfSyntax.parseMappings`` reads it."""
    return _unwrap_mappings_key(parse_document(text))


def _unwrap_mappings_key(o: Obj) -> Obj:
    if len(o.entries) == 1:
        k, inner = o.entries[0]
        if isinstance(inner, Obj) and java_equals_ignore_case(k, "mappings"):
            return inner
    return o


def conf_text(value) -> str:
    """A dict (a mappings table, a config) written in nats-server's configuration syntax, so that both
    readers read back the same values, types included; JSON where the syntax allows it. A float is written
    with digits only (``1e10`` would read as a string); a str's escaped bytes (``go_bytes``) as ``\\xHH``.

    Raises:
        ValueError: a value the syntax cannot hold (None, an infinite float, a key with both quotes and
            white space).
    """
    out: list[str] = []
    _write_conf(value, out)
    return "".join(out)


def _write_conf(v, out: list) -> None:
    if isinstance(v, bool):
        out.append("true" if v else "false")
    elif isinstance(v, int):
        if not -(2**63) <= v < 2**63:
            raise ValueError(f"{v} is past the 64-bit integers nats-server's config holds")
        out.append(str(v))
    elif isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            raise ValueError(f"{v} is no number nats-server's config can hold")
        shortest = repr(v)  # the shortest digits that read back as the same double
        text = shortest if "e" not in shortest else format(_BigDecimal(shortest), "f")
        out.append(text if "." in text else text + ".0")
    elif isinstance(v, str):
        out.append(_quote_conf(v))
    elif isinstance(v, dict):
        out.append("{" + ", ".join(f"{_conf_key(k)}: {conf_text(x)}" for k, x in v.items()) + "}")
    elif isinstance(v, (list, tuple)):
        out.append("[" + ", ".join(conf_text(x) for x in v) + "]")
    else:
        raise ValueError(f"a {type(v).__name__} ({v!r}) is no value nats-server's config holds")


def _conf_key(k) -> str:
    if not isinstance(k, str):
        raise ValueError(f"a config key must be a str, not {type(k).__name__} ({k!r})")
    if '"' not in k and "\x00" not in k:
        return f'"{k}"'
    if "'" not in k and "\x00" not in k:
        return f"'{k}'"
    if k and k[0] not in "\"'{#/" and all(c > " " and c not in "=:" and ord(c) not in _SPACES for c in k):
        return k
    raise ValueError(
        f"the key {go_quote(k)} cannot be written in nats-server's configuration syntax (it holds both quotes "
        "and white space or a NUL)"
    )


_CONF_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _quote_conf(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in _CONF_ESCAPES:
            out.append(_CONF_ESCAPES[ch])
        elif o < 0x20 or 0xDC80 <= o <= 0xDCFF:
            out.append(f"\\x{o & 0xFF:02x}")
        elif 0xD800 <= o <= 0xDFFF:  # a lone surrogate: its three bytes
            out.extend(f"\\x{x:02x}" for x in ch.encode("utf-8", "surrogatepass"))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)
