"""subjxform group: a partitioned consumer group (orbit.go pcgroups): its config checked and subjects placed
in plain Python (milliseconds, no Spark), the balance report over a file of messages on an embedded local Spark.

    subjxform group CONFIG                            check the config: the members, their partitions and
                                                      consumer filters (exit 1 when the library refuses it)
    subjxform group CONFIG SUBJECT...                 each subject's partition and member
    subjxform group CONFIG --traffic FILE [--new-config FILE2] [--subject-column subject]
                    [--format parquet|csv|json] [--top N] [--out DIR]
                                                      the balance report over a file of messages (and
                                                      what changing to FILE2 moves): summary.txt and PNGs
                                                      (needs pyspark)

CONFIG (and FILE2) is the group's config: the JSON value of its key in the elastic-consumer-groups or
static-consumer-groups KV bucket (nats kv get elastic-consumer-groups ORDERS.workers --raw > g.json),
a file or the JSON text. --server-version V follows nats-server line V (2.10 ... 2.15; default the
newest). Exit code 0, 1 for a config the library (or nats-server) refuses, 2 for a usage error.

The check and the placement run the engine's Python port (subjxform.portable.groups), which gives the
jar's answers (the tests hold both to the library's own); the report runs the jar's SQL functions.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from subjxform.cli import UsageParser, usage_error
from subjxform.configs import config_text

PROG = "subjxform group"


def _describe(plan: dict) -> str:
    lines = [f"{plan['kind']} consumer group (bucket {plan['bucket']}), max_members {plan['max_members']}"]
    for t in plan["transforms"]:
        lines.append(f"  sourced through {t['src']} -> {t['dest']}")
    if plan["kind"] == "static" and plan["filters"]:
        lines.append("  filters: " + ", ".join(plan["filters"]))
    for m in plan["members"]:
        ps = ",".join(map(str, m["partitions"])) or "none"
        lines.append(
            f"  {m['member']}: partitions {ps}"
            + (f"; consumer filters {', '.join(m['filter_subjects'])}" if m["filter_subjects"] else "")
        )
    if not plan["members"]:
        lines.append("  no members: no message is consumed")
    return "\n".join(lines)


def _without_spark(config: str, subjects: list[str], version) -> int:
    """The config checked (and laid out), or each subject's partition and member, by the engine's Python port."""
    from subjxform.grammar.consumer_group import parse_group

    try:
        group = parse_group(config, version)
    except ValueError as e:  # the library's reason (or nats-server's), in the jar's words
        print(f"subjxform group: {e}", file=sys.stderr)
        return 1
    if not subjects:
        print(_describe(group.plan()))
    for subject in subjects:
        p = group.partition(os.fsencode(subject))  # its bytes as given, as nats-server takes them
        print(
            f"{subject}: "
            + ("not taken by the group" if p is None else f"partition {p}, member {group.member(p) or '(none)'}")
        )
    return 0


def _arguments() -> UsageParser:
    parser = UsageParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", help="the group's config: a file or the JSON text of its KV value")
    parser.add_argument("subjects", nargs="*", help="subjects to place: each one's partition and member")
    parser.add_argument("--traffic", type=Path, help="a Parquet, CSV or JSON file of messages: the balance report")
    parser.add_argument("--new-config", help="a second config: what changing to it moves, over --traffic")
    parser.add_argument("--subject-column", default="subject", help="the traffic's subject column (default subject)")
    parser.add_argument(
        "--format", choices=["parquet", "csv", "json"], help="the traffic file's format (default: from its name)"
    )
    parser.add_argument("--top", type=int, default=5, help="how many of the hottest keys to show")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("target/subjxform-group"),
        help="where summary.txt and the charts go (default target/subjxform-group)",
    )
    parser.add_argument("--server-version", help="the nats-server line or release to follow (default the newest)")
    return parser


def _reports(spark, args: argparse.Namespace, configs: list[str]) -> int:
    """The balance report of --traffic (and, with --new-config, the balance after and what moves), written to
    --out and printed: 0, 1 for a config the group refuses, 2 when the traffic cannot be used."""
    from subjxform.cli.report import _read_traffic, _traffic_format, write_summary
    from subjxform.groups import GroupConfigError, consumer_group_plan, group_balance, group_diff

    try:
        for c in configs:
            consumer_group_plan(spark, c, args.server_version)  # (refused before any data is read)
    except GroupConfigError as e:
        print(f"subjxform group: {e}", file=sys.stderr)
        return 1
    if not args.traffic.exists():
        return usage_error(PROG, f"{args.traffic}: no such file")
    fmt = _traffic_format(args.traffic, args.format)
    if fmt is None:
        return usage_error(PROG, f"cannot tell the format of {args.traffic} (use --format parquet|csv|json)")
    traffic = _read_traffic(spark, args.traffic, fmt)
    if args.subject_column not in traffic.columns:
        print(
            f"subjxform group: {args.traffic} has no column {args.subject_column} (it has {', '.join(traffic.columns)})",
            file=sys.stderr,
        )
        return 2
    traffic = traffic.cache()
    reports = [("balance", group_balance(traffic, configs[0], args.subject_column, args.top, args.server_version))]
    if args.new_config:
        reports.append(
            ("balance after", group_balance(traffic, configs[1], args.subject_column, args.top, args.server_version))
        )
        reports.append(
            ("change", group_diff(traffic, configs[0], configs[1], args.subject_column, args.server_version))
        )
    args.out.mkdir(parents=True, exist_ok=True)
    header = f"subjxform group: {args.traffic} with {args.config}" + (
        f" -> {args.new_config}" if args.new_config else ""
    )
    sys.stdout.write(write_summary(args.out, header, reports))
    traffic.unpersist()
    return 0


def main(argv: list[str] | None = None, spark=None) -> int:
    args = _arguments().parse_args(argv)
    if args.subjects and args.traffic:
        return usage_error(PROG, "give SUBJECTs or --traffic, not both")
    if args.new_config and not args.traffic:
        return usage_error(PROG, "--new-config compares over --traffic")
    try:
        configs = [config_text(c)[0] for c in [args.config] + ([args.new_config] if args.new_config else [])]
    except OSError as e:
        print(f"subjxform group: {e}", file=sys.stderr)
        return 2
    from subjxform.grammar import server_version as versions

    try:
        version = versions.parse(args.server_version) if args.server_version is not None else versions.NEWEST
    except versions.UnsupportedServerVersion as e:
        return usage_error(PROG, f"--server-version: {e}")
    if args.traffic is None:
        return _without_spark(configs[0], args.subjects, version)

    from pyspark.sql import SparkSession

    import subjxform

    own = spark is None
    if own:
        spark = (
            subjxform.configure(SparkSession.builder.master("local[*]").appName("subjxform-group"))
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "8")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
    try:
        return _reports(spark, args, configs)
    finally:
        if own:
            spark.stop()


if __name__ == "__main__":
    raise SystemExit(main())
