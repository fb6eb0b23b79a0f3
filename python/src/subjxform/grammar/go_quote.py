"""Go's ``%q`` (strconv.Quote), so that error texts read exactly as nats-server and the jar write them
(a port of jvm/core/.../GoQuote.scala)."""

from __future__ import annotations

import unicodedata

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\x07": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\x0b": "\\v",
}


def _is_print(c: str) -> bool:
    # Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
    return c == " " or unicodedata.category(c)[0] in "LMNPS"


def go_quote(s: str) -> str:
    out = ['"']
    for c in s:
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif _is_print(c):
            out.append(c)
        else:
            cp = ord(c)
            out.append(f"\\x{cp:02x}" if cp < 0x80 else f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}")
    out.append('"')
    return "".join(out)
