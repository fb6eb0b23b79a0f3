"""subjxform connect-server: a Spark Connect server whose sessions have subjxform's functions.

usage: subjxform connect-server [--spark-home DIR] [--port N] [--host ADDRESS] [--connect-jar JAR] [--print]
                                [-- SPARK-SUBMIT OPTIONS...]

Starts org.apache.spark.sql.connect.service.SparkConnectServer with spark-submit, in the foreground (Ctrl-C
stops it), on the Spark of the installed pyspark package, or of --spark-home DIR (a Spark distribution or
another venv's pyspark), with the subjxform jar of exactly that Spark's line. Clients then connect with
SparkSession.builder.remote("sc://HOST:PORT") and need only pyspark[connect] and subjxform.

The Spark is the one named here, never one found on the way: SPARK_HOME is set to it for spark-submit (a
venv's own spark-submit otherwise asks the first python3 on PATH where Spark is, and may start another
installed pyspark), and a SPARK_HOME already set elsewhere is said and left unused.

Spark 3.5 ships its Connect server as a package of its own (Spark 4 has it inside): --connect-jar names its
jar (spark-connect_2.12-3.5.x.jar of the same release); without it, spark-submit fetches the package
(org.apache.spark:spark-connect_<scala>:<version>, with --packages) from the Maven repositories Spark uses.

After --, more spark-submit options: -- --master local[4] --conf spark.driver.memory=4g (a --jars given
there is added to subjxform's jar).

Exit code: spark-submit's; 2 for a usage error, a folder that holds no Spark, a Spark line without a jar,
or a jar (--jars, --connect-jar) that does not match the Spark.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import sys
from pathlib import Path

from subjxform.cli import UsageParser, usage_error
from subjxform.session import _pyspark_dir, jar_path, spark_line, supported_lines

PROG = "subjxform connect-server"
SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
# spark-submit's placeholder for "no application file": the main class is in a jar on the classpath.
NO_APPLICATION = "spark-internal"

_SPARK_CORE = re.compile(r"spark-core_(\d+\.\d+)-(\d+\.\d+\.\d+.*)\.jar")
_CONNECT_JAR = re.compile(r"spark-connect_(\d+\.\d+)-(\d+\.\d+\.\d+.*)\.jar")
_SUBJXFORM_JAR = re.compile(r"subjxform-spark-(\d+\.\d+)_(\d+\.\d+)(?:-[^/]*)?\.jar")


class Refused(Exception):
    """What the command will not start, and why: a usage error (exit code 2)."""


def spark_of(home: Path) -> tuple[str, str]:
    """(Spark version, Scala binary version) of the Spark in ``home``, read from its spark-core jar's name."""
    cores = sorted((home / "jars").glob("spark-core_*.jar"))
    found = _SPARK_CORE.fullmatch(cores[-1].name) if cores else None
    if found is None:
        raise Refused(
            f"{home} holds no Spark (no jars/spark-core_*.jar): give --spark-home a Spark distribution's folder "
            "or a pyspark package's (pip install 'pyspark[connect]'; pyspark-client alone has no server)"
        )
    return found.group(2), found.group(1)


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def _checked_connect_jar(path: str, version: str, scala: str) -> str:
    found = _CONNECT_JAR.fullmatch(Path(path).name)
    if not Path(path).is_file():
        raise Refused(f"--connect-jar {path}: no such file")
    if found and (found.group(1), _minor(found.group(2))) != (scala, _minor(version)):
        raise Refused(
            f"--connect-jar {Path(path).name} is the Connect server of Spark {found.group(2)} (Scala "
            f"{found.group(1)}), not of the Spark {version} (Scala {scala}) it would run in: use "
            f"spark-connect_{scala}-{version}.jar"
        )
    if found and found.group(2) != version:
        print(
            f"{PROG}: note: --connect-jar is Spark {found.group(2)}'s, the Spark is {version}: the same release "
            "is what Spark supports",
            file=sys.stderr,
        )
    return path


def _their_jars(extra: list[str], line: tuple[str, str]) -> tuple[list[str], list[str], list[str]]:
    """The pass-through options without their --jars and --packages (returned apart): a subjxform jar of another
    line among them is refused, one of this line left out (the command adds it)."""
    rest: list[str] = []
    jars: list[str] = []
    packages: list[str] = []
    it = iter(extra)
    for option in it:
        if option == "--class" or option.startswith("--class="):
            raise Refused("the server's class is SparkConnectServer: no --class")
        for name, into in (("--jars", jars), ("--packages", packages)):
            if option == name or option.startswith(name + "="):
                value = option.partition("=")[2] if "=" in option else next(it, None)
                if value is None:
                    raise Refused(f"{name} needs a value")
                into += [v for v in value.split(",") if v]
                break
        else:
            rest.append(option)
    kept = []
    for jar in jars:
        found = _SUBJXFORM_JAR.fullmatch(Path(jar).name)
        if found is None:
            kept.append(jar)
        elif (found.group(1), found.group(2)) != line:
            raise Refused(
                f"--jars {Path(jar).name} is subjxform's jar for Spark {found.group(1)} (Scala {found.group(2)}), "
                f"but the server runs Spark {line[0]} (Scala {line[1]}): leave it out, the command adds that "
                "line's jar"
            )
    return rest, kept, packages


def command(
    spark_home: str | None = None,
    port: int | None = None,
    host: str | None = None,
    connect_jar: str | None = None,
    extra: list[str] | None = None,
) -> tuple[list[str], dict[str, str], str]:
    """The spark-submit command line that starts the server, its environment, and a line saying what it starts.

    Raises:
        Refused: no Spark there, a Spark line without a jar, or a mismatched jar.
    """
    if spark_home is None:
        found = _pyspark_dir()
        if found is None:
            raise Refused("no pyspark is installed here: pip install 'pyspark[connect]', or give --spark-home DIR")
        home = found.resolve()
    else:
        home = Path(spark_home).expanduser().resolve()
    version, scala = spark_of(home)
    try:
        line = spark_line(version, scala)
        jar = jar_path(*line)
    except FileNotFoundError as e:
        raise Refused(str(e)) from None
    except RuntimeError:  # UnsupportedSparkError
        raise Refused(
            f"the Spark in {home} is {version} (Scala {scala}), and subjxform has no jar for it; "
            f"supported lines: {supported_lines()}"
        ) from None
    rest, their_jars, packages = _their_jars(extra or [], line)
    jars = [jar, *their_jars]
    server_inside = any((home / "jars").glob(f"spark-connect_{scala}-*.jar"))
    if connect_jar is not None:
        jars.append(_checked_connect_jar(connect_jar, version, scala))
    elif not server_inside:
        packages.append(f"org.apache.spark:spark-connect_{scala}:{version}")
    confs = []
    if port is not None:
        confs += ["--conf", f"spark.connect.grpc.binding.port={port}"]
    if host is not None:
        confs += ["--conf", f"spark.connect.grpc.binding.address={host}"]
    argv = [
        str(home / "bin" / "spark-submit"),
        "--class",
        SERVER_CLASS,
        "--name",
        "Spark Connect server (subjxform)",
        "--jars",
        ",".join(jars),
        *(["--packages", ",".join(packages)] if packages else []),
        *confs,
        *rest,
        NO_APPLICATION,
    ]
    env = {**os.environ, "SPARK_HOME": str(home)}
    what = f"Spark {version} (Scala {scala}) in {home}, with {Path(jar).name}" + (
        f"; Spark fetches {', '.join(packages)}" if packages else ""
    )
    return argv, env, what


def _arguments() -> UsageParser:
    parser = UsageParser(
        prog=PROG, usage=argparse.SUPPRESS, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--spark-home", metavar="DIR", help="the Spark to start (default: the installed pyspark's own folder)"
    )
    parser.add_argument("--port", type=int, metavar="N", help="the port clients connect to (default: Spark's, 15002)")
    parser.add_argument("--host", metavar="ADDRESS", help="the address to listen on (default: Spark's, every address)")
    parser.add_argument(
        "--connect-jar",
        metavar="JAR",
        help="Spark 3.5: the Connect server package's jar (spark-connect_2.12-3.5.x.jar)",
    )
    parser.add_argument(
        "--print",
        action="store_true",
        dest="print_only",
        help="print the command (with its SPARK_HOME) instead of running it",
    )
    return parser


def main(argv: list[str]) -> int:
    ours, extra = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    args = _arguments().parse_args(ours)
    try:
        argv_, env, what = command(args.spark_home, args.port, args.host, args.connect_jar, extra)
    except Refused as e:
        return usage_error(PROG, str(e))
    set_elsewhere = os.environ.get("SPARK_HOME")
    if set_elsewhere and Path(set_elsewhere).expanduser().resolve() != Path(env["SPARK_HOME"]):
        print(
            f"{PROG}: SPARK_HOME={set_elsewhere} is not used: the server runs {env['SPARK_HOME']} (give "
            "--spark-home to start another Spark)",
            file=sys.stderr,
        )
    shown = f"SPARK_HOME={shlex.quote(env['SPARK_HOME'])} {shlex.join(argv_)}"
    if args.print_only:
        print(shown)
        return 0
    print(f"{PROG}: {what}\n{shown}", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os.execve(argv_[0], argv_, env)  # spark-submit takes over this process: signals, output, exit code
    return 0  # (not reached)
