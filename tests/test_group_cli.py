"""`subjxform group`: the config checked, subjects placed, and the reports over a file of messages."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import needs_jar
from subjxform.cli import group as group_cli

pytestmark = needs_jar

CONFIG = {
    "max_members": 4,
    "members": ["b", "a"],
    "partitioning_filters": [{"filter": "orders.*.*", "partitioning_wildcards": [2]}],
}


def test_check_lists_members_partitions_and_consumer_filters(spark, tmp_path, capsys):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(CONFIG))
    assert group_cli.main([str(path)], spark=spark) == 0
    out = capsys.readouterr().out
    assert "elastic consumer group (bucket elastic-consumer-groups), max_members 4" in out
    assert "orders.*.* -> {{Partition(4,2)}}.orders.{{Wildcard(1)}}.{{Wildcard(2)}}" in out
    assert "a: partitions 0,1; consumer filters 0.orders.*.*, 1.orders.*.*" in out


def test_subjects_get_their_partition_and_member(spark, capsys):
    # c43 hashes to partition 3 of 4 (FNV-1a), which the sorted members' second block gives b
    assert group_cli.main([json.dumps(CONFIG), "orders.eu.c43", "payments.x"], spark=spark) == 0
    assert capsys.readouterr().out.splitlines() == [
        "orders.eu.c43: partition 3, member b",
        "payments.x: not taken by the group",
    ]


def test_a_refused_config_is_exit_1_with_the_librarys_reason(spark, capsys):
    bad = dict(CONFIG, member_mappings=[{"member": "a", "partitions": [0, 1, 2, 3]}])
    assert group_cli.main([json.dumps(bad)], spark=spark) == 1
    assert "either members or member mappings must be provided, not both" in capsys.readouterr().err


def test_reports_over_a_traffic_file_with_a_new_config(spark, tmp_path, capsys):
    traffic = tmp_path / "traffic.json"
    traffic.write_text("".join(json.dumps({"subject": f"orders.eu.c{i % 20}"}) + "\n" for i in range(200)))
    new = dict(CONFIG, members=["a", "b", "c"])
    out = tmp_path / "out"
    assert (
        group_cli.main(
            [json.dumps(CONFIG), "--traffic", str(traffic), "--new-config", json.dumps(new), "--out", str(out)],
            spark=spark,
        )
        == 0
    )
    summary = (out / "summary.txt").read_text()
    assert capsys.readouterr().out == summary
    assert "200 messages taken, 0 not taken" in summary and "Consumer group change" in summary
    assert sorted(p.name for p in out.glob("*.png")) == ["balance.png", "balance_after.png", "change.png"]


def test_the_command_is_registered_and_usage_errors_are_exit_2(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "subjxform", "group", "{}", "x.y", "--traffic", "t.json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2 and "give SUBJECTs or --traffic, not both" in run.stderr
    assert (
        "group CONFIG"
        in subprocess.run(
            [sys.executable, "-m", "subjxform", "--help"], capture_output=True, text=True, timeout=60
        ).stdout
    )
