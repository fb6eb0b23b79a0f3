"""`subjxform report`: the reports over a Parquet / CSV / JSON file of subjects, a text summary and PNGs."""

from __future__ import annotations

import re
import subprocess
import sys

from subjxform.cli import report as report_cli
from test_reports import NEW_TABLE, TABLE, TRAFFIC_SQL


def _write(spark, tmp_path, fmt: str):
    df = spark.range(0, 2000, 1, numPartitions=2).selectExpr(f"{TRAFFIC_SQL} AS subject", "'west' AS cluster")
    path = tmp_path / f"traffic.{fmt}"
    df.coalesce(1).write.mode("overwrite").option("header", "true").format(fmt).save(str(path))
    if fmt != "parquet":  # a single file, as an operator would have it
        part = next(path.glob("part-*"))
        single = tmp_path / f"single.{fmt}"
        part.rename(single)
        return single
    return path


def test_report_command_writes_a_summary_and_pngs_from_parquet(spark, tmp_path):
    traffic = _write(spark, tmp_path, "parquet")
    (tmp_path / "old.conf").write_text(TABLE)
    (tmp_path / "new.conf").write_text(NEW_TABLE)
    out = tmp_path / "report"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "subjxform",
            "report",
            str(traffic),
            "--mappings",
            str(tmp_path / "old.conf"),
            "--new-mappings",
            str(tmp_path / "new.conf"),
            "--cluster-column",
            "cluster",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    summary = (out / "summary.txt").read_text()
    assert run.stdout == summary
    assert "never fire: 1 (orders.eu.*), 2 (billing.refund)" in summary
    assert "totals: changed 200, unchanged 1,600, newly_dropped 100, newly_mapped 100" in summary
    assert "orders.*.* -> {{partition(4,2)}}: 1,600 messages" in summary
    assert "Canary check (99% Wilson interval)" in summary
    for name in ("rule_coverage", "canary_check", "partition_balance", "config_diff"):
        assert (out / f"{name}.png").read_bytes()[:4] == b"\x89PNG", name
    assert "[########################] 5/5 done" in run.stderr  # the progress bar's last step


def test_report_reads_csv_and_json_and_partition_candidates(spark, tmp_path, capsys):
    (tmp_path / "old.conf").write_text(TABLE)
    for fmt in ("csv", "json"):
        traffic = _write(spark, tmp_path, fmt)
        out = tmp_path / f"out-{fmt}"
        code = report_cli.main(
            [
                str(traffic),
                "--mappings",
                str(tmp_path / "old.conf"),
                "--partitions",
                "orders.*.*:16:2",
                "orders.*.*:4:1,2",
                "--out",
                str(out),
            ],
            spark=spark,
        )
        assert code == 0
        summary = (out / "summary.txt").read_text()
        assert "orders.*.* -> {{partition(16,2)}}: 1,600 messages" in summary
        assert "orders.*.* -> {{partition(4,1,2)}}: 1,600 messages" in summary
        assert "hits_per_rule" not in summary and "2,000 messages, 4 rules" in summary
    capsys.readouterr()


def test_report_usage_errors(tmp_path, spark, capsys):
    assert report_cli.main([str(tmp_path / "none.parquet"), "--mappings", str(tmp_path / "none.conf")]) == 2
    assert "no such file" in capsys.readouterr().err
    traffic = _write(spark, tmp_path, "json")
    (tmp_path / "m.conf").write_text(TABLE)
    assert (
        report_cli.main([str(traffic), "--mappings", str(tmp_path / "m.conf"), "--subject-column", "subj"], spark=spark)
        == 2
    )
    assert "has no column subj" in capsys.readouterr().err


def test_report_cluster_column_chooses_each_messages_cluster_scope(spark, tmp_path, capsys):
    from test_reports import SCOPED_TABLE

    traffic = tmp_path / "scoped.parquet"
    df = spark.range(0, 2000, 1, numPartitions=2).selectExpr(
        "concat('orders.', id) AS subject", "IF(id % 2 = 0, 'east', 'west') AS dc"
    )
    df.write.parquet(str(traffic))
    (tmp_path / "scoped.conf").write_text(SCOPED_TABLE)
    east = df.where("dc = 'east'").count()
    code = report_cli.main(
        [
            str(traffic),
            "--mappings",
            str(tmp_path / "scoped.conf"),
            "--cluster-column",
            "dc",
            "--out",
            str(tmp_path / "out"),
        ],
        spark=spark,
    )
    assert code == 0
    summary = (tmp_path / "out" / "summary.txt").read_text()
    capsys.readouterr()
    # Rule coverage's rows: "destination [cluster]  hits  share"; the east scope takes every east message.
    hits = {
        m.group(1): int(m.group(2).replace(",", ""))
        for m in re.finditer(r"(\S+ \[east\]|orders\.central\.\$1)\s+([\d,]+)\s+[\d.]+%", summary)
    }
    assert hits["east.orders.v1.$1 [east]"] + hits["east.orders.v2.$1 [east]"] == east, summary
    assert hits["orders.central.$1"] == 2000 - east, summary


def test_report_with_a_mappings_table_nats_server_refuses_is_one_line_and_exit_2(spark, tmp_path, capsys):
    traffic = _write(spark, tmp_path, "json")
    (tmp_path / "bad.conf").write_text('orders.*: "orders.{{wildcard(2)}}"')
    (tmp_path / "good.conf").write_text(TABLE)
    for args in (
        ["--mappings", str(tmp_path / "bad.conf")],
        ["--mappings", str(tmp_path / "good.conf"), "--new-mappings", str(tmp_path / "bad.conf")],
    ):
        assert report_cli.main([str(traffic), *args, "--out", str(tmp_path / "out")], spark=spark) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1].startswith(f"subjxform report: {tmp_path / 'bad.conf'}: "), err
        assert "wildcard index out of range" in err[-1] and "Traceback" not in "\n".join(err)
