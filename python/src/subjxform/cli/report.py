"""subjxform report: the reports of subjxform.reports over a file of recorded subjects, on an embedded local
Spark: what an operator runs before deploying a mapping change.

usage: subjxform report TRAFFIC --mappings FILE [--new-mappings FILE] [--account NAME] [--subject-column COL]
                        [--cluster-column COL] [--key-column COL | --seed N] [--partitions SRC:N:TOKENS ...]
                        [--delivered-column COL] [--format parquet|csv|json] [--out DIR]
                        [--server-version V [--upgrade-to W]]

TRAFFIC is a Parquet file or folder, a CSV file with a header, or JSON lines (by extension, or --format);
it needs a subject column, and may have a cluster column (the name of the cluster each message entered)
and a delivered column (what a server delivered, for the canary check of recorded traffic). FILE is a
mappings block (nats-server config syntax or JSON), read as subject_map and subjxform validate read it,
or a whole nats-server config: then its top-level mappings block (the global account's), or with --account
NAME that account's, read as nats-server reads the file (its includes and variables too), as validate and
sql read it.

The reports: rule coverage, canary check, partition balance (of the table's {{partition(...)}}
destinations, or of --partitions candidates), the config diff with --new-mappings, and with --upgrade-to
the server upgrade report (what moving the servers from line V to line W changes for this traffic).
Shares are printed with enough digits to tell a key with 1 message of 100,000 (0.001%) from none.

DIR gets summary.txt (also printed) and one chart per report. Exit code 0 when the reports ran, 1 when one
of them could not (the summary says why, the others still run), 2 for a usage error, an unreadable file or a
mappings table nats-server (line V) would refuse.
Needs pyspark and matplotlib beside subjxform: pip install matplotlib (and pyspark where none is installed).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

from subjxform.cli import UsageParser, usage_error
from subjxform.grammar import server_version as versions
from subjxform.grammar.accounts import Account, find_account, is_whole_config
from subjxform.grammar.conf_syntax import parse_mappings

PROG = "subjxform report"
STEPS_WIDTH = 24
SERVER_VERSION_CONF = "spark.subjxform.serverVersion"


def _progress(step: int, steps: int, what: str, started: float) -> None:
    done = int(STEPS_WIDTH * step / steps)
    bar = "#" * done + "-" * (STEPS_WIDTH - done)
    print(f"[{bar}] {step}/{steps} {what} (+{time.monotonic() - started:.1f}s)", file=sys.stderr, flush=True)


def _partition_candidates(specs: list[str]) -> list[tuple[str, int, tuple[int, ...]]]:
    """The --partitions candidates; ValueError (a usage error) for one that is not SOURCE:N:TOKEN[,TOKEN...]."""
    out = []
    for spec in specs:
        try:
            src, n, toks = spec.rsplit(":", 2)
            # (no tokens, 'orders.>:4:': {{partition(4)}}, the whole subject hashed)
            out.append((src, int(n), tuple(int(t) for t in toks.split(",")) if toks else ()))
        except ValueError:
            raise ValueError(
                f"--partitions {spec!r}: expected SOURCE:N:TOKEN[,TOKEN...] or SOURCE:N: (the whole subject), "
                "e.g. 'orders.*.*:16:2'"
            ) from None
    return out


FORMATS = {".parquet": "parquet", ".csv": "csv", ".json": "json", ".jsonl": "json", ".ndjson": "json"}


def _traffic_format(path: Path, fmt: str | None) -> str | None:
    """The format TRAFFIC is read in: --format, else its extension (a folder: Parquet); None when unknown."""
    return fmt or FORMATS.get(path.suffix.lower(), "parquet" if path.is_dir() else None)


def write_summary(out: Path, header: str, reports, failed: list[str] | None = None) -> str:
    """Each (name, report)'s chart as out/<name>.png and the texts, after `header`, as out/summary.txt (then
    the reports that could not run, each with why); returns the summary (the reports and `subjxform group`
    print it)."""
    parts = [header]
    for name, report in reports:
        png = report.chart(out / (name.replace(" ", "_") + ".png"))
        parts.append(report.text + (f"\n(chart: {png})" if png else ""))
    parts += failed or []
    summary = "\n\n".join(parts) + "\n"
    (out / "summary.txt").write_text(summary, encoding="utf-8")
    return summary


def _read_traffic(spark, path: Path, fmt: str):
    reader = spark.read.option("header", "true") if fmt == "csv" else spark.read
    return reader.format(fmt).load(str(path))


class _Unusable(Exception):
    """A mappings FILE the reports cannot run: nats-server's words, or what is missing."""


def _mappings_problem(spark, text: str) -> str | None:
    """Why the mappings table cannot be used (nats-server's words), or None."""
    from pyspark.errors import PySparkException

    from subjxform import reports
    from subjxform._compat import error_parameters

    try:
        reports.mappings_plan(spark, text)
    except PySparkException as e:
        return error_parameters(e).get("value") or str(e).splitlines()[0]
    return None


def _table(spark, path: Path, account: str | None, server_version: str | None) -> str:
    """The mappings table the reports run: FILE's block; in a whole server config (or account JWTs)
    --account's (by its name or public key), else the top-level block, else the only account's, read by the
    accounts reader (nats-server's checks of the whole file, includes and all). The block as written: a JWT's
    keeps its shape, and each report loads it as the release's server loads a JWT, rule by rule."""
    text = path.read_text(encoding="utf-8")
    if account is None and not is_whole_config(text):
        problem = _mappings_problem(spark, text)
        if problem:
            raise _Unusable(problem)
        return text
    from subjxform.accounts import AccountsConfigError, accounts_plan

    try:
        plan = accounts_plan(spark, path, server_version)
    except AccountsConfigError as e:
        raise _Unusable(str(e)) from None
    tables = {a["id"]: a["mappings"] for a in plan["accounts"]}
    accounts = [
        Account(a["name"], a["id"], None if a["mappings"] is None else parse_mappings(a["mappings"]), "")
        for a in plan["accounts"]
    ]
    try:
        return tables[find_account(accounts, account).id]
    except ValueError as e:
        raise _Unusable(str(e) + ("" if account else "; pick one with --account NAME")) from None


def _arguments() -> UsageParser:
    parser = UsageParser(
        prog=PROG, usage=argparse.SUPPRESS, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "traffic", type=Path, metavar="TRAFFIC", help="the recorded subjects: Parquet, CSV or JSON lines"
    )
    parser.add_argument(
        "--mappings", type=Path, required=True, metavar="FILE", help="the mappings block the servers run now"
    )
    parser.add_argument(
        "--new-mappings",
        type=Path,
        metavar="FILE",
        help="a changed mappings block: adds the config diff (what the change does to the traffic)",
    )
    parser.add_argument(
        "--account",
        metavar="NAME",
        help="in a whole nats-server config or account JWTs: this account's mappings block, by its name or public "
        "key (default: the top-level one, else the only account's)",
    )
    parser.add_argument(
        "--subject-column", default="subject", metavar="COL", help="TRAFFIC's column of subjects (default: subject)"
    )
    parser.add_argument(
        "--cluster-column",
        metavar="COL",
        help="TRAFFIC's column holding the name of the cluster each message entered (picks the "
        "rules' cluster-scoped destinations; without it, the cluster-less ones apply)",
    )
    parser.add_argument(
        "--delivered-column",
        metavar="COL",
        help="TRAFFIC's column of what a server delivered: the canary check compares it",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",  # the Python reports' default: the same draws
        help="the seed of the weighted draws (default 0: every run draws alike)",
    )
    parser.add_argument(
        "--key-column", metavar="COL", help="a per-message key (e.g. an id): each draw is then the message's own"
    )
    parser.add_argument(
        "--partitions",
        nargs="*",
        default=[],
        metavar="SRC:N:TOKENS",
        help="partition candidates to balance, e.g. 'orders.*.*:16:2', 'orders.*.*:8:1,2' or 'orders.>:4:' "
        "(the whole subject; default: the table's {{partition(...)}} destinations)",
    )
    parser.add_argument(
        "--format", choices=["parquet", "csv", "json"], help="TRAFFIC's format when its extension does not say it"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("target/subjxform-report"),
        metavar="DIR",
        help="where summary.txt and the charts go (default: target/subjxform-report)",
    )
    parser.add_argument(
        "--server-version",
        metavar="V",
        help="the nats-server line the reports follow: 2.10, 2.11, 2.12, 2.14, 2.15 or a release "
        "such as 2.10.26 (default: the newest)",
    )
    parser.add_argument(
        "--upgrade-to", metavar="W", help="also report what moving from --server-version to this line changes"
    )
    return parser


def _checked(argv: list[str] | None) -> tuple[argparse.Namespace, str, list] | int:
    """The arguments, checked before Spark starts (files, format, versions, the packages a report needs): the
    arguments with the traffic's format and the partition candidates, or the exit code of a usage error."""
    args = _arguments().parse_args(argv)
    if args.upgrade_to and not args.server_version:
        return usage_error(PROG, "--upgrade-to needs --server-version (the line the servers run now)")
    for f in [args.traffic, args.mappings] + ([args.new_mappings] if args.new_mappings else []):
        if not f.exists():
            return usage_error(PROG, f"{f}: no such file")
    fmt = _traffic_format(args.traffic, args.format)
    if fmt is None:
        return usage_error(PROG, f"cannot tell the format of {args.traffic} (use --format parquet|csv|json)")
    try:
        candidates = _partition_candidates(args.partitions)
        for option, version in (("--server-version", args.server_version), ("--upgrade-to", args.upgrade_to)):  # noqa: B007 (named in the error below)
            if version is not None:
                versions.parse(version)  # the jar's reading of a version (its port), before Spark starts
    except versions.UnsupportedServerVersion as e:
        return usage_error(PROG, f"{option}: {e}")
    except ValueError as e:
        return usage_error(PROG, str(e))
    # A missing package is one line, not a traceback after the reports ran.
    missing = [m for m in ("pyspark", "matplotlib") if importlib.util.find_spec(m) is None]
    if missing:
        print(
            f"subjxform report needs {' and '.join(missing)}: pip install 'subjxform[reports]' (matplotlib), "
            "and 'subjxform[spark]' where no pyspark is installed",
            file=sys.stderr,
        )
        return 2
    return args, fmt, candidates


def _local_session():
    """The command's own embedded local Spark, its progress bars on."""
    from pyspark.sql import SparkSession

    import subjxform

    spark = (
        subjxform.configure(SparkSession.builder.master("local[*]").appName("subjxform-report"))
        .config("spark.ui.showConsoleProgress", "true")  # Spark's own bar for each job
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _run(spark, args: argparse.Namespace, fmt: str, candidates: list, steps: int, started: float) -> int:
    """The reports, each in turn (a report's refusal is said and the next ones still run), then the summary:
    0, 1 when a report was not run, 2 when the inputs cannot be used."""
    from subjxform import reports

    tables = []
    for path in [args.mappings] + ([args.new_mappings] if args.new_mappings else []):
        try:
            tables.append(_table(spark, path, args.account, args.server_version))
        except _Unusable as e:
            print(f"subjxform report: {path}: {e}", file=sys.stderr)
            return 2
    old, new = tables[0], (tables[1] if args.new_mappings else None)
    traffic = _read_traffic(spark, args.traffic, fmt)
    missing = [
        c
        for c in (args.subject_column, args.cluster_column, args.delivered_column, args.key_column)
        if c and c not in traffic.columns
    ]
    if missing:
        print(
            f"subjxform report: {args.traffic} has no column {', '.join(missing)} (it has {', '.join(traffic.columns)})",
            file=sys.stderr,
        )
        return 2
    traffic = traffic.cache()
    subject, cluster, key = args.subject_column, args.cluster_column, args.key_column
    args.out.mkdir(parents=True, exist_ok=True)
    done: list[tuple[str, reports.Report]] = []
    failed: list[str] = []

    def run(step: int, name: str, make) -> None:
        _progress(step, steps, name, started)
        try:
            done.append((name, make()))
        except ValueError as e:  # a report's refusal (its docs' Raises): said, and the next reports still run
            failed.append(f"{name[0].upper()}{name[1:]}: not run: {e}")

    run(1, "rule coverage", lambda: reports.rule_coverage(traffic, old, subject, cluster, args.seed, key))
    run(
        2,
        "canary check",
        lambda: reports.canary_check(traffic, old, subject, cluster, args.seed, key, delivered=args.delivered_column),
    )
    if candidates:
        run(3, "partition balance", lambda: reports.partition_balance(traffic, candidates=candidates, subject=subject))
    elif any(n >= 1 for _, n, _ in reports.partition_candidates(spark, old)):
        run(3, "partition balance", lambda: reports.partition_balance(traffic, mappings=old, subject=subject))
    if new is not None:
        run(4, "config diff", lambda: reports.config_diff(traffic, old, new, subject, cluster, args.seed, key))
    if args.upgrade_to:
        run(
            steps - 1,
            "server upgrade",
            lambda: reports.server_upgrade(
                traffic, old, args.server_version, args.upgrade_to, subject, cluster, args.seed, key
            ),
        )
    _progress(steps - 1, steps, "writing the summary and the charts", started)
    header = (
        f"subjxform report: {args.traffic} with {args.mappings}"
        + (f" -> {args.new_mappings}" if new else "")
        + f", seed {args.seed}"
        + (f", nats-server {args.server_version}" if args.server_version else "")
    )
    summary = write_summary(args.out, header, done, failed)
    _progress(steps, steps, f"done: {args.out / 'summary.txt'}", started)
    sys.stdout.write(summary)
    traffic.unpersist()
    return 1 if failed else 0


def main(argv: list[str] | None = None, spark=None) -> int:
    checked = _checked(argv)
    if isinstance(checked, int):
        return checked
    args, fmt, candidates = checked
    started = time.monotonic()
    steps = 4 + (1 if args.new_mappings else 0) + (1 if args.upgrade_to else 0)
    _progress(0, steps, "starting an embedded local Spark", started)
    own = spark is None
    if own:
        spark = _local_session()
    conf_before = spark.conf.get(SERVER_VERSION_CONF, None)
    try:
        if args.server_version or args.upgrade_to:
            # Every function compiles for the session's line when its query is analysed.
            spark.conf.set(SERVER_VERSION_CONF, args.server_version)
        return _run(spark, args, fmt, candidates, steps, started)
    finally:
        if own:
            spark.stop()
        elif conf_before is None:
            spark.conf.unset(SERVER_VERSION_CONF)
        else:
            spark.conf.set(SERVER_VERSION_CONF, conf_before)


if __name__ == "__main__":
    raise SystemExit(main())
