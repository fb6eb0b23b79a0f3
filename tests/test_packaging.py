"""The wheel carries every Spark line's jar, requires no pyspark, has the version in version.txt and
the console script."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import subjxform
from conftest import ROOT
from subjxform.session import LINES, jar_name


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel `pip wheel .` builds from this checkout (with the jars already built: a few seconds)."""
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (found,) = out.glob("subjxform-*.whl")
    return found


def test_the_wheel_ships_every_lines_jar_and_the_command(wheel):
    version = (ROOT / "version.txt").read_text().strip()
    assert wheel.name.startswith(f"subjxform-{version}-")
    jars = Path(subjxform.__file__).parent / "jars"
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        for spark, scala in LINES:
            entry = f"subjxform/jars/{jar_name(spark, scala)}"
            assert entry in names, f"the wheel has no {entry}: build every line first (scripts/build-jars.sh)"
            assert z.read(entry) == (jars / jar_name(spark, scala)).read_bytes()
        # The command line's Scala library (build.sbt puts the default line's beside its jar).
        assert any(n.startswith("subjxform/jars/scala-library-2.13.") for n in names), names
        entry_points = next(n for n in names if n.endswith("entry_points.txt"))
        assert "subjxform = subjxform.cli:main" in z.read(entry_points).decode()
        metadata = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    # pyspark only as an extra: installing the wheel never replaces a platform's pyspark.
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist: pyspark")]
    assert requires and all("extra ==" in r for r in requires), requires


def test_the_wheel_ships_py_typed_so_type_checkers_read_the_hints(wheel):
    # PEP 561: without the marker, mypy and IDEs treat the installed package as untyped.
    with zipfile.ZipFile(wheel) as z:
        assert "subjxform/py.typed" in z.namelist()


def test_version_comes_from_version_txt():
    assert subjxform.__version__ == (ROOT / "version.txt").read_text().strip()


def test_the_command_line_runs_with_java_alone_in_a_venv_holding_only_the_wheel(wheel, tmp_path):
    """`subjxform mapping`, `validate` and `sql` need no pyspark (the wheel ships the Scala library they run
    with); `subjxform report`, which does, says in one line what to install. About 10 s (a venv, two JVMs)."""
    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}  # only the venv's packages
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    bin_dir = venv / "bin"
    subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
        env=env,
    )
    assert (
        subprocess.run([str(bin_dir / "python"), "-c", "import pyspark"], capture_output=True, env=env).returncode == 1
    )
    cli = str(bin_dir / "subjxform")

    def run(*args, stdin=None):
        return subprocess.run([cli, *args], capture_output=True, text=True, input=stdin, timeout=120, env=env)

    mapped = run("mapping", "orders.*.*", "shipments.{{wildcard(2)}}.$1", "orders.eu.42")
    assert (mapped.returncode, mapped.stdout.strip()) == (0, "shipments.42.eu"), mapped.stderr
    valid = run("validate", "--mappings", "-", stdin='orders.*: "orders.central.$1"')
    assert valid.returncode == 0, valid.stdout + valid.stderr
    invalid = run("validate", "--mappings", "-", stdin='orders.*: "orders.{{wildcard(2)}}"')
    assert invalid.returncode == 1 and "wildcard index out of range" in invalid.stdout + invalid.stderr
    # `subjxform sql` is Python alone: the SQL text of a table, with neither pyspark nor a JVM
    sql = run("sql", "-", stdin='orders.*: "orders.central.$1"')
    assert sql.returncode == 0 and "CASE WHEN" in sql.stdout and "substring_index" in sql.stdout, sql.stderr
    bad_sql = run("sql", "-", stdin='orders.*: "orders.{{wildcard(2)}}"')
    assert (
        bad_sql.returncode == 1
        and "wildcard index out of range" in bad_sql.stderr
        and "Traceback" not in bad_sql.stderr
    )
    (tmp_path / "m.conf").write_text('orders.*: "orders.central.$1"')
    (tmp_path / "t.json").write_text('{"subject": "orders.1"}')
    report = run("report", str(tmp_path / "t.json"), "--mappings", str(tmp_path / "m.conf"))
    assert report.returncode == 2 and "Traceback" not in report.stderr
    assert report.stderr.strip() == (
        "subjxform report needs pyspark and matplotlib: pip install 'subjxform[reports]' "
        "(matplotlib), and 'subjxform[spark]' where no pyspark is installed"
    )


def engine_classes(jar: Path) -> dict:
    """The Spark-free engine's class files in a line's jar (jvm/core: subjxform.engine, subjxform.config, subjxform.cli, and
    the Java 9 variants), by name."""
    with zipfile.ZipFile(jar) as z:
        return {
            n: z.read(n)
            for n in z.namelist()
            if n.endswith(".class")
            and n.startswith(("subjxform/engine/", "subjxform/config/", "subjxform/cli/", "META-INF/versions/9/"))
        }


def test_the_engine_is_compiled_once_for_every_line_of_a_scala_version():
    # scripts/build-jars.sh builds every line in one sbt session, with one engine per Scala version
    # (SparkLines.coreScala): every jar of that version carries the same bytes.
    jars = Path(subjxform.__file__).parent / "jars"
    for scala in sorted({c for _, c in LINES}):
        built = [jars / jar_name(s, c) for s, c in LINES if c == scala and (jars / jar_name(s, c)).is_file()]
        if len(built) < 2:
            continue
        first = engine_classes(built[0])
        assert len(first) > 100, built[0]
        for jar in built[1:]:
            other = engine_classes(jar)
            differing = sorted(n for n in first.keys() | other.keys() if first.get(n) != other.get(n))
            assert not differing, (built[0].name, jar.name, differing[:5], len(differing))
