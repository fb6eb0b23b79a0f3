"""subjxform on the command line (also python -m subjxform).

usage: subjxform COMMAND [ARGUMENTS]   (subjxform COMMAND --help: that command's options;
                                        subjxform --version: the installed version)

  jar [--spark 3.5] [--scala 2.12]
        the path of the jar, for --jars or spark.jars: the jar for the installed pyspark, or for the
        Spark (and Scala) given, e.g. a cluster's or a Spark Connect server's
  mapping [--strict] [--server-version V] SRC DEST [--] [SUBJECT...]
        try a transform, like nats server mapping (no SUBJECT: an interactive prompt). Exit code 0
        when the transform is valid, whatever the subjects give, 1 invalid transform, 2 usage
  validate [--mappings | --stream] [--server-version V [--upgrade-to W]] FILE...
        check a mappings block, a nats-server config file's blocks or a stream config as nats-server
        does; FILE '-' is standard input. Exit code 0 valid, 1 problems, 2 usage or unreadable FILE
  report TRAFFIC --mappings FILE [--new-mappings FILE] [--out DIR] ...
        rule coverage, canary check, partition balance and config diff over a Parquet, CSV or JSON
        file of subjects, on an embedded local Spark: a text summary and charts in DIR
  sql FILE [--key SQL | --seed N] [--view V --from T | --function F] ...
        a mappings block (or a config's) as Spark SQL text of built-in functions only, for SQL
        warehouses and compute that loads no jar: the expression, a view over a table, or a SQL function
  group CONFIG [SUBJECT... | --traffic FILE [--new-config FILE2]] ...
        a partitioned consumer group (orbit.go pcgroups): the config checked, each subject's partition
        and member (Python alone, milliseconds), or the balance report over a file of messages and what
        a config change moves (needs pyspark)
  connect-server [--spark-home DIR] [--port N] [--connect-jar JAR] [-- SPARK-SUBMIT OPTIONS...]
        a Spark Connect server with the functions: the Spark of the installed pyspark (or DIR) started
        with that Spark line's jar; Spark Connect clients then need only pyspark[connect]

Every command exits with 2 and one line on stderr for a usage error. mapping and validate run the jar's
Spark-free engine in a plain JVM (Java alone: no pyspark, no Spark session); subjects are passed on as
bytes, so one that is not valid UTF-8 is transformed (and hashed) as nats-server does. sql needs Python
alone. report needs pyspark and matplotlib beside subjxform: pip install matplotlib (and pyspark where
none is installed).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

from subjxform.session import DEFAULT_LINE, LINES, UnsupportedSparkError, jar_path

JVM_COMMANDS = {"mapping", "validate"}
COMMANDS = ("jar", "mapping", "validate", "report", "sql", "group", "connect-server")


def usage_error(prog: str, message: str) -> int:
    """A usage error, as every subcommand reports one: one line on stderr, exit code 2."""
    print(f"{prog}: {message} (see {prog} --help)", file=sys.stderr)
    return 2


class UsageParser(argparse.ArgumentParser):
    """argparse with the command line's usage errors: one line and exit code 2 (argparse prints its usage too)."""

    def error(self, message):
        raise SystemExit(usage_error(self.prog, message))


# The line whose jar the command line runs: its build drops its Scala library beside it (build.sbt),
# so `mapping` and `validate` need Java alone, with or without pyspark. The engine's classes are the
# same Java 8 class files in every line's jar, so any Java from 8 on runs them.
CLI_LINE = DEFAULT_LINE


def java_command(args: list[str], main_class: str = "subjxform.cli.Main") -> list[str]:
    """A JVM with the jar and the Scala library shipped beside it, tuned to start fast (it runs for a moment),
    running ``main_class`` (the command line's; tests run the config reader's probe)."""
    java_home = os.environ.get("JAVA_HOME")
    java = str(Path(java_home) / "bin" / "java") if java_home else shutil.which("java")
    if not java:
        raise SystemExit("subjxform: java was not found (set JAVA_HOME or put java on PATH)")
    try:
        jar = Path(jar_path(*CLI_LINE))
    except FileNotFoundError as e:
        raise SystemExit(f"subjxform: {e}") from None
    scala = sorted(jar.parent.glob("scala-library-*.jar"))
    if not scala:
        raise SystemExit(
            f"subjxform: no Scala library beside {jar} (scala-library-*.jar): rebuild the jar with "
            f"`bash scripts/build-jars.sh {'_'.join(CLI_LINE)}` from a source checkout"
        )
    classpath = os.pathsep.join([str(jar), str(scala[-1])])
    return [
        java,
        "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC",
        "-Xshare:auto",
        "-cp",
        classpath,
        main_class,
        *args,
    ]


JAR_USAGE = f"""usage: subjxform jar [--spark {"|".join(dict.fromkeys(s for s, _ in LINES))}] \
[--scala {"|".join(sorted(set(c for _, c in LINES)))}]
Prints the path of the subjxform jar for a Spark line, for --jars or spark.jars.
  --spark VERSION   the Spark line (default: the installed pyspark's)
  --scala VERSION   the Scala version of that Spark (only Spark 3.5 has two; default 2.12 there)
Exit code 0, 1 when that line's jar is not in the package, 2 for a usage error."""


def jar_command(args: list[str]) -> int:
    """`jar [--spark VERSION] [--scala VERSION]`: prints the path of the jar for that Spark line."""
    options: dict[str, str | None] = {"--spark": None, "--scala": None}
    rest = list(args)
    while rest:
        flag = rest.pop(0)
        if flag in ("--help", "-h"):
            print(JAR_USAGE)
            return 0
        if flag not in options or not rest:
            return usage_error(
                "subjxform jar", f"unknown option {flag}" if flag not in options else f"{flag} needs a value"
            )
        options[flag] = rest.pop(0)
    try:
        print(jar_path(options["--spark"], options["--scala"]))
    except UnsupportedSparkError as e:  # a line that does not exist: the option's value is wrong
        return usage_error("subjxform jar", str(e))
    except FileNotFoundError as e:
        print(f"subjxform jar: {e}", file=sys.stderr)
        return 1
    return 0


# The JVM decodes its command line with the platform's charset, which loses bytes that are not valid
# UTF-8; so every argument goes as the hex of its bytes (Python keeps them: os.fsencode undoes the
# surrogate escapes of sys.argv).
ARGS_HEX = "--args-hex"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["jar"]:
        return jar_command(args[1:])
    if args[:1] == ["sql"]:
        from subjxform.cli.sql import main as sql_main

        return sql_main(args[1:])
    if args[:1] == ["report"]:
        from subjxform.cli.report import main as report_main

        return report_main(args[1:])
    if args[:1] == ["group"]:
        from subjxform.cli.group import main as group_main

        return group_main(args[1:])
    if args[:1] == ["connect-server"]:
        from subjxform.cli.connect import main as connect_main

        return connect_main(args[1:])
    if args[:1] in (["--help"], ["-h"], ["help"]):
        print(__doc__.strip())
        return 0
    if args == ["--version"]:
        from subjxform import __version__

        print(f"subjxform {__version__}")
        return 0
    if args[:1] and args[0] in JVM_COMMANDS:
        command = java_command([ARGS_HEX, *(os.fsencode(a).hex() for a in args)])
        sys.stdout.flush()
        os.execv(command[0], command)  # the JVM takes over this process: stdin, stdout, exit code
    if not args:
        return usage_error("subjxform", f"a command is needed: {', '.join(COMMANDS)}")
    return usage_error("subjxform", f"unknown command {args[0]!r}: the commands are {', '.join(COMMANDS)}")
