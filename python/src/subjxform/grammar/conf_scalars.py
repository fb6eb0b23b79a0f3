"""The scalars of nats-server's configuration syntax, as the jar's ``ConfScalars`` (jvm/core/.../config/
ConfScalars.scala): integers with size suffixes, floats and dates, read from an item's bytes."""

from __future__ import annotations

from .conf_lexer import decode_rune, is_digit
from .conf_value import ConfSyntaxError
from .go_bytes import go_text_of
from .keyed_draw import wrap64

# Scalars (the jar's ConfScalars): Go's strconv.ParseInt with the size suffixes, strconv.ParseFloat and
# time.Parse on a scalar item's text, with their errors in nats-server's words.

NO_VALUE = object()  # an integer with a size suffix nats-server does not know: it sets no value at all

_SCALES = {"": 1}
for _i, _p in enumerate("kmgtpe"):
    _SCALES[_p] = 1000 ** (_i + 1)
    for _s in ("b", "i", "ib"):
        _SCALES[_p + _s] = 1024 ** (_i + 1)
_UINT64_CUTOFF = (2**64 - 1) // 10 + 1


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


def parse_integer(text: bytes):
    """The integer item ``text``: its value, or ``NO_VALUE``. The leading digits are counted in runes and
    cut in bytes, as nats-server does, so a digit of another script (``৫``) is never a number."""
    runes, i, n = 0, 0, len(text)
    while i < n:
        r, w = decode_rune(text, i, n)
        if not (is_digit(r) or r == 0x2D):
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
    return NO_VALUE if scale is None else wrap64(value * scale)


def parse_float(text: bytes) -> float:
    s = go_text_of(text)
    if not text.isascii():
        raise ConfSyntaxError(f"expected float, but got '{s}'")
    d = float(s)  # correctly rounded, as Go's; an underflow is 0 in both
    if d in (float("inf"), float("-inf")):
        raise ConfSyntaxError(f"float '{s}' is out of the range")
    return d


def parse_date_time(text: bytes) -> str:
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
