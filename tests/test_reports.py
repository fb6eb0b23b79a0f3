"""subject_map_explain and the reports (subjxform.reports) on generated traffic with known answers.

The traffic (TRAFFIC_SQL, 2,000 messages, exact counts by construction):
  1,600 orders.<eu|us|ap>.<customer>, a quarter of them (400) from customer c0, the rest spread over c1..c96;
    200 billing.<n>;  100 audit.a.<n>;  100 audit.b.<n>.
The table (TABLE): rule 0 orders.*.* splits 90/10 to v1/v2 with {{partition(4,2)}}; rule 1 orders.eu.* is
shadowed by rule 0 (written first, it takes every orders.eu.X); rule 2 billing.refund never fires (no
such subject); rule 3 billing.* maps; audit.* is taken by no rule.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from pyspark.sql import functions as F

from conftest import golden
from subjxform import reports, subject_map, subject_map_explain
from subjxform.reports._render import share

TRAFFIC_SQL = """
  CASE WHEN id % 20 < 16 THEN concat('orders.', element_at(array('eu', 'us', 'ap'), cast(id % 3 AS INT) + 1), '.',
                                      IF(id % 4 = 0, 'c0', concat('c', 1 + id % 96)))
       WHEN id % 20 < 18 THEN concat('billing.', id)
       WHEN id % 20 = 18 THEN concat('audit.a.', id)
       ELSE concat('audit.b.', id) END"""

TABLE = """
orders.*.*: [
  {destination: "orders.v1.{{partition(4,2)}}.$1.$2", weight: 90%}
  {destination: "orders.v2.{{partition(4,2)}}.$1.$2", weight: 10%}
]
orders.eu.*: "eu.orders.$1"
billing.refund: billing.refunds
billing.*: "billing.all.$1"
"""

# The new config: billing.* goes elsewhere (changed), audit.a.> is dropped, audit.b.* is mapped.
NEW_TABLE = (
    TABLE.replace('"billing.all.$1"', '"billing.v2.$1"')
    + """
audit.a.>: [{destination: audit.a.>, weight: 0%}]
audit.b.*: "archive.audit.$1"
"""
)


@pytest.fixture(scope="module")
def traffic(session):
    return session.range(0, 2000, 1, numPartitions=4).selectExpr(f"{TRAFFIC_SQL} AS subject", "id")


@pytest.mark.compat  # subject_map_explain from Python, on every Spark line
def test_explain_struct_from_python(session):
    df = session.createDataFrame([("orders.eu.7",), ("billing.refund",), ("audit.x",), ("a..b",)], ["subject"])
    rows = df.select("subject", subject_map_explain("subject", TABLE, seed=1).alias("why")).collect()
    why = {r.subject: r.why for r in rows}
    assert why["orders.eu.7"].rule == "orders.*.*" and why["orders.eu.7"].rule_index == 0
    assert why["orders.eu.7"].matched_as == "wildcard" and why["orders.eu.7"].outcome == "mapped"
    assert why["orders.eu.7"].destination_index in (0, 1) and why["orders.eu.7"].weight in (90, 10)
    assert why["billing.refund"].matched_as == "literal" and why["billing.refund"].result == "billing.refunds"
    assert why["audit.x"].outcome == "no_match" and why["audit.x"].result == "audit.x" and why["audit.x"].rule is None
    assert why["a..b"] is None


def test_explain_agrees_with_subject_map_on_every_golden_case(session):
    cases = [c for c in golden("map_cases.jsonl") if c["accepted"]]
    assert len(cases) > 50
    for seed in (None, 5):
        rows = [(c["id"], c["subject"], c["mappings"]) for c in cases for _ in range(3)]
        df = session.createDataFrame(rows, ["id", "subject", "mappings"]).repartition(1)
        both = df.select(
            "id",
            subject_map("subject", F.col("mappings"), seed=seed if seed is not None else 0).alias("m"),
            subject_map_explain("subject", F.col("mappings"), seed=seed if seed is not None else 0).alias("e"),
        )
        bad = both.where(~F.col("m").eqNullSafe(F.col("e.result"))).select("id").collect()
        assert bad == [], bad[:5]


def _random_table(rng: random.Random) -> str:
    tokens = ["a", "b", "c", "x1"]
    rules = {}
    for _i in range(rng.randint(1, 6)):
        toks = [rng.choice(tokens + ["*"]) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.3:
            toks.append(">")
        src = ".".join(toks)
        parts = [f"{{{{wildcard({k + 1})}}}}" for k in range(toks.count("*"))] + ([">"] if toks[-1] == ">" else [])
        entries = []
        for j in range(rng.randint(0, 3)):
            cluster = rng.choice(["", "", "east"])
            entries.append(
                {
                    "destination": ".".join([f"d{j}"] + parts),
                    "weight": rng.randint(0, 30),
                    **({"cluster": cluster} if cluster else {}),
                }
            )
        if "*" not in src and rng.random() < 0.4:
            entries.append({"destination": src, "weight": 10})  # the source listed: its remainder drops
        rules[src] = entries if entries else ".".join(["d"] + parts)
    return json.dumps(rules)


def test_explain_agrees_with_subject_map_on_random_tables(session):
    rng = random.Random(15)
    rows = []
    for t in range(40):
        table = _random_table(rng)
        for _ in range(25):
            subject = ".".join(rng.choice(["a", "b", "c", "x1"]) for _ in range(rng.randint(1, 4)))
            rows.append((t, subject, table, rng.choice([None, "east", "west"])))
    df = session.createDataFrame(rows, "t INT, subject STRING, mappings STRING, cluster STRING").repartition(1)
    both = df.select(
        "t",
        "subject",
        subject_map("subject", F.col("mappings"), cluster=F.col("cluster"), seed=9).alias("m"),
        subject_map_explain("subject", F.col("mappings"), cluster=F.col("cluster"), seed=9).alias("e"),
    )
    bad = both.where(~F.col("m").eqNullSafe(F.col("e.result"))).collect()
    assert bad == [], bad[:5]
    outcomes = {r.o for r in both.select(F.col("e.outcome").alias("o")).collect()}
    assert outcomes == {"mapped", "unchanged", "dropped", "no_match"}  # the tables exercise every outcome


def test_rule_coverage_finds_the_rule_that_never_fires_the_shadowed_rule_and_unmatched_subjects(traffic):
    report = reports.rule_coverage(traffic, TABLE, seed=1)
    f = report.facts
    assert f["total"] == 2000
    assert f["hits_per_rule"] == {"orders.*.*": 1600, "orders.eu.*": 0, "billing.refund": 0, "billing.*": 200}
    assert f["never_fire"] == ["orders.eu.*", "billing.refund"]
    # Every orders.eu.X (a third of the orders: ids with id % 3 == 0) matched rule 1 and went to rule 0.
    eu = traffic.where("subject LIKE 'orders.eu.%'").count()
    assert f["shadowed"]["orders.eu.*"] == {"orders.*.*": eu}
    assert "billing.refund" not in f["shadowed"]  # never matched at all: not shadowed, just unused
    assert f["outcomes"]["no_match"] == 200 and f["outcomes"]["mapped"] == 1800
    assert len(f["unmatched"]) == 5 and all(s.startswith("audit.") and n == 1 for s, n in f["unmatched"])
    rows = {(r.rule, r.destination): r.hits for r in report.df.collect()}
    assert (
        rows[("orders.*.*", "orders.v1.{{partition(4,2)}}.$1.$2")]
        + rows[("orders.*.*", "orders.v2.{{partition(4,2)}}.$1.$2")]
        == 1600
    )
    assert "never fires; shadowed by rule 0 (orders.*.*)" in report.text


def test_config_diff_counts_each_category_per_rule(traffic):
    report = reports.config_diff(traffic, TABLE, NEW_TABLE, seed=3)
    assert report.facts["totals"] == {"changed": 200, "unchanged": 1600, "newly_dropped": 100, "newly_mapped": 100}
    by = report.facts["by_rules"]
    assert by[("changed", "billing.*", "billing.*")] == 200
    assert by[("newly_dropped", None, "audit.a.>")] == 100
    assert by[("newly_mapped", None, "audit.b.*")] == 100
    example = {r.category: r for r in report.df.collect()}["newly_mapped"]
    assert example.example_new == "archive.audit." + example.example_subject.split(".")[-1]


def test_partition_balance_finds_the_hot_key_and_the_skew(traffic, session):
    report = reports.partition_balance(traffic, mappings=TABLE)
    ((label, f),) = report.facts.items()
    assert f["n"] == 4 and f["tokens"] == (2,) and f["total"] == 1600 and sum(f["counts"]) == 1600
    key, partition, count = f["hot"][0]
    assert (key, count) == ("c0", 400)
    # The partition is nats-server's: the one subject_map puts c0's orders in.
    routed = (
        session.createDataFrame([("orders.us.c0",)], ["subject"])
        .select(subject_map("subject", TABLE, seed=1).alias("r"))
        .head()
        .r
    )
    assert int(routed.split(".")[2]) == partition
    assert f["counts"][partition] >= 400 and f["max"] == max(f["counts"]) and abs(f["skew"] - f["max"] / 400) < 1e-9
    assert f["skew"] > 1.3  # c0 alone is a whole mean's worth
    candidates = reports.partition_balance(traffic, source="orders.*.*", candidates=[(4, [2]), (16, [1, 2])])
    assert [v["n"] for v in candidates.facts.values()] == [4, 16]
    assert list(candidates.facts.values())[0]["counts"] == f["counts"]


def test_canary_check_against_the_configured_weights(traffic, session):
    report = reports.canary_check(traffic, TABLE, seed=1)
    rows = report.facts["rows"]
    assert [(r["destination_index"], r["configured"]) for r in rows] == [(0, 0.9), (1, 0.1)]
    assert all(r["rule_messages"] == 1600 for r in rows) and sum(r["messages"] for r in rows) == 1600
    assert report.facts["all_ok"]
    # Recorded traffic a server split 50/50 (say, an old config) is flagged: outside the 99% interval.
    delivered = traffic.withColumn(
        "delivered",
        F.expr(
            "IF(subject LIKE 'orders.%', subject_transform(subject, 'orders.*.*', "
            "IF(id % 2 = 0, 'orders.v1.{{partition(4,2)}}.$1.$2', 'orders.v2.{{partition(4,2)}}.$1.$2')), subject)"
        ),
    )
    off = reports.canary_check(delivered, TABLE, delivered="delivered")
    assert [(r["messages"], r["ok"]) for r in off.facts["rows"]] == [(800, False), (800, False)]
    assert off.facts["unexplained"] == 0


def test_wilson_interval_known_values():
    low, high = reports.wilson_interval(50, 100, 0.95)
    assert abs(low - 0.4038) < 1e-3 and abs(high - 0.5962) < 1e-3
    assert reports.wilson_interval(0, 0, 0.99) == (0.0, 1.0)


def test_each_report_writes_a_png(traffic, tmp_path):
    for name, report in {
        "coverage": reports.rule_coverage(traffic, TABLE, seed=1),
        "diff": reports.config_diff(traffic, TABLE, NEW_TABLE),
        "balance": reports.partition_balance(traffic, mappings=TABLE),
        "canary": reports.canary_check(traffic, TABLE, seed=1),
    }.items():
        png = report.chart(tmp_path / f"{name}.png")
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000, name


def test_config_diff_with_a_key_shows_only_real_changes(traffic):
    # The new table adds a weighted rule for billing.*: without a key, the orders' draws (one random
    # source in row order) shift wherever a billing row now draws too; keyed, each message keeps its draw.
    weighted_billing = TABLE.replace(
        'billing.*: "billing.all.$1"',
        'billing.*: [{destination: "billing.all.$1", weight: 50%}, {destination: "billing.b.$1", weight: 50%}]',
    )
    keyed = reports.config_diff(traffic, TABLE, weighted_billing, seed=3, key="id")
    orders = {k: n for k, n in keyed.facts["by_rules"].items() if k[1] == "orders.*.*"}
    assert orders == {("unchanged", "orders.*.*", "orders.*.*"): 1600}
    assert 60 < keyed.facts["by_rules"][("changed", "billing.*", "billing.*")] < 140  # half the 200, drawn
    unkeyed = reports.config_diff(traffic, TABLE, weighted_billing, seed=3)
    assert unkeyed.facts["by_rules"].get(("changed", "orders.*.*", "orders.*.*"), 0) > 0


# Scoped traffic: half the messages entered cluster east (its own destinations), half west (the
# cluster-less ones). The east share of orders goes 50/50 to two versions.
SCOPED_TABLE = """
orders.*: [
  {destination: "east.orders.v1.$1", weight: 50%, cluster: "east"}
  {destination: "east.orders.v2.$1", weight: 50%, cluster: "east"}
  {destination: "orders.central.$1", weight: 100%}
]
"""
SCOPED_NEW_TABLE = SCOPED_TABLE.replace("east.orders.v2.$1", "east.orders.v3.$1").replace(
    "east.orders.v1.$1", "east.orders.v3.$1", 0
)  # only v2 moves, east only


@pytest.fixture(scope="module")
def scoped(session):
    return session.range(0, 2000, 1, numPartitions=4).selectExpr(
        "concat('orders.', id) AS subject", "IF(id % 2 = 0, 'east', 'west') AS dc", "id"
    )


@pytest.mark.parametrize("as_name", [True, False], ids=["column name", "Column"])
def test_every_report_takes_a_cluster_column_by_name_or_column(scoped, as_name):
    cluster = "dc" if as_name else F.col("dc")
    east = scoped.where("dc = 'east'").count()
    coverage = {
        (r.destination, r.cluster): r.hits
        for r in reports.rule_coverage(scoped, SCOPED_TABLE, cluster=cluster, seed=1).df.collect()
    }
    assert coverage[("orders.central.$1", None)] == scoped.count() - east
    assert coverage[("east.orders.v1.$1", "east")] + coverage[("east.orders.v2.$1", "east")] == east
    assert min(coverage[("east.orders.v1.$1", "east")], coverage[("east.orders.v2.$1", "east")]) > 0.4 * east
    canary = reports.canary_check(scoped, SCOPED_TABLE, cluster=cluster, seed=1).facts["rows"]
    assert [(r["cluster"], r["rule_messages"]) for r in canary] == [("east", east), ("east", east)]
    diff = reports.config_diff(scoped, SCOPED_TABLE, SCOPED_NEW_TABLE, cluster=cluster, key="id").facts["totals"]
    moved = (
        scoped.where("dc = 'east'")
        .select(subject_map("subject", SCOPED_TABLE, cluster=F.lit("east"), key=F.col("id"), seed=0).alias("r"))
        .where("r LIKE 'east.orders.v2.%'")
        .count()
    )
    assert diff["changed"] == moved > 0 and diff["unchanged"] == scoped.count() - moved


def test_a_constant_cluster_in_a_report_is_a_literal_column(scoped):
    report = reports.rule_coverage(scoped, SCOPED_TABLE, cluster=F.lit("east"), seed=1)
    assert {r.destination: r.hits for r in report.df.collect()}["orders.central.$1"] == 0
    with pytest.raises(TypeError, match="cluster must be a column name"):
        reports.rule_coverage(scoped, SCOPED_TABLE, cluster=7)


def test_a_chart_without_matplotlib_says_which_extra_to_install(traffic, monkeypatch):
    report = reports.rule_coverage(traffic, TABLE, seed=1)
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)  # as if not installed
    with pytest.raises(ImportError, match=r"^Report.chart\(\) needs matplotlib: pip install 'subjxform\[reports\]'$"):
        report.chart("unused.png")


def test_a_canary_check_over_no_messages_checks_nothing_rather_than_failing(session):
    empty = session.createDataFrame([("billing.1",)], ["subject"])  # rule 0 takes none of them
    report = reports.canary_check(empty, TABLE, seed=1)
    rows = report.facts["rows"]
    assert [(r["rule_messages"], r["low"], r["high"], r["ok"]) for r in rows] == [(0, None, None, None)] * 2
    assert report.facts["all_ok"] and report.facts["unchecked"] == 2
    assert "0.00% .. 100.00%" not in report.text and report.text.count("no messages") == 2
    assert not report.has_chart


def test_rule_coverage_counts_null_and_invalid_subjects(session):
    df = session.createDataFrame(
        [("orders.eu.1",), ("billing.2",), (None,), ("a..b",), ("orders.*.x",)], "subject string"
    )
    f = reports.rule_coverage(df, TABLE, seed=1).facts
    assert f["total"] == 5 and f["not_subjects"] == 3
    assert sum(f["outcomes"].values()) + f["not_subjects"] == 5
    assert "3 not subjects" in reports.rule_coverage(df, TABLE, seed=1).text


def test_partition_balance_refuses_a_candidate_with_no_partitions_in_one_line(traffic):
    with pytest.raises(ValueError, match="the count must be at least 1"):
        reports.partition_balance(traffic, source="orders.*.*", candidates=[(0, [1])])
    # No tokens: {{partition(4)}}, the whole subject hashed (tests/test_new_user_findings.py).
    assert list(reports.partition_balance(traffic, source="orders.*.*", candidates=[(4, [])]).facts) == [
        "orders.*.* -> {{partition(4)}}"
    ]


def test_partition_balance_of_a_table_leaves_out_a_partition_by_zero(traffic):
    with_zero = TABLE + 'audit.*: "audit.{{partition(0,1)}}"\n'
    report = reports.partition_balance(traffic, mappings=with_zero)
    assert [f["n"] for f in report.facts.values()] == [4]


def test_config_diff_a_destination_equal_to_the_subject_that_changes_is_changed_not_newly_mapped(session):
    df = session.createDataFrame([("a.1",), ("b.1",)], ["subject"])
    old = 'a.*: "a.$1"\nb.*: [{destination: "b.x.$1", weight: 0%}]'  # a.* maps to itself; b.*'s remainder keeps b.1
    new = 'a.*: "z.$1"\nb.*: "b.y.$1"'
    totals = reports.config_diff(df, old, new).facts["totals"]
    assert totals == {"changed": 1, "unchanged": 0, "newly_dropped": 0, "newly_mapped": 1}


def test_the_reports_and_the_command_line_draw_alike_by_default(session, tmp_path):
    from subjxform.cli import report as report_cli

    traffic = tmp_path / "t.parquet"
    session.range(0, 2000, 1, 2).selectExpr(f"{TRAFFIC_SQL} AS subject", "id").write.parquet(str(traffic))
    (tmp_path / "m.conf").write_text(TABLE)
    assert (
        report_cli.main(
            [
                str(traffic),
                "--mappings",
                str(tmp_path / "m.conf"),
                "--key-column",
                "id",
                "--out",
                str(tmp_path / "out"),
            ],
            spark=session,
        )
        == 0
    )
    summary = (tmp_path / "out" / "summary.txt").read_text()
    python = reports.rule_coverage(session.read.parquet(str(traffic)), TABLE, key="id")
    v1 = {r.destination: r.hits for r in python.df.collect()}["orders.v1.{{partition(4,2)}}.$1.$2"]
    # The same key and, by default, the same seed: the command line's count is the Python report's.
    shown = re.search(r"orders\.v1\.\{\{partition\(4,2\)\}\}\.\$1\.\$2\s+([\d,]+)", summary)
    assert int(shown.group(1).replace(",", "")) == v1, summary


# --- A newcomer's first hour: shares that read true, and one meaning of cluster -------------------------


def test_a_key_with_one_message_in_100000_reads_as_such_not_as_zero(spark):
    rows = spark.range(100_000).select(
        F.when(F.col("id") == 0, F.lit("orders.rare"))
        .otherwise(F.concat(F.lit("orders.k"), (F.col("id") % 4).cast("string")))
        .alias("subject")
    )
    report = reports.partition_balance(rows, candidates=[("orders.*", 4, (1,))], top_keys=5)
    assert "rare -> " in report.text and "(0.001%)" in report.text, report.text
    assert "(25.0%)" in report.text and "(0.0%)" not in report.text, report.text
    assert [share(n, 100_000) for n in (0, 1, 12, 40, 49, 50, 813, 25_000)] == [
        "0.0%",
        "0.001%",
        "0.012%",
        "0.04%",
        "0.049%",
        "0.1%",
        "0.8%",
        "25.0%",
    ]


SCOPED = {
    "orders.*": [
        {"destination": "orders.west.$1", "weight": "100%", "cluster": "west"},
        {"destination": "orders.other.$1", "weight": "100%"},
    ]
}


def test_in_the_reports_cluster_is_a_column_and_a_cluster_name_there_is_said_not_run(spark):
    df = spark.createDataFrame([("orders.1", "west"), ("orders.2", "east")], "subject string, dc string")
    with pytest.raises(ValueError, match=r"cluster='west' is no column of the messages .* pass F.lit\('west'\)"):
        reports.rule_coverage(df, SCOPED, cluster="west")
    by_column = reports.rule_coverage(df, SCOPED, cluster="dc").facts
    assert by_column == reports.rule_coverage(df, SCOPED, cluster=F.col("dc")).facts


@pytest.mark.parametrize("module", ["jar", "portable"])
def test_in_subject_map_a_cluster_name_that_is_no_cluster_of_the_table_warns(spark, module):
    import warnings

    import subjxform
    from conftest import HAS_JAR
    from subjxform import portable

    if module == "jar" and not HAS_JAR:
        pytest.skip("the jar's functions need the jar")
    m = subjxform if module == "jar" else portable
    df = spark.createDataFrame([("orders.1", "west")], "subject string, dc string")
    with pytest.warns(UserWarning, match=r"cluster='dc' is no cluster of this table \(west\).* pass F.col\('dc'\)"):
        m.subject_map("subject", SCOPED, cluster="dc")
    with pytest.warns(UserWarning, match="no cluster of this table"):
        m.subject_map_explain("subject", SCOPED, cluster="dc")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = df.select(
            m.subject_map("subject", SCOPED, cluster="west"),
            m.subject_map("subject", SCOPED, cluster=F.col("dc")),
            m.subject_map("subject", {"orders.*": "x.$1"}, cluster="any"),
        ).first()
    assert tuple(got) == ("orders.west.1", "orders.west.1", "x.1")
