"""nats-server's configuration lexer, as the jar's ``ConfLexer`` (jvm/core/.../config/ConfLexer.scala), over a
document's UTF-8 bytes. One job, a long one: Go's lexer states, each a method, with nats-server's verdicts."""

from __future__ import annotations

import re

from .go_bytes import go_bytes

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
SPACES = frozenset(
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


def is_digit(r: int) -> bool:
    if r < 0x80:
        return 0x30 <= r <= 0x39
    for lo, hi in DIGIT_RANGES:
        if r < lo:
            return False
        if r <= hi:
            return True
    return False


def _is_space(r: int) -> bool:
    return r in SPACES


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


class ConfLexer:
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
        if r in SPACES:
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
        if r in SPACES:
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
        if r in SPACES:
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
        if r in SPACES:
            return self.key_or_include(S_KEY_END, S_STOP)
        self.emit(I_KEY)  # `=`, `:` or the end
        return S_KEY_END

    def _key_end(self) -> int:
        r = self.next()
        if r in SPACES:
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
        if found is None and is_digit(r):
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
        if is_digit(r):
            return S_NUMBER_START
        self.string_state = S_BARE_STRING
        return S_BARE_STRING

    def _array_value(self) -> int:
        r = self.next()
        if r in SPACES:
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
        if r in SPACES:
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
        if r in SPACES:
            return self.key_or_include(S_MAP_KEY_END, S_MAP_VALUE_END)
        self.emit(I_KEY)  # `=` or `:`
        return S_MAP_KEY_END

    def _map_key_end(self) -> int:
        r = self.next()
        if r in SPACES:
            self.ignore()
            return S_MAP_KEY_END
        if r in (0x3D, 0x3A):
            self.ignore()
            return S_MAP_VALUE
        self.backup()
        return S_MAP_VALUE

    def _map_value(self) -> int:
        r = self.next()
        if r in SPACES:
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
        if is_digit(r):
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
        if is_digit(r):
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
                if not is_digit(r):
                    return self.error_at("Expected digit in ISO8601 datetime, but found '%s' instead.", r)
            elif f != r:
                return self.error_at("Expected '%s' in ISO8601 datetime, but found '%s' instead.", f, r)
        self.emit(I_DATETIME)
        return self.pop()

    def _neg_number(self) -> int:
        r = self.next()
        if is_digit(r):
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
        if is_digit(r):
            return S_FLOAT
        return self.error_at("Floats must have a digit after the '.', but got '%s' instead.", r)

    def _float(self) -> int:
        r = self.next()
        if is_digit(r):
            return S_FLOAT
        if r == 0x2E:  # a second `.`: an IP address, a string
            return S_IP_ADDR
        self.backup()
        self.emit(I_FLOAT)
        return self.pop()

    def _ip_addr(self) -> int:
        r = self.next()
        if is_digit(r) or r in (0x2E, 0x3A, 0x2D):
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
