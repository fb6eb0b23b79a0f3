"""The portable grammar (subjxform.grammar) against every golden transform case, without
Spark: the same acceptance, the same nats-server reason, and (through the plain-Python reference
evaluator) the same result as the jar gives."""

from __future__ import annotations

import pytest

from conftest import golden
from subjxform.grammar import server_version as versions
from subjxform.grammar.filter_transforms import InvalidStreamConfig, compile_filter_transforms
from subjxform.grammar.keyed_draw import keyed_below, mix, text_salt
from subjxform.grammar.subject_transform import InvalidTransform, apply_reference, compile_transform
from test_golden import as_delivered, fits

LINES = ["2.10", "2.11", "2.12", "2.14", "2.15"]
FILES = [("transform_cases.jsonl", None)] + [(f"servers/{line}/transforms.jsonl", line) for line in LINES]


def check(name: str, line):
    wrong = []
    for c in as_delivered(golden(name)):
        try:
            t = compile_transform(c["src"], c["dest"], False, line)
        except InvalidTransform as e:
            if c["accepted"] or e.nats_message != c["error"]:
                wrong.append((c["id"], "refused", e.nats_message, c["error"]))
            continue
        if not c["accepted"]:
            wrong.append((c["id"], "accepted", c["error"]))
            continue
        if c["subject"] is None or ("expected" not in c and not c.get("random")):
            continue
        for draw in (lambda i, n: 0, lambda i, n: n - 1):
            out = apply_reference(t, c["subject"].encode("utf-8", "surrogatepass"), draw)
            out = None if out is None else out.decode("utf-8", "surrogateescape")
            if not fits(c, out):
                wrong.append((c["id"], c["src"], c["dest"], c["subject"], out, c.get("expected")))
    return wrong


@pytest.mark.parametrize("name,line", FILES, ids=[n for n, _ in FILES])
def test_every_golden_case_is_accepted_refused_and_built_as_pinned(name, line):
    wrong = check(name, line)
    assert not wrong, (len(wrong), wrong[:10])


def test_the_check_catches_a_planted_disagreement(monkeypatch):
    import subjxform.grammar.subject_transform as tr

    monkeypatch.setattr(tr, "fnv1a32", lambda data: 0)  # every partition 0: some pinned cases must fail
    assert check("transform_cases.jsonl", None)


def test_server_version_spellings_and_the_jars_error_text():
    assert versions.parse("2.10").line == "2.10"
    assert versions.parse(" v2.12.8 ").line == "2.12"
    assert versions.parse("2.15.1") is versions.NEWEST
    with pytest.raises(ValueError) as e:
        versions.parse("2.9")
    assert str(e.value) == (
        'unsupported nats-server version "2.9": supported lines are 2.10, 2.11, 2.12, 2.14, 2.15 '
        "(a line like '2.10' or a release like '2.10.26'; the default is 2.15)"
    )
    with pytest.raises(ValueError, match=r'"x2" \(not a version\)'):
        versions.parse("x2")
    with pytest.raises(ValueError, match="not a version"):
        versions.parse("２.10")  # a full-width digit: Java's \d is ASCII only


def test_jar_texts_for_an_empty_source_and_the_strict_form():
    with pytest.raises(InvalidTransform) as e:
        compile_transform("", "a.b")
    assert (
        str(e.value)
        == 'invalid subject transform from "" to "a.b": Subject "" is not a valid subject (as ">": invalid subject)'
    )
    assert e.value.blamed == "src"
    with pytest.raises(InvalidTransform) as e:
        compile_transform("a.*.*", "x.$1", strict=True)
    assert e.value.reason == "invalid mapping destination: not using all of the token wildcard(s) in x.$1"
    with pytest.raises(InvalidTransform, match="allowed for import"):
        compile_transform("a.*", "x.{{partition(3,1)}}", strict=True)
    assert compile_transform("a.*.*", "x.$2.{{wildcard(1)}}", strict=True).tokens[1].position == 2


def test_a_transform_only_source_may_have_white_space_as_nats_server_checks_it():
    """NewSubjectTransform alone (mapping_checks=False: a stream's republish on every line, 2.10's ingress
    transform) checks a source only for empty tokens and a `>` before the last: white space passes (measured with
    nats-server 2.10.25 to 2.15.1), and such a source matches no valid subject. A mapping still refuses it, and
    so does 2.10's check of a source's filter list, as nats-server does."""
    for line in LINES:
        for src, dest in [("e1 x", "r"), (" e1", "r"), ("e1\tx", "r"), ("e1 x.>", "r.>"), ("a b.*", "r.$1")]:
            t = compile_transform(src, dest, False, line, mapping_checks=False)
            assert t.source == src
            for subject in (b"e1.x", b"e1", b"a.b", b"ab.c"):
                assert apply_reference(t, subject) is None, (line, src, subject)
        for src, dest in [("e1 x", "r.>"), (" e1", "r.>"), ("a b.*", "r.*"), ("a..b", "r"), ("a.>.b", "r")]:
            with pytest.raises(InvalidTransform) as e:
                compile_transform(src, dest, False, line, mapping_checks=False)
            assert e.value.reason == "invalid subject", (line, src, dest)
        with pytest.raises(InvalidTransform, match='Subject "e1 x" is not a valid subject'):
            compile_transform("e1 x", "r", False, line)
    with pytest.raises(InvalidStreamConfig, match="source subject filter is invalid"):
        compile_filter_transforms([("o x.*", "s.$1")], "2.10")


def test_keyed_draw_pieces_match_known_splitmix_values():
    # SplitMix64's finalizer of 0 is 0; the published first output of SplitMix64 seeded 0 is
    # mix(0x9e3779b97f4a7c15) = 0xe220a8397b1dcdaf.
    assert mix(0) == 0
    assert mix(0x9E3779B97F4A7C15) & (2**64 - 1) == 0xE220A8397B1DCDAF
    assert text_salt("a") != text_salt("b")
    assert 0 <= keyed_below(100, 1, 2, 3) < 100


def test_a_210_filter_list_is_built_as_210_builds_stream_transforms():
    """2.10 builds a stream's transforms as transforms alone: nats-server 2.10.26 stores `m x.abcdef.x` through a
    mirror transform `al.>` -> `m x.>`, and `v.hello\tworld.a` through an ingress transform (tests/golden/servers/
    2.10/streams.jsonl); 2.11 on refuse such a destination."""
    mirror = compile_filter_transforms([("al.>", "m x.>")], "2.10")
    assert apply_reference(mirror.renames[0], b"al.abcdef.x") == b"m x.abcdef.x"
    ingress = compile_filter_transforms([("u.*", "v.hello\tworld.$1")], "2.10")
    assert apply_reference(ingress.renames[0], b"u.a") == b"v.hello\tworld.a"
    left = compile_filter_transforms([("o.*.*", "m.{{left(1,2)}}.$2")], "2.10")
    assert apply_reference(left.renames[0], b"o.abc.d") == b"m.ab.d"
    with pytest.raises(InvalidStreamConfig):
        compile_filter_transforms([("al.>", "m x.>")], "2.11")
