"""subjxform.portable's mapping tables: the table read and checked in Python (no JVM) against the jar's
MappingTable (the differential oracle, through py4j in the ordinary jar session), case by case: every
golden table of the contract and of each server line, nats-server config syntax written many ways, and
texts mutated at random; the same acceptance, the same error text, the same table (rules, destinations,
remainders), the same keyed-draw salts."""

from __future__ import annotations

import json
import math
import os
import random

import pytest

from conftest import golden, needs_jar
from subjxform.grammar.keyed_draw import keyed_below

# Side by side with the jar (Spark 4.2's full run); where no jar is, test_portable_nojar.py runs.
pytestmark = needs_jar

LINES = ["2.10", "2.11", "2.12", "2.14", "2.15"]
FILES = [("map_cases.jsonl", None)] + [(f"servers/{line}/mappings.jsonl", line) for line in LINES]


# --------------------------------------------------------------------------------------------------
# The jar as the oracle


def _java_error(e: Exception):
    return getattr(e, "_origin", None) or getattr(e, "java_exception", None)


def jar_plan(spark, text: str, line=None):
    """("ok", the jar's planJson) or ("err", the jar's InvalidMappingsException message)."""
    versions = spark._jvm.subjxform.engine.ServerVersion
    version = versions.parse(line) if line else versions.Newest()
    try:
        return "ok", json.loads(spark._jvm.subjxform.config.MappingTable.compile(text, version).planJson())
    except Exception as e:  # py4j hands the JVM's exception over, converted or not
        java = _java_error(e)
        if java is None:
            raise
        assert java.getClass().getSimpleName() == "InvalidMappingsException", java.toString()
        return "err", java.getMessage()


def portable_plan(text: str, line=None):
    try:
        return "ok", mapping_table.compile_mappings(text, line).plan()
    except mapping_table.InvalidMappings as e:
        return "err", str(e)


def golden_tables(name):
    seen = {}
    for c in golden(name):
        seen.setdefault(c["mappings"], []).append(c)
    return seen


# --------------------------------------------------------------------------------------------------
# Golden tables: no Spark needed for the pinned answers; the jar for the exact table and text


@pytest.mark.parametrize("name,line", FILES, ids=[n for n, _ in FILES])
def test_every_golden_table_is_accepted_or_refused_as_pinned_and_maps_as_pinned(name, line):
    wrong = []
    for text, cases in golden_tables(name).items():
        kind, got = portable_plan(text, line)
        for c in cases:
            if not c["accepted"]:
                if kind != "err" or c["error"] not in got:
                    wrong.append((c["id"], "should be refused", c["error"], got if kind == "err" else "accepted"))
                continue
            if kind == "err":
                wrong.append((c["id"], "refused", got))
                continue
            table = mapping_table.compile_mappings(text, line)
            # Every accepted golden table is deterministic: every draw gives the pinned answer.
            for draw in (0, 37, 99):
                out = mapping_table.map_reference(table, c["subject"], None, draw)
                if out != c["expected"]:
                    wrong.append((c["id"], draw, out, c["expected"]))
    assert not wrong, (len(wrong), wrong[:10])


@pytest.mark.parametrize("name,line", FILES, ids=[n for n, _ in FILES])
def test_every_golden_table_reads_as_the_jar_reads_it(spark, name, line):
    wrong = []
    for text in golden_tables(name):
        expected, got = jar_plan(spark, text, line), portable_plan(text, line)
        if expected != got:
            wrong.append((text, expected, got))
    assert not wrong, (len(wrong), wrong[:5])


# --------------------------------------------------------------------------------------------------
# nats-server config syntax, written many ways

CONFIG_TEXTS = [
    # the README's and docs' blocks
    'orders.flush  orders.central.flush\n\torders.* "orders.central.{{wildcard(1)}}"\n',
    'mappings {\n  # orders\n  "orders.*.*": [\n    { destination: "orders.v1.{{partition(8,2)}}.{{wildcard(1)}}.{{wildcard(2)}}", weight: 95% }\n'
    '    { destination: "orders.v2.{{partition(8,2)}}.{{wildcard(1)}}.{{wildcard(2)}}", weight: 5% }  # canary\n  ]\n}',
    'mappings = {\n "foo":[\n  {destination:"foo.west", weight: 100%, cluster: "west"},\n'
    '  {destination:"foo.central", weight: 100%, cluster: "central"},\n  {destination:"foo.east", weight: 100%, cluster: "east"}\n ]\n}',
    "myservice.requests: [\n { destination: myservice.requests.v1, weight: 98% },\n { destination: myservice.requests.v2, weight: 2% }\n]",
    "foo.loss.>: [ { destination: foo.loss.>, weight: 50% } ]",
    "foo.loss.>: [ { destination: foo.loss.>, weight: 0% } ]",
    "myservice.requests: [{ destination: myservice.requests.v3, weight: 90% }, { destination: myservice.requests.v3.fail, weight: 8% }]",
    # separators, quoting, comments, braces
    "{ a.* = 'b.$1'; c: d, e f # comment\n g: [] // c\n }",
    "a=b\nc:d\ne f\n'g' \"h\"\n\"i.*\": 'j.$1'",
    "// leading comment\n# another\n{ a: b } # trailing\n",
    "a: b }",
    "{ a: b",
    "a: [b, c]",
    "a: [{destination: b, weight: 50}, {destination: c, weight: 50}]",
    'a: [{dest: "x.{{partition(3)}}", weight: "40%"}, {Destination: y, WEIGHT: 60}]',
    "a: [{destination: b, weight: 101%}]",
    "a: [{destination: b, weight: -1}]",
    "a: [{destination: b, weight: 1.5}]",
    "a: [{destination: b, weight: abc}]",
    "a: [{destination: b}]",
    "a: [{weight: 10}]",
    "a: [{destination: b, weight: 10, color: red}]",
    "a: [{destination: 5, weight: 10}]",
    "a: [{destination: b, weight: 10, cluster: 5}]",
    "a: [{destination: b, weight: 60}, {destination: c, weight: 60}]",
    "a: [{destination: b, weight: 60, cluster: x}, {destination: c, weight: 60, cluster: y}]",
    "a: [{destination: b, weight: 50}, {destination: b, weight: 10}]",
    "a: [{destination: a, weight: 30}, {destination: b, weight: 30}]",
    "a.*: [{destination: 'b.$1', weight: 50, cluster: east}, {destination: 'c.$1', weight: 100, cluster: west}, {destination: 'a.$1', weight: 20}]",
    "a: 5",
    "a: true",
    "a: {destination: b, weight: 100}",
    "a: {}",
    "a: [5]",
    "'a b': c",
    "a..b: c",
    "a.>.b: c",
    "a: x.{{wildcard(1)}}",
    "a.*: x.{{wildcard(1)}}",
    "a.*: 'x.{{wildcard(2)}}'",
    'a.*: "x.{{nope(1)}}"',
    'a.*: "x.*"',
    # numbers, sizes, dates, booleans, addresses, variables, escapes
    "a: 1k\nb: 98%\nc: 1.5\nd: 2020-01-01T00:00:00Z\ne: true\nf: -3\ng: 127.0.0.1:4222",
    "a: [{destination: b, weight: 1k}]",
    "a: [{destination: b, weight: 99999999999999999999}]",
    "a: [{destination: b, weight: 10e}]",
    "v: x.y\na: $v\nb: [{destination: $v, weight: 10}]",
    "a: $nope",
    "a: \"b\\x41\\t\"\nc: 'd\\e'\n e: f\\ng\n",
    'a: "b\\q"',
    "include other.conf",
    "a: (b)",
    "a: .5",
    "a: -x",
    "a:\n b",
    "a: ,",
    "a: [,]",
    "a: [b c]",
    "a: ]",
    "= a",
    # JSON, JWT entries, Python shapes
    '{"a.*": [{"subject": "b.$1", "weight": 0, "cluster": "c"}], "x": null}',
    '{"a": [{"subject": "b", "weight": 300}]}',
    '{"a": [{"subject": "b", "weight": "50"}]}',
    '{"a": [{"weight": 50}]}',
    '{"a": [{"subject": "b", "weight": 60}, {"subject": "c", "weight": 60}]}',
    '{"a": "b", "a": "c"}',
    "[1, 2]",
    '"a"',
    "null",
    '{"a": "b\\u00e9"}',
    '{"a": 1e400}',
    '{"a": 12345678901234567890}',
    "",
    "   ",
    "# only a comment",
]


def test_config_syntax_reads_as_the_jar_reads_it(spark):
    wrong = []
    for text in CONFIG_TEXTS:
        expected, got = jar_plan(spark, text), portable_plan(text)
        if expected != got:
            wrong.append((text, expected, got))
    assert not wrong, (len(wrong), wrong[:5])
    # Both answers occur: the list is not all refusals or all accepted.
    kinds = {portable_plan(t)[0] for t in CONFIG_TEXTS}
    assert kinds == {"ok", "err"}


_ALPHABET = list(" \t\n{}[]:=,;#/'\"$%.*>-0123456789abkKmxe\\()") + [
    "{{",
    "}}",
    "//",
    "weight",
    "destination",
    "cluster",
    "include ",
    "mappings",
    "subject",
    "\u00a0",
    "\u0663",
    "é",
]


def _mutate(rng: random.Random, text: str) -> str:
    s = list(text)
    for _ in range(rng.randint(1, 4)):
        op, i = rng.random(), rng.randint(0, len(s))
        if op < 0.4 and s:
            del s[min(i, len(s) - 1)]
        elif op < 0.8:
            s.insert(i, rng.choice(_ALPHABET))
        elif s:
            s[min(i, len(s) - 1)] = rng.choice(_ALPHABET)
    return "".join(s)


def test_randomly_mutated_tables_read_as_the_jar_reads_them(spark):
    rng = random.Random(20)
    texts = [_mutate(rng, rng.choice(CONFIG_TEXTS[:12] + CONFIG_TEXTS[-16:-4])) for _ in range(1500)]
    wrong = []
    accepted = 0
    for text in texts:
        expected, got = jar_plan(spark, text), portable_plan(text)
        accepted += expected[0] == "ok"
        if expected != got:
            wrong.append((text, expected, got))
    assert not wrong, (len(wrong), wrong[:5])
    assert accepted > 100  # enough of them are tables, not only errors


def test_an_unquoted_function_destination_is_refused_with_the_contracts_words():
    with pytest.raises(mapping_table.InvalidMappings) as e:
        mapping_table.compile_mappings("orders.*: orders.{{wildcard(1)}}")
    assert "unquoted destination on line 1 holds {{...}}" in str(e.value)
    assert 'put the destination in quotes: "orders.{{wildcard(1)}}"' in str(e.value)


def test_a_python_dict_is_the_same_table_as_its_json():
    d = {
        "svc": [{"destination": "svc.v1", "weight": "98%"}, {"destination": "svc.v2", "weight": 2}],
        "orders.*": "orders.central.{{wildcard(1)}}",
    }
    assert mapping_table.compile_mappings(d).plan() == mapping_table.compile_mappings(json.dumps(d)).plan()
    with pytest.raises(TypeError):
        mapping_table.compile_mappings(["svc"])


def test_the_model_keeps_the_engines_order_weights_remainder_and_scopes():
    t = mapping_table.compile_mappings(
        'a.*: "w.$1"\n'
        "a.b: [{destination: x, weight: 30%}, {destination: y, weight: 20%}, {destination: z, weight: 100%, cluster: c}]\n"
        "l.>: [{destination: l.>, weight: 40%}]\n"
    )
    wild, lit, loss = t.rules
    assert (wild.literal, wild.wildcard, lit.literal, lit.wildcard) == (False, True, True, False)
    assert [d.destination for d in lit.default.destinations] == ["x", "y", "a.b"]  # the remainder: the identity
    assert lit.default.running_totals == (30, 50, 100) and lit.default.fixed == mapping_table.DRAW
    assert (lit.default.remainder_weight, lit.default.remainder_drops) == (50, False)
    assert lit.choice("c").fixed == 0 and lit.choice("elsewhere") is lit.default
    assert (loss.default.remainder_weight, loss.default.remainder_drops) == (60, True)
    # the literal rule is found first although written second; a draw past the running totals is the remainder
    assert mapping_table.map_reference(t, "a.b", draw=10) == "x"
    assert mapping_table.map_reference(t, "a.b", draw=49) == "y"
    assert mapping_table.map_reference(t, "a.b", draw=50) == "a.b"
    assert mapping_table.map_reference(t, "a.b", "c", draw=99) == "z"
    assert mapping_table.map_reference(t, "a.q") == "w.q"
    assert (
        mapping_table.map_reference(t, "l.m.n", draw=39) == "l.m.n"
        and mapping_table.map_reference(t, "l.m.n", draw=40) is None
    )
    assert mapping_table.map_reference(t, "zzz") == "zzz" and mapping_table.map_reference(t, "a..b") is None


def test_rule_salts_equal_the_jars(spark):
    text = 'orders.*: "a.$1"\n"svc.é": [{destination: x, weight: 50}]\n"∑.>": [{destination: "∑.>", weight: 5}]'
    jt = spark._jvm.subjxform.config.MappingTable.compile(text)
    ours = mapping_table.compile_mappings(text)
    assert [r.salt for r in ours.rules] == [jt.rules()[i].salt() for i in range(len(ours.rules))]
    # and the draw they feed, on random (seed, key) pairs
    kd = spark._jvm.subjxform.engine.KeyedDraw
    rng = random.Random(5)
    for _ in range(300):
        seed, key, salt = (rng.getrandbits(64) - 2**63 for _ in range(3))
        assert keyed_below(100, seed, key, salt) == kd.below(100, seed, key, salt)


# --------------------------------------------------------------------------------------------------
# The expressions: portable == jar (== the pinned answer), side by side in one DataFrame

from pyspark.sql import functions as F  # noqa: E402

import subjxform  # noqa: E402
from subjxform.grammar import mapping_table  # noqa: E402
from subjxform.portable import InvalidArgumentValue, NeedsTheJar  # noqa: E402
from subjxform.portable import _map_build as MB  # noqa: E402
from subjxform.portable import subject_map as portable_map  # noqa: E402
from subjxform.portable import subject_map_explain as portable_explain  # noqa: E402
from subjxform.portable._expr import function_names  # noqa: E402

# The contract's file in the default run; each server line's file (the same tables, other answers) when
# SUBJXFORM_PORTABLE_LINES=1: the portable trees are large and slow to compile (see the report), so six files
# side by side take minutes.
SIDE_BY_SIDE = FILES if os.environ.get("SUBJXFORM_PORTABLE_LINES") == "1" else FILES[:1]


@pytest.mark.parametrize("name,line", SIDE_BY_SIDE, ids=[n for n, _ in SIDE_BY_SIDE])
def test_every_accepted_golden_case_portable_equals_jar_equals_expected(spark, name, line):
    cases = [c for c in golden(name) if c["accepted"]]
    tables = sorted({c["mappings"] for c in cases})
    df = spark.createDataFrame([(c["subject"],) for c in cases], "subject string").distinct()
    cols = []
    for k, t in enumerate(tables):
        cols.append(portable_map("subject", t, server_version=line).alias(f"p{k}"))
        cols.append(subjxform.subject_map("subject", t, server_version=line).alias(f"j{k}"))
        cols.append(portable_explain("subject", t, server_version=line).alias(f"pe{k}"))
        cols.append(subjxform.subject_map_explain("subject", t, server_version=line).alias(f"je{k}"))
    rows = {r["subject"]: r for r in df.select("subject", *cols).collect()}
    wrong = []
    for c in cases:
        k = tables.index(c["mappings"])
        r = rows[c["subject"]]
        if not (r[f"p{k}"] == r[f"j{k}"] == c["expected"]) or r[f"pe{k}"] != r[f"je{k}"]:
            wrong.append((c["id"], r[f"p{k}"], r[f"j{k}"], c["expected"], r[f"pe{k}"], r[f"je{k}"]))
    assert not wrong, (len(wrong), wrong[:5])


def test_a_refused_table_raises_the_jars_text_before_any_query(spark):
    text = '{"a": [{"destination": "b", "weight": 60}, {"destination": "c", "weight": 60}]}'
    with pytest.raises(InvalidArgumentValue) as e:
        portable_map("subject", text)
    assert ("err", e.value.reason) == jar_plan(spark, text)
    # the whole message is the jar's analysis error, up to Spark's SQLSTATE suffix
    with pytest.raises(Exception) as jar_error:
        spark.range(1).select(subjxform.subject_map(F.lit("a"), text)).collect()
    assert str(jar_error.value).startswith(str(e.value).removesuffix(" SQLSTATE: 22023")), (
        str(jar_error.value),
        str(e.value),
    )
    with pytest.raises(NeedsTheJar, match="needs the jar"):
        portable_map("subject", F.col("table"))
    with pytest.raises(TypeError, match="seed must be an integer"):
        portable_map("subject", {"a": "b"}, seed=1.5)


KEYED_TABLE = """
orders.*.*: [
  { destination: "orders.v1.{{partition(8,2)}}.$1.$2", weight: 60% }
  { destination: "orders.v2.{{random(5)}}.$2", weight: 25% }
  { destination: "orders.v3.$1", weight: 100%, cluster: east }
]
svc: [{destination: svc.v1, weight: 50}, {destination: svc.v2, weight: 30}, {destination: svc, weight: 10}]
loss.>: [{destination: "loss.>", weight: 35}, {destination: "kept.>", weight: 15, cluster: west}]
"""


def _keyed_frame(spark, n):
    subjects = [
        "orders.eu.c%d" % (i % 97) if i % 3 == 0 else "svc" if i % 3 == 1 else "loss.x.%d" % i for i in range(n)
    ]
    clusters = [None, "east", "west", "nowhere"]
    return spark.createDataFrame(
        [(s, f"id-{i}", clusters[i % 4]) for i, s in enumerate(subjects)], "subject string, id string, cluster string"
    )


def test_keyed_draws_are_the_jars_row_by_row(spark):
    df = _keyed_frame(spark, 2400)
    cluster = F.col("cluster")  # per row (a str would be one constant cluster name)
    out = df.select(
        portable_map("subject", KEYED_TABLE, cluster, seed=42, key="id").alias("p"),
        subjxform.subject_map("subject", KEYED_TABLE, cluster, seed=42, key="id").alias("j"),
        portable_explain("subject", KEYED_TABLE, cluster, key="id").alias("pe"),
        subjxform.subject_map_explain("subject", KEYED_TABLE, cluster, key="id").alias("je"),
    ).collect()
    wrong = [r for r in out if r["p"] != r["j"] or r["pe"] != r["je"]]
    assert not wrong, (len(wrong), wrong[:5])
    # The draws did vary: every written destination, the remainder and the loss occur.
    outcomes = {(r["je"]["destination"], r["je"]["outcome"]) for r in out}
    assert {
        ("orders.v2.{{random(5)}}.$2", "mapped"),
        ("svc", "unchanged"),
        (None, "dropped"),
        ("orders.v3.$1", "mapped"),
        ("kept.>", "mapped"),
    } <= outcomes


def test_the_seed_changes_keyed_draws_as_the_jars(spark):
    df = _keyed_frame(spark, 600).where("subject = 'svc'")
    out = df.select(
        portable_map("subject", KEYED_TABLE, seed=7, key="id").alias("p"),
        subjxform.subject_map("subject", KEYED_TABLE, seed=7, key="id").alias("j"),
        portable_map("subject", KEYED_TABLE, seed=8, key="id").alias("q"),
    ).collect()
    assert all(r["p"] == r["j"] for r in out)
    assert any(r["p"] != r["q"] for r in out)


def _binomial_ok(count, n, p, z=4.5):
    return abs(count - n * p) <= z * math.sqrt(n * p * (1 - p))


def test_unkeyed_frequencies_follow_the_weights_and_explain_agrees_with_itself(spark):
    n = 20000
    table = {
        "svc": [{"destination": "svc.v1", "weight": 70}, {"destination": "svc.v2", "weight": 20}],
        "drop.x": [{"destination": "drop.x", "weight": 25}],
    }
    df = spark.range(n).select(F.when(F.col("id") % 2 == 0, F.lit("svc")).otherwise(F.lit("drop.x")).alias("subject"))
    r = df.select(
        portable_map("subject", table, seed=3).alias("m"), portable_explain("subject", table, seed=3).alias("e")
    )
    counts = {row["m"]: row["c"] for row in r.groupBy("m").agg(F.count("*").alias("c")).collect()}
    half = n // 2
    assert _binomial_ok(counts.get("svc.v1", 0), half, 0.70)
    assert _binomial_ok(counts.get("svc.v2", 0), half, 0.20)
    assert _binomial_ok(counts.get("svc", 0), half, 0.10)
    assert _binomial_ok(counts.get("drop.x", 0), half, 0.25)
    assert _binomial_ok(counts.get(None, 0), half, 0.75)
    # One draw per row inside the explanation: its destination, outcome and result always agree.
    e = r.select("e.*").groupBy("destination", "remainder", "outcome", "result").count().collect()
    combos = {(x["destination"], x["remainder"], x["outcome"], x["result"]) for x in e}
    assert combos == {
        ("svc.v1", False, "mapped", "svc.v1"),
        ("svc.v2", False, "mapped", "svc.v2"),
        (None, True, "unchanged", "svc"),
        ("drop.x", False, "unchanged", "drop.x"),
        (None, True, "dropped", None),
    }
    # The same seed repeats the draws; another seed does not.
    again = df.select(portable_map("subject", table, seed=3).alias("m")).collect()
    assert [x["m"] for x in again] == [x["m"] for x in r.select("m").collect()]


def test_the_tree_names_only_sparks_builtin_functions():
    t = mapping_table.compile_mappings(KEYED_TABLE)
    from subjxform.portable._expr import Input

    for tree in (
        MB.map_tree(t, MB.MapDraws(1, Input("key")), Input("cluster")),
        MB.explain_tree(t, MB.MapDraws(1, None), Input("cluster")),
    ):
        names = function_names(tree)
        assert not any(n.startswith("subject") for n in names), names
        assert {"elt", "element_at", "xxhash64"} & names
