"""subjxform.portable where no jar is: a local session and a Spark Connect server both started without it
(SUBJXFORM_SPARK_MODE=nojar / nojar-connect; conftest checks that the session really lacks the functions).
The jar's answers are the golden files' (the jar agrees with every case; test_portable_transforms and
test_portable_mappings put the two paths side by side where the jar is), and for keyed draws the plain-Python
reference of the jar's draw. The generated SQL text and `subjxform sql` run here too."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest
from pyspark.sql import functions as F

from conftest import HAS_JAR, golden
from subjxform import portable
from subjxform.grammar import mapping_table
from subjxform.grammar.keyed_draw import keyed_below
from test_golden import as_delivered, fits, from_hex

pytestmark = pytest.mark.skipif(HAS_JAR, reason="where the jar is, the side-by-side suites compare with it")

LINES = ["2.10", "2.11", "2.12", "2.14", "2.15"]
TRANSFORMS = 120  # distinct golden transforms run through Spark (the grammar test takes every case, in Python)
CHUNK = 40


def subjects_frame(session, subjects):
    """Any byte strings as a STRING column (through unhex, so invalid UTF-8 stays as it is)."""
    rows = [(i, s.encode("utf-8", "surrogatepass").hex()) for i, s in enumerate(subjects)]
    return session.createDataFrame(rows, "i int, h string").select(
        "i", F.expr("cast(unhex(h) as string)").alias("subject")
    )


def golden_transforms():
    cases = [dict(c, line=None) for c in as_delivered(golden("transform_cases.jsonl"))]
    for line in LINES:
        cases += [
            dict(c, line=line)
            for c in as_delivered(golden(f"servers/{line}/transforms.jsonl"))
            # the line's own differences, and the non-ASCII cases through the byte-counting functions
            if (line != "2.15" and c.get("differs_from_2_15")) or (line == "2.15" and c["id"].startswith("bytes-"))
        ]
    by_transform: dict = {}
    for c in cases:
        if c["subject"] is not None and c["accepted"] and ("expected" in c or c.get("random")):
            by_transform.setdefault((c["src"], c["dest"], c["line"]), []).append(c)
    items = sorted(by_transform.items(), key=lambda kv: (str(kv[0][2]), kv[0][0], kv[0][1]))
    # every line's differing transforms, and a seeded sample of the rest
    differing = [kv for kv in items if kv[0][2] is not None]
    shared = [kv for kv in items if kv[0][2] is None]
    return differing + random.Random(11).sample(shared, max(0, TRANSFORMS - len(differing)))


def test_golden_transforms_give_the_expected_subject_without_the_jar(session):
    items = golden_transforms()
    wrong, compared = [], 0
    for start in range(0, len(items), CHUNK):
        chunk = items[start : start + CHUNK]
        subjects = sorted({c["subject"] for _, cs in chunk for c in cs})
        index = {s: i for i, s in enumerate(subjects)}
        cols = [
            F.hex(
                portable.try_subject_transform("subject", src, dest, server_version=line, key="subject", seed=7)
            ).alias(f"p{k}")
            for k, ((src, dest, line), _) in enumerate(chunk)
        ]
        rows = {r["i"]: r for r in subjects_frame(session, subjects).select("i", *cols).collect()}
        for k, (_, cs) in enumerate(chunk):
            for c in cs:
                compared += 1
                got = from_hex(rows[index[c["subject"]]][f"p{k}"])
                if not fits(c, got):
                    wrong.append((c["id"], c["line"], c["src"], c["dest"], c["subject"], got, c.get("expected")))
    assert not wrong, (len(wrong), wrong[:10])
    assert len(items) >= TRANSFORMS and compared > 250, (len(items), compared)


def test_golden_mappings_give_the_expected_subject_without_the_jar(session):
    cases = [c for c in golden("map_cases.jsonl") if c["accepted"]]
    tables = sorted({c["mappings"] for c in cases})
    subjects = sorted({c["subject"] for c in cases if c["subject"] is not None})
    index = {s: i for i, s in enumerate(subjects)}
    # As hex: a result cut inside a character is no UTF-8, which a Spark Connect client cannot collect as a string
    # (UnicodeDecodeError); decoded here as classic PySpark shows it, and as the golden file has it (U+FFFD).
    cols = [F.hex(portable.subject_map("subject", t)).alias(f"m{k}") for k, t in enumerate(tables)]
    rows = {
        r["i"]: {
            k: v if k == "i" or v is None else bytes.fromhex(v).decode("utf-8", "replace")
            for k, v in r.asDict().items()
        }
        for r in subjects_frame(session, subjects).select("i", *cols).collect()
    }
    wrong = [
        (c["id"], c["subject"], rows[index[c["subject"]]][f"m{tables.index(c['mappings'])}"], c["expected"])
        for c in cases
        if c["subject"] is not None and rows[index[c["subject"]]][f"m{tables.index(c['mappings'])}"] != c["expected"]
    ]
    assert not wrong, (len(wrong), wrong[:10])


KEYED_TABLE = {
    "orders.*.*": [
        {"destination": "orders.v1.{{partition(8,2)}}.$1.$2", "weight": "60%"},
        {"destination": "orders.v2.$2", "weight": "25%"},
    ],
    "billing.>": [{"destination": "billing.a.>", "weight": "50%"}, {"destination": "billing.b.>", "weight": "50%"}],
}


def test_keyed_draws_are_the_jars_draw_without_the_jar(session):
    """The jar's draw for (seed, xxhash64(key), rule) — the plain-Python reference, itself checked against the
    jar in test_portable_mappings — row by row."""
    table = mapping_table.compile_mappings(KEYED_TABLE)
    df = session.range(600).select(
        "id",
        F.expr("CASE WHEN id % 3 = 0 THEN concat('billing.', id) ELSE concat('orders.r', id % 7, '.c', id) END").alias(
            "subject"
        ),
    )
    rows = df.select(
        "id",
        "subject",
        F.xxhash64("id").alias("digest"),
        portable.subject_map("subject", KEYED_TABLE, seed=42, key="id").alias("m"),
    ).collect()
    wrong = []
    for r in rows:
        rule = mapping_table.find_rule(table, r["subject"])
        draw = keyed_below(100, 42, r["digest"], rule.salt)
        expected = mapping_table.map_reference(table, r["subject"], None, draw)
        if r["m"] != expected:
            wrong.append((r["id"], r["subject"], r["m"], expected))
    assert not wrong, wrong[:5]
    outcomes = {
        r["m"].split(".")[1] if r["m"].split(".")[1] in ("v1", "v2") else "kept"
        for r in rows
        if r["subject"].startswith("orders")
    }
    assert outcomes == {"v1", "v2", "kept"}  # 60%, 25% and the unchanged remainder all drawn


def test_the_sql_text_runs_in_spark_sql_and_gives_the_same(session):
    subjects = ["orders.eu.c1", "orders.us.c22", "billing.x.y", "a..b", "telemetry.eu.dev1.temp"]
    subjects_frame(session, subjects).createOrReplaceTempView("portable_subjects")
    transform_sql = portable.sql_expression("subject_transform", "subject", "*.*.>", "$2.{{partition(4,1)}}.$1.>")
    map_sql = portable.sql_expression("subject_map", "subject", json.dumps(KEYED_TABLE), seed=3, key="i")
    by_sql = session.sql(f"SELECT i, {transform_sql} AS t, {map_sql} AS m FROM portable_subjects ORDER BY i").collect()
    by_column = (
        subjects_frame(session, subjects)
        .select(
            "i",
            portable.subject_transform("subject", "*.*.>", "$2.{{partition(4,1)}}.$1.>").alias("t"),
            portable.subject_map("subject", KEYED_TABLE, seed=3, key="i").alias("m"),
        )
        .orderBy("i")
        .collect()
    )
    assert [tuple(r) for r in by_sql] == [tuple(r) for r in by_column]
    assert by_sql[3]["t"] is None and by_sql[0]["t"].startswith("eu.")


def test_subjxform_sql_turns_a_config_block_into_a_view_that_runs(session, tmp_path):
    config = tmp_path / "server.conf"
    config.write_text(
        'port: 4222\nmappings {\n  orders.*.*: "orders.{{partition(8,2)}}.$1.$2"\n  legacy.>: "archive.>"\n}\n',
        encoding="utf-8",
    )
    subjects = ["orders.eu.c1", "legacy.a.b", "other.x"]
    subjects_frame(session, subjects).createOrReplaceTempView("traffic")
    out = subprocess.run(
        [sys.executable, "-m", "subjxform", "sql", str(config), "--view", "mapped", "--from", "traffic"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("CREATE OR REPLACE TEMPORARY VIEW mapped AS")
    session.sql(out.stdout)
    got = {
        r["subject"]: r["mapped_subject"] for r in session.sql("SELECT subject, mapped_subject FROM mapped").collect()
    }
    expected = {
        r["subject"]: r["m"]
        for r in subjects_frame(session, subjects)
        .select(
            "subject",
            portable.subject_map(
                "subject", {"orders.*.*": "orders.{{partition(8,2)}}.$1.$2", "legacy.>": "archive.>"}
            ).alias("m"),
        )
        .collect()
    }
    assert got == expected and got["other.x"] == "other.x" and got["legacy.a.b"] == "archive.a.b"


def test_an_invalid_constant_fails_before_any_query_with_the_jars_text(session):
    with pytest.raises(portable.InvalidArgumentValue) as e:
        portable.subject_transform("subject", "a.*", "b.{{wildcard(2)}}")
    message = str(e.value)
    assert message.startswith(
        "[INVALID_PARAMETER_VALUE.PATTERN] The value of parameter(s) `dest` in `subject_transform` is invalid: "
    ), message
    assert "wildcard index out of range in {{wildcard(2)}}" in message, message
    with pytest.raises(portable.NeedsTheJar):
        portable.subject_transform("subject", F.col("src"), "b.$1")
