"""The config readers against nats-server's own: seeded generated documents read by nats-server's `conf`
package (tests/conf_oracle, the Go module pinned in its go.mod), by the jar's reader (one JVM:
subjxform.config.ConfProbe) and by the no-jar path's reader (portable/_confsyntax.py, in this process).
Both readers must give the same verdict, the same values (types, bytes, lines, used variables, files)
and nats-server's error text, but for the deliberate differences (docs/concepts/differences.md), which
`compare` knows one by one.

    python tests/conf_differential.py --docs 1000000 --seed 1     # the long run (docs/concepts/reliability.md)

tests/test_conf_differential.py runs a sample of it in CI and the kinds of documents the readers once read
otherwise. The documents: syntax-driven (generated from the grammar, with its odd corners), mutations of
tests/conf_oracle/corpus (30 realistic server configs), JSON, documents with included files and with
environment variables.
"""

from __future__ import annotations

import argparse
import base64
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from subjxform.grammar.conf_reader import TEXT_INCLUDES_NO_FILES, TEXT_SEES_NO_ENVIRONMENT, ConfReader
from subjxform.grammar.conf_value import Arr, Bool, ConfSyntaxError, DateTime, Decimal, Integer, Obj, Str
from subjxform.grammar.go_bytes import go_bytes, go_text_of

HERE = Path(__file__).resolve().parent
ORACLE = HERE / "conf_oracle"
CORPUS = sorted((ORACLE / "corpus").glob("*.conf"))
sys.path.insert(0, str(HERE.parent / "python" / "src"))


# Values nested thousands deep (the readers' limit is 10,000) are decoded, written and compared recursively
# here. Python's recursion limit is one for the whole process and other code lowers it (importing IPython
# sets 3,000: pyspark's Connect client imports it), so each submission raises it again.
DEPTH = 25000


def deep_enough() -> None:
    if sys.getrecursionlimit() < DEPTH:
        sys.setrecursionlimit(DEPTH)


deep_enough()

# What the readers add to nats-server's words, on purpose (differences.md): hints after "can not be found",
# and, for a config read as text, why an include cannot be read.
HINTS = (
    f" ({TEXT_SEES_NO_ENVIRONMENT})",
    " (an included file sees none of the variables of the file that includes it)",
    " (a destination that starts with $ must be quoted)",
)
UNQUOTED_BRACES = "unquoted destination on line {} holds {{{{...}}}}"


@dataclass
class Doc:
    id: int
    kind: str
    text: bytes
    files: dict[str, bytes] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)

    def line(self) -> str:
        d: dict = {"id": self.id, "text": base64.b64encode(self.text).decode()}
        if self.files:
            d["files"] = {k: base64.b64encode(v).decode() for k, v in self.files.items()}
        if self.env:
            d["env"] = self.env
        return json.dumps(d)


# ---------------------------------------------------------------------------------------------------
# The programs: the oracle (built once per run) and the jar's probe, each one process fed a stream.


def build_oracle(folder: str) -> tuple[str, float]:
    """Builds tests/conf_oracle into ``folder``: the binary and the seconds the build took."""
    binary = os.path.join(folder, "conf_oracle")
    started = time.monotonic()
    subprocess.run(["go", "build", "-o", binary, "."], cwd=ORACLE, check=True)
    return binary, time.monotonic() - started


def probe_command() -> list[str]:
    from subjxform.cli import java_command

    return java_command([], main_class="subjxform.config.ConfProbe")


class Stream:
    """A process that answers one JSON line per JSON line. ``submit`` hands it documents (a thread writes
    them, another reads the answers) and returns at once, so that the oracle, the JVM and this process's
    own reader work at the same time; ``answers`` waits for them, at most ``timeout`` seconds.

    A submission whose answers could not all be read leaves the stream broken: the answers still in the pipe
    would be taken for the next documents', so every later call raises what broke it, and a process that
    does not answer in time is stopped. Answers not collected are collected by the next ``submit``."""

    def __init__(self, command: list[str], timeout: float = 600):
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1 << 16
        )
        self.name = os.path.basename(command[0]) if len(command) == 1 else command[-1]  # the oracle, or the class
        self.timeout = timeout
        self._threads: list[threading.Thread] = []
        self._out: list[dict] = []
        self._failure: BaseException | None = None
        self._broken: BaseException | None = None
        self._asked = 0

    def submit(self, docs: list[Doc]) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        deep_enough()
        if self._threads:  # the last submission's answers, never collected
            self.answers()
        if self._broken is not None:
            raise RuntimeError(f"{self.name}: an earlier answer could not be read") from self._broken
        lines = [d.line() + "\n" for d in docs]
        self._out, self._failure, self._asked = [], None, len(docs)

        def write() -> None:
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.writelines(lines)
                self.proc.stdin.flush()
            except BrokenPipeError:  # the process stopped: read() says so
                pass

        def read() -> None:
            assert self.proc.stdout is not None
            try:
                for _ in docs:
                    line = self.proc.stdout.readline()
                    if not line:
                        raise RuntimeError(f"{self.name} stopped (exit code {self.proc.wait()})")
                    self._out.append(json.loads(line))
            except BaseException as e:  # noqa: BLE001 - handed to the caller of answers()
                self._failure = e

        self._threads = [threading.Thread(target=write), threading.Thread(target=read)]
        for t in self._threads:
            t.start()

    def answers(self) -> list[dict]:
        deadline = time.monotonic() + self.timeout
        for t in self._threads:
            t.join(max(0.0, deadline - time.monotonic()))
        if any(t.is_alive() for t in self._threads):
            self._broken = TimeoutError(
                f"{self.name}: {len(self._out)} of {self._asked} answers after {self.timeout:.0f} s (stopped)"
            )
            self.proc.kill()
            for t in self._threads:
                t.join()
        elif self._failure is not None and self._broken is None:
            self._broken = self._failure
        self._threads = []
        if self._broken is not None:
            raise self._broken
        return self._out

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


# ---------------------------------------------------------------------------------------------------
# The no-jar reader's results, written as the oracle writes Go's.


def python_result(text: bytes, strict: bool) -> dict:
    reader = ConfReader(go_bytes(go_text_of(text)), refuse_unquoted_braces=strict)
    try:
        root = reader.document()
    except ConfSyntaxError as e:
        return {"ok": False, "error": go_bytes(str(e)).hex(), "braces": reader.unquoted_braces_line}
    return {"ok": True, "value": _encode(root, False, top=True), "braces": reader.unquoted_braces_line}


def _encode(v, used: bool, top: bool = False) -> dict:
    if isinstance(v, Str):
        out: dict = {"s": go_bytes(v.value).hex()}
    elif isinstance(v, Bool):
        out = {"b": v.value}
    elif isinstance(v, Integer):
        out = {"i": str(v.value)}
    elif isinstance(v, Decimal):
        import struct

        out = {"f": format(struct.unpack(">Q", struct.pack(">d", v.value))[0], "x")}
    elif isinstance(v, DateTime):
        out = {"t": v.value}
    elif isinstance(v, Arr):
        out = {"a": [_encode(x, False) for x in v.items]}
    elif isinstance(v, Obj):
        out = {"m": [[go_bytes(k).hex(), _encode(x, k in v.used_variables)] for k, x in v.entries]}
    else:
        raise TypeError(v)
    if not top:
        out.update(l=v.line, c=v.column, u=used, src="")
    return out


# ---------------------------------------------------------------------------------------------------
# The comparison


def _message(r: dict) -> str:
    return bytes.fromhex(r["error"]).decode("utf-8", "surrogateescape")


def _reader_words(message: str) -> str:
    """A reader's message with what it adds on purpose taken out: nats-server's words."""
    for hint in HINTS:
        message = message.replace(hint, "")
    return message


def _same_value(go: dict, ours: dict, where: str, out: list[str]) -> None:
    """Go's value against a reader's: types and bytes everywhere, line, column, used and file where Go has a token."""
    if "l" in go:
        for k in ("l", "c", "u", "src"):
            if go[k] != ours.get(k):
                out.append(f"{where}: {k} {go[k]!r} here {ours.get(k)!r}")
    tg = next(k for k in go if k in "sifbtam")
    to = next((k for k in ours if k in "sifbtam"), None)
    if tg != to:
        out.append(f"{where}: type {tg} here {to}")
        return
    if tg == "a":
        if len(go["a"]) != len(ours["a"]):
            out.append(f"{where}: {len(go['a'])} items here {len(ours['a'])}")
            return
        for i, (x, y) in enumerate(zip(go["a"], ours["a"])):
            _same_value(x, y, f"{where}[{i}]", out)
    elif tg == "m":
        gm, om = dict((k, v) for k, v in go["m"]), dict((k, v) for k, v in ours["m"])
        if set(gm) != set(om):
            out.append(f"{where}: keys {sorted(gm)} here {sorted(om)}")
            return
        for k in gm:
            _same_value(gm[k], om[k], f"{where}.{bytes.fromhex(k)!r}", out)
    elif go[tg] != ours[tg]:
        out.append(f"{where}: {tg} {go[tg]!r} here {ours[tg]!r}")


def compare_result(go: dict, ours: dict, text_mode: bool) -> list[str]:
    """How a reader's result (nats-server's semantics, braces not refused) differs from Go's."""
    if "panic" in go:
        return [f"nats-server panics: {go['panic']}"]
    if go["ok"] != ours["ok"]:
        what = _message(go) if not go["ok"] else _message(ours)
        return [f"verdict: nats-server {'accepts' if go['ok'] else 'refuses'} ({what!r})"]
    if not go["ok"]:
        theirs, mine = _message(go), _reader_words(_message(ours))
        reason = TEXT_INCLUDES_NO_FILES
        if text_mode and reason in mine:  # the include nats-server could not read either: its words up to there
            prefix = mine[: mine.index(reason)]
            return [] if theirs.startswith(prefix) else [f"error: {theirs!r} here {mine!r}"]
        return [] if theirs == mine else [f"error: {theirs!r} here {mine!r}"]
    out: list[str] = []
    _same_value(go["value"], ours["value"], "", out)
    return out


def compare_strict(loose: dict, strict: dict) -> list[str]:
    """An unquoted value holding `{{` is refused (SPEC §4): only there may the strict reading differ."""
    line = loose.get("braces", 0)
    if not line:
        return [] if loose == strict else ["strict reading differs"]
    if strict["ok"] or UNQUOTED_BRACES.format(line) not in _message(strict):  # maybe in an included file
        return [f"strict reading: expected the unquoted {{{{ error on line {line}"]
    return []


def python_results(doc: Doc) -> tuple[dict, dict]:
    """The no-jar reader's reading of the document's text: nats-server's (loose), and SPEC §4's (strict)."""
    return python_result(doc.text, False), python_result(doc.text, True)


def compare(doc: Doc, go: dict, jar: dict | None, python: tuple[dict, dict] | None = None) -> list[str]:
    """Every difference of both readers (and of the jar reading it as a file) from nats-server; ``jar``:
    None where there is no jar (the no-jar reader alone); ``python``: its results, when they are already there."""
    problems = []
    g = go["text"]["checks"]
    py_loose, py_strict = python or python_results(doc)
    readers = [("python", py_loose, py_strict)]
    if jar is not None:
        readers.insert(0, ("jar", jar["text"]["loose"], jar["text"]["strict"]))
        if jar["text"]["loose"] != py_loose:
            problems.append("python and jar read the text differently")
    for name, loose, strict in readers:
        problems += [f"{name}: {p}" for p in compare_result(g, loose, True)]
        problems += [f"{name}: {p}" for p in compare_strict(loose, strict)]
    if "file" in go and jar is not None:
        gf, jf = go["file"]["checks"], jar["file"]
        problems += [f"jar file: {p}" for p in compare_result(gf, jf["loose"], False)]
        problems += [f"jar file: {p}" for p in compare_strict(jf["loose"], jf["strict"])]
    return problems


# ---------------------------------------------------------------------------------------------------
# The generator: documents from the grammar, mutations of real configs, JSON, includes, environment.

SPACE = [" ", " ", " ", "\t", "  ", "\u00a0", "\u3000", "\u2028", "\x0b", "\x0c", "\u0085", "\u1680"]
NEW_LINE = ["\n", "\n", "\n", "\r\n", "\r", "\n\n"]
WORDS = [
    "port",
    "host",
    "accounts",
    "mappings",
    "users",
    "cluster",
    "name",
    "a",
    "b",
    "x.y",
    "foo.*",
    "orders.>",
    "include",
    "INCLUDE",
    "\u0130nclude",
    "}",
    "a}",
    "{",
    "[",
    "]",
    "$x",
    "1abc",
    "caf\u00e9",
    "\u65e5\u672c",
    "k\x00",
    "a\xffb",
    "-",
    "x=y",
    "é:",
    "_",
    "2a",
    "true",
    "null",
]
BARE = [
    "word",
    "nats://host:4222",
    "a.b.c",
    "x.*",
    "orders.>",
    "98%",
    "5k1",
    "1e5",
    "1e",
    "5e7bcd",
    "0K1abc",
    "1.5.6",
    "10.0.0.1:4222",
    "-x",
    "null",
    "yes",
    "No",
    "oN",
    "TRUE",
    "fAlSe",
    "$x",
    "$y",
    "$2a$11$abc",
    "$",
    "a#b",
    "a.{{wildcard(1)}}",
    "{{partition(3,1)}}.x",
    "x{{y",
    "a'b",
    "Ñ",
    "caf\u00e9",
    "\u0660\u0661",
    "\u09eb",
    "1\u09eb",
    "\U0001d7d7",
    "\uff11",
    "-\u0663",
    "a\\tb",
    "c\\x41",
    "d\\xff",
    "e\\x",
    "f\\q",
    "\\xc3\\x91",
    "\\x\uff21f",
    "1kbb",
    "1ki",
    "2KiB",
    "3mb",
    "4T",
    "5pb",
    "6eib",
    "7Gi",
    "1x",
    "9" * 19,
    "9" * 20,
    "-" + "9" * 19,
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "9223372036854775807k",
    "2024-02-29T00:00:00Z",
    "2023-02-29T00:00:00Z",
    "2024-02-30T00:00:00Z",
    "2024-13-01T00:00:00Z",
    "2024-01-01T24:00:00Z",
    "2024-01-01T23:59:60Z",
    "0000-01-01T00:00:00Z",
    "2024-01-01T00:00:00",
    "2024-1-01T00:00:00Z",
    "20240-01-01T00:00:00Z",
    "2\u09eb24-01-01T00:00:00Z",
    "1.5",
    "-0.0",
    "0.000001",
    "1." + "0" * 20 + "1",
    "1" * 400 + ".5",
    "0." + "0" * 400 + "1",
    "1.",
    ".5",
    "-.5",
    "1.5e3",
    "-1.5k",
    "-5abc",
    "-5]",
    "-",
    "-k",
    "1_000",
]
ESCAPES = [
    "\\t",
    "\\n",
    "\\r",
    '\\"',
    "\\\\",
    "\\x41",
    "\\xff",
    "\\xc3\\x91",
    "\\x00",
    "\\x7",
    "\\xzz",
    "\\u00e9",
    "\\/",
    "\\q",
    "\\x\n",
    "\\x\uff21f",
    "\\",
]
NASTY = [
    "\x00",
    "\xff",
    "\xc3",
    "\ufffd",
    "}",
    "{",
    "]",
    "[",
    ",",
    ";",
    ":",
    "=",
    "#",
    "//",
    "/",
    "'",
    '"',
    "(",
    ")",
    "\n)\n",
    "$",
    "\\",
    "\n",
    "\r",
    " ",
    "\t",
    "\u00a0",
    "\u2028",
    "\u09eb",
    "\U0001d7d7",
    "include ",
    "{{",
    "}}",
    "0",
    "-",
    ".",
    "k",
    "e",
    "T",
    "Z",
    "\u0130",
    "\u212a",
]


def _key(r: random.Random) -> str:
    roll = r.random()
    if roll < 0.55:
        return r.choice(["port", "name", "a", "b", "c", "x", "mappings", "accounts", "k" + str(r.randrange(50))])
    if roll < 0.7:
        return '"' + r.choice(WORDS + ["a b", "x'y", "", "\n", "a:b", "x#y"]).replace('"', "") + '"'
    if roll < 0.8:
        return "'" + r.choice(WORDS + ["a b", 'x"y', "", "k\ny"]).replace("'", "") + "'"
    return r.choice(WORDS)


def _scalar(r: random.Random, names: list[str]) -> str:
    roll = r.random()
    if roll < 0.3:
        return r.choice(BARE)
    if roll < 0.4 and names:
        return "$" + r.choice(names)
    if roll < 0.55:
        parts = [
            r.choice(["a", "x.y", " ", "caf\u00e9", "{{wildcard(1)}}", "'", "\n", "}", "#", "\u09eb"])
            for _ in range(r.randrange(4))
        ]
        if r.random() < 0.5:
            parts.insert(r.randrange(len(parts) + 1), r.choice(ESCAPES))
        return '"' + "".join(p.replace('"', '\\"') if p != '"' else p for p in parts) + '"'
    if roll < 0.62:
        return "'" + r.choice(["", "a", 'x"y', "\\t", "a b", "\n", "{{wildcard(1)}}"]) + "'"
    if roll < 0.66:
        body = r.choice(["", "text", "a\n b", "x)", ")x", "\n)", "(\n"])
        return "(" + body + r.choice(["\n)\n", "\n)", ")", "\n) ", "\r\n)\n"])
    if roll < 0.85:
        n = r.choice([str(r.randrange(1000)), str(r.randrange(-100, 0)), str(r.random() * 100)[:6], "0", "00012"])
        return n + r.choice(["", "", "", "k", "KB", "Mi", "gb", "kbb", "x", "%", ".5", "e", "E5"])
    return r.choice(BARE) + r.choice(ESCAPES) + r.choice(["", "z", " "])


def _value(r: random.Random, depth: int, names: list[str]) -> str:
    roll = r.random()
    if depth > 0 and roll < 0.15:
        items = [_value(r, depth - 1, names) for _ in range(r.randrange(5))]
        seps = [r.choice([", ", ",", "\n", " ", " / ", " //c\n", " #c\n", ",\n"]) for _ in items]
        body = "".join(i + s for i, s in zip(items, seps))
        if body and r.random() < 0.6:
            body = body[: -len(seps[-1])]
        return "[" + r.choice(["", " ", "\n"]) + body + r.choice(["", " ", "\n"]) + "]"
    if depth > 0 and roll < 0.3:
        return "{" + _entries(r, depth - 1, names, r.randrange(4), nested=True) + "}"
    return _scalar(r, names)


def _entries(r: random.Random, depth: int, names: list[str], n: int, nested: bool) -> str:
    out = []
    for _ in range(n):
        k = _key(r)
        sep = r.choice([": ", " = ", " ", ":", "=", " : ", "\t", "", ":\n", " \n", "\n"])
        if r.random() < 0.08:
            out.append(r.choice(["# comment", "// comment", "/", "/ x"]) + "\n")
        out.append(k + sep + _value(r, depth, names))
        names.append(k.strip("'\""))
        out.append(
            r.choice(
                ["\n", "\n", "\n", "; ", ", ", ";", ",", " ", "", " # c\n", " // c\n", "\r\n", "}"]
                if not nested
                else ["\n", ", ", "; ", " ", ",", "", " // c\n"]
            )
        )
    return "".join(out)


CLEAN = [
    "word",
    "nats://host:4222",
    "a.b.c",
    "orders.>",
    "98%",
    "yes",
    "off",
    "1k",
    "2MB",
    "-5",
    "1.5",
    "42",
    '"quoted"',
    "'single'",
    '"a.{{wildcard(1)}}"',
    "2024-02-29T00:00:00Z",
    "10.0.0.1:4222",
    "$2a$11$abc",
    '"tab\\t"',
    '"\\x41"',
    "(\nblock\n)\n",
]


def _clean_doc(r: random.Random, depth: int, n: int, names: list[str]) -> str:
    """Entries a server would take: the odd corners are left to the other documents."""
    out = []
    for _ in range(n):
        k = r.choice(["port", "name", "a", "b", "x.y", '"orders.*"', "'q r'", "k" + str(r.randrange(50))])
        roll = r.random()
        if depth > 0 and roll < 0.2:
            v = "{" + _clean_doc(r, depth - 1, r.randrange(3), names) + "}"
        elif depth > 0 and roll < 0.35:
            items = [r.choice(CLEAN) for _ in range(r.randrange(4))]
            v = "[" + ", ".join(items) + (r.choice([" ]", "\n]", ",]"]) if items else "]")
        elif roll < 0.45 and names:
            v = "$" + r.choice(names)
        else:
            v = r.choice(CLEAN).replace("\\n", "\n")
        out.append(k + r.choice([": ", " = ", " ", "="]) + v + r.choice(["\n", "; ", ", ", " # c\n", " // c\n"]))
        names.append(k.strip("'\""))
    return "".join(out)


def syntax_doc(r: random.Random) -> str:
    names: list[str] = []
    if r.random() < 0.35:
        return _mutate(r, _clean_doc(r, 2, r.randrange(1, 6), names), r.choice([0, 0, 0, 1]))
    body = _entries(r, r.randrange(4), names, r.randrange(1, 7), nested=False)
    roll = r.random()
    if roll < 0.15:
        body = "{" + r.choice(["", "\n", " "]) + body + "}" + r.choice(["", "\n", "}", " x", "}}", "\n# c"])
    elif roll < 0.2:
        body = (
            r.choice(
                [
                    "{}}",
                    "}",
                    "{{}}",
                    "{{a=1}",
                    "{ a }",
                    "x {a }",
                    "a\n",
                    '"',
                    "'",
                    'a = "',
                    "a=['",
                    'x { a = [ "',
                    "\x00",
                    '"\x00 junk',
                    "a b c",
                    "S:\nd",
                    "S\nd",
                    "a=1\n/",
                    "a: b /c",
                ]
            )
            + body
        )
    return _mutate(r, body, r.choice([0, 0, 0, 1, 2]))


def _mutate(r: random.Random, text: str, times: int) -> str:
    for _ in range(times):
        if not text:
            text = r.choice(NASTY)
            continue
        i = r.randrange(len(text) + 1)
        roll = r.random()
        if roll < 0.35:
            text = text[:i] + r.choice(NASTY) + text[i:]
        elif roll < 0.55:
            text = text[:i] + text[i + r.randrange(1, 4) :]
        elif roll < 0.65:
            text = text[:i]
        elif roll < 0.75:
            lines = text.split("\n")
            j = r.randrange(len(lines))
            lines.insert(r.randrange(len(lines) + 1), lines[j])
            text = "\n".join(lines)
        elif roll < 0.85 and i < len(text):
            swap = {
                "0": "\u0660",
                "1": "\U0001d7cf",
                "5": "\u09eb",
                ":": "=",
                "=": " ",
                '"': "'",
                "'": '"',
                "{": "(",
                "}": "\n)\n",
                ",": "/",
                "\n": "\r",
            }
            text = text[:i] + swap.get(text[i], text[i] + text[i]) + text[i + 1 :]
        else:
            text = text[:i] + r.choice(SPACE + NEW_LINE) + text[i:]
    return text


_CORPUS_TEXTS = [p.read_text(encoding="utf-8") for p in CORPUS]


def corpus_doc(r: random.Random) -> str:
    return _mutate(r, r.choice(_CORPUS_TEXTS), r.choice([0, 0, 1, 1, 2, 3, 5]))


def json_doc(r: random.Random) -> str:
    def value(depth: int):
        roll = r.random()
        if depth > 0 and roll < 0.2:
            return {
                r.choice(["a", "b", "orders.*", "c d", "é", "x.{{wildcard(1)}}"]): value(depth - 1)
                for _ in range(r.randrange(4))
            }
        if depth > 0 and roll < 0.35:
            return [value(depth - 1) for _ in range(r.randrange(4))]
        return r.choice(
            [
                0,
                1,
                -1,
                2**63 - 1,
                2**63,
                -(2**63),
                10**30,
                1.5,
                -0.0,
                1e5,
                1.5e-7,
                1e300,
                True,
                False,
                None,
                "s",
                "é",
                'a"b',
                "tab\t",
                "nl\n",
                "\x01",
                "/",
                "{{wildcard(1)}}",
                "98%",
                "",
                "\u2028",
            ]
        )

    doc = {r.choice(["mappings", "port", "a", "accounts"]): value(3) for _ in range(r.randrange(1, 4))}
    text = json.dumps(doc, ensure_ascii=r.random() < 0.5, indent=r.choice([None, 2]))
    if r.random() < 0.3:
        text = text.replace("/", "\\/", 1)
    return _mutate(r, text, r.choice([0, 0, 1]))


def include_doc(r: random.Random, doc_id: int) -> Doc:
    files: dict[str, bytes] = {}
    lines = []
    for i in range(r.randrange(1, 4)):
        name = r.choice(
            [
                f"inc{i}.conf",
                f"inc{i}.conf",
                f"sub/inc{i}.conf",
                f"./inc{i}.conf",
                f"sub/../inc{i}.conf",
                f"/abs/inc{i}.conf",
                f"my file{i}.conf",
                f"missing{i}.conf",
                "sub",
                "",
                f"a\x00{i}.conf",
            ]
        )
        written = name.lstrip("/") if name.startswith("/") else name  # Go joins an absolute path under the folder
        if "missing" not in name and written and written != "sub" and "\x00" not in name:
            roll = r.random()
            inner = (
                _clean_doc(r, 2, r.randrange(1, 4), [])
                if roll < 0.6
                else syntax_doc(r)
                if roll < 0.8
                else f"nested = 1\ninclude inner{i}.conf\n"
            )
            files[os.path.normpath(written)] = inner.encode("utf-8", "surrogateescape")
            if "inner" in inner:
                files[os.path.normpath(os.path.join(os.path.dirname(written), f"inner{i}.conf"))] = _clean_doc(
                    r, 1, 2, []
                ).encode("utf-8", "surrogateescape")
        quoted = r.choice(['"{}"', "'{}'", "{}", "{}", "{},", "{};"]).format(name)
        where = r.choice(["top", "top", "map"])
        line = f"include {quoted}" if where == "top" else f"m {{\n  include {quoted}\n}}"
        lines.append(line)
        if r.random() < 0.5:
            lines.append(
                _clean_doc(r, 1, 1, []).strip() if r.random() < 0.7 else _entries(r, 1, [], 1, nested=False).strip()
            )
    if "sub" in "".join(lines):
        files.setdefault("sub/.keep", b"")
    return Doc(doc_id, "include", "\n".join(lines).encode("utf-8", "surrogateescape") + b"\n", files)


def env_doc(r: random.Random, doc_id: int) -> Doc:
    env = {}
    names = ["NATS_" + str(i) for i in range(r.randrange(1, 4))]
    for n in names:
        if r.random() < 0.8:
            env[n] = r.choice(
                [
                    _scalar(r, []),
                    r.choice(CLEAN),
                    r.choice(CLEAN),
                    "{a = 1, b = [x, y ]}",
                    "[1, 2 ]",
                    "a b c",
                    "$" + r.choice(names),
                    "$UNSET",
                    "",
                    "4k",
                    '"quoted"',
                    "-1.5",
                    "2024-01-01T00:00:00Z",
                    "{{wildcard(1)}}",
                ]
            )
    refs = [f"k{i}: ${r.choice(names + ['UNSET'])}" for i in range(r.randrange(1, 4))]
    text = "\n".join(
        refs
        + [
            _clean_doc(r, 1, r.randrange(2), [])
            if r.random() < 0.7
            else _entries(r, 1, [], r.randrange(2), nested=False)
        ]
    )
    # environment values are text (no NUL: the environment cannot hold one)
    env = {k: v.replace("\x00", "") for k, v in env.items()}
    return Doc(doc_id, "env", text.encode("utf-8", "surrogateescape"), env=env)


def generate(seed: int, count: int) -> Iterator[Doc]:
    r = random.Random(seed)
    for i in range(count):
        roll = r.random()
        if roll < 0.4:
            yield Doc(i, "syntax", syntax_doc(r).encode("utf-8", "surrogateescape"))
        elif roll < 0.7:
            yield Doc(i, "corpus", corpus_doc(r).encode("utf-8", "surrogateescape"))
        elif roll < 0.8:
            yield Doc(i, "json", json_doc(r).encode("utf-8", "surrogateescape"))
        elif roll < 0.9:
            yield include_doc(r, i)
        else:
            yield env_doc(r, i)


# ---------------------------------------------------------------------------------------------------
# A run


@dataclass
class Summary:
    docs: int = 0
    by_kind: Counter = field(default_factory=Counter)
    accepted: Counter = field(default_factory=Counter)
    accepted_as_file: Counter = field(default_factory=Counter)
    with_braces: int = 0
    differences: list = field(default_factory=list)  # (doc, problems)
    seconds: float = 0.0
    build_seconds: float = 0.0


def run(
    docs: Iterable[Doc], batch: int = 5000, keep: int = 20, oracle: str | None = None, summary: Summary | None = None
) -> Summary:
    """Runs every document through the three readers and compares them, counting into ``summary`` (a new
    one by default) chunk by chunk: a run that is stopped keeps the counts of the chunks it finished."""
    summary = summary or Summary()
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        if oracle is None:
            oracle, summary.build_seconds = build_oracle(folder)
        go, jar = Stream([oracle]), Stream(probe_command())
        try:
            it = iter(docs)
            while chunk := list(itertools.islice(it, batch)):
                go.submit(chunk)
                jar.submit(chunk)
                mine = [python_results(d) for d in chunk]  # while the oracle and the JVM read theirs
                for d, g, j, p in zip(chunk, go.answers(), jar.answers(), mine):
                    summary.docs += 1
                    summary.by_kind[d.kind] += 1
                    summary.accepted[d.kind] += g["text"]["checks"]["ok"]
                    if "file" in g:
                        summary.accepted_as_file[d.kind] += g["file"]["checks"]["ok"]
                    summary.with_braces += bool(j["text"]["loose"].get("braces"))
                    problems = compare(d, g, j, p)
                    if problems:
                        if len(summary.differences) < keep:
                            summary.differences.append((d, problems))
                        summary.by_kind["DIFFERENT " + d.kind] += 1
        finally:
            summary.seconds += time.monotonic() - started
            go.close()
            jar.close()
    return summary


def report(s: Summary) -> str:
    kinds = sorted(k for k in s.by_kind if not k.startswith("DIFFERENT"))
    rate = s.docs / s.seconds if s.seconds else 0.0
    different = sum(v for k, v in s.by_kind.items() if k.startswith("DIFFERENT"))
    lines = [
        f"{s.docs} documents in {s.seconds:.1f} s ({rate:.0f} a second; the oracle built in {s.build_seconds:.1f} s): "
        f"{different} read differently"
    ]
    for k in kinds:
        as_file = f" (as a file: {s.accepted_as_file[k]})" if k in s.accepted_as_file else ""
        lines.append(
            f"  {k:8} {s.by_kind[k]:>9}  accepted by nats-server {s.accepted[k]:>9}{as_file}  "
            f"read differently {s.by_kind['DIFFERENT ' + k]}"
        )
    lines.append(f"  unquoted {{{{ (refused on purpose): {s.with_braces}")
    for d, problems in s.differences:
        lines.append(f"- {d.kind} #{d.id}: {d.text[:200]!r} files={list(d.files)} env={d.env}")
        lines += [f"    {p}" for p in problems[:5]]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=5000)
    args = ap.parse_args()
    summary = Summary()
    docs = generate(args.seed, args.docs)
    stopped = False
    with tempfile.TemporaryDirectory() as folder:
        oracle, summary.build_seconds = build_oracle(folder)
        try:
            while summary.docs < args.docs:  # in runs of 100,000 (fresh processes): one generator, bounded memory
                run(
                    itertools.islice(docs, min(100_000, args.docs - summary.docs)),
                    args.batch,
                    oracle=oracle,
                    summary=summary,
                )
                print(report(summary).split("\n")[0], file=sys.stderr, flush=True)
        except KeyboardInterrupt:  # Ctrl-C: the numbers of the chunks that were finished
            stopped = True
    print(report(summary) + (f"\n(stopped after {summary.docs} of {args.docs} documents)" if stopped else ""))
    return 1 if summary.differences else 0


if __name__ == "__main__":
    sys.exit(main())
