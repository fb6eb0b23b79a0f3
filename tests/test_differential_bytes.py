"""Differential test of the functions that count bytes (split, splitfromleft/right, slicefromleft/right, left,
right) on non-ASCII subjects: every path of subjxform must give the bytes nats-server delivers,

- the jar: ``try_subject_transform`` with the transforms from columns;
- ``subjxform.portable``: ``try_subject_transform`` with each transform a constant;
- ``subjxform sql``: the command run on a mappings block of the transforms, its SQL run by Spark;
- the command line: ``subjxform mapping SRC DEST SUBJECT...``, one process per transform;

each compared as bytes (``hex`` in Spark), never as a collected string: PySpark shows a STRING that is not UTF-8
with U+FFFD in place of the bytes it cannot decode. One Spark query per path (all lines at once).

Two sources of the server's answers:

- CI: the per-line goldens' non-ASCII cases (`bytes-*` in tests/golden/servers/<line>/transforms.jsonl, made by
  each line's binary: tests/server_lines_golden.py), cuts inside characters included;
- on demand, nats-server's own Go code: tests/transform_oracle, a small Go program built against the nats-server
  module of each line's measured release (go.mod, go.<line>.mod), on seeded transforms and subjects
  (tests/transform_gen.py: characters of two to four bytes, and bytes that are no UTF-8). Its cold build takes
  minutes (it compiles nats-server), so it runs only when asked:

      SUBJXFORM_GO_ORACLE=1 python -m pytest -q -s tests/test_differential_bytes.py   # a sample, every line
      SUBJXFORM_HEAVY=1 python -m pytest -q -s tests/test_differential_bytes.py       # 100 transforms a line
      SUBJXFORM_HEAVY=1 SUBJXFORM_DIFF_TRANSFORMS=25 python -m pytest ...             # 119,000 in all (5 lines)

  (the seed is printed; SUBJXFORM_DIFF_SEED repeats a run). Needs Go and, for a cold build, the module proxy.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import reduce
from pathlib import Path

import pytest
from pyspark.sql import functions as F

import transform_gen as gen
from conftest import GOLDEN, ROOT, classic_only, needs_jar
from subjxform import portable, try_subject_transform
from subjxform.grammar.subject_transform import InvalidTransform, compile_transform

ORACLE = ROOT / "tests" / "transform_oracle"
LINES = ["2.10", "2.11", "2.12", "2.14", "2.15"]
HEAVY = os.environ.get("SUBJXFORM_HEAVY") == "1"
GO_ORACLE = HEAVY or os.environ.get("SUBJXFORM_GO_ORACLE") == "1"
# Generated: heavy 100 transforms x 1,000 subjects a line through every path (the command line
# starts a JVM a transform, the portable path and `subjxform sql` build SQL a transform: subjects are cheaper).
TRANSFORMS = int(os.environ.get("SUBJXFORM_DIFF_TRANSFORMS", "100" if HEAVY else "8"))  # a line
SUBJECTS = 1000 if HEAVY else 12
SEED = int(os.environ.get("SUBJXFORM_DIFF_SEED", "20261128"))
EMPTY_TOKEN = b"Error: the result has an empty token (nats-server drops such a message)"
PARTS_PER_QUERY = 10  # parts (a line, a transform, a table) unioned into one query
# Transforms in one `subjxform sql` table: a table of many rules that slice is a large expression, which Spark takes
# seconds to analyse and compile (the SQL of 66 such rules: 640 KB, minutes).
CHUNK = 8
# Transforms of each line through the portable path and `subjxform sql` in a sample (not heavy): each builds and
# compiles an expression of a few thousand nodes, seconds apiece; those using the most functions are taken.
SAMPLE = 2

pytestmark = [needs_jar, classic_only]


@dataclass
class Case:
    line: str
    src: str
    dest: str
    subjects: list[bytes]
    server_error: str | None = None
    # per subject: the transformed subject's bytes, or Match's error ("invalid subject", "no matching ...")
    server: list[bytes | str] = field(default_factory=list)


# --- the server's answers ----------------------------------------------------------------------------


def golden_cases(line: str) -> list[Case]:
    """The per-line golden's `bytes-*` cases, one Case per transform. The golden keeps a dropped subject (one with
    an empty token) as NULL: it stands here as b"", a subject with an empty token."""
    by_transform: dict[tuple[str, str], Case] = {}
    with open(GOLDEN / "servers" / line / "transforms.jsonl", encoding="utf-8") as f:
        for c in (json.loads(x) for x in f if x.strip()):
            if not c["id"].startswith("bytes-"):
                continue
            case = by_transform.setdefault((c["src"], c["dest"]), Case(line, c["src"], c["dest"], []))
            case.server_error = c["error"]
            if c["accepted"]:
                case.subjects.append(c["subject"].encode())
                got = bytes.fromhex(c["expected_hex"]) if "expected_hex" in c else c["expected"]
                case.server.append(b"" if got is None else got.encode() if isinstance(got, str) else got)
            else:
                case.subjects.append(c["subject"].encode())
    return list(by_transform.values())


def functions_of(line: str) -> list[str]:
    """The byte-counting functions the line knows (left/right from 2.15)."""
    return [f for f in gen.BYTE_FUNCTIONS if f not in ("left", "right") or line == "2.15"]


def generated_cases(line: str, seed: int) -> list[Case]:
    r = random.Random(f"{seed}/{line}")
    cases = []
    for i in range(TRANSFORMS):
        src = gen.byte_source(r, i)
        dest = gen.byte_destination(r, src, functions_of(line))
        cases.append(Case(line, src, dest, gen.byte_subjects(r, src, SUBJECTS)))
    return cases


def build_oracle(line: str, out_dir: Path) -> Path:
    """The Go oracle built against `line`'s nats-server module (Go's build cache keeps it warm between runs)."""
    binary = out_dir / f"transform_oracle-{line}"
    modfile = "go.mod" if line == "2.15" else f"go.{line}.mod"
    tags = ["-tags", "line210"] if line == "2.10" else []
    subprocess.run(["go", "build", "-modfile", modfile, *tags, "-o", str(binary), "."], cwd=ORACLE, check=True)
    return binary


def ask_oracle(binary: Path, cases: list[Case]) -> None:
    """Fills each case's verdict and results from the Go oracle (one process for all of them)."""
    request = "".join(
        json.dumps({"src": c.src, "dest": c.dest, "subjects": [s.hex() for s in c.subjects]}) + "\n" for c in cases
    )
    answer = subprocess.run([str(binary)], input=request.encode(), capture_output=True, check=True).stdout
    for c, line in zip(cases, answer.decode().splitlines(), strict=True):
        got = json.loads(line)
        c.server_error = got["error"]
        c.server = [bytes.fromhex(x["subject"]) if "subject" in x else x["error"] for x in got["results"] or []]


# --- what each path must give for the server's answer ------------------------------------------------


def has_empty_token(subject: bytes) -> bool:
    return b"" in subject.split(b".")


def delivered(subject: bytes, result: bytes | str) -> bytes | None:
    """subject_transform: the bytes Match built, NULL where it refused the subject or the subject has an empty
    token (Core NATS drops that message: SPEC §1)."""
    if isinstance(result, str) or has_empty_token(result):
        return None
    return result


def mapped(subject: bytes, result: bytes | str) -> bytes | None:
    """subject_map: as subject_transform, but the subject unchanged where no rule matches it."""
    return subject if result == "no matching transforms available" else delivered(subject, result)


def cli_line(result: bytes | str) -> bytes:
    """What `subjxform mapping` prints for a subject (as `nats server mapping` does)."""
    if isinstance(result, str):
        return b"Error: " + result.encode()
    return EMPTY_TOKEN if has_empty_token(result) else result


# --- the paths -------------------------------------------------------------------------------------


def subjects_frame(spark, cases: list[Case]):
    """Every subject of `cases` as bytes (unhex: any bytes), with its case's index, line and transform."""
    rows = [(ci, si, s.hex(), c.line, c.src, c.dest) for ci, c in enumerate(cases) for si, s in enumerate(c.subjects)]
    df = spark.createDataFrame(rows, "ci int, si int, h string, line string, src string, dest string")
    return df.withColumn("subject", F.unhex("h").cast("string"))


def collect_hex(parts: Iterable, per_query: int = PARTS_PER_QUERY) -> dict[tuple[int, int], bytes | None]:
    """(ci, si) -> result bytes, from DataFrames of (ci, si, hex), `per_query` of them unioned into a query. `parts`
    is consumed as it goes: a DataFrame of a large expression holds its analysed plan in the driver, and a heavy
    run's hundreds of them, built first, ran a 6 GB driver out of heap."""
    found = {}
    it = iter(parts)
    while batch := list(itertools.islice(it, per_query)):
        union = reduce(lambda a, b: a.unionAll(b), batch)
        found.update({(r[0], r[1]): None if r[2] is None else bytes.fromhex(r[2]) for r in union.collect()})
    return found


def jar_results(df, cases: list[Case]):
    lines = sorted({c.line for c in cases})
    return collect_hex(
        [
            df.where(F.col("line") == line).select(
                "ci", "si", F.hex(try_subject_transform("subject", F.col("src"), F.col("dest"), server_version=line))
            )
            for line in lines
        ]
    )


def portable_results(df, cases: list[Case], chunks: list[list[int]]):
    """Each transform a constant (a Column built from its tree: a few thousand calls into the JVM), a projection each
    (two in one projection can pass the 64 KB Spark compiles a method to)."""
    return collect_hex(
        df.where(F.col("ci") == ci).select(
            "ci",
            "si",
            # Named: Spark would name hex(...) by the whole generated expression's SQL (megabytes for a heavy run).
            F.hex(portable.try_subject_transform("subject", c.src, c.dest, server_version=c.line)).alias("h"),
        )
        for chunk in chunks
        for ci in chunk
        for c in [cases[ci]]
    )


def sql_results(spark, df, cases: list[Case], chunks: list[list[int]], tmp: Path):
    """`subjxform sql` on a mappings block per chunk (every source starts with a token of its own, so one rule at most
    matches a subject), each expression run over its chunk's subjects."""
    df.createOrReplaceTempView("byte_cases")

    def parts():
        for k, chunk in enumerate(chunks):
            line = cases[chunk[0]].line
            block = tmp / f"block-{k}.json"
            # (UTF-8 as it stands: nats-server's config reader refuses JSON's \u escapes, and so does ours)
            rules = {cases[ci].src: cases[ci].dest for ci in chunk}
            block.write_text(json.dumps(rules, ensure_ascii=False), encoding="utf-8")
            cli = subprocess.run(
                [sys.executable, "-m", "subjxform", "sql", str(block), "--server-version", line],
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert cli.returncode == 0, cli.stderr
            ids = ", ".join(map(str, chunk))
            yield spark.sql(f"SELECT ci, si, hex({cli.stdout.strip()}) AS h FROM byte_cases WHERE ci IN ({ids})")

    return collect_hex(parts(), per_query=1)  # (a table's expression is already a large plan)


def chunks_of(cases: list[Case], accepted: list[int], per_line: int | None) -> list[list[int]]:
    """The first `per_line` accepted cases of each line (None: all), in chunks of at most CHUNK transforms of one line
    with distinct sources (a mappings block has one rule a source)."""
    out: list[list[int]] = []
    for line in LINES:
        mine: list[list[int]] = []
        for ci in [ci for ci in accepted if cases[ci].line == line][:per_line]:
            room = [ch for ch in mine if len(ch) < CHUNK and all(cases[x].src != cases[ci].src for x in ch)]
            room[0].append(ci) if room else mine.append([ci])
        out += mine
    return out


def cli_results(case: Case) -> tuple[int, list[bytes]]:
    """`subjxform mapping` for one transform and its subjects: the exit code and the line printed per subject."""
    cmd = [sys.executable, "-m", "subjxform", "mapping", "--server-version", case.line, case.src, case.dest, "--"]
    proc = subprocess.run([c.encode() for c in cmd] + case.subjects, capture_output=True, timeout=600)
    lines = proc.stdout.split(b"\n")
    return proc.returncode, lines[0::2][: len(case.subjects)] if proc.returncode == 0 else lines[:1]


def engine_accepts(spark, case: Case) -> bool:
    engine = spark._jvm.subjxform.engine
    try:
        engine.SubjectTransform.compile(case.src, case.dest, False, engine.ServerVersion.parse(case.line))
        return True
    except Exception as e:
        java = getattr(e, "_origin", None) or getattr(e, "java_exception", None)
        if java is None or java.getClass().getName() != "subjxform.engine.InvalidTransformException":
            raise
        return False


def portable_accepts(case: Case) -> bool:
    try:
        compile_transform(case.src, case.dest, False, case.line)
        return True
    except InvalidTransform:
        return False


def every_path(
    spark, cases: list[Case], tmp: Path, cli_transforms: int, per_line: int | None
) -> tuple[Counter, list[str]]:
    """Every path's verdict and results against the server's; (stats, differences). The jar takes every case; the
    portable path and `subjxform sql` the first `per_line` transforms of each line (None: all), the command line the
    first `cli_transforms` cases."""
    stats: Counter = Counter()
    problems: list[str] = []
    accepted = [ci for ci, c in enumerate(cases) if c.server_error is None]
    for c in cases:
        for path, accepts in (("jar", engine_accepts(spark, c)), ("portable", portable_accepts(c))):
            if accepts != (c.server_error is None):
                problems.append(
                    f"{c.line} {path} verdict {c.src!r} -> {c.dest!r}: {accepts}, nats-server {c.server_error!r}"
                )

    def compare(path: str, found: dict, expected, only=lambda ci: True) -> None:
        for ci in filter(only, accepted):
            c = cases[ci]
            for si, s in enumerate(c.subjects):
                want = expected(s, c.server[si])
                stats[f"{path} cases"] += 1
                if path == "jar" and want is not None and not is_utf8(want):
                    stats["cut inside a character"] += 1
                if found.get((ci, si), "missing") != want:
                    problems.append(
                        f"{c.line} {path} {c.src!r} -> {c.dest!r} on {s!r}: {found.get((ci, si), 'missing')!r}, "
                        f"nats-server {want!r}"
                    )

    df = subjects_frame(spark, cases).cache()
    chunks = chunks_of(cases, accepted, per_line)
    sampled = {ci for chunk in chunks for ci in chunk}
    started = time.monotonic()
    compare("jar", jar_results(df, cases), delivered)
    stats["seconds: jar"] = round(time.monotonic() - started)
    compare("portable", portable_results(df, cases, chunks), delivered, only=lambda ci: ci in sampled)
    stats["seconds: portable"] = round(time.monotonic() - started) - sum(v for k, v in stats.items() if "seconds" in k)
    compare("sql", sql_results(spark, df, cases, chunks, tmp), mapped, only=lambda ci: ci in sampled)
    stats["seconds: sql"] = round(time.monotonic() - started) - sum(v for k, v in stats.items() if "seconds" in k)
    df.unpersist()
    for c in cases[:cli_transforms]:
        code, printed = cli_results(c)
        if (code == 0) != (c.server_error is None):
            problems.append(f"{c.line} cli verdict {c.src!r} -> {c.dest!r}: exit {code} {printed}, {c.server_error!r}")
        elif code == 0:
            stats["cli cases"] += len(c.subjects)
            want = [cli_line(r) for r in c.server]
            problems += [
                f"{c.line} cli {c.src!r} -> {c.dest!r} on {s!r}: {p!r}, nats-server {w!r}"
                for s, p, w in zip(c.subjects, printed + [None] * len(want), want)
                if p != w
            ]
    stats["seconds: cli"] = round(time.monotonic() - started) - sum(v for k, v in stats.items() if "seconds" in k)
    stats["transforms"] += len(cases)
    stats["accepted"] += len(accepted)
    return stats, problems


def is_utf8(b: bytes) -> bool:
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


# --- the tests ---------------------------------------------------------------------------------------


def test_every_path_gives_the_bytes_each_lines_binary_delivered(spark, tmp_path):
    """The per-line goldens' non-ASCII cases: every line, every path (the command line: a few transforms)."""
    # Those using the most byte-counting functions first: the sample of the slower paths takes them.
    cases = sorted(
        (c for line in LINES for c in golden_cases(line)),
        key=lambda c: (LINES.index(c.line), -sum(f + "(" in c.dest.lower() for f in gen.BYTE_FUNCTIONS)),
    )
    cli = [c for c in cases if c.line == "2.15"][:2]
    stats, problems = every_path(spark, cli + [c for c in cases if c not in cli], tmp_path, len(cli), SAMPLE)
    print("byte differential against the goldens:", dict(sorted(stats.items())))
    assert not problems, f"{len(problems)} differences, e.g.\n" + "\n".join(problems[:25])
    assert stats["cut inside a character"] > 100 and stats["cli cases"] > 0 and stats["sql cases"] >= 10, dict(stats)


@pytest.fixture(scope="module")
def oracles():
    with tempfile.TemporaryDirectory(prefix="subjxform-oracle-") as tmp:
        yield {line: build_oracle(line, Path(tmp)) for line in LINES}


@pytest.mark.skipif(not GO_ORACLE, reason="the Go oracle runs on demand: SUBJXFORM_GO_ORACLE=1 or SUBJXFORM_HEAVY=1")
@pytest.mark.skipif(shutil.which("go") is None, reason="Go is not installed (the oracle is a Go program)")
def test_every_path_gives_nats_servers_bytes_on_generated_subjects(spark, oracles, tmp_path):
    print(f"\nbyte differential, seed {SEED} (SUBJXFORM_DIFF_SEED={SEED} repeats it)")
    cases = []
    for line in LINES:
        mine = generated_cases(line, SEED)
        ask_oracle(oracles[line], mine)
        cases += mine
    cli = len(cases) if HEAVY else 3
    stats, problems = every_path(spark, cases, tmp_path, cli, None if HEAVY else SAMPLE)
    for line in LINES:
        print(f"  {line}: {sum(len(c.subjects) for c in cases if c.line == line and c.server_error is None)} cases")
    print(
        "byte differential against nats-server's Go code:", dict(sorted(stats.items())), f"{len(problems)} differences"
    )
    assert not problems, f"{len(problems)} differences, e.g.\n" + "\n".join(problems[:25])
    assert stats["cut inside a character"] > 0, dict(stats)
