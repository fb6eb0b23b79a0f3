"""Getting the functions into a Spark session: the jar that matches the running Spark, and its registration."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import re
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the command line imports this module for jar_path() alone: no PySpark at run time
    from py4j.java_gateway import JavaClass
    from pyspark.sql import SparkSession

EXTENSIONS_CLASS = "subjxform.spark.SubjxformExtensions"


def spark_line_table() -> list[dict[str, str]]:
    """The Spark lines, oldest first, a dict by column name per line: the one list that the build and every
    script read too (data/spark-lines.tsv; its header says what each column means).

    Example:
        >>> oldest = next(iter(spark_line_table()))
        >>> oldest.get("line"), oldest.get("pyspark")
        ('3.5_2.12', '3.5.7')
    """
    rows = (Path(__file__).parent / "data" / "spark-lines.tsv").read_text(encoding="utf-8").splitlines()
    header = next(r for r in rows if r.startswith("#line\t"))[1:].split("\t")
    return [dict(zip(header, r.split("\t"))) for r in rows if r.strip() and not r.startswith("#")]


# The Spark lines the package carries a jar for: (Spark major.minor, Scala binary version), oldest first. The
# first Scala version of a Spark minor is the one its pyspark package ships (Spark 3.5 is also built for 2.13).
# DEFAULT_LINE: the development line (the demo's, the full test run's, the command line's).
def _spark_and_scala(row: dict[str, str]) -> tuple[str, str]:
    spark, scala = row["line"].split("_")
    return spark, scala


LINES = tuple(_spark_and_scala(row) for row in spark_line_table())
DEFAULT_LINE = next(_spark_and_scala(row) for row in spark_line_table() if row["role"] == "default")

SPARK_ENV = "SUBJXFORM_SPARK_VERSION"
SCALA_ENV = "SUBJXFORM_SCALA_VERSION"


class UnsupportedSparkError(RuntimeError):
    """The running (or requested) Spark or Scala version has no subjxform jar; the message names the
    supported lines."""


def supported_lines() -> str:
    """The Spark lines that have a jar, as text for messages.

    Returns:
        e.g. ``"3.5 (Scala 2.12, 2.13), 4.0 (Scala 2.13), ..."``.

    Examples:
        >>> supported_lines()  # doctest: +SKIP
        '3.5 (Scala 2.12, 2.13), 4.0 (Scala 2.13), 4.1 (Scala 2.13), 4.2 (Scala 2.13), 4.3 (Scala 2.13)'
    """
    by_spark: dict[str, list[str]] = {}
    for spark, scala in LINES:
        by_spark.setdefault(spark, []).append(scala)
    return ", ".join(f"{s} (Scala {', '.join(sc)})" for s, sc in by_spark.items())


def _minor(version: str) -> str:
    m = re.match(r"^\s*(\d+)\.(\d+)", version)
    if not m:
        raise UnsupportedSparkError(f"cannot read a Spark version from {version!r} (expected e.g. 3.5 or 4.0.1)")
    return f"{m.group(1)}.{m.group(2)}"


def _pyspark_dir() -> Path | None:
    """The installed pyspark package's folder, found without importing it (which takes a while)."""
    spec = importlib.util.find_spec("pyspark")
    if spec and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return None


def _pyspark_version() -> str | None:
    try:
        return importlib.metadata.version("pyspark")
    except importlib.metadata.PackageNotFoundError:
        pyspark_dir = _pyspark_dir()  # e.g. a Spark distribution's python/ on PYTHONPATH
        if pyspark_dir and (pyspark_dir / "version.py").is_file():
            m = re.search(r"__version__[^\"']*[\"']([^\"']+)", (pyspark_dir / "version.py").read_text())
            return m.group(1) if m else None
        return None


def _installed_scala() -> str | None:
    """The Scala version of the installed pyspark's jars (pyspark/jars/scala-library-2.12.18.jar)."""
    pyspark_dir = _pyspark_dir()
    jars = sorted((pyspark_dir / "jars").glob("scala-library-*.jar")) if pyspark_dir else []
    m = re.match(r"scala-library-(\d+\.\d+)", jars[-1].name) if jars else None
    return m.group(1) if m else None


def _session_versions(session) -> tuple[str | None, str | None]:
    """Spark's and Scala's versions as the session's JVM reports them (Scala only for a classic session)."""
    spark_version = session.version
    jvm = getattr(session, "_jvm", None)
    scala = None
    if jvm is not None:
        try:
            scala = _minor(jvm.scala.util.Properties.versionNumberString())
        except Exception:  # a JVM without the Scala library on its path: keep the line's default
            scala = None
    return spark_version, scala


def _active_session():
    """The active session, if PySpark is already imported and has one (never starts one)."""
    import sys

    if "pyspark.sql" not in sys.modules:
        return None
    from pyspark.sql import SparkSession

    try:
        return SparkSession.getActiveSession()
    except Exception:
        return None


def spark_line(spark: str | SparkSession | None = None, scala: str | None = None) -> tuple[str, str]:
    """The (Spark, Scala) line to use, e.g. ("3.5", "2.12").

    In order: the arguments (``spark`` a version such as "3.5" or "3.5.1", or a session), the environment
    (``SUBJXFORM_SPARK_VERSION``, ``SUBJXFORM_SCALA_VERSION``), the active session's JVM, the installed
    pyspark. Scala defaults to what that pyspark ships, else 2.12 for Spark 3 and 2.13 for Spark 4.

    Args:
        spark: a Spark version (``"3.5"``, ``"3.5.1"``) or a session; None: found as above.
        scala: a Scala version (``"2.12"``, ``"2.13"``); None: found as above.

    Returns:
        The (Spark, Scala) pair of a line that has a jar.

    Raises:
        UnsupportedSparkError: no pyspark and no version given, or a line without a jar (the message names
            the supported lines).

    Examples:
        >>> spark_line("3.5.1")
        ('3.5', '2.12')
    """
    spark_version: str | None = None
    session_scala: str | None = None
    if spark is not None and not isinstance(spark, str):
        spark_version, session_scala = _session_versions(spark)
    else:
        spark_version = spark or os.environ.get(SPARK_ENV) or None
        if spark_version is None:
            session = _active_session()
            if session is not None:
                spark_version, session_scala = _session_versions(session)
    from_pyspark = spark_version is None
    if spark_version is None:  # from_pyspark (tested as such, so that mypy narrows spark_version)
        spark_version = _pyspark_version()
        if spark_version is None:
            raise UnsupportedSparkError(
                "no pyspark is installed and no Spark version was given: pass spark='3.5' (or set "
                f"{SPARK_ENV}); supported lines: {supported_lines()}"
            )
    minor = _minor(spark_version)
    scala_binary = scala or os.environ.get(SCALA_ENV) or session_scala
    if scala_binary is None and from_pyspark:
        scala_binary = _installed_scala()
    if scala_binary is None:
        scala_binary = "2.12" if minor.startswith("3.") else "2.13"
    scala_binary = _minor(scala_binary)
    if (minor, scala_binary) not in LINES:
        raise UnsupportedSparkError(
            f"subjxform has no jar for Spark {spark_version} with Scala {scala_binary}; "
            f"supported lines: {supported_lines()}"
        )
    return minor, scala_binary


def jar_name(spark: str, scala: str) -> str:
    """The file name of a line's jar.

    Args:
        spark: the Spark line, e.g. ``"3.5"``.
        scala: the Scala line, e.g. ``"2.12"``.

    Returns:
        e.g. ``"subjxform-spark-3.5_2.12.jar"`` (the Maven artifact's name, without the version).

    Examples:
        >>> jar_name("3.5", "2.12")
        'subjxform-spark-3.5_2.12.jar'
    """
    return f"subjxform-spark-{spark}_{scala}.jar"


def jar_path(spark: str | SparkSession | None = None, scala: str | None = None) -> str:
    """The path of the subjxform jar for a Spark line, for ``spark.jars`` or ``--jars``.

    The line is the one :func:`spark_line` finds: by default the running session's, else the installed
    pyspark's; ``spark``/``scala`` (or ``SUBJXFORM_SPARK_VERSION``/``SUBJXFORM_SCALA_VERSION``) choose
    another, e.g. for a cluster or a Spark Connect server whose Spark differs from the local pyspark.

    Args:
        spark: a Spark version or a session, as for :func:`spark_line`.
        scala: a Scala version, as for :func:`spark_line`.

    Returns:
        The jar's absolute path (inside the installed package).

    Raises:
        UnsupportedSparkError: a line without a jar.
        FileNotFoundError: the package lacks the line's jar (a source checkout where it was not built).

    Examples:
        >>> jar_path(spark="3.5", scala="2.13")  # doctest: +SKIP
        '/.../site-packages/subjxform/jars/subjxform-spark-3.5_2.13.jar'
    """
    line = spark_line(spark, scala)
    path = Path(str(resources.files("subjxform") / "jars" / jar_name(*line)))
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} is missing: build it with `bash scripts/build-jars.sh` (or `scripts/sbt "
            f"-Dspark.version={line[0]} -Dscala.binary={line[1]} jar`) from a source checkout"
        )
    return str(path)


def configure(
    builder: SparkSession.Builder, spark: str | None = None, scala: str | None = None
) -> SparkSession.Builder:
    """Adds the jar and the SQL extensions to a session builder: ``configure(SparkSession.builder).getOrCreate()``.

    The jar is the one for the installed pyspark (``spark``/``scala`` choose another). The jar alone is
    enough (Spark finds the extension through its service entry); naming the extension as well makes
    the functions available however the session is created. On a session that is already running,
    ``getOrCreate()`` returns it unchanged (a running session cannot load a jar): the first function call
    then says so in one line.

    Args:
        builder: a ``SparkSession.Builder`` (``SparkSession.builder``, with any other settings).
        spark: the Spark line whose jar to add, as for :func:`jar_path`.
        scala: the Scala line, as for :func:`jar_path`.

    Returns:
        The same builder, with ``spark.jars`` and ``spark.sql.extensions`` set.

    Raises:
        UnsupportedSparkError: a line without a jar.
        FileNotFoundError: the package lacks the line's jar.
        RuntimeError: a Spark Connect builder (``.remote(...)``, ``SPARK_REMOTE``): a client cannot add a jar
            to its server; the message says how to start a server with it.

    Examples:
        >>> spark = configure(SparkSession.builder.master("local[2]")).getOrCreate()  # doctest: +SKIP
    """
    options = getattr(builder, "_options", {})
    if options.get("spark.remote") or os.environ.get("SPARK_REMOTE") or options.get("spark.api.mode") == "connect":
        raise RuntimeError(
            "configure() adds the jar to a session this process starts; a Spark Connect client cannot add it to "
            f"its server: start the server with it ({CONNECT_SERVER_HINT}), then connect with "
            "SparkSession.builder.remote(...) alone"
        )
    return builder.config("spark.jars", jar_path(spark, scala)).config("spark.sql.extensions", EXTENSIONS_CLASS)


# How a Spark Connect server gets the jar (docs/guides/spark-connect.md).
CONNECT_SERVER_HINT = (
    "`subjxform connect-server` starts one with the jar of its Spark line, or spark-submit --class "
    'org.apache.spark.sql.connect.service.SparkConnectServer --jars "$(subjxform jar --spark <the server\'s Spark>)"'
)


def register(spark: SparkSession) -> None:
    """Registers the functions in a session that is already running (with the jar on its classpath).

    Under Spark Connect the server owns the functions: start it with the jar instead. The Python API's
    functions do this by themselves; call it before running SQL text in a session started with
    ``--jars`` alone on PySpark 3.5.

    Args:
        spark: a classic session whose classpath has the jar.

    Raises:
        RuntimeError: a Spark Connect session, or a session without the jar on its classpath (the message
            says how to start one with it).

    Examples:
        >>> register(spark)  # doctest: +SKIP
        >>> spark.sql("SELECT subject_transform('a.b', 'a.*', 'x.$1')")  # doctest: +SKIP
    """
    jvm_session = getattr(spark, "_jsparkSession", None)
    if jvm_session is None:
        raise RuntimeError(
            "register() needs a classic SparkSession; a Spark Connect server has the functions when it starts with "
            f"the jar ({CONNECT_SERVER_HINT})"
        )
    jvm_class(spark, "subjxform.spark.SubjxformFunctions", "register()").register(jvm_session)


# Where no jar can be loaded (Databricks serverless and shared access mode, a Connect server one does not
# start), the portable functions give the same answers for constant transforms and tables.
PORTABLE_HINT = (
    "where no jar can be loaded (serverless, shared access mode, a Spark Connect server you do not "
    "start), use subjxform.portable: the same functions built from Spark's own, for constant "
    "transforms and mapping tables"
)


def ensure_functions(spark: SparkSession | None = None) -> None:
    """Registers the SQL functions in a classic session that lacks them (default: the active session),
    once per session: the Python API's functions call this, so they work wherever the jar is on the
    classpath, however the session was started (PySpark 3.5 with ``--jars`` alone applies no service
    entry). A session without the jar is a RuntimeError that says what to do; under Spark Connect the
    server owns the functions: they are only looked for (one request per session), so that a server
    without the jar gets the same one line instead of Spark's UNRESOLVED_ROUTINE.

    Args:
        spark: the session; None: the active session (or the one this process started).

    Raises:
        RuntimeError: a session without the jar, classic or Spark Connect (the message says what to do,
            including ``subjxform.portable`` where no jar can be loaded).

    Examples:
        >>> ensure_functions(spark)  # doctest: +SKIP
    """
    session = spark if spark is not None else _active_or_started_session()
    if session is None or getattr(session, "_subjxform_functions", False):
        return
    jvm_session = getattr(session, "_jsparkSession", None)
    if jvm_session is None:  # Spark Connect
        if not session.catalog.functionExists("subject_transform"):
            raise RuntimeError(
                "this Spark Connect server has no subjxform functions: its jar must be on the server's classpath "
                f"when the server starts (a client cannot add it: {CONNECT_SERVER_HINT}); " + PORTABLE_HINT
            )
        session._subjxform_functions = True  # type: ignore[union-attr]  # subjxform's marker on the session
        return
    if not jvm_session.catalog().functionExists("subject_transform"):
        jvm_class(session, "subjxform.spark.SubjxformFunctions", "subjxform").register(jvm_session)
    session._subjxform_functions = True  # type: ignore[union-attr]  # subjxform's marker on the session


def _active_or_started_session():
    """The thread's active session, else the one this process started (the active one is per thread)."""
    session = _active_session()
    if session is None:
        from pyspark.sql import SparkSession

        session = getattr(SparkSession, "_instantiatedSession", None)
    return session


def jvm_class(spark: SparkSession, name: str, caller: str) -> JavaClass:
    """The JVM class ``name`` of a classic session, or a RuntimeError that says what is missing.

    py4j answers a class it cannot load with a package object (calling it fails with "'JavaPackage'
    object is not callable"), so the class is looked up first.

    Args:
        spark: a classic session.
        name: the class's full name, e.g. ``"subjxform.spark.SubjxformFunctions"``.
        caller: what needs it, named in the error.

    Returns:
        The py4j ``JavaClass``.

    Raises:
        RuntimeError: a Spark Connect session, or the jar is not on the session's classpath.

    Examples:
        >>> jvm_class(spark, "subjxform.spark.SubjxformFunctions", "register()")  # doctest: +SKIP
    """
    from py4j.java_gateway import JavaClass

    jvm = getattr(spark, "_jvm", None)
    if jvm is None:
        raise RuntimeError(
            f"{caller} needs a classic SparkSession (this one has no JVM of its own: Spark Connect?); over Spark "
            "Connect the SQL functions report a bad table or config when the query is analysed, and `subjxform "
            "validate FILE` checks one without Spark"
        )
    found = jvm
    for part in name.split("."):
        found = getattr(found, part)
    if not isinstance(found, JavaClass):
        raise RuntimeError(
            f"{caller}: the subjxform jar is not on this session's classpath (no class {name}), and a running "
            f"session cannot load it (spark.jars set after it started has no effect): stop it (spark.stop()) and "
            f"start it with subjxform.configure(SparkSession.builder).getOrCreate(), or spark-submit --jars "
            f"{_jar_or_hint(spark)}; {PORTABLE_HINT}"
        )
    return found


def _jar_or_hint(spark) -> str:
    try:
        return jar_path(spark)
    except (FileNotFoundError, UnsupportedSparkError):
        return "<the subjxform jar of your Spark line>"
