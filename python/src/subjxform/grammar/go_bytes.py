"""Go's strings in Python's, as the jar's ``GoBytes`` (jvm/core/.../config/GoBytes.scala): nats-server's values
are bytes."""

from __future__ import annotations

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
