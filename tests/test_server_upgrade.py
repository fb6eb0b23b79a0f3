"""reports.server_upgrade on generated traffic whose answers follow from the real binaries' behaviour
(tests/golden/servers/: `{{left(...)}}` is an unknown function before 2.15, probe-02; `{{partition(0,...)}}`
crashes 2.10/2.11 on the message, probe-23, and maps to 0 from 2.12)."""

from __future__ import annotations

import random

import pytest

from subjxform import reports

PARTITION_BY_ZERO = {"p.*": "q.{{partition(0,1)}}", "e.*": "f.$1", "s.*": "t.{{split(1,-)}}"}
LEFT = {"a.*": "b.{{left(1,2)}}", "e.*": "f.$1"}


@pytest.fixture(scope="module")
def traffic(spark):
    rng = random.Random(18)
    subjects = [
        f"{rng.choice('paesz')}.{rng.choice(['xyz', 'k-1', 'abc', 'a-b-c'])}{rng.randrange(100)}" for _ in range(400)
    ]
    return spark.createDataFrame([(s,) for s in subjects], "subject string").cache(), subjects


def starting(subjects, prefix):
    return [s for s in subjects if s.startswith(prefix)]


def test_partition_by_zero_crashes_2_10_and_is_delivered_on_2_15(traffic):
    df, subjects = traffic
    r = reports.server_upgrade(df, PARTITION_BY_ZERO, "2.10", "2.15")
    lost = starting(subjects, "p.")
    # Not a dropped message: 2.10's process exits on the first of them (before: newly_delivered).
    assert r.facts["by_rule"][("crashes_before", "p.*")] == len(lost)
    assert r.facts["totals"]["crashes_before"] == len(lost)  # nothing else changes
    assert list(r.facts["crashes_before"]) == ["p.*"] and r.facts["crashes_after"] == {}
    assert r.text.splitlines()[1].startswith(
        "CRASH on 2.10: rule p.*: nats-server 2.10's process exits on the first message"
    )
    others = len(subjects) - len(lost)
    assert r.facts["totals"]["unchanged"] == others and r.facts["total"] == len(subjects)
    assert r.facts["becomes_invalid"] == {} and r.facts["becomes_valid"] == {}
    row = r.df.where("category = 'crashes_before'").first()
    assert (row["example_subject"], row["example_before"], row["example_after"]) == (min(lost), None, "q.0")
    # 2.12 already delivers it: nothing changes from 2.12 to 2.15.
    same = reports.server_upgrade(df, PARTITION_BY_ZERO, "2.12", "2.15")
    assert same.facts["totals"]["unchanged"] == len(subjects) and same.facts["total"] == len(subjects)
    assert "crashes_before" in str(r) and "q.0" in str(r)
    # going back, the upgrade report leads with it: 2.10's server would go down
    down = reports.server_upgrade(df, PARTITION_BY_ZERO, "2.15", "2.10")
    assert down.facts["totals"]["crashes_after"] == len(lost) and down.text.splitlines()[1].startswith("CRASH on 2.10:")


def test_left_becomes_valid_on_2_15_and_invalid_going_back(traffic, tmp_path):
    df, subjects = traffic
    up = reports.server_upgrade(df, LEFT, "2.14", "2.15")
    assert list(up.facts["becomes_valid"]) == ["a.*"] and "unknown function" in up.facts["becomes_valid"]["a.*"]
    # 2.14 refuses the whole table: every message is counted under the rule 2.15 applies.
    taken_by_a = starting(subjects, "a.")
    assert up.facts["by_rule"][("becomes_valid", "a.*")] == len(taken_by_a)
    assert up.facts["by_rule"][("becomes_valid", "e.*")] == len(starting(subjects, "e."))
    assert up.facts["totals"]["becomes_valid"] == len(subjects)
    example = up.df.where("category = 'becomes_valid' AND rule = 'a.*'").first()
    assert example["example_after"] == "b." + min(taken_by_a)[2:4]
    down = reports.server_upgrade(df, LEFT, "2.15", "2.12")
    assert list(down.facts["becomes_invalid"]) == ["a.*"] and down.facts["becomes_valid"] == {}
    assert "rules that become invalid" in down.text and "2.12 says" in down.text
    assert up.chart(tmp_path / "upgrade.png").stat().st_size > 0


def test_an_unsupported_version_is_a_clear_error(traffic):
    df, _ = traffic
    with pytest.raises(ValueError, match=r"supported lines are 2\.10, 2\.11, 2\.12, 2\.14, 2\.15"):
        reports.server_upgrade(df, LEFT, "2.9", "2.15")


def test_report_command_compiles_for_the_line_and_adds_the_upgrade(spark, traffic, tmp_path, capsys):
    from subjxform.cli import report as report_cli

    df, subjects = traffic
    path = tmp_path / "traffic.parquet"
    df.write.parquet(str(path))
    table = tmp_path / "m.conf"
    table.write_text('p.* "q.{{partition(0,1)}}"\ne.* f.$1\n')
    # (--partitions: partition_balance of the table's own {{partition(0,1)}} would fail on its n = 0)
    code = report_cli.main(
        [
            str(path),
            "--mappings",
            str(table),
            "--server-version",
            "2.10",
            "--upgrade-to",
            "2.15",
            "--partitions",
            "e.*:4:1",
            "--out",
            str(tmp_path / "out"),
        ],
        spark=spark,
    )
    assert code == 0
    summary = capsys.readouterr().out
    lost = len(starting(subjects, "p."))
    # On 2.10 the partition(0, ...) rule crashes the server: rule coverage and the upgrade say so.
    assert f"crash {lost:,}" in summary and "CRASH: " in summary and "nats-server 2.10" in summary
    assert "Server upgrade 2.10 -> 2.15" in summary and f"crashes_before {lost:,}" in summary
    assert (tmp_path / "out" / "server_upgrade.png").read_bytes()[:4] == b"\x89PNG"
    assert spark.conf.get("spark.subjxform.serverVersion", None) is None  # the caller's session is left as it was
    assert report_cli.main([str(path), "--mappings", str(table), "--server-version", "2.9"], spark=spark) == 2
    assert "supported lines are 2.10, 2.11, 2.12, 2.14, 2.15" in capsys.readouterr().err
    assert report_cli.main([str(path), "--mappings", str(table), "--upgrade-to", "2.15"], spark=spark) == 2
