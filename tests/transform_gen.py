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
