"""What a new user met on a real 2.12.3 deployment (issue 41), each re-tried as they wrote it: the right answer
or a clear error. (Over Spark Connect: tests/test_connect_server.py.)"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import warnings

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from conftest import CONNECT, needs_jar
from subjxform import portable, reports, subject_map, subject_transform
from subjxform.cli import report as report_cli
from test_reports import NEW_TABLE, TABLE, TRAFFIC_SQL

pytestmark = needs_jar

# A whole server config, as the upgrading guide's `subjxform report --mappings server.conf` has it.
SERVER_CONF = """
server_name: edge
store_dir: /var/lib/nats
jetstream: enabled
mappings: { "billing.*": "billing.all.$1" }
accounts {
  ORDERS: { mappings: { "orders.*.*": "orders.{{partition(4,2)}}.$1.$2" } }
  AUDIT: {}
}
"""


@pytest.fixture(scope="module")
def traffic(session):
    return session.range(0, 2000, 1, numPartitions=4).selectExpr(f"{TRAFFIC_SQL} AS subject", "id")


def test_partition_balance_of_a_whole_subject_partition_rule(traffic):
    # Before: ValueError "... at least one wildcard token hashed" (a traceback in `subjxform report`).
    report = reports.partition_balance(traffic, 'orders.>: "{{partition(4)}}.orders.>"')
    ((label, f),) = report.facts.items()
    assert label == "orders.> -> {{partition(4)}}" and f["tokens"] == () and f["total"] == 1600
    # The key hashed is the whole subject: each one's partition is the one subject_transform gives it.
    key, partition, count = f["hot"][0]
    assert key.startswith("orders.") and count >= 1
    assert traffic.sparkSession.range(1).select(
        subject_transform(F.lit(key), "orders.>", "{{partition(4)}}.>").alias("p")
    ).head()["p"].split(".")[0] == str(partition)
    # <<...>> and any case are read as the server reads them
    assert reports.partition_candidates(traffic.sparkSession, 'a.*: "<<Partition(3,1)>>.$1"') == [("a.*", 3, (1,))]


def test_partition_balance_takes_its_arguments_in_rule_coverages_order(traffic):
    # Before: partition_balance(df, mappings) took the table for `source` and said to "give mappings".
    by_position = reports.partition_balance(traffic, TABLE)
    assert [f["total"] for f in by_position.facts.values()] == [1600]
    with pytest.warns(FutureWarning, match="write source='orders.\\*.\\*'"):
        old = reports.partition_balance(traffic, "orders.*.*", candidates=[(4, [2])])
    assert list(old.facts.values())[0]["counts"] == list(by_position.facts.values())[0]["counts"]
    with pytest.raises(TypeError, match="rule_coverage's order"):
        reports.partition_balance(traffic, "orders.*.*", [(4, [2])])


def test_a_report_shows_itself_as_a_notebook_cells_last_value(traffic):
    # Before: a Report showed as its dataclass repr; now its tables and chart, as pandas' DataFrames do.
    report = reports.rule_coverage(traffic, TABLE, key="id")
    html = report._repr_html_()
    assert "<p><b>Rule coverage: 2,000 messages, 4 rules</b></p>" in html
    assert "<table>" in html and ">orders.v1.{{partition(4,2)}}.$1.$2<" in html
    png = base64.b64decode(html.split("data:image/png;base64,")[1].split('"')[0])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    # IPython's formatter finds it (pandas and polars are found the same way)
    assert callable(getattr(report, "_repr_html_", None)) and report.text in str(report)


@pytest.mark.skipif(CONNECT, reason="a report command starts its own local Spark")
def test_report_of_a_whole_server_config_takes_account(spark, tmp_path, capsys):
    # Before: `Unknown field "store_dir" for mapping destination`, and no --account.
    path = tmp_path / "traffic.json"
    spark.range(0, 200).selectExpr(f"{TRAFFIC_SQL} AS subject").coalesce(1).write.json(str(path))
    (tmp_path / "server.conf").write_text(SERVER_CONF)
    out = tmp_path / "out"
    common = [str(path), "--mappings", str(tmp_path / "server.conf"), "--format", "json", "--out", str(out)]
    assert report_cli.main(common, spark=spark) == 0
    top = capsys.readouterr().out
    assert "Rule coverage: 200 messages, 1 rules" in top and "billing.*" in top
    assert report_cli.main([*common, "--account", "ORDERS"], spark=spark) == 0
    orders = capsys.readouterr().out
    assert "Rule coverage: 200 messages, 1 rules" in orders and "orders.*.* -> {{partition(4,2)}}" in orders
    assert report_cli.main([*common, "--account", "AUDIT"], spark=spark) == 2
    assert "account 'AUDIT' has no mappings block (accounts with mappings: ORDERS)" in capsys.readouterr().err


@pytest.mark.skipif(CONNECT, reason="a report command starts its own local Spark")
def test_report_with_a_whole_subject_partition_rule_runs_every_report(spark, tmp_path, capsys):
    # Before: a traceback from partition balance, and the config diff after it never ran.
    path = tmp_path / "traffic.json"
    spark.range(0, 200).selectExpr(f"{TRAFFIC_SQL} AS subject").coalesce(1).write.json(str(path))
    (tmp_path / "old.conf").write_text('orders.>: "{{partition(4)}}.orders.>"\n')
    (tmp_path / "new.conf").write_text(NEW_TABLE)
    args = [str(path), "--mappings", str(tmp_path / "old.conf"), "--new-mappings", str(tmp_path / "new.conf")]
    assert report_cli.main([*args, "--format", "json", "--out", str(tmp_path / "out")], spark=spark) == 0
    summary = capsys.readouterr().out
    assert "orders.> -> {{partition(4)}}: 160 messages" in summary and "Config diff: 200 messages" in summary


def test_server_from_config_on_an_existing_bad_file_says_no_false_note(session, tmp_path):
    # Before: "... (there is no file '/…/bad1.conf': a str is read as a file only when it names one ...)".
    from subjxform.accounts import AccountsConfigError
    from subjxform.scopes import server_from_config

    bad = tmp_path / "bad1.conf"
    bad.write_text('accounts { A: { mappings: { "a.*": "b.$2" } } }\n')
    with pytest.raises(AccountsConfigError) as e:
        server_from_config(session, str(bad), account="A")
    assert "wildcard index out of range" in str(e.value) and "there is no file" not in str(e.value)


def test_a_subject_of_another_type_is_an_error_naming_the_function_and_parameter(session):
    # Before: cast to its text and mapped "unchanged", silently.
    ids = session.range(3)
    for column in (
        subject_map("id", TABLE),
        subject_transform(F.col("id").cast("string").cast("binary"), "a.*", "b.$1"),
    ):
        with pytest.raises(AnalysisException, match=r"UNEXPECTED_INPUT_TYPE.*Parameter `subject` of function"):
            ids.select(column).collect()
    with pytest.raises(Exception, match=r"portable.subject_map: parameter `subject` requires the STRING type.*bigint"):
        ids.select(portable.subject_map("id", {"a.*": "b.$1"})).collect()
    strings = ids.selectExpr("concat('a.', id) AS subject")
    assert [r[0] for r in strings.select(portable.subject_map("subject", {"a.*": "b.$1"})).collect()] == [
        "b.0",
        "b.1",
        "b.2",
    ]


def test_a_map_key_draws_by_its_entries_without_a_legacy_conf(session):
    # Before: Spark's xxhash64 error, suggesting spark.sql.legacy.allowHashOnMapType (draws that depend on
    # the order the map's entries were stored in).
    fifty = '"*.*": [{destination: "x.$2", weight: 50%}, {destination: "y.$2", weight: 50%}]'
    df = session.range(200).selectExpr(
        "concat('orders.', id) AS subject",
        "map('Nats-Msg-Id', cast(id AS string), 'k', 'v') AS headers",
        "map('k', 'v', 'Nats-Msg-Id', cast(id AS string)) AS same_headers",
    )
    rows = df.select(
        subject_map("subject", fifty, key="headers").alias("a"),
        subject_map("subject", fifty, key="same_headers").alias("b"),
    ).collect()
    assert all(r.a == r.b for r in rows) and len({r.a.split(".")[0] for r in rows}) == 2


def test_a_bad_session_conf_is_named_as_that_conf(session):
    # Before: "`server_version` in `subject_map` is invalid", naming no conf.
    session.conf.set("spark.subjxform.serverVersion", "2.12.x")
    try:
        with pytest.raises(AnalysisException, match=r'"2\.12\.x".*session conf spark\.subjxform\.serverVersion'):
            session.range(1).select(subject_map(F.lit("a.b"), TABLE)).collect()
    finally:
        session.conf.unset("spark.subjxform.serverVersion")


def test_server_upgrade_finds_each_lines_errors_as_the_jar_does(session):
    # The rules' errors come from the engine's Python port (so the report runs over Spark Connect): the jar's texts.
    from subjxform.mappings import validate_mappings
    from subjxform.reports.upgrade import _Loaded

    if CONNECT:
        pytest.skip("validate_mappings is the classic session's JVM")
    tables = [
        TABLE + 'sensors.* "sensors.{{left(1,2)}}"\nz.* "z.{{random(3)}}"\np "{{partition(3)}}"\n',
        'a.*: "b.$2"\n"c.>": "d"\n',
    ]
    for table in tables:
        for version in ("2.10", "2.11", "2.12", "2.14", "2.15"):
            jvm: dict = {}
            for p in validate_mappings(table, session, version):
                if p.severity == "error":
                    jvm.setdefault(p.rule, p.message)
            assert _Loaded(table, version, None).errors == jvm, (table, version)


def test_configure_refuses_a_spark_connect_builder_with_what_to_do():
    # Before: configure() set spark.jars on the client's builder, which the server cannot take.
    import subjxform

    with pytest.raises(RuntimeError, match="subjxform connect-server"):
        subjxform.configure(SparkSession.builder.remote("sc://localhost:1"))


def test_group_checks_a_config_and_places_subjects_without_spark():
    # Before: an embedded Spark started (15-17 s, a screen of Spark's log) for what the engine answers at once.
    config = json.dumps(
        {
            "max_members": 4,
            "members": ["b", "a"],
            "partitioning_filters": [{"filter": "orders.*.*", "partitioning_wildcards": [2]}],
        }
    )
    code = (
        "import sys\nfrom subjxform.cli import main\n"
        f"code = main(['group', {config!r}, 'orders.eu.c43', 'payments.x'])\n"
        "print('pyspark imported:', 'pyspark' in sys.modules, 'exit', code)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.stdout.splitlines() == [
        "orders.eu.c43: partition 3, member b",
        "payments.x: not taken by the group",
        "pyspark imported: False exit 0",
    ], run.stderr
    assert run.stderr == ""


def test_the_group_port_gives_the_librarys_filters_and_the_jars_plan(session):
    from conftest import golden
    from subjxform.functions import _call
    from subjxform.grammar.consumer_group import parse_group

    cases = [c for c in golden("pcgroups/assignment.jsonl") if c["error"] is None]
    for c in cases:
        g = parse_group(c["config"])
        assert {m: g.partition_filters(m) for m in c["filters"]} == c["filters"], c["config"]
        assert [
            (g.partition(s["subject"].encode()), g.member(g.partition(s["subject"].encode()))) for s in c["subjects"]
        ] == [(s["partition"], s["member"]) for s in c["subjects"]], c["config"]
    # The plan the command prints is the jar's consumer_group_plan: every golden config's, in one query.
    configs = [json.dumps(c["config"]) for c in cases]
    row = session.range(1).select(*[_call("consumer_group_plan", F.lit(c)) for c in configs]).head()
    for i, c in enumerate(configs):
        assert parse_group(c).plan() == json.loads(row[i]), c


def test_the_reports_are_modules_each_at_its_old_import_path():
    from subjxform.reports import Report, canary_check, config_diff, partition_balance, rule_coverage, server_upgrade

    assert {f.__module__ for f in (rule_coverage, config_diff, partition_balance, canary_check, server_upgrade)} == {
        "subjxform.reports.coverage",
        "subjxform.reports.diff",
        "subjxform.reports.balance",
        "subjxform.reports.canary",
        "subjxform.reports.upgrade",
    }
    assert Report.__module__ == "subjxform.reports._render"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        import subjxform.groups  # noqa: F401  (the consumer-group reports render the same way)
