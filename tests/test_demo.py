"""The demo job (README's first command) on a few thousand rows: what it writes and reports is right."""

from __future__ import annotations

import math
import re
import shutil
import subprocess

import pytest
from pyspark.sql import functions as F

from subjxform import subject_transform
from subjxform.demo import CANARY_SHARE, MAPPINGS, PARTITIONS, chart, print_report, run

ROWS = 20_000


@pytest.fixture(scope="module")
def demo(spark, tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    return out, run(spark, ROWS, out, seed=7)


def test_every_partition_directory_exists_and_the_counts_add_up(spark, demo):
    out, report = demo
    dirs = sorted(p.name for p in (out / "orders").iterdir() if p.is_dir())
    assert dirs == [f"partition={p}" for p in range(PARTITIONS)]
    stored = spark.read.parquet(str(out / "orders"))
    assert stored.count() == ROWS
    assert sum(report.per_destination.values()) == ROWS
    assert sum(report.partition_totals.values()) == ROWS
    assert set(report.per_destination) == {"v1", "v2"}
    # Every order went through the mappings: its routed subject keeps its region and customer.
    bad = stored.where(~F.col("routed_to").endswith(F.substring_index("subject", ".", -2))).count()
    assert bad == 0


def test_the_canary_share_is_the_configured_weight_within_a_binomial_bound(demo):
    _, report = demo
    observed, expected, z = report.canary()
    assert expected == ROWS * CANARY_SHARE
    # Binomial(n, 5%): within 5 standard deviations unless the draw is wrong (a 1-point error is 7 sd here).
    assert abs(observed - expected) <= 5 * math.sqrt(ROWS * CANARY_SHARE * (1 - CANARY_SHARE))
    assert abs(z) <= 5


def test_partitions_are_the_ones_subject_transform_gives_with_partition_8(spark, demo):
    out, _ = demo
    stored = spark.read.parquet(str(out / "orders"))
    expected = subject_transform("subject", "orders.*.*", f"{{{{partition({PARTITIONS},2)}}}}").cast("int")
    disagree = stored.where(F.col("partition") != expected).count()
    assert disagree == 0
    # ... and the routed subject's token says the same as the directory it is stored in.
    assert stored.where(F.split("routed_to", r"\.").getItem(2).cast("int") != F.col("partition")).count() == 0


def test_the_same_seed_sends_the_same_orders_to_v2(spark, tmp_path):
    first = run(spark, 3_000, tmp_path / "a", seed=11)
    again = run(spark, 3_000, tmp_path / "b", seed=11)
    run(spark, 3_000, tmp_path / "c", seed=12)
    canary = lambda d: {r.order_id for r in spark.read.parquet(str(d / "orders")).where("version = 'v2'").collect()}  # noqa: E731
    assert canary(tmp_path / "a") == canary(tmp_path / "b")
    assert canary(tmp_path / "a") != canary(tmp_path / "c")
    assert first.per_partition == again.per_partition


def test_an_order_goes_to_the_same_version_however_the_log_is_partitioned(spark):
    from subjxform import subject_map
    from subjxform.demo import MAPPINGS, order_log

    log = order_log(spark, 3_000, 11)
    canary = lambda d: {
        r.order_id
        for r in d.withColumn(  # noqa: E731
            "to", subject_map("subject", MAPPINGS, seed=11, key="order_id")
        )
        .where("to LIKE 'orders.v2.%'")
        .collect()
    }
    assert canary(log) == canary(log.repartition(3)) == canary(log.repartition(1).where("amount > 0"))


def test_the_report_and_chart(demo, tmp_path, capsys):
    _, report = demo
    print_report(report)
    text = capsys.readouterr().out
    low, high, skew = report.balance()
    assert low == min(report.partition_totals.values()) and high == max(report.partition_totals.values())
    assert 1.0 <= skew < 1.5
    assert f"min {low:,}  max {high:,}  skew (max/mean) {skew:.3f}" in text
    assert re.search(rf"orders\.v2 +{report.per_destination['v2']:,} ", text)
    png = tmp_path / "report.png"
    chart(report, png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.skipif(shutil.which("nats-server") is None, reason="nats-server is not on PATH")
def test_nats_server_accepts_the_demos_mappings_config(tmp_path):
    (tmp_path / "server.conf").write_text(f"port: -1\n{MAPPINGS}")
    checked = subprocess.run(
        ["nats-server", "-t", "-c", str(tmp_path / "server.conf")], capture_output=True, text=True, timeout=30
    )
    assert checked.returncode == 0, checked.stderr
