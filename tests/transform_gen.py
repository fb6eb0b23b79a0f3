"""Seeded random transforms and subjects for the differential tests: every mapping function in both
of the casings nats-server accepts (and some it does not), spacing variants, dropped wildcards, `>`,
out-of-range and malformed arguments, edge token lengths and non-ASCII tokens.

Generated strings never hold `"`, `\\`, white space inside literal tokens of published subjects, or
control characters, so that they can be written in a nats config and published with PUB.
"""

from __future__ import annotations

import random

FUNCTIONS = {
    # name as nats-server's pattern accepts it -> the spellings to draw from (last: one it rejects)
    "wildcard": ["wildcard", "Wildcard", "WILDCARD"],
    "partition": ["partition", "Partition", "PARTITION"],
    "split": ["split", "Split", "SPLIT"],
    "splitfromleft": ["splitfromleft", "SplitFromLeft", "splitFromLeft", "Splitfromleft", "SPLITFROMLEFT"],
    "splitfromright": ["splitfromright", "SplitFromRight", "splitFromright", "SPLITFROMRIGHT"],
    "slicefromleft": ["slicefromleft", "SliceFromLeft", "sliceFromLeft", "SLICEFROMLEFT"],
    "slicefromright": ["slicefromright", "SliceFromRight", "sliceFromRight", "SLICEFROMRIGHT"],
    "left": ["left", "Left", "LEFT"],
    "right": ["right", "Right", "RIGHT"],
    "random": ["random", "Random", "RANDOM"],
}

SHORT = "abcdefghijklmnopqrstuvwxyz0123456789"
NON_ASCII = ["é", "ñ", "日本", "ü", "🙂", "Ω", "ß"]
SEPARATORS = ["-", "-", "_", "--", "a", "ab", "*", "é", "-_", "x"]
BAD_SEPARATORS = ["- ", "a b"]


def literal_token(r: random.Random, for_subject: bool = False) -> str:
    """A token with no `.` and no white space; sometimes odd: `$`, braces, `*x`, long, non-ASCII."""
    k = r.random()
    if k < 0.45:
        return "".join(r.choice(SHORT) for _ in range(r.randint(1, 4)))
    if k < 0.60:  # made for split/slice: separators inside, at the ends, repeated
        parts = ["".join(r.choice("ab1") for _ in range(r.randint(0, 3))) for _ in range(r.randint(1, 4))]
        if r.random() < 0.25:  # only separators: split leaves nothing, an empty token
            return r.choice(["-", "_", "a", "*"]) * r.randint(1, 3)
        return r.choice(["-", "_", "--", "a"]).join(parts) or "-"
    if k < 0.70:
        return "".join(r.choice(SHORT + "".join(NON_ASCII)) for _ in range(r.randint(1, 5)))
    if k < 0.76:  # edge lengths
        return r.choice(SHORT) * r.choice([1, 2, 3, 7, 64, 255, 256, 1000])
    if k < 0.84:
        return r.choice(["$", "$1", "$x", "{", "}", "{{", "}}", "(", ")", "%", "#", "=", ":", "'", ",", "|", "~"])
    if k < 0.90 and for_subject:
        return r.choice(["*x", "*", ">", "x*", ">a", "**", "*-*"])  # `*`/`>` alone: not a literal subject
    if k < 0.90:
        return r.choice(["*x", "x*", ">a", "**"])  # nats-server: a source token starting with `*` matches any token
    return "".join(r.choice(SHORT + "-_$") for _ in range(r.randint(1, 12)))


def source(r: random.Random) -> str:
    n = r.randint(1, 5)
    toks = []
    for i in range(n):
        k = r.random()
        if i == n - 1 and k < 0.22:
            toks.append(">")
        elif k < 0.55:
            toks.append("*")
        else:
            toks.append(literal_token(r))
    if r.random() < 0.03:  # invalid sources
        toks.insert(r.randrange(len(toks) + 1), r.choice(["", ">", "a b"]))
    return ".".join(toks)


def _index(r: random.Random, wildcards: int) -> str:
    k = r.random()
    if wildcards and k < 0.9:
        return str(r.randint(1, wildcards))
    return r.choice(["0", "-1", str(wildcards + 1), "01", "+1", "1", "x", "", "2147483648", " 1"])


def _count(r: random.Random) -> str:
    if r.random() < 0.7:
        return str(r.randint(0, 6))
    return r.choice(
        ["0", "1", "2", "3", "4", "5", "7", "10", "100", "-1", "-3", "2147483647", "2147483648", "x", "1.5"]
    )


def _braced(r: random.Random, name: str, args: list[str]) -> str:
    sep = r.choice([",", ",", ", ", ",  "])
    inner = sep.join(args)
    style = r.random()
    if style < 0.75:
        return "{{%s(%s)}}" % (name, inner)
    if style < 0.85:
        return "{{ %s(%s) }}" % (name, inner)
    if style < 0.93:
        return "{{%s (%s)}}" % (name, inner)
    return "{{%s( %s )}}" % (name, inner)


def function_token(r: random.Random, wildcards: int) -> str:
    fn = r.choice(list(FUNCTIONS))
    spellings = FUNCTIONS[fn]
    name = spellings[0] if r.random() < 0.7 else r.choice(spellings)
    if fn == "wildcard":
        args = [_index(r, wildcards)]
    elif fn == "partition":
        args = [_count(r)] + [_index(r, wildcards) for _ in range(r.choice([0, 1, 1, 2, 3]))]
    elif fn == "split":
        args = [_index(r, wildcards), r.choice(SEPARATORS if r.random() < 0.9 else BAD_SEPARATORS)]
    elif fn == "random":
        args = [_count(r)]
    else:
        args = [_index(r, wildcards), _count(r)]
    k = r.random()
    if k < 0.03:
        args = args[:-1]  # too few
    elif k < 0.06:
        args = args + ["1"]  # too many
    if fn != "wildcard" and r.random() < 0.02:
        return "$" + _index(r, wildcards)  # still valid: the `$N` form
    return _braced(r, name, args)


def destination(r: random.Random, src: str) -> str:
    stoks = src.split(".")
    wildcards = stoks.count("*")
    fwc = stoks[-1] == ">"
    toks = []
    for _ in range(r.randint(1, 4)):
        k = r.random()
        if k < 0.3:
            toks.append(literal_token(r))
        elif k < 0.45 and wildcards:
            toks.append("$" + str(r.randint(1, wildcards)))
        else:
            toks.append(function_token(r, wildcards))
    if fwc != (r.random() < 0.05):  # mostly keep the `>` rule, sometimes break it
        toks.append(">")
    if r.random() < 0.02:
        toks.insert(r.randrange(len(toks) + 1), r.choice(["", "*", "a b", ">"]))
    return ".".join(toks)


def subjects_for(r: random.Random, src: str, count: int) -> list[str]:
    """Mostly subjects that match `src` (its wildcards filled in), some that do not or are not literal."""
    out = []
    stoks = src.split(".")
    for _ in range(count):
        toks = []
        for t in stoks:
            if t == ">":
                toks += [literal_token(r, for_subject=True) for _ in range(r.randint(1, 3))]
            elif t.startswith("*"):
                # a tenth are only separators, which `split` turns into an empty token
                toks.append(
                    r.choice(["-", "_", "a"]) * r.randint(1, 3)
                    if r.random() < 0.1
                    else literal_token(r, for_subject=True)
                )
            else:
                toks.append(t)
        k = r.random()
        if k < 0.08:
            toks[r.randrange(len(toks))] = literal_token(r, for_subject=True)
        elif k < 0.12:
            toks.append(literal_token(r))
        elif k < 0.15 and len(toks) > 1:
            toks.pop()
        out.append(".".join(toks))
    return out


def has_random(dest: str) -> bool:
    low = dest.lower()
    return "random" in low


# ---------------------------------------------------------------------------------------------------
# Non-ASCII subjects through the functions that count bytes (issue 39): tests/test_differential_bytes.py.
# Subjects are bytes: characters of two, three and four bytes, and now and then bytes that are no UTF-8 (a
# Spark STRING can hold them, and a cut of this project's own output is one: `left(1,1)` of `日` is E6).

BYTE_FUNCTIONS = ["split", "splitfromleft", "splitfromright", "slicefromleft", "slicefromright", "left", "right"]
MULTI_BYTE = ["é", "ñ", "ü", "ß", "Ω", "ø", "€", "日", "本", "語", "𝄞", "🙂", "😀"]
NOT_UTF8 = [b"\xe6\x97", b"\x97", b"\xa5", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\xff", b"\xf0\x9f"]
# split's separators: one byte, several, a character of several bytes (its bytes are never inside another
# character of valid UTF-8, but are inside the bytes above), none at all (Go cuts between UTF-8 sequences)
BYTE_SEPARATORS = ["-", "_", "a", "é", "日", "本日", "🙂", "ü-", "", "\u00a9", "\u0169"]


def byte_token(r: random.Random) -> bytes:
    """A subject token of 1 to ~30 bytes: ASCII mixed with characters of 2-4 bytes, sometimes bytes that are no
    UTF-8, sometimes a separator's run (split then leaves an empty token)."""
    k = r.random()
    if k < 0.05:
        return r.choice(["-", "é", "日"]).encode() * r.randint(1, 3)
    pieces = []
    for _ in range(r.randint(1, 12)):
        c = r.random()
        if c < 0.45:
            pieces.append(r.choice(SHORT + "-_").encode())
        elif c < 0.93:
            pieces.append(r.choice(MULTI_BYTE).encode())
        else:
            pieces.append(r.choice(NOT_UTF8))
    return b"".join(pieces)


def byte_source(r: random.Random, i: int) -> str:
    """`k<i>.` (its own first token) then one to three more: mostly `*`, a literal, a trailing `>`."""
    toks = [f"k{i}"]
    n = r.randint(1, 3)
    for j in range(n):
        k = r.random()
        if j == n - 1 and k < 0.2:
            toks.append(">")
        elif k < 0.85:
            toks.append("*")
        else:
            toks.append(r.choice(["x", "ü", "日本"]))
    if "*" not in toks:
        toks.insert(1, "*")
    return ".".join(toks)


def _byte_count(r: random.Random) -> str:
    k = r.random()
    if k < 0.85:
        return str(r.randint(1, 12))
    return r.choice(["0", "-1", "13", "40", "2147483647", "x"])


def byte_destination(r: random.Random, src: str, functions: list[str]) -> str:
    """Mostly the byte-counting functions of `functions` on the source's wildcards; `$N`, a `partition` of them,
    non-ASCII literals beside them; a trailing `>` when the source has one."""
    stoks = src.split(".")
    wildcards = stoks.count("*")
    toks = []
    for _ in range(r.randint(1, 4)):
        k = r.random()
        index = str(r.randint(1, wildcards))
        if k < 0.7:
            fn = r.choice(functions)
            if fn == "split":
                args = [index, r.choice(BYTE_SEPARATORS)]
            else:
                args = [index, _byte_count(r)]
            toks.append(_braced(r, fn, args))
        elif k < 0.8:
            toks.append("$" + index)
        elif k < 0.87:
            toks.append(f"{{{{partition({r.randint(1, 9)},{index})}}}}")
        else:
            toks.append(r.choice(["x", "ü", "日本", "v1"]))
    if stoks[-1] == ">":
        toks.append(">")
    return ".".join(toks)


def byte_subjects(r: random.Random, src: str, count: int) -> list[bytes]:
    """Subjects for `src`: its wildcards filled with byte tokens; now and then one that does not match (a token
    too many or too few, another first token) or is not a literal subject (an empty token)."""
    out = []
    stoks = src.split(".")
    for _ in range(count):
        toks: list[bytes] = []
        for t in stoks:
            if t == ">":
                toks += [byte_token(r) for _ in range(r.randint(1, 3))]
            elif t == "*":
                toks.append(byte_token(r))
            else:
                toks.append(t.encode())
        k = r.random()
        if k < 0.02:
            toks.append(byte_token(r))
        elif k < 0.04 and len(toks) > 2:
            toks.pop()
        elif k < 0.05:
            toks[0] = b"other"
        elif k < 0.06:
            toks[-1] = b""
        out.append(b".".join(toks))
    return out
