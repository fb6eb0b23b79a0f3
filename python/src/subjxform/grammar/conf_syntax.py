"""Reading nats-server's configuration syntax without the JVM, as the jar's ``ConfSyntax`` (jvm/core/.../config/
ConfSyntax.scala): the entry points over ``conf_reader``."""

from __future__ import annotations

from .conf_reader import ConfReader
from .conf_value import Obj
from .go_bytes import go_bytes
from .java_text import java_equals_ignore_case

# The entry points (the jar's ConfSyntax) and the writer (ConfValue.confText).


def parse_document(text: str) -> Obj:
    """A whole document as nats-server's ``conf`` package reads it (a server config or a mappings block),
    nothing unwrapped; JSON too is read by its rules. Read as text: no include, no environment."""
    return ConfReader(go_bytes(text)).document()


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
