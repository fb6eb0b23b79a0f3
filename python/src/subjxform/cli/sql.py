"""subjxform sql: a mappings block as Spark SQL text made of built-in functions only (no jar, no JVM, no
pyspark needed), for SQL warehouses, serverless compute and any Spark SQL engine.

usage: subjxform sql FILE [--column SQL] [--cluster NAME | --cluster-column SQL] [--key SQL] [--seed N]
                          [--server-version V] [--account NAME]
                          [--view VIEW --from TABLE [--as COLUMN] | --function NAME]

FILE holds a mappings block, read as subject_map, validate and report read it: nats-server config syntax
with or without its braces, mappings { ... } pasted whole, or JSON. A whole nats-server config gives its
top-level mappings block, or with --account NAME that account's. FILE '-' reads standard input.

It prints, by default, the expression over the column subject; with --view, a CREATE OR REPLACE TEMPORARY
VIEW that adds the mapped subject to a table; with --function, a CREATE OR REPLACE TEMPORARY FUNCTION
(SQL functions: Spark 4 and Databricks SQL). The expression gives what subject_map gives with the jar.

A table that draws (weighted destinations, {{random(n)}}) needs --key or --seed, because SQL text is stored
and run again: with --key each message's draw is the jar's own, the same in every run; with --seed N the
draws come from Spark's rand(N), the same for the same rows in the same partitioning (not the jar's
numbers). Without either the command stops with a usage error rather than write a seed of its own.

Exit code 0, 1 for a table nats-server would refuse (its reason on one line), 2 for a usage error or an
unreadable FILE.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from subjxform.cli import UsageParser, usage_error, whole_server_config
from subjxform.grammar import server_version as versions
from subjxform.grammar.conf_syntax import parse_document, parse_mappings
from subjxform.grammar.conf_value import ConfSyntaxError, Obj
from subjxform.grammar.java_text import java_equals_ignore_case
from subjxform.portable import DrawsNeedAKeyOrSeed, InvalidArgumentValue, sql_expression

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
PROG = "subjxform sql"


def _arguments() -> UsageParser:
    import argparse

    ap = UsageParser(
        prog=PROG, usage=argparse.SUPPRESS, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("file", metavar="FILE", help="the mappings block or nats-server config ('-': standard input)")
    ap.add_argument(
        "--column",
        default="subject",
        metavar="SQL",
        help="the SQL expression of each message's subject (default: subject)",
    )
    scope = ap.add_mutually_exclusive_group()
    scope.add_argument(
        "--cluster",
        metavar="NAME",
        help="the name of the cluster every message entered: its cluster-scoped destinations apply",
    )
    scope.add_argument(
        "--cluster-column",
        metavar="SQL",
        help="the SQL expression of the cluster each message entered (with --function: the "
        "function's second parameter)",
    )
    ap.add_argument(
        "--key",
        metavar="SQL",
        help="the SQL expression of a per-message key (e.g. a message id): each draw is the jar's "
        "own for that key (not with --function)",
    )
    ap.add_argument(
        "--seed", type=int, metavar="N", help="the seed of the draws when there is no --key: Spark's rand(N)"
    )
    ap.add_argument(
        "--server-version",
        metavar="V",
        help="follow nats-server line V (2.10, 2.11, 2.12, 2.14, 2.15 or a release such as 2.10.26; "
        "default: the newest)",
    )
    ap.add_argument("--account", metavar="NAME", help="in a whole nats-server config: this account's mappings block")
    ap.add_argument("--view", metavar="VIEW", help="print a temporary view VIEW over --from TABLE instead")
    ap.add_argument("--from", dest="table", metavar="TABLE", help="the table (or view) the --view reads")
    ap.add_argument(
        "--as",
        dest="alias",
        default="mapped_subject",
        metavar="COLUMN",
        help="the name of the view's new column (default: mapped_subject)",
    )
    ap.add_argument(
        "--function", metavar="NAME", help="print a temporary SQL function NAME(subject STRING) RETURNS STRING instead"
    )
    return ap


def _block(text: str, account: str | None) -> Obj:
    """The mappings block FILE holds. A whole nats-server config gives its top-level (global account's)
    block, or with ``account`` that account's; anything else is read by the reader of every other entry
    point (subject_map, portable.subject_map, validate, report): ``parse_mappings``."""
    doc = parse_document(text)

    def entry(o: Obj, name: str):
        return next((v for k, v in o.entries if java_equals_ignore_case(k, name)), None)

    if account is not None:
        accounts = entry(doc, "accounts")
        found = entry(accounts, account) if isinstance(accounts, Obj) else None
        block = entry(found, "mappings") if isinstance(found, Obj) else None
        if not isinstance(block, Obj):
            raise ValueError(f"the config has no mappings block for account {account!r}")
        return block
    top = entry(doc, "mappings")
    if isinstance(top, Obj) and whole_server_config(doc):
        return top  # a whole server config: its own (global account's) block
    return parse_mappings(text)


def main(argv: list[str]) -> int:
    args = _arguments().parse_args(argv)
    if (args.view is None) != (args.table is None):
        return usage_error(PROG, "--view and --from go together")
    if args.view is not None and args.function is not None:
        return usage_error(PROG, "--view or --function, not both")
    for name, value in (("--view", args.view), ("--function", args.function), ("--as", args.alias)):
        if value is not None and not IDENTIFIER.fullmatch(value):
            return usage_error(PROG, f"{name} must be a plain SQL name, not {value!r}")
    if args.function is not None and args.key is not None:
        return usage_error(
            PROG, "--key cannot go into a SQL function (its type decides the draw): use the expression or --view"
        )
    if args.server_version is not None:
        try:
            versions.parse(args.server_version)
        except versions.UnsupportedServerVersion as e:
            return usage_error(PROG, f"--server-version: {e}")
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except OSError as e:
        return usage_error(PROG, f"cannot read {args.file}: {e.strerror}")
    try:
        block = _block(text, args.account)
        subject = "subject" if args.function is not None else args.column
        cluster = args.cluster_column if args.cluster is None else _sql_string(args.cluster)
        if args.function is not None and args.cluster_column is not None:
            cluster = "cluster"
        expression = sql_expression(
            "subject_map",
            subject,
            block,
            cluster=cluster,
            seed=args.seed,
            key=args.key,
            server_version=args.server_version,
        )
    except DrawsNeedAKeyOrSeed:
        return usage_error(
            PROG,
            f"{args.file} draws (weighted destinations or {{{{random(n)}}}}) and SQL text is "
            "stored and run again: give --key SQL (a per-message key such as a message id: "
            "the jar's own draw for each message, in every run) or --seed N (Spark's rand(N))",
        )
    except (InvalidArgumentValue, ConfSyntaxError, ValueError) as e:
        print(f"{PROG}: {e.reason if isinstance(e, InvalidArgumentValue) else e}", file=sys.stderr)
        return 1
    if args.view is not None:
        print(
            f"CREATE OR REPLACE TEMPORARY VIEW {args.view} AS\nSELECT *, {expression} AS {args.alias}\n"
            f"FROM {args.table}"
        )
    elif args.function is not None:
        parameters = "subject STRING" + (", cluster STRING" if args.cluster_column is not None else "")
        print(f"CREATE OR REPLACE TEMPORARY FUNCTION {args.function}({parameters}) RETURNS STRING\nRETURN {expression}")
    else:
        print(expression)
    return 0


def _sql_string(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"
