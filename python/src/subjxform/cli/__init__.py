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
import hashlib
import os
import re
import secrets
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


def java_command(args: list[str], main_class: str = "subjxform.cli.Main", command: str = "") -> list[str]:
    """A JVM with the jar and the Scala library shipped beside it, tuned to start fast (it runs for a moment),
    running ``main_class`` (the command line's; tests run the config reader's probe), its classes from the
    archive of ``command`` (each command loads classes of its own: :func:`shared_classes`)."""
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
    classpath = [str(jar), str(scala[-1])]
    return [
        java,
        "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC",
        "-Xshare:auto",
        *shared_classes(java, classpath, f"{main_class}-{command}" if command else main_class),
        "-cp",
        os.pathsep.join(classpath),
        main_class,
        *args,
    ]


def java_feature_version(java: str) -> int | None:
    """The feature version (8, 11, 17, 21) of the Java whose launcher is ``java``, from its home's ``release``
    file, which every JDK and JRE since 9 (and most 8s) carries: read, not asked (asking starts a JVM)."""
    try:
        release = (Path(os.path.realpath(java)).parent.parent / "release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found = re.search(r'^JAVA_VERSION="(?:1\.)?(\d+)', release, re.M)
    return int(found.group(1)) if found else None


def shared_classes(java: str, classpath: list[str], name: str) -> list[str]:
    """The JVM options that load the command line's classes from an application class-data-sharing archive.

    Why: nearly all of `mapping`'s and `validate`'s time is the JVM starting and loading the engine's and
    Scala's classes (0.32 s of a 0.5 s run, measured on two cores); from the archive it starts in 0.13 s.
    The archive belongs to this Java and these very jars (a key of their paths, sizes and times), in the
    user's cache (``$XDG_CACHE_HOME`` or ``~/.cache``, ``subjxform/class-sharing/``). The first run writes it as
    it exits (``-XX:ArchiveClassesAtExit``, Java 13 and later) under its process id and a token; a later run moves
    it into place once that process is gone, so two runs never write one file and none reads a half-written one. A
    Java that cannot (before 13, or with no base archive to build on) runs as before; its CDS messages are
    off, so the command's output is never touched. ``SUBJXFORM_CLASS_SHARING=0`` turns it off.
    """
    if os.environ.get("SUBJXFORM_CLASS_SHARING") == "0":
        return []
    feature = java_feature_version(java)
    if feature is None or feature < 13:
        return []
    try:
        parts = [os.path.realpath(java), *classpath]
        stamp = "\0".join(f"{p}\0{os.stat(p).st_size}\0{os.stat(p).st_mtime_ns}" for p in parts) + name
    except OSError:
        return []
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = cache / "subjxform" / "class-sharing"
    archive = folder / f"{name}-{hashlib.sha256(stamp.encode()).hexdigest()[:20]}.jsa"
    quiet = ["-Xlog:cds=off", "-Xlog:cds+dynamic=off"]
    if not archive.is_file():
        for written in folder.glob(f"{archive.name}.*"):
            writer = written.suffix[1:].split("-")[0]
            if writer.isdigit() and not _running(int(writer)):
                try:
                    os.replace(written, archive)  # (atomic: a reader sees the whole archive or none)
                except OSError:
                    continue
                for older in folder.glob(f"{name}-*.jsa"):  # the archives of jars since replaced
                    if older != archive and re.fullmatch(rf"{re.escape(name)}-[0-9a-f]{{20}}\.jsa", older.name):
                        older.unlink(missing_ok=True)
                break
    if archive.is_file():
        return [*quiet, f"-XX:SharedArchiveFile={archive}"]
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return []
    # Named by this process (the JVM replaces it, os.execv; or runs as its child) and a token of its own.
    written = folder / f"{archive.name}.{os.getpid()}-{secrets.token_hex(4)}"
    return [*quiet, f"-XX:ArchiveClassesAtExit={written}"]


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # (someone else's process: running)
    return True


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
        # (an archive per command: each loads classes of its own, `validate` the config readers')
        command = java_command([ARGS_HEX, *(os.fsencode(a).hex() for a in args)], command=args[0])
        sys.stdout.flush()
        os.execv(command[0], command)  # the JVM takes over this process: stdin, stdout, exit code
    if not args:
        return usage_error("subjxform", f"a command is needed: {', '.join(COMMANDS)}")
    return usage_error("subjxform", f"unknown command {args[0]!r}: the commands are {', '.join(COMMANDS)}")
