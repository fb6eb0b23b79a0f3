"""The nats source's speed: messages per second of a batch read at 1, 2 and 4 partitions, against a plain jnats
consumer (bench/NatsPlainConsumer.java, the client inside the jar) reading the same stream on the same machine
with as many consumers side by side, each the kind of consumer a partition uses; and the latency of a streaming
query at steady state (a message's publish to its row in a micro-batch's foreachBatch).

    python bench/nats_source.py [--messages 1000000] [--size 100] [--rounds 3]

Needs the 4.2 jar (scripts/setup.sh) and the newest line's nats-server (.tools/nats-server/2.15). The JVMs run
with HotSpot's default tiers. Each case keeps its best of --rounds; prints a table, the ratios, and the machine.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import subjxform  # noqa: E402
from jetstream import JetStreamServer, nats_server_binary  # noqa: E402


def plain(server: JetStreamServer, last: int, threads: int, batch: int, rounds: int) -> float:
    """Messages per second of the plain consumer, `threads` ranges side by side, the best of `rounds` reads in one
    JVM (warm, as the Spark session's is when the reader's best round runs)."""
    out = subprocess.run(
        [
            "java",
            "-cp",
            subjxform.jar_path(),
            str(ROOT / "bench" / "NatsPlainConsumer.java"),
            server.url,
            "BENCH",
            "1",
            str(last),
            str(threads),
            str(batch),
            str(rounds + 1),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout.split()
    messages, seconds = int(out[0]), float(out[1])
    assert messages == last, out
    return messages / seconds


def reader(spark, server: JetStreamServer, last: int, partitions: int, batch: int) -> float:
    df = (
        spark.read.format("nats")
        .option("servers", server.url)
        .option("stream", "BENCH")
        .option("partitions", partitions)
        .option("fetch_batch", batch)
        .load()
    )
    started = time.perf_counter()
    row = df.selectExpr(
        "count(*)", "sum(length(subject) + length(content))", "count(headers)", "max(timestamp)"
    ).collect()[0]
    seconds = time.perf_counter() - started
    assert row[0] == last, row
    return last / seconds


def latency(spark, server: JetStreamServer, seconds: float, rate: int) -> list[float]:
    """Publish `rate` messages a second for `seconds`, each carrying its publish time; the query's foreachBatch
    notes when each row reached it. The first quarter (start-up) is left out."""
    server.create_stream("LATENCY", ["lat.>"])
    seen: list[float] = []

    def sink(batch, _id):
        now = time.time()
        for r in batch.select("content").collect():
            seen.append(now - float(bytes(r.content).decode()))

    q = (
        spark.readStream.format("nats")
        .option("servers", server.url)
        .option("stream", "LATENCY")
        .load()
        .writeStream.foreachBatch(sink)
        .trigger(processingTime="0 seconds")
        .option("checkpointLocation", tempfile.mkdtemp(prefix="subjxform-bench-lat-"))
        .start()
    )
    client = server.client()
    try:
        end = time.time() + seconds
        while time.time() < end:
            client.publish("lat.x", str(time.time()).encode())
            time.sleep(1 / rate)
        time.sleep(3)
    finally:
        client.close()
        q.stop()
    return seen[len(seen) // 4 :]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--messages", type=int, default=1_000_000)
    p.add_argument("--size", type=int, default=100)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--batch", type=int, default=1000)
    args = p.parse_args()
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[4]")
        .config("spark.jars", subjxform.jar_path())
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    with JetStreamServer(binary=nats_server_binary()) as server:
        server.create_stream("BENCH", ["bench.>"])
        payload = os.urandom(args.size)
        started = time.perf_counter()
        for k in range(0, args.messages, 100_000):
            server.publish(
                "BENCH",
                [
                    (f"bench.r{i % 8}.c{i % 1000}", payload, {"K": [str(i)]} if i % 10 == 0 else None)
                    for i in range(k, min(k + 100_000, args.messages))
                ],
                chunk=5000,
            )
        print(f"published {args.messages:,} messages of {args.size} bytes in {time.perf_counter() - started:.0f} s")
        rows = []
        reader(spark, server, args.messages, 2, args.batch)  # warm-up, untimed (the plain JVM's is its extra round)
        for n in (1, 2, 4):
            best_plain = plain(server, args.messages, n, args.batch, args.rounds)
            best_reader = max(reader(spark, server, args.messages, n, args.batch) for _ in range(args.rounds))
            rows.append((n, best_plain, best_reader))
        lat = latency(spark, server, seconds=20, rate=200)
    version = spark.version
    spark.stop()
    print(f"\n{'partitions':>10} {'plain jnats msg/s':>18} {'nats source msg/s':>18} {'ratio':>6} {'scaling':>8}")
    for n, pl, rd in rows:
        print(f"{n:>10} {pl:>18,.0f} {rd:>18,.0f} {rd / pl:>6.2f} {rd / rows[0][2]:>8.2f}")
    lat_ms = sorted(x * 1000 for x in lat)
    print(
        f"\nstreaming latency at steady state (200 msg/s, {len(lat_ms)} messages): p50 {statistics.median(lat_ms):.0f} ms, "
        f"p90 {lat_ms[int(len(lat_ms) * 0.9)]:.0f} ms, p99 {lat_ms[int(len(lat_ms) * 0.99)]:.0f} ms"
    )
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
        f"Spark {version}, Python {platform.python_version()}"
    )


if __name__ == "__main__":
    main()
