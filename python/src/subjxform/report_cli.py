"""``subjxform report``: the reports of :mod:`subjxform.reports` over a file of recorded subjects, on an
embedded local Spark: what an operator runs before deploying a mapping change.

    subjxform report TRAFFIC --mappings FILE [--new-mappings FILE] [--subject-column subject]
                     [--cluster-column COL] [--seed N] [--key-column COL] [--partitions SRC:N:TOKENS ...]
                     [--delivered-column COL] [--format parquet|csv|json] [--out DIR]
                     [--server-version V [--upgrade-to W]]

TRAFFIC is a Parquet file or folder, a CSV file with a header, or JSON lines (by extension, or
--format); it needs a subject column (--subject-column), and may have a cluster column (the cluster each
message entered) and a delivered column (what a server delivered, for the canary check of recorded
traffic). FILE is a mappings block (nats-server config syntax or JSON), as `subjxform validate
--mappings` reads it. The reports: rule coverage, canary check, partition balance (of the table's
{{partition(...)}} destinations, or of --partitions candidates such as 'orders.*.*:16:2' or
'orders.*.*:8:1,2'), and the config diff when --new-mappings is given. DIR (default
target/subjxform-report) gets summary.txt (also printed) and one PNG per report. --server-version V
runs every report as nats-server line V does (2.10, 2.11, 2.12, 2.14, 2.15 or a release like 2.10.26;
default the newest); --upgrade-to W adds the server upgrade report: what moving from V to W changes for
the traffic. Exit code 0 when the reports ran, 2 for a usage error, an unreadable file or a mappings
table nats-server (line V) would refuse.
Needs pyspark and matplotlib (pip install 'subjxform[reports]', plus 'subjxform[spark]' without a pyspark).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from typing import Optional

STEPS_WIDTH = 24
SERVER_VERSION_CONF = "spark.subjxform.serverVersion"


def _progress(step: int, steps: int, what: str, started: float) -> None:
    done = int(STEPS_WIDTH * step / steps)
    bar = "#" * done + "-" * (STEPS_WIDTH - done)
    print(f"[{bar}] {step}/{steps} {what} (+{time.monotonic() - started:.1f}s)", file=sys.stderr, flush=True)


def _partition_candidates(specs: list[str]) -> list[tuple[str, int, tuple[int, ...]]]:
    out = []
    for spec in specs:
        try:
            src, n, toks = spec.rsplit(":", 2)
            out.append((src, int(n), tuple(int(t) for t in toks.split(","))))
        except ValueError:
            raise SystemExit(f"subjxform report: --partitions {spec!r}: expected SOURCE:N:TOKEN[,TOKEN...], e.g. 'orders.*.*:16:2'")
    return out


def _read_traffic(spark, path: Path, fmt: Optional[str]):
    fmt = fmt or {".parquet": "parquet", ".csv": "csv", ".json": "json", ".jsonl": "json", ".ndjson": "json"}.get(
        path.suffix.lower(), "parquet" if path.is_dir() else None)
    if fmt is None:
        raise SystemExit(f"subjxform report: cannot tell the format of {path} (use --format parquet|csv|json)")
    reader = spark.read.option("header", "true") if fmt == "csv" else spark.read
    return reader.format(fmt).load(str(path))


def _mappings_problem(spark, text: str) -> Optional[str]:
    """Why the mappings table cannot be used (nats-server's words), or None."""
    from pyspark.errors import PySparkException

    from subjxform import reports
    from subjxform._compat import error_parameters

    try:
        reports.mappings_plan(spark, text)
    except PySparkException as e:
        return error_parameters(e).get("value") or str(e).splitlines()[0]
    return None


def main(argv: Optional[list[str]] = None, spark=None) -> int:
    parser = argparse.ArgumentParser(prog="subjxform report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("traffic", type=Path)
    parser.add_argument("--mappings", type=Path, required=True)
    parser.add_argument("--new-mappings", type=Path)
    parser.add_argument("--subject-column", default="subject")
    parser.add_argument("--cluster-column")
    parser.add_argument("--delivered-column")
    parser.add_argument("--seed", type=int, default=0)  # the Python reports' default: the same draws
    parser.add_argument("--key-column", help="a per-message key (e.g. an id): each draw is then the message's own")
    parser.add_argument("--partitions", nargs="*", default=[])
    parser.add_argument("--format", choices=["parquet", "csv", "json"])
    parser.add_argument("--out", type=Path, default=Path("target/subjxform-report"))
    parser.add_argument("--server-version", help="the nats-server line the reports follow (default: the newest)")
    parser.add_argument("--upgrade-to", help="also report what moving from --server-version to this line changes")
    args = parser.parse_args(argv)
    if args.upgrade_to and not args.server_version:
        print("subjxform report: --upgrade-to needs --server-version (the line the servers run now)", file=sys.stderr)
        return 2
    for f in [args.traffic, args.mappings] + ([args.new_mappings] if args.new_mappings else []):
        if not f.exists():
            print(f"subjxform report: {f}: no such file", file=sys.stderr)
            return 2
    # Checked before Spark starts: a missing package is one line, not a traceback after the reports ran.
    missing = [m for m in ("pyspark", "matplotlib") if importlib.util.find_spec(m) is None]
    if missing:
        print(f"subjxform report needs {' and '.join(missing)}: pip install 'subjxform[reports]' (matplotlib), "
              "and 'subjxform[spark]' where no pyspark is installed", file=sys.stderr)
        return 2
    old = args.mappings.read_text(encoding="utf-8")
    new = args.new_mappings.read_text(encoding="utf-8") if args.new_mappings else None
    candidates = _partition_candidates(args.partitions)

    started = time.monotonic()
    steps = 4 + (1 if new else 0) + (1 if args.upgrade_to else 0)
    _progress(0, steps, "starting an embedded local Spark", started)
    from pyspark.sql import SparkSession

    import subjxform
    from subjxform import reports

    own = spark is None
    if own:
        spark = (
            subjxform.configure(SparkSession.builder.master("local[*]").appName("subjxform-report"))
            .config("spark.ui.showConsoleProgress", "true")  # Spark's own bar for each job
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "8")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
    conf_before = spark.conf.get(SERVER_VERSION_CONF, None)
    try:
        if args.server_version or args.upgrade_to:
            from subjxform.mappings import _server_version

            try:  # an unsupported line is a usage error naming the supported ones
                for v in (args.server_version, args.upgrade_to):
                    if v:
                        _server_version(spark, v, "subjxform report")
            except ValueError as e:
                print(f"subjxform report: {e}", file=sys.stderr)
                return 2
            # Every function compiles for the session's line when its query is analysed.
            spark.conf.set(SERVER_VERSION_CONF, args.server_version)
        for path, text in [(args.mappings, old)] + ([(args.new_mappings, new)] if new is not None else []):
            problem = _mappings_problem(spark, text)
            if problem:
                print(f"subjxform report: {path}: {problem}", file=sys.stderr)
                return 2
        traffic = _read_traffic(spark, args.traffic, args.format)
        missing = [c for c in (args.subject_column, args.cluster_column, args.delivered_column, args.key_column)
                   if c and c not in traffic.columns]
        if missing:
            print(f"subjxform report: {args.traffic} has no column {', '.join(missing)} (it has {', '.join(traffic.columns)})",
                  file=sys.stderr)
            return 2
        traffic = traffic.cache()
        subject, cluster, key = args.subject_column, args.cluster_column, args.key_column
        args.out.mkdir(parents=True, exist_ok=True)
        done: list[tuple[str, "reports.Report"]] = []

        def run(step: int, name: str, make) -> None:
            _progress(step, steps, name, started)
            done.append((name, make()))

        run(1, "rule coverage", lambda: reports.rule_coverage(traffic, old, subject, cluster, args.seed, key))
        run(2, "canary check", lambda: reports.canary_check(traffic, old, subject, cluster, args.seed, key,
                                                           delivered=args.delivered_column))
        if candidates:
            run(3, "partition balance", lambda: reports.partition_balance(traffic, candidates=candidates, subject=subject))
        elif reports.partition_candidates(spark, old):
            run(3, "partition balance", lambda: reports.partition_balance(traffic, mappings=old, subject=subject))
        if new is not None:
            run(4, "config diff", lambda: reports.config_diff(traffic, old, new, subject, cluster, args.seed, key))
        if args.upgrade_to:
            run(steps - 1, "server upgrade", lambda: reports.server_upgrade(
                traffic, old, args.server_version, args.upgrade_to, subject, cluster, args.seed, key))
        _progress(steps - 1, steps, "writing the summary and the charts", started)
        parts = [f"subjxform report: {args.traffic} with {args.mappings}" + (f" -> {args.new_mappings}" if new else "")
                 + f", seed {args.seed}" + (f", nats-server {args.server_version}" if args.server_version else "")]
        for name, report in done:
            png = report.chart(args.out / (name.replace(" ", "_") + ".png"))
            parts.append(report.text + (f"\n(chart: {png})" if png else ""))
        summary = "\n\n".join(parts) + "\n"
        (args.out / "summary.txt").write_text(summary, encoding="utf-8")
        _progress(steps, steps, f"done: {args.out / 'summary.txt'}", started)
        sys.stdout.write(summary)
        traffic.unpersist()
    finally:
        if own:
            spark.stop()
        elif conf_before is None:
            spark.conf.unset(SERVER_VERSION_CONF)
        else:
            spark.conf.set(SERVER_VERSION_CONF, conf_before)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
