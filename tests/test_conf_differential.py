"""Both config readers (the jar's ConfSyntax and the no-jar path's _confsyntax) against nats-server's own
`conf` package (tests/conf_oracle, built once per run): a seeded sample of generated documents
(SUBJXFORM_CONF_DOCS, default 3000; SUBJXFORM_CONF_SEED repeats a run; the long run is
`python tests/conf_differential.py --docs 1000000`), and every kind of document the readers once read
otherwise than nats-server, each compared with what the Go package does with it."""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile

import pytest

import conf_differential as diff
from conf_differential import Doc
from conftest import HAS_JAR
from subjxform.grammar.conf_syntax import parse_document
from subjxform.grammar.conf_value import ConfSyntaxError

pytestmark = pytest.mark.skipif(shutil.which("go") is None, reason="the oracle needs Go (tests/conf_oracle)")

SEED = int(os.environ.get("SUBJXFORM_CONF_SEED", "20261128"))
DOCS = int(os.environ.get("SUBJXFORM_CONF_DOCS", "3000"))


@pytest.fixture(scope="module")
def programs():
    with tempfile.TemporaryDirectory() as folder:
        oracle, _ = diff.build_oracle(folder)
        # Without the jar (a no-jar session), the no-jar reader alone is compared with nats-server's.
        go, jar = diff.Stream([oracle]), diff.Stream(diff.probe_command()) if HAS_JAR else None
        yield go, jar
        go.close()
        if jar is not None:
            jar.close()


def read(programs, docs: list[Doc]) -> list[tuple[Doc, dict, dict | None]]:
    go, jar = programs
    go.submit(docs)
    if jar is None:
        return [(d, g, None) for d, g in zip(docs, go.answers())]
    jar.submit(docs)
    return list(zip(docs, go.answers(), jar.answers()))


def test_a_seeded_sample_reads_as_nats_server_reads_it(programs):
    print(f"seed {SEED}, {DOCS} documents (SUBJXFORM_CONF_SEED / SUBJXFORM_CONF_DOCS repeat or widen it)")
    docs = list(diff.generate(SEED, DOCS))
    different = []
    accepted = 0
    for doc, go, jar in read(programs, docs):
        accepted += go["text"]["checks"]["ok"]
        problems = diff.compare(doc, go, jar)
        if problems:
            different.append((doc.kind, doc.text[:120], problems[:3]))
    # A sample that says something: nats-server accepts a fair share and refuses a fair share.
    assert 0.2 * DOCS < accepted < 0.8 * DOCS, accepted
    assert not different, different[:10]


def _text(t: str | bytes) -> bytes:
    return t if isinstance(t, bytes) else t.encode("utf-8", "surrogateescape")


# Each kind the readers once read otherwise than nats-server (issue 40), with what nats-server does with it.
# "refuses": its error text; "value": the top-level entry and what Go holds there ({"s": hex, "i": ...}).
KINDS = [
    # accepted here, refused by nats-server
    ("a digit of another script", "a: \u09eb\n", {"refuses": "expected integer, but got '\u09eb'"}),
    ("a mathematical digit (U+1D7D7)", "a: \U0001d7d7\n", {"refuses": "expected integer, but got '\U0001d7d7'"}),
    (
        "an impossible date",
        "v 2024-02-30T00:00:00Z\n",
        {"refuses": "expected Zulu formatted DateTime, but got '2024-02-30T00:00:00Z'"},
    ),
    ("a NUL inside a value", b'a = "x\x00y"\n', {"refuses": "Parse error on line 1: 'Unexpected EOF.'"}),
    (
        "a float past the range",
        "f = 1" + "0" * 400 + ".5\n",
        {"refuses": "float '1" + "0" * 400 + ".5' is out of the range"},
    ),
    (
        "a value on the next line after a colon",
        "S:\nd\n",
        {"refuses": "Parse error on line 2: 'Expected value but found new line'"},
    ),
    # another value
    ("\\x escapes of bytes past 0x7f", 'a = "\\xc3\\x91"\n', {"value": ("a", {"s": "c391"})}),
    ("a raw byte that is no UTF-8", 'a = "\\xff"\n', {"value": ("a", {"s": "ff"})}),
    ("JSON: an exponent is a string", '{"a":1e5}', {"value": ("a", {"s": "316535"})}),
    ("JSON: null is a string", '{"a": null}', {"value": ("a", {"s": "6e756c6c"})}),
    (
        "JSON: \\/ is refused",
        '{"a": "\\/"}',
        {
            "refuses": "Parse error on line 1: 'Invalid escape character '/'. Only the "
            "following escape characters are allowed: \\xXX, \\t, \\n, \\r, \\\", \\\\.'"
        },
    ),
    (
        "JSON: \\u is refused",
        '{"a": "\\u00e9"}',
        {
            "refuses": "Parse error on line 1: 'Invalid escape character 'u'. Only "
            "the following escape characters are allowed: \\xXX, \\t, \\n, \\r, \\\", \\\\.'"
        },
    ),
    (
        "JSON: an integer past int64",
        '{"a": 99999999999999999999}',
        {"refuses": "integer '99999999999999999999' is out of the range"},
    ),
    # refused here, accepted by nats-server
    (
        "a ( ... ) block string",
        "a (\nline one\n  line two\n)\nb = 1\n",
        {"value": ("a", {"s": b"\nline one\n  line two\n".hex()})},
    ),
    ("stray closing braces at the top level", "{}}", {"accepts": True}),
    ("a key with no value before }", "x {a }\n", {"value": ("a", {"m": []})}),
    ("a size suffix followed by a digit", "a = 5k1\n", {"value": ("a", {"s": b"5k1".hex()})}),
    ("an exponent after digits", "a = 1e5\n", {"value": ("a", {"s": b"1e5".hex()})}),
    # crashed here
    (
        "\\x and full-width hex digits",
        "n=\\x\uff21f\n",
        {"refuses": b"Parse error on line 1: 'Expected two hexadecimal digits after '\\x', but got '\xa1f''"},
    ),
    # the two readers read these two ways
    ("JSON that is not an object", "[1, 2]", {}),
    ("deep JSON", '{"a": ' + "[" * 3000 + "]" * 3000 + "}", {"accepts": True}),
]


@pytest.mark.parametrize("name,text,expected", KINDS, ids=[k[0] for k in KINDS])
def test_every_kind_reads_as_nats_server_reads_it(programs, name, text, expected):
    doc = Doc(0, "kind", _text(text))
    [(doc, go, jar)] = read(programs, [doc])
    g = go["text"]["checks"]
    if "refuses" in expected:
        want = expected["refuses"]
        assert not g["ok"] and bytes.fromhex(g["error"]) == _text(want), g
    if "accepts" in expected:
        assert g["ok"], g
    if "value" in expected:
        key, value = expected["value"]
        entries = {bytes.fromhex(k).decode(): v for k, v in g["value"]["m"]}
        assert {k: v for k, v in entries[key].items() if k in "sifbtam"} == value, entries
    assert diff.compare(doc, go, jar) == []


FILE_KINDS = [
    # nats-server joins an absolute path to the including file's folder
    ("an absolute include path", "include /abs/x.conf\n", {"abs/x.conf": b"a = 1\n"}, {}),
    # a bare include path ends at white space, `;` or `}`: the comma is part of it
    ("include path,", "include x.conf,\n", {"x.conf,": b"a = 1\n"}, {}),
    # the jar once threw InvalidPathException: nats-server's lexer ends the text at the NUL, so no path has one
    ("include with a NUL", b"include 'a\x00b.conf'\n", {"a": b""}, {}),
    ("include with a NUL, bare", b"include a\x00b.conf\n", {"a": b"x = 1\n"}, {}),
    ("include of a folder", "include sub\n", {"sub/x": b""}, {}),
    ("an environment variable holding a map", "a: $V\n", {}, {"V": "{x = 1, y = [2k, true]}"}),
    ("an environment variable cycle", "a: $A\n", {}, {"A": "$B", "B": "$A"}),
    ("an environment variable nats-server cannot read", "a: $V\n", {}, {"V": "x y"}),
    ("an included file sees none of its includer's variables", "v = 1\ninclude x.conf\n", {"x.conf": b"a = $v\n"}, {}),
]


@pytest.mark.parametrize("name,text,files,env", FILE_KINDS, ids=[k[0] for k in FILE_KINDS])
def test_files_and_the_environment_are_read_as_nats_server_reads_them(programs, name, text, files, env):
    doc = Doc(0, "file", _text(text), files, env)
    [(doc, go, jar)] = read(programs, [doc])
    if jar is None:
        pytest.skip("files are read by the jar's reader (the no-jar reader reads no files)")
    assert "file" in go and "file" in jar
    assert diff.compare(doc, go, jar) == []


def test_the_portable_reader_says_a_document_needs_its_files():

    for text, words in (
        ("include x.conf\n", "error parsing include file 'x.conf', a config read as text includes no files"),
        (
            "a: $HOME\n",
            "variable reference for 'HOME' on line 1 can not be found (a config read as text sees no "
            "environment variables",
        ),
    ):
        with pytest.raises(ConfSyntaxError) as e:
            parse_document(text)
        assert str(e.value).startswith(words)


def test_deep_answers_are_read_whatever_recursion_limit_other_code_left(programs):
    # Importing IPython (pyspark's Connect client does) sets Python's recursion limit to 3,000: the answer to a
    # document nested 3,000 deep then failed to decode in the reading thread, and the JVM's answer, left in its
    # pipe, was taken for the next test's (a CI run hung there for an hour).
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(3000)
    try:
        doc = Doc(0, "kind", b'{"a": ' + b"[" * 3000 + b"]" * 3000 + b"}")
        [(doc, go, jar)] = read(programs, [doc])
        assert go["text"]["checks"]["ok"] and diff.compare(doc, go, jar) == []
    finally:
        sys.setrecursionlimit(before)


ANSWERS = "import sys\nfor n, line in enumerate(sys.stdin):\n    print({ANSWER}, flush=True)\n"


def test_a_stream_whose_answers_cannot_be_read_says_so_on_every_later_submission():
    # the second document's answer is not JSON: the third's is left in the pipe
    stream = diff.Stream([sys.executable, "-c", ANSWERS.format(ANSWER="'{}' if n != 1 else 'no'")])
    try:
        docs = [Doc(i, "kind", b"a: 1") for i in range(3)]
        stream.submit(docs)
        with pytest.raises(ValueError):
            stream.answers()
        with pytest.raises(RuntimeError, match="an earlier answer could not be read"):
            stream.submit(docs[:1])  # (it once read the third document's answer as this one's)
    finally:
        stream.proc.kill()


def test_answers_not_collected_are_collected_by_the_next_submission():
    stream = diff.Stream([sys.executable, "-c", ANSWERS.format(ANSWER="'{\"n\": %d}' % n")])
    try:
        stream.submit([Doc(0, "kind", b"a: 1")])  # (its caller failed before it asked for the answers)
        stream.submit([Doc(1, "kind", b"a: 1")])
        assert stream.answers() == [{"n": 1}]
    finally:
        stream.proc.kill()


def test_a_process_that_does_not_answer_is_stopped_with_a_message():
    stream = diff.Stream([sys.executable, "-c", "import sys, time\nsys.stdin.readline()\ntime.sleep(60)"], timeout=2)
    stream.submit([Doc(0, "kind", b"a: 1"), Doc(1, "kind", b"a: 2")])
    with pytest.raises(TimeoutError, match=r"0 of 2 answers after 2 s \(stopped\)"):
        stream.answers()
    assert stream.proc.poll() is not None


def test_the_generator_covers_every_kind_of_document():
    kinds = {d.kind for d in diff.generate(random.Random(SEED).randrange(1 << 30), 500)}
    assert kinds == {"syntax", "corpus", "json", "include", "env"}
    assert len(diff.CORPUS) == 30


def test_the_differences_kept_on_purpose_are_the_documented_ones(programs):
    """docs/concepts/differences.md#config-files, each example: what nats-server does, and what both readers
    do instead (an unquoted `{{` is also met by the seeded sample: compare_strict)."""
    go_p, jar_p = programs
    deep = Doc(0, "deep", b"a: " + b"[" * 10001 + b"]" * 10001 + b"\n", {"unused.conf": b""})
    braces = Doc(1, "braces", b'm { "orders.*": orders.v2.{{wildcard(1)}} }\n')
    # Not for the oracle: a file that includes itself runs nats-server's parser out of stack (a fatal error).
    loop = Doc(2, "loop", b"include x.conf\n", {"x.conf": b"include x.conf\n"})
    go_p.submit([deep, braces])
    go_deep, go_braces = go_p.answers()
    too_deep = "Parse error on line 1: 'lists and maps nested more than 10000 deep'"

    # 10,001 levels: nats-server's parser reads them, its loader's digest refuses them; the readers refuse them.
    assert go_deep["text"]["checks"]["ok"] and go_deep["file"]["checks"]["ok"]
    assert "exceeded max depth" in diff._message(go_deep["file"]["digest"])
    assert diff._message(diff.python_result(deep.text, False)) == too_deep
    # An unquoted `{{`: nats-server cuts the value at its first `}` and reads on; the readers refuse it.
    assert go_braces["text"]["checks"]["ok"]
    cut = dict(go_braces["text"]["checks"]["value"]["m"])[b"m".hex()]["m"][0][1]["s"]
    assert bytes.fromhex(cut) == b"orders.v2.{{wildcard(1)"
    python_loose, python_strict = diff.python_results(braces)
    assert python_loose["ok"] and python_loose["braces"] == 1
    assert diff.UNQUOTED_BRACES.format(1) in diff._message(python_strict)
    if jar_p is None:
        return
    jar_p.submit([deep, braces, loop])
    jar_deep, jar_braces, jar_loop = jar_p.answers()
    assert diff._message(jar_deep["text"]["loose"]) == diff._message(jar_deep["file"]["loose"]) == too_deep
    assert jar_braces["text"]["loose"] == python_loose and jar_braces["text"]["strict"] == python_strict
    # A file that includes itself: the 33rd nested include is refused.
    assert "too many nested includes" in diff._message(jar_loop["file"]["strict"])
