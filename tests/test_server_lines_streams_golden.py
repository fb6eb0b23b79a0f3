"""stream_plan and stream_messages against tests/golden/servers/<line>/streams.jsonl, what each line's live
JetStream server did with the same generated stream scenarios (tests/server_lines_streams_golden.py made them):
the verdict (created, or refused with the same description and code), the subjects stored and the subjects a
`>` subscriber received from the republish. No server is needed.

A republished subject that is not a valid subject (an empty token: 2.14.0 and older send it, later releases
suppress it) is no republished message here on every line (docs/concepts/server-releases.md)."""

from __future__ import annotations

import functools
import json
import os
import warnings
from collections import Counter

import pytest
from pyspark.sql import functions as F

from server_lines_golden import LINES, ROOT
from subjxform.streams import stream_messages


def records(line: str) -> list[dict]:
    path = os.path.join(ROOT, "tests", "golden", "servers", line, "streams.jsonl")
    with open(path, encoding="utf-8") as f:
        return [json.loads(x) for x in f if x.strip()]


def is_valid_subject(s: str) -> bool:
    return all(t and not any(c in " \t\r\n\f" for c in t) for t in s.split("."))


def verdict(config, cfg: dict, version):
    try:
        config.StreamConfig.plan(config.StreamConfigJson.parse(json.dumps(cfg)), version)
        return None
    except Exception as e:
        java = getattr(e, "_origin", None) or getattr(e, "java_exception", None)
        if java is None or java.getClass().getName() != "subjxform.config.InvalidStreamConfigException":
            raise
        return [java.description(), java.errCode()]


def differing_cases() -> set[int]:
    """The scenarios some line's server answered otherwise than another's."""
    outcomes = [
        [
            json.dumps({k: r.get(k) for k in ("error", "stored", "republished", "inactive")}, sort_keys=True)
            for r in records(line)
        ]
        for line in LINES
    ]
    return {i for i in range(len(outcomes[0])) if len({o[i] for o in outcomes}) > 1}


def same_verdict(ours, theirs) -> bool:
    """Accepted by both, or refused with the same code and text (the engine may name the culprits after it,
    in parentheses: `source filters can not overlap ("o.*.*" and "o.k.*")`)."""
    if ours is None or theirs is None:
        return ours == theirs
    return ours[1] == theirs[1] and (ours[0] == theirs[0] or ours[0].startswith(theirs[0] + " ("))


@pytest.mark.parametrize("line", LINES)
def test_each_lines_streams_store_and_republish_what_its_server_did(spark, line):
    recs = records(line)
    assert len(recs) >= 200
    config = spark._jvm.subjxform.config
    version = spark._jvm.subjxform.engine.ServerVersion.parse(line)
    problems = [
        f"{json.dumps(r['config'])}: nats-server {line} {r['error']}, engine {ours}"
        for r in recs
        if not same_verdict(verdict(config, r["config"], version), r["error"])
        for ours in [verdict(config, r["config"], version)]
    ]
    assert not problems, "\n".join(problems[:20])

    # Through stream_messages (a Spark query each): the cases whose outcome differs between lines, and a
    # sample of the rest (every verdict above is checked).
    differing = differing_cases()
    accepted = [r for i, r in enumerate(recs) if r["error"] is None and (i in differing or i % 64 == 0)]
    checked, problems = stores_and_republishes(spark, line, accepted)
    assert checked >= 20, checked
    assert not problems, "\n".join(problems[:20])


def stores_and_republishes(spark, version_name: str, accepted: list[dict]) -> tuple[int, list[str]]:
    """stream_messages with `server_version=version_name` against what its server stored and republished for
    the accepted scenarios `accepted` (one Spark query for them all): how many were checked, and the problems."""
    problems = []
    # One DataFrame of every case's messages; each case reads its own.
    messages = spark.createDataFrame(
        [(i, s, o) for i, r in enumerate(accepted) for s, o in r["messages"]], "case int, subject string, stream string"
    ).cache()
    parts = []
    for i, r in enumerate(accepted):
        df = messages.where(F.col("case") == i).drop("case")
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            out = stream_messages(df, r["config"], origin_col="stream", server_version=version_name)
        # A source whose consumer fails shows the error in STREAM.INFO, or between two retries only stores nothing.
        failed = bool(r["inactive"]) or (not r["stored"] and r["kind"] in ("overlap", "empty_src"))
        if failed != any("nothing is taken" in str(w.message) for w in warned):
            problems.append(
                f"{json.dumps(r['config'])}: nats-server {version_name}'s source failed with {r['inactive']}, "
                f"engine warned {[str(w.message) for w in warned]}"
            )
        parts.append(out.select(F.lit(i).alias("case"), "stored_subject", "republished_subject"))
    rows = functools.reduce(lambda a, b: a.unionByName(b), parts).collect() if parts else []
    stored: dict[int, Counter] = {i: Counter() for i in range(len(accepted))}
    republished: dict[int, list] = {i: [] for i in range(len(accepted))}
    for row in rows:
        stored[row.case][row.stored_subject] += 1
        if row.republished_subject is not None:
            republished[row.case].append(row.republished_subject)
    for i, r in enumerate(accepted):
        if stored[i] != Counter(r["stored"]):
            problems.append(f"{json.dumps(r['config'])}: stored {r['stored']}, engine {dict(stored[i])}")
        theirs = sorted(s for s in r["republished"] if is_valid_subject(s))
        if sorted(republished[i]) != theirs:
            problems.append(
                f"{json.dumps(r['config'])}: republished {r['republished']}, engine {sorted(republished[i])}"
            )
    messages.unpersist()
    return len(parts), problems
