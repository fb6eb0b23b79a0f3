"""subjxform.portable side by side with the jar in one session: every golden transform case, random
transforms and subjects (invalid UTF-8 and non-ASCII included), keyed draws, unkeyed uniformity, the SQL
text, the error texts, and a guard that the portable trees name no subjxform function."""

from __future__ import annotations

import math
import random
import re
import time

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

import subjxform
import transform_gen as gen
from conftest import classic_only, golden, needs_jar
from subjxform import portable
from subjxform.grammar.subject_transform import InvalidTransform, compile_transform
from subjxform.portable import _expr
from test_golden import as_delivered, fits, from_hex, nats_reason

# Side by side with the jar (Spark 4.2's full run); where no jar is, test_portable_nojar.py runs.
pytestmark = needs_jar

LINES = ["2.10", "2.11", "2.12", "2.14", "2.15"]
CHUNK = 40  # transforms per DataFrame: one query compiles many constant transforms at once
# The side-by-side golden test takes one transform of each stratum: the function names a destination
# writes, as written (case counts), and whether it ends in `>`. The strata number 412 of the 1,023 distinct
# golden transforms, so GOLDEN_SAMPLE // len(strata) is 0 and one of each is taken (the 60 was meant when
# the strata were fewer). The grammar and the plain-Python reference evaluator check every golden case
# (test_portable_grammar.py).
GOLDEN_SAMPLE = 60


def kind(dest: str) -> tuple:
    import re as _re

    return tuple(sorted(set(_re.findall(r"[a-zA-Z]+(?=\s*\()", dest)))) + (">" if dest.endswith(">") else "",)


def side_by_side(spark, transforms, subjects, key=None, seed=None):
    """One DataFrame of `subjects` (str, or bytes: any byte string), a portable and a jar column per
    (src, dest, line) of `transforms`; {(subject, k): (portable, jar)}, each result read from its bytes (not
    UTF-8: surrogate escapes; a collected STRING would show U+FFFD there)."""
    rows = [
        (i, s.hex() if isinstance(s, bytes) else s.encode("utf-8", "surrogatepass").hex())
        for i, s in enumerate(subjects)
    ]
    df = spark.createDataFrame(rows, "i int, h string").select("i", F.expr("cast(unhex(h) as string)").alias("subject"))
    cols = []
    for k, (src, dest, line) in enumerate(transforms):
        kw = dict(server_version=line, seed=seed, key=key)
        cols.append(F.hex(portable.try_subject_transform("subject", src, dest, **kw)).alias(f"p{k}"))
        cols.append(F.hex(subjxform.try_subject_transform("subject", src, dest, **kw)).alias(f"j{k}"))
    out = {}
    for r in df.select("i", *cols).collect():
        for k in range(len(transforms)):
            out[(r["i"], k)] = (from_hex(r[f"p{k}"]), from_hex(r[f"j{k}"]))
    return out


def golden_cases():
    cases = [dict(c, line=None) for c in as_delivered(golden("transform_cases.jsonl"))]
    for line in LINES:
        cases += [
            dict(c, line=line)
            for c in as_delivered(golden(f"servers/{line}/transforms.jsonl"))
            # the per-line files repeat the shared cases: keep what the line does otherwise
            if line != "2.15" and (c.get("differs_from_2_15") or not c["accepted"] or c.get("nats_crashed"))
        ]
    return [c for c in cases if c["subject"] is not None and c["accepted"] and ("expected" in c or c.get("random"))]


def test_every_golden_case_gives_the_jars_answer_and_the_expected_one(spark):
    cases = golden_cases()
    by_transform: dict = {}
    for c in cases:
        by_transform.setdefault((c["src"], c["dest"], c["line"]), []).append(c)
    strata: dict = {}
    for item in by_transform.items():
        strata.setdefault(kind(item[0][1]), []).append(item)
    r = random.Random(20)
    items, per = [], max(1, GOLDEN_SAMPLE // len(strata))
    for group in strata.values():
        items += r.sample(group, min(per, len(group)))
    wrong, compared = [], 0
    started = time.time()
    for start in range(0, len(items), CHUNK):
        chunk = items[start : start + CHUNK]
        subjects = sorted({c["subject"] for _, cs in chunk for c in cs})
        index = {s: i for i, s in enumerate(subjects)}
        # keyed, so that random tokens agree too; every subject through every transform of the chunk
        out = side_by_side(spark, [t for t, _ in chunk], subjects, key="subject", seed=7)
        for (i, k), (p, j) in out.items():
            compared += 1
            if p != j:
                wrong.append(("jar", chunk[k][0], subjects[i], p, j))
        for k, (_, cs) in enumerate(chunk):
            for c in cs:
                p, _ = out[(index[c["subject"]], k)]
                if not fits(c, p):
                    wrong.append(
                        ("golden", c["id"], c["line"], c["src"], c["dest"], c["subject"], p, c.get("expected"))
                    )
    assert not wrong, (len(wrong), wrong[:10])
    assert compared > 800 and len(items) >= 40, (compared, len(items))
    print(f"{len(items)} transforms, {compared} comparisons in {time.time() - started:.1f}s")


def one_per_reason(cases):
    seen = {}
    for c in cases:
        if not c["accepted"]:
            seen.setdefault((c["line"], nats_reason(c["error"]).split(" in ")[0]), c)
    return list(seen.values())


def test_refused_cases_raise_the_jars_text_before_any_query_and_try_gives_null(spark):
    refused = [dict(c, line=None) for c in golden("transform_cases.jsonl")]
    for line in LINES:
        refused += [dict(c, line=line) for c in golden(f"servers/{line}/transforms.jsonl")]
    refused = [c for c in refused if not c["accepted"]]
    # every refused case: refused with nats-server's reason (no Spark involved)
    for c in refused:
        with pytest.raises(portable.InvalidArgumentValue) as err:
            portable.subject_transform("subject", c["src"], c["dest"], server_version=c["line"])
        assert nats_reason(c["error"]) in str(err.value), (c["id"], str(err.value))
    # one per kind of reason and line: the very text of the jar's analysis error
    df = spark.createDataFrame([("x",)], "subject string")
    for c in one_per_reason(refused):
        with pytest.raises(portable.InvalidArgumentValue) as mine:
            portable.subject_transform("subject", c["src"], c["dest"], server_version=c["line"])
        with pytest.raises(AnalysisException) as jar:
            df.select(subjxform.subject_transform("subject", c["src"], c["dest"], server_version=c["line"])).schema
        assert str(jar.value).startswith(str(mine.value)), (str(mine.value), str(jar.value)[:500])
    assert df.select(portable.try_subject_transform("subject", "a.*", "x.$2")).first()[0] is None


def invalid_utf8_variants(r: random.Random, subject: str) -> list:
    """The subject's bytes with a token's bytes replaced by invalid UTF-8 (a lone continuation byte, a
    cut sequence, 0xFF), so partition hashes and character counts meet every byte string."""
    out = []
    raw = subject.encode("utf-8", "surrogatepass")
    for bad in (b"\x80", b"\xc3", b"\xffab", b"a\xe2\x82", b"\xc3\xa9\xa9x", b"\xf0\x9f\x99"):
        toks = raw.split(b".")
        i = r.randrange(len(toks))
        toks[i] = bad + toks[i] if r.random() < 0.5 else toks[i] + bad
        out.append(b".".join(toks))
    return out


@pytest.mark.parametrize("seed", [1])
def test_random_transforms_and_subjects_agree_with_the_jar(spark, seed):
    r = random.Random(seed)
    transforms, subjects = [], []
    while len(transforms) < 30:
        src = gen.source(r)
        dest = gen.destination(r, src)
        line = r.choice(LINES)
        try:
            compile_transform(src, dest, False, line)
        except InvalidTransform:
            continue
        transforms.append((src, dest, line))
        for s in gen.subjects_for(r, src, 6):
            subjects.append(s)
            subjects.extend(invalid_utf8_variants(r, s)[:2])
    out = side_by_side(spark, transforms, subjects, key="subject", seed=seed)
    wrong = [(transforms[k], subjects[i], p, j) for (i, k), (p, j) in out.items() if p != j]
    assert not wrong, (len(wrong), wrong[:10])
    matched = sum(1 for p, j in out.values() if j is not None)
    assert len(out) > 10_000 and matched > 200, (len(out), matched)


def test_partition_equals_the_jar_for_long_and_invalid_keys(spark):
    """Keys past the unrolled FNV chain (the aggregate path) and every byte value."""
    r = random.Random(5)
    subjects = []
    for n in (1, 31, 32, 33, 64, 200, 1000):
        for _ in range(20):
            subjects.append(b"p." + bytes(r.choice([x for x in range(256) if x != 0x2E]) for _ in range(n)))
    transforms = [
        ("p.*", "{{partition(16,1)}}", None),
        ("p.>", "{{partition(4294967295)}}.>", None),
        ("p.*", "{{slicefromleft(1,3)}}.{{right(1,5)}}.{{splitfromright(1,2)}}", None),
        ("p.*", "{{split(1,a)}}.{{split(1,)}}.{{slicefromright(1,4)}}", None),
    ]
    out = side_by_side(spark, transforms, subjects)
    wrong = [(transforms[k], subjects[i], p, j) for (i, k), (p, j) in out.items() if p != j]
    assert not wrong, (len(wrong), wrong[:5])
    assert sum(1 for p, _ in out.values() if p is not None) > 300


def test_slices_of_every_length_agree_with_the_jar(spark):
    """A token is sliced by substrings of its bytes up to _build._SLICED_BY_SUBSTRINGS bytes, by a regex over its
    bytes beyond, whatever the bytes are: every length around those bounds, every piece size up to past them."""
    r = random.Random(11)
    subjects = [b"p." + bytes(r.choice(b"abcxyz-_09") for _ in range(n)) for n in range(1, 60)]
    subjects += [b"p." + "é".encode() * n for n in (1, 2, 5, 13)] + [b"p.ab\xc3", b"p.\x80\x80abc"]
    transforms = [
        ("p.*", f"{{{{{op}(1,{k})}}}}", None)
        for op in ("slicefromleft", "slicefromright")
        for k in (1, 2, 3, 5, 7, 24, 25)
    ]
    # (four transforms a query: fourteen side by side with the jar's grow past Spark's 64 KB method limit)
    out = []
    for first in range(0, len(transforms), 4):
        some = transforms[first : first + 4]
        out += [(some[k], subjects[i], p, j) for (i, k), (p, j) in side_by_side(spark, some, subjects).items()]
    wrong = [o for o in out if o[2] != o[3]]
    assert not wrong, (len(wrong), wrong[:5])
    assert sum(1 for *_, p, _ in out if p is not None and "." in p) > 500


@classic_only
def test_a_transform_compiles_to_a_method_hotspot_compiles(session):
    """HotSpot compiles no method of more than 8000 bytes of bytecode (-XX:+DontCompileHugeMethods, its default):
    a bigger one runs interpreted. The whole-stage method of a query over one transform stays under it, each
    character function alone and destinations of several (issue 31: a slice alone cut by substrings, its output
    written four times in the generated code, made 9441 bytes; written once, 2120)."""
    df = session.range(4).selectExpr("concat('a.b-c.', id) AS subject")
    destinations = [
        "$1.{{slicefromleft(2,3)}}.>",
        "{{slicefromright(2,2)}}.$1.>",
        "{{left(2,3)}}.{{right(1,2)}}.>",
        "{{splitfromleft(1,2)}}.{{splitfromright(2,3)}}.>",
        "$1.{{split(2,-)}}.{{slicefromleft(2,3)}}.>",
        "$1.{{partition(16,2)}}.$2.>",
        "$2.$1.>",
    ]
    adaptive = session.conf.get("spark.sql.adaptive.enabled")
    session.conf.set("spark.sql.adaptive.enabled", "false")  # (else the plan is not yet cut into subtrees)
    try:
        for dest in destinations:
            q = df.select(portable.subject_transform("subject", "*.*.>", dest).alias("r")).agg(F.sum(F.length("r")))
            plan = session._jvm.PythonSQLUtils.explainString(q._jdf.queryExecution(), "codegen")
            sizes = [int(n) for n in re.findall(r"maxMethodCodeSize:(\d+)", plan)]
            assert sizes and max(sizes) <= 8000, (dest, sizes)
    finally:
        session.conf.set("spark.sql.adaptive.enabled", adaptive)


def test_keyed_draws_equal_the_jars_for_ints_strings_and_null_keys(spark):
    df = spark.range(3000).select(
        F.concat(F.lit("svc."), F.col("id")).alias("subject"),
        F.col("id").alias("n"),
        F.when(F.col("id") % 7 == 0, F.lit(None)).otherwise(F.concat(F.lit("m-"), F.col("id"))).alias("s"),
    )
    cols = []
    for _name, key in (("n", "n"), ("s", "s")):
        for seed in (None, 42, -(2**63)):
            for src, dest in (("svc.*", "{{random(1000)}}.{{random(3)}}.$1"), ("svc.>", "{{Random(-2147483648)}}.>")):
                kw = dict(seed=seed, key=key)
                cols += [
                    portable.subject_transform("subject", src, dest, **kw),
                    subjxform.subject_transform("subject", src, dest, **kw),
                ]
    rows = df.select(*[c.alias(f"c{i}") for i, c in enumerate(cols)]).collect()
    wrong = [
        (i, r[f"c{i}"], r[f"c{i + 1}"]) for r in rows for i in range(0, len(cols), 2) if r[f"c{i}"] != r[f"c{i + 1}"]
    ]
    assert not wrong, (len(wrong), wrong[:5])
    assert len({r["c0"] for r in rows}) > 500  # the draws vary with the key


def test_unkeyed_random_is_uniform_and_a_seed_repeats(spark):
    df = spark.range(0, 50_000, 1, 4).select(F.lit("svc.x").alias("subject"))
    col = portable.subject_transform("subject", "svc.*", "{{random(10)}}", seed=11)
    counts = {r[0]: r[1] for r in df.groupBy(col.alias("t")).count().collect()}
    assert set(counts) == {str(i) for i in range(10)}
    chi2 = sum((c - 5000) ** 2 / 5000 for c in counts.values())
    assert chi2 < 33.7, counts  # chi-square, 9 degrees of freedom, p = 0.0001
    again = {
        r[0]: r[1]
        for r in df.groupBy(portable.subject_transform("subject", "svc.*", "{{random(10)}}", seed=11).alias("t"))
        .count()
        .collect()
    }
    assert again == counts
    two = df.select(portable.subject_transform("subject", "svc.*", "{{random(2)}}.{{random(2)}}").alias("t"))
    pairs = {r[0]: r[1] for r in two.groupBy("t").count().collect()}
    assert set(pairs) == {"0.0", "0.1", "1.0", "1.1"}  # the two tokens draw independently
    assert all(abs(c - 12_500) < 5 * math.sqrt(50_000 * 0.25 * 0.75) for c in pairs.values()), pairs


def test_sql_text_gives_what_the_column_gives(spark):
    subjects = ["orders.eu.42", "orders.é日.x-y--z", "orders.a", "a.*.b", "orders.\u00ff.1\n2"]
    df = spark.createDataFrame([(s,) for s in subjects] + [(None,)], "subject string")
    df.createOrReplaceTempView("portable_subjects")
    forms = [
        ("subject_transform", ("orders.*.*", "x.{{partition(5,1,2)}}.{{slicefromleft(2,2)}}.$1"), {}),
        ("subject_transform", ("orders.*.*", "x.{{random(100)}}.{{split(2,-)}}"), {"seed": 3, "key": "subject"}),
        ("try_subject_transform", ("orders.*.*", "x.$3"), {}),
        ("subject_transform", ("orders.*.>", "y.{{left(1,1)}}.>"), {"server_version": "2.15"}),
        ("subject_matches", ("orders.*.>",), {}),
        ("subject_filter_transform", ([("orders.*.*", "z.$2"), ("orders.*", "")],), {}),
        ("try_subject_filter_transform", ([("a.>", ""), ("a.b", "x")],), {}),
    ]
    for name, args, kw in forms:
        sql = portable.sql_expression(name, "subject", *args, **kw)
        by_sql = [r[0] for r in spark.sql(f"SELECT {sql} FROM portable_subjects").collect()]
        ckw = dict(kw)
        if "key" in ckw:
            ckw["key"] = F.col(ckw["key"])
        by_column = [r[0] for r in df.select(getattr(portable, name)("subject", *args, **ckw)).collect()]
        jar = [r[0] for r in df.select(getattr(subjxform, name)("subject", *args, **ckw)).collect()]
        assert by_sql == by_column == jar, (name, args, by_sql, by_column, jar)


def test_columns_that_share_a_destination_run_together_as_the_jar(spark):
    """Two columns (and two rules of one table) whose destinations are written the same, with a split (its empty
    tokens are dropped): the pieces they share are computed once a row, and the too-long error they also share
    must stay where only a too-long result reaches it (see _build.bounded)."""
    df = spark.range(2000).selectExpr("concat(if(id % 2 = 0, 'a.', 'b.'), 'x-', id, '.tail') AS subject").cache()
    dest = "out.{{split(1,-)}}.>"
    both = {"a.*.>": dest, "b.*.>": dest}
    pairs = [
        (subjxform.subject_transform("subject", "a.*.>", dest), portable.subject_transform("subject", "a.*.>", dest)),
        (subjxform.subject_transform("subject", "b.*.>", dest), portable.subject_transform("subject", "b.*.>", dest)),
        (subjxform.subject_map("subject", both), portable.subject_map("subject", both)),
    ]
    columns = [c.alias(f"{side}{i}") for i, pair in enumerate(pairs) for side, c in zip("jp", pair)]
    rows = df.select(*columns).collect()
    wrong = [r for r in rows for i in range(len(pairs)) if r[f"j{i}"] != r[f"p{i}"]]
    assert len(rows) == 2000 and not wrong, wrong[:3]
    assert {r["p0"] for r in rows} - {None} and {r["p2"] for r in rows} - {None}


def test_filter_forms_agree_with_the_jar(spark):
    subjects = ["foo", "bar", "baz", "a.b", "a.b.c", "x.--", "$KV.A.k1", "*", "a..b", "u.--"]
    df = spark.createDataFrame([(s,) for s in subjects], "subject string")
    lists = [
        [("foo", "foo-transformed"), ("bar", "")],
        [("$KV.A.>", "$KV.B.>")],
        [],
        [("u.*", "v.{{split(1,-)}}")],
        [("", "all.>")],
        [{"src": "a.*", "dest": "x.$1"}, {"src": "a.*.c"}],
    ]
    for lst in lists:
        got = [
            tuple(r)
            for r in df.select(
                portable.subject_filter_transform("subject", lst), subjxform.subject_filter_transform("subject", lst)
            ).collect()
        ]
        assert all(p == j for p, j in got), (lst, got)
    for flt in ("a.*", "*.>", ">", "foo", "*x"):
        got = [
            tuple(r)
            for r in df.select(
                portable.subject_matches("subject", flt), subjxform.subject_matches("subject", flt)
            ).collect()
        ]
        assert all(p == j for p, j in got), (flt, got)
    bad = [("a.>", ""), ("a.b", "x")]
    with pytest.raises(portable.InvalidArgumentValue) as mine:
        portable.subject_filter_transform("subject", bad)
    with pytest.raises(AnalysisException) as jar:
        df.select(subjxform.subject_filter_transform("subject", bad)).schema
    assert str(jar.value).startswith(str(mine.value)), (str(mine.value), str(jar.value)[:300])
    assert df.select(portable.try_subject_filter_transform("subject", bad)).first()[0] is None
    with pytest.raises(portable.InvalidArgumentValue, match="`filter` in `subject_matches`"):
        portable.subject_matches("subject", "a..b")


def test_arguments_are_checked_as_the_jar_paths_functions_check_them():
    with pytest.raises(portable.NeedsTheJar, match="needs the jar"):
        portable.subject_transform("subject", F.col("src"), "x")
    with pytest.raises(portable.NeedsTheJar, match="needs the jar"):
        portable.subject_filter_transform("subject", F.array())
    with pytest.raises(TypeError, match="strict must be True or False"):
        portable.subject_transform("subject", "a", "b", strict="yes")
    with pytest.raises(TypeError, match="seed must be an integer"):
        portable.subject_transform("subject", "a", "b", seed=1.5)
    with pytest.raises(TypeError, match="dest must be a str"):
        portable.subject_transform("subject", "a", 3)
    with pytest.raises(portable.InvalidArgumentValue, match="`server_version` in `subject_transform`.*unsupported"):
        portable.subject_transform("subject", "a", "b", server_version="2.9")


def test_no_tree_names_a_subjxform_function():
    trees = [
        portable.tree_of(
            "subject_transform",
            "a.*.>",
            "{{partition(3,1)}}.{{random(5)}}.{{split(1,-)}}.{{left(1,1)}}.>",
            seed=1,
            key="k",
        ),
        portable.tree_of("subject_transform", "a.*", "{{random(5)}}"),
        portable.tree_of("subject_matches", "a.*"),
        portable.tree_of("subject_filter_transform", [("a.*", "b.{{slicefromright(1,2)}}")]),
    ]
    names = set().union(*(_expr.function_names(t) for t in trees))
    assert not {n for n in names if "subject" in n or "subjxform" in n}, names
    assert {"substring_index", "xxhash64", "rand", "regexp_replace"} <= names
