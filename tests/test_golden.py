"""The golden cases (produced by a real nats-server 2.15.1) through Spark DataFrames."""

from __future__ import annotations

import filecmp
import re

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

from conftest import GOLDEN, ROOT, golden, one_of_each
from subjxform import try_subject_transform

# Part of the compatibility suite that runs on every Spark line (scripts/test-lines.sh).
pytestmark = pytest.mark.compat

SHARED_GOLDEN = ROOT.parent / "shared" / "golden"
# The golden's deviation for split/slice/left/right on non-ASCII subjects, from when SPEC §4 counted code points.
CODE_POINTS = "character counts are code points; nats-server counts bytes"


def as_delivered(cases: list[dict]) -> list[dict]:
    """Transform cases with `expected` as SPEC §4 reads them now: split/slice/left/right count bytes, as the server,
    so a case the golden pinned with code points expects what nats-server delivered (`nats_received`, or the bytes
    of `nats_received_hex`); a random one, whose delivery was not kept, pins nothing (nor does a random one without
    a pattern in the per-line goldens). A subject that is not UTF-8 (`expected_hex` in the per-line goldens) is a str with surrogate escapes,
    as :func:`from_hex` reads a result."""
    out = []
    for c in cases:
        if c.get("deviation") == CODE_POINTS:
            c = {k: v for k, v in c.items() if k not in ("expected", "expected_pattern", "random")}
            if "nats_received_hex" in c:
                c["expected"] = from_hex(c["nats_received_hex"])
            elif "nats_received" in c:
                c["expected"] = c["nats_received"]
        elif "expected_hex" in c:
            c = dict(c, expected=from_hex(c["expected_hex"]))
        elif c.get("random") and "expected_pattern" not in c:
            c = {k: v for k, v in c.items() if k != "random"}  # a draw the per-line golden does not pin
        out.append(c)
    return out


def from_hex(h: str | None) -> str | None:
    """A subject from the hex of its bytes (Spark's `hex` of a STRING): bytes that are not UTF-8 as surrogate
    escapes. Results are compared this way because PySpark shows such bytes as U+FFFD when it collects a STRING."""
    return None if h is None else bytes.fromhex(h).decode("utf-8", "surrogateescape")


CASES = as_delivered(golden("transform_cases.jsonl"))


@pytest.mark.skipif(not SHARED_GOLDEN.is_dir(), reason="no ../shared/golden beside this checkout")
@pytest.mark.parametrize("name", ["transform_cases.jsonl", "map_cases.jsonl"])
def test_the_repo_copy_is_byte_identical_to_shared_golden(name):
    assert filecmp.cmp(GOLDEN / name, SHARED_GOLDEN / name, shallow=False), f"tests/golden/{name} differs"


def fits(case: dict, actual: str | None) -> bool:
    """Whether `actual` is what the case pins; `<random(n)>` is an integer token in [0, abs(n))."""
    if not case.get("random"):
        return actual == case["expected"]
    pattern = case["expected_pattern"]
    if pattern is None or actual is None:
        return pattern is None and actual is None
    bounds = [abs(int(n)) for n in re.findall(r"<random\((-?\d+)\)>", pattern)]
    regex = "".join(
        re.escape(part) + ("(\\d+)" if i < len(bounds) else "")
        for i, part in enumerate(re.split(r"<random\(-?\d+\)>", pattern))
    )
    m = re.fullmatch(regex, actual)
    return bool(m) and all((int(v) == 0) if b == 0 else (0 <= int(v) < b) for v, b in zip(m.groups(), bounds))


@pytest.fixture(params=["codegen", "interpreted"])
def evaluation(spark, request):
    """Whole-stage generated code (Spark's default), or every expression interpreted."""
    settings = {
        "codegen": {},
        "interpreted": {"spark.sql.codegen.wholeStage": "false", "spark.sql.codegen.factoryMode": "NO_CODEGEN"},
    }[request.param]
    before = {k: spark.conf.get(k, None) for k in settings}
    for k, v in settings.items():
        spark.conf.set(k, v)
    yield request.param
    for k, v in before.items():
        spark.conf.unset(k) if v is None else spark.conf.set(k, v)


def test_every_case_through_one_dataframe_with_transforms_from_columns(spark, evaluation):
    pinned = [
        c for c in CASES if c["subject"] is not None and ("expected" in c or c.get("random") or not c["accepted"])
    ]
    df = spark.createDataFrame(
        [(i, c["subject"], c["src"], c["dest"]) for i, c in enumerate(pinned)],
        "i int, subject string, src string, dest string",
    )
    t = try_subject_transform("subject", F.col("src"), F.col("dest"))
    out = {i: from_hex(h) for i, h in df.select("i", F.hex(t)).collect()}
    failures = []
    for i, c in enumerate(pinned):
        want = c if c["accepted"] else {"expected": None}
        if not fits(want, out[i]):
            failures.append((c["id"], c["src"], c["dest"], c["subject"], out[i], c.get("expected")))
    assert not failures, failures[:20]


def destination_kind(dest: str) -> tuple:
    """What a destination asks of the expression: its mapping functions, a trailing `>`, a `$N` token."""
    return tuple(sorted({f.lower() for f in re.findall(r"[a-zA-Z]+(?=\s*\()", dest)})), dest.endswith(">"), "$" in dest


def test_every_case_with_constant_transforms_through_spark_sql(spark, evaluation):
    accepted = [
        c for c in CASES if c["accepted"] and c["subject"] is not None and not c.get("random") and "expected" in c
    ]
    by_transform: dict[tuple[str, str], list[dict]] = {}
    for c in accepted:
        by_transform.setdefault((c["src"], c["dest"]), []).append(c)
    # One query per distinct transform would be slow; a column per transform in one wide select is not:
    # each is still a constant, compiled once, inside one generated stage. (An older line: one transform of
    # each kind of destination, 231 of the 900.)
    items = one_of_each(by_transform.items(), lambda item: destination_kind(item[0][1]))
    failures = []
    for start in range(0, len(items), 100):
        chunk = items[start : start + 100]
        subjects = sorted({c["subject"] for _, cases in chunk for c in cases})
        df = spark.createDataFrame([(s,) for s in subjects], "subject string")
        cols = [
            F.hex(try_subject_transform("subject", src, dest)).alias(f"t{k}")
            for k, ((src, dest), _) in enumerate(chunk)
        ]
        rows = {r["subject"]: r for r in df.select("subject", *cols).collect()}
        for k, ((_src, _dest), cases) in enumerate(chunk):
            for c in cases:
                got = from_hex(rows[c["subject"]][f"t{k}"])
                if got != c["expected"]:
                    failures.append((c["id"], got, c["expected"]))
    assert not failures, failures[:20]


def nats_reason(error: str) -> str:
    """The reason in nats-server's config error, without its `Error adding mapping for ... : ` prefix."""
    return error.split(" : ", 1)[1] if error.startswith("Error adding mapping") else error


def reason_kind(case: dict) -> str:
    """The kind of nats-server's reason for refusing a case (without the token it names)."""
    return nats_reason(case["error"]).split(" in ")[0]


# (An older line: one case of each kind of reason, 11 of the 324.)
@pytest.mark.parametrize(
    "case", one_of_each([c for c in CASES if not c["accepted"]], reason_kind), ids=lambda c: c["id"]
)
def test_rejected_cases_fail_analysis_with_nats_servers_reason(spark, case):
    df = spark.createDataFrame([("x",)], "subject string")
    with pytest.raises(AnalysisException) as err:
        df.select(F.call_function("subject_transform", F.col("subject"), F.lit(case["src"]), F.lit(case["dest"])))
    assert nats_reason(case["error"]) in str(err.value)
