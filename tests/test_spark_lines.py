"""One package for every Spark line: the jar that matches the running Spark and Scala, its class files,
and what a user of each line types. Runs on every line (scripts/test-lines.sh), where
SUBJXFORM_EXPECT_LINE names the line under test."""

from __future__ import annotations

import ast
import importlib.metadata
import io
import os
import re
import subprocess
import sys
import tokenize
import zipfile
from pathlib import Path

import pyspark
import pytest

import subjxform
from conftest import NEEDS_EXTENSION_CONF, ROOT, classic_only
from subjxform.session import EXTENSIONS_CLASS, LINES, UnsupportedSparkError, jar_path, spark_line

pytestmark = pytest.mark.compat

INSTALLED_LINE = ".".join(pyspark.__version__.split(".")[:2])
JARS = Path(subjxform.__file__).parent / "jars"


def class_major_versions(jar: Path) -> dict[str, int]:
    """Each class file's major version (52 = Java 8, 61 = Java 17), by entry name."""
    with zipfile.ZipFile(jar) as z:
        return {n: int.from_bytes(z.read(n)[6:8], "big") for n in z.namelist() if n.endswith(".class")}


def test_the_line_under_test_is_the_installed_pyspark():
    expected = os.environ.get("SUBJXFORM_EXPECT_LINE")
    assert spark_line() == (INSTALLED_LINE, spark_line()[1])
    if expected:
        assert "_".join(spark_line()) == expected


def test_the_package_has_a_jar_for_every_line():
    names = sorted(p.name for p in JARS.glob("subjxform-spark-*.jar"))
    assert names == sorted(f"subjxform-spark-{s}_{c}.jar" for s, c in LINES)


# A line written in code: its id ("4.2_2.13"), a (Spark, Scala) pair ("4.2", "2.13") or ("3.5.9", "2.12.18"), or
# a pinned pyspark release ("pyspark==4.2.0"). (Spark 3 and 4, Scala 2.12 and 2.13: nats-server's 2.x releases
# are no line.)
LINE_NAMED = re.compile(
    r"\b[34]\.\d+_2\.1[23]\b|[\"'][34]\.\d+(?:\.\d+)?[\"']\s*,\s*[\"']2\.1[23][.\d]*[\"']|pyspark[^\s\"']*==\d"
)


def code_text(path: Path) -> str:
    """What a file says as code: its comments (and a Python module's docstrings, whose examples doctests
    check) left out."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        docstrings = set()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
                    docstrings.update(range(node.body[0].lineno, node.body[0].end_lineno + 1))
        kept = []
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.COMMENT and token.start[0] not in docstrings:
                kept.append(token.string)
        return " ".join(kept)
    comment = r"(^|\s)#.*$" if path.suffix in (".sh", ".toml", "") else r"^\s*(//|\*|/\*\*).*$|\s//.*$"
    return "\n".join(re.sub(comment, "", line) for line in text.splitlines())


@pytest.mark.skipif(not (ROOT / "scripts").is_dir(), reason="a source checkout's files")
def test_the_lines_are_named_in_one_file_only():
    """python/src/subjxform/data/spark-lines.tsv is the one list: the build, the scripts, CI, the release check
    and the package read it, so that changing the default line, or adding one, is an edit of that file alone."""
    code = [
        ROOT / "build.sbt",
        ROOT / "pyproject.toml",
        ROOT / "setup.py",
        ROOT / "scripts" / "sbt",
        ROOT / ".ci" / "run",
    ]
    code += sorted((ROOT / "project").glob("*.scala")) + sorted((ROOT / "scripts").glob("*.sh"))
    code += sorted((ROOT / "scripts").glob("*.py")) + sorted((ROOT / "python" / "src").rglob("*.py"))
    named = {
        str(path.relative_to(ROOT)): sorted(set(LINE_NAMED.findall(code_text(path)))) for path in code if path.is_file()
    }
    assert {path: found for path, found in named.items() if found} == {}
    table = (ROOT / "python" / "src" / "subjxform" / "data" / "spark-lines.tsv").read_text()
    assert {"_".join(line) for line in LINES} == set(re.findall(r"^([34]\.\d+_2\.1[23])\t", table, re.M))


@pytest.mark.parametrize("spark, scala", LINES, ids=[f"{s}_{c}" for s, c in LINES])
def test_class_files_target_the_lines_java(spark, scala):
    """Spark 3.5 runs on Java 8: its jars' classes are version 52, but for the Java 9+ variants
    in META-INF/versions/9 of the multi-release jar; Spark 4's are at most Java 17's (61)."""
    versions = class_major_versions(JARS / f"subjxform-spark-{spark}_{scala}.jar")
    base = {n: v for n, v in versions.items() if not n.startswith("META-INF/versions/")}
    limit = 52 if spark.startswith("3.") else 61
    assert base and max(base.values()) <= limit, {n: v for n, v in base.items() if v > limit}
    assert versions["META-INF/versions/9/subjxform/engine/LittleEndianWords.class"] == 53
    with zipfile.ZipFile(JARS / f"subjxform-spark-{spark}_{scala}.jar") as z:
        assert "Multi-Release: true" in z.read("META-INF/MANIFEST.MF").decode()


def test_the_line_is_chosen_from_arguments_environment_then_pyspark(monkeypatch):
    monkeypatch.delenv("SUBJXFORM_SPARK_VERSION", raising=False)
    monkeypatch.delenv("SUBJXFORM_SCALA_VERSION", raising=False)
    assert spark_line("3.5.1") == ("3.5", "2.12")
    assert spark_line("3.5", "2.13") == ("3.5", "2.13")
    assert spark_line("4.3.0") == ("4.3", "2.13")
    assert Path(jar_path("4.0")).name == "subjxform-spark-4.0_2.13.jar"
    monkeypatch.setenv("SUBJXFORM_SPARK_VERSION", "3.5")
    monkeypatch.setenv("SUBJXFORM_SCALA_VERSION", "2.13")
    assert Path(jar_path()).name == "subjxform-spark-3.5_2.13.jar"


@pytest.mark.parametrize("spark, scala", [("3.4.1", None), ("4.4.0", None), ("4.0", "2.12"), ("nonsense", None)])
def test_a_spark_without_a_jar_is_a_clear_error_naming_the_supported_lines(spark, scala):
    with pytest.raises(UnsupportedSparkError) as err:
        jar_path(spark, scala)
    assert "3.5 (Scala 2.12, 2.13), 4.0 (Scala 2.13)" in str(err.value) or "cannot read" in str(err.value)


def test_the_command_line_prints_the_jar_for_the_installed_or_the_named_spark():
    def jar(*args: str) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SUBJXFORM_")}
        return subprocess.run(
            [sys.executable, "-m", "subjxform", "jar", *args], capture_output=True, text=True, env=env
        )

    assert jar().stdout.strip() == jar_path(INSTALLED_LINE)
    assert Path(jar("--spark", "3.5", "--scala", "2.13").stdout.strip()).name == "subjxform-spark-3.5_2.13.jar"
    refused = jar("--spark", "3.3")
    assert refused.returncode == 2 and "supported lines" in refused.stderr  # a usage error (issue 30)


def test_the_installed_package_does_not_require_pyspark():
    """Installing subjxform must never replace the pyspark (or databricks-connect) a platform has."""
    requires = importlib.metadata.requires("subjxform") or []
    assert not [r for r in requires if r.lower().startswith("pyspark") and "extra ==" not in r], requires


@classic_only
def test_the_session_runs_the_lines_jar_and_the_engine_reads_words_with_a_varhandle(spark):
    jvm = spark._jvm
    loader = jvm.Thread.currentThread().getContextClassLoader()
    compat = jvm.Class.forName("subjxform.spark.SparkCompat", False, loader)
    location = compat.getProtectionDomain().getCodeSource().getLocation().toString()
    assert location.endswith("subjxform-spark-%s_%s.jar" % spark_line(spark)), location
    words = jvm.Class.forName("subjxform.engine.LittleEndianWords", True, loader)
    field = words.getDeclaredField("VARIANT")
    field.setAccessible(True)
    assert field.get(None) == "varhandle"  # Java 17: the jar's META-INF/versions/9 class


def submit_with_the_jar(job: Path, *options: str) -> subprocess.CompletedProcess:
    """README's line: `spark-submit --jars "$(python -m subjxform jar)" [options] job.py`, in local mode,
    with no SUBJXFORM_ variable set."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUBJXFORM_")}
    jar = subprocess.run(
        [sys.executable, "-m", "subjxform", "jar"], capture_output=True, text=True, env=env, check=True
    )
    spark_submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    return subprocess.run(
        [str(spark_submit), "--jars", jar.stdout.strip(), *options, str(job)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**env, "PYSPARK_PYTHON": sys.executable, "SPARK_HOME": str(spark_submit.parent.parent)},
    )


def test_the_users_line_with_jars_from_the_command_line(tmp_path):
    """`spark-submit --jars "$(python -m subjxform jar)" job.py` with the user's F.expr line; PySpark 3.5
    also needs the extension named (README), which the other lines accept as well."""
    job = tmp_path / "job.py"
    job.write_text(
        "from pyspark.sql import SparkSession, functions as F\n"
        "spark = SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false').getOrCreate()\n"
        "df = spark.createDataFrame([('a.x',), ('b.y',)], ['subject'])\n"
        "print([r[0] for r in df.select(F.expr(\"subject_transform(subject,'a.*','b.<<wildcard(1)>>')\")).collect()])\n"
        "try:\n"
        "    df.select(F.expr(\"subject_transform(subject,'a.*','b.{{wildcard(2)}}')\")).schema\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, str(e).splitlines()[0])\n"
    )
    out = submit_with_the_jar(
        job, *(["--conf", f"spark.sql.extensions={EXTENSIONS_CLASS}"] if NEEDS_EXTENSION_CONF else [])
    )
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.strip().splitlines()
    assert lines[0] == "['b.x', None]"
    assert lines[1].startswith("AnalysisException")
    assert "wildcard index out of range in {{wildcard(2)}}" in lines[1]


@pytest.mark.skipif(not NEEDS_EXTENSION_CONF, reason="Spark 4 applies the jar's service entry: the --jars line above")
def test_the_python_api_works_with_jars_alone_on_pyspark_3_5(tmp_path):
    """README's `spark-submit --jars "$(python -m subjxform jar)" job.py`, nothing else, on PySpark 3.5 (which
    applies no service entry: on Spark 4 the test above runs that line): the Python API registers the
    functions the session lacks, and SQL text finds them after that. One spark-submit, 15-30 s."""
    job = tmp_path / "job.py"
    job.write_text(
        "from pyspark.sql import SparkSession\n"
        "from subjxform import subject_transform\n"
        "spark = SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false').getOrCreate()\n"
        "df = spark.createDataFrame([('orders.eu.42',)], ['subject'])\n"
        "print(df.select(subject_transform('subject', 'orders.*.*', 'shipments.$2.$1')).head()[0])\n"
        "print(spark.sql(\"SELECT subject_transform('a.x', 'a.*', 'b.$1')\").head()[0])\n"
    )
    out = submit_with_the_jar(job)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["shipments.42.eu", "b.x"]
