"""An elastic consumer group's partitions through a live nats-server: the stream the library's CreateElastic
creates (a work-queue stream sourcing the group's stream through the group's transforms, from
consumer_group_plan), the subjects it stores, against consumer_group_partition. Skipped when nats-server
is not on PATH."""

from __future__ import annotations

import shutil
import time

import pytest

from conftest import ROOT, needs_jar
from nats_client import NatsClient, jetstream_server
from subjxform.groups import GroupConfigError, consumer_group_partition, consumer_group_plan

pytestmark = [needs_jar, pytest.mark.skipif(shutil.which("nats-server") is None, reason="nats-server is not on PATH")]

CONFIG = {
    "max_members": 5,
    "members": ["m1", "m2"],
    "partitioning_filters": [
        {"filter": "orders.*.*", "partitioning_wildcards": [2]},
        {"filter": "events.*.*.>", "partitioning_wildcards": [2, 1]},
        {"filter": "logs.>", "partitioning_wildcards": []},
    ],
}


def test_the_servers_sourcing_stores_each_message_under_our_partition(session):
    subjects = (
        [f"orders.eu.c{i}" for i in range(40)]
        + [f"events.k{i}.t{i % 3}.x.y" for i in range(30)]
        + [f"logs.app{i}.line" for i in range(20)]
        + ["other.x", "orders.eu"]
    )
    plan = consumer_group_plan(session, CONFIG)
    with jetstream_server() as port:
        nats = NatsClient(port)
        try:
            assert "error" not in nats.request(
                "$JS.API.STREAM.CREATE.ORDERS",
                {"name": "ORDERS", "subjects": ["orders.>", "events.>", "logs.>", "other.>"]},
            )
            cgs = {
                "name": "ORDERS-workers",
                "retention": "workqueue",
                "discard": "new",
                "sources": [{"name": "ORDERS", "subject_transforms": plan["transforms"]}],
            }
            assert "error" not in nats.request("$JS.API.STREAM.CREATE.ORDERS-workers", cgs)
            for s in subjects:
                ack = nats.request(s, b"x")
                assert "error" not in ack, ack
            taken = len(subjects) - 2
            deadline = time.monotonic() + 10
            while True:
                state = nats.request("$JS.API.STREAM.INFO.ORDERS-workers", {"subjects_filter": ">"})["state"]
                if state["messages"] >= taken or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
        finally:
            nats.close()
    stored = state.get("subjects", {})
    server = {}
    for partitioned, n in stored.items():
        p, original = partitioned.split(".", 1)
        server[original] = int(p)
        assert n == 1
    df = session.createDataFrame([(s,) for s in subjects], "subject string")
    ours = {
        r["subject"]: r["p"]
        for r in df.select("subject", consumer_group_partition("subject", CONFIG).alias("p")).collect()
    }
    assert {s: p for s, p in ours.items() if p is not None} == server
    assert ours["other.x"] is None and ours["orders.eu"] is None and len(server) == taken


@pytest.mark.parametrize("line", ["2.10", "2.11", "2.12", "2.15"])
def test_each_lines_binary_accepts_the_sourcing_stream_exactly_when_the_config_check_does(session, line):
    # {{Partition(N)}} over a filter without `*`: 2.10 and 2.11 refuse the stream CreateElastic creates.
    binary = ROOT / ".tools" / "nats-server" / line / "bin" / "nats-server"
    if not binary.exists():
        pytest.skip(f"{binary} is missing: scripts/nats-servers.sh installs it")
    config = {"max_members": 3, "members": ["a"], "partitioning_filters": [{"filter": "orders.>"}]}
    transforms = [{"src": "orders.>", "dest": "{{Partition(3)}}.orders.>"}]
    with jetstream_server(str(binary)) as port:
        nats = NatsClient(port)
        try:
            assert "error" not in nats.request(
                "$JS.API.STREAM.CREATE.ORDERS", {"name": "ORDERS", "subjects": ["orders.>"]}
            )
            server = nats.request(
                "$JS.API.STREAM.CREATE.W",
                {
                    "name": "W",
                    "retention": "workqueue",
                    "sources": [{"name": "ORDERS", "subject_transforms": transforms}],
                },
            ).get("error")
        finally:
            nats.close()
    try:
        ours, refused = consumer_group_plan(session, config, server_version=line)["transforms"], None
    except GroupConfigError as e:
        ours, refused = None, str(e)
    if server is None:
        assert ours == transforms
    else:
        assert refused is not None and server["description"] in refused and f"error {server['err_code']}" in refused
