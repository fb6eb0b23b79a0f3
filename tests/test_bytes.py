"""split, slice, left and right count bytes, as nats-server does (SPEC §4, issue 39), on every path: the jar, the
portable path, `subjxform sql` and `subjxform mapping`; and what such a result is in Spark when a count ends inside
a character: a STRING holding the server's bytes, through Parquet, joins and group-bys, which PySpark shows with
U+FFFD when it collects it (docs/reference/sql-functions.md, "Results that are not UTF-8")."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pyspark.sql import functions as F

from conftest import SPARK_MODE, classic_only, needs_jar
from subjxform import portable

# What nats-server delivers (tests/golden/servers/<line>/transforms.jsonl, ids bytes-0 and bytes-2, from each
# line's binary; left exists from 2.15).
ISSUE = ("sensor.*.*", "telemetry.{{wildcard(2)}}.{{splitfromleft(1,3)}}", "sensor.münchen01.dev-1")
ISSUE_DELIVERED = "telemetry.dev-1.mü.nchen01".encode()
CUT = ("m.*", "{{left(1,1)}}.{{slicefromleft(1,2)}}", "m.日本")  # 日本: E6 97 A5 E6 9C AC
CUT_DELIVERED = bytes.fromhex("e62ee6972ea5e62e9cac")


def bytes_of(session, subject_transform) -> list[bytes | None]:
    """The issue's and the cut's results, read as bytes (one query)."""
    df = session.createDataFrame([(ISSUE[2], CUT[2])], "issue string, cut string")
    row = df.select(F.hex(subject_transform("issue", *ISSUE[:2])), F.hex(subject_transform("cut", *CUT[:2]))).first()
    return [None if h is None else bytes.fromhex(h) for h in row]


@needs_jar
def test_the_jar_gives_the_servers_bytes(session):
    from subjxform import subject_transform

    assert bytes_of(session, subject_transform) == [ISSUE_DELIVERED, CUT_DELIVERED]


def test_the_portable_path_gives_the_servers_bytes(session):
    assert bytes_of(session, portable.subject_transform) == [ISSUE_DELIVERED, CUT_DELIVERED]


def test_subjxform_sql_gives_the_servers_bytes(session, tmp_path):
    block = tmp_path / "m.conf"
    block.write_text(f'"{ISSUE[0]}": "{ISSUE[1]}"\n"{CUT[0]}": "{CUT[1]}"\n', encoding="utf-8")
    sql = subprocess.run(
        [sys.executable, "-m", "subjxform", "sql", str(block), "--column", "s"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert sql.returncode == 0, sql.stderr
    df = session.createDataFrame([(ISSUE[2],), (CUT[2],)], "s string")
    got = {bytes.fromhex(h) for (h,) in df.select(F.hex(F.expr(sql.stdout.strip()))).collect()}
    assert got == {ISSUE_DELIVERED, CUT_DELIVERED}


def test_subjxform_mapping_prints_the_servers_bytes():
    for src, dest, subject, delivered in (ISSUE + (ISSUE_DELIVERED,), CUT + (CUT_DELIVERED,)):
        out = subprocess.run(
            [sys.executable, "-m", "subjxform", "mapping", src, dest, subject], capture_output=True, timeout=60
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout == delivered + b"\n\n"


@needs_jar
def test_a_cut_result_keeps_its_bytes_through_parquet_joins_and_group_bys(session, tmp_path):
    """Two results that differ only in bytes that are no UTF-8 stay apart; the stored subjects (as bytes) join."""
    from subjxform import subject_transform

    # left(1,1) of 日 (E6 97 A5) and of 旦 (E6 97 A6): E6 both; slicefromleft(1,2): E6 97 | A5 and E6 97 | A6
    subjects = session.createDataFrame([("m.日",), ("m.旦",), ("m.日",)], "subject string")
    out = subjects.select(subject_transform("subject", "m.*", "{{slicefromleft(1,2)}}").alias("r"))
    path = str(tmp_path / "cut.parquet")
    out.write.parquet(path)
    back = session.read.parquet(path)
    counts = {bytes.fromhex(h): n for h, n in back.groupBy(F.hex("r")).count().collect()}
    assert counts == {bytes.fromhex("e6972ea5"): 2, bytes.fromhex("e6972ea6"): 1}
    assert back.groupBy("r").count().count() == 2  # grouped by bytes, not by how they print
    stored = session.createDataFrame([("e6972ea5",)], "h string").select(F.unhex("h").cast("string").alias("r"))
    assert back.join(stored, "r").count() == 2


@needs_jar
def test_what_pyspark_gives_when_it_collects_bytes_that_are_no_utf8(session):
    """What the docs say: classic PySpark decodes them with U+FFFD; a Spark Connect client cannot decode them and
    raises UnicodeDecodeError (this runs in both modes); hex() gives the bytes in both."""
    from subjxform import subject_transform

    df = session.createDataFrame([(CUT[2],)], "subject string")
    cut = df.select(subject_transform("subject", "m.*", "{{left(1,1)}}").alias("r"))
    assert cut.select(F.hex("r")).first()[0] == "E6"
    if SPARK_MODE == "connect":
        with pytest.raises(UnicodeDecodeError):
            cut.first()
    else:
        assert cut.first().r == "\ufffd"


@classic_only
@needs_jar
def test_the_engine_gives_the_servers_bytes(spark):
    engine = spark._jvm.subjxform.engine
    tr = engine.SubjectTransform.compile(*CUT[:2])
    subject = CUT[2].encode()
    assert bytes(tr.apply(subject, 0, len(subject), engine.Workspace())) == CUT_DELIVERED


def test_the_python_port_gives_the_servers_bytes():
    from subjxform.grammar.subject_transform import apply_reference, compile_transform

    for src, dest, subject, delivered in (ISSUE + (ISSUE_DELIVERED,), CUT + (CUT_DELIVERED,)):
        assert apply_reference(compile_transform(src, dest), subject.encode()) == delivered
