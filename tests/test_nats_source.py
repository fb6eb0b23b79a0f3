"""The `nats` data source against a real nats-server: a JetStream stream read back as it was published (subjects,
bytes, headers, sequences, the server's timestamps), filters pushed down to the consumers, bounds by sequence and
time, a streaming query that restarts from its checkpoint with every message exactly once, the writer with
Nats-Msg-Id de-duplication, SQL's CREATE TABLE ... USING nats, and every bad input an error that names its option.
Classic and Spark Connect, on every Spark line (compat).

20,000 messages (5,000 in an older line's compatibility run); SUBJXFORM_HEAVY=1 reads back 1,000,000.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
import time

import pytest
from pyspark.sql import functions as F

from conftest import COMPAT_RUN, CONNECT
from jetstream import JetStreamServer, consumers, nats_server_binary, rfc3339_micros

pytestmark = [
    pytest.mark.compat,
    pytest.mark.skipif(nats_server_binary() is None, reason="no nats-server binary"),
]

HEAVY = os.environ.get("SUBJXFORM_HEAVY") == "1"
# an older line's compatibility run reads fewer: what differs between lines is the connector API, not the count
COUNT = 1_000_000 if HEAVY else 5_000 if COMPAT_RUN else 20_000


def message(i: int) -> tuple[str, bytes, dict | None]:
    """The i-th published message: subjects of several depths, payloads with every byte value (and empty ones),
    headers on some, with repeated names."""
    rng = random.Random(i)
    subject = f"orders.{['eu', 'us', 'ap'][i % 3]}.c{i % 97}" + (".late" if i % 11 == 0 else "")
    payload = bytes(rng.randrange(256) for _ in range(i % 40))
    headers = {"Nats-Trace": [f"t{i}"], "X-Tag": ["a", f"b{i % 5}"]} if i % 4 == 0 else None
    return subject, payload, headers


@pytest.fixture(scope="module")
def server():
    with JetStreamServer(binary=nats_server_binary()) as s:
        s.create_stream("ORDERS", ["orders.>"])
        s.publish("ORDERS", [message(i) for i in range(COUNT)])
        yield s


def reader(session, server, **options):
    r = session.read.format("nats").option("servers", server.url)
    for k, v in {"stream": "ORDERS", **options}.items():
        r = r.option(k, str(v))
    return r.load()


def test_a_stream_reads_back_as_it_was_published(session, server):
    started = time.monotonic()
    rows = reader(session, server, partitions=3).orderBy("streamSeq").collect()
    print(f"read back {len(rows)} messages in {time.monotonic() - started:.1f} s")
    assert len(rows) == COUNT
    for i, row in enumerate(rows):
        subject, payload, headers = message(i)
        assert (row.streamSeq, row.subject, bytes(row.content), row.headers, row.stream, row.replyTo, row.domain) == (
            i + 1,
            subject,
            payload,
            headers,
            "ORDERS",
            None,
            None,
        ), i
    # the server's own timestamps (microseconds, as Spark keeps them), of a sample of sequences
    micros = {
        r.streamSeq: r.micros
        for r in reader(session, server)
        .selectExpr("streamSeq", "unix_micros(timestamp) AS micros")
        .where("streamSeq % 997 = 1")
        .collect()
    }
    for seq in sorted(micros)[:40]:
        assert micros[seq] == rfc3339_micros(server.stored("ORDERS", seq)["time"]), seq
    assert consumers(server, "ORDERS") == []  # nothing left on the server


def test_filters_become_filter_subjects_and_a_sequence_range(session, server):
    df = reader(session, server).where("subject = 'orders.eu.c3' AND streamSeq >= 100 AND streamSeq < 5000")
    plan = df._jdf.queryExecution().executedPlan().toString() if not CONNECT else ""
    got = sorted(r.streamSeq for r in df.select("streamSeq").collect())
    want = [i + 1 for i in range(COUNT) if message(i)[0] == "orders.eu.c3" and 100 <= i + 1 < 5000]
    assert got == want
    if plan:
        assert "filter_subjects [orders.eu.c3]" in plan and "start AtSequence(100)" in plan, plan
    # a prefix that ends a token reads through a `>` filter; a column of no use is never fetched
    late = reader(session, server).where("subject LIKE 'orders.us.%'").groupBy().count().collect()[0][0]
    assert late == sum(1 for i in range(COUNT) if message(i)[0].startswith("orders.us."))


def test_sequence_and_time_bounds(session, server):
    got = reader(session, server, start_sequence=10, end_sequence=19).select("streamSeq").collect()
    assert sorted(r.streamSeq for r in got) == list(range(10, 20))
    t10 = server.stored("ORDERS", 10)["time"]
    t20 = server.stored("ORDERS", 20)["time"]
    by_time = reader(session, server, start_time=t10, end_time=t20).select("streamSeq").collect()
    # start inclusive, end exclusive; messages stored in the same microsecond as 20 would come too
    seqs = sorted(r.streamSeq for r in by_time)
    assert seqs[0] == 10 and 19 <= seqs[-1] < 20 + 1 and seqs == list(range(10, seqs[-1] + 1))
    filtered = reader(session, server, filter_subjects="orders.ap.>", end_sequence=30).select("subject").collect()
    assert sorted(r.subject for r in filtered) == sorted(
        message(i)[0] for i in range(30) if message(i)[0].startswith("orders.ap.")
    )


def test_write_publishes_with_acks_and_msg_id_deduplication(session, server):
    server.create_stream("COPY", ["copy.>"])
    source = reader(session, server, end_sequence=500).selectExpr(
        "concat('copy.', subject) AS subject", "content", "headers", "cast(streamSeq AS STRING) AS id"
    )
    for _ in range(2):  # the second write's messages are all duplicates, by Nats-Msg-Id
        source.write.format("nats").mode("append").option("servers", server.url).option("stream", "COPY").option(
            "msg_id_column", "id"
        ).save()
    assert server.state("COPY")["messages"] == 500
    back = reader(session, server, stream="COPY").collect()  # (two tasks published: in either order)
    assert sorted(int(row.headers["Nats-Msg-Id"][0]) for row in back) == list(range(1, 501))
    for row in back:
        i = int(row.headers["Nats-Msg-Id"][0]) - 1
        subject, payload, headers = message(i)
        want_headers = {**(headers or {}), "Nats-Msg-Id": [str(i + 1)]}
        assert (row.subject, bytes(row.content), row.headers) == ("copy." + subject, payload, want_headers)


def test_a_failed_publish_fails_the_write_with_the_servers_error(session, server):
    df = session.createDataFrame([("nowhere.stored", bytearray(b"x"))], "subject STRING, data BINARY")
    with pytest.raises(Exception) as e:
        df.write.format("nats").mode("append").option("servers", server.url).save()
    assert "publishing to 'nowhere.stored' failed" in str(e.value) and "no stream stores subject" in str(e.value)
    with pytest.raises(Exception) as e:  # the stream option: each ack must come from that stream
        df.selectExpr("'copy.x' AS subject", "data").write.format("nats").mode("append").option(
            "servers", server.url
        ).option("stream", "ORDERS").save()
    assert "nats option 'stream': a message to 'copy.x' was stored by stream 'COPY', not 'ORDERS'" in str(e.value)


def test_a_streaming_query_restarts_from_its_checkpoint_exactly_once(session, server):
    server.create_stream("LIVE", ["live.>"])
    server.publish("LIVE", [(f"live.{i % 5}", str(i).encode(), None) for i in range(3000)])
    work = tempfile.mkdtemp(prefix="subjxform-nats-stream-")
    try:
        out, checkpoint = os.path.join(work, "out"), os.path.join(work, "checkpoint")

        def run() -> None:
            stream = (
                session.readStream.format("nats")
                .option("servers", server.url)
                .option("stream", "LIVE")
                .option("maxMessagesPerTrigger", "700")
                .load()
                .selectExpr("streamSeq", "cast(content AS STRING) AS body")
            )
            q = (
                stream.writeStream.format("parquet")
                .option("checkpointLocation", checkpoint)
                .trigger(availableNow=True)
                .start(out)
            )
            q.awaitTermination(180)
            assert q.exception() is None, q.exception()

        run()
        server.publish("LIVE", [(f"live.{i % 5}", str(i).encode(), None) for i in range(3000, 5000)])
        run()  # reads on from the checkpoint: the 2,000 new messages only
        rows = session.read.parquet(out).collect()
        assert sorted(r.streamSeq for r in rows) == list(range(1, 5001))  # none lost, none twice
        assert all(r.body == str(r.streamSeq - 1) for r in rows)
        # messages purged before the query read them fail it, naming failOnDataLoss
        server.publish("LIVE", [(f"live.{i % 5}", str(i).encode(), None) for i in range(5000, 5100)])
        server.api("STREAM.PURGE.LIVE", {})
        server.publish("LIVE", [("live.0", b"after", None)])
        with pytest.raises(Exception) as e:
            run()
        assert "failOnDataLoss" in str(e.value) and "5001 to 5100" in str(e.value), str(e.value)[:2000]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_sql_create_table_using_nats(session, server):
    name = "nats_orders_" + ("connect" if CONNECT else "classic")
    session.sql(f"DROP TABLE IF EXISTS {name}")
    session.sql(f"CREATE TABLE {name} USING nats OPTIONS (servers '{server.url}', stream 'ORDERS')")
    try:
        n = session.sql(f"SELECT count(*) FROM {name} WHERE subject = 'orders.eu.c3'").collect()[0][0]
        assert n == sum(1 for i in range(COUNT) if message(i)[0] == "orders.eu.c3")
    finally:
        session.sql(f"DROP TABLE IF EXISTS {name}")


@pytest.mark.parametrize(
    "options, says",
    [
        ({"stream": "NOPE"}, "nats option 'stream': no stream 'NOPE'"),
        ({"stream": "bad.name"}, "nats option 'stream': 'bad.name' is not a stream name"),
        ({"servers": "nats://127.0.0.1:1"}, "nats option 'servers': cannot connect to nats://127.0.0.1:1"),
        ({"start_sequence": "x"}, "nats option 'start_sequence': must be a whole number above 0"),
        ({"start_time": "yesterday"}, "nats option 'start_time': 'yesterday' is not a time with a zone"),
        ({"start_sequence": "5", "start_time": "2026-01-01T00:00:00Z"}, "are both set"),
        ({"filter_subjects": "a..b"}, "nats option 'filter_subjects': 'a..b' is not a subject filter"),
        ({"partitons": "2"}, "nats option 'partitons': is not an option of the nats source"),
        ({"user": "u", "token": "t"}, "nats option 'token': and 'user' are both set"),
        ({"creds_file": "/nonexistent.creds"}, "nats option 'creds_file': cannot read the file '/nonexistent.creds'"),
    ],
)
def test_a_bad_option_is_an_error_naming_it(session, server, options, says):
    with pytest.raises(Exception) as e:
        reader(session, server, **options).count()
    assert says in str(e.value), str(e.value)[:3000]


def test_a_purged_range_is_an_error_naming_the_start(session, server):
    server.create_stream("GONE", ["gone.>"])
    server.publish("GONE", [("gone.a", b"x", None)] * 10)
    server.api("STREAM.PURGE.GONE", {"keep": 3})
    with pytest.raises(Exception) as e:
        reader(session, server, stream="GONE", start_sequence=2).count()
    assert "nats option 'start_sequence': messages 2 to 7 of stream 'GONE' are gone" in str(e.value)
    assert reader(session, server, stream="GONE").count() == 3
    assert reader(session, server, stream="GONE", start_sequence=2, failOnDataLoss="false").count() == 3


def test_a_jetstream_domain_is_asked_through_its_api_prefix(session):
    with JetStreamServer(binary=nats_server_binary(), domain="HUB") as hub:
        hub.api("STREAM.CREATE.EDGE", {"name": "EDGE", "subjects": ["edge.>"], "storage": "file"})
        hub.publish("EDGE", [(f"edge.{i}", b"x", None) for i in range(5)])
        rows = reader(session, hub, stream="EDGE", domain="HUB").select("streamSeq", "domain").collect()
        assert sorted((r.streamSeq, r.domain) for r in rows) == [(i, "HUB") for i in range(1, 6)]
        with pytest.raises(Exception) as e:
            reader(session, hub, stream="EDGE", domain="ELSEWHERE", connect_timeout=2).count()
        assert "nats option 'domain': no JetStream answered in domain 'ELSEWHERE'" in str(e.value), str(e.value)[:2000]


def test_max_bytes_per_trigger_and_a_start_at_the_end(session, server):
    server.create_stream("BYTES", ["bytes.>"])
    server.publish("BYTES", [("bytes.x", bytes(100), None) for _ in range(200)])
    work = tempfile.mkdtemp(prefix="subjxform-nats-bytes-")
    try:

        def run(**options) -> tuple[int, int, int]:
            """The query to its end: (rows written, micro-batches, most rows in one of its files)."""
            r = session.readStream.format("nats").option("servers", server.url).option("stream", "BYTES")
            for k, v in options.items():
                r = r.option(k, str(v))
            q = (
                r.load()
                .writeStream.format("parquet")
                .option("checkpointLocation", os.path.join(work, "cp-" + "-".join(options)))
                .trigger(availableNow=True)
                .start(os.path.join(work, "out-" + "-".join(options)))
            )
            q.awaitTermination(180)
            assert q.exception() is None, q.exception()
            out = os.path.join(work, "out-" + "-".join(options))
            if not os.path.isdir(out):
                return 0, 0, 0
            # (the file sink's log has an entry per micro-batch; a Connect client's query keeps no progress)
            batches = len([n for n in os.listdir(os.path.join(out, "_spark_metadata")) if not n.startswith(".")])
            per_file = session.read.parquet(out).groupBy(F.input_file_name()).count().collect()
            return sum(r[1] for r in per_file), batches, max((r[1] for r in per_file), default=0)

        # about 20 stored messages' bytes a micro-batch (a soft limit, from the stream's average size)
        rows, batches, largest = run(maxBytesPerTrigger=server.state("BYTES")["bytes"] // 10)
        assert rows == 200 and batches >= 8 and largest <= 25, (rows, batches, largest)
        assert run(start="latest")[0] == 0  # only what comes after the query starts
    finally:
        shutil.rmtree(work, ignore_errors=True)
