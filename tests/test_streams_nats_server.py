"""The stream API against a real nats-server: the same configs and messages, what the server stores and
republishes vs what stream_messages computes, and the server's rejections vs ours. Skipped when
nats-server is not on PATH."""

from __future__ import annotations

import json
import shutil
import time

import pytest

from conftest import ROOT
from nats_client import NatsClient, jetstream_server
from subjxform.streams import StreamConfigError, stream_messages, stream_plan

pytestmark = pytest.mark.skipif(shutil.which("nats-server") is None, reason="nats-server is not on PATH")


@pytest.fixture(scope="module")
def nats():
    with jetstream_server() as port:
        client = NatsClient(port)
        client.subscribe(">")  # sees republished messages (and everything else)
        yield client
        client.close()


def create(nats, cfg: dict) -> dict:
    return nats.request(f"$JS.API.STREAM.CREATE.{cfg['name']}", cfg)


def publish(nats, subject: str) -> None:
    ack = nats.request(subject, b"x")
    assert "error" not in ack, ack


def stored_subjects(nats, stream: str, expected_count: int, timeout: float = 10) -> dict:
    """The stream's subjects and counts once it holds `expected_count` messages (sourcing is async),
    or after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        info = nats.request(f"$JS.API.STREAM.INFO.{stream}", {"subjects_filter": ">"})
        state = info["state"]
        if state["messages"] >= expected_count or time.monotonic() > deadline:
            return state.get("subjects", {})
        time.sleep(0.05)


def ours(session, cfg, rows):
    df = session.createDataFrame(rows, "subject string, stream string")
    out = stream_messages(df, cfg, origin_col="stream").collect()
    stored, republished = {}, sorted(r.republished_subject for r in out if r.republished_subject)
    for r in out:
        stored[r.stored_subject] = stored.get(r.stored_subject, 0) + 1
    return stored, republished


def test_docs_orders_example_on_the_server_and_in_spark(session, nats):
    cfg = json.loads((ROOT / "tests" / "streams" / "docs_orders.json").read_text())
    assert "error" not in create(nats, {"name": "other_orders", "subjects": ["orders.online.*"]})
    assert "error" not in create(nats, cfg)
    publish(nats, "orders.local.1")
    publish(nats, "orders.online.3")
    publish(nats, "orders.online.4")
    server = stored_subjects(nats, "orders", 3)
    time.sleep(0.2)
    server_republished = sorted(nats.received("orders.trace."))
    rows = [
        ("orders.local.1", None),
        ("orders.online.3", "other_orders"),
        ("orders.online.4", "other_orders"),
        ("orders.online.3", None),
        ("orders.online.4", None),
    ]  # what other_orders' subjects reach directly too
    assert (server, server_republished) == ours(session, cfg, rows)
    assert server == {"orders.1": 1, "orders.3": 1, "orders.4": 1}


def test_an_empty_dest_does_not_stop_a_later_transform_on_the_server_and_in_spark(session, nats):
    assert "error" not in create(nats, {"name": "A", "subjects": ["a.>"]})
    cfg = {
        "name": "S3",
        "sources": [
            {"name": "A", "subject_transforms": [{"src": "a.*.c", "dest": ""}, {"src": "a.b.*", "dest": "x.$1"}]}
        ],
    }
    assert "error" not in create(nats, cfg)
    for s in ["a.b.c", "a.z.c", "a.b.z", "a.q"]:
        publish(nats, s)
    server = stored_subjects(nats, "S3", 3)
    assert server == ours(session, cfg, [(s, "A") for s in ["a.b.c", "a.z.c", "a.b.z", "a.q"]])[0]
    assert server == {"x.c": 1, "a.z.c": 1, "x.z": 1}


def test_a_republish_with_an_empty_dest_republishes_nothing(session, nats):
    cfg = {"name": "R", "subjects": ["r.>"], "republish": {"src": "r.>", "dest": ""}}
    assert "error" not in create(nats, cfg)
    before = len(nats.msgs)
    publish(nats, "r.1")
    time.sleep(0.3)
    with nats.lock:
        seen = [s for s, _ in nats.msgs[before:] if not s.startswith("_INBOX.") and not s.startswith("$JS.")]
    assert seen == ["r.1"]  # only our own publish
    assert ours(session, cfg, [("r.1", None)]) == ({"r.1": 1}, [])


@pytest.mark.parametrize(
    "cfg",
    [
        {
            "name": "E1",
            "sources": [{"name": "A", "subject_transforms": [{"src": "a.>", "dest": ""}, {"src": "a.b", "dest": "x"}]}],
        },
        {"name": "E2", "subjects": ["e2"], "mirror": {"name": "A"}},
        {
            "name": "E3",
            "mirror": {"name": "A", "subject_transforms": [{"src": "a.*.c", "dest": ""}, {"src": "a.b.*", "dest": ""}]},
        },
        {
            "name": "E4",
            "sources": [{"name": "A", "filter_subject": "a.>", "subject_transforms": [{"src": "a.b", "dest": ""}]}],
        },
        {"name": "E5", "sources": [{"name": "A", "subject_transforms": [{"src": "a.*", "dest": "b.{{wildcard(2)}}"}]}]},
        {"name": "E6", "subjects": ["e6.*"], "subject_transform": {"src": "e6.*", "dest": "f.{{nope(1)}}"}},
        {"name": "E7", "sources": [{"name": "A"}, {"name": "A"}]},
        {"name": "E8", "subjects": ["e8.>"], "republish": {"src": "e8.>", "dest": "e8.x.>"}},
    ],
)
def test_configs_the_server_rejects_we_reject_with_its_error(session, nats, cfg):
    error = create(nats, cfg).get("error")
    assert error is not None
    with pytest.raises(StreamConfigError) as ours_:
        stream_plan(session, cfg)
    assert f": {error['description']}" in str(ours_.value)
    assert f"(nats-server error {error['err_code']})" in str(ours_.value)


@pytest.mark.parametrize(
    "name, kind, transforms, renamed",
    [
        # A source's consumer filters on its transforms' sources: an empty one makes it fail.
        ("N1", "source", [{"src": "", "dest": "x.>"}], False),
        # A mirror with one transform uses no filter at all: everything, renamed.
        ("N2", "mirror", [{"src": "", "dest": "x.>"}], True),
        ("N3", "mirror", [{"src": "", "dest": ""}, {"src": "q", "dest": "y"}], False),
    ],
)
def test_an_empty_transform_source_on_the_server_and_in_spark(session, nats, name, kind, transforms, renamed):
    origin, prefix = f"O_{name}", name.lower()
    assert "error" not in create(nats, {"name": origin, "subjects": [f"{prefix}.>"]})
    entry = {"name": origin, "subject_transforms": transforms}
    cfg = {"name": name, **({"mirror": entry} if kind == "mirror" else {"sources": [entry]})}
    assert "error" not in create(nats, cfg)
    subjects = [f"{prefix}.1", f"{prefix}.b.c"]
    for s in subjects:
        publish(nats, s)
    takes = {f"x.{s}": 1 for s in subjects} if renamed else {}
    server = stored_subjects(nats, name, 2, timeout=10 if renamed else 3)
    assert server == takes
    rows = [(s, origin) for s in subjects]
    if renamed:
        assert ours(session, cfg, rows)[0] == takes
    else:
        with pytest.warns(UserWarning, match=f"nothing is taken from {origin}"):
            assert ours(session, cfg, rows)[0] == {}


# The origins ADR-36's example configs read from, with subjects that cover each config's filters.
ADR36_ORIGINS = {"sourcedstream": ["foo", "bar", "baz"], "source1": ["stream1.>"], "source2": ["stream2.>"]}
ADR36_MESSAGES = {
    "sourcedstream": ["foo", "bar", "baz"],
    "source1": ["stream1.foo.a", "stream1.bar.b.c", "stream1.baz"],
    "source2": ["stream2.foo.x", "stream2.bar.y", "stream2.baz"],
}


@pytest.mark.parametrize("config_file", sorted(p.name for p in (ROOT / "tests" / "streams").glob("adr36_*.json")))
def test_adr36_example_configs_on_the_server_and_in_spark(session, nats, config_file):
    cfg = json.loads((ROOT / "tests" / "streams" / config_file).read_text())
    plan = stream_plan(session, cfg)
    origins = sorted({o["name"] for o in plan["origins"]})
    try:
        for origin in origins:
            assert "error" not in create(nats, {"name": origin, "subjects": ADR36_ORIGINS[origin]})
        assert "error" not in create(nats, cfg)
        rows = [(s, origin) for origin in origins for s in ADR36_MESSAGES[origin]]
        for s, _ in rows:
            publish(nats, s)
        expected = ours(session, cfg, rows)[0]
        assert expected  # every example takes something
        assert stored_subjects(nats, cfg["name"], sum(expected.values())) == expected
    finally:
        for name in [cfg["name"], *origins]:
            nats.request(f"$JS.API.STREAM.DELETE.{name}")


def test_one_origin_sourced_twice_with_overlapping_filters_is_stored_twice(session, nats):
    assert "error" not in create(nats, {"name": "T", "subjects": ["t.>"]})
    cfg = {"name": "TT", "sources": [{"name": "T", "filter_subject": "t.>"}, {"name": "T", "filter_subject": "t.a.*"}]}
    assert "error" not in create(nats, cfg)
    subjects = ["t.a.1", "t.b.2"]
    for s in subjects:
        publish(nats, s)
    server = stored_subjects(nats, "TT", 3)
    assert server == ours(session, cfg, [(s, "T") for s in subjects])[0]
    assert server == {"t.a.1": 2, "t.b.2": 1}


def test_a_stream_without_subjects_or_sources_listens_on_its_name(session, nats):
    cfg = {"name": "NAMED"}
    assert "error" not in create(nats, cfg)
    publish(nats, "NAMED")
    server = stored_subjects(nats, "NAMED", 1)
    assert server == ours(session, cfg, [("NAMED", None), ("OTHER", None)])[0] == {"NAMED": 1}


def test_the_ingress_transform_and_sourced_messages_on_the_server_and_in_spark(session, nats):
    assert "error" not in create(nats, {"name": "IN", "subjects": ["in.>"]})
    cfg = {
        "name": "ING",
        "subjects": ["own.*"],
        "sources": [{"name": "IN"}],
        "subject_transform": {"src": "*.*", "dest": "ing.$1.$2"},
    }
    assert "error" not in create(nats, cfg)
    for s in ["in.1", "in.a.b", "own.2"]:
        publish(nats, s)
    server = stored_subjects(nats, "ING", 3)
    assert server == ours(session, cfg, [("in.1", "IN"), ("in.a.b", "IN"), ("own.2", None)])[0]
    assert server == {"ing.in.1": 1, "in.a.b": 1, "ing.own.2": 1}  # sourced ones renamed too; no match: kept


# --- A stream that sources or mirrors itself: nats-server's "detected cycle" (10052) --------------------


@pytest.mark.parametrize(
    "cfg, rejected",
    [
        ({"name": "C1", "subjects": ["c1.>"], "sources": [{"name": "C1"}]}, True),  # no filter: everything
        ({"name": "C2", "subjects": ["c2.>"], "sources": [{"name": "C2", "filter_subject": "c2.a"}]}, True),
        ({"name": "C3", "subjects": ["c3.>"], "sources": [{"name": "C3", "filter_subject": "other.>"}]}, False),
        # subject_transforms leave filter_subject empty: a cycle whatever their sources
        (
            {
                "name": "C4",
                "subjects": ["c4.>"],
                "sources": [{"name": "C4", "subject_transforms": [{"src": "other.>", "dest": "x.>"}]}],
            },
            True,
        ),
        ({"name": "C5", "sources": [{"name": "C5"}]}, True),
        # without subjects there is nothing a filter can collide with (the default subject comes later)
        ({"name": "C6", "sources": [{"name": "C6", "filter_subject": "C6"}]}, False),
        ({"name": "C7", "mirror": {"name": "C7"}}, True),
        ({"name": "C8", "mirror": {"name": "C8", "filter_subject": "q.>"}}, True),
        (
            {"name": "C9", "subjects": ["c9.a"], "sources": [{"name": "X9"}, {"name": "C9", "filter_subject": "c9.*"}]},
            True,
        ),
    ],
    ids=lambda v: v["name"] if isinstance(v, dict) else str(v),
)
def test_a_stream_that_sources_or_mirrors_itself_is_a_cycle_as_on_the_server(session, nats, cfg, rejected):
    error = create(nats, cfg).get("error")
    assert (error is not None) == rejected, error
    if rejected:
        assert (error["err_code"], error["description"]) == (10052, "detected cycle")
        with pytest.raises(StreamConfigError) as ours_:
            stream_plan(session, cfg)
        assert str(ours_.value).endswith(": detected cycle (nats-server error 10052)")
    else:
        stream_plan(session, cfg)  # accepted by both
        nats.request(f"$JS.API.STREAM.DELETE.{cfg['name']}")


def test_republish_written_as_a_list_is_the_servers_invalid_json_error_10025(session, nats):
    cfg = {"name": "RL", "subjects": ["rl.>"], "republish": [{"src": "rl.>", "dest": "rr.>"}]}
    error = create(nats, cfg)["error"]
    assert error["err_code"] == 10025
    with pytest.raises(StreamConfigError) as ours_:
        stream_plan(session, cfg)
    assert f"republish: {error['description']}" in str(ours_.value)
    assert str(ours_.value).endswith("(nats-server error 10025)")


def test_a_transform_result_with_an_empty_token_is_stored_under_that_subject(session, nats):
    """Core NATS drops a message whose mapped subject has an empty token; a stream stores it as it is
    (the ingress transform and a source's transform alike), and does not republish it."""
    ingress = {
        "name": "EI",
        "subjects": ["u.*"],
        "subject_transform": {"src": "u.*", "dest": "v.{{split(1,-)}}"},
        "republish": {"src": ">", "dest": "ei.rep.>"},
    }
    assert "error" not in create(nats, ingress)
    assert "error" not in create(nats, {"name": "EO", "subjects": ["w.*"]})
    sourced = {
        "name": "ES",
        "sources": [{"name": "EO", "subject_transforms": [{"src": "w.*", "dest": "sp.{{split(1,-)}}.f"}]}],
    }
    assert "error" not in create(nats, sourced)
    for s in ["u.--", "u.a-b", "w.--", "w.x"]:
        publish(nats, s)
    server_ingress = stored_subjects(nats, "EI", 2)
    server_sourced = stored_subjects(nats, "ES", 2)
    time.sleep(0.3)
    server_republished = sorted(nats.received("ei.rep."))
    assert server_ingress == {"v.": 1, "v.a.b": 1}
    assert server_sourced == {"sp..f": 1, "sp.x.f": 1}
    assert ours(session, ingress, [("u.--", None), ("u.a-b", None)]) == (server_ingress, server_republished)
    assert ours(session, sourced, [("w.--", "EO"), ("w.x", "EO")])[0] == server_sourced
    assert server_republished == ["ei.rep.v.a.b"]
