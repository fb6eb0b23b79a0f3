"""Keyed draws, as the jar's ``KeyedDraw`` (jvm/core/.../engine/KeyedDraw.scala), computed here for the
constants: salts are known when the query is written."""

from __future__ import annotations

# Keyed draws (KeyedDraw.scala), computed here for the constants: salts are known when the query is written

_MASK64 = 2**64 - 1


def wrap64(v: int) -> int:
    v &= _MASK64
    return v - 2**64 if v >= 2**63 else v


def mix(z: int) -> int:
    """SplitMix64's finalizer on a 64-bit value (signed result, as the jar's Long)."""
    z &= _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return wrap64(z ^ (z >> 31))


def text_salt(text: str) -> int:
    """FNV-1a 64 over the UTF-8 bytes of `text`, then mixed (KeyedDraw.salt)."""
    h = 0xCBF29CE484222325
    b = text.encode("utf-8", "surrogatepass")
    for x in b:
        h = ((h ^ x) * 0x100000001B3) & _MASK64
    return mix(h ^ len(b))


def keyed_below(bound: int, seed: int, key: int, salt: int) -> int:
    """KeyedDraw.below: an integer in [0, bound) for this seed, key and salt (reference, for tests)."""
    a = mix(seed ^ 0x9E3779B97F4A7C15)
    b = mix(a ^ key)
    c = mix(b ^ salt)
    return ((c & _MASK64) >> 1) % bound
