"""A local Spark session with subjxform.jar on its classpath and nothing else configured, so every
test also proves the user's line works with ``--jars`` alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

import subjxform

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
