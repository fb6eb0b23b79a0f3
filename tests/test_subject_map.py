"""subject_map (Core NATS account mappings) end to end: golden cases, the docs' examples, weights,
clusters, seeds, validation, and our reading of nats-server's config syntax against the binary."""

from __future__ import annotations

import math
import shutil
import subprocess

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

from conftest import COMPAT_RUN, golden, one_of_each
from subjxform import MappingProblem, subject_map, validate_mappings

# Part of the compatibility suite that runs on every Spark line (scripts/test-lines.sh).
pytestmark = pytest.mark.compat

CASES = golden("map_cases.jsonl")

# The docs page's blocks ("Subject Mapping and Transforms"), with {{...}} destinations quoted.
CANARY = """
    myservice.requests: [
        { destination: myservice.requests.v1, weight: 98% },
        { destination: myservice.requests.v2, weight: 2% }
    ]
"""
SHAPING = (
    'myservice.requests.*: [{ destination: "myservice.requests.{{wildcard(1)}}", weight: 80% },'
    ' { destination: "myservice.requests.fail.{{wildcard(1)}}", weight: 20% }]'
)
LOSS = "foo.loss.>: [ { destination: foo.loss.>, weight: 50% } ]"
SPLIT_AND_LOSS = (
    "myservice.requests: [{ destination: myservice.requests.v3, weight: 90% },"
    " { destination: myservice.requests.v3.fail, weight: 8% }]"
)
CLUSTERS = """mappings = {
        "foo":[
               {destination:"foo.west", weight: 100%, cluster: "west"},
               {destination:"foo.central", weight: 100%, cluster: "central"},
               {destination:"foo.east", weight: 100%, cluster: "east"}
        ]
}"""
SIMPLE = """
    orders.flush  orders.central.flush
\torders.* "orders.central.{{wildcard(1)}}"
"""


def test_every_accepted_golden_case_with_the_table_from_a_column(spark):
    pinned = [c for c in CASES if c["accepted"] and "expected" in c]
    df = spark.createDataFrame(
        [(i, c["subject"], c["mappings"]) for i, c in enumerate(pinned)], "i int, subject string, mappings string"
    )
    out = dict(df.select("i", subject_map("subject", F.col("mappings")).alias("m")).collect())
    failures = [(c["id"], out[i], c["expected"]) for i, c in enumerate(pinned) if out[i] != c["expected"]]
    assert not failures, failures[:20]


def test_every_accepted_golden_case_with_constant_tables_in_one_select(spark):
    pinned = [c for c in CASES if c["accepted"] and "expected" in c]
    tables = sorted({c["mappings"] for c in pinned})
    df = spark.createDataFrame([(c["subject"],) for c in pinned], "subject string").distinct()
    cols = [subject_map("subject", t).alias(f"m{k}") for k, t in enumerate(tables)]
    rows = {r["subject"]: r for r in df.select("subject", *cols).collect()}
    failures = [
        (c["id"], rows[c["subject"]][f"m{tables.index(c['mappings'])}"], c["expected"])
        for c in pinned
        if rows[c["subject"]][f"m{tables.index(c['mappings'])}"] != c["expected"]
    ]
    assert not failures, failures[:20]


# (An older line: one table of each kind of error, 19 of the 140.)
@pytest.mark.parametrize(
    "case",
    one_of_each([c for c in CASES if not c["accepted"]], lambda c: c["error"].split(" : ", 1)[-1].split(" in ")[0]),
    ids=lambda c: c["id"],
)
def test_rejected_golden_tables_fail_analysis_with_nats_servers_message(spark, case):
    df = spark.createDataFrame([(case["subject"],)], "subject string")
    with pytest.raises(AnalysisException) as err:
        df.select(subject_map("subject", case["mappings"]))
    assert case["error"] in str(err.value)


def test_docs_simple_block_and_python_dict(spark):
    df = spark.createDataFrame([("orders.flush",), ("orders.42",), ("billing.1",)], "subject string")
    out = [r.m for r in df.select(subject_map("subject", SIMPLE).alias("m")).collect()]
    assert out == ["orders.central.flush", "orders.central.42", "billing.1"]
    as_dict = {"orders.flush": "orders.central.flush", "orders.*": "orders.central.{{wildcard(1)}}"}
    assert [r.m for r in df.select(subject_map("subject", as_dict).alias("m")).collect()] == out


def test_unquoted_function_destination_is_refused_with_a_hint_to_quote_it(spark):
    df = spark.createDataFrame([("orders.1",)], "subject string")
    with pytest.raises(AnalysisException) as err:
        df.select(subject_map("subject", "orders.* orders.central.{{wildcard(1)}}"))
    assert 'put the destination in quotes: "orders.central.{{wildcard(1)}}"' in str(err.value)


def counts(spark, table: str, subject: str, n: int, seed: int, cluster=None) -> dict:
    df = spark.range(n).select(subject_map(F.lit(subject), table, cluster=cluster, seed=seed).alias("m"))
    return {r.m: r["count"] for r in df.groupBy("m").count().collect()}


def assert_binomial(observed: dict, expected_fractions: dict, n: int) -> None:
    # Each count is Binomial(n, p): mean n*p, standard deviation sqrt(n*p*(1-p)). A correct draw lands
    # within 5 standard deviations with probability 1 - 6e-7; a weight off by 1 percentage point on
    # n = 100k moves the mean by 1000, i.e. 23 sd for p = 0.02 and 7 sd for p = 0.5.
    assert set(observed) == set(expected_fractions), observed
    for value, p in expected_fractions.items():
        mean, sd = n * p, math.sqrt(n * p * (1 - p))
        assert abs(observed[value] - mean) <= 5 * sd, (value, observed[value], mean, sd)


def test_canary_weights_pass_a_binomial_test_over_100k_rows(spark):
    n = 100_000
    observed = counts(spark, CANARY, "myservice.requests", n, seed=42)
    assert_binomial(observed, {"myservice.requests.v1": 0.98, "myservice.requests.v2": 0.02}, n)


def test_split_and_artificial_loss_pass_a_binomial_test(spark):
    n = 100_000
    observed = counts(spark, SPLIT_AND_LOSS, "myservice.requests", n, seed=1)
    # The 2% left over keep the subject: the source is not listed.
    assert_binomial(
        observed, {"myservice.requests.v3": 0.90, "myservice.requests.v3.fail": 0.08, "myservice.requests": 0.02}, n
    )
    lossy = counts(spark, LOSS, "foo.loss.a", n, seed=2)
    # The source is listed: the other 50% are dropped (NULL).
    assert_binomial(lossy, {"foo.loss.a": 0.5, None: 0.5}, n)
    shaped = counts(spark, SHAPING, "myservice.requests.get", n, seed=3)
    assert_binomial(shaped, {"myservice.requests.get": 0.8, "myservice.requests.fail.get": 0.2}, n)


def test_a_seed_makes_a_run_reproducible_across_partitions(spark):
    def run(seed):
        df = spark.range(0, 20_000, numPartitions=4).select(
            "id", subject_map(F.lit("myservice.requests"), CANARY, seed=seed).alias("m")
        )
        return [r.m for r in df.orderBy("id").collect()]

    first = run(11)
    assert first == run(11)
    assert first != run(12)
    unseeded = spark.range(2000).select(subject_map(F.lit("myservice.requests.x"), SHAPING).alias("m"))
    assert {r.m for r in unseeded.collect()} == {"myservice.requests.x", "myservice.requests.fail.x"}


def test_a_weighted_table_can_be_grouped_by_like_rand(spark):
    # Spark's analyzer pulls Nondeterministic expressions out of GROUP BY; it must see ours as one.
    df = spark.range(1000).select(F.lit("myservice.requests").alias("subject"))
    grouped = {
        r.routed_to: r["count"]
        for r in df.groupBy(subject_map("subject", CANARY, seed=5).alias("routed_to")).count().collect()
    }
    assert set(grouped) == {"myservice.requests.v1", "myservice.requests.v2"} and sum(grouped.values()) == 1000
    df.createOrReplaceTempView("requests")
    sql_grouped = spark.sql(
        "SELECT subject_map(subject, 'myservice.requests: [{destination: v1, weight: 50}]', NULL, 1) AS m, count(*) AS n "
        "FROM requests GROUP BY 1"
    ).collect()
    assert {r.m for r in sql_grouped} == {"v1", "myservice.requests"}


def test_weighted_tables_are_nondeterministic_to_the_optimizer(spark):
    weighted = spark.range(1).select(subject_map(F.lit("x"), CANARY).alias("m"))
    plain = spark.range(1).select(subject_map(F.lit("x"), SIMPLE).alias("m"))
    assert not weighted._jdf.queryExecution().analyzed().expressions().apply(0).deterministic()
    assert plain._jdf.queryExecution().analyzed().expressions().apply(0).deterministic()


def test_inside_whole_stage_codegen(spark):
    df = spark.range(10).select(subject_map(F.concat(F.lit("orders."), F.col("id").cast("string")), SIMPLE).alias("m"))
    plan = df._jdf.queryExecution().executedPlan().toString()
    assert "WholeStageCodegen" in plan or "*(" in plan, plan
    assert [r.m for r in df.collect()][:2] == ["orders.central.0", "orders.central.1"]


def test_cluster_scope_from_a_constant_or_a_column(spark):
    df = spark.createDataFrame([("west",), ("east",), ("north",), (None,)], "cluster string")
    by_column = [
        r.m for r in df.select(subject_map(F.lit("foo"), CLUSTERS, cluster=F.col("cluster")).alias("m")).collect()
    ]
    assert by_column == ["foo.west", "foo.east", "foo", "foo"]
    const = df.select(subject_map(F.lit("foo"), CLUSTERS, cluster="central").alias("m")).first().m
    assert const == "foo.central"


def test_sql_forms(spark):
    row = spark.sql(
        """SELECT subject_map('foo', 'foo: [{destination: foo.w, weight: 100%, cluster: w}]', 'w') AS a,
                  subject_map('a.b', '{"a.*": "x.$1"}') AS b,
                  subject_map('q', 'q: [{destination: r, weight: 50}]', NULL, 5) AS c"""
    ).first()
    assert row.a == "foo.w" and row.b == "x.b" and row.c in ("q", "r")


def test_validate_mappings_lists_errors_and_warnings_with_their_rule(spark):
    problems = validate_mappings(
        """
        orders.flush orders.central.flush
        orders.* "orders.central.{{wildcard(1)}}"
        svc: [{destination: svc.v1, weight: 60}, {destination: svc.v2, weight: 50}]
        bad: [{destination: x, weight: 101%, color: red}]
        """
    )
    assert all(isinstance(p, MappingProblem) for p in problems)
    by_rule = {p.rule: p for p in problems}
    assert by_rule["svc"] == MappingProblem(
        "svc", "svc.v2", "error", 'Error adding mapping for "svc" : total weight needs to be <= 100'
    )
    assert by_rule["bad"].severity == "error" and by_rule["bad"].destination == "x"
    assert by_rule["orders.*"].severity == "warning" and "orders.flush" in by_rule["orders.*"].message
    assert validate_mappings({"a.*": "b.$1", "c": [{"destination": "d", "weight": "100%"}]}) == []
    unreadable = validate_mappings("a: [1,")
    assert len(unreadable) == 1 and unreadable[0].rule is None and unreadable[0].severity == "error"


# --- Our reading of nats-server's config syntax, checked against the nats-server binary -----------
# The engine's reading and the binary's verdict are the same on every Spark line: the newest line's full run
# checks them (an older line's run reaches validate_mappings through its Spark above).

NATS = shutil.which("nats-server")
same_on_every_line = pytest.mark.skipif(COMPAT_RUN, reason="the same on every Spark line: the newest line's run")

SYNTAX_VARIANTS = [
    SIMPLE,
    CANARY,
    SHAPING,
    LOSS,
    SPLIT_AND_LOSS,
    CLUSTERS.split("=", 1)[1],
    "transform.order target.order\n\ttarget.order transform.order\n",
    "'a.*' = 'b.$1'; \"c\" : d, e f",
    "a: [{destination: b, weight: 98}]",
    'a: [{destination: b, weight: "98%"}]',
    "a: [{Destination: b, WEIGHT: 98%}, {dest: c, weight: 2}]",
    "a: {destination: b, weight: 100%}",
    "a: [{destination: b, weight: 100%},]",
    "a: [\n {destination: b, weight: 50%}\n {destination: c, weight: 50%}\n]",
    "# comment\na: b // another\nc: d # more",
    "{ a: b }",
    "a: [{destination: b weight: 5}]",
    "a: [{destination: b, weight: 5%}",
    "a: [,]",
    "a: [{destination: b, weight: -1%}]",
    "a: [{destination: b, weight: 1.5}]",
    "a: [{destination: b, weight: abc}]",
    "a: [{destination: b, weight: 50, color: red}]",
    "a: [{destination: b}]",
    "a: b.$1",
    "a.*: $1",
    "a: 'b",
    "a b c",
    "a: [{destination: b, weight: 60}, {destination: c, weight: 50}]",
    "a: [{destination: b, weight: 100, cluster: x}, {destination: c, weight: 100, cluster: y}]",
    '"a b": c',
    "a: x\\ty",
    "a: [{destination: 'b', weight: 1k}]",
    "a = [{destination = b; weight = 100}]",
]
# nats-server cuts an unquoted destination at its first "}": silently (the first: it maps to
# "orders.central.{{wildcard(1)"), or with a confusing error further on (the second). We refuse both
# and say to quote the destination.
CUT_BY_NATS = [
    ("orders.* orders.central.{{wildcard(1)}}", True),
    ("a.*: [{destination: b.{{wildcard(1)}}, weight: 100%}]", False),
]


def nats_accepts(tmp_path, body: str) -> bool:
    text = body.strip()
    conf = f"mappings {text}\n" if text.startswith("{") else f"mappings {{\n{body}\n}}\n"
    path = tmp_path / "m.conf"
    path.write_text(conf, encoding="utf-8")
    done = subprocess.run([NATS, "-t", "-c", str(path)], capture_output=True, text=True, timeout=30)
    return done.returncode == 0


@same_on_every_line
@pytest.mark.skipif(NATS is None, reason="nats-server is not on PATH")
@pytest.mark.parametrize("body", SYNTAX_VARIANTS)
def test_accepts_exactly_what_the_nats_server_binary_accepts(spark, tmp_path, body):
    ours = not any(p.severity == "error" for p in validate_mappings(body))
    assert ours == nats_accepts(tmp_path, body), validate_mappings(body)


@same_on_every_line
@pytest.mark.skipif(NATS is None, reason="nats-server is not on PATH")
@pytest.mark.parametrize("body, nats_accepted", CUT_BY_NATS)
def test_refuses_unquoted_functions_that_nats_server_cuts(spark, tmp_path, body, nats_accepted):
    assert nats_accepts(tmp_path, body) == nats_accepted
    problems = validate_mappings(body)
    assert any(p.severity == "error" and "put the destination in quotes" in p.message for p in problems)
