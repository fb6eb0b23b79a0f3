"""subjxform.portable.groups (no jar) against the goldens made with the orbit.go pcgroups library: the
config checks with the library's words, and each subject's partition and member. Runs in every mode,
the no-jar ones included."""

from __future__ import annotations

import json

import pytest

from conftest import golden
from subjxform.grammar.consumer_group import parse_group
from subjxform.portable import InvalidArgumentValue, NeedsTheJar
from subjxform.portable.groups import consumer_group_member, consumer_group_partition


def test_the_config_checks_give_the_librarys_verdict_and_words():
    for c in golden("pcgroups/validation.jsonl"):
        try:
            group, error = parse_group(c["config"]), None
        except ValueError as e:
            group, error = None, str(e)
        if c["valid"]:
            assert error is None and group.kind == c["kind"], (c["config"], error)
        elif c["error"].startswith("invalid JSON value for the "):
            assert error is not None and error.startswith("invalid JSON value for the"), (c["config"], error)
        elif c["error"].startswith("invalid "):
            assert error == c["error"], c["config"]
        else:
            assert error is not None and error.startswith("nats-server refuses"), (c["config"], error)


def test_the_members_partition_filters_of_every_golden_case():
    for c in golden("pcgroups/assignment.jsonl"):
        g = parse_group(c["config"])
        for member, filters in c["filters"].items():
            ps = [int(f.split(".", 1)[0]) for f in filters]
            if g.owners is not None:
                assert sorted(set(ps)) == sorted(p for p, m in enumerate(g.owners) if m == member)
            else:
                assert sorted(set(ps)) == [
                    p
                    for p in range(g.max_members)
                    if g.active_members and g.active_members[g.member_index(p)] == member
                ]


def test_every_golden_subject_gets_the_librarys_partition_and_member(session):
    # One query, a pair of columns per config (each config's expression is large, ~2.5 s a config): the
    # remainder round robin, mappings, two filters, no filter ({{Partition(N)}}), static groups with filters
    # and with mappings. (Every case's assignment is checked above without Spark.)
    cases = [c for i, c in enumerate(golden("pcgroups/assignment.jsonl")) if i in (59, 63, 64, 67, 72, 73)]
    subjects = sorted({s["subject"] for c in cases for s in c["subjects"]})
    df = session.createDataFrame([(s,) for s in subjects], "subject string")
    columns = [
        f(c["config"]).alias(f"{k}{i}")
        for i, c in enumerate(cases)
        for k, f in (
            ("p", lambda g: consumer_group_partition("subject", g)),
            ("m", lambda g: consumer_group_member("subject", g)),
        )
    ]
    got = {r["subject"]: r for r in df.select("subject", *columns).collect()}
    for i, c in enumerate(cases):
        assert [(got[s["subject"]][f"p{i}"], got[s["subject"]][f"m{i}"]) for s in c["subjects"]] == [
            (s["partition"], s["member"]) for s in c["subjects"]
        ], c["config"]


def test_an_invalid_constant_config_raises_the_jars_text_and_a_column_config_needs_the_jar(session):
    with pytest.raises(InvalidArgumentValue, match="partitioning wildcard indexes must be unique"):
        consumer_group_member(
            "subject",
            {"max_members": 2, "partitioning_filters": [{"filter": "a.*.*", "partitioning_wildcards": [1, 1]}]},
        )
    from pyspark.sql import functions as F

    with pytest.raises(NeedsTheJar):
        consumer_group_partition("subject", F.col("config"))
    assert json.loads(json.dumps({"ok": 1}))  # (the module imports without the jar)
