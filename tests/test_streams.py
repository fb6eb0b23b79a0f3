"""Stream transforms (ADR-36): the ADR's three example configs and the docs page's orders example.

Expected rows are reasoned from the ADR and the docs page, not taken from running the code.
"""

from __future__ import annotations

import json

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

from conftest import ROOT
from subjxform import subject_filter_transform, try_subject_filter_transform
from subjxform.streams import StreamConfigError, kv_source, kv_source_transform, stream_messages, stream_plan

# Part of the compatibility suite that runs on every Spark line (scripts/test-lines.sh).
pytestmark = pytest.mark.compat

CONFIGS = ROOT / "tests" / "streams"


def config(name: str) -> str:
    return (CONFIGS / name).read_text(encoding="utf-8")


def messages(session, rows):
    return session.createDataFrame(rows, "subject string, stream string")


def stored(df) -> set:
    return {(r.subject, r.stream, r.stored_subject, r.republished_subject) for r in df.collect()}


def test_adr36_mirror_with_two_transforms_renames_foo_keeps_bar_drops_the_rest(session):
    df = messages(
        session,
        [
            ("foo", "sourcedstream"),
            ("bar", "sourcedstream"),
            ("baz", "sourcedstream"),
            ("foo", None),
            ("foo", "otherstream"),
        ],
    )
    out = stream_messages(df, config("adr36_mirror_two_transforms.json"), origin_col="stream")
    # A mirror has no subjects: nothing published directly is stored; only its origin is read.
    assert stored(out) == {("foo", "sourcedstream", "foo-transformed", None), ("bar", "sourcedstream", "bar", None)}


def test_adr36_sourcing_the_same_stream_twice_one_filter_each(session):
    df = messages(session, [("foo", "sourcedstream"), ("bar", "sourcedstream"), ("baz", "sourcedstream")])
    out = stream_messages(df, config("adr36_source_twice.json"), origin_col="stream")
    assert stored(out) == {
        ("foo", "sourcedstream", "foo-transformed", None),
        ("bar", "sourcedstream", "bar-transformed", None),
    }


def test_adr36_two_sources_and_an_ingress_transform(session):
    df = messages(
        session,
        [
            ("stream1.foo.a", "source1"),
            ("stream1.bar.b.c", "source1"),
            ("stream1.baz", "source1"),
            ("stream2.foo.x", "source2"),
            ("stream2.bar.y", "source2"),
            ("stream2.baz", "source2"),
            ("stream1.foo.a", "source2"),
            ("foo.x", None),
            ("foo.x", "source1"),
        ],
    )
    out = stream_messages(df, config("adr36_two_sources_with_ingress.json"), origin_col="stream")
    # source1 is sourced twice with disjoint filters; source2's transforms rename; the stream has no
    # subjects of its own, and no stored subject starts with "foo.", so the ingress transform never applies.
    assert stored(out) == {
        ("stream1.foo.a", "source1", "stream1.foo.a", None),
        ("stream1.bar.b.c", "source1", "stream1.bar.b.c", None),
        ("stream2.foo.x", "source2", "foo2.x", None),
        ("stream2.bar.y", "source2", "bar2.y", None),
    }


def test_the_ingress_transform_applies_to_sourced_messages_too(session):
    cfg = json.loads(config("adr36_two_sources_with_ingress.json"))
    cfg["sources"].append({"name": "source3"})  # no filter: everything from source3
    df = messages(session, [("foo.x.y", "source3"), ("bar.x", "source3")])
    out = stream_messages(df, cfg, origin_col="stream")
    assert stored(out) == {("foo.x.y", "source3", "mapped.foo.x.y", None), ("bar.x", "source3", "bar.x", None)}


def test_docs_orders_example_republish_sees_the_stored_subject(session):
    df = messages(
        session,
        [
            ("orders.local.1", None),  # direct, in subjects: ingress gives orders.1, republished as orders.trace.1
            ("orders.online.2", None),  # direct, not in subjects
            ("orders.local.a.b", None),  # direct, one token too many for orders.local.*
            ("orders.online.3", "other_orders"),  # the source renames it orders.3; ingress leaves it
            ("orders.local.4", "other_orders"),  # the source's filter does not take it
            ("orders.online.5", "elsewhere"),  # not a source of this stream
        ],
    )
    out = stream_messages(df, config("docs_orders.json"), origin_col="stream")
    assert stored(out) == {
        ("orders.local.1", None, "orders.1", "orders.trace.1"),
        ("orders.online.3", "other_orders", "orders.3", "orders.trace.3"),
    }


def test_without_an_origin_column_every_message_is_a_direct_publish(session):
    df = session.createDataFrame([("orders.local.7", 1), ("orders.online.3", 2)], "subject string, id int")
    out = stream_messages(df, config("docs_orders.json"))
    assert [tuple(r) for r in out.collect()] == [("orders.local.7", 1, "orders.7", "orders.trace.7")]


def test_a_stream_without_subjects_or_sources_listens_on_its_name(session):
    df = session.createDataFrame([("ORDERS",), ("ORDERS.x",)], "subject string")
    assert [r.stored_subject for r in stream_messages(df, {"name": "ORDERS"}).collect()] == ["ORDERS"]


def test_two_sources_of_one_stream_with_overlapping_filters_store_a_message_twice(session):
    cfg = {"name": "S", "sources": [{"name": "A", "filter_subject": "a.>"}, {"name": "A", "filter_subject": "a.b"}]}
    df = messages(session, [("a.b", "A"), ("a.c", "A")])
    rows = sorted(r.stored_subject for r in stream_messages(df, cfg, origin_col="stream").collect())
    assert rows == ["a.b", "a.b", "a.c"]


def test_nats_stream_info_json_is_accepted(session):
    info = {"config": json.loads(config("adr36_source_twice.json")), "state": {"messages": 0}, "created": "x"}
    df = messages(session, [("foo", "sourcedstream")])
    assert stored(stream_messages(df, info, origin_col="stream")) == {("foo", "sourcedstream", "foo-transformed", None)}


def test_republish_defaults_as_nats_server_applies_them(session):
    df = session.createDataFrame([("s.a",)], "subject string")
    # An empty src is ">".
    all_ = stream_messages(df, {"name": "S", "subjects": ["s.>"], "republish": {"dest": "r.>"}})
    assert [r.republished_subject for r in all_.collect()] == ["r.s.a"]
    # An empty dest: nats-server creates the stream but builds no republish transform.
    none = stream_messages(df, {"name": "S", "subjects": ["s.>"], "republish": {"src": "s.>", "dest": ""}})
    assert [r.republished_subject for r in none.collect()] == [None]
    # ">" -> ">" with an ingress transform from the only subject: republishes the stored subject.
    implicit = stream_messages(
        df,
        {
            "name": "S",
            "subjects": ["s.>"],
            "subject_transform": {"src": "s.>", "dest": "t.>"},
            "republish": {"src": ">", "dest": ">"},
        },
    )
    assert [(r.stored_subject, r.republished_subject) for r in implicit.collect()] == [("t.a", "t.a")]


def test_a_source_with_white_space_is_accepted_where_nats_server_accepts_it_and_matches_nothing(session):
    # Measured with nats-server 2.10.26 to 2.15.1: a republish src is checked only as a transform's source (white
    # space passes) and republishes nothing; 2.10 checks its ingress transform's src so too and stores the subject
    # unchanged; 2.11 on refuse that one (10155).
    df = session.createDataFrame([("s.a",), ("s.x",)], "subject string")
    republish = {"name": "S", "subjects": ["s.*"], "republish": {"src": "s x", "dest": "r.x"}}
    for line in ("2.10", "2.15"):
        plan = stream_plan(session, republish, server_version=line)
        assert plan["republish"] == {"src": "s x", "dest": "r.x"}
        out = stream_messages(df, republish, server_version=line)
        assert sorted((r.stored_subject, r.republished_subject) for r in out.collect()) == [
            ("s.a", None),
            ("s.x", None),
        ]
    ingress = {"name": "S", "subjects": ["s.*"], "subject_transform": {"src": "s x.*", "dest": "t.$1"}}
    out = stream_messages(df, ingress, server_version="2.10")
    assert sorted(r.stored_subject for r in out.collect()) == ["s.a", "s.x"]
    with pytest.raises(StreamConfigError, match="stream transform source: invalid subject s x.*"):
        stream_plan(session, ingress, server_version="2.11")


@pytest.mark.parametrize(
    "cfg, field, message",
    [
        (
            {"name": "M", "subjects": ["m"], "mirror": {"name": "A"}},
            "subjects",
            "stream mirrors can not contain subjects",
        ),
        (
            {"name": "M", "sources": [{"name": "B"}], "mirror": {"name": "A"}},
            "sources",
            "stream mirrors can not also contain other sources",
        ),
        (
            {
                "name": "S",
                "sources": [
                    {"name": "A", "filter_subject": "a.>", "subject_transforms": [{"src": "a.b", "dest": "x"}]}
                ],
            },
            "sources[0].filter_subject, sources[0].subject_transforms",
            "source with multiple subject transforms cannot also have a single subject filter",
        ),
        (
            {
                "name": "S",
                "sources": [
                    {"name": "A", "subject_transforms": [{"src": "a.>", "dest": ""}, {"src": "a.b", "dest": "x"}]}
                ],
            },
            "sources[0].subject_transforms[0], sources[0].subject_transforms[1]",
            "source filters can not overlap",
        ),
        (
            {
                "name": "S",
                "mirror": {
                    "name": "A",
                    "subject_transforms": [{"src": "a.*.c", "dest": ""}, {"src": "a.b.*", "dest": ""}],
                },
            },
            "mirror.subject_transforms[0], mirror.subject_transforms[1]",
            "mirror subject filters can not overlap",
        ),
        (
            {
                "name": "S",
                "sources": [{"name": "A", "subject_transforms": [{"src": "a.*", "dest": "b.{{wildcard(2)}}"}]}],
            },
            "sources[0].subject_transforms[0]",
            "source transform: invalid mapping destination: wildcard index out of range in {{wildcard(2)}}",
        ),
        (
            {"name": "S", "subjects": ["s.*"], "subject_transform": {"src": "s.*", "dest": "t.{{nope(1)}}"}},
            "subject_transform",
            "stream transform: invalid mapping destination: unknown function in {{nope(1)}}",
        ),
        (
            {"name": "S", "sources": [{"name": "A"}, {"name": "A"}]},
            "sources[0], sources[1]",
            "duplicate source configuration detected",
        ),
        (
            {"name": "S", "subjects": ["s.>"], "republish": {"src": "s.>", "dest": "s.x.>"}},
            "republish.dest",
            "stream configuration for republish destination forms a cycle",
        ),
    ],
)
def test_configs_nats_server_rejects_are_rejected_naming_the_field(session, cfg, field, message):
    with pytest.raises(StreamConfigError) as e:
        stream_plan(session, cfg)
    assert str(e.value).startswith(f"{field}: {message}")


def test_the_docs_page_republish_list_is_rejected_with_a_clear_error(session):
    cfg = json.loads(config("docs_orders.json"))
    cfg["republish"] = [cfg["republish"]]  # as the docs page prints it
    with pytest.raises(
        StreamConfigError,
        match=r"republish: invalid JSON: json: cannot unmarshal array into Go struct "
        r"field StreamConfigRequest.republish of type server.RePublish .*must be one object.*"
        r"\(nats-server error 10025\)",
    ):
        stream_plan(session, cfg)


def test_kv_bucket_sourcing(session):
    assert kv_source_transform("A", "B") == {"src": "$KV.A.>", "dest": "$KV.B.>"}
    with pytest.raises(ValueError):
        kv_source_transform("a.b", "B")
    cfg = {"name": "KV_B", "subjects": ["$KV.B.>"], "sources": [kv_source("A", "B")]}
    df = messages(session, [("$KV.A.k1", "KV_A"), ("$KV.B.k2", None), ("$KV.A.k3", None)])
    assert stored(stream_messages(df, cfg, origin_col="stream")) == {
        ("$KV.A.k1", "KV_A", "$KV.B.k1", None),
        ("$KV.B.k2", None, "$KV.B.k2", None),
    }


def test_subject_filter_transform_from_python_lists_dicts_and_columns(session):
    df = session.createDataFrame(
        [
            ("foo", '[{"src":"foo","dest":"foo-transformed"},{"src":"bar"}]'),
            ("bar", '[{"src":"bar","dest":"b"}]'),
            ("baz", "[]"),
        ],
        "subject string, transforms string",
    )
    as_column = F.from_json("transforms", "array<struct<src:string,dest:string>>")
    out = df.select(
        subject_filter_transform("subject", [("foo", "foo-transformed"), ("bar", "")]).alias("pairs"),
        subject_filter_transform("subject", [{"src": "foo", "dest": "foo-transformed"}, {"src": "bar"}]).alias("dicts"),
        subject_filter_transform("subject", as_column).alias("column"),
    ).collect()
    assert [tuple(r) for r in out] == [
        ("foo-transformed", "foo-transformed", "foo-transformed"),
        ("bar", "bar", "b"),
        (None, None, "baz"),  # an empty list takes everything
    ]


def test_a_constant_list_from_python_is_deterministic_usable_inside_an_aggregate(session):
    df = session.range(10).select(F.concat(F.lit("foo."), F.col("id").cast("string")).alias("subject"))
    renamed = subject_filter_transform("subject", [("foo.*", "x.$1")])
    assert df.agg(F.sum(F.length(renamed))).first()[0] == 10 * len("x.0")


def test_an_invalid_constant_list_fails_analysis_try_gives_null(session):
    df = session.createDataFrame([("a.b",)], "subject string")
    with pytest.raises(AnalysisException, match="source filters can not overlap"):
        df.select(subject_filter_transform("subject", [("a.>", ""), ("a.b", "x")])).collect()
    assert df.select(try_subject_filter_transform("subject", [("a.>", ""), ("a.b", "x")])).first()[0] is None
