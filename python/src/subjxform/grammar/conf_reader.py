"""nats-server's configuration parser for a text, as the jar's ``ConfReader`` (jvm/core/.../config/
ConfReader.scala): no files, no environment."""

from __future__ import annotations

import dataclasses

from .conf_lexer import (
    I_ARRAY_END,
    I_ARRAY_START,
    I_BOOL,
    I_DATETIME,
    I_EOF,
    I_ERROR,
    I_FLOAT,
    I_INCLUDE,
    I_INTEGER,
    I_KEY,
    I_MAP_END,
    I_MAP_START,
    I_STR,
    I_VARIABLE,
    ConfLexer,
    lower_equals,
)
from .conf_scalars import NO_VALUE, parse_date_time, parse_float, parse_integer
from .conf_value import Arr, Bool, ConfSyntaxError, DateTime, Decimal, Integer, Obj, Str
from .go_bytes import go_text_of
from .go_quote import go_quote

# How deep lists and maps may nest (the document's own map included): where nats-server stops loading a
# file (the JSON digest it takes of the config stops at 10,000), the jar's limit.
MAX_DEPTH = 10000


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

    def result(self, line: int, column: int = 0) -> Obj:
        return Obj(tuple(self.entries.items()), tuple(self.repeated), line, frozenset(self.used), column)


class _ArrFrame:
    __slots__ = ("items",)

    def __init__(self):
        self.items: list = []

    def result(self, line: int, column: int = 0) -> Arr:
        return Arr(tuple(self.items), line, column)


TEXT_INCLUDES_NO_FILES = (
    "a config read as text includes no files: give the config's file (a path, or subjxform validate FILE)"
)
TEXT_SEES_NO_ENVIRONMENT = (
    "a config read as text sees no environment variables, and a destination that starts with $ must be quoted"
)


class ConfReader:
    def __init__(self, data: bytes, refuse_unquoted_braces: bool = True):
        self.data = data
        self.lexer = ConfLexer(data)
        self.frames: list = []
        self.keys: list = []
        self.key_lines: list = []
        self.key_columns: list = []
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

    def column_of(self, item_pos: int) -> int:
        """The column nats-server gives a value read now, as ``line_of`` its line: its key's in a map, its own
        in a list."""
        if isinstance(self.frames[-1], _MapFrame) and self.key_columns:
            return self.key_columns[-1]
        return item_pos

    def set(self, v) -> None:
        f = self.frames[-1]
        if isinstance(f, _ArrFrame):
            f.items.append(v)
            return
        if not self.keys:
            raise ConfSyntaxError("BUG in parser, keys stack empty")
        self.key_lines.pop()
        self.key_columns.pop()
        f.put(self.keys.pop(), v)

    def open(self, f, line: int) -> None:
        if len(self.frames) >= MAX_DEPTH:
            raise ConfSyntaxError(f"Parse error on line {line}: 'lists and maps nested more than {MAX_DEPTH} deep'")
        self.frames.append(f)

    def read(self, it: tuple) -> None:
        kind, value, line, pos = it[0], it[1], it[2], it[3]
        if kind == I_KEY:
            self.keys.append(go_text_of(value))
            self.key_lines.append(line)
            self.key_columns.append(pos)
        elif kind == I_STR:
            s = go_text_of(value)
            if not it[5] and "{{" in s:
                if self.refuse_unquoted_braces:
                    raise self.unquoted_function(s, it)
                self.unquoted_braces_line = self.unquoted_braces_line or line
            self.set(Str(s, it[5], self.line_of(line), self.column_of(pos)))
        elif kind == I_MAP_START:
            self.open(_MapFrame(), line)
        elif kind == I_ARRAY_START:
            self.open(_ArrFrame(), line)
        elif kind in (I_MAP_END, I_ARRAY_END):
            closed = self.frames.pop()
            self.set(closed.result(self.line_of(line), self.column_of(pos)))
        elif kind == I_INTEGER:
            n = parse_integer(value)
            if n is not NO_VALUE:
                self.set(Integer(n, self.line_of(line), self.column_of(pos)))
        elif kind == I_FLOAT:
            self.set(Decimal(parse_float(value), self.line_of(line), self.column_of(pos)))
        elif kind == I_BOOL:
            self.set(
                Bool(
                    any(lower_equals(value, w) for w in ("true", "yes", "on")), self.line_of(line), self.column_of(pos)
                )
            )
        elif kind == I_DATETIME:
            self.set(DateTime(parse_date_time(value), self.line_of(line), self.column_of(pos)))
        elif kind == I_VARIABLE:
            self.set(_relined(self.variable(go_text_of(value), line), self.line_of(line), self.column_of(pos)))
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
        """nats-server keeps only what comes before the first `}`: say so, with the fix (the whole destination
        in quotes), instead of guessing (the jar's ConfReader.unquotedFunction: the destination goes on to the
        first white space, or `,` or `;` outside `{{ }}` and parentheses; a `}` closing its map is not its own)."""
        data = self.data
        start = end = it[4] - len(it[1])
        depth = 0
        while end < len(data):
            c = data[end]
            if c in b" \t\n\x0b\x0c\r" or (depth == 0 and c in b",;})"):
                break
            depth += 1 if c in b"{(" else -1 if c in b"})" else 0
            end += 1
        whole = go_text_of(data[start:end])
        return ConfSyntaxError(
            f"unquoted destination on line {it[2]} holds {{{{...}}}}: nats-server reads an unquoted value only up to "
            f"its first '}}' (here {go_quote(cut)}); put the destination in quotes: {go_quote(whole)}"
        )


def _relined(v, line: int, column: int):
    """``v`` at another line and column (a variable's value where it is referenced, as nats-server's token does);
    the values inside keep theirs (the tokens of the definition)."""
    if isinstance(v, Obj):
        return Obj(v.entries, v.repeated_keys, line, v.used_variables, column)
    return dataclasses.replace(v, line=line, column=column)
