"""Getting the functions into a Spark session."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the command line imports this module for jar_path() alone: no PySpark at run time
    from pyspark.sql import SparkSession

EXTENSIONS_CLASS = "subjxform.spark.SubjxformExtensions"


def jar_path() -> str:
    """The path of ``subjxform.jar`` inside this package, for ``spark.jars`` or ``--jars``."""
    path = Path(str(resources.files("subjxform") / "jars" / "subjxform.jar"))
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} is missing: build it with scripts/setup.sh (or `scripts/sbt jar`) from a source checkout"
        )
    return str(path)


def configure(builder: SparkSession.Builder) -> SparkSession.Builder:
    """Adds the jar and the SQL extensions to a session builder: ``configure(SparkSession.builder).getOrCreate()``.

    The jar alone is enough (Spark finds the extension through its service entry); naming the
    extension as well makes the functions available however the session is created.
    """
    return builder.config("spark.jars", jar_path()).config("spark.sql.extensions", EXTENSIONS_CLASS)


def register(spark: SparkSession) -> None:
    """Registers the functions in a session that is already running (with the jar on its classpath).

    Under Spark Connect the server owns the functions: start it with the jar instead.
    """
    jvm_session = getattr(spark, "_jsparkSession", None)
    if jvm_session is None:
        raise RuntimeError(
            "register() needs a classic SparkSession; for Spark Connect start the server with "
            f"--jars {jar_path()} (the functions then load by themselves)"
        )
    jvm_class(spark, "subjxform.spark.SubjxformFunctions", "register()").register(jvm_session)


def jvm_class(spark: SparkSession, name: str, caller: str):
    """The JVM class ``name`` of a classic session, or a RuntimeError that says what is missing.

    py4j answers a class it cannot load with a package object (calling it fails with "'JavaPackage'
    object is not callable"), so the class is looked up first.
    """
    from py4j.java_gateway import JavaClass

    jvm = getattr(spark, "_jvm", None)
    if jvm is None:
        raise RuntimeError(f"{caller} needs a classic SparkSession (this one has no JVM of its own: Spark Connect?)")
    found = jvm
    for part in name.split("."):
        found = getattr(found, part)
    if not isinstance(found, JavaClass):
        raise RuntimeError(
            f"{caller}: subjxform.jar is not on this session's classpath (no class {name}); start the session "
            f"with .config('spark.jars', subjxform.jar_path()) or subjxform.configure(SparkSession.builder), "
            f"or spark-submit --jars {_jar_or_hint()}"
        )
    return found


def _jar_or_hint() -> str:
    try:
        return jar_path()
    except FileNotFoundError:
        return "<subjxform.jar>"
