"""`subjxform connect-server`'s choices, without starting a server: which Spark, which jar, what it refuses
(--print shows the command it would run). Fake Spark folders: a spark-core jar's name is what it reads."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import subjxform
from subjxform.cli.connect import Refused, command


def fake_spark(root: Path, version: str, scala: str, connect_inside: bool) -> Path:
    (root / "jars").mkdir(parents=True)
    (root / "bin").mkdir()
    (root / "jars" / f"spark-core_{scala}-{version}.jar").write_bytes(b"")
    if connect_inside:
        (root / "jars" / f"spark-connect_{scala}-{version}.jar").write_bytes(b"")
    return root


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "subjxform", "connect-server", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def test_the_jar_is_the_one_of_the_spark_it_starts(tmp_path):
    spark4 = fake_spark(tmp_path / "s4", "4.2.0", "2.13", connect_inside=True)
    argv, env, what = command(str(spark4), port=15099)
    assert env["SPARK_HOME"] == str(spark4.resolve()) and argv[0] == str(spark4.resolve() / "bin" / "spark-submit")
    assert argv[argv.index("--jars") + 1] == subjxform.jar_path("4.2", "2.13")
    assert "--packages" not in argv and "spark.connect.grpc.binding.port=15099" in argv
    assert argv[argv.index("--class") + 1] == "org.apache.spark.sql.connect.service.SparkConnectServer"


def test_spark_3_5_gets_its_connect_package(tmp_path):
    spark35 = fake_spark(tmp_path / "s35", "3.5.7", "2.12", connect_inside=False)
    try:
        jar = subjxform.jar_path("3.5", "2.12")
    except FileNotFoundError:
        pytest.skip("the 3.5_2.12 jar is not built here (scripts/build-jars.sh 3.5_2.12)")
    argv, _, what = command(str(spark35))
    assert argv[argv.index("--packages") + 1] == "org.apache.spark:spark-connect_2.12:3.5.7"
    assert "fetches org.apache.spark:spark-connect_2.12:3.5.7" in what
    given = tmp_path / "spark-connect_2.12-3.5.7.jar"
    given.write_bytes(b"")
    argv, _, _ = command(str(spark35), connect_jar=str(given))
    assert argv[argv.index("--jars") + 1] == f"{jar},{given}" and "--packages" not in argv
    wrong = tmp_path / "spark-connect_2.13-4.0.1.jar"
    wrong.write_bytes(b"")
    with pytest.raises(
        Refused, match=r"is the Connect server of Spark 4\.0\.1 \(Scala 2\.13\), not of the Spark 3\.5\.7"
    ):
        command(str(spark35), connect_jar=str(wrong))


def test_what_it_refuses_is_one_line_and_exit_code_2(tmp_path):
    old = fake_spark(tmp_path / "s33", "3.3.2", "2.12", connect_inside=True)
    refused = run("--spark-home", str(old), "--print")
    assert refused.returncode == 2 and "is 3.3.2 (Scala 2.12), and subjxform has no jar for it" in refused.stderr
    empty = run("--spark-home", str(tmp_path), "--print")
    assert empty.returncode == 2 and "holds no Spark (no jars/spark-core_*.jar)" in empty.stderr
    spark4 = fake_spark(tmp_path / "s4", "4.2.0", "2.13", connect_inside=True)
    other_line = run("--spark-home", str(spark4), "--print", "--", "--jars", "/x/subjxform-spark-4.0_2.13.jar")
    assert (
        other_line.returncode == 2
        and "subjxform's jar for Spark 4.0 (Scala 2.13), but the server runs Spark 4.2" in (other_line.stderr)
    )
    assert run("--spark-home", str(spark4), "--print", "--", "--class", "x").returncode == 2


def test_a_spark_home_set_elsewhere_is_said_and_not_used(tmp_path):
    # The pitfall: a venv's spark-submit started another installed pyspark, silently.
    import pyspark

    elsewhere = fake_spark(tmp_path / "other", "4.2.0", "2.13", connect_inside=True)
    shown = run("--print", "--", "--master", "local[2]", env={"SPARK_HOME": str(elsewhere)})
    assert shown.returncode == 0, shown.stderr
    assert f"SPARK_HOME={elsewhere} is not used" in shown.stderr
    home = Path(pyspark.__file__).parent.resolve()
    assert shown.stdout.startswith(f"SPARK_HOME={home} {home}/bin/spark-submit --class ")
    assert shown.stdout.rstrip().endswith("--master 'local[2]' spark-internal")
