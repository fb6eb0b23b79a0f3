"""Property: subject_map_explain agrees with subject_map, the function it explains, on every accepted golden
mapping case and on randomized tables (literal and wildcard rules that overlap, weighted and
cluster-scoped destinations, listed sources), through Spark, with the same seed, and with a per-message
key. Each explanation also agrees with the functions it names: the rule it names matches the subject
(subject_matches), the destination it names gives the result (subject_transform), the outcome is the
result's."""

from __future__ import annotations

import json
import random

from pyspark.sql import functions as F

from conftest import golden
from subjxform import subject_map, subject_map_explain, subject_matches, subject_transform

CASES = [c for c in golden("map_cases.jsonl") if c["accepted"]]


def _disagreements(df, seeds=(0, 7), cluster="cluster"):
    """Rows where an explanation differs from subject_map (drawn the same way) or from what it names."""
    checks = []
    for seed in seeds:
        for key in (None, "id"):
            x = subject_map_explain("subject", F.col("mappings"), F.col(cluster), seed, key)
            mapped = subject_map("subject", F.col("mappings"), F.col(cluster), seed, key)
            checks.append((f"seed {seed} key {key}", x, mapped))
    failures = []
    for name, explained, mapped in checks:
        # Each drawn once, in one projection (the same seed: the same draws); the checks read the columns.
        x = F.col("x")
        rows = (
            df.select("*", explained.alias("x"), mapped.alias("mapped"))
            .select(
                "*",
                F.array(
                    # The result is subject_map's, and the outcome the result's.
                    x.result.eqNullSafe(F.col("mapped")),
                    F.when(x.outcome == "no_match", x.rule.isNull() & (x.result == F.col("subject")))
                    .when(x.outcome == "dropped", x.result.isNull())
                    .when(x.outcome == "unchanged", x.result == F.col("subject"))
                    .otherwise((x.outcome == "mapped") & x.result.isNotNull()),
                    # The rule named matches the subject; literal rules only equal it.
                    x.rule.isNull() | subject_matches("subject", x.rule),
                    x.rule.isNull() | ((x.matched_as == "literal") == (x.rule == F.col("subject"))),
                    # The destination named builds the result ({{random(n)}} draws are the function's own).
                    x.destination.isNull()
                    | x.destination.contains("random(")
                    | subject_transform("subject", x.rule, x.destination).eqNullSafe(x.result),
                    # A remainder keeps the subject or drops it, never both a remainder and a destination.
                    ~F.coalesce(x.remainder, F.lit(False))
                    | (x.destination.isNull() & x.outcome.isin("unchanged", "dropped")),
                ).alias("checks"),
            )
            .where(~F.forall("checks", lambda ok: F.coalesce(ok, F.lit(False))))
        )
        failures += [
            (name, {k: v for k, v in r.asDict(recursive=True).items() if k != "mappings"})
            for r in rows.limit(5).collect()
        ]
    return failures


def test_every_accepted_golden_case(spark):
    rows = []
    for i, c in enumerate(CASES):
        clusters = {None, "nowhere"} | {
            d.get("cluster")
            for ds in json.loads(c["mappings"]).values()
            if isinstance(ds, list)
            for d in ds
            if isinstance(d, dict)
        }
        rows += [(i * 10 + k, c["subject"], c["mappings"], cl) for k, cl in enumerate(sorted(clusters, key=str))]
    df = spark.createDataFrame(rows, "id long, subject string, mappings string, cluster string")
    assert len(CASES) > 50
    failures = _disagreements(df)
    assert not failures, failures


TOKENS = ["a", "b", "c", "orders", "x1"]


def _source(rng: random.Random) -> str:
    toks = [rng.choice(TOKENS + ["*", "*"]) for _ in range(rng.randint(1, 3))]
    return ".".join(toks + ([">"] if rng.random() < 0.3 else []))


def _destination(src: str, i: int) -> str:
    stars = src.split(".").count("*")
    return ".".join(
        [f"d{i}"] + [f"{{{{wildcard({k})}}}}" for k in range(1, stars + 1)] + ([">"] if src.endswith(">") else [])
    )


def _table(rng: random.Random) -> str:
    table = {}
    for _ in range(rng.randint(1, 8)):
        src = _source(rng)
        n = rng.randint(0, 3)
        entries = []
        for i in range(n):
            entry = {"destination": _destination(src, i), "weight": rng.randint(0, 30)}
            if rng.random() < 0.4:
                entry["cluster"] = rng.choice(["east", "west"])
            entries.append(entry)
        if rng.random() < 0.3 and "*" not in src and ">" not in src:
            entries.append({"destination": src, "weight": 10})  # listed: the remainder is dropped
        table[src] = entries if entries else _destination(src, 9)
    return json.dumps(table)


def test_randomized_tables(spark):
    rng = random.Random(15)
    rows = []
    for t in range(150):
        table = _table(rng)
        for k in range(20):
            subject = ".".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 5)))
            rows.append((t * 100 + k, subject, table, rng.choice([None, "east", "west"])))
    df = spark.createDataFrame(rows, "id long, subject string, mappings string, cluster string").repartition(3)
    outcomes = {
        r[0]
        for r in df.select(subject_map_explain("subject", F.col("mappings"), F.col("cluster"), 1, "id").outcome)
        .distinct()
        .collect()
    }
    assert outcomes == {"mapped", "unchanged", "dropped", "no_match"}  # the tables reach every outcome
    failures = _disagreements(df)
    assert not failures, failures
