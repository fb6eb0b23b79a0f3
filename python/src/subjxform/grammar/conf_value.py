"""The values nats-server's configuration syntax holds, as the jar's ``ConfValue`` (jvm/core/.../config/
ConfValue.scala): Go's ``%v`` of each (``go_text``), the error every reader raises (``ConfSyntaxError``, the
jar's ``ConfSyntaxException``), and the writer that puts a Python value back into the syntax (``conf_text``,
``ConfValue.confText``)."""

from __future__ import annotations

import dataclasses
from decimal import Decimal as _BigDecimal

from .conf_lexer import SPACES
from .go_quote import go_quote
from .java_text import java_double_text, utf16_key


class ConfSyntaxError(ValueError):
    """A text nats-server's configuration parser refuses, with its message."""


# Values (the jar's ConfValue). A string holds Go's bytes (go_bytes) and remembers whether it was quoted;
# `line` is the line nats-server's token gives (its key's in a map, its own in a list), `column` that token's
# position on it, which `nats-server -t` prints after the line: bytes from the '\n' before the line's start (so
# from 1), from 0 on the first line (conf_lexer's item position). 0 for a value no config text gave; not part of
# the value's equality (the jar's ConfValue.column, which its reader sets with `at`).


@dataclasses.dataclass(frozen=True)
class Str:
    value: str
    quoted: bool
    line: int
    column: int = dataclasses.field(default=0, compare=False)


@dataclasses.dataclass(frozen=True)
class Integer:
    value: int
    line: int
    column: int = dataclasses.field(default=0, compare=False)


@dataclasses.dataclass(frozen=True)
class Decimal:
    value: float
    line: int
    column: int = dataclasses.field(default=0, compare=False)


@dataclasses.dataclass(frozen=True)
class Bool:
    value: bool
    line: int
    column: int = dataclasses.field(default=0, compare=False)


@dataclasses.dataclass(frozen=True)
class DateTime:
    value: str
    line: int
    column: int = dataclasses.field(default=0, compare=False)


@dataclasses.dataclass(frozen=True)
class Null:
    line: int
    column: int = dataclasses.field(default=0, compare=False)


@dataclasses.dataclass(frozen=True)
class Arr:
    items: tuple
    line: int
    column: int = dataclasses.field(default=0, compare=False)


@dataclasses.dataclass(frozen=True)
class Obj:
    """Keys in written order; a repeated key replaces the earlier value (in the earlier place), as in
    nats-server's Go map."""

    entries: tuple  # of (key, value)
    repeated_keys: tuple
    line: int
    # Keys of entries a `$name` used: variables, which nats-server skips where it reads settings.
    used_variables: frozenset = dataclasses.field(default=frozenset(), compare=False)
    column: int = dataclasses.field(default=0, compare=False)

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
        entries = sorted(v.entries, key=lambda kv: utf16_key(kv[0]))
        return "map[" + " ".join(f"{k}:{go_text(x, depth + 1)}" for k, x in entries) + "]"
    raise TypeError(v)


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
    if k and k[0] not in "\"'{#/" and all(c > " " and c not in "=:" and ord(c) not in SPACES for c in k):
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
