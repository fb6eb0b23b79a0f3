"""Reading a mappings table without the JVM: JSON, or the body of a nats-server ``mappings { }`` block in
its configuration syntax, into the same values the jar's reader (config ``ConfSyntax``) produces, with the
same error texts. The jar is the reference: tests compare this reader with it through py4j, case by
case, so what is accepted, how it is read and what an error says are the same on both paths.

Only what a mappings table given to ``subject_map`` can hold is read here: no ``include`` (it needs a
file) and no environment variables (``$name`` resolves to a variable of the block or is an error, as in
the jar when it reads a table, not a file).

The pieces, named as the jar's (a fix in one reader is found at the same name in the other): the values
(``ConfValue``); Java's behaviours that the jar's reader has and Python lacks; ``_Scanner``, the cursor
(``ConfScanner``); ``_Scalars``, strings and numbers (``ConfScalars``); ``_Reader``, maps, lists and
``$name`` (``ConfReader``); strict JSON (``ConfJson``); the entry points (``ConfSyntax``)."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from decimal import Decimal as _BigDecimal
from typing import NoReturn

from ._quote import go_quote

# How deep lists and maps may nest (the document's own map included): the jar's limit, Go's json's.
MAX_DEPTH = 10000


class ConfSyntaxError(ValueError):
    """A text that neither nats-server's configuration parser nor a JSON parser accepts."""


# ---------------------------------------------------------------------------------------------------
# Values (the jar's ConfValue). Strings remember whether they were quoted: nats-server cuts an
# unquoted `{{...}}` at its first `}`, which is refused here as in the jar.


@dataclass(frozen=True)
class Str:
    value: str
    quoted: bool
    line: int


@dataclass(frozen=True)
class Integer:
    value: int
    line: int


@dataclass(frozen=True)
class Decimal:
    value: float
    line: int
    text: str | None = None  # the JSON text of the number, for an exact message of a huge integer


@dataclass(frozen=True)
class Bool:
    value: bool
    line: int


@dataclass(frozen=True)
class DateTime:
    value: str
    line: int


@dataclass(frozen=True)
class Null:
    line: int


@dataclass(frozen=True)
class Arr:
    items: tuple
    line: int


@dataclass(frozen=True)
class Obj:
    """Keys in written order; a repeated key replaces the earlier value (in the earlier place), as in
    nats-server's Go map."""

    entries: tuple  # of (key, value)
    repeated_keys: tuple
    line: int

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


def _java_long_wrap(n: int) -> int:
    n &= (1 << 64) - 1
    return n - (1 << 64) if n >= 1 << 63 else n


_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _java_parse_long(s: str) -> int | None:
    """Java's ``Long.parseLong``: an optional sign, then decimal digits (any script); None when it fails."""
    if not s:
        return None
    body = s[1:] if s[0] in "+-" else s
    if not body or not all(_is_digit(ch) for ch in body):
        return None
    n = int(("-" if s[0] == "-" else "") + "".join(str(unicodedata.digit(ch)) for ch in body))
    return n if _LONG_MIN <= n <= _LONG_MAX else None


def _java_trim(s: str) -> str:
    a, b = 0, len(s)
    while a < b and ord(s[a]) <= 0x20:
        a += 1
    while b > a and ord(s[b - 1]) <= 0x20:
        b -= 1
    return s[a:b]


def _java_hex_digit(ch: str) -> bool:
    # Java's Character.digit(ch, 16) >= 0: ASCII hex digits and the fullwidth forms, and other scripts' digits.
    if ch in "0123456789abcdefABCDEF":
        return True
    if _is_digit(ch):
        return True
    o = ord(ch)
    return 0xFF21 <= o <= 0xFF26 or 0xFF41 <= o <= 0xFF46


# ---------------------------------------------------------------------------------------------------
# The scanner (the jar's ConfScanner): the cursor over the text and the character classes. Apart so that one
# piece moves the cursor and counts lines, which every message names.

_EOF = None


def _is_space(c: str | None) -> bool:
    # Go's unicode.IsSpace.
    if c is None:
        return False
    o = ord(c)
    return (
        c == " "
        or 9 <= o <= 13
        or o == 0x85
        or o == 0xA0
        or (o > 0xFF and unicodedata.category(c) in ("Zs", "Zl", "Zp"))
    )


def _is_blank(c: str | None) -> bool:
    return c == " " or c == "\t"


def _is_new_line(c: str | None) -> bool:
    return c == "\n" or c == "\r"


def _is_digit(c: str | None) -> bool:
    # Java's Character.isDigit: any decimal digit (Nd), not only ASCII.
    return c is not None and unicodedata.category(c) == "Nd"


def _is_key_separator(c: str | None) -> bool:
    return c == "=" or c == ":"


def _is_size_suffix(c: str | None) -> bool:
    return c is not None and c in "kKmMgGtTpPeE"


def _is_number_end(c: str | None) -> bool:
    return c is None or _is_new_line(c) or _is_blank(c) or c in "};,"


def _show(c: str | None) -> str:
    if c is None:
        return "\\x00"
    if c == "\n":
        return "\\n"
    return c


class _Scanner:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.line = 1

    def peek(self) -> str | None:
        return self.text[self.pos] if self.pos < len(self.text) else _EOF

    def peek_at(self, ahead: int) -> str | None:
        p = self.pos + ahead
        return self.text[p] if p < len(self.text) else _EOF

    def next(self) -> str | None:
        c = self.peek()
        if c is not None:
            self.pos += 1
            if c == "\n":
                self.line += 1
        return c

    def next_char(self) -> str:
        """next() where the caller has seen peek() is not EOF: that character."""
        c = self.next()
        assert c is not None
        return c

    def fail(self, message: str) -> NoReturn:
        raise ConfSyntaxError(f"Parse error on line {self.line}: '{message}'")

    def skip_comment(self) -> None:
        while self.peek() is not None and not _is_new_line(self.peek()):
            self.next()


# ---------------------------------------------------------------------------------------------------
# Scalars (the jar's ConfScalars): quoted and bare strings, escapes, numbers with size suffixes, dates. Apart
# because it is where nats-server's lexer has most of its corners, and none of them depend on the nesting.


_SIZE_SCALES = {
    "": 1,
    "k": 1000,
    "kb": 1024,
    "ki": 1024,
    "kib": 1024,
    "m": 1000**2,
    "mb": 1024**2,
    "mi": 1024**2,
    "mib": 1024**2,
    "g": 1000**3,
    "gb": 1024**3,
    "gi": 1024**3,
    "gib": 1024**3,
    "t": 1000**4,
    "tb": 1024**4,
    "ti": 1024**4,
    "tib": 1024**4,
    "p": 1000**5,
    "pb": 1024**5,
    "pi": 1024**5,
    "pib": 1024**5,
    "e": 1000**6,
    "eb": 1024**6,
    "ei": 1024**6,
    "eib": 1024**6,
}


class _Scalars(_Scanner):
    def variable(self, name: str, at: int) -> ConfValue:
        """A `$name` reference: the reader of maps and lists knows the maps in scope."""
        raise NotImplementedError

    def scalar(self, at: int):
        """The value that starts here, which is no list or map."""
        c = self.peek()
        if c == "'":
            self.next()
            sb: list[str] = []
            while self.peek() != "'":
                if self.peek() is None:
                    self.fail("Unexpected EOF.")
                sb.append(self.next_char())
            self.next()
            return Str("".join(sb), True, at)
        if c == '"':
            self.next()
            sb = []
            while self.peek() != '"':
                if self.peek() is None:
                    self.fail("Unexpected EOF.")
                ch = self.next_char()
                if ch == "\\":
                    self.escape(sb)
                else:
                    sb.append(ch)
            self.next()
            return Str("".join(sb), True, at)
        if c == "-":
            self.next()
            if not _is_digit(self.peek()):
                if self.peek() == ".":
                    self.fail("Floats must start with a digit, not '.'.")
                self.fail(f"Expected a digit but got '{_show(self.peek())}'.")
            return self.negative_number(at)
        if c == "(":
            self.fail("(...) blocks are not supported in mappings given to subject_map; use a quoted string")
        if c == ".":
            self.next()
            self.fail("Floats must start with a digit")
        if _is_new_line(c):
            self.fail("Expected value but found new line")
        if _is_digit(c):
            return self.number_or_string(at)
        return self.bare_string([], self.pos, at)

    def escape(self, sb: list) -> None:
        c = self.next()
        if c == "t":
            sb.append("\t")
        elif c == "n":
            sb.append("\n")
        elif c == "r":
            sb.append("\r")
        elif c == '"':
            sb.append('"')
        elif c == "\\":
            sb.append("\\")
        elif c == "x":
            a = self.next()
            b = self.next()
            if _is_new_line(a) or _is_new_line(b):
                self.fail("Expected two hexadecimal digits after '\\x', but hit end of line")
            hexd = _show(a) + _show(b)
            if len(hexd) != 2 or not all(_java_hex_digit(ch) for ch in hexd):
                self.fail(f"Expected two hexadecimal digits after '\\x', but got '{hexd}'")
            # nats-server adds the byte itself to the string: only ASCII survives as text.
            sb.append(chr(int(hexd, 16)))
        else:
            self.fail(
                f"Invalid escape character '{_show(c)}'. Only the following escape characters are allowed: "
                '\\xXX, \\t, \\n, \\r, \\", \\\\.'
            )

    def bare_string(self, sb: list, start: int, at: int):
        escaped = False
        tail_start = start
        while True:
            c = self.peek()
            if c is None or _is_new_line(c) or _is_blank(c) or c in ";,]}":
                s = "".join(sb)
                if escaped:
                    return Str(s, False, at)
                tail = self.text[tail_start : self.pos]
                low = tail.lower()
                if low in ("true", "on", "yes"):
                    return Bool(True, at)
                if low in ("false", "off", "no"):
                    return Bool(False, at)
                if tail.startswith("$"):
                    return self.variable(tail[1:], at)
                if "{{" in s:
                    self.unquoted_function(s, at)
                return Str(s, False, at)
            self.next()
            if c == "'":
                s = "".join(sb)
                if "{{" in s:
                    self.unquoted_function(s, at)
                return Str(s, False, at)
            if c == "\\":
                self.escape(sb)
                escaped = True
                tail_start = self.pos
            else:
                sb.append(c)

    def unquoted_function(self, cut: str, at: int):
        """nats-server would keep only what comes before the first `}`: say so instead of guessing."""
        p = self.pos
        text = self.text
        while p < len(text) and not _is_space(text[p]) and text[p] not in ",;":
            p += 1
        whole = cut + text[self.pos : p]
        while whole.endswith("}") and whole.count("}") > whole.count("{"):
            whole = whole[:-1]
        raise ConfSyntaxError(
            f"unquoted destination on line {at} holds {{{{...}}}}: nats-server reads an unquoted value only up to its "
            f"first '}}' (here {go_quote(cut)}); put the destination in quotes: {go_quote(whole)}"
        )

    def number_or_string(self, at: int):
        start = self.pos
        self.next()
        while True:
            c = self.peek()
            if c == "-":
                self.next()
                if self.pos - start != 5:
                    self.fail("All ISO8601 dates must be in full Zulu form.")
                for f in "00-00T00:00:00Z":
                    d = self.next()
                    if f == "0" and not _is_digit(d):
                        self.fail(f"Expected digit in ISO8601 datetime, but found '{_show(d)}' instead.")
                    if f != "0" and f != d:
                        self.fail(f"Expected '{f}' in ISO8601 datetime, but found '{_show(d)}' instead.")
                return DateTime(self.text[start : self.pos], at)
            elif _is_digit(c):
                self.next()
            elif c == ".":
                self.next()
                return self.fraction(start, at)
            elif _is_size_suffix(c):
                self.next()
                return self.sized_number(start, at)
            elif not _is_number_end(c):
                # Not a number after all: the text so far and this character open a bare string.
                self.next()
                return self.bare_string(list(self.text[start : self.pos]), start, at)
            else:
                return self.integer(self.text[start : self.pos])

    def negative_number(self, at: int):
        start = self.pos - 1
        while _is_digit(self.peek()):
            self.next()
        if self.peek() == ".":
            self.next()
            return self.fraction(start, at)
        if _is_size_suffix(self.peek()):
            self.next()
            return self.sized_number(start, at)
        return self.integer(self.text[start : self.pos])

    def fraction(self, start: int, at: int):
        if not _is_digit(self.peek()):
            self.fail(f"Floats must have a digit after the '.', but got '{_show(self.peek())}' instead.")
        while _is_digit(self.peek()):
            self.next()
        if self.peek() == ".":
            # An IP address (127.0.0.1:4222): a string.
            while _is_digit(self.peek()) or self.peek() in (".", ":", "-"):
                self.next()
            return Str(self.text[start : self.pos], False, at)
        s = self.text[start : self.pos]
        # Java's Double.parseDouble reads ASCII digits only (Python's float() reads any script's).
        if not all(ch.isascii() for ch in s):
            raise ConfSyntaxError(f"expected float, but got '{s}'")
        return Decimal(float(s), at)

    def sized_number(self, start: int, at: int):
        while (c := self.peek()) is not None and c in "bBiI":
            self.next()
        if _is_number_end(self.peek()) or _is_digit(self.peek()):
            return self.integer(self.text[start : self.pos])
        return self.bare_string(list(self.text[start : self.pos]), start, at)

    def integer(self, s: str):
        i = 0
        while i < len(s) and (_is_digit(s[i]) or s[i] == "-"):
            i += 1
        digits = s[:i]
        n = _java_parse_long(digits)
        if n is None:
            if len(digits) > 1 and all(_is_digit(ch) for ch in digits[1:]):
                raise ConfSyntaxError(f"integer '{s}' is out of the range")
            raise ConfSyntaxError(f"expected integer, but got '{s}'")
        suffix = _java_trim(s[len(digits) :]).lower()
        if suffix not in _SIZE_SCALES:
            raise ConfSyntaxError(f"unknown size suffix '{suffix}' in '{s}'")
        return Integer(_java_long_wrap(n * _SIZE_SCALES[suffix]), self.line)


# ---------------------------------------------------------------------------------------------------
# Maps and lists (the jar's ConfReader, without files): the document, keys, the nesting and `$name`
# references to the maps in scope. Apart from the scalars because it owns the stack of maps and lists.


class _MapFrame:
    __slots__ = ("closing", "start_line", "entries", "repeated", "key")

    def __init__(self, closing: bool, start_line: int):
        self.closing = closing
        self.start_line = start_line
        self.entries: dict = {}
        self.repeated: list = []
        self.key: str | None = None

    def result(self) -> Obj:
        return Obj(tuple(self.entries.items()), tuple(self.repeated), self.start_line)


class _ArrFrame:
    __slots__ = ("at", "items")

    def __init__(self, at: int):
        self.at = at
        self.items: list = []

    def result(self) -> Arr:
        return Arr(tuple(self.items), self.at)


class _Reader(_Scalars):
    def __init__(self, text: str):
        super().__init__(text)
        self.frames: list = []
        self.scopes: list = []  # maps being built, innermost last: where `$name` is looked up

    # -- the document
    def document(self) -> Obj:
        while True:
            c = self.peek()
            if _is_space(c):
                self.next()
            elif c == "#":
                self.skip_comment()
            elif c == "/" and self.peek_at(1) == "/":
                self.next()
                self.skip_comment()
            else:
                break
        if self.peek() == "{":
            self.next()
            o = self.containers(_MapFrame(True, self.line))
            while self.peek() is not None:
                c = self.next()
                if c == "#":
                    self.skip_comment()
                elif c == "/" and self.peek() == "/":
                    self.skip_comment()
                elif not _is_space(c):
                    self.fail(f"Unexpected '{_show(c)}' after the closing '}}'.")
            return o
        return self.containers(_MapFrame(False, self.line))

    def open(self, f) -> None:
        if len(self.frames) >= MAX_DEPTH:
            raise ConfSyntaxError(
                f"Parse error on line {self.line}: 'lists and maps nested more than {MAX_DEPTH} deep'"
            )
        self.frames.append(f)
        if isinstance(f, _MapFrame):
            self.scopes.append(f)

    def close(self):
        f = self.frames.pop()
        if isinstance(f, _MapFrame):
            self.scopes.pop()
        return f.result()

    def containers(self, top: _MapFrame) -> Obj:
        self.open(top)
        value = None
        while True:
            f = self.frames[-1]
            if isinstance(f, _MapFrame):
                if value is not None:
                    if f.key in f.entries:
                        f.repeated.append(f.key)
                    f.entries[f.key] = value
                    value = None
                    if self.value_end(f.closing):
                        value = self.close()
                else:
                    value = self.map_entry(f)
            else:
                if value is not None:
                    f.items.append(value)
                    value = None
                    if self.array_gap():
                        value = self.close()
                else:
                    value = self.array_item(f)
            if value is not None and not self.frames:
                return value

    def map_entry(self, m: _MapFrame):
        while True:
            c = self.peek()
            if c is None:
                if m.closing:
                    self.fail("Unexpected EOF processing map.")
                return self.close()
            elif _is_space(c):
                self.next()
            elif _is_key_separator(c):
                self.fail(f"Unexpected key separator '{_show(c)}'")
            elif c == "]":
                self.fail("Unexpected array end ']' processing map.")
            elif c == "}":
                self.next()
                if not m.closing:
                    self.fail("Unexpected '}': the block is already closed.")
                return self.close()
            elif c == "#":
                self.skip_comment()
            elif c == "/" and self.peek_at(1) == "/":
                self.next()
                self.skip_comment()
            else:
                key = self.read_key()
                key_line = self.line
                while _is_space(self.peek()):
                    self.next()
                if _is_key_separator(self.peek()):
                    self.next()
                while _is_space(self.peek()):
                    self.next()
                v = self.peek()
                if v == ",":
                    self.fail("Unexpected map value terminator ','.")
                if v == "}" or v is None:
                    self.fail(f'key "{key}" on line {key_line} has no value')
                m.key = key
                return self.read_value()

    def value_end(self, closing: bool) -> bool:
        while True:
            c = self.next()
            if _is_blank(c):
                pass
            elif c == "#":
                self.skip_comment()
            elif c == "/":
                if self.peek() == "/":
                    self.skip_comment()
                else:
                    return False  # a lone `/` ends the value
            elif c in (",", ";") or _is_new_line(c):
                return False
            elif c == "}":
                if closing:
                    return True
                self.fail("Unexpected '}': the block is already closed.")
            elif c is None and not closing:
                return True
            else:
                self.fail(
                    f'Expected a map value terminator "," or a map terminator "}}", but got \'{_show(c)}\' instead.'
                )

    def read_key(self) -> str:
        c = self.next_char()  # map_entry calls it on a character that is no EOF
        if c in ("'", '"'):
            sb: list[str] = []
            while self.peek() != c:
                if self.peek() is None:
                    self.fail("Unexpected EOF processing " + ("double " if c == '"' else "") + "quoted map key.")
                sb.append(self.next_char())
            self.next()
            return "".join(sb)
        # nats-server drops a lone `/` that starts a key (it was looking for a `//` comment).
        sb = []
        if c != "/":
            sb.append(c)
        elif self.peek() is not None:
            sb.append(self.next_char())
        while True:
            d = self.peek()
            if d is None:
                self.fail("Unexpected EOF processing map key.")
            if _is_space(d):
                if java_equals_ignore_case("".join(sb), "include"):
                    self.fail(
                        "include needs the configuration file (subjxform validate FILE): it is read relative to it"
                    )
                break
            elif _is_key_separator(d):
                break
            else:
                sb.append(self.next_char())
        return "".join(sb)

    def read_value(self):
        """A value, or None when it opens a list or a map (pushed as the innermost frame)."""
        while _is_blank(self.peek()):
            self.next()
        at = self.line
        c = self.peek()
        if c == "[":
            self.next()
            self.open(_ArrFrame(at))
            return None
        if c == "{":
            self.next()
            self.open(_MapFrame(True, self.line))
            return None
        return self.scalar(at)

    def variable(self, name: str, at: int):
        if name.startswith("2a$"):
            return Str("$" + name, False, at)  # a bcrypt hash, not a reference
        for scope in reversed(self.scopes):
            if name in scope.entries:
                return scope.entries[name]
        raise ConfSyntaxError(
            f"variable reference for '{name}' on line {at} can not be found "
            "(a destination that starts with $ must be quoted)"
        )

    def array_item(self, a: _ArrFrame):
        while True:
            c = self.peek()
            if _is_space(c):
                self.next()
            elif c == "#":
                self.skip_comment()
            elif c == "/" and self.peek_at(1) == "/":
                self.next()
                self.skip_comment()
            elif c in (",", "/"):
                self.fail("Unexpected array value terminator ','.")
            elif c == "]":
                self.next()
                return self.close()
            else:
                return self.read_value()

    def array_gap(self) -> bool:
        while True:
            d = self.next()
            if _is_blank(d):
                pass
            elif d == "#":
                self.skip_comment()
            elif d == "/":
                if self.peek() == "/":
                    self.skip_comment()
                else:
                    return False
            elif d == "," or _is_new_line(d):
                return False
            elif d == "]":
                return True
            else:
                self.fail(
                    f'Expected an array value terminator "," or an array terminator "]", but got \'{_show(d)}\' instead.'
                )


# ---------------------------------------------------------------------------------------------------
# Strict JSON (RFC 8259), tried first (it has escapes such as \u00e9 that the config lexer lacks).


class _NotJson(Exception):
    pass


def _reject_constant(name: str):
    raise _NotJson(name)  # NaN, Infinity: not JSON


def _json_int(s: str):
    n = int(s)
    return n if _LONG_MIN <= n <= _LONG_MAX else ("bigint", s)


def _parse_json(text: str) -> ConfValue | None:
    # The jar's reader: only " \t\r\n" is white space, no NaN/Infinity, a too large integer is a double.
    depth = 0
    in_string = False
    escaped = False
    deepest = 0
    for ch in text:  # the depth limit, before Python's recursion limit can matter
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    try:
        if deepest > 900:
            return _parse_json_deep(text)
        raw = json.loads(text, object_pairs_hook=_pairs, parse_constant=_reject_constant, parse_int=_json_int)
    except (ValueError, _NotJson, RecursionError):
        return None
    return _to_conf(raw)


def _pairs(pairs):
    return ("obj", pairs)


def _to_conf(raw) -> ConfValue:
    # Line numbers of JSON values do not reach any message a mappings table can give: 1 throughout.
    if isinstance(raw, tuple) and raw and raw[0] == "obj":
        entries: dict = {}
        repeated = []
        for k, v in raw[1]:
            if k in entries:
                repeated.append(k)
            entries[k] = _to_conf(v)
        return Obj(tuple(entries.items()), tuple(repeated), 1)
    if isinstance(raw, tuple) and raw and raw[0] == "bigint":
        return Decimal(float(raw[1]), 1)
    if isinstance(raw, list):
        return Arr(tuple(_to_conf(x) for x in raw), 1)
    if isinstance(raw, str):
        return Str(raw, True, 1)
    if isinstance(raw, bool):
        return Bool(raw, 1)
    if isinstance(raw, int):
        return Integer(raw, 1)
    if isinstance(raw, float):
        return Decimal(raw, 1)
    if raw is None:
        return Null(1)
    raise TypeError(raw)


def _parse_json_deep(text: str) -> ConfValue | None:
    """JSON nested too deep for Python's json: only its depth matters to the result (an error past
    MAX_DEPTH, which no real table nears), so read it iteratively to find out."""
    depth = 0
    in_string = False
    escaped = False
    line = 1
    for ch in text:
        if ch == "\n":
            line += 1
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            if depth >= MAX_DEPTH:
                raise ConfSyntaxError(f"Parse error on line {line}: 'lists and maps nested more than {MAX_DEPTH} deep'")
            depth += 1
        elif ch in "]}":
            depth -= 1
    raise RecursionError  # deeper than Python's json reads, not beyond the limit: not supported here


def parse_mappings(text: str) -> Obj:
    """The mappings block in ``text`` (JSON, or nats-server config syntax with or without its braces, or
    ``mappings { ... }`` pasted whole), as the jar's ``ConfSyntax.parseMappings`` reads it."""
    v = _parse_json(text)
    if isinstance(v, Obj):
        return _unwrap_mappings_key(v)
    if v is not None:
        raise ConfSyntaxError(f"the mappings must be a JSON object, not {go_text(v)}")
    return _unwrap_mappings_key(_Reader(text).document())


def parse_document(text: str) -> Obj:
    """A whole document (a nats-server config, or a mappings block) as it is written, nothing unwrapped."""
    v = _parse_json(text)
    if isinstance(v, Obj):
        return v
    if v is not None:
        raise ConfSyntaxError(f"the document must be a JSON object, not {go_text(v)}")
    return _Reader(text).document()


def _unwrap_mappings_key(o: Obj) -> Obj:
    if len(o.entries) == 1:
        k, inner = o.entries[0]
        if isinstance(inner, Obj) and java_equals_ignore_case(k, "mappings"):
            return inner
    return o
