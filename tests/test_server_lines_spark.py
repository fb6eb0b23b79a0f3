"""Every server line's golden cases (tests/golden/servers/<line>/, produced by that line's real nats-server
binary: tests/server_lines_golden.py regenerates them) through Spark: SQL with the line chosen by the
session conf ``spark.subjxform.serverVersion`` and by the named argument ``server_version => ...``, and the
Python API's ``server_version=`` keyword. One DataFrame per line and way, so every line costs a few
queries, not one per case."""

from __future__ import annotations

import json
import re
from contextlib import contextmanager

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

from conftest import GOLDEN
from subjxform.functions import subject_map, subject_transform, try_subject_transform
from test_golden import as_delivered, fits, from_hex, nats_reason

LINES = ("2.10", "2.11", "2.12", "2.14", "2.15")
CONF = "spark.subjxform.serverVersion"


def cases(line: str, name: str) -> list[dict]:
    with open(GOLDEN / "servers" / line / name, encoding="utf-8") as f:
        return as_delivered([json.loads(x) for x in f if x.strip()])


@contextmanager
def server_conf(spark, line):
    spark.conf.set(CONF, line)
    try:
        yield
    finally:
        spark.conf.unset(CONF)


def test_the_lines_are_the_engines():
    assert sorted(p.name for p in (GOLDEN / "servers").iterdir()) == sorted(LINES)


def check_transforms(line: str, out: dict) -> list:
    """Failures: an accepted case that does not give the binary's delivery, a rejected one that is not NULL."""
    failures = []
    for i, c in enumerate(cases(line, "transforms.jsonl")):
        if c["subject"] is None or (c["accepted"] and "expected" not in c and not c.get("random")):
            continue
        want = c if c["accepted"] else {"expected": None}
        if not fits(want, out[i]):
            failures.append((c["id"], c["src"], c["dest"], c["subject"], out[i], c.get("expected"), c.get("error")))
    return failures


def transform_frame(spark, line):
    rows = [
        (i, c["subject"], c["src"], c["dest"])
        for i, c in enumerate(cases(line, "transforms.jsonl"))
        if c["subject"] is not None
    ]
    return spark.createDataFrame(rows, "i int, subject string, src string, dest string")


@pytest.mark.parametrize("line", LINES)
def test_transform_cases_with_the_line_chosen_every_way(spark, line):
    df = transform_frame(spark, line)

    # Read from the results' bytes (hex): a character cut in two is no UTF-8, which a collected STRING shows as U+FFFD.
    def results(frame) -> dict:
        return {i: from_hex(h) for i, h in frame.collect()}

    named = results(df.selectExpr("i", f"hex(try_subject_transform(subject, src, dest, server_version => '{line}'))"))
    keyword = results(
        df.select("i", F.hex(try_subject_transform("subject", F.col("src"), F.col("dest"), server_version=line)))
    )
    with server_conf(spark, line):
        by_conf = results(df.selectExpr("i", "hex(try_subject_transform(subject, src, dest))"))
    for way, out in (("named", named), ("keyword", keyword), ("conf", by_conf)):
        failures = check_transforms(line, out)
        assert not failures, (way, len(failures), failures[:10])


def reason_class(error: str) -> str:
    """A reason without the token it names: one case of each kind of refusal is asked at analysis."""
    return re.sub(r"\{\{.*", "", nats_reason(error)).strip()


def one_per_reason(line: str, name: str) -> list[dict]:
    seen: dict[str, dict] = {}
    for c in cases(line, name):
        if not c["accepted"]:
            seen.setdefault(reason_class(c["error"]), c)
    return list(seen.values())


@pytest.mark.parametrize("line", LINES)
def test_refused_transforms_fail_analysis_with_the_lines_reason(spark, line):
    df = spark.createDataFrame([("x",)], "subject string")
    wrong = []
    for c in one_per_reason(line, "transforms.jsonl"):
        for way in ("keyword", "conf"):
            try:
                if way == "keyword":
                    df.select(subject_transform("subject", c["src"], c["dest"], server_version=line)).schema
                else:
                    with server_conf(spark, line):
                        df.select(subject_transform("subject", c["src"], c["dest"])).schema
                wrong.append((way, c["id"], "accepted"))
            except AnalysisException as e:
                if nats_reason(c["error"]) not in str(e):
                    wrong.append((way, c["id"], nats_reason(c["error"]), str(e)[:300]))
    assert not wrong, wrong[:10]


@pytest.mark.parametrize("line", LINES)
def test_map_cases_with_the_line_chosen_every_way(spark, line):
    all_cases = cases(line, "mappings.jsonl")
    accepted = [(i, c["subject"], c["mappings"]) for i, c in enumerate(all_cases) if c["accepted"]]
    df = spark.createDataFrame(accepted, "i int, subject string, mappings string")
    named = dict(df.selectExpr("i", f"subject_map(subject, mappings, server_version => '{line}')").collect())
    keyword = dict(df.select("i", subject_map("subject", F.col("mappings"), server_version=line)).collect())
    with server_conf(spark, line):
        by_conf = dict(df.selectExpr("i", "subject_map(subject, mappings)").collect())
    for way, out in (("named", named), ("keyword", keyword), ("conf", by_conf)):
        wrong = [
            (all_cases[i]["id"], out[i], all_cases[i]["expected"])
            for i, _, _ in accepted
            if out[i] != all_cases[i]["expected"]
        ]
        assert not wrong, (way, wrong[:10])
    # A refused table fails analysis with the line's reason (one table per kind of refusal).
    for c in one_per_reason(line, "mappings.jsonl"):
        with pytest.raises(AnalysisException) as err:
            spark.range(1).select(F.call_function("mappings_plan", F.lit(c["mappings"]), F.lit(line))).schema
        assert nats_reason(c["error"]) in str(err.value), c["id"]


def test_an_unsupported_version_is_a_clear_analysis_error(spark):
    df = spark.createDataFrame([("a.b",)], "subject string")
    for bad in ("2.9", "3.0", "newest"):
        with pytest.raises(AnalysisException) as err:
            df.select(subject_transform("subject", "a.*", "b.$1", server_version=bad)).collect()
        message = str(err.value)
        assert "server_version" in message and "2.10, 2.11, 2.12, 2.14, 2.15" in message, message
    with server_conf(spark, "1.0"):
        with pytest.raises(AnalysisException, match=r"supported lines are 2\.10, 2\.11, 2\.12, 2\.14, 2\.15"):
            df.select(subject_map("subject", {"a.*": "b.$1"})).collect()
    with pytest.raises(TypeError, match="server_version must be a str"):
        subject_transform("subject", "a.*", "b.$1", server_version=2.10)


def test_a_release_names_its_line_and_the_argument_beats_the_conf(spark):
    df = spark.createDataFrame([("foo.x",)], "subject string")
    lost = "bar.{{partition(0,1)}}"  # 2.10/2.11 crash on the message (golden probe-23); 2.12+ deliver bar.0
    with server_conf(spark, "2.10.26"):
        row = df.select(
            subject_transform("subject", "foo.*", lost).alias("conf"),
            subject_transform("subject", "foo.*", lost, server_version="2.12").alias("arg"),
        ).first()
    assert (row["conf"], row["arg"]) == (None, "bar.0")
    assert df.select(subject_transform("subject", "foo.*", lost)).first()[0] == "bar.0"  # the default: newest


def test_streams_accounts_and_scopes_compile_for_the_line_they_are_given(spark, tmp_path):
    from subjxform.accounts import replay
    from subjxform.scopes import chain, publish, server_from_config
    from subjxform.streams import StreamConfigError, stream_messages, stream_plan

    # A stream whose ingress transform uses left(): 2.15 takes it, 2.14 refuses it (golden probe-02's function).
    left = {"name": "S", "subjects": ["a.*"], "subject_transform": {"src": "a.*", "dest": "b.{{left(1,2)}}"}}
    df = spark.createDataFrame([("a.xyz",)], "subject string")
    assert [r["stored_subject"] for r in stream_messages(df, left).collect()] == ["b.xy"]
    with pytest.raises(StreamConfigError, match="left"):
        stream_plan(spark, left, server_version="2.14")
    with pytest.raises(StreamConfigError, match="left"):
        stream_messages(df, left, server_version="2.14")

    # Account mappings: partition(0, ...) is lost on 2.10 (probe-23), 0 from 2.12.
    conf = tmp_path / "server.conf"
    conf.write_text('server_name: hub\nmappings { "p.*": "q.{{partition(0,1)}}" }\n')
    msgs = spark.createDataFrame([("p.x", "$G")], "subject string, account string")
    assert [r["received_subject"] for r in replay(msgs, conf.read_text()).collect()] == ["q.0"]
    assert replay(msgs, conf.read_text(), server_version="2.10").collect() == []

    # A server in a chain runs its own line.
    old, new = server_from_config(spark, conf, server_version="2.11"), server_from_config(spark, conf)
    hops = chain(msgs, [publish(old)]).first(), chain(msgs, [publish(new)]).first()
    assert (old.server_version, hops[0]["hop1"], hops[1]["hop1"]) == ("2.11", None, "q.0")
