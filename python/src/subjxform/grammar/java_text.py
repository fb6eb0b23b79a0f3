"""Java's behaviours that the jar's messages and readers have (its ``Character``, ``String`` and ``Double``),
which Python's own differ from in corners (Unicode case, float texts, UTF-16 order): the jar is the reference.
No Scala twin: on the JVM these are the platform's own."""

from __future__ import annotations

# Java's behaviours that the jar's reader has (its Character, String, Long and Double): the jar is the
# reference, and Python's own (Unicode case, digits of any script, float texts) differ in corners.


def utf16_key(s: str) -> bytes:
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


def java_length(s: str) -> int:
    """A Java String's length (UTF-16 code units), which the jar's length checks count."""
    return len(s.encode("utf-16-le", "surrogatepass")) // 2
