"""A local Spark session with subjxform.jar on its classpath and nothing else configured, so every
test also proves the user's line works with ``--jars`` alone."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

import subjxform
from processes import free_port, listening, stop, wait_until

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"


@pytest.fixture(scope="session")
def spark() -> SparkSession:
    session = (
        SparkSession.builder.master("local[2]")
        .appName("subjxform-pytest")
        .config("spark.jars", subjxform.jar_path())
        .config("spark.sql.codegen.fallback", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.warehouse.dir", str(ROOT / "target" / "pytest-warehouse"))
        .getOrCreate()
    )
    yield session
    session.stop()


def golden(name: str) -> list[dict]:
    with open(GOLDEN / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="session")
def connect_url():
    """A Spark Connect server in its own process, started with nothing but ``--jars subjxform.jar``."""
    import subprocess

    import pyspark

    spark_home = Path(pyspark.__file__).parent
    port = free_port()
    log = open(ROOT / "target" / "connect-server.log", "w") if (ROOT / "target").is_dir() else subprocess.DEVNULL
    server = subprocess.Popen(
        [
            str(spark_home / "bin" / "spark-submit"),
            "--master", "local[2]",
            "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
            # (Spark 3.5's Connect server is a package of its own: SUBJXFORM_CONNECT_JARS names its jar.)
            "--jars", ",".join(filter(None, [subjxform.jar_path(), os.environ.get("SUBJXFORM_CONNECT_JARS")])),
            "--conf", f"spark.connect.grpc.binding.port={port}",
            "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
            "--conf", "spark.ui.enabled=false",
            "--conf", "spark.sql.codegen.fallback=false",
            "spark-internal",
        ],
        env={**os.environ, "SPARK_HOME": str(spark_home), "SPARK_LOCAL_IP": "127.0.0.1"},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_until("the Spark Connect server", lambda: listening(port), 180, [server])
        yield f"sc://127.0.0.1:{port}"
    finally:
        stop(server, grace=30)


# `SUBJXFORM_SPARK_MODE=connect` runs the tests that take `session` as a Spark Connect client of a
# server started with the jar. A separate pytest run (scripts/test.sh does both): PySpark's functions
# pick classic or Connect columns per process, so the two modes cannot share one.
SPARK_MODE = os.environ.get("SUBJXFORM_SPARK_MODE", "classic")


@pytest.fixture(scope="session")
def session(request):
    if SPARK_MODE == "connect":
        client = SparkSession.builder.remote(request.getfixturevalue("connect_url")).getOrCreate()
        yield client
        client.stop()
    else:
        yield request.getfixturevalue("spark")


classic_only = pytest.mark.skipif(SPARK_MODE == "connect", reason="needs the classic in-process JVM")
