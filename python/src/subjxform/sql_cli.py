"""``subjxform sql``: a mappings block as Spark SQL text made of built-in functions only (no jar, no JVM, no
pyspark needed), for SQL warehouses, serverless compute and any Spark SQL engine.

    subjxform sql FILE [--column SUBJECT_SQL] [--cluster NAME | --cluster-column SQL] [--seed N]
                       [--key SQL] [--server-version V] [--account NAME]
                       [--view VIEW --from TABLE [--as COLUMN] | --function NAME]

FILE holds a mappings block as subject_map takes it (nats-server config syntax with or without its braces,
``mappings { ... }`` pasted whole, or JSON), or a whole nats-server config: then its top-level ``mappings``
block, or with ``--account NAME`` that account's. '-' reads standard input. Prints:
  (default)            the expression, over the column ``subject`` (``--column``: any SQL expression)
  --view V --from T    CREATE OR REPLACE TEMPORARY VIEW V AS SELECT *, <expression> AS mapped_subject FROM T
  --function F         CREATE OR REPLACE TEMPORARY FUNCTION F(subject STRING) RETURNS STRING RETURN <expression>
                       (SQL functions: Spark 4 and Databricks SQL; with --cluster-column the function takes
                       the cluster as its second parameter)
The expression gives exactly what subject_map gives with the jar; weighted draws without --key use Spark's
rand (with --seed: rand(seed)), with --key the jar's own draw for that key. Exit code 0, 1 for an invalid
table (nats-server's reason on one line), 2 for usage.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from subjxform.portable import InvalidArgumentValue, sql_expression
from subjxform.portable._confsyntax import (ConfSyntaxError, Obj, java_equals_ignore_case, parse_document,
                                           parse_mappings)

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # usage errors: one line, exit code 2
        print(f"subjxform sql: {message}", file=sys.stderr)
        raise SystemExit(2)


def _arguments() -> argparse.ArgumentParser:
    ap = _Parser(prog="subjxform sql", description=__doc__.split("\n\n")[0], add_help=True)
    ap.add_argument("file")
    ap.add_argument("--column", default="subject", help="the subject's SQL expression (default: subject)")
    scope = ap.add_mutually_exclusive_group()
    scope.add_argument("--cluster", help="every message entered this cluster (a name)")
    scope.add_argument("--cluster-column", help="the SQL expression of each message's cluster")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--key", help="the SQL expression of each message's draw key")
    ap.add_argument("--server-version")
    ap.add_argument("--account", help="in a whole nats-server config: this account's mappings block")
    ap.add_argument("--view")
    ap.add_argument("--from", dest="table")
    ap.add_argument("--as", dest="alias", default="mapped_subject")
    ap.add_argument("--function")
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
    if isinstance(top, Obj) and (len(doc.entries) > 1 or entry(doc, "accounts") is not None):
        return top  # a whole server config: its own (global account's) block
    return parse_mappings(text)


def main(argv: list[str]) -> int:
    args = _arguments().parse_args(argv)
    if (args.view is None) != (args.table is None):
        print("subjxform sql: --view and --from go together", file=sys.stderr)
        return 2
    if args.view is not None and args.function is not None:
        print("subjxform sql: --view or --function, not both", file=sys.stderr)
        return 2
    for name, value in (("--view", args.view), ("--function", args.function), ("--as", args.alias)):
        if value is not None and not IDENTIFIER.fullmatch(value):
            print(f"subjxform sql: {name} must be a plain SQL name, not {value!r}", file=sys.stderr)
            return 2
    if args.function is not None and args.key is not None:
        print("subjxform sql: --key cannot go into a SQL function (its type decides the draw): use the expression "
              "or --view", file=sys.stderr)
        return 2
    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
    except OSError as e:
        print(f"subjxform sql: cannot read {args.file}: {e.strerror}", file=sys.stderr)
        return 2
    try:
        block = _block(text, args.account)
        subject = "subject" if args.function is not None else args.column
        cluster = args.cluster_column if args.cluster is None else _sql_string(args.cluster)
        if args.function is not None and args.cluster_column is not None:
            cluster = "cluster"
        expression = sql_expression("subject_map", subject, block, cluster=cluster, seed=args.seed, key=args.key,
                                     server_version=args.server_version)
    except (InvalidArgumentValue, ConfSyntaxError, ValueError) as e:
        print(f"subjxform sql: {e.reason if isinstance(e, InvalidArgumentValue) else e}", file=sys.stderr)
        return 1
    if args.view is not None:
        print(f"CREATE OR REPLACE TEMPORARY VIEW {args.view} AS\nSELECT *, {expression} AS {args.alias}\n"
              f"FROM {args.table}")
    elif args.function is not None:
        parameters = "subject STRING" + (", cluster STRING" if args.cluster_column is not None else "")
        print(f"CREATE OR REPLACE TEMPORARY FUNCTION {args.function}({parameters}) RETURNS STRING\nRETURN {expression}")
    else:
        print(expression)
    return 0


def _sql_string(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"
