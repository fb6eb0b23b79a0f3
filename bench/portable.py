"""The portable path (subjxform.portable, Spark's built-ins only) beside the jar and the Arrow Python UDF.

``PYTHONPATH=python/src python bench/portable.py [--rows N] [--rounds R]`` (``bash bench/run.sh --portable``).
The same data and timing as bench/bench.py (cached subjects of the bench's four kinds, each case
``df.select(expr).agg(sum(length(...))).collect()``, rounds interleaving every case, best kept), on the
bench's transform cases (bench/cases.tsv: reorder, partition ``{{partition(16,2)}}``, prefix, split_slice)
and its 4-rule subject_map. Both paths' answers are checked equal row by row before anything is timed.
Prints a table and writes bench/RESULTS-portable.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from pyspark import cloudpickle  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

import bench  # noqa: E402
import subjxform  # noqa: E402
from bench import bench_session, load_data, machine, reorder_py, time_case  # noqa: E402
from cases import read_cases  # noqa: E402
from subjxform import portable  # noqa: E402

# Python workers cannot import bench/bench.py: its UDF goes to them by value.
cloudpickle.register_pickle_by_value(bench)

GROUPS = ("reorder", "partition", "prefix", "split_slice")
# The bench's own mapping table (bench.py's subject_map case).
MAPPINGS = {
    "orders.*.*.*": "orders.{{wildcard(2)}}.$1.$3",
    "payments.*.*": "payments.{{partition(8,2)}}.$1.$2",
    "shipments.>": "archive.shipments.>",
    "telemetry.*.>": "t.$1.>",
}


def build(cases, with_udf: bool):
    """(group, label, Column, python?) in table order: each group's jar case first, then portable."""
    out = []
    for group in GROUPS:
        src, dest = cases[group]
        out.append((group, "jar", subjxform.subject_transform("subject", src, dest), False))
        out.append((group, "portable", portable.subject_transform("subject", src, dest), False))
        if group == "reorder" and with_udf:
            out.append((group, "Python UDF (Arrow)", F.udf(reorder_py, "string", useArrow=True)("subject"), True))
    out.append(("subject_map", "jar", subjxform.subject_map("subject", MAPPINGS), False))
    out.append(("subject_map", "portable", portable.subject_map("subject", MAPPINGS), False))
    return out


def check_agreement(df, table) -> None:
    """Both paths give the same value on every row (not only the same total length)."""
    for group in [g for g, label, *_ in table if label == "jar"]:
        jar, port = (c for g, label, c, _ in table if g == group and label in ("jar", "portable"))
        differing = (
            df.select(jar.alias("j"), port.alias("p")).where(~F.col("j").eqNullSafe(F.col("p"))).limit(3).collect()
        )
        if differing:
            raise SystemExit(f"{group}: the portable path disagrees with the jar, e.g. {differing}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=4_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="6g")
    ap.add_argument("--no-udf", action="store_true")
    ap.add_argument("--out", default=str(BENCH / "RESULTS-portable.md"), help="'-' to write no file")
    args = ap.parse_args()
    spark = bench_session("subjxform-bench-portable", subjxform.jar_path(), args.master, args.driver_memory)
    try:
        cases = read_cases()
        df = load_data(spark, args.rows)
        table = build(cases, with_udf=not args.no_udf)
        check_agreement(df, table)
        for _, _, column, _ in table:  # warm-up
            time_case(df, column)
        best: dict[tuple[str, str], float] = {}
        for r in range(args.rounds):
            for group, label, column, _python in table:
                t, _ = time_case(df, column)
                best[(group, label)] = min(best.get((group, label), t), t)
            print(f"round {r + 1} done", flush=True)
        report = render(spark, args, cases, table, best)
        print(report)
        if args.out != "-":
            Path(args.out).write_text(report, encoding="utf-8")
            print(f"written to {args.out}")
    finally:
        spark.stop()


def render(spark, args, cases, table, best) -> str:
    ns = {k: v * 1e9 / args.rows for k, v in best.items()}
    m = machine()
    lines = [
        "# The portable path beside the jar",
        "",
        f"Written by `bash bench/run.sh --portable` (bench/portable.py) on {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} "
        f"UTC, commit {m['commit']}; {m['cpu']}, {m['cores']} cores; Spark {spark.version} (`{args.master}`).",
        f"{args.rows:,} cached subjects (bench.py's data), best of {args.rounds} interleaved rounds; the two paths' "
        "answers checked equal row by row first. *vs jar*: the case's time over the jar's in the same group.",
        "",
        "| group | case | expression | ns/row | vs jar |",
        "|---|---|---|---:|---:|",
    ]
    for group, label, _, _ in table:
        expression = "4 rules (bench.py's)" if group == "subject_map" else f"`{cases[group][0]}` -> `{cases[group][1]}`"
        lines.append(
            f"| {group} | {label} | {expression if label == 'jar' else ''} | {ns[(group, label)]:.1f} | "
            f"{ns[(group, label)] / ns[(group, 'jar')]:.2f} |"
        )
    lines += ["", "| target (same run) | measured | |", "|---|---|---|"]
    worst = max(ns[(g, "portable")] / ns[(g, "jar")] for g in (*GROUPS, "subject_map"))
    lines.append(
        f"| portable within 2.5 x of the jar (worst case) | {worst:.2f} x | {'met' if worst <= 2.5 else 'NOT met'} |"
    )
    if ("reorder", "Python UDF (Arrow)") in ns:
        faster = ns[("reorder", "Python UDF (Arrow)")] / ns[("reorder", "portable")]
        lines.append(
            f"| reorder: portable >= 2 x faster than the Arrow UDF | {faster:.1f} x faster | "
            f"{'met' if faster >= 2 else 'NOT met'} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
