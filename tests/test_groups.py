"""Partitioned consumer groups (subjxform.groups, the jar's consumer_group_* functions) against the goldens
made with the orbit.go pcgroups library (tests/golden/pcgroups, tests/pcgroups_goldens.py), and the
reports over traffic whose answer is known."""

from __future__ import annotations

import json

import pytest
from pyspark.sql import functions as F

from conftest import CONNECT, golden, needs_jar
from subjxform.groups import (
    GroupConfigError,
    consumer_group_member,
    consumer_group_partition,
    consumer_group_plan,
    group_balance,
    group_diff,
)

# Part of the compatibility suite that runs on every Spark line: the consumer-group SQL functions from Python.
pytestmark = [needs_jar, pytest.mark.compat]

# CI's Spark Connect pass runs this file for the functions; the reports are DataFrame code over them (as
# tests/test_reports.py's, which that pass does not run either) and cost it a minute and a half.
classic_only = pytest.mark.skipif(CONNECT, reason="reports: checked in classic mode (CI time)")

ORDERS = {"max_members": 4, "partitioning_filters": [{"filter": "orders.*.*", "partitioning_wildcards": [2]}]}


def fnv1a(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def test_every_golden_subject_gets_the_librarys_partition_and_member(session):
    # (the scalatest suites run every case; here the special ones after the (N, members) grid and a sample of it)
    cases = [c for i, c in enumerate(golden("pcgroups/assignment.jsonl")) if i >= 60 or i % 10 == 0]
    rows = [(json.dumps(c["config"]), s["subject"], s["partition"], s["member"]) for c in cases for s in c["subjects"]]
    df = session.createDataFrame(rows, "config string, subject string, partition int, member string")
    wrong = df.where(
        ~consumer_group_partition("subject", F.col("config")).eqNullSafe(F.col("partition"))
        | ~consumer_group_member("subject", F.col("config")).eqNullSafe(F.col("member"))
    )
    assert wrong.count() == 0, wrong.limit(5).collect()


def test_the_library_refuses_what_the_config_check_refuses(session):
    for c in golden("pcgroups/validation.jsonl"):
        if c["valid"]:
            assert consumer_group_plan(session, c["config"])["kind"] == c["kind"]
        elif c["error"].startswith("invalid ") and not c["error"].startswith("invalid JSON"):
            with pytest.raises(GroupConfigError, match="^" + c["error"].replace("*", r"\*") + "$"):
                consumer_group_plan(session, c["config"])


def test_a_constant_config_is_checked_before_any_data_is_read(session):
    bad = {"max_members": 2, "partitioning_filters": [{"filter": "foo.bar"}]}
    with pytest.raises(Exception, match="partitioning filters must have at least one"):
        session.range(1).select(consumer_group_member(F.lit("foo.bar"), bad)).collect()


def _traffic(session):
    # 60 customers with a known number of orders each (customer i: i + 1 orders), 7 events not taken.
    rows = [(f"orders.eu.c{i}",) for i in range(60) for _ in range(i + 1)] + [("events.x",)] * 7
    return session.createDataFrame(rows, "subject string"), rows


@classic_only
def test_balance_counts_messages_keys_and_hot_keys_per_member_exactly(session):
    df, rows = _traffic(session)
    config = dict(ORDERS, members=["b", "a", "c"])
    report = group_balance(df, config, top_keys=3)
    # What the library's assignment gives, computed here from the hash: N=4, sorted members a, b, c:
    # partitions 0 -> a, 1 -> b, 2 -> c, 3 -> a (the remainder, round robin).
    owner = {0: "a", 1: "b", 2: "c", 3: "a"}
    expected = {m: {"messages": 0, "keys": set()} for m in "abc"}
    for i in range(60):
        m = owner[fnv1a(f"c{i}".encode()) % 4]
        expected[m]["messages"] += i + 1
        expected[m]["keys"].add(f"c{i}")
    facts = report.facts
    assert {m: (v["messages"], v["distinct_keys"]) for m, v in facts["members"].items()} == {
        m: (v["messages"], len(v["keys"])) for m, v in expected.items()
    }
    assert facts["members"]["a"]["partitions"] == 2 and facts["not_taken"] == 7 and facts["taken"] == 1830
    loads = [v["messages"] for v in expected.values()]
    assert facts["skew"] == pytest.approx(max(loads) / (sum(loads) / 3))
    assert [h[0] for h in facts["hot"]] == ["c59", "c58", "c57"]
    assert facts["hot"][0][1:] == (fnv1a(b"c59") % 4, owner[fnv1a(b"c59") % 4], 60)
    assert "skew (max/mean over members)" in report.text and report.df.count() == 3


@classic_only
def test_diff_adding_a_member_moves_exactly_the_reassigned_partitions(session):
    df, rows = _traffic(session)
    before = dict(ORDERS, members=["a", "b"])  # 0,1 -> a; 2,3 -> b
    after = dict(ORDERS, members=["a", "b", "c"])  # 0 -> a, 1 -> b, 2 -> c, 3 -> a
    old = {0: "a", 1: "a", 2: "b", 3: "b"}
    new = {0: "a", 1: "b", 2: "c", 3: "a"}
    moved = [i for i in range(60) if old[fnv1a(f"c{i}".encode()) % 4] != new[fnv1a(f"c{i}".encode()) % 4]]
    report = group_diff(df, before, after)
    assert report.facts["moved_messages"] == sum(i + 1 for i in moved)
    assert report.facts["moved_keys"] == len(moved)
    assert report.facts["total"] == len(rows)
    members = report.facts["members"]
    assert (
        sum(m["moved_in"] for m in members.values())
        == sum(m["moved_out"] for m in members.values())
        == report.facts["moved_messages"]
    )
    assert members["c"]["before"] == 0 and members["c"]["after"] == members["c"]["moved_in"]


def test_static_groups_and_mappings(session):
    config = {
        "max_members": 3,
        "filters": [],
        "member_mappings": [{"member": "x", "partitions": [2, 0]}, {"member": "y", "partitions": [1]}],
    }
    df = session.createDataFrame([("0.a",), ("1.a",), ("2.a",), ("3.a",), ("01.a",)], "subject string")
    got = df.select(
        consumer_group_partition("subject", config).alias("p"), consumer_group_member("subject", config).alias("m")
    )
    assert [tuple(r) for r in got.collect()] == [(0, "x"), (1, "y"), (2, "x"), (None, None), (None, None)]
